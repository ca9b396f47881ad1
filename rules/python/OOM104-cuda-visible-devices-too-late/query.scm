; os.environ["CUDA_VISIBLE_DEVICES"] = ... after CUDA was initialised in the same body
((assignment
  left: (subscript
    value: (_) @env
    subscript: (string) @key)) @report
  (#oom-string? @key "CUDA_VISIBLE_DEVICES")
  (#oom-qualname? @env "os.environ")
  (#oom-cuda-initialized-before? @report))

; os.environ.update({"CUDA_VISIBLE_DEVICES": ...})
(call
  function: (attribute
    object: (_) @env
    attribute: (identifier) @method)
  arguments: (argument_list
    (dictionary
      (pair
        key: (string) @key) @report))
  (#eq? @method "update")
  (#oom-string? @key "CUDA_VISIBLE_DEVICES")
  (#oom-qualname? @env "os.environ")
  (#oom-cuda-initialized-before? @report))

; os.environ.update(CUDA_VISIBLE_DEVICES=...)
(call
  function: (attribute
    object: (_) @env
    attribute: (identifier) @method)
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @key) @report)
  (#eq? @method "update")
  (#eq? @key "CUDA_VISIBLE_DEVICES")
  (#oom-qualname? @env "os.environ")
  (#oom-cuda-initialized-before? @report))

; os.putenv("CUDA_VISIBLE_DEVICES", ...)
((call
  function: (_) @fn
  arguments: (argument_list
    .
    (string) @key)) @report
  (#oom-string? @key "CUDA_VISIBLE_DEVICES")
  (#oom-qualname? @fn "os.putenv")
  (#oom-cuda-initialized-before? @report))

; os.environ.setdefault("CUDA_VISIBLE_DEVICES", ...): as late, and as ignored
; (what OOM101's fix writes, moved after CUDA is up)
((call
  function: (attribute
    object: (_) @env
    attribute: (identifier) @method)
  arguments: (argument_list
    .
    (string) @key)) @report
  (#eq? @method "setdefault")
  (#oom-string? @key "CUDA_VISIBLE_DEVICES")
  (#oom-qualname? @env "os.environ")
  (#oom-cuda-initialized-before? @report))

; "-1" or "" hides every GPU (a --device cpu run, a --restrict_cpu switch): that
; chooses no GPU, it is not a hardcoded GPU list.
; os.environ["CUDA_VISIBLE_DEVICES"] = "0"   (any alias of os.environ), or a name
; bound to a constant: GPU = "0" at the top of the script, then ... = GPU
(assignment
  left: (subscript
    value: (_) @env
    subscript: (string) @key)
  right: (_) @value
  (#oom-constant? @value)
  (#not-oom-hides-every-gpu? @value)
  (#oom-string? @key "CUDA_VISIBLE_DEVICES")
  (#oom-qualname? @env "os.environ")) @report @assignment

; os.environ.update({"CUDA_VISIBLE_DEVICES": "0", ...})
(call
  function: (attribute
    object: (_) @env
    attribute: (identifier) @method)
  arguments: (argument_list
    (dictionary
      (pair
        key: (string) @key
        value: (_) @value) @report))
  (#eq? @method "update")
  (#oom-literal? @value)
  (#not-oom-hides-every-gpu? @value)
  (#oom-string? @key "CUDA_VISIBLE_DEVICES")
  (#oom-qualname? @env "os.environ"))

; os.environ.update(CUDA_VISIBLE_DEVICES="0")
(call
  function: (attribute
    object: (_) @env
    attribute: (identifier) @method)
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @key
      value: (_) @value) @report)
  (#eq? @method "update")
  (#eq? @key "CUDA_VISIBLE_DEVICES")
  (#oom-literal? @value)
  (#not-oom-hides-every-gpu? @value)
  (#oom-qualname? @env "os.environ"))

; os.putenv("CUDA_VISIBLE_DEVICES", "0")
(call
  function: (_) @fn
  arguments: (argument_list
    .
    (string) @key
    .
    (_) @value
    .)
  (#oom-literal? @value)
  (#not-oom-hides-every-gpu? @value)
  (#oom-string? @key "CUDA_VISIBLE_DEVICES")
  (#oom-qualname? @fn "os.putenv")) @report

; use_cache=True in a file that enables gradient checkpointing
((keyword_argument
  name: (identifier) @kw
  value: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-file-calls? @report "gradient_checkpointing_enable"))

((keyword_argument
  name: (identifier) @kw
  value: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-file-has-keyword? @report "gradient_checkpointing" "True"))

; model.config.use_cache = True
((assignment
  left: (attribute
    attribute: (identifier) @kw)
  right: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-file-calls? @report "gradient_checkpointing_enable"))

((assignment
  left: (attribute
    attribute: (identifier) @kw)
  right: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-file-has-keyword? @report "gradient_checkpointing" "True"))

; use_cache=True in a file that enables gradient checkpointing; not where autograd
; is off (generation, a policy's sample_actions under no_grad): the cache is what
; inference runs on
((keyword_argument
  name: (identifier) @kw
  value: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-grad-enabled? @report)
  (#oom-file-calls? @report "gradient_checkpointing_enable"))

((keyword_argument
  name: (identifier) @kw
  value: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-grad-enabled? @report)
  (#oom-file-has-keyword? @report "gradient_checkpointing" "True"))

; model.config.use_cache = True
((assignment
  left: (attribute
    attribute: (identifier) @kw)
  right: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-grad-enabled? @report)
  (#oom-file-calls? @report "gradient_checkpointing_enable"))

((assignment
  left: (attribute
    attribute: (identifier) @kw)
  right: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-grad-enabled? @report)
  (#oom-file-has-keyword? @report "gradient_checkpointing" "True"))

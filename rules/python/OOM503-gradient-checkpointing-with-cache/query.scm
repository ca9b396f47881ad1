; use_cache=True in a file that enables gradient checkpointing; not where autograd
; is off (generation, a policy's sample_actions under no_grad): the cache is what
; inference runs on; and not in the `else` of an `if` whose other arm turns
; gradient checkpointing on (`if args.gradient_checkpointing: ... else:
; model.config.use_cache = True`): the two never run together
((keyword_argument
  name: (identifier) @kw
  value: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-grad-enabled? @report)
  (#not-oom-other-arm-calls? @report "gradient_checkpointing_enable")
  (#oom-file-calls? @report "gradient_checkpointing_enable"))

((keyword_argument
  name: (identifier) @kw
  value: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-grad-enabled? @report)
  (#not-oom-other-arm-calls? @report "gradient_checkpointing_enable")
  (#oom-file-has-keyword? @report "gradient_checkpointing" "True"))

; model.config.use_cache = True
((assignment
  left: (attribute
    attribute: (identifier) @kw)
  right: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-grad-enabled? @report)
  (#not-oom-other-arm-calls? @report "gradient_checkpointing_enable")
  (#oom-file-calls? @report "gradient_checkpointing_enable"))

((assignment
  left: (attribute
    attribute: (identifier) @kw)
  right: (true)) @arg @report
  (#eq? @kw "use_cache")
  (#oom-grad-enabled? @report)
  (#not-oom-other-arm-calls? @report "gradient_checkpointing_enable")
  (#oom-file-has-keyword? @report "gradient_checkpointing" "True"))

; a model forward inside `except torch.cuda.OutOfMemoryError:` (or a RuntimeError
; handler that tests for "out of memory")
((call) @call @report
  (#oom-in-oom-handler? @report)
  (#oom-model-call? @report))

; the try body's own call again: `except OutOfMemoryError: run_model(1)`
((call) @call @report
  (#oom-in-oom-handler? @report)
  (#oom-retry-call? @report))

; loss.backward() there
((call
  function: (attribute
    attribute: (identifier) @method)) @call @report
  (#eq? @method "backward")
  (#oom-in-oom-handler? @report))

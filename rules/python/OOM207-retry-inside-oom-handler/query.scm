; a model forward inside `except torch.cuda.OutOfMemoryError:` (or a RuntimeError
; handler that tests for "out of memory")
((call) @call @report
  (#oom-in-oom-handler? @report)
  (#not-oom-retries-on-host? @report)
  (#oom-model-call? @report))

; the try body's own call again: `except OutOfMemoryError: run_model(1)`
((call) @call @report
  (#oom-in-oom-handler? @report)
  (#not-oom-retries-on-host? @report)
  (#oom-retry-call? @report))

; loss.backward() there
((call
  function: (attribute
    attribute: (identifier) @method)) @call @report
  (#eq? @method "backward")
  (#oom-in-oom-handler? @report)
  (#not-oom-retries-on-host? @report))

; retries-on-host: `except OutOfMemoryError: self.device = "cpu"; self.quantize()`
; or `quant(module.weight.to("cpu"))` is the CPU fallback the handler exists
; for; the GPU memory the traceback pins is not what the retry needs.

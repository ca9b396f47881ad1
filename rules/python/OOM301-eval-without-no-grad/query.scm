; A model's forward pass in evaluation code (a forward whose function builds
; its graph for nothing, turning the result into numbers with no backward to
; take it, or code after `model.eval()`), not under a no-grad context, that holds
; something worth a finding: not a smoke test, warm-up or profiler pass on
; `torch.randn(1, 200, 80)` (inputs made from small literal sizes), not a
; module its function froze before the call (`model.requires_grad_(False)`,
; `sampler.eval().requires_grad_(False)`, a loop turning its parameters'
; requires_grad off): with no parameter to train and data for input, the
; forward records no graph; nor where a module the function calls differentiates
; in its own code (forwards-need-no-grad: a signed-distance network's normals by
; torch.autograd.grad), where the help's no_grad would break the job.
((call
  function: (_) @callee) @report
  (#oom-model-call? @report)
  (#oom-grad-enabled? @report)
  (#oom-eval-code? @report)
  (#oom-may-run? @report)
  (#oom-may-use-gpu? @report)
  (#not-oom-forward-on-host? @report)
  (#not-oom-frozen-before? @callee)
  (#not-oom-forward-transient? @report)
  (#oom-forwards-need-no-grad? @report))

;
; Only where something can reach a GPU (oom-may-use-gpu: a device named,
; something placed, a library that places models imported, here or in
; another file of the project): a CPU-only project's forwards hold host memory.

; The same forward in a shared `def iteration(model, loader, train=True)`
; that this file never runs for evaluation, when another file does
; (`iteration(model, val_loader, train=False)` in utils.py's evaluate()): the
; finding waits for the project pass, which keeps it only then.
((call
  function: (_) @callee) @report
  (#oom-model-call? @report)
  (#oom-may-be-called-for-eval? @report)
  (#oom-grad-enabled? @report)
  (#oom-may-run? @report)
  (#oom-may-use-gpu? @report)
  (#not-oom-eval-code? @report)
  (#not-oom-forward-on-host? @report)
  (#not-oom-frozen-before? @callee)
  (#not-oom-forward-transient? @report)
  (#oom-forwards-need-no-grad? @report))

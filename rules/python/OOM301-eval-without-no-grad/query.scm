; A model's forward pass in evaluation code (a function named for evaluation,
; or code after `model.eval()`), not under a no-grad context.
((call
  function: (_) @callee) @report
  (#oom-eval-code? @report)
  (#oom-grad-enabled? @report)
  (#oom-model-call? @report))

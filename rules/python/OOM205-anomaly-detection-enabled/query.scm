; torch.autograd.set_detect_anomaly(True) / (mode=True), outside a flag guard
; and outside test functions (a unit test of a custom autograd.Function)
((call
  function: (_) @fn
  arguments: (argument_list
    .
    [(true)
     (keyword_argument
       name: (identifier) @kw
       value: (true))])) @call @report
  (#oom-qualname? @fn "torch.autograd.set_detect_anomaly" "torch.autograd.anomaly_mode.set_detect_anomaly"
    "torch.set_anomaly_enabled")
  (#not-oom-in-guard? @report)
  (#not-oom-in-function-matching? @report "^test"))

; with torch.autograd.detect_anomaly():
((with_item
  value: (call
    function: (_) @fn) @call) @report
  (#oom-qualname? @fn "torch.autograd.detect_anomaly" "torch.autograd.anomaly_mode.detect_anomaly")
  (#not-oom-in-guard? @report)
  (#not-oom-in-function-matching? @report "^test"))

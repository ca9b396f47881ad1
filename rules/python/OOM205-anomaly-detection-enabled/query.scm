; torch.autograd.set_detect_anomaly(True), outside a flag guard
((call
  function: (_) @fn
  arguments: (argument_list
    .
    (true))) @call @report
  (#oom-qualname? @fn "torch.autograd.set_detect_anomaly" "torch.autograd.anomaly_mode.set_detect_anomaly"
    "torch.set_anomaly_enabled")
  (#not-oom-in-guard? @report))

; with torch.autograd.detect_anomaly():
((with_item
  value: (call
    function: (_) @fn) @call) @report
  (#oom-qualname? @fn "torch.autograd.detect_anomaly" "torch.autograd.anomaly_mode.detect_anomaly")
  (#not-oom-in-guard? @report))

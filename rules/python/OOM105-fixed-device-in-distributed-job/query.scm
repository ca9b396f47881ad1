; "cuda:0" anywhere it names a device: .to("cuda:1"), device="cuda:0", torch.device("cuda:0")
((string) @device @report
  (#match? @device "^[rbuRBU]?[\"']cuda:[0-9]+[\"']$")
  (#oom-distributed-file? @report)
  (#not-oom-in-guard? @report)
  (#not-oom-in-test-code? @report)
  (#not-oom-main-process-only? @report))

; .cuda(0), torch.cuda.set_device(0)
((call
  function: (_) @fn
  arguments: (argument_list
    (integer) @index)) @device @report
  (#match? @fn "(^|\\.)(cuda|set_device)$")
  (#oom-distributed-file? @report)
  (#not-oom-in-guard? @report)
  (#not-oom-in-test-code? @report)
  (#not-oom-main-process-only? @report))

; torch.device("cuda", 0)
((call
  function: (_) @fn
  arguments: (argument_list
    (string) @kind
    (integer))) @device @report
  (#oom-string? @kind "cuda")
  (#oom-qualname? @fn "torch.device")
  (#oom-distributed-file? @report)
  (#not-oom-in-guard? @report)
  (#not-oom-in-test-code? @report)
  (#not-oom-main-process-only? @report))

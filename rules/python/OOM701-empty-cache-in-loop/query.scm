; torch.cuda.empty_cache() inside a loop, outside except handlers
((call
  function: (_) @fn) @call @report
  (#match? @fn "empty_cache$")
  (#oom-qualname? @fn "torch.cuda.empty_cache" "torch.cuda.memory.empty_cache")
  (#oom-in-loop? @report)
  (#not-oom-in-except? @report))

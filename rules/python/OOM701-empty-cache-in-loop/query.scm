; torch.cuda.empty_cache() on every iteration of a loop: not in an except handler,
; not behind an `if` inside the loop (`if step % 100 == 0:` runs it now and then)
((call
  function: (_) @fn) @call @report
  (#oom-qualname? @fn "torch.cuda.empty_cache" "torch.cuda.memory.empty_cache")
  (#oom-in-loop? @report)
  (#not-oom-in-except? @report)
  (#not-oom-in-loop-guard? @report))

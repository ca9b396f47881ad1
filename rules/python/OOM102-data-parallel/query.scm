; torch.nn.DataParallel(model), nn.DataParallel(...), DataParallel(...) through any import;
; not around a module without parameters (a loss or metric: nothing is replicated
; and only a small result is gathered)
((call
  function: (_) @fn
  arguments: (argument_list
    .
    (_) @wrapped)) @report
  (#oom-qualname? @fn "torch.nn.DataParallel" "torch.nn.parallel.DataParallel"
    "torch.nn.parallel.data_parallel.DataParallel")
  (#not-oom-parameter-free? @wrapped))

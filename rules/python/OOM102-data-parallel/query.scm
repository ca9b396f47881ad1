; torch.nn.DataParallel(model), nn.DataParallel(...), DataParallel(...) through any import
((call
  function: (_) @fn) @report
  (#oom-qualname? @fn "torch.nn.DataParallel" "torch.nn.parallel.DataParallel"
    "torch.nn.parallel.data_parallel.DataParallel"))

; torch.load(path) with neither map_location=..., a second positional argument, nor **kwargs
((call
  function: (_) @fn) @report
  (#oom-qualname? @fn "torch.load" "torch.serialization.load")
  (#not-oom-has-argument? @report "map_location" "1"))

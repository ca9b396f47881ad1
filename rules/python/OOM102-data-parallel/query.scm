; torch.nn.DataParallel(model), nn.DataParallel(...), DataParallel(...) through any import,
; in a file that trains (the cost is GPU 0 holding, besides its replica, the gathered
; outputs, the reduced gradients and the optimizer state); not in a function named for
; evaluation that runs no backward (a shared wrapper the Trainer calls for training and
; evaluation, `_wrap_model(model, training=True)`, still fires), not
; around a module without parameters (a loss or metric: nothing is replicated and only
; a small result is gathered) or one frozen before (a linear probe: no gradients flow
; through it), and not in a branch the file's own constants rule out
; (`num_gpus = 1` ... `if num_gpus > 1:`)
((call
  function: (_) @fn
  arguments: (argument_list
    .
    (_) @wrapped)) @report
  (#oom-qualname? @fn "torch.nn.DataParallel" "torch.nn.parallel.DataParallel"
    "torch.nn.parallel.data_parallel.DataParallel")
  (#not-oom-parameter-free? @wrapped)
  (#oom-file-trains? @report)
  (#not-oom-in-evaluation-function? @report)
  (#not-oom-never-runs? @report)
  (#not-oom-frozen-before? @wrapped))

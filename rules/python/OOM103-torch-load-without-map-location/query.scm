; torch.load(path) with neither map_location=..., a second positional argument, nor
; **kwargs, in a script that runs one process per GPU (torchrun, DDP, LOCAL_RANK,
; accelerate, DeepSpeed): every rank puts the checkpoint's CUDA tensors back on the
; GPU they were saved from, cuda:0. A single-process script that loads its own
; checkpoint onto the GPU it trains on loses nothing (tests/ecosystem: 0 of 49).
; Quiet where the file says the load costs nothing: this file's torch.save wrote
; the file with host data (x.cpu(), NumPy, parsed arguments, a dataset), or what
; the loaded value feeds holds none (an LR scheduler's or GradScaler's
; load_state_dict, random generators' state setters), or the other arm of the
; `if` around the load maps the per-process case to its device, or only the main
; process loads it (`if rank == 0:`), onto the device it saved it from.
((call
  function: (_) @fn) @report
  (#oom-qualname? @fn "torch.load" "torch.serialization.load")
  (#oom-distributed-file? @report)
  (#not-oom-has-argument? @report "map_location" "1")
  (#not-oom-mapped-in-other-branch? @report)
  (#not-oom-main-process-only? @report)
  (#not-oom-loads-host-data? @report))

; torch.cuda.empty_cache() on every iteration of a loop: not in an except handler,
; not behind an `if` inside the loop (`if step % 100 == 0:` runs it now and then).
; Not where an iteration is no step that it slows: an attempt the loop repeats only
; after an exception (a retry with a smaller batch), a loop that only collects and
; releases (`for _ in range(3): gc.collect(); torch.cuda.empty_cache()`), a loop that
; reads the cache's own size (memory_reserved, mem_get_info: profiling, which the
; release makes true per iteration), a walk over a checkpoint's tensors at load
; time, and a loop whose iteration runs a whole generation (a generate() with its
; own KV cache, next to which one release is nothing).
; The accelerator module may come through its dotted name, a name bound to it
; (`accel = torch.cuda`) or getattr (`getattr(torch, device_type).empty_cache()`):
; method-of-module answers all three, so one pattern carries the guards.
((call
  function: (_) @fn) @call @report
  (#oom-method-of-module? @fn "empty_cache" "torch.cuda" "torch.cuda.memory" "torch.xpu" "torch.mps" "torch.npu")
  (#oom-in-loop? @report)
  (#not-oom-in-except? @report)
  (#not-oom-in-loop-guard? @report)
  (#not-oom-in-retry-attempt? @report)
  (#not-oom-loop-only-calls? @report "gc.collect" "torch.cuda.empty_cache" "torch.cuda.memory.empty_cache" "torch.cuda.synchronize"
    "torch.cuda.ipc_collect" "torch.xpu.empty_cache" "torch.xpu.synchronize" "torch.mps.empty_cache"
    "torch.mps.synchronize" "torch.npu.empty_cache")
  (#not-oom-loop-calls? @report "torch.cuda.memory_reserved" "torch.cuda.max_memory_reserved"
    "torch.cuda.memory_cached" "torch.cuda.max_memory_cached" "torch.cuda.mem_get_info"
    "torch.cuda.memory.memory_reserved" "torch.cuda.memory.max_memory_reserved" "torch.cuda.memory.mem_get_info"
    "torch.xpu.memory_reserved" "torch.xpu.max_memory_reserved" "torch.xpu.mem_get_info")
  (#not-oom-loop-iterates-built-by? @report "torch.load" "safetensors.torch.load_file" "safetensors.torch.load")
  (#not-oom-loop-generates? @report))

; torch.cuda.empty_cache() on every iteration of a loop: not in an except handler,
; not behind an `if` inside the loop (`if step % 100 == 0:` runs it now and then).
; The accelerator module may come through a name (`accel = torch.cuda`) or
; getattr (`getattr(torch, device_type).empty_cache()`).
((call
  function: (_) @fn) @call @report
  (#oom-qualname? @fn "torch.cuda.empty_cache" "torch.cuda.memory.empty_cache" "torch.xpu.empty_cache"
    "torch.mps.empty_cache" "torch.npu.empty_cache")
  (#oom-in-loop? @report)
  (#not-oom-in-except? @report)
  (#not-oom-in-loop-guard? @report))

((call
  function: (attribute
    object: (identifier) @module
    attribute: (identifier) @method)) @call @report
  (#eq? @method "empty_cache")
  (#oom-holds? @module "torch.cuda" "torch.xpu" "torch.mps" "torch.npu")
  (#oom-in-loop? @report)
  (#not-oom-in-except? @report)
  (#not-oom-in-loop-guard? @report))

((call
  function: (attribute
    object: (call
      function: (identifier) @getattr
      arguments: (argument_list
        .
        (_) @torch))
    attribute: (identifier) @method)) @call @report
  (#eq? @method "empty_cache")
  (#eq? @getattr "getattr")
  (#oom-qualname? @torch "torch")
  (#oom-in-loop? @report)
  (#not-oom-in-except? @report)
  (#not-oom-in-loop-guard? @report))

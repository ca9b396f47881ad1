; The global rank where a GPU index goes. Every pattern asks that the value
; is the rank in the whole job (a knowledge-base call or launcher variable,
; through casts and assignments) and that a launcher that may span nodes
; numbers the file's processes; a script that spawns its own processes on
; one node is left alone.

; torch.cuda.set_device(rank), torch.cuda.device(rank)
((call
  function: (_) @fn
  arguments: (argument_list
    .
    (_) @rank)) @report
  (#oom-qualname? @fn "torch.cuda.set_device" "torch.cuda.device")
  (#oom-global-rank? @rank)
  (#oom-ranks-from-launcher? @report))

; model.cuda(rank), x.to(rank): an integer is a CUDA device index
((call
  function: (attribute
    attribute: (identifier) @method)
  arguments: (argument_list
    .
    (_) @rank)) @report
  (#any-of? @method "cuda" "to")
  (#oom-global-rank? @rank)
  (#oom-ranks-from-launcher? @report))

; torch.device("cuda", rank), torch.device(rank)
((call
  function: (_) @fn
  arguments: (argument_list
    (string) @kind
    .
    (_) @rank)) @report
  (#oom-qualname? @fn "torch.device")
  (#oom-string? @kind "cuda")
  (#oom-global-rank? @rank)
  (#oom-ranks-from-launcher? @report))

((call
  function: (_) @fn
  arguments: (argument_list
    .
    (_) @rank .)) @report
  (#oom-qualname? @fn "torch.device")
  (#oom-global-rank? @rank)
  (#oom-ranks-from-launcher? @report))

; f"cuda:{rank}"
((string
  (interpolation
    expression: (_) @rank)) @report
  (#match? @report "^[fF][\"']cuda:\\{")
  (#oom-global-rank? @rank)
  (#oom-ranks-from-launcher? @report))

; DDP(model, device_ids=[rank], output_device=rank), FSDP(device_id=rank),
; torch.zeros(n, device=rank)
((keyword_argument
  name: (identifier) @kw
  value: (list
    .
    (_) @rank .)) @report
  (#eq? @kw "device_ids")
  (#oom-global-rank? @rank)
  (#oom-ranks-from-launcher? @report))

((keyword_argument
  name: (identifier) @kw
  value: (_) @rank) @report
  (#any-of? @kw "output_device" "device_id" "device")
  (#oom-global-rank? @rank)
  (#oom-ranks-from-launcher? @report))

; torch.zeros(n, d) / torch.arange(...) / torch.tensor([...]) without device=,
; whose tensor, followed forward, meets one on the module's device: the
; forward's input, a submodule's output, a tensor moved with .cuda()/.to(),
; in an operator, a combining function (torch.cat, torch.where, ...) or a
; submodule's call; or kept as a plain attribute in __init__ and met so in
; the forward. What counts as a factory, a combining function or a method
; that keeps or moves a tensor is library knowledge (rules/kb/library.json,
; values.host_tensor_factories and the lists after it).
((call
  function: (_) @fn) @report
  (#oom-host-tensor-meets-device? @report))

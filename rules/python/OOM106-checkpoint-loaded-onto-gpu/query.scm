; torch.load(path, map_location=device) whose result is copied into a model
; (model.load_state_dict(torch.load(...)), or ckpt = torch.load(...) read by a
; later load_state_dict in the same function): the tensors land on the GPU
; first, then load_state_dict copies them into parameters that are already
; there. map_location to the host (a string or device naming "cpu", a
; lambda keeping storages where they are) is the fix, and stays quiet.
((call
  function: (_) @fn
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @kw
      value: (_) @loc))) @call @report
  (#eq? @kw "map_location")
  (#oom-qualname? @fn "torch.load" "torch.serialization.load")
  (#not-match? @loc "cpu|^lambda|^None$|^\\{")
  (#not-oom-holds? @loc "cpu")
  (#oom-loads-into-model? @call))

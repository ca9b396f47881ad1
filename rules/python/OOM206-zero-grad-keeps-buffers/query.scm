; Only where something can reach a GPU (oom-may-use-gpu, here or in another
; file of the project): on the host the kept gradients are host memory.
; optimizer.zero_grad(set_to_none=False), model.zero_grad(False)
((call
  function: (attribute
    attribute: (identifier) @method)
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @kw
      value: (false) @flag))) @call @report
  (#eq? @method "zero_grad")
  (#eq? @kw "set_to_none")
  (#oom-may-use-gpu? @report))

((call
  function: (attribute
    attribute: (identifier) @method)
  arguments: (argument_list
    .
    (false) @flag
    .)) @call @report
  (#eq? @method "zero_grad")
  (#oom-may-use-gpu? @report))

; Each pattern needs a graph built in every iteration of the loop: one graph
; built before the loop and differentiated once per loss, parameter or row
; (a loss balancer, a Jacobian row by row) is retained on purpose. Only where
; something can reach a GPU (oom-may-use-gpu, here or in another file of the
; project): a CPU-only project's graphs are host memory.
; loss.backward(retain_graph=True), accelerator.backward(loss, retain_graph=True)
((call
  function: (attribute
    attribute: (identifier) @method)
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @kw
      value: (true)) @retain)) @call @report
  (#eq? @method "backward")
  (#eq? @kw "retain_graph")
  (#oom-in-loop? @report)
  (#oom-graph-built-each-iteration? @report)
  (#oom-last-backward? @report)
  (#oom-may-use-gpu? @report))

; torch.autograd.backward(..., retain_graph=True), torch.autograd.grad(..., retain_graph=True)
((call
  function: (_) @fn
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @kw
      value: (true)) @retain)) @call @report
  (#eq? @kw "retain_graph")
  (#oom-qualname? @fn "torch.autograd.backward" "torch.autograd.grad")
  (#oom-in-loop? @report)
  (#oom-graph-built-each-iteration? @report)
  (#oom-last-backward? @report)
  (#oom-may-use-gpu? @report))

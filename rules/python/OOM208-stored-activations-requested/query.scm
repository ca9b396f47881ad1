; model(**batch, output_attentions=True) in training code: the attention
; maps need the eager attention, which builds an L x L matrix per layer
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @flag
      value: (true)) @report)) @call
  (#eq? @flag "output_attentions")
  (#oom-model-call? @call)
  (#oom-grad-enabled? @report)
  (#not-oom-eval-code? @report))

; model(**batch, output_hidden_states=True) in training code, where the
; hidden states may outlive the backward: autograd saves each layer's output
; anyway, so they cost memory only when the returned tuple keeps them after
; it (the output returned, stored, or alive in the function that runs the
; backward); not when the function takes one tensor out and drops the rest
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @flag
      value: (true)) @report)) @call
  (#eq? @flag "output_hidden_states")
  (#oom-model-call? @call)
  (#oom-grad-enabled? @report)
  (#not-oom-eval-code? @report)
  (#oom-layer-outputs-escape? @call))

; AutoModel.from_pretrained(..., output_hidden_states=True) in a file that trains
(call
  function: (attribute
    attribute: (identifier) @method)
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @flag
      value: (true)) @report)
  (#eq? @method "from_pretrained")
  (#any-of? @flag "output_hidden_states" "output_attentions")
  (#oom-file-trains? @report)
  (#oom-grad-enabled? @report)
  (#not-oom-eval-code? @report))

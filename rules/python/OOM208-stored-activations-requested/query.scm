; model(**batch, output_hidden_states=True) in training code
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @flag
      value: (true)) @report)) @call
  (#any-of? @flag "output_hidden_states" "output_attentions")
  (#oom-model-call? @call)
  (#oom-grad-enabled? @report)
  (#not-oom-eval-code? @report))

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

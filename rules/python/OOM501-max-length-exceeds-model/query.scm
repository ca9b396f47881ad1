; tokenizer(..., max_length=2048) for a model with 1024 learned positions; the
; value may be a literal or a name bound to one (MAX_LEN = 2048)
((keyword_argument
  name: (identifier) @kw
  value: (_) @value) @arg @report
  (#any-of? @kw "max_length" "max_seq_length" "block_size" "model_max_length" "max_position_embeddings")
  (#oom-exceeds-model-limit? @value))

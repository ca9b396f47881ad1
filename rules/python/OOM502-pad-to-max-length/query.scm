; tokenizer(texts, padding="max_length", ...)
((keyword_argument
  name: (identifier) @kw
  value: (string) @value) @arg @report
  (#eq? @kw "padding")
  (#oom-string? @value "max_length"))

; tokenizer.encode_plus(text, pad_to_max_length=True)
((keyword_argument
  name: (identifier) @kw
  value: (true)) @arg @report
  (#eq? @kw "pad_to_max_length"))

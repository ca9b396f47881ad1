; tokenizer(texts, padding="max_length", ...): not for a short max_length (256
; tokens or less: class names, labels, short texts; padding them costs little) and not for
; targets (text_target=...)
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @kw
      value: (string) @value) @arg @report)) @call
  (#eq? @kw "padding")
  (#oom-string? @value "max_length")
  (#not-oom-argument-at-most? @call "max_length" "256")
  (#not-oom-has-argument? @call "text_target"))

; tokenizer.encode_plus(text, pad_to_max_length=True)
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @kw
      value: (true)) @arg @report)) @call
  (#eq? @kw "pad_to_max_length")
  (#not-oom-argument-at-most? @call "max_length" "256"))

; TrainingArguments(fp16=True, ..., bf16=True) in either order
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @a
      value: (true)) @report
    (keyword_argument
      name: (identifier) @b
      value: (true)))) @config
  (#eq? @a "fp16")
  (#eq? @b "bf16"))

((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @a
      value: (true)) @report
    (keyword_argument
      name: (identifier) @b
      value: (true)))) @config
  (#eq? @a "bf16")
  (#eq? @b "fp16"))

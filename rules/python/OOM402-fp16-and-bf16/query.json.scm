; TrainingArguments JSON: "fp16": true and "bf16": true at the top level
((object
  (pair
    key: (string (string_content) @a)
    value: (true)) @report
  (pair
    key: (string (string_content) @b)
    value: (true))) @config
  (#any-of? @a "fp16" "bf16")
  (#any-of? @b "fp16" "bf16")
  (#not-eq? @a @b)
  (#oom-json-kind? @report "training-args")
  (#oom-json-top-level? @report))

; DeepSpeed: "fp16": {"enabled": true} and "bf16": {"enabled": true}
((object
  (pair
    key: (string (string_content) @a)
    value: (object
      (pair
        key: (string (string_content) @e1)
        value: (true)))) @report
  (pair
    key: (string (string_content) @b)
    value: (object
      (pair
        key: (string (string_content) @e2)
        value: (true))))) @config
  (#any-of? @a "fp16" "bf16")
  (#any-of? @b "fp16" "bf16")
  (#not-eq? @a @b)
  (#eq? @e1 "enabled")
  (#eq? @e2 "enabled")
  (#oom-json-kind? @report "deepspeed"))

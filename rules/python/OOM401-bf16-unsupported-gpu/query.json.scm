; DeepSpeed: "bf16": {"enabled": true}   ("auto" follows the TrainingArguments),
; in a DeepSpeed JSON or inline in a TrainingArguments JSON's "deepspeed"; not in a
; config named for bf16 (zero3_bf16.json beside zero3.json): choosing that file is
; the user's precision switch
((pair
  key: (string (string_content) @kw)
  value: (object
    (pair
      key: (string (string_content) @enabled)
      value: (true)))) @arg @report @setting
  (#eq? @kw "bf16")
  (#eq? @enabled "enabled")
  (#oom-json-deepspeed-key? @report)
  (#not-oom-file-name-matches? @report "(?i)bf16|bfloat16")
  (#oom-target-gpu-lacks? @report "bf16"))

; TrainingArguments JSON: "bf16": true
((pair
  key: (string (string_content) @kw)
  value: (true)) @arg @report @setting
  (#any-of? @kw "bf16" "bf16_full_eval")
  (#oom-json-kind? @report "training-args")
  (#oom-json-top-level? @report)
  (#oom-target-gpu-lacks? @report "bf16"))

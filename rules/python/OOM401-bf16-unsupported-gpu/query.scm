; TrainingArguments(bf16=True), SFTConfig(bf16_full_eval=True), ...
((keyword_argument
  name: (identifier) @kw
  value: (true)) @arg @report
  (#any-of? @kw "bf16" "bf16_full_eval")
  (#oom-target-gpu-lacks? @report "bf16")
  (#not-oom-file-calls? @report "is_bf16_supported"))

; torch.autocast("cuda", dtype=torch.bfloat16), from_pretrained(..., torch_dtype=torch.bfloat16)
((keyword_argument
  name: (identifier) @kw
  value: (_) @value) @arg @report
  (#any-of? @kw "dtype" "torch_dtype")
  (#oom-qualname? @value "torch.bfloat16")
  (#oom-target-gpu-lacks? @report "bf16")
  (#not-oom-file-calls? @report "is_bf16_supported"))

; from_pretrained(..., torch_dtype="bfloat16"), Accelerator(mixed_precision="bf16")
((keyword_argument
  name: (identifier) @kw
  value: (string) @value) @arg @report
  (#any-of? @kw "torch_dtype" "dtype" "mixed_precision")
  (#oom-string? @value "bfloat16" "bf16")
  (#oom-target-gpu-lacks? @report "bf16")
  (#not-oom-file-calls? @report "is_bf16_supported"))

; model.to(torch.bfloat16), model.bfloat16()
((call
  function: (attribute
    object: (_) @model
    attribute: (identifier) @method)
  arguments: (argument_list
    .
    (_)? @value)) @arg @report
  (#eq? @method "to")
  (#oom-qualname? @value "torch.bfloat16")
  (#oom-model-like? @model)
  (#oom-target-gpu-lacks? @report "bf16")
  (#not-oom-file-calls? @report "is_bf16_supported"))

((call
  function: (attribute
    object: (_) @model
    attribute: (identifier) @method)) @arg @report
  (#eq? @method "bfloat16")
  (#oom-model-like? @model)
  (#oom-target-gpu-lacks? @report "bf16")
  (#not-oom-file-calls? @report "is_bf16_supported"))

; TRL configs turn bf16 on by default unless fp16 is set
((call
  function: (_) @fn) @arg @report
  (#oom-qualname-match? @fn "^trl(\\.[a-z_]+)*\\.[A-Za-z]+Config$")
  (#not-oom-has-argument? @report "bf16")
  (#not-oom-has-argument? @report "fp16")
  (#oom-target-gpu-lacks? @report "bf16")
  (#not-oom-file-calls? @report "is_bf16_supported"))

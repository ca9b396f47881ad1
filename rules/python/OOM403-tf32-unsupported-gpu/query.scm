; TrainingArguments(tf32=True)
((keyword_argument
  name: (identifier) @kw
  value: (true)) @arg @report
  (#eq? @kw "tf32")
  (#oom-target-gpu-lacks? @report "tf32"))

; torch.backends.cuda.matmul.allow_tf32 = True, torch.backends.cudnn.allow_tf32 = True
((assignment
  left: (attribute) @flag
  right: (true)) @arg @report
  (#oom-qualname? @flag "torch.backends.cuda.matmul.allow_tf32" "torch.backends.cudnn.allow_tf32")
  (#oom-target-gpu-lacks? @report "tf32"))

; torch.set_float32_matmul_precision("high") lets matmuls use TF32
((call
  function: (_) @fn
  arguments: (argument_list
    .
    (string) @value)) @arg @report
  (#oom-qualname? @fn "torch.set_float32_matmul_precision")
  (#oom-string? @value "high" "medium")
  (#oom-target-gpu-lacks? @report "tf32"))

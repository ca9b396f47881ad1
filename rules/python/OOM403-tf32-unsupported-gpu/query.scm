; TrainingArguments(tf32=True) and its subclasses (Seq2SeqTrainingArguments, TRL configs).
; The portable switches (torch.backends.*.allow_tf32, set_float32_matmul_precision)
; are not matched: PyTorch ignores them on GPUs without TF32, nothing fails.
((keyword_argument
  name: (identifier) @kw
  value: (true)) @arg @report
  (#eq? @kw "tf32")
  (#oom-target-gpu-lacks? @report "tf32"))

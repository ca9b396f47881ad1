; TrainingArguments(...) without eval_accumulation_steps, in a file that passes
; compute_metrics and loads a model whose predictions are vocabulary-sized
; logits (examples x sequence x vocabulary): a classifier's (examples x
; labels), generated token ids (predict_with_generate=True) and logits
; reduced by preprocess_logits_for_metrics are small
((call
  function: (_) @fn) @report
  (#oom-qualname-match? @fn "(^|\\.)(TrainingArguments|Seq2SeqTrainingArguments|SFTConfig)$")
  (#not-oom-has-argument? @report "eval_accumulation_steps")
  (#oom-file-has-keyword? @report "compute_metrics")
  (#oom-file-loads-lm-head? @report)
  (#not-oom-file-has-keyword? @report "predict_with_generate" "True")
  (#not-oom-file-has-keyword? @report "preprocess_logits_for_metrics"))

; TrainingArguments(...) without eval_accumulation_steps, in a file that passes compute_metrics
((call
  function: (_) @fn) @report
  (#oom-qualname-match? @fn "(^|\\.)(TrainingArguments|Seq2SeqTrainingArguments|SFTConfig)$")
  (#not-oom-has-argument? @report "eval_accumulation_steps")
  (#oom-file-has-keyword? @report "compute_metrics"))

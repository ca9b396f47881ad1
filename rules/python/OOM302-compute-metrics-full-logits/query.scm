; Trainer(model=<LM head>, compute_metrics=..., no preprocess_logits_for_metrics)
((call
  function: (_) @fn
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @kw
      value: (_) @metrics) @report)) @call
  (#eq? @kw "compute_metrics")
  (#not-eq? @metrics "None")
  (#oom-qualname-match? @fn "(^|\\.)(Trainer|Seq2SeqTrainer|SFTTrainer)$")
  (#not-oom-has-argument? @call "preprocess_logits_for_metrics")
  (#not-oom-file-has-keyword? @call "predict_with_generate" "True")
  (#oom-lm-trainer? @call)
  (#oom-logits-size? @call))

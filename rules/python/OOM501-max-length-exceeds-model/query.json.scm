; a TrainingArguments-style JSON (run_glue.py, run_clm.py) that names its model:
; "model_name_or_path": "bert-base-uncased", "max_seq_length": 1024
((pair
  key: (string (string_content) @kw)
  value: (number) @value) @arg @report
  (#any-of? @kw "max_length" "max_seq_length" "block_size" "model_max_length" "max_source_length")
  (#oom-json-top-level? @report)
  (#oom-json-exceeds-model-limit? @value))

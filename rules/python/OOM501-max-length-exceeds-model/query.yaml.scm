; A YAML config that names its model (axolotl base_model, LLaMA-Factory and TRL
; model_name_or_path) and a sequence length above that model's position limit:
; axolotl sequence_len, LLaMA-Factory cutoff_len, TRL max_seq_length / max_length.
((block_mapping_pair
  key: (flow_node) @kw) @arg @report
  (#any-of? @kw "sequence_len" "cutoff_len" "max_seq_length" "max_length")
  (#oom-yaml-kind? @report "axolotl" "llama-factory" "training-args")
  (#oom-yaml-key? @report "sequence_len" "cutoff_len" "max_seq_length" "max_length")
  (#oom-yaml-exceeds-model-limit? @report))

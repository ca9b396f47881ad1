; A TrainingArguments recipe (TRL, alignment-handbook, LLaMA-Factory) with
; `bf16: true` and `fp16: true`: TrainingArguments refuses both. Reported at bf16.
; Not axolotl: it turns fp16 off itself when bf16 is on (axolotl PR #1122).
((block_mapping_pair
  key: (flow_node) @kw) @arg @report
  (#eq? @kw "bf16")
  (#oom-yaml-kind? @report "training-args")
  (#oom-yaml-key? @report "bf16")
  (#oom-yaml-value? @report "true")
  (#oom-yaml-true? @report "fp16"))

; `tf32: true` in a TrainingArguments recipe, a LLaMA-Factory config or an axolotl
; config (which hands it to TrainingArguments): it raises on a GPU without TF32.
((block_mapping_pair
  key: (flow_node) @kw) @arg @report
  (#eq? @kw "tf32")
  (#oom-yaml-kind? @report "training-args" "axolotl" "llama-factory")
  (#oom-yaml-key? @report "tf32")
  (#oom-yaml-value? @report "true")
  (#oom-target-gpu-lacks? @report "tf32"))

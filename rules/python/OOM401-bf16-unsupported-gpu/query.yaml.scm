; Recipes of TrainingArguments (TRL, alignment-handbook, LLaMA-Factory) and axolotl:
; `bf16: true` at the top level. axolotl's `bf16: auto` becomes fp16 on a GPU without
; bf16 (normalize_config; axolotl PR #1122 made it the examples' default), so only an
; explicit true fires; PyYAML reads `yes`/`on`/`True` as true too.
((block_mapping_pair
  key: (flow_node) @kw) @arg @report
  (#any-of? @kw "bf16" "bf16_full_eval" "bfloat16")
  (#oom-yaml-kind? @report "training-args" "axolotl" "llama-factory")
  (#oom-yaml-key? @report "bf16" "bf16_full_eval" "bfloat16")
  (#oom-yaml-value? @report "true")
  (#oom-target-gpu-lacks? @report "bf16"))

; accelerate config: mixed_precision: bf16
((block_mapping_pair
  key: (flow_node) @kw) @arg @report
  (#eq? @kw "mixed_precision")
  (#oom-yaml-kind? @report "accelerate")
  (#oom-yaml-key? @report "mixed_precision")
  (#oom-yaml-value? @report "bf16")
  (#oom-target-gpu-lacks? @report "bf16"))

; Lightning CLI: trainer: {precision: bf16-mixed} (Lightning 2 names; "bf16" is the
; older spelling of bf16-mixed, "bf16-true" keeps the weights in bf16 as well)
((block_mapping_pair
  key: (flow_node) @kw) @arg @report
  (#eq? @kw "precision")
  (#oom-yaml-kind? @report "lightning")
  (#oom-yaml-key? @report "trainer.precision")
  (#oom-yaml-value? @report "bf16" "bf16-mixed" "bf16-true")
  (#oom-target-gpu-lacks? @report "bf16"))

; litgpt: the precision sits at the top level (`precision: bf16-true` in its
; config_hub recipes; Fabric's names, "bf16" the older spelling of bf16-mixed)
((block_mapping_pair
  key: (flow_node) @kw) @arg @report
  (#eq? @kw "precision")
  (#oom-yaml-kind? @report "litgpt")
  (#oom-yaml-key? @report "precision")
  (#oom-yaml-value? @report "bf16" "bf16-mixed" "bf16-true")
  (#oom-target-gpu-lacks? @report "bf16"))

; axolotl: flash_attention: true
((block_mapping_pair
  key: (flow_node) @kw) @arg @report
  (#eq? @kw "flash_attention")
  (#oom-yaml-kind? @report "axolotl")
  (#oom-yaml-key? @report "flash_attention")
  (#oom-yaml-value? @report "true")
  (#oom-target-gpu-lacks? @report "flash_attention_2"))

; LLaMA-Factory: flash_attn: fa2 (its choices are auto, disabled/off, sdpa, fa2;
; "auto" falls back to sdpa where FlashAttention-2 cannot run)
((block_mapping_pair
  key: (flow_node) @kw) @arg @report
  (#eq? @kw "flash_attn")
  (#oom-yaml-kind? @report "llama-factory")
  (#oom-yaml-key? @report "flash_attn")
  (#oom-yaml-value? @report "fa2")
  (#oom-target-gpu-lacks? @report "flash_attention_2"))

; TRL / alignment-handbook recipes pass the model's loading arguments in the same
; file: attn_implementation: flash_attention_2
((block_mapping_pair
  key: (flow_node) @kw) @arg @report
  (#eq? @kw "attn_implementation")
  (#oom-yaml-kind? @report "training-args")
  (#oom-yaml-key? @report "attn_implementation")
  (#oom-yaml-value? @report "flash_attention_2")
  (#oom-target-gpu-lacks? @report "flash_attention_2"))

; a model config.json that asks for it: "attn_implementation": "flash_attention_2"
((pair
  key: (string (string_content) @kw)
  value: (string (string_content) @value)) @arg @report
  (#any-of? @kw "attn_implementation" "_attn_implementation")
  (#eq? @value "flash_attention_2")
  (#oom-json-kind? @report "model-config" "training-args")
  (#oom-target-gpu-lacks? @report "flash_attention_2"))

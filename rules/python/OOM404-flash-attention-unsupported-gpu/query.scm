; from_pretrained(..., attn_implementation="flash_attention_2")
((keyword_argument
  name: (identifier) @kw
  value: (string) @value) @arg @report
  (#eq? @kw "attn_implementation")
  (#oom-string? @value "flash_attention_2")
  (#oom-target-gpu-lacks? @report "flash_attention_2"))

; the older spelling: use_flash_attention_2=True
((keyword_argument
  name: (identifier) @kw
  value: (true)) @arg @report
  (#eq? @kw "use_flash_attention_2")
  (#oom-target-gpu-lacks? @report "flash_attention_2"))

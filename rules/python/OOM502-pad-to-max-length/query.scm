; tokenizer(texts, padding="max_length", ...): not for a short max_length (256
; tokens or less on every path: class names, labels, short texts; padding them
; costs little), nor for the longest length of the batch a collate function was
; handed (max(len(e["input_ids"]) for e in examples): dynamic padding), nor for
; targets (text_target=..., or ids stored as the batch's "labels"), nor for a
; processor given images and no text (nothing to pad). Not in a file that builds
; a diffusers denoiser: its prompts are padded to the fixed length the
; denoiser's cross-attention was trained on (CLIP's 77). Not in a script that
; runs models and trains nothing: no activations are kept for a backward pass.
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @kw
      value: (string) @value) @arg @report)) @call
  (#eq? @kw "padding")
  (#oom-string? @value "max_length")
  (#not-oom-file-loads-diffusion-model? @call)
  (#not-oom-file-only-infers? @call)
  (#not-oom-has-argument? @call "text_target")
  (#not-oom-tokenizes-no-text? @call)
  (#not-oom-argument-short-or-measured? @call "max_length" "256")
  (#not-oom-becomes-labels? @call))

; tokenizer.encode_plus(text, pad_to_max_length=True)
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @kw
      value: (true)) @arg @report)) @call
  (#eq? @kw "pad_to_max_length")
  (#not-oom-file-loads-diffusion-model? @call)
  (#not-oom-file-only-infers? @call)
  (#not-oom-tokenizes-no-text? @call)
  (#not-oom-argument-short-or-measured? @call "max_length" "256")
  (#not-oom-becomes-labels? @call))

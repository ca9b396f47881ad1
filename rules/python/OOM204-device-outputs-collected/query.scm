; all_logits.append(outputs.logits) in a loop that runs without grad
(call
  function: (attribute
    object: (_) @store
    attribute: (identifier) @method)
  arguments: (argument_list
    .
    (_) @value
    .)
  (#any-of? @method "append" "extend")
  (#oom-in-loop? @store)
  (#not-oom-grad-enabled? @store)
  (#oom-outlives-all-loops? @store)
  (#not-oom-in-periodic-guard? @store)
  (#not-oom-follows-switch? @store "^(return|output)_[a-z_]+$")
  (#not-oom-chunked-output? @store)
  (#not-oom-combined-for-all-pairs? @store)
  (#not-oom-in-function-matching? @store "^forward$")
  (#oom-device-output? @value)
  (#not-oom-host-on-default-path? @value)
  (#not-oom-view-of-one-tensor? @value)) @report

; the same in evaluation code with grad on, when the value has no graph
; (with a graph, OOM201 already reports it)
(call
  function: (attribute
    object: (_) @store
    attribute: (identifier) @method)
  arguments: (argument_list
    .
    (_) @value
    .)
  (#any-of? @method "append" "extend")
  (#oom-in-loop? @store)
  (#oom-eval-code? @store)
  (#oom-grad-enabled? @store)
  (#oom-outlives-all-loops? @store)
  (#not-oom-in-periodic-guard? @store)
  (#not-oom-chunked-output? @store)
  (#not-oom-combined-for-all-pairs? @store)
  (#not-oom-in-function-matching? @store "^forward$")
  (#oom-device-output? @value)
  (#not-oom-host-on-default-path? @value)
  (#not-oom-view-of-one-tensor? @value)
  (#not-oom-carries-graph? @value)) @report

; chunked-output: a list filled in a loop over chunks of one batch or over a
; model's parts (SDXL's two text encoders) and returned combined is one call's
; output, as large as one forward over the batch, not a pile-up; so is a list a
; `forward` builds (one feature per image of the batch): the module's output.
; view-of-one-tensor: `out_seq.append(seq[i:i + 1])` over the rows of one
; generated batch collects views of storage that exists once.
; host-on-default-path: `if convert_to_numpy: embeddings = embeddings.cpu()` with
; `convert_to_numpy=True` the function's default (sentence-transformers' encode):
; the GPU path is the caller's explicit request, as a `return_*` switch is.
; combined-for-all-pairs: embeddings put together after the loop and multiplied
; all-against-all (`image_embeds @ text_embeds.t()`, BLIP's retrieval evaluation):
; the product needs the whole set on the device, the help's move to the host does not apply.
; in-periodic-guard: `if index % log_every_t == 0: intermediates.append(img)` keeps
; every k-th step's output (a few snapshots for logging), not every iteration's.
; outlives-all-loops: a buffer made afresh per batch (test-time augmentation
; views stacked right after) is not the whole dataset piling up.
; all_logits = torch.cat([all_logits, logits]) (or a tuple) in a loop that runs without grad
(assignment
  left: (identifier) @store
  right: (call
    function: (_) @fn
    arguments: (argument_list
      .
      [(list
        (identifier) @same
        (_) @value)
       (tuple
        (identifier) @same
        (_) @value)]))
  (#eq? @store @same)
  (#oom-qualname? @fn "torch.cat" "torch.concat" "torch.concatenate" "torch.vstack" "torch.hstack")
  (#oom-in-loop? @store)
  (#not-oom-grad-enabled? @store)
  (#oom-outlives-all-loops? @store)
  (#not-oom-in-periodic-guard? @store)
  (#oom-device-output? @value)
  (#not-oom-host-on-default-path? @value)) @report

; scores[step] = outputs.logits in a loop that runs without grad; not a buffer made
; beforehand at its full size (`values = torch.zeros(num_steps, n)`: a rollout buffer
; written in place, which does not grow)
(assignment
  left: (subscript
    value: (_) @store)
  right: (_) @value
  (#not-oom-built-by? @store "torch.zeros" "torch.empty" "torch.ones" "torch.full" "torch.zeros_like"
    "torch.empty_like" "torch.ones_like" "torch.full_like")
  (#oom-in-loop? @store)
  (#not-oom-grad-enabled? @store)
  (#oom-outlives-all-loops? @store)
  (#not-oom-in-periodic-guard? @store)
  (#not-oom-chunked-output? @store)
  (#oom-device-output? @value)
  (#not-oom-host-on-default-path? @value)) @report

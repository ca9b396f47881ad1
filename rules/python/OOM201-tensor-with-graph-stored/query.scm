; losses.append(loss), self.history.extend(outputs.logits), ...
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
  (#oom-grad-enabled? @store)
  (#oom-outlives-iteration? @store)
  ; kept because the caller asked for them (`if return_logits:`), as TRL's fix
  ; of its PPO logits does
  (#not-oom-follows-switch? @store "^(return|output)_[a-z_]+$")
  ; a batch run in chunks and put back together for the caller
  ; (`return torch.cat(all_values)`): one call's output, not a leak
  (#not-oom-chunked-output? @store)
  ; made empty for each gradient-accumulation group and filled over that group
  ; (AllenNLP's batch_group_outputs): one group's outputs
  (#not-oom-holds-one-outer-item? @store)
  (#not-oom-in-forward-code? @value)
  (#oom-builds-graphs? @value)
  (#oom-carries-graph? @value)
  (#not-oom-backpropagated? @store)) @report

; history[step] = loss; not losses["d"] = d_loss, a slot with a fixed key that
; each step overwrites: it holds one step's graph, as a local name does
(assignment
  left: (subscript
    value: (_) @store
    subscript: (_) @key)
  right: (_) @value
  (#not-oom-literal? @key)
  (#oom-in-loop? @store)
  (#oom-grad-enabled? @store)
  (#oom-outlives-iteration? @store)
  (#not-oom-in-forward-code? @value)
  (#oom-builds-graphs? @value)
  (#oom-carries-graph? @value)) @report

; self.last_logits = outputs.logits: the previous step's graph stays alive
; while the next step builds its own
(assignment
  left: (attribute
    object: (identifier) @owner) @store
  right: (_) @value
  (#eq? @owner "self")
  (#oom-in-loop? @store)
  (#oom-grad-enabled? @store)
  (#not-oom-in-forward-code? @value)
  (#oom-builds-graphs? @value)
  (#oom-carries-graph? @value)) @report

; self.training_step_outputs.append(loss) in a LightningModule's training_step:
; there is no loop in sight (the trainer is the loop), and the list lives on the
; module until the epoch ends, with every step's graph
(call
  function: (attribute
    object: (attribute
      object: (identifier) @self) @store
    attribute: (identifier) @method)
  arguments: (argument_list
    .
    (_) @value
    .)
  (#eq? @self "self")
  (#any-of? @method "append" "extend")
  (#oom-in-function-matching? @store "^training_step$")
  (#not-oom-in-loop? @store)
  (#oom-grad-enabled? @store)
  (#oom-carries-graph? @value)) @report

; logging_output = {"loss": loss, ...} returned by a criterion's forward, or
; metrics[f"{prefix}nll_loss"] = nll.cpu().mean() returned by a trainer's
; get_batch_loss_metrics: a dict of logs or metrics holds numbers to print,
; and its caller keeps it (fairseq aggregates logging outputs over the
; update, TRL stores metrics until the next log), so a tensor there keeps its
; step's graph. Lightning's *_step hooks return the loss with its graph on
; purpose.
((pair
  value: (_) @value) @report
  (#oom-entry-of-returned-dict? @report "^(logging_outputs?|log_outputs?|logs|log_dict|metrics|stats)$")
  (#not-oom-in-function-matching? @report "_step$")
  (#oom-grad-enabled? @value)
  (#oom-carries-graph? @value))

(assignment
  left: (subscript
    value: (identifier) @store)
  right: (_) @value
  (#match? @store "^(logging_outputs?|log_outputs?|logs|log_dict|metrics|stats)$")
  (#oom-returned? @store)
  (#not-oom-in-function-matching? @store "_step$")
  (#oom-grad-enabled? @value)
  (#oom-carries-graph? @value)) @report

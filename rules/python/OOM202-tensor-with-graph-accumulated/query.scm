; total_loss += loss
; reset-each-window: `running_loss = 0` later in the same loop, which calls
; backward each step (a gradient-accumulation window): one window's steps, whose
; saved tensors backward freed, not every step's graph
(augmented_assignment
  left: (_) @total
  operator: ["+=" "-="]
  right: (_) @value
  (#oom-in-loop? @total)
  (#oom-grad-enabled? @total)
  (#oom-outlives-iteration? @total)
  (#not-oom-reset-each-window? @total)
  (#not-oom-in-forward-code? @value)
  (#oom-builds-graphs? @value)
  (#oom-carries-graph? @value)
  (#not-oom-backpropagated? @total)) @report

; running_loss += loss in a function that declares `global running_loss` (or
; `nonlocal` in a closure): no loop in sight, the caller is the loop, and the
; total outlives every call with each call's graph
(augmented_assignment
  left: (identifier) @total
  operator: ["+=" "-="]
  right: (_) @value
  (#oom-declared-outside? @total)
  (#not-oom-in-loop? @total)
  (#oom-grad-enabled? @total)
  (#not-oom-in-forward-code? @value)
  (#oom-builds-graphs? @value)
  (#oom-carries-graph? @value)
  (#not-oom-backpropagated? @total)) @report

; total_loss = total_loss + loss
(assignment
  left: (identifier) @total
  right: (binary_operator
    left: (identifier) @same
    operator: ["+" "-"]
    right: (_) @value)
  (#eq? @total @same)
  (#oom-in-loop? @total)
  (#oom-grad-enabled? @total)
  (#oom-outlives-iteration? @total)
  (#not-oom-reset-each-window? @total)
  (#not-oom-in-forward-code? @value)
  (#oom-builds-graphs? @value)
  (#oom-carries-graph? @value)
  (#not-oom-backpropagated? @total)) @report

; total_loss = loss + total_loss
(assignment
  left: (identifier) @total
  right: (binary_operator
    left: (_) @value
    operator: "+"
    right: (identifier) @same)
  (#eq? @total @same)
  (#oom-in-loop? @total)
  (#oom-grad-enabled? @total)
  (#oom-outlives-iteration? @total)
  (#not-oom-reset-each-window? @total)
  (#not-oom-in-forward-code? @value)
  (#oom-builds-graphs? @value)
  (#oom-carries-graph? @value)
  (#not-oom-backpropagated? @total)) @report

; meter.update(loss), where the file's own `def update(self, val, n=1)` does
; `self.sum += val * n`: the meter's running total keeps every step's graph
((call
  function: (attribute
    object: (_) @total)
  arguments: (argument_list
    .
    (_) @value)) @report
  (#oom-file-has-accumulators? @report)
  (#oom-in-loop? @report)
  (#oom-grad-enabled? @report)
  (#oom-builds-graphs? @report)
  (#not-oom-in-forward-code? @report)
  (#oom-accumulates-graph? @report))

; meter.update(loss) where no method of this file is the accumulator: the
; finding waits for the project pass, which keeps it only if another file of
; the project defines `update` adding that argument into its object
; (AverageMeter in utils.py, used from train.py)
((call
  function: (attribute
    object: (_) @total)
  arguments: (argument_list
    .
    (_) @value)) @report
  (#oom-in-loop? @report)
  (#oom-grad-enabled? @report)
  (#oom-builds-graphs? @report)
  (#not-oom-in-forward-code? @report)
  (#oom-may-accumulate-graph? @report))

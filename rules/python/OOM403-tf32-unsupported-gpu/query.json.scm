; TrainingArguments JSON: "tf32": true
((pair
  key: (string (string_content) @kw)
  value: (true)) @arg @report
  (#eq? @kw "tf32")
  (#oom-json-kind? @report "training-args")
  (#oom-json-top-level? @report)
  (#oom-target-gpu-lacks? @report "tf32"))

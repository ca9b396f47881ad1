; Every pattern stays quiet where a test of the GPU's compute capability
; decides the statement (`torch.bfloat16 if torch.cuda.get_device_capability()[0]
; >= 8 else torch.float32`), and where the file asks the GPU whether it has bf16
; hardware (checks-bf16-hardware: is_bf16_supported(including_emulation=False),
; is_torch_bf16_gpu_available(); a plain is_bf16_supported() only before PyTorch 2.4,
; from which it says true on a GPU that emulates bf16, so the switch regexes
; below leave `is_bf16_supported` out) and where the statement runs only as the user's own
; precision switch for this run decides (`if args.bf16:`, `x if args.bf16
; else y`, `autocast(..., enabled=args.amp)`): the switch is the run's
; choice, as `bf16=args.bf16` is; nor in a branch off by default
; (may-run: `if load_in_4bit:` with `load_in_4bit=False` in the signature and
; no call in the project passing it). Two more file-level conditions:
; - a script written for FP8 (torchao's Float8 training, Transformer Engine)
;   targets GPUs of compute capability 8.9 and up; its bf16 is that
;   hardware's base precision, not a choice made for this GPU;
; - a script that runs no model (it loads, merges or converts weights and
;   saves them) computes nothing: bf16 there is how the weights are stored.
;   A module of functions that load a model is not one: its callers run it.

; fp16-overflow-note: a model that overflows in fp16 (Gemma 3 and 4: transformers#39972,
; Unsloth's loader forces fp32 for them) cannot take the help's fp16; the message says
; it needs fp32 on this GPU, and the fp16 autofixes are withheld (rule.json).

; TrainingArguments(bf16=True), SFTConfig(bf16_full_eval=True), ...
; Not the same keyword given to a tokenizer or processor loader
; (`AutoTokenizer.from_pretrained(path, bf16=True)`, Qwen's evaluation
; scripts): a tokenizer keeps unknown keywords and computes nothing in bf16.
((call
  function: (_) @fn
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @kw
      value: (true)) @arg @report @setting))
  (#any-of? @kw "bf16" "bf16_full_eval")
  (#not-oom-qualname-match? @fn "(Tokenizer(Fast)?|Processor|FeatureExtractor)\\.from_pretrained$")
  (#oom-target-gpu-lacks? @report "bf16")
  (#oom-fp16-overflow-note? @report "(?i)gemma-?[34]")
  (#not-oom-checks-bf16-hardware? @report)
  (#oom-may-run? @report)
  (#not-oom-decided-by-call? @report "get_device_capability")
  (#not-oom-file-calls? @report "Float8LinearConfig" "convert_to_float8_training" "fp8_autocast")
  (#not-oom-converts-weights? @report)
  (#not-oom-follows-switch? @report "(?i)(?<!is_)bf16(?!_supported)|bfloat|dtype|precision|fp16|half|amp"))

; torch.autocast("cuda", dtype=torch.bfloat16), from_pretrained(..., torch_dtype="bfloat16"),
; Accelerator(mixed_precision="bf16"), MixedPrecision(param_dtype=torch.bfloat16),
; Lightning's Trainer(precision="bf16-mixed"),
; and the same through a name: dtype = "bfloat16"; ptdtype = {...}[dtype]; autocast(dtype=ptdtype)
;
; Not: the dtype given to a call that saves, exports or writes weights
; (`checkpointer.save_checkpoint(..., dtype=param_dtype)`, mistral-finetune's: the
; dtype they are stored in), the dtype given to the file's own function that only reads it
; (llm.c's `write_model(model, path, dtype="bfloat16")` picks how the weights are
; written to disk), a keyword of a tensor cast (`loss.to(dtype=torch.bfloat16)`) or of a
; factory of a host tensor or a buffer (`register_buffer("scales", torch.ones(n,
; dtype=torch.bfloat16))`, `torch.as_tensor(actions, dtype=torch.bfloat16)`: the tensor
; takes the dtype, and an elementwise operation with float32 promotes; a factory given
; a device makes data the step computes on, one inside nn.Parameter a weight), nor the
; torch_dtype given to PeftModel.from_pretrained (the adapter follows the base
; model, whose own loading call is the finding), nor an autocast entered around
; definitions only (`with torch.cuda.amp.autocast(dtype=torch.bfloat16): def score_fn(...)`:
; the function runs later, outside it, so nothing is computed in bf16 there).
((call
  function: (_) @fn
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @kw
      value: (_) @value) @arg @report))
  (#any-of? @kw "dtype" "torch_dtype" "mixed_precision" "param_dtype" "compute_dtype" "bnb_4bit_compute_dtype" "precision")
  (#not-oom-cast-of-non-model? @fn)
  (#not-oom-host-tensor-factory? @fn)
  (#not-oom-context-runs-nothing? @report)
  (#not-oom-keyword-only-stored-by-own-function? @arg)
  (#not-match? @fn "(^|\\.)(save|export|write)(_[a-z_]+)?$")
  (#not-oom-qualname-match? @fn "^peft\\.([A-Za-z_.]+\\.)?PeftModel[A-Za-z]*\\.from_pretrained$")
  (#oom-holds? @value "torch.bfloat16" "bfloat16" "bf16" "bf16-mixed" "bf16-true")
  (#oom-target-gpu-lacks? @report "bf16")
  (#oom-fp16-overflow-note? @report "(?i)gemma-?[34]")
  (#not-oom-checks-bf16-hardware? @report)
  (#oom-may-run? @report)
  (#not-oom-decided-by-call? @report "get_device_capability")
  (#not-oom-file-calls? @report "Float8LinearConfig" "convert_to_float8_training" "fp8_autocast")
  (#not-oom-converts-weights? @report)
  (#not-oom-follows-switch? @report "(?i)(?<!is_)bf16(?!_supported)|bfloat|dtype|precision|fp16|half|amp")
  (#not-oom-value-follows-switch? @value "(?i)(?<!is_)bf16(?!_supported)|bfloat|dtype|precision|fp16|half|amp"))

; model.to(torch.bfloat16), model.bfloat16()
((call
  function: (attribute
    object: (_) @model
    attribute: (identifier) @method)
  arguments: (argument_list
    .
    (_)? @value)) @arg @report
  (#eq? @method "to")
  (#oom-holds? @value "torch.bfloat16")
  (#not-oom-value-follows-switch? @value "(?i)(?<!is_)bf16(?!_supported)|bfloat|dtype|precision|fp16|half|amp")
  (#oom-model-like? @model)
  (#oom-target-gpu-lacks? @report "bf16")
  (#oom-fp16-overflow-note? @report "(?i)gemma-?[34]")
  (#not-oom-checks-bf16-hardware? @report)
  (#oom-may-run? @report)
  (#not-oom-decided-by-call? @report "get_device_capability")
  (#not-oom-file-calls? @report "Float8LinearConfig" "convert_to_float8_training" "fp8_autocast")
  (#not-oom-converts-weights? @report)
  (#not-oom-follows-switch? @report "(?i)(?<!is_)bf16(?!_supported)|bfloat|dtype|precision|fp16|half|amp"))

((call
  function: (attribute
    object: (_) @model
    attribute: (identifier) @method)) @arg @report
  (#eq? @method "bfloat16")
  (#oom-model-like? @model)
  (#oom-target-gpu-lacks? @report "bf16")
  (#oom-fp16-overflow-note? @report "(?i)gemma-?[34]")
  (#not-oom-checks-bf16-hardware? @report)
  (#oom-may-run? @report)
  (#not-oom-decided-by-call? @report "get_device_capability")
  (#not-oom-file-calls? @report "Float8LinearConfig" "convert_to_float8_training" "fp8_autocast")
  (#not-oom-converts-weights? @report)
  (#not-oom-follows-switch? @report "(?i)(?<!is_)bf16(?!_supported)|bfloat|dtype|precision|fp16|half|amp"))

; argparse: parser.add_argument("--bf16", action="store_true", default=True),
; a flag whose default turns bf16 on when the user passes nothing
((call
  function: (attribute
    attribute: (identifier) @method)
  arguments: (argument_list
    .
    (string) @flag
    (keyword_argument
      name: (identifier) @kw
      value: (true)))) @arg @report
  (#eq? @method "add_argument")
  (#oom-string? @flag "--bf16" "--bf16_full_eval" "--bf16-full-eval")
  (#eq? @kw "default")
  (#oom-target-gpu-lacks? @report "bf16")
  (#oom-fp16-overflow-note? @report "(?i)gemma-?[34]")
  (#not-oom-checks-bf16-hardware? @report)
  (#oom-may-run? @report)
  (#not-oom-decided-by-call? @report "get_device_capability")
  (#not-oom-file-calls? @report "Float8LinearConfig" "convert_to_float8_training" "fp8_autocast")
  (#not-oom-converts-weights? @report))

;  ... or a precision option whose default string is bf16:
; parser.add_argument("--precision", choices=[...], default="amp_bf16") (open_clip)
((call
  function: (attribute
    attribute: (identifier) @method)
  arguments: (argument_list
    .
    (string) @flag
    (keyword_argument
      name: (identifier) @kw
      value: (string) @value) @arg @report))
  (#eq? @method "add_argument")
  (#oom-string? @flag "--precision" "--mixed_precision" "--mixed-precision" "--dtype" "--torch_dtype"
    "--torch-dtype" "--param_dtype" "--param-dtype")
  (#eq? @kw "default")
  (#oom-string? @value "bf16" "bfloat16" "amp_bf16" "amp_bfloat16" "pure_bf16" "bf16-mixed" "bf16-true")
  (#oom-target-gpu-lacks? @report "bf16")
  (#oom-fp16-overflow-note? @report "(?i)gemma-?[34]")
  (#not-oom-checks-bf16-hardware? @report)
  (#oom-may-run? @report)
  (#not-oom-decided-by-call? @report "get_device_capability")
  (#not-oom-file-calls? @report "Float8LinearConfig" "convert_to_float8_training" "fp8_autocast")
  (#not-oom-converts-weights? @report))

; a dataclass field of arguments whose default is bf16:
;   bf16: bool = True / bf16: bool = field(default=True) / mixed_precision: str = "bf16"
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @kw
        right: (_) @value) @arg @report))
  (#eq? @kw "bf16")
  (#oom-holds? @value "True")
  (#oom-target-gpu-lacks? @report "bf16")
  (#oom-fp16-overflow-note? @report "(?i)gemma-?[34]")
  (#not-oom-checks-bf16-hardware? @report)
  (#oom-may-run? @report)
  (#not-oom-decided-by-call? @report "get_device_capability")
  (#not-oom-file-calls? @report "Float8LinearConfig" "convert_to_float8_training" "fp8_autocast")
  (#not-oom-converts-weights? @report))

; ... or `mixed_precision: str = "bf16"` (a bool `mixed_precision = True` says
; nothing about the dtype)
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @kw
        right: (_) @value) @arg @report))
  (#eq? @kw "mixed_precision")
  (#oom-holds? @value "bf16" "bfloat16")
  (#oom-target-gpu-lacks? @report "bf16")
  (#oom-fp16-overflow-note? @report "(?i)gemma-?[34]")
  (#not-oom-checks-bf16-hardware? @report)
  (#oom-may-run? @report)
  (#not-oom-decided-by-call? @report "get_device_capability")
  (#not-oom-file-calls? @report "Float8LinearConfig" "convert_to_float8_training" "fp8_autocast")
  (#not-oom-converts-weights? @report))

; TRL configs turn bf16 on by default unless fp16 is set
((call
  function: (_) @fn) @arg @report
  (#oom-qualname-match? @fn "^trl(\\.[a-z_]+)*\\.[A-Za-z]+Config$")
  ; TRL's legacy PPOConfig (up to 0.11) is not a TrainingArguments and has no
  ; bf16; its own keys tell it apart
  (#not-oom-has-argument? @report "ppo_epochs")
  (#not-oom-has-argument? @report "init_kl_coef")
  (#not-oom-has-argument? @report "forward_batch_size")
  (#not-oom-has-argument? @report "bf16")
  (#not-oom-has-argument? @report "fp16")
  (#oom-target-gpu-lacks? @report "bf16")
  (#oom-fp16-overflow-note? @report "(?i)gemma-?[34]")
  (#not-oom-checks-bf16-hardware? @report)
  (#oom-may-run? @report)
  (#not-oom-decided-by-call? @report "get_device_capability")
  (#not-oom-file-calls? @report "Float8LinearConfig" "convert_to_float8_training" "fp8_autocast")
  (#not-oom-converts-weights? @report))

/* estimate: peak GPU memory of a training (or inference) step, per GPU, from
 * the model's size and shape and the run's settings. The formulas and their
 * sources are in docs/estimation.md (§0 and §9): ZeRO
 * for model states, Korthikanti et al. for activations, Hugging Face's
 * measurements for the CUDA context and allocator slack. */
#ifndef OOMLINT_ESTIMATE_H
#define OOMLINT_ESTIMATE_H

#include <stdbool.h>

#include "oomlint/kb.h" /* oom_task, the models and GPUs */

/* Bytes in a GiB. */
#define OOM_GIB (1024.0 * 1024.0 * 1024.0)
/* An estimate above this share of the GPU's memory is near capacity (OOM602),
 * and a fix plan aims under it. */
#define OOM_NEAR_CAPACITY 0.9
/* TrainingArguments' per_device_train_batch_size (and eval) default. */
#define OOM_TRAINER_DEFAULT_BATCH 8

typedef enum {
    OOM_PREC_FP32,
    OOM_PREC_AMP_FP16,   /* torch.autocast / Trainer fp16=True: fp32 weights, 16-bit compute */
    OOM_PREC_AMP_BF16,
    OOM_PREC_PURE_BF16,  /* the model itself in bf16 (torch_dtype=torch.bfloat16) */
    OOM_PREC_INT8,       /* load_in_8bit: frozen 8-bit weights */
    OOM_PREC_NF4,        /* load_in_4bit (QLoRA) */
} oom_precision;

typedef enum {
    OOM_OPT_ADAMW,
    OOM_OPT_SGD,
    OOM_OPT_SGD_MOMENTUM,
    OOM_OPT_ADAFACTOR,
    OOM_OPT_ADAM_8BIT,
} oom_optimizer;

typedef struct {
    long long params;    /* Ψ */
    long long trainable; /* Ψ_t: all, or the adapters under LoRA */
    long long hidden, layers, heads, vocab;
    long long seq_len, micro_batch;
    /* An encoder-decoder (T5, BART): its decoder layers (counted in
     * `layers`) run over the target, target_len positions (0: taken as
     * seq_len), and the logits are the target's */
    long long decoder_layers, target_len;
    bool training;
    oom_precision precision;
    oom_optimizer optimizer;
    int zero_stage;      /* 0: plain data parallel */
    bool offload_optimizer;
    int num_gpus;        /* data-parallel degree for ZeRO sharding */
    /* PyTorch before 1.13 (or CUDA before 11.7) loads every CUDA kernel at
     * start-up: a context of about 1.3 GiB, where lazy loading, the default
     * since, costs a few hundred MiB (docs/estimation.md §10) */
    bool eager_module_loading;
    bool gradient_checkpointing;
    bool memory_efficient_attention; /* SDPA / FlashAttention: no s x s scores kept */
    bool lm_head;        /* logits over the vocabulary for the loss (causal, seq2seq, masked LM) */
    /* Image models (torchvision CNNs and ViTs): activations come from bytes
     * per image measured at image_ref x image_ref (the knowledge base), not
     * from the transformer formula; image_bytes > 0 selects this path. */
    double image_bytes;        /* saved for backward per image, fp32 */
    double image_bytes_amp;    /* the same under autocast */
    double image_bytes_frozen; /* backbone frozen, only a head trained */
    long long image_ref;       /* the side the bytes were measured at */
    long long image_h, image_w; /* the script's input size; 0: image_ref */
    long long patch;           /* ViT patch size: activations follow the token count */
    long long classes;         /* logits per image for the loss */
    bool frozen_backbone;
    double buffer_bytes;       /* BatchNorm running statistics (fp32) */
    /* ---- per-part precision and the real layer shapes (docs/estimation.md §12);
     * every field's zero is the behaviour before it existed ---- */
    long long intermediate;    /* MLP width; 0: 4 x hidden */
    long long kv_heads;        /* grouped-query attention's K/V heads; 0: heads */
    bool gated_mlp;            /* SwiGLU MLP (LLaMA, Mistral, Qwen2, Gemma): gate, up, down; no dropout */
    bool tied_embeddings;      /* the head shares the input embedding */
    /* 4-bit base weights: bitsandbytes NF4/FP4 keep one absmax per 64 weights,
     * fp32, or with double quantisation 8-bit, with one fp32 per 256 of those */
    bool double_quant;
    bool head_quantized;       /* the LM head quantised too (Fabric's bitsandbytes plugin) */
    /* bytes per parameter of what bitsandbytes leaves unquantised (embeddings,
     * head, norms): 0 = 2, the 16-bit dtype transformers loads them in;
     * 4 after peft's prepare_model_for_kbit_training, which also makes the
     * residual stream, and so each checkpointed layer input, fp32 */
    int unquantized_bytes;
    /* bytes per adapter parameter (LoRA): 0 = 4, peft's fp32 adapters; 2 for
     * a model trained wholly in 16 bits (litgpt bf16-true, torchtune) */
    int adapter_bytes;
    int lora_dropout_modules;  /* LoRA targets per layer with dropout > 0: each keeps a mask and a copy of its input */
    /* the loss over the vocabulary runs in the logits' 16-bit dtype (litgpt,
     * torchtune): no fp32 copy */
    bool loss_16bit;
    /* PyTorch before 2.0: zero_grad() zeroed gradients instead of freeing
     * them, and optimizers looped over parameters (no foreach temporaries) */
    bool pre_torch2;
    bool fused_optimizer;      /* AdamW(fused=True): no step temporaries */
    /* A model the script defines itself (modules.c): activations are the
     * outputs of its layers, counted from __init__ (rough, docs/estimation.md
     * §11): elements per sample, per sequence position, and per sample at
     * module_ref x module_ref pixels (convolutions; grows with H x W). */
    bool module_defined;
    double module_sample_elems, module_token_elems, module_spatial_elems;
    long long module_ref;
    /* Inference (training false) that calls generate(): the KV cache holds
     * keys and values for seq_len + new_tokens positions (estimation.md 9.8) */
    bool generates;
    long long new_tokens;      /* generate(max_new_tokens=) */
    long long head_dim;        /* 0: hidden / heads (kv_heads above: 0 means heads) */
    /* ---- bitsandbytes 4-bit layers under autograd (docs/estimation.md §12.6) ---- */
    bool shared_block_norm;    /* attention and MLP read one norm's output (phi, GPT-J) */
    /* bitsandbytes before 0.43.2: MatMul4Bit keeps each 4-bit layer's input
     * for backward (ctx.tensors = (A, B)), which a frozen 16-bit layer does
     * not; 0.43.2 dropped it (bitsandbytes PR #1270). Off: current versions */
    bool bnb_keeps_inputs;
    /* OOM_LORA_KEEPS_* bits: the linear inputs that a LoRA branch without
     * dropout keeps anyway (its A matrix saves the input it multiplies) */
    unsigned lora_kept_inputs;
    /* bytes per weight of the copy a 4-bit layer's dequantised weight is cast
     * to when the compute dtype differs from the dtype it was quantised from
     * (2: fp16 to bf16, as under Fabric's bitsandbytes plugin); 0: no cast */
    int dequant_cast_bytes;
    /* ---- a 4-bit model whose norms peft upcast (docs/estimation.md §12.6) ---- */
    /* torch.autocast runs the forward (Trainer bf16=True / fp16=True): for a
     * quantised model, whose precision names only its weights */
    bool autocast;
    /* LoRA targets per layer by the input they read, indexed like the
     * OOM_LORA_KEEPS_* bits: attention input, attention output, MLP input,
     * down projection input */
    int lora_targets_by_input[4];
} oom_estimate_input;

/* Which input of a decoder layer's linear layers a LoRA target reads. */
enum {
    OOM_LORA_KEEPS_ATTN_INPUT = 1u, /* q, k, v (the attention norm's output) */
    OOM_LORA_KEEPS_OUT_INPUT = 2u,  /* the output projection (the attention's output) */
    OOM_LORA_KEEPS_MLP_INPUT = 4u,  /* gate, up, fc (the MLP norm's output) */
    OOM_LORA_KEEPS_DOWN_INPUT = 8u, /* down, fc2 (the MLP's intermediate) */
    OOM_LORA_KEEPS_ALL = 15u,
};
/* The OOM_LORA_KEEPS_* bit of a LoRA target name (q_proj, litgpt's query,
 * down_proj ...); "all-linear" gives every bit; 0 for a name it does not know. */
unsigned oom_estimate_lora_input_of(const char *target);
/* Counts one LoRA target in in->lora_targets_by_input ("all-linear": every
 * linear layer of the block); a name it does not know counts nowhere. */
void oom_estimate_count_lora_target(oom_estimate_input *in, const char *target);

/* Bytes per GPU, by component. */
typedef struct {
    double context, weights, gradients, optimizer, activations, logits, slack, total;
    /* the two phases whose larger one is the peak (before slack and context):
     * forward and backward with the activations alive, and the optimizer step
     * with its temporaries; `step_temp` is those temporaries */
    double forward_backward, step, step_temp;
    /* what is alive at the peak, so that context + weights + optimizer +
     * these + slack = total: the gradients, activations and logits alive at
     * that moment, and the step's temporaries if the step is the peak */
    double peak_gradients, peak_activations, peak_logits, peak_step_temp;
    bool step_is_peak;
    double kv_cache; /* generate()'s keys and values; 0 in training */
    double logit_values; /* batch x sequence x vocabulary of a language-model head; 0 without one */
    /* the largest 4-bit weight dequantised to 16 bits (and cast) while its
     * layer runs forward or backward; peak_dequant: that, when it is at the peak */
    double dequant, peak_dequant;
} oom_estimate;

void oom_estimate_compute(const oom_estimate_input *in, oom_estimate *out);

/* Model-state bytes per GPU under ZeRO (mixed-precision Adam, K = 12), as in
 * the ZeRO paper's Table I: stage 0-3 over `nd` data-parallel GPUs. */
double oom_estimate_zero_model_states(double params, int stage, int nd);

/* DeepSpeed's own model-state estimators (deepspeed/runtime/zero,
 * estimate_zero2/zero3_model_states_mem_needs), GPU bytes per device:
 * ZeRO-2 over `gpus` GPUs with or without optimizer offload (`legacy`: the
 * older formula, 4P + 16P/gpus, that produced the documented 15.93 GB);
 * ZeRO-3 with the largest layer gathered, optimizer and/or parameters
 * offloaded. */
double oom_estimate_deepspeed_zero2_gpu(double params, int gpus, bool offload_optimizer, bool legacy);
double oom_estimate_deepspeed_zero3_gpu(double params, double largest_layer, int gpus,
                                        bool offload_optimizer, bool offload_params);

/* in + out features of the linear layer a LoRA target names, from the
 * model's widths (q_proj, k_proj with grouped-query attention's narrower
 * K/V, gate/up/down_proj with the real MLP width, GPT-2's c_attn/c_fc,
 * litgpt's query/value); 0 for a name it does not know. A LoRA of rank r
 * on it trains r x that many parameters per layer. */
long long oom_estimate_lora_features(const oom_estimate_input *in, const char *target);
/* The same summed over "all-linear" (peft: every linear layer of a block). */
long long oom_estimate_lora_all_linear_features(const oom_estimate_input *in);

const char *oom_precision_name(oom_precision p);
const char *oom_optimizer_name(oom_optimizer o);
/* The head a class or trainer brings, from its (qualified) name: the
 * knowledge base's oom_kb_head_of_class, and TRL's SFTTrainer, which loads
 * a causal LM from an id. OOM_TASK_UNKNOWN for other names. */
oom_task oom_task_of_class(const char *name);

/* ---- from a script to the estimate's inputs ------------------------------------------ */

#include "oomlint/launch.h"
#include "oomlint/model.h"
#include "oomlint/source.h"
#include "oomlint/util.h"
#include "oomlint/yamlmodel.h"

/* Where an input came from: "train.py:42 per_device_train_batch_size", a
 * flag, or an assumption. */
typedef struct {
    char text[256];
    bool assumed;
    unsigned line; /* 0: not a line of the script */
    unsigned col;
} oom_provenance;

typedef enum {
    OOM_IN_MODEL, OOM_IN_BATCH, OOM_IN_SEQ, OOM_IN_PRECISION, OOM_IN_OPTIMIZER,
    OOM_IN_CHECKPOINTING, OOM_IN_ATTENTION, OOM_IN_ZERO, OOM_IN_GPUS, OOM_IN_LORA, OOM_IN_IMAGE,
    OOM_IN_TASK, OOM_IN_MODE,
    OOM_IN_TARGET, /* an encoder-decoder's target length */
    OOM_IN_COUNT
} oom_input_kind;

/* Where an inference script puts its model (estimate/placement.c): the
 * capacity check judges one GPU's memory only where the script visibly puts
 * the whole model on one GPU. */
typedef enum {
    OOM_PLACE_UNKNOWN, /* nothing says: the CPU, or a device no reader follows */
    OOM_PLACE_ONE_GPU, /* .cuda(), .to("cuda"), device_map={"": 0}, a bitsandbytes load ... */
    OOM_PLACE_SPREAD,  /* device_map="auto", max_memory=: accelerate splits it and offloads what does not fit */
    OOM_PLACE_CPU,     /* .to("cpu"), device_map="cpu" and nothing moves it on */
} oom_placement;

/* A smaller checkpoint of the same family: what the estimate needs of it. */
#define OOM_SMALLER_MODELS 4
typedef struct {
    char id[96];
    long long params, hidden, layers, heads, vocab, kv_heads, head_dim;
    long long intermediate; /* MLP width (0: 4 x hidden); same family, same MLP kind */
    bool tied_embeddings;
} oom_smaller_model;

typedef struct {
    oom_estimate_input in;
    char model_id[128];
    bool model_known;
    oom_task task;              /* sets in.lm_head (oom_script_inputs_set_task) */
    bool task_named;            /* by the script's class or --task: the knowledge base's does not replace it */
    oom_provenance from[OOM_IN_COUNT];
    int grad_accum;             /* gradient_accumulation_steps, for the fix plan */
    char batch_name[48];        /* the user's spelling: per_device_train_batch_size, batch_size */
    char seq_name[48];          /* max_length, max_seq_length, block_size */
    /* the script hands precision and sharding to its launcher (an
     * `Accelerator()`, `deepspeed.initialize`): `accelerate launch` or
     * `deepspeed` decides them from a config the script does not name */
    bool launcher_decides;
    /* the fix plan's last resort: smaller models of the checkpoint's family
     * in the knowledge base, largest first (oom_script_inputs_use_model) */
    oom_smaller_model smaller[OOM_SMALLER_MODELS];
    size_t smaller_count;
    /* inference only: where the model runs, and the line that says so */
    oom_placement placement;
    oom_provenance placed;
    /* the batch is the number of prompts given to one tokenizer call (a
     * list of strings, `[...] * N`, one string): the fix plan says prompts */
    bool prompts_batch;
} oom_script_inputs;

/* Defaults for everything, each marked assumed. */
void oom_script_inputs_init(oom_script_inputs *s);
/* The same from a file already read, parsed and modelled (the linter's worker
 * thread does this while it holds the file: nothing is read twice), for the
 * capacity check: models the script defines are not sized here. */
void oom_script_inputs_from_model(const char *path, oom_source *src, oom_pymodel *m, TSNode root,
                                  const oom_kb *kb, oom_script_inputs *out);
/* Reads a Python script or a notebook's code cells (and the DeepSpeed config it names) for the inputs.
 * Returns false, with a reason in err, when the file cannot be read. */
bool oom_script_inputs_read(const char *path, const oom_kb *kb, oom_script_inputs *out, oom_buf *err);
/* Reads the script a launch command runs (launch.h), with the command's
 * arguments bound to the script's options as argparse / HfArgumentParser
 * would bind them and applied over its defaults, then the processes,
 * mixed precision and sharding the launcher sets; each input's provenance
 * names the word of the command (or the shell script's line) it came from.
 * Without a script (none named, or not there) the arguments are read by
 * their usual names. What is not used (an argument the script has no
 * option for, a value its option would refuse, a variable left unresolved)
 * goes to `notes`. Returns false, with a reason in err, when the script is
 * there but cannot be read. */
bool oom_script_inputs_read_launch(const oom_launch *l, const oom_kb *kb, oom_script_inputs *out,
                                   oom_strlist *notes, oom_buf *err);
/* Reads a YAML training config (axolotl, LLaMA-Factory, a TRL recipe, a
 * Lightning CLI config) for the inputs: the model, micro-batch, sequence,
 * precision, quantisation, adapter, checkpointing and optimizer it names.
 * Returns false, with a reason in err, when the file cannot be read. */
bool oom_script_inputs_read_yaml(const char *path, const oom_kb *kb, oom_script_inputs *out, oom_buf *err);
/* The same from a YAML config already read and modelled (by the linter). */
void oom_script_inputs_from_yaml(const char *path, oom_source *src, const oom_yamlmodel *m, const oom_kb *kb,
                                 oom_script_inputs *out);
/* What `oomlint estimate` is asked to size (estimate/request.c). */
typedef struct {
    const char *path;               /* a script, folder, config.json, YAML or .sh; NULL: none */
    bool launch;                    /* a launch command was given after `--` */
    const char *const *launch_argv; /* its words */
    size_t launch_argc;
    const char *model;              /* --model HUB_ID; NULL: none */
} oom_estimate_request;

/* The launch command the inputs were read under, when there was one. */
typedef struct {
    bool used;
    oom_launch launch;
    oom_strlist notes; /* the launcher's and the arguments' */
} oom_launch_read;
void oom_launch_read_init(oom_launch_read *lr);
void oom_launch_read_free(oom_launch_read *lr);

/* The inputs of what the request names: a script, a folder (its first
 * script that loads a model the knowledge base knows), a model config.json,
 * a YAML training config, a launch command or a shell script that has one,
 * and/or a hub id over it. False, with a reason in err, when nothing can be
 * sized (lr->notes may say more). */
bool oom_estimate_load_inputs(const oom_estimate_request *req, const oom_kb *kb, oom_script_inputs *in,
                              oom_launch_read *lr, oom_buf *err);

/* Whether the inputs describe an image model (activations per image). */
bool oom_script_inputs_is_image(const oom_script_inputs *s);
/* Fills the shape from a known model: from the knowledge base by id. Where
 * the script has not named a head, the knowledge base's task for the model
 * (a causal LM, seq2seq ...) decides the logits. */
bool oom_script_inputs_use_model(oom_script_inputs *s, const oom_kb *kb, const char *id,
                                 const char *why);
/* The task (and with it whether vocabulary logits are counted), from `why`. */
void oom_script_inputs_set_task(oom_script_inputs *s, oom_task t, const char *why);

/* The smallest set of changes from the toolbox that brings the estimate under
 * `target_bytes`, described in the user's own parameter names, with the new
 * estimate. Returns false when nothing in the toolbox is enough. */
/* The largest micro-batch whose estimate stays within `target_bytes` with the
 * script's other settings, and how to keep the script's global batch (micro-
 * batch x gradient accumulation) exactly: the fewest accumulation steps that
 * divide it with a micro-batch no larger than that. */
typedef struct {
    long long micro_batch;      /* the largest that fits; 0: none does */
    long long global_batch;     /* the script's micro-batch x accumulation */
    int grad_accum;             /* steps that keep the global batch */
    long long kept_micro_batch; /* the micro-batch with those steps */
    oom_estimate at_max, at_kept;
} oom_max_batch;
bool oom_estimate_max_batch(const oom_script_inputs *s, double target_bytes, oom_max_batch *out);
/* The longest sequence (at most `limit`, the model's positions; <= 0: no
 * limit) whose estimate stays within `target_bytes` at the script's batch. */
bool oom_estimate_max_seq(const oom_script_inputs *s, double target_bytes, long long limit, long long *seq,
                          oom_estimate *at);

bool oom_estimate_fix_plan(const oom_script_inputs *s, const oom_gpu *gpu, double target_bytes,
                           oom_buf *plan, oom_estimate *after);

/* Whether a PyTorch version ("1.12", "2.4.1") loads CUDA modules eagerly
 * (before 1.13). *ok is false, and the answer false, for a string that is not
 * a version. */
bool oom_torch_loads_eagerly(const char *version, bool *ok);
/* Whether a PyTorch version ("2.3", "1.12.1+cu113") is before major.minor;
 * *ok is false when it cannot be read. */
bool oom_torch_before(const char *version, int major, int minor, bool *ok);

#endif

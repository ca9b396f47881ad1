/* estimate: peak GPU memory of a training (or inference) step, per GPU, from
 * the model's size and shape and the run's settings. The formulas and their
 * sources are in the research notes (estimation.md sections 0 and 9): ZeRO
 * for model states, Korthikanti et al. for activations, Hugging Face's
 * measurements for the CUDA context and allocator slack. */
#ifndef OOMLINT_ESTIMATE_H
#define OOMLINT_ESTIMATE_H

#include <stdbool.h>

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
    bool training;
    oom_precision precision;
    oom_optimizer optimizer;
    int zero_stage;      /* 0: plain data parallel */
    bool offload_optimizer;
    int num_gpus;        /* data-parallel degree for ZeRO sharding */
    bool gradient_checkpointing;
    bool memory_efficient_attention; /* SDPA / FlashAttention: no s x s scores kept */
    bool lm_head;        /* logits over the vocabulary for the loss */
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
} oom_estimate_input;

/* Bytes per GPU, by component. */
typedef struct {
    double context, weights, gradients, optimizer, activations, logits, slack, total;
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

const char *oom_precision_name(oom_precision p);
const char *oom_optimizer_name(oom_optimizer o);

/* ---- from a script to the estimate's inputs ------------------------------------------ */

#include "oomlint/kb.h"
#include "oomlint/model.h"
#include "oomlint/source.h"
#include "oomlint/util.h"

/* Where an input came from: "train.py:42 per_device_train_batch_size", a
 * flag, or an assumption. */
typedef struct {
    char text[160];
    bool assumed;
    unsigned line; /* 0: not a line of the script */
    unsigned col;
} oom_provenance;

typedef enum {
    OOM_IN_MODEL, OOM_IN_BATCH, OOM_IN_SEQ, OOM_IN_PRECISION, OOM_IN_OPTIMIZER,
    OOM_IN_CHECKPOINTING, OOM_IN_ATTENTION, OOM_IN_ZERO, OOM_IN_GPUS, OOM_IN_LORA, OOM_IN_IMAGE,
    OOM_IN_COUNT
} oom_input_kind;

typedef struct {
    oom_estimate_input in;
    char model_id[128];
    bool model_known;
    oom_provenance from[OOM_IN_COUNT];
    int grad_accum;             /* gradient_accumulation_steps, for the fix plan */
    char batch_name[48];        /* the user's spelling: per_device_train_batch_size, batch_size */
    char seq_name[48];          /* max_length, max_seq_length, block_size */
    /* the script hands precision and sharding to its launcher (an
     * `Accelerator()`, `deepspeed.initialize`): `accelerate launch` or
     * `deepspeed` decides them from a config the script does not name */
    bool launcher_decides;
} oom_script_inputs;

/* Defaults for everything, each marked assumed. */
void oom_script_inputs_init(oom_script_inputs *s);
/* The same from a file already read, parsed and modelled (the linter's worker
 * thread does this while it holds the file: nothing is read twice). */
void oom_script_inputs_from_model(const char *path, oom_source *src, oom_pymodel *m, TSNode root,
                                  const oom_kb *kb, oom_script_inputs *out);
/* Reads a Python script or a notebook's code cells (and the DeepSpeed config it names) for the inputs.
 * Returns false, with a reason in err, when the file cannot be read. */
bool oom_script_inputs_read(const char *path, const oom_kb *kb, oom_script_inputs *out, oom_buf *err);
/* Whether the inputs describe an image model (activations per image). */
bool oom_script_inputs_is_image(const oom_script_inputs *s);
/* Fills the shape from a known model: from the knowledge base by id. */
bool oom_script_inputs_use_model(oom_script_inputs *s, const oom_kb *kb, const char *id,
                                 const char *why);

/* The smallest set of changes from the toolbox that brings the estimate under
 * `target_bytes`, described in the user's own parameter names, with the new
 * estimate. Returns false when nothing in the toolbox is enough. */
bool oom_estimate_fix_plan(const oom_script_inputs *s, const oom_gpu *gpu, double target_bytes,
                           oom_buf *plan, oom_estimate *after);

#endif

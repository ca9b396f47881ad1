/* estimate: peak GPU memory of a training (or inference) step, per GPU, from
 * the model's size and shape and the run's settings. The formulas and their
 * sources are in the research notes (estimation.md sections 0 and 9): ZeRO
 * for model states, Korthikanti et al. for activations, Hugging Face's
 * measurements for the CUDA context and allocator slack. */
#ifndef OOMLINT_ESTIMATE_H
#define OOMLINT_ESTIMATE_H

#include <stdbool.h>

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
} oom_estimate_input;

/* Bytes per GPU, by component. */
typedef struct {
    double context, weights, gradients, optimizer, activations, logits, slack, total;
} oom_estimate;

void oom_estimate_compute(const oom_estimate_input *in, oom_estimate *out);

/* Model-state bytes per GPU under ZeRO (mixed-precision Adam, K = 12), as in
 * the ZeRO paper's Table I: stage 0-3 over `nd` data-parallel GPUs. */
double oom_estimate_zero_model_states(double params, int stage, int nd);

const char *oom_precision_name(oom_precision p);
const char *oom_optimizer_name(oom_optimizer o);

#endif

/* estimate/plan: the fix plan. Changes from the toolbox are added in order of
 * how little they cost (speed first, then semantics) until the estimate fits;
 * then each is dropped again if the rest still fits, so the plan is a small
 * combination rather than everything at once. It names the user's own
 * parameters and gives the new estimate. */
#include <stdio.h>
#include <string.h>

#include "oomlint/estimate.h"


enum {
    STEP_CHECKPOINTING,
    STEP_MIXED_PRECISION,
    STEP_HALVE_BATCH,
    STEP_OPTIMIZER_8BIT,
    STEP_ZERO,
    STEP_OFFLOAD,
    STEP_LORA,
    STEP_QLORA,
    STEP_SHORTER_SEQ,
    STEP_SMALLER_MODEL, /* last: it changes what the script trains */
    STEP_COUNT
};

typedef struct {
    oom_estimate_input in;
    int grad_accum;
    const oom_script_inputs *script; /* its smaller models */
    int model;                       /* index into script->smaller; -1: the script's own */
} candidate;

static double total(const oom_estimate_input *in)
{
    oom_estimate e;
    oom_estimate_compute(in, &e);
    return e.total;
}

/* Steps that only mean something for language models: torchvision models
 * have no checkpointing switch, LoRA targets or sequence. */
static bool language_only(int step)
{
    return step == STEP_CHECKPOINTING || step == STEP_LORA || step == STEP_QLORA || step == STEP_SHORTER_SEQ ||
           step == STEP_SMALLER_MODEL;
}

static bool applicable(const candidate *c, int step)
{
    const oom_estimate_input *in = &c->in;
    if (in->image_bytes > 0 && language_only(step))
        return false;
    /* a model the script defines: no checkpointing switch or LoRA targets
     * oomlint can name; a shorter sequence only where it reads sequences */
    if (in->module_defined && language_only(step) && (step != STEP_SHORTER_SEQ || in->module_token_elems <= 0))
        return false;
    switch (step) {
    case STEP_CHECKPOINTING:
        return in->training && !in->gradient_checkpointing;
    case STEP_MIXED_PRECISION:
        return in->training && in->precision == OOM_PREC_FP32;
    case STEP_HALVE_BATCH:
        return in->micro_batch > 1;
    case STEP_OPTIMIZER_8BIT:
        return in->training && in->optimizer == OOM_OPT_ADAMW;
    case STEP_ZERO:
        return in->training && in->num_gpus > 1 && in->zero_stage < 3;
    case STEP_OFFLOAD:
        return in->training && !in->offload_optimizer && (in->zero_stage >= 2 || in->num_gpus > 1);
    case STEP_LORA:
        return in->training && in->trainable == in->params && in->hidden > 0;
    case STEP_QLORA: /* in inference, 4-bit weights alone */
        return in->precision != OOM_PREC_NF4 && in->hidden > 0;
    case STEP_SHORTER_SEQ:
        return in->seq_len > 256;
    case STEP_SMALLER_MODEL:
        return c->script->smaller_count > 0;
    }
    return false;
}

/* The script's run with a smaller model of its family. What the script
 * trains of it follows the model: all of it, or (a head, adapters) a part
 * that grows with the hidden size. */
static void use_smaller_model(candidate *c, int k)
{
    const oom_smaller_model *m = &c->script->smaller[k];
    oom_estimate_input *in = &c->in;
    if (in->trainable >= in->params)
        in->trainable = m->params;
    else if (in->hidden > 0)
        in->trainable = in->trainable * m->hidden / in->hidden;
    in->params = m->params;
    in->hidden = m->hidden;
    in->layers = m->layers;
    in->heads = m->heads;
    in->vocab = m->vocab;
    in->kv_heads = m->kv_heads;
    in->head_dim = m->head_dim;
    in->intermediate = m->intermediate; /* its own widths: the activations follow them */
    in->tied_embeddings = m->tied_embeddings;
    c->model = k;
}

/* The input with the steps of `mask` and model `model` (-1: the script's);
 * batch and sequence shrink only as far as needed. */
static candidate apply_with_model(const candidate *base, unsigned mask, int model, const oom_gpu *gpu,
                                  double target)
{
    candidate c = *base;
    if (model >= 0)
        use_smaller_model(&c, model);
    if (mask & (1u << STEP_CHECKPOINTING))
        c.in.gradient_checkpointing = true;
    if (mask & (1u << STEP_MIXED_PRECISION))
        c.in.precision = gpu && gpu->bf16 ? OOM_PREC_AMP_BF16 : OOM_PREC_AMP_FP16;
    if (mask & (1u << STEP_OPTIMIZER_8BIT))
        c.in.optimizer = OOM_OPT_ADAM_8BIT;
    if (mask & (1u << STEP_ZERO)) {
        c.in.zero_stage = 2;
        if (total(&c.in) > target)
            c.in.zero_stage = 3;
    }
    if (mask & (1u << STEP_OFFLOAD)) {
        c.in.offload_optimizer = true;
        if (c.in.zero_stage < 2)
            c.in.zero_stage = 2;
    }
    if (mask & ((1u << STEP_LORA) | (1u << STEP_QLORA))) {
        c.in.trainable = c.in.layers * 4 * 16 * 2 * c.in.hidden; /* r=16 on q, k, v, o */
        c.in.frozen_backbone = false; /* adapters in every layer: backward runs through them all */
    }
    if (mask & (1u << STEP_QLORA))
        c.in.precision = OOM_PREC_NF4;
    if (mask & (1u << STEP_HALVE_BATCH))
        while (total(&c.in) > target && c.in.micro_batch > 1) {
            c.in.micro_batch = (c.in.micro_batch + 1) / 2;
            c.grad_accum *= 2;
        }
    if (mask & (1u << STEP_SHORTER_SEQ))
        while (total(&c.in) > target && c.in.seq_len > 256)
            c.in.seq_len /= 2;
    return c;
}

/* With a smaller model among the steps, the largest of the family that fits
 * with the others (or, when none does, the smallest). */
static candidate apply(const candidate *base, unsigned mask, const oom_gpu *gpu, double target)
{
    if (!(mask & (1u << STEP_SMALLER_MODEL)))
        return apply_with_model(base, mask, -1, gpu, target);
    candidate c = *base;
    for (size_t k = 0; k < base->script->smaller_count; k++) {
        c = apply_with_model(base, mask, (int)k, gpu, target);
        if (total(&c.in) <= target)
            break;
    }
    return c;
}

/* 3.09B, 110M: a parameter count as model cards write it. */
static void put_count(oom_buf *b, long long n)
{
    if (n >= 1000000000LL)
        oom_buf_printf(b, "%.2fB", (double)n / 1e9);
    else
        oom_buf_printf(b, "%.0fM", (double)n / 1e6);
}

static void describe(const oom_script_inputs *s, const candidate *c, unsigned mask, const oom_gpu *gpu,
                     oom_buf *plan)
{
    bool image = c->in.image_bytes > 0;
    const char *sep = "";
    for (int step = 0; step < STEP_COUNT; step++) {
        if (!(mask & (1u << step)))
            continue;
        oom_buf_puts(plan, sep);
        sep = "; ";
        switch (step) {
        case STEP_CHECKPOINTING:
            oom_buf_puts(plan, "gradient_checkpointing=True");
            break;
        case STEP_MIXED_PRECISION:
            if (image)
                oom_buf_puts(plan, gpu && gpu->bf16 ? "torch.autocast(\"cuda\", dtype=torch.bfloat16)"
                                                    : "torch.autocast(\"cuda\") with a GradScaler");
            else
                oom_buf_puts(plan, gpu && gpu->bf16 ? "bf16=True" : "fp16=True");
            break;
        case STEP_HALVE_BATCH:
            if (!c->in.training)
                oom_buf_printf(plan, "%s=%lld", s->batch_name, c->in.micro_batch);
            else if (image)
                oom_buf_printf(plan, "%s=%lld, accumulating gradients over %d steps (the same global batch)",
                               s->batch_name, c->in.micro_batch, c->grad_accum);
            else
                oom_buf_printf(plan, "%s=%lld with gradient_accumulation_steps=%d (the same global batch)",
                               s->batch_name, c->in.micro_batch, c->grad_accum);
            break;
        case STEP_OPTIMIZER_8BIT:
            oom_buf_puts(plan, image ? "bitsandbytes.optim.AdamW8bit" : "optim=\"adamw_bnb_8bit\"");
            break;
        case STEP_ZERO:
            oom_buf_printf(plan, "DeepSpeed ZeRO stage %d across the %d GPUs", c->in.zero_stage, c->in.num_gpus);
            break;
        case STEP_OFFLOAD:
            oom_buf_puts(plan, "ZeRO offload_optimizer to the CPU");
            break;
        case STEP_LORA:
            oom_buf_puts(plan, "LoRA: LoraConfig(r=16, target_modules=[\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\"])");
            break;
        case STEP_QLORA:
            oom_buf_puts(plan, c->in.training
                                   ? "load the base model in 4 bits (BitsAndBytesConfig(load_in_4bit=True), QLoRA)"
                                   : "load the model in 4 bits (BitsAndBytesConfig(load_in_4bit=True))");
            break;
        case STEP_SHORTER_SEQ:
            oom_buf_printf(plan, "%s=%lld", s->seq_name, c->in.seq_len);
            break;
        case STEP_SMALLER_MODEL:
            oom_buf_printf(plan, "a smaller model of the same family: %s (", s->smaller[c->model].id);
            put_count(plan, c->in.params);
            oom_buf_puts(plan, " parameters against ");
            put_count(plan, s->in.params);
            oom_buf_puts(plan, ")");
            break;
        }
    }
}

bool oom_estimate_fix_plan(const oom_script_inputs *s, const oom_gpu *gpu, double target,
                           oom_buf *plan, oom_estimate *after)
{
    candidate base = {s->in, s->grad_accum > 0 ? s->grad_accum : 1, s, -1};
    unsigned mask = 0;
    candidate c = base;
    for (int step = 0; step < STEP_COUNT && total(&c.in) > target; step++) {
        if (!applicable(&base, step))
            continue;
        mask |= 1u << step;
        c = apply(&base, mask, gpu, target);
    }
    bool fits = total(&c.in) <= target;
    if (fits) /* drop what is not needed, most costly first */
        for (int step = STEP_COUNT - 1; step >= 0; step--) {
            if (!(mask & (1u << step)))
                continue;
            candidate without = apply(&base, mask & ~(1u << step), gpu, target);
            if (total(&without.in) <= target) {
                mask &= ~(1u << step);
                c = without;
            }
        }
    describe(s, &c, mask, gpu, plan);
    oom_estimate_compute(&c.in, after);
    if (mask)
        oom_buf_printf(plan, " -> about %.1f GiB", after->total / OOM_GIB);
    return fits;
}

/* The largest value in [1, limit] for which `fits` holds, fits being
 * monotone (true up to some point, false after); 0 when even 1 does not. */
static long long largest_fitting(oom_estimate_input *in, long long *field, long long limit, double target)
{
    long long lo = 0, hi = limit; /* fits(lo) (or lo = 0), !fits(hi + 1) */
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        *field = mid;
        if (total(in) <= target)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

bool oom_estimate_max_batch(const oom_script_inputs *s, double target, oom_max_batch *out)
{
    oom_estimate_input in = s->in;
    memset(out, 0, sizeof *out);
    out->global_batch = s->in.micro_batch * (s->grad_accum > 0 ? s->grad_accum : 1);
    out->micro_batch = largest_fitting(&in, &in.micro_batch, 1 << 20, target);
    if (out->micro_batch == 0)
        return false;
    in.micro_batch = out->micro_batch;
    /* the same global batch: the fewest accumulation steps that divide it
     * with a micro-batch no larger than the largest that fits */
    long long accum = (out->global_batch + out->micro_batch - 1) / out->micro_batch;
    while (out->global_batch % accum != 0)
        accum++;
    out->grad_accum = (int)accum;
    out->kept_micro_batch = out->global_batch / accum;
    in.micro_batch = out->kept_micro_batch;
    oom_estimate_compute(&in, &out->at_kept);
    in.micro_batch = out->micro_batch;
    oom_estimate_compute(&in, &out->at_max);
    return true;
}

bool oom_estimate_max_seq(const oom_script_inputs *s, double target, long long limit, long long *seq,
                          oom_estimate *at)
{
    oom_estimate_input in = s->in;
    *seq = largest_fitting(&in, &in.seq_len, limit > 0 ? limit : 1 << 20, target);
    if (*seq == 0)
        return false;
    in.seq_len = *seq;
    oom_estimate_compute(&in, at);
    return true;
}

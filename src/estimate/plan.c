/* estimate/plan: the fix plan. Changes from the toolbox are added in order of
 * how little they cost (speed first, then semantics) until the estimate fits;
 * then each is dropped again if the rest still fits, so the plan is a small
 * combination rather than everything at once. It names the user's own
 * parameters and gives the new estimate. */
#include <stdio.h>
#include <string.h>

#include "oomlint/estimate.h"


/* One order for both kinds of job; a step that does not apply to one is
 * skipped. Training: checkpointing, mixed precision, a smaller micro-batch,
 * 8-bit Adam, ZeRO, offload, LoRA, QLoRA, a shorter sequence, a smaller
 * model. Inference: fewer prompts per call, 16-bit weights, the model split
 * over the GPUs named, 8-bit then 4-bit weights, fewer new tokens, shorter
 * prompts, a smaller model: what costs the user's results least first. */
enum {
    STEP_CHECKPOINTING,
    STEP_MIXED_PRECISION,
    STEP_HALVE_BATCH,
    STEP_WEIGHTS_16BIT,   /* inference */
    STEP_SPLIT_GPUS,      /* inference, several GPUs named */
    STEP_WEIGHTS_8BIT,    /* inference */
    STEP_OPTIMIZER_8BIT,
    STEP_ZERO,
    STEP_OFFLOAD,
    STEP_LORA,
    STEP_QLORA,           /* in inference: 4-bit weights alone */
    STEP_FEWER_NEW_TOKENS, /* inference with generate() */
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
    case STEP_WEIGHTS_16BIT:
        return !in->training && (in->precision == OOM_PREC_FP32 || in->precision == OOM_PREC_AMP_FP16 ||
                                 in->precision == OOM_PREC_AMP_BF16) && in->image_bytes <= 0;
    case STEP_SPLIT_GPUS:
        return !in->training && in->num_gpus > 1 && in->layers > 1 && in->image_bytes <= 0;
    case STEP_WEIGHTS_8BIT:
        return !in->training && in->precision != OOM_PREC_INT8 && in->precision != OOM_PREC_NF4 && in->hidden > 0 &&
               in->image_bytes <= 0;
    case STEP_FEWER_NEW_TOKENS:
        return !in->training && in->generates && in->new_tokens > 64;
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

/* device_map="auto" over N GPUs: accelerate places whole layers, balanced
 * by size, so the busiest GPU holds about 1/N of the weights and of the
 * layers (and with them of the KV cache); each GPU has its own context. */
static void split_over_gpus(oom_estimate_input *in)
{
    long long n = in->num_gpus;
    in->params = (in->params + n - 1) / n;
    in->layers = (in->layers + n - 1) / n;
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
    if (mask & (1u << STEP_WEIGHTS_16BIT))
        c.in.precision = OOM_PREC_PURE_BF16;
    if (mask & (1u << STEP_WEIGHTS_8BIT))
        c.in.precision = OOM_PREC_INT8;
    if (mask & (1u << STEP_SPLIT_GPUS))
        split_over_gpus(&c.in);
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
    if (c.in.training && (mask & ((1u << STEP_LORA) | (1u << STEP_QLORA)))) {
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
    if (mask & (1u << STEP_FEWER_NEW_TOKENS))
        while (total(&c.in) > target && c.in.new_tokens > 64)
            c.in.new_tokens /= 2;
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

/* The plan's last resort, training or not: "a smaller model of the same
 * family: gpt2-medium (355M parameters against 774M)". */
static void put_smaller_model(const oom_script_inputs *s, const candidate *c, oom_buf *plan)
{
    oom_buf_printf(plan, "a smaller model of the same family: %s (", s->smaller[c->model].id);
    put_count(plan, c->in.params);
    oom_buf_puts(plan, " parameters against ");
    put_count(plan, s->in.params);
    oom_buf_puts(plan, ")");
}

/* One step of an inference plan, in what the user changes. */
static void describe_inference_step(const oom_script_inputs *s, const candidate *c, int step, const oom_gpu *gpu,
                                    oom_buf *plan)
{
    switch (step) {
    case STEP_HALVE_BATCH:
        if (s->prompts_batch || (s->from[OOM_IN_BATCH].assumed && c->in.generates))
            oom_buf_printf(plan, "%lld prompt%s per generate() call, the %lld in %lld calls", c->in.micro_batch,
                           c->in.micro_batch == 1 ? "" : "s", s->in.micro_batch,
                           (s->in.micro_batch + c->in.micro_batch - 1) / c->in.micro_batch);
        else
            oom_buf_printf(plan, "%s=%lld", s->batch_name, c->in.micro_batch);
        break;
    case STEP_WEIGHTS_16BIT:
        oom_buf_puts(plan, gpu && gpu->bf16 ? "16-bit weights: torch_dtype=torch.bfloat16"
                                            : "16-bit weights: torch_dtype=torch.float16");
        break;
    case STEP_SPLIT_GPUS:
        oom_buf_printf(plan, "split the model over the %d GPUs: device_map=\"auto\"", s->in.num_gpus);
        break;
    case STEP_WEIGHTS_8BIT:
        oom_buf_puts(plan, "8-bit weights: BitsAndBytesConfig(load_in_8bit=True)");
        break;
    case STEP_QLORA:
        oom_buf_puts(plan, "4-bit weights: BitsAndBytesConfig(load_in_4bit=True)");
        break;
    case STEP_FEWER_NEW_TOKENS:
        oom_buf_printf(plan, "max_new_tokens=%lld (a smaller KV cache)", c->in.new_tokens);
        break;
    case STEP_SHORTER_SEQ:
        oom_buf_printf(plan, "prompts cut to %s=%lld (truncation=True)",
                       strcmp(s->seq_name, "max_length") == 0 ? "max_length" : s->seq_name, c->in.seq_len);
        break;
    case STEP_SMALLER_MODEL:
        put_smaller_model(s, c, plan);
        break;
    }
}

/* The plan's first steps up to `upto` (a mask), at the values the whole
 * plan ends at: the batch, new tokens and prompt length it shrinks to, the
 * model it takes (each step shrinks only its own field). */
static candidate first_steps(const candidate *base, const candidate *final, unsigned upto, const oom_gpu *gpu,
                             double target)
{
    const unsigned shrinking = (1u << STEP_HALVE_BATCH) | (1u << STEP_FEWER_NEW_TOKENS) | (1u << STEP_SHORTER_SEQ);
    int model = (upto & (1u << STEP_SMALLER_MODEL)) ? final->model : -1;
    candidate c = apply_with_model(base, upto & ~shrinking, model, gpu, target);
    if (upto & (1u << STEP_HALVE_BATCH))
        c.in.micro_batch = final->in.micro_batch;
    if (upto & (1u << STEP_FEWER_NEW_TOKENS))
        c.in.new_tokens = final->in.new_tokens;
    if (upto & (1u << STEP_SHORTER_SEQ))
        c.in.seq_len = final->in.seq_len;
    return c;
}

/* An inference plan: each step with the estimate it reaches together with
 * the steps before it, so that a user who stops early knows where they are. */
static void describe_inference(const oom_script_inputs *s, const candidate *base, const candidate *final,
                               unsigned mask, const oom_gpu *gpu, double target, oom_buf *plan)
{
    const char *sep = "";
    for (int step = 0; step < STEP_COUNT; step++) {
        if (!(mask & (1u << step)))
            continue;
        candidate upto = first_steps(base, final, mask & ((2u << step) - 1), gpu, target);
        oom_buf_puts(plan, sep);
        sep = "; then ";
        describe_inference_step(s, &upto, step, gpu, plan);
        oom_buf_printf(plan, " (about %.1f GiB)", total(&upto.in) / OOM_GIB);
    }
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
            put_smaller_model(s, c, plan);
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
            /* not at the price of a smaller model than the plan has (8-bit
             * weights and a 7b in place of 4-bit weights and a 13b) */
            bool same_model = without.model <= c.model;
            if (total(&without.in) <= target && same_model) {
                mask &= ~(1u << step);
                c = without;
            }
        }
    oom_estimate_compute(&c.in, after);
    if (!s->in.training) {
        describe_inference(s, &base, &c, mask, gpu, target, plan);
        return fits;
    }
    describe(s, &c, mask, gpu, plan);
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

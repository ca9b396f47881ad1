/* project/capacity: OOM601 predicted-oom and OOM602 near-capacity. */
#include <stdio.h>
#include <string.h>

#include "oomlint/estimate.h"
#include "oomlint/project.h"
#include "oomlint/source.h"


/* An inference script's line to point at: the model load where the weights
 * dominate; else what sets the batch or the cache (the prompts, the
 * max_new_tokens of generate()) or the prompt length, where the script says. */
static const oom_provenance *dominant_inference_input(const oom_script_inputs *s, const oom_estimate *e)
{
    const oom_provenance *batch = &s->from[OOM_IN_BATCH], *mode = &s->from[OOM_IN_MODE];
    const oom_provenance *seq = &s->from[OOM_IN_SEQ];
    if (e->weights >= e->kv_cache + e->activations + e->logits)
        return &s->from[OOM_IN_MODEL];
    if (!batch->assumed && batch->line && s->in.micro_batch > 1)
        return batch;
    if (!mode->assumed && mode->line && s->in.generates)
        return mode;
    if (!seq->assumed && seq->line)
        return seq;
    return &s->from[OOM_IN_MODEL];
}

/* The line to point at: what dominates the estimate and the script sets. */
static const oom_provenance *dominant_input(const oom_script_inputs *s, const oom_estimate *e)
{
    if (!s->in.training)
        return dominant_inference_input(s, e);
    double per_token = e->activations + e->logits;
    double states = e->weights + e->gradients + e->optimizer;
    const oom_provenance *batch = &s->from[OOM_IN_BATCH], *seq = &s->from[OOM_IN_SEQ];
    const oom_provenance *model = &s->from[OOM_IN_MODEL];
    if (oom_script_inputs_is_image(s))
        seq = &s->from[OOM_IN_IMAGE];
    if (per_token >= states) {
        if (!batch->assumed && batch->line)
            return batch;
        if (!seq->assumed && seq->line)
            return seq;
    }
    return model;
}

static void add(const oom_rule *rule, const char *path, const oom_provenance *at, const char *message,
                const char *help, oom_diag_list *out)
{
    oom_diag *d = oom_diag_list_add(out, rule->code, rule->name, rule->severity, path, message, help, rule->url);
    d->start_row = d->end_row = at->line ? at->line : 1;
    d->start_col = at->line ? at->col : 1;
    d->end_col = d->start_col;
    if (oom_notebook_is_path(path)) {
        /* the notebook's cell lines are known where the finding is placed
         * (project/checks.c), which holds this to the line's end */
        d->end_col = UINT32_MAX;
        return;
    }
    oom_source src;
    char why[64];
    if (oom_source_read(path, path, &src, why, sizeof why) == OOM_SOURCE_OK) {
        const char *line;
        size_t len;
        if (oom_source_line(&src, d->start_row, &line, &len)) {
            d->context = oom_xstrndup(line, len);
            d->end_col = (uint32_t)(len + 1);
        }
    }
    oom_source_free(&src);
}

typedef struct {
    const oom_rule *r601, *r602;
    bool oom601, oom602;
    const oom_gpu *gpu;
    int num_gpus;
    bool eager_module_loading;
} capacity_check;

/* What the finding says the estimate is made of: for training the
 * settings that decide it; for inference the weights and what one call of
 * the model keeps (the KV cache of generate(), or one forward pass). */
static void describe_job(const oom_script_inputs *s, const oom_estimate *e, oom_buf *msg)
{
    if (s->in.training) {
        char shape[64];
        if (oom_script_inputs_is_image(s))
            snprintf(shape, sizeof shape, "image %lldx%lld", s->in.image_h > 0 ? s->in.image_h : s->in.image_ref,
                     s->in.image_w > 0 ? s->in.image_w : s->in.image_ref);
        else
            snprintf(shape, sizeof shape, "sequence %lld", s->in.seq_len);
        oom_buf_printf(msg, "%s, batch %lld, %s, %s, %s", s->model_id, s->in.micro_batch, shape,
                       oom_precision_name(s->in.precision), oom_optimizer_name(s->in.optimizer));
        return;
    }
    oom_buf_printf(msg, "%s for inference: %.1f GiB of %s", s->model_id, e->weights / OOM_GIB,
                   s->in.precision == OOM_PREC_FP32       ? "fp32 weights"
                   : s->in.precision == OOM_PREC_AMP_FP16 ||
                           s->in.precision == OOM_PREC_AMP_BF16 ? "16-bit weights (autocast)"
                                                                : oom_precision_name(s->in.precision));
    if (s->from[OOM_IN_PRECISION].assumed)
        oom_buf_puts(msg, " at least (no torch_dtype given)");
    if (s->in.generates)
        oom_buf_printf(msg, " + %.1f GiB of KV cache for batch %lld x %lld positions", e->kv_cache / OOM_GIB,
                       s->in.micro_batch, s->in.seq_len + s->in.new_tokens);
    else
        oom_buf_printf(msg, " + one forward pass of batch %lld, sequence %lld", s->in.micro_batch, s->in.seq_len);
}

/* Whether the capacity rules judge a script: a training job, or an
 * inference script that puts the whole model on one GPU itself (one that
 * leaves it on the CPU, or lets device_map="auto" split and offload it,
 * has no one GPU to overflow). */
static bool judged(const oom_script_inputs *s)
{
    return s->in.training || s->placement == OOM_PLACE_ONE_GPU;
}

/* The estimate of one script against the target GPU. */
static void check_script(const capacity_check *c, const char *path, oom_script_inputs s, oom_diag_list *out)
{
    /* a model the script defines has exact parameters but rough activations
     * (docs/estimation.md §11): `oomlint estimate` shows it, the capacity
     * rules do not fire on it */
    if (!s.model_known || !judged(&s) || s.in.module_defined)
        return;
    /* precision and sharding decide most of the estimate; where the launcher
     * picks both from a config no file names, assuming fp32 on one unsharded
     * GPU predicts an OOM the real run may never have */
    if (s.launcher_decides && s.from[OOM_IN_PRECISION].assumed && s.from[OOM_IN_ZERO].assumed)
        return;
    /* sharded (ZeRO-3, FSDP) over a number of GPUs no file and no flag gives:
     * the share of one GPU is not known */
    if (s.in.zero_stage >= 3 && s.from[OOM_IN_GPUS].assumed && c->num_gpus <= 0)
        return;
    /* an inference script that names no dtype loads fp32 under transformers
     * 4 and the checkpoint's dtype (16-bit for the language models on the
     * hub) under transformers 5: judged at the lesser, so that the version
     * never makes the finding */
    if (!s.in.training && s.from[OOM_IN_PRECISION].assumed && s.in.precision == OOM_PREC_FP32)
        s.in.precision = OOM_PREC_PURE_BF16;
    double cap = oom_gpu_capacity_bytes(c->gpu);
    if (c->num_gpus > 0)
        s.in.num_gpus = c->num_gpus;
    s.in.eager_module_loading = c->eager_module_loading;
    oom_estimate e;
    oom_estimate_compute(&s.in, &e);
    /* a guessed length cannot make the finding: judged at the least it
     * could be (one token), what no length can lower, the weights, the
     * gradients, the optimizer state, must already overflow; the message
     * still shows the estimate at the guess */
    oom_estimate judged_at = e;
    if (s.from[OOM_IN_SEQ].assumed || (s.in.target_len > 0 && s.from[OOM_IN_TARGET].assumed)) {
        oom_estimate_input least = s.in;
        if (s.from[OOM_IN_SEQ].assumed)
            least.seq_len = 1;
        if (least.target_len > 0 && s.from[OOM_IN_TARGET].assumed)
            least.target_len = 1;
        oom_estimate_compute(&least, &judged_at);
    }
    bool over = judged_at.total > cap, near = !over && judged_at.total > OOM_NEAR_CAPACITY * cap;
    if ((over && !c->oom601) || (near && !c->oom602) || (!over && !near))
        return;
    oom_buf msg, plan;
    oom_buf_init(&msg);
    oom_buf_init(&plan);
    oom_buf_printf(&msg, "estimated peak %.1f GiB per GPU %s the %s's %.3g GiB (", e.total / OOM_GIB,
                   over ? "exceeds" : "is within 10% of", c->gpu->name, cap / OOM_GIB);
    describe_job(&s, &e, &msg);
    oom_buf_puts(&msg, ")");
    oom_estimate after;
    bool fits = oom_estimate_fix_plan(&s, c->gpu, OOM_NEAR_CAPACITY * cap, &plan, &after);
    oom_buf help;
    oom_buf_init(&help);
    oom_buf_printf(&help, "%s %s; see `oomlint estimate %s --gpu %s`", fits ? "to fit under 90%:" : "even",
                   plan.len ? plan.data : "nothing in the toolbox is enough", path, c->gpu->id);
    add(over ? c->r601 : c->r602, path, dominant_input(&s, &e), msg.data, help.data, out);
    oom_buf_free(&msg);
    oom_buf_free(&plan);
    oom_buf_free(&help);
}

static bool capacity_setup(const oom_project_context *p, bool oom601, bool oom602, capacity_check *c)
{
    *c = (capacity_check){oom_rules_find(p->rules, "OOM601"), oom_rules_find(p->rules, "OOM602"), oom601, oom602,
                          p->gpu, p->num_gpus, p->eager_module_loading};
    return p->gpu && p->gpu->memory_gib > 0 && c->r601 && c->r602 && (oom601 || oom602);
}

void oom_project_check_capacity(const oom_project_context *p, bool oom601, bool oom602, const char *const *paths,
                                const oom_file_facts *facts, size_t count, oom_diag_list *out)
{
    capacity_check c;
    /* the knowledge base was asked when the inputs were taken */
    if (!capacity_setup(p, oom601, oom602, &c))
        return;
    for (size_t i = 0; i < count; i++)
        if (facts[i].inputs)
            check_script(&c, paths[i], *facts[i].inputs, out);
}

/* estimate/readings: what one value the script gives a call says, for the
 * estimate's inputs (inputs.c walks the calls and asks here): a precision
 * (a dtype, an autocast, a Trainer or Lightning switch), an optimizer, a
 * LoRA config's rank and targets, a whole number, a switch. Split from
 * inputs.c so that each file keeps one job: inputs.c finds the values,
 * this file reads them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "oomlint/lang.h"

typedef oom_est_reader reader;

/* A call's node for one of its keyword values: value -> keyword_argument ->
 * argument_list -> call. */
TSNode oom_est_keyword_call(TSNode value)
{
    TSNode n = ts_node_parent(value);
    for (int i = 0; i < 2 && !ts_node_is_null(n); i++)
        n = ts_node_parent(n);
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), "call") == 0 ? n : (TSNode){{0}, NULL, NULL};
}

bool oom_est_in_autocast_call(const reader *r, TSNode value)
{
    TSNode call = oom_est_keyword_call(value);
    if (ts_node_is_null(call))
        return false;
    oom_buf q;
    oom_buf_init(&q);
    bool yes = oom_pymodel_qualname(r->m, oom_child(call, "function", 8), &q) &&
               (strcmp(q.data, "torch.autocast") == 0 || oom_str_ends_with(q.data, ".amp.autocast"));
    oom_buf_free(&q);
    return yes;
}

/* How much a precision says about the weights: a quantized load decides
 * them whatever the Trainer's autocast switch says (QLoRA sets both
 * load_in_4bit=True and bf16=True), and a 16-bit model stays 16-bit under
 * autocast; among equals, the later reading wins. */
static int precision_rank(oom_precision p)
{
    switch (p) {
    case OOM_PREC_FP32:
        return 0;
    case OOM_PREC_AMP_FP16:
    case OOM_PREC_AMP_BF16:
        return 1;
    case OOM_PREC_PURE_BF16:
        return 2;
    default:
        return 3;
    }
}

static void set_precision(reader *r, oom_precision p, TSNode at, const char *what)
{
    /* autocast stays on under a quantized load that outranks it */
    if (p == OOM_PREC_AMP_FP16 || p == OOM_PREC_AMP_BF16)
        r->out->in.autocast = true;
    if (precision_rank(p) < precision_rank(r->out->in.precision))
        return;
    r->out->in.precision = p;
    oom_est_note(r, OOM_IN_PRECISION, at, what);
}

/* Lightning's Trainer(precision=...): "16-mixed" / 16 and "bf16-mixed" are
 * autocast, "bf16-true" / "16-true" a 16-bit model. Other values (fp32, the
 * digits of torch.set_printoptions) say nothing. */
static void read_lightning_precision(reader *r, const char *v, TSNode value)
{
    bool bf16 = strstr(v, "bf16") != NULL;
    bool sixteen = bf16 || strcmp(v, "16") == 0 || strstr(v, "\"16") != NULL;
    if (!sixteen)
        return;
    char what[96];
    snprintf(what, sizeof what, "precision=%s", v);
    if (strstr(v, "-true"))
        set_precision(r, OOM_PREC_PURE_BF16, value, what);
    else
        set_precision(r, bf16 ? OOM_PREC_AMP_BF16 : OOM_PREC_AMP_FP16, value, what);
}

/* `args.bits == 4` (QLoRA's `load_in_4bit=args.bits == 4`): a setting's
 * whole-number default compared with a number; -1 when it is not that. */
static int comparison_switch(const reader *r, TSNode value)
{
    if (strcmp(ts_node_type(value), "comparison_operator") != 0 || ts_node_named_child_count(value) != 2 ||
        ts_node_child_count(value) != 3)
        return -1;
    const char *op = ts_node_type(ts_node_child(value, 1));
    const oom_est_setting *s = oom_est_setting_read_by(r, ts_node_named_child(value, 0));
    long long a, b;
    if ((strcmp(op, "==") != 0 && strcmp(op, "!=") != 0) || !s || !oom_est_setting_int(r, s, &a) ||
        !oom_pymodel_int_value(r->m, ts_node_named_child(value, 1), &b))
        return -1;
    return (a == b) == (strcmp(op, "==") == 0);
}

/* A switch's value: True / False written in the call, or the default of
 * the setting the call reads (`bf16=args.bf16` with `--bf16` store_true),
 * or a comparison of one with a number; 1 on, 0 off, -1 neither. */
int oom_est_value_switch(const reader *r, TSNode value)
{
    if (r->via)
        return oom_est_setting_switch(r, r->via);
    if (ts_node_is_null(value))
        return -1;
    if (strcmp(ts_node_type(value), "comparison_operator") == 0)
        return comparison_switch(r, value);
    return strcmp(ts_node_type(value), "true") == 0 ? 1 : strcmp(ts_node_type(value), "false") == 0 ? 0 : -1;
}

/* An integer: written in the call, through names, or the default of the
 * setting the call reads. */
bool oom_est_value_int(const reader *r, TSNode value, long long *n)
{
    if (r->via)
        return oom_est_setting_int(r, r->via, n);
    if (oom_pymodel_int_value(r->m, value, n))
        return true;
    /* an attribute of a record the project builds (`hparams.batch_size`):
     * the symbolic run of the model's sizing reads it */
    return r->int_by_run && !ts_node_is_null(value) && strcmp(ts_node_type(value), "attribute") == 0 &&
           r->int_by_run(r->run, value, n);
}

/* The dtype a run without flags loads the model in: the value, names
 * followed, and of `torch.bfloat16 if args.bf16 else None` the branch the
 * switch's default takes; a null node when that cannot be told. */
static TSNode dtype_value(const reader *r, TSNode value)
{
    TSNode v = r->via ? value : oom_pymodel_value_of(r->m, value, 0);
    if (ts_node_is_null(v) || strcmp(ts_node_type(v), "conditional_expression") != 0)
        return ts_node_is_null(v) ? value : v;
    int on = oom_est_setting_switch(r, oom_est_setting_read_by(r, ts_node_named_child(v, 1)));
    if (on < 0)
        return (TSNode){{0}, NULL, NULL};
    return ts_node_named_child(v, on ? 0 : 2);
}

/* torch_dtype=torch.bfloat16 (not autocast's dtype=): a 16-bit model. */
static void read_model_dtype(reader *r, TSNode value)
{
    char v[64];
    if (oom_est_in_autocast_call(r, value) || !oom_est_value_text(r, dtype_value(r, value), v, sizeof v))
        return;
    if (strstr(v, "bfloat16") || strstr(v, "float16"))
        set_precision(r, OOM_PREC_PURE_BF16, value, "16-bit weights (torch_dtype)");
    else if (strcmp(v, "\"auto\"") == 0 || strcmp(v, "'auto'") == 0)
        /* the checkpoint's own dtype: 16-bit for the language models on the
         * hub (the few fp32 ones, GPT-2 and BERT, are then underestimated) */
        set_precision(r, OOM_PREC_PURE_BF16, value, "16-bit weights (torch_dtype=\"auto\": the checkpoint's dtype)");
}

void oom_est_read_precision(reader *r, const char *key, TSNode value)
{
    char v[64] = "";
    if (strcmp(key, "torch_dtype") == 0 || strcmp(key, "dtype") == 0) {
        read_model_dtype(r, value);
        return;
    }
    bool is_true = oom_est_value_switch(r, value) == 1;
    if (!oom_est_value_text(r, value, v, sizeof v) && !is_true)
        return;
    if (strcmp(key, "bf16") == 0 && is_true) {
        set_precision(r, OOM_PREC_AMP_BF16, value, "bf16=True");
    } else if (strcmp(key, "fp16") == 0 && is_true) {
        set_precision(r, OOM_PREC_AMP_FP16, value, "fp16=True");
    } else if (strcmp(key, "load_in_4bit") == 0 && is_true) {
        set_precision(r, OOM_PREC_NF4, value, "load_in_4bit=True");
    } else if (strcmp(key, "bnb_4bit_use_double_quant") == 0 && is_true) {
        r->out->in.double_quant = true;
    } else if (strcmp(key, "load_in_8bit") == 0 && is_true) {
        set_precision(r, OOM_PREC_INT8, value, "load_in_8bit=True");
    } else if (strcmp(key, "precision") == 0) {
        read_lightning_precision(r, v, value);
    } else if (strcmp(key, "mixed_precision") == 0) {
        if (strstr(v, "bf16"))
            set_precision(r, OOM_PREC_AMP_BF16, value, "mixed_precision=\"bf16\"");
        else if (strstr(v, "fp16"))
            set_precision(r, OOM_PREC_AMP_FP16, value, "mixed_precision=\"fp16\"");
    }
}

void oom_est_read_optimizer(reader *r, TSNode value)
{
    char v[64];
    if (!oom_est_value_text(r, value, v, sizeof v))
        return;
    oom_script_inputs *s = r->out;
    if (strstr(v, "adafactor"))
        s->in.optimizer = OOM_OPT_ADAFACTOR;
    else if (strstr(v, "8bit"))
        s->in.optimizer = OOM_OPT_ADAM_8BIT;
    else if (strstr(v, "sgd"))
        s->in.optimizer = OOM_OPT_SGD;
    else
        s->in.optimizer = OOM_OPT_ADAMW;
    char what[96];
    snprintf(what, sizeof what, "optim=%s", v);
    oom_est_note(r, OOM_IN_OPTIMIZER, value, what);
}

/* in + out features of the targets: each named module's real widths
 * (2h for a name the estimate does not know), or every linear layer of a
 * block for "all-linear"; *modules counts them, *inputs has the
 * OOM_LORA_KEEPS_* bit of each (which layer input the target reads). */
static long long lora_target_features(reader *r, TSNode targets, long long *modules, unsigned *inputs)
{
    oom_estimate_input *in = &r->out->in;
    *modules = 2; /* PEFT's default for most models: q and v */
    *inputs = OOM_LORA_KEEPS_ATTN_INPUT;
    memset(in->lora_targets_by_input, 0, sizeof in->lora_targets_by_input);
    if (ts_node_is_null(targets)) {
        oom_estimate_count_lora_target(in, "q_proj");
        oom_estimate_count_lora_target(in, "v_proj");
        return oom_estimate_lora_features(in, "q_proj") + oom_estimate_lora_features(in, "v_proj");
    }
    oom_buf name;
    oom_buf_init(&name);
    long long sum = 0;
    *inputs = 0;
    if (oom_pymodel_string_value(r->m, targets, &name) && strcmp(name.data, "all-linear") == 0) {
        *modules = in->gated_mlp ? 7 : 6;
        *inputs = OOM_LORA_KEEPS_ALL;
        oom_estimate_count_lora_target(in, "all-linear");
        sum = oom_estimate_lora_all_linear_features(in);
    } else if (strcmp(ts_node_type(targets), "list") == 0) {
        *modules = ts_node_named_child_count(targets);
        for (uint32_t i = 0; i < ts_node_named_child_count(targets); i++) {
            oom_buf_clear(&name);
            long long f = 0;
            if (oom_pymodel_string_value(r->m, ts_node_named_child(targets, i), &name)) {
                f = oom_estimate_lora_features(in, name.data);
                *inputs |= oom_estimate_lora_input_of(name.data);
                oom_estimate_count_lora_target(in, name.data);
            }
            sum += f > 0 ? f : 2 * in->hidden;
        }
    } else {
        sum = 2 * 2 * in->hidden;
    }
    oom_buf_free(&name);
    return sum;
}

/* LoRA: each targeted projection gets r·(in + out) parameters per layer;
 * with dropout each also keeps a mask and a copy of its input. */
void oom_est_read_lora(reader *r, TSNode rank_value, TSNode targets, TSNode dropout)
{
    long long rank;
    oom_script_inputs *s = r->out;
    if (!oom_pymodel_int_value(r->m, rank_value, &rank) || rank <= 0 || s->in.hidden <= 0)
        return;
    long long modules;
    unsigned inputs;
    long long features = lora_target_features(r, targets, &modules, &inputs);
    s->in.trainable = s->in.layers * rank * features;
    char p[32];
    s->in.lora_dropout_modules = 0;
    /* without dropout each target's LoRA branch keeps the target's input */
    s->in.lora_kept_inputs = inputs;
    if (!ts_node_is_null(dropout) && oom_est_text_of(r, dropout, p, sizeof p) && atof(p) > 0) {
        s->in.lora_dropout_modules = (int)modules;
        s->in.lora_kept_inputs = 0;
    }
    char what[96];
    snprintf(what, sizeof what, "LoraConfig(r=%lld), %lld target modules", rank, modules);
    oom_est_note(r, OOM_IN_LORA, rank_value, what);
}

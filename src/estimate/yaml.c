/* estimate/yaml: the estimate's inputs from a YAML training config alone
 * (`oomlint estimate axolotl.yml --gpu rtx4090`). Each format names the same
 * inputs differently; the first name a file has is taken, and what it does
 * not say keeps the assumed default, marked so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "oomlint/lang.h"
#include "oomlint/yamlmodel.h"

typedef struct {
    oom_est_reader r;
    const oom_yamlmodel *m;
    oom_buf value;
    TSNode at; /* the pair the last read found */
} yaml_reader;

/* The first of `paths` the config has: its value normalised into y->value,
 * its pair in y->at, and the key's name in *found. */
static oom_yaml_value_type read_first(yaml_reader *y, const char *const *paths, const char **found)
{
    TSNode none = {{0}, NULL, NULL};
    for (size_t i = 0; paths[i]; i++) {
        TSNode pair = oom_yamlmodel_find(y->m, none, paths[i]);
        if (ts_node_is_null(pair))
            continue;
        oom_yaml_value_type t = oom_yamlmodel_pair_value(y->m, pair, &y->value);
        if (t == OOM_YAML_VALUE_NULL || t == OOM_YAML_VALUE_NONE)
            continue; /* `micro_batch_size:` left empty: not said */
        y->at = pair;
        if (found)
            *found = paths[i];
        return t;
    }
    return OOM_YAML_VALUE_NONE;
}

static bool read_positive(yaml_reader *y, const char *const *paths, const char **found, long long *out)
{
    if (read_first(y, paths, found) != OOM_YAML_VALUE_INT)
        return false;
    *out = strtoll(y->value.data, NULL, 10);
    return *out > 0;
}

static bool read_true(yaml_reader *y, const char *path)
{
    const char *const paths[] = {path, NULL};
    return read_first(y, paths, NULL) == OOM_YAML_VALUE_BOOL && strcmp(y->value.data, "true") == 0;
}

static void note(yaml_reader *y, oom_input_kind k, const char *fmt, const char *a, const char *b)
{
    char what[160];
    snprintf(what, sizeof what, fmt, a, b);
    oom_est_note(&y->r, k, y->at, what);
}

static void read_model(yaml_reader *y, const oom_kb *kb)
{
    const char *id = oom_yamlmodel_model_id(y->m);
    if (!id)
        return;
    oom_buf why;
    oom_buf_init(&why);
    oom_buf_printf(&why, "%s (named in %s)", id, y->r.path);
    static const char *const keys[] = {"base_model", "model_name_or_path", "model.init_args.model_name_or_path",
                                       "model.init_args.pretrained_model_name_or_path", "checkpoint_dir", NULL};
    const char *key;
    /* the line that names the model, where a finding about its size points */
    if (oom_script_inputs_use_model(y->r.out, kb, id, why.data) && read_first(y, keys, &key) != OOM_YAML_VALUE_NONE)
        note(y, OOM_IN_MODEL, "%s: %s", key, id);
    oom_buf_free(&why);
}

static void read_shape(yaml_reader *y)
{
    /* axolotl micro_batch_size, Trainer/LLaMA-Factory per_device_train_batch_size,
     * Lightning data.init_args.batch_size */
    static const char *const batch[] = {"micro_batch_size", "per_device_train_batch_size",
                                        "data.init_args.batch_size", "data.batch_size", "train.micro_batch_size", NULL};
    static const char *const seq[] = {"sequence_len", "cutoff_len", "max_seq_length", "max_length",
                                      "train.max_seq_length", NULL};
    static const char *const accum[] = {"gradient_accumulation_steps", "trainer.accumulate_grad_batches", NULL};
    oom_script_inputs *s = y->r.out;
    const char *key;
    long long v;
    if (read_positive(y, batch, &key, &v)) {
        s->in.micro_batch = v;
        snprintf(s->batch_name, sizeof s->batch_name, "%s", key);
        note(y, OOM_IN_BATCH, "%s: %s", key, y->value.data);
    }
    if (read_positive(y, seq, &key, &v)) {
        s->in.seq_len = v;
        snprintf(s->seq_name, sizeof s->seq_name, "%s", key);
        note(y, OOM_IN_SEQ, "%s: %s", key, y->value.data);
    }
    if (read_positive(y, accum, &key, &v))
        s->grad_accum = (int)v;
}

/* Weights quantised for QLoRA or 8-bit training, else the mixed precision. */
static void read_precision(yaml_reader *y)
{
    oom_script_inputs *s = y->r.out;
    static const char *const bits[] = {"quantization_bit", NULL}; /* LLaMA-Factory */
    long long b;
    const char *key;
    if (read_true(y, "load_in_4bit") || (read_positive(y, bits, &key, &b) && b == 4)) {
        s->in.precision = OOM_PREC_NF4;
        note(y, OOM_IN_PRECISION, "4-bit weights (%s)%s", "QLoRA", "");
        return;
    }
    if (read_true(y, "load_in_8bit") || (read_positive(y, bits, &key, &b) && b == 8)) {
        s->in.precision = OOM_PREC_INT8;
        note(y, OOM_IN_PRECISION, "8-bit weights%s%s", "", "");
        return;
    }
    static const char *const mixed[] = {"bf16", "fp16", "mixed_precision", "trainer.precision", "precision", NULL};
    for (size_t i = 0; mixed[i]; i++) {
        const char *const one[] = {mixed[i], NULL};
        /* a top-level precision is litgpt's (Fabric's names); elsewhere it is no switch of ours */
        if (strcmp(mixed[i], "precision") == 0 && !(oom_yamlmodel_kinds(y->m) & OOM_YAML_LITGPT))
            continue;
        if (read_first(y, one, NULL) == OOM_YAML_VALUE_NONE)
            continue;
        const char *v = y->value.data;
        bool on = strcmp(v, "true") == 0;
        oom_precision p = OOM_PREC_FP32;
        /* axolotl's `bf16: auto` is bf16 where the GPU has it, else fp16 */
        if ((i == 0 && (on || strcmp(v, "auto") == 0)) || strcmp(v, "bf16") == 0 || strcmp(v, "bf16-mixed") == 0)
            p = OOM_PREC_AMP_BF16;
        else if ((i == 1 && on) || strcmp(v, "fp16") == 0 || strcmp(v, "16-mixed") == 0 || strcmp(v, "16") == 0)
            p = OOM_PREC_AMP_FP16;
        else if (strcmp(v, "bf16-true") == 0)
            p = OOM_PREC_PURE_BF16;
        else
            continue;
        s->in.precision = p;
        note(y, OOM_IN_PRECISION, "%s: %s", mixed[i], v);
        return;
    }
}

static void read_training(yaml_reader *y)
{
    oom_script_inputs *s = y->r.out;
    static const char *const optim[] = {"optimizer", "optim", NULL};
    const char *key;
    if (read_first(y, optim, &key) == OOM_YAML_VALUE_STRING) {
        const char *v = y->value.data;
        s->in.optimizer = strstr(v, "adafactor") ? OOM_OPT_ADAFACTOR
                          : strstr(v, "8bit")    ? OOM_OPT_ADAM_8BIT
                          : strstr(v, "sgd")     ? OOM_OPT_SGD
                                                 : OOM_OPT_ADAMW;
        note(y, OOM_IN_OPTIMIZER, "%s: %s", key, v);
    }
    if (read_true(y, "gradient_checkpointing")) {
        s->in.gradient_checkpointing = true;
        note(y, OOM_IN_CHECKPOINTING, "gradient_checkpointing: true%s%s", "", "");
    } else if ((oom_yamlmodel_kinds(y->m) & OOM_YAML_LLAMA_FACTORY) && !read_true(y, "disable_gradient_checkpointing")) {
        /* LLaMA-Factory checkpoints unless told not to: ModelArguments'
         * disable_gradient_checkpointing defaults to False, and
         * model_utils/checkpointing.py enables it when that is False */
        s->in.gradient_checkpointing = true;
        snprintf(s->from[OOM_IN_CHECKPOINTING].text, sizeof s->from[0].text, "%s: LLaMA-Factory's default "
                 "(disable_gradient_checkpointing: false)", y->r.path);
        s->from[OOM_IN_CHECKPOINTING].assumed = false;
    }
    /* attention that keeps the s x s scores: eager, or FlashAttention/SDPA switched off */
    static const char *const attn[] = {"attn_implementation", "flash_attn", NULL};
    if (read_first(y, attn, &key) == OOM_YAML_VALUE_STRING) {
        const char *v = y->value.data;
        s->in.memory_efficient_attention = strcmp(v, "eager") != 0 && strcmp(v, "disabled") != 0 &&
                                           strcmp(v, "off") != 0;
        note(y, OOM_IN_ATTENTION, "%s: %s", key, v);
    } else if (read_true(y, "flash_attention") || read_true(y, "sdp_attention")) {
        s->in.memory_efficient_attention = true;
        note(y, OOM_IN_ATTENTION, "%s%s", "memory-efficient attention (axolotl)", "");
    }
}

/* The projections an adapter targets: a list's length; "all", axolotl's
 * lora_target_linear, the seven projections of a Llama-style block. */
static long long lora_modules(yaml_reader *y)
{
    TSNode none = {{0}, NULL, NULL};
    if (read_true(y, "lora_target_linear"))
        return 7;
    static const char *const names[] = {"lora_target_modules", "lora_target", NULL};
    for (size_t i = 0; names[i]; i++) {
        TSNode pair = oom_yamlmodel_find(y->m, none, names[i]);
        TSNode value = ts_node_is_null(pair) ? pair : ts_node_child_by_field_name(pair, "value", 5);
        if (ts_node_is_null(value))
            continue;
        TSNode list = ts_node_named_child(value, ts_node_named_child_count(value) - 1);
        const char *type = ts_node_is_null(list) ? "" : ts_node_type(list);
        if (strcmp(type, "block_sequence") == 0 || strcmp(type, "flow_sequence") == 0)
            return ts_node_named_child_count(list);
        if (oom_yamlmodel_pair_value(y->m, pair, &y->value) == OOM_YAML_VALUE_STRING) {
            if (strcmp(y->value.data, "all") == 0)
                return 7;
            long long n = 1; /* LLaMA-Factory: "q_proj,v_proj" */
            for (const char *c = y->value.data; *c; c++)
                n += *c == ',';
            return n;
        }
    }
    return 2; /* PEFT's default for most models: q and v */
}

static void read_adapter(yaml_reader *y)
{
    oom_script_inputs *s = y->r.out;
    static const char *const kind[] = {"adapter", "finetuning_type", NULL};
    static const char *const rank_names[] = {"lora_r", "lora_rank", NULL};
    const char *key;
    if (read_first(y, kind, &key) != OOM_YAML_VALUE_STRING ||
        (strcmp(y->value.data, "lora") != 0 && strcmp(y->value.data, "qlora") != 0))
        return;
    long long rank;
    if (!read_positive(y, rank_names, &key, &rank) || s->in.hidden <= 0)
        return;
    TSNode rank_at = y->at;
    long long modules = lora_modules(y);
    s->in.trainable = s->in.layers * modules * rank * 2 * s->in.hidden;
    char what[96];
    snprintf(what, sizeof what, "LoRA %s: %lld, %lld target modules", key, rank, modules);
    oom_est_note(&y->r, OOM_IN_LORA, rank_at, what);
}

void oom_script_inputs_from_yaml(const char *path, oom_source *src, const oom_yamlmodel *m, const oom_kb *kb,
                                 oom_script_inputs *out)
{
    oom_script_inputs_init(out);
    yaml_reader y;
    memset(&y, 0, sizeof y);
    y.r.path = path, y.r.src = src, y.r.out = out, y.r.kb = kb;
    y.m = m;
    oom_buf_init(&y.value);
    read_model(&y, kb);
    read_shape(&y);
    read_precision(&y);
    read_training(&y);
    read_adapter(&y);
    oom_buf_free(&y.value);
}

bool oom_script_inputs_read_yaml(const char *path, const oom_kb *kb, oom_script_inputs *out, oom_buf *err)
{
    oom_script_inputs_init(out);
    oom_yaml_file file;
    char why[256];
    if (!oom_yaml_file_read(path, &file, why, sizeof why)) {
        oom_buf_printf(err, "%s: %s", path, why);
        oom_yaml_file_free(&file);
        return false;
    }
    bool ok = file.model && oom_yamlmodel_kinds(file.model) != 0;
    if (ok)
        oom_script_inputs_from_yaml(path, &file.src, file.model, kb, out);
    else
        oom_buf_printf(err, "%s: not a training config oomlint recognises (axolotl, LLaMA-Factory, a TRL "
                            "recipe, a Lightning CLI config)", path);
    oom_yaml_file_free(&file);
    return ok;
}

/* estimate/inputs: the estimate's inputs as a script states them, each with
 * where it came from; what the script does not say is assumed and marked so. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "oomlint/jsonfile.h"
#include "oomlint/lang.h"
#include "oomlint/project.h"

typedef oom_est_reader reader;

void oom_est_note(reader *r, oom_input_kind k, TSNode at, const char *what)
{
    oom_provenance *p = &r->out->from[k];
    uint32_t row = 0, col = 0;
    if (!ts_node_is_null(at))
        oom_source_position(r->src, ts_node_start_byte(at), &row, &col);
    oom_source_describe_line(r->src, r->path, row, p->text, sizeof p->text);
    size_t used = strlen(p->text);
    snprintf(p->text + used, sizeof p->text - used, " %s", what);
    p->assumed = false;
    p->line = row;
    p->col = col;
}

void oom_est_assume(oom_script_inputs *s, oom_input_kind k, const char *what)
{
    snprintf(s->from[k].text, sizeof s->from[k].text, "%s", what);
    s->from[k].assumed = true;
    s->from[k].line = 0;
}

static bool name_is(const char *name, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(name, want, len) == 0;
}

bool oom_est_text_of(const reader *r, TSNode n, char *buf, size_t size)
{
    if (ts_node_is_null(n)) /* `x: int` has no right-hand side */
        return false;
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    if (b - a + 1 > size)
        return false;
    memcpy(buf, r->src->text + a, b - a);
    buf[b - a] = '\0';
    return true;
}

bool oom_script_inputs_use_model(oom_script_inputs *s, const oom_kb *kb, const char *id, const char *why)
{
    const oom_model *m = oom_kb_find_model(kb, id);
    if (!m)
        return false;
    long long params = m->params >= 0 ? m->params : oom_model_param_count(&m->config);
    if (params <= 0)
        return false;
    s->in.params = params;
    s->in.trainable = params;
    oom_est_use_image_model(s, m); /* or clears the image fields of another model */
    if (m->vision.resolution > 0) {
        snprintf(s->model_id, sizeof s->model_id, "%s", m->id);
        s->model_known = true;
        if (why)
            snprintf(s->from[OOM_IN_MODEL].text, sizeof s->from[OOM_IN_MODEL].text, "%s", why);
        return true;
    }
    s->in.hidden = m->config.hidden_size;
    s->in.layers = m->config.num_hidden_layers + (m->config.num_decoder_layers > 0 ? m->config.num_decoder_layers : 0);
    s->in.heads = m->config.num_attention_heads;
    s->in.vocab = m->config.vocab_size;
    snprintf(s->model_id, sizeof s->model_id, "%s", m->id);
    s->model_known = true;
    if (why)
        snprintf(s->from[OOM_IN_MODEL].text, sizeof s->from[OOM_IN_MODEL].text, "%s", why);
    return true;
}

/* A call's node for one of its keyword values: value -> keyword_argument ->
 * argument_list -> call. */
static TSNode call_of_keyword_value(TSNode value)
{
    TSNode n = ts_node_parent(value);
    for (int i = 0; i < 2 && !ts_node_is_null(n); i++)
        n = ts_node_parent(n);
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), "call") == 0 ? n : (TSNode){{0}, NULL, NULL};
}

bool oom_est_in_autocast_call(const reader *r, TSNode value)
{
    TSNode call = call_of_keyword_value(value);
    if (ts_node_is_null(call))
        return false;
    oom_buf q;
    oom_buf_init(&q);
    bool yes = oom_pymodel_qualname(r->m, oom_child(call, "function", 8), &q) &&
               (strcmp(q.data, "torch.autocast") == 0 || oom_str_ends_with(q.data, ".amp.autocast"));
    oom_buf_free(&q);
    return yes;
}

/* Lightning's Trainer(precision=...): "16-mixed" / 16 and "bf16-mixed" are
 * autocast, "bf16-true" / "16-true" a 16-bit model. Other values (fp32, the
 * digits of torch.set_printoptions) say nothing. */
static void read_lightning_precision(reader *r, const char *v, TSNode value)
{
    oom_script_inputs *s = r->out;
    bool bf16 = strstr(v, "bf16") != NULL;
    bool sixteen = bf16 || strcmp(v, "16") == 0 || strstr(v, "\"16") != NULL;
    if (!sixteen)
        return;
    if (strstr(v, "-true"))
        s->in.precision = OOM_PREC_PURE_BF16;
    else
        s->in.precision = bf16 ? OOM_PREC_AMP_BF16 : OOM_PREC_AMP_FP16;
    char what[96];
    snprintf(what, sizeof what, "precision=%s", v);
    oom_est_note(r, OOM_IN_PRECISION, value, what);
}

static void read_precision(reader *r, const char *key, TSNode value)
{
    oom_script_inputs *s = r->out;
    char v[64];
    if (!oom_est_text_of(r, value, v, sizeof v))
        return;
    bool is_true = strcmp(v, "True") == 0;
    if (strcmp(key, "bf16") == 0 && is_true) {
        s->in.precision = OOM_PREC_AMP_BF16;
        oom_est_note(r, OOM_IN_PRECISION, value, "bf16=True");
    } else if (strcmp(key, "fp16") == 0 && is_true) {
        s->in.precision = OOM_PREC_AMP_FP16;
        oom_est_note(r, OOM_IN_PRECISION, value, "fp16=True");
    } else if ((strcmp(key, "torch_dtype") == 0 || strcmp(key, "dtype") == 0) &&
               (strstr(v, "bfloat16") || strstr(v, "float16")) && !oom_est_in_autocast_call(r, value)) {
        if (s->in.precision == OOM_PREC_FP32) {
            s->in.precision = OOM_PREC_PURE_BF16;
            oom_est_note(r, OOM_IN_PRECISION, value, "16-bit weights (torch_dtype)");
        }
    } else if (strcmp(key, "load_in_4bit") == 0 && is_true) {
        s->in.precision = OOM_PREC_NF4;
        oom_est_note(r, OOM_IN_PRECISION, value, "load_in_4bit=True");
    } else if (strcmp(key, "load_in_8bit") == 0 && is_true) {
        s->in.precision = OOM_PREC_INT8;
        oom_est_note(r, OOM_IN_PRECISION, value, "load_in_8bit=True");
    } else if (strcmp(key, "precision") == 0) {
        read_lightning_precision(r, v, value);
    } else if (strcmp(key, "mixed_precision") == 0) {
        if (strstr(v, "bf16")) {
            s->in.precision = OOM_PREC_AMP_BF16;
            oom_est_note(r, OOM_IN_PRECISION, value, "mixed_precision=\"bf16\"");
        } else if (strstr(v, "fp16")) {
            s->in.precision = OOM_PREC_AMP_FP16;
            oom_est_note(r, OOM_IN_PRECISION, value, "mixed_precision=\"fp16\"");
        }
    }
}

static void read_optimizer(reader *r, TSNode value)
{
    char v[64];
    if (!oom_est_text_of(r, value, v, sizeof v))
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

/* LoRA: each targeted projection gets r·(in + out) parameters per layer. */
static void read_lora(reader *r, TSNode rank_value, TSNode targets)
{
    long long rank;
    oom_script_inputs *s = r->out;
    if (!oom_pymodel_int_value(r->m, rank_value, &rank) || rank <= 0 || s->in.hidden <= 0)
        return;
    long long modules = 2; /* PEFT's default for most models: q and v */
    if (!ts_node_is_null(targets) && strcmp(ts_node_type(targets), "list") == 0)
        modules = ts_node_named_child_count(targets);
    s->in.trainable = s->in.layers * modules * rank * 2 * s->in.hidden;
    char what[96];
    snprintf(what, sizeof what, "LoraConfig(r=%lld), %lld target modules", rank, modules);
    oom_est_note(r, OOM_IN_LORA, rank_value, what);
}

static void read_keywords(reader *r)
{
    oom_script_inputs *s = r->out;
    TSNode lora_rank = {{0}, NULL, NULL}, lora_targets = {{0}, NULL, NULL};
    for (size_t i = 0; i < oom_pymodel_keyword_count(r->m); i++) {
        const char *name;
        size_t len;
        TSNode value;
        oom_pymodel_keyword(r->m, i, &name, &len, &value);
        char key[48];
        if (len >= sizeof key)
            continue;
        memcpy(key, name, len);
        key[len] = '\0';
        long long n;
        if ((strcmp(key, "per_device_train_batch_size") == 0 || strcmp(key, "batch_size") == 0 ||
             strcmp(key, "train_batch_size") == 0) &&
            s->from[OOM_IN_BATCH].assumed && oom_pymodel_int_value(r->m, value, &n) && n > 0) {
            s->in.micro_batch = n;
            snprintf(s->batch_name, sizeof s->batch_name, "%s", key);
            oom_est_note(r, OOM_IN_BATCH, value, key);
        } else if ((strcmp(key, "max_length") == 0 || strcmp(key, "max_seq_length") == 0 ||
                    strcmp(key, "block_size") == 0 || strcmp(key, "max_seq_len") == 0) &&
                   s->from[OOM_IN_SEQ].assumed && oom_pymodel_int_value(r->m, value, &n) && n > 0) {
            s->in.seq_len = n;
            snprintf(s->seq_name, sizeof s->seq_name, "%s", key);
            oom_est_note(r, OOM_IN_SEQ, value, key);
        } else if (strcmp(key, "gradient_accumulation_steps") == 0 && oom_pymodel_int_value(r->m, value, &n)) {
            s->grad_accum = (int)n;
        } else if (strcmp(key, "gradient_checkpointing") == 0 && strcmp(ts_node_type(value), "true") == 0) {
            s->in.gradient_checkpointing = true;
            oom_est_note(r, OOM_IN_CHECKPOINTING, value, "gradient_checkpointing=True");
        } else if (strcmp(key, "optim") == 0) {
            read_optimizer(r, value);
        } else if (strcmp(key, "attn_implementation") == 0) {
            char v[48];
            if (oom_est_text_of(r, value, v, sizeof v)) {
                s->in.memory_efficient_attention = strstr(v, "eager") == NULL;
                oom_est_note(r, OOM_IN_ATTENTION, value, v);
            }
        } else if (strcmp(key, "r") == 0) {
            lora_rank = value;
        } else if (strcmp(key, "target_modules") == 0) {
            lora_targets = value;
        } else {
            read_precision(r, key, value);
        }
    }
    if (!ts_node_is_null(lora_rank))
        read_lora(r, lora_rank, lora_targets);
}

/* deepspeed="ds.json": the ZeRO stage and optimizer offload. */
static void read_deepspeed(reader *r)
{
    for (size_t i = 0; i < oom_pymodel_keyword_count(r->m); i++) {
        const char *name;
        size_t len;
        TSNode value;
        oom_pymodel_keyword(r->m, i, &name, &len, &value);
        oom_buf v;
        oom_buf_init(&v);
        if (!name_is(name, len, "deepspeed") || !oom_pymodel_string_value(r->m, value, &v)) {
            oom_buf_free(&v);
            continue;
        }
        const char *slash = strrchr(r->path, '/');
        oom_buf p;
        oom_buf_init(&p);
        oom_buf_printf(&p, "%.*s%s%s", slash ? (int)(slash - r->path) : 0, r->path, slash ? "/" : "", v.data);
        cJSON *root = oom_json_read_file(p.data);
        {
            cJSON *zero = cJSON_GetObjectItemCaseSensitive(root, "zero_optimization");
            cJSON *stage = cJSON_GetObjectItemCaseSensitive(zero, "stage");
            if (cJSON_IsNumber(stage)) {
                r->out->in.zero_stage = (int)stage->valuedouble;
                cJSON *off = cJSON_GetObjectItemCaseSensitive(zero, "offload_optimizer");
                cJSON *dev = cJSON_GetObjectItemCaseSensitive(off, "device");
                r->out->in.offload_optimizer = cJSON_IsString(dev) && strcmp(dev->valuestring, "none") != 0;
                char what[160];
                snprintf(what, sizeof what, "ZeRO stage %d from %s%s", r->out->in.zero_stage, p.data,
                         r->out->in.offload_optimizer ? ", optimizer offloaded" : "");
                oom_est_note(r, OOM_IN_ZERO, value, what);
            }
        }
        cJSON_Delete(root);
        oom_buf_free(&p);
        oom_buf_free(&v);
    }
}

void oom_script_inputs_init(oom_script_inputs *s)
{
    memset(s, 0, sizeof(*s));
    s->in.training = true;
    s->in.micro_batch = OOM_TRAINER_DEFAULT_BATCH;
    s->in.seq_len = 512;
    s->in.precision = OOM_PREC_FP32;
    s->in.optimizer = OOM_OPT_ADAMW;
    s->in.num_gpus = 1;
    s->in.memory_efficient_attention = true;
    s->in.lm_head = false;
    s->grad_accum = 1;
    snprintf(s->batch_name, sizeof s->batch_name, "per_device_train_batch_size");
    snprintf(s->seq_name, sizeof s->seq_name, "max_length");
    oom_est_assume(s, OOM_IN_MODEL, "no model the knowledge base knows (use --model)");
    oom_est_assume(s, OOM_IN_BATCH, "batch 8 (the Trainer's default)");
    oom_est_assume(s, OOM_IN_SEQ, "sequence 512");
    oom_est_assume(s, OOM_IN_PRECISION, "fp32 (no mixed precision found)");
    oom_est_assume(s, OOM_IN_OPTIMIZER, "AdamW (the Trainer's default)");
    oom_est_assume(s, OOM_IN_CHECKPOINTING, "no gradient checkpointing");
    oom_est_assume(s, OOM_IN_ATTENTION, "SDPA attention (the default of recent Transformers)");
    oom_est_assume(s, OOM_IN_ZERO, "no ZeRO sharding");
    oom_est_assume(s, OOM_IN_GPUS, "1 GPU");
    oom_est_assume(s, OOM_IN_LORA, "all parameters trained");
    oom_est_assume(s, OOM_IN_IMAGE, "not an image model");
}

bool oom_script_inputs_is_image(const oom_script_inputs *s)
{
    return s->in.image_bytes > 0;
}

void oom_script_inputs_from_model(const char *path, oom_source *src, oom_pymodel *m, TSNode root,
                                  const oom_kb *kb, oom_script_inputs *out)
{
    oom_script_inputs_init(out);
    reader r = {path, src, m, out, kb, root};
    const oom_strlist *ids = oom_pymodel_pretrained_ids(m);
    for (size_t i = 0; i < ids->len && !out->model_known; i++) {
        char what[200];
        snprintf(what, sizeof what, "%s from_pretrained(\"%s\")", path, ids->items[i]);
        if (oom_script_inputs_use_model(out, kb, ids->items[i], what)) {
            out->from[OOM_IN_MODEL].assumed = false;
            /* point at the string that names the model */
            const char *at = strstr(src->text, ids->items[i]);
            if (at) {
                uint32_t row, col;
                oom_source_position(src, (size_t)(at - src->text) - (at > src->text ? 1 : 0), &row, &col);
                out->from[OOM_IN_MODEL].line = row;
                out->from[OOM_IN_MODEL].col = col;
            }
            out->in.lm_head = oom_pymodel_loads_lm_head(m);
        }
    }
    read_keywords(&r);
    oom_est_read_vision(&r);
    /* a script that only loads or evaluates a model is not a training job */
    out->in.training = oom_pymodel_file_trains(m);
    out->launcher_decides = oom_pymodel_file_calls(m, "Accelerator") ||
                            (oom_pymodel_file_calls(m, "initialize") && oom_pymodel_is_import_alias(m, "deepspeed", 9));
    if (oom_pymodel_file_calls(m, "gradient_checkpointing_enable")) {
        out->in.gradient_checkpointing = true;
        snprintf(out->from[OOM_IN_CHECKPOINTING].text, sizeof out->from[0].text,
                 "%s gradient_checkpointing_enable()", path);
        out->from[OOM_IN_CHECKPOINTING].assumed = false;
    }
    read_deepspeed(&r);
}

/* A script, or a notebook as the module of its code cells. */
static bool read_script(const char *path, oom_source *src, oom_buf *err)
{
    if (!oom_notebook_is_path(path)) {
        char why[256];
        if (oom_source_read(path, path, src, why, sizeof why) == OOM_SOURCE_OK)
            return true;
        oom_buf_printf(err, "%s: %s", path, why);
        return false;
    }
    oom_notebook_error nb_err;
    oom_source_status st = oom_source_read_notebook(path, path, src, &nb_err);
    if (st == OOM_SOURCE_OK)
        return true;
    if (st == OOM_SOURCE_NOTEBOOK_NOT_PYTHON)
        oom_buf_printf(err, "%s: the notebook's kernel is not Python", path);
    else if (nb_err.row)
        oom_buf_printf(err, "%s:%u:%u: %s", path, nb_err.row, nb_err.col, nb_err.message);
    else
        oom_buf_printf(err, "%s: %s", path, nb_err.message);
    return false;
}

bool oom_script_inputs_read(const char *path, const oom_kb *kb, oom_script_inputs *out, oom_buf *err)
{
    oom_script_inputs_init(out);
    oom_source src;
    if (!read_script(path, &src, err)) {
        oom_source_free(&src);
        return false;
    }
    TSParser *parser = ts_parser_new();
    TSTree *tree = oom_parse_python(parser, src.text, src.len);
    oom_pymodel *m = oom_pymodel_build(tree, src.text, src.len);
    oom_script_inputs_from_model(path, &src, m, ts_tree_root_node(tree), kb, out);
    oom_pymodel_free(m);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    oom_source_free(&src);
    return true;
}

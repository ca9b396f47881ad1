/* kb: loading the knowledge base and looking things up in it. */
#include "oomlint/kb.h"

#include <cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "oomlint/rules.h"
#include "oomlint/text.h"

static const oom_rule_file *embedded(const char *path)
{
    for (size_t i = 0; i < oom_embedded_rule_file_count; i++)
        if (strcmp(oom_embedded_rule_files[i].path, path) == 0)
            return &oom_embedded_rule_files[i];
    return NULL;
}

static cJSON *parse_embedded(const char *path, oom_buf *err)
{
    const oom_rule_file *f = embedded(path);
    if (!f) {
        oom_buf_printf(err, "rules/%s is missing from the build", path);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(f->data, f->len, &end, false);
    if (!root) {
        size_t line, col;
        char *text = oom_xstrndup(f->data, f->len);
        oom_text_line_col(text, end ? (size_t)(end - f->data) : 0, &line, &col);
        free(text);
        oom_buf_printf(err, "rules/%s:%zu:%zu: invalid JSON", path, line, col);
    }
    return root;
}

static char *str_dup_or(cJSON *obj, const char *key, const char *fallback)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsString(v))
        return oom_xstrdup(v->valuestring);
    return fallback ? oom_xstrdup(fallback) : NULL;
}

static bool flag(cJSON *obj, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

static void read_aliases(cJSON *obj, oom_strlist *out)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(obj, "aliases");
    cJSON *a;
    cJSON_ArrayForEach(a, list)
    {
        if (cJSON_IsString(a))
            oom_strlist_push(out, a->valuestring);
    }
}

static int load_gpus(oom_kb *kb, oom_buf *err)
{
    cJSON *root = parse_embedded("kb/gpus.json", err);
    if (!root)
        return -1;
    cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(root, "gpus"))
    {
        oom_gpu gpu;
        memset(&gpu, 0, sizeof gpu);
        gpu.id = str_dup_or(g, "id", "?");
        gpu.name = str_dup_or(g, "name", gpu.id);
        gpu.vendor = str_dup_or(g, "vendor", "");
        gpu.note = str_dup_or(g, "note", NULL);
        gpu.compute_capability = str_dup_or(g, "compute_capability", "n/a");
        read_aliases(g, &gpu.aliases);
        cJSON *mem = cJSON_GetObjectItemCaseSensitive(g, "memory_gib");
        gpu.memory_gib = cJSON_IsNumber(mem) ? mem->valuedouble : -1;
        cJSON *usable = cJSON_GetObjectItemCaseSensitive(g, "torch_total_memory_mib");
        gpu.usable_gib = cJSON_IsNumber(usable) ? usable->valuedouble / 1024.0 : 0;
        gpu.bf16 = flag(g, "bf16");
        gpu.fp16_tensor_cores = flag(g, "fp16_tensor_cores");
        gpu.tf32 = flag(g, "tf32");
        gpu.fp8 = flag(g, "fp8");
        gpu.flash_attention_2 = flag(g, "flash_attention_2");
        OOM_PUSH(kb->gpus, kb->gpu_count, kb->gpu_cap, gpu);
    }
    cJSON_Delete(root);
    return 0;
}

static long long int_field(cJSON *obj, const char *const *keys)
{
    for (size_t i = 0; keys[i]; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, keys[i]);
        if (cJSON_IsNumber(v))
            return (long long)v->valuedouble;
    }
    return -1;
}

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

bool oom_model_config_from_json(const void *object, oom_model_config *c)
{
    cJSON *o = (cJSON *)object;
    memset(c, 0, sizeof(*c));
    cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "model_type");
    if (cJSON_IsString(type))
        snprintf(c->model_type, sizeof c->model_type, "%s", type->valuestring);
    c->vocab_size = int_field(o, KEYS("vocab_size"));
    c->hidden_size = int_field(o, KEYS("hidden_size", "n_embd", "d_model", "dim"));
    c->num_hidden_layers = int_field(o, KEYS("num_hidden_layers", "n_layer", "num_layers", "n_layers",
                                             "encoder_layers"));
    c->num_attention_heads = int_field(o, KEYS("num_attention_heads", "n_head", "num_heads", "n_heads",
                                               "encoder_attention_heads"));
    c->num_key_value_heads = int_field(o, KEYS("num_key_value_heads", "num_kv_heads"));
    c->intermediate_size = int_field(o, KEYS("intermediate_size", "n_inner", "d_ff", "ffn_dim",
                                             "hidden_dim", "encoder_ffn_dim"));
    c->max_position_embeddings = int_field(o, KEYS("max_position_embeddings", "n_positions",
                                                   "max_target_positions", "n_ctx"));
    c->head_dim = int_field(o, KEYS("head_dim", "d_kv"));
    c->num_decoder_layers = int_field(o, KEYS("num_decoder_layers", "decoder_layers"));
    c->embedding_size = int_field(o, KEYS("embedding_size"));
    c->type_vocab_size = int_field(o, KEYS("type_vocab_size"));
    c->num_local_experts = int_field(o, KEYS("num_local_experts"));
    c->word_embed_proj_dim = int_field(o, KEYS("word_embed_proj_dim"));
    cJSON *tie = cJSON_GetObjectItemCaseSensitive(o, "tie_word_embeddings");
    c->tie_word_embeddings = cJSON_IsBool(tie) ? cJSON_IsTrue(tie) : -1;
    cJSON *ffn = cJSON_GetObjectItemCaseSensitive(o, "feed_forward_proj");
    c->gated_ffn = cJSON_IsString(ffn) && strncmp(ffn->valuestring, "gated", 5) == 0;
    cJSON *arch = cJSON_GetObjectItemCaseSensitive(o, "architectures");
    return c->model_type[0] != '\0' || cJSON_IsArray(arch);
}

static double number_or(cJSON *obj, const char *key, double fallback)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

static void copy_string(cJSON *obj, const char *key, char *out, size_t size)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    snprintf(out, size, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

/* The "vision" object of an image model; left zero for language models. */
static void read_vision(cJSON *model, oom_vision_profile *v)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(model, "vision");
    if (!cJSON_IsObject(o))
        return;
    copy_string(o, "family", v->family, sizeof v->family);
    copy_string(o, "head", v->head, sizeof v->head);
    copy_string(o, "backbone", v->backbone, sizeof v->backbone);
    v->resolution = (long long)number_or(o, "resolution", 0);
    v->patch_size = (long long)number_or(o, "patch_size", 0);
    v->saved_fp32 = number_or(o, "saved_bytes_per_image_fp32", 0);
    v->saved_autocast = number_or(o, "saved_bytes_per_image_autocast", 0);
    v->saved_frozen = number_or(o, "saved_bytes_per_image_frozen", 0);
    v->forward_peak = number_or(o, "forward_peak_bytes_per_image_no_grad", 0);
    v->head_params = (long long)number_or(o, "head_params", 0);
    v->head_in_features = (long long)number_or(o, "head_in_features", 0);
    v->classes = (long long)number_or(o, "num_classes", 0);
    v->classifier_params = (long long)number_or(o, "classifier_params", -1);
    v->buffer_bytes = (long long)number_or(o, "buffer_bytes", 0);
    cJSON *stem = cJSON_GetObjectItemCaseSensitive(o, "cifar_stem");
    v->stem_resolution = (long long)number_or(stem, "resolution", 0);
    v->stem_saved_fp32 = number_or(stem, "saved_bytes_per_image_fp32", 0);
    v->stem_saved_autocast = number_or(stem, "saved_bytes_per_image_autocast", 0);
    v->stem_forward_peak = number_or(stem, "forward_peak_bytes_per_image_no_grad", 0);
}

static void read_head_shape(cJSON *o, oom_head_shape *hs)
{
    copy_string(o, "base", hs->base, sizeof hs->base);
    copy_string(o, "lm_head", hs->lm_head, sizeof hs->lm_head);
    hs->lm_head_bias = flag(o, "lm_head_bias");
    cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "classification");
    cJSON *mods = cJSON_GetObjectItemCaseSensitive(c, "modules"), *mod;
    size_t n = 0;
    cJSON_ArrayForEach(mod, mods)
    {
        if (cJSON_IsString(mod) && n < sizeof hs->modules / sizeof hs->modules[0])
            snprintf(hs->modules[n++], sizeof hs->modules[0], "%s", mod->valuestring);
    }
    hs->per_h2 = (long long)number_or(c, "per_h2", 0);
    hs->per_h = (long long)number_or(c, "per_h", 0);
    hs->per_h_label = (long long)number_or(c, "per_h_label", 0);
    hs->per_label = (long long)number_or(c, "per_label", 0);
}

/* models.json "heads": model_type -> its heads ("_doc" explains the fields). */
static void load_heads(oom_kb *kb, cJSON *root)
{
    cJSON *h;
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(root, "heads"))
    {
        if (!cJSON_IsObject(h) || !h->string)
            continue;
        oom_head_shape hs;
        memset(&hs, 0, sizeof hs);
        snprintf(hs.model_type, sizeof hs.model_type, "%s", h->string);
        read_head_shape(h, &hs);
        OOM_PUSH(kb->heads, kb->head_count, kb->head_cap, hs);
    }
}

static int load_models(oom_kb *kb, oom_buf *err)
{
    cJSON *root = parse_embedded("kb/models.json", err);
    if (!root)
        return -1;
    cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(root, "models"))
    {
        oom_model model;
        memset(&model, 0, sizeof model);
        model.id = str_dup_or(m, "id", "?");
        read_aliases(m, &model.aliases);
        oom_model_config_from_json(m, &model.config);
        model.position_limit = str_dup_or(m, "position_limit", "hard");
        copy_string(m, "task", model.task, sizeof model.task);
        copy_string(m, "family", model.family, sizeof model.family);
        cJSON *p = cJSON_GetObjectItemCaseSensitive(m, "params");
        model.params = cJSON_IsNumber(p) ? (long long)p->valuedouble : -1;
        read_vision(m, &model.vision);
        OOM_PUSH(kb->models, kb->model_count, kb->model_cap, model);
    }
    load_heads(kb, root);
    cJSON_Delete(root);
    return 0;
}

int oom_kb_load_embedded(oom_kb *kb, oom_buf *err)
{
    memset(kb, 0, sizeof(*kb));
    if (load_gpus(kb, err) != 0 || load_models(kb, err) != 0)
        return -1;
    return 0;
}

const oom_head_shape *oom_kb_find_heads(const oom_kb *kb, const char *model_type)
{
    for (size_t i = 0; i < kb->head_count; i++)
        if (strcmp(kb->heads[i].model_type, model_type) == 0)
            return &kb->heads[i];
    return NULL;
}

long long oom_head_classifier_params(const oom_head_shape *hs, long long h, long long labels)
{
    return hs->per_h2 * h * h + hs->per_h * h + hs->per_h_label * h * labels + hs->per_label * labels;
}

void oom_kb_free(oom_kb *kb)
{
    for (size_t i = 0; i < kb->gpu_count; i++) {
        oom_gpu *g = &kb->gpus[i];
        free(g->id);
        free(g->name);
        free(g->vendor);
        free(g->note);
        free(g->compute_capability);
        oom_strlist_free(&g->aliases);
    }
    for (size_t i = 0; i < kb->model_count; i++) {
        free(kb->models[i].id);
        free(kb->models[i].position_limit);
        oom_strlist_free(&kb->models[i].aliases);
    }
    free(kb->gpus);
    free(kb->models);
    free(kb->heads);
    memset(kb, 0, sizeof(*kb));
}

/* "Tesla V100_SXM2 32GB" -> "tesla-v100-sxm2-32gb" */
static void normalise(const char *in, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = in; *p && n + 1 < size; p++) {
        char c = (char)tolower((unsigned char)*p);
        if (c == '_' || c == ' ' || c == '.')
            c = '-';
        if (c == '-' && (n == 0 || out[n - 1] == '-'))
            continue;
        out[n++] = c;
    }
    while (n > 0 && out[n - 1] == '-')
        n--;
    out[n] = '\0';
}

static bool name_matches(const char *canonical, const char *wanted_normalised)
{
    char buf[128];
    normalise(canonical, buf, sizeof buf);
    return strcmp(buf, wanted_normalised) == 0;
}

const oom_gpu *oom_kb_find_gpu(const oom_kb *kb, const char *name)
{
    char want[128];
    normalise(name, want, sizeof want);
    for (size_t i = 0; i < kb->gpu_count; i++) {
        const oom_gpu *g = &kb->gpus[i];
        if (name_matches(g->id, want))
            return g;
        for (size_t a = 0; a < g->aliases.len; a++)
            if (name_matches(g->aliases.items[a], want))
                return g;
    }
    return NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 999;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = prev + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[lb];
}

size_t oom_kb_closest_gpus(const oom_kb *kb, const char *name, const char **out, size_t max)
{
    char want[128];
    normalise(name, want, sizeof want);
    size_t best_d[8];
    size_t n = 0;
    if (max > 8)
        max = 8;
    for (size_t i = 0; i < kb->gpu_count; i++) {
        const oom_gpu *g = &kb->gpus[i];
        size_t d = edit_distance(want, g->id);
        for (size_t a = 0; a < g->aliases.len; a++) {
            size_t da = edit_distance(want, g->aliases.items[a]);
            d = da < d ? da : d;
        }
        /* insertion sort into the best `max` */
        size_t pos = n;
        while (pos > 0 && best_d[pos - 1] > d)
            pos--;
        if (pos >= max)
            continue;
        if (n < max)
            n++;
        for (size_t k = n - 1; k > pos; k--) {
            best_d[k] = best_d[k - 1];
            out[k] = out[k - 1];
        }
        best_d[pos] = d;
        out[pos] = g->id;
    }
    return n;
}

const oom_model *oom_kb_find_model(const oom_kb *kb, const char *id)
{
    for (size_t i = 0; i < kb->model_count; i++) {
        const oom_model *m = &kb->models[i];
        if (strcasecmp(m->id, id) == 0)
            return m;
        for (size_t a = 0; a < m->aliases.len; a++)
            if (strcasecmp(m->aliases.items[a], id) == 0)
                return m;
    }
    return NULL;
}

double oom_gpu_capacity_bytes(const oom_gpu *g)
{
    if (!g || g->memory_gib <= 0)
        return 0;
    return (g->usable_gib > 0 ? g->usable_gib : g->memory_gib) * 1024.0 * 1024.0 * 1024.0;
}

long long oom_kb_model_params(const oom_model *m)
{
    return m->params >= 0 ? m->params : oom_model_param_count(&m->config);
}

size_t oom_kb_smaller_in_family(const oom_kb *kb, const oom_model *m, const oom_model **out, size_t max)
{
    long long size = oom_kb_model_params(m);
    size_t n = 0;
    if (!m->family[0] || size <= 0)
        return 0;
    /* the largest size below the last one taken, each size once (Meta-Llama-3-8B
     * and Llama-3.1-8B have one count: the first in the file stands for both) */
    for (long long below = size; n < max;) {
        const oom_model *best = NULL;
        for (size_t i = 0; i < kb->model_count; i++) {
            const oom_model *c = &kb->models[i];
            long long p = oom_kb_model_params(c);
            if (strcmp(c->family, m->family) != 0 || p <= 0 || p >= below)
                continue;
            if (!best || p > oom_kb_model_params(best))
                best = c;
        }
        if (!best)
            break;
        out[n++] = best;
        below = oom_kb_model_params(best);
    }
    return n;
}

/* project/deepspeed: TrainingArguments against the DeepSpeed config it loads.
 * The Trainer refuses to start when they disagree on precision, micro-batch
 * size or gradient accumulation; this finds it before the job is queued. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/jsonfile.h"
#include "oomlint/lang.h"
#include "oomlint/project.h"
#include "oomlint/source.h"
#include "oomlint/yamlmodel.h"

/* A TrainingArguments value and where it was set (or that it is the default). */
typedef struct {
    long long value; /* -1: unknown (do not compare) */
    char where[256];
    char origin[200]; /* "PATH:ROW" of the TrainingArguments that set it, for the related location */
} hf_value;

typedef struct {
    char *ds_path;
    hf_value micro_batch, grad_accum, fp16, bf16;
} ds_link;

typedef struct {
    ds_link *items;
    size_t len, cap;
} link_list;

static bool is_flag(const char *name)
{
    return strcmp(name, "fp16") == 0 || strcmp(name, "bf16") == 0;
}

static void set_default(hf_value *v, long long value, const char *origin, const char *name)
{
    v->value = value;
    snprintf(v->origin, sizeof v->origin, "%s", origin);
    if (is_flag(name))
        snprintf(v->where, sizeof v->where, "%s leaves `%s` at its default, %s", origin, name,
                 value ? "True" : "False");
    else
        snprintf(v->where, sizeof v->where, "%s leaves `%s` at its default, %lld", origin, name, value);
}

static void set_value(hf_value *v, long long value, const char *origin, const char *name)
{
    v->value = value;
    snprintf(v->origin, sizeof v->origin, "%s", origin);
    if (is_flag(name))
        snprintf(v->where, sizeof v->where, "%s sets `%s=%s`", origin, name, value ? "True" : "False");
    else
        snprintf(v->where, sizeof v->where, "%s sets `%s=%lld`", origin, name, value);
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? oom_xstrndup(path, (size_t)(slash - path)) : oom_xstrdup(".");
}

/* "ds.json" next to the script if it is there, else as given (relative to the
 * working directory). */
static char *resolve_beside(const char *script, const char *rel)
{
    if (rel[0] == '/')
        return oom_xstrdup(rel);
    char *dir = dir_of(script);
    oom_buf p;
    oom_buf_init(&p);
    oom_buf_printf(&p, "%s/%s", dir, rel);
    free(dir);
    if (oom_source_exists(p.data)) /* noted: a cached result depends on it */
        return oom_buf_take(&p);
    oom_buf_free(&p);
    return oom_xstrdup(rel);
}

static char *node_string(const char *src, TSNode n)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    if (b - a >= 2 && (src[a] == '"' || src[a] == '\''))
        return oom_xstrndup(src + a + 1, b - a - 2);
    return oom_xstrndup(src + a, b - a);
}

/* ---- the Python side ------------------------------------------------------------ */

static bool read_args_yaml(const char *args_path, bool defaults, ds_link *l);

/* `TrainingArguments(**cfg)` where cfg is `yaml.safe_load(...)`: the YAML file
 * the script opens (`open("train.yaml")`), when it opens exactly one. */
typedef struct {
    char *yaml_path; /* resolved beside the script; NULL when none or several */
} yaml_loads;

static bool splat_of_yaml(oom_pymodel *m, TSNode splat)
{
    static const char *const loaders[] = {"yaml.safe_load", "yaml.load", "yaml.full_load", "yaml.unsafe_load"};
    TSNode expr = ts_node_named_child(splat, 0);
    oom_buf scratch;
    oom_buf_init(&scratch);
    bool yes = !ts_node_is_null(expr) && oom_pymodel_built_by(m, expr, loaders, 4, &scratch);
    oom_buf_free(&scratch);
    return yes;
}

static void read_python_keyword(oom_pymodel *m, const char *src, TSNode kw, ds_link *l,
                                const char *origin)
{
    TSNode name = oom_child(kw, "name", 4);
    TSNode value = oom_child(kw, "value", 5);
    char *key = node_string(src, name);
    long long n;
    if (strcmp(key, "per_device_train_batch_size") == 0 && oom_pymodel_int_value(m, value, &n))
        set_value(&l->micro_batch, n, origin, key);
    else if (strcmp(key, "gradient_accumulation_steps") == 0 && oom_pymodel_int_value(m, value, &n))
        set_value(&l->grad_accum, n, origin, key);
    else if ((strcmp(key, "fp16") == 0 || strcmp(key, "bf16") == 0)) {
        hf_value *v = key[0] == 'f' ? &l->fp16 : &l->bf16;
        const char *t = ts_node_type(value);
        if (strcmp(t, "true") == 0 || strcmp(t, "false") == 0)
            set_value(v, strcmp(t, "true") == 0, origin, key);
        else
            v->value = -1;
    }
    free(key);
}

static void links_from_call(oom_pymodel *m, oom_source *src, const char *script, TSNode args,
                            const yaml_loads *loads, link_list *out)
{
    ds_link l;
    memset(&l, 0, sizeof l);
    uint32_t count = ts_node_named_child_count(args);
    uint32_t row, col;
    oom_source_position(src, ts_node_start_byte(args), &row, &col);
    char origin[200];
    oom_source_describe_line(src, script, row, origin, sizeof origin);
    set_default(&l.micro_batch, 8, origin, "per_device_train_batch_size");
    set_default(&l.grad_accum, 1, origin, "gradient_accumulation_steps");
    set_default(&l.fp16, 0, origin, "fp16");
    set_default(&l.bf16, 0, origin, "bf16");
    for (uint32_t i = 0; i < count; i++) {
        TSNode a = ts_node_named_child(args, i);
        const char *t = ts_node_type(a);
        if (strcmp(t, "dictionary_splat") == 0 && loads->yaml_path && splat_of_yaml(m, a)) {
            /* **cfg from the YAML file the script loads: its values, and the
             * keywords around it (a keyword and **cfg cannot both set one
             * name: Python refuses the call) */
            if (!read_args_yaml(loads->yaml_path, false, &l)) {
                free(l.ds_path);
                return; /* not there: the values are not known */
            }
            continue;
        }
        if (strcmp(t, "dictionary_splat") == 0 || strcmp(t, "list_splat") == 0) {
            free(l.ds_path);
            return; /* **kwargs may set anything: compare nothing */
        }
        if (strcmp(t, "keyword_argument") != 0)
            continue;
        TSNode name = oom_child(a, "name", 4);
        TSNode value = oom_child(a, "value", 5);
        char *key = node_string(src->text, name);
        oom_buf s;
        oom_buf_init(&s);
        if (strcmp(key, "deepspeed") == 0 && oom_pymodel_string_value(m, value, &s) && s.len)
            l.ds_path = resolve_beside(script, s.data);
        else
            read_python_keyword(m, src->text, a, &l, origin);
        oom_buf_free(&s);
        free(key);
    }
    if (l.ds_path)
        OOM_PUSH(out->items, out->len, out->cap, l);
}

/* ---- a TrainingArguments JSON (HfArgumentParser.parse_json_file) ------------------ */

static void links_from_args_json(const char *args_path, link_list *out)
{
    cJSON *root = oom_json_read_file(args_path);
    cJSON *ds = cJSON_GetObjectItemCaseSensitive(root, "deepspeed");
    if (cJSON_IsString(ds)) {
        ds_link l;
        memset(&l, 0, sizeof l);
        l.ds_path = resolve_beside(args_path, ds->valuestring);
        set_default(&l.micro_batch, 8, args_path, "per_device_train_batch_size");
        set_default(&l.grad_accum, 1, args_path, "gradient_accumulation_steps");
        set_default(&l.fp16, 0, args_path, "fp16");
        set_default(&l.bf16, 0, args_path, "bf16");
        static const char *const keys[] = {"per_device_train_batch_size", "gradient_accumulation_steps",
                                           "fp16", "bf16"};
        hf_value *slots[] = {&l.micro_batch, &l.grad_accum, &l.fp16, &l.bf16};
        for (size_t k = 0; k < 4; k++) {
            cJSON *v = cJSON_GetObjectItemCaseSensitive(root, keys[k]);
            if (cJSON_IsNumber(v))
                set_value(slots[k], (long long)v->valuedouble, args_path, keys[k]);
            else if (cJSON_IsBool(v))
                set_value(slots[k], cJSON_IsTrue(v), args_path, keys[k]);
        }
        OOM_PUSH(out->items, out->len, out->cap, l);
    }
    cJSON_Delete(root);
}

/* ---- a TrainingArguments YAML (HfArgumentParser.parse_yaml_file) ------------------ */

/* The Trainer's values a YAML config sets, read as PyYAML reads them. A
 * TrainingArguments recipe (TRL, alignment-handbook, LLaMA-Factory) leaves
 * the rest at TrainingArguments' defaults; axolotl spells the micro-batch
 * micro_batch_size and has defaults of its own, so what it does not set is
 * not compared, nor is its `bf16: auto`. */
/* `defaults`: what the file does not set is TrainingArguments' default (a
 * whole args file), else left as it is (the file is one part of a call). */
static void yaml_values(const char *path, const oom_yamlmodel *m, bool axolotl, bool defaults, ds_link *l)
{
    TSNode first = {{0}, NULL, NULL};
    oom_buf v;
    oom_buf_init(&v);
    if (oom_yamlmodel_lookup(m, first, "deepspeed", &v) == OOM_YAML_VALUE_STRING && v.len) {
        free(l->ds_path);
        l->ds_path = resolve_beside(path, v.data);
    }
    oom_buf_free(&v);
    const char *batch_key = axolotl ? "micro_batch_size" : "per_device_train_batch_size";
    if (axolotl && defaults) {
        l->micro_batch.value = l->grad_accum.value = l->fp16.value = l->bf16.value = -1;
    } else if (defaults) {
        set_default(&l->micro_batch, 8, path, batch_key);
        set_default(&l->grad_accum, 1, path, "gradient_accumulation_steps");
        set_default(&l->fp16, 0, path, "fp16");
        set_default(&l->bf16, 0, path, "bf16");
    }
    const char *const counts[] = {batch_key, "gradient_accumulation_steps"};
    hf_value *count_slots[] = {&l->micro_batch, &l->grad_accum};
    long long n;
    for (size_t k = 0; k < 2; k++)
        if (oom_yamlmodel_lookup_int(m, first, counts[k], &n))
            set_value(count_slots[k], n, path, counts[k]);
    static const char *const flags[] = {"fp16", "bf16"};
    hf_value *flag_slots[] = {&l->fp16, &l->bf16};
    for (size_t k = 0; k < 2; k++) {
        int on = oom_yamlmodel_lookup_bool(m, first, flags[k]);
        if (on >= 0)
            set_value(flag_slots[k], on, path, flags[k]);
    }
}

/* The link of a YAML config that names a DeepSpeed config itself. */
static void link_from_yaml(const char *path, const oom_yamlmodel *m, bool axolotl, link_list *out)
{
    ds_link l;
    memset(&l, 0, sizeof l);
    yaml_values(path, m, axolotl, true, &l);
    if (l.ds_path)
        OOM_PUSH(out->items, out->len, out->cap, l);
}

/* A YAML file of TrainingArguments read from disk into a link's values
 * (and its DeepSpeed path, when it names one); false when unreadable. */
static bool read_args_yaml(const char *args_path, bool defaults, ds_link *l)
{
    oom_yaml_file file;
    char why[128];
    bool read = oom_yaml_file_read(args_path, &file, why, sizeof why) && file.model;
    if (read)
        yaml_values(args_path, file.model, false, defaults, l);
    oom_yaml_file_free(&file);
    return read;
}

/* parse_yaml_file("args.yaml"): TrainingArguments in YAML, whatever else
 * the file holds. */
static void links_from_args_yaml(const char *args_path, link_list *out)
{
    ds_link l;
    memset(&l, 0, sizeof l);
    if (read_args_yaml(args_path, true, &l) && l.ds_path)
        OOM_PUSH(out->items, out->len, out->cap, l);
    else
        free(l.ds_path);
}

static bool is_word_char(char c)
{
    return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Can `deepspeed` at `at` be the name of a keyword argument? The next thing
 * after blanks must be `=` (not `==`), or a comment or line continuation
 * that a keyword's `=` may follow inside parentheses. */
static bool keyword_follows(const char *text, size_t len, size_t at)
{
    size_t i = at + strlen("deepspeed");
    if (at > 0 && is_word_char(text[at - 1]))
        return false;
    if (i < len && is_word_char(text[i]))
        return false;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r' || text[i] == '\f'))
        i++;
    if (i < len && (text[i] == '#' || text[i] == '\\'))
        return true;
    return i < len && text[i] == '=' && (i + 1 >= len || text[i + 1] != '=');
}

bool oom_project_may_link_deepspeed(const char *text, size_t len)
{
    if (memmem(text, len, "parse_json_file", strlen("parse_json_file")) ||
        memmem(text, len, "parse_yaml_file", strlen("parse_yaml_file")) || memmem(text, len, "yaml.", 5))
        return true;
    const char *p = text, *end = text + len;
    while ((p = memmem(p, (size_t)(end - p), "deepspeed", strlen("deepspeed")))) {
        if (keyword_follows(text, len, (size_t)(p - text)))
            return true;
        p += strlen("deepspeed");
    }
    return false;
}

/* The links of one script, from its text, model and tree (the worker that
 * linted it holds them). */
/* A walk over one script's calls, with what it needs at each. */
typedef struct {
    const char *script;
    oom_source *src;
    oom_pymodel *m;
    int opened;        /* find_yaml_loads: open("x.yaml") calls seen */
    yaml_loads *loads;
    link_list *out;    /* collect_links: the links found */
} call_walk;

static bool visit_open(void *ctx, TSNode n)
{
    call_walk *w = ctx;
    if (strcmp(ts_node_type(n), "call") != 0)
        return true;
    TSNode fn = oom_child(n, "function", 8);
    TSNode args = oom_child(n, "arguments", 9);
    uint32_t a = ts_node_start_byte(fn), b = ts_node_end_byte(fn);
    if (!ts_node_is_null(args) && b - a == 4 && memcmp(w->src->text + a, "open", 4) == 0 &&
        ts_node_named_child_count(args) > 0) {
        oom_buf s;
        oom_buf_init(&s);
        if (oom_pymodel_string_value(w->m, ts_node_named_child(args, 0), &s) && s.len &&
            oom_lang_for_path(s.data) == OOM_LANG_YAML && w->opened++ == 0)
            w->loads->yaml_path = resolve_beside(w->script, s.data);
        oom_buf_free(&s);
    }
    return true;
}

/* The one YAML file the script opens with a literal path, if one. */
static void find_yaml_loads(const char *script, oom_source *src, oom_pymodel *m, TSNode root, yaml_loads *out)
{
    call_walk w = {script, src, m, 0, out, NULL};
    oom_pymodel_walk(m, root, visit_open, &w);
    if (w.opened > 1) { /* which one feeds which call is not known */
        free(out->yaml_path);
        out->yaml_path = NULL;
    }
}

static bool visit_link_call(void *ctx, TSNode n)
{
    call_walk *w = ctx;
    if (strcmp(ts_node_type(n), "call") != 0)
        return true;
    TSNode fn = oom_child(n, "function", 8);
    TSNode args = oom_child(n, "arguments", 9);
    if (ts_node_is_null(args) || strcmp(ts_node_type(args), "argument_list") != 0)
        return true;
    char *callee = ts_node_is_null(fn) ? oom_xstrdup("") : node_string(w->src->text, fn);
    bool json = oom_str_ends_with(callee, "parse_json_file");
    if ((json || oom_str_ends_with(callee, "parse_yaml_file")) && ts_node_named_child_count(args) > 0) {
        oom_buf s;
        oom_buf_init(&s);
        if (oom_pymodel_string_value(w->m, ts_node_named_child(args, 0), &s) && s.len) {
            char *p = resolve_beside(w->script, s.data);
            if (json)
                links_from_args_json(p, w->out);
            else
                links_from_args_yaml(p, w->out);
            free(p);
        }
        oom_buf_free(&s);
    } else {
        links_from_call(w->m, w->src, w->script, args, w->loads, w->out);
    }
    free(callee);
    return true;
}

/* The links of one script, from its text, model and tree (the worker that
 * linted it holds them). */
static void collect_links(const char *script, oom_source *src, oom_pymodel *m, TSNode root, link_list *out)
{
    yaml_loads loads = {NULL};
    if (memmem(src->text, src->len, "yaml", 4))
        find_yaml_loads(script, src, m, root, &loads);
    call_walk w = {script, src, m, 0, &loads, out};
    oom_pymodel_walk(m, root, visit_link_call, &w);
    free(loads.yaml_path);
}

struct oom_ds_links {
    link_list list;
};

oom_ds_links *oom_project_deepspeed_links_take(const char *script, oom_source *src, oom_pymodel *m,
                                                TSNode root)
{
    if (!oom_project_may_link_deepspeed(src->text, src->len))
        return NULL;
    oom_ds_links *l = oom_xcalloc(1, sizeof *l);
    collect_links(script, src, m, root, &l->list);
    if (l->list.len == 0) {
        oom_project_deepspeed_links_free(l);
        return NULL;
    }
    return l;
}

oom_ds_links *oom_project_deepspeed_links_take_yaml(const char *path, const oom_yamlmodel *m)
{
    unsigned kinds = oom_yamlmodel_kinds(m);
    if (!(kinds & (OOM_YAML_AXOLOTL | OOM_YAML_TRAINING_ARGS | OOM_YAML_LLAMA_FACTORY)))
        return NULL;
    oom_ds_links *l = oom_xcalloc(1, sizeof *l);
    link_from_yaml(path, m, (kinds & OOM_YAML_AXOLOTL) != 0, &l->list);
    if (l->list.len == 0) {
        oom_project_deepspeed_links_free(l);
        return NULL;
    }
    return l;
}

/* A field added to hf_value must be encoded here too, or a cached file's
 * links would lose it: the build stops until the mirror is updated. */
typedef struct {
    long long value;
    char where[256];
    char origin[200];
} hf_value_as_kept;
_Static_assert(sizeof(hf_value) == sizeof(hf_value_as_kept), "hf_value changed: encode the new field below");

static void encode_value(const hf_value *v, oom_buf *out)
{
    oom_buf_put_u64(out, (uint64_t)v->value);
    oom_buf_put_str(out, v->where);
    oom_buf_put_str(out, v->origin);
}

static void decode_text(oom_reader *r, char *into, size_t size)
{
    char *s = oom_reader_str(r);
    snprintf(into, size, "%s", s ? s : "");
    free(s);
}

static void decode_value(oom_reader *r, hf_value *v)
{
    v->value = (long long)oom_reader_u64(r);
    decode_text(r, v->where, sizeof v->where);
    decode_text(r, v->origin, sizeof v->origin);
}

void oom_project_deepspeed_links_encode(const oom_ds_links *l, oom_buf *out)
{
    oom_buf_put_u32(out, l ? (uint32_t)l->list.len : 0);
    for (size_t i = 0; l && i < l->list.len; i++) {
        const ds_link *k = &l->list.items[i];
        oom_buf_put_str(out, k->ds_path);
        encode_value(&k->micro_batch, out);
        encode_value(&k->grad_accum, out);
        encode_value(&k->fp16, out);
        encode_value(&k->bf16, out);
    }
}

oom_ds_links *oom_project_deepspeed_links_decode(oom_reader *r)
{
    size_t n = oom_reader_count(r, 4 + 4 * 16);
    if (n == 0)
        return NULL;
    oom_ds_links *l = oom_xcalloc(1, sizeof *l);
    for (size_t i = 0; i < n && r->ok; i++) {
        ds_link k;
        memset(&k, 0, sizeof k);
        k.ds_path = oom_reader_str(r);
        decode_value(r, &k.micro_batch);
        decode_value(r, &k.grad_accum);
        decode_value(r, &k.fp16);
        decode_value(r, &k.bf16);
        if (!k.ds_path)
            r->ok = false;
        if (!r->ok) {
            free(k.ds_path);
            break;
        }
        OOM_PUSH(l->list.items, l->list.len, l->list.cap, k);
    }
    if (!r->ok) {
        oom_project_deepspeed_links_free(l);
        return NULL;
    }
    return l;
}

void oom_project_deepspeed_links_free(oom_ds_links *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->list.len; i++)
        free(l->list.items[i].ds_path);
    free(l->list.items);
    free(l);
}

/* ---- the DeepSpeed side -------------------------------------------------------------- */

static TSNode find_pair(const char *src, TSNode object, const char *key)
{
    uint32_t count = ts_node_named_child_count(object);
    for (uint32_t i = 0; i < count; i++) {
        TSNode pair = ts_node_named_child(object, i);
        if (strcmp(ts_node_type(pair), "pair") != 0)
            continue;
        char *k = node_string(src, oom_child(pair, "key", 3));
        bool hit = strcmp(k, key) == 0;
        free(k);
        if (hit)
            return pair;
    }
    TSNode none = {{0}, NULL, NULL};
    return none;
}

/* The value of a key: a number, or true/false; -1 for "auto" and anything else. */
static long long json_scalar(const char *src, TSNode value)
{
    const char *t = ts_node_type(value);
    if (strcmp(t, "true") == 0)
        return 1;
    if (strcmp(t, "false") == 0)
        return 0;
    if (strcmp(t, "number") == 0) {
        char *s = node_string(src, value);
        char *end;
        long long v = strtoll(s, &end, 10);
        bool ok = *end == '\0';
        free(s);
        return ok ? v : -1;
    }
    return -1;
}

/* The TrainingArguments line as the finding's related location: one
 * cause, two places. A notebook's cell line ("PATH:cell C:ROW") is left out. */
static void add_origin(oom_diag *d, const hf_value *hf)
{
    const char *colon = strrchr(hf->origin, ':');
    if (!colon || colon == hf->origin || strstr(hf->origin, ":cell "))
        return;
    char *end;
    unsigned long row = strtoul(colon + 1, &end, 10);
    if (*end || row == 0 || row > UINT32_MAX)
        return;
    char *path = oom_xstrndup(hf->origin, (size_t)(colon - hf->origin));
    oom_diag_add_related(d, path, (uint32_t)row, "the TrainingArguments it disagrees with");
    free(path);
}

static void report(const oom_rule *rule, oom_source *ds, TSNode value, const char *key, long long ds_v,
                   const hf_value *hf, oom_diag_list *out)
{
    oom_buf msg;
    oom_buf_init(&msg);
    if (strstr(key, "enabled"))
        oom_buf_printf(&msg, "`%s` is %s here, but %s", key, ds_v ? "true" : "false", hf->where);
    else
        oom_buf_printf(&msg, "`%s` is %lld here, but %s", key, ds_v, hf->where);
    char *text = oom_xstrdup(rule->message);
    char *at = strstr(text, "{{detail}}");
    oom_buf full;
    oom_buf_init(&full);
    if (at) {
        oom_buf_append(&full, text, (size_t)(at - text));
        oom_buf_puts(&full, msg.data);
        oom_buf_puts(&full, at + strlen("{{detail}}"));
    } else {
        oom_buf_puts(&full, msg.data);
    }
    oom_diag *d = oom_diag_list_add(out, rule->code, rule->name, rule->severity, ds->path, full.data,
                                    rule->help, rule->url);
    d->start_byte = ts_node_start_byte(value);
    oom_source_position(ds, ts_node_start_byte(value), &d->start_row, &d->start_col);
    oom_source_position(ds, ts_node_end_byte(value), &d->end_row, &d->end_col);
    const char *line;
    size_t len;
    if (oom_source_line(ds, d->start_row, &line, &len))
        d->context = oom_xstrndup(line, len);
    add_origin(d, hf);
    free(text);
    oom_buf_free(&full);
    oom_buf_free(&msg);
}

static void compare(const oom_rule *rule, oom_source *ds, TSNode root_obj, const ds_link *l,
                    oom_diag_list *out)
{
    static const char *const scalar_keys[] = {"train_micro_batch_size_per_gpu", "gradient_accumulation_steps"};
    const hf_value *scalar_hf[] = {&l->micro_batch, &l->grad_accum};
    for (size_t k = 0; k < 2; k++) {
        TSNode pair = find_pair(ds->text, root_obj, scalar_keys[k]);
        if (ts_node_is_null(pair))
            continue;
        TSNode value = oom_child(pair, "value", 5);
        long long v = json_scalar(ds->text, value);
        if (v >= 0 && scalar_hf[k]->value >= 0 && v != scalar_hf[k]->value)
            report(rule, ds, value, scalar_keys[k], v, scalar_hf[k], out);
    }
    static const char *const blocks[] = {"fp16", "bf16"};
    const hf_value *block_hf[] = {&l->fp16, &l->bf16};
    for (size_t k = 0; k < 2; k++) {
        TSNode pair = find_pair(ds->text, root_obj, blocks[k]);
        if (ts_node_is_null(pair))
            continue;
        TSNode obj = oom_child(pair, "value", 5);
        if (strcmp(ts_node_type(obj), "object") != 0)
            continue;
        TSNode enabled = find_pair(ds->text, obj, "enabled");
        if (ts_node_is_null(enabled))
            continue;
        TSNode value = oom_child(enabled, "value", 5);
        long long v = json_scalar(ds->text, value);
        char key[32];
        snprintf(key, sizeof key, "%s.enabled", blocks[k]);
        if (v >= 0 && block_hf[k]->value >= 0 && v != block_hf[k]->value)
            report(rule, ds, value, key, v, block_hf[k], out);
    }
}

static void check_link(const oom_rule *rule, const oom_overlay *overlay, const ds_link *l, oom_diag_list *out)
{
    oom_source ds;
    char why[128];
    if (oom_source_read_overlaid(overlay, l->ds_path, l->ds_path, &ds, why, sizeof why) != OOM_SOURCE_OK) {
        oom_source_free(&ds); /* not there yet: it may be written when the job runs */
        return;
    }
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_JSON));
    TSTree *tree = ts_parser_parse_string(parser, NULL, ds.text, (uint32_t)ds.len);
    TSNode obj = ts_node_named_child(ts_tree_root_node(tree), 0);
    if (!ts_node_is_null(obj) && strcmp(ts_node_type(obj), "object") == 0)
        compare(rule, &ds, obj, l, out);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    oom_source_free(&ds);
}

void oom_project_check_deepspeed(const oom_rule_list *rules, bool enabled, const oom_overlay *overlay,
                                 const oom_file_facts *facts, size_t count, oom_diag_list *out)
{
    const oom_rule *rule = oom_rules_find(rules, "OOM405");
    if (!rule || !enabled)
        return;
    /* every link of the project, in file order */
    const ds_link **links = NULL;
    size_t len = 0, cap = 0;
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; facts[i].deepspeed && k < facts[i].deepspeed->list.len; k++)
            OOM_PUSH(links, len, cap, &facts[i].deepspeed->list.items[k]);
    for (size_t i = 0; i < len; i++) {
        bool seen = false; /* the same file and values once */
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(links[j]->ds_path, links[i]->ds_path) == 0 &&
                   memcmp(&links[j]->micro_batch, &links[i]->micro_batch, sizeof(hf_value) * 4) == 0;
        if (!seen)
            check_link(rule, overlay, links[i], out);
    }
    free(links);
}

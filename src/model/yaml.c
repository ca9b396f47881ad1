/* model/yaml: recognising YAML training configs by their keys, and reading
 * their values as PyYAML would, without ever expanding an alias.
 *
 * The tree (tree-sitter-yaml): stream > document > block_node/flow_node,
 * whose children are an optional anchor and tag, then the content: a
 * block_mapping of block_mapping_pair (key:, value:), a flow_mapping of
 * flow_pair, a sequence, a scalar or an alias. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/lang.h"
#include "oomlint/yamlmodel.h"

/* An alias points at an anchored node, which cannot itself be an alias; the
 * bound is there for merge chains (`<<: *a` where a merges *b ...). */
#define YAML_MAX_MERGE_DEPTH 4
/* Mappings merged into one mapping, all levels together: enough for the
 * `<<: [*base, *gpu, *data]` of real configs, and a bound on hostile ones. */
#define YAML_MAX_MERGED 32
/* Components of a dotted key path: "model.init_args.model_name_or_path". */
#define YAML_MAX_PATH 6

typedef struct {
    uint32_t name_start, name_len; /* the name, in the source */
    TSNode node;                   /* the block_node/flow_node carrying it */
} yaml_anchor;

typedef struct {
    TSNode mapping; /* the document's top-level mapping */
    uint32_t start, end; /* the document's bytes */
    TSNode merged[YAML_MAX_MERGED]; /* mappings merged into it (`<<: *base`) */
    size_t merged_count;
} yaml_document;

struct oom_yamlmodel {
    const char *src;
    size_t len;
    yaml_anchor *anchors;
    size_t anchor_count, anchor_cap;
    yaml_document *docs;
    size_t doc_count, doc_cap;
    unsigned kinds;
    char *model_id;
};

static bool is_type(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static bool is_pair(TSNode n)
{
    return is_type(n, "block_mapping_pair") || is_type(n, "flow_pair");
}

static bool is_mapping(TSNode n)
{
    return is_type(n, "block_mapping") || is_type(n, "flow_mapping");
}

static TSNode null_node(void)
{
    return (TSNode){{0}, NULL, NULL};
}

/* oom_child, which needs a node: a lookup that found nothing finds nothing. */
static TSNode field_of(TSNode node, const char *name, uint32_t len)
{
    return ts_node_is_null(node) ? node : oom_child(node, name, len);
}

/* ---- anchors and aliases ---------------------------------------------------------- */

/* Anchors in document order, collected with a cursor (no recursion: a
 * document nested ten thousand levels deep is ordinary input). */
static void collect_anchors(oom_yamlmodel *m, TSNode root)
{
    TSTreeCursor c = ts_tree_cursor_new(root);
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&c);
        if (is_type(n, "anchor")) {
            TSNode name = ts_node_named_child(n, 0);
            if (!ts_node_is_null(name)) {
                yaml_anchor a = {ts_node_start_byte(name), ts_node_end_byte(name) - ts_node_start_byte(name),
                                 ts_node_parent(n)};
                OOM_PUSH(m->anchors, m->anchor_count, m->anchor_cap, a);
            }
        }
        if (ts_tree_cursor_goto_first_child(&c))
            continue;
        while (!ts_tree_cursor_goto_next_sibling(&c))
            if (!ts_tree_cursor_goto_parent(&c)) {
                ts_tree_cursor_delete(&c);
                return;
            }
    }
}

/* The anchored node an alias names: the latest anchor of that name before
 * the alias, as YAML defines it. */
static TSNode anchor_for(const oom_yamlmodel *m, TSNode alias)
{
    TSNode name = ts_node_named_child(alias, 0);
    if (ts_node_is_null(name))
        return null_node();
    uint32_t a = ts_node_start_byte(name), n = ts_node_end_byte(name) - a, at = ts_node_start_byte(alias);
    for (size_t i = m->anchor_count; i-- > 0;) {
        const yaml_anchor *an = &m->anchors[i];
        if (an->name_start < at && an->name_len == n && memcmp(m->src + an->name_start, m->src + a, n) == 0)
            return an->node;
    }
    return null_node();
}

/* The content of a node: past its anchor and tag, through one alias. */
static TSNode content_of(const oom_yamlmodel *m, TSNode node)
{
    for (int hops = 0; hops < 2 && !ts_node_is_null(node); hops++) {
        if (!is_type(node, "block_node") && !is_type(node, "flow_node"))
            return node;
        TSNode inner = null_node();
        uint32_t count = ts_node_named_child_count(node);
        for (uint32_t i = 0; i < count; i++) {
            TSNode c = ts_node_named_child(node, i);
            if (!is_type(c, "anchor") && !is_type(c, "tag") && !is_type(c, "comment"))
                inner = c;
        }
        if (!is_type(inner, "alias"))
            return inner;
        node = anchor_for(m, inner);
    }
    return null_node();
}

static bool has_tag(TSNode node, const char *src, const char *tag)
{
    uint32_t count = ts_node_named_child_count(node);
    size_t n = strlen(tag);
    for (uint32_t i = 0; i < count; i++) {
        TSNode c = ts_node_named_child(node, i);
        if (is_type(c, "tag") && ts_node_end_byte(c) - ts_node_start_byte(c) == n &&
            memcmp(src + ts_node_start_byte(c), tag, n) == 0)
            return true;
    }
    return false;
}

/* ---- scalars, as PyYAML (YAML 1.1) resolves them --------------------------------------- */

static bool text_is_one_of(const char *s, size_t n, const char *const *words)
{
    for (size_t i = 0; words[i]; i++)
        if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0)
            return true;
    return false;
}

/* PyYAML's implicit resolvers (resolver.py): bool, null, int (underscores
 * allowed), float (which needs a dot there: `1e-5` is a string). */
static oom_yaml_value_type resolve_plain(const char *s, size_t n, oom_buf *out)
{
    static const char *const truths[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL};
    static const char *const falsehoods[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL};
    static const char *const nulls[] = {"~", "null", "Null", "NULL", "", NULL};
    if (text_is_one_of(s, n, truths)) {
        oom_buf_puts(out, "true");
        return OOM_YAML_VALUE_BOOL;
    }
    if (text_is_one_of(s, n, falsehoods)) {
        oom_buf_puts(out, "false");
        return OOM_YAML_VALUE_BOOL;
    }
    if (text_is_one_of(s, n, nulls)) {
        oom_buf_puts(out, "null");
        return OOM_YAML_VALUE_NULL;
    }
    size_t i = (n && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    bool digits = i < n, dot = false;
    for (size_t j = i; j < n && digits; j++) {
        if (s[j] == '.' && !dot)
            dot = true;
        else if (!((s[j] >= '0' && s[j] <= '9') || (s[j] == '_' && j > i)))
            digits = false;
    }
    size_t start = out->len;
    if (digits && !(n - i == 1 && dot)) {
        for (size_t j = 0; j < n; j++)
            if (s[j] != '_' && s[j] != '+')
                oom_buf_putc(out, s[j]);
        return dot ? OOM_YAML_VALUE_FLOAT : OOM_YAML_VALUE_INT;
    }
    out->len = start;
    oom_buf_append(out, s, n);
    return OOM_YAML_VALUE_STRING;
}

/* The value of a node, normalised into out (appended). */
static oom_yaml_value_type node_value(const oom_yamlmodel *m, TSNode node, oom_buf *out)
{
    if (ts_node_is_null(node)) {
        oom_buf_puts(out, "null");
        return OOM_YAML_VALUE_NULL;
    }
    TSNode c = content_of(m, node);
    if (ts_node_is_null(c)) { /* a tag alone: `key: !!null` */
        oom_buf_puts(out, "null");
        return OOM_YAML_VALUE_NULL;
    }
    const char *type = ts_node_type(c);
    uint32_t a = ts_node_start_byte(c), b = ts_node_end_byte(c);
    if (strcmp(type, "double_quote_scalar") == 0 || strcmp(type, "single_quote_scalar") == 0) {
        if (b - a >= 2)
            oom_buf_append(out, m->src + a + 1, b - a - 2);
        return OOM_YAML_VALUE_STRING;
    }
    if (strcmp(type, "plain_scalar") != 0)
        return OOM_YAML_VALUE_NONE;
    if (has_tag(node, m->src, "!!str")) {
        oom_buf_append(out, m->src + a, b - a);
        return OOM_YAML_VALUE_STRING;
    }
    return resolve_plain(m->src + a, b - a, out);
}

/* The key of a pair equals `word` (quotes dropped). */
static bool key_is(const oom_yamlmodel *m, TSNode pair, const char *word, size_t n)
{
    TSNode key = field_of(pair, "key", 3);
    if (ts_node_is_null(key))
        return false;
    TSNode c = content_of(m, key);
    if (ts_node_is_null(c))
        return false;
    uint32_t a = ts_node_start_byte(c), b = ts_node_end_byte(c);
    if (!is_type(c, "plain_scalar")) {
        if (!is_type(c, "double_quote_scalar") && !is_type(c, "single_quote_scalar"))
            return false;
        a++, b--;
    }
    return b >= a && b - a == n && memcmp(m->src + a, word, n) == 0;
}

/* ---- mappings and merge keys ---------------------------------------------------------- */

/* The mappings that `<<` pairs of `mapping` merge into it, depth first,
 * to a bound: `<<: *base` and `<<: [*a, *b]`. */
static void collect_merged(const oom_yamlmodel *m, TSNode mapping, int depth, yaml_document *d)
{
    if (depth >= YAML_MAX_MERGE_DEPTH)
        return;
    uint32_t count = ts_node_named_child_count(mapping);
    for (uint32_t i = 0; i < count && d->merged_count < YAML_MAX_MERGED; i++) {
        TSNode pair = ts_node_named_child(mapping, i);
        if (!is_pair(pair) || !key_is(m, pair, "<<", 2))
            continue;
        TSNode value = field_of(pair, "value", 5);
        TSNode c = content_of(m, value);
        if (is_mapping(c)) {
            d->merged[d->merged_count++] = c;
            collect_merged(m, c, depth + 1, d);
            continue;
        }
        if (!is_type(c, "flow_sequence") && !is_type(c, "block_sequence"))
            continue;
        uint32_t items = ts_node_named_child_count(c);
        for (uint32_t j = 0; j < items && d->merged_count < YAML_MAX_MERGED; j++) {
            TSNode item = ts_node_named_child(c, j);
            if (is_type(item, "block_sequence_item"))
                item = ts_node_named_child(item, 0);
            TSNode target = content_of(m, item);
            if (is_mapping(target)) {
                d->merged[d->merged_count++] = target;
                collect_merged(m, target, depth + 1, d);
            }
        }
    }
}

/* The pair of `key` among a mapping's own pairs. */
static TSNode pair_in(const oom_yamlmodel *m, TSNode mapping, const char *key, size_t n)
{
    uint32_t count = ts_node_named_child_count(mapping);
    for (uint32_t i = 0; i < count; i++) {
        TSNode pair = ts_node_named_child(mapping, i);
        if (is_pair(pair) && key_is(m, pair, key, n))
            return pair;
    }
    return null_node();
}

/* A root key: the mapping's own pairs win over merged ones, as YAML says. */
static TSNode root_pair(const oom_yamlmodel *m, const yaml_document *d, const char *key, size_t n)
{
    TSNode pair = pair_in(m, d->mapping, key, n);
    for (size_t i = 0; ts_node_is_null(pair) && i < d->merged_count; i++)
        pair = pair_in(m, d->merged[i], key, n);
    return pair;
}

static bool root_has(const oom_yamlmodel *m, const yaml_document *d, const char *key)
{
    return !ts_node_is_null(root_pair(m, d, key, strlen(key)));
}

/* ---- what kind of config ---------------------------------------------------------------- */

/* Keys that only one tool's configs have at their top level. Shared names
 * (bf16, learning_rate, gradient_accumulation_steps, output_dir) are no hints.
 * - accelerate: `accelerate config` writes compute_environment,
 *   distributed_type, machine_rank, num_machines, main_training_function;
 * - axolotl: base_model, sequence_len, micro_batch_size, sample_packing,
 *   pad_to_sequence_len (the examples/ of axolotl-ai-cloud/axolotl);
 * - LLaMA-Factory: finetuning_type, cutoff_len (the yaml files of its examples/train_lora);
 * - TrainingArguments recipes (TRL, alignment-handbook): the Trainer's own
 *   argument names, which axolotl spells differently (num_epochs,
 *   micro_batch_size). */
static void recognise(oom_yamlmodel *m, const yaml_document *d)
{
    static const char *const accelerate[] = {"compute_environment", "distributed_type", "machine_rank",
                                             "num_machines", "main_training_function", NULL};
    static const char *const axolotl[] = {"base_model", "sequence_len", "micro_batch_size", "sample_packing",
                                          "pad_to_sequence_len", NULL};
    static const char *const llama_factory[] = {"finetuning_type", "cutoff_len", NULL};
    static const char *const training_args[] = {"per_device_train_batch_size", "per_device_eval_batch_size",
                                                "num_train_epochs", "eval_strategy", "evaluation_strategy",
                                                "save_strategy", "lr_scheduler_type", NULL};
    for (size_t i = 0; accelerate[i]; i++)
        if (root_has(m, d, accelerate[i]))
            m->kinds |= OOM_YAML_ACCELERATE;
    /* `accelerate config` without its environment lines: mixed_precision
     * beside a process count or a DeepSpeed section of accelerate's naming */
    if (root_has(m, d, "mixed_precision") && (root_has(m, d, "num_processes") || root_has(m, d, "deepspeed_config")))
        m->kinds |= OOM_YAML_ACCELERATE;
    unsigned here = 0;
    for (size_t i = 0; axolotl[i]; i++)
        if (root_has(m, d, axolotl[i]))
            here |= OOM_YAML_AXOLOTL;
    for (size_t i = 0; llama_factory[i]; i++)
        if (root_has(m, d, llama_factory[i]))
            here |= OOM_YAML_LLAMA_FACTORY;
    if (root_has(m, d, "stage") && root_has(m, d, "model_name_or_path") && root_has(m, d, "template"))
        here |= OOM_YAML_LLAMA_FACTORY;
    /* litgpt (config_hub/finetune/<model>/<recipe>.yaml, `litgpt finetune --config`):
     * checkpoint_dir with its top-level precision, or with out_dir */
    if (root_has(m, d, "checkpoint_dir") && (root_has(m, d, "precision") || root_has(m, d, "out_dir")))
        here |= OOM_YAML_LITGPT;
    for (size_t i = 0; training_args[i] && !(here & OOM_YAML_AXOLOTL); i++)
        if (root_has(m, d, training_args[i]))
            here |= OOM_YAML_TRAINING_ARGS;
    /* LLaMA-Factory hands its training keys to Seq2SeqTrainingArguments */
    if (here & OOM_YAML_LLAMA_FACTORY)
        here |= OOM_YAML_TRAINING_ARGS;
    m->kinds |= here;
    /* Lightning CLI: a `trainer:` section with the Trainer's arguments */
    TSNode trainer = content_of(m, field_of(root_pair(m, d, "trainer", 7), "value", 5));
    static const char *const trainer_keys[] = {"precision", "devices", "accelerator", "max_epochs",
                                               "max_steps", "strategy", "num_nodes", NULL};
    for (size_t i = 0; is_mapping(trainer) && trainer_keys[i]; i++)
        if (!ts_node_is_null(pair_in(m, trainer, trainer_keys[i], strlen(trainer_keys[i]))))
            m->kinds |= OOM_YAML_LIGHTNING;
}

static yaml_document *document_of(const oom_yamlmodel *m, TSNode near)
{
    if (!m->doc_count)
        return NULL;
    if (ts_node_is_null(near))
        return &m->docs[0];
    uint32_t at = ts_node_start_byte(near);
    for (size_t i = 0; i < m->doc_count; i++)
        if (at >= m->docs[i].start && at < m->docs[i].end)
            return &m->docs[i];
    return NULL;
}

/* The value node at a dotted path, from a document's root mapping. */
static TSNode value_at(const oom_yamlmodel *m, const yaml_document *d, const char *path)
{
    TSNode pair = null_node(), mapping = d->mapping;
    for (int part = 0; part < YAML_MAX_PATH; part++) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        pair = part == 0 ? root_pair(m, d, path, n) : pair_in(m, mapping, path, n);
        if (ts_node_is_null(pair))
            return null_node();
        if (!dot)
            return pair;
        mapping = content_of(m, field_of(pair, "value", 5));
        if (!is_mapping(mapping))
            return null_node();
        path = dot + 1;
    }
    return null_node();
}

static void take_model_id(oom_yamlmodel *m, const yaml_document *d)
{
    static const char *const paths[] = {"base_model", "model_name_or_path", "model.init_args.model_name_or_path",
                                        "model.init_args.pretrained_model_name_or_path", "checkpoint_dir", NULL};
    oom_buf v;
    oom_buf_init(&v);
    for (size_t i = 0; paths[i] && !m->model_id; i++) {
        TSNode pair = value_at(m, d, paths[i]);
        oom_buf_clear(&v);
        if (ts_node_is_null(pair) || node_value(m, field_of(pair, "value", 5), &v) != OOM_YAML_VALUE_STRING ||
            !v.len)
            continue;
        /* litgpt downloads a hub id into checkpoints/<id> */
        const char *id = strncmp(v.data, "checkpoints/", 12) == 0 ? v.data + 12 : v.data;
        m->model_id = oom_xstrdup(id);
    }
    oom_buf_free(&v);
}

oom_yamlmodel *oom_yamlmodel_build(const TSTree *tree, const char *src, size_t len)
{
    oom_yamlmodel *m = oom_xcalloc(1, sizeof(*m));
    m->src = src;
    m->len = len;
    TSNode root = ts_tree_root_node(tree);
    collect_anchors(m, root);
    uint32_t count = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < count; i++) {
        TSNode doc = ts_node_named_child(root, i);
        if (!is_type(doc, "document"))
            continue;
        uint32_t parts = ts_node_named_child_count(doc);
        for (uint32_t j = 0; j < parts; j++) {
            TSNode mapping = content_of(m, ts_node_named_child(doc, j));
            if (!is_mapping(mapping))
                continue;
            yaml_document d;
            memset(&d, 0, sizeof d);
            d.mapping = mapping;
            d.start = ts_node_start_byte(doc);
            d.end = ts_node_end_byte(doc);
            collect_merged(m, mapping, 0, &d);
            OOM_PUSH(m->docs, m->doc_count, m->doc_cap, d);
            break;
        }
    }
    for (size_t i = 0; i < m->doc_count; i++) {
        recognise(m, &m->docs[i]);
        take_model_id(m, &m->docs[i]);
    }
    return m;
}

void oom_yamlmodel_free(oom_yamlmodel *m)
{
    if (!m)
        return;
    free(m->anchors);
    free(m->docs);
    free(m->model_id);
    free(m);
}

unsigned oom_yamlmodel_kinds(const oom_yamlmodel *m)
{
    return m->kinds;
}

const char *oom_yamlmodel_model_id(const oom_yamlmodel *m)
{
    return m->model_id;
}

int oom_yaml_kind_from_name(const char *name)
{
    static const struct {
        const char *name;
        unsigned kind;
    } names[] = {{"accelerate", OOM_YAML_ACCELERATE},
                 {"axolotl", OOM_YAML_AXOLOTL},
                 {"llama-factory", OOM_YAML_LLAMA_FACTORY},
                 {"training-args", OOM_YAML_TRAINING_ARGS},
                 {"lightning", OOM_YAML_LIGHTNING},
                 {"litgpt", OOM_YAML_LITGPT}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(names[i].name, name) == 0)
            return (int)names[i].kind;
    return -1;
}

/* The mapping is its document's root, or merged into it. */
static bool is_root_mapping(const oom_yamlmodel *m, TSNode mapping)
{
    const yaml_document *d = document_of(m, mapping);
    if (!d)
        return false;
    if (ts_node_eq(mapping, d->mapping))
        return true;
    for (size_t i = 0; i < d->merged_count; i++)
        if (ts_node_eq(mapping, d->merged[i]))
            return true;
    return false;
}

bool oom_yamlmodel_pair_at(const oom_yamlmodel *m, TSNode pair, const char *path)
{
    const char *parts[YAML_MAX_PATH];
    size_t lens[YAML_MAX_PATH], n = 0;
    for (const char *p = path; n < YAML_MAX_PATH;) {
        const char *dot = strchr(p, '.');
        parts[n] = p;
        lens[n++] = dot ? (size_t)(dot - p) : strlen(p);
        if (!dot)
            break;
        p = dot + 1;
    }
    /* from the pair up: its key is the last part, its mapping's owner the one before ... */
    for (size_t i = n; i-- > 0;) {
        if (!is_pair(pair) || !key_is(m, pair, parts[i], lens[i]))
            return false;
        TSNode mapping = ts_node_parent(pair);
        if (!is_mapping(mapping))
            return false;
        if (i == 0)
            return is_root_mapping(m, mapping);
        TSNode holder = ts_node_parent(mapping); /* block_node / flow_node */
        pair = ts_node_is_null(holder) ? holder : ts_node_parent(holder);
    }
    return false;
}

oom_yaml_value_type oom_yamlmodel_pair_value(const oom_yamlmodel *m, TSNode pair, oom_buf *out)
{
    oom_buf_clear(out);
    if (!is_pair(pair))
        return OOM_YAML_VALUE_NONE;
    return node_value(m, field_of(pair, "value", 5), out);
}

TSNode oom_yamlmodel_find(const oom_yamlmodel *m, TSNode near, const char *path)
{
    const yaml_document *d = document_of(m, near);
    return d ? value_at(m, d, path) : null_node();
}

oom_yaml_value_type oom_yamlmodel_lookup(const oom_yamlmodel *m, TSNode near, const char *path, oom_buf *out)
{
    oom_buf_clear(out);
    const yaml_document *d = document_of(m, near);
    TSNode pair = d ? value_at(m, d, path) : null_node();
    if (ts_node_is_null(pair))
        return OOM_YAML_VALUE_NONE;
    return node_value(m, field_of(pair, "value", 5), out);
}

int oom_yamlmodel_lookup_bool(const oom_yamlmodel *m, TSNode near, const char *path)
{
    oom_buf v;
    oom_buf_init(&v);
    int answer = -1;
    if (oom_yamlmodel_lookup(m, near, path, &v) == OOM_YAML_VALUE_BOOL)
        answer = strcmp(v.data, "true") == 0;
    oom_buf_free(&v);
    return answer;
}

bool oom_yamlmodel_lookup_int(const oom_yamlmodel *m, TSNode near, const char *path, long long *value)
{
    oom_buf v;
    oom_buf_init(&v);
    bool ok = oom_yamlmodel_lookup(m, near, path, &v) == OOM_YAML_VALUE_INT;
    if (ok) {
        char *end;
        *value = strtoll(v.data, &end, 10);
        ok = *end == '\0';
    }
    oom_buf_free(&v);
    return ok;
}

bool oom_yaml_file_read(const char *path, oom_yaml_file *f, char *why, size_t why_size)
{
    memset(f, 0, sizeof *f);
    if (oom_source_read(path, path, &f->src, why, why_size) != OOM_SOURCE_OK)
        return false;
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_YAML));
    f->tree = ts_parser_parse_string(parser, NULL, f->src.text, (uint32_t)f->src.len);
    ts_parser_delete(parser); /* the tree outlives it */
    f->model = f->tree ? oom_yamlmodel_build(f->tree, f->src.text, f->src.len) : NULL;
    return true;
}

void oom_yaml_file_free(oom_yaml_file *f)
{
    oom_yamlmodel_free(f->model);
    if (f->tree)
        ts_tree_delete(f->tree);
    oom_source_free(&f->src);
    memset(f, 0, sizeof *f);
}

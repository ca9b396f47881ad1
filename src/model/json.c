/* model/json: recognising JSON configs by their top-level keys. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/lang.h"
#include "oomlint/jsonmodel.h"
#include "oomlint/util.h"

struct oom_jsonmodel {
    const char *src;
    TSNode object; /* the top-level object, or a null node */
    TSNode deepspeed; /* a TrainingArguments JSON's inline "deepspeed" object, or null */
    unsigned kinds;
    char *model_id;
};

typedef struct {
    const char *key;
    unsigned kind;
} key_hint;

/* A key that only one kind of file has. TrainingArguments and DeepSpeed
 * share some (gradient_accumulation_steps, fp16), so those are not hints. */
static const key_hint hints[] = {
    {"model_type", OOM_JSON_MODEL_CONFIG},
    {"architectures", OOM_JSON_MODEL_CONFIG},
    {"model_max_length", OOM_JSON_TOKENIZER_CONFIG},
    {"tokenizer_class", OOM_JSON_TOKENIZER_CONFIG},
    {"_from_model_config", OOM_JSON_GENERATION_CONFIG},
    {"max_new_tokens", OOM_JSON_GENERATION_CONFIG},
    {"output_dir", OOM_JSON_TRAINING_ARGS},
    {"per_device_train_batch_size", OOM_JSON_TRAINING_ARGS},
    {"per_device_eval_batch_size", OOM_JSON_TRAINING_ARGS},
    {"num_train_epochs", OOM_JSON_TRAINING_ARGS},
    {"learning_rate", OOM_JSON_TRAINING_ARGS},
    {"evaluation_strategy", OOM_JSON_TRAINING_ARGS},
    {"eval_strategy", OOM_JSON_TRAINING_ARGS},
    {"zero_optimization", OOM_JSON_DEEPSPEED},
    {"train_micro_batch_size_per_gpu", OOM_JSON_DEEPSPEED},
    {"train_batch_size", OOM_JSON_DEEPSPEED},
    {"zero_allow_untested_optimizer", OOM_JSON_DEEPSPEED},
    {"steps_per_print", OOM_JSON_DEEPSPEED},
};

static void note_key(oom_jsonmodel *m, TSNode key)
{
    uint32_t a = ts_node_start_byte(key), b = ts_node_end_byte(key);
    if (b - a < 2)
        return;
    const char *k = m->src + a + 1; /* inside the quotes */
    size_t n = b - a - 2;
    for (size_t i = 0; i < sizeof hints / sizeof *hints; i++)
        if (strlen(hints[i].key) == n && memcmp(hints[i].key, k, n) == 0)
            m->kinds |= hints[i].kind;
}

oom_jsonmodel *oom_jsonmodel_build(const TSTree *tree, const char *src, size_t len)
{
    (void)len;
    oom_jsonmodel *m = oom_xcalloc(1, sizeof(*m));
    m->src = src;
    m->deepspeed = (TSNode){{0}, NULL, NULL};
    TSNode root = ts_tree_root_node(tree);
    TSNode object = ts_node_named_child(root, 0);
    if (ts_node_is_null(object) || strcmp(ts_node_type(object), "object") != 0)
        return m;
    m->object = object;
    uint32_t count = ts_node_named_child_count(object);
    for (uint32_t i = 0; i < count; i++) {
        TSNode pair = ts_node_named_child(object, i);
        if (strcmp(ts_node_type(pair), "pair") != 0)
            continue;
        TSNode key = oom_child(pair, "key", 3);
        note_key(m, key);
        TSNode value = oom_child(pair, "value", 5);
        uint32_t ka = ts_node_start_byte(key), kb = ts_node_end_byte(key);
        uint32_t va = ts_node_start_byte(value), vb = ts_node_end_byte(value);
        bool is_id = (kb - ka == 20 && memcmp(src + ka, "\"model_name_or_path\"", 20) == 0) ||
                     (kb - ka == 12 && memcmp(src + ka, "\"model_name\"", 12) == 0);
        if (is_id && !m->model_id && strcmp(ts_node_type(value), "string") == 0 && vb - va >= 2)
            m->model_id = oom_xstrndup(src + va + 1, vb - va - 2);
        if (kb - ka == 11 && memcmp(src + ka, "\"deepspeed\"", 11) == 0 &&
            strcmp(ts_node_type(value), "object") == 0)
            m->deepspeed = value;
    }
    return m;
}

void oom_jsonmodel_free(oom_jsonmodel *m)
{
    if (m)
        free(m->model_id);
    free(m);
}

const char *oom_jsonmodel_model_id(const oom_jsonmodel *m)
{
    return m->model_id;
}

unsigned oom_jsonmodel_kinds(const oom_jsonmodel *m)
{
    return m->kinds;
}

int oom_json_kind_from_name(const char *name)
{
    static const struct {
        const char *name;
        unsigned kind;
    } names[] = {{"model-config", OOM_JSON_MODEL_CONFIG},
                 {"tokenizer-config", OOM_JSON_TOKENIZER_CONFIG},
                 {"generation-config", OOM_JSON_GENERATION_CONFIG},
                 {"training-args", OOM_JSON_TRAINING_ARGS},
                 {"deepspeed", OOM_JSON_DEEPSPEED}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(names[i].name, name) == 0)
            return (int)names[i].kind;
    return -1;
}

bool oom_jsonmodel_is_top_level(const oom_jsonmodel *m, TSNode pair)
{
    if (ts_node_is_null(m->object))
        return false;
    TSNode parent = ts_node_parent(pair);
    return !ts_node_is_null(parent) && ts_node_eq(parent, m->object);
}

bool oom_jsonmodel_is_deepspeed_key(const oom_jsonmodel *m, TSNode pair)
{
    TSNode parent = ts_node_parent(pair);
    if (ts_node_is_null(parent))
        return false;
    if ((m->kinds & OOM_JSON_DEEPSPEED) && !ts_node_is_null(m->object) && ts_node_eq(parent, m->object))
        return true;
    /* TrainingArguments(deepspeed=...) also takes the config as a dict */
    return (m->kinds & OOM_JSON_TRAINING_ARGS) && !ts_node_is_null(m->deepspeed) &&
           ts_node_eq(parent, m->deepspeed);
}

bool oom_jsonmodel_sibling_key(const oom_jsonmodel *m, TSNode pair, const char *key)
{
    TSNode object = ts_node_parent(pair);
    if (ts_node_is_null(object) || strcmp(ts_node_type(object), "object") != 0)
        return false;
    size_t n = strlen(key);
    uint32_t count = ts_node_named_child_count(object);
    for (uint32_t i = 0; i < count; i++) {
        TSNode other = ts_node_named_child(object, i);
        if (ts_node_eq(other, pair) || strcmp(ts_node_type(other), "pair") != 0)
            continue;
        TSNode k = ts_node_child_by_field_name(other, "key", 3);
        uint32_t a = ts_node_start_byte(k), b = ts_node_end_byte(k);
        if (b - a == n + 2 && memcmp(m->src + a + 1, key, n) == 0)
            return true;
    }
    return false;
}

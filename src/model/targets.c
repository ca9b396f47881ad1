/* model/targets: whether what a tokenizer call returns becomes the batch's
 * `labels`, the targets a Hugging Face model computes its loss against
 * (`model_inputs["labels"] = labels["input_ids"]`), rather than the inputs it
 * runs on. It is the older spelling of `tokenizer(text_target=...)`. */
#include <string.h>

#include "internal.h"

static bool type_is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* `x["labels"]`: storage under the key a model reads its targets from. */
static bool is_labels_slot(const oom_pymodel *m, TSNode target)
{
    if (!type_is(target, "subscript"))
        return false;
    oom_buf key;
    oom_buf_init(&key);
    bool yes = oom_pymodel_string_value(m, oom_model_child(m, target, "subscript", 9), &key) &&
               strcmp(key.data, "labels") == 0;
    oom_buf_free(&key);
    return yes;
}

static bool is_name(const oom_pymodel *m, TSNode n, const char *name, uint32_t len)
{
    if (!type_is(n, "identifier"))
        return false;
    uint32_t nlen;
    const char *text = oom_node_text(m, n, &nlen);
    return nlen == len && memcmp(text, name, len) == 0;
}

/* `enc`, `enc["input_ids"]` or `enc.input_ids`: the ids of what `name`
 * holds, read whole (no `.clone()` into a new tensor, no slice of it). */
static bool reads_ids_of(const oom_pymodel *m, TSNode e, const char *name, uint32_t len)
{
    if (type_is(e, "subscript")) {
        oom_buf key;
        oom_buf_init(&key);
        bool ids = oom_pymodel_string_value(m, oom_model_child(m, e, "subscript", 9), &key) &&
                   strcmp(key.data, "input_ids") == 0;
        oom_buf_free(&key);
        if (!ids)
            return false;
        e = oom_model_child(m, e, "value", 5);
    } else if (type_is(e, "attribute")) {
        if (!oom_node_text_is(m, oom_model_child(m, e, "attribute", 9), "input_ids"))
            return false;
        e = oom_model_child(m, e, "object", 6);
    }
    return is_name(m, e, name, len);
}

typedef struct {
    const oom_pymodel *m;
    const char *name; /* the name the tokenizer's result is bound to */
    uint32_t len, after;
    int depth;
    bool found;
} labels_walk;

static bool name_becomes_labels(const oom_pymodel *m, TSNode name, int depth);

/* After the binding, in its function: `x["labels"] = name["input_ids"]`, or
 * `ids = name["input_ids"]` (followed in turn); the walk ends where the name
 * is bound to something else. */
static bool visit_assignment(void *ctx, TSNode n)
{
    labels_walk *w = ctx;
    if (ts_node_start_byte(n) < w->after || !type_is(n, "assignment"))
        return true;
    TSNode right = oom_model_child(w->m, n, "right", 5), left = oom_model_child(w->m, n, "left", 4);
    if (!reads_ids_of(w->m, right, w->name, w->len))
        return !is_name(w->m, left, w->name, w->len);
    if (is_labels_slot(w->m, left))
        w->found = true;
    else if (type_is(left, "identifier"))
        w->found = name_becomes_labels(w->m, left, w->depth + 1);
    return !w->found;
}

static bool name_becomes_labels(const oom_pymodel *m, TSNode name, int depth)
{
    if (depth > 4)
        return false;
    labels_walk w = {m, NULL, 0, ts_node_end_byte(name), depth, false};
    w.name = oom_node_text(m, name, &w.len);
    int scope = oom_model_scope_at(m, ts_node_start_byte(name));
    oom_pymodel_walk(m, scope > 0 ? m->scopes[scope].def : m->root, visit_assignment, &w);
    return w.found;
}

bool oom_pymodel_becomes_labels(const oom_pymodel *m, TSNode call)
{
    TSNode value = call, up = oom_model_parent(m, call);
    /* tokenizer(...)["input_ids"], tokenizer(...).input_ids */
    if ((type_is(up, "subscript") && ts_node_eq(oom_model_child(m, up, "value", 5), call)) ||
        (type_is(up, "attribute") && ts_node_eq(oom_model_child(m, up, "object", 6), call))) {
        value = up;
        up = oom_model_parent(m, up);
    }
    if (!type_is(up, "assignment") || !ts_node_eq(oom_model_child(m, up, "right", 5), value))
        return false;
    TSNode left = oom_model_child(m, up, "left", 4);
    if (is_labels_slot(m, left))
        return true;
    return type_is(left, "identifier") && name_becomes_labels(m, left, 0);
}

/* model/lengths: how long a length argument can be (`max_length=` of a
 * tokenizer call): on each path its value may come by, an integer, or the
 * longest of lengths measured from the data itself (`max(len(x) for x in
 * batch)`), which pads to what the data holds, as dynamic padding does. */
#include <limits.h>
#include <string.h>

#include "internal.h"

/* The largest integer seen on any path so far (LLONG_MIN: none yet). */
typedef struct {
    long long most;
} length_bound;

static bool length_paths(const oom_pymodel *m, TSNode e, int depth, length_bound *b);

static bool calls_builtin(const oom_pymodel *m, TSNode call, const char *name)
{
    if (ts_node_is_null(call) || ts_node_symbol(call) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, call, "function", 8);
    return !ts_node_is_null(fn) && ts_node_symbol(fn) == m->sym.identifier && oom_node_text_is(m, fn, name) &&
           !oom_pymodel_is_import_alias(m, m->src + ts_node_start_byte(fn),
                                        ts_node_end_byte(fn) - ts_node_start_byte(fn));
}

/* `len(x)`, or `len(x) + 2` (special tokens added): a length the data has. */
static bool is_measured_length(const oom_pymodel *m, TSNode e, int depth)
{
    length_bound b = {LLONG_MIN};
    return length_paths(m, e, depth + 1, &b) && b.most == LLONG_MIN;
}

/* A parameter of the function the name is read in: what its caller hands
 * it (the examples a DataLoader gives a collate function). */
static bool is_parameter(const oom_pymodel *m, TSNode id)
{
    if (ts_node_is_null(id) || ts_node_symbol(id) != m->sym.identifier)
        return false;
    uint32_t len, pos = ts_node_start_byte(id);
    const char *name = oom_node_text(m, id, &len);
    const oom_binding *b = oom_model_visible_binding(m, oom_model_scope_at(m, pos), name, len, pos, true);
    if (!b || b->kind != OOM_BIND_OPAQUE || b->scope <= 0 || ts_node_is_null(m->scopes[b->scope].def))
        return false;
    TSNode params = oom_model_child(m, m->scopes[b->scope].def, "parameters", 10);
    oom_model_kids kids = oom_model_kids_of(m, params);
    for (TSNode p; oom_model_next_kid(m, &kids, &p);) {
        if (ts_node_symbol(p) != m->sym.identifier && ts_node_named_child_count(p) > 0)
            p = oom_model_named_child(m, p, 0); /* typed or with a default: the name first */
        uint32_t plen;
        const char *pname = oom_node_text(m, p, &plen);
        if (ts_node_symbol(p) == m->sym.identifier && plen == len && memcmp(pname, name, len) == 0)
            return true;
    }
    return false;
}

/* `len(e["input_ids"]) for e in examples`: a length measured over each item
 * of what the function was handed (one batch), not over a whole dataset the
 * file holds: the longest of a dataset pays for its longest text on every
 * batch, as padding to max_length does. */
static bool measures_each_of_batch(const oom_pymodel *m, TSNode comprehension, int depth)
{
    if (!is_measured_length(m, oom_model_child(m, comprehension, "body", 4), depth))
        return false;
    oom_model_kids kids = oom_model_kids_of(m, comprehension);
    for (TSNode clause; oom_model_next_kid(m, &kids, &clause);)
        if (strcmp(ts_node_type(clause), "for_in_clause") == 0)
            return is_parameter(m, oom_model_child(m, clause, "right", 5));
    return false;
}

/* `max(len(x) for x in batch)`, `max([len(e["input_ids"]) for e in examples])`,
 * `max(map(len, batch))` over what the function was handed, `max(len(a),
 * len(b))`: the longest of the batch's own lengths. */
static bool is_longest_measured(const oom_pymodel *m, TSNode call, int depth)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    if (ts_node_is_null(args))
        return false;
    const char *type = ts_node_type(args);
    if (strcmp(type, "generator_expression") == 0)
        return measures_each_of_batch(m, args, depth);
    uint32_t count = ts_node_named_child_count(args);
    if (count == 0)
        return false;
    if (count == 1) {
        TSNode only = oom_model_named_child(m, args, 0);
        const char *t = ts_node_type(only);
        if (strcmp(t, "list_comprehension") == 0 || strcmp(t, "generator_expression") == 0)
            return measures_each_of_batch(m, only, depth);
        if (calls_builtin(m, only, "map")) {
            TSNode map_args = oom_model_child(m, only, "arguments", 9);
            if (ts_node_is_null(map_args) || ts_node_named_child_count(map_args) != 2)
                return false;
            TSNode fn = oom_model_named_child(m, map_args, 0);
            return ts_node_symbol(fn) == m->sym.identifier && oom_node_text_is(m, fn, "len") &&
                   is_parameter(m, oom_model_named_child(m, map_args, 1));
        }
    }
    for (uint32_t i = 0; i < count; i++)
        if (!is_measured_length(m, oom_model_named_child(m, args, i), depth))
            return false;
    return true;
}

static bool integer_path(const oom_pymodel *m, TSNode e, length_bound *b)
{
    long long v;
    if (!oom_pymodel_int_value(m, e, &v))
        return false;
    if (v > b->most)
        b->most = v;
    return true;
}

/* A name: every binding that may reach it where it is read (the nearest one
 * above when the flow cannot say) holds a length. */
static bool name_paths(const oom_pymodel *m, TSNode id, int depth, length_bound *b)
{
    oom_flow_reach r;
    if (!oom_model_reaching_bindings(m, id, &r))
        return length_paths(m, oom_model_bound_value(m, id), depth + 1, b);
    for (uint32_t i = 0; i < r.count; i++) {
        const oom_binding *binding = oom_model_def_binding(m, r.defs[i]);
        if (!binding || binding->kind != OOM_BIND_VALUE || !length_paths(m, binding->value, depth + 1, b))
            return false;
    }
    return true;
}

/* `n + 1`, `n - 2`: a length with a constant added; an integer plus an
 * integer is their sum. */
static bool sum_paths(const oom_pymodel *m, TSNode e, int depth, length_bound *b)
{
    TSNode op = oom_model_child(m, e, "operator", 8);
    bool plus = oom_node_text_is(m, op, "+");
    if (!plus && !oom_node_text_is(m, op, "-"))
        return false;
    TSNode left = oom_model_child(m, e, "left", 4), right = oom_model_child(m, e, "right", 5);
    long long k;
    if (!oom_pymodel_int_value(m, right, &k)) {
        if (!plus || !oom_pymodel_int_value(m, left, &k))
            return false;
        left = right;
    }
    length_bound part = {LLONG_MIN};
    if (!length_paths(m, left, depth + 1, &part))
        return false;
    if (part.most != LLONG_MIN) {
        part.most += plus ? k : -k;
        if (part.most > b->most)
            b->most = part.most;
    }
    return true;
}

static bool length_paths(const oom_pymodel *m, TSNode e, int depth, length_bound *b)
{
    if (depth > 12 || ts_node_is_null(e))
        return false;
    TSSymbol s = ts_node_symbol(e);
    const char *type = ts_node_type(e);
    if (strcmp(type, "integer") == 0)
        return integer_path(m, e, b);
    if (s == m->sym.identifier)
        return name_paths(m, e, depth, b);
    if (strcmp(type, "parenthesized_expression") == 0)
        return length_paths(m, oom_model_named_child(m, e, 0), depth + 1, b);
    if (s == m->sym.conditional_expression) /* `128 if on_tpu else max(...)`: both outcomes */
        return length_paths(m, oom_model_named_child(m, e, 0), depth + 1, b) &&
               length_paths(m, oom_model_named_child(m, e, 2), depth + 1, b);
    if (strcmp(type, "binary_operator") == 0)
        return sum_paths(m, e, depth, b);
    if (calls_builtin(m, e, "len"))
        return true;
    if (calls_builtin(m, e, "max"))
        return is_longest_measured(m, e, depth);
    return false;
}

bool oom_pymodel_is_short_or_measured_length(const oom_pymodel *m, TSNode expr, long long limit)
{
    length_bound b = {LLONG_MIN};
    return length_paths(m, expr, 0, &b) && b.most <= limit;
}

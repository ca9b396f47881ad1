/* model/values: what an expression holds once names are followed to their
 * bindings (`dtype = torch.bfloat16` ... `autocast(dtype=dtype)`), and
 * whether a statement runs only when a user's switch for this run says so
 * (`if args.bf16:`, `x if args.bf16 else y`, `autocast(enabled=args.amp)`). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A name's value where it is read: the binding Python resolves it to (its
 * scope's last before it, else an enclosing function's, else the module's). */
TSNode oom_model_bound_value(const oom_pymodel *m, TSNode name)
{
    uint32_t len;
    const char *text = oom_node_text(m, name, &len);
    uint32_t pos = ts_node_start_byte(name);
    int scope = oom_model_scope_at(m, pos);
    const oom_binding *b = oom_model_visible_binding(m, scope, text, len, pos, true);
    if (!b || b->kind != OOM_BIND_VALUE)
        return (TSNode){0};
    return b->value;
}

/* `{"bf16": torch.bfloat16, ...}[key]` with a key whose value is a known
 * string: the entry's value. */
static TSNode dict_entry(const oom_pymodel *m, TSNode subscript, int depth)
{
    TSNode dict = oom_model_child(m, subscript, "value", 5);
    TSNode key = oom_model_child(m, subscript, "subscript", 9);
    if (ts_node_is_null(dict) || ts_node_is_null(key))
        return (TSNode){0};
    dict = oom_pymodel_value_of(m, dict, depth + 1);
    key = oom_pymodel_value_of(m, key, depth + 1);
    if (ts_node_is_null(dict) || ts_node_is_null(key) || strcmp(ts_node_type(dict), "dictionary") != 0)
        return (TSNode){0};
    oom_buf want, have;
    oom_buf_init(&want);
    oom_buf_init(&have);
    TSNode found = {0};
    if (oom_pymodel_string_value(m, key, &want)) {
        uint32_t count = ts_node_named_child_count(dict);
        for (uint32_t i = 0; i < count && ts_node_is_null(found); i++) {
            TSNode pair = oom_model_named_child(m, dict, i);
            if (strcmp(ts_node_type(pair), "pair") != 0)
                continue;
            if (oom_pymodel_string_value(m, oom_child(pair, "key", 3), &have) && strcmp(have.data, want.data) == 0)
                found = oom_child(pair, "value", 5);
        }
    }
    oom_buf_free(&want);
    oom_buf_free(&have);
    return found;
}

/* dataclasses.field(default=...) */
static bool is_field_call(const oom_pymodel *m, TSNode call)
{
    oom_buf q;
    oom_buf_init(&q);
    bool yes = oom_pymodel_qualname(m, oom_model_child(m, call, "function", 8), &q) &&
               (strcmp(q.data, "field") == 0 || strcmp(q.data, "dataclasses.field") == 0);
    oom_buf_free(&q);
    return yes;
}

TSNode oom_pymodel_keyword_value(const oom_pymodel *m, TSNode call, const char *name)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    oom_model_kids kids = oom_model_kids_of(m, args);
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument &&
            oom_node_text_is(m, oom_model_child(m, a, "name", 4), name))
            return oom_model_child(m, a, "value", 5);
    }
    return (TSNode){0};
}

TSNode oom_pymodel_bound_value(const oom_pymodel *m, TSNode name)
{
    return ts_node_symbol(name) == m->sym.identifier ? oom_model_bound_value(m, name) : (TSNode){0};
}

TSNode oom_pymodel_value_of(const oom_pymodel *m, TSNode e, int depth)
{
    for (; depth < 8 && !ts_node_is_null(e); depth++) {
        const char *type = ts_node_type(e);
        if (strcmp(type, "parenthesized_expression") == 0)
            e = oom_model_named_child(m, e, 0);
        else if (ts_node_symbol(e) == m->sym.identifier && !oom_pymodel_is_import_alias(m, m->src + ts_node_start_byte(e), ts_node_end_byte(e) - ts_node_start_byte(e)))
            e = oom_model_bound_value(m, e);
        else if (strcmp(type, "subscript") == 0)
            e = dict_entry(m, e, depth);
        else if (ts_node_symbol(e) == m->sym.call && is_field_call(m, e))
            e = oom_pymodel_keyword_value(m, e, "default");
        else
            return e;
    }
    return (TSNode){0};
}

static bool text_matches(const oom_pymodel *m, TSNode n, const void *regex)
{
    if (ts_node_is_null(n) || !regex)
        return false;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(regex, NULL);
    if (!md)
        return false;
    uint32_t len;
    const char *text = oom_node_text(m, n, &len);
    int rc = pcre2_match(regex, (PCRE2_SPTR)text, len, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

static bool inside(TSNode outer, TSNode n)
{
    return !ts_node_is_null(outer) && ts_node_start_byte(n) >= ts_node_start_byte(outer) &&
           ts_node_end_byte(n) <= ts_node_end_byte(outer);
}

/* A call that turns itself off by a value the caller chooses:
 * `torch.autocast(..., enabled=args.amp)`. */
static bool enabled_by_switch(const oom_pymodel *m, TSNode call)
{
    TSNode v = oom_pymodel_keyword_value(m, call, "enabled");
    if (ts_node_is_null(v))
        return false;
    return strcmp(ts_node_type(v), "true") != 0 && strcmp(ts_node_type(v), "false") != 0;
}

bool oom_pymodel_follows_switch(const oom_pymodel *m, TSNode node, const void *regex)
{
    TSNode child = node;
    for (TSNode up = oom_model_parent(m, node); !ts_node_is_null(up); child = up, up = oom_model_parent(m, up)) {
        TSSymbol s = ts_node_symbol(up);
        /* A lambda is looked through: `elif precision == "amp_bf16": return
         * lambda: autocast(dtype=torch.bfloat16)` makes the lambda only under
         * the branch, so its body runs only when the switch chose it. */
        if (s == m->sym.function_definition || s == m->sym.class_definition)
            return false;
        const char *type = ts_node_type(up);
        if (s == m->sym.if_statement || strcmp(type, "elif_clause") == 0 || strcmp(type, "while_statement") == 0) {
            TSNode cond = oom_model_child(m, up, "condition", 9);
            if (!inside(cond, child) && text_matches(m, cond, regex))
                return true;
        } else if (s == m->sym.conditional_expression) {
            /* `a if cond else b`: the condition is the second named child */
            TSNode cond = oom_model_named_child(m, up, 1);
            if (!inside(cond, child) && text_matches(m, cond, regex))
                return true;
        } else if (s == m->sym.call && enabled_by_switch(m, up)) {
            return true;
        }
    }
    return false;
}

/* `(torch.bfloat16 if args.bf16 else torch.float32)`: a value chosen by a
 * condition the regex names, the parentheses around it looked through. */
static bool chosen_by_switch(const oom_pymodel *m, TSNode e, const void *regex)
{
    while (!ts_node_is_null(e) && strcmp(ts_node_type(e), "parenthesized_expression") == 0)
        e = oom_model_named_child(m, e, 0);
    return !ts_node_is_null(e) && ts_node_symbol(e) == m->sym.conditional_expression &&
           text_matches(m, oom_model_named_child(m, e, 1), regex);
}

static bool value_follows_switch(const oom_pymodel *m, TSNode e, const void *regex, int depth);

/* `torch.float32 if args.vae_fp32 else weight_dtype`, the condition not a
 * precision switch: the value follows one when an arm does and no other arm
 * spells the precision out (regex) itself (Open-Sora-Plan's weight_dtype,
 * set under `elif accelerator.mixed_precision == "bf16":`). */
static bool arm_follows_switch(const oom_pymodel *m, TSNode cond, const void *regex, int depth)
{
    TSNode arms[2] = {oom_model_named_child(m, cond, 0), oom_model_named_child(m, cond, 2)};
    bool any = false;
    for (int i = 0; i < 2; i++) {
        if (ts_node_is_null(arms[i]))
            return false;
        if (value_follows_switch(m, arms[i], regex, depth + 1))
            any = true;
        else if (text_matches(m, arms[i], regex))
            return false;
    }
    return any;
}

bool oom_pymodel_value_follows_switch(const oom_pymodel *m, TSNode e, const void *regex)
{
    return value_follows_switch(m, e, regex, 0);
}

static bool value_follows_switch(const oom_pymodel *m, TSNode e, const void *regex, int depth)
{
    for (; depth < 8 && !ts_node_is_null(e); depth++) {
        if (chosen_by_switch(m, e, regex))
            return true;
        if (ts_node_symbol(e) == m->sym.conditional_expression)
            return arm_follows_switch(m, e, regex, depth);
        if (strcmp(ts_node_type(e), "subscript") == 0) { /* {...}[dtype]: what chose the key */
            e = oom_model_child(m, e, "subscript", 9);
            continue;
        }
        if (ts_node_symbol(e) != m->sym.identifier ||
            oom_pymodel_is_import_alias(m, m->src + ts_node_start_byte(e), ts_node_end_byte(e) - ts_node_start_byte(e)))
            return false;
        e = oom_model_bound_value(m, e);
        if (!ts_node_is_null(e) && oom_pymodel_follows_switch(m, e, regex))
            return true;
    }
    return false;
}

static bool in_list(const char *s, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(s, names[i]) == 0)
            return true;
    return false;
}

static bool holds(const oom_pymodel *m, TSNode expr, const char *const *names, size_t count, oom_buf *scratch,
                  int depth);

/* `{"bfloat16": torch.bfloat16, ...}[dtype]` where dtype may hold either of
 * two strings (`dtype = "bfloat16" if cond else "float16"`): the entry of
 * each key it may hold. */
static bool entry_of_either_key_holds(const oom_pymodel *m, TSNode subscript, const char *const *names,
                                      size_t count, oom_buf *scratch, int depth)
{
    TSNode dict = oom_pymodel_value_of(m, oom_model_child(m, subscript, "value", 5), 0);
    TSNode key = oom_pymodel_value_of(m, oom_model_child(m, subscript, "subscript", 9), 0);
    if (ts_node_is_null(dict) || strcmp(ts_node_type(dict), "dictionary") != 0 || ts_node_is_null(key) ||
        ts_node_symbol(key) != m->sym.conditional_expression)
        return false;
    oom_buf want, have;
    oom_buf_init(&want);
    oom_buf_init(&have);
    bool found = false;
    for (uint32_t branch = 0; branch <= 2 && !found; branch += 2) {
        if (!oom_pymodel_string_value(m, oom_model_named_child(m, key, branch), &want))
            continue;
        oom_model_kids kids = oom_model_kids_of(m, dict);
        for (TSNode pair; !found && oom_model_next_kid(m, &kids, &pair);)
            if (strcmp(ts_node_type(pair), "pair") == 0 &&
                oom_pymodel_string_value(m, oom_child(pair, "key", 3), &have) && strcmp(have.data, want.data) == 0)
                found = holds(m, oom_child(pair, "value", 5), names, count, scratch, depth + 1);
    }
    oom_buf_free(&want);
    oom_buf_free(&have);
    return found;
}

/* Either branch of `"bfloat16" if cond else "float16"` may be what runs;
 * whether the condition is the run's own switch is the rule's question
 * (follows-switch), not this one. */
static bool holds(const oom_pymodel *m, TSNode expr, const char *const *names, size_t count, oom_buf *scratch,
                  int depth)
{
    if (depth > 4)
        return false;
    TSNode v = oom_pymodel_value_of(m, expr, 0);
    if (ts_node_is_null(v)) {
        /* a subscript whose key is not one known string */
        TSNode e = expr;
        for (int i = 0; i < 8 && !ts_node_is_null(e) && ts_node_symbol(e) == m->sym.identifier; i++)
            e = oom_model_bound_value(m, e);
        return !ts_node_is_null(e) && strcmp(ts_node_type(e), "subscript") == 0 &&
               entry_of_either_key_holds(m, e, names, count, scratch, depth);
    }
    if (ts_node_symbol(v) == m->sym.conditional_expression)
        return holds(m, oom_model_named_child(m, v, 0), names, count, scratch, depth + 1) ||
               holds(m, oom_model_named_child(m, v, 2), names, count, scratch, depth + 1);
    if (strcmp(ts_node_type(v), "true") == 0)
        return in_list("True", names, count);
    if (oom_pymodel_string_value(m, v, scratch) && in_list(scratch->data, names, count))
        return true;
    if (ts_node_symbol(v) == m->sym.call) {
        /* `torch.device("cpu")` holds the string it is made from */
        TSNode args = oom_model_child(m, v, "arguments", 9);
        if (oom_pymodel_qualname(m, oom_model_child(m, v, "function", 8), scratch) &&
            strcmp(scratch->data, "torch.device") == 0 && !ts_node_is_null(args) &&
            ts_node_named_child_count(args) > 0)
            /* one string only: `torch.device("cuda" if ok else "cpu")` may be either */
            return oom_pymodel_string_value(m, oom_model_named_child(m, args, 0), scratch) &&
                   in_list(scratch->data, names, count);
    }
    return oom_pymodel_qualname(m, v, scratch) && in_list(scratch->data, names, count);
}

bool oom_pymodel_holds(const oom_pymodel *m, TSNode expr, const char *const *names, size_t count, oom_buf *scratch)
{
    return holds(m, expr, names, count, scratch, 0);
}

/* The first dotted part of one of `modules` is `root` ("torch" of "torch.cuda"). */
static bool root_of_one(const char *root, const char *const *modules, size_t count)
{
    size_t len = strlen(root);
    for (size_t i = 0; i < count; i++)
        if (strncmp(modules[i], root, len) == 0 && modules[i][len] == '.')
            return true;
    return false;
}

bool oom_pymodel_is_method_of_module(const oom_pymodel *m, TSNode fn, const char *method,
                                     const char *const *modules, size_t count, oom_buf *scratch)
{
    /* the function itself by its dotted name: `from torch.cuda import empty_cache`,
     * `clear = torch.cuda.empty_cache; clear()` */
    if (oom_pymodel_qualname(m, fn, scratch)) {
        const char *dot = strrchr(scratch->data, '.');
        if (dot && strcmp(dot + 1, method) == 0) {
            scratch->len = (size_t)(dot - scratch->data);
            scratch->data[scratch->len] = '\0';
            if (in_list(scratch->data, modules, count))
                return true;
        }
    }
    if (ts_node_symbol(fn) != m->sym.attribute ||
        !oom_node_text_is(m, oom_model_child(m, fn, "attribute", 9), method))
        return false;
    TSNode object = oom_model_child(m, fn, "object", 6);
    /* torch.cuda.empty_cache(), `from torch import cuda` then cuda.empty_cache() */
    if (oom_pymodel_qualname(m, object, scratch) && in_list(scratch->data, modules, count))
        return true;
    /* accel = torch.cuda; accel.empty_cache() */
    if (ts_node_symbol(object) == m->sym.identifier && holds(m, object, modules, count, scratch, 0))
        return true;
    /* getattr(torch, device_type).empty_cache(): one of torch's accelerator modules */
    if (ts_node_symbol(object) != m->sym.call ||
        !oom_node_text_is(m, oom_model_child(m, object, "function", 8), "getattr"))
        return false;
    TSNode args = oom_model_child(m, object, "arguments", 9);
    TSNode first = ts_node_is_null(args) || !ts_node_named_child_count(args) ? (TSNode){0}
                                                                              : oom_model_named_child(m, args, 0);
    return !ts_node_is_null(first) && oom_pymodel_qualname(m, first, scratch) &&
           root_of_one(scratch->data, modules, count);
}

bool oom_pymodel_is_constant(const oom_pymodel *m, TSNode expr)
{
    TSNode v = oom_pymodel_value_of(m, expr, 0);
    return !ts_node_is_null(v) && oom_pymodel_is_literal(m, v);
}

/* CUDA reads CUDA_VISIBLE_DEVICES up to its first entry that is not a
 * device: an empty string or a negative index ("-1") as the first entry
 * leaves the process no GPU at all (a CPU run chosen on purpose). */
bool oom_pymodel_hides_every_gpu(const oom_pymodel *m, TSNode expr)
{
    TSNode v = oom_pymodel_value_of(m, expr, 0);
    if (ts_node_is_null(v) || strcmp(ts_node_type(v), "string") != 0)
        return false;
    oom_buf text;
    oom_buf_init(&text);
    bool hides = false;
    if (oom_pymodel_string_value(m, v, &text)) {
        const char *s = text.data;
        while (*s == ' ')
            s++;
        hides = *s == '\0' || *s == ',' || (*s == '-' && s[1] >= '0' && s[1] <= '9');
    }
    oom_buf_free(&text);
    return hides;
}

bool oom_pymodel_built_by(const oom_pymodel *m, TSNode expr, const char *const *names, size_t count,
                          oom_buf *scratch)
{
    TSNode v = oom_pymodel_value_of(m, expr, 0);
    for (int depth = 0; depth < 8 && !ts_node_is_null(v) && ts_node_symbol(v) == m->sym.call; depth++) {
        TSNode fn = oom_model_child(m, v, "function", 8);
        if (oom_pymodel_qualname(m, fn, scratch) && in_list(scratch->data, names, count))
            return true;
        if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
            return false;
        v = oom_model_child(m, fn, "object", 6); /* torch.zeros(n).to(device): the zeros */
    }
    return false;
}

/* ---- branches the file's own constants rule out ------------------------------------------------ */

/* `num_gpus = 1` at the top of a script and `if num_gpus > 1:` further down:
 * a name is fixed when the binding its read resolves to is the only one of
 * that name in its scope, binds an integer literal, and no `global` or
 * `nonlocal` statement names it (a function could rebind it then). */
static bool declared_anywhere(const oom_pymodel *m, const char *name, uint32_t len)
{
    for (size_t i = 0; i < m->declaration_count; i++) {
        const oom_site *d = &m->declarations[i];
        if (memmem(m->src + d->start, d->end - d->start, name, len))
            return true;
    }
    return false;
}

static bool fixed_int(const oom_pymodel *m, TSNode e, long long *out)
{
    while (!ts_node_is_null(e) && strcmp(ts_node_type(e), "parenthesized_expression") == 0)
        e = oom_model_named_child(m, e, 0);
    if (ts_node_is_null(e))
        return false;
    if (strcmp(ts_node_type(e), "integer") == 0)
        return oom_pymodel_int_value(m, e, out);
    if (ts_node_symbol(e) != m->sym.identifier)
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, e, &len);
    uint32_t pos = ts_node_start_byte(e);
    const oom_binding *b = oom_model_visible_binding(m, oom_model_scope_at(m, pos), name, len, pos, false);
    if (!b || b->kind != OOM_BIND_VALUE || strcmp(ts_node_type(b->value), "integer") != 0 ||
        declared_anywhere(m, name, len))
        return false;
    int count = 0;
    for (int i = m->scopes[b->scope].last_binding; i >= 0; i = m->bindings[i].prev)
        count += m->bindings[i].name_len == len && memcmp(m->bindings[i].name, name, len) == 0;
    return count == 1 && oom_pymodel_int_value(m, b->value, out);
}

enum { TRUTH_FALSE = 0, TRUTH_TRUE = 1, TRUTH_UNKNOWN = -1 };

static int compare_fixed(const oom_pymodel *m, TSNode cmp)
{
    if (ts_node_named_child_count(cmp) != 2 || ts_node_child_count(cmp) != 3)
        return TRUTH_UNKNOWN; /* a < b < c, `not in`, `is not` */
    long long a, b;
    if (!fixed_int(m, oom_model_named_child(m, cmp, 0), &a) || !fixed_int(m, oom_model_named_child(m, cmp, 1), &b))
        return TRUTH_UNKNOWN;
    const char *op = ts_node_type(ts_node_child(cmp, 1));
    if (strcmp(op, "<") == 0)
        return a < b;
    if (strcmp(op, "<=") == 0)
        return a <= b;
    if (strcmp(op, ">") == 0)
        return a > b;
    if (strcmp(op, ">=") == 0)
        return a >= b;
    if (strcmp(op, "==") == 0)
        return a == b;
    if (strcmp(op, "!=") == 0)
        return a != b;
    return TRUTH_UNKNOWN;
}

/* What a condition is for the file's fixed integers, or unknown. */
static int truth(const oom_pymodel *m, TSNode e, int depth)
{
    if (ts_node_is_null(e) || depth > 16)
        return TRUTH_UNKNOWN;
    const char *type = ts_node_type(e);
    long long v;
    if (strcmp(type, "parenthesized_expression") == 0)
        return truth(m, oom_model_named_child(m, e, 0), depth + 1);
    if (strcmp(type, "true") == 0 || strcmp(type, "false") == 0)
        return type[0] == 't';
    if (strcmp(type, "not_operator") == 0) {
        int t = truth(m, oom_model_child(m, e, "argument", 8), depth + 1);
        return t == TRUTH_UNKNOWN ? t : !t;
    }
    if (strcmp(type, "boolean_operator") == 0) {
        int l = truth(m, oom_model_child(m, e, "left", 4), depth + 1);
        int r = truth(m, oom_model_child(m, e, "right", 5), depth + 1);
        bool is_and = strcmp(ts_node_type(oom_model_child(m, e, "operator", 8)), "and") == 0;
        if (is_and)
            return l == TRUTH_FALSE || r == TRUTH_FALSE ? TRUTH_FALSE
                   : l == TRUTH_TRUE && r == TRUTH_TRUE ? TRUTH_TRUE : TRUTH_UNKNOWN;
        return l == TRUTH_TRUE || r == TRUTH_TRUE ? TRUTH_TRUE
               : l == TRUTH_FALSE && r == TRUTH_FALSE ? TRUTH_FALSE : TRUTH_UNKNOWN;
    }
    if (strcmp(type, "comparison_operator") == 0)
        return compare_fixed(m, e);
    if (fixed_int(m, e, &v))
        return v != 0;
    return TRUTH_UNKNOWN;
}

/* Whether a statement computes nothing when it runs: a definition (its
 * body runs when called, not here), `pass`, a docstring. */
static bool defines_only(const oom_pymodel *m, TSNode s)
{
    const char *type = ts_node_type(s);
    if (strcmp(type, "function_definition") == 0 || strcmp(type, "class_definition") == 0 ||
        strcmp(type, "decorated_definition") == 0 || strcmp(type, "pass_statement") == 0 ||
        strcmp(type, "comment") == 0)
        return true;
    return strcmp(type, "expression_statement") == 0 && ts_node_named_child_count(s) == 1 &&
           strcmp(ts_node_type(oom_model_named_child(m, s, 0)), "string") == 0;
}

bool oom_pymodel_context_runs_nothing(const oom_pymodel *m, TSNode node)
{
    TSNode up = node;
    while (!ts_node_is_null(up) && strcmp(ts_node_type(up), "with_statement") != 0) {
        const char *type = ts_node_type(up);
        if (strcmp(type, "block") == 0 || strcmp(type, "module") == 0 || strstr(type, "definition"))
            return false; /* inside a body, not the with's own items */
        up = oom_model_parent(m, up);
    }
    TSNode body = ts_node_is_null(up) ? up : oom_model_child(m, up, "body", 4);
    if (ts_node_is_null(body))
        return false;
    oom_model_kids kids = oom_model_kids_of(m, body);
    for (TSNode s; oom_model_next_kid(m, &kids, &s);)
        if (!defines_only(m, s))
            return false;
    return true;
}

bool oom_pymodel_never_runs(const oom_pymodel *m, TSNode node)
{
    TSNode child = node;
    for (TSNode up = oom_model_parent(m, node); !ts_node_is_null(up); child = up, up = oom_model_parent(m, up)) {
        const char *type = ts_node_type(up);
        if (ts_node_symbol(up) == m->sym.if_statement || strcmp(type, "elif_clause") == 0) {
            if (ts_node_eq(oom_model_child(m, up, "consequence", 11), child) &&
                truth(m, oom_model_child(m, up, "condition", 9), 0) == TRUTH_FALSE)
                return true;
        } else if (strcmp(type, "else_clause") == 0) {
            TSNode owner = oom_model_parent(m, up);
            if (!ts_node_is_null(owner) && ts_node_symbol(owner) == m->sym.if_statement &&
                truth(m, oom_model_child(m, owner, "condition", 9), 0) == TRUTH_TRUE)
                return true;
        }
    }
    return false;
}

bool oom_pymodel_int_value(const oom_pymodel *m, TSNode e, long long *out)
{
    for (int depth = 0; depth < 8 && !ts_node_is_null(e); depth++) {
        if (strcmp(ts_node_type(e), "integer") == 0) {
            uint32_t len;
            const char *t = oom_node_text(m, e, &len);
            char buf[32];
            size_t n = 0;
            for (uint32_t i = 0; i < len && n + 1 < sizeof buf; i++)
                if (t[i] != '_')
                    buf[n++] = t[i];
            buf[n] = '\0';
            char *end;
            long long v = strtoll(buf, &end, 0);
            if (*end)
                return false;
            *out = v;
            return true;
        }
        if (ts_node_symbol(e) != m->sym.identifier)
            return false;
        e = oom_model_bound_value(m, e);
    }
    return false;
}

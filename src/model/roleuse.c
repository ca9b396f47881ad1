/* model/roleuse: what the code does with a value that only a module
 * supports, and whether a call is given data or computed values. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roles.h"

/* ---- use ---------------------------------------------------------------------------- */

/* A field only a model's output has is read off what `call` returns:
 * `model(**batch).logits`, or `out = net(x)` then `out.loss` in the same
 * function (transformers' ModelOutput, diffusers' outputs). */
static bool result_read_as_model_output(role_query *q, TSNode call)
{
    const oom_pymodel *m = q->m;
    TSNode up = oom_model_parent(m, call);
    uint32_t len;
    if (!ts_node_is_null(up) && ts_node_symbol(up) == m->sym.attribute) {
        const char *field = oom_node_last_name(m, up, &len);
        TSNode above = oom_model_parent(m, up);
        bool called = !ts_node_is_null(above) && ts_node_symbol(above) == m->sym.call &&
                      ts_node_eq(oom_model_child(m, above, "function", 8), up);
        return field && !called && oom_library_lists(&q->lib->output_fields, field, len);
    }
    if (ts_node_is_null(up) || ts_node_symbol(up) != m->sym.assignment)
        return false;
    TSNode left = oom_model_child(m, up, "left", 4);
    if (ts_node_symbol(left) != m->sym.identifier || !m->nodes)
        return false;
    uint32_t nlen;
    const char *name = oom_node_text(m, left, &nlen);
    int scope = oom_model_scope_at(m, ts_node_start_byte(call));
    uint32_t end = scope > 0 ? m->scopes[scope].end : (uint32_t)m->len;
    uint32_t at = oom_nodes_find(m->nodes, up);
    for (uint32_t i = at == UINT32_MAX ? m->nodes->len : at; i < m->nodes->len; i++) {
        const oom_node *n = &m->nodes->items[i];
        if (n->start >= end)
            break;
        if (n->symbol != m->sym.attribute)
            continue;
        TSNode obj = oom_model_child(m, n->node, "object", 6);
        uint32_t olen;
        const char *o = oom_node_text(m, obj, &olen);
        const char *field = oom_node_last_name(m, n->node, &len);
        if (ts_node_symbol(obj) == m->sym.identifier && olen == nlen && memcmp(o, name, nlen) == 0 && field &&
            oom_library_lists(&q->lib->output_fields, field, len))
            return true;
    }
    return false;
}

/* A method only modules have is called on `text` (a name, or `self.x`)
 * between `start` and `end`, or the text is given to a library wrapper
 * there (`DDP(model)`), or a field only a model's output has is read off
 * what calling it returns. What feeds a backward is no evidence: a target
 * (`valid = Tensor(n, 1).fill_(1.0)`) feeds the loss as the forward does. */
static bool used_as_module_uncached(role_query *q, const char *text, uint32_t len, uint32_t start, uint32_t end);

bool oom_roles_used_as_module(role_query *q, const char *text, uint32_t len, uint32_t start, uint32_t end)
{
    const memo_slot *s = oom_roles_memo_find(q->m, MEMO_USED, start, text, len);
    if (s)
        return s->value;
    bool outer = oom_roles_begin_memo(q);
    bool used = used_as_module_uncached(q, text, len, start, end);
    /* evidence found is evidence; none found by a search cut short is not
     * an answer to keep */
    if (oom_roles_end_memo(q, outer) || used)
        oom_roles_memo_put(q->m, MEMO_USED, start, text, len, used);
    return used;
}

/* What one call site offers as evidence of a module, as byte spans of the
 * source: the callee's text (its result may be read as a model output), the
 * object a module-only method is called on, the arguments library wrappers
 * take (`arg_count` spans of the model's use_site_args from `first_arg`, one
 * per matching wrapper). Spans of length 0 are none. */
struct oom_source_span {
    uint32_t at, len;
};

struct oom_use_site {
    struct oom_source_span fn;
    struct oom_source_span obj; /* set when the callee is a module-only method */
    uint32_t first_arg, arg_count;
    bool method_evidence; /* a module-only method: the wrappers are not asked */
};

static struct oom_source_span span_of(TSNode n)
{
    if (ts_node_is_null(n))
        return (struct oom_source_span){0, 0};
    uint32_t at = ts_node_start_byte(n);
    return (struct oom_source_span){at, ts_node_end_byte(n) - at};
}

/* appends a wrapped argument's span to the model's list */
static void add_site_arg(oom_pymodel *m, size_t *cap, struct oom_source_span span)
{
    if (m->use_site_arg_count == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        m->use_site_args = oom_xrealloc(m->use_site_args, *cap * sizeof *m->use_site_args);
    }
    m->use_site_args[m->use_site_arg_count++] = span;
}

static void read_use_site(oom_pymodel *m, const oom_library *lib, size_t i, size_t *cap)
{
    const oom_call_site *c = &m->calls[i];
    struct oom_use_site *u = &m->use_sites[i];
    memset(u, 0, sizeof *u);
    u->fn = span_of(c->fn);
    if (ts_node_symbol(c->fn) == m->sym.attribute && oom_library_lists(&lib->use_evidence, c->name, c->name_len)) {
        u->method_evidence = true;
        u->obj = span_of(oom_model_child(m, c->fn, "object", 6));
        return;
    }
    uint64_t wrappers = oom_roles_call_wrappers(m, lib, i);
    u->first_arg = (uint32_t)m->use_site_arg_count;
    for (size_t w = 0; wrappers && w < 64; w++) {
        if (!(wrappers >> w & 1))
            continue;
        const oom_lib_wrapper *wr = &lib->wrappers[w];
        add_site_arg(m, cap, span_of(oom_roles_argument_at(m, c->node, wr->argument, wr->keyword)));
        u->arg_count++;
    }
}

static const struct oom_use_site *use_sites(const oom_pymodel *cm, const oom_library *lib)
{
    oom_pymodel *m = (oom_pymodel *)cm; /* one thread owns the model */
    if (!m->use_sites) {
        size_t cap = 0;
        m->use_sites = oom_xcalloc(m->call_count ? m->call_count : 1, sizeof *m->use_sites);
        for (size_t i = 0; i < m->call_count; i++)
            read_use_site(m, lib, i, &cap);
    }
    return m->use_sites;
}

static bool span_is(const oom_pymodel *m, struct oom_source_span span, const char *text, uint32_t len)
{
    return span.len == len && memcmp(m->src + span.at, text, len) == 0;
}

static bool wrapped_argument_is(const oom_pymodel *m, const struct oom_use_site *u, const char *text, uint32_t len)
{
    for (uint32_t k = 0; k < u->arg_count; k++)
        if (span_is(m, m->use_site_args[u->first_arg + k], text, len))
            return true;
    return false;
}

static bool used_as_module_uncached(role_query *q, const char *text, uint32_t len, uint32_t start, uint32_t end)
{
    const oom_pymodel *m = q->m;
    const struct oom_use_site *sites = use_sites(m, q->lib);
    for (size_t i = oom_model_first_call_from(m, start); i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (m->calls_in_order && c->pos >= end)
            break;
        if (c->pos < start || c->pos >= end)
            continue;
        const struct oom_use_site *u = &sites[i];
        if (span_is(m, u->fn, text, len)) {
            if (result_read_as_model_output(q, c->node))
                return true;
            continue;
        }
        if (u->method_evidence) {
            if (span_is(m, u->obj, text, len))
                return true;
            continue;
        }
        if (wrapped_argument_is(m, u, text, len))
            return true;
    }
    return false;
}

/* `e` is computed by another of the file's callables (`out` of `out =
 * self.model(x)`, `self.head(h)`, `logits.float()`), not read from the data
 * or made by a library function: what a loss function is given, where a
 * module is given data. */
static bool derived_from_own_call(const oom_pymodel *m, TSNode e, int depth)
{
    for (int i = 0; i < 8 && !ts_node_is_null(e); i++) {
        TSSymbol s = ts_node_symbol(e);
        if (s == m->sym.attribute) {
            e = oom_model_child(m, e, "object", 6);
        } else if (oom_roles_is_type(e, "subscript")) {
            e = oom_model_child(m, e, "value", 5);
        } else if (s == m->sym.call) {
            TSNode fn = oom_model_child(m, e, "function", 8);
            TSNode base = fn;
            while (ts_node_symbol(base) == m->sym.attribute)
                base = oom_model_child(m, base, "object", 6);
            if (ts_node_symbol(base) == m->sym.identifier && !oom_roles_is_self(m, base) &&
                oom_pymodel_is_import_alias(m, m->src + ts_node_start_byte(base),
                                            ts_node_end_byte(base) - ts_node_start_byte(base)))
                return false; /* torch.stack(...), F.normalize(...) */
            if (ts_node_symbol(fn) == m->sym.attribute && !oom_roles_is_self(m, oom_model_child(m, fn, "object", 6))) {
                e = oom_model_child(m, fn, "object", 6); /* logits.float(): what logits is */
                continue;
            }
            return true;
        } else if (s == m->sym.identifier) {
            TSNode v = depth < 3 ? oom_model_bound_value(m, e) : (TSNode){0};
            return !ts_node_is_null(v) && !ts_node_eq(v, e) && derived_from_own_call(m, v, depth + 1);
        } else {
            return false;
        }
    }
    return false;
}

/* Every argument of the call is data: none computed by another of the
 * file's callables. */
bool oom_roles_takes_data(const oom_pymodel *m, TSNode call)
{
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    bool some = false;
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            a = oom_model_child(m, a, "value", 5);
        else if (oom_roles_is_type(a, "list_splat") || oom_roles_is_type(a, "dictionary_splat"))
            a = ts_node_named_child_count(a) ? oom_model_named_child(m, a, 0) : (TSNode){0};
        if (!ts_node_is_null(a) && derived_from_own_call(m, a, 0))
            return false;
        some = true;
    }
    return some;
}


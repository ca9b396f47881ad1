/* model/callsites: what the file's calls bind to a function's parameter.
 * A parameter's value is unknown inside its function; the calls of that
 * function in the file say what it is (`evaluate(model, loader)` after
 * `model.requires_grad_(False)`). The roles analysis (roles.c) and the grad
 * analysis (grad.c) both read parameters through here. */
#include <stdlib.h>
#include <string.h>

#include "roles.h"

int oom_model_parameter_index(const oom_pymodel *m, TSNode def, const char *name, uint32_t len, TSNode *param)
{
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, def, "parameters", 10));
    int index = 0;
    for (TSNode p; oom_model_next_kid(m, &kids, &p); index++) {
        TSNode id = p;
        if (ts_node_symbol(p) != m->sym.identifier)
            id = ts_node_named_child_count(p) ? oom_model_named_child(m, p, 0) : (TSNode){0};
        if (oom_roles_is_type(id, "list_splat_pattern") || oom_roles_is_type(id, "dictionary_splat_pattern"))
            return -1;
        uint32_t plen;
        const char *t = !ts_node_is_null(id) && ts_node_symbol(id) == m->sym.identifier ? oom_node_text(m, id, &plen)
                                                                                         : NULL;
        if (t && plen == len && memcmp(t, name, len) == 0) {
            if (param)
                *param = p;
            return index;
        }
    }
    return -1;
}

/* The function scope whose parameter the identifier `id` reads, with the
 * parameter's position; -1 when `id` is bound otherwise where it stands
 * (reassigned, a closure's name, a method's parameter: a method's calls go
 * through objects this walk does not follow). */
static int parameter_scope_of(const oom_pymodel *m, TSNode id, int *index, TSNode *param, bool methods)
{
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    int scope = oom_model_scope_at(m, ts_node_start_byte(id));
    if (scope <= 0)
        return -1;
    const oom_scope *sc = &m->scopes[scope];
    if (ts_node_is_null(sc->def) || ts_node_symbol(sc->def) != m->sym.function_definition ||
        (!methods && !ts_node_is_null(oom_model_class_of_scope(m, sc))))
        return -1;
    const oom_binding *b = oom_model_visible_binding(m, scope, name, len, ts_node_start_byte(id), true);
    if (!b || b->kind != OOM_BIND_OPAQUE || b->scope != scope)
        return -1;
    *index = oom_model_parameter_index(m, sc->def, name, len, param);
    return *index >= 0 ? scope : -1;
}

static int parameter_scope(const oom_pymodel *m, TSNode id, int *index)
{
    return parameter_scope_of(m, id, index, NULL, false);
}

/* The same for a method's parameter too (self counted in *index), with the
 * parameter's node. */
static int parameter_scope_any(const oom_pymodel *m, TSNode id, int *index, TSNode *param)
{
    return parameter_scope_of(m, id, index, param, true);
}

int oom_model_every_bound_argument(const oom_pymodel *m, TSNode id, oom_argument_test holds, void *ctx)
{
    int index;
    int scope = ts_node_symbol(id) == m->sym.identifier ? parameter_scope(m, id, &index) : -1;
    if (scope < 0)
        return -1;
    const oom_scope *sc = &m->scopes[scope];
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    char keyword[128];
    if (len >= sizeof keyword)
        return -1;
    memcpy(keyword, name, len);
    keyword[len] = '\0';
    int calls = 0;
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->name_len != sc->name_len || memcmp(c->name, sc->name, c->name_len) != 0 ||
            ts_node_symbol(c->fn) != m->sym.identifier)
            continue;
        TSNode arg = oom_roles_argument_at(m, c->node, index, keyword);
        if (ts_node_is_null(arg) || !holds(m, arg, c->node, ctx))
            return 0; /* a default, a splat, or an argument that does not hold */
        calls++;
    }
    return calls ? 1 : -1;
}

int oom_model_called_scope(const oom_pymodel *m, TSNode fn)
{
    uint32_t len;
    const char *name = NULL;
    if (ts_node_symbol(fn) == m->sym.identifier) {
        name = oom_node_text(m, fn, &len);
        /* a parameter or local of that name shadows the def (`def
         * evaluate(model, ...)` beside a pytest fixture `def model()`) */
        int here = oom_model_scope_at(m, ts_node_start_byte(fn));
        if (here > 0 && oom_model_last_binding(m, here, name, len, ts_node_start_byte(fn), false))
            return -1;
    }
    else if (ts_node_symbol(fn) == m->sym.attribute && oom_roles_is_self(m, oom_model_child(m, fn, "object", 6)))
        name = oom_node_last_name(m, fn, &len);
    if (!name)
        return -1;
    for (size_t i = 1; i < m->scope_count; i++)
        if (m->scopes[i].name_len == len && memcmp(m->scopes[i].name, name, len) == 0 &&
            !ts_node_is_null(m->scopes[i].def))
            return (int)i;
    return -1;
}

/* One step of the walk: a backward (or torch.autograd.grad) in `scope`
 * between `from` and `until`, or a call there of a function of the file
 * that runs one anywhere in its body (a few calls deep). Each function is
 * read once per question (`seen`), so the walk stays linear in the file. */
static bool differentiates(const oom_pymodel *m, int scope, uint32_t from, uint32_t until, int depth,
                           unsigned char *seen)
{
    /* nothing of the scope stands outside its own span */
    const oom_scope *sc = &m->scopes[scope];
    if (from < sc->start)
        from = sc->start;
    if (until > sc->end)
        until = sc->end;
    for (size_t i = 0; i < m->backward_call_count; i++) {
        const oom_site *b = &m->backward_calls[i];
        if (b->scope == scope && b->start >= from && b->start < until)
            return true;
    }
    if (depth >= 3)
        return false;
    for (size_t i = oom_model_first_call_from(m, from); i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (m->calls_in_order && c->pos >= until)
            break;
        if (c->pos < from || c->pos >= until || oom_model_scope_at(m, c->pos) != scope)
            continue;
        int callee = oom_model_called_scope(m, c->fn);
        if (callee <= 0 || callee == scope || seen[callee])
            continue;
        seen[callee] = 1;
        if (differentiates(m, callee, 0, UINT32_MAX, depth + 1, seen))
            return true;
    }
    return false;
}

bool oom_model_differentiates_between(const oom_pymodel *m, int scope, uint32_t from, uint32_t until)
{
    unsigned char *seen = oom_xcalloc(m->scope_count ? m->scope_count : 1, 1);
    bool found = differentiates(m, scope, from, until, 0, seen);
    free(seen);
    return found;
}

size_t oom_model_first_call_from(const oom_pymodel *m, uint32_t pos)
{
    if (!m->calls_in_order)
        return 0;
    size_t lo = 0, hi = m->call_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->calls[mid].pos < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- what a call passes, for the project pass ---------------------------------------- */

void oom_pymodel_call_passed_args(const oom_pymodel *m, size_t i, uint32_t *positional, bool *splat,
                                  oom_buf *keywords)
{
    *positional = 0;
    *splat = false;
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, m->calls[i].node, "arguments", 9));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument) {
            uint32_t nlen;
            const char *name = oom_node_text(m, oom_model_child(m, a, "name", 4), &nlen);
            oom_buf_printf(keywords, "%s%.*s", keywords->len ? "," : "", (int)nlen, name);
        } else if (oom_roles_is_type(a, "list_splat") || oom_roles_is_type(a, "dictionary_splat")) {
            *splat = true;
        } else {
            (*positional)++;
        }
    }
}

/* ---- branches off by default ----------------------------------------------------------- */

/* The literal a parameter defaults to is off: False, None, 0. */
static bool falsy_default(const oom_pymodel *m, TSNode param)
{
    if (!oom_roles_is_type(param, "default_parameter") && !oom_roles_is_type(param, "typed_default_parameter"))
        return false;
    TSNode v = oom_model_child(m, param, "value", 5);
    const char *type = ts_node_is_null(v) ? "" : ts_node_type(v);
    if (strcmp(type, "false") == 0 || strcmp(type, "none") == 0)
        return true;
    long long n;
    return strcmp(type, "integer") == 0 && oom_pymodel_int_value(m, v, &n) && n == 0;
}

/* Whether a call of the file binds the parameter: by keyword, by position,
 * or through a splat that may hold it. */
static bool file_call_passes(const oom_pymodel *m, const char *callee, uint32_t callee_len, const char *param,
                             uint32_t plen, int position)
{
    oom_buf kw;
    oom_buf_init(&kw);
    bool passes = false;
    for (size_t i = 0; i < m->call_count && !passes; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->name_len != callee_len || memcmp(c->name, callee, callee_len) != 0)
            continue;
        uint32_t positional;
        bool splat;
        oom_buf_clear(&kw);
        oom_pymodel_call_passed_args(m, i, &positional, &splat, &kw);
        passes = splat || (int)positional > position ||
                 oom_comma_list_has(kw.data ? kw.data : "", param, plen);
    }
    oom_buf_free(&kw);
    return passes;
}

/* `if load_in_4bit:` where load_in_4bit is a parameter of the function
 * around it that defaults to False: the body runs only when a caller
 * passes it. The function's name as its calls spell it (the class's for
 * __init__) and the parameter's position among what callers pass; false
 * when the condition is not such a parameter. */
static bool off_by_default_parameter(const oom_pymodel *m, TSNode cond, const char **callee, uint32_t *callee_len,
                                     const char **param, uint32_t *plen, int *position)
{
    while (oom_roles_is_type(cond, "parenthesized_expression"))
        cond = oom_model_named_child(m, cond, 0);
    if (ts_node_is_null(cond) || ts_node_symbol(cond) != m->sym.identifier)
        return false;
    int index;
    TSNode node = {0};
    int scope = parameter_scope_any(m, cond, &index, &node);
    if (scope < 0)
        return false;
    const oom_scope *sc = &m->scopes[scope];
    *param = oom_node_text(m, cond, plen);
    if (!falsy_default(m, node))
        return false;
    TSNode cls = oom_model_class_of_scope(m, sc);
    *position = ts_node_is_null(cls) ? index : index - 1;
    *callee = sc->name;
    *callee_len = sc->name_len;
    if (!ts_node_is_null(cls) && sc->name_len == 8 && memcmp(sc->name, "__init__", 8) == 0) {
        TSNode name = oom_model_child(m, cls, "name", 4);
        if (ts_node_is_null(name))
            return false;
        *callee = oom_node_text(m, name, callee_len);
    }
    return *position >= 0;
}

bool oom_pymodel_may_run(const oom_pymodel *m, TSNode node)
{
    if (oom_pymodel_never_runs(m, node))
        return false;
    TSNode child = node;
    for (TSNode up = oom_model_parent(m, node); !ts_node_is_null(up); child = up, up = oom_model_parent(m, up)) {
        TSSymbol s = ts_node_symbol(up);
        if (s == m->sym.function_definition || s == m->sym.class_definition || s == m->sym.lambda)
            break;
        if (s != m->sym.if_statement || !ts_node_eq(oom_model_child(m, up, "consequence", 11), child))
            continue;
        const char *callee, *param;
        uint32_t clen, plen;
        int position;
        if (!off_by_default_parameter(m, oom_model_child(m, up, "condition", 9), &callee, &clen, &param, &plen,
                                      &position) ||
            file_call_passes(m, callee, clen, param, plen, position))
            continue;
        /* no call in this file turns it on: whether one elsewhere does is
         * the project pass's to say, which drops the finding if none does */
        if (m->conditions) {
            if (m->conditions->len)
                oom_buf_putc(m->conditions, '\n');
            oom_buf_printf(m->conditions, "nopass\t%.*s\t%.*s\t%d", (int)clen, callee, (int)plen, param, position);
        }
    }
    return true;
}

TSNode oom_roles_argument_at(const oom_pymodel *m, TSNode call, int index, const char *keyword)
{
    TSNode kw = keyword ? oom_pymodel_keyword_value(m, call, keyword) : (TSNode){0};
    if (!ts_node_is_null(kw) || index < 0)
        return kw;
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    int position = 0;
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument || oom_roles_is_type(a, "list_splat") ||
            oom_roles_is_type(a, "dictionary_splat"))
            continue;
        if (position++ == index)
            return a;
    }
    return (TSNode){0};
}

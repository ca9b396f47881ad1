/* model/callsites: what the file's calls bind to a function's parameter.
 * A parameter's value is unknown inside its function; the calls of that
 * function in the file say what it is (`evaluate(model, loader)` after
 * `model.requires_grad_(False)`). The roles analysis (roles.c) and the grad
 * analysis (grad.c) both read parameters through here. */
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
static int parameter_scope(const oom_pymodel *m, TSNode id, int *index)
{
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    int scope = oom_model_scope_at(m, ts_node_start_byte(id));
    if (scope <= 0)
        return -1;
    const oom_scope *sc = &m->scopes[scope];
    if (ts_node_is_null(sc->def) || ts_node_symbol(sc->def) != m->sym.function_definition ||
        !ts_node_is_null(oom_model_class_of_scope(m, sc)))
        return -1;
    const oom_binding *b = oom_model_visible_binding(m, scope, name, len, ts_node_start_byte(id), true);
    if (!b || b->kind != OOM_BIND_OPAQUE || b->scope != scope)
        return -1;
    *index = oom_model_parameter_index(m, sc->def, name, len, NULL);
    return *index >= 0 ? scope : -1;
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
 * that runs one anywhere in its body (a few calls deep). */
static bool differentiates(const oom_pymodel *m, int scope, uint32_t from, uint32_t until, int depth)
{
    for (size_t i = 0; i < m->backward_call_count; i++) {
        const oom_site *b = &m->backward_calls[i];
        if (b->scope == scope && b->start >= from && b->start < until)
            return true;
    }
    if (depth >= 3)
        return false;
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->pos < from || c->pos >= until || oom_model_scope_at(m, c->pos) != scope)
            continue;
        int callee = oom_model_called_scope(m, c->fn);
        if (callee > 0 && callee != scope && differentiates(m, callee, 0, UINT32_MAX, depth + 1))
            return true;
    }
    return false;
}

bool oom_model_differentiates_between(const oom_pymodel *m, int scope, uint32_t from, uint32_t until)
{
    return differentiates(m, scope, from, until, 0);
}

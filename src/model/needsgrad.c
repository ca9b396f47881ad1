/* model/needsgrad: modules whose own code differentiates, so that their
 * forward needs autograd even in evaluation. A signed-distance network
 * computes its surface normals with torch.autograd.grad inside the forward
 * (IDR, VolSDF), an interatomic potential its forces: under the help's
 * `torch.no_grad()` that call raises, so an evaluation forward of such a
 * module is no graph built for nothing. What differentiates is read from
 * the library knowledge (values.differentiating_functions); which module a
 * forward runs is read from where its name was bound. */
#include <stdlib.h>
#include <string.h>

#include "roles.h"

/* ---- the file's differentiating classes ------------------------------------------ */

static bool calls_differentiating_function(const oom_pymodel *m, const oom_library *lib, const oom_call_site *c,
                                           oom_buf *q)
{
    uint32_t len;
    const char *last = oom_node_last_name(m, c->fn, &len);
    bool may = false;
    for (size_t i = 0; last && i < lib->differentiating_functions.len && !may; i++) {
        const char *f = lib->differentiating_functions.items[i], *dot = strrchr(f, '.');
        const char *tail = dot ? dot + 1 : f;
        may = strlen(tail) == len && memcmp(tail, last, len) == 0;
    }
    oom_buf_clear(q);
    return may && oom_pymodel_qualname(m, c->fn, q) && oom_strlist_contains(&lib->differentiating_functions, q->data);
}

static int class_index(const oom_pymodel *m, TSNode cls)
{
    for (uint32_t k = 0; k < m->class_count; k++)
        if (ts_node_eq(m->nodes->items[m->class_nodes[k]].node, cls))
            return (int)k;
    return -1;
}

/* The innermost class whose method (or a function nested in one) holds pos. */
static int class_around_pos(const oom_pymodel *m, uint32_t pos)
{
    for (int scope = oom_model_scope_at(m, pos); scope > 0; scope = m->scopes[scope].parent) {
        TSNode cls = oom_model_class_of_scope(m, &m->scopes[scope]);
        if (!ts_node_is_null(cls))
            return class_index(m, cls);
    }
    return -1;
}

/* A module class differentiates when one of its methods calls a
 * differentiating function, or builds an instance of such a class of the
 * file (IDRNetwork's `self.implicit_network = ImplicitNetwork(...)`, whose
 * gradient() takes torch.autograd.grad). */
static void list_differentiating(const oom_pymodel *cm)
{
    oom_pymodel *m = (oom_pymodel *)cm; /* one thread owns the model */
    m->differentiating_listed = true;
    const oom_library *lib = oom_library_get();
    oom_roles_list_classes(m);
    if (!lib || m->class_count == 0 || lib->differentiating_functions.len == 0)
        return;
    m->differentiating = oom_xcalloc(m->class_count, 1);
    oom_buf q;
    oom_buf_init(&q);
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        int k = calls_differentiating_function(m, lib, c, &q) ? class_around_pos(m, c->pos) : -1;
        if (k >= 0)
            m->differentiating[k] = 1;
    }
    oom_buf_free(&q);
    for (int round = 0; round < 4; round++) {
        bool grew = false;
        for (size_t i = 0; i < m->call_count; i++) {
            const oom_call_site *c = &m->calls[i];
            if (ts_node_symbol(c->fn) != m->sym.identifier)
                continue;
            uint32_t len;
            const char *name = oom_node_text(m, c->fn, &len);
            TSNode built = oom_roles_own_class(m, name, len);
            int b = ts_node_is_null(built) ? -1 : class_index(m, built);
            int k = b >= 0 && m->differentiating[b] ? class_around_pos(m, c->pos) : -1;
            if (k >= 0 && !m->differentiating[k])
                m->differentiating[k] = 1, grew = true;
        }
        if (!grew)
            break;
    }
    for (uint32_t k = 0; k < m->class_count; k++)
        if (m->differentiating[k] && !oom_model_class_is_module(m, m->nodes->items[m->class_nodes[k]].node))
            m->differentiating[k] = 0;
}

static bool class_differentiates(const oom_pymodel *m, TSNode cls)
{
    if (!m->differentiating_listed)
        list_differentiating(m);
    int k = m->differentiating ? class_index(m, cls) : -1;
    return k >= 0 && m->differentiating[k];
}

void oom_pymodel_differentiating_classes(const oom_pymodel *m, oom_buf *out)
{
    if (!m->differentiating_listed)
        list_differentiating(m);
    for (uint32_t k = 0; m->differentiating && k < m->class_count; k++) {
        if (!m->differentiating[k])
            continue;
        uint32_t len;
        const char *name = oom_node_text(m, oom_model_child(m, m->nodes->items[m->class_nodes[k]].node, "name", 4), &len);
        oom_buf_append(out, name, len);
        oom_buf_putc(out, '\0');
    }
}

/* ---- the module a forward runs ------------------------------------------------------- */

typedef enum { CLASS_NONE, CLASS_OWN, CLASS_IMPORTED, CLASS_UNKNOWN } class_kind;

/* What `value` builds: the file's class (`ImplicitNetwork(...)`), a class
 * imported by name (`from model.net import Net`; the module and the name
 * into `q`), or an unknown callable (`get_class(conf.model_class)(conf)`). */
static class_kind built_class(const oom_pymodel *m, TSNode value, TSNode *cls, oom_buf *q)
{
    if (ts_node_is_null(value) || ts_node_symbol(value) != m->sym.call)
        return CLASS_NONE;
    TSNode fn = oom_model_child(m, value, "function", 8);
    const oom_library *lib = oom_library_get();
    /* `Potential().cuda()`, `Net(cfg).to(device).eval()`: the module's own methods give it back */
    for (int hops = 0; lib && hops < 8 && !ts_node_is_null(fn) && ts_node_symbol(fn) == m->sym.attribute; hops++) {
        uint32_t len;
        const char *method = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
        TSNode object = oom_model_child(m, fn, "object", 6);
        if (!oom_library_lists(&lib->self_returning, method, len) || ts_node_is_null(object) ||
            ts_node_symbol(object) != m->sym.call)
            break;
        fn = oom_model_child(m, object, "function", 8);
    }
    if (ts_node_is_null(fn))
        return CLASS_NONE;
    if (ts_node_symbol(fn) == m->sym.identifier) {
        uint32_t len;
        const char *name = oom_node_text(m, fn, &len);
        *cls = oom_roles_own_class(m, name, len);
        if (!ts_node_is_null(*cls))
            return CLASS_OWN;
    }
    oom_buf_clear(q);
    if (ts_node_symbol(fn) == m->sym.identifier || ts_node_symbol(fn) == m->sym.attribute) {
        if (!oom_pymodel_qualname(m, fn, q))
            return CLASS_NONE;
        uint32_t root_len = (uint32_t)strcspn(q->data, ".");
        return q->data[0] != '.' && strchr(q->data, '.') && oom_pymodel_is_import_alias(m, q->data, root_len)
                   ? CLASS_IMPORTED
                   : CLASS_NONE;
    }
    return CLASS_UNKNOWN; /* a call of a call: a registry's lookup */
}

/* What class the module called at `fn` is an instance of. A parameter, or a
 * name bound by something else than a call, is unknown. */
static class_kind callee_class(const oom_pymodel *m, int scope, const oom_call_site *c, TSNode *cls, oom_buf *q)
{
    TSNode fn = c->fn, value = (TSNode){0};
    uint32_t len;
    if (ts_node_symbol(fn) == m->sym.attribute && oom_node_text_is(m, oom_model_child(m, fn, "attribute", 9), "forward"))
        fn = oom_model_child(m, fn, "object", 6);
    if (ts_node_symbol(fn) == m->sym.identifier) {
        const char *name = oom_node_text(m, fn, &len);
        const oom_binding *b = oom_model_visible_binding(m, scope, name, len, c->pos, true);
        if (!b || b->kind != OOM_BIND_VALUE)
            return b && b->kind == OOM_BIND_OPAQUE && !oom_pymodel_is_import_alias(m, name, len) ? CLASS_UNKNOWN
                                                                                                  : CLASS_NONE;
        value = b->value;
    } else if (ts_node_symbol(fn) == m->sym.attribute && oom_roles_is_self(m, oom_model_child(m, fn, "object", 6))) {
        TSNode owner;
        value = oom_roles_self_attribute_value(m, fn, &owner);
        if (ts_node_is_null(value))
            return CLASS_UNKNOWN;
    } else {
        return CLASS_NONE;
    }
    class_kind k = built_class(m, value, cls, q);
    /* `model = model_or_parameter` and other names: what they hold is not read here */
    return k == CLASS_NONE && ts_node_symbol(value) == m->sym.identifier ? CLASS_UNKNOWN : k;
}

static void note(const oom_pymodel *m, const char *module, size_t mlen, const char *cls, size_t clen)
{
    if (!m->conditions)
        return;
    if (m->conditions->len)
        oom_buf_putc(m->conditions, '\n');
    oom_buf_printf(m->conditions, "diffwd\t%.*s\t%.*s", (int)mlen, module, (int)clen, cls);
}

bool oom_pymodel_forwards_need_no_grad(const oom_pymodel *m, TSNode node)
{
    int scope = oom_model_scope_at(m, ts_node_start_byte(node));
    if (scope <= 0)
        return true;
    const oom_scope *sc = &m->scopes[scope];
    oom_buf q;
    oom_buf_init(&q);
    bool needs = false;
    for (size_t i = oom_model_first_call_from(m, sc->start); i < m->call_count && !needs; i++) {
        const oom_call_site *c = &m->calls[i];
        if (m->calls_in_order && c->pos >= sc->end)
            break;
        if (c->pos < sc->start || c->pos >= sc->end || oom_model_scope_at(m, c->pos) != scope ||
            oom_model_module_role(m, c->fn) != OOM_ROLE_MODULE)
            continue;
        TSNode cls = (TSNode){0};
        switch (callee_class(m, scope, c, &cls, &q)) {
        case CLASS_OWN:
            needs = class_differentiates(m, cls);
            break;
        case CLASS_IMPORTED: {
            const char *dot = strrchr(q.data, '.');
            note(m, q.data, (size_t)(dot - q.data), dot + 1, strlen(dot + 1));
            break;
        }
        case CLASS_UNKNOWN:
            note(m, "", 0, "", 0);
            break;
        case CLASS_NONE:
            break;
        }
    }
    oom_buf_free(&q);
    return !needs;
}

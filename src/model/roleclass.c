/* model/roleclass: the file's own classes, and which are modules. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roles.h"

/* ---- classes of the file ------------------------------------------------------ */

/* The class_definition named `name` in this file (the first), or null. */
static void list_classes(const oom_pymodel *cm)
{
    oom_pymodel *m = (oom_pymodel *)cm; /* one thread owns the model */
    m->classes_listed = true;
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nodes->len; i++)
        n += m->nodes->items[i].symbol == m->sym.class_definition;
    m->class_nodes = oom_xcalloc(n ? n : 1, sizeof *m->class_nodes);
    for (uint32_t i = 0; i < m->nodes->len; i++)
        if (m->nodes->items[i].symbol == m->sym.class_definition)
            m->class_nodes[m->class_count++] = i;
}

static TSNode class_named(const oom_pymodel *m, const char *name, uint32_t len)
{
    for (uint32_t k = 0; k < m->class_count; k++) {
        TSNode cls = m->nodes->items[m->class_nodes[k]].node;
        TSNode n = oom_model_child(m, cls, "name", 4);
        uint32_t nlen;
        const char *t = ts_node_is_null(n) ? NULL : oom_node_text(m, n, &nlen);
        if (t && nlen == len && memcmp(t, name, len) == 0)
            return cls;
    }
    return (TSNode){0};
}

void oom_roles_list_classes(const oom_pymodel *m)
{
    if (m->nodes && !m->classes_listed)
        list_classes(m);
}

/* The class `name` is, or is bound to at module level: `Net = AtariNet`
 * (torchbeast) names the same class, and so does a chain of such aliases. */
TSNode oom_roles_own_class(const oom_pymodel *m, const char *name, uint32_t len)
{
    if (!m->nodes)
        return (TSNode){0};
    oom_roles_list_classes(m);
    for (int hop = 0; hop < 4; hop++) {
        TSNode cls = class_named(m, name, len);
        if (!ts_node_is_null(cls) || m->class_count == 0)
            return cls;
        const oom_binding *b = oom_model_visible_binding(m, 0, name, len, (uint32_t)m->len, true);
        if (!b || b->kind != OOM_BIND_VALUE || ts_node_is_null(b->value) || ts_node_symbol(b->value) != m->sym.identifier)
            return (TSNode){0};
        name = oom_node_text(m, b->value, &len);
    }
    return (TSNode){0};
}

static bool class_defines(const oom_pymodel *m, TSNode cls, const char *method)
{
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, cls, "body", 4));
    for (TSNode def; oom_model_next_kid(m, &kids, &def);) {
        if (ts_node_symbol(def) == m->sym.decorated_definition)
            def = oom_model_child(m, def, "definition", 10);
        if (!ts_node_is_null(def) && ts_node_symbol(def) == m->sym.function_definition &&
            oom_node_text_is(m, oom_model_child(m, def, "name", 4), method))
            return true;
    }
    return false;
}

/* `fn` names a class through an import (`from pkg.models import Net`,
 * `models.Net`): its base name is an import alias and its last name is a
 * class's (capitalised, the convention every library here follows). */
bool oom_roles_imported_class(const oom_pymodel *m, TSNode fn, const char *qual)
{
    TSNode base = fn;
    while (ts_node_symbol(base) == m->sym.attribute)
        base = oom_model_child(m, base, "object", 6);
    const char *dot = strrchr(qual, '.');
    return ts_node_symbol(base) == m->sym.identifier && dot && dot > qual && isupper((unsigned char)dot[1]) &&
           oom_pymodel_is_import_alias(m, m->src + ts_node_start_byte(base),
                                       ts_node_end_byte(base) - ts_node_start_byte(base));
}

/* A class of the file is a module when it derives from a library module
 * base (by qualified name) or from another module class of the file, or
 * defines `forward` (the nn.Module protocol: a base from elsewhere in the
 * project). A class with bases known to be no modules, or none, and no
 * forward is not one; an unresolved base without a forward is unknown. */
static oom_role own_class_role_uncached(role_query *q, TSNode cls, int depth);

oom_role oom_roles_own_class_role(role_query *q, TSNode cls, int depth)
{
    const char *at = q->m->src + ts_node_start_byte(cls);
    const memo_slot *s = oom_roles_memo_find(q->m, MEMO_CLASS, 0, at, 0);
    if (s && s->value != MEMO_ASK_AGAIN)
        return (oom_role)s->value;
    if (!s)
        oom_roles_memo_put(q->m, MEMO_CLASS, 0, at, 0, OOM_ROLE_UNKNOWN); /* a base cycle answers unknown */
    size_t waits = q->cond.len;
    bool would = q->m->would_wait;
    ((oom_pymodel *)q->m)->would_wait = false; /* one thread owns the model */
    bool outer = oom_roles_begin_memo(q);
    oom_role r = own_class_role_uncached(q, cls, depth);
    bool whole = oom_roles_end_memo(q, outer);
    /* an answer that waits (or would wait) on another file, or an unknown
     * that a search cut short left, is worked out again each time */
    oom_roles_memo_put(q->m, MEMO_CLASS, 0, at, 0,
                       (whole || r != OOM_ROLE_UNKNOWN) && q->cond.len == waits && !q->m->would_wait
                           ? (int)r
                           : MEMO_ASK_AGAIN);
    ((oom_pymodel *)q->m)->would_wait |= would;
    return r;
}

static oom_role own_class_role_uncached(role_query *q, TSNode cls, int depth)
{
    const oom_pymodel *m = q->m;
    if (!oom_roles_spend(q, depth))
        return OOM_ROLE_UNKNOWN;
    oom_role r = OOM_ROLE_NOT_MODULE;
    char *waits = NULL; /* the imported base the answer would wait on */
    size_t waits_dot = 0;
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, cls, "superclasses", 12));
    oom_buf qn;
    oom_buf_init(&qn);
    for (TSNode base; oom_model_next_kid(m, &kids, &base);) {
        if (ts_node_symbol(base) == m->sym.keyword_argument)
            continue; /* metaclass=... */
        if (!oom_pymodel_qualname(m, base, &qn)) {
            r = oom_roles_join(r, OOM_ROLE_UNKNOWN) == OOM_ROLE_NOT_MODULE ? OOM_ROLE_UNKNOWN : r;
            continue;
        }
        if (oom_qpattern_find(q->lib->bases, q->lib->base_count, qn.data) >= 0) {
            r = OOM_ROLE_MODULE;
            break;
        }
        TSNode own = ts_node_symbol(base) == m->sym.identifier ? oom_roles_own_class(m, qn.data, (uint32_t)qn.len) : (TSNode){0};
        if (!ts_node_is_null(own) && !ts_node_eq(own, cls)) {
            oom_role base_role = oom_roles_own_class_role(q, own, depth + 1);
            if (base_role == OOM_ROLE_MODULE) {
                r = OOM_ROLE_MODULE;
                break;
            }
            if (base_role == OOM_ROLE_UNKNOWN)
                r = OOM_ROLE_UNKNOWN;
        } else if (oom_roles_imported_class(m, base, qn.data) && !waits) {
            /* `class Net(BaseModel)` with BaseModel from the project: a module
             * if that file says its class is one */
            const char *dot = strrchr(qn.data, '.');
            waits = oom_xstrdup(qn.data);
            waits_dot = (size_t)(dot - qn.data);
            r = OOM_ROLE_UNKNOWN;
        } else if (strcmp(qn.data, "object") != 0) {
            r = OOM_ROLE_UNKNOWN; /* a base from another file or library */
        }
    }
    /* a `forward` makes a module of a class whose base comes from elsewhere
     * (the nn.Module protocol through the project's own base); a class with
     * no base, or only `object`, that defines one is a plain callable */
    if (r != OOM_ROLE_MODULE && r != OOM_ROLE_NOT_MODULE && class_defines(m, cls, "forward")) {
        free(waits);
        waits = NULL;
        r = OOM_ROLE_MODULE;
    }
    if (r == OOM_ROLE_UNKNOWN && waits) {
        r = oom_roles_wait_on(q, "module\t%.*s\t%.*s", waits, waits_dot, waits + waits_dot + 1, strlen(waits + waits_dot + 1), -1)
                ? OOM_ROLE_MODULE
                : OOM_ROLE_UNKNOWN;
    }
    free(waits);
    oom_buf_free(&qn);
    return r;
}


bool oom_model_class_is_module(const oom_pymodel *m, TSNode cls)
{
    const oom_library *lib = oom_library_get();
    if (!lib || ts_node_is_null(cls))
        return false;
    role_query q = {m, lib, ROLE_BUDGET, {0}, false, 0};
    oom_buf_init(&q.cond);
    oom_buf *waiting = m->pending_conditions;
    oom_pymodel_collect_pending(m, NULL); /* settled by this file alone */
    bool module = oom_roles_own_class_role(&q, cls, 0) == OOM_ROLE_MODULE;
    oom_pymodel_collect_pending(m, waiting);
    oom_buf_free(&q.cond);
    return module;
}

void oom_pymodel_collect_pending(const oom_pymodel *m, oom_buf *into)
{
    ((oom_pymodel *)m)->pending_conditions = into; /* one thread owns the model */
}

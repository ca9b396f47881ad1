/* model/rolefacts: the roles the project pass joins across files: the
 * calls' module arguments and the file's module classes. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roles.h"

/* ---- for the project pass ------------------------------------------------------------- */

/* A module by the file's own evidence, waiting on no other file. */
static bool certainly_module(const oom_pymodel *m, TSNode expr)
{
    oom_buf *collecting = m->pending_conditions;
    oom_pymodel_collect_pending(m, NULL);
    bool module = oom_model_module_role(m, expr) == OOM_ROLE_MODULE; /* without waiting: certain */
    oom_pymodel_collect_pending(m, collecting);
    return module;
}

void oom_pymodel_call_module_args(const oom_pymodel *m, size_t i, uint32_t *mask, oom_buf *keywords)
{
    *mask = 0;
    oom_buf_clear(keywords);
    if (!oom_library_get())
        return;
    TSNode args = oom_model_child(m, m->calls[i].node, "arguments", 9);
    oom_model_kids kids = oom_model_kids_of(m, args);
    int position = 0;
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        TSNode value = a;
        uint32_t nlen = 0;
        const char *kw = NULL;
        if (ts_node_symbol(a) == m->sym.keyword_argument) {
            kw = oom_node_text(m, oom_model_child(m, a, "name", 4), &nlen);
            value = oom_model_child(m, a, "value", 5);
        } else if (oom_roles_is_type(a, "list_splat") || oom_roles_is_type(a, "dictionary_splat")) {
            return; /* the positions after it are not known */
        }
        /* names and attributes only: what a model is passed as */
        bool candidate = !ts_node_is_null(value) &&
                         (ts_node_symbol(value) == m->sym.identifier || ts_node_symbol(value) == m->sym.attribute);
        if (candidate && certainly_module(m, value)) {
            if (kw)
                oom_buf_printf(keywords, "%s%.*s", keywords->len ? "," : "", (int)nlen, kw);
            else if (position < 32)
                *mask |= 1u << position;
        }
        if (!kw)
            position++;
    }
}

void oom_pymodel_module_classes(const oom_pymodel *m, oom_buf *out)
{
    const oom_library *lib = oom_library_get();
    if (!lib || !m->nodes)
        return;
    for (uint32_t i = 0; i < m->nodes->len; i++) {
        if (m->nodes->items[i].symbol != m->sym.class_definition)
            continue;
        TSNode cls = m->nodes->items[i].node;
        role_query q = {m, lib, ROLE_BUDGET, {0}, false, 0};
        oom_buf_init(&q.cond);
        bool module = oom_roles_own_class_role(&q, cls, 0) == OOM_ROLE_MODULE && q.cond.len == 0;
        oom_buf_free(&q.cond);
        uint32_t len;
        TSNode name = oom_model_child(m, cls, "name", 4);
        if (module && !ts_node_is_null(name)) {
            const char *text = oom_node_text(m, name, &len);
            oom_buf_append(out, text, len);
            oom_buf_putc(out, '\0');
        }
    }
}

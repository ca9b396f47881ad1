/* model/placement: a module that stays on the host. A forward costs GPU
 * memory only on the GPU: the `if __name__ == "__main__":` smoke test that
 * builds a model and runs it on `torch.randn(1, 200, 80)`, a CPU export
 * check, keep their activations in host memory. Shown, not assumed: the
 * name the forward calls is bound, on every path that reaches the call, to
 * a module constructed right there (a class of the file's or an imported
 * one, no device argument), and nothing in its function places it (no
 * `.cuda()`, `.to(...)`, no handing it to another call that could: DDP,
 * accelerator.prepare, a helper), nor does the file set a default device;
 * or it is bound, on every path, to the module just moved to the host
 * (`model = model.cpu()`) with nothing placing it again before the forward.
 * Anything else is "maybe on the GPU". */
#include <string.h>

#include "internal.h"
#include "oomlint/library.h"
#include "roles.h"

static bool constructs_module_on_host(const oom_pymodel *m, TSNode value, int depth);

static bool has_device_argument(const oom_pymodel *m, TSNode call)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    oom_model_kids kids = oom_model_kids_of(m, args);
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) != m->sym.keyword_argument)
            continue;
        TSNode key = oom_model_child(m, a, "name", 4);
        uint32_t klen;
        const char *k = oom_node_text(m, key, &klen);
        const oom_library *lib = oom_library_get();
        if (!lib || oom_library_lists(&lib->placing_keywords, k, klen))
            return true;
    }
    return false;
}

/* A module-level function of the file every return of which builds a
 * module on the host: wespeaker's `def ResNet34(...): return ResNet(...)`. */
static bool own_factory_on_host(const oom_pymodel *m, const char *name, uint32_t len, int depth)
{
    int scope = -1;
    for (size_t i = 1; i < m->scope_count && scope < 0; i++)
        if (m->scopes[i].parent == 0 && m->scopes[i].name && m->scopes[i].name_len == len &&
            memcmp(m->scopes[i].name, name, len) == 0)
            scope = (int)i;
    if (scope < 0)
        return false;
    size_t returns = 0;
    for (size_t i = 0; i < m->return_count; i++) {
        if (m->returns[i].scope != scope)
            continue;
        if (!constructs_module_on_host(m, m->returns[i].value, depth + 1))
            return false;
        returns++;
    }
    return returns > 0;
}

/* A call that builds a module from a class, with no device to put it on:
 * `ResNet(feat_dim=80)`, `nn.Linear(8, 8)`, or the file's factory of one. */
static bool constructs_module_on_host(const oom_pymodel *m, TSNode value, int depth)
{
    if (depth > 2)
        return false;
    if (ts_node_is_null(value) || ts_node_symbol(value) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, value, "function", 8);
    if (ts_node_is_null(fn))
        return false;
    bool a_class = false;
    if (ts_node_symbol(fn) == m->sym.identifier) {
        uint32_t len;
        const char *name = oom_node_text(m, fn, &len);
        TSNode cls = oom_roles_own_class(m, name, len);
        a_class = !ts_node_is_null(cls) && oom_model_class_is_module(m, cls);
        if (ts_node_is_null(cls) && own_factory_on_host(m, name, len, depth))
            return !has_device_argument(m, value);
    }
    if (!a_class) {
        oom_buf q;
        oom_buf_init(&q);
        a_class = oom_pymodel_qualname(m, fn, &q) && oom_roles_imported_class(m, fn, q.data);
        oom_buf_free(&q);
    }
    return a_class && oom_model_module_role(m, value) == OOM_ROLE_MODULE && !has_device_argument(m, value);
}

static bool text_is(const oom_pymodel *m, TSNode n, const char *text, uint32_t len)
{
    uint32_t nlen;
    const char *t = oom_node_text(m, n, &nlen);
    return nlen == len && memcmp(t, text, len) == 0;
}

/* The call moves `name` (`name.cuda()`, `name.to(device)`) or hands it to
 * another call, which may. */
static bool call_may_place(const oom_pymodel *m, TSNode call, const char *name, uint32_t len)
{
    const oom_library *lib = oom_library_get();
    if (!lib)
        return true;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (!ts_node_is_null(fn) && ts_node_symbol(fn) == m->sym.attribute &&
        text_is(m, oom_model_child(m, fn, "object", 6), name, len)) {
        uint32_t alen;
        const char *attr = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &alen);
        if (oom_library_lists(&lib->placing_methods, attr, alen))
            return true;
    }
    TSNode args = oom_model_child(m, call, "arguments", 9);
    oom_model_kids kids = oom_model_kids_of(m, args);
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            a = oom_model_child(m, a, "value", 5);
        if (!ts_node_is_null(a) && ts_node_symbol(a) == m->sym.identifier && text_is(m, a, name, len))
            return true;
    }
    return false;
}

static bool placed_in_scope(const oom_pymodel *m, int scope, const char *name, uint32_t len)
{
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (oom_model_scope_at(m, ts_node_start_byte(c->node)) == scope && call_may_place(m, c->node, name, len))
            return true;
    }
    return false;
}

/* Bound, in the forward's own function (`*ctx`), to a module built on the host. */
static bool bound_on_host_here(const oom_pymodel *m, const oom_binding *b, void *ctx)
{
    return b && b->scope == *(const int *)ctx && b->kind == OOM_BIND_VALUE &&
           constructs_module_on_host(m, b->value, 0);
}

/* The file may set a default device (`torch.set_default_device("cuda")`):
 * then a module built without one may still be on the GPU. */
bool oom_model_may_set_default_device(const oom_pymodel *m, const oom_library *lib)
{
    for (size_t i = 0; i < lib->default_device_functions.len; i++) {
        const char *f = lib->default_device_functions.items[i];
        if (memmem(m->src, m->len, f, strlen(f)) != NULL)
            return true;
    }
    return false;
}

typedef struct {
    int scope;
    uint32_t use; /* where the forward stands */
    const char *name;
    uint32_t len;
} host_move_at;

/* `model = model.cpu()` in the forward's own function ("perform validation
 * on CPU because full graph is too large"), and nothing between it and the
 * forward places the module again or hands it on. */
static bool bound_by_host_move(const oom_pymodel *m, const oom_binding *b, void *ctx)
{
    const host_move_at *at = ctx;
    const oom_library *lib = oom_library_get();
    if (!lib || !b || b->kind != OOM_BIND_VALUE || b->scope != at->scope || ts_node_is_null(b->value) ||
        ts_node_symbol(b->value) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, b->value, "function", 8);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
        return false;
    uint32_t alen;
    const char *attr = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &alen);
    if (!oom_library_lists(&lib->host_methods, attr, alen))
        return false;
    for (size_t i = 0; i < m->call_count; i++) {
        TSNode c = m->calls[i].node;
        uint32_t at_pos = ts_node_start_byte(c);
        if (at_pos >= b->pos && at_pos < at->use && oom_model_scope_at(m, at_pos) == at->scope &&
            call_may_place(m, c, at->name, at->len))
            return false;
    }
    return true;
}

bool oom_pymodel_forward_on_host(const oom_pymodel *m, TSNode call)
{
    const oom_library *lib = oom_library_get();
    if (!lib || ts_node_is_null(call) || ts_node_symbol(call) != m->sym.call || oom_model_may_set_default_device(m, lib))
        return false;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (!ts_node_is_null(fn) && ts_node_symbol(fn) == m->sym.attribute &&
        oom_node_text_is(m, oom_model_child(m, fn, "attribute", 9), "forward"))
        fn = oom_model_child(m, fn, "object", 6);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.identifier)
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, fn, &len);
    int scope = oom_model_scope_at(m, ts_node_start_byte(call));
    host_move_at moved = {scope, ts_node_start_byte(call), name, len};
    if (oom_model_every_reaching_binding(m, fn, bound_by_host_move, &moved) == 1)
        return true;
    int every = oom_model_every_reaching_binding(m, fn, bound_on_host_here, &scope);
    if (every == 0)
        return false;
    if (every < 0) {
        const oom_binding *b = oom_model_visible_binding(m, scope, name, len, ts_node_start_byte(call), false);
        if (!bound_on_host_here(m, b, &scope))
            return false;
    }
    return !placed_in_scope(m, scope, name, len);
}

/* model/hostvalues: which values are on the module's device, for
 * model/hostmix.c. Shown, never assumed: a parameter of a module's
 * computation that the function uses as a tensor, what a submodule returns,
 * what torch computes from those, a tensor moved with `.cuda()` /
 * `.to(device)`. Everything else is unknown, which the rule reads as
 * silence. */
#include "hostmix.h"
#include "roles.h"

bool oom_hostmix_qualname_in(const oom_pymodel *m, TSNode fn, const oom_strlist *list)
{
    oom_buf qn;
    oom_buf_init(&qn);
    bool in = oom_pymodel_qualname(m, fn, &qn) && oom_library_lists(list, qn.data, (uint32_t)qn.len);
    oom_buf_free(&qn);
    return in;
}

bool oom_hostmix_torch_function(const oom_pymodel *m, TSNode fn)
{
    oom_buf qn;
    oom_buf_init(&qn);
    bool torch = oom_pymodel_qualname(m, fn, &qn) && qn.len > 6 && memcmp(qn.data, "torch.", 6) == 0;
    oom_buf_free(&qn);
    return torch;
}

/* The method name of `recv.name(...)`, with its receiver; NULL otherwise. */
const char *oom_hostmix_method_of(const oom_pymodel *m, TSNode call, TSNode *recv, uint32_t *len)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
        return NULL;
    *recv = oom_model_child(m, fn, "object", 6);
    return oom_node_text(m, oom_model_child(m, fn, "attribute", 9), len);
}


TSNode oom_hostmix_first_positional(const oom_pymodel *m, TSNode call, size_t *count)
{
    TSNode first = {{0}, NULL, NULL};
    *count = 0;
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument || is_type(a, "comment"))
            continue;
        if ((*count)++ == 0)
            first = a;
    }
    return first;
}

/* ---- values on the module's device ---- */

/* Code of a module's computation, not its constructor: `__init__` runs
 * when the module is built, on the host, before anything places it (a
 * probe `self.conv(torch.zeros(1, *shape))` sizes a layer there). */
bool oom_hostmix_computes(const oom_pymodel *m, TSNode n)
{
    return oom_pymodel_in_computation(m, n);
}

/* The same within a question: a host tensor made while the module is built
 * is followed into its computation's code (`self.check_equal()` in
 * `__init__` runs `self.forward(probe)`) while the module is still on the
 * host, so that code's values are not on the device there. */
bool oom_hostmix_query_computes(const mix_query *q, TSNode n)
{
    return !q->constructing && oom_pymodel_in_computation(q->m, n);
}

/* The function_definition a scope is, or null. */
TSNode oom_hostmix_scope_def(const oom_pymodel *m, int scope)
{
    return scope > 0 ? m->scopes[scope].def : (TSNode){{0}, NULL, NULL};
}

int oom_hostmix_scope_of(const oom_pymodel *m, TSNode n)
{
    return oom_model_scope_at(m, ts_node_start_byte(n));
}

typedef struct {
    const char *name;
    uint32_t len;
    bool tensor;
} param_use;

static bool names_parameter(const oom_pymodel *m, TSNode e, const param_use *u)
{
    uint32_t len;
    const char *t = oom_node_text(m, e, &len);
    return ts_node_symbol(e) == m->sym.identifier && len == u->len && memcmp(t, u->name, len) == 0;
}

/* `torch.cat([x, y])`: the parameter is an element of the list torch is given. */
static bool element_names_parameter(const oom_pymodel *m, TSNode e, const param_use *u)
{
    if (!is_type(e, "list") && ts_node_symbol(e) != m->sym.tuple)
        return false;
    uint32_t n = ts_node_named_child_count(e);
    for (uint32_t i = 0; i < n; i++)
        if (names_parameter(m, ts_node_named_child(e, i), u))
            return true;
    return false;
}

/* Some read of the name in `n`'s subtree is a tensor's: the receiver of an
 * attribute a number, a string or a list lacks, or an argument of torch. */
static void find_tensor_use(mix_query *q, TSNode n, param_use *u)
{
    const oom_pymodel *m = q->m;
    if (u->tensor || !spend(q, 0))
        return;
    if (ts_node_symbol(n) == m->sym.attribute) {
        TSNode obj = oom_model_child(m, n, "object", 6);
        uint32_t len, alen;
        const char *t = oom_node_text(m, obj, &len);
        const char *attr = oom_node_text(m, oom_model_child(m, n, "attribute", 9), &alen);
        /* what only a tensor has: a module or a config has attributes too */
        if (ts_node_symbol(obj) == m->sym.identifier && len == u->len && memcmp(t, u->name, len) == 0 &&
            (lists_text(&q->lib->tensor_metadata, attr, alen) || lists_text(&q->lib->tensor_methods, attr, alen) ||
             lists_text(&q->lib->device_combining_methods, attr, alen))) {
            u->tensor = true;
            return;
        }
    }
    /* a factory's positional arguments are sizes or data (`torch.zeros(n, d)`), not a tensor it is given */
    TSNode called = ts_node_symbol(n) == m->sym.call ? oom_model_child(m, n, "function", 8) : n;
    if (ts_node_symbol(n) == m->sym.call && oom_hostmix_torch_function(m, called) &&
        !oom_hostmix_qualname_in(m, called, &q->lib->host_tensor_factories)) {
        size_t count;
        TSNode first = oom_hostmix_first_positional(m, n, &count);
        if (count && (names_parameter(m, first, u) || element_names_parameter(m, first, u))) {
            u->tensor = true;
            return;
        }
    }
    uint32_t kids = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < kids && !u->tensor; i++)
        find_tensor_use(q, ts_node_named_child(n, i), u);
}

TSNode oom_hostmix_parameter_at(const oom_pymodel *m, TSNode def, uint32_t index)
{
    TSNode params = oom_model_child(m, def, "parameters", 10);
    if (index >= ts_node_named_child_count(params))
        return (TSNode){{0}, NULL, NULL};
    TSNode p = ts_node_named_child(params, index);
    if (is_type(p, "typed_parameter"))
        return ts_node_named_child(p, 0);
    if (is_type(p, "default_parameter") || is_type(p, "typed_default_parameter"))
        return oom_model_child(m, p, "name", 4);
    return ts_node_symbol(p) == m->sym.identifier ? p : (TSNode){{0}, NULL, NULL};
}

/* Inside the own function a host tensor was followed into: a parameter is
 * what the entering call hands it (by keyword or position), judged where
 * the call stands; a parameter the call leaves to its default is not. */
static bool frame_argument_on_device(mix_query *q, TSNode def, const char *name, uint32_t len, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode args = oom_model_child(m, q->frame_call, "arguments", 9);
    uint32_t index = UINT32_MAX;
    for (uint32_t i = 0; index == UINT32_MAX; i++) {
        TSNode pid = oom_hostmix_parameter_at(m, def, i);
        if (ts_node_is_null(pid))
            return false;
        uint32_t plen;
        const char *pname = oom_node_text(m, pid, &plen);
        if (plen == len && memcmp(pname, name, len) == 0)
            index = i;
    }
    if (q->frame_method) {
        if (index == 0)
            return false; /* self */
        index--;
    }
    TSNode arg = {{0}, NULL, NULL};
    uint32_t n = ts_node_named_child_count(args), positional = 0;
    for (uint32_t i = 0; i < n && ts_node_is_null(arg); i++) {
        TSNode a = ts_node_named_child(args, i);
        if (ts_node_symbol(a) == m->sym.keyword_argument) {
            uint32_t klen;
            const char *k = oom_node_text(m, oom_model_child(m, a, "name", 4), &klen);
            if (klen == len && memcmp(k, name, len) == 0)
                arg = oom_model_child(m, a, "value", 5);
        } else if (!is_type(a, "comment") && positional++ == index) {
            arg = a;
        }
    }
    int scope = q->frame_scope;
    TSNode call = q->frame_call;
    bool method = q->frame_method;
    q->frame_scope = -1; /* the argument is the caller's */
    bool on = !ts_node_is_null(arg) && !is_type(arg, "list_splat") && oom_hostmix_device_value(q, arg, depth + 1);
    q->frame_scope = scope;
    q->frame_call = call;
    q->frame_method = method;
    return on;
}

/* The parameter binding of `scope` is the only one that reaches `id`: the
 * name is read as the caller handed it, not as reassigned (`d = int(d / 2)`). */
static bool parameter_binding(const oom_pymodel *m, const oom_binding *b, void *ctx)
{
    const int *scope = ctx;
    (void)m;
    return b && b->kind == OOM_BIND_OPAQUE && b->scope == *scope;
}

static bool reads_parameter(const oom_pymodel *m, TSNode id, int scope)
{
    int every = oom_model_every_reaching_binding(m, id, parameter_binding, &scope);
    if (every >= 0)
        return every == 1;
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    const oom_binding *b = oom_model_visible_binding(m, scope, name, len, ts_node_start_byte(id), true);
    return parameter_binding(m, b, &scope);
}

/* `device=x.device`, `.to(x.device)`: the node `n` is a tensor's `.device`
 * read to place another tensor there; its object in *obj. */
static bool device_placement(mix_query *q, TSNode n, TSNode *obj)
{
    const oom_pymodel *m = q->m;
    if (ts_node_symbol(n) != m->sym.attribute || !oom_node_text_is(m, oom_model_child(m, n, "attribute", 9), "device"))
        return false;
    *obj = oom_model_child(m, n, "object", 6);
    TSNode p = oom_model_parent(m, n);
    TSNode call = is_type(p, "argument_list") ? oom_model_parent(m, p) : (TSNode){{0}, NULL, NULL};
    TSNode recv;
    uint32_t mlen;
    const char *method = ts_node_is_null(call) ? NULL : oom_hostmix_method_of(m, call, &recv, &mlen);
    return (ts_node_symbol(p) == m->sym.keyword_argument && oom_node_text_is(m, oom_model_child(m, p, "name", 4), "device")) ||
           lists_text(&q->lib->target_placing_methods, method, mlen);
}

/* A placement the function makes from its parameter's device. The function
 * is written to take `x` on any device, a GPU among them; what it makes on
 * the host to meet `x` fails there. */
static bool places_by(mix_query *q, TSNode n, const char *name, uint32_t len, int scope)
{
    const oom_pymodel *m = q->m;
    if (!spend(q, 0))
        return false;
    TSNode obj;
    if (device_placement(q, n, &obj) && ts_node_symbol(obj) == m->sym.identifier) {
        uint32_t olen;
        const char *o = oom_node_text(m, obj, &olen);
        if (olen == len && memcmp(o, name, len) == 0 && reads_parameter(m, obj, scope))
            return true;
    }
    if (ts_node_symbol(n) == m->sym.function_definition || ts_node_symbol(n) == m->sym.class_definition)
        return false;
    uint32_t kids = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < kids; i++)
        if (places_by(q, ts_node_named_child(n, i), name, len, scope))
            return true;
    return false;
}

/* `device = points.device`, `torch.randint(..., device=x.device)`,
 * `.to(x.device)`: the function places tensors by where a tensor it has is,
 * so it is written to run with its tensors on any device, a GPU among them. */
static bool device_generic(mix_query *q, TSNode n)
{
    const oom_pymodel *m = q->m;
    if (!spend(q, 0))
        return false;
    TSNode obj;
    bool read = ts_node_symbol(n) == m->sym.attribute && oom_node_text_is(m, oom_model_child(m, n, "attribute", 9), "device");
    if (read && !oom_roles_is_self(m, oom_model_child(m, n, "object", 6))) {
        TSNode p = oom_model_parent(m, n);
        if (device_placement(q, n, &obj) ||
            (ts_node_symbol(p) == m->sym.assignment && same_node(oom_model_child(m, p, "right", 5), n)))
            return true;
    }
    if (ts_node_symbol(n) == m->sym.function_definition || ts_node_symbol(n) == m->sym.class_definition)
        return false;
    uint32_t kids = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < kids; i++)
        if (device_generic(q, ts_node_named_child(n, i)))
            return true;
    return false;
}

/* A parameter `id` is read as (not self, no default but None) that is on
 * the device: one the function uses as a tensor, in a module's computation
 * or in a function written for any device (device_generic); anywhere, one
 * whose device the function places other tensors on. */
static bool tensor_parameter(mix_query *q, TSNode id, int depth)
{
    const oom_pymodel *m = q->m;
    int scope = oom_hostmix_scope_of(m, id);
    TSNode def = oom_hostmix_scope_def(m, scope);
    if (!ts_node_is_null(def) && scope == q->frame_scope) {
        uint32_t len;
        const char *name = oom_node_text(m, id, &len);
        return frame_argument_on_device(q, def, name, len, depth);
    }
    if (ts_node_is_null(def) || !reads_parameter(m, id, scope))
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    bool computes = oom_hostmix_query_computes(q, id);
    TSNode params = oom_model_child(m, def, "parameters", 10);
    uint32_t n = ts_node_named_child_count(params);
    for (uint32_t i = 0; i < n; i++) {
        TSNode p = ts_node_named_child(params, i);
        TSNode pid = p;
        if (is_type(p, "typed_parameter"))
            pid = ts_node_named_child(p, 0);
        else if (is_type(p, "default_parameter") || is_type(p, "typed_default_parameter")) {
            TSNode v = oom_model_child(m, p, "value", 5);
            if (!is_type(v, "none"))
                continue;
            pid = oom_model_child(m, p, "name", 4);
        }
        if (ts_node_is_null(pid) || ts_node_symbol(pid) != m->sym.identifier ||
            (i == 0 && m->scopes[scope].model_method))
            continue; /* a method's first is self */
        uint32_t plen;
        const char *pname = oom_node_text(m, pid, &plen);
        if (plen != len || memcmp(pname, name, len) != 0)
            continue;
        TSNode body = oom_model_child(m, def, "body", 4);
        if (places_by(q, body, name, len, scope))
            return true;
        if (!computes && !device_generic(q, body))
            return false;
        param_use u = {name, len, false};
        find_tensor_use(q, body, &u);
        return u.tensor;
    }
    return false;
}

bool oom_hostmix_bound_on_device(const oom_pymodel *m, const oom_binding *b, void *ctx)
{
    bind_ctx *c = ctx;
    (void)m;
    if (!b)
        return false;
    if (b->kind == OOM_BIND_VALUE)
        return oom_hostmix_device_value(c->q, b->value, c->depth + 1);
    if (b->kind == OOM_BIND_UNPACK) /* `a, b = self.encoder(x)` */
        return ts_node_symbol(b->value) == m->sym.call && oom_hostmix_device_value(c->q, b->value, c->depth + 1);
    return false;
}

static bool device_expr(mix_query *q, TSNode x, int depth);

static bool bound_to_device(const oom_pymodel *m, const oom_binding *b, void *ctx)
{
    bind_ctx *c = ctx;
    (void)m;
    return b && b->kind == OOM_BIND_VALUE && device_expr(c->q, b->value, c->depth + 1);
}

/* What `.to(X)` is given names a GPU: "cuda:1", torch.device("cuda", i),
 * a GPU index, other.device, `"cuda" if ok else "cpu"` (the GPU path), or a
 * name bound to one of those on every path. Not "cpu", not torch.float16,
 * x.dtype, nor a value nothing shows to be a device (a parameter, a setting). */
static bool device_expr(mix_query *q, TSNode x, int depth)
{
    const oom_pymodel *m = q->m;
    if (ts_node_is_null(x) || !spend(q, depth))
        return false;
    oom_buf s;
    oom_buf_init(&s);
    bool str = oom_pymodel_string_value(m, x, &s);
    bool cuda = str && strncmp(s.data, "cuda", 4) == 0;
    oom_buf_free(&s);
    if (str)
        return cuda;
    if (is_type(x, "integer"))
        return true;
    if (ts_node_symbol(x) == m->sym.conditional_expression)
        return device_expr(q, ts_node_named_child(x, 0), depth + 1) ||
               device_expr(q, ts_node_named_child(x, 2), depth + 1);
    if (ts_node_symbol(x) == m->sym.identifier) {
        bind_ctx c = {q, depth};
        return oom_model_every_reaching_binding(m, x, bound_to_device, &c) == 1;
    }
    if (ts_node_symbol(x) == m->sym.attribute) {
        uint32_t alen;
        const char *attr = oom_node_text(m, oom_model_child(m, x, "attribute", 9), &alen);
        /* a tensor's .device, where the tensor is shown on the device */
        return alen == 6 && memcmp(attr, "device", 6) == 0 &&
               oom_hostmix_device_value(q, oom_model_child(m, x, "object", 6), depth + 1);
    }
    if (ts_node_symbol(x) != m->sym.call)
        return false;
    if (!oom_hostmix_qualname_in(m, oom_model_child(m, x, "function", 8), &q->lib->device_constructors))
        return false;
    size_t n;
    TSNode kind = oom_hostmix_first_positional(m, x, &n);
    return n > 0 && device_expr(q, kind, depth + 1);
}

/* `.to(X)` / `.to(device=X)` puts the tensor on a GPU. */
bool oom_hostmix_moves_to_device(mix_query *q, TSNode call, int depth)
{
    const oom_pymodel *m = q->m;
    size_t count;
    TSNode x = oom_hostmix_first_positional(m, call, &count);
    if (count == 0) {
        oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
        for (TSNode a; oom_model_next_kid(m, &kids, &a);)
            if (ts_node_symbol(a) == m->sym.keyword_argument &&
                oom_node_text_is(m, oom_model_child(m, a, "name", 4), "device"))
                x = oom_model_child(m, a, "value", 5);
    }
    return device_expr(q, x, depth + 1);
}

static bool module_output(mix_query *q, TSNode call)
{
    const oom_pymodel *m = q->m;
    return oom_hostmix_query_computes(q, call) && oom_model_module_role(m, oom_model_child(m, call, "function", 8)) == OOM_ROLE_MODULE;
}

static bool device_call(mix_query *q, TSNode e, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode fn = oom_model_child(m, e, "function", 8);
    TSNode recv;
    uint32_t len;
    const char *method = oom_hostmix_method_of(m, e, &recv, &len);
    if (lists_text(&q->lib->gpu_methods, method, len))
        return true;
    if (lists_text(&q->lib->target_placing_methods, method, len))
        return oom_hostmix_moves_to_device(q, e, depth);
    if (module_output(q, e))
        return true;
    if (oom_hostmix_torch_function(m, fn)) {
        if (oom_hostmix_qualname_in(m, fn, &q->lib->host_tensor_factories))
            return false;
        oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, e, "arguments", 9));
        for (TSNode a; oom_model_next_kid(m, &kids, &a);)
            if (ts_node_symbol(a) != m->sym.keyword_argument && oom_hostmix_device_value(q, a, depth + 1))
                return true;
        return false;
    }
    if (!method || lists_text(&q->lib->number_methods, method, len) ||
        lists_text(&q->lib->tensor_metadata, method, len) || lists_text(&q->lib->host_methods, method, len) ||
        lists_text(&q->lib->text_methods, method, len) || lists_text(&q->lib->placing_methods, method, len))
        return false;
    return oom_hostmix_device_value(q, recv, depth + 1);
}

/* Shown to be on the module's device (or, in a script, on the GPU). */
bool oom_hostmix_device_value(mix_query *q, TSNode e, int depth)
{
    const oom_pymodel *m = q->m;
    if (ts_node_is_null(e) || !spend(q, depth))
        return false;
    TSSymbol s = ts_node_symbol(e);
    if (s == m->sym.identifier) {
        if (tensor_parameter(q, e, depth))
            return true;
        bind_ctx c = {q, depth};
        return oom_model_every_reaching_binding(m, e, oom_hostmix_bound_on_device, &c) == 1;
    }
    if (s == m->sym.call)
        return device_call(q, e, depth);
    if (s == m->sym.attribute) {
        uint32_t alen;
        const char *attr = oom_node_text(m, oom_model_child(m, e, "attribute", 9), &alen);
        TSNode obj = oom_model_child(m, e, "object", 6);
        return !oom_roles_is_self(m, obj) && !lists_text(&q->lib->tensor_metadata, attr, alen) &&
               oom_hostmix_device_value(q, obj, depth + 1);
    }
    if (is_type(e, "subscript"))
        return oom_hostmix_device_value(q, oom_model_child(m, e, "value", 5), depth + 1);
    if (is_type(e, "list") || s == m->sym.tuple) { /* torch.cat((state, action)) */
        uint32_t n = ts_node_named_child_count(e);
        for (uint32_t i = 0; i < n; i++)
            if (oom_hostmix_device_value(q, ts_node_named_child(e, i), depth + 1))
                return true;
        return false;
    }
    if (is_type(e, "parenthesized_expression"))
        return oom_hostmix_device_value(q, ts_node_named_child(e, 0), depth + 1);
    if (is_type(e, "comparison_operator")) { /* `scores > 0`: a mask where the scores are */
        uint32_t n = ts_node_named_child_count(e);
        for (uint32_t i = 0; i < n; i++)
            if (oom_hostmix_device_value(q, ts_node_named_child(e, i), depth + 1))
                return true;
        return false;
    }
    if (is_type(e, "binary_operator"))
        return oom_hostmix_device_value(q, oom_model_child(m, e, "left", 4), depth + 1) ||
               oom_hostmix_device_value(q, oom_model_child(m, e, "right", 5), depth + 1);
    if (is_type(e, "unary_operator"))
        return oom_hostmix_device_value(q, oom_model_child(m, e, "argument", 8), depth + 1);
    return false;
}

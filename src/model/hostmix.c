/* model/hostmix: a tensor made on the host that meets a module's tensors.
 * A factory of the library knowledge called without `device=` (`torch.zeros`,
 * `torch.arange`, `torch.tensor([...])`) makes its tensor on the default
 * device, the host unless the file changes it. Inside a module's
 * computation the tensors it is handed and those its layers give are on the
 * module's device; a non-scalar host tensor combined with one of them (an
 * operator, a combining function of the knowledge, a submodule's call) fails
 * there when the module runs on a GPU. So does one a module keeps as a plain
 * attribute made in `__init__`: `model.to(device)` moves parameters and
 * buffers, not attributes.
 *
 * Shown, never assumed: the factory's value is followed forward (operators,
 * methods that keep it where it is, names whose uses it reaches, the one
 * assignment of a module's attribute) to the place it meets a value that is
 * shown to be on the module's device: a forward's parameter the function
 * uses as a tensor, a submodule's output, what torch computes from those, a
 * tensor moved with `.cuda()` / `.to(...)`. A value moved (`.to`, `.cuda`,
 * `.type_as`), read for its metadata (`.shape`) or used as an index goes
 * nowhere; an unknown link is silence. */
#include <string.h>

#include "internal.h"
#include "oomlint/library.h"
#include "roles.h"

#define HOSTMIX_BUDGET 4000 /* nodes one question may visit */

typedef struct {
    const oom_pymodel *m;
    const oom_library *lib;
    int budget;
    TSNode sink; /* where it meets the device: the report's other place */
} mix_query;

static bool reaches_device(mix_query *q, TSNode e, int depth);
static bool device_value(mix_query *q, TSNode e, int depth);

static bool spend(mix_query *q, int depth)
{
    return depth <= OOM_MODEL_MAX_DEPTH && q->budget-- > 0;
}

static bool is_type(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static bool same_node(TSNode a, TSNode b)
{
    return !ts_node_is_null(a) && !ts_node_is_null(b) && ts_node_start_byte(a) == ts_node_start_byte(b) &&
           ts_node_end_byte(a) == ts_node_end_byte(b) && ts_node_symbol(a) == ts_node_symbol(b);
}

static bool qualname_in(const oom_pymodel *m, TSNode fn, const oom_strlist *list)
{
    oom_buf qn;
    oom_buf_init(&qn);
    bool in = oom_pymodel_qualname(m, fn, &qn) && oom_library_lists(list, qn.data, (uint32_t)qn.len);
    oom_buf_free(&qn);
    return in;
}

static bool torch_function(const oom_pymodel *m, TSNode fn)
{
    oom_buf qn;
    oom_buf_init(&qn);
    bool torch = oom_pymodel_qualname(m, fn, &qn) && qn.len > 6 && memcmp(qn.data, "torch.", 6) == 0;
    oom_buf_free(&qn);
    return torch;
}

/* The method name of `recv.name(...)`, with its receiver; NULL otherwise. */
static const char *method_of(const oom_pymodel *m, TSNode call, TSNode *recv, uint32_t *len)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
        return NULL;
    *recv = oom_model_child(m, fn, "object", 6);
    return oom_node_text(m, oom_model_child(m, fn, "attribute", 9), len);
}

static bool lists_text(const oom_strlist *list, const char *s, uint32_t len)
{
    return s && oom_library_lists(list, s, len);
}

/* ---- the factory ---- */

static bool has_keyword(const oom_pymodel *m, TSNode call, const oom_strlist *names)
{
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument) {
            uint32_t len;
            const char *k = oom_node_text(m, oom_model_child(m, a, "name", 4), &len);
            if (oom_library_lists(names, k, len))
                return true;
        } else if (is_type(a, "dictionary_splat")) {
            return true; /* **kwargs may carry device= */
        }
    }
    return false;
}

static TSNode first_positional(const oom_pymodel *m, TSNode call, size_t *count)
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

/* Written-out data with elements: a non-empty list, tuple or comprehension. */
static bool written_data(const oom_pymodel *m, TSNode e)
{
    if (is_type(e, "list_comprehension") || is_type(e, "generator_expression"))
        return true;
    return (is_type(e, "list") || ts_node_symbol(e) == m->sym.tuple) && ts_node_named_child_count(e) > 0;
}

static bool device_context_item(const oom_pymodel *m, TSNode item)
{
    TSNode v = oom_model_child(m, item, "value", 5);
    if (ts_node_is_null(v) || ts_node_symbol(v) != m->sym.call)
        return false;
    oom_buf qn;
    oom_buf_init(&qn);
    bool dev = oom_pymodel_qualname(m, oom_model_child(m, v, "function", 8), &qn) && strcmp(qn.data, "torch.device") == 0;
    oom_buf_free(&qn);
    return dev;
}

/* In the body of `with torch.device(...):`, where factories make their tensors on it. */
static bool under_device_context(const oom_pymodel *m, TSNode n)
{
    for (TSNode p = oom_model_parent(m, n); !ts_node_is_null(p); p = oom_model_parent(m, p)) {
        if (ts_node_symbol(p) == m->sym.function_definition)
            return false;
        if (ts_node_symbol(p) != m->sym.with_statement)
            continue;
        uint32_t kids = ts_node_named_child_count(p);
        for (uint32_t i = 0; i < kids; i++) {
            TSNode clause = ts_node_named_child(p, i);
            if (!is_type(clause, "with_clause"))
                continue;
            uint32_t items = ts_node_named_child_count(clause);
            for (uint32_t j = 0; j < items; j++)
                if (device_context_item(m, ts_node_named_child(clause, j)))
                    return true;
        }
    }
    return false;
}

static bool file_sets_default_device(const oom_pymodel *m, const oom_library *lib)
{
    for (size_t i = 0; i < lib->default_device_functions.len; i++) {
        const char *f = lib->default_device_functions.items[i];
        if (memmem(m->src, m->len, f, strlen(f)) != NULL)
            return true;
    }
    return false;
}

/* A factory call that makes a non-scalar tensor on the host. */
static bool host_factory(const oom_pymodel *m, const oom_library *lib, TSNode call)
{
    if (ts_node_is_null(call) || ts_node_symbol(call) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (!qualname_in(m, fn, &lib->host_tensor_factories) || has_keyword(m, call, &lib->placing_keywords))
        return false;
    size_t count;
    TSNode first = first_positional(m, call, &count);
    if (qualname_in(m, fn, &lib->data_tensor_factories))
        return count > 0 && written_data(m, first);
    /* torch.zeros(()) / torch.full((), v): a 0-dimensional tensor */
    bool empty_sizes = count >= 1 && (is_type(first, "list") || ts_node_symbol(first) == m->sym.tuple) &&
                       ts_node_named_child_count(first) == 0;
    return !empty_sizes && !under_device_context(m, call);
}

/* ---- values on the module's device ---- */

/* The function_definition a scope is, or null. */
static TSNode scope_def(const oom_pymodel *m, int scope)
{
    return scope > 0 ? m->scopes[scope].def : (TSNode){{0}, NULL, NULL};
}

static int scope_of(const oom_pymodel *m, TSNode n)
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
        if (ts_node_symbol(obj) == m->sym.identifier && len == u->len && memcmp(t, u->name, len) == 0 &&
            !lists_text(&q->lib->text_methods, attr, alen) &&
            !lists_text(&q->lib->collection_adding_methods, attr, alen)) {
            u->tensor = true;
            return;
        }
    }
    if (ts_node_symbol(n) == m->sym.call && torch_function(m, oom_model_child(m, n, "function", 8))) {
        size_t count;
        TSNode first = first_positional(m, n, &count);
        if (count && (names_parameter(m, first, u) || element_names_parameter(m, first, u))) {
            u->tensor = true;
            return;
        }
    }
    uint32_t kids = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < kids && !u->tensor; i++)
        find_tensor_use(q, ts_node_named_child(n, i), u);
}

/* A parameter of the forward `id` is read in (not self), with no default
 * but None, that the function uses as a tensor. */
static bool tensor_parameter(mix_query *q, TSNode id)
{
    const oom_pymodel *m = q->m;
    int scope = scope_of(m, id);
    TSNode def = scope_def(m, scope);
    if (ts_node_is_null(def) || !oom_pymodel_in_forward_code(m, id))
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
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
        if (ts_node_is_null(pid) || ts_node_symbol(pid) != m->sym.identifier || i == 0)
            continue; /* the first is self */
        uint32_t plen;
        const char *pname = oom_node_text(m, pid, &plen);
        if (plen != len || memcmp(pname, name, len) != 0)
            continue;
        param_use u = {name, len, false};
        find_tensor_use(q, oom_model_child(m, def, "body", 4), &u);
        return u.tensor;
    }
    return false;
}

typedef struct {
    mix_query *q;
    int depth;
} bind_ctx;

static bool binding_on_device(const oom_pymodel *m, const oom_binding *b, void *ctx)
{
    bind_ctx *c = ctx;
    (void)m;
    if (!b)
        return false;
    if (b->kind == OOM_BIND_VALUE)
        return device_value(c->q, b->value, c->depth + 1);
    if (b->kind == OOM_BIND_UNPACK) /* `a, b = self.encoder(x)` */
        return ts_node_symbol(b->value) == m->sym.call && device_value(c->q, b->value, c->depth + 1);
    return false;
}

/* `.to(X)` puts the tensor on a device unless X is the host or a dtype:
 * "cuda:1", torch.device("cuda", i), other.device, a variable or a setting
 * (the GPU wherever the job has one); not "cpu", torch.float16, x.dtype. */
static bool moves_to_device(mix_query *q, TSNode call, int depth)
{
    const oom_pymodel *m = q->m;
    (void)depth;
    size_t count;
    TSNode x = first_positional(m, call, &count);
    if (count == 0)
        return false;
    oom_buf s;
    oom_buf_init(&s);
    bool str = oom_pymodel_string_value(m, x, &s);
    bool cuda = str && strncmp(s.data, "cuda", 4) == 0;
    oom_buf_free(&s);
    if (str)
        return cuda;
    TSNode fn = ts_node_symbol(x) == m->sym.call ? oom_model_child(m, x, "function", 8) : x;
    oom_buf qn;
    oom_buf_init(&qn);
    bool named = oom_pymodel_qualname(m, fn, &qn);
    bool torch_device = named && strcmp(qn.data, "torch.device") == 0;
    bool torch_other = named && !torch_device && strncmp(qn.data, "torch.", 6) == 0;
    oom_buf_free(&qn);
    if (torch_other)
        return false;
    if (torch_device) {
        size_t n;
        TSNode kind = first_positional(m, x, &n);
        oom_buf k;
        oom_buf_init(&k);
        bool host = n > 0 && oom_pymodel_string_value(m, kind, &k) && strncmp(k.data, "cpu", 3) == 0;
        oom_buf_free(&k);
        return !host;
    }
    if (ts_node_symbol(x) == m->sym.attribute) {
        uint32_t alen;
        const char *attr = oom_node_text(m, oom_model_child(m, x, "attribute", 9), &alen);
        return !(alen == 5 && memcmp(attr, "dtype", 5) == 0);
    }
    return true;
}

static bool module_output(mix_query *q, TSNode call)
{
    const oom_pymodel *m = q->m;
    return oom_pymodel_in_forward_code(m, call) &&
           oom_model_module_role(m, oom_model_child(m, call, "function", 8)) == OOM_ROLE_MODULE;
}

static bool device_call(mix_query *q, TSNode e, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode fn = oom_model_child(m, e, "function", 8);
    TSNode recv;
    uint32_t len;
    const char *method = method_of(m, e, &recv, &len);
    if (method && len == 4 && memcmp(method, "cuda", 4) == 0)
        return true;
    if (method && len == 2 && memcmp(method, "to", 2) == 0)
        return moves_to_device(q, e, depth);
    if (module_output(q, e))
        return true;
    if (torch_function(m, fn)) {
        if (qualname_in(m, fn, &q->lib->host_tensor_factories))
            return false;
        oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, e, "arguments", 9));
        for (TSNode a; oom_model_next_kid(m, &kids, &a);)
            if (ts_node_symbol(a) != m->sym.keyword_argument && device_value(q, a, depth + 1))
                return true;
        return false;
    }
    if (!method || lists_text(&q->lib->number_methods, method, len) ||
        lists_text(&q->lib->tensor_metadata, method, len) || lists_text(&q->lib->host_methods, method, len) ||
        lists_text(&q->lib->text_methods, method, len) || lists_text(&q->lib->placing_methods, method, len))
        return false;
    return device_value(q, recv, depth + 1);
}

/* Shown to be on the module's device (or, in a script, on the GPU). */
static bool device_value(mix_query *q, TSNode e, int depth)
{
    const oom_pymodel *m = q->m;
    if (ts_node_is_null(e) || !spend(q, depth))
        return false;
    TSSymbol s = ts_node_symbol(e);
    if (s == m->sym.identifier) {
        if (tensor_parameter(q, e))
            return true;
        bind_ctx c = {q, depth};
        return oom_model_every_reaching_binding(m, e, binding_on_device, &c) == 1;
    }
    if (s == m->sym.call)
        return device_call(q, e, depth);
    if (s == m->sym.attribute) {
        uint32_t alen;
        const char *attr = oom_node_text(m, oom_model_child(m, e, "attribute", 9), &alen);
        TSNode obj = oom_model_child(m, e, "object", 6);
        return !oom_roles_is_self(m, obj) && !lists_text(&q->lib->tensor_metadata, attr, alen) &&
               device_value(q, obj, depth + 1);
    }
    if (is_type(e, "subscript"))
        return device_value(q, oom_model_child(m, e, "value", 5), depth + 1);
    if (is_type(e, "parenthesized_expression"))
        return device_value(q, ts_node_named_child(e, 0), depth + 1);
    if (is_type(e, "binary_operator"))
        return device_value(q, oom_model_child(m, e, "left", 4), depth + 1) ||
               device_value(q, oom_model_child(m, e, "right", 5), depth + 1);
    if (is_type(e, "unary_operator"))
        return device_value(q, oom_model_child(m, e, "argument", 8), depth + 1);
    return false;
}

/* ---- where the host tensor goes ---- */

/* A module whose parameters are on a device: any in a module's own
 * computation; in a script, one moved by `.cuda()` / `.to(...)`. */
static bool module_on_device(mix_query *q, TSNode call)
{
    const oom_pymodel *m = q->m;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (oom_model_module_role(m, fn) != OOM_ROLE_MODULE)
        return false;
    if (oom_pymodel_in_forward_code(m, call))
        return true;
    if (ts_node_symbol(fn) != m->sym.identifier)
        return false;
    bind_ctx c = {q, 0};
    if (oom_model_every_reaching_binding(m, fn, binding_on_device, &c) == 1)
        return true;
    /* `model.cuda()` / `model.to(device)` earlier in the function */
    int scope = scope_of(m, call);
    uint32_t flen;
    const char *fname = oom_node_text(m, fn, &flen);
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *cs = &m->calls[i];
        if (cs->pos >= ts_node_start_byte(call) || scope_of(m, cs->node) != scope)
            continue;
        TSNode recv;
        uint32_t len, rlen;
        const char *method = method_of(m, cs->node, &recv, &len);
        const char *r = method ? oom_node_text(m, recv, &rlen) : NULL;
        if (r && rlen == flen && memcmp(r, fname, flen) == 0 &&
            ((len == 4 && memcmp(method, "cuda", 4) == 0) ||
             (len == 2 && memcmp(method, "to", 2) == 0 && moves_to_device(q, cs->node, 0))))
            return true;
    }
    return false;
}

/* Some argument of `call` other than `skip` (elements of a list or tuple
 * argument too) is on the device. */
static bool other_argument_on_device(mix_query *q, TSNode call, TSNode skip, int depth)
{
    const oom_pymodel *m = q->m;
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            a = oom_model_child(m, a, "value", 5);
        if (ts_node_is_null(a) || same_node(a, skip))
            continue;
        if (is_type(a, "list") || ts_node_symbol(a) == m->sym.tuple) {
            uint32_t n = ts_node_named_child_count(a);
            for (uint32_t i = 0; i < n; i++) {
                TSNode el = ts_node_named_child(a, i);
                if (!same_node(el, skip) && device_value(q, el, depth + 1))
                    return true;
            }
        } else if (device_value(q, a, depth + 1)) {
            return true;
        }
    }
    return false;
}

static bool found(mix_query *q, TSNode where)
{
    q->sink = where;
    return true;
}

/* The host tensor is an argument of `call`. */
static bool argument_meets_device(mix_query *q, TSNode e, TSNode call, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (qualname_in(m, fn, &q->lib->device_combining_functions))
        return other_argument_on_device(q, call, e, depth) ? found(q, call) : reaches_device(q, call, depth + 1);
    TSNode recv;
    uint32_t len;
    const char *method = method_of(m, call, &recv, &len);
    if (lists_text(&q->lib->device_combining_methods, method, len) && device_value(q, recv, depth + 1))
        return found(q, call);
    if (module_on_device(q, call))
        return found(q, call);
    return false;
}

static bool read_name(const oom_pymodel *m, TSNode id)
{
    TSNode p = oom_model_parent(m, id);
    if (ts_node_is_null(p))
        return false;
    if ((ts_node_symbol(p) == m->sym.assignment || ts_node_symbol(p) == m->sym.augmented_assignment) &&
        same_node(oom_model_child(m, p, "left", 4), id))
        return false;
    if (ts_node_symbol(p) == m->sym.keyword_argument && same_node(oom_model_child(m, p, "name", 4), id))
        return false;
    if (ts_node_symbol(p) == m->sym.attribute && same_node(oom_model_child(m, p, "attribute", 9), id))
        return false;
    return true;
}

/* Every read of the name bound at `site` that the binding reaches. */
static bool uses_meet_device(mix_query *q, TSNode n, TSNode site, int depth)
{
    const oom_pymodel *m = q->m;
    if (!spend(q, depth))
        return false;
    if (ts_node_symbol(n) == m->sym.identifier) {
        uint32_t len, slen;
        const char *t = oom_node_text(m, n, &len);
        const char *st = oom_node_text(m, site, &slen);
        if (len != slen || memcmp(t, st, len) != 0 || ts_node_start_byte(n) <= ts_node_start_byte(site) ||
            !read_name(m, n))
            return false;
        TSNode sites[OOM_FLOW_MAX_REACH];
        size_t count;
        bool unbound;
        if (oom_pymodel_reaching_definitions(m, n, sites, OOM_FLOW_MAX_REACH, &count, &unbound) != OOM_FLOW_LOCAL)
            return false;
        for (size_t i = 0; i < count && i < OOM_FLOW_MAX_REACH; i++)
            if (same_node(sites[i], site))
                return reaches_device(q, n, depth + 1);
        return false;
    }
    if (ts_node_symbol(n) == m->sym.function_definition || ts_node_symbol(n) == m->sym.class_definition)
        return false;
    uint32_t kids = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < kids; i++)
        if (uses_meet_device(q, ts_node_named_child(n, i), site, depth))
            return true;
    return false;
}

static TSNode enclosing_class(const oom_pymodel *m, TSNode def)
{
    TSNode p = oom_model_parent(m, def);
    while (!ts_node_is_null(p) && (ts_node_symbol(p) == m->sym.block || ts_node_symbol(p) == m->sym.decorated_definition))
        p = oom_model_parent(m, p);
    return !ts_node_is_null(p) && ts_node_symbol(p) == m->sym.class_definition ? p : (TSNode){{0}, NULL, NULL};
}

static bool is_self_attribute(const oom_pymodel *m, TSNode n, const char *attr, uint32_t len)
{
    if (ts_node_is_null(n) || ts_node_symbol(n) != m->sym.attribute ||
        !oom_roles_is_self(m, oom_model_child(m, n, "object", 6)))
        return false;
    uint32_t alen;
    const char *a = oom_node_text(m, oom_model_child(m, n, "attribute", 9), &alen);
    return alen == len && memcmp(a, attr, len) == 0;
}

typedef struct {
    const char *attr;
    uint32_t len;
    int assignments;
    bool moves; /* the class defines its own to / cuda / _apply */
} attr_survey;

static void survey_class(const oom_pymodel *m, TSNode n, attr_survey *s)
{
    TSSymbol sym = ts_node_symbol(n);
    if (sym == m->sym.assignment || sym == m->sym.augmented_assignment) {
        TSNode left = oom_model_child(m, n, "left", 4);
        if (is_self_attribute(m, left, s->attr, s->len))
            s->assignments++;
        else if (!ts_node_is_null(left) && (ts_node_symbol(left) == m->sym.pattern_list || ts_node_symbol(left) == m->sym.tuple))
            for (uint32_t i = 0; i < ts_node_named_child_count(left); i++)
                if (is_self_attribute(m, ts_node_named_child(left, i), s->attr, s->len))
                    s->assignments++;
    }
    if (sym == m->sym.function_definition) {
        TSNode name = oom_model_child(m, n, "name", 4);
        if (oom_node_text_is(m, name, "to") || oom_node_text_is(m, name, "cuda") || oom_node_text_is(m, name, "_apply"))
            s->moves = true;
    }
    uint32_t kids = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < kids; i++)
        survey_class(m, ts_node_named_child(n, i), s);
}

static bool attribute_uses_meet_device(mix_query *q, TSNode n, const attr_survey *s, TSNode assigned, int depth)
{
    const oom_pymodel *m = q->m;
    if (!spend(q, depth))
        return false;
    if (is_self_attribute(m, n, s->attr, s->len) && !same_node(n, assigned) &&
        oom_pymodel_in_forward_code(m, n) && reaches_device(q, n, depth + 1))
        return true;
    uint32_t kids = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < kids; i++)
        if (attribute_uses_meet_device(q, ts_node_named_child(n, i), s, assigned, depth))
            return true;
    return false;
}

/* `self.bins = torch.arange(...)`: the module's only assignment of a plain
 * attribute, read in its computation. */
static bool attribute_meets_device(mix_query *q, TSNode left, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode cls = enclosing_class(m, scope_def(m, scope_of(m, left)));
    if (ts_node_is_null(cls) || !oom_model_class_is_module(m, cls))
        return false;
    attr_survey s = {NULL, 0, 0, false};
    s.attr = oom_node_text(m, oom_model_child(m, left, "attribute", 9), &s.len);
    survey_class(m, cls, &s);
    if (s.assignments != 1 || s.moves)
        return false;
    return attribute_uses_meet_device(q, oom_model_child(m, cls, "body", 4), &s, left, depth);
}

static bool assigned_meets_device(mix_query *q, TSNode p, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode left = oom_model_child(m, p, "left", 4);
    if (ts_node_is_null(left))
        return false;
    if (ts_node_symbol(left) == m->sym.identifier) {
        TSNode def = scope_def(m, scope_of(m, p));
        TSNode body = ts_node_is_null(def) ? m->root : oom_model_child(m, def, "body", 4);
        return uses_meet_device(q, body, left, depth);
    }
    if (ts_node_symbol(left) == m->sym.attribute && oom_roles_is_self(m, oom_model_child(m, left, "object", 6)))
        return attribute_meets_device(q, left, depth);
    return false;
}

/* The host tensor `e` (a value, not a place) meets a device value: walks up
 * through what keeps it a host tensor. */
static bool reaches_device(mix_query *q, TSNode e, int depth)
{
    const oom_pymodel *m = q->m;
    if (!spend(q, depth))
        return false;
    TSNode p = oom_model_parent(m, e);
    if (ts_node_is_null(p))
        return false;
    TSSymbol s = ts_node_symbol(p);
    if (is_type(p, "parenthesized_expression") || is_type(p, "unary_operator") || s == m->sym.conditional_expression)
        return !(s == m->sym.conditional_expression && same_node(oom_model_child(m, p, "condition", 9), e)) &&
               reaches_device(q, p, depth + 1);
    if (is_type(p, "binary_operator") || is_type(p, "comparison_operator")) {
        uint32_t n = ts_node_named_child_count(p);
        for (uint32_t i = 0; i < n; i++) {
            TSNode o = ts_node_named_child(p, i);
            if (!same_node(o, e) && device_value(q, o, depth + 1))
                return found(q, p);
        }
        return reaches_device(q, p, depth + 1);
    }
    if (is_type(p, "subscript"))
        return same_node(oom_model_child(m, p, "value", 5), e) && reaches_device(q, p, depth + 1);
    if (s == m->sym.attribute) {
        uint32_t alen;
        const char *attr = oom_node_text(m, oom_model_child(m, p, "attribute", 9), &alen);
        TSNode call = oom_model_parent(m, p);
        bool called = !ts_node_is_null(call) && ts_node_symbol(call) == m->sym.call &&
                      same_node(oom_model_child(m, call, "function", 8), p);
        if (!called) /* .T, .mT, .data keep it; .shape, .device tell about it */
            return (alen == 1 && attr[0] == 'T') || (alen == 2 && memcmp(attr, "mT", 2) == 0) ||
                   (alen == 4 && memcmp(attr, "data", 4) == 0) ? reaches_device(q, p, depth + 1) : false;
        const oom_library *lib = q->lib;
        if (lists_text(&lib->placing_methods, attr, alen) || lists_text(&lib->device_following_methods, attr, alen) ||
            lists_text(&lib->number_methods, attr, alen) || lists_text(&lib->tensor_metadata, attr, alen) ||
            lists_text(&lib->text_methods, attr, alen))
            return false;
        if (lists_text(&lib->device_combining_methods, attr, alen) && other_argument_on_device(q, call, e, depth))
            return found(q, call);
        return reaches_device(q, call, depth + 1);
    }
    if (is_type(p, "list") || s == m->sym.tuple) { /* torch.cat([x, host]) */
        TSNode args = oom_model_parent(m, p);
        TSNode call = ts_node_is_null(args) ? args : oom_model_parent(m, args);
        if (!is_type(args, "argument_list") || ts_node_is_null(call) ||
            !qualname_in(m, oom_model_child(m, call, "function", 8), &q->lib->device_combining_functions))
            return false;
        return other_argument_on_device(q, call, e, depth) || other_argument_on_device(q, call, p, depth)
                   ? found(q, call)
                   : reaches_device(q, call, depth + 1);
    }
    if (is_type(p, "argument_list"))
        return argument_meets_device(q, e, oom_model_parent(m, p), depth);
    if (s == m->sym.keyword_argument) {
        TSNode args = oom_model_parent(m, p);
        return is_type(args, "argument_list") && module_on_device(q, oom_model_parent(m, args))
                   ? found(q, oom_model_parent(m, args))
                   : false;
    }
    if (s == m->sym.assignment && same_node(oom_model_child(m, p, "right", 5), e))
        return assigned_meets_device(q, p, depth);
    if (s == m->sym.augmented_assignment && same_node(oom_model_child(m, p, "right", 5), e))
        return device_value(q, oom_model_child(m, p, "left", 4), depth + 1) ? found(q, p) : false;
    return false;
}

bool oom_pymodel_host_tensor_meets_device(const oom_pymodel *m, TSNode call, uint32_t *line)
{
    const oom_library *lib = oom_library_get();
    if (!lib || !host_factory(m, lib, call) || file_sets_default_device(m, lib))
        return false;
    mix_query q = {m, lib, HOSTMIX_BUDGET, {{0}, NULL, NULL}};
    if (!reaches_device(&q, call, 0))
        return false;
    if (line)
        *line = ts_node_start_point(q.sink).row + 1;
    return true;
}

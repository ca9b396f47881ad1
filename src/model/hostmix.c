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
 * tensor moved with `.cuda()` / `.to(...)`; or, in any function that places
 * tensors by a tensor's device (`device=x.device`), its tensor parameters:
 * the function is written for inputs on any device. A host tensor indexed
 * by a device value fails too. A value moved (`.to`, `.cuda`,
 * `.type_as`), read for its metadata (`.shape`) or used as an index goes
 * nowhere; an unknown link is silence. Which values are on the device is
 * model/hostvalues.c. */
#include "hostmix.h"
#include "roles.h"

#define HOSTMIX_BUDGET 4000 /* nodes one question may visit */

static bool reaches_device(mix_query *q, TSNode e, int depth);

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
    const oom_library *lib = oom_library_get();
    return lib && oom_hostmix_qualname_in(m, oom_model_child(m, v, "function", 8), &lib->device_constructors);
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

/* A factory call that makes a non-scalar tensor on the host. */
static bool host_factory(const oom_pymodel *m, const oom_library *lib, TSNode call)
{
    if (ts_node_is_null(call) || ts_node_symbol(call) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (!oom_hostmix_qualname_in(m, fn, &lib->host_tensor_factories) || has_keyword(m, call, &lib->placing_keywords) ||
        has_keyword(m, call, &lib->factory_target_keywords))
        return false;
    size_t count;
    TSNode first = oom_hostmix_first_positional(m, call, &count);
    if (oom_hostmix_qualname_in(m, fn, &lib->data_tensor_factories))
        return count > 0 && written_data(m, first);
    /* torch.zeros(()) / torch.full((), v): a 0-dimensional tensor */
    bool empty_sizes = count >= 1 && (is_type(first, "list") || ts_node_symbol(first) == m->sym.tuple) &&
                       ts_node_named_child_count(first) == 0;
    return !empty_sizes && !under_device_context(m, call);
}
/* ---- where the host tensor goes ---- */

/* Bound to a wrapper that moves its inputs (or unknown: the flow cannot say). */
static bool bound_to_input_placer(const oom_pymodel *m, const oom_binding *b, void *ctx)
{
    mix_query *q = ctx;
    if (!b || b->kind != OOM_BIND_VALUE || ts_node_symbol(b->value) != m->sym.call)
        return false;
    return oom_hostmix_qualname_in(m, oom_model_child(m, b->value, "function", 8), &q->lib->input_placing_wrappers);
}

/* A module whose parameters are on a device: any in a module's own
 * computation; in a script, one moved by `.cuda()` / `.to(...)`. */
static bool module_on_device(mix_query *q, TSNode call)
{
    const oom_pymodel *m = q->m;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (oom_model_module_role(m, fn) != OOM_ROLE_MODULE)
        return false;
    if (oom_hostmix_computes(m, call))
        return !q->constructing;
    if (oom_pymodel_in_forward_code(m, call) || ts_node_symbol(fn) != m->sym.identifier)
        return false; /* a constructor's probe; an attribute in a script */
    if (oom_model_every_reaching_binding(m, fn, bound_to_input_placer, q) != 0)
        return false; /* DDP(model, device_ids=[rank]) moves its inputs itself */
    bind_ctx c = {q, 0};
    if (oom_model_every_reaching_binding(m, fn, oom_hostmix_bound_on_device, &c) == 1)
        return true;
    /* `model.cuda()` / `model.to(device)` earlier in the function */
    int scope = oom_hostmix_scope_of(m, call);
    uint32_t flen;
    const char *fname = oom_node_text(m, fn, &flen);
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *cs = &m->calls[i];
        if (cs->pos >= ts_node_start_byte(call) || oom_hostmix_scope_of(m, cs->node) != scope)
            continue;
        TSNode recv;
        uint32_t len, rlen;
        const char *method = oom_hostmix_method_of(m, cs->node, &recv, &len);
        const char *r = method ? oom_node_text(m, recv, &rlen) : NULL;
        if (r && rlen == flen && memcmp(r, fname, flen) == 0 &&
            (lists_text(&q->lib->gpu_methods, method, len) ||
             (lists_text(&q->lib->target_placing_methods, method, len) && oom_hostmix_moves_to_device(q, cs->node, 0))))
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
                if (!same_node(el, skip) && oom_hostmix_device_value(q, el, depth + 1))
                    return true;
            }
        } else if (oom_hostmix_device_value(q, a, depth + 1)) {
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

static bool probe_uses(mix_query *q, TSNode n, TSNode site, int depth, int *uses);
static bool read_name(const oom_pymodel *m, TSNode id);

/* What `e` gives is read for its size only (`conv(torch.zeros(1, *shape))
 * .shape[1]`, `out = net(x); return out.size()`): a probe that sizes a
 * layer, run where the module is built, not its computation. */
static bool read_for_size_only(mix_query *q, TSNode e, int depth)
{
    const oom_pymodel *m = q->m;
    if (!spend(q, depth))
        return false;
    TSNode p = oom_model_parent(m, e);
    if (ts_node_is_null(p))
        return false;
    if (ts_node_symbol(p) == m->sym.attribute) {
        uint32_t alen;
        const char *attr = oom_node_text(m, oom_model_child(m, p, "attribute", 9), &alen);
        if (lists_text(&q->lib->tensor_metadata, attr, alen))
            return true;
        TSNode call = oom_model_parent(m, p);
        bool called = !ts_node_is_null(call) && ts_node_symbol(call) == m->sym.call &&
                      same_node(oom_model_child(m, call, "function", 8), p);
        return read_for_size_only(q, called ? call : p, depth + 1);
    }
    if (is_type(p, "parenthesized_expression"))
        return read_for_size_only(q, p, depth + 1);
    if (ts_node_symbol(p) == m->sym.assignment && same_node(oom_model_child(m, p, "right", 5), e)) {
        TSNode left = oom_model_child(m, p, "left", 4);
        TSNode def = oom_hostmix_scope_def(m, oom_hostmix_scope_of(m, p));
        if (ts_node_is_null(left) || ts_node_symbol(left) != m->sym.identifier || ts_node_is_null(def))
            return false;
        int uses = 0;
        return probe_uses(q, oom_model_child(m, def, "body", 4), left, depth, &uses) && uses > 0;
    }
    return false;
}

/* Every read of the name bound at `site` is read for its size only. */
static bool probe_uses(mix_query *q, TSNode n, TSNode site, int depth, int *uses)
{
    const oom_pymodel *m = q->m;
    if (!spend(q, depth))
        return false;
    if (ts_node_symbol(n) == m->sym.identifier) {
        uint32_t len, slen;
        const char *t = oom_node_text(m, n, &len);
        const char *st = oom_node_text(m, site, &slen);
        if (len != slen || memcmp(t, st, len) != 0 || ts_node_start_byte(n) <= ts_node_start_byte(site) || !read_name(m, n))
            return true;
        (*uses)++;
        return read_for_size_only(q, n, depth + 1);
    }
    uint32_t kids = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < kids; i++)
        if (!probe_uses(q, ts_node_named_child(n, i), site, depth, uses))
            return false;
    return true;
}

static bool uses_meet_device(mix_query *q, TSNode n, TSNode site, int depth);

/* The file's module-level function named by `fn` (`ngram(...)`), or the
 * method of the caller's own class (`self.pad(...)`): its scope, or -1. */
static int own_callee(const oom_pymodel *m, TSNode call, bool *method)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    *method = false;
    if (!ts_node_is_null(fn) && ts_node_symbol(fn) == m->sym.attribute &&
        oom_roles_is_self(m, oom_model_child(m, fn, "object", 6))) {
        *method = true;
        fn = oom_model_child(m, fn, "attribute", 9);
    } else if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.identifier) {
        return -1;
    }
    uint32_t len;
    const char *name = oom_node_text(m, fn, &len);
    int caller = oom_hostmix_scope_of(m, call);
    int cls_scope = caller > 0 ? m->scopes[caller].parent : -1;
    for (size_t i = 1; i < m->scope_count; i++) {
        const oom_scope *sc = &m->scopes[i];
        if (!sc->name || sc->name_len != len || memcmp(sc->name, name, len) != 0 || ts_node_is_null(sc->def))
            continue;
        if (*method ? (int)i != caller && sc->parent == cls_scope : sc->parent == 0)
            return (int)i;
    }
    return -1;
}

/* The parameter of `def` that receives argument `e` of `call`: by keyword,
 * or by position (past self for a method); null for *args and the like. */
static TSNode receiving_parameter(const oom_pymodel *m, TSNode def, TSNode call, TSNode e, bool method)
{
    TSNode none = {{0}, NULL, NULL};
    TSNode parent = oom_model_parent(m, e);
    const char *kw = NULL;
    uint32_t kwlen = 0;
    if (!ts_node_is_null(parent) && ts_node_symbol(parent) == m->sym.keyword_argument)
        kw = oom_node_text(m, oom_model_child(m, parent, "name", 4), &kwlen);
    uint32_t index = 0;
    if (!kw) {
        TSNode args = oom_model_child(m, call, "arguments", 9);
        uint32_t n = ts_node_named_child_count(args);
        for (index = 0; index < n && !same_node(ts_node_named_child(args, index), e); index++)
            if (!is_type(ts_node_named_child(args, index), "argument_list") &&
                (is_type(ts_node_named_child(args, index), "list_splat") ||
                 ts_node_symbol(ts_node_named_child(args, index)) == m->sym.keyword_argument))
                return none;
        index += method ? 1 : 0;
    }
    for (uint32_t i = 0;; i++) {
        TSNode id = oom_hostmix_parameter_at(m, def, i);
        if (ts_node_is_null(id))
            return none; /* past the last, or *args, **kwargs, a bare `*`: positions end here */
        uint32_t len;
        const char *t = oom_node_text(m, id, &len);
        if (kw ? (len == kwlen && memcmp(t, kw, len) == 0) : i == index)
            return id;
    }
}

/* `ngram(input, size, self.ngram_padding)`: the host tensor handed to the
 * file's own function, followed through the parameter that receives it. */
static bool into_own_function(mix_query *q, TSNode e, TSNode call, int depth)
{
    const oom_pymodel *m = q->m;
    bool method;
    int scope = own_callee(m, call, &method);
    if (scope < 0 || depth > OOM_MODEL_MAX_DEPTH / 2)
        return false;
    TSNode def = m->scopes[scope].def;
    TSNode param = receiving_parameter(m, def, call, e, method);
    if (ts_node_is_null(param))
        return false;
    mix_query outer = *q;
    q->frame_scope = scope;
    q->frame_call = call;
    q->frame_method = method;
    bool meets = uses_meet_device(q, oom_model_child(m, def, "body", 4), param, depth + 1);
    q->frame_scope = outer.frame_scope;
    q->frame_call = outer.frame_call;
    q->frame_method = outer.frame_method;
    return meets;
}

/* The host tensor is an argument of `call`. */
static bool argument_meets_device(mix_query *q, TSNode e, TSNode call, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (oom_hostmix_qualname_in(m, fn, &q->lib->device_combining_functions))
        return other_argument_on_device(q, call, e, depth) ? found(q, call) : reaches_device(q, call, depth + 1);
    TSNode recv;
    uint32_t len;
    const char *method = oom_hostmix_method_of(m, call, &recv, &len);
    if (lists_text(&q->lib->device_combining_methods, method, len) && oom_hostmix_device_value(q, recv, depth + 1))
        return found(q, call);
    if (module_on_device(q, call) && !read_for_size_only(q, call, depth + 1))
        return found(q, call);
    return into_own_function(q, e, call, depth);
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

static bool reads_name(const oom_pymodel *m, TSNode n, const char *name, uint32_t len)
{
    if (ts_node_symbol(n) == m->sym.identifier) {
        uint32_t l;
        const char *t = oom_node_text(m, n, &l);
        return l == len && memcmp(t, name, len) == 0;
    }
    uint32_t kids = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < kids; i++)
        if (reads_name(m, ts_node_named_child(n, i), name, len))
            return true;
    return false;
}

/* The binding at `site` is an assignment whose value reads the name (or
 * one the flow cannot show otherwise: a loop target, an augmented one). */
static bool rebinds_from(const oom_pymodel *m, TSNode site, const char *name, uint32_t len)
{
    TSNode p = oom_model_parent(m, site);
    while (!ts_node_is_null(p) && (ts_node_symbol(p) == m->sym.pattern_list || ts_node_symbol(p) == m->sym.tuple_pattern))
        p = oom_model_parent(m, p);
    if (ts_node_is_null(p) || ts_node_symbol(p) != m->sym.assignment)
        return !ts_node_is_null(p) && !is_type(p, "parameters") && !is_type(p, "default_parameter") &&
               !is_type(p, "typed_parameter") && !is_type(p, "typed_default_parameter");
    TSNode right = oom_model_child(m, p, "right", 5);
    return ts_node_is_null(right) || reads_name(m, right, name, len);
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
        /* this binding, and none that moves it: where one made from it
         * reaches too (`if x.is_cuda: zeros = zeros.cuda()`), the path that
         * keeps the host tensor may be the one where everything is on the
         * host. One from elsewhere (`x = inputs["x"] if training else
         * torch.zeros(n)`) leaves a path where the host tensor arrives. */
        bool ours = false;
        for (size_t i = 0; i < count && i < OOM_FLOW_MAX_REACH; i++) {
            if (same_node(sites[i], site))
                ours = true;
            else if (rebinds_from(m, sites[i], t, len))
                return false;
        }
        return ours && !unbound && reaches_device(q, n, depth + 1);
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
    if (is_self_attribute(m, n, s->attr, s->len) && !same_node(n, assigned) && oom_hostmix_computes(m, n) &&
        reaches_device(q, n, depth + 1))
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
    TSNode cls = enclosing_class(m, oom_hostmix_scope_def(m, oom_hostmix_scope_of(m, left)));
    if (ts_node_is_null(cls) || !oom_model_class_is_module(m, cls))
        return false;
    attr_survey s = {NULL, 0, 0, false};
    s.attr = oom_node_text(m, oom_model_child(m, left, "attribute", 9), &s.len);
    survey_class(m, cls, &s);
    if (s.assignments != 1 || s.moves)
        return false;
    /* read in the computation, once the module has been placed */
    bool constructing = q->constructing;
    q->constructing = false;
    bool meets = attribute_uses_meet_device(q, oom_model_child(m, cls, "body", 4), &s, left, depth);
    q->constructing = constructing;
    return meets;
}

static bool assigned_meets_device(mix_query *q, TSNode p, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode left = oom_model_child(m, p, "left", 4);
    if (ts_node_is_null(left))
        return false;
    if (ts_node_symbol(left) == m->sym.identifier) {
        TSNode def = oom_hostmix_scope_def(m, oom_hostmix_scope_of(m, p));
        TSNode body = ts_node_is_null(def) ? m->root : oom_model_child(m, def, "body", 4);
        return uses_meet_device(q, body, left, depth);
    }
    if (ts_node_symbol(left) == m->sym.attribute && oom_roles_is_self(m, oom_model_child(m, left, "object", 6)))
        return attribute_meets_device(q, left, depth);
    return false;
}

/* `a, b = (e0, e1)`: the name the element `e` of the assigned tuple binds,
 * where both sides have as many elements; null otherwise. */
static TSNode unpacked_name(const oom_pymodel *m, TSNode values, TSNode e)
{
    TSNode none = {{0}, NULL, NULL};
    TSNode assign = oom_model_parent(m, values);
    if (is_type(assign, "parenthesized_expression"))
        assign = oom_model_parent(m, assign);
    if (ts_node_is_null(assign) || ts_node_symbol(assign) != m->sym.assignment)
        return none;
    TSNode left = oom_model_child(m, assign, "left", 4);
    if (ts_node_is_null(left) || (ts_node_symbol(left) != m->sym.pattern_list && ts_node_symbol(left) != m->sym.tuple_pattern))
        return none;
    uint32_t n = ts_node_named_child_count(values), index = UINT32_MAX, count = 0;
    for (uint32_t i = 0; i < n; i++) { /* comments are named children too */
        TSNode v = ts_node_named_child(values, i);
        if (same_node(v, e))
            index = count;
        count += !is_type(v, "comment");
    }
    uint32_t ln = ts_node_named_child_count(left), lcount = 0;
    TSNode name = none;
    for (uint32_t i = 0; i < ln; i++) {
        TSNode t = ts_node_named_child(left, i);
        if (is_type(t, "comment"))
            continue;
        if (lcount++ == index)
            name = t;
    }
    return lcount == count && !ts_node_is_null(name) && ts_node_symbol(name) == m->sym.identifier ? name : none;
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
            if (!same_node(o, e) && oom_hostmix_device_value(q, o, depth + 1))
                return found(q, p);
        }
        return reaches_device(q, p, depth + 1);
    }
    if (is_type(p, "subscript")) {
        if (!same_node(oom_model_child(m, p, "value", 5), e))
            return false; /* an index: a device tensor may be indexed by a host one */
        /* `host[mask]` with the mask on the device: indices must be on the
         * host or where the indexed tensor is */
        uint32_t n = ts_node_named_child_count(p);
        for (uint32_t i = 1; i < n; i++)
            if (oom_hostmix_device_value(q, ts_node_named_child(p, i), depth + 1))
                return found(q, p);
        return reaches_device(q, p, depth + 1);
    }
    if (s == m->sym.attribute) {
        uint32_t alen;
        const char *attr = oom_node_text(m, oom_model_child(m, p, "attribute", 9), &alen);
        TSNode call = oom_model_parent(m, p);
        bool called = !ts_node_is_null(call) && ts_node_symbol(call) == m->sym.call &&
                      same_node(oom_model_child(m, call, "function", 8), p);
        if (!called) /* .T, .mT, .data keep it; .shape, .device tell about it */
            return lists_text(&q->lib->tensor_view_attributes, attr, alen) ? reaches_device(q, p, depth + 1) : false;
        const oom_library *lib = q->lib;
        /* .cpu(): put on the host on purpose (an export, a host-side computation) */
        if (lists_text(&lib->placing_methods, attr, alen) || lists_text(&lib->device_following_methods, attr, alen) ||
            lists_text(&lib->host_methods, attr, alen) ||
            lists_text(&lib->number_methods, attr, alen) || lists_text(&lib->tensor_metadata, attr, alen) ||
            lists_text(&lib->text_methods, attr, alen))
            return false;
        if (lists_text(&lib->device_combining_methods, attr, alen) && other_argument_on_device(q, call, e, depth))
            return found(q, call);
        return reaches_device(q, call, depth + 1);
    }
    if (ts_node_symbol(p) == m->sym.tuple || is_type(p, "expression_list")) {
        TSNode unpacked = unpacked_name(m, p, e);
        if (!ts_node_is_null(unpacked)) { /* `x, mask = torch.zeros(n), torch.ones(n)` */
            TSNode def = oom_hostmix_scope_def(m, oom_hostmix_scope_of(m, p));
            return uses_meet_device(q, ts_node_is_null(def) ? m->root : oom_model_child(m, def, "body", 4), unpacked,
                                    depth + 1);
        }
    }
    if (is_type(p, "list") || s == m->sym.tuple) { /* torch.cat([x, host]) */
        TSNode args = oom_model_parent(m, p);
        TSNode call = ts_node_is_null(args) ? args : oom_model_parent(m, args);
        if (!is_type(args, "argument_list") || ts_node_is_null(call) ||
            !oom_hostmix_qualname_in(m, oom_model_child(m, call, "function", 8), &q->lib->device_combining_functions))
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
        return oom_hostmix_device_value(q, oom_model_child(m, p, "left", 4), depth + 1) ? found(q, p) : false;
    return false;
}

bool oom_pymodel_host_tensor_meets_device(const oom_pymodel *m, TSNode call, uint32_t *line)
{
    const oom_library *lib = oom_library_get();
    if (!lib || !host_factory(m, lib, call) || oom_model_may_set_default_device(m, lib))
        return false;
    mix_query q = {m, lib, HOSTMIX_BUDGET, {{0}, NULL, NULL}, -1, {{0}, NULL, NULL}, false, false};
    TSNode def = oom_hostmix_scope_def(m, oom_hostmix_scope_of(m, call));
    TSNode cls = ts_node_is_null(def) ? def : enclosing_class(m, def);
    q.constructing = !ts_node_is_null(cls) && oom_model_class_is_module(m, cls) && !oom_hostmix_computes(m, call);
    if (!reaches_device(&q, call, 0))
        return false;
    if (line)
        *line = ts_node_start_point(q.sink).row + 1;
    return true;
}

/* A tensor factory's call that makes a host tensor (no `device=`) which is
 * no module's parameter (`nn.Parameter(...)` around it): the dtype it is
 * given is that tensor's own. A buffer of that dtype (`register_buffer(
 * "scales", torch.ones(n, dtype=torch.bfloat16))`) meets the layer's
 * float32 outputs in elementwise operations, which PyTorch promotes. */
bool oom_pymodel_is_host_tensor_factory(const oom_pymodel *m, TSNode fn)
{
    const oom_library *lib = oom_library_get();
    TSNode call = oom_model_parent(m, fn);
    if (!lib || ts_node_is_null(call) || ts_node_symbol(call) != m->sym.call ||
        !oom_hostmix_qualname_in(m, fn, &lib->host_tensor_factories) || has_keyword(m, call, &lib->placing_keywords))
        return false;
    TSNode args = oom_model_parent(m, call);
    /* `nn.Parameter(0.01 * torch.randn(n, d, dtype=torch.bfloat16))`: arithmetic keeps the dtype */
    while (!ts_node_is_null(args) && (is_type(args, "binary_operator") || is_type(args, "unary_operator") ||
                                      is_type(args, "parenthesized_expression")))
        args = oom_model_parent(m, args);
    TSNode outer = is_type(args, "argument_list") ? oom_model_parent(m, args) : (TSNode){0};
    return ts_node_is_null(outer) ||
           !oom_hostmix_qualname_in(m, oom_model_child(m, outer, "function", 8), &lib->parameter_constructors);
}

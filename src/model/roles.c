/* model/roles: what a value is — a module (a model or one of its parts) or
 * not — from where it comes from and how it is used, never from what it is
 * called.
 *
 * Evidence, each kind from the library knowledge (rules/kb/library.json) or
 * from the file's own code:
 *   - construction: a call of a library constructor or factory by qualified
 *     name (`torch.nn.Linear`, `timm.create_model`, `X.from_pretrained` of a
 *     class that is no tokenizer or config), or of the file's own class that
 *     derives from a module base or defines `forward`;
 *   - wrapping: DDP, FSDP, `torch.compile`, PEFT, `deepspeed.initialize`'s
 *     engine, `accelerator.prepare`'s elements, a module's `.to()`/`.eval()`;
 *   - use: a method only modules have called on it (`.parameters()`,
 *     `.eval()`, `.named_modules()`), or a wrapper given it;
 *   - dataflow: assignments (every binding that may reach the read), `self.`
 *     attributes set anywhere in the class, fixed-key containers (`nets =
 *     {"g": G()}`, `self.models["g"] = G()`), elements of module lists, the
 *     returns of the file's functions, and parameters, from their annotation
 *     or from the arguments every call site in the file binds to them.
 * Unknown is an answer: a parameter no call site binds and nothing uses as a
 * module is not a module for the rules, which stay quiet. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roles.h"

/* ---- calls ---------------------------------------------------------------------- */

/* The object is an instance of a class matching `receiver`: bound (through
 * names or `self.` attributes) to a call of it. */
static bool instance_of(role_query *q, TSNode obj, const oom_qpattern *receiver, int depth);

static bool call_constructs(role_query *q, TSNode call, const oom_qpattern *cls)
{
    oom_buf qn;
    oom_buf_init(&qn);
    bool yes = oom_pymodel_qualname(q->m, oom_model_child(q->m, call, "function", 8), &qn) &&
               oom_qpattern_match(cls, qn.data);
    oom_buf_free(&qn);
    return yes;
}

static bool instance_of(role_query *q, TSNode obj, const oom_qpattern *receiver, int depth)
{
    const oom_pymodel *m = q->m;
    if (!oom_roles_spend(q, depth) || ts_node_is_null(obj))
        return false;
    if (ts_node_symbol(obj) == m->sym.call)
        return call_constructs(q, obj, receiver);
    if (ts_node_symbol(obj) == m->sym.attribute && oom_roles_is_self(m, oom_model_child(m, obj, "object", 6))) {
        TSNode from = {0};
        TSNode v = oom_roles_self_attribute_value(q->m, obj, &from);
        return !ts_node_is_null(v) && instance_of(q, v, receiver, depth + 1);
    }
    if (ts_node_symbol(obj) != m->sym.identifier)
        return false;
    TSNode v = oom_model_bound_value(m, obj);
    return !ts_node_is_null(v) && !ts_node_eq(v, obj) && instance_of(q, v, receiver, depth + 1);
}

static TSNode returned_element(const oom_pymodel *m, TSNode value, int index)
{
    if (index < 0 || (!oom_roles_is_type(value, "expression_list") && !oom_roles_is_type(value, "tuple")))
        return index < 0 ? value : (TSNode){0};
    if ((uint32_t)index >= ts_node_named_child_count(value))
        return (TSNode){0};
    return oom_model_named_child(m, value, (uint32_t)index);
}

/* What the file's function returns (element `index` of a returned tuple;
 * -1: the whole value): the join over its `return`s. */
static oom_role returns_role(role_query *q, int scope, int index, int depth)
{
    oom_role r = OOM_ROLE_UNKNOWN;
    bool some = false;
    for (size_t i = 0; i < q->m->return_count; i++) {
        if (q->m->returns[i].scope != scope)
            continue;
        TSNode v = returned_element(q->m, q->m->returns[i].value, index);
        oom_role one = ts_node_is_null(v) ? OOM_ROLE_UNKNOWN : oom_roles_of(q, v, depth + 1);
        r = some ? oom_roles_join(r, one) : one;
        some = true;
    }
    return r;
}

/* A library wrapper: the role of what it wraps, for element `index` of its
 * result (-1: all of it); returns false when the call is no wrapper. */
static bool wrapper_role(role_query *q, TSNode call, const char *qual, int index, int depth, oom_role *out)
{
    for (size_t i = 0; i < q->lib->wrapper_count; i++) {
        const oom_lib_wrapper *w = &q->lib->wrappers[i];
        if (!oom_qpattern_match(&w->call, qual))
            continue;
        if (w->element >= 0 && index >= 0 && index != w->element) {
            *out = OOM_ROLE_UNKNOWN; /* the optimizer or loader beside the engine */
            return true;
        }
        TSNode wrapped = oom_roles_argument_at(q->m, call, w->argument, w->keyword);
        *out = ts_node_is_null(wrapped) ? OOM_ROLE_UNKNOWN : oom_roles_of(q, wrapped, depth + 1);
        return true;
    }
    return false;
}

/* `accelerator.prepare(model, opt, loader)`: element i is argument i, a
 * single argument the whole result. */
static bool preparing_role(role_query *q, TSNode call, TSNode fn, int index, int depth, oom_role *out)
{
    const oom_pymodel *m = q->m;
    if (ts_node_symbol(fn) != m->sym.attribute)
        return false;
    uint32_t len;
    const char *method = oom_node_last_name(m, fn, &len);
    for (size_t i = 0; method && i < q->lib->preparing_count; i++) {
        const oom_lib_method *p = &q->lib->preparing[i];
        if (strlen(p->method) != len || memcmp(p->method, method, len) != 0 ||
            !instance_of(q, oom_model_child(m, fn, "object", 6), &p->receiver, depth + 1))
            continue;
        TSNode arg = oom_roles_argument_at(m, call, index < 0 ? 0 : index, NULL);
        *out = ts_node_is_null(arg) ? OOM_ROLE_UNKNOWN : oom_roles_of(q, arg, depth + 1);
        return true;
    }
    return false;
}

/* The call is one of the library knowledge's module constructors. A
 * pattern open to any receiver (`**.from_pretrained`) holds only for a
 * receiver the file names as a class (an import, its own class), not for an
 * object whose class the file does not show: `model_class.tokenizer.
 * from_pretrained(...)` on a registry's entry may load a tokenizer. */
static bool constructs_module(const oom_pymodel *m, const oom_library *lib, TSNode fn, const char *qual)
{
    int k = oom_qpattern_find(lib->constructors, lib->constructor_count, qual);
    if (k < 0)
        return false;
    const oom_qpattern *p = &lib->constructors[k];
    if (p->count == 0 || strcmp(p->segments[0], "**") != 0 || ts_node_symbol(fn) != m->sym.attribute)
        return true;
    uint32_t first = (uint32_t)strcspn(qual, ".");
    TSNode root = oom_model_child(m, fn, "object", 6);
    for (int hop = 0; hop < 4; hop++) {
        while (!ts_node_is_null(root) && ts_node_symbol(root) == m->sym.attribute)
            root = oom_model_child(m, root, "object", 6);
        if (ts_node_is_null(root) || ts_node_symbol(root) != m->sym.identifier)
            return false;
        uint32_t len;
        const char *name = oom_node_text(m, root, &len);
        /* the qualified name resolved the receiver to something else, the
         * receiver is an import or the file's own class */
        if ((hop == 0 && (first != len || memcmp(qual, name, len) != 0)) || oom_pymodel_is_import_alias(m, name, len) ||
            !ts_node_is_null(oom_roles_own_class(m, name, len)))
            return true;
        /* or a name bound to one: `family = AutoModel`, then `family.from_pretrained(path)` */
        uint32_t at = ts_node_start_byte(root);
        const oom_binding *b = oom_model_visible_binding(m, oom_model_scope_at(m, at), name, len, at, true);
        if (!b || b->kind != OOM_BIND_VALUE || ts_node_is_null(b->value))
            return false;
        root = b->value;
    }
    return false;
}

static oom_role call_role(role_query *q, TSNode call, int index, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn))
        return OOM_ROLE_UNKNOWN;
    oom_role r = OOM_ROLE_UNKNOWN;
    if (preparing_role(q, call, fn, index, depth, &r))
        return r;
    if (ts_node_symbol(fn) == m->sym.attribute) {
        uint32_t len;
        const char *method = oom_node_last_name(m, fn, &len);
        if (method && index < 0 && oom_library_lists(&q->lib->self_returning, method, len)) {
            r = oom_roles_of(q, oom_model_child(m, fn, "object", 6), depth + 1);
            if (r == OOM_ROLE_MODULE || oom_library_lists(&q->lib->use_evidence, method, len))
                return OOM_ROLE_MODULE; /* model.to(device), net.eval(); a tensor's .to() says nothing */
        }
    }
    oom_buf qn;
    oom_buf_init(&qn);
    bool known = oom_pymodel_qualname(m, fn, &qn);
    r = OOM_ROLE_UNKNOWN;
    int own = oom_model_called_scope(m, fn);
    TSNode cls = known && ts_node_symbol(fn) == m->sym.identifier ? oom_roles_own_class(m, qn.data, (uint32_t)qn.len)
                                                                    : (TSNode){0};
    if (!ts_node_is_null(cls))
        r = index < 0 ? oom_roles_own_class_role(q, cls, depth + 1) : OOM_ROLE_UNKNOWN;
    else if (own >= 0)
        r = returns_role(q, own, index, depth);
    else if (known && wrapper_role(q, call, qn.data, index, depth, &r))
        ;
    else if (known && index < 0 && oom_qpattern_find(q->lib->not_modules, q->lib->not_module_count, qn.data) >= 0)
        r = OOM_ROLE_NOT_MODULE;
    else if (known && index < 0 && constructs_module(m, q->lib, fn, qn.data))
        r = OOM_ROLE_MODULE;
    else if (known && index < 0 && oom_roles_imported_class(m, fn, qn.data)) {
        /* `ModelWithIntermediateLayers(model)` imported from the project: a
         * module if the file the import reaches says so */
        const char *dot = strrchr(qn.data, '.');
        r = oom_roles_wait_on(q, "module\t%.*s\t%.*s", qn.data, (size_t)(dot - qn.data), dot + 1, strlen(dot + 1), -1)
                ? OOM_ROLE_MODULE
                : OOM_ROLE_UNKNOWN;
    }
    oom_buf_free(&qn);
    return r;
}

/* ---- names ---------------------------------------------------------------------------- */

static bool is_method_scope(const oom_pymodel *m, const oom_scope *sc)
{
    return !ts_node_is_null(oom_model_class_of_scope(m, sc));
}

static TSNode class_around(const oom_pymodel *m, TSNode n);

/* `obj` is an instance of the file's class `cls`: `C(...)` itself, or a
 * name bound to it (`crit = MaskedLmLoss()`, then `crit.forward(...)`). */
static bool instance_of_own_class(const oom_pymodel *m, TSNode obj, TSNode cls)
{
    if (ts_node_is_null(cls))
        return false;
    TSNode v = ts_node_symbol(obj) == m->sym.identifier ? oom_model_bound_value(m, obj) : obj;
    if (ts_node_is_null(v) || ts_node_symbol(v) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, v, "function", 8);
    TSNode name = oom_model_child(m, cls, "name", 4);
    uint32_t a, b;
    const char *t = oom_node_text(m, fn, &a), *n = oom_node_text(m, name, &b);
    return ts_node_symbol(fn) == m->sym.identifier && a == b && memcmp(t, n, a) == 0;
}

/* The method overrides a framework's hook that the framework calls with a
 * module at this position (the library knowledge's hook_parameters): the
 * method's class derives, directly, from that framework class. */
static bool framework_gives_module(role_query *q, const oom_scope *sc, int positional)
{
    const oom_pymodel *m = q->m;
    TSNode cls = class_around(m, sc->def);
    if (ts_node_is_null(cls) || positional < 0)
        return false;
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, cls, "superclasses", 12));
    oom_buf qn;
    oom_buf_init(&qn);
    bool gives = false;
    for (TSNode base; !gives && oom_model_next_kid(m, &kids, &base);) {
        if (ts_node_symbol(base) == m->sym.keyword_argument || !oom_pymodel_qualname(m, base, &qn))
            continue;
        for (size_t i = 0; i < q->lib->hook_count && !gives; i++) {
            const oom_lib_hook *h = &q->lib->hooks[i];
            gives = h->position == positional && strlen(h->method) == sc->name_len &&
                    memcmp(h->method, sc->name, sc->name_len) == 0 && oom_qpattern_match(&h->base, qn.data);
        }
    }
    oom_buf_free(&qn);
    return gives;
}

/* A parameter: its annotation (`model: nn.Module`), else the arguments the
 * file's call sites of its function bind to it. */
static oom_role parameter_role(role_query *q, int scope, const char *name, uint32_t len, int depth)
{
    const oom_pymodel *m = q->m;
    const oom_scope *sc = &m->scopes[scope];
    if (ts_node_is_null(sc->def) || ts_node_symbol(sc->def) != m->sym.function_definition)
        return OOM_ROLE_UNKNOWN;
    TSNode param = {0};
    int index = oom_model_parameter_index(m, sc->def, name, len, &param);
    if (index < 0)
        return OOM_ROLE_UNKNOWN;
    TSNode type = oom_model_child(m, param, "type", 4);
    if (!ts_node_is_null(type)) {
        oom_buf qn;
        oom_buf_init(&qn);
        TSNode t = ts_node_named_child_count(type) == 1 ? oom_model_named_child(m, type, 0) : type;
        bool module = oom_pymodel_qualname(m, t, &qn) &&
                      oom_qpattern_find(q->lib->bases, q->lib->base_count, qn.data) >= 0;
        oom_buf_free(&qn);
        if (module)
            return OOM_ROLE_MODULE;
    }
    bool method = is_method_scope(m, sc);
    int positional = method ? index - 1 : index;
    if (method && framework_gives_module(q, sc, positional))
        return OOM_ROLE_MODULE;
    char keyword[128];
    if (len >= sizeof keyword)
        return OOM_ROLE_UNKNOWN;
    memcpy(keyword, name, len);
    keyword[len] = '\0';
    oom_role r = OOM_ROLE_UNKNOWN;
    bool some = false;
    /* a constructor's parameters are bound by calls of its class */
    const char *callee = sc->name;
    uint32_t callee_len = sc->name_len;
    bool constructor = method && callee_len == 8 && memcmp(callee, "__init__", 8) == 0;
    if (constructor) {
        TSNode cls = class_around(m, sc->def);
        TSNode cname = ts_node_is_null(cls) ? cls : oom_model_child(m, cls, "name", 4);
        callee = ts_node_is_null(cname) ? NULL : oom_node_text(m, cname, &callee_len);
    }
    for (size_t i = 0; callee && i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->name_len != callee_len || memcmp(c->name, callee, callee_len) != 0)
            continue;
        TSNode fn = c->fn;
        bool through_self = ts_node_symbol(fn) == m->sym.attribute && oom_roles_is_self(m, oom_model_child(m, fn, "object", 6));
        if (method && !constructor && !through_self && ts_node_symbol(fn) == m->sym.attribute)
            through_self = instance_of_own_class(m, oom_model_child(m, fn, "object", 6), class_around(m, sc->def));
        if (constructor ? ts_node_symbol(fn) != m->sym.identifier : method != through_self)
            continue; /* f(...) for a function, self.f(...) or obj.f(...) for a method, C(...) for a constructor */
        TSNode arg = oom_roles_argument_at(m, c->node, positional, keyword);
        if (ts_node_is_null(arg) || !oom_roles_spend(q, depth))
            return OOM_ROLE_UNKNOWN; /* a default, or a splat: not known */
        oom_role one = oom_roles_of(q, arg, depth + 1);
        r = some ? oom_roles_join(r, one) : one;
        some = true;
    }
    if (r == OOM_ROLE_UNKNOWN && callee) {
        /* no call in the file says: one in another file of the project may */
        uint32_t clen = callee_len;
        if (positional >= 0) {
            r = oom_roles_wait_on(q, "modarg\t%.*s\t%d\t%.*s", callee, clen, keyword, len, positional) ? OOM_ROLE_MODULE
                                                                                             : OOM_ROLE_UNKNOWN;
        }
    }
    return r;
}

/* A parameter `id` of a function of the file: the argument the file's
 * first call of that function binds to it (`train(model, ...)` in main);
 * null when none does. */
static TSNode first_bound_argument(const oom_pymodel *m, TSNode id)
{
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    int scope = oom_model_scope_at(m, ts_node_start_byte(id));
    if (scope <= 0)
        return (TSNode){0};
    const oom_scope *sc = &m->scopes[scope];
    const oom_binding *b = oom_model_visible_binding(m, scope, name, len, ts_node_start_byte(id), true);
    TSNode param = {0};
    int index = b && b->kind == OOM_BIND_OPAQUE && b->scope == scope && !ts_node_is_null(sc->def)
                    ? oom_model_parameter_index(m, sc->def, name, len, &param)
                    : -1;
    if (index < 0 || is_method_scope(m, sc))
        return (TSNode){0};
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        TSNode fn = c->fn;
        if (c->name_len == sc->name_len && memcmp(c->name, sc->name, c->name_len) == 0 &&
            ts_node_symbol(fn) == m->sym.identifier) {
            char keyword[128];
            if (len >= sizeof keyword)
                return (TSNode){0};
            memcpy(keyword, name, len);
            keyword[len] = '\0';
            return oom_roles_argument_at(m, c->node, index, keyword);
        }
    }
    return (TSNode){0};
}

static TSNode iterable_element_of(role_query *q, TSNode iterable, int depth, oom_role *out);

/* One binding's role, for the name `name` it binds. */
static oom_role binding_role_uncached(role_query *q, const oom_binding *b, int depth)
{
    const oom_pymodel *m = q->m;
    switch (b->kind) {
    case OOM_BIND_VALUE:
        return ts_node_is_null(b->value) ? OOM_ROLE_UNKNOWN : oom_roles_of(q, b->value, depth + 1);
    case OOM_BIND_UNPACK: {
        TSNode assignment = oom_model_parent(m, b->value);
        TSNode left = ts_node_is_null(assignment) ? assignment : oom_model_child(m, assignment, "left", 4);
        uint32_t count = ts_node_is_null(left) ? 0 : ts_node_named_child_count(left);
        for (uint32_t i = 0; i < count; i++) {
            if (!oom_node_text_is(m, oom_model_named_child(m, left, i), "") &&
                ts_node_end_byte(oom_model_named_child(m, left, i)) - ts_node_start_byte(oom_model_named_child(m, left, i)) ==
                    b->name_len &&
                memcmp(m->src + ts_node_start_byte(oom_model_named_child(m, left, i)), b->name, b->name_len) == 0) {
                if (ts_node_symbol(b->value) == m->sym.call)
                    return call_role(q, b->value, (int)i, depth + 1);
                TSNode el = returned_element(m, b->value, (int)i);
                return ts_node_is_null(el) ? OOM_ROLE_UNKNOWN : oom_roles_of(q, el, depth + 1);
            }
        }
        return OOM_ROLE_UNKNOWN;
    }
    case OOM_BIND_ITER: {
        oom_role r = OOM_ROLE_UNKNOWN;
        iterable_element_of(q, b->value, depth + 1, &r);
        return r;
    }
    case OOM_BIND_OPAQUE:
        return b->scope > 0 ? parameter_role(q, b->scope, b->name, b->name_len, depth + 1) : OOM_ROLE_UNKNOWN;
    default:
        return OOM_ROLE_UNKNOWN;
    }
}

/* A binding's role, kept once it is worked out whole: every name read
 * that this binding reaches asks it again, and the roles follow names
 * through many bindings. Only an answer the search reached without a cut
 * (so the same at any depth and budget), waiting on no other file, is kept;
 * a binding met again while it is answered (`x = x.to(d)`) is worked out
 * again, as it was before answers were kept, until the depth cuts it. */
static oom_role binding_role(role_query *q, const oom_binding *b, int depth)
{
    static const char key[] = "binding"; /* kept by the binding's index: the list may grow */
    const oom_pymodel *m = q->m;
    if (b < m->bindings || b >= m->bindings + m->binding_count)
        return binding_role_uncached(q, b, depth);
    uint32_t at = (uint32_t)(b - m->bindings);
    const memo_slot *s = oom_roles_memo_find(m, MEMO_BINDING, at, key, 0);
    if (s && s->value != MEMO_ASK_AGAIN)
        return (oom_role)s->value;
    unsigned waited = q->waited;
    bool would = m->would_wait;
    ((oom_pymodel *)m)->would_wait = false; /* one thread owns the model */
    bool outer = oom_roles_begin_memo(q);
    oom_role r = binding_role_uncached(q, b, depth);
    bool whole = oom_roles_end_memo(q, outer);
    if (whole && q->waited == waited && !m->would_wait)
        oom_roles_memo_put(m, MEMO_BINDING, at, key, 0, (int)r);
    ((oom_pymodel *)m)->would_wait |= would;
    return r;
}

static oom_role name_role(role_query *q, TSNode id, int depth)
{
    const oom_pymodel *m = q->m;
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    uint32_t pos = ts_node_start_byte(id);
    oom_flow_reach reach;
    oom_role r = OOM_ROLE_UNKNOWN;
    int scope = oom_model_scope_at(m, pos);
    size_t waits = q->cond.len;
    if (oom_model_reaching_bindings(m, id, &reach)) {
        bool some = false;
        for (uint32_t i = 0; i < reach.count; i++) {
            const oom_binding *b = oom_model_def_binding(m, reach.defs[i]);
            oom_role one = b ? binding_role(q, b, depth) : OOM_ROLE_UNKNOWN;
            r = some ? oom_roles_join(r, one) : one;
            some = true;
        }
    } else {
        const oom_binding *b = oom_model_visible_binding(m, scope, name, len, pos, true);
        r = b ? binding_role(q, b, depth) : OOM_ROLE_UNKNOWN;
        if (b)
            scope = b->scope;
    }
    if (r != OOM_ROLE_UNKNOWN && q->cond.len == waits)
        return r;
    const oom_scope *sc = &m->scopes[scope > 0 ? scope : 0];
    if (oom_roles_used_as_module(q, name, len, scope > 0 ? sc->start : 0, scope > 0 ? sc->end : (uint32_t)m->len)) {
        oom_roles_cond_truncate(q, waits); /* what the function does with it settles it here */
        return OOM_ROLE_MODULE;
    }
    return r;
}

/* ---- self attributes and containers --------------------------------------------------- */

/* The class around position `pos` (the innermost class_definition), or null. */
static TSNode class_around(const oom_pymodel *m, TSNode n)
{
    for (TSNode up = oom_model_parent(m, n); !ts_node_is_null(up); up = oom_model_parent(m, up))
        if (ts_node_symbol(up) == m->sym.class_definition)
            return up;
    return (TSNode){0};
}

/* The values assigned to `self.<attr>` in the class of `attr_expr`, joined
 * (the last one seen is returned, for instance_of; `from` its class). */
TSNode oom_roles_self_attribute_value(const oom_pymodel *m, TSNode attr_expr, TSNode *from)
{
    TSNode cls = class_around(m, attr_expr);
    *from = cls;
    if (ts_node_is_null(cls) || !m->nodes)
        return (TSNode){0};
    uint32_t alen;
    const char *attr = oom_node_last_name(m, attr_expr, &alen);
    uint32_t at = oom_nodes_find(m->nodes, cls);
    if (!attr || at == UINT32_MAX)
        return (TSNode){0};
    TSNode last = {0};
    for (uint32_t i = at; i < m->nodes->items[at].end; i++) {
        if (m->nodes->items[i].symbol != m->sym.assignment)
            continue;
        TSNode as = m->nodes->items[i].node;
        TSNode left = oom_model_child(m, as, "left", 4);
        uint32_t len;
        const char *name = ts_node_symbol(left) == m->sym.attribute && oom_roles_is_self(m, oom_model_child(m, left, "object", 6))
                               ? oom_node_last_name(m, left, &len)
                               : NULL;
        if (name && len == alen && memcmp(name, attr, len) == 0 && !ts_node_is_null(oom_model_child(m, as, "right", 5)))
            last = oom_model_child(m, as, "right", 5);
    }
    return last;
}

static bool constructor_submodule(role_query *q, TSNode cls, const char *attr, uint32_t alen, int depth)
{
    const oom_pymodel *m = q->m;
    if (oom_roles_own_class_role(q, cls, depth + 1) != OOM_ROLE_MODULE)
        return false;
    uint32_t at = oom_nodes_find(m->nodes, cls);
    for (uint32_t i = at; i < m->nodes->items[at].end; i++) {
        const oom_node *n = &m->nodes->items[i];
        if (n->symbol != m->sym.call)
            continue;
        TSNode fn = oom_model_child(m, n->node, "function", 8);
        uint32_t len;
        const char *name = ts_node_symbol(fn) == m->sym.attribute && oom_roles_is_self(m, oom_model_child(m, fn, "object", 6))
                               ? oom_node_last_name(m, fn, &len)
                               : NULL;
        if (!name || len != alen || memcmp(name, attr, len) != 0)
            continue;
        if (oom_roles_takes_data(m, n->node))
            return true; /* once is enough: a diffusion wrapper's own self-conditioning pass is a second */
    }
    return false;
}

/* `self.<attr>` as it stands in the class's source (the memo of uses
 * keeps the text, so it must point into the source), or NULL when the
 * class never writes it so: then no call in the class can use it. */
static const char *class_text(const oom_pymodel *m, TSNode cls, const char *text, uint32_t len)
{
    const char *from = m->src + ts_node_start_byte(cls);
    size_t n = ts_node_end_byte(cls) - ts_node_start_byte(cls);
    return memmem(from, n, text, len);
}

/* The file's class `obj` is an instance of (`net` of `net = Classifier()`,
 * or the call itself); null otherwise. */
static TSNode first_bound_argument(const oom_pymodel *m, TSNode id);

static TSNode own_instance_class(const oom_pymodel *m, TSNode obj)
{
    TSNode v = obj;
    for (int hop = 0; hop < 4 && !ts_node_is_null(v) && ts_node_symbol(v) == m->sym.identifier; hop++) {
        TSNode bound = oom_model_bound_value(m, v);
        v = !ts_node_is_null(bound) && !ts_node_eq(bound, v) ? bound : first_bound_argument(m, v);
    }
    if (ts_node_is_null(v) || ts_node_symbol(v) != m->sym.call)
        return (TSNode){0};
    TSNode fn = oom_model_child(m, v, "function", 8);
    uint32_t len;
    const char *name = ts_node_symbol(fn) == m->sym.identifier ? oom_node_text(m, fn, &len) : NULL;
    return name ? oom_roles_own_class(m, name, len) : (TSNode){0};
}

/* What `self.<attr>` is in the class of `attr_expr`: the join of what is
 * assigned to it anywhere in the class, else what the class does with it. */
static oom_role self_attribute_role_uncached(role_query *q, TSNode cls, const char *attr, uint32_t alen, int depth)
{
    const oom_pymodel *m = q->m;
    uint32_t at = oom_nodes_find(m->nodes, cls);
    if (!attr || at == UINT32_MAX)
        return OOM_ROLE_UNKNOWN;
    oom_role r = OOM_ROLE_UNKNOWN;
    bool some = false, only_parameters = true;
    size_t waits = q->cond.len;
    for (uint32_t i = at; i < m->nodes->items[at].end && oom_roles_spend(q, depth); i++) {
        if (m->nodes->items[i].symbol != m->sym.assignment)
            continue;
        TSNode as = m->nodes->items[i].node;
        TSNode left = oom_model_child(m, as, "left", 4), right = oom_model_child(m, as, "right", 5);
        uint32_t len;
        const char *name = ts_node_symbol(left) == m->sym.attribute && oom_roles_is_self(m, oom_model_child(m, left, "object", 6))
                               ? oom_node_last_name(m, left, &len)
                               : NULL;
        if (!name || len != alen || memcmp(name, attr, len) != 0 || ts_node_is_null(right))
            continue;
        if (oom_roles_is_type(right, "none"))
            continue; /* `self.model = None` before it is built */
        oom_role one = oom_roles_of(q, right, depth + 1);
        if (ts_node_symbol(right) != m->sym.identifier)
            only_parameters = false;
        else {
            const oom_binding *b = oom_model_visible_binding(m, oom_model_scope_at(m, ts_node_start_byte(right)),
                                                            m->src + ts_node_start_byte(right),
                                                            ts_node_end_byte(right) - ts_node_start_byte(right),
                                                            ts_node_start_byte(right), true);
            only_parameters = only_parameters && b && b->kind == OOM_BIND_OPAQUE && b->scope > 0;
        }
        r = some ? oom_roles_join(r, one) : one;
        some = true;
    }
    if (r != OOM_ROLE_UNKNOWN && q->cond.len == waits)
        return r;
    char text[128];
    int tlen = snprintf(text, sizeof text, "self.%.*s", (int)alen, attr);
    const char *in_source = tlen > 0 && (size_t)tlen < sizeof text ? class_text(m, cls, text, (uint32_t)tlen) : NULL;
    if ((in_source && oom_roles_used_as_module(q, in_source, (uint32_t)tlen, ts_node_start_byte(cls),
                                               ts_node_end_byte(cls))) ||
        (some && only_parameters && constructor_submodule(q, cls, attr, alen, depth))) {
        oom_roles_cond_truncate(q, waits); /* what the class does with it settles it here */
        return OOM_ROLE_MODULE;
    }
    return r;
}

static oom_role class_attribute_role(role_query *q, TSNode cls, const char *attr, uint32_t alen, int depth);

static oom_role self_attribute_role(role_query *q, TSNode attr_expr, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode cls = class_around(m, attr_expr);
    if (ts_node_is_null(cls) || !m->nodes)
        return OOM_ROLE_UNKNOWN;
    uint32_t alen;
    const char *attr = oom_node_last_name(m, attr_expr, &alen);
    return attr ? class_attribute_role(q, cls, attr, alen, depth) : OOM_ROLE_UNKNOWN;
}

/* What `self.<attr>` is in class `cls` (memoised per class and name). */
static oom_role class_attribute_role(role_query *q, TSNode cls, const char *attr, uint32_t alen, int depth)
{
    const oom_pymodel *m = q->m;
    if (!m->nodes)
        return OOM_ROLE_UNKNOWN;
    const memo_slot *s = oom_roles_memo_find(m, MEMO_ATTR, ts_node_start_byte(cls), attr, alen);
    if (s && s->value != MEMO_ASK_AGAIN)
        return (oom_role)s->value;
    if (!s) /* self.a = self.a.to(x) asks again while it is answered: unknown */
        oom_roles_memo_put(m, MEMO_ATTR, ts_node_start_byte(cls), attr, alen, OOM_ROLE_UNKNOWN);
    size_t waits = q->cond.len;
    bool would = m->would_wait;
    ((oom_pymodel *)m)->would_wait = false;
    bool outer = oom_roles_begin_memo(q);
    oom_role r = self_attribute_role_uncached(q, cls, attr, alen, depth);
    bool whole = oom_roles_end_memo(q, outer);
    /* an answer that waits (or would wait) on another file is worked out
     * again each time, so that each question records what it waits on; so
     * is an unknown that a search cut short left */
    oom_roles_memo_put(m, MEMO_ATTR, ts_node_start_byte(cls), attr, alen,
                       (whole || r != OOM_ROLE_UNKNOWN) && q->cond.len == waits && !m->would_wait
                           ? (int)r
                           : MEMO_ASK_AGAIN);
    ((oom_pymodel *)m)->would_wait |= would;
    return r;
}

static bool string_key_is(const oom_pymodel *m, TSNode key, TSNode want)
{
    uint32_t a, b;
    const char *ka = oom_node_text(m, key, &a), *kb = oom_node_text(m, want, &b);
    return oom_roles_is_type(key, "string") && oom_roles_is_type(want, "string") && a == b && a >= 2 &&
           memcmp(ka + 1, kb + 1, a - 2) == 0; /* the quotes may differ */
}

/* The container's entry for a literal key: a dict literal's pair, or an
 * assignment `container["key"] = value` of the same text in the same scope
 * or class. */
static oom_role keyed_entry_role(role_query *q, TSNode container, TSNode key, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode value = container;
    if (ts_node_symbol(container) == m->sym.identifier)
        value = oom_model_bound_value(m, container);
    else if (ts_node_symbol(container) == m->sym.attribute && oom_roles_is_self(m, oom_model_child(m, container, "object", 6))) {
        TSNode from;
        value = oom_roles_self_attribute_value(q->m, container, &from);
    }
    oom_role r = OOM_ROLE_UNKNOWN;
    if (!ts_node_is_null(value) && ts_node_symbol(value) == m->sym.call) {
        TSNode args = oom_model_child(m, value, "arguments", 9); /* nn.ModuleDict({...}) */
        value = ts_node_named_child_count(args) == 1 ? oom_model_named_child(m, args, 0) : (TSNode){0};
    }
    if (oom_roles_is_type(value, "dictionary")) {
        oom_model_kids kids = oom_model_kids_of(m, value);
        for (TSNode pair; oom_model_next_kid(m, &kids, &pair);)
            if (oom_roles_is_type(pair, "pair") && string_key_is(m, oom_model_child(m, pair, "key", 3), key))
                return oom_roles_of(q, oom_model_child(m, pair, "value", 5), depth + 1);
    }
    /* container["key"] = value, anywhere in the scope (or class) */
    if (!m->nodes)
        return r;
    uint32_t ctext_len;
    const char *ctext = oom_node_text(m, container, &ctext_len);
    TSNode region = class_around(m, container);
    uint32_t at = ts_node_is_null(region) ? 0 : oom_nodes_find(m->nodes, region);
    uint32_t end = ts_node_is_null(region) || at == UINT32_MAX ? m->nodes->len : m->nodes->items[at].end;
    for (uint32_t i = at == UINT32_MAX ? 0 : at; i < end && oom_roles_spend(q, depth); i++) {
        if (m->nodes->items[i].symbol != m->sym.assignment)
            continue;
        TSNode left = oom_model_child(m, m->nodes->items[i].node, "left", 4);
        if (!oom_roles_is_type(left, "subscript"))
            continue;
        uint32_t len;
        const char *t = oom_node_text(m, oom_model_child(m, left, "value", 5), &len);
        TSNode k = oom_model_child(m, left, "subscript", 9);
        if (len == ctext_len && memcmp(t, ctext, len) == 0 && !ts_node_is_null(k) && string_key_is(m, k, key))
            r = oom_roles_join(r, oom_roles_of(q, oom_model_child(m, m->nodes->items[i].node, "right", 5), depth + 1));
    }
    return r;
}

/* A module container's element (`for layer in self.layers`, `self.heads[i]`):
 * a library container, or a list, tuple or dict literal whose every element
 * is a module. Returns the node the element comes from (for callers that
 * want it) and sets *out. */
static TSNode iterable_element_of(role_query *q, TSNode iterable, int depth, oom_role *out)
{
    const oom_pymodel *m = q->m;
    *out = OOM_ROLE_UNKNOWN;
    if (ts_node_is_null(iterable) || !oom_roles_spend(q, depth))
        return iterable;
    TSNode v = iterable;
    if (ts_node_symbol(v) == m->sym.call) {
        TSNode fn = oom_model_child(m, v, "function", 8);
        uint32_t len;
        const char *method = oom_node_last_name(m, fn, &len);
        if (ts_node_symbol(fn) == m->sym.attribute && method && len == 6 && memcmp(method, "values", 6) == 0)
            v = oom_model_child(m, fn, "object", 6); /* nets.values() */
    }
    if (ts_node_symbol(v) == m->sym.identifier)
        v = oom_model_bound_value(m, v);
    else if (ts_node_symbol(v) == m->sym.attribute && oom_roles_is_self(m, oom_model_child(m, v, "object", 6))) {
        TSNode from;
        v = oom_roles_self_attribute_value(q->m, v, &from);
    }
    if (ts_node_is_null(v))
        return iterable;
    if (ts_node_symbol(v) == m->sym.call) {
        oom_buf qn;
        oom_buf_init(&qn);
        bool container = oom_pymodel_qualname(m, oom_model_child(m, v, "function", 8), &qn) &&
                         oom_qpattern_find(q->lib->containers, q->lib->container_count, qn.data) >= 0;
        oom_buf_free(&qn);
        if (container)
            *out = OOM_ROLE_MODULE;
        return iterable;
    }
    bool dict = oom_roles_is_type(v, "dictionary");
    if (!dict && !oom_roles_is_type(v, "list") && !oom_roles_is_type(v, "tuple"))
        return iterable;
    oom_model_kids kids = oom_model_kids_of(m, v);
    bool some = false;
    oom_role r = OOM_ROLE_UNKNOWN;
    for (TSNode el; oom_model_next_kid(m, &kids, &el);) {
        TSNode item = dict ? (oom_roles_is_type(el, "pair") ? oom_model_child(m, el, "value", 5) : (TSNode){0}) : el;
        oom_role one = ts_node_is_null(item) ? OOM_ROLE_UNKNOWN : oom_roles_of(q, item, depth + 1);
        r = some ? oom_roles_join(r, one) : one;
        some = true;
        if (r != OOM_ROLE_MODULE)
            return iterable;
    }
    *out = r;
    return iterable;
}

static oom_role subscript_role(role_query *q, TSNode e, int depth)
{
    const oom_pymodel *m = q->m;
    TSNode container = oom_model_child(m, e, "value", 5);
    TSNode key = oom_model_child(m, e, "subscript", 9);
    if (ts_node_is_null(container) || ts_node_is_null(key))
        return OOM_ROLE_UNKNOWN;
    if (oom_roles_is_type(key, "string")) {
        oom_role r = keyed_entry_role(q, container, key, depth);
        if (r != OOM_ROLE_UNKNOWN)
            return r;
    }
    oom_role r;
    iterable_element_of(q, container, depth + 1, &r);
    return r;
}

/* ---- any expression ------------------------------------------------------------------ */

oom_role oom_roles_of(role_query *q, TSNode e, int depth)
{
    const oom_pymodel *m = q->m;
    if (ts_node_is_null(e) || !oom_roles_spend(q, depth))
        return OOM_ROLE_UNKNOWN;
    TSSymbol s = ts_node_symbol(e);
    const char *type = ts_node_type(e);
    if (s == m->sym.identifier) {
        if (oom_node_text_is(m, e, "self")) {
            int scope = oom_model_scope_at(m, ts_node_start_byte(e));
            return scope > 0 && m->scopes[scope].model_method ? OOM_ROLE_MODULE : OOM_ROLE_UNKNOWN;
        }
        return name_role(q, e, depth);
    }
    if (s == m->sym.attribute) {
        TSNode obj = oom_model_child(m, e, "object", 6);
        if (oom_roles_is_self(m, obj))
            return self_attribute_role(q, e, depth);
        uint32_t len;
        const char *attr = oom_node_last_name(m, e, &len);
        if (attr && oom_library_lists(&q->lib->module_attributes, attr, len))
            return oom_roles_of(q, obj, depth + 1) == OOM_ROLE_MODULE ? OOM_ROLE_MODULE : OOM_ROLE_UNKNOWN;
        /* net.backbone(x) with `net = Classifier()` of this file: what the
         * class assigns to self.backbone. A library model's attribute is not
         * known: a submodule and a method (`model.chat`, `model.init_hidden`)
         * look the same from here. */
        TSNode cls = own_instance_class(m, obj);
        if (attr && !ts_node_is_null(cls))
            return class_attribute_role(q, cls, attr, len, depth + 1);
        /* model.text_encoder(...) then `.last_hidden_state`: what the
         * function around it does with the attribute */
        uint32_t tlen;
        const char *text = oom_node_text(m, e, &tlen);
        int scope = oom_model_scope_at(m, ts_node_start_byte(e));
        uint32_t start = scope > 0 ? m->scopes[scope].start : 0, end = scope > 0 ? m->scopes[scope].end : (uint32_t)m->len;
        return oom_roles_used_as_module(q, text, tlen, start, end) ? OOM_ROLE_MODULE : OOM_ROLE_UNKNOWN;
    }
    if (s == m->sym.call)
        return call_role(q, e, -1, depth);
    if (strcmp(type, "subscript") == 0)
        return subscript_role(q, e, depth);
    if (strcmp(type, "parenthesized_expression") == 0)
        return ts_node_named_child_count(e) == 1 ? oom_roles_of(q, oom_model_named_child(m, e, 0), depth + 1)
                                                 : OOM_ROLE_UNKNOWN;
    if (strcmp(type, "conditional_expression") == 0 && ts_node_named_child_count(e) == 3) {
        TSNode a = oom_model_named_child(m, e, 0), b = oom_model_named_child(m, e, 2);
        oom_role ra = oom_roles_is_type(a, "none") ? OOM_ROLE_UNKNOWN : oom_roles_of(q, a, depth + 1);
        oom_role rb = oom_roles_is_type(b, "none") ? OOM_ROLE_UNKNOWN : oom_roles_of(q, b, depth + 1);
        return oom_roles_join(ra, rb);
    }
    if (strcmp(type, "string") == 0 || strcmp(type, "integer") == 0 || strcmp(type, "float") == 0 ||
        strcmp(type, "true") == 0 || strcmp(type, "false") == 0 || strcmp(type, "list") == 0 ||
        strcmp(type, "dictionary") == 0 || strcmp(type, "tuple") == 0 || strcmp(type, "binary_operator") == 0 ||
        strcmp(type, "concatenated_string") == 0 || strcmp(type, "list_comprehension") == 0 ||
        strcmp(type, "lambda") == 0)
        return OOM_ROLE_NOT_MODULE;
    return OOM_ROLE_UNKNOWN;
}

/* The answer's conditions, to whoever collects them for the finding
 * (oom_pymodel_collect_pending). */
static void hand_on(const oom_pymodel *m, const char *cond)
{
    if (!cond || !*cond || !m->pending_conditions)
        return;
    if (m->pending_conditions->len)
        oom_buf_putc(m->pending_conditions, '\n');
    oom_buf_puts(m->pending_conditions, cond);
}

oom_role oom_model_module_role(const oom_pymodel *m, TSNode expr)
{
    const oom_library *lib = oom_library_get();
    if (!lib)
        return OOM_ROLE_UNKNOWN;
    uint32_t len;
    const char *text = oom_node_text(m, expr, &len);
    /* asked without waiting on other files, or waiting: two answers */
    int kind = m->pending_conditions ? MEMO_ROLE_WAITING : MEMO_ROLE;
    const memo_slot *s = oom_roles_memo_find(m, kind, ts_node_symbol(expr), text, len);
    if (s) {
        if (s->value == OOM_ROLE_MODULE)
            hand_on(m, s->cond);
        else if (kind == MEMO_ROLE && s->cond) /* the kept answer would have waited */
            ((oom_pymodel *)m)->would_wait = true;
        return (oom_role)s->value;
    }
    bool would = m->would_wait;
    ((oom_pymodel *)m)->would_wait = false; /* one thread owns the model */
    role_query q = {m, lib, ROLE_BUDGET, {0}, false, 0};
    oom_buf_init(&q.cond);
    oom_role r = oom_roles_of(&q, expr, 0);
    char *cond = r == OOM_ROLE_MODULE && q.cond.len ? oom_xstrdup(q.cond.data) : NULL;
    if (!cond && kind == MEMO_ROLE && r != OOM_ROLE_MODULE && m->would_wait)
        cond = oom_xstrdup(""); /* marks an answer that would have waited */
    ((oom_pymodel *)m)->would_wait |= would;
    if (r == OOM_ROLE_MODULE)
        hand_on(m, cond);
    oom_roles_memo_put_cond(m, kind, ts_node_symbol(expr), text, len, r, cond);
    oom_buf_free(&q.cond);
    return r;
}

bool oom_pymodel_take_would_wait(const oom_pymodel *m)
{
    bool would = m->would_wait;
    ((oom_pymodel *)m)->would_wait = false; /* one thread owns the model */
    return would;
}

bool oom_model_is_module_forward_method(const char *name, size_t len)
{
    const oom_library *lib = oom_library_get();
    return lib && oom_library_lists(&lib->forward_methods, name, len);
}


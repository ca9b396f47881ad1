/* estimate/modules_builds: which calls of the script build the model. A
 * call of a model class, or of a factory that returns one, that a run
 * without flags reaches outside the classes' own bodies; two builds bound
 * to one name from different classes leave the model unknown; models built
 * in different functions are different runs (docs/estimation.md §11.1).
 * Decided by what the code calls and returns, never by names. */
#include <stdio.h>
#include <string.h>

#include "modules.h"

/* The class a call instantiates, when it is a model class of the script
 * or of the project file an import names. */
static TSNode model_class_called(const ctx *c, TSNode call)
{
    oom_est_pick pk;
    TSNode cls = is(call, "call") ? oom_mod_script_class(c, field(call, "function")) : OOM_EST_NULL_NODE;
    cls = ts_node_is_null(cls) && is(call, "call") ? oom_mod_picked(c, field(call, "function"), &pk) : cls;
    return is(cls, "class_definition") && oom_mod_is_module_class(c, cls, 0) ? cls : OOM_EST_NULL_NODE;
}

static bool returns_model(const ctx *c, TSNode def, int depth);
static bool picks_models(const ctx *c, const oom_est_pick *pk);

/* Whether `v`, an expression in function `def`, is a model instance: a
 * model class called (`Net(...)`, moved or cast after: `.to(device)`), a
 * call of another function that returns one, or a name `def` binds to one. */
static bool is_model_instance(const ctx *c, TSNode def, TSNode v, int depth)
{
    char method[32];
    while (is(v, "call") && is(field(v, "function"), "attribute") &&
           text(c, field(field(v, "function"), "attribute"), method, sizeof method) && oom_mod_keeps_value(method) &&
           ts_node_is_null(model_class_called(c, v)))
        v = field(field(v, "function"), "object");
    oom_est_pick pk; /* `return MODELS[name]()`: a pick among models, by the name the factory is given */
    if (is(v, "call")) {
        if (!ts_node_is_null(model_class_called(c, v)) ||
            (oom_est_pick_of(reader_of(c, v), field(v, "function"), &pk) && !pk.known && picks_models(c, &pk)))
            return true;
        TSNode g = oom_mod_function_named(c, field(v, "function"));
        return !ts_node_is_null(g) && !ts_node_eq(g, def) && returns_model(c, g, depth + 1);
    }
    char name[48], left[48];
    if (!name_of(c, v, name, sizeof name) || depth > 4)
        return false;
    const oom_nodes *L = layout_of(c, def);
    uint32_t at = oom_nodes_find(L, def);
    for (uint32_t k = at + 1; at != UINT32_MAX && k < L->items[at].end; k++) {
        TSNode a = L->items[k].node;
        if (is(a, "assignment") && name_of(c, field(a, "left"), left, sizeof left) && strcmp(left, name) == 0 &&
            !is(field(a, "right"), "identifier") && is_model_instance(c, def, field(a, "right"), depth + 1))
            return true;
    }
    return false;
}

/* A factory: a function whose `return` hands back a model instance
 * (`def build_model(cfg): return Net(cfg.dim)`), decided by what it
 * returns, never by its name. */
static bool returns_model(const ctx *c, TSNode def, int depth)
{
    const oom_nodes *L = layout_of(c, def);
    uint32_t at = oom_nodes_find(L, def);
    if (at == UINT32_MAX || depth > 4)
        return false;
    for (uint32_t k = at + 1; k < L->items[at].end; k++) {
        TSNode x = L->items[k].node;
        if (is(x, "function_definition") || is(x, "class_definition") || is(x, "lambda")) {
            k = L->items[k].end - 1; /* a nested function's return is not this one's */
            continue;
        }
        TSNode r = is(x, "return_statement") && ts_node_named_child_count(x) > 0 ? ts_node_named_child(x, 0)
                                                                                : OOM_EST_NULL_NODE;
        if (!ts_node_is_null(r) && is_model_instance(c, def, r, depth))
            return true;
        TSNode parts[4]; /* `return model, optimizer` */
        size_t np = is(r, "expression_list") || is(r, "tuple") ? oom_mod_kids(c, r, parts, 4) : 0;
        for (size_t i = 0; i < np; i++)
            if (is_model_instance(c, def, parts[i], depth))
                return true;
    }
    return false;
}

/* Whether `e`, assigned to self in a method of `cls`, builds a model: a
 * model instance, or `self.build()` where the method type(self) runs
 * (`cls`'s own or a base's, as Python dispatches it) returns one. */
static bool self_value_is_model(const ctx *c, TSNode cls, TSNode def, TSNode e)
{
    char method[48], self_name[24];
    while (is(e, "call") && is(field(e, "function"), "attribute") &&
           text(c, field(field(e, "function"), "attribute"), method, sizeof method) && oom_mod_keeps_value(method))
        e = field(field(e, "function"), "object");
    if (is_model_instance(c, def, e, 0))
        return true;
    TSNode fn = field(e, "function"), ps[1];
    if (!is(e, "call") || !is(fn, "attribute") || oom_mod_kids(c, field(def, "parameters"), ps, 1) < 1 ||
        !name_of(c, ps[0], self_name, sizeof self_name) ||
        !name_of(c, field(fn, "object"), method, sizeof method) || strcmp(method, self_name) != 0 ||
        !text(c, field(fn, "attribute"), method, sizeof method))
        return false;
    TSNode m = oom_mod_find_method(c, cls, method);
    return !ts_node_is_null(m) && !ts_node_eq(m, def) && returns_model(c, m, 1);
}

/* Whether a method of `cls` or a base trains what self.<attr> holds: hands
 * `self.<attr>.parameters()` on (to an optimizer) or calls
 * `self.<attr>.train()`. A dataset keeping a feature-extraction module
 * (an STFT) does neither. */
static bool trains_attribute(const ctx *c, TSNode cls, const char *attr)
{
    for (int depth = 0; depth < 8 && !ts_node_is_null(cls); depth++, cls = oom_mod_script_base(c, cls)) {
        const oom_nodes *L = layout_of(c, cls);
        uint32_t at = oom_nodes_find(L, cls);
        for (uint32_t i = at + 1; at != UINT32_MAX && i < L->items[at].end; i++) {
            TSNode x = L->items[i].node, fn = field(x, "function"), held = field(fn, "object");
            char method[16], name[48];
            if (is(x, "call") && is(fn, "attribute") && is(held, "attribute") &&
                text(c, field(fn, "attribute"), method, sizeof method) &&
                (strcmp(method, "parameters") == 0 || strcmp(method, "train") == 0) &&
                text(c, field(held, "attribute"), name, sizeof name) && strcmp(name, attr) == 0 &&
                is(field(held, "object"), "identifier"))
                return true;
        }
    }
    return false;
}

/* A holder: a class of the project that is no module itself but whose
 * __init__ (or a base's, which super().__init__ runs) sets on self a model
 * it trains (an experiment, a runner, an agent: `self.model =
 * self._build_model()` and an optimizer over `self.model.parameters()`).
 * Instantiating it builds the model. */
static TSNode holder_class_called(const ctx *c, TSNode call)
{
    TSNode cls = is(call, "call") ? oom_mod_script_class(c, field(call, "function")) : OOM_EST_NULL_NODE;
    if (!is(cls, "class_definition") || oom_mod_is_module_class(c, cls, 0))
        return OOM_EST_NULL_NODE;
    for (TSNode k = cls; !ts_node_is_null(k); k = oom_mod_script_base(c, k)) {
        TSNode init = oom_mod_class_body_function(c, k, "__init__");
        const oom_nodes *L = layout_of(c, init);
        uint32_t at = ts_node_is_null(init) ? UINT32_MAX : oom_nodes_find(L, init);
        for (uint32_t i = at + 1; at != UINT32_MAX && i < L->items[at].end; i++) {
            TSNode a = L->items[i].node, left = field(a, "left");
            char attr[48];
            if (is(a, "assignment") && is(left, "attribute") && text(c, field(left, "attribute"), attr, sizeof attr) &&
                self_value_is_model(c, cls, init, field(a, "right")) && trains_attribute(c, cls, attr))
                return cls;
        }
        if (ts_node_eq(oom_mod_script_base(c, k), k))
            break;
    }
    return OOM_EST_NULL_NODE;
}

/* A call of the script that builds a model in another file of the project:
 * an imported factory. A factory the script defines itself is not one:
 * the model class it calls is found where it is called. */
static TSNode factory_called(const ctx *c, TSNode call)
{
    if (!is(call, "call"))
        return OOM_EST_NULL_NODE;
    TSNode fn = field(call, "function");
    oom_est_pick pk;
    TSNode def =
        (is(fn, "identifier") || is(fn, "attribute")) ? oom_mod_imported_definition(c, NULL, fn) : OOM_EST_NULL_NODE;
    def = is(def, "function_definition") ? def : oom_mod_picked(c, fn, &pk);
    return is(def, "function_definition") && returns_model(c, def, 0) ? def : OOM_EST_NULL_NODE;
}

/* Whether a run without flags reaches `call` at module level or in a plain
 * function: not inside a model class (a submodule), not an argument of
 * another model's constructor, not in a branch a setting's default rules
 * out (`if args.model == "lstm":`). */
static bool builds_top_model(ctx *c, uint32_t k)
{
    const oom_nodes *L = c->layout;
    TSNode call = L->items[k].node;
    if (!oom_est_runs_without_flags(reader_of(c, call), call))
        return false;
    uint32_t inner = k;
    for (uint32_t up = L->items[k].parent; up != UINT32_MAX; inner = up, up = L->items[up].parent) {
        TSNode u = L->items[up].node;
        if (is(u, "class_definition") && oom_mod_is_module_class(c, u, 0))
            return false;
        if (is(u, "call") && !ts_node_is_null(model_class_called(c, u)))
            return false;
        if (is(u, "if_statement") || is(u, "elif_clause")) {
            value cond = oom_mod_eval(c, NULL, field(u, "condition"));
            int on;
            bool in_consequence = ts_node_eq(L->items[inner].node, field(u, "consequence"));
            if (oom_mod_truth(&cond, &on) && ((in_consequence && !on) || (!in_consequence && on)))
                return false;
        }
    }
    return true;
}

/* The name a model is bound to (`model = Net().to(device)`), for telling two
 * builds of one model apart from two models; "" when it is not bound. */
static void bound_name(const ctx *c, uint32_t k, char *out, size_t size)
{
    const oom_nodes *L = c->layout;
    out[0] = '\0';
    for (uint32_t up = L->items[k].parent; up != UINT32_MAX; up = L->items[up].parent) {
        TSNode u = L->items[up].node;
        if (is(u, "assignment")) {
            text(c, field(u, "left"), out, size);
            return;
        }
        if (!is(u, "call") && !is(u, "attribute") && !is(u, "argument_list"))
            return;
    }
}

/* What a site builds, for people: its class once built, else what it calls. */
TSNode oom_mod_site_class(const build_site *s)
{
    return ts_node_is_null(s->made) ? s->cls : s->made;
}

/* The function of the script a site's call is in (null at module level). */
static TSNode enclosing_function(const ctx *c, TSNode n)
{
    const oom_nodes *L = c->layout;
    uint32_t at = oom_nodes_find(L, n);
    for (uint32_t up = at == UINT32_MAX ? UINT32_MAX : L->items[at].parent; up != UINT32_MAX; up = L->items[up].parent)
        if (is(L->items[up].node, "function_definition"))
            return L->items[up].node;
    return OOM_EST_NULL_NODE;
}

/* Whether the code of `fn` (the whole script when null) calls `.backward()`. */
static bool runs_backward(const ctx *c, TSNode fn)
{
    const oom_nodes *L = c->layout;
    uint32_t at = ts_node_is_null(fn) ? 0 : oom_nodes_find(L, fn);
    for (uint32_t k = at; at != UINT32_MAX && k < L->items[at].end; k++) {
        TSNode x = L->items[k].node, f = field(x, "function");
        char m[16];
        if (is(x, "call") && is(f, "attribute") && text(c, field(f, "attribute"), m, sizeof m) &&
            strcmp(m, "backward") == 0 && (ts_node_is_null(fn) || ts_node_eq(enclosing_function(c, x), fn)))
            return true;
    }
    return false;
}

/* Whether what a site builds has layers of its own: a factory, or a class
 * whose __init__ (or a base's) sets or registers something other than
 * plain values (a loss written as a module sets none). */
static bool builds_layers(const ctx *c, TSNode cls)
{
    if (!is(cls, "class_definition"))
        return true;
    for (int depth = 0; depth < 8 && !ts_node_is_null(cls); depth++, cls = oom_mod_script_base(c, cls)) {
        TSNode init = oom_mod_class_body_function(c, cls, "__init__");
        const oom_nodes *L = layout_of(c, init);
        uint32_t at = ts_node_is_null(init) ? UINT32_MAX : oom_nodes_find(L, init);
        for (uint32_t i = at + 1; at != UINT32_MAX && i < L->items[at].end; i++) {
            TSNode x = L->items[i].node;
            if (is(x, "assignment") && is(field(x, "left"), "attribute") && is(field(x, "right"), "call"))
                return true;
            char m[24];
            if (is(x, "call") && is(field(x, "function"), "attribute") &&
                text(c, field(field(x, "function"), "attribute"), m, sizeof m) &&
                (strcmp(m, "add_module") == 0 || strcmp(m, "register_parameter") == 0))
                return true;
        }
    }
    return false;
}

/* Whether `fn` trains: it runs a backward itself, or a function that calls
 * it does (a `load_model()` helper called from `train()`). */
static bool trains_in(const ctx *c, TSNode fn, int depth)
{
    if (ts_node_is_null(fn) || runs_backward(c, fn))
        return true;
    char name[64], called[64];
    if (depth > 3 || !text(c, field(fn, "name"), name, sizeof name))
        return false;
    const oom_nodes *L = c->layout;
    for (uint32_t k = 0; k < L->len; k++) {
        TSNode x = L->items[k].node;
        if (!is(x, "call") || !name_of(c, field(x, "function"), called, sizeof called) || strcmp(called, name) != 0)
            continue;
        TSNode caller = enclosing_function(c, x);
        if (!ts_node_is_null(caller) && !ts_node_eq(caller, fn) && trains_in(c, caller, depth + 1))
            return true;
    }
    return false;
}

/* Models built in different functions are different runs, not one job
 * (neural_style.py builds its network in train() and again in stylize()):
 * when some are built where a backward runs (or in a helper such a function
 * calls), those are the ones trained.
 * Models built side by side in one function (a GAN's two) all stay. */
static size_t keep_trained(const ctx *c, build_site *sites, size_t n)
{
    bool split = false, any = false, trained[8];
    for (size_t i = 0; i < n; i++) {
        TSNode fn = enclosing_function(c, sites[i].call);
        split = split || !ts_node_eq(fn, enclosing_function(c, sites[0].call));
        /* at module level: the script trains anywhere; a module that builds
         * no layer (a loss) says nothing of where the model is */
        trained[i] = (ts_node_is_null(fn) || runs_backward(c, fn)) && builds_layers(c, sites[i].cls);
        any = any || trained[i];
    }
    for (size_t i = 0; i < n && !any; i++) { /* none built where the backward runs: a helper it calls */
        trained[i] = trains_in(c, enclosing_function(c, sites[i].call), 0);
        any = any || trained[i];
    }
    if (!split || !any)
        return n;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (trained[i])
            sites[kept++] = sites[i];
    return kept;
}

/* Whether a lookup whose key the run does not know picks among models: an
 * attribute of one of the project's modules, or a dict with a model class
 * or factory among its entries (a dict of datasets picks no model). */
static bool picks_models(const ctx *c, const oom_est_pick *pk)
{
    char space[160];
    bool any = pk->kind == OOM_PICK_ATTRIBUTE && c->project && text(c, pk->space, space, sizeof space) &&
               oom_est_project_module(c->project, view_of(c, pk->space)->unit, space);
    for (size_t i = 0; i < pk->nentries && !any; i++) {
        TSNode cls = oom_mod_script_class(c, pk->entries[i]), fn = oom_mod_function_named(c, pk->entries[i]);
        any = (!ts_node_is_null(cls) && oom_mod_is_module_class(c, cls, 0)) ||
              (!ts_node_is_null(fn) && returns_model(c, fn, 0));
    }
    return any;
}

size_t oom_mod_find_builds(ctx *c, build_site *sites, size_t max)
{
    const oom_nodes *L = c->layout;
    size_t n = 0;
    for (uint32_t k = 0; k < L->len && n < max; k++) {
        if (!is(L->items[k].node, "call"))
            continue;
        TSNode cls = model_class_called(c, L->items[k].node);
        if (ts_node_is_null(cls))
            cls = factory_called(c, L->items[k].node);
        if (ts_node_is_null(cls))
            cls = holder_class_called(c, L->items[k].node);
        oom_est_pick pk;
        bool pick = oom_est_pick_of(reader_of(c, L->items[k].node), field(L->items[k].node, "function"), &pk);
        TSNode in_fn = enclosing_function(c, L->items[k].node); /* a factory's pick: its name is the caller's */
        if (pick && !pk.known && picks_models(c, &pk) && builds_top_model(c, k) && n < max &&
            (ts_node_is_null(in_fn) || !returns_model(c, in_fn, 0))) {
            oom_mod_unresolved(c, pk.key_node, pk.why); /* the run names the model: the flag that would settle it */
            memset(&sites[n], 0, sizeof sites[n]);
            sites[n++].call = L->items[k].node;
            continue;
        }
        if (ts_node_is_null(cls) || !builds_top_model(c, k))
            continue;
        build_site s;
        memset(&s, 0, sizeof s);
        oom_est_copy(s.said, sizeof s.said, pick ? pk.said : "");
        s.call = L->items[k].node;
        s.cls = cls;
        bound_name(c, k, s.target, sizeof s.target);
        bool repeat = false;
        for (size_t i = 0; i < n; i++)
            if (s.target[0] && strcmp(sites[i].target, s.target) == 0) {
                repeat = true;
                if (!ts_node_eq(sites[i].cls, cls)) {
                    char a[64] = "", b[64] = "";
                    text(c, field(sites[i].cls, "name"), a, sizeof a);
                    text(c, field(cls, "name"), b, sizeof b);
                    char what[160];
                    snprintf(what, sizeof what, "`%s` is a %s (line %u) or a %s, as the run decides", s.target, a,
                             oom_mod_line_of(c, sites[i].call), b);
                    oom_mod_unresolved(c, s.call, what);
                }
            }
        if (!repeat)
            sites[n++] = s;
    }
    return keep_trained(c, sites, n);
}

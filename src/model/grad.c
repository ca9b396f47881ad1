/* model/grad: where autograd is off: the grad state at a position (the
 * innermost no_grad / inference_mode / set_grad_enabled region around it)
 * and which expressions switch it (with items, decorators, a context chosen
 * by the mode). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/lang.h"
#include "internal.h"
#include "oomlint/library.h"

oom_grad_state oom_model_grad_state_at(const oom_pymodel *m, uint32_t pos)
{
    /* The innermost region wins: the one that starts last (and, on a tie,
     * ends first). Regions are few; a scan is fine. */
    const oom_grad_region *best = NULL;
    for (size_t i = 0; i < m->region_count; i++) {
        const oom_grad_region *r = &m->regions[i];
        if (pos < r->start || pos >= r->end)
            continue;
        if (!best || r->start > best->start || (r->start == best->start && r->end < best->end))
            best = r;
    }
    return best ? best->state : OOM_GRAD_ENABLED;
}

oom_grad_state oom_pymodel_grad_state(const oom_pymodel *m, TSNode node)
{
    return oom_model_grad_state_at(m, ts_node_start_byte(node));
}

/* ---- grad-mode switches --------------------------------------------------- */

/* `q` is one of the library knowledge's names in `list`. */
static bool qualname_in(const char *q, const oom_strlist *list)
{
    return oom_library_lists(list, q, (uint32_t)strlen(q));
}

/* The single argument of a call (positional or keyword), or a null node. */
static TSNode only_argument(const oom_pymodel *m, TSNode call)
{
    TSNode none = {{0}, NULL, NULL};
    TSNode args = oom_model_child(m, call, "arguments", 9);
    if (ts_node_is_null(args) || ts_node_named_child_count(args) != 1)
        return none;
    TSNode arg = oom_model_named_child(m, args, 0);
    if (ts_node_symbol(arg) == m->sym.keyword_argument)
        arg = oom_model_child(m, arg, "value", 5);
    return arg;
}

static int bool_argument_state(const oom_pymodel *m, TSNode arg, oom_grad_state if_true,
                               oom_grad_state if_false, oom_grad_state if_unknown)
{
    if (ts_node_is_null(arg))
        return (int)if_true;
    if (oom_node_text_is(m, arg, "True"))
        return (int)if_true;
    if (oom_node_text_is(m, arg, "False"))
        return (int)if_false;
    return (int)if_unknown;
}

/* A project's own wrapper of the grad switches, named for what it does:
 * yolov5's `@smart_inference_mode()`, `@torch_no_grad`, `with no_grad_ctx():`. */
static bool names_own_no_grad_wrapper(const char *qualname)
{
    const char *last = strrchr(qualname, '.');
    last = last ? last + 1 : qualname;
    return (strstr(last, "inference_mode") || strstr(last, "no_grad")) && !strstr(last, "enable") &&
           !strstr(last, "disable");
}

static int grad_switch(const oom_pymodel *m, TSNode expr, int depth);

/* `ctx = torch.enable_grad() if train else torch.no_grad()`, then `with ctx:`;
 * and the conditional written in the `with` itself. Either branch may run:
 * one that turns grad off makes the block maybe-off, as set_grad_enabled(train). */
static int conditional_grad_switch(const oom_pymodel *m, TSNode expr, int depth)
{
    if (depth > 3 || ts_node_is_null(expr))
        return -1;
    if (ts_node_symbol(expr) == m->sym.identifier) {
        uint32_t len;
        const char *name = oom_node_text(m, expr, &len);
        uint32_t pos = ts_node_start_byte(expr);
        const oom_binding *b = oom_model_visible_binding(m, oom_model_scope_at(m, pos), name, len, pos, true);
        return b && b->kind == OOM_BIND_VALUE ? grad_switch(m, b->value, depth + 1) : -1;
    }
    if (ts_node_symbol(expr) != m->sym.conditional_expression)
        return -1;
    int off = 0, switches = 0;
    uint32_t count = ts_node_named_child_count(expr); /* a if cond else b: children a, cond, b */
    for (uint32_t i = 0; i < count; i += 2) {
        int state = grad_switch(m, oom_model_named_child(m, expr, i), depth + 1);
        switches += state >= 0;
        off += state == OOM_GRAD_DISABLED || state == OOM_GRAD_MAYBE_DISABLED;
    }
    if (switches == 0)
        return -1;
    return off ? OOM_GRAD_MAYBE_DISABLED : OOM_GRAD_ENABLED;
}

int oom_model_grad_switch(const oom_pymodel *m, TSNode expr)
{
    return grad_switch(m, expr, 0);
}

static int grad_switch(const oom_pymodel *m, TSNode expr, int depth)
{
    if (ts_node_symbol(expr) == m->sym.identifier || ts_node_symbol(expr) == m->sym.conditional_expression) {
        int state = conditional_grad_switch(m, expr, depth);
        if (state >= 0)
            return state;
    }
    bool called = ts_node_symbol(expr) == m->sym.call;
    TSNode fn = called ? oom_model_child(m, expr, "function", 8) : expr;
    oom_buf q;
    oom_buf_init(&q);
    int state = -1;
    const oom_library *lib = oom_library_get();
    if (lib && oom_pymodel_qualname(m, fn, &q)) {
        TSNode none = {{0}, NULL, NULL};
        TSNode arg = called ? only_argument(m, expr) : none;
        if (qualname_in(q.data, &lib->no_grad_functions))
            state = OOM_GRAD_DISABLED;
        else if (qualname_in(q.data, &lib->inference_mode_functions))
            state = bool_argument_state(m, arg, OOM_GRAD_DISABLED, OOM_GRAD_ENABLED,
                                        OOM_GRAD_MAYBE_DISABLED);
        else if (qualname_in(q.data, &lib->enable_grad_functions))
            state = OOM_GRAD_ENABLED;
        else if (called && qualname_in(q.data, &lib->set_grad_enabled_functions))
            state = bool_argument_state(m, arg, OOM_GRAD_ENABLED, OOM_GRAD_DISABLED,
                                        OOM_GRAD_MAYBE_DISABLED);
        else if (names_own_no_grad_wrapper(q.data))
            state = OOM_GRAD_DISABLED;
    }
    oom_buf_free(&q);
    return state;
}


/* ---- frozen modules ------------------------------------------------------------------------------ */

/* A literal `True` / `False`: 1 / 0; anything else -1. */
static int literal_bool(TSNode v)
{
    if (ts_node_is_null(v))
        return -1;
    return strcmp(ts_node_type(v), "true") == 0 ? 1 : strcmp(ts_node_type(v), "false") == 0 ? 0 : -1;
}

/* `x.requires_grad_(v)`: 1 for True or no argument (its default), 0 for
 * False, -1 for a value not written out, or a call of something else. The
 * object it is called on is the caller's to read. */
static int requires_grad_call_state(const oom_pymodel *m, TSNode call)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute ||
        !oom_node_text_is(m, oom_model_child(m, fn, "attribute", 9), "requires_grad_"))
        return -1;
    TSNode args = oom_model_child(m, call, "arguments", 9);
    if (!ts_node_is_null(args) && ts_node_named_child_count(args) == 0)
        return 1;
    return literal_bool(only_argument(m, call));
}

/* A chain of calls of the methods that hand a module back (library
 * self_returning_methods), read from the outside in:
 * `sampler.eval().requires_grad_(False).to(device)`. Returns its outermost
 * `requires_grad_(...)` call (a null node when it has none) and puts in
 * *module (when given) the module under the whole chain (`sampler`). */
static TSNode chain_switch(const oom_pymodel *m, TSNode e, TSNode *module)
{
    const oom_library *lib = oom_library_get();
    TSNode found = {{0}, NULL, NULL};
    for (int depth = 0; lib && depth < 8 && !ts_node_is_null(e) && ts_node_symbol(e) == m->sym.call; depth++) {
        TSNode fn = oom_model_child(m, e, "function", 8);
        if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
            break;
        uint32_t len;
        const char *method = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
        bool is_switch = len == 14 && memcmp(method, "requires_grad_", 14) == 0;
        if (is_switch && ts_node_is_null(found))
            found = e;
        else if (!is_switch && !oom_library_lists(&lib->self_returning, method, len))
            break;
        e = oom_model_child(m, fn, "object", 6);
    }
    if (module)
        *module = e;
    return found;
}

/* `p.requires_grad = False` / `p.requires_grad_(False)` (and True): the
 * switch one statement sets on `target`'s text, -1 when it sets none. */
static int requires_grad_set(const oom_pymodel *m, TSNode stmt, const char *target, uint32_t target_len)
{
    if (ts_node_symbol(stmt) != m->sym.expression_statement || ts_node_named_child_count(stmt) != 1)
        return -1;
    TSNode e = oom_model_named_child(m, stmt, 0), owner;
    int state;
    if (ts_node_symbol(e) == m->sym.assignment) {
        TSNode left = oom_model_child(m, e, "left", 4);
        if (ts_node_symbol(left) != m->sym.attribute ||
            !oom_node_text_is(m, oom_model_child(m, left, "attribute", 9), "requires_grad"))
            return -1;
        owner = oom_model_child(m, left, "object", 6);
        state = literal_bool(oom_model_child(m, e, "right", 5));
    } else if (ts_node_symbol(e) == m->sym.call) {
        /* `sampler.eval().requires_grad_(False).to(device)`: the switch
         * anywhere in a chain of calls that hand the module back */
        TSNode switch_call = chain_switch(m, e, &owner);
        if (ts_node_is_null(switch_call))
            return -1;
        state = requires_grad_call_state(m, switch_call);
    } else {
        return -1;
    }
    if (state < 0 || ts_node_is_null(owner))
        return -1;
    uint32_t len;
    const char *text = oom_node_text(m, owner, &len);
    return len == target_len && memcmp(text, target, len) == 0 ? state : -1;
}

/* The module expression `owner` covers `wrapped`: the same text, or a
 * submodule of it (`model` covers `model.features`). */
static bool covers(const oom_pymodel *m, TSNode owner, TSNode wrapped)
{
    uint32_t olen, wlen;
    const char *o = oom_node_text(m, owner, &olen), *w = oom_node_text(m, wrapped, &wlen);
    return olen <= wlen && memcmp(o, w, olen) == 0 && (olen == wlen || w[olen] == '.');
}

typedef struct {
    const oom_pymodel *m;
    TSNode wrapped;
    int scope;
    uint32_t before;
    int frozen; /* the last switch seen: 1 frozen, 0 unfrozen, -1 none */
} freeze_walk;

typedef struct {
    freeze_walk *w;
    const char *var;
    uint32_t var_len;
    bool turns_on, turns_off;
} loop_switch_walk;

/* A loop that turns any parameter's grad on (`v.requires_grad = True  # train
 * all layers`, then False for the listed ones) trains; one that only turns
 * it off, under an `if` or not, freezes. */
static bool visit_loop_switch(void *ctx, TSNode n)
{
    loop_switch_walk *s = ctx;
    int on = requires_grad_set(s->w->m, n, s->var, s->var_len);
    if (on == 1)
        s->turns_on = true;
    else if (on == 0)
        s->turns_off = true;
    return true;
}

/* `for [name,] p in owner.(named_)parameters(): ... p.requires_grad = False`,
 * the switch perhaps under an `if` (all but the head). */
static void parameters_loop(freeze_walk *w, TSNode loop)
{
    const oom_pymodel *m = w->m;
    TSNode right = oom_model_child(m, loop, "right", 5), left = oom_model_child(m, loop, "left", 4);
    TSNode fn = ts_node_symbol(right) == m->sym.call ? oom_model_child(m, right, "function", 8) : right;
    if (ts_node_symbol(fn) != m->sym.attribute || !covers(m, oom_model_child(m, fn, "object", 6), w->wrapped))
        return;
    TSNode method = oom_model_child(m, fn, "attribute", 9);
    if (!oom_node_text_is(m, method, "parameters") && !oom_node_text_is(m, method, "named_parameters"))
        return;
    if (ts_node_symbol(left) == m->sym.pattern_list || ts_node_symbol(left) == m->sym.tuple_pattern)
        left = oom_model_named_child(m, left, ts_node_named_child_count(left) - 1);
    if (ts_node_symbol(left) != m->sym.identifier)
        return;
    loop_switch_walk s = {w, NULL, 0, false, false};
    s.var = oom_node_text(m, left, &s.var_len);
    oom_pymodel_walk(m, oom_model_child(m, loop, "body", 4), visit_loop_switch, &s);
    if (s.turns_on || s.turns_off)
        w->frozen = !s.turns_on;
}

static bool visit_freeze(void *ctx, TSNode n)
{
    freeze_walk *w = ctx;
    const oom_pymodel *m = w->m;
    if (ts_node_start_byte(n) >= w->before)
        return false;
    if (oom_model_scope_at(m, ts_node_start_byte(n)) != w->scope)
        return true;
    if (ts_node_symbol(n) == m->sym.for_statement) {
        parameters_loop(w, n);
    } else if (ts_node_symbol(n) == m->sym.expression_statement) {
        uint32_t len;
        const char *text = oom_node_text(m, w->wrapped, &len);
        int on = requires_grad_set(m, n, text, len); /* model.requires_grad_(False) */
        if (on >= 0)
            w->frozen = !on;
    }
    return true;
}

/* One question's walk through callers: how deep it is, and how many more
 * callers' frames it may read (a file of many calls of many functions each
 * handing on its parameter stays linear; past the budget: not shown frozen). */
typedef struct {
    int depth;
    int *budget;
} caller_walk;

static bool frozen_before_at(const oom_pymodel *m, TSNode wrapped, TSNode site, caller_walk w);

static bool argument_frozen(const oom_pymodel *m, TSNode arg, TSNode call, void *ctx)
{
    const caller_walk *w = ctx;
    return frozen_before_at(m, arg, call, (caller_walk){w->depth + 1, w->budget});
}

/* Call sites bind the parameter: `evaluate(model, ...)` after
 * `model.requires_grad_(False)` in main, at every call in the file, freezes
 * evaluate's `model` (a few calls deep at most). */
static bool frozen_by_callers(const oom_pymodel *m, TSNode wrapped, caller_walk w)
{
    if (w.depth >= 4 || (*w.budget)-- <= 0)
        return false;
    return oom_model_every_bound_argument(m, wrapped, argument_frozen, &w) == 1;
}

static bool frozen_before_at(const oom_pymodel *m, TSNode wrapped, TSNode site, caller_walk w)
{
    /* frozen where it is built, and never thawed */
    if (oom_model_bound_frozen(m, wrapped))
        return true;
    uint32_t pos = ts_node_start_byte(site);
    int scope = oom_model_scope_at(m, pos);
    TSNode home = scope > 0 ? m->scopes[scope].def : m->root;
    if (ts_node_is_null(home))
        return false;
    freeze_walk fw = {m, wrapped, scope, pos, -1};
    oom_pymodel_walk(m, home, visit_freeze, &fw);
    if (fw.frozen == -1)
        return frozen_by_callers(m, wrapped, w);
    return fw.frozen == 1;
}

bool oom_pymodel_frozen_before(const oom_pymodel *m, TSNode wrapped, TSNode site)
{
    int budget = 32;
    return frozen_before_at(m, wrapped, site, (caller_walk){0, &budget});
}

/* A chain that ends a module's training where it is built:
 * `G = copy.deepcopy(opts.G).eval().requires_grad_(False).to(device)`
 * (StyleGAN's metrics). */
static bool chain_freezes(const oom_pymodel *m, TSNode e)
{
    TSNode switch_call = chain_switch(m, e, NULL);
    return !ts_node_is_null(switch_call) && requires_grad_call_state(m, switch_call) == 0;
}

static bool binding_frozen_at_birth(const oom_pymodel *m, const oom_binding *b, void *ctx)
{
    (void)ctx;
    return b && b->kind == OOM_BIND_VALUE && chain_freezes(m, b->value);
}

bool oom_model_bound_frozen(const oom_pymodel *m, TSNode callee)
{
    if (ts_node_is_null(callee) || ts_node_symbol(callee) != m->sym.identifier ||
        oom_model_every_reaching_binding(m, callee, binding_frozen_at_birth, NULL) != 1)
        return false;
    /* a GAN's discriminator frozen at birth and thawed for its own step
     * (`D.requires_grad_(True)`, or a flag not written out) is not frozen */
    uint32_t len;
    const char *name = oom_node_text(m, callee, &len);
    for (size_t i = 0; i < m->call_count; i++) {
        TSNode call = m->calls[i].node;
        TSNode fn = oom_model_child(m, call, "function", 8);
        if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute ||
            !oom_node_text_is(m, oom_model_child(m, fn, "attribute", 9), "requires_grad_"))
            continue;
        uint32_t olen;
        const char *object = oom_node_text(m, oom_model_child(m, fn, "object", 6), &olen);
        if (olen == len && memcmp(object, name, len) == 0 && requires_grad_call_state(m, call) != 0)
            return false;
    }
    return true;
}

/* The innermost named function around `pos` (scope index), 0 for none. */
static int named_function_at(const oom_pymodel *m, uint32_t pos)
{
    for (int s = oom_model_scope_at(m, pos); s > 0; s = m->scopes[s].parent)
        if (m->scopes[s].name)
            return s;
    return 0;
}

size_t oom_pymodel_each_grad_on_call_of_function_at(const oom_pymodel *m, uint32_t pos, oom_call_position_fn each,
                                                    void *ctx)
{
    int target = named_function_at(m, pos);
    if (target <= 0)
        return 0;
    const oom_scope *s = &m->scopes[target];
    size_t found = 0;
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->name_len != s->name_len || memcmp(c->name, s->name, s->name_len) != 0)
            continue; /* the name orders the search; the resolution below decides */
        if (c->pos >= s->start && c->pos < s->end)
            continue; /* recursion says nothing of the callers */
        if (oom_model_grad_state_at(m, c->pos) != OOM_GRAD_ENABLED || oom_model_called_scope(m, c->fn) != target)
            continue;
        each(ctx, c->pos);
        found++;
    }
    return found;
}

/* model/results: whether a forward's result leaves the function that runs
 * it, with its history. A function that returns what its forward made
 * (`evaluate_actions` returning values and log-probabilities to the PPO
 * update, a `predict_noise` whose output the trainer's loss takes) hands
 * it to a caller that may well run the backward: it is not evaluation code
 * by what it does, whatever it is called. Only a result kept inside the
 * function, or turned into numbers on its way out, shows the function
 * evaluates; and so does a forward run in a loop of the function, whose
 * results would pile up before any caller took them. The search follows
 * the function's own assignments, a few hops from the call, and its
 * return statements. */
#include <string.h>

#include "internal.h"
#include "oomlint/library.h"

#define MAX_HELD 24
#define MAX_HOPS 3
#define MAX_DEPTH 16

/* The bindings that hold the forward's result, or what is made of it. */
typedef struct {
    const oom_binding *item[MAX_HELD];
    int count;
} binding_set;

static bool set_has(const binding_set *s, const oom_binding *b)
{
    for (int i = 0; i < s->count; i++)
        if (s->item[i] == b)
            return true;
    return false;
}

static bool set_add(binding_set *s, const oom_binding *b)
{
    if (!b || set_has(s, b) || s->count == MAX_HELD)
        return false;
    s->item[s->count++] = b;
    return true;
}

static bool within(TSNode inner, TSNode outer)
{
    return ts_node_start_byte(inner) >= ts_node_start_byte(outer) &&
           ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

/* A call that leaves numbers or a detached tensor: `.item()`, `.tolist()`,
 * `.numpy()`, `.detach()`, `float(x)`, `len(x)` (the library knowledge's
 * graph_leaving_methods and number_builtins). */
static bool detaching_call(const oom_pymodel *m, TSNode call)
{
    const oom_library *lib = oom_library_get();
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (!lib || ts_node_is_null(fn))
        return false;
    uint32_t len;
    if (ts_node_symbol(fn) == m->sym.attribute) {
        const char *attr = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
        return oom_library_lists(&lib->graph_leaving_methods, attr, len);
    }
    const char *name = oom_node_text(m, fn, &len);
    return ts_node_symbol(fn) == m->sym.identifier && oom_library_lists(&lib->number_builtins, name, len);
}

/* `n` reaches the value of `root` as it is: no call between them turns it
 * into numbers or detaches it. */
static bool reaches_as_is(const oom_pymodel *m, TSNode n, TSNode root)
{
    for (TSNode p = oom_model_parent(m, n); !ts_node_is_null(p) && within(p, root); p = oom_model_parent(m, p)) {
        if (ts_node_symbol(p) == m->sym.call && detaching_call(m, p))
            return false;
        /* iterated by a comprehension that turns each element into numbers:
         * `[x.cpu().detach().numpy() for x in scores]` */
        if (strcmp(ts_node_type(p), "for_in_clause") == 0) {
            TSNode element = oom_model_named_child(m, oom_model_parent(m, p), 0);
            if (!ts_node_is_null(element) && ts_node_symbol(element) == m->sym.call && detaching_call(m, element))
                return false;
        }
        if (ts_node_eq(p, root))
            break;
    }
    return true;
}

/* A read in `e` (below `root`) of a binding of the set, whose value
 * reaches `root` as it is. The binding a name reads is the one visible
 * where it stands: `scores = [s.detach() for s in scores]` rebinds the
 * name to numbers. */
static bool reads_one(const oom_pymodel *m, int scope, TSNode e, TSNode root, const binding_set *s, int depth)
{
    if (ts_node_is_null(e) || depth > MAX_DEPTH)
        return false;
    if (ts_node_symbol(e) == m->sym.identifier) {
        uint32_t len;
        const char *text = oom_node_text(m, e, &len);
        const oom_binding *b = oom_model_visible_binding(m, scope, text, len, ts_node_start_byte(e), true);
        return b && set_has(s, b) && reaches_as_is(m, e, root);
    }
    if (ts_node_symbol(e) == m->sym.lambda)
        return false;
    oom_model_kids kids = oom_model_kids_of(m, e);
    for (TSNode c; oom_model_next_kid(m, &kids, &c);)
        if (reads_one(m, scope, c, root, s, depth + 1))
            return true;
    return false;
}

/* The call stands, as it is, in a return statement or in a store into an
 * attribute or item (`self.out = model(x)`): it outlives the function. */
static bool call_leaves_directly(const oom_pymodel *m, TSNode call, TSNode def)
{
    TSNode child = call;
    for (TSNode p = oom_model_parent(m, call); !ts_node_is_null(p) && !ts_node_eq(p, def);
         child = p, p = oom_model_parent(m, p)) {
        TSSymbol s = ts_node_symbol(p);
        if (s == m->sym.call && !ts_node_eq(child, call) && detaching_call(m, p))
            return false;
        if (s == m->sym.return_statement)
            return true;
        if (s == m->sym.assignment || s == m->sym.augmented_assignment) {
            TSNode left = oom_model_child(m, p, "left", 4);
            TSSymbol ls = ts_node_is_null(left) ? 0 : ts_node_symbol(left);
            return !within(call, left) && (ls == m->sym.attribute || (ls && strcmp(ts_node_type(left), "subscript") == 0));
        }
        if (s == m->sym.function_definition)
            return false;
    }
    return false;
}

/* The bindings the scope makes from the call, then from those, as far as
 * MAX_HOPS assignments. */
static void bindings_from(const oom_pymodel *m, int scope, TSNode call, binding_set *s)
{
    for (size_t i = 0; i < m->binding_count; i++) {
        const oom_binding *b = &m->bindings[i];
        if (b->scope == scope && b->kind != OOM_BIND_OPAQUE && !ts_node_is_null(b->value) && within(call, b->value) &&
            reaches_as_is(m, call, b->value))
            set_add(s, b);
    }
    for (int hop = 0; hop < MAX_HOPS; hop++) {
        bool grew = false;
        for (size_t i = 0; i < m->binding_count; i++) {
            const oom_binding *b = &m->bindings[i];
            if (b->scope == scope && b->kind != OOM_BIND_OPAQUE && !ts_node_is_null(b->value) && !set_has(s, b) &&
                reads_one(m, scope, b->value, b->value, s, 0))
                grew |= set_add(s, b);
        }
        if (!grew)
            break;
    }
}

/* The call runs once per iteration of a loop or comprehension of its
 * function: what it hands back piles up, one graph per iteration, before
 * any caller could take it. */
static bool repeated_in_function(const oom_pymodel *m, TSNode call, TSNode def)
{
    static const char *const loops[] = {"for_statement", "while_statement", "list_comprehension",
                                        "generator_expression", "set_comprehension", "dictionary_comprehension",
                                        NULL};
    for (TSNode p = oom_model_parent(m, call); !ts_node_is_null(p) && !ts_node_eq(p, def); p = oom_model_parent(m, p)) {
        const char *type = ts_node_type(p);
        for (size_t i = 0; loops[i]; i++)
            if (strcmp(type, loops[i]) == 0)
                return true;
    }
    return false;
}

bool oom_model_forward_result_leaves(const oom_pymodel *m, int scope, TSNode call)
{
    if (scope <= 0 || ts_node_is_null(call) || repeated_in_function(m, call, m->scopes[scope].def))
        return false;
    if (call_leaves_directly(m, call, m->scopes[scope].def))
        return true;
    binding_set held = {{0}, 0};
    bindings_from(m, scope, call, &held);
    if (held.count == 0)
        return false;
    for (size_t i = 0; i < m->return_count; i++)
        if (m->returns[i].scope == scope &&
            reads_one(m, scope, m->returns[i].value, m->returns[i].value, &held, 0))
            return true;
    return false;
}

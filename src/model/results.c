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
#define MAX_HOPS 8
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

/* `n` is read through an attribute that has no history (`images.data`,
 * `out.shape`) before it reaches `root`. */
static bool read_through_history_free_attribute(const oom_pymodel *m, TSNode n, TSNode root)
{
    for (TSNode child = n, p = oom_model_parent(m, n); !ts_node_is_null(p) && within(p, root);
         child = p, p = oom_model_parent(m, p)) {
        if (ts_node_symbol(p) == m->sym.attribute && ts_node_eq(oom_model_child(m, p, "object", 6), child)) {
            uint32_t len;
            const char *attr = oom_node_text(m, oom_model_child(m, p, "attribute", 9), &len);
            if (oom_model_text_in(attr, len, oom_model_history_free_attributes))
                return true;
        }
        if (ts_node_eq(p, root))
            break;
    }
    return false;
}

/* The name reads a binding of the set: one of those that reach it on some
 * path (the flow's answer: `if c: x = a` / `else: x = b` reach a read after
 * both), or the binding visible there where the flow cannot say. */
static bool reads_held_name(const oom_pymodel *m, int scope, TSNode id, const binding_set *s)
{
    oom_flow_reach reach;
    if (oom_model_reaching_bindings(m, id, &reach)) {
        for (uint32_t i = 0; i < reach.count; i++)
            if (set_has(s, oom_model_def_binding(m, reach.defs[i])))
                return true;
        return false;
    }
    uint32_t len;
    const char *text = oom_node_text(m, id, &len);
    return set_has(s, oom_model_visible_binding(m, scope, text, len, ts_node_start_byte(id), true));
}

/* A read in `e` (below `root`) of a binding of the set, whose value
 * reaches `root` as it is (and, with `live`, not through an attribute that
 * has no history). The binding a name reads is the one visible where it
 * stands: `scores = [s.detach() for s in scores]` rebinds the name to
 * numbers. */
enum { AS_IS, LIVE, ANY_WAY, HANDED_BACK };

/* `n` is `root` itself or an element of the tuple, list or dict `root`
 * builds: `return images, labels` hands `images` back as it is, where
 * `return to_numpy(images)` hands back what a call made of it. */
static bool held_in_containers(const oom_pymodel *m, TSNode n, TSNode root)
{
    static const char *const containers[] = {"expression_list", "tuple", "list", "dictionary", "pair",
                                             "parenthesized_expression", NULL};
    for (TSNode p = oom_model_parent(m, n); !ts_node_is_null(p) && within(p, root); p = oom_model_parent(m, p)) {
        bool container = false;
        for (size_t i = 0; containers[i] && !container; i++)
            container = strcmp(ts_node_type(p), containers[i]) == 0;
        if (!container)
            return false;
        if (ts_node_eq(p, root))
            break;
    }
    return true;
}

static bool reads_held(const oom_pymodel *m, int scope, TSNode e, TSNode root, const binding_set *s, int depth,
                       int how)
{
    if (ts_node_is_null(e) || depth > MAX_DEPTH)
        return false;
    if (ts_node_symbol(e) == m->sym.identifier)
        return reads_held_name(m, scope, e, s) &&
               (how == ANY_WAY || (how == HANDED_BACK && held_in_containers(m, e, root)) ||
                (how != HANDED_BACK && reaches_as_is(m, e, root) &&
                 !(how == LIVE && read_through_history_free_attribute(m, e, root))));
    if (ts_node_symbol(e) == m->sym.lambda)
        return false;
    oom_model_kids kids = oom_model_kids_of(m, e);
    for (TSNode c; oom_model_next_kid(m, &kids, &c);)
        if (reads_held(m, scope, c, root, s, depth + 1, how))
            return true;
    return false;
}

/* What is read through an attribute without history (`fake.data`,
 * `out.shape`) carries none: `sample = torch.cat((real.data, fake.data))`
 * holds no graph. */
static bool reads_one(const oom_pymodel *m, int scope, TSNode e, TSNode root, const binding_set *s, int depth)
{
    return reads_held(m, scope, e, root, s, depth, LIVE);
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

bool oom_model_forward_result_handed_back(const oom_pymodel *m, int scope, TSNode call)
{
    if (scope <= 0 || ts_node_is_null(call))
        return false;
    for (size_t i = 0; i < m->return_count; i++)
        if (m->returns[i].scope == scope && within(call, m->returns[i].value) &&
            held_in_containers(m, call, m->returns[i].value))
            return true;
    binding_set held = {{0}, 0};
    bindings_from(m, scope, call, &held);
    for (size_t i = 0; i < m->return_count && held.count > 0; i++)
        if (m->returns[i].scope == scope &&
            reads_held(m, scope, m->returns[i].value, m->returns[i].value, &held, 0, HANDED_BACK))
            return true;
    return false;
}

/* What a call statement does with the forward's result: nothing that
 * keeps it (an output builtin such as print, a call that detaches), adds it
 * to a collection of the function (`preds.append(out)`: the collection
 * holds it from then on), or hands it to a callee that may keep it or run
 * the backward on it. */
enum { KEEPS_NOTHING, COLLECTED, HANDED_ON };

static int dropped_call_use(const oom_pymodel *m, int scope, const oom_call_site *c, TSNode forward,
                            const binding_set *held)
{
    const oom_library *lib = oom_library_get();
    TSNode args = oom_model_child(m, c->node, "arguments", 9);
    if (!lib || ts_node_is_null(args) || detaching_call(m, c->node))
        return KEEPS_NOTHING;
    bool reads = (within(forward, args) && reaches_as_is(m, forward, args) &&
                  !read_through_history_free_attribute(m, forward, args)) ||
                 reads_held(m, scope, args, args, held, 0, LIVE);
    if (!reads)
        return KEEPS_NOTHING;
    TSNode fn = c->fn;
    uint32_t len;
    if (ts_node_symbol(fn) == m->sym.identifier) {
        const char *name = oom_node_text(m, fn, &len);
        return oom_library_lists(&lib->output_builtins, name, len) ? KEEPS_NOTHING : HANDED_ON;
    }
    if (ts_node_symbol(fn) != m->sym.attribute)
        return HANDED_ON;
    TSNode receiver = oom_model_child(m, fn, "object", 6);
    const char *method = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
    return ts_node_symbol(receiver) == m->sym.identifier && oom_library_lists(&lib->collection_adding_methods, method, len)
               ? COLLECTED
               : HANDED_ON;
}

/* Follows the result into the function's collections (`preds.append(out)`
 * puts `preds` in the set) and into what is assigned from them; false when
 * a statement hands it to a callee instead. */
static bool follow_collections(const oom_pymodel *m, int scope, TSNode forward, binding_set *held)
{
    for (int round = 0; round < MAX_HOPS; round++) {
        bool grew = false;
        const oom_scope *sc = &m->scopes[scope];
        for (size_t i = oom_model_first_call_from(m, sc->start); i < m->call_count; i++) {
            const oom_call_site *c = &m->calls[i];
            if (m->calls_in_order && c->pos >= sc->end)
                break;
            if (ts_node_eq(c->node, forward) || oom_model_scope_at(m, c->pos) != scope)
                continue;
            TSNode parent = oom_model_parent(m, c->node);
            if (ts_node_is_null(parent) || ts_node_symbol(parent) != m->sym.expression_statement)
                continue;
            int use = dropped_call_use(m, scope, c, forward, held);
            if (use == HANDED_ON)
                return false;
            if (use == COLLECTED) {
                TSNode receiver = oom_model_child(m, c->fn, "object", 6);
                uint32_t len;
                const char *name = oom_node_text(m, receiver, &len);
                grew |= set_add(held, oom_model_visible_binding(m, scope, name, len, c->pos, true));
            }
        }
        for (size_t i = 0; i < m->binding_count; i++) {
            const oom_binding *b = &m->bindings[i];
            if (b->scope == scope && b->kind != OOM_BIND_OPAQUE && !ts_node_is_null(b->value) && !set_has(held, b) &&
                reads_one(m, scope, b->value, b->value, held, 0))
                grew |= set_add(held, b);
        }
        if (!grew)
            break;
    }
    return true;
}

/* A backward of the function reads the result, or what is made of it. */
static bool backpropagated(const oom_pymodel *m, int scope, TSNode forward, const binding_set *held)
{
    for (size_t i = 0; i < m->backward_call_count; i++) {
        const oom_site *b = &m->backward_calls[i];
        if (b->scope != scope)
            continue;
        TSNode node = ts_node_descendant_for_byte_range(m->root, b->start, b->end);
        if (ts_node_is_null(node) || within(forward, node) || reads_one(m, scope, node, node, held, 0))
            return true;
    }
    return false;
}

/* `e` (a receiver or an argument list) reads the forward's result, or what
 * is made of it, whatever calls stand between (`out.detach().cpu()`). */
static bool reads_result(const oom_pymodel *m, int scope, TSNode e, TSNode forward, const binding_set *held)
{
    return !ts_node_is_null(e) && (within(forward, e) || reads_held(m, scope, e, e, held, 0, ANY_WAY));
}

/* A read of the result through an attribute without history
 * (`gen_imgs.data`, `out.shape`) below `n`. */
static bool read_as_metadata(const oom_pymodel *m, int scope, TSNode n, TSNode forward, const binding_set *held,
                             int depth)
{
    if (ts_node_is_null(n) || depth > 64)
        return false;
    if (ts_node_symbol(n) == m->sym.attribute) {
        uint32_t len;
        const char *attr = oom_node_text(m, oom_model_child(m, n, "attribute", 9), &len);
        if (oom_model_text_in(attr, len, oom_model_history_free_attributes) &&
            reads_result(m, scope, oom_model_child(m, n, "object", 6), forward, held))
            return true;
    }
    if (ts_node_symbol(n) == m->sym.function_definition && depth > 0)
        return false;
    oom_model_kids kids = oom_model_kids_of(m, n);
    for (TSNode c; oom_model_next_kid(m, &kids, &c);)
        if (read_as_metadata(m, scope, c, forward, held, depth + 1))
            return true;
    return false;
}

/* The function shows what it wants of the result: numbers, text or
 * metadata (`.item()`, `float(loss)`, `.numpy()`, `print(out)`, `out.data`).
 * A result merely not handed on shows nothing (an own method's call whose
 * result goes unused may run its backward inside), nor does a detached
 * tensor: a target another computation may train on. */
static bool consumed_as_values(const oom_pymodel *m, int scope, TSNode forward, const binding_set *held)
{
    const oom_library *lib = oom_library_get();
    if (!lib)
        return false;
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (oom_model_scope_at(m, c->pos) != scope || ts_node_is_null(c->fn))
            continue;
        TSNode args = oom_model_child(m, c->node, "arguments", 9);
        uint32_t len;
        if (ts_node_symbol(c->fn) == m->sym.identifier) {
            const char *name = oom_node_text(m, c->fn, &len);
            if ((oom_library_lists(&lib->number_builtins, name, len) || oom_library_lists(&lib->output_builtins, name, len)) &&
                reads_result(m, scope, args, forward, held))
                return true;
        } else if (ts_node_symbol(c->fn) == m->sym.attribute) {
            const char *method = oom_node_text(m, oom_model_child(m, c->fn, "attribute", 9), &len);
            if (oom_library_lists(&lib->number_methods, method, len) &&
                reads_result(m, scope, oom_model_child(m, c->fn, "object", 6), forward, held))
                return true;
        }
    }
    return read_as_metadata(m, scope, scope > 0 ? m->scopes[scope].def : m->root, forward, held, 0);
}

static bool scope_runs_backward(const oom_pymodel *m, int scope)
{
    for (size_t i = 0; i < m->backward_call_count; i++)
        if (m->backward_calls[i].scope == scope)
            return true;
    return false;
}

/* The call is one of the file's own functions or methods (`self._run_batch(x,
 * y)`, `train_step(batch)`) that runs a backward itself: a training step
 * whose forward's graph is used inside it. */
static bool calls_own_training_step(const oom_pymodel *m, TSNode call)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn))
        return false;
    if (ts_node_symbol(fn) == m->sym.attribute && oom_node_text_is(m, oom_model_child(m, fn, "object", 6), "self"))
        fn = oom_model_child(m, fn, "attribute", 9);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.identifier)
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, fn, &len);
    for (size_t i = 1; i < m->scope_count; i++) {
        const oom_scope *sc = &m->scopes[i];
        if (sc->name && sc->name_len == len && memcmp(sc->name, name, len) == 0 && scope_runs_backward(m, (int)i))
            return true;
    }
    return false;
}

/* The innermost loop of the scope around the call, or -1. */
static int loop_around(const oom_pymodel *m, int scope, uint32_t pos)
{
    int best = -1;
    for (size_t i = 0; i < m->loop_count; i++) {
        const oom_loop *l = &m->loops[i];
        if (l->scope == scope && pos >= l->start && pos < l->end && (best < 0 || l->start >= m->loops[best].start))
            best = (int)i;
    }
    return best;
}

/* No backward runs beside the forward: none in the innermost loop of the
 * function around it, or none in the function for a forward in no loop. A
 * forward beside a training step's backward (a GAN's detached fakes, a
 * target network, a feature extractor) is part of that step; a loop without
 * one (a validation loop after the training loop, or in each epoch) is not. */
static bool no_backward_beside(const oom_pymodel *m, int scope, TSNode call)
{
    int loop = loop_around(m, scope, ts_node_start_byte(call));
    uint32_t start = loop < 0 ? 0 : m->loops[loop].start, end = loop < 0 ? UINT32_MAX : m->loops[loop].end;
    for (size_t i = 0; i < m->backward_call_count; i++) {
        const oom_site *b = &m->backward_calls[i];
        if (b->scope == scope && b->start >= start && b->start < end)
            return false;
    }
    return true;
}

/* The forward builds its graph for nothing, by what the function does: its
 * result does not leave the function (returned or stored outside,
 * oom_model_forward_result_leaves), no statement hands it (or what is made
 * of it) to a callee that might keep it or backpropagate it, no backward
 * of the function reads it, and what it is used for turns into numbers,
 * text or metadata: `save_image(gen(z).data, path)`,
 * `acc += (logits.argmax(-1) == y).sum().item()`, a validation loop after
 * the training loop of the same function. */
bool oom_model_forward_graph_unused(const oom_pymodel *m, int scope, TSNode call)
{
    if (scope < 0 || ts_node_is_null(call) || (scope > 0 && oom_model_forward_result_leaves(m, scope, call)) ||
        !no_backward_beside(m, scope, call) || calls_own_training_step(m, call))
        return false;
    binding_set held = {{0}, 0};
    bindings_from(m, scope, call, &held);
    if (!follow_collections(m, scope, call, &held) || backpropagated(m, scope, call, &held) ||
        !consumed_as_values(m, scope, call, &held))
        return false;
    /* a collection of the results handed back: one call's outputs, unless
     * the forward runs in a loop and they pile up (results_leave's rule) */
    if (repeated_in_function(m, call, m->scopes[scope].def))
        return true;
    for (size_t i = 0; i < m->return_count; i++)
        if (m->returns[i].scope == scope && reads_one(m, scope, m->returns[i].value, m->returns[i].value, &held, 0))
            return false;
    return true;
}

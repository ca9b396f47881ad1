/* model/iterations: whether a loop's iteration builds the graph a backward
 * (or autograd.grad) differentiates. `retain_graph=True` in a loop costs
 * memory only when each iteration builds a new graph and the retained one
 * outlives it (a training loop over batches). A loop that differentiates
 * one graph built before it, once per loss, parameter or output row (a
 * loss balancer, a Jacobian row by row, TRPO's per-parameter gradients),
 * retains that one graph on purpose and frees it after the loop.
 *
 * Shown from the flow: the differentiated tensor's name is bound inside the
 * loop's body on some path that reaches it. A tensor the model cannot trace
 * to a name, or a name the flow cannot answer for, counts as built each
 * iteration (the rule keeps its finding). */
#include <string.h>

#include "internal.h"
#include "oomlint/library.h"

static bool is_loop(TSNode n)
{
    const char *t = ts_node_type(n);
    return strcmp(t, "for_statement") == 0 || strcmp(t, "while_statement") == 0;
}

/* The innermost `for`/`while` around `node` in its own function. */
static TSNode enclosing_loop(const oom_pymodel *m, TSNode node)
{
    for (TSNode p = oom_model_parent(m, node); !ts_node_is_null(p); p = oom_model_parent(m, p)) {
        TSSymbol s = ts_node_symbol(p);
        if (s == m->sym.function_definition || s == m->sym.class_definition || s == m->sym.lambda)
            break;
        if (is_loop(p))
            return p;
    }
    return (TSNode){{0}, NULL, NULL};
}

/* What a call may differentiate: the receiver of `x.backward(...)` and its
 * first positional argument (`accelerator.backward(loss)`: the receiver is
 * the engine; `scaler.scale(loss).backward()`: inside the receiver), or the
 * first positional argument of `torch.autograd.grad(y, x, ...)`. Up to
 * three candidates in `out`; their count is returned. */
static int differentiated(const oom_pymodel *m, TSNode call, TSNode out[3])
{
    int n = 0;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (!ts_node_is_null(fn) && ts_node_symbol(fn) == m->sym.attribute &&
        oom_node_text_is(m, oom_model_child(m, fn, "attribute", 9), "backward")) {
        TSNode object = oom_model_child(m, fn, "object", 6);
        if (!ts_node_is_null(object) && ts_node_symbol(object) == m->sym.call) {
            oom_model_kids inner = oom_model_kids_of(m, oom_model_child(m, object, "arguments", 9));
            for (TSNode a; n < 2 && oom_model_next_kid(m, &inner, &a);)
                if (ts_node_symbol(a) != m->sym.keyword_argument) {
                    out[n++] = a;
                    break;
                }
        }
        out[n++] = object;
    }
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);)
        if (ts_node_symbol(a) != m->sym.keyword_argument) {
            out[n++] = a;
            break;
        }
    return n;
}

/* `y[:, j]`, `loss.to(device)`, `out.logits`: the name under it. */
static TSNode base_name(const oom_pymodel *m, TSNode e)
{
    for (int depth = 0; depth < 16 && !ts_node_is_null(e); depth++) {
        TSSymbol s = ts_node_symbol(e);
        if (s == m->sym.identifier)
            return e;
        if (s == m->sym.attribute)
            e = oom_model_child(m, e, "object", 6);
        else if (strcmp(ts_node_type(e), "subscript") == 0)
            e = oom_model_child(m, e, "value", 5);
        else if (s == m->sym.call) {
            TSNode fn = oom_model_child(m, e, "function", 8);
            if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
                break;
            e = oom_model_child(m, fn, "object", 6);
        } else {
            break;
        }
    }
    return (TSNode){{0}, NULL, NULL};
}

/* `losses.append(total)` inside [start, end): the collection under the
 * name gains an element there, each iteration's graph with it (tntorch's
 * `losses[-1].backward(retain_graph=True)`). The adding methods are the
 * library knowledge's. */
static bool filled_inside(const oom_pymodel *m, TSNode name, uint32_t start, uint32_t end)
{
    const oom_library *lib = oom_library_get();
    if (!lib)
        return true;
    uint32_t len;
    const char *text = oom_node_text(m, name, &len);
    for (size_t i = 0; i < m->call_count; i++) {
        TSNode c = m->calls[i].node;
        uint32_t at = ts_node_start_byte(c);
        if (at < start || at >= end)
            continue;
        TSNode fn = oom_model_child(m, c, "function", 8);
        if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
            continue;
        uint32_t olen, alen;
        const char *object = oom_node_text(m, oom_model_child(m, fn, "object", 6), &olen);
        const char *method = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &alen);
        if (olen == len && memcmp(object, text, len) == 0 &&
            oom_library_lists(&lib->collection_adding_methods, method, alen))
            return true;
    }
    return false;
}

/* The name under `e` is bound inside [start, end) on a path that reaches
 * it, by anything but a loop's own target, or filled there; -1 when the
 * model cannot say. */
static int bound_inside(const oom_pymodel *m, TSNode e, uint32_t start, uint32_t end)
{
    TSNode name = base_name(m, e);
    oom_flow_reach r;
    if (ts_node_is_null(name) || !oom_model_reaching_bindings(m, name, &r))
        return -1;
    if (filled_inside(m, name, start, end))
        return 1;
    for (uint32_t i = 0; i < r.count; i++) {
        const oom_binding *b = oom_model_def_binding(m, r.defs[i]);
        if (!b)
            return -1;
        /* `for name, loss in losses.items()`: the loop's own target walks a
         * collection built before it, no new graph */
        if (b->pos >= start && b->pos < end && b->kind != OOM_BIND_ITER)
            return 1;
    }
    return 0;
}

bool oom_pymodel_graph_built_each_iteration(const oom_pymodel *m, TSNode call)
{
    if (ts_node_is_null(call) || ts_node_symbol(call) != m->sym.call)
        return true;
    TSNode loop = enclosing_loop(m, call);
    TSNode body = ts_node_is_null(loop) ? loop : oom_model_child(m, loop, "body", 4);
    TSNode candidates[3];
    int n = ts_node_is_null(body) ? 0 : differentiated(m, call, candidates);
    if (n == 0)
        return true;
    for (int i = 0; i < n; i++)
        if (bound_inside(m, candidates[i], ts_node_start_byte(body), ts_node_end_byte(body)) != 0)
            return true; /* built here, or not known not to be */
    return false;
}

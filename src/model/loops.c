/* model/loops: what one iteration of the innermost loop around a statement
 * does, for rules about a call made on every iteration (OOM701's
 * empty_cache): whether the iteration runs a whole generation, reads the
 * caching allocator's size, walks a loaded checkpoint, does nothing but
 * release memory, or is an attempt that the loop repeats only after an
 * exception. */
#include <string.h>

#include "internal.h"

/* The for/while statement whose body holds `node`, in the same function;
 * null when there is none. A loop's iterable, condition and `else:` run
 * once, so a node there belongs to the loop around that one. */
static TSNode loop_around(const oom_pymodel *m, TSNode node)
{
    TSNode child = node;
    for (TSNode up = oom_model_parent(m, node); !ts_node_is_null(up); child = up, up = oom_model_parent(m, up)) {
        TSSymbol s = ts_node_symbol(up);
        if (s == m->sym.function_definition || s == m->sym.class_definition || s == m->sym.lambda)
            break;
        if ((s == m->sym.for_statement || s == m->sym.while_statement) &&
            ts_node_eq(oom_model_child(m, up, "body", 4), child))
            return up;
    }
    return (TSNode){{0}, NULL, NULL};
}

/* The calls the file records (m->calls) inside [start, end) of `scope`
 * itself, not of a function defined in it. */
typedef bool (*call_test)(const oom_pymodel *m, const oom_call_site *c, void *ctx);

static bool some_call_in(const oom_pymodel *m, uint32_t start, uint32_t end, int scope, call_test test, void *ctx)
{
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->pos >= start && c->pos < end && oom_model_scope_at(m, c->pos) == scope && test(m, c, ctx))
            return true;
    }
    return false;
}

static bool some_call_in_loop(const oom_pymodel *m, TSNode node, call_test test, void *ctx)
{
    TSNode loop = loop_around(m, node);
    if (ts_node_is_null(loop))
        return false;
    TSNode body = oom_model_child(m, loop, "body", 4);
    uint32_t start = ts_node_start_byte(body);
    return some_call_in(m, start, ts_node_end_byte(body), oom_model_scope_at(m, start), test, ctx);
}

/* ---- dotted names ------------------------------------------------------------------------------ */

typedef struct {
    const char *const *names;
    size_t count;
    oom_buf *scratch;
} name_set;

static bool in_set(const name_set *set, const char *s)
{
    for (size_t i = 0; i < set->count; i++)
        if (strcmp(s, set->names[i]) == 0)
            return true;
    return false;
}

static bool calls_one_of(const oom_pymodel *m, TSNode call, const name_set *set)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    return oom_pymodel_qualname(m, fn, set->scratch) && in_set(set, set->scratch->data);
}

static bool site_calls_one_of(const oom_pymodel *m, const oom_call_site *c, void *ctx)
{
    return calls_one_of(m, c->node, ctx);
}

bool oom_pymodel_loop_calls(const oom_pymodel *m, TSNode node, const char *const *names, size_t count,
                            oom_buf *scratch)
{
    name_set set = {names, count, scratch};
    return some_call_in_loop(m, node, site_calls_one_of, &set);
}

/* One statement that only calls one of the names: `gc.collect()`. */
static bool is_call_of(const oom_pymodel *m, TSNode stmt, const name_set *set)
{
    if (strcmp(ts_node_type(stmt), "pass_statement") == 0 || strcmp(ts_node_type(stmt), "comment") == 0)
        return true;
    if (ts_node_symbol(stmt) != m->sym.expression_statement || ts_node_named_child_count(stmt) != 1)
        return false;
    TSNode e = oom_model_named_child(m, stmt, 0);
    return ts_node_symbol(e) == m->sym.call && calls_one_of(m, e, set);
}

bool oom_pymodel_loop_only_calls(const oom_pymodel *m, TSNode node, const char *const *names, size_t count,
                                 oom_buf *scratch)
{
    TSNode loop = loop_around(m, node);
    if (ts_node_is_null(loop))
        return false;
    name_set set = {names, count, scratch};
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, loop, "body", 4));
    for (TSNode stmt; oom_model_next_kid(m, &kids, &stmt);)
        if (!is_call_of(m, stmt, &set))
            return false;
    return true;
}

/* `for name in sd`, `for k, v in sd.items()`: what the loop walks, the
 * dict methods that only list its entries looked through. */
bool oom_pymodel_loop_iterates_built_by(const oom_pymodel *m, TSNode node, const char *const *names, size_t count,
                                        oom_buf *scratch)
{
    TSNode loop = loop_around(m, node);
    if (ts_node_is_null(loop) || ts_node_symbol(loop) != m->sym.for_statement)
        return false;
    TSNode iter = oom_model_child(m, loop, "right", 5);
    static const char *const listing[] = {"items", "keys", "values", NULL};
    for (int hops = 0; hops < 4 && !ts_node_is_null(iter) && ts_node_symbol(iter) == m->sym.call; hops++) {
        TSNode fn = oom_model_child(m, iter, "function", 8);
        uint32_t len;
        const char *last = oom_node_last_name(m, fn, &len);
        if (ts_node_symbol(fn) == m->sym.attribute && last && oom_model_text_in(last, len, listing))
            iter = oom_model_child(m, fn, "object", 6);
        else if (ts_node_symbol(fn) == m->sym.identifier && last && len == 4 && memcmp(last, "tqdm", 4) == 0)
            iter = oom_model_named_child(m, oom_model_child(m, iter, "arguments", 9), 0); /* tqdm(sd): a progress bar */
        else
            break;
    }
    return !ts_node_is_null(iter) && oom_pymodel_built_by(m, iter, names, count, scratch);
}

/* ---- generation -------------------------------------------------------------------------------- */

/* How many of the file's own functions a generation is looked for through
 * (`self.generate_trajectory(...)` whose body calls `generate(...)`). */
#define GENERATE_DEPTH 2

/* A def of the module itself, not a method (class bodies are not scopes,
 * so a method's scope has the module as parent too). */
static bool at_module_level(const oom_pymodel *m, TSNode def)
{
    if (ts_node_is_null(def))
        return false;
    TSNode up = oom_model_parent(m, def);
    if (!ts_node_is_null(up) && ts_node_symbol(up) == m->sym.decorated_definition)
        up = oom_model_parent(m, up);
    return !ts_node_is_null(up) && strcmp(ts_node_type(up), "module") == 0;
}

/* The function a call runs when the file defines it: `self.method(...)`
 * (a method of the file), or `helper(...)` (a def of the module); -1
 * otherwise. */
static int own_function_called(const oom_pymodel *m, TSNode call)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn))
        return -1;
    if (ts_node_symbol(fn) == m->sym.attribute)
        return oom_model_own_method_called(m, fn);
    if (ts_node_symbol(fn) != m->sym.identifier)
        return -1;
    uint32_t len;
    const char *name = oom_node_text(m, fn, &len);
    for (size_t i = 1; i < m->scope_count; i++) {
        const oom_scope *sc = &m->scopes[i];
        if (sc->parent == 0 && sc->name_len == len && memcmp(sc->name, name, len) == 0 && at_module_level(m, sc->def))
            return (int)i;
    }
    return -1;
}

static bool runs_generation(const oom_pymodel *m, const oom_call_site *c, void *ctx)
{
    int depth = *(int *)ctx;
    if (c->name_len == 8 && memcmp(c->name, "generate", 8) == 0)
        return true; /* model.generate(...), llm.generate(...), generate(model=...) */
    int callee = own_function_called(m, c->node);
    if (callee <= 0 || depth >= GENERATE_DEPTH)
        return false;
    const oom_scope *sc = &m->scopes[callee];
    int deeper = depth + 1;
    return some_call_in(m, sc->start, sc->end, callee, runs_generation, &deeper);
}

bool oom_pymodel_loop_generates(const oom_pymodel *m, TSNode node)
{
    int depth = 0;
    return some_call_in_loop(m, node, runs_generation, &depth);
}

/* ---- attempts ---------------------------------------------------------------------------------- */

/* The last statement of a block leaves the loop: `return ...` or `break`. */
static bool ends_by_leaving(const oom_pymodel *m, TSNode block)
{
    uint32_t count = ts_node_named_child_count(block);
    for (uint32_t i = count; i-- > 0;) {
        TSNode stmt = oom_model_named_child(m, block, i);
        const char *type = ts_node_type(stmt);
        if (strcmp(type, "comment") == 0)
            continue;
        return ts_node_symbol(stmt) == m->sym.return_statement || strcmp(type, "break_statement") == 0;
    }
    return false;
}

/* A `try` with handlers whose success leaves the loop: its body, or its
 * `else:`, ends with return or break. */
static bool try_leaves_on_success(const oom_pymodel *m, TSNode try_stmt)
{
    bool handled = false, leaves = ends_by_leaving(m, oom_model_child(m, try_stmt, "body", 4));
    oom_model_kids kids = oom_model_kids_of(m, try_stmt);
    for (TSNode part; oom_model_next_kid(m, &kids, &part);) {
        const char *type = ts_node_type(part);
        if (strcmp(type, "except_clause") == 0 || strcmp(type, "except_group_clause") == 0)
            handled = true;
        else if (strcmp(type, "else_clause") == 0)
            leaves = leaves || ends_by_leaving(m, oom_model_child(m, part, "body", 4));
    }
    return handled && leaves;
}

bool oom_pymodel_in_retry_attempt(const oom_pymodel *m, TSNode node)
{
    TSNode loop = loop_around(m, node);
    if (ts_node_is_null(loop))
        return false;
    TSNode child = node;
    for (TSNode up = oom_model_parent(m, node); !ts_node_is_null(up) && !ts_node_eq(up, loop);
         child = up, up = oom_model_parent(m, up))
        if (strcmp(ts_node_type(up), "try_statement") == 0 &&
            ts_node_eq(oom_model_child(m, up, "body", 4), child) && try_leaves_on_success(m, up))
            return true;
    return false;
}

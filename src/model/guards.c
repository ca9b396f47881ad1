/* model/guards: code whose running, or whose value, a run-time test
 * decides: the arm of `a if COND else b`, the body or the `else` of
 * `if COND:`, where COND calls a given function. The bf16 rule asks it of
 * the hardware queries (`torch.bfloat16 if torch.cuda.get_device_capability()[0]
 * >= 8 else torch.float32`): such code picks bf16 only on a GPU that has it.
 * And code in one arm of an `if` whose other arm calls a given function:
 * the two never run together (`if args.gradient_checkpointing:
 * model.gradient_checkpointing_enable() ... else: model.config.use_cache = True`). */
#include <string.h>

#include "internal.h"

/* `cond` calls a function whose dotted name ends in `name`. */
static bool calls_named(const oom_pymodel *m, TSNode cond, const char *name)
{
    size_t want = strlen(name);
    uint32_t start = ts_node_start_byte(cond), end = ts_node_end_byte(cond);
    for (size_t i = 0; i < m->call_count; i++) {
        TSNode c = m->calls[i].node;
        uint32_t at = ts_node_start_byte(c);
        if (at < start || at >= end)
            continue;
        uint32_t len;
        const char *text = oom_node_text(m, oom_model_child(m, c, "function", 8), &len);
        if (len >= want && memcmp(text + len - want, name, want) == 0 &&
            (len == want || text[len - want - 1] == '.'))
            return true;
    }
    return false;
}

bool oom_pymodel_decided_by_call(const oom_pymodel *m, TSNode node, const char *name)
{
    /* `dtype=torch.bfloat16 if ... else torch.float32`: the keyword's value
     * is the conditional itself */
    if (!ts_node_is_null(node) && ts_node_symbol(node) == m->sym.keyword_argument)
        node = oom_model_child(m, node, "value", 5);
    if (ts_node_is_null(node))
        return false;
    if (ts_node_symbol(node) == m->sym.conditional_expression &&
        calls_named(m, oom_model_named_child(m, node, 1), name))
        return true;
    TSNode child = node;
    for (TSNode up = oom_model_parent(m, node); !ts_node_is_null(up); child = up, up = oom_model_parent(m, up)) {
        TSSymbol s = ts_node_symbol(up);
        if (s == m->sym.function_definition || s == m->sym.class_definition || s == m->sym.lambda)
            break;
        TSNode cond = {{0}, NULL, NULL};
        if (s == m->sym.conditional_expression) {
            TSNode test = oom_model_named_child(m, up, 1);
            if (!ts_node_eq(child, test))
                cond = test;
        } else if (s == m->sym.if_statement) {
            TSNode test = oom_model_child(m, up, "condition", 9);
            if (!ts_node_eq(child, test))
                cond = test;
        }
        if (!ts_node_is_null(cond) && calls_named(m, cond, name))
            return true;
    }
    return false;
}

/* The arms of an if statement: its body, each elif's body, the else's body. */
static size_t if_arms(const oom_pymodel *m, TSNode stmt, TSNode *arms, size_t cap)
{
    size_t n = 0;
    TSNode body = oom_model_child(m, stmt, "consequence", 11);
    if (!ts_node_is_null(body) && n < cap)
        arms[n++] = body;
    oom_model_kids kids = oom_model_kids_of(m, stmt);
    for (TSNode k; oom_model_next_kid(m, &kids, &k) && n < cap;) {
        const char *t = ts_node_type(k);
        if (strcmp(t, "elif_clause") == 0)
            arms[n++] = oom_model_child(m, k, "consequence", 11);
        else if (strcmp(t, "else_clause") == 0)
            arms[n++] = oom_model_child(m, k, "body", 4);
    }
    return n;
}

static bool within(TSNode outer, TSNode n)
{
    return !ts_node_is_null(outer) && ts_node_start_byte(n) >= ts_node_start_byte(outer) &&
           ts_node_end_byte(n) <= ts_node_end_byte(outer);
}

bool oom_pymodel_other_arm_calls(const oom_pymodel *m, TSNode node, const char *name)
{
    for (TSNode up = oom_model_parent(m, node); !ts_node_is_null(up); up = oom_model_parent(m, up)) {
        TSSymbol s = ts_node_symbol(up);
        if (s == m->sym.function_definition || s == m->sym.class_definition || s == m->sym.lambda)
            break;
        if (s != m->sym.if_statement)
            continue;
        TSNode arms[16];
        size_t n = if_arms(m, up, arms, 16);
        for (size_t i = 0; i < n; i++)
            if (!ts_node_is_null(arms[i]) && !within(arms[i], node) && calls_named(m, arms[i], name))
                return true;
    }
    return false;
}

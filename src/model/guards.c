/* model/guards: code whose running, or whose value, a run-time test
 * decides: the arm of `a if COND else b`, the body or the `else` of
 * `if COND:`, where COND calls a given function. The bf16 rule asks it of
 * the hardware queries (`torch.bfloat16 if torch.cuda.get_device_capability()[0]
 * >= 8 else torch.float32`): such code picks bf16 only on a GPU that has it. */
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

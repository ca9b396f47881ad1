/* model/processes: which of a distributed job's processes run a statement.
 * A script started once per GPU runs every line on every rank, except what
 * a test of the rank keeps to one process: `if dist.get_rank() == 0:`,
 * `if accelerator.is_main_process:`, `if args.local_rank in (-1, 0):`, or
 * `if rank != 0: return` before it. What only the main process does lands
 * on the main process's own device, not on every rank's. */
#include <string.h>

#include "internal.h"

/* `and`/`or`/`not` nest a few deep in real conditions; deeper is unknown */
#define MAX_CONDITION_DEPTH 12

static bool is_type(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* Names and methods that hold a process's rank. Exact names: `lora_rank`,
 * `node_rank` (every process of node 0) and `machine_rank` are not a
 * process's rank. `local_rank` 0 is one process per node, on that node's
 * cuda:0: its own device. */
static const char *const rank_names[] = {"rank", "local_rank", "global_rank", "world_rank", "ddp_rank",
                                         "ddp_local_rank", "dist_rank", "process_rank", "process_index",
                                         "local_process_index", NULL};
static const char *const rank_methods[] = {"get_rank", "get_local_rank", "get_global_rank", "rank", "local_rank",
                                           "get_ordinal", "get_local_ordinal", NULL};
/* Flags (attributes, names or methods) true on the main process only. */
static const char *const main_flags[] = {"is_main_process", "is_local_main_process", "is_main", "main_process",
                                         "is_master", "master_process", "is_master_process", "is_local_master",
                                         "is_global_zero", "is_world_process_zero", "is_local_process_zero",
                                         "is_rank_zero", "is_rank_0", "is_master_ordinal", NULL};

/* The last name of a name, an attribute or a call's callee (`hvd.rank()`). */
static const char *last_name(const oom_pymodel *m, TSNode e, bool *called, uint32_t *len)
{
    *called = ts_node_symbol(e) == m->sym.call;
    if (*called) {
        TSNode args = oom_model_child(m, e, "arguments", 9);
        if (ts_node_named_child_count(args) != 0) /* get_rank(group) is a rank within a group */
            return NULL;
        e = oom_model_child(m, e, "function", 8);
    }
    return oom_node_last_name(m, e, len);
}

static bool is_rank(const oom_pymodel *m, TSNode e)
{
    bool called;
    uint32_t len;
    const char *name = last_name(m, e, &called, &len);
    return name && oom_model_text_in(name, len, called ? rank_methods : rank_names);
}

static bool is_main_flag(const oom_pymodel *m, TSNode e)
{
    bool called;
    uint32_t len;
    const char *name = last_name(m, e, &called, &len);
    return name && oom_model_text_in(name, len, main_flags);
}

/* An integer literal, `-1` included. */
static bool int_literal(const oom_pymodel *m, TSNode e, long long *out)
{
    if (is_type(e, "unary_operator")) {
        TSNode arg = oom_model_child(m, e, "argument", 8);
        uint32_t len;
        const char *op = oom_node_text(m, oom_model_child(m, e, "operator", 8), &len);
        if (!op || len != 1 || *op != '-' || !is_type(arg, "integer") || !oom_pymodel_int_value(m, arg, out))
            return false;
        *out = -*out;
        return true;
    }
    return is_type(e, "integer") && oom_pymodel_int_value(m, e, out);
}

/* `(-1, 0)`, `[-1, 0]`, `{0}`: ranks that are the main process (0) or no
 * distributed job at all (-1), with 0 among them. */
static bool main_ranks(const oom_pymodel *m, TSNode e)
{
    if (!is_type(e, "tuple") && !is_type(e, "list") && !is_type(e, "set"))
        return false;
    bool zero = false;
    oom_model_kids kids = oom_model_kids_of(m, e);
    for (TSNode k; oom_model_next_kid(m, &kids, &k);) {
        long long v;
        if (is_type(k, "comment"))
            continue;
        if (!int_literal(m, k, &v) || (v != 0 && v != -1))
            return false;
        zero |= v == 0;
    }
    return zero;
}

enum { RANK_UNKNOWN = -1, RANK_OTHER = 0, RANK_MAIN = 1 };

/* `rank == 0`, `0 == rank`, `local_rank <= 0`, `rank < 1`, `local_rank in
 * (-1, 0)` hold on the main process only (RANK_MAIN); `rank != 0`, `rank >
 * 0`, `rank >= 1`, `local_rank not in (-1, 0)` on every other one
 * (RANK_OTHER). */
static int rank_comparison(const oom_pymodel *m, TSNode cmp)
{
    if (ts_node_named_child_count(cmp) != 2)
        return RANK_UNKNOWN;
    TSNode a = oom_model_named_child(m, cmp, 0), b = oom_model_named_child(m, cmp, 1);
    /* the operator's text between the operands, spaces left out (`notin`) */
    char op[8] = {0};
    size_t n = 0;
    for (uint32_t at = ts_node_end_byte(a); at < ts_node_start_byte(b); at++) {
        char c = m->src[at];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\')
            continue;
        if (n + 1 >= sizeof op)
            return RANK_UNKNOWN;
        op[n++] = c;
    }
    long long v;
    if (is_rank(m, b) && int_literal(m, a, &v) && v == 0 && (strcmp(op, "==") == 0 || strcmp(op, "!=") == 0))
        return op[0] == '=' ? RANK_MAIN : RANK_OTHER;
    if (!is_rank(m, a))
        return RANK_UNKNOWN;
    if (strcmp(op, "in") == 0 || strcmp(op, "notin") == 0)
        return main_ranks(m, b) ? (op[0] == 'i' ? RANK_MAIN : RANK_OTHER) : RANK_UNKNOWN;
    if (!int_literal(m, b, &v))
        return RANK_UNKNOWN;
    if ((strcmp(op, "==") == 0 && v == 0) || (strcmp(op, "<=") == 0 && v == 0) || (strcmp(op, "<") == 0 && v == 1))
        return RANK_MAIN;
    if ((strcmp(op, "!=") == 0 && v == 0) || (strcmp(op, ">") == 0 && v == 0) || (strcmp(op, ">=") == 0 && v == 1))
        return RANK_OTHER;
    return RANK_UNKNOWN;
}

/* Whether `cond` having the value `value` means this is the main process:
 * `rank == 0` true, `rank != 0` false, `not accelerator.is_main_process`
 * false, `resume and hvd.rank() == 0` true (either side decides), `not
 * main or not resume` false. A bare rank is true on every other rank. */
static bool main_when(const oom_pymodel *m, TSNode cond, bool value, int depth)
{
    if (ts_node_is_null(cond) || depth > MAX_CONDITION_DEPTH)
        return false;
    if (is_type(cond, "parenthesized_expression"))
        return main_when(m, oom_model_named_child(m, cond, 0), value, depth + 1);
    if (is_type(cond, "not_operator"))
        return main_when(m, oom_model_child(m, cond, "argument", 8), !value, depth + 1);
    if (is_type(cond, "boolean_operator")) {
        bool is_and = is_type(oom_model_child(m, cond, "operator", 8), "and");
        bool l = main_when(m, oom_model_child(m, cond, "left", 4), value, depth + 1);
        bool r = main_when(m, oom_model_child(m, cond, "right", 5), value, depth + 1);
        /* `a and b` true: both are; `a or b` false: both are; otherwise either may be the one */
        return is_and == value ? (l || r) : (l && r);
    }
    if (is_type(cond, "comparison_operator")) {
        int says = rank_comparison(m, cond);
        return says != RANK_UNKNOWN && (says == RANK_MAIN) == value;
    }
    if (is_main_flag(m, cond))
        return value;
    if (is_rank(m, cond))
        return !value; /* `if not rank:` */
    return false;
}

/* The statement's block ends the function or the loop (`return`, `raise`,
 * `sys.exit()`), so what follows its `if` runs only when the condition is false. */
static bool block_leaves(const oom_pymodel *m, TSNode block)
{
    uint32_t count = ts_node_named_child_count(block);
    for (uint32_t i = count; i-- > 0;) {
        TSNode last = oom_model_named_child(m, block, i);
        if (is_type(last, "comment"))
            continue;
        if (is_type(last, "return_statement") || is_type(last, "raise_statement"))
            return true;
        if (!is_type(last, "expression_statement"))
            return false;
        TSNode call = oom_model_named_child(m, last, 0);
        if (ts_node_symbol(call) != m->sym.call)
            return false;
        oom_buf q;
        oom_buf_init(&q);
        bool exits = oom_pymodel_qualname(m, oom_model_child(m, call, "function", 8), &q) &&
                     (strcmp(q.data, "sys.exit") == 0 || strcmp(q.data, "exit") == 0 || strcmp(q.data, "os._exit") == 0);
        oom_buf_free(&q);
        return exits;
    }
    return false;
}

/* An `if` before `stmt` in its block that leaves on every process but the
 * main one: `if rank != 0: return`, `if not accelerator.is_main_process:
 * return`. */
static bool earlier_exit_for_others(const oom_pymodel *m, TSNode block, TSNode stmt)
{
    oom_model_kids kids = oom_model_kids_of(m, block);
    for (TSNode s; oom_model_next_kid(m, &kids, &s) && !ts_node_eq(s, stmt);) {
        if (ts_node_symbol(s) != m->sym.if_statement || !ts_node_is_null(oom_model_child(m, s, "alternative", 11)))
            continue;
        if (block_leaves(m, oom_model_child(m, s, "consequence", 11)) &&
            main_when(m, oom_model_child(m, s, "condition", 9), false, 0))
            return true;
    }
    return false;
}

/* `child` (holding `node`) is an arm of the `if` statement `stmt` taken
 * only by the main process: the body of a main-process test, an
 * `elif`/`else` after a test that every other process passes. */
static bool if_arm_main(const oom_pymodel *m, TSNode stmt, TSNode child, TSNode node)
{
    if (ts_node_eq(child, oom_model_child(m, stmt, "condition", 9)))
        return false;
    if (ts_node_eq(child, oom_model_child(m, stmt, "consequence", 11)))
        return main_when(m, oom_model_child(m, stmt, "condition", 9), true, 0);
    if (main_when(m, oom_model_child(m, stmt, "condition", 9), false, 0))
        return true; /* an elif or else after `if rank != 0:` */
    oom_model_kids kids = oom_model_kids_of(m, stmt);
    for (TSNode arm; oom_model_next_kid(m, &kids, &arm) && !ts_node_eq(arm, child);)
        if (is_type(arm, "elif_clause") && main_when(m, oom_model_child(m, arm, "condition", 9), false, 0))
            return true;
    TSNode body = is_type(child, "elif_clause") ? oom_model_child(m, child, "consequence", 11) : (TSNode){0};
    return !ts_node_is_null(body) && ts_node_start_byte(node) >= ts_node_start_byte(body) &&
           main_when(m, oom_model_child(m, child, "condition", 9), true, 0);
}

static bool main_process_only_at(const oom_pymodel *m, TSNode node, int depth);

/* The function is run by the main process only: the file calls it, by its
 * name, only in places the main process alone reaches (vits' `evaluate`,
 * called under `if rank == 0:` in train_and_evaluate), and hands it to
 * nothing else (`mp.spawn(run, ...)` runs it on every rank). A function
 * the file never calls is some other file's to run: unknown, so no. */
static bool called_by_main_only(const oom_pymodel *m, TSNode def, int depth)
{
    if (depth > 3)
        return false;
    TSNode name_node = oom_model_child(m, def, "name", 4);
    if (ts_node_is_null(name_node) || !m->nodes)
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, name_node, &len);
    size_t calls = 0;
    for (uint32_t i = 0; i < m->nodes->len; i++) {
        if (m->nodes->items[i].symbol != m->sym.identifier)
            continue;
        TSNode id = m->nodes->items[i].node;
        uint32_t ilen;
        const char *text = oom_node_text(m, id, &ilen);
        if (ilen != len || memcmp(text, name, len) != 0 || ts_node_eq(id, name_node))
            continue;
        /* `evaluate(...)` or `self.evaluate(...)`: the callee of a call */
        TSNode callee = id, up = oom_model_parent(m, id);
        if (!ts_node_is_null(up) && ts_node_symbol(up) == m->sym.attribute &&
            ts_node_eq(oom_model_child(m, up, "attribute", 9), id)) {
            callee = up;
            up = oom_model_parent(m, up);
        }
        if (ts_node_is_null(up) || ts_node_symbol(up) != m->sym.call ||
            !ts_node_eq(oom_model_child(m, up, "function", 8), callee))
            return false; /* named otherwise: handed on, or another thing of that name */
        if (!main_process_only_at(m, up, depth + 1))
            return false;
        calls++;
    }
    return calls > 0;
}

bool oom_pymodel_main_process_only(const oom_pymodel *m, TSNode node)
{
    return main_process_only_at(m, node, 0);
}

static bool main_process_only_at(const oom_pymodel *m, TSNode node, int depth)
{
    TSNode child = node;
    for (TSNode up = oom_model_parent(m, node); !ts_node_is_null(up); child = up, up = oom_model_parent(m, up)) {
        TSSymbol s = ts_node_symbol(up);
        if (s == m->sym.function_definition)
            return called_by_main_only(m, up, depth);
        if (s == m->sym.class_definition || s == m->sym.lambda)
            return false;
        if (s == m->sym.if_statement && if_arm_main(m, up, child, node))
            return true;
        if (s == m->sym.conditional_expression && !ts_node_eq(child, oom_model_named_child(m, up, 1)) &&
            main_when(m, oom_model_named_child(m, up, 1), ts_node_eq(child, oom_model_named_child(m, up, 0)), 0))
            return true;
        if ((s == m->sym.block || is_type(up, "module")) && earlier_exit_for_others(m, up, child))
            return true;
    }
    return false;
}

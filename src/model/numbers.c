/* model/numbers: what the fixes of stored and accumulated losses (OOM201,
 * OOM202) need to know to be safe: whether a value is a scalar tensor (a
 * reduced loss, so `.item()` cannot raise), whether every later read of the
 * name that keeps it uses it as a number (so a Python float behaves the
 * same), and whether the name stays in its function (so nothing elsewhere
 * can backpropagate through it once it is detached). Each answer is "no"
 * when in doubt: a "no" only makes a fix unsafe, a wrong "yes" would make a
 * safe fix change the program. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_FOLLOW 8

static bool type_is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static bool text_is_one_of(const oom_pymodel *m, TSNode n, const char *const *words)
{
    uint32_t len;
    const char *t = oom_node_text(m, n, &len);
    for (size_t i = 0; words[i]; i++)
        if (strlen(words[i]) == len && memcmp(words[i], t, len) == 0)
            return true;
    return false;
}

/* The arguments of a call, comments left out. */
static uint32_t argument_count(TSNode args)
{
    uint32_t n = 0, count = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < count; i++)
        n += !type_is(ts_node_named_child(args, i), "comment");
    return n;
}

/* ---- scalars -------------------------------------------------------------------------- */

/* Reductions to one value when called without arguments: `x.mean()`. */
static const char *const reductions[] = {"mean", "sum", "item", "norm", "max", "min", "prod", "std", "var", NULL};
/* Methods that keep a tensor's shape: a scalar stays one. */
static const char *const shape_keeping[] = {"detach", "clone", "float", "double", "half", "bfloat16", "to",
                                            "cuda", "cpu", "contiguous", NULL};
/* torch.nn.functional losses, which reduce to a scalar unless told `reduction="none"`. */
static const char *const functional_losses[] = {
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss", "margin_ranking_loss",
    "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss", "multilabel_margin_loss",
    "multi_margin_loss", "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss", "ctc_loss", NULL};

static bool reduces(const oom_pymodel *m, TSNode call)
{
    TSNode reduction = oom_pymodel_keyword_value(m, call, "reduction");
    if (ts_node_is_null(reduction))
        return true;
    oom_buf v;
    oom_buf_init(&v);
    bool yes = oom_pymodel_string_value(m, reduction, &v) && (strcmp(v.data, "mean") == 0 || strcmp(v.data, "sum") == 0);
    oom_buf_free(&v);
    return yes;
}

/* `F.cross_entropy(...)`, or `criterion(...)` with `criterion = nn.CrossEntropyLoss()`. */
static bool is_loss_call(const oom_pymodel *m, TSNode call)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    oom_buf q;
    oom_buf_init(&q);
    bool yes = false;
    if (oom_pymodel_qualname(m, fn, &q) && oom_str_starts_with(q.data, "torch.nn.functional.")) {
        const char *last = q.data + strlen("torch.nn.functional.");
        for (size_t i = 0; functional_losses[i] && !yes; i++)
            yes = strcmp(last, functional_losses[i]) == 0;
        yes = yes && reduces(m, call);
    } else if (!ts_node_is_null(fn)) {
        TSNode made = oom_pymodel_value_of(m, fn, 0);
        if (type_is(made, "call") && oom_pymodel_qualname(m, oom_model_child(m, made, "function", 8), &q) &&
            oom_str_starts_with(q.data, "torch.nn.") && oom_str_ends_with(q.data, "Loss"))
            yes = reduces(m, made);
    }
    oom_buf_free(&q);
    return yes;
}

/* A number that scales a loss without changing its shape: a literal,
 * `len(...)`, or a name that counts (`accumulation_steps`, `n`, `world_size`). */
static bool is_count(const oom_pymodel *m, TSNode e)
{
    if (type_is(e, "integer") || type_is(e, "float"))
        return true;
    if (type_is(e, "call")) {
        TSNode fn = oom_model_child(m, e, "function", 8);
        return type_is(fn, "identifier") && oom_node_text_is(m, fn, "len");
    }
    uint32_t len;
    const char *name = oom_node_last_name(m, e, &len);
    if (!name)
        return false;
    static const char *const words[] = {"steps", "step", "accum", "accumulation", "count", "num", "size", "len",
                                        "length", "n", "world", NULL};
    return oom_name_has_word(name, len, words) && !oom_pymodel_carries_graph(m, e);
}

static bool scalar(const oom_pymodel *m, TSNode e, int depth)
{
    if (ts_node_is_null(e) || depth > MAX_FOLLOW)
        return false;
    if (type_is(e, "parenthesized_expression"))
        return scalar(m, oom_model_named_child(m, e, 0), depth + 1);
    /* `loss.backward()` with no gradient given needs a scalar: so is `loss` */
    if (type_is(e, "identifier") && oom_pymodel_is_backward_receiver(m, e))
        return true;
    if (type_is(e, "identifier"))
        return scalar(m, oom_model_bound_value(m, e), depth + 1);
    if (type_is(e, "attribute")) {
        /* outputs.loss of a Hugging Face model */
        TSNode obj = oom_model_child(m, e, "object", 6);
        return oom_node_text_is(m, oom_model_child(m, e, "attribute", 9), "loss") && !oom_node_text_is(m, obj, "self");
    }
    if (type_is(e, "subscript")) {
        /* outputs["loss"] */
        oom_buf v;
        oom_buf_init(&v);
        bool yes = oom_pymodel_string_value(m, oom_model_child(m, e, "subscript", 9), &v) && strcmp(v.data, "loss") == 0;
        oom_buf_free(&v);
        return yes;
    }
    if (type_is(e, "unary_operator"))
        return scalar(m, oom_model_child(m, e, "argument", 8), depth + 1);
    if (type_is(e, "binary_operator")) {
        TSNode l = oom_model_child(m, e, "left", 4), r = oom_model_child(m, e, "right", 5);
        TSNode op = ts_node_child_by_field_name(e, "operator", 8);
        static const char *const arithmetic[] = {"+", "-", "*", "/", NULL};
        if (ts_node_is_null(op) || !text_is_one_of(m, op, arithmetic))
            return false;
        return (scalar(m, l, depth + 1) && (scalar(m, r, depth + 1) || is_count(m, r))) ||
               (is_count(m, l) && scalar(m, r, depth + 1));
    }
    if (!type_is(e, "call"))
        return false;
    TSNode fn = oom_model_child(m, e, "function", 8);
    if (type_is(fn, "attribute")) {
        TSNode method = oom_model_child(m, fn, "attribute", 9);
        TSNode args = oom_model_child(m, e, "arguments", 9);
        if (text_is_one_of(m, method, reductions) && type_is(args, "argument_list") && argument_count(args) == 0)
            return true;
        if (text_is_one_of(m, method, shape_keeping))
            return scalar(m, oom_model_child(m, fn, "object", 6), depth + 1);
    }
    return is_loss_call(m, e);
}

bool oom_pymodel_is_scalar(const oom_pymodel *m, TSNode expr)
{
    return scalar(m, expr, 0);
}

/* ---- tensors -------------------------------------------------------------------------------- */

/* Methods of a tensor that return a tensor. */
static const char *const tensor_methods[] = {
    "detach", "clone", "float", "double", "half", "bfloat16", "to", "cuda", "cpu", "contiguous", "view", "reshape",
    "flatten", "squeeze", "unsqueeze", "permute", "transpose", "softmax", "log_softmax", "sigmoid", "tanh", "exp",
    "log", "abs", "pow", "sqrt", "argmax", "argmin", "mean", "sum", "norm", "clamp", "masked_fill", NULL};
/* torch functions that return one tensor (not torch.max(x, dim), a pair). */
static const char *const tensor_functions[] = {
    "torch.cat", "torch.stack", "torch.softmax", "torch.log_softmax", "torch.sigmoid", "torch.tanh", "torch.exp",
    "torch.log", "torch.matmul", "torch.bmm", "torch.mm", "torch.einsum", "torch.where", "torch.mean", "torch.sum",
    "torch.nn.functional.softmax", "torch.nn.functional.log_softmax", "torch.nn.functional.normalize", NULL};
/* A model output's fields that are one tensor (hidden_states is a tuple). */
static const char *const tensor_fields[] = {"logits", "loss", "last_hidden_state", "pooler_output", "start_logits",
                                            "end_logits", NULL};

static bool tensor(const oom_pymodel *m, TSNode e, int depth)
{
    if (ts_node_is_null(e) || depth > MAX_FOLLOW)
        return false;
    if (scalar(m, e, depth))
        return true;
    if (type_is(e, "parenthesized_expression"))
        return tensor(m, oom_model_named_child(m, e, 0), depth + 1);
    if (type_is(e, "identifier"))
        return tensor(m, oom_model_bound_value(m, e), depth + 1);
    if (type_is(e, "attribute"))
        return text_is_one_of(m, oom_model_child(m, e, "attribute", 9), tensor_fields);
    if (type_is(e, "binary_operator"))
        return tensor(m, oom_model_child(m, e, "left", 4), depth + 1) ||
               tensor(m, oom_model_child(m, e, "right", 5), depth + 1);
    if (!type_is(e, "call"))
        return false;
    TSNode fn = oom_model_child(m, e, "function", 8);
    if (type_is(fn, "attribute") && text_is_one_of(m, oom_model_child(m, fn, "attribute", 9), tensor_methods) &&
        tensor(m, oom_model_child(m, fn, "object", 6), depth + 1))
        return true;
    oom_buf q;
    oom_buf_init(&q);
    bool yes = false;
    if (oom_pymodel_qualname(m, fn, &q))
        for (size_t i = 0; tensor_functions[i] && !yes; i++)
            yes = strcmp(q.data, tensor_functions[i]) == 0;
    oom_buf_free(&q);
    return yes;
}

bool oom_pymodel_is_tensor(const oom_pymodel *m, TSNode expr)
{
    return tensor(m, expr, 0);
}

/* ---- containers ------------------------------------------------------------------------------ */

/* Fields of a model output that hold a tuple of tensors. */
static const char *const tuple_fields[] = {"hidden_states", "attentions", "past_key_values", "encoder_hidden_states",
                                           "decoder_hidden_states", "cross_attentions", NULL};

typedef struct {
    const oom_pymodel *m;
    const char *text;
    uint32_t len;
    bool found;
} key_walk;

/* `name["loss"]`, `name.items()`: the name maps keys to values. */
static bool visit_key_use(void *ctx, TSNode n)
{
    key_walk *w = ctx;
    TSNode base = type_is(n, "subscript") ? oom_model_child(w->m, n, "value", 5)
                  : type_is(n, "attribute") ? oom_model_child(w->m, n, "object", 6)
                                            : (TSNode){{0}, NULL, NULL};
    uint32_t blen;
    const char *btext = ts_node_is_null(base) ? NULL : oom_node_text(w->m, base, &blen);
    if (btext && type_is(base, "identifier") && blen == w->len && memcmp(btext, w->text, w->len) == 0) {
        static const char *const mapping_methods[] = {"items", "keys", "values", "get", NULL};
        w->found = type_is(n, "subscript")
                       ? type_is(oom_model_child(w->m, n, "subscript", 9), "string")
                       : text_is_one_of(w->m, oom_model_child(w->m, n, "attribute", 9), mapping_methods);
    }
    return !w->found;
}

/* `name["loss"]` or `name.items()` somewhere in the name's function: it maps. */
static bool indexed_by_key(const oom_pymodel *m, TSNode name)
{
    key_walk w = {m, NULL, 0, false};
    w.text = oom_node_text(m, name, &w.len);
    int scope = oom_model_scope_at(m, ts_node_start_byte(name));
    oom_pymodel_walk(m, scope > 0 ? m->scopes[scope].def : m->root, visit_key_use, &w);
    return w.found;
}

static bool container(const oom_pymodel *m, TSNode e, int depth)
{
    static const char *const literals[] = {"dictionary", "list", "tuple", "set", "dictionary_comprehension",
                                           "list_comprehension", "set_comprehension", "expression_list", NULL};
    if (ts_node_is_null(e) || depth > MAX_FOLLOW)
        return false;
    for (size_t i = 0; literals[i]; i++)
        if (type_is(e, literals[i]))
            return true;
    if (type_is(e, "parenthesized_expression"))
        return container(m, oom_model_named_child(m, e, 0), depth + 1);
    if (type_is(e, "attribute"))
        return text_is_one_of(m, oom_model_child(m, e, "attribute", 9), tuple_fields);
    if (type_is(e, "identifier"))
        return indexed_by_key(m, e) || container(m, oom_model_bound_value(m, e), depth + 1);
    if (type_is(e, "call")) {
        static const char *const makers[] = {"dict", "list", "tuple", "set", NULL};
        TSNode fn = oom_model_child(m, e, "function", 8);
        return type_is(fn, "identifier") && text_is_one_of(m, fn, makers);
    }
    return false;
}

bool oom_pymodel_is_container(const oom_pymodel *m, TSNode expr)
{
    return container(m, expr, 0);
}

/* ---- reads of a name ----------------------------------------------------------------------- */

/* The body a local name lives in: its function, or the module. */
static TSNode home_of(const oom_pymodel *m, TSNode name)
{
    int scope = oom_model_scope_at(m, ts_node_start_byte(name));
    return scope > 0 ? m->scopes[scope].def : m->root;
}

/* An identifier written to, not read: the target of `=`, `+=`, `for ... in`. */
static bool is_binding_target(const oom_pymodel *m, TSNode id)
{
    TSNode p = oom_model_parent(m, id);
    while (type_is(p, "pattern_list") || type_is(p, "tuple_pattern") || type_is(p, "list_pattern"))
        p = oom_model_parent(m, p);
    if (type_is(p, "assignment") || type_is(p, "augmented_assignment") || type_is(p, "for_statement") ||
        type_is(p, "for_in_clause")) {
        TSNode left = ts_node_child_by_field_name(p, "left", 4);
        return ts_node_start_byte(id) >= ts_node_start_byte(left) && ts_node_end_byte(id) <= ts_node_end_byte(left);
    }
    return false;
}

/* `store.append(x)`: the list growing, not a read of what it holds. */
static bool is_list_growth(const oom_pymodel *m, TSNode id)
{
    TSNode attr = oom_model_parent(m, id);
    static const char *const methods[] = {"append", "extend", "insert", "clear", NULL};
    return type_is(attr, "attribute") && ts_node_eq(ts_node_child_by_field_name(attr, "object", 6), id) &&
           text_is_one_of(m, ts_node_child_by_field_name(attr, "attribute", 9), methods) &&
           type_is(oom_model_parent(m, attr), "call");
}

typedef bool (*read_fn)(const oom_pymodel *m, TSNode read, int depth);

/* `total = total + x`: the name read to update itself, as `+=` does. */
static bool same_name(const oom_pymodel *m, TSNode a, TSNode b)
{
    uint32_t alen, blen;
    const char *at = oom_node_text(m, a, &alen), *bt = oom_node_text(m, b, &blen);
    return type_is(a, "identifier") && type_is(b, "identifier") && alen == blen && memcmp(at, bt, alen) == 0;
}

typedef struct {
    const oom_pymodel *m;
    TSNode name;
    const char *text;
    uint32_t len;
    read_fn fn;
    int depth;
    bool ok;
} read_walk;

static bool visit_read(void *ctx, TSNode n)
{
    read_walk *w = ctx;
    uint32_t nlen;
    const char *t = oom_node_text(w->m, n, &nlen);
    /* `global total`: other functions may read it */
    if ((type_is(n, "global_statement") || type_is(n, "nonlocal_statement")) && memmem(t, nlen, w->text, w->len))
        w->ok = false;
    if (w->ok && type_is(n, "identifier") && nlen == w->len && memcmp(t, w->text, w->len) == 0 &&
        !ts_node_eq(n, w->name) && !is_binding_target(w->m, n) && !is_list_growth(w->m, n))
        w->ok = w->fn(w->m, n, w->depth);
    return w->ok;
}

/* Calls `fn` on every read of `name` (an identifier) in its home; true when
 * it holds for all. A `global` or `nonlocal` of the name, or a read outside
 * what the walk can see, answers false. */
static bool every_read(const oom_pymodel *m, TSNode name, read_fn fn, int depth)
{
    if (!type_is(name, "identifier") || depth > 2)
        return false;
    uint32_t len;
    const char *text = oom_node_text(m, name, &len);
    TSNode home = home_of(m, name);
    if (ts_node_is_null(home))
        return false;
    read_walk w = {m, name, text, len, fn, depth, true};
    oom_pymodel_walk(m, home, visit_read, &w);
    return w.ok;
}

/* ---- read as a number ------------------------------------------------------------------------ */

/* Functions and methods that take a number as well as a 0-d tensor and do
 * the same with it: printing, formatting, arithmetic, logging. */
static bool numeric_consumer(const oom_pymodel *m, TSNode call)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    static const char *const builtins[] = {"print", "str", "float", "int", "round", "abs", "min", "max", "sum",
                                           "len", "format", "repr", NULL};
    static const char *const methods[] = {"info", "debug", "warning", "warn", "error", "critical", "log",
                                          "log_dict", "log_metric", "log_metrics", "add_scalar", "add_scalars",
                                          "set_postfix", "set_postfix_str", "set_description", "format", NULL};
    if (type_is(fn, "identifier")) {
        uint32_t len;
        const char *name = oom_node_text(m, fn, &len);
        return text_is_one_of(m, fn, builtins) && !oom_pymodel_is_import_alias(m, name, len);
    }
    oom_buf q;
    oom_buf_init(&q);
    bool yes = false;
    if (oom_pymodel_qualname(m, fn, &q)) {
        if (oom_str_starts_with(q.data, "math.") || oom_str_starts_with(q.data, "numpy.") ||
            oom_str_starts_with(q.data, "statistics."))
            yes = true;
        else if (!oom_str_starts_with(q.data, "torch."))
            yes = type_is(fn, "attribute") && text_is_one_of(m, oom_model_child(m, fn, "attribute", 9), methods);
    }
    oom_buf_free(&q);
    return yes;
}

static bool read_as_number(const oom_pymodel *m, TSNode read, int depth);

/* Whether the value of the read `read` is used as a number where it
 * stands, alone or in the expressions around it. */
static bool used_as_number(const oom_pymodel *m, TSNode read, int depth)
{
    TSNode e = read;
    for (int hops = 0; hops < 32; hops++) {
        TSNode p = oom_model_parent(m, e);
        if (ts_node_is_null(p))
            return false;
        const char *type = ts_node_type(p);
        if (strcmp(type, "interpolation") == 0 || strcmp(type, "comparison_operator") == 0)
            return true; /* f"{total:.3f}", total > best */
        if (strcmp(type, "argument_list") == 0)
            return numeric_consumer(m, oom_model_parent(m, p));
        if (strcmp(type, "keyword_argument") == 0) { /* set_postfix(loss=total) */
            TSNode args = oom_model_parent(m, p);
            return type_is(args, "argument_list") && numeric_consumer(m, oom_model_parent(m, args));
        }
        if (strcmp(type, "subscript") == 0 && !ts_node_eq(ts_node_child_by_field_name(p, "value", 5), e))
            return false; /* used as an index */
        if (strcmp(type, "assignment") == 0 || strcmp(type, "augmented_assignment") == 0) {
            /* avg = total / len(loader): then avg's reads decide; total = total + x updates itself */
            TSNode left = ts_node_child_by_field_name(p, "left", 4);
            if (ts_node_eq(left, e) || !type_is(left, "identifier"))
                return false;
            return same_name(m, left, read) || every_read(m, left, read_as_number, depth + 1);
        }
        /* the value goes on into a bigger expression: its use decides */
        static const char *const through[] = {"parenthesized_expression", "binary_operator", "unary_operator",
                                              "boolean_operator", "conditional_expression", "subscript", "pair",
                                              "dictionary", NULL};
        bool passes = false;
        for (size_t i = 0; through[i] && !passes; i++)
            passes = strcmp(type, through[i]) == 0;
        if (!passes)
            return false; /* total.item(), return total, torch.stack(total) ... */
        e = p;
    }
    return false;
}

static bool read_as_number(const oom_pymodel *m, TSNode read, int depth)
{
    return used_as_number(m, read, depth);
}

bool oom_pymodel_read_as_number(const oom_pymodel *m, TSNode store)
{
    return every_read(m, store, read_as_number, 0);
}

/* ---- stays in its function -------------------------------------------------------------------- */

/* A read that does not leave the function: not returned or yielded, not
 * stored into an object (`self.history = losses`), nor into a name that
 * leaves. */
static bool read_stays(const oom_pymodel *m, TSNode read, int depth)
{
    for (TSNode p = oom_model_parent(m, read); !ts_node_is_null(p); p = oom_model_parent(m, p)) {
        const char *type = ts_node_type(p);
        if (strcmp(type, "return_statement") == 0 || strcmp(type, "yield") == 0 || strcmp(type, "lambda") == 0)
            return false;
        if (strcmp(type, "assignment") == 0 || strcmp(type, "augmented_assignment") == 0) {
            TSNode left = ts_node_child_by_field_name(p, "left", 4);
            if (ts_node_start_byte(read) < ts_node_end_byte(left))
                return true; /* the store itself written: total[i] = ... */
            if (same_name(m, left, read))
                return true; /* total = total + x: it updates itself */
            return type_is(left, "identifier") && every_read(m, left, read_stays, depth + 1);
        }
        if (strcmp(type, "expression_statement") == 0 || strcmp(type, "block") == 0 || strcmp(type, "module") == 0)
            return true;
    }
    return true;
}

/* A script's module-level name counts too: its reads, in the module and
 * in the functions the file defines, are all in the walk. */
bool oom_pymodel_stays_local(const oom_pymodel *m, TSNode store)
{
    return type_is(store, "identifier") && every_read(m, store, read_stays, 0);
}

/* ---- calls and imports ------------------------------------------------------------------------- */

/* Climbs from an expression through what only selects from it (`(x)`,
 * `x["model"]`) to the argument list it is passed in, if any. */
static TSNode argument_list_of(const oom_pymodel *m, TSNode e)
{
    for (int hops = 0; hops < 8; hops++) {
        TSNode p = oom_model_parent(m, e);
        if (type_is(p, "parenthesized_expression") ||
            (type_is(p, "subscript") && ts_node_eq(ts_node_child_by_field_name(p, "value", 5), e))) {
            e = p;
            continue;
        }
        return type_is(p, "argument_list") ? p : (TSNode){{0}, NULL, NULL};
    }
    return (TSNode){{0}, NULL, NULL};
}

bool oom_pymodel_copied_into_model(const oom_pymodel *m, TSNode call)
{
    TSNode args = argument_list_of(m, call);
    if (ts_node_is_null(args))
        return false;
    TSNode outer = oom_model_parent(m, args);
    uint32_t len;
    const char *last = oom_node_last_name(m, oom_model_child(m, outer, "function", 8), &len);
    /* assign=True makes the loaded tensors the parameters, on their device */
    return last && len == 15 && memcmp(last, "load_state_dict", 15) == 0 &&
           !oom_pymodel_has_argument(m, outer, "assign", -1);
}

bool oom_pymodel_beside_keyword(const oom_pymodel *m, TSNode argument, const char *name)
{
    TSNode args = oom_model_parent(m, argument);
    return type_is(args, "argument_list") && oom_pymodel_has_argument(m, args, name, -1);
}

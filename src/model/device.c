/* model/device: device placement. Which values are a model's outputs left
 * on the GPU (logits, hidden states, generated ids, what is built from them
 * by torch ops) rather than moved to the host or reduced to a few numbers:
 * collecting those across a dataset keeps all of them in GPU memory.
 * Unknown means "not on the device": a missed finding over a false one. */
#include <string.h>

#include "oomlint/lang.h"
#include "oomlint/library.h"
#include "internal.h"

/* Methods that bring a tensor to the host or reduce it to a scalar-sized value. */
static const char *const host_or_reduced_methods[] = {
    "cpu", "numpy", "tolist", "item", "sum", "mean", "argmax", "argmin", "max", "min", "std",
    "var", "norm", "all", "any", "size", "dim", "numel", "nelement", "count_nonzero", "median",
    "prod", "logsumexp", NULL};

static bool device_output(const oom_pymodel *m, TSNode e, int depth);
static bool any_argument_device_output(const oom_pymodel *m, TSNode call, int depth);

static bool moves_to_cpu(const oom_pymodel *m, TSNode call)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0)
        return false;
    TSNode a = oom_model_named_child(m, args, 0);
    if (ts_node_symbol(a) == m->sym.keyword_argument)
        a = oom_model_child(m, a, "value", 5);
    uint32_t len;
    const char *t = oom_node_text(m, a, &len);
    return (len >= 5 && memmem(t, len, "cpu", 3) != NULL);
}

/* One of the method's `return` values is a device output (an element of
 * a returned tuple or named tuple counts: `return ModelPrediction(pred_noise,
 * x_start)`). */
static bool method_returns_device_output(const oom_pymodel *m, int scope, int depth)
{
    for (size_t i = 0; i < m->return_count; i++) {
        const oom_return *r = &m->returns[i];
        if (r->scope != scope || ts_node_is_null(r->value))
            continue;
        TSNode v = r->value;
        if (ts_node_symbol(v) == m->sym.call && !oom_pymodel_is_model_call(m, v) &&
            ts_node_symbol(oom_model_child(m, v, "function", 8)) == m->sym.identifier)
            v = oom_model_child(m, v, "arguments", 9); /* a constructor of a named tuple */
        if (device_output(m, v, depth + 4))
            return true;
    }
    return false;
}

static bool device_output_call(const oom_pymodel *m, TSNode call, int depth)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn))
        return false;
    if (ts_node_symbol(fn) == m->sym.attribute) {
        TSNode attr = oom_model_child(m, fn, "attribute", 9);
        uint32_t len;
        const char *method = oom_node_text(m, attr, &len);
        if (oom_model_text_in(method, len, host_or_reduced_methods))
            return false;
        const oom_library *lib = oom_library_get();
        if (lib && oom_library_lists(&lib->text_methods, method, len))
            return false; /* text: `out.outputs[0].text.strip()`, `tokenizer.batch_decode(ids)` */
        if (len == 2 && memcmp(method, "to", 2) == 0 && moves_to_cpu(m, call))
            return false;
        if (len == 8 && memcmp(method, "generate", 8) == 0)
            return true; /* generated token ids of the whole batch */
        TSNode obj = oom_model_child(m, fn, "object", 6);
        if (!ts_node_is_null(obj) && device_output(m, obj, depth + 1))
            return true;
    }
    /* the file's own method (`self.model_predictions(x, t)`,
     * `self._model_generate(ids)`): what it returns decides */
    int method = oom_model_own_method_called(m, fn);
    if (method >= 0)
        return method_returns_device_output(m, method, depth);
    if (oom_pymodel_is_model_call(m, call))
        return true;
    oom_buf q;
    oom_buf_init(&q);
    bool result = false;
    if (oom_pymodel_qualname(m, fn, &q) && oom_str_starts_with(q.data, "torch.")) {
        const char *last = strrchr(q.data, '.') + 1;
        static const char *const joins[] = {"cat", "stack", "concat", "concatenate", "vstack",
                                            "hstack", "softmax", "sigmoid", "log_softmax", NULL};
        if (oom_model_text_in(last, strlen(last), joins) || oom_str_starts_with(q.data, "torch.nn.functional."))
            result = any_argument_device_output(m, call, depth);
    }
    oom_buf_free(&q);
    return result;
}

/* What a binding holds: `for emb in embeddings` binds a row of a device
 * output, a view that keeps the whole batch's storage on the device. An
 * augmented assignment (`total += x`) is a running value, not a kept one. */
static bool binding_device_output(const oom_pymodel *m, const oom_binding *b, int depth)
{
    if (!b || b->kind == OOM_BIND_OPAQUE || b->kind == OOM_BIND_AUGMENTED)
        return false;
    if (!oom_model_visit_first(m, &((oom_pymodel *)m)->device_visit, b))
        return false; /* answered already in this question: a loop's bindings reach each other */
    return device_output(m, b->value, depth + 1);
}

/* A name holds a device output when one of the bindings that may reach it
 * does (`out = model(x)`, then `if keep: out = out.cpu()` leaves the GPU
 * copy on the other path), and none when every path moved or reduced it
 * (`out = out.cpu()` after the forward). Names the flow cannot answer for
 * (an enclosing function's, the module's) take the nearest binding above. */
static bool identifier_device_output(const oom_pymodel *m, TSNode id, int depth)
{
    oom_flow_reach r;
    if (oom_model_reaching_bindings(m, id, &r)) {
        for (uint32_t i = 0; i < r.count; i++)
            if (binding_device_output(m, oom_model_def_binding(m, r.defs[i]), depth))
                return true;
        return false;
    }
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    uint32_t pos = ts_node_start_byte(id);
    return binding_device_output(m, oom_model_visible_binding(m, oom_model_scope_at(m, pos), name, len, pos, false),
                                 depth);
}

static bool device_output(const oom_pymodel *m, TSNode e, int depth)
{
    if (depth > OOM_MODEL_MAX_DEPTH || ts_node_is_null(e))
        return false;
    TSSymbol s = ts_node_symbol(e);
    uint32_t len;
    if (s == m->sym.identifier)
        return identifier_device_output(m, e, depth);
    if (s == m->sym.call)
        return device_output_call(m, e, depth);
    if (s == m->sym.attribute) {
        TSNode attr = oom_model_child(m, e, "attribute", 9);
        const char *name = oom_node_text(m, attr, &len);
        if (len == 4 && memcmp(name, "loss", 4) == 0)
            return false; /* a scalar */
        if (oom_model_text_in(name, len, oom_model_history_free_attributes) && !(len == 4 && memcmp(name, "data", 4) == 0))
            return false;
        if (oom_model_text_in(name, len, oom_model_output_fields))
            return true;
        return device_output(m, oom_model_child(m, e, "object", 6), depth + 1);
    }
    const char *type = ts_node_type(e);
    if (strcmp(type, "subscript") == 0)
        return device_output(m, oom_model_child(m, e, "value", 5), depth + 1);
    if (strcmp(type, "parenthesized_expression") == 0 || strcmp(type, "list") == 0 ||
        strcmp(type, "tuple") == 0 || strcmp(type, "binary_operator") == 0 ||
        strcmp(type, "expression_list") == 0 || strcmp(type, "argument_list") == 0) {
        uint32_t count = ts_node_named_child_count(e);
        for (uint32_t i = 0; i < count; i++)
            if (device_output(m, oom_model_named_child(m, e, i), depth + 1))
                return true;
    }
    return false;
}

static bool any_argument_device_output(const oom_pymodel *m, TSNode call, int depth)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    oom_model_kids kids = oom_model_kids_of(m, args);
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) != m->sym.keyword_argument && device_output(m, a, depth + 1))
            return true;
    }
    return false;
}

bool oom_pymodel_is_device_output(const oom_pymodel *m, TSNode expr)
{
    oom_model_visit_begin(&((oom_pymodel *)m)->device_visit);
    return device_output(m, expr, 0);
}


/* ---- the function's default path ----------------------------------------- */

/* `P` is a parameter of the function around `pos` whose default is `True`
 * (`convert_to_numpy: bool = True`). */
static bool parameter_defaults_true(const oom_pymodel *m, int scope, TSNode name)
{
    const oom_scope *sc = &m->scopes[scope];
    if (scope <= 0 || ts_node_is_null(sc->def))
        return false;
    TSNode params = oom_model_child(m, sc->def, "parameters", 10);
    uint32_t nlen;
    const char *n = oom_node_text(m, name, &nlen);
    oom_model_kids kids = oom_model_kids_of(m, params);
    for (TSNode p; oom_model_next_kid(m, &kids, &p);) {
        const char *type = ts_node_type(p);
        if (strcmp(type, "default_parameter") != 0 && strcmp(type, "typed_default_parameter") != 0)
            continue;
        uint32_t plen;
        const char *pn = oom_node_text(m, oom_model_child(m, p, "name", 4), &plen);
        TSNode value = oom_model_child(m, p, "value", 5);
        if (pn && plen == nlen && memcmp(pn, n, nlen) == 0)
            return !ts_node_is_null(value) && strcmp(ts_node_type(value), "true") == 0;
    }
    return false;
}

/* `x.cpu()`, `x.numpy()`, `x.tolist()`, `x.to("cpu")` (through `.float()`...). */
static bool host_move(const oom_pymodel *m, TSNode value)
{
    for (int i = 0; i < 4 && !ts_node_is_null(value) && ts_node_symbol(value) == m->sym.call; i++) {
        TSNode fn = oom_model_child(m, value, "function", 8);
        if (ts_node_symbol(fn) != m->sym.attribute)
            return false;
        TSNode attr = oom_model_child(m, fn, "attribute", 9);
        if (oom_node_text_is(m, attr, "cpu") || oom_node_text_is(m, attr, "numpy") ||
            oom_node_text_is(m, attr, "tolist") || (oom_node_text_is(m, attr, "to") && moves_to_cpu(m, value)))
            return true;
        value = oom_model_child(m, fn, "object", 6);
    }
    return false;
}

/* The `if P:` whose body holds `node`, P a bare name (not its else branch). */
static TSNode switch_of_body(const oom_pymodel *m, TSNode node)
{
    TSNode child = node;
    for (TSNode up = oom_model_parent(m, node); !ts_node_is_null(up); up = oom_model_parent(m, up)) {
        if (ts_node_symbol(up) == m->sym.function_definition)
            break;
        if (strcmp(ts_node_type(up), "if_statement") == 0) {
            TSNode cond = oom_model_child(m, up, "condition", 9);
            TSNode body = oom_model_child(m, up, "consequence", 11);
            if (!ts_node_is_null(body) && ts_node_eq(body, child) && !ts_node_is_null(cond) &&
                ts_node_symbol(cond) == m->sym.identifier)
                return cond;
        }
        child = up;
    }
    return (TSNode){0};
}

bool oom_pymodel_host_on_default_path(const oom_pymodel *m, TSNode expr)
{
    oom_flow_reach r;
    if (ts_node_symbol(expr) != m->sym.identifier || !oom_model_reaching_bindings(m, expr, &r))
        return false;
    int scope = oom_model_scope_at(m, ts_node_start_byte(expr));
    for (uint32_t i = 0; i < r.count; i++) {
        const oom_binding *b = oom_model_def_binding(m, r.defs[i]);
        if (!b || b->kind != OOM_BIND_VALUE || ts_node_is_null(b->value) || !host_move(m, b->value))
            continue;
        TSNode cond = switch_of_body(m, b->value);
        if (!ts_node_is_null(cond) && parameter_defaults_true(m, scope, cond))
            return true;
    }
    return false;
}

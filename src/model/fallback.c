/* model/fallback: a retry in an out-of-memory handler that runs on the
 * host. `except torch.cuda.OutOfMemoryError: self.device = "cpu";
 * self.quantize()` or `quant(module.weight.to("cpu"))` is the CPU fallback
 * the handler exists for: the failed attempt's tensors the traceback pins
 * are GPU memory the retry does not need. Shown from the handler's code
 * before the retry (and the retry's own arguments): a move to the host (a
 * host method of the library knowledge, `.to("cpu")`), or "cpu" /
 * `torch.device("cpu")` assigned or passed as `device=`. */
#include <string.h>

#include "internal.h"
#include "oomlint/library.h"

static bool names_host(const oom_pymodel *m, const oom_library *lib, TSNode e)
{
    if (ts_node_is_null(e))
        return false;
    oom_buf s;
    oom_buf_init(&s);
    bool host = oom_pymodel_string_value(m, e, &s) && strcmp(s.data, "cpu") == 0;
    oom_buf_free(&s);
    if (host || ts_node_symbol(e) != m->sym.call)
        return host;
    oom_buf q;
    oom_buf_init(&q);
    bool device = oom_pymodel_qualname(m, oom_model_child(m, e, "function", 8), &q) &&
                  oom_library_lists(&lib->device_constructors, q.data, (uint32_t)q.len);
    oom_buf_free(&q);
    TSNode args = oom_model_child(m, e, "arguments", 9);
    return device && ts_node_named_child_count(args) > 0 && names_host(m, lib, ts_node_named_child(args, 0));
}

/* `x.cpu()`, `x.to("cpu")`, `x.to(device="cpu")` of a model, a weight or an
 * input (a name or an attribute): the work moves. A result copied out
 * (`model(x).argmax(-1).cpu()`) is no fallback. */
static bool moves_to_host(const oom_pymodel *m, const oom_library *lib, TSNode call)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
        return false;
    TSNode recv = oom_model_child(m, fn, "object", 6);
    if (ts_node_is_null(recv) || (ts_node_symbol(recv) != m->sym.identifier && ts_node_symbol(recv) != m->sym.attribute))
        return false;
    uint32_t len;
    const char *method = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
    if (oom_library_lists(&lib->host_methods, method, len))
        return true;
    if (!oom_library_lists(&lib->placing_methods, method, len))
        return false;
    TSNode args = oom_model_child(m, call, "arguments", 9);
    uint32_t n = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < n; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            a = oom_model_child(m, a, "value", 5);
        if (names_host(m, lib, a))
            return true;
    }
    return false;
}

static bool host_step(const oom_pymodel *m, const oom_library *lib, TSNode n)
{
    TSSymbol s = ts_node_symbol(n);
    if (s == m->sym.call)
        return moves_to_host(m, lib, n);
    if (s == m->sym.assignment)
        return names_host(m, lib, oom_model_child(m, n, "right", 5));
    if (s == m->sym.keyword_argument && oom_node_text_is(m, oom_model_child(m, n, "name", 4), "device"))
        return names_host(m, lib, oom_model_child(m, n, "value", 5));
    return false;
}

/* Some node of `n` that starts before `end` moves to the host. */
static bool host_before(const oom_pymodel *m, const oom_library *lib, TSNode n, uint32_t end, int depth)
{
    if (ts_node_start_byte(n) >= end || depth > OOM_MODEL_MAX_DEPTH)
        return false;
    if (host_step(m, lib, n))
        return true;
    uint32_t kids = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < kids; i++)
        if (host_before(m, lib, ts_node_named_child(n, i), end, depth + 1))
            return true;
    return false;
}

bool oom_pymodel_retries_on_host(const oom_pymodel *m, TSNode call)
{
    const oom_library *lib = oom_library_get();
    if (!lib || ts_node_is_null(call))
        return false;
    TSNode handler = oom_model_parent(m, call);
    while (!ts_node_is_null(handler) && ts_node_symbol(handler) != m->sym.except_clause &&
           ts_node_symbol(handler) != m->sym.function_definition)
        handler = oom_model_parent(m, handler);
    if (ts_node_is_null(handler) || ts_node_symbol(handler) != m->sym.except_clause)
        return false;
    return host_before(m, lib, handler, ts_node_end_byte(call), 0);
}

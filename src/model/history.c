/* model/history: which expressions carry autograd history, and which calls
 * are forward passes of a model. Unknown means "no": every rule built on these
 * answers prefers a missed finding to a false one. */
#include <ctype.h>
#include <string.h>

#include "oomlint/lang.h"
#include "oomlint/library.h"
#include "internal.h"

static bool has_prefix(const char *s, size_t len, const char *p)
{
    size_t n = strlen(p);
    return len >= n && memcmp(s, p, n) == 0;
}

static bool has_suffix(const char *s, size_t len, const char *x)
{
    size_t n = strlen(x);
    return len >= n && memcmp(s + len - n, x, n) == 0;
}

bool oom_model_name_is_loss_like(const char *name, size_t len)
{
    static const char *const words[] = {"loss", "losses", "criterion", "criterions", "crit", NULL};
    return oom_name_has_word(name, len, words);
}

/* ---- model forward calls ----------------------------------------------------- */

/* Whether a `def` of this file defines the name. Scopes are functions. */
static bool defined_by_def(const oom_pymodel *m, const char *name, uint32_t len)
{
    for (size_t i = 1; i < m->scope_count; i++)
        if (m->scopes[i].name_len == len && memcmp(m->scopes[i].name, name, len) == 0)
            return true;
    return false;
}

/* DistributedDataParallel._set_static_graph_for_model(...), nn.Module.x_model:
 * an attribute of a class (a capitalised last name) is a function, not a
 * model the script built. */
static bool names_a_class(const oom_pymodel *m, TSNode object)
{
    uint32_t len;
    const char *name = oom_node_last_name(m, object, &len);
    return name && len > 0 && isupper((unsigned char)name[0]);
}

/* torch.nn modules without parameters (activations, dropout, pooling,
 * padding, reshaping) are functions: calling one is not running a model. */
static bool is_parameter_free_layer(const char *name)
{
    static const char *const names[] = {
        "Sigmoid", "Tanh", "ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "ELU", "SELU", "CELU",
        "Softplus", "Softsign", "Softmax", "Softmax2d", "LogSoftmax", "Softmin", "Hardtanh",
        "Hardswish", "Hardsigmoid", "Hardshrink", "Softshrink", "Tanhshrink", "Mish", "Threshold",
        "LogSigmoid", "GLU", "Identity", "Flatten", "Unflatten", "Upsample", "UpsamplingNearest2d",
        "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle",
        "CosineSimilarity", "PairwiseDistance", NULL};
    for (size_t i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return strstr(name, "Dropout") || strstr(name, "Pool") || strstr(name, "Pad");
}

static bool is_model_expr(const oom_pymodel *m, TSNode expr, int depth);

/* A function definition under @property / @cached_property: reading it
 * gives a value (lm-eval's `def model(self): return self._model`). */
static bool is_property(const oom_pymodel *m, TSNode def)
{
    TSNode outer = oom_model_parent(m, def);
    if (ts_node_is_null(outer) || ts_node_symbol(outer) != m->sym.decorated_definition)
        return false;
    uint32_t count = ts_node_named_child_count(outer);
    for (uint32_t i = 0; i < count; i++) {
        TSNode d = oom_model_named_child(m, outer, i);
        uint32_t len;
        const char *text = oom_node_text(m, d, &len);
        if (ts_node_symbol(d) == m->sym.decorator && len >= 9 && memmem(text, len, "property", 8))
            return true;
    }
    return false;
}

/* `self._model_generate(...)` where the file defines the method
 * `_model_generate` (not as a property): the scope of that method, whose
 * body decides what the call runs; -1 otherwise. */
static int own_method(const oom_pymodel *m, TSNode object, const char *name, uint32_t len)
{
    if (ts_node_symbol(object) != m->sym.identifier || !oom_node_text_is(m, object, "self"))
        return -1;
    for (size_t i = 1; i < m->scope_count; i++) {
        const oom_scope *sc = &m->scopes[i];
        if (sc->name_len == len && memcmp(sc->name, name, len) == 0 && !ts_node_is_null(sc->def) &&
            ts_node_symbol(sc->def) == m->sym.function_definition && !is_property(m, sc->def))
            return (int)i;
    }
    return -1;
}

static bool model_call(const oom_pymodel *m, TSNode call, int depth);

/* What following a call into one of the file's methods costs of the depth
 * budget (OOM_MODEL_MAX_DEPTH): a method calling another is followed two
 * levels deep, whatever else the question has followed. */
#define OWN_METHOD_COST 16

/* The method runs a model's forward with autograd on in its own body (`def
 * _model_forward(self, b): return self.model(b)`), directly or through
 * another of the file's methods: not in its own no_grad block, nor where
 * every caller runs it without grad; HF's `generate()` runs under no_grad
 * and is not one. */
static bool method_runs_forward(const oom_pymodel *m, int scope, int depth)
{
    if (depth + OWN_METHOD_COST > OOM_MODEL_MAX_DEPTH)
        return false;
    const oom_scope *sc = &m->scopes[scope];
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->pos < sc->start || c->pos >= sc->end || oom_model_scope_at(m, c->pos) != scope)
            continue;
        if (oom_model_grad_state_at(m, c->pos) == OOM_GRAD_DISABLED)
            continue;
        /* a forward that is evaluation code where it stands is reported
         * there: its caller's call of the helper is the same cause */
        if (model_call(m, c->node, depth + OWN_METHOD_COST) && !oom_pymodel_is_eval_code(m, c->node))
            return true;
    }
    return false;
}

/* A context manager's own call (`with torch.inference_mode():`,
 * `with self.autocast_ctx():`): it opens the region, and runs nothing. */
static bool in_with_header(const oom_pymodel *m, TSNode call)
{
    TSNode up = call;
    for (int i = 0; i < 4 && !ts_node_is_null(up); i++) {
        up = oom_model_parent(m, up);
        if (!ts_node_is_null(up) && strcmp(ts_node_type(up), "with_clause") == 0)
            return true;
    }
    return false;
}

/* Every call the function makes runs with autograd off (its body is one
 * `with torch.inference_mode():`, or it is decorated @torch.no_grad()),
 * and it makes some: positive evidence, where a body of `self.fc(x)` calls
 * says nothing. */
static bool runs_all_without_grad(const oom_pymodel *m, int scope)
{
    const oom_scope *sc = &m->scopes[scope];
    bool some = false;
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->pos < sc->start || c->pos >= sc->end || oom_model_scope_at(m, c->pos) != scope ||
            in_with_header(m, c->node))
            continue;
        if (oom_model_grad_state_at(m, c->pos) != OOM_GRAD_DISABLED)
            return false;
        some = true;
    }
    return some;
}

/* The name of the class whose method scope `sc` is; NULL for a function. */
static const char *owner_class_name(const oom_pymodel *m, const oom_scope *sc, uint32_t *len)
{
    TSNode owner = oom_model_class_of_scope(m, sc);
    TSNode name = ts_node_is_null(owner) ? owner : oom_model_child(m, owner, "name", 4);
    return ts_node_is_null(name) ? NULL : oom_node_text(m, name, len);
}

static bool is_forward_scope(const oom_scope *sc)
{
    return sc->name_len == 7 && memcmp(sc->name, "forward", 7) == 0;
}

/* `feature_model = ModelWithIntermediateLayers(model, ...)` where this file's
 * class of that name has a `forward` that runs everything under no_grad or
 * inference_mode (DINOv2's evaluation wrapper): calling the instance keeps
 * no activations. Unknown (no such class, no forward) is "runs one". The
 * instance is still a model for what it outputs (model/device.c). */
static bool instance_forward_without_grad(const oom_pymodel *m, TSNode value)
{
    if (ts_node_is_null(value) || ts_node_symbol(value) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, value, "function", 8);
    uint32_t len;
    const char *cls = ts_node_symbol(fn) == m->sym.identifier ? oom_node_text(m, fn, &len) : NULL;
    if (!cls || len == 0 || !isupper((unsigned char)cls[0]))
        return false;
    for (size_t i = 1; i < m->scope_count; i++) {
        const oom_scope *sc = &m->scopes[i];
        if (!is_forward_scope(sc))
            continue;
        uint32_t nlen;
        const char *n = owner_class_name(m, sc, &nlen);
        if (n && nlen == len && memcmp(n, cls, len) == 0)
            return runs_all_without_grad(m, (int)i);
    }
    return false;
}

void oom_pymodel_no_grad_forward_classes(const oom_pymodel *m, oom_buf *out)
{
    for (size_t i = 1; i < m->scope_count; i++) {
        const oom_scope *sc = &m->scopes[i];
        uint32_t len;
        const char *name = is_forward_scope(sc) ? owner_class_name(m, sc, &len) : NULL;
        if (name && runs_all_without_grad(m, (int)i)) {
            oom_buf_append(out, name, len);
            oom_buf_putc(out, '\0');
        }
    }
}

void oom_pymodel_collect_conditions(const oom_pymodel *m, oom_buf *into)
{
    ((oom_pymodel *)m)->conditions = into; /* one thread owns the model */
}

/* `feature_model = ModelWithIntermediateLayers(...)` with the class imported
 * (`from dinov2.eval.utils import ModelWithIntermediateLayers`): whether its
 * forward keeps activations is that file's to say, so the answer "a forward
 * with grad" waits on the project pass. A relative import (`from .utils
 * import C`) is no alias of the model's, and stays "runs one". */
static void note_imported_instance(const oom_pymodel *m, TSNode value)
{
    if (!m->conditions || ts_node_is_null(value) || ts_node_symbol(value) != m->sym.call)
        return;
    TSNode fn = oom_model_child(m, value, "function", 8);
    uint32_t len;
    const char *cls = ts_node_symbol(fn) == m->sym.identifier ? oom_node_text(m, fn, &len) : NULL;
    if (!cls || len == 0 || !isupper((unsigned char)cls[0]) || !oom_pymodel_is_import_alias(m, cls, len))
        return;
    oom_buf q;
    oom_buf_init(&q);
    const char *dot = oom_pymodel_qualname(m, fn, &q) ? strrchr(q.data, '.') : NULL;
    if (dot && dot > q.data && q.data[0] != '.') {
        if (m->conditions->len)
            oom_buf_putc(m->conditions, '\n');
        oom_buf_printf(m->conditions, "fwdgrad\t%.*s\t%s", (int)(dot - q.data), q.data, dot + 1);
    }
    oom_buf_free(&q);
}

int oom_model_own_method_called(const oom_pymodel *m, TSNode fn)
{
    if (ts_node_symbol(fn) != m->sym.attribute)
        return -1;
    uint32_t len;
    const char *name = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
    return name ? own_method(m, oom_model_child(m, fn, "object", 6), name, len) : -1;
}

static bool is_model_expr(const oom_pymodel *m, TSNode expr, int depth)
{
    if (depth > OOM_MODEL_MAX_DEPTH || ts_node_is_null(expr))
        return false;
    TSSymbol s = ts_node_symbol(expr);
    uint32_t len;
    if (s == m->sym.attribute) {
        TSNode attr = oom_model_child(m, expr, "attribute", 9);
        if (ts_node_is_null(attr))
            return false;
        const char *t = oom_node_text(m, attr, &len);
        TSNode object = oom_model_child(m, expr, "object", 6);
        if (names_a_class(m, object))
            return false;
        /* self.step(x): the file's own method runs a forward when its body
         * does, whatever it is called */
        int method = own_method(m, object, t, len);
        if (method >= 0)
            return method_runs_forward(m, method, depth);
        return oom_model_module_role(m, expr) == OOM_ROLE_MODULE;
    }
    if (strcmp(ts_node_type(expr), "subscript") == 0) /* self.models["g"](z), self.heads[i](h) */
        return oom_model_module_role(m, expr) == OOM_ROLE_MODULE;
    if (s != m->sym.identifier)
        return false;
    const char *name = oom_node_text(m, expr, &len);
    /* def step_model(...): a function; but a parameter or local of the
     * function we are in shadows a def of the same name elsewhere (a pytest
     * fixture `def model()` and `def evaluate(model, ...)`) */
    uint32_t at = ts_node_start_byte(expr);
    int here = oom_model_scope_at(m, at);
    const oom_binding *local = here > 0 ? oom_model_last_binding(m, here, name, len, at, false) : NULL;
    if (!local && defined_by_def(m, name, len))
        return false;
    if (oom_model_module_role(m, expr) != OOM_ROLE_MODULE)
        return false;
    if (local && local->kind == OOM_BIND_VALUE) {
        if (instance_forward_without_grad(m, local->value))
            return false;
        note_imported_instance(m, local->value);
    }
    return true;
}

bool oom_pymodel_is_parameter_free_module(const oom_pymodel *m, TSNode expr)
{
    if (!ts_node_is_null(expr) && ts_node_symbol(expr) == m->sym.keyword_argument)
        expr = oom_model_child(m, expr, "value", 5);
    if (ts_node_is_null(expr))
        return false;
    uint32_t len;
    const char *name = oom_node_last_name(m, expr, &len);
    if (name && oom_model_name_is_loss_like(name, len))
        return true; /* criterion, loss_fn, self.loss */
    TSNode v = oom_pymodel_value_of(m, expr, 0);
    if (ts_node_is_null(v) || ts_node_symbol(v) != m->sym.call)
        return false;
    oom_buf q;
    oom_buf_init(&q);
    bool free_ = false;
    if (oom_pymodel_qualname(m, oom_model_child(m, v, "function", 8), &q)) {
        const char *last = strrchr(q.data, '.');
        last = last ? last + 1 : q.data;
        free_ = strstr(last, "Loss") || strstr(last, "Metric") || is_parameter_free_layer(last);
    }
    oom_buf_free(&q);
    return free_;
}

bool oom_pymodel_is_model_expr(const oom_pymodel *m, TSNode expr)
{
    return is_model_expr(m, expr, 0);
}

/* `self` in a method of a model class: `self(x)` and `self.forward(x)` run
 * the model's own forward (SentenceTransformer.encode). */
static bool is_own_model(const oom_pymodel *m, TSNode expr)
{
    if (ts_node_is_null(expr) || ts_node_symbol(expr) != m->sym.identifier || !oom_node_text_is(m, expr, "self"))
        return false;
    int scope = oom_model_scope_at(m, ts_node_start_byte(expr));
    return scope > 0 && m->scopes[scope].model_method;
}

/* A call given a model as an argument: `reparameterize_model(model)`,
 * `unwrap_model(model)`, `count_parameters(model)` take the model and do
 * something with it; a forward takes data. */
static bool passes_a_model_here(const oom_pymodel *m, TSNode call);

static bool passes_a_model(const oom_pymodel *m, TSNode call)
{
    /* what quiets a finding is settled by the file alone: an argument that
     * would be a module only if another file confirmed it does not count */
    oom_buf *waiting = m->pending_conditions;
    oom_pymodel_collect_pending(m, NULL);
    bool passes = passes_a_model_here(m, call);
    oom_pymodel_collect_pending(m, waiting);
    return passes;
}

static bool passes_a_model_here(const oom_pymodel *m, TSNode call)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    oom_model_kids kids = oom_model_kids_of(m, args);
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            a = oom_model_child(m, a, "value", 5);
        if (!ts_node_is_null(a) && is_model_expr(m, a, 1))
            return true;
    }
    return false;
}

static bool model_call(const oom_pymodel *m, TSNode call, int depth)
{
    if (ts_node_symbol(call) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn))
        return false;
    /* module.validation_step(batch) by hand: a Lightning hook of a module,
     * when what it is called on is one (OGB's KGEModel.test_step is a
     * static method under no_grad: its receiver shows no module) */
    /* ... and one given the module too (`kge_model.test_step(kge_model,
     * triples)`) is a utility that takes the model, as any call given a
     * model is */
    if (oom_pymodel_is_eval_hook_call(m, call))
        return is_model_expr(m, oom_model_child(m, fn, "object", 6), depth + 1) && !passes_a_model(m, call);
    bool model;
    uint32_t mlen = 0;
    const char *method = ts_node_symbol(fn) == m->sym.attribute ? oom_node_last_name(m, fn, &mlen) : NULL;
    if (method && oom_model_is_module_forward_method(method, mlen) && own_method(m, oom_model_child(m, fn, "object", 6), method, mlen) < 0)
        /* model.forward(x), clip_model.encode_image(x): a module's methods
         * that run its forward, from the library knowledge */
        model = is_model_expr(m, oom_model_child(m, fn, "object", 6), depth) ||
                is_own_model(m, oom_model_child(m, fn, "object", 6));
    else
        model = is_model_expr(m, fn, depth) || is_own_model(m, fn);
    if (!model)
        return false;
    /* an imported function (`from utils import reparameterize_model`) is
     * a function, whatever its name says; a call given a model acts on it */
    if (ts_node_symbol(fn) == m->sym.identifier &&
        oom_pymodel_is_import_alias(m, m->src + ts_node_start_byte(fn), ts_node_end_byte(fn) - ts_node_start_byte(fn)))
        return false;
    return !passes_a_model(m, call);
}

bool oom_pymodel_is_model_call(const oom_pymodel *m, TSNode call)
{
    return model_call(m, call, 0);
}

/* ---- autograd history --------------------------------------------------------- */

static bool carries(const oom_pymodel *m, TSNode e, int depth);

/* Methods whose result has no autograd history whatever the receiver. */
static const char *const history_free_methods[] = {
    "item", "tolist", "numpy", "detach", "detach_", "argmax", "argmin", "argsort", "size",
    "dim", "numel", "nelement", "element_size", "data_ptr", "eq", "ne", "lt", "gt", "le", "ge",
    "equal", "isnan", "isinf", "isfinite", "all", "any", "nonzero", "count_nonzero", "long",
    "int", "bool", "short", "byte", "backward", "generate", "__len__", "stride", "is_contiguous",
    "get_device", "zero_", NULL};

/* Attributes whose value has no history (metadata, or .data/.grad). */
const char *const oom_model_history_free_attributes[] = {
    "data", "grad", "shape", "dtype", "device", "requires_grad", "ndim", "is_cuda", "is_leaf",
    "layout", NULL};

/* Fields of a model's output that are tensors produced by the forward. */
const char *const oom_model_output_fields[] = {
    "loss", "logits", "hidden_states", "last_hidden_state", "pooler_output", "attentions",
    "encoder_last_hidden_state", "start_logits", "end_logits", "prediction_logits",
    "image_embeds", "text_embeds", "aux_loss", NULL};

static const char *const history_free_builtins[] = {
    "float", "int", "bool", "str", "len", "repr", "print", "isinstance", "round", "type",
    "id", "hash", "format", "range", "enumerate", "zip", NULL};

static const char *const torch_history_free[] = {
    "tensor", "as_tensor", "argmax", "argmin", "argsort", "eq", "ne", "lt", "gt", "le", "ge",
    "isnan", "isinf", "isfinite", "equal", "numel", "is_tensor", "count_nonzero", "nonzero",
    "zeros", "ones", "empty", "full", "arange", "zeros_like", "ones_like", "empty_like",
    "randn", "rand", "randint", NULL};

static bool any_argument_carries(const oom_pymodel *m, TSNode call, int depth)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    if (ts_node_is_null(args))
        return false;
    oom_model_kids kids = oom_model_kids_of(m, args);
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            a = oom_model_child(m, a, "value", 5);
        if (!ts_node_is_null(a) && carries(m, a, depth + 1))
            return true;
    }
    return false;
}

static bool is_loss_function(const char *q)
{
    if (!oom_str_starts_with(q, "torch.nn.functional."))
        return false;
    return strstr(q, "loss") || strstr(q, "entropy") || strstr(q, "kl_div");
}

/* The last name of one of torch.nn.functional's losses. */
static bool names_a_functional_loss(const char *last)
{
    static const char *const losses[] = {"cross_entropy", "binary_cross_entropy",
                                         "binary_cross_entropy_with_logits", "nll_loss", "kl_div",
                                         "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", NULL};
    return oom_model_text_in(last, strlen(last), losses);
}

/* Methods whose result carries the graph by their contract: a
 * LightningModule's training_step and a Trainer's compute_loss return the
 * loss the caller backpropagates. */
static const char *const graph_returning_methods[] = {"training_step", "compute_loss", NULL};

/* A call of a function this file defines (`step(x)`, `self.train_one_batch(b)`)
 * carries history when one of its `return` values does. Followed a few calls
 * deep only: the summaries are computed on demand. */
/* The returned element at `index` of a `return a, b, c` (or a whole
 * value that is not a tuple: unknown, so all of it). */
static TSNode returned_element(const oom_pymodel *m, TSNode value, int index)
{
    const char *type = ts_node_type(value);
    if (index < 0 || (strcmp(type, "expression_list") != 0 && strcmp(type, "tuple") != 0))
        return value;
    if ((uint32_t)index >= ts_node_named_child_count(value))
        return (TSNode){0};
    return oom_model_named_child(m, value, (uint32_t)index);
}

static bool own_function_returns_graph_at(const oom_pymodel *m, TSNode fn, int index, int depth);

static bool own_function_returns_graph(const oom_pymodel *m, TSNode fn, int depth)
{
    return own_function_returns_graph_at(m, fn, -1, depth);
}

/* `index`: the element of a returned tuple the caller unpacks (-1: all). */
static bool own_function_returns_graph_at(const oom_pymodel *m, TSNode fn, int index, int depth)
{
    if (depth > 12)
        return false;
    uint32_t len;
    const char *name = oom_node_last_name(m, fn, &len);
    if (!name || (ts_node_symbol(fn) == m->sym.attribute &&
                  !oom_node_text_is(m, oom_model_child(m, fn, "object", 6), "self")))
        return false;
    for (size_t s = 1; s < m->scope_count; s++) {
        const oom_scope *sc = &m->scopes[s];
        if (!sc->name || sc->name_len != len || memcmp(sc->name, name, len) != 0)
            continue;
        for (size_t i = 0; i < m->return_count; i++)
            if (m->returns[i].scope == (int)s &&
                carries(m, returned_element(m, m->returns[i].value, index), depth + 4))
                return true;
    }
    return false;
}

static bool derived_without_grad(const oom_pymodel *m, TSNode e);
static bool read_without_grad(const oom_pymodel *m, TSNode id);
static const oom_binding *binding_read_at(const oom_pymodel *m, TSNode id);
static int unpack_index(const oom_pymodel *m, TSNode value, const char *name, uint32_t len);

/* A returned value that has no history by how it is made: a literal,
 * `loss.detach()`, `loss.item()`, `float(loss)`, a name bound under no_grad. */
static bool history_free_by_construction(const oom_pymodel *m, TSNode e, int depth)
{
    const char *type = ts_node_type(e);
    if (strcmp(type, "none") == 0 || strcmp(type, "integer") == 0 || strcmp(type, "float") == 0 ||
        strcmp(type, "string") == 0 || strcmp(type, "true") == 0 || strcmp(type, "false") == 0)
        return true;
    if (ts_node_symbol(e) == m->sym.identifier)
        return read_without_grad(m, e);
    if (strcmp(type, "dictionary") == 0 || strcmp(type, "tuple") == 0 || strcmp(type, "list") == 0 ||
        strcmp(type, "expression_list") == 0)
        /* a step's metrics, `{"loss": loss.item(), "lr": lr, "time": t}`:
         * what the model can tell of each entry */
        return !carries(m, e, depth + 1);
    if (ts_node_symbol(e) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, e, "function", 8);
    uint32_t len;
    if (ts_node_symbol(fn) == m->sym.attribute) {
        /* `.detach().to(device)`: moving or reducing a value keeps what it has */
        static const char *const keeping[] = {"to", "cpu", "cuda", "float", "half", "double",
                                              "clone", "contiguous", "mean", "sum", NULL};
        const char *method = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
        if (method && oom_model_text_in(method, len, history_free_methods))
            return true;
        return method && oom_model_text_in(method, len, keeping) &&
               history_free_by_construction(m, oom_model_child(m, fn, "object", 6), depth + 1);
    }
    const char *name = ts_node_symbol(fn) == m->sym.identifier ? oom_node_text(m, fn, &len) : NULL;
    return name && oom_model_text_in(name, len, history_free_builtins);
}

/* The file's own `training_step` (a copy of the Trainer's, which ends in
 * `return loss.detach()`): every `return` gives a value without history, so
 * the call gives none, whatever the method's name promises. */
static bool own_function_returns_no_history(const oom_pymodel *m, TSNode fn, int depth)
{
    uint32_t len;
    const char *name = oom_node_last_name(m, fn, &len);
    if (!name || (ts_node_symbol(fn) == m->sym.attribute &&
                  !oom_node_text_is(m, oom_model_child(m, fn, "object", 6), "self")))
        return false;
    bool some_return = false;
    for (size_t s = 1; s < m->scope_count; s++) {
        const oom_scope *sc = &m->scopes[s];
        if (!sc->name || sc->name_len != len || memcmp(sc->name, name, len) != 0)
            continue;
        for (size_t i = 0; i < m->return_count; i++) {
            if (m->returns[i].scope != (int)s)
                continue;
            if (!history_free_by_construction(m, m->returns[i].value, depth + 1))
                return false;
            some_return = true;
        }
    }
    return some_return;
}

/* ---- an instance of the file's own model class, maybe wrapped ------------- */

/* The scope of the `forward` of the file's class that `cls` names (`RF` of
 * `RF(model)`); -1 when the file defines no such class with a forward. */
static int own_class_forward(const oom_pymodel *m, TSNode cls)
{
    uint32_t len;
    const char *name = ts_node_symbol(cls) == m->sym.identifier ? oom_node_text(m, cls, &len) : NULL;
    if (!name || len == 0 || !isupper((unsigned char)name[0]))
        return -1;
    for (size_t i = 1; i < m->scope_count; i++) {
        uint32_t nlen;
        const char *owner = is_forward_scope(&m->scopes[i]) ? owner_class_name(m, &m->scopes[i], &nlen) : NULL;
        if (owner && nlen == len && memcmp(owner, name, len) == 0)
            return (int)i;
    }
    return -1;
}

/* The positional argument at `index` of a call, or its keyword `keyword`
 * (NULL: none); a null node when it has neither. */
static TSNode call_argument(const oom_pymodel *m, TSNode call, int index, const char *keyword)
{
    TSNode kw = keyword ? oom_pymodel_keyword_value(m, call, keyword) : (TSNode){0};
    if (!ts_node_is_null(kw))
        return kw;
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    int position = 0;
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            continue;
        if (position++ == index)
            return a;
    }
    return (TSNode){0};
}

/* What a wrapper call wraps, for element `index` of its result (-1: the
 * whole result): `model.to(device)`, `torch.compile(model)`, `DDP(model)`,
 * `accelerator.prepare(model, opt, loader)` (element i is argument i), and
 * `deepspeed.initialize(model=rf, ...)` (element 0, the engine). Calling the
 * wrapper runs the wrapped module's forward and returns what it returns. */
static TSNode wrapped_module(const oom_pymodel *m, TSNode call, int index)
{
    static const char *const moving[] = {"to", "cuda", "half", "float", "bfloat16", "train", NULL};
    static const char *const parallel[] = {"DistributedDataParallel", "DataParallel", "DDP",
                                           "FullyShardedDataParallel", "FSDP", NULL};
    TSNode fn = oom_model_child(m, call, "function", 8);
    uint32_t len;
    const char *last = ts_node_is_null(fn) ? NULL : oom_node_last_name(m, fn, &len);
    if (!last)
        return (TSNode){0};
    if (ts_node_symbol(fn) == m->sym.attribute && index < 0 && oom_model_text_in(last, len, moving))
        return oom_model_child(m, fn, "object", 6);
    if (ts_node_symbol(fn) == m->sym.attribute && len == 7 && memcmp(last, "prepare", 7) == 0)
        return call_argument(m, call, index < 0 ? 0 : index, NULL);
    oom_buf q;
    oom_buf_init(&q);
    TSNode wrapped = {0};
    if (oom_pymodel_qualname(m, fn, &q)) {
        if (index < 0 && (oom_model_text_in(last, len, parallel) || strcmp(q.data, "torch.compile") == 0))
            wrapped = call_argument(m, call, 0, "module");
        else if (index == 0 && strcmp(q.data, "deepspeed.initialize") == 0)
            wrapped = call_argument(m, call, -1, "model");
    }
    oom_buf_free(&q);
    return wrapped;
}

/* The `forward` scope of the file's class that `expr` is an instance of
 * (element `index` of it; -1: all of it), through bindings and the wrappers
 * of wrapped_module: `rf = RF(model)`, `engine, opt, _, _ =
 * deepspeed.initialize(model=rf, ...)`, then `engine`. -1 when unknown. */
static int instance_forward_scope(const oom_pymodel *m, TSNode expr, int index, int hops)
{
    if (hops > 8 || ts_node_is_null(expr))
        return -1;
    if (ts_node_symbol(expr) == m->sym.call) {
        int own = index < 0 ? own_class_forward(m, oom_model_child(m, expr, "function", 8)) : -1;
        return own >= 0 ? own : instance_forward_scope(m, wrapped_module(m, expr, index), -1, hops + 1);
    }
    if (ts_node_symbol(expr) != m->sym.identifier || index >= 0)
        return -1;
    const oom_binding *b = binding_read_at(m, expr);
    if (!b || ts_node_is_null(b->value))
        return -1;
    if (b->kind == OOM_BIND_VALUE)
        return instance_forward_scope(m, b->value, -1, hops + 1);
    if (b->kind == OOM_BIND_UNPACK && ts_node_symbol(b->value) == m->sym.call) {
        int at = unpack_index(m, b->value, b->name, b->name_len);
        return at >= 0 ? instance_forward_scope(m, b->value, at, hops + 1) : -1;
    }
    return -1;
}

/* ---- values made without history: positive evidence only ------------------ */

/* Creation functions whose result has no history whatever their arguments
 * (`torch.randn_like(x)`), beside torch_history_free. */
static const char *const torch_creating[] = {"randn_like", "rand_like", "randint_like", "full_like", "randperm",
                                             "linspace", "logspace", "eye", NULL};
/* Methods that keep what their object has: a value without history moved,
 * cast, reshaped or reduced has none. */
static const char *const keeping_methods[] = {"to", "cpu", "cuda", "float", "half", "double", "bfloat16", "clone",
                                              "contiguous", "mean", "sum", "reshape", "view", "flatten",
                                              "squeeze", "unsqueeze", NULL};

static bool made_without_history(const oom_pymodel *m, TSNode e, TSNode comp, int depth);

static bool all_children_without_history(const oom_pymodel *m, TSNode e, TSNode comp, int depth)
{
    uint32_t count = ts_node_named_child_count(e);
    for (uint32_t i = 0; i < count; i++) {
        TSNode kid = oom_model_named_child(m, e, i);
        if (strcmp(ts_node_type(kid), "comment") != 0 && !made_without_history(m, kid, comp, depth + 1))
            return false;
    }
    return true;
}

/* Whether every argument value of a call (positional or keyword) is made
 * without history. */
static bool arguments_without_history(const oom_pymodel *m, TSNode call, TSNode comp, int depth)
{
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            a = oom_model_child(m, a, "value", 5);
        if (ts_node_is_null(a) || !made_without_history(m, a, comp, depth + 1))
            return false;
    }
    return true;
}

static bool call_made_without_history(const oom_pymodel *m, TSNode call, TSNode comp, int depth)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    uint32_t len;
    if (!ts_node_is_null(fn) && ts_node_symbol(fn) == m->sym.attribute) {
        const char *method = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
        if (method && oom_model_text_in(method, len, history_free_methods))
            return true; /* .detach(), .tolist(), .item(), .size(0) */
        if (method && oom_model_text_in(method, len, keeping_methods) &&
            made_without_history(m, oom_model_child(m, fn, "object", 6), comp, depth + 1))
            return true;
    }
    oom_buf q;
    oom_buf_init(&q);
    bool free_ = false;
    if (!ts_node_is_null(fn) && oom_pymodel_qualname(m, fn, &q)) {
        const char *last = strrchr(q.data, '.');
        last = last ? last + 1 : q.data;
        size_t llen = strlen(last);
        if (strchr(q.data, '.') == NULL)
            free_ = oom_model_text_in(q.data, llen, history_free_builtins);
        else if (oom_str_starts_with(q.data, "math."))
            free_ = true; /* Python floats */
        else if (oom_str_starts_with(q.data, "torch.") && strchr(q.data + 6, '.') == NULL)
            free_ = oom_model_text_in(last, llen, torch_history_free) ||
                    oom_model_text_in(last, llen, torch_creating) ||
                    arguments_without_history(m, call, comp, depth); /* torch.sigmoid(noise) */
    }
    oom_buf_free(&q);
    return free_;
}

/* `tv` of `[(tv, tl) for tv, tl in zip(t, tlist)]`, inside comprehension
 * `comp`: one of its own loop variables (whose iterables were checked). */
static bool comprehension_variable(const oom_pymodel *m, TSNode id, TSNode comp)
{
    if (ts_node_is_null(comp))
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    oom_model_kids kids = oom_model_kids_of(m, comp);
    for (TSNode clause; oom_model_next_kid(m, &kids, &clause);) {
        if (strcmp(ts_node_type(clause), "for_in_clause") != 0)
            continue;
        TSNode left = oom_model_child(m, clause, "left", 4);
        uint32_t count = ts_node_symbol(left) == m->sym.identifier ? 0 : ts_node_named_child_count(left);
        for (uint32_t i = 0; i <= count; i++) {
            TSNode v = count == 0 ? left : oom_model_named_child(m, left, i);
            uint32_t vlen;
            const char *vt = i < count || count == 0 ? oom_node_text(m, v, &vlen) : NULL;
            if (vt && vlen == len && memcmp(vt, name, len) == 0)
                return true;
        }
    }
    return false;
}

/* A comprehension whose iterables are made without history and whose
 * body is, its own loop variables taken as elements of those iterables. */
static bool comprehension_without_history(const oom_pymodel *m, TSNode e, int depth)
{
    oom_model_kids kids = oom_model_kids_of(m, e);
    for (TSNode clause; oom_model_next_kid(m, &kids, &clause);) {
        const char *type = ts_node_type(clause);
        if (strcmp(type, "for_in_clause") == 0) {
            if (!made_without_history(m, oom_model_child(m, clause, "right", 5), e, depth + 1))
                return false;
        } else if (strcmp(type, "if_clause") != 0 && !made_without_history(m, clause, e, depth + 1)) {
            return false; /* the body (a dictionary comprehension's pair) */
        }
    }
    return true;
}

/* One binding's value, each binding answered once per question: a binding
 * met again while its answer is pending (a loop's `x = f(x)`) is "no". */
static bool binding_made_without_history(const oom_pymodel *m, const oom_binding *b, int depth)
{
    oom_pymodel *mm = (oom_pymodel *)m; /* the scratch: one thread owns the model */
    size_t at = (size_t)(b - m->bindings);
    if (mm->free_proved.seen && mm->free_proved.seen[at] == mm->free_proved.stamp)
        return true;
    if (!oom_model_visit_first(m, &mm->free_entered, b))
        return false;
    TSNode v = b->value;
    if (b->kind == OOM_BIND_UNPACK) { /* `zt, t = zt.to(x.dtype), t.to(x.dtype)` */
        int element = unpack_index(m, v, b->name, b->name_len);
        v = element >= 0 ? returned_element(m, v, element) : (TSNode){0};
        if (ts_node_is_null(v) || ts_node_eq(v, b->value))
            return false;
    }
    if (!made_without_history(m, v, (TSNode){0}, depth + 1))
        return false;
    oom_model_visit_first(m, &mm->free_proved, b);
    return true;
}

/* A name each of whose bindings reaching it gives a value made without
 * history (or was made under no_grad). */
static bool name_made_without_history(const oom_pymodel *m, TSNode id, TSNode comp, int depth)
{
    if (comprehension_variable(m, id, comp))
        return true;
    if (read_without_grad(m, id))
        return true;
    oom_flow_reach r;
    const oom_binding *only = NULL;
    if (!oom_model_reaching_bindings(m, id, &r)) {
        only = binding_read_at(m, id);
        r.count = only ? 1 : 0;
    }
    if (r.count == 0 || r.count > OOM_FLOW_MAX_REACH)
        return false;
    for (uint32_t i = 0; i < r.count; i++) {
        const oom_binding *b = only ? only : oom_model_def_binding(m, r.defs[i]);
        if (!b || ts_node_is_null(b->value) || (b->kind != OOM_BIND_VALUE && b->kind != OOM_BIND_UNPACK))
            return false;
        if (!binding_made_without_history(m, b, depth))
            return false;
    }
    return true;
}

/* Positive evidence that `e` has no autograd history: literals, `.detach()`,
 * `.tolist()`, Python numbers, torch's creation functions, and what is made
 * from those only. A parameter, a model call, anything not followed: no. */
static bool made_without_history(const oom_pymodel *m, TSNode e, TSNode comp, int depth)
{
    if (depth > 24 || ts_node_is_null(e))
        return false;
    const char *type = ts_node_type(e);
    TSSymbol s = ts_node_symbol(e);
    if (strcmp(type, "none") == 0 || strcmp(type, "integer") == 0 || strcmp(type, "float") == 0 ||
        strcmp(type, "string") == 0 || strcmp(type, "true") == 0 || strcmp(type, "false") == 0 ||
        strcmp(type, "comparison_operator") == 0)
        return true;
    if (s == m->sym.identifier)
        return name_made_without_history(m, e, comp, depth);
    if (s == m->sym.call)
        return call_made_without_history(m, e, comp, depth);
    if (s == m->sym.attribute) {
        uint32_t len;
        const char *attr = oom_node_text(m, oom_model_child(m, e, "attribute", 9), &len);
        if (attr && oom_model_text_in(attr, len, oom_model_history_free_attributes))
            return true; /* x.device, x.shape */
        return !oom_node_text_is(m, oom_model_child(m, e, "object", 6), "self") &&
               made_without_history(m, oom_model_child(m, e, "object", 6), comp, depth + 1);
    }
    if (strcmp(type, "subscript") == 0)
        return made_without_history(m, oom_model_child(m, e, "value", 5), comp, depth + 1) &&
               all_children_without_history(m, e, comp, depth); /* quantiles[:-1] */
    if (strcmp(type, "list_comprehension") == 0 || strcmp(type, "generator_expression") == 0 ||
        strcmp(type, "dictionary_comprehension") == 0 || strcmp(type, "set_comprehension") == 0)
        return comprehension_without_history(m, e, depth);
    if (strcmp(type, "binary_operator") == 0 || strcmp(type, "unary_operator") == 0 ||
        strcmp(type, "parenthesized_expression") == 0 || strcmp(type, "list") == 0 ||
        strcmp(type, "tuple") == 0 || strcmp(type, "expression_list") == 0 || strcmp(type, "slice") == 0 ||
        strcmp(type, "dictionary") == 0 || strcmp(type, "pair") == 0 || strcmp(type, "list_splat") == 0)
        return all_children_without_history(m, e, comp, depth);
    return false;
}

/* Element `index` (-1: all) of every value the forward at `scope` returns
 * is made without history (`return loss, {"batchwise_loss": floats}` for
 * element 1). No return, or one the model cannot see into, is "has
 * history": a forward's output has a graph. */
static bool forward_returns_history_free(const oom_pymodel *m, int scope, int index)
{
    oom_model_visit_begin(&((oom_pymodel *)m)->free_entered);
    oom_model_visit_begin(&((oom_pymodel *)m)->free_proved);
    bool some = false;
    for (size_t i = 0; i < m->return_count; i++) {
        if (m->returns[i].scope != scope)
            continue;
        TSNode el = ts_node_is_null(m->returns[i].value) ? m->returns[i].value
                                                          : returned_element(m, m->returns[i].value, index);
        if (ts_node_is_null(el) || !made_without_history(m, el, (TSNode){0}, 0))
            return false;
        some = true;
    }
    return some;
}

/* A call of an instance of the file's own module class, or of a wrapper of
 * one (`loss, info = model_engine(x, c)`), whose forward gives element
 * `index` (-1: the whole result) without history. */
static bool own_instance_call_history_free(const oom_pymodel *m, TSNode call, int index)
{
    int forward = instance_forward_scope(m, oom_model_child(m, call, "function", 8), -1, 0);
    return forward >= 0 && forward_returns_history_free(m, forward, index);
}

/* A loss computed from predictions made where autograd was off
 * (`with torch.no_grad(): out = model(x)`, then `criterion(out, y)`): no
 * argument carries history and one is known to have none. A loss of
 * values the model cannot see into (a helper's parameters) is taken to
 * have history, as before. */
static bool loss_of_values_without_grad(const oom_pymodel *m, TSNode call, int depth)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
    bool some_without_grad = false;
    for (uint32_t i = 0; i < count; i++) {
        TSNode a = oom_model_named_child(m, args, i);
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            a = oom_model_child(m, a, "value", 5);
        if (ts_node_is_null(a))
            continue;
        if (carries(m, a, depth + 1))
            return false;
        some_without_grad = some_without_grad || derived_without_grad(m, a);
    }
    return some_without_grad;
}

static bool call_carries(const oom_pymodel *m, TSNode call, int depth)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn))
        return false;
    uint32_t len;
    if (ts_node_symbol(fn) == m->sym.attribute) {
        TSNode attr = oom_model_child(m, fn, "attribute", 9);
        TSNode obj = oom_model_child(m, fn, "object", 6);
        if (ts_node_is_null(attr) || ts_node_is_null(obj))
            return false;
        const char *method = oom_node_text(m, attr, &len);
        if (oom_model_text_in(method, len, history_free_methods))
            return false;
        if (oom_model_text_in(method, len, graph_returning_methods))
            return !own_function_returns_no_history(m, fn, depth);
        if (carries(m, obj, depth + 1))
            return true; /* loss.cpu(), logits.softmax(-1), out.float() keep the graph */
    }
    if (own_instance_call_history_free(m, call, -1))
        return false;
    if (oom_pymodel_is_model_call(m, call))
        return !(oom_model_bound_frozen(m, fn) || oom_pymodel_frozen_before(m, fn, call)) ||
               any_argument_carries(m, call, depth);
    if (own_function_returns_graph(m, fn, depth))
        return true;
    oom_buf q;
    oom_buf_init(&q);
    bool result = false;
    if (oom_pymodel_qualname(m, fn, &q)) {
        const char *last = strrchr(q.data, '.');
        last = last ? last + 1 : q.data;
        if (strchr(q.data, '.') == NULL && oom_model_text_in(q.data, strlen(q.data), history_free_builtins))
            result = false;
        else if (strcmp(q.data, "torch.autograd.grad") == 0)
            /* gradients have history only when asked to (second-order
             * methods: create_graph=True) */
            result = !ts_node_is_null(oom_pymodel_keyword_value(m, call, "create_graph")) &&
                     strcmp(ts_node_type(oom_pymodel_keyword_value(m, call, "create_graph")), "false") != 0;
        else if (is_loss_function(q.data) || oom_model_name_is_loss_like(last, strlen(last)))
            /* nn.CrossEntropyLoss() builds a module; self.D_loss(...) computes one */
            result = (!isupper((unsigned char)last[0]) || strchr(last, '_') != NULL) &&
                     !loss_of_values_without_grad(m, call, depth);
        else if (oom_str_starts_with(q.data, "torch.") &&
                 !oom_model_text_in(last, strlen(last), torch_history_free))
            result = any_argument_carries(m, call, depth);
        else if (names_a_functional_loss(last))
            /* a project's own wrapper of F's loss, under F's name
             * (`modules.cross_entropy(logits, target)` in fairseq): a loss of
             * its arguments, with their history */
            result = any_argument_carries(m, call, depth);
        else if (strcmp(q.data, "sum") == 0 || strcmp(q.data, "max") == 0 ||
                 strcmp(q.data, "min") == 0 || strcmp(q.data, "abs") == 0)
            result = any_argument_carries(m, call, depth);
    }
    oom_buf_free(&q);
    return result;
}

/* A value bound where autograd was off (`with torch.no_grad(): out = model(x)`)
 * has no history, wherever it is read later. */
static bool bound_without_grad(const oom_pymodel *m, const oom_binding *b)
{
    return b && b->kind != OOM_BIND_OPAQUE && !ts_node_is_null(b->value) &&
           oom_model_grad_state_at(m, ts_node_start_byte(b->value)) == OOM_GRAD_DISABLED;
}

static const oom_binding *binding_read_at(const oom_pymodel *m, TSNode id)
{
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    uint32_t pos = ts_node_start_byte(id);
    return oom_model_visible_binding(m, oom_model_scope_at(m, pos), name, len, pos, false);
}

/* Every binding that may reach `id` was made where autograd was off
 * (`with torch.no_grad(): out = model(x)`), on every path to it. */
static bool read_without_grad(const oom_pymodel *m, TSNode id)
{
    oom_flow_reach r;
    if (!oom_model_reaching_bindings(m, id, &r))
        return bound_without_grad(m, binding_read_at(m, id));
    for (uint32_t i = 0; i < r.count; i++)
        if (!bound_without_grad(m, oom_model_def_binding(m, r.defs[i])))
            return false;
    return true;
}

/* `outputs.loss`, `out["logits"][0]`, `out.logits.float()`: read from a
 * name bound under no_grad, so without history whatever is done to it. */
static bool derived_without_grad(const oom_pymodel *m, TSNode e)
{
    for (int depth = 0; depth < 16 && !ts_node_is_null(e); depth++) {
        TSSymbol s = ts_node_symbol(e);
        if (s == m->sym.identifier)
            return read_without_grad(m, e);
        if (s == m->sym.attribute)
            e = oom_model_child(m, e, "object", 6);
        else if (s == m->sym.call && ts_node_symbol(oom_model_child(m, e, "function", 8)) == m->sym.attribute)
            e = oom_model_child(m, oom_model_child(m, e, "function", 8), "object", 6);
        else if (strcmp(ts_node_type(e), "subscript") == 0)
            e = oom_model_child(m, e, "value", 5);
        else
            return false;
    }
    return false;
}

/* The position of `name` in the targets of `a, name, c = value` (the
 * assignment whose right side is `value`); -1 when not found. */
static int unpack_index(const oom_pymodel *m, TSNode value, const char *name, uint32_t len)
{
    TSNode assignment = oom_model_parent(m, value);
    TSNode left = ts_node_is_null(assignment) ? assignment : oom_model_child(m, assignment, "left", 4);
    uint32_t count = ts_node_is_null(left) ? 0 : ts_node_named_child_count(left);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t tlen;
        const char *t = oom_node_text(m, oom_model_named_child(m, left, i), &tlen);
        if (tlen == len && memcmp(t, name, len) == 0)
            return (int)i;
    }
    return -1;
}

/* `losses, report, n = self.step(batch)` where the file's own `step` returns
 * `loss, report, batch_size`: only the unpacked element's history counts. */
/* The name of a count: `datapoint_count`, `sample_size`, `num_tokens`,
 * `n_samples`, `ntokens`, `batch_size`. */
static bool names_a_count(const char *name, uint32_t len)
{
    static const char *const suffixes[] = {"count", "_size", "_samples", "_tokens", "ntokens", "nsentences", NULL};
    static const char *const prefixes[] = {"num_", "n_", NULL};
    for (size_t i = 0; suffixes[i]; i++)
        if (has_suffix(name, len, suffixes[i]))
            return true;
    for (size_t i = 0; prefixes[i]; i++)
        if (has_prefix(name, len, prefixes[i]))
            return true;
    return false;
}

/* `losses, chosen_rewards, rejected_rewards = self.dpo_loss(...)` in a
 * subclass of TRL's DPOTrainer that does not define `dpo_loss`: TRL's method
 * returns the rewards detached (`self.beta * (chosen_logps -
 * ref_chosen_logps).detach()`), so only the losses carry history. */
static bool inherited_dpo_loss(const oom_pymodel *m, TSNode fn)
{
    if (ts_node_symbol(fn) != m->sym.attribute ||
        !oom_node_text_is(m, oom_model_child(m, fn, "object", 6), "self") ||
        !oom_node_text_is(m, oom_model_child(m, fn, "attribute", 9), "dpo_loss"))
        return false;
    return !defined_by_def(m, "dpo_loss", 8) && oom_pymodel_is_import_alias(m, "DPOTrainer", 10);
}

static bool unpacked_call_carries(const oom_pymodel *m, const oom_binding *b, int depth)
{
    /* `loss, datapoint_count = model.forward_loss(batch)` (flair), `loss,
     * sample_size, logging_output = criterion(model, sample)` (fairseq): the
     * count beside the loss is a number of items, whatever the call returns
     * with it */
    if (names_a_count(b->name, b->name_len))
        return false;
    /* `result = self.step(b)` then `loss, n = result`: the call behind the name */
    TSNode call = oom_pymodel_value_of(m, b->value, 0);
    if (ts_node_is_null(call) || ts_node_symbol(call) != m->sym.call)
        return carries(m, b->value, depth + 1);
    TSNode fn = oom_model_child(m, call, "function", 8);
    int index = unpack_index(m, b->value, b->name, b->name_len);
    if (index >= 1 && inherited_dpo_loss(m, fn))
        return false;
    if (index >= 0 && own_instance_call_history_free(m, call, index))
        return false; /* `loss, info = model_engine(x, c)`: RF.forward's second element */
    for (size_t s = 1; s < m->scope_count && index >= 0; s++) {
        uint32_t len;
        const char *name = oom_node_last_name(m, fn, &len);
        if (name && m->scopes[s].name && m->scopes[s].name_len == len && memcmp(m->scopes[s].name, name, len) == 0)
            return own_function_returns_graph_at(m, fn, index, depth);
    }
    return carries(m, b->value, depth + 1);
}

/* The name the nearest binding above decides, as Python would resolve it
 * if every statement ran in order: for names the flow cannot answer for. */
static bool nearest_binding_carries(const oom_pymodel *m, TSNode id, int depth)
{
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    uint32_t pos = ts_node_start_byte(id);
    int scope = oom_model_scope_at(m, pos);
    const oom_binding *b = oom_model_visible_binding(m, scope, name, len, pos, false);
    if (bound_without_grad(m, b))
        return false;
    if (b && b->kind == OOM_BIND_VALUE && derived_without_grad(m, b->value))
        return false;
    if (oom_pymodel_is_backward_receiver(m, id))
        return true;
    if (!b || b->kind == OOM_BIND_OPAQUE)
        return false;
    if (b->kind == OOM_BIND_AUGMENTED) {
        TSNode right = oom_model_child(m, b->value, "right", 5);
        if (!ts_node_is_null(right) && carries(m, right, depth + 1))
            return true;
        /* `total += x.item()`: what total held before decides */
        const oom_binding *prior =
            oom_model_last_binding(m, b->scope, name, len, ts_node_start_byte(b->value), false);
        if (!prior || prior->kind == OOM_BIND_OPAQUE || prior == b)
            return false;
        return prior->kind != OOM_BIND_AUGMENTED && carries(m, prior->value, depth + 1);
    }
    if (b->kind == OOM_BIND_UNPACK)
        return unpacked_call_carries(m, b, depth);
    return carries(m, b->value, depth + 1);
}

/* A binding has no history to give: made under no_grad, or read from a
 * name that was (`loss = outputs.loss`, outputs bound under no_grad). */
static bool binding_without_history(const oom_pymodel *m, const oom_binding *b)
{
    return bound_without_grad(m, b) || (b && b->kind == OOM_BIND_VALUE && derived_without_grad(m, b->value));
}

static bool binding_carries(const oom_pymodel *m, const oom_binding *b, int depth);

/* Whether this question has looked at binding `b` already: a loop's
 * bindings reach each other, and each needs answering once. */
static bool seen_before(const oom_pymodel *m, const oom_binding *b)
{
    return !oom_model_visit_first(m, &((oom_pymodel *)m)->carry_visit, b);
}

/* `total += loss`: what `total` may have held before, on every path that
 * reaches the statement (itself too, around a loop). */
static bool augmented_prior_carries(const oom_pymodel *m, const oom_binding *b, int depth)
{
    TSNode left = oom_model_child(m, b->value, "left", 4);
    oom_flow_reach r;
    if (ts_node_is_null(left) || !oom_model_reaching_bindings(m, left, &r)) {
        const oom_binding *prior =
            oom_model_last_binding(m, b->scope, b->name, b->name_len, ts_node_start_byte(b->value), false);
        if (!prior || prior->kind == OOM_BIND_OPAQUE || prior == b)
            return false;
        return prior->kind != OOM_BIND_AUGMENTED && carries(m, prior->value, depth + 1);
    }
    for (uint32_t i = 0; i < r.count; i++)
        if (binding_carries(m, oom_model_def_binding(m, r.defs[i]), depth + 1))
            return true;
    return false;
}

static bool binding_carries(const oom_pymodel *m, const oom_binding *b, int depth)
{
    if (depth > OOM_MODEL_MAX_DEPTH || !b || b->kind == OOM_BIND_OPAQUE || binding_without_history(m, b) ||
        seen_before(m, b))
        return false;
    if (b->kind == OOM_BIND_AUGMENTED) {
        TSNode right = oom_model_child(m, b->value, "right", 5);
        if (!ts_node_is_null(right) && carries(m, right, depth + 1))
            return true;
        return augmented_prior_carries(m, b, depth);
    }
    if (b->kind == OOM_BIND_UNPACK)
        return unpacked_call_carries(m, b, depth);
    return carries(m, b->value, depth + 1);
}

/* A name carries history when any binding that may reach it does
 * (`loss = None` then `if x: loss = model(x).loss`; a name rebound under
 * no_grad in one branch only), and has none when every one of them was
 * made without grad. */
/* `out["loss"].backward()`, `outputs.loss.backward()` in the function that
 * reads `id`: a field of the name is backpropagated, so what the name holds
 * has history (backward() on a tensor without it raises). The receiver is
 * the name and field reads only: `out["loss"]`, `out.loss`, not a call. */
static bool field_backpropagated(const oom_pymodel *m, TSNode id)
{
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    int scope = oom_model_scope_at(m, ts_node_start_byte(id));
    for (size_t i = 0; i < m->backward_call_count; i++) {
        const oom_site *b = &m->backward_calls[i];
        const char *text = m->src + b->start;
        size_t n = b->end - b->start;
        if (b->scope != scope || n <= len + 11 || memcmp(text, name, len) != 0 ||
            (text[len] != '[' && text[len] != '.'))
            continue;
        const char *dot = memmem(text, n, ".backward(", 10);
        if (dot && dot > text + len && !memchr(text + len, '(', (size_t)(dot - text - len)))
            return true;
    }
    return false;
}

static bool identifier_carries(const oom_pymodel *m, TSNode id, int depth)
{
    oom_flow_reach r;
    if (!oom_model_reaching_bindings(m, id, &r))
        return nearest_binding_carries(m, id, depth);
    bool some_history = false;
    for (uint32_t i = 0; i < r.count && !some_history; i++)
        some_history = !binding_without_history(m, oom_model_def_binding(m, r.defs[i]));
    if (!some_history)
        return false;
    if (oom_pymodel_is_backward_receiver(m, id) || field_backpropagated(m, id))
        return true;
    for (uint32_t i = 0; i < r.count; i++)
        if (binding_carries(m, oom_model_def_binding(m, r.defs[i]), depth))
            return true;
    return false;
}

static bool any_child_carries(const oom_pymodel *m, TSNode e, int depth)
{
    uint32_t count = ts_node_named_child_count(e);
    for (uint32_t i = 0; i < count; i++)
        if (carries(m, oom_model_named_child(m, e, i), depth + 1))
            return true;
    return false;
}

static bool carries(const oom_pymodel *m, TSNode e, int depth)
{
    if (depth > OOM_MODEL_MAX_DEPTH || ts_node_is_null(e))
        return false;
    if (depth == 0) /* a new question: no binding looked at yet */
        oom_model_visit_begin(&((oom_pymodel *)m)->carry_visit);
    TSSymbol s = ts_node_symbol(e);
    if (s == m->sym.identifier)
        return identifier_carries(m, e, depth);
    if (s == m->sym.call)
        return call_carries(m, e, depth);
    uint32_t len;
    if (s == m->sym.attribute) {
        TSNode attr = oom_model_child(m, e, "attribute", 9);
        TSNode obj = oom_model_child(m, e, "object", 6);
        if (ts_node_is_null(attr) || ts_node_is_null(obj))
            return false;
        const char *name = oom_node_text(m, attr, &len);
        if (oom_model_text_in(name, len, oom_model_history_free_attributes))
            return false;
        if (oom_model_text_in(name, len, oom_model_output_fields) && !oom_node_text_is(m, obj, "self"))
            return ts_node_symbol(obj) != m->sym.identifier || !read_without_grad(m, obj);
        return carries(m, obj, depth + 1);
    }
    const char *type = ts_node_type(e);
    if (strcmp(type, "subscript") == 0) {
        TSNode value = oom_model_child(m, e, "value", 5);
        return carries(m, value, depth + 1);
    }
    if (strcmp(type, "binary_operator") == 0 || strcmp(type, "unary_operator") == 0 ||
        strcmp(type, "parenthesized_expression") == 0 || strcmp(type, "list") == 0 ||
        strcmp(type, "tuple") == 0 || strcmp(type, "expression_list") == 0 ||
        strcmp(type, "await") == 0 || strcmp(type, "list_splat") == 0)
        return any_child_carries(m, e, depth);
    if (strcmp(type, "conditional_expression") == 0) {
        /* a if cond else b: the condition's value is not the result */
        uint32_t count = ts_node_named_child_count(e);
        for (uint32_t i = 0; i < count; i++)
            if (i != 1 && carries(m, oom_model_named_child(m, e, i), depth + 1))
                return true;
        return false;
    }
    if (strcmp(type, "dictionary") == 0) {
        oom_model_kids kids = oom_model_kids_of(m, e);
        for (TSNode pair; oom_model_next_kid(m, &kids, &pair);) {
            if (carries(m, oom_model_child(m, pair, "value", 5), depth + 1))
                return true;
        }
        return false;
    }
    if (strcmp(type, "augmented_assignment") == 0)
        return carries(m, oom_model_child(m, e, "right", 5), depth + 1);
    if (s == m->sym.named_expression)
        return carries(m, oom_model_child(m, e, "value", 5), depth + 1);
    return false; /* literals, comparisons, comprehensions, lambdas ... */
}

bool oom_pymodel_carries_graph(const oom_pymodel *m, TSNode expr)
{
    return carries(m, expr, 0);
}

static TSNode argument_for(const oom_pymodel *m, TSNode args, const oom_accumulator *a)
{
    oom_model_kids kids = oom_model_kids_of(m, args);
    int positional = 0;
    for (TSNode arg; oom_model_next_kid(m, &kids, &arg);) {
        if (ts_node_symbol(arg) == m->sym.keyword_argument) {
            uint32_t nlen;
            const char *ntext = oom_node_text(m, oom_model_child(m, arg, "name", 4), &nlen);
            if (nlen == a->param_len && memcmp(ntext, a->param, nlen) == 0)
                return oom_model_child(m, arg, "value", 5);
        } else if (positional++ == a->index) {
            return arg;
        }
    }
    return (TSNode){0};
}

bool oom_pymodel_accumulates_graph(const oom_pymodel *m, TSNode call)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
        return false;
    uint32_t len;
    const char *method = oom_node_last_name(m, fn, &len);
    TSNode args = oom_model_child(m, call, "arguments", 9);
    if (!method || ts_node_is_null(args))
        return false;
    for (size_t i = 0; i < m->accumulator_count; i++) {
        const oom_accumulator *a = &m->accumulators[i];
        if (a->method_len != len || memcmp(a->method, method, len) != 0)
            continue;
        TSNode arg = argument_for(m, args, a);
        if (!ts_node_is_null(arg) && carries(m, arg, 0))
            return true;
    }
    return false;
}

bool oom_pymodel_has_accumulators(const oom_pymodel *m)
{
    return m->accumulator_count > 0;
}

size_t oom_pymodel_accumulator_count(const oom_pymodel *m)
{
    return m->accumulator_count;
}

void oom_pymodel_accumulator_at(const oom_pymodel *m, size_t i, const char **method, uint32_t *method_len,
                                const char **param, uint32_t *param_len, int *index)
{
    const oom_accumulator *a = &m->accumulators[i];
    *method = a->method;
    *method_len = a->method_len;
    *param = a->param;
    *param_len = a->param_len;
    *index = a->index;
}

static bool is_local_accumulator(const oom_pymodel *m, const char *method, uint32_t len)
{
    for (size_t i = 0; i < m->accumulator_count; i++)
        if (m->accumulators[i].method_len == len && memcmp(m->accumulators[i].method, method, len) == 0)
            return true;
    return false;
}

bool oom_pymodel_accumulation_candidate(const oom_pymodel *m, TSNode call, oom_buf *out)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
        return false;
    uint32_t len;
    const char *method = oom_node_last_name(m, fn, &len);
    TSNode args = oom_model_child(m, call, "arguments", 9);
    if (!method || ts_node_is_null(args) || is_local_accumulator(m, method, len) ||
        oom_model_text_in(method, len, history_free_methods) || oom_model_name_is_loss_like(method, len))
        return false;
    unsigned long mask = 0;
    oom_buf keywords;
    oom_buf_init(&keywords);
    oom_model_kids kids = oom_model_kids_of(m, args);
    int position = 0;
    for (TSNode arg; oom_model_next_kid(m, &kids, &arg);) {
        if (ts_node_symbol(arg) == m->sym.keyword_argument) {
            if (carries(m, oom_model_child(m, arg, "value", 5), 0)) {
                uint32_t nlen;
                const char *name = oom_node_text(m, oom_model_child(m, arg, "name", 4), &nlen);
                oom_buf_printf(&keywords, "%s%.*s", keywords.len ? "," : "", (int)nlen, name);
            }
        } else if (position < 32) {
            if (carries(m, arg, 0))
                mask |= 1ul << position;
            position++;
        }
    }
    bool any = mask != 0 || keywords.len > 0;
    if (any) {
        oom_buf_clear(out);
        oom_buf_printf(out, "%.*s\t%lu\t%s", (int)len, method, mask, keywords.len ? keywords.data : "");
    }
    oom_buf_free(&keywords);
    return any;
}

/* model/transient: a forward too small to matter, shown from the code,
 * never from a name: every tensor it is given is made right there by a
 * tensor factory of the library knowledge from literal sizes, small ones
 * (`torch.randn(1, 200, 80)`: a smoke test, a warm-up, a profiler's pass, a
 * gradient self-check, an export check), or by a tokenizer from written-out
 * text (`model(**tokenizer("Hello, my dog is", return_tensors="pt"))`). One forward on a few million
 * numbers holds less than a training step's batch. Whether the result is
 * kept does not matter: autograd holds the activations during the forward
 * itself, so a pass over real data whose output is dropped at once still
 * peaks as high as one that keeps it. An input the model cannot follow is
 * data, and the forward counts. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "oomlint/library.h"

/* The most elements a synthetic input may have: 4M (16 MB of float32). */
#define SYNTHETIC_MAX_ELEMENTS (4LL * 1024 * 1024)

static bool synthetic_tensor(const oom_pymodel *m, TSNode e, int depth);
static bool tokenized_literal(const oom_pymodel *m, TSNode call, const oom_library *lib);

static bool number_literal(TSNode e)
{
    return !ts_node_is_null(e) && (strcmp(ts_node_type(e), "integer") == 0 || strcmp(ts_node_type(e), "float") == 0);
}

/* An integer literal, its value in *out. */
static bool integer_literal(const oom_pymodel *m, TSNode e, long long *out)
{
    if (ts_node_is_null(e) || strcmp(ts_node_type(e), "integer") != 0)
        return false;
    uint32_t len;
    const char *t = oom_node_text(m, e, &len);
    char buf[24];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, t, len);
    buf[len] = '\0';
    char *end;
    long long v = strtoll(buf, &end, 0);
    if (*end || v < 0)
        return false;
    *out = v;
    return true;
}

/* Multiplies the sizes `e` gives (an integer, or a tuple or list of them)
 * into *elements; false for anything not written out. */
static bool literal_sizes(const oom_pymodel *m, TSNode e, long long *elements)
{
    long long v;
    if (integer_literal(m, e, &v)) {
        if (v > SYNTHETIC_MAX_ELEMENTS || *elements > SYNTHETIC_MAX_ELEMENTS / (v ? v : 1))
            return false;
        *elements *= v;
        return true;
    }
    if (ts_node_is_null(e) || (ts_node_symbol(e) != m->sym.tuple && strcmp(ts_node_type(e), "list") != 0))
        return false;
    oom_model_kids kids = oom_model_kids_of(m, e);
    for (TSNode k; oom_model_next_kid(m, &kids, &k);)
        if (!literal_sizes(m, k, elements))
            return false;
    return true;
}

/* `torch.zeros(1, 3, imgsz, imgsz)`, `torch.ones((1, 3, *size))`: sizes
 * whose first, the batch, is a literal 1 and that have more than one. The
 * others may be variables: a single sample (a warm-up image, a profiler's
 * input) holds less than any training batch of the same model. */
static bool one_sample_sizes(const oom_pymodel *m, TSNode call)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    TSNode first = {{0}, NULL, NULL};
    size_t count = 0;
    oom_model_kids kids = oom_model_kids_of(m, args);
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            continue;
        if (count++ == 0)
            first = a;
    }
    if (count == 1 && (ts_node_symbol(first) == m->sym.tuple || strcmp(ts_node_type(first), "list") == 0)) {
        count = ts_node_named_child_count(first);
        first = count ? oom_model_named_child(m, first, 0) : first;
    }
    long long batch;
    return count > 1 && integer_literal(m, first, &batch) && batch == 1;
}

/* `torch.randn(1, 200, 80)`, `torch.zeros((2, 3), dtype=...)`: a factory of
 * the library knowledge whose positional arguments are all literal sizes,
 * small in all (keywords such as dtype, device, requires_grad are free). */
static bool factory_call(const oom_pymodel *m, TSNode call, const oom_library *lib)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    oom_buf q;
    oom_buf_init(&q);
    bool factory = oom_pymodel_qualname(m, fn, &q) &&
                   oom_library_lists(&lib->synthetic_tensor_functions, q.data, (uint32_t)q.len);
    oom_buf_free(&q);
    if (!factory)
        return false;
    if (one_sample_sizes(m, call))
        return true;
    long long elements = 1;
    size_t sizes = 0;
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            continue;
        if (!literal_sizes(m, a, &elements))
            return false;
        sizes++;
    }
    return sizes > 0 && elements <= SYNTHETIC_MAX_ELEMENTS;
}

static bool binding_synthetic(const oom_pymodel *m, const oom_binding *b, void *ctx)
{
    int depth = *(const int *)ctx;
    return b && b->kind == OOM_BIND_VALUE && synthetic_tensor(m, b->value, depth + 1);
}

/* A name every binding of which, on every path that reaches it, is
 * synthetic; the nearest binding above where the flow cannot say. */
static bool synthetic_name(const oom_pymodel *m, TSNode id, int depth)
{
    int every = oom_model_every_reaching_binding(m, id, binding_synthetic, &depth);
    if (every >= 0)
        return every == 1;
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    uint32_t pos = ts_node_start_byte(id);
    const oom_binding *b = oom_model_visible_binding(m, oom_model_scope_at(m, pos), name, len, pos, false);
    return binding_synthetic(m, b, &depth);
}

/* A subscript that gives no more elements than it is given: indices that
 * are whole numbers, slices (whatever their bounds), None or `...`; an
 * index tensor could repeat rows, and is not one. */
static bool narrowing_subscript(const oom_pymodel *m, TSNode e)
{
    static const char *const kinds[] = {"integer", "slice", "none", "ellipsis", NULL};
    TSNode value = oom_model_child(m, e, "value", 5);
    size_t n = 0;
    oom_model_kids kids = oom_model_kids_of(m, e);
    for (TSNode k; oom_model_next_kid(m, &kids, &k);) {
        if (ts_node_eq(k, value))
            continue;
        if (strcmp(ts_node_type(k), "unary_operator") == 0) /* x[-1] */
            k = oom_model_child(m, k, "argument", 8);
        bool plain = false;
        for (size_t i = 0; kinds[i] && !plain; i++)
            plain = strcmp(ts_node_type(k), kinds[i]) == 0;
        if (!plain)
            return false;
        n++;
    }
    return n > 0;
}

/* A tensor made from literal sizes by a factory, moved by a placing method
 * or cast by a casting one or reshaped or not (`torch.zeros(1, 3, 640,
 * 640).to(device)`, `.type_as(weights)`, `.unsqueeze(0)`), indexed without
 * growing (`x[None]`), scaled by a number, a conditional both of whose arms
 * are, or a name bound so. */
static bool synthetic_tensor(const oom_pymodel *m, TSNode e, int depth)
{
    const oom_library *lib = oom_library_get();
    if (!lib || ts_node_is_null(e) || depth > OOM_MODEL_MAX_DEPTH)
        return false;
    TSSymbol s = ts_node_symbol(e);
    if (s == m->sym.identifier)
        return synthetic_name(m, e, depth);
    if (strcmp(ts_node_type(e), "parenthesized_expression") == 0)
        return synthetic_tensor(m, oom_model_named_child(m, e, 0), depth + 1);
    if (strcmp(ts_node_type(e), "binary_operator") == 0) {
        /* `torch.randn(1000, 1000) * 3.0`: scaled or shifted by a number */
        TSNode l = oom_model_child(m, e, "left", 4), r = oom_model_child(m, e, "right", 5);
        return (synthetic_tensor(m, l, depth + 1) && number_literal(r)) ||
               (number_literal(l) && synthetic_tensor(m, r, depth + 1));
    }
    if (strcmp(ts_node_type(e), "conditional_expression") == 0 && ts_node_named_child_count(e) == 3)
        /* `img.half() if half else img`: whichever arm runs */
        return synthetic_tensor(m, oom_model_named_child(m, e, 0), depth + 1) &&
               synthetic_tensor(m, oom_model_named_child(m, e, 2), depth + 1);
    if (strcmp(ts_node_type(e), "subscript") == 0) /* `x[None]`, `wav[:, :n]` */
        return narrowing_subscript(m, e) && synthetic_tensor(m, oom_model_child(m, e, "value", 5), depth + 1);
    if (s != m->sym.call)
        return false;
    if (factory_call(m, e, lib) || tokenized_literal(m, e, lib))
        return true;
    TSNode fn = oom_model_child(m, e, "function", 8);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
        return false;
    uint32_t len;
    const char *method = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
    return (oom_library_lists(&lib->placing_methods, method, len) || oom_library_lists(&lib->casting_methods, method, len) ||
            oom_library_lists(&lib->size_keeping_methods, method, len)) &&
           synthetic_tensor(m, oom_model_child(m, fn, "object", 6), depth + 1);
}

/* A string literal, or a list or tuple of them (`["a cat", "a dog"]`). */
static bool literal_strings(const oom_pymodel *m, TSNode e)
{
    if (ts_node_is_null(e))
        return false;
    const char *t = ts_node_type(e);
    if (strcmp(t, "string") == 0 || strcmp(t, "concatenated_string") == 0)
        return true;
    if (ts_node_symbol(e) != m->sym.tuple && strcmp(t, "list") != 0)
        return false;
    oom_model_kids kids = oom_model_kids_of(m, e);
    size_t n = 0;
    for (TSNode k; oom_model_next_kid(m, &kids, &k); n++)
        if (!literal_strings(m, k))
            return false;
    return n > 0;
}

/* `tokenizer("Hello, my dog is", return_tensors="pt")`: a tokenizer or
 * processor of the library knowledge (the name bound to its from_pretrained)
 * called on written-out text only: a hand-written prompt's few tokens. */
static bool tokenized_literal(const oom_pymodel *m, TSNode call, const oom_library *lib)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.identifier)
        return false;
    TSNode maker = oom_model_bound_value(m, fn);
    if (ts_node_is_null(maker) || ts_node_symbol(maker) != m->sym.call)
        return false;
    oom_buf q;
    oom_buf_init(&q);
    bool encoder = oom_pymodel_qualname(m, oom_model_child(m, maker, "function", 8), &q) &&
                   oom_qpattern_find(lib->text_encoders, lib->text_encoder_count, q.data) >= 0;
    oom_buf_free(&q);
    if (!encoder)
        return false;
    size_t texts = 0;
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            continue;
        if (!literal_strings(m, a))
            return false;
        texts++;
    }
    return texts > 0;
}

/* Python literals a forward may take beside its tensors (`mode="test"`). */
static bool plain_literal(TSNode e)
{
    static const char *const kinds[] = {"integer", "float", "string", "true", "false", "none", NULL};
    for (size_t i = 0; kinds[i]; i++)
        if (strcmp(ts_node_type(e), kinds[i]) == 0)
            return true;
    return false;
}

static bool synthetic_inputs_only(const oom_pymodel *m, TSNode call)
{
    size_t tensors = 0;
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            a = oom_model_child(m, a, "value", 5);
        else if (!ts_node_is_null(a) && strcmp(ts_node_type(a), "dictionary_splat") == 0)
            a = oom_model_named_child(m, a, 0); /* model(**inputs) */
        if (ts_node_is_null(a))
            return false;
        if (plain_literal(a))
            continue;
        if (!synthetic_tensor(m, a, 0))
            return false;
        tensors++;
    }
    return tensors > 0;
}

bool oom_pymodel_forward_transient(const oom_pymodel *m, TSNode call)
{
    if (ts_node_is_null(call) || ts_node_symbol(call) != m->sym.call)
        return false;
    return synthetic_inputs_only(m, call);
}

/* model/build: the single pass over a Python tree (its nodes laid out in
 * document order, oomlint/nodes.h) that fills the model. The pass is a loop,
 * so deeply nested code cannot overflow the C stack. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "oomlint/kb.h"
#include "oomlint/lang.h"

static TSSymbol sym(const TSLanguage *lang, const char *name, bool named)
{
    return ts_language_symbol_for_name(lang, name, (uint32_t)strlen(name), named);
}

static TSFieldId field_id(const TSLanguage *l, const char *name)
{
    return oom_lang_field_id(l, name, (uint32_t)strlen(name));
}

static void init_fields(oom_py_symbols *s, const TSLanguage *l)
{
    s->f_alias = field_id(l, "alias");
    s->f_arguments = field_id(l, "arguments");
    s->f_attribute = field_id(l, "attribute");
    s->f_body = field_id(l, "body");
    s->f_condition = field_id(l, "condition");
    s->f_function = field_id(l, "function");
    s->f_left = field_id(l, "left");
    s->f_module_name = field_id(l, "module_name");
    s->f_name = field_id(l, "name");
    s->f_object = field_id(l, "object");
    s->f_parameters = field_id(l, "parameters");
    s->f_right = field_id(l, "right");
    s->f_superclasses = field_id(l, "superclasses");
    s->f_value = field_id(l, "value");
}

static void init_symbols(oom_py_symbols *s, const TSLanguage *l)
{
    init_fields(s, l);
    s->function_definition = sym(l, "function_definition", true);
    s->class_definition = sym(l, "class_definition", true);
    s->decorated_definition = sym(l, "decorated_definition", true);
    s->decorator = sym(l, "decorator", true);
    s->for_statement = sym(l, "for_statement", true);
    s->while_statement = sym(l, "while_statement", true);
    s->with_statement = sym(l, "with_statement", true);
    s->with_item = sym(l, "with_item", true);
    s->expression_statement = sym(l, "expression_statement", true);
    s->import_statement = sym(l, "import_statement", true);
    s->import_from_statement = sym(l, "import_from_statement", true);
    s->global_statement = sym(l, "global_statement", true);
    s->nonlocal_statement = sym(l, "nonlocal_statement", true);
    s->aliased_import = sym(l, "aliased_import", true);
    s->dotted_name = sym(l, "dotted_name", true);
    s->assignment = sym(l, "assignment", true);
    s->augmented_assignment = sym(l, "augmented_assignment", true);
    s->named_expression = sym(l, "named_expression", true);
    s->call = sym(l, "call", true);
    s->attribute = sym(l, "attribute", true);
    s->identifier = sym(l, "identifier", true);
    s->pattern_list = sym(l, "pattern_list", true);
    s->tuple_pattern = sym(l, "tuple_pattern", true);
    s->list_pattern = sym(l, "list_pattern", true);
    s->parameters = sym(l, "parameters", true);
    s->lambda = sym(l, "lambda", true);
    s->keyword_argument = sym(l, "keyword_argument", true);
    s->except_clause = sym(l, "except_clause", true);
    s->if_statement = sym(l, "if_statement", true);
    s->string = sym(l, "string", true);
    s->block = sym(l, "block", true);
    s->tuple = sym(l, "tuple", true);
    s->conditional_expression = sym(l, "conditional_expression", true);
    s->return_statement = sym(l, "return_statement", true);
}

/* Looking symbols up by name scans the grammar's whole symbol table; do it
 * once per process (thread-safe), not once per file. */
static oom_py_symbols cached_symbols;
static pthread_once_t symbols_once = PTHREAD_ONCE_INIT;

static void init_cached_symbols(void)
{
    init_symbols(&cached_symbols, oom_lang_grammar(OOM_LANG_PYTHON));
}

static const oom_py_symbols *python_symbols(void)
{
    pthread_once(&symbols_once, init_cached_symbols);
    return &cached_symbols;
}

/* ---- small helpers --------------------------------------------------- */

static inline TSNode field_of(const oom_pymodel *m, TSNode n, const char *name)
{
    return oom_model_child(m, n, name, (uint32_t)strlen(name));
}

static void add_alias(oom_pymodel *m, const char *local, size_t local_len, const char *qual,
                      size_t qual_len)
{
    oom_alias a = {oom_xstrndup(local, local_len), oom_xstrndup(qual, qual_len), 0};
    a.local_len = (uint32_t)strlen(a.local);
    OOM_PUSH(m->aliases, m->alias_count, m->alias_cap, a);
}

static void add_binding(oom_pymodel *m, int scope, TSNode name, uint32_t pos,
                        oom_bind_kind kind, TSNode value)
{
    oom_binding b;
    b.scope = scope;
    b.name = oom_node_text(m, name, &b.name_len);
    b.pos = pos;
    b.kind = kind;
    b.value = value;
    b.prev = m->scopes[scope].last_binding;
    m->scopes[scope].last_binding = (int)m->binding_count;
    OOM_PUSH(m->bindings, m->binding_count, m->binding_cap, b);
}

static void add_region(oom_pymodel *m, uint32_t start, uint32_t end, oom_grad_state st)
{
    oom_grad_region r = {start, end, st};
    OOM_PUSH(m->regions, m->region_count, m->region_cap, r);
}

/* ---- imports ----------------------------------------------------------- */

/* Deep-learning packages: a file that imports none of them (nor any module
 * of its own project) is no training code, and there `encoder`, `net` or
 * `generator` are codecs, networks and iterators, not models. */
static void note_ml_package(oom_pymodel *m, const char *dotted, uint32_t len)
{
    static const char *const packages[] = {
        "torch", "torchvision", "torchaudio", "torchtext", "transformers", "accelerate",
        "lightning", "pytorch_lightning", "lightning_fabric", "deepspeed", "peft", "trl", "timm",
        "diffusers", "sentence_transformers", "bitsandbytes", "flash_attn", "xformers", "apex",
        "megatron", "fairseq", "optimum", "vllm", "mmcv", "mmdet", "mmengine", "detectron2",
        "ultralytics", "composer", "jax", "flax", "tensorflow", "keras", "fastai", "ignite",
        "torchmetrics", "einops", "open_clip", "clip", "unsloth", NULL};
    uint32_t top = 0;
    while (top < len && dotted[top] != '.')
        top++;
    for (size_t i = 0; packages[i]; i++)
        if (strlen(packages[i]) == top && memcmp(packages[i], dotted, top) == 0)
            m->ml_imports = true;
}

/* `import a.b.c` binds `a`; `import a.b as c` binds `c` to a.b. */
static void visit_import(oom_pymodel *m, TSNode node)
{
    oom_model_kids kids = oom_model_kids_of(m, node);
    for (TSNode child; oom_model_next_kid(m, &kids, &child);) {
        uint32_t len;
        if (ts_node_symbol(child) == m->sym.aliased_import) {
            TSNode name = field_of(m, child, "name"), alias = field_of(m, child, "alias");
            if (ts_node_is_null(name) || ts_node_is_null(alias))
                continue;
            uint32_t alen;
            const char *a = oom_node_text(m, alias, &alen);
            const char *q = oom_node_text(m, name, &len);
            note_ml_package(m, q, len);
            add_alias(m, a, alen, q, len);
        } else if (ts_node_symbol(child) == m->sym.dotted_name) {
            const char *q = oom_node_text(m, child, &len);
            note_ml_package(m, q, len);
            uint32_t first = 0;
            while (first < len && q[first] != '.')
                first++;
            add_alias(m, q, first, q, first);
        }
    }
}

/* `from torch import no_grad as ng` binds ng to torch.no_grad. Relative
 * imports (`from . import x`) name project modules; they resolve to themselves. */
static void visit_import_from(oom_pymodel *m, TSNode node)
{
    TSNode module = field_of(m, node, "module_name");
    if (ts_node_is_null(module))
        return;
    if (ts_node_symbol(module) != m->sym.dotted_name) {
        m->ml_imports = true; /* a module of the project itself: it may be training code */
        return;
    }
    uint32_t mlen;
    const char *mod = oom_node_text(m, module, &mlen);
    note_ml_package(m, mod, mlen);
    oom_buf q;
    oom_buf_init(&q);
    oom_model_kids kids = oom_model_kids_of(m, node);
    for (TSNode child; oom_model_next_kid(m, &kids, &child);) {
        if (ts_node_eq(child, module))
            continue;
        TSNode name = child, alias = child;
        if (ts_node_symbol(child) == m->sym.aliased_import) {
            name = field_of(m, child, "name");
            alias = field_of(m, child, "alias");
        } else if (ts_node_symbol(child) != m->sym.dotted_name) {
            continue;
        }
        if (ts_node_is_null(name) || ts_node_is_null(alias))
            continue;
        uint32_t nlen, alen;
        const char *n = oom_node_text(m, name, &nlen);
        const char *a = oom_node_text(m, alias, &alen);
        oom_buf_clear(&q);
        oom_buf_append(&q, mod, mlen);
        oom_buf_putc(&q, '.');
        oom_buf_append(&q, n, nlen);
        add_alias(m, a, alen, q.data, q.len);
    }
    oom_buf_free(&q);
}

/* ---- bindings ---------------------------------------------------------- */

static void bind_target(oom_pymodel *m, int scope, TSNode target, uint32_t pos,
                        TSNode value, bool unpack)
{
    TSSymbol s = ts_node_symbol(target);
    if (s == m->sym.identifier) {
        add_binding(m, scope, target, pos, unpack ? OOM_BIND_UNPACK : OOM_BIND_VALUE, value);
        return;
    }
    if (s == m->sym.pattern_list || s == m->sym.tuple_pattern || s == m->sym.list_pattern) {
        oom_model_kids kids = oom_model_kids_of(m, target);
        for (TSNode el; oom_model_next_kid(m, &kids, &el);) {
            if (ts_node_symbol(el) == m->sym.identifier)
                add_binding(m, scope, el, pos, OOM_BIND_UNPACK, value);
        }
    }
}

static void visit_assignment(oom_pymodel *m, int scope, TSNode node)
{
    TSNode left = field_of(m, node, "left"), right = field_of(m, node, "right");
    if (ts_node_is_null(left) || ts_node_is_null(right))
        return;
    /* `a = b = value`: the inner assignment is visited on its own; both names
     * are bound to the innermost value. */
    while (ts_node_symbol(right) == m->sym.assignment) {
        TSNode next = field_of(m, right, "right");
        if (ts_node_is_null(next))
            return;
        right = next;
    }
    bind_target(m, scope, left, ts_node_end_byte(node), right, false);
}

/* The position of parameter `name` of `def f(self, a, b)` among those after
 * `self`; -1 when it is not one. */
static int parameter_index(oom_pymodel *m, TSNode fn, const char *name, uint32_t len)
{
    oom_model_kids kids = oom_model_kids_of(m, field_of(m, fn, "parameters"));
    for (TSNode p; kids.index < 64 && oom_model_next_kid(m, &kids, &p);) {
        if (ts_node_symbol(p) != m->sym.identifier && ts_node_named_child_count(p) > 0)
            p = oom_model_named_child(m, p, 0); /* typed or default: the name first */
        uint32_t plen;
        const char *pname = oom_node_text(m, p, &plen);
        if (plen == len && memcmp(pname, name, len) == 0)
            return (int)kids.index - 2; /* p is parameter kids.index - 1, self is 0 */
    }
    return -1;
}

/* `float(val)`, `val.item()`, `val.detach()`: what such a call returns has no
 * history, whatever its argument had. */
static bool strips_history(const oom_pymodel *m, TSNode call)
{
    static const char *const stripping[] = {"float", "int", "bool", "len", "item", "detach", "tolist", "numpy", NULL};
    TSNode fn = field_of(m, call, "function");
    uint32_t len;
    const char *name = oom_node_last_name(m, fn, &len);
    for (size_t i = 0; name && stripping[i]; i++)
        if (strlen(stripping[i]) == len && memcmp(stripping[i], name, len) == 0)
            return true;
    return false;
}

static void note_accumulator(oom_pymodel *m, int scope, TSNode node, TSNode left)
{
    if (scope <= 0 || !m->scopes[scope].name || !oom_node_text_is(m, field_of(m, left, "object"), "self"))
        return;
    TSNode fn = oom_model_parent(m, node);
    while (!ts_node_is_null(fn) && ts_node_symbol(fn) != m->sym.function_definition)
        fn = oom_model_parent(m, fn);
    TSNode right = field_of(m, node, "right");
    if (ts_node_is_null(fn) || ts_node_is_null(right))
        return;
    /* the parameters the right side reads: `val` in `val * n`, `val.sum()` */
    TSNode stack[64];
    int top = 0;
    stack[top++] = right;
    while (top > 0) {
        TSNode e = stack[--top];
        if (ts_node_symbol(e) == m->sym.identifier) {
            uint32_t len;
            const char *name = oom_node_text(m, e, &len);
            int index = parameter_index(m, fn, name, len);
            if (index >= 0) {
                oom_accumulator a = {m->scopes[scope].name, m->scopes[scope].name_len, name, len, index};
                OOM_PUSH(m->accumulators, m->accumulator_count, m->accumulator_cap, a);
            }
            continue;
        }
        if (ts_node_symbol(e) == m->sym.call && strips_history(m, e))
            continue; /* self.sum += float(val) * n adds a number */
        if (ts_node_symbol(e) == m->sym.attribute) { /* val.sum(): val, not sum */
            TSNode obj = field_of(m, e, "object");
            if (!ts_node_is_null(obj) && top < 64)
                stack[top++] = obj;
            continue;
        }
        oom_model_kids kids = oom_model_kids_of(m, e);
        for (TSNode kid; top < 64 && oom_model_next_kid(m, &kids, &kid);)
            stack[top++] = kid;
    }
}

static void visit_augmented(oom_pymodel *m, int scope, TSNode node)
{
    TSNode left = field_of(m, node, "left");
    if (!ts_node_is_null(left) && ts_node_symbol(left) == m->sym.identifier)
        add_binding(m, scope, left, ts_node_end_byte(node), OOM_BIND_AUGMENTED, node);
    else if (!ts_node_is_null(left) && ts_node_symbol(left) == m->sym.attribute)
        note_accumulator(m, scope, node, left);
}

/* `for loss_name, loss_val in losses.items():` each name is an element of
 * the iterable (a value with history when the container holds some). Targets
 * other than names (`for self.x in ...`, `for a[i] in ...`) bind nothing. */
static void bind_loop_targets(oom_pymodel *m, int scope, TSNode node, TSNode iterable, uint32_t pos, int depth)
{
    TSSymbol s = ts_node_symbol(node);
    if (s == m->sym.identifier) {
        add_binding(m, scope, node, pos, OOM_BIND_ITER, iterable);
        return;
    }
    if (depth > 8 || (s != m->sym.pattern_list && s != m->sym.tuple_pattern && s != m->sym.list_pattern))
        return;
    oom_model_kids kids = oom_model_kids_of(m, node);
    for (TSNode kid; kids.index < 64 && oom_model_next_kid(m, &kids, &kid);)
        bind_loop_targets(m, scope, kid, iterable, pos, depth + 1);
}

static void bind_opaque_names(oom_pymodel *m, int scope, TSNode node, uint32_t pos)
{
    TSSymbol s = ts_node_symbol(node);
    if (s == m->sym.identifier) {
        TSNode none = {{0}, NULL, NULL};
        add_binding(m, scope, node, pos, OOM_BIND_OPAQUE, none);
        return;
    }
    oom_model_kids kids = oom_model_kids_of(m, node);
    for (TSNode child; kids.index < 64 && oom_model_next_kid(m, &kids, &child);) {
        TSSymbol cs = ts_node_symbol(child);
        if (cs == m->sym.identifier || cs == m->sym.pattern_list || cs == m->sym.tuple_pattern)
            bind_opaque_names(m, scope, child, pos);
        else if (ts_node_named_child_count(child) > 0) {
            /* typed or default parameters: the name is the first identifier */
            TSNode first = oom_model_named_child(m, child, 0);
            if (ts_node_symbol(first) == m->sym.identifier)
                bind_opaque_names(m, scope, first, pos);
        }
    }
}

/* ---- calls ------------------------------------------------------------- */

/* Records the names (and `self.x` attributes) the backward expression reads:
 * `loss`, and in `(ce + kl).backward()` or `torch.stack(losses).sum()` each of
 * `ce`, `kl`, `losses`. */
static void push_backward_target(oom_pymodel *m, int scope, TSNode n, bool direct)
{
    if (ts_node_is_null(n))
        return;
    TSSymbol s = ts_node_symbol(n);
    if (s == m->sym.identifier || (s == m->sym.attribute && oom_node_text_is(m, field_of(m, n, "object"), "self"))) {
        oom_name_ref ref;
        ref.scope = scope;
        ref.direct = direct && s == m->sym.identifier;
        ref.name = oom_node_text(m, n, &ref.name_len);
        OOM_PUSH(m->backward_targets, m->backward_count, m->backward_cap, ref);
        return;
    }
    if (s == m->sym.lambda)
        return;
    if (s == m->sym.attribute) { /* x.sum: the object, not the method's name */
        push_backward_target(m, scope, field_of(m, n, "object"), false);
        return;
    }
    if (s == m->sym.call) {
        push_backward_target(m, scope, field_of(m, n, "function"), false);
        push_backward_target(m, scope, field_of(m, n, "arguments"), false);
        return;
    }
    oom_model_kids kids = oom_model_kids_of(m, n);
    for (TSNode kid; kids.index < 64 && oom_model_next_kid(m, &kids, &kid);)
        push_backward_target(m, scope, kid, false);
}

static TSNode first_positional(const oom_pymodel *m, TSNode call)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    TSNode none = {{0}, NULL, NULL};
    if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0)
        return none;
    return oom_model_named_child(m, args, 0);
}

/* The names that `.backward()` is about: loss.backward(),
 * scaler.scale(loss).backward(), accelerator.backward(loss),
 * torch.autograd.backward(loss). Both the receiver and the first argument are
 * recorded; over-recording only makes the rules that ask quieter. */
static void record_backward(oom_pymodel *m, int scope, TSNode call, TSNode fn)
{
    TSNode object = field_of(m, fn, "object");
    TSNode argument = first_positional(m, call);
    /* accelerator.backward(loss): the tensor is the argument, the receiver
     * is a helper object that carries no graph itself */
    uint32_t rlen;
    const char *rname = oom_node_last_name(m, object, &rlen);
    bool receiver_is_tensor = ts_node_is_null(argument) || ts_node_symbol(argument) == m->sym.keyword_argument ||
                              (rname && oom_model_name_is_loss_like(rname, rlen));
    if (!ts_node_is_null(object) && ts_node_symbol(object) == m->sym.call)
        push_backward_target(m, scope, first_positional(m, object), true);
    else
        push_backward_target(m, scope, object, receiver_is_tensor);
    if (!ts_node_is_null(argument) && ts_node_symbol(argument) != m->sym.keyword_argument)
        push_backward_target(m, scope, argument, true);
}

static bool is_false_literal(const oom_pymodel *m, TSNode n)
{
    return oom_node_text_is(m, n, "False") || oom_node_text_is(m, n, "0");
}

static void record_mode_marker(oom_pymodel *m, int scope, TSNode call, TSNode receiver,
                               bool is_eval_call)
{
    TSNode args = field_of(m, call, "arguments");
    bool is_eval = is_eval_call;
    if (!is_eval_call && !ts_node_is_null(args) && ts_node_named_child_count(args) == 1) {
        TSNode arg = oom_model_named_child(m, args, 0);
        if (ts_node_symbol(arg) == m->sym.keyword_argument)
            arg = field_of(m, arg, "value");
        if (!ts_node_is_null(arg) && is_false_literal(m, arg))
            is_eval = true; /* model.train(False) is model.eval() */
        else if (!ts_node_is_null(arg) && !oom_node_text_is(m, arg, "True"))
            return; /* train(mode) with an unknown mode: no marker */
    }
    if (is_eval_call && !ts_node_is_null(args) && ts_node_named_child_count(args) > 0)
        return; /* eval(expr) is Python's builtin or something else */
    oom_mode_marker mk = {scope, ts_node_end_byte(call), is_eval, NULL, 0};
    mk.receiver = oom_node_text(m, receiver, &mk.receiver_len);
    OOM_PUSH(m->markers, m->marker_count, m->marker_cap, mk);
}

static void add_site(oom_site **arr, size_t *len, size_t *cap, int scope, TSNode n)
{
    oom_site site = {scope, ts_node_start_byte(n), ts_node_end_byte(n)};
    OOM_PUSH(*arr, *len, *cap, site);
}

/* A string literal whose value starts with "cuda" ("cuda", "cuda:1"). */
static bool is_cuda_string(const oom_pymodel *m, TSNode n)
{
    if (ts_node_is_null(n) || ts_node_symbol(n) != m->sym.string)
        return false;
    uint32_t len;
    const char *t = oom_node_text(m, n, &len);
    while (len > 0 && *t != '"' && *t != '\'') { /* skip a prefix such as f or r */
        t++;
        len--;
    }
    return len >= 5 && memcmp(t + 1, "cuda", 4) == 0;
}

/* An expression naming a CUDA device: "cuda:0", torch.device("cuda"),
 * "cuda" if torch.cuda.is_available() else "cpu", or a name bound to one. */
static bool is_cuda_device_expr(oom_pymodel *m, TSNode e, int depth)
{
    if (ts_node_is_null(e) || depth > 8)
        return false;
    if (is_cuda_string(m, e))
        return true;
    TSSymbol s = ts_node_symbol(e);
    if (s == m->sym.conditional_expression) {
        oom_model_kids kids = oom_model_kids_of(m, e);
        for (TSNode kid; oom_model_next_kid(m, &kids, &kid);)
            if (kids.index != 2 && is_cuda_device_expr(m, kid, depth + 1)) /* not the condition */
                return true;
        return false;
    }
    if (s == m->sym.call) {
        oom_buf q;
        oom_buf_init(&q);
        bool device = oom_pymodel_qualname(m, field_of(m, e, "function"), &q) &&
                      strcmp(q.data, "torch.device") == 0;
        oom_buf_free(&q);
        return device && is_cuda_device_expr(m, first_positional(m, e), depth + 1);
    }
    if (s == m->sym.identifier) {
        uint32_t len;
        const char *name = oom_node_text(m, e, &len);
        uint32_t pos = ts_node_start_byte(e);
        for (size_t i = m->binding_count; i-- > 0;) {
            const oom_binding *b = &m->bindings[i];
            if (b->pos <= pos && b->name_len == len && memcmp(b->name, name, len) == 0)
                return b->kind == OOM_BIND_VALUE && is_cuda_device_expr(m, b->value, depth + 1);
        }
    }
    return false;
}

/* Calls that create a CUDA context: torch.cuda.* (but is_available),
 * x.cuda(), x.to("cuda..."), device="cuda..." on a factory. */
static bool initialises_cuda(oom_pymodel *m, TSNode call, TSNode fn, const char *qual)
{
    if (qual && oom_str_starts_with(qual, "torch.cuda.") &&
        strcmp(qual, "torch.cuda.is_available") != 0 && strcmp(qual, "torch.cuda.amp.autocast") != 0)
        return true;
    if (ts_node_symbol(fn) == m->sym.attribute) {
        TSNode attr = field_of(m, fn, "attribute");
        if (oom_node_text_is(m, attr, "cuda"))
            return true;
        if (oom_node_text_is(m, attr, "to") && is_cuda_device_expr(m, first_positional(m, call), 0))
            return true;
    }
    oom_model_kids kids = oom_model_kids_of(m, field_of(m, call, "arguments"));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument &&
            oom_node_text_is(m, field_of(m, a, "name"), "device") && is_cuda_device_expr(m, field_of(m, a, "value"), 0))
            return qual == NULL || strcmp(qual, "torch.device") != 0;
    }
    return false;
}

static void record_keywords(oom_pymodel *m, TSNode call)
{
    oom_model_kids kids = oom_model_kids_of(m, field_of(m, call, "arguments"));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) != m->sym.keyword_argument)
            continue;
        TSNode name = field_of(m, a, "name"), value = field_of(m, a, "value");
        if (ts_node_is_null(name) || ts_node_is_null(value))
            continue;
        oom_keyword k;
        k.name = oom_node_text(m, name, &k.name_len);
        k.value = value;
        OOM_PUSH(m->keywords, m->keyword_count, m->keyword_cap, k);
    }
}

/* from_pretrained("gpt2") or name = "gpt2"; from_pretrained(name) */
static void record_pretrained(oom_pymodel *m, int scope, TSNode call, TSNode fn)
{
    if (ts_node_symbol(fn) != m->sym.attribute || !oom_node_text_is(m, field_of(m, fn, "attribute"), "from_pretrained"))
        return;
    TSNode arg = first_positional(m, call);
    if (ts_node_is_null(arg)) {
        oom_model_kids kids = oom_model_kids_of(m, field_of(m, call, "arguments"));
        for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
            if (ts_node_symbol(a) == m->sym.keyword_argument &&
                oom_node_text_is(m, field_of(m, a, "name"), "pretrained_model_name_or_path"))
                arg = field_of(m, a, "value");
        }
    }
    if (!ts_node_is_null(arg) && ts_node_symbol(arg) == m->sym.keyword_argument)
        return;
    if (!ts_node_is_null(arg) && ts_node_symbol(arg) == m->sym.identifier) {
        uint32_t len;
        const char *name = oom_node_text(m, arg, &len);
        const oom_binding *b = oom_model_visible_binding(m, scope, name, len, ts_node_start_byte(arg), true);
        arg = b && b->kind == OOM_BIND_VALUE ? b->value : (TSNode){{0}, NULL, NULL};
    }
    oom_buf value;
    oom_buf_init(&value);
    bool seen = false; /* the same id in the same scope once; in two functions, twice */
    if (!ts_node_is_null(arg) && oom_pymodel_string_value(m, arg, &value) && value.len > 0)
        for (size_t i = 0; i < m->pretrained_ids.len && !seen; i++)
            seen = m->pretrained_scopes[i] == scope && strcmp(m->pretrained_ids.items[i], value.data) == 0;
    if (!ts_node_is_null(arg) && value.len > 0 && !seen) {
        size_t n = m->pretrained_ids.len;
        oom_strlist_push(&m->pretrained_ids, value.data);
        oom_grow((void **)&m->pretrained_scopes, &m->pretrained_scope_cap, n + 1, sizeof(int));
        m->pretrained_scopes[n] = scope;
    }
    oom_buf_free(&value);
}

static void note_call_facts(oom_pymodel *m, int scope, TSNode node, TSNode fn)
{
    oom_buf q;
    oom_buf_init(&q);
    const char *qual = oom_pymodel_qualname(m, fn, &q) ? q.data : NULL;
    if (initialises_cuda(m, node, fn, qual))
        add_site(&m->cuda_inits, &m->cuda_init_count, &m->cuda_init_cap, scope, node);
    if (qual && (strcmp(qual, "torch.autograd.grad") == 0 || strcmp(qual, "torch.autograd.backward") == 0))
        add_site(&m->backward_calls, &m->backward_call_count, &m->backward_call_cap, scope, node);
    /* the file-wide facts are asked only until they are known */
    if (qual && !m->distributed &&
        (oom_str_ends_with(qual, "init_process_group") || oom_str_ends_with(qual, "DistributedDataParallel") ||
         strcmp(qual, "accelerate.Accelerator") == 0 || strcmp(qual, "deepspeed.initialize") == 0 ||
         strcmp(qual, "torch.distributed.get_rank") == 0 ||
         strcmp(qual, "torch.distributed.get_world_size") == 0))
        m->distributed = true; /* one process per GPU: torchrun, accelerate, deepspeed */
    if (qual && !m->loads_lm_head &&
        (oom_model_is_lm_class_name(qual) || oom_str_ends_with(qual, "SFTTrainer")))
        m->loads_lm_head = true;
    if (qual && !m->loads_diffusion_model && oom_kb_is_diffusion_model_class(qual))
        m->loads_diffusion_model = true;
    oom_buf_free(&q);
    record_keywords(m, node);
    record_pretrained(m, scope, node, fn);
}

static void visit_call(oom_pymodel *m, int scope, TSNode node)
{
    TSNode fn = field_of(m, node, "function");
    if (ts_node_is_null(fn))
        return;
    note_call_facts(m, scope, node, fn);
    TSNode last = fn;
    if (ts_node_symbol(fn) == m->sym.attribute) {
        last = field_of(m, fn, "attribute");
        if (ts_node_is_null(last))
            return;
        if (oom_node_text_is(m, last, "backward")) {
            record_backward(m, scope, node, fn);
            add_site(&m->backward_calls, &m->backward_call_count, &m->backward_call_cap, scope, node);
        }
        else if (oom_node_text_is(m, last, "eval"))
            record_mode_marker(m, scope, node, field_of(m, fn, "object"), true);
        else if (oom_node_text_is(m, last, "train"))
            record_mode_marker(m, scope, node, field_of(m, fn, "object"), false);
    } else if (ts_node_symbol(fn) != m->sym.identifier) {
        return;
    }
    oom_call_site site;
    site.name = oom_node_text(m, last, &site.name_len);
    site.pos = ts_node_start_byte(node);
    site.node = node;
    site.fn = fn;
    OOM_PUSH(m->calls, m->call_count, m->call_cap, site);
}

/* ---- grad mode ----------------------------------------------------------- */

static void visit_with(oom_pymodel *m, TSNode node)
{
    TSNode body = field_of(m, node, "body");
    if (ts_node_is_null(body))
        return;
    /* with_statement > with_clause > with_item(value: expr) */
    TSNode clause = oom_model_named_child(m, node, 0);
    oom_model_kids kids = oom_model_kids_of(m, clause);
    for (TSNode item; oom_model_next_kid(m, &kids, &item);) {
        if (ts_node_symbol(item) != m->sym.with_item)
            continue;
        TSNode value = field_of(m, item, "value");
        if (ts_node_is_null(value))
            continue;
        if (ts_node_named_child_count(value) > 0 && ts_node_symbol(value) != m->sym.call &&
            ts_node_symbol(oom_model_named_child(m, value, 0)) == m->sym.call)
            value = oom_model_named_child(m, value, 0); /* `with no_grad() as ctx` */
        int state = oom_model_grad_switch(m, value);
        if (state >= 0)
            add_region(m, ts_node_start_byte(body), ts_node_end_byte(body),
                       (oom_grad_state)state);
    }
}

/* `stack.enter_context(torch.no_grad())` inside `with ExitStack() as stack:`
 * (detectron2's inference_on_dataset): the switch holds to the end of the
 * block the call stands in. */
static void note_enter_context(oom_pymodel *m, TSNode statement, TSNode call, TSNode fn)
{
    if (ts_node_symbol(fn) != m->sym.attribute || !oom_node_text_is(m, field_of(m, fn, "attribute"), "enter_context"))
        return;
    TSNode args = field_of(m, call, "arguments");
    if (ts_node_is_null(args) || ts_node_named_child_count(args) != 1)
        return;
    int state = oom_model_grad_switch(m, oom_model_named_child(m, args, 0));
    if (state < 0)
        return;
    /* the stack closes at the end of its `with` (an `if` may stand between) */
    TSNode block = oom_model_parent(m, statement), up = block;
    while (!ts_node_is_null(up) && ts_node_symbol(up) != m->sym.with_statement &&
           ts_node_symbol(up) != m->sym.function_definition)
        up = oom_model_parent(m, up);
    if (!ts_node_is_null(up) && ts_node_symbol(up) == m->sym.with_statement)
        block = up;
    if (!ts_node_is_null(block))
        add_region(m, ts_node_end_byte(statement), ts_node_end_byte(block), (oom_grad_state)state);
}

/* `torch.no_grad().__enter__()` as a statement (asteroid's eval scripts):
 * the context is entered and never left, so its mode holds for the rest of
 * the enclosing function (or module), as set_grad_enabled's does. The
 * switch it enters; -1 for any other statement. */
static int entered_switch(oom_pymodel *m, TSNode fn)
{
    if (ts_node_symbol(fn) != m->sym.attribute || !oom_node_text_is(m, field_of(m, fn, "attribute"), "__enter__"))
        return -1;
    TSNode object = field_of(m, fn, "object");
    return ts_node_is_null(object) ? -1 : oom_model_grad_switch(m, object);
}

/* `torch.set_grad_enabled(False)` as a statement switches grad off for the rest
 * of the enclosing function (or module). */
static void visit_expression_statement(oom_pymodel *m, int scope, TSNode node)
{
    TSNode expr = oom_model_named_child(m, node, 0);
    if (ts_node_is_null(expr) || ts_node_symbol(expr) != m->sym.call)
        return;
    TSNode fn = field_of(m, expr, "function");
    int entered = entered_switch(m, fn);
    if (entered >= 0) {
        add_region(m, ts_node_end_byte(node), m->scopes[scope].end, (oom_grad_state)entered);
        return;
    }
    oom_buf q;
    oom_buf_init(&q);
    bool is_switch = oom_pymodel_qualname(m, fn, &q) &&
                     (strcmp(q.data, "torch.set_grad_enabled") == 0 ||
                      strcmp(q.data, "torch.autograd.set_grad_enabled") == 0);
    oom_buf_free(&q);
    if (!is_switch) {
        note_enter_context(m, node, expr, fn);
        return;
    }
    int state = oom_model_grad_switch(m, expr);
    if (state >= 0)
        add_region(m, ts_node_end_byte(node), m->scopes[scope].end, (oom_grad_state)state);
}

static void visit_decorators(oom_pymodel *m, TSNode decorated, TSNode fn)
{
    oom_model_kids kids = oom_model_kids_of(m, decorated);
    for (TSNode dec; oom_model_next_kid(m, &kids, &dec);) {
        if (ts_node_symbol(dec) != m->sym.decorator)
            continue;
        TSNode expr = oom_model_named_child(m, dec, 0);
        if (ts_node_is_null(expr))
            continue;
        int state = oom_model_grad_switch(m, expr);
        if (state >= 0)
            add_region(m, ts_node_start_byte(fn), ts_node_end_byte(fn), (oom_grad_state)state);
    }
}

/* PyTorch Lightning runs these hooks with grad disabled. */
static bool is_lightning_no_grad_hook(const char *name, uint32_t len)
{
    static const char *const hooks[] = {"validation_step", "test_step", "predict_step", NULL};
    for (size_t i = 0; hooks[i]; i++)
        if (strlen(hooks[i]) == len && memcmp(hooks[i], name, len) == 0)
            return true;
    return false;
}

static bool is_method(const oom_pymodel *m, TSNode fn)
{
    TSNode parent = oom_model_parent(m, fn);
    if (!ts_node_is_null(parent) && ts_node_symbol(parent) == m->sym.decorated_definition)
        parent = oom_model_parent(m, parent);
    if (ts_node_is_null(parent))
        return false;
    TSNode owner = oom_model_parent(m, parent); /* block -> class_definition */
    return !ts_node_is_null(owner) && ts_node_symbol(owner) == m->sym.class_definition;
}

static bool name_ends_with(const char *name, uint32_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(name + len - n, suffix, n) == 0;
}

/* The class a method belongs to, or a null node. */
static TSNode owning_class(const oom_pymodel *m, TSNode fn)
{
    TSNode none = {{0}, NULL, NULL};
    if (!is_method(m, fn))
        return none;
    TSNode parent = oom_model_parent(m, fn);
    if (ts_node_symbol(parent) == m->sym.decorated_definition)
        parent = oom_model_parent(m, parent);
    return oom_model_parent(m, parent);
}

/* Whether a base of the class has a last name ending in one of suffixes. */
static bool has_base_ending(const oom_pymodel *m, TSNode cls, const char *const *suffixes)
{
    oom_model_kids kids = oom_model_kids_of(m, field_of(m, cls, "superclasses"));
    for (TSNode base; oom_model_next_kid(m, &kids, &base);) {
        uint32_t len;
        const char *name = oom_node_last_name(m, base, &len);
        for (size_t k = 0; name && suffixes[k]; k++)
            if (name_ends_with(name, len, suffixes[k]))
                return true;
    }
    return false;
}

/* A base that is one of torch.nn's containers or layers (`nn.Sequential`,
 * `nn.ModuleDict`, `nn.Linear`), aliases applied. */
static bool has_torch_nn_base(const oom_pymodel *m, TSNode cls)
{
    oom_model_kids kids = oom_model_kids_of(m, field_of(m, cls, "superclasses"));
    bool found = false;
    oom_buf q;
    oom_buf_init(&q);
    for (TSNode base; !found && oom_model_next_kid(m, &kids, &base);) {
        if (ts_node_symbol(base) != m->sym.attribute && ts_node_symbol(base) != m->sym.identifier)
            continue;
        if (!oom_pymodel_qualname(m, base, &q) || !oom_str_starts_with(q.data, "torch.nn."))
            continue;
        const char *last = strrchr(q.data, '.') + 1;
        found = isupper((unsigned char)last[0]) && strchr(q.data + 9, '.') == NULL;
    }
    oom_buf_free(&q);
    return found;
}

/* The class body defines `def forward(self, ...)`. */
static bool defines_forward(const oom_pymodel *m, TSNode cls)
{
    oom_model_kids kids = oom_model_kids_of(m, field_of(m, cls, "body"));
    for (TSNode def; oom_model_next_kid(m, &kids, &def);) {
        if (ts_node_symbol(def) == m->sym.decorated_definition)
            def = field_of(m, def, "definition");
        if (!ts_node_is_null(def) && ts_node_symbol(def) == m->sym.function_definition &&
            oom_node_text_is(m, field_of(m, def, "name"), "forward"))
            return true;
    }
    return false;
}

/* class Head(nn.Module), class Net(pl.LightningModule), class M(PreTrainedModel):
 * a base whose last name ends in Module or Model makes the class model code.
 * So does a `forward` method: a module reached through the project's own
 * bases (`class SACPolicy(BasePolicy)`, BasePolicy an nn.Module elsewhere). */
static bool is_model_class(const oom_pymodel *m, TSNode cls)
{
    static const char *const model_bases[] = {"Module", "Model", NULL};
    return has_base_ending(m, cls, model_bases) || has_torch_nn_base(m, cls) || defines_forward(m, cls);
}

/* class TestDDP(unittest.TestCase), class _DistTestBase: a class of tests. */
static bool is_test_class(const oom_pymodel *m, TSNode cls)
{
    static const char *const test_bases[] = {"TestCase", NULL};
    TSNode name = field_of(m, cls, "name");
    uint32_t len = 0;
    const char *text = ts_node_is_null(name) ? NULL : oom_node_text(m, name, &len);
    return (text && memmem(text, len, "Test", 4) != NULL) || has_base_ending(m, cls, test_bases);
}

/* What a method's class says about its code: model code (the caller picks
 * the grad mode) or a unittest method (test* in a class of tests: a test, not
 * evaluation code). A script's own `def test(model, loader)`, a module-level
 * test_epoch() and Evaluator.test_accuracy() stay evaluation code. */
static void classify_method(oom_pymodel *m, TSNode fn, oom_scope *s)
{
    TSNode cls = owning_class(m, fn);
    if (ts_node_is_null(cls))
        return;
    if (m->method_class.id != cls.id || m->method_class.alias_count != m->alias_count) {
        m->method_class.id = cls.id;
        m->method_class.alias_count = m->alias_count;
        m->method_class.model = is_model_class(m, cls);
        m->method_class.test = is_test_class(m, cls);
    }
    s->model_method = m->method_class.model;
    s->test_code = m->method_class.test;
    s->unit_test = s->test_code && s->name && s->name_len > 4 && memcmp(s->name, "test", 4) == 0 &&
                   (s->name[4] == '_' || isupper((unsigned char)s->name[4]));
}

static int enter_function(oom_pymodel *m, int scope, TSNode node)
{
    TSNode name = field_of(m, node, "name");
    oom_scope s = {ts_node_start_byte(node), ts_node_end_byte(node), scope, NULL, 0, false, false, false, -1,
                   node, -1, NULL, 0, -1, -1};
    if (!ts_node_is_null(name))
        s.name = oom_node_text(m, name, &s.name_len);
    classify_method(m, node, &s);
    OOM_PUSH(m->scopes, m->scope_count, m->scope_cap, s);
    int inner = (int)m->scope_count - 1;
    TSNode parent = oom_model_parent(m, node);
    if (!ts_node_is_null(parent) && ts_node_symbol(parent) == m->sym.decorated_definition)
        visit_decorators(m, parent, node);
    if (s.name && is_lightning_no_grad_hook(s.name, s.name_len) && is_method(m, node))
        add_region(m, s.start, s.end, OOM_GRAD_DISABLED);
    TSNode params = field_of(m, node, "parameters");
    if (!ts_node_is_null(params))
        bind_opaque_names(m, inner, params, s.start);
    return inner;
}

/* The block of an except clause (its only non-field child). */
static TSNode except_block(const oom_pymodel *m, TSNode clause)
{
    TSNode block = {{0}, NULL, NULL};
    oom_model_kids kids = oom_model_kids_of(m, clause);
    for (TSNode c; oom_model_next_kid(m, &kids, &c);)
        if (ts_node_symbol(c) == m->sym.block)
            block = c; /* the last one */
    return block;
}

/* ---- the walk ------------------------------------------------------------ */

typedef struct {
    uint32_t end;
    int scope;
} scope_frame;

static bool catches_oom_type(oom_pymodel *m, TSNode value, bool *runtime_error)
{
    if (ts_node_symbol(value) == m->sym.tuple || strcmp(ts_node_type(value), "parenthesized_expression") == 0) {
        bool any = false;
        oom_model_kids kids = oom_model_kids_of(m, value);
        for (TSNode kid; oom_model_next_kid(m, &kids, &kid);)
            any |= catches_oom_type(m, kid, runtime_error);
        return any;
    }
    if (strcmp(ts_node_type(value), "as_pattern") == 0)
        return catches_oom_type(m, oom_model_named_child(m, value, 0), runtime_error);
    oom_buf q;
    oom_buf_init(&q);
    bool oom = false;
    if (oom_pymodel_qualname(m, value, &q)) {
        oom = oom_str_ends_with(q.data, "OutOfMemoryError") && oom_str_starts_with(q.data, "torch.");
        if (strcmp(q.data, "RuntimeError") == 0 || strcmp(q.data, "Exception") == 0 ||
            strcmp(q.data, "BaseException") == 0)
            *runtime_error = true;
    }
    oom_buf_free(&q);
    return oom;
}

/* The texts asked about are short (an `if` condition, a string literal of
 * a dozen bytes): a plain scan costs less than memmem's set-up. */
static bool text_contains(const oom_pymodel *m, TSNode n, const char *needle)
{
    uint32_t len;
    const char *t = oom_node_text(m, n, &len);
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= len; i++)
        if (t[i] == needle[0] && memcmp(t + i, needle, k) == 0)
            return true;
    return false;
}

static bool text_contains_ci(const oom_pymodel *m, TSNode n, const char *needle)
{
    uint32_t len;
    const char *t = oom_node_text(m, n, &len);
    size_t k = strlen(needle);
    for (uint32_t i = 0; i + k <= len; i++)
        if (strncasecmp(t + i, needle, k) == 0)
            return true;
    return false;
}

static void visit_except(oom_pymodel *m, TSNode node)
{
    TSNode body = except_block(m, node);
    if (ts_node_is_null(body))
        return;
    bool runtime_error = false, oom = false;
    oom_model_kids kids = oom_model_kids_of(m, node);
    for (TSNode child; oom_model_next_kid(m, &kids, &child);) {
        if (!ts_node_eq(child, body))
            oom |= catches_oom_type(m, child, &runtime_error);
    }
    if (!oom && runtime_error)
        oom = text_contains_ci(m, node, "out of memory") || text_contains_ci(m, node, "outofmemory");
    oom_handler h = {ts_node_start_byte(body), ts_node_end_byte(body), oom, 0, 0};
    TSNode try_stmt = oom_model_parent(m, node);
    TSNode try_body = ts_node_is_null(try_stmt) ? try_stmt : field_of(m, try_stmt, "body");
    if (!ts_node_is_null(try_body)) {
        h.try_start = ts_node_start_byte(try_body);
        h.try_end = ts_node_end_byte(try_body);
    }
    OOM_PUSH(m->handlers, m->handler_count, m->handler_cap, h);
}

static void visit_if(oom_pymodel *m, int scope, TSNode node)
{
    TSNode cond = field_of(m, node, "condition");
    if (ts_node_is_null(cond))
        return;
    const char *t = ts_node_type(cond);
    if (strcmp(t, "true") == 0 || strcmp(t, "false") == 0 || strcmp(t, "integer") == 0)
        return;
    /* `if __name__ == "__main__":` wraps whole scripts; it guards nothing */
    if (text_contains(m, cond, "__name__") && text_contains(m, cond, "__main__")) {
        m->main_guard = scope == 0;
        return;
    }
    add_site(&m->guards, &m->guard_count, &m->guard_cap, scope, node);
}

static void note_distributed_names(oom_pymodel *m, TSNode node, TSSymbol s)
{
    if (m->distributed)
        return; /* known already: the file's strings need not be searched */
    uint32_t len = ts_node_end_byte(node) - ts_node_start_byte(node);
    if (s == m->sym.identifier && len == 10 && oom_node_text_is(m, node, "local_rank"))
        m->distributed = true;
    else if (s == m->sym.string && len >= 12 && len <= 24 &&
             (text_contains(m, node, "LOCAL_RANK") || text_contains(m, node, "local_rank") ||
              text_contains(m, node, "local-rank") || text_contains(m, node, "WORLD_SIZE")))
        m->distributed = true; /* os.environ["LOCAL_RANK"], add_argument("--local_rank") */
}

static void visit(oom_pymodel *m, TSNode node, TSSymbol s, int scope)
{
    if (s == m->sym.identifier || s == m->sym.string) {
        note_distributed_names(m, node, s);
        return;
    }
    if (s == m->sym.except_clause)
        visit_except(m, node);
    else if (s == m->sym.if_statement)
        visit_if(m, scope, node);
    else if (s == m->sym.conditional_expression)
        add_site(&m->guards, &m->guard_count, &m->guard_cap, scope, node);
    if (s == m->sym.call)
        visit_call(m, scope, node);
    else if (s == m->sym.assignment)
        visit_assignment(m, scope, node);
    else if (s == m->sym.augmented_assignment)
        visit_augmented(m, scope, node);
    else if (s == m->sym.named_expression) {
        TSNode name = field_of(m, node, "name"), value = field_of(m, node, "value");
        if (!ts_node_is_null(name) && !ts_node_is_null(value))
            add_binding(m, scope, name, ts_node_end_byte(node), OOM_BIND_VALUE, value);
    } else if (s == m->sym.for_statement || s == m->sym.while_statement) {
        TSNode body = field_of(m, node, "body");
        if (!ts_node_is_null(body)) {
            oom_loop l = {ts_node_start_byte(body), ts_node_end_byte(body), scope,
                          s == m->sym.for_statement ? field_of(m, node, "right") : (TSNode){{0}, NULL, NULL}};
            OOM_PUSH(m->loops, m->loop_count, m->loop_cap, l);
        }
        TSNode left = field_of(m, node, "left"), right = field_of(m, node, "right");
        if (!ts_node_is_null(left) && !ts_node_is_null(right))
            bind_loop_targets(m, scope, left, right, ts_node_start_byte(node), 0);
        else if (!ts_node_is_null(left))
            bind_opaque_names(m, scope, left, ts_node_start_byte(node));
    } else if (s == m->sym.with_statement)
        visit_with(m, node);
    else if (s == m->sym.expression_statement)
        visit_expression_statement(m, scope, node);
    else if (s == m->sym.import_statement)
        visit_import(m, node);
    else if (s == m->sym.return_statement && scope > 0 &&
             ts_node_named_child_count(node) > 0)
    {
        oom_return r = {scope, oom_model_named_child(m, node, 0)};
        OOM_PUSH(m->returns, m->return_count, m->return_cap, r);
    }
    else if (s == m->sym.import_from_statement)
        visit_import_from(m, node);
    else if ((s == m->sym.global_statement || s == m->sym.nonlocal_statement) && scope > 0) {
        oom_site d = {scope, ts_node_start_byte(node), ts_node_end_byte(node)};
        OOM_PUSH(m->declarations, m->declaration_count, m->declaration_cap, d);
    }
}

/* Every node in document order, with the function scope it is in. */
static void walk(oom_pymodel *m, const oom_nodes *nodes)
{
    scope_frame *stack = NULL;
    size_t depth = 0, cap = 0;
    scope_frame top = {m->scopes[0].end, 0};
    OOM_PUSH(stack, depth, cap, top);
    for (uint32_t i = 0; i < nodes->len; i++) {
        TSNode node = nodes->items[i].node;
        uint32_t start = nodes->items[i].start;
        m->at = i;
        while (depth > 1 && start >= stack[depth - 1].end)
            depth--;
        int scope = stack[depth - 1].scope;
        if (nodes->items[i].symbol == m->sym.function_definition) {
            scope_frame f = {ts_node_end_byte(node), enter_function(m, scope, node)};
            OOM_PUSH(stack, depth, cap, f);
        } else {
            visit(m, node, nodes->items[i].symbol, scope);
        }
    }
    free(stack);
}

/* `runner = partial(run_one, policy=policy)` (functools.partial, by any
 * import): calling `runner` calls `run_one`. The function's name (the
 * first argument), or null. */
static TSNode partial_target(const oom_pymodel *m, const oom_binding *b)
{
    TSNode none = {{0}, NULL, NULL};
    if (b->kind != OOM_BIND_VALUE || ts_node_is_null(b->value) || ts_node_symbol(b->value) != m->sym.call)
        return none;
    TSNode callee = oom_model_child(m, b->value, "function", 8);
    uint32_t len;
    const char *last = ts_node_is_null(callee) ? NULL : oom_node_last_name(m, callee, &len);
    if (!last || len != 7 || memcmp(last, "partial", 7) != 0)
        return none;
    TSNode args = oom_model_child(m, b->value, "arguments", 9);
    if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0)
        return none;
    TSNode first = oom_model_named_child(m, args, 0);
    return ts_node_symbol(first) == m->sym.identifier ? first : none;
}

typedef struct {
    const oom_binding *alias; /* runner */
    const char *target;       /* run_one */
    uint32_t target_len;
} partial_alias;

static partial_alias *find_partial_aliases(const oom_pymodel *m, size_t *count)
{
    partial_alias *out = NULL;
    size_t n = 0, cap = 0;
    for (size_t b = 0; b < m->binding_count; b++) {
        TSNode t = partial_target(m, &m->bindings[b]);
        if (ts_node_is_null(t))
            continue;
        partial_alias a = {&m->bindings[b], NULL, 0};
        a.target = oom_node_text(m, t, &a.target_len);
        OOM_PUSH(out, n, cap, a);
    }
    *count = n;
    return out;
}

static int compare_names(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
    if (alen != blen)
        return alen < blen ? -1 : 1;
    return memcmp(a, b, alen);
}

static int by_callee_name(const void *a, const void *b)
{
    const oom_call_site *x = *(const oom_call_site *const *)a, *y = *(const oom_call_site *const *)b;
    return compare_names(x->name, x->name_len, y->name, y->name_len);
}

/* The first of the `count` sites sorted by callee name whose name is not
 * before `name`. */
static size_t first_call_named(const oom_call_site *const *sorted, size_t count, const char *name, uint32_t len)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (compare_names(sorted[mid]->name, sorted[mid]->name_len, name, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The calls of `name` outside function s: how many, and how many of them
 * stand where grad is off. */
static void count_calls(const oom_pymodel *m, const oom_scope *s, const oom_call_site *const *sorted,
                        const char *name, uint32_t len, size_t *calls, size_t *quiet)
{
    for (size_t c = first_call_named(sorted, m->call_count, name, len);
         c < m->call_count && compare_names(sorted[c]->name, sorted[c]->name_len, name, len) == 0; c++) {
        const oom_call_site *site = sorted[c];
        if (site->pos >= s->start && site->pos < s->end)
            continue; /* recursion says nothing */
        (*calls)++;
        *quiet += oom_model_grad_state_at(m, site->pos) != OOM_GRAD_ENABLED;
    }
}

/* Whether every call of function s in this file, outside s itself, runs
 * without grad (and there is one); a call through a `partial` of it counts
 * as its call. */
static bool called_only_without_grad(const oom_pymodel *m, const oom_scope *s, const oom_call_site *const *sorted,
                                     const partial_alias *aliases, size_t alias_count)
{
    size_t calls = 0, quiet = 0;
    count_calls(m, s, sorted, s->name, s->name_len, &calls, &quiet);
    for (size_t a = 0; a < alias_count; a++)
        if (compare_names(aliases[a].target, aliases[a].target_len, s->name, s->name_len) == 0)
            count_calls(m, s, sorted, aliases[a].alias->name, aliases[a].alias->name_len, &calls, &quiet);
    return calls > 0 && quiet == calls;
}

/* A function all of whose calls in this file run without grad runs without
 * grad too: `with torch.no_grad(): evaluate(model)`. Repeated until nothing
 * changes, a few rounds at most (helpers of helpers of helpers). Each
 * function finds its calls among the sites sorted by name, not by reading
 * every call in the file. */
#define NO_GRAD_ROUNDS 8
static void propagate_no_grad_to_callees(oom_pymodel *m)
{
    if (m->scope_count < 2 || m->call_count == 0)
        return;
    const oom_call_site **sorted = oom_xmalloc(m->call_count * sizeof *sorted);
    for (size_t c = 0; c < m->call_count; c++)
        sorted[c] = &m->calls[c];
    qsort(sorted, m->call_count, sizeof *sorted, by_callee_name);
    size_t alias_count;
    partial_alias *aliases = find_partial_aliases(m, &alias_count);
    for (int round = 0; round < NO_GRAD_ROUNDS; round++) {
        size_t regions_before = m->region_count;
        for (size_t i = 1; i < m->scope_count; i++) {
            const oom_scope *s = &m->scopes[i];
            if (!s->name || oom_model_grad_state_at(m, s->start) != OOM_GRAD_ENABLED)
                continue;
            if (called_only_without_grad(m, s, sorted, aliases, alias_count))
                add_region(m, s->start, s->end, OOM_GRAD_DISABLED);
        }
        if (m->region_count == regions_before)
            break;
    }
    free(aliases);
    free(sorted);
}

/* In a file that imports pytest, module-level `def test_...` functions are
 * tests, not evaluation code (unittest methods are marked as they are met). */
static void mark_pytest_functions(oom_pymodel *m)
{
    if (!oom_pymodel_is_import_alias(m, "pytest", 6))
        return;
    for (size_t i = 1; i < m->scope_count; i++) {
        oom_scope *s = &m->scopes[i];
        if (s->parent == 0 && s->name && s->name_len > 4 && memcmp(s->name, "test", 4) == 0 &&
            (s->name[4] == '_' || isupper((unsigned char)s->name[4])))
            s->unit_test = s->test_code = true;
    }
}

oom_pymodel *oom_pymodel_build_from(const oom_nodes *nodes, const char *src, size_t len)
{
    oom_pymodel *m = oom_xcalloc(1, sizeof(*m));
    m->src = src;
    m->len = len;
    m->root = nodes->items[0].node;
    m->nodes = nodes;
    m->sym = *python_symbols();
    oom_scope module = {0, (uint32_t)len, -1, NULL, 0, false, false, false, -1, {{0}, NULL, NULL}, 0, NULL, 0, -1, 0};
    OOM_PUSH(m->scopes, m->scope_count, m->scope_cap, module);
    walk(m, nodes);
    m->calls_in_order = true;
    for (size_t i = 1; i < m->call_count && m->calls_in_order; i++)
        m->calls_in_order = m->calls[i - 1].pos <= m->calls[i].pos;
    mark_pytest_functions(m);
    propagate_no_grad_to_callees(m);
    m->trains = -1;
    m->converts = -1;
    m->infers = -1;
    return m;
}

oom_pymodel *oom_pymodel_build(const TSTree *tree, const char *src, size_t len)
{
    oom_nodes nodes;
    oom_nodes_init(&nodes);
    oom_nodes_build(&nodes, ts_tree_root_node(tree));
    oom_pymodel *m = oom_pymodel_build_from(&nodes, src, len);
    /* the model keeps the layout: the flow questions walk it */
    m->own_nodes = nodes;
    m->nodes = &m->own_nodes;
    return m;
}

void oom_pymodel_free(oom_pymodel *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->alias_count; i++) {
        free(m->aliases[i].local);
        free(m->aliases[i].qualified);
    }
    free(m->aliases);
    free(m->scopes);
    free(m->loops);
    free(m->regions);
    free(m->bindings);
    free(m->markers);
    free(m->backward_targets);
    free(m->calls);
    free(m->cuda_inits);
    free(m->backward_calls);
    free(m->handlers);
    free(m->guards);
    free(m->accumulators);
    free(m->returns);
    free(m->declarations);
    free(m->keywords);
    oom_strlist_free(&m->pretrained_ids);
    free(m->pretrained_scopes);
    oom_model_flow_free(m);
    oom_model_roles_free(m);
    if (m->nodes == &m->own_nodes)
        oom_nodes_free(&m->own_nodes);
    free(m->carry_visit.seen);
    free(m->device_visit.seen);
    free(m->host_visit.seen);
    free(m->host_function_visit.seen);
    free(m->free_entered.seen);
    free(m->free_proved.seen);
    free(m);
}

/* model/facts: questions about the file as a whole and about positions that
 * the rule pack asks: arguments, CUDA initialisation, handlers, guards. */
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "oomlint/kb.h"
#include "oomlint/lang.h"
#include "internal.h"

bool oom_pymodel_in_function_matching(const oom_pymodel *m, TSNode node, const void *code)
{
    int scope = oom_model_scope_at(m, ts_node_start_byte(node));
    const oom_scope *s = &m->scopes[scope];
    if (!s->name)
        return false;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
    int rc = pcre2_match(code, (PCRE2_SPTR)s->name, s->name_len, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

static bool text_eq(const char *a, uint32_t alen, const char *b)
{
    return strlen(b) == alen && memcmp(a, b, alen) == 0;
}

bool oom_pymodel_has_argument(const oom_pymodel *m, TSNode call, const char *name, int position)
{
    TSNode args = call;
    if (ts_node_symbol(call) == m->sym.call)
        args = oom_model_child(m, call, "arguments", 9);
    if (ts_node_is_null(args))
        return false;
    int positional = 0;
    oom_model_kids kids = oom_model_kids_of(m, args);
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        const char *type = ts_node_type(a);
        if (strcmp(type, "dictionary_splat") == 0)
            return true; /* **kwargs may carry it */
        if (strcmp(type, "list_splat") == 0 && position >= 0)
            return true;
        if (ts_node_symbol(a) == m->sym.keyword_argument) {
            uint32_t len;
            const char *n = oom_node_text(m, oom_model_child(m, a, "name", 4), &len);
            if (text_eq(n, len, name))
                return true;
            continue;
        }
        if (strcmp(type, "comment") != 0)
            positional++;
    }
    return position >= 0 && positional > position;
}

bool oom_pymodel_cuda_initialized_before(const oom_pymodel *m, TSNode node)
{
    uint32_t pos = ts_node_start_byte(node);
    int scope = oom_model_scope_at(m, pos);
    for (size_t i = 0; i < m->cuda_init_count; i++)
        if (m->cuda_inits[i].scope == scope && m->cuda_inits[i].end <= pos)
            return true;
    return false;
}

bool oom_pymodel_is_distributed(const oom_pymodel *m)
{
    return m->distributed;
}

bool oom_pymodel_is_last_backward(const oom_pymodel *m, TSNode call)
{
    uint32_t start = ts_node_start_byte(call), end = ts_node_end_byte(call);
    int scope = oom_model_scope_at(m, start);
    uint32_t loop_end = 0;
    uint32_t best_start = 0;
    for (size_t i = 0; i < m->loop_count; i++) {
        const oom_loop *l = &m->loops[i];
        if (l->scope == scope && start >= l->start && start < l->end && l->start >= best_start) {
            best_start = l->start;
            loop_end = l->end;
        }
    }
    for (size_t i = 0; i < m->backward_call_count; i++) {
        const oom_site *b = &m->backward_calls[i];
        if (b->scope == scope && b->start >= end && b->start < loop_end)
            return false;
    }
    return true;
}

static bool in_sites(const oom_site *sites, size_t count, uint32_t pos)
{
    for (size_t i = 0; i < count; i++)
        if (pos >= sites[i].start && pos < sites[i].end)
            return true;
    return false;
}

bool oom_pymodel_in_guard(const oom_pymodel *m, TSNode node)
{
    return in_sites(m->guards, m->guard_count, ts_node_start_byte(node));
}

bool oom_pymodel_in_loop_guard(const oom_pymodel *m, TSNode node)
{
    uint32_t pos = ts_node_start_byte(node);
    int scope = oom_model_scope_at(m, pos);
    uint32_t loop_start = UINT32_MAX;
    for (size_t i = 0; i < m->loop_count; i++) {
        const oom_loop *l = &m->loops[i];
        if (l->scope == scope && pos >= l->start && pos < l->end &&
            (loop_start == UINT32_MAX || l->start > loop_start))
            loop_start = l->start;
    }
    if (loop_start == UINT32_MAX)
        return false;
    for (size_t i = 0; i < m->guard_count; i++)
        if (m->guards[i].start >= loop_start && pos >= m->guards[i].start && pos < m->guards[i].end)
            return true;
    return false;
}

/* Whether `e` holds a modulo (`i % log_every_t`, `not step % 100`). */
static bool has_modulo(const oom_pymodel *m, TSNode e, int depth)
{
    if (ts_node_is_null(e) || depth > 8)
        return false;
    if (strcmp(ts_node_type(e), "binary_operator") == 0) {
        TSNode op = oom_model_child(m, e, "operator", 8);
        if (!ts_node_is_null(op) && strcmp(ts_node_type(op), "%") == 0)
            return true;
    }
    oom_model_kids kids = oom_model_kids_of(m, e);
    for (TSNode k; oom_model_next_kid(m, &kids, &k);)
        if (has_modulo(m, k, depth + 1))
            return true;
    return false;
}

/* Inside an `if` of the innermost loop whose condition takes a modulo
 * (`if index % log_every_t == 0 or index == total_steps - 1:`): the body
 * runs every k-th iteration, a periodic snapshot (latent-diffusion's DDIM
 * intermediates), not every iteration. Only the if's body counts, not its
 * condition; the walk stops at the loop. */
bool oom_pymodel_in_periodic_guard(const oom_pymodel *m, TSNode node)
{
    TSNode child = node;
    for (TSNode up = oom_model_parent(m, node); !ts_node_is_null(up); up = oom_model_parent(m, up)) {
        TSSymbol s = ts_node_symbol(up);
        if (s == m->sym.for_statement || s == m->sym.while_statement || s == m->sym.function_definition)
            return false;
        if (strcmp(ts_node_type(up), "if_statement") == 0) {
            TSNode cond = oom_model_child(m, up, "condition", 9);
            if (!ts_node_is_null(cond) && !ts_node_eq(cond, child) && has_modulo(m, cond, 0))
                return true;
        }
        child = up;
    }
    return false;
}

bool oom_pymodel_in_handler(const oom_pymodel *m, TSNode node, bool oom_only)
{
    uint32_t pos = ts_node_start_byte(node);
    for (size_t i = 0; i < m->handler_count; i++) {
        const oom_handler *h = &m->handlers[i];
        if (pos >= h->start && pos < h->end && (!oom_only || h->catches_oom))
            return true;
    }
    return false;
}

/* Callees a retry is made of: a function of the script (`run_model(1)`,
 * `self.train_step(b)`), not a library helper, builtin or context manager. */
static bool is_retryable_callee(const oom_pymodel *m, TSNode fn)
{
    static const char *const noise[] = {"print", "len", "range", "int", "float", "str", "list",
                                        "dict", "tuple", "zip", "enumerate", "isinstance", "getattr",
                                        "setattr", "hasattr", "min", "max", "sum", "iter", "next",
                                        "autocast", "nullcontext", "super", "type", NULL};
    if (ts_node_symbol(fn) == m->sym.attribute && !oom_node_text_is(m, oom_model_child(m, fn, "object", 6), "self"))
        return false;
    uint32_t len;
    const char *name = oom_node_last_name(m, fn, &len);
    if (!name)
        return false;
    for (size_t i = 0; noise[i]; i++)
        if (text_eq(name, len, noise[i]))
            return false;
    /* what a handler does instead of retrying: log, clean up, skip, re-raise */
    static const char *const upkeep[] = {"log", "logger", "warn", "warning", "info", "debug", "error",
                                         "print", "zero", "grad", "empty", "cache", "collect", "clear",
                                         "reset", "cleanup", "free", "release", "skip", "record", "report",
                                         "save", "barrier", "synchronize", "raise", "exception", "del", NULL};
    return !oom_name_has_word(name, len, upkeep);
}

bool oom_pymodel_is_retry_call(const oom_pymodel *m, TSNode call)
{
    if (!is_retryable_callee(m, oom_model_child(m, call, "function", 8)))
        return false;
    oom_buf q;
    oom_buf_init(&q);
    bool library = oom_pymodel_qualname(m, oom_model_child(m, call, "function", 8), &q) &&
                   strchr(q.data, '.') != NULL && !oom_str_starts_with(q.data, "self.");
    oom_buf_free(&q);
    if (library)
        return false; /* from torch.cuda import empty_cache: an import, not the script's own */
    uint32_t pos = ts_node_start_byte(call);
    const oom_call_site *self = NULL;
    for (size_t i = 0; i < m->call_count && !self; i++)
        if (m->calls[i].pos == pos)
            self = &m->calls[i];
    if (!self)
        return false;
    for (size_t h = 0; h < m->handler_count; h++) {
        const oom_handler *hd = &m->handlers[h];
        if (!hd->catches_oom || pos < hd->start || pos >= hd->end)
            continue;
        for (size_t i = 0; i < m->call_count; i++) {
            const oom_call_site *c = &m->calls[i];
            if (c->pos >= hd->try_start && c->pos < hd->try_end && c->name_len == self->name_len &&
                memcmp(c->name, self->name, c->name_len) == 0)
                return true;
        }
    }
    return false;
}

size_t oom_pymodel_keyword_count(const oom_pymodel *m)
{
    return m->keyword_count;
}

void oom_pymodel_keyword(const oom_pymodel *m, size_t i, const char **name, size_t *name_len,
                         TSNode *value)
{
    *name = m->keywords[i].name;
    *name_len = m->keywords[i].name_len;
    *value = m->keywords[i].value;
}

const oom_strlist *oom_pymodel_pretrained_ids(const oom_pymodel *m)
{
    return &m->pretrained_ids;
}

bool oom_pymodel_pretrained_visible(const oom_pymodel *m, size_t i, TSNode node)
{
    if (i >= m->pretrained_ids.len)
        return false;
    /* the function itself or one around it (closures), or the module */
    for (int scope = oom_model_scope_at(m, ts_node_start_byte(node)); scope >= 0;
         scope = scope == 0 ? -1 : m->scopes[scope].parent)
        if (m->pretrained_scopes[i] == scope)
            return true;
    return false;
}

bool oom_pymodel_file_calls(const oom_pymodel *m, const char *name)
{
    for (size_t i = 0; i < m->call_count; i++)
        if (text_eq(m->calls[i].name, m->calls[i].name_len, name))
            return true;
    return false;
}

bool oom_pymodel_file_trains(const oom_pymodel *m)
{
    /* answered on the first question: most files are never asked. The model
     * belongs to the one thread that lints its file. */
    if (m->trains < 0)
        ((oom_pymodel *)m)->trains = oom_model_compute_trains(m);
    return m->trains;
}

static bool runs_models(const oom_pymodel *m)
{
    static const char *const running_calls[] = {"generate", "pipeline", "LLM", "evaluate", "predict", NULL};
    if (oom_pymodel_file_trains(m))
        return true;
    for (size_t i = 0; running_calls[i]; i++)
        if (oom_pymodel_file_calls(m, running_calls[i]))
            return true;
    for (size_t i = 0; i < m->call_count; i++)
        if (oom_pymodel_is_model_call(m, m->calls[i].node))
            return true;
    return false;
}

static bool compute_converts(const oom_pymodel *m)
{
    static const char *const saving_calls[] = {"save_pretrained", "merge_and_unload", "save_model",
                                               "save_file", "push_to_hub", NULL};
    if (!m->main_guard)
        return false;
    bool saves = false;
    for (size_t i = 0; saving_calls[i] && !saves; i++)
        saves = oom_pymodel_file_calls(m, saving_calls[i]);
    return saves && !runs_models(m);
}

bool oom_pymodel_only_converts_weights(const oom_pymodel *m)
{
    if (m->converts < 0) /* as file_trains: answered once, by the file's own thread */
        ((oom_pymodel *)m)->converts = compute_converts(m);
    return m->converts;
}

bool oom_pymodel_only_infers(const oom_pymodel *m)
{
    if (m->infers < 0) /* as file_trains: answered once, by the file's own thread */
        ((oom_pymodel *)m)->infers = runs_models(m) && !oom_pymodel_file_trains(m);
    return m->infers;
}

bool oom_model_compute_trains(const oom_pymodel *m)
{
    static const char *const training_calls[] = {"train", "fit", "Trainer", "Seq2SeqTrainer",
                                                  "SFTTrainer", "training_step", "backward", NULL};
    if (m->backward_call_count > 0)
        return true;
    for (size_t i = 0; training_calls[i]; i++)
        if (oom_pymodel_file_calls(m, training_calls[i]))
            return true;
    for (size_t i = 0; i < m->scope_count; i++) /* a LightningModule: the trainer calls it */
        if (m->scopes[i].name && text_eq(m->scopes[i].name, m->scopes[i].name_len, "training_step"))
            return true;
    return false;
}

bool oom_pymodel_file_has_keyword(const oom_pymodel *m, const char *name, const char *value)
{
    for (size_t i = 0; i < m->keyword_count; i++) {
        const oom_keyword *k = &m->keywords[i];
        if (!text_eq(k->name, k->name_len, name))
            continue;
        if (!value)
            return true;
        uint32_t len;
        const char *v = oom_node_text(m, k->value, &len);
        if (text_eq(v, len, value))
            return true;
    }
    return false;
}

/* ---- Trainer with a language-modelling head ----------------------------------------- */

bool oom_model_is_lm_class_name(const char *q)
{
    return oom_task_has_vocab_logits(oom_kb_head_of_class(q));
}

static bool is_lm_model_expr(const oom_pymodel *m, TSNode e, int depth)
{
    if (depth > 8 || ts_node_is_null(e))
        return false;
    if (ts_node_symbol(e) == m->sym.identifier) {
        uint32_t len;
        const char *name = oom_node_text(m, e, &len);
        uint32_t pos = ts_node_start_byte(e);
        int scope = oom_model_scope_at(m, pos);
        const oom_binding *b = oom_model_visible_binding(m, scope, name, len, pos, true);
        return b && b->kind == OOM_BIND_VALUE && is_lm_model_expr(m, b->value, depth + 1);
    }
    if (ts_node_symbol(e) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, e, "function", 8);
    if (ts_node_is_null(fn))
        return false;
    if (ts_node_symbol(fn) == m->sym.attribute) {
        /* model.to(device), get_peft_model(model, cfg) keep the head */
        TSNode attr = oom_model_child(m, fn, "attribute", 9);
        if (oom_node_text_is(m, attr, "to") || oom_node_text_is(m, attr, "cuda"))
            return is_lm_model_expr(m, oom_model_child(m, fn, "object", 6), depth + 1);
    }
    oom_buf q;
    oom_buf_init(&q);
    bool lm = oom_pymodel_qualname(m, fn, &q) && oom_model_is_lm_class_name(q.data);
    if (!lm && q.len && oom_str_ends_with(q.data, "get_peft_model")) {
        TSNode args = oom_model_child(m, e, "arguments", 9);
        if (!ts_node_is_null(args) && ts_node_named_child_count(args) > 0)
            lm = is_lm_model_expr(m, oom_model_named_child(m, args, 0), depth + 1);
    }
    oom_buf_free(&q);
    return lm;
}

bool oom_pymodel_is_lm_trainer(const oom_pymodel *m, TSNode call)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    if (ts_node_is_null(args))
        return false;
    TSNode model = {{0}, NULL, NULL};
    oom_model_kids kids = oom_model_kids_of(m, args);
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument) {
            if (oom_node_text_is(m, oom_model_child(m, a, "name", 4), "model"))
                model = oom_model_child(m, a, "value", 5);
        } else if (kids.index == 1 && ts_node_is_null(model)) { /* the first argument */
            model = a;
        }
    }
    if (ts_node_is_null(model))
        return false;
    /* SFTTrainer(model="facebook/opt-350m"): a hub id of a causal LM */
    if (ts_node_symbol(model) == m->sym.string)
        return true;
    return is_lm_model_expr(m, model, 0);
}

bool oom_pymodel_in_test_code(const oom_pymodel *m, TSNode node)
{
    for (int s = oom_model_scope_at(m, ts_node_start_byte(node)); s > 0; s = m->scopes[s].parent)
        if (m->scopes[s].test_code)
            return true;
    return false;
}

static bool has_prefix_n(const char *s, uint32_t len, const char *p)
{
    size_t n = strlen(p);
    return len >= n && memcmp(s, p, n) == 0;
}

/* A method of a model class that is its forward, not a Lightning hook
 * (the training loop's body). */
static bool forward_method(const oom_pymodel *m, int scope)
{
    if (scope <= 0 || !m->scopes[scope].model_method || !m->scopes[scope].name)
        return false;
    const char *name = m->scopes[scope].name;
    uint32_t len = m->scopes[scope].name_len;
    /* Lightning's hooks are the training loop's body, not a forward */
    bool hook = (len >= 5 && memcmp(name + len - 5, "_step", 5) == 0) || has_prefix_n(name, len, "on_") ||
                has_prefix_n(name, len, "training") || has_prefix_n(name, len, "validation") ||
                has_prefix_n(name, len, "test") || has_prefix_n(name, len, "predict");
    return !hook;
}

typedef bool (*scope_test)(const oom_pymodel *m, int scope);

/* The file calls the function of scope `sc` somewhere, and every call of it
 * stands in a scope that `holds`. */
static bool every_call_in(const oom_pymodel *m, const oom_scope *sc, scope_test holds)
{
    size_t calls = 0;
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->name_len != sc->name_len || memcmp(c->name, sc->name, sc->name_len) != 0)
            continue;
        if (!holds(m, oom_model_scope_at(m, c->pos)))
            return false;
        calls++;
    }
    return calls > 0;
}

/* A module-level function every call of which in the file stands in a
 * model's forward (lerobot's `compute_layer_complete`, the layer body its
 * forward runs, through gradient checkpointing or directly): part of the
 * forward too. */
static bool only_called_from_forward(const oom_pymodel *m, const oom_scope *sc)
{
    return every_call_in(m, sc, forward_method);
}

/* @staticmethod / @classmethod: no instance, so none of the module's
 * tensors (thop's `count_flops(model, x, y)` hook). */
static bool without_instance(const oom_pymodel *m, int scope)
{
    TSNode def = m->scopes[scope].def;
    TSNode dec = ts_node_is_null(def) ? def : oom_model_parent(m, def);
    if (ts_node_is_null(dec) || ts_node_symbol(dec) != m->sym.decorated_definition)
        return false;
    uint32_t n = ts_node_named_child_count(dec);
    for (uint32_t i = 0; i < n; i++) {
        TSNode d = ts_node_named_child(dec, i);
        if (ts_node_symbol(d) != m->sym.decorator)
            continue;
        uint32_t len;
        const char *t = oom_node_text(m, d, &len);
        if ((len == 13 && memcmp(t, "@staticmethod", 13) == 0) || (len == 12 && memcmp(t, "@classmethod", 12) == 0))
            return true;
    }
    return false;
}

static bool constructor_scope(const oom_pymodel *m, int scope)
{
    return scope > 0 && m->scopes[scope].name && m->scopes[scope].name_len == 8 &&
           memcmp(m->scopes[scope].name, "__init__", 8) == 0;
}

/* A model's computation, its constructor and instance-free methods aside. */
static bool computing_method(const oom_pymodel *m, int scope)
{
    return forward_method(m, scope) && !constructor_scope(m, scope) && !without_instance(m, scope);
}

bool oom_pymodel_in_computation(const oom_pymodel *m, TSNode node)
{
    int scope = oom_model_scope_at(m, ts_node_start_byte(node));
    if (scope > 0 && without_instance(m, scope))
        return false;
    /* a method every call of which (`self.check_norms()`) stands in the
     * constructor is part of building the module */
    if (forward_method(m, scope))
        return !constructor_scope(m, scope) && !every_call_in(m, &m->scopes[scope], constructor_scope);
    if (scope <= 0 || m->scopes[scope].parent != 0 || !m->scopes[scope].name)
        return false;
    /* a module-level helper every call of which stands in that computation */
    return every_call_in(m, &m->scopes[scope], computing_method);
}

bool oom_pymodel_in_forward_code(const oom_pymodel *m, TSNode node)
{
    int scope = oom_model_scope_at(m, ts_node_start_byte(node));
    if (forward_method(m, scope))
        return true;
    if (scope <= 0 || m->scopes[scope].parent != 0 || !m->scopes[scope].name)
        return false;
    oom_scope *sc = &((oom_pymodel *)m)->scopes[scope]; /* the answer, kept: one file's model, one thread */
    if (sc->forward_helper < 0)
        sc->forward_helper = only_called_from_forward(m, sc);
    return sc->forward_helper;
}

const char *oom_pymodel_function_at(const oom_pymodel *m, uint32_t pos, uint32_t *len)
{
    for (int s = oom_model_scope_at(m, pos); s > 0; s = m->scopes[s].parent)
        if (m->scopes[s].name) {
            *len = m->scopes[s].name_len;
            return m->scopes[s].name;
        }
    *len = 0;
    return NULL;
}

size_t oom_pymodel_call_count(const oom_pymodel *m)
{
    return m->call_count;
}

const char *oom_pymodel_call_at(const oom_pymodel *m, size_t i, uint32_t *len, bool *grad_off)
{
    *len = m->calls[i].name_len;
    *grad_off = oom_model_grad_state_at(m, m->calls[i].pos) != OOM_GRAD_ENABLED;
    return m->calls[i].name;
}

const char *oom_pymodel_call_caller(const oom_pymodel *m, size_t i, uint32_t *len)
{
    int scope = oom_model_scope_at(m, m->calls[i].pos);
    /* the nearest enclosing function (a class body or a lambda is not one) */
    while (scope > 0 && (!m->scopes[scope].name || ts_node_is_null(m->scopes[scope].def) ||
                         ts_node_symbol(m->scopes[scope].def) != m->sym.function_definition))
        scope = m->scopes[scope].parent;
    if (scope <= 0) {
        *len = 0;
        return NULL;
    }
    *len = m->scopes[scope].name_len;
    return m->scopes[scope].name;
}

bool oom_pymodel_loads_lm_head(const oom_pymodel *m)
{
    return m->loads_lm_head;
}

/* ---- what the file's own functions do with a parameter ------------------------ */

#define PARAM_TRACE_NAMES 16
#define PARAM_TRACE_DEPTH 3

typedef struct {
    const char *name[PARAM_TRACE_NAMES];
    uint32_t len[PARAM_TRACE_NAMES];
    int count;
} traced_names;

static bool traced(const traced_names *t, const char *s, uint32_t len)
{
    for (int i = 0; i < t->count; i++)
        if (t->len[i] == len && memcmp(t->name[i], s, len) == 0)
            return true;
    return false;
}

static bool mentions_traced(const oom_pymodel *m, TSNode e, const traced_names *t, int depth)
{
    if (ts_node_is_null(e) || depth > 24)
        return false;
    if (ts_node_symbol(e) == m->sym.identifier) {
        uint32_t len;
        const char *s = oom_node_text(m, e, &len);
        return traced(t, s, len);
    }
    if (ts_node_symbol(e) == m->sym.attribute) /* `x.dtype` reads x; `self.dtype` is not the parameter */
        return mentions_traced(m, oom_model_child(m, e, "object", 6), t, depth + 1);
    if (ts_node_symbol(e) == m->sym.keyword_argument) /* `dtype=torch.int32` names no value */
        return mentions_traced(m, oom_model_child(m, e, "value", 5), t, depth + 1);
    oom_model_kids kids = oom_model_kids_of(m, e);
    for (TSNode k; oom_model_next_kid(m, &kids, &k);)
        if (mentions_traced(m, k, t, depth + 1))
            return true;
    return false;
}

/* The scope of a module-level function or a method this file defines with
 * `def NAME` (one only: two defs of one name are not followed); -1. */
static int own_def_scope(const oom_pymodel *m, TSNode fn)
{
    uint32_t len;
    const char *name = NULL;
    if (ts_node_symbol(fn) == m->sym.identifier)
        name = oom_node_text(m, fn, &len);
    else if (ts_node_symbol(fn) == m->sym.attribute &&
             oom_node_text_is(m, oom_model_child(m, fn, "object", 6), "self"))
        name = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
    int found = -1;
    for (size_t i = 1; name && i < m->scope_count; i++) {
        const oom_scope *sc = &m->scopes[i];
        if (sc->name_len == len && memcmp(sc->name, name, len) == 0 && !ts_node_is_null(sc->def)) {
            if (found >= 0)
                return -1;
            found = (int)i;
        }
    }
    return found;
}

/* The name of the def's parameter `index` (after `self` for methods when
 * `skip_self`), or of the parameter called `keyword`. */
static bool def_parameter(const oom_pymodel *m, const oom_scope *sc, int index, const char *keyword,
                          uint32_t keyword_len, const char **name, uint32_t *len)
{
    TSNode params = oom_model_child(m, sc->def, "parameters", 10);
    uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
    int position = 0;
    for (uint32_t i = 0; i < count; i++) {
        TSNode p = oom_model_named_child(m, params, i);
        TSNode id = ts_node_symbol(p) == m->sym.identifier ? p : oom_model_child(m, p, "name", 4);
        if (ts_node_is_null(id) || ts_node_symbol(id) != m->sym.identifier) {
            if (strcmp(ts_node_type(p), "typed_parameter") == 0 && ts_node_named_child_count(p) > 0)
                id = oom_model_named_child(m, p, 0);
            else
                return false; /* *args, **kwargs: the value may go anywhere */
        }
        uint32_t plen;
        const char *pname = oom_node_text(m, id, &plen);
        if (plen == 4 && memcmp(pname, "self", 4) == 0 && i == 0)
            continue;
        if ((keyword && plen == keyword_len && memcmp(pname, keyword, plen) == 0) ||
            (!keyword && position == index)) {
            *name = pname;
            *len = plen;
            return true;
        }
        position++;
    }
    return false;
}

static bool parameter_reaches_computation(const oom_pymodel *m, int scope, const char *param, uint32_t len,
                                          int depth);

/* A call given a traced value: the file's own function is followed for the
 * parameter it lands in; print/str/len/isinstance/format only read it; any
 * other call (a `.to(x)`, an autocast, a library loader) computes with it. */
static bool call_computes_with(const oom_pymodel *m, TSNode call, const traced_names *t, int depth)
{
    static const char *const readers[] = {"print", "str", "repr", "len", "isinstance", "format", "type",
                                          "getattr", "hasattr", NULL};
    TSNode fn = oom_model_child(m, call, "function", 8);
    TSNode args = oom_model_child(m, call, "arguments", 9);
    uint32_t flen;
    const char *fname = oom_node_text(m, fn, &flen);
    if (ts_node_symbol(fn) == m->sym.identifier && oom_model_text_in(fname, flen, readers))
        return false;
    int callee = own_def_scope(m, fn);
    uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
    int position = 0;
    for (uint32_t i = 0; i < count; i++) {
        TSNode a = oom_model_named_child(m, args, i);
        bool keyword = ts_node_symbol(a) == m->sym.keyword_argument;
        TSNode value = keyword ? oom_model_child(m, a, "value", 5) : a;
        if (!mentions_traced(m, value, t, 0)) {
            position += !keyword;
            continue;
        }
        if (callee < 0 || depth >= PARAM_TRACE_DEPTH || strcmp(ts_node_type(a), "list_splat") == 0 ||
            strcmp(ts_node_type(a), "dictionary_splat") == 0)
            return true;
        const char *kw = NULL, *pname;
        uint32_t kwlen = 0, plen;
        if (keyword)
            kw = oom_node_text(m, oom_model_child(m, a, "name", 4), &kwlen);
        if (!def_parameter(m, &m->scopes[callee], position, kw, kwlen, &pname, &plen) ||
            parameter_reaches_computation(m, callee, pname, plen, depth + 1))
            return true;
        position += !keyword;
    }
    return false;
}

/* Whether the parameter `param` of function `scope`, or a name bound from
 * it (`version = {"float32": 3, "bfloat16": 5}[dtype]`), is given to a call
 * that computes with it. */
static bool parameter_reaches_computation(const oom_pymodel *m, int scope, const char *param, uint32_t len,
                                          int depth)
{
    traced_names t = {{param}, {len}, 1};
    for (int round = 0; round < 3; round++) /* names bound from traced ones, in any order */
        for (int i = m->scopes[scope].last_binding; i >= 0; i = m->bindings[i].prev) {
            const oom_binding *b = &m->bindings[i];
            if (b->kind != OOM_BIND_OPAQUE && !ts_node_is_null(b->value) && t.count < PARAM_TRACE_NAMES &&
                !traced(&t, b->name, b->name_len) && mentions_traced(m, b->value, &t, 0)) {
                t.name[t.count] = b->name;
                t.len[t.count++] = b->name_len;
            }
        }
    const oom_scope *sc = &m->scopes[scope];
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->pos >= sc->start && c->pos < sc->end && oom_model_scope_at(m, c->pos) == scope &&
            call_computes_with(m, c->node, &t, depth))
            return true;
    }
    return false;
}

bool oom_pymodel_keyword_only_stored_by_own_function(const oom_pymodel *m, TSNode keyword_argument)
{
    if (ts_node_symbol(keyword_argument) != m->sym.keyword_argument)
        return false;
    TSNode args = oom_model_parent(m, keyword_argument);
    TSNode call = ts_node_is_null(args) ? args : oom_model_parent(m, args);
    if (ts_node_is_null(call) || ts_node_symbol(call) != m->sym.call)
        return false;
    int callee = own_def_scope(m, oom_model_child(m, call, "function", 8));
    if (callee < 0)
        return false;
    uint32_t kwlen, plen;
    const char *kw = oom_node_text(m, oom_model_child(m, keyword_argument, "name", 4), &kwlen);
    const char *pname;
    return def_parameter(m, &m->scopes[callee], -1, kw, kwlen, &pname, &plen) &&
           !parameter_reaches_computation(m, callee, pname, plen, 0);
}

bool oom_pymodel_loads_diffusion_model(const oom_pymodel *m)
{
    return m->loads_diffusion_model;
}

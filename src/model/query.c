/* model/query: answers about positions (scope, loop, grad mode) and names. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/lang.h"
#include "internal.h"

int oom_model_scope_at(const oom_pymodel *m, uint32_t pos)
{
    /* Scopes are stored in pre-order, so sorted by start: find the last that
     * starts at or before pos, then climb to one that contains it. */
    size_t lo = 0, hi = m->scope_count;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (m->scopes[mid].start <= pos)
            lo = mid;
        else
            hi = mid;
    }
    int s = (int)lo;
    while (s > 0 && !(pos >= m->scopes[s].start && pos < m->scopes[s].end))
        s = m->scopes[s].parent;
    return s < 0 ? 0 : s;
}

const oom_binding *oom_model_last_binding(const oom_pymodel *m, int scope, const char *name,
                                          uint32_t name_len, uint32_t before,
                                          bool skip_augmented)
{
    const oom_binding *best = NULL;
    if (scope < 0 || (size_t)scope >= m->scope_count)
        return NULL;
    for (int i = m->scopes[scope].last_binding; i >= 0; i = m->bindings[i].prev) {
        const oom_binding *b = &m->bindings[i];
        if (b->pos > before || b->name_len != name_len || memcmp(b->name, name, name_len) != 0)
            continue;
        if (skip_augmented && b->kind == OOM_BIND_AUGMENTED)
            continue;
        if (!best || b->pos >= best->pos)
            best = b;
    }
    return best;
}

const oom_binding *oom_model_visible_binding(const oom_pymodel *m, int scope, const char *name,
                                            uint32_t name_len, uint32_t before, bool skip_augmented)
{
    for (int sc = scope, depth = 0; sc >= 0 && depth < 64; sc = m->scopes[sc].parent, depth++) {
        const oom_binding *b =
            oom_model_last_binding(m, sc, name, name_len, sc == scope ? before : UINT32_MAX, skip_augmented);
        if (b)
            return b;
        if (sc == 0)
            break;
    }
    return NULL;
}

oom_grad_state oom_model_grad_state_at(const oom_pymodel *m, uint32_t pos)
{
    /* The innermost region wins: the one that starts last (and, on a tie,
     * ends first). Regions are few; a scan is fine. */
    const oom_grad_region *best = NULL;
    for (size_t i = 0; i < m->region_count; i++) {
        const oom_grad_region *r = &m->regions[i];
        if (pos < r->start || pos >= r->end)
            continue;
        if (!best || r->start > best->start || (r->start == best->start && r->end < best->end))
            best = r;
    }
    return best ? best->state : OOM_GRAD_ENABLED;
}

oom_grad_state oom_pymodel_grad_state(const oom_pymodel *m, TSNode node)
{
    return oom_model_grad_state_at(m, ts_node_start_byte(node));
}

/* ---- qualified names ------------------------------------------------------ */

static const oom_alias *find_alias(const oom_pymodel *m, const char *name, uint32_t len)
{
    for (size_t i = m->alias_count; i-- > 0;) {
        const oom_alias *a = &m->aliases[i];
        if (strlen(a->local) == len && memcmp(a->local, name, len) == 0)
            return a;
    }
    return NULL;
}

bool oom_pymodel_is_import_alias(const oom_pymodel *m, const char *name, size_t len)
{
    return find_alias(m, name, (uint32_t)len) != NULL;
}

bool oom_pymodel_qualname(const oom_pymodel *m, TSNode expr, oom_buf *out)
{
    oom_buf_clear(out);
    /* Walk down the attribute chain to its base name, remembering the parts. */
    TSNode parts[32];
    size_t nparts = 0;
    TSNode n = expr;
    while (!ts_node_is_null(n) && ts_node_symbol(n) == m->sym.attribute) {
        if (nparts == 32)
            return false;
        parts[nparts++] = oom_model_child(m, n, "attribute", 9);
        n = oom_model_child(m, n, "object", 6);
    }
    if (ts_node_is_null(n) || ts_node_symbol(n) != m->sym.identifier)
        return false;
    uint32_t len;
    const char *base = oom_node_text(m, n, &len);
    const oom_alias *a = find_alias(m, base, len);
    if (a)
        oom_buf_puts(out, a->qualified);
    else
        oom_buf_append(out, base, len);
    for (size_t i = nparts; i-- > 0;) {
        if (ts_node_is_null(parts[i]))
            return false;
        const char *t = oom_node_text(m, parts[i], &len);
        oom_buf_putc(out, '.');
        oom_buf_append(out, t, len);
    }
    return true;
}

/* ---- grad-mode switches --------------------------------------------------- */

static bool qualname_in(const char *q, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp(q, names[i]) == 0)
            return true;
    return false;
}

static const char *const no_grad_names[] = {
    "torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad", NULL};
static const char *const inference_mode_names[] = {
    "torch.inference_mode", "torch.autograd.inference_mode",
    "torch.autograd.grad_mode.inference_mode", NULL};
static const char *const enable_grad_names[] = {
    "torch.enable_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad",
    NULL};
static const char *const set_grad_enabled_names[] = {
    "torch.set_grad_enabled", "torch.autograd.set_grad_enabled",
    "torch.autograd.grad_mode.set_grad_enabled", NULL};

/* The single argument of a call (positional or keyword), or a null node. */
static TSNode only_argument(const oom_pymodel *m, TSNode call)
{
    TSNode none = {{0}, NULL, NULL};
    TSNode args = oom_model_child(m, call, "arguments", 9);
    if (ts_node_is_null(args) || ts_node_named_child_count(args) != 1)
        return none;
    TSNode arg = oom_model_named_child(m, args, 0);
    if (ts_node_symbol(arg) == m->sym.keyword_argument)
        arg = oom_model_child(m, arg, "value", 5);
    return arg;
}

static int bool_argument_state(const oom_pymodel *m, TSNode arg, oom_grad_state if_true,
                               oom_grad_state if_false, oom_grad_state if_unknown)
{
    if (ts_node_is_null(arg))
        return (int)if_true;
    if (oom_node_text_is(m, arg, "True"))
        return (int)if_true;
    if (oom_node_text_is(m, arg, "False"))
        return (int)if_false;
    return (int)if_unknown;
}

/* A project's own wrapper of the grad switches, named for what it does:
 * yolov5's `@smart_inference_mode()`, `@torch_no_grad`, `with no_grad_ctx():`. */
static bool names_own_no_grad_wrapper(const char *qualname)
{
    const char *last = strrchr(qualname, '.');
    last = last ? last + 1 : qualname;
    return (strstr(last, "inference_mode") || strstr(last, "no_grad")) && !strstr(last, "enable") &&
           !strstr(last, "disable");
}

static int grad_switch(const oom_pymodel *m, TSNode expr, int depth);

/* `ctx = torch.enable_grad() if train else torch.no_grad()`, then `with ctx:`;
 * and the conditional written in the `with` itself. Either branch may run:
 * one that turns grad off makes the block maybe-off, as set_grad_enabled(train). */
static int conditional_grad_switch(const oom_pymodel *m, TSNode expr, int depth)
{
    if (depth > 3 || ts_node_is_null(expr))
        return -1;
    if (ts_node_symbol(expr) == m->sym.identifier) {
        uint32_t len;
        const char *name = oom_node_text(m, expr, &len);
        uint32_t pos = ts_node_start_byte(expr);
        const oom_binding *b = oom_model_visible_binding(m, oom_model_scope_at(m, pos), name, len, pos, true);
        return b && b->kind == OOM_BIND_VALUE ? grad_switch(m, b->value, depth + 1) : -1;
    }
    if (ts_node_symbol(expr) != m->sym.conditional_expression)
        return -1;
    int off = 0, switches = 0;
    uint32_t count = ts_node_named_child_count(expr); /* a if cond else b: children a, cond, b */
    for (uint32_t i = 0; i < count; i += 2) {
        int state = grad_switch(m, oom_model_named_child(m, expr, i), depth + 1);
        switches += state >= 0;
        off += state == OOM_GRAD_DISABLED || state == OOM_GRAD_MAYBE_DISABLED;
    }
    if (switches == 0)
        return -1;
    return off ? OOM_GRAD_MAYBE_DISABLED : OOM_GRAD_ENABLED;
}

int oom_model_grad_switch(const oom_pymodel *m, TSNode expr)
{
    return grad_switch(m, expr, 0);
}

static int grad_switch(const oom_pymodel *m, TSNode expr, int depth)
{
    if (ts_node_symbol(expr) == m->sym.identifier || ts_node_symbol(expr) == m->sym.conditional_expression) {
        int state = conditional_grad_switch(m, expr, depth);
        if (state >= 0)
            return state;
    }
    bool called = ts_node_symbol(expr) == m->sym.call;
    TSNode fn = called ? oom_model_child(m, expr, "function", 8) : expr;
    oom_buf q;
    oom_buf_init(&q);
    int state = -1;
    if (oom_pymodel_qualname(m, fn, &q)) {
        TSNode none = {{0}, NULL, NULL};
        TSNode arg = called ? only_argument(m, expr) : none;
        if (qualname_in(q.data, no_grad_names))
            state = OOM_GRAD_DISABLED;
        else if (qualname_in(q.data, inference_mode_names))
            state = bool_argument_state(m, arg, OOM_GRAD_DISABLED, OOM_GRAD_ENABLED,
                                        OOM_GRAD_MAYBE_DISABLED);
        else if (qualname_in(q.data, enable_grad_names))
            state = OOM_GRAD_ENABLED;
        else if (called && qualname_in(q.data, set_grad_enabled_names))
            state = bool_argument_state(m, arg, OOM_GRAD_ENABLED, OOM_GRAD_DISABLED,
                                        OOM_GRAD_MAYBE_DISABLED);
        else if (names_own_no_grad_wrapper(q.data))
            state = OOM_GRAD_DISABLED;
    }
    oom_buf_free(&q);
    return state;
}

/* ---- loops and storage ---------------------------------------------------- */

static const oom_loop *innermost_loop(const oom_pymodel *m, uint32_t pos, int scope)
{
    const oom_loop *best = NULL;
    for (size_t i = 0; i < m->loop_count; i++) {
        const oom_loop *l = &m->loops[i];
        if (l->scope != scope || pos < l->start || pos >= l->end)
            continue;
        if (!best || l->start > best->start)
            best = l;
    }
    return best;
}

bool oom_pymodel_in_loop(const oom_pymodel *m, TSNode node)
{
    uint32_t pos = ts_node_start_byte(node);
    return innermost_loop(m, pos, oom_model_scope_at(m, pos)) != NULL;
}

bool oom_pymodel_outlives_iteration(const oom_pymodel *m, TSNode target, TSNode site)
{
    if (ts_node_symbol(target) != m->sym.identifier)
        return true; /* self.history, buffers[k]: owned by something longer-lived */
    uint32_t pos = ts_node_start_byte(site);
    int scope = oom_model_scope_at(m, pos);
    const oom_loop *loop = innermost_loop(m, pos, scope);
    if (!loop)
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, target, &len);
    const oom_binding *b = oom_model_last_binding(m, scope, name, len, pos, true);
    /* Created afresh in this iteration: dropped at the next one. */
    return !(b && b->pos >= loop->start && b->pos < loop->end);
}

bool oom_pymodel_outlives_all_loops(const oom_pymodel *m, TSNode target, TSNode site)
{
    if (ts_node_symbol(target) != m->sym.identifier)
        return true;
    uint32_t pos = ts_node_start_byte(site);
    int scope = oom_model_scope_at(m, pos);
    if (!innermost_loop(m, pos, scope))
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, target, &len);
    const oom_binding *b = oom_model_last_binding(m, scope, name, len, pos, true);
    if (!b)
        return true;
    for (size_t i = 0; i < m->loop_count; i++) {
        const oom_loop *l = &m->loops[i];
        if (l->scope == scope && b->pos >= l->start && b->pos < l->end && pos >= l->start && pos < l->end)
            return false; /* reset on each iteration of a loop around the site */
    }
    return true;
}

static bool is_backward_target(const oom_pymodel *m, int scope, const char *name, uint32_t len,
                               bool direct_only)
{
    for (size_t i = 0; i < m->backward_count; i++) {
        const oom_name_ref *r = &m->backward_targets[i];
        if (r->scope == scope && r->name_len == len && memcmp(r->name, name, len) == 0 &&
            (r->direct || !direct_only))
            return true;
    }
    return false;
}

/* Whether the expression `e` reads the storage whose source text is `name`
 * (`losses`, `self.rewards`). */
static bool mentions(const oom_pymodel *m, TSNode e, const char *name, uint32_t len, int depth)
{
    if (ts_node_is_null(e) || depth > OOM_MODEL_MAX_DEPTH)
        return false;
    TSSymbol s = ts_node_symbol(e);
    if ((s == m->sym.identifier || s == m->sym.attribute) && ts_node_end_byte(e) - ts_node_start_byte(e) == len &&
        memcmp(m->src + ts_node_start_byte(e), name, len) == 0)
        return true;
    if (s == m->sym.lambda || s == m->sym.function_definition)
        return false;
    uint32_t count = ts_node_named_child_count(e);
    for (uint32_t i = 0; i < count; i++)
        if (mentions(m, oom_model_named_child(m, e, i), name, len, depth + 1))
            return true;
    return false;
}

/* The value of a binding: the right side (`x = ...`, `x += ...`). */
static TSNode binding_value(const oom_pymodel *m, const oom_binding *b)
{
    if (b->kind == OOM_BIND_AUGMENTED)
        return oom_model_child(m, b->value, "right", 5);
    return b->kind == OOM_BIND_OPAQUE ? (TSNode){0} : b->value;
}

/* `name` flows into a value that is backpropagated in its function: it is
 * a backward target itself, or is read by the value of a name that is
 * (`total = ce + style_loss; total.backward()`,
 * `loss = -torch.stack(log_probs).sum(); loss.backward()`), a few steps deep. */
static bool flows_into_backward(const oom_pymodel *m, int scope, const char *name, uint32_t len, int depth)
{
    if (is_backward_target(m, scope, name, len, false))
        return true;
    if (depth >= 3)
        return false;
    for (size_t i = 0; i < m->binding_count; i++) {
        const oom_binding *b = &m->bindings[i];
        if (b->scope != scope || (b->name_len == len && memcmp(b->name, name, len) == 0))
            continue;
        TSNode v = binding_value(m, b);
        if (!ts_node_is_null(v) && mentions(m, v, name, len, 0) &&
            flows_into_backward(m, scope, b->name, b->name_len, depth + 1))
            return true;
    }
    return false;
}

bool oom_pymodel_is_backward_receiver(const oom_pymodel *m, TSNode target)
{
    if (ts_node_symbol(target) != m->sym.identifier)
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, target, &len);
    return is_backward_target(m, oom_model_scope_at(m, ts_node_start_byte(target)), name, len, true);
}

bool oom_pymodel_is_backpropagated(const oom_pymodel *m, TSNode target)
{
    TSSymbol s = ts_node_symbol(target);
    if (s != m->sym.identifier && s != m->sym.attribute)
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, target, &len);
    return flows_into_backward(m, oom_model_scope_at(m, ts_node_start_byte(target)), name, len, 0);
}

/* ---- literals ------------------------------------------------------------- */

static bool string_has_interpolation(TSNode str)
{
    uint32_t count = ts_node_named_child_count(str);
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(ts_node_type(ts_node_named_child(str, i)), "interpolation") == 0)
            return true;
    return false;
}

bool oom_pymodel_is_literal(const oom_pymodel *m, TSNode expr)
{
    const char *type = ts_node_type(expr);
    if (strcmp(type, "string") == 0)
        return !string_has_interpolation(expr);
    if (strcmp(type, "integer") == 0 || strcmp(type, "float") == 0)
        return true;
    if (strcmp(type, "concatenated_string") == 0 || strcmp(type, "parenthesized_expression") == 0 ||
        strcmp(type, "unary_operator") == 0) {
        uint32_t count = ts_node_named_child_count(expr);
        for (uint32_t i = 0; i < count; i++)
            if (!oom_pymodel_is_literal(m, oom_model_named_child(m, expr, i)))
                return false;
        return count > 0;
    }
    return false;
}

bool oom_pymodel_string_value(const oom_pymodel *m, TSNode str, oom_buf *out)
{
    oom_buf_clear(out);
    if (ts_node_is_null(str)) /* `add_argument()` has no first argument */
        return false;
    if (strcmp(ts_node_type(str), "string") != 0 || string_has_interpolation(str))
        return false;
    uint32_t count = ts_node_named_child_count(str);
    for (uint32_t i = 0; i < count; i++) {
        TSNode part = oom_model_named_child(m, str, i);
        if (strcmp(ts_node_type(part), "string_content") == 0) {
            uint32_t len;
            const char *t = oom_node_text(m, part, &len);
            oom_buf_append(out, t, len);
        }
    }
    oom_buf_append(out, "", 0);
    return true;
}

/* ---- names ---------------------------------------------------------------- */

bool oom_name_has_word(const char *name, size_t len, const char *const *words)
{
    char part[64];
    size_t i = 0;
    while (i < len) {
        while (i < len && (name[i] == '_' || isdigit((unsigned char)name[i])))
            i++;
        size_t n = 0;
        /* one part: an optional capital followed by lower-case letters, or a
         * run of capitals (an acronym) */
        if (i < len && isupper((unsigned char)name[i])) {
            while (i < len && isupper((unsigned char)name[i]) && n < sizeof part - 1)
                part[n++] = (char)tolower((unsigned char)name[i++]);
            if (n > 1 && i < len && islower((unsigned char)name[i])) {
                i--; /* "HTTPServer": the last capital starts the next word */
                n--;
            }
        }
        while (i < len && islower((unsigned char)name[i]) && n < sizeof part - 1)
            part[n++] = name[i++];
        if (n == 0) {
            i++;
            continue;
        }
        part[n] = '\0';
        for (size_t w = 0; words[w]; w++)
            if (strcmp(part, words[w]) == 0)
                return true;
    }
    return false;
}

static const char *const eval_words[] = {
    "eval",  "evaluate",   "evaluation", "evaluating", "valid",   "validate",  "validation",
    "validating", "test", "testing", "predict", "prediction", "predictions", "inference",
    "infer", "score", "scoring", "generate", "generation", "sample", "sampling", NULL};
static const char *const train_words[] = {"train", "training", "fit", "finetune", NULL};

const char *const *oom_model_eval_words(void)
{
    return eval_words;
}

const char *const *oom_model_eval_data_words(void);

static bool scope_named_for_eval(const oom_pymodel *m, int scope)
{
    for (int s = scope; s > 0; s = m->scopes[s].parent) {
        const oom_scope *sc = &m->scopes[s];
        if (!sc->name)
            continue;
        if (oom_name_has_word(sc->name, sc->name_len, train_words))
            return false; /* train_and_evaluate: both; say nothing */
        if (oom_name_has_word(sc->name, sc->name_len, eval_words))
            return true;
    }
    return false;
}

/* Words that name held-out data: `val_loader`, `valid_data_loader`,
 * `eval_dataloader`, `test_loader`, `dataloaders["val"]`, `dev_set`. */
static const char *const eval_data_words[] = {"val", "valid", "validation", "eval", "evaluation",
                                              "test", "dev", NULL};

const char *const *oom_model_eval_data_words(void)
{
    return eval_data_words;
}

/* Whether the names and strings in a loop's iterable name held-out data
 * and none names training data (`zip(train_loader, val_loader)` is not). */
static void scan_iterable(const oom_pymodel *m, TSNode e, int depth, bool *eval, bool *train)
{
    if (ts_node_is_null(e) || depth > 6)
        return;
    TSSymbol s = ts_node_symbol(e);
    if (s == m->sym.identifier || s == m->sym.string) {
        uint32_t len;
        const char *text = oom_node_text(m, e, &len);
        if (s == m->sym.string && len >= 2) /* the quotes are not part of the word */
            text++, len -= 2;
        *eval = *eval || oom_name_has_word(text, len, eval_data_words);
        *train = *train || oom_name_has_word(text, len, train_words);
        return;
    }
    if (s == m->sym.lambda || s == m->sym.call) {
        /* enumerate(val_loader), tqdm(val_loader, desc=...): the arguments */
        if (s == m->sym.call)
            scan_iterable(m, oom_model_child(m, e, "arguments", 9), depth + 1, eval, train);
        return;
    }
    uint32_t count = ts_node_named_child_count(e);
    for (uint32_t i = 0; i < count && i < 8; i++) {
        TSNode c = oom_model_named_child(m, e, i);
        if (ts_node_symbol(c) == m->sym.keyword_argument)
            continue; /* desc="Validating" is a label, not the data */
        scan_iterable(m, c, depth + 1, eval, train);
    }
}

/* A loop of `scope` around `pos` over held-out data whose body runs no
 * backward: an evaluation loop written inline, in a training function too
 * (`for x, y in val_loader: out = model(x)`). */
static bool loop_evaluates(const oom_pymodel *m, const oom_loop *l)
{
    if (ts_node_is_null(l->iterable))
        return false;
    bool eval = false, train = false;
    scan_iterable(m, l->iterable, 0, &eval, &train);
    if (!eval || train)
        return false;
    for (size_t k = 0; k < m->backward_call_count; k++)
        if (m->backward_calls[k].scope == l->scope && m->backward_calls[k].start >= l->start &&
            m->backward_calls[k].start < l->end)
            return false;
    return true;
}

static bool in_eval_data_loop(const oom_pymodel *m, int scope, uint32_t pos)
{
    for (size_t i = 0; i < m->loop_count; i++) {
        oom_loop *l = &((oom_pymodel *)m)->loops[i]; /* the cache: the model belongs to one thread */
        if (l->scope != scope || pos < l->start || pos >= l->end)
            continue;
        if (l->evaluates < 0)
            l->evaluates = loop_evaluates(m, l);
        if (l->evaluates)
            return true;
    }
    return false;
}

/* `def smoke_test(): model(x).loss.backward()` trains, whatever its name says. */
static bool scope_calls_backward(const oom_pymodel *m, int scope)
{
    for (size_t i = 0; i < m->backward_call_count; i++)
        if (m->backward_calls[i].scope == scope)
            return true;
    return false;
}

/* A backward between `x.eval()` and the next `.train()` of the same scope:
 * the model is put in eval mode to train with it (a linear probe freezing
 * its backbone's batch-norm statistics), not to evaluate. An inline
 * validation loop is the other way round: its .eval() comes after the
 * step's backward, and its .train() before the next one. */
static bool backward_in_eval_mode(const oom_pymodel *m, int scope, const oom_mode_marker *eval)
{
    uint32_t until = UINT32_MAX;
    for (size_t i = 0; i < m->marker_count; i++) {
        const oom_mode_marker *mk = &m->markers[i];
        if (mk->scope == scope && !mk->is_eval && mk->pos > eval->pos && mk->pos < until)
            until = mk->pos;
    }
    for (size_t i = 0; i < m->backward_call_count; i++) {
        const oom_site *b = &m->backward_calls[i];
        if (b->scope == scope && b->start > eval->pos && b->start < until)
            return true;
    }
    return false;
}

/* For a call, the object whose mode matters: `model` in `model(x)` and in
 * `model.forward(x)`. Null for other nodes. */
static TSNode called_object(const oom_pymodel *m, TSNode node)
{
    TSNode none = {{0}, NULL, NULL};
    if (ts_node_symbol(node) != m->sym.call)
        return none;
    TSNode fn = oom_model_child(m, node, "function", 8);
    if (!ts_node_is_null(fn) && ts_node_symbol(fn) == m->sym.attribute) {
        TSNode attr = oom_model_child(m, fn, "attribute", 9);
        if (!ts_node_is_null(attr) && oom_node_text_is(m, attr, "forward"))
            return oom_model_child(m, fn, "object", 6);
    }
    return fn;
}

/* `wrapper` was built around `inner` (named by its text): `eagle3 =
 * Eagle3Model(draft_model=draft)`, then `eagle3 = FSDP(eagle3, ...)`. Putting
 * `draft` in eval mode is evaluating through `eagle3`. */
static bool wraps(const oom_pymodel *m, TSNode wrapper, const char *inner, uint32_t inner_len, int depth)
{
    if (depth > 6 || ts_node_is_null(wrapper) || ts_node_symbol(wrapper) != m->sym.identifier)
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, wrapper, &len);
    uint32_t pos = ts_node_start_byte(wrapper);
    const oom_binding *b = oom_model_visible_binding(m, oom_model_scope_at(m, pos), name, len, pos, true);
    if (!b || b->kind != OOM_BIND_VALUE || ts_node_symbol(b->value) != m->sym.call)
        return false;
    TSNode args = oom_model_child(m, b->value, "arguments", 9);
    uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
    for (uint32_t i = 0; i < count; i++) {
        TSNode a = oom_model_named_child(m, args, i);
        if (ts_node_symbol(a) == m->sym.keyword_argument)
            a = oom_model_child(m, a, "value", 5);
        if (ts_node_is_null(a) || ts_node_symbol(a) != m->sym.identifier)
            continue;
        uint32_t alen;
        const char *atext = oom_node_text(m, a, &alen);
        if ((alen == inner_len && memcmp(atext, inner, alen) == 0) || wraps(m, a, inner, inner_len, depth + 1))
            return true;
    }
    return false;
}

/* Module.predict() is model code, whose caller picks the grad mode; a
 * unittest method is a test. Neither is evaluation code, names or
 * `model.eval()` notwithstanding. */
static bool in_model_or_test_method(const oom_pymodel *m, int scope)
{
    for (int s = scope; s > 0; s = m->scopes[s].parent)
        if (m->scopes[s].model_method || m->scopes[s].unit_test)
            return true;
    return false;
}

/* The mode switch among a function's parameters: `train`, `training`,
 * `is_train`, `is_training` (by name; its position among the parameters
 * in *index, self not counted). */
static bool mode_parameter(const oom_pymodel *m, TSNode def, const char **name, uint32_t *len, int *index)
{
    static const char *const switches[] = {"train", "training", "is_train", "is_training", NULL};
    TSNode params = oom_model_child(m, def, "parameters", 10);
    uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
    int position = 0;
    for (uint32_t i = 0; i < count; i++) {
        TSNode p = oom_model_named_child(m, params, i);
        TSNode id = ts_node_symbol(p) == m->sym.identifier ? p : oom_model_child(m, p, "name", 4);
        if (ts_node_is_null(id) || ts_node_symbol(id) != m->sym.identifier)
            continue;
        const char *text = oom_node_text(m, id, len);
        if (*len == 4 && memcmp(text, "self", 4) == 0)
            continue;
        for (size_t k = 0; switches[k]; k++)
            if (strlen(switches[k]) == *len && memcmp(switches[k], text, *len) == 0) {
                *name = text;
                *index = position;
                return true;
            }
        position++;
    }
    return false;
}

/* The call passes False for the mode switch, by keyword or position. */
static bool passes_false_for(const oom_pymodel *m, TSNode call, const char *name, uint32_t len, int index)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
    int position = 0;
    for (uint32_t i = 0; i < count; i++) {
        TSNode a = oom_model_named_child(m, args, i);
        if (ts_node_symbol(a) == m->sym.keyword_argument) {
            uint32_t klen;
            const char *k = oom_node_text(m, oom_model_child(m, a, "name", 4), &klen);
            if (klen == len && memcmp(k, name, len) == 0)
                return strcmp(ts_node_type(oom_model_child(m, a, "value", 5)), "false") == 0;
        } else if (position++ == index) {
            return strcmp(ts_node_type(a), "false") == 0;
        }
    }
    return false;
}

/* Inside `if <name>:` (or its else) below `def`: code that only one mode runs. */
static bool under_mode_guard(const oom_pymodel *m, TSNode node, TSNode def, const char *name, uint32_t len)
{
    for (TSNode n = oom_model_parent(m, node); !ts_node_is_null(n) && !ts_node_eq(n, def);
         n = oom_model_parent(m, n)) {
        if (ts_node_symbol(n) != m->sym.if_statement)
            continue;
        uint32_t clen;
        const char *cond = oom_node_text(m, oom_model_child(m, n, "condition", 9), &clen);
        if (clen >= len && memmem(cond, clen, name, len) != NULL)
            return true;
    }
    return false;
}

/* A shared `def iteration(model, loader, train=True)` that the file calls
 * with `train=False` where autograd is on (from `evaluate()`): the forward
 * both modes run is evaluation code in that call. */
static bool scope_called_for_evaluation(const oom_pymodel *m, oom_scope *sc)
{
    int index;
    if (ts_node_is_null(sc->def) || !sc->name || !mode_parameter(m, sc->def, &sc->mode_param, &sc->mode_param_len, &index))
        return false;
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->name_len == sc->name_len && memcmp(c->name, sc->name, c->name_len) == 0 &&
            oom_model_grad_state_at(m, c->pos) == OOM_GRAD_ENABLED &&
            passes_false_for(m, c->node, sc->mode_param, sc->mode_param_len, index))
            return true;
    }
    return false;
}

static bool called_for_evaluation(const oom_pymodel *m, int scope, TSNode node)
{
    oom_scope *sc = &((oom_pymodel *)m)->scopes[scope]; /* the cache: one thread owns the model */
    if (sc->called_for_eval < 0)
        sc->called_for_eval = scope_called_for_evaluation(m, sc);
    return sc->called_for_eval && !under_mode_guard(m, node, sc->def, sc->mode_param, sc->mode_param_len);
}

bool oom_pymodel_is_eval_code(const oom_pymodel *m, TSNode node)
{
    uint32_t pos = ts_node_start_byte(node);
    int scope = oom_model_scope_at(m, pos);
    if (in_model_or_test_method(m, scope))
        return false;
    if (scope_named_for_eval(m, scope) && !scope_calls_backward(m, scope))
        return true;
    if (in_eval_data_loop(m, scope, pos) || oom_pymodel_is_eval_hook_call(m, node) ||
        called_for_evaluation(m, scope, node))
        return true;
    /* `teacher.eval()` makes calls of teacher evaluation code, not calls of
     * the student trained next to it. */
    TSNode object = called_object(m, node);
    uint32_t olen = 0;
    const char *otext = ts_node_is_null(object) ? NULL : oom_node_text(m, object, &olen);
    const oom_mode_marker *last = NULL;
    for (size_t i = 0; i < m->marker_count; i++) {
        const oom_mode_marker *mk = &m->markers[i];
        if (mk->scope != scope || mk->pos > pos || (last && mk->pos < last->pos))
            continue;
        if (otext && (mk->receiver_len != olen || memcmp(mk->receiver, otext, olen) != 0) &&
            !wraps(m, object, mk->receiver, mk->receiver_len, 0))
            continue;
        last = mk;
    }
    return last && last->is_eval && !backward_in_eval_mode(m, scope, last);
}

/* A name the function around `name` returns: `return metrics`, or one
 * element of a returned tuple (`return loss, sample_size, logging_output`). */
bool oom_pymodel_is_returned(const oom_pymodel *m, TSNode name)
{
    if (ts_node_symbol(name) != m->sym.identifier)
        return false;
    int scope = oom_model_scope_at(m, ts_node_start_byte(name));
    if (scope <= 0)
        return false;
    uint32_t len;
    const char *text = oom_node_text(m, name, &len);
    for (size_t i = 0; i < m->return_count; i++) {
        TSNode v = m->returns[i].value;
        if (m->returns[i].scope != scope || ts_node_is_null(v))
            continue;
        const char *type = ts_node_type(v);
        bool list = strcmp(type, "expression_list") == 0 || strcmp(type, "tuple") == 0;
        uint32_t count = list ? ts_node_named_child_count(v) : 1;
        for (uint32_t k = 0; k < count; k++) {
            TSNode e = list ? oom_model_named_child(m, v, k) : v;
            uint32_t elen;
            const char *etext = oom_node_text(m, e, &elen);
            if (ts_node_symbol(e) == m->sym.identifier && elen == len && memcmp(etext, text, len) == 0)
                return true;
        }
    }
    return false;
}

/* The outermost loop of `scope` around `pos`. */
static const oom_loop *outermost_loop(const oom_pymodel *m, uint32_t pos, int scope)
{
    const oom_loop *best = NULL;
    for (size_t i = 0; i < m->loop_count; i++) {
        const oom_loop *l = &m->loops[i];
        if (l->scope == scope && pos >= l->start && pos < l->end && (!best || l->start < best->start))
            best = l;
    }
    return best;
}

bool oom_pymodel_is_view_of_one_tensor(const oom_pymodel *m, TSNode value, TSNode site)
{
    uint32_t pos = ts_node_start_byte(site);
    int scope = oom_model_scope_at(m, pos);
    const oom_loop *outer = outermost_loop(m, pos, scope);
    if (!outer)
        return false;
    TSNode e = value;
    bool sliced = false;
    for (int depth = 0; depth < 8 && !ts_node_is_null(e); depth++) {
        if (strcmp(ts_node_type(e), "subscript") == 0) {
            sliced = true;
            e = oom_model_child(m, e, "value", 5);
            continue;
        }
        if (ts_node_symbol(e) != m->sym.identifier)
            return false;
        uint32_t len;
        const char *name = oom_node_text(m, e, &len);
        const oom_binding *b = oom_model_last_binding(m, scope, name, len, ts_node_start_byte(e), false);
        if (!b || b->kind == OOM_BIND_OPAQUE || b->kind == OOM_BIND_AUGMENTED)
            return false;
        if (b->kind == OOM_BIND_ITER) { /* a row of the iterable */
            sliced = true;
            e = b->value;
            continue;
        }
        return sliced && b->pos < outer->start && !(b->pos >= outer->start && b->pos < outer->end);
    }
    return false;
}

/* Whether `e` is, or is inside, the arguments of a `.load_state_dict(...)` call. */
static bool inside_load_state_dict(const oom_pymodel *m, TSNode e)
{
    for (int depth = 0; depth < 6 && !ts_node_is_null(e); depth++, e = oom_model_parent(m, e)) {
        if (ts_node_symbol(e) != m->sym.call)
            continue;
        uint32_t len;
        const char *name = oom_node_last_name(m, oom_model_child(m, e, "function", 8), &len);
        if (name && len == 15 && memcmp(name, "load_state_dict", 15) == 0)
            return true;
    }
    return false;
}

/* A `.load_state_dict(...)` call of `scope` after `pos` whose arguments read
 * `name`, directly or through one name bound from it (`csd =
 * ckpt["model"].float().state_dict()`, then `model.load_state_dict(csd)`). */
static bool name_loaded_into_model(const oom_pymodel *m, int scope, uint32_t pos, const char *name, uint32_t len,
                                   int depth)
{
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->pos < pos || c->name_len != 15 || memcmp(c->name, "load_state_dict", 15) != 0 ||
            oom_model_scope_at(m, c->pos) != scope)
            continue;
        if (mentions(m, oom_model_child(m, c->node, "arguments", 9), name, len, 0))
            return true;
    }
    if (depth > 0)
        return false;
    for (int b = m->scopes[scope].last_binding; b >= 0; b = m->bindings[b].prev) {
        const oom_binding *x = &m->bindings[b];
        if (x->pos > pos && x->kind == OOM_BIND_VALUE && mentions(m, x->value, name, len, 0) &&
            !(x->name_len == len && memcmp(x->name, name, len) == 0) &&
            name_loaded_into_model(m, scope, x->pos, x->name, x->name_len, depth + 1))
            return true;
    }
    return false;
}

bool oom_pymodel_loads_into_model(const oom_pymodel *m, TSNode call)
{
    if (inside_load_state_dict(m, oom_model_parent(m, call)))
        return true;
    TSNode parent = oom_model_parent(m, call);
    if (ts_node_is_null(parent) || ts_node_symbol(parent) != m->sym.assignment)
        return false;
    TSNode left = oom_model_child(m, parent, "left", 4);
    if (ts_node_is_null(left) || ts_node_symbol(left) != m->sym.identifier)
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, left, &len);
    int scope = oom_model_scope_at(m, ts_node_start_byte(call));
    return name_loaded_into_model(m, scope, ts_node_end_byte(call), name, len, 0);
}

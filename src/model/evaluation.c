/* model/evaluation: what counts as evaluation code, by what the code does,
 * never by what it is called: a forward whose graph the function builds for
 * nothing (no backward, the result kept nowhere and handed to nothing, only
 * numbers or detached tensors made of it: model/results.c), code after
 * .eval() (unless a backward follows), a framework module's evaluation
 * step called by hand, shared epoch functions called with train=False. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/lang.h"
#include "internal.h"

/* The words that may order the search for evaluation code: a function whose
 * name has one is asked first whether its forward's graph goes unused (the
 * dataflow settles it: model/results.c). A name alone decides nothing. */
static const char *const eval_words[] = {
    "eval",  "evaluate",   "evaluation", "evaluating", "valid",   "validate",  "validation",
    "validating", "test", "testing", "predict", "prediction", "predictions", "inference",
    "infer", "score", "scoring", "generate", "generation", "sample", "sampling", NULL};
static const char *const train_words[] = {"train", "training", "fit", "finetune", NULL};


/* What a function's own name says: 1 evaluation, 0 training (or both:
 * train_and_evaluate says nothing), -1 neither. */
static signed char name_verdict(const oom_scope *sc)
{
    if (!sc->name)
        return -1;
    if (oom_name_has_word(sc->name, sc->name_len, train_words))
        return 0;
    return oom_name_has_word(sc->name, sc->name_len, eval_words) ? 1 : -1;
}

/* The nearest function, from `scope` outwards, whose name says train or
 * eval decides. Each scope keeps its answer, so the names are read once. */
static bool scope_named_for_eval(const oom_pymodel *m, int scope)
{
    oom_scope *scopes = ((oom_pymodel *)m)->scopes; /* the cache: one thread owns the model */
    int s = scope;
    signed char answer = 0;
    for (; s > 0; s = scopes[s].parent) {
        answer = scopes[s].named_for_eval >= 0 ? scopes[s].named_for_eval : name_verdict(&scopes[s]);
        if (answer >= 0)
            break;
    }
    if (answer < 0)
        answer = 0;
    for (int t = scope; t > 0; t = scopes[t].parent) { /* the walked scopes get the answer */
        scopes[t].named_for_eval = answer;
        if (t == s)
            break;
    }
    return answer;
}

static bool eval_mode_at(const oom_pymodel *m, int scope, TSNode node);

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
    return oom_model_differentiates_between(m, scope, eval->pos + 1, until);
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
    oom_model_kids kids = oom_model_kids_of(m, args);
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
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
/* A method of a module class (its caller picks the grad mode: a
 * `class Net(AbstractNetwork)` over the file's own nn.Module base counts as
 * `class Net(nn.Module)` does), or a unit test. */
static bool in_model_or_test_method(const oom_pymodel *m, int scope)
{
    for (int s = scope; s > 0; s = m->scopes[s].parent) {
        if (m->scopes[s].model_method || m->scopes[s].unit_test)
            return true;
        TSNode cls = oom_model_class_of_scope(m, &m->scopes[s]);
        if (!ts_node_is_null(cls) && oom_model_class_is_module(m, cls))
            return true;
    }
    return false;
}

/* The mode switch among a function's parameters: `train`, `training`,
 * `is_train`, `is_training` (by name; its position among the parameters
 * in *index, self not counted). */
static bool mode_parameter(const oom_pymodel *m, TSNode def, const char **name, uint32_t *len, int *index)
{
    static const char *const switches[] = {"train", "training", "is_train", "is_training", NULL};
    TSNode params = oom_model_child(m, def, "parameters", 10);
    oom_model_kids kids = oom_model_kids_of(m, params);
    int position = 0;
    for (TSNode p; oom_model_next_kid(m, &kids, &p);) {
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
    oom_model_kids kids = oom_model_kids_of(m, args);
    int position = 0;
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
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
    /* a forward whose result the function hands back is the caller's to
     * use: a shared generate_images(..., is_train) whose images the training
     * step backpropagates is no evaluation, whatever flag one call passes */
    return sc->called_for_eval && !under_mode_guard(m, node, sc->def, sc->mode_param, sc->mode_param_len) &&
           !oom_model_forward_result_handed_back(m, scope, node);
}

/* A grad switch inside the function holds at pos (`with torch.enable_grad():`,
 * one entered on an ExitStack): a decorator on the function would not reach it. */
static bool switched_inside(const oom_pymodel *m, int scope, uint32_t pos)
{
    for (size_t i = 0; i < m->region_count; i++) {
        const oom_grad_region *r = &m->regions[i];
        if (pos >= r->start && pos < r->end && r->start > m->scopes[scope].start)
            return true;
    }
    return false;
}

/* A forward in a shared `def iteration(model, loader, train=True)` that no
 * call in this file runs for evaluation: whether another file calls it with
 * `train=False` (its `evaluate()` in utils.py, say) only the project pass
 * knows. `out` gets the condition it confirms: "eval<TAB>function<TAB>
 * parameter<TAB>position". */
bool oom_pymodel_eval_call_candidate(const oom_pymodel *m, TSNode node, oom_buf *out)
{
    uint32_t pos = ts_node_start_byte(node);
    int scope = oom_model_scope_at(m, pos);
    if (scope <= 0 || in_model_or_test_method(m, scope) || called_for_evaluation(m, scope, node))
        return false;
    const oom_scope *sc = &m->scopes[scope];
    const char *param;
    uint32_t plen;
    int index;
    if (ts_node_is_null(sc->def) || !sc->name || !mode_parameter(m, sc->def, &param, &plen, &index) ||
        under_mode_guard(m, node, sc->def, param, plen) || oom_model_forward_result_handed_back(m, scope, node))
        return false;
    oom_buf_clear(out);
    oom_buf_printf(out, "eval\t%.*s\t%.*s\t%d", (int)sc->name_len, sc->name, (int)plen, param, index);
    return true;
}

/* The arguments of call i that are a literal False: positions (after self,
 * below 32) as bits of *mask, keywords comma-separated in `keywords`. */
void oom_pymodel_call_false_args(const oom_pymodel *m, size_t i, uint32_t *mask, oom_buf *keywords)
{
    *mask = 0;
    TSNode args = oom_model_child(m, m->calls[i].node, "arguments", 9);
    oom_model_kids kids = oom_model_kids_of(m, args);
    int position = 0;
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument) {
            if (strcmp(ts_node_type(oom_model_child(m, a, "value", 5)), "false") == 0) {
                uint32_t nlen;
                const char *name = oom_node_text(m, oom_model_child(m, a, "name", 4), &nlen);
                oom_buf_printf(keywords, "%s%.*s", keywords->len ? "," : "", (int)nlen, name);
            }
        } else if (position < 32) {
            if (strcmp(ts_node_type(a), "false") == 0)
                *mask |= 1u << position;
            position++;
        }
    }
}

/* The whole function evaluates: its forward builds a graph for nothing and
 * no grad switch inside it would escape a decorator on it (the fix). */
bool oom_pymodel_in_evaluation_function(const oom_pymodel *m, TSNode node)
{
    uint32_t pos = ts_node_start_byte(node);
    int scope = oom_model_scope_at(m, pos);
    return scope > 0 && !in_model_or_test_method(m, scope) && !switched_inside(m, scope, pos) &&
           !oom_model_differentiates_between(m, scope, 0, UINT32_MAX) &&
           ((scope_named_for_eval(m, scope) && oom_model_forward_graph_unused(m, scope, node)) ||
            (eval_mode_at(m, scope, node) && !oom_model_forward_result_leaves(m, scope, node)));
}

bool oom_pymodel_is_eval_code(const oom_pymodel *m, TSNode node)
{
    uint32_t pos = ts_node_start_byte(node);
    int scope = oom_model_scope_at(m, pos);
    if (in_model_or_test_method(m, scope))
        return false;
    /* a result handed back to the caller may be what the caller's
     * backward takes; one turned into numbers is not. The name only says
     * where to look, and so does a training function around a loop that
     * runs no backward (an inline validation loop): without either, the
     * dataflow alone was too weak evidence (tests/ecosystem: 2 of 54 such
     * findings true) */
    if ((scope_named_for_eval(m, scope) || scope_calls_backward(m, scope)) &&
        oom_model_forward_graph_unused(m, scope, node))
        return true;
    if (oom_pymodel_is_eval_hook_call(m, node) || called_for_evaluation(m, scope, node))
        return true;
    return eval_mode_at(m, scope, node);
}

/* The module called at `node` is in eval mode there: `teacher.eval()` makes
 * calls of teacher evaluation code, not calls of the student trained next
 * to it. */
static bool eval_mode_at(const oom_pymodel *m, int scope, TSNode node)
{
    uint32_t pos = ts_node_start_byte(node);
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

bool oom_pymodel_is_eval_hook_call(const oom_pymodel *m, TSNode call)
{
    const oom_library *lib = oom_library_get();
    if (!lib || ts_node_symbol(call) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute)
        return false;
    uint32_t len;
    const char *method = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
    return method && oom_library_lists(&lib->evaluation_step_methods, method, len) &&
           !oom_node_text_is(m, oom_model_child(m, fn, "object", 6), "self");
}

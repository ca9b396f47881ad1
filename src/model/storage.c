/* model/storage: where values are kept and where they go: loops and the
 * storage that outlives them, what flows into a backward, what a function
 * returns, views of one tensor, checkpoints copied into a model. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/lang.h"
#include "internal.h"

/* ---- loops and storage ---------------------------------------------------- */

/* A `global` or `nonlocal` statement of `scope` that names `name`; the
 * model keeps where each stands (a few per file at most). */
bool oom_pymodel_declared_outside(const oom_pymodel *m, TSNode name)
{
    if (ts_node_symbol(name) != m->sym.identifier || m->declaration_count == 0)
        return false;
    int scope = oom_model_scope_at(m, ts_node_start_byte(name));
    uint32_t len;
    const char *text = oom_node_text(m, name, &len);
    for (size_t i = 0; i < m->declaration_count; i++) {
        const oom_site *d = &m->declarations[i];
        if (d->scope != scope)
            continue;
        /* `global a, b`: the names are the statement's identifiers */
        for (uint32_t at = d->start; at + len <= d->end;) {
            const char *hit = memmem(m->src + at, d->end - at, text, len);
            if (!hit)
                break;
            uint32_t off = (uint32_t)(hit - m->src);
            bool word_start = off == 0 || !(isalnum((unsigned char)m->src[off - 1]) || m->src[off - 1] == '_');
            bool word_end = off + len >= m->len || !(isalnum((unsigned char)m->src[off + len]) || m->src[off + len] == '_');
            if (word_start && word_end && off > d->start + 5) /* past the keyword */
                return true;
            at = off + 1;
        }
    }
    return false;
}

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

/* Whether a call in `e` reads `name` (`torch.cat(all_values)`,
 * `torch.stack(outs).sum()`): the storage is consumed into a new value. */
static bool combined_in(const oom_pymodel *m, TSNode e, const char *name, uint32_t len, int depth)
{
    if (ts_node_is_null(e) || depth > OOM_MODEL_MAX_DEPTH)
        return false;
    TSSymbol s = ts_node_symbol(e);
    if (s == m->sym.lambda || s == m->sym.function_definition)
        return false;
    if (s == m->sym.call && mentions(m, oom_model_child(m, e, "arguments", 9), name, len, 0))
        return true;
    uint32_t count = ts_node_named_child_count(e);
    for (uint32_t i = 0; i < count; i++)
        if (combined_in(m, oom_model_named_child(m, e, i), name, len, depth + 1))
            return true;
    return false;
}

static bool loop_calls_backward(const oom_pymodel *m, const oom_loop *l)
{
    for (size_t i = 0; i < m->backward_call_count; i++) {
        const oom_site *b = &m->backward_calls[i];
        if (b->scope == l->scope && b->start >= l->start && b->start < l->end)
            return true;
    }
    return false;
}

/* The name a running total lives in: `running_loss`, or the dict of
 * `running_metrics["rewards/chosen"]`; null for `self.total`. */
static TSNode total_name(const oom_pymodel *m, TSNode target)
{
    if (strcmp(ts_node_type(target), "subscript") == 0)
        target = oom_model_child(m, target, "value", 5);
    return ts_node_symbol(target) == m->sym.identifier ? target : (TSNode){0};
}

/* A plain binding that sets the total afresh (`running_loss = 0`,
 * `running_metrics = {k: 0 for k in running_metrics}`), not the
 * accumulation itself written out (`total = total + loss`). */
static bool sets_afresh(const oom_pymodel *m, const oom_binding *b, const char *name, uint32_t len)
{
    if (b->kind != OOM_BIND_VALUE || ts_node_is_null(b->value))
        return false;
    return strcmp(ts_node_type(b->value), "binary_operator") != 0 || !mentions(m, b->value, name, len, 0);
}

bool oom_pymodel_is_reset_each_window(const oom_pymodel *m, TSNode target, TSNode site)
{
    TSNode id = total_name(m, target);
    if (ts_node_is_null(id))
        return false;
    uint32_t pos = ts_node_start_byte(site);
    int scope = oom_model_scope_at(m, pos);
    const oom_loop *loop = innermost_loop(m, pos, scope);
    if (!loop || !loop_calls_backward(m, loop))
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    for (int i = m->scopes[scope].last_binding; i >= 0; i = m->bindings[i].prev) {
        const oom_binding *b = &m->bindings[i];
        if (b->pos >= loop->start && b->pos < loop->end && b->name_len == len && memcmp(b->name, name, len) == 0 &&
            sets_afresh(m, b, name, len))
            return true;
    }
    return false;
}

/* An empty container made by the binding: `[]`, `{}`, `list()`, `dict()`. */
static bool binds_empty_container(const oom_pymodel *m, const oom_binding *b)
{
    if (b->kind != OOM_BIND_VALUE || ts_node_is_null(b->value))
        return false;
    const char *type = ts_node_type(b->value);
    if ((strcmp(type, "list") == 0 || strcmp(type, "dictionary") == 0) && ts_node_named_child_count(b->value) == 0)
        return true;
    if (ts_node_symbol(b->value) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, b->value, "function", 8);
    TSNode args = oom_model_child(m, b->value, "arguments", 9);
    return (oom_node_text_is(m, fn, "list") || oom_node_text_is(m, fn, "dict")) && !ts_node_is_null(args) &&
           ts_node_named_child_count(args) == 0;
}

/* `for batch_group in groups: outputs = []; for batch in batch_group:
 * outputs.append(model(batch))` (AllenNLP's trainer, one gradient-accumulation
 * group at a time): the inner loop goes through one item of an outer loop,
 * and the list is made empty for each outer item, so it holds one group's
 * outputs, not the data set's. */
bool oom_pymodel_holds_one_outer_item(const oom_pymodel *m, TSNode target, TSNode site)
{
    if (ts_node_symbol(target) != m->sym.identifier)
        return false;
    uint32_t pos = ts_node_start_byte(site);
    int scope = oom_model_scope_at(m, pos);
    const oom_loop *inner = innermost_loop(m, pos, scope);
    if (!inner || ts_node_is_null(inner->iterable) || ts_node_symbol(inner->iterable) != m->sym.identifier)
        return false;
    uint32_t ilen, slen;
    const char *item = oom_node_text(m, inner->iterable, &ilen);
    const char *store = oom_node_text(m, target, &slen);
    for (size_t i = 0; i < m->loop_count; i++) {
        const oom_loop *outer = &m->loops[i];
        if (outer == inner || outer->scope != scope || outer->start > inner->start || outer->end < inner->end ||
            ts_node_is_null(outer->iterable))
            continue;
        bool over_outer_item = false, fresh = false;
        for (int b = m->scopes[scope].last_binding; b >= 0; b = m->bindings[b].prev) {
            const oom_binding *bd = &m->bindings[b];
            if (bd->kind == OOM_BIND_ITER && bd->name_len == ilen && memcmp(bd->name, item, ilen) == 0 &&
                ts_node_eq(bd->value, outer->iterable))
                over_outer_item = true;
            if (bd->pos >= outer->start && bd->pos < inner->start && bd->name_len == slen &&
                memcmp(bd->name, store, slen) == 0 && binds_empty_container(m, bd))
                fresh = true;
        }
        if (over_outer_item && fresh)
            return true;
    }
    return false;
}

/* A loop over chunks of one batch: `range(...)` or the pieces of a tensor
 * (`x.split(k)`, `x.chunk(n)`), possibly under enumerate/zip. A loop over a
 * data loader goes through the data set: what it collects is the epoch's. */
/* A collection of a model's parts by its name: the plural of a model-like
 * name (`text_encoders`, `self.models`, `heads`). */
static bool names_model_parts(const oom_pymodel *m, TSNode e)
{
    if (ts_node_symbol(e) == m->sym.attribute)
        e = oom_model_child(m, e, "attribute", 9);
    if (ts_node_is_null(e) || ts_node_symbol(e) != m->sym.identifier)
        return false;
    uint32_t len;
    const char *text = oom_node_text(m, e, &len);
    return len > 1 && text[len - 1] == 's' && oom_model_name_is_model_like(text, len - 1);
}

/* What a loop goes through is one call's worth of work, not data: chunks
 * of one batch (`range(...)`, `x.split(k)`, `x.chunk(n)`) or the parts of a
 * model (SDXL's two text encoders: `for i, text_encoder in
 * enumerate(text_encoders)`, `zip(tokenizers, text_encoders)`). */
static bool iterates_chunks(const oom_pymodel *m, const oom_loop *l)
{
    TSNode it = l->iterable;
    for (int depth = 0; depth < 4 && !ts_node_is_null(it); depth++) {
        if (names_model_parts(m, it))
            return true;
        if (ts_node_symbol(it) == m->sym.identifier) {
            /* `micro_batches = data.split(micro_batch_size)`, then `for mb in
             * micro_batches:` (verl's critic): the pieces, through the name */
            uint32_t nlen;
            const char *n = oom_node_text(m, it, &nlen);
            const oom_binding *b = oom_model_last_binding(m, l->scope, n, nlen, l->start, false);
            if (!b || b->kind != OOM_BIND_VALUE || ts_node_is_null(b->value) ||
                ts_node_symbol(b->value) != m->sym.call)
                return false;
            it = b->value;
            continue;
        }
        if (ts_node_symbol(it) != m->sym.call)
            return false;
        TSNode fn = oom_model_child(m, it, "function", 8);
        uint32_t len;
        const char *text = oom_node_text(m, fn, &len);
        if (ts_node_symbol(fn) == m->sym.identifier && len == 5 && memcmp(text, "range", 5) == 0)
            return true;
        if (ts_node_symbol(fn) == m->sym.attribute) {
            uint32_t alen;
            TSNode attr = oom_model_child(m, fn, "attribute", 9);
            const char *a = oom_node_text(m, attr, &alen);
            return (alen == 5 && memcmp(a, "split", 5) == 0) || (alen == 5 && memcmp(a, "chunk", 5) == 0);
        }
        bool wrapper = ts_node_symbol(fn) == m->sym.identifier &&
                       ((len == 9 && memcmp(text, "enumerate", 9) == 0) || (len == 3 && memcmp(text, "zip", 3) == 0));
        if (!wrapper)
            return false;
        TSNode args = oom_model_child(m, it, "arguments", 9);
        uint32_t count = ts_node_named_child_count(args);
        for (uint32_t i = 1; i < count && len == 3; i++) /* zip(tokenizers, text_encoders) */
            if (names_model_parts(m, oom_model_named_child(m, args, i)))
                return true;
        it = count ? oom_model_named_child(m, args, 0) : (TSNode){0};
    }
    return false;
}

/* A language model's logits (`logits`, `out.logits`, `lm_logits`): one
 * vocabulary-sized row per token, the tensor that chunking a batch exists to
 * bound; collecting every chunk's undoes it (TRL's PPO trainer kept them all
 * until its fix collected them only when the caller asked). */
static bool names_logits(const oom_pymodel *m, TSNode value)
{
    if (ts_node_symbol(value) == m->sym.attribute)
        value = oom_model_child(m, value, "attribute", 9);
    if (ts_node_is_null(value) || ts_node_symbol(value) != m->sym.identifier)
        return false;
    uint32_t len;
    const char *text = oom_node_text(m, value, &len);
    for (uint32_t i = 0; i + 6 <= len; i++)
        if (memcmp(text + i, "logits", 6) == 0)
            return true;
    return false;
}

/* The value a `store.append(value)` site adds. */
static TSNode appended_value(const oom_pymodel *m, TSNode site)
{
    TSNode args = ts_node_symbol(site) == m->sym.call ? oom_model_child(m, site, "arguments", 9) : (TSNode){0};
    return ts_node_is_null(args) || !ts_node_named_child_count(args) ? (TSNode){0}
                                                                       : oom_model_named_child(m, args, 0);
}

/* Whether a name read in `e` was bound, after `after`, to a value that
 * combines the storage `name` (`embeds = torch.concat(embeds_list, -1)`). */
static bool reads_a_combination(const oom_pymodel *m, int scope, TSNode e, uint32_t after, const char *name,
                                uint32_t len, int depth)
{
    if (ts_node_is_null(e) || depth > OOM_MODEL_MAX_DEPTH || ts_node_symbol(e) == m->sym.lambda)
        return false;
    if (ts_node_symbol(e) == m->sym.identifier) {
        uint32_t elen;
        const char *etext = oom_node_text(m, e, &elen);
        const oom_binding *b = oom_model_last_binding(m, scope, etext, elen, ts_node_start_byte(e), true);
        if (!b || b->pos < after || b->kind != OOM_BIND_VALUE || ts_node_is_null(b->value) ||
            ts_node_start_byte(b->value) >= ts_node_start_byte(e))
            return false;
        /* `values = torch.concat(values_lst)`, then `values = values * mask`:
         * the names the later binding reads, followed back */
        return combined_in(m, b->value, name, len, 0) ||
               reads_a_combination(m, scope, b->value, after, name, len, depth + 1);
    }
    uint32_t count = ts_node_named_child_count(e);
    for (uint32_t i = 0; i < count; i++)
        if (reads_a_combination(m, scope, oom_model_named_child(m, e, i), after, name, len, depth + 1))
            return true;
    return false;
}

/* `return torch.cat(outs)`, or what the list was combined into after the
 * loop (`embeds = torch.concat(embeds_list, dim=-1)`, then `return embeds,
 * pooled` or `return {"prompt_embeds": embeds.cpu()}`). */
static bool returns_combined(const oom_pymodel *m, const oom_return *r, const oom_loop *loop, const char *name,
                             uint32_t len)
{
    return combined_in(m, r->value, name, len, 0) ||
           reads_a_combination(m, r->scope, r->value, loop->end, name, len, 0);
}

/* `return images` after `for i in range(sample_steps, 0, -1): ...
 * images.append(z)` (minRF's sampler): a loop over steps, not data, whose
 * whole list is what the function returns: the trajectory the caller asked
 * for (to animate every step), not a pile-up beside a result. */
static bool returns_the_steps(const oom_pymodel *m, const oom_return *r, const oom_loop *loop, const char *name,
                              uint32_t len)
{
    TSNode it = loop->iterable;
    if (ts_node_is_null(it) || ts_node_symbol(it) != m->sym.call ||
        !oom_node_text_is(m, oom_model_child(m, it, "function", 8), "range"))
        return false;
    uint32_t rlen;
    const char *returned = oom_node_text(m, r->value, &rlen);
    return ts_node_symbol(r->value) == m->sym.identifier && rlen == len && memcmp(returned, name, len) == 0;
}

/* Whether `e` reads a tensor's size: `x.size(1)`, `x.shape[1]`, `len(x)`
 * is not one (a dataset has a length too). */
static bool reads_tensor_size(const oom_pymodel *m, TSNode e, int depth)
{
    if (ts_node_is_null(e) || depth > 8)
        return false;
    if (ts_node_symbol(e) == m->sym.attribute) {
        TSNode attr = oom_model_child(m, e, "attribute", 9);
        if (oom_node_text_is(m, attr, "shape") || oom_node_text_is(m, attr, "size"))
            return true;
    }
    oom_model_kids kids = oom_model_kids_of(m, e);
    for (TSNode k; oom_model_next_kid(m, &kids, &k);)
        if (reads_tensor_size(m, k, depth + 1))
            return true;
    return false;
}

/* `for i in range(0, input_ids.size(1), self.context_len)`: the slices of
 * one tensor along a dimension, one request's input cut to the context. */
static bool ranges_over_a_tensor(const oom_pymodel *m, const oom_loop *l)
{
    TSNode it = l->iterable;
    if (ts_node_is_null(it) || ts_node_symbol(it) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, it, "function", 8);
    return ts_node_symbol(fn) == m->sym.identifier && oom_node_text_is(m, fn, "range") &&
           reads_tensor_size(m, oom_model_child(m, it, "arguments", 9), 0);
}

/* The list is put together after the loop, in the same function
 * (`all_embeddings_tensor = torch.stack(all_embeddings)`). */
static bool combined_after(const oom_pymodel *m, int scope, const oom_loop *loop, const char *name, uint32_t len)
{
    for (int i = m->scopes[scope].last_binding; i >= 0; i = m->bindings[i].prev) {
        const oom_binding *b = &m->bindings[i];
        if (b->pos >= loop->end && b->kind == OOM_BIND_VALUE && !ts_node_is_null(b->value) &&
            combined_in(m, b->value, name, len, 0))
            return true;
    }
    return false;
}

/* A function that runs its batch in chunks and returns the chunks put
 * together (`for i in range(n): outs.append(model(x[i*k:(i+1)*k]))` then
 * `return torch.cat(outs)`), or cuts one tensor along a dimension
 * (`range(0, ids.size(1), step)`) and puts the pieces together after the
 * loop: the list is built within one call and is the function's output
 * (or becomes it), as one forward over the whole batch would be; whether
 * its graph is kept is the caller's doing. A loop that calls backward is a
 * training loop: there the list holds every step's graph, returned or not;
 * and a list of every chunk's logits holds what the chunks were cut to bound. */
bool oom_pymodel_is_chunked_output(const oom_pymodel *m, TSNode target, TSNode site)
{
    if (ts_node_symbol(target) != m->sym.identifier)
        return false;
    uint32_t pos = ts_node_start_byte(site);
    int scope = oom_model_scope_at(m, pos);
    if (scope <= 0)
        return false;
    const oom_loop *loop = innermost_loop(m, pos, scope);
    if (!loop || !iterates_chunks(m, loop) || loop_calls_backward(m, loop))
        return false;
    TSNode value = appended_value(m, site);
    if (!ts_node_is_null(value) && names_logits(m, value))
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, target, &len);
    for (size_t i = 0; i < m->return_count; i++) {
        const oom_return *r = &m->returns[i];
        if (r->scope == scope && !ts_node_is_null(r->value) && ts_node_start_byte(r->value) >= loop->end &&
            (returns_combined(m, r, loop, name, len) || returns_the_steps(m, r, loop, name, len)))
            return true;
    }
    return ranges_over_a_tensor(m, loop) && combined_after(m, scope, loop, name, len);
}

/* `e` is an all-pairs product reading `name`: `a @ b.t()` (either side),
 * `torch.mm`, `torch.matmul`, `torch.cdist`, `torch.einsum`. */
static bool pairs_product_reads(const oom_pymodel *m, TSNode e, const char *name, uint32_t len, int depth)
{
    if (ts_node_is_null(e) || depth > 64)
        return false;
    TSSymbol s = ts_node_symbol(e);
    if (s == m->sym.function_definition || s == m->sym.lambda)
        return false;
    if (strcmp(ts_node_type(e), "binary_operator") == 0) {
        TSNode op = oom_model_child(m, e, "operator", 8);
        if (!ts_node_is_null(op) && strcmp(ts_node_type(op), "@") == 0 && mentions(m, e, name, len, 0))
            return true;
    }
    if (s == m->sym.call) {
        TSNode fn = oom_model_child(m, e, "function", 8);
        uint32_t flen;
        const char *f = oom_node_text(m, fn, &flen);
        static const char *const products[] = {"torch.mm", "torch.matmul", "torch.cdist", "torch.einsum", NULL};
        if (f && oom_model_text_in(f, flen, products) && mentions(m, oom_model_child(m, e, "arguments", 9), name, len, 0))
            return true;
    }
    oom_model_kids kids = oom_model_kids_of(m, e);
    for (TSNode k; oom_model_next_kid(m, &kids, &k);)
        if (pairs_product_reads(m, k, name, len, depth + 1))
            return true;
    return false;
}

/* BLIP's retrieval evaluation: every caption's embedding is collected, put
 * together after the loop (`text_embeds = torch.cat(text_embeds)`) and
 * multiplied with every image's (`image_embeds @ text_embeds.t()`): the
 * all-pairs product needs the whole set on the device at once, so moving
 * each batch to the host would only move it back. */
bool oom_pymodel_combined_for_all_pairs(const oom_pymodel *m, TSNode target, TSNode site)
{
    if (ts_node_symbol(target) != m->sym.identifier)
        return false;
    uint32_t pos = ts_node_start_byte(site);
    int scope = oom_model_scope_at(m, pos);
    const oom_loop *loop = scope > 0 ? innermost_loop(m, pos, scope) : NULL;
    if (!loop || ts_node_is_null(m->scopes[scope].def))
        return false;
    uint32_t len;
    const char *name = oom_node_text(m, target, &len);
    for (int i = m->scopes[scope].last_binding; i >= 0; i = m->bindings[i].prev) {
        const oom_binding *b = &m->bindings[i];
        if (b->pos >= loop->end && b->kind == OOM_BIND_VALUE && !ts_node_is_null(b->value) &&
            combined_in(m, b->value, name, len, 0) &&
            pairs_product_reads(m, oom_model_child(m, m->scopes[scope].def, "body", 4), b->name, b->name_len, 0))
            return true;
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

/* Whether `e` is, or is inside, the arguments of a `.load_state_dict(...)`
 * call: one that copies what it is given (a model's), or any one given an
 * entry of the loaded value (`optimizer.load_state_dict(torch.load(p)["opt"])`:
 * the rest of the checkpoint is on the device too). An optimizer given the
 * whole value adopts its tensors; a scheduler's or scaler's holds none. */
static bool inside_load_state_dict(const oom_pymodel *m, TSNode e)
{
    bool whole = true;
    for (int depth = 0; depth < 6 && !ts_node_is_null(e); depth++, e = oom_model_parent(m, e)) {
        const char *type = ts_node_type(e);
        if (ts_node_symbol(e) != m->sym.call) {
            whole &= strcmp(type, "parenthesized_expression") == 0 || strcmp(type, "argument_list") == 0;
            continue;
        }
        uint32_t len;
        const char *name = oom_node_last_name(m, oom_model_child(m, e, "function", 8), &len);
        if (name && len == 15 && memcmp(name, "load_state_dict", 15) == 0)
            return !(whole && oom_model_load_keeps_no_copy(m, e));
        whole = false;
    }
    return false;
}

/* The call's first argument is the name itself, not an entry of it. */
static bool given_whole(const oom_pymodel *m, TSNode call, const char *name, uint32_t len)
{
    TSNode first = oom_model_named_child(m, oom_model_child(m, call, "arguments", 9), 0);
    uint32_t n;
    const char *t = ts_node_is_null(first) ? NULL : oom_node_text(m, first, &n);
    return t && ts_node_symbol(first) == m->sym.identifier && n == len && memcmp(t, name, len) == 0;
}

/* A `.load_state_dict(...)` call of `scope` after `pos` whose arguments read
 * `name` (not an optimizer's, scheduler's or scaler's given the name whole), directly or through one name bound from it (`csd =
 * ckpt["model"].float().state_dict()`, then `model.load_state_dict(csd)`). */
static bool name_loaded_into_model(const oom_pymodel *m, int scope, uint32_t pos, const char *name, uint32_t len,
                                   int depth)
{
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->pos < pos || c->name_len != 15 || memcmp(c->name, "load_state_dict", 15) != 0 ||
            oom_model_scope_at(m, c->pos) != scope)
            continue;
        if (mentions(m, oom_model_child(m, c->node, "arguments", 9), name, len, 0) &&
            !(given_whole(m, c->node, name, len) && oom_model_load_keeps_no_copy(m, c->node)))
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


/* ---- a model output's per-layer tuples ------------------------------------------------------- */

/* With autograd on, every layer's output is already saved for the backward
 * (it is the next layer's input), so `output_hidden_states=True` costs
 * memory only while the returned tuple keeps those tensors alive after the
 * backward has freed the graph. That needs the tuple (or the whole output)
 * to outlive the function that made it, or the backward to run in that
 * function. What follows decides whether it may; anything it cannot read
 * counts as "may". */

typedef enum { OUT_WHOLE, OUT_LAYERS } output_part;

#define OUTPUT_ESCAPE_DEPTH 6

/* Fields of a model output that hold one tensor per layer. */
static const char *const per_layer_fields[] = {"hidden_states", "attentions", "encoder_hidden_states",
                                               "decoder_hidden_states", "encoder_attentions",
                                               "decoder_attentions", "cross_attentions", "vision_hidden_states",
                                               NULL};

static bool escapes(const oom_pymodel *m, TSNode e, output_part part, int depth);

static bool node_is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* `x[0]`: the first entry of an output, loss or logits or the last hidden
 * state, is never a tuple of layers. */
static bool is_zero(const oom_pymodel *m, TSNode key)
{
    return node_is(key, "integer") && oom_node_text_is(m, key, "0");
}

static bool key_names_layers(const oom_pymodel *m, TSNode key)
{
    oom_buf s;
    oom_buf_init(&s);
    bool yes = oom_pymodel_string_value(m, key, &s) && oom_model_text_in(s.data, s.len, per_layer_fields);
    oom_buf_free(&s);
    return yes;
}

/* `out[k]` of a whole output or of a tuple of layers. */
static bool subscript_escapes(const oom_pymodel *m, TSNode sub, output_part part, int depth)
{
    TSNode key = oom_model_child(m, sub, "subscript", 9);
    if (node_is(key, "slice"))
        return escapes(m, sub, part, depth + 1); /* still a tuple */
    if (part == OUT_LAYERS)
        return false; /* one layer's tensor */
    if (is_zero(m, key))
        return false;
    oom_buf s;
    oom_buf_init(&s);
    bool string_key = oom_pymodel_string_value(m, key, &s);
    oom_buf_free(&s);
    if (string_key && !key_names_layers(m, key))
        return false; /* out["logits"] */
    return escapes(m, sub, OUT_LAYERS, depth + 1); /* out[-1] may be the hidden states */
}

/* `out.f`: a tensor field (`.logits`, `.loss`) lets the layers go. */
static bool attribute_escapes(const oom_pymodel *m, TSNode attr, output_part part, int depth)
{
    if (part == OUT_LAYERS)
        return false; /* a method of the tuple (index, count) or of one tensor */
    uint32_t len;
    const char *name = oom_node_text(m, oom_model_child(m, attr, "attribute", 9), &len);
    static const char *const whole_views[] = {"to_tuple", "values", "items", "get", NULL};
    if (oom_model_text_in(name, len, per_layer_fields))
        return escapes(m, attr, OUT_LAYERS, depth + 1);
    return oom_model_text_in(name, len, whole_views);
}

/* Passed to a call: torch's functions make new tensors and keep nothing
 * (but torch.stack/cat of the tuple copies every layer); len() and
 * isinstance() read it. Anything else may keep it. */
static bool argument_escapes(const oom_pymodel *m, TSNode args)
{
    TSNode call = oom_model_parent(m, args);
    TSNode fn = oom_model_child(m, call, "function", 8);
    oom_buf q;
    oom_buf_init(&q);
    bool kept = true;
    static const char *const copies[] = {"stack", "cat", "concat", "concatenate", "hstack", "vstack", "dstack",
                                         NULL};
    static const char *const readers[] = {"len", "isinstance", NULL};
    if (oom_pymodel_qualname(m, fn, &q)) {
        const char *dot = strrchr(q.data, '.');
        const char *last = dot ? dot + 1 : q.data;
        if (oom_str_starts_with(q.data, "torch."))
            kept = oom_model_text_in(last, strlen(last), copies);
        else if (!dot)
            kept = !oom_model_text_in(last, strlen(last), readers);
    }
    oom_buf_free(&q);
    return kept;
}

static bool name_escapes(const oom_pymodel *m, TSNode site, output_part part, int depth);

static bool assigned_escapes(const oom_pymodel *m, TSNode left, output_part part, int depth)
{
    if (ts_node_symbol(left) == m->sym.identifier)
        return name_escapes(m, left, part, depth + 1);
    if (ts_node_symbol(left) != m->sym.pattern_list && ts_node_symbol(left) != m->sym.tuple_pattern &&
        ts_node_symbol(left) != m->sym.list_pattern)
        return true; /* self.outputs = ..., cache[k] = ... */
    oom_model_kids kids = oom_model_kids_of(m, left);
    for (TSNode el; oom_model_next_kid(m, &kids, &el);) /* `_, _, values = model(...)`: entries */
        if (ts_node_symbol(el) != m->sym.identifier || name_escapes(m, el, OUT_LAYERS, depth + 1))
            return true;
    return false;
}

/* Where the value of `e` (the output, or a tuple of its layers) goes. */
static bool escapes(const oom_pymodel *m, TSNode e, output_part part, int depth)
{
    if (depth > OUTPUT_ESCAPE_DEPTH)
        return true;
    TSNode p = oom_model_parent(m, e);
    while (node_is(p, "parenthesized_expression")) {
        e = p;
        p = oom_model_parent(m, p);
    }
    if (ts_node_is_null(p))
        return true;
    TSSymbol s = ts_node_symbol(p);
    if (s == m->sym.attribute && ts_node_eq(oom_model_child(m, p, "object", 6), e))
        return attribute_escapes(m, p, part, depth);
    if (node_is(p, "subscript") && ts_node_eq(oom_model_child(m, p, "value", 5), e))
        return subscript_escapes(m, p, part, depth);
    if (s == m->sym.assignment && ts_node_eq(oom_model_child(m, p, "right", 5), e))
        return assigned_escapes(m, oom_model_child(m, p, "left", 4), part, depth);
    if (s == m->sym.expression_statement || node_is(p, "delete_statement"))
        return false; /* dropped, or deleted */
    if (s == m->sym.keyword_argument)
        p = oom_model_parent(m, p);
    if (node_is(p, "argument_list"))
        return argument_escapes(m, p);
    return true; /* returned, yielded, put in a container, compared ... */
}

/* An identifier that a statement binds rather than reads. */
static bool binds(const oom_pymodel *m, TSNode id)
{
    TSNode p = oom_model_parent(m, id);
    while (ts_node_symbol(p) == m->sym.pattern_list || ts_node_symbol(p) == m->sym.tuple_pattern ||
           ts_node_symbol(p) == m->sym.list_pattern)
        p = oom_model_parent(m, p);
    TSSymbol s = ts_node_symbol(p);
    if (s != m->sym.assignment && s != m->sym.augmented_assignment && s != m->sym.for_statement)
        return false;
    TSNode left = oom_model_child(m, p, "left", 4);
    return ts_node_start_byte(id) >= ts_node_start_byte(left) && ts_node_end_byte(id) <= ts_node_end_byte(left);
}

/* `x.outputs`, `f(outputs=...)`: a field's or keyword's name, not a read. */
static bool is_field_name(const oom_pymodel *m, TSNode id)
{
    TSNode p = oom_model_parent(m, id);
    if (ts_node_symbol(p) == m->sym.attribute)
        return ts_node_eq(oom_model_child(m, p, "attribute", 9), id);
    if (ts_node_symbol(p) == m->sym.keyword_argument)
        return ts_node_eq(oom_model_child(m, p, "name", 4), id);
    return false;
}

typedef struct {
    const oom_pymodel *m;
    TSNode site; /* the identifier the output is bound to */
    output_part part;
    int depth;
    bool escaped;
} name_walk;

/* Whether the binding `site` may reach the read `use`; unknown counts as yes. */
static bool reaches(const oom_pymodel *m, TSNode use, TSNode site)
{
    oom_flow_reach r;
    oom_model_reaching(m, use, &r);
    if (r.answer != OOM_FLOW_LOCAL)
        return true; /* a closure's read, or a body the flow does not know */
    uint32_t known = r.count < OOM_FLOW_MAX_REACH ? r.count : OOM_FLOW_MAX_REACH;
    for (uint32_t i = 0; i < known; i++)
        if (ts_node_eq(r.defs[i]->site, site))
            return true;
    return r.count > OOM_FLOW_MAX_REACH;
}

static bool visit_output_read(void *ctx, TSNode n)
{
    name_walk *w = ctx;
    const oom_pymodel *m = w->m;
    if (ts_node_symbol(n) != m->sym.identifier || ts_node_eq(n, w->site))
        return true;
    uint32_t len, want;
    const char *text = oom_node_text(m, n, &len), *name = oom_node_text(m, w->site, &want);
    if (len != want || memcmp(text, name, len) != 0 || binds(m, n) || is_field_name(m, n))
        return true;
    if (reaches(m, n, w->site) && escapes(m, n, w->part, w->depth))
        w->escaped = true;
    return !w->escaped;
}

/* Every read the binding `site` reaches, in its function, lets the layers go. */
static bool name_escapes(const oom_pymodel *m, TSNode site, output_part part, int depth)
{
    if (depth > OUTPUT_ESCAPE_DEPTH || oom_pymodel_declared_outside(m, site))
        return true;
    int scope = oom_model_scope_at(m, ts_node_start_byte(site));
    TSNode home = m->scopes[scope].def;
    if (ts_node_is_null(home))
        return true;
    name_walk w = {m, site, part, depth, false};
    oom_pymodel_walk(m, home, visit_output_read, &w);
    return w.escaped;
}

static bool scope_runs_backward(const oom_pymodel *m, int scope)
{
    for (size_t i = 0; i < m->backward_call_count; i++)
        if (m->backward_calls[i].scope == scope)
            return true;
    return false;
}

bool oom_pymodel_output_layers_escape(const oom_pymodel *m, TSNode call)
{
    int scope = oom_model_scope_at(m, ts_node_start_byte(call));
    if (scope <= 0 || ts_node_is_null(m->scopes[scope].def) || scope_runs_backward(m, scope))
        return true; /* a script's name lives on; a backward here runs while it does */
    return escapes(m, call, OUT_WHOLE, 0);
}

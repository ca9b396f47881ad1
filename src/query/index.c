/* query/index: what the matcher needs beyond the patterns as read: the
 * patterns by the type of their root node, the text constraints taken from
 * #eq? and #any-of?, and each pattern's necessary conditions (the children
 * every match must have), all computed once per query. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- the root index ---------------------------------------------------------- */

static void add_root(uint32_t **lists, size_t *counts, size_t *caps, uint32_t slot, uint32_t p)
{
    for (size_t i = 0; i < counts[slot]; i++)
        if (lists[slot][i] == p)
            return;
    OOM_PUSH(lists[slot], counts[slot], caps[slot], p);
}

/* Slots: 0..symbol_count-1 by symbol, then wildcard, then ERROR. */
static void root_slots(const oom_query *q, uint32_t node, uint32_t p, uint32_t **lists,
                       size_t *counts, size_t *caps)
{
    const qnode *n = &q->nodes[node];
    uint32_t wildcard = q->symbol_count, error = q->symbol_count + 1;
    if (n->kind == QN_ALT) {
        bool any = false;
        for (uint32_t i = 0; i < n->link_count; i++) {
            const qnode *a = &q->nodes[q->links[n->links + i]];
            any = any || (a->kind == QN_NODE && a->wildcard) || a->kind == QN_ALT;
        }
        if (any) {
            add_root(lists, counts, caps, wildcard, p);
            return;
        }
        for (uint32_t i = 0; i < n->link_count; i++)
            root_slots(q, q->links[n->links + i], p, lists, counts, caps);
        return;
    }
    if (n->wildcard)
        add_root(lists, counts, caps, wildcard, p);
    else if (n->symbol == QSYM_ERROR)
        add_root(lists, counts, caps, error, p);
    else if (n->symbol < q->symbol_count)
        add_root(lists, counts, caps, n->symbol, p);
}

/* ---- text constraints from #eq? and #any-of? ------------------------------------ */

/* The one node of the pattern under `node` that carries capture `id`, or
 * QNONE when none or several do. */
static uint32_t node_with_capture(const oom_query *q, uint32_t node, uint32_t id, int *seen)
{
    const qnode *n = &q->nodes[node];
    uint32_t found = QNONE;
    for (uint32_t i = 0; i < n->cap_count; i++)
        if (q->cap_ids[n->caps + i] == id) {
            found = node;
            (*seen)++;
            break;
        }
    for (uint32_t i = 0; i < n->link_count; i++) {
        uint32_t f = node_with_capture(q, q->links[n->links + i], id, seen);
        if (f != QNONE)
            found = f;
    }
    return found;
}

/* Whether `target` is reached from `node` through nodes every match binds
 * (no alternation, nothing optional on the way). */
static bool bound_below(const oom_query *q, uint32_t node, uint32_t target)
{
    const qnode *n = &q->nodes[node];
    if (n->kind != QN_NODE || n->optional)
        return false;
    if (node == target)
        return true;
    for (uint32_t i = 0; i < n->link_count; i++)
        if (bound_below(q, q->links[n->links + i], target))
            return true;
    return false;
}

bool oom_query_capture_always_bound(const oom_query *q, uint32_t pattern, uint32_t capture, TSSymbol *symbol)
{
    if (pattern >= q->pattern_count)
        return false;
    int seen = 0;
    uint32_t root = q->patterns[pattern].root;
    uint32_t node = node_with_capture(q, root, capture, &seen);
    if (node == QNONE || seen != 1 || !bound_below(q, root, node))
        return false;
    *symbol = q->nodes[node].wildcard ? 0 : q->nodes[node].symbol;
    return true;
}

static bool string_is(const oom_query *q, uint32_t id, const char *s)
{
    return q->strings[id].len == strlen(s) && memcmp(q->strings[id].text, s, q->strings[id].len) == 0;
}

/* (#eq? @c "text") or (#any-of? @c "a" "b" ...) in steps [0, n): the node
 * carrying @c must have one of those texts. */
static void constrain_text(oom_query *q, const qpattern *p, const TSQueryPredicateStep *st, uint32_t n)
{
    if (n < 3 || st[0].type != TSQueryPredicateStepTypeString ||
        st[1].type != TSQueryPredicateStepTypeCapture)
        return;
    if (!string_is(q, st[0].value_id, "eq?") && !string_is(q, st[0].value_id, "any-of?"))
        return;
    if (string_is(q, st[0].value_id, "eq?") && n != 3)
        return;
    for (uint32_t i = 2; i < n; i++)
        if (st[i].type != TSQueryPredicateStepTypeString)
            return;
    int seen = 0;
    uint32_t node = node_with_capture(q, p->root, st[1].value_id, &seen);
    if (node == QNONE || seen != 1 || q->nodes[node].kind != QN_NODE || q->nodes[node].text_count)
        return;
    q->nodes[node].texts = (uint32_t)q->text_id_count;
    q->nodes[node].text_count = n - 2;
    for (uint32_t i = 2; i < n; i++)
        OOM_PUSH(q->text_ids, q->text_id_count, q->text_id_cap, st[i].value_id);
}

static bool captures_under(const oom_query *q, uint32_t node)
{
    const qnode *n = &q->nodes[node];
    if (n->cap_count)
        return true;
    for (uint32_t i = 0; i < n->link_count; i++)
        if (captures_under(q, q->links[n->links + i]))
            return true;
    return false;
}

static bool subtree_prunable(const oom_query *q, uint32_t node)
{
    const qnode *n = &q->nodes[node];
    if (n->optional)
        return false;
    for (uint32_t i = 0; i < n->link_count; i++) {
        uint32_t kid = q->links[n->links + i];
        if (n->kind == QN_ALT ? captures_under(q, kid) : !subtree_prunable(q, kid))
            return false;
    }
    return true;
}

static void index_texts(oom_query *q)
{
    for (size_t pi = 0; pi < q->pattern_count; pi++) {
        qpattern *p = &q->patterns[pi];
        p->prunable = subtree_prunable(q, p->root);
        if (p->step_count == 0 || !p->prunable)
            continue;
        const TSQueryPredicateStep *st = q->steps + p->steps;
        uint32_t start = 0;
        for (uint32_t i = 0; i < p->step_count; i++)
            if (st[i].type == TSQueryPredicateStepTypeDone) {
                constrain_text(q, p, st + start, i - start);
                start = i + 1;
            }
    }
}

/* ---- necessary conditions ----------------------------------------------------------- */

/* A pattern node worth testing up front: bound by every match, in a field,
 * and saying something (a type or a text). */
static bool telling(const qnode *n)
{
    return n->kind == QN_NODE && !n->optional && n->field && (!n->wildcard || n->text_count);
}

static void add_req(qpattern *p, uint8_t depth, TSFieldId f0, TSFieldId f1, uint32_t mid, uint32_t node)
{
    if (p->req_count == QUERY_MAX_REQS)
        return;
    qreq r = {depth, {f0, f1}, mid, node};
    p->reqs[p->req_count++] = r;
}

static void index_reqs(oom_query *q, qpattern *p)
{
    const qnode *root = &q->nodes[p->root];
    if (root->kind != QN_NODE)
        return;
    for (uint32_t i = 0; i < root->link_count; i++) {
        uint32_t ci = q->links[root->links + i];
        const qnode *c = &q->nodes[ci];
        if (c->kind != QN_NODE || c->optional || !c->field)
            continue;
        if (telling(c))
            add_req(p, 1, c->field, 0, ci, ci);
        for (uint32_t j = 0; j < c->link_count; j++) {
            uint32_t gi = q->links[c->links + j];
            if (telling(&q->nodes[gi]))
                add_req(p, 2, c->field, q->nodes[gi].field, ci, gi);
        }
    }
}

void oom_query_index_roots(oom_query *q)
{
    index_texts(q);
    for (size_t pi = 0; pi < q->pattern_count; pi++)
        index_reqs(q, &q->patterns[pi]);
    q->symbol_count = ts_language_symbol_count(q->lang);
    uint32_t slots = q->symbol_count + 2;
    uint32_t **lists = oom_xcalloc(slots, sizeof(uint32_t *));
    size_t *counts = oom_xcalloc(slots, sizeof(size_t));
    size_t *caps = oom_xcalloc(slots, sizeof(size_t));
    q->named_symbol = oom_xcalloc(q->symbol_count, sizeof(bool));
    for (uint32_t s = 0; s < q->symbol_count; s++)
        q->named_symbol[s] = ts_language_symbol_type(q->lang, (TSSymbol)s) == TSSymbolTypeRegular;
    q->all_native = true;
    for (uint32_t p = 0; p < q->pattern_count; p++) {
        if (!q->patterns[p].native) {
            q->all_native = false;
            continue;
        }
        root_slots(q, q->patterns[p].root, p, lists, counts, caps);
    }
    q->root_start = oom_xcalloc(q->symbol_count + 1, sizeof(uint32_t));
    size_t total = 0;
    for (uint32_t s = 0; s < q->symbol_count; s++)
        total += counts[s];
    q->root_patterns = oom_xcalloc(total ? total : 1, sizeof(uint32_t));
    uint32_t at = 0;
    for (uint32_t s = 0; s < q->symbol_count; s++) {
        q->root_start[s] = at;
        for (size_t i = 0; i < counts[s]; i++)
            q->root_patterns[at++] = lists[s][i];
    }
    q->root_start[q->symbol_count] = at;
    q->wildcard_roots = lists[q->symbol_count];
    q->wildcard_root_count = counts[q->symbol_count];
    q->error_roots = lists[q->symbol_count + 1];
    q->error_root_count = counts[q->symbol_count + 1];
    for (uint32_t s = 0; s < q->symbol_count; s++)
        free(lists[s]);
    free(lists);
    free(counts);
    free(caps);
}

/* query/match: running the native patterns over a tree laid out as an array
 * (oomlint/nodes.h). Every node is looked at once; one whose type roots no
 * pattern costs one table look-up. At a node that roots a pattern, a
 * backtracking search tries every way the pattern's children can match the
 * node's children in order, with continuations (the rest of the enclosing
 * sequence) passed down so that nested patterns need no copies of partial
 * matches. */
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

/* ---- the matcher ------------------------------------------------------------------ */

/* What to do once a pattern node has matched: go on with child `next` of
 * pattern node `parent`, against the children of tree node `tree_parent`
 * from child `from` on; then `up`. NULL: the whole pattern has matched. */
typedef struct cont {
    uint32_t parent; /* qnode */
    uint32_t next;   /* index among its children */
    uint32_t tree_parent, from; /* indices into the node array */
    const struct cont *up;
} cont;

struct oom_query_matcher {
    const oom_query *q;
    const oom_nodes *t;
    const char *src; /* the tree's text, for text constraints; may be NULL */
    bool prunable; /* the pattern being matched may be pruned */
    TSQueryCapture *caps; /* the captures of the match being built */
    size_t cap_len, cap_cap;
    TSQueryCapture *found; /* matches found at the current node, flattened */
    size_t found_len, found_cap;
    uint32_t *found_ends; /* end offset in `found` of each match */
    size_t match_count, match_cap;
    uint32_t work;
    bool over_limit;
};

oom_query_matcher *oom_query_matcher_new(void)
{
    oom_query_matcher *m = oom_xcalloc(1, sizeof(oom_query_matcher));
    /* never NULL, so a match without captures still points somewhere */
    oom_grow((void **)&m->found, &m->found_cap, 16, sizeof(TSQueryCapture));
    oom_grow((void **)&m->caps, &m->cap_cap, 16, sizeof(TSQueryCapture));
    return m;
}

void oom_query_matcher_free(oom_query_matcher *m)
{
    if (!m)
        return;
    free(m->caps);
    free(m->found);
    free(m->found_ends);
    free(m);
}

static bool is_named(const oom_query *q, TSSymbol s)
{
    return s < q->symbol_count ? q->named_symbol[s] : s == QSYM_ERROR;
}

static void match_node(oom_query_matcher *m, uint32_t qi, uint32_t at, const cont *next);

static void record_match(oom_query_matcher *m)
{
    if (m->match_count >= OOM_QUERY_MATCHES_PER_NODE)
        return;
    for (size_t i = 0; i < m->cap_len; i++)
        OOM_PUSH(m->found, m->found_len, m->found_cap, m->caps[i]);
    OOM_PUSH(m->found_ends, m->match_count, m->match_cap, (uint32_t)m->found_len);
}

static void run_sequence(oom_query_matcher *m, uint32_t parent, uint32_t next,
                         uint32_t tree_parent, uint32_t from, const cont *up);

static void resume(oom_query_matcher *m, const cont *k)
{
    if (!k)
        record_match(m);
    else
        run_sequence(m, k->parent, k->next, k->tree_parent, k->from, k->up);
}

/* Whether a sibling after node `at` (under tree_parent) is named. */
static bool named_sibling_follows(const oom_query_matcher *m, uint32_t tree_parent, uint32_t at)
{
    const oom_node *items = m->t->items;
    for (uint32_t j = items[at].end; j < items[tree_parent].end; j = items[j].end)
        if (is_named(m->q, items[j].symbol))
            return true;
    return false;
}

/* Matches children next.. of pattern node `parent` against the children of
 * tree node tree_parent from `from` on. */
static void run_sequence(oom_query_matcher *m, uint32_t parent, uint32_t next,
                         uint32_t tree_parent, uint32_t from, const cont *up)
{
    const oom_query *q = m->q;
    const oom_node *items = m->t->items;
    const qnode *pn = &q->nodes[parent];
    if (next == pn->link_count) {
        resume(m, up);
        return;
    }
    uint32_t ci = q->links[pn->links + next];
    const qnode *cp = &q->nodes[ci];
    cont k = {parent, next + 1, tree_parent, 0, up};
    uint32_t end = items[tree_parent].end;
    for (uint32_t j = from; j < end && !m->over_limit; j = items[j].end) {
        /* the cheap tests here, before a call: field, type, last-child anchor */
        bool fits = (!cp->field || items[j].field == cp->field) &&
                    (cp->kind != QN_NODE || cp->wildcard || items[j].symbol == cp->symbol) &&
                    !(cp->last_child && named_sibling_follows(m, tree_parent, j));
        if (fits) {
            k.from = items[j].end;
            match_node(m, ci, j, &k);
        }
        if (cp->immediate && is_named(q, items[j].symbol))
            break;
    }
    if (cp->optional && !m->over_limit)
        run_sequence(m, parent, next + 1, tree_parent, from, up);
}

static bool text_fits(const oom_query_matcher *m, const qnode *n, TSNode node)
{
    if (!m->src)
        return true;
    uint32_t a = ts_node_start_byte(node), len = ts_node_end_byte(node) - a;
    for (uint32_t i = 0; i < n->text_count; i++) {
        const qstring *s = &m->q->strings[m->q->text_ids[n->texts + i]];
        if (s->len == len && memcmp(s->text, m->src + a, len) == 0)
            return true;
    }
    return false;
}

static bool node_fits(const oom_query *q, const qnode *n, const oom_node *e)
{
    if (n->wildcard) {
        if (e->symbol == QSYM_ERROR)
            return false;
        if (n->named && !is_named(q, e->symbol))
            return false;
    } else if (e->symbol != n->symbol) {
        return false;
    }
    for (uint32_t i = 0; i < n->negated_count; i++)
        if (!ts_node_is_null(ts_node_child_by_field_id(e->node, q->negated[n->negated + i])))
            return false;
    return true;
}

static void push_captures(oom_query_matcher *m, const qnode *n, TSNode node)
{
    if (n->cap_count == 0)
        return;
    if (m->cap_len + n->cap_count > m->cap_cap)
        oom_grow((void **)&m->caps, &m->cap_cap, m->cap_len + n->cap_count, sizeof(TSQueryCapture));
    for (uint32_t i = 0; i < n->cap_count; i++) {
        m->caps[m->cap_len].node = node;
        m->caps[m->cap_len++].index = m->q->cap_ids[n->caps + i];
    }
}

/* Tries pattern node qi on tree node `at`; for each way it matches, goes on
 * with `next`. */
static void match_node(oom_query_matcher *m, uint32_t qi, uint32_t at, const cont *next)
{
    const oom_query *q = m->q;
    const qnode *n = &q->nodes[qi];
    const oom_node *e = &m->t->items[at];
    if (++m->work > OOM_QUERY_WORK_LIMIT) {
        m->over_limit = true;
        return;
    }
    size_t caps_before = m->cap_len;
    if (n->kind == QN_ALT) {
        push_captures(m, n, e->node);
        for (uint32_t i = 0; i < n->link_count && !m->over_limit; i++)
            match_node(m, q->links[n->links + i], at, next);
        m->cap_len = caps_before;
        return;
    }
    if (!node_fits(q, n, e) || (n->text_count && m->prunable && !text_fits(m, n, e->node)))
        return;
    push_captures(m, n, e->node);
    if (n->link_count == 0)
        resume(m, next);
    else
        run_sequence(m, qi, 0, at, at + 1, next);
    m->cap_len = caps_before;
}

/* ---- matches at one node: dedupe, drop subsets, report -------------------------- */

static bool capture_in(const TSQueryCapture *c, const TSQueryCapture *list, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        if (list[i].index == c->index && list[i].node.id == c->node.id)
            return true;
    return false;
}

/* Whether every capture of a is in b. */
static bool captures_within(const TSQueryCapture *a, uint32_t alen, const TSQueryCapture *b,
                            uint32_t blen)
{
    for (uint32_t i = 0; i < alen; i++)
        if (!capture_in(&a[i], b, blen))
            return false;
    return true;
}

static void report_matches(oom_query_matcher *m, uint32_t pattern, oom_on_match_fn on_match,
                           void *ctx)
{
    for (size_t i = 0; i < m->match_count; i++) {
        uint32_t a0 = i ? m->found_ends[i - 1] : 0, alen = m->found_ends[i] - a0;
        const TSQueryCapture *a = m->found + a0;
        bool drop = false;
        for (size_t j = 0; j < m->match_count && !drop; j++) {
            if (j == i)
                continue;
            uint32_t b0 = j ? m->found_ends[j - 1] : 0, blen = m->found_ends[j] - b0;
            const TSQueryCapture *b = m->found + b0;
            if (!captures_within(a, alen, b, blen))
                continue;
            /* b holds all of a: a strict subset goes, and of equals the later */
            drop = blen > alen || (captures_within(b, blen, a, alen) && j < i);
        }
        if (drop)
            continue;
        TSQueryMatch match = {0, (uint16_t)pattern, (uint16_t)alen, a};
        on_match(ctx, &match);
    }
}

/* Whether tree node `at` can be pattern node qi as far as type and text go. */
static bool fits_cheaply(const oom_query_matcher *m, uint32_t qi, uint32_t at)
{
    const qnode *n = &m->q->nodes[qi];
    const oom_node *e = &m->t->items[at];
    if (n->wildcard ? e->symbol == QSYM_ERROR || (n->named && !is_named(m->q, e->symbol))
                    : e->symbol != n->symbol)
        return false;
    return !n->text_count || !m->src || text_fits(m, n, e->node);
}

static bool req_holds(const oom_query_matcher *m, const qreq *r, uint32_t at)
{
    const oom_node *items = m->t->items;
    for (uint32_t k = at + 1; k < items[at].end; k = items[k].end) {
        if (items[k].field != r->field[0] || !fits_cheaply(m, r->mid, k))
            continue;
        if (r->depth == 1)
            return true;
        for (uint32_t g = k + 1; g < items[k].end; g = items[g].end)
            if (items[g].field == r->field[1] && fits_cheaply(m, r->node, g))
                return true;
    }
    return false;
}

static bool may_match(const oom_query_matcher *m, const qpattern *p, uint32_t at)
{
    for (uint32_t i = 0; i < p->req_count; i++)
        if (!req_holds(m, &p->reqs[i], at))
            return false;
    return true;
}

static void try_patterns(oom_query_matcher *m, const uint32_t *list, size_t count, uint32_t at,
                         oom_on_match_fn on_match, oom_on_limit_fn on_limit, void *ctx)
{
    for (size_t i = 0; i < count; i++) {
        uint32_t pattern = list[i];
        if (!may_match(m, &m->q->patterns[pattern], at))
            continue;
        m->work = 0;
        m->over_limit = false;
        m->found_len = 0;
        m->match_count = 0;
        m->cap_len = 0;
        m->prunable = m->q->patterns[pattern].prunable;
        match_node(m, m->q->patterns[pattern].root, at, NULL);
        if (m->over_limit) {
            if (on_limit)
                on_limit(ctx, pattern, m->t->items[at].node);
        } else if (m->match_count) {
            report_matches(m, pattern, on_match, ctx);
        }
    }
}

void oom_query_exec(oom_query_matcher *m, const oom_query *q, const oom_nodes *tree,
                    const char *src, oom_on_match_fn on_match, oom_on_limit_fn on_limit, void *ctx)
{
    m->q = q;
    m->t = tree;
    m->src = src;
    for (uint32_t at = 0; at < tree->len; at++) {
        TSSymbol s = tree->items[at].symbol;
        if (s < q->symbol_count) {
            uint32_t first = q->root_start[s], last = q->root_start[s + 1];
            if (first != last)
                try_patterns(m, q->root_patterns + first, last - first, at, on_match, on_limit, ctx);
        } else if (s == QSYM_ERROR) {
            try_patterns(m, q->error_roots, q->error_root_count, at, on_match, on_limit, ctx);
        }
        if (q->wildcard_root_count && s != QSYM_ERROR)
            try_patterns(m, q->wildcard_roots, q->wildcard_root_count, at, on_match, on_limit, ctx);
    }
}

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
    const uint8_t *only; /* patterns to run, by index; NULL: all */
};

oom_query_matcher *oom_query_matcher_new(void)
{
    oom_query_matcher *m = oom_xcalloc(1, sizeof(oom_query_matcher));
    /* never NULL, so a match without captures still points somewhere */
    oom_grow((void **)&m->found, &m->found_cap, 16, sizeof(TSQueryCapture));
    oom_grow((void **)&m->caps, &m->cap_cap, 16, sizeof(TSQueryCapture));
    return m;
}

void oom_query_matcher_only(oom_query_matcher *m, const uint8_t *on)
{
    m->only = on;
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
        if ((m->only && !m->only[pattern]) || !may_match(m, &m->q->patterns[pattern], at))
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

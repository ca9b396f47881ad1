/* Private layout of a read query, shared by query/parse.c and query/match.c. */
#ifndef OOMLINT_QUERY_INTERNAL_H
#define OOMLINT_QUERY_INTERNAL_H

#include "oomlint/nodes.h"
#include "oomlint/query.h"
#include "oomlint/util.h"

#define QNONE UINT32_MAX
/* tree-sitter's symbol of ERROR nodes (not in its public header) */
#define QSYM_ERROR ((TSSymbol)65535)

typedef enum { QN_NODE, QN_ALT } qn_kind;

/* One node of a pattern: `(call ...)`, `"+"`, `(_)`, `_` or `[...]`.
 * Children and alternatives are lists in q->links; captures in q->cap_ids;
 * negated fields (`!type`) in q->negated. */
typedef struct {
    uint8_t kind;     /* qn_kind */
    bool wildcard;    /* (_) or _ */
    bool named;       /* (_) and (name): only named nodes; _ and "text": any */
    bool immediate;   /* an anchor `.` stands before it among its siblings */
    bool last_child;  /* an anchor `.` stands after it, the last child */
    bool optional;    /* `?` */
    TSSymbol symbol;  /* when not a wildcard */
    TSFieldId field;  /* `field:` before it; 0 for none */
    uint32_t links, link_count;     /* children (QN_NODE) or alternatives (QN_ALT) */
    uint32_t caps, cap_count;       /* capture ids */
    uint32_t negated, negated_count; /* fields the node must not have */
    /* The node's text must be one of these q->strings (from an #eq? or
     * #any-of? on its capture): checked as soon as the node matches, so a
     * pattern stops early instead of at its predicates. */
    uint32_t texts, text_count; /* in q->text_ids */
} qnode;

/* A necessary condition of a pattern, tested before its matching: the root
 * has a child in field `field[0]` that fits pattern node `mid` (and, at
 * depth 2, a grandchild in `field[1]` under it that fits `node`). Built from
 * the pattern's nodes that every match must bind (no optional, no
 * alternation on the way), so a root that fails it has no match at all. */
typedef struct {
    uint8_t depth; /* 1 or 2 */
    TSFieldId field[2];
    uint32_t mid;  /* qnode of the child */
    uint32_t node; /* qnode tested last: the child (depth 1) or grandchild */
} qreq;

#define QUERY_MAX_REQS 4

typedef struct {
    uint32_t root;       /* qnode index */
    uint32_t start_byte; /* of the pattern in the query text */
    bool native;         /* matched here; otherwise by tree-sitter's cursor */
    /* Partial matches may be pruned by text constraints: false when the
     * pattern has an optional node or captures inside alternatives, where
     * pruning a match could leave a smaller one that the longest-match rule
     * would have dropped (and whose predicates on the missing capture then
     * hold vacuously). */
    bool prunable;
    uint32_t steps, step_count; /* predicate steps in q->steps */
    qreq reqs[QUERY_MAX_REQS];
    uint32_t req_count;
} qpattern;

typedef struct {
    char *text;
    uint32_t len;
} qstring;

struct oom_query {
    const TSLanguage *lang;
    qnode *nodes;
    size_t node_count, node_cap;
    uint32_t *links;
    size_t link_count, link_cap;
    uint32_t *cap_ids;
    size_t cap_id_count, cap_id_cap;
    TSFieldId *negated;
    size_t negated_count, negated_cap;
    qpattern *patterns;
    size_t pattern_count, pattern_cap;
    TSQueryPredicateStep *steps;
    size_t step_count, step_cap;
    qstring *captures; /* capture names by id */
    size_t capture_count, capture_cap;
    uint32_t *text_ids;
    size_t text_id_count, text_id_cap;
    qstring *strings; /* predicate strings by id */
    size_t string_count, string_cap;
    /* Native patterns by the symbol of their root node, in CSR form:
     * root_patterns[root_start[s] .. root_start[s + 1]) for symbol s. */
    uint32_t symbol_count;
    bool *named_symbol; /* by symbol: a named node type */
    uint32_t *root_start;
    uint32_t *root_patterns;
    uint32_t *wildcard_roots; /* native patterns whose root is (_) or _ */
    size_t wildcard_root_count;
    uint32_t *error_roots; /* native patterns rooted at (ERROR) */
    size_t error_root_count;
    bool all_native;
};

/* Indexes the patterns once they are read (query/index.c). */
void oom_query_index_roots(oom_query *q);

#endif

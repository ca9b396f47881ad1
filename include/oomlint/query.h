/* query: tree-sitter's query language, read and matched by oomlint itself.
 *
 * Why not ts_query_new and its cursor: compiling a query makes tree-sitter
 * analyse every pattern against the grammar's parse tables (98% of the
 * instructions of a one-file run), and its cursor keeps a state machine for
 * every node of the tree (two thirds of the analysis time on the benchmark
 * corpora). oomlint's patterns are small trees rooted at one node type, so
 * here they are indexed by that type: a node whose type roots no pattern
 * costs one table look-up, and a node that does is matched by a short
 * backtracking search over its children.
 *
 * The matcher follows tree-sitter's semantics (tests/unit and the
 * `match-diff` tool compare the two on the fixtures and on whole corpora):
 * children match in order with others skipped between them, `.` anchors
 * skip only anonymous nodes, `(_)` matches no ERROR node, every way of
 * matching a pattern at a node is a match, and a match whose captures are a
 * strict subset of another's at the same node (an optional child left out)
 * is dropped. Patterns it does not cover (`*` and `+` quantifiers, sibling
 * groups, supertypes, MISSING, fields on a pattern's root) are marked, so
 * the engine can run tree-sitter's cursor for those alone. */
#ifndef OOMLINT_QUERY_H
#define OOMLINT_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "oomlint/nodes.h"

typedef struct oom_query oom_query;

/* Reads a query for `lang`. On error returns NULL with the byte offset of the
 * problem and a short reason ("unknown node type `calll`"). */
oom_query *oom_query_new(const TSLanguage *lang, const char *src, uint32_t len,
                         uint32_t *err_offset, const char **err_reason);
void oom_query_free(oom_query *q);

uint32_t oom_query_pattern_count(const oom_query *q);
uint32_t oom_query_start_byte_for_pattern(const oom_query *q, uint32_t pattern);
/* Whether this module's matcher handles the pattern; the others are left to
 * tree-sitter's query cursor. */
bool oom_query_pattern_is_native(const oom_query *q, uint32_t pattern);
bool oom_query_all_native(const oom_query *q);

/* Whether every match of the pattern binds the capture (it sits on one node
 * of the pattern, with no `?` and no alternation on the way from the root);
 * *symbol is then that node's type, 0 for a wildcard. */
bool oom_query_capture_always_bound(const oom_query *q, uint32_t pattern, uint32_t capture, TSSymbol *symbol);

/* Captures and predicates, in tree-sitter's representation (capture ids in
 * order of first appearance, predicate steps ending in Done), so that the
 * code that evaluates predicates reads either. */
uint32_t oom_query_capture_count(const oom_query *q);
const char *oom_query_capture_name_for_id(const oom_query *q, uint32_t id, uint32_t *len);
/* UINT32_MAX when the query has no such capture */
uint32_t oom_query_capture_id(const oom_query *q, const char *name, uint32_t len);
const TSQueryPredicateStep *oom_query_predicates_for_pattern(const oom_query *q, uint32_t pattern,
                                                             uint32_t *count);
const char *oom_query_string_value_for_id(const oom_query *q, uint32_t id, uint32_t *len);

/* Matching: one matcher per thread (it owns scratch space);
 * the query is shared read-only. */
typedef struct oom_query_matcher oom_query_matcher;

/* Called for each match; the match and its captures live until it returns. */
typedef void (*oom_on_match_fn)(void *ctx, const TSQueryMatch *match);
/* Called when matching one pattern at one node took more than
 * OOM_QUERY_WORK_LIMIT steps and was abandoned (a user's pattern that
 * explodes combinatorially, such as (module (_) (_) (_) (_))). */
typedef void (*oom_on_limit_fn)(void *ctx, uint32_t pattern, TSNode node);

#define OOM_QUERY_WORK_LIMIT 100000u
/* Most matches of one pattern at one node that are kept. */
#define OOM_QUERY_MATCHES_PER_NODE 256u

oom_query_matcher *oom_query_matcher_new(void);
void oom_query_matcher_free(oom_query_matcher *m);
/* Runs every native pattern at every node of the tree. With the tree's text
 * (src), a pattern whose #eq? or #any-of? cannot hold stops as soon as the
 * node it names is reached (the caller still evaluates every predicate; a
 * semantic predicate is left to the end, as most of them cost more than the
 * rest of the pattern's matching). on_limit may be NULL. */
void oom_query_exec(oom_query_matcher *m, const oom_query *q, const oom_nodes *tree,
                    const char *src, oom_on_match_fn on_match, oom_on_limit_fn on_limit, void *ctx);
/* Limits the next runs of the matcher to the patterns p with on[p] != 0
 * (one entry per pattern of the query), such as those a file's text can
 * satisfy; NULL (the default) runs them all. */
void oom_query_matcher_only(oom_query_matcher *m, const uint8_t *on);


/* Matches as canonical lines ("p3: fn@10-14 report@8-30", captures sorted),
 * a set of them sorted and unique: how two engines' matches are compared. */
typedef struct {
    char **items;
    size_t len, cap;
} oom_match_set;

typedef const char *(*oom_capture_name_fn)(const void *query, uint32_t id, uint32_t *len);
/* The name functions for this module's queries and for tree-sitter's. */
const char *oom_query_capture_name_fn_native(const void *q, uint32_t id, uint32_t *len);
const char *oom_query_capture_name_fn_tree_sitter(const void *q, uint32_t id, uint32_t *len);

void oom_match_set_add(oom_match_set *s, const TSQueryMatch *m, oom_capture_name_fn name,
                       const void *query);
/* Sorts and drops repeats; call before comparing. */
void oom_match_set_finish(oom_match_set *s);
/* Lines in one set and not the other (`in_a` says which), each passed to
 * `each` (may be NULL); returns how many. */
typedef void (*oom_diff_fn)(void *ctx, bool in_a, const char *line);
size_t oom_match_set_diff(const oom_match_set *a, const oom_match_set *b, oom_diff_fn each, void *ctx);
void oom_match_set_free(oom_match_set *s);

#endif

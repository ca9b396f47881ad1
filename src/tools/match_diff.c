/* match-diff: oomlint's query matcher against tree-sitter's query cursor,
 * and oomlint's tree layout against the one made with tree-sitter's public
 * cursor. Reads file paths from stdin; for each, compares the two layouts
 * node by node, then runs every built-in rule's query
 * (one combined query per language, as the linter does) through both, and
 * compares the structural matches (before predicates) as sets of
 * "pattern: capture@start-end ..." lines. Prints each difference (the first
 * few in full) and "N files, K nodes, M matches, D differences"; exits 1 on
 * any difference. The test suite runs it on the fixtures, `make bench` on the
 * benchmark corpora. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/lang.h"
#include "oomlint/nodes.h"
#include "oomlint/query.h"
#include "oomlint/rules.h"
#include "oomlint/source.h"

#define SHOWN_DIFFERENCES 20

static void on_native(void *ctx, const TSQueryMatch *m)
{
    void **c = ctx; /* {query, set} */
    oom_match_set_add(c[1], m, oom_query_capture_name_fn_native, c[0]);
}

typedef struct {
    const char *path;
    size_t shown;
} diff_ctx;

static void print_difference(void *ctx, bool in_ours, const char *line)
{
    diff_ctx *d = ctx;
    if (d->shown++ < SHOWN_DIFFERENCES)
        printf("%s: only %s: %s\n", d->path, in_ours ? "oomlint" : "tree-sitter", line);
}

typedef struct {
    oom_lang lang;
    oom_query *native;
    TSQuery *ts;
} engine_pair;

static int build_pair(const oom_rule_list *rules, oom_lang lang, engine_pair *p)
{
    oom_buf src;
    oom_buf_init(&src);
    for (size_t i = 0; i < rules->len; i++) {
        const oom_rule *r = &rules->items[i];
        const char *q = r->lang == lang ? r->query : r->extra_query[lang];
        if (q) {
            oom_buf_puts(&src, q);
            oom_buf_putc(&src, '\n');
        }
    }
    if (lang == OOM_LANG_PYTHON)
        oom_buf_puts(&src, "(comment) @oom.comment\n");
    p->lang = lang;
    p->native = NULL;
    p->ts = NULL;
    if (src.len == 0) {
        oom_buf_free(&src);
        return 0;
    }
    uint32_t off;
    const char *why;
    TSQueryError e;
    p->native = oom_query_new(oom_lang_grammar(lang), src.data, (uint32_t)src.len, &off, &why);
    if (!p->native)
        fprintf(stderr, "match-diff: oomlint cannot read the %s rules: %s at %u\n", oom_lang_name(lang), why, off);
    p->ts = ts_query_new(oom_lang_grammar(lang), src.data, (uint32_t)src.len, &off, &e);
    if (!p->ts)
        fprintf(stderr, "match-diff: tree-sitter cannot read the %s rules: error %d at %u\n",
                oom_lang_name(lang), (int)e, off);
    oom_buf_free(&src);
    return p->native && p->ts ? 0 : -1;
}

typedef struct {
    oom_query_matcher *matcher;
    TSQueryCursor *cursor;
    oom_nodes nodes;     /* the fast layout, which the matcher runs on */
    oom_nodes reference; /* the layout through tree-sitter's public cursor */
    size_t node_count, match_count;
} diff_state;

/* 1 when the fast layout of the tree differs from the reference one. */
static size_t diff_layout(const char *path, diff_state *st, TSNode root, size_t shown)
{
    oom_nodes_build(&st->nodes, root);
    oom_nodes_build_cursor(&st->reference, root);
    st->node_count += st->reference.len;
    uint32_t at = oom_nodes_first_difference(&st->nodes, &st->reference);
    if (at == UINT32_MAX)
        return 0;
    if (shown < SHOWN_DIFFERENCES)
        printf("%s: the layouts differ at node %u of %u (%u through the cursor)\n", path, at, st->nodes.len,
               st->reference.len);
    return 1;
}

static size_t diff_file(const char *path, const engine_pair *pair, TSParser *parser, diff_state *st,
                        size_t shown)
{
    oom_source src;
    char why[256];
    size_t diffs = 0;
    if (oom_source_read(path, path, &src, why, sizeof why) != OOM_SOURCE_OK) {
        oom_source_free(&src);
        return 0;
    }
    TSTree *tree = pair->lang == OOM_LANG_PYTHON ? oom_parse_python(parser, src.text, src.len) : NULL;
    if (pair->lang != OOM_LANG_PYTHON) {
        ts_parser_set_language(parser, oom_lang_grammar(pair->lang));
        tree = ts_parser_parse_string(parser, NULL, src.text, (uint32_t)src.len);
    }
    if (tree) {
        TSNode root = ts_tree_root_node(tree);
        oom_match_set ours = {0}, theirs = {0};
        void *ctx[2] = {pair->native, &ours};
        diffs = diff_layout(path, st, root, shown);
        oom_query_exec(st->matcher, pair->native, &st->nodes, NULL, on_native, NULL, ctx);
        ts_query_cursor_exec(st->cursor, pair->ts, root);
        TSQueryMatch m;
        while (ts_query_cursor_next_match(st->cursor, &m))
            oom_match_set_add(&theirs, &m, oom_query_capture_name_fn_tree_sitter, pair->ts);
        oom_match_set_finish(&ours);
        oom_match_set_finish(&theirs);
        st->match_count += theirs.len;
        diff_ctx d = {path, shown + diffs};
        diffs += oom_match_set_diff(&ours, &theirs, print_difference, &d);
        oom_match_set_free(&ours);
        oom_match_set_free(&theirs);
        ts_tree_delete(tree);
    }
    oom_source_free(&src);
    return diffs;
}

int main(void)
{
    oom_rule_list rules = {0};
    oom_buf err;
    oom_buf_init(&err);
    if (oom_rules_add_embedded(&rules, &err) != 0) {
        fprintf(stderr, "match-diff: %s\n", err.data);
        return 2;
    }
    engine_pair pairs[OOM_LANG_COUNT];
    int rc = 0;
    for (int l = 0; l < OOM_LANG_COUNT; l++)
        rc |= build_pair(&rules, (oom_lang)l, &pairs[l]);
    if (rc != 0)
        return 2;
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_PYTHON));
    diff_state st = {oom_query_matcher_new(), ts_query_cursor_new(), {0}, {0}, 0, 0};
    oom_nodes_init(&st.nodes);
    oom_nodes_init(&st.reference);
    char path[4096];
    size_t files = 0, diffs = 0;
    while (fgets(path, sizeof path, stdin)) {
        path[strcspn(path, "\n")] = '\0';
        oom_lang lang = oom_lang_for_path(path);
        if (lang == OOM_LANG_NONE || !pairs[lang].native)
            continue;
        diffs += diff_file(path, &pairs[lang], parser, &st, diffs);
        files++;
    }
    printf("%zu files, %zu nodes, %zu matches, %zu differences\n", files, st.node_count, st.match_count, diffs);
    for (int l = 0; l < OOM_LANG_COUNT; l++) {
        oom_query_free(pairs[l].native);
        if (pairs[l].ts)
            ts_query_delete(pairs[l].ts);
    }
    oom_nodes_free(&st.nodes);
    oom_nodes_free(&st.reference);
    ts_query_cursor_delete(st.cursor);
    oom_query_matcher_free(st.matcher);
    ts_parser_delete(parser);
    oom_rules_free(&rules);
    oom_buf_free(&err);
    return diffs ? 1 : 0;
}

/* match-diff: oomlint's query matcher against tree-sitter's query cursor.
 * Reads file paths from stdin; for each, runs every built-in rule's query
 * (one combined query per language, as the linter does) through both, and
 * compares the structural matches (before predicates) as sets of
 * "pattern: capture@start-end ..." lines. Prints each difference (the first
 * few in full) and "N files, M matches, D differences"; exits 1 on any
 * difference. The test suite runs it on the fixtures, `make bench` on the
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

typedef struct {
    char **items;
    size_t len, cap;
} lines;

typedef struct {
    const oom_query *q;
    lines *out;
} native_ctx;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One match as a line: its pattern and its captures, sorted. */
static char *match_line(uint32_t pattern, const TSQueryCapture *caps, uint16_t n,
                        const char *(*name)(const void *, uint32_t, uint32_t *), const void *q)
{
    char **parts = calloc(n ? n : 1, sizeof(char *));
    size_t total = 32;
    for (uint16_t i = 0; i < n; i++) {
        uint32_t len;
        const char *cn = name(q, caps[i].index, &len);
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s@%u-%u", (int)(len > 128 ? 128 : len), cn,
                 ts_node_start_byte(caps[i].node), ts_node_end_byte(caps[i].node));
        parts[i] = oom_xstrdup(buf);
        total += strlen(buf) + 1;
    }
    qsort(parts, n, sizeof(char *), cmp_str);
    char *line = oom_xmalloc(total);
    int at = snprintf(line, total, "p%u:", pattern);
    for (uint16_t i = 0; i < n; i++) {
        at += snprintf(line + at, total - (size_t)at, " %s", parts[i]);
        free(parts[i]);
    }
    free(parts);
    return line;
}

static const char *native_name(const void *q, uint32_t id, uint32_t *len)
{
    return oom_query_capture_name_for_id(q, id, len);
}

static const char *ts_name(const void *q, uint32_t id, uint32_t *len)
{
    return ts_query_capture_name_for_id(q, id, len);
}

static void on_native(void *ctx, const TSQueryMatch *m)
{
    native_ctx *c = ctx;
    char *line = match_line(m->pattern_index, m->captures, m->capture_count, native_name, c->q);
    OOM_PUSH(c->out->items, c->out->len, c->out->cap, line);
}

static void unique_sorted(lines *l)
{
    if (l->len < 2)
        return;
    qsort(l->items, l->len, sizeof(char *), cmp_str);
    size_t w = 0;
    for (size_t i = 0; i < l->len; i++) {
        if (w > 0 && strcmp(l->items[w - 1], l->items[i]) == 0) {
            free(l->items[i]);
            continue;
        }
        l->items[w++] = l->items[i];
    }
    l->len = w;
}

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof(*l));
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

/* Differences between two sorted sets, printed; returns their count. */
static size_t compare(const char *path, const lines *a, const lines *b, size_t shown)
{
    size_t i = 0, j = 0, diffs = 0;
    while (i < a->len || j < b->len) {
        int c = i == a->len ? 1 : j == b->len ? -1 : strcmp(a->items[i], b->items[j]);
        if (c == 0) {
            i++, j++;
            continue;
        }
        if (shown + diffs < SHOWN_DIFFERENCES)
            printf("%s: only %s: %s\n", path, c < 0 ? "oomlint" : "tree-sitter",
                   c < 0 ? a->items[i] : b->items[j]);
        diffs++;
        if (c < 0)
            i++;
        else
            j++;
    }
    return diffs;
}

static size_t diff_file(const char *path, const engine_pair *pair, TSParser *parser,
                        oom_query_matcher *matcher, TSQueryCursor *cursor, oom_nodes *nodes,
                        size_t *match_count, size_t shown)
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
        lines ours = {0}, theirs = {0};
        native_ctx ctx = {pair->native, &ours};
        oom_nodes_build(nodes, root);
        oom_query_exec(matcher, pair->native, nodes, NULL, on_native, NULL, &ctx);
        ts_query_cursor_exec(cursor, pair->ts, root);
        TSQueryMatch m;
        while (ts_query_cursor_next_match(cursor, &m)) {
            char *line = match_line(m.pattern_index, m.captures, m.capture_count, ts_name, pair->ts);
            OOM_PUSH(theirs.items, theirs.len, theirs.cap, line);
        }
        unique_sorted(&ours);
        unique_sorted(&theirs);
        *match_count += theirs.len;
        diffs = compare(path, &ours, &theirs, shown);
        lines_free(&ours);
        lines_free(&theirs);
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
    oom_query_matcher *matcher = oom_query_matcher_new();
    TSQueryCursor *cursor = ts_query_cursor_new();
    oom_nodes nodes;
    oom_nodes_init(&nodes);
    char path[4096];
    size_t files = 0, matches = 0, diffs = 0;
    while (fgets(path, sizeof path, stdin)) {
        path[strcspn(path, "\n")] = '\0';
        oom_lang lang = oom_lang_for_path(path);
        if (lang == OOM_LANG_NONE || !pairs[lang].native)
            continue;
        diffs += diff_file(path, &pairs[lang], parser, matcher, cursor, &nodes, &matches, diffs);
        files++;
    }
    printf("%zu files, %zu matches, %zu differences\n", files, matches, diffs);
    for (int l = 0; l < OOM_LANG_COUNT; l++) {
        oom_query_free(pairs[l].native);
        if (pairs[l].ts)
            ts_query_delete(pairs[l].ts);
    }
    oom_nodes_free(&nodes);
    ts_query_cursor_delete(cursor);
    oom_query_matcher_free(matcher);
    ts_parser_delete(parser);
    oom_rules_free(&rules);
    oom_buf_free(&err);
    return diffs ? 1 : 0;
}

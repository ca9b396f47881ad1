/* libFuzzer target: a query (the bytes) read by oomlint and by tree-sitter;
 * where both accept it, every pattern oomlint matches itself must give
 * exactly the matches tree-sitter's cursor gives on a sample of Python (a
 * differential test: any difference aborts). Patterns the matcher leaves to
 * tree-sitter are left out on both sides. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/lang.h"
#include "oomlint/nodes.h"
#include "oomlint/query.h"
#include "oomlint/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char sample[] =
    "import torch as T\nfrom torch import no_grad\nlosses = []\n"
    "for x, y in loader:\n    with T.autocast('cuda'):\n        out = model(x)  # fwd\n"
    "        loss = criterion(out, y) + 0.1 * reg\n    loss.backward()\n"
    "    losses.append(loss)\n    hist[step] = loss.item()\n    total += loss\n"
    "def evaluate(m, *args, k=1, **kw):\n    m.eval()\n    return [m(b) for b in args if b]\n"
    "class Net(T.nn.Module):\n    @no_grad()\n    def f(self): pass\n"
    "x = f(a, b=(1, 2), *c)[0].d\nprint('%s' % x, end='')\nf(x y))\n";

typedef struct {
    const oom_query *q;
    oom_match_set *set;
} ctx_t;

static void on_ours(void *ctx, const TSQueryMatch *m)
{
    ctx_t *c = ctx;
    if (!oom_query_pattern_is_native(c->q, m->pattern_index))
        return;
    oom_match_set_add(c->set, m, oom_query_capture_name_fn_native, c->q);
}

static void print_line(void *ctx, bool in_ours, const char *line)
{
    (void)ctx;
    fprintf(stderr, "only %s: %s\n", in_ours ? "oomlint" : "tree-sitter", line);
}

static uint32_t map[4096]; /* tree-sitter's pattern -> ours */

static bool abandoned;
static void on_limit(void *ctx, uint32_t pattern, TSNode node)
{
    (void)ctx;
    (void)pattern;
    (void)node;
    abandoned = true;
}

static void compare(const oom_query *ours, TSQuery *theirs, TSTree *tree, const oom_nodes *nodes)
{
    oom_match_set a = {0}, b = {0};
    ctx_t ctx = {ours, &a};
    oom_query_matcher *m = oom_query_matcher_new();
    abandoned = false;
    oom_query_exec(m, ours, nodes, NULL, on_ours, on_limit, &ctx);
    oom_query_matcher_free(m);
    TSQueryCursor *cur = ts_query_cursor_new();
    ts_query_cursor_set_match_limit(cur, 4096);
    ts_query_cursor_exec(cur, theirs, ts_tree_root_node(tree));
    TSQueryMatch tm;
    size_t steps = 0;
    while (ts_query_cursor_next_match(cur, &tm) && ++steps < 100000) {
        tm.pattern_index = (uint16_t)map[tm.pattern_index];
        oom_match_set_add(&b, &tm, oom_query_capture_name_fn_tree_sitter, theirs);
    }
    bool exceeded = ts_query_cursor_did_exceed_match_limit(cur) || steps >= 100000;
    ts_query_cursor_delete(cur);
    oom_match_set_finish(&a);
    oom_match_set_finish(&b);
    /* a pattern either side gave up on proves nothing; otherwise the sets
     * must be equal */
    if (!abandoned && !exceeded && a.len < OOM_QUERY_MATCHES_PER_NODE &&
        oom_match_set_diff(&a, &b, print_line, NULL) != 0)
        abort();
    oom_match_set_free(&a);
    oom_match_set_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static TSParser *parser;
    static TSTree *tree;
    static oom_nodes nodes;
    const TSLanguage *lang = oom_lang_grammar(OOM_LANG_PYTHON);
    if (!parser) {
        parser = ts_parser_new();
        ts_parser_set_language(parser, lang);
        tree = ts_parser_parse_string(parser, NULL, sample, sizeof sample - 1);
        oom_nodes_init(&nodes);
        oom_nodes_build(&nodes, ts_tree_root_node(tree));
    }
    if (size > 4096 || memchr(data, '\0', size))
        return 0;
    /* shapes tree-sitter 0.25.1 itself mishandles (see engine/compile.c) */
    if (memmem(data, size, "\"\"", 2))
        return 0;
    uint32_t off;
    const char *why;
    oom_query *ours = oom_query_new(lang, (const char *)data, (uint32_t)size, &off, &why);
    if (!ours)
        return 0;
    TSQueryError e;
    TSQuery *whole = ts_query_new(lang, (const char *)data, (uint32_t)size, &off, &e);
    bool both_read = whole != NULL;
    if (whole && ts_query_pattern_count(whole) != oom_query_pattern_count(ours))
        abort(); /* both read it, but not into the same patterns */
    if (whole)
        ts_query_delete(whole);
    /* the patterns oomlint matches itself, as tree-sitter's query of their
     * own (as the engine gives it the others) */
    oom_buf text;
    oom_buf_init(&text);
    uint32_t count = oom_query_pattern_count(ours), native = 0;
    for (uint32_t p = 0; p < count && both_read; p++) {
        if (!oom_query_pattern_is_native(ours, p))
            continue;
        uint32_t a = oom_query_start_byte_for_pattern(ours, p);
        uint32_t b = p + 1 < count ? oom_query_start_byte_for_pattern(ours, p + 1) : (uint32_t)size;
        oom_buf_append(&text, (const char *)data + a, b - a);
        oom_buf_putc(&text, '\n');
        map[native++] = p;
    }
    TSQuery *theirs = both_read && native ? ts_query_new(lang, text.data, (uint32_t)text.len, &off, &e) : NULL;
    oom_buf_free(&text);
    if (theirs)
        compare(ours, theirs, tree, &nodes);
    if (theirs)
        ts_query_delete(theirs);
    oom_query_free(ours);
    return 0;
}

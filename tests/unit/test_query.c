/* The query module: oomlint's matcher gives the matches tree-sitter's cursor
 * gives, feature by feature; what it does not cover is marked and still
 * found (through the cursor); broken and hostile queries are refused with a
 * position. */
#include <stdlib.h>

#include "harness.h"
#include "oomlint/engine.h"
#include "oomlint/lang.h"
#include "oomlint/nodes.h"
#include "oomlint/query.h"
#include "oomlint/rules.h"
#include "oomlint/source.h"

typedef struct {
    const oom_query *q;
    oom_match_set *out;
    size_t limits;
} collect_ctx;

static void collect_native(void *ctx, const TSQueryMatch *m)
{
    collect_ctx *c = ctx;
    oom_match_set_add(c->out, m, oom_query_capture_name_fn_native, c->q);
}

static void count_limit(void *ctx, uint32_t pattern, TSNode node)
{
    (void)pattern;
    (void)node;
    ((collect_ctx *)ctx)->limits++;
}

static void print_line(void *ctx, bool in_ours, const char *line)
{
    (void)ctx;
    printf("    only %s: %s\n", in_ours ? "oomlint" : "tree-sitter", line);
}

/* Runs `query` on Python `code` with both engines; returns the number of
 * matches when they agree, -1 (after printing both) when they do not. */
static int agree_with_text(const char *query, const char *code, bool with_text, int *pruned)
{
    const TSLanguage *lang = oom_lang_grammar(OOM_LANG_PYTHON);
    uint32_t off;
    const char *why;
    TSQueryError e;
    oom_query *ours = oom_query_new(lang, query, (uint32_t)strlen(query), &off, &why);
    TSQuery *theirs = ts_query_new(lang, query, (uint32_t)strlen(query), &off, &e);
    if (!ours || !theirs) {
        printf("  query not read: %s\n", query);
        oom_query_free(ours);
        if (theirs)
            ts_query_delete(theirs);
        return -1;
    }
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, lang);
    TSTree *tree = ts_parser_parse_string(parser, NULL, code, (uint32_t)strlen(code));
    oom_nodes nodes;
    oom_nodes_init(&nodes);
    oom_nodes_build(&nodes, ts_tree_root_node(tree));
    oom_match_set a = {0}, b = {0};
    collect_ctx ctx = {ours, &a, 0};
    oom_query_matcher *m = oom_query_matcher_new();
    oom_query_exec(m, ours, &nodes, NULL, collect_native, count_limit, &ctx);
    if (with_text) { /* with the text, #eq? and #any-of? prune while matching */
        oom_match_set c = {0};
        collect_ctx pctx = {ours, &c, 0};
        oom_query_exec(m, ours, &nodes, code, collect_native, count_limit, &pctx);
        oom_match_set_finish(&c);
        *pruned = (int)c.len;
        oom_match_set_free(&c);
    }
    TSQueryCursor *cur = ts_query_cursor_new();
    ts_query_cursor_exec(cur, theirs, ts_tree_root_node(tree));
    TSQueryMatch tm;
    while (ts_query_cursor_next_match(cur, &tm))
        oom_match_set_add(&b, &tm, oom_query_capture_name_fn_tree_sitter, theirs);
    oom_match_set_finish(&a);
    oom_match_set_finish(&b);
    bool same = oom_match_set_diff(&a, &b, NULL, NULL) == 0;
    if (!same) {
        printf("  %s on %s\n", query, code);
        oom_match_set_diff(&a, &b, print_line, NULL);
    }
    int result = same ? (int)a.len : -1;
    oom_match_set_free(&a);
    oom_match_set_free(&b);
    ts_query_cursor_delete(cur);
    oom_query_matcher_free(m);
    oom_nodes_free(&nodes);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    ts_query_delete(theirs);
    oom_query_free(ours);
    return result;
}

static int agree(const char *query, const char *code)
{
    return agree_with_text(query, code, false, NULL);
}

static void matches_agree_with_tree_sitter(void)
{
    static const char code[] =
        "import torch as T\n"
        "losses.append(loss)\n"
        "losses.append(loss, 2)\n"
        "f(a, b, c)\n"
        "g()\n"
        "g(  # note\n  x)\n"
        "h(*args, k=1)\n"
        "x = [a, b, a]\n"
        "y += 1\n"
        "z = w - 2\n"
        "def f(a, b=2):\n    return a\n"
        "class C(Base):\n    pass\n"
        "with T.no_grad():\n    out = model(x)\n";
    /* each: a feature, and how many matches it must have (so no case agrees
     * by matching nothing) */
    static const struct {
        const char *query;
        int matches;
    } cases[] = {
        {"(call function: (attribute object: (_) @o attribute: (identifier) @m)) @c", 3},
        {"(call arguments: (argument_list (_) @a))", 11},           /* every argument, comment included */
        {"(call arguments: (argument_list (_) @a (_) @b))", 6},      /* every ordered pair */
        {"(call arguments: (argument_list . (_) @first))", 6},       /* first named child */
        {"(call arguments: (argument_list (_) @last .))", 6},        /* last named child */
        {"(call arguments: (argument_list . (_) @only .))", 2},      /* exactly one argument */
        {"(argument_list (_) @a . (_) @b)", 5},                      /* immediate siblings */
        {"(call arguments: (argument_list . (_)? @v)) @c", 8},       /* optional: kept when present */
        {"(argument_list \"(\" @open . (_) @first)", 7},             /* anonymous node then anchor */
        {"(argument_list _ @any)", 34},                              /* any node, anonymous included */
        {"[(list_splat) (keyword_argument)] @arg", 2},               /* alternation at the root */
        {"(call arguments: (argument_list [(identifier) (integer)] @v)) @c", 8},
        {"(assignment left: (_) @l right: [(list) (binary_operator)] @r)", 2},
        {"(augmented_assignment operator: [\"+=\" \"-=\"] @op)", 1}, /* anonymous alternatives */
        {"(binary_operator operator: \"-\")  @b", 1},
        {"(function_definition name: (identifier) @n !return_type)", 1}, /* negated field */
        {"(class_definition superclasses: (argument_list (identifier) @base))", 1},
        {"(list (identifier) @s (_) @v)", 3},
        {"((call function: (identifier) @f) @c (#eq? @f \"g\"))", 5}, /* a group; predicates are the caller's */
        {"(comment) @c", 1},
        {"(with_statement (with_clause (with_item value: (call) @ctx)))", 1},
        {"(module (expression_statement) @s)", 9},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int n = agree(cases[i].query, code);
        if (n != cases[i].matches)
            printf("  %s: %d matches, want %d\n", cases[i].query, n, cases[i].matches);
        CHECK(n == cases[i].matches);
    }
    int pruned = -1;
    CHECK(agree_with_text("((call function: (identifier) @f) @c (#any-of? @f \"g\" \"h\"))", code, true,
                          &pruned) == 5);
    CHECK(pruned == 3);
    CHECK(agree_with_text("((call function: (identifier) @f) @c (#not-eq? @f \"g\"))", code, true,
                          &pruned) == 5);
    CHECK(pruned == 5); /* a negated predicate prunes nothing */
    /* with an optional node, pruning the fuller match would leave the one
     * without @v (which the longest-match rule drops): nothing is pruned */
    CHECK(agree_with_text("((call arguments: (argument_list . (_)? @v)) @c (#eq? @v \"zz\"))", code, true,
                          &pruned) == 8);
    CHECK(pruned == 8);
    /* ERROR nodes: (_) matches none, (ERROR) does */
    CHECK(agree("(ERROR) @e", "f(x y z))\n") > 0);
    CHECK(agree("(module (_) @n)", "f(x y z))\n") >= 0);
}

static void count_difference(void *ctx, bool in_ours, const char *line)
{
    (void)line;
    ((int *)ctx)[in_ours ? 0 : 1]++;
}

/* The comparison itself: a set differs from another by what only one has. */
static void match_sets_show_their_differences(void)
{
    const char *code = "f(a)\n";
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_PYTHON));
    TSTree *tree = ts_parser_parse_string(parser, NULL, code, (uint32_t)strlen(code));
    TSNode call = ts_node_named_child(ts_node_named_child(ts_tree_root_node(tree), 0), 0);
    TSQueryCapture c1[2] = {{call, 1}, {ts_node_named_child(call, 0), 0}}; /* @c, @f */
    TSQueryMatch whole = {0, 0, 2, c1}, part = {0, 0, 1, c1}, other = {0, 1, 1, c1};
    uint32_t off;
    const char *why;
    oom_query *q = oom_query_new(oom_lang_grammar(OOM_LANG_PYTHON), "(call function: (_) @f) @c", 26,
                                 &off, &why);
    oom_match_set a = {0}, b = {0};
    oom_match_set_add(&a, &whole, oom_query_capture_name_fn_native, q);
    oom_match_set_add(&a, &whole, oom_query_capture_name_fn_native, q); /* a repeat */
    oom_match_set_add(&b, &whole, oom_query_capture_name_fn_native, q);
    oom_match_set_add(&b, &part, oom_query_capture_name_fn_native, q);
    oom_match_set_add(&b, &other, oom_query_capture_name_fn_native, q);
    oom_match_set_finish(&a);
    oom_match_set_finish(&b);
    CHECK(a.len == 1 && b.len == 3);
    int only[2] = {0, 0};
    CHECK(oom_match_set_diff(&a, &b, count_difference, only) == 2);
    CHECK(only[0] == 0 && only[1] == 2);
    CHECK(a.len == 1 && strcmp(a.items[0], "p0: c@0-4 f@0-1") == 0);
    oom_match_set_free(&a);
    oom_match_set_free(&b);
    oom_query_free(q);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
}

static bool native(const char *query, uint32_t pattern)
{
    uint32_t off;
    const char *why;
    oom_query *q = oom_query_new(oom_lang_grammar(OOM_LANG_PYTHON), query, (uint32_t)strlen(query), &off, &why);
    if (!q) {
        printf("  not read: %s (%s)\n", query, why);
        return false;
    }
    bool yes = oom_query_pattern_is_native(q, pattern);
    oom_query_free(q);
    return yes;
}

static void uncovered_shapes_are_left_to_tree_sitter(void)
{
    CHECK(native("(call) @c", 0));
    CHECK(native("((call) @c (#eq? @c \"x\"))", 0));
    CHECK(!native("(argument_list (identifier)* @ids)", 0));
    CHECK(!native("(argument_list (identifier)+ @ids)", 0));
    CHECK(native("(block (expression_statement) (return_statement))", 0));
    CHECK(!native("((identifier) @a . (identifier) @b)", 0));
    CHECK(!native("((identifier) (identifier))", 0));
    CHECK(!native("(expression) @e", 0));
    CHECK(!native("(MISSING) @m", 0));
    CHECK(!native("(MISSING identifier) @m", 0));
    CHECK(!native("(call (primary_expression/identifier) @f)", 0));
    CHECK(native("(call) @a\n(argument_list (identifier)* @ids)", 0));
    CHECK(!native("(call) @a\n(argument_list (identifier)* @ids)", 1));
}

static size_t read_error(const char *query, const char *want)
{
    uint32_t off = 0;
    const char *why = NULL;
    oom_query *q = oom_query_new(oom_lang_grammar(OOM_LANG_PYTHON), query, (uint32_t)strlen(query), &off, &why);
    if (q) {
        printf("  read, but should not be: %s\n", query);
        oom_query_free(q);
        return (size_t)-1;
    }
    if (!strstr(why, want))
        printf("  %s: \"%s\", want \"%s\"\n", query, why, want);
    CHECK(strstr(why, want) != NULL);
    return off;
}

static void broken_queries_are_refused_with_a_position(void)
{
    /* each: the query, the reason it must give, and the byte offset */
    static const struct {
        const char *query, *reason;
        size_t offset;
    } cases[] = {
        {"(calll) @c", "unknown node type", 1},
        {"(call functio: (_))", "unknown field", 6},
        {"(call !functio)", "unknown field", 7},
        {"((call) @c (#eq? @d \"x\"))", "unknown capture", 17},
        {"(identifier) @d\n((call) @c (#eq? @d \"x\"))", "unknown capture", 33}, /* another pattern's */
        {"(call", "unclosed (", 0},
        {"[(call)", "unclosed [", 0},
        {"[]", "empty alternation", 0},
        {"(call) @", "a capture needs a name", 7},
        {"\"nope_token\"", "unknown node type", 0},
        {"(call (identifier) @a \"x)", "unterminated string", 22},
        {"call", "in parentheses", 0},
        {"(call) @c\nobject: (_) @o", "a field needs a parent pattern", 10}, /* tree-sitter asserts */
        {"((call) @a) (#eq? @a \"x\")", "predicate needs a node pattern", 12},
        {")", "syntax error", 0},
        {"(call) @c\n_?", "cannot be optional", 10}, /* tree-sitter asserts */
        {"(comment)* @c", "cannot be optional", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t at = read_error(cases[i].query, cases[i].reason);
        if (at != cases[i].offset)
            printf("  %s: at %zu, want %zu\n", cases[i].query, at, cases[i].offset);
        CHECK(at == cases[i].offset);
    }
    /* a hostile nesting depth is refused, not recursed into */
    size_t depth = 100000;
    char *deep = malloc(depth * 2 + 16);
    for (size_t i = 0; i < depth; i++)
        deep[i] = '[';
    deep[depth] = '\0';
    CHECK(read_error(deep, "nested too deeply") == 129);
    free(deep);
}

static void combinatorial_patterns_stop_at_the_work_limit(void)
{
    const char *query = "(module (_) @a (_) @b (_) @c (_) @d (_) @e)";
    oom_buf code;
    oom_buf_init(&code);
    for (int i = 0; i < 300; i++)
        oom_buf_printf(&code, "x%d = %d\n", i, i);
    uint32_t off;
    const char *why;
    const TSLanguage *lang = oom_lang_grammar(OOM_LANG_PYTHON);
    oom_query *q = oom_query_new(lang, query, (uint32_t)strlen(query), &off, &why);
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, lang);
    TSTree *tree = ts_parser_parse_string(parser, NULL, code.data, (uint32_t)code.len);
    oom_nodes nodes;
    oom_nodes_init(&nodes);
    oom_nodes_build(&nodes, ts_tree_root_node(tree));
    oom_match_set found = {0};
    collect_ctx ctx = {q, &found, 0};
    oom_query_matcher *m = oom_query_matcher_new();
    oom_query_exec(m, q, &nodes, code.data, collect_native, count_limit, &ctx);
    CHECK(ctx.limits == 1);
    CHECK(found.len == 0);
    oom_match_set_free(&found);
    oom_query_matcher_free(m);
    oom_nodes_free(&nodes);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    oom_query_free(q);
    oom_buf_free(&code);
}

/* The layout of a tree: preorder, `end` past each subtree, fields. */
static void nodes_lay_out_the_tree(void)
{
    const char *code = "f(a, b=1)\n";
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_PYTHON));
    TSTree *tree = ts_parser_parse_string(parser, NULL, code, (uint32_t)strlen(code));
    oom_nodes n;
    oom_nodes_init(&n);
    oom_nodes_build(&n, ts_tree_root_node(tree));
    /* module, expression_statement, call, identifier, argument_list, (, a, ",",
     * keyword_argument, b, =, 1, ) */
    CHECK(n.len == 13);
    CHECK(n.items[0].end == n.len);
    CHECK(strcmp(ts_node_type(n.items[2].node), "call") == 0 && n.items[2].end == 13);
    CHECK(strcmp(ts_node_type(n.items[3].node), "identifier") == 0 && n.items[3].end == 4);
    CHECK(n.items[3].field == oom_lang_field_id(oom_lang_grammar(OOM_LANG_PYTHON), "function", 8));
    CHECK(n.items[4].field == oom_lang_field_id(oom_lang_grammar(OOM_LANG_PYTHON), "arguments", 9));
    CHECK(strcmp(ts_node_type(n.items[8].node), "keyword_argument") == 0 && n.items[8].end == 12);
    oom_nodes_free(&n);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
}

/* The fast layout (tree-sitter's subtrees read directly) against the one
 * made through the public cursor, node by node, on the shapes where the two
 * could part: aliases, extras (comments) between a field's name and value,
 * hidden nodes that pass a field on, error recovery, MISSING nodes, and each
 * grammar. */
static void fast_layout_matches_the_cursor(void)
{
    static const struct {
        oom_lang lang;
        const char *code;
    } cases[] = {
        {OOM_LANG_PYTHON, "f(a, b=1)\n"},
        {OOM_LANG_PYTHON, "x = f(  # why\n    a,  # and\n    key=  # this\n    2)\n"},
        {OOM_LANG_PYTHON, "match p:\n    case [a, *rest] if a:\n        pass\n    case {'k': v, **kw}:\n        pass\n"},
        {OOM_LANG_PYTHON, "def g(*, a: int = 1, **kw) -> None:\n    return [i async for i in a if i]\n"},
        {OOM_LANG_PYTHON, "print >> sys.stderr, 'x'\nexec 'code'\nlambda: (yield)\n"},
        {OOM_LANG_PYTHON, "with (open(a) as f, open(b) as g):\n    x = f'{a!r:>{w}}' \\\n        + b'\\x00'\n"},
        {OOM_LANG_PYTHON, "def broken(:\n    x = (1, 2\nclass C(\n    pass\nif x\n    y = [1,, 2]\n"},
        {OOM_LANG_PYTHON, "for i in range(10) print(i)\nreturn = 3\n@\ndef\n"},
        {OOM_LANG_PYTHON, ""},
        {OOM_LANG_JSON, "{\"a\": [1, 2.5e3, true, null, {\"b\": \"c\\u00e9\"}], \"d\": {}}"},
        {OOM_LANG_JSON, "{\"a\": [1, 2,, ], \"b\" 3, // note\n \"c\": }"},
        {OOM_LANG_TOML, "[tool.oomlint]\nselect = [\"OOM1\", 'x']  # c\nn = 1_000\n[[a.b]]\nt = 1979-05-27T07:32:00Z\nq = {x = 1, y.z = \"w\"}\n"},
        {OOM_LANG_TOML, "[tool\nkey = = 3\n\"k\" = [1,\n"},
    };
    TSParser *parser = ts_parser_new();
    oom_nodes fast, reference;
    oom_nodes_init(&fast);
    oom_nodes_init(&reference);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ts_parser_set_language(parser, oom_lang_grammar(cases[i].lang));
        TSTree *tree = ts_parser_parse_string(parser, NULL, cases[i].code, (uint32_t)strlen(cases[i].code));
        oom_nodes_build(&fast, ts_tree_root_node(tree));
        oom_nodes_build_cursor(&reference, ts_tree_root_node(tree));
        uint32_t at = oom_nodes_first_difference(&fast, &reference);
        if (at != UINT32_MAX)
            printf("  case %zu: the layouts differ at node %u\n", i, at);
        CHECK(at == UINT32_MAX && fast.len > 0);
        /* named children through the array, as tree-sitter gives them */
        for (uint32_t k = 0; k < fast.len; k++) {
            TSNode node = fast.items[k].node;
            uint32_t named = ts_node_named_child_count(node);
            for (uint32_t c = 0; c <= named; c++) {
                TSNode got = oom_nodes_named_child(&fast, node, c, k), want = ts_node_named_child(node, c);
                CHECK(got.id == want.id && (ts_node_is_null(want) || ts_node_eq(got, want)));
            }
        }
        ts_tree_delete(tree);
    }
    oom_nodes_free(&fast);
    oom_nodes_free(&reference);
    ts_parser_delete(parser);
}

/* Every node is found at its own index (the search starts in its start
 * byte's block of OOM_NODES_BLOCK bytes: nodes a block apart, a long string
 * that leaves blocks without a node, the last node), a node of another tree
 * is not found, and the named children walked sibling to sibling are
 * tree-sitter's. */
static void nodes_are_found_by_position(void)
{
    oom_buf code;
    oom_buf_init(&code);
    for (int i = 0; i < 40; i++)
        oom_buf_printf(&code, "def f%d(a, b=%d):\n    return g(a)[b].h  # %d\n", i, i, i);
    oom_buf_puts(&code, "s = \"");
    for (int i = 0; i < 300; i++)
        oom_buf_putc(&code, 'x');
    oom_buf_puts(&code, "\"\nt = (1,\n     2)");
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_PYTHON));
    TSTree *tree = ts_parser_parse_string(parser, NULL, code.data, (uint32_t)code.len);
    TSTree *other = ts_parser_parse_string(parser, NULL, code.data, (uint32_t)code.len);
    oom_nodes n;
    oom_nodes_init(&n);
    oom_nodes_build(&n, ts_tree_root_node(tree));
    CHECK(n.len > 500 && n.block_count == n.items[n.len - 1].start / OOM_NODES_BLOCK + 1);
    bool all_found = true, named_same = true;
    for (uint32_t k = 0; k < n.len; k++) {
        all_found = all_found && oom_nodes_find(&n, n.items[k].node) == k;
        uint32_t c = 0, end = n.items[k].end;
        for (uint32_t kid = oom_nodes_next_named(&n, k + 1, end); kid < end;
             kid = oom_nodes_next_named(&n, n.items[kid].end, end))
            named_same = named_same && ts_node_eq(n.items[kid].node, ts_node_named_child(n.items[k].node, c++));
        named_same = named_same && c == ts_node_named_child_count(n.items[k].node);
    }
    CHECK(all_found);
    CHECK(named_same);
    TSNode foreign = ts_node_named_child(ts_tree_root_node(other), 3);
    CHECK(!ts_node_is_null(foreign) && oom_nodes_find(&n, foreign) == UINT32_MAX);
    oom_nodes_free(&n);
    ts_tree_delete(tree);
    ts_tree_delete(other);
    ts_parser_delete(parser);
    oom_buf_free(&code);
}

/* A user rule the matcher leaves to tree-sitter (a `+` quantifier) still
 * finds what it should, through the engine. */
static void user_rule_with_quantifier_still_fires(void)
{
    static const char json[] =
        "{\"code\": \"X9\", \"name\": \"x\", \"language\": \"python\", \"severity\": \"warning\","
        " \"message\": \"prints {{arg}}\", \"help\": \"h\"}";
    static const char query[] =
        "((call function: (identifier) @f arguments: (argument_list (string)+ @arg)) @report\n"
        " (#eq? @f \"print\"))\n"
        "((call function: (identifier) @f) @report (#eq? @f \"exit\"))\n";
    oom_rule_file files[2] = {{"r/rule.json", json, strlen(json)}, {"r/query.scm", query, strlen(query)}};
    oom_rule_list rules = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_rules_add_files(&rules, files, 2, "user", &err) == 0);
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    oom_compiled *c = oom_compiled_new(&rules, &sel, &err);
    CHECK(c != NULL);
    if (!c) {
        printf("  %s\n", err.data);
        oom_rules_free(&rules);
        oom_buf_free(&err);
        return;
    }
    static const char code[] = "print('a', 'b')\nprint(x)\nexit()\nlen('c')\n";
    oom_source src;
    char why[128];
    CHECK(oom_source_from_memory("t.py", code, strlen(code), &src, why, sizeof why) == OOM_SOURCE_OK);
    oom_linter *l = oom_linter_new(c);
    oom_diag_list out = {NULL, 0, 0};
    oom_linter_run(l, &src, OOM_LANG_PYTHON, &out);
    CHECK(out.len == 2);
    CHECK(out.len == 2 && out.items[0].start_row == 1 && out.items[1].start_row == 3);
    CHECK(out.len >= 1 && strstr(out.items[0].message, "prints 'a'") != NULL);
    oom_diag_list_free(&out);
    oom_linter_free(l);
    oom_source_free(&src);
    oom_compiled_free(c);
    oom_rules_free(&rules);
    oom_buf_free(&err);
}

/* Findings of a user rule in t.py's `code`, or -1 when it does not load. */
static int user_rule_findings(const char *query, const char *code)
{
    static const char json[] = "{\"code\": \"X8\", \"name\": \"x\", \"language\": \"python\", "
                               "\"severity\": \"info\", \"message\": \"m\", \"help\": \"h\"}";
    oom_rule_file files[2] = {{"r/rule.json", json, strlen(json)}, {"r/query.scm", query, strlen(query)}};
    oom_rule_list rules = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    oom_compiled *c = oom_rules_add_files(&rules, files, 2, "user", &err) == 0
                          ? oom_compiled_new(&rules, &sel, &err) : NULL;
    int found = -1;
    if (c) {
        oom_source src;
        char why[128];
        oom_source_from_memory("t.py", code, strlen(code), &src, why, sizeof why);
        oom_linter *l = oom_linter_new(c);
        oom_diag_list out = {NULL, 0, 0};
        oom_linter_run(l, &src, OOM_LANG_PYTHON, &out);
        found = (int)out.len;
        oom_diag_list_free(&out);
        oom_linter_free(l);
        oom_source_free(&src);
    } else {
        printf("  %s\n", err.data);
    }
    oom_compiled_free(c);
    oom_rules_free(&rules);
    oom_buf_free(&err);
    return found;
}

/* tree-sitter's cursor fails an assertion when a wildcard-rooted pattern
 * sits in a query whose other patterns are disabled (found by fuzz_match):
 * the patterns left to it are given to it as a query of their own. */
static void wildcard_repetition_beside_native_patterns(void)
{
    CHECK(user_rule_findings("(_)+ @v\n(call) @c\n", "f(x)\n") > 0);
    CHECK(user_rule_findings("(call) @c\n(_) @v.+\n_\n", "f(x)\n") > 0);
    CHECK(user_rule_findings("(identifier)+ @v\n(call) @c\n", "f(x)\n") > 0);
}

void test_query_suite(void)
{
    oom_test_run("query: matches agree with tree-sitter's cursor, feature by feature",
                 matches_agree_with_tree_sitter);
    oom_test_run("query: match sets show their differences", match_sets_show_their_differences);
    oom_test_run("query: uncovered shapes are left to tree-sitter", uncovered_shapes_are_left_to_tree_sitter);
    oom_test_run("query: broken queries are refused with a position", broken_queries_are_refused_with_a_position);
    oom_test_run("query: a combinatorial pattern stops at the work limit",
                 combinatorial_patterns_stop_at_the_work_limit);
    oom_test_run("nodes: the tree laid out in preorder with fields", nodes_lay_out_the_tree);
    oom_test_run("nodes: the fast layout is the public cursor's, node by node", fast_layout_matches_the_cursor);
    oom_test_run("nodes: found by position, named children walked in order", nodes_are_found_by_position);
    oom_test_run("query: a user rule with a quantifier fires through tree-sitter's cursor",
                 user_rule_with_quantifier_still_fires);
    oom_test_run("query: a wildcard repetition beside native patterns", wildcard_repetition_beside_native_patterns);
}

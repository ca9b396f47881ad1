/* Reaching definitions over the control flow (model/flow.c): for a name
 * read at a marked place, which bindings may reach it. */
#include <stdlib.h>

#include "harness.h"
#include "oomlint/lang.h"
#include "oomlint/model.h"

typedef struct {
    TSParser *parser;
    TSTree *tree;
    oom_pymodel *model;
    const char *src;
    char answer[256];
} flow_case;

static void open_case(flow_case *c, const char *src)
{
    c->src = src;
    c->parser = ts_parser_new();
    ts_parser_set_language(c->parser, oom_lang_grammar(OOM_LANG_PYTHON));
    c->tree = ts_parser_parse_string(c->parser, NULL, src, (uint32_t)strlen(src));
    c->model = oom_pymodel_build(c->tree, src, strlen(src));
}

static void close_case(flow_case *c)
{
    oom_pymodel_free(c->model);
    ts_tree_delete(c->tree);
    ts_parser_delete(c->parser);
}

static bool is_word_char(char ch)
{
    return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

/* The first occurrence of `word` at or after `from` as a whole word. */
static const char *find_word(const char *from, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(from, word); p; p = strstr(p + 1, word))
        if ((p == from || !is_word_char(p[-1])) && !is_word_char(p[n]))
            return p;
    return NULL;
}

/* The lines (1-based) of the bindings that reach `name` where it is read
 * in the first occurrence of `context`, then "unbound" when some path binds
 * nothing; "outer", "inner" or "unknown" for the other answers. */
static const char *reach(flow_case *c, const char *context, const char *name)
{
    const char *at = strstr(c->src, context);
    if (!at)
        return "(no such context)";
    const char *use = find_word(at, name);
    if (!use)
        return "(no such name)";
    uint32_t start = (uint32_t)(use - c->src);
    TSNode id = ts_node_named_descendant_for_byte_range(ts_tree_root_node(c->tree), start,
                                                        start + (uint32_t)strlen(name));
    TSNode sites[16];
    size_t count = 0;
    bool unbound = false;
    oom_flow_answer a = oom_pymodel_reaching_definitions(c->model, id, sites, 16, &count, &unbound);
    if (a == OOM_FLOW_OUTER)
        return "outer";
    if (a == OOM_FLOW_INNER)
        return "inner";
    if (a == OOM_FLOW_UNKNOWN)
        return "unknown";
    size_t n = 0;
    c->answer[0] = '\0';
    for (size_t i = 0; i < count && i < 16; i++)
        n += (size_t)snprintf(c->answer + n, sizeof c->answer - n, "%s%u", n ? " " : "",
                              ts_node_start_point(sites[i]).row + 1);
    if (unbound)
        snprintf(c->answer + n, sizeof c->answer - n, "%sunbound", n ? " " : "");
    return c->answer;
}

static void rebound_in_one_branch(void)
{
    flow_case c;
    open_case(&c, "def step(model, x):\n"
                  "    loss = None\n"
                  "    if x is not None:\n"
                  "        loss = model(x).loss\n"
                  "    losses.append(loss)\n"
                  "    if x:\n"
                  "        out = 1\n"
                  "    elif x is None:\n"
                  "        out = 2\n"
                  "    else:\n"
                  "        out = 3\n"
                  "    report(out)\n"
                  "    if x:\n"
                  "        late = 1\n"
                  "    report(late)\n"
                  "    return x\n");
    CHECK_STR(reach(&c, "append(loss)", "loss"), "2 4");
    CHECK_STR(reach(&c, "report(out)", "out"), "7 9 11");
    CHECK_STR(reach(&c, "report(late)", "late"), "14 unbound");
    CHECK_STR(reach(&c, "return x", "x"), "1");
    CHECK_STR(reach(&c, "if x is not None", "x"), "1");
    close_case(&c);
}

static void loop_back_edge(void)
{
    flow_case c;
    open_case(&c, "def run(model, loader):\n"
                  "    prev = None\n"
                  "    for batch in loader:\n"
                  "        log(prev)\n"
                  "        out = model(batch)\n"
                  "        prev = out\n"
                  "    return prev, batch\n"
                  "def count(n):\n"
                  "    i = 0\n"
                  "    while i < n:\n"
                  "        i = i + 1\n"
                  "    return i\n");
    CHECK_STR(reach(&c, "log(prev)", "prev"), "2 6");
    CHECK_STR(reach(&c, "return prev", "prev"), "2 6");
    /* zero iterations leave the target unbound */
    CHECK_STR(reach(&c, "return prev, batch", "batch"), "3 unbound");
    CHECK_STR(reach(&c, "while i < n", "i"), "9 11");
    CHECK_STR(reach(&c, "= i + 1", "i"), "9 11");
    CHECK_STR(reach(&c, "return i", "i"), "9 11");
    close_case(&c);
}

static void break_and_continue(void)
{
    flow_case c;
    open_case(&c, "def find(items):\n"
                  "    for item in items:\n"
                  "        if wanted(item):\n"
                  "            found = item\n"
                  "            break\n"
                  "        found = 0\n"
                  "    else:\n"
                  "        found = None\n"
                  "    return found\n"
                  "def scan(data, skip):\n"
                  "    x = 1\n"
                  "    while more():\n"
                  "        x = 2\n"
                  "        if skip:\n"
                  "            continue\n"
                  "        if done():\n"
                  "            break\n"
                  "        x = 3\n"
                  "    use(x)\n");
    /* break skips the else clause and the rest of the body */
    CHECK_STR(reach(&c, "return found", "found"), "4 8");
    CHECK_STR(reach(&c, "use(x)", "x"), "11 13 18");
    close_case(&c);
}

static void try_except_finally(void)
{
    flow_case c;
    open_case(&c, "def work():\n"
                  "    state = 'start'\n"
                  "    try:\n"
                  "        state = 'run'\n"
                  "        step()\n"
                  "        state = 'done'\n"
                  "    except ValueError as err:\n"
                  "        note(err, state)\n"
                  "        state = 'failed'\n"
                  "    else:\n"
                  "        ok(state)\n"
                  "    finally:\n"
                  "        log(state)\n"
                  "def early():\n"
                  "    x = 1\n"
                  "    try:\n"
                  "        x = 2\n"
                  "        return x\n"
                  "    finally:\n"
                  "        cleanup(x)\n");
    /* the handler may start after any statement of the body */
    CHECK_STR(reach(&c, "note(err, state)", "state"), "2 4 6");
    CHECK_STR(reach(&c, "note(err", "err"), "7");
    CHECK_STR(reach(&c, "ok(state)", "state"), "6");
    CHECK_STR(reach(&c, "log(state)", "state"), "2 4 6 9");
    /* the return runs the finally clause first */
    CHECK_STR(reach(&c, "cleanup(x)", "x"), "15 17");
    close_case(&c);

    /* a break leaves through two finally clauses, the inner one first */
    open_case(&c, "def nested(items):\n"
                  "    for item in items:\n"
                  "        a = 1\n"
                  "        try:\n"
                  "            try:\n"
                  "                a = 2\n"
                  "                break\n"
                  "            finally:\n"
                  "                a = 3\n"
                  "        finally:\n"
                  "            use(a)\n"
                  "    return a\n");
    CHECK_STR(reach(&c, "use(a)", "a"), "3 9");
    /* asked at a binding's own target: what the name held before it */
    CHECK_STR(reach(&c, "a = 3", "a"), "3 6");
    close_case(&c);
}

static void with_and_walrus(void)
{
    flow_case c;
    open_case(&c, "def evaluate(model, path, x):\n"
                  "    with torch.no_grad() as ctx:\n"
                  "        out = model(x)\n"
                  "    keep(ctx, out)\n"
                  "    with open(path) as f, wrap(f) as g:\n"
                  "        g.read()\n"
                  "    if (m := match(x)) is not None:\n"
                  "        use(m)\n"
                  "    del out\n"
                  "    use(out)\n");
    CHECK_STR(reach(&c, "keep(ctx", "ctx"), "2");
    CHECK_STR(reach(&c, "keep(ctx, out)", "out"), "3");
    CHECK_STR(reach(&c, "wrap(f)", "f"), "5");
    CHECK_STR(reach(&c, "use(m)", "m"), "7");
    CHECK_STR(reach(&c, "    use(out)", "out"), "unbound");
    close_case(&c);
}

static void return_in_a_branch(void)
{
    flow_case c;
    open_case(&c, "def step(x, train):\n"
                  "    y = 0\n"
                  "    if train:\n"
                  "        y = 1\n"
                  "        return y\n"
                  "    elif x:\n"
                  "        y = 2\n"
                  "        raise ValueError(y)\n"
                  "    use(y)\n");
    CHECK_STR(reach(&c, "use(y)", "y"), "2");
    CHECK_STR(reach(&c, "return y", "y"), "4");
    close_case(&c);
}

static void nested_scopes(void)
{
    flow_case c;
    open_case(&c, "def outer():\n"
                  "    h = 1\n"
                  "    def inner(k=h):\n"
                  "        h = 2\n"
                  "        return h\n"
                  "    use(h)\n"
                  "    def reader():\n"
                  "        return h\n"
                  "    f = lambda h: h + 1\n"
                  "    g = lambda: h\n"
                  "    class Box:\n"
                  "        h = 3\n"
                  "        size = h\n"
                  "    return h\n"
                  "def counter():\n"
                  "    global total\n"
                  "    total = 1\n"
                  "    return total\n");
    CHECK_STR(reach(&c, "return h\n    use", "h"), "4");
    CHECK_STR(reach(&c, "use(h)", "h"), "2");
    /* a default is evaluated in the enclosing body */
    CHECK_STR(reach(&c, "k=h", "h"), "2");
    CHECK_STR(reach(&c, "def reader():\n        return h", "h"), "outer");
    CHECK_STR(reach(&c, "h + 1", "h"), "inner");
    CHECK_STR(reach(&c, "lambda: h", "h"), "2");
    CHECK_STR(reach(&c, "size = h", "h"), "unknown");
    /* the class body's binding is the class's */
    CHECK_STR(reach(&c, "return h\ndef counter", "h"), "2");
    CHECK_STR(reach(&c, "return total", "total"), "unknown");
    close_case(&c);
}

static void comprehension_does_not_leak(void)
{
    flow_case c;
    open_case(&c, "x = 10\n"
                  "ys = [x * 2 for x in range(3)]\n"
                  "zs = [x for x in x]\n"
                  "pairs = {k: v for k, v in items}\n"
                  "print(x, k)\n");
    CHECK_STR(reach(&c, "print(x", "x"), "1");
    CHECK_STR(reach(&c, "[x * 2", "x"), "inner");
    /* the first iterable is read outside the comprehension */
    CHECK_STR(reach(&c, "in x]", "x"), "1");
    CHECK_STR(reach(&c, "print(x, k)", "k"), "outer");
    close_case(&c);
}

static void imports_defs_and_match(void)
{
    flow_case c;
    open_case(&c, "import torch.nn as nn\n"
                  "import os.path\n"
                  "def build():\n"
                  "    return nn, os\n"
                  "class Net:\n"
                  "    pass\n"
                  "def act(command):\n"
                  "    match command:\n"
                  "        case Point(x=px) if px > 0:\n"
                  "            use(px)\n"
                  "        case [first, *rest]:\n"
                  "            use(first, rest)\n"
                  "        case _:\n"
                  "            px = None\n"
                  "    return px\n"
                  "net = Net()\n");
    CHECK_STR(reach(&c, "return nn", "nn"), "outer");
    CHECK_STR(reach(&c, "net = Net()", "Net"), "5");
    CHECK_STR(reach(&c, "px > 0", "px"), "9");
    CHECK_STR(reach(&c, "use(first, rest)", "rest"), "11");
    CHECK_STR(reach(&c, "return px", "px"), "9 14 unbound");
    close_case(&c);
}

/* 2000 nested loops and ifs: explicit stacks, no recursion, a bounded answer. */
static void deep_nesting(void)
{
    const int depth = 2000;
    size_t cap = (size_t)depth * (depth + 40) + 64;
    char *src = malloc(cap), *p = src;
    p += sprintf(p, "x = 0\n");
    for (int i = 0; i < depth; i++) {
        for (int k = 0; k < i; k++)
            *p++ = ' ';
        p += sprintf(p, i % 3 == 0 ? "for i%d in r:\n" : i % 3 == 1 ? "if c%d:\n" : "while c%d:\n", i);
    }
    for (int k = 0; k < depth; k++)
        *p++ = ' ';
    p += sprintf(p, "x = x + 1\n");
    p += sprintf(p, "print(x)\n");
    flow_case c;
    open_case(&c, src);
    CHECK(oom_pymodel_flow_check(c.model));
    CHECK_STR(reach(&c, "= x + 1", "x"), "1 2002");
    CHECK_STR(reach(&c, "print(x)", "x"), "1 2002");
    close_case(&c);
    free(src);
}

void test_flow_suite(void)
{
    oom_test_run("flow: a name rebound in one branch", rebound_in_one_branch);
    oom_test_run("flow: a loop's back edge", loop_back_edge);
    oom_test_run("flow: break and continue", break_and_continue);
    oom_test_run("flow: try, except, else, finally", try_except_finally);
    oom_test_run("flow: with, walrus and del", with_and_walrus);
    oom_test_run("flow: return and raise in a branch", return_in_a_branch);
    oom_test_run("flow: nested functions, lambdas, classes, global", nested_scopes);
    oom_test_run("flow: comprehension variables do not leak", comprehension_does_not_leak);
    oom_test_run("flow: imports, def, class and match", imports_defs_and_match);
    oom_test_run("flow: 2000 nested loops and ifs", deep_nesting);
}

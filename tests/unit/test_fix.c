/* Fixes: rule.json's "fix" read and checked, each kind of edit made on real
 * code, a round's choice of edits, the rounds of the fixer, writing files
 * whole and only when unchanged, notebooks, the unified diff; and the
 * before/after fixtures under fixtures/fix (<name>.py, <name>.py.fixed for
 * --fix, <name>.py.unsafe-fixed for --unsafe-fixes when it differs). */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "oomlint/engine.h"
#include "oomlint/fix.h"
#include "oomlint/fixer.h"
#include "oomlint/kb.h"
#include "oomlint/report.h"
#include "oomlint/rules.h"
#include "oomlint/source.h"

/* ---- a user rule with a fix, in memory ---------------------------------------------------- */

typedef struct {
    oom_rule_list rules;
    oom_compiled *compiled;
    oom_linter *linter;
    char error[512];
} user_rule;

/* Loads and compiles one rule (code X100) with the fix `fix_json`; on an
 * error, `error` says it and the rest is NULL. */
static void user_rule_load(user_rule *u, const char *lang, const char *query, const char *fix_json)
{
    memset(u, 0, sizeof *u);
    oom_buf json;
    oom_buf_init(&json);
    oom_buf_printf(&json,
                   "{\"code\": \"X100\", \"name\": \"user-fix\", \"language\": \"%s\", \"severity\": \"warning\", "
                   "\"message\": \"m\", \"help\": \"h\", \"fix\": %s}",
                   lang, fix_json);
    oom_rule_file files[2] = {{"r/rule.json", json.data, json.len}, {"r/query.scm", query, strlen(query)}};
    oom_buf err;
    oom_buf_init(&err);
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    oom_strlist_push(&sel.select, "X100");
    if (oom_rules_add_files(&u->rules, files, 2, "user", &err) == 0)
        u->compiled = oom_compiled_new(&u->rules, &sel, &err);
    if (u->compiled) {
        oom_run_context run = {.kb = NULL};
        oom_compiled_set_run(u->compiled, &run);
        u->linter = oom_linter_new(u->compiled);
    } else {
        snprintf(u->error, sizeof u->error, "%s", err.data ? err.data : "");
    }
    oom_selection_free(&sel);
    oom_buf_free(&err);
    oom_buf_free(&json);
}

static void user_rule_free(user_rule *u)
{
    oom_linter_free(u->linter);
    oom_compiled_free(u->compiled);
    oom_rules_free(&u->rules);
}

/* Lints `text` and applies every fix once (one round, unsafe included):
 * the new text, or NULL when no finding has a fix. */
static char *fix_once(user_rule *u, const char *text, oom_lang lang)
{
    oom_source src;
    char why[128];
    oom_source_from_memory("t", text, strlen(text), &src, why, sizeof why);
    oom_diag_list found = {NULL, 0, 0};
    oom_linter_run(u->linter, &src, lang, &found);
    bool any = false;
    for (size_t i = 0; i < found.len; i++)
        any |= found.items[i].fix != NULL;
    char *result = NULL;
    if (any) {
        oom_buf out;
        oom_buf_init(&out);
        oom_fix_apply(src.text, src.len, &found, OOM_FIX_UNSAFE, NULL, &out, NULL);
        result = oom_buf_take(&out);
    }
    oom_diag_list_free(&found);
    oom_source_free(&src);
    return result;
}

/* The query every edit test uses: calls of `f` and `g`, their arguments. */
static const char call_query[] =
    "((call function: (identifier) @fn arguments: (argument_list) @args) @call @report (#any-of? @fn \"f\" \"g\"))\n";

/* `fix` applied to `text`: the new text must be `want` (NULL: no fix made). */
static void check_edit(const char *query, const char *fix, const char *text, const char *want)
{
    user_rule u;
    user_rule_load(&u, "python", query, fix);
    if (!u.linter) {
        printf("  rule does not load: %s\n", u.error);
        CHECK(u.linter != NULL);
        user_rule_free(&u);
        return;
    }
    char *got = fix_once(&u, text, OOM_LANG_PYTHON);
    if (want) {
        CHECK_STR(got, want);
    } else {
        if (got)
            printf("  want no fix, got \"%s\"\n", got);
        CHECK(got == NULL);
    }
    free(got);
    user_rule_free(&u);
}

/* ---- the declaration ------------------------------------------------------------------------------ */

static const char *spec_error(const char *fix)
{
    static char last[512];
    user_rule u;
    user_rule_load(&u, "python", call_query, fix);
    snprintf(last, sizeof last, "%s", u.error);
    user_rule_free(&u);
    return last;
}

static void declarations_are_checked(void)
{
    CHECK_STR(spec_error("{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"replace\": \"fn\", \"with\": \"h\"}]}"), "");
    CHECK(strstr(spec_error("{\"applicability\": \"sure\", \"message\": \"m\", \"edits\": [{\"replace\": \"fn\", \"with\": \"h\"}]}"),
                 "\"applicability\" must be \"safe\", \"unsafe\" or \"display-only\"") != NULL);
    CHECK(strstr(spec_error("{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": []}"), "non-empty") != NULL);
    CHECK(strstr(spec_error("{\"applicability\": \"safe\", \"edits\": [{\"replace\": \"fn\", \"with\": \"h\"}]}"),
                 "\"message\"") != NULL);
    CHECK(strstr(spec_error("{\"applicability\": \"safe\", \"message\": \"m\", \"oops\": 1, \"edits\": []}"),
                 "unknown field \"oops\"") != NULL);
    CHECK(strstr(spec_error("{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"move\": \"fn\"}]}"),
                 "unknown field \"move\" in an edit") != NULL);
    CHECK(strstr(spec_error("{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"replace\": \"fn\", "
                            "\"remove-argument\": \"fn\"}]}"),
                 "both") != NULL);
    CHECK(strstr(spec_error("{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"add-argument\": \"call\", "
                            "\"value\": \"1\"}]}"),
                 "\"keyword\"") != NULL);
    CHECK(strstr(spec_error("{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"replace\": \"fn\", "
                            "\"map\": []}]}"),
                 "\"map\" must be an object") != NULL);
    CHECK(strstr(spec_error("[{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"replace\": \"fn\", "
                            "\"with\": \"h\", \"decorator\": \"x\"}]}]"),
                 "fix[0]: edits[0]: \"decorator\" does not belong in a replace edit") != NULL);
    /* checked against the query when compiled */
    CHECK(strstr(spec_error("{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"replace\": \"nope\", "
                            "\"with\": \"h\"}]}"),
                 "@nope is no capture of the query") != NULL);
    CHECK(strstr(spec_error("{\"applicability\": \"safe\", \"message\": \"{{nope}}\", \"edits\": [{\"replace\": \"fn\", "
                            "\"with\": \"h\"}]}"),
                 "{{nope}} names no capture") != NULL);
    CHECK(strstr(spec_error("{\"when\": \"#oom-bogus? @fn\", \"applicability\": \"safe\", \"message\": \"m\", "
                            "\"edits\": [{\"replace\": \"fn\", \"with\": \"h\"}]}"),
                 "fix[0].when[0]: unknown predicate #oom-bogus?") != NULL);
    CHECK(strstr(spec_error("{\"when\": [\"#eq? @nope \\\"x\\\"\"], \"applicability\": \"safe\", \"message\": \"m\", "
                            "\"edits\": [{\"replace\": \"fn\", \"with\": \"h\"}]}"),
                 "@nope is no capture") != NULL);
}

static void rules_list_their_fixes(void)
{
    oom_rule_list rules = {NULL, 0, 0};
    oom_buf err, d;
    oom_buf_init(&err);
    oom_buf_init(&d);
    CHECK(oom_rules_add_embedded(&rules, &err) == 0);
    oom_fix_spec_describe(oom_rules_find(&rules, "OOM201")->fix, &d);
    CHECK_STR(d.data, "safe/unsafe");
    oom_buf_clear(&d);
    oom_fix_spec_describe(oom_rules_find(&rules, "OOM701")->fix, &d);
    CHECK_STR(d.data, "display-only");
    CHECK(oom_rules_find(&rules, "OOM204")->fix == NULL);
    oom_buf_free(&d);
    oom_buf_free(&err);
    oom_rules_free(&rules);
}

/* ---- the edits ---------------------------------------------------------------------------------- */

static void replace_parenthesises_and_maps(void)
{
    const char *item = "{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"replace\": \"value\", "
                       "\"with\": \"{{value}}.item()\"}]}";
    const char *q = "((call function: (identifier) @fn arguments: (argument_list . (_) @value .)) @report "
                    "(#eq? @fn \"f\"))\n";
    check_edit(q, item, "f(loss)\n", "f(loss.item())\n");
    check_edit(q, item, "f(a + b)\n", "f((a + b).item())\n");
    check_edit(q, item, "f(1)\n", "f((1).item())\n");
    check_edit(q, item, "f(x[0])\n", "f(x[0].item())\n");
    check_edit(q, item, "f(val=loss)\n", NULL); /* no expression to call .item() on */
    const char *map = "{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"replace\": \"value\", "
                      "\"map\": {\"\\\"a\\\"\": \"\\\"b\\\"\"}}]}";
    check_edit(q, map, "f(\"a\")\n", "f(\"b\")\n");
    check_edit(q, map, "f('a')\n", NULL); /* a text the map does not know */
}

static void add_argument_in_the_calls_layout(void)
{
    const char *add = "{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"add-argument\": \"call\", "
                      "\"keyword\": \"k\", \"value\": \"1\"}]}";
    check_edit(call_query, add, "f()\n", "f(k=1)\n");
    check_edit(call_query, add, "f(a)\n", "f(a, k=1)\n");
    check_edit(call_query, add, "f(a,)\n", "f(a, k=1)\n");
    check_edit(call_query, add, "f(\n    a,\n    b=2,\n)\n", "f(\n    a,\n    b=2,\n    k=1,\n)\n");
    check_edit(call_query, add, "f(\n    a,\n    b=2  # why\n)\n", "f(\n    a,\n    b=2,  # why\n    k=1\n)\n");
    check_edit(call_query, add, "f(a,\n  b)\n", "f(a,\n  b, k=1)\n");
    check_edit(call_query, add, "f(a, k=0)\n", NULL);     /* already passed */
    check_edit(call_query, add, "f(a, **kw)\n", NULL);    /* **kw may hold it */
    check_edit(call_query, add, "f(x for x in y)\n", NULL);
    check_edit(call_query, add, "f(a)\r\ng(\r\n    b,\r\n)\r\n", "f(a, k=1)\r\ng(\r\n    b,\r\n    k=1,\r\n)\r\n");
}

static void remove_argument_with_its_comma(void)
{
    const char *q = "((call function: (identifier) @fn arguments: (argument_list (keyword_argument name: (identifier) "
                    "@kw) @arg)) @report (#eq? @fn \"f\") (#eq? @kw \"r\"))\n";
    const char *rm = "{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"remove-argument\": \"arg\"}]}";
    check_edit(q, rm, "f(r=True)\n", "f()\n");
    check_edit(q, rm, "f(a, r=True)\n", "f(a)\n");
    check_edit(q, rm, "f(r=True, a)\n", "f(a)\n");
    check_edit(q, rm, "f(a, r=True, b)\n", "f(a, b)\n");
    check_edit(q, rm, "f(\n    a,\n    r=True,\n)\n", "f(\n    a,\n)\n");
    check_edit(q, rm, "f(\n    r=True,\n    a,\n)\n", "f(\n    a,\n)\n");
    check_edit(q, rm, "f(\n    r=True,\n)\n", "f()\n");
}

static void decorators_statements(void)
{
    const char *deco = "{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"add-decorator\": \"call\", "
                       "\"decorator\": \"{{import:torch}}.no_grad()\"}]}";
    check_edit(call_query, deco, "import torch\ndef e():\n    f()\n", "import torch\n@torch.no_grad()\ndef e():\n    f()\n");
    check_edit(call_query, deco, "import torch as T\nclass C:\n    @property\n    def e(self):\n        return f()\n",
               "import torch as T\nclass C:\n    @property\n    @T.no_grad()\n    def e(self):\n        return f()\n");
    check_edit(call_query, deco, "import torch\n@torch.no_grad()\ndef e():\n    f()\n", NULL); /* there already */
    check_edit(call_query, deco, "def e():\n    f()\n", NULL);                  /* torch not imported */
    check_edit(call_query, deco, "import torch\nf()\n", NULL);                 /* module level */
    check_edit(call_query, deco, "import torch\nasync def e():\n    f()\n", NULL);
    check_edit(call_query, deco, "import torch\ndef e():\n    return lambda: f()\n", NULL);
    check_edit(call_query, deco, "import torch\nclass C:\n    x = f()\n", NULL); /* class level */
    const char *after = "{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"insert-after\": \"call\", "
                        "\"statement\": \"del x\"}]}";
    check_edit(call_query, after, "def e():\n    x = f()  # note\n    return 1\n",
               "def e():\n    x = f()  # note\n    del x\n    return 1\n");
    check_edit(call_query, after, "if c: x = f()\n", NULL); /* shares its line */
    check_edit(call_query, after, "a = 1; x = f()\n", NULL);
    const char *del = "{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"delete-statement\": \"call\"}]}";
    check_edit(call_query, del, "for i in r:\n    f()\n    g2()\n", "for i in r:\n    g2()\n");
    check_edit(call_query, del, "for i in r:\n    f()  # cache\n", "for i in r:\n    pass  # cache\n");
}

static void json_values_keep_their_layout(void)
{
    user_rule u;
    user_rule_load(&u, "json", "((pair key: (string (string_content) @k)) @report (#eq? @k \"bf16\"))\n",
                   "{\"applicability\": \"unsafe\", \"message\": \"m\", \"edits\": [{\"replace\": \"k\", "
                   "\"map\": {\"bf16\": \"fp16\"}}]}");
    CHECK(u.linter != NULL);
    if (u.linter) {
        char *got = fix_once(&u, "{\n  \"bf16\" :  true,\n  \"x\": 1\n}\n", OOM_LANG_JSON);
        CHECK_STR(got, "{\n  \"fp16\" :  true,\n  \"x\": 1\n}\n");
        free(got);
    }
    user_rule_free(&u);
}

/* ---- a round, and the rounds ------------------------------------------------------------------ */

static oom_diag fake_finding(oom_fix *fix)
{
    oom_diag d;
    memset(&d, 0, sizeof d);
    d.code = (char *)"X100";
    d.fix = fix;
    return d;
}

static oom_fix *one_edit(oom_applicability a, uint32_t start, uint32_t end, const char *content)
{
    oom_fix *f = oom_xcalloc(1, sizeof *f);
    f->applicability = a;
    f->message = oom_xstrdup("m");
    f->edits = oom_xcalloc(1, sizeof(oom_edit));
    f->edit_count = 1;
    f->edits[0].start_byte = start;
    f->edits[0].end_byte = end;
    f->edits[0].content = oom_xstrdup(content);
    return f;
}

static void a_round_takes_what_fits(void)
{
    const char *text = "abcdef";
    oom_fix *fixes[] = {
        one_edit(OOM_FIX_SAFE, 1, 3, "X"),         /* bc -> X */
        one_edit(OOM_FIX_SAFE, 2, 4, "Y"),         /* overlaps the first: waits */
        one_edit(OOM_FIX_SAFE, 1, 3, "X"),         /* the same edit again: made once, counted */
        one_edit(OOM_FIX_UNSAFE, 5, 6, "Z"),       /* only with unsafe fixes */
        one_edit(OOM_FIX_DISPLAY_ONLY, 0, 1, "W"), /* never */
        one_edit(OOM_FIX_SAFE, 4, 4, "+"),         /* an insertion at the edge of nothing taken */
        one_edit(OOM_FIX_SAFE, 4, 4, "-"),         /* a second insertion at one place: waits */
    };
    size_t n = sizeof fixes / sizeof *fixes;
    oom_diag_list diags = {oom_xcalloc(n, sizeof(oom_diag)), n, n};
    for (size_t i = 0; i < n; i++)
        diags.items[i] = fake_finding(fixes[i]);
    unsigned char applied[7];
    oom_buf out;
    oom_buf_init(&out);
    CHECK(oom_fix_apply(text, 6, &diags, OOM_FIX_SAFE, NULL, &out, applied) == 3);
    CHECK_STR(out.data, "aXd+ef");
    CHECK(applied[0] && !applied[1] && applied[2] && !applied[3] && !applied[4] && applied[5] && !applied[6]);
    CHECK(oom_fix_apply(text, 6, &diags, OOM_FIX_UNSAFE, NULL, &out, applied) == 4);
    CHECK_STR(out.data, "aXd+eZ");
    /* a cell start moves with what the edits before it change; one across it is noted */
    uint32_t at[2] = {4, 2};
    oom_fix_marks marks = {at, 2, false};
    oom_fix_apply_marked(text, 6, &diags, OOM_FIX_SAFE, NULL, &out, NULL, &marks);
    CHECK(at[0] == 3 && marks.crossed);
    for (size_t i = 0; i < n; i++)
        oom_fix_free(fixes[i]);
    free(diags.items);
    oom_buf_free(&out);
}

static void rounds_stop_and_check_syntax(void)
{
    const char *q = "((call function: (identifier) @fn arguments: (argument_list . (_) @value .)) @report "
                    "(#eq? @fn \"f\"))\n";
    oom_fix_policy all = {OOM_FIX_UNSAFE, NULL, NULL};
    oom_fix_result r;
    /* a fix that makes its own finding again never converges: 10 rounds */
    user_rule u;
    user_rule_load(&u, "python", q, "{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"replace\": "
                                    "\"value\", \"with\": \"g({{value}})\"}]}");
    oom_fix_text(u.linter, "t.py", "f(x)\n", 5, OOM_LANG_PYTHON, &all, &r);
    CHECK(r.outcome == OOM_FIX_CHANGED && r.rounds == OOM_FIX_MAX_ROUNDS && !r.converged);
    CHECK(r.applied_count == OOM_FIX_MAX_ROUNDS);
    CHECK_STR(r.text, "f(g(g(g(g(g(g(g(g(g(g(x)))))))))))\n");
    oom_fix_result_free(&r);
    /* a text that does not parse is not fixed */
    oom_fix_text(u.linter, "t.py", "f(x)\ndef (:\n", 11, OOM_LANG_PYTHON, &all, &r);
    CHECK(r.outcome == OOM_FIX_HAS_SYNTAX_ERROR && !r.text);
    oom_fix_result_free(&r);
    user_rule_free(&u);
    /* a fix that breaks the syntax leaves the text as it was */
    user_rule_load(&u, "python", q, "{\"applicability\": \"safe\", \"message\": \"m\", \"edits\": [{\"replace\": "
                                    "\"value\", \"with\": \"((\"}]}");
    oom_fix_text(u.linter, "t.py", "f(x)\ny = 1\n", 11, OOM_LANG_PYTHON, &all, &r);
    CHECK(r.outcome == OOM_FIX_BREAKS_SYNTAX && !r.text && strstr(r.detail, "line ") != NULL);
    oom_fix_result_free(&r);
    /* a policy that refuses leaves it unchanged */
    oom_fix_policy safe_only = {OOM_FIX_SAFE, NULL, NULL};
    user_rule_free(&u);
    user_rule_load(&u, "python", q, "{\"applicability\": \"unsafe\", \"message\": \"m\", \"edits\": [{\"replace\": "
                                    "\"value\", \"with\": \"y\"}]}");
    oom_fix_text(u.linter, "t.py", "f(x)\n", 5, OOM_LANG_PYTHON, &safe_only, &r);
    CHECK(r.outcome == OOM_FIX_UNCHANGED && r.rounds == 0);
    oom_fix_result_free(&r);
    user_rule_free(&u);
}

/* ---- files on disk ------------------------------------------------------------------------------ */

static char *temp_dir(void)
{
    char tmpl[] = "/tmp/oomlint-fix-test.XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? oom_xstrdup(d) : NULL;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static char *read_text(const char *path)
{
    oom_source src;
    char why[128];
    char *t = NULL;
    if (oom_source_read(path, path, &src, why, sizeof why) == OOM_SOURCE_OK)
        t = oom_xstrdup(src.text);
    oom_source_free(&src);
    return t;
}

static void files_are_replaced_whole_and_only_if_unchanged(void)
{
    char *dir = temp_dir();
    CHECK(dir != NULL);
    if (!dir)
        return;
    char path[512], link[512], bytes[16];
    snprintf(path, sizeof path, "%s/a.py", dir);
    snprintf(link, sizeof link, "%s/link.py", dir);
    write_text(path, "\xEF\xBB\xBFx = 1\n");
    chmod(path, 0751);
    oom_fix_file f;
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_fix_file_read(path, false, &f, &err) == 0 && f.bom == 3);
    /* written: the BOM kept, the mode kept */
    CHECK(oom_fix_file_write(&f, "x = 2\n", 6, &err) == OOM_FIX_WRITTEN);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0751);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && read(fd, bytes, 3) == 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0);
    if (fd >= 0)
        close(fd);
    /* the file changed since it was read: not written */
    oom_buf_clear(&err);
    CHECK(oom_fix_file_write(&f, "x = 3\n", 6, &err) == OOM_FIX_CHANGED_ON_DISK);
    CHECK(strstr(err.data, "changed on disk") != NULL);
    char *now = read_text(path);
    CHECK_STR(now, "x = 2\n");
    free(now);
    oom_fix_file_free(&f);
    /* through a symbolic link, the file it names is replaced; the link stays */
    CHECK(symlink(path, link) == 0);
    CHECK(oom_fix_file_read(link, false, &f, &err) == 0);
    CHECK(oom_fix_file_write(&f, "x = 4\n", 6, &err) == OOM_FIX_WRITTEN);
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    now = read_text(path);
    CHECK_STR(now, "x = 4\n");
    free(now);
    oom_fix_file_free(&f);
    /* no temporary file is left beside it */
    DIR *d = opendir(dir);
    int entries = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        entries += e->d_name[0] != '.';
    if (d)
        closedir(d);
    CHECK(entries == 2);
    unlink(link);
    unlink(path);
    rmdir(dir);
    free(dir);
    oom_buf_free(&err);
}

static void unified_diff(void)
{
    oom_buf out;
    oom_buf_init(&out);
    oom_report_unified_diff("t.py", "a\nb\nc\nd\ne\nf\ng\nh\ni\n", 18, "a\nb\nc\nd\nE\nf\ng\nh\ni\nj", 19, &out);
    CHECK_STR(out.data, "--- t.py\n+++ t.py\n@@ -2,8 +2,9 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n i\n+j\n"
                        "\\ No newline at end of file\n");
    oom_buf_clear(&out);
    oom_buf_append(&out, "", 0);
    oom_report_unified_diff("t.py", "same\n", 5, "same\n", 5, &out);
    CHECK_STR(out.data, "");
    oom_buf_free(&out);
}

/* ---- notebooks ------------------------------------------------------------------------------------ */

static void notebooks_take_their_cells_back(void)
{
    oom_rule_list rules = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    CHECK(oom_rules_add_embedded(&rules, &err) == 0);
    oom_compiled *c = oom_compiled_new(&rules, &sel, &err);
    oom_run_context run = {.kb = NULL};
    oom_compiled_set_run(c, &run);
    oom_linter *l = oom_linter_new(c);
    /* %env is masked into the assignment OOM101 fixes: that line cannot be
     * written back, so its fix is not made (and the notebook stays as it is) */
    const char *nb = "{\"cells\": [{\"cell_type\": \"code\", \"source\": [\"%env CUDA_VISIBLE_DEVICES=0\\n\", "
                     "\"x = 1\"]}], \"nbformat\": 4}";
    oom_fix_policy all = {OOM_FIX_UNSAFE, NULL, NULL};
    oom_fix_result r;
    oom_fix_notebook(l, "n.ipynb", nb, strlen(nb), &all, &r);
    CHECK(r.outcome == OOM_FIX_UNCHANGED && r.applied_count == 0);
    oom_fix_result_free(&r);
    /* a plain cell is: only its source changes, the rest of the file stays */
    const char *nb2 = "{\"cells\": [{\"cell_type\": \"markdown\", \"source\": \"x\"}, {\"cell_type\": \"code\", "
                      "\"source\": \"import os\\nos.environ[\\\"CUDA_VISIBLE_DEVICES\\\"] = \\\"0\\\"\", \"x\": 1}],"
                      "  \"nbformat\": 4}";
    oom_fix_notebook(l, "n.ipynb", nb2, strlen(nb2), &all, &r);
    CHECK(r.outcome == OOM_FIX_CHANGED);
    CHECK_STR(r.text, "{\"cells\": [{\"cell_type\": \"markdown\", \"source\": \"x\"}, {\"cell_type\": \"code\", "
                      "\"source\": \"import os\\nos.environ.setdefault(\\\"CUDA_VISIBLE_DEVICES\\\", \\\"0\\\")\", "
                      "\"x\": 1}],  \"nbformat\": 4}");
    oom_fix_result_free(&r);
    oom_linter_free(l);
    oom_compiled_free(c);
    oom_rules_free(&rules);
    oom_buf_free(&err);
}

/* ---- the before/after fixtures ---------------------------------------------------------------- */

static oom_kb fix_kb;
static oom_compiled *fix_compiled;

/* `# fixture: gpu=NAME` in the text, or `gpu: NAME` in a JSON fixture's .expect. */
static const oom_gpu *fixture_gpu(const char *path, const char *text)
{
    oom_buf side;
    oom_buf_init(&side);
    oom_buf_printf(&side, "%s.expect", path);
    char *expect = oom_str_ends_with(path, ".json") ? read_text(side.data) : NULL;
    const char *t = expect ? expect : text;
    const char *p = strstr(t, expect ? "gpu: " : "fixture: gpu=");
    char name[64] = "";
    if (p) {
        p += expect ? 5 : 13;
        size_t n = strcspn(p, " \r\n");
        if (n < sizeof name) {
            memcpy(name, p, n);
            name[n] = '\0';
        }
    }
    free(expect);
    oom_buf_free(&side);
    return name[0] ? oom_kb_find_gpu(&fix_kb, name) : NULL;
}

/* The fixture fixed at `max`: the new text, or the text itself when nothing applied. */
static char *fixed_at(oom_linter *l, const char *path, const char *text, oom_applicability max)
{
    oom_fix_policy policy = {max, NULL, NULL};
    oom_fix_result r;
    if (oom_notebook_is_path(path))
        oom_fix_notebook(l, path, text, strlen(text), &policy, &r);
    else
        oom_fix_text(l, path, text, strlen(text), oom_lang_for_path(path), &policy, &r);
    char *out = r.outcome == OOM_FIX_CHANGED ? oom_xstrdup(r.text) : oom_xstrdup(text);
    if (r.outcome == OOM_FIX_BREAKS_SYNTAX || r.outcome == OOM_FIX_NOT_WRITTEN_BACK || !r.converged)
        printf("  %s: not fixed cleanly (%d): %s\n", path, (int)r.outcome, r.detail);
    CHECK(r.outcome != OOM_FIX_BREAKS_SYNTAX && r.outcome != OOM_FIX_NOT_WRITTEN_BACK && r.converged);
    oom_fix_result_free(&r);
    return out;
}

static void check_fixture(oom_linter *l, const char *path)
{
    char *text = read_text(path);
    if (!text) {
        printf("FAIL fix fixture %s: cannot read it\n", path);
        return;
    }
    oom_run_context run = {.kb = &fix_kb, .gpu = fixture_gpu(path, text)};
    oom_compiled_set_run(fix_compiled, &run);
    oom_buf want_path;
    oom_buf_init(&want_path);
    int failures = oom_test_failures_in_case;
    static const char *const suffixes[] = {".fixed", ".unsafe-fixed"};
    for (int u = 0; u < 2; u++) {
        oom_applicability max = u ? OOM_FIX_UNSAFE : OOM_FIX_SAFE;
        oom_buf_clear(&want_path);
        oom_buf_printf(&want_path, "%s%s", path, suffixes[u]);
        char *want = read_text(want_path.data);
        if (!want && u == 1) { /* the same as --fix gives */
            oom_buf_clear(&want_path);
            oom_buf_printf(&want_path, "%s.fixed", path);
            want = read_text(want_path.data);
        }
        char *got = fixed_at(l, path, text, max);
        if (!want || strcmp(got, want) != 0)
            printf("  %s: %s differs from what %s makes:\n%s\n", path, want_path.data,
                   u ? "--unsafe-fixes" : "--fix", got);
        CHECK(want && strcmp(got, want) == 0);
        /* fixing the fixed text again changes nothing */
        char *again = fixed_at(l, path, got, max);
        CHECK_STR(again, got);
        free(again);
        free(got);
        free(want);
    }
    printf("%s fix fixture %s\n", oom_test_failures_in_case == failures ? "PASS" : "FAIL", path);
    oom_test_failures_in_case = failures;
    oom_buf_free(&want_path);
    free(text);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk_fixtures(oom_linter *l, const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t len = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.')
            OOM_PUSH(names, len, cap, oom_xstrdup(e->d_name));
    closedir(d);
    if (len > 1)
        qsort(names, len, sizeof *names, cmp_names);
    for (size_t i = 0; i < len; i++) {
        oom_buf p;
        oom_buf_init(&p);
        oom_buf_printf(&p, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(p.data, &st) == 0 && S_ISDIR(st.st_mode)) {
            walk_fixtures(l, p.data, count);
        } else if (oom_str_ends_with(names[i], ".py") || oom_str_ends_with(names[i], ".json") ||
                   oom_str_ends_with(names[i], ".ipynb")) {
            check_fixture(l, p.data);
            (*count)++;
        }
        oom_buf_free(&p);
        free(names[i]);
    }
    free(names);
}

/* fixtures/fix, or its folder for one rule (`make check T=OOM201`). */
static void fix_fixtures(const char *root)
{
    oom_buf dir;
    oom_buf_init(&dir);
    const char *slash = strrchr(root, '/');
    if (strcmp(root, "fixtures") == 0)
        oom_buf_puts(&dir, "fixtures/fix");
    else if (oom_str_starts_with(root, "fixtures/fix"))
        oom_buf_puts(&dir, root);
    else
        oom_buf_printf(&dir, "fixtures/fix/%s", slash ? slash + 1 : root);
    struct stat st;
    if (stat(dir.data, &st) != 0) {
        oom_buf_free(&dir);
        return;
    }
    oom_rule_list rules = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    oom_strlist_push(&sel.select, "ALL");
    if (oom_rules_add_embedded(&rules, &err) == 0 && oom_kb_load_embedded(&fix_kb, &err) == 0 &&
        (fix_compiled = oom_compiled_new(&rules, &sel, &err)) != NULL) {
        oom_linter *l = oom_linter_new(fix_compiled);
        size_t count = 0;
        walk_fixtures(l, dir.data, &count);
        if (count == 0)
            printf("FAIL fix fixtures: none under %s\n", dir.data);
        oom_linter_free(l);
        oom_compiled_free(fix_compiled);
        fix_compiled = NULL;
        oom_kb_free(&fix_kb);
    } else {
        printf("FAIL fix fixtures: %s\n", err.data);
    }
    oom_selection_free(&sel);
    oom_rules_free(&rules);
    oom_buf_free(&err);
    oom_buf_free(&dir);
}

void test_fix_suite(const char *fixtures_root)
{
    oom_test_run("fix: rule.json fixes are checked when read and compiled", declarations_are_checked);
    oom_test_run("fix: oomlint rules knows which rules fix and how", rules_list_their_fixes);
    oom_test_run("fix: replace parenthesises what needs it; a map fixes only what it names",
                 replace_parenthesises_and_maps);
    oom_test_run("fix: add-argument writes in the call's own layout, never twice", add_argument_in_the_calls_layout);
    oom_test_run("fix: remove-argument takes its comma (and its line)", remove_argument_with_its_comma);
    oom_test_run("fix: add-decorator, insert-after and delete-statement keep the indentation",
                 decorators_statements);
    oom_test_run("fix: a JSON value changes, its file's layout does not", json_values_keep_their_layout);
    oom_test_run("fix: a round takes what fits, in order, each edit once", a_round_takes_what_fits);
    oom_test_run("fix: rounds stop at 10; nothing that parses is made unparsable", rounds_stop_and_check_syntax);
    oom_test_run("fix: files are replaced whole, keeping mode and BOM, only if unchanged",
                 files_are_replaced_whole_and_only_if_unchanged);
    oom_test_run("fix: --diff is a unified diff", unified_diff);
    oom_test_run("fix: notebooks take their fixed cells back; IPython lines are not fixed",
                 notebooks_take_their_cells_back);
    fix_fixtures(fixtures_root);
}

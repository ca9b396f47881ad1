/* Rule loading: the embedded rules are well-formed, and broken rules are
 * reported with file, line and column. */
#include <dirent.h>
#include <stdlib.h>

#include <cJSON.h>

#include "harness.h"
#include "oomlint/jsonfile.h"
#include "oomlint/library.h"
#include "oomlint/engine.h"
#include "oomlint/model.h"
#include "oomlint/rules.h"

/* rules/<language>/<CODE>-<name>/: the folder says the rule's code and name,
 * so that one can be found from the other; a rule renamed in rule.json but
 * not on disk (or the other way round) is caught here. */
static void rule_folders_match_their_rules(void)
{
    static const char *const langs[] = {"python", "json", "core"};
    size_t seen = 0;
    for (size_t l = 0; l < sizeof langs / sizeof *langs; l++) {
        char dir[64];
        snprintf(dir, sizeof dir, "rules/%s", langs[l]);
        DIR *d = opendir(dir);
        CHECK(d != NULL);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s/rule.json", dir, e->d_name);
            cJSON *rule = oom_json_read_file(path);
            const char *code = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rule, "code"));
            const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rule, "name"));
            char want[256];
            snprintf(want, sizeof want, "%s-%s", code ? code : "?", name ? name : "?");
            if (strcmp(want, e->d_name) != 0)
                printf("  %s/%s holds %s\n", dir, e->d_name, want);
            CHECK(strcmp(want, e->d_name) == 0);
            cJSON_Delete(rule);
            seen++;
        }
        if (d)
            closedir(d);
    }
    CHECK(seen >= 30);
}

static void embedded_rules_are_complete(void)
{
    oom_rule_list rules = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_rules_add_embedded(&rules, &err) == 0);
    static const char *const codes[] = {"OOM001", "OOM002", "OOM101", "OOM201", "OOM202", "OOM301"};
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        CHECK(oom_rules_find(&rules, codes[i]) != NULL);
    /* A rule with a fix says how far it can be trusted, after "Use instead" */
    static const char *const sections[] = {"## What it does", "## Why is this bad?", "## Example",
                                           "## Use instead", "## Fix safety", "## References"};
    for (size_t i = 0; i < rules.len; i++) {
        const oom_rule *r = &rules.items[i];
        const char *at = r->doc;
        for (size_t s = 0; s < sizeof sections / sizeof *sections; s++) {
            bool fix_section = strcmp(sections[s], "## Fix safety") == 0;
            if (fix_section && !r->fix) {
                if (strstr(r->doc, sections[s]))
                    printf("  %s: doc.md has \"## Fix safety\" but rule.json no fix\n", r->code);
                CHECK(strstr(r->doc, sections[s]) == NULL);
                continue;
            }
            const char *found = strstr(at, sections[s]);
            if (!found)
                printf("  %s: doc.md lacks \"%s\" (in order)\n", r->code, sections[s]);
            CHECK(found != NULL);
            at = found ? found : at;
            if (!fix_section || !found)
                continue;
            /* every applicability the fix can have is named, in bold */
            const char *end = strstr(found, "## References");
            for (size_t a = 0; a < r->fix->count; a++) {
                char word[32];
                snprintf(word, sizeof word, "**%s**", oom_applicability_name(r->fix->alts[a].applicability));
                const char *w = strstr(found, word);
                if (!w || (end && w > end))
                    printf("  %s: \"## Fix safety\" does not say %s\n", r->code, word);
                CHECK(w != NULL && (!end || w < end));
            }
        }
        CHECK(r->summary[0] != '\0');
    }
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    oom_strlist_push(&sel.select, "ALL");
    oom_compiled *c = oom_compiled_new(&rules, &sel, &err);
    if (!c)
        printf("  compile: %s\n", err.data);
    CHECK(c != NULL);
    oom_compiled_free(c);
    oom_selection_free(&sel);
    /* Each rule alone, as `--select CODE` compiles it: a query must not lean
     * on a capture that only another rule defines. */
    for (size_t i = 0; i < rules.len; i++) {
        oom_selection one;
        memset(&one, 0, sizeof one);
        oom_strlist_push(&one.select, rules.items[i].code);
        oom_compiled *alone = oom_compiled_new(&rules, &one, &err);
        if (!alone)
            printf("  %s alone: %s\n", rules.items[i].code, err.data);
        CHECK(alone != NULL);
        oom_compiled_free(alone);
        oom_selection_free(&one);
    }
    oom_rules_free(&rules);
    oom_buf_free(&err);
}

/* Loads one rule from memory and returns the error text ("" when it loads). */
static char *load_error(const char *json, const char *query)
{
    oom_rule_file files[2] = {{"r/rule.json", json, strlen(json)},
                              {"r/query.scm", query, query ? strlen(query) : 0}};
    oom_rule_list rules = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    int rc = oom_rules_add_files(&rules, files, query ? 2 : 1, "user", &err);
    if (rc == 0) {
        oom_selection sel;
        memset(&sel, 0, sizeof sel);
        oom_compiled *c = oom_compiled_new(&rules, &sel, &err);
        oom_compiled_free(c);
    }
    oom_rules_free(&rules);
    oom_buf_append(&err, "", 0);
    return oom_buf_take(&err);
}

#define GOOD_JSON                                                                          \
    "{\"code\": \"X1\", \"name\": \"x\", \"language\": \"python\", \"severity\": \"info\",\n" \
    " \"message\": \"m {{f}}\", \"help\": \"h\"}"

static void broken_rules_name_their_position(void)
{
    char *e = load_error(GOOD_JSON, "((call function: (identifier) @f) @report (#eq? @f \"print\"))");
    CHECK_STR(e, "");
    free(e);
    e = load_error("{\"code\": \"X1\",\n  \"name\": oops}", "(call) @f");
    CHECK(strstr(e, "user/r/rule.json:2:11") != NULL);
    free(e);
    e = load_error(GOOD_JSON, "(call) @f\n(call (identifier) @f")
    ;
    CHECK(strstr(e, "user/r/query.scm:2:") != NULL);
    free(e);
    e = load_error(GOOD_JSON, "(no_such_node) @f");
    CHECK(strstr(e, "query.scm:1:2: unknown node type") != NULL);
    free(e);
    e = load_error(GOOD_JSON, "(call) @f\n\"\" @f");
    CHECK(strstr(e, "query.scm:2:1: an empty string") != NULL); /* tree-sitter UB, found by fuzzing */
    free(e);
    e = load_error(GOOD_JSON, "((identifier) @f (#eq? @f \"\"))");
    CHECK(strstr(e, "query.scm:1:27: an empty string") != NULL); /* the same UB as an argument */
    free(e);
    e = load_error(GOOD_JSON, "(call (identifier) @f ((#eq? @f \"x\")) @g)");
    CHECK(strstr(e, "query.scm:1:23: a parenthesised group needs a node pattern") != NULL); /* tree-sitter assert */
    free(e);
    e = load_error(GOOD_JSON, "(call function: (_) @f arguments: (#eq? @f \"x\"))");
    CHECK(strstr(e, "query.scm:1:35: a field needs a node pattern") != NULL); /* tree-sitter assert */
    free(e);
    e = load_error(GOOD_JSON, "((call) @f (#eq? @f \"x\") @g)");
    CHECK(strstr(e, "a capture or quantifier needs a node pattern") != NULL);
    free(e);
    e = load_error(GOOD_JSON, "((identifier) @f (#match? @f \"^$\"))");
    CHECK_STR(e, "");
    free(e);
    e = load_error(GOOD_JSON, "((call) @f (#oom-bogus? @f))");
    CHECK(strstr(e, "unknown predicate #oom-bogus?") != NULL);
    free(e);
    e = load_error(GOOD_JSON, "((identifier) @f (#match? @f \"(\"))");
    CHECK(strstr(e, "bad regex") != NULL);
    free(e);
    e = load_error("{\"code\": \"X1\", \"name\": \"x\", \"language\": \"python\", \"severity\": \"fatal\","
                   " \"message\": \"m\", \"help\": \"h\"}", "(call) @f");
    CHECK(strstr(e, "severity \"fatal\"") != NULL);
    free(e);
    e = load_error("{\"code\": \"X1\", \"name\": \"x\", \"language\": \"python\", \"severity\": \"info\","
                   " \"message\": \"m {{nope}}\", \"help\": \"h\"}", "(call) @f");
    CHECK(strstr(e, "{{nope}}") != NULL);
    free(e);
    e = load_error("{\"code\": \"X1\", \"name\": \"x\", \"language\": \"python\", \"severity\": \"info\","
                   " \"message\": \"m\", \"help\": \"h\", \"colour\": 1}", "(call) @f");
    CHECK(strstr(e, "unknown field \"colour\"") != NULL);
    free(e);
}

/* A file that disappears between the folder walk and its reading (or
 * never existed) is reported as unreadable; the others are still linted. */
static void vanished_file_is_reported(void)
{
    oom_rule_list rules = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    CHECK(oom_rules_add_embedded(&rules, &err) == 0);
    oom_compiled *c = oom_compiled_new(&rules, &sel, &err);
    CHECK(c != NULL);
    oom_job jobs[2] = {{.path = "/nonexistent/deleted-during-run.py", .display = "deleted.py", .lang = OOM_LANG_PYTHON,
                        .report_syntax = true},
                       {.path = "fixtures/examples/train.py", .display = "train.py", .lang = OOM_LANG_PYTHON,
                        .report_syntax = true}};
    oom_diag_list out = {NULL, 0, 0};
    oom_lint_jobs(c, jobs, 2, 2, &out);
    CHECK(out.len > 1);
    CHECK(out.len > 0 && strcmp(out.items[0].code, "OOM002") == 0 &&
          strstr(out.items[0].message, "No such file") != NULL);
    oom_diag_list_free(&out);
    oom_compiled_free(c);
    oom_rules_free(&rules);
    oom_buf_free(&err);
}

/* A rule's documentation names the library knowledge it reads: OOM301's doc
 * names each list of values that turns a forward's result into numbers, and
 * the library has each of them, not empty, so the two cannot drift apart. */
static void docs_name_the_knowledge_they_read(void)
{
    oom_rule_list rules = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_rules_add_embedded(&rules, &err) == 0);
    const oom_rule *r = oom_rules_find(&rules, "OOM301");
    const oom_library *lib = oom_library_get();
    CHECK(r != NULL && lib != NULL);
    const char *keys[] = {"`number_methods`", "`number_builtins`", "`output_builtins`"};
    const oom_strlist *lists[] = {lib ? &lib->number_methods : NULL, lib ? &lib->number_builtins : NULL,
                                  lib ? &lib->output_builtins : NULL};
    for (size_t k = 0; r && lib && k < 3; k++) {
        if (!strstr(r->doc, keys[k]))
            printf("  OOM301's doc.md does not name %s\n", keys[k]);
        CHECK(strstr(r->doc, keys[k]) != NULL);
        CHECK(lists[k]->len > 0);
    }
    oom_rules_free(&rules);
    oom_buf_free(&err);
}

void test_rules_suite(void)
{
    oom_test_run("rules: OOM301's doc names the library lists it reads", docs_name_the_knowledge_they_read);
    oom_test_run("engine: a file deleted during the run is reported", vanished_file_is_reported);
    oom_test_run("rules: embedded rules complete and documented", embedded_rules_are_complete);
    oom_test_run("rules: each rule folder is named CODE-name after its rule.json", rule_folders_match_their_rules);
    oom_test_run("rules: broken rules name file, line and column", broken_rules_name_their_position);
}

/* Shared setup for the libFuzzer targets: the embedded rules, compiled once. */
#ifndef OOMLINT_FUZZ_COMMON_H
#define OOMLINT_FUZZ_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "oomlint/engine.h"
#include "oomlint/facts.h"
#include "oomlint/lang.h"
#include "oomlint/nodes.h"
#include "oomlint/project.h"
#include "oomlint/rules.h"

static oom_rule_list fuzz_rules;
static oom_compiled *fuzz_compiled;
static oom_linter *fuzz_linter;

static inline void fuzz_setup(void)
{
    if (fuzz_linter)
        return;
    oom_buf err;
    oom_buf_init(&err);
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    if (oom_rules_add_embedded(&fuzz_rules, &err) != 0 ||
        !(fuzz_compiled = oom_compiled_new(&fuzz_rules, &sel, &err)))
        abort();
    fuzz_linter = oom_linter_new(fuzz_compiled);
    oom_buf_free(&err);
}

/* The fast tree layout (tree-sitter's subtrees read directly) must be the
 * one made through tree-sitter's public cursor, node for node. */
static inline void fuzz_check_layout(const oom_source *src, oom_lang lang)
{
    static TSParser *parser;
    static oom_nodes fast, reference;
    if (!parser) {
        parser = ts_parser_new();
        oom_nodes_init(&fast);
        oom_nodes_init(&reference);
    }
    TSTree *tree;
    if (lang == OOM_LANG_PYTHON) {
        tree = oom_parse_python(parser, src->text, src->len);
    } else {
        ts_parser_set_language(parser, oom_lang_grammar(lang));
        tree = ts_parser_parse_string(parser, NULL, src->text, (uint32_t)src->len);
    }
    if (!tree)
        return;
    oom_nodes_build(&fast, ts_tree_root_node(tree));
    oom_nodes_build_cursor(&reference, ts_tree_root_node(tree));
    if (oom_nodes_first_difference(&fast, &reference) != UINT32_MAX)
        abort();
    oom_nodes_trim(&fast);
    oom_nodes_trim(&reference);
    ts_tree_delete(tree);
}

/* The project pass's call facts, taken as the CLI's worker takes them (the
 * DeepSpeed links and the estimate inputs read files beside the script, which
 * a fuzz input must not reach). */
static void fuzz_take_calls(void *ctx, oom_source *src, oom_pymodel *model, const oom_yamlmodel *yaml,
                            TSNode root, oom_diag_list *pending)
{
    oom_file_facts *facts = ctx;
    (void)src, (void)root, (void)yaml;
    oom_diag_list_move(&facts->pending, pending);
    if (model)
        oom_file_facts_take_calls(facts, model);
}

/* Lints the bytes as a file of `lang`, through the whole pipeline and a report. */
static inline void fuzz_lint(const uint8_t *data, size_t size, oom_lang lang)
{
    fuzz_setup();
    oom_source src;
    char why[256];
    oom_diag_list out = {NULL, 0, 0};
    if (oom_source_from_memory("fuzz.py", (const char *)data, size, &src, why, sizeof why) ==
        OOM_SOURCE_OK) {
        fuzz_check_layout(&src, lang);
        oom_file_facts facts;
        memset(&facts, 0, sizeof facts);
        oom_linter_run_then(fuzz_linter, &src, lang, &out, fuzz_take_calls, &facts);
        /* the file is its own project: its findings against its own callers
         * and its own accumulating methods */
        const char *paths[] = {"fuzz.py"};
        oom_project_confirm_pending(paths, &facts, 1, &out);
        oom_project_drop_findings_of_no_grad_callees(&facts, 1, &out);
        oom_file_facts_free(&facts);
    } else
        oom_report_unreadable(fuzz_compiled, "fuzz.py", why, &out);
    oom_source_free(&src);
    oom_diag_list_free(&out);
}

#endif

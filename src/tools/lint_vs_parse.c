/* lint-vs-parse: what oomlint's analysis adds to tree-sitter's parse, timed
 * file by file in one process. Reads file paths from stdin; for each
 * Python file, times (a) reading and parsing it as parse-only does and (b)
 * reading and linting it as one oomlint thread does (parse, layout, model,
 * rules, suppressions), side by side, alternating which goes first. Prints
 * the totals of each pass over the files and the median of the passes'
 * ratios.
 *
 * Why: the shared benchmark machine changes speed for seconds at a time, so
 * two whole-corpus runs a few seconds apart differ by up to a third even
 * with nothing changed. Here the two timings of a file are microseconds
 * apart and see the same machine. What a whole run adds on top (finding
 * the files, compiling the rules once, sorting and printing the findings)
 * is in `make bench`'s end-to-end times. Never a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oomlint/engine.h"
#include "oomlint/kb.h"
#include "oomlint/lang.h"
#include "oomlint/rules.h"
#include "oomlint/source.h"

#define MAX_PASSES 99

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double time_parse(TSParser *parser, const char *path)
{
    double t0 = now_seconds();
    oom_source src;
    char why[256];
    if (oom_source_read(path, path, &src, why, sizeof why) == OOM_SOURCE_OK)
        ts_tree_delete(ts_parser_parse_string(parser, NULL, src.text, (uint32_t)src.len));
    oom_source_free(&src);
    return now_seconds() - t0;
}

static double time_lint(oom_linter *linter, const char *path, size_t *findings)
{
    double t0 = now_seconds();
    oom_source src;
    char why[256];
    oom_diag_list out = {NULL, 0, 0};
    if (oom_source_read(path, path, &src, why, sizeof why) == OOM_SOURCE_OK)
        oom_linter_run(linter, &src, OOM_LANG_PYTHON, &out);
    *findings += out.len;
    oom_diag_list_free(&out);
    oom_source_free(&src);
    return now_seconds() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char **read_paths(size_t *count)
{
    char **paths = NULL;
    size_t cap = 0;
    char line[4096];
    *count = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        if (oom_lang_for_path(line) == OOM_LANG_PYTHON)
            OOM_PUSH(paths, *count, cap, oom_xstrdup(line));
    }
    return paths;
}

int main(int argc, char **argv)
{
    int passes = argc > 1 ? atoi(argv[1]) : 5;
    if (passes < 1 || passes > MAX_PASSES) {
        fprintf(stderr, "usage: lint-vs-parse [PASSES (1-%d, default 5)] < FILE-LIST\n", MAX_PASSES);
        return 2;
    }
    oom_rule_list rules = {0};
    oom_kb kb;
    oom_buf err;
    oom_buf_init(&err);
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    oom_compiled *c = NULL;
    if (oom_rules_add_embedded(&rules, &err) != 0 || oom_kb_load_embedded(&kb, &err) != 0 ||
        !(c = oom_compiled_new(&rules, &sel, &err))) {
        fprintf(stderr, "lint-vs-parse: %s\n", err.data);
        return 2;
    }
    oom_run_context run = {&kb, NULL, 0, false, false};
    oom_compiled_set_run(c, &run);
    size_t count;
    char **paths = read_paths(&count);
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_PYTHON));
    oom_linter *linter = oom_linter_new(c);
    double ratios[MAX_PASSES];
    size_t findings = 0;
    for (int p = 0; p < passes; p++) {
        double parse = 0, lint = 0;
        for (size_t i = 0; i < count; i++) {
            if ((i + (size_t)p) % 2 == 0) {
                parse += time_parse(parser, paths[i]);
                lint += time_lint(linter, paths[i], &findings);
            } else {
                lint += time_lint(linter, paths[i], &findings);
                parse += time_parse(parser, paths[i]);
            }
        }
        ratios[p] = (lint - parse) / parse;
        printf("pass %d: %zu files, parse %.3f s, lint %.3f s, analysis adds %.1f%%\n", p + 1, count, parse,
               lint, 100 * ratios[p]);
    }
    qsort(ratios, (size_t)passes, sizeof(double), cmp_double);
    printf("analysis overhead over parsing, file by file: %.1f%% (median of %d passes; %zu findings per pass)\n",
           100 * ratios[passes / 2], passes, findings / (size_t)passes);
    oom_linter_free(linter);
    ts_parser_delete(parser);
    for (size_t i = 0; i < count; i++)
        free(paths[i]);
    free(paths);
    oom_compiled_free(c);
    oom_kb_free(&kb);
    oom_rules_free(&rules);
    oom_buf_free(&err);
    return 0;
}

/* A minimal test harness: each test prints "PASS name" or "FAIL name: why";
 * tests/run.sh counts the lines. */
#ifndef OOMLINT_TEST_HARNESS_H
#define OOMLINT_TEST_HARNESS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern int oom_test_failures_in_case;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            printf("  check failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
            oom_test_failures_in_case++;                                             \
        }                                                                            \
    } while (0)

#define CHECK_STR(got, want)                                                         \
    do {                                                                             \
        const char *g_ = (got), *w_ = (want);                                        \
        if (!g_ || strcmp(g_, w_) != 0) {                                            \
            printf("  check failed at %s:%d: got \"%s\", want \"%s\"\n", __FILE__,   \
                   __LINE__, g_ ? g_ : "(null)", w_);                                 \
            oom_test_failures_in_case++;                                             \
        }                                                                            \
    } while (0)

typedef void (*oom_test_fn)(void);

void oom_test_run(const char *name, oom_test_fn fn);

#include "oomlint/estimate.h"
/* A script's text -> its estimate inputs, read through a temporary file. */
void oom_test_read_script(const oom_kb *kb, const char *text, oom_script_inputs *s);

/* A Python snippet parsed and modelled, for the model's unit tests
 * (tests/unit/test_model.c). */
#include "oomlint/model.h"
typedef struct {
    TSParser *parser;
    TSTree *tree;
    oom_pymodel *model;
    const char *src;
} parsed;
parsed oom_test_parse(const char *src);
void oom_test_parsed_free(parsed *p);
/* The smallest named node that spans the first occurrence of `text`; a
 * leading newline in `text` only anchors the match to a line start. */
TSNode oom_test_node_at(const parsed *p, const char *text);

/* Suites, one per file. */
void test_text_suite(void);
void test_suppress_suite(void);
void test_select_suite(void);
void test_report_suite(void);
void test_causes_suite(void);
void test_model_suite(void);
void test_grad_suite(void);
void test_evaluation_suite(void);
void test_storage_suite(void);
void test_loops_suite(void);
void test_gpuuse_suite(void);
void test_ranks_suite(void);
void test_device_suite(void);
void test_hostmix_suite(void);
void test_fallback_suite(void);
void test_roles_suite(void);
void test_checkpoints_suite(void);
void test_flow_suite(void);
void test_lengths_suite(void);
void test_rules_suite(void);
void test_query_suite(void);
void test_kb_suite(void);
void test_estimate_suite(void);
void test_estimate_inputs_suite(void);
void test_estimate_precision_suite(void);
void test_launch_suite(void);
void test_estimate_modules_suite(void);
void test_estimate_configs_suite(void);
void test_plan_suite(void);
void test_estimate_modes_suite(void);
void test_estimate_quant_suite(void);
void test_diffbase_suite(void);
void test_project_suite(void);
void test_words_suite(void);
void test_notebook_suite(void);
void test_yamlmodel_suite(void);
void test_cache_suite(void);
void test_fix_suite(const char *fixtures_root);
void test_run_suite(const char *fixtures_root);
void test_fixtures_suite(const char *root);

#endif

/* Runs every unit suite, then the fixture runner over fixtures/rules. */
#include "harness.h"

int oom_test_failures_in_case;

void oom_test_run(const char *name, oom_test_fn fn)
{
    oom_test_failures_in_case = 0;
    fn();
    if (oom_test_failures_in_case == 0)
        printf("PASS %s\n", name);
    else
        printf("FAIL %s: %d check(s) failed\n", name, oom_test_failures_in_case);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *fixtures = argc > 1 ? argv[1] : "fixtures";
    test_text_suite();
    test_suppress_suite();
    test_select_suite();
    test_report_suite();
    test_causes_suite();
    test_model_suite();
    test_grad_suite();
    test_evaluation_suite();
    test_storage_suite();
    test_loops_suite();
    test_device_suite();
    test_hostmix_suite();
    test_gpuuse_suite();
    test_ranks_suite();
    test_fallback_suite();
    test_roles_suite();
    test_checkpoints_suite();
    test_flow_suite();
    test_lengths_suite();
    test_rules_suite();
    test_query_suite();
    test_kb_suite();
    test_estimate_suite();
    test_estimate_inputs_suite();
    test_estimate_precision_suite();
    test_estimate_quant_suite();
    test_launch_suite();
    test_estimate_modules_suite();
    test_estimate_configs_suite();
    test_plan_suite();
    test_estimate_modes_suite();
    test_diffbase_suite();
    test_project_suite();
    test_words_suite();
    test_notebook_suite();
    test_yamlmodel_suite();
    test_cache_suite();
    test_fix_suite(fixtures);
    test_run_suite(fixtures);
    test_fixtures_suite(fixtures);
    return 0;
}

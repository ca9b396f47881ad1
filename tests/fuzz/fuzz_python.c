/* libFuzzer target: Python source through parse, model, rules, suppressions;
 * then the model's control flow and reaching definitions for every body,
 * asked about every identifier (oom_pymodel_flow_check), which the rules
 * alone reach only where a predicate asks. */
#include "fuzz_common.h"

#include "oomlint/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_flow(const uint8_t *data, size_t size)
{
    static TSParser *parser;
    if (!parser)
        parser = ts_parser_new();
    TSTree *tree = oom_parse_python(parser, (const char *)data, size);
    if (!tree)
        return;
    oom_pymodel *m = oom_pymodel_build(tree, (const char *)data, size);
    if (!oom_pymodel_flow_check(m))
        abort();
    oom_pymodel_free(m);
    ts_tree_delete(tree);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_lint(data, size, OOM_LANG_PYTHON);
    fuzz_flow(data, size);
    return 0;
}

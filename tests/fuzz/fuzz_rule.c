/* libFuzzer target: a user rule (rule.json, then a NUL byte, then query.scm),
 * loaded, compiled and run over a small training loop. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char sample[] =
    "import torch\nlosses = []\nfor x, y in loader:\n    loss = criterion(model(x), y)\n"
    "    loss.backward()\n    losses.append(loss)  # noqa: OOM999\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *bytes = (const char *)data;
    const char *nul = memchr(bytes, '\0', size);
    size_t json_len = nul ? (size_t)(nul - bytes) : size;
    size_t query_len = nul ? size - json_len - 1 : 0;
    oom_rule_file files[3] = {{"r/rule.json", bytes, json_len},
                              {"r/query.scm", nul ? nul + 1 : "", query_len},
                              {"r/doc.md", "## What it does\nFuzz.\n", 22}};
    oom_rule_list rules = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    if (oom_rules_add_files(&rules, files, 3, "fuzz", &err) == 0) {
        oom_selection sel;
        memset(&sel, 0, sizeof sel);
        oom_compiled *c = oom_compiled_new(&rules, &sel, &err);
        if (c) {
            oom_linter *l = oom_linter_new(c);
            oom_source src;
            char why[64];
            oom_diag_list out = {NULL, 0, 0};
            if (oom_source_from_memory("s.py", sample, sizeof sample - 1, &src, why, sizeof why) ==
                OOM_SOURCE_OK)
                oom_linter_run(l, &src, OOM_LANG_PYTHON, &out);
            oom_source_free(&src);
            oom_diag_list_free(&out);
            oom_linter_free(l);
            oom_compiled_free(c);
        }
    }
    oom_rules_free(&rules);
    oom_buf_free(&err);
    return 0;
}

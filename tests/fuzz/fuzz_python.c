/* libFuzzer target: Python source through parse, model, rules, suppressions. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_lint(data, size, OOM_LANG_PYTHON);
    return 0;
}

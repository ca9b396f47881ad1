/* libFuzzer target: a TOML project config (pyproject.toml) through the pipeline. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_lint(data, size, OOM_LANG_TOML);
    return 0;
}

/* libFuzzer target: a JSON config through the whole pipeline. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_lint(data, size, OOM_LANG_JSON);
    return 0;
}

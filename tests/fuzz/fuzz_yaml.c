/* libFuzzer target: a YAML config through the whole pipeline (anchors,
 * aliases, merge keys, documents, tags: the YAML model's lookups). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_lint(data, size, OOM_LANG_YAML);
    return 0;
}

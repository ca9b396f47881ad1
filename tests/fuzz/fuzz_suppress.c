/* libFuzzer target: suppression comments, parsed and queried. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/suppress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    oom_suppression_set set;
    memset(&set, 0, sizeof set);
    oom_suppression s;
    oom_suppression_parse(text, size, size % 2 == 0, &s);
    oom_suppression_set_add(&set, 1, &s);
    (void)oom_suppression_set_covers(&set, 1, "OOM201");
    (void)oom_suppression_set_covers(&set, 2, "OOM1");
    oom_suppression_set_free(&set);
    free(text);
    return 0;
}

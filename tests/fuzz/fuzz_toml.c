/* libFuzzer target: a pyproject.toml through the [tool.oomlint] reader (and
 * the same bytes linted as TOML). */
#include "fuzz_common.h"
#include "oomlint/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    oom_config c;
    oom_buf err;
    oom_buf_init(&err);
    if (oom_config_parse("pyproject.toml", (const char *)data, size, &c, &err) == 0)
        (void)oom_config_ignores(&c, "tests/test_x.py", "OOM301");
    oom_config_free(&c);
    oom_buf_free(&err);
    fuzz_lint(data, size, OOM_LANG_TOML);
    return 0;
}

/* libFuzzer target: notebooks. An input that starts with `{` is a notebook,
 * read into its module and linted; its findings must all be placed in cells,
 * and the map must cover the module line for line. Any other input is one
 * cell's text, masked (source/ipython.c): the result must have the cell's
 * line count, and it is linted as Python. */
#include <stdio.h>

#include "fuzz_common.h"
#include "oomlint/ipython.h"
#include "oomlint/notebook.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t lines_in(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += s[i] == '\n';
    return n + (len > 0 && s[len - 1] != '\n');
}

/* Every line of the module has a place in a cell, and no other line does. */
static void check_map(const oom_source *src)
{
    uint32_t cell, row, file_row;
    size_t lines = lines_in(src->text, src->len);
    for (size_t r = 1; r <= lines; r++)
        if (!oom_notebook_locate(src->notebook, (uint32_t)r, &cell, &row, &file_row) || cell == 0 || row == 0)
            abort();
    if (oom_notebook_locate(src->notebook, (uint32_t)lines + 1, &cell, &row, &file_row))
        abort();
}

static void lint_notebook(const uint8_t *data, size_t size, oom_diag_list *out)
{
    oom_source src;
    oom_notebook_error err;
    oom_source_status st = oom_source_notebook_from_memory("fuzz.ipynb", (const char *)data, size, &src, &err);
    if (st == OOM_SOURCE_OK) {
        check_map(&src);
        oom_linter_run(fuzz_linter, &src, OOM_LANG_PYTHON, out);
        for (size_t i = 0; i < out->len; i++)
            if (out->items[i].cell == 0 || out->items[i].start_row == 0 || !out->items[i].context)
                abort();
    } else {
        oom_report_unreadable_notebook(fuzz_compiled, "fuzz.ipynb", st, &err, out);
    }
    oom_source_free(&src);
}

static void lint_masked_cell(const uint8_t *data, size_t size, oom_diag_list *out)
{
    oom_buf masked;
    oom_buf_init(&masked);
    oom_buf_append(&masked, "", 0);
    oom_ipython_mask_cell((const char *)data, size, &masked);
    if (lines_in(masked.data, masked.len) != lines_in((const char *)data, size))
        abort();
    oom_source src;
    char why[256];
    if (oom_source_from_memory("fuzz.py", masked.data, masked.len, &src, why, sizeof why) == OOM_SOURCE_OK)
        oom_linter_run(fuzz_linter, &src, OOM_LANG_PYTHON, out);
    oom_source_free(&src);
    oom_buf_free(&masked);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    oom_diag_list out = {NULL, 0, 0};
    if (size > 0 && data[0] == '{')
        lint_notebook(data, size, &out);
    else
        lint_masked_cell(data, size, &out);
    oom_diag_list_free(&out);
    return 0;
}

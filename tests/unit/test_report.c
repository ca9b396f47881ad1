/* JSON escaping, the summary line and the text formats. */
#include <stdlib.h>

#include "harness.h"
#include "oomlint/report.h"

static char *escaped(const char *s)
{
    oom_buf b;
    oom_buf_init(&b);
    oom_report_json_escape(&b, s);
    return oom_buf_take(&b);
}

static void json_escaping(void)
{
    char *e = escaped("a\"b\\c\nd\te\x01");
    CHECK_STR(e, "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
    free(e);
    e = escaped("caf\xC3\xA9 \xE2\x80\xA8");
    CHECK_STR(e, "\"caf\xC3\xA9 \\u2028\"");
    free(e);
    e = escaped("bad\xFFname");
    CHECK_STR(e, "\"bad\\ufffdname\"");
    free(e);
    e = escaped("\x1b[31m");
    CHECK_STR(e, "\"\\u001b[31m\"");
    free(e);
}

static oom_diag_list sample(void)
{
    oom_diag_list l = {NULL, 0, 0};
    oom_diag *d = oom_diag_list_add(&l, "OOM201", "tensor-with-graph-stored", OOM_SEV_ERROR,
                                    "b.py", "`loss` is stored", "use .item()", NULL);
    d->start_row = 3, d->start_col = 5, d->end_row = 3, d->end_col = 24;
    d->context = strdup("    losses.append(loss)");
    d = oom_diag_list_add(&l, "OOM101", "hardcoded-cuda-visible-devices", OOM_SEV_WARNING, "a.py",
                          "hardcoded", "let the launcher choose", "https://example.org");
    d->start_row = 1, d->start_col = 1, d->end_row = 1, d->end_col = 10;
    oom_diag_list_sort(&l);
    return l;
}

static void summary_line(void)
{
    oom_diag_list l = sample();
    oom_report_options o = {.format = OOM_FORMAT_CONCISE, .files_checked = 2};
    oom_buf b;
    oom_buf_init(&b);
    oom_report_summary(&l, &o, &b);
    CHECK_STR(b.data, "Found 2 problems (1 error, 1 warning) in 2 files.\n");
    oom_buf_clear(&b);
    oom_diag_list empty = {NULL, 0, 0};
    oom_report_summary(&empty, &o, &b);
    CHECK_STR(b.data, "All checks passed: no problems in 2 files.\n");
    oom_buf_free(&b);
    oom_diag_list_free(&l);
}

static void formats(void)
{
    oom_diag_list l = sample();
    oom_buf b;
    oom_buf_init(&b);
    oom_report_options o = {.format = OOM_FORMAT_CONCISE, .files_checked = 2};
    oom_report_render(&l, &o, &b);
    CHECK(strncmp(b.data, "a.py:1:1: OOM101 hardcoded\nb.py:3:5: OOM201 `loss` is stored\n", 60) == 0);
    oom_buf_clear(&b);
    o.format = OOM_FORMAT_FULL;
    oom_report_render(&l, &o, &b);
    CHECK(strstr(b.data, "3 |     losses.append(loss)\n  |     ^^^^^^^^^^^^^^^^^^^ OOM201") != NULL);
    CHECK(strstr(b.data, "= help: use .item()") != NULL);
    oom_buf_clear(&b);
    o.format = OOM_FORMAT_JSON;
    oom_report_render(&l, &o, &b);
    CHECK(strstr(b.data, "\"location\": {\"row\": 3, \"column\": 5}") != NULL);
    CHECK(strstr(b.data, "\"url\": null") != NULL && strstr(b.data, "\"fix\": null") != NULL);
    oom_buf_free(&b);
    oom_diag_list_free(&l);
}

void test_report_suite(void)
{
    oom_test_run("report: JSON escaping", json_escaping);
    oom_test_run("report: summary line", summary_line);
    oom_test_run("report: concise, full and json", formats);
}

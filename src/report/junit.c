/* report/junit: JUnit XML, one test case per finding, grouped by file. */
#include <stdio.h>
#include <string.h>

#include "oomlint/report.h"
#include "oomlint/text.h"

/* Escapes for XML 1.0 attribute and text content. Characters XML cannot
 * carry at all (most C0 controls) become U+FFFD. */
void oom_report_xml_escape(oom_buf *out, const char *s)
{
    size_t n = strlen(s), i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = oom_utf8_decode(s + i, n - i, &cp);
        switch (cp) {
        case '&':
            oom_buf_puts(out, "&amp;");
            break;
        case '<':
            oom_buf_puts(out, "&lt;");
            break;
        case '>':
            oom_buf_puts(out, "&gt;");
            break;
        case '"':
            oom_buf_puts(out, "&quot;");
            break;
        case '\'':
            oom_buf_puts(out, "&apos;");
            break;
        case '\n':
            oom_buf_puts(out, "&#10;");
            break;
        case '\r':
            oom_buf_puts(out, "&#13;");
            break;
        case '\t':
            oom_buf_puts(out, "&#9;");
            break;
        default:
            if (cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF || (cp == 0xFFFD && len == 1))
                oom_buf_puts(out, "\xEF\xBF\xBD");
            else
                oom_buf_append(out, s + i, len);
        }
        i += len;
    }
}

/* One finding; in a notebook, the line is the .ipynb's and the name and
 * message say the cell. */
static void put_testcase(oom_buf *out, const oom_diag *d)
{
    char place[48];
    if (d->cell)
        snprintf(place, sizeof place, "cell %u:%u:%u", d->cell, d->start_row, d->start_col);
    else
        snprintf(place, sizeof place, "%u:%u", d->start_row, d->start_col);
    uint32_t line, end_line;
    oom_report_file_rows(d, &line, &end_line);
    oom_buf message;
    oom_buf_init(&message);
    oom_report_cell_message(&message, d);
    oom_buf_printf(out, "    <testcase name=\"%s at %s\" classname=\"", d->code, place);
    oom_report_xml_escape(out, d->path);
    oom_buf_printf(out, "\" line=\"%u\">\n      <failure type=\"%s\" message=\"", line, d->code);
    oom_report_xml_escape(out, message.data);
    oom_buf_puts(out, "\">");
    oom_report_xml_escape(out, d->path);
    oom_buf_printf(out, ":%s: %s ", place, d->code);
    oom_report_xml_escape(out, d->message);
    oom_buf_puts(out, "</failure>\n    </testcase>\n");
    oom_buf_free(&message);
}

static size_t findings_in_file(const oom_diag_list *diags, size_t from)
{
    size_t k = from;
    while (k < diags->len && strcmp(diags->items[k].path, diags->items[from].path) == 0)
        k++;
    return k - from;
}

void oom_render_junit(const oom_diag_list *diags, oom_buf *out)
{
    oom_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    oom_buf_printf(out, "<testsuites name=\"oomlint\" tests=\"%zu\" failures=\"%zu\">\n", diags->len,
                   diags->len);
    for (size_t i = 0; i < diags->len;) {
        size_t n = findings_in_file(diags, i);
        oom_buf_puts(out, "  <testsuite name=\"");
        oom_report_xml_escape(out, diags->items[i].path);
        oom_buf_printf(out, "\" tests=\"%zu\" failures=\"%zu\">\n", n, n);
        for (size_t k = i; k < i + n; k++)
            put_testcase(out, &diags->items[k]);
        oom_buf_puts(out, "  </testsuite>\n");
        i += n;
    }
    oom_buf_puts(out, "</testsuites>\n");
}

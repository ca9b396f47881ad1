/* report/github: GitHub Actions workflow commands (annotations on the pull
 * request) and the Markdown job summary. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/report.h"
#include "oomlint/text.h"

void oom_report_github_escape(oom_buf *out, const char *s, bool property)
{
    for (const char *p = s; *p; p++) {
        switch (*p) {
        case '%':
            oom_buf_puts(out, "%25");
            break;
        case '\r':
            oom_buf_puts(out, "%0D");
            break;
        case '\n':
            oom_buf_puts(out, "%0A");
            break;
        case ':':
            oom_buf_puts(out, property ? "%3A" : ":");
            break;
        case ',':
            oom_buf_puts(out, property ? "%2C" : ",");
            break;
        default:
            oom_buf_putc(out, *p);
        }
    }
}

static const char *command(oom_severity s)
{
    return s == OOM_SEV_ERROR ? "error" : s == OOM_SEV_WARNING ? "warning" : "notice";
}

/* The fix under the help: its message, how far it can be trusted, and its
 * edits (in a notebook, at lines of the finding's cell). */
static void put_fix(oom_buf *out, const oom_fix *f, uint32_t cell)
{
    if (!f)
        return;
    oom_buf_printf(out, "\nfix (%s%s): %s", oom_applicability_name(f->applicability),
                   f->applicability == OOM_FIX_SAFE     ? ", oomlint --fix"
                   : f->applicability == OOM_FIX_UNSAFE ? ", oomlint --fix --unsafe-fixes"
                                                        : "",
                   f->message);
    oom_buf where;
    oom_buf_init(&where);
    oom_buf_append(&where, "", 0);
    if (cell)
        oom_buf_printf(&where, "cell %u, ", cell);
    for (size_t i = 0; i < f->edit_count; i++) {
        const oom_edit *e = &f->edits[i];
        if (e->content[0] == '\0') {
            oom_buf_printf(out, "\n  %sline %u, column %u to line %u, column %u: delete", where.data, e->start_row,
                           e->start_col, e->end_row, e->end_col);
            continue;
        }
        if (e->start_byte == e->end_byte)
            oom_buf_printf(out, "\n  %sline %u, column %u: insert `", where.data, e->start_row, e->start_col);
        else
            oom_buf_printf(out, "\n  %sline %u, column %u to line %u, column %u: `", where.data, e->start_row,
                           e->start_col, e->end_row, e->end_col);
        oom_text_append_snippet(out, e->content, strlen(e->content), 120);
        oom_buf_puts(out, "`");
    }
    oom_buf_free(&where);
}

void oom_render_github(const oom_diag_list *diags, oom_buf *out)
{
    oom_buf tmp;
    oom_buf_init(&tmp);
    for (size_t i = 0; i < diags->len; i++) {
        const oom_diag *d = &diags->items[i];
        oom_buf_printf(out, "::%s file=", command(d->severity));
        oom_buf_clear(&tmp);
        oom_text_append_utf8_lossy(&tmp, d->path, strlen(d->path));
        oom_report_github_escape(out, tmp.data, true);
        uint32_t line, end_line;
        oom_report_file_rows(d, &line, &end_line);
        oom_buf_printf(out, ",line=%u,endLine=%u", line, end_line);
        /* GitHub rejects a column pair on an annotation that spans lines; a
         * notebook's lines are the .ipynb's, where the code's columns are not */
        if (d->start_row == d->end_row && !d->cell)
            oom_buf_printf(out, ",col=%u,endColumn=%u", d->start_col, d->end_col);
        oom_buf_puts(out, ",title=");
        oom_buf_clear(&tmp);
        oom_buf_printf(&tmp, "%s %s", d->code, d->name);
        oom_report_github_escape(out, tmp.data, true);
        oom_buf_puts(out, "::");
        oom_buf_clear(&tmp);
        oom_buf_printf(&tmp, "%s ", d->code);
        oom_report_cell_message(&tmp, d);
        if (d->help)
            oom_buf_printf(&tmp, "\nhelp: %s", d->help);
        put_fix(&tmp, d->fix, d->cell);
        oom_report_github_escape(out, tmp.data, false);
        oom_buf_putc(out, '\n');
    }
    oom_buf_free(&tmp);
}

/* Markdown table cells: pipes and newlines would break the table. */
static void md_cell(oom_buf *out, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '|')
            oom_buf_puts(out, "\\|");
        else if (*p == '\n' || *p == '\r')
            oom_buf_putc(out, ' ');
        else if (*p == '`')
            oom_buf_putc(out, '\'');
        else
            oom_buf_putc(out, *p);
    }
}

typedef struct {
    const char *key;
    const char *extra;
    size_t count;
} tally;

static size_t tally_add(tally *t, size_t n, const char *key, const char *extra)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].key, key) == 0) {
            t[i].count++;
            return n;
        }
    t[n].key = key;
    t[n].extra = extra;
    t[n].count = 1;
    return n + 1;
}

static int by_count(const void *a, const void *b)
{
    const tally *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->key, y->key);
}

void oom_report_github_summary(const oom_diag_list *diags, oom_buf *out)
{
    oom_buf_puts(out, "## oomlint\n\n");
    if (diags->len == 0) {
        oom_buf_puts(out, "No problems found.\n\n");
        return;
    }
    tally *rules = oom_xcalloc(diags->len, sizeof(tally));
    tally *files = oom_xcalloc(diags->len, sizeof(tally));
    size_t nr = 0, nf = 0;
    for (size_t i = 0; i < diags->len; i++) {
        nr = tally_add(rules, nr, diags->items[i].code, diags->items[i].name);
        nf = tally_add(files, nf, diags->items[i].path, NULL);
    }
    qsort(rules, nr, sizeof(tally), by_count);
    qsort(files, nf, sizeof(tally), by_count);
    oom_buf_printf(out, "Found %zu problem%s in %zu file%s.\n\n| rule | name | count |\n|---|---|---:|\n",
                   diags->len, diags->len == 1 ? "" : "s", nf, nf == 1 ? "" : "s");
    for (size_t i = 0; i < nr; i++) {
        oom_buf_printf(out, "| %s | ", rules[i].key);
        md_cell(out, rules[i].extra);
        oom_buf_printf(out, " | %zu |\n", rules[i].count);
    }
    oom_buf_puts(out, "\n| file | problems |\n|---|---:|\n");
    for (size_t i = 0; i < nf && i < 10; i++) {
        oom_buf_puts(out, "| ");
        md_cell(out, files[i].key);
        oom_buf_printf(out, " | %zu |\n", files[i].count);
    }
    oom_buf_putc(out, '\n');
    free(rules);
    free(files);
}

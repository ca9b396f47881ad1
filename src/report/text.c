/* report/text: the formats for people: full (code frames), concise, pylint,
 * the summary line and --statistics. */
#include "oomlint/report.h"

#include <stdlib.h>
#include <string.h>

#include "oomlint/text.h"

#define TAB_WIDTH 4

/* ---- colour ------------------------------------------------------------------------ */

typedef struct {
    const char *bold, *red, *yellow, *cyan, *blue, *reset;
} palette;

static palette palette_for(bool color)
{
    palette on = {"\x1b[1m", "\x1b[1;31m", "\x1b[1;33m", "\x1b[1;36m", "\x1b[1;34m", "\x1b[0m"};
    palette off = {"", "", "", "", "", ""};
    return color ? on : off;
}

static const char *severity_color(const palette *p, oom_severity s)
{
    return s == OOM_SEV_ERROR ? p->red : s == OOM_SEV_WARNING ? p->yellow : p->cyan;
}

/* Paths and messages are shown, never interpreted by the terminal. */
static void put_display(oom_buf *out, const char *s)
{
    oom_text_append_display(out, s, strlen(s), 0);
}

/* ---- concise and full ------------------------------------------------------------------ */

static void put_header(oom_buf *out, const oom_diag *d, const palette *p)
{
    oom_buf_puts(out, p->bold);
    put_display(out, d->path);
    oom_buf_puts(out, p->reset);
    if (d->cell)
        oom_buf_printf(out, ":cell %u", d->cell);
    oom_buf_printf(out, ":%u:%u: %s%s%s ", d->start_row, d->start_col,
                   severity_color(p, d->severity), d->code, p->reset);
    if (d->fixable == OOM_FIXABLE_NOW) /* Ruff's mark: --fix fixes this one */
        oom_buf_printf(out, "%s[*]%s ", p->cyan, p->reset);
    put_display(out, d->message);
    oom_buf_putc(out, '\n');
}

static size_t digits(uint32_t n)
{
    size_t k = 1;
    while (n >= 10) {
        n /= 10;
        k++;
    }
    return k;
}

static void put_gutter(oom_buf *out, size_t width, const char *label, const palette *p)
{
    oom_buf_puts(out, p->blue);
    oom_buf_printf(out, "%*s |", (int)width, label);
    oom_buf_puts(out, p->reset);
}

/* Width in cells of the first `chars` characters of a line. */
static size_t cells_before(const char *line, size_t len, uint32_t chars)
{
    size_t i = 0;
    for (uint32_t c = 0; c < chars && i < len; c++) {
        uint32_t cp;
        i += oom_utf8_decode(line + i, len - i, &cp);
    }
    return oom_text_display_width(line, i, TAB_WIDTH);
}

/* Lines of `text` with a gutter of their numbers from `row` and a mark. */
static void put_numbered_lines(oom_buf *out, const char *text, uint32_t row, char mark, size_t width,
                               const char *color, const palette *p)
{
    const char *line = text;
    for (;; row++) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len && line[len - 1] == '\r')
            len--;
        char label[16];
        snprintf(label, sizeof label, "%u", row);
        put_gutter(out, width, label, p);
        oom_buf_printf(out, "%s%c ", color, mark);
        oom_text_append_display(out, line, len, TAB_WIDTH);
        oom_buf_printf(out, "%s\n", p->reset);
        if (!nl)
            break;
        line = nl + 1;
    }
}

/* --show-fixes: the fix's message and how far it can be trusted, then the
 * lines it changes as they are (-) and as they would be (+). */
static void put_fix_preview(oom_buf *out, const oom_fix *f, size_t width, const palette *p)
{
    const char *how = f->applicability == OOM_FIX_SAFE     ? "safe fix"
                      : f->applicability == OOM_FIX_UNSAFE ? "unsafe fix (--unsafe-fixes)"
                                                           : "display-only fix (never applied)";
    oom_buf_printf(out, "%*s %s=%s %s%s:%s ", (int)width, "", p->blue, p->reset, p->cyan, how, p->reset);
    put_display(out, f->message);
    oom_buf_putc(out, '\n');
    if (!f->preview_before)
        return;
    uint32_t last = f->preview_row;
    for (const char *c = f->preview_after; *c; c++)
        last += *c == '\n';
    size_t w = digits(last) > width ? digits(last) : width;
    put_numbered_lines(out, f->preview_before, f->preview_row, '-', w, p->red, p);
    put_numbered_lines(out, f->preview_after, f->preview_row, '+', w, p->cyan, p);
}

static void put_frame(oom_buf *out, const oom_diag *d, bool show_fixes, const palette *p)
{
    if (!d->context)
        return;
    uint32_t last_row = d->start_row;
    for (const char *c = d->context; *c; c++)
        last_row += *c == '\n';
    size_t width = digits(last_row);
    put_gutter(out, width, "", p);
    oom_buf_putc(out, '\n');
    const char *line = d->context;
    for (uint32_t row = d->start_row; row <= last_row; row++) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char label[16];
        snprintf(label, sizeof label, "%u", row);
        put_gutter(out, width, label, p);
        oom_buf_putc(out, ' ');
        oom_text_append_display(out, line, len, TAB_WIDTH);
        oom_buf_putc(out, '\n');
        if (row == d->start_row) {
            size_t from = cells_before(line, len, d->start_col - 1);
            size_t to = d->end_row == d->start_row ? cells_before(line, len, d->end_col - 1)
                                                   : oom_text_display_width(line, len, TAB_WIDTH);
            put_gutter(out, width, "", p);
            oom_buf_printf(out, " %*s%s", (int)from, "", severity_color(p, d->severity));
            for (size_t k = from; k < (to > from ? to : from + 1); k++)
                oom_buf_putc(out, '^');
            oom_buf_printf(out, " %s%s\n", d->code, p->reset);
        }
        if (!nl)
            break;
        line = nl + 1;
    }
    if (d->end_row > last_row) {
        put_gutter(out, width, "", p);
        oom_buf_puts(out, " ...\n");
    }
    put_gutter(out, width, "", p);
    oom_buf_putc(out, '\n');
    if (d->help) {
        oom_buf_printf(out, "%*s %s=%s %shelp:%s ", (int)width, "", p->blue, p->reset, p->cyan, p->reset);
        put_display(out, d->help);
        oom_buf_putc(out, '\n');
    }
    for (size_t i = 0; i < d->related_count; i++) {
        const oom_related *r = &d->related[i];
        oom_buf_printf(out, "%*s %s=%s %salso:%s %s:%u: ", (int)width, "", p->blue, p->reset, p->cyan, p->reset,
                       r->path, r->row);
        put_display(out, r->message);
        oom_buf_putc(out, '\n');
    }
    if (show_fixes && d->fix)
        put_fix_preview(out, d->fix, width, p);
    oom_buf_putc(out, '\n');
}

void oom_report_summary(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out)
{
    size_t errors = 0, warnings = 0, infos = 0, files = 0;
    for (size_t i = 0; i < diags->len; i++) {
        const oom_diag *d = &diags->items[i];
        errors += d->severity == OOM_SEV_ERROR;
        warnings += d->severity == OOM_SEV_WARNING;
        infos += d->severity == OOM_SEV_INFO;
        if (i == 0 || strcmp(d->path, diags->items[i - 1].path) != 0)
            files++;
    }
    if (diags->len == 0) {
        oom_buf_printf(out, "All checks passed: no problems in %zu file%s.\n", opts->files_checked,
                       opts->files_checked == 1 ? "" : "s");
        return;
    }
    oom_buf_printf(out, "Found %zu problem%s (", diags->len, diags->len == 1 ? "" : "s");
    const char *sep = "";
    if (errors) {
        oom_buf_printf(out, "%zu error%s", errors, errors == 1 ? "" : "s");
        sep = ", ";
    }
    if (warnings) {
        oom_buf_printf(out, "%s%zu warning%s", sep, warnings, warnings == 1 ? "" : "s");
        sep = ", ";
    }
    if (infos)
        oom_buf_printf(out, "%s%zu info", sep, infos);
    oom_buf_printf(out, ") in %zu file%s.\n", files, files == 1 ? "" : "s");
}

void oom_report_statistics(const oom_diag_list *diags, oom_buf *out)
{
    /* counts per code, in code order */
    const char **codes = oom_xcalloc(diags->len ? diags->len : 1, sizeof(char *));
    const char **names = oom_xcalloc(diags->len ? diags->len : 1, sizeof(char *));
    size_t *counts = oom_xcalloc(diags->len ? diags->len : 1, sizeof(size_t));
    size_t n = 0;
    for (size_t i = 0; i < diags->len; i++) {
        size_t k = 0;
        while (k < n && strcmp(codes[k], diags->items[i].code) != 0)
            k++;
        if (k == n) {
            codes[n] = diags->items[i].code;
            names[n++] = diags->items[i].name;
        }
        counts[k]++;
    }
    for (size_t a = 1; a < n; a++) /* insertion sort: few codes */
        for (size_t b = a; b > 0 && strcmp(codes[b - 1], codes[b]) > 0; b--) {
            const char *tc = codes[b], *tn = names[b];
            size_t t = counts[b];
            codes[b] = codes[b - 1], names[b] = names[b - 1], counts[b] = counts[b - 1];
            codes[b - 1] = tc, names[b - 1] = tn, counts[b - 1] = t;
        }
    for (size_t k = 0; k < n; k++)
        oom_buf_printf(out, "%5zu\t%s\t%s\n", counts[k], codes[k], names[k]);
    free(codes);
    free(names);
    free(counts);
}

void oom_render_pylint(const oom_diag_list *diags, oom_buf *out)
{
    oom_buf message;
    oom_buf_init(&message);
    for (size_t i = 0; i < diags->len; i++) {
        const oom_diag *d = &diags->items[i];
        uint32_t row, end_row;
        oom_report_file_rows(d, &row, &end_row);
        put_display(out, d->path);
        oom_buf_printf(out, ":%u: [%s] ", row, d->code);
        oom_buf_clear(&message);
        oom_report_cell_message(&message, d);
        put_display(out, message.data);
        oom_buf_putc(out, '\n');
    }
    oom_buf_free(&message);
}

void oom_render_text(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out)
{
    palette p = palette_for(opts->color);
    for (size_t i = 0; i < diags->len; i++) {
        put_header(out, &diags->items[i], &p);
        if (opts->format == OOM_FORMAT_FULL)
            put_frame(out, &diags->items[i], opts->show_fixes, &p);
    }
    if (opts->quiet)
        return;
    if (opts->fixed)
        oom_report_fix_summary(opts->fixed, opts->show_fixes, out);
    oom_report_summary(diags, opts, out);
    oom_report_fixable_line(diags, out);
}

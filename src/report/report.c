/* report: the text formats (full, concise), JSON, and the summary line. */
#include "oomlint/report.h"

#include <string.h>

#include "oomlint/text.h"

#define TAB_WIDTH 4

int oom_format_parse(const char *name, oom_format *out)
{
    if (strcmp(name, "full") == 0)
        *out = OOM_FORMAT_FULL;
    else if (strcmp(name, "concise") == 0)
        *out = OOM_FORMAT_CONCISE;
    else if (strcmp(name, "json") == 0)
        *out = OOM_FORMAT_JSON;
    else
        return -1;
    return 0;
}

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
    oom_buf_printf(out, "%s:%u:%u: %s%s%s ", p->reset, d->start_row, d->start_col,
                   severity_color(p, d->severity), d->code, p->reset);
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

static void put_frame(oom_buf *out, const oom_diag *d, const palette *p)
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

/* ---- JSON ---------------------------------------------------------------------------------- */

void oom_report_json_escape(oom_buf *out, const char *s)
{
    oom_buf_putc(out, '"');
    size_t n = strlen(s), i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = oom_utf8_decode(s + i, n - i, &cp);
        if (cp == '"' || cp == '\\')
            oom_buf_printf(out, "\\%c", (char)cp);
        else if (cp == '\n')
            oom_buf_puts(out, "\\n");
        else if (cp == '\r')
            oom_buf_puts(out, "\\r");
        else if (cp == '\t')
            oom_buf_puts(out, "\\t");
        else if (cp < 0x20 || cp == 0x7F || cp == 0x2028 || cp == 0x2029)
            oom_buf_printf(out, "\\u%04x", cp);
        else if (cp == 0xFFFD && len == 1)
            oom_buf_puts(out, "\\ufffd"); /* invalid byte: JSON must stay valid UTF-8 */
        else
            oom_buf_append(out, s + i, len);
        i += len;
    }
    oom_buf_putc(out, '"');
}

static void json_field(oom_buf *out, const char *key, const char *value, bool last)
{
    oom_buf_printf(out, "    \"%s\": ", key);
    if (value)
        oom_report_json_escape(out, value);
    else
        oom_buf_puts(out, "null");
    oom_buf_puts(out, last ? "\n" : ",\n");
}

static void render_json(const oom_diag_list *diags, oom_buf *out)
{
    oom_buf_puts(out, "[");
    for (size_t i = 0; i < diags->len; i++) {
        const oom_diag *d = &diags->items[i];
        oom_buf_puts(out, i ? ",\n  {\n" : "\n  {\n");
        json_field(out, "code", d->code, false);
        json_field(out, "name", d->name, false);
        json_field(out, "severity", oom_severity_name(d->severity), false);
        json_field(out, "message", d->message, false);
        json_field(out, "help", d->help, false);
        json_field(out, "filename", d->path, false);
        oom_buf_printf(out, "    \"location\": {\"row\": %u, \"column\": %u},\n", d->start_row,
                       d->start_col);
        oom_buf_printf(out, "    \"end_location\": {\"row\": %u, \"column\": %u},\n", d->end_row,
                       d->end_col);
        oom_buf_printf(out, "    \"noqa_row\": %u,\n", d->start_row);
        json_field(out, "url", d->url, false);
        oom_buf_puts(out, "    \"fix\": null\n  }");
    }
    oom_buf_puts(out, diags->len ? "\n]\n" : "]\n");
}

void oom_report_render(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out)
{
    if (opts->format == OOM_FORMAT_JSON) {
        render_json(diags, out);
        return;
    }
    palette p = palette_for(opts->color);
    for (size_t i = 0; i < diags->len; i++) {
        put_header(out, &diags->items[i], &p);
        if (opts->format == OOM_FORMAT_FULL)
            put_frame(out, &diags->items[i], &p);
    }
    oom_report_summary(diags, opts, out);
}

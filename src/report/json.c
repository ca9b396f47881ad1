/* report/json: the JSON family: json (Ruff-compatible fields), json-lines,
 * GitLab Code Quality and reviewdog's rdjson. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/report.h"
#include "oomlint/text.h"

void oom_report_json_escape(oom_buf *out, const char *s)
{
    oom_buf_putc(out, '"');
    size_t n = s ? strlen(s) : 0, i = 0;
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

static void field(oom_buf *out, const char *key, const char *value, const char *sep)
{
    oom_buf_printf(out, "\"%s\": ", key);
    if (value)
        oom_report_json_escape(out, value);
    else
        oom_buf_puts(out, "null");
    oom_buf_puts(out, sep);
}

/* Ruff's shape: {"applicability", "message", "edits": [{"content",
 * "location", "end_location"}]}, or null. */
static void fix_object(oom_buf *out, const oom_fix *f)
{
    if (!f) {
        oom_buf_puts(out, "null");
        return;
    }
    oom_buf_printf(out, "{\"applicability\": \"%s\", ", oom_applicability_name(f->applicability));
    field(out, "message", f->message, ", ");
    oom_buf_puts(out, "\"edits\": [");
    for (size_t i = 0; i < f->edit_count; i++) {
        const oom_edit *e = &f->edits[i];
        oom_buf_puts(out, i ? ", {" : "{");
        field(out, "content", e->content, ", ");
        oom_buf_printf(out, "\"location\": {\"row\": %u, \"column\": %u}, ", e->start_row, e->start_col);
        oom_buf_printf(out, "\"end_location\": {\"row\": %u, \"column\": %u}}", e->end_row, e->end_col);
    }
    oom_buf_puts(out, "]}");
}

/* The other places of its cause, present only when it has some:
 * "related": [{"filename", "row", "message"}]. */
static void related_array(oom_buf *out, const oom_diag *d, const char *sep)
{
    if (!d->related_count)
        return;
    oom_buf_printf(out, "%s\"related\": [", sep);
    for (size_t i = 0; i < d->related_count; i++) {
        oom_buf_puts(out, i ? ", {" : "{");
        field(out, "filename", d->related[i].path, ", ");
        oom_buf_printf(out, "\"row\": %u, ", d->related[i].row);
        field(out, "message", d->related[i].message, "}");
    }
    oom_buf_puts(out, "]");
}

/* One finding as a JSON object; `sep` goes between fields (", " or ",\n    "). */
static void diag_object(oom_buf *out, const oom_diag *d, const char *open, const char *sep,
                        const char *close)
{
    oom_buf_puts(out, open);
    field(out, "code", d->code, sep);
    field(out, "name", d->name, sep);
    field(out, "severity", oom_severity_name(d->severity), sep);
    field(out, "message", d->message, sep);
    field(out, "help", d->help, sep);
    field(out, "filename", d->path, sep);
    /* Ruff's field: the notebook cell (1-based) the rows are in; null for a file */
    if (d->cell)
        oom_buf_printf(out, "\"cell\": %u%s", d->cell, sep);
    else
        oom_buf_printf(out, "\"cell\": null%s", sep);
    oom_buf_printf(out, "\"location\": {\"row\": %u, \"column\": %u}%s", d->start_row, d->start_col, sep);
    oom_buf_printf(out, "\"end_location\": {\"row\": %u, \"column\": %u}%s", d->end_row, d->end_col, sep);
    oom_buf_printf(out, "\"noqa_row\": %u%s", d->start_row, sep);
    field(out, "url", d->url, sep);
    oom_buf_puts(out, "\"fix\": ");
    fix_object(out, d->fix);
    related_array(out, d, sep);
    oom_buf_puts(out, close);
}

void oom_render_json(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out)
{
    (void)opts;
    oom_buf_puts(out, "[");
    for (size_t i = 0; i < diags->len; i++)
        diag_object(out, &diags->items[i], i ? ",\n  {\n    " : "\n  {\n    ", ",\n    ", "\n  }");
    oom_buf_puts(out, diags->len ? "\n]\n" : "]\n");
}

void oom_render_json_lines(const oom_diag_list *diags, oom_buf *out)
{
    for (size_t i = 0; i < diags->len; i++)
        diag_object(out, &diags->items[i], "{", ", ", "}\n");
}

static const char *gitlab_severity(oom_severity s)
{
    return s == OOM_SEV_ERROR ? "major" : s == OOM_SEV_WARNING ? "minor" : "info";
}

void oom_render_gitlab(const oom_diag_list *diags, oom_buf *out)
{
    char (*prints)[17] = oom_xcalloc(diags->len ? diags->len : 1, 17);
    oom_report_fingerprints(diags, prints);
    oom_buf_puts(out, "[");
    for (size_t i = 0; i < diags->len; i++) {
        const oom_diag *d = &diags->items[i];
        oom_buf_puts(out, i ? ",\n  {" : "\n  {");
        oom_buf_puts(out, "\"description\": ");
        oom_buf b;
        oom_buf_init(&b);
        oom_buf_printf(&b, "%s: ", d->code);
        oom_report_cell_message(&b, d);
        oom_report_json_escape(out, b.data);
        oom_buf_free(&b);
        oom_buf_puts(out, ", ");
        field(out, "check_name", d->code, ", ");
        field(out, "fingerprint", prints[i], ", ");
        field(out, "severity", gitlab_severity(d->severity), ", ");
        oom_buf_puts(out, "\"location\": {\"path\": ");
        oom_report_json_escape(out, d->path);
        uint32_t begin, end;
        oom_report_file_rows(d, &begin, &end);
        oom_buf_printf(out, ", \"lines\": {\"begin\": %u, \"end\": %u}}}", begin, end);
    }
    oom_buf_puts(out, diags->len ? "\n]\n" : "]\n");
    free(prints);
}

static const char *rdjson_severity(oom_severity s)
{
    return s == OOM_SEV_ERROR ? "ERROR" : s == OOM_SEV_WARNING ? "WARNING" : "INFO";
}

/* A fix's edits as reviewdog suggestions, which a reviewer applies from the
 * pull request; every applicability, since a person decides. */
static void rdjson_suggestions(oom_buf *out, const oom_fix *f)
{
    if (!f || f->edit_count == 0)
        return;
    oom_buf_puts(out, ", \"suggestions\": [");
    for (size_t i = 0; i < f->edit_count; i++) {
        const oom_edit *e = &f->edits[i];
        oom_buf_printf(out,
                       "%s{\"range\": {\"start\": {\"line\": %u, \"column\": %u}, "
                       "\"end\": {\"line\": %u, \"column\": %u}}, ",
                       i ? ", " : "", e->start_row, e->start_col, e->end_row, e->end_col);
        field(out, "text", e->content, "}");
    }
    oom_buf_puts(out, "]");
}

void oom_render_rdjson(const oom_diag_list *diags, oom_buf *out)
{
    oom_buf_puts(out, "{\n  \"source\": {\"name\": \"oomlint\", \"url\": \"" OOM_INFORMATION_URI "\"},\n");
    oom_buf_puts(out, "  \"diagnostics\": [");
    for (size_t i = 0; i < diags->len; i++) {
        const oom_diag *d = &diags->items[i];
        oom_buf_puts(out, i ? ",\n    {" : "\n    {");
        oom_buf message;
        oom_buf_init(&message);
        oom_report_cell_message(&message, d);
        field(out, "message", message.data, ", ");
        oom_buf_free(&message);
        oom_buf_puts(out, "\"location\": {\"path\": ");
        oom_report_json_escape(out, d->path);
        if (d->cell) /* lines of the .ipynb; a column there would not be the code's */
            oom_buf_printf(out, ", \"range\": {\"start\": {\"line\": %u}, \"end\": {\"line\": %u}}}, ",
                           d->file_start_row, d->file_end_row);
        else
            oom_buf_printf(out,
                           ", \"range\": {\"start\": {\"line\": %u, \"column\": %u}, "
                           "\"end\": {\"line\": %u, \"column\": %u}}}, ",
                           d->start_row, d->start_col, d->end_row, d->end_col);
        field(out, "severity", rdjson_severity(d->severity), ", ");
        oom_buf_puts(out, "\"code\": {");
        field(out, "value", d->code, d->url ? ", " : "");
        if (d->url)
            field(out, "url", d->url, "");
        oom_buf_puts(out, "}");
        if (!d->cell) /* a notebook's edits are in its cells, not at lines of the .ipynb */
            rdjson_suggestions(out, d->fix);
        oom_buf_puts(out, "}");
    }
    oom_buf_puts(out, diags->len ? "\n  ]\n}\n" : "]\n}\n");
}

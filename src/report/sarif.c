/* report/sarif: SARIF 2.1.0, one run, with every rule's metadata in the
 * driver and stable fingerprints, as GitHub code scanning ingests it. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/report.h"

static void str_field(oom_buf *out, const char *key, const char *value)
{
    oom_buf_printf(out, "\"%s\": ", key);
    oom_report_json_escape(out, value);
}

static const char *sarif_level(oom_severity s)
{
    return s == OOM_SEV_ERROR ? "error" : s == OOM_SEV_WARNING ? "warning" : "note";
}

/* SARIF messages are sentences; GitHub shows them as such. */
static char *sentence(const char *s)
{
    oom_buf b;
    oom_buf_init(&b);
    oom_buf_puts(&b, s);
    if (b.len && b.data[b.len - 1] != '.')
        oom_buf_putc(&b, '.');
    return oom_buf_take(&b);
}

/* kebab-case name to PascalCase, as SARIF rule names are conventionally written. */
static char *pascal(const char *kebab)
{
    oom_buf b;
    oom_buf_init(&b);
    bool up = true;
    for (const char *p = kebab; *p; p++) {
        if (*p == '-') {
            up = true;
            continue;
        }
        oom_buf_putc(&b, up ? (char)toupper((unsigned char)*p) : *p);
        up = false;
    }
    return oom_buf_take(&b);
}

/* The text of the doc's "What it does" section, as one paragraph. */
static char *what_it_does(const char *doc)
{
    const char *h = doc ? strstr(doc, "## What it does") : NULL;
    oom_buf b;
    oom_buf_init(&b);
    if (h && (h = strchr(h, '\n'))) {
        const char *end = strstr(h, "\n## ");
        size_t len = end ? (size_t)(end - h) : strlen(h);
        for (size_t i = 0; i < len; i++) {
            char c = h[i] == '\n' ? ' ' : h[i];
            if (c == ' ' && (b.len == 0 || b.data[b.len - 1] == ' '))
                continue;
            oom_buf_putc(&b, c);
        }
        while (b.len && b.data[b.len - 1] == ' ')
            b.data[--b.len] = '\0';
    }
    return oom_buf_take(&b);
}

static void put_rule(oom_buf *out, const oom_rule *r)
{
    char *name = pascal(r->name), *full = what_it_does(r->doc), *help = sentence(r->help);
    char *summary = sentence(r->summary[0] ? r->summary : r->name);
    oom_buf_puts(out, "{");
    str_field(out, "id", r->code);
    oom_buf_puts(out, ", ");
    str_field(out, "name", name);
    oom_buf_puts(out, ", \"shortDescription\": {");
    str_field(out, "text", summary);
    oom_buf_puts(out, "}, \"fullDescription\": {");
    str_field(out, "text", full[0] ? full : summary);
    oom_buf_puts(out, "}, \"help\": {");
    str_field(out, "text", help);
    oom_buf_puts(out, ", ");
    str_field(out, "markdown", r->doc);
    oom_buf_puts(out, "}, ");
    oom_buf b;
    oom_buf_init(&b);
    if (r->url)
        oom_buf_puts(&b, r->url);
    else
        oom_buf_printf(&b, "%s/blob/main/rules/", OOM_INFORMATION_URI);
    str_field(out, "helpUri", b.data);
    oom_buf_free(&b);
    /* an opt-in rule runs only when selected: SARIF's `enabled: false` */
    oom_buf_printf(out, ", \"defaultConfiguration\": {\"level\": \"%s\"%s}", sarif_level(r->severity),
                   r->opt_in ? ", \"enabled\": false" : "");
    oom_buf_printf(out, ", \"properties\": {\"tags\": [\"memory\", \"gpu\"]}}");
    free(name);
    free(full);
    free(help);
    free(summary);
}

static long rule_index(const oom_report_options *opts, const char *code)
{
    for (size_t i = 0; opts->rules && i < opts->rules->len; i++)
        if (strcmp(opts->rules->items[i].code, code) == 0)
            return (long)i;
    return -1;
}

/* The artifactLocation of a path: one relative to the base directory gets a
 * uriBaseId; others are absolute file URIs. */
static void put_artifact(oom_buf *out, const char *path, const oom_report_options *opts)
{
    size_t blen = opts->base_dir ? strlen(opts->base_dir) : 0;
    bool relative = path[0] != '/';
    if (!relative && blen && strncmp(path, opts->base_dir, blen) == 0 && path[blen] == '/') {
        path += blen + 1;
        relative = true;
    }
    oom_buf uri;
    oom_buf_init(&uri);
    if (!relative)
        oom_buf_puts(&uri, "file://");
    oom_report_uri_path(&uri, path);
    oom_buf_puts(out, "\"artifactLocation\": {");
    str_field(out, "uri", uri.data);
    if (relative)
        oom_buf_puts(out, ", \"uriBaseId\": \"%SRCROOT%\"");
    oom_buf_puts(out, "}");
    oom_buf_free(&uri);
}

static void put_location(oom_buf *out, const oom_diag *d, const oom_report_options *opts)
{
    oom_buf_puts(out, "\"locations\": [{\"physicalLocation\": {");
    put_artifact(out, d->path, opts);
    if (d->cell) /* the .ipynb lines that hold the code; their columns are not the code's */
        oom_buf_printf(out, ", \"region\": {\"startLine\": %u, \"endLine\": %u", d->file_start_row,
                       d->file_end_row);
    else
        oom_buf_printf(out, ", \"region\": {\"startLine\": %u, \"startColumn\": %u", d->start_row, d->start_col);
    if (!d->cell && (d->end_row > d->start_row || d->end_col > d->start_col))
        oom_buf_printf(out, ", \"endLine\": %u, \"endColumn\": %u", d->end_row, d->end_col);
    oom_buf_puts(out, "}}}]");
}

/* The other places of its cause, as SARIF's relatedLocations (ids from
 * 1, as GitHub code scanning shows them). */
static void put_related(oom_buf *out, const oom_diag *d, const oom_report_options *opts)
{
    if (!d->related_count)
        return;
    oom_buf_puts(out, ", \"relatedLocations\": [");
    for (size_t i = 0; i < d->related_count; i++) {
        const oom_related *r = &d->related[i];
        oom_buf_printf(out, "%s{\"id\": %zu, \"physicalLocation\": {", i ? ", " : "", i + 1);
        put_artifact(out, r->path, opts);
        oom_buf_printf(out, ", \"region\": {\"startLine\": %u}}, \"message\": {", r->row);
        str_field(out, "text", r->message);
        oom_buf_puts(out, "}}");
    }
    oom_buf_puts(out, "]");
}

/* A fix as SARIF's: one artifactChange of the finding's file, a replacement
 * per edit (an empty deletedRegion inserts). */
static void put_fixes(oom_buf *out, const oom_diag *d, const oom_report_options *opts)
{
    const oom_fix *f = d->fix;
    /* a notebook's edits are in its cells' code, not at lines of the .ipynb */
    if (!f || f->edit_count == 0 || d->cell)
        return;
    oom_buf description;
    oom_buf_init(&description);
    oom_buf_printf(&description, "%s (%s fix)", f->message, oom_applicability_name(f->applicability));
    oom_buf_puts(out, ", \"fixes\": [{\"description\": {");
    str_field(out, "text", description.data);
    oom_buf_puts(out, "}, \"artifactChanges\": [{");
    put_artifact(out, d->path, opts);
    oom_buf_puts(out, ", \"replacements\": [");
    for (size_t i = 0; i < f->edit_count; i++) {
        const oom_edit *e = &f->edits[i];
        oom_buf_printf(out,
                       "%s{\"deletedRegion\": {\"startLine\": %u, \"startColumn\": %u, \"endLine\": %u, "
                       "\"endColumn\": %u}",
                       i ? ", " : "", e->start_row, e->start_col, e->end_row, e->end_col);
        if (e->content[0]) {
            oom_buf_puts(out, ", \"insertedContent\": {");
            str_field(out, "text", e->content);
            oom_buf_puts(out, "}");
        }
        oom_buf_puts(out, "}");
    }
    oom_buf_puts(out, "]}]}]");
    oom_buf_free(&description);
}

static void put_result(oom_buf *out, const oom_diag *d, const char *print,
                       const oom_report_options *opts)
{
    oom_buf located;
    oom_buf_init(&located);
    oom_report_cell_message(&located, d);
    char *message = sentence(located.data);
    oom_buf_free(&located);
    oom_buf_puts(out, "{");
    str_field(out, "ruleId", d->code);
    long index = rule_index(opts, d->code);
    if (index >= 0)
        oom_buf_printf(out, ", \"ruleIndex\": %ld", index);
    oom_buf_printf(out, ", \"level\": \"%s\", \"message\": {", sarif_level(d->severity));
    str_field(out, "text", message);
    oom_buf_puts(out, "}, ");
    put_location(out, d, opts);
    put_related(out, d, opts);
    put_fixes(out, d, opts);
    oom_buf_printf(out, ", \"partialFingerprints\": {\"primaryLocationLineHash\": \"%s\"}}", print);
    free(message);
}

void oom_render_sarif(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out)
{
    oom_buf_puts(out, "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n");
    oom_buf_puts(out, "  \"version\": \"2.1.0\",\n  \"runs\": [{\n    \"tool\": {\"driver\": {");
    oom_buf_puts(out, "\"name\": \"oomlint\", \"version\": \"" OOM_VERSION "\", \"semanticVersion\": \"" OOM_VERSION
                      "\", \"informationUri\": \"" OOM_INFORMATION_URI "\",\n      \"rules\": [");
    for (size_t i = 0; opts->rules && i < opts->rules->len; i++) {
        oom_buf_puts(out, i ? ",\n        " : "\n        ");
        put_rule(out, &opts->rules->items[i]);
    }
    oom_buf_puts(out, "]}},\n");
    if (opts->base_dir) {
        oom_buf uri;
        oom_buf_init(&uri);
        oom_buf_puts(&uri, "file://");
        oom_report_uri_path(&uri, opts->base_dir);
        if (uri.data[uri.len - 1] != '/')
            oom_buf_putc(&uri, '/');
        oom_buf_puts(out, "    \"originalUriBaseIds\": {\"%SRCROOT%\": {");
        str_field(out, "uri", uri.data);
        oom_buf_puts(out, "}},\n");
        oom_buf_free(&uri);
    }
    oom_buf_puts(out, "    \"columnKind\": \"unicodeCodePoints\",\n    \"results\": [");
    char (*prints)[17] = oom_xcalloc(diags->len ? diags->len : 1, 17);
    oom_report_fingerprints(diags, prints);
    for (size_t i = 0; i < diags->len; i++) {
        oom_buf_puts(out, i ? ",\n      " : "\n      ");
        put_result(out, &diags->items[i], prints[i], opts);
    }
    free(prints);
    oom_buf_puts(out, diags->len ? "\n    ]\n  }]\n}\n" : "]\n  }]\n}\n");
}

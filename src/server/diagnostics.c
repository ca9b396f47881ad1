/* server/diagnostics: oomlint's findings as LSP diagnostics. A finding's
 * rows and columns (1-based, columns in code points) become the client's
 * lines and characters (0-based, in the negotiated encoding) through the
 * text of the line; in a notebook, a cell's text; in an .ipynb opened as
 * text, the JSON line that holds the code, at the column of the string. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/text.h"
#include "internal.h"

bool srv_doc_text_for(const srv_doc *doc, uint32_t cell, const char **text, size_t *len,
                      const oom_line_index **lines)
{
    if (doc->kind == DOC_NOTEBOOK) {
        const srv_cell *c = srv_notebook_cell(doc, cell);
        if (!c)
            return false;
        *text = c->text.data;
        *len = c->text.len;
        *lines = &c->lines;
        return true;
    }
    *text = doc->text.data;
    *len = doc->text.len;
    *lines = &doc->lines;
    return true;
}

const char *srv_diag_uri(const srv_doc *doc, const oom_diag *d)
{
    const srv_cell *c = doc->kind == DOC_NOTEBOOK ? srv_notebook_cell(doc, d->cell) : NULL;
    return c ? c->uri : doc->uri;
}

void srv_position_of(const srv_session *s, const char *text, size_t len, const oom_line_index *ix, uint32_t row,
                     uint32_t col, uint32_t *line, uint32_t *character)
{
    size_t start, end;
    uint32_t r = row ? row - 1 : 0;
    if (!oom_line_bounds(text, len, ix, r, &start, &end)) { /* past the end: the end */
        r = ix->count ? (uint32_t)ix->count - 1 : 0;
        if (!oom_line_bounds(text, len, ix, r, &start, &end))
            start = end = 0;
        col = UINT32_MAX;
    }
    size_t bytes = oom_pos_chars_to_bytes(text + start, end - start, col ? col - 1 : 0);
    *line = r;
    *character = oom_pos_units(text + start, bytes, s->enc);
}

static cJSON *position_json(uint32_t line, uint32_t character)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "line", line);
    cJSON_AddNumberToObject(p, "character", character);
    return p;
}

cJSON *srv_range_json(const srv_session *s, const srv_doc *doc, uint32_t cell, uint32_t srow, uint32_t scol,
                      uint32_t erow, uint32_t ecol)
{
    const char *text = "";
    size_t len = 0;
    const oom_line_index *ix = NULL;
    uint32_t sl = 0, sc = 0, el = 0, ec = 0;
    if (srv_doc_text_for(doc, cell, &text, &len, &ix)) {
        srv_position_of(s, text, len, ix, srow, scol, &sl, &sc);
        srv_position_of(s, text, len, ix, erow, ecol, &el, &ec);
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "start", position_json(sl, sc));
    cJSON_AddItemToObject(r, "end", position_json(el, ec));
    return r;
}

/* In the JSON line of an .ipynb that holds a cell's line (`"    x = 1\n",`):
 * the byte where the code's character `chars` (0-based) is, past the
 * string's opening quote and through its escapes. */
static size_t ipynb_column(const char *line, size_t n, uint32_t chars)
{
    const char *q = memchr(line, '"', n);
    if (!q)
        return 0;
    size_t i = (size_t)(q - line) + 1;
    for (uint32_t c = 0; c < chars && i < n && line[i] != '"'; c++) {
        if (line[i] == '\\')
            i += i + 1 < n && line[i + 1] == 'u' ? 6 : 2;
        else {
            uint32_t cp;
            i += oom_utf8_decode(line + i, n - i, &cp);
        }
    }
    return i < n ? i : n;
}

/* An .ipynb opened as text: the JSON lines that hold the finding's code. */
static void ipynb_span(const srv_session *s, const srv_doc *doc, const oom_diag *d, uint32_t *out)
{
    uint32_t rows[2] = {d->file_start_row, d->file_end_row};
    uint32_t cols[2] = {d->start_col, d->end_col};
    for (int k = 0; k < 2; k++) {
        size_t start = 0, end = 0;
        uint32_t line = rows[k] ? rows[k] - 1 : 0;
        if (!oom_line_bounds(doc->text.data, doc->text.len, &doc->lines, line, &start, &end))
            line = 0;
        size_t at = ipynb_column(doc->text.data + start, end - start, cols[k] ? cols[k] - 1 : 0);
        out[2 * k] = line;
        out[2 * k + 1] = oom_pos_units(doc->text.data + start, at, s->enc);
    }
}

void srv_diag_span(const srv_session *s, const srv_doc *doc, const oom_diag *d, uint32_t span[4])
{
    if (doc->kind == DOC_IPYNB_TEXT && d->cell) {
        ipynb_span(s, doc, d, span);
        return;
    }
    const char *text = "";
    size_t len = 0;
    const oom_line_index *ix = NULL;
    memset(span, 0, 4 * sizeof *span);
    if (srv_doc_text_for(doc, d->cell, &text, &len, &ix)) {
        srv_position_of(s, text, len, ix, d->start_row, d->start_col, &span[0], &span[1]);
        srv_position_of(s, text, len, ix, d->end_row, d->end_col, &span[2], &span[3]);
    }
}

static cJSON *span_json(const uint32_t span[4])
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "start", position_json(span[0], span[1]));
    cJSON_AddItemToObject(r, "end", position_json(span[2], span[3]));
    return r;
}

static const char *rule_href(const srv_session *s, const oom_diag *d, oom_buf *tmp)
{
    const oom_rule *r = s->have_profile ? oom_rules_find(&s->profile.rules, d->code) : NULL;
    if (r && r->builtin) {
        /* the rule's documentation, beside its query in the repository */
        oom_buf_printf(tmp, "https://github.com/oomlint/oomlint/blob/main/%s/doc.md", r->origin);
        return tmp->data;
    }
    return d->url;
}

cJSON *srv_diag_to_lsp(const srv_session *s, const srv_doc *doc, const oom_diag *d)
{
    cJSON *j = cJSON_CreateObject();
    uint32_t span[4];
    srv_diag_span(s, doc, d, span);
    cJSON_AddItemToObject(j, "range", span_json(span));
    cJSON_AddNumberToObject(j, "severity", d->severity == OOM_SEV_ERROR ? 1 : d->severity == OOM_SEV_WARNING ? 2 : 3);
    cJSON_AddStringToObject(j, "code", d->code);
    oom_buf href;
    oom_buf_init(&href);
    const char *url = rule_href(s, d, &href);
    if (url)
        cJSON_AddStringToObject(cJSON_AddObjectToObject(j, "codeDescription"), "href", url);
    oom_buf_free(&href);
    cJSON_AddStringToObject(j, "source", "oomlint");
    oom_buf msg;
    oom_buf_init(&msg);
    oom_text_append_utf8_lossy(&msg, d->message, strlen(d->message));
    cJSON_AddStringToObject(j, "message", msg.data);
    oom_buf_free(&msg);
    if (d->related_count && s->client_related) {
        cJSON *rel = cJSON_AddArrayToObject(j, "relatedInformation");
        for (size_t i = 0; i < d->related_count; i++) {
            const oom_related *r = &d->related[i];
            char *uri = srv_path_to_uri(r->path);
            cJSON *o = cJSON_CreateObject();
            cJSON *loc = cJSON_AddObjectToObject(o, "location");
            cJSON_AddStringToObject(loc, "uri", uri);
            /* another file's line: its characters are not at hand, so the line */
            cJSON *range = cJSON_AddObjectToObject(loc, "range");
            cJSON_AddItemToObject(range, "start", position_json(r->row ? r->row - 1 : 0, 0));
            cJSON_AddItemToObject(range, "end", position_json(r->row ? r->row : 0, 0));
            cJSON_AddStringToObject(o, "message", r->message);
            cJSON_AddItemToArray(rel, o);
            free(uri);
        }
    }
    const oom_rule *rule = s->have_profile ? oom_rules_find(&s->profile.rules, d->code) : NULL;
    if (rule && rule->unnecessary)
        cJSON_AddItemToArray(cJSON_AddArrayToObject(j, "tags"), cJSON_CreateNumber(1)); /* Unnecessary */
    return j;
}

cJSON *srv_doc_diagnostics(const srv_session *s, const srv_doc *doc, const char *cell_uri)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < doc->diags.len; i++) {
        const oom_diag *d = &doc->diags.items[i];
        if (cell_uri && strcmp(srv_diag_uri(doc, d), cell_uri) != 0)
            continue;
        cJSON_AddItemToArray(arr, srv_diag_to_lsp(s, doc, d));
    }
    return arr;
}

/* The URIs a document's findings are published at: itself, or each cell. */
static size_t publish_uris(const srv_doc *doc, const char **uris, size_t max)
{
    if (doc->kind != DOC_NOTEBOOK) {
        uris[0] = doc->uri;
        return 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < doc->cell_count && n < max; i++)
        uris[n++] = doc->cells[i].uri;
    return n;
}

void srv_publish(srv_session *s, srv_doc *doc)
{
    size_t max = doc->cell_count ? doc->cell_count : 1;
    const char **uris = oom_xcalloc(max, sizeof *uris);
    size_t n = publish_uris(doc, uris, max);
    cJSON **params = oom_xcalloc(n ? n : 1, sizeof *params);
    oom_buf all;
    oom_buf_init(&all);
    for (size_t i = 0; i < n; i++) {
        params[i] = cJSON_CreateObject();
        cJSON_AddStringToObject(params[i], "uri", uris[i]);
        cJSON_AddItemToObject(params[i], "diagnostics",
                              srv_doc_diagnostics(s, doc, doc->kind == DOC_NOTEBOOK ? uris[i] : NULL));
        char *text = cJSON_PrintUnformatted(params[i]);
        oom_buf_puts(&all, text);
        free(text);
    }
    bool same = doc->published && strcmp(doc->published, all.data) == 0;
    if (!same) {
        doc->result_id++;
        free(doc->published);
        doc->published = oom_buf_take(&all);
    }
    for (size_t i = 0; i < n; i++) {
        if (!same && !s->client_pulls) {
            if (doc->kind != DOC_NOTEBOOK)
                cJSON_AddNumberToObject(params[i], "version", (double)doc->version);
            srv_notify(s, "textDocument/publishDiagnostics", params[i]);
        } else {
            cJSON_Delete(params[i]);
        }
    }
    oom_buf_free(&all);
    free(params);
    free(uris);
}

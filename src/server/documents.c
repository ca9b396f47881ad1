/* server/documents: the open documents, their text as the editor has it
 * (saved or not), kept current by incremental changes. A change's range is
 * clamped to the text, so a client that is out of step (a position past the
 * end, an end before its start) leaves a text that is still valid. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

srv_doc *srv_docs_find(const srv_docs *d, const char *uri)
{
    for (size_t i = 0; uri && i < d->len; i++)
        if (strcmp(d->items[i]->uri, uri) == 0)
            return d->items[i];
    return NULL;
}

srv_doc *srv_docs_find_cell(const srv_docs *d, const char *uri, size_t *cell)
{
    for (size_t i = 0; uri && i < d->len; i++)
        for (size_t c = 0; c < d->items[i]->cell_count; c++)
            if (strcmp(d->items[i]->cells[c].uri, uri) == 0) {
                *cell = c;
                return d->items[i];
            }
    return NULL;
}

static bool ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++) {
        char c = s[n - k + i];
        if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != suffix[i])
            return false;
    }
    return true;
}

srv_doc_kind srv_doc_kind_for(const char *language_id, const char *path)
{
    /* an .ipynb opened as text (an editor without notebooks) is the
     * notebook's JSON: linted as the notebook, shown at its JSON lines */
    if (path && ends_with_ci(path, ".ipynb"))
        return DOC_IPYNB_TEXT;
    const char *l = language_id ? language_id : "";
    if (strcmp(l, "python") == 0)
        return DOC_PYTHON;
    if (strcmp(l, "json") == 0 || strcmp(l, "jsonc") == 0)
        return DOC_JSON;
    if (strcmp(l, "yaml") == 0)
        return DOC_YAML;
    if (path && (ends_with_ci(path, ".py") || ends_with_ci(path, ".pyi")))
        return DOC_PYTHON;
    if (path && ends_with_ci(path, ".json"))
        return DOC_JSON;
    if (path && (ends_with_ci(path, ".yaml") || ends_with_ci(path, ".yml")))
        return DOC_YAML;
    return DOC_OTHER;
}

srv_doc *srv_docs_add(srv_docs *d, const char *uri, const char *language_id)
{
    srv_doc *doc = oom_xcalloc(1, sizeof *doc);
    doc->uri = oom_xstrdup(uri);
    char *path = srv_uri_to_path(uri);
    doc->path = path ? path : oom_xstrdup(uri);
    doc->kind = srv_doc_kind_for(language_id, path);
    oom_buf_init(&doc->text);
    oom_line_index_build(&doc->lines, "", 0);
    OOM_PUSH(d->items, d->len, d->cap, doc);
    return doc;
}

static void cell_free(srv_cell *c)
{
    free(c->uri);
    oom_buf_free(&c->text);
    oom_line_index_free(&c->lines);
}

static void doc_free(srv_doc *doc)
{
    free(doc->uri);
    free(doc->path);
    oom_buf_free(&doc->text);
    oom_line_index_free(&doc->lines);
    for (size_t i = 0; i < doc->cell_count; i++)
        cell_free(&doc->cells[i]);
    free(doc->cells);
    oom_diag_list_free(&doc->diags);
    free(doc->published);
    free(doc);
}

void srv_docs_remove(srv_docs *d, srv_doc *doc)
{
    for (size_t i = 0; i < d->len; i++)
        if (d->items[i] == doc) {
            memmove(&d->items[i], &d->items[i + 1], (d->len - i - 1) * sizeof *d->items);
            d->len--;
            break;
        }
    doc_free(doc);
}

void srv_docs_free(srv_docs *d)
{
    for (size_t i = 0; i < d->len; i++)
        doc_free(d->items[i]);
    free(d->items);
    memset(d, 0, sizeof *d);
}

void srv_doc_set_text(oom_buf *text, oom_line_index *lines, const char *s, size_t n)
{
    oom_buf_clear(text);
    oom_buf_append(text, s, n);
    oom_line_index_build(lines, text->data, text->len);
}

/* One range change: [start, end) becomes `with`. */
static void replace_range(oom_buf *text, size_t start, size_t end, const char *with, size_t n)
{
    oom_buf out;
    oom_buf_init(&out);
    oom_buf_append(&out, text->data, start);
    oom_buf_append(&out, with, n);
    oom_buf_append(&out, text->data + end, text->len - end);
    oom_buf_free(text);
    *text = out;
}

bool srv_apply_changes(oom_buf *text, oom_line_index *lines, const cJSON *changes, oom_pos_encoding enc,
                       oom_buf *why)
{
    bool ok = true;
    const cJSON *c;
    cJSON_ArrayForEach(c, changes) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "text");
        if (!cJSON_IsString(t)) {
            oom_buf_puts(why, "a content change without text was skipped");
            ok = false;
            continue;
        }
        size_t n = strlen(t->valuestring);
        const cJSON *range = cJSON_GetObjectItemCaseSensitive(c, "range");
        if (!range) { /* the whole document */
            srv_doc_set_text(text, lines, t->valuestring, n);
            continue;
        }
        uint32_t sl, sc, el, ec;
        if (!srv_position(cJSON_GetObjectItemCaseSensitive(range, "start"), &sl, &sc) ||
            !srv_position(cJSON_GetObjectItemCaseSensitive(range, "end"), &el, &ec)) {
            oom_buf_puts(why, "a content change with a malformed range was skipped");
            ok = false;
            continue;
        }
        size_t start = oom_pos_to_offset(text->data, text->len, lines, sl, sc, enc);
        size_t end = oom_pos_to_offset(text->data, text->len, lines, el, ec, enc);
        if (end < start) {
            size_t tmp = start;
            start = end;
            end = tmp;
        }
        replace_range(text, start, end, t->valuestring, n);
        oom_line_index_build(lines, text->data, text->len);
    }
    return ok;
}

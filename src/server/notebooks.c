/* server/notebooks: notebook documents (LSP 3.17 notebook sync).
 * The editor sends the cells, each its own text document; the pipeline
 * reads notebooks as .ipynb files, so the cells are written out as one
 * (nbformat 4, every cell in order, markdown too, so that a finding's cell
 * number is the cell's index), and each finding is shown in its cell. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const srv_cell *srv_notebook_cell(const srv_doc *doc, uint32_t cell)
{
    return cell >= 1 && cell <= doc->cell_count ? &doc->cells[cell - 1] : NULL;
}

static void cell_init(srv_cell *c, const char *uri, bool code)
{
    memset(c, 0, sizeof *c);
    c->uri = oom_xstrdup(uri);
    c->code = code;
    oom_buf_init(&c->text);
    oom_line_index_build(&c->lines, "", 0);
}

static void cell_free(srv_cell *c)
{
    free(c->uri);
    oom_buf_free(&c->text);
    oom_line_index_free(&c->lines);
}

static srv_cell *find_cell(srv_doc *doc, const char *uri)
{
    for (size_t i = 0; uri && i < doc->cell_count; i++)
        if (strcmp(doc->cells[i].uri, uri) == 0)
            return &doc->cells[i];
    return NULL;
}

/* Text for the cells from TextDocumentItems ({uri, languageId, text}). */
static void set_cell_texts(srv_doc *doc, const cJSON *items)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, items) {
        srv_cell *c = find_cell(doc, srv_str(it, "uri"));
        const char *text = srv_str(it, "text");
        if (c && text)
            srv_doc_set_text(&c->text, &c->lines, text, strlen(text));
    }
}

/* Inserts NotebookCells ({kind: 1 markup, 2 code; document: uri}) at `at`. */
static void insert_cells(srv_doc *doc, size_t at, const cJSON *cells)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cells) {
        const char *uri = srv_str(c, "document");
        int64_t kind = 2;
        srv_int(c, "kind", &kind);
        if (!uri)
            continue;
        oom_grow((void **)&doc->cells, &doc->cell_cap, doc->cell_count + 1, sizeof *doc->cells);
        if (at > doc->cell_count)
            at = doc->cell_count;
        memmove(&doc->cells[at + 1], &doc->cells[at], (doc->cell_count - at) * sizeof *doc->cells);
        cell_init(&doc->cells[at], uri, kind == 2);
        doc->cell_count++;
        at++;
    }
}

void srv_notebook_open(srv_doc *doc, const cJSON *notebook, const cJSON *cell_docs)
{
    insert_cells(doc, 0, cJSON_GetObjectItemCaseSensitive(notebook, "cells"));
    set_cell_texts(doc, cell_docs);
}

static void change_structure(srv_doc *doc, const cJSON *structure)
{
    const cJSON *array = cJSON_GetObjectItemCaseSensitive(structure, "array");
    int64_t start = 0, del = 0;
    if (srv_int(array, "start", &start) && srv_int(array, "deleteCount", &del) && start >= 0 && del >= 0) {
        size_t s = (size_t)start > doc->cell_count ? doc->cell_count : (size_t)start;
        size_t d = (size_t)del > doc->cell_count - s ? doc->cell_count - s : (size_t)del;
        for (size_t i = s; i < s + d; i++)
            cell_free(&doc->cells[i]);
        memmove(&doc->cells[s], &doc->cells[s + d], (doc->cell_count - s - d) * sizeof *doc->cells);
        doc->cell_count -= d;
        insert_cells(doc, s, cJSON_GetObjectItemCaseSensitive(array, "cells"));
    }
    set_cell_texts(doc, cJSON_GetObjectItemCaseSensitive(structure, "didOpen"));
}

bool srv_notebook_change(srv_doc *doc, const cJSON *change, oom_pos_encoding enc, oom_buf *why)
{
    const cJSON *cells = cJSON_GetObjectItemCaseSensitive(change, "cells");
    if (!cells)
        return true; /* metadata only */
    const cJSON *structure = cJSON_GetObjectItemCaseSensitive(cells, "structure");
    if (structure)
        change_structure(doc, structure);
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(cells, "data")) {
        srv_cell *cell = find_cell(doc, srv_str(c, "document"));
        int64_t kind;
        if (cell && srv_int(c, "kind", &kind))
            cell->code = kind == 2;
    }
    bool ok = true;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(cells, "textContent")) {
        srv_cell *cell = find_cell(doc, srv_str(cJSON_GetObjectItemCaseSensitive(c, "document"), "uri"));
        if (!cell) {
            oom_buf_puts(why, "a text change for a cell the notebook does not have was skipped; ");
            ok = false;
            continue;
        }
        ok &= srv_apply_changes(&cell->text, &cell->lines, cJSON_GetObjectItemCaseSensitive(c, "changes"), enc, why);
    }
    return ok;
}

char *srv_notebook_ipynb(const srv_doc *doc, size_t *len)
{
    cJSON *nb = cJSON_CreateObject();
    cJSON *cells = cJSON_AddArrayToObject(nb, "cells");
    for (size_t i = 0; i < doc->cell_count; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "cell_type", doc->cells[i].code ? "code" : "markdown");
        cJSON_AddObjectToObject(c, "metadata");
        cJSON_AddStringToObject(c, "source", doc->cells[i].text.data);
        if (doc->cells[i].code) {
            cJSON_AddArrayToObject(c, "outputs");
            cJSON_AddNullToObject(c, "execution_count");
        }
        cJSON_AddItemToArray(cells, c);
    }
    cJSON *meta = cJSON_AddObjectToObject(nb, "metadata");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "language_info"), "name", "python");
    cJSON_AddNumberToObject(nb, "nbformat", 4);
    cJSON_AddNumberToObject(nb, "nbformat_minor", 5);
    char *text = cJSON_PrintUnformatted(nb);
    cJSON_Delete(nb);
    *len = strlen(text);
    return text;
}

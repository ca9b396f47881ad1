/* server/documents_rpc: the document notifications. Each edit marks the
 * document dirty and due after the debounce, so a burst of keystrokes is
 * one lint; a save or open is due at once. A notification about a
 * document never opened is logged and dropped. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int debounce(const srv_session *s)
{
    return s->overrides.debounce_ms >= 0 ? s->overrides.debounce_ms : SRV_DEFAULT_DEBOUNCE_MS;
}

static void mark_dirty(srv_session *s, srv_doc *doc, bool now)
{
    doc->dirty = true;
    doc->due_ms = srv_now_ms() + (now ? 0 : debounce(s));
}

static srv_doc *known(srv_session *s, const cJSON *params, const char *key, const char *what)
{
    const char *uri = srv_str(cJSON_GetObjectItemCaseSensitive(params, key), "uri");
    srv_doc *doc = srv_docs_find(&s->docs, uri);
    if (!doc)
        srv_log(s, LOG_WARNING, "%s for %s, which is not open: ignored", what, uri ? uri : "a document without a uri");
    return doc;
}

void srv_on_did_open(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
    const char *uri = srv_str(td, "uri"), *text = srv_str(td, "text");
    if (!uri || !text) {
        srv_log(s, LOG_WARNING, "didOpen without a uri or text: ignored");
        return;
    }
    srv_doc *doc = srv_docs_find(&s->docs, uri);
    if (!doc)
        doc = srv_docs_add(&s->docs, uri, srv_str(td, "languageId"));
    int64_t v = 0;
    srv_int(td, "version", &v);
    doc->version = v;
    srv_doc_set_text(&doc->text, &doc->lines, text, strlen(text));
    mark_dirty(s, doc, true);
}

void srv_on_did_change(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    srv_doc *doc = known(s, params, "textDocument", "didChange");
    if (!doc || doc->kind == DOC_NOTEBOOK)
        return;
    int64_t v;
    if (srv_int(cJSON_GetObjectItemCaseSensitive(params, "textDocument"), "version", &v))
        doc->version = v;
    oom_buf why;
    oom_buf_init(&why);
    if (!srv_apply_changes(&doc->text, &doc->lines, cJSON_GetObjectItemCaseSensitive(params, "contentChanges"), s->enc,
                           &why))
        srv_log(s, LOG_WARNING, "didChange %s: %s", doc->uri, why.data);
    oom_buf_free(&why);
    mark_dirty(s, doc, false);
}

void srv_on_did_save(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    srv_doc *doc = known(s, params, "textDocument", "didSave");
    if (!doc)
        return;
    const char *slash = strrchr(doc->path, '/');
    if (strcmp(slash ? slash + 1 : doc->path, "pyproject.toml") == 0) {
        srv_file_changed(s, doc->path, false); /* the settings, read again */
        return;
    }
    const char *text = srv_str(params, "text");
    if (text)
        srv_doc_set_text(&doc->text, &doc->lines, text, strlen(text));
    mark_dirty(s, doc, true);
}

static void publish_empty(srv_session *s, const char *uri)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "uri", uri);
    cJSON_AddArrayToObject(p, "diagnostics");
    if (!s->client_pulls)
        srv_notify(s, "textDocument/publishDiagnostics", p);
    else
        cJSON_Delete(p);
}

static void close_doc(srv_session *s, srv_doc *doc)
{
    if (doc->kind == DOC_NOTEBOOK)
        for (size_t i = 0; i < doc->cell_count; i++)
            publish_empty(s, doc->cells[i].uri);
    else
        publish_empty(s, doc->uri);
    char *path = oom_xstrdup(doc->path);
    bool linted = doc->kind != DOC_OTHER;
    srv_docs_remove(&s->docs, doc);
    if (linted)
        srv_doc_closed(s, path);
    free(path);
}

void srv_on_did_close(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    srv_doc *doc = known(s, params, "textDocument", "didClose");
    if (doc)
        close_doc(s, doc);
}

void srv_on_notebook_did_open(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    const cJSON *nb = cJSON_GetObjectItemCaseSensitive(params, "notebookDocument");
    const char *uri = srv_str(nb, "uri");
    if (!uri) {
        srv_log(s, LOG_WARNING, "notebookDocument/didOpen without a uri: ignored");
        return;
    }
    srv_doc *doc = srv_docs_find(&s->docs, uri);
    if (doc)
        srv_docs_remove(&s->docs, doc); /* opened again: the new cells */
    doc = srv_docs_add(&s->docs, uri, "python");
    doc->kind = DOC_NOTEBOOK;
    int64_t v = 0;
    srv_int(nb, "version", &v);
    doc->version = v;
    srv_notebook_open(doc, nb, cJSON_GetObjectItemCaseSensitive(params, "cellTextDocuments"));
    mark_dirty(s, doc, true);
}

void srv_on_notebook_did_change(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    srv_doc *doc = known(s, params, "notebookDocument", "notebookDocument/didChange");
    if (!doc || doc->kind != DOC_NOTEBOOK)
        return;
    int64_t v;
    if (srv_int(cJSON_GetObjectItemCaseSensitive(params, "notebookDocument"), "version", &v))
        doc->version = v;
    oom_buf why;
    oom_buf_init(&why);
    /* the cells that go away lose their diagnostics: published empty first */
    size_t before = doc->cell_count;
    char **uris = oom_xcalloc(before ? before : 1, sizeof *uris);
    for (size_t i = 0; i < before; i++)
        uris[i] = oom_xstrdup(doc->cells[i].uri);
    if (!srv_notebook_change(doc, cJSON_GetObjectItemCaseSensitive(params, "change"), s->enc, &why))
        srv_log(s, LOG_WARNING, "notebookDocument/didChange %s: %s", doc->uri, why.data);
    for (size_t i = 0; i < before; i++) {
        size_t at;
        if (srv_docs_find_cell(&s->docs, uris[i], &at) != doc)
            publish_empty(s, uris[i]);
        free(uris[i]);
    }
    free(uris);
    oom_buf_free(&why);
    free(doc->published); /* the cells changed: publish every cell again */
    doc->published = NULL;
    mark_dirty(s, doc, false);
}

void srv_on_notebook_did_save(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    srv_doc *doc = known(s, params, "notebookDocument", "notebookDocument/didSave");
    if (doc)
        mark_dirty(s, doc, true);
}

void srv_on_notebook_did_close(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    srv_doc *doc = known(s, params, "notebookDocument", "notebookDocument/didClose");
    if (doc)
        close_doc(s, doc);
}

srv_doc *srv_request_doc(srv_session *s, const cJSON *id, const cJSON *params, size_t *cell, const char **uri)
{
    const cJSON *td = params ? cJSON_GetObjectItemCaseSensitive(params, "textDocument") : NULL;
    *uri = srv_str(td, "uri");
    *cell = SIZE_MAX;
    if (!*uri) {
        srv_respond_error(s, id, RPC_INVALID_PARAMS, "textDocument.uri is missing");
        return NULL;
    }
    srv_doc *doc = srv_docs_find(&s->docs, *uri);
    if (!doc)
        doc = srv_docs_find_cell(&s->docs, *uri, cell);
    if (!doc) {
        oom_buf msg;
        oom_buf_init(&msg);
        oom_buf_printf(&msg, "%s is not an open document", *uri);
        srv_respond_error(s, id, RPC_INVALID_PARAMS, msg.data);
        oom_buf_free(&msg);
    }
    return doc;
}

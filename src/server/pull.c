/* server/pull: pull diagnostics (LSP 3.17). A document's report is its
 * findings as the server holds them, linted first when an edit is pending;
 * the workspace's report adds the files that are not open, from the
 * project pass over every file, read from disk to place their columns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/source.h"
#include "internal.h"

static char *result_id(const srv_doc *doc)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)doc->result_id);
    return oom_xstrdup(buf);
}

void srv_on_diagnostic(srv_session *s, const cJSON *id, const cJSON *params)
{
    size_t cell;
    const char *uri;
    srv_doc *doc = srv_request_doc(s, id, params, &cell, &uri);
    if (!doc)
        return;
    srv_lint_due(s, srv_now_ms(), true);
    char *rid = result_id(doc);
    const char *previous = srv_str(params, "previousResultId");
    cJSON *report = cJSON_CreateObject();
    /* a cell's previous result may be another cell's: only whole documents say unchanged */
    if (previous && cell == SIZE_MAX && strcmp(previous, rid) == 0) {
        cJSON_AddStringToObject(report, "kind", "unchanged");
    } else {
        cJSON_AddStringToObject(report, "kind", "full");
        cJSON_AddItemToObject(report, "items", srv_doc_diagnostics(s, doc, cell == SIZE_MAX ? NULL : uri));
    }
    cJSON_AddStringToObject(report, "resultId", rid);
    free(rid);
    srv_respond(s, id, report);
}

static bool is_open(const srv_session *s, const char *path)
{
    for (size_t i = 0; i < s->docs.len; i++)
        if (strcmp(s->docs.items[i]->path, path) == 0)
            return true;
    return false;
}

/* A closed file's report: its text from disk, to turn columns into characters. */
static cJSON *closed_file_report(srv_session *s, const char *path, const oom_diag_list *all, size_t from, size_t to)
{
    char *uri = srv_path_to_uri(path);
    srv_docs tmp = {NULL, 0, 0};
    srv_doc *doc = srv_docs_add(&tmp, uri, NULL);
    oom_source src;
    char why[256];
    if (oom_source_read(path, path, &src, why, sizeof why) == OOM_SOURCE_OK)
        srv_doc_set_text(&doc->text, &doc->lines, src.text, src.len);
    oom_source_free(&src);
    for (size_t i = from; i < to; i++)
        oom_diag_list_add_copy(&doc->diags, &all->items[i]);
    cJSON *report = cJSON_CreateObject();
    cJSON_AddStringToObject(report, "uri", uri);
    cJSON_AddNullToObject(report, "version");
    cJSON_AddStringToObject(report, "kind", "full");
    cJSON_AddItemToObject(report, "items", srv_doc_diagnostics(s, doc, NULL));
    srv_docs_free(&tmp);
    free(uri);
    return report;
}

static cJSON *open_doc_report(srv_session *s, const srv_doc *doc)
{
    cJSON *report = cJSON_CreateObject();
    cJSON_AddStringToObject(report, "uri", doc->uri);
    if (doc->kind == DOC_NOTEBOOK)
        cJSON_AddNullToObject(report, "version");
    else
        cJSON_AddNumberToObject(report, "version", (double)doc->version);
    cJSON_AddStringToObject(report, "kind", "full");
    char *rid = result_id(doc);
    cJSON_AddStringToObject(report, "resultId", rid);
    free(rid);
    cJSON_AddItemToObject(report, "items", srv_doc_diagnostics(s, doc, NULL));
    return report;
}

void srv_on_workspace_diagnostic(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)params;
    srv_lint_due(s, srv_now_ms(), true);
    srv_scan_workspace(s);
    cJSON *items = cJSON_CreateArray();
    for (size_t i = 0; i < s->docs.len; i++)
        if (s->docs.items[i]->kind != DOC_OTHER && s->docs.items[i]->kind != DOC_NOTEBOOK)
            cJSON_AddItemToArray(items, open_doc_report(s, s->docs.items[i]));
    if (s->have_profile && s->profile.compiled) {
        oom_diag_list all = {NULL, 0, 0};
        for (size_t i = 0; i < s->ws.len; i++)
            if (!is_open(s, s->ws.files[i].path))
                for (size_t k = 0; k < s->ws.files[i].diags.len; k++)
                    oom_diag_list_add_copy(&all, &s->ws.files[i].diags.items[k]);
        oom_run_settings rs;
        oom_overlay overlay;
        srv_project_settings(s, &rs, &overlay);
        oom_run_project(&rs, s->ws.files, s->ws.len, &all);
        free((void *)overlay.files);
        for (size_t i = 0; i < all.len;) { /* sorted by path: one report per run of a path */
            size_t j = i;
            while (j < all.len && strcmp(all.items[j].path, all.items[i].path) == 0)
                j++;
            if (!is_open(s, all.items[i].path))
                cJSON_AddItemToArray(items, closed_file_report(s, all.items[i].path, &all, i, j));
            i = j;
        }
        oom_diag_list_free(&all);
    }
    cJSON *result = cJSON_CreateObject();
    cJSON_AddItemToObject(result, "items", items);
    srv_respond(s, id, result);
}

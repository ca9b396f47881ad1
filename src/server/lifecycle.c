/* server/lifecycle: initialize (what the server can do, the position
 * encoding), the workspace folder, settings from the client, trace level,
 * watched files, shutdown and exit. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/cli.h"
#include "internal.h"

static bool offers(const cJSON *encodings, const char *name)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, encodings)
        if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0)
            return true;
    return false;
}

static const cJSON *path_get(const cJSON *j, const char *const *keys)
{
    for (; j && *keys; keys++)
        j = cJSON_GetObjectItemCaseSensitive(j, *keys);
    return j;
}

static void read_client(srv_session *s, const cJSON *caps)
{
    /* UTF-8 when the client offers it: it is what the text is, so no
     * conversion; else the protocol's UTF-16 */
    static const char *const enc_keys[] = {"general", "positionEncodings", NULL};
    s->enc = offers(path_get(caps, enc_keys), "utf-8") ? OOM_POS_UTF8 : OOM_POS_UTF16;
    static const char *const pull_keys[] = {"textDocument", "diagnostic", NULL};
    s->client_pulls = path_get(caps, pull_keys) != NULL;
    static const char *const rel_keys[] = {"textDocument", "publishDiagnostics", "relatedInformation", NULL};
    const cJSON *rel = path_get(caps, rel_keys);
    s->client_related = rel == NULL || cJSON_IsTrue(rel) || s->client_pulls;
    static const char *const watch_keys[] = {"workspace", "didChangeWatchedFiles", "dynamicRegistration", NULL};
    s->watch_dynamic = cJSON_IsTrue(path_get(caps, watch_keys));
}

static void read_root(srv_session *s, const cJSON *params)
{
    const cJSON *folders = cJSON_GetObjectItemCaseSensitive(params, "workspaceFolders");
    const char *uri = NULL;
    if (cJSON_IsArray(folders) && cJSON_GetArraySize(folders) > 0)
        uri = srv_str(cJSON_GetArrayItem(folders, 0), "uri");
    if (!uri)
        uri = srv_str(params, "rootUri");
    free(s->root);
    s->root = uri ? srv_uri_to_path(uri) : NULL;
    if (!s->root && srv_str(params, "rootPath"))
        s->root = oom_xstrdup(srv_str(params, "rootPath"));
    /* a trailing slash would make every path comparison miss */
    size_t n = s->root ? strlen(s->root) : 0;
    while (n > 1 && s->root[n - 1] == '/')
        s->root[--n] = '\0';
}

static cJSON *capabilities(const srv_session *s)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "positionEncoding", s->enc == OOM_POS_UTF8 ? "utf-8" : "utf-16");
    cJSON *sync = cJSON_AddObjectToObject(c, "textDocumentSync");
    cJSON_AddTrueToObject(sync, "openClose");
    cJSON_AddNumberToObject(sync, "change", 2); /* incremental */
    cJSON_AddFalseToObject(cJSON_AddObjectToObject(sync, "save"), "includeText");
    cJSON *nb = cJSON_AddObjectToObject(c, "notebookDocumentSync");
    cJSON *sel = cJSON_AddArrayToObject(nb, "notebookSelector");
    cJSON *one = cJSON_CreateObject();
    cJSON_AddStringToObject(one, "notebook", "jupyter-notebook");
    cJSON *cells = cJSON_AddArrayToObject(one, "cells");
    cJSON *py = cJSON_CreateObject();
    cJSON_AddStringToObject(py, "language", "python");
    cJSON_AddItemToArray(cells, py);
    cJSON_AddItemToArray(sel, one);
    cJSON_AddTrueToObject(nb, "save");
    cJSON *actions = cJSON_AddObjectToObject(c, "codeActionProvider");
    cJSON *kinds = cJSON_AddArrayToObject(actions, "codeActionKinds");
    cJSON_AddItemToArray(kinds, cJSON_CreateString("quickfix"));
    cJSON_AddItemToArray(kinds, cJSON_CreateString("source.fixAll.oomlint"));
    cJSON_AddTrueToObject(c, "hoverProvider");
    cJSON *diag = cJSON_AddObjectToObject(c, "diagnosticProvider");
    cJSON_AddStringToObject(diag, "identifier", "oomlint");
    cJSON_AddTrueToObject(diag, "interFileDependencies");
    cJSON_AddTrueToObject(diag, "workspaceDiagnostics");
    cJSON *ws = cJSON_AddObjectToObject(c, "workspace");
    cJSON *wf = cJSON_AddObjectToObject(ws, "workspaceFolders");
    cJSON_AddTrueToObject(wf, "supported");
    return c;
}

void srv_on_initialize(srv_session *s, const cJSON *id, const cJSON *params)
{
    if (s->state != SRV_UNINITIALIZED) {
        srv_respond_error(s, id, RPC_INVALID_REQUEST, "initialize was already received");
        return;
    }
    read_client(s, cJSON_GetObjectItemCaseSensitive(params, "capabilities"));
    read_root(s, params);
    const char *trace = srv_str(params, "trace");
    s->trace = trace && strcmp(trace, "verbose") == 0 ? 2 : trace && strcmp(trace, "messages") == 0 ? 1 : 0;
    oom_buf log;
    oom_buf_init(&log);
    srv_overrides_read(&s->overrides, cJSON_GetObjectItemCaseSensitive(params, "initializationOptions"), &log);
    s->state = SRV_RUNNING;
    cJSON *result = cJSON_CreateObject();
    cJSON_AddItemToObject(result, "capabilities", capabilities(s));
    cJSON *info = cJSON_AddObjectToObject(result, "serverInfo");
    cJSON_AddStringToObject(info, "name", "oomlint");
    cJSON_AddStringToObject(info, "version", OOM_VERSION);
    srv_respond(s, id, result);
    if (log.len)
        srv_log(s, LOG_WARNING, "initializationOptions: %s", log.data);
    oom_buf_free(&log);
}

/* Asks the client to tell the server about the files the project checks
 * read, and the settings file, when they change on disk. */
static void register_watchers(srv_session *s)
{
    static const char *const globs[] = {"**/*.py", "**/*.ipynb", "**/*.json", "**/*.yaml", "**/*.yml",
                                        "**/pyproject.toml"};
    cJSON *params = cJSON_CreateObject();
    cJSON *regs = cJSON_AddArrayToObject(params, "registrations");
    cJSON *reg = cJSON_CreateObject();
    cJSON_AddStringToObject(reg, "id", "oomlint-watched-files");
    cJSON_AddStringToObject(reg, "method", "workspace/didChangeWatchedFiles");
    cJSON *watchers = cJSON_AddArrayToObject(cJSON_AddObjectToObject(reg, "registerOptions"), "watchers");
    for (size_t i = 0; i < sizeof globs / sizeof *globs; i++) {
        cJSON *w = cJSON_CreateObject();
        cJSON_AddStringToObject(w, "globPattern", globs[i]);
        cJSON_AddItemToArray(watchers, w);
    }
    cJSON_AddItemToArray(regs, reg);
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddNumberToObject(msg, "id", ++s->next_request_id);
    cJSON_AddStringToObject(msg, "method", "client/registerCapability");
    cJSON_AddItemToObject(msg, "params", params);
    srv_send(s, msg);
}

void srv_on_initialized(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    (void)params;
    if (s->watch_dynamic)
        register_watchers(s);
    srv_log(s, LOG_INFO, "oomlint %s serving %s (positions in %s)", OOM_VERSION, s->root ? s->root : "no folder",
            s->enc == OOM_POS_UTF8 ? "UTF-8" : "UTF-16");
}

void srv_on_shutdown(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)params;
    s->state = SRV_SHUT_DOWN;
    srv_respond(s, id, NULL);
}

void srv_on_exit(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    (void)params;
    s->exit_now = true;
}

void srv_on_set_trace(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    const char *v = srv_str(params, "value");
    s->trace = v && strcmp(v, "verbose") == 0 ? 2 : v && strcmp(v, "messages") == 0 ? 1 : 0;
}

void srv_on_did_change_configuration(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    oom_buf log;
    oom_buf_init(&log);
    srv_overrides_read(&s->overrides, cJSON_GetObjectItemCaseSensitive(params, "settings"), &log);
    if (log.len)
        srv_log(s, LOG_WARNING, "settings: %s", log.data);
    oom_buf_free(&log);
    srv_relint_all(s);
}

void srv_on_did_change_watched_files(srv_session *s, const cJSON *id, const cJSON *params)
{
    (void)id;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(params, "changes")) {
        char *path = srv_uri_to_path(srv_str(c, "uri"));
        int64_t type = 2;
        srv_int(c, "type", &type); /* 1 created, 2 changed, 3 deleted */
        if (path)
            srv_file_changed(s, path, type == 3);
        free(path);
    }
}

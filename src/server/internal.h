/* Private to src/server: the server's state and the modules' interfaces.
 * One struct holds everything a session knows (no global state): the
 * documents, the workspace's per-file results, the settings, the
 * connection. Every handler takes it. */
#ifndef OOMLINT_SERVER_INTERNAL_H
#define OOMLINT_SERVER_INTERNAL_H

#include <cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "oomlint/config.h"
#include "oomlint/diag.h"
#include "oomlint/engine.h"
#include "oomlint/kb.h"
#include "oomlint/rules.h"
#include "oomlint/run.h"
#include "oomlint/select.h"
#include "oomlint/server.h"

/* The protocol's error codes. */
enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
    RPC_SERVER_NOT_INITIALIZED = -32002,
    RPC_REQUEST_CANCELLED = -32800,
};

/* window/logMessage's types. */
enum { LOG_ERROR = 1, LOG_WARNING = 2, LOG_INFO = 3, LOG_DEBUG = 4 };

/* Workspace files linted for the project's facts, at most: a workspace
 * opened on a home folder must not take the server's memory. */
#define SRV_MAX_WORKSPACE_FILES 20000
/* The default wait between the last edit and the lint that follows. */
#define SRV_DEFAULT_DEBOUNCE_MS 50

/* ---- documents (documents.c, notebooks.c) ---------------------------------------- */

typedef struct {
    char *uri;
    bool code;      /* a code cell (else markdown or raw) */
    oom_buf text;
    oom_line_index lines;
} srv_cell;

typedef enum { DOC_PYTHON, DOC_JSON, DOC_YAML, DOC_IPYNB_TEXT, DOC_NOTEBOOK, DOC_OTHER } srv_doc_kind;

typedef struct {
    char *uri;
    char *path;       /* the file it is, or the URI for an untitled buffer */
    srv_doc_kind kind;
    int64_t version;
    oom_buf text;     /* a text document's; a notebook's is its cells' */
    oom_line_index lines;
    srv_cell *cells;  /* a notebook document's, in order */
    size_t cell_count, cell_cap;
    /* linting */
    bool dirty;           /* changed since it was last linted */
    int64_t due_ms;       /* when the debounce lets it be linted */
    oom_diag_list diags;  /* its findings as last published, placed (fixes kept) */
    char *published;      /* what was last published, per URI (JSON), to skip repeats */
    uint64_t result_id;   /* pull diagnostics' resultId */
} srv_doc;

typedef struct {
    srv_doc **items;
    size_t len, cap;
} srv_docs;

srv_doc *srv_docs_find(const srv_docs *d, const char *uri);
/* The notebook document holding the cell `uri`, and the cell's index. */
srv_doc *srv_docs_find_cell(const srv_docs *d, const char *uri, size_t *cell);
srv_doc *srv_docs_add(srv_docs *d, const char *uri, const char *language_id);
void srv_docs_remove(srv_docs *d, srv_doc *doc);
void srv_docs_free(srv_docs *d);
void srv_doc_set_text(oom_buf *text, oom_line_index *lines, const char *s, size_t n);
/* Applies textDocument/didChange's contentChanges (ranges in `enc`); false
 * with *why set when a change is malformed (the rest are still applied). */
bool srv_apply_changes(oom_buf *text, oom_line_index *lines, const cJSON *changes, oom_pos_encoding enc,
                       oom_buf *why);
/* The document kind of a language id and path. */
srv_doc_kind srv_doc_kind_for(const char *language_id, const char *path);

/* notebookDocument/didOpen and didChange: cells in, text changes applied. */
void srv_notebook_open(srv_doc *doc, const cJSON *notebook, const cJSON *cell_docs);
bool srv_notebook_change(srv_doc *doc, const cJSON *change, oom_pos_encoding enc, oom_buf *why);
/* The notebook as an .ipynb file (nbformat 4), for the pipeline to read. */
char *srv_notebook_ipynb(const srv_doc *doc, size_t *len);
/* The text and line index a finding in cell `cell` (1-based, counting
 * every cell) is placed in; NULL when there is no such cell. */
const srv_cell *srv_notebook_cell(const srv_doc *doc, uint32_t cell);

/* ---- URIs (uri.c) ------------------------------------------------------------------- */

/* The path of a file: URI (percent-decoded); NULL for another scheme. */
char *srv_uri_to_path(const char *uri);
char *srv_path_to_uri(const char *path);

/* ---- settings (settings.c) ------------------------------------------------------------ */

/* What the client says (initializationOptions, didChangeConfiguration),
 * over [tool.oomlint]. */
typedef struct {
    char *gpu;
    bool has_select, has_ignore, has_extend_select;
    oom_strlist select, ignore, extend_select;
    int num_gpus;
    int debounce_ms; /* -1: the default */
} srv_overrides;

typedef struct {
    char *config_path; /* the pyproject.toml read; NULL: none */
    oom_config config;
    bool have_config;
    oom_kb kb;
    bool have_kb;
    oom_rule_list rules;
    oom_selection selection;
    oom_selection fixable;
    oom_run_context run;
    oom_compiled *compiled;
    oom_strlist exclude;
} srv_profile;

/* Reads the overrides from a JSON object (settings under "oomlint" or at
 * the top); unknown keys are ignored, bad values logged into *log. */
void srv_overrides_read(srv_overrides *o, const cJSON *json, oom_buf *log);
void srv_overrides_free(srv_overrides *o);
/* The settings of the files under `root` (the nearest [tool.oomlint] from
 * there) with the overrides; a broken config or an unknown GPU is logged
 * into *log and left out, never fatal. Returns -1 only when the rules
 * themselves cannot be compiled. */
int srv_profile_load(srv_profile *p, const char *root, const srv_overrides *o, oom_buf *log);
void srv_profile_free(srv_profile *p);
void srv_profile_settings(const srv_profile *p, oom_run_settings *rs, int threads);

/* ---- the workspace's files (workspace.c) --------------------------------------------- */

typedef struct {
    oom_run_file *files; /* one per path, the open buffer's result for an open document */
    size_t len, cap;
    bool scanned;
} srv_workspace;

oom_run_file *srv_workspace_find(srv_workspace *w, const char *path);
/* Replaces (or adds) the entry of r->path with *r, which it takes. */
void srv_workspace_put(srv_workspace *w, oom_run_file *r);
void srv_workspace_remove(srv_workspace *w, const char *path);
void srv_workspace_free(srv_workspace *w);

/* ---- the session ----------------------------------------------------------------------- */

typedef enum { SRV_UNINITIALIZED, SRV_RUNNING, SRV_SHUT_DOWN } srv_state;

typedef struct {
    int out_fd, log_fd;
    bool out_broken;     /* the client is gone: stop writing */
    srv_state state;
    bool exit_now;
    oom_pos_encoding enc;
    int trace;           /* 0 off, 1 messages, 2 verbose */
    bool client_pulls;   /* the client asks for diagnostics (textDocument/diagnostic) */
    bool client_related; /* relatedInformation supported */
    bool watch_dynamic;  /* didChangeWatchedFiles may be registered */
    char *root;          /* the workspace folder; NULL: none */
    srv_overrides overrides;
    srv_profile profile;
    bool have_profile;
    srv_docs docs;
    srv_workspace ws;
    int threads;
    int next_request_id; /* requests the server sends (registerCapability) */
    cJSON *cancelled;    /* ids cancelled before they were handled */
} srv_session;

/* ---- output (protocol.c) -------------------------------------------------------------- */

void srv_send(srv_session *s, cJSON *msg); /* takes msg */
void srv_respond(srv_session *s, const cJSON *id, cJSON *result); /* takes result (NULL: null) */
void srv_respond_error(srv_session *s, const cJSON *id, int code, const char *message);
void srv_notify(srv_session *s, const char *method, cJSON *params); /* takes params */
void srv_log(srv_session *s, int type, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- linting and diagnostics (lint.c, diagnostics.c) ----------------------------------- */

/* Scans the workspace folder once (its files' facts for the project pass). */
void srv_scan_workspace(srv_session *s);
/* Lints every dirty document whose debounce is over (all of them when
 * `force`), runs the project pass and publishes what changed. */
void srv_lint_due(srv_session *s, int64_t now_ms, bool force);
/* The run settings of the project pass, with the open configs' text as
 * the overlay (free overlay->files after). */
void srv_project_settings(srv_session *s, oom_run_settings *rs, oom_overlay *overlay);
/* Re-lints everything: the settings changed. */
void srv_relint_all(srv_session *s);
/* Re-reads a workspace file from disk (changed, created or deleted). */
void srv_file_changed(srv_session *s, const char *path, bool deleted);
/* The milliseconds until the next document is due; -1: none. */
/* A document was closed: its file is read from disk again (or dropped). */
void srv_doc_closed(srv_session *s, const char *path);
int srv_next_due(const srv_session *s, int64_t now_ms);
int64_t srv_now_ms(void);

/* An LSP Diagnostic for a finding of `doc` (placed in it). */
cJSON *srv_diag_to_lsp(const srv_session *s, const srv_doc *doc, const oom_diag *d);
/* The LSP range of a finding (or of a fix's edit: rows and columns). */
cJSON *srv_range_json(const srv_session *s, const srv_doc *doc, uint32_t cell, uint32_t srow, uint32_t scol,
                      uint32_t erow, uint32_t ecol);
/* A finding's LSP range: start line, character, end line, character. */
void srv_diag_span(const srv_session *s, const srv_doc *doc, const oom_diag *d, uint32_t span[4]);
/* The text a finding's rows and columns are in: the document's, or its cell's. */
bool srv_doc_text_for(const srv_doc *doc, uint32_t cell, const char **text, size_t *len,
                      const oom_line_index **lines);
/* The URI a finding of `doc` is shown at (a notebook's cell's). */
const char *srv_diag_uri(const srv_doc *doc, const oom_diag *d);
/* publishDiagnostics for the document when its findings changed. */
void srv_publish(srv_session *s, srv_doc *doc);
/* The diagnostics of a document as an array (pull). */
cJSON *srv_doc_diagnostics(const srv_session *s, const srv_doc *doc, const char *cell_uri);
/* A byte-free position: the LSP line and character of (row, col) in chars. */
void srv_position_of(const srv_session *s, const char *text, size_t len, const oom_line_index *ix, uint32_t row,
                     uint32_t col, uint32_t *line, uint32_t *character);

/* ---- requests (lifecycle.c, documents_rpc.c, actions.c, hover.c, pull.c) ----------- */

typedef void (*srv_handler)(srv_session *s, const cJSON *id, const cJSON *params);

/* The handler of a method; NULL: none (MethodNotFound for a request). */
srv_handler srv_find_handler(const char *method, bool *is_request);

void srv_on_initialize(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_initialized(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_shutdown(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_exit(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_set_trace(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_did_change_configuration(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_did_change_watched_files(srv_session *s, const cJSON *id, const cJSON *params);

void srv_on_did_open(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_did_change(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_did_save(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_did_close(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_notebook_did_open(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_notebook_did_change(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_notebook_did_save(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_notebook_did_close(srv_session *s, const cJSON *id, const cJSON *params);

void srv_on_code_action(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_hover(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_diagnostic(srv_session *s, const cJSON *id, const cJSON *params);
void srv_on_workspace_diagnostic(srv_session *s, const cJSON *id, const cJSON *params);

/* JSON helpers: a member's string / integer, NULL / fallback when absent
 * or of another type. */
const char *srv_str(const cJSON *obj, const char *key);
bool srv_int(const cJSON *obj, const char *key, int64_t *out);
/* An LSP position's line and character; false when malformed. */
bool srv_position(const cJSON *pos, uint32_t *line, uint32_t *character);
/* The document a request names (textDocument.uri), or a cell's notebook:
 * NULL (and the request answered with an error) when never opened. */
srv_doc *srv_request_doc(srv_session *s, const cJSON *id, const cJSON *params, size_t *cell, const char **uri);

#endif

/* server/server: the session's loop. It reads what the client sent, splits
 * it into messages (server/rpc.c), answers each in order, and between
 * messages lints the documents whose debounce is over. Everything that
 * arrives at once is read before any of it is handled, so a $/cancelRequest
 * that follows a request in the same burst cancels it. The loop ends on
 * `exit`, at the end of the input, or when the client stops reading. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

typedef struct {
    const char *method;
    srv_handler handler;
    bool request;
} method_entry;

static const method_entry methods[] = {
    {"initialize", srv_on_initialize, true},
    {"initialized", srv_on_initialized, false},
    {"shutdown", srv_on_shutdown, true},
    {"exit", srv_on_exit, false},
    {"$/setTrace", srv_on_set_trace, false},
    {"workspace/didChangeConfiguration", srv_on_did_change_configuration, false},
    {"workspace/didChangeWatchedFiles", srv_on_did_change_watched_files, false},
    {"textDocument/didOpen", srv_on_did_open, false},
    {"textDocument/didChange", srv_on_did_change, false},
    {"textDocument/didSave", srv_on_did_save, false},
    {"textDocument/didClose", srv_on_did_close, false},
    {"notebookDocument/didOpen", srv_on_notebook_did_open, false},
    {"notebookDocument/didChange", srv_on_notebook_did_change, false},
    {"notebookDocument/didSave", srv_on_notebook_did_save, false},
    {"notebookDocument/didClose", srv_on_notebook_did_close, false},
    {"textDocument/codeAction", srv_on_code_action, true},
    {"textDocument/hover", srv_on_hover, true},
    {"textDocument/diagnostic", srv_on_diagnostic, true},
    {"workspace/diagnostic", srv_on_workspace_diagnostic, true},
};

srv_handler srv_find_handler(const char *method, bool *is_request)
{
    for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
        if (strcmp(methods[i].method, method) == 0) {
            *is_request = methods[i].request;
            return methods[i].handler;
        }
    return NULL;
}

static void session_init(srv_session *s, int out_fd, int log_fd)
{
    memset(s, 0, sizeof *s);
    s->out_fd = out_fd;
    s->log_fd = log_fd;
    s->enc = OOM_POS_UTF16;
    s->overrides.debounce_ms = -1;
    s->cancelled = cJSON_CreateArray();
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    s->threads = n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

static void session_free(srv_session *s)
{
    srv_docs_free(&s->docs);
    srv_workspace_free(&s->ws);
    if (s->have_profile)
        srv_profile_free(&s->profile);
    srv_overrides_free(&s->overrides);
    free(s->root);
    cJSON_Delete(s->cancelled);
}

static bool same_id(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble == b->valuedouble;
    return cJSON_IsString(a) && cJSON_IsString(b) && strcmp(a->valuestring, b->valuestring) == 0;
}

/* Whether the request `id` was cancelled (and forgets the cancellation). */
static bool take_cancelled(srv_session *s, const cJSON *id)
{
    int i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, s->cancelled) {
        if (same_id(c, id)) {
            cJSON_DeleteItemFromArray(s->cancelled, i);
            return true;
        }
        i++;
    }
    return false;
}

/* The state's gate: before initialize only initialize and exit, after
 * shutdown only exit. False when the message was answered here. */
static bool allowed(srv_session *s, const char *method, const cJSON *id)
{
    bool lifecycle = strcmp(method, "exit") == 0 || strcmp(method, "initialize") == 0;
    if (s->state == SRV_UNINITIALIZED && !lifecycle) {
        if (id)
            srv_respond_error(s, id, RPC_SERVER_NOT_INITIALIZED, "the server is not initialized yet");
        return false;
    }
    if (s->state == SRV_SHUT_DOWN && strcmp(method, "exit") != 0) {
        if (id)
            srv_respond_error(s, id, RPC_INVALID_REQUEST, "the server was shut down: only exit is accepted");
        return false;
    }
    return true;
}

static void dispatch(srv_session *s, const cJSON *msg)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    if (id && !cJSON_IsNumber(id) && !cJSON_IsString(id)) {
        srv_respond_error(s, NULL, RPC_INVALID_REQUEST, "a request's id must be a number or a string");
        return;
    }
    if (!method) {
        if (!id)
            srv_respond_error(s, NULL, RPC_INVALID_REQUEST, "a message without a method or an id");
        return; /* else a response to the server's own request: nothing waits on it */
    }
    if (!cJSON_IsString(method)) {
        srv_respond_error(s, id, RPC_INVALID_REQUEST, "method must be a string");
        return;
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    if (s->trace >= 1)
        srv_log(s, LOG_DEBUG, "received %s", method->valuestring);
    if (strcmp(method->valuestring, "$/cancelRequest") == 0)
        return; /* taken when the burst was read */
    if (!allowed(s, method->valuestring, id))
        return;
    if (id && take_cancelled(s, id)) {
        srv_respond_error(s, id, RPC_REQUEST_CANCELLED, "cancelled");
        return;
    }
    bool is_request = false;
    srv_handler h = srv_find_handler(method->valuestring, &is_request);
    if (!h) {
        if (id)
            srv_respond_error(s, id, RPC_METHOD_NOT_FOUND, "oomlint does not handle this method");
        else if (strncmp(method->valuestring, "$/", 2) != 0)
            srv_log(s, LOG_DEBUG, "ignored the notification %s", method->valuestring);
        return;
    }
    if (is_request && !id) {
        srv_log(s, LOG_WARNING, "%s is a request but came without an id: ignored", method->valuestring);
        return;
    }
    h(s, id, cJSON_IsObject(params) ? params : NULL);
    if (!is_request && id) /* a notification sent as a request still gets its answer */
        srv_respond(s, id, NULL);
}

/* One burst's messages, parsed; cancellations noted before any is handled. */
typedef struct {
    cJSON **items;
    size_t len, cap;
} msg_queue;

static void enqueue(srv_session *s, msg_queue *q, const oom_buf *body)
{
    cJSON *msg = cJSON_ParseWithLength(body->data, body->len);
    if (!msg) {
        srv_respond_error(s, NULL, RPC_PARSE_ERROR, "the message is not JSON");
        return;
    }
    if (!cJSON_IsObject(msg)) {
        /* a batch (an array) is JSON-RPC 2.0 but not LSP */
        srv_respond_error(s, NULL, RPC_INVALID_REQUEST, "a message must be a JSON object");
        cJSON_Delete(msg);
        return;
    }
    const char *method = srv_str(msg, "method");
    if (method && strcmp(method, "$/cancelRequest") == 0) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(msg, "params"), "id");
        if ((cJSON_IsNumber(id) || cJSON_IsString(id)) && cJSON_GetArraySize(s->cancelled) < 1000)
            cJSON_AddItemToArray(s->cancelled, cJSON_Duplicate(id, true));
    }
    OOM_PUSH(q->items, q->len, q->cap, msg);
}

/* Reads what is there (up to a few MiB at once); false at the end of input. */
static bool read_burst(srv_session *s, int in_fd, oom_rpc_reader *r, msg_queue *q)
{
    char chunk[65536];
    size_t total = 0;
    bool open = true;
    oom_buf body, why;
    oom_buf_init(&body);
    oom_buf_init(&why);
    for (;;) {
        ssize_t n = read(in_fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            open = false;
            break;
        }
        oom_rpc_reader_feed(r, chunk, (size_t)n);
        total += (size_t)n;
        struct pollfd p = {in_fd, POLLIN, 0};
        if (total > 4 * 1024 * 1024 || poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP)))
            break;
    }
    for (;;) {
        oom_rpc_status st = oom_rpc_reader_next(r, &body, &why);
        if (st == OOM_RPC_NEED_MORE)
            break;
        if (st == OOM_RPC_BAD)
            srv_log(s, LOG_ERROR, "bad input: %s", why.data);
        else
            enqueue(s, q, &body);
    }
    oom_buf_free(&body);
    oom_buf_free(&why);
    return open;
}

int oom_server_serve(int in_fd, int out_fd, int log_fd)
{
    srv_session s;
    session_init(&s, out_fd, log_fd);
    oom_rpc_reader reader;
    oom_rpc_reader_init(&reader, OOM_RPC_MAX_BODY);
    msg_queue q = {NULL, 0, 0};
    bool open = true;
    while (open && !s.exit_now && !s.out_broken) {
        int wait = srv_next_due(&s, srv_now_ms());
        struct pollfd p = {in_fd, POLLIN, 0};
        int ready = poll(&p, 1, wait);
        if (ready < 0 && errno != EINTR)
            break;
        if (ready > 0)
            open = read_burst(&s, in_fd, &reader, &q);
        for (size_t i = 0; i < q.len; i++) {
            if (!s.exit_now)
                dispatch(&s, q.items[i]);
            cJSON_Delete(q.items[i]);
        }
        q.len = 0;
        if (!s.exit_now && s.state == SRV_RUNNING)
            srv_lint_due(&s, srv_now_ms(), false);
    }
    int rc = s.exit_now && s.state == SRV_SHUT_DOWN ? 0 : 1;
    free(q.items);
    oom_rpc_reader_free(&reader);
    session_free(&s);
    return rc;
}

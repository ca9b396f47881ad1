/* server/protocol: what the server writes. Every message goes through
 * srv_send, which stops writing for good once the client is gone (a broken
 * pipe), so a vanished client ends the session instead of crashing it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oomlint/text.h"
#include "internal.h"

void srv_send(srv_session *s, cJSON *msg)
{
    if (!s->out_broken) {
        cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
        char *text = cJSON_PrintUnformatted(msg);
        if (!text || oom_rpc_write(s->out_fd, text, strlen(text)) != 0)
            s->out_broken = true;
        free(text);
    }
    cJSON_Delete(msg);
}

void srv_respond(srv_session *s, const cJSON *id, cJSON *result)
{
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddItemToObject(msg, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    cJSON_AddItemToObject(msg, "result", result ? result : cJSON_CreateNull());
    srv_send(s, msg);
}

void srv_respond_error(srv_session *s, const cJSON *id, int code, const char *message)
{
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddItemToObject(msg, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    cJSON *err = cJSON_AddObjectToObject(msg, "error");
    cJSON_AddNumberToObject(err, "code", code);
    cJSON_AddStringToObject(err, "message", message);
    srv_send(s, msg);
}

void srv_notify(srv_session *s, const char *method, cJSON *params)
{
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddStringToObject(msg, "method", method);
    cJSON_AddItemToObject(msg, "params", params ? params : cJSON_CreateObject());
    srv_send(s, msg);
}

/* The server's own log: to the client (debug lines only when it traces
 * verbosely) and to the log file when one was given. */
void srv_log(srv_session *s, int type, const char *fmt, ...)
{
    oom_buf line;
    oom_buf_init(&line);
    va_list ap;
    va_start(ap, fmt);
    oom_buf_vprintf(&line, fmt, ap);
    va_end(ap);
    if (s->log_fd >= 0 && (type <= LOG_INFO || s->trace >= 2)) {
        oom_buf_putc(&line, '\n');
        (void)!write(s->log_fd, line.data, line.len);
        line.data[--line.len] = '\0';
    }
    if (type < LOG_DEBUG || s->trace >= 2) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "type", type);
        oom_buf msg;
        oom_buf_init(&msg);
        oom_buf_puts(&msg, "oomlint: ");
        oom_text_append_utf8_lossy(&msg, line.data, line.len);
        cJSON_AddStringToObject(p, "message", msg.data);
        oom_buf_free(&msg);
        srv_notify(s, "window/logMessage", p);
    }
    oom_buf_free(&line);
}

const char *srv_str(const cJSON *obj, const char *key)
{
    const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

bool srv_int(const cJSON *obj, const char *key, int64_t *out)
{
    const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    if (!cJSON_IsNumber(v) || v->valuedouble < -9e15 || v->valuedouble > 9e15)
        return false;
    *out = (int64_t)v->valuedouble;
    return true;
}

bool srv_position(const cJSON *pos, uint32_t *line, uint32_t *character)
{
    int64_t l, c;
    if (!cJSON_IsObject(pos) || !srv_int(pos, "line", &l) || !srv_int(pos, "character", &c) || l < 0 || c < 0)
        return false;
    *line = l > UINT32_MAX ? UINT32_MAX : (uint32_t)l;
    *character = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
    return true;
}


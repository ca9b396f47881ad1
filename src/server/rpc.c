/* server/rpc: JSON-RPC's base protocol, the framing of messages on a byte
 * stream. The client is trusted for nothing: whatever it sends, the reader
 * either yields a message or says which bytes it skipped, and keeps going,
 * so one bad message costs one log line, never the session. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "oomlint/server.h"

void oom_rpc_reader_init(oom_rpc_reader *r, size_t max_body)
{
    memset(r, 0, sizeof *r);
    oom_buf_init(&r->in);
    r->want = SIZE_MAX;
    r->max_body = max_body;
}

void oom_rpc_reader_free(oom_rpc_reader *r)
{
    oom_buf_free(&r->in);
}

static size_t avail(const oom_rpc_reader *r)
{
    return r->in.len - r->start;
}

static void consume(oom_rpc_reader *r, size_t n)
{
    r->start += n;
    /* compact once the taken part dominates, so a long session stays small */
    if (r->start == r->in.len) {
        oom_buf_clear(&r->in);
        r->start = 0;
    } else if (r->start > 65536 && r->start > r->in.len / 2) {
        memmove(r->in.data, r->in.data + r->start, r->in.len - r->start);
        r->in.len -= r->start;
        r->in.data[r->in.len] = '\0';
        r->start = 0;
    }
}

void oom_rpc_reader_feed(oom_rpc_reader *r, const char *bytes, size_t n)
{
    if (r->discard) { /* the rest of a body too large to keep */
        size_t drop = n < r->discard ? n : r->discard;
        r->discard -= drop;
        bytes += drop;
        n -= drop;
    }
    if (n)
        oom_buf_append(&r->in, bytes, n);
}

/* The end of the header block at p[0..n): the offset after its blank line
 * (\r\n\r\n, or \n\n from clients that skip the \r), 0 when not there yet. */
static size_t header_end(const char *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (p[i] != '\n')
            continue;
        if (p[i + 1] == '\n')
            return i + 2;
        if (i + 2 < n && p[i + 1] == '\r' && p[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

/* Where "Content-Length" starts in p[from..n) (case-insensitive), or n:
 * where a garbled stream may be picked up again. */
static size_t find_header_name(const char *p, size_t n, size_t from)
{
    static const char name[] = "content-length";
    size_t k = sizeof name - 1;
    for (size_t i = from; i + k <= n; i++)
        if (strncasecmp(p + i, name, k) == 0)
            return i;
    return n;
}

typedef enum { LEN_OK, LEN_MISSING, LEN_BAD, LEN_HUGE } length_status;

/* The Content-Length of a header block; other fields (Content-Type) are
 * allowed and ignored, as the protocol says. */
static length_status parse_length(const char *p, size_t n, size_t *length)
{
    length_status st = LEN_MISSING;
    size_t i = 0;
    while (i < n) {
        size_t eol = i;
        while (eol < n && p[eol] != '\n')
            eol++;
        size_t end = eol > i && p[eol - 1] == '\r' ? eol - 1 : eol;
        const char *colon = memchr(p + i, ':', end - i);
        if (colon && (size_t)(colon - (p + i)) == 14 && strncasecmp(p + i, "content-length", 14) == 0) {
            size_t v = 0, digits = 0;
            const char *q = colon + 1, *qend = p + end;
            while (q < qend && (*q == ' ' || *q == '\t'))
                q++;
            for (; q < qend && *q >= '0' && *q <= '9'; q++, digits++) {
                if (v > (SIZE_MAX - 9) / 10)
                    return LEN_HUGE;
                v = v * 10 + (size_t)(*q - '0');
            }
            while (q < qend && (*q == ' ' || *q == '\t'))
                q++;
            if (digits == 0 || q != qend || (st == LEN_OK && v != *length))
                return LEN_BAD;
            *length = v;
            st = LEN_OK;
        } else if (end > i && !colon) {
            return LEN_BAD; /* a line that is no header field */
        }
        i = eol + 1;
    }
    return st;
}

/* Skips a bad header block, keeping a "Content-Length" inside it: garbage
 * glued to the front of a real header must not cost that message. */
static void skip_header(oom_rpc_reader *r, size_t block)
{
    const char *p = r->in.data + r->start;
    size_t at = find_header_name(p, block, 1);
    consume(r, at < block ? at : block);
}

static oom_rpc_status take_header(oom_rpc_reader *r, oom_buf *why)
{
    const char *p = r->in.data + r->start;
    size_t n = avail(r);
    size_t block = header_end(p, n);
    if (block == 0) {
        if (n <= OOM_RPC_MAX_HEADER)
            return OOM_RPC_NEED_MORE;
        size_t at = find_header_name(p, n, 1);
        oom_buf_printf(why, "skipped %zu bytes that are not a message header", at < n ? at : n - 16);
        consume(r, at < n ? at : n - 16); /* the tail may start a header */
        return OOM_RPC_BAD;
    }
    size_t length = 0;
    length_status st = parse_length(p, block, &length);
    if (st == LEN_OK && length > r->max_body) {
        oom_buf_printf(why, "skipped a message of %zu bytes, over the limit of %zu", length, r->max_body);
        consume(r, block);
        size_t have = avail(r) < length ? avail(r) : length;
        consume(r, have);
        r->discard = length - have;
        return OOM_RPC_BAD;
    }
    if (st != LEN_OK) {
        oom_buf_puts(why, st == LEN_MISSING ? "skipped a message header without Content-Length"
                                            : "skipped a message header with a bad Content-Length");
        skip_header(r, block);
        return OOM_RPC_BAD;
    }
    consume(r, block);
    r->want = length;
    return OOM_RPC_MESSAGE;
}

oom_rpc_status oom_rpc_reader_next(oom_rpc_reader *r, oom_buf *body, oom_buf *why)
{
    oom_buf_clear(body);
    oom_buf_clear(why);
    if (r->want == SIZE_MAX) {
        oom_rpc_status st = take_header(r, why);
        if (st != OOM_RPC_MESSAGE)
            return st;
    }
    if (avail(r) < r->want)
        return OOM_RPC_NEED_MORE;
    oom_buf_append(body, r->in.data + r->start, r->want);
    consume(r, r->want);
    r->want = SIZE_MAX;
    return OOM_RPC_MESSAGE;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int oom_rpc_write(int fd, const char *body, size_t len)
{
    char header[64];
    int h = snprintf(header, sizeof header, "Content-Length: %zu\r\n\r\n", len);
    return write_all(fd, header, (size_t)h) == 0 && write_all(fd, body, len) == 0 ? 0 : -1;
}

/* server: `oomlint server`, a Language Server Protocol 3.17 server over
 * stdio. It holds the open documents (Python, notebooks, JSON and YAML
 * configs) and the workspace's per-file results, and runs the same library
 * pipeline as the command line (oomlint/run.h) on the text in the editor.
 * The pieces a test or a fuzzer reaches are declared here: the message
 * reader (framing), and the position arithmetic; the rest is private to
 * src/server (internal.h). */
#ifndef OOMLINT_SERVER_H
#define OOMLINT_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oomlint/util.h"

/* ---- JSON-RPC framing (server/rpc.c) ----------------------------------------------- */

/* A message body may be this large: a 32 MiB file (OOM_MAX_FILE_BYTES)
 * JSON-escaped, with room to spare. A larger one is discarded, not read. */
#define OOM_RPC_MAX_BODY ((size_t)96 * 1024 * 1024)
/* A header block longer than this is garbage: real ones are two lines. */
#define OOM_RPC_MAX_HEADER ((size_t)8 * 1024)

typedef enum {
    OOM_RPC_MESSAGE,   /* *body holds one message's bytes */
    OOM_RPC_NEED_MORE, /* no whole message yet: feed more bytes */
    OOM_RPC_BAD,       /* bytes that are no message were skipped; *why says what */
} oom_rpc_status;

/* Splits a byte stream into messages ("Content-Length: N\r\n\r\n" then N
 * bytes). It never trusts the stream: a header without a length, with a
 * length that is not a number, or too long, is skipped up to the next
 * header; a body over max_body is discarded as it arrives. */
typedef struct {
    oom_buf in;       /* bytes fed, from `start` on not yet taken */
    size_t start;
    size_t want;      /* a header was read: the body's length; SIZE_MAX: none */
    size_t discard;   /* bytes of an over-long body still to drop */
    size_t max_body;
} oom_rpc_reader;

void oom_rpc_reader_init(oom_rpc_reader *r, size_t max_body);
void oom_rpc_reader_free(oom_rpc_reader *r);
void oom_rpc_reader_feed(oom_rpc_reader *r, const char *bytes, size_t n);
/* The next message, if a whole one has been fed. */
oom_rpc_status oom_rpc_reader_next(oom_rpc_reader *r, oom_buf *body, oom_buf *why);
/* Writes one message (header and body) to fd; -1 when the other end is
 * gone. */
int oom_rpc_write(int fd, const char *body, size_t len);

/* ---- positions (server/position.c) ------------------------------------------------ */

/* What an LSP position's `character` counts, as negotiated at initialize:
 * UTF-16 code units (the protocol's default), bytes, or code points. */
typedef enum { OOM_POS_UTF16 = 0, OOM_POS_UTF8, OOM_POS_UTF32 } oom_pos_encoding;

/* Where each line of a text starts (lines end at \n; a \r before it is
 * part of the line's end). */
typedef struct {
    uint32_t *starts;
    size_t count, cap;
} oom_line_index;

void oom_line_index_build(oom_line_index *ix, const char *text, size_t len);
void oom_line_index_free(oom_line_index *ix);
/* The byte offset of an LSP position (0-based line, `character` in `enc`
 * units). A line past the end is the end of the text; a character past
 * the end of its line is the line's end; one inside a UTF-16 surrogate
 * pair or a UTF-8 sequence is the character's start. */
size_t oom_pos_to_offset(const char *text, size_t len, const oom_line_index *ix, uint32_t line,
                         uint32_t character, oom_pos_encoding enc);
/* The length in `enc` units of the first `n` bytes of a line. */
uint32_t oom_pos_units(const char *s, size_t n, oom_pos_encoding enc);
/* How many bytes the first `chars` code points of s[0..n) take (all n
 * when it has fewer): oomlint's columns count code points. */
size_t oom_pos_chars_to_bytes(const char *s, size_t n, uint32_t chars);
/* Bounds of the 0-based line `line` without its line end; false past the
 * last line. */
bool oom_line_bounds(const char *text, size_t len, const oom_line_index *ix, uint32_t line, size_t *start,
                     size_t *end);

/* ---- the server (server/server.c) ------------------------------------------------- */

/* Serves the protocol on in_fd/out_fd until `exit` or end of input; the log
 * goes to the client (window/logMessage) and to log_fd (-1: nowhere).
 * Returns the process's exit status: 0 after shutdown then exit, 1 when
 * the input ended or exit came without shutdown (as the protocol says). */
int oom_server_serve(int in_fd, int out_fd, int log_fd);

#endif

/* libFuzzer target: the language server's message reader (server/rpc.c)
 * on arbitrary bytes, fed in pieces whose sizes the input's first byte
 * chooses (a real pipe splits a stream anywhere), with each message's body
 * parsed as JSON as the server does; and the position arithmetic
 * (server/position.c) on the same bytes as a document. */
#include <cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void positions(const char *text, size_t len, uint32_t seed)
{
    oom_line_index ix = {NULL, 0, 0};
    oom_line_index_build(&ix, text, len);
    for (uint32_t k = 0; k < 8; k++) {
        uint32_t line = (seed >> k) % (uint32_t)(ix.count + 2), character = (seed * 31u + k * 7u) % 300u;
        for (int e = 0; e < 3; e++) {
            size_t off = oom_pos_to_offset(text, len, &ix, line, character, (oom_pos_encoding)e);
            if (off > len)
                abort();
            size_t start, end;
            if (oom_line_bounds(text, len, &ix, line, &start, &end)) {
                if (start > end || end > len)
                    abort();
                (void)oom_pos_units(text + start, end - start, (oom_pos_encoding)e);
                if (oom_pos_chars_to_bytes(text + start, end - start, character) > end - start)
                    abort();
            }
        }
    }
    oom_line_index_free(&ix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t piece = (size_t)data[0] % 64 + 1;
    const char *bytes = (const char *)data + 1;
    size_t n = size - 1;
    oom_rpc_reader r;
    /* a small limit, so that the over-limit path is reached by short inputs */
    oom_rpc_reader_init(&r, 4096);
    oom_buf body, why;
    oom_buf_init(&body);
    oom_buf_init(&why);
    for (size_t at = 0; at < n; at += piece) {
        oom_rpc_reader_feed(&r, bytes + at, at + piece <= n ? piece : n - at);
        for (;;) {
            oom_rpc_status st = oom_rpc_reader_next(&r, &body, &why);
            if (st == OOM_RPC_NEED_MORE)
                break;
            if (st == OOM_RPC_MESSAGE) {
                if (body.len > 4096)
                    abort(); /* over the limit, yet kept */
                cJSON_Delete(cJSON_ParseWithLength(body.data, body.len));
            }
        }
    }
    positions(bytes, n, data[0] * 2654435761u);
    oom_buf_free(&body);
    oom_buf_free(&why);
    oom_rpc_reader_free(&r);
    return 0;
}

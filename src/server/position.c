/* server/position: LSP positions against byte offsets. The protocol counts
 * a line's characters in UTF-16 code units unless the client agreed to
 * bytes or code points; oomlint counts code points. Every conversion
 * clamps: a client's position past a line's end, past the last line, or
 * inside a character is a place in the text, never an out-of-bounds read. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/server.h"
#include "oomlint/text.h"

void oom_line_index_build(oom_line_index *ix, const char *text, size_t len)
{
    ix->count = 0;
    OOM_PUSH(ix->starts, ix->count, ix->cap, 0);
    for (const char *p = text, *end = text + len; p < end; p++) {
        p = memchr(p, '\n', (size_t)(end - p));
        if (!p)
            break;
        OOM_PUSH(ix->starts, ix->count, ix->cap, (uint32_t)(p + 1 - text));
    }
}

void oom_line_index_free(oom_line_index *ix)
{
    free(ix->starts);
    memset(ix, 0, sizeof *ix);
}

bool oom_line_bounds(const char *text, size_t len, const oom_line_index *ix, uint32_t line, size_t *start,
                     size_t *end)
{
    if (line >= ix->count)
        return false;
    size_t s = ix->starts[line];
    size_t e = line + 1 < ix->count ? ix->starts[line + 1] - 1 : len; /* at the \n, or the end */
    if (e > s && text[e - 1] == '\r' && line + 1 < ix->count)
        e--;
    *start = s;
    *end = e;
    return true;
}

static uint32_t units_of(uint32_t cp, size_t bytes, oom_pos_encoding enc)
{
    if (enc == OOM_POS_UTF8)
        return (uint32_t)bytes;
    if (enc == OOM_POS_UTF32)
        return 1;
    return cp >= 0x10000 ? 2 : 1;
}

uint32_t oom_pos_units(const char *s, size_t n, oom_pos_encoding enc)
{
    if (enc == OOM_POS_UTF8)
        return (uint32_t)n;
    uint32_t units = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = oom_utf8_decode(s + i, n - i, &cp);
        units += units_of(cp, k, enc);
        i += k;
    }
    return units;
}

size_t oom_pos_chars_to_bytes(const char *s, size_t n, uint32_t chars)
{
    size_t i = 0;
    for (uint32_t c = 0; c < chars && i < n; c++) {
        uint32_t cp;
        i += oom_utf8_decode(s + i, n - i, &cp);
    }
    return i;
}

size_t oom_pos_to_offset(const char *text, size_t len, const oom_line_index *ix, uint32_t line,
                         uint32_t character, oom_pos_encoding enc)
{
    size_t start, end;
    if (!oom_line_bounds(text, len, ix, line, &start, &end))
        return len;
    size_t i = start;
    uint32_t units = 0;
    while (i < end) {
        uint32_t cp;
        size_t k = oom_utf8_decode(text + i, end - i, &cp);
        uint32_t u = units_of(cp, k, enc);
        if (units + u > character) /* inside this character: its start */
            break;
        units += u;
        i += k;
    }
    return i;
}

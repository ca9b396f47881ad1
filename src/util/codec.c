/* util/codec: integers and strings in a byte buffer, and a bounds-checked
 * reader for them. The cache reads files that another run may have been
 * writing, a disk may have cut short, or anyone may have put there: every
 * read is checked against the end, and a failed read makes every later one
 * fail too, so a decoder checks `ok` once at its end. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/util.h"

void oom_buf_put_bytes(oom_buf *b, const void *p, size_t n)
{
    if (n) /* an empty buffer's data is NULL, which memcpy may not be given */
        oom_buf_append(b, p, n);
}

void oom_buf_put_u32(oom_buf *b, uint32_t v)
{
    oom_buf_append(b, (const char *)&v, sizeof v);
}

void oom_buf_put_u64(oom_buf *b, uint64_t v)
{
    oom_buf_append(b, (const char *)&v, sizeof v);
}

/* A length, or UINT32_MAX for NULL. */
void oom_buf_put_str(oom_buf *b, const char *s)
{
    if (!s) {
        oom_buf_put_u32(b, UINT32_MAX);
        return;
    }
    size_t n = strlen(s);
    oom_buf_put_u32(b, (uint32_t)n);
    oom_buf_append(b, s, n);
}

void oom_reader_init(oom_reader *r, const void *data, size_t len)
{
    r->at = data;
    r->end = r->at + len;
    r->ok = true;
}

static bool take(oom_reader *r, void *p, size_t n)
{
    if (!r->ok || (size_t)(r->end - r->at) < n) {
        r->ok = false;
        memset(p, 0, n);
        return false;
    }
    memcpy(p, r->at, n);
    r->at += n;
    return true;
}

uint32_t oom_reader_u32(oom_reader *r)
{
    uint32_t v;
    take(r, &v, sizeof v);
    return v;
}

uint64_t oom_reader_u64(oom_reader *r)
{
    uint64_t v;
    take(r, &v, sizeof v);
    return v;
}

size_t oom_reader_count(oom_reader *r, size_t min_item)
{
    uint32_t n = oom_reader_u32(r);
    if (!r->ok)
        return 0;
    if (min_item == 0)
        min_item = 1;
    if (n > (size_t)(r->end - r->at) / min_item) {
        r->ok = false;
        return 0;
    }
    return n;
}

char *oom_reader_str(oom_reader *r)
{
    uint32_t n = oom_reader_u32(r);
    if (!r->ok || n == UINT32_MAX)
        return NULL;
    if ((size_t)(r->end - r->at) < n || memchr(r->at, '\0', n)) {
        r->ok = false;
        return NULL;
    }
    char *s = oom_xstrndup((const char *)r->at, n);
    r->at += n;
    return s;
}

void oom_reader_bytes(oom_reader *r, void *p, size_t n)
{
    take(r, p, n);
}

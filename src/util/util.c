/* util: allocation wrappers, growable strings and string lists. */
#include "oomlint/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
    fprintf(stderr, "oomlint: out of memory allocating %zu bytes\n", n);
    abort();
}

void *oom_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *oom_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory(count * size);
    return p;
}

void *oom_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

char *oom_xstrdup(const char *s)
{
    return oom_xstrndup(s, strlen(s));
}

char *oom_xstrndup(const char *s, size_t n)
{
    char *p = oom_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void oom_grow(void **items, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need)
        ncap *= 2;
    *items = oom_xrealloc(*items, ncap * elem);
    *cap = ncap;
}

void oom_buf_init(oom_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void oom_buf_free(oom_buf *b)
{
    free(b->data);
    oom_buf_init(b);
}

void oom_buf_clear(oom_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

static void buf_reserve(oom_buf *b, size_t extra)
{
    oom_grow((void **)&b->data, &b->cap, b->len + extra + 1, 1);
}

void oom_buf_append(oom_buf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void oom_buf_puts(oom_buf *b, const char *s)
{
    oom_buf_append(b, s, strlen(s));
}

void oom_buf_putc(oom_buf *b, char c)
{
    oom_buf_append(b, &c, 1);
}

void oom_buf_vprintf(oom_buf *b, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return;
    buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void oom_buf_printf(oom_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    oom_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *oom_buf_take(oom_buf *b)
{
    char *s = b->data ? b->data : oom_xstrdup("");
    oom_buf_init(b);
    return s;
}

bool oom_comma_list_has(const char *list, const char *word, size_t wlen)
{
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == wlen && memcmp(p, word, n) == 0)
            return true;
        p += n + (comma != NULL);
    }
    return false;
}

bool oom_str_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool oom_str_ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

void oom_strlist_push(oom_strlist *l, const char *s)
{
    OOM_PUSH(l->items, l->len, l->cap, oom_xstrdup(s));
}

void oom_strlist_free(oom_strlist *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->len = l->cap = 0;
}

bool oom_strlist_contains(const oom_strlist *l, const char *s)
{
    for (size_t i = 0; i < l->len; i++)
        if (strcmp(l->items[i], s) == 0)
            return true;
    return false;
}

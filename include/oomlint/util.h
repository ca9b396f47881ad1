/* util: growable byte buffers and allocation that cannot fail silently. */
#ifndef OOMLINT_UTIL_H
#define OOMLINT_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Allocation failure is not a recoverable condition for a linter: these abort
 * with a message instead of returning NULL into code that would crash later. */
void *oom_xmalloc(size_t n);
void *oom_xcalloc(size_t count, size_t size);
void *oom_xrealloc(void *p, size_t n);
char *oom_xstrdup(const char *s);
char *oom_xstrndup(const char *s, size_t n);

/* Grow an array `*items` of `*cap` elements of `elem` bytes to hold `need`. */
void oom_grow(void **items, size_t *cap, size_t need, size_t elem);
/* The capacity test is inline: pushes are on the hot path of every walk. */
#define OOM_PUSH(arr, len, cap, value)                                          \
    do {                                                                       \
        if ((len) + 1 > (cap))                                                 \
            oom_grow((void **)&(arr), &(cap), (len) + 1, sizeof(*(arr)));      \
        (arr)[(len)++] = (value);                                              \
    } while (0)

/* A NUL-terminated growable string. */
typedef struct {
    char *data;
    size_t len;
    size_t cap;
} oom_buf;

void oom_buf_init(oom_buf *b);
void oom_buf_free(oom_buf *b);
void oom_buf_clear(oom_buf *b);
void oom_buf_append(oom_buf *b, const char *s, size_t n);
void oom_buf_puts(oom_buf *b, const char *s);
void oom_buf_putc(oom_buf *b, char c);
void oom_buf_printf(oom_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void oom_buf_vprintf(oom_buf *b, const char *fmt, va_list ap);
/* Hand the string over to the caller (who frees it); the buffer is reset. */
char *oom_buf_take(oom_buf *b);

/* Writes a file whole or not at all (a temporary beside it, then rename).
 * Returns -1 with a reason in err. */
int oom_write_file_atomically(const char *path, const char *data, size_t len, oom_buf *err);
/* The same for a file that exists: the new one keeps its permission bits
 * `mode` (st_mode of the file it replaces). */
int oom_replace_file_atomically(const char *path, const char *data, size_t len, unsigned mode, oom_buf *err);

bool oom_str_starts_with(const char *s, const char *prefix);
/* Whether the comma-separated list ("a,b") names `word` (wlen bytes). */
bool oom_comma_list_has(const char *list, const char *word, size_t wlen);
bool oom_str_ends_with(const char *s, const char *suffix);

/* A list of owned strings. */
typedef struct {
    char **items;
    size_t len;
    size_t cap;
} oom_strlist;

void oom_strlist_push(oom_strlist *l, const char *s);
void oom_strlist_free(oom_strlist *l);
bool oom_strlist_contains(const oom_strlist *l, const char *s);

/* ---- hashing and a byte codec (util/hash.c, util/codec.c) ---------------- */

#include <stdint.h>

/* XXH64 (Yann Collet's xxHash, 64-bit): fast and well distributed, not
 * cryptographic. What the on-disk cache keys its entries by. */
uint64_t oom_hash64(const void *data, size_t len, uint64_t seed);

/* Host-order integers and length-prefixed strings appended to a buffer, and
 * read back with every length checked: a reader past its end, or given a
 * string that is not NUL-free, fails (ok becomes false) and returns zeros,
 * never reads outside its bytes. For files this binary writes and reads
 * back (the cache), never for an exchange format. */
void oom_buf_put_u32(oom_buf *b, uint32_t v);
void oom_buf_put_u64(oom_buf *b, uint64_t v);
/* NULL is written apart from "" and read back as NULL. */
void oom_buf_put_str(oom_buf *b, const char *s);
void oom_buf_put_bytes(oom_buf *b, const void *p, size_t n);

typedef struct {
    const unsigned char *at, *end;
    bool ok;
} oom_reader;

void oom_reader_init(oom_reader *r, const void *data, size_t len);
uint32_t oom_reader_u32(oom_reader *r);
uint64_t oom_reader_u64(oom_reader *r);
/* A count of items of at least `min_item` bytes each that can still be read:
 * a corrupt count fails here, before anything is allocated for it. */
size_t oom_reader_count(oom_reader *r, size_t min_item);
/* An owned copy (NULL when NULL was written, or on failure). */
char *oom_reader_str(oom_reader *r);
/* Copies n bytes into p (zeros on failure). */
void oom_reader_bytes(oom_reader *r, void *p, size_t n);

#endif

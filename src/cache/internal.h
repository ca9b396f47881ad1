/* cache/internal.h: what the cache's files share. */
#ifndef OOMLINT_CACHE_INTERNAL_H
#define OOMLINT_CACHE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "oomlint/util.h"

/* 128 bits: two XXH64 of the same bytes under different seeds. At 64 bits
 * a collision among the entries of a large cache is unlikely; at 128 it is
 * not a thing to think about. */
typedef struct {
    uint64_t lo, hi;
} oom_cache_key;

oom_cache_key oom_cache_key_of(const void *data, size_t len);

/* What this build is, as bytes for a key: the format, the version, the ELF
 * build id of the executable (or, without one, a hash of the executable's
 * file), and a hash of the embedded rules and knowledge base. */
void oom_cache_build_identity(oom_buf *out);

/* Reads a regular file of at most `max` bytes whole; -1 otherwise. */
int oom_cache_read_file(const char *path, size_t max, oom_buf *out);
/* Writes `path` whole or not at all: a temporary file beside it, renamed
 * over it. -1 with *err set to errno. */
int oom_cache_write_file(const char *path, const char *data, size_t len, int *err);

#endif

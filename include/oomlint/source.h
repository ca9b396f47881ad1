/* source: a file's bytes as read from disk or stdin, with the checks that
 * decide whether it can be linted at all. */
#ifndef OOMLINT_SOURCE_H
#define OOMLINT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Files larger than this are reported, not read: generated code and data
 * files of this size are not training scripts, and parsing them would cost
 * seconds and hundreds of megabytes. */
#define OOM_MAX_FILE_BYTES ((size_t)32 * 1024 * 1024)

typedef enum {
    OOM_SOURCE_OK = 0,
    OOM_SOURCE_IO_ERROR,    /* open or read failed; see error text */
    OOM_SOURCE_NOT_REGULAR, /* a directory, pipe, device ... */
    OOM_SOURCE_TOO_LARGE,
    OOM_SOURCE_BINARY,      /* contains NUL bytes */
    OOM_SOURCE_NOT_UTF8,
} oom_source_status;

typedef struct {
    char *path;       /* the path as given, used in reports */
    char *text;       /* contents without a UTF-8 BOM, NUL-terminated */
    size_t len;
    uint32_t *line_starts; /* byte offset of each line, built on demand */
    size_t line_count;
} oom_source;

/* Read `path` (or stdin when path is "-"), reporting under `display_name`.
 * On failure *out is still initialised (with no text) and `error` (a buffer
 * of error_size bytes) holds a one-line reason. */
oom_source_status oom_source_read(const char *path, const char *display_name,
                                  oom_source *out, char *error, size_t error_size);

/* Make a source from memory (tests, fuzzers). Copies the bytes. */
oom_source_status oom_source_from_memory(const char *display_name, const char *bytes,
                                         size_t len, oom_source *out, char *error,
                                         size_t error_size);

void oom_source_free(oom_source *src);

/* 1-based line and 1-based column in characters (code points) of a byte offset. */
void oom_source_position(oom_source *src, size_t byte, uint32_t *row, uint32_t *col);

/* Bounds of the 1-based line `row` (without its line terminator). */
bool oom_source_line(oom_source *src, uint32_t row, const char **start, size_t *len);

#endif

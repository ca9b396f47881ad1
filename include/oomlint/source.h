/* source: a file's bytes as read from disk or stdin, with the checks that
 * decide whether it can be linted at all. */
#ifndef OOMLINT_SOURCE_H
#define OOMLINT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oomlint/notebook.h"

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
    OOM_SOURCE_NOTEBOOK_NOT_JSON,   /* a notebook that does not parse as JSON */
    OOM_SOURCE_NOTEBOOK_INVALID,    /* JSON, but not a notebook oomlint reads */
    OOM_SOURCE_NOTEBOOK_NOT_PYTHON, /* a notebook of another language: nothing to lint */
} oom_source_status;

typedef struct {
    char *path;       /* the path as given, used in reports */
    char *text;       /* contents without a UTF-8 BOM, NUL-terminated */
    size_t len;
    uint32_t *line_starts; /* byte offset of each line, built on demand */
    size_t line_count;
    /* Set when the text is a notebook's code cells (oomlint/notebook.h):
     * positions in the text are the module's, and this maps them back to
     * the cells. Owned. */
    oom_notebook *notebook;
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

/* Reads the Jupyter notebook `path` (or stdin for "-"): the file, which
 * may be up to OOM_MAX_NOTEBOOK_BYTES (outputs make notebooks large), then
 * its code cells, which become the source's text (held to
 * OOM_MAX_FILE_BYTES, as a file's is) and src->notebook. On failure *out is
 * still initialised (with no text) and `err` says why and, for a broken
 * notebook, where in the file. */
oom_source_status oom_source_read_notebook(const char *path, const char *display_name, oom_source *out,
                                           oom_notebook_error *err);
/* The same from memory (tests, fuzzers). */
oom_source_status oom_source_notebook_from_memory(const char *display_name, const char *bytes, size_t len,
                                                  oom_source *out, oom_notebook_error *err);
/* Hands the notebook map over to the caller (the project pass keeps it to
 * place its own findings); the source no longer has it. */
oom_notebook *oom_source_take_notebook(oom_source *src);

void oom_source_free(oom_source *src);

/* Text a front end holds in place of some files' bytes on disk: the
 * editor's unsaved buffers, which the language server lints. A check that
 * reads another file (the DeepSpeed config a script names) reads it
 * through the overlay. */
typedef struct {
    const char *path;
    const char *text;
    size_t len;
} oom_overlay_file;

typedef struct {
    const oom_overlay_file *files;
    size_t count;
} oom_overlay;

/* oom_source_read, from the overlay's text when it holds `path` (may be NULL). */
oom_source_status oom_source_read_overlaid(const oom_overlay *overlay, const char *path, const char *display_name,
                                           oom_source *out, char *error, size_t error_size);

/* "PATH:ROW" naming a line of the source in messages, or "PATH:cell C:ROW"
 * when the source is a notebook's code. */
void oom_source_describe_line(const oom_source *src, const char *path, uint32_t row, char *buf, size_t size);

/* 1-based line and 1-based column in characters (code points) of a byte offset. */
void oom_source_position(oom_source *src, size_t byte, uint32_t *row, uint32_t *col);

/* Bounds of the 1-based line `row` (without its line terminator). */
bool oom_source_line(oom_source *src, uint32_t row, const char **start, size_t *len);

/* ---- what linting a file reads besides the file (source/readlog.c) ------------ */

/* Linting a file may read others: a local model's config.json (OOM501), the
 * DeepSpeed or TrainingArguments config a script names. A result kept for
 * the file (the on-disk cache) holds only while those read the same, so
 * while a log is started on a thread every oom_source_read of a path and
 * every oom_source_exists there is noted in it. Per thread, never shared:
 * the workers of a run each log their own file. */
typedef struct {
    char *path;
    uint32_t kind;  /* OOM_READ_TEXT or OOM_READ_EXISTS */
    uint64_t value; /* the text's hash, or the status when it was not read; the answer of exists */
} oom_read_note;

enum { OOM_READ_TEXT = 1, OOM_READ_EXISTS = 2 };
/* More notes than this and the log gives up (full): a file that reads so
 * many others is not worth keeping. */
#define OOM_READLOG_MAX 64

typedef struct {
    oom_read_note *items;
    size_t len, cap;
    bool full;
} oom_readlog;

void oom_readlog_start(oom_readlog *log);
void oom_readlog_stop(void);
void oom_readlog_free(oom_readlog *log);
/* Adds a note (a decoded one, say); false when the log is full. */
bool oom_readlog_add(oom_readlog *log, const char *path, uint32_t kind, uint64_t value);
/* Whether every note still holds: each file reads as it did (or fails as
 * it did), each existence check answers as it did. */
bool oom_readlog_still_holds(const oom_readlog *log);
/* Notes a read on this thread's log, if one is started (oom_source_read). */
void oom_readlog_note_read(const char *path, oom_source_status st, const oom_source *src);
/* The value a text read is noted with: its hash, or the failure's status. */
uint64_t oom_readlog_text_value(oom_source_status st, const oom_source *src);
/* Makes `log` the running thread's log (NULL: none); the one it replaces. */
oom_readlog *oom_readlog_swap(oom_readlog *log);
/* Whether `path` exists (stat succeeds), noted on this thread's log. */
bool oom_source_exists(const char *path);

#endif

/* source: reading files safely. Hostile inputs (pipes, devices, huge or binary
 * files, invalid UTF-8) are turned into a status and a message, never a hang. */
#include "oomlint/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oomlint/text.h"
#include "oomlint/util.h"

static void init_empty(oom_source *out, const char *display_name)
{
    memset(out, 0, sizeof(*out));
    out->path = oom_xstrdup(display_name);
}

/* Read at most `limit` + 1 bytes so an oversized stream (stdin, a device) is
 * detected without reading it all. */
static oom_source_status read_fd(int fd, size_t limit, oom_buf *data, char *error, size_t error_size)
{
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            snprintf(error, error_size, "cannot read: %s", strerror(errno));
            return OOM_SOURCE_IO_ERROR;
        }
        if (n == 0)
            return OOM_SOURCE_OK;
        oom_buf_append(data, chunk, (size_t)n);
        if (data->len > limit) {
            snprintf(error, error_size, "file is larger than the %zu MiB limit; not linted",
                     limit / (1024 * 1024));
            return OOM_SOURCE_TOO_LARGE;
        }
    }
}

static oom_source_status check_text(const char *bytes, size_t len, char *error,
                                    size_t error_size)
{
    const char *nul = memchr(bytes, '\0', len);
    if (nul) {
        snprintf(error, error_size, "binary file (NUL byte at offset %zu); not linted",
                 (size_t)(nul - bytes));
        return OOM_SOURCE_BINARY;
    }
    size_t bad = 0;
    if (!oom_utf8_valid(bytes, len, &bad)) {
        size_t line = 1;
        for (size_t i = 0; i < bad; i++)
            line += bytes[i] == '\n';
        snprintf(error, error_size,
                 "not valid UTF-8 (byte 0x%02X at line %zu, offset %zu); not linted",
                 (unsigned char)bytes[bad], line, bad);
        return OOM_SOURCE_NOT_UTF8;
    }
    return OOM_SOURCE_OK;
}

static oom_source_status adopt_bytes(oom_source *out, oom_buf *data, char *error,
                                     size_t error_size)
{
    oom_buf_append(data, "", 0); /* make sure data->data exists and is terminated */
    oom_source_status st = check_text(data->data, data->len, error, error_size);
    if (st != OOM_SOURCE_OK) {
        oom_buf_free(data);
        return st;
    }
    size_t skip = 0;
    if (data->len >= 3 && memcmp(data->data, "\xEF\xBB\xBF", 3) == 0)
        skip = 3; /* a BOM is not part of the program and takes no column */
    out->len = data->len - skip;
    out->text = oom_xmalloc(out->len + 1);
    memcpy(out->text, data->data + skip, out->len);
    out->text[out->len] = '\0';
    oom_buf_free(data);
    return OOM_SOURCE_OK;
}

static oom_source_status open_regular(const char *path, size_t limit, int *fd_out, char *error,
                                      size_t error_size)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(error, error_size, "cannot open: %s", strerror(errno));
        return OOM_SOURCE_IO_ERROR;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(error, error_size, "cannot stat: %s", strerror(errno));
        close(fd);
        return OOM_SOURCE_IO_ERROR;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(error, error_size, "is a directory, not a file");
        close(fd);
        return OOM_SOURCE_NOT_REGULAR;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(error, error_size, "not a regular file (a pipe, socket or device); not read");
        close(fd);
        return OOM_SOURCE_NOT_REGULAR;
    }
    if ((size_t)st.st_size > limit) {
        snprintf(error, error_size, "file is %lld MiB, over the %zu MiB limit; not linted",
                 (long long)(st.st_size / (1024 * 1024)), limit / (1024 * 1024));
        close(fd);
        return OOM_SOURCE_TOO_LARGE;
    }
    /* Regular files never block; clear O_NONBLOCK for plain reads. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    *fd_out = fd;
    return OOM_SOURCE_OK;
}

/* A file (or stdin) of at most `limit` bytes of UTF-8 text. */
static oom_source_status read_text(const char *path, const char *display_name, size_t limit,
                                   oom_source *out, char *error, size_t error_size)
{
    init_empty(out, display_name);
    error[0] = '\0';
    int fd = STDIN_FILENO;
    bool from_stdin = strcmp(path, "-") == 0;
    if (!from_stdin) {
        oom_source_status st = open_regular(path, limit, &fd, error, error_size);
        if (st != OOM_SOURCE_OK)
            return st;
    }
    oom_buf data;
    oom_buf_init(&data);
    oom_source_status st = read_fd(fd, limit, &data, error, error_size);
    if (!from_stdin)
        close(fd);
    if (st != OOM_SOURCE_OK) {
        oom_buf_free(&data);
        return st;
    }
    return adopt_bytes(out, &data, error, error_size);
}

oom_source_status oom_source_read(const char *path, const char *display_name,
                                  oom_source *out, char *error, size_t error_size)
{
    oom_source_status st = read_text(path, display_name, OOM_MAX_FILE_BYTES, out, error, error_size);
    oom_readlog_note_read(path, st, out);
    return st;
}

oom_source_status oom_source_from_memory(const char *display_name, const char *bytes,
                                         size_t len, oom_source *out, char *error,
                                         size_t error_size)
{
    init_empty(out, display_name);
    error[0] = '\0';
    if (len > OOM_MAX_FILE_BYTES) {
        snprintf(error, error_size, "file is larger than the %zu MiB limit; not linted",
                 OOM_MAX_FILE_BYTES / (1024 * 1024));
        return OOM_SOURCE_TOO_LARGE;
    }
    oom_buf data;
    oom_buf_init(&data);
    oom_buf_append(&data, bytes, len);
    return adopt_bytes(out, &data, error, error_size);
}

/* ---- notebooks ------------------------------------------------------------------ */

static oom_source_status notebook_failure(oom_notebook_status st)
{
    switch (st) {
    case OOM_NOTEBOOK_NOT_JSON:
        return OOM_SOURCE_NOTEBOOK_NOT_JSON;
    case OOM_NOTEBOOK_NOT_PYTHON:
        return OOM_SOURCE_NOTEBOOK_NOT_PYTHON;
    default:
        return OOM_SOURCE_NOTEBOOK_INVALID;
    }
}

/* The source made of the notebook in `file` (which is freed). */
static oom_source_status adopt_notebook(oom_source *file, const char *display_name, oom_source *out,
                                        oom_notebook_error *err)
{
    oom_notebook *nb;
    oom_notebook_status nst = oom_notebook_parse(file->text, file->len, &nb, err);
    oom_source_free(file);
    if (nst != OOM_NOTEBOOK_OK) {
        init_empty(out, display_name);
        return notebook_failure(nst);
    }
    size_t len;
    const char *code = oom_notebook_code(nb, &len);
    if (len > OOM_MAX_FILE_BYTES) {
        init_empty(out, display_name);
        snprintf(err->message, sizeof err->message,
                 "the notebook's code cells are larger than the %zu MiB limit; not linted",
                 OOM_MAX_FILE_BYTES / (1024 * 1024));
        oom_notebook_free(nb);
        return OOM_SOURCE_TOO_LARGE;
    }
    oom_source_status st = oom_source_from_memory(display_name, code, len, out, err->message, sizeof err->message);
    if (st != OOM_SOURCE_OK) {
        oom_notebook_free(nb);
        return st;
    }
    out->notebook = nb;
    return OOM_SOURCE_OK;
}

oom_source_status oom_source_read_notebook(const char *path, const char *display_name, oom_source *out,
                                           oom_notebook_error *err)
{
    memset(err, 0, sizeof *err);
    oom_source file;
    oom_source_status st =
        read_text(path, display_name, OOM_MAX_NOTEBOOK_BYTES, &file, err->message, sizeof err->message);
    if (st != OOM_SOURCE_OK) {
        *out = file;
        return st;
    }
    return adopt_notebook(&file, display_name, out, err);
}

oom_source_status oom_source_notebook_from_memory(const char *display_name, const char *bytes, size_t len,
                                                  oom_source *out, oom_notebook_error *err)
{
    memset(err, 0, sizeof *err);
    oom_source file;
    init_empty(&file, display_name);
    oom_source_status st = OOM_SOURCE_TOO_LARGE;
    if (len > OOM_MAX_NOTEBOOK_BYTES) {
        snprintf(err->message, sizeof err->message, "file is larger than the %zu MiB limit; not linted",
                 OOM_MAX_NOTEBOOK_BYTES / (1024 * 1024));
    } else {
        oom_buf data;
        oom_buf_init(&data);
        oom_buf_append(&data, bytes, len);
        st = adopt_bytes(&file, &data, err->message, sizeof err->message);
    }
    if (st != OOM_SOURCE_OK) {
        *out = file;
        return st;
    }
    return adopt_notebook(&file, display_name, out, err);
}

oom_notebook *oom_source_take_notebook(oom_source *src)
{
    oom_notebook *nb = src->notebook;
    src->notebook = NULL;
    return nb;
}

oom_source_status oom_source_read_overlaid(const oom_overlay *overlay, const char *path, const char *display_name,
                                           oom_source *out, char *error, size_t error_size)
{
    for (size_t i = 0; overlay && i < overlay->count; i++)
        if (strcmp(overlay->files[i].path, path) == 0)
            return oom_source_from_memory(display_name, overlay->files[i].text, overlay->files[i].len, out, error,
                                          error_size);
    return oom_source_read(path, display_name, out, error, error_size);
}

void oom_source_free(oom_source *src)
{
    free(src->path);
    free(src->text);
    free(src->line_starts);
    oom_notebook_free(src->notebook);
    memset(src, 0, sizeof(*src));
}

void oom_source_describe_line(const oom_source *src, const char *path, uint32_t row, char *buf, size_t size)
{
    uint32_t cell, cell_row, file_row;
    if (src->notebook && oom_notebook_locate(src->notebook, row, &cell, &cell_row, &file_row))
        snprintf(buf, size, "%s:cell %u:%u", path, cell, cell_row);
    else
        snprintf(buf, size, "%s:%u", path, row);
}

/* Lines end at \n, \r\n or a lone \r, as Python's tokenizer sees them. */
static void build_line_index(oom_source *src)
{
    size_t cap = 0;
    OOM_PUSH(src->line_starts, src->line_count, cap, 0);
    for (size_t i = 0; i < src->len; i++) {
        char c = src->text[i];
        if (c == '\r' && i + 1 < src->len && src->text[i + 1] == '\n')
            continue;
        if (c == '\n' || c == '\r')
            OOM_PUSH(src->line_starts, src->line_count, cap, (uint32_t)(i + 1));
    }
}

void oom_source_position(oom_source *src, size_t byte, uint32_t *row, uint32_t *col)
{
    if (!src->line_starts)
        build_line_index(src);
    if (byte > src->len)
        byte = src->len;
    size_t lo = 0, hi = src->line_count; /* find the last start <= byte */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (src->line_starts[mid] <= byte)
            lo = mid;
        else
            hi = mid;
    }
    *row = (uint32_t)lo + 1;
    size_t start = src->line_starts[lo];
    *col = (uint32_t)oom_utf8_count(src->text + start, byte - start) + 1;
}

bool oom_source_line(oom_source *src, uint32_t row, const char **start, size_t *len)
{
    if (!src->line_starts)
        build_line_index(src);
    if (row == 0 || row > src->line_count)
        return false;
    size_t b = src->line_starts[row - 1];
    size_t e = row < src->line_count ? src->line_starts[row] : src->len;
    while (e > b && (src->text[e - 1] == '\n' || src->text[e - 1] == '\r'))
        e--;
    *start = src->text + b;
    *len = e - b;
    return true;
}

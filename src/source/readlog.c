/* source/readlog: the files a lint read besides its own, so that a result
 * kept for the file can be checked against them before it is used again.
 * The log is thread-local on purpose: each worker thread lints one file at
 * a time, and only its own reads belong to that file's result. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oomlint/source.h"
#include "oomlint/util.h"

static _Thread_local oom_readlog *current;

void oom_readlog_start(oom_readlog *log)
{
    memset(log, 0, sizeof *log);
    current = log;
}

void oom_readlog_stop(void)
{
    current = NULL;
}

oom_readlog *oom_readlog_swap(oom_readlog *log)
{
    oom_readlog *was = current;
    current = log;
    return was;
}

void oom_readlog_free(oom_readlog *log)
{
    for (size_t i = 0; i < log->len; i++)
        free(log->items[i].path);
    free(log->items);
    memset(log, 0, sizeof *log);
}

bool oom_readlog_add(oom_readlog *log, const char *path, uint32_t kind, uint64_t value)
{
    for (size_t i = 0; i < log->len; i++) /* read twice, noted once */
        if (log->items[i].kind == kind && strcmp(log->items[i].path, path) == 0)
            return true;
    if (log->len >= OOM_READLOG_MAX) {
        log->full = true;
        return false;
    }
    oom_read_note n = {oom_xstrdup(path), kind, value};
    OOM_PUSH(log->items, log->len, log->cap, n);
    return true;
}

uint64_t oom_readlog_text_value(oom_source_status st, const oom_source *src)
{
    /* a failure is its status; a text its hash, which no status equals in practice */
    return st == OOM_SOURCE_OK ? oom_hash64(src->text, src->len, 0) | 0x100 : (uint64_t)st;
}

void oom_readlog_note_read(const char *path, oom_source_status st, const oom_source *src)
{
    if (current && strcmp(path, "-") != 0)
        oom_readlog_add(current, path, OOM_READ_TEXT, oom_readlog_text_value(st, src));
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

bool oom_source_exists(const char *path)
{
    bool yes = exists(path);
    if (current)
        oom_readlog_add(current, path, OOM_READ_EXISTS, yes);
    return yes;
}


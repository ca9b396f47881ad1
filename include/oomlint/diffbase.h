/* diffbase: which lines changed since a git ref (--diff-base), so a pull
 * request is annotated only with what it introduced. */
#ifndef OOMLINT_DIFFBASE_H
#define OOMLINT_DIFFBASE_H

#include <stdbool.h>
#include <stdint.h>

#include "oomlint/util.h"

typedef struct {
    char *path;       /* absolute, as git's top level + the path git reports */
    uint32_t *ranges; /* pairs: first and last changed line */
    size_t range_count, range_cap;
    bool whole;       /* a new or untracked file: every line counts */
} oom_changed_file;

typedef struct {
    char *root;
    oom_changed_file *files;
    size_t file_count, file_cap;
} oom_changes;

/* Runs git (never a shell) in the current directory. Returns -1 with a
 * one-line reason when this is not a git work tree or `ref` is unknown. */
int oom_changes_load(const char *ref, oom_changes *out, oom_buf *err);
/* Parses `git diff --unified=0` output (exposed for tests). */
void oom_changes_parse_diff(oom_changes *c, const char *diff);
bool oom_changes_covers(const oom_changes *c, const char *path, uint32_t line);
void oom_changes_free(oom_changes *c);

#endif

/* config: [tool.oomlint] in pyproject.toml, read with the tree-sitter TOML
 * grammar so that every bad key or value is reported at its line and column. */
#ifndef OOMLINT_CONFIG_H
#define OOMLINT_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "oomlint/util.h"

typedef struct {
    char *glob;
    oom_strlist codes;
} oom_per_file_ignore;

typedef struct {
    char *path;      /* the pyproject.toml it came from */
    char *dir;       /* its folder: per-file-ignores globs are relative to it */
    char *gpu;       /* NULL when not set */
    uint32_t gpu_line, gpu_col;
    int num_gpus;    /* 0 when not set */
    char *torch;     /* the PyTorch version the jobs run, "2.4"; NULL when not set */
    char *cache_dir; /* cache-dir, as written (relative to dir); NULL when not set */
    bool has_select, has_ignore;
    /* fixing: fixable / unfixable code lists (Ruff's keys), unsafe-fixes */
    bool has_fixable, has_unfixable;
    oom_strlist fixable, unfixable;
    int unsafe_fixes; /* -1 when not set, else 0 or 1 */
    oom_strlist select, ignore, exclude; /* exclude holds exclude and extend-exclude */
    oom_strlist extend_select;           /* extend-select: added to select or the defaults */
    oom_per_file_ignore *per_file_ignores;
    size_t per_file_ignore_count, per_file_ignore_cap;
} oom_config;

/* The nearest pyproject.toml with a [tool.oomlint] table, walking up from
 * `start` (a file or folder). NULL when there is none. */
char *oom_config_find(const char *start);
/* Returns 0, or -1 with "FILE:LINE:COL: reason" in err. A file without
 * [tool.oomlint] loads as an empty configuration. */
int oom_config_load(const char *path, oom_config *out, oom_buf *err);
/* The same from text in memory (`path` names it in errors); for tests and fuzzing. */
int oom_config_parse(const char *path, const char *text, size_t len, oom_config *out,
                             oom_buf *err);
/* Whether a per-file-ignores entry silences `code` in `file`. */
bool oom_config_ignores(const oom_config *c, const char *file, const char *code);
void oom_config_free(oom_config *c);

#endif

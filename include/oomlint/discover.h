/* discover: from the paths on the command line to the files to lint. */
#ifndef OOMLINT_DISCOVER_H
#define OOMLINT_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "oomlint/lang.h"
#include "oomlint/notebook.h"
#include "oomlint/util.h"

typedef struct {
    char *path;
    oom_lang lang;
    bool named;    /* given on the command line (always linted) */
    bool notebook; /* a Jupyter notebook (.ipynb): its code cells are Python */
} oom_target;

/* A path that could not be walked: a missing argument, an unreadable folder. */
typedef struct {
    char *path;
    char *reason;
    bool named; /* a command-line argument: the run fails (exit 2) */
} oom_walk_error;

typedef struct {
    oom_target *targets;
    size_t target_count, target_cap;
    oom_walk_error *errors;
    size_t error_count, error_cap;
} oom_discovery;

/* Folders never entered: VCS data, caches, virtual environments, installed
 * packages, Jupyter's .ipynb_checkpoints. */
bool oom_discover_is_skipped_dir(const char *name);

/* JSON files whose names say they configure training (config.json,
 * training_args.json, ds_config.json, ...). Other JSON found in a folder walk
 * (package.json, data sets, editor settings with comments) is no business of
 * ours: its syntax errors are not reported. */
bool oom_discover_is_config_json(const char *path);

/* Walks `paths` (files or folders; "-" is stdin) in order. Files in folders
 * are taken when they end in .py, .ipynb or .json and match no `exclude` glob
 * (matched against the base name, the path as given, and the path relative
 * to `anchor`, the project folder; NULL: none). Folder entries are sorted, so
 * the order does not depend on the file system. */
void oom_discover(const char *const *paths, size_t count, const oom_strlist *exclude,
                  const char *anchor, oom_discovery *out);
void oom_discovery_free(oom_discovery *d);

#endif

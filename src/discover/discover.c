/* discover: directory walking with the skips and excludes a user expects. */
#include "oomlint/discover.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bounds the walk even through odd mounts; real projects are far shallower. */
#define OOM_MAX_WALK_DEPTH 64

bool oom_discover_is_skipped_dir(const char *name)
{
    static const char *const skipped[] = {".git", ".hg", ".svn", "__pycache__", "node_modules",
                                          ".venv", "venv", "site-packages", ".tox", ".nox",
                                          ".mypy_cache", ".ruff_cache", ".pytest_cache", ".oomlint_cache",
                                          /* Jupyter's autosaved copies of the notebooks beside it */
                                          ".ipynb_checkpoints", NULL};
    for (size_t i = 0; skipped[i]; i++)
        if (strcmp(name, skipped[i]) == 0)
            return true;
    return false;
}

bool oom_discover_is_config_json(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strcmp(base, "config.json") == 0 || strcmp(base, "training_args.json") == 0 ||
           oom_str_ends_with(base, "_config.json") || oom_str_ends_with(base, "-config.json") ||
           oom_str_starts_with(base, "ds_config") || oom_str_starts_with(base, "deepspeed") ||
           oom_str_starts_with(base, "zero") || oom_str_ends_with(base, "_args.json");
}

typedef struct {
    dev_t dev;
    ino_t ino;
} dir_id;

typedef struct {
    const oom_strlist *exclude;
    char *root; /* real path of the folder being walked */
    char *anchor; /* real path that path globs are relative to (the project) */
    oom_discovery *out;
    dir_id *visited;
    size_t visited_len, visited_cap;
} walker;

static void add_target(oom_discovery *d, const char *path, oom_lang lang, bool named)
{
    oom_target t = {oom_xstrdup(path), lang, named, oom_notebook_is_path(path)};
    OOM_PUSH(d->targets, d->target_count, d->target_cap, t);
}

static void add_error(oom_discovery *d, const char *path, const char *reason, bool named)
{
    oom_walk_error e = {oom_xstrdup(path), oom_xstrdup(reason), named};
    OOM_PUSH(d->errors, d->error_count, d->error_cap, e);
}

/* The path relative to the project folder, so that a glob such as
 * "tests/x.py" in pyproject.toml means the project's tests folder wherever
 * oomlint runs. */
static char *relative_to_anchor(const walker *w, const char *path)
{
    if (!w->anchor)
        return NULL;
    char *real = realpath(path, NULL);
    if (!real)
        return NULL;
    size_t n = strlen(w->anchor);
    char *rel = NULL;
    if (strncmp(real, w->anchor, n) == 0 && real[n] == '/')
        rel = oom_xstrdup(real + n + 1);
    free(real);
    return rel;
}

static bool excluded(const walker *w, const char *path, const char *base)
{
    char *rel = w->exclude->len ? relative_to_anchor(w, path) : NULL;
    for (size_t i = 0; i < w->exclude->len; i++) {
        const char *g = w->exclude->items[i];
        if (fnmatch(g, base, 0) == 0 || fnmatch(g, path, 0) == 0 || (rel && fnmatch(g, rel, 0) == 0)) {
            free(rel);
            return true;
        }
        /* a glob ending in a slash ("build/") names a folder */
        size_t n = strlen(g);
        if (n > 1 && g[n - 1] == '/') {
            char *trimmed = oom_xstrndup(g, n - 1);
            bool hit = fnmatch(trimmed, base, 0) == 0 || fnmatch(trimmed, path, 0) == 0;
            free(trimmed);
            if (hit) {
                free(rel);
                return true;
            }
        }
    }
    free(rel);
    return false;
}

static bool is_virtualenv(const char *dir)
{
    oom_buf p;
    oom_buf_init(&p);
    oom_buf_printf(&p, "%s/pyvenv.cfg", dir);
    bool yes = access(p.data, F_OK) == 0;
    oom_buf_free(&p);
    return yes;
}

/* Entering the same folder twice (a symlink loop) is refused. */
static bool mark_visited(walker *w, const struct stat *st)
{
    for (size_t i = 0; i < w->visited_len; i++)
        if (w->visited[i].dev == st->st_dev && w->visited[i].ino == st->st_ino)
            return false;
    dir_id id = {st->st_dev, st->st_ino};
    OOM_PUSH(w->visited, w->visited_len, w->visited_cap, id);
    return true;
}

static bool escapes_root(const walker *w, const char *path)
{
    struct stat lst;
    if (!w->root || lstat(path, &lst) != 0 || !S_ISLNK(lst.st_mode))
        return false;
    char *real = realpath(path, NULL);
    if (!real)
        return true;
    size_t n = strlen(w->root);
    bool inside = strncmp(real, w->root, n) == 0 && (real[n] == '/' || real[n] == '\0' || n == 1);
    free(real);
    return !inside;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk_dir(walker *w, const char *dir, int depth);

static void walk_entry(walker *w, const char *dir, const char *name, int depth)
{
    oom_buf path;
    oom_buf_init(&path);
    if (strcmp(dir, ".") == 0)
        oom_buf_puts(&path, name);
    else
        oom_buf_printf(&path, "%s%s%s", dir, oom_str_ends_with(dir, "/") ? "" : "/", name);
    struct stat st;
    if (excluded(w, path.data, name)) {
        oom_buf_free(&path);
        return;
    }
    if (stat(path.data, &st) != 0) {
        /* a dangling symlink, or a file removed while we walk: nothing to lint */
        oom_buf_free(&path);
        return;
    }
    if (escapes_root(w, path.data)) {
        /* A pull request can add `data.py -> /etc/passwd`; findings quote source. */
        if (S_ISDIR(st.st_mode) || oom_lang_for_path(name) != OOM_LANG_NONE || oom_notebook_is_path(name))
            add_error(w->out, path.data, "symbolic link to outside the linted folder; not followed", false);
        oom_buf_free(&path);
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        if (!oom_discover_is_skipped_dir(name) && !is_virtualenv(path.data))
            walk_dir(w, path.data, depth + 1);
    } else if (S_ISREG(st.st_mode)) {
        oom_lang lang = oom_lang_for_path(name);
        if (lang == OOM_LANG_PYTHON && !oom_str_ends_with(name, ".pyi"))
            add_target(w->out, path.data, lang, false);
        else if (lang == OOM_LANG_JSON || lang == OOM_LANG_YAML)
            add_target(w->out, path.data, lang, false);
        else if (oom_notebook_is_path(name))
            add_target(w->out, path.data, OOM_LANG_PYTHON, false);
    }
    oom_buf_free(&path);
}

static void walk_dir(walker *w, const char *dir, int depth)
{
    struct stat st;
    if (depth > OOM_MAX_WALK_DEPTH || stat(dir, &st) != 0 || !mark_visited(w, &st))
        return;
    DIR *d = opendir(dir);
    if (!d) {
        add_error(w->out, dir, strerror(errno), depth == 0);
        return;
    }
    char **names = NULL;
    size_t len = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        OOM_PUSH(names, len, cap, oom_xstrdup(e->d_name));
    }
    closedir(d);
    if (len > 1)
        qsort(names, len, sizeof(char *), cmp_str);
    for (size_t i = 0; i < len; i++) {
        walk_entry(w, dir, names[i], depth);
        free(names[i]);
    }
    free(names);
}

/* A named file is linted whatever its name: as a notebook when it is one,
 * else by its extension, else as Python. */
static oom_lang lang_for_named(const char *path)
{
    oom_lang lang = oom_lang_for_path(path);
    return lang == OOM_LANG_NONE ? OOM_LANG_PYTHON : lang;
}

void oom_discover(const char *const *paths, size_t count, const oom_strlist *exclude,
                  const char *anchor, oom_discovery *out)
{
    memset(out, 0, sizeof(*out));
    walker w = {exclude, NULL, anchor ? realpath(anchor, NULL) : NULL, out, NULL, 0, 0};
    for (size_t i = 0; i < count; i++) {
        const char *p = paths[i];
        if (strcmp(p, "-") == 0) {
            add_target(out, p, OOM_LANG_PYTHON, true);
            continue;
        }
        struct stat st;
        if (stat(p, &st) != 0) {
            add_error(out, p, errno == ENOENT ? "no such file or directory" : strerror(errno), true);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            w.root = realpath(p, NULL);
            walk_dir(&w, p, 0);
            free(w.root);
            w.root = NULL;
        }
        else
            add_target(out, p, lang_for_named(p), true);
    }
    free(w.visited);
    free(w.anchor);
}

void oom_discovery_free(oom_discovery *d)
{
    for (size_t i = 0; i < d->target_count; i++)
        free(d->targets[i].path);
    for (size_t i = 0; i < d->error_count; i++) {
        free(d->errors[i].path);
        free(d->errors[i].reason);
    }
    free(d->targets);
    free(d->errors);
    memset(d, 0, sizeof(*d));
}

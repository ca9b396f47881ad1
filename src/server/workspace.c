/* server/workspace: the project's files and what the last lint of each
 * found: the file on disk, or the open buffer's text for an open document.
 * The project pass joins the facts of all of them, so a cross-file finding
 * sees the editor's unsaved text and every other file of the folder, and a
 * keystroke re-lints one file. Kept sorted by path. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static size_t lower_bound(const srv_workspace *w, const char *path, bool *found)
{
    size_t lo = 0, hi = w->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(w->files[mid].path, path);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

oom_run_file *srv_workspace_find(srv_workspace *w, const char *path)
{
    bool found;
    size_t i = lower_bound(w, path, &found);
    return found ? &w->files[i] : NULL;
}

void srv_workspace_put(srv_workspace *w, oom_run_file *r)
{
    bool found;
    size_t i = lower_bound(w, r->path, &found);
    if (found) {
        oom_run_file_free(&w->files[i]);
        w->files[i] = *r;
        return;
    }
    oom_grow((void **)&w->files, &w->cap, w->len + 1, sizeof *w->files);
    memmove(&w->files[i + 1], &w->files[i], (w->len - i) * sizeof *w->files);
    w->files[i] = *r;
    w->len++;
}

void srv_workspace_remove(srv_workspace *w, const char *path)
{
    bool found;
    size_t i = lower_bound(w, path, &found);
    if (!found)
        return;
    oom_run_file_free(&w->files[i]);
    memmove(&w->files[i], &w->files[i + 1], (w->len - i - 1) * sizeof *w->files);
    w->len--;
}

void srv_workspace_free(srv_workspace *w)
{
    for (size_t i = 0; i < w->len; i++)
        oom_run_file_free(&w->files[i]);
    free(w->files);
    memset(w, 0, sizeof *w);
}

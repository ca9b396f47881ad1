/* server/lint: when and what the server lints. An edit marks its document
 * dirty and due after the debounce; when it is due, the dirty documents are
 * linted from their buffers (the command line's pipeline, oomlint/run.h),
 * their results replace their files' in the workspace, and the project pass
 * runs over every file's facts. Then each open document's findings are
 * published if they changed. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oomlint/discover.h"
#include "internal.h"

int64_t srv_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool ensure_profile(srv_session *s)
{
    if (s->have_profile)
        return s->profile.compiled != NULL;
    oom_buf log;
    oom_buf_init(&log);
    int rc = srv_profile_load(&s->profile, s->root, &s->overrides, &log);
    s->have_profile = true;
    if (log.len)
        srv_log(s, rc == 0 ? LOG_WARNING : LOG_ERROR, "settings: %s", log.data);
    if (s->profile.config_path)
        srv_log(s, LOG_INFO, "settings from %s%s", s->profile.config_path,
                s->profile.have_config ? "" : " (unreadable)");
    oom_buf_free(&log);
    return rc == 0;
}

/* The job that lints a document's buffer; *owned is text to free after. */
static oom_job doc_job(srv_doc *doc, char **owned)
{
    *owned = NULL;
    bool notebook = doc->kind == DOC_NOTEBOOK || doc->kind == DOC_IPYNB_TEXT;
    oom_lang lang = doc->kind == DOC_JSON ? OOM_LANG_JSON : doc->kind == DOC_YAML ? OOM_LANG_YAML : OOM_LANG_PYTHON;
    /* as a file met in a folder walk: a JSON or YAML file that is no
     * training config (package.json, a CI workflow) gets no syntax errors */
    oom_target t = {doc->path, lang, false, notebook};
    oom_job job = oom_run_job_for(&t, NULL);
    if (doc->kind == DOC_NOTEBOOK) {
        *owned = srv_notebook_ipynb(doc, &job.text_len);
        job.text = *owned;
    } else {
        job.text = doc->text.data;
        job.text_len = doc->text.len;
    }
    return job;
}

static bool lintable(const srv_doc *doc)
{
    return doc->kind != DOC_OTHER;
}

void srv_scan_workspace(srv_session *s)
{
    if (s->ws.scanned || !s->root || !ensure_profile(s))
        return;
    s->ws.scanned = true;
    int64_t t0 = srv_now_ms();
    oom_discovery d;
    const char *root = s->root;
    oom_discover(&root, 1, &s->profile.exclude, s->profile.have_config ? s->profile.config.dir : s->root, &d);
    size_t n = d.target_count < SRV_MAX_WORKSPACE_FILES ? d.target_count : SRV_MAX_WORKSPACE_FILES;
    if (d.target_count > n)
        srv_log(s, LOG_WARNING, "the workspace has %zu files; the project checks read the first %zu", d.target_count, n);
    oom_job *jobs = oom_xcalloc(n ? n : 1, sizeof *jobs);
    oom_run_file *files = oom_xcalloc(n ? n : 1, sizeof *files);
    for (size_t i = 0; i < n; i++)
        jobs[i] = oom_run_job_for(&d.targets[i], NULL);
    oom_run_settings rs;
    srv_profile_settings(&s->profile, &rs, s->threads);
    oom_run_lint_files(&rs, jobs, n, files);
    for (size_t i = 0; i < n; i++)
        srv_workspace_put(&s->ws, &files[i]);
    free(files);
    free(jobs);
    oom_discovery_free(&d);
    srv_log(s, LOG_INFO, "workspace %s: %zu files read for the project checks in %lld ms", s->root, n,
            (long long)(srv_now_ms() - t0));
}

void srv_project_settings(srv_session *s, oom_run_settings *rs, oom_overlay *overlay)
{
    /* the open configs' text, for the checks that read a config a script names */
    oom_overlay_file *files = oom_xcalloc(s->docs.len ? s->docs.len : 1, sizeof *files);
    size_t n = 0;
    for (size_t i = 0; i < s->docs.len; i++) {
        const srv_doc *doc = s->docs.items[i];
        if (doc->kind == DOC_JSON || doc->kind == DOC_YAML)
            files[n++] = (oom_overlay_file){doc->path, doc->text.data, doc->text.len};
    }
    *overlay = (oom_overlay){files, n};
    srv_profile_settings(&s->profile, rs, s->threads);
    rs->overlay = overlay;
}

/* The project pass over the workspace, then each open document's findings. */
static void project_and_publish(srv_session *s)
{
    oom_diag_list out = {NULL, 0, 0};
    for (size_t i = 0; i < s->docs.len; i++) {
        oom_run_file *f = lintable(s->docs.items[i]) ? srv_workspace_find(&s->ws, s->docs.items[i]->path) : NULL;
        for (size_t k = 0; f && k < f->diags.len; k++)
            oom_diag_list_add_copy(&out, &f->diags.items[k]);
    }
    oom_run_settings rs;
    oom_overlay overlay;
    srv_project_settings(s, &rs, &overlay);
    oom_run_project(&rs, s->ws.files, s->ws.len, &out);
    free((void *)overlay.files);
    for (size_t i = 0; i < s->docs.len; i++) {
        srv_doc *doc = s->docs.items[i];
        if (!lintable(doc))
            continue;
        oom_diag_list_free(&doc->diags);
        for (size_t k = 0; k < out.len; k++)
            if (strcmp(out.items[k].path, doc->path) == 0)
                oom_diag_list_add_copy(&doc->diags, &out.items[k]);
        srv_publish(s, doc);
    }
    oom_diag_list_free(&out);
}

void srv_lint_due(srv_session *s, int64_t now_ms, bool force)
{
    size_t n = 0;
    for (size_t i = 0; i < s->docs.len; i++)
        n += s->docs.items[i]->dirty && (force || s->docs.items[i]->due_ms <= now_ms);
    if (n == 0)
        return;
    if (!ensure_profile(s)) {
        for (size_t i = 0; i < s->docs.len; i++)
            s->docs.items[i]->dirty = false; /* logged: nothing to lint with */
        return;
    }
    srv_scan_workspace(s);
    oom_job *jobs = oom_xcalloc(n, sizeof *jobs);
    char **owned = oom_xcalloc(n, sizeof *owned);
    oom_run_file *files = oom_xcalloc(n, sizeof *files);
    size_t k = 0;
    for (size_t i = 0; i < s->docs.len && k < n; i++) {
        srv_doc *doc = s->docs.items[i];
        if (!doc->dirty || (!force && doc->due_ms > now_ms))
            continue;
        doc->dirty = false;
        if (lintable(doc))
            jobs[k] = doc_job(doc, &owned[k]), k++;
    }
    oom_run_settings rs;
    srv_profile_settings(&s->profile, &rs, s->threads);
    oom_run_lint_files(&rs, jobs, k, files);
    for (size_t i = 0; i < k; i++) {
        srv_workspace_put(&s->ws, &files[i]);
        free(owned[i]);
    }
    free(files);
    free(owned);
    free(jobs);
    if (k)
        project_and_publish(s);
}

int srv_next_due(const srv_session *s, int64_t now_ms)
{
    int64_t best = -1;
    for (size_t i = 0; i < s->docs.len; i++) {
        const srv_doc *doc = s->docs.items[i];
        if (!doc->dirty)
            continue;
        int64_t wait = doc->due_ms > now_ms ? doc->due_ms - now_ms : 0;
        if (best < 0 || wait < best)
            best = wait;
    }
    return best > 60000 ? 60000 : (int)best;
}

void srv_relint_all(srv_session *s)
{
    if (s->have_profile)
        srv_profile_free(&s->profile);
    s->have_profile = false;
    srv_workspace_free(&s->ws);
    for (size_t i = 0; i < s->docs.len; i++)
        s->docs.items[i]->dirty = true;
    srv_lint_due(s, srv_now_ms(), true);
}

static bool is_pyproject(const char *path)
{
    const char *slash = strrchr(path, '/');
    return strcmp(slash ? slash + 1 : path, "pyproject.toml") == 0;
}

static bool under_root(const srv_session *s, const char *path)
{
    size_t n = s->root ? strlen(s->root) : 0;
    return n && strncmp(path, s->root, n) == 0 && (path[n] == '/' || s->root[n - 1] == '/');
}

void srv_file_changed(srv_session *s, const char *path, bool deleted)
{
    if (is_pyproject(path)) {
        srv_log(s, LOG_INFO, "%s changed: settings read again", path);
        srv_relint_all(s);
        return;
    }
    for (size_t i = 0; i < s->docs.len; i++)
        if (strcmp(s->docs.items[i]->path, path) == 0)
            return; /* the open buffer is what the editor shows, not the disk */
    if (!s->have_profile || !s->ws.scanned)
        return; /* the first scan reads it */
    srv_workspace_remove(&s->ws, path);
    if (!deleted && under_root(s, path)) {
        oom_discovery d;
        oom_discover(&path, 1, &s->profile.exclude, s->profile.have_config ? s->profile.config.dir : s->root, &d);
        if (d.target_count == 1) {
            d.targets[0].named = false; /* as the folder walk met it */
            oom_job job = oom_run_job_for(&d.targets[0], NULL);
            oom_run_file f;
            oom_run_settings rs;
            srv_profile_settings(&s->profile, &rs, 1);
            oom_run_lint_files(&rs, &job, 1, &f);
            srv_workspace_put(&s->ws, &f);
        }
        oom_discovery_free(&d);
    }
    project_and_publish(s);
}

/* A closed document's file is read from disk again (or dropped), and the
 * others published again: their cross-file findings may have changed. */
void srv_doc_closed(srv_session *s, const char *path)
{
    if (!s->have_profile)
        return;
    srv_workspace_remove(&s->ws, path);
    if (s->ws.scanned && access(path, R_OK) == 0)
        srv_file_changed(s, path, false);
    else
        project_and_publish(s);
}

/* engine/batch: many files on many threads. Threads take the next file from a
 * shared counter, so a few large files do not leave a thread idle; each
 * thread keeps its findings apart and they are merged and sorted at the end,
 * so the report does not depend on scheduling. A file's tree is freed as soon
 * as its findings are made, so memory stays flat as the file count grows. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/engine.h"

typedef struct {
    const oom_compiled *compiled;
    const oom_job *jobs;
    size_t count;
    atomic_size_t next;
} shared_work;

typedef struct {
    shared_work *work;
    oom_diag_list found;
} worker;

static void drop_syntax_errors(oom_diag_list *l)
{
    unsigned char *drop = oom_xcalloc(l->len ? l->len : 1, 1);
    for (size_t i = 0; i < l->len; i++)
        drop[i] = strcmp(l->items[i].code, "OOM001") == 0;
    oom_diag_list_remove_if_marked(l, drop);
    free(drop);
}

/* Reads a job's file (a notebook as its code cells); a file that cannot be
 * linted gets its finding here. */
static bool read_job(const oom_compiled *c, const oom_job *job, oom_source *src, oom_diag_list *out)
{
    if (job->notebook) {
        oom_notebook_error err;
        oom_source_status st =
            job->text ? oom_source_notebook_from_memory(job->display, job->text, job->text_len, src, &err)
                      : oom_source_read_notebook(job->path, job->display, src, &err);
        if (st != OOM_SOURCE_OK)
            oom_report_unreadable_notebook(c, job->display, st, &err, out);
        return st == OOM_SOURCE_OK;
    }
    char why[512];
    oom_source_status st = job->text ? oom_source_from_memory(job->display, job->text, job->text_len, src, why, sizeof why)
                                     : oom_source_read(job->path, job->display, src, why, sizeof why);
    if (st == OOM_SOURCE_OK)
        return true;
    oom_report_unreadable(c, job->display, why, out);
    return false;
}

/* tree-sitter-yaml's scanner keeps the row in 16 bits: past 32768 lines its
 * positions wrap and a valid file parses as a syntax error. Such a file is
 * data, not a training config; a named one is told why it is not linted. */
#define OOM_YAML_MAX_LINES 32768

static bool yaml_within_line_limit(const oom_compiled *c, const oom_job *job, const oom_source *src,
                                   oom_diag_list *out)
{
    size_t lines = 0;
    for (const char *p = src->text, *end = src->text + src->len; p < end && lines <= OOM_YAML_MAX_LINES; p++) {
        p = memchr(p, '\n', (size_t)(end - p));
        if (!p)
            break;
        lines++;
    }
    if (lines <= OOM_YAML_MAX_LINES)
        return true;
    if (job->report_syntax)
        oom_report_unreadable(c, job->display, "YAML file of more than 32768 lines, more than the YAML parser can "
                                               "place; not linted", out);
    return false;
}

static void lint_one(oom_linter *linter, const oom_compiled *c, const oom_job *job,
                     oom_diag_list *out)
{
    oom_source src;
    if (!read_job(c, job, &src, out) ||
        (job->lang == OOM_LANG_YAML && !yaml_within_line_limit(c, job, &src, out))) {
        oom_source_free(&src);
        return;
    }
    if (job->report_syntax) {
        oom_linter_run_then(linter, &src, job->lang, out, job->on_model, job->on_model_ctx);
    } else {
        oom_diag_list found = {NULL, 0, 0};
        oom_linter_run_then(linter, &src, job->lang, &found, job->on_model, job->on_model_ctx);
        drop_syntax_errors(&found);
        oom_diag_list_move(out, &found);
    }
    oom_source_free(&src);
}

static void *work_loop(void *arg)
{
    worker *w = arg;
    oom_linter *linter = oom_linter_new(w->work->compiled);
    for (;;) {
        size_t i = atomic_fetch_add(&w->work->next, 1);
        if (i >= w->work->count)
            break;
        lint_one(linter, w->work->compiled, &w->work->jobs[i], &w->found);
    }
    oom_linter_free(linter);
    return NULL;
}

void oom_lint_jobs(const oom_compiled *c, const oom_job *jobs, size_t count, int threads,
                   oom_diag_list *out)
{
    if (threads < 1)
        threads = 1;
    if ((size_t)threads > count)
        threads = count ? (int)count : 1;
    shared_work work = {c, jobs, count, 0};
    worker *workers = oom_xcalloc((size_t)threads, sizeof(worker));
    pthread_t *ids = oom_xcalloc((size_t)threads, sizeof(pthread_t));
    int started = 1;
    for (int t = 0; t < threads; t++)
        workers[t].work = &work;
    /* Thread 0 is this thread; a failed pthread_create just means fewer helpers. */
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&ids[t], NULL, work_loop, &workers[t]) != 0)
            break;
        started++;
    }
    work_loop(&workers[0]);
    for (int t = 1; t < started; t++)
        pthread_join(ids[t], NULL);
    for (int t = 0; t < threads; t++)
        oom_diag_list_move(out, &workers[t].found);
    oom_diag_list_sort(out);
    free(workers);
    free(ids);
}

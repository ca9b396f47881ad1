/* engine/batch: many files on many threads. Threads take the next file from a
 * shared queue, so a few large files do not leave a thread idle; each thread
 * keeps its findings apart and they are merged and sorted at the end, so the
 * report does not depend on scheduling. A file's tree is freed as soon as its
 * findings are made, so memory stays flat as the file count grows.
 *
 * A file's tree, layout and model take some sixty bytes per byte of source,
 * so the peak is set by the largest files that run at the same time. Large
 * files (LARGE_FILE_BYTES and up) are therefore linted one at a time, while
 * the other threads go on with the small ones: the peak is one large file
 * and a few small ones, whatever the order of the paths. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oomlint/engine.h"

#define LARGE_FILE_BYTES (128 * 1024)

typedef struct {
    const oom_compiled *compiled;
    const oom_job *jobs;
    size_t *small, *large; /* job indices, each queue in the jobs' order */
    size_t small_count, large_count;
    pthread_mutex_t lock; /* guards what follows */
    pthread_cond_t large_done;
    size_t next_small, next_large;
    bool large_running;
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
    if (job->recall && job->recall(job->on_model_ctx, &src, out)) {
        oom_source_free(&src);
        return;
    }
    oom_diag_list found = {NULL, 0, 0};
    oom_linter_run_then(linter, &src, job->lang, &found, job->on_model, job->on_model_ctx);
    if (!job->report_syntax)
        drop_syntax_errors(&found);
    if (job->remember)
        job->remember(job->on_model_ctx, &src, &found);
    oom_diag_list_move(out, &found);
    oom_source_free(&src);
}

static size_t job_bytes(const oom_job *job)
{
    if (job->text)
        return job->text_len;
    struct stat st;
    return strcmp(job->path, "-") != 0 && stat(job->path, &st) == 0 ? (size_t)st.st_size : 0;
}

/* The next job for a worker: a large one when none is running, else a small
 * one; with no small one left, it waits for the large one to finish. SIZE_MAX
 * when all are taken. *large says which kind it took. */
static size_t take_job(shared_work *w, bool *large)
{
    pthread_mutex_lock(&w->lock);
    size_t i = SIZE_MAX;
    for (;;) {
        bool large_left = w->next_large < w->large_count;
        if (large_left && !w->large_running) {
            i = w->large[w->next_large++];
            w->large_running = *large = true;
            break;
        }
        if (w->next_small < w->small_count) {
            i = w->small[w->next_small++];
            *large = false;
            break;
        }
        if (!large_left)
            break;
        pthread_cond_wait(&w->large_done, &w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return i;
}

static void large_finished(shared_work *w)
{
    pthread_mutex_lock(&w->lock);
    w->large_running = false;
    pthread_cond_broadcast(&w->large_done);
    pthread_mutex_unlock(&w->lock);
}

static void *work_loop(void *arg)
{
    worker *w = arg;
    oom_linter *linter = oom_linter_new(w->work->compiled);
    for (;;) {
        bool large = false;
        size_t i = take_job(w->work, &large);
        if (i == SIZE_MAX)
            break;
        lint_one(linter, w->work->compiled, &w->work->jobs[i], &w->found);
        if (large)
            large_finished(w->work);
    }
    oom_linter_free(linter);
    return NULL;
}

/* The jobs split by size into the two queues. */
static void split_by_size(shared_work *w, size_t count)
{
    w->small = oom_xcalloc(count ? count : 1, sizeof(size_t));
    w->large = oom_xcalloc(count ? count : 1, sizeof(size_t));
    for (size_t i = 0; i < count; i++) {
        if (job_bytes(&w->jobs[i]) >= LARGE_FILE_BYTES)
            w->large[w->large_count++] = i;
        else
            w->small[w->small_count++] = i;
    }
}

void oom_lint_jobs(const oom_compiled *c, const oom_job *jobs, size_t count, int threads,
                   oom_diag_list *out)
{
    if (threads < 1)
        threads = 1;
    if ((size_t)threads > count)
        threads = count ? (int)count : 1;
    shared_work work;
    memset(&work, 0, sizeof work);
    work.compiled = c, work.jobs = jobs;
    pthread_mutex_init(&work.lock, NULL);
    pthread_cond_init(&work.large_done, NULL);
    split_by_size(&work, count);
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
    free(work.small);
    free(work.large);
    pthread_cond_destroy(&work.large_done);
    pthread_mutex_destroy(&work.lock);
}

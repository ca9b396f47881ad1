/* oomlint/run.h: a whole run as a library function. The CLI (and any other
 * front end: a test, an editor integration) decides the settings and the
 * targets; oom_run lints them on worker threads, takes each file's facts
 * while its tree and model are at hand, joins them in the project pass and
 * returns the findings, sorted, per-file-ignores applied. Nothing here prints
 * or decides an exit code. */
#ifndef OOMLINT_RUN_H
#define OOMLINT_RUN_H

#include <stddef.h>

#include "oomlint/config.h"
#include "oomlint/diag.h"
#include "oomlint/discover.h"
#include "oomlint/engine.h"
#include "oomlint/facts.h"
#include "oomlint/rules.h"
#include "oomlint/select.h"

typedef struct {
    const oom_rule_list *rules;
    const oom_selection *selection;   /* the codes that run, over the rules' defaults */
    const oom_compiled *compiled;     /* those rules compiled, the run context set */
    const oom_run_context *context;   /* knowledge base, target GPU, GPU count */
    const oom_config *config; /* per-file-ignores; NULL: none */
    int threads;                      /* worker threads, at least 1 */
    /* text in place of files on disk for the project checks (the language
     * server's open buffers; the jobs carry their own text); may be NULL */
    const oom_overlay *overlay;
    /* per-file results kept between runs (oomlint/cache.h), opened for
     * these settings; NULL: every file is linted */
    struct oom_cache *cache;
} oom_run_settings;

/* The job for one discovered target: its language, and whether its syntax is
 * ours to report (a JSON or YAML file met in a folder walk that is not a
 * training config is read for facts, its syntax left alone). `stdin_name`
 * names standard input ("-") where the caller was told one; may be NULL. */
oom_job oom_run_job_for(const oom_target *t, const char *stdin_name);

/* Lints `jobs` (their on_model hooks are the run's own: whatever a caller set
 * is replaced), runs the project-level checks over the files' facts, and
 * appends every finding to `out`, sorted. */
void oom_run(const oom_run_settings *s, oom_job *jobs, size_t count, oom_diag_list *out);

/* A run kept file by file, for a front end that holds the project's files
 * and re-lints only the one that changed (the language server): each file's
 * own findings and the facts the project pass needs of it, kept until the
 * file changes; then the project pass over every file's facts. Together
 * they make what oom_run makes. */
typedef struct {
    char *path;           /* the job's path */
    oom_diag_list diags;  /* the file's own findings, before the project pass */
    oom_file_facts facts; /* what the project pass needs of it */
} oom_run_file;

/* Lints `jobs` as oom_run does and fills out[0..count) (jobs[i] into
 * out[i], findings matched to their job by its display name); no project
 * pass. */
void oom_run_lint_files(const oom_run_settings *s, oom_job *jobs, size_t count, oom_run_file *out);
/* The project pass over the files' facts (left as they were: the pass
 * works on copies). `out` holds the file findings it is to judge (copies
 * of some files' diags: the pass may drop those that another file
 * overturns); the project's own findings are appended, then all sorted and
 * per-file-ignores applied. */
void oom_run_project(const oom_run_settings *s, const oom_run_file *files, size_t count, oom_diag_list *out);
void oom_run_file_free(oom_run_file *f);

#endif

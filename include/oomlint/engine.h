/* engine: runs the rules over one file. The rules of a language are read
 * into one combined query (oomlint/query.h), matched in one pass over the
 * file's laid-out tree; each pattern index maps back to its rule. */
#ifndef OOMLINT_ENGINE_H
#define OOMLINT_ENGINE_H

#include <stdbool.h>

#include "oomlint/diag.h"
#include "oomlint/model.h"
#include "oomlint/kb.h"
#include "oomlint/rules.h"
#include "oomlint/select.h"
#include "oomlint/source.h"
#include "oomlint/yamlmodel.h"

/* What a run knows beyond the file: the target hardware and the knowledge
 * base. Rules about hardware stay silent while no GPU is known. */
typedef struct {
    const oom_kb *kb;      /* may be NULL */
    const oom_gpu *gpu;    /* the target GPU, or NULL */
    int num_gpus;          /* 0: not said */
    bool eager_module_loading; /* the run's PyTorch predates lazy CUDA loading */
    /* the run's PyTorch is before 2.4, whose torch.cuda.is_bf16_supported()
     * checked the GPU's compute capability; from 2.4 it answers whether bf16
     * can be emulated (including_emulation=True), which a V100 or T4 can */
    bool bf16_check_is_capability;
} oom_run_context;

/* Compiled, read-only after creation: may be shared by threads. */
typedef struct oom_compiled oom_compiled;

/* Compiles the selected rules of `rules` (which must outlive the result). On
 * an error in a rule's query, returns NULL with "FILE:LINE:COL: reason". */
oom_compiled *oom_compiled_new(const oom_rule_list *rules, const oom_selection *selection,
                               oom_buf *err);
void oom_compiled_free(oom_compiled *c);
/* Set before linting starts (the context is copied). */
void oom_compiled_set_run(oom_compiled *c, const oom_run_context *run);
bool oom_compiled_rule_enabled(const oom_compiled *c, const char *code);

/* Per-thread state: parser, node array, matcher, scratch buffers. */
typedef struct oom_linter oom_linter;

oom_linter *oom_linter_new(const oom_compiled *c);
void oom_linter_free(oom_linter *l);

/* Lints one source of the given language and appends findings (after
 * suppression comments are applied) to `out`. */
void oom_linter_run(oom_linter *l, oom_source *src, oom_lang lang, oom_diag_list *out);
/* Called once a Python file (or a YAML config) is linted, on the thread that
 * linted it, with its model (`model` for Python, `yaml` for YAML; the other
 * is NULL) and tree: how the project pass takes what it needs of the file
 * (oomlint/facts.h) without reading or parsing it again. `pending` holds the
 * findings that wait on the project (oom_diag.needs_project), which the
 * callback may move out; what it leaves is freed. Without a callback (no
 * project pass) they are dropped: a finding that cannot be confirmed is not
 * reported. */
typedef void (*oom_on_model_fn)(void *ctx, oom_source *src, oom_pymodel *model, const oom_yamlmodel *yaml,
                                TSNode root, oom_diag_list *pending);

/* oom_linter_run, then `on_model` (may be NULL) for a Python or YAML file. */
void oom_linter_run_then(oom_linter *l, oom_source *src, oom_lang lang, oom_diag_list *out,
                         oom_on_model_fn on_model, void *ctx);

/* Appends the finding for a file that could not be read (OOM002). */
void oom_report_unreadable(const oom_compiled *c, const char *path, const char *reason,
                           oom_diag_list *out);

/* Appends the finding for a notebook that could not be read as one (a
 * status of oom_source_read_notebook): OOM001 where its JSON breaks, OOM002
 * (at the place in the file, when known) for JSON that is not a notebook or
 * a file that could not be read; nothing for another language's notebook. */
void oom_report_unreadable_notebook(const oom_compiled *c, const char *path, oom_source_status st,
                                    const oom_notebook_error *err, oom_diag_list *out);

/* One file to lint: a path ("-" for stdin), the name to report, its language,
 * whether syntax errors in it are ours to report, what to hand the project
 * pass once it is linted (on_model may be NULL), and whether it is a Jupyter
 * notebook (read with oom_source_read_notebook; lang is then Python). */
typedef struct {
    const char *path;
    const char *display;
    oom_lang lang;
    bool report_syntax;
    oom_on_model_fn on_model; /* may be NULL */
    void *on_model_ctx;
    bool notebook;
    /* the file's text when the caller holds it already (stdin read once
     * for --fix); NULL: read `path` */
    const char *text;
    size_t text_len;
    /* A store of results in front of the lint (the run's on-disk cache,
     * oomlint/cache.h); NULL: none. Once the text is read, `recall` may
     * answer for the file: it appends the file's findings to `out`, gives
     * what on_model would have given, and returns true, and the file is not
     * parsed. Otherwise the file is linted and `remember` is handed its
     * findings, after on_model. Both are called with on_model_ctx, on the
     * worker thread. */
    bool (*recall)(void *ctx, const oom_source *src, oom_diag_list *out);
    void (*remember)(void *ctx, const oom_source *src, const oom_diag_list *found);
} oom_job;

/* Lints every job on `threads` threads (each with its own parser and
 * matcher; the compiled rules are shared read-only) and appends the
 * findings to `out`, sorted by path and position whatever the thread count.
 * A file that cannot be read gets an OOM002 finding. */
void oom_lint_jobs(const oom_compiled *c, const oom_job *jobs, size_t count, int threads,
                   oom_diag_list *out);

/* The semantic predicates rules can use (#oom-...?), for `oomlint
 * predicates`: the i-th one's name (without `#` and `?`), its argument
 * counts, whether it asks a JSON file's model rather than Python's, and
 * what it holds for. Listed from the table the engine runs, so the list
 * cannot drift from the code. */
size_t oom_semantic_predicate_count(void);
const char *oom_semantic_predicate_at(size_t i, int *min_args, int *max_args, const char **only, const char **doc);

#endif

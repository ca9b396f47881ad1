/* cli/fixing: --fix, --fix-only and --diff over the files a check linted.
 * The check's findings say which files have something to fix; each of
 * those is then fixed on its own (oomlint/fixer.h), and the command line
 * reports what is left by linting again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/cli.h"
#include "oomlint/fixer.h"
#include "oomlint/text.h"

static void print_problem(const char *level, const char *msg)
{
    oom_buf out;
    oom_buf_init(&out);
    oom_buf_printf(&out, "oomlint: %s: ", level);
    oom_text_append_display(&out, msg, strlen(msg), 0);
    fprintf(stderr, "%s\n", out.data);
    oom_buf_free(&out);
}

static bool code_fixable(const oom_fix_settings *fs, const char *code)
{
    return oom_selection_enabled(&fs->fixable, code, true);
}

void oom_cli_mark_fixable(const oom_fix_settings *fs, oom_diag_list *diags)
{
    for (size_t i = 0; i < diags->len; i++) {
        oom_diag *d = &diags->items[i];
        d->fixable = OOM_FIXABLE_NO;
        if (d->fix && !code_fixable(fs, d->code)) {
            oom_fix_free(d->fix);
            d->fix = NULL;
        }
        if (oom_fix_applies(d->fix, fs->max))
            d->fixable = OOM_FIXABLE_NOW;
        else if (oom_fix_applies(d->fix, OOM_FIX_UNSAFE))
            d->fixable = OOM_FIXABLE_WITH_UNSAFE;
    }
}

/* ---- which findings of a file may be fixed ------------------------------------------ */

typedef struct {
    const oom_fix_settings *fs;
    const char *display;
    const oom_diag_list *reported;
    /* a notebook's map: the fixer's findings are on its module, the check's
     * in its cells; NULL for a file */
    const oom_notebook *notebook;
} allow_ctx;

/* The check reported this finding, where it is. */
static bool was_reported(const allow_ctx *a, const oom_diag *d)
{
    uint32_t cell = 0, row = d->start_row, file_row;
    if (a->notebook && !oom_notebook_locate(a->notebook, d->start_row, &cell, &row, &file_row))
        return false;
    for (size_t i = 0; i < a->reported->len; i++) {
        const oom_diag *r = &a->reported->items[i];
        if (r->cell == cell && r->start_row == row && r->start_col == d->start_col && strcmp(r->code, d->code) == 0 &&
            strcmp(r->path, a->display) == 0)
            return true;
    }
    return false;
}

/* A fixable code, not ignored for this file; and a finding that holds only
 * while the project's callers leave autograd on (OOM301 in a function every
 * caller runs under no_grad), or while the imported class's forward does,
 * is fixed only as the whole-project check reported it, which the file
 * alone cannot tell. */
static bool allow_fix(void *ctx, const oom_diag *d)
{
    const allow_ctx *a = ctx;
    if (!code_fixable(a->fs, d->code))
        return false;
    if (a->fs->config && oom_config_ignores(a->fs->config, a->display, d->code))
        return false;
    return (!d->needs_grad_in && !d->unless_project) || was_reported(a, d);
}

/* ---- one file ------------------------------------------------------------------------ */

static bool has_fix_to_apply(const oom_fix_settings *fs, const oom_diag_list *reported, const char *display)
{
    for (size_t i = 0; i < reported->len; i++)
        if (strcmp(reported->items[i].path, display) == 0 && oom_fix_applies(reported->items[i].fix, fs->max) &&
            code_fixable(fs, reported->items[i].code))
            return true;
    return false;
}

static void tally(oom_fix_outcome_set *out, const char *display, const oom_fix_result *r)
{
    for (size_t i = 0; i < r->applied_count; i++)
        oom_fix_summary_add(&out->summary, display, r->applied[i].code, r->applied[i].name);
    out->summary.files++;
    out->changed = true;
}

/* Says why a file was not fixed, or fixed only in part. */
static void report_result(const char *display, const oom_fix_result *r)
{
    oom_buf msg;
    oom_buf_init(&msg);
    if (r->outcome == OOM_FIX_HAS_SYNTAX_ERROR)
        oom_buf_printf(&msg, "%s: not fixed: it has a syntax error (OOM001); fix that first", display);
    else if (r->outcome == OOM_FIX_BREAKS_SYNTAX)
        oom_buf_printf(&msg,
                       "%s: not fixed: the fixes would leave a syntax error (%s); the file is left as it was. "
                       "Please report this as an oomlint bug",
                       display, r->detail);
    else if (r->outcome == OOM_FIX_NOT_WRITTEN_BACK)
        oom_buf_printf(&msg, "%s: not fixed: %s; the notebook is left as it was", display, r->detail);
    else if (!r->converged)
        oom_buf_printf(&msg, "%s: fixes still applied after %d rounds; run --fix again to continue", display,
                       OOM_FIX_MAX_ROUNDS);
    if (msg.len)
        print_problem("warning", msg.data);
    oom_buf_free(&msg);
}

/* Fixes a file's text (without its BOM): a notebook's cells, or the code. */
static void fix_any(oom_linter *linter, const oom_job *job, const char *text, size_t len, allow_ctx *actx,
                    const oom_fix_policy *policy, oom_fix_result *r)
{
    if (!job->notebook) {
        oom_fix_text(linter, job->display, text, len, job->lang, policy, r);
        return;
    }
    oom_notebook *nb = NULL;
    oom_notebook_error err;
    oom_notebook_parse(text, len, &nb, &err);
    actx->notebook = nb;
    oom_fix_notebook(linter, job->display, text, len, policy, r);
    actx->notebook = NULL;
    oom_notebook_free(nb);
}

static void fix_stdin(const oom_fix_settings *fs, oom_linter *linter, const oom_job *job, allow_ctx *actx,
                      const oom_fix_policy *policy, oom_buf *diff_out, oom_fix_outcome_set *out)
{
    /* a UTF-8 BOM is not part of the text the linter saw, and goes back in front */
    size_t bom = job->text_len >= 3 && memcmp(job->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    oom_fix_result r;
    fix_any(linter, job, job->text + bom, job->text_len - bom, actx, policy, &r);
    report_result(job->display, &r);
    oom_buf text;
    oom_buf_init(&text);
    oom_buf_append(&text, job->text, bom);
    if (r.outcome == OOM_FIX_CHANGED) {
        oom_buf_append(&text, r.text, r.len);
        tally(out, job->display, &r);
        if (fs->diff)
            oom_report_unified_diff(job->display, job->text + bom, job->text_len - bom, r.text, r.len, diff_out);
    } else {
        oom_buf_append(&text, job->text + bom, job->text_len - bom);
    }
    out->stdin_len = text.len;
    out->stdin_text = oom_buf_take(&text);
    oom_fix_result_free(&r);
}

/* A file read and fixed, waiting to be written. */
typedef struct {
    const oom_job *job;
    oom_fix_file file;
    oom_fix_result result;
} pending_file;

/* Reads and fixes one file in memory; false when it cannot be read. */
static bool fix_file(oom_linter *linter, const oom_job *job, allow_ctx *actx, const oom_fix_policy *policy,
                     pending_file *out)
{
    oom_buf err;
    oom_buf_init(&err);
    out->job = job;
    bool ok = oom_fix_file_read(job->path, job->notebook, &out->file, &err) == 0;
    if (ok) {
        fix_any(linter, job, out->file.bytes + out->file.bom, out->file.len - out->file.bom, actx, policy,
                &out->result);
        report_result(job->display, &out->result);
    } else {
        print_problem("warning", err.data);
    }
    oom_buf_free(&err);
    return ok;
}

/* Writes a fixed file, or with --diff shows what would change. */
static void finish_file(const oom_fix_settings *fs, pending_file *p, oom_buf *diff_out, oom_fix_outcome_set *out)
{
    const oom_fix_result *r = &p->result;
    if (r->outcome != OOM_FIX_CHANGED)
        return;
    const char *before = p->file.bytes + p->file.bom;
    size_t before_len = p->file.len - p->file.bom;
    if (fs->diff) {
        oom_report_unified_diff(p->job->display, before, before_len, r->text, r->len, diff_out);
        tally(out, p->job->display, r);
        return;
    }
    oom_buf err;
    oom_buf_init(&err);
    oom_fix_write_status st = oom_fix_file_write(&p->file, r->text, r->len, &err);
    if (st == OOM_FIX_WRITTEN)
        tally(out, p->job->display, r);
    else
        print_problem(st == OOM_FIX_WRITE_FAILED ? "error" : "warning", err.data);
    out->write_failed |= st == OOM_FIX_WRITE_FAILED;
    oom_buf_free(&err);
}

/* Every file is read and fixed before any is written: each write then
 * checks that its file still holds what was read, whatever changed it
 * meanwhile (an editor, another run, or this one through another name of
 * the same file). */
void oom_cli_fix_files(const oom_fix_settings *fs, const oom_compiled *compiled, const oom_job *jobs, size_t count,
                       const oom_diag_list *reported, oom_buf *diff_out, oom_fix_outcome_set *out)
{
    memset(out, 0, sizeof *out);
    oom_linter *linter = oom_linter_new(compiled);
    pending_file *pending = oom_xcalloc(count ? count : 1, sizeof *pending);
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        const oom_job *job = &jobs[i];
        allow_ctx actx = {fs, job->display, reported, NULL};
        oom_fix_policy policy = {fs->max, allow_fix, &actx};
        if (job->text)
            fix_stdin(fs, linter, job, &actx, &policy, diff_out, out);
        else if (has_fix_to_apply(fs, reported, job->display) && fix_file(linter, job, &actx, &policy, &pending[n]))
            n++;
    }
    oom_linter_free(linter);
    for (size_t i = 0; i < n; i++) {
        finish_file(fs, &pending[i], diff_out, out);
        oom_fix_result_free(&pending[i].result);
        oom_fix_file_free(&pending[i].file);
    }
    free(pending);
}

void oom_fix_outcome_set_free(oom_fix_outcome_set *o)
{
    oom_fix_summary_free(&o->summary);
    free(o->stdin_text);
    memset(o, 0, sizeof *o);
}

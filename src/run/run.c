/* run: one run of the linter over its targets, as a library function. The
 * worker threads lint each file and, while its tree and model are at hand,
 * take what the project-level checks need of it (project/callers.c,
 * project/deepspeed.c, the estimate's inputs); the project pass then joins
 * those facts once. No file is read or parsed twice. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/cache.h"
#include "oomlint/estimate.h"
#include "oomlint/facts.h"
#include "oomlint/notebook.h"
#include "oomlint/project.h"
#include "oomlint/run.h"
#include "oomlint/source.h"

oom_job oom_run_job_for(const oom_target *t, const char *stdin_name)
{
    oom_job job = {.path = t->path, .display = t->path, .lang = t->lang, .report_syntax = true,
                   .notebook = t->notebook};
    if (strcmp(t->path, "-") == 0) {
        job.display = stdin_name ? stdin_name : "<stdin>";
        if (stdin_name) {
            oom_lang by_name = oom_lang_for_path(stdin_name);
            job.lang = by_name == OOM_LANG_NONE ? OOM_LANG_PYTHON : by_name;
            job.notebook = oom_notebook_is_path(stdin_name);
        }
    }
    /* JSON found in a folder walk that is not a training config (package.json,
     * data sets, editor settings with comments): its syntax is not our business. */
    if (job.lang == OOM_LANG_JSON && !t->named && !oom_discover_is_config_json(t->path))
        job.report_syntax = false;
    /* YAML found in a folder walk is mostly not ours (CI workflows,
     * docker-compose, Kubernetes, Helm templates that are not YAML until
     * rendered): it is read for training configs, its syntax left alone. */
    if (job.lang == OOM_LANG_YAML && !t->named)
        job.report_syntax = false;
    return job;
}

/* What a worker takes of each file for the project pass. */
typedef struct {
    oom_file_facts *facts;
    const oom_kb *kb;
    unsigned needs; /* OOM_FACTS_*: what the project checks that run will ask */
    const char *path;
    /* the run's cache (NULL: none), how it knows this file, and what else
     * linting it read (the entry holds only while those read the same) */
    oom_cache *cache;
    oom_cache_file id;
    oom_readlog reads;
} facts_ctx;

/* A YAML training config's facts: the DeepSpeed config it names, and the
 * estimate's inputs it states. */
static void take_yaml_facts(facts_ctx *f, oom_source *src, const oom_yamlmodel *yaml)
{
    if (f->needs & OOM_FACTS_DEEPSPEED_LINKS)
        f->facts->deepspeed = oom_project_deepspeed_links_take_yaml(f->path, yaml);
    if ((f->needs & OOM_FACTS_ESTIMATE_INPUTS) && oom_yamlmodel_model_id(yaml)) {
        f->facts->inputs = oom_xcalloc(1, sizeof *f->facts->inputs);
        oom_script_inputs_from_yaml(f->path, src, yaml, f->kb, f->facts->inputs);
        if (!f->facts->inputs->model_known) { /* nothing the capacity check sizes */
            free(f->facts->inputs);
            f->facts->inputs = NULL;
        }
    }
}

static void take_facts(void *ctx, oom_source *src, oom_pymodel *model, const oom_yamlmodel *yaml, TSNode root,
                       oom_diag_list *pending)
{
    facts_ctx *f = ctx;
    /* a finding the project pass confirms is fixed by nobody: --fix fixes a
     * file on its own, which cannot tell that another file accumulates */
    for (size_t i = 0; i < pending->len; i++) {
        oom_fix_free(pending->items[i].fix);
        pending->items[i].fix = NULL;
    }
    oom_diag_list_move(&f->facts->pending, pending);
    if (yaml) {
        take_yaml_facts(f, src, yaml);
        return;
    }
    if (f->needs & OOM_FACTS_CALLS)
        oom_file_facts_take_calls(f->facts, model);
    if (f->needs & OOM_FACTS_DEEPSPEED_LINKS)
        f->facts->deepspeed = oom_project_deepspeed_links_take(f->path, src, model, root);
    /* the capacity check sizes training jobs, and inference scripts that
     * load a Hugging Face model (from_pretrained, a pipeline) and run it
     * (not a weight converter): other files are not read for them */
    bool trains = oom_pymodel_file_trains(model);
    bool infers = !trains &&
                  (oom_pymodel_file_calls(model, "from_pretrained") || oom_pymodel_file_calls(model, "pipeline")) &&
                  !oom_pymodel_only_converts_weights(model);
    if ((f->needs & OOM_FACTS_ESTIMATE_INPUTS) && (trains || infers)) {
        f->facts->inputs = oom_xcalloc(1, sizeof *f->facts->inputs);
        oom_script_inputs_from_model(f->path, src, model, root, f->kb, f->facts->inputs);
        const oom_script_inputs *in = f->facts->inputs;
        if (!in->model_known || (!in->in.training && in->placement != OOM_PLACE_ONE_GPU)) {
            /* nothing the capacity check sizes: not kept for the whole run */
            free(f->facts->inputs);
            f->facts->inputs = NULL;
        }
    }
    /* a notebook's project findings are placed in its cells, after the pass */
    f->facts->notebook = oom_source_take_notebook(src);
}

/* A file's kept result: its findings and facts, and nothing parsed. On a
 * miss the reads of the lint that follows are logged for the entry. */
static bool recall_file(void *ctx, const oom_source *src, oom_diag_list *out)
{
    facts_ctx *f = ctx;
    if (oom_cache_recall(f->cache, &f->id, src, out, f->facts))
        return true;
    oom_readlog_start(&f->reads);
    return false;
}

static void remember_file(void *ctx, const oom_source *src, const oom_diag_list *found)
{
    facts_ctx *f = ctx;
    oom_readlog_stop();
    oom_cache_remember(f->cache, &f->id, src, found, f->facts, &f->reads);
    oom_readlog_free(&f->reads);
}

/* Standard input has no file to key it by: it is always linted, as is
 * text the caller holds (stdin read for --fix). */
static void use_cache(oom_cache *cache, oom_job *job, facts_ctx *f)
{
    if (!cache || job->text || strcmp(job->path, "-") == 0)
        return;
    f->cache = cache;
    f->id = (oom_cache_file){job->path, job->display, (int)job->lang, job->report_syntax, f->needs, {0, 0}, false};
    job->recall = recall_file;
    job->remember = remember_file;
}

static void apply_per_file_ignores(const oom_config *config, oom_diag_list *diags)
{
    if (!config || config->per_file_ignore_count == 0)
        return;
    unsigned char *drop = oom_xcalloc(diags->len ? diags->len : 1, 1);
    for (size_t i = 0; i < diags->len; i++)
        drop[i] = oom_config_ignores(config, diags->items[i].path, diags->items[i].code);
    oom_diag_list_remove_if_marked(diags, drop);
    free(drop);
}

/* Points each job's on_model hook at its file's facts. */
static facts_ctx *prepare_jobs(const oom_run_settings *s, oom_job *jobs, size_t count, oom_file_facts *facts,
                               oom_project_context *project)
{
    *project = (oom_project_context){s->rules, s->selection, s->context->gpu, s->context->num_gpus,
                                     s->context->eager_module_loading, s->overlay};
    unsigned needs = oom_project_facts_needed(project);
    facts_ctx *fctx = oom_xcalloc(count ? count : 1, sizeof *fctx);
    for (size_t i = 0; i < count; i++) {
        /* stdin has no folder, so no config beside it and no estimate */
        bool file = strcmp(jobs[i].path, "-") != 0;
        fctx[i] = (facts_ctx){&facts[i], s->context->kb, file ? needs : needs & OOM_FACTS_CALLS, jobs[i].path,
                              NULL, {0}, {0}};
        jobs[i].on_model = take_facts;
        jobs[i].on_model_ctx = &fctx[i];
        use_cache(s->cache, &jobs[i], &fctx[i]);
    }
    return fctx;
}

static void unhook_jobs(oom_job *jobs, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        jobs[i].on_model = NULL; /* the facts it pointed into are gone */
        jobs[i].on_model_ctx = NULL;
        jobs[i].recall = NULL;
        jobs[i].remember = NULL;
    }
}

static void finish(const oom_run_settings *s, oom_diag_list *out)
{
    oom_diag_list_sort(out);
    apply_per_file_ignores(s->config, out);
    /* after the project pass, which confirms or drops each pending place */
    oom_diag_list_fold_causes(out);
}

void oom_run(const oom_run_settings *s, oom_job *jobs, size_t count, oom_diag_list *out)
{
    oom_file_facts *facts = oom_xcalloc(count ? count : 1, sizeof *facts);
    oom_project_context project;
    facts_ctx *fctx = prepare_jobs(s, jobs, count, facts, &project);
    const char **paths = oom_xcalloc(count ? count : 1, sizeof(char *));
    for (size_t i = 0; i < count; i++)
        paths[i] = jobs[i].path;
    oom_lint_jobs(s->compiled, jobs, count, s->threads, out);
    oom_project_run_checks(&project, paths, facts, count, out);
    for (size_t i = 0; i < count; i++)
        oom_file_facts_free(&facts[i]);
    unhook_jobs(jobs, count);
    free(paths);
    free(facts);
    free(fctx);
    finish(s, out);
}

/* ---- a run kept file by file (the language server) ------------------------------- */

typedef struct {
    const char *display;
    size_t job;
} job_by_name;

static int cmp_job_by_name(const void *a, const void *b)
{
    return strcmp(((const job_by_name *)a)->display, ((const job_by_name *)b)->display);
}

void oom_run_lint_files(const oom_run_settings *s, oom_job *jobs, size_t count, oom_run_file *out)
{
    for (size_t i = 0; i < count; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].path = oom_xstrdup(jobs[i].path);
    }
    oom_file_facts *facts = oom_xcalloc(count ? count : 1, sizeof *facts);
    oom_project_context project;
    facts_ctx *fctx = prepare_jobs(s, jobs, count, facts, &project);
    oom_diag_list all = {NULL, 0, 0};
    oom_lint_jobs(s->compiled, jobs, count, s->threads, &all);
    unhook_jobs(jobs, count);
    for (size_t i = 0; i < count; i++)
        out[i].facts = facts[i];
    /* each finding back to its job, by the name it was linted under */
    job_by_name *byname = oom_xcalloc(count ? count : 1, sizeof *byname);
    for (size_t i = 0; i < count; i++)
        byname[i] = (job_by_name){jobs[i].display, i};
    qsort(byname, count, sizeof *byname, cmp_job_by_name);
    for (size_t i = 0; i < all.len; i++) {
        job_by_name key = {all.items[i].path, 0};
        job_by_name *hit = count ? bsearch(&key, byname, count, sizeof *byname, cmp_job_by_name) : NULL;
        oom_diag_list *to = hit ? &out[hit->job].diags : &out[0].diags;
        oom_grow((void **)&to->items, &to->cap, to->len + 1, sizeof(oom_diag));
        to->items[to->len++] = all.items[i]; /* moved: `all` only frees its array */
    }
    free(all.items);
    free(byname);
    free(facts);
    free(fctx);
}

void oom_run_project(const oom_run_settings *s, const oom_run_file *files, size_t count, oom_diag_list *out)
{
    oom_project_context project = {s->rules, s->selection, s->context->gpu, s->context->num_gpus,
                                   s->context->eager_module_loading, s->overlay};
    /* the pass moves the pending findings it confirms out of the facts: it
     * gets copies, so that the files' facts serve the next pass too */
    oom_file_facts *facts = oom_xcalloc(count ? count : 1, sizeof *facts);
    const char **paths = oom_xcalloc(count ? count : 1, sizeof(char *));
    for (size_t i = 0; i < count; i++) {
        facts[i] = files[i].facts;
        memset(&facts[i].pending, 0, sizeof facts[i].pending);
        for (size_t k = 0; k < files[i].facts.pending.len; k++)
            oom_diag_list_add_copy(&facts[i].pending, &files[i].facts.pending.items[k]);
        paths[i] = files[i].path;
    }
    oom_project_run_checks(&project, paths, facts, count, out);
    for (size_t i = 0; i < count; i++)
        oom_diag_list_free(&facts[i].pending);
    free(paths);
    free(facts);
    finish(s, out);
}

void oom_run_file_free(oom_run_file *f)
{
    free(f->path);
    oom_diag_list_free(&f->diags);
    oom_file_facts_free(&f->facts);
    memset(f, 0, sizeof *f);
}

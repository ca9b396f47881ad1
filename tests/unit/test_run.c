/* The run as a library function: oom_run over a discovered project, the
 * project pass included, with no CLI in between. */
#include <stdlib.h>

#include "harness.h"

#include "oomlint/discover.h"
#include "oomlint/kb.h"
#include "oomlint/run.h"

static const char *run_root = "fixtures";

typedef struct {
    oom_rule_list rules;
    oom_selection selection;
    oom_compiled *compiled;
    oom_kb kb;
    oom_run_context context;
} run_env;

static bool env_open(run_env *e, const char *gpu)
{
    memset(e, 0, sizeof *e);
    oom_buf err;
    oom_buf_init(&err);
    oom_strlist_push(&e->selection.select, "ALL");
    bool ok = oom_rules_add_embedded(&e->rules, &err) == 0 && oom_kb_load_embedded(&e->kb, &err) == 0 &&
              (e->compiled = oom_compiled_new(&e->rules, &e->selection, &err)) != NULL;
    if (ok) {
        e->context.kb = &e->kb;
        e->context.gpu = gpu ? oom_kb_find_gpu(&e->kb, gpu) : NULL;
        oom_compiled_set_run(e->compiled, &e->context);
    } else {
        printf("  cannot set up the run: %s\n", err.data ? err.data : "");
    }
    oom_buf_free(&err);
    return ok;
}

static void env_close(run_env *e)
{
    oom_compiled_free(e->compiled);
    oom_rules_free(&e->rules);
    oom_selection_free(&e->selection);
    oom_kb_free(&e->kb);
}

/* oom_run over folders of fixtures/projects (`second` may be NULL), with
 * `threads` workers: one run, as `oomlint a b` makes. */
static void run_projects(run_env *e, const char *name, const char *second, int threads, oom_diag_list *out)
{
    oom_buf dir, dir2;
    oom_buf_init(&dir);
    oom_buf_init(&dir2);
    oom_buf_printf(&dir, "%s/projects/%s", run_root, name);
    oom_buf_printf(&dir2, "%s/projects/%s", run_root, second ? second : name);
    const char *paths[] = {dir.data, dir2.data};
    oom_discovery d;
    oom_strlist no_excludes = {NULL, 0, 0};
    oom_discover(paths, second ? 2 : 1, &no_excludes, NULL, &d);
    oom_job *jobs = calloc(d.target_count ? d.target_count : 1, sizeof *jobs);
    for (size_t i = 0; i < d.target_count; i++)
        jobs[i] = oom_run_job_for(&d.targets[i], NULL);
    oom_run_settings s = {&e->rules, &e->selection, e->compiled, &e->context, NULL, threads, NULL, NULL};
    oom_run(&s, jobs, d.target_count, out);
    for (size_t i = 0; i < d.target_count; i++)
        CHECK(jobs[i].on_model == NULL); /* nothing left pointing at freed facts */
    free(jobs);
    oom_discovery_free(&d);
    oom_buf_free(&dir);
    oom_buf_free(&dir2);
}

static void run_project(run_env *e, const char *name, int threads, oom_diag_list *out)
{
    run_projects(e, name, NULL, threads, out);
}

static size_t count_code(const oom_diag_list *l, const char *code, const char *path_end)
{
    size_t n = 0;
    for (size_t i = 0; i < l->len; i++) {
        const char *p = l->items[i].path;
        size_t pl = strlen(p), el = strlen(path_end);
        n += strcmp(l->items[i].code, code) == 0 && pl >= el && strcmp(p + pl - el, path_end) == 0;
    }
    return n;
}

/* An accumulator defined in one module (AverageMeter.update) and fed a loss
 * with its graph in another: only the project pass joins the two. */
static void cross_file_accumulation(void)
{
    run_env e;
    if (!env_open(&e, NULL)) {
        CHECK(false);
        return;
    }
    oom_diag_list out = {NULL, 0, 0};
    run_project(&e, "meters_in_another_module", 2, &out);
    CHECK(count_code(&out, "OOM202", "/train.py") == 2);
    CHECK(out.len == 2);
    for (size_t i = 1; i < out.len; i++) /* sorted by path and line */
        CHECK(out.items[i - 1].start_row <= out.items[i].start_row);
    oom_diag_list_free(&out);
    env_close(&e);
}

/* A DeepSpeed config that disagrees with the TrainingArguments naming it: a
 * finding in the JSON file that linting the JSON alone cannot make. */
static void deepspeed_link(void)
{
    run_env e;
    if (!env_open(&e, NULL)) {
        CHECK(false);
        return;
    }
    oom_diag_list out = {NULL, 0, 0};
    run_project(&e, "deepspeed_mismatch", 1, &out);
    CHECK(count_code(&out, "OOM405", "configs/ds_zero2.json") == 2);
    oom_diag_list_free(&out);
    env_close(&e);
}

/* The same project linted with one thread and with four gives the same
 * findings in the same order. */
static void threads_agree(void)
{
    run_env e;
    if (!env_open(&e, "v100")) {
        CHECK(false);
        return;
    }
    oom_diag_list one = {NULL, 0, 0}, four = {NULL, 0, 0};
    run_project(&e, "vgg16_imagenet_v100", 1, &one);
    run_project(&e, "vgg16_imagenet_v100", 4, &four);
    CHECK(one.len > 0 && one.len == four.len);
    for (size_t i = 0; i < one.len && i < four.len; i++) {
        CHECK_STR(four.items[i].code, one.items[i].code);
        CHECK(four.items[i].start_row == one.items[i].start_row);
    }
    oom_diag_list_free(&one);
    oom_diag_list_free(&four);
    env_close(&e);
}

/* A shared `run_epoch(..., train=True)` is evaluation code where another
 * file calls it with train=False, autograd on; the import says which file:
 * the same-named module of another project linted in the same run is not
 * the one called. */
static void eval_calls_follow_imports(void)
{
    run_env e;
    if (!env_open(&e, NULL)) {
        CHECK(false);
        return;
    }
    oom_diag_list out = {NULL, 0, 0};
    run_projects(&e, "eval_through_shared_epoch", "eval_through_shared_epoch_no_grad", 2, &out);
    CHECK(count_code(&out, "OOM301", "eval_through_shared_epoch/engine.py") == 1);
    CHECK(count_code(&out, "OOM301", "eval_through_shared_epoch_no_grad/engine.py") == 0);
    oom_diag_list_free(&out);
    run_project(&e, "eval_through_relative_import", 1, &out);
    CHECK(count_code(&out, "OOM301", "trainer/loops.py") == 1);
    oom_diag_list_free(&out);
    env_close(&e);
}

/* An evaluation wrapper imported from another module (DINOv2's
 * ModelWithIntermediateLayers in eval/utils.py) whose forward runs under
 * inference_mode: its call is no forward with grad once the project pass
 * reads that module. The other wrapper of the same module keeps
 * activations: reported. Alone, the file cannot tell that either wrapper
 * is a module at all: quiet. */
static void imported_forward_without_grad(void)
{
    run_env e;
    if (!env_open(&e, NULL)) {
        CHECK(false);
        return;
    }
    oom_diag_list out = {NULL, 0, 0};
    run_project(&e, "eval_wrapper_in_another_module", 2, &out);
    CHECK(count_code(&out, "OOM301", "probe/linear.py") == 1);
    CHECK(out.len == 1 && out.items[0].start_row == 26); /* the pooled wrapper's call */
    oom_diag_list_free(&out);
    run_project(&e, "eval_wrapper_in_another_module/probe/linear.py", 1, &out);
    CHECK(count_code(&out, "OOM301", "probe/linear.py") == 0);
    oom_diag_list_free(&out);
    env_close(&e);
}

/* The run kept file by file (the language server's): each file's own
 * findings and facts, then the project pass over the facts, twice (the
 * facts are left as they were), make what oom_run makes. */
static void file_by_file_agrees(void)
{
    static const char *const projects[] = {"meters_in_another_module", "deepspeed_mismatch",
                                           "eval_through_shared_epoch", "callers_without_grad"};
    run_env e;
    if (!env_open(&e, NULL)) {
        CHECK(false);
        return;
    }
    for (size_t p = 0; p < sizeof projects / sizeof *projects; p++) {
        oom_diag_list whole = {NULL, 0, 0};
        run_project(&e, projects[p], 1, &whole);
        oom_buf dir;
        oom_buf_init(&dir);
        oom_buf_printf(&dir, "%s/projects/%s", run_root, projects[p]);
        const char *paths[] = {dir.data};
        oom_discovery d;
        oom_strlist no_excludes = {NULL, 0, 0};
        oom_discover(paths, 1, &no_excludes, NULL, &d);
        oom_job *jobs = calloc(d.target_count ? d.target_count : 1, sizeof *jobs);
        oom_run_file *files = calloc(d.target_count ? d.target_count : 1, sizeof *files);
        for (size_t i = 0; i < d.target_count; i++)
            jobs[i] = oom_run_job_for(&d.targets[i], NULL);
        oom_run_settings s = {&e.rules, &e.selection, e.compiled, &e.context, NULL, 2, NULL, NULL};
        oom_run_lint_files(&s, jobs, d.target_count, files);
        for (int pass = 0; pass < 2; pass++) {
            oom_diag_list out = {NULL, 0, 0};
            for (size_t i = 0; i < d.target_count; i++)
                for (size_t k = 0; k < files[i].diags.len; k++)
                    oom_diag_list_add_copy(&out, &files[i].diags.items[k]);
            oom_run_project(&s, files, d.target_count, &out);
            CHECK(out.len == whole.len);
            for (size_t i = 0; i < out.len && i < whole.len; i++)
                CHECK(strcmp(out.items[i].code, whole.items[i].code) == 0 &&
                      out.items[i].start_row == whole.items[i].start_row &&
                      strcmp(out.items[i].path, whole.items[i].path) == 0);
            oom_diag_list_free(&out);
        }
        for (size_t i = 0; i < d.target_count; i++)
            oom_run_file_free(&files[i]);
        free(files);
        free(jobs);
        oom_discovery_free(&d);
        oom_buf_free(&dir);
        oom_diag_list_free(&whole);
    }
    env_close(&e);
}

void test_run_suite(const char *fixtures_root)
{
    run_root = fixtures_root;
    oom_test_run("run: oom_run joins an accumulator in one module with its caller in another", cross_file_accumulation);
    oom_test_run("run: oom_run checks a DeepSpeed config against the arguments that name it", deepspeed_link);
    oom_test_run("run: a function called for evaluation from another file is found through its import",
                 eval_calls_follow_imports);
    oom_test_run("run: an imported class whose forward runs without grad is no forward with grad",
                 imported_forward_without_grad);
    oom_test_run("run: oom_run gives the same findings in the same order on one thread and four", threads_agree);
    oom_test_run("run: file by file (oom_run_lint_files, oom_run_project twice) is what oom_run makes",
                 file_by_file_agrees);
}

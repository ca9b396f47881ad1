/* project/checks: the project-level checks, registered in one table as rules
 * are: the codes each reports, the per-file facts it needs from the worker
 * threads, and one function over the project's facts. The command line runs
 * the table; it names no rule. */
#include <string.h>

#include "oomlint/project.h"

typedef struct {
    const char *codes[2]; /* NULL-padded */
    unsigned needs;       /* OOM_FACTS_* */
    bool needs_gpu;       /* silent without a target GPU */
    void (*run)(const oom_project_context *c, const char *const *paths, const oom_file_facts *facts,
                size_t count, oom_diag_list *out);
} project_check;

static bool enabled(const oom_project_context *c, const char *code)
{
    const oom_rule *r = oom_rules_find(c->rules, code);
    return r && oom_selection_enabled(c->selection, code, !r->opt_in);
}

static void run_deepspeed(const oom_project_context *c, const char *const *paths, const oom_file_facts *facts,
                          size_t count, oom_diag_list *out)
{
    (void)paths;
    oom_project_check_deepspeed(c->rules, enabled(c, "OOM405"), c->overlay, facts, count, out);
}

static void run_capacity(const oom_project_context *c, const char *const *paths, const oom_file_facts *facts,
                         size_t count, oom_diag_list *out)
{
    oom_project_check_capacity(c, enabled(c, "OOM601"), enabled(c, "OOM602"), paths, facts, count, out);
}

static const project_check checks[] = {
    {{"OOM405", NULL}, OOM_FACTS_DEEPSPEED_LINKS, false, run_deepspeed},
    {{"OOM601", "OOM602"}, OOM_FACTS_ESTIMATE_INPUTS, true, run_capacity},
};

static bool check_runs(const oom_project_context *c, const project_check *k)
{
    if (k->needs_gpu && !c->gpu)
        return false;
    for (size_t i = 0; i < 2 && k->codes[i]; i++)
        if (enabled(c, k->codes[i]))
            return true;
    return false;
}

unsigned oom_project_facts_needed(const oom_project_context *c)
{
    unsigned needs = OOM_FACTS_CALLS; /* the callers' join runs for every rule */
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++)
        if (check_runs(c, &checks[i]))
            needs |= checks[i].needs;
    return needs;
}

/* A check reports on a notebook in the lines of its module, as its facts
 * were taken; the notebook's map puts each finding in its cell. */
static void place_in_notebooks(const char *const *paths, const oom_file_facts *facts, size_t count,
                               oom_diag_list *out, size_t from)
{
    for (size_t i = from; i < out->len; i++)
        for (size_t f = 0; f < count; f++)
            if (facts[f].notebook && strcmp(paths[f], out->items[i].path) == 0) {
                oom_notebook_place(facts[f].notebook, &out->items[i]);
                break;
            }
}

void oom_project_run_checks(const oom_project_context *c, const char *const *paths, oom_file_facts *facts,
                            size_t count, oom_diag_list *out)
{
    /* first the findings that wait on another file's method, so that the
     * callers' join judges them with the rest */
    oom_project_confirm_pending(paths, facts, count, out);
    oom_project_drop_findings_of_no_grad_callees(facts, count, out);
    oom_project_drop_overturned_findings(paths, facts, count, out);
    size_t before = out->len;
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++)
        if (check_runs(c, &checks[i]))
            checks[i].run(c, paths, facts, count, out);
    place_in_notebooks(paths, facts, count, out, before);
}

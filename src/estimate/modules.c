/* estimate/modules: models the script defines itself. A class deriving from
 * nn.Module (or a LightningModule) that the script instantiates is sized
 * exactly by running its __init__ symbolically: constructor arguments and
 * defaults bound, module-level constants and argparse defaults read, simple
 * arithmetic, loops over range() unrolled, and each torch.nn layer counted by
 * PyTorch's own shapes (docs/estimation.md §11). Where a size cannot be told,
 * the model stays unsized and the input says which size, never a guess.
 *
 * Activations are rough: each layer's output, counted once from __init__,
 * doubled for the nonlinearity or norm that follows it (§11).
 *
 * This file is the entry: it sets up one reading (the script's view, the
 * evaluator's hook), runs the calls modules_builds.c finds, and writes the
 * totals into the estimate's inputs; modules.h says which file does what. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules.h"

/* the side at which convolution outputs are counted when the script gives none */
#define DEFAULT_IMAGE_SIDE 32

/* ---- into the estimate ------------------------------------------------------ */

static long long image_side(ctx *c, oom_script_inputs *out)
{
    static const char *const names[] = {"img_size", "image_size", "resolution", "input_size", "img_res", NULL};
    for (int i = 0; names[i]; i++) {
        const oom_est_setting *s = oom_est_setting_named(c->r, names[i]);
        long long n;
        if (s && oom_est_setting_int(c->r, s, &n) && n > 0) {
            char what[96], setting[80];
            oom_est_setting_describe(s, setting, sizeof setting);
            snprintf(what, sizeof what, "%lldx%lld (%s)", n, n, setting);
            const oom_est_setting *saved = c->r->via;
            c->r->via = NULL;
            oom_est_note(c->r, OOM_IN_IMAGE, s->at, what);
            c->r->via = saved;
            return n;
        }
    }
    oom_est_assume(out, OOM_IN_IMAGE, "32x32 images (no image size found): convolution outputs counted at this side");
    return DEFAULT_IMAGE_SIDE;
}

static bool is_lm_head_size(const ctx *c, long long v)
{
    for (int i = 0; i < c->nlinear; i++)
        if (c->linear_outs[i] == v)
            return true;
    return false;
}

static void apply(ctx *c, const build_site *sites, size_t n, const mod *total)
{
    oom_script_inputs *out = c->r->out;
    oom_estimate_input *in = &out->in;
    in->params = in->trainable = total->params;
    in->buffer_bytes = (double)total->buffers;
    in->module_defined = true;
    in->module_ref = c->image_side;
    out->model_known = true;
    double dense = total->dense;
    if (total->tokens && c->vocab > 0 && is_lm_head_size(c, c->vocab)) {
        /* a Linear back onto the Embedding's vocabulary: a language-model
         * head, whose logits the loss term counts */
        dense -= 2.0 * (double)c->vocab;
        in->vocab = c->vocab;
        char why[160];
        snprintf(why, sizeof why, "a Linear onto the %lld-row Embedding: a language-model head", c->vocab);
        oom_script_inputs_set_task(out, OOM_TASK_CAUSAL_LM, why);
        out->from[OOM_IN_TASK].assumed = true;
    }
    if (total->act_unknown) {
        in->module_sample_elems = in->module_token_elems = in->module_spatial_elems = 0;
    } else if (total->tokens) {
        in->module_token_elems = dense + total->seq;
    } else {
        in->module_sample_elems = dense;
    }
    if (!total->act_unknown)
        in->module_spatial_elems = total->spatial;
    char names[128] = "", lines[48] = "", places[448] = "";
    bool elsewhere = false; /* a class in another file, or built by a factory */
    for (size_t i = 0; i < n; i++) {
        TSNode cls = oom_mod_site_class(&sites[i]);
        char nm[48] = "?", at[128], by[64] = "", by_at[128] = "";
        text(c, field(cls, "name"), nm, sizeof nm);
        oom_mod_place_of(c, cls, at, sizeof at);
        if (!ts_node_eq(cls, sites[i].cls)) {
            text(c, field(sites[i].cls, "name"), by, sizeof by);
            oom_mod_place_of(c, sites[i].cls, by_at, sizeof by_at);
        }
        elsewhere = elsewhere || view_of(c, cls) != c->views->items[0] || by[0];
        size_t used = strlen(names), lused = strlen(lines), pused = strlen(places);
        snprintf(names + used, sizeof names - used, "%s%s", i ? " + " : "", nm);
        snprintf(lines + lused, sizeof lines - lused, "%s%u", i ? ", " : "", oom_mod_line_of(c, cls));
        snprintf(places + pused, sizeof places - pused, "%sclass %s at %s%s%s%s%s%s%s", i ? "; " : "", nm, at,
                 by[0] ? ", built by " : "", by, by[0] ? "() at " : "", by_at, sites[i].said[0] ? "; " : "",
                 sites[i].said);
        elsewhere = elsewhere || sites[i].said[0];
    }
    oom_est_copy(out->model_id, sizeof out->model_id, names);
    char what[768], from[400]; /* "; sizes from config.json [\"model\"]": the file and keys they came from */
    oom_est_configs_describe(c->configs, from, sizeof from);
    if (c->environment[0]) { /* gym.make("Hopper-v3"): the policy's sizes are its spaces' */
        size_t fused = strlen(from);
        snprintf(from + fused, sizeof from - fused, "; %s's spaces from the knowledge base", c->environment);
    }
    if (c->assumed[0]) { /* an argument the run could not tell, at its default */
        size_t fused = strlen(from);
        snprintf(from + fused, sizeof from - fused, "; assumed %s", c->assumed);
    }
    char acts[160];
    int used = 0;
    if (total->untrained > 0) /* target networks: weights, counted apart from the model */
        used = snprintf(acts, sizeof acts, "; %lld more in copies no optimizer trains, counted as weights alone",
                        total->untrained);
    snprintf(acts + used, sizeof acts - (size_t)used, "%s",
             total->act_unknown ? "; activations not counted (Conv1d/Conv3d, or a library model inside)"
                                : "; activations rough");
    if (elsewhere) /* where the model came from: the file and line of its class */
        oom_est_printf(what, sizeof what, "%s built here (%s%s): %lld parameters counted from %s layers%s", names,
                       places, from, total->params, n > 1 ? "their" : "its", acts);
    else
        oom_est_printf(what, sizeof what,
                       "%s built here (class%s at line%s %s%s): %lld parameters counted from %s layers%s", names,
                       n > 1 ? "es" : "", n > 1 ? "s" : "", lines, from, total->params, n > 1 ? "their" : "its", acts);
    oom_est_note(reader_of(c, sites[0].call), OOM_IN_MODEL, sites[0].call, what);
    out->from[OOM_IN_MODEL].assumed = c->assumed[0] != '\0';
}

/* The one item with parameters of a factory's returned tuple; unknown
 * when there is none or more than one. */
static value only_module_item(const value *seq)
{
    value found = unknown();
    int modules = 0;
    for (size_t i = 0; i < 8; i++) {
        value item = oom_mod_item(seq, i);
        if (item.kind == V_MODULE && item.m.params > 0) {
            found = item;
            modules++;
        }
    }
    return modules == 1 ? found : unknown();
}

static void report_unresolved(ctx *c, const build_site *site)
{
    char nm[48] = "?", what[256], at[128];
    if (ts_node_is_null(site->cls)) /* a lookup whose name the run does not know */
        oom_est_printf(what, sizeof what, "the model not sized: %s", c->why);
    else {
        text(c, field(site->cls, "name"), nm, sizeof nm);
        oom_mod_place_of(c, site->cls, at, sizeof at);
        oom_est_printf(what, sizeof what, "%s (%s at %s) not sized: %s", nm,
                       is(site->cls, "class_definition") ? "class" : "function", at, c->why);
    }
    oom_est_note(reader_of(c, site->call), OOM_IN_MODEL, site->call, what);
    c->r->out->from[OOM_IN_MODEL].assumed = true;
}

/* Finds the builds in the file c->layout lays out and sizes them into the
 * estimate's inputs; how many builds there were (0: none, nothing said). */
static size_t size_builds(ctx *c, build_site *sites)
{
    size_t n = oom_mod_find_builds(c, sites, 8);
    if (n == 0 || c->why[0])
        return n;
    c->image_side = c->side = image_side(c, c->r->out);
    mod total;
    memset(&total, 0, sizeof total);
    size_t kept = 0;
    for (size_t i = 0; i < n && !c->why[0]; i++) {
        frame *top = oom_mod_frame_new(c, NULL);
        value v = oom_mod_eval(c, top, sites[i].call);
        if (v.kind == V_OBJECT && v.m.params > 0) /* a holder: the models it set on self */
            v.kind = V_MODULE;
        if (v.kind != V_MODULE && v.items) /* `return model, optimizer`: the one module among them */
            v = only_module_item(&v);
        if (v.kind != V_MODULE)
            oom_mod_unresolved(c, sites[i].call, "the model");
        else if (v.m.params > 0) { /* a loss or a wrapper holds none: not the model */
            oom_mod_add(&total, &v.m);
            sites[kept] = sites[i];
            sites[kept++].made = v.made;
        }
    }
    char first[64] = "";
    text(c, field(sites[0].cls, "name"), first, sizeof first);
    if (!c->why[0] && kept == 0 && !strstr(first, "Loss")) /* a loss alone is not a model */
        oom_mod_unresolved(c, sites[0].call, "no parameters built in __init__");
    if (kept == 0)
        n = c->why[0] ? n : 0;
    if (!c->why[0] && kept > 0)
        apply(c, sites, kept, &total);
    return n;
}

/* One reading's context: the script's layout, its views, the project its
 * imports reach. `own` holds the layout when the model has none. */
typedef struct {
    ctx c;
    oom_nodes own;
    views vs;
} reading;

static void reading_open(reading *rd, oom_est_reader *r)
{
    memset(rd, 0, sizeof *rd);
    ctx *c = &rd->c;
    c->r = r;
    c->eval_node = oom_mod_eval_node;
    c->configs = oom_est_configs_new();
    oom_nodes_init(&rd->own);
    c->layout = oom_pymodel_layout(r->m);
    if (!c->layout || c->layout->len == 0 || !ts_node_eq(c->layout->items[0].node, r->root)) {
        oom_nodes_build(&rd->own, r->root);
        c->layout = &rd->own;
    }
    c->views = &rd->vs;
    view *script = oom_xcalloc(1, sizeof *script);
    c->project = oom_est_project_open(r, c->layout);
    script->unit = oom_est_project_script(c->project);
    script->r = r;
    script->layout = c->layout;
    script->tree = r->root.tree;
    OOM_PUSH(rd->vs.items, rd->vs.len, rd->vs.cap, script);
    oom_mod_collect_definitions(c, script);
}

static void reading_close(reading *rd)
{
    ctx *c = &rd->c;
    for (size_t i = 0; i < c->nframes; i++) {
        free(c->frames[i]->vars);
        free(c->frames[i]->attrs);
        free(c->frames[i]);
    }
    free(c->frames);
    for (size_t i = 0; i < rd->vs.len; i++) {
        if (i > 0)
            oom_est_settings_free(&rd->vs.items[i]->own.settings);
        free(rd->vs.items[i]->classes);
        free(rd->vs.items[i]->functions);
        free(rd->vs.items[i]->aliases);
        free(rd->vs.items[i]);
    }
    free(rd->vs.items);
    oom_est_project_close(c->project);
    oom_est_configs_free(c->configs);
    oom_nodes_free(&rd->own);
}

/* The second try of a model the first could not size: with arguments the
 * run cannot tell at their parameters' number defaults. Whether it sized
 * it (the inputs are then written, the model marked assumed). */
static bool sized_with_defaults(oom_est_reader *r)
{
    reading rd;
    reading_open(&rd, r);
    rd.c.take_defaults = true;
    build_site sites[8];
    size_t n = size_builds(&rd.c, sites);
    bool sized = n > 0 && !rd.c.why[0];
    reading_close(&rd);
    return sized;
}

void oom_est_read_modules(oom_est_reader *r)
{
    reading rd;
    reading_open(&rd, r);
    ctx *c = &rd.c;
    build_site sites[8];
    size_t n = size_builds(c, sites);
    const oom_launch *l = r->launch;
    oom_est_unit *importer = n == 0 && !c->why[0] && l && l->script && l->script_exists && r->path &&
                                     strcmp(l->script, r->path) != 0
                                 ? oom_est_project_file(c->project, l->script)
                                 : NULL;
    if (importer) {
        /* the options were read from the module the launched script imports
         * (its opts.py): the script itself builds the model, and the
         * options it reads through that module carry the command's values */
        c->layout = oom_mod_view_for(c, importer)->layout;
        n = size_builds(c, sites);
    }
    if (n > 0 && c->why[0] && (importer || !sized_with_defaults(r)))
        report_unresolved(c, &sites[0]);
    reading_close(&rd);
}

/* What the symbolic run says of one value: a truth value (1, 0; -1 for
 * unknown) and, for a whole number, the number. */
typedef struct {
    uint32_t at, end; /* the expression asked */
    int on;
    bool whole;
    long long n;
} run_answer;

/* `expr` run symbolically where it stands, as the model's sizes are: a
 * record that a function of the project builds (`hparams.fp16_run` of
 * `hparams = create_hparams()`, an HParams of hparams.py) is read as that
 * function sets it. Read before the reading closes: a value may point into
 * its frames. */
static run_answer run_where_it_stands(oom_est_reader *r, TSNode expr)
{
    reading rd;
    reading_open(&rd, r);
    frame *top = oom_mod_frame_new(&rd.c, NULL);
    value v = oom_mod_eval(&rd.c, top, expr);
    run_answer a = {ts_node_start_byte(expr), ts_node_end_byte(expr), -1, false, 0};
    int on;
    if ((v.kind == V_BOOL || v.kind == V_INT || v.kind == V_NONE) && oom_mod_truth(&v, &on))
        a.on = on;
    if (v.kind == V_INT)
        a.whole = true, a.n = v.i;
    reading_close(&rd);
    return a;
}

#define RUN_ANSWERS 32

struct oom_est_reader_run {
    oom_est_reader *r;
    run_answer answers[RUN_ANSWERS];
    size_t len;
};

oom_est_reader_run *oom_est_modules_run_new(oom_est_reader *r)
{
    oom_est_reader_run *run = oom_xcalloc(1, sizeof *run);
    run->r = r;
    return run;
}

void oom_est_modules_run_free(oom_est_reader_run *run)
{
    free(run);
}

static run_answer answer(oom_est_reader_run *run, TSNode expr)
{
    uint32_t at = ts_node_start_byte(expr), end = ts_node_end_byte(expr);
    for (size_t i = 0; i < run->len; i++)
        if (run->answers[i].at == at && run->answers[i].end == end)
            return run->answers[i];
    run_answer a = run_where_it_stands(run->r, expr);
    if (run->len < RUN_ANSWERS)
        run->answers[run->len++] = a;
    return a;
}

int oom_est_modules_switch(oom_est_reader_run *run, TSNode expr)
{
    return answer(run, expr).on;
}

bool oom_est_modules_int(oom_est_reader_run *run, TSNode expr, long long *out)
{
    run_answer a = answer(run, expr);
    if (a.whole)
        *out = a.n;
    return a.whole;
}

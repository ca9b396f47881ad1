/* cli/estimate: `oomlint estimate` — the peak-memory breakdown of a training
 * script on a GPU, as a table, a bar, JSON or an SVG chart. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oomlint/discover.h"
#include "oomlint/jsonfile.h"

#include "oomlint/cli.h"
#include "oomlint/estimate.h"
#include "oomlint/report.h"
#include "oomlint/source.h"
#include "oomlint/text.h"


/* The launch command the inputs were read under, when there was one. */
typedef struct {
    bool used;
    oom_launch launch;
    oom_strlist notes; /* the launcher's and the arguments' (estimate.h) */
} launch_read;

typedef struct {
    const char *label;
    double bytes;
    char glyph;
    const char *color;
} part;

#define N_PARTS 9

/* The parts alive at the peak, which add up to the total: at the optimizer
 * step the activations are gone and the step's temporaries are there; in
 * forward and backward (PyTorch 2 frees the gradients between steps) the
 * other way round. Inference keeps generate()'s KV cache instead. */
static void parts_of(const oom_estimate *e, part out[N_PARTS])
{
    part p[N_PARTS] = {{"CUDA context", e->context, 'C', "#9e9e9e"},
                       {"weights", e->weights, 'W', "#1f77b4"},
                       {"gradients", e->peak_gradients, 'G', "#ff7f0e"},
                       {"optimizer states", e->optimizer, 'O', "#2ca02c"},
                       {"step temporaries", e->peak_step_temp, 'T', "#17becf"},
                       {"activations", e->peak_activations, 'A', "#d62728"},
                       {"logits and loss", e->peak_logits, 'L', "#9467bd"},
                       {"KV cache", e->kv_cache, 'K', "#8c564b"},
                       {"allocator slack", e->slack, 'S', "#bcbd22"}};
    memcpy(out, p, sizeof p);
}

static const char *const input_names[OOM_IN_COUNT] = {"model", "batch", "sequence", "precision",
                                                      "optimizer", "checkpointing", "attention",
                                                      "sharding", "GPUs", "trainable", "image", "task",
                                                      "mode"};

/* The inputs that mean something for this kind of model: an image model has
 * no sequence and a fixed attention; a language model no image size. */
static bool input_applies(const oom_script_inputs *s, int k)
{
    bool image = oom_script_inputs_is_image(s);
    if (s->in.module_defined) { /* a model the script defines: what its layers work on */
        if (k == OOM_IN_IMAGE)
            return s->in.module_spatial_elems > 0;
        if (k == OOM_IN_SEQ || k == OOM_IN_TASK)
            return s->in.module_token_elems > 0;
        return k != OOM_IN_ATTENTION && k != OOM_IN_CHECKPOINTING;
    }
    if (k == OOM_IN_IMAGE)
        return image;
    if (!s->in.training && (k == OOM_IN_OPTIMIZER || k == OOM_IN_CHECKPOINTING || k == OOM_IN_LORA))
        return false; /* inference has no optimizer, backward or trainable part */
    return !image || (k != OOM_IN_SEQ && k != OOM_IN_ATTENTION && k != OOM_IN_CHECKPOINTING && k != OOM_IN_TASK);
}

static void input_value(const oom_script_inputs *s, int k, char *buf, size_t n)
{
    const oom_estimate_input *in = &s->in;
    switch (k) {
    case OOM_IN_MODEL:
        if (in->params < 1000000000LL)
            snprintf(buf, n, "%s (%.1fM params)", s->model_known ? s->model_id : "unknown", in->params / 1e6);
        else
            snprintf(buf, n, "%s (%.2fB params)", s->model_known ? s->model_id : "unknown", in->params / 1e9);
        break;
    case OOM_IN_IMAGE:
        if (oom_script_inputs_is_image(s) || (in->module_defined && in->module_spatial_elems > 0)) {
            long long ref = in->module_defined ? in->module_ref : in->image_ref;
            snprintf(buf, n, "%lldx%lld", in->image_h > 0 ? in->image_h : ref, in->image_w > 0 ? in->image_w : ref);
        } else {
            snprintf(buf, n, "n/a");
        }
        break;
    case OOM_IN_BATCH:
        snprintf(buf, n, "%lld", in->micro_batch);
        break;
    case OOM_IN_SEQ:
        snprintf(buf, n, "%lld", in->seq_len);
        break;
    case OOM_IN_PRECISION:
        snprintf(buf, n, "%s", oom_precision_name(in->precision));
        break;
    case OOM_IN_OPTIMIZER:
        snprintf(buf, n, "%s", oom_optimizer_name(in->optimizer));
        break;
    case OOM_IN_CHECKPOINTING:
        snprintf(buf, n, "%s", in->gradient_checkpointing ? "on" : "off");
        break;
    case OOM_IN_ATTENTION:
        snprintf(buf, n, "%s", in->memory_efficient_attention ? "memory-efficient" : "eager");
        break;
    case OOM_IN_ZERO:
        snprintf(buf, n, "ZeRO %d%s", in->zero_stage, in->offload_optimizer ? " + offload" : "");
        break;
    case OOM_IN_GPUS:
        snprintf(buf, n, "%d", in->num_gpus);
        break;
    case OOM_IN_MODE:
        snprintf(buf, n, "%s", in->training ? "training" : in->generates ? "inference, generate()" : "inference");
        break;
    case OOM_IN_TASK:
        if (in->lm_head)
            snprintf(buf, n, "%s, vocab %lld", oom_task_id(s->task), in->vocab);
        else
            snprintf(buf, n, "%s", oom_task_id(s->task));
        break;
    default:
        if (in->trainable < 100000)
            snprintf(buf, n, "%lld", in->trainable);
        else
            snprintf(buf, n, "%.1fM", in->trainable / 1e6);
    }
}

/* Which moment sets the peak, and what is not alive then. */
static void print_peak_phase(const oom_estimate *e, FILE *f)
{
    if (e->step <= 0)
        return;
    if (e->step_is_peak)
        fprintf(f, "    (peak at the optimizer step: the activations and logits, %.2f GiB, are freed by then)\n",
                (e->activations + e->logits) / OOM_GIB);
    else if (e->peak_gradients < e->gradients || e->step_temp > 0)
        fprintf(f, "    (peak in forward/backward: the gradients, %.2f GiB, are freed between steps%s)\n",
                (e->gradients - e->peak_gradients) / OOM_GIB,
                e->step_temp > 0 ? ", the step's temporaries come later" : "");
}

/* Text from a script or a command, shown so that a terminal never
 * interprets it (a shell script may hold any byte). */
static void put_display(FILE *f, const char *s)
{
    oom_buf b;
    oom_buf_init(&b);
    oom_text_append_display(&b, s, strlen(s), 0);
    fputs(b.data ? b.data : "", f);
    oom_buf_free(&b);
}

static void print_launch(const launch_read *lr, FILE *f)
{
    if (!lr->used)
        return;
    const oom_launch *l = &lr->launch;
    fputs("\nLaunch: ", f);
    put_display(f, l->command ? l->command : "");
    if (l->file && l->line) {
        fputs("  (", f);
        put_display(f, l->file);
        fprintf(f, ":%u)", l->line);
    }
    fputc('\n', f);
}

static void print_notes(const launch_read *lr, FILE *f)
{
    if (!lr->used || lr->notes.len == 0)
        return;
    fputs("\nNotes:\n", f);
    for (size_t i = 0; i < lr->notes.len; i++) {
        fputs("  - ", f);
        put_display(f, lr->notes.items[i]);
        fputc('\n', f);
    }
}

static void print_text(const oom_script_inputs *s, const oom_gpu *gpu, const oom_estimate *e,
                       const launch_read *lr, FILE *f)
{
    part p[N_PARTS];
    parts_of(e, p);
    double cap = oom_gpu_capacity_bytes(gpu);
    fprintf(f, "Peak GPU memory per GPU%s: %s%s%s\n\n", s->in.training ? "" : " (inference)",
            s->model_known ? s->model_id : "(unknown model)", gpu ? " on " : "", gpu ? gpu->name : "");
    for (int i = 0; i < N_PARTS; i++) {
        if (p[i].glyph == 'K' && p[i].bytes <= 0)
            continue; /* training keeps no KV cache */
        fprintf(f, "  %c %-18s %8.2f GiB", p[i].glyph, p[i].label, p[i].bytes / OOM_GIB);
        if (p[i].glyph == 'L' && e->logit_values > 0) /* the size of one copy, for checking by hand */
            fprintf(f, "   (%lld x %lld x %lld values, %.2f GiB per fp32 copy)", s->in.micro_batch,
                    s->in.generates && !s->in.training ? 1 : s->in.seq_len, s->in.vocab,
                    4.0 * e->logit_values / OOM_GIB);
        fputc('\n', f);
    }
    print_peak_phase(e, f);
    fprintf(f, "    %-18s %8.2f GiB", "total", e->total / OOM_GIB);
    if (cap > 0)
        fprintf(f, "  of %.3g GiB (%.0f%%)%s", cap / OOM_GIB, 100 * e->total / cap,
                e->total > cap ? "  -> out of memory" : e->total > OOM_NEAR_CAPACITY * cap ? "  -> near capacity" : "");
    fputs("\n\n  ", f);
    const int width = 60;
    double scale = (cap > e->total ? cap : e->total) / width;
    int col = 0;
    for (int i = 0; i < N_PARTS; i++) {
        int n = (int)(p[i].bytes / scale + 0.5);
        for (int k = 0; k < n && col < width; k++, col++)
            fputc(p[i].glyph, f);
    }
    for (; col < width; col++)
        fputc('.', f);
    if (cap > 0)
        fprintf(f, "\n  %*s| %.3g GiB", (int)(cap / scale), "", cap / OOM_GIB);
    fputc('\n', f);
    print_launch(lr, f);
    fputs("\nInputs:\n", f);
    for (int k = 0; k < OOM_IN_COUNT; k++) {
        char value[160];
        if (!input_applies(s, k))
            continue;
        input_value(s, k, value, sizeof value);
        fprintf(f, "  %-13s %-28s %s", input_names[k], value, s->from[k].assumed ? "assumed: " : "");
        put_display(f, s->from[k].text);
        fputc('\n', f);
    }
    print_notes(lr, f);
}

static void add_launch_json(cJSON *root, const launch_read *lr)
{
    if (!lr->used)
        return;
    const oom_launch *l = &lr->launch;
    cJSON *o = cJSON_AddObjectToObject(root, "launch");
    cJSON_AddStringToObject(o, "launcher", oom_launcher_name(l->launcher));
    cJSON_AddStringToObject(o, "command", l->command ? l->command : "");
    cJSON_AddStringToObject(o, "script", l->script ? l->script : "");
    cJSON_AddBoolToObject(o, "script_exists", l->script_exists);
    cJSON_AddNumberToObject(o, "processes", l->processes);
    cJSON *notes = cJSON_AddArrayToObject(o, "notes");
    for (size_t i = 0; i < lr->notes.len; i++)
        cJSON_AddItemToArray(notes, cJSON_CreateString(lr->notes.items[i]));
}

static cJSON *to_json(const oom_script_inputs *s, const oom_gpu *gpu, const oom_estimate *e)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "model", s->model_known ? s->model_id : "");
    cJSON_AddNumberToObject(root, "params", (double)s->in.params);
    cJSON_AddStringToObject(root, "gpu", gpu ? gpu->id : "");
    cJSON_AddNumberToObject(root, "capacity_bytes", oom_gpu_capacity_bytes(gpu));
    cJSON *c = cJSON_AddObjectToObject(root, "bytes");
    part p[N_PARTS];
    parts_of(e, p);
    static const char *const keys[] = {"cuda_context", "weights", "gradients", "optimizer_states",
                                       "optimizer_step_temporaries", "activations", "logits", "kv_cache",
                                       "allocator_slack"};
    for (int i = 0; i < N_PARTS; i++)
        cJSON_AddNumberToObject(c, keys[i], p[i].bytes);
    cJSON_AddNumberToObject(root, "total_bytes", e->total);
    cJSON_AddNumberToObject(root, "logit_values", e->logit_values);
    cJSON *inputs = cJSON_AddObjectToObject(root, "inputs");
    for (int k = 0; k < OOM_IN_COUNT; k++) {
        char value[160];
        input_value(s, k, value, sizeof value);
        cJSON *o = cJSON_AddObjectToObject(inputs, input_names[k]);
        cJSON_AddStringToObject(o, "value", value);
        cJSON_AddStringToObject(o, "source", s->from[k].text);
        cJSON_AddBoolToObject(o, "assumed", s->from[k].assumed);
    }
    return root;
}

static void write_svg(const oom_script_inputs *s, const oom_gpu *gpu, const oom_estimate *e, oom_buf *svg)
{
    part p[N_PARTS];
    parts_of(e, p);
    double cap = oom_gpu_capacity_bytes(gpu);
    double full = cap > e->total ? cap : e->total;
    const double x0 = 20, w = 760, y = 50, h = 40;
    oom_buf_printf(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"200\" "
                        "font-family=\"sans-serif\" font-size=\"12\">\n");
    oom_buf_puts(svg, "<text x=\"20\" y=\"25\" font-size=\"14\">");
    oom_report_xml_escape(svg, s->model_known ? s->model_id : "unknown model");
    oom_buf_printf(svg, ": %.1f GiB", e->total / OOM_GIB);
    if (gpu) {
        oom_buf_puts(svg, " on ");
        oom_report_xml_escape(svg, gpu->name);
    }
    oom_buf_puts(svg, "</text>\n");
    double x = x0;
    for (int i = 0; i < N_PARTS; i++) {
        double pw = w * p[i].bytes / full;
        oom_buf_printf(svg, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"><title>%s %.2f GiB</title></rect>\n",
                       x, y, pw, h, p[i].color, p[i].label, p[i].bytes / OOM_GIB);
        oom_buf_printf(svg, "<rect x=\"%.0f\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%.0f\" y=\"%d\">%s %.2f GiB</text>\n",
                       x0 + (i % 4) * 190, 115 + (i / 4) * 20, p[i].color, x0 + (i % 4) * 190 + 14,
                       124 + (i / 4) * 20, p[i].label, p[i].bytes / OOM_GIB);
        x += pw;
    }
    if (cap > 0) {
        double cx = x0 + w * cap / full;
        oom_buf_printf(svg, "<line x1=\"%.1f\" y1=\"40\" x2=\"%.1f\" y2=\"100\" stroke=\"black\" stroke-width=\"2\"/>"
                            "<text x=\"%.1f\" y=\"112\" text-anchor=\"end\">capacity %.3g GiB</text>\n",
                       cx, cx, cx, cap / OOM_GIB);
    }
    oom_buf_puts(svg, "</svg>\n");
}

/* A folder: the first script in it that loads a model oomlint knows. */
static char *script_in_folder(const char *dir, const oom_kb *kb)
{
    oom_discovery d;
    oom_strlist none = {NULL, 0, 0};
    oom_discover(&dir, 1, &none, NULL, &d);
    char *chosen = NULL;
    for (size_t i = 0; i < d.target_count && !chosen; i++) {
        oom_script_inputs probe;
        oom_buf err;
        oom_buf_init(&err);
        if (d.targets[i].lang == OOM_LANG_PYTHON &&
            oom_script_inputs_read(d.targets[i].path, kb, &probe, &err) && probe.model_known)
            chosen = oom_xstrdup(d.targets[i].path);
        oom_buf_free(&err);
    }
    oom_discovery_free(&d);
    return chosen;
}

/* A model config.json: the shape and exact size from its fields. */
static bool inputs_from_config(const char *path, oom_script_inputs *in, oom_buf *err)
{
    cJSON *root = oom_json_read_file(path);
    oom_model_config c;
    bool ok = root && oom_model_config_from_json(root, &c) && oom_model_param_count(&c) > 0;
    /* "architectures": ["GPT2LMHeadModel"]: the head the checkpoint has */
    const char *arch = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "architectures"), 0));
    oom_task task = arch ? oom_task_of_class(arch) : OOM_TASK_UNKNOWN;
    char why[176];
    if (ok && task != OOM_TASK_UNKNOWN) {
        snprintf(why, sizeof why, "%.60s (architectures in %.80s)", arch, path);
        oom_script_inputs_set_task(in, task, why);
    }
    cJSON_Delete(root);
    if (!ok) {
        oom_buf_printf(err, "%s: not a readable model config.json of a family oomlint can size", path);
        return false;
    }
    in->in.params = in->in.trainable = oom_model_param_count(&c);
    in->in.hidden = c.hidden_size, in->in.layers = c.num_hidden_layers;
    in->in.heads = c.num_attention_heads, in->in.vocab = c.vocab_size;
    snprintf(in->model_id, sizeof in->model_id, "%s", path);
    in->model_known = true;
    snprintf(in->from[OOM_IN_MODEL].text, sizeof in->from[0].text, "%s (%s)", path, c.model_type);
    in->from[OOM_IN_MODEL].assumed = false;
    return true;
}

/* A launch command after `--`, or the launch line of a shell script: the
 * script it runs, its arguments over the script's defaults. */
static bool inputs_from_launch(const oom_settings *s, const char *path, const oom_kb *kb, oom_script_inputs *in,
                               launch_read *lr, oom_buf *err)
{
    lr->used = true;
    if (s->estimate_launch && path) {
        oom_buf_printf(err, "give a file to estimate (%s) or a launch command after --, not both", path);
        return false;
    }
    bool ok = s->estimate_launch
                  ? oom_launch_from_argv((int)s->launch_argv.len, (const char *const *)s->launch_argv.items,
                                         &lr->launch, err)
                  : oom_launch_from_shell(path, &lr->launch, err);
    return ok && oom_script_inputs_read_launch(&lr->launch, kb, in, &lr->notes, err);
}

/* The inputs from what the command line names: a script, a folder, a
 * config.json, a YAML training config, a launch command or a shell script
 * that has one, and/or --model. */
static bool load_inputs(const oom_settings *s, const oom_kb *kb, oom_script_inputs *in, launch_read *lr,
                        oom_buf *err)
{
    const char *path = s->paths.len ? s->paths.items[0] : NULL;
    char *chosen = NULL;
    struct stat st;
    if (s->estimate_launch || (path && oom_str_ends_with(path, ".sh"))) {
        if (!inputs_from_launch(s, path, kb, in, lr, err))
            return false;
        path = lr->launch.script ? lr->launch.script : "the launch command (it runs no script)";
    } else if (path && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        path = chosen = script_in_folder(path, kb);
        if (!chosen) {
            oom_buf_printf(err, "%s: no script in this folder loads a model the knowledge base knows; "
                                "pass --model HUB_ID", s->paths.items[0]);
            return false;
        }
    }
    bool ok = true;
    if (!lr->used) {
        oom_script_inputs_init(in);
        if (path && oom_str_ends_with(path, ".json"))
            ok = inputs_from_config(path, in, err);
        else if (path && oom_lang_for_path(path) == OOM_LANG_YAML)
            ok = oom_script_inputs_read_yaml(path, kb, in, err);
        else if (path)
            ok = oom_script_inputs_read(path, kb, in, err);
    }
    free(chosen);
    if (ok && s->estimate_model) {
        char why[200];
        snprintf(why, sizeof why, "--model %s", s->estimate_model);
        ok = oom_script_inputs_use_model(in, kb, s->estimate_model, why);
        if (!ok)
            oom_buf_printf(err, "--model: '%s' is not in the knowledge base (or its size is unknown)",
                           s->estimate_model);
        in->from[OOM_IN_MODEL].assumed = false;
    }
    if (ok && !in->model_known && lr->used && !lr->launch.script_exists && lr->launch.script) {
        oom_buf_printf(err, "no model to size: %s does not exist and no argument names a model the knowledge base "
                            "knows; pass --model HUB_ID", lr->launch.script);
        ok = false;
    } else if (ok && !in->model_known) {
        const char *why = in->from[OOM_IN_MODEL].text;
        bool said = !oom_str_starts_with(why, "no model"); /* a reason the script's model was not taken */
        oom_buf_printf(err, "no model to size: %s loads none the knowledge base knows and defines none oomlint can size%s%s%s; pass --model HUB_ID",
                       path ? path : "no script given;", said ? " (" : "", said ? why : "", said ? ")" : "");
        ok = false;
    }
    return ok;
}

static void override(oom_script_inputs *in, oom_input_kind k, const char *flag)
{
    snprintf(in->from[k].text, sizeof in->from[k].text, "%s", flag);
    in->from[k].assumed = false;
}

/* Flags win over anything the script says. */
static void apply_flags(const oom_settings *s, const oom_run_context *run, oom_script_inputs *in)
{
    int num_gpus = run->num_gpus;
    in->in.eager_module_loading = run->eager_module_loading;
    if (s->estimate_batch > 0) {
        in->in.micro_batch = s->estimate_batch;
        override(in, OOM_IN_BATCH, "--batch-size");
    }
    if (s->estimate_seq > 0) {
        in->in.seq_len = s->estimate_seq;
        override(in, OOM_IN_SEQ, "--seq-len");
    }
    if (s->estimate_image > 0) {
        in->in.image_h = in->in.image_w = s->estimate_image;
        override(in, OOM_IN_IMAGE, "--image-size");
    }
    if (s->estimate_precision >= 0) {
        in->in.precision = (oom_precision)s->estimate_precision;
        override(in, OOM_IN_PRECISION, "--precision");
    }
    if (s->estimate_optimizer >= 0) {
        in->in.optimizer = (oom_optimizer)s->estimate_optimizer;
        override(in, OOM_IN_OPTIMIZER, "--optimizer");
    }
    if (s->estimate_checkpointing) {
        in->in.gradient_checkpointing = true;
        override(in, OOM_IN_CHECKPOINTING, "--gradient-checkpointing");
    }
    if (num_gpus > 0) {
        in->in.num_gpus = num_gpus;
        override(in, OOM_IN_GPUS, "--num-gpus / num-gpus");
    }
    if (s->estimate_task >= 0) {
        oom_script_inputs_set_task(in, (oom_task)s->estimate_task, "--task");
        in->task_named = true;
    }
}

static void print_plan(const oom_script_inputs *in, const oom_gpu *gpu, const oom_estimate *e)
{
    double cap = oom_gpu_capacity_bytes(gpu);
    if (cap <= 0 || e->total <= OOM_NEAR_CAPACITY * cap)
        return;
    oom_buf plan;
    oom_buf_init(&plan);
    oom_estimate after;
    bool fits = oom_estimate_fix_plan(in, gpu, OOM_NEAR_CAPACITY * cap, &plan, &after);
    printf("\n%s: %s\n", fits ? "To fit under 90%" : "Closest the toolbox gets", plan.data);
    oom_buf_free(&plan);
}

/* The model's hard position limit, the longest sequence --max-batch may
 * answer; 0 when it has none or is unknown. */
static long long hard_position_limit(const oom_kb *kb, const oom_script_inputs *in)
{
    const oom_model *m = kb ? oom_kb_find_model(kb, in->model_id) : NULL;
    return m && m->position_limit && strcmp(m->position_limit, "hard") == 0 ? m->config.max_position_embeddings
                                                                            : 0;
}

/* --max-batch in --format json: "max_batch" (or "max_seq_len" with --batch-size). */
static void add_max_batch_json(cJSON *root, const oom_settings *s, const oom_kb *kb, const oom_script_inputs *in,
                               const oom_gpu *gpu)
{
    double target = OOM_NEAR_CAPACITY * oom_gpu_capacity_bytes(gpu);
    if (s->estimate_batch > 0 && !oom_script_inputs_is_image(in)) {
        long long seq;
        oom_estimate at;
        bool fits = oom_estimate_max_seq(in, target, hard_position_limit(kb, in), &seq, &at);
        cJSON_AddNumberToObject(root, "max_seq_len", fits ? (double)seq : 0);
        return;
    }
    oom_max_batch mb;
    cJSON *o = cJSON_AddObjectToObject(root, "max_batch");
    bool fits = oom_estimate_max_batch(in, target, &mb);
    cJSON_AddNumberToObject(o, "micro_batch", fits ? (double)mb.micro_batch : 0);
    cJSON_AddNumberToObject(o, "total_bytes", fits ? mb.at_max.total : 0);
    cJSON_AddNumberToObject(o, "global_batch", (double)mb.global_batch);
    cJSON_AddNumberToObject(o, "kept_micro_batch", fits ? (double)mb.kept_micro_batch : 0);
    cJSON_AddNumberToObject(o, "gradient_accumulation_steps", fits ? mb.grad_accum : 0);
}

/* --max-batch: the largest micro-batch within 90% of the GPU (or, with
 * --batch-size, the longest sequence at that batch). */
static int print_max_batch(const oom_settings *s, const oom_kb *kb, const oom_script_inputs *in,
                           const oom_gpu *gpu)
{
    double target = OOM_NEAR_CAPACITY * oom_gpu_capacity_bytes(gpu);
    if (s->estimate_batch > 0 && !oom_script_inputs_is_image(in)) {
        long long limit = hard_position_limit(kb, in);
        long long seq;
        oom_estimate at;
        if (!oom_estimate_max_seq(in, target, limit, &seq, &at))
            printf("\nLongest sequence at batch %lld within 90%% of the %s: none fits\n", in->in.micro_batch,
                   gpu->name);
        else
            printf("\nLongest sequence at batch %lld within 90%% of the %s: %s=%lld (%.1f GiB)%s\n",
                   in->in.micro_batch, gpu->name, in->seq_name[0] ? in->seq_name : "max_length", seq,
                   at.total / OOM_GIB, limit > 0 && seq == limit ? ", the model's position limit" : "");
        return OOM_EXIT_CLEAN;
    }
    oom_max_batch mb;
    if (!oom_estimate_max_batch(in, target, &mb)) {
        printf("\nLargest micro-batch within 90%% of the %s: none fits, even 1 (see the plan above)\n",
               gpu->name);
        return OOM_EXIT_CLEAN;
    }
    const char *batch = in->batch_name[0] ? in->batch_name : "per_device_train_batch_size";
    printf("\nLargest micro-batch within 90%% of the %s: %s=%lld (%.1f GiB)\n", gpu->name, batch, mb.micro_batch,
           mb.at_max.total / OOM_GIB);
    if (mb.global_batch > 1)
        printf("  the script's global batch of %lld: %s=%lld with gradient_accumulation_steps=%d (%.1f GiB)\n",
               mb.global_batch, batch, mb.kept_micro_batch, mb.grad_accum, mb.at_kept.total / OOM_GIB);
    return OOM_EXIT_CLEAN;
}

static int write_plot(const char *file, const oom_script_inputs *in, const oom_gpu *gpu,
                      const oom_estimate *e)
{
    oom_buf svg, err;
    oom_buf_init(&svg);
    oom_buf_init(&err);
    write_svg(in, gpu, e, &svg);
    int rc = oom_write_file_atomically(file, svg.data, svg.len, &err);
    if (rc != 0)
        fprintf(stderr, "oomlint: error: %s\n", err.data);
    oom_buf_free(&svg);
    oom_buf_free(&err);
    return rc;
}

/* The estimate of the inputs read, the flags over them, in the format asked. */
static int estimate_and_report(const oom_settings *s, const oom_kb *kb, const oom_run_context *run,
                               const oom_script_inputs *loaded, const launch_read *lr)
{
    const oom_gpu *gpu = run->gpu;
    oom_script_inputs in = *loaded;
    apply_flags(s, run, &in);
    oom_estimate e;
    oom_estimate_compute(&in.in, &e);
    if (s->format == OOM_FORMAT_JSON) {
        cJSON *j = to_json(&in, gpu, &e);
        add_launch_json(j, lr);
        if (s->estimate_max_batch)
            add_max_batch_json(j, s, kb, &in, gpu);
        char *text = cJSON_Print(j);
        printf("%s\n", text);
        free(text);
        cJSON_Delete(j);
    } else {
        print_text(&in, gpu, &e, lr, stdout);
        print_plan(&in, gpu, &e);
        if (s->estimate_max_batch && print_max_batch(s, kb, &in, gpu) != OOM_EXIT_CLEAN)
            return OOM_EXIT_FAILURE;
    }
    if (s->plot_file && write_plot(s->plot_file, &in, gpu, &e) != 0)
        return OOM_EXIT_FAILURE;
    return OOM_EXIT_CLEAN;
}

static void launch_read_free(launch_read *lr)
{
    oom_launch_free(&lr->launch);
    oom_strlist_free(&lr->notes);
}

int oom_cli_estimate(const oom_settings *s, const oom_kb *kb, const oom_run_context *run)
{
    const oom_gpu *gpu = run->gpu;
    if (s->estimate_max_batch && (!gpu || gpu->memory_gib <= 0)) {
        fprintf(stderr, "oomlint: error: --max-batch needs the target GPU (--gpu NAME, see oomlint gpus)\n");
        return OOM_EXIT_FAILURE;
    }
    oom_script_inputs in;
    oom_buf err;
    oom_buf_init(&err);
    launch_read lr;
    memset(&lr, 0, sizeof lr);
    oom_launch_init(&lr.launch);
    if (!load_inputs(s, kb, &in, &lr, &err)) {
        for (size_t i = 0; i < lr.notes.len; i++) {
            fputs("oomlint: note: ", stderr);
            put_display(stderr, lr.notes.items[i]);
            fputc('\n', stderr);
        }
        fprintf(stderr, "oomlint: error: %s\n", err.data);
        oom_buf_free(&err);
        launch_read_free(&lr);
        return OOM_EXIT_FAILURE;
    }
    oom_buf_free(&err);
    int rc = estimate_and_report(s, kb, run, &in, &lr);
    launch_read_free(&lr);
    return rc;
}

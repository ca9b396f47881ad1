/* report/estimate: `oomlint estimate`'s result as text (a table of the
 * parts alive at the peak, a bar against the GPU, the inputs with their
 * provenance), as JSON and as an SVG chart. The CLI decides which; nothing
 * here computes an estimate. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/estimate_report.h"
#include "oomlint/report.h"
#include "oomlint/text.h"

typedef struct {
    const char *label;
    double bytes;
    char glyph;
    const char *color;
} part;

#define N_PARTS 10

/* The parts alive at the peak, which add up to the total: at the optimizer
 * step the activations are gone and the step's temporaries are there; in
 * forward and backward (PyTorch 2 frees the gradients between steps) the
 * other way round. Inference keeps generate()'s KV cache instead. A 4-bit
 * model has one weight dequantised to 16 bits while its layer runs. */
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
                       {"dequantized 4-bit", e->peak_dequant, 'D', "#e377c2"},
                       {"allocator slack", e->slack, 'S', "#bcbd22"}};
    memcpy(out, p, sizeof p);
}

static const char *const input_names[OOM_IN_COUNT] = {"model", "batch", "sequence", "precision",
                                                      "optimizer", "checkpointing", "attention",
                                                      "sharding", "GPUs", "trainable", "image", "task",
                                                      "mode", "target"};

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
    if (k == OOM_IN_TARGET) /* an encoder-decoder's decoder runs over the target */
        return s->in.decoder_layers > 0 && s->in.lm_head && !image;
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
    case OOM_IN_TARGET:
        snprintf(buf, n, "%lld", in->target_len > 0 ? in->target_len : in->seq_len);
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

/* The positions whose logits were counted: one for generate(), the
 * target's for an encoder-decoder, else the sequence. */
static long long logit_positions(const oom_script_inputs *s, const oom_estimate *e)
{
    double per_position = (double)s->in.micro_batch * (double)s->in.vocab;
    return per_position > 0 ? (long long)(e->logit_values / per_position + 0.5) : s->in.seq_len;
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
void oom_report_display(FILE *f, const char *s)
{
    oom_buf b;
    oom_buf_init(&b);
    oom_text_append_display(&b, s, strlen(s), 0);
    fputs(b.data ? b.data : "", f);
    oom_buf_free(&b);
}

static void print_launch(const oom_launch_read *lr, FILE *f)
{
    if (!lr || !lr->used)
        return;
    const oom_launch *l = &lr->launch;
    fputs("\nLaunch: ", f);
    oom_report_display(f, l->command ? l->command : "");
    if (l->file && l->line) {
        fputs("  (", f);
        oom_report_display(f, l->file);
        fprintf(f, ":%u)", l->line);
    }
    fputc('\n', f);
}

static void print_notes(const oom_launch_read *lr, FILE *f)
{
    if (!lr || !lr->used || lr->notes.len == 0)
        return;
    fputs("\nNotes:\n", f);
    for (size_t i = 0; i < lr->notes.len; i++) {
        fputs("  - ", f);
        oom_report_display(f, lr->notes.items[i]);
        fputc('\n', f);
    }
}

static const char *placement_name(oom_placement p)
{
    static const char *const names[] = {"none found", "one GPU", "device_map / max_memory", "CPU"};
    return names[p];
}

/* An inference script's device: what decides whether --gpu's capacity
 * rules judge it (project/capacity.c). */
static void print_placement(const oom_script_inputs *s, FILE *f)
{
    if (s->in.training || !s->placed.text[0]) /* read for models loaded with from_pretrained */
        return;
    fprintf(f, "  %-13s %-28s %s", "device", placement_name(s->placement), s->placed.assumed ? "assumed: " : "");
    oom_report_display(f, s->placed.text);
    fputc('\n', f);
}

void oom_report_estimate_text(const oom_estimate_view *v, FILE *f)
{
    const oom_script_inputs *s = v->inputs;
    const oom_gpu *gpu = v->gpu;
    const oom_estimate *e = v->estimate;
    const oom_launch_read *lr = v->launch;
    part p[N_PARTS];
    parts_of(e, p);
    double cap = oom_gpu_capacity_bytes(gpu);
    fprintf(f, "Peak GPU memory per GPU%s: %s%s%s\n\n", s->in.training ? "" : " (inference)",
            s->model_known ? s->model_id : "(unknown model)", gpu ? " on " : "", gpu ? gpu->name : "");
    for (int i = 0; i < N_PARTS; i++) {
        if ((p[i].glyph == 'K' || p[i].glyph == 'D') && p[i].bytes <= 0)
            continue; /* training keeps no KV cache; only a 4-bit model dequantises */
        fprintf(f, "  %c %-18s %8.2f GiB", p[i].glyph, p[i].label, p[i].bytes / OOM_GIB);
        if (p[i].glyph == 'L' && e->logit_values > 0) /* the size of one copy, for checking by hand */
            fprintf(f, "   (%lld x %lld x %lld values, %.2f GiB per fp32 copy)", s->in.micro_batch,
                    logit_positions(s, e), s->in.vocab, 4.0 * e->logit_values / OOM_GIB);
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
        oom_report_display(f, s->from[k].text);
        fputc('\n', f);
    }
    print_placement(s, f);
    print_notes(lr, f);
}

static void add_launch_json(cJSON *root, const oom_launch_read *lr)
{
    if (!lr || !lr->used)
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

cJSON *oom_report_estimate_json(const oom_estimate_view *v)
{
    const oom_script_inputs *s = v->inputs;
    const oom_gpu *gpu = v->gpu;
    const oom_estimate *e = v->estimate;
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
                                       "dequantized_weight", "allocator_slack"};
    for (int i = 0; i < N_PARTS; i++)
        cJSON_AddNumberToObject(c, keys[i], p[i].bytes);
    cJSON_AddNumberToObject(root, "total_bytes", e->total);
    cJSON_AddNumberToObject(root, "logit_values", e->logit_values);
    cJSON *inputs = cJSON_AddObjectToObject(root, "inputs");
    for (int k = 0; k < OOM_IN_COUNT; k++) {
        char value[160];
        if (k == OOM_IN_TARGET && !input_applies(s, k))
            continue; /* only an encoder-decoder has one */
        input_value(s, k, value, sizeof value);
        cJSON *o = cJSON_AddObjectToObject(inputs, input_names[k]);
        cJSON_AddStringToObject(o, "value", value);
        cJSON_AddStringToObject(o, "source", s->from[k].text);
        cJSON_AddBoolToObject(o, "assumed", s->from[k].assumed);
    }
    if (!s->in.training && s->placed.text[0]) {
        cJSON *o = cJSON_AddObjectToObject(inputs, "device");
        cJSON_AddStringToObject(o, "value", placement_name(s->placement));
        cJSON_AddStringToObject(o, "source", s->placed.text);
        cJSON_AddBoolToObject(o, "assumed", s->placed.assumed);
    }
    add_launch_json(root, v->launch);
    return root;
}

void oom_report_estimate_svg(const oom_estimate_view *v, oom_buf *svg)
{
    const oom_script_inputs *s = v->inputs;
    const oom_gpu *gpu = v->gpu;
    const oom_estimate *e = v->estimate;
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

/* cli/estimate: `oomlint estimate` — the command line's request read into
 * inputs (estimate/request.c), the flags over them, the estimate, and the
 * report the format asks for (report/estimate.c), the fix plan and
 * --max-batch. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/cli.h"
#include "oomlint/estimate.h"
#include "oomlint/estimate_report.h"
#include "oomlint/report.h"

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
    if (!in->in.training) { /* inference: no gradients to accumulate, a batch of prompts */
        if (in->prompts_batch || (in->in.generates && in->from[OOM_IN_BATCH].assumed))
            printf("\nMost prompts per generate() call within 90%% of the %s: %lld (%.1f GiB)\n", gpu->name,
                   mb.micro_batch, mb.at_max.total / OOM_GIB);
        else
            printf("\nLargest batch within 90%% of the %s: %s=%lld (%.1f GiB)\n", gpu->name, batch, mb.micro_batch,
                   mb.at_max.total / OOM_GIB);
        return OOM_EXIT_CLEAN;
    }
    printf("\nLargest micro-batch within 90%% of the %s: %s=%lld (%.1f GiB)\n", gpu->name, batch, mb.micro_batch,
           mb.at_max.total / OOM_GIB);
    if (mb.global_batch > 1)
        printf("  the script's global batch of %lld: %s=%lld with gradient_accumulation_steps=%d (%.1f GiB)\n",
               mb.global_batch, batch, mb.kept_micro_batch, mb.grad_accum, mb.at_kept.total / OOM_GIB);
    return OOM_EXIT_CLEAN;
}

static int write_plot(const char *file, const oom_estimate_view *view)
{
    oom_buf svg, err;
    oom_buf_init(&svg);
    oom_buf_init(&err);
    oom_report_estimate_svg(view, &svg);
    int rc = oom_write_file_atomically(file, svg.data, svg.len, &err);
    if (rc != 0)
        fprintf(stderr, "oomlint: error: %s\n", err.data);
    oom_buf_free(&svg);
    oom_buf_free(&err);
    return rc;
}

/* The estimate of the inputs read, the flags over them, in the format asked. */
static int estimate_and_report(const oom_settings *s, const oom_kb *kb, const oom_run_context *run,
                               const oom_script_inputs *loaded, const oom_launch_read *lr)
{
    const oom_gpu *gpu = run->gpu;
    oom_script_inputs in = *loaded;
    apply_flags(s, run, &in);
    oom_estimate e;
    oom_estimate_compute(&in.in, &e);
    oom_estimate_view view = {&in, gpu, &e, lr};
    if (s->format == OOM_FORMAT_JSON) {
        cJSON *j = oom_report_estimate_json(&view);
        if (s->estimate_max_batch)
            add_max_batch_json(j, s, kb, &in, gpu);
        char *text = cJSON_Print(j);
        printf("%s\n", text);
        free(text);
        cJSON_Delete(j);
    } else {
        oom_report_estimate_text(&view, stdout);
        print_plan(&in, gpu, &e);
        if (s->estimate_max_batch && print_max_batch(s, kb, &in, gpu) != OOM_EXIT_CLEAN)
            return OOM_EXIT_FAILURE;
    }
    if (s->plot_file && write_plot(s->plot_file, &view) != 0)
        return OOM_EXIT_FAILURE;
    return OOM_EXIT_CLEAN;
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
    oom_launch_read lr;
    oom_launch_read_init(&lr);
    oom_estimate_request req = {s->paths.len ? s->paths.items[0] : NULL, s->estimate_launch,
                                (const char *const *)s->launch_argv.items, s->launch_argv.len, s->estimate_model};
    if (!oom_estimate_load_inputs(&req, kb, &in, &lr, &err)) {
        for (size_t i = 0; i < lr.notes.len; i++) {
            fputs("oomlint: note: ", stderr);
            oom_report_display(stderr, lr.notes.items[i]);
            fputc('\n', stderr);
        }
        fprintf(stderr, "oomlint: error: %s\n", err.data);
        oom_buf_free(&err);
        oom_launch_read_free(&lr);
        return OOM_EXIT_FAILURE;
    }
    oom_buf_free(&err);
    int rc = estimate_and_report(s, kb, run, &in, &lr);
    oom_launch_read_free(&lr);
    return rc;
}

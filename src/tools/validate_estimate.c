/* validate-estimate: the estimate against every published figure the unit
 * tests use, against measured results (the JSON files in tests/gpu/results,
 * written by tests/gpu/measure.py on a GPU machine), for image models
 * against the CPU measurements of tests/gpu/cnn_profile.py at other batches
 * and sizes than the knowledge base's, and against the peaks others measured
 * and published (tests/estimate/measured.json), with the median and worst
 * error of each group: the fit cases apart from the holdout ones. */
#include <cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/estimate.h"
#include "oomlint/jsonfile.h"

#define MIB (1024.0 * 1024.0)

/* Errors by group: the published tables and own measurements, and the
 * measured cases of tests/estimate/measured.json that may tune constants
 * (fit) and that may not (holdout). */
typedef enum { GROUP_PUBLISHED, GROUP_FIT, GROUP_HOLDOUT, GROUP_COUNT } error_group;
static const char *const group_names[GROUP_COUNT] = {"published tables and own measurements",
                                                     "measured.json fit", "measured.json holdout"};
static double errors[GROUP_COUNT][256];
static double signed_errors[GROUP_COUNT][256];
static size_t n_errors[GROUP_COUNT];
static error_group current_group = GROUP_PUBLISHED;

static void row(const char *name, double estimate_mib, double reference_mib, const char *source)
{
    double err = (estimate_mib - reference_mib) / reference_mib;
    size_t *n = &n_errors[current_group];
    if (*n < 256) {
        errors[current_group][*n] = fabs(err);
        signed_errors[current_group][(*n)++] = err;
    }
    printf("%-46s %10.0f %10.0f %+7.1f%%  %s\n", name, estimate_mib, reference_mib, 100 * err, source);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void published(void)
{
    struct {
        const char *name;
        int batch;
        bool gc;
        oom_precision p;
        oom_optimizer o;
        double mib;
    } hf[] = {{"bert-large bs4 fp32 AdamW", 4, false, OOM_PREC_FP32, OOM_OPT_ADAMW, 14949},
              {"bert-large bs1 fp32 AdamW", 1, false, OOM_PREC_FP32, OOM_OPT_ADAMW, 8681},
              {"bert-large bs1 GC fp32", 1, true, OOM_PREC_FP32, OOM_OPT_ADAMW, 6775},
              {"bert-large bs4 fp16", 4, false, OOM_PREC_AMP_FP16, OOM_OPT_ADAMW, 13939},
              {"bert-large bs1 GC fp16", 1, true, OOM_PREC_AMP_FP16, OOM_OPT_ADAMW, 7275},
              {"bert-large bs4 Adafactor", 4, false, OOM_PREC_FP32, OOM_OPT_ADAFACTOR, 12295},
              {"bert-large bs1 GC fp16 Adafactor", 1, true, OOM_PREC_AMP_FP16, OOM_OPT_ADAFACTOR, 4847},
              {"bert-large bs4 8-bit Adam", 4, false, OOM_PREC_FP32, OOM_OPT_ADAM_8BIT, 13085},
              {"bert-large bs1 GC fp16 8-bit Adam", 1, true, OOM_PREC_AMP_FP16, OOM_OPT_ADAM_8BIT, 5363}};
    for (size_t i = 0; i < sizeof hf / sizeof *hf; i++) {
        oom_estimate_input in = {.params = 335143938, .trainable = 335143938, .hidden = 1024, .layers = 24,
                                 .heads = 16, .vocab = 30522, .seq_len = 512, .micro_batch = hf[i].batch,
                                 .training = true, .precision = hf[i].p, .optimizer = hf[i].o, .num_gpus = 1,
                                 .gradient_checkpointing = hf[i].gc,
                                 /* measured in 2021 (CUDA 11.2, PyTorch 1.x): every kernel loaded at
                                  * start-up, zero_grad() kept the gradients */
                                 .eager_module_loading = true, .pre_torch2 = true};
        oom_estimate e;
        oom_estimate_compute(&in, &e);
        row(hf[i].name, e.total / MIB, hf[i].mib, "HF perf_train_gpu_one (V100, measured)");
    }
    oom_estimate_input acc = {.params = 108310272, .trainable = 108310272, .hidden = 768, .layers = 12,
                              .heads = 12, .vocab = 28996, .seq_len = 512, .micro_batch = 1, .training = true,
                              .precision = OOM_PREC_FP32, .optimizer = OOM_OPT_ADAMW, .num_gpus = 1};
    oom_estimate e;
    oom_estimate_compute(&acc, &e);
    row("bert-base-cased fp32 weights", e.weights / MIB, 413.18, "accelerate estimate-memory");
    row("bert-base-cased Adam training", (e.weights + e.gradients + e.optimizer) / MIB, 1.61 * 1024,
        "accelerate estimate-memory");
    const double gib = OOM_GIB;
    row("DeepSpeed ZeRO-2 t5-3b 8 GPUs, offload", oom_estimate_deepspeed_zero2_gpu(2851e6, 8, true, false) / MIB,
        5.31 * gib / MIB, "DeepSpeed memory.rst");
    row("DeepSpeed ZeRO-2 t5-3b 8 GPUs (legacy formula)", oom_estimate_deepspeed_zero2_gpu(2851e6, 8, false, true) / MIB,
        15.93 * gib / MIB, "DeepSpeed memory.rst");
    row("DeepSpeed ZeRO-3 t5-3b 8 GPUs, no offload",
        oom_estimate_deepspeed_zero3_gpu(2851e6, 32e6, 8, false, false) / MIB, 6.09 * gib / MIB, "DeepSpeed memory.rst");
    row("DeepSpeed ZeRO-3 t5-large 4 GPUs, no offload",
        oom_estimate_deepspeed_zero3_gpu(737668096, 32899072, 4, false, false) / MIB, 3291, "DeepSpeed memory.rst");
    static const double params[] = {7.5e9, 128e9, 1e12};
    static const double table64[] = {31.4, 16.6, 1.88, 536, 284, 32, 4187, 2218, 250};
    for (int m = 0; m < 3; m++)
        for (int stage = 1; stage <= 3; stage++) {
            char name[64];
            snprintf(name, sizeof name, "ZeRO-%d %.3g params, 64 GPUs (GB)", stage, params[m]);
            double gb = oom_estimate_zero_model_states(params[m], stage, 64) / 1e9;
            row(name, gb * 1e9 / MIB, table64[m * 3 + stage - 1] * 1e9 / MIB, "ZeRO paper, Table I");
        }
}

/* The knowledge base's inputs for an image model at a batch and a side. */
static bool image_input(const oom_kb *kb, const char *id, long long batch, long long side, oom_estimate_input *in)
{
    oom_script_inputs s;
    oom_script_inputs_init(&s);
    if (!oom_script_inputs_use_model(&s, kb, id, NULL))
        return false;
    s.in.micro_batch = batch;
    s.in.image_h = s.in.image_w = side;
    *in = s.in;
    return true;
}

/* Image models: ResNet-50's published figures, and the activations the
 * knowledge base's 224 px figures scale to, against the same measurement
 * made at that batch and size (cnn_profile.json "scaling"). */
static void image_models(const oom_kb *kb, const char *profile)
{
    oom_estimate_input in;
    oom_estimate e;
    if (image_input(kb, "resnet50", 64, 224, &in)) {
        oom_estimate_compute(&in, &e);
        row("resnet50 weights+grads+Adam fp32", (e.weights + e.gradients + e.optimizer) / MIB, 390.78,
            "accelerate estimate-memory (timm resnet50)");
        row("resnet50 b64 224px activations fp32", e.activations / MIB, 5.50e9 / MIB,
            "docs/estimation.md §7 (CPU, saved tensors)");
    }
    cJSON *root = oom_json_read_file(profile);
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(root, "scaling"))
    {
        const char *model = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "model"));
        cJSON *batch = cJSON_GetObjectItemCaseSensitive(r, "batch");
        cJSON *side = cJSON_GetObjectItemCaseSensitive(r, "resolution");
        cJSON *bytes = cJSON_GetObjectItemCaseSensitive(r, "saved_bytes_per_image_fp32");
        if (!model || !cJSON_IsNumber(batch) || !cJSON_IsNumber(side) || !cJSON_IsNumber(bytes) ||
            !image_input(kb, model, (long long)batch->valuedouble, (long long)side->valuedouble, &in))
            continue;
        bool stem = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "cifar_stem"));
        const oom_model *m = oom_kb_find_model(kb, model);
        if (stem && m && m->vision.stem_resolution > 0) { /* as a script with the CIFAR stem reads */
            in.image_bytes = m->vision.stem_saved_fp32;
            in.image_ref = m->vision.stem_resolution;
        }
        oom_estimate_compute(&in, &e);
        char name[96];
        snprintf(name, sizeof name, "%s%s b%d %dpx activations fp32", model, stem ? " (CIFAR stem)" : "",
                 (int)batch->valuedouble, (int)side->valuedouble);
        row(name, e.activations / MIB, bytes->valuedouble * batch->valuedouble / MIB, profile);
    }
    if (!root)
        printf("(no image-model measurements in %s: run tests/gpu/cnn_profile.py)\n", profile);
    cJSON_Delete(root);
}

static void measured_file(const char *path)
{
    cJSON *root = oom_json_read_file(path);
    cJSON *r;
    cJSON_ArrayForEach(r, root)
    {
        double num[8];
        static const char *const keys[] = {"params", "hidden", "layers", "heads", "vocab", "batch", "seq",
                                           "max_memory_reserved"};
        bool ok = true;
        for (int k = 0; k < 8; k++) {
            cJSON *v = cJSON_GetObjectItemCaseSensitive(r, keys[k]);
            ok &= cJSON_IsNumber(v);
            num[k] = ok ? v->valuedouble : 0;
        }
        cJSON *prec = cJSON_GetObjectItemCaseSensitive(r, "precision");
        cJSON *kind = cJSON_GetObjectItemCaseSensitive(r, "kind");
        if (!ok || !cJSON_IsString(prec) || !cJSON_IsString(kind))
            continue;
        oom_precision p = strcmp(prec->valuestring, "fp16") == 0   ? OOM_PREC_AMP_FP16
                          : strcmp(prec->valuestring, "bf16") == 0 ? OOM_PREC_AMP_BF16
                                                                   : OOM_PREC_FP32;
        oom_estimate_input in = {
            .params = (long long)num[0], .trainable = (long long)num[0], .hidden = (long long)num[1],
            .layers = (long long)num[2], .heads = (long long)num[3], .vocab = (long long)num[4],
            .seq_len = (long long)num[6], .micro_batch = (long long)num[5], .training = true, .precision = p,
            .optimizer = OOM_OPT_ADAMW, .num_gpus = 1,
            .gradient_checkpointing = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "gradient_checkpointing")),
            .memory_efficient_attention = true, .lm_head = strcmp(kind->valuestring, "causal") == 0};
        oom_estimate e;
        oom_estimate_compute(&in, &e);
        char name[96];
        snprintf(name, sizeof name, "%s b%d s%d %s%s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "model")),
                 (int)num[5], (int)num[6], prec->valuestring, in.gradient_checkpointing ? " GC" : "");
        /* torch's reserved memory leaves the CUDA context out: compared without it */
        row(name, (e.total - e.context) / MIB, num[7] / MIB, path);
    }
    cJSON_Delete(root);
}

/* ---- tests/estimate/measured.json ------------------------------------------------- */

static cJSON *item(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static double number_or(const cJSON *o, const char *key, double fallback)
{
    cJSON *v = item(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

static const char *string_or(const cJSON *o, const char *key, const char *fallback)
{
    const char *v = cJSON_GetStringValue(item(o, key));
    return v ? v : fallback;
}

/* The precision as one of ours: 16-bit weights without autocast are a
 * 16-bit model; fp32 weights with a mixed switch are autocast; quantised
 * weights are quantised whatever the switch (it sets the compute dtype). */
static bool case_precision(const cJSON *st, oom_precision *p)
{
    const char *w = string_or(st, "weights", "fp32"), *mixed = string_or(st, "mixed", "none");
    if (strcmp(w, "nf4") == 0)
        *p = OOM_PREC_NF4;
    else if (strcmp(w, "int8") == 0)
        *p = OOM_PREC_INT8;
    else if (strcmp(w, "bf16") == 0 || strcmp(w, "fp16") == 0)
        *p = OOM_PREC_PURE_BF16;
    else if (strcmp(w, "fp32") == 0)
        *p = strcmp(mixed, "bf16") == 0 ? OOM_PREC_AMP_BF16
             : strcmp(mixed, "fp16") == 0 ? OOM_PREC_AMP_FP16
                                          : OOM_PREC_FP32;
    else
        return false;
    return true;
}

/* LoRA: the trainable count the source states, or r x (in + out) per
 * target and layer. */
static bool case_lora(const cJSON *lora, oom_estimate_input *in)
{
    if (!lora)
        return true;
    long long trainable = (long long)number_or(lora, "trainable", 0);
    if (trainable <= 0) {
        long long r = (long long)number_or(lora, "r", 0), per_layer = 0;
        cJSON *t;
        cJSON_ArrayForEach(t, item(lora, "targets"))
        {
            long long f = cJSON_IsString(t) ? oom_estimate_lora_features(in, t->valuestring) : 0;
            if (f <= 0)
                return false;
            per_layer += f;
        }
        trainable = in->layers * r * per_layer;
    }
    if (trainable <= 0)
        return false;
    in->trainable = trainable;
    in->adapter_bytes = (int)number_or(lora, "adapter_bytes", 0);
    in->lora_dropout_modules = (int)number_or(lora, "dropout_modules", 0);
    /* without dropout, each target's LoRA branch keeps the target's input */
    in->lora_kept_inputs = 0;
    cJSON *target;
    cJSON_ArrayForEach(target, item(lora, "targets"))
    {
        if (cJSON_IsString(target))
            oom_estimate_count_lora_target(in, target->valuestring);
    }
    if (number_or(lora, "dropout", 0) <= 0) {
        cJSON *t;
        cJSON_ArrayForEach(t, item(lora, "targets"))
        {
            if (cJSON_IsString(t))
                in->lora_kept_inputs |= oom_estimate_lora_input_of(t->valuestring);
        }
    }
    return true;
}

/* bitsandbytes before 0.43.2 kept each 4-bit layer's input for backward
 * (PR #1270 dropped it): from the version the case names. */
static bool bnb_keeps_inputs(const char *version)
{
    int major = 0, minor = 0, patch = 0;
    if (sscanf(version, "%d.%d.%d", &major, &minor, &patch) < 2)
        return false;
    return major == 0 && (minor < 43 || (minor == 43 && patch < 2));
}

static bool case_inputs(const oom_kb *kb, const cJSON *c, oom_estimate_input *in)
{
    const cJSON *st = item(c, "settings");
    oom_script_inputs s;
    oom_script_inputs_init(&s);
    if (!st || !oom_script_inputs_use_model(&s, kb, string_or(c, "model", ""), NULL))
        return false;
    *in = s.in;
    in->training = cJSON_IsTrue(item(st, "training"));
    in->micro_batch = (long long)number_or(st, "batch", 1);
    in->seq_len = (long long)number_or(st, "seq", 512);
    in->num_gpus = (int)number_or(st, "num_gpus", 1);
    in->gradient_checkpointing = cJSON_IsTrue(item(st, "gradient_checkpointing"));
    in->memory_efficient_attention = strcmp(string_or(st, "attention", "sdpa"), "eager") != 0;
    in->double_quant = cJSON_IsTrue(item(st, "double_quant"));
    in->head_quantized = cJSON_IsTrue(item(st, "head_quantized"));
    in->unquantized_bytes = (int)number_or(st, "unquantized_bytes", 0);
    in->loss_16bit = strcmp(string_or(st, "loss", "fp32"), "16bit") == 0;
    const char *opt = string_or(st, "optimizer", "adamw");
    in->optimizer = strcmp(opt, "sgd") == 0 ? OOM_OPT_SGD : OOM_OPT_ADAMW;
    in->fused_optimizer = cJSON_IsTrue(item(st, "fused_optimizer"));
    in->generates = cJSON_IsTrue(item(st, "generates"));
    in->new_tokens = (long long)number_or(st, "new_tokens", 0);
    in->dequant_cast_bytes = (int)number_or(st, "dequantize_cast_bytes", 0);
    in->bnb_keeps_inputs = bnb_keeps_inputs(string_or(item(c, "software"), "bitsandbytes", ""));
    /* a quantised model's "mixed" names autocast, not its weights */
    in->autocast = strcmp(string_or(st, "mixed", "none"), "none") != 0;
    return case_precision(st, &in->precision) && case_lora(item(st, "lora"), in);
}

/* The measured figure in MiB, and the estimate of the same thing: the
 * allocator's peak leaves out the context and the cache's slack; the
 * reserved peak the context; nvidia-smi nothing. */
static bool case_compare(const cJSON *m, const oom_estimate *e, double *estimate_mib, double *measured_mib)
{
    const char *unit = string_or(m, "unit", ""), *what = string_or(m, "what", "");
    double v = number_or(m, "value", -1), scale = 0;
    if (!strcmp(unit, "B"))
        scale = 1;
    else if (!strcmp(unit, "GB"))
        scale = 1e9;
    else if (!strcmp(unit, "GiB"))
        scale = OOM_GIB;
    else if (!strcmp(unit, "MiB"))
        scale = MIB;
    if (v <= 0 || scale == 0)
        return false;
    *measured_mib = v * scale / MIB;
    if (!strcmp(what, "max_memory_allocated"))
        *estimate_mib = (e->total - e->context - e->slack) / MIB;
    else if (!strcmp(what, "max_memory_reserved"))
        *estimate_mib = (e->total - e->context) / MIB;
    else if (!strcmp(what, "nvidia-smi"))
        *estimate_mib = e->total / MIB;
    else
        return false;
    return true;
}

static void measured_cases(const oom_kb *kb, const char *path)
{
    cJSON *root = oom_json_read_file(path);
    if (!root) {
        printf("(no measured cases: %s cannot be read as JSON)\n", path);
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        const char *want = pass == 0 ? "fit" : "holdout";
        current_group = pass == 0 ? GROUP_FIT : GROUP_HOLDOUT;
        printf("\n-- %s, %s cases --\n", path, want);
        cJSON *c;
        cJSON_ArrayForEach(c, item(root, "cases"))
        {
            if (strcmp(string_or(c, "set", ""), want) != 0)
                continue;
            oom_estimate_input in;
            oom_estimate e;
            double est, ref;
            const char *id = string_or(c, "id", "?");
            if (!case_inputs(kb, c, &in)) {
                printf("%-46s (skipped: model not in the knowledge base or settings not understood)\n", id);
                continue;
            }
            oom_estimate_compute(&in, &e);
            if (!case_compare(item(c, "measured"), &e, &est, &ref)) {
                printf("%-46s (skipped: measured value, unit or kind not understood)\n", id);
                continue;
            }
            char src[64];
            snprintf(src, sizeof src, "%s, %s", string_or(item(c, "measured"), "what", ""),
                     e.step > e.forward_backward ? "step peak" : "fwd/bwd peak");
            row(id, est, ref, src);
        }
    }
    current_group = GROUP_PUBLISHED;
    cJSON_Delete(root);
}

static void summary(error_group g)
{
    size_t n = n_errors[g];
    if (!n)
        return;
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += signed_errors[g][i];
    qsort(errors[g], n, sizeof(double), cmp_double);
    printf("%-40s %3zu cases: median error %.1f%%, worst %.1f%%, mean signed %+.1f%%\n", group_names[g], n,
           100 * errors[g][n / 2], 100 * errors[g][n - 1], 100 * mean / (double)n);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/gpu/results";
    const char *profile = argc > 2 ? argv[2] : "tests/gpu/cnn_profile.json";
    const char *measured_json = argc > 3 ? argv[3] : "tests/estimate/measured.json";
    printf("%-46s %10s %10s %8s  %s\n", "case", "estimate", "reference", "error", "source (MiB)");
    published();
    oom_kb kb;
    oom_buf err;
    oom_buf_init(&err);
    bool kb_ok = oom_kb_load_embedded(&kb, &err) == 0;
    if (kb_ok)
        image_models(&kb, profile);
    else
        printf("(knowledge base: %s)\n", err.data);
    oom_buf_free(&err);
    DIR *d = opendir(dir);
    size_t measured = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            measured_file(path);
            measured++;
        }
    }
    if (d)
        closedir(d);
    if (!measured)
        printf("(no GPU measurements in %s: run tests/gpu/measure.py on a GPU machine)\n", dir);
    if (kb_ok)
        measured_cases(&kb, measured_json);
    oom_kb_free(&kb);
    printf("\n");
    for (int g = 0; g < GROUP_COUNT; g++)
        summary((error_group)g);
    return 0;
}

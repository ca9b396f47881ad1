/* The memory model against published figures (sources in each test). */
#include <math.h>

#include "harness.h"
#include "oomlint/estimate.h"

/* ZeRO paper (Rajbhandari et al., SC20), Table I: per-device model-state
 * memory in GB (decimal) for 7.5B, 128B and 1T parameters. */
static void zero_table_one(void)
{
    static const double params[] = {7.5e9, 128e9, 1e12};
    static const int nd[] = {1, 4, 16, 64, 256, 1024};
    static const double table[6][9] = {
        {120, 120, 120, 2048, 2048, 2048, 16000, 16000, 16000},
        {52.5, 41.3, 30, 896, 704, 512, 7000, 5500, 4000},
        {35.6, 21.6, 7.5, 608, 368, 128, 4750, 2875, 1000},
        {31.4, 16.6, 1.88, 536, 284, 32, 4187, 2218, 250},
        {30.4, 15.4, 0.47, 518, 263, 8, 4046, 2054, 62.5},
        {30.1, 15.1, 0.12, 513, 257, 2, 4011, 2013, 15.6},
    };
    for (int r = 0; r < 6; r++)
        for (int m = 0; m < 3; m++)
            for (int stage = 1; stage <= 3; stage++) {
                double gb = oom_estimate_zero_model_states(params[m], stage, nd[r]) / 1e9;
                double want = table[r][m * 3 + stage - 1];
                /* the table rounds (or truncates) to its last digit: 257.75 is printed 257 */
                double tolerance = want >= 100 ? 1.0 : want >= 10 ? 0.1 : 0.01;
                if (fabs(gb - want) > tolerance)
                    printf("  %.4g params, Nd=%d, stage %d: %.4g GB, table %.4g\n", params[m], nd[r], stage,
                           gb, want);
                CHECK(fabs(gb - want) <= tolerance);
            }
}

/* accelerate estimate-memory, bert-base-cased (108,310,272 params): total
 * 413.18 MiB in fp32, Adam training 1.61 GiB (docs/usage_guides/model_size_estimator). */
static void accelerate_bert_base_cased(void)
{
    oom_estimate_input in = {108310272, 108310272, 768, 12, 12, 28996, 512, 1, true,
                             OOM_PREC_FP32, OOM_OPT_ADAMW, 0, false, 1, false, false, false};
    oom_estimate e;
    oom_estimate_compute(&in, &e);
    CHECK(fabs(e.weights / (1024.0 * 1024) - 413.18) < 0.01);
    double states = (e.weights + e.gradients + e.optimizer) / (1024.0 * 1024 * 1024);
    CHECK(fabs(states - 1.61) < 0.005);
}

/* Hugging Face "Efficient training on a single GPU" (v4.27): bert-large-uncased
 * for sequence classification, V100 16 GB, sequence 512, GPU memory occupied.
 * Each estimate must be within 15% of the measurement. */
static void hf_bert_large_table(void)
{
    struct {
        const char *name;
        int batch;
        bool checkpointing;
        oom_precision precision;
        oom_optimizer optimizer;
        double measured_mib;
    } rows[] = {
        {"bs4 fp32 AdamW", 4, false, OOM_PREC_FP32, OOM_OPT_ADAMW, 14949},
        {"bs1 (GA4) fp32 AdamW", 1, false, OOM_PREC_FP32, OOM_OPT_ADAMW, 8681},
        {"bs1 GC fp32 AdamW", 1, true, OOM_PREC_FP32, OOM_OPT_ADAMW, 6775},
        {"bs4 fp16 AdamW", 4, false, OOM_PREC_AMP_FP16, OOM_OPT_ADAMW, 13939},
        {"bs1 GC fp16 AdamW", 1, true, OOM_PREC_AMP_FP16, OOM_OPT_ADAMW, 7275},
        {"bs4 fp32 Adafactor", 4, false, OOM_PREC_FP32, OOM_OPT_ADAFACTOR, 12295},
        {"bs1 GC fp16 Adafactor", 1, true, OOM_PREC_AMP_FP16, OOM_OPT_ADAFACTOR, 4847},
        {"bs4 fp32 8-bit Adam", 4, false, OOM_PREC_FP32, OOM_OPT_ADAM_8BIT, 13085},
        {"bs1 GC fp16 8-bit Adam", 1, true, OOM_PREC_AMP_FP16, OOM_OPT_ADAM_8BIT, 5363},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        oom_estimate_input in = {335143938, 335143938, 1024, 24, 16, 30522, 512, rows[i].batch, true,
                                 rows[i].precision, rows[i].optimizer, 0, false, 1,
                                 rows[i].checkpointing, false, false};
        oom_estimate e;
        oom_estimate_compute(&in, &e);
        double mib = e.total / (1024.0 * 1024);
        double err = (mib - rows[i].measured_mib) / rows[i].measured_mib;
        printf("  %-24s estimate %7.0f MiB, measured %7.0f MiB, %+5.1f%%\n", rows[i].name, mib,
               rows[i].measured_mib, 100 * err);
        CHECK(fabs(err) <= 0.15);
    }
}

/* DeepSpeed docs (memory.rst), t5-3b "cold" (2851e6 params, 32e6 largest
 * layer, one node of 8 GPUs), in GiB as DeepSpeed prints them; t5-large on 4
 * GPUs in MiB (737.67M params, 32.90M largest layer). */
static void deepspeed_documented_estimates(void)
{
    const double gib = 1024.0 * 1024 * 1024, mib = 1024.0 * 1024;
    double p = 2851e6, l = 32e6;
    CHECK(fabs(oom_estimate_deepspeed_zero2_gpu(p, 8, true, false) / gib - 5.31) < 0.005);
    CHECK(fabs(oom_estimate_deepspeed_zero2_gpu(p, 8, false, true) / gib - 15.93) < 0.005);
    CHECK(fabs(oom_estimate_deepspeed_zero2_gpu(p, 8, false, false) / gib - 11.28) < 0.005);
    CHECK(fabs(oom_estimate_deepspeed_zero3_gpu(p, l, 8, true, true) / gib - 0.12) < 0.005);
    CHECK(fabs(oom_estimate_deepspeed_zero3_gpu(p, l, 8, true, false) / gib - 0.78) < 0.005);
    CHECK(fabs(oom_estimate_deepspeed_zero3_gpu(p, l, 8, false, false) / gib - 6.09) < 0.005);
    double t5l = 737668096, t5l_largest = 32899072;
    CHECK((long long)(oom_estimate_deepspeed_zero3_gpu(t5l, t5l_largest, 4, false, false) / mib) == 3291);
    CHECK((long long)(oom_estimate_deepspeed_zero3_gpu(t5l, t5l_largest, 4, true, true) / mib) == 125);
    CHECK((long long)(oom_estimate_deepspeed_zero3_gpu(t5l, t5l_largest, 4, true, false) / mib) == 477);
}

void test_estimate_suite(void)
{
    oom_test_run("estimate: DeepSpeed's documented estimates (t5-3b, t5-large)", deepspeed_documented_estimates);
    oom_test_run("estimate: ZeRO paper Table I (18 cells)", zero_table_one);
    oom_test_run("estimate: accelerate estimate-memory, bert-base-cased", accelerate_bert_base_cased);
    oom_test_run("estimate: HF bert-large table on a V100, within 15%", hf_bert_large_table);
}

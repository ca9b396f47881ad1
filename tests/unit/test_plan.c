/* The fix plan's last step: a smaller model of the same family, chosen from
 * the knowledge base (issue 16, item 5). */
#include <stdlib.h>
#include <math.h>

#include "harness.h"
#include "oomlint/estimate.h"
#include "oomlint/kb.h"

static bool smaller_are(const oom_kb *kb, const char *id, const char *const *want, size_t n)
{
    const oom_model *m = oom_kb_find_model(kb, id);
    const oom_model *out[4];
    size_t got = m ? oom_kb_smaller_in_family(kb, m, out, 4) : 99;
    bool same = got == n;
    for (size_t i = 0; same && i < n; i++)
        same = strcmp(out[i]->id, want[i]) == 0;
    if (!same) {
        printf("  %s:", id);
        for (size_t i = 0; i < got && i < 4; i++)
            printf(" %s", out[i]->id);
        printf("\n");
    }
    return same;
}

#define IDS(...) ((const char *const[]){__VA_ARGS__}), sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *)

static void smaller_models_of_a_family(void)
{
    oom_kb kb;
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    CHECK(smaller_are(&kb, "bert-large-uncased", IDS("bert-base-uncased", "distilbert-base-uncased")));
    CHECK(smaller_are(&kb, "gpt2-large", IDS("gpt2-medium", "gpt2", "distilgpt2")));
    CHECK(smaller_are(&kb, "meta-llama/Llama-2-13b-hf", IDS("meta-llama/Llama-2-7b-hf")));
    CHECK(smaller_are(&kb, "Qwen/Qwen2.5-7B", IDS("Qwen/Qwen2.5-3B", "Qwen/Qwen2.5-1.5B", "Qwen/Qwen2.5-0.5B")));
    CHECK(smaller_are(&kb, "Qwen/Qwen3-8B", IDS("Qwen/Qwen3-4B", "Qwen/Qwen3-1.7B", "Qwen/Qwen3-0.6B")));
    /* Meta-Llama-3-8B and Llama-3.1-8B have one count: the first stands for both */
    CHECK(smaller_are(&kb, "meta-llama/Llama-3.1-70B",
                      IDS("meta-llama/Meta-Llama-3-8B", "meta-llama/Llama-3.2-3B", "meta-llama/Llama-3.2-1B")));
    CHECK(smaller_are(&kb, "answerdotai/ModernBERT-large", IDS("answerdotai/ModernBERT-base")));
    const oom_model *out[4];
    CHECK(oom_kb_smaller_in_family(&kb, oom_kb_find_model(&kb, "gpt2-xl"), out, 2) == 2 &&
          strcmp(out[1]->id, "gpt2-medium") == 0); /* at most `max` */
    CHECK(oom_kb_smaller_in_family(&kb, oom_kb_find_model(&kb, "distilgpt2"), out, 4) == 0); /* the smallest */
    CHECK(oom_kb_smaller_in_family(&kb, oom_kb_find_model(&kb, "lmsys/vicuna-7b-v1.5"), out, 4) == 0); /* no family */
    CHECK(oom_kb_smaller_in_family(&kb, oom_kb_find_model(&kb, "resnet50"), out, 4) == 0);
    oom_kb_free(&kb);
    oom_buf_free(&err);
}

static void training_inputs(oom_script_inputs *s, const oom_kb *kb, const char *id)
{
    oom_script_inputs_init(s);
    CHECK(oom_script_inputs_use_model(s, kb, id, NULL));
    s->in.micro_batch = 1;
    s->in.seq_len = 512;
    s->in.precision = OOM_PREC_AMP_BF16;
}

static void plan_ends_with_a_smaller_model(void)
{
    oom_kb kb;
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    const oom_gpu *t4 = oom_kb_find_gpu(&kb, "T4");
    CHECK(t4 != NULL);
    double target = OOM_NEAR_CAPACITY * t4->memory_gib * OOM_GIB;

    /* Llama-2-70b on a 16 GiB T4: even QLoRA keeps 70B x 0.5625 B = 36 GiB of
     * weights; the largest of the family that fits with QLoRA is 13b */
    oom_script_inputs s;
    training_inputs(&s, &kb, "meta-llama/Llama-2-70b-hf");
    CHECK(s.smaller_count == 2 && strcmp(s.smaller[0].id, "meta-llama/Llama-2-13b-hf") == 0);
    oom_buf plan;
    oom_buf_init(&plan);
    oom_estimate after;
    CHECK(oom_estimate_fix_plan(&s, t4, target, &plan, &after));
    const char *qlora = strstr(plan.data, "4 bits"), *smaller = strstr(plan.data, "meta-llama/Llama-2-13b-hf");
    CHECK(qlora && smaller && qlora < smaller); /* the smaller model comes last */
    CHECK(strstr(plan.data, "13.02B parameters against 68.98B") != NULL);
    /* the memory it reaches: Llama-2-13b in NF4 with r=16 adapters on q, k, v, o */
    oom_estimate_input want = s.in;
    want.params = 13015864320LL, want.hidden = 5120, want.layers = 40, want.heads = 40, want.vocab = 32000;
    want.intermediate = 13824, want.kv_heads = s.smaller[0].kv_heads, want.head_dim = s.smaller[0].head_dim;
    want.precision = OOM_PREC_NF4;
    want.trainable = 40LL * 4 * 16 * 2 * 5120;
    oom_estimate e;
    oom_estimate_compute(&want, &e);
    CHECK(fabs(after.total - e.total) < 1.0 && after.total <= target);
    char reached[64];
    snprintf(reached, sizeof reached, "-> about %.1f GiB", e.total / OOM_GIB);
    CHECK(strstr(plan.data, reached) != NULL);
    oom_buf_free(&plan);

    /* where the toolbox is enough, the model stays */
    training_inputs(&s, &kb, "Qwen/Qwen2.5-7B");
    CHECK(s.smaller_count == 3);
    oom_buf_init(&plan);
    CHECK(oom_estimate_fix_plan(&s, t4, target, &plan, &after));
    CHECK(strstr(plan.data, "smaller model") == NULL);
    oom_buf_free(&plan);

    /* bert-large on 0.5 GiB: QLoRA and the rest leave it at 0.57 GiB; bert-base is
     * the largest of the family that fits with it */
    oom_gpu tiny = *t4;
    tiny.memory_gib = 0.5;
    target = OOM_NEAR_CAPACITY * tiny.memory_gib * OOM_GIB;
    training_inputs(&s, &kb, "bert-large-uncased");
    s.in.seq_len = 128;
    oom_buf_init(&plan);
    CHECK(oom_estimate_fix_plan(&s, &tiny, target, &plan, &after) && after.total <= target);
    if (!strstr(plan.data, "bert-base-uncased (109M parameters against 335M)"))
        printf("  plan: %s (%.3f GiB, target %.3f GiB)\n", plan.data, after.total / OOM_GIB, target / OOM_GIB);
    CHECK(strstr(plan.data, "bert-base-uncased (109M parameters against 335M)") != NULL);
    oom_buf_free(&plan);
    oom_kb_free(&kb);
    oom_buf_free(&err);
}

/* A frozen base keeps one layer's activations; the plan's QLoRA puts
 * adapters in every layer, whose backward keeps them all. */
static void plan_lora_unfreezes(void)
{
    oom_kb kb;
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    const oom_gpu *t4 = oom_kb_find_gpu(&kb, "T4");
    double target = OOM_NEAR_CAPACITY * t4->memory_gib * OOM_GIB;
    oom_script_inputs s;
    oom_script_inputs_init(&s);
    CHECK(oom_script_inputs_use_model(&s, &kb, "meta-llama/Llama-2-13b-hf", NULL));
    s.in.micro_batch = 1, s.in.seq_len = 512;
    s.in.trainable = 5120 * 2, s.in.frozen_backbone = true; /* `score` over 2 labels */
    oom_buf plan;
    oom_buf_init(&plan);
    oom_estimate after, want;
    CHECK(oom_estimate_fix_plan(&s, t4, target, &plan, &after));
    CHECK(strstr(plan.data, "4 bits") != NULL);
    oom_estimate_input in = s.in;
    in.precision = OOM_PREC_NF4, in.trainable = 40LL * 4 * 16 * 2 * 5120, in.frozen_backbone = false;
    oom_estimate_compute(&in, &want);
    CHECK(fabs(after.total - want.total) < 1.0 && fabs(after.activations - want.activations) < 1.0);
    oom_buf_free(&plan);
    oom_kb_free(&kb);
    oom_buf_free(&err);
}

void test_plan_suite(void)
{
    oom_test_run("plan: smaller models of a family, from the knowledge base", smaller_models_of_a_family);
    oom_test_run("plan: a smaller model of the family comes last, with the memory it reaches",
                 plan_ends_with_a_smaller_model);
    oom_test_run("plan: LoRA on a frozen-base script trains through every layer", plan_lora_unfreezes);
}

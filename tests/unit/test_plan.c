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

/* A generate() script's inputs: the model in `precision`, `batch` prompts of
 * `prompt` tokens, `new_tokens` new ones. */
static void inference_inputs(oom_script_inputs *s, const oom_kb *kb, const char *id, oom_precision precision,
                             long long batch, long long prompt, long long new_tokens)
{
    oom_script_inputs_init(s);
    CHECK(oom_script_inputs_use_model(s, kb, id, NULL));
    s->in.training = false, s->in.generates = true;
    s->in.precision = precision;
    s->in.micro_batch = batch, s->in.seq_len = prompt, s->in.new_tokens = new_tokens;
}

static double total_of(const oom_estimate_input *in)
{
    oom_estimate e;
    oom_estimate_compute(in, &e);
    return e.total;
}

/* "<step> (about X GiB)" with X the estimate of `in`, rounded as the plan does. */
static bool step_reaches(const char *plan, const char *step, const oom_estimate_input *in)
{
    char want[256];
    snprintf(want, sizeof want, "%s (about %.1f GiB)", step, total_of(in) / OOM_GIB);
    bool ok = strstr(plan, want) != NULL;
    if (!ok)
        printf("  plan: %s\n  want: %s\n", plan, want);
    return ok;
}

/* Nothing an inference user cannot change: no trainer setting, optimizer,
 * checkpointing or adapters. */
static bool no_training_advice(const char *plan)
{
    static const char *const words[] = {"per_device_train_batch_size", "gradient", "optim", "LoRA", "ZeRO",
                                        "fp16=True", "bf16=True", NULL};
    for (int i = 0; words[i]; i++)
        if (strstr(plan, words[i])) {
            printf("  plan gives training advice (%s): %s\n", words[i], plan);
            return false;
        }
    return true;
}

/* Inference plans (issue 16, item 7): fewer prompts per call, 16-bit, the
 * GPUs named, 8-/4-bit weights, fewer new tokens, a smaller model; each
 * step with the estimate it reaches with the steps before it. */
static void plan_for_inference(void)
{
    oom_kb kb;
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    const oom_gpu *t4 = oom_kb_find_gpu(&kb, "T4");
    double target = OOM_NEAR_CAPACITY * oom_gpu_capacity_bytes(t4);
    oom_script_inputs s;
    oom_buf plan;
    oom_estimate after;

    /* Llama-2-13b in fp16 (24 GiB of weights), one prompt: 8 bits (12 GiB
     * and the 16-bit embeddings and head) is not enough, 4 bits is */
    inference_inputs(&s, &kb, "meta-llama/Llama-2-13b-hf", OOM_PREC_PURE_BF16, 1, 512, 512);
    oom_buf_init(&plan);
    CHECK(oom_estimate_fix_plan(&s, t4, target, &plan, &after));
    oom_estimate_input nf4 = s.in;
    nf4.precision = OOM_PREC_NF4;
    CHECK(step_reaches(plan.data, "4-bit weights: BitsAndBytesConfig(load_in_4bit=True)", &nf4));
    CHECK(strstr(plan.data, "8-bit") == NULL && strstr(plan.data, "; then") == NULL && no_training_advice(plan.data));
    CHECK(fabs(after.total - total_of(&nf4)) < 1.0);
    oom_buf_free(&plan);

    /* 32 prompts in 8 bits, 1024 + 1024 positions: the KV cache dominates;
     * fewer prompts per call, the model as it is */
    inference_inputs(&s, &kb, "meta-llama/Llama-2-7b-hf", OOM_PREC_INT8, 32, 1024, 1024);
    s.prompts_batch = true;
    oom_buf_init(&plan);
    CHECK(oom_estimate_fix_plan(&s, t4, target, &plan, &after));
    oom_estimate_input four = s.in;
    four.micro_batch = 4;
    CHECK(total_of(&four) <= target);
    four.micro_batch = 8;
    CHECK(total_of(&four) > target); /* 8 does not fit: halving stops at 4 */
    four.micro_batch = 4;
    CHECK(step_reaches(plan.data, "4 prompts per generate() call, the 32 in 8 calls", &four));
    CHECK(no_training_advice(plan.data));
    oom_buf_free(&plan);

    /* fp32 Llama-2-13b with two GPUs named: 16-bit weights first (the
     * cheapest), then the model split over both */
    inference_inputs(&s, &kb, "meta-llama/Llama-2-13b-hf", OOM_PREC_FP32, 1, 512, 256);
    s.in.num_gpus = 2;
    oom_buf_init(&plan);
    CHECK(oom_estimate_fix_plan(&s, t4, target, &plan, &after));
    oom_estimate_input half = s.in, split;
    half.precision = OOM_PREC_PURE_BF16;
    split = half;
    split.params = (split.params + 1) / 2, split.layers = 20;
    CHECK(step_reaches(plan.data, t4->bf16 ? "16-bit weights: torch_dtype=torch.bfloat16"
                                           : "16-bit weights: torch_dtype=torch.float16", &half));
    CHECK(step_reaches(plan.data, "; then split the model over the 2 GPUs: device_map=\"auto\"", &split));
    CHECK(split.params == 6507932160LL && total_of(&split) <= target && no_training_advice(plan.data));
    oom_buf_free(&plan);

    /* already 4-bit, one prompt, 32768 new tokens: a 16 GiB KV cache; fewer
     * new tokens is what is left */
    inference_inputs(&s, &kb, "meta-llama/Llama-2-7b-hf", OOM_PREC_NF4, 1, 512, 32768);
    oom_buf_init(&plan);
    CHECK(oom_estimate_fix_plan(&s, t4, target, &plan, &after));
    oom_estimate_input fewer = s.in;
    while (total_of(&fewer) > target && fewer.new_tokens > 64)
        fewer.new_tokens /= 2;
    char step[64];
    snprintf(step, sizeof step, "max_new_tokens=%lld (a smaller KV cache)", fewer.new_tokens);
    CHECK(fewer.new_tokens == 8192 && step_reaches(plan.data, step, &fewer)); /* 16384 still leaves 8.3 GiB of cache */
    oom_buf_free(&plan);

    /* Llama-2-70b: even 4 bits is 36 GiB; then the family's 13b */
    inference_inputs(&s, &kb, "meta-llama/Llama-2-70b-hf", OOM_PREC_PURE_BF16, 1, 512, 256);
    oom_buf_init(&plan);
    CHECK(oom_estimate_fix_plan(&s, t4, target, &plan, &after));
    const char *four_bit = strstr(plan.data, "4-bit weights"), *smaller = strstr(plan.data, "Llama-2-13b-hf (13.02B");
    CHECK(four_bit && smaller && four_bit < smaller && after.total <= target && no_training_advice(plan.data));
    CHECK(strstr(plan.data, "8-bit") == NULL); /* 8 bits would need the 7b */
    oom_buf_free(&plan);
    oom_kb_free(&kb);
    oom_buf_free(&err);
}

void test_plan_suite(void)
{
    oom_test_run("plan: for inference, what an inference user changes, each step with its estimate",
                 plan_for_inference);
    oom_test_run("plan: smaller models of a family, from the knowledge base", smaller_models_of_a_family);
    oom_test_run("plan: a smaller model of the family comes last, with the memory it reaches",
                 plan_ends_with_a_smaller_model);
    oom_test_run("plan: LoRA on a frozen-base script trains through every layer", plan_lora_unfreezes);
}

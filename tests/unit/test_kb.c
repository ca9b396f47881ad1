/* Parameter counts against the exact published values (docs/estimation.md
 * §6), and the knowledge base's own consistency. */
#include <stdlib.h>

#include "harness.h"
#include "oomlint/kb.h"

static oom_model_config cfg(const char *type, long long v, long long h, long long layers, long long heads,
                            long long kv, long long inter, long long pos, int tied)
{
    oom_model_config c;
    memset(&c, 0, sizeof c);
    snprintf(c.model_type, sizeof c.model_type, "%s", type);
    c.vocab_size = v, c.hidden_size = h, c.num_hidden_layers = layers, c.num_attention_heads = heads;
    c.num_key_value_heads = kv, c.intermediate_size = inter, c.max_position_embeddings = pos;
    c.tie_word_embeddings = tied;
    c.head_dim = c.num_decoder_layers = c.embedding_size = c.type_vocab_size = -1;
    c.num_local_experts = c.word_embed_proj_dim = -1;
    return c;
}

#define EXPECT_PARAMS(config, want)                                                         \
    do {                                                                                    \
        long long got_ = oom_model_param_count(&(config));                                  \
        if (got_ != (want))                                                                 \
            printf("  %s: got %lld, want %lld\n", #want, got_, (long long)(want));          \
        CHECK(got_ == (want));                                                              \
    } while (0)

static void exact_parameter_counts(void)
{
    oom_model_config c = cfg("bert", 30522, 768, 12, 12, -1, 3072, 512, -1);
    EXPECT_PARAMS(c, 109482240LL); /* bert-base-uncased */
    c = cfg("bert", 28996, 768, 12, 12, -1, 3072, 512, -1);
    EXPECT_PARAMS(c, 108310272LL); /* bert-base-cased */
    c = cfg("bert", 30522, 1024, 24, 16, -1, 4096, 512, -1);
    EXPECT_PARAMS(c, 335141888LL); /* bert-large-uncased */
    c = cfg("roberta", 50265, 768, 12, 12, -1, 3072, 514, -1);
    c.type_vocab_size = 1;
    EXPECT_PARAMS(c, 124645632LL); /* roberta-base */
    c = cfg("distilbert", 30522, 768, 6, 12, -1, 3072, 512, -1);
    EXPECT_PARAMS(c, 66362880LL);
    c = cfg("albert", 30000, 768, 12, 12, -1, 3072, 512, -1);
    c.embedding_size = 128;
    EXPECT_PARAMS(c, 11683584LL);
    c = cfg("gpt2", 50257, 768, 12, 12, -1, -1, 1024, 1);
    EXPECT_PARAMS(c, 124439808LL);
    c = cfg("gpt2", 50257, 1024, 24, 16, -1, -1, 1024, 1);
    EXPECT_PARAMS(c, 354823168LL);
    c = cfg("gpt2", 50257, 1280, 36, 20, -1, -1, 1024, 1);
    EXPECT_PARAMS(c, 774030080LL);
    c = cfg("gpt2", 50257, 1600, 48, 25, -1, -1, 1024, 1);
    EXPECT_PARAMS(c, 1557611200LL);
    c = cfg("t5", 32128, 512, 6, 8, -1, 2048, -1, 1);
    c.head_dim = 64;
    EXPECT_PARAMS(c, 60506624LL);
    c = cfg("t5", 32128, 768, 12, 12, -1, 3072, -1, 1);
    c.head_dim = 64;
    EXPECT_PARAMS(c, 222903552LL);
    c = cfg("t5", 32128, 1024, 24, 16, -1, 4096, -1, 1);
    c.head_dim = 64;
    EXPECT_PARAMS(c, 737668096LL);
    c = cfg("t5", 32128, 1024, 24, 32, -1, 16384, -1, 1);
    c.head_dim = 128;
    EXPECT_PARAMS(c, 2851598336LL); /* t5-3b */
    c = cfg("opt", 50272, 2048, 24, 32, -1, 8192, 2048, 1);
    EXPECT_PARAMS(c, 1315758080LL);
    c = cfg("gpt_neox", 50304, 2048, 16, 8, -1, 8192, 2048, 0);
    EXPECT_PARAMS(c, 1011781632LL); /* pythia-1b */
    c = cfg("llama", 32000, 4096, 32, 32, 32, 11008, 4096, 0);
    EXPECT_PARAMS(c, 6738415616LL); /* Llama-2-7b */
    c = cfg("llama", 32000, 5120, 40, 40, 40, 13824, 4096, 0);
    EXPECT_PARAMS(c, 13015864320LL); /* Llama-2-13b */
    c = cfg("llama", 128256, 4096, 32, 32, 8, 14336, 8192, 0);
    EXPECT_PARAMS(c, 8030261248LL); /* Meta-Llama-3-8B */
    c = cfg("mistral", 32000, 4096, 32, 32, 8, 14336, 32768, 0);
    EXPECT_PARAMS(c, 7241732096LL);
    c = cfg("qwen2", 152064, 3584, 28, 28, 4, 18944, 131072, 0);
    EXPECT_PARAMS(c, 7615616512LL);
    c = cfg("phi", 51200, 2560, 32, 32, 32, 10240, 2048, 0);
    EXPECT_PARAMS(c, 2779683840LL);
    c = cfg("gemma", 256000, 2048, 18, 8, 1, 16384, 8192, 1);
    c.head_dim = 256;
    EXPECT_PARAMS(c, 2506172416LL);
    c = cfg("llama", 32000, 2048, 22, 32, 4, 5632, 2048, 0);
    EXPECT_PARAMS(c, 1100048384LL); /* TinyLlama */
    c = cfg("no-such-family", 1000, 64, 2, 2, -1, 256, 128, 0);
    CHECK(oom_model_param_count(&c) == -1);
}

/* Published as a rounded label: "14.7B" is 14.7e9 to the nearest 0.1e9. */
#define EXPECT_ROUNDED(config, label, step)                                                 \
    do {                                                                                    \
        double got_ = (double)oom_model_param_count(&(config));                             \
        bool ok_ = got_ >= (label) - (step) / 2 && got_ < (label) + (step) / 2;             \
        if (!ok_)                                                                           \
            printf("  %s: got %.0f\n", #label, got_);                                       \
        CHECK(ok_);                                                                         \
    } while (0)

/* The families people fine-tune now (issue 16, item 9): counts published
 * exactly (keras-hub preset metadata, the Pythia paper) and, where only a
 * rounded label is published (model cards), the label. */
static void current_family_counts(void)
{
    oom_model_config c = cfg("qwen2", 151936, 1536, 28, 12, 2, 8960, 131072, 1);
    EXPECT_PARAMS(c, 1543714304LL); /* Qwen2.5-1.5B, tied */
    c = cfg("qwen2", 151936, 2048, 36, 16, 2, 11008, 32768, 1);
    EXPECT_PARAMS(c, 3085938688LL); /* Qwen2.5-3B */
    c = cfg("qwen3", 151936, 1024, 28, 16, 8, 3072, 40960, 1);
    c.head_dim = 128;
    EXPECT_PARAMS(c, 596049920LL); /* Qwen3-0.6B: q/k norms, head_dim 128 */
    c = cfg("qwen3", 151936, 2560, 36, 32, 8, 9728, 40960, 1);
    c.head_dim = 128;
    EXPECT_PARAMS(c, 4022468096LL); /* Qwen3-4B */
    c = cfg("qwen3", 151936, 4096, 36, 32, 8, 12288, 40960, 0);
    c.head_dim = 128;
    EXPECT_PARAMS(c, 8190735360LL); /* Qwen3-8B, untied */
    c = cfg("gemma2", 256000, 2304, 26, 8, 4, 9216, 8192, 1);
    c.head_dim = 256;
    EXPECT_PARAMS(c, 2614341888LL); /* gemma-2-2b: 4 norms per layer */
    c = cfg("gemma2", 256000, 3584, 42, 16, 8, 14336, 8192, 1);
    c.head_dim = 256;
    EXPECT_PARAMS(c, 9241705984LL); /* gemma-2-9b */
    c = cfg("gemma3_text", 262144, 1152, 26, 4, 1, 6912, 32768, 1);
    c.head_dim = 256;
    EXPECT_PARAMS(c, 999885952LL); /* gemma-3-1b */
    c = cfg("gemma3_text", 262144, 2560, 34, 8, 4, 10240, 131072, 1);
    c.head_dim = 256;
    EXPECT_PARAMS(c, 3880099328LL); /* gemma-3-4b text, keras-hub's 262,144-row vocabulary */
    c.vocab_size = 262208;
    EXPECT_PARAMS(c, 3880099328LL + 64 * 2560); /* the Hub config's 262,208 rows */
    c = cfg("llama", 128256, 8192, 80, 64, 8, 28672, 131072, 0);
    EXPECT_PARAMS(c, 70553706496LL); /* Llama-3.1-70B */
    c = cfg("gpt_neox", 50688, 5120, 36, 40, -1, 20480, 2048, 0);
    EXPECT_PARAMS(c, 11846072320LL); /* pythia-12b, the Pythia paper's table */
    c = cfg("phi3", 100352, 5120, 40, 40, 10, 17920, 16384, 0);
    EXPECT_ROUNDED(c, 14.7e9, 0.1e9); /* phi-4 */
    c = cfg("mistral", 131072, 5120, 40, 32, 8, 14336, 128000, 0);
    c.head_dim = 128; /* not 5120 / 32 */
    EXPECT_ROUNDED(c, 12.2e9, 0.1e9); /* Mistral-Nemo-Base-2407 */
    c = cfg("llama", 49152, 576, 30, 9, 3, 1536, 8192, 1);
    EXPECT_ROUNDED(c, 135e6, 1e6); /* SmolLM2-135M */
    c = cfg("llama", 49152, 960, 32, 15, 5, 2560, 8192, 1);
    EXPECT_ROUNDED(c, 360e6, 10e6); /* SmolLM2-360M */
    c = cfg("llama", 49152, 2048, 24, 32, 32, 8192, 8192, 1);
    EXPECT_ROUNDED(c, 1.7e9, 0.1e9); /* SmolLM2-1.7B */
    c = cfg("modernbert", 50368, 768, 22, 12, -1, 1152, 8192, 1);
    EXPECT_PARAMS(c, 149014272LL); /* ModernBERT-base without the MLM head */
    EXPECT_PARAMS(c, 149655232LL - (768LL * 768 + 768 + 50368)); /* card: 149M with the head */
    c = cfg("modernbert", 50368, 1024, 28, 16, -1, 2624, 8192, 1);
    EXPECT_ROUNDED(c, 395e6, 1e6); /* ModernBERT-large (card: 395M) */
    c.intermediate_size = -1;
    CHECK(oom_model_param_count(&c) == -1); /* no default MLP width to assume */
}

static void knowledge_base_is_consistent(void)
{
    oom_kb kb;
    oom_buf err;
    oom_buf_init(&err);
    int rc = oom_kb_load_embedded(&kb, &err);
    if (rc != 0)
        printf("  %s\n", err.data);
    CHECK(rc == 0);
    CHECK(kb.gpu_count >= 25);
    CHECK(kb.model_count >= 40);
    for (size_t i = 0; i < kb.model_count; i++) {
        const oom_model *m = &kb.models[i];
        long long got = oom_model_param_count(&m->config);
        if (m->params >= 0 && got >= 0 && got != m->params)
            printf("  %s: computed %lld, knowledge base says %lld\n", m->id, got, m->params);
        CHECK(m->params < 0 || got < 0 || got == m->params);
    }
    const oom_gpu *v100 = oom_kb_find_gpu(&kb, "V100");
    CHECK(v100 && v100->memory_gib == 16 && !v100->bf16);
    const oom_gpu *a100 = oom_kb_find_gpu(&kb, "a100_80gb");
    CHECK(a100 && a100->memory_gib == 80 && a100->bf16);
    CHECK(oom_kb_find_gpu(&kb, "Tesla V100-SXM2-32GB") && oom_kb_find_gpu(&kb, "Tesla V100-SXM2-32GB")->memory_gib == 32);
    const char *close[3];
    CHECK(oom_kb_closest_gpus(&kb, "a10O", close, 3) > 0);
    CHECK(oom_kb_find_model(&kb, "GPT2") != NULL && oom_kb_find_model(&kb, "meta-llama/Llama-2-7b-hf") != NULL);
    oom_kb_free(&kb);
    oom_buf_free(&err);
}

/* The diffusers classes whose prompts condition a denoiser, by qualified name. */
static void diffusion_model_classes(void)
{
    CHECK(oom_kb_is_diffusion_model_class("diffusers.UNet2DConditionModel.from_pretrained"));
    CHECK(oom_kb_is_diffusion_model_class("diffusers.models.UNet2DConditionModel"));
    CHECK(oom_kb_is_diffusion_model_class("diffusers.ControlNetModel.from_unet"));
    CHECK(oom_kb_is_diffusion_model_class("diffusers.SD3Transformer2DModel.from_pretrained"));
    CHECK(oom_kb_is_diffusion_model_class("diffusers.StableDiffusionXLPipeline.from_pretrained"));
    CHECK(!oom_kb_is_diffusion_model_class("diffusers.AutoencoderKL.from_pretrained"));
    CHECK(!oom_kb_is_diffusion_model_class("diffusers.optimization.get_scheduler"));
    CHECK(!oom_kb_is_diffusion_model_class("transformers.pipeline"));
    CHECK(!oom_kb_is_diffusion_model_class("UNet2DConditionModel"));
}

void test_kb_suite(void)
{
    oom_test_run("kb: exact parameter counts (docs/estimation.md §6)", exact_parameter_counts);
    oom_test_run("kb: parameter counts of current families (Qwen3, Gemma 2/3, ModernBERT ...)", current_family_counts);
    oom_test_run("kb: knowledge base loads and agrees with the counts", knowledge_base_is_consistent);
    oom_test_run("kb: diffusers classes that denoise under text conditioning", diffusion_model_classes);
}

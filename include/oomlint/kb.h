/* kb: the knowledge base: accelerators (memory, precision support) and
 * well-known model checkpoints (the config fields that decide memory), read
 * from rules/kb/ (gpus.json, models.json), embedded in the binary. */
#ifndef OOMLINT_KB_H
#define OOMLINT_KB_H

#include <stdbool.h>
#include <stddef.h>

#include "oomlint/util.h"

/* What the model's head computes, which decides the logits the loss needs:
 * a language-model head scores every position against the vocabulary. */
typedef enum {
    OOM_TASK_UNKNOWN,        /* no head found: no vocabulary logits counted */
    OOM_TASK_CAUSAL_LM,      /* *ForCausalLM, *LMHeadModel */
    OOM_TASK_SEQ2SEQ,        /* *ForConditionalGeneration, *ForSeq2SeqLM */
    OOM_TASK_MASKED_LM,      /* *ForMaskedLM */
    OOM_TASK_CLASSIFICATION, /* *ForSequenceClassification ...: a few logits per example */
    OOM_TASK_EMBEDDING,      /* AutoModel, an encoder without a head */
    OOM_TASK_COUNT
} oom_task;

/* "causal-lm", "seq2seq", "masked-lm", "classification", "embedding" (the
 * --task values and the knowledge base's `task`); "unknown". */
const char *oom_task_id(oom_task t);
/* The task an id names; false for an unknown id. */
bool oom_task_from_id(const char *id, oom_task *out);
/* Whether the task's loss needs logits over the vocabulary. */
bool oom_task_has_vocab_logits(oom_task t);
/* The head a Hugging Face class carries, from its (qualified) name, with
 * `.from_pretrained` or `.from_config` after it: *ForCausalLM, *LMHeadModel,
 * *ForConditionalGeneration, *ForSeq2SeqLM, *ForMaskedLM, *For...Classification,
 * SentenceTransformer, transformers.AutoModel (kb/heads.c, the one table of
 * these names). OOM_TASK_UNKNOWN for other names. */
oom_task oom_kb_head_of_class(const char *name);
/* A diffusers class that denoises under text conditioning, or a pipeline
 * built around one, from its qualified name (`.from_pretrained`, or any other
 * `.from_*` constructor, after it): diffusers.UNet2DConditionModel,
 * ControlNetModel, SD3Transformer2DModel, StableDiffusionPipeline ... Its
 * text encoder's prompts are padded to the fixed length the denoiser's
 * cross-attention was trained on (CLIP's 77 positions). */
bool oom_kb_is_diffusion_model_class(const char *name);

typedef struct {
    char *id;
    char *name;
    char *vendor;
    char *note; /* may be NULL */
    char *compute_capability; /* "8.0", "gfx942", "n/a" */
    oom_strlist aliases;
    double memory_gib; /* < 0: not fixed (CPU) */
    /* what PyTorch can use: torch.cuda.get_device_properties().total_memory,
     * where the knowledge base records it (a T4 "16 GB" reports 15102 MiB);
     * <= 0: memory_gib */
    double usable_gib;
    bool bf16, fp16_tensor_cores, tf32, fp8, flash_attention_2;
} oom_gpu;

/* The config fields that decide a model's size and limits, in Hugging Face's
 * names (each family's synonyms are mapped: n_embd, d_model, dim ...). A
 * field the config does not set is -1. */
typedef struct {
    char model_type[32];
    long long vocab_size, hidden_size, num_hidden_layers, num_attention_heads,
        num_key_value_heads, intermediate_size, max_position_embeddings, head_dim,
        num_decoder_layers, embedding_size, type_vocab_size, num_local_experts,
        word_embed_proj_dim;
    int tie_word_embeddings; /* -1 unknown, 0, 1 */
    bool gated_ffn;          /* T5 v1.1 / Flan-T5 "gated-gelu" */
} oom_model_config;

/* An image model (torchvision CNN or ViT): what decides its memory besides
 * the parameter count, measured by tests/gpu/cnn_profile.py (torch 1.13.1,
 * torchvision 0.14.1, CPU). A language model has resolution 0. Bytes are
 * per image at `resolution` x `resolution`. */
typedef struct {
    char family[8];           /* "cnn" or "vit" */
    long long resolution;     /* the square input side the bytes were measured at */
    long long patch_size;     /* ViT: (H/patch)(W/patch) + 1 tokens; 0 for CNNs */
    double saved_fp32;        /* kept for backward in fp32 training */
    double saved_autocast;    /* the same under autocast (CPU bf16, per image) */
    double saved_frozen;      /* every parameter frozen, a fresh head trained */
    double forward_peak;      /* the most alive at once in a no-grad forward pass */
    long long head_params, head_in_features, classes;
    long long classifier_params; /* outside `backbone`; -1 when there is none */
    long long buffer_bytes;   /* BatchNorm running statistics */
    char head[24];            /* the last Linear's path: "fc", "classifier.6", "heads.head" */
    char backbone[16];        /* "features", or "" */
    /* ResNets trained on small images with a 3x3 stride-1 conv1 and no
     * maxpool (the CIFAR stem): the same figures, measured that way */
    long long stem_resolution; /* 0: not measured */
    double stem_saved_fp32, stem_saved_autocast, stem_forward_peak;
} oom_vision_profile;

typedef struct {
    char *id;
    oom_strlist aliases;
    oom_model_config config;
    oom_vision_profile vision;
    char *position_limit; /* "hard", "soft", "none" */
    /* the head `params` counts: "causal-lm", "seq2seq", "embedding" (an
     * encoder without a head); "" for image models and when not stated */
    char task[16];
    long long params;     /* published exact count, or -1 */
    /* checkpoints of one family share a tokenizer and an architecture and
     * differ in size ("bert", "llama-3", "qwen2.5"); "" when none is given */
    char family[24];
} oom_model;

/* The heads of a model type's *For... classes (models.json "heads"), for
 * scripts that freeze the base and train the head. */
typedef struct {
    char model_type[32];
    char base[24];        /* the attribute holding the base model: "bert", "model", "transformer" */
    char modules[2][24];  /* the classification head's modules: "classifier", "pre_classifier" */
    /* its parameters: per_h2·h² + per_h·h + per_h_label·h·labels + per_label·labels */
    long long per_h2, per_h, per_h_label, per_label;
    char lm_head[16];     /* the language-model head's attribute; "" when none */
    bool lm_head_bias;    /* phi: vocab more */
} oom_head_shape;

typedef struct {
    oom_gpu *gpus;
    size_t gpu_count, gpu_cap;
    oom_model *models;
    size_t model_count, model_cap;
    oom_head_shape *heads;
    size_t head_count, head_cap;
} oom_kb;

/* Loads rules/kb/gpus.json and rules/kb/models.json from the binary. */
int oom_kb_load_embedded(oom_kb *kb, oom_buf *err);
void oom_kb_free(oom_kb *kb);

/* By id or alias, ignoring case, and treating '_', ' ' and '.' like '-'. */
const oom_gpu *oom_kb_find_gpu(const oom_kb *kb, const char *name);
/* Up to `max` known names closest to `name` (edit distance), for messages. */
size_t oom_kb_closest_gpus(const oom_kb *kb, const char *name, const char **out, size_t max);
/* By hub id or alias, ignoring case. */
const oom_model *oom_kb_find_model(const oom_kb *kb, const char *id);

/* The heads of a model type, or NULL. */
const oom_head_shape *oom_kb_find_heads(const oom_kb *kb, const char *model_type);
/* Parameters of the classification head for `labels` labels over hidden size h. */
long long oom_head_classifier_params(const oom_head_shape *hs, long long h, long long labels);

/* The parameter count the estimate uses: the published one, or the formula's. */
long long oom_kb_model_params(const oom_model *m);
/* Models of m's family with fewer parameters, largest first, one per size,
 * at most `max`; 0 when m has no family or is the smallest. */
size_t oom_kb_smaller_in_family(const oom_kb *kb, const oom_model *m, const oom_model **out, size_t max);

/* Fills a config from a parsed config.json (a cJSON object), family synonyms
 * applied. Returns false when it is not a model config. */
bool oom_model_config_from_json(const void *cjson_object, oom_model_config *out);
/* Exact parameter count of the model, from its config, for the families in
 * docs/estimation.md §6 (bert, roberta, distilbert, albert, gpt2, opt, gpt_neox,
 * llama, mistral, mixtral, qwen2, qwen3, gemma, gemma2, gemma3_text, phi, phi3, t5,
 * modernbert); -1 for other families. */
long long oom_model_param_count(const oom_model_config *c);

/* The bytes a job on the GPU can have: PyTorch's total_memory where known,
 * else the nominal size; 0 for a GPU of no fixed size. */
double oom_gpu_capacity_bytes(const oom_gpu *g);

#endif

/* kb/heads: what a model's head computes, by the names Hugging Face gives
 * its classes. The estimate sizes the logits from it; the model knows a
 * Trainer's model has a language-modelling head from it, and that a file
 * trains a text-conditioned diffusion model. */
#include <string.h>

#include "oomlint/kb.h"

static const char *const task_ids[OOM_TASK_COUNT] = {"unknown", "causal-lm", "seq2seq", "masked-lm",
                                                      "classification", "embedding"};

const char *oom_task_id(oom_task t)
{
    return t < OOM_TASK_COUNT ? task_ids[t] : task_ids[0];
}

bool oom_task_from_id(const char *id, oom_task *out)
{
    for (int t = OOM_TASK_CAUSAL_LM; t < OOM_TASK_COUNT; t++)
        if (strcmp(id, task_ids[t]) == 0) {
            *out = (oom_task)t;
            return true;
        }
    return false;
}

bool oom_task_has_vocab_logits(oom_task t)
{
    return t == OOM_TASK_CAUSAL_LM || t == OOM_TASK_SEQ2SEQ || t == OOM_TASK_MASKED_LM;
}

/* The first len bytes of s end with suffix. */
static bool ends_at(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

oom_task oom_kb_head_of_class(const char *q)
{
    static const struct {
        const char *suffix;
        oom_task task;
    } heads[] = {{"ForCausalLM", OOM_TASK_CAUSAL_LM},
                 {"LMHeadModel", OOM_TASK_CAUSAL_LM},
                 {"ForConditionalGeneration", OOM_TASK_SEQ2SEQ},
                 {"ForSeq2SeqLM", OOM_TASK_SEQ2SEQ},
                 {"ForMaskedLM", OOM_TASK_MASKED_LM},
                 {"WithLMHead", OOM_TASK_MASKED_LM},
                 {"ForSequenceClassification", OOM_TASK_CLASSIFICATION},
                 {"ForTokenClassification", OOM_TASK_CLASSIFICATION},
                 {"ForQuestionAnswering", OOM_TASK_CLASSIFICATION},
                 {"ForMultipleChoice", OOM_TASK_CLASSIFICATION},
                 {"ForImageClassification", OOM_TASK_CLASSIFICATION},
                 {"ForAudioClassification", OOM_TASK_CLASSIFICATION},
                 {"SentenceTransformer", OOM_TASK_EMBEDDING}};
    /* The class: q without a trailing .from_pretrained or .from_config (read
     * up to 127 bytes, as ever), measured in place: the model asks this for
     * every call in a file. */
    size_t len = strnlen(q, 127);
    if (ends_at(q, len, ".from_pretrained"))
        len -= strlen(".from_pretrained");
    else if (ends_at(q, len, ".from_config"))
        len -= strlen(".from_config");
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++)
        if (ends_at(q, len, heads[i].suffix))
            return heads[i].task;
    /* transformers.AutoModel, BertModel: the encoder's hidden states */
    if (len >= 13 && memcmp(q, "transformers.", 13) == 0 && ends_at(q, len, "Model"))
        return OOM_TASK_EMBEDDING;
    return OOM_TASK_UNKNOWN;
}

bool oom_kb_is_diffusion_model_class(const char *q)
{
    /* the denoisers that read a text encoder's states through cross-attention,
     * and the pipelines that hold one */
    static const char *const denoisers[] = {"ConditionModel", "ControlNetModel", "Transformer2DModel", "Pipeline"};
    if (strncmp(q, "diffusers.", 10) != 0)
        return false;
    size_t len = strnlen(q, 127);
    size_t dot = len;
    while (dot > 0 && q[dot - 1] != '.')
        dot--;
    if (dot > 0 && strncmp(q + dot, "from_", 5) == 0) /* .from_pretrained, .from_config, .from_unet */
        len = dot - 1;
    for (size_t i = 0; i < sizeof denoisers / sizeof *denoisers; i++)
        if (ends_at(q, len, denoisers[i]))
            return true;
    return false;
}

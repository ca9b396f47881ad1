/* kb/heads: what a model's head computes, by the names Hugging Face gives
 * its classes. The estimate sizes the logits from it; the model knows a
 * Trainer's model has a language-modelling head from it. */
#include <stdio.h>
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
    char cls[128];
    snprintf(cls, sizeof cls, "%s", q);
    char *dot = strrchr(cls, '.');
    if (dot && (strcmp(dot, ".from_pretrained") == 0 || strcmp(dot, ".from_config") == 0))
        *dot = '\0';
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++)
        if (oom_str_ends_with(cls, heads[i].suffix))
            return heads[i].task;
    /* transformers.AutoModel, BertModel: the encoder's hidden states */
    if (oom_str_starts_with(cls, "transformers.") && oom_str_ends_with(cls, "Model"))
        return OOM_TASK_EMBEDDING;
    return OOM_TASK_UNKNOWN;
}

/* jsonmodel: what a JSON file is, recognised by its content (not its name):
 * a model config, a tokenizer or generation config, TrainingArguments, or a
 * DeepSpeed config. Other JSON (package.json, data) is none of these. */
#ifndef OOMLINT_JSONMODEL_H
#define OOMLINT_JSONMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

typedef enum {
    OOM_JSON_MODEL_CONFIG = 1 << 0,
    OOM_JSON_TOKENIZER_CONFIG = 1 << 1,
    OOM_JSON_GENERATION_CONFIG = 1 << 2,
    OOM_JSON_TRAINING_ARGS = 1 << 3,
    OOM_JSON_DEEPSPEED = 1 << 4,
} oom_json_kind;

typedef struct oom_jsonmodel oom_jsonmodel;

oom_jsonmodel *oom_jsonmodel_build(const TSTree *tree, const char *src, size_t len);
void oom_jsonmodel_free(oom_jsonmodel *m);
unsigned oom_jsonmodel_kinds(const oom_jsonmodel *m);
/* "model-config", "tokenizer-config", "generation-config", "training-args", "deepspeed" */
int oom_json_kind_from_name(const char *name);
/* The top-level "model_name_or_path" (or "model_name"), or NULL. */
const char *oom_jsonmodel_model_id(const oom_jsonmodel *m);
/* A pair of the top-level object. */
bool oom_jsonmodel_is_top_level(const oom_jsonmodel *m, TSNode pair);
/* A top-level pair of a DeepSpeed config: of a DeepSpeed JSON file, or of the
 * "deepspeed" object inlined in a TrainingArguments JSON. */
bool oom_jsonmodel_is_deepspeed_key(const oom_jsonmodel *m, TSNode pair);
/* The object that holds `pair` has another pair with this key: renaming the
 * pair's key to it would make a duplicate. */
bool oom_jsonmodel_sibling_key(const oom_jsonmodel *m, TSNode pair, const char *key);

#endif

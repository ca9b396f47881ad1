/* yamlmodel: what a YAML training config is, recognised by its keys (not its
 * name): an accelerate config, an axolotl config, a LLaMA-Factory config, a
 * TrainingArguments-style recipe (TRL, alignment-handbook) or a Lightning CLI
 * config. Other YAML (CI workflows, docker-compose, Kubernetes) is none of
 * these, and no rule reads it.
 *
 * Values are read as the tools that load these files read them: PyYAML, which
 * follows YAML 1.1 (`yes`/`on` are true, `500_000` is an integer, an empty
 * value is null). Anchors are looked up, never expanded: an alias costs one
 * lookup, however deep the copies it would make. */
#ifndef OOMLINT_YAMLMODEL_H
#define OOMLINT_YAMLMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

#include "oomlint/source.h"
#include "oomlint/util.h"

typedef enum {
    OOM_YAML_ACCELERATE = 1 << 0,
    OOM_YAML_AXOLOTL = 1 << 1,
    OOM_YAML_LLAMA_FACTORY = 1 << 2,
    OOM_YAML_TRAINING_ARGS = 1 << 3,
    OOM_YAML_LIGHTNING = 1 << 4,
    OOM_YAML_LITGPT = 1 << 5,
} oom_yaml_kind;

/* A scalar as PyYAML would load it. */
typedef enum {
    OOM_YAML_VALUE_NONE = 0, /* a mapping, a sequence, or nothing there */
    OOM_YAML_VALUE_NULL,
    OOM_YAML_VALUE_BOOL,
    OOM_YAML_VALUE_INT,
    OOM_YAML_VALUE_FLOAT,
    OOM_YAML_VALUE_STRING,
} oom_yaml_value_type;

typedef struct oom_yamlmodel oom_yamlmodel;

oom_yamlmodel *oom_yamlmodel_build(const TSTree *tree, const char *src, size_t len);
void oom_yamlmodel_free(oom_yamlmodel *m);
unsigned oom_yamlmodel_kinds(const oom_yamlmodel *m);
/* "accelerate", "axolotl", "llama-factory", "training-args", "lightning", "litgpt"; -1 otherwise */
int oom_yaml_kind_from_name(const char *name);
/* The model the config trains (base_model, model_name_or_path,
 * model.init_args.model_name_or_path ...), or NULL. */
const char *oom_yamlmodel_model_id(const oom_yamlmodel *m);

/* The pair (block_mapping_pair or flow_pair) sits at this dotted key path
 * from its document's root ("bf16", "trainer.precision"); a pair of a mapping
 * merged into the root (`<<: *base`) counts as the root's. */
bool oom_yamlmodel_pair_at(const oom_yamlmodel *m, TSNode pair, const char *path);
/* The value of a pair, aliases followed, normalised into out: booleans as
 * "true"/"false", null as "null", integers in decimal without underscores,
 * strings without their quotes. */
oom_yaml_value_type oom_yamlmodel_pair_value(const oom_yamlmodel *m, TSNode pair, oom_buf *out);
/* The value at a dotted key path in the document of `near` (or the first
 * document when `near` is null), merge keys followed; OOM_YAML_VALUE_NONE
 * when absent. */
oom_yaml_value_type oom_yamlmodel_lookup(const oom_yamlmodel *m, TSNode near, const char *path, oom_buf *out);
/* The pair at a dotted key path (as lookup finds it), or a null node. */
TSNode oom_yamlmodel_find(const oom_yamlmodel *m, TSNode near, const char *path);
/* lookup, reading true/false only: -1 when absent or not a boolean. */
int oom_yamlmodel_lookup_bool(const oom_yamlmodel *m, TSNode near, const char *path);
/* lookup, reading an integer only. */
bool oom_yamlmodel_lookup_int(const oom_yamlmodel *m, TSNode near, const char *path, long long *value);

/* A YAML file another file names (an accelerate config, a TrainingArguments
 * YAML, a recipe given to `oomlint estimate`), read from disk, parsed and
 * modelled; its parts live until oom_yaml_file_free. */
typedef struct {
    oom_source src;
    TSTree *tree;
    oom_yamlmodel *model; /* NULL when the text is not YAML that can be modelled */
} oom_yaml_file;
/* False, with the reason in `why`, when the file cannot be read; a file read
 * but not modelled gives true and a NULL model. Free it either way. */
bool oom_yaml_file_read(const char *path, oom_yaml_file *f, char *why, size_t why_size);
void oom_yaml_file_free(oom_yaml_file *f);

#endif

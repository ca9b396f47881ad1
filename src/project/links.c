/* project/links: from a script to the model it loads and that model's limits. */
#include "oomlint/project.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oomlint/jsonfile.h"

const char *oom_project_family_position_limit(const char *type)
{
    static const char *const hard[] = {"bert", "roberta", "xlm-roberta", "distilbert", "albert",
                                       "electra", "camembert", "gpt2", "opt", "bart", "mbart",
                                       "whisper", "vit", "gpt_neo", "gptj", "biogpt", "blenderbot",
                                       "marian", "pegasus", "longformer", NULL};
    static const char *const none[] = {"t5", "mt5", "umt5", "deberta", "deberta-v2", "xlnet", NULL};
    for (size_t i = 0; hard[i]; i++)
        if (strcmp(type, hard[i]) == 0)
            return "hard";
    for (size_t i = 0; none[i]; i++)
        if (strcmp(type, none[i]) == 0)
            return "none";
    return "soft";
}

/* RoBERTa-style embeddings start positions after padding_idx: two rows of
 * max_position_embeddings are not usable (514 -> 512 tokens). */
static long long usable_positions(const char *model_type, long long max_pos)
{
    static const char *const offset[] = {"roberta", "xlm-roberta", "camembert", "longformer", NULL};
    for (size_t i = 0; offset[i]; i++)
        if (strcmp(model_type, offset[i]) == 0)
            return max_pos - 2;
    return max_pos;
}

static char *script_dir(const char *script_path)
{
    const char *slash = strrchr(script_path, '/');
    return slash ? oom_xstrndup(script_path, (size_t)(slash - script_path)) : oom_xstrdup(".");
}

/* A JSON file of a local model folder, parsed; NULL when it is not there. */
static cJSON *read_local_json(const char *script_path, const char *id, const char *file, oom_buf *path)
{
    char *dir = script_dir(script_path);
    while (id[0] == '.' && id[1] == '/')
        id += 2;
    oom_buf_clear(path);
    if (id[0] == '/')
        oom_buf_printf(path, "%s/%s", id, file);
    else
        oom_buf_printf(path, "%s/%s/%s", dir, id, file);
    free(dir);
    return oom_json_read_file(path->data); /* refuses pipes and devices like any source */
}

/* A local model folder (from_pretrained("./my-model")): its config.json's
 * hard position limit, else its tokenizer_config.json's model_max_length
 * (tokenizers of unlimited models store a huge sentinel there: ignored). */
static bool local_config_limit(const char *script_path, const char *id, long long *limit, oom_buf *where)
{
    oom_buf path;
    oom_buf_init(&path);
    bool found = false;
    cJSON *root = read_local_json(script_path, id, "config.json", &path);
    oom_model_config c;
    if (root && oom_model_config_from_json(root, &c)) {
        if (c.max_position_embeddings > 0 && strcmp(oom_project_family_position_limit(c.model_type), "hard") == 0) {
            *limit = usable_positions(c.model_type, c.max_position_embeddings);
            oom_buf_printf(where, "the %lld positions of the %s model in %s", *limit, c.model_type, path.data);
            found = true;
        }
        cJSON_Delete(root);
        oom_buf_free(&path);
        return found; /* the model's own config decides */
    }
    cJSON_Delete(root);
    root = read_local_json(script_path, id, "tokenizer_config.json", &path);
    cJSON *max = cJSON_GetObjectItemCaseSensitive(root, "model_max_length");
    if (cJSON_IsNumber(max) && max->valuedouble > 0 && max->valuedouble < 1e7) {
        *limit = (long long)max->valuedouble;
        oom_buf_printf(where, "the model_max_length %lld in %s", *limit, path.data);
        found = true;
    }
    cJSON_Delete(root);
    oom_buf_free(&path);
    return found;
}

bool oom_project_id_limit(const char *id, const char *beside, const oom_kb *kb, long long *limit,
                          oom_buf *where)
{
    if (beside && local_config_limit(beside, id, limit, where))
        return true;
    const oom_model *known = kb ? oom_kb_find_model(kb, id) : NULL;
    if (!known || strcmp(known->position_limit, "hard") != 0 || known->config.max_position_embeddings <= 0)
        return false;
    *limit = usable_positions(known->config.model_type, known->config.max_position_embeddings);
    oom_buf_printf(where, "the %lld positions of %s (oomlint's knowledge base)", *limit, known->id);
    return true;
}

bool oom_project_model_limit(const oom_pymodel *m, TSNode at, const char *script_path, const oom_kb *kb,
                             long long *limit, oom_buf *where)
{
    /* A length may apply to any model the file loads: with a model whose
     * limit is soft (or none) among them, say nothing; else use the largest
     * hard limit. */
    const oom_strlist *ids = oom_pymodel_pretrained_ids(m);
    bool found = false;
    oom_buf best;
    oom_buf_init(&best);
    for (size_t i = 0; i < ids->len; i++) {
        const char *id = ids->items[i];
        if (!oom_pymodel_pretrained_visible(m, i, at))
            continue;
        long long l;
        oom_buf w;
        oom_buf_init(&w);
        bool hard = false;
        if (script_path && local_config_limit(script_path, id, &l, &w)) {
            hard = true;
        } else {
            const oom_model *known = kb ? oom_kb_find_model(kb, id) : NULL;
            if (known && strcmp(known->position_limit, "hard") != 0) {
                oom_buf_free(&w);
                oom_buf_free(&best);
                return false;
            }
            if (known && known->config.max_position_embeddings > 0) {
                l = usable_positions(known->config.model_type, known->config.max_position_embeddings);
                oom_buf_printf(&w, "the %lld positions of %s (oomlint's knowledge base)", l, known->id);
                hard = true;
            }
        }
        if (hard && (!found || l > *limit)) {
            *limit = l;
            oom_buf_clear(&best);
            oom_buf_puts(&best, w.data);
            found = true;
        }
        oom_buf_free(&w);
    }
    if (found)
        oom_buf_puts(where, best.data);
    oom_buf_free(&best);
    return found;
}

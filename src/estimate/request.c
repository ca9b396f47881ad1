/* estimate/request: what `oomlint estimate` is asked to size, read into
 * the estimate's inputs: a script, a folder (its first script that loads a
 * model oomlint knows), a model config.json, a YAML training config, a
 * launch command or a shell script that has one, and/or a hub id. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oomlint/discover.h"
#include "oomlint/estimate.h"
#include "oomlint/jsonfile.h"
#include "oomlint/lang.h"

void oom_launch_read_init(oom_launch_read *lr)
{
    memset(lr, 0, sizeof *lr);
    oom_launch_init(&lr->launch);
}

void oom_launch_read_free(oom_launch_read *lr)
{
    oom_launch_free(&lr->launch);
    oom_strlist_free(&lr->notes);
}

/* A folder: the first script in it that loads a model oomlint knows. */
static char *script_in_folder(const char *dir, const oom_kb *kb)
{
    oom_discovery d;
    oom_strlist none = {NULL, 0, 0};
    oom_discover(&dir, 1, &none, NULL, &d);
    char *chosen = NULL;
    for (size_t i = 0; i < d.target_count && !chosen; i++) {
        oom_script_inputs probe;
        oom_buf err;
        oom_buf_init(&err);
        if (d.targets[i].lang == OOM_LANG_PYTHON &&
            oom_script_inputs_read(d.targets[i].path, kb, &probe, &err) && probe.model_known)
            chosen = oom_xstrdup(d.targets[i].path);
        oom_buf_free(&err);
    }
    oom_discovery_free(&d);
    return chosen;
}

/* A model config.json: the shape and exact size from its fields. */
static bool inputs_from_config(const char *path, oom_script_inputs *in, oom_buf *err)
{
    cJSON *root = oom_json_read_file(path);
    oom_model_config c;
    bool ok = root && oom_model_config_from_json(root, &c) && oom_model_param_count(&c) > 0;
    /* "architectures": ["GPT2LMHeadModel"]: the head the checkpoint has */
    const char *arch = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "architectures"), 0));
    oom_task task = arch ? oom_task_of_class(arch) : OOM_TASK_UNKNOWN;
    char why[176];
    if (ok && task != OOM_TASK_UNKNOWN) {
        snprintf(why, sizeof why, "%.60s (architectures in %.80s)", arch, path);
        oom_script_inputs_set_task(in, task, why);
    }
    cJSON_Delete(root);
    if (!ok) {
        oom_buf_printf(err, "%s: not a readable model config.json of a family oomlint can size", path);
        return false;
    }
    in->in.params = in->in.trainable = oom_model_param_count(&c);
    in->in.hidden = c.hidden_size, in->in.layers = c.num_hidden_layers;
    in->in.heads = c.num_attention_heads, in->in.vocab = c.vocab_size;
    snprintf(in->model_id, sizeof in->model_id, "%s", path);
    in->model_known = true;
    snprintf(in->from[OOM_IN_MODEL].text, sizeof in->from[0].text, "%s (%s)", path, c.model_type);
    in->from[OOM_IN_MODEL].assumed = false;
    return true;
}

/* A launch command after `--`, or the launch line of a shell script: the
 * script it runs, its arguments over the script's defaults. */
static bool inputs_from_launch(const oom_estimate_request *req, const char *path, const oom_kb *kb,
                               oom_script_inputs *in, oom_launch_read *lr, oom_buf *err)
{
    lr->used = true;
    if (req->launch && path) {
        oom_buf_printf(err, "give a file to estimate (%s) or a launch command after --, not both", path);
        return false;
    }
    bool ok = req->launch
                  ? oom_launch_from_argv((int)req->launch_argc, req->launch_argv, &lr->launch, err)
                  : oom_launch_from_shell(path, &lr->launch, err);
    return ok && oom_script_inputs_read_launch(&lr->launch, kb, in, &lr->notes, err);
}

bool oom_estimate_load_inputs(const oom_estimate_request *req, const oom_kb *kb, oom_script_inputs *in,
                              oom_launch_read *lr, oom_buf *err)
{
    const char *path = req->path;
    char *chosen = NULL;
    struct stat st;
    if (req->launch || (path && oom_str_ends_with(path, ".sh"))) {
        if (!inputs_from_launch(req, path, kb, in, lr, err))
            return false;
        path = lr->launch.script ? lr->launch.script : "the launch command (it runs no script)";
    } else if (path && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        path = chosen = script_in_folder(path, kb);
        if (!chosen) {
            oom_buf_printf(err, "%s: no script in this folder loads a model the knowledge base knows; "
                                "pass --model HUB_ID", req->path);
            return false;
        }
    }
    bool ok = true;
    if (!lr->used) {
        oom_script_inputs_init(in);
        if (path && oom_str_ends_with(path, ".json"))
            ok = inputs_from_config(path, in, err);
        else if (path && oom_lang_for_path(path) == OOM_LANG_YAML)
            ok = oom_script_inputs_read_yaml(path, kb, in, err);
        else if (path)
            ok = oom_script_inputs_read(path, kb, in, err);
    }
    free(chosen);
    if (ok && req->model) {
        char why[200];
        snprintf(why, sizeof why, "--model %s", req->model);
        ok = oom_script_inputs_use_model(in, kb, req->model, why);
        if (!ok)
            oom_buf_printf(err, "--model: '%s' is not in the knowledge base (or its size is unknown)",
                           req->model);
        in->from[OOM_IN_MODEL].assumed = false;
    }
    if (ok && !in->model_known && lr->used && !lr->launch.script_exists && lr->launch.script) {
        oom_buf_printf(err, "no model to size: %s does not exist and no argument names a model the knowledge base "
                            "knows; pass --model HUB_ID", lr->launch.script);
        ok = false;
    } else if (ok && !in->model_known) {
        const char *why = in->from[OOM_IN_MODEL].text;
        bool said = !oom_str_starts_with(why, "no model"); /* a reason the script's model was not taken */
        oom_buf_printf(err, "no model to size: %s loads none the knowledge base knows and defines none oomlint can size%s%s%s; pass --model HUB_ID",
                       path ? path : "no script given;", said ? " (" : "", said ? why : "", said ? ")" : "");
        ok = false;
    }
    return ok;
}

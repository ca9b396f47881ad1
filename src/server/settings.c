/* server/settings: the settings a document is linted with, as the command
 * line makes them: [tool.oomlint] of the nearest pyproject.toml, with what
 * the client says (initializationOptions, workspace/didChangeConfiguration)
 * in place of the flags. A setting that cannot be used is logged and left
 * out: an editor keeps linting with the rest. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/estimate.h"
#include "internal.h"

static void read_codes(const cJSON *v, oom_strlist *into, bool *has, oom_buf *log, const char *key)
{
    if (!v)
        return;
    oom_strlist_free(into);
    *has = true;
    oom_buf err;
    oom_buf_init(&err);
    if (cJSON_IsString(v)) {
        if (oom_selection_parse_list(into, v->valuestring, &err) != 0)
            oom_buf_printf(log, "%s: %s; ", key, err.data);
    } else if (cJSON_IsArray(v)) {
        const cJSON *c;
        cJSON_ArrayForEach(c, v) {
            oom_buf_clear(&err);
            if (!cJSON_IsString(c) || oom_selection_parse_list(into, c->valuestring, &err) != 0)
                oom_buf_printf(log, "%s: %s; ", key, err.len ? err.data : "each entry must be a string");
        }
    } else {
        oom_buf_printf(log, "%s: a list of codes or a comma-separated string, not this; ", key);
        *has = false;
    }
    oom_buf_free(&err);
}

void srv_overrides_read(srv_overrides *o, const cJSON *json, oom_buf *log)
{
    if (!cJSON_IsObject(json))
        return;
    /* {"oomlint": {...}} (didChangeConfiguration's settings) or {...} */
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(json, "oomlint");
    if (cJSON_IsObject(own))
        json = own;
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(json, "gpu");
    if (cJSON_IsString(gpu) || cJSON_IsNull(gpu)) {
        free(o->gpu);
        o->gpu = cJSON_IsString(gpu) && gpu->valuestring[0] ? oom_xstrdup(gpu->valuestring) : NULL;
    } else if (gpu) {
        oom_buf_puts(log, "gpu: a GPU's name (see oomlint gpus), not this; ");
    }
    read_codes(cJSON_GetObjectItemCaseSensitive(json, "select"), &o->select, &o->has_select, log, "select");
    read_codes(cJSON_GetObjectItemCaseSensitive(json, "ignore"), &o->ignore, &o->has_ignore, log, "ignore");
    read_codes(cJSON_GetObjectItemCaseSensitive(json, "extendSelect"), &o->extend_select, &o->has_extend_select, log,
               "extendSelect");
    int64_t n;
    if (srv_int(json, "numGpus", &n) && n >= 0 && n <= 65536)
        o->num_gpus = (int)n;
    if (srv_int(json, "debounceMs", &n) && n >= 0 && n <= 10000)
        o->debounce_ms = (int)n;
}

void srv_overrides_free(srv_overrides *o)
{
    free(o->gpu);
    oom_strlist_free(&o->select);
    oom_strlist_free(&o->ignore);
    oom_strlist_free(&o->extend_select);
    memset(o, 0, sizeof *o);
    o->debounce_ms = -1;
}

static void copy_list(oom_strlist *to, const oom_strlist *from)
{
    for (size_t i = 0; i < from->len; i++)
        oom_strlist_push(to, from->items[i]);
}

static void load_config(srv_profile *p, const char *root, oom_buf *log)
{
    p->config_path = oom_config_find(root ? root : ".");
    if (!p->config_path)
        return;
    oom_buf err;
    oom_buf_init(&err);
    p->have_config = oom_config_load(p->config_path, &p->config, &err) == 0;
    if (!p->have_config) {
        oom_buf_printf(log, "%s; linting without it; ", err.data);
        oom_config_free(&p->config);
        memset(&p->config, 0, sizeof p->config);
    }
    oom_buf_free(&err);
}

static void choose_gpu(srv_profile *p, const srv_overrides *o, oom_buf *log)
{
    const char *name = o->gpu ? o->gpu : p->config.gpu;
    if (!name)
        return;
    p->run.gpu = oom_kb_find_gpu(&p->kb, name);
    if (!p->run.gpu)
        oom_buf_printf(log, "unknown GPU '%s' (see oomlint gpus); the hardware rules stay silent; ", name);
}

int srv_profile_load(srv_profile *p, const char *root, const srv_overrides *o, oom_buf *log)
{
    memset(p, 0, sizeof *p);
    load_config(p, root, log);
    oom_buf err;
    oom_buf_init(&err);
    int rc = 0;
    if (oom_rules_add_embedded(&p->rules, &err) != 0 || oom_kb_load_embedded(&p->kb, &err) != 0) {
        oom_buf_printf(log, "%s; ", err.data);
        rc = -1;
    } else {
        p->have_kb = true;
    }
    p->run.kb = p->have_kb ? &p->kb : NULL;
    copy_list(&p->selection.select, o->has_select ? &o->select : &p->config.select);
    copy_list(&p->selection.ignore, o->has_ignore ? &o->ignore : &p->config.ignore);
    copy_list(&p->selection.extend, &p->config.extend_select);
    copy_list(&p->selection.extend, &o->extend_select);
    copy_list(&p->fixable.select, &p->config.fixable);
    if (p->fixable.select.len == 0)
        oom_strlist_push(&p->fixable.select, "ALL");
    copy_list(&p->fixable.ignore, &p->config.unfixable);
    copy_list(&p->exclude, &p->config.exclude);
    p->run.num_gpus = o->num_gpus ? o->num_gpus : p->config.num_gpus;
    bool version_ok;
    if (p->config.torch) {
        p->run.eager_module_loading = oom_torch_loads_eagerly(p->config.torch, &version_ok);
        p->run.bf16_check_is_capability = oom_torch_before(p->config.torch, 2, 4, &version_ok);
    }
    if (p->have_kb)
        choose_gpu(p, o, log);
    if (rc == 0) {
        oom_buf_clear(&err);
        p->compiled = oom_compiled_new(&p->rules, &p->selection, &err);
        if (!p->compiled) {
            oom_buf_printf(log, "%s; ", err.data);
            rc = -1;
        } else {
            oom_compiled_set_run(p->compiled, &p->run);
        }
    }
    oom_buf_free(&err);
    return rc;
}

void srv_profile_free(srv_profile *p)
{
    free(p->config_path);
    oom_config_free(&p->config);
    if (p->have_kb)
        oom_kb_free(&p->kb);
    oom_rules_free(&p->rules);
    oom_selection_free(&p->selection);
    oom_selection_free(&p->fixable);
    oom_strlist_free(&p->exclude);
    if (p->compiled)
        oom_compiled_free(p->compiled);
    memset(p, 0, sizeof *p);
}

void srv_profile_settings(const srv_profile *p, oom_run_settings *rs, int threads)
{
    *rs = (oom_run_settings){&p->rules, &p->selection, p->compiled, &p->run, p->have_config ? &p->config : NULL,
                             threads < 1 ? 1 : threads, NULL, NULL};
}

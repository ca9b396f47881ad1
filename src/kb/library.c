/* kb/library: the library knowledge (rules/kb/library.json) parsed into
 * tables, and matching qualified names against its patterns. */
#include "oomlint/library.h"

#include <cJSON.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/rules.h"

/* ---- patterns ---------------------------------------------------------------- */

static void qpattern_parse(const char *text, oom_qpattern *p)
{
    p->segments = NULL;
    p->count = 0;
    p->literal = 0;
    size_t cap = 0;
    const char *s = text;
    for (;;) {
        const char *dot = strchr(s, '.');
        size_t n = dot ? (size_t)(dot - s) : strlen(s);
        oom_grow((void **)&p->segments, &cap, p->count + 1, sizeof *p->segments);
        char *seg = oom_xstrndup(s, n);
        if (p->count < 64 && !strpbrk(seg, "*?[\\"))
            p->literal |= (uint64_t)1 << p->count;
        p->segments[p->count++] = seg;
        if (!dot)
            break;
        s = dot + 1;
    }
}

static void qpattern_free(oom_qpattern *p)
{
    for (size_t i = 0; i < p->count; i++)
        free(p->segments[i]);
    free(p->segments);
}

/* Segments `segs[0..nseg)` of the pattern (`literal`: which of them have no
 * wildcard) against names `names[0..nname)`: `**` takes none, then one more
 * name at a time. The patterns have at most one or two `**`, so the
 * backtracking stays small. A literal segment is compared with strcmp: the
 * knowledge base's patterns are mostly literal, and every role query
 * matches a call's name against all of them. */
static bool match_from(char *const *segs, size_t nseg, uint64_t literal, char *const *names, size_t nname)
{
    if (nseg == 0)
        return nname == 0;
    if (literal & 1)
        return nname > 0 && strcmp(segs[0], names[0]) == 0 &&
               match_from(segs + 1, nseg - 1, literal >> 1, names + 1, nname - 1);
    if (strcmp(segs[0], "**") == 0) {
        for (size_t skip = 0; skip <= nname; skip++)
            if (match_from(segs + 1, nseg - 1, literal >> 1, names + skip, nname - skip))
                return true;
        return false;
    }
    return nname > 0 && fnmatch(segs[0], names[0], 0) == 0 &&
           match_from(segs + 1, nseg - 1, literal >> 1, names + 1, nname - 1);
}

/* A qualified name split at its dots, in `buf`. */
typedef struct {
    char buf[512];
    char *names[64];
    size_t count;
} split_name;

static bool split_qualname(const char *qualname, split_name *out)
{
    size_t len = strlen(qualname);
    out->count = 0;
    if (len >= sizeof out->buf)
        return false;
    memcpy(out->buf, qualname, len + 1);
    for (char *s = out->buf;;) {
        if (out->count == 64)
            return false;
        out->names[out->count++] = s;
        char *dot = strchr(s, '.');
        if (!dot)
            return true;
        *dot = '\0';
        s = dot + 1;
    }
}

static bool match_split(const oom_qpattern *p, const split_name *n)
{
    /* a segment past the 64th is globbed: its literal bit is not kept */
    return p->count > 0 && match_from(p->segments, p->count, p->literal, n->names, n->count);
}

bool oom_qpattern_match(const oom_qpattern *p, const char *qualname)
{
    split_name n;
    return split_qualname(qualname, &n) && match_split(p, &n);
}

int oom_qpattern_find(const oom_qpattern *list, size_t count, const char *qualname)
{
    split_name n;
    if (!split_qualname(qualname, &n))
        return -1;
    for (size_t i = 0; i < count; i++)
        if (match_split(&list[i], &n))
            return (int)i;
    return -1;
}

bool oom_library_lists(const oom_strlist *list, const char *s, size_t len)
{
    for (size_t i = 0; i < list->len; i++)
        if (strlen(list->items[i]) == len && memcmp(list->items[i], s, len) == 0)
            return true;
    return false;
}

/* ---- the file ------------------------------------------------------------------ */

static const char *string_of(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A list of objects each with a pattern under `key`. */
static bool read_patterns(const cJSON *section, const char *list, const char *key, oom_qpattern **out,
                          size_t *count, oom_buf *err)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(section, list);
    if (!cJSON_IsArray(arr)) {
        oom_buf_printf(err, "%s must be a list", list);
        return false;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
    *out = oom_xcalloc(n ? n : 1, sizeof **out);
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        const char *text = string_of(e, key);
        if (!text || !text[0]) {
            oom_buf_printf(err, "%s[%zu] has no \"%s\"", list, i, key);
            *count = i;
            return false;
        }
        qpattern_parse(text, &(*out)[i++]);
    }
    *count = i;
    return true;
}

static bool read_names(const cJSON *section, const char *list, oom_strlist *out, oom_buf *err)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(section, list);
    if (!cJSON_IsArray(arr)) {
        oom_buf_printf(err, "%s must be a list of names", list);
        return false;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        if (!cJSON_IsString(e)) {
            oom_buf_printf(err, "%s holds something that is not a name", list);
            return false;
        }
        oom_strlist_push(out, e->valuestring);
    }
    return true;
}

static bool read_wrappers(const cJSON *section, oom_library *lib, oom_buf *err)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(section, "wrappers");
    if (!cJSON_IsArray(arr)) {
        oom_buf_printf(err, "modules.wrappers must be a list");
        return false;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    lib->wrappers = oom_xcalloc(n ? n : 1, sizeof *lib->wrappers);
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        oom_lib_wrapper *w = &lib->wrappers[lib->wrapper_count];
        const char *call = string_of(e, "call");
        const cJSON *arg = cJSON_GetObjectItemCaseSensitive(e, "argument");
        const cJSON *elem = cJSON_GetObjectItemCaseSensitive(e, "element");
        const char *kw = string_of(e, "keyword");
        if (!call || (!cJSON_IsNumber(arg) && !kw)) {
            oom_buf_printf(err, "modules.wrappers[%zu] needs \"call\" and an \"argument\" or \"keyword\"",
                           lib->wrapper_count);
            return false;
        }
        qpattern_parse(call, &w->call);
        w->argument = cJSON_IsNumber(arg) ? arg->valueint : -1;
        w->keyword = kw ? oom_xstrdup(kw) : NULL;
        w->element = cJSON_IsNumber(elem) ? elem->valueint : -1;
        lib->wrapper_count++;
    }
    return true;
}

static bool read_methods(const cJSON *section, const char *list, oom_lib_method **out, size_t *count, oom_buf *err)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(section, list);
    if (!cJSON_IsArray(arr)) {
        oom_buf_printf(err, "modules.%s must be a list", list);
        return false;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    *out = oom_xcalloc(n ? n : 1, sizeof **out);
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        const char *method = string_of(e, "method"), *receiver = string_of(e, "receiver");
        if (!method || !receiver) {
            oom_buf_printf(err, "modules.%s[%zu] needs \"method\" and \"receiver\"", list, *count);
            return false;
        }
        (*out)[*count].method = oom_xstrdup(method);
        qpattern_parse(receiver, &(*out)[*count].receiver);
        (*count)++;
    }
    return true;
}

static bool read_hooks(const cJSON *section, oom_library *lib, oom_buf *err)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(section, "hook_parameters");
    if (!cJSON_IsArray(arr)) {
        oom_buf_printf(err, "modules.hook_parameters must be a list");
        return false;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    lib->hooks = oom_xcalloc(n ? n : 1, sizeof *lib->hooks);
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        const char *base = string_of(e, "base"), *method = string_of(e, "method");
        const cJSON *pos = cJSON_GetObjectItemCaseSensitive(e, "position");
        if (!base || !method || !cJSON_IsNumber(pos) || pos->valueint < 0) {
            oom_buf_printf(err, "modules.hook_parameters[%zu] needs \"base\", \"method\" and a \"position\"",
                           lib->hook_count);
            return false;
        }
        oom_lib_hook *h = &lib->hooks[lib->hook_count++];
        qpattern_parse(base, &h->base);
        h->method = oom_xstrdup(method);
        h->position = pos->valueint;
    }
    return true;
}

/* A space as the file writes it: a Box's shape `[17]`, or `{"n": 2}`. */
static bool read_space(const cJSON *j, oom_lib_space *out)
{
    memset(out, 0, sizeof *out);
    if (cJSON_IsObject(j)) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "n");
        out->n = cJSON_IsNumber(n) ? (long long)n->valuedouble : 0;
        return out->n > 0;
    }
    const cJSON *d;
    cJSON_ArrayForEach(d, j)
    {
        if (!cJSON_IsNumber(d) || d->valuedouble < 1 || out->rank == 4)
            return false;
        out->shape[out->rank++] = (long long)d->valuedouble;
    }
    return cJSON_IsArray(j) && out->rank > 0;
}

/* environments: the calls that make one, and each id's spaces. */
static bool read_environments(const cJSON *section, oom_library *lib, oom_buf *err)
{
    if (!read_names(section, "makers", &lib->environment_makers, err))
        return false;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(section, "spaces");
    if (!cJSON_IsArray(arr)) {
        oom_buf_printf(err, "environments.spaces must be a list");
        return false;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    lib->environments = oom_xcalloc(n ? n : 1, sizeof *lib->environments);
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        oom_lib_environment *env = &lib->environments[lib->environment_count++];
        if (!read_names(e, "ids", &env->ids, err) || env->ids.len == 0 ||
            !read_space(cJSON_GetObjectItemCaseSensitive(e, "observation"), &env->observation) ||
            !read_space(cJSON_GetObjectItemCaseSensitive(e, "action"), &env->action)) {
            oom_buf_printf(err, "environments.spaces[%zu] needs \"ids\", an \"observation\" and an \"action\" "
                                "(a shape, or {\"n\": N})",
                           lib->environment_count - 1);
            return false;
        }
    }
    return true;
}

const oom_lib_environment *oom_library_environment(const oom_library *lib, const char *id)
{
    for (size_t i = 0; lib && i < lib->environment_count; i++)
        if (oom_library_lists(&lib->environments[i].ids, id, strlen(id)))
            return &lib->environments[i];
    return NULL;
}

oom_library *oom_library_parse(const char *text, size_t len, oom_buf *err)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        oom_buf_printf(err, "library knowledge: invalid JSON");
        return NULL;
    }
    oom_library *lib = oom_xcalloc(1, sizeof *lib);
    const cJSON *mod = cJSON_GetObjectItemCaseSensitive(root, "modules");
    bool ok = cJSON_IsObject(mod);
    if (!ok)
        oom_buf_printf(err, "library knowledge: no \"modules\" object");
    ok = ok && read_patterns(mod, "not_modules", "call", &lib->not_modules, &lib->not_module_count, err);
    ok = ok && read_patterns(mod, "constructors", "call", &lib->constructors, &lib->constructor_count, err);
    ok = ok && read_patterns(mod, "bases", "class", &lib->bases, &lib->base_count, err);
    ok = ok && read_wrappers(mod, lib, err);
    ok = ok && read_methods(mod, "preparing_methods", &lib->preparing, &lib->preparing_count, err);
    ok = ok && read_hooks(mod, lib, err);
    ok = ok && read_names(mod, "self_returning_methods", &lib->self_returning, err);
    ok = ok && read_names(mod, "module_attributes", &lib->module_attributes, err);
    ok = ok && read_names(mod, "use_evidence_methods", &lib->use_evidence, err);
    ok = ok && read_names(mod, "forward_methods", &lib->forward_methods, err);
    ok = ok && read_names(mod, "output_fields", &lib->output_fields, err);
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(root, "values");
    if (ok && !cJSON_IsObject(values)) {
        oom_buf_printf(err, "library knowledge: no \"values\" object");
        ok = false;
    }
    ok = ok && read_names(values, "text_methods", &lib->text_methods, err);
    ok = ok && read_patterns(values, "text_encoders", "call", &lib->text_encoders, &lib->text_encoder_count, err);
    ok = ok && read_names(values, "placing_methods", &lib->placing_methods, err);
    ok = ok && read_names(values, "host_methods", &lib->host_methods, err);
    ok = ok && read_names(values, "placing_keywords", &lib->placing_keywords, err);
    ok = ok && read_names(values, "default_device_functions", &lib->default_device_functions, err);
    ok = ok && read_names(values, "graph_leaving_methods", &lib->graph_leaving_methods, err);
    ok = ok && read_names(values, "number_builtins", &lib->number_builtins, err);
    ok = ok && read_names(values, "synthetic_tensor_functions", &lib->synthetic_tensor_functions, err);
    ok = ok && read_names(values, "evaluation_step_methods", &lib->evaluation_step_methods, err);
    ok = ok && read_names(values, "casting_methods", &lib->casting_methods, err);
    ok = ok && read_names(values, "output_builtins", &lib->output_builtins, err);
    ok = ok && read_names(values, "number_methods", &lib->number_methods, err);
    ok = ok && read_names(values, "collection_adding_methods", &lib->collection_adding_methods, err);
    ok = ok && read_names(values, "no_grad_functions", &lib->no_grad_functions, err);
    ok = ok && read_names(values, "inference_mode_functions", &lib->inference_mode_functions, err);
    ok = ok && read_names(values, "enable_grad_functions", &lib->enable_grad_functions, err);
    ok = ok && read_names(values, "set_grad_enabled_functions", &lib->set_grad_enabled_functions, err);
    ok = ok && read_names(values, "host_tensor_factories", &lib->host_tensor_factories, err);
    ok = ok && read_names(values, "data_tensor_factories", &lib->data_tensor_factories, err);
    ok = ok && read_names(values, "parameter_constructors", &lib->parameter_constructors, err);
    ok = ok && read_names(values, "differentiating_functions", &lib->differentiating_functions, err);
    ok = ok && read_names(values, "device_combining_functions", &lib->device_combining_functions, err);
    ok = ok && read_names(values, "device_combining_methods", &lib->device_combining_methods, err);
    ok = ok && read_names(values, "device_following_methods", &lib->device_following_methods, err);
    ok = ok && read_names(values, "tensor_metadata", &lib->tensor_metadata, err);
    ok = ok && read_names(values, "tensor_methods", &lib->tensor_methods, err);
    ok = ok && read_names(values, "device_constructors", &lib->device_constructors, err);
    ok = ok && read_names(values, "tensor_view_attributes", &lib->tensor_view_attributes, err);
    ok = ok && read_names(values, "gpu_methods", &lib->gpu_methods, err);
    ok = ok && read_names(values, "gpu_device_words", &lib->gpu_device_words, err);
    ok = ok && read_names(values, "dtypes", &lib->dtypes, err);
    ok = ok && read_names(values, "size_keeping_methods", &lib->size_keeping_methods, err);
    ok = ok && read_names(values, "device_placing_libraries", &lib->device_placing_libraries, err);
    ok = ok && read_names(values, "target_placing_methods", &lib->target_placing_methods, err);
    ok = ok && read_names(values, "factory_target_keywords", &lib->factory_target_keywords, err);
    ok = ok && read_names(values, "input_placing_wrappers", &lib->input_placing_wrappers, err);
    /* optional: a library file without command-line parsers is still whole */
    const cJSON *options = cJSON_GetObjectItemCaseSensitive(root, "options");
    if (ok && options)
        ok = read_names(options, "option_decorators", &lib->option_decorators, err) &&
             read_names(options, "flag_definers", &lib->flag_definers, err) &&
             read_names(options, "int_flag_definers", &lib->int_flag_definers, err) &&
             read_names(options, "bool_flag_definers", &lib->bool_flag_definers, err);
    const cJSON *precision = cJSON_GetObjectItemCaseSensitive(root, "precision");
    if (ok && precision)
        ok = read_names(precision, "opt_level_initializers", &lib->opt_level_initializers, err);
    const cJSON *configs = cJSON_GetObjectItemCaseSensitive(root, "configs");
    if (ok && configs)
        ok = read_names(configs, "record_constructors", &lib->record_constructors, err) &&
             read_names(configs, "path_joiners", &lib->path_joiners, err);
    const cJSON *training = cJSON_GetObjectItemCaseSensitive(root, "training");
    if (ok && training)
        ok = read_names(training, "optimizer_constructors", &lib->optimizer_constructors, err) &&
             read_names(training, "parameter_methods", &lib->parameter_methods, err);
    const cJSON *distributed = cJSON_GetObjectItemCaseSensitive(root, "distributed");
    if (ok && distributed)
        ok = read_names(distributed, "global_rank_calls", &lib->global_rank_calls, err) &&
             read_names(distributed, "global_rank_variables", &lib->global_rank_variables, err) &&
             read_names(distributed, "launcher_variables", &lib->launcher_variables, err) &&
             read_names(distributed, "environment_mappings", &lib->environment_mappings, err) &&
             read_names(distributed, "environment_readers", &lib->environment_readers, err) &&
             read_names(distributed, "value_keeping_builtins", &lib->value_keeping_builtins, err) &&
             read_names(distributed, "process_spawners", &lib->process_spawners, err) &&
             read_names(distributed, "process_group_initializers", &lib->process_group_initializers, err);
    const cJSON *environments = cJSON_GetObjectItemCaseSensitive(root, "environments");
    if (ok && environments)
        ok = read_environments(environments, lib, err);
    if (ok) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(mod, "containers");
        size_t n = cJSON_IsArray(arr) ? (size_t)cJSON_GetArraySize(arr) : 0;
        lib->containers = oom_xcalloc(n ? n : 1, sizeof *lib->containers);
        const cJSON *e;
        cJSON_ArrayForEach(e, arr)
        {
            if (cJSON_IsString(e))
                qpattern_parse(e->valuestring, &lib->containers[lib->container_count++]);
        }
        ok = cJSON_IsArray(arr) && lib->container_count == n;
        if (!ok)
            oom_buf_printf(err, "modules.containers must be a list of class names");
    }
    cJSON_Delete(root);
    if (!ok) {
        oom_library_free(lib);
        return NULL;
    }
    return lib;
}

static void free_patterns(oom_qpattern *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        qpattern_free(&list[i]);
    free(list);
}

void oom_library_free(oom_library *lib)
{
    if (!lib)
        return;
    free_patterns(lib->not_modules, lib->not_module_count);
    free_patterns(lib->constructors, lib->constructor_count);
    free_patterns(lib->bases, lib->base_count);
    free_patterns(lib->containers, lib->container_count);
    free_patterns(lib->text_encoders, lib->text_encoder_count);
    for (size_t i = 0; i < lib->wrapper_count; i++) {
        qpattern_free(&lib->wrappers[i].call);
        free(lib->wrappers[i].keyword);
    }
    free(lib->wrappers);
    for (size_t i = 0; i < lib->preparing_count; i++) {
        free(lib->preparing[i].method);
        qpattern_free(&lib->preparing[i].receiver);
    }
    free(lib->preparing);
    for (size_t i = 0; i < lib->hook_count; i++) {
        qpattern_free(&lib->hooks[i].base);
        free(lib->hooks[i].method);
    }
    free(lib->hooks);
    oom_strlist_free(&lib->self_returning);
    oom_strlist_free(&lib->module_attributes);
    oom_strlist_free(&lib->use_evidence);
    oom_strlist_free(&lib->forward_methods);
    oom_strlist_free(&lib->output_fields);
    oom_strlist_free(&lib->text_methods);
    oom_strlist_free(&lib->placing_methods);
    oom_strlist_free(&lib->host_methods);
    oom_strlist_free(&lib->evaluation_step_methods);
    oom_strlist_free(&lib->casting_methods);
    oom_strlist_free(&lib->output_builtins);
    oom_strlist_free(&lib->number_methods);
    oom_strlist_free(&lib->placing_keywords);
    oom_strlist_free(&lib->default_device_functions);
    oom_strlist_free(&lib->graph_leaving_methods);
    oom_strlist_free(&lib->number_builtins);
    oom_strlist_free(&lib->synthetic_tensor_functions);
    oom_strlist_free(&lib->option_decorators);
    oom_strlist_free(&lib->record_constructors);
    oom_strlist_free(&lib->path_joiners);
    oom_strlist_free(&lib->environment_makers);
    oom_strlist_free(&lib->global_rank_calls);
    oom_strlist_free(&lib->global_rank_variables);
    oom_strlist_free(&lib->launcher_variables);
    oom_strlist_free(&lib->environment_mappings);
    oom_strlist_free(&lib->environment_readers);
    oom_strlist_free(&lib->value_keeping_builtins);
    oom_strlist_free(&lib->process_spawners);
    oom_strlist_free(&lib->process_group_initializers);
    oom_strlist_free(&lib->optimizer_constructors);
    oom_strlist_free(&lib->parameter_methods);
    for (size_t i = 0; i < lib->environment_count; i++)
        oom_strlist_free(&lib->environments[i].ids);
    free(lib->environments);
    oom_strlist_free(&lib->flag_definers);
    oom_strlist_free(&lib->int_flag_definers);
    oom_strlist_free(&lib->bool_flag_definers);
    oom_strlist_free(&lib->opt_level_initializers);
    oom_strlist_free(&lib->collection_adding_methods);
    oom_strlist_free(&lib->host_tensor_factories);
    oom_strlist_free(&lib->parameter_constructors);
    oom_strlist_free(&lib->differentiating_functions);
    oom_strlist_free(&lib->data_tensor_factories);
    oom_strlist_free(&lib->device_combining_functions);
    oom_strlist_free(&lib->device_combining_methods);
    oom_strlist_free(&lib->device_following_methods);
    oom_strlist_free(&lib->tensor_metadata);
    oom_strlist_free(&lib->tensor_methods);
    oom_strlist_free(&lib->device_constructors);
    oom_strlist_free(&lib->tensor_view_attributes);
    oom_strlist_free(&lib->gpu_methods);
    oom_strlist_free(&lib->gpu_device_words);
    oom_strlist_free(&lib->dtypes);
    oom_strlist_free(&lib->size_keeping_methods);
    oom_strlist_free(&lib->device_placing_libraries);
    oom_strlist_free(&lib->target_placing_methods);
    oom_strlist_free(&lib->factory_target_keywords);
    oom_strlist_free(&lib->input_placing_wrappers);
    oom_strlist_free(&lib->no_grad_functions);
    oom_strlist_free(&lib->inference_mode_functions);
    oom_strlist_free(&lib->enable_grad_functions);
    oom_strlist_free(&lib->set_grad_enabled_functions);
    free(lib);
}

/* ---- the embedded file, once per process -------------------------------------- */

/* Read-only once parsed: every thread reads the same tables, none writes.
 * It lives for the process (as the embedded rules do). */
static pthread_once_t library_once = PTHREAD_ONCE_INIT;
static oom_library *library;
static char library_error[256];

/* The tables live as long as the process; they are given back at exit so
 * that a leak checker sees every allocation freed. */
static void free_library(void)
{
    oom_library_free(library);
    library = NULL;
}

static void load_library(void)
{
    atexit(free_library);
    for (size_t i = 0; i < oom_embedded_rule_file_count; i++) {
        const oom_rule_file *f = &oom_embedded_rule_files[i];
        if (strcmp(f->path, "kb/library.json") != 0)
            continue;
        oom_buf err;
        oom_buf_init(&err);
        library = oom_library_parse(f->data, f->len, &err);
        if (!library)
            snprintf(library_error, sizeof library_error, "rules/kb/library.json: %s", err.data ? err.data : "?");
        oom_buf_free(&err);
        return;
    }
    snprintf(library_error, sizeof library_error, "rules/kb/library.json is missing from the build");
}

const oom_library *oom_library_get(void)
{
    pthread_once(&library_once, load_library);
    return library;
}

const char *oom_library_error(void)
{
    pthread_once(&library_once, load_library);
    return library_error;
}

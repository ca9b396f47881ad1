/* estimate/configs: the JSON config files a script reads its model's sizes
 * from (`WaveGlow(**config["waveglow_config"])` after `config =
 * json.load(open(args.config))`). modules.c evaluates the script and asks
 * here for two things: which expression names the file a json.load() call
 * reads (decided by the calls the code makes, never by variable names), and
 * the values under the keys it subscripts. Each file is parsed once per
 * model read; a file that is missing or not JSON, or a key it lacks, is a
 * config that says so, so the size stays unknown and the output names the
 * file and key that would settle it. Nothing here calls back into
 * modules.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "oomlint/source.h"
#include "oomlint/util.h"

/* a config far larger than any model's is not read (it would be data) */
#define MAX_CONFIG_BYTES ((off_t)4 * 1024 * 1024)
/* keys of the configs a model read, for its provenance line */
#define MAX_USED 6

typedef struct {
    char *path;  /* as the script's argument gives it, for people */
    char *real;  /* with the command's directory applied */
    cJSON *root; /* NULL when it could not be read */
} config_file;

struct oom_est_config {
    config_file *file;
    const oom_est_config *parent;
    const cJSON *node; /* NULL for a missing key or an unreadable file */
    oom_est_config_kind kind;
    char key[64];       /* the key under parent ("" for the file's root) */
    char where[160];    /* `config.json ["model"]["dim"]` */
    char problem[224];  /* why no value is here; "" when there is one */
};

struct oom_est_configs {
    config_file **files;
    size_t nfiles, files_cap;
    oom_est_config **items;
    size_t len, cap;
    const oom_est_config *used[MAX_USED]; /* the objects whose keys sized the model */
    size_t nused;
};

oom_est_configs *oom_est_configs_new(void)
{
    return oom_xcalloc(1, sizeof(oom_est_configs));
}

void oom_est_configs_free(oom_est_configs *cs)
{
    if (!cs)
        return;
    for (size_t i = 0; i < cs->nfiles; i++) {
        cJSON_Delete(cs->files[i]->root);
        free(cs->files[i]->path);
        free(cs->files[i]->real);
        free(cs->files[i]);
    }
    for (size_t i = 0; i < cs->len; i++)
        free(cs->items[i]);
    free(cs->files);
    free(cs->items);
    free(cs);
}

static oom_est_config_kind kind_of_json(const cJSON *j)
{
    if (cJSON_IsObject(j))
        return OOM_CFG_OBJECT;
    if (cJSON_IsArray(j))
        return OOM_CFG_ARRAY;
    if (cJSON_IsBool(j))
        return OOM_CFG_BOOL;
    if (cJSON_IsNull(j))
        return OOM_CFG_NULL;
    if (cJSON_IsString(j))
        return OOM_CFG_STRING;
    if (cJSON_IsNumber(j)) /* 4 and 4.0 are both whole; the text tells JSON's int from its float */
        return j->valuedouble == (double)(long long)j->valuedouble ? OOM_CFG_INT : OOM_CFG_FLOAT;
    return OOM_CFG_MISSING;
}

static oom_est_config *config_new(oom_est_configs *cs, config_file *file, const oom_est_config *parent)
{
    oom_est_config *c = oom_xcalloc(1, sizeof *c);
    c->file = file;
    c->parent = parent;
    OOM_PUSH(cs->items, cs->len, cs->cap, c);
    return c;
}

/* Parses the file once; a second json.load of the same path shares it. */
static config_file *file_open(oom_est_configs *cs, const char *dir, const char *path, char *problem, size_t size)
{
    oom_buf real;
    oom_buf_init(&real);
    if (path[0] == '/' || !dir || !dir[0] || strcmp(dir, ".") == 0)
        oom_buf_puts(&real, path);
    else
        oom_buf_printf(&real, "%s/%s", dir, path);
    for (size_t i = 0; i < cs->nfiles; i++)
        if (strcmp(cs->files[i]->real, real.data) == 0) {
            oom_buf_free(&real);
            if (!cs->files[i]->root)
                oom_est_printf(problem, size, "%s could not be read as JSON", path);
            return cs->files[i];
        }
    config_file *f = oom_xcalloc(1, sizeof *f);
    f->path = oom_xstrdup(path);
    f->real = oom_xstrdup(real.data);
    OOM_PUSH(cs->files, cs->nfiles, cs->files_cap, f);
    struct stat st;
    if (stat(f->real, &st) != 0) {
        oom_est_printf(problem, size, "%s not found (%s)", f->path, strerror(errno));
    } else if (!S_ISREG(st.st_mode) || st.st_size > MAX_CONFIG_BYTES) {
        oom_est_printf(problem, size, "%s is not a config file oomlint reads (not a file, or over 4 MiB)", f->path);
    } else {
        oom_source src;
        char why[128];
        if (oom_source_read(f->real, f->real, &src, why, sizeof why) == OOM_SOURCE_OK)
            f->root = cJSON_ParseWithLength(src.text, src.len);
        oom_source_free(&src);
        if (!f->root)
            oom_est_printf(problem, size, "%s is not valid JSON", f->path);
    }
    oom_buf_free(&real);
    return f;
}

const oom_est_config *oom_est_config_open(oom_est_configs *cs, const oom_est_reader *script, const char *path)
{
    /* Python opens a relative path from where the command runs; without a
     * command, the script's own folder is the best guess */
    char dir[1024] = "", problem[224] = "";
    if (script->launch && script->launch->dir)
        oom_est_copy(dir, sizeof dir, script->launch->dir);
    else if (strrchr(script->path, '/'))
        oom_est_printf(dir, sizeof dir, "%.*s", (int)(strrchr(script->path, '/') - script->path), script->path);
    config_file *f = file_open(cs, dir, path, problem, sizeof problem);
    for (size_t i = 0; i < cs->len; i++) /* a file read twice is one config: its keys are read once */
        if (cs->items[i]->file == f && !cs->items[i]->parent)
            return cs->items[i];
    oom_est_config *c = config_new(cs, f, NULL);
    c->node = f->root;
    c->kind = f->root ? kind_of_json(f->root) : OOM_CFG_UNREADABLE;
    oom_est_copy(c->where, sizeof c->where, path);
    oom_est_copy(c->problem, sizeof c->problem, problem);
    return c;
}

const oom_est_config *oom_est_config_key(oom_est_configs *cs, const oom_est_config *of, const char *key)
{
    for (size_t i = 0; i < cs->len; i++) /* read once: the same key of the same object is one config */
        if (cs->items[i]->parent == of && strcmp(cs->items[i]->key, key) == 0)
            return cs->items[i];
    oom_est_config *c = config_new(cs, of->file, of);
    oom_est_copy(c->key, sizeof c->key, key);
    oom_est_printf(c->where, sizeof c->where, "%s [\"%s\"]", of->where, key);
    if (of->kind == OOM_CFG_UNREADABLE) { /* the file's own problem is what settles every key */
        c->kind = OOM_CFG_UNREADABLE;
        oom_est_copy(c->problem, sizeof c->problem, of->problem);
        return c;
    }
    char *end;
    long idx = strtol(key, &end, 10);
    if (of->kind == OOM_CFG_ARRAY && *key && !*end)
        c->node = cJSON_GetArrayItem(of->node, (int)(idx < 0 ? cJSON_GetArraySize(of->node) + idx : idx));
    else if (of->kind == OOM_CFG_OBJECT)
        c->node = cJSON_GetObjectItemCaseSensitive(of->node, key);
    c->kind = c->node ? kind_of_json(c->node) : OOM_CFG_MISSING;
    if (!c->node)
        oom_est_printf(c->problem, sizeof c->problem, "%s has no key [\"%s\"]", of->where, key);
    return c;
}

oom_est_config_kind oom_est_config_kind_of(const oom_est_config *c)
{
    return c ? c->kind : OOM_CFG_MISSING;
}

double oom_est_config_number(const oom_est_config *c)
{
    return c && c->node && cJSON_IsNumber(c->node) ? c->node->valuedouble : 0;
}

const char *oom_est_config_string(const oom_est_config *c)
{
    return c && c->node && cJSON_IsString(c->node) ? c->node->valuestring : "";
}

bool oom_est_config_true(const oom_est_config *c)
{
    return c && c->node && cJSON_IsTrue(c->node);
}

size_t oom_est_config_ints(const oom_est_config *c, long long *out, size_t max)
{
    size_t n = 0;
    if (!c || c->kind != OOM_CFG_ARRAY)
        return 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, c->node)
    {
        if (kind_of_json(item) != OOM_CFG_INT || n >= max)
            return 0;
        out[n++] = (long long)item->valuedouble;
    }
    return n;
}

const char *oom_est_config_problem(const oom_est_config *c)
{
    return c && c->problem[0] ? c->problem : NULL;
}

void oom_est_config_used(oom_est_configs *cs, const oom_est_config *value)
{
    const oom_est_config *of = value && value->parent ? value->parent : value;
    if (!of || value->kind == OOM_CFG_MISSING || value->kind == OOM_CFG_UNREADABLE)
        return;
    for (size_t i = 0; i < cs->nused; i++)
        if (cs->used[i] == of)
            return;
    if (cs->nused < MAX_USED)
        cs->used[cs->nused++] = of;
}

void oom_est_configs_describe(const oom_est_configs *cs, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cs->nused && at + 1 < size; i++) {
        oom_est_printf(buf + at, size - at, "%s%s", i ? ", " : "", cs->used[i]->where);
        at = strlen(buf);
    }
}

/* ---- which file a json.load() call reads ------------------------------------ */

static bool is_type(TSNode n, const char *type)
{
    return oom_est_type_is(n, type);
}

static bool text_is(const oom_est_reader *r, TSNode n, const char *want)
{
    char buf[48];
    return !ts_node_is_null(n) && oom_est_text_of(r, n, buf, sizeof buf) && strcmp(buf, want) == 0;
}

static TSNode first_argument(TSNode call)
{
    TSNode args = oom_est_child(call, "arguments");
    return ts_node_is_null(args) || ts_node_named_child_count(args) == 0 ? OOM_EST_NULL_NODE
                                                                         : ts_node_named_child(args, 0);
}

/* `open(P)` or `open(P, "r")`: P. Only the builtin: a call of `open` the
 * file does not define or import otherwise. */
static TSNode opened_path(const oom_est_reader *r, TSNode call)
{
    if (!is_type(call, "call") || !text_is(r, oom_est_child(call, "function"), "open"))
        return OOM_EST_NULL_NODE;
    return first_argument(call);
}

/* The `open(P)` a name holds from `with open(P) as name:`: the last such
 * with before `use` in the file (Python binds the name there and keeps it
 * after the block). */
static TSNode with_opened(const oom_est_reader *r, const oom_nodes *layout, TSNode name, TSNode use)
{
    char want[48];
    TSNode found = OOM_EST_NULL_NODE;
    if (!is_type(name, "identifier") || !oom_est_text_of(r, name, want, sizeof want))
        return found;
    for (uint32_t k = 0; k < layout->len; k++) {
        TSNode item = layout->items[k].node;
        if (ts_node_start_byte(item) >= ts_node_start_byte(use))
            break;
        TSNode as = is_type(item, "with_item") ? oom_est_child(item, "value") : OOM_EST_NULL_NODE;
        if (!is_type(as, "as_pattern") || !text_is(r, oom_est_child(as, "alias"), want))
            continue;
        TSNode p = opened_path(r, ts_node_named_child(as, 0));
        if (!ts_node_is_null(p))
            found = p;
    }
    return found;
}

/* What an opened file `f` (an expression) was opened from: `open(P)` itself,
 * or a name a `with open(P) as f` binds. */
static TSNode file_path(const oom_est_reader *r, const oom_nodes *layout, TSNode f)
{
    TSNode p = opened_path(r, f);
    return ts_node_is_null(p) ? with_opened(r, layout, f, f) : p;
}

TSNode oom_est_config_path_of(const oom_est_reader *r, const oom_nodes *layout, TSNode call)
{
    TSNode a = first_argument(call);
    TSNode fn = oom_est_child(call, "function");
    if (!(is_type(fn, "attribute") && text_is(r, oom_est_child(fn, "attribute"), "loads"))) /* json.load(f): f is an opened file */
        return file_path(r, layout, a);
    /* json.loads(text): the text read from a file, at once or through a
     * name (`data = f.read()`) */
    if (is_type(a, "identifier")) {
        TSNode bound = oom_pymodel_value_of(r->m, a, 0);
        if (!ts_node_is_null(bound) && !ts_node_eq(bound, a))
            a = bound;
    }
    TSNode rf = oom_est_child(a, "function");
    if (is_type(a, "call") && is_type(rf, "attribute") && text_is(r, oom_est_child(rf, "attribute"), "read"))
        return file_path(r, layout, oom_est_child(rf, "object"));
    return OOM_EST_NULL_NODE;
}

/* ---- the globals a config travels through ----------------------------------
 * waveglow reads its config in `if __name__ == "__main__":` into a global
 * (`waveglow_config = config["waveglow_config"]`) that train(), defined
 * above, unpacks into the model. A function reads a global when it runs,
 * after the module bound it, so the one binding counts though it comes
 * later in the file. */

/* The function around layout entry k; UINT32_MAX at module level. */
static uint32_t function_around(const oom_nodes *layout, uint32_t k)
{
    for (uint32_t up = layout->items[k].parent; up != UINT32_MAX; up = layout->items[up].parent)
        if (is_type(layout->items[up].node, "function_definition"))
            return up;
    return UINT32_MAX;
}

/* Whether the function at layout entry fn says `global name`. */
static bool declares_global(const oom_est_reader *r, const oom_nodes *layout, uint32_t fn, const char *name)
{
    for (uint32_t k = fn + 1; k < layout->items[fn].end; k++)
        if (is_type(layout->items[k].node, "identifier") && is_type(ts_node_parent(layout->items[k].node), "global_statement") &&
            text_is(r, layout->items[k].node, name))
            return true;
    return false;
}

TSNode oom_est_global_value(const oom_est_reader *r, const oom_nodes *layout, TSNode name)
{
    char want[48];
    uint32_t use = oom_nodes_find(layout, name);
    if (use == UINT32_MAX || function_around(layout, use) == UINT32_MAX || !is_type(name, "identifier") ||
        !oom_est_text_of(r, name, want, sizeof want))
        return OOM_EST_NULL_NODE;
    /* the function's own binding (a parameter, a local) is not a global */
    uint32_t own = function_around(layout, use);
    if (declares_global(r, layout, own, want) == false) {
        for (uint32_t k = own + 1; k < layout->items[own].end; k++) {
            TSNode a = layout->items[k].node;
            if ((is_type(a, "assignment") || is_type(a, "augmented_assignment")) && text_is(r, oom_est_child(a, "left"), want))
                return OOM_EST_NULL_NODE;
        }
    }
    TSNode found = OOM_EST_NULL_NODE;
    int count = 0;
    for (uint32_t k = 0; k < layout->len; k++) {
        TSNode a = layout->items[k].node;
        if (!is_type(a, "assignment") || !text_is(r, oom_est_child(a, "left"), want))
            continue;
        uint32_t fn = function_around(layout, k);
        if (fn == UINT32_MAX || declares_global(r, layout, fn, want)) {
            found = oom_est_child(a, "right");
            count++;
        }
    }
    return count == 1 ? found : OOM_EST_NULL_NODE; /* bound twice: which one the run sees is not told here */
}

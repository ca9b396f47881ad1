/* estimate/configs: the JSON and YAML config files a script reads its
 * model's sizes from (`WaveGlow(**config["waveglow_config"])` after `config
 * = json.load(open(args.config))`, or `yaml.safe_load(open(path))`).
 * modules.c evaluates the script and asks here which expression names the
 * file a load call reads (decided by the calls the code makes, never by
 * variable names), and for the values under the keys it subscripts. Each
 * file is parsed once per model read; a file that is missing or does not
 * parse, or a key it lacks, is a config that says so, and the first such
 * problem met is kept, so a size left unknown names the file and key that
 * would settle it. Nothing here calls back into modules.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "oomlint/source.h"
#include "oomlint/util.h"
#include "oomlint/yamlmodel.h"

/* a config far larger than any model's is not read (it would be data) */
#define MAX_CONFIG_BYTES ((off_t)4 * 1024 * 1024)
/* keys of the configs a model read, for its provenance line */
#define MAX_USED 6
/* the whole numbers of a list a config holds (a kernel size, channel multipliers) */
#define MAX_CONFIG_INTS 16

typedef struct {
    char *path;  /* as the script's argument gives it, for people */
    char *real;  /* with the command's directory applied */
    bool yaml;   /* read by a yaml loader: the format is the loader's, not the file name's */
    cJSON *root; /* JSON; NULL when it could not be read */
    oom_yaml_file y; /* YAML; y.model NULL when it could not be read */
    bool readable;
} config_file;

/* One value of a file, read once: its kind and, for a scalar or a list of
 * whole numbers, the value itself, whichever format it came from. */
struct oom_est_config {
    config_file *file;
    const oom_est_config *parent;
    const cJSON *node;  /* JSON: the value */
    char dotted[160];   /* YAML: its key path from the root, "model.dim" (the YAML reader's lookup) */
    oom_est_config_kind kind;
    double num;
    bool truth;
    char str[128];
    long long ints[MAX_CONFIG_INTS];
    size_t nints;
    size_t count; /* the items of an object or list, for len() */
    char key[64];      /* the key under parent ("" for the file's root) */
    char where[160];   /* `config.json ["model"]["dim"]` */
    char problem[224]; /* why no value is here; "" when there is one */
};

/* A global a function reads, as oom_est_global_value found it. */
typedef struct {
    const oom_nodes *layout;
    uint32_t fn;
    char name[48];
    TSNode value;
} global_entry;

struct oom_est_configs {
    config_file **files;
    size_t nfiles, files_cap;
    oom_est_config **items;
    size_t len, cap;
    const oom_est_config *used[MAX_USED]; /* the objects whose keys sized the model */
    size_t nused;
    char why[224]; /* the first problem a read met */
    global_entry *globals;
    size_t nglobals, globals_cap;
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
        if (cs->files[i]->yaml)
            oom_yaml_file_free(&cs->files[i]->y);
        free(cs->files[i]->path);
        free(cs->files[i]->real);
        free(cs->files[i]);
    }
    for (size_t i = 0; i < cs->len; i++)
        free(cs->items[i]);
    free(cs->files);
    free(cs->items);
    free(cs->globals);
    free(cs);
}

/* A number a size may be: whole and small enough to be one exactly (a
 * cast of a larger double would be undefined). */
static bool whole(double d)
{
    return d > -9e15 && d < 9e15 && d == (double)(long long)d;
}

static void fill_json(oom_est_config *c, const cJSON *j)
{
    c->node = j;
    c->kind = OOM_CFG_MISSING;
    if (cJSON_IsObject(j)) {
        c->kind = OOM_CFG_OBJECT;
        c->count = (size_t)cJSON_GetArraySize(j);
    } else if (cJSON_IsArray(j)) {
        c->kind = OOM_CFG_ARRAY;
        c->count = (size_t)cJSON_GetArraySize(j);
        const cJSON *item;
        cJSON_ArrayForEach(item, j)
        {
            if (!cJSON_IsNumber(item) || !whole(item->valuedouble) || c->nints >= MAX_CONFIG_INTS) {
                c->nints = 0; /* a list of anything else is read by index only */
                break;
            }
            c->ints[c->nints++] = (long long)item->valuedouble;
        }
    } else if (cJSON_IsBool(j)) {
        c->kind = OOM_CFG_BOOL;
        c->truth = cJSON_IsTrue(j);
    } else if (cJSON_IsNull(j)) {
        c->kind = OOM_CFG_NULL;
    } else if (cJSON_IsString(j)) {
        c->kind = OOM_CFG_STRING;
        oom_est_copy(c->str, sizeof c->str, j->valuestring);
    } else if (cJSON_IsNumber(j)) { /* 4 and 4.0 are both whole; Python's int() is what sizes need */
        c->num = j->valuedouble;
        c->kind = whole(j->valuedouble) ? OOM_CFG_INT : OOM_CFG_FLOAT;
    }
}

/* The content of a YAML block_node / flow_node: past its anchor and tag. */
static TSNode yaml_content(TSNode n)
{
    TSNode inner = n;
    for (uint32_t i = 0; (oom_est_type_is(n, "block_node") || oom_est_type_is(n, "flow_node")) &&
                         i < ts_node_named_child_count(n); i++) {
        TSNode k = ts_node_named_child(n, i);
        if (!oom_est_type_is(k, "anchor") && !oom_est_type_is(k, "tag") && !oom_est_type_is(k, "comment"))
            inner = k;
    }
    return inner;
}

/* The pairs of a mapping or the items of a list (comments are nodes too). */
static size_t yaml_count(TSNode n)
{
    size_t count = 0;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        count += !oom_est_type_is(ts_node_named_child(n, i), "comment");
    return count;
}

/* A YAML list of plain whole numbers (`ch_mult: [1, 2, 2, 2]`, or a block
 * list of them); anything else leaves the list unread. */
static void yaml_ints(oom_est_config *c, TSNode seq)
{
    const char *src = c->file->y.src.text;
    for (uint32_t i = 0; i < ts_node_named_child_count(seq); i++) {
        TSNode item = ts_node_named_child(seq, i);
        if (oom_est_type_is(item, "comment"))
            continue;
        if (oom_est_type_is(item, "block_sequence_item"))
            item = ts_node_named_child(item, 0);
        TSNode s = yaml_content(item);
        char buf[32], *end;
        uint32_t a = ts_node_start_byte(s), n = ts_node_end_byte(s) - a;
        if (!oom_est_type_is(s, "plain_scalar") || n == 0 || n >= sizeof buf || c->nints >= MAX_CONFIG_INTS) {
            c->nints = 0;
            return;
        }
        memcpy(buf, src + a, n);
        buf[n] = '\0';
        long long v = strtoll(buf, &end, 10);
        if (*end) {
            c->nints = 0;
            return;
        }
        c->ints[c->nints++] = v;
    }
}

/* The value of the pair at c->dotted, as the project's YAML reader reads it
 * (PyYAML's scalars, merge keys followed). */
static void fill_yaml(oom_est_config *c)
{
    const oom_yamlmodel *m = c->file->y.model;
    TSNode none = OOM_EST_NULL_NODE;
    TSNode pair = oom_yamlmodel_find(m, none, c->dotted);
    c->kind = OOM_CFG_MISSING;
    if (ts_node_is_null(pair))
        return;
    oom_buf v;
    oom_buf_init(&v);
    oom_yaml_value_type t = oom_yamlmodel_pair_value(m, pair, &v);
    TSNode content = yaml_content(oom_est_child(pair, "value"));
    if (t == OOM_YAML_VALUE_INT || t == OOM_YAML_VALUE_FLOAT) {
        c->num = strtod(v.data, NULL);
        c->kind = t == OOM_YAML_VALUE_INT && whole(c->num) ? OOM_CFG_INT : OOM_CFG_FLOAT;
    } else if (t == OOM_YAML_VALUE_BOOL) {
        c->kind = OOM_CFG_BOOL;
        c->truth = strcmp(v.data, "true") == 0;
    } else if (t == OOM_YAML_VALUE_NULL) {
        c->kind = OOM_CFG_NULL;
    } else if (t == OOM_YAML_VALUE_STRING) {
        c->kind = OOM_CFG_STRING;
        oom_est_copy(c->str, sizeof c->str, v.data);
    } else if (oom_est_type_is(content, "block_mapping") || oom_est_type_is(content, "flow_mapping")) {
        c->kind = OOM_CFG_OBJECT;
        c->count = yaml_count(content);
    } else if (oom_est_type_is(content, "block_sequence") || oom_est_type_is(content, "flow_sequence")) {
        c->kind = OOM_CFG_ARRAY;
        c->count = yaml_count(content);
        yaml_ints(c, content);
    } else {
        /* an alias to a mapping: the reader follows merge keys, not aliases of whole values */
        oom_est_printf(c->problem, sizeof c->problem, "%s is an alias oomlint does not follow", c->where);
    }
    oom_buf_free(&v);
}

static oom_est_config *config_new(oom_est_configs *cs, config_file *file, const oom_est_config *parent)
{
    oom_est_config *c = oom_xcalloc(1, sizeof *c);
    c->file = file;
    c->parent = parent;
    OOM_PUSH(cs->items, cs->len, cs->cap, c);
    return c;
}

/* Parses the file once; a second load of the same path shares it. */
static config_file *file_open(oom_est_configs *cs, const char *dir, const char *path, bool yaml, char *problem,
                              size_t size)
{
    const char *format = yaml ? "YAML" : "JSON";
    oom_buf real;
    oom_buf_init(&real);
    if (path[0] == '/' || !dir || !dir[0] || strcmp(dir, ".") == 0)
        oom_buf_puts(&real, path);
    else
        oom_buf_printf(&real, "%s/%s", dir, path);
    for (size_t i = 0; i < cs->nfiles; i++)
        if (strcmp(cs->files[i]->real, real.data) == 0 && cs->files[i]->yaml == yaml) {
            oom_buf_free(&real);
            if (!cs->files[i]->readable)
                oom_est_printf(problem, size, "%s could not be read as %s", path, format);
            return cs->files[i];
        }
    config_file *f = oom_xcalloc(1, sizeof *f);
    f->path = oom_xstrdup(path);
    f->real = oom_xstrdup(real.data);
    f->yaml = yaml;
    OOM_PUSH(cs->files, cs->nfiles, cs->files_cap, f);
    struct stat st;
    char why[128];
    if (stat(f->real, &st) != 0) {
        oom_est_printf(problem, size, "%s not found (%s)", f->path, strerror(errno));
    } else if (!S_ISREG(st.st_mode) || st.st_size > MAX_CONFIG_BYTES) {
        oom_est_printf(problem, size, "%s is not a config file oomlint reads (not a file, or over 4 MiB)", f->path);
    } else if (yaml) {
        /* a YAML file with a syntax error would stop PyYAML: nothing read */
        f->readable = oom_yaml_file_read(f->real, &f->y, why, sizeof why) && f->y.model &&
                      !ts_node_has_error(ts_tree_root_node(f->y.tree));
    } else {
        oom_source src;
        if (oom_source_read(f->real, f->real, &src, why, sizeof why) == OOM_SOURCE_OK)
            f->root = cJSON_ParseWithLength(src.text, src.len);
        oom_source_free(&src);
        f->readable = f->root != NULL;
    }
    if (!problem[0] && !f->readable)
        oom_est_printf(problem, size, "%s is not valid %s", f->path, format);
    oom_buf_free(&real);
    return f;
}

const oom_est_config *oom_est_config_open(oom_est_configs *cs, const oom_est_reader *script, const char *path,
                                          bool yaml)
{
    /* Python opens a relative path from where the command runs; without a
     * command, the script's own folder is the best guess */
    char dir[1024] = "", problem[224] = "";
    if (script->launch && script->launch->dir)
        oom_est_copy(dir, sizeof dir, script->launch->dir);
    else if (strrchr(script->path, '/'))
        oom_est_printf(dir, sizeof dir, "%.*s", (int)(strrchr(script->path, '/') - script->path), script->path);
    config_file *f = file_open(cs, dir, path, yaml, problem, sizeof problem);
    for (size_t i = 0; i < cs->len; i++) /* a file read twice is one config: its keys are read once */
        if (cs->items[i]->file == f && !cs->items[i]->parent)
            return cs->items[i];
    oom_est_config *c = config_new(cs, f, NULL);
    oom_est_copy(c->where, sizeof c->where, path);
    oom_est_copy(c->problem, sizeof c->problem, problem);
    if (!f->readable)
        c->kind = OOM_CFG_UNREADABLE;
    else if (yaml)
        c->kind = OOM_CFG_OBJECT; /* a document's root mapping */
    else
        fill_json(c, f->root);
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
    bool index = *key && !*end;
    c->kind = OOM_CFG_MISSING;
    if (of->kind == OOM_CFG_ARRAY && index && of->nints) { /* a list of whole numbers: its item */
        long i = idx < 0 ? (long)of->nints + idx : idx;
        if (i >= 0 && (size_t)i < of->nints)
            c->kind = OOM_CFG_INT, c->num = (double)of->ints[i];
    } else if (of->file->yaml && of->kind == OOM_CFG_OBJECT && !strchr(key, '.')) {
        oom_est_printf(c->dotted, sizeof c->dotted, "%s%s%s", of->dotted, of->dotted[0] ? "." : "", key);
        fill_yaml(c);
    } else if (!of->file->yaml && of->kind == OOM_CFG_ARRAY && index) {
        const cJSON *item = cJSON_GetArrayItem(of->node, (int)(idx < 0 ? cJSON_GetArraySize(of->node) + idx : idx));
        if (item)
            fill_json(c, item);
    } else if (!of->file->yaml && of->kind == OOM_CFG_OBJECT) {
        const cJSON *item = cJSON_GetObjectItemCaseSensitive(of->node, key);
        if (item)
            fill_json(c, item);
    }
    if (c->kind == OOM_CFG_MISSING && !c->problem[0])
        oom_est_printf(c->problem, sizeof c->problem, "%s has no key [\"%s\"]", of->where, key);
    return c;
}

oom_est_config_kind oom_est_config_kind_of(const oom_est_config *c)
{
    return c ? c->kind : OOM_CFG_MISSING;
}

double oom_est_config_number(const oom_est_config *c)
{
    return c->num;
}

const char *oom_est_config_string(const oom_est_config *c)
{
    return c->str;
}

bool oom_est_config_true(const oom_est_config *c)
{
    return c->truth;
}

static void mark_used(oom_est_configs *cs, const oom_est_config *of)
{
    for (size_t i = 0; i < cs->nused; i++)
        if (cs->used[i] == of)
            return;
    if (cs->nused < MAX_USED)
        cs->used[cs->nused++] = of;
}

bool oom_est_config_len(oom_est_configs *cs, const oom_est_config *c, long long *out)
{
    /* a YAML root's pairs are not counted here: a merge key would miscount them */
    if ((c->kind != OOM_CFG_OBJECT && c->kind != OOM_CFG_ARRAY) || (c->file->yaml && !c->parent))
        return false;
    *out = (long long)c->count;
    mark_used(cs, c); /* the size is the object's own: "sizes from vocab.json" */
    return true;
}

size_t oom_est_config_ints(const oom_est_config *c, long long *out, size_t max)
{
    size_t n = c->nints < max ? c->nints : 0;
    memcpy(out, c->ints, n * sizeof *out);
    return n;
}

bool oom_est_config_read(oom_est_configs *cs, const oom_est_config *value)
{
    if (value->problem[0] || value->kind == OOM_CFG_MISSING || value->kind == OOM_CFG_UNREADABLE) {
        if (!cs->why[0])
            oom_est_copy(cs->why, sizeof cs->why, value->problem[0] ? value->problem : value->where);
        return false;
    }
    if (value->kind != OOM_CFG_OBJECT && value->kind != OOM_CFG_ARRAY && value->parent)
        mark_used(cs, value->parent); /* a container is read for its keys: those are what sized the model */
    return true;
}

const char *oom_est_configs_why(const oom_est_configs *cs)
{
    return cs->why;
}

void oom_est_config_path_unknown(oom_est_configs *cs, const oom_est_reader *r, TSNode path, bool yaml)
{
    /* the option that settles it, when the path is one: `args.config` */
    const oom_est_setting *s = oom_est_setting_read_by(r, path);
    char t[64] = "?";
    if (!oom_est_text_of(r, path, t, sizeof t))
        oom_est_copy(t, sizeof t, "?");
    if (!cs->why[0])
        oom_est_printf(cs->why, sizeof cs->why, "the %s config `%s` is not known%s%s", yaml ? "YAML" : "JSON", t,
                       s ? ": give " : "", s ? s->spelling : "");
}

int oom_est_config_loader(const char *qualname)
{
    /* PyYAML's loaders of a whole document; load() with any Loader= reads
     * the same mapping for the plain keys sizes live under */
    static const char *const yaml[] = {"yaml.safe_load", "yaml.load", "yaml.full_load", "yaml.unsafe_load", NULL};
    for (int i = 0; yaml[i]; i++)
        if (strcmp(qualname, yaml[i]) == 0)
            return 1;
    return strcmp(qualname, "json.load") == 0 || strcmp(qualname, "json.loads") == 0 ? 0 : -1;
}

void oom_est_configs_describe(const oom_est_configs *cs, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < cs->nused; i++) {
        size_t at = strlen(buf);
        oom_est_printf(buf + at, size - at, "%s%s", i ? ", " : "; sizes from ", cs->used[i]->where);
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

static bool calls(const oom_est_reader *r, TSNode call, const char *const *qualnames)
{
    oom_buf q;
    oom_buf_init(&q);
    bool yes = is_type(call, "call") && oom_pymodel_qualname(r->m, oom_est_child(call, "function"), &q);
    bool found = false;
    for (int i = 0; yes && !found && qualnames[i]; i++)
        found = strcmp(q.data, qualnames[i]) == 0;
    oom_buf_free(&q);
    return found;
}

/* `Path(P)`: P. */
static TSNode path_object(const oom_est_reader *r, TSNode call)
{
    static const char *const path[] = {"pathlib.Path", "Path", NULL};
    return calls(r, call, path) ? first_argument(call) : OOM_EST_NULL_NODE;
}

/* A method called on an object: `X.read()` gives X for "read". */
static TSNode method_object(const oom_est_reader *r, TSNode call, const char *method)
{
    TSNode fn = oom_est_child(call, "function");
    return is_type(call, "call") && is_type(fn, "attribute") && text_is(r, oom_est_child(fn, "attribute"), method)
               ? oom_est_child(fn, "object")
               : OOM_EST_NULL_NODE;
}

/* `open(P)`, `open(P, "r")`, `io.open(P)`, `Path(P).open()`: P. Decided by
 * the call's qualified name: an `open` the file imports from gzip opens
 * what no JSON reader reads. */
static TSNode opened_path(const oom_est_reader *r, TSNode call)
{
    static const char *const opens[] = {"open", "io.open", "codecs.open", NULL};
    if (calls(r, call, opens))
        return first_argument(call);
    return path_object(r, method_object(r, call, "open"));
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
    /* json.load(f) / yaml.safe_load(f): f is an opened file */
    TSNode a = first_argument(call);
    TSNode p = file_path(r, layout, a);
    if (!ts_node_is_null(p))
        return p;
    /* json.loads(text) / yaml.safe_load(text): the text read from a file,
     * at once or through a name (`data = f.read()`), or `Path(P).read_text()` */
    if (is_type(a, "identifier")) {
        TSNode bound = oom_pymodel_value_of(r->m, a, 0);
        if (!ts_node_is_null(bound) && !ts_node_eq(bound, a))
            a = bound;
    }
    TSNode read = method_object(r, a, "read");
    return ts_node_is_null(read) ? path_object(r, method_object(r, a, "read_text")) : file_path(r, layout, read);
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
        if (is_type(layout->items[k].node, "identifier") &&
            is_type(ts_node_parent(layout->items[k].node), "global_statement") &&
            text_is(r, layout->items[k].node, name))
            return true;
    return false;
}

/* Whether an identifier is where a name is bound, not read: an
 * assignment's or a loop's target (alone or in a pattern), a parameter, an
 * `as` target, a walrus. */
static bool binds(TSNode id)
{
    static const char *const patterns[] = {"pattern_list", "tuple_pattern", "list_pattern", "parameters",
                                           "lambda_parameters", "typed_parameter", "default_parameter",
                                           "typed_default_parameter", "as_pattern_target", "list_splat_pattern",
                                           "dictionary_splat_pattern", "named_expression", NULL};
    TSNode up = ts_node_parent(id);
    for (int i = 0; patterns[i]; i++)
        if (is_type(up, patterns[i]))
            return true;
    return (is_type(up, "assignment") || is_type(up, "augmented_assignment") || is_type(up, "for_statement") ||
            is_type(up, "for_in_clause")) &&
           ts_node_eq(oom_est_child(up, "left"), id);
}

TSNode oom_est_global_value(oom_est_configs *cs, const oom_est_reader *r, const oom_nodes *layout, TSNode name)
{
    char want[48];
    uint32_t use = oom_nodes_find(layout, name);
    uint32_t own = use == UINT32_MAX ? UINT32_MAX : function_around(layout, use);
    if (own == UINT32_MAX || !is_type(name, "identifier") || !oom_est_text_of(r, name, want, sizeof want))
        return OOM_EST_NULL_NODE;
    /* asked for every name a function reads that nothing else resolves
     * (`range`, `len` in an unrolled loop): the file is scanned once per
     * function and name */
    for (size_t i = 0; i < cs->nglobals; i++)
        if (cs->globals[i].layout == layout && cs->globals[i].fn == own && strcmp(cs->globals[i].name, want) == 0)
            return cs->globals[i].value;
    TSNode found = OOM_EST_NULL_NODE;
    int count = 0;
    /* a name the function binds itself (a parameter, a local, a loop's
     * target) is not the global, unless it says `global name` */
    bool local = false;
    if (!declares_global(r, layout, own, want))
        for (uint32_t k = own + 1; !local && k < layout->items[own].end; k++)
            local = is_type(layout->items[k].node, "identifier") && binds(layout->items[k].node) &&
                    text_is(r, layout->items[k].node, want);
    for (uint32_t k = 0; !local && k < layout->len; k++) {
        TSNode a = layout->items[k].node;
        if (!is_type(a, "assignment") || !text_is(r, oom_est_child(a, "left"), want))
            continue;
        uint32_t fn = function_around(layout, k);
        if (fn == UINT32_MAX || declares_global(r, layout, fn, want)) {
            found = oom_est_child(a, "right");
            count++;
        }
    }
    if (count != 1) /* bound twice: which one the run sees is not told here */
        found = OOM_EST_NULL_NODE;
    global_entry e = {.layout = layout, .fn = own, .value = found};
    oom_est_copy(e.name, sizeof e.name, want);
    OOM_PUSH(cs->globals, cs->nglobals, cs->globals_cap, e);
    return found;
}

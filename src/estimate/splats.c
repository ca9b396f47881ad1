/* estimate/splats: training settings that a config file hands a function as
 * its parameters. waveglow reads `config = json.loads(open(args.config)
 * .read())` and calls `train(num_gpus, rank, group_name, **config[
 * "train_config"])`, whose `batch_size` parameter reaches the DataLoader:
 * the batch is the config's `"batch_size": 12`, not a default. Each key of
 * the splatted object that names one of the function's parameters becomes
 * a setting of that call (OOM_SETTING_CONFIG), which the settings' reader
 * finds when it follows the parameter back to this call (settings.c).
 *
 * It runs after the launch command's arguments are bound, so the config's
 * path may come from an option the command gives (`-c config.json`). A path
 * that is not known, a file that is missing or does not parse, or a value
 * that is not a scalar makes no setting: the parameter stays unknown and the
 * readers keep their assumption. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "oomlint/nodes.h"

/* object subscripts followed from the splat back to the load: config["a"]["b"] */
#define MAX_KEYS 8

typedef struct {
    oom_est_reader *r;
    const oom_nodes *layout;
    oom_est_configs *configs;
} splat_scan;

/* The module-level function a call names by its identifier; null when the
 * file defines none of that name at module level. */
static TSNode module_function(const oom_est_reader *r, TSNode call)
{
    char want[64], name[64];
    TSNode fn = oom_est_child(call, "function");
    if (!oom_est_type_is(fn, "identifier") || !oom_est_text_of(r, fn, want, sizeof want))
        return OOM_EST_NULL_NODE;
    for (uint32_t i = 0; i < ts_node_named_child_count(r->root); i++) {
        TSNode d = ts_node_named_child(r->root, i);
        if (oom_est_type_is(d, "decorated_definition"))
            d = oom_est_child(d, "definition");
        if (oom_est_type_is(d, "function_definition") && oom_est_text_of(r, oom_est_child(d, "name"), name, sizeof name) &&
            strcmp(name, want) == 0)
            return d;
    }
    return OOM_EST_NULL_NODE;
}

/* The function (or module) a layout entry is in: its layout index, or
 * UINT32_MAX at module level. */
static uint32_t scope_of(const oom_nodes *L, uint32_t k)
{
    for (uint32_t up = L->items[k].parent; up != UINT32_MAX; up = L->items[up].parent)
        if (oom_est_type_is(L->items[up].node, "function_definition"))
            return up;
    return UINT32_MAX;
}

/* What name `e` holds where it is read: the dataflow's binding, else the
 * last plain `e = value` before the read in the same scope (a name read
 * in a `**splat` is not one the dataflow answers for). */
static TSNode binding_of(const splat_scan *ss, TSNode e)
{
    TSNode v = oom_pymodel_value_of(ss->r->m, e, 0);
    if (!ts_node_is_null(v) && !ts_node_eq(v, e))
        return v;
    const oom_nodes *L = ss->layout;
    uint32_t use = oom_nodes_find(L, e);
    char want[64], left[64];
    if (use == UINT32_MAX || !oom_est_text_of(ss->r, e, want, sizeof want))
        return OOM_EST_NULL_NODE;
    uint32_t scope = scope_of(L, use);
    TSNode found = OOM_EST_NULL_NODE;
    for (uint32_t k = scope == UINT32_MAX ? 0 : scope + 1; k < use; k++) {
        TSNode a = L->items[k].node;
        if (oom_est_type_is(a, "assignment") && scope_of(L, k) == scope &&
            oom_est_type_is(oom_est_child(a, "left"), "identifier") &&
            oom_est_text_of(ss->r, oom_est_child(a, "left"), left, sizeof left) && strcmp(left, want) == 0)
            found = oom_est_child(a, "right");
    }
    return found;
}

/* The config's path a load call reads, as a string: a literal, or the
 * option it reads with the value the command gives or its default. */
static bool load_path(const splat_scan *ss, TSNode load, oom_buf *out)
{
    TSNode p = oom_est_config_path_of(ss->r, ss->layout, load);
    if (ts_node_is_null(p))
        return false;
    TSNode literal = oom_pymodel_value_of(ss->r->m, p, 0);
    if (!ts_node_is_null(literal) && oom_pymodel_string_value(ss->r->m, literal, out))
        return true;
    const oom_est_setting *s = oom_est_setting_read_by(ss->r, p);
    return s && oom_est_setting_string(ss->r, s, out) && out->len > 0;
}

/* What expression `e` holds as a config: names followed to their binding,
 * string subscripts collected (outermost last), down to a load call. The
 * path and keys for the provenance go into `where`. */
static const oom_est_config *config_of(const splat_scan *ss, TSNode e, char *where, size_t size)
{
    const char *keys[MAX_KEYS];
    oom_buf key_text[MAX_KEYS];
    size_t nkeys = 0;
    const oom_est_config *c = NULL;
    for (int hop = 0; hop < 16 && !ts_node_is_null(e) && !c; hop++) {
        if (oom_est_type_is(e, "identifier")) {
            TSNode v = binding_of(ss, e);
            if (ts_node_is_null(v) || ts_node_eq(v, e))
                break;
            e = v;
        } else if (oom_est_type_is(e, "subscript") && nkeys < MAX_KEYS) {
            oom_buf_init(&key_text[nkeys]);
            if (!oom_pymodel_string_value(ss->r->m, oom_est_child(e, "subscript"), &key_text[nkeys])) {
                oom_buf_free(&key_text[nkeys]);
                break;
            }
            keys[nkeys] = key_text[nkeys].data;
            nkeys++;
            e = oom_est_child(e, "value");
        } else if (oom_est_type_is(e, "call")) {
            oom_buf q, path;
            oom_buf_init(&q);
            oom_buf_init(&path);
            int yaml = oom_pymodel_qualname(ss->r->m, oom_est_child(e, "function"), &q) ? oom_est_config_loader(q.data) : -1;
            if (yaml >= 0 && load_path(ss, e, &path)) {
                c = oom_est_config_open(ss->configs, ss->r, path.data, yaml == 1);
                oom_est_printf(where, size, "%s", path.data);
            }
            oom_buf_free(&q);
            oom_buf_free(&path);
            break;
        } else {
            break;
        }
    }
    for (size_t i = nkeys; c && i-- > 0;) { /* the outermost subscript was met first */
        c = oom_est_config_key(ss->configs, c, keys[i]);
        size_t at = strlen(where);
        oom_est_printf(where + at, size - at, " [\"%s\"]", keys[i]);
    }
    for (size_t i = 0; i < nkeys; i++)
        oom_buf_free(&key_text[i]);
    return c && oom_est_config_kind_of(c) == OOM_CFG_OBJECT ? c : NULL;
}

/* A scalar's text as a command word would give it: 12, 0.0001, True, "x". */
static bool scalar_text(const oom_est_config *v, char *buf, size_t size)
{
    double d;
    switch (oom_est_config_kind_of(v)) {
    case OOM_CFG_INT:
        oom_est_printf(buf, size, "%lld", (long long)oom_est_config_number(v));
        return true;
    case OOM_CFG_FLOAT:
        d = oom_est_config_number(v);
        oom_est_printf(buf, size, "%g", d);
        return true;
    case OOM_CFG_BOOL:
        oom_est_printf(buf, size, "%s", oom_est_config_true(v) ? "True" : "False");
        return true;
    case OOM_CFG_STRING:
        oom_est_printf(buf, size, "%s", oom_est_config_string(v));
        return true;
    default:
        return false;
    }
}

/* A parameter's name node, whatever its form (`x`, `x=1`, `x: int`, `x: int = 1`). */
static TSNode parameter_name(TSNode p)
{
    if (oom_est_type_is(p, "identifier"))
        return p;
    if (oom_est_type_is(p, "default_parameter") || oom_est_type_is(p, "typed_default_parameter"))
        return oom_est_child(p, "name");
    if (oom_est_type_is(p, "typed_parameter") && ts_node_named_child_count(p) > 0 &&
        oom_est_type_is(ts_node_named_child(p, 0), "identifier"))
        return ts_node_named_child(p, 0);
    return OOM_EST_NULL_NODE;
}

/* One setting per parameter of `def`: the config object's scalar for it,
 * or, when the object has no such key, the parameter's own default (the
 * call passes nothing else for it). A value that is not a scalar makes
 * none: what it holds is not a setting. */
static void add_parameters(splat_scan *ss, TSNode call, TSNode def, const oom_est_config *obj, const char *where)
{
    TSNode params = oom_est_child(def, "parameters");
    for (uint32_t i = 0; !ts_node_is_null(params) && i < ts_node_named_child_count(params); i++) {
        TSNode p = ts_node_named_child(params, i), nm = parameter_name(p);
        char name[64], value[96], dflt[64];
        if (ts_node_is_null(nm) || !oom_est_text_of(ss->r, nm, name, sizeof name) ||
            !ts_node_is_null(oom_pymodel_keyword_value(ss->r->m, call, name)))
            continue;
        const oom_est_config *v = oom_est_config_key(ss->configs, obj, name);
        TSNode d = oom_est_child(p, "value"); /* `opt_level="O1"`: the default */
        bool missing = oom_est_config_kind_of(v) == OOM_CFG_MISSING;
        if (!(missing ? !ts_node_is_null(d) && oom_est_text_of(ss->r, d, dflt, sizeof dflt)
                      : scalar_text(v, value, sizeof value)))
            continue;
        oom_est_setting s;
        memset(&s, 0, sizeof s);
        s.kind = OOM_SETTING_CONFIG;
        s.flag = -1;
        s.at = call;
        s.value = missing ? d : OOM_EST_NULL_NODE;
        oom_est_copy(s.name, sizeof s.name, name);
        oom_est_printf(s.spelling, sizeof s.spelling, "%s [\"%s\"]", where, name);
        if (missing) {
            oom_est_printf(s.given_said, sizeof s.given_said, "%s=%s default (not in %s)", name, dflt, where);
        } else {
            s.given = oom_est_settings_keep(&ss->r->settings, value);
            oom_est_printf(s.given_said, sizeof s.given_said, "%s: %s", s.spelling, value);
        }
        OOM_PUSH(ss->r->settings.items, ss->r->settings.len, ss->r->settings.cap, s);
    }
}

static void visit(void *ctx, TSNode n)
{
    splat_scan *ss = ctx;
    if (!oom_est_type_is(n, "call"))
        return;
    TSNode args = oom_est_child(n, "arguments");
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        if (!oom_est_type_is(a, "dictionary_splat") || ts_node_named_child_count(a) == 0)
            continue;
        TSNode def = module_function(ss->r, n);
        char where[160] = "";
        const oom_est_config *obj = ts_node_is_null(def) ? NULL : config_of(ss, ts_node_named_child(a, 0), where, sizeof where);
        if (obj)
            add_parameters(ss, n, def, obj, where);
    }
}

void oom_est_read_config_splats(oom_est_reader *r)
{
    oom_nodes own;
    oom_nodes_init(&own);
    const oom_nodes *layout = oom_pymodel_layout(r->m);
    if (!layout || layout->len == 0 || !ts_node_eq(layout->items[0].node, r->root)) {
        oom_nodes_build(&own, r->root);
        layout = &own;
    }
    splat_scan ss = {r, layout, oom_est_configs_new()};
    /* the calls are found first: adding settings while walking is safe, the
     * walk reads the tree, not the settings */
    oom_est_walk(r, visit, &ss);
    oom_est_configs_free(ss.configs);
    oom_nodes_free(&own);
}

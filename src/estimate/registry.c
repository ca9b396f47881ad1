/* estimate/registry: a model picked by a name string. Projects rarely call
 * their model class by its own name; the command names it (`-a resnet`) and
 * the code looks the name up: `getattr(models, args.arch)(...)`,
 * `models.__dict__[args.arch](...)`, a dict of names to classes indexed by
 * the name (`MODELS[args.model](...)`), or an attribute of what it picks
 * (`model_dict[args.model].Model(args)`). This file reads the lookup and
 * its key in the file the call is in, and says which dotted name it picks;
 * modules.c follows that name as it follows any class it is given
 * (docs/estimation.md §11.1). Decided by the shape of the code: a getattr
 * call, a `__dict__` subscript, a subscript of a dict literal, never by
 * what the variables are called. */
#include <stdio.h>

#include "internal.h"

/* The i-th positional argument of a call, or a null node; a splat there
 * leaves the position unknown. */
static TSNode positional(TSNode call, uint32_t i)
{
    TSNode a = oom_est_positional(call, i);
    return oom_est_type_is(a, "list_splat") || oom_est_type_is(a, "dictionary_splat") ? OOM_EST_NULL_NODE : a;
}

/* A plain dotted name (`models`, `models.cifar`): the only spaces whose
 * attributes the import machinery can follow. */
static bool dotted_name(const oom_est_reader *r, TSNode n, char *buf, size_t size)
{
    if (!(oom_est_type_is(n, "identifier") || oom_est_type_is(n, "attribute")) || !oom_est_text_of(r, n, buf, size))
        return false;
    for (const char *p = buf; *p; p++)
        if (!(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

/* The value of the key: a string literal (or a name bound to one), or the
 * string a setting holds for this run (the command's value over the
 * default). `s` is the setting read, when one is. */
static bool key_value(const oom_est_reader *r, TSNode key, oom_buf *out, const oom_est_setting **s)
{
    *s = oom_est_setting_read_by(r, key);
    if (*s)
        return oom_est_setting_string(r, *s, out);
    TSNode v = oom_est_type_is(key, "string") ? key : oom_pymodel_value_of(r->m, key, 0);
    return oom_est_type_is(v, "string") && oom_pymodel_string_value(r->m, v, out);
}

/* The entry of dict literal `dict` under string key `key`: its value node;
 * null when no literal key equals it. */
TSNode oom_est_dict_entry(const oom_est_reader *r, TSNode dict, const char *key)
{
    oom_buf k;
    oom_buf_init(&k);
    TSNode found = OOM_EST_NULL_NODE;
    for (uint32_t i = 0; i < ts_node_named_child_count(dict) && ts_node_is_null(found); i++) {
        TSNode pair = ts_node_named_child(dict, i);
        if (oom_est_type_is(pair, "pair") && oom_est_type_is(oom_est_child(pair, "key"), "string") &&
            oom_pymodel_string_value(r->m, oom_est_child(pair, "key"), &k) && strcmp(k.data, key) == 0)
            found = oom_est_child(pair, "value");
    }
    oom_buf_free(&k);
    return found;
}

TSNode oom_est_subscript_entry(const oom_est_reader *r, TSNode subscript, const char *key)
{
    TSNode d = oom_est_child(subscript, "value");
    d = oom_est_type_is(d, "identifier") ? oom_pymodel_value_of(r->m, d, 0) : d;
    return oom_est_type_is(d, "dictionary") ? oom_est_dict_entry(r, d, key) : OOM_EST_NULL_NODE;
}

bool oom_est_pick_of(const oom_est_reader *r, TSNode fn, oom_est_pick *out)
{
    memset(out, 0, sizeof *out);
    char suffix[64] = "", space[160];
    TSNode look = fn, key = OOM_EST_NULL_NODE;
    /* `model_dict[name].Model`: the attribute is taken of what the name picks */
    if (oom_est_type_is(fn, "attribute") && oom_est_type_is(oom_est_child(fn, "attribute"), "identifier") &&
        (oom_est_type_is(oom_est_child(fn, "object"), "subscript") || oom_est_type_is(oom_est_child(fn, "object"), "call"))) {
        char attr[60];
        if (!oom_est_text_of(r, oom_est_child(fn, "attribute"), attr, sizeof attr))
            return false;
        oom_est_printf(suffix, sizeof suffix, ".%s", attr);
        look = oom_est_child(fn, "object");
    }
    char callee[16];
    TSNode value = oom_est_child(look, "value");
    if (oom_est_type_is(look, "call") && oom_est_text_of(r, oom_est_child(look, "function"), callee, sizeof callee) &&
        strcmp(callee, "getattr") == 0 && dotted_name(r, positional(look, 0), space, sizeof space) &&
        !ts_node_is_null(positional(look, 1)) && ts_node_is_null(positional(look, 2))) {
        /* getattr(models, name), without a default to fall back on */
        out->kind = OOM_PICK_ATTRIBUTE;
        out->space = positional(look, 0);
        key = positional(look, 1);
    } else if (oom_est_type_is(look, "subscript") && oom_est_type_is(value, "attribute") &&
               oom_est_type_is(oom_est_child(value, "attribute"), "identifier") &&
               oom_est_text_of(r, oom_est_child(value, "attribute"), callee, sizeof callee) &&
               strcmp(callee, "__dict__") == 0 && dotted_name(r, oom_est_child(value, "object"), space, sizeof space)) {
        /* models.__dict__[name]: the module's namespace */
        out->kind = OOM_PICK_ATTRIBUTE;
        out->space = oom_est_child(value, "object");
        key = oom_est_child(look, "subscript");
    } else if (oom_est_type_is(look, "subscript")) {
        /* MODELS[name], MODELS a dict literal (where the name is bound) */
        TSNode d = oom_est_type_is(value, "dictionary") ? value : oom_pymodel_value_of(r->m, value, 0);
        if (!oom_est_type_is(d, "dictionary") || ts_node_named_child_count(look) != 2)
            return false;
        out->kind = OOM_PICK_DICT;
        out->space = d;
        key = oom_est_child(look, "subscript");
        for (uint32_t i = 0; i < ts_node_named_child_count(d) && out->nentries < OOM_EST_PICK_ENTRIES; i++) {
            TSNode pair = ts_node_named_child(d, i);
            if (oom_est_type_is(pair, "pair"))
                out->entries[out->nentries++] = oom_est_child(pair, "value");
        }
    } else {
        return false;
    }
    if (ts_node_is_null(key))
        return false;
    out->key_node = key;
    oom_est_copy(out->space_text, sizeof out->space_text, space);
    oom_est_copy(out->suffix, sizeof out->suffix, suffix);
    if (!oom_est_text_of(r, look, out->lookup, sizeof out->lookup))
        oom_est_copy(out->lookup, sizeof out->lookup, "a name lookup");
    uint32_t col = 0;
    oom_source_position(r->src, ts_node_start_byte(look), &out->line, &col);
    oom_buf k;
    oom_buf_init(&k);
    const oom_est_setting *s = NULL;
    if (key_value(r, key, &k, &s)) {
        oom_est_pick_key(r, out, k.data, s ? s->name : "name");
    } else { /* the run decides the name: the option that would settle it */
        char flag[112] = "";
        if (s)
            oom_est_printf(flag, sizeof flag, ", which %s would settle", s->spelling);
        oom_est_printf(out->why, sizeof out->why, "the name of the model %s picks%s", out->lookup, flag);
    }
    oom_buf_free(&k);
    return true;
}

bool oom_est_pick_key(const oom_est_reader *r, oom_est_pick *pk, const char *key, const char *name)
{
    const char *file = strrchr(r->path, '/') ? strrchr(r->path, '/') + 1 : r->path;
    oom_est_copy(pk->key, sizeof pk->key, key);
    oom_est_printf(pk->said, sizeof pk->said, "%s=%s via %s at %s:%u", name, key, pk->lookup, file, pk->line);
    if (pk->kind == OOM_PICK_ATTRIBUTE) {
        oom_est_printf(pk->dotted, sizeof pk->dotted, "%s.%s%s", pk->space_text, key, pk->suffix);
    } else {
        TSNode entry = oom_est_dict_entry(r, pk->space, key);
        char named[128];
        if (ts_node_is_null(entry) || !dotted_name(r, entry, named, sizeof named)) {
            oom_est_printf(pk->why, sizeof pk->why, "`%s` is not a key of the dict %s reads, or names no class", key,
                           pk->lookup);
            return false;
        }
        oom_est_printf(pk->dotted, sizeof pk->dotted, "%s%s", named, pk->suffix);
        pk->entry = pk->suffix[0] ? OOM_EST_NULL_NODE : entry; /* `model_dict[k].Model` is followed by its dotted name */
    }
    pk->known = true;
    return true;
}

/* ---- what the branches around a pick read ------------------------------------
 * The code that picks a model by name tests the name (`if args.arch.
 * startswith("resnext"):`) and the classes it picks read their own class
 * attributes (`planes * block.expansion`); both decide which layers are
 * built. */

int oom_est_string_method(const char *method, const char *s, const char *arg, char *out, size_t size)
{
    size_t ls = strlen(s), la = arg ? strlen(arg) : 0;
    if (arg && strcmp(method, "startswith") == 0)
        return la <= ls && strncmp(s, arg, la) == 0;
    if (arg && strcmp(method, "endswith") == 0)
        return la <= ls && strcmp(s + ls - la, arg) == 0;
    bool lower = strcmp(method, "lower") == 0;
    if (arg || size == 0 || (!lower && strcmp(method, "upper") != 0))
        return -1;
    size_t i = 0;
    for (; s[i] && i + 1 < size; i++)
        out[i] = (char)(lower ? (s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i])
                              : (s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]));
    out[i] = '\0';
    return 2;
}

TSNode oom_est_class_attribute(const oom_est_reader *r, TSNode cls, const char *name)
{
    TSNode body = oom_est_child(cls, "body"), found = OOM_EST_NULL_NODE;
    char left[64];
    for (uint32_t i = 0; i < ts_node_named_child_count(body); i++) {
        TSNode s = ts_node_named_child(body, i);
        TSNode a = oom_est_type_is(s, "expression_statement") ? ts_node_named_child(s, 0) : s;
        if (oom_est_type_is(a, "assignment") && oom_est_type_is(oom_est_child(a, "left"), "identifier") &&
            oom_est_text_of(r, oom_est_child(a, "left"), left, sizeof left) && strcmp(left, name) == 0)
            found = oom_est_child(a, "right"); /* the last binding is the one the class keeps */
    }
    return found;
}

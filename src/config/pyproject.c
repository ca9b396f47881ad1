/* config/pyproject: [tool.oomlint] from pyproject.toml. */
#include "oomlint/estimate.h"
#include "oomlint/config.h"

#include <ctype.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tree_sitter/api.h>

#include "oomlint/lang.h"
#include "oomlint/select.h"
#include "oomlint/source.h"
#include "oomlint/text.h"

typedef struct {
    const char *text;
    oom_source *src;
    const char *path;
    oom_buf *err;
} toml_doc;

static void fail(toml_doc *d, TSNode at, const char *fmt, const char *detail)
{
    uint32_t row, col;
    oom_source_position(d->src, ts_node_start_byte(at), &row, &col);
    oom_buf_clear(d->err);
    oom_buf_printf(d->err, "%s:%u:%u: ", d->path, row, col);
    oom_buf_printf(d->err, fmt, detail);
}

static char *node_text(toml_doc *d, TSNode n)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    return oom_xstrndup(d->text + a, b - a);
}

/* A key's text: bare, or a quoted key without its quotes. */
static char *key_text(toml_doc *d, TSNode key)
{
    char *t = node_text(d, key);
    size_t n = strlen(t);
    if (n >= 2 && (t[0] == '"' || t[0] == '\'') && t[n - 1] == t[0]) {
        memmove(t, t + 1, n - 2);
        t[n - 2] = '\0';
    }
    return t;
}

/* A basic or literal string's value (escapes: the common ones). */
static bool string_value(toml_doc *d, TSNode n, char **out)
{
    if (strcmp(ts_node_type(n), "string") != 0)
        return false;
    char *t = node_text(d, n);
    size_t len = strlen(t), q = 1;
    if (len >= 6 && (strncmp(t, "\"\"\"", 3) == 0 || strncmp(t, "'''", 3) == 0))
        q = 3;
    oom_buf b;
    oom_buf_init(&b);
    bool literal = t[0] == '\'';
    for (size_t i = q; i + q < len; i++) {
        if (!literal && t[i] == '\\' && i + 1 + q < len) {
            char e = t[++i];
            oom_buf_putc(&b, e == 'n' ? '\n' : e == 't' ? '\t' : e);
        } else {
            oom_buf_putc(&b, t[i]);
        }
    }
    free(t);
    *out = oom_buf_take(&b);
    return true;
}

/* The dotted name of a [table] header: "tool.oomlint.per-file-ignores". */
static char *table_name(toml_doc *d, TSNode table)
{
    TSNode key = ts_node_named_child(table, 0);
    if (ts_node_is_null(key))
        return oom_xstrdup("");
    oom_buf b;
    oom_buf_init(&b);
    if (strcmp(ts_node_type(key), "dotted_key") == 0) {
        /* dotted_key nests: (dotted_key (dotted_key a b) c) */
        TSNode stack[32];
        size_t n = 0;
        TSNode k = key;
        while (strcmp(ts_node_type(k), "dotted_key") == 0 && n < 31) {
            stack[n++] = ts_node_named_child(k, ts_node_named_child_count(k) - 1);
            k = ts_node_named_child(k, 0);
        }
        stack[n++] = k;
        for (size_t i = n; i-- > 0;) {
            char *part = key_text(d, stack[i]);
            oom_buf_printf(&b, "%s%s", b.len ? "." : "", part);
            free(part);
        }
    } else {
        char *part = key_text(d, key);
        oom_buf_puts(&b, part);
        free(part);
    }
    return oom_buf_take(&b);
}

static void canonical_key(char *k)
{
    for (char *p = k; *p; p++)
        if (*p == '_')
            *p = '-';
}

static int string_list(toml_doc *d, TSNode value, oom_strlist *out, const char *key)
{
    if (strcmp(ts_node_type(value), "array") != 0) {
        fail(d, value, "%s must be an array of strings", key);
        return -1;
    }
    uint32_t count = ts_node_named_child_count(value);
    for (uint32_t i = 0; i < count; i++) {
        TSNode item = ts_node_named_child(value, i);
        if (strcmp(ts_node_type(item), "comment") == 0)
            continue;
        char *s;
        if (!string_value(d, item, &s)) {
            fail(d, item, "%s must be an array of strings", key);
            return -1;
        }
        oom_strlist_push(out, s);
        free(s);
    }
    return 0;
}

static int code_list(toml_doc *d, TSNode value, oom_strlist *out, const char *key)
{
    oom_strlist raw = {NULL, 0, 0};
    int rc = string_list(d, value, &raw, key);
    for (size_t i = 0; rc == 0 && i < raw.len; i++) {
        oom_buf e;
        oom_buf_init(&e);
        if (oom_selection_parse_list(out, raw.items[i], &e) != 0) {
            fail(d, value, "%s", e.data);
            rc = -1;
        }
        oom_buf_free(&e);
    }
    oom_strlist_free(&raw);
    return rc;
}

static int main_pair(toml_doc *d, oom_config *c, TSNode key_node, TSNode value)
{
    char *key = key_text(d, key_node);
    canonical_key(key);
    int rc = 0;
    if (strcmp(key, "gpu") == 0) {
        char *s;
        if (!string_value(d, value, &s)) {
            fail(d, value, "%s must be a string such as \"a100-80gb\"", "gpu");
            rc = -1;
        } else {
            free(c->gpu);
            c->gpu = s;
            oom_source_position(d->src, ts_node_start_byte(value), &c->gpu_line, &c->gpu_col);
        }
    } else if (strcmp(key, "torch") == 0) {
        char *s = NULL;
        bool ok = false;
        if (string_value(d, value, &s))
            oom_torch_loads_eagerly(s, &ok);
        if (!ok) {
            free(s);
            fail(d, value, "%s must be a PyTorch version string such as \"2.4\"", "torch");
            rc = -1;
        } else {
            free(c->torch);
            c->torch = s;
        }
    } else if (strcmp(key, "cache-dir") == 0) {
        char *s = NULL;
        if (!string_value(d, value, &s) || !*s) {
            free(s);
            fail(d, value, "%s must be a folder name such as \".oomlint_cache\"", "cache-dir");
            rc = -1;
        } else {
            free(c->cache_dir);
            c->cache_dir = s;
        }
    } else if (strcmp(key, "num-gpus") == 0) {
        char *t = node_text(d, value);
        char *end;
        long n = strtol(t, &end, 10);
        if (strcmp(ts_node_type(value), "integer") != 0 || *end || n < 1 || n > 100000) {
            fail(d, value, "%s must be a positive integer", "num-gpus");
            rc = -1;
        } else {
            c->num_gpus = (int)n;
        }
        free(t);
    } else if (strcmp(key, "select") == 0) {
        c->has_select = true;
        rc = code_list(d, value, &c->select, "select");
    } else if (strcmp(key, "extend-select") == 0) {
        rc = code_list(d, value, &c->extend_select, "extend-select");
    } else if (strcmp(key, "ignore") == 0) {
        c->has_ignore = true;
        rc = code_list(d, value, &c->ignore, "ignore");
    } else if (strcmp(key, "fixable") == 0) {
        c->has_fixable = true;
        rc = code_list(d, value, &c->fixable, "fixable");
    } else if (strcmp(key, "unfixable") == 0) {
        c->has_unfixable = true;
        rc = code_list(d, value, &c->unfixable, "unfixable");
    } else if (strcmp(key, "unsafe-fixes") == 0) {
        const char *type = ts_node_type(value);
        if (strcmp(type, "boolean") != 0) {
            fail(d, value, "%s must be true or false", "unsafe-fixes");
            rc = -1;
        } else {
            c->unsafe_fixes = d->text[ts_node_start_byte(value)] == 't';
        }
    } else if (strcmp(key, "exclude") == 0 || strcmp(key, "extend-exclude") == 0) {
        rc = string_list(d, value, &c->exclude, key);
    } else if (strcmp(key, "per-file-ignores") == 0) {
        fail(d, value, "%s must be a table: [tool.oomlint.per-file-ignores]", key);
        rc = strcmp(ts_node_type(value), "inline_table") == 0 ? 1 : -1;
    } else {
        fail(d, key_node,
             "unknown key \"%s\" in [tool.oomlint] (known: gpu, num-gpus, torch, select, extend-select, ignore, exclude, "
             "extend-exclude, per-file-ignores, fixable, unfixable, unsafe-fixes, cache-dir)",
             key);
        rc = -1;
    }
    free(key);
    return rc;
}

static int per_file_pair(toml_doc *d, oom_config *c, TSNode key_node, TSNode value)
{
    oom_per_file_ignore pfi;
    pfi.glob = key_text(d, key_node);
    memset(&pfi.codes, 0, sizeof pfi.codes);
    if (code_list(d, value, &pfi.codes, "a per-file-ignores entry") != 0) {
        free(pfi.glob);
        oom_strlist_free(&pfi.codes);
        return -1;
    }
    OOM_PUSH(c->per_file_ignores, c->per_file_ignore_count, c->per_file_ignore_cap, pfi);
    return 0;
}

static int read_pairs(toml_doc *d, oom_config *c, TSNode container, bool per_file)
{
    uint32_t count = ts_node_named_child_count(container);
    for (uint32_t i = 0; i < count; i++) {
        TSNode pair = ts_node_named_child(container, i);
        if (strcmp(ts_node_type(pair), "pair") != 0)
            continue;
        TSNode key = ts_node_named_child(pair, 0);
        TSNode value = ts_node_named_child(pair, ts_node_named_child_count(pair) - 1);
        int rc = per_file ? per_file_pair(d, c, key, value) : main_pair(d, c, key, value);
        if (rc == 1) /* per-file-ignores = { ... } inline */
            rc = read_pairs(d, c, value, true);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int parse_source(const char *path, oom_source *src, oom_config *out, oom_buf *err);

static void config_init(oom_config *out, const char *path)
{
    memset(out, 0, sizeof(*out));
    out->unsafe_fixes = -1;
    out->path = oom_xstrdup(path);
    char *slash = strrchr(out->path, '/');
    out->dir = slash ? oom_xstrndup(out->path, (size_t)(slash - out->path)) : oom_xstrdup(".");
}

int oom_config_parse(const char *path, const char *text, size_t len, oom_config *out,
                             oom_buf *err)
{
    config_init(out, path);
    oom_source src;
    char why[256];
    if (oom_source_from_memory(path, text, len, &src, why, sizeof why) != OOM_SOURCE_OK) {
        oom_buf_printf(err, "%s: %s", path, why);
        oom_source_free(&src);
        return -1;
    }
    return parse_source(path, &src, out, err);
}

int oom_config_load(const char *path, oom_config *out, oom_buf *err)
{
    config_init(out, path);
    oom_source src;
    char why[256];
    if (oom_source_read(path, path, &src, why, sizeof why) != OOM_SOURCE_OK) {
        oom_buf_printf(err, "%s: %s", path, why);
        oom_source_free(&src);
        return -1;
    }
    return parse_source(path, &src, out, err);
}

static int parse_source(const char *path, oom_source *srcp, oom_config *out, oom_buf *err)
{
    oom_source src = *srcp;
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_TOML));
    TSTree *tree = ts_parser_parse_string(parser, NULL, src.text, (uint32_t)src.len);
    TSNode root = ts_tree_root_node(tree);
    toml_doc d = {src.text, &src, path, err};
    int rc = 0;
    if (ts_node_has_error(root)) {
        TSNode e = root;
        for (uint32_t i = 0; i < ts_node_child_count(root); i++)
            if (ts_node_has_error(ts_node_child(root, i))) {
                e = ts_node_child(root, i);
                break;
            }
        fail(&d, e, "%s", "not valid TOML here");
        rc = -1;
    }
    uint32_t count = ts_node_named_child_count(root);
    for (uint32_t i = 0; rc == 0 && i < count; i++) {
        TSNode table = ts_node_named_child(root, i);
        if (strcmp(ts_node_type(table), "table") != 0)
            continue;
        char *name = table_name(&d, table);
        canonical_key(name);
        if (strcmp(name, "tool.oomlint") == 0)
            rc = read_pairs(&d, out, table, false);
        else if (strcmp(name, "tool.oomlint.per-file-ignores") == 0)
            rc = read_pairs(&d, out, table, true);
        else if (oom_str_starts_with(name, "tool.oomlint.")) {
            fail(&d, table, "unknown table [%s] (known: [tool.oomlint], [tool.oomlint.per-file-ignores])", name);
            rc = -1;
        }
        free(name);
    }
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    oom_source_free(&src);
    return rc;
}

static bool has_oomlint_table(const char *path)
{
    oom_source src;
    char why[128];
    bool yes = false;
    if (oom_source_read(path, path, &src, why, sizeof why) == OOM_SOURCE_OK)
        yes = strstr(src.text, "tool.oomlint") != NULL;
    oom_source_free(&src);
    return yes;
}

char *oom_config_find(const char *start)
{
    char *dir = realpath(start, NULL);
    if (!dir)
        return NULL;
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *(slash == dir ? slash + 1 : slash) = '\0';
    }
    for (;;) {
        oom_buf p;
        oom_buf_init(&p);
        oom_buf_printf(&p, "%s/pyproject.toml", strcmp(dir, "/") == 0 ? "" : dir);
        if (has_oomlint_table(p.data)) {
            free(dir);
            return oom_buf_take(&p);
        }
        oom_buf_free(&p);
        char *slash = strrchr(dir, '/');
        if (!slash || strcmp(dir, "/") == 0)
            break;
        *(slash == dir ? slash + 1 : slash) = '\0';
    }
    free(dir);
    return NULL;
}

bool oom_config_ignores(const oom_config *c, const char *file, const char *code)
{
    char *real = realpath(file, NULL);
    char *rdir = realpath(c->dir, NULL);
    const char *rel = file;
    if (real && rdir && strncmp(real, rdir, strlen(rdir)) == 0 && real[strlen(rdir)] == '/')
        rel = real + strlen(rdir) + 1;
    while (rel[0] == '.' && rel[1] == '/')
        rel += 2;
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    bool hit = false;
    for (size_t i = 0; i < c->per_file_ignore_count && !hit; i++) {
        const oom_per_file_ignore *p = &c->per_file_ignores[i];
        if (fnmatch(p->glob, rel, 0) != 0 && fnmatch(p->glob, base, 0) != 0)
            continue;
        for (size_t k = 0; k < p->codes.len && !hit; k++)
            hit = strcmp(p->codes.items[k], "ALL") == 0 ||
                  strncmp(code, p->codes.items[k], strlen(p->codes.items[k])) == 0;
    }
    free(real);
    free(rdir);
    return hit;
}

void oom_config_free(oom_config *c)
{
    free(c->path);
    free(c->dir);
    free(c->gpu);
    free(c->torch);
    free(c->cache_dir);
    oom_strlist_free(&c->select);
    oom_strlist_free(&c->ignore);
    oom_strlist_free(&c->extend_select);
    oom_strlist_free(&c->exclude);
    oom_strlist_free(&c->fixable);
    oom_strlist_free(&c->unfixable);
    for (size_t i = 0; i < c->per_file_ignore_count; i++) {
        free(c->per_file_ignores[i].glob);
        oom_strlist_free(&c->per_file_ignores[i].codes);
    }
    free(c->per_file_ignores);
    memset(c, 0, sizeof(*c));
}

/* engine/rules: reading rule folders (embedded or from --rules) into rules. */
#include "oomlint/rules.h"

#include <cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oomlint/source.h"
#include "oomlint/text.h"

/* ---- one rule ------------------------------------------------------------- */

typedef struct {
    const oom_rule_file *json, *query, *doc;
    const oom_rule_file *extra[OOM_LANG_COUNT];
    char *folder;
} rule_files;

static void fail_at(oom_buf *err, const char *path, const oom_rule_file *f, size_t offset,
                    const char *fmt, const char *detail)
{
    size_t line = 1, col = 1;
    if (f) {
        char *text = oom_xstrndup(f->data, f->len);
        oom_text_line_col(text, offset < f->len ? offset : f->len, &line, &col);
        free(text);
    }
    oom_buf_clear(err);
    oom_buf_printf(err, "%s:%zu:%zu: ", path, line, col);
    oom_buf_printf(err, fmt, detail);
}

/* Offset of `"key"` in the JSON text, so errors about a field point at it. */
static size_t key_offset(const oom_rule_file *f, const char *key)
{
    char needle[64];
    snprintf(needle, sizeof needle, "\"%s\"", key);
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= f->len; i++)
        if (memcmp(f->data + i, needle, n) == 0)
            return i;
    return 0;
}

static bool valid_code(const char *s)
{
    size_t i = 0;
    while (isupper((unsigned char)s[i]))
        i++;
    if (i == 0 || !isdigit((unsigned char)s[i]))
        return false;
    while (isdigit((unsigned char)s[i]))
        i++;
    return i <= 16 && s[i] == '\0';
}

static bool valid_kebab(const char *s)
{
    if (!*s || *s == '-')
        return false;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-'))
            return false;
    return true;
}

static const char *string_field(cJSON *obj, const char *key)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The first sentence under "## What it does". */
static char *summary_from_doc(const char *doc)
{
    const char *h = doc ? strstr(doc, "## What it does") : NULL;
    if (!h)
        return oom_xstrdup("");
    const char *p = strchr(h, '\n');
    if (!p)
        return oom_xstrdup("");
    while (*p == '\n' || *p == ' ')
        p++;
    const char *end = p;
    while (*end && !(end[0] == '\n' && end[1] == '\n') &&
           !(end[0] == '.' && (end[1] == ' ' || end[1] == '\n' || end[1] == '\0')))
        end++;
    oom_buf b;
    oom_buf_init(&b);
    for (const char *c = p; c < end; c++)
        oom_buf_putc(&b, *c == '\n' ? ' ' : *c);
    if (*end == '.')
        oom_buf_putc(&b, '.');
    return oom_buf_take(&b);
}

static const char *const known_keys[] = {"code", "name", "language", "severity", "message",
                                         "help", "url", "default", "fix", "unnecessary", "one_per", "related",
                                         NULL};

static int check_known_keys(cJSON *root, const oom_rule_file *f, const char *path, oom_buf *err)
{
    for (cJSON *it = root->child; it; it = it->next) {
        bool known = false;
        for (size_t i = 0; known_keys[i]; i++)
            known |= strcmp(it->string, known_keys[i]) == 0;
        if (!known) {
            fail_at(err, path, f, key_offset(f, it->string),
                    "unknown field \"%s\" (known: code, name, language, severity, message, help, url, default, fix, unnecessary)",
                    it->string);
            return -1;
        }
    }
    return 0;
}

static int parse_rule_json(oom_rule *r, const oom_rule_file *f, const char *path, oom_buf *err)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(f->data, f->len, &end, false);
    if (!root) {
        size_t off = end ? (size_t)(end - f->data) : 0;
        fail_at(err, path, f, off, "%s", "invalid JSON");
        return -1;
    }
    if (!cJSON_IsObject(root)) {
        fail_at(err, path, f, 0, "%s", "a rule.json must be a JSON object");
        cJSON_Delete(root);
        return -1;
    }
    if (check_known_keys(root, f, path, err) != 0) {
        cJSON_Delete(root);
        return -1;
    }
    static const char *const required[] = {"code", "name", "language", "severity", "message",
                                           "help", NULL};
    for (size_t i = 0; required[i]; i++) {
        if (!string_field(root, required[i])) {
            fail_at(err, path, f, key_offset(f, required[i]),
                    "field \"%s\" is missing or not a string", required[i]);
            cJSON_Delete(root);
            return -1;
        }
    }
    const char *code = string_field(root, "code"), *name = string_field(root, "name");
    const char *lang = string_field(root, "language"), *sev = string_field(root, "severity");
    int rc = -1;
    if (!valid_code(code))
        fail_at(err, path, f, key_offset(f, "code"),
                "code \"%s\" must be capital letters followed by digits, like OOM201", code);
    else if (!valid_kebab(name))
        fail_at(err, path, f, key_offset(f, "name"), "name \"%s\" must be kebab-case", name);
    else if (strcmp(lang, "any") != 0 && oom_lang_from_name(lang) == OOM_LANG_NONE)
        fail_at(err, path, f, key_offset(f, "language"),
                "language \"%s\" is not one of python, json, toml, any", lang);
    else if (oom_severity_parse(sev, &r->severity) != 0)
        fail_at(err, path, f, key_offset(f, "severity"),
                "severity \"%s\" is not one of error, warning, info", sev);
    else if (cJSON_GetObjectItemCaseSensitive(root, "default") &&
             !cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(root, "default")))
        fail_at(err, path, f, key_offset(f, "default"), "%s",
                "field \"default\" must be true or false (whether the rule runs without --select)");
    else if (cJSON_GetObjectItemCaseSensitive(root, "one_per") &&
             !(string_field(root, "one_per") && strcmp(string_field(root, "one_per"), "function") == 0))
        fail_at(err, path, f, key_offset(f, "one_per"), "%s",
                "field \"one_per\" must be \"function\" (the findings in one function are one cause)");
    else if (cJSON_GetObjectItemCaseSensitive(root, "related") &&
             !(string_field(root, "related") && strcmp(string_field(root, "related"), "grad-on-calls") == 0))
        fail_at(err, path, f, key_offset(f, "related"), "%s",
                "field \"related\" must be \"grad-on-calls\" (the calls of the function around a finding that "
                "run with autograd on)");
    else
        rc = 0;
    cJSON *fix = cJSON_GetObjectItemCaseSensitive(root, "fix");
    if (rc == 0 && fix) {
        oom_buf why;
        oom_buf_init(&why);
        r->fix = oom_fix_spec_parse(fix, &why);
        if (!r->fix) {
            fail_at(err, path, f, key_offset(f, "fix"), "%s", why.data);
            rc = -1;
        }
        oom_buf_free(&why);
    }
    if (rc == 0) {
        r->code = oom_xstrdup(code);
        r->name = oom_xstrdup(name);
        r->lang = oom_lang_from_name(lang);
        r->message = oom_xstrdup(string_field(root, "message"));
        r->help = oom_xstrdup(string_field(root, "help"));
        const char *url = string_field(root, "url");
        r->url = url ? oom_xstrdup(url) : NULL;
        r->opt_in = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(root, "default"));
        r->unnecessary = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "unnecessary"));
        r->one_per_function = string_field(root, "one_per") != NULL;
        r->grad_on_calls_related = string_field(root, "related") != NULL;
    }
    cJSON_Delete(root);
    return rc;
}

static void rule_free(oom_rule *r)
{
    free(r->code);
    free(r->name);
    free(r->message);
    free(r->help);
    free(r->url);
    free(r->doc);
    free(r->summary);
    free(r->query);
    for (int l = 0; l < OOM_LANG_COUNT; l++)
        free(r->extra_query[l]);
    free(r->origin);
    oom_fix_spec_free(r->fix);
    memset(r, 0, sizeof(*r));
}

/* What decides the rule's findings: its rule.json and its queries (not its
 * documentation), each file's hash chained into the next. */
static uint64_t source_hash(const rule_files *rf)
{
    uint64_t h = oom_hash64(rf->json->data, rf->json->len, 0);
    if (rf->query)
        h = oom_hash64(rf->query->data, rf->query->len, h + 1);
    for (int l = 0; l < OOM_LANG_COUNT; l++)
        if (rf->extra[l])
            h = oom_hash64(rf->extra[l]->data, rf->extra[l]->len, h + 2 + (uint64_t)l);
    return h;
}

static int load_rule(oom_rule_list *rules, const rule_files *rf, const char *origin_root,
                     bool builtin, oom_buf *err)
{
    oom_buf path;
    oom_buf_init(&path);
    oom_buf_printf(&path, "%s/%s/rule.json", origin_root, rf->folder);
    oom_rule r;
    memset(&r, 0, sizeof r);
    int rc = parse_rule_json(&r, rf->json, path.data, err);
    if (rc == 0 && oom_rules_find(rules, r.code)) {
        fail_at(err, path.data, rf->json, key_offset(rf->json, "code"),
                "rule code %s is already defined by another rule", r.code);
        rc = -1;
    }
    if (rc == 0 && r.lang != OOM_LANG_NONE && !rf->query) {
        oom_buf_clear(err);
        oom_buf_printf(err, "%s/%s: a %s rule needs a query.scm beside its rule.json",
                       origin_root, rf->folder, oom_lang_name(r.lang));
        rc = -1;
    }
    if (rc == 0) {
        r.query = rf->query ? oom_xstrndup(rf->query->data, rf->query->len) : NULL;
        for (int l = 0; l < OOM_LANG_COUNT; l++)
            if (rf->extra[l] && l != (int)r.lang)
                r.extra_query[l] = oom_xstrndup(rf->extra[l]->data, rf->extra[l]->len);
        r.doc = rf->doc ? oom_xstrndup(rf->doc->data, rf->doc->len)
                        : oom_xstrdup("(this rule has no documentation: no doc.md)\n");
        r.summary = summary_from_doc(r.doc);
        oom_buf_clear(&path);
        oom_buf_printf(&path, "%s/%s", origin_root, rf->folder);
        r.origin = oom_buf_take(&path);
        r.builtin = builtin;
        r.source_hash = source_hash(rf);
        OOM_PUSH(rules->items, rules->len, rules->cap, r);
    } else {
        rule_free(&r);
    }
    oom_buf_free(&path);
    return rc;
}

/* ---- grouping files into rules --------------------------------------------- */

static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? oom_xstrndup(path, (size_t)(slash - path)) : oom_xstrdup(".");
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int cmp_rule_code(const void *a, const void *b)
{
    return strcmp(((const oom_rule *)a)->code, ((const oom_rule *)b)->code);
}

static int add_files(oom_rule_list *rules, const oom_rule_file *files, size_t count,
                     const char *origin_root, bool builtin, oom_buf *err)
{
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        if (strcmp(base_of(files[i].path), "rule.json") != 0)
            continue;
        rule_files rf = {&files[i], NULL, NULL, {NULL}, folder_of(files[i].path)};
        for (size_t j = 0; j < count; j++) {
            char *folder = folder_of(files[j].path);
            if (strcmp(folder, rf.folder) == 0) {
                if (strcmp(base_of(files[j].path), "query.scm") == 0)
                    rf.query = &files[j];
                else if (strcmp(base_of(files[j].path), "doc.md") == 0)
                    rf.doc = &files[j];
                else
                    for (int l = 0; l < OOM_LANG_COUNT; l++) {
                        char name[32];
                        snprintf(name, sizeof name, "query.%s.scm", oom_lang_name((oom_lang)l));
                        if (strcmp(base_of(files[j].path), name) == 0)
                            rf.extra[l] = &files[j];
                    }
            }
            free(folder);
        }
        rc = load_rule(rules, &rf, origin_root, builtin, err);
        free(rf.folder);
    }
    if (rules->len > 1)
        qsort(rules->items, rules->len, sizeof(oom_rule), cmp_rule_code);
    return rc;
}

int oom_rules_add_files(oom_rule_list *rules, const oom_rule_file *files, size_t count,
                        const char *origin_root, oom_buf *err)
{
    return add_files(rules, files, count, origin_root, false, err);
}

int oom_rules_add_embedded(oom_rule_list *rules, oom_buf *err)
{
    return add_files(rules, oom_embedded_rule_files, oom_embedded_rule_file_count, "rules", true,
                     err);
}

/* ---- reading a --rules directory --------------------------------------------- */

typedef struct {
    oom_rule_file *items;
    size_t len, cap;
} file_list;

static void free_file_list(file_list *fl)
{
    for (size_t i = 0; i < fl->len; i++) {
        free((char *)fl->items[i].path);
        free((char *)fl->items[i].data);
    }
    free(fl->items);
}

static bool is_rule_file_name(const char *name)
{
    return strcmp(name, "rule.json") == 0 || strcmp(name, "query.scm") == 0 ||
           strcmp(name, "doc.md") == 0 ||
           (oom_str_starts_with(name, "query.") && oom_str_ends_with(name, ".scm"));
}

/* Depth-limited so a symlink loop ends; rule trees are shallow. */
static int collect_dir(const char *root, const char *rel, int depth, file_list *fl, oom_buf *err)
{
    if (depth > 8)
        return 0;
    oom_buf dir;
    oom_buf_init(&dir);
    oom_buf_printf(&dir, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(dir.data);
    if (!d) {
        oom_buf_clear(err);
        oom_buf_printf(err, "%s: cannot read rules directory: %s", dir.data, strerror(errno));
        oom_buf_free(&dir);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        oom_buf child_rel, child;
        oom_buf_init(&child_rel);
        oom_buf_init(&child);
        oom_buf_printf(&child_rel, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        oom_buf_printf(&child, "%s/%s", dir.data, e->d_name);
        struct stat st;
        if (stat(child.data, &st) == 0 && S_ISDIR(st.st_mode)) {
            rc = collect_dir(root, child_rel.data, depth + 1, fl, err);
        } else if (is_rule_file_name(e->d_name)) {
            oom_source src;
            char why[256];
            if (oom_source_read(child.data, child.data, &src, why, sizeof why) != OOM_SOURCE_OK) {
                oom_buf_clear(err);
                oom_buf_printf(err, "%s: %s", child.data, why);
                rc = -1;
            } else {
                oom_rule_file f = {oom_buf_take(&child_rel), src.text, src.len};
                src.text = NULL;
                OOM_PUSH(fl->items, fl->len, fl->cap, f);
            }
            oom_source_free(&src);
        }
        oom_buf_free(&child_rel);
        oom_buf_free(&child);
    }
    closedir(d);
    oom_buf_free(&dir);
    return rc;
}

int oom_rules_add_dir(oom_rule_list *rules, const char *dir, oom_buf *err)
{
    file_list fl = {NULL, 0, 0};
    int rc = collect_dir(dir, "", 0, &fl, err);
    if (rc == 0) {
        size_t before = rules->len;
        rc = oom_rules_add_files(rules, fl.items, fl.len, dir, err);
        if (rc == 0 && rules->len == before) {
            oom_buf_clear(err);
            oom_buf_printf(err, "%s: no rules found (expected folders holding rule.json)", dir);
            rc = -1;
        }
    }
    free_file_list(&fl);
    return rc;
}

const oom_rule *oom_rules_find(const oom_rule_list *rules, const char *code)
{
    for (size_t i = 0; i < rules->len; i++)
        if (strcmp(rules->items[i].code, code) == 0)
            return &rules->items[i];
    return NULL;
}

void oom_rule_describe(const oom_rule *r, oom_buf *out)
{
    oom_buf fix;
    oom_buf_init(&fix);
    oom_fix_spec_describe(r->fix, &fix);
    oom_buf_printf(out, "# %s (%s)\n\n", r->name, r->code);
    oom_buf_printf(out, "Severity: %s. Language: %s. %s Fix: %s.\n\n", oom_severity_name(r->severity),
                   r->lang == OOM_LANG_NONE ? "any" : oom_lang_name(r->lang),
                   r->opt_in ? "Opt-in: runs when --select names it." : "On by default.",
                   fix.len ? fix.data : "none");
    oom_buf_free(&fix);
    oom_buf_puts(out, r->doc);
    if (r->doc[0] && r->doc[strlen(r->doc) - 1] != '\n')
        oom_buf_putc(out, '\n');
}

void oom_rules_free(oom_rule_list *rules)
{
    for (size_t i = 0; i < rules->len; i++)
        rule_free(&rules->items[i]);
    free(rules->items);
    rules->items = NULL;
    rules->len = rules->cap = 0;
}

/* fix/spec: a rule's "fix" in rule.json, read and checked. The captures it
 * names are checked against the query when the rules are compiled
 * (engine/compile.c), where the query is known. */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/fix.h"

static const struct {
    const char *key; /* the field that names the edit's kind and its capture */
    oom_edit_kind kind;
    const char *text_key; /* the template it needs; NULL: none */
} edit_kinds[] = {
    {"replace", OOM_EDIT_REPLACE, "with"},
    {"add-argument", OOM_EDIT_ADD_ARGUMENT, "value"},
    {"remove-argument", OOM_EDIT_REMOVE_ARGUMENT, NULL},
    {"add-decorator", OOM_EDIT_ADD_DECORATOR, "decorator"},
    {"insert-after", OOM_EDIT_INSERT_AFTER, "statement"},
    {"delete-statement", OOM_EDIT_DELETE_STATEMENT, NULL},
};
#define EDIT_KIND_COUNT (sizeof edit_kinds / sizeof *edit_kinds)

static void edit_spec_clear(oom_edit_spec *e)
{
    free(e->capture);
    free(e->text);
    free(e->name);
    oom_strlist_free(&e->map_from);
    oom_strlist_free(&e->map_to);
}

static void alternative_clear(oom_fix_alternative *a)
{
    free(a->message);
    oom_strlist_free(&a->when);
    for (size_t i = 0; i < a->edit_count; i++)
        edit_spec_clear(&a->edits[i]);
    free(a->edits);
}

void oom_fix_spec_free(oom_fix_spec *spec)
{
    if (!spec)
        return;
    for (size_t i = 0; i < spec->count; i++)
        alternative_clear(&spec->alts[i]);
    free(spec->alts);
    free(spec);
}

static const char *string_of(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A capture is named as in a query, with or without its @. */
static char *capture_name(const char *s)
{
    return oom_xstrdup(s[0] == '@' ? s + 1 : s);
}

static bool known_key(const char *key, const char *const *keys)
{
    for (size_t i = 0; keys[i]; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

static int parse_map(const cJSON *map, oom_edit_spec *e, oom_buf *err)
{
    if (!cJSON_IsObject(map) || !map->child) {
        oom_buf_puts(err, "\"map\" must be an object of replacements, {\"captured text\": \"new text\"}");
        return -1;
    }
    for (const cJSON *it = map->child; it; it = it->next) {
        if (!cJSON_IsString(it)) {
            oom_buf_printf(err, "\"map\" entry \"%s\" must be a string", it->string);
            return -1;
        }
        oom_strlist_push(&e->map_from, it->string);
        oom_strlist_push(&e->map_to, it->valuestring);
    }
    return 0;
}

/* The kind is the one kind key present; its value is the capture. */
static int parse_edit(const cJSON *obj, oom_edit_spec *e, oom_buf *err)
{
    static const char *const keys[] = {"replace", "with", "map", "add-argument", "keyword", "value",
                                       "remove-argument", "add-decorator", "decorator", "insert-after",
                                       "statement", "delete-statement", NULL};
    if (!cJSON_IsObject(obj)) {
        oom_buf_puts(err, "an edit must be an object such as {\"replace\": \"value\", \"with\": \"{{value}}.item()\"}");
        return -1;
    }
    for (const cJSON *it = obj->child; it; it = it->next)
        if (!known_key(it->string, keys)) {
            oom_buf_printf(err, "unknown field \"%s\" in an edit", it->string);
            return -1;
        }
    size_t found = EDIT_KIND_COUNT;
    for (size_t k = 0; k < EDIT_KIND_COUNT; k++) {
        if (!cJSON_GetObjectItemCaseSensitive(obj, edit_kinds[k].key))
            continue;
        if (found != EDIT_KIND_COUNT) {
            oom_buf_printf(err, "an edit is one of replace, add-argument, remove-argument, add-decorator, "
                                "insert-after, delete-statement: both \"%s\" and \"%s\"",
                           edit_kinds[found].key, edit_kinds[k].key);
            return -1;
        }
        found = k;
    }
    if (found == EDIT_KIND_COUNT) {
        oom_buf_puts(err, "an edit needs one of replace, add-argument, remove-argument, add-decorator, "
                          "insert-after, delete-statement");
        return -1;
    }
    const char *capture = string_of(obj, edit_kinds[found].key);
    if (!capture || !capture[0] || (capture[0] == '@' && !capture[1])) {
        oom_buf_printf(err, "\"%s\" must name a capture of the query", edit_kinds[found].key);
        return -1;
    }
    e->kind = edit_kinds[found].kind;
    e->capture = capture_name(capture);
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(obj, "map");
    if (e->kind == OOM_EDIT_REPLACE && map) {
        if (cJSON_GetObjectItemCaseSensitive(obj, "with")) {
            oom_buf_puts(err, "a replace edit takes \"with\" or \"map\", not both");
            return -1;
        }
        return parse_map(map, e, err);
    }
    const char *text_key = edit_kinds[found].text_key;
    if (text_key) {
        const char *text = string_of(obj, text_key);
        if (!text || (e->kind != OOM_EDIT_REPLACE && !text[0])) {
            oom_buf_printf(err, "a %s edit needs \"%s\" (a string)%s", edit_kinds[found].key, text_key,
                           e->kind == OOM_EDIT_REPLACE ? " or \"map\"" : "");
            return -1;
        }
        e->text = oom_xstrdup(text);
    }
    if (e->kind == OOM_EDIT_ADD_ARGUMENT) {
        const char *keyword = string_of(obj, "keyword");
        if (!keyword || !keyword[0]) {
            oom_buf_puts(err, "an add-argument edit needs \"keyword\", the name of the argument to add");
            return -1;
        }
        e->name = oom_xstrdup(keyword);
    }
    /* a field of another kind is a mistake the author should hear about */
    static const char *const owned[][3] = {{"with", "map", NULL}, {"keyword", "value", NULL}, {"decorator", NULL, NULL},
                                           {"statement", NULL, NULL}};
    static const oom_edit_kind owners[] = {OOM_EDIT_REPLACE, OOM_EDIT_ADD_ARGUMENT, OOM_EDIT_ADD_DECORATOR,
                                           OOM_EDIT_INSERT_AFTER};
    for (size_t o = 0; o < sizeof owners / sizeof *owners; o++)
        for (size_t f = 0; owned[o][f]; f++)
            if (owners[o] != e->kind && cJSON_GetObjectItemCaseSensitive(obj, owned[o][f])) {
                oom_buf_printf(err, "\"%s\" does not belong in a %s edit", owned[o][f], edit_kinds[found].key);
                return -1;
            }
    return 0;
}

static int parse_when(const cJSON *when, oom_fix_alternative *a, oom_buf *err)
{
    if (cJSON_IsString(when)) {
        oom_strlist_push(&a->when, when->valuestring);
        return 0;
    }
    if (!cJSON_IsArray(when)) {
        oom_buf_puts(err, "\"when\" must be a predicate or an array of them, such as "
                          "[\"#oom-passed-to? @call \\\"load_state_dict\\\"\"]");
        return -1;
    }
    for (const cJSON *it = when->child; it; it = it->next) {
        if (!cJSON_IsString(it)) {
            oom_buf_puts(err, "\"when\" must hold predicates as strings");
            return -1;
        }
        oom_strlist_push(&a->when, it->valuestring);
    }
    return 0;
}

static int parse_alternative(const cJSON *obj, oom_fix_alternative *a, oom_buf *err)
{
    static const char *const keys[] = {"applicability", "message", "when", "edits", NULL};
    if (!cJSON_IsObject(obj)) {
        oom_buf_puts(err, "a fix must be an object with applicability, message and edits");
        return -1;
    }
    for (const cJSON *it = obj->child; it; it = it->next)
        if (!known_key(it->string, keys)) {
            oom_buf_printf(err, "unknown field \"%s\" (known: applicability, message, when, edits)", it->string);
            return -1;
        }
    const char *applicability = string_of(obj, "applicability");
    if (!applicability || oom_applicability_parse(applicability, &a->applicability) != 0) {
        oom_buf_puts(err, "\"applicability\" must be \"safe\", \"unsafe\" or \"display-only\"");
        return -1;
    }
    const char *message = string_of(obj, "message");
    if (!message || !message[0]) {
        oom_buf_puts(err, "\"message\" must say what the fix does, as in \"Replace with `{{value}}.item()`\"");
        return -1;
    }
    a->message = oom_xstrdup(message);
    const cJSON *when = cJSON_GetObjectItemCaseSensitive(obj, "when");
    if (when && parse_when(when, a, err) != 0)
        return -1;
    const cJSON *edits = cJSON_GetObjectItemCaseSensitive(obj, "edits");
    if (!cJSON_IsArray(edits) || !edits->child) {
        oom_buf_puts(err, "\"edits\" must be a non-empty array");
        return -1;
    }
    size_t n = (size_t)cJSON_GetArraySize(edits), i = 0;
    a->edits = oom_xcalloc(n, sizeof(oom_edit_spec));
    for (const cJSON *it = edits->child; it; it = it->next, i++) {
        a->edit_count = i + 1;
        oom_buf why;
        oom_buf_init(&why);
        int rc = parse_edit(it, &a->edits[i], &why);
        if (rc != 0)
            oom_buf_printf(err, "edits[%zu]: %s", i, why.data);
        oom_buf_free(&why);
        if (rc != 0)
            return -1;
    }
    return 0;
}

oom_fix_spec *oom_fix_spec_parse(const void *json, oom_buf *err)
{
    const cJSON *fix = json;
    oom_fix_spec *spec = oom_xcalloc(1, sizeof *spec);
    bool many = cJSON_IsArray(fix);
    size_t n = many ? (size_t)cJSON_GetArraySize(fix) : 1;
    if (many && n == 0) {
        oom_buf_puts(err, "\"fix\" is an empty array");
        oom_fix_spec_free(spec);
        return NULL;
    }
    spec->alts = oom_xcalloc(n, sizeof(oom_fix_alternative));
    const cJSON *it = many ? fix->child : fix;
    for (size_t i = 0; i < n; i++, it = it->next) {
        spec->count = i + 1;
        oom_buf why;
        oom_buf_init(&why);
        int rc = parse_alternative(it, &spec->alts[i], &why);
        if (rc != 0) {
            if (many)
                oom_buf_printf(err, "fix[%zu]: %s", i, why.data);
            else
                oom_buf_printf(err, "fix: %s", why.data);
        }
        oom_buf_free(&why);
        if (rc != 0) {
            oom_fix_spec_free(spec);
            return NULL;
        }
    }
    return spec;
}

void oom_fix_spec_describe(const oom_fix_spec *spec, oom_buf *out)
{
    bool seen[3] = {false, false, false};
    for (size_t i = 0; spec && i < spec->count; i++)
        seen[spec->alts[i].applicability] = true;
    const char *sep = "";
    for (int a = OOM_FIX_SAFE; a <= OOM_FIX_DISPLAY_ONLY; a++)
        if (seen[a]) {
            oom_buf_printf(out, "%s%s", sep, oom_applicability_name((oom_applicability)a));
            sep = "/";
        }
}

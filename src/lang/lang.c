/* lang: maps file names and rule languages to tree-sitter grammars. */
#include "oomlint/lang.h"

#include <pthread.h>
#include <string.h>

#include "oomlint/util.h"

const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_json(void);
const TSLanguage *tree_sitter_toml(void);
const TSLanguage *tree_sitter_yaml(void);

static const char *const names[OOM_LANG_COUNT] = {"python", "json", "toml", "yaml"};

const TSLanguage *oom_lang_grammar(oom_lang lang)
{
    switch (lang) {
    case OOM_LANG_PYTHON:
        return tree_sitter_python();
    case OOM_LANG_JSON:
        return tree_sitter_json();
    case OOM_LANG_TOML:
        return tree_sitter_toml();
    case OOM_LANG_YAML:
        return tree_sitter_yaml();
    default:
        return NULL;
    }
}

const char *oom_lang_name(oom_lang lang)
{
    return lang >= 0 && lang < OOM_LANG_COUNT ? names[lang] : "none";
}

oom_lang oom_lang_from_name(const char *name)
{
    for (int i = 0; i < OOM_LANG_COUNT; i++)
        if (strcmp(names[i], name) == 0)
            return (oom_lang)i;
    return OOM_LANG_NONE;
}

oom_lang oom_lang_for_path(const char *path)
{
    if (oom_str_ends_with(path, ".py") || oom_str_ends_with(path, ".pyi"))
        return OOM_LANG_PYTHON;
    if (oom_str_ends_with(path, ".json"))
        return OOM_LANG_JSON;
    if (oom_str_ends_with(path, ".toml"))
        return OOM_LANG_TOML;
    if (oom_str_ends_with(path, ".yaml") || oom_str_ends_with(path, ".yml"))
        return OOM_LANG_YAML;
    return OOM_LANG_NONE;
}

/* ---- field names to ids ---------------------------------------------------------- */

/* ts_node_child_by_field_name looks the name up with a linear scan of the
 * grammar's field table (a strncmp per field) on every call; the semantic
 * model asks for fields millions of times per run. The names are fixed per
 * grammar, so each language's names go once into a small open-addressing
 * table, built once per process. */
#define FIELD_SLOTS 256 /* power of two, well above any grammar's field count */

typedef struct {
    const char *name;
    uint32_t len;
    TSFieldId id;
} field_slot;

static field_slot field_tables[OOM_LANG_COUNT][FIELD_SLOTS];
static pthread_once_t fields_once = PTHREAD_ONCE_INIT;

static uint32_t field_hash(const char *name, uint32_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (uint32_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    return h & (FIELD_SLOTS - 1);
}

static void fill_field_table(field_slot *table, const TSLanguage *lang)
{
    uint32_t count = ts_language_field_count(lang);
    for (TSFieldId id = 1; id <= count && id < FIELD_SLOTS / 2; id++) {
        const char *name = ts_language_field_name_for_id(lang, id);
        if (!name)
            continue;
        uint32_t len = (uint32_t)strlen(name);
        uint32_t h = field_hash(name, len);
        while (table[h].name)
            h = (h + 1) & (FIELD_SLOTS - 1);
        table[h] = (field_slot){name, len, id};
    }
}

static void init_field_tables(void)
{
    for (int l = 0; l < OOM_LANG_COUNT; l++)
        fill_field_table(field_tables[l], oom_lang_grammar((oom_lang)l));
}

static const field_slot *field_table_for(const TSLanguage *lang)
{
    pthread_once(&fields_once, init_field_tables);
    for (int l = 0; l < OOM_LANG_COUNT; l++)
        if (oom_lang_grammar((oom_lang)l) == lang)
            return field_tables[l];
    return NULL;
}

TSFieldId oom_lang_field_id(const TSLanguage *lang, const char *name, uint32_t len)
{
    const field_slot *table = field_table_for(lang);
    if (!table)
        return ts_language_field_id_for_name(lang, name, len);
    for (uint32_t h = field_hash(name, len); table[h].name; h = (h + 1) & (FIELD_SLOTS - 1))
        if (table[h].len == len && memcmp(table[h].name, name, len) == 0)
            return table[h].id;
    return 0;
}

TSNode oom_child(TSNode node, const char *field, uint32_t len)
{
    TSFieldId id = oom_lang_field_id(ts_node_language(node), field, len);
    if (id == 0) {
        TSNode null_node = {{0}, NULL, NULL};
        return null_node;
    }
    return ts_node_child_by_field_id(node, id);
}

TSNode oom_first_error(TSNode root)
{
    TSTreeCursor c = ts_tree_cursor_new(root);
    TSNode found = root;
    bool descend = true;
    while (descend && ts_tree_cursor_goto_first_child(&c)) {
        descend = false;
        do {
            TSNode child = ts_tree_cursor_current_node(&c);
            if (ts_node_is_error(child) || ts_node_is_missing(child)) {
                found = child;
                break;
            }
            if (ts_node_has_error(child)) {
                found = child;
                descend = true;
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return found;
}

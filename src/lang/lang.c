/* lang: maps file names and rule languages to tree-sitter grammars. */
#include "oomlint/lang.h"

#include <string.h>

#include "oomlint/util.h"

const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_json(void);
const TSLanguage *tree_sitter_toml(void);

static const char *const names[OOM_LANG_COUNT] = {"python", "json", "toml"};

const TSLanguage *oom_lang_grammar(oom_lang lang)
{
    switch (lang) {
    case OOM_LANG_PYTHON:
        return tree_sitter_python();
    case OOM_LANG_JSON:
        return tree_sitter_json();
    case OOM_LANG_TOML:
        return tree_sitter_toml();
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
    return OOM_LANG_NONE;
}

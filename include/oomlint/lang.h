/* lang: the languages oomlint parses and their tree-sitter grammars. */
#ifndef OOMLINT_LANG_H
#define OOMLINT_LANG_H

#include <stdbool.h>
#include <tree_sitter/api.h>

typedef enum {
    OOM_LANG_PYTHON = 0,
    OOM_LANG_JSON,
    OOM_LANG_TOML,
    OOM_LANG_COUNT,
    OOM_LANG_NONE = -1,
} oom_lang;

const TSLanguage *oom_lang_grammar(oom_lang lang);
const char *oom_lang_name(oom_lang lang);
/* "python" -> OOM_LANG_PYTHON; OOM_LANG_NONE when unknown. */
oom_lang oom_lang_from_name(const char *name);
/* By file extension (.py, .pyi, .json, .toml); OOM_LANG_NONE otherwise. */
oom_lang oom_lang_for_path(const char *path);

#endif

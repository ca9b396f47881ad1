/* lang: the languages oomlint parses and their tree-sitter grammars. */
#ifndef OOMLINT_LANG_H
#define OOMLINT_LANG_H

#include <stdbool.h>
#include <tree_sitter/api.h>

typedef enum {
    OOM_LANG_PYTHON = 0,
    OOM_LANG_JSON,
    OOM_LANG_TOML,
    OOM_LANG_YAML,
    OOM_LANG_COUNT,
    OOM_LANG_NONE = -1,
} oom_lang;

const TSLanguage *oom_lang_grammar(oom_lang lang);
const char *oom_lang_name(oom_lang lang);
/* "python" -> OOM_LANG_PYTHON; OOM_LANG_NONE when unknown. */
oom_lang oom_lang_from_name(const char *name);
/* By file extension (.py, .pyi, .json, .toml, .yaml, .yml); OOM_LANG_NONE otherwise. */
oom_lang oom_lang_for_path(const char *path);

/* The id of a field name in a grammar (0 when the grammar has no such field),
 * from a table built once per process. */
TSFieldId oom_lang_field_id(const TSLanguage *lang, const char *name, uint32_t len);
/* ts_node_child_by_field_name without its per-call scan of the field names. */
TSNode oom_child(TSNode node, const char *field, uint32_t len);
/* The first ERROR or MISSING node below root in document order (root itself
 * when none is found under it). Iterative, with a cursor: a deeply nested or
 * very wide tree neither exhausts the C stack nor takes quadratic time (a
 * node's i-th child through ts_node_child costs i steps). */
TSNode oom_first_error(TSNode root);
/* Parses Python text (len bytes) with parser, working around a known gap of
 * the grammar (see lang/pyparse.c); the caller deletes the tree. */
TSTree *oom_parse_python(TSParser *parser, const char *text, size_t len);

#endif

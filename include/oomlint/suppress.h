/* suppress: `# noqa`, `# noqa: OOM201,OOM202`, `# oomlint: disable=OOM201`
 * on a line, and `# oomlint: disable-file[=CODES]` on a line of its own. */
#ifndef OOMLINT_SUPPRESS_H
#define OOMLINT_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oomlint/util.h"

typedef enum {
    OOM_SUPPRESS_NONE = 0,
    OOM_SUPPRESS_LINE, /* the line the comment is on */
    OOM_SUPPRESS_FILE, /* the whole file */
} oom_suppress_scope;

typedef struct {
    oom_suppress_scope scope;
    bool all_codes;     /* no code list: every code */
    oom_strlist codes;  /* codes or prefixes */
} oom_suppression;

/* Parses the text of one comment (starting at '#'). A comment may hold
 * several directives ("# type: ignore  # noqa: OOM201"); the first that
 * oomlint understands counts. `own_line` says whether only whitespace
 * precedes the comment (needed for disable-file). */
void oom_suppression_parse(const char *comment, size_t len, bool own_line, oom_suppression *out);
void oom_suppression_free(oom_suppression *s);
bool oom_suppression_covers(const oom_suppression *s, const char *code);

/* All suppressions of one file, by line. */
typedef struct {
    uint32_t line; /* 1-based */
    oom_suppression suppression;
} oom_line_suppression;

typedef struct {
    oom_line_suppression *line_items;
    size_t line_count, line_cap;
    oom_suppression *file_items;
    size_t file_count, file_cap;
} oom_suppression_set;

void oom_suppression_set_add(oom_suppression_set *set, uint32_t line, oom_suppression *s);
bool oom_suppression_set_covers(const oom_suppression_set *set, uint32_t line, const char *code);
void oom_suppression_set_free(oom_suppression_set *set);

#endif

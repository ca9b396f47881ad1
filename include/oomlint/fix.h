/* fix: what a rule's fix is (declared in its rule.json), how its edits are
 * made on a file's tree, and how the fixes of a file are applied: chosen by
 * applicability, never two overlapping ones in one round, end to start, as
 * Ruff applies them. The loop over rounds and files is oomlint/fixer.h. */
#ifndef OOMLINT_FIX_H
#define OOMLINT_FIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "oomlint/diag.h"
#include "oomlint/lang.h"
#include "oomlint/source.h"
#include "oomlint/util.h"

/* ---- the declaration (rule.json "fix") ------------------------------------------- */

typedef enum {
    OOM_EDIT_REPLACE,          /* "replace": CAPTURE, "with": TEMPLATE or "map": {TEXT: TEXT} */
    OOM_EDIT_ADD_ARGUMENT,     /* "add-argument": CALL, "keyword": NAME, "value": TEMPLATE */
    OOM_EDIT_REMOVE_ARGUMENT,  /* "remove-argument": ARGUMENT */
    OOM_EDIT_ADD_DECORATOR,    /* "add-decorator": CAPTURE, "decorator": TEMPLATE (without @) */
    OOM_EDIT_INSERT_AFTER,     /* "insert-after": CAPTURE, "statement": TEMPLATE */
    OOM_EDIT_DELETE_STATEMENT, /* "delete-statement": CAPTURE */
} oom_edit_kind;

/* One edit over the query's captures. */
typedef struct {
    oom_edit_kind kind;
    char *capture;  /* the capture it acts on, without @ */
    char *text;     /* the template: with / value / decorator / statement; NULL for map and delete */
    char *name;     /* add-argument: the keyword */
    oom_strlist map_from, map_to; /* replace by map: the capture's exact text -> its replacement */
} oom_edit_spec;

/* One way to fix the finding. A rule may list several: the first whose
 * conditions hold and whose edits can all be made is the finding's fix. */
typedef struct {
    oom_applicability applicability;
    char *message;   /* a template, like a rule's message */
    oom_strlist when; /* predicates over the captures: "#oom-passed-to? @call \"load_state_dict\"" */
    oom_edit_spec *edits;
    size_t edit_count;
} oom_fix_alternative;

typedef struct {
    oom_fix_alternative *alts;
    size_t count;
} oom_fix_spec;

/* Reads rule.json's "fix" (an object, or an array of them). Returns NULL
 * with a reason in err ("fix[1].edits[0]: ...") when it is malformed. `json`
 * is a cJSON node; void here so that this header does not need cJSON's. */
oom_fix_spec *oom_fix_spec_parse(const void *json, oom_buf *err);
void oom_fix_spec_free(oom_fix_spec *spec);
/* The applicabilities a rule's fixes can have, for `oomlint rules`:
 * "safe", "unsafe", "safe/unsafe", "display-only" ...; "" without a fix. */
void oom_fix_spec_describe(const oom_fix_spec *spec, oom_buf *out);

/* ---- making the edits ------------------------------------------------------------- */

/* Fills a template: `{{name}}` becomes the text of the capture `lookup`
 * finds (a node), or the text it gives (`{{import:torch}}`: the name the
 * file imports torch as). A capture that is not a primary expression is
 * parenthesised where the template goes on after it with `.`, `[` or `(`,
 * so `{{value}}.item()` on `a + b` is `(a + b).item()`. Returns false when a
 * placeholder has no value. */
/* Whether the text of `node`, followed in a template by the character
 * `next`, must be parenthesised (1), not (0), or cannot be written there
 * at all (-1: `val=loss` followed by `.detach()`). */
int oom_fix_parens_needed(TSNode node, const char *src, char next);
typedef struct {
    TSNode node;      /* a capture's node; null when `text` is set */
    const char *text; /* otherwise the text itself */
    size_t text_len;
} oom_placeholder_value;
typedef bool (*oom_capture_lookup)(void *ctx, const char *name, size_t len, oom_placeholder_value *out);
bool oom_fix_fill_template(const char *tmpl, const char *src, oom_capture_lookup lookup, void *ctx,
                           oom_buf *out);

/* An edit under construction, in bytes of the linted text. */
typedef struct {
    uint32_t start, end;
    char *content;
} oom_raw_edit;

/* Makes the edit `spec` asks for at `node` (the capture), with `content`
 * the filled template. Returns false when this kind of edit cannot be made
 * here: the argument is already there, no function encloses the node, the
 * statement shares its line with another ... */
bool oom_fix_make_edit(const oom_edit_spec *spec, oom_lang lang, const char *src, size_t len, TSNode node,
                       const char *content, oom_raw_edit *out);

/* The fix from raw edits: sorted, positions filled from the source; NULL
 * when two of them overlap (the declaration contradicts itself here). Takes
 * the contents either way. */
oom_fix *oom_fix_from_edits(oom_applicability a, const char *message, oom_raw_edit *edits, size_t count,
                            oom_source *src);

/* ---- applying --------------------------------------------------------------------- */

/* What a run applies: up to `max` (OOM_FIX_SAFE for --fix, OOM_FIX_UNSAFE
 * with --unsafe-fixes); never display-only fixes. */
bool oom_fix_applies(const oom_fix *f, oom_applicability max);

/* Applies to text[0..len) the fixes of `diags` that apply at `max` and
 * whose finding `take` allows (NULL: all), in the findings' order, skipping
 * one that overlaps an edit already taken in this round (it waits for the
 * next round, made on the new text); an edit identical to one taken counts
 * as made (three findings in one function add its one decorator). Writes
 * the new text to `out` and, per finding, whether its fix was applied
 * (`applied`, one byte per finding, may be NULL). Returns how many fixes
 * were applied. */
size_t oom_fix_apply(const char *text, size_t len, const oom_diag_list *diags, oom_applicability max,
                     const unsigned char *take, oom_buf *out, unsigned char *applied);

/* Offsets in a text that its fixes move with it: where each of a
 * notebook's cells starts in the module its cells make. An edit at an offset
 * belongs to what follows it; one across an offset sets `crossed`. */
typedef struct {
    uint32_t *at;
    size_t count;
    bool crossed;
} oom_fix_marks;

/* oom_fix_apply, moving `marks` (may be NULL) as the edits move the text. */
size_t oom_fix_apply_marked(const char *text, size_t len, const oom_diag_list *diags, oom_applicability max,
                            const unsigned char *take, oom_buf *out, unsigned char *applied, oom_fix_marks *marks);

#endif

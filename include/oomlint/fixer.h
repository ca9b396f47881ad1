/* fixer: `--fix` on one file: lint it in memory, apply the fixes that apply
 * (oomlint/fix.h), lint the new text again and repeat until nothing applies
 * (at most OOM_FIX_MAX_ROUNDS rounds); then the file must still parse, and it
 * is written whole, keeping its mode, only if its bytes on disk are still
 * those that were read. */
#ifndef OOMLINT_FIXER_H
#define OOMLINT_FIXER_H

#include <stdbool.h>
#include <stddef.h>

#include "oomlint/diag.h"
#include "oomlint/engine.h"
#include "oomlint/fix.h"
#include "oomlint/util.h"

/* Ruff's bound: fixes that keep making new fixable findings stop here. */
#define OOM_FIX_MAX_ROUNDS 10

/* Which fixes a run applies. */
typedef struct {
    oom_applicability max; /* OOM_FIX_SAFE (--fix) or OOM_FIX_UNSAFE (--unsafe-fixes) */
    /* whether the fix of this finding may be applied (its code fixable, not
     * ignored for the file ...); NULL: every one */
    bool (*allow)(void *ctx, const oom_diag *d);
    void *allow_ctx;
} oom_fix_policy;

typedef enum {
    OOM_FIX_UNCHANGED,    /* nothing applied */
    OOM_FIX_CHANGED,      /* `text` is the fixed file */
    OOM_FIX_HAS_SYNTAX_ERROR, /* the file does not parse as read: not fixed */
    OOM_FIX_BREAKS_SYNTAX, /* the fixes would make it unparsable: left as it is */
    OOM_FIX_NOT_WRITTEN_BACK, /* a notebook whose fixed code cannot go back into its cells (`detail`) */
} oom_fix_outcome;

/* One applied fix, for the summary and --show-fixes. */
typedef struct {
    char *code;
    char *name;
} oom_applied_fix;

typedef struct {
    oom_fix_outcome outcome;
    char *text; /* the fixed text (OOM_FIX_CHANGED), without the BOM */
    size_t len;
    oom_applied_fix *applied;
    size_t applied_count, applied_cap;
    int rounds;
    bool converged; /* false: fixes still applied after OOM_FIX_MAX_ROUNDS rounds */
    char detail[256]; /* OOM_FIX_BREAKS_SYNTAX: where the new text stops parsing */
} oom_fix_result;

/* Fixes `text` (a file's contents without a BOM, linted as `display`). */
void oom_fix_text(oom_linter *linter, const char *display, const char *text, size_t len, oom_lang lang,
                  const oom_fix_policy *policy, oom_fix_result *out);
/* The same, moving `marks` with the text through every round. */
void oom_fix_text_marked(oom_linter *linter, const char *display, const char *text, size_t len, oom_lang lang,
                         const oom_fix_policy *policy, oom_fix_result *out, oom_fix_marks *marks);
void oom_fix_result_free(oom_fix_result *r);

/* Fixes a Jupyter notebook (its JSON, as read): the code cells as one
 * module, then each changed cell's `source` rewritten in place, every other
 * byte as it was. OOM_FIX_CHANGED: `text` is the new file. */
void oom_fix_notebook(oom_linter *linter, const char *display, const char *json, size_t len,
                      const oom_fix_policy *policy, oom_fix_result *out);

/* Whether text parses without a syntax error in its language. `where`
 * (may be NULL) gets "line L" of the first error. */
bool oom_fix_text_parses(oom_lang lang, const char *text, size_t len, char *where, size_t where_size);

/* A file read for fixing: its bytes as they were (to compare before
 * writing), its text without a UTF-8 BOM, and its mode. */
typedef struct {
    char *path;
    char *bytes;
    size_t len;
    size_t bom; /* 3 when the file starts with a UTF-8 BOM, else 0 */
    unsigned mode;
} oom_fix_file;

/* Returns 0, or -1 with the reason in err (not a regular file, too large,
 * binary, not UTF-8 ...). A notebook may be as large as notebooks may be
 * (its outputs count); its reader checks the rest. */
int oom_fix_file_read(const char *path, bool notebook, oom_fix_file *out, oom_buf *err);
void oom_fix_file_free(oom_fix_file *f);

typedef enum {
    OOM_FIX_WRITTEN,
    OOM_FIX_CHANGED_ON_DISK, /* its bytes are not those read: not written */
    OOM_FIX_WRITE_FAILED,
} oom_fix_write_status;

/* Writes `text` (the BOM restored) over the file, through a temporary file
 * and a rename, keeping its mode; a symbolic link keeps pointing at the file
 * it named. Only when the file still holds the bytes `f` read. */
oom_fix_write_status oom_fix_file_write(const oom_fix_file *f, const char *text, size_t len, oom_buf *err);

#endif

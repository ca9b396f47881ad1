/* diag: the one value every finding is, and every output format is made from. */
#ifndef OOMLINT_DIAG_H
#define OOMLINT_DIAG_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    OOM_SEV_INFO = 0,
    OOM_SEV_WARNING = 1,
    OOM_SEV_ERROR = 2,
} oom_severity;

const char *oom_severity_name(oom_severity s);
/* Returns 0 and sets *out for "error", "warning", "info"; -1 otherwise. */
int oom_severity_parse(const char *name, oom_severity *out);

/* How far a fix may be trusted, as Ruff defines it: a safe fix keeps what
 * the program does (and frees the memory), so `--fix` applies it; an unsafe
 * fix may change what it does, so only `--unsafe-fixes` applies it; a
 * display-only fix is shown for a person to apply, never applied. Ordered:
 * a mode that applies one level applies those before it. */
typedef enum {
    OOM_FIX_SAFE = 0,
    OOM_FIX_UNSAFE = 1,
    OOM_FIX_DISPLAY_ONLY = 2,
} oom_applicability;

const char *oom_applicability_name(oom_applicability a);
/* Returns 0 and sets *out for "safe", "unsafe", "display-only"; -1 otherwise. */
int oom_applicability_parse(const char *name, oom_applicability *out);

/* One edit of a fix: the bytes [start_byte, end_byte) of the text that was
 * linted become `content` (an insertion when the range is empty). The
 * positions say the same for reports: 1-based rows, columns in characters,
 * the end exclusive. */
typedef struct {
    uint32_t start_byte, end_byte;
    uint32_t start_row, start_col;
    uint32_t end_row, end_col;
    char *content;
} oom_edit;

/* A finding's fix: edits sorted by position, none overlapping another. */
typedef struct {
    oom_applicability applicability;
    char *message; /* "Replace with `loss.item()`" */
    oom_edit *edits;
    size_t edit_count;
    /* The whole lines the edits touch, before and after (--show-fixes
     * prints them), from line preview_row; NULL when they span too many. */
    uint32_t preview_row;
    char *preview_before, *preview_after;
} oom_fix;

void oom_fix_free(oom_fix *f);
oom_fix *oom_fix_copy(const oom_fix *f);

/* What `--fix` would do with a finding's fix under this run's settings
 * (--unsafe-fixes, fixable/unfixable): what reports mark and count. */
typedef enum {
    OOM_FIXABLE_NO = 0,       /* no fix, a display-only one, or the code is unfixable */
    OOM_FIXABLE_NOW,          /* --fix applies it */
    OOM_FIXABLE_WITH_UNSAFE,  /* an unsafe fix: --unsafe-fixes would apply it */
} oom_fixable;

/* Another place of the same cause (the TrainingArguments a DeepSpeed
 * config disagrees with): shown beside the finding, never a finding itself. */
typedef struct {
    char *path;
    uint32_t row; /* 1-based */
    char *message;
} oom_related;

typedef struct {
    char *code;      /* "OOM201" */
    char *name;      /* "tensor-with-graph-stored" */
    oom_severity severity;
    char *path;
    uint32_t start_row, start_col; /* 1-based; columns in characters */
    uint32_t end_row, end_col;     /* exclusive end, 1-based */
    /* In a notebook, the cell that holds the finding (1-based, counting
     * every cell, markdown too), the rows above being the cell's; and the
     * lines of the .ipynb file that hold its first and last row, which CI
     * annotations and --diff-base point at. cell 0: not in a notebook. */
    uint32_t cell;
    uint32_t file_start_row, file_end_row;
    /* The cause it shares with other findings of its rule ("one_per" in
     * rule.json): findings of one code in one file with the same nonzero
     * cause_scope are one cause, folded into one finding with the others
     * as related locations (oom_diag_list_fold_causes). 0: a cause of its
     * own. The linter sets it to where the function around the finding is
     * named, plus 2; 1 stands for a module's top-level code. */
    uint32_t cause_scope;
    size_t start_byte;             /* for suppression lookups and sorting */
    char *message;
    char *help;      /* may be NULL */
    char *url;       /* may be NULL */
    /* The source lines the finding spans (at most OOM_DIAG_CONTEXT_LINES,
     * starting at start_row), kept so reports need not reopen the file. */
    char *context;   /* may be NULL */
    /* The finding holds only while this function (by name) runs with
     * autograd on: the project pass drops it when every call of the
     * function in the project stands where autograd is off. NULL: no such
     * condition. */
    char *needs_grad_in;
    /* The finding holds only if another file of the project agrees; the
     * project pass keeps or drops it (NULL: no such condition). Either a
     * method there adds the argument into its object (`meter.update(loss)`,
     * AverageMeter in utils.py): "method<TAB>mask<TAB>keywords" as
     * oom_pymodel_accumulation_candidate writes it; or a call there runs the
     * finding's function for evaluation (`iteration(loader, train=False)`
     * from utils.py's evaluate()): "eval<TAB>function<TAB>parameter<TAB>
     * position" as oom_pymodel_eval_call_candidate writes it. */
    char *needs_project;
    /* The finding stands unless another file of the project overturns what
     * it assumed of that file, one assumption a line (NULL: none): it is
     * reported on a file alone, and the project pass drops it when the
     * file says otherwise. "fwdgrad<TAB>module<TAB>Class": `c = Class(...)`
     * with Class imported from `module`, called as a forward that keeps
     * activations, where that module's Class.forward runs without grad
     * (oom_pymodel_collect_conditions). */
    char *unless_project;
    /* Edits that resolve the finding, from the rule's "fix" (rule.json);
     * NULL when the rule has none or none could be made here. */
    oom_fix *fix;
    oom_fixable fixable; /* set by the command line; OOM_FIXABLE_NO until then */
    oom_related *related; /* may be NULL */
    size_t related_count;
} oom_diag;

#define OOM_DIAG_CONTEXT_LINES 4

typedef struct {
    oom_diag *items;
    size_t len;
    size_t cap;
} oom_diag_list;

/* Takes copies of all strings. */
oom_diag *oom_diag_list_add(oom_diag_list *l, const char *code, const char *name,
                            oom_severity sev, const char *path, const char *message,
                            const char *help, const char *url);
/* Folds each cause's findings into its first (sorted) one: the others
 * become its related locations, their fixes' edits join its fix (where
 * they do not overlap an edit it has), and the message says how many
 * places there are. Expects a sorted list; keeps it sorted. A notebook's
 * findings are left apart: a related location names no cell. */
void oom_diag_list_fold_causes(oom_diag_list *l);
/* Adds a related location to d (copies the strings). */
void oom_diag_add_related(oom_diag *d, const char *path, uint32_t row, const char *message);
/* Appends a deep copy of `d` (a front end that keeps a file's findings
 * across runs hands copies to the project pass, which consumes them). */
oom_diag *oom_diag_list_add_copy(oom_diag_list *l, const oom_diag *d);
/* Moves every diagnostic of `from` to the end of `to`; `from` is left empty. */
void oom_diag_list_move(oom_diag_list *to, oom_diag_list *from);
void oom_diag_list_remove_if_marked(oom_diag_list *l, const unsigned char *drop);
/* Sort by path, then position (a notebook's cell first), then code: the same order
 * whatever the input order. */
void oom_diag_list_sort(oom_diag_list *l);
void oom_diag_list_free(oom_diag_list *l);

#endif

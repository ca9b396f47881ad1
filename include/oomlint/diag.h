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
    /* The finding holds only if a file of the project defines a method that
     * adds the argument into its object (`meter.update(loss)`, AverageMeter in
     * utils.py): "method<TAB>mask<TAB>keywords" as
     * oom_pymodel_accumulation_candidate writes it. The project pass keeps
     * or drops it; NULL: no such condition. */
    char *needs_accumulator;
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
/* Moves every diagnostic of `from` to the end of `to`; `from` is left empty. */
void oom_diag_list_move(oom_diag_list *to, oom_diag_list *from);
void oom_diag_list_remove_if_marked(oom_diag_list *l, const unsigned char *drop);
/* Sort by path, then position (a notebook's cell first), then code: the same order
 * whatever the input order. */
void oom_diag_list_sort(oom_diag_list *l);
void oom_diag_list_free(oom_diag_list *l);

#endif

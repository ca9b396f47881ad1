/* notebook: a Jupyter notebook (nbformat 4) as the one Python module its code
 * cells make, in order (a later cell sees the names of an earlier one, as
 * the kernel does), with IPython syntax masked (oomlint/ipython.h), and the
 * way back from a position in that module to the cell, the row and column in
 * it, and the line of the .ipynb file. Outputs, markdown and raw cells are
 * never looked at. */
#ifndef OOMLINT_NOTEBOOK_H
#define OOMLINT_NOTEBOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oomlint/diag.h"
#include "oomlint/util.h"

/* A notebook file may be this large: outputs (images, training logs) can
 * make it far larger than its code, and the code is what the source size
 * limit (OOM_MAX_FILE_BYTES) bounds. This bounds the JSON parse. */
#define OOM_MAX_NOTEBOOK_BYTES ((size_t)256 * 1024 * 1024)

typedef enum {
    OOM_NOTEBOOK_OK = 0,
    OOM_NOTEBOOK_NOT_JSON,   /* the file does not parse as JSON */
    OOM_NOTEBOOK_INVALID,    /* JSON, but not a notebook oomlint can read */
    OOM_NOTEBOOK_NOT_PYTHON, /* the notebook of another language's kernel */
} oom_notebook_status;

/* Why a notebook cannot be linted, and where in the file (1-based line and
 * column in characters; 0 when the problem is the file as a whole). */
typedef struct {
    char message[256];
    uint32_t row, col;
} oom_notebook_error;

typedef struct oom_notebook oom_notebook;

/* Whether a path names a notebook (.ipynb). */
bool oom_notebook_is_path(const char *path);

/* Reads the notebook in json[0..len) (UTF-8). On OOM_NOTEBOOK_OK, *out is
 * the notebook (free with oom_notebook_free); otherwise *out is NULL and
 * `err` says what is wrong. */
oom_notebook_status oom_notebook_parse(const char *json, size_t len, oom_notebook **out, oom_notebook_error *err);
void oom_notebook_free(oom_notebook *nb);
/* The notebook's module and map as bytes (util's codec), and back: what the
 * on-disk cache keeps of a notebook, for the findings the project pass
 * places in its cells. Decoding returns NULL (r->ok false) on bytes this
 * did not write. */
void oom_notebook_encode(const oom_notebook *nb, oom_buf *out);
oom_notebook *oom_notebook_decode(oom_reader *r);

/* The module: the code cells' text, masked, each cell ending in a newline.
 * Its lines are the cells' lines, one for one. */
const char *oom_notebook_code(const oom_notebook *nb, size_t *len);

/* Where the module's 1-based line `row` is: its cell, its row in the cell
 * and the .ipynb line that holds it. False when there is no such line. */
bool oom_notebook_locate(const oom_notebook *nb, uint32_t row, uint32_t *cell, uint32_t *cell_row,
                         uint32_t *file_row);

/* The module's lines; line `row` (1-based) as its cell has it written (not
 * NUL-terminated: *len bytes, without the \n), NULL past the end; whether
 * IPython masking changed it (a magic, a shell line). */
uint32_t oom_notebook_line_count(const oom_notebook *nb);
const char *oom_notebook_written_line(const oom_notebook *nb, uint32_t row, size_t *len);
bool oom_notebook_line_masked(const oom_notebook *nb, uint32_t row);
/* Every edit of the fix (rows of the module) lies in lines of one cell that
 * hold the code as written: it can be written back into the cell. */
bool oom_notebook_fix_fits(const oom_notebook *nb, const oom_fix *f);

/* Moves a finding made on the module into the notebook: its cell, rows in
 * that cell, columns on the lines as written (a masked line's finding is
 * held to the line's length), the .ipynb lines, and the code context as
 * written rather than as masked; its fix's edits too (rows of the cell), or
 * no fix when an edit reaches another cell or a masked line. A finding
 * already placed is left alone. */
void oom_notebook_place(const oom_notebook *nb, oom_diag *d);

#endif

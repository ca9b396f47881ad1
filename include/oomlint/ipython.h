/* ipython: the IPython syntax of a notebook cell, masked so that what is left
 * parses as Python with every line, and every column outside the masked
 * text, where it was. IPython syntax is never parsed as Python: a shell line
 * that happens to look like a loop must not be linted as one. */
#ifndef OOMLINT_IPYTHON_H
#define OOMLINT_IPYTHON_H

#include <stddef.h>

#include "oomlint/util.h"

/* Appends to `out` the cell's text cell[0..len) (lines end in \n; the last
 * one may lack it) with IPython syntax masked:
 * - a cell under a cell magic (%%bash, %%writefile, ...) becomes empty lines,
 *   except %%time, %%timeit, %%capture, %%prun, %%debug and %%python(3),
 *   whose body is Python: only the magic's own line is emptied;
 * - a line magic (%pip ...), a shell line (!nvidia-smi), a help line (?x,
 *   x?, x.y??), the autocall escapes (/f x, ,f x, ;f x) and a magic run by
 *   automagic that cannot be Python (pip install torch) become `pass` at the
 *   same column, their backslash-continued lines empty lines;
 * - the right side of `x = !ls` or `x = %who_ls` becomes `get_ipython()`;
 * - `%env NAME=VALUE`, `%env NAME VALUE` and `%set_env` of a constant value
 *   become `os.environ["NAME"] = "VALUE"`, what the magic does, so rules about
 *   the environment see it (a trailing `# comment` stays, for suppressions).
 * Lines inside a string or brackets are never taken for IPython syntax. The
 * result has exactly as many lines as the cell, each ending in \n. */
void oom_ipython_mask_cell(const char *cell, size_t len, oom_buf *out);

#endif

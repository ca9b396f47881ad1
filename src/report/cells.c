/* report/cells: what every writer says of a finding's place: the message
 * with a notebook cell's position before it, and the rows in the file (a
 * cell's rows mapped into the notebook). A leaf the writers share, so that
 * report.c, which picks a writer, is never called back by one. */
#include "oomlint/report.h"

void oom_report_cell_message(oom_buf *out, const oom_diag *d)
{
    if (d->cell)
        oom_buf_printf(out, "cell %u:%u:%u: ", d->cell, d->start_row, d->start_col);
    oom_buf_puts(out, d->message);
}

void oom_report_file_rows(const oom_diag *d, uint32_t *start, uint32_t *end)
{
    *start = d->cell ? d->file_start_row : d->start_row;
    *end = d->cell ? d->file_end_row : d->end_row;
}

/* report/diff: a unified diff of a file's text before and after its fixes,
 * as `--diff` prints it (GNU diff's format, three lines of context; `patch
 * -p0` applies it), from the line edit script of oomlint/linediff.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/linediff.h"
#include "oomlint/report.h"

#define CONTEXT_LINES 3

static void put_line(oom_buf *out, char mark, const oom_line *l)
{
    oom_buf_putc(out, mark);
    oom_buf_append(out, l->text, l->len);
    if (l->len == 0 || l->text[l->len - 1] != '\n')
        oom_buf_puts(out, "\n\\ No newline at end of file\n");
}

/* GNU diff's range: the count is left out when it is 1; an empty range
 * names the line before it. */
static void put_range(oom_buf *out, char sign, size_t start, size_t count)
{
    if (count == 1)
        oom_buf_printf(out, "%c%zu", sign, start + 1);
    else
        oom_buf_printf(out, "%c%zu,%zu", sign, count ? start + 1 : start, count);
}

/* Positions in the two files before op `i`. */
static void positions_at(const oom_line_ops *ops, size_t i, size_t *a, size_t *b)
{
    *a = *b = 0;
    for (size_t k = 0; k < i; k++) {
        *a += ops->items[k] != OOM_LINE_INSERT;
        *b += ops->items[k] != OOM_LINE_DELETE;
    }
}

static void put_hunk(oom_buf *out, const oom_line_ops *ops, size_t from, size_t to, const oom_line_list *a,
                     const oom_line_list *b)
{
    size_t ai, bi;
    positions_at(ops, from, &ai, &bi);
    size_t acount = 0, bcount = 0;
    for (size_t k = from; k < to; k++) {
        acount += ops->items[k] != OOM_LINE_INSERT;
        bcount += ops->items[k] != OOM_LINE_DELETE;
    }
    oom_buf_puts(out, "@@ ");
    put_range(out, '-', ai, acount);
    oom_buf_putc(out, ' ');
    put_range(out, '+', bi, bcount);
    oom_buf_puts(out, " @@\n");
    for (size_t k = from; k < to; k++) {
        if (ops->items[k] == OOM_LINE_SAME)
            put_line(out, ' ', &a->items[ai++]), bi++;
        else if (ops->items[k] == OOM_LINE_DELETE)
            put_line(out, '-', &a->items[ai++]);
        else
            put_line(out, '+', &b->items[bi++]);
    }
}

void oom_report_unified_diff(const char *path, const char *before, size_t before_len, const char *after,
                             size_t after_len, oom_buf *out)
{
    oom_line_list a = {NULL, 0, 0}, b = {NULL, 0, 0};
    oom_line_split(before, before_len, &a);
    oom_line_split(after, after_len, &b);
    oom_line_ops ops = {NULL, 0, 0};
    oom_line_diff(&a, &b, &ops);
    bool header = false;
    size_t i = 0;
    while (i < ops.len) {
        if (ops.items[i] == OOM_LINE_SAME) {
            i++;
            continue;
        }
        /* a hunk: this change, its context, and every change whose context touches it */
        size_t from = i > CONTEXT_LINES ? i - CONTEXT_LINES : 0, end = i;
        for (;;) {
            while (end < ops.len && ops.items[end] != OOM_LINE_SAME)
                end++;
            size_t same = 0;
            while (end + same < ops.len && ops.items[end + same] == OOM_LINE_SAME)
                same++;
            if (end + same < ops.len && same <= 2 * CONTEXT_LINES) {
                end += same;
                continue;
            }
            end += same < CONTEXT_LINES ? same : CONTEXT_LINES;
            break;
        }
        if (!header) {
            oom_buf_printf(out, "--- %s\n+++ %s\n", path, path);
            header = true;
        }
        put_hunk(out, &ops, from, end, &a, &b);
        i = end;
    }
    free(a.items);
    free(b.items);
    free(ops.items);
}

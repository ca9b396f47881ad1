/* report/diff: a unified diff of a file's text before and after its fixes,
 * as `--diff` prints it (GNU diff's format, three lines of context; `patch
 * -p0` applies it). Lines are compared with Myers' O(ND) algorithm, which is
 * fast when, as with fixes, few lines change. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/report.h"

#define CONTEXT_LINES 3
/* Beyond this many differing lines the middle of the files is shown as
 * removed and added whole: still a correct diff, found in bounded time. */
#define MAX_EDIT_DISTANCE 4000

typedef struct {
    const char *text;
    size_t len; /* with its line break, when it has one */
} line;

typedef struct {
    line *items;
    size_t len, cap;
} line_list;

static void split_lines(const char *text, size_t len, line_list *out)
{
    size_t start = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n') {
            line l = {text + start, i + 1 - start};
            OOM_PUSH(out->items, out->len, out->cap, l);
            start = i + 1;
        }
    if (start < len) {
        line l = {text + start, len - start};
        OOM_PUSH(out->items, out->len, out->cap, l);
    }
}

static bool same_line(const line *a, const line *b)
{
    return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

typedef enum { OP_SAME, OP_DELETE, OP_INSERT } op_kind;

typedef struct {
    op_kind *items;
    size_t len, cap;
} op_list;

/* The shortest edit script from a[0..n) to b[0..m) (Myers 1986), appended
 * to ops; false when it is longer than MAX_EDIT_DISTANCE. */
static bool myers(const line *a, long n, const line *b, long m, op_list *ops)
{
    long max = n + m;
    if (max > MAX_EDIT_DISTANCE)
        max = MAX_EDIT_DISTANCE;
    long width = 2 * max + 2;
    long *v = oom_xcalloc((size_t)width, sizeof(long));
    long **trace = oom_xcalloc((size_t)max + 1, sizeof(long *));
    long found = -1;
    for (long d = 0; d <= max && found < 0; d++) {
        for (long k = -d; k <= d; k += 2) {
            long x = (k == -d || (k != d && v[k - 1 + max + 1] < v[k + 1 + max + 1])) ? v[k + 1 + max + 1]
                                                                                       : v[k - 1 + max + 1] + 1;
            long y = x - k;
            while (x < n && y < m && same_line(&a[x], &b[y]))
                x++, y++;
            v[k + max + 1] = x;
            if (x >= n && y >= m) {
                found = d;
                break;
            }
        }
        trace[d] = oom_xmalloc((size_t)width * sizeof(long));
        memcpy(trace[d], v, (size_t)width * sizeof(long));
    }
    bool ok = found >= 0;
    if (ok) {
        /* walk back from (n, m), collecting the operations in reverse */
        op_list rev = {NULL, 0, 0};
        long x = n, y = m;
        for (long d = found; d > 0; d--) {
            const long *pv = trace[d - 1];
            long k = x - y;
            long pk = (k == -d || (k != d && pv[k - 1 + max + 1] < pv[k + 1 + max + 1])) ? k + 1 : k - 1;
            long px = pv[pk + max + 1], py = px - pk;
            while (x > px && y > py) {
                OOM_PUSH(rev.items, rev.len, rev.cap, OP_SAME);
                x--, y--;
            }
            OOM_PUSH(rev.items, rev.len, rev.cap, x > px ? OP_DELETE : OP_INSERT);
            x = px;
            y = py;
        }
        while (x > 0 && y > 0) {
            OOM_PUSH(rev.items, rev.len, rev.cap, OP_SAME);
            x--, y--;
        }
        for (size_t i = rev.len; i-- > 0;)
            OOM_PUSH(ops->items, ops->len, ops->cap, rev.items[i]);
        free(rev.items);
    }
    for (long d = 0; d <= max; d++)
        free(trace[d]);
    free(trace);
    free(v);
    return ok;
}

static void edit_script(const line_list *a, const line_list *b, op_list *ops)
{
    size_t pre = 0, post = 0;
    while (pre < a->len && pre < b->len && same_line(&a->items[pre], &b->items[pre]))
        pre++;
    while (post < a->len - pre && post < b->len - pre &&
           same_line(&a->items[a->len - 1 - post], &b->items[b->len - 1 - post]))
        post++;
    for (size_t i = 0; i < pre; i++)
        OOM_PUSH(ops->items, ops->len, ops->cap, OP_SAME);
    long n = (long)(a->len - pre - post), m = (long)(b->len - pre - post);
    if (!myers(a->items + pre, n, b->items + pre, m, ops)) {
        for (long i = 0; i < n; i++)
            OOM_PUSH(ops->items, ops->len, ops->cap, OP_DELETE);
        for (long i = 0; i < m; i++)
            OOM_PUSH(ops->items, ops->len, ops->cap, OP_INSERT);
    }
    for (size_t i = 0; i < post; i++)
        OOM_PUSH(ops->items, ops->len, ops->cap, OP_SAME);
}

static void put_line(oom_buf *out, char mark, const line *l)
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
static void positions_at(const op_list *ops, size_t i, size_t *a, size_t *b)
{
    *a = *b = 0;
    for (size_t k = 0; k < i; k++) {
        *a += ops->items[k] != OP_INSERT;
        *b += ops->items[k] != OP_DELETE;
    }
}

static void put_hunk(oom_buf *out, const op_list *ops, size_t from, size_t to, const line_list *a,
                     const line_list *b)
{
    size_t ai, bi;
    positions_at(ops, from, &ai, &bi);
    size_t acount = 0, bcount = 0;
    for (size_t k = from; k < to; k++) {
        acount += ops->items[k] != OP_INSERT;
        bcount += ops->items[k] != OP_DELETE;
    }
    oom_buf_puts(out, "@@ ");
    put_range(out, '-', ai, acount);
    oom_buf_putc(out, ' ');
    put_range(out, '+', bi, bcount);
    oom_buf_puts(out, " @@\n");
    for (size_t k = from; k < to; k++) {
        if (ops->items[k] == OP_SAME)
            put_line(out, ' ', &a->items[ai++]), bi++;
        else if (ops->items[k] == OP_DELETE)
            put_line(out, '-', &a->items[ai++]);
        else
            put_line(out, '+', &b->items[bi++]);
    }
}

void oom_report_unified_diff(const char *path, const char *before, size_t before_len, const char *after,
                             size_t after_len, oom_buf *out)
{
    line_list a = {NULL, 0, 0}, b = {NULL, 0, 0};
    split_lines(before, before_len, &a);
    split_lines(after, after_len, &b);
    op_list ops = {NULL, 0, 0};
    edit_script(&a, &b, &ops);
    bool header = false;
    size_t i = 0;
    while (i < ops.len) {
        if (ops.items[i] == OP_SAME) {
            i++;
            continue;
        }
        /* a hunk: this change, its context, and every change whose context touches it */
        size_t from = i > CONTEXT_LINES ? i - CONTEXT_LINES : 0, end = i;
        for (;;) {
            while (end < ops.len && ops.items[end] != OP_SAME)
                end++;
            size_t same = 0;
            while (end + same < ops.len && ops.items[end + same] == OP_SAME)
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

/* util/linediff: the shortest edit script between the lines of two texts
 * (Myers 1986): O((N+M)D) time, and D, the number of differing lines, is
 * small for a file's fixes. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/linediff.h"
#include "oomlint/util.h"

#define CONTEXT_LINES 3
/* Beyond this many differing lines the middle of the texts is deleted and
 * inserted whole: still a correct script, found in bounded time. */
#define MAX_EDIT_DISTANCE 4000

void oom_line_split(const char *text, size_t len, oom_line_list *out)
{
    size_t start = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n') {
            oom_line l = {text + start, i + 1 - start};
            OOM_PUSH(out->items, out->len, out->cap, l);
            start = i + 1;
        }
    if (start < len) {
        oom_line l = {text + start, len - start};
        OOM_PUSH(out->items, out->len, out->cap, l);
    }
}

static bool same_line(const oom_line *a, const oom_line *b)
{
    return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

/* The shortest edit script from a[0..n) to b[0..m) (Myers 1986), appended
 * to ops; false when it is longer than MAX_EDIT_DISTANCE. */
static bool myers(const oom_line *a, long n, const oom_line *b, long m, oom_line_ops *ops)
{
    long max = n + m;
    if (max > MAX_EDIT_DISTANCE)
        max = MAX_EDIT_DISTANCE;
    long width = 2 * max + 3; /* k + 1 + max + 1 reaches 2 * max + 2 */
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
        oom_line_ops rev = {NULL, 0, 0};
        long x = n, y = m;
        for (long d = found; d > 0; d--) {
            const long *pv = trace[d - 1];
            long k = x - y;
            long pk = (k == -d || (k != d && pv[k - 1 + max + 1] < pv[k + 1 + max + 1])) ? k + 1 : k - 1;
            long px = pv[pk + max + 1], py = px - pk;
            while (x > px && y > py) {
                OOM_PUSH(rev.items, rev.len, rev.cap, OOM_LINE_SAME);
                x--, y--;
            }
            OOM_PUSH(rev.items, rev.len, rev.cap, x > px ? OOM_LINE_DELETE : OOM_LINE_INSERT);
            x = px;
            y = py;
        }
        while (x > 0 && y > 0) {
            OOM_PUSH(rev.items, rev.len, rev.cap, OOM_LINE_SAME);
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

void oom_line_diff(const oom_line_list *a, const oom_line_list *b, oom_line_ops *ops)
{
    size_t pre = 0, post = 0;
    while (pre < a->len && pre < b->len && same_line(&a->items[pre], &b->items[pre]))
        pre++;
    while (post < a->len - pre && post < b->len - pre &&
           same_line(&a->items[a->len - 1 - post], &b->items[b->len - 1 - post]))
        post++;
    for (size_t i = 0; i < pre; i++)
        OOM_PUSH(ops->items, ops->len, ops->cap, OOM_LINE_SAME);
    long n = (long)(a->len - pre - post), m = (long)(b->len - pre - post);
    if (!myers(a->items + pre, n, b->items + pre, m, ops)) {
        for (long i = 0; i < n; i++)
            OOM_PUSH(ops->items, ops->len, ops->cap, OOM_LINE_DELETE);
        for (long i = 0; i < m; i++)
            OOM_PUSH(ops->items, ops->len, ops->cap, OOM_LINE_INSERT);
    }
    for (size_t i = 0; i < post; i++)
        OOM_PUSH(ops->items, ops->len, ops->cap, OOM_LINE_SAME);
}


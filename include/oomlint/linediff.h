/* linediff: the shortest line-by-line edit script between two texts
 * (Myers' O(ND) algorithm, fast when few lines differ), for the unified
 * diffs of --diff and for carrying a notebook's fixed cells back to the
 * lines as the cells have them. */
#ifndef OOMLINT_LINEDIFF_H
#define OOMLINT_LINEDIFF_H

#include <stddef.h>

/* A line of a text, with its line break when it has one. */
typedef struct {
    const char *text;
    size_t len;
} oom_line;

typedef struct {
    oom_line *items;
    size_t len, cap;
} oom_line_list;

/* Splits text at its \n line breaks (the last line may lack one). */
void oom_line_split(const char *text, size_t len, oom_line_list *out);

typedef enum { OOM_LINE_SAME, OOM_LINE_DELETE, OOM_LINE_INSERT } oom_line_op;

typedef struct {
    oom_line_op *items;
    size_t len, cap;
} oom_line_ops;

/* The operations that turn a into b, in order: every line of a is SAME or
 * DELETE, every line of b SAME or INSERT. Beyond a bound on the number of
 * differing lines the middle is deleted and inserted whole (still correct). */
void oom_line_diff(const oom_line_list *a, const oom_line_list *b, oom_line_ops *ops);

#endif

/* fix/apply: one round of fixes on one text. Edits are taken in the
 * findings' order; a fix whose edit overlaps one already taken waits for the
 * next round (the linter runs again on the new text and makes it afresh),
 * so two fixes never fight over the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/fix.h"

bool oom_fix_applies(const oom_fix *f, oom_applicability max)
{
    return f && f->applicability != OOM_FIX_DISPLAY_ONLY && f->applicability <= max && f->edit_count > 0;
}

typedef struct {
    const oom_edit **items;
    size_t len, cap;
} edit_set;

static bool same_edit(const oom_edit *a, const oom_edit *b)
{
    return a->start_byte == b->start_byte && a->end_byte == b->end_byte && strcmp(a->content, b->content) == 0;
}

/* Two insertions at one place overlap (their order would be a guess); an
 * insertion at the edge of a replaced range does not. */
static bool overlaps(const oom_edit *a, const oom_edit *b)
{
    if (a->start_byte < b->end_byte && b->start_byte < a->end_byte)
        return true;
    return a->start_byte == a->end_byte && b->start_byte == b->end_byte && a->start_byte == b->start_byte;
}

/* Whether every edit of the fix is taken already or fits beside them. */
static bool fits(const edit_set *taken, const oom_fix *f, size_t len)
{
    for (size_t e = 0; e < f->edit_count; e++) {
        const oom_edit *edit = &f->edits[e];
        if (edit->start_byte > edit->end_byte || edit->end_byte > len)
            return false;
        for (size_t t = 0; t < taken->len; t++)
            if (!same_edit(edit, taken->items[t]) && overlaps(edit, taken->items[t]))
                return false;
    }
    return true;
}

static void take(edit_set *taken, const oom_fix *f)
{
    for (size_t e = 0; e < f->edit_count; e++) {
        bool known = false;
        for (size_t t = 0; t < taken->len && !known; t++)
            known = same_edit(&f->edits[e], taken->items[t]);
        if (!known)
            OOM_PUSH(taken->items, taken->len, taken->cap, &f->edits[e]);
    }
}

static int by_start(const void *pa, const void *pb)
{
    const oom_edit *a = *(const oom_edit *const *)pa, *b = *(const oom_edit *const *)pb;
    if (a->start_byte != b->start_byte)
        return a->start_byte < b->start_byte ? -1 : 1;
    return a->end_byte < b->end_byte ? -1 : a->end_byte > b->end_byte;
}

/* Each mark moves by what the edits before it add or take away. */
static void move_marks(const edit_set *taken, oom_fix_marks *marks)
{
    for (size_t m = 0; m < marks->count; m++) {
        uint32_t at = marks->at[m];
        long shift = 0;
        for (size_t t = 0; t < taken->len; t++) {
            const oom_edit *e = taken->items[t];
            if (e->start_byte >= at)
                continue; /* after the mark, or an insertion at it: the text after it */
            if (e->end_byte > at)
                marks->crossed = true;
            shift += (long)strlen(e->content) - (long)(e->end_byte - e->start_byte);
        }
        marks->at[m] = (uint32_t)((long)at + shift);
    }
}

size_t oom_fix_apply(const char *text, size_t len, const oom_diag_list *diags, oom_applicability max,
                     const unsigned char *allow, oom_buf *out, unsigned char *applied)
{
    return oom_fix_apply_marked(text, len, diags, max, allow, out, applied, NULL);
}

size_t oom_fix_apply_marked(const char *text, size_t len, const oom_diag_list *diags, oom_applicability max,
                            const unsigned char *allow, oom_buf *out, unsigned char *applied, oom_fix_marks *marks)
{
    edit_set taken = {NULL, 0, 0};
    size_t fixes = 0;
    for (size_t i = 0; i < diags->len; i++) {
        const oom_fix *f = diags->items[i].fix;
        bool ok = (!allow || allow[i]) && oom_fix_applies(f, max) && fits(&taken, f, len);
        if (ok) {
            take(&taken, f);
            fixes++;
        }
        if (applied)
            applied[i] = ok;
    }
    /* The edits never overlap, so making them from the end of the text to its
     * start, or copying the text once with each edit in its place as done
     * here, gives the same bytes: every offset is one of the original text. */
    if (taken.len > 1)
        qsort(taken.items, taken.len, sizeof *taken.items, by_start);
    oom_buf_clear(out);
    uint32_t at = 0;
    for (size_t t = 0; t < taken.len; t++) {
        const oom_edit *e = taken.items[t];
        oom_buf_append(out, text + at, e->start_byte - at);
        oom_buf_puts(out, e->content);
        at = e->end_byte;
    }
    oom_buf_append(out, text + at, len - at);
    if (marks)
        move_marks(&taken, marks);
    free(taken.items);
    return fixes;
}

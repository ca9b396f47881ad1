/* causes: one finding per cause. A rule that says its findings in one
 * function share a cause ("one_per": "function") would otherwise report a
 * hard-coded GPU six times for three `.cuda(0)` lines, or a missing
 * no_grad once per forward of one evaluation function; the user has one
 * thing to fix. The first place stands for the cause, the others become
 * its related locations (SARIF relatedLocations, JSON "related", the text
 * report's frame), and their fixes join its fix so that --fix still
 * reaches every place (or, where one place has none, the cause has none). */
#include <stdlib.h>
#include <string.h>

#include "oomlint/diag.h"
#include "oomlint/util.h"

static bool same_cause(const oom_diag *a, const oom_diag *b)
{
    return a->cause_scope == b->cause_scope && strcmp(a->code, b->code) == 0 && strcmp(a->path, b->path) == 0;
}

static bool same_edit(const oom_edit *a, const oom_edit *b)
{
    return a->start_byte == b->start_byte && a->end_byte == b->end_byte && strcmp(a->content, b->content) == 0;
}

/* Two edits that touch the same bytes (or insert at the same place) cannot
 * both be applied. */
static bool edits_clash(const oom_edit *a, const oom_edit *b)
{
    if (a->start_byte == b->start_byte)
        return true;
    return a->start_byte < b->end_byte && b->start_byte < a->end_byte;
}

static void insert_edit(oom_fix *f, const oom_edit *e)
{
    size_t at = 0;
    while (at < f->edit_count && f->edits[at].start_byte < e->start_byte)
        at++;
    f->edits = oom_xrealloc(f->edits, (f->edit_count + 1) * sizeof *f->edits);
    memmove(f->edits + at + 1, f->edits + at, (f->edit_count - at) * sizeof *f->edits);
    f->edits[at] = *e;
    f->edits[at].content = oom_xstrdup(e->content);
    f->edit_count++;
}

/* Adds `from`'s edits to `into`: an edit already there (one decorator for
 * the whole function) once. The merged fix is as safe as the least safe of
 * the two, and its preview, which showed `into`'s lines only, goes rather
 * than mislead. False when `from` cannot join: it has no fix, or an edit
 * of it clashes with one there; then no fix resolves the whole cause. */
static bool merge_fix(oom_fix *into, const oom_fix *from)
{
    if (!into || !from)
        return false;
    bool added = false;
    for (size_t i = 0; i < from->edit_count; i++) {
        const oom_edit *e = &from->edits[i];
        bool there = false;
        for (size_t k = 0; k < into->edit_count && !there; k++) {
            if (same_edit(e, &into->edits[k]))
                there = true;
            else if (edits_clash(e, &into->edits[k]))
                return false;
        }
        if (!there) {
            insert_edit(into, e);
            added = true;
        }
    }
    if (from->applicability > into->applicability)
        into->applicability = from->applicability;
    if (added) {
        free(into->preview_before);
        free(into->preview_after);
        into->preview_before = into->preview_after = NULL;
    }
    return true;
}

/* "... (also at lines 12 and 15)" */
static void name_other_places(oom_diag *d, size_t first_folded)
{
    oom_buf b;
    oom_buf_init(&b);
    oom_buf_puts(&b, d->message);
    size_t n = d->related_count - first_folded;
    oom_buf_printf(&b, " (also at line%s ", n == 1 ? "" : "s");
    for (size_t i = first_folded; i < d->related_count; i++) {
        const char *sep = i == first_folded ? "" : i + 1 == d->related_count ? " and " : ", ";
        oom_buf_printf(&b, "%s%u", sep, d->related[i].row);
    }
    oom_buf_putc(&b, ')');
    free(d->message);
    d->message = oom_buf_take(&b);
}

void oom_diag_list_fold_causes(oom_diag_list *l)
{
    if (l->len < 2)
        return;
    unsigned char *drop = oom_xcalloc(l->len, 1);
    /* per finding that stands for a cause, where its folded places begin
     * among its related locations (a DeepSpeed finding has others before) */
    size_t *first_folded = oom_xcalloc(l->len, sizeof *first_folded);
    size_t *folded = oom_xcalloc(l->len, sizeof *folded);
    size_t file_start = 0;
    for (size_t i = 0; i < l->len; i++) {
        oom_diag *d = &l->items[i];
        if (i > 0 && strcmp(d->path, l->items[i - 1].path) != 0)
            file_start = i;
        if (!d->cause_scope || d->cell)
            continue;
        size_t p = file_start;
        while (p < i && (drop[p] || !l->items[p].cause_scope || l->items[p].cell || !same_cause(&l->items[p], d)))
            p++;
        if (p == i)
            continue;
        oom_diag *primary = &l->items[p];
        if (folded[p]++ == 0)
            first_folded[p] = primary->related_count;
        oom_diag_add_related(primary, d->path, d->start_row, d->message);
        /* --fix applies a finding's fix as one: a fix that would leave a
         * place of the cause as it was is no fix of the cause */
        if (!merge_fix(primary->fix, d->fix)) {
            oom_fix_free(primary->fix);
            primary->fix = NULL;
        }
        drop[i] = 1;
    }
    for (size_t i = 0; i < l->len; i++)
        if (folded[i])
            name_other_places(&l->items[i], first_folded[i]);
    oom_diag_list_remove_if_marked(l, drop);
    free(folded);
    free(first_folded);
    free(drop);
}

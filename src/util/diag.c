/* diag: storage and ordering of findings. */
#include "oomlint/diag.h"

#include <stdlib.h>
#include <string.h>

#include "oomlint/util.h"

const char *oom_severity_name(oom_severity s)
{
    switch (s) {
    case OOM_SEV_ERROR:
        return "error";
    case OOM_SEV_WARNING:
        return "warning";
    default:
        return "info";
    }
}

int oom_severity_parse(const char *name, oom_severity *out)
{
    if (strcmp(name, "error") == 0)
        *out = OOM_SEV_ERROR;
    else if (strcmp(name, "warning") == 0)
        *out = OOM_SEV_WARNING;
    else if (strcmp(name, "info") == 0)
        *out = OOM_SEV_INFO;
    else
        return -1;
    return 0;
}

const char *oom_applicability_name(oom_applicability a)
{
    switch (a) {
    case OOM_FIX_SAFE:
        return "safe";
    case OOM_FIX_UNSAFE:
        return "unsafe";
    default:
        return "display-only";
    }
}

int oom_applicability_parse(const char *name, oom_applicability *out)
{
    if (strcmp(name, "safe") == 0)
        *out = OOM_FIX_SAFE;
    else if (strcmp(name, "unsafe") == 0)
        *out = OOM_FIX_UNSAFE;
    else if (strcmp(name, "display-only") == 0)
        *out = OOM_FIX_DISPLAY_ONLY;
    else
        return -1;
    return 0;
}

void oom_fix_free(oom_fix *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->edit_count; i++)
        free(f->edits[i].content);
    free(f->edits);
    free(f->message);
    free(f->preview_before);
    free(f->preview_after);
    free(f);
}

oom_fix *oom_fix_copy(const oom_fix *f)
{
    if (!f)
        return NULL;
    oom_fix *c = oom_xcalloc(1, sizeof *c);
    c->applicability = f->applicability;
    c->message = oom_xstrdup(f->message);
    c->edit_count = f->edit_count;
    c->preview_row = f->preview_row;
    c->preview_before = f->preview_before ? oom_xstrdup(f->preview_before) : NULL;
    c->preview_after = f->preview_after ? oom_xstrdup(f->preview_after) : NULL;
    c->edits = oom_xcalloc(f->edit_count ? f->edit_count : 1, sizeof(oom_edit));
    for (size_t i = 0; i < f->edit_count; i++) {
        c->edits[i] = f->edits[i];
        c->edits[i].content = oom_xstrdup(f->edits[i].content);
    }
    return c;
}

static char *dup_or_null(const char *s)
{
    return s ? oom_xstrdup(s) : NULL;
}

oom_diag *oom_diag_list_add(oom_diag_list *l, const char *code, const char *name,
                            oom_severity sev, const char *path, const char *message,
                            const char *help, const char *url)
{
    oom_grow((void **)&l->items, &l->cap, l->len + 1, sizeof(oom_diag));
    oom_diag *d = &l->items[l->len++];
    memset(d, 0, sizeof(*d));
    d->code = oom_xstrdup(code);
    d->name = oom_xstrdup(name);
    d->severity = sev;
    d->path = oom_xstrdup(path);
    d->message = oom_xstrdup(message);
    d->help = dup_or_null(help);
    d->url = dup_or_null(url);
    d->start_row = d->start_col = d->end_row = d->end_col = 1;
    return d;
}

void oom_diag_add_related(oom_diag *d, const char *path, uint32_t row, const char *message)
{
    d->related = oom_xrealloc(d->related, (d->related_count + 1) * sizeof *d->related);
    d->related[d->related_count++] = (oom_related){oom_xstrdup(path), row, oom_xstrdup(message)};
}

oom_diag *oom_diag_list_add_copy(oom_diag_list *l, const oom_diag *d)
{
    oom_diag *c = oom_diag_list_add(l, d->code, d->name, d->severity, d->path, d->message, d->help, d->url);
    char *code = c->code, *name = c->name, *path = c->path, *message = c->message, *help = c->help, *url = c->url;
    *c = *d; /* the positions and flags; every pointer is replaced below */
    c->code = code;
    c->name = name;
    c->path = path;
    c->message = message;
    c->help = help;
    c->url = url;
    c->context = dup_or_null(d->context);
    c->needs_grad_in = dup_or_null(d->needs_grad_in);
    c->needs_project = dup_or_null(d->needs_project);
    c->unless_project = dup_or_null(d->unless_project);
    c->fix = d->fix ? oom_fix_copy(d->fix) : NULL;
    c->related = NULL;
    c->related_count = 0;
    for (size_t i = 0; i < d->related_count; i++)
        oom_diag_add_related(c, d->related[i].path, d->related[i].row, d->related[i].message);
    return c;
}

void oom_diag_list_move(oom_diag_list *to, oom_diag_list *from)
{
    oom_grow((void **)&to->items, &to->cap, to->len + from->len, sizeof(oom_diag));
    if (from->len)
        memcpy(to->items + to->len, from->items, from->len * sizeof(oom_diag));
    to->len += from->len;
    free(from->items);
    from->items = NULL;
    from->len = from->cap = 0;
}

static void diag_free(oom_diag *d)
{
    free(d->code);
    free(d->name);
    free(d->path);
    free(d->message);
    free(d->help);
    free(d->url);
    free(d->context);
    free(d->needs_grad_in);
    free(d->needs_project);
    free(d->unless_project);
    oom_fix_free(d->fix);
    for (size_t i = 0; i < d->related_count; i++) {
        free(d->related[i].path);
        free(d->related[i].message);
    }
    free(d->related);
}

void oom_diag_list_remove_if_marked(oom_diag_list *l, const unsigned char *drop)
{
    size_t w = 0;
    for (size_t r = 0; r < l->len; r++) {
        if (drop[r])
            diag_free(&l->items[r]);
        else
            l->items[w++] = l->items[r];
    }
    l->len = w;
}

static int cmp_u32(uint32_t a, uint32_t b)
{
    return a < b ? -1 : a > b;
}

static int diag_cmp(const void *pa, const void *pb)
{
    const oom_diag *a = pa, *b = pb;
    int c = strcmp(a->path, b->path);
    if (c)
        return c;
    if ((c = cmp_u32(a->cell, b->cell)))
        return c;
    if ((c = cmp_u32(a->start_row, b->start_row)))
        return c;
    if ((c = cmp_u32(a->start_col, b->start_col)))
        return c;
    if ((c = strcmp(a->code, b->code)))
        return c;
    /* the longer span first: an enclosing finding comes before what it holds */
    if ((c = cmp_u32(b->end_row, a->end_row)))
        return c;
    return cmp_u32(b->end_col, a->end_col);
}

void oom_diag_list_sort(oom_diag_list *l)
{
    if (l->len > 1)
        qsort(l->items, l->len, sizeof(oom_diag), diag_cmp);
}

void oom_diag_list_free(oom_diag_list *l)
{
    for (size_t i = 0; i < l->len; i++)
        diag_free(&l->items[i]);
    free(l->items);
    l->items = NULL;
    l->len = l->cap = 0;
}

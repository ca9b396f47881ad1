/* report/fixes: what the text formats say about fixes: how many findings
 * --fix (or --unsafe-fixes) would fix, and what a --fix run fixed. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/report.h"
#include "oomlint/text.h"

void oom_fix_summary_add(oom_fix_summary *s, const char *path, const char *code, const char *name)
{
    s->total++;
    size_t at = 0;
    for (; at < s->len; at++) {
        int c = strcmp(s->items[at].path, path);
        if (c == 0)
            c = strcmp(s->items[at].code, code);
        if (c == 0) {
            s->items[at].count++;
            return;
        }
        if (c > 0)
            break;
    }
    oom_fixed_entry e = {oom_xstrdup(path), oom_xstrdup(code), oom_xstrdup(name), 1};
    OOM_PUSH(s->items, s->len, s->cap, e);
    memmove(&s->items[at + 1], &s->items[at], (s->len - 1 - at) * sizeof e);
    s->items[at] = e;
}

void oom_fix_summary_free(oom_fix_summary *s)
{
    for (size_t i = 0; i < s->len; i++) {
        free(s->items[i].path);
        free(s->items[i].code);
        free(s->items[i].name);
    }
    free(s->items);
    memset(s, 0, sizeof *s);
}

void oom_report_fix_summary(const oom_fix_summary *fixed, bool show_fixes, oom_buf *out)
{
    if (fixed->total == 0)
        return;
    oom_buf_printf(out, "Fixed %zu problem%s in %zu file%s%s\n", fixed->total, fixed->total == 1 ? "" : "s",
                   fixed->files, fixed->files == 1 ? "" : "s", show_fixes ? ":" : ".");
    if (!show_fixes)
        return;
    for (size_t i = 0; i < fixed->len; i++) {
        const oom_fixed_entry *e = &fixed->items[i];
        if (i == 0 || strcmp(e->path, fixed->items[i - 1].path) != 0) {
            oom_buf_puts(out, "- ");
            oom_text_append_display(out, e->path, strlen(e->path), 0);
            oom_buf_puts(out, ":\n");
        }
        oom_buf_printf(out, "    %zu \xC3\x97 %s (%s)\n", e->count, e->code, e->name);
    }
}

/* "[*] 3 fixable with `--fix`, 2 more with `--unsafe-fixes`." after the summary. */
void oom_report_fixable_line(const oom_diag_list *diags, oom_buf *out)
{
    size_t now = 0, unsafe = 0;
    for (size_t i = 0; i < diags->len; i++) {
        now += diags->items[i].fixable == OOM_FIXABLE_NOW;
        unsafe += diags->items[i].fixable == OOM_FIXABLE_WITH_UNSAFE;
    }
    if (now && unsafe)
        oom_buf_printf(out, "[*] %zu fixable with `--fix`, %zu more with `--unsafe-fixes`.\n", now, unsafe);
    else if (now)
        oom_buf_printf(out, "[*] %zu fixable with `--fix`.\n", now);
    else if (unsafe)
        oom_buf_printf(out, "No fixes with `--fix`; %zu with `--unsafe-fixes`.\n", unsafe);
}

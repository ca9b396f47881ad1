/* select: which rule codes a run reports (--select / --ignore). */
#ifndef OOMLINT_SELECT_H
#define OOMLINT_SELECT_H

#include <stdbool.h>

#include "oomlint/util.h"

typedef struct {
    oom_strlist select; /* empty: the default rule set */
    oom_strlist ignore;
    oom_strlist extend; /* added to select (or to the default set): Ruff's extend-select */
} oom_selection;

/* Adds comma-separated codes or prefixes ("OOM2,OOM101"). Returns -1 and
 * names the bad entry in err when one is not a code prefix (letters then digits). */
int oom_selection_parse_list(oom_strlist *list, const char *csv, oom_buf *err);
/* The longest matching prefix decides, as in Ruff: `--select OOM2 --ignore
 * OOM201` keeps OOM202; `--select OOM201 --ignore OOM2` keeps OOM201.
 * Without --select, the rules on by default run (`on_by_default`); a
 * --select that names a rule or a prefix of it turns an opt-in rule on;
 * --extend-select does the same on top of --select or the default set, in
 * the same longest-prefix contest with --ignore. */
bool oom_selection_enabled(const oom_selection *sel, const char *code, bool on_by_default);
void oom_selection_free(oom_selection *sel);

#endif

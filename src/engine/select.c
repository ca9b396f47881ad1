/* engine/select: code selection by prefix. */
#include "oomlint/select.h"

#include <stdlib.h>

#include <ctype.h>
#include <string.h>

static bool valid_prefix(const char *s)
{
    size_t i = 0;
    while (isupper((unsigned char)s[i]))
        i++;
    if (i == 0)
        return strcmp(s, "ALL") == 0;
    while (isdigit((unsigned char)s[i]))
        i++;
    return s[i] == '\0';
}

int oom_selection_parse_list(oom_strlist *list, const char *csv, oom_buf *err)
{
    const char *p = csv;
    while (*p) {
        while (*p == ',' || *p == ' ')
            p++;
        const char *start = p;
        while (*p && *p != ',')
            p++;
        const char *end = p;
        while (end > start && end[-1] == ' ')
            end--;
        if (end == start)
            continue;
        char *code = oom_xstrndup(start, (size_t)(end - start));
        for (char *c = code; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        if (!valid_prefix(code)) {
            oom_buf_clear(err);
            oom_buf_printf(err, "'%s' is not a rule code or prefix (like OOM201 or OOM2)", code);
            free(code);
            return -1;
        }
        oom_strlist_push(list, code);
        free(code);
    }
    return 0;
}

static size_t longest_match(const oom_strlist *l, const char *code)
{
    size_t best = 0;
    for (size_t i = 0; i < l->len; i++) {
        const char *p = l->items[i];
        size_t n = strcmp(p, "ALL") == 0 ? 0 : strlen(p);
        if (strncmp(code, p, n) == 0 && n + 1 > best)
            best = n + 1; /* +1 so that "ALL" (length 0) still counts as a match */
    }
    return best;
}

bool oom_selection_enabled(const oom_selection *sel, const char *code, bool on_by_default)
{
    size_t s = sel->select.len ? longest_match(&sel->select, code) : on_by_default ? 1 : 0;
    size_t x = longest_match(&sel->extend, code);
    if (x > s)
        s = x;
    size_t i = longest_match(&sel->ignore, code);
    return s > i; /* a longer (more specific) match wins; a tie goes to --ignore */
}

void oom_selection_free(oom_selection *sel)
{
    oom_strlist_free(&sel->select);
    oom_strlist_free(&sel->ignore);
    oom_strlist_free(&sel->extend);
}

/* suppress: parsing suppression comments and answering "is this finding
 * silenced?". */
#include "oomlint/suppress.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static bool match_word_ci(const char **p, const char *end, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(end - *p) < n || strncasecmp(*p, word, n) != 0)
        return false;
    *p += n;
    return true;
}

/* Reads "OOM201, OOM202" (commas and/or spaces) into codes; stops at
 * anything that is not a code. Returns the number read. */
static size_t parse_codes(const char *p, const char *end, oom_strlist *codes)
{
    size_t count = 0;
    for (;;) {
        p = skip_space(p, end);
        const char *start = p;
        while (p < end && isupper((unsigned char)*p))
            p++;
        if (p == start)
            return count;
        while (p < end && isdigit((unsigned char)*p))
            p++;
        char *code = oom_xstrndup(start, (size_t)(p - start));
        oom_strlist_push(codes, code);
        free(code);
        count++;
        p = skip_space(p, end);
        if (p < end && *p == ',')
            p++;
    }
}

/* "noqa" or "noqa: CODES" at p. */
static bool parse_noqa(const char *p, const char *end, oom_suppression *out)
{
    if (!match_word_ci(&p, end, "noqa"))
        return false;
    if (p < end && isalnum((unsigned char)*p))
        return false; /* "noqanything" */
    out->scope = OOM_SUPPRESS_LINE;
    const char *q = skip_space(p, end);
    if (q < end && *q == ':') {
        if (parse_codes(q + 1, end, &out->codes) > 0)
            return true;
    }
    out->all_codes = true;
    return true;
}

/* "oomlint: disable=CODES", "oomlint: disable-file", "oomlint: disable-file=CODES". */
static bool parse_oomlint(const char *p, const char *end, bool own_line, oom_suppression *out)
{
    if (!match_word_ci(&p, end, "oomlint"))
        return false;
    p = skip_space(p, end);
    if (p >= end || *p != ':')
        return false;
    p = skip_space(p + 1, end);
    bool file = false;
    if (match_word_ci(&p, end, "disable-file"))
        file = true;
    else if (!match_word_ci(&p, end, "disable"))
        return false;
    if (file && !own_line)
        return false; /* disable-file must stand on its own line */
    p = skip_space(p, end);
    if (p < end && *p == '=') {
        if (parse_codes(p + 1, end, &out->codes) == 0)
            return false;
    } else if (!file) {
        return false; /* a line-level disable names its codes */
    } else {
        out->all_codes = true;
    }
    out->scope = file ? OOM_SUPPRESS_FILE : OOM_SUPPRESS_LINE;
    return true;
}

void oom_suppression_parse(const char *comment, size_t len, bool own_line, oom_suppression *out)
{
    memset(out, 0, sizeof(*out));
    const char *end = comment + len;
    const char *p = comment;
    while (p < end) {
        const char *hash = memchr(p, '#', (size_t)(end - p));
        if (!hash)
            return;
        const char *q = skip_space(hash + 1, end);
        if (parse_noqa(q, end, out) || parse_oomlint(q, end, own_line, out))
            return;
        oom_strlist_free(&out->codes);
        out->all_codes = false;
        out->scope = OOM_SUPPRESS_NONE;
        p = hash + 1;
    }
}

void oom_suppression_free(oom_suppression *s)
{
    oom_strlist_free(&s->codes);
    s->scope = OOM_SUPPRESS_NONE;
}

bool oom_suppression_covers(const oom_suppression *s, const char *code)
{
    if (s->scope == OOM_SUPPRESS_NONE)
        return false;
    if (s->all_codes)
        return true;
    for (size_t i = 0; i < s->codes.len; i++)
        if (strncmp(code, s->codes.items[i], strlen(s->codes.items[i])) == 0)
            return true;
    return false;
}

void oom_suppression_set_add(oom_suppression_set *set, uint32_t line, oom_suppression *s)
{
    if (s->scope == OOM_SUPPRESS_FILE) {
        OOM_PUSH(set->file_items, set->file_count, set->file_cap, *s);
        return;
    }
    oom_line_suppression ls = {line, *s};
    OOM_PUSH(set->line_items, set->line_count, set->line_cap, ls);
}

bool oom_suppression_set_covers(const oom_suppression_set *set, uint32_t line, const char *code)
{
    for (size_t i = 0; i < set->file_count; i++)
        if (oom_suppression_covers(&set->file_items[i], code))
            return true;
    for (size_t i = 0; i < set->line_count; i++)
        if (set->line_items[i].line == line &&
            oom_suppression_covers(&set->line_items[i].suppression, code))
            return true;
    return false;
}

void oom_suppression_set_free(oom_suppression_set *set)
{
    for (size_t i = 0; i < set->line_count; i++)
        oom_suppression_free(&set->line_items[i].suppression);
    for (size_t i = 0; i < set->file_count; i++)
        oom_suppression_free(&set->file_items[i]);
    free(set->line_items);
    free(set->file_items);
    memset(set, 0, sizeof(*set));
}

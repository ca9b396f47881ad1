/* query/compare: matches as canonical lines, so that two engines' matches
 * can be compared as sets (the match-diff tool, the unit tests and the
 * differential fuzz target all use this one form). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/query.h"
#include "oomlint/util.h"

#define MATCH_LINE_CAPTURES 64

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void oom_match_set_add(oom_match_set *s, const TSQueryMatch *m, oom_capture_name_fn name,
                       const void *query)
{
    char parts[MATCH_LINE_CAPTURES][96];
    uint16_t count = m->capture_count < MATCH_LINE_CAPTURES ? m->capture_count : MATCH_LINE_CAPTURES;
    for (uint16_t i = 0; i < count; i++) {
        uint32_t len;
        const char *cn = name(query, m->captures[i].index, &len);
        snprintf(parts[i], sizeof parts[i], "%.*s@%u-%u", (int)(len > 48 ? 48 : len), cn,
                 ts_node_start_byte(m->captures[i].node), ts_node_end_byte(m->captures[i].node));
    }
    /* by name and position, so both engines' capture orders agree */
    qsort(parts, count, sizeof parts[0], (int (*)(const void *, const void *))strcmp);
    oom_buf b;
    oom_buf_init(&b);
    oom_buf_printf(&b, "p%u:", m->pattern_index);
    for (uint16_t i = 0; i < count; i++)
        oom_buf_printf(&b, " %s", parts[i]);
    OOM_PUSH(s->items, s->len, s->cap, oom_buf_take(&b));
}

void oom_match_set_finish(oom_match_set *s)
{
    if (s->len > 1)
        qsort(s->items, s->len, sizeof(char *), cmp_line);
    size_t w = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (w > 0 && strcmp(s->items[w - 1], s->items[i]) == 0) {
            free(s->items[i]);
            continue;
        }
        s->items[w++] = s->items[i];
    }
    s->len = w;
}

size_t oom_match_set_diff(const oom_match_set *a, const oom_match_set *b, oom_diff_fn each, void *ctx)
{
    size_t i = 0, j = 0, diffs = 0;
    while (i < a->len || j < b->len) {
        int c = i == a->len ? 1 : j == b->len ? -1 : strcmp(a->items[i], b->items[j]);
        if (c == 0) {
            i++, j++;
            continue;
        }
        if (each)
            each(ctx, c < 0, c < 0 ? a->items[i] : b->items[j]);
        diffs++;
        if (c < 0)
            i++;
        else
            j++;
    }
    return diffs;
}

void oom_match_set_free(oom_match_set *s)
{
    for (size_t i = 0; i < s->len; i++)
        free(s->items[i]);
    free(s->items);
    memset(s, 0, sizeof(*s));
}

const char *oom_query_capture_name_fn_native(const void *q, uint32_t id, uint32_t *len)
{
    return oom_query_capture_name_for_id(q, id, len);
}

const char *oom_query_capture_name_fn_tree_sitter(const void *q, uint32_t id, uint32_t *len)
{
    return ts_query_capture_name_for_id(q, id, len);
}

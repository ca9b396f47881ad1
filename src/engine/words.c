/* engine/words: the words a pattern's matches need, tested once per file.
 *
 * Most built-in patterns can only match in a file that contains a certain
 * word: `#oom-qualname? @fn "torch.autograd.set_detect_anomaly"` needs
 * `set_detect_anomaly` somewhere (in the call or in the import that aliases
 * it: a dotted name is made of the file's own identifiers), `#eq? @kw
 * "retain_graph"` on an identifier needs `retain_graph`. A file's words are
 * looked up once, in one pass over its text, and the patterns whose words
 * are all missing are not run on it at all. In a file that imports no torch
 * that is most of them.
 *
 * A clause is "one of these words"; a pattern runs when each of its clauses
 * has a word in the file. Only predicates on captures that every match binds
 * give clauses (a predicate on an optional capture that is absent holds), so
 * the filter never drops a pattern that could match. Words in strings and
 * comments count too: the filter may let a pattern run that cannot match,
 * never the reverse. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct oom_word_clause {
    uint32_t pattern;
    uint32_t first, count; /* word ids in w->ids */
} clause;

/* [A-Za-z0-9_] by byte: the scan below reads every byte of every file, and
 * a look-up is cheaper there than the comparisons. */
static const unsigned char word_chars[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, /* 0-9 */
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* A-O */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, /* P-Z, _ */
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* a-o */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, /* p-z */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static bool word_char(unsigned char c)
{
    return word_chars[c];
}

bool oom_words_is_word(const char *s)
{
    if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (const char *p = s; *p; p++)
        if (!word_char((unsigned char)*p))
            return false;
    return true;
}

static uint32_t hash_word(const char *s, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static uint32_t find_word(const oom_word_filter *w, const char *s, size_t len)
{
    if (!w->slot_mask || len < w->min_len || len > w->max_len)
        return UINT32_MAX;
    for (uint32_t at = hash_word(s, len) & w->slot_mask;; at = (at + 1) & w->slot_mask) {
        uint32_t id = w->slots[at];
        if (id == 0)
            return UINT32_MAX;
        const char *have = w->words[id - 1];
        if (strlen(have) == len && memcmp(have, s, len) == 0)
            return id - 1;
    }
}

static void rehash(oom_word_filter *w)
{
    uint32_t size = 16;
    while (size < 2 * w->word_count)
        size *= 2;
    free(w->slots);
    w->slots = oom_xcalloc(size, sizeof(uint32_t));
    w->slot_mask = size - 1;
    for (uint32_t id = 0; id < w->word_count; id++) {
        const char *s = w->words[id];
        uint32_t at = hash_word(s, strlen(s)) & w->slot_mask;
        while (w->slots[at])
            at = (at + 1) & w->slot_mask;
        w->slots[at] = id + 1;
    }
}

static uint32_t intern(oom_word_filter *w, const char *s)
{
    size_t len = strlen(s);
    uint32_t id = find_word(w, s, len);
    if (id != UINT32_MAX)
        return id;
    OOM_PUSH(w->words, w->word_count, w->word_cap, oom_xstrdup(s));
    if (len < w->min_len || w->word_count == 1)
        w->min_len = (uint32_t)len;
    if (len > w->max_len)
        w->max_len = (uint32_t)len;
    rehash(w);
    return w->word_count - 1;
}

void oom_words_add_clause(oom_word_filter *w, uint32_t pattern, const char *const *words, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!oom_words_is_word(words[i]))
            return; /* not one identifier: the filter cannot test it */
    clause c = {pattern, (uint32_t)w->id_count, (uint32_t)count};
    for (size_t i = 0; i < count; i++) {
        uint32_t id = intern(w, words[i]);
        OOM_PUSH(w->ids, w->id_count, w->id_cap, id);
    }
    OOM_PUSH(w->clauses, w->clause_count, w->clause_cap, c);
}

bool oom_words_filters(const oom_word_filter *w)
{
    return w->clause_count > 0;
}

static void mark(const oom_word_filter *w, const char *s, size_t len, uint8_t *present)
{
    uint32_t id = find_word(w, s, len);
    if (id != UINT32_MAX)
        present[id] = 1;
}

/* Marks in `present` the filter's words that occur in the text: each run of
 * word characters; in a run that starts with a digit, each of its tails
 * that starts with a letter or `_` too, since a number can touch a name
 * (`0xfor`, `1if` tokenize as a number and a name). */
static void scan_words(const oom_word_filter *w, const char *text, size_t len, uint8_t *present)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && !word_char((unsigned char)text[i]))
            i++;
        size_t start = i;
        while (i < len && word_char((unsigned char)text[i]))
            i++;
        if (start < i && text[start] >= '0' && text[start] <= '9') {
            for (size_t j = start + 1; j < i; j++)
                if (text[j] < '0' || text[j] > '9')
                    mark(w, text + j, i - j, present);
        } else if (start < i) {
            mark(w, text + start, i - start, present);
        }
    }
}

void oom_words_enable(const oom_word_filter *w, const char *text, size_t len, uint8_t *present,
                      uint8_t *on, uint32_t pattern_count)
{
    memset(on, 1, pattern_count);
    if (!w->clause_count)
        return;
    memset(present, 0, w->word_count);
    scan_words(w, text, len, present);
    for (size_t c = 0; c < w->clause_count; c++) {
        const clause *cl = &w->clauses[c];
        bool any = false;
        for (uint32_t k = 0; k < cl->count && !any; k++)
            any = present[w->ids[cl->first + k]];
        if (!any && cl->pattern < pattern_count)
            on[cl->pattern] = 0;
    }
}

void oom_words_free(oom_word_filter *w)
{
    for (uint32_t i = 0; i < w->word_count; i++)
        free(w->words[i]);
    free(w->words);
    free(w->slots);
    free(w->ids);
    free(w->clauses);
    memset(w, 0, sizeof(*w));
}

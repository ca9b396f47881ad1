/* model/rolememo: the roles' answers kept per model, and the conditions an
 * answer waits on in other files. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roles.h"

/* ---- answers kept -------------------------------------------------------------- */

/* The rules ask about the same expressions and names many times (every
 * rule, every predicate): answers are kept per model, keyed by what was
 * asked (kind), where (a byte offset) and about which text. */
struct oom_role_memo {
    memo_slot *slots;
    uint32_t mask, used;
};

static uint32_t memo_hash(int kind, uint32_t at, const char *text, uint32_t len)
{
    uint32_t h = 2166136261u ^ (uint32_t)kind;
    h = (h ^ at) * 16777619u;
    h = (h ^ len) * 16777619u;
    if (kind == MEMO_ATTR || kind == MEMO_USED) /* by the text, wherever it is read */
        for (uint32_t i = 0; i < len; i++)
            h = (h ^ (unsigned char)text[i]) * 16777619u;
    else
        h = (h ^ (uint32_t)(uintptr_t)text) * 16777619u;
    return h ^ (h >> 15);
}

memo_slot *oom_roles_memo_find(const oom_pymodel *m, int kind, uint32_t at, const char *text, uint32_t len)
{
    struct oom_role_memo *t = m->role_memo;
    if (!t)
        return NULL;
    for (uint32_t i = memo_hash(kind, at, text, len) & t->mask;; i = (i + 1) & t->mask) {
        memo_slot *s = &t->slots[i];
        if (!s->text)
            return NULL;
        if (s->kind == kind && s->at == at && s->len == len &&
            (s->text == text || ((kind == MEMO_ATTR || kind == MEMO_USED) && memcmp(s->text, text, len) == 0)))
            return s;
    }
}

void oom_roles_memo_put_cond(const oom_pymodel *cm, int kind, uint32_t at, const char *text, uint32_t len, int value,
                          char *cond);

void oom_roles_memo_put(const oom_pymodel *cm, int kind, uint32_t at, const char *text, uint32_t len, int value)
{
    oom_roles_memo_put_cond(cm, kind, at, text, len, value, NULL);
}

/* Keeps `cond` (owned from now on). */
void oom_roles_memo_put_cond(const oom_pymodel *cm, int kind, uint32_t at, const char *text, uint32_t len, int value,
                          char *cond)
{
    oom_pymodel *m = (oom_pymodel *)cm; /* one thread owns the model */
    struct oom_role_memo *t = m->role_memo;
    if (!t) {
        t = m->role_memo = oom_xcalloc(1, sizeof *t);
        t->mask = 255;
        t->slots = oom_xcalloc(t->mask + 1, sizeof *t->slots);
    }
    if ((t->used + 1) * 4 > (t->mask + 1) * 3) { /* grow at 3/4 full */
        memo_slot *old = t->slots;
        uint32_t old_size = t->mask + 1;
        t->mask = old_size * 2 - 1;
        t->slots = oom_xcalloc(t->mask + 1, sizeof *t->slots);
        t->used = 0;
        for (uint32_t i = 0; i < old_size; i++)
            if (old[i].text)
                oom_roles_memo_put_cond(m, old[i].kind, old[i].at, old[i].text, old[i].len, old[i].value, old[i].cond);
        free(old);
    }
    for (uint32_t i = memo_hash(kind, at, text, len) & t->mask;; i = (i + 1) & t->mask) {
        memo_slot *s = &t->slots[i];
        if (!s->text) {
            *s = (memo_slot){text, len, at, (unsigned char)kind, (signed char)value, cond};
            t->used++;
            return;
        }
        if (s->kind == kind && s->at == at && s->len == len &&
            (s->text == text || ((kind == MEMO_ATTR || kind == MEMO_USED) && memcmp(s->text, text, len) == 0))) {
            s->value = (signed char)value;
            free(s->cond);
            s->cond = cond;
            return;
        }
    }
}

void oom_model_roles_free(oom_pymodel *m)
{
    if (m->role_memo) {
        for (uint32_t i = 0; i <= m->role_memo->mask; i++)
            free(m->role_memo->slots[i].cond);
        free(m->role_memo->slots);
    }
    free(m->role_memo);
    m->role_memo = NULL;
    free(m->call_wrappers);
    m->call_wrappers = NULL;
    free(m->use_sites);
    m->use_sites = NULL;
    free(m->use_site_args);
    m->use_site_args = NULL;
    m->use_site_arg_count = 0;
    free(m->class_nodes);
    free(m->differentiating);
    m->class_nodes = NULL;
    m->class_count = 0;
    m->classes_listed = false;
}

uint64_t oom_roles_call_wrappers(const oom_pymodel *cm, const oom_library *lib, size_t call)
{
    oom_pymodel *m = (oom_pymodel *)cm; /* one thread owns the model */
    if (!m->call_wrappers) {
        m->call_wrappers = oom_xcalloc(m->call_count ? m->call_count : 1, sizeof *m->call_wrappers);
        oom_buf qn;
        oom_buf_init(&qn);
        size_t count = lib->wrapper_count < 64 ? lib->wrapper_count : 64;
        for (size_t i = 0; i < m->call_count; i++) {
            if (!oom_pymodel_qualname(m, m->calls[i].fn, &qn))
                continue;
            for (size_t w = 0; w < count; w++)
                if (oom_qpattern_match(&lib->wrappers[w].call, qn.data))
                    m->call_wrappers[i] |= (uint64_t)1 << w;
        }
        oom_buf_free(&qn);
    }
    return call < m->call_count ? m->call_wrappers[call] : 0;
}

/* Takes back the conditions added since the buffer was `len` long. */
void oom_roles_cond_truncate(role_query *q, size_t len)
{
    if (q->cond.len > len) {
        q->cond.len = len;
        q->cond.data[len] = '\0';
    }
}

/* Records a condition the answer would wait on; false (record nothing)
 * when this question is asked without waiting (the first of the two
 * tries a predicate makes: see engine/predicates.c). */
bool oom_roles_wait_on(role_query *q, const char *fmt, const char *a, size_t alen, const char *b, size_t blen, int n)
{
    if (!q->m->pending_conditions) {
        ((oom_pymodel *)q->m)->would_wait = true; /* one thread owns the model */
        return false;
    }
    q->waited++;
    oom_buf line;
    oom_buf_init(&line);
    if (n >= 0)
        oom_buf_printf(&line, fmt, (int)alen, a, n, (int)blen, b);
    else
        oom_buf_printf(&line, fmt, (int)alen, a, (int)blen, b);
    /* once each */
    bool seen = false;
    for (const char *p = q->cond.data; p && *p && !seen;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        seen = len == line.len && memcmp(p, line.data, len) == 0;
        p += len + (nl != NULL);
    }
    if (!seen) {
        if (q->cond.len)
            oom_buf_putc(&q->cond, '\n');
        oom_buf_append(&q->cond, line.data, line.len);
    }
    oom_buf_free(&line);
    return true;
}


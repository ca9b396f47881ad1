/* engine/predicates: compiling a pattern's predicates and evaluating them on
 * a match: the standard tree-sitter text predicates (#eq?, #match?,
 * #any-of? and their #not- forms), which the tree-sitter core leaves to its
 * callers, and oomlint's semantic ones (engine/semantic.c). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- compiling ------------------------------------------------------------------ */

static void pred_clear(oom_pred *p)
{
    for (size_t a = 0; a < p->arg_count; a++)
        free(p->args[a]);
    free(p->args);
    if (p->regex)
        pcre2_code_free(p->regex);
    memset(p, 0, sizeof(*p));
}

void oom_preds_free(oom_pred *preds, size_t count)
{
    for (size_t i = 0; i < count; i++)
        pred_clear(&preds[i]);
    free(preds);
}

static int compile_regex(oom_pred *p, oom_buf *err)
{
    int code;
    PCRE2_SIZE offset;
    p->regex = pcre2_compile((PCRE2_SPTR)p->args[0], PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code,
                             &offset, NULL);
    if (p->regex)
        return 0;
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof msg);
    oom_buf_printf(err, "bad regex \"%s\" at offset %zu: %s", p->args[0], (size_t)offset,
                   (const char *)msg);
    return -1;
}

/* Fills one predicate from its name (`not-oom-holds?`), first capture,
 * second capture (#eq? @a @b; UINT32_MAX when absent) and string arguments,
 * which it takes. */
static int build_pred_from(const char *full, uint32_t capture, uint32_t other_capture, char **args,
                           size_t arg_count, oom_lang lang, oom_pred *p, oom_buf *err)
{
    memset(p, 0, sizeof(*p));
    p->capture = capture;
    p->other_capture = other_capture;
    p->args = args;
    p->arg_count = arg_count;
    const char *base = full;
    if (oom_str_starts_with(base, "not-")) {
        p->negate = true;
        base += 4;
    }
    size_t blen = strlen(base);
    if (blen == 0 || base[blen - 1] != '?') {
        oom_buf_printf(err, "unsupported directive #%s (only predicates ending in ? are known)", full);
        return -1;
    }
    blen--;
    const oom_sem_entry *sem = NULL;
    int rc = 0;
    if (blen == 2 && memcmp(base, "eq", 2) == 0) {
        p->kind = OOM_PRED_EQ;
        if (p->arg_count + (p->other_capture != UINT32_MAX) != 1) {
            oom_buf_printf(err, "#%s takes a capture and one string or capture", full);
            rc = -1;
        }
    } else if (blen == 5 && memcmp(base, "match", 5) == 0) {
        p->kind = OOM_PRED_MATCH;
        if (p->arg_count != 1) {
            oom_buf_printf(err, "#%s takes a capture and one regex string", full);
            rc = -1;
        } else {
            rc = compile_regex(p, err);
        }
    } else if (blen == 6 && memcmp(base, "any-of", 6) == 0) {
        p->kind = OOM_PRED_ANY_OF;
        if (p->arg_count == 0) {
            oom_buf_printf(err, "#%s takes a capture and at least one string", full);
            rc = -1;
        }
    } else if ((sem = oom_sem_find(base, blen)) != NULL) {
        p->kind = OOM_PRED_SEMANTIC;
        p->fn = sem->fn;
        p->whole_file = sem->whole_file;
        p->dotted_names = sem->dotted_names;
        p->asks_grad_on = !p->negate && strcmp(sem->name, "oom-grad-enabled") == 0;
        unsigned here = lang == OOM_LANG_PYTHON ? OOM_SEM_PYTHON
                        : lang == OOM_LANG_JSON ? OOM_SEM_JSON
                        : lang == OOM_LANG_YAML ? OOM_SEM_YAML
                                                : 0;
        if (sem->regex_arg && p->arg_count == 1 && compile_regex(p, err) != 0) {
            rc = -1;
        } else if (!(sem->languages & here)) {
            oom_buf_printf(err, "#%s is a %s predicate", full,
                           sem->languages & OOM_SEM_PYTHON ? "Python"
                           : sem->languages & OOM_SEM_JSON ? "JSON"
                                                           : "YAML");
            rc = -1;
        } else if ((int)p->arg_count < sem->min_args || (int)p->arg_count > sem->max_args ||
                   p->other_capture != UINT32_MAX) {
            oom_buf_printf(err, "#%s takes a capture and %d to %d strings", full, sem->min_args,
                           sem->max_args);
            rc = -1;
        }
    } else {
        oom_buf_printf(err, "unknown predicate #%s", full);
        rc = -1;
    }
    return rc;
}

/* Fills one predicate from its steps (name, then arguments). */
static int build_pred(const oom_query *q, const TSQueryPredicateStep *steps, uint32_t n,
                      oom_lang lang, oom_pred *p, oom_buf *err)
{
    uint32_t len;
    const char *name = oom_query_string_value_for_id(q, steps[0].value_id, &len);
    memset(p, 0, sizeof(*p));
    char *full = oom_xstrndup(name, len);
    if (n < 2 || steps[1].type != TSQueryPredicateStepTypeCapture) {
        oom_buf_printf(err, "#%s needs a capture as its first argument", full);
        free(full);
        return -1;
    }
    uint32_t other = UINT32_MAX;
    char **args = NULL;
    size_t arg_count = 0, arg_cap = 0;
    for (uint32_t i = 2; i < n; i++) {
        if (steps[i].type == TSQueryPredicateStepTypeCapture) {
            other = steps[i].value_id;
            continue;
        }
        uint32_t alen;
        const char *a = oom_query_string_value_for_id(q, steps[i].value_id, &alen);
        OOM_PUSH(args, arg_count, arg_cap, oom_xstrndup(a, alen));
    }
    int rc = build_pred_from(full, steps[1].value_id, other, args, arg_count, lang, p, err);
    free(full);
    return rc;
}

static int cost_class(const oom_pred *p)
{
    if (p->whole_file)
        return 0;
    return p->kind == OOM_PRED_SEMANTIC ? 2 : 1;
}

/* Stable: within a class the rule's order stays (the predicates that fill
 * {{detail}} are all of one class). */
static void order_by_cost(oom_pred *preds, size_t count, uint32_t *file_slots)
{
    if (count == 0)
        return;
    oom_pred *sorted = oom_xcalloc(count ? count : 1, sizeof(oom_pred));
    size_t n = 0;
    for (int c = 0; c <= 2; c++)
        for (size_t i = 0; i < count; i++)
            if (cost_class(&preds[i]) == c)
                sorted[n++] = preds[i];
    memcpy(preds, sorted, count * sizeof(oom_pred));
    free(sorted);
    for (size_t i = 0; i < count; i++)
        if (preds[i].whole_file)
            preds[i].file_slot = (*file_slots)++;
}

int oom_preds_compile(const oom_query *q, uint32_t pattern, oom_lang lang, oom_pred **out,
                      size_t *count, uint32_t *file_slots, oom_buf *err)
{
    uint32_t nsteps;
    const TSQueryPredicateStep *steps = oom_query_predicates_for_pattern(q, pattern, &nsteps);
    *out = NULL;
    *count = 0;
    size_t cap = 0;
    uint32_t start = 0;
    for (uint32_t i = 0; i < nsteps; i++) {
        if (steps[i].type != TSQueryPredicateStepTypeDone)
            continue;
        oom_pred p;
        if (build_pred(q, steps + start, i - start, lang, &p, err) != 0) {
            pred_clear(&p);
            oom_preds_free(*out, *count);
            *out = NULL;
            *count = 0;
            return -1;
        }
        OOM_PUSH(*out, *count, cap, p);
        start = i + 1;
    }
    order_by_cost(*out, *count, file_slots);
    return 0;
}

/* ---- predicates written as text (a fix's "when") ------------------------------------- */

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* A quoted string with \" and \\ escapes, as in a query; NULL when unterminated. */
static const char *read_string(const char *p, oom_buf *out)
{
    for (p++; *p && *p != '"'; p++) {
        if (*p == '\\' && p[1])
            p++;
        oom_buf_putc(out, *p);
    }
    oom_buf_append(out, "", 0);
    return *p == '"' ? p + 1 : NULL;
}

static const char *read_word(const char *p, oom_buf *out)
{
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != ')' && *p != '"')
        oom_buf_putc(out, *p++);
    oom_buf_append(out, "", 0);
    return p;
}

int oom_pred_compile_text(const oom_query *q, const char *text, oom_lang lang, oom_pred *out,
                          uint32_t *file_slots, oom_buf *err)
{
    memset(out, 0, sizeof *out);
    const char *p = skip_space(text);
    bool parenthesised = *p == '(';
    if (parenthesised)
        p = skip_space(p + 1);
    if (*p != '#') {
        oom_buf_printf(err, "\"%s\" is not a predicate such as #oom-passed-to? @call \"load_state_dict\"", text);
        return -1;
    }
    oom_buf name, word;
    oom_buf_init(&name);
    oom_buf_init(&word);
    p = read_word(p + 1, &name);
    uint32_t capture = UINT32_MAX, other = UINT32_MAX;
    char **args = NULL;
    size_t arg_count = 0, arg_cap = 0;
    int rc = 0;
    for (p = skip_space(p); rc == 0 && *p && *p != ')'; p = skip_space(p)) {
        oom_buf_clear(&word);
        if (*p == '"') {
            p = read_string(p, &word);
            if (!p) {
                oom_buf_printf(err, "#%s: an unterminated string", name.data);
                rc = -1;
            } else {
                OOM_PUSH(args, arg_count, arg_cap, oom_xstrdup(word.data));
            }
        } else if (*p == '@') {
            p = read_word(p + 1, &word);
            uint32_t id = oom_query_capture_id(q, word.data, (uint32_t)word.len);
            if (id == UINT32_MAX) {
                oom_buf_printf(err, "#%s: @%s is no capture of the query", name.data, word.data);
                rc = -1;
            } else if (capture == UINT32_MAX) {
                capture = id;
            } else {
                other = id;
            }
        } else {
            oom_buf_printf(err, "#%s: arguments are @captures and \"strings\"", name.data);
            rc = -1;
        }
    }
    if (rc == 0 && parenthesised && *p != ')') {
        oom_buf_printf(err, "#%s: a missing )", name.data);
        rc = -1;
    }
    if (rc == 0 && capture == UINT32_MAX) {
        oom_buf_printf(err, "#%s needs a capture as its first argument", name.data);
        rc = -1;
    }
    if (rc == 0) {
        rc = build_pred_from(name.data, capture, other, args, arg_count, lang, out, err);
        args = NULL; /* the predicate owns them now */
        arg_count = 0;
        if (rc != 0)
            pred_clear(out);
    }
    for (size_t i = 0; i < arg_count; i++)
        free(args[i]);
    free(args);
    if (rc == 0 && out->whole_file)
        out->file_slot = (*file_slots)++;
    oom_buf_free(&name);
    oom_buf_free(&word);
    return rc;
}

/* ---- evaluating -------------------------------------------------------------------- */

static bool capture_node(const TSQueryMatch *match, uint32_t id, TSNode *out)
{
    for (uint16_t i = 0; i < match->capture_count; i++)
        if (match->captures[i].index == id) {
            *out = match->captures[i].node;
            return true;
        }
    return false;
}

static bool text_equals(const char *src, TSNode n, const char *s, size_t len)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    return b - a == len && memcmp(src + a, s, len) == 0;
}

static bool regex_matches(const oom_pred *p, const char *src, TSNode n, pcre2_match_data *md,
                          pcre2_match_context *mctx, bool *limit_hit)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    int rc = pcre2_match(p->regex, (PCRE2_SPTR)(src + a), b - a, 0, 0, md, mctx);
    /* the regex gave up: no match, and the caller reports it */
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
        *limit_hit = true;
    return rc >= 0;
}

/* A semantic predicate asked of one node. What the model's answer assumes
 * of another file (an imported class's forward) is kept for the finding
 * when the predicate holds as the pattern wants it; a negated one, or one
 * that fails, drops the match anyway, and an assumption overturned can
 * only drop a finding, never make one. */
static void add_lines(oom_buf *to, const oom_buf *lines)
{
    if (lines->len == 0)
        return;
    if (to->len > 0)
        oom_buf_putc(to, '\n');
    oom_buf_append(to, lines->data, lines->len);
}

/* A semantic predicate asked of one node. What the model's answer assumes
 * of another file (an imported class's forward) is kept for the finding
 * when the predicate holds as the pattern wants it; a negated one, or one
 * that fails, drops the match anyway, and an assumption overturned can
 * only drop a finding, never make one. A module role another file must
 * confirm (an imported class, a parameter no call in the file binds) makes
 * the finding wait on the project pass, which reports it only if confirmed. */
static bool semantic_holds(const oom_pred *p, const oom_sem_env *env, TSNode n, TSNode site, oom_buf *scratch)
{
    if (!env->py || !env->conditions || !env->assumptions)
        return p->fn(env, n, site, p, scratch);
    oom_buf_clear(env->conditions);
    oom_pymodel_collect_conditions(env->py, env->conditions);
    oom_pymodel_take_would_wait(env->py);
    bool holds = p->fn(env, n, site, p, scratch);
    bool waits = false;
    /* what the file shows settles it first; only where that fails is the
     * predicate asked again with roles that wait on other files, so that
     * a finding waits on the project pass only when it needs to */
    if (!holds && !p->negate && env->role_scratch && env->role_waits && oom_pymodel_take_would_wait(env->py)) {
        oom_buf_clear(env->role_scratch);
        oom_pymodel_collect_pending(env->py, env->role_scratch);
        holds = waits = p->fn(env, n, site, p, scratch);
        oom_pymodel_collect_pending(env->py, NULL);
    }
    oom_pymodel_collect_conditions(env->py, NULL);
    if (holds && !p->negate) {
        add_lines(env->assumptions, env->conditions);
        if (waits)
            add_lines(env->role_waits, env->role_scratch);
    }
    return holds;
}

static bool pred_holds(const oom_pred *p, const TSQueryMatch *match, const char *src,
                       const oom_sem_env *env, TSNode site, pcre2_match_data *md,
                       pcre2_match_context *mctx, oom_buf *scratch, bool *limit_hit)
{
    TSNode n;
    capture_node(match, p->capture, &n);
    switch (p->kind) {
    case OOM_PRED_EQ:
        if (p->other_capture != UINT32_MAX) {
            TSNode o;
            if (!capture_node(match, p->other_capture, &o))
                return true;
            uint32_t a = ts_node_start_byte(o), b = ts_node_end_byte(o);
            return text_equals(src, n, src + a, b - a);
        }
        return text_equals(src, n, p->args[0], strlen(p->args[0]));
    case OOM_PRED_MATCH:
        return regex_matches(p, src, n, md, mctx, limit_hit);
    case OOM_PRED_ANY_OF:
        for (size_t i = 0; i < p->arg_count; i++)
            if (text_equals(src, n, p->args[i], strlen(p->args[i])))
                return true;
        return false;
    case OOM_PRED_SEMANTIC:
        if (p->whole_file && env->file_answers) {
            signed char *answer = &env->file_answers[p->file_slot];
            if (*answer < 0)
                *answer = p->fn(env, n, site, p, scratch) ? 1 : 0;
            return *answer == 1;
        }
        return semantic_holds(p, env, n, site, scratch);
    }
    return false;
}

bool oom_preds_hold(const oom_pred *preds, size_t count, const TSQueryMatch *match,
                    const char *src, const oom_sem_env *env, TSNode site,
                    pcre2_match_data *md, pcre2_match_context *mctx, oom_buf *scratch,
                    bool *limit_hit)
{
    for (size_t i = 0; i < count; i++) {
        TSNode unused;
        if (!capture_node(match, preds[i].capture, &unused))
            continue; /* an optional capture that did not match constrains nothing */
        bool holds = pred_holds(&preds[i], match, src, env, site, md, mctx, scratch, limit_hit);
        if (holds == preds[i].negate)
            return false;
    }
    return true;
}

/* engine/compile: one combined query per language from the selected rules. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "oomlint/text.h"

/* Appended to the Python query so that suppression comments are collected in
 * the same pass over the tree as every rule's matches. */
static const char comment_pattern_source[] = "(comment) @oom.comment\n";

static const char *query_error_name(TSQueryError e)
{
    switch (e) {
    case TSQueryErrorSyntax:
        return "syntax error";
    case TSQueryErrorNodeType:
        return "unknown node type";
    case TSQueryErrorField:
        return "unknown field";
    case TSQueryErrorCapture:
        return "unknown capture";
    case TSQueryErrorStructure:
        return "impossible pattern structure";
    case TSQueryErrorLanguage:
        return "language mismatch";
    default:
        return "error";
    }
}

/* The rule whose query text holds `offset`; an error reported at the very
 * end (an unclosed parenthesis) belongs to the last rule before it. */
static const oom_rule_slot *slot_for_offset(const oom_lang_query *lq, uint32_t offset)
{
    const oom_rule_slot *best = NULL;
    for (size_t i = 0; i < lq->slot_count; i++)
        if (offset >= lq->slots[i].source_start)
            best = &lq->slots[i];
    return best;
}

static void error_in_rule(oom_buf *err, const oom_rule_slot *slot, uint32_t offset,
                          const char *reason)
{
    size_t line = 1, col = 1;
    size_t rel = offset - slot->source_start;
    size_t qlen = strlen(slot->query);
    if (rel > qlen)
        rel = qlen;
    oom_text_line_col(slot->query, rel, &line, &col);
    oom_buf_clear(err);
    oom_buf_printf(err, "%s/%s:%zu:%zu: %s", slot->rule->origin, slot->query_file, line, col, reason);
}

/* Every {{name}} in a message must be a capture of the query (or {{detail}},
 * which the engine fills for its own findings). */
static int check_placeholders(const oom_query *q, const oom_rule *r, oom_buf *err)
{
    const char *texts[2] = {r->message, r->help};
    for (int t = 0; t < 2; t++) {
        const char *p = texts[t];
        while ((p = strstr(p, "{{")) != NULL) {
            const char *end = strstr(p, "}}");
            if (!end)
                break;
            size_t len = (size_t)(end - p - 2);
            /* filled by the engine: a predicate's explanation, the target GPU */
            bool found = (len == 6 && memcmp(p + 2, "detail", 6) == 0) ||
                         (len == 3 && memcmp(p + 2, "gpu", 3) == 0);
            found = found || oom_query_capture_id(q, p + 2, (uint32_t)len) != UINT32_MAX;
            if (!found) {
                oom_buf_clear(err);
                oom_buf_printf(err, "%s/rule.json: {{%.*s}} in the %s names no capture of query.scm",
                               r->origin, (int)len, p + 2, t == 0 ? "message" : "help");
                return -1;
            }
            p = end + 2;
        }
    }
    return 0;
}

/* Each enabled rule's query of this language, one after another in `src`,
 * with the range it holds. Its shape is checked where it is read (query/
 * parse.c), before tree-sitter sees any of it. Returns the count. */
static int build_slots(oom_compiled *c, oom_lang lang, oom_buf *src)
{
    oom_lang_query *lq = &c->langs[lang];
    size_t cap = 0;
    for (size_t i = 0; i < c->rules->len; i++) {
        const oom_rule *r = &c->rules->items[i];
        const char *query = r->lang == lang ? r->query : r->extra_query[lang];
        if (!query || !c->enabled[i])
            continue;
        oom_rule_slot slot;
        memset(&slot, 0, sizeof slot);
        slot.rule = r;
        slot.query = query;
        slot.query_file = r->lang == lang ? "query.scm" : lang == OOM_LANG_JSON ? "query.json.scm"
                          : lang == OOM_LANG_TOML ? "query.toml.scm" : lang == OOM_LANG_YAML ? "query.yaml.scm"
                                                                           : "query.python.scm";
        slot.source_start = (uint32_t)src->len;
        oom_buf_puts(src, query);
        oom_buf_putc(src, '\n');
        slot.source_end = (uint32_t)src->len;
        slot.report_capture = UINT32_MAX;
        OOM_PUSH(lq->slots, lq->slot_count, cap, slot);
    }
    return (int)lq->slot_count;
}

/* The words a pattern needs in a file (engine/words.c): the last parts of a
 * positive #oom-qualname?'s dotted names, the strings of a positive #eq? or
 * #any-of? on an identifier; only on captures that every match binds. */
static void add_word_clauses(oom_lang_query *lq, uint32_t p, TSSymbol identifier)
{
    for (size_t i = 0; i < lq->pred_counts[p]; i++) {
        const oom_pred *pr = &lq->preds[p][i];
        TSSymbol sym;
        if (pr->negate || pr->other_capture != UINT32_MAX || pr->arg_count == 0 ||
            !oom_query_capture_always_bound(lq->query, p, pr->capture, &sym))
            continue;
        if (pr->kind == OOM_PRED_SEMANTIC && pr->dotted_names) {
            const char **last = oom_xcalloc(pr->arg_count, sizeof(char *));
            for (size_t k = 0; k < pr->arg_count; k++) {
                const char *dot = strrchr(pr->args[k], '.');
                last[k] = dot ? dot + 1 : pr->args[k];
            }
            oom_words_add_clause(&lq->words, p, last, pr->arg_count);
            free(last);
        } else if ((pr->kind == OOM_PRED_EQ || pr->kind == OOM_PRED_ANY_OF) && identifier && sym == identifier) {
            oom_words_add_clause(&lq->words, p, (const char *const *)pr->args, pr->arg_count);
        }
    }
}

/* Every {{name}} in a fix's message and templates names a capture (the
 * message may also say {{detail}} or {{gpu}}, as a rule's message does). */
static int check_fix_template(const oom_query *q, const oom_rule *r, size_t alt, const char *text,
                              bool message, oom_buf *err)
{
    for (const char *p = text; p && (p = strstr(p, "{{")) != NULL;) {
        const char *end = strstr(p, "}}");
        if (!end)
            break;
        size_t len = (size_t)(end - p - 2);
        /* the module's name as the file imports it; in a message, also the
         * explanation and the GPU that the rule's message may name */
        bool found = (len > 7 && memcmp(p + 2, "import:", 7) == 0) ||
                     (message && ((len == 6 && memcmp(p + 2, "detail", 6) == 0) ||
                                  (len == 3 && memcmp(p + 2, "gpu", 3) == 0)));
        found = found || oom_query_capture_id(q, p + 2, (uint32_t)len) != UINT32_MAX;
        if (!found) {
            oom_buf_clear(err);
            oom_buf_printf(err, "%s/rule.json: fix[%zu]: {{%.*s}} names no capture of the query", r->origin, alt,
                           (int)len, p + 2);
            return -1;
        }
        p = end + 2;
    }
    return 0;
}

static int compile_fix(oom_lang_query *lq, oom_lang lang, const oom_rule *r, size_t i, oom_fix_compiled *out,
                       uint32_t *file_slots, oom_buf *err)
{
    const oom_fix_alternative *alt = &r->fix->alts[i];
    out->spec = alt;
    out->edit_captures = oom_xcalloc(alt->edit_count ? alt->edit_count : 1, sizeof(uint32_t));
    if (check_fix_template(lq->query, r, i, alt->message, true, err) != 0)
        return -1;
    for (size_t e = 0; e < alt->edit_count; e++) {
        const oom_edit_spec *edit = &alt->edits[e];
        out->edit_captures[e] = oom_query_capture_id(lq->query, edit->capture, (uint32_t)strlen(edit->capture));
        if (out->edit_captures[e] == UINT32_MAX) {
            oom_buf_clear(err);
            oom_buf_printf(err, "%s/rule.json: fix[%zu].edits[%zu]: @%s is no capture of the query", r->origin, i,
                           e, edit->capture);
            return -1;
        }
        if (check_fix_template(lq->query, r, i, edit->text, false, err) != 0)
            return -1;
    }
    out->when = oom_xcalloc(alt->when.len ? alt->when.len : 1, sizeof(oom_pred));
    for (size_t w = 0; w < alt->when.len; w++) {
        oom_buf why;
        oom_buf_init(&why);
        int rc = oom_pred_compile_text(lq->query, alt->when.items[w], lang, &out->when[w], file_slots, &why);
        if (rc == 0)
            out->when_count = w + 1;
        else {
            oom_buf_clear(err);
            oom_buf_printf(err, "%s/rule.json: fix[%zu].when[%zu]: %s", r->origin, i, w, why.data);
        }
        oom_buf_free(&why);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static void free_fix(oom_fix_compiled *f)
{
    oom_preds_free(f->when, f->when_count);
    free(f->edit_captures);
    memset(f, 0, sizeof *f);
}

/* A rule's fixes in this language's query. A fix that does not compile is
 * a mistake in the rule, reported, in the rule's own language; in the other
 * language of a rule that has two (OOM401's query.json.scm beside its
 * query.scm), it is a fix of the first language's captures and predicates,
 * left out there (spec NULL). */
static int compile_fixes(oom_lang_query *lq, oom_lang lang, uint32_t *file_slots, oom_buf *err)
{
    for (size_t s = 0; s < lq->slot_count; s++) {
        oom_rule_slot *slot = &lq->slots[s];
        const oom_rule *r = slot->rule;
        if (!r->fix)
            continue;
        slot->fixes = oom_xcalloc(r->fix->count, sizeof(oom_fix_compiled));
        for (size_t i = 0; i < r->fix->count; i++) {
            slot->fix_count = i + 1;
            if (compile_fix(lq, lang, r, i, &slot->fixes[i], file_slots, err) == 0)
                continue;
            if (r->lang == lang)
                return -1;
            free_fix(&slot->fixes[i]);
            oom_buf_clear(err);
        }
    }
    return 0;
}

static void free_fixes(oom_lang_query *lq)
{
    for (size_t s = 0; lq->slots && s < lq->slot_count; s++) {
        for (size_t i = 0; i < lq->slots[s].fix_count; i++)
            free_fix(&lq->slots[s].fixes[i]);
        free(lq->slots[s].fixes);
    }
}

static int map_patterns(oom_compiled *c, oom_lang lang, uint32_t comment_start, oom_buf *err)
{
    oom_lang_query *lq = &c->langs[lang];
    lq->pattern_count = oom_query_pattern_count(lq->query);
    const TSLanguage *grammar = oom_lang_grammar(lang);
    TSSymbol identifier = ts_language_symbol_for_name(grammar, "identifier", 10, true);
    lq->preds = oom_xcalloc(lq->pattern_count, sizeof(oom_pred *));
    lq->pred_counts = oom_xcalloc(lq->pattern_count, sizeof(size_t));
    for (size_t i = 0; i < lq->slot_count; i++)
        lq->slots[i].first_pattern = lq->slots[i].pattern_end = UINT32_MAX;
    for (uint32_t p = 0; p < lq->pattern_count; p++) {
        uint32_t start = oom_query_start_byte_for_pattern(lq->query, p);
        if (start >= comment_start) {
            lq->comment_pattern = p;
            continue;
        }
        oom_rule_slot *slot = (oom_rule_slot *)slot_for_offset(lq, start);
        if (!slot)
            continue;
        if (slot->first_pattern == UINT32_MAX)
            slot->first_pattern = p;
        slot->pattern_end = p + 1;
        oom_buf reason;
        oom_buf_init(&reason);
        int rc = oom_preds_compile(lq->query, p, lang, &lq->preds[p], &lq->pred_counts[p],
                                   &c->file_slots, &reason);
        if (rc != 0)
            error_in_rule(err, slot, start, reason.data);
        oom_buf_free(&reason);
        if (rc != 0)
            return -1;
        add_word_clauses(lq, p, identifier);
    }
    for (size_t i = 0; i < lq->slot_count; i++)
        if (check_placeholders(lq->query, lq->slots[i].rule, err) != 0)
            return -1;
    return compile_fixes(lq, lang, &c->file_slots, err);
}

/* tree-sitter reads the query too when a user's rule is among the slots (its
 * checks of a pattern's structure against the grammar stay in force for
 * them) or when a pattern needs its cursor. The built-in rules are read by
 * tree-sitter in the test suite instead: at run time that reading is most of
 * a small run's time. */
static bool tree_sitter_needed(const oom_lang_query *lq)
{
    if (!oom_query_all_native(lq->query))
        return true;
    for (size_t i = 0; i < lq->slot_count; i++)
        if (!lq->slots[i].rule->builtin)
            return true;
    return false;
}

/* The patterns oomlint's matcher leaves to tree-sitter, as a query of their
 * own: their source text, in order, with a map back to our pattern indices.
 * (Not the whole query with the others disabled: tree-sitter 0.25.1's
 * ts_query_disable_pattern leaves a wildcard-rooted pattern's slot behind
 * and its cursor then fails an assertion, found by fuzz_match.) */
static int build_fallback(oom_lang_query *lq, oom_lang lang, const oom_buf *src, oom_buf *err)
{
    oom_buf text;
    oom_buf_init(&text);
    lq->ts_pattern_map = oom_xcalloc(lq->pattern_count ? lq->pattern_count : 1, sizeof(uint32_t));
    uint32_t mapped = 0;
    for (uint32_t p = 0; p < lq->pattern_count; p++) {
        if (oom_query_pattern_is_native(lq->query, p))
            continue;
        uint32_t a = oom_query_start_byte_for_pattern(lq->query, p);
        uint32_t b = p + 1 < lq->pattern_count ? oom_query_start_byte_for_pattern(lq->query, p + 1)
                                               : (uint32_t)src->len;
        oom_buf_append(&text, src->data + a, b - a);
        oom_buf_putc(&text, '\n');
        lq->ts_pattern_map[mapped++] = p;
    }
    uint32_t offset;
    TSQueryError etype;
    TSQuery *tq = ts_query_new(oom_lang_grammar(lang), text.data, (uint32_t)text.len, &offset, &etype);
    oom_buf_free(&text);
    if (!tq || ts_query_pattern_count(tq) != mapped) {
        oom_buf_printf(err, "internal error: the %s patterns left to tree-sitter do not read alone",
                       oom_lang_name(lang));
        if (tq)
            ts_query_delete(tq);
        return -1;
    }
    uint32_t n = ts_query_capture_count(tq);
    lq->ts_capture_map = oom_xcalloc(n ? n : 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len;
        const char *name = ts_query_capture_name_for_id(tq, i, &len);
        lq->ts_capture_map[i] = oom_query_capture_id(lq->query, name, len);
    }
    lq->ts_query = tq;
    return 0;
}

static int attach_tree_sitter(oom_lang_query *lq, oom_lang lang, const oom_buf *src, oom_buf *err)
{
    if (!tree_sitter_needed(lq))
        return 0;
    uint32_t offset;
    TSQueryError etype;
    TSQuery *tq = ts_query_new(oom_lang_grammar(lang), src->data, (uint32_t)src->len, &offset, &etype);
    if (!tq) {
        const oom_rule_slot *slot = slot_for_offset(lq, offset);
        if (slot)
            error_in_rule(err, slot, offset, query_error_name(etype));
        else
            oom_buf_printf(err, "internal query error at offset %u", offset);
        return -1;
    }
    if (ts_query_pattern_count(tq) != lq->pattern_count) {
        oom_buf_printf(err, "internal error: tree-sitter reads %u patterns in the %s rules, oomlint %u",
                       ts_query_pattern_count(tq), oom_lang_name(lang), lq->pattern_count);
        ts_query_delete(tq);
        return -1;
    }
    ts_query_delete(tq);
    lq->ts_cursor_needed = !oom_query_all_native(lq->query);
    return lq->ts_cursor_needed ? build_fallback(lq, lang, src, err) : 0;
}

static int compile_language(oom_compiled *c, oom_lang lang, oom_buf *err)
{
    oom_lang_query *lq = &c->langs[lang];
    lq->comment_pattern = UINT32_MAX;
    oom_buf src;
    oom_buf_init(&src);
    int rules = build_slots(c, lang, &src);
    uint32_t comment_start = UINT32_MAX;
    if (lang == OOM_LANG_PYTHON) {
        comment_start = (uint32_t)src.len;
        oom_buf_puts(&src, comment_pattern_source);
    }
    if (rules == 0 && lang != OOM_LANG_PYTHON) {
        oom_buf_free(&src);
        return 0;
    }
    uint32_t offset;
    const char *why;
    lq->query = oom_query_new(oom_lang_grammar(lang), src.data, (uint32_t)src.len, &offset, &why);
    int rc = 0;
    if (!lq->query) {
        const oom_rule_slot *slot = slot_for_offset(lq, offset);
        if (slot)
            error_in_rule(err, slot, offset, why);
        else
            oom_buf_printf(err, "internal query error at offset %u: %s", offset, why);
        rc = -1;
    } else {
        rc = map_patterns(c, lang, comment_start, err);
        if (rc == 0)
            rc = attach_tree_sitter(lq, lang, &src, err);
        uint32_t report = oom_query_capture_id(lq->query, "report", 6);
        for (size_t i = 0; i < lq->slot_count; i++)
            lq->slots[i].report_capture = report;
    }
    oom_buf_free(&src);
    return rc;
}

oom_compiled *oom_compiled_new(const oom_rule_list *rules, const oom_selection *selection,
                               oom_buf *err)
{
    oom_compiled *c = oom_xcalloc(1, sizeof(*c));
    c->rules = rules;
    c->enabled = oom_xcalloc(rules->len ? rules->len : 1, sizeof(bool));
    for (size_t i = 0; i < rules->len; i++)
        c->enabled[i] = oom_selection_enabled(selection, rules->items[i].code, !rules->items[i].opt_in);
    for (int lang = 0; lang < OOM_LANG_COUNT; lang++) {
        if (compile_language(c, (oom_lang)lang, err) != 0) {
            oom_compiled_free(c);
            return NULL;
        }
    }
    return c;
}

void oom_compiled_free(oom_compiled *c)
{
    if (!c)
        return;
    for (int lang = 0; lang < OOM_LANG_COUNT; lang++) {
        oom_lang_query *lq = &c->langs[lang];
        for (uint32_t p = 0; lq->preds && p < lq->pattern_count; p++)
            oom_preds_free(lq->preds[p], lq->pred_counts[p]);
        free(lq->preds);
        free(lq->pred_counts);
        free_fixes(lq);
        free(lq->slots);
        free(lq->ts_capture_map);
        free(lq->ts_pattern_map);
        oom_words_free(&lq->words);
        oom_query_free(lq->query);
        if (lq->ts_query)
            ts_query_delete(lq->ts_query);
    }
    free(c->enabled);
    free(c);
}

void oom_compiled_set_run(oom_compiled *c, const oom_run_context *run)
{
    c->run = *run;
}

bool oom_compiled_rule_enabled(const oom_compiled *c, const char *code)
{
    for (size_t i = 0; i < c->rules->len; i++)
        if (strcmp(c->rules->items[i].code, code) == 0)
            return c->enabled[i];
    return false;
}

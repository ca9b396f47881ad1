/* engine/lint: one file through parse, model, combined query, predicates and
 * suppressions, into diagnostics. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "oomlint/fix.h"
#include "oomlint/suppress.h"
#include "oomlint/text.h"

/* Captured code quoted in a message is cut to this many characters. */
#define OOM_MESSAGE_SNIPPET_CHARS 48

struct oom_linter {
    const oom_compiled *c;
    TSParser *parser;
    oom_nodes nodes; /* the file's tree, laid out for the model and the matcher */
    oom_query_matcher *matcher;
    TSQueryCursor *cursor; /* for the patterns left to tree-sitter */
    TSQueryCapture *mapped; /* their captures, in our capture ids */
    size_t mapped_cap;
    pcre2_match_data *md;
    pcre2_match_context *mctx;
    oom_buf scratch;
    uint8_t *words_present; /* per word of the word filter */
    uint8_t *patterns_on;   /* per pattern: the file's words allow it */
    size_t words_cap, patterns_cap;
};

oom_linter *oom_linter_new(const oom_compiled *c)
{
    oom_linter *l = oom_xcalloc(1, sizeof(*l));
    l->c = c;
    l->parser = ts_parser_new();
    oom_nodes_init(&l->nodes);
    l->matcher = oom_query_matcher_new();
    l->cursor = ts_query_cursor_new();
    l->md = pcre2_match_data_create(16, NULL);
    l->mctx = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(l->mctx, OOM_REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(l->mctx, OOM_REGEX_DEPTH_LIMIT);
    oom_buf_init(&l->scratch);
    return l;
}

void oom_linter_free(oom_linter *l)
{
    if (!l)
        return;
    ts_parser_delete(l->parser);
    ts_query_cursor_delete(l->cursor);
    oom_query_matcher_free(l->matcher);
    oom_nodes_free(&l->nodes);
    free(l->mapped);
    pcre2_match_data_free(l->md);
    pcre2_match_context_free(l->mctx);
    oom_buf_free(&l->scratch);
    free(l->words_present);
    free(l->patterns_on);
    free(l);
}

/* ---- messages ------------------------------------------------------------------ */

typedef struct {
    const oom_query *query;
    const TSQueryMatch *match;
    const char *src;
    const char *detail; /* {{detail}}: the engine's or a predicate's explanation */
    const char *gpu;    /* {{gpu}}: the target GPU's name */
    const char *named;  /* a placeholder a predicate filled (oom_sem_env.named_placeholder) */
    TSNode named_node;
    /* a fix's message quotes code as it will read: `(a + b).item()`, and
     * may name a module as the file imports it ({{import:torch}}) */
    bool as_code;
    const oom_pymodel *py;
} placeholder_env;

static bool fill_placeholder(const placeholder_env *env, const char *name, size_t len, char next,
                             oom_buf *out)
{
    if (env->detail && len == 6 && memcmp(name, "detail", 6) == 0) {
        oom_buf_puts(out, env->detail);
        return true;
    }
    if (env->gpu && len == 3 && memcmp(name, "gpu", 3) == 0) {
        oom_buf_puts(out, env->gpu);
        return true;
    }
    if (env->py && len > 7 && memcmp(name, "import:", 7) == 0) {
        char *module = oom_xstrndup(name + 7, len - 7);
        uint32_t alias_len = 0;
        const char *alias = oom_pymodel_module_alias(env->py, module, &alias_len);
        free(module);
        if (alias)
            oom_buf_append(out, alias, alias_len);
        return alias != NULL;
    }
    if (!env->match)
        return false;
    for (uint16_t i = 0; i < env->match->capture_count; i++) {
        uint32_t n;
        const char *cname =
            oom_query_capture_name_for_id(env->query, env->match->captures[i].index, &n);
        if (n != len || memcmp(cname, name, len) != 0)
            continue;
        TSNode node = env->match->captures[i].node;
        uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
        bool wrap = env->as_code && oom_fix_parens_needed(node, env->src, next) > 0;
        if (wrap)
            oom_buf_putc(out, '(');
        oom_text_append_snippet(out, env->src + a, b - a, OOM_MESSAGE_SNIPPET_CHARS);
        if (wrap)
            oom_buf_putc(out, ')');
        return true;
    }
    if (env->named && strlen(env->named) == len && memcmp(env->named, name, len) == 0) {
        uint32_t a = ts_node_start_byte(env->named_node), b = ts_node_end_byte(env->named_node);
        oom_text_append_snippet(out, env->src + a, b - a, OOM_MESSAGE_SNIPPET_CHARS);
        return true;
    }
    return false;
}

static char *render(const char *tmpl, const placeholder_env *env)
{
    oom_buf out;
    oom_buf_init(&out);
    const char *p = tmpl;
    while (*p) {
        const char *open = strstr(p, "{{");
        const char *close = open ? strstr(open, "}}") : NULL;
        if (!open || !close) {
            oom_buf_puts(&out, p);
            break;
        }
        oom_buf_append(&out, p, (size_t)(open - p));
        if (!fill_placeholder(env, open + 2, (size_t)(close - open - 2), close[2], &out))
            oom_buf_puts(&out, "?");
        p = close + 2;
    }
    return oom_buf_take(&out);
}

static void add_finding(oom_diag_list *out, oom_source *src, const oom_rule *rule,
                        uint32_t start, uint32_t end, const placeholder_env *env)
{
    char *message = render(rule->message, env);
    char *help = render(rule->help, env);
    oom_diag *d = oom_diag_list_add(out, rule->code, rule->name, rule->severity, src->path,
                                    message, help, rule->url);
    d->start_byte = start;
    oom_source_position(src, start, &d->start_row, &d->start_col);
    oom_source_position(src, end, &d->end_row, &d->end_col);
    oom_buf ctx;
    oom_buf_init(&ctx);
    for (uint32_t row = d->start_row;
         row <= d->end_row && row < d->start_row + OOM_DIAG_CONTEXT_LINES; row++) {
        const char *line;
        size_t len;
        if (!oom_source_line(src, row, &line, &len))
            break;
        if (row > d->start_row)
            oom_buf_putc(&ctx, '\n');
        oom_buf_append(&ctx, line, len);
    }
    d->context = oom_buf_take(&ctx);
    free(message);
    free(help);
}

/* ---- suppressions ------------------------------------------------------------------ */

static bool only_space_before(const char *text, uint32_t pos)
{
    while (pos > 0 && text[pos - 1] != '\n' && text[pos - 1] != '\r') {
        if (text[pos - 1] != ' ' && text[pos - 1] != '\t')
            return false;
        pos--;
    }
    return true;
}

static void collect_suppression(oom_source *src, TSNode comment, oom_suppression_set *set)
{
    uint32_t a = ts_node_start_byte(comment), b = ts_node_end_byte(comment);
    oom_suppression s;
    oom_suppression_parse(src->text + a, b - a, only_space_before(src->text, a), &s);
    if (s.scope == OOM_SUPPRESS_NONE) {
        oom_suppression_free(&s);
        return;
    }
    uint32_t row, col;
    oom_source_position(src, a, &row, &col);
    oom_suppression_set_add(set, row, &s);
}

/* ---- syntax errors ------------------------------------------------------------------ */

static void report_syntax_error(const oom_linter *l, oom_source *src, TSNode root,
                                oom_diag_list *out)
{
    const oom_rule *rule = oom_rules_find(l->c->rules, "OOM001");
    if (!rule || !oom_compiled_rule_enabled(l->c, "OOM001"))
        return;
    TSNode err = oom_first_error(root);
    oom_buf detail;
    oom_buf_init(&detail);
    uint32_t a = ts_node_start_byte(err), b = ts_node_end_byte(err);
    if (ts_node_is_missing(err)) {
        oom_buf_printf(&detail, "expected `%s`", ts_node_type(err));
    } else if (b > a) {
        oom_buf_puts(&detail, "unexpected `");
        oom_text_append_snippet(&detail, src->text + a, b - a > 200 ? 200 : b - a,
                                OOM_MESSAGE_SNIPPET_CHARS);
        oom_buf_puts(&detail, "`");
    } else {
        oom_buf_puts(&detail, "unexpected end of file");
    }
    placeholder_env env = {.src = src->text, .detail = detail.data};
    add_finding(out, src, rule, a, b, &env);
    oom_buf_free(&detail);
}

/* ---- running the query -------------------------------------------------------------- */

static void report_limit(const oom_linter *l, oom_source *src, const oom_rule *culprit, TSNode site,
                         oom_diag_list *out)
{
    const oom_rule *rule = oom_rules_find(l->c->rules, "OOM003");
    if (!rule || !oom_compiled_rule_enabled(l->c, "OOM003"))
        return;
    placeholder_env env = {.src = src->text, .detail = culprit->code};
    add_finding(out, src, rule, ts_node_start_byte(site), ts_node_end_byte(site), &env);
}

static const oom_rule_slot *slot_for_pattern(const oom_lang_query *lq, uint32_t pattern)
{
    for (size_t i = 0; i < lq->slot_count; i++)
        if (pattern >= lq->slots[i].first_pattern && pattern < lq->slots[i].pattern_end)
            return &lq->slots[i];
    return NULL;
}

static TSNode report_node(const oom_rule_slot *slot, const TSQueryMatch *m)
{
    for (uint16_t i = 0; i < m->capture_count; i++)
        if (m->captures[i].index == slot->report_capture)
            return m->captures[i].node;
    return m->captures[0].node;
}

/* What a match needs to become a finding. */
typedef struct {
    oom_linter *l;
    const oom_lang_query *lq;
    oom_source *src;
    const oom_sem_env *env;
    oom_diag_list *found;
    oom_suppression_set *supp;
    oom_lang lang;
} match_ctx;

/* ---- fixes ---------------------------------------------------------------------------- */

static bool capture_by_id(const TSQueryMatch *m, uint32_t id, TSNode *out)
{
    for (uint16_t i = 0; i < m->capture_count; i++)
        if (m->captures[i].index == id) {
            *out = m->captures[i].node;
            return true;
        }
    return false;
}

typedef struct {
    const oom_query *query;
    const TSQueryMatch *match;
    const oom_pymodel *py; /* NULL outside Python */
} capture_env;

/* A capture's node, or for `{{import:torch}}` the name the file binds the
 * module to (`T` after `import torch as T`): generated code uses the file's
 * own spelling, and a file that does not import it gets no fix. */
static bool lookup_capture(void *ctx, const char *name, size_t len, oom_placeholder_value *out)
{
    const capture_env *ce = ctx;
    if (len > 7 && memcmp(name, "import:", 7) == 0) {
        char *module = oom_xstrndup(name + 7, len - 7);
        uint32_t alias_len = 0;
        out->text = ce->py ? oom_pymodel_module_alias(ce->py, module, &alias_len) : NULL;
        out->text_len = alias_len;
        free(module);
        return out->text != NULL;
    }
    uint32_t id = oom_query_capture_id(ce->query, name, (uint32_t)len);
    return id != UINT32_MAX && capture_by_id(ce->match, id, &out->node);
}

/* A condition on a capture the match did not bind does not hold: a fix is
 * offered only where its conditions were checked. */
static bool fix_conditions_hold(const match_ctx *mc, const oom_fix_compiled *fc, const TSQueryMatch *m, TSNode site)
{
    for (size_t w = 0; w < fc->when_count; w++) {
        TSNode unused;
        if (!capture_by_id(m, fc->when[w].capture, &unused))
            return false;
    }
    bool limit_hit = false;
    return oom_preds_hold(fc->when, fc->when_count, m, mc->src->text, mc->env, site, mc->l->md, mc->l->mctx,
                          &mc->l->scratch, &limit_hit) &&
           !limit_hit;
}

/* The edits of one fix alternative at this match, or NULL when one of them
 * cannot be made here. */
static oom_fix *try_fix(const match_ctx *mc, const oom_fix_compiled *fc, const TSQueryMatch *m,
                        const placeholder_env *penv)
{
    const oom_fix_alternative *alt = fc->spec;
    capture_env ce = {mc->lq->query, m, mc->env->py};
    oom_raw_edit *edits = oom_xcalloc(alt->edit_count, sizeof *edits);
    size_t made = 0;
    bool ok = true;
    oom_buf content;
    oom_buf_init(&content);
    for (size_t e = 0; e < alt->edit_count && ok; e++) {
        TSNode node;
        oom_buf_clear(&content);
        oom_buf_append(&content, "", 0);
        ok = capture_by_id(m, fc->edit_captures[e], &node) &&
             (!alt->edits[e].text ||
              oom_fix_fill_template(alt->edits[e].text, mc->src->text, lookup_capture, &ce, &content)) &&
             oom_fix_make_edit(&alt->edits[e], mc->lang,
                               mc->src->text, mc->src->len, node, content.data, &edits[made]);
        made += ok;
    }
    oom_buf_free(&content);
    oom_fix *fix = NULL;
    if (ok) {
        placeholder_env code = *penv;
        code.as_code = true;
        code.py = mc->env->py;
        char *message = render(alt->message, &code);
        fix = oom_fix_from_edits(alt->applicability, message, edits, made, mc->src);
        free(message);
    } else {
        for (size_t e = 0; e < made; e++)
            free(edits[e].content);
    }
    free(edits);
    return fix;
}

/* The first of the rule's fixes whose conditions hold and whose edits can be
 * made here. */
static oom_fix *make_fix(const match_ctx *mc, const oom_rule_slot *slot, const TSQueryMatch *m, TSNode site,
                         const placeholder_env *penv)
{
    for (size_t i = 0; i < slot->fix_count; i++) {
        const oom_fix_compiled *fc = &slot->fixes[i];
        if (!fc->spec || !fix_conditions_hold(mc, fc, m, site))
            continue;
        oom_fix *fix = try_fix(mc, fc, m, penv);
        if (fix)
            return fix;
    }
    return NULL;
}

/* A finding whose pattern asked that autograd be on holds only while the
 * function around it runs with grad: name that function for the project
 * pass, which knows its callers in every file. */
static void note_grad_condition(oom_diag *d, const oom_pred *preds, size_t count, const TSQueryMatch *m,
                                const oom_sem_env *env)
{
    if (!env->py)
        return;
    for (size_t i = 0; i < count; i++) {
        if (!preds[i].asks_grad_on)
            continue;
        for (uint16_t k = 0; k < m->capture_count; k++) {
            if (m->captures[k].index != preds[i].capture)
                continue;
            uint32_t len;
            const char *name = oom_pymodel_function_at(env->py, ts_node_start_byte(m->captures[k].node), &len);
            if (name)
                d->needs_grad_in = oom_xstrndup(name, len);
            return;
        }
    }
}

typedef struct {
    oom_diag *d;
    oom_source *src; /* its line index is built on first use */
} call_places;

static void add_grad_on_call(void *ctx, uint32_t pos)
{
    call_places *cp = ctx;
    uint32_t row, col;
    oom_source_position(cp->src, pos, &row, &col);
    oom_diag_add_related(cp->d, cp->src->path, row,
                         "called here with autograd on: a no-grad context around this call stops it too");
}

/* For a rule that asks it ("related": "grad-on-calls"), the calls in this
 * file from which the function around the finding runs with grad: the
 * evidence that grad is on there, and the other place the fix can go. */
static void note_grad_on_calls(oom_diag *d, const oom_rule *rule, oom_source *src, const oom_sem_env *env)
{
    if (!rule->grad_on_calls_related || !env->py)
        return;
    call_places cp = {d, src};
    oom_pymodel_each_grad_on_call_of_function_at(env->py, d->start_byte, add_grad_on_call, &cp);
}

/* Moves the findings that wait on the project pass out of `found`. */
static oom_diag_list take_pending(oom_diag_list *found)
{
    oom_diag_list pending = {NULL, 0, 0};
    size_t w = 0;
    for (size_t r = 0; r < found->len; r++) {
        if (found->items[r].needs_project)
            OOM_PUSH(pending.items, pending.len, pending.cap, found->items[r]);
        else
            found->items[w++] = found->items[r];
    }
    found->len = w;
    return pending;
}

/* Where a rule that reports one finding per function finds the function
 * around `pos`: its name's place in the text (plus 2), or 1 for top-level
 * code; 0 for other rules, whose every finding is its own cause. */
static uint32_t cause_scope(const oom_rule *rule, const oom_sem_env *env, const oom_source *src, uint32_t pos)
{
    if (!rule->one_per_function || !env->py)
        return 0;
    uint32_t len;
    const char *name = oom_pymodel_function_at(env->py, pos, &len);
    return name ? (uint32_t)(name - src->text) + 2 : 1;
}

static void on_match(void *ctx, const TSQueryMatch *m)
{
    match_ctx *mc = ctx;
    oom_linter *l = mc->l;
    const oom_lang_query *lq = mc->lq;
    const oom_sem_env *env = mc->env;
    if (m->capture_count == 0)
        return;
    if (m->pattern_index == lq->comment_pattern) {
        collect_suppression(mc->src, m->captures[0].node, mc->supp);
        return;
    }
    const oom_rule_slot *slot = slot_for_pattern(lq, m->pattern_index);
    if (!slot)
        return;
    TSNode site = report_node(slot, m);
    bool limit_hit = false;
    oom_buf_clear(env->detail);
    oom_buf_clear(env->pending);
    oom_buf_clear(env->assumptions);
    if (env->role_waits)
        oom_buf_clear(env->role_waits);
    ((oom_sem_env *)env)->named_placeholder = NULL;
    bool holds = oom_preds_hold(lq->preds[m->pattern_index], lq->pred_counts[m->pattern_index], m,
                                mc->src->text, env, site, l->md, l->mctx, &l->scratch, &limit_hit);
    if (limit_hit)
        report_limit(l, mc->src, slot->rule, site, mc->found);
    if (!holds)
        return;
    placeholder_env penv = {.query = lq->query, .match = m, .src = mc->src->text,
                            .detail = env->detail->data ? env->detail->data : "",
                            .gpu = env->run->gpu ? env->run->gpu->name : NULL,
                            .named = env->named_placeholder, .named_node = env->named_node};
    add_finding(mc->found, mc->src, slot->rule, ts_node_start_byte(site), ts_node_end_byte(site),
                &penv);
    oom_diag *d = &mc->found->items[mc->found->len - 1];
    note_grad_condition(d, lq->preds[m->pattern_index], lq->pred_counts[m->pattern_index], m, env);
    note_grad_on_calls(d, slot->rule, mc->src, env);
    if (slot->fix_count)
        d->fix = make_fix(mc, slot, m, site, &penv);
    if (env->role_waits && env->role_waits->len > 0) { /* both kinds, one a line */
        if (env->pending->len > 0)
            oom_buf_putc(env->pending, '\n');
        oom_buf_append(env->pending, env->role_waits->data, env->role_waits->len);
    }
    if (env->pending->len > 0)
        d->needs_project = oom_xstrdup(env->pending->data);
    if (env->assumptions->len > 0)
        d->unless_project = oom_xstrdup(env->assumptions->data);
    d->cause_scope = cause_scope(slot->rule, env, mc->src, ts_node_start_byte(site));
}

/* A pattern whose matching at one node was abandoned is reported, as a regex
 * stopped by its limit is. */
static void on_limit(void *ctx, uint32_t pattern, TSNode node)
{
    match_ctx *mc = ctx;
    const oom_rule_slot *slot = slot_for_pattern(mc->lq, pattern);
    if (slot)
        report_limit(mc->l, mc->src, slot->rule, node, mc->found);
}

/* The patterns oomlint's matcher leaves to tree-sitter's cursor, their
 * pattern indices and capture ids mapped to ours. */
static void run_tree_sitter_cursor(match_ctx *mc, TSNode root)
{
    oom_linter *l = mc->l;
    const oom_lang_query *lq = mc->lq;
    ts_query_cursor_exec(l->cursor, lq->ts_query, root);
    TSQueryMatch m;
    while (ts_query_cursor_next_match(l->cursor, &m)) {
        if (m.capture_count > l->mapped_cap) {
            l->mapped = oom_xrealloc(l->mapped, m.capture_count * sizeof(TSQueryCapture));
            l->mapped_cap = m.capture_count;
        }
        for (uint16_t i = 0; i < m.capture_count; i++) {
            l->mapped[i].node = m.captures[i].node;
            l->mapped[i].index = lq->ts_capture_map[m.captures[i].index];
        }
        TSQueryMatch ours = m;
        ours.pattern_index = (uint16_t)lq->ts_pattern_map[m.pattern_index];
        ours.captures = l->mapped;
        on_match(mc, &ours);
    }
}

static void run_query(oom_linter *l, oom_lang lang, oom_source *src, TSNode root, const oom_sem_env *env,
                      oom_diag_list *found, oom_suppression_set *supp)
{
    const oom_lang_query *lq = &l->c->langs[lang];
    match_ctx mc = {l, lq, src, env, found, supp, lang};
    const uint8_t *on = NULL;
    if (oom_words_filters(&lq->words)) {
        if (lq->words.word_count > l->words_cap)
            oom_grow((void **)&l->words_present, &l->words_cap, lq->words.word_count, 1);
        if (lq->pattern_count > l->patterns_cap)
            oom_grow((void **)&l->patterns_on, &l->patterns_cap, lq->pattern_count, 1);
        oom_words_enable(&lq->words, src->text, src->len, l->words_present, l->patterns_on, lq->pattern_count);
        on = l->patterns_on;
    }
    oom_query_matcher_only(l->matcher, on);
    oom_query_exec(l->matcher, lq->query, &l->nodes, src->text, on_match, on_limit, &mc);
    if (lq->ts_cursor_needed)
        run_tree_sitter_cursor(&mc, root);
}

static bool span_within(const oom_diag *inner, const oom_diag *outer)
{
    bool starts_after = inner->start_row > outer->start_row ||
                        (inner->start_row == outer->start_row && inner->start_col >= outer->start_col);
    bool ends_before = inner->end_row < outer->end_row ||
                       (inner->end_row == outer->end_row && inner->end_col <= outer->end_col);
    return starts_after && ends_before;
}

/* Drops repeats (several patterns of a rule on one node, or a rule's finding
 * nested inside another finding of the same rule: `criterion(model(x), y)`
 * retried in a handler is one problem) and suppressed findings. */
static void filter_findings(oom_diag_list *found, const oom_suppression_set *supp)
{
    oom_diag_list_sort(found);
    unsigned char *drop = oom_xcalloc(found->len ? found->len : 1, 1);
    for (size_t i = 0; i < found->len; i++) {
        const oom_diag *d = &found->items[i];
        /* an enclosing finding starts at or before this one: look a little back;
         * one that waits on the project pass does not stand for one that is
         * settled here (it may be dropped there) */
        for (size_t j = i > 64 ? i - 64 : 0; j < i && !drop[i]; j++)
            if (!drop[j] && strcmp(found->items[j].code, d->code) == 0 && span_within(d, &found->items[j]) &&
                (!found->items[j].needs_project || d->needs_project))
                drop[i] = 1;
        if (!drop[i])
            drop[i] = oom_suppression_set_covers(supp, d->start_row, d->code);
    }
    oom_diag_list_remove_if_marked(found, drop);
    free(drop);
}

void oom_linter_run(oom_linter *l, oom_source *src, oom_lang lang, oom_diag_list *out)
{
    oom_linter_run_then(l, src, lang, out, NULL, NULL);
}

void oom_linter_run_then(oom_linter *l, oom_source *src, oom_lang lang, oom_diag_list *out,
                         oom_on_model_fn on_model, void *ctx)
{
    if (lang < 0 || lang >= OOM_LANG_COUNT)
        return;
    TSTree *tree;
    if (lang == OOM_LANG_PYTHON) {
        tree = oom_parse_python(l->parser, src->text, src->len);
    } else {
        ts_parser_set_language(l->parser, oom_lang_grammar(lang));
        tree = ts_parser_parse_string(l->parser, NULL, src->text, (uint32_t)src->len);
    }
    if (!tree)
        return;
    TSNode root = ts_tree_root_node(tree);
    const oom_lang_query *lq = &l->c->langs[lang];
    oom_nodes_build(&l->nodes, root);
    oom_pymodel *model =
        lang == OOM_LANG_PYTHON ? oom_pymodel_build_from(&l->nodes, src->text, src->len) : NULL;
    oom_jsonmodel *json = lang == OOM_LANG_JSON ? oom_jsonmodel_build(tree, src->text, src->len) : NULL;
    oom_yamlmodel *yaml = lang == OOM_LANG_YAML ? oom_yamlmodel_build(tree, src->text, src->len) : NULL;
    oom_buf detail, waits_on, assumptions, conditions, role_waits, role_scratch;
    oom_buf_init(&detail);
    oom_buf_append(&detail, "", 0);
    oom_buf_init(&waits_on);
    oom_buf_init(&assumptions);
    oom_buf_init(&conditions);
    oom_buf_init(&role_waits);
    oom_buf_init(&role_scratch);
    signed char *file_answers = oom_xmalloc(l->c->file_slots ? l->c->file_slots : 1);
    memset(file_answers, -1, l->c->file_slots ? l->c->file_slots : 1);
    oom_sem_env env = {model, json, yaml, &l->c->run, src->path, src->text, &detail, &waits_on, &assumptions,
                       &conditions, NULL, {{0}, NULL, NULL}, file_answers, l->md, l->mctx, &role_waits, &role_scratch};
    oom_diag_list found = {NULL, 0, 0};
    oom_suppression_set supp;
    memset(&supp, 0, sizeof supp);
    if (lq->query)
        run_query(l, lang, src, root, &env, &found, &supp);
    if (ts_node_has_error(root))
        report_syntax_error(l, src, root, &found);
    filter_findings(&found, &supp);
    /* suppressions and repeats are decided on the module's lines; the
     * report speaks of the notebook's cells */
    for (size_t i = 0; src->notebook && i < found.len; i++)
        oom_notebook_place(src->notebook, &found.items[i]);
    oom_diag_list pending = take_pending(&found);
    oom_diag_list_move(out, &found);
    if (on_model && (model || yaml))
        on_model(ctx, src, model, yaml, root, &pending);
    oom_diag_list_free(&pending);
    oom_suppression_set_free(&supp);
    oom_pymodel_free(model);
    oom_jsonmodel_free(json);
    oom_yamlmodel_free(yaml);
    oom_buf_free(&detail);
    oom_buf_free(&waits_on);
    oom_buf_free(&role_waits);
    oom_buf_free(&role_scratch);
    oom_buf_free(&assumptions);
    oom_buf_free(&conditions);
    free(file_answers);
    oom_nodes_trim(&l->nodes);
    ts_tree_delete(tree);
}

void oom_report_unreadable(const oom_compiled *c, const char *path, const char *reason,
                           oom_diag_list *out)
{
    const oom_rule *rule = oom_rules_find(c->rules, "OOM002");
    if (!rule || !oom_compiled_rule_enabled(c, "OOM002"))
        return;
    placeholder_env env = {.src = "", .detail = reason};
    char *message = render(rule->message, &env);
    char *help = render(rule->help, &env);
    oom_diag_list_add(out, rule->code, rule->name, rule->severity, path, message, help, rule->url);
    free(message);
    free(help);
}

void oom_report_unreadable_notebook(const oom_compiled *c, const char *path, oom_source_status st,
                                    const oom_notebook_error *err, oom_diag_list *out)
{
    if (st == OOM_SOURCE_NOTEBOOK_NOT_PYTHON)
        return;
    const char *code = st == OOM_SOURCE_NOTEBOOK_NOT_JSON ? "OOM001" : "OOM002";
    const oom_rule *rule = oom_rules_find(c->rules, code);
    if (!rule || !oom_compiled_rule_enabled(c, code))
        return;
    placeholder_env env = {.src = "", .detail = err->message};
    char *message = render(rule->message, &env);
    char *help = render(rule->help, &env);
    oom_diag *d = oom_diag_list_add(out, rule->code, rule->name, rule->severity, path, message, help, rule->url);
    if (err->row) {
        d->start_row = d->end_row = err->row;
        d->start_col = d->end_col = err->col;
    }
    free(message);
    free(help);
}

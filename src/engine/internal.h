/* Private layout of the compiled rule set, shared by the files of src/engine. */
#ifndef OOMLINT_ENGINE_INTERNAL_H
#define OOMLINT_ENGINE_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <tree_sitter/api.h>

#include "oomlint/engine.h"
#include "oomlint/jsonmodel.h"
#include "oomlint/yamlmodel.h"
#include "oomlint/model.h"
#include "oomlint/query.h"

/* PCRE2 limits for #match? predicates: a rule's regex that backtracks
 * catastrophically is stopped, not left spinning. */
#define OOM_REGEX_MATCH_LIMIT 100000u
#define OOM_REGEX_DEPTH_LIMIT 1000u

typedef struct oom_pred oom_pred;

/* What semantic predicates can ask: the file's model (Python or JSON), the
 * run (target GPU, knowledge base), and a place to explain a finding
 * ({{detail}} in a message). */
typedef struct {
    const oom_pymodel *py;     /* NULL outside Python */
    const oom_jsonmodel *json; /* NULL outside JSON */
    const oom_yamlmodel *yaml; /* NULL outside YAML */
    const oom_run_context *run;
    const char *path; /* the file being linted */
    const char *src;  /* its text */
    oom_buf *detail;
    /* a finding that holds only if the project agrees (another file defines
     * the accumulating method it calls, or calls its function for
     * evaluation): what the project pass must check,
     * copied into oom_diag.needs_project; empty otherwise */
    oom_buf *pending;
    /* what the model's answers for this match assumed of other files,
     * which the project pass may overturn (oom_pymodel_collect_conditions):
     * copied into oom_diag.unless_project; `conditions` is one predicate's
     * scratch (engine/predicates.c). NULL: none are collected */
    oom_buf *assumptions;
    oom_buf *conditions;
    /* a node a predicate names for the message, under a placeholder the
     * pattern cannot capture (the name a dict literal is assigned to, above
     * the pair the pattern is rooted at); null when none */
    const char *named_placeholder;
    TSNode named_node;
    /* answers of whole-file predicates for this file, by file_slot: -1 not
     * asked yet, 0 or 1 */
    signed char *file_answers;
    /* the thread's regex scratch, limited like #match? (engine/lint.c) */
    pcre2_match_data *md;
    pcre2_match_context *mctx;
    /* the module roles this match's answers hold under, which another file
     * must confirm (oom_pymodel_collect_pending): added to
     * oom_diag.needs_project; `role_scratch` is one predicate's. NULL: none
     * are collected */
    oom_buf *role_waits;
    oom_buf *role_scratch;
} oom_sem_env;

/* A semantic question about a captured node. `site` is the node the finding
 * would be reported at. */
typedef bool (*oom_sem_fn)(const oom_sem_env *env, TSNode node, TSNode site, const oom_pred *p,
                           oom_buf *scratch);

typedef enum {
    OOM_PRED_EQ,      /* #eq? @a "text" | @b */
    OOM_PRED_MATCH,   /* #match? @a "regex" */
    OOM_PRED_ANY_OF,  /* #any-of? @a "x" "y" */
    OOM_PRED_SEMANTIC /* #oom-...? @a args */
} oom_pred_kind;

struct oom_pred {
    oom_pred_kind kind;
    bool negate;
    uint32_t capture;
    uint32_t other_capture; /* #eq? @a @b; UINT32_MAX when absent */
    char **args;
    size_t arg_count;
    pcre2_code *regex;
    oom_sem_fn fn;
    bool whole_file;     /* see oom_sem_entry */
    bool dotted_names;   /* see oom_sem_entry */
    bool asks_grad_on;   /* #oom-grad-enabled? (not negated): the finding depends on the callers */
    uint32_t file_slot;  /* its answer's place in oom_sem_env.file_answers */
};

/* The words a file must contain for each pattern to run (engine/words.c). */
typedef struct {
    char **words; /* distinct, by id */
    uint32_t word_count;
    size_t word_cap;
    uint32_t min_len, max_len;
    uint32_t *slots; /* open-addressing hash of the words: id + 1, 0 empty */
    uint32_t slot_mask;
    uint32_t *ids; /* the clauses' word ids */
    size_t id_count, id_cap;
    struct oom_word_clause *clauses;
    size_t clause_count, clause_cap;
} oom_word_filter;

/* Whether s is one identifier-like word ([A-Za-z_][A-Za-z0-9_]*). */
bool oom_words_is_word(const char *s);
/* Pattern `pattern` needs one of these words in the file. Ignored unless
 * each is a word (the scan could not find another string). */
void oom_words_add_clause(oom_word_filter *w, uint32_t pattern, const char *const *words, size_t count);
bool oom_words_filters(const oom_word_filter *w);
/* Sets on[p] for each pattern whose clauses the text satisfies (all when
 * there are no clauses); present is scratch of one byte per word. */
void oom_words_enable(const oom_word_filter *w, const char *text, size_t len, uint8_t *present,
                      uint8_t *on, uint32_t pattern_count);
void oom_words_free(oom_word_filter *w);

/* One way to fix a rule's finding (oomlint/fix.h), compiled against the
 * language's query: its conditions as predicates, each edit's capture id. */
typedef struct {
    const oom_fix_alternative *spec;
    oom_pred *when;
    size_t when_count;
    uint32_t *edit_captures; /* per edit of spec */
} oom_fix_compiled;

typedef struct {
    const oom_rule *rule;
    oom_fix_compiled *fixes; /* the rule's fix alternatives, in order */
    size_t fix_count;
    const char *query;      /* this language's query text of the rule */
    const char *query_file; /* "query.scm" or "query.json.scm", for errors */
    uint32_t first_pattern, pattern_end; /* [first, end) in the combined query */
    uint32_t source_start, source_end;   /* byte range in the combined source */
    uint32_t report_capture;             /* @report, or UINT32_MAX */
} oom_rule_slot;

typedef struct {
    oom_query *query; /* NULL when no rule of this language is selected */
    /* The patterns oomlint's matcher leaves to tree-sitter's cursor, as a
     * query of their own; NULL when there are none. (A user's rules are
     * also read by tree-sitter whole, for its checks, and that reading is
     * then dropped.) */
    TSQuery *ts_query;
    bool ts_cursor_needed;
    uint32_t *ts_capture_map; /* tree-sitter capture id -> ours */
    uint32_t *ts_pattern_map; /* tree-sitter pattern index -> ours */
    oom_rule_slot *slots;
    size_t slot_count;
    oom_pred **preds; /* per pattern: an array ... */
    size_t *pred_counts;
    uint32_t pattern_count;
    uint32_t comment_pattern; /* pattern that captures comments; UINT32_MAX if none */
    oom_word_filter words;    /* patterns a file's words rule out */
} oom_lang_query;

struct oom_compiled {
    const oom_rule_list *rules;
    uint32_t file_slots; /* whole-file predicates of every language */
    oom_run_context run;
    bool *enabled; /* per rule index */
    oom_lang_query langs[OOM_LANG_COUNT];
};

/* A semantic predicate's entry: name (without '?'), answer, argument count,
 * languages it applies to, and whether its one argument is a regex. */
enum { OOM_SEM_PYTHON = 1, OOM_SEM_JSON = 2, OOM_SEM_YAML = 4 };

typedef struct {
    const char *name;
    oom_sem_fn fn;
    int min_args, max_args;
    unsigned languages;
    bool regex_arg;
    const char *doc;
    /* the answer depends on the file (or the run) only, not on the node: it
     * is computed once per file, and tested before the others */
    bool whole_file;
    /* the arguments are dotted names and the answer is true only when the
     * captured node's dotted name is one of them: its last part must then
     * be a word of the file (engine/words.c) */
    bool dotted_names;
} oom_sem_entry;

const oom_sem_entry *oom_sem_find(const char *name, size_t len);

/* Parses the predicates of pattern `i`; on error writes "reason" into err. */
/* Predicates come out cheapest first: whole-file questions, then text
 * tests, then the other semantic questions, each group in the rule's order;
 * whole-file ones take slots from *file_slots. */
int oom_preds_compile(const oom_query *q, uint32_t pattern, oom_lang lang, oom_pred **out,
                      size_t *count, uint32_t *file_slots, oom_buf *err);
void oom_preds_free(oom_pred *preds, size_t count);
/* One predicate written as text, as in a query: `#oom-passed-to? @call
 * "load_state_dict"` (the parentheses may be left out); its captures are
 * the query's. A whole-file one takes a slot from *file_slots. */
int oom_pred_compile_text(const oom_query *q, const char *text, oom_lang lang, oom_pred *out,
                          uint32_t *file_slots, oom_buf *err);
/* Whether every predicate holds for this match. `model` is NULL outside Python. */
/* `*limit_hit` is set when a regex was stopped by the PCRE2 match limit. */
bool oom_preds_hold(const oom_pred *preds, size_t count, const TSQueryMatch *match,
                    const char *src, const oom_sem_env *env, TSNode site,
                    pcre2_match_data *md, pcre2_match_context *mctx, oom_buf *scratch,
                    bool *limit_hit);

#endif

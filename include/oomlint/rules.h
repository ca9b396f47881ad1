/* rules: rule definitions as data. A rule is a folder holding rule.json
 * (code, name, language, severity, message, help, and optionally the fix
 * that resolves a finding), query.scm (its
 * tree-sitter query; absent for the engine's own rules), optionally
 * query.<language>.scm for the same problem in another language (a JSON
 * config), and doc.md (What it does / Why is this bad? / Example / Use
 * instead / References). The rules
 * under rules/ are embedded at build time; --rules DIR adds more. */
#ifndef OOMLINT_RULES_H
#define OOMLINT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oomlint/diag.h"
#include "oomlint/fix.h"
#include "oomlint/lang.h"
#include "oomlint/util.h"

typedef struct {
    char *code;      /* OOM201 */
    char *name;      /* tensor-with-graph-stored */
    oom_lang lang;   /* OOM_LANG_NONE: reported by the engine itself */
    oom_severity severity;
    char *message;   /* may name captures: {{value}} */
    char *help;
    char *url;       /* may be NULL */
    char *doc;       /* Markdown */
    char *summary;   /* first sentence of "What it does" */
    char *query;     /* may be NULL */
    /* The same rule in other languages: query.json.scm beside a Python
     * rule's query.scm checks the JSON configs for the same problem. */
    char *extra_query[OOM_LANG_COUNT];
    char *origin;    /* folder it came from, for error messages */
    bool opt_in;     /* "default": false in rule.json: runs only when --select names it
                        (or a prefix of it): its findings on real code are too often
                        not worth a fix to be on for everyone (tests/ecosystem) */
    /* "fix" in rule.json: the edits that resolve a finding (oomlint/fix.h);
     * NULL when the rule has none */
    oom_fix_spec *fix;
    /* "unnecessary": true in rule.json: the code it reports can go (a
     * cache flush in a loop): editors fade it (LSP's Unnecessary tag) */
    bool unnecessary;
    /* "one_per": "function" in rule.json: the rule's findings in one function
     * (or in a module's top-level code) share one cause, a fixed device
     * chosen or no_grad left out there, and are reported as one finding
     * with the other places related (oomlint/diag.h) */
    bool one_per_function;
    /* "related": "grad-on-calls" in rule.json: the file's calls of the
     * function around a finding that run with autograd on are places of its
     * cause (a no_grad around such a call is the fix there) */
    bool grad_on_calls_related;
    bool builtin;    /* embedded at build time (its query is checked by the test
                        suite against tree-sitter's own reader, not at run time) */
    /* a hash of its rule.json and queries: a rule changed in a --rules
     * folder misses the on-disk cache (oomlint/cache.h) */
    uint64_t source_hash;
} oom_rule;

/* One file of a rule tree: embedded at build time or read from --rules. */
typedef struct {
    const char *path; /* relative: "python/OOM201-tensor-with-graph-stored/rule.json" */
    const char *data;
    size_t len;
} oom_rule_file;

typedef struct {
    oom_rule *items;
    size_t len;
    size_t cap;
} oom_rule_list;

/* The files under rules/, generated into the binary by the build. */
extern const oom_rule_file oom_embedded_rule_files[];
extern const size_t oom_embedded_rule_file_count;

/* Adds the rules of `files` (grouped by folder). On error returns -1 with a
 * message "FILE:LINE:COL: reason" in `err`; rules already added stay. */
int oom_rules_add_files(oom_rule_list *rules, const oom_rule_file *files, size_t count,
                        const char *origin_root, oom_buf *err);
int oom_rules_add_embedded(oom_rule_list *rules, oom_buf *err);
/* Reads every rule folder under `dir` (recursively). */
int oom_rules_add_dir(oom_rule_list *rules, const char *dir, oom_buf *err);

const oom_rule *oom_rules_find(const oom_rule_list *rules, const char *code);
void oom_rules_free(oom_rule_list *rules);
/* A rule's documentation as `oomlint rule CODE` prints it (Markdown): its
 * name and code, severity, language, default, fix, then doc.md. The
 * language server's hover shows the same text. */
void oom_rule_describe(const oom_rule *r, oom_buf *out);


#endif

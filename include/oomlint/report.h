/* report: turns the sorted diagnostics into one of the output formats. */
#ifndef OOMLINT_REPORT_H
#define OOMLINT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "oomlint/diag.h"
#include "oomlint/util.h"

#include "oomlint/rules.h"

typedef enum {
    OOM_FORMAT_FULL,
    OOM_FORMAT_CONCISE,
    OOM_FORMAT_JSON,
    OOM_FORMAT_JSON_LINES,
    OOM_FORMAT_SARIF,
    OOM_FORMAT_GITHUB,
    OOM_FORMAT_GITLAB,
    OOM_FORMAT_JUNIT,
    OOM_FORMAT_PYLINT,
    OOM_FORMAT_RDJSON,
} oom_format;

/* Returns 0 and sets *out for a format name ("full", "sarif" ...); -1 otherwise. */
int oom_format_parse(const char *name, oom_format *out);
/* "full, concise, json, ..." for messages and --help. */
const char *oom_format_names(void);

#define OOM_VERSION "0.1.0"
#define OOM_INFORMATION_URI "https://github.com/oomlint/oomlint"

/* What `--fix` fixed: per file and code, how many. */
typedef struct {
    char *path;
    char *code;
    char *name;
    size_t count;
} oom_fixed_entry;

typedef struct {
    oom_fixed_entry *items; /* by path, then code */
    size_t len, cap;
    size_t total; /* fixes applied */
    size_t files; /* files changed */
} oom_fix_summary;

void oom_fix_summary_add(oom_fix_summary *s, const char *path, const char *code, const char *name);
void oom_fix_summary_free(oom_fix_summary *s);

typedef struct {
    oom_format format;
    bool color;
    bool quiet;       /* no summary line */
    bool statistics;  /* counts per rule instead of findings */
    size_t files_checked;
    const oom_rule_list *rules; /* rule metadata for SARIF; may be NULL */
    const char *base_dir;       /* absolute working directory, for SARIF URIs */
    bool show_fixes;            /* full format: each fix's edits under its finding */
    const oom_fix_summary *fixed; /* what --fix fixed (text formats say so); NULL: not fixing */
} oom_report_options;

/* Writes the report into `out` (complete text; the caller writes it where it
 * belongs, whole). */
void oom_report_render(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out);

/* Pieces shared by the formats and tested on their own. */
void oom_report_json_escape(oom_buf *out, const char *s);
void oom_report_summary(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out);
/* "Fixed 3 problems in 2 files." and, with show_fixes, the fixes per file
 * and code (Ruff's --show-fixes list). */
void oom_report_fix_summary(const oom_fix_summary *fixed, bool show_fixes, oom_buf *out);
/* "[*] 3 fixable with `--fix`, 2 more with `--unsafe-fixes`." (oom_diag.fixable);
 * nothing when no finding has a fix to apply. */
void oom_report_fixable_line(const oom_diag_list *diags, oom_buf *out);
void oom_report_statistics(const oom_diag_list *diags, oom_buf *out);
/* GitHub workflow-command escaping: message data (`%`, CR, LF) and, with
 * `property`, also `:` and `,`. */
void oom_report_github_escape(oom_buf *out, const char *s, bool property);
void oom_report_xml_escape(oom_buf *out, const char *s);
/* A finding's fingerprint, stable across runs and line shifts: the code, the
 * path, the text of the finding's first line (whitespace trimmed) and how
 * many identical ones came before it in the file. 16 hex digits. */
void oom_report_fingerprints(const oom_diag_list *diags, char (*out)[17]);
/* A finding in a notebook's cell (oom_diag.cell) is shown as Ruff shows it:
 * "cell 3:9:5" where a format has a place for it (full, concise, json);
 * the formats whose positions are lines of the file (SARIF, GitHub, GitLab,
 * JUnit, pylint, rdjson) point at the .ipynb lines that hold the code and
 * name the cell in the message. */
/* The message, after "cell 3:9:5: " when the finding is in a notebook's cell. */
void oom_report_cell_message(oom_buf *out, const oom_diag *d);
/* The lines of the file the finding spans: for a notebook, the .ipynb's. */
void oom_report_file_rows(const oom_diag *d, uint32_t *start, uint32_t *end);
/* A relative path as a URI reference (percent-encoded). */
void oom_report_uri_path(oom_buf *out, const char *path);
/* Markdown summary for GITHUB_STEP_SUMMARY: counts per rule, top files. */
void oom_report_github_summary(const oom_diag_list *diags, oom_buf *out);

/* A unified diff (three lines of context, GNU diff's format) from `before`
 * to `after`, headed `--- PATH` / `+++ PATH`; nothing when they are equal. */
void oom_report_unified_diff(const char *path, const char *before, size_t before_len, const char *after,
                             size_t after_len, oom_buf *out);

/* The writers, one per format family (report/<family>.c). */
void oom_render_text(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out);
void oom_render_json(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out);
void oom_render_json_lines(const oom_diag_list *diags, oom_buf *out);
void oom_render_gitlab(const oom_diag_list *diags, oom_buf *out);
void oom_render_rdjson(const oom_diag_list *diags, oom_buf *out);
void oom_render_sarif(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out);
void oom_render_github(const oom_diag_list *diags, oom_buf *out);
void oom_render_junit(const oom_diag_list *diags, oom_buf *out);
void oom_render_pylint(const oom_diag_list *diags, oom_buf *out);

#endif

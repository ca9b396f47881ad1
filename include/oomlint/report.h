/* report: turns the sorted diagnostics into one of the output formats. */
#ifndef OOMLINT_REPORT_H
#define OOMLINT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "oomlint/diag.h"
#include "oomlint/util.h"

typedef enum {
    OOM_FORMAT_FULL,
    OOM_FORMAT_CONCISE,
    OOM_FORMAT_JSON,
} oom_format;

/* Returns 0 and sets *out for "full", "concise", "json"; -1 otherwise. */
int oom_format_parse(const char *name, oom_format *out);

typedef struct {
    oom_format format;
    bool color;
    size_t files_checked;
} oom_report_options;

/* Writes the report into `out` (complete text; the caller writes it where it
 * belongs, whole). */
void oom_report_render(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out);

/* Pieces shared by the formats and tested on their own. */
void oom_report_json_escape(oom_buf *out, const char *s);
void oom_report_summary(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out);

#endif

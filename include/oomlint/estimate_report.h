/* oomlint/estimate_report.h: `oomlint estimate`'s result rendered
 * (report/estimate.c): text, JSON, SVG. */
#ifndef OOMLINT_ESTIMATE_REPORT_H
#define OOMLINT_ESTIMATE_REPORT_H

#include <cJSON.h>
#include <stdio.h>

#include "oomlint/estimate.h"
#include "oomlint/kb.h"

/* One estimate with what it was made of. */
typedef struct {
    const oom_script_inputs *inputs;
    const oom_gpu *gpu;              /* NULL: no target GPU */
    const oom_estimate *estimate;
    const oom_launch_read *launch;   /* the launch command read; NULL or unused: none */
} oom_estimate_view;

/* The parts alive at the peak, a bar against the GPU, the launch command,
 * the inputs with their provenance and the launcher's notes. */
void oom_report_estimate_text(const oom_estimate_view *v, FILE *f);
/* The same as a JSON object the caller owns (and may add to). */
cJSON *oom_report_estimate_json(const oom_estimate_view *v);
/* The parts as an SVG bar chart with the GPU's capacity marked. */
void oom_report_estimate_svg(const oom_estimate_view *v, oom_buf *svg);
/* Text from a script or a command, written so that a terminal never
 * interprets it (a shell script may hold any byte). */
void oom_report_display(FILE *f, const char *s);

#endif

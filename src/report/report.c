/* report: picks the writer for a format. Every writer renders into a buffer;
 * the caller writes it out whole. */
#include "oomlint/report.h"

#include <string.h>

static const struct {
    const char *name;
    oom_format format;
} formats[] = {
    {"full", OOM_FORMAT_FULL},         {"concise", OOM_FORMAT_CONCISE},
    {"json", OOM_FORMAT_JSON},         {"json-lines", OOM_FORMAT_JSON_LINES},
    {"sarif", OOM_FORMAT_SARIF},       {"github", OOM_FORMAT_GITHUB},
    {"gitlab", OOM_FORMAT_GITLAB},     {"junit", OOM_FORMAT_JUNIT},
    {"pylint", OOM_FORMAT_PYLINT},     {"rdjson", OOM_FORMAT_RDJSON},
};

int oom_format_parse(const char *name, oom_format *out)
{
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (strcmp(name, formats[i].name) == 0) {
            *out = formats[i].format;
            return 0;
        }
    return -1;
}

const char *oom_format_names(void)
{
    return "full, concise, json, json-lines, sarif, github, gitlab, junit, pylint, rdjson";
}

void oom_report_render(const oom_diag_list *diags, const oom_report_options *opts, oom_buf *out)
{
    if (opts->statistics) {
        oom_report_statistics(diags, out);
        return;
    }
    switch (opts->format) {
    case OOM_FORMAT_FULL:
    case OOM_FORMAT_CONCISE:
        oom_render_text(diags, opts, out);
        break;
    case OOM_FORMAT_JSON:
        oom_render_json(diags, opts, out);
        break;
    case OOM_FORMAT_JSON_LINES:
        oom_render_json_lines(diags, out);
        break;
    case OOM_FORMAT_SARIF:
        oom_render_sarif(diags, opts, out);
        break;
    case OOM_FORMAT_GITHUB:
        oom_render_github(diags, out);
        break;
    case OOM_FORMAT_GITLAB:
        oom_render_gitlab(diags, out);
        break;
    case OOM_FORMAT_JUNIT:
        oom_render_junit(diags, out);
        break;
    case OOM_FORMAT_PYLINT:
        oom_render_pylint(diags, out);
        break;
    case OOM_FORMAT_RDJSON:
        oom_render_rdjson(diags, out);
        break;
    }
}

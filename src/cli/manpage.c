/* cli/manpage: oomlint.1 in roff, from the --help text and the rules' own
 * documentation, so the manual cannot disagree with either. */
#include <string.h>

#include "oomlint/cli.h"

/* roff treats a leading '.' or '\'' as a request and '\' as an escape. */
static void roff_line(FILE *out, const char *s, size_t len)
{
    if (len > 0 && (s[0] == '.' || s[0] == '\''))
        fputs("\\&", out);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\')
            fputs("\\e", out);
        else if (s[i] == '-')
            fputs("\\-", out);
        else
            fputc(s[i], out);
    }
    fputc('\n', out);
}

/* Markdown as the rules write it: ## headings, ``` fences, - bullets. */
static void markdown_to_roff(FILE *out, const char *md)
{
    bool code = false;
    const char *line = md;
    while (line && *line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len >= 3 && strncmp(line, "```", 3) == 0) {
            fputs(code ? ".fi\n.RE\n" : ".RS 4\n.nf\n", out);
            code = !code;
        } else if (!code && len > 3 && strncmp(line, "## ", 3) == 0) {
            fputs(".TP\n.B ", out);
            roff_line(out, line + 3, len - 3);
            fputs(".br\n", out);
        } else if (!code && len > 2 && strncmp(line, "- ", 2) == 0) {
            fputs(".IP \\(bu 2\n", out);
            roff_line(out, line + 2, len - 2);
        } else if (!code && len == 0) {
            fputs(".PP\n", out);
        } else {
            roff_line(out, line, len);
        }
        line = eol ? eol + 1 : NULL;
    }
    if (code)
        fputs(".fi\n.RE\n", out);
}

int oom_cli_manpage(const oom_rule_list *rules, FILE *out)
{
    fputs(".TH OOMLINT 1 \"\" \"oomlint " OOM_VERSION "\" \"User Commands\"\n", out);
    fputs(".SH NAME\noomlint \\- find the code that makes GPU memory run out, before the job runs\n", out);
    fputs(".SH SYNOPSIS\n.nf\n", out);
    const char *usage = oom_cli_usage();
    const char *line = strchr(usage, '\n'); /* skip the title line */
    while (line && *line) {
        line++;
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len == 6 && strncmp(line, "Usage:", 6) == 0) {
        } else if (len == 8 && strncmp(line, "Options:", 8) == 0) {
            fputs(".fi\n.SH OPTIONS\n.nf\n", out);
        } else if (len > 17 && strncmp(line, "Estimate options ", 17) == 0) {
            fputs(".fi\n.SS ", out);
            roff_line(out, line, len - 1); /* without the colon */
            fputs(".nf\n", out);
        } else if (len == 0) {
            fputs(".fi\n.PP\n.nf\n", out);
        } else {
            roff_line(out, line, len);
        }
        line = eol;
    }
    fputs(".fi\n.SH RULES\n", out);
    for (size_t i = 0; i < rules->len; i++) {
        const oom_rule *r = &rules->items[i];
        fprintf(out, ".SS %s ", r->code);
        roff_line(out, r->name, strlen(r->name));
        fprintf(out, "Severity: %s. %s\n.PP\n", oom_severity_name(r->severity),
                r->opt_in ? "Opt-in: runs when \\-\\-select names it." : "On by default.");
        markdown_to_roff(out, r->doc);
    }
    fputs(".SH EXIT STATUS\n0: nothing found; 1: problems found; 2: the run failed.\n", out);
    return ferror(out) ? -1 : 0;
}

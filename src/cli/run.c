/* cli/run: the commands (check, rule, rules, --help, --version). This is the
 * only layer that prints or decides the exit code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oomlint/cli.h"
#include "oomlint/discover.h"
#include "oomlint/engine.h"
#include "oomlint/rules.h"
#include "oomlint/source.h"
#include "oomlint/text.h"

#define OOM_VERSION "0.1.0"

static const char usage_text[] =
    "oomlint " OOM_VERSION " - find the code that makes GPU memory run out, before the job runs\n"
    "\n"
    "Usage:\n"
    "  oomlint [check] [OPTIONS] [PATH...]   lint files and folders (default: .); - reads stdin\n"
    "  oomlint rule CODE                     show a rule's documentation\n"
    "  oomlint rules                         list every rule\n"
    "\n"
    "Options:\n"
    "  --select CODES          only these codes or prefixes (comma-separated: OOM2,OOM101)\n"
    "  --ignore CODES          skip these codes or prefixes\n"
    "  --exclude GLOB          skip files and folders matching GLOB (repeatable)\n"
    "  --format FORMAT         full (default), concise or json\n"
    "  --color WHEN            auto (default; honours NO_COLOR), always or never\n"
    "  --stdin-filename NAME   the name to report for a file read from stdin\n"
    "  --rules DIR             load more rules from DIR (repeatable)\n"
    "  -V, --version           print the version\n"
    "  -h, --help              print this help\n"
    "\n"
    "Suppress a finding with `# noqa: OOM201` or `# oomlint: disable=OOM201` on its line,\n"
    "or a whole file with `# oomlint: disable-file` on a line of its own.\n"
    "Exit status: 0 nothing found, 1 problems found, 2 the run failed.\n";

static void print_error(const char *msg)
{
    oom_buf out;
    oom_buf_init(&out);
    oom_buf_puts(&out, "oomlint: error: ");
    oom_text_append_display(&out, msg, strlen(msg), 0);
    fprintf(stderr, "%s\n", out.data);
    oom_buf_free(&out);
}

static bool use_color(oom_color_mode mode)
{
    if (mode != OOM_COLOR_AUTO)
        return mode == OOM_COLOR_ALWAYS;
    const char *no_color = getenv("NO_COLOR");
    if (no_color && *no_color)
        return false;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return isatty(STDOUT_FILENO);
}

static int load_rules(const oom_settings *s, oom_rule_list *rules)
{
    oom_buf err;
    oom_buf_init(&err);
    int rc = oom_rules_add_embedded(rules, &err);
    for (size_t i = 0; rc == 0 && i < s->rule_dirs.len; i++)
        rc = oom_rules_add_dir(rules, s->rule_dirs.items[i], &err);
    if (rc != 0)
        print_error(err.data);
    oom_buf_free(&err);
    return rc;
}

/* ---- oomlint rule / rules ---------------------------------------------------------------- */

static int cmd_rule(const oom_settings *s, const oom_rule_list *rules)
{
    char code[32];
    snprintf(code, sizeof code, "%s", s->rule_code);
    for (char *c = code; *c; c++)
        *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
    const oom_rule *r = oom_rules_find(rules, code);
    if (!r) {
        for (size_t i = 0; i < rules->len && !r; i++)
            if (strcmp(rules->items[i].name, s->rule_code) == 0)
                r = &rules->items[i];
    }
    if (!r) {
        oom_buf msg;
        oom_buf_init(&msg);
        oom_buf_printf(&msg, "unknown rule '%s' (see oomlint rules)", s->rule_code);
        print_error(msg.data);
        oom_buf_free(&msg);
        return OOM_EXIT_FAILURE;
    }
    printf("# %s (%s)\n\n", r->name, r->code);
    printf("Severity: %s. Language: %s.\n\n", oom_severity_name(r->severity),
           r->lang == OOM_LANG_NONE ? "any" : oom_lang_name(r->lang));
    fputs(r->doc, stdout);
    if (r->doc[0] && r->doc[strlen(r->doc) - 1] != '\n')
        putchar('\n');
    return OOM_EXIT_CLEAN;
}

static int cmd_rules(const oom_rule_list *rules)
{
    for (size_t i = 0; i < rules->len; i++) {
        const oom_rule *r = &rules->items[i];
        printf("%-8s %-36s %-8s %s\n", r->code, r->name, oom_severity_name(r->severity), r->summary);
    }
    return OOM_EXIT_CLEAN;
}

/* ---- oomlint check ------------------------------------------------------------------------- */

typedef struct {
    const oom_settings *s;
    const oom_compiled *compiled;
    oom_linter *linter;
    oom_diag_list diags;
    size_t files_checked;
    bool failed;
} check_run;

/* Lints a file whose syntax errors are not ours to report. */
static void lint_quietly(check_run *run, oom_source *src, oom_lang lang)
{
    oom_diag_list found = {NULL, 0, 0};
    oom_linter_run(run->linter, src, lang, &found);
    unsigned char *drop = oom_xcalloc(found.len ? found.len : 1, 1);
    for (size_t i = 0; i < found.len; i++)
        drop[i] = strcmp(found.items[i].code, "OOM001") == 0;
    oom_diag_list_remove_if_marked(&found, drop);
    free(drop);
    oom_diag_list_move(&run->diags, &found);
}

static void lint_target(check_run *run, const oom_target *t)
{
    const char *display = t->path;
    if (strcmp(t->path, "-") == 0)
        display = run->s->stdin_filename ? run->s->stdin_filename : "<stdin>";
    oom_lang lang = t->lang;
    if (strcmp(t->path, "-") == 0 && run->s->stdin_filename) {
        oom_lang by_name = oom_lang_for_path(run->s->stdin_filename);
        lang = by_name == OOM_LANG_NONE ? OOM_LANG_PYTHON : by_name;
    }
    oom_source src;
    char why[512];
    run->files_checked++;
    if (oom_source_read(t->path, display, &src, why, sizeof why) != OOM_SOURCE_OK)
        oom_report_unreadable(run->compiled, display, why, &run->diags);
    else if (lang == OOM_LANG_JSON && !t->named && !oom_discover_is_config_json(t->path))
        lint_quietly(run, &src, lang);
    else
        oom_linter_run(run->linter, &src, lang, &run->diags);
    oom_source_free(&src);
}

static void report_walk_errors(check_run *run, const oom_discovery *d)
{
    for (size_t i = 0; i < d->error_count; i++) {
        const oom_walk_error *e = &d->errors[i];
        if (e->named) {
            oom_buf msg;
            oom_buf_init(&msg);
            oom_buf_printf(&msg, "%s: %s", e->path, e->reason);
            print_error(msg.data);
            oom_buf_free(&msg);
            run->failed = true;
        } else {
            oom_report_unreadable(run->compiled, e->path, e->reason, &run->diags);
        }
    }
}

static int write_all(FILE *f, const oom_buf *b)
{
    if (b->len && fwrite(b->data, 1, b->len, f) != b->len)
        return -1;
    return fflush(f);
}

static int cmd_check(const oom_settings *s, const oom_rule_list *rules)
{
    oom_buf err;
    oom_buf_init(&err);
    oom_compiled *compiled = oom_compiled_new(rules, &s->selection, &err);
    if (!compiled) {
        print_error(err.data);
        oom_buf_free(&err);
        return OOM_EXIT_FAILURE;
    }
    check_run run = {s, compiled, oom_linter_new(compiled), {NULL, 0, 0}, 0, false};
    oom_discovery d;
    oom_discover((const char *const *)s->paths.items, s->paths.len, &s->exclude, &d);
    report_walk_errors(&run, &d);
    for (size_t i = 0; i < d.target_count; i++)
        lint_target(&run, &d.targets[i]);
    oom_diag_list_sort(&run.diags);
    oom_report_options opts = {s->format, use_color(s->color), run.files_checked};
    oom_buf out;
    oom_buf_init(&out);
    oom_report_render(&run.diags, &opts, &out);
    int rc = run.failed ? OOM_EXIT_FAILURE : run.diags.len ? OOM_EXIT_FOUND : OOM_EXIT_CLEAN;
    if (write_all(stdout, &out) != 0) {
        print_error("cannot write the report to standard output");
        rc = OOM_EXIT_FAILURE;
    }
    oom_buf_free(&out);
    oom_buf_free(&err);
    oom_discovery_free(&d);
    oom_diag_list_free(&run.diags);
    oom_linter_free(run.linter);
    oom_compiled_free(compiled);
    return rc;
}

int oom_cli_main(int argc, char **argv)
{
    oom_settings s;
    oom_buf err;
    oom_buf_init(&err);
    if (oom_cli_parse(argc, argv, &s, &err) != 0) {
        print_error(err.data);
        oom_buf_free(&err);
        oom_settings_free(&s);
        return OOM_EXIT_FAILURE;
    }
    oom_buf_free(&err);
    int rc = OOM_EXIT_CLEAN;
    if (s.command == OOM_CMD_HELP) {
        fputs(usage_text, stdout);
    } else if (s.command == OOM_CMD_VERSION) {
        printf("oomlint %s\n", OOM_VERSION);
    } else {
        oom_rule_list rules = {NULL, 0, 0};
        if (load_rules(&s, &rules) != 0)
            rc = OOM_EXIT_FAILURE;
        else if (s.command == OOM_CMD_RULE)
            rc = cmd_rule(&s, &rules);
        else if (s.command == OOM_CMD_RULES)
            rc = cmd_rules(&rules);
        else
            rc = cmd_check(&s, &rules);
        oom_rules_free(&rules);
    }
    oom_settings_free(&s);
    return rc;
}

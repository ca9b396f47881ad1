/* cli: the command line. Parsing is separate from running so that both can
 * be tested, and so that nothing below the CLI ever exits the process. */
#ifndef OOMLINT_CLI_H
#define OOMLINT_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "oomlint/diag.h"
#include "oomlint/engine.h"
#include "oomlint/kb.h"
#include "oomlint/report.h"
#include "oomlint/rules.h"
#include "oomlint/select.h"
#include "oomlint/util.h"

#define OOM_EXIT_CLEAN 0
#define OOM_EXIT_FOUND 1
#define OOM_EXIT_FAILURE 2

typedef enum {
    OOM_CMD_CHECK,
    OOM_CMD_RULE,
    OOM_CMD_RULES,
    OOM_CMD_VERSION,
    OOM_CMD_HELP,
    OOM_CMD_MANPAGE,
    OOM_CMD_GPUS,
    OOM_CMD_ESTIMATE,
    OOM_CMD_PREDICATES,
} oom_command;

typedef enum { OOM_COLOR_AUTO, OOM_COLOR_ALWAYS, OOM_COLOR_NEVER } oom_color_mode;

typedef struct {
    oom_command command;
    oom_strlist paths;
    oom_strlist exclude;
    oom_strlist rule_dirs;
    oom_selection selection;
    oom_format format;
    oom_color_mode color;
    char *stdin_filename; /* may be NULL */
    char *rule_code;      /* for `oomlint rule CODE` */
    int threads;          /* 0: one per online CPU */
    char *output_file;    /* may be NULL: stdout */
    char *diff_base;      /* may be NULL */
    bool statistics, exit_zero, quiet;
    oom_severity fail_on; /* the exit code counts findings at or above this */
    char *gpu;            /* --gpu NAME, or NULL */
    int num_gpus;         /* --num-gpus N, or 0 */
    char *torch_version;  /* --torch-version X.Y, or NULL */
    bool estimate_max_batch; /* estimate --max-batch */
    char *config_file;    /* --config FILE, or NULL: search upwards */
    bool isolated;        /* --isolated: ignore pyproject.toml */
    /* oomlint estimate */
    char *estimate_model;
    long long estimate_batch, estimate_seq, estimate_image;
    int estimate_precision, estimate_optimizer; /* -1: from the script */
    int estimate_task;                          /* an oom_task; -1: from the script or the model */
    bool estimate_checkpointing;
    char *plot_file;
} oom_settings;

/* Returns 0, or -1 with a one-line reason in err. */
int oom_cli_parse(int argc, char **argv, oom_settings *s, oom_buf *err);
void oom_settings_free(oom_settings *s);

int oom_cli_main(int argc, char **argv);
const char *oom_cli_usage(void);
/* `oomlint estimate`: see cli/estimate.c. */
int oom_cli_estimate(const oom_settings *s, const oom_kb *kb, const oom_run_context *run);
/* The manual page, made from the --help text and every rule's documentation. */
int oom_cli_manpage(const oom_rule_list *rules, FILE *out);

#endif

/* cli: the command line. Parsing is separate from running so that both can
 * be tested, and so that nothing below the CLI ever exits the process. */
#ifndef OOMLINT_CLI_H
#define OOMLINT_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "oomlint/config.h"
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
    OOM_CMD_SERVER,
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
    /* fixing (oomlint/fixer.h) */
    bool fix;             /* --fix: apply the fixes that apply, then report what is left */
    bool fix_only;        /* --fix-only: apply them, report nothing else */
    bool diff;            /* --diff: print what --fix would change, change nothing */
    bool show_fixes;      /* --show-fixes: each fix's edit under its finding; what --fix fixed */
    int unsafe_fixes;     /* --unsafe-fixes 1, --no-unsafe-fixes 0, -1: from [tool.oomlint] */
    oom_strlist fixable, unfixable; /* --fixable / --unfixable CODES; empty: from [tool.oomlint] */
    char *config_file;    /* --config FILE, or NULL: search upwards */
    bool isolated;        /* --isolated: ignore pyproject.toml */
    /* the on-disk cache (oomlint/cache.h): --no-cache, --cache-dir DIR
     * (NULL: OOMLINT_CACHE_DIR, cache-dir in [tool.oomlint], or the default);
     * --cache-stats says on standard error how many files it answered */
    bool no_cache, cache_stats;
    char *cache_dir;
    /* oomlint estimate */
    char *estimate_model;
    long long estimate_batch, estimate_seq, estimate_image;
    int estimate_precision, estimate_optimizer; /* -1: from the script */
    int estimate_task;                          /* an oom_task; -1: from the script or the model */
    bool estimate_checkpointing;
    char *plot_file;
    /* estimate -- COMMAND...: the words of the launch command (launch.h) */
    bool estimate_launch;
    oom_strlist launch_argv;
} oom_settings;

/* Returns 0, or -1 with a one-line reason in err. */
int oom_cli_parse(int argc, char **argv, oom_settings *s, oom_buf *err);
void oom_settings_free(oom_settings *s);

int oom_cli_main(int argc, char **argv);
const char *oom_cli_usage(void);
/* `oomlint estimate`: see cli/estimate.c. */
int oom_cli_estimate(const oom_settings *s, const oom_kb *kb, const oom_run_context *run);
/* ---- fixing (cli/fixing.c) --------------------------------------------------- */

/* The fix settings of a run: flags over [tool.oomlint]. */
typedef struct {
    bool apply;           /* --fix or --fix-only: write the fixes */
    bool diff;            /* --diff: show them */
    oom_applicability max; /* OOM_FIX_SAFE, or OOM_FIX_UNSAFE with unsafe fixes on */
    oom_selection fixable; /* select: fixable codes (ALL when not said), ignore: unfixable */
    /* per-file-ignores: a finding ignored in a file is not fixed there; may be NULL */
    const oom_config *config;
} oom_fix_settings;

/* Marks each finding with what --fix would do with its fix (oom_diag.fixable)
 * and drops the fix of an unfixable code, as Ruff does. */
void oom_cli_mark_fixable(const oom_fix_settings *fs, oom_diag_list *diags);

/* The files a fix run changed (or, with --diff, would change). */
typedef struct {
    oom_fix_summary summary;
    bool changed;       /* something was (or would be) changed */
    bool write_failed;  /* a file could not be written: the run failed */
    char *stdin_text;   /* stdin's fixed text (or its text as read), for standard output; NULL: no stdin */
    size_t stdin_len;
} oom_fix_outcome_set;

/* Fixes the files of `jobs` that have a fix to apply among `reported` (the
 * check's findings): each is read, fixed in memory round after round,
 * checked, and written (or, with --diff, its diff appended to `diff_out`).
 * A job with `text` (stdin) is fixed in memory only: the result is in
 * out->stdin_text. Problems (a file that would stop parsing, one changed on
 * disk) are printed to standard error. */
void oom_cli_fix_files(const oom_fix_settings *fs, const oom_compiled *compiled, const oom_job *jobs, size_t count,
                       const oom_diag_list *reported, oom_buf *diff_out, oom_fix_outcome_set *out);
void oom_fix_outcome_set_free(oom_fix_outcome_set *o);

/* The manual page, made from the --help text and every rule's documentation. */
int oom_cli_manpage(const oom_rule_list *rules, FILE *out);

#endif

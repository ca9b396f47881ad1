/* cli/internal.h: what the CLI's files share. */
#ifndef OOMLINT_CLI_INTERNAL_H
#define OOMLINT_CLI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "oomlint/cli.h"

typedef enum { OOM_OPT_COMMON, OOM_OPT_CHECK, OOM_OPT_ESTIMATE } oom_option_section;

#define OOM_CLI_BIG 100000000LL /* the bound of a "positive number" */

typedef struct cli_option cli_option;
/* Stores `value` (NULL for a flag) into the settings; -1 with a reason. */
typedef int (*cli_option_set)(const cli_option *o, oom_settings *s, const char *value, oom_buf *err);

/* One option: its spellings, what it takes, where it goes, and its help
 * (NULL: accepted, not listed). */
struct cli_option {
    const char *name;    /* "--output-file" */
    const char *alias;   /* "-o", or NULL */
    const char *metavar; /* "PATH"; NULL for a flag */
    cli_option_set set;
    size_t offset;       /* the settings field set_* functions write */
    long long min, max;  /* numbers: the range; set_command: the command */
    bool int_field;      /* the field is an int, not a long long */
    const char *const *choices; /* set_choice: the names, NULL-terminated */
    oom_option_section section;
    const char *help;    /* lines of help, '\n' between them */
};

const cli_option *oom_cli_options(size_t *count);
/* The option at argv[*i] (its value may take argv[*i + 1]): 1 taken, 0 not
 * an option, -1 a bad value (reason in err). */
int oom_cli_take_option(int argc, char **argv, int *i, oom_settings *s, oom_buf *err);
/* The --help lines of the options, in the table's order: those of
 * `oomlint estimate` alone, or all the others. */
void oom_cli_options_help(bool estimate, oom_buf *out);

/* ---- the on-disk cache of a check (cli/caching.c) ---------------------------- */

struct oom_cache;
/* What the run's results depend on, beside the build and the files. */
typedef struct {
    const oom_rule_list *rules;
    const oom_selection *selection;
    const oom_run_context *run;
    const oom_config *config; /* NULL: none found, or --isolated */
} oom_cli_cache_request;
/* The cache the check uses; NULL with --no-cache or OOMLINT_NO_CACHE. */
struct oom_cache *oom_cli_cache_open(const oom_settings *s, const oom_cli_cache_request *r);
/* Warns once when the cache could not be written, prints --cache-stats,
 * and frees it. */
void oom_cli_cache_close(const oom_settings *s, struct oom_cache *c);

#endif

/* cli/args: argv to settings: the commands and paths here, the options
 * from the table in cli/options.c. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/cli.h"
#include "internal.h"


static void settings_init(oom_settings *s)
{
    memset(s, 0, sizeof(*s));
    s->command = OOM_CMD_CHECK;
    s->format = OOM_FORMAT_FULL;
    s->color = OOM_COLOR_AUTO;
    s->fail_on = OOM_SEV_INFO;
    s->estimate_precision = -1;
    s->estimate_optimizer = -1;
    s->estimate_task = -1;
    s->unsafe_fixes = -1;
}

int oom_cli_parse(int argc, char **argv, oom_settings *s, oom_buf *err)
{
    settings_init(s);
    int i = 1;
    bool only_paths = false;
    bool command_seen = false;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (!only_paths && strcmp(arg, "--") == 0) {
            if (s->command == OOM_CMD_ESTIMATE) { /* estimate -- torchrun ... train.py ...: the launch command */
                s->estimate_launch = true;
                for (i++; i < argc; i++)
                    oom_strlist_push(&s->launch_argv, argv[i]);
                break;
            }
            only_paths = true;
            continue;
        }
        if (!only_paths && arg[0] == '-' && arg[1] != '\0') {
            int r = oom_cli_take_option(argc, argv, &i, s, err);
            if (r < 0)
                return -1;
            if (r == 0) {
                oom_buf_printf(err, "unknown option '%s' (see oomlint --help)", arg);
                return -1;
            }
            continue;
        }
        if (!command_seen && !only_paths && s->paths.len == 0) {
            command_seen = true;
            if (strcmp(arg, "check") == 0)
                continue;
            if (strcmp(arg, "rules") == 0) {
                s->command = s->command == OOM_CMD_CHECK ? OOM_CMD_RULES : s->command;
                continue;
            }
            if (strcmp(arg, "rule") == 0) {
                if (i + 1 >= argc) {
                    oom_buf_puts(err, "usage: oomlint rule CODE (see oomlint rules for the list)");
                    return -1;
                }
                s->command = s->command == OOM_CMD_CHECK ? OOM_CMD_RULE : s->command;
                s->rule_code = oom_xstrdup(argv[++i]);
                continue;
            }
            if (strcmp(arg, "help") == 0) {
                s->command = OOM_CMD_HELP;
                continue;
            }
            if (strcmp(arg, "estimate") == 0) {
                s->command = OOM_CMD_ESTIMATE;
                continue;
            }
            if (strcmp(arg, "gpus") == 0) {
                s->command = OOM_CMD_GPUS;
                continue;
            }
            if (strcmp(arg, "predicates") == 0) {
                s->command = OOM_CMD_PREDICATES;
                continue;
            }
            if (strcmp(arg, "server") == 0) {
                s->command = OOM_CMD_SERVER;
                continue;
            }
            if (strcmp(arg, "manpage") == 0) {
                s->command = OOM_CMD_MANPAGE;
                continue;
            }
            if (strcmp(arg, "version") == 0) {
                s->command = OOM_CMD_VERSION;
                continue;
            }
        }
        oom_strlist_push(&s->paths, arg);
    }
    if (s->command == OOM_CMD_CHECK && s->paths.len == 0)
        oom_strlist_push(&s->paths, ".");
    /* --diff only shows what --fix would do; --fix-only is --fix without the report */
    if (s->diff && (s->fix || s->fix_only)) {
        oom_buf_puts(err, "--diff shows the fixes instead of applying them: it cannot go with --fix or --fix-only");
        return -1;
    }
    if (s->fix_only)
        s->fix = true;
    if ((s->fix || s->diff) && s->diff_base) {
        oom_buf_puts(err, "--diff-base narrows the report to changed lines; fixes apply to whole files: "
                          "use it without --fix, --fix-only and --diff");
        return -1;
    }
    return 0;
}

void oom_settings_free(oom_settings *s)
{
    oom_strlist_free(&s->paths);
    oom_strlist_free(&s->launch_argv);
    oom_strlist_free(&s->exclude);
    oom_strlist_free(&s->rule_dirs);
    oom_strlist_free(&s->fixable);
    oom_strlist_free(&s->unfixable);
    oom_selection_free(&s->selection);
    free(s->stdin_filename);
    free(s->rule_code);
    free(s->output_file);
    free(s->diff_base);
    free(s->gpu);
    free(s->torch_version);
    free(s->config_file);
    free(s->cache_dir);
    free(s->estimate_model);
    free(s->plot_file);
}

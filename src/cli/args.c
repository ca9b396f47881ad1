/* cli/args: argv to settings. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/cli.h"
#include "oomlint/estimate.h"

typedef struct {
    int argc;
    char **argv;
    int i;
    oom_buf *err;
} arg_cursor;

/* Matches "--name VALUE" and "--name=VALUE"; sets *value. */
static int take_value(arg_cursor *c, const char *name, const char **value)
{
    const char *arg = c->argv[c->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (arg[n] != '\0')
        return 0;
    if (c->i + 1 >= c->argc) {
        oom_buf_printf(c->err, "option %s needs a value", name);
        return -1;
    }
    *value = c->argv[++c->i];
    return 1;
}

static int parse_positive(arg_cursor *c, const char *flag, const char *v, long long *out)
{
    char *end = NULL;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || n < 1 || n > 100000000) {
        oom_buf_printf(c->err, "invalid %s '%s' (expected a positive number)", flag, v);
        return -1;
    }
    *out = n;
    return 1;
}

static int parse_color(const char *v, oom_color_mode *out, oom_buf *err)
{
    if (strcmp(v, "auto") == 0)
        *out = OOM_COLOR_AUTO;
    else if (strcmp(v, "always") == 0)
        *out = OOM_COLOR_ALWAYS;
    else if (strcmp(v, "never") == 0)
        *out = OOM_COLOR_NEVER;
    else {
        oom_buf_printf(err, "invalid --color '%s' (expected auto, always or never)", v);
        return -1;
    }
    return 0;
}

/* One option at c->i: 1 consumed, 0 not an option we know, -1 error. */
static int parse_option(arg_cursor *c, oom_settings *s)
{
    const char *v = NULL;
    int r;
    if ((r = take_value(c, "--select", &v)) != 0)
        return r < 0 ? r : oom_selection_parse_list(&s->selection.select, v, c->err) == 0 ? 1 : -1;
    if ((r = take_value(c, "--ignore", &v)) != 0)
        return r < 0 ? r : oom_selection_parse_list(&s->selection.ignore, v, c->err) == 0 ? 1 : -1;
    if ((r = take_value(c, "--fixable", &v)) != 0)
        return r < 0 ? r : oom_selection_parse_list(&s->fixable, v, c->err) == 0 ? 1 : -1;
    if ((r = take_value(c, "--unfixable", &v)) != 0)
        return r < 0 ? r : oom_selection_parse_list(&s->unfixable, v, c->err) == 0 ? 1 : -1;
    if ((r = take_value(c, "--exclude", &v)) != 0) {
        if (r > 0)
            oom_strlist_push(&s->exclude, v);
        return r;
    }
    if ((r = take_value(c, "--rules", &v)) != 0) {
        if (r > 0)
            oom_strlist_push(&s->rule_dirs, v);
        return r;
    }
    if ((r = take_value(c, "--stdin-filename", &v)) != 0) {
        if (r > 0) {
            free(s->stdin_filename);
            s->stdin_filename = oom_xstrdup(v);
        }
        return r;
    }
    if ((r = take_value(c, "--format", &v)) != 0 ||
        (r = take_value(c, "--output-format", &v)) != 0) { /* the second is Ruff's spelling */
        if (r > 0 && oom_format_parse(v, &s->format) != 0) {
            oom_buf_printf(c->err, "invalid format '%s' (expected one of: %s)", v, oom_format_names());
            return -1;
        }
        return r;
    }
    if ((r = take_value(c, "--output-file", &v)) != 0 || (r = take_value(c, "-o", &v)) != 0) {
        if (r > 0) {
            free(s->output_file);
            s->output_file = oom_xstrdup(v);
        }
        return r;
    }
    if ((r = take_value(c, "--diff-base", &v)) != 0) {
        if (r > 0) {
            free(s->diff_base);
            s->diff_base = oom_xstrdup(v);
        }
        return r;
    }
    if ((r = take_value(c, "--gpu", &v)) != 0) {
        if (r > 0) {
            free(s->gpu);
            s->gpu = oom_xstrdup(v);
        }
        return r;
    }
    if ((r = take_value(c, "--config", &v)) != 0) {
        if (r > 0) {
            free(s->config_file);
            s->config_file = oom_xstrdup(v);
        }
        return r;
    }
    if ((r = take_value(c, "--torch-version", &v)) != 0) {
        if (r < 0)
            return r;
        bool ok;
        oom_torch_loads_eagerly(v, &ok);
        if (!ok) {
            oom_buf_printf(c->err, "invalid --torch-version '%s' (expected a version such as 2.4 or 1.12.1)", v);
            return -1;
        }
        free(s->torch_version);
        s->torch_version = oom_xstrdup(v);
        return 1;
    }
    if ((r = take_value(c, "--num-gpus", &v)) != 0) {
        if (r < 0)
            return r;
        char *end = NULL;
        long n = strtol(v, &end, 10);
        if (!*v || *end || n < 1 || n > 100000) {
            oom_buf_printf(c->err, "invalid --num-gpus '%s' (expected a positive number)", v);
            return -1;
        }
        s->num_gpus = (int)n;
        return 1;
    }
    if ((r = take_value(c, "--model", &v)) != 0) {
        if (r > 0) {
            free(s->estimate_model);
            s->estimate_model = oom_xstrdup(v);
        }
        return r;
    }
    if ((r = take_value(c, "--plot", &v)) != 0) {
        if (r > 0) {
            free(s->plot_file);
            s->plot_file = oom_xstrdup(v);
        }
        return r;
    }
    if ((r = take_value(c, "--batch-size", &v)) != 0)
        return r < 0 ? r : parse_positive(c, "--batch-size", v, &s->estimate_batch);
    if ((r = take_value(c, "--seq-len", &v)) != 0)
        return r < 0 ? r : parse_positive(c, "--seq-len", v, &s->estimate_seq);
    if ((r = take_value(c, "--image-size", &v)) != 0)
        return r < 0 ? r : parse_positive(c, "--image-size", v, &s->estimate_image);
    if ((r = take_value(c, "--precision", &v)) != 0) {
        if (r < 0)
            return r;
        static const char *const names[] = {"fp32", "fp16", "bf16", "bf16-weights", "8bit", "4bit", NULL};
        for (int i = 0; names[i]; i++)
            if (strcmp(v, names[i]) == 0) {
                s->estimate_precision = i;
                return 1;
            }
        oom_buf_printf(c->err, "invalid --precision '%s' (expected fp32, fp16, bf16, bf16-weights, 8bit or 4bit)", v);
        return -1;
    }
    if ((r = take_value(c, "--optimizer", &v)) != 0) {
        if (r < 0)
            return r;
        static const char *const names[] = {"adamw", "sgd", "sgd-momentum", "adafactor", "adam8bit", NULL};
        for (int i = 0; names[i]; i++)
            if (strcmp(v, names[i]) == 0) {
                s->estimate_optimizer = i;
                return 1;
            }
        oom_buf_printf(c->err, "invalid --optimizer '%s' (expected adamw, sgd, sgd-momentum, adafactor or adam8bit)", v);
        return -1;
    }
    if ((r = take_value(c, "--task", &v)) != 0) {
        if (r < 0)
            return r;
        oom_task task;
        if (oom_task_from_id(v, &task)) {
            s->estimate_task = (int)task;
            return 1;
        }
        oom_buf_printf(c->err, "invalid --task '%s' (expected causal-lm, seq2seq, masked-lm, classification or embedding)", v);
        return -1;
    }
    if ((r = take_value(c, "--fail-on", &v)) != 0) {
        if (r > 0 && oom_severity_parse(v, &s->fail_on) != 0) {
            oom_buf_printf(c->err, "invalid --fail-on '%s' (expected error, warning or info)", v);
            return -1;
        }
        return r;
    }
    if ((r = take_value(c, "--threads", &v)) != 0) {
        if (r < 0)
            return r;
        char *end = NULL;
        long n = strtol(v, &end, 10);
        if (!*v || *end || n < 1 || n > 1024) {
            oom_buf_printf(c->err, "invalid --threads '%s' (expected a number from 1 to 1024)", v);
            return -1;
        }
        s->threads = (int)n;
        return 1;
    }
    if ((r = take_value(c, "--color", &v)) != 0)
        return r < 0 ? r : parse_color(v, &s->color, c->err) == 0 ? 1 : -1;
    const char *arg = c->argv[c->i];
    if (strcmp(arg, "--max-batch") == 0) {
        s->estimate_max_batch = true;
        return 1;
    }
    if (strcmp(arg, "--gradient-checkpointing") == 0) {
        s->estimate_checkpointing = true;
        return 1;
    }
    if (strcmp(arg, "--fix") == 0) {
        s->fix = true;
        return 1;
    }
    if (strcmp(arg, "--no-fix") == 0) {
        s->fix = false;
        return 1;
    }
    if (strcmp(arg, "--fix-only") == 0) {
        s->fix_only = true;
        return 1;
    }
    if (strcmp(arg, "--diff") == 0) {
        s->diff = true;
        return 1;
    }
    if (strcmp(arg, "--show-fixes") == 0) {
        s->show_fixes = true;
        return 1;
    }
    if (strcmp(arg, "--unsafe-fixes") == 0 || strcmp(arg, "--no-unsafe-fixes") == 0) {
        s->unsafe_fixes = arg[2] != 'n';
        return 1;
    }
    if (strcmp(arg, "--isolated") == 0) {
        s->isolated = true;
        return 1;
    }
    if (strcmp(arg, "--statistics") == 0) {
        s->statistics = true;
        return 1;
    }
    if (strcmp(arg, "--exit-zero") == 0) {
        s->exit_zero = true;
        return 1;
    }
    if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
        s->quiet = true;
        return 1;
    }
    if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0) {
        s->command = OOM_CMD_VERSION;
        return 1;
    }
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        s->command = OOM_CMD_HELP;
        return 1;
    }
    return 0;
}

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
    arg_cursor c = {argc, argv, 1, err};
    bool only_paths = false;
    bool command_seen = false;
    for (; c.i < argc; c.i++) {
        const char *arg = argv[c.i];
        if (!only_paths && strcmp(arg, "--") == 0) {
            if (s->command == OOM_CMD_ESTIMATE) { /* estimate -- torchrun ... train.py ...: the launch command */
                s->estimate_launch = true;
                for (c.i++; c.i < argc; c.i++)
                    oom_strlist_push(&s->launch_argv, argv[c.i]);
                break;
            }
            only_paths = true;
            continue;
        }
        if (!only_paths && arg[0] == '-' && arg[1] != '\0') {
            int r = parse_option(&c, s);
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
                if (c.i + 1 >= argc) {
                    oom_buf_puts(err, "usage: oomlint rule CODE (see oomlint rules for the list)");
                    return -1;
                }
                s->command = s->command == OOM_CMD_CHECK ? OOM_CMD_RULE : s->command;
                s->rule_code = oom_xstrdup(argv[++c.i]);
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
    free(s->estimate_model);
    free(s->plot_file);
}

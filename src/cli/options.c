/* cli/options: every command-line option, once. The table below is what
 * argv is parsed with (cli/args.c), what --help lists (cli/usage.c), what the
 * manual page's OPTIONS section is made from (cli/manpage.c, through the
 * usage text) and what the README's usage block must equal (a test compares
 * them), so no list of options is kept by hand anywhere else. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/cli.h"
#include "oomlint/estimate.h"
#include "internal.h"

#define AT(field) offsetof(oom_settings, field)

/* ---- values ---------------------------------------------------------------- */

static void *field(oom_settings *s, size_t offset)
{
    return (char *)s + offset;
}

static int set_string(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    (void)o;
    (void)err;
    char **slot = field(s, o->offset);
    free(*slot);
    *slot = oom_xstrdup(v);
    return 0;
}

static int push_string(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    (void)err;
    oom_strlist_push(field(s, o->offset), v);
    return 0;
}

static int push_codes(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    return oom_selection_parse_list(field(s, o->offset), v, err);
}

static int set_true(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    (void)v;
    (void)err;
    *(bool *)field(s, o->offset) = true;
    return 0;
}

static int set_false(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    (void)v;
    (void)err;
    *(bool *)field(s, o->offset) = false;
    return 0;
}

/* A whole number in [o->min, o->max], stored as long long or int. */
static int set_number(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    char *end = NULL;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || n < o->min || n > o->max) {
        if (o->min == 1 && o->max >= 100000)
            oom_buf_printf(err, "invalid %s '%s' (expected a positive number)", o->name, v);
        else
            oom_buf_printf(err, "invalid %s '%s' (expected a number from %lld to %lld)", o->name, v, o->min, o->max);
        return -1;
    }
    if (o->int_field)
        *(int *)field(s, o->offset) = (int)n;
    else
        *(long long *)field(s, o->offset) = n;
    return 0;
}

/* One of o->choices, stored as its index. */
static int set_choice(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    int i = 0;
    for (; o->choices[i]; i++)
        if (strcmp(v, o->choices[i]) == 0) {
            *(int *)field(s, o->offset) = i;
            return 0;
        }
    oom_buf_printf(err, "invalid %s '%s' (expected ", o->name, v);
    for (int k = 0; k < i; k++)
        oom_buf_printf(err, "%s%s", k == 0 ? "" : k == i - 1 ? " or " : ", ", o->choices[k]);
    oom_buf_putc(err, ')');
    return -1;
}

static int set_format(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    (void)o;
    if (oom_format_parse(v, &s->format) == 0)
        return 0;
    oom_buf_printf(err, "invalid format '%s' (expected one of: %s)", v, oom_format_names());
    return -1;
}

static int set_fail_on(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    (void)o;
    if (oom_severity_parse(v, &s->fail_on) == 0)
        return 0;
    oom_buf_printf(err, "invalid --fail-on '%s' (expected error, warning or info)", v);
    return -1;
}

static int set_torch(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    bool ok;
    oom_torch_loads_eagerly(v, &ok);
    if (!ok) {
        oom_buf_printf(err, "invalid --torch-version '%s' (expected a version such as 2.4 or 1.12.1)", v);
        return -1;
    }
    return set_string(o, s, v, err);
}

static int set_task(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    (void)o;
    oom_task task;
    if (oom_task_from_id(v, &task)) {
        s->estimate_task = (int)task;
        return 0;
    }
    oom_buf_printf(err, "invalid --task '%s' (expected causal-lm, seq2seq, masked-lm, classification or embedding)", v);
    return -1;
}

static int set_unsafe(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    (void)v;
    (void)err;
    s->unsafe_fixes = o->name[2] != 'n'; /* --unsafe-fixes / --no-unsafe-fixes */
    return 0;
}

static int set_command(const cli_option *o, oom_settings *s, const char *v, oom_buf *err)
{
    (void)v;
    (void)err;
    s->command = (oom_command)o->min;
    return 0;
}

/* ---- the table -------------------------------------------------------------- */

static const char *const precisions[] = {"fp32", "fp16", "bf16", "bf16-weights", "8bit", "4bit", NULL};
static const char *const optimizers[] = {"adamw", "sgd", "sgd-momentum", "adafactor", "adam8bit", NULL};
static const char *const colors[] = {"auto", "always", "never", NULL};

#define VALUE(n, a, meta, fn, off, sec, help) {n, a, meta, fn, off, 0, 0, false, NULL, sec, help}
#define FLAG(n, a, fn, off, sec, help) {n, a, NULL, fn, off, 0, 0, false, NULL, sec, help}
#define HIDDEN NULL /* an accepted spelling --help does not list */

static const cli_option options[] = {
    VALUE("--gpu", NULL, "NAME", set_string, AT(gpu), OOM_OPT_COMMON,
          "the GPU the job will run on (see oomlint gpus): a100-80gb, v100"),
    {"--num-gpus", NULL, "N", set_number, AT(num_gpus), 1, 100000, true, NULL, OOM_OPT_COMMON,
     "how many of them the job uses"},
    VALUE("--torch-version", NULL, "X.Y", set_torch, AT(torch_version), OOM_OPT_COMMON,
          "the job's PyTorch (default: current); before 1.13 every CUDA\n"
          "kernel loads at start-up, a 1.3 GiB context, not 0.27 GiB"),
    VALUE("--config", NULL, "FILE", set_string, AT(config_file), OOM_OPT_COMMON,
          "read [tool.oomlint] from FILE instead of the nearest pyproject.toml"),
    FLAG("--isolated", NULL, set_true, AT(isolated), OOM_OPT_COMMON, "ignore pyproject.toml settings"),
    VALUE("--select", NULL, "CODES", push_codes, AT(selection.select), OOM_OPT_CHECK,
          "only these codes or prefixes (comma-separated: OOM2,OOM101)"),
    VALUE("--extend-select", NULL, "CODES", push_codes, AT(selection.extend), OOM_OPT_CHECK,
          "these codes or prefixes too, on top of --select or the defaults"),
    VALUE("--ignore", NULL, "CODES", push_codes, AT(selection.ignore), OOM_OPT_CHECK,
          "skip these codes or prefixes"),
    VALUE("--exclude", NULL, "GLOB", push_string, AT(exclude), OOM_OPT_CHECK,
          "skip files and folders matching GLOB (repeatable)"),
    VALUE("--format", NULL, "FORMAT", set_format, 0, OOM_OPT_COMMON,
          "full (default), concise, json, json-lines, sarif, github,\n"
          "gitlab, junit, pylint, rdjson"),
    VALUE("--output-format", NULL, "FORMAT", set_format, 0, OOM_OPT_COMMON, HIDDEN), /* Ruff's spelling */
    VALUE("--output-file", "-o", "PATH", set_string, AT(output_file), OOM_OPT_CHECK,
          "write the report to PATH (whole or not at all)"),
    VALUE("--diff-base", NULL, "REF", set_string, AT(diff_base), OOM_OPT_CHECK,
          "report only lines added or changed since the git REF"),
    FLAG("--statistics", NULL, set_true, AT(statistics), OOM_OPT_CHECK, "print the number of findings per rule"),
    VALUE("--fail-on", NULL, "LEVEL", set_fail_on, 0, OOM_OPT_CHECK,
          "exit 1 only for findings at or above error, warning or info"),
    FLAG("--exit-zero", NULL, set_true, AT(exit_zero), OOM_OPT_CHECK, "exit 0 even when problems are found"),
    FLAG("--quiet", "-q", set_true, AT(quiet), OOM_OPT_CHECK, "no summary line"),
    {"--color", NULL, "WHEN", set_choice, AT(color), 0, 0, true, colors, OOM_OPT_CHECK,
     "auto (default; honours NO_COLOR), always or never"},
    VALUE("--stdin-filename", NULL, "NAME", set_string, AT(stdin_filename), OOM_OPT_CHECK,
          "the name to report for a file read from stdin"),
    VALUE("--rules", NULL, "DIR", push_string, AT(rule_dirs), OOM_OPT_CHECK, "load more rules from DIR (repeatable)"),
    FLAG("--fix", NULL, set_true, AT(fix), OOM_OPT_CHECK,
         "apply the safe fixes, then report what is left ([*] marks them)"),
    FLAG("--no-fix", NULL, set_false, AT(fix), OOM_OPT_CHECK, HIDDEN),
    FLAG("--unsafe-fixes", NULL, set_unsafe, 0, OOM_OPT_CHECK,
         "let --fix and --diff apply the unsafe fixes too, which may change\n"
         "what the code does (--no-unsafe-fixes: not even when\n"
         "[tool.oomlint] says so)"),
    FLAG("--no-unsafe-fixes", NULL, set_unsafe, 0, OOM_OPT_CHECK, HIDDEN),
    FLAG("--diff", NULL, set_true, AT(diff), OOM_OPT_CHECK,
         "print what --fix would change as a unified diff; change nothing\n"
         "(exit 1 when there is something to fix)"),
    FLAG("--fix-only", NULL, set_true, AT(fix_only), OOM_OPT_CHECK,
         "apply the fixes and report nothing else (exit 0 unless the run fails)"),
    FLAG("--show-fixes", NULL, set_true, AT(show_fixes), OOM_OPT_CHECK,
         "show each fix under its finding; with --fix, list what was fixed"),
    VALUE("--fixable", NULL, "CODES", push_codes, AT(fixable), OOM_OPT_CHECK,
          "only these codes or prefixes are fixed (default: ALL)"),
    VALUE("--unfixable", NULL, "CODES", push_codes, AT(unfixable), OOM_OPT_CHECK, "these are never fixed"),
    {"--threads", NULL, "N", set_number, AT(threads), 1, 1024, true, NULL, OOM_OPT_CHECK,
     "lint on N threads (default: the number of CPUs)"},
    FLAG("--no-cache", NULL, set_true, AT(no_cache), OOM_OPT_CHECK,
         "lint every file, neither reading nor writing the cache"),
    VALUE("--cache-dir", NULL, "DIR", set_string, AT(cache_dir), OOM_OPT_CHECK,
          "keep the cache in DIR (default: .oomlint_cache beside\n"
          "pyproject.toml; OOMLINT_CACHE_DIR, cache-dir in [tool.oomlint])"),
    FLAG("--cache-stats", NULL, set_true, AT(cache_stats), OOM_OPT_CHECK, HIDDEN),
    VALUE("--model", NULL, "ID", set_string, AT(estimate_model), OOM_OPT_ESTIMATE,
          "the model: a hub id (meta-llama/Llama-2-7b-hf) or an image\n"
          "model's name (resnet50)"),
    {"--batch-size", NULL, "N", set_number, AT(estimate_batch), 1, OOM_CLI_BIG, false, NULL, OOM_OPT_ESTIMATE,
     "the micro-batch per GPU"},
    {"--seq-len", NULL, "N", set_number, AT(estimate_seq), 1, OOM_CLI_BIG, false, NULL, OOM_OPT_ESTIMATE,
     "the sequence length in tokens"},
    {"--image-size", NULL, "N", set_number, AT(estimate_image), 1, OOM_CLI_BIG, false, NULL, OOM_OPT_ESTIMATE,
     "image models: the side of a square input"},
    {"--precision", NULL, "P", set_choice, AT(estimate_precision), 0, 0, true, precisions, OOM_OPT_ESTIMATE,
     "fp32, fp16, bf16, bf16-weights, 8bit or 4bit"},
    FLAG("--gradient-checkpointing", NULL, set_true, AT(estimate_checkpointing), OOM_OPT_ESTIMATE,
         "count the activations as gradient checkpointing keeps them"),
    {"--optimizer", NULL, "O", set_choice, AT(estimate_optimizer), 0, 0, true, optimizers, OOM_OPT_ESTIMATE,
     "adamw, sgd, sgd-momentum, adafactor or adam8bit"},
    VALUE("--task", NULL, "T", set_task, 0, OOM_OPT_ESTIMATE,
          "causal-lm, seq2seq, masked-lm, classification or embedding (a\n"
          "language-model head counts batch x sequence x vocabulary logits)"),
    VALUE("--plot", NULL, "FILE.svg", set_string, AT(plot_file), OOM_OPT_ESTIMATE,
          "draw the estimate's parts against the GPU as SVG"),
    FLAG("--max-batch", NULL, set_true, AT(estimate_max_batch), OOM_OPT_ESTIMATE,
         "the largest micro-batch within 90% of the GPU; with --batch-size,\n"
         "the longest sequence at that batch"),
    {"--version", "-V", NULL, set_command, 0, OOM_CMD_VERSION, 0, false, NULL, OOM_OPT_COMMON, "print the version"},
    {"--help", "-h", NULL, set_command, 0, OOM_CMD_HELP, 0, false, NULL, OOM_OPT_COMMON, "print this help"},
};

const cli_option *oom_cli_options(size_t *count)
{
    *count = sizeof options / sizeof options[0];
    return options;
}

/* ---- parsing one option ---------------------------------------------------- */

/* How `arg` names o: 0 not at all, 1 alone (`--gpu`), 2 with its value
 * attached (`--gpu=v100`; *value set). */
static int names_option(const cli_option *o, const char *arg, const char **value)
{
    const char *spellings[2] = {o->name, o->alias};
    for (int k = 0; k < 2; k++) {
        const char *n = spellings[k];
        if (!n)
            continue;
        size_t len = strlen(n);
        if (strncmp(arg, n, len) != 0)
            continue;
        if (arg[len] == '\0')
            return 1;
        if (arg[len] == '=' && o->metavar) {
            *value = arg + len + 1;
            return 2;
        }
    }
    return 0;
}

int oom_cli_take_option(int argc, char **argv, int *i, oom_settings *s, oom_buf *err)
{
    const char *arg = argv[*i];
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
        const cli_option *o = &options[k];
        const char *value = NULL;
        int how = names_option(o, arg, &value);
        if (!how)
            continue;
        if (how == 1 && o->metavar) {
            if (*i + 1 >= argc) {
                oom_buf_printf(err, "option %s needs a value", arg);
                return -1;
            }
            value = argv[++*i];
        }
        return o->set(o, s, value, err) == 0 ? 1 : -1;
    }
    return 0;
}

/* ---- the help text ----------------------------------------------------------- */

enum { HELP_COLUMN = 26 }; /* where the help text of every option starts */

static void option_help(const cli_option *o, oom_buf *out)
{
    size_t start = out->len;
    oom_buf_puts(out, "  ");
    if (o->alias)
        oom_buf_printf(out, "%s, ", o->alias);
    oom_buf_puts(out, o->name);
    if (o->metavar)
        oom_buf_printf(out, " %s", o->metavar);
    size_t width = out->len - start;
    const char *line = o->help;
    bool first = true;
    while (*line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        size_t pad = first && width < HELP_COLUMN - 1 ? HELP_COLUMN - width : HELP_COLUMN;
        if (first && width >= HELP_COLUMN - 1) /* a long name: its help on the next line */
            oom_buf_putc(out, '\n');
        for (size_t p = 0; p < pad; p++)
            oom_buf_putc(out, ' ');
        oom_buf_append(out, line, len);
        oom_buf_putc(out, '\n');
        first = false;
        line = eol ? eol + 1 : line + len;
    }
}

void oom_cli_options_help(bool estimate, oom_buf *out)
{
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
        if ((options[k].section == OOM_OPT_ESTIMATE) == estimate && options[k].help)
            option_help(&options[k], out);
}

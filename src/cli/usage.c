/* cli/usage: the one text that --help prints and the manual page is made
 * from: the commands here, the options from the table in cli/options.c. */
#include <pthread.h>

#include "oomlint/cli.h"
#include "internal.h"

static const char commands[] =
    "oomlint " OOM_VERSION " - find the code that makes GPU memory run out, before the job runs\n"
    "\n"
    "Usage:\n"
    "  oomlint [check] [OPTIONS] [PATH...]   lint files and folders (default: .); - reads stdin\n"
    "                                        (.py scripts, .ipynb notebooks, training JSON and YAML configs)\n"
    "  oomlint rule CODE                     show a rule's documentation\n"
    "  oomlint rules                         list every rule\n"
    "  oomlint gpus                          list the GPUs oomlint knows\n"
    "  oomlint predicates                    list the semantic predicates rules can ask\n"
    "  oomlint estimate [OPTIONS] [SCRIPT|config.json|train.yaml|train.sh]\n"
    "  oomlint estimate [OPTIONS] -- COMMAND...\n"
    "                                        peak GPU memory of the training job, per GPU;\n"
    "                                        COMMAND: python, torchrun (--nproc_per_node, --nnodes),\n"
    "                                        accelerate launch (--num_processes, --mixed_precision,\n"
    "                                        --config_file), deepspeed (--num_gpus) and the script's\n"
    "                                        own arguments, read over its defaults; train.sh: the\n"
    "                                        launch line of a shell script, with the variables it\n"
    "                                        sets; what cannot be resolved is marked assumed\n"
    "  oomlint server                        the language server (LSP over stdio) for editors:\n"
    "                                        diagnostics as you type, quick fixes, rule docs on hover\n"
    "  oomlint manpage                       print the manual page (roff)\n";

static const char notes[] =
    "Fixes, as in Ruff: safe ones keep what the code does (--fix), unsafe ones may change it\n"
    "(--unsafe-fixes), display-only ones are shown, never applied. A fixed file is written whole,\n"
    "only if it still parses and did not change on disk meanwhile; - with --fix writes the fixed\n"
    "code to standard output and the report to standard error.\n"
    "Suppress a finding with `# noqa: OOM201` or `# oomlint: disable=OOM201` on its line,\n"
    "or a whole file with `# oomlint: disable-file` on a line of its own (in a notebook,\n"
    "in any code cell). A notebook's findings are placed as cell 3:9:5 (cell, row, column).\n"
    "Each file's results are cached in .oomlint_cache beside pyproject.toml (or in the working\n"
    "folder), keyed by the file's text, oomlint's build and the settings: an unchanged file is not\n"
    "linted again. OOMLINT_CACHE_DIR=DIR is --cache-dir DIR; OOMLINT_NO_CACHE=1 is --no-cache.\n"
    "Exit status: 0 nothing found, 1 problems found, 2 the run failed.\n";

static oom_buf usage_text;
static pthread_once_t usage_once = PTHREAD_ONCE_INIT;

static void build_usage(void)
{
    oom_buf_init(&usage_text);
    oom_buf_puts(&usage_text, commands);
    oom_buf_puts(&usage_text, "\nOptions:\n");
    oom_cli_options_help(false, &usage_text);
    oom_buf_puts(&usage_text, "\nEstimate options (with --gpu, --num-gpus, --torch-version, --format json):\n");
    oom_cli_options_help(true, &usage_text);
    oom_buf_puts(&usage_text, "\n");
    oom_buf_puts(&usage_text, notes);
}

/* Built once from the table; lives until the process ends. */
const char *oom_cli_usage(void)
{
    pthread_once(&usage_once, build_usage);
    return usage_text.data;
}

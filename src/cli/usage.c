/* cli/usage: the one text that --help prints and the manual page is made from. */
#include "oomlint/cli.h"

static const char usage_text[] =
    "oomlint " OOM_VERSION " - find the code that makes GPU memory run out, before the job runs\n"
    "\n"
    "Usage:\n"
    "  oomlint [check] [OPTIONS] [PATH...]   lint files and folders (default: .); - reads stdin\n"
    "  oomlint rule CODE                     show a rule's documentation\n"
    "  oomlint rules                         list every rule\n"
    "  oomlint gpus                          list the GPUs oomlint knows\n"
    "  oomlint estimate [SCRIPT|config.json] peak GPU memory of the training job, per GPU\n"
    "      --gpu NAME, --num-gpus N, --model HUB_ID|resnet50, --batch-size N, --seq-len N,\n"
    "      --image-size N (image models: the side of a square input),\n"
    "      --precision fp32|fp16|bf16|bf16-weights|8bit|4bit, --gradient-checkpointing,\n"
    "      --optimizer adamw|sgd|sgd-momentum|adafactor|adam8bit, --format json, --plot FILE.svg\n"
    "  oomlint manpage                       print the manual page (roff)\n"
    "\n"
    "Options:\n"
    "  --gpu NAME              the GPU the job will run on (see oomlint gpus): a100-80gb, v100\n"
    "  --num-gpus N            how many of them the job uses\n"
    "  --config FILE           read [tool.oomlint] from FILE instead of the nearest pyproject.toml\n"
    "  --isolated              ignore pyproject.toml settings\n"
    "  --select CODES          only these codes or prefixes (comma-separated: OOM2,OOM101)\n"
    "  --ignore CODES          skip these codes or prefixes\n"
    "  --exclude GLOB          skip files and folders matching GLOB (repeatable)\n"
    "  --format FORMAT         full (default), concise, json, json-lines, sarif, github,\n"
    "                          gitlab, junit, pylint, rdjson\n"
    "  -o, --output-file PATH  write the report to PATH (whole or not at all)\n"
    "  --diff-base REF         report only lines added or changed since the git REF\n"
    "  --statistics            print the number of findings per rule\n"
    "  --fail-on LEVEL         exit 1 only for findings at or above error, warning or info\n"
    "  --exit-zero             exit 0 even when problems are found\n"
    "  -q, --quiet             no summary line\n"
    "  --color WHEN            auto (default; honours NO_COLOR), always or never\n"
    "  --stdin-filename NAME   the name to report for a file read from stdin\n"
    "  --rules DIR             load more rules from DIR (repeatable)\n"
    "  --threads N             lint on N threads (default: the number of CPUs)\n"
    "  -V, --version           print the version\n"
    "  -h, --help              print this help\n"
    "\n"
    "Suppress a finding with `# noqa: OOM201` or `# oomlint: disable=OOM201` on its line,\n"
    "or a whole file with `# oomlint: disable-file` on a line of its own.\n"
    "Exit status: 0 nothing found, 1 problems found, 2 the run failed.\n";

const char *oom_cli_usage(void)
{
    return usage_text;
}

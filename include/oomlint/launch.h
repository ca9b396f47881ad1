/* launch: the command that starts a training job, read as its launcher reads
 * it. `python train.py ...`, `torchrun --nproc_per_node 4 train.py ...`
 * (also `python -m torch.distributed.run/launch`), `accelerate launch
 * --num_processes 8 --mixed_precision bf16 [--config_file x.yaml] ...` and
 * `deepspeed --num_gpus 8 ...`: the script it runs, how many processes
 * (GPUs) and which precision the launcher sets, and the words given to the
 * script, each with the word of the command (or the line of the shell
 * script) it came from. The script's own arguments are bound to the
 * script's options by the estimate's reader (estimate.h), which knows them.
 * Nothing here runs anything: a shell script is read as text, its variables
 * substituted where the script itself sets them. */
#ifndef OOMLINT_LAUNCH_H
#define OOMLINT_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "oomlint/util.h"

typedef enum {
    OOM_LAUNCHER_NONE,       /* a script named alone: `-- train.py --bf16` */
    OOM_LAUNCHER_PYTHON,     /* python / python3 train.py */
    OOM_LAUNCHER_TORCHRUN,   /* torchrun, python -m torch.distributed.run / .launch */
    OOM_LAUNCHER_ACCELERATE, /* accelerate launch */
    OOM_LAUNCHER_DEEPSPEED,  /* deepspeed */
} oom_launcher;

/* One word of the command, as the shell hands it to the program. */
typedef struct {
    char *text;       /* quotes removed, variables substituted */
    unsigned index;   /* 1-based position among the command's words */
    unsigned line;    /* the shell script's line it is on; 0 for a command line */
    char *unresolved; /* what could not be substituted ("$1", "$(nproc)"), or NULL */
    bool conditional; /* a variable set inside a loop or conditional went into it */
} oom_launch_word;

typedef struct {
    oom_launcher launcher;
    char *file;              /* the shell script read, or NULL for a command line */
    char *dir;               /* where the command runs: relative paths are read from here */
    char *script;            /* the script's path as found (dir applied), or NULL when none */
    bool script_exists;      /* a regular file is there */
    oom_launch_word script_word; /* the word that named it (text NULL when none) */
    oom_launch_word *args;   /* the script's own arguments, in order */
    size_t arg_count, arg_cap;
    char *command;           /* the command as read, for people: "torchrun --nproc_per_node 4 train.py ..." */
    unsigned line;           /* the shell script's line the command starts on; 0 for a command line */
    /* what the launcher itself sets; each `_from` says where, "" when unsaid */
    int processes;           /* processes over all nodes (one per GPU); 0: not said */
    bool processes_assumed;  /* `--nproc_per_node gpu`, an unresolved variable */
    char processes_from[200];
    char precision[8];       /* accelerate's mixed_precision: "no", "fp16", "bf16", "fp8"; "" */
    char precision_from[200];
    int zero_stage;          /* ZeRO (or FSDP's equivalent) the launcher sets; -1: not said */
    bool offload_optimizer;
    char zero_from[200];
    oom_strlist notes;       /* what was read and not used, or could not be resolved */
} oom_launch;

void oom_launch_init(oom_launch *l);
void oom_launch_free(oom_launch *l);

/* Reads a command given as words (what follows `--` on oomlint's command
 * line). `bash train.sh ARGS` (or `./train.sh ARGS`) reads the shell script,
 * its $1... being ARGS. Returns false, with a reason in err, when there is
 * nothing to read (no words, a shell script that cannot be read or runs no
 * training command); a command without a script is read, and says so in
 * its notes (script NULL). */
bool oom_launch_from_argv(int argc, const char *const *argv, oom_launch *out, oom_buf *err);

/* Reads the launch line of a shell script: lines joined at `\`, comments
 * dropped, variables the script sets (`MODEL=gpt2`, `export BS=8`, `${VAR:-8}`)
 * substituted, the first line that runs torchrun / accelerate launch /
 * deepspeed (else python with a .py script) taken. Loops and conditionals
 * are read through, with a note. Returns false, with a reason in err, when
 * the file cannot be read or runs no training command. */
bool oom_launch_from_shell(const char *path, oom_launch *out, oom_buf *err);

/* Where a word came from, for an input's provenance: "train.sh:12" or
 * "command word 5". */
void oom_launch_where(const oom_launch *l, const oom_launch_word *w, char *buf, size_t size);

/* The launcher's name as written in messages ("torchrun", "accelerate launch"). */
const char *oom_launcher_name(oom_launcher k);

#endif

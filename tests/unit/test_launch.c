/* Launch commands: the words of `torchrun` / `accelerate launch` /
 * `deepspeed` / `python` commands and of shell scripts' launch lines, and
 * the script's arguments bound over its defaults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "oomlint/estimate.h"
#include "oomlint/launch.h"

static oom_kb kb;
static char dir[] = "/tmp/oomlint-launch-XXXXXX";

/* A file of the temporary folder, written; its path into `path`. */
static void write_file(const char *name, const char *text, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

/* Reads a command given as a space-free list of words. */
static bool parse(oom_launch *l, const char *const *argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    oom_buf err;
    oom_buf_init(&err);
    bool ok = oom_launch_from_argv(argc, argv, l, &err);
    if (!ok)
        printf("  %s\n", err.data);
    oom_buf_free(&err);
    return ok;
}

static bool has_note(const oom_strlist *notes, const char *words)
{
    for (size_t i = 0; i < notes->len; i++)
        if (strstr(notes->items[i], words))
            return true;
    printf("  no note with \"%s\" among %zu:\n", words, notes->len);
    for (size_t i = 0; i < notes->len; i++)
        printf("    %s\n", notes->items[i]);
    return false;
}

static void torchrun_counts(void)
{
    oom_launch l;
    const char *a[] = {"torchrun", "--nproc_per_node=8", "train.py", "--lr", "1e-4", NULL};
    CHECK(parse(&l, a));
    CHECK(l.launcher == OOM_LAUNCHER_TORCHRUN);
    CHECK(l.processes == 8 && !l.processes_assumed);
    CHECK_STR(l.script_word.text, "train.py");
    CHECK(l.script_word.index == 3);
    CHECK(l.arg_count == 2);
    CHECK_STR(l.args[1].text, "1e-4");
    CHECK(strstr(l.processes_from, "command word 2") != NULL);
    oom_launch_free(&l);

    /* both spellings, nodes multiply; an elastic range counts its fewest */
    const char *b[] = {"/usr/bin/torchrun", "--nproc-per-node", "4", "--nnodes", "2", "--standalone", "t.py", NULL};
    CHECK(parse(&l, b));
    CHECK(l.processes == 8);
    CHECK_STR(l.script_word.text, "t.py");
    oom_launch_free(&l);
    const char *c[] = {"torchrun", "--nnodes=1:4", "--nproc_per_node", "2", "t.py", NULL};
    CHECK(parse(&l, c));
    CHECK(l.processes == 2);
    oom_launch_free(&l);

    /* torchrun's defaults: one process; python -m torch.distributed.run/launch is torchrun */
    const char *d[] = {"torchrun", "t.py", NULL};
    CHECK(parse(&l, d));
    CHECK(l.processes == 1);
    oom_launch_free(&l);
    const char *e[] = {"python3", "-u", "-m", "torch.distributed.launch", "--nproc_per_node", "2", "--use_env",
                       "t.py", "--bf16", NULL};
    CHECK(parse(&l, e));
    CHECK(l.launcher == OOM_LAUNCHER_TORCHRUN);
    CHECK(l.processes == 2);
    CHECK_STR(l.script_word.text, "t.py");
    CHECK(l.arg_count == 1);
    oom_launch_free(&l);

    /* a count decided at run time: 1, assumed, with a note */
    const char *f[] = {"torchrun", "--nproc_per_node", "gpu", "t.py", NULL};
    CHECK(parse(&l, f));
    CHECK(l.processes == 1 && l.processes_assumed);
    CHECK(has_note(&l.notes, "--nproc_per_node gpu is decided when the job starts"));
    oom_launch_free(&l);
}

static void deepspeed_and_python(void)
{
    oom_launch l;
    const char *a[] = {"deepspeed", "--num_gpus", "4", "--num_nodes", "2", "train.py", "--deepspeed", "ds.json", NULL};
    CHECK(parse(&l, a));
    CHECK(l.launcher == OOM_LAUNCHER_DEEPSPEED);
    CHECK(l.processes == 8);
    CHECK(l.arg_count == 2);
    oom_launch_free(&l);
    const char *b[] = {"deepspeed", "--include", "localhost:0,1,2", "train.py", NULL};
    CHECK(parse(&l, b));
    CHECK(l.processes == 3);
    oom_launch_free(&l);
    const char *c[] = {"deepspeed", "train.py", NULL};
    CHECK(parse(&l, c));
    CHECK(l.processes == 1 && l.processes_assumed);
    CHECK(has_note(&l.notes, "every GPU of the node"));
    oom_launch_free(&l);

    /* python's own options before the script; python -c runs no script */
    const char *d[] = {"python", "-W", "ignore", "-u", "run.py", "--x", NULL};
    CHECK(parse(&l, d));
    CHECK(l.launcher == OOM_LAUNCHER_PYTHON);
    CHECK_STR(l.script_word.text, "run.py");
    CHECK(l.processes == 0);
    oom_launch_free(&l);
    const char *e[] = {"python", "-c", "import torch", NULL};
    CHECK(parse(&l, e));
    CHECK(l.script == NULL);
    CHECK(has_note(&l.notes, "python -c runs code written on the command line"));
    oom_launch_free(&l);

    /* no script at all, and an option torchrun does not have */
    const char *f[] = {"torchrun", "--nproc_per_node", "2", "--frobnicate", NULL};
    CHECK(parse(&l, f));
    CHECK(l.script == NULL && l.script_word.text == NULL);
    CHECK(has_note(&l.notes, "--frobnicate is not an option of torchrun"));
    CHECK(has_note(&l.notes, "torchrun runs no script"));
    oom_launch_free(&l);

    oom_buf err;
    oom_buf_init(&err);
    CHECK(!oom_launch_from_argv(0, NULL, &l, &err));
    CHECK(strstr(err.data, "no command to read") != NULL);
    oom_buf_free(&err);
    oom_launch_free(&l);
}

static void accelerate_flags_and_config(void)
{
    char yaml[256];
    write_file("acc.yaml",
               "compute_environment: LOCAL_MACHINE\n"
               "distributed_type: DEEPSPEED\n"
               "deepspeed_config:\n"
               "  zero_stage: 3\n"
               "  offload_optimizer_device: cpu\n"
               "mixed_precision: bf16\n"
               "num_machines: 2\n"
               "num_processes: 16\n",
               yaml, sizeof yaml);
    oom_launch l;
    const char *a[] = {"accelerate", "launch", "--config_file", yaml, "train.py", NULL};
    CHECK(parse(&l, a));
    CHECK(l.launcher == OOM_LAUNCHER_ACCELERATE);
    CHECK(l.processes == 16);
    CHECK_STR(l.precision, "bf16");
    CHECK(l.zero_stage == 3 && l.offload_optimizer);
    CHECK(strstr(l.processes_from, "acc.yaml:8 num_processes") != NULL);
    CHECK(strstr(l.precision_from, "acc.yaml:6 mixed_precision") != NULL);
    oom_launch_free(&l);

    /* a flag wins over the config, wherever it stands */
    const char *b[] = {"accelerate", "launch", "--mixed_precision=fp16", "--config_file", yaml,
                       "--num_processes", "2", "--multi_gpu", "train.py", NULL};
    CHECK(parse(&l, b));
    CHECK(l.processes == 2);
    CHECK_STR(l.precision, "fp16");
    oom_launch_free(&l);

    /* FSDP's full sharding counts as ZeRO-3; a config that is not there is a note */
    const char *c[] = {"accelerate", "launch", "--use_fsdp", "--config_file", "/nonexistent/x.yaml", "t.py", NULL};
    CHECK(parse(&l, c));
    CHECK(l.zero_stage == 3);
    CHECK(has_note(&l.notes, "--config_file /nonexistent/x.yaml"));
    CHECK(has_note(&l.notes, "accelerate launch without --num_processes"));
    oom_launch_free(&l);
    const char *d[] = {"accelerate", "launch", "--mixed_precision", "fp12", "t.py", NULL};
    CHECK(parse(&l, d));
    CHECK(l.precision[0] == '\0');
    CHECK(has_note(&l.notes, "--mixed_precision fp12 is not one of"));
    oom_launch_free(&l);
}

/* Reads a shell script's launch line. */
static bool shell(oom_launch *l, const char *text)
{
    char path[256];
    write_file("run.sh", text, path, sizeof path);
    oom_buf err;
    oom_buf_init(&err);
    bool ok = oom_launch_from_shell(path, l, &err);
    if (!ok)
        printf("  %s\n", err.data);
    oom_buf_free(&err);
    return ok;
}

static void shell_words(void)
{
    oom_launch l;
    CHECK(shell(&l, "#!/bin/bash\n"                                         /* 1 */
                    "# comment: torchrun fake.py\n"                         /* 2 */
                    "MODEL='gpt2 medium'\n"                                 /* 3 */
                    "export BS=8 LR=1e-4\n"                                 /* 4 */
                    "python prepare.py\n"                                   /* 5 */
                    "CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node=${NGPU:-2} \\\n" /* 6 */
                    "   train.py \\\n"                                      /* 7 */
                    "   --model \"$MODEL\" --bs ${BS} --name \"a \\\"q\\\" b\" \\\n" /* 8 */
                    "   --tag it\\'s --seed $1 --host $(hostname) 2>&1 | tee log  # done\n")); /* 9 */
    CHECK(l.launcher == OOM_LAUNCHER_TORCHRUN);
    CHECK(l.processes == 2);
    CHECK_STR(l.script_word.text, "train.py");
    CHECK(l.script_word.line == 7);
    CHECK(l.line == 6);
    CHECK(l.arg_count == 12);
    if (l.arg_count == 12) {
        CHECK_STR(l.args[1].text, "gpt2 medium");
        CHECK(l.args[1].line == 8);
        CHECK_STR(l.args[3].text, "8");
        CHECK_STR(l.args[5].text, "a \"q\" b");
        CHECK_STR(l.args[7].text, "it's");
        CHECK(l.args[7].line == 9);
        CHECK_STR(l.args[9].text, "$1");
        CHECK_STR(l.args[9].unresolved, "$1");
        CHECK_STR(l.args[11].unresolved, "$(hostname)");
        CHECK(l.args[3].unresolved == NULL);
    }
    CHECK(has_note(&l.notes, "2 lines launch a job; line 6 is read"));
    char where[64];
    oom_launch_where(&l, &l.args[0], where, sizeof where);
    CHECK(strstr(where, "run.sh:8") != NULL);
    oom_launch_free(&l);

    /* `bash run.sh ARGS` from the command line: $1 and ${2:-4} */
    char path[256];
    write_file("run.sh", "python t.py --m \"$1\" --b ${2:-4} --c $3\n", path, sizeof path);
    const char *argv[] = {"bash", "-e", path, "gpt2", NULL};
    CHECK(parse(&l, argv));
    CHECK(l.arg_count == 6);
    if (l.arg_count == 6) {
        CHECK_STR(l.args[1].text, "gpt2");
        CHECK(l.args[1].unresolved == NULL);
        CHECK_STR(l.args[3].text, "4");
        CHECK_STR(l.args[5].unresolved, "$3");
    }
    oom_launch_free(&l);

        /* here-documents are not commands; a variable the script never sets stays unresolved */
    CHECK(shell(&l, "cat > cfg <<EOF\ntorchrun --nproc_per_node 8 x.py\nEOF\ntorchrun --nproc_per_node $N t.py\n"));
    CHECK(l.processes == 1 && l.processes_assumed);
    CHECK(has_note(&l.notes, "$N is not set in the shell script"));
    oom_launch_free(&l);
}

static void shell_blocks(void)
{
    oom_launch l;
    CHECK(shell(&l, "for bs in 4 8; do\n"
                    "  if [ $bs -gt 4 ]; then\n"
                    "    M=gpt2-large\n"
                    "  fi\n"
                    "  deepspeed --num_gpus 2 t.py --bs $bs --m $M\n"
                    "done\n"
                    "while true; do sleep 1; done\n"));
    CHECK(l.launcher == OOM_LAUNCHER_DEEPSPEED);
    CHECK(l.arg_count == 4);
    if (l.arg_count == 4) {
        CHECK_STR(l.args[1].text, "4");
        CHECK(l.args[1].conditional);
        CHECK_STR(l.args[3].text, "gpt2-large");
        CHECK(l.args[3].conditional);
    }
    CHECK(has_note(&l.notes, "bs takes the values of a for loop; the first (4) is used"));
    CHECK(has_note(&l.notes, "M is set inside an if block"));
    CHECK(has_note(&l.notes, "the launch line is inside the for block of line 1"));
    oom_launch_free(&l);

    oom_buf err;
    oom_buf_init(&err);
    char path[256];
    write_file("none.sh", "echo start\nif [ -d x ]; then ls; fi\n", path, sizeof path);
    CHECK(!oom_launch_from_shell(path, &l, &err));
    CHECK(strstr(err.data, "no line runs python, torchrun") != NULL);
    oom_buf_clear(&err);
    CHECK(!oom_launch_from_shell("/nonexistent/train.sh", &l, &err));
    CHECK(strstr(err.data, "/nonexistent/train.sh") != NULL);
    oom_buf_free(&err);
    oom_launch_free(&l);
}

/* The inputs of a script under a launch command given as words. */
static bool read_launched(const char *const *argv, oom_script_inputs *s, oom_strlist *notes)
{
    oom_launch l;
    bool ok = parse(&l, argv);
    oom_buf err;
    oom_buf_init(&err);
    ok = ok && oom_script_inputs_read_launch(&l, &kb, s, notes, &err);
    if (!ok)
        printf("  %s\n", err.data);
    oom_buf_free(&err);
    oom_launch_free(&l);
    return ok;
}

static bool given_by(const oom_script_inputs *s, oom_input_kind k, const char *words)
{
    bool ok = !s->from[k].assumed && strstr(s->from[k].text, words) != NULL;
    if (!ok)
        printf("  input %d: %s%s, want \"%s\"\n", (int)k, s->from[k].assumed ? "assumed: " : "", s->from[k].text,
               words);
    return ok;
}

static void argparse_binding(void)
{
    char script[256];
    write_file("ap.py",
               "import argparse\n"
               "from transformers import AutoModelForCausalLM\n"
               "p = argparse.ArgumentParser()\n"
               "p.add_argument(\"--model-name\", default=\"gpt2\")\n"
               "p.add_argument(\"--batch_size\", type=int, default=4)\n"
               "p.add_argument(\"--block_size\", type=int, default=128)\n"
               "p.add_argument(\"--bf16\", action=\"store_true\")\n"
               "p.add_argument(\"--gradient_checkpointing\", action=\"store_true\")\n"
               "p.add_argument(\"--large\", action=\"store_true\")\n"
               "args = p.parse_args()\n"
               "if args.large:\n"
               "    model = AutoModelForCausalLM.from_pretrained(\"gpt2-large\")\n"
               "else:\n"
               "    model = AutoModelForCausalLM.from_pretrained(args.model_name)\n"
               "for batch in loader:\n"
               "    model(**batch).loss.backward()\n",
               script, sizeof script);
    oom_script_inputs s;
    oom_strlist notes = {NULL, 0, 0};
    /* --flag value, --flag=value, a bare store_true; store_true takes no value,
     * so "True" after it is a stray word */
    const char *a[] = {"python", script, "--model-name", "gpt2-medium", "--batch_size=16", "--bf16", "True",
                       "--block_size", "1024", "--lr", "3", NULL};
    CHECK(read_launched(a, &s, &notes));
    CHECK(s.model_known && strcmp(s.model_id, "gpt2-medium") == 0);
    CHECK(given_by(&s, OOM_IN_MODEL, "command word 3: --model-name gpt2-medium"));
    CHECK(s.in.micro_batch == 16);
    CHECK(given_by(&s, OOM_IN_BATCH, "command word 5: --batch_size=16"));
    CHECK(s.in.precision == OOM_PREC_AMP_BF16);
    CHECK(given_by(&s, OOM_IN_PRECISION, "command word 6: --bf16"));
    CHECK(s.in.seq_len == 1024);
    CHECK(!s.in.gradient_checkpointing);
    CHECK(has_note(&notes, "command word 7: True is not an option of"));
    CHECK(has_note(&notes, "command word 10: --lr is not an option of"));
    CHECK(notes.len == 2);
    oom_strlist_free(&notes);

    /* a switch's branch follows the command; a wrong type keeps the default, assumed */
    const char *b[] = {"python", script, "--gradient_checkpointing", "--large", "--batch_size", "abc", NULL};
    CHECK(read_launched(b, &s, &notes));
    CHECK(s.in.gradient_checkpointing);
    CHECK(s.model_known && strcmp(s.model_id, "gpt2-large") == 0);
    CHECK(s.in.micro_batch == 4);
    CHECK(s.from[OOM_IN_BATCH].assumed);
    CHECK(strstr(s.from[OOM_IN_BATCH].text, "--batch_size abc is not a whole number") != NULL);
    CHECK(has_note(&notes, "command word 5: --batch_size abc is not a whole number"));
    oom_strlist_free(&notes);

    /* a value missing at the end */
    const char *c[] = {"python", script, "--batch_size", NULL};
    CHECK(read_launched(c, &s, &notes));
    CHECK(s.in.micro_batch == 4);
    CHECK(has_note(&notes, "--batch_size has no value"));
    oom_strlist_free(&notes);
}

static void hf_binding(void)
{
    char script[256], ds[256];
    write_file("hf.py",
               "from dataclasses import dataclass, field\n"
               "from typing import Optional\n"
               "from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments\n"
               "@dataclass\n"
               "class ModelArguments:\n"
               "    model_name_or_path: Optional[str] = field(default=\"gpt2\")\n"
               "    max_seq_length: Optional[int] = field(default=512)\n"
               "    use_lora: bool = False\n"
               "parser = HfArgumentParser((ModelArguments, TrainingArguments))\n"
               "model_args, training_args = parser.parse_args_into_dataclasses()\n"
               "model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)\n"
               "Trainer(model=model, args=training_args).train()\n",
               script, sizeof script);
    write_file("ds.json", "{\"zero_optimization\": {\"stage\": 3}}", ds, sizeof ds);
    oom_script_inputs s;
    oom_strlist notes = {NULL, 0, 0};
    /* TrainingArguments' fields the script does not declare; switches as
     * True / False / bare; the ZeRO config; the processes */
    const char *a[] = {"torchrun", "--nproc_per_node", "4", script, "--model_name_or_path", "gpt2-large",
                       "--per_device_train_batch_size", "2", "--bf16", "True", "--gradient_checkpointing",
                       "--max_seq_length", "2048", "--use_lora", "false", "--deepspeed", ds,
                       "--gradient_accumulation_steps=8", "--learning_rate", "2e-5", NULL};
    CHECK(read_launched(a, &s, &notes));
    CHECK(s.model_known && strcmp(s.model_id, "gpt2-large") == 0);
    CHECK(s.in.micro_batch == 2);
    CHECK(given_by(&s, OOM_IN_BATCH, "command word 7: --per_device_train_batch_size 2"));
    CHECK(s.in.precision == OOM_PREC_AMP_BF16);
    CHECK(given_by(&s, OOM_IN_PRECISION, "--bf16 True"));
    CHECK(s.in.gradient_checkpointing);
    CHECK(given_by(&s, OOM_IN_CHECKPOINTING, "command word 11: --gradient_checkpointing"));
    CHECK(s.in.seq_len == 2048);
    CHECK(s.in.num_gpus == 4);
    CHECK(given_by(&s, OOM_IN_GPUS, "torchrun: 4 per node"));
    CHECK(s.in.zero_stage == 3);
    CHECK(given_by(&s, OOM_IN_ZERO, "--deepspeed"));
    CHECK(s.grad_accum == 8);
    CHECK(has_note(&notes, "left to its TrainingArguments, not used by the estimate: --learning_rate (word 19)"));
    CHECK(notes.len == 1);
    oom_strlist_free(&notes);

    /* a switch given something else than true or false */
    const char *b[] = {"python", script, "--bf16", "maybe", NULL};
    CHECK(read_launched(b, &s, &notes));
    CHECK(s.in.precision == OOM_PREC_FP32);
    CHECK(s.from[OOM_IN_PRECISION].assumed);
    CHECK(has_note(&notes, "--bf16 maybe is not true or false"));
    oom_strlist_free(&notes);

    /* the script is not there: the arguments by their usual names */
    const char *c[] = {"python", "/nonexistent/train.py", "--model_name_or_path", "gpt2", "--fp16",
                       "--per_device_train_batch_size", "1", "--gradient_checkpointing", "yes", NULL};
    CHECK(read_launched(c, &s, &notes));
    CHECK(s.model_known && strcmp(s.model_id, "gpt2") == 0);
    CHECK(s.in.micro_batch == 1);
    CHECK(s.in.gradient_checkpointing);
    CHECK(s.in.precision == OOM_PREC_AMP_FP16);
    CHECK(s.in.training);
    CHECK(has_note(&notes, "/nonexistent/train.py does not exist"));
    oom_strlist_free(&notes);
}

/* FastChat's and LLaVA's train_mem.py: a wrapper that imports train() from
 * the module that parses the arguments, launched from a shell script in the
 * repository; TrainingArguments' --fsdp shards as ZeRO-3. */
static void wrapper_module(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/pkg", dir);
    CHECK(mkdir(path, 0700) == 0);
    write_file("pkg/train.py",
               "import transformers\n"
               "from dataclasses import dataclass, field\n"
               "@dataclass\n"
               "class ModelArguments:\n"
               "    model_name_or_path: str = field(default=\"gpt2\")\n"
               "def train():\n"
               "    parser = transformers.HfArgumentParser((ModelArguments, transformers.TrainingArguments))\n"
               "    model_args, training_args = parser.parse_args_into_dataclasses()\n"
               "    model = transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)\n"
               "    transformers.Trainer(model=model, args=training_args).train()\n",
               path, sizeof path);
    write_file("pkg/train_mem.py", "from pkg.patch import patch\nfrom pkg.train import train\npatch()\ntrain()\n",
               path, sizeof path);
    oom_launch l;
    oom_buf err;
    oom_buf_init(&err);
    /* the shell script's paths are from its own folder, the repository */
    char top[256];
    write_file("run.sh",
               "torchrun --nproc_per_node=2 pkg/train_mem.py --fsdp \"full_shard auto_wrap\" \\\n"
               "  --per_device_train_batch_size 3 --output_dir out --seed 1\n",
               top, sizeof top);
    CHECK(oom_launch_from_shell(top, &l, &err));
    CHECK(l.script_exists);
    oom_script_inputs s;
    oom_strlist notes = {NULL, 0, 0};
    CHECK(oom_script_inputs_read_launch(&l, &kb, &s, &notes, &err));
    CHECK(s.model_known && strcmp(s.model_id, "gpt2") == 0);
    CHECK(s.in.micro_batch == 3);
    CHECK(given_by(&s, OOM_IN_BATCH, "run.sh:2: --per_device_train_batch_size 3"));
    CHECK(s.in.zero_stage == 3 && s.in.num_gpus == 2);
    CHECK(given_by(&s, OOM_IN_ZERO, "--fsdp full_shard auto_wrap: FSDP, sharded as ZeRO stage 3"));
    CHECK(has_note(&notes, "pkg/train_mem.py parses no arguments; they are read by"));
    CHECK(has_note(&notes, "left to its TrainingArguments, not used by the estimate: --output_dir (line 2), "
                           "--seed (line 2)"));
    oom_strlist_free(&notes);
    oom_buf_free(&err);
    oom_launch_free(&l);
}

/* accelerate's --mixed_precision is the precision of a script that sets none. */
static void launcher_precision(void)
{
    char script[256];
    write_file("acc.py",
               "from accelerate import Accelerator\n"
               "from transformers import AutoModelForCausalLM\n"
               "acc = Accelerator()\n"
               "model = AutoModelForCausalLM.from_pretrained(\"gpt2\")\n"
               "for batch in loader:\n"
               "    acc.backward(model(**batch).loss)\n",
               script, sizeof script);
    oom_script_inputs s;
    oom_strlist notes = {NULL, 0, 0};
    const char *a[] = {"accelerate", "launch", "--num_processes", "8", "--mixed_precision", "bf16", script, NULL};
    CHECK(read_launched(a, &s, &notes));
    CHECK(s.in.precision == OOM_PREC_AMP_BF16);
    CHECK(given_by(&s, OOM_IN_PRECISION, "accelerate launch --mixed_precision bf16 (command word 5)"));
    CHECK(s.in.num_gpus == 8);
    oom_strlist_free(&notes);
}

void test_launch_suite(void)
{
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    oom_buf_free(&err);
    if (!mkdtemp(dir)) {
        printf("FAIL launch: no temporary folder\n");
        return;
    }
    oom_test_run("launch: torchrun counts, spellings and defaults", torchrun_counts);
    oom_test_run("launch: deepspeed and python commands, no script, unknown options", deepspeed_and_python);
    oom_test_run("launch: accelerate flags over its --config_file", accelerate_flags_and_config);
    oom_test_run("launch: shell words, quoting, variables, continuations", shell_words);
    oom_test_run("launch: shell loops and conditionals", shell_blocks);
    oom_test_run("launch: argparse options bound over their defaults", argparse_binding);
    oom_test_run("launch: HfArgumentParser and TrainingArguments fields", hf_binding);
    oom_test_run("launch: accelerate's mixed precision", launcher_precision);
    oom_test_run("launch: a wrapper script, the module that parses its arguments", wrapper_module);
    static const char *const written[] = {"acc.yaml", "run.sh", "none.sh", "ap.py", "hf.py", "ds.json", "acc.py",
                                          "pkg/train.py", "pkg/train_mem.py", "pkg", NULL};
    for (int i = 0; written[i]; i++) {
        char path[300];
        snprintf(path, sizeof path, "%s/%s", dir, written[i]);
        if (unlink(path) != 0)
            rmdir(path);
    }
    rmdir(dir);
    oom_kb_free(&kb);
}

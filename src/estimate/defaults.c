/* estimate/defaults: what a run without flags gets where no call the
 * estimate reads says it. Many scripts read their batch size or sequence
 * length in ways a static reader cannot follow (`get_batch()` reading a
 * module-level `batch_size`, a collator built from `args`), but declare it
 * under a usual name with a default: `--batch_size 4`, `max_seq_length: int
 * = 512`, `block_size = 1024`. That default is the fallback, after every
 * value written in (or passed to) the calls themselves. And a script whose
 * HfArgumentParser fills transformers' TrainingArguments runs, without
 * flags, on TrainingArguments' own defaults. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "oomlint/lang.h"

/* Usual names, most specific first: a per-device batch before a batch that
 * may be global, a training length before a generation length. */
static const char *const batch_names[] = {"per_device_train_batch_size", "micro_batch_size",
                                          "train_micro_batch_size_per_gpu", "train_batch_size", "batch_size",
                                          "bs", NULL};
static const char *const seq_names[] = {"max_seq_length", "block_size", "model_max_length", "cutoff_len",
                                        "max_seq_len", "seq_len", "seq_length", "max_length", "context_length",
                                        "max_source_length", NULL};
static const char *const checkpointing_names[] = {"gradient_checkpointing", "grad_checkpoint",
                                                  "gradient_checkpoint", "activation_checkpointing",
                                                  "use_gradient_checkpointing", NULL};
static const char *const optimizer_names[] = {"optim", "optimizer", NULL};

/* The name a fix plan tells the user to change: the option as typed, or
 * the field or module-level name. */
static void user_name(const oom_est_setting *s, char *buf, size_t size)
{
    oom_est_copy(buf, size, s->kind == OOM_SETTING_ARGPARSE ? s->spelling : s->name);
}

static void note_setting(oom_est_reader *r, oom_input_kind k, const oom_est_setting *s, const char *prefix)
{
    if (s->given) { /* the launch command's value: its word is the provenance */
        const oom_est_setting *was = r->via;
        r->via = s;
        oom_est_note(r, k, s->at, prefix ? prefix : s->name);
        r->via = was;
        return;
    }
    char what[140];
    oom_est_setting_describe(s, what, sizeof what);
    if (prefix) {
        char both[160];
        snprintf(both, sizeof both, "%s (%s)", prefix, what);
        oom_est_note(r, k, s->at, both);
    } else {
        oom_est_note(r, k, s->at, what);
    }
}

/* An assumed input's text, told that a setting for it exists but its default
 * could not be read (`default="eight"`, `default=None`). */
static void note_unreadable(oom_script_inputs *out, oom_input_kind k, const oom_est_setting *s)
{
    oom_provenance *p = &out->from[k];
    size_t used = strlen(p->text);
    snprintf(p->text + used, sizeof p->text - used, "; %s has no number to read", s->spelling);
}

/* ---- a global batch ---------------------------------------------------------- */

typedef struct {
    const oom_est_reader *r;
    const char *name; /* the setting as the script reads it: `batch_size` of args.batch_size */
    bool divided;
} division_search;

/* Whether `e` names the number of processes or GPUs: `args.world_size`,
 * `dist.get_world_size()`, `ngpus_per_node`, `accelerator.num_processes`. */
static bool names_process_count(const oom_est_reader *r, TSNode e)
{
    static const char *const words[] = {"world_size", "get_world_size", "num_processes", "nprocs", "ngpus",
                                        "n_gpu", "num_gpus", "ngpus_per_node", "num_replicas", NULL};
    char text[160];
    if (!oom_est_text_of(r, e, text, sizeof text))
        return false;
    for (int i = 0; words[i]; i++)
        if (strstr(text, words[i]))
            return true;
    return false;
}

static void visit_division(void *ctx, TSNode n)
{
    division_search *d = ctx;
    if (d->divided || !oom_est_type_is(n, "binary_operator"))
        return;
    TSNode op = ts_node_child_by_field_name(n, "operator", 8);
    if (ts_node_is_null(op) || (!oom_est_type_is(op, "//") && !oom_est_type_is(op, "/")))
        return;
    TSNode left = ts_node_child_by_field_name(n, "left", 4);
    TSNode right = ts_node_child_by_field_name(n, "right", 5);
    char text[160];
    if (ts_node_is_null(left) || !oom_est_text_of(d->r, left, text, sizeof text))
        return;
    const char *last = strrchr(text, '.');
    last = last ? last + 1 : text;
    d->divided = strcmp(last, d->name) == 0 && names_process_count(d->r, right);
}

/* `per_device_batch_size = args.batch_size // args.world_size` (Barlow Twins,
 * VICReg): the setting is the batch of all processes together, so the batch
 * on one GPU depends on how many there are, which the estimate does not know;
 * taking the whole for one GPU would make the assumption of one GPU a finding. */
static bool divided_by_processes(const oom_est_reader *r, const oom_est_setting *s)
{
    const char *name = strrchr(s->name, '.');
    division_search d = {r, name ? name + 1 : s->name, false};
    oom_est_walk(r, visit_division, &d);
    return d.divided;
}

/* A positive whole-number input from the first of `names` declared with one
 * as its default. */
static void read_number(oom_est_reader *r, oom_input_kind k, const char *const *names, long long *field,
                        char *name_out, size_t name_size)
{
    if (!r->out->from[k].assumed)
        return;
    const oom_est_setting *unreadable = NULL;
    for (int i = 0; names[i]; i++) {
        const oom_est_setting *s = oom_est_setting_named(r, names[i]);
        long long n;
        if (!s)
            continue;
        if (!oom_est_setting_int(r, s, &n) || n <= 0) {
            if (!unreadable && s->kind != OOM_SETTING_MODULE)
                unreadable = s;
            continue;
        }
        if (k == OOM_IN_BATCH && divided_by_processes(r, s)) {
            oom_provenance *p = &r->out->from[k];
            size_t used = strlen(p->text);
            snprintf(p->text + used, sizeof p->text - used, "; %s is split over the GPUs (%s // world size)",
                     s->spelling, s->name);
            return;
        }
        *field = n;
        user_name(s, name_out, name_size);
        note_setting(r, k, s, NULL);
        return;
    }
    if (unreadable)
        note_unreadable(r->out, k, unreadable);
}

/* A switch for mixed precision (`--bf16`, `--fp16`, `--amp`): the key
 * read_precision knows it by. */
static const char *precision_switch_key(const char *name)
{
    if (strcmp(name, "bf16") == 0)
        return "bf16";
    if (strcmp(name, "fp16") == 0 || strcmp(name, "amp") == 0 || strcmp(name, "use_amp") == 0)
        return "fp16";
    return NULL;
}

/* A string setting that names full precision: mixed_precision="no". */
static bool names_full_precision(const oom_est_reader *r, const oom_est_setting *s)
{
    static const char *const fp32[] = {"no", "fp32", "32", "32-true", "float32", NULL};
    oom_buf v;
    oom_buf_init(&v);
    bool yes = false;
    if (oom_est_setting_string(r, s, &v))
        for (int i = 0; fp32[i] && !yes; i++)
            yes = strcmp(v.data, fp32[i]) == 0;
    long long n;
    if (!yes && oom_est_setting_int(r, s, &n))
        yes = n == 32;
    oom_buf_free(&v);
    return yes;
}

/* --bf16 / --fp16 / --amp switched on by default, or --mixed_precision
 * "bf16"; all of them off (or "no") is fp32, found rather than assumed.
 * Where the launcher decides precision (`Accelerator()`), a switch that is
 * off leaves it to the launcher's config; only an explicit "no" says fp32. */
static void read_precision(oom_est_reader *r)
{
    static const char *const names[] = {"bf16", "fp16", "amp", "use_amp", "mixed_precision", "precision", NULL};
    const oom_est_setting *off = NULL;
    for (int i = 0; names[i] && r->out->from[OOM_IN_PRECISION].assumed; i++) {
        const oom_est_setting *s = oom_est_setting_named(r, names[i]);
        if (!s)
            continue;
        const char *key = precision_switch_key(names[i]);
        int on = key ? oom_est_setting_switch(r, s) : -1;
        r->via = s;
        if (key && on == 1)
            oom_est_read_precision(r, key, s->value);
        else if (!key)
            oom_est_read_precision(r, names[i], s->value);
        r->via = NULL;
        if (!off && ((key && on == 0 && !r->out->launcher_decides) || (!key && names_full_precision(r, s))))
            off = s;
    }
    if (r->out->from[OOM_IN_PRECISION].assumed && off) {
        r->out->in.precision = OOM_PREC_FP32;
        note_setting(r, OOM_IN_PRECISION, off, "fp32, mixed precision off");
    }
}

static void read_checkpointing(oom_est_reader *r)
{
    for (int i = 0; checkpointing_names[i] && r->out->from[OOM_IN_CHECKPOINTING].assumed; i++) {
        const oom_est_setting *s = oom_est_setting_named(r, checkpointing_names[i]);
        int on = oom_est_setting_switch(r, s);
        if (on < 0)
            continue;
        r->out->in.gradient_checkpointing = on == 1;
        note_setting(r, OOM_IN_CHECKPOINTING, s, on ? "on" : "off");
    }
}

static void read_optimizer(oom_est_reader *r)
{
    for (int i = 0; optimizer_names[i] && r->out->from[OOM_IN_OPTIMIZER].assumed; i++) {
        const oom_est_setting *s = oom_est_setting_named(r, optimizer_names[i]);
        if (!s || (!oom_est_type_is(s->value, "string") && !s->given))
            continue;
        r->via = s;
        oom_est_read_optimizer(r, s->value);
        r->via = NULL;
    }
}

/* ---- TrainingArguments' own defaults --------------------------------------- */

static bool is_training_arguments(const char *q)
{
    return strcmp(q, "transformers.TrainingArguments") == 0 ||
           strcmp(q, "transformers.Seq2SeqTrainingArguments") == 0 ||
           strcmp(q, "transformers.training_args.TrainingArguments") == 0;
}

typedef struct {
    oom_est_reader *r;
    const char *name; /* a class the parser is given */
    bool extends;     /* that class extends TrainingArguments */
    TSNode parser;    /* the HfArgumentParser call that fills TrainingArguments */
} trainer_scan;

static void visit_class(void *ctx, TSNode n)
{
    trainer_scan *ts = ctx;
    char name[64];
    if (!oom_est_type_is(n, "class_definition") || !oom_est_text_of(ts->r, oom_est_child(n, "name"), name, sizeof name) ||
        strcmp(name, ts->name) != 0)
        return;
    TSNode bases = oom_est_child(n, "superclasses");
    oom_buf q;
    oom_buf_init(&q);
    for (uint32_t i = 0; !ts_node_is_null(bases) && i < ts_node_named_child_count(bases); i++)
        if (oom_pymodel_qualname(ts->r->m, ts_node_named_child(bases, i), &q) && is_training_arguments(q.data))
            ts->extends = true;
    oom_buf_free(&q);
}

/* TrainingArguments itself, or a class of the file that extends it. */
static bool fills_training_arguments(trainer_scan *ts, TSNode cls)
{
    oom_buf q;
    oom_buf_init(&q);
    bool yes = oom_pymodel_qualname(ts->r->m, cls, &q) && is_training_arguments(q.data);
    if (!yes && oom_est_type_is(cls, "identifier")) {
        ts->name = q.data;
        ts->extends = false;
        oom_est_walk(ts->r, visit_class, ts);
        yes = ts->extends;
    }
    oom_buf_free(&q);
    return yes;
}

static void visit_parser(void *ctx, TSNode n)
{
    trainer_scan *ts = ctx;
    oom_buf q;
    oom_buf_init(&q);
    bool parser = ts_node_is_null(ts->parser) && oom_est_type_is(n, "call") &&
                  oom_pymodel_qualname(ts->r->m, oom_est_child(n, "function"), &q) &&
                  oom_str_ends_with(q.data, "HfArgumentParser");
    oom_buf_free(&q);
    if (!parser)
        return;
    TSNode args = oom_est_child(n, "arguments");
    TSNode first = ts_node_is_null(args) ? OOM_EST_NULL_NODE : ts_node_named_child(args, 0);
    if (oom_est_type_is(first, "tuple") || oom_est_type_is(first, "list")) {
        for (uint32_t i = 0; i < ts_node_named_child_count(first) && ts_node_is_null(ts->parser); i++)
            if (fills_training_arguments(ts, ts_node_named_child(first, i)))
                ts->parser = n;
    } else if (!ts_node_is_null(first) && fills_training_arguments(ts, first)) {
        ts->parser = n;
    }
}

static void assume_trainer_default(oom_est_reader *r, oom_input_kind k, TSNode parser, const char *what)
{
    if (r->out->from[k].assumed)
        oom_est_note(r, k, parser, what);
}

/* Without flags, an HfArgumentParser leaves TrainingArguments at its
 * defaults: batch 8 per device, fp32, AdamW, no checkpointing. */
static void read_trainer_defaults(oom_est_reader *r)
{
    trainer_scan ts = {r, NULL, false, OOM_EST_NULL_NODE};
    oom_est_walk(r, visit_parser, &ts);
    if (ts_node_is_null(ts.parser))
        return;
    if (r->out->from[OOM_IN_BATCH].assumed) {
        r->out->in.micro_batch = OOM_TRAINER_DEFAULT_BATCH;
        snprintf(r->out->batch_name, sizeof r->out->batch_name, "per_device_train_batch_size");
    }
    if (r->out->from[OOM_IN_PRECISION].assumed)
        r->out->in.precision = OOM_PREC_FP32;
    assume_trainer_default(r, OOM_IN_BATCH, ts.parser, "TrainingArguments default per_device_train_batch_size");
    assume_trainer_default(r, OOM_IN_PRECISION, ts.parser, "TrainingArguments default: bf16 and fp16 off");
    assume_trainer_default(r, OOM_IN_CHECKPOINTING, ts.parser, "TrainingArguments default: no checkpointing");
    assume_trainer_default(r, OOM_IN_OPTIMIZER, ts.parser, "TrainingArguments default optim (AdamW)");
}

static bool named_in(const char *name, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

int oom_est_input_for_name(const char *name)
{
    static const char *const precision_names[] = {"bf16", "fp16", "amp", "use_amp", "mixed_precision",
                                                  "precision", "torch_dtype", "load_in_4bit", "load_in_8bit", NULL};
    static const char *const model_names[] = {"model_name_or_path", "model_name", "model", "model_id",
                                              "base_model", "pretrained_model_name_or_path", NULL};
    if (named_in(name, batch_names))
        return OOM_IN_BATCH;
    if (named_in(name, seq_names))
        return OOM_IN_SEQ;
    if (named_in(name, checkpointing_names))
        return OOM_IN_CHECKPOINTING;
    if (named_in(name, optimizer_names))
        return OOM_IN_OPTIMIZER;
    if (named_in(name, precision_names))
        return OOM_IN_PRECISION;
    if (named_in(name, model_names))
        return OOM_IN_MODEL;
    return -1;
}

void oom_est_read_defaults(oom_est_reader *r)
{
    oom_script_inputs *out = r->out;
    read_number(r, OOM_IN_BATCH, batch_names, &out->in.micro_batch, out->batch_name, sizeof out->batch_name);
    if (!oom_script_inputs_is_image(out))
        read_number(r, OOM_IN_SEQ, seq_names, &out->in.seq_len, out->seq_name, sizeof out->seq_name);
    read_precision(r);
    read_checkpointing(r);
    read_optimizer(r);
    read_trainer_defaults(r);
}

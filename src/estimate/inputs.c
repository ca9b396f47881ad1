/* estimate/inputs: the estimate's inputs as a script states them, each with
 * where it came from; what the script does not say is assumed and marked so. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "oomlint/jsonfile.h"
#include "oomlint/lang.h"
#include "oomlint/project.h"

typedef oom_est_reader reader;

static bool name_is(const char *name, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(name, want, len) == 0;
}

static bool key_in(const char *key, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(key, names[i]) == 0)
            return true;
    return false;
}

/* The name a fix plan tells the user to change: the keyword, or the
 * setting it reads (`--batch_size` for `per_device_train_batch_size=args.batch_size`). */
static void name_for_plan(const reader *r, const char *key, char *out, size_t size)
{
    oom_est_copy(out, size, !r->via ? key : r->via->kind == OOM_SETTING_ARGPARSE ? r->via->spelling : r->via->name);
}

/* One keyword argument of a call the estimate reads. */
static void read_keyword(reader *r, const char *key, TSNode value, TSNode *lora_rank, TSNode *lora_targets,
                         TSNode *lora_dropout)
{
    static const char *const batch_keys[] = {"per_device_train_batch_size", "batch_size", "train_batch_size",
                                             "micro_batch_size", NULL};
    static const char *const seq_keys[] = {"max_length",       "max_seq_length", "block_size", "max_seq_len",
                                           "model_max_length", "seq_length",     NULL};
    oom_script_inputs *s = r->out;
    long long n;
    if (key_in(key, batch_keys)) {
        if (s->from[OOM_IN_BATCH].assumed && oom_est_value_int(r, value, &n) && n > 0) {
            s->in.micro_batch = n;
            name_for_plan(r, key, s->batch_name, sizeof s->batch_name);
            oom_est_note(r, OOM_IN_BATCH, value, key);
        }
    } else if (key_in(key, seq_keys)) {
        if (s->from[OOM_IN_SEQ].assumed && oom_est_value_int(r, value, &n) && n > 0) {
            s->in.seq_len = n;
            name_for_plan(r, key, s->seq_name, sizeof s->seq_name);
            oom_est_note(r, OOM_IN_SEQ, value, key);
        }
    } else if (strcmp(key, "gradient_accumulation_steps") == 0) {
        if (oom_est_value_int(r, value, &n) && n > 0)
            s->grad_accum = (int)n;
    } else if (strcmp(key, "gradient_checkpointing") == 0) {
        int on = oom_est_value_switch(r, value);
        if (on == 1 || (on == 0 && r->via && s->from[OOM_IN_CHECKPOINTING].assumed)) {
            s->in.gradient_checkpointing = on == 1;
            oom_est_note(r, OOM_IN_CHECKPOINTING, value,
                         on ? "gradient_checkpointing=True" : "gradient_checkpointing off");
        }
    } else if (strcmp(key, "optim") == 0) {
        if (!r->via || s->from[OOM_IN_OPTIMIZER].assumed)
            oom_est_read_optimizer(r, value);
    } else if (strcmp(key, "attn_implementation") == 0) {
        char v[48];
        if (oom_est_value_text(r, value, v, sizeof v)) {
            s->in.memory_efficient_attention = strstr(v, "eager") == NULL;
            oom_est_note(r, OOM_IN_ATTENTION, value, v);
        }
    } else if (strcmp(key, "r") == 0) {
        *lora_rank = value;
    } else if (strcmp(key, "target_modules") == 0) {
        *lora_targets = value;
    } else if (strcmp(key, "lora_dropout") == 0) {
        *lora_dropout = value;
    } else if (!r->via || s->from[OOM_IN_PRECISION].assumed) {
        oom_est_read_precision(r, key, value);
    }
}

static bool names_evaluation(const reader *r, TSNode n)
{
    static const char *const words[] = {"val", "valid", "validation", "eval", "evaluation", "test", "dev", NULL};
    if (!ts_node_is_null(n) && strcmp(ts_node_type(n), "attribute") == 0)
        n = oom_child(n, "attribute", 9);
    char name[64];
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), "identifier") == 0 &&
           oom_est_text_of(r, n, name, sizeof name) && oom_name_has_word(name, strlen(name), words);
}

/* Whether the keyword `value` is given to a method of this name. */
static bool keyword_of_method(const reader *r, TSNode value, const char *method)
{
    TSNode call = oom_est_keyword_call(value);
    TSNode fn = ts_node_is_null(call) ? call : oom_child(call, "function", 8);
    char name[16];
    return !ts_node_is_null(fn) && strcmp(ts_node_type(fn), "attribute") == 0 &&
           oom_est_text_of(r, oom_child(fn, "attribute", 9), name, sizeof name) && strcmp(name, method) == 0;
}

/* parser.set_defaults(batch_size=2): a setting's default (settings.c), not
 * a value a call uses; dataset.map(group_texts, batched=True,
 * batch_size=1000) (and .filter): how many examples a preprocessing
 * function sees at once, not a batch the model runs. */
static bool not_a_run_value(const reader *r, TSNode value)
{
    return keyword_of_method(r, value, "set_defaults") || keyword_of_method(r, value, "map") ||
           keyword_of_method(r, value, "filter");
}

/* A keyword of a call that serves evaluation, not training: in evaluation
 * code, bound to `val_loader`, or given `eval_dataset` to load. Its batch
 * size is the evaluation's, which the training step does not hold. */
static bool in_evaluation_call(const reader *r, TSNode value)
{
    TSNode call = oom_est_keyword_call(value);
    if (ts_node_is_null(call))
        return false;
    if (oom_pymodel_is_eval_code(r->m, call))
        return true;
    TSNode up = ts_node_parent(call);
    if (!ts_node_is_null(up) && strcmp(ts_node_type(up), "assignment") == 0 && names_evaluation(r, oom_child(up, "left", 4)))
        return true;
    TSNode args = oom_child(call, "arguments", 9);
    TSNode first = ts_node_is_null(args) ? args : ts_node_named_child(args, 0);
    return names_evaluation(r, first) || names_evaluation(r, oom_pymodel_keyword_value(r->m, call, "dataset"));
}

/* An encoder-decoder's target length: the max_length of the tokenizer call
 * that encodes the targets (`tokenizer(text_target=examples["summary"],
 * max_length=max_target_length)`). */
static void read_target_length(reader *r)
{
    oom_script_inputs *s = r->out;
    for (size_t i = 0; i < oom_pymodel_keyword_count(r->m) && s->from[OOM_IN_TARGET].assumed; i++) {
        const char *name;
        size_t len;
        TSNode value;
        oom_pymodel_keyword(r->m, i, &name, &len, &value);
        if (len != 11 || memcmp(name, "text_target", 11) != 0)
            continue;
        TSNode call = oom_est_keyword_call(value);
        TSNode max_length = ts_node_is_null(call) ? call : oom_pymodel_keyword_value(r->m, call, "max_length");
        long long n;
        if (ts_node_is_null(max_length) || !oom_est_value_int(r, max_length, &n) || n <= 0)
            continue;
        s->in.target_len = n;
        oom_est_note(r, OOM_IN_TARGET, max_length, "max_length of the text_target= tokenizer call");
    }
}

/* Keyword arguments, in passes: values written in the calls first, then
 * values the calls read from a setting (`per_device_train_batch_size=
 * args.batch_size`), each for an input still assumed; calls that serve
 * evaluation after those of training. A value written in a call wins over
 * any default. */
static void read_keywords(reader *r)
{
    TSNode lora_rank = {{0}, NULL, NULL}, lora_targets = {{0}, NULL, NULL}, lora_dropout = {{0}, NULL, NULL};
    for (int pass = 0; pass < 4; pass++)
        for (size_t i = 0; i < oom_pymodel_keyword_count(r->m); i++) {
            bool through_settings = pass % 2 == 1, evaluation = pass >= 2;
            const char *name;
            size_t len;
            TSNode value;
            oom_pymodel_keyword(r->m, i, &name, &len, &value);
            char key[48];
            if (len >= sizeof key)
                continue;
            memcpy(key, name, len);
            key[len] = '\0';
            const oom_est_setting *via = oom_est_setting_read_by(r, value);
            if ((via != NULL) != through_settings || in_evaluation_call(r, value) != evaluation ||
                !oom_est_runs_without_flags(r, value) || not_a_run_value(r, value))
                continue;
            r->via = via;
            if (via && !ts_node_is_null(via->value))
                value = via->value; /* the readers read the default's text */
            read_keyword(r, key, value, &lora_rank, &lora_targets, &lora_dropout);
            r->via = NULL;
        }
    if (!ts_node_is_null(lora_rank))
        oom_est_read_lora(r, lora_rank, lora_targets, lora_dropout);
    read_target_length(r);
}

/* deepspeed="ds.json": the ZeRO stage and optimizer offload. */
static void read_deepspeed(reader *r)
{
    for (size_t i = 0; i < oom_pymodel_keyword_count(r->m); i++) {
        const char *name;
        size_t len;
        TSNode value;
        oom_pymodel_keyword(r->m, i, &name, &len, &value);
        oom_buf v;
        oom_buf_init(&v);
        if (!name_is(name, len, "deepspeed") || !oom_pymodel_string_value(r->m, value, &v)) {
            oom_buf_free(&v);
            continue;
        }
        const char *slash = strrchr(r->path, '/');
        oom_buf p;
        oom_buf_init(&p);
        oom_buf_printf(&p, "%.*s%s%s", slash ? (int)(slash - r->path) : 0, r->path, slash ? "/" : "", v.data);
        int stage;
        bool offload;
        if (oom_est_read_zero_json(p.data, &stage, &offload)) {
            r->out->in.zero_stage = stage;
            r->out->in.offload_optimizer = offload;
            char what[160];
            snprintf(what, sizeof what, "ZeRO stage %d from %s%s", stage, p.data, offload ? ", optimizer offloaded" : "");
            oom_est_note(r, OOM_IN_ZERO, value, what);
        }
        oom_buf_free(&p);
        oom_buf_free(&v);
    }
}

/* FSDP (torch's FullyShardedDataParallel or fully_shard, accelerate's
 * FullyShardedDataParallelPlugin or ParallelismConfig, TrainingArguments'
 * fsdp=): parameters, gradients and optimizer states sharded like ZeRO-3
 * over however many GPUs the launch gives it. */
static void read_fsdp(reader *r)
{
    static const char *const sharders[] = {"FullyShardedDataParallel", "FSDP", "fully_shard",
                                           "FullyShardedDataParallelPlugin", "ParallelismConfig", NULL};
    oom_script_inputs *out = r->out;
    if (!out->from[OOM_IN_ZERO].assumed)
        return;
    for (size_t i = 0; sharders[i]; i++)
        if (oom_pymodel_file_calls(r->m, sharders[i])) {
            out->in.zero_stage = 3;
            snprintf(out->from[OOM_IN_ZERO].text, sizeof out->from[OOM_IN_ZERO].text,
                     "%s calls %s: sharded like ZeRO-3 over the GPUs the launch gives it", r->path, sharders[i]);
            out->from[OOM_IN_ZERO].assumed = false;
            out->from[OOM_IN_ZERO].line = 0;
            return;
        }
}

void oom_script_inputs_init(oom_script_inputs *s)
{
    memset(s, 0, sizeof(*s));
    s->in.training = true;
    s->in.micro_batch = OOM_TRAINER_DEFAULT_BATCH;
    s->in.seq_len = 512;
    s->in.precision = OOM_PREC_FP32;
    s->in.optimizer = OOM_OPT_ADAMW;
    s->in.num_gpus = 1;
    s->in.memory_efficient_attention = true;
    s->in.lm_head = false;
    s->grad_accum = 1;
    snprintf(s->batch_name, sizeof s->batch_name, "per_device_train_batch_size");
    snprintf(s->seq_name, sizeof s->seq_name, "max_length");
    oom_est_assume(s, OOM_IN_MODEL, "no model the knowledge base knows (use --model)");
    oom_est_assume(s, OOM_IN_BATCH, "batch 8 (the Trainer's default)");
    oom_est_assume(s, OOM_IN_SEQ, "sequence 512");
    oom_est_assume(s, OOM_IN_PRECISION, "fp32 (no mixed precision found)");
    oom_est_assume(s, OOM_IN_OPTIMIZER, "AdamW (the Trainer's default)");
    oom_est_assume(s, OOM_IN_CHECKPOINTING, "no gradient checkpointing");
    oom_est_assume(s, OOM_IN_ATTENTION, "SDPA attention (the default of recent Transformers)");
    oom_est_assume(s, OOM_IN_ZERO, "no ZeRO sharding");
    oom_est_assume(s, OOM_IN_GPUS, "1 GPU");
    oom_est_assume(s, OOM_IN_LORA, "all parameters trained");
    oom_est_assume(s, OOM_IN_IMAGE, "not an image model");
    oom_est_assume(s, OOM_IN_TASK, "no language-model head found: no vocabulary logits");
    oom_est_assume(s, OOM_IN_TARGET, "the target as long as the input (no max_length given with text_target=)");
    oom_est_assume(s, OOM_IN_MODE, "training");
}

/* The inputs from a modelled script; under a launch command, its arguments
 * over the script's defaults and the launcher's own settings after. Models
 * the script defines are sized only for `oomlint estimate` (`own_models`):
 * the capacity check does not judge their rough activations. */
static void read_modelled(const char *path, oom_source *src, oom_pymodel *m, TSNode root, const oom_kb *kb,
                          const oom_launch *launch, oom_strlist *notes, bool own_models, oom_script_inputs *out)
{
    oom_script_inputs_init(out);
    reader r;
    memset(&r, 0, sizeof r);
    r.path = path, r.src = src, r.m = m, r.out = out, r.kb = kb, r.root = root;
    r.launch = launch, r.notes = notes;
    if (own_models) { /* `oomlint estimate`: the symbolic run may be asked of values too */
        r.run = oom_est_modules_run_new(&r);
        r.switch_by_run = oom_est_modules_switch;
        r.int_by_run = oom_est_modules_int;
    }
    oom_est_settings_collect(&r);
    if (launch)
        oom_est_bind_arguments(&r);
    oom_est_read_config_splats(&r);
    oom_est_read_model(&r);
    read_keywords(&r);
    oom_est_read_vision(&r);
    oom_est_read_amp(&r);
    if (!oom_script_inputs_is_image(out))
        oom_est_read_task(&r);
    if (!out->model_known && own_models)
        oom_est_read_modules(&r);
    oom_est_read_frozen_base(&r);
    out->launcher_decides = oom_pymodel_file_calls(m, "Accelerator") ||
                            (oom_pymodel_file_calls(m, "initialize") && oom_pymodel_is_import_alias(m, "deepspeed", 9));
    oom_est_read_defaults(&r);
    /* peft's prepare_model_for_kbit_training casts what bitsandbytes left
     * in 16 bits (embeddings, head, norms) to fp32 */
    if (oom_pymodel_file_calls(m, "prepare_model_for_kbit_training"))
        out->in.unquantized_bytes = 4;
    /* a script that only loads or evaluates a model is not a training job */
    out->in.training = oom_pymodel_file_trains(m);
    oom_est_read_inference(&r);
    oom_est_read_placement(&r);
    if (oom_pymodel_file_calls(m, "gradient_checkpointing_enable")) {
        out->in.gradient_checkpointing = true;
        snprintf(out->from[OOM_IN_CHECKPOINTING].text, sizeof out->from[0].text,
                 "%s gradient_checkpointing_enable()", path);
        out->from[OOM_IN_CHECKPOINTING].assumed = false;
    }
    read_deepspeed(&r);
    read_fsdp(&r);
    if (launch)
        oom_est_apply_launch(&r);
    oom_est_settings_free(&r.settings);
    free(r.rejected);
    if (r.run)
        oom_est_modules_run_free(r.run);
}

void oom_script_inputs_from_model(const char *path, oom_source *src, oom_pymodel *m, TSNode root,
                                  const oom_kb *kb, oom_script_inputs *out)
{
    read_modelled(path, src, m, root, kb, NULL, NULL, false, out);
}

/* A script, or a notebook as the module of its code cells. */
static bool read_script(const char *path, oom_source *src, oom_buf *err)
{
    if (!oom_notebook_is_path(path)) {
        char why[256];
        if (oom_source_read(path, path, src, why, sizeof why) == OOM_SOURCE_OK)
            return true;
        oom_buf_printf(err, "%s: %s", path, why);
        return false;
    }
    oom_notebook_error nb_err;
    oom_source_status st = oom_source_read_notebook(path, path, src, &nb_err);
    if (st == OOM_SOURCE_OK)
        return true;
    if (st == OOM_SOURCE_NOTEBOOK_NOT_PYTHON)
        oom_buf_printf(err, "%s: the notebook's kernel is not Python", path);
    else if (nb_err.row)
        oom_buf_printf(err, "%s:%u:%u: %s", path, nb_err.row, nb_err.col, nb_err.message);
    else
        oom_buf_printf(err, "%s: %s", path, nb_err.message);
    return false;
}

/* Parses and models a script's source, then reads it. */
static void read_source(const char *path, oom_source *src, const oom_kb *kb, const oom_launch *launch,
                        oom_strlist *notes, oom_script_inputs *out)
{
    TSParser *parser = ts_parser_new();
    TSTree *tree = oom_parse_python(parser, src->text, src->len);
    oom_pymodel *m = oom_pymodel_build(tree, src->text, src->len);
    read_modelled(path, src, m, ts_tree_root_node(tree), kb, launch, notes, true, out);
    oom_pymodel_free(m);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
}

bool oom_script_inputs_read(const char *path, const oom_kb *kb, oom_script_inputs *out, oom_buf *err)
{
    oom_script_inputs_init(out);
    oom_source src;
    if (!read_script(path, &src, err)) {
        oom_source_free(&src);
        return false;
    }
    read_source(path, &src, kb, NULL, NULL, out);
    oom_source_free(&src);
    return true;
}

/* Whether a script's text parses command-line arguments itself. */
static bool parses_arguments(const char *text)
{
    return strstr(text, "parse_args") || strstr(text, "add_argument") || strstr(text, "HfArgumentParser") ||
           strstr(text, "TrlParser");
}

/* The module an import line names, as a file under `base` ("a.b.c" ->
 * base/a/b/c.py); a relative import (`from .train`) under the script's own
 * folder. NULL when none is there. */
static char *module_file(const char *base, const char *script, const char *module, size_t len)
{
    oom_buf p;
    oom_buf_init(&p);
    if (module[0] == '.') { /* one dot: the script's package */
        const char *slash = strrchr(script, '/');
        oom_buf_printf(&p, "%.*s%s", slash ? (int)(slash - script) : 1, slash ? script : ".", "/");
        module++, len--;
    } else if (base && strcmp(base, ".") != 0) {
        oom_buf_printf(&p, "%s/", base);
    }
    for (size_t i = 0; i < len; i++)
        oom_buf_putc(&p, module[i] == '.' ? '/' : module[i]);
    oom_buf_puts(&p, ".py");
    struct stat st;
    if (stat(p.data, &st) == 0 && S_ISREG(st.st_mode))
        return oom_buf_take(&p);
    oom_buf_free(&p);
    return NULL;
}

/* A launched script that is a thin wrapper (FastChat's and LLaVA's
 * train_mem.py: patch attention, then `from pkg.train import train;
 * train()`): the module it imports from that parses the arguments. One
 * hop; NULL when the script parses its own or no such module is found. */
static char *argument_parsing_module(const oom_launch *l, const oom_source *src)
{
    if (parses_arguments(src->text))
        return NULL;
    char *found = NULL;
    for (const char *line = src->text; line && *line && !found; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, "from ", 5) != 0)
            continue;
        const char *module = line + 5;
        size_t len = strcspn(module, " \t\n");
        char *path = module_file(l->dir, l->script, module, len);
        oom_source candidate;
        char why[64];
        if (path && oom_source_read(path, path, &candidate, why, sizeof why) == OOM_SOURCE_OK &&
            parses_arguments(candidate.text))
            found = oom_xstrdup(path);
        if (path)
            oom_source_free(&candidate);
        free(path);
    }
    return found;
}

bool oom_script_inputs_read_launch(const oom_launch *l, const oom_kb *kb, oom_script_inputs *out,
                                   oom_strlist *notes, oom_buf *err)
{
    oom_script_inputs_init(out);
    for (size_t i = 0; i < l->notes.len; i++)
        oom_strlist_push(notes, l->notes.items[i]);
    oom_source src;
    const char *name = l->script ? l->script : "(no script)";
    bool have_script = l->script && l->script_exists;
    if (have_script && !read_script(l->script, &src, err)) {
        oom_source_free(&src);
        return false;
    }
    char *module = have_script ? argument_parsing_module(l, &src) : NULL;
    if (module) {
        oom_buf n;
        oom_buf_init(&n);
        oom_buf_printf(&n, "%s parses no arguments; they are read by %s, which it imports", l->script, module);
        oom_strlist_push(notes, n.data);
        oom_buf_free(&n);
        oom_source_free(&src);
        if (!read_script(module, &src, err)) {
            oom_source_free(&src);
            free(module);
            return false;
        }
        name = module;
    }
    if (!have_script) {
        /* no script to read: the arguments alone, by their usual names */
        if (l->script) {
            char where[160];
            oom_launch_where(l, &l->script_word, where, sizeof where);
            oom_buf n;
            oom_buf_init(&n);
            oom_buf_printf(&n, "%s: %s does not exist; the arguments are read by their usual names", where,
                           l->script);
            oom_strlist_push(notes, n.data);
            oom_buf_free(&n);
        }
        char why[64];
        oom_source_from_memory(name, "", 0, &src, why, sizeof why);
    }
    read_source(name, &src, kb, l, notes, out);
    if (!have_script)
        out->in.training = true; /* a launched job trains; nothing says otherwise */
    oom_source_free(&src);
    free(module);
    return true;
}

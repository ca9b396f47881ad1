/* estimate/arguments: the script's own arguments in a launch command, bound
 * to the script's options as argparse and HfArgumentParser bind them
 * (`--flag value`, `--flag=value`, switches given bare or as True/False),
 * over the defaults the estimate reads otherwise; then what the launcher
 * itself sets (processes, mixed precision, sharding). An argument the script
 * has no option for, or a value its option would refuse, is a note, never
 * a guess. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "oomlint/lang.h"

static void note(oom_est_reader *r, const oom_launch_word *w, const char *fmt, const char *a, const char *b)
{
    char where[160], what[320];
    oom_launch_where(r->launch, w, where, sizeof where);
    oom_est_printf(what, sizeof what, fmt, a, b);
    oom_buf n;
    oom_buf_init(&n);
    oom_buf_printf(&n, "%s: %s", where, what);
    oom_strlist_push(r->notes, n.data);
    oom_buf_free(&n);
}

/* ---- what an option takes ----------------------------------------------------- */

typedef enum { TAKES_TEXT, TAKES_INT, TAKES_SWITCH, TAKES_LIST } takes;

/* TrainingArguments' (and TRL's configs') fields the estimate reads: an
 * HfArgumentParser over them accepts these though the script declares none. */
static const struct {
    const char *name;
    takes kind;
} trainer_fields[] = {{"per_device_train_batch_size", TAKES_INT},
                      {"gradient_accumulation_steps", TAKES_INT},
                      {"bf16", TAKES_SWITCH},
                      {"fp16", TAKES_SWITCH},
                      {"gradient_checkpointing", TAKES_SWITCH},
                      {"optim", TAKES_TEXT},
                      {"deepspeed", TAKES_TEXT},
                      {"fsdp", TAKES_TEXT},
                      {"max_seq_length", TAKES_INT}, /* TRL's SFTConfig */
                      {"max_length", TAKES_INT},
                      {"model_name_or_path", TAKES_TEXT}, /* TRL's ModelConfig */
                      {"torch_dtype", TAKES_TEXT},
                      {"load_in_4bit", TAKES_SWITCH},
                      {"load_in_8bit", TAKES_SWITCH}};

static int trainer_field(const char *name)
{
    for (size_t i = 0; i < sizeof trainer_fields / sizeof *trainer_fields; i++)
        if (strcmp(trainer_fields[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Whether `word` appears as a whole word in `text` ("int" in Optional[int]). */
static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool end = !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (start && end)
            return true;
    }
    return false;
}

/* What a declared setting takes: argparse's action / type= / nargs=, a
 * dataclass field's annotation, else the kind of its default. */
static takes setting_takes(const oom_est_reader *r, const oom_est_setting *s)
{
    if (s->flag >= 0 || s->bool_type)
        return TAKES_SWITCH;
    char text[96];
    if (s->kind == OOM_SETTING_ARGPARSE && oom_est_type_is(s->at, "call") &&
        !ts_node_is_null(oom_pymodel_keyword_value(r->m, s->at, "nargs")))
        return TAKES_LIST;
    if (s->kind == OOM_SETTING_DATACLASS && oom_est_text_of(r, oom_est_child(s->at, "type"), text, sizeof text)) {
        if (has_word(text, "bool"))
            return TAKES_SWITCH;
        if (has_word(text, "int") && !has_word(text, "List") && !has_word(text, "list"))
            return TAKES_INT;
        if (has_word(text, "List") || has_word(text, "list"))
            return TAKES_LIST;
        return TAKES_TEXT;
    }
    if (s->int_type || oom_est_type_is(s->value, "integer"))
        return TAKES_INT;
    if (oom_est_type_is(s->value, "true") || oom_est_type_is(s->value, "false"))
        return TAKES_SWITCH;
    return TAKES_TEXT;
}

/* A switch's value as HfArgumentParser's string_to_bool reads it. */
static const char *switch_value(const char *v)
{
    static const char *const on[] = {"true", "t", "yes", "y", "1", NULL};
    static const char *const off[] = {"false", "f", "no", "n", "0", NULL};
    for (int i = 0; on[i]; i++) {
        if (strcasecmp(v, on[i]) == 0)
            return "True";
        if (strcasecmp(v, off[i]) == 0)
            return "False";
    }
    return NULL;
}

static bool whole_number(const char *v)
{
    char *end = NULL;
    if (!*v)
        return false;
    (void)strtoll(v, &end, 10);
    return *end == '\0';
}

static bool is_option(const oom_launch_word *w)
{
    const char *t = w->text;
    return t[0] == '-' && t[1] && !isdigit((unsigned char)t[1]) && t[1] != '.';
}

/* ---- finding the option ------------------------------------------------------- */

/* Whether add_argument(...) at `at` names `word` (up to an `=`) among its
 * option strings: a short alias, `-c` of `("-c", "--config")`. */
static bool names_option(const oom_est_reader *r, TSNode at, const char *word, size_t spelled)
{
    TSNode args = oom_est_child(at, "arguments");
    for (uint32_t k = 0; !ts_node_is_null(args) && k < ts_node_named_child_count(args); k++) {
        TSNode a = ts_node_named_child(args, k);
        oom_buf v;
        oom_buf_init(&v);
        bool same = oom_est_type_is(a, "string") && oom_pymodel_string_value(r->m, a, &v) &&
                    strlen(v.data) == spelled && strncmp(v.data, word, spelled) == 0;
        oom_buf_free(&v);
        if (same)
            return true;
    }
    return false;
}

static oom_est_setting *declared(oom_est_reader *r, const char *word, const char *name)
{
    size_t spelled = strcspn(word, "=");
    for (size_t i = 0; word[0] == '-' && word[1] != '-' && i < r->settings.len; i++) {
        oom_est_setting *s = &r->settings.items[i];
        if (s->kind == OOM_SETTING_ARGPARSE && names_option(r, s->at, word, spelled))
            return s; /* a short alias, which argparse takes as the long option */
    }
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < r->settings.len; i++) {
            oom_est_setting *s = &r->settings.items[i];
            if (s->kind == OOM_SETTING_MODULE || s->kind == OOM_SETTING_CONFIG)
                continue;
            if (pass == 0 && s->kind == OOM_SETTING_ARGPARSE && strlen(s->spelling) == spelled &&
                strncmp(s->spelling, word, spelled) == 0)
                return s;
            if (pass == 0 && s->off_spelling[0] && strcmp(s->off_spelling, word) == 0)
                return s; /* `--no-gradient-checkpointing` */
            if (pass == 1 && strcmp(s->name, name) == 0)
                return s;
        }
    return NULL;
}

/* Whether the script hands its arguments to an HfArgumentParser (or TRL's
 * TrlParser), whose TrainingArguments take the trainer's own fields. */
typedef struct {
    const oom_est_reader *r;
    TSNode parser;
} parser_scan;

static void visit_parser(void *ctx, TSNode n)
{
    parser_scan *ps = ctx;
    if (!ts_node_is_null(ps->parser) || !oom_est_type_is(n, "call"))
        return;
    oom_buf q;
    oom_buf_init(&q);
    if (oom_pymodel_qualname(ps->r->m, oom_est_child(n, "function"), &q) &&
        (oom_str_ends_with(q.data, "HfArgumentParser") || oom_str_ends_with(q.data, "TrlParser")))
        ps->parser = n;
    oom_buf_free(&q);
}

static TSNode hf_parser(const oom_est_reader *r)
{
    parser_scan ps = {r, OOM_EST_NULL_NODE};
    oom_est_walk(r, visit_parser, &ps);
    return ps.parser;
}

/* A field of TrainingArguments the script does not declare: a setting of its
 * own, as HfArgumentParser would make it. */
static oom_est_setting *trainer_setting(oom_est_reader *r, const char *name, TSNode parser)
{
    oom_est_setting s;
    memset(&s, 0, sizeof s);
    oom_est_printf(s.name, sizeof s.name, "%s", name);
    oom_est_printf(s.spelling, sizeof s.spelling, "TrainingArguments.%s", name);
    s.kind = OOM_SETTING_DATACLASS;
    s.at = parser;
    s.value = OOM_EST_NULL_NODE;
    s.flag = -1;
    OOM_PUSH(r->settings.items, r->settings.len, r->settings.cap, s);
    return &r->settings.items[r->settings.len - 1];
}

/* ---- binding ----------------------------------------------------------------------- */

static void reject(oom_est_reader *r, const oom_launch_word *w, const char *name, const char *said,
                   const char *why)
{
    oom_est_rejected x;
    oom_est_printf(x.name, sizeof x.name, "%s", name);
    char where[160];
    oom_launch_where(r->launch, w, where, sizeof where);
    oom_est_printf(x.why, sizeof x.why, "%s: %s %s", where, said, why);
    OOM_PUSH(r->rejected, r->rejected_len, r->rejected_cap, x);
    note(r, w, "%s %s", said, why);
}

typedef struct {
    oom_est_reader *r;
    const oom_launch *l;
    size_t i; /* the next argument */
    TSNode parser; /* the HfArgumentParser, null when none */
    const char *script; /* the file read, for notes */
    oom_buf left; /* options left to TrainingArguments: "--output_dir (line 5), ..." */
} binder;

/* The value an option takes from the words after it; NULL when it has none. */
static const oom_launch_word *value_word(binder *b, takes kind, bool store_action)
{
    if (b->i >= b->l->arg_count)
        return NULL;
    const oom_launch_word *next = &b->l->args[b->i];
    /* argparse's store_true takes no value; HfArgumentParser's switches an
     * optional one (nargs="?"): the next word, unless it is an option */
    if ((kind == TAKES_SWITCH && store_action) || is_option(next))
        return NULL;
    b->i++;
    return next;
}

/* Gives setting `s` the value of the option in word `w`. */
static void give(binder *b, oom_est_setting *s, takes kind, const oom_launch_word *w, const char *name)
{
    const char *eq = strchr(w->text, '=');
    const oom_launch_word *vw = eq ? w : value_word(b, kind, s->flag >= 0);
    const char *value = eq ? eq + 1 : vw ? vw->text : NULL;
    char said[96];
    if (vw && !eq)
        oom_est_printf(said, sizeof said, "%s %s", w->text, vw->text);
    else
        oom_est_printf(said, sizeof said, "%s", w->text);
    if (kind == TAKES_LIST) /* `--target_modules q_proj v_proj`: the rest of the list */
        while (b->i < b->l->arg_count && !is_option(&b->l->args[b->i]))
            b->i++;
    if (vw && vw->unresolved) {
        char why[96];
        oom_est_printf(why, sizeof why, "%s; the default stands", oom_est_unresolved_why(vw->unresolved));
        reject(b->r, w, name, said, why);
        return;
    }
    if (kind == TAKES_SWITCH) {
        const char *on = value ? switch_value(value) : s->flag == 1 ? "False" : "True";
        if (!on) {
            reject(b->r, w, name, said, "is not true or false (the script would stop); the default stands");
            return;
        }
        s->given = on;
    } else if (!value) {
        reject(b->r, w, name, said, "has no value (the script would stop); the default stands");
        return;
    } else if (kind == TAKES_INT && !whole_number(value)) {
        reject(b->r, w, name, said, "is not a whole number (the script would stop); the default stands");
        return;
    } else {
        s->given = value;
    }
    s->given_word = w;
    s->given_assumed = w->conditional || (vw && vw->conditional);
    oom_est_printf(s->given_said, sizeof s->given_said, "%s", said);
}

/* An option the script does not have: noted, its value (if it seems to
 * have one) passed over. */
static void unknown(binder *b, const oom_launch_word *w)
{
    if (!strchr(w->text, '=') && b->i < b->l->arg_count && !is_option(&b->l->args[b->i]))
        b->i++;
    if (w->text[1] != '-') {
        note(b->r, w, "%s: a short option, not matched to %s's options; not used", w->text, b->script);
    } else if (!ts_node_is_null(b->parser)) {
        /* one note for them all: a real launch line gives TrainingArguments dozens */
        oom_buf_printf(&b->left, "%s%.*s (%s %u)", b->left.len ? ", " : "", (int)strcspn(w->text, "="), w->text,
                       b->l->file && w->line ? "line" : "word", b->l->file && w->line ? w->line : w->index);
    } else {
        note(b->r, w, "%s is not an option of %s; not used", w->text, b->script);
    }
}

/* Without the script, what an option takes is guessed from what follows it:
 * nothing or another option, a switch; true/false, a switch; else a value. */
static bool switch_word(const char *v)
{
    return isalpha((unsigned char)v[0]) && switch_value(v); /* true, yes; not 1, a batch size */
}

static takes guessed(const binder *b, const oom_launch_word *w)
{
    if (strchr(w->text, '='))
        return switch_word(strchr(w->text, '=') + 1) ? TAKES_SWITCH : TAKES_TEXT;
    if (b->i >= b->l->arg_count || is_option(&b->l->args[b->i]) || switch_word(b->l->args[b->i].text))
        return TAKES_SWITCH;
    return TAKES_TEXT;
}

static void bind_option(binder *b, const oom_launch_word *w)
{
    char name[64];
    oom_est_option_name(w->text, name, sizeof name);
    oom_est_setting *s = declared(b->r, w->text, name);
    takes kind;
    if (s && s->off_spelling[0] && strcmp(s->off_spelling, w->text) == 0) { /* a switch's off word takes no value */
        s->given = "False";
        s->given_word = w;
        s->given_assumed = w->conditional;
        oom_est_printf(s->given_said, sizeof s->given_said, "%s", w->text);
        return;
    }
    if (!s && b->r->launch->script && !b->r->launch->script_exists) {
        /* the script is not there: every option is read by its name */
        kind = guessed(b, w);
        s = trainer_setting(b->r, name, b->parser);
        oom_est_printf(s->spelling, sizeof s->spelling, "--%s", name);
    } else if (s) {
        kind = setting_takes(b->r, s);
    } else {
        int f = trainer_field(name);
        if (f < 0 || ts_node_is_null(b->parser)) {
            unknown(b, w);
            return;
        }
        kind = trainer_fields[f].kind;
        /* the setting is made only for a value the field accepts */
        oom_est_setting probe;
        memset(&probe, 0, sizeof probe);
        probe.flag = -1;
        size_t before = b->i;
        give(b, &probe, kind, w, name);
        if (!probe.given)
            return;
        b->i = before;
        s = trainer_setting(b->r, name, b->parser);
    }
    give(b, s, kind, w, name);
}

void oom_est_bind_arguments(oom_est_reader *r)
{
    const char *script = r->launch->script_exists ? r->path : "the script";
    binder b = {r, r->launch, 0, hf_parser(r), script, {0}};
    oom_buf_init(&b.left);
    while (b.i < b.l->arg_count) {
        const oom_launch_word *w = &b.l->args[b.i++];
        if (is_option(w) && strcmp(w->text, "--") != 0) {
            bind_option(&b, w);
        } else if (!ts_node_is_null(b.parser) && (oom_str_ends_with(w->text, ".json") ||
                                                  oom_str_ends_with(w->text, ".yaml") ||
                                                  oom_str_ends_with(w->text, ".yml"))) {
            note(r, w, "%s is a config file for %s's HfArgumentParser; estimate it with `oomlint estimate FILE`",
                 w->text, script);
        } else if (strcmp(w->text, "--") != 0) {
            note(r, w, "%s is not an option of %s; not used", w->text, script);
        }
    }
    if (b.left.len) {
        oom_buf n;
        oom_buf_init(&n);
        oom_buf_printf(&n, "%s: not declared in %s, left to its TrainingArguments, not used by the estimate: %s",
                       b.l->file ? b.l->file : "command", script, b.left.data);
        oom_strlist_push(r->notes, n.data);
        oom_buf_free(&n);
    }
    oom_buf_free(&b.left);
}

/* ---- after the script is read ------------------------------------------------------- */

static void set_from(oom_script_inputs *s, oom_input_kind k, const char *text, bool assumed)
{
    oom_est_printf(s->from[k].text, sizeof s->from[k].text, "%s", text);
    s->from[k].assumed = assumed;
    s->from[k].line = 0;
}

static void launch_note(oom_est_reader *r, const char *fmt, const char *a, const char *b)
{
    oom_buf n;
    oom_buf_init(&n);
    oom_buf_printf(&n, fmt, a, b);
    oom_strlist_push(r->notes, n.data);
    oom_buf_free(&n);
}

/* accelerate's --mixed_precision: the precision of a script that does not
 * set one itself (the Accelerator takes it from the launcher). */
static void apply_precision(oom_est_reader *r)
{
    const oom_launch *l = r->launch;
    oom_script_inputs *s = r->out;
    if (!l->precision[0])
        return;
    bool half = strcmp(l->precision, "bf16") == 0 || strcmp(l->precision, "fp16") == 0 ||
                strcmp(l->precision, "fp8") == 0;
    if (half && s->in.precision == OOM_PREC_FP32) {
        s->in.precision = strcmp(l->precision, "fp16") == 0 ? OOM_PREC_AMP_FP16 : OOM_PREC_AMP_BF16;
        set_from(s, OOM_IN_PRECISION, l->precision_from, false);
        if (strcmp(l->precision, "fp8") == 0) {
            oom_est_copy(s->from[OOM_IN_PRECISION].text, sizeof s->from[0].text, "fp8 is counted as bf16 mixed precision");
            s->from[OOM_IN_PRECISION].assumed = true;
        }
    } else if (!half && s->from[OOM_IN_PRECISION].assumed) {
        s->in.precision = OOM_PREC_FP32;
        set_from(s, OOM_IN_PRECISION, l->precision_from, false);
    } else if (half) {
        launch_note(r, "%s: the script sets its own precision (%s), which is kept", l->precision_from,
                    oom_precision_name(s->in.precision));
    }
}

static void apply_zero_config(oom_est_reader *r, const oom_est_setting *s)
{
    char *path;
    const char *dir = r->launch->dir;
    oom_buf b;
    oom_buf_init(&b);
    if (s->given[0] == '/' || !dir || strcmp(dir, ".") == 0)
        oom_buf_puts(&b, s->given);
    else
        oom_buf_printf(&b, "%s/%s", dir, s->given);
    path = oom_buf_take(&b);
    int stage;
    bool offload;
    char where[160];
    oom_launch_where(r->launch, s->given_word, where, sizeof where);
    if (oom_est_read_zero_json(path, &stage, &offload)) {
        r->out->in.zero_stage = stage;
        r->out->in.offload_optimizer = offload;
        char text[256];
        oom_est_printf(text, sizeof text, "%s: %s: ZeRO stage %d%s", where, s->given_said, stage,
                 offload ? ", optimizer offloaded" : "");
        set_from(r->out, OOM_IN_ZERO, text, false);
        r->out->from[OOM_IN_ZERO].line = s->given_word->line;
    } else {
        launch_note(r, "%s: %s is not a readable DeepSpeed config with a ZeRO stage; not used", where, path);
    }
    free(path);
}

/* TrainingArguments' --fsdp "full_shard auto_wrap": FSDP's sharding as the
 * ZeRO stage it equals (full_shard and hybrid_shard shard the parameters too,
 * shard_grad_op gradients and optimizer states); "offload" moves them off. */
static void apply_fsdp(oom_est_reader *r, const oom_est_setting *s)
{
    int stage = strstr(s->given, "full_shard") || strstr(s->given, "hybrid_shard") ? 3
                : strstr(s->given, "shard_grad_op")                                 ? 2
                                                                                    : -1;
    if (stage < 0)
        return;
    r->out->in.zero_stage = stage;
    r->out->in.offload_optimizer = strstr(s->given, "offload") != NULL;
    char where[160], text[256];
    oom_launch_where(r->launch, s->given_word, where, sizeof where);
    oom_est_printf(text, sizeof text, "%s: %s: FSDP, sharded as ZeRO stage %d%s", where, s->given_said, stage,
                   r->out->in.offload_optimizer ? ", offloaded" : "");
    set_from(r->out, OOM_IN_ZERO, text, false);
    r->out->from[OOM_IN_ZERO].line = s->given_word->line;
}

/* The arguments the readers do not see through a call: accumulation, the
 * DeepSpeed config, FSDP. */
static void apply_given_settings(oom_est_reader *r)
{
    for (size_t i = 0; i < r->settings.len; i++) {
        const oom_est_setting *s = &r->settings.items[i];
        if (!s->given || s->kind == OOM_SETTING_CONFIG) /* a config's key, not a command word */
            continue;
        if (strcmp(s->name, "gradient_accumulation_steps") == 0 && whole_number(s->given) && atoi(s->given) > 0)
            r->out->grad_accum = atoi(s->given);
        else if ((strcmp(s->name, "deepspeed") == 0 || strcmp(s->name, "deepspeed_config") == 0) &&
                 oom_str_ends_with(s->given, ".json"))
            apply_zero_config(r, s);
        else if (strcmp(s->name, "fsdp") == 0)
            apply_fsdp(r, s);
    }
}

/* A model the arguments name that no call the estimate follows loads. */
static void apply_model_argument(oom_est_reader *r)
{
    static const char *const names[] = {"model_name_or_path", "model_name", "model", "model_id", "base_model",
                                        "pretrained_model_name_or_path", NULL};
    const oom_est_setting *unknown_model = NULL;
    for (int i = 0; names[i] && !r->out->model_known; i++) {
        const oom_est_setting *s = oom_est_setting_named(r, names[i]);
        if (!s || !s->given)
            continue;
        if (!oom_script_inputs_use_model(r->out, r->kb, s->given, NULL)) {
            unknown_model = unknown_model ? unknown_model : s;
            continue;
        }
        r->via = s;
        oom_est_note(r, OOM_IN_MODEL, s->at, s->name);
        r->via = NULL;
    }
    if (!r->out->model_known && unknown_model) { /* say which argument named a model that cannot be sized */
        char where[160], why[256];
        oom_launch_where(r->launch, unknown_model->given_word, where, sizeof where);
        oom_est_printf(why, sizeof why, "%s: %s is not a model the knowledge base knows", where,
                       unknown_model->given_said);
        oom_est_assume(r->out, OOM_IN_MODEL, why);
    }
}

/* A value from a variable set in a loop or one branch of an if: its input
 * is marked assumed now that no reader takes "assumed" for "not yet read". */
static void mark_uncertain(oom_est_reader *r)
{
    for (size_t i = 0; i < r->settings.len; i++) {
        const oom_est_setting *s = &r->settings.items[i];
        int k = s->given && s->given_assumed ? oom_est_input_for_name(s->name) : -1;
        if (k >= 0 && strstr(r->out->from[k].text, s->given_said))
            r->out->from[k].assumed = true;
    }
}

static void apply_rejected(oom_est_reader *r)
{
    for (size_t i = 0; i < r->rejected_len; i++) {
        int k = oom_est_input_for_name(r->rejected[i].name);
        if (k < 0)
            continue;
        oom_provenance *p = &r->out->from[k];
        size_t used = strlen(p->text);
        oom_est_printf(p->text + used, sizeof p->text - used, "; %s", r->rejected[i].why);
        p->assumed = true;
    }
}

void oom_est_apply_launch(oom_est_reader *r)
{
    const oom_launch *l = r->launch;
    oom_script_inputs *s = r->out;
    apply_model_argument(r);
    if (l->processes > 0) {
        s->in.num_gpus = l->processes;
        set_from(s, OOM_IN_GPUS, l->processes_from, l->processes_assumed);
    }
    apply_precision(r);
    if (l->zero_stage >= 0) {
        s->in.zero_stage = l->zero_stage;
        s->in.offload_optimizer = l->offload_optimizer;
        set_from(s, OOM_IN_ZERO, l->zero_from, false);
    }
    apply_given_settings(r);
    mark_uncertain(r);
    apply_rejected(r);
}

/* estimate/loads: which model a script loads and which head it puts on it.
 * The model is the first `from_pretrained` of a model class (not a
 * tokenizer's, processor's or config's) whose id the knowledge base knows:
 * written in the call, bound to a name, or the default of the setting the
 * call reads (`from_pretrained(args.model_name_or_path)` with
 * `--model_name_or_path` defaulting to "gpt2"). The head decides the
 * logits: a language-model head scores every position against the
 * vocabulary. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "oomlint/lang.h"

/* ---- the model ------------------------------------------------------------- */

typedef struct {
    oom_est_reader *r;
    bool model_class_loads; /* some from_pretrained of a model class, known or not */
} model_scan;

/* `X.from_pretrained(...)`: X's text into `cls`. */
static bool is_from_pretrained(const oom_est_reader *r, TSNode call, char *cls, size_t size)
{
    TSNode fn = oom_est_child(call, "function");
    return oom_est_type_is(call, "call") && oom_est_type_is(fn, "attribute") &&
           oom_est_text_of(r, oom_est_child(fn, "attribute"), cls, size) && strcmp(cls, "from_pretrained") == 0 &&
           oom_est_text_of(r, oom_est_child(fn, "object"), cls, size);
}

/* Classes whose from_pretrained loads no weights to train: the id a
 * tokenizer, processor or config is loaded from says nothing of the model
 * (TRL's example loads bert-base-uncased's tokenizer for an embedding). */
static bool loads_no_model(const char *cls)
{
    static const char *const parts[] = {"Tokenizer", "Processor", "FeatureExtractor", "Config", "Peft", NULL};
    for (int i = 0; parts[i]; i++)
        if (strstr(cls, parts[i]))
            return true;
    return false;
}

/* The id argument of from_pretrained: the first positional argument or
 * pretrained_model_name_or_path=. */
static TSNode id_argument(const oom_est_reader *r, TSNode call)
{
    TSNode args = oom_est_child(call, "arguments");
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        if (oom_est_type_is(a, "comment"))
            continue;
        if (!oom_est_type_is(a, "keyword_argument"))
            return oom_est_type_is(a, "list_splat") || oom_est_type_is(a, "dictionary_splat") ? OOM_EST_NULL_NODE : a;
        break;
    }
    return oom_pymodel_keyword_value(r->m, call, "pretrained_model_name_or_path");
}

/* A class that cannot load the checkpoint: a causal-LM class given a
 * seq2seq checkpoint or the other way round (AutoModelForSeq2SeqLM raises
 * "Unrecognized configuration class OPTConfig"). FastChat's T5 scripts
 * default to facebook/opt-125m: a placeholder, not a job that runs. */
static bool cannot_load(const oom_est_reader *r, const char *cls, const char *id)
{
    const oom_model *m = oom_kb_find_model(r->kb, id);
    oom_task loads = oom_task_of_class(cls), is;
    if (!m || !m->task[0] || !oom_task_from_id(m->task, &is))
        return false;
    bool lm_class = loads == OOM_TASK_CAUSAL_LM || loads == OOM_TASK_SEQ2SEQ;
    bool lm_checkpoint = is == OOM_TASK_CAUSAL_LM || is == OOM_TASK_SEQ2SEQ;
    return lm_class && lm_checkpoint && loads != is;
}

/* The hub id an argument names: a string, through names, or the default
 * of the setting it reads (via); literal is the string's node. */
typedef struct {
    TSNode arg;
    oom_buf id;
    TSNode literal;
    const oom_est_setting *via;
} model_id;

static void read_model_id(const oom_est_reader *r, TSNode arg, model_id *out)
{
    out->arg = arg;
    oom_buf_init(&out->id);
    out->literal = oom_pymodel_value_of(r->m, arg, 0);
    out->via = NULL;
    if (ts_node_is_null(out->literal) || !oom_pymodel_string_value(r->m, out->literal, &out->id)) {
        out->literal = OOM_EST_NULL_NODE;
        out->via = oom_est_setting_read_by(r, arg);
        if (!out->via || !oom_est_setting_string(r, out->via, &out->id))
            out->via = NULL;
    }
}

bool oom_est_is_pipeline(const oom_est_reader *r, TSNode call)
{
    oom_buf q;
    oom_buf_init(&q);
    bool yes = oom_est_type_is(call, "call") && oom_pymodel_qualname(r->m, oom_est_child(call, "function"), &q) &&
               strcmp(q.data, "transformers.pipeline") == 0;
    oom_buf_free(&q);
    return yes;
}

/* The model's provenance: the call that loads it, noted at the id's
 * literal (or the argument naming it), through the setting it came from. */
static void note_model_loaded(oom_est_reader *r, TSNode call, const model_id *mi, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note_model_loaded(oom_est_reader *r, TSNode call, const model_id *mi, const char *fmt, ...)
{
    oom_buf what;
    oom_buf_init(&what);
    va_list ap;
    va_start(ap, fmt);
    oom_buf_vprintf(&what, fmt, ap);
    va_end(ap);
    r->via = mi->via;
    oom_est_note(r, OOM_IN_MODEL, ts_node_is_null(mi->literal) ? mi->arg : mi->literal, what.data);
    oom_buf_free(&what);
    r->via = NULL;
    r->model_call = call;
}

/* `pipeline("text-generation", model="<hub id>", ...)`: transformers loads
 * the model itself, named by model= or the second positional argument. */
static bool try_pipeline(model_scan *ms, TSNode call)
{
    oom_est_reader *r = ms->r;
    TSNode args = oom_est_child(call, "arguments");
    TSNode arg = oom_pymodel_keyword_value(r->m, call, "model");
    if (ts_node_is_null(arg) && ts_node_named_child_count(args) > 1 &&
        !oom_est_type_is(ts_node_named_child(args, 0), "keyword_argument") &&
        !oom_est_type_is(ts_node_named_child(args, 1), "keyword_argument"))
        arg = ts_node_named_child(args, 1);
    if (ts_node_is_null(arg))
        return false;
    model_id mi;
    read_model_id(r, arg, &mi);
    bool found = mi.id.len > 0 && oom_script_inputs_use_model(r->out, r->kb, mi.id.data, NULL);
    if (found)
        note_model_loaded(r, call, &mi, "pipeline(model=\"%s\")", r->out->model_id);
    oom_buf_free(&mi.id);
    return found;
}

/* Sizes the model a from_pretrained call loads, when the knowledge base
 * knows its id. */
static bool try_loader(model_scan *ms, TSNode call, const char *cls)
{
    oom_est_reader *r = ms->r;
    TSNode arg = id_argument(r, call);
    if (ts_node_is_null(arg))
        return false;
    model_id mi;
    read_model_id(r, arg, &mi);
    oom_buf q;
    oom_buf_init(&q);
    if (!oom_pymodel_qualname(r->m, oom_est_child(call, "function"), &q))
        oom_buf_puts(&q, cls);
    bool unloadable = mi.id.len > 0 && cannot_load(r, q.data, mi.id.data);
    bool found = mi.id.len > 0 && !unloadable && oom_script_inputs_use_model(r->out, r->kb, mi.id.data, NULL);
    if (unloadable) {
        char why[232];
        snprintf(why, sizeof why, "%.80s cannot load \"%.80s\": a causal LM and a seq2seq model differ", cls,
                 mi.id.data);
        oom_est_assume(r->out, OOM_IN_MODEL, why);
    }
    oom_buf_free(&q);
    if (found)
        note_model_loaded(r, call, &mi, "%s.from_pretrained(\"%s\")", cls, r->out->model_id);
    oom_buf_free(&mi.id);
    return found;
}

static void visit_loader(void *ctx, TSNode n)
{
    model_scan *ms = ctx;
    char cls[96];
    if (!ms->r->out->model_known && oom_est_is_pipeline(ms->r, n) && oom_est_runs_without_flags(ms->r, n)) {
        try_pipeline(ms, n);
        return;
    }
    if (ms->r->out->model_known || !is_from_pretrained(ms->r, n, cls, sizeof cls) || loads_no_model(cls))
        return;
    ms->model_class_loads = true;
    if (oom_est_runs_without_flags(ms->r, n)) /* not `if args.large: ...from_pretrained("gpt2-large")` */
        try_loader(ms, n, cls);
}

/* Where no model class's from_pretrained names a known id, any checkpoint
 * the file loads (a tokenizer's id, when the model is built from a config
 * the script makes itself). */
static void read_any_pretrained_id(oom_est_reader *r)
{
    const oom_strlist *ids = oom_pymodel_pretrained_ids(r->m);
    for (size_t i = 0; i < ids->len && !r->out->model_known; i++) {
        if (!oom_script_inputs_use_model(r->out, r->kb, ids->items[i], NULL))
            continue;
        oom_provenance *p = &r->out->from[OOM_IN_MODEL];
        uint32_t row = 0, col = 0;
        /* point at the string that names the model */
        const char *at = strstr(r->src->text, ids->items[i]);
        if (at)
            oom_source_position(r->src, (size_t)(at - r->src->text) - (at > r->src->text ? 1 : 0), &row, &col);
        snprintf(p->text, sizeof p->text, "%s:%u from_pretrained(\"%s\")", r->path, row, ids->items[i]);
        p->assumed = false;
        p->line = row;
        p->col = col;
    }
}

void oom_est_read_model(oom_est_reader *r)
{
    model_scan ms = {r, false};
    oom_est_walk(r, visit_loader, &ms);
    if (!r->out->model_known && !ms.model_class_loads)
        read_any_pretrained_id(r);
}

/* ---- the head ---------------------------------------------------------------- */

oom_task oom_task_of_class(const char *q)
{
    if (oom_str_ends_with(q, "SFTTrainer"))
        return OOM_TASK_CAUSAL_LM;
    return oom_kb_head_of_class(q);
}

/* How much a task says about the loss: a head over the vocabulary most, a
 * classifier next, an encoder alone least. */
static int task_rank(oom_task t)
{
    return oom_task_has_vocab_logits(t) ? 3 : t == OOM_TASK_CLASSIFICATION ? 2 : t == OOM_TASK_EMBEDDING ? 1 : 0;
}

typedef struct {
    oom_est_reader *r;
    oom_task task;
    TSNode at;
    char cls[96];
} head_scan;

static void visit_head(void *ctx, TSNode n)
{
    head_scan *hs = ctx;
    if (!oom_est_type_is(n, "call"))
        return;
    oom_buf q;
    oom_buf_init(&q);
    if (oom_pymodel_qualname(hs->r->m, oom_est_child(n, "function"), &q)) {
        oom_task t = oom_task_of_class(q.data);
        if (task_rank(t) > task_rank(hs->task)) {
            hs->task = t;
            hs->at = n;
            const char *last = strrchr(q.data, '.');
            bool method = last && (strcmp(last, ".from_pretrained") == 0 || strcmp(last, ".from_config") == 0);
            const char *start = q.data;
            if (method) /* keep the class and its method: AutoModelForCausalLM.from_pretrained */
                for (const char *p = q.data; p < last; p++)
                    if (*p == '.')
                        start = p + 1;
            snprintf(hs->cls, sizeof hs->cls, "%s", method ? start : (last ? last + 1 : q.data));
        }
    }
    oom_buf_free(&q);
}

static void describe_task(const head_scan *hs, char *what, size_t size)
{
    static const char *const heads[OOM_TASK_COUNT] = {"", "a causal LM head", "a seq2seq LM head",
                                                      "a masked LM head", "a classification head",
                                                      "no head (hidden states)"};
    snprintf(what, size, "%s: %s", hs->cls, heads[hs->task]);
}

void oom_est_read_task(oom_est_reader *r)
{
    head_scan hs = {r, OOM_TASK_UNKNOWN, OOM_EST_NULL_NODE, ""};
    /* the call that loaded the model says it best */
    if (!ts_node_is_null(r->model_call))
        visit_head(&hs, r->model_call);
    if (hs.task == OOM_TASK_UNKNOWN)
        oom_est_walk(r, visit_head, &hs);
    if (hs.task == OOM_TASK_UNKNOWN)
        return; /* the knowledge base's task for the model, if any, stands */
    char what[160];
    describe_task(&hs, what, sizeof what);
    oom_script_inputs_set_task(r->out, hs.task, NULL);
    oom_est_note(r, OOM_IN_TASK, hs.at, what);
    r->out->task_named = true;
}

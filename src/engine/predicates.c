/* engine/predicates: the standard tree-sitter text predicates (#eq?,
 * #match?, #any-of? and their #not- forms), evaluated here because the
 * tree-sitter core leaves them to its callers, plus oomlint's semantic
 * predicates (#oom-...?) answered by the Python model. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "oomlint/project.h"

/* ---- semantic predicates ------------------------------------------------------ */

/* Before building a dotted name (which costs an allocation per call in the
 * file), check that its last part can be one of the wanted names: it must
 * be, unless the name is an import alias (`from torch import load as tload`). */
static bool last_part_can_match(const oom_pymodel *m, const char *src, TSNode n, const oom_pred *p)
{
    const char *type = ts_node_type(n);
    TSNode last = n;
    if (strcmp(type, "attribute") == 0)
        last = ts_node_child_by_field_name(n, "attribute", 9);
    else if (strcmp(type, "identifier") != 0)
        return false;
    if (ts_node_is_null(last))
        return false;
    uint32_t a = ts_node_start_byte(last), b = ts_node_end_byte(last);
    if (ts_node_eq(last, n) && oom_pymodel_is_import_alias(m, src + a, b - a))
        return true;
    for (size_t i = 0; i < p->arg_count; i++) {
        const char *dot = strrchr(p->args[i], '.');
        const char *want = dot ? dot + 1 : p->args[i];
        if (strlen(want) == b - a && memcmp(want, src + a, b - a) == 0)
            return true;
    }
    return false;
}

static bool sem_qualname(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                         oom_buf *scratch)
{
    const oom_pymodel *m = env->py;
    if (!m)
        return false;
    (void)site;
    if (!last_part_can_match(m, env->src, n, p) || !oom_pymodel_qualname(m, n, scratch))
        return false;
    for (size_t i = 0; i < p->arg_count; i++)
        if (strcmp(scratch->data, p->args[i]) == 0)
            return true;
    return false;
}

static bool sem_qualname_match(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                               oom_buf *scratch)
{
    const oom_pymodel *m = env->py;
    if (!m)
        return false;
    (void)site;
    if (!oom_pymodel_qualname(m, n, scratch))
        return false;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(p->regex, NULL);
    pcre2_match_context *mctx = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(mctx, OOM_REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(mctx, OOM_REGEX_DEPTH_LIMIT);
    int rc = pcre2_match(p->regex, (PCRE2_SPTR)scratch->data, scratch->len, 0, 0, md, mctx);
    pcre2_match_context_free(mctx);
    pcre2_match_data_free(md);
    return rc >= 0;
}

static bool sem_string(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                       oom_buf *scratch)
{
    const oom_pymodel *m = env->py;
    if (!m)
        return false;
    (void)site;
    if (!oom_pymodel_string_value(m, n, scratch))
        return false;
    for (size_t i = 0; i < p->arg_count; i++)
        if (strcmp(scratch->data, p->args[i]) == 0)
            return true;
    return false;
}

#define SEM_NODE_ONLY(fname, call)                                                          \
    static bool fname(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,     \
                      oom_buf *scratch)                                                     \
    {                                                                                       \
        const oom_pymodel *m = env->py;                                                     \
        if (!m)                                                                             \
            return false;                                                                   \
        (void)n;                                                                            \
        (void)site;                                                                         \
        (void)p;                                                                            \
        (void)scratch;                                                                      \
        return call;                                                                        \
    }

SEM_NODE_ONLY(sem_in_loop, oom_pymodel_in_loop(m, n))
SEM_NODE_ONLY(sem_grad_enabled, oom_pymodel_grad_state(m, n) == OOM_GRAD_ENABLED)
SEM_NODE_ONLY(sem_eval_code, oom_pymodel_is_eval_code(m, n))
SEM_NODE_ONLY(sem_model_call, oom_pymodel_is_model_call(m, n))
SEM_NODE_ONLY(sem_carries_graph, oom_pymodel_carries_graph(m, n))
SEM_NODE_ONLY(sem_backpropagated, oom_pymodel_is_backpropagated(m, n))
SEM_NODE_ONLY(sem_literal, oom_pymodel_is_literal(m, n))

SEM_NODE_ONLY(sem_cuda_initialized_before, oom_pymodel_cuda_initialized_before(m, n))
SEM_NODE_ONLY(sem_distributed_file, oom_pymodel_is_distributed(m))
SEM_NODE_ONLY(sem_last_backward, oom_pymodel_is_last_backward(m, n))
SEM_NODE_ONLY(sem_device_output, oom_pymodel_is_device_output(m, n))
SEM_NODE_ONLY(sem_in_guard, oom_pymodel_in_guard(m, n))
SEM_NODE_ONLY(sem_retry_call, oom_pymodel_is_retry_call(m, n))
SEM_NODE_ONLY(sem_in_loop_guard, oom_pymodel_in_loop_guard(m, n))
SEM_NODE_ONLY(sem_in_oom_handler, oom_pymodel_in_handler(m, n, true))
SEM_NODE_ONLY(sem_in_except, oom_pymodel_in_handler(m, n, false))
SEM_NODE_ONLY(sem_file_trains, oom_pymodel_file_trains(m))
SEM_NODE_ONLY(sem_lm_trainer, oom_pymodel_is_lm_trainer(m, n))

static bool sem_has_argument(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                             oom_buf *scratch)
{
    const oom_pymodel *m = env->py;
    if (!m)
        return false;
    (void)site;
    (void)scratch;
    int position = p->arg_count > 1 ? atoi(p->args[1]) : -1;
    return oom_pymodel_has_argument(m, n, p->args[0], position);
}

static bool sem_file_has_keyword(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                                 oom_buf *scratch)
{
    const oom_pymodel *m = env->py;
    if (!m)
        return false;
    (void)n;
    (void)site;
    (void)scratch;
    return oom_pymodel_file_has_keyword(m, p->args[0], p->arg_count > 1 ? p->args[1] : NULL);
}

static bool sem_file_calls(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                           oom_buf *scratch)
{
    const oom_pymodel *m = env->py;
    if (!m)
        return false;
    (void)n;
    (void)site;
    (void)scratch;
    for (size_t i = 0; i < p->arg_count; i++)
        if (oom_pymodel_file_calls(m, p->args[i]))
            return true;
    return false;
}

static bool sem_outlives_all(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                             oom_buf *scratch)
{
    const oom_pymodel *m = env->py;
    if (!m)
        return false;
    (void)p;
    (void)scratch;
    return oom_pymodel_outlives_all_loops(m, n, site);
}

static bool sem_in_function_matching(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                                     oom_buf *scratch)
{
    const oom_pymodel *m = env->py;
    if (!m)
        return false;
    (void)site;
    (void)scratch;
    return oom_pymodel_in_function_matching(m, n, p->regex);
}

/* ---- the run: target GPU, knowledge base, JSON configs ------------------------- */

static bool sem_target_gpu_lacks(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                                 oom_buf *scratch)
{
    (void)n, (void)site, (void)scratch;
    const oom_gpu *g = env->run ? env->run->gpu : NULL;
    if (!g)
        return false; /* no target GPU: hardware rules stay silent */
    for (size_t i = 0; i < p->arg_count; i++) {
        const char *f = p->args[i];
        bool has = strcmp(f, "bf16") == 0 ? g->bf16
                   : strcmp(f, "tf32") == 0 ? g->tf32
                   : strcmp(f, "fp8") == 0 ? g->fp8
                   : strcmp(f, "flash_attention_2") == 0 ? g->flash_attention_2
                   : strcmp(f, "fp16_tensor_cores") == 0 ? g->fp16_tensor_cores
                                                         : true;
        if (!has)
            return true;
    }
    return false;
}

static bool sem_json_kind(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                          oom_buf *scratch)
{
    (void)n, (void)site, (void)scratch;
    if (!env->json)
        return false;
    for (size_t i = 0; i < p->arg_count; i++) {
        int kind = oom_json_kind_from_name(p->args[i]);
        if (kind > 0 && (oom_jsonmodel_kinds(env->json) & (unsigned)kind))
            return true;
    }
    return false;
}

static bool sem_json_top_level(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                               oom_buf *scratch)
{
    (void)site, (void)p, (void)scratch;
    return env->json && oom_jsonmodel_is_top_level(env->json, n);
}

static bool sem_model_like(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                           oom_buf *scratch)
{
    (void)site, (void)p, (void)scratch;
    return env->py && oom_pymodel_is_model_expr(env->py, n);
}

static bool sem_exceeds_model_limit(const oom_sem_env *env, TSNode n, TSNode site,
                                    const oom_pred *p, oom_buf *scratch)
{
    (void)site, (void)p;
    long long value, limit;
    if (!env->py || !oom_pymodel_int_value(env->py, n, &value))
        return false;
    oom_buf_clear(scratch);
    if (!oom_project_model_limit(env->py, n, env->path, env->run ? env->run->kb : NULL, &limit, scratch) ||
        value <= limit)
        return false;
    oom_buf_clear(env->detail);
    oom_buf_printf(env->detail, "%lld is more than %s", value, scratch->data);
    return true;
}

static bool sem_json_exceeds_model_limit(const oom_sem_env *env, TSNode n, TSNode site,
                                         const oom_pred *p, oom_buf *scratch)
{
    (void)site, (void)p;
    const char *id = env->json ? oom_jsonmodel_model_id(env->json) : NULL;
    if (!id || strcmp(ts_node_type(n), "number") != 0)
        return false;
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    char buf[32];
    if (b - a >= sizeof buf)
        return false;
    memcpy(buf, env->src + a, b - a);
    buf[b - a] = '\0';
    char *end;
    long long value = strtoll(buf, &end, 10), limit;
    oom_buf_clear(scratch);
    if (*end || !oom_project_id_limit(id, env->path, env->run ? env->run->kb : NULL, &limit, scratch) ||
        value <= limit)
        return false;
    oom_buf_clear(env->detail);
    oom_buf_printf(env->detail, "%lld is more than %s", value, scratch->data);
    return true;
}

/* Never false: when the eval batch, the sequence length and the model's
 * vocabulary are known, explains how big the gathered logits are. */
static bool sem_logits_size(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                            oom_buf *scratch)
{
    (void)n, (void)site, (void)p, (void)scratch;
    if (!env->py || !env->run || !env->run->kb)
        return true;
    long long batch = -1, seq = -1, vocab = -1;
    for (size_t i = 0; i < oom_pymodel_keyword_count(env->py); i++) {
        const char *name;
        size_t len;
        TSNode value;
        oom_pymodel_keyword(env->py, i, &name, &len, &value);
        long long v;
        if (!oom_pymodel_int_value(env->py, value, &v) || v <= 0)
            continue;
        if ((len == 26 && memcmp(name, "per_device_eval_batch_size", 26) == 0) ||
            (batch < 0 && len == 27 && memcmp(name, "per_device_train_batch_size", 27) == 0))
            batch = v; /* the eval batch defaults to the train one's default, 8 */
        else if (seq < 0 && ((len == 10 && memcmp(name, "max_length", 10) == 0) ||
                             (len == 14 && memcmp(name, "max_seq_length", 14) == 0) ||
                             (len == 10 && memcmp(name, "block_size", 10) == 0)))
            seq = v;
    }
    const oom_strlist *ids = oom_pymodel_pretrained_ids(env->py);
    for (size_t i = 0; i < ids->len && vocab < 0; i++) {
        const oom_model *m = oom_kb_find_model(env->run->kb, ids->items[i]);
        if (m && m->config.vocab_size > 0)
            vocab = m->config.vocab_size;
    }
    if (batch < 0)
        batch = 8;
    if (seq < 0 || vocab < 0)
        return true;
    double gib = (double)batch * (double)seq * (double)vocab * 4.0 / (1024.0 * 1024 * 1024);
    oom_buf_clear(env->detail);
    oom_buf_printf(env->detail, " (logits of %lld × %lld × %lld fp32 values = %.1f GiB per eval step)",
                   batch, seq, vocab, gib);
    return true;
}

static bool sem_outlives(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                         oom_buf *scratch)
{
    const oom_pymodel *m = env->py;
    if (!m)
        return false;
    (void)p;
    (void)scratch;
    return oom_pymodel_outlives_iteration(m, n, site);
}

typedef struct {
    const char *name;
    oom_sem_fn fn;
    int min_args, max_args;
    const char *doc;
} sem_entry;

static const sem_entry semantic_predicates[] = {
    {"oom-qualname", sem_qualname, 1, 64, "the dotted name, aliases applied, is one of the arguments"},
    {"oom-qualname-match", sem_qualname_match, 1, 1, "the dotted name, aliases applied, matches the regex"},
    {"oom-string", sem_string, 1, 64, "a string literal whose value is one of the arguments"},
    {"oom-in-loop", sem_in_loop, 0, 0, "inside a for/while loop of the same function"},
    {"oom-grad-enabled", sem_grad_enabled, 0, 0, "not under no_grad/inference_mode/set_grad_enabled(False)"},
    {"oom-eval-code", sem_eval_code, 0, 0, "in evaluation code (name, or after .eval())"},
    {"oom-model-call", sem_model_call, 0, 0, "a forward call of a model"},
    {"oom-carries-graph", sem_carries_graph, 0, 0, "the value carries autograd history"},
    {"oom-outlives-iteration", sem_outlives, 0, 0, "storage that outlives the loop iteration"},
    {"oom-backpropagated", sem_backpropagated, 0, 0, ".backward() is called on this name"},
    {"oom-literal", sem_literal, 0, 0, "a constant: string without substitutions or number"},
    {"oom-has-argument", sem_has_argument, 1, 2, "the call passes NAME (keyword, or position N, or **kwargs)"},
    {"oom-cuda-initialized-before", sem_cuda_initialized_before, 0, 0, "CUDA was initialised earlier in the same body"},
    {"oom-distributed-file", sem_distributed_file, 0, 0, "the file sets up distributed training"},
    {"oom-last-backward", sem_last_backward, 0, 0, "no backward follows in the same loop iteration"},
    {"oom-device-output", sem_device_output, 0, 0, "a model output left on the device, not reduced"},
    {"oom-in-guard", sem_in_guard, 0, 0, "inside an if with a non-constant condition"},
    {"oom-outlives-all-loops", sem_outlives_all, 0, 0, "storage created outside every loop around the site"},
    {"oom-in-function-matching", sem_in_function_matching, 1, 1, "inside a function whose name matches the regex"},
    {"oom-retry-call", sem_retry_call, 0, 0, "a call in an OOM handler repeating a call of the try body"},
    {"oom-target-gpu-lacks", sem_target_gpu_lacks, 1, 4, "a target GPU is known and lacks one of: bf16, tf32, fp8, flash_attention_2"},
    {"oom-json-kind", sem_json_kind, 1, 5, "the JSON file is one of: model-config, tokenizer-config, generation-config, training-args, deepspeed"},
    {"oom-json-top-level", sem_json_top_level, 0, 0, "a pair of the JSON file's top-level object"},
    {"oom-model-like", sem_model_like, 0, 0, "an expression that denotes a model"},
    {"oom-exceeds-model-limit", sem_exceeds_model_limit, 0, 0, "an integer above the loaded model's hard position limit"},
    {"oom-json-exceeds-model-limit", sem_json_exceeds_model_limit, 0, 0, "a number above the position limit of the JSON's model_name_or_path"},
    {"oom-logits-size", sem_logits_size, 0, 0, "always holds; puts the logits' size in {{detail}} when known"},
    {"oom-in-loop-guard", sem_in_loop_guard, 0, 0, "inside an if within the innermost loop"},
    {"oom-in-oom-handler", sem_in_oom_handler, 0, 0, "inside an except clause for out-of-memory errors"},
    {"oom-in-except", sem_in_except, 0, 0, "inside any except clause"},
    {"oom-file-trains", sem_file_trains, 0, 0, "the file trains (backward, Trainer, .train(), .fit())"},
    {"oom-lm-trainer", sem_lm_trainer, 0, 0, "a Trainer call whose model has a language-modelling head"},
    {"oom-file-has-keyword", sem_file_has_keyword, 1, 2, "some call passes NAME (=VALUE)"},
    {"oom-file-calls", sem_file_calls, 1, 64, "some call in the file is to one of these names"},
};

static const sem_entry *find_semantic(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof semantic_predicates / sizeof *semantic_predicates; i++)
        if (strlen(semantic_predicates[i].name) == len &&
            memcmp(semantic_predicates[i].name, name, len) == 0)
            return &semantic_predicates[i];
    return NULL;
}

/* ---- compiling ------------------------------------------------------------------ */

static void pred_clear(oom_pred *p)
{
    for (size_t a = 0; a < p->arg_count; a++)
        free(p->args[a]);
    free(p->args);
    if (p->regex)
        pcre2_code_free(p->regex);
    memset(p, 0, sizeof(*p));
}

void oom_preds_free(oom_pred *preds, size_t count)
{
    for (size_t i = 0; i < count; i++)
        pred_clear(&preds[i]);
    free(preds);
}

static int compile_regex(oom_pred *p, oom_buf *err)
{
    int code;
    PCRE2_SIZE offset;
    p->regex = pcre2_compile((PCRE2_SPTR)p->args[0], PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code,
                             &offset, NULL);
    if (p->regex)
        return 0;
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof msg);
    oom_buf_printf(err, "bad regex \"%s\" at offset %zu: %s", p->args[0], (size_t)offset,
                   (const char *)msg);
    return -1;
}

/* Fills one predicate from its steps (name, then arguments). */
static int build_pred(const TSQuery *q, const TSQueryPredicateStep *steps, uint32_t n,
                      oom_lang lang, oom_pred *p, oom_buf *err)
{
    uint32_t len;
    const char *name = ts_query_string_value_for_id(q, steps[0].value_id, &len);
    memset(p, 0, sizeof(*p));
    p->other_capture = UINT32_MAX;
    char *full = oom_xstrndup(name, len);
    const char *base = full;
    if (oom_str_starts_with(base, "not-")) {
        p->negate = true;
        base += 4;
    }
    size_t blen = strlen(base);
    int rc = 0;
    if (blen == 0 || base[blen - 1] != '?') {
        oom_buf_printf(err, "unsupported directive #%s (only predicates ending in ? are known)", full);
        free(full);
        return -1;
    }
    blen--;
    if (n < 2 || steps[1].type != TSQueryPredicateStepTypeCapture) {
        oom_buf_printf(err, "#%s needs a capture as its first argument", full);
        free(full);
        return -1;
    }
    p->capture = steps[1].value_id;
    size_t arg_cap = 0;
    for (uint32_t i = 2; i < n; i++) {
        if (steps[i].type == TSQueryPredicateStepTypeCapture) {
            p->other_capture = steps[i].value_id;
            continue;
        }
        uint32_t alen;
        const char *a = ts_query_string_value_for_id(q, steps[i].value_id, &alen);
        OOM_PUSH(p->args, p->arg_count, arg_cap, oom_xstrndup(a, alen));
    }
    const sem_entry *sem = NULL;
    if (blen == 2 && memcmp(base, "eq", 2) == 0) {
        p->kind = OOM_PRED_EQ;
        if (p->arg_count + (p->other_capture != UINT32_MAX) != 1) {
            oom_buf_printf(err, "#%s takes a capture and one string or capture", full);
            rc = -1;
        }
    } else if (blen == 5 && memcmp(base, "match", 5) == 0) {
        p->kind = OOM_PRED_MATCH;
        if (p->arg_count != 1) {
            oom_buf_printf(err, "#%s takes a capture and one regex string", full);
            rc = -1;
        } else {
            rc = compile_regex(p, err);
        }
    } else if (blen == 6 && memcmp(base, "any-of", 6) == 0) {
        p->kind = OOM_PRED_ANY_OF;
        if (p->arg_count == 0) {
            oom_buf_printf(err, "#%s takes a capture and at least one string", full);
            rc = -1;
        }
    } else if ((sem = find_semantic(base, blen)) != NULL) {
        p->kind = OOM_PRED_SEMANTIC;
        p->fn = sem->fn;
        if ((sem->fn == sem_qualname_match || sem->fn == sem_in_function_matching) &&
            p->arg_count == 1 && compile_regex(p, err) != 0)
            rc = -1;
        bool any_language = sem->fn == sem_target_gpu_lacks;
        bool json_only = sem->fn == sem_json_kind || sem->fn == sem_json_top_level ||
                         sem->fn == sem_json_exceeds_model_limit;
        if (json_only && lang != OOM_LANG_JSON) {
            oom_buf_printf(err, "#%s is a JSON predicate", full);
            rc = -1;
        } else if (!any_language && !json_only && lang != OOM_LANG_PYTHON) {
            oom_buf_printf(err, "#%s is a Python predicate", full);
            rc = -1;
        } else if ((int)p->arg_count < sem->min_args || (int)p->arg_count > sem->max_args ||
                   p->other_capture != UINT32_MAX) {
            oom_buf_printf(err, "#%s takes a capture and %d to %d strings", full, sem->min_args,
                           sem->max_args);
            rc = -1;
        }
    } else {
        oom_buf_printf(err, "unknown predicate #%s", full);
        rc = -1;
    }
    free(full);
    return rc;
}

int oom_preds_compile(const TSQuery *q, uint32_t pattern, oom_lang lang, oom_pred **out,
                      size_t *count, oom_buf *err)
{
    uint32_t nsteps;
    const TSQueryPredicateStep *steps = ts_query_predicates_for_pattern(q, pattern, &nsteps);
    *out = NULL;
    *count = 0;
    size_t cap = 0;
    uint32_t start = 0;
    for (uint32_t i = 0; i < nsteps; i++) {
        if (steps[i].type != TSQueryPredicateStepTypeDone)
            continue;
        oom_pred p;
        if (build_pred(q, steps + start, i - start, lang, &p, err) != 0) {
            pred_clear(&p);
            oom_preds_free(*out, *count);
            *out = NULL;
            *count = 0;
            return -1;
        }
        OOM_PUSH(*out, *count, cap, p);
        start = i + 1;
    }
    return 0;
}

/* ---- evaluating -------------------------------------------------------------------- */

static bool capture_node(const TSQueryMatch *match, uint32_t id, TSNode *out)
{
    for (uint16_t i = 0; i < match->capture_count; i++)
        if (match->captures[i].index == id) {
            *out = match->captures[i].node;
            return true;
        }
    return false;
}

static bool text_equals(const char *src, TSNode n, const char *s, size_t len)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    return b - a == len && memcmp(src + a, s, len) == 0;
}

static bool regex_matches(const oom_pred *p, const char *src, TSNode n, pcre2_match_data *md,
                          pcre2_match_context *mctx, bool *limit_hit)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    int rc = pcre2_match(p->regex, (PCRE2_SPTR)(src + a), b - a, 0, 0, md, mctx);
    /* the regex gave up: no match, and the caller reports it */
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
        *limit_hit = true;
    return rc >= 0;
}

static bool pred_holds(const oom_pred *p, const TSQueryMatch *match, const char *src,
                       const oom_sem_env *env, TSNode site, pcre2_match_data *md,
                       pcre2_match_context *mctx, oom_buf *scratch, bool *limit_hit)
{
    TSNode n;
    capture_node(match, p->capture, &n);
    switch (p->kind) {
    case OOM_PRED_EQ:
        if (p->other_capture != UINT32_MAX) {
            TSNode o;
            if (!capture_node(match, p->other_capture, &o))
                return true;
            uint32_t a = ts_node_start_byte(o), b = ts_node_end_byte(o);
            return text_equals(src, n, src + a, b - a);
        }
        return text_equals(src, n, p->args[0], strlen(p->args[0]));
    case OOM_PRED_MATCH:
        return regex_matches(p, src, n, md, mctx, limit_hit);
    case OOM_PRED_ANY_OF:
        for (size_t i = 0; i < p->arg_count; i++)
            if (text_equals(src, n, p->args[i], strlen(p->args[i])))
                return true;
        return false;
    case OOM_PRED_SEMANTIC:
        return p->fn(env, n, site, p, scratch);
    }
    return false;
}

bool oom_preds_hold(const oom_pred *preds, size_t count, const TSQueryMatch *match,
                    const char *src, const oom_sem_env *env, TSNode site,
                    pcre2_match_data *md, pcre2_match_context *mctx, oom_buf *scratch,
                    bool *limit_hit)
{
    for (size_t i = 0; i < count; i++) {
        TSNode unused;
        if (!capture_node(match, preds[i].capture, &unused))
            continue; /* an optional capture that did not match constrains nothing */
        bool holds = pred_holds(&preds[i], match, src, env, site, md, mctx, scratch, limit_hit);
        if (holds == preds[i].negate)
            return false;
    }
    return true;
}

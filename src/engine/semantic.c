/* engine/semantic: the semantic predicates (#oom-...?) a rule's query can
 * use, each a question to the file's model (Python or JSON) or to the run
 * (target GPU, knowledge base), and the table that names them. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/estimate.h"
#include "oomlint/lang.h"
#include "internal.h"
#include "oomlint/project.h"

/* Most predicates ask the Python model one question about the captured node
 * (and the node the finding is reported at); this writes them in one line. */
#define SEM_PY(fname, call)                                                          \
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

static bool is_one_of(const char *s, const oom_pred *p)
{
    for (size_t i = 0; i < p->arg_count; i++)
        if (strcmp(s, p->args[i]) == 0)
            return true;
    return false;
}

/* Before building a dotted name (which costs an allocation per call in the
 * file), check that its last part can be one of the wanted names: it must
 * be, unless the name is an import alias (`from torch import load as tload`). */
static bool last_part_can_match(const oom_pymodel *m, const char *src, TSNode n, const oom_pred *p)
{
    const char *type = ts_node_type(n);
    TSNode last = n;
    if (strcmp(type, "attribute") == 0)
        last = oom_child(n, "attribute", 9);
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
    return last_part_can_match(m, env->src, n, p) && oom_pymodel_qualname(m, n, scratch) &&
           is_one_of(scratch->data, p);
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
    int rc = pcre2_match(p->regex, (PCRE2_SPTR)scratch->data, scratch->len, 0, 0, env->md, env->mctx);
    return rc >= 0;
}

static bool sem_string(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                       oom_buf *scratch)
{
    const oom_pymodel *m = env->py;
    if (!m)
        return false;
    (void)site;
    return oom_pymodel_string_value(m, n, scratch) && is_one_of(scratch->data, p);
}

SEM_PY(sem_in_loop, oom_pymodel_in_loop(m, n))
SEM_PY(sem_declared_outside, oom_pymodel_declared_outside(m, n))
SEM_PY(sem_grad_enabled, oom_pymodel_grad_state(m, n) == OOM_GRAD_ENABLED)
SEM_PY(sem_eval_code, oom_pymodel_is_eval_code(m, n))
SEM_PY(sem_model_call, oom_pymodel_is_model_call(m, n))
SEM_PY(sem_forward_on_host, oom_pymodel_forward_on_host(m, n))
SEM_PY(sem_may_use_gpu, oom_pymodel_may_use_gpu(m))
SEM_PY(sem_global_rank, oom_pymodel_is_global_rank(m, n))
SEM_PY(sem_ranks_from_launcher, oom_pymodel_ranks_from_launcher(m))
/* Where the host tensor meets the device goes in {{detail}}: the line the
 * user has to read to see the mismatch. */
static bool sem_host_tensor_meets_device(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                                         oom_buf *scratch)
{
    (void)site, (void)p, (void)scratch;
    uint32_t line = 0;
    if (!env->py || !oom_pymodel_host_tensor_meets_device(env->py, n, &line))
        return false;
    if (env->detail) {
        oom_buf_clear(env->detail);
        oom_buf_printf(env->detail, "%u", line);
    }
    return true;
}
SEM_PY(sem_forward_transient, oom_pymodel_forward_transient(m, n))
SEM_PY(sem_graph_each_iteration, oom_pymodel_graph_built_each_iteration(m, n))
SEM_PY(sem_carries_graph, oom_pymodel_carries_graph(m, n))
SEM_PY(sem_backpropagated, oom_pymodel_is_backpropagated(m, n))
SEM_PY(sem_literal, oom_pymodel_is_literal(m, n))

SEM_PY(sem_cuda_initialized_before, oom_pymodel_cuda_initialized_before(m, n))
SEM_PY(sem_distributed_file, oom_pymodel_is_distributed(m))
SEM_PY(sem_last_backward, oom_pymodel_is_last_backward(m, n))
SEM_PY(sem_device_output, oom_pymodel_is_device_output(m, n))
SEM_PY(sem_in_guard, oom_pymodel_in_guard(m, n))
SEM_PY(sem_retry_call, oom_pymodel_is_retry_call(m, n))
SEM_PY(sem_retries_on_host, oom_pymodel_retries_on_host(m, n))
SEM_PY(sem_in_loop_guard, oom_pymodel_in_loop_guard(m, n))
SEM_PY(sem_in_periodic_guard, oom_pymodel_in_periodic_guard(m, n))
SEM_PY(sem_host_on_default_path, oom_pymodel_host_on_default_path(m, n))
SEM_PY(sem_keyword_only_stored_by_own_function, oom_pymodel_keyword_only_stored_by_own_function(m, n))
SEM_PY(sem_in_oom_handler, oom_pymodel_in_handler(m, n, true))
SEM_PY(sem_in_except, oom_pymodel_in_handler(m, n, false))
SEM_PY(sem_file_trains, oom_pymodel_file_trains(m))
SEM_PY(sem_converts_weights, oom_pymodel_only_converts_weights(m))
SEM_PY(sem_lm_trainer, oom_pymodel_is_lm_trainer(m, n))
SEM_PY(sem_file_loads_lm_head, oom_pymodel_loads_lm_head(m))
SEM_PY(sem_file_loads_diffusion_model, oom_pymodel_loads_diffusion_model(m))
SEM_PY(sem_file_only_infers, oom_pymodel_only_infers(m))

SEM_PY(sem_has_argument,
       oom_pymodel_has_argument(m, n, p->args[0], p->arg_count > 1 ? atoi(p->args[1]) : -1))

SEM_PY(sem_file_has_keyword,
       oom_pymodel_file_has_keyword(m, p->args[0], p->arg_count > 1 ? p->args[1] : NULL))

static bool file_calls_any(const oom_pymodel *m, const oom_pred *p)
{
    for (size_t i = 0; i < p->arg_count; i++)
        if (oom_pymodel_file_calls(m, p->args[i]))
            return true;
    return false;
}

SEM_PY(sem_file_calls, file_calls_any(m, p))

/* The file asks the GPU whether it has bf16 hardware, so the code decides
 * at run time: torch.cuda.is_bf16_supported(including_emulation=False),
 * transformers' is_torch_bf16_gpu_available(); or a
 * plain is_bf16_supported() where the run's PyTorch is before 2.4. From 2.4
 * that call answers whether bf16 can be emulated, true on a V100 or T4, so
 * a branch on it picks bf16 there (torch/cuda/__init__.py,
 * is_bf16_supported(including_emulation=True)). */
static bool sem_checks_bf16_hardware(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                                     oom_buf *scratch)
{
    (void)n, (void)site, (void)p, (void)scratch;
    const oom_pymodel *m = env->py;
    if (!m)
        return false;
    if (oom_pymodel_file_calls(m, "is_torch_bf16_gpu_available"))
        return true;
    if (!oom_pymodel_file_calls(m, "is_bf16_supported"))
        return false;
    return oom_pymodel_file_has_keyword(m, "including_emulation", "False") ||
           (env->run && env->run->bf16_check_is_capability);
}

SEM_PY(sem_outlives_all, oom_pymodel_outlives_all_loops(m, n, site))

/* `torch.bfloat16 if torch.cuda.get_device_capability()[0] >= 8 else
 * torch.float32`: a run-time test of the function the rule names decides
 * the code (model/guards.c). */
SEM_PY(sem_decided_by_call, oom_pymodel_decided_by_call(m, n, p->args[0]))
/* the statement stands in an if's arm whose sibling arm calls the function */
SEM_PY(sem_other_arm_calls, oom_pymodel_other_arm_calls(m, n, p->args[0]))

/* The value, names followed to their bindings: a dotted name (aliases
 * applied) or a string literal that is one of the arguments. */
SEM_PY(sem_holds, oom_pymodel_holds(m, n, (const char *const *)p->args, p->arg_count, scratch))
SEM_PY(sem_method_of_module, oom_pymodel_is_method_of_module(m, n, p->args[0], (const char *const *)p->args + 1,
                                                             p->arg_count - 1, scratch))

/* A constant, directly or through a name bound to one (`GPU = "0"` at the
 * top of the script, then `os.environ[...] = GPU`). */
SEM_PY(sem_constant, oom_pymodel_is_constant(m, n))
SEM_PY(sem_hides_every_gpu, oom_pymodel_hides_every_gpu(m, n))
SEM_PY(sem_host_tensor_factory, oom_pymodel_is_host_tensor_factory(m, n))
SEM_PY(sem_context_runs_nothing, oom_pymodel_context_runs_nothing(m, n))

/* The call passes NAME=<an integer, or a name bound to one> of at most N. */
static bool argument_at_most(const oom_pymodel *m, TSNode call, const oom_pred *p)
{
    long long value;
    return oom_pymodel_int_value(m, oom_pymodel_keyword_value(m, call, p->args[0]), &value) &&
           value <= atoll(p->args[1]);
}

SEM_PY(sem_argument_at_most, argument_at_most(m, n, p))

/* The call passes NAME= a length that is short on every path: an integer of
 * at most N, or the longest length of the batch the function was handed. */
SEM_PY(sem_argument_short_or_measured,
       oom_pymodel_is_short_or_measured_length(m, oom_pymodel_keyword_value(m, n, p->args[0]), atoll(p->args[1])))

/* A processor given only images (video, audio) and no text: no `text=` and
 * no positional argument that could be text. Padding options there have
 * nothing to pad. */
static bool tokenizes_no_text(const oom_pymodel *m, TSNode call)
{
    static const char *const media[] = {"images", "videos", "audio", "audios"};
    bool has_media = false;
    for (size_t i = 0; i < sizeof media / sizeof *media && !has_media; i++)
        has_media = oom_pymodel_has_argument(m, call, media[i], -1);
    return has_media && !oom_pymodel_has_argument(m, call, "text", 0);
}

SEM_PY(sem_tokenizes_no_text, tokenizes_no_text(m, n))
SEM_PY(sem_becomes_labels, oom_pymodel_becomes_labels(m, n))

/* The file's name (its last path component) matches the regex: a config
 * named for its precision (`zero3_bf16.json` beside `zero3.json`) is itself
 * the user's choice of precision. */
static bool sem_file_name_matches(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                                  oom_buf *scratch)
{
    (void)n, (void)site, (void)scratch;
    if (!env->path)
        return false;
    const char *base = strrchr(env->path, '/');
    base = base ? base + 1 : env->path;
    return pcre2_match(p->regex, (PCRE2_SPTR)base, strlen(base), 0, 0, env->md, env->mctx) >= 0;
}

/* The id of a pretrained model the file loads that matches the regex; NULL. */
static const char *loaded_model_matching(const oom_sem_env *env, const oom_pred *p)
{
    const oom_strlist *ids = env->py ? oom_pymodel_pretrained_ids(env->py) : NULL;
    for (size_t i = 0; ids && i < ids->len; i++)
        if (pcre2_match(p->regex, (PCRE2_SPTR)ids->items[i], strlen(ids->items[i]), 0, 0, env->md, env->mctx) >= 0)
            return ids->items[i];
    return NULL;
}

static bool sem_file_loads_model_matching(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                                          oom_buf *scratch)
{
    (void)n, (void)site, (void)scratch;
    return loaded_model_matching(env, p) != NULL;
}

/* Always holds; where the file loads a model that overflows in fp16 (Gemma 3:
 * transformers#39972, Unsloth forces fp32 for it), {{detail}} says that fp16
 * is no way out on a GPU without bf16: the model needs fp32 there. */
static bool sem_fp16_overflow_note(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                                   oom_buf *scratch)
{
    (void)n, (void)site, (void)scratch;
    const char *id = loaded_model_matching(env, p);
    if (id) {
        oom_buf_clear(env->detail);
        oom_buf_printf(env->detail, "; and fp16 is no way out: %s overflows in fp16, so this GPU needs fp32", id);
    }
    return true;
}

/* The value, followed through its bindings, was chosen by a switch of the
 * run: `if accelerator.mixed_precision == "bf16": weight_dtype = torch.bfloat16`. */
SEM_PY(sem_value_follows_switch, oom_pymodel_value_follows_switch(m, n, p->regex))

/* The value, names followed, is made by a call of one of these functions,
 * possibly moved or cast after (`torch.zeros(n, d).to(device)`). */
SEM_PY(sem_built_by, oom_pymodel_built_by(m, n, (const char *const *)p->args, p->arg_count, scratch))

SEM_PY(sem_follows_switch, oom_pymodel_follows_switch(m, n, p->regex))

/* Graphs are built here: the file trains, or this is evaluation code
 * (which runs forwards, with autograd on unless told otherwise). Code that
 * only builds networks (`layers.append(module(dim))`) does neither. */
SEM_PY(sem_builds_graphs, oom_pymodel_file_trains(m) || oom_pymodel_is_eval_code(m, n))
SEM_PY(sem_accumulates_graph, oom_pymodel_accumulates_graph(m, n))

/* The call may be another file's accumulator: the finding waits for the
 * project pass, which knows every file's accumulating methods. */
static bool sem_may_accumulate_graph(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                                     oom_buf *scratch)
{
    (void)site, (void)p, (void)scratch;
    return env->py && oom_pymodel_accumulation_candidate(env->py, n, env->pending);
}
/* A forward in a shared function with a mode switch that another file may
 * call for evaluation: the finding waits for the project pass. */
static bool sem_may_be_called_for_eval(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                                       oom_buf *scratch)
{
    (void)site, (void)p, (void)scratch;
    return env->py && oom_pymodel_eval_call_candidate(env->py, n, env->pending);
}
SEM_PY(sem_file_has_accumulators, oom_pymodel_has_accumulators(m))
SEM_PY(sem_in_forward_code, oom_pymodel_in_forward_code(m, n))
SEM_PY(sem_parameter_free, oom_pymodel_is_parameter_free_module(m, n))
SEM_PY(sem_in_test_code, oom_pymodel_in_test_code(m, n))
SEM_PY(sem_forwards_need_no_grad, oom_pymodel_forwards_need_no_grad(m, n))
SEM_PY(sem_in_function_matching, oom_pymodel_in_function_matching(m, n, p->regex))

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

static bool sem_json_deepspeed_key(const oom_sem_env *env, TSNode n, TSNode site,
                                   const oom_pred *p, oom_buf *scratch)
{
    (void)site, (void)p, (void)scratch;
    return env->json && oom_jsonmodel_is_deepspeed_key(env->json, n);
}

SEM_PY(sem_model_like, oom_pymodel_is_model_expr(m, n))
SEM_PY(sem_returned, oom_pymodel_is_returned(m, n))
SEM_PY(sem_chunked_output, oom_pymodel_is_chunked_output(m, n, site))
SEM_PY(sem_loads_into_model, oom_pymodel_loads_into_model(m, n))
SEM_PY(sem_loads_host_data, oom_pymodel_loads_host_data(m, n))
SEM_PY(sem_mapped_in_other_branch, oom_pymodel_mapped_in_other_branch(m, n))
SEM_PY(sem_main_process_only, oom_pymodel_main_process_only(m, n))
SEM_PY(sem_view_of_one_tensor, oom_pymodel_is_view_of_one_tensor(m, n, site))

/* A `key: value` pair of a dict literal assigned to a name that matches the
 * regex and that the function returns (`logging_output = {"loss": loss}`
 * ... `return loss, n, logging_output`). Asked of the pair, not matched
 * from the assignment: a pattern rooted at the assignment with an
 * unanchored pair child costs quadratic work on dicts of hundreds of keys. */
static bool sem_entry_of_returned_dict(const oom_sem_env *env, TSNode pair, TSNode site, const oom_pred *p,
                                       oom_buf *scratch)
{
    (void)site, (void)scratch;
    if (!env->py)
        return false;
    TSNode dict = oom_pymodel_parent(env->py, pair);
    TSNode assignment = ts_node_is_null(dict) ? dict : oom_pymodel_parent(env->py, dict);
    if (ts_node_is_null(assignment) || strcmp(ts_node_type(assignment), "assignment") != 0 ||
        !ts_node_eq(oom_child(assignment, "right", 5), dict))
        return false;
    TSNode name = oom_child(assignment, "left", 4);
    if (ts_node_is_null(name) || strcmp(ts_node_type(name), "identifier") != 0)
        return false;
    uint32_t a = ts_node_start_byte(name), b = ts_node_end_byte(name);
    if (pcre2_match(p->regex, (PCRE2_SPTR)(env->src + a), b - a, 0, 0, env->md, env->mctx) < 0 ||
        !oom_pymodel_is_returned(env->py, name))
        return false;
    /* {{store}} in the message: the dict's name */
    oom_sem_env *named = (oom_sem_env *)env;
    named->named_placeholder = "store";
    named->named_node = name;
    return true;
}

/* `x.to(...)` / `x.type(...)` where x is not a model: a tensor cast (a scalar
 * loss cast to bf16 costs nothing and computes nothing). */
static bool sem_cast_of_non_model(const oom_sem_env *env, TSNode fn, TSNode site, const oom_pred *p,
                                  oom_buf *scratch)
{
    (void)site, (void)p, (void)scratch;
    if (!env->py || strcmp(ts_node_type(fn), "attribute") != 0)
        return false;
    TSNode method = oom_child(fn, "attribute", 9), receiver = oom_child(fn, "object", 6);
    if (ts_node_is_null(method) || ts_node_is_null(receiver))
        return false;
    uint32_t a = ts_node_start_byte(method), b = ts_node_end_byte(method);
    bool cast = (b - a == 2 && memcmp(env->src + a, "to", 2) == 0) ||
                (b - a == 4 && memcmp(env->src + a, "type", 4) == 0);
    if (!cast)
        return false;
    /* "not a model" holds only where the file settles it: a receiver that
     * would be a module once another file confirmed it is not taken for a
     * tensor */
    return !oom_pymodel_is_model_expr(env->py, receiver);
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

/* ---- YAML configs ------------------------------------------------------------------ */

/* The pair a capture stands for: the pair itself, or its key. */
static TSNode yaml_pair_of(TSNode n)
{
    const char *type = ts_node_type(n);
    if (strcmp(type, "block_mapping_pair") == 0 || strcmp(type, "flow_pair") == 0)
        return n;
    TSNode parent = ts_node_parent(n);
    return ts_node_is_null(parent) ? n : parent;
}

static bool sem_yaml_kind(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p, oom_buf *scratch)
{
    (void)n, (void)site, (void)scratch;
    if (!env->yaml)
        return false;
    for (size_t i = 0; i < p->arg_count; i++) {
        int kind = oom_yaml_kind_from_name(p->args[i]);
        if (kind > 0 && (oom_yamlmodel_kinds(env->yaml) & (unsigned)kind))
            return true;
    }
    return false;
}

static bool sem_yaml_key(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p, oom_buf *scratch)
{
    (void)site, (void)scratch;
    if (!env->yaml)
        return false;
    TSNode pair = yaml_pair_of(n);
    for (size_t i = 0; i < p->arg_count; i++)
        if (oom_yamlmodel_pair_at(env->yaml, pair, p->args[i]))
            return true;
    return false;
}

static bool sem_yaml_value(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p, oom_buf *scratch)
{
    (void)site;
    if (!env->yaml || oom_yamlmodel_pair_value(env->yaml, yaml_pair_of(n), scratch) == OOM_YAML_VALUE_NONE)
        return false;
    for (size_t i = 0; i < p->arg_count; i++)
        if (strcmp(scratch->data, p->args[i]) == 0)
            return true;
    return false;
}

/* Another key of the same document is true: `fp16: true` beside `bf16: true`. */
static bool sem_yaml_true(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p, oom_buf *scratch)
{
    (void)site, (void)scratch;
    if (!env->yaml)
        return false;
    for (size_t i = 0; i < p->arg_count; i++)
        if (oom_yamlmodel_lookup_bool(env->yaml, n, p->args[i]) == 1)
            return true;
    return false;
}

static bool sem_yaml_exceeds_model_limit(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p,
                                         oom_buf *scratch)
{
    (void)site, (void)p;
    const char *id = env->yaml ? oom_yamlmodel_model_id(env->yaml) : NULL;
    if (!id || oom_yamlmodel_pair_value(env->yaml, yaml_pair_of(n), scratch) != OOM_YAML_VALUE_INT)
        return false;
    char *end;
    long long value = strtoll(scratch->data, &end, 10), limit;
    if (*end)
        return false;
    oom_buf_clear(scratch);
    if (!oom_project_id_limit(id, env->path, env->run ? env->run->kb : NULL, &limit, scratch) || value <= limit)
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
        batch = OOM_TRAINER_DEFAULT_BATCH;
    if (seq < 0 || vocab < 0)
        return true;
    double gib = (double)batch * (double)seq * (double)vocab * 4.0 / OOM_GIB;
    oom_buf_clear(env->detail);
    oom_buf_printf(env->detail, " (logits of %lld × %lld × %lld fp32 values = %.1f GiB per eval step)",
                   batch, seq, vocab, gib);
    return true;
}

/* ---- what one iteration of the innermost loop does (model/loops.c) ---- */
SEM_PY(sem_loop_calls, oom_pymodel_loop_calls(m, n, (const char *const *)p->args, p->arg_count, scratch))
SEM_PY(sem_loop_only_calls, oom_pymodel_loop_only_calls(m, n, (const char *const *)p->args, p->arg_count, scratch))
SEM_PY(sem_loop_iterates_built_by,
       oom_pymodel_loop_iterates_built_by(m, n, (const char *const *)p->args, p->arg_count, scratch))
SEM_PY(sem_loop_generates, oom_pymodel_loop_generates(m, n))
SEM_PY(sem_in_retry_attempt, oom_pymodel_in_retry_attempt(m, n))

SEM_PY(sem_layer_outputs_escape, oom_pymodel_output_layers_escape(m, n))
SEM_PY(sem_frozen_before, oom_pymodel_frozen_before(m, n, site))
SEM_PY(sem_never_runs, oom_pymodel_never_runs(m, n))
SEM_PY(sem_may_run, oom_pymodel_may_run(m, n))
SEM_PY(sem_outlives, oom_pymodel_outlives_iteration(m, n, site))
SEM_PY(sem_reset_each_window, oom_pymodel_is_reset_each_window(m, n, site))
SEM_PY(sem_holds_one_outer_item, oom_pymodel_holds_one_outer_item(m, n, site))
SEM_PY(sem_combined_for_all_pairs, oom_pymodel_combined_for_all_pairs(m, n, site))

/* ---- what fixes ask (model/numbers.c) ---- */
SEM_PY(sem_scalar, oom_pymodel_is_scalar(m, n))
SEM_PY(sem_read_as_number, oom_pymodel_read_as_number(m, n))
SEM_PY(sem_stays_local, oom_pymodel_stays_local(m, n))
SEM_PY(sem_tensor, oom_pymodel_is_tensor(m, n))
SEM_PY(sem_container, oom_pymodel_is_container(m, n))
SEM_PY(sem_copied_into_model, oom_pymodel_copied_into_model(m, n))
SEM_PY(sem_in_evaluation_function, oom_pymodel_in_evaluation_function(m, n))

static bool sem_beside_keyword(const oom_sem_env *env, TSNode n, TSNode site, const oom_pred *p, oom_buf *scratch)
{
    (void)site, (void)scratch;
    for (size_t i = 0; i < p->arg_count; i++)
        if (env->py ? oom_pymodel_beside_keyword(env->py, n, p->args[i])
                    : env->json && oom_jsonmodel_sibling_key(env->json, n, p->args[i]))
            return true;
    return false;
}

static const oom_sem_entry semantic_predicates[] = {
    {"oom-qualname", sem_qualname, 1, 64, OOM_SEM_PYTHON, false,
     "the dotted name, aliases applied, is one of the arguments", false, true},
    {"oom-qualname-match", sem_qualname_match, 1, 1, OOM_SEM_PYTHON, true,
     "the dotted name, aliases applied, matches the regex", false, false},
    {"oom-string", sem_string, 1, 64, OOM_SEM_PYTHON, false,
     "a string literal whose value is one of the arguments", false, false},
    {"oom-in-loop", sem_in_loop, 0, 0, OOM_SEM_PYTHON, false,
     "inside a for/while loop of the same function", false, false},
    {"oom-grad-enabled", sem_grad_enabled, 0, 0, OOM_SEM_PYTHON, false,
     "not under no_grad/inference_mode/set_grad_enabled(False)", false, false},
    {"oom-eval-code", sem_eval_code, 0, 0, OOM_SEM_PYTHON, false,
     "in evaluation code: a function named for it, after .eval(), a loop over held-out data without backward, "
     "a custom trainer's call of validation_step, a function the file calls with train=False", false, false},
    {"oom-model-call", sem_model_call, 0, 0, OOM_SEM_PYTHON, false,
     "a forward call of a model", false, false},
    {"oom-forward-on-host", sem_forward_on_host, 0, 0, OOM_SEM_PYTHON, false,
     "the forward's module is built in its function without a device and never placed: it runs on the host", false, false},
    {"oom-may-use-gpu", sem_may_use_gpu, 0, 0, OOM_SEM_PYTHON, false,
     "the file, or another file of the project, shows a way onto a GPU: a device named, something placed, a "
     "library imported that places models itself; a project that shows none runs on the host", false, false},
    {"oom-global-rank", sem_global_rank, 0, 0, OOM_SEM_PYTHON, false,
     "the process's rank in the whole job: a call or a launcher's environment variable the knowledge base lists "
     "(dist.get_rank(), os.environ[\"RANK\"]), a cast of one, a name every reaching binding of which is one",
     false, false},
    {"oom-ranks-from-launcher", sem_ranks_from_launcher, 0, 0, OOM_SEM_PYTHON, false,
     "the file's processes are numbered by a launcher that may span nodes: it reads a launcher's variable or "
     "builds its process group from the environment, and spawns no processes itself",
     false, false},
    {"oom-host-tensor-meets-device", sem_host_tensor_meets_device, 0, 0, OOM_SEM_PYTHON, false,
     "a tensor factory without a device whose tensor, followed forward, meets one on the module's device (an "
     "operator, torch.cat, a submodule's call)", false, false},
    {"oom-graph-built-each-iteration", sem_graph_each_iteration, 0, 0, OOM_SEM_PYTHON, false,
     "the differentiated tensor is bound inside the loop's body: each iteration builds a new graph", false, false},
    {"oom-forward-transient", sem_forward_transient, 0, 0, OOM_SEM_PYTHON, false,
     "the forward is too small to matter: its inputs are made from small literal sizes", false,
     false},
    {"oom-carries-graph", sem_carries_graph, 0, 0, OOM_SEM_PYTHON, false,
     "the value carries autograd history", false, false},
    {"oom-outlives-iteration", sem_outlives, 0, 0, OOM_SEM_PYTHON, false,
     "storage that outlives the loop iteration", false, false},
    {"oom-combined-for-all-pairs", sem_combined_for_all_pairs, 0, 0, OOM_SEM_PYTHON, false,
     "a list put together after the loop whose result an all-pairs product reads (a @ b.t(), torch.mm, cdist)",
     false, false},
    {"oom-holds-one-outer-item", sem_holds_one_outer_item, 0, 0, OOM_SEM_PYTHON, false,
     "a list made empty for each item of an outer loop, filled by an inner loop over that item (one group)", false,
     false},
    {"oom-reset-each-window", sem_reset_each_window, 0, 0, OOM_SEM_PYTHON, false,
     "a running total set afresh later in its loop, which calls backward: it holds one window of steps",
     false, false},
    {"oom-declared-outside", sem_declared_outside, 0, 0, OOM_SEM_PYTHON, false,
     "a name its function declares global or nonlocal: it outlives the call", false, false},
    {"oom-backpropagated", sem_backpropagated, 0, 0, OOM_SEM_PYTHON, false,
     ".backward() is called on this name", false, false},
    {"oom-literal", sem_literal, 0, 0, OOM_SEM_PYTHON, false,
     "a constant: string without substitutions or number", false, false},
    {"oom-has-argument", sem_has_argument, 1, 2, OOM_SEM_PYTHON, false,
     "the call passes NAME (keyword, or position N, or **kwargs)", false, false},
    {"oom-cuda-initialized-before", sem_cuda_initialized_before, 0, 0, OOM_SEM_PYTHON, false,
     "CUDA was initialised earlier in the same body", false, false},
    {"oom-distributed-file", sem_distributed_file, 0, 0, OOM_SEM_PYTHON, false,
     "the file sets up distributed training", true, false},
    {"oom-last-backward", sem_last_backward, 0, 0, OOM_SEM_PYTHON, false,
     "no backward follows in the same loop iteration", false, false},
    {"oom-device-output", sem_device_output, 0, 0, OOM_SEM_PYTHON, false,
     "a model output left on the device, not reduced (a name: any binding that may reach it)", false, false},
    {"oom-in-guard", sem_in_guard, 0, 0, OOM_SEM_PYTHON, false,
     "inside an if with a non-constant condition", false, false},
    {"oom-outlives-all-loops", sem_outlives_all, 0, 0, OOM_SEM_PYTHON, false,
     "storage created outside every loop around the site", false, false},
    {"oom-in-test-code", sem_in_test_code, 0, 0, OOM_SEM_PYTHON, false,
     "inside a method of a class of tests (Test*, *Test*, a TestCase subclass)", false, false},
    {"oom-in-function-matching", sem_in_function_matching, 1, 1, OOM_SEM_PYTHON, true,
     "inside a function whose name matches the regex", false, false},
    {"oom-builds-graphs", sem_builds_graphs, 0, 0, OOM_SEM_PYTHON, false,
     "the file trains, or the node is in evaluation code", false, false},
    {"oom-file-has-accumulators", sem_file_has_accumulators, 0, 0, OOM_SEM_PYTHON, false,
     "the file defines a method that adds a parameter into self (self.sum += val)", true, false},
    {"oom-may-accumulate-graph", sem_may_accumulate_graph, 0, 0, OOM_SEM_PYTHON, false,
     "a method call with an argument that carries history, which the project pass keeps only if another file's method of that name adds the argument into its object", false, false},
    {"oom-forwards-need-no-grad", sem_forwards_need_no_grad, 0, 0, OOM_SEM_PYTHON, false,
     "no module the function calls is known to differentiate in its own code (torch.autograd.grad in its "
     "methods): no_grad there would break none",
     false, false},
    {"oom-may-be-called-for-eval", sem_may_be_called_for_eval, 0, 0, OOM_SEM_PYTHON, false,
     "in a function with a mode parameter (train=True) that no call in this file runs for evaluation; the project pass keeps the finding only if another file calls it with False, autograd on", false, false},
    {"oom-accumulates-graph", sem_accumulates_graph, 0, 0, OOM_SEM_PYTHON, false,
     "a call of the file's own method that adds an argument with a graph into its object", false, false},
    {"oom-in-forward-code", sem_in_forward_code, 0, 0, OOM_SEM_PYTHON, false,
     "inside a method of a model or loss class that computes its result (forward ...), not a Lightning hook", false, false},
    {"oom-parameter-free", sem_parameter_free, 0, 0, OOM_SEM_PYTHON, false,
     "a module without parameters: a loss, a metric, an activation/dropout/pooling layer", false, false},
    {"oom-constant", sem_constant, 0, 0, OOM_SEM_PYTHON, false,
     "a constant, directly or through names bound to one", false, false},
    {"oom-hides-every-gpu", sem_hides_every_gpu, 0, 0, OOM_SEM_PYTHON, false,
     "a CUDA_VISIBLE_DEVICES value (names followed) that leaves no GPU: \"\" or a negative first entry", false, false},
    {"oom-argument-at-most", sem_argument_at_most, 2, 2, OOM_SEM_PYTHON, false,
     "the call passes NAME=<integer> of at most N (names bound to integers followed)", false, false},
    {"oom-argument-short-or-measured", sem_argument_short_or_measured, 2, 2, OOM_SEM_PYTHON, false,
     "the call passes NAME= a length short on every path: an integer of at most N (names, conditional "
     "expressions, + k followed) or the longest length of the batch its function was handed "
     "(max(len(e) for e in examples))", false, false},
    {"oom-becomes-labels", sem_becomes_labels, 0, 0, OOM_SEM_PYTHON, false,
     "what the call returns is stored as the batch's labels (x[\"labels\"] = ids, names followed)", false, false},
    {"oom-tokenizes-no-text", sem_tokenizes_no_text, 0, 0, OOM_SEM_PYTHON, false,
     "a processor call given images, videos or audio and no text (no text=, no positional argument)", false,
     false},
    {"oom-file-name-matches", sem_file_name_matches, 1, 1, OOM_SEM_PYTHON | OOM_SEM_JSON | OOM_SEM_YAML, true,
     "the file's name matches the regex", true, false},
    {"oom-value-follows-switch", sem_value_follows_switch, 1, 1, OOM_SEM_PYTHON, true,
     "a binding the value comes through runs only as a condition matching the regex decides", false, false},
    {"oom-built-by", sem_built_by, 1, 64, OOM_SEM_PYTHON, false,
     "the value, names followed, is made by a call of one of these (then moved or cast)", false, false},
    {"oom-method-of-module", sem_method_of_module, 2, 64, OOM_SEM_PYTHON, false,
     "the function is METHOD of one of the MODULES, by its dotted name, a name bound to the module, or "
     "getattr(root, ...) of their root (`accel = torch.cuda; accel.empty_cache()`)", false, false},
    {"oom-holds", sem_holds, 1, 64, OOM_SEM_PYTHON, false,
     "the value, names followed to their bindings, is one of the dotted names or strings", false, false},
    {"oom-follows-switch", sem_follows_switch, 1, 1, OOM_SEM_PYTHON, true,
     "runs only when a condition matching the regex holds (if/elif/while/x if c else y, enabled=var)", false, false},
    {"oom-retry-call", sem_retry_call, 0, 0, OOM_SEM_PYTHON, false,
     "a call in an OOM handler repeating a call of the try body", false, false},
    {"oom-retries-on-host", sem_retries_on_host, 0, 0, OOM_SEM_PYTHON, false,
     "in an out-of-memory handler that moves to the CPU before it or in its arguments (.cpu(), .to(\"cpu\"), device = \"cpu\"): a CPU fallback", false, false},
    {"oom-other-arm-calls", sem_other_arm_calls, 1, 1, OOM_SEM_PYTHON, false,
     "in one arm of an if whose other arm (body, elif, else) calls a function of this last name", false, false},
    {"oom-decided-by-call", sem_decided_by_call, 1, 1, OOM_SEM_PYTHON, false,
     "a test that calls a function of this last name decides the code (an arm of x if c else y, an if's body)", false,
     false},
    {"oom-checks-bf16-hardware", sem_checks_bf16_hardware, 0, 0, OOM_SEM_PYTHON, false,
     "the file asks the GPU for bf16 hardware (is_bf16_supported(including_emulation=False), "
     "is_torch_bf16_gpu_available(); a plain is_bf16_supported() only before PyTorch 2.4)",
     true, false},
    {"oom-target-gpu-lacks", sem_target_gpu_lacks, 1, 4, OOM_SEM_PYTHON | OOM_SEM_JSON | OOM_SEM_YAML, false,
     "a target GPU is known and lacks one of: bf16, tf32, fp8, flash_attention_2", true, false},
    {"oom-json-kind", sem_json_kind, 1, 5, OOM_SEM_JSON, false,
     "the JSON file is one of: model-config, tokenizer-config, generation-config, training-args, deepspeed", true, false},
    {"oom-json-top-level", sem_json_top_level, 0, 0, OOM_SEM_JSON, false,
     "a pair of the JSON file's top-level object", false, false},
    {"oom-json-deepspeed-key", sem_json_deepspeed_key, 0, 0, OOM_SEM_JSON, false,
     "a top-level pair of a DeepSpeed config: a DeepSpeed JSON, or the \"deepspeed\" object of a TrainingArguments JSON", false, false},
    {"oom-yaml-kind", sem_yaml_kind, 1, 6, OOM_SEM_YAML, false,
     "the YAML config is one of: accelerate, axolotl, llama-factory, training-args, lightning, litgpt", true, false},
    {"oom-yaml-key", sem_yaml_key, 1, 16, OOM_SEM_YAML, false,
     "the pair (or its key) is at one of these dotted paths from its document's root (merge keys followed)", false, false},
    {"oom-yaml-value", sem_yaml_value, 1, 16, OOM_SEM_YAML, false,
     "the pair's value, aliases followed and read as PyYAML does (true/false/null normalised), is one of these", false, false},
    {"oom-yaml-true", sem_yaml_true, 1, 8, OOM_SEM_YAML, false,
     "a key at one of these dotted paths of the same document is true", false, false},
    {"oom-yaml-exceeds-model-limit", sem_yaml_exceeds_model_limit, 0, 0, OOM_SEM_YAML, false,
     "the pair's integer is above the position limit of the config's model (base_model, model_name_or_path)", false, false},
    {"oom-entry-of-returned-dict", sem_entry_of_returned_dict, 1, 1, OOM_SEM_PYTHON, true,
     "a pair of a dict literal assigned to a name matching the regex, which the function returns", false, false},
    {"oom-view-of-one-tensor", sem_view_of_one_tensor, 0, 0, OOM_SEM_PYTHON, false,
     "a slice or row of one tensor bound before every loop around the site: a view, nothing piles up", false, false},
    {"oom-loads-into-model", sem_loads_into_model, 0, 0, OOM_SEM_PYTHON, false,
     "a call whose result is copied into a model with load_state_dict (directly or through names)", false, false},
    {"oom-loads-host-data", sem_loads_host_data, 0, 0, OOM_SEM_PYTHON, false,
     "a torch.load of a file this file's torch.save writes, every time with host data (.cpu(), NumPy, parsed "
     "arguments, a dataset)", false, false},
    {"oom-mapped-in-other-branch", sem_mapped_in_other_branch, 0, 0, OOM_SEM_PYTHON, false,
     "a torch.load in one arm of an if whose other arm loads the same path with map_location= a device",
     false, false},
    {"oom-main-process-only", sem_main_process_only, 0, 0, OOM_SEM_PYTHON, false,
     "only the main process runs it: the arm of an if that tests the rank (rank == 0, local_rank in (-1, 0), "
     "is_main_process), or after an if that returns on every other rank", false, false},
    {"oom-returned", sem_returned, 0, 0, OOM_SEM_PYTHON, false,
     "a name the function around it returns (alone or in a returned tuple)", false, false},
    {"oom-chunked-output", sem_chunked_output, 0, 0, OOM_SEM_PYTHON, false,
     "storage filled in a loop without backward and put together into the function's return value", false, false},
    {"oom-model-like", sem_model_like, 0, 0, OOM_SEM_PYTHON, false,
     "an expression that denotes a model", false, false},
    {"oom-exceeds-model-limit", sem_exceeds_model_limit, 0, 0, OOM_SEM_PYTHON, false,
     "an integer above the loaded model's hard position limit", false, false},
    {"oom-json-exceeds-model-limit", sem_json_exceeds_model_limit, 0, 0, OOM_SEM_JSON, false,
     "a number above the position limit of the JSON's model_name_or_path", false, false},
    {"oom-logits-size", sem_logits_size, 0, 0, OOM_SEM_PYTHON, false,
     "always holds; puts the logits' size in {{detail}} when known", false, false},
    {"oom-in-loop-guard", sem_in_loop_guard, 0, 0, OOM_SEM_PYTHON, false,
     "inside an if within the innermost loop", false, false},
    {"oom-in-periodic-guard", sem_in_periodic_guard, 0, 0, OOM_SEM_PYTHON, false,
     "inside an if of the innermost loop whose condition takes a modulo (every k-th iteration)", false, false},
    {"oom-file-loads-model-matching", sem_file_loads_model_matching, 1, 1,
     OOM_SEM_PYTHON | OOM_SEM_JSON | OOM_SEM_YAML, true,
     "the file loads a pretrained model (from_pretrained, pipeline) whose id matches the regex", true, false},
    {"oom-fp16-overflow-note", sem_fp16_overflow_note, 1, 1, OOM_SEM_PYTHON, true,
     "always holds; where the file loads a model whose id matches the regex, {{detail}} says it overflows in fp16",
     false, false},
    {"oom-host-on-default-path", sem_host_on_default_path, 0, 0, OOM_SEM_PYTHON, false,
     "a name moved to the host under `if P:` on some path, P a parameter of the function defaulting to True", false,
     false},
    {"oom-keyword-only-stored-by-own-function", sem_keyword_only_stored_by_own_function, 0, 0, OOM_SEM_PYTHON, false,
     "a keyword argument of a call of the file's own function, whose parameter of that name reaches no computing call "
     "(only compared, looked up, printed or passed to the file's functions that do the same)", false, false},
    {"oom-loop-calls", sem_loop_calls, 1, 64, OOM_SEM_PYTHON, false,
     "the innermost loop's body calls one of these dotted names", false, false},
    {"oom-loop-only-calls", sem_loop_only_calls, 1, 64, OOM_SEM_PYTHON, false,
     "every statement of the innermost loop's body is a call of one of these dotted names", false, false},
    {"oom-loop-iterates-built-by", sem_loop_iterates_built_by, 1, 64, OOM_SEM_PYTHON, false,
     "the innermost loop walks a value made by one of these calls (names, .items()/.keys()/.values() followed)",
     false, false},
    {"oom-loop-generates", sem_loop_generates, 0, 0, OOM_SEM_PYTHON, false,
     "the innermost loop's body runs a generation: a call of generate, directly or in the file's own functions",
     false, false},
    {"oom-in-retry-attempt", sem_in_retry_attempt, 0, 0, OOM_SEM_PYTHON, false,
     "in a try body whose success leaves the loop (return/break): the loop repeats only after an exception",
     false, false},
    {"oom-layer-outputs-escape", sem_layer_outputs_escape, 0, 0, OOM_SEM_PYTHON, false,
     "the per-layer tuples of this forward call's output may outlive its function (module code, a backward "
     "there, returned, stored, passed on)", false, false},
    {"oom-frozen-before", sem_frozen_before, 0, 0, OOM_SEM_PYTHON, false,
     "a module whose parameters (or its parent module's) were set requires_grad=False earlier in the function",
     false, false},
    {"oom-never-runs", sem_never_runs, 0, 0, OOM_SEM_PYTHON, false,
     "in a branch the file's fixed integers rule out (num_gpus = 1 ... if num_gpus > 1:)", false, false},
    {"oom-may-run", sem_may_run, 0, 0, OOM_SEM_PYTHON, false,
     "not in a branch ruled out: the file's fixed integers, or `if P:` with P a parameter defaulting to False/None/0 that no call passes (other files asked of the project pass)", false, false},
    {"oom-in-oom-handler", sem_in_oom_handler, 0, 0, OOM_SEM_PYTHON, false,
     "inside an except clause for out-of-memory errors", false, false},
    {"oom-in-except", sem_in_except, 0, 0, OOM_SEM_PYTHON, false,
     "inside any except clause", false, false},
    {"oom-converts-weights", sem_converts_weights, 0, 0, OOM_SEM_PYTHON, false,
     "the file is a script that saves weights and runs no model (a merge or conversion tool)", true, false},
    {"oom-host-tensor-factory", sem_host_tensor_factory, 0, 0, OOM_SEM_PYTHON, false,
     "the function is a tensor factory's (torch.ones, torch.empty, torch.as_tensor) given no device, its tensor "
     "no module's parameter (nn.Parameter): a host tensor or a buffer",
     false, false},
    {"oom-context-runs-nothing", sem_context_runs_nothing, 0, 0, OOM_SEM_PYTHON, false,
     "the node is in the context of a `with` whose body only defines functions or classes: nothing runs under it",
     false, false},
    {"oom-cast-of-non-model", sem_cast_of_non_model, 0, 0, OOM_SEM_PYTHON, false,
     "the function of a call is x.to / x.type on something that is not a model", false, false},
    {"oom-file-trains", sem_file_trains, 0, 0, OOM_SEM_PYTHON, false,
     "the file trains (backward, Trainer, .train(), .fit())", true, false},
    {"oom-lm-trainer", sem_lm_trainer, 0, 0, OOM_SEM_PYTHON, false,
     "a Trainer call whose model has a language-modelling head", false, false},
    {"oom-file-loads-lm-head", sem_file_loads_lm_head, 0, 0, OOM_SEM_PYTHON, false,
     "the file loads a model whose logits are vocabulary-sized (causal, seq2seq or masked LM; SFTTrainer)", true,
     false},
    {"oom-file-loads-diffusion-model", sem_file_loads_diffusion_model, 0, 0, OOM_SEM_PYTHON, false,
     "the file builds a diffusers text-conditioned denoiser or pipeline (UNet2DConditionModel, ControlNetModel, "
     "*Transformer2DModel, *Pipeline)", true, false},
    {"oom-file-only-infers", sem_file_only_infers, 0, 0, OOM_SEM_PYTHON, false,
     "the file runs a model (a forward, generate, a pipeline) and trains nothing: an evaluation or inference script",
     true, false},
    {"oom-file-has-keyword", sem_file_has_keyword, 1, 2, OOM_SEM_PYTHON, false,
     "some call passes NAME (=VALUE)", true, false},
    {"oom-file-calls", sem_file_calls, 1, 64, OOM_SEM_PYTHON, false,
     "some call in the file is to one of these names", true, false},
    {"oom-scalar", sem_scalar, 0, 0, OOM_SEM_PYTHON, false,
     "a scalar tensor: a reduced loss (x.mean(), outputs.loss, F.cross_entropy(...), a reducing *Loss module), "
     "scaled by counts", false, false},
    {"oom-read-as-number", sem_read_as_number, 0, 0, OOM_SEM_PYTHON, false,
     "every read of the local name uses it as a number (printed, formatted, logged, compared, summed)", false, false},
    {"oom-stays-local", sem_stays_local, 0, 0, OOM_SEM_PYTHON, false,
     "a local name never returned, yielded or stored into an object", false, false},
    {"oom-tensor", sem_tensor, 0, 0, OOM_SEM_PYTHON, false,
     "one tensor: a scalar, an output's .logits/.loss, a tensor method or torch function of one", false, false},
    {"oom-container", sem_container, 0, 0, OOM_SEM_PYTHON, false,
     "a dict, list or tuple (names followed, or read as a mapping), or an output's tuple field (hidden_states)",
     false, false},
    {"oom-copied-into-model", sem_copied_into_model, 0, 0, OOM_SEM_PYTHON, false,
     "a call whose result goes straight into load_state_dict (no assign=True)", false, false},
    {"oom-in-evaluation-function", sem_in_evaluation_function, 0, 0, OOM_SEM_PYTHON, false,
     "in a function named for evaluation that runs no backward (not a model's method)", false, false},
    {"oom-beside-keyword", sem_beside_keyword, 1, 64, OOM_SEM_PYTHON | OOM_SEM_JSON, false,
     "the call of this argument passes one of these keywords too (or **kwargs); in JSON, the object has one of "
     "these keys beside this pair", false, false},
};

size_t oom_semantic_predicate_count(void)
{
    return sizeof semantic_predicates / sizeof *semantic_predicates;
}

const char *oom_semantic_predicate_at(size_t i, int *min_args, int *max_args, const char **only, const char **doc)
{
    const oom_sem_entry *e = &semantic_predicates[i];
    *min_args = e->min_args;
    *max_args = e->max_args;
    *only = e->languages == OOM_SEM_JSON ? "JSON" : e->languages == OOM_SEM_YAML ? "YAML" : NULL;
    *doc = e->doc;
    return e->name;
}

const oom_sem_entry *oom_sem_find(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof semantic_predicates / sizeof *semantic_predicates; i++)
        if (strlen(semantic_predicates[i].name) == len &&
            memcmp(semantic_predicates[i].name, name, len) == 0)
            return &semantic_predicates[i];
    return NULL;
}

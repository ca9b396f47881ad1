/* estimate/generate: scripts that do not train (no backward(), optimizer or
 * train() call): evaluation, serving, generation. Their estimate is weights,
 * one step's activations and, where they call generate(), the KV cache for
 * the prompt and the new tokens (docs/estimation.md 9.8). */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "oomlint/lang.h"

typedef struct {
    oom_est_reader *r;
    TSNode call;                 /* the generate() call read, or the call of a pipeline */
    long long new_tokens, max_length;
    const oom_est_setting *via;  /* the setting the number came from */
    TSNode value;                /* the keyword's value */
} generate_scan;

/* A keyword's value as a positive whole number: written, through names, or
 * a setting's default (whose declaration *via then is). */
static bool int_value(oom_est_reader *r, TSNode value, long long *out, const oom_est_setting **via)
{
    *via = oom_est_setting_read_by(r, value);
    if (*via && oom_est_setting_int(r, *via, out) && *out > 0)
        return true;
    *via = NULL;
    return oom_pymodel_int_value(r->m, value, out) && *out > 0;
}

static void read_lengths(generate_scan *g, TSNode n, TSNode args, int depth);

/* generation_config=GenerationConfig(max_new_tokens=N, ...), written in the
 * call or bound to a name: its lengths are the call's. */
static void read_generation_config(generate_scan *g, TSNode n, TSNode value, int depth)
{
    TSNode v = oom_pymodel_value_of(g->r->m, value, 0);
    if (ts_node_is_null(v))
        v = value;
    oom_buf q;
    oom_buf_init(&q);
    if (depth == 0 && oom_est_type_is(v, "call") && oom_pymodel_qualname(g->r->m, oom_est_child(v, "function"), &q) &&
        oom_str_ends_with(q.data, "GenerationConfig"))
        read_lengths(g, n, oom_est_child(v, "arguments"), depth + 1);
    oom_buf_free(&q);
}

/* max_new_tokens= / max_length= among the keywords `args` (of the
 * generate() call `n`, or of a GenerationConfig given to it). */
static void read_lengths(generate_scan *g, TSNode n, TSNode args, int depth)
{
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        char key[24];
        long long v;
        const oom_est_setting *via;
        if (!oom_est_type_is(a, "keyword_argument") || !oom_est_text_of(g->r, oom_est_child(a, "name"), key, sizeof key))
            continue;
        if (strcmp(key, "generation_config") == 0) {
            read_generation_config(g, n, oom_est_child(a, "value"), depth);
            continue;
        }
        bool new_tokens = strcmp(key, "max_new_tokens") == 0, length = strcmp(key, "max_length") == 0;
        if ((!new_tokens && !length) || !int_value(g->r, oom_est_child(a, "value"), &v, &via))
            continue;
        if (new_tokens ? v > g->new_tokens : g->new_tokens == 0 && v > g->max_length) {
            if (new_tokens)
                g->new_tokens = v;
            else
                g->max_length = v;
            g->call = n, g->via = via, g->value = oom_est_child(a, "value");
        }
    }
}

/* A call of the text-generation pipeline that loaded the model
 * (`generator = pipeline("text-generation", model=...)`, then
 * `generator(prompts, max_new_tokens=N)`): it runs generate(). */
static bool is_pipeline_run(const oom_est_reader *r, TSNode call)
{
    TSNode fn = oom_est_child(call, "function");
    if (!oom_est_type_is(call, "call") || ts_node_is_null(r->model_call) || !oom_est_is_pipeline(r, r->model_call) ||
        (!oom_est_type_is(fn, "identifier") && !oom_est_type_is(fn, "attribute")))
        return false;
    TSNode v = oom_pymodel_value_of(r->m, fn, 0);
    return !ts_node_is_null(v) && ts_node_eq(v, r->model_call);
}

/* `<anything>.generate(..., max_new_tokens=N | max_length=N)`, or a call of
 * the pipeline: the call with the most new tokens stands for the script. */
static void visit(void *ctx, TSNode n)
{
    generate_scan *g = ctx;
    TSNode fn = oom_est_child(n, "function");
    char name[16];
    if (is_pipeline_run(g->r, n)) { /* generator(prompts, max_new_tokens=N) */
        if (ts_node_is_null(g->call))
            g->call = n;
        read_lengths(g, n, oom_est_child(n, "arguments"), 0);
        return;
    }
    if (!oom_est_type_is(n, "call") || !oom_est_type_is(fn, "attribute") ||
        !oom_est_text_of(g->r, oom_est_child(fn, "attribute"), name, sizeof name) || strcmp(name, "generate") != 0)
        return;
    if (ts_node_is_null(g->call))
        g->call = n;
    read_lengths(g, n, oom_est_child(n, "arguments"), 0);
}

/* ---- the prompts: how many one generate() call reads ---------------------- */

/* A tokenizer (or processor) as a callee: a name that says so, or one bound
 * to `AutoTokenizer.from_pretrained(...)`. */
static bool is_tokenizer(const oom_est_reader *r, TSNode callee)
{
    static const char *const words[] = {"tokenizer", "tok", "processor", NULL};
    char text[96];
    if (!oom_est_text_of(r, callee, text, sizeof text))
        return false;
    const char *last = strrchr(text, '.') ? strrchr(text, '.') + 1 : text;
    if (oom_name_has_word(last, strlen(last), words))
        return true;
    TSNode v = oom_pymodel_value_of(r->m, callee, 0);
    TSNode fn = oom_est_child(v, "function");
    return oom_est_type_is(v, "call") && oom_est_type_is(fn, "attribute") && oom_est_text_of(r, oom_est_child(fn, "object"), text, sizeof text) &&
           (strstr(text, "Tokenizer") || strstr(text, "Processor"));
}

/* `tokenizer(text, ...)`, `tokenizer.encode(text)`, `tokenizer.
 * apply_chat_template(messages)`: the method ("" for a call of the
 * tokenizer itself); false for other calls. */
static bool tokenizer_call(const oom_est_reader *r, TSNode call, char *method, size_t size)
{
    static const char *const methods[] = {"encode", "encode_plus", "batch_encode_plus", "apply_chat_template",
                                          "__call__", NULL};
    TSNode fn = oom_est_child(call, "function");
    method[0] = '\0';
    if (oom_est_type_is(fn, "attribute") && oom_est_text_of(r, oom_est_child(fn, "attribute"), method, size))
        for (int i = 0; methods[i]; i++)
            if (strcmp(method, methods[i]) == 0)
                return is_tokenizer(r, oom_est_child(fn, "object"));
    method[0] = '\0';
    return oom_est_type_is(call, "call") && is_tokenizer(r, fn);
}

/* The tokenizer call whose output the generate() call reads: its first
 * argument, input_ids= or **inputs, followed through names, `.to(device)`,
 * `["input_ids"]` and `.input_ids`. A null node when it is not that. */
static TSNode tokenizer_call_feeding(const oom_est_reader *r, TSNode generate, char *method, size_t size)
{
    TSNode args = oom_est_child(generate, "arguments");
    TSNode a = ts_node_named_child_count(args) > 0 ? ts_node_named_child(args, 0) : (TSNode){{0}, NULL, NULL};
    if (oom_est_type_is(a, "keyword_argument"))
        a = oom_pymodel_keyword_value(r->m, generate, "input_ids");
    for (int hop = 0; hop < 8 && !ts_node_is_null(a); hop++) {
        char name[24];
        TSNode fn = oom_est_child(a, "function");
        if (oom_est_type_is(a, "dictionary_splat") || oom_est_type_is(a, "parenthesized_expression")) {
            a = ts_node_named_child(a, 0);
        } else if (oom_est_type_is(a, "identifier")) {
            a = oom_pymodel_value_of(r->m, a, 0);
        } else if (oom_est_type_is(a, "subscript")) {
            a = oom_est_child(a, "value");
        } else if (oom_est_type_is(a, "attribute") && oom_est_text_of(r, oom_est_child(a, "attribute"), name, sizeof name) &&
                   strcmp(name, "input_ids") == 0) {
            a = oom_est_child(a, "object");
        } else if (oom_est_type_is(a, "call") && tokenizer_call(r, a, method, size)) {
            return a;
        } else if (oom_est_type_is(a, "call") && oom_est_type_is(fn, "attribute") &&
                   oom_est_text_of(r, oom_est_child(fn, "attribute"), name, sizeof name) &&
                   (strcmp(name, "to") == 0 || strcmp(name, "cuda") == 0)) {
            a = oom_est_child(fn, "object");
        } else {
            break;
        }
    }
    return (TSNode){{0}, NULL, NULL};
}

/* How many prompts an expression holds: one string (a literal, an
 * f-string, `"...".format(...)`, a concatenation), a list literal of N, or
 * `[...] * N`; -1 when that cannot be told. */
static long long prompt_count(const oom_est_reader *r, TSNode p, int depth)
{
    if (ts_node_is_null(p) || depth > 4)
        return -1;
    const char *t = ts_node_type(p);
    TSNode fn = oom_est_child(p, "function");
    char name[16];
    if (strcmp(t, "string") == 0 || strcmp(t, "concatenated_string") == 0)
        return 1;
    if (strcmp(t, "call") == 0 && oom_est_type_is(fn, "attribute") &&
        oom_est_text_of(r, oom_est_child(fn, "attribute"), name, sizeof name) && strcmp(name, "format") == 0)
        return prompt_count(r, oom_est_child(fn, "object"), depth + 1) == 1 ? 1 : -1; /* a template filled in */
    if (strcmp(t, "parenthesized_expression") == 0)
        return prompt_count(r, ts_node_named_child(p, 0), depth + 1);
    if (strcmp(t, "identifier") == 0)
        return prompt_count(r, oom_pymodel_value_of(r->m, p, 0), depth + 1);
    if (strcmp(t, "list") == 0) {
        uint32_t n = ts_node_named_child_count(p);
        for (uint32_t i = 0; i < n; i++) {
            TSNode e = ts_node_named_child(p, i);
            if (oom_est_type_is(e, "dictionary")) /* chat messages: one conversation */
                return 1;
            if (oom_est_type_is(e, "list_splat") || oom_est_type_is(e, "comment") || oom_est_type_is(e, "list_comprehension"))
                return -1;
        }
        return n > 0 ? (long long)n : -1;
    }
    if (strcmp(t, "binary_operator") == 0) {
        TSNode left = oom_est_child(p, "left"), right = oom_est_child(p, "right");
        char op[4];
        if (!oom_est_text_of(r, oom_est_child(p, "operator"), op, sizeof op))
            return -1;
        long long times;
        if (strcmp(op, "+") == 0) /* "a" + name: one string; lists added: their lengths */
            return prompt_count(r, left, depth + 1) == 1 && !oom_est_type_is(left, "list") ? 1 : -1;
        if (strcmp(op, "*") != 0)
            return -1;
        if (oom_est_type_is(right, "list") || oom_est_type_is(oom_pymodel_value_of(r->m, right, 0), "list")) {
            TSNode swap = left;
            left = right, right = swap;
        }
        long long each = prompt_count(r, left, depth + 1);
        return each > 0 && oom_pymodel_int_value(r->m, right, &times) && times > 0 && !oom_est_type_is(left, "string")
                   ? each * times
                   : -1;
    }
    return -1;
}

/* The batch of one generate() call, where the script shows its prompts:
 * the tokenizer call that feeds it is given one string or a list of them. */
static void read_prompts(oom_est_reader *r, TSNode generate)
{
    oom_script_inputs *out = r->out;
    char method[24] = "";
    TSNode call = is_pipeline_run(r, generate) ? generate : tokenizer_call_feeding(r, generate, method, sizeof method);
    if (!out->from[OOM_IN_BATCH].assumed || ts_node_is_null(call))
        return;
    bool call_is_pipe = ts_node_eq(call, generate);
    TSNode args = oom_est_child(call, "arguments");
    TSNode p = ts_node_named_child_count(args) > 0 ? ts_node_named_child(args, 0) : (TSNode){{0}, NULL, NULL};
    if (oom_est_type_is(p, "keyword_argument"))
        p = oom_pymodel_keyword_value(r->m, call, call_is_pipe ? "text_inputs" : "text");
    long long n = -1;
    if (strcmp(method, "encode") == 0 || strcmp(method, "encode_plus") == 0)
        n = ts_node_is_null(p) ? -1 : 1; /* one text a call */
    else if (strcmp(method, "apply_chat_template") == 0)
        n = ts_node_is_null(p) ? -1 : 1; /* one conversation (a list of messages) */
    else
        n = prompt_count(r, p, 0);
    if (n <= 0)
        return;
    char what[120];
    if (n == 1)
        snprintf(what, sizeof what, "one prompt given to the %s", call_is_pipe ? "pipeline" : "tokenizer");
    else
        snprintf(what, sizeof what, "%lld prompts given to the %s", n, call_is_pipe ? "pipeline" : "tokenizer");
    out->in.micro_batch = n;
    out->prompts_batch = true;
    oom_est_note(r, OOM_IN_BATCH, p, what);
}

/* What an inference script that shows no batch gets: one prompt (or one
 * sample: DataLoader's and pipeline's batch_size default is 1), not the
 * Trainer's 8; the sequence is the prompt's length; a from_pretrained
 * without a dtype loads fp32 only before transformers 5. */
static void assume_inference_inputs(const oom_est_reader *r)
{
    oom_script_inputs *out = r->out;
    if (out->from[OOM_IN_BATCH].assumed && !oom_script_inputs_is_image(out)) {
        out->in.micro_batch = 1;
        oom_est_assume(out, OOM_IN_BATCH,
                       out->in.generates ? "batch 1 (one prompt per generate() call: no list of prompts or batch_size found)"
                                         : "batch 1 (no batch size found: DataLoader's and pipeline's default)");
    }
    if (out->from[OOM_IN_PRECISION].assumed && out->in.precision == OOM_PREC_FP32 && !ts_node_is_null(r->model_call))
        oom_est_assume(out, OOM_IN_PRECISION,
                       "fp32 (no torch_dtype: transformers 4 loads fp32, 5 the checkpoint's dtype, often 16-bit)");
    if (out->from[OOM_IN_SEQ].assumed && out->in.generates) {
        char what[96];
        snprintf(what, sizeof what, "prompts of %lld tokens (no max_length found)", out->in.seq_len);
        oom_est_assume(out, OOM_IN_SEQ, what);
    }
}

void oom_est_read_inference(oom_est_reader *r)
{
    oom_script_inputs *out = r->out;
    out->in.generates = false;
    out->in.new_tokens = 0;
    char what[200];
    if (out->in.training) {
        snprintf(out->from[OOM_IN_MODE].text, sizeof out->from[OOM_IN_MODE].text,
                 "%s calls backward(), an optimizer step or train()", r->path);
        out->from[OOM_IN_MODE].assumed = false;
        out->from[OOM_IN_MODE].line = 0;
        return;
    }
    generate_scan g = {r, {{0}, NULL, NULL}, 0, 0, NULL, {{0}, NULL, NULL}};
    oom_est_walk(r, visit, &g);
    if (ts_node_is_null(g.call)) {
        snprintf(out->from[OOM_IN_MODE].text, sizeof out->from[OOM_IN_MODE].text,
                 "%s: no backward(), optimizer step or train(): a forward pass, no KV cache", r->path);
        out->from[OOM_IN_MODE].assumed = false;
        out->from[OOM_IN_MODE].line = 0;
        assume_inference_inputs(r);
        return;
    }
    out->in.generates = true;
    read_prompts(r, g.call);
    assume_inference_inputs(r);
    if (g.new_tokens > 0) {
        out->in.new_tokens = g.new_tokens;
        snprintf(what, sizeof what, "generate(max_new_tokens=%lld): KV cache for %lld + %lld positions", g.new_tokens,
                 out->in.seq_len, g.new_tokens);
    } else if (g.max_length > 0) {
        /* max_length counts the prompt */
        out->in.new_tokens = g.max_length > out->in.seq_len ? g.max_length - out->in.seq_len : 0;
        if (g.max_length < out->in.seq_len)
            out->in.seq_len = g.max_length;
        snprintf(what, sizeof what, "generate(max_length=%lld): KV cache for %lld positions", g.max_length,
                 out->in.seq_len + out->in.new_tokens);
    } else {
        snprintf(what, sizeof what, "generate() without max_new_tokens: KV cache for the %lld prompt positions",
                 out->in.seq_len);
    }
    r->via = g.via;
    oom_est_note(r, OOM_IN_MODE, ts_node_is_null(g.value) ? g.call : g.value, what);
    r->via = NULL;
    /* without a number, the new tokens are unknown (transformers' default
     * max_length of 20 counts the prompt; a model's generation_config may say more) */
    out->from[OOM_IN_MODE].assumed = g.new_tokens == 0 && g.max_length == 0;
}

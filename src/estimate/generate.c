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
    TSNode call;                 /* the generate() call read */
    long long new_tokens, max_length;
    const oom_est_setting *via;  /* the setting the number came from */
    TSNode value;                /* the keyword's value */
} generate_scan;

static TSNode child(TSNode n, const char *field)
{
    return oom_child(n, field, (uint32_t)strlen(field));
}

static bool type_is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

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

/* `<anything>.generate(..., max_new_tokens=N | max_length=N)`: the call with
 * the most new tokens stands for the script. */
static void visit(void *ctx, TSNode n)
{
    generate_scan *g = ctx;
    TSNode fn = child(n, "function");
    char name[16];
    if (!type_is(n, "call") || !type_is(fn, "attribute") ||
        !oom_est_text_of(g->r, child(fn, "attribute"), name, sizeof name) || strcmp(name, "generate") != 0)
        return;
    if (ts_node_is_null(g->call))
        g->call = n;
    TSNode args = child(n, "arguments");
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        char key[24];
        long long v;
        const oom_est_setting *via;
        if (!type_is(a, "keyword_argument") || !oom_est_text_of(g->r, child(a, "name"), key, sizeof key))
            continue;
        bool new_tokens = strcmp(key, "max_new_tokens") == 0, length = strcmp(key, "max_length") == 0;
        if ((!new_tokens && !length) || !int_value(g->r, child(a, "value"), &v, &via))
            continue;
        if (new_tokens ? v > g->new_tokens : g->new_tokens == 0 && v > g->max_length) {
            if (new_tokens)
                g->new_tokens = v;
            else
                g->max_length = v;
            g->call = n, g->via = via, g->value = child(a, "value");
        }
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
        return;
    }
    out->in.generates = true;
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

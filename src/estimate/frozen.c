/* estimate/frozen: Hugging Face models whose base is frozen and whose head
 * alone trains. `model.base_model.requires_grad_(False)`, `for p in
 * model.bert.parameters(): p.requires_grad = False`, or every parameter
 * frozen and the classifier unfrozen again: gradients and optimizer states
 * are then the head's, whose size the knowledge base's "heads" give per
 * model type (docs/estimation.md 9.7). */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "oomlint/lang.h"

enum { PART_OTHER = -1, PART_MODEL, PART_BASE, PART_HEAD };

typedef struct {
    oom_est_reader *r;
    const oom_head_shape *heads;
    char var[64];          /* what the model is bound to: "model", "self.model" */
    bool frozen_all, frozen_base, head_on;
    uint32_t freeze_pos;   /* where the whole model was frozen */
    TSNode freeze_at, head_at;
    char frozen_text[64];  /* "model.bert", "model" */
    char head[24];         /* the head module unfrozen: "classifier", "lm_head" */
} freeze_scan;

static bool text_is(const freeze_scan *s, TSNode n, const char *want)
{
    char buf[96];
    return oom_est_text_of(s->r, n, buf, sizeof buf) && strcmp(buf, want) == 0;
}

/* `name` is `module` or below it ("classifier.weight"). */
static bool under(const char *name, const char *module)
{
    size_t n = strlen(module);
    return n > 0 && strncmp(name, module, n) == 0 && (name[n] == '\0' || name[n] == '.');
}

/* Which head module `path` (below the model) is in; NULL when none. */
static const char *head_module(const freeze_scan *s, const char *path)
{
    for (size_t i = 0; i < sizeof s->heads->modules / sizeof s->heads->modules[0]; i++)
        if (under(path, s->heads->modules[i]))
            return s->heads->modules[i];
    return under(path, s->heads->lm_head) ? s->heads->lm_head : NULL;
}

/* What `expr` names: the model, its base (`base_model` or the type's
 * attribute for it, `bert`, `model`, `transformer`), its head, or other. */
static int part_of(freeze_scan *s, TSNode expr, bool remember_head)
{
    char t[128];
    if (!oom_est_text_of(s->r, expr, t, sizeof t))
        return PART_OTHER;
    size_t n = strlen(s->var);
    if (strncmp(t, s->var, n) != 0 || (t[n] != '\0' && t[n] != '.'))
        return PART_OTHER;
    const char *path = t[n] ? t + n + 1 : t + n;
    if (!path[0])
        return PART_MODEL;
    if (strcmp(path, "base_model") == 0 || strcmp(path, s->heads->base) == 0)
        return PART_BASE;
    const char *head = head_module(s, path);
    if (head && remember_head)
        oom_est_copy(s->head, sizeof s->head, head);
    return head ? PART_HEAD : PART_OTHER;
}

/* requires_grad = False / requires_grad_(False) on `target` (NULL: any
 * object, which *object then is): -1 not such a statement, 0 freezes, 1
 * unfreezes. */
static int grad_switch(const freeze_scan *s, TSNode stmt, const char *target, TSNode *object)
{
    TSNode e = oom_est_type_is(stmt, "expression_statement") ? ts_node_named_child(stmt, 0) : stmt;
    if (oom_est_type_is(e, "assignment")) {
        TSNode left = oom_est_child(e, "left"), right = oom_est_child(e, "right");
        if (!oom_est_type_is(left, "attribute") || !text_is(s, oom_est_child(left, "attribute"), "requires_grad"))
            return -1;
        *object = oom_est_child(left, "object");
        if (target && !text_is(s, *object, target))
            return -1;
        return oom_est_type_is(right, "true") ? 1 : oom_est_type_is(right, "false") ? 0 : -1;
    }
    TSNode fn = oom_est_child(e, "function");
    if (!oom_est_type_is(e, "call") || !oom_est_type_is(fn, "attribute") || !text_is(s, oom_est_child(fn, "attribute"), "requires_grad_"))
        return -1;
    *object = oom_est_child(fn, "object");
    if (target && !text_is(s, *object, target))
        return -1;
    TSNode args = oom_est_child(e, "arguments");
    TSNode arg = ts_node_named_child_count(args) > 0 ? ts_node_named_child(args, 0) : OOM_EST_NULL_NODE;
    if (oom_est_type_is(arg, "keyword_argument"))
        arg = oom_est_child(arg, "value");
    return ts_node_is_null(arg) || oom_est_type_is(arg, "true") ? 1 : oom_est_type_is(arg, "false") ? 0 : -1;
}

static void record(freeze_scan *s, TSNode at, TSNode object, int part, int on)
{
    if (part == PART_OTHER || !oom_est_runs_without_flags(s->r, at))
        return; /* a part we cannot size, or a freeze behind a flag that is off */
    if (on == 0 && (part == PART_MODEL || part == PART_BASE)) {
        if (part == PART_MODEL) {
            s->frozen_all = true;
            s->freeze_pos = ts_node_start_byte(at);
        } else {
            s->frozen_base = true;
        }
        s->freeze_at = at;
        oom_est_text_of(s->r, object, s->frozen_text, sizeof s->frozen_text);
    } else if (on == 1 && part == PART_HEAD) {
        s->head_on = true;
        s->head_at = at;
    }
}

/* `if "classifier" not in name:` around the freeze: all but the head. */
static bool all_but_head(freeze_scan *s, TSNode if_stmt, TSNode name_var, const char *var)
{
    TSNode cond = oom_est_child(if_stmt, "condition"), block = oom_est_child(if_stmt, "consequence");
    char text[160], name[48];
    if (!oom_est_type_is(cond, "comparison_operator") || ts_node_named_child_count(cond) != 2 ||
        !oom_est_text_of(s->r, cond, text, sizeof text) || !strstr(text, " not in ") ||
        !oom_est_text_of(s->r, name_var, name, sizeof name) || !text_is(s, ts_node_named_child(cond, 1), name))
        return false;
    TSNode lit = ts_node_named_child(cond, 0);
    char quoted[48], module[48];
    if (!oom_est_type_is(lit, "string") || !oom_est_text_of(s->r, lit, quoted, sizeof quoted) || strlen(quoted) < 3)
        return false;
    snprintf(module, sizeof module, "%.*s", (int)strlen(quoted) - 2, quoted + 1);
    const char *head = head_module(s, module);
    TSNode object;
    if (!head || ts_node_named_child_count(block) != 1 || grad_switch(s, ts_node_named_child(block, 0), var, &object) != 0)
        return false;
    oom_est_copy(s->head, sizeof s->head, head);
    return true;
}

/* for p in model.bert.parameters(): p.requires_grad = False (named_parameters
 * too; statements directly in the loop body). */
bool oom_est_parameters_loop(const oom_est_reader *r, TSNode n, oom_est_param_loop *out)
{
    TSNode right = oom_est_child(n, "right"), left = oom_est_child(n, "left");
    TSNode fn = oom_est_child(right, "function");
    out->body = oom_est_child(n, "body");
    if (!oom_est_type_is(right, "call") || !oom_est_type_is(fn, "attribute") || ts_node_is_null(out->body))
        return false;
    char method[24];
    if (!oom_est_text_of(r, oom_est_child(fn, "attribute"), method, sizeof method))
        return false;
    bool named = strcmp(method, "named_parameters") == 0;
    if (!named && strcmp(method, "parameters") != 0)
        return false;
    out->name_var = OOM_EST_NULL_NODE;
    if (named && oom_est_type_is(left, "pattern_list")) {
        out->name_var = ts_node_named_child(left, 0);
        left = ts_node_named_child(left, ts_node_named_child_count(left) - 1);
    }
    out->owner = oom_est_child(fn, "object");
    return oom_est_type_is(left, "identifier") && oom_est_text_of(r, left, out->var, sizeof out->var);
}

static void visit_for(freeze_scan *s, TSNode n)
{
    oom_est_param_loop loop;
    if (!oom_est_parameters_loop(s->r, n, &loop))
        return;
    TSNode owner = loop.owner, name_var = loop.name_var, body = loop.body;
    const char *var = loop.var;
    int part = part_of(s, owner, true);
    for (uint32_t i = 0; i < ts_node_named_child_count(body); i++) {
        TSNode stmt = ts_node_named_child(body, i), object;
        int on = grad_switch(s, stmt, var, &object);
        if (on >= 0) {
            record(s, n, owner, part, on);
        } else if (part == PART_MODEL && oom_est_type_is(stmt, "if_statement") && !ts_node_is_null(name_var) &&
                   all_but_head(s, stmt, name_var, var)) {
            record(s, n, owner, PART_MODEL, 0);
            s->head_on = true;
            s->head_at = stmt;
        }
    }
}

static void visit(void *ctx, TSNode n)
{
    freeze_scan *s = ctx;
    if (oom_est_type_is(n, "for_statement")) {
        visit_for(s, n);
        return;
    }
    if (!oom_est_type_is(n, "expression_statement"))
        return;
    TSNode object;
    int on = grad_switch(s, n, NULL, &object);
    if (on < 0)
        return;
    /* model.classifier.weight.requires_grad = True names a parameter of the head */
    record(s, n, object, part_of(s, object, on == 1), on);
}

/* The variable the loading call is assigned to. */
static bool model_variable(const oom_est_reader *r, char *var, size_t size)
{
    TSNode call = r->model_call, parent = ts_node_is_null(call) ? call : ts_node_parent(call);
    if (!oom_est_type_is(parent, "assignment"))
        return false;
    TSNode left = oom_est_child(parent, "left");
    return (oom_est_type_is(left, "identifier") || oom_est_type_is(left, "attribute")) && oom_est_text_of(r, left, var, size);
}

/* num_labels= of the loading call (a number, or a setting's default);
 * transformers' default is 2. */
static long long label_count(oom_est_reader *r, bool *stated)
{
    TSNode args = oom_est_child(r->model_call, "arguments");
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        long long n;
        char key[16];
        if (!oom_est_type_is(a, "keyword_argument") || !oom_est_text_of(r, oom_est_child(a, "name"), key, sizeof key) ||
            strcmp(key, "num_labels") != 0)
            continue;
        const oom_est_setting *via = oom_est_setting_read_by(r, oom_est_child(a, "value"));
        if ((via && oom_est_setting_int(r, via, &n)) || oom_pymodel_int_value(r->m, oom_est_child(a, "value"), &n)) {
            *stated = n > 0;
            return n > 0 ? n : 2;
        }
    }
    *stated = false;
    return 2;
}

/* The head's parameters, and how to say it; -1 when the head is not one the
 * knowledge base sizes. */
static long long head_params(freeze_scan *s, char *how, size_t size)
{
    oom_script_inputs *out = s->r->out;
    const oom_head_shape *hs = s->heads;
    long long h = out->in.hidden, v = out->in.vocab;
    bool lm = s->head[0] ? strcmp(s->head, hs->lm_head) == 0 : out->task == OOM_TASK_CAUSAL_LM;
    if (lm && hs->lm_head[0] && v > 0) {
        snprintf(how, size, "`%s`, %lld x %lld%s", hs->lm_head, v, h, hs->lm_head_bias ? " + bias" : "");
        return v * h + (hs->lm_head_bias ? v : 0);
    }
    if (out->task != OOM_TASK_CLASSIFICATION || !hs->modules[0][0])
        return -1;
    bool stated;
    long long labels = label_count(s->r, &stated);
    snprintf(how, size, "`%s%s%s`, %lld labels%s", hs->modules[0], hs->modules[1][0] ? "`, `" : "", hs->modules[1],
             labels, stated ? "" : " (the default num_labels)");
    return oom_head_classifier_params(hs, h, labels);
}

void oom_est_read_frozen_base(oom_est_reader *r)
{
    oom_script_inputs *out = r->out;
    const oom_model *m = out->model_known ? oom_kb_find_model(r->kb, out->model_id) : NULL;
    /* adapters already decide what trains */
    if (!m || oom_script_inputs_is_image(out) || !out->from[OOM_IN_LORA].assumed || out->in.hidden <= 0)
        return;
    freeze_scan s = {.r = r, .heads = oom_kb_find_heads(r->kb, m->config.model_type)};
    if (!s.heads || !model_variable(r, s.var, sizeof s.var))
        return;
    oom_est_walk(r, visit, &s);
    bool head_only = s.frozen_base || (s.frozen_all && s.head_on && ts_node_start_byte(s.head_at) >= s.freeze_pos);
    if (!head_only)
        return;
    char how[128], what[320];
    long long head = head_params(&s, how, sizeof how);
    if (head <= 0)
        return;
    out->in.trainable = head;
    out->in.frozen_backbone = true;
    snprintf(what, sizeof what, "%s frozen, only the head trains (%s): %lld trainable params", s.frozen_text, how,
             head);
    oom_est_note(r, OOM_IN_LORA, s.freeze_at, what);
}

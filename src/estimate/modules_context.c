/* estimate/modules_context: what one model's reading carries: the view of
 * each file it reads, the frames of the code it runs, the first size it
 * could not tell (the model input's reason), a call's arguments, and the
 * one bounded step into an expression (oom_mod_eval) that every other file
 * takes, through ctx.eval_node, so that none calls up the chain. */
#include <stdio.h>
#include <string.h>

#include "modules.h"

/* ---- nodes, read in the view of their file ------------------------------ */

/* 1-based, as provenance lines are. */
unsigned oom_mod_line_of(const ctx *c, TSNode n)
{
    uint32_t row = 0, col = 0;
    oom_source_position(reader_of(c, n)->src, ts_node_start_byte(n), &row, &col);
    return row;
}

/* Where a definition is, for people: "line 16" in the script, else
 * "models/net.py:16". */
void oom_mod_place_of(const ctx *c, TSNode n, char *buf, size_t size)
{
    view *v = view_of(c, n);
    if (v == c->views->items[0])
        oom_est_printf(buf, size, "line %u", oom_mod_line_of(c, n));
    else
        oom_est_printf(buf, size, "%s:%u", oom_est_unit_path(v->unit), oom_mod_line_of(c, n));
}

/* The named children of `n`, read from the laid-out tree (a statement block
 * can be long: tree-sitter's own i-th child costs i steps). */
size_t oom_mod_kids(const ctx *c, TSNode n, TSNode *out, size_t max)
{
    size_t count = 0;
    const oom_nodes *L = layout_of(c, n);
    uint32_t at = ts_node_is_null(n) ? UINT32_MAX : oom_nodes_find(L, n);
    if (at == UINT32_MAX)
        return 0;
    for (uint32_t k = at + 1; k < L->items[at].end && count < max; k = L->items[k].end)
        if (ts_node_is_named(L->items[k].node) && !is(L->items[k].node, "comment"))
            out[count++] = L->items[k].node;
    return count;
}

/* ---- the first size that could not be told ------------------------------ */

/* Records the first size that could not be told: "`text` (what, line N)". */
void oom_mod_unresolved(ctx *c, TSNode at, const char *what)
{
    if (c->why[0])
        return;
    char t[72] = "?", where[96] = "line 0";
    if (!ts_node_is_null(at) && !text(c, at, t, sizeof t)) {
        memcpy(t, reader_of(c, at)->src->text + ts_node_start_byte(at), 60);
        memcpy(t + 60, "...", 4);
    }
    for (char *p = t; *p; p++)
        if (*p == '\n')
            *p = ' ';
    if (!ts_node_is_null(at))
        oom_mod_place_of(c, at, where, sizeof where);
    char env[112] = "";
    if (c->environment_unlisted[0])
        snprintf(env, sizeof env, "the environment `%s` is not one the knowledge base lists", c->environment_unlisted);
    const char *cfg = oom_est_configs_why(c->configs); /* the config file or key that would settle it */
    if (!cfg[0])
        cfg = env;
    snprintf(c->why, sizeof c->why, "%s%s`%s` (%s, %s)", cfg, cfg[0] ? ", which would settle " : "", t, what, where);
}

/* ---- frames: the variables and attributes of the code being run ---------- */

frame *oom_mod_frame_new(ctx *c, frame *parent)
{
    frame *f = oom_xcalloc(1, sizeof *f);
    f->parent = parent;
    OOM_PUSH(c->frames, c->nframes, c->frames_cap, f);
    return f;
}

var *oom_mod_find_var(var *vars, size_t n, const char *name)
{
    for (size_t i = n; i-- > 0;)
        if (strcmp(vars[i].name, name) == 0)
            return &vars[i];
    return NULL;
}

static void set_in(var **vars, size_t *n, size_t *cap, const char *name, const value *v)
{
    var *old = oom_mod_find_var(*vars, *n, name);
    if (old) {
        old->v = *v;
        return;
    }
    var nv;
    memset(&nv, 0, sizeof nv);
    oom_est_copy(nv.name, sizeof nv.name, name);
    nv.v = *v;
    OOM_PUSH(*vars, *n, *cap, nv);
}

void oom_mod_set_var(frame *f, const char *name, const value *v)
{
    set_in(&f->vars, &f->nvars, &f->cap, name, v);
}

void oom_mod_set_attr(frame *f, const char *name, const value *v)
{
    set_in(&f->attrs, &f->nattrs, &f->acap, name, v);
}

const TSNode *oom_mod_lookup_named(const named_node *list, size_t n, const char *name)
{
    for (size_t i = n; i-- > 0;)
        if (strcmp(list[i].name, name) == 0)
            return &list[i].node;
    return NULL;
}

const value *oom_mod_lookup(frame *f, const char *name)
{
    for (; f; f = f->parent) {
        var *v = oom_mod_find_var(f->vars, f->nvars, name);
        if (v)
            return &v->v;
    }
    return NULL;
}

/* The frame that builds an instance (`self`), walking out through closures. */
frame *oom_mod_builder(frame *f)
{
    for (; f; f = f->parent)
        if (f->inst)
            return f;
    return NULL;
}

bool oom_mod_is_self(const ctx *c, frame *f, TSNode n)
{
    frame *b = oom_mod_builder(f);
    char nm[24];
    return b && name_of(c, n, nm, sizeof nm) && strcmp(nm, b->self_name) == 0;
}

/* ---- a call's arguments --------------------------------------------------- */

/* The argument at `pos` (positional; -1: none) or named `name`; null when
 * absent. */
TSNode oom_mod_arg(const ctx *c, TSNode call, int pos, const char *name)
{
    TSNode a[64];
    size_t n = oom_mod_kids(c, field(call, "arguments"), a, 64);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (is(a[i], "keyword_argument")) {
            char key[48];
            if (name && text(c, field(a[i], "name"), key, sizeof key) && strcmp(key, name) == 0)
                return field(a[i], "value");
        } else if (!is(a[i], "list_splat") && !is(a[i], "dictionary_splat")) {
            if (seen++ == pos && pos >= 0)
                return a[i];
        }
    }
    return OOM_EST_NULL_NODE;
}

/* ---- the one step into an expression ------------------------------------- */

/* Bounded: a deeply nested expression must not exhaust the stack. */
value oom_mod_eval(ctx *c, frame *f, TSNode e)
{
    if (ts_node_is_null(e))
        return unknown();
    if (++c->steps > MAX_STEPS || c->nesting >= MAX_NESTING) {
        oom_mod_unresolved(c, e,
                           c->nesting >= MAX_NESTING ? "an expression nested too deeply"
                                                     : "more work than oomlint does for one model");
        return unknown();
    }
    c->nesting++;
    value v = c->eval_node(c, f, e); /* modules_expr.c */
    c->nesting--;
    return v;
}

/* estimate/modules_run: running the script's own code while a model is
 * built: a class's __init__ (and its bases', super().__init__, dataclass
 * fields), a function or method called with its arguments bound, and the
 * statements of their bodies (assignments to self and to lists, branches,
 * loops, registrations, tied weights). Calls and statements recurse into
 * each other (__init__ runs statements; a statement builds a class), so
 * both live here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules.h"

static void exec_block(ctx *c, frame *f, TSNode block);

/* ---- instances of the script's classes ----------------------------------- */

/* The argument a call passes for parameter `nm`, the `pos`-th positional
 * one; null when none (a *args in the call ends the positional ones). */
static TSNode argument_for(const ctx *c, const TSNode *args, size_t na, size_t pos, bool positional, const char *nm)
{
    size_t seen = 0;
    for (size_t k = 0; k < na && positional; k++) {
        if (is(args[k], "keyword_argument") || is(args[k], "dictionary_splat"))
            continue;
        if (is(args[k], "list_splat"))
            break;
        if (seen++ == pos)
            return args[k];
    }
    for (size_t k = 0; k < na; k++) {
        char key[48];
        if (is(args[k], "keyword_argument") && text(c, field(args[k], "name"), key, sizeof key) && strcmp(key, nm) == 0)
            return field(args[k], "value");
    }
    return OOM_EST_NULL_NODE;
}

/* The value a `**config["model"]` or a `**kwargs` dict of the call passes
 * for parameter `nm`; false when none does (a key the config lacks leaves
 * the default; without one, the key is what would settle the size). */
static bool splatted(ctx *c, frame *caller, const TSNode *args, size_t na, const char *nm, bool dflt, value *out)
{
    for (size_t k = 0; k < na; k++) {
        value d =
            is(args[k], "dictionary_splat") ? oom_mod_eval(c, caller, ts_node_named_child(args[k], 0)) : unknown();
        var *held = (d.kind == V_OBJECT || d.plain) && d.obj ? oom_mod_find_var(d.obj->attrs, d.obj->nattrs, nm) : NULL;
        if (held) { /* kwargs = {"state_dim": state_dim, ...}; Actor(**kwargs) */
            *out = held->v;
            return true;
        }
        const oom_est_config *key = d.kind == V_CONFIG ? oom_est_config_key(c->configs, d.cfg, nm) : NULL;
        if (key && (oom_est_config_kind_of(key) != OOM_CFG_MISSING || !dflt)) {
            *out = oom_mod_from_config(c, key); /* an unreadable file: unknown, never the default */
            return true;
        }
    }
    return false;
}

/* The argument `given` for parameter `nm` of `def`. On the second try of a
 * model the first could not size (c->take_defaults), an argument that
 * cannot be told (`len(dataset.classes)`: the run reads no data) of a
 * parameter whose default is a number (`k=2`) takes the default, and the
 * size is marked assumed, naming the argument that would settle it: a class
 * count moves a classifier's last layer, not its size. */
static value given_or_default(ctx *c, frame *caller, TSNode given, TSNode p, frame *callee, TSNode def, const char *nm)
{
    bool clear = !c->why[0];
    value v = oom_mod_eval(c, caller, given);
    TSNode dflt = field(p, "value");
    if (!c->take_defaults || !clear || v.kind != V_UNKNOWN || v.maybe_module || (!is(dflt, "integer") && !is(dflt, "float")))
        return v;
    value d = oom_mod_eval(c, callee->parent, dflt);
    if (d.kind != V_INT && d.kind != V_FLOAT)
        return v;
    char owner[48] = "?", dtext[24] = "?", gtext[64], at[96];
    text(c, field(ts_node_is_null(callee->cls) ? def : callee->cls, "name"), owner, sizeof owner);
    text(c, dflt, dtext, sizeof dtext);
    if (!text(c, given, gtext, sizeof gtext))
        oom_est_copy(gtext, sizeof gtext, "its argument");
    oom_mod_place_of(c, given, at, sizeof at);
    size_t used = strlen(c->assumed);
    snprintf(c->assumed + used, sizeof c->assumed - used, "%s%s=%s, %s's default, for `%s` (%s)", used ? "; " : "", nm,
             dtext, owner, gtext, at);
    c->why[0] = '\0';
    return d;
}

/* Binds a function's parameters from a call: positional, keyword, then the
 * defaults; the first `skip` parameters (self) are not bound. */
static void bind_parameters(ctx *c, frame *caller, TSNode call, TSNode def, frame *callee, int skip)
{
    TSNode ps[64], args[64];
    size_t n = oom_mod_kids(c, field(def, "parameters"), ps, 64);
    size_t na = ts_node_is_null(call) ? 0 : oom_mod_kids(c, field(call, "arguments"), args, 64);
    size_t pos = 0;
    bool positional = true;
    for (size_t i = 0; i < n; i++) {
        TSNode p = ps[i];
        if (is(p, "list_splat_pattern") || is(p, "dictionary_splat_pattern") || is(p, "keyword_separator")) {
            positional = false;
            continue;
        }
        if (is(p, "positional_separator"))
            continue;
        TSNode name = is(p, "identifier") ? p : is(p, "typed_parameter") ? ts_node_named_child(p, 0) : field(p, "name");
        char nm[48];
        if (!text(c, name, nm, sizeof nm))
            continue;
        if ((int)i < skip) {
            oom_est_copy(callee->self_name, sizeof callee->self_name, nm);
            continue;
        }
        TSNode given = argument_for(c, args, na, pos, positional, nm);
        if (positional)
            pos++;
        value v = unknown();
        if (!ts_node_is_null(given))
            v = given_or_default(c, caller, given, p, callee, def, nm);
        else if (!splatted(c, caller, args, na, nm, !ts_node_is_null(field(p, "value")), &v) &&
                 !ts_node_is_null(field(p, "value")))
            v = oom_mod_eval(c, callee->parent, field(p, "value"));
        oom_mod_set_var(callee, nm, &v);
    }
}

/* Whether the instance's optimizers train self.<name>: true when it made
 * none (nothing tells), or one over all its parameters. */
static bool trained_attr(const frame *self, const char *name)
{
    if (self->ntrained == 0 || self->trains_all)
        return true;
    for (int i = 0; i < self->ntrained; i++)
        if (strcmp(self->trained[i], name) == 0)
            return true;
    return false;
}

/* The parameters a finished instance holds: every self.<name> that is a
 * module or a parameter (paths into a ModuleDict are only for tied weights).
 * A module no optimizer of the instance trains while another is trained (a
 * target network, `self.actor_target = copy.deepcopy(self.actor)`) has
 * weights but no gradients or optimizer states, and its forwards build no
 * graph: it counts as buffers at fp32. */
static value instance_total(frame *self)
{
    value v = module_value();
    for (size_t i = 0; i < self->nattrs; i++) {
        mod m;
        if (strchr(self->attrs[i].name, '.') || self->attrs[i].v.plain || !oom_mod_as_module(&self->attrs[i].v, &m))
            continue;
        if (!trained_attr(self, self->attrs[i].name)) {
            mod copy = {.buffers = m.buffers + 4 * m.params, .untrained = m.untrained + m.params};
            m = copy;
        }
        oom_mod_add(&v.m, &m);
    }
    return v;
}

/* What the provenance names for a holder: the class of the one module it
 * sets on self (Informer, built by Exp_Informer), else the holder itself
 * (an agent's actor and critic). */
static TSNode held_module_class(frame *self, TSNode cls)
{
    int modules = 0;
    TSNode made = cls;
    for (size_t i = 0; i < self->nattrs; i++) {
        const value *a = &self->attrs[i].v;
        if (a->kind == V_MODULE && !strchr(self->attrs[i].name, '.') && a->m.params > 0) {
            modules++;
            made = is(a->made, "class_definition") ? a->made : cls;
        }
    }
    return modules == 1 ? made : cls;
}

/* Runs __init__ (or the first base's, when the class has none) on `self`. */
static void run_init(ctx *c, frame *caller, TSNode call, TSNode cls, frame *self)
{
    TSNode init = oom_mod_class_body_function(c, cls, "__init__");
    if (ts_node_is_null(init)) {
        TSNode base = oom_mod_script_base(c, cls);
        char layer[48];
        if (!ts_node_is_null(base) && c->depth < MAX_DEPTH) {
            c->depth++;
            run_init(c, caller, call, base, self);
            c->depth--;
        } else if (oom_mod_torch_layer_base(c, cls, layer, sizeof layer)) { /* the layer itself, as called */
            value v = oom_mod_nn_layer(c, caller, call, layer);
            oom_mod_set_attr(self, "__base__", &v);
        }
        return;
    }
    frame *body = oom_mod_frame_new(c, NULL);
    body->inst = self;
    body->cls = cls;
    bind_parameters(c, caller, call, init, body, 1);
    c->depth++;
    exec_block(c, body, field(init, "body"));
    c->depth--;
}

/* Dataclass fields: the class body's `name: type = default`, in order,
 * given positionally or by keyword. */
static void bind_fields(ctx *c, frame *caller, TSNode call, TSNode cls, frame *obj)
{
    const oom_nodes *L = layout_of(c, cls);
    uint32_t at = oom_nodes_find(L, field(cls, "body"));
    if (at == UINT32_MAX)
        return;
    int pos = 0;
    for (uint32_t k = at + 1; k < L->items[at].end; k = L->items[k].end) {
        TSNode s = L->items[k].node;
        TSNode a = is(s, "expression_statement") ? ts_node_named_child(s, 0) : OOM_EST_NULL_NODE;
        char nm[48];
        if (!is(a, "assignment") || !is(field(a, "left"), "identifier") || !text(c, field(a, "left"), nm, sizeof nm))
            continue;
        bool annotated = !ts_node_is_null(field(a, "type"));
        TSNode given = annotated ? oom_mod_arg(c, call, pos++, nm) : OOM_EST_NULL_NODE;
        TSNode dflt = field(a, "right");
        value v = !ts_node_is_null(given) ? oom_mod_eval(c, caller, given)
                  : ts_node_is_null(dflt) ? unknown()
                                          : oom_mod_eval(c, NULL, dflt);
        oom_mod_set_attr(obj, nm, &v);
    }
}

value oom_mod_instantiate(ctx *c, frame *caller, TSNode call, TSNode cls)
{
    if (c->depth >= MAX_DEPTH) {
        oom_mod_unresolved(c, call, "classes nested too deeply");
        return unknown();
    }
    frame *self = oom_mod_frame_new(c, NULL);
    self->cls = cls; /* type(self): where self.method() is looked up */
    c->depth++;
    bool module = oom_mod_is_module_class(c, cls, 0);
    if (!module) /* a config object: its fields, then what __init__ sets */
        bind_fields(c, caller, call, cls, self);
    run_init(c, caller, call, cls, self);
    c->depth--;
    if (module) {
        value m = instance_total(self);
        m.made = cls;
        return m;
    }
    value v = unknown();
    v.kind = V_OBJECT;
    v.obj = self;
    v.m = instance_total(self).m; /* a holder's models (an experiment's self.model) */
    v.made = held_module_class(self, cls);
    return v;
}

static bool eval_forwarded(ctx *c, frame *caller, TSNode call, TSNode def, TSNode e, int depth, value *out);

/* ---- functions and methods of the script ------------------------------- */

/* A function of the script called while building: its body runs with the
 * arguments bound, and its first `return` is the value. */
value oom_mod_call_function(ctx *c, frame *caller, TSNode call, TSNode def, frame *closure)
{
    if (c->depth >= MAX_DEPTH) {
        oom_mod_unresolved(c, call, "calls nested too deeply");
        return unknown();
    }
    value forwarded;
    if (eval_forwarded(c, caller, call, def, OOM_EST_NULL_NODE, 0, &forwarded))
        return forwarded;
    frame *body = oom_mod_frame_new(c, closure);
    bind_parameters(c, caller, call, def, body, 0);
    c->depth++;
    exec_block(c, body, field(def, "body"));
    c->depth--;
    return body->returned ? body->ret : unknown();
}

/* Whether every argument of call `e` passes the wrapper's own *args or
 * **kwargs on as they came. */
static bool passes_through(const ctx *c, TSNode def, TSNode e)
{
    TSNode ps[4], as[4];
    size_t np = oom_mod_kids(c, field(def, "parameters"), ps, 4), na = oom_mod_kids(c, field(e, "arguments"), as, 4);
    if (na == 0)
        return false;
    for (size_t i = 0; i < na; i++) {
        char a[48], p[48];
        bool found = false;
        if (!(is(as[i], "list_splat") || is(as[i], "dictionary_splat")) || !text(c, ts_node_named_child(as[i], 0), a, sizeof a))
            return false;
        for (size_t k = 0; k < np && !found; k++)
            found = is(ps[k], is(as[i], "list_splat") ? "list_splat_pattern" : "dictionary_splat_pattern") &&
                    text(c, ts_node_named_child(ps[k], 0), p, sizeof p) && strcmp(a, p) == 0;
        if (!found)
            return false;
    }
    return true;
}

/* A wrapper that only forwards its arguments (`def WNConv1d(*args,
 * **kwargs): return weight_norm(nn.Conv1d(*args, **kwargs))`): what it
 * returns is built from the caller's own arguments, read in the caller's
 * frame, as if the caller had called the inner callable itself. `e` is the
 * returned expression being read (null: find the wrapper's one return);
 * false when `def` is no such wrapper. */
static bool eval_forwarded(ctx *c, frame *caller, TSNode call, TSNode def, TSNode e, int depth, value *out)
{
    if (ts_node_is_null(e)) {
        TSNode ps[4], body[3];
        size_t np = oom_mod_kids(c, field(def, "parameters"), ps, 4), nb = oom_mod_kids(c, field(def, "body"), body, 3);
        for (size_t i = 0; i < np; i++)
            if (!is(ps[i], "list_splat_pattern") && !is(ps[i], "dictionary_splat_pattern"))
                return false;
        size_t at = nb > 1 && is(body[0], "expression_statement") && is(ts_node_named_child(body[0], 0), "string");
        if (np == 0 || nb != at + 1 || !is(body[at], "return_statement"))
            return false;
        e = ts_node_named_child(body[at], 0);
    }
    if (!is(e, "call") || depth > 4)
        return false;
    TSNode fn = field(e, "function");
    oom_buf q;
    oom_buf_init(&q);
    bool named = oom_pymodel_qualname(reader_of(c, fn)->m, fn, &q);
    bool handled = false;
    if (passes_through(c, def, e)) {
        value callee = oom_mod_eval(c, NULL, fn);
        handled = true;
        if (callee.kind == V_CLASS)
            *out = oom_mod_instantiate(c, caller, call, callee.node);
        else if (callee.kind == V_FUNC)
            *out = oom_mod_call_function(c, caller, call, callee.node, callee.obj);
        else if (named)
            *out = oom_mod_eval_named_call(c, caller, call, q.data);
        else
            handled = false;
    } else if (named && (oom_mod_is_weight_norm(q.data) || strcmp(q.data, "torch.nn.utils.spectral_norm") == 0 ||
                         strcmp(q.data, "torch.nn.utils.parametrizations.spectral_norm") == 0)) {
        TSNode inner = oom_mod_arg(c, e, 0, "module");
        handled = eval_forwarded(c, caller, call, def, inner, depth + 1, out);
        if (handled && oom_mod_is_weight_norm(q.data))
            oom_mod_add_weight_norm(c, caller, inner, call, out);
    }
    oom_buf_free(&q);
    return handled;
}

/* Runs a method on the instance `f` builds (`self._make_layer(...)`). */
value oom_mod_run_method(ctx *c, frame *f, TSNode call, TSNode def, TSNode cls)
{
    frame *b = oom_mod_builder(f);
    if (c->depth >= MAX_DEPTH) {
        oom_mod_unresolved(c, call, "calls nested too deeply");
        return unknown();
    }
    frame *body = oom_mod_frame_new(c, NULL);
    body->inst = b->inst;
    body->cls = cls;
    bind_parameters(c, f, call, def, body, 1);
    c->depth++;
    exec_block(c, body, field(def, "body"));
    c->depth--;
    return body->returned ? body->ret : unknown();
}

/* ---- statements ----------------------------------------------------------- */

/* A statement (a branch, a loop body) that builds part of the model: it sets
 * an attribute of self, adds to a list, or calls torch.nn. A condition or a
 * loop that cannot be read only matters for these. */
static bool builds_model(const ctx *c, frame *f, TSNode n)
{
    const oom_nodes *L = layout_of(c, n);
    uint32_t at = oom_nodes_find(L, n);
    if (at == UINT32_MAX)
        return true;
    for (uint32_t k = at; k < L->items[at].end; k++) {
        TSNode x = L->items[k].node;
        if (is(x, "assignment") || is(x, "augmented_assignment")) {
            TSNode left = field(x, "left");
            if (is(left, "attribute") && oom_mod_is_self(c, f, field(left, "object")))
                return true;
        } else if (is(x, "call")) {
            TSNode fn = field(x, "function");
            char m[24];
            if (is(fn, "attribute") && text(c, field(fn, "attribute"), m, sizeof m) &&
                (strcmp(m, "append") == 0 || strcmp(m, "extend") == 0 || strcmp(m, "insert") == 0 ||
                 strcmp(m, "add_module") == 0 || strcmp(m, "register_parameter") == 0))
                return true;
            oom_buf q;
            oom_buf_init(&q);
            bool nn = oom_pymodel_qualname(reader_of(c, fn)->m, fn, &q) && oom_str_starts_with(q.data, "torch.nn.") &&
                      !oom_str_starts_with(q.data, "torch.nn.init.") &&
                      !oom_str_starts_with(q.data, "torch.nn.functional.");
            oom_buf_free(&q);
            if (nn)
                return true;
        }
    }
    return false;
}

/* self.decoder.weight = self.encoder.weight: one tensor in two places,
 * which parameters() counts once. The owner's own weight is gone. */
static void tie_weight(ctx *c, frame *b, TSNode left, TSNode owner_node)
{
    char owner[96];
    size_t self_len = strlen(b->self_name);
    if (!text(c, owner_node, owner, sizeof owner) || strncmp(owner, b->self_name, self_len) != 0 ||
        owner[self_len] != '.')
        return;
    const char *path = owner + self_len + 1;
    var *tied = oom_mod_find_var(b->inst->attrs, b->inst->nattrs, path);
    if (!tied || tied->v.kind != V_MODULE || tied->v.m.weight <= 0) {
        oom_mod_unresolved(c, left, "a tied weight");
        return;
    }
    char top[96];
    oom_est_copy(top, sizeof top, path);
    char *dot = strchr(top, '.');
    if (dot)
        *dot = '\0';
    var *whole = dot ? oom_mod_find_var(b->inst->attrs, b->inst->nattrs, top) : tied;
    if (whole && whole->v.kind == V_MODULE) {
        whole->v.m.params -= tied->v.m.weight;
        tied->v.m.weight = 0;
    }
}

/* Where a module named by `object` is kept: `self.backbone` on the
 * instance being built, or a local `model`; NULL when it is no module. */
static value *stored_module(const ctx *c, frame *f, TSNode object)
{
    char name[48];
    var *v = NULL;
    frame *b = oom_mod_builder(f);
    if (is(object, "attribute") && b && oom_mod_is_self(c, f, field(object, "object")) &&
        text(c, field(object, "attribute"), name, sizeof name))
        v = oom_mod_find_var(b->inst->attrs, b->inst->nattrs, name);
    else if (name_of(c, object, name, sizeof name))
        for (frame *k = f; k && !v; k = k->parent)
            v = oom_mod_find_var(k->vars, k->nvars, name);
    return v && v->v.kind == V_MODULE ? &v->v : NULL;
}

/* model.fc = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), model.fc): the
 * library model's classifier gives way to what replaces it (which may hold
 * the old one again: it was counted on the right-hand side). */
static void replace_head(ctx *c, value *held, TSNode right, const value *v)
{
    mod m;
    if (!oom_mod_as_module(v, &m)) {
        oom_mod_unresolved(c, right, "a module oomlint cannot size");
        return;
    }
    held->m.params += m.params - held->m.head_params;
    held->m.buffers += m.buffers;
    held->m.head[0] = '\0';
}

/* self.<name> = value: a module, parameter or list replaces what the name
 * held; a call that may be a module and cannot be read leaves the model
 * unsized. */
static void assign_attribute(ctx *c, frame *f, TSNode left, TSNode right, const value *v)
{
    char name[48];
    TSNode object = field(left, "object");
    if (!text(c, field(left, "attribute"), name, sizeof name))
        return;
    frame *b = oom_mod_builder(f);
    if (b && oom_mod_is_self(c, f, object)) {
        if (v->kind == V_UNKNOWN && v->maybe_module)
            oom_mod_unresolved(c, ts_node_is_null(v->node) ? right : v->node, "a module oomlint cannot size");
        oom_mod_set_attr(b->inst, name, v);
        for (int k = 0; v->kind == V_MODULE && k < v->m.nkids; k++) { /* self.transformer.wte */
            char path[96];
            value kid = module_value();
            kid.m.weight = v->m.kids[k].weight;
            snprintf(path, sizeof path, "%s.%s", name, v->m.kids[k].name);
            oom_mod_set_attr(b->inst, path, &kid);
        }
        return;
    }
    if (b && strcmp(name, "weight") == 0 && is(object, "attribute") && is(right, "attribute")) {
        tie_weight(c, b, left, object);
        return;
    }
    value *held = stored_module(c, f, object);
    if (held && held->m.head[0] && strcmp(name, held->m.head) == 0) {
        replace_head(c, held, right, v);
        return;
    }
    value o = oom_mod_eval(c, f, object); /* `config.hidden_size = 768` on a config object */
    if (o.kind == V_OBJECT && o.obj) {
        oom_mod_set_attr(o.obj, name, v);
        return;
    }
    char held_name[48];
    var *options = NULL; /* `opt.n_input_channels = 3` on the parsed options a local holds */
    if (name_of(c, object, held_name, sizeof held_name))
        for (frame *k = f; k && !options; k = k->parent)
            options = oom_mod_find_var(k->vars, k->nvars, held_name);
    if (options && options->v.kind == V_ARGS) {
        if (!options->v.obj)
            options->v.obj = oom_mod_frame_new(c, NULL);
        oom_mod_set_attr(options->v.obj, name, v);
    }
}

static void assign(ctx *c, frame *f, TSNode left, TSNode right, const value *v)
{
    if (is(left, "attribute")) {
        assign_attribute(c, f, left, right, v);
    } else if (is(left, "identifier")) {
        oom_mod_bind_target(c, f, left, v);
    } else if (is(left, "pattern_list") || is(left, "tuple_pattern")) {
        TSNode ls[MAX_INTS], rs[MAX_INTS];
        size_t nl = oom_mod_kids(c, left, ls, MAX_INTS);
        size_t nr = is(right, "expression_list") || is(right, "tuple") ? oom_mod_kids(c, right, rs, MAX_INTS) : 0;
        for (size_t i = 0; i < nl; i++) {
            value one = nr == nl ? oom_mod_eval(c, f, rs[i]) : unknown();
            if (nr != nl && v->kind == V_INTS && (size_t)v->nints == nl)
                one = int_value(v->ints[i]);
            else if (nr != nl && v->items) /* model, optimizer = build(...) */
                one = oom_mod_item(v, i);
            assign(c, f, ls[i], nr == nl ? rs[i] : right, &one);
        }
    }
}

static void exec_assignment(ctx *c, frame *f, TSNode a)
{
    TSNode right = field(a, "right");
    if (ts_node_is_null(right))
        return; /* `x: int` */
    value v;
    if (is(right, "assignment")) { /* a = b = value */
        exec_assignment(c, f, right);
        v = oom_mod_eval(c, f, field(right, "left"));
    } else {
        v = oom_mod_eval(c, f, right);
    }
    assign(c, f, field(a, "left"), right, &v);
}

static void exec_augmented(ctx *c, frame *f, TSNode a)
{
    char op[4];
    TSNode left = field(a, "left"), right = field(a, "right");
    if (!text(c, field(a, "operator"), op, sizeof op) || strlen(op) < 2)
        return;
    op[strlen(op) - 1] = '\0';
    value l = oom_mod_eval(c, f, left), r = oom_mod_eval(c, f, right);
    value v;
    if (strcmp(op, "+") == 0 && (l.kind == V_MODULE || l.kind == V_INTS)) {
        v = l;
        oom_mod_list_extend(&v, &r);
    } else {
        v = oom_mod_arithmetic(&l, &r, op);
    }
    assign(c, f, left, right, &v);
}

/* layers.append(m), layers.extend([...]), self.blocks.append(m). */
static void exec_list_method(ctx *c, frame *f, TSNode call, TSNode object, const char *method)
{
    value list = oom_mod_eval(c, f, object);
    TSNode item_node = oom_mod_arg(c, call, strcmp(method, "insert") == 0 ? 1 : 0, NULL);
    value item = oom_mod_eval(c, f, item_node);
    if (method[0] == 'e')
        oom_mod_list_extend(&list, &item);
    else
        oom_mod_list_add(&list, &item);
    assign(c, f, object, item_node, &list);
}

/* self.add_module("x", m), self.register_parameter("p", ...),
 * self.register_buffer("b", t), setattr(self, "x", m): a new attribute. */
static void exec_register(ctx *c, frame *f, TSNode value_node, bool buffer)
{
    frame *b = oom_mod_builder(f);
    value v = oom_mod_eval(c, f, value_node);
    if (buffer) { /* its bytes, fp32 */
        value buf = module_value();
        if (v.kind == V_TENSOR)
            buf.m.buffers = 4 * oom_mod_product(v.ints, v.nints);
        v = buf;
    } else if (v.kind == V_UNKNOWN && v.maybe_module) {
        oom_mod_unresolved(c, value_node, "a module oomlint cannot size");
    }
    char name[48];
    snprintf(name, sizeof name, "__added_%zu", b->inst->nattrs);
    oom_mod_set_attr(b->inst, name, &v);
}

/* super().__init__(...): the base class of the script builds its part. */
static void exec_super_init(ctx *c, frame *f, TSNode call)
{
    frame *b = oom_mod_builder(f);
    TSNode base = oom_mod_script_base(c, b->cls);
    char layer[48];
    if (ts_node_is_null(base) && oom_mod_torch_layer_base(c, b->cls, layer, sizeof layer)) {
        /* class Net(nn.Sequential): super().__init__(...) builds the layer */
        value v = oom_mod_nn_layer(c, f, call, layer);
        oom_mod_set_attr(b->inst, "__base__", &v);
        return;
    }
    TSNode init = ts_node_is_null(base) ? base : oom_mod_find_method(c, base, "__init__");
    if (ts_node_is_null(init) || c->depth >= MAX_DEPTH)
        return;
    frame *body = oom_mod_frame_new(c, NULL);
    body->inst = b->inst;
    body->cls = base;
    bind_parameters(c, f, call, init, body, 1);
    c->depth++;
    exec_block(c, body, field(init, "body"));
    c->depth--;
}

/* A call as a statement: list methods, registrations, super().__init__;
 * other calls run for what they do to lists and self (a helper method). */
static void exec_call(ctx *c, frame *f, TSNode call)
{
    TSNode fn = field(call, "function");
    char method[32];
    frame *b = oom_mod_builder(f);
    if (is(fn, "attribute") && text(c, field(fn, "attribute"), method, sizeof method)) {
        TSNode object = field(fn, "object");
        if (strcmp(method, "append") == 0 || strcmp(method, "extend") == 0 || strcmp(method, "insert") == 0) {
            exec_list_method(c, f, call, object, method);
            return;
        }
        if (b && oom_mod_is_self(c, f, object) &&
            (strcmp(method, "add_module") == 0 || strcmp(method, "register_module") == 0 ||
             strcmp(method, "register_parameter") == 0 || strcmp(method, "register_buffer") == 0)) {
            exec_register(c, f, oom_mod_arg(c, call, 1, NULL), strcmp(method, "register_buffer") == 0);
            return;
        }
        if (b && strcmp(method, "__init__") == 0 && is(object, "call")) {
            exec_super_init(c, f, call);
            return;
        }
    }
    char fname[16];
    if (b && text(c, fn, fname, sizeof fname) && strcmp(fname, "setattr") == 0 &&
        oom_mod_is_self(c, f, oom_mod_arg(c, call, 0, NULL))) {
        exec_register(c, f, oom_mod_arg(c, call, 2, NULL), false);
        return;
    }
    oom_mod_eval(c, f, call);
}

static void exec_if(ctx *c, frame *f, TSNode s)
{
    value cond = oom_mod_eval(c, f, field(s, "condition"));
    int on;
    if (!oom_mod_truth(&cond, &on)) {
        if (builds_model(c, f, s))
            oom_mod_unresolved(c, field(s, "condition"), "a condition the layers depend on");
        return;
    }
    if (on) {
        exec_block(c, f, field(s, "consequence"));
        return;
    }
    TSNode parts[64];
    size_t n = oom_mod_kids(c, s, parts, 64);
    for (size_t i = 0; i < n; i++) {
        if (is(parts[i], "elif_clause")) {
            value ec = oom_mod_eval(c, f, field(parts[i], "condition"));
            int eon;
            if (!oom_mod_truth(&ec, &eon)) {
                if (builds_model(c, f, parts[i]))
                    oom_mod_unresolved(c, field(parts[i], "condition"), "a condition the layers depend on");
                return;
            }
            if (eon) {
                exec_block(c, f, field(parts[i], "consequence"));
                return;
            }
        } else if (is(parts[i], "else_clause")) {
            exec_block(c, f, field(parts[i], "body"));
            return;
        }
    }
}

static void exec_for(ctx *c, frame *f, TSNode s)
{
    value *items = oom_xcalloc(MAX_ITER, sizeof *items);
    long long n = oom_mod_iterate(c, f, field(s, "right"), items, MAX_ITER);
    if (n < 0 && builds_model(c, f, field(s, "body")))
        oom_mod_unresolved(c, field(s, "right"), "what a loop that builds layers runs over");
    for (long long i = 0; i < n && !f->returned && !c->why[0]; i++) {
        oom_mod_bind_target(c, f, field(s, "left"), &items[i]);
        exec_block(c, f, field(s, "body"));
    }
    free(items);
}

static void exec_statement(ctx *c, frame *f, TSNode s)
{
    const char *t = ts_node_type(s);
    if (strcmp(t, "expression_statement") == 0) {
        TSNode e = ts_node_named_child(s, 0);
        if (is(e, "assignment"))
            exec_assignment(c, f, e);
        else if (is(e, "augmented_assignment"))
            exec_augmented(c, f, e);
        else if (is(e, "call"))
            exec_call(c, f, e);
    } else if (strcmp(t, "if_statement") == 0) {
        exec_if(c, f, s);
    } else if (strcmp(t, "for_statement") == 0) {
        exec_for(c, f, s);
    } else if (strcmp(t, "while_statement") == 0) {
        if (builds_model(c, f, s))
            oom_mod_unresolved(c, field(s, "condition"), "a while loop that builds layers");
    } else if (strcmp(t, "with_statement") == 0) {
        exec_block(c, f, field(s, "body"));
    } else if (strcmp(t, "try_statement") == 0) { /* the run that raises nothing: body, else, finally */
        exec_block(c, f, field(s, "body"));
        TSNode parts[16];
        size_t n = oom_mod_kids(c, s, parts, 16);
        for (size_t i = 0; i < n && !f->returned; i++)
            if (is(parts[i], "else_clause") || is(parts[i], "finally_clause"))
                exec_block(c, f, is(parts[i], "else_clause") ? field(parts[i], "body") : ts_node_named_child(parts[i], 0));
    } else if (strcmp(t, "return_statement") == 0) {
        TSNode e = ts_node_named_child(s, 0);
        f->ret = ts_node_is_null(e) ? unknown() : oom_mod_eval(c, f, e);
        if (ts_node_is_null(e))
            f->ret.kind = V_NONE;
        f->returned = true;
    } else if (strcmp(t, "function_definition") == 0 || strcmp(t, "decorated_definition") == 0) {
        TSNode def = strcmp(t, "function_definition") == 0 ? s : field(s, "definition");
        char nm[48];
        if (is(def, "function_definition") && text(c, field(def, "name"), nm, sizeof nm)) {
            value v = unknown();
            v.kind = V_FUNC;
            v.node = def;
            v.obj = f;
            oom_mod_set_var(f, nm, &v);
        }
    }
}

static void exec_block(ctx *c, frame *f, TSNode block)
{
    const oom_nodes *L = layout_of(c, block);
    uint32_t at = ts_node_is_null(block) ? UINT32_MAX : oom_nodes_find(L, block);
    if (at == UINT32_MAX)
        return;
    for (uint32_t k = at + 1; k < L->items[at].end && !f->returned; k = L->items[k].end) {
        TSNode s = L->items[k].node;
        if (!ts_node_is_named(s) || is(s, "comment"))
            continue;
        if (++c->steps > MAX_STEPS) {
            oom_mod_unresolved(c, s, "more work than oomlint does for one model");
            return;
        }
        exec_statement(c, f, s);
    }
}

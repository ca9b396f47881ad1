/* estimate/modules_expr: one expression of the code that builds a model,
 * as Python would evaluate it: literals, names (frames, the file's own
 * definitions, imports, module-level values and settings' defaults),
 * attributes (self, objects, a class's constants, parsed options),
 * operators and comparisons, subscripts, and calls, handed to the file that
 * knows the callee (modules_run.c, modules_library.c, modules_lists.c).
 * Reached through ctx.eval_node, never called up the chain. */
#include <stdlib.h>
#include <string.h>

#include "modules.h"

/* A setting's default (argparse, dataclass field, module-level name). */
static value from_setting(const oom_est_reader *r, const oom_est_setting *s)
{
    long long n;
    if (oom_est_setting_int(r, s, &n))
        return int_value(n);
    oom_buf str;
    oom_buf_init(&str);
    value v = unknown();
    if (oom_est_setting_string(r, s, &str)) {
        v.kind = V_STR;
        oom_est_copy(v.s, sizeof v.s, str.data);
    } else if (ts_node_is_null(s->value) || is(s->value, "true") || is(s->value, "false")) {
        int on = oom_est_setting_switch(r, s);
        if (on >= 0)
            v = bool_value(on);
    }
    oom_buf_free(&str);
    return v;
}

/* The value a project file binds an imported name (or module.NAME) to at
 * module level, read in that file; false when it binds none. */
static bool imported_value(ctx *c, frame *f, TSNode e, value *out)
{
    TSNode bound = c->depth < MAX_DEPTH ? oom_mod_imported_value(c, f, e) : OOM_EST_NULL_NODE;
    if (ts_node_is_null(bound))
        return false;
    c->depth++;
    *out = oom_mod_eval(c, NULL, bound);
    c->depth--;
    return true;
}

/* A parameter read where no call binds it (the model is built inside
 * `def load_model(hparams)` and read from there): the argument the
 * function's one caller in its file passes, read in the caller's place;
 * null for a method, for several callers or none. */
static TSNode caller_argument(const ctx *c, TSNode e, const char *nm)
{
    const oom_nodes *L = layout_of(c, e);
    uint32_t up = oom_nodes_find(L, e);
    while (up != UINT32_MAX && !is(L->items[up].node, "function_definition"))
        up = L->items[up].parent;
    if (up == UINT32_MAX)
        return OOM_EST_NULL_NODE;
    TSNode fn = L->items[up].node;
    uint32_t owner = L->items[up].parent;
    char name[64], called[64];
    int pos;
    bool method = owner != UINT32_MAX && is(L->items[owner].node, "block") && L->items[owner].parent != UINT32_MAX &&
                  is(L->items[L->items[owner].parent].node, "class_definition");
    if (method || ts_node_is_null(oom_est_find_parameter(reader_of(c, fn), fn, nm, &pos)) ||
        !text(c, field(fn, "name"), name, sizeof name))
        return OOM_EST_NULL_NODE;
    TSNode found = OOM_EST_NULL_NODE;
    int callers = 0;
    for (uint32_t k = 0; k < L->len && callers < 2; k++) {
        TSNode x = L->items[k].node;
        if (!is(x, "call") || !name_of(c, field(x, "function"), called, sizeof called) || strcmp(called, name) != 0 ||
            (k > up && k < L->items[up].end))
            continue;
        callers++;
        found = oom_mod_arg(c, x, pos, nm);
    }
    return callers == 1 ? found : OOM_EST_NULL_NODE;
}

static value eval_identifier(ctx *c, frame *f, TSNode e)
{
    char nm[48];
    if (!name_of(c, e, nm, sizeof nm))
        return unknown();
    const value *known = oom_mod_lookup(f, nm);
    if (known)
        return *known;
    view *here = view_of(c, e);
    const TSNode *def = oom_mod_lookup_named(here->classes, here->nclasses, nm);
    value v = unknown();
    if (def) {
        v.kind = V_CLASS;
        v.node = *def;
        return v;
    }
    def = oom_mod_lookup_named(here->functions, here->nfunctions, nm);
    if (def) {
        v.kind = V_FUNC;
        v.node = *def;
        return v;
    }
    TSNode imported = oom_mod_imported_definition(c, f, e);
    if (!ts_node_is_null(imported)) {
        v.kind = is(imported, "class_definition") ? V_CLASS : V_FUNC;
        v.node = imported;
        return v;
    }
    value held;
    if (imported_value(c, f, e, &held)) /* `from text.symbols import symbols`: its list, read there */
        return held;
    def = oom_mod_lookup_named(here->aliases, here->naliases, nm); /* Exp = Exp_Informer */
    if (def && !ts_node_is_null(*def) && c->depth < MAX_DEPTH) {
        c->depth++;
        v = oom_mod_eval(c, NULL, *def);
        c->depth--;
        if (v.kind == V_CLASS || v.kind == V_FUNC)
            return v;
    }
    TSNode bound = oom_pymodel_value_of(here->r->m, e, 0);
    if (ts_node_is_null(bound)) /* a global the module binds after the function (configs.c) */
        bound = oom_est_global_value(c->configs, here->r, here->layout, e);
    if (ts_node_is_null(bound)) /* `config = CONFIGS[name]` with CONFIGS imported: the subscript, read here */
        bound = oom_pymodel_bound_value(here->r->m, e);
    /* a parameter no call binds here: what its one caller passes, before
     * any option of the same name (`def train(..., hparams)` is not --hparams) */
    TSNode passed = ts_node_is_null(bound) && c->depth < MAX_DEPTH ? caller_argument(c, e, nm) : OOM_EST_NULL_NODE;
    if (!ts_node_is_null(passed)) {
        c->depth++;
        v = oom_mod_eval(c, NULL, passed);
        c->depth--;
    } else if (!ts_node_is_null(bound) && !ts_node_eq(bound, e) && !is(bound, "identifier") && c->depth < MAX_DEPTH) {
        c->depth++;
        v = oom_mod_eval(c, NULL, bound);
        c->depth--;
    } else {
        const oom_est_setting *s = oom_est_setting_named(here->r, nm);
        if (s)
            return from_setting(here->r, s);
    }
    if (v.kind == V_UNKNOWN && oom_est_holds_arguments(here->r, e)) {
        /* `args = parser.parse_args()`: a value that can travel into a
         * class of another file, which reads its options (`args.emb_dims`) */
        v = unknown();
        v.kind = V_ARGS;
        v.args = here->r;
    }
    return v;
}

static value eval_attribute(ctx *c, frame *f, TSNode e)
{
    TSNode object = field(e, "object");
    char attr[48];
    if (!text(c, field(e, "attribute"), attr, sizeof attr))
        return unknown();
    frame *holder = NULL;
    TSNode imported = oom_mod_is_self(c, f, object) ? OOM_EST_NULL_NODE : oom_mod_imported_definition(c, f, e);
    if (!ts_node_is_null(imported)) { /* `models.ResNet` after `import models` */
        value v = unknown();
        v.kind = is(imported, "class_definition") ? V_CLASS : V_FUNC;
        v.node = imported;
        return v;
    }
    value held;
    if (!oom_mod_is_self(c, f, object) && imported_value(c, f, e, &held)) /* `cmudict.valid_symbols` */
        return held;
    if (oom_mod_is_self(c, f, object)) {
        holder = oom_mod_builder(f)->inst;
    } else if (is(object, "identifier") || is(object, "attribute")) {
        value o = oom_mod_eval(c, f, object);
        if (o.kind == V_OBJECT)
            holder = o.obj;
        if (o.kind == V_MODULE && o.m.head[0] && strcmp(attr, o.m.head) == 0) /* backbone.fc */
            return oom_mod_library_head(&o);
        if (o.kind == V_MODULE && o.m.in_features > 0 && strcmp(attr, "in_features") == 0)
            return int_value(o.m.in_features);
        if (o.kind == V_MODULE && o.m.out_features > 0 && strcmp(attr, "out_features") == 0)
            return int_value(o.m.out_features);
        TSNode in_class = o.kind == V_CLASS ? oom_est_class_attribute(reader_of(c, o.node), o.node, attr) : OOM_EST_NULL_NODE;
        if (!ts_node_is_null(in_class)) /* `block.expansion`: BasicBlock's `expansion = 1` */
            return oom_mod_eval(c, NULL, in_class);
        var *set = o.kind == V_ARGS && o.obj ? oom_mod_find_var(o.obj->attrs, o.obj->nattrs, attr) : NULL;
        if (set) /* set on the options after parsing */
            return set->v;
        const oom_est_setting *s = o.kind == V_ARGS ? oom_est_setting_named(o.args, attr) : NULL;
        if (s && s->kind != OOM_SETTING_MODULE)
            return from_setting(o.args, s);
    }
    if (holder) {
        var *v = oom_mod_find_var(holder->attrs, holder->nattrs, attr);
        if (v)
            return v->v;
        /* not set on the instance: a class attribute of type(self) or a base
         * (Bottleneck's `expansion = 4`, read as self.expansion) */
        TSNode k = holder->cls;
        for (int depth = 0; depth < 8 && !ts_node_is_null(k); depth++, k = oom_mod_script_base(c, k)) {
            TSNode in_class = oom_est_class_attribute(reader_of(c, k), k, attr);
            if (!ts_node_is_null(in_class))
                return oom_mod_eval(c, NULL, in_class);
        }
        return unknown();
    }
    const oom_est_setting *s = oom_est_setting_read_by(reader_of(c, e), e);
    return s ? from_setting(reader_of(c, e), s) : unknown();
}

static value eval_binary(ctx *c, frame *f, TSNode e)
{
    char op[4];
    value l = oom_mod_eval(c, f, field(e, "left")), r = oom_mod_eval(c, f, field(e, "right"));
    if (!text(c, field(e, "operator"), op, sizeof op))
        return unknown();
    return oom_mod_arithmetic(&l, &r, op);
}

static bool same(const value *a, const value *b, int *out)
{
    if (a->kind == V_UNKNOWN || b->kind == V_UNKNOWN)
        return false;
    if (a->kind == V_NONE || b->kind == V_NONE) {
        *out = a->kind == b->kind;
        return true;
    }
    if (numeric(a) && numeric(b)) {
        *out = as_double(a) == as_double(b);
        return true;
    }
    if (a->kind == V_STR && b->kind == V_STR) {
        *out = strcmp(a->s, b->s) == 0;
        return true;
    }
    if (a->kind == V_STR || b->kind == V_STR) { /* a string against a known other kind */
        *out = 0;
        return true;
    }
    return false;
}

/* a == b, a != b, a < b ..., a is None, a is not None: two operands only. */
static value eval_comparison(ctx *c, frame *f, TSNode e)
{
    if (ts_node_named_child_count(e) != 2)
        return unknown();
    TSNode ln = ts_node_named_child(e, 0), rn = ts_node_named_child(e, 1);
    value l = oom_mod_eval(c, f, ln), r = oom_mod_eval(c, f, rn);
    char op[16];
    uint32_t a = ts_node_end_byte(ln), b = ts_node_start_byte(rn);
    size_t n = 0;
    for (uint32_t i = a; i < b && n + 1 < sizeof op; i++)
        if (reader_of(c, e)->src->text[i] != ' ' && reader_of(c, e)->src->text[i] != '\t')
            op[n++] = reader_of(c, e)->src->text[i];
    op[n] = '\0';
    int eq;
    if (strcmp(op, "==") == 0 || strcmp(op, "is") == 0)
        return same(&l, &r, &eq) ? bool_value(eq) : unknown();
    if (strcmp(op, "!=") == 0 || strcmp(op, "isnot") == 0)
        return same(&l, &r, &eq) ? bool_value(!eq) : unknown();
    if (!numeric(&l) || !numeric(&r))
        return unknown();
    double x = as_double(&l), y = as_double(&r);
    if (strcmp(op, "<") == 0)
        return bool_value(x < y);
    if (strcmp(op, ">") == 0)
        return bool_value(x > y);
    if (strcmp(op, "<=") == 0)
        return bool_value(x <= y);
    if (strcmp(op, ">=") == 0)
        return bool_value(x >= y);
    return unknown();
}

/* sizes[:-1], dims[1:], a[::2] of a tuple of ints, as Python slices it. */
static value slice_ints(ctx *c, frame *f, const value *base, TSNode slice)
{
    long long part[3] = {0, base->nints, 1};
    bool given[3] = {false, false, false};
    int k = 0;
    uint32_t n = ts_node_child_count(slice);
    for (uint32_t i = 0; i < n && k < 3; i++) { /* children: [start] ':' [stop] [':' [step]] */
        TSNode ch = ts_node_child(slice, i);
        if (!ts_node_is_named(ch)) {
            k++;
            continue;
        }
        value x = oom_mod_eval(c, f, ch);
        if (x.kind != V_INT)
            return unknown();
        part[k] = x.i;
        given[k] = true;
    }
    long long len = base->nints, step = part[2];
    if (step == 0)
        return unknown();
    long long start = given[0] ? part[0] : (step > 0 ? 0 : len - 1);
    long long stop = given[1] ? part[1] : (step > 0 ? len : -len - 1);
    if (given[0] && start < 0)
        start += len;
    if (given[1] && stop < 0)
        stop += len;
    start = start < 0 ? (step > 0 ? 0 : -1) : start > len ? len : start;
    stop = stop < -1 ? -1 : stop > len ? len : stop;
    value v = unknown();
    v.kind = V_INTS;
    v.plain = base->plain;
    for (long long i = start; step > 0 ? i < stop : i > stop; i += step)
        if (i >= 0 && i < len && v.nints < MAX_INTS)
            v.ints[v.nints++] = base->ints[i];
    return v;
}

/* Whether a file declares command-line options (argparse's add_argument). */
static bool declares_options(const oom_est_reader *r)
{
    for (size_t i = 0; i < r->settings.len; i++)
        if (r->settings.items[i].kind == OOM_SETTING_ARGPARSE)
            return true;
    return false;
}

/* obj.get(key, default) on an object whose attributes are known: the
 * attribute, else the default (None when none is given). */
static value object_get(ctx *c, frame *f, const value *o, TSNode call)
{
    value key = oom_mod_eval(c, f, oom_mod_arg(c, call, 0, "key"));
    var *held = key.kind == V_STR ? oom_mod_find_var(o->obj->attrs, o->obj->nattrs, key.s) : NULL;
    if (held)
        return held->v;
    if (key.kind != V_STR)
        return unknown();
    TSNode dflt = oom_mod_arg(c, call, 1, "default");
    if (ts_node_is_null(dflt)) {
        value none = unknown();
        none.kind = V_NONE;
        return none;
    }
    return oom_mod_eval(c, f, dflt);
}

static value eval_call(ctx *c, frame *f, TSNode call)
{
    TSNode fn = field(call, "function");
    if (is(fn, "attribute")) {
        char method[32];
        TSNode object = field(fn, "object");
        if (!text(c, field(fn, "attribute"), method, sizeof method))
            return unknown();
        frame *b = oom_mod_builder(f);
        if (b && oom_mod_is_self(c, f, object)) {
            /* dispatched on type(self), as Python does: a base's __init__
             * calling self._build_model() runs the subclass's */
            TSNode owner = OOM_EST_NULL_NODE;
            TSNode def = oom_mod_find_method_in(c, ts_node_is_null(b->inst->cls) ? b->cls : b->inst->cls, method,
                                                &owner);
            if (!ts_node_is_null(def))
                return oom_mod_run_method(c, f, call, def, owner);
        }
        if (strcmp(method, "parse_args") == 0 && declares_options(reader_of(c, call))) {
            value a = unknown(); /* parser.parse_args() in a file that declares the options: they, as the command gives them */
            a.kind = V_ARGS;
            a.args = reader_of(c, call);
            return a;
        }
        value o = strcmp(method, "get") == 0 ? oom_mod_eval(c, f, object) : unknown();
        if (o.kind == V_OBJECT && o.obj) /* config.patches.get("grid"): the attribute, else the default */
            return object_get(c, f, &o, call);
        if (o.kind == V_CONFIG)
            return oom_mod_config_key(c, f, &o, oom_mod_arg(c, call, 0, NULL), oom_mod_arg(c, call, 1, "default"),
                                      true);
        if (oom_mod_keeps_value(method)) {
            o = oom_mod_eval(c, f, object);
            if (o.kind == V_MODULE || o.kind == V_TENSOR)
                return o;
        }
        o = oom_mod_eval(c, f, object); /* `args.arch.startswith("resnext")`, `block_name.lower()` */
        value a = ts_node_is_null(oom_mod_arg(c, call, 0, NULL)) ? unknown()
                                                                 : oom_mod_eval(c, f, oom_mod_arg(c, call, 0, NULL));
        int sm = o.kind == V_STR ? oom_est_string_method(method, o.s, a.kind == V_STR ? a.s : NULL, a.s, sizeof a.s) : -1;
        if (sm == 0 || sm == 1 || sm == 2)
            return sm == 2 ? (a.kind = V_STR, a) : bool_value(sm == 1);
    }
    oom_est_pick pk;
    TSNode def = oom_mod_picked(c, fn, &pk); /* getattr(models, args.arch)(...), MODELS[args.model](...) */
    value k = ts_node_is_null(def) && !pk.known && !ts_node_is_null(pk.key_node) ? oom_mod_eval(c, f, pk.key_node)
                                                                                 : unknown();
    char kt[48] = "name"; /* a factory's parameter bound to the name: `def build(name): return MODELS[name]()` */
    if (k.kind == V_STR && text(c, pk.key_node, kt, sizeof kt) && oom_est_pick_key(reader_of(c, fn), &pk, k.s, kt))
        def = oom_mod_picked_known(c, fn, &pk);
    if (is(def, "class_definition"))
        return oom_mod_instantiate(c, f, call, def);
    if (is(def, "function_definition"))
        return oom_mod_call_function(c, f, call, def, NULL);
    value callee = (is(fn, "identifier") || is(fn, "attribute")) ? oom_mod_eval(c, f, fn) : unknown();
    if (callee.kind == V_CLASS)
        return oom_mod_instantiate(c, f, call, callee.node);
    if (callee.kind == V_FUNC)
        return oom_mod_call_function(c, f, call, callee.node, callee.obj);
    oom_buf q;
    oom_buf_init(&q);
    value v = unknown();
    if (oom_pymodel_qualname(reader_of(c, fn)->m, fn, &q)) {
        v = oom_mod_eval_named_call(c, f, call, q.data);
    } else {
        v.maybe_module = true;
        v.node = call;
    }
    oom_buf_free(&q);
    return v;
}

/* The characters a string literal's text (escapes as written) holds:
 * `\'`, `\n`, `\x41`, `\u00e9`, `\N{...}` and octal escapes count once. */
static long long unescaped_length(const char *raw)
{
    long long n = 0;
    for (const unsigned char *p = (const unsigned char *)raw; *p; n++) {
        if (*p != '\\' || !p[1]) {
            p++;
            while ((*p & 0xC0) == 0x80) /* the rest of a UTF-8 character */
                p++;
            continue;
        }
        p++;
        int hex = *p == 'x' ? 2 : *p == 'u' ? 4 : *p == 'U' ? 8 : 0;
        if (*p == 'N' && p[1] == '{') {
            while (*p && *p != '}')
                p++;
            p += *p == '}';
        } else if (*p >= '0' && *p <= '7') {
            for (int k = 0; k < 3 && *p >= '0' && *p <= '7'; k++)
                p++;
        } else {
            p++;
            for (int k = 0; k < hex && *p; k++)
                p++;
        }
    }
    return n;
}

static value eval_literal(ctx *c, TSNode e, const char *t)
{
    value v = unknown();
    if (strcmp(t, "integer") == 0) {
        long long n;
        if (oom_pymodel_int_value(reader_of(c, e)->m, e, &n))
            v = int_value(n);
    } else if (strcmp(t, "float") == 0) {
        char buf[48], clean[48];
        size_t k = 0;
        if (text(c, e, buf, sizeof buf)) {
            for (char *p = buf; *p; p++)
                if (*p != '_')
                    clean[k++] = *p;
            clean[k] = '\0';
            v = float_value(strtod(clean, NULL));
        }
    } else if (strcmp(t, "true") == 0 || strcmp(t, "false") == 0) {
        v = bool_value(t[0] == 't');
    } else if (strcmp(t, "none") == 0) {
        v.kind = V_NONE;
    } else {
        oom_buf s;
        oom_buf_init(&s);
        if (oom_pymodel_string_value(reader_of(c, e)->m, e, &s)) {
            v = oom_mod_string(s.data);
            char quote[4] = "";
            text(c, e, quote, sizeof quote);
            if (!strchr(quote, 'r') && !strchr(quote, 'R')) /* the text as written: an escape is one character */
                v.i = unescaped_length(s.data);
        }
        oom_buf_free(&s);
    }
    return v;
}

static value eval_operator(ctx *c, frame *f, TSNode e, const char *t)
{
    value v = unknown();
    char op[4];
    int on;
    if (strcmp(t, "binary_operator") == 0)
        return eval_binary(c, f, e);
    if (strcmp(t, "comparison_operator") == 0)
        return eval_comparison(c, f, e);
    if (strcmp(t, "unary_operator") == 0) {
        value a = oom_mod_eval(c, f, field(e, "argument"));
        if (numeric(&a) && text(c, field(e, "operator"), op, sizeof op))
            v = op[0] == '-' ? (a.kind == V_FLOAT ? float_value(-a.f) : int_value(-a.i)) : a;
    } else if (strcmp(t, "not_operator") == 0) {
        value a = oom_mod_eval(c, f, field(e, "argument"));
        if (oom_mod_truth(&a, &on))
            v = bool_value(!on);
    } else if (strcmp(t, "boolean_operator") == 0) {
        value l = oom_mod_eval(c, f, field(e, "left"));
        if (oom_mod_truth(&l, &on) && text(c, field(e, "operator"), op, sizeof op))
            v = (strcmp(op, "and") == 0) == (on != 0) ? oom_mod_eval(c, f, field(e, "right")) : l;
    } else if (strcmp(t, "conditional_expression") == 0) {
        value cond = oom_mod_eval(c, f, ts_node_named_child(e, 1));
        if (oom_mod_truth(&cond, &on))
            v = oom_mod_eval(c, f, ts_node_named_child(e, on ? 0 : 2));
    }
    return v;
}

value oom_mod_eval_node(ctx *c, frame *f, TSNode e)
{
    const char *t = ts_node_type(e);
    if (strcmp(t, "integer") == 0 || strcmp(t, "float") == 0 || strcmp(t, "true") == 0 ||
        strcmp(t, "false") == 0 || strcmp(t, "none") == 0 || strcmp(t, "string") == 0 ||
        strcmp(t, "concatenated_string") == 0)
        return eval_literal(c, e, t);
    if (strcmp(t, "parenthesized_expression") == 0)
        return oom_mod_eval(c, f, ts_node_named_child(e, 0));
    if (strcmp(t, "identifier") == 0)
        return eval_identifier(c, f, e);
    if (strcmp(t, "attribute") == 0)
        return eval_attribute(c, f, e);
    if (strstr(t, "operator") || strcmp(t, "conditional_expression") == 0)
        return eval_operator(c, f, e, t);
    if (strcmp(t, "tuple") == 0 || strcmp(t, "list") == 0 || strcmp(t, "expression_list") == 0)
        return oom_mod_eval_sequence(c, f, e);
    if (strcmp(t, "list_comprehension") == 0 || strcmp(t, "generator_expression") == 0)
        return oom_mod_eval_comprehension(c, f, e);
    if (strcmp(t, "dictionary") == 0)
        return oom_mod_eval_dictionary(c, f, e);
    if (strcmp(t, "call") == 0)
        return eval_call(c, f, e);
    if (strcmp(t, "subscript") == 0) {
        value base = oom_mod_eval(c, f, field(e, "value"));
        if (base.kind == V_CONFIG)
            return oom_mod_config_key(c, f, &base, field(e, "subscript"), OOM_EST_NULL_NODE, false);
        if (base.kind == V_INTS && is(field(e, "subscript"), "slice"))
            return slice_ints(c, f, &base, field(e, "subscript"));
        value idx = oom_mod_eval(c, f, field(e, "subscript"));
        var *held = (base.kind == V_OBJECT || base.plain) && base.obj && idx.kind == V_STR
                        ? oom_mod_find_var(base.obj->attrs, base.obj->nattrs, idx.s)
                        : NULL;
        if (held) /* config.transformer["num_layers"], a dict's entry (CONFIGS[name], CONFIGS imported) */
            return held->v;
        TSNode entry = idx.kind == V_STR ? oom_est_subscript_entry(reader_of(c, e), e, idx.s) : OOM_EST_NULL_NODE;
        if (!ts_node_is_null(entry)) /* `freq_map[freq]`: a dict literal's entry */
            return oom_mod_eval(c, f, entry);
        if (base.kind == V_INTS && idx.kind == V_INT) {
            long long i = idx.i < 0 ? base.nints + idx.i : idx.i;
            if (i >= 0 && i < base.nints)
                return int_value(base.ints[i]);
        }
    }
    return unknown();
}

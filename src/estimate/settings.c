/* estimate/settings: what a script lets its user set when it runs, with the
 * default a run without flags gets. Real training scripts rarely write their
 * model and batch size into the calls that use them: they take them from
 * argparse (`from_pretrained(args.model_name_or_path)`), from the dataclasses
 * an HfArgumentParser fills (`model_args.model_name_or_path`), or from plain
 * names at module level (nanoGPT). The estimate of a run without flags is
 * an estimate on these defaults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "oomlint/library.h"
#include "oomlint/nodes.h"
#include "oomlint/lang.h"

void oom_est_walk(const oom_est_reader *r, void (*visit)(void *ctx, TSNode n), void *ctx)
{
    TSNode root = r->root;
    if (ts_node_is_null(root))
        return;
    /* the linter's layout when the file is being linted: the same nodes in
     * the same order, without the cursor's cost */
    const oom_nodes *layout = oom_pymodel_layout(r->m);
    if (layout && layout->len > 0 && ts_node_eq(layout->items[0].node, root)) {
        for (uint32_t i = 0; i < layout->len; i++)
            visit(ctx, layout->items[i].node);
        return;
    }
    /* `oomlint estimate` on its own: lay the tree out here, once */
    oom_nodes own;
    oom_nodes_init(&own);
    oom_nodes_build(&own, root);
    for (uint32_t i = 0; i < own.len; i++)
        visit(ctx, own.items[i].node);
    oom_nodes_free(&own);
}

/* ---- collecting ----------------------------------------------------------- */

static oom_est_setting *find(oom_est_settings *all, const char *name, oom_setting_kind kind)
{
    for (size_t i = 0; i < all->len; i++)
        if (all->items[i].kind == kind && strcmp(all->items[i].name, name) == 0)
            return &all->items[i];
    return NULL;
}

static oom_est_setting *add(oom_est_settings *all, const char *name, oom_setting_kind kind, TSNode at)
{
    oom_est_setting s;
    memset(&s, 0, sizeof s);
    snprintf(s.name, sizeof s.name, "%s", name);
    s.kind = kind;
    s.at = at;
    s.flag = -1;
    OOM_PUSH(all->items, all->len, all->cap, s);
    return &all->items[all->len - 1];
}

/* The default as the run sees it: names followed to their bindings
 * (`default=DEFAULT_MODEL`), `field(default=...)` unwrapped; the expression
 * itself when it cannot be followed. */
static TSNode default_value(const oom_est_reader *r, TSNode v)
{
    if (ts_node_is_null(v))
        return OOM_EST_NULL_NODE;
    TSNode followed = oom_pymodel_value_of(r->m, v, 0);
    return ts_node_is_null(followed) ? v : followed;
}

/* The string value of a keyword argument `name` of `call` into `out`. */
static bool keyword_string(const oom_est_reader *r, TSNode call, const char *name, oom_buf *out)
{
    TSNode v = oom_pymodel_keyword_value(r->m, call, name);
    return !ts_node_is_null(v) && oom_pymodel_string_value(r->m, v, out);
}

/* argparse's dest: `dest=`, else the first long option ("--batch-size" ->
 * "batch_size"), else the first option or the positional's name. The
 * spelling is the long option as the user types it. */
static bool argparse_names(const oom_est_reader *r, TSNode call, char *dest, size_t dest_size, char *spelling,
                           size_t spelling_size)
{
    TSNode args = oom_est_child(call, "arguments");
    oom_buf s;
    oom_buf_init(&s);
    dest[0] = spelling[0] = '\0';
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        if (!oom_est_type_is(a, "string") || !oom_pymodel_string_value(r->m, a, &s) || s.len == 0)
            continue;
        bool long_option = oom_str_starts_with(s.data, "--");
        if (!spelling[0] || (long_option && !oom_str_starts_with(spelling, "--")))
            snprintf(spelling, spelling_size, "%s", s.data);
    }
    const char *from = spelling;
    while (*from == '-')
        from++;
    size_t n = 0;
    for (; *from && n + 1 < dest_size; from++)
        dest[n++] = *from == '-' ? '_' : *from;
    dest[n] = '\0';
    if (keyword_string(r, call, "dest", &s) && s.len > 0)
        snprintf(dest, dest_size, "%s", s.data);
    oom_buf_free(&s);
    return dest[0] != '\0';
}

/* parser.add_argument("--bf16", action="store_true"); type=int. */
static void collect_add_argument(oom_est_reader *r, TSNode call)
{
    char dest[64], spelling[64];
    if (!argparse_names(r, call, dest, sizeof dest, spelling, sizeof spelling) ||
        find(&r->settings, dest, OOM_SETTING_ARGPARSE))
        return; /* the first declaration of a name wins, as argparse's does */
    oom_est_setting *s = add(&r->settings, dest, OOM_SETTING_ARGPARSE, call);
    snprintf(s->spelling, sizeof s->spelling, "%s", spelling);
    s->value = default_value(r, oom_pymodel_keyword_value(r->m, call, "default"));
    oom_buf action;
    oom_buf_init(&action);
    if (keyword_string(r, call, "action", &action))
        s->flag = strcmp(action.data, "store_true") == 0 ? 0 : strcmp(action.data, "store_false") == 0 ? 1 : -1;
    oom_buf_free(&action);
    char type[16];
    s->int_type = oom_est_text_of(r, oom_pymodel_keyword_value(r->m, call, "type"), type, sizeof type) &&
                  strcmp(type, "int") == 0;
}

/* Whether `call` is a decorator the library knowledge lists as declaring a
 * command-line option of the function below it (`@click.option(...)`). */
static bool is_option_decorator(const oom_est_reader *r, TSNode call)
{
    const oom_library *lib = oom_library_get();
    if (!lib || !oom_est_type_is(ts_node_parent(call), "decorator"))
        return false;
    oom_buf q;
    oom_buf_init(&q);
    bool yes = oom_pymodel_qualname(r->m, oom_est_child(call, "function"), &q) &&
               oom_library_lists(&lib->option_decorators, q.data, q.len);
    oom_buf_free(&q);
    return yes;
}

/* `@click.option("--input-model", type=str, default=X)`: the parameter is
 * the first long option's name, dashes made underscores, unless a bare name
 * is given ("model_path"); a `--x/--no-x` pair and is_flag=True are
 * switches that take no value, type=bool one that takes true or false. */
static void collect_option(oom_est_reader *r, TSNode call)
{
    char spelling[96] = "", dest[64] = "";
    TSNode args = oom_est_child(call, "arguments");
    oom_buf s;
    oom_buf_init(&s);
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        if (!oom_est_type_is(a, "string") || !oom_pymodel_string_value(r->m, a, &s) || s.len == 0)
            continue;
        if (s.data[0] != '-')
            oom_est_copy(dest, sizeof dest, s.data);
        else if (!spelling[0] || (oom_str_starts_with(s.data, "--") && !oom_str_starts_with(spelling, "--")))
            oom_est_copy(spelling, sizeof spelling, s.data);
    }
    oom_buf_free(&s);
    bool pair = strchr(spelling, '/') != NULL;
    char off[64] = "";
    if (pair) /* "--gradient-checkpointing/--no-gradient-checkpointing": the second turns it off */
        oom_est_copy(off, sizeof off, strchr(spelling, '/') + 1 + strspn(strchr(spelling, '/') + 1, " "));
    off[strcspn(off, " ")] = '\0';
    spelling[strcspn(spelling, "/ ")] = '\0';
    if (!dest[0]) { /* click's name of the parameter, as argparse's dest: "--input-model" -> "input_model" */
        size_t n = 0;
        for (const char *p = spelling + strspn(spelling, "-"); *p && n + 1 < sizeof dest; p++)
            dest[n++] = *p == '-' ? '_' : *p;
        dest[n] = '\0';
    }
    if (!dest[0] || find(&r->settings, dest, OOM_SETTING_ARGPARSE))
        return;
    oom_est_setting *o = add(&r->settings, dest, OOM_SETTING_ARGPARSE, call);
    oom_est_copy(o->spelling, sizeof o->spelling, spelling[0] ? spelling : dest);
    if (oom_str_starts_with(off, "--"))
        oom_est_copy(o->off_spelling, sizeof o->off_spelling, off);
    o->value = default_value(r, oom_pymodel_keyword_value(r->m, call, "default"));
    char text[16];
    TSNode type = oom_pymodel_keyword_value(r->m, call, "type");
    o->int_type = oom_est_text_of(r, type, text, sizeof text) && strcmp(text, "int") == 0;
    o->bool_type = oom_est_text_of(r, type, text, sizeof text) && strcmp(text, "bool") == 0;
    bool is_flag = oom_est_type_is(oom_pymodel_keyword_value(r->m, call, "is_flag"), "true");
    if (pair || is_flag)
        o->flag = 0; /* off unless its default says otherwise */
}

/* parser.set_defaults(batch_size=16): the options' defaults become these. */
static void collect_set_defaults(oom_est_reader *r, TSNode call)
{
    TSNode args = oom_est_child(call, "arguments");
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        char name[64];
        if (!oom_est_type_is(a, "keyword_argument") || !oom_est_text_of(r, oom_est_child(a, "name"), name, sizeof name))
            continue;
        oom_est_setting *s = find(&r->settings, name, OOM_SETTING_ARGPARSE);
        if (!s) {
            s = add(&r->settings, name, OOM_SETTING_ARGPARSE, call);
            snprintf(s->spelling, sizeof s->spelling, "%s", name);
        }
        s->value = default_value(r, oom_est_child(a, "value"));
        s->at = a;
        s->flag = -1;
    }
}

/* @dataclass classes, and classes that extend TrainingArguments, SFTConfig
 * and the like (HfArgumentParser fills both kinds). */
static bool is_settings_class(const oom_est_reader *r, TSNode cls)
{
    TSNode up = ts_node_parent(cls);
    for (uint32_t i = 0; oom_est_type_is(up, "decorated_definition") && i < ts_node_named_child_count(up); i++) {
        TSNode d = ts_node_named_child(up, i);
        char text[64];
        if (oom_est_type_is(d, "decorator") && oom_est_text_of(r, d, text, sizeof text) && strstr(text, "dataclass"))
            return true;
    }
    TSNode bases = oom_est_child(cls, "superclasses");
    for (uint32_t i = 0; !ts_node_is_null(bases) && i < ts_node_named_child_count(bases); i++) {
        char base[96];
        if (oom_est_text_of(r, ts_node_named_child(bases, i), base, sizeof base) &&
            (oom_str_ends_with(base, "Arguments") || oom_str_ends_with(base, "Config")))
            return true;
    }
    return false;
}

/* `name: type = default` statements of a settings class's body. */
static void collect_fields(oom_est_reader *r, TSNode cls)
{
    char owner[32];
    if (!is_settings_class(r, cls) || !oom_est_text_of(r, oom_est_child(cls, "name"), owner, sizeof owner))
        return;
    TSNode body = oom_est_child(cls, "body");
    for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); i++) {
        TSNode stmt = ts_node_named_child(body, i);
        TSNode a = oom_est_type_is(stmt, "expression_statement") ? ts_node_named_child(stmt, 0) : OOM_EST_NULL_NODE;
        char name[64];
        if (!oom_est_type_is(a, "assignment") || ts_node_is_null(oom_est_child(a, "type")) ||
            !oom_est_type_is(oom_est_child(a, "left"), "identifier") || !oom_est_text_of(r, oom_est_child(a, "left"), name, sizeof name) ||
            find(&r->settings, name, OOM_SETTING_DATACLASS))
            continue;
        oom_est_setting *s = add(&r->settings, name, OOM_SETTING_DATACLASS, a);
        snprintf(s->spelling, sizeof s->spelling, "%s.%s", owner, name);
        s->value = default_value(r, oom_est_child(a, "right"));
    }
}

/* Plain `name = value` statements at module level; the last one counts, as
 * it does when the module runs. */
static void collect_module_names(oom_est_reader *r)
{
    for (uint32_t i = 0; i < ts_node_named_child_count(r->root); i++) {
        TSNode stmt = ts_node_named_child(r->root, i);
        TSNode a = oom_est_type_is(stmt, "expression_statement") ? ts_node_named_child(stmt, 0) : OOM_EST_NULL_NODE;
        char name[64];
        if (!oom_est_type_is(a, "assignment") || ts_node_is_null(oom_est_child(a, "right")) ||
            !oom_est_type_is(oom_est_child(a, "left"), "identifier") || !oom_est_text_of(r, oom_est_child(a, "left"), name, sizeof name))
            continue;
        oom_est_setting *s = find(&r->settings, name, OOM_SETTING_MODULE);
        if (!s)
            s = add(&r->settings, name, OOM_SETTING_MODULE, a);
        snprintf(s->spelling, sizeof s->spelling, "%s", name);
        s->at = a;
        s->value = default_value(r, oom_est_child(a, "right"));
    }
}

static void visit(void *ctx, TSNode n)
{
    oom_est_reader *r = ctx;
    if (oom_est_type_is(n, "class_definition")) {
        collect_fields(r, n);
        return;
    }
    if (!oom_est_type_is(n, "call"))
        return;
    if (is_option_decorator(r, n)) {
        collect_option(r, n);
        return;
    }
    oom_est_setting flag;
    if (oom_est_flag_definition(r, n, &flag)) { /* flags.DEFINE_integer("batch_size", 128, ...) */
        if (!find(&r->settings, flag.name, OOM_SETTING_ARGPARSE))
            OOM_PUSH(r->settings.items, r->settings.len, r->settings.cap, flag);
        return;
    }
    if (!oom_est_type_is(oom_est_child(n, "function"), "attribute"))
        return;
    char method[16];
    if (!oom_est_text_of(r, oom_est_child(oom_est_child(n, "function"), "attribute"), method, sizeof method))
        return;
    if (strcmp(method, "add_argument") == 0)
        collect_add_argument(r, n);
    else if (strcmp(method, "set_defaults") == 0)
        collect_set_defaults(r, n);
}

void oom_est_settings_collect(oom_est_reader *r)
{
    oom_est_walk(r, visit, r);
    collect_module_names(r);
}

void oom_est_settings_free(oom_est_settings *s)
{
    free(s->items);
    oom_strlist_free(&s->kept);
    memset(s, 0, sizeof *s);
}

const char *oom_est_settings_keep(oom_est_settings *s, const char *text)
{
    oom_strlist_push(&s->kept, text);
    return s->kept.items[s->kept.len - 1];
}

/* ---- reading ---------------------------------------------------------------- */

const oom_est_setting *oom_est_setting_named(const oom_est_reader *r, const char *name)
{
    static const oom_setting_kind order[] = {OOM_SETTING_ARGPARSE, OOM_SETTING_DATACLASS, OOM_SETTING_MODULE};
    for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
        const oom_est_setting *s = find((oom_est_settings *)&r->settings, name, order[k]);
        if (s)
            return s;
    }
    return NULL;
}

/* Whether `object` holds parsed arguments: its name says so (`args`,
 * `model_args`, `self.args`, `opt`, `cfg`, `hparams` ...) or it is bound to a
 * call that parses them (`a = parser.parse_args()`, `get_args()`). */
static bool holds_arguments(const oom_est_reader *r, TSNode object)
{
    static const char *const words[] = {"args", "arguments", "opt", "opts", "options", "cfg", "config",
                                        "conf", "hparams", "hps", "flags", "settings", NULL};
    TSNode last = oom_est_type_is(object, "attribute") ? oom_est_child(object, "attribute") : object;
    char name[64];
    if (!oom_est_type_is(last, "identifier") || !oom_est_text_of(r, last, name, sizeof name))
        return false;
    if (oom_name_has_word(name, strlen(name), words))
        return true;
    TSNode bound = oom_est_type_is(object, "identifier") ? oom_pymodel_value_of(r->m, object, 0) : OOM_EST_NULL_NODE;
    char callee[96];
    return oom_est_type_is(bound, "call") && oom_est_text_of(r, oom_est_child(bound, "function"), callee, sizeof callee) &&
           (strstr(callee, "parse") || strstr(callee, "args"));
}

bool oom_est_holds_arguments(const oom_est_reader *r, TSNode expr)
{
    bool options = false;
    for (size_t i = 0; i < r->settings.len && !options; i++)
        options = r->settings.items[i].kind == OOM_SETTING_ARGPARSE || r->settings.items[i].kind == OOM_SETTING_DATACLASS;
    return options && (oom_est_type_is(expr, "identifier") || oom_est_type_is(expr, "attribute")) &&
           holds_arguments(r, expr);
}

/* ---- settings that reach a function as its parameters ----------------------
 * `def train(*, input_model, bf16)` under click's options, called as
 * `train(**kwargs)` from the command, then `load_model(input_model)`: a
 * parameter holds what every call of its function passes for it, and a
 * command's parameter the option of its name (click passes each option as
 * the keyword of its name). Only module-level functions, called by their
 * name in the same file: a method's calls go through objects the settings
 * do not follow. */

#define MAX_CALL_SITES 16

typedef struct {
    const oom_est_reader *r;
    char name[64];
    TSNode calls[MAX_CALL_SITES];
    size_t n;
    bool more; /* more calls than are kept: not followed */
} call_sites;

static void visit_call_site(void *ctx, TSNode n)
{
    call_sites *cs = ctx;
    char fn[64];
    if (!oom_est_type_is(n, "call") || !oom_est_type_is(oom_est_child(n, "function"), "identifier") ||
        !oom_est_text_of(cs->r, oom_est_child(n, "function"), fn, sizeof fn) || strcmp(fn, cs->name) != 0)
        return;
    if (cs->n < MAX_CALL_SITES)
        cs->calls[cs->n++] = n;
    else
        cs->more = true;
}

/* A parameter's name node, whatever its form (`x`, `x=1`, `x: int`, `x: int = 1`). */
static TSNode parameter_name(TSNode p)
{
    if (oom_est_type_is(p, "identifier"))
        return p;
    if (oom_est_type_is(p, "default_parameter") || oom_est_type_is(p, "typed_default_parameter"))
        return oom_est_child(p, "name");
    if (oom_est_type_is(p, "typed_parameter") && ts_node_named_child_count(p) > 0 &&
        oom_est_type_is(ts_node_named_child(p, 0), "identifier"))
        return ts_node_named_child(p, 0);
    return OOM_EST_NULL_NODE;
}

/* The parameter `name` of function `def`: its node, and its position when it
 * can be passed positionally (-1 after a bare `*`); null when none. */
TSNode oom_est_find_parameter(const oom_est_reader *r, TSNode def, const char *name, int *position)
{
    TSNode params = oom_est_child(def, "parameters");
    int pos = 0;
    for (uint32_t i = 0; !ts_node_is_null(params) && i < ts_node_named_child_count(params); i++) {
        TSNode p = ts_node_named_child(params, i), nm = parameter_name(p);
        char text[64];
        if (oom_est_type_is(p, "keyword_separator") || oom_est_type_is(p, "list_splat_pattern"))
            pos = -1;
        if (!ts_node_is_null(nm) && oom_est_text_of(r, nm, text, sizeof text) && strcmp(text, name) == 0) {
            *position = pos;
            return p;
        }
        if (pos >= 0 && !ts_node_is_null(nm))
            pos++;
    }
    return OOM_EST_NULL_NODE;
}

/* The name of the `**kwargs` parameter of `def`; false when it has none. */
static bool keywords_parameter(const oom_est_reader *r, TSNode def, char *out, size_t size)
{
    TSNode params = oom_est_child(def, "parameters");
    for (uint32_t i = 0; !ts_node_is_null(params) && i < ts_node_named_child_count(params); i++) {
        TSNode p = ts_node_named_child(params, i);
        if (oom_est_type_is(p, "dictionary_splat_pattern") && ts_node_named_child_count(p) > 0)
            return oom_est_text_of(r, ts_node_named_child(p, 0), out, size);
    }
    return false;
}

/* The function definition a node is in, when that function is at module
 * level (decorated or not); null otherwise. */
static TSNode module_function_around(TSNode n)
{
    TSNode up = ts_node_parent(n);
    while (!ts_node_is_null(up) && !oom_est_type_is(up, "function_definition") && !oom_est_type_is(up, "lambda"))
        up = ts_node_parent(up);
    if (!oom_est_type_is(up, "function_definition"))
        return OOM_EST_NULL_NODE;
    TSNode outer = ts_node_parent(up);
    outer = oom_est_type_is(outer, "decorated_definition") ? ts_node_parent(outer) : outer;
    return oom_est_type_is(outer, "module") ? up : OOM_EST_NULL_NODE;
}

/* Whether a decorator of `def` declares a command-line option. */
static bool is_command(const oom_est_reader *r, TSNode def)
{
    TSNode up = ts_node_parent(def);
    for (uint32_t i = 0; oom_est_type_is(up, "decorated_definition") && i < ts_node_named_child_count(up); i++) {
        TSNode d = ts_node_named_child(up, i);
        if (oom_est_type_is(d, "decorator") && ts_node_named_child_count(d) > 0 &&
            is_option_decorator(r, ts_node_named_child(d, 0)))
            return true;
    }
    return false;
}

static const oom_est_setting *read_by(const oom_est_reader *r, TSNode expr, int depth);

/* What a call passes for parameter `name` (at `position`, -1 keyword only)
 * of the function it calls: the argument, or, through `**kw` of the
 * function the call is in, that function's parameter of the same name. */
static const oom_est_setting *passed_for(const oom_est_reader *r, TSNode call, const char *name, int position,
                                         int depth);

/* The setting parameter `name` of module-level function `def` holds; `depth`
 * counts the calls followed, a bound on recursion and on long chains. */
static const oom_est_setting *parameter_setting(const oom_est_reader *r, TSNode def, const char *name, int depth)
{
    int position = -1;
    char kw[64];
    bool named = !ts_node_is_null(oom_est_find_parameter(r, def, name, &position));
    if (depth > 6 || (!named && !keywords_parameter(r, def, kw, sizeof kw)))
        return NULL;
    if (is_command(r, def)) { /* click passes every option as a keyword: a parameter of its name, or in **kwargs */
        const oom_est_setting *s = oom_est_setting_named(r, name);
        return s && s->kind != OOM_SETTING_MODULE ? s : NULL;
    }
    if (!named)
        return NULL;
    call_sites cs;
    memset(&cs, 0, sizeof cs);
    cs.r = r;
    if (!oom_est_text_of(r, oom_est_child(def, "name"), cs.name, sizeof cs.name))
        return NULL;
    oom_est_walk(r, visit_call_site, &cs);
    const oom_est_setting *found = NULL;
    for (size_t i = 0; i < cs.n && !cs.more; i++) {
        const oom_est_setting *s = passed_for(r, cs.calls[i], name, position, depth + 1);
        if (!s || (found && s != found))
            return NULL; /* a call that passes something else: the parameter holds no one setting */
        found = s;
    }
    return cs.more ? NULL : found;
}

/* `vars(args)` of the parsed options: a dict of every option by its name. */
static bool options_as_dict(const oom_est_reader *r, TSNode e)
{
    oom_buf q;
    oom_buf_init(&q);
    TSNode arg = oom_est_positional(e, 0);
    bool yes = oom_est_type_is(e, "call") && oom_pymodel_qualname(r->m, oom_est_child(e, "function"), &q) &&
               strcmp(q.data, "vars") == 0 && oom_est_holds_arguments(r, arg);
    oom_buf_free(&q);
    return yes;
}

static const oom_est_setting *passed_for(const oom_est_reader *r, TSNode call, const char *name, int position,
                                         int depth)
{
    TSNode args = oom_est_child(call, "arguments");
    int seen = 0;
    char splat[64] = "";
    bool options = false; /* `main(**vars(args))`: every option as the keyword of its name */
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        char key[64];
        if (oom_est_type_is(a, "keyword_argument")) {
            if (oom_est_text_of(r, oom_est_child(a, "name"), key, sizeof key) && strcmp(key, name) == 0)
                return read_by(r, oom_est_child(a, "value"), depth);
        } else if (oom_est_type_is(a, "dictionary_splat") && ts_node_named_child_count(a) > 0) {
            oom_est_text_of(r, ts_node_named_child(a, 0), splat, sizeof splat);
            options = options || options_as_dict(r, ts_node_named_child(a, 0));
        } else if (oom_est_type_is(a, "list_splat")) {
            return NULL; /* `f(*xs)`: which position is which is not known */
        } else if (!oom_est_type_is(a, "comment") && seen++ == position && position >= 0) {
            return read_by(r, a, depth);
        }
    }
    for (size_t i = 0; splat[0] && i < r->settings.len; i++) { /* `train(**config["train"])` (splats.c) */
        const oom_est_setting *s = &r->settings.items[i];
        if (s->kind == OOM_SETTING_CONFIG && ts_node_eq(s->at, call) && strcmp(s->name, name) == 0)
            return s;
    }
    const oom_est_setting *option = options ? oom_est_setting_named(r, name) : NULL;
    if (option && (option->kind == OOM_SETTING_ARGPARSE || option->kind == OOM_SETTING_DATACLASS))
        return option;
    TSNode caller = module_function_around(call);
    char kw[64];
    if (!splat[0] || ts_node_is_null(caller) || !keywords_parameter(r, caller, kw, sizeof kw) || strcmp(kw, splat) != 0)
        return NULL;
    return parameter_setting(r, caller, name, depth); /* `train(**kwargs)` in `def main(**kwargs)` */
}

/* The setting parameter `e` (an identifier) holds, when it is one of its
 * module-level function's parameters and the function does not rebind it
 * before (its value is the parameter itself or its default). */
static const oom_est_setting *parameter_read(const oom_est_reader *r, TSNode e, TSNode value, int depth)
{
    TSNode def = module_function_around(e);
    char name[64];
    int position;
    if (ts_node_is_null(def) || !oom_est_text_of(r, e, name, sizeof name))
        return NULL;
    TSNode p = oom_est_find_parameter(r, def, name, &position);
    if (ts_node_is_null(p))
        return NULL;
    bool unbound = ts_node_is_null(value) || ts_node_eq(value, e) ||
                   (ts_node_start_byte(value) >= ts_node_start_byte(p) && ts_node_end_byte(value) <= ts_node_end_byte(p));
    return unbound ? parameter_setting(r, def, name, depth) : NULL;
}

const oom_est_setting *oom_est_setting_read_by(const oom_est_reader *r, TSNode expr)
{
    return read_by(r, expr, 0);
}

static const oom_est_setting *read_by(const oom_est_reader *r, TSNode expr, int level)
{
    TSNode e = expr;
    for (int depth = 0; depth < 8 && !ts_node_is_null(e) && level < 8; depth++) {
        if (oom_est_type_is(e, "identifier")) {
            TSNode v = oom_pymodel_value_of(r->m, e, 0);
            const oom_est_setting *param = parameter_read(r, e, v, level);
            if (param)
                return param;
            if (ts_node_is_null(v) || ts_node_eq(v, e))
                return NULL;
            e = v; /* `name = args.model_name` ... from_pretrained(name) */
            continue;
        }
        char name[64];
        TSNode object = oom_est_child(e, "object");
        if (!oom_est_type_is(e, "attribute") || !(oom_est_type_is(object, "identifier") || oom_est_type_is(object, "attribute")) ||
            !holds_arguments(r, object) || !oom_est_text_of(r, oom_est_child(e, "attribute"), name, sizeof name))
            return NULL;
        const oom_est_setting *s = oom_est_setting_named(r, name);
        return s && s->kind != OOM_SETTING_MODULE ? s : NULL;
    }
    return NULL;
}

/* A whole number in a string, nothing else ("8", not "eight" or "8k"). */
static bool parse_int(const char *text, long long *out)
{
    char *end = NULL;
    long long n = strtoll(text, &end, 10);
    if (!*text || !end || *end)
        return false;
    *out = n;
    return true;
}

bool oom_est_setting_int(const oom_est_reader *r, const oom_est_setting *s, long long *out)
{
    if (s && s->given)
        return parse_int(s->given, out);
    if (!s || ts_node_is_null(s->value))
        return false;
    if (oom_pymodel_int_value(r->m, s->value, out))
        return true;
    if (!s->int_type || !oom_est_type_is(s->value, "string"))
        return false;
    oom_buf v;
    oom_buf_init(&v);
    bool ok = oom_pymodel_string_value(r->m, s->value, &v) && parse_int(v.data, out);
    oom_buf_free(&v);
    return ok;
}

bool oom_est_setting_string(const oom_est_reader *r, const oom_est_setting *s, oom_buf *out)
{
    if (s && s->given) {
        oom_buf_clear(out);
        oom_buf_puts(out, s->given);
        return true;
    }
    return s && !ts_node_is_null(s->value) && oom_pymodel_string_value(r->m, s->value, out);
}

int oom_est_setting_switch(const oom_est_reader *r, const oom_est_setting *s)
{
    if (!s)
        return -1;
    if (s->given) /* the launch command's True / False / yes / 1 (arguments.c normalises them) */
        return strcmp(s->given, "True") == 0 ? 1 : strcmp(s->given, "False") == 0 ? 0 : -1;
    if (oom_est_type_is(s->value, "true"))
        return 1;
    if (oom_est_type_is(s->value, "false"))
        return 0;
    oom_buf v;
    oom_buf_init(&v);
    int on = -1;
    if (oom_est_setting_string(r, s, &v)) /* type=str2bool, default="true" */
        on = strcasecmp(v.data, "true") == 0 || strcmp(v.data, "1") == 0   ? 1
             : strcasecmp(v.data, "false") == 0 || strcmp(v.data, "0") == 0 ? 0
                                                                            : -1;
    oom_buf_free(&v);
    if (on < 0 && ts_node_is_null(s->value))
        on = s->flag; /* store_true without default=: off */
    return on;
}

/* A condition's value in a run without flags: a switch setting's default
 * (`args.lora_enable`), a name bound to True or False, `not` of either;
 * -1 when it cannot be told. */
static int condition_value(const oom_est_reader *r, TSNode cond, int depth)
{
    if (ts_node_is_null(cond) || depth > 4)
        return -1;
    if (oom_est_type_is(cond, "parenthesized_expression"))
        return condition_value(r, ts_node_named_child(cond, 0), depth + 1);
    if (oom_est_type_is(cond, "not_operator")) {
        int v = condition_value(r, oom_est_child(cond, "argument"), depth + 1);
        return v < 0 ? -1 : !v;
    }
    int on = oom_est_setting_switch(r, oom_est_setting_read_by(r, cond));
    if (on >= 0)
        return on;
    TSNode v = oom_pymodel_value_of(r->m, cond, 0);
    if (oom_est_type_is(v, "true") || oom_est_type_is(v, "false"))
        return oom_est_type_is(v, "true");
    /* `if hparams.fp16_run:` of an HParams the project builds: the symbolic
     * run of the model's sizing reads it */
    return r->switch_by_run && oom_est_type_is(cond, "attribute") ? r->switch_by_run(r->run, cond) : -1;
}

bool oom_est_runs_without_flags(const oom_est_reader *r, TSNode node)
{
    TSNode inner = node;
    for (TSNode up = ts_node_parent(node); !ts_node_is_null(up); inner = up, up = ts_node_parent(up)) {
        if (oom_est_type_is(up, "function_definition") || oom_est_type_is(up, "class_definition"))
            return true;
        if (oom_est_type_is(up, "else_clause")) {
            TSNode owner = ts_node_parent(up);
            if (oom_est_type_is(owner, "if_statement") && condition_value(r, oom_est_child(owner, "condition"), 0) == 1)
                return false;
        } else if (oom_est_type_is(up, "if_statement") && ts_node_eq(inner, oom_est_child(up, "consequence")) &&
                   condition_value(r, oom_est_child(up, "condition"), 0) == 0) {
            return false;
        } else if (oom_est_type_is(up, "conditional_expression")) {
            /* `BitsAndBytesConfig(load_in_4bit=True) if lora_args.q_lora else None` */
            int cond = condition_value(r, ts_node_named_child(up, 1), 0);
            if ((cond == 0 && ts_node_eq(inner, ts_node_named_child(up, 0))) ||
                (cond == 1 && ts_node_eq(inner, ts_node_named_child(up, 2))))
                return false;
        }
    }
    return true;
}

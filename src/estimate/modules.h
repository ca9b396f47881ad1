/* estimate/modules.h: what the files that size a model the script defines
 * share (docs/estimation.md §11). The model is sized by running its
 * __init__ symbolically; the work is split by what each file knows, and
 * each file calls only files after it in this chain:
 *
 *   modules.c          the model into the estimate's inputs (the entry)
 *   modules_builds.c   which calls of the script build the model
 *   modules_expr.c     expressions: names, attributes, operators, calls
 *   modules_run.c      statements, and calls into the script's own code
 *   modules_library.c  library callables by qualified name
 *   modules_layers.c   torch.nn layers counted by PyTorch's shapes
 *   modules_lists.c    lists, tuples, dicts, comprehensions, loops' values
 *   modules_classes.c  the classes and functions a name reaches
 *   modules_context.c  one reading's files and frames, its first unknown
 *   modules_values.c   Python's operations on the values held
 *
 * Evaluation recurses (a layer's argument is an expression; an expression
 * may build a class whose __init__ holds more): the files below
 * modules_expr.c reach it through ctx.eval_node, which modules.c sets, so
 * the recursion never becomes a circle of files. Not for the rest of the
 * estimate, which asks internal.h's oom_est_read_modules. */
#ifndef OOMLINT_ESTIMATE_MODULES_H
#define OOMLINT_ESTIMATE_MODULES_H

#include <string.h>

#include "internal.h"
#include "oomlint/lang.h"
#include "oomlint/nodes.h"

#define MAX_INTS 16
#define MAX_KIDS 8
#define MAX_DEPTH 24
/* expressions within expressions (and the calls they make) */
#define MAX_NESTING 96
/* statements and loop iterations one model may take: a bound on hostile or
 * huge loops, far above any real __init__ */
#define MAX_STEPS 200000

typedef struct frame frame;
typedef struct ctx ctx;

typedef enum {
    V_UNKNOWN, V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_INTS, V_TENSOR, V_MODULE, V_CLASS, V_FUNC, V_OBJECT,
    V_ARGS, /* the parsed options of a file (`args`), passed on as a value: `Net(args)`; obj: what is set on them after */
    V_CONFIG, /* an object or list of a JSON or YAML config the script read (configs.c) */
    V_SEQ     /* a list or tuple whose length is known (in i) but not its items: `len(symbols)` */
} vkind;

/* What a module (or a list of modules) adds up to. */
typedef struct {
    long long params, buffers; /* buffers in bytes */
    long long untrained;       /* parameters of copies no optimizer trains (a target network), in buffers */
    double dense;              /* outputs of Linear layers, per sample or per position */
    double seq;                /* per position: embeddings, recurrent and transformer layers */
    double spatial;            /* per sample at the reference image side: convolutions */
    bool tokens;               /* has a layer that works on sequences */
    bool act_unknown;          /* a layer whose outputs are not counted (Conv1d/3d, a library model) */
    long long weight;          /* numel of a leaf layer's .weight, for tied weights */
    long long in_features, out_features; /* a Linear layer's (0: not one), read as `.in_features` */
    /* a library image model's classifier (torchvision's `fc`): what replacing
     * it takes away, and the Linear it is; "" when none */
    char head[16];
    long long head_params, head_in, head_out;
    int nkids;                 /* named children of a ModuleDict, for tied weights */
    struct {
        char name[32];
        long long weight;
    } kids[MAX_KIDS];
} mod;

typedef struct {
    vkind kind;
    bool maybe_module; /* an unknown call's result, which may be a module */
    bool plain;        /* a Python list or dict: PyTorch registers nothing in it */
    bool items;        /* a tuple or list literal whose items are kept in obj, by position ("0", "1" ...) */
    bool shaped;       /* V_SEQ: every item has the shape in ints (none: numbers), so np.array() of it has one */
    long long i;
    double f;
    long long ints[MAX_INTS]; /* a tuple of ints; a tensor's shape */
    int nints;
    char s[64];  /* a string's value (its first 63 bytes; i: its length in characters, 0 if unset) */
    TSNode node; /* the definition of a class or function; the call of an unknown */
    frame *obj;  /* an object's attributes; a function's enclosing frame */
    TSNode made; /* a module instance: the class it was made from, for provenance */
    const oom_est_reader *args; /* V_ARGS: the file whose options they are */
    const oom_est_config *cfg;  /* V_CONFIG */
    mod m;
} value;

typedef struct {
    char name[48];
    value v;
} var;

struct frame {
    frame *parent; /* the enclosing function's frame (closures); NULL: module level */
    var *vars;
    size_t nvars, cap;
    var *attrs; /* self.<name> of the instance being built */
    size_t nattrs, acap;
    char self_name[24];
    frame *inst; /* where self.<name> goes: the instance being built */
    TSNode cls;  /* the class whose method this frame runs (super().__init__); on an
                  * instance's own frame, type(self), where self.method() is looked up */
    value ret;
    bool returned;
    /* an instance's self.<name> modules whose parameters an optimizer made in
     * its methods trains (`Adam(self.actor.parameters())`); trains_all for
     * `self.parameters()` */
    char trained[8][32];
    int ntrained;
    bool trains_all;
};

typedef struct {
    char name[64];
    TSNode node;
} named_node;

/* One file the model's code is in, as the evaluator reads it: the script
 * first, then each project file its imports reach (imports.c). A node is
 * read in the view of the tree it belongs to, so a class in models/net.py
 * runs with that file's imports and constants, and the arguments its
 * caller passes are read in the caller's file. */
typedef struct {
    const TSTree *tree;
    oom_est_unit *unit;
    oom_est_reader *r;
    oom_est_reader own; /* a project file's reader, with its own settings */
    const oom_nodes *layout;
    named_node *classes, *functions;
    size_t nclasses, nfunctions, classes_cap, functions_cap;
    /* module-level `Exp = Exp_Informer`, bound once: the name and what it names */
    named_node *aliases;
    size_t naliases, aliases_cap;
} view;

typedef struct {
    view **items;
    size_t len, cap;
} views;

struct ctx {
    oom_est_reader *r;
    const oom_nodes *layout; /* the script's */
    oom_est_project *project;
    views *views; /* [0] is the script's; a pointer, so that a lookup through a const ctx may add one */
    frame **frames; /* every frame made, freed at the end */
    size_t nframes, frames_cap;
    char why[448]; /* the first size that could not be told */
    /* a second try, after the first could not size the model: arguments
     * the run cannot tell take their parameters' number defaults, named in
     * `assumed` ("k=2, PointNetCls's default, for `num_classes` (line 88)"),
     * and the model is marked assumed */
    bool take_defaults;
    char assumed[160];
    oom_est_configs *configs; /* the config files read, and the first one or key that could not be */
    char environment[48];     /* the id of the knowledge base's environment whose spaces were read */
    char environment_unlisted[48]; /* the first gym.make() id the knowledge base does not list */
    int depth, steps, nesting;
    long long side; /* the image side the next convolution sees */
    long long image_side;
    long long linear_outs[64]; /* out_features of every Linear, for the LM head */
    int nlinear;
    long long vocab; /* the largest Embedding's rows */
    /* modules_expr.c's oom_mod_eval_node, set by modules.c: how the files
     * below the expressions reach back into them (a layer's argument is an
     * expression) without calling up the chain */
    value (*eval_node)(ctx *c, frame *f, TSNode e);
};

typedef struct {
    TSNode call;
    TSNode cls;     /* the model class called, or the factory function */
    TSNode made;    /* once built: the class the model was made from */
    char target[64];
    char said[224]; /* picked by a name: "arch=resnet via getattr(models, args.arch) at train.py:120" */
} build_site;

/* ---- small helpers, inline: every file reads nodes and makes values ------ */

static inline bool is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static inline TSNode field(TSNode n, const char *name)
{
    return ts_node_is_null(n) ? n : oom_child(n, name, (uint32_t)strlen(name));
}

/* The view of the file `n` is in (the script's for a null node). */
static inline view *view_of(const ctx *c, TSNode n)
{
    for (size_t i = 1; i < c->views->len; i++)
        if (c->views->items[i]->tree == n.tree)
            return c->views->items[i];
    return c->views->items[0];
}

static inline oom_est_reader *reader_of(const ctx *c, TSNode n)
{
    return view_of(c, n)->r;
}

static inline const oom_nodes *layout_of(const ctx *c, TSNode n)
{
    return view_of(c, n)->layout;
}

static inline bool text(const ctx *c, TSNode n, char *buf, size_t size)
{
    return oom_est_text_of(reader_of(c, n), n, buf, size);
}

static inline bool name_of(const ctx *c, TSNode n, char *buf, size_t size)
{
    return is(n, "identifier") && text(c, n, buf, size);
}

static inline value unknown(void)
{
    value v;
    memset(&v, 0, sizeof v);
    return v;
}

static inline value int_value(long long i)
{
    value v = unknown();
    v.kind = V_INT;
    v.i = i;
    return v;
}

static inline value bool_value(bool b)
{
    value v = unknown();
    v.kind = V_BOOL;
    v.i = b;
    return v;
}

static inline value module_value(void)
{
    value v = unknown();
    v.kind = V_MODULE;
    return v;
}

static inline bool numeric(const value *v)
{
    return v->kind == V_INT || v->kind == V_BOOL || v->kind == V_FLOAT;
}

static inline double as_double(const value *v)
{
    return v->kind == V_FLOAT ? v->f : (double)v->i;
}

static inline value float_value(double d)
{
    value v = unknown();
    v.kind = V_FLOAT;
    v.f = d;
    return v;
}

/* ---- one reading's state (modules_context.c) ----------------------------- */

/* 1-based, as provenance lines are. */
unsigned oom_mod_line_of(const ctx *c, TSNode n);
/* "line 16" in the script, else "models/net.py:16". */
void oom_mod_place_of(const ctx *c, TSNode n, char *buf, size_t size);
/* The named children of `n` (comments skipped), from the laid-out tree. */
size_t oom_mod_kids(const ctx *c, TSNode n, TSNode *out, size_t max);
/* Records the first size that could not be told. */
void oom_mod_unresolved(ctx *c, TSNode at, const char *what);
frame *oom_mod_frame_new(ctx *c, frame *parent);
var *oom_mod_find_var(var *vars, size_t n, const char *name);
void oom_mod_set_var(frame *f, const char *name, const value *v);
void oom_mod_set_attr(frame *f, const char *name, const value *v);
const TSNode *oom_mod_lookup_named(const named_node *list, size_t n, const char *name);
/* A name the running frame or an enclosing one binds; NULL when none. */
const value *oom_mod_lookup(frame *f, const char *name);
/* The frame that builds an instance (`self`), out through closures. */
frame *oom_mod_builder(frame *f);
bool oom_mod_is_self(const ctx *c, frame *f, TSNode n);
/* A call's argument at `pos` (-1: none) or named `name`; null when absent. */
TSNode oom_mod_arg(const ctx *c, TSNode call, int pos, const char *name);
/* The value of expression `e` in frame `f`, bounded in steps and nesting. */
value oom_mod_eval(ctx *c, frame *f, TSNode e);

/* ---- operations on values (modules_values.c) ----------------------------- */

bool oom_mod_truth(const value *v, int *out);
void oom_mod_add(mod *a, const mod *b);
long long oom_mod_product(const long long *dims, int n);
/* A module, a list of modules, a parameter, or None (nothing). */
bool oom_mod_as_module(const value *v, mod *out);
/* l op r as Python computes it ("+", "//", "**" ...); unknown otherwise. */
value oom_mod_arithmetic(const value *l, const value *r, const char *op);
/* The number of items of a list or tuple value (ints, a plain list, one
 * of known length); false for anything else. */
bool oom_mod_seq_len(const value *v, long long *n);
/* A string's length in characters. */
long long oom_mod_str_len(const value *v);
/* A string value of `text`, its length counted in characters. */
value oom_mod_string(const char *text);
/* Item `i` of a tuple or list literal's value (`model, optim = build()`);
 * unknown when its items are not kept. */
value oom_mod_item(const value *seq, size_t i);

/* ---- definitions a name reaches (modules_classes.c) ---------------------- */

TSNode oom_mod_class_body_function(const ctx *c, TSNode cls, const char *name);
/* A file's classes and module-level functions, into its view. */
void oom_mod_collect_definitions(const ctx *c, view *v);
/* The view of a project file, made the first time it is asked for. */
view *oom_mod_view_for(const ctx *c, oom_est_unit *u);
TSNode oom_mod_imported_definition(const ctx *c, frame *f, TSNode e);
/* The expression an imported name is bound to at module level in its file. */
TSNode oom_mod_imported_value(const ctx *c, frame *f, TSNode e);
TSNode oom_mod_script_class(const ctx *c, TSNode name_node);
TSNode oom_mod_function_named(const ctx *c, TSNode fn);
TSNode oom_mod_picked_known(const ctx *c, TSNode fn, const oom_est_pick *pk);
TSNode oom_mod_picked(const ctx *c, TSNode fn, oom_est_pick *pk);
const char *oom_mod_torch_layer_name(const char *q);
bool oom_mod_torch_layer_base(const ctx *c, TSNode cls, char *buf, size_t size);
bool oom_mod_is_module_class(const ctx *c, TSNode cls, int depth);
TSNode oom_mod_script_base(const ctx *c, TSNode cls);
TSNode oom_mod_find_method(const ctx *c, TSNode cls, const char *name);
/* The same, with the class that defines the method into *owner. */
TSNode oom_mod_find_method_in(const ctx *c, TSNode cls, const char *name, TSNode *owner);

/* ---- torch.nn layers (modules_layers.c) ---------------------------------- */

bool oom_mod_opt_int(ctx *c, frame *f, TSNode call, int pos, const char *name, long long dflt, const char *what,
                     long long *out);
/* A torch.nn class by its last name ("Linear"), called by `call`. */
value oom_mod_nn_layer(ctx *c, frame *f, TSNode call, const char *name);
value oom_mod_parameter(ctx *c, frame *f, TSNode call);
value oom_mod_tensor(ctx *c, frame *f, TSNode call);
/* np.array(rows) / torch.tensor(rows): the nested lists' shape. */
value oom_mod_data_tensor(const value *data);

/* ---- lists, dicts, loops (modules_lists.c) ------------------------------- */

#define MAX_ITER 4096

void oom_mod_bind_target(ctx *c, frame *f, TSNode target, const value *v);
void oom_mod_list_add(value *list, const value *item);
void oom_mod_list_extend(value *list, const value *items);
value oom_mod_eval_sequence(ctx *c, frame *f, TSNode e);
value oom_mod_eval_dictionary(ctx *c, frame *f, TSNode e);
/* The values a `for` runs over into out; -1 when it cannot be told. */
long long oom_mod_iterate(ctx *c, frame *f, TSNode iter, value *out, long long max);
value oom_mod_eval_comprehension(ctx *c, frame *f, TSNode e);
value oom_mod_ordered_dict(ctx *c, frame *f, TSNode call);
value oom_mod_dict_call(ctx *c, frame *f, TSNode call);

/* ---- library callables (modules_library.c) ------------------------------- */

bool oom_mod_keeps_value(const char *method);
bool oom_mod_is_weight_norm(const char *q);
void oom_mod_add_weight_norm(ctx *c, frame *f, TSNode layer_call, TSNode args_call, value *v);
value oom_mod_from_config(ctx *c, const oom_est_config *k);
value oom_mod_config_key(ctx *c, frame *f, const value *of, TSNode key_node, TSNode dflt, bool get);
/* A torch (or builtin) callable by its qualified name. */
value oom_mod_eval_named_call(ctx *c, frame *f, TSNode call, const char *name);
/* The classifier of a library image model, as the Linear it is (`model.fc`). */
value oom_mod_library_head(const value *model);

/* ---- the script's own code (modules_run.c) ------------------------------- */

value oom_mod_instantiate(ctx *c, frame *caller, TSNode call, TSNode cls);
value oom_mod_call_function(ctx *c, frame *caller, TSNode call, TSNode def, frame *closure);
value oom_mod_run_method(ctx *c, frame *f, TSNode call, TSNode def, TSNode cls);

/* ---- expressions (modules_expr.c) ---------------------------------------- */

/* One expression, unbounded: what ctx.eval_node points to. */
value oom_mod_eval_node(ctx *c, frame *f, TSNode e);

/* ---- which calls build the model (modules_builds.c) ---------------------- */

TSNode oom_mod_site_class(const build_site *s);
/* The calls a run without flags makes that build a model, at most max. */
size_t oom_mod_find_builds(ctx *c, build_site *sites, size_t max);

#endif

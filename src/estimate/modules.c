/* estimate/modules: models the script defines itself. A class deriving from
 * nn.Module (or a LightningModule) that the script instantiates is sized
 * exactly by running its __init__ symbolically: constructor arguments and
 * defaults bound, module-level constants and argparse defaults read, simple
 * arithmetic, loops over range() unrolled, and each torch.nn layer counted by
 * PyTorch's own shapes (docs/estimation.md §11). Where a size cannot be told,
 * the model stays unsized and the input says which size, never a guess.
 *
 * Activations are rough: each layer's output, counted once from __init__,
 * doubled for the nonlinearity or norm that follows it (§11). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
/* the side at which convolution outputs are counted when the script gives none */
#define DEFAULT_IMAGE_SIDE 32

typedef struct frame frame;

typedef enum {
    V_UNKNOWN, V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_INTS, V_TENSOR, V_MODULE, V_CLASS, V_FUNC, V_OBJECT,
    V_ARGS, /* the parsed options of a file (`args`), passed on as a value: `Net(args)` */
    V_CONFIG /* an object or list of a JSON or YAML config the script read (configs.c) */
} vkind;

/* What a module (or a list of modules) adds up to. */
typedef struct {
    long long params, buffers; /* buffers in bytes */
    double dense;              /* outputs of Linear layers, per sample or per position */
    double seq;                /* per position: embeddings, recurrent and transformer layers */
    double spatial;            /* per sample at the reference image side: convolutions */
    bool tokens;               /* has a layer that works on sequences */
    bool act_unknown;          /* a layer whose outputs are not counted (Conv1d/3d) */
    long long weight;          /* numel of a leaf layer's .weight, for tied weights */
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
    long long i;
    double f;
    long long ints[MAX_INTS]; /* a tuple of ints; a tensor's shape */
    int nints;
    char s[64];  /* a string's value */
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
    TSNode cls;  /* the class whose method this frame runs (super().__init__, self.method()) */
    value ret;
    bool returned;
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
} view;

typedef struct {
    view **items;
    size_t len, cap;
} views;

typedef struct {
    oom_est_reader *r;
    const oom_nodes *layout; /* the script's */
    oom_est_project *project;
    views *views; /* [0] is the script's; a pointer, so that a lookup through a const ctx may add one */
    frame **frames; /* every frame made, freed at the end */
    size_t nframes, frames_cap;
    char why[448]; /* the first size that could not be told */
    oom_est_configs *configs; /* the config files read, and the first one or key that could not be */
    int depth, steps, nesting;
    long long side; /* the image side the next convolution sees */
    long long image_side;
    long long linear_outs[64]; /* out_features of every Linear, for the LM head */
    int nlinear;
    long long vocab; /* the largest Embedding's rows */
} ctx;

/* ---- small helpers ------------------------------------------------------ */

static bool is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static TSNode field(TSNode n, const char *name)
{
    return ts_node_is_null(n) ? n : oom_child(n, name, (uint32_t)strlen(name));
}

/* The view of the file `n` is in (the script's for a null node). */
static view *view_of(const ctx *c, TSNode n)
{
    for (size_t i = 1; i < c->views->len; i++)
        if (c->views->items[i]->tree == n.tree)
            return c->views->items[i];
    return c->views->items[0];
}

static oom_est_reader *reader_of(const ctx *c, TSNode n)
{
    return view_of(c, n)->r;
}

static const oom_nodes *layout_of(const ctx *c, TSNode n)
{
    return view_of(c, n)->layout;
}

static bool text(const ctx *c, TSNode n, char *buf, size_t size)
{
    return oom_est_text_of(reader_of(c, n), n, buf, size);
}

/* 1-based, as provenance lines are. */
static unsigned line_of(const ctx *c, TSNode n)
{
    uint32_t row = 0, col = 0;
    oom_source_position(reader_of(c, n)->src, ts_node_start_byte(n), &row, &col);
    return row;
}

/* Where a definition is, for people: "line 16" in the script, else
 * "models/net.py:16". */
static void place_of(const ctx *c, TSNode n, char *buf, size_t size)
{
    view *v = view_of(c, n);
    if (v == c->views->items[0])
        oom_est_printf(buf, size, "line %u", line_of(c, n));
    else
        oom_est_printf(buf, size, "%s:%u", oom_est_unit_path(v->unit), line_of(c, n));
}

/* The named children of `n`, read from the laid-out tree (a statement block
 * can be long: tree-sitter's own i-th child costs i steps). */
static size_t kids(const ctx *c, TSNode n, TSNode *out, size_t max)
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

/* Records the first size that could not be told: "`text` (what, line N)". */
static void unresolved(ctx *c, TSNode at, const char *what)
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
        place_of(c, at, where, sizeof where);
    const char *cfg = oom_est_configs_why(c->configs); /* the config file or key that would settle it */
    snprintf(c->why, sizeof c->why, "%s%s`%s` (%s, %s)", cfg, cfg[0] ? ", which would settle " : "", t, what, where);
}

static value unknown(void)
{
    value v;
    memset(&v, 0, sizeof v);
    return v;
}

static value int_value(long long i)
{
    value v = unknown();
    v.kind = V_INT;
    v.i = i;
    return v;
}

static value bool_value(bool b)
{
    value v = unknown();
    v.kind = V_BOOL;
    v.i = b;
    return v;
}

static value module_value(void)
{
    value v = unknown();
    v.kind = V_MODULE;
    return v;
}

static bool truth(const value *v, int *out)
{
    switch (v->kind) {
    case V_BOOL:
    case V_INT:
        *out = v->i != 0;
        return true;
    case V_NONE:
        *out = 0;
        return true;
    case V_STR:
        *out = v->s[0] != '\0';
        return true;
    case V_FLOAT:
        *out = v->f != 0;
        return true;
    case V_MODULE:
    case V_OBJECT:
    case V_CLASS:
    case V_FUNC:
    case V_TENSOR:
        *out = 1;
        return true;
    default:
        return false;
    }
}

static frame *frame_new(ctx *c, frame *parent)
{
    frame *f = oom_xcalloc(1, sizeof *f);
    f->parent = parent;
    OOM_PUSH(c->frames, c->nframes, c->frames_cap, f);
    return f;
}

static var *find_var(var *vars, size_t n, const char *name)
{
    for (size_t i = n; i-- > 0;)
        if (strcmp(vars[i].name, name) == 0)
            return &vars[i];
    return NULL;
}

static void set_in(var **vars, size_t *n, size_t *cap, const char *name, const value *v)
{
    var *old = find_var(*vars, *n, name);
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

static void set_var(frame *f, const char *name, const value *v)
{
    set_in(&f->vars, &f->nvars, &f->cap, name, v);
}

static void set_attr(frame *f, const char *name, const value *v)
{
    set_in(&f->attrs, &f->nattrs, &f->acap, name, v);
}

static const TSNode *lookup_named(const named_node *list, size_t n, const char *name)
{
    for (size_t i = n; i-- > 0;)
        if (strcmp(list[i].name, name) == 0)
            return &list[i].node;
    return NULL;
}

static void mod_add(mod *a, const mod *b)
{
    a->params += b->params;
    a->buffers += b->buffers;
    a->dense += b->dense;
    a->seq += b->seq;
    a->spatial += b->spatial;
    a->tokens = a->tokens || b->tokens;
    a->act_unknown = a->act_unknown || b->act_unknown;
}

static value eval(ctx *c, frame *f, TSNode e);
static void exec_block(ctx *c, frame *f, TSNode block);

/* ---- reading numbers ---------------------------------------------------- */

static bool want_int(ctx *c, frame *f, TSNode e, const char *what, long long *out)
{
    value v = eval(c, f, e);
    if (v.kind == V_INT || v.kind == V_BOOL) {
        *out = v.i;
        return true;
    }
    if (v.kind == V_FLOAT && v.f == floor(v.f) && fabs(v.f) < 1e15) {
        *out = (long long)v.f;
        return true;
    }
    unresolved(c, e, what);
    return false;
}

/* An int or a tuple of ints (a kernel size, a normalized shape), as `n`
 * dimensions: an int is repeated n times (n = 0: one value). */
static bool want_dims(ctx *c, frame *f, TSNode e, int n, const char *what, long long *dims, int *count)
{
    value v = eval(c, f, e);
    if (v.kind == V_INT) {
        *count = n > 0 ? n : 1;
        for (int i = 0; i < *count; i++)
            dims[i] = v.i;
        return true;
    }
    if (v.kind == V_INTS && v.nints > 0) {
        *count = v.nints;
        memcpy(dims, v.ints, sizeof(long long) * (size_t)v.nints);
        return true;
    }
    unresolved(c, e, what);
    return false;
}

static long long product(const long long *dims, int n)
{
    long long p = 1;
    for (int i = 0; i < n; i++)
        p *= dims[i];
    return p;
}

/* ---- calls: arguments ---------------------------------------------------- */

/* The argument at `pos` (positional; -1: none) or named `name`; null when
 * absent. */
static TSNode arg(const ctx *c, TSNode call, int pos, const char *name)
{
    TSNode a[64];
    size_t n = kids(c, field(call, "arguments"), a, 64);
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

static bool opt_int(ctx *c, frame *f, TSNode call, int pos, const char *name, long long dflt, const char *what,
                    long long *out)
{
    TSNode a = arg(c, call, pos, name);
    if (ts_node_is_null(a)) {
        *out = dflt;
        return true;
    }
    return want_int(c, f, a, what, out);
}

static bool opt_bool(ctx *c, frame *f, TSNode call, int pos, const char *name, bool dflt, const char *what,
                     bool *out)
{
    TSNode a = arg(c, call, pos, name);
    if (ts_node_is_null(a)) {
        *out = dflt;
        return true;
    }
    value v = eval(c, f, a);
    int t;
    if (!truth(&v, &t)) {
        unresolved(c, a, what);
        return false;
    }
    *out = t;
    return true;
}

/* ---- torch.nn layers (PyTorch's shapes, docs/estimation.md §11) ----------- */

/* Linear(in, out, bias=True): weight out x in, bias out. */
static value linear(ctx *c, frame *f, TSNode call)
{
    long long in, out;
    bool bias;
    if (!want_int(c, f, arg(c, call, 0, "in_features"), "in_features of nn.Linear", &in) ||
        !want_int(c, f, arg(c, call, 1, "out_features"), "out_features of nn.Linear", &out) ||
        !opt_bool(c, f, call, 2, "bias", true, "bias of nn.Linear", &bias))
        return unknown();
    value v = module_value();
    v.m.params = in * out + (bias ? out : 0);
    v.m.weight = in * out;
    v.m.dense = 2.0 * (double)out;
    if (c->nlinear < 64)
        c->linear_outs[c->nlinear++] = out;
    return v;
}

/* The side a 2-d convolution's output has: PyTorch's formula with the
 * first dimension's stride, padding and dilation ("same" keeps the side). */
static bool conv_side(ctx *c, frame *f, TSNode call, long long k, bool transposed, long long *side)
{
    long long stride = 1, dil = 1, pad = 0;
    TSNode s = arg(c, call, 3, "stride"), p = arg(c, call, 4, "padding"), d = arg(c, call, transposed ? 8 : 5, "dilation");
    value sv = ts_node_is_null(s) ? int_value(1) : eval(c, f, s);
    value dv = ts_node_is_null(d) ? int_value(1) : eval(c, f, d);
    value pv = ts_node_is_null(p) ? int_value(0) : eval(c, f, p);
    if (sv.kind == V_INT)
        stride = sv.i;
    else if (sv.kind == V_INTS)
        stride = sv.ints[0];
    else
        return false;
    if (dv.kind == V_INT)
        dil = dv.i;
    else if (dv.kind == V_INTS)
        dil = dv.ints[0];
    else
        return false;
    bool same_pad = pv.kind == V_STR && strcmp(pv.s, "same") == 0;
    if (pv.kind == V_INT)
        pad = pv.i;
    else if (pv.kind == V_INTS)
        pad = pv.ints[0];
    else if (!same_pad && !(pv.kind == V_STR && strcmp(pv.s, "valid") == 0))
        return false;
    if (stride <= 0)
        return false;
    long long h = c->side;
    if (transposed)
        h = (h - 1) * stride - 2 * pad + dil * (k - 1) + 1;
    else if (!same_pad)
        h = (h + 2 * pad - dil * (k - 1) - 1) / stride + 1;
    *side = h < 1 ? 1 : h;
    return true;
}

/* Conv1d/2d/3d (in, out, kernel, stride, padding, dilation, groups, bias)
 * and ConvTranspose (in, out, kernel, stride, padding, output_padding,
 * groups, bias, dilation): weight out x in/groups x k (transposed: in x
 * out/groups x k), bias out. */
static value conv(ctx *c, frame *f, TSNode call, int dims, bool transposed)
{
    long long in, out, k[MAX_INTS], groups;
    int nk;
    bool bias;
    if (!want_int(c, f, arg(c, call, 0, "in_channels"), "in_channels of a convolution", &in) ||
        !want_int(c, f, arg(c, call, 1, "out_channels"), "out_channels of a convolution", &out) ||
        !want_dims(c, f, arg(c, call, 2, "kernel_size"), dims, "kernel_size of a convolution", k, &nk) ||
        !opt_int(c, f, call, 6, "groups", 1, "groups of a convolution", &groups) ||
        !opt_bool(c, f, call, 7, "bias", true, "bias of a convolution", &bias))
        return unknown();
    if (groups <= 0 || in % groups != 0 || out % groups != 0) {
        unresolved(c, call, "groups that do not divide the channels");
        return unknown();
    }
    value v = module_value();
    long long weight = (transposed ? in * (out / groups) : out * (in / groups)) * product(k, nk);
    v.m.params = weight + (bias ? out : 0);
    v.m.weight = weight;
    long long side;
    if (dims != 2 || !conv_side(c, f, call, k[0], transposed, &side)) {
        v.m.act_unknown = true;
        return v;
    }
    c->side = side;
    v.m.spatial = 2.0 * (double)out * (double)side * (double)side;
    return v;
}

/* A 2-d pooling layer moves the side the next convolution sees; it has no
 * parameters, so a size it hides changes no count. */
static value pool(ctx *c, frame *f, TSNode call, bool adaptive)
{
    value v = module_value();
    value kv = eval(c, f, arg(c, call, 0, adaptive ? "output_size" : "kernel_size"));
    if (kv.kind != V_INT || kv.i <= 0)
        return v;
    if (adaptive) {
        c->side = kv.i;
        return v;
    }
    value sv = eval(c, f, arg(c, call, 1, "stride"));
    value pv = eval(c, f, arg(c, call, 2, "padding"));
    long long k = kv.i, s = sv.kind == V_INT && sv.i > 0 ? sv.i : k, p = pv.kind == V_INT ? pv.i : 0;
    c->side = (c->side + 2 * p - k) / s + 1;
    if (c->side < 1)
        c->side = 1;
    return v;
}

/* Embedding(num_embeddings, embedding_dim): weight num x dim. */
static value embedding(ctx *c, frame *f, TSNode call)
{
    long long n, d;
    if (!want_int(c, f, arg(c, call, 0, "num_embeddings"), "num_embeddings of nn.Embedding", &n) ||
        !want_int(c, f, arg(c, call, 1, "embedding_dim"), "embedding_dim of nn.Embedding", &d))
        return unknown();
    value v = module_value();
    v.m.params = v.m.weight = n * d;
    v.m.seq = (double)d;
    v.m.tokens = true;
    if (n > c->vocab)
        c->vocab = n;
    return v;
}

/* LayerNorm(normalized_shape, eps, elementwise_affine=True, bias=True):
 * weight and bias of the shape; RMSNorm(normalized_shape, eps,
 * elementwise_affine=True): weight only. */
static value layer_norm(ctx *c, frame *f, TSNode call, bool rms)
{
    long long dims[MAX_INTS];
    int n;
    bool affine, bias = !rms;
    if (!want_dims(c, f, arg(c, call, 0, "normalized_shape"), 0, "normalized_shape", dims, &n) ||
        !opt_bool(c, f, call, 2, "elementwise_affine", true, "elementwise_affine", &affine) ||
        (!rms && !opt_bool(c, f, call, 3, "bias", true, "bias of nn.LayerNorm", &bias)))
        return unknown();
    value v = module_value();
    long long size = product(dims, n);
    v.m.params = affine ? size * (bias ? 2 : 1) : 0;
    v.m.weight = affine ? size : 0;
    return v;
}

/* BatchNorm (num_features, eps, momentum, affine=True, track_running_stats=True):
 * weight and bias; running mean and variance (fp32) and a step count (int64)
 * as buffers. InstanceNorm: the same signature, affine and statistics off. */
static value batch_norm(ctx *c, frame *f, TSNode call, bool instance)
{
    long long n;
    bool affine, track;
    if (!want_int(c, f, arg(c, call, 0, "num_features"), "num_features of a norm", &n) ||
        !opt_bool(c, f, call, 3, "affine", !instance, "affine of a norm", &affine) ||
        !opt_bool(c, f, call, 4, "track_running_stats", !instance, "track_running_stats", &track))
        return unknown();
    value v = module_value();
    v.m.params = affine ? 2 * n : 0;
    v.m.weight = affine ? n : 0;
    v.m.buffers = track ? 8 * n + 8 : 0;
    return v;
}

/* GroupNorm(num_groups, num_channels, eps, affine=True): weight and bias of
 * the channels. */
static value group_norm(ctx *c, frame *f, TSNode call)
{
    long long g, n;
    bool affine;
    if (!want_int(c, f, arg(c, call, 0, "num_groups"), "num_groups of nn.GroupNorm", &g) ||
        !want_int(c, f, arg(c, call, 1, "num_channels"), "num_channels of nn.GroupNorm", &n) ||
        !opt_bool(c, f, call, 3, "affine", true, "affine of nn.GroupNorm", &affine))
        return unknown();
    value v = module_value();
    v.m.params = affine ? 2 * n : 0;
    v.m.weight = affine ? n : 0;
    return v;
}

/* LSTM / GRU / RNN (input_size, hidden_size, num_layers=1, ...): per layer
 * and direction, weight_ih (G·h x in), weight_hh (G·h x h) and two biases of
 * G·h, with G = 4, 3, 1 gates; layers after the first read h·directions.
 * With proj_size p (LSTM): weight_hh is G·h x p, weight_hr p x h, and later
 * layers read p·directions. RNN takes nonlinearity before bias; the cells
 * are one layer, one direction. */
static value recurrent(ctx *c, frame *f, TSNode call, int gates, bool cell)
{
    long long in, h, layers = 1, proj = 0;
    bool bias, bidir = false;
    bool rnn = gates == 1 && !cell;
    if (!want_int(c, f, arg(c, call, 0, "input_size"), "input_size of a recurrent layer", &in) ||
        !want_int(c, f, arg(c, call, 1, "hidden_size"), "hidden_size of a recurrent layer", &h) ||
        (!cell && !opt_int(c, f, call, 2, "num_layers", 1, "num_layers", &layers)) ||
        !opt_bool(c, f, call, cell ? 2 : rnn ? 4 : 3, "bias", true, "bias of a recurrent layer", &bias) ||
        (!cell && !opt_bool(c, f, call, rnn ? 7 : 6, "bidirectional", false, "bidirectional", &bidir)) ||
        (gates == 4 && !cell && !opt_int(c, f, call, 7, "proj_size", 0, "proj_size", &proj)))
        return unknown();
    long long dirs = bidir ? 2 : 1, out = proj > 0 ? proj : h, total = 0, g = gates * h;
    for (long long l = 0; l < layers; l++) {
        long long input = l == 0 ? in : out * dirs;
        long long one = g * input + g * out + (bias ? 2 * g : 0) + (proj > 0 ? proj * h : 0);
        total += one * dirs;
    }
    value v = module_value();
    v.m.params = total;
    /* kept per step for backward: the gates, the cell (LSTM) and the output */
    v.m.seq = (double)((gates + (gates == 4 ? 2 : 1)) * h * dirs * layers);
    v.m.tokens = true;
    return v;
}

/* MultiheadAttention(embed_dim, num_heads, dropout, bias=True,
 * add_bias_kv=False, add_zero_attn, kdim=None, vdim=None): the packed
 * in-projection 3E x E (or separate q E x E, k E x kdim, v E x vdim), its
 * bias 3E, the out-projection E x E + E, bias_k and bias_v of E each. */
static bool attention_params(ctx *c, frame *f, TSNode call, long long *out, long long *e)
{
    long long kdim, vdim;
    bool bias, bias_kv;
    if (!want_int(c, f, arg(c, call, 0, "embed_dim"), "embed_dim of nn.MultiheadAttention", e) ||
        !opt_bool(c, f, call, 3, "bias", true, "bias of nn.MultiheadAttention", &bias) ||
        !opt_bool(c, f, call, 4, "add_bias_kv", false, "add_bias_kv", &bias_kv))
        return false;
    TSNode kn = arg(c, call, 6, "kdim"), vn = arg(c, call, 7, "vdim");
    kdim = *e, vdim = *e;
    if (!ts_node_is_null(kn) && eval(c, f, kn).kind != V_NONE && !want_int(c, f, kn, "kdim", &kdim))
        return false;
    if (!ts_node_is_null(vn) && eval(c, f, vn).kind != V_NONE && !want_int(c, f, vn, "vdim", &vdim))
        return false;
    long long E = *e, b = bias ? 1 : 0;
    *out = E * E + E * kdim + E * vdim + b * 3 * E + E * E + b * E + (bias_kv ? 2 * E : 0);
    return true;
}

static value attention(ctx *c, frame *f, TSNode call)
{
    long long p, e;
    if (!attention_params(c, f, call, &p, &e))
        return unknown();
    value v = module_value();
    v.m.params = p;
    v.m.seq = 2.0 * 4.0 * (double)e; /* q, k, v and the output */
    v.m.tokens = true;
    return v;
}

/* TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout,
 * activation, layer_norm_eps, batch_first, norm_first, bias=True): self
 * attention (4d² + 4d), linear1 d x ff + ff, linear2 ff x d + d, two
 * LayerNorms of 2d. The decoder layer adds cross attention and a third norm. */
static value transformer_layer(ctx *c, frame *f, TSNode call, bool decoder)
{
    long long d, ff;
    bool bias;
    if (!want_int(c, f, arg(c, call, 0, "d_model"), "d_model of a transformer layer", &d) ||
        !opt_int(c, f, call, 2, "dim_feedforward", 2048, "dim_feedforward", &ff) ||
        !opt_bool(c, f, call, 8, "bias", true, "bias of a transformer layer", &bias))
        return unknown();
    long long b = bias ? 1 : 0;
    long long attn = 4 * d * d + b * 4 * d;
    long long norms = (decoder ? 3 : 2) * (1 + b) * d;
    value v = module_value();
    v.m.params = (decoder ? 2 : 1) * attn + d * ff + b * ff + ff * d + b * d + norms;
    /* per position: q, k, v, the attention output, both feed-forward outputs
     * (and the cross attention's), doubled for the norms and dropouts */
    v.m.seq = 2.0 * (double)((decoder ? 9 : 5) * d + ff);
    v.m.tokens = true;
    return v;
}

/* TransformerEncoder(encoder_layer, num_layers, norm=None): num_layers deep
 * copies of the layer, and the norm. */
static value stack_of(ctx *c, frame *f, TSNode call, const char *layer_name)
{
    TSNode layer_node = arg(c, call, 0, layer_name);
    value layer = eval(c, f, layer_node);
    long long n;
    if (layer.kind != V_MODULE) {
        unresolved(c, layer_node, "the layer a transformer stack repeats");
        return unknown();
    }
    if (!want_int(c, f, arg(c, call, 1, "num_layers"), "num_layers of a transformer stack", &n))
        return unknown();
    value v = module_value();
    for (long long i = 0; i < n && i < MAX_STEPS; i++)
        mod_add(&v.m, &layer.m);
    TSNode norm = arg(c, call, 2, "norm");
    if (!ts_node_is_null(norm)) {
        value nv = eval(c, f, norm);
        if (nv.kind == V_MODULE) {
            mod_add(&v.m, &nv.m);
        } else if (nv.kind != V_NONE) {
            unresolved(c, norm, "norm of a transformer stack");
            return unknown();
        }
    }
    return v;
}

/* nn.Transformer(d_model=512, nhead=8, num_encoder_layers=6,
 * num_decoder_layers=6, dim_feedforward=2048, ..., bias=True): the layers and
 * a final LayerNorm on each side. */
static value whole_transformer(ctx *c, frame *f, TSNode call)
{
    long long d, enc, dec, ff;
    bool bias;
    if (!opt_int(c, f, call, 0, "d_model", 512, "d_model", &d) ||
        !opt_int(c, f, call, 2, "num_encoder_layers", 6, "num_encoder_layers", &enc) ||
        !opt_int(c, f, call, 3, "num_decoder_layers", 6, "num_decoder_layers", &dec) ||
        !opt_int(c, f, call, 4, "dim_feedforward", 2048, "dim_feedforward", &ff) ||
        !opt_bool(c, f, call, 12, "bias", true, "bias", &bias))
        return unknown();
    if (!ts_node_is_null(arg(c, call, 7, "custom_encoder")) || !ts_node_is_null(arg(c, call, 8, "custom_decoder"))) {
        unresolved(c, call, "nn.Transformer with a custom encoder or decoder");
        return unknown();
    }
    long long b = bias ? 1 : 0, attn = 4 * d * d + b * 4 * d, mlp = 2 * d * ff + b * (ff + d);
    value v = module_value();
    v.m.params = enc * (attn + mlp + 2 * (1 + b) * d) + dec * (2 * attn + mlp + 3 * (1 + b) * d) + 2 * (1 + b) * d;
    v.m.seq = 2.0 * (double)(enc * (5 * d + ff) + dec * (9 * d + ff));
    v.m.tokens = true;
    return v;
}

/* Layers without parameters: activations, dropout, pooling, padding,
 * reshaping, losses. */
static bool parameter_free(const char *name)
{
    static const char *const exact[] = {
        "ReLU", "ReLU6", "GELU", "SiLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "SELU", "CELU", "Mish",
        "Softplus", "Softsign", "Softmax", "LogSoftmax", "Softmin", "Softmax2d", "Hardtanh", "Hardswish",
        "Hardsigmoid", "Hardshrink", "Softshrink", "Tanhshrink", "Threshold", "GLU", "LogSigmoid", "Identity",
        "Flatten", "Unflatten", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle",
        "PixelUnshuffle", "ChannelShuffle", "Fold", "Unfold", "CosineSimilarity", "PairwiseDistance", "Dropout",
        "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", NULL};
    for (int i = 0; exact[i]; i++)
        if (strcmp(name, exact[i]) == 0)
            return true;
    return oom_str_ends_with(name, "Loss") || strstr(name, "Pad1d") || strstr(name, "Pad2d") ||
           strstr(name, "Pad3d") || strstr(name, "Pool1d") || strstr(name, "Pool3d");
}

static value container(ctx *c, frame *f, TSNode call, const char *name);

/* A torch.nn class by its last name. */
static value nn_layer(ctx *c, frame *f, TSNode call, const char *name)
{
    if (strcmp(name, "Linear") == 0)
        return linear(c, f, call);
    if (strcmp(name, "Conv1d") == 0 || strcmp(name, "Conv2d") == 0 || strcmp(name, "Conv3d") == 0)
        return conv(c, f, call, name[4] - '0', false);
    if (strcmp(name, "ConvTranspose1d") == 0 || strcmp(name, "ConvTranspose2d") == 0 ||
        strcmp(name, "ConvTranspose3d") == 0)
        return conv(c, f, call, name[13] - '0', true);
    if (strcmp(name, "Embedding") == 0)
        return embedding(c, f, call);
    if (strcmp(name, "LayerNorm") == 0 || strcmp(name, "RMSNorm") == 0)
        return layer_norm(c, f, call, name[0] == 'R');
    if (strncmp(name, "BatchNorm", 9) == 0 || strncmp(name, "InstanceNorm", 12) == 0)
        return batch_norm(c, f, call, name[0] == 'I');
    if (strcmp(name, "GroupNorm") == 0)
        return group_norm(c, f, call);
    if (strcmp(name, "LSTM") == 0 || strcmp(name, "GRU") == 0 || strcmp(name, "RNN") == 0)
        return recurrent(c, f, call, name[0] == 'L' ? 4 : name[0] == 'G' ? 3 : 1, false);
    if (strcmp(name, "LSTMCell") == 0 || strcmp(name, "GRUCell") == 0 || strcmp(name, "RNNCell") == 0)
        return recurrent(c, f, call, name[0] == 'L' ? 4 : name[0] == 'G' ? 3 : 1, true);
    if (strcmp(name, "MultiheadAttention") == 0)
        return attention(c, f, call);
    if (strcmp(name, "TransformerEncoderLayer") == 0 || strcmp(name, "TransformerDecoderLayer") == 0)
        return transformer_layer(c, f, call, name[11] == 'D');
    if (strcmp(name, "TransformerEncoder") == 0)
        return stack_of(c, f, call, "encoder_layer");
    if (strcmp(name, "TransformerDecoder") == 0)
        return stack_of(c, f, call, "decoder_layer");
    if (strcmp(name, "Transformer") == 0)
        return whole_transformer(c, f, call);
    if (strcmp(name, "PReLU") == 0) {
        long long n;
        if (!opt_int(c, f, call, 0, "num_parameters", 1, "num_parameters of nn.PReLU", &n))
            return unknown();
        value v = module_value();
        v.m.params = n;
        return v;
    }
    if (strstr(name, "Pool2d"))
        return pool(c, f, call, strncmp(name, "Adaptive", 8) == 0);
    if (strcmp(name, "Sequential") == 0 || strcmp(name, "ModuleList") == 0 || strcmp(name, "ModuleDict") == 0 ||
        strcmp(name, "ParameterList") == 0 || strcmp(name, "ParameterDict") == 0)
        return container(c, f, call, name);
    if (parameter_free(name))
        return module_value();
    char what[96];
    snprintf(what, sizeof what, "nn.%s, a layer oomlint does not size", name);
    unresolved(c, call, what);
    value v = unknown();
    v.maybe_module = true;
    return v;
}

/* A value as a module: a module, a list of modules, a parameter, or None
 * (nothing); false for anything else. */
static bool as_module(const value *v, mod *out)
{
    memset(out, 0, sizeof *out);
    if (v->kind == V_MODULE) {
        *out = v->m;
        return true;
    }
    return v->kind == V_NONE;
}

/* Sequential(*layers) / Sequential(a, b) / Sequential(OrderedDict(...)),
 * ModuleList(list), ModuleDict(dict): the sum of what they hold. */
static value container(ctx *c, frame *f, TSNode call, const char *name)
{
    value v = module_value();
    TSNode a[256];
    size_t n = kids(c, field(call, "arguments"), a, 256);
    for (size_t i = 0; i < n; i++) {
        if (is(a[i], "keyword_argument"))
            continue;
        TSNode e = is(a[i], "list_splat") ? ts_node_named_child(a[i], 0) : a[i];
        value item = eval(c, f, e);
        mod m;
        if (!as_module(&item, &m)) {
            char what[64];
            snprintf(what, sizeof what, "what nn.%s holds", name);
            unresolved(c, e, what);
            return unknown();
        }
        mod_add(&v.m, &m);
        v.i += item.kind == V_MODULE && item.i > 0 ? item.i : 1;
        for (int k = 0; k < item.m.nkids && v.m.nkids < MAX_KIDS; k++)
            v.m.kids[v.m.nkids++] = item.m.kids[k];
    }
    return v;
}

/* nn.Parameter(torch.zeros(a, b)): a parameter of a x b (a buffer-like
 * tensor with requires_grad=False). */
static value parameter(ctx *c, frame *f, TSNode call)
{
    TSNode t = arg(c, call, 0, "data");
    value tv = eval(c, f, t);
    if (tv.kind != V_TENSOR) {
        unresolved(c, t, "the shape of an nn.Parameter");
        return unknown();
    }
    TSNode rg = arg(c, call, 1, "requires_grad");
    value g = ts_node_is_null(rg) ? bool_value(true) : eval(c, f, rg);
    int grad = 1;
    if (!truth(&g, &grad))
        grad = 1;
    value v = module_value();
    if (grad)
        v.m.params = v.m.weight = product(tv.ints, tv.nints);
    else
        v.m.buffers = 4 * product(tv.ints, tv.nints);
    return v;
}

/* torch.zeros(a, b) / torch.randn((a, b)) / torch.ones(size=...): the shape. */
static value tensor(ctx *c, frame *f, TSNode call)
{
    TSNode a[16];
    size_t n = kids(c, field(call, "arguments"), a, 16);
    value v = unknown();
    v.kind = V_TENSOR;
    for (size_t i = 0; i < n; i++) {
        TSNode e = is(a[i], "keyword_argument") ? OOM_EST_NULL_NODE : a[i];
        char key[16];
        if (is(a[i], "keyword_argument") && text(c, field(a[i], "name"), key, sizeof key) && strcmp(key, "size") == 0)
            e = field(a[i], "value");
        if (ts_node_is_null(e))
            continue;
        value d = eval(c, f, e);
        if (d.kind == V_INT && v.nints < MAX_INTS) {
            v.ints[v.nints++] = d.i;
        } else if (d.kind == V_INTS) {
            for (int k = 0; k < d.nints && v.nints < MAX_INTS; k++)
                v.ints[v.nints++] = d.ints[k];
        } else {
            return unknown();
        }
    }
    return v;
}

/* ---- instances of the script's classes ----------------------------------- */

static TSNode class_body_function(const ctx *c, TSNode cls, const char *name)
{
    const oom_nodes *L = layout_of(c, cls);
    uint32_t at = oom_nodes_find(L, field(cls, "body"));
    if (at == UINT32_MAX)
        return OOM_EST_NULL_NODE;
    for (uint32_t k = at + 1; k < L->items[at].end; k = L->items[k].end) {
        TSNode s = L->items[k].node;
        TSNode def = is(s, "decorated_definition") ? field(s, "definition") : s;
        char nm[64];
        if (is(def, "function_definition") && text(c, field(def, "name"), nm, sizeof nm) && strcmp(nm, name) == 0)
            return def;
    }
    return OOM_EST_NULL_NODE;
}

static void collect_definitions(const ctx *c, view *v);

/* The view of a project file, made the first time one of its definitions
 * is reached. */
static void view_for(const ctx *c, oom_est_unit *u)
{
    for (size_t i = 0; i < c->views->len; i++)
        if (c->views->items[i]->unit == u)
            return;
    view *v = oom_xcalloc(1, sizeof *v);
    v->unit = u;
    /* the file's module-level names and any options it declares, read as
     * the script's are (a constant a layer's size comes from) */
    v->own = *oom_est_unit_reader(u);
    memset(&v->own.settings, 0, sizeof v->own.settings);
    oom_est_settings_collect(&v->own);
    v->r = &v->own;
    v->layout = oom_est_unit_layout(u);
    v->tree = v->r->root.tree;
    OOM_PUSH(c->views->items, c->views->len, c->views->cap, v);
    collect_definitions(c, v);
}

static const value *lookup(frame *f, const char *name);

/* The class or function another file of the project defines that `e` (a
 * name or a dotted name) refers to through the imports of e's own file:
 * `Net` after `from models.net import Net`, `models.ResNet` after `import
 * models`. A name the running frame binds is not the import. Null when
 * none (a library, a file not in the project). */
static TSNode imported_definition(const ctx *c, frame *f, TSNode e)
{
    char dotted[160], head[64];
    if (!c->project || !(is(e, "identifier") || is(e, "attribute")) || !text(c, e, dotted, sizeof dotted))
        return OOM_EST_NULL_NODE;
    for (const char *p = dotted; *p; p++)
        if (!(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return OOM_EST_NULL_NODE;
    oom_est_printf(head, sizeof head, "%.*s", (int)strcspn(dotted, "."), dotted);
    view *v = view_of(c, e);
    oom_est_def d;
    if ((f && lookup(f, head)) || !oom_est_unit_imports(v->unit, head) ||
        !oom_est_project_resolve(c->project, v->unit, dotted, &d))
        return OOM_EST_NULL_NODE;
    view_for(c, d.unit);
    return d.def;
}

/* The class `name_node` names: one its own file defines, else one an
 * import brings from the project. */
static TSNode script_class(const ctx *c, TSNode name_node)
{
    char name[64];
    if (is(name_node, "identifier") && text(c, name_node, name, sizeof name)) {
        view *v = view_of(c, name_node);
        const TSNode *found = lookup_named(v->classes, v->nclasses, name);
        if (found)
            return *found;
    }
    TSNode d = imported_definition(c, NULL, name_node);
    return is(d, "class_definition") ? d : OOM_EST_NULL_NODE;
}

static TSNode function_named(const ctx *c, TSNode fn);

/* The class or function a name-string lookup picks (registry.c): a dict's
 * entry read as any name of its file is, else the dotted name followed
 * through the imports of the lookup's file. */
static TSNode picked_known(const ctx *c, TSNode fn, const oom_est_pick *pk)
{
    TSNode d = ts_node_is_null(pk->entry) ? OOM_EST_NULL_NODE : script_class(c, pk->entry);
    if (!ts_node_is_null(pk->entry))
        return ts_node_is_null(d) ? function_named(c, pk->entry) : d;
    oom_est_def def;
    if (!c->project || !oom_est_project_resolve(c->project, view_of(c, fn)->unit, pk->dotted, &def))
        return OOM_EST_NULL_NODE;
    view_for(c, def.unit);
    return def.def;
}

static TSNode picked(const ctx *c, TSNode fn, oom_est_pick *pk)
{
    return ts_node_is_null(fn) || !oom_est_pick_of(reader_of(c, fn), fn, pk) || !pk->known ? OOM_EST_NULL_NODE
                                                                                              : picked_known(c, fn, pk);
}

/* `torch.nn.Linear` ...: the last name of a torch.nn class (not Module);
 * NULL otherwise. */
static const char *torch_layer_name(const char *q)
{
    if (!oom_str_starts_with(q, "torch.nn.") || strchr(q + 9, '.') || q[9] < 'A' || q[9] > 'Z' ||
        strcmp(q, "torch.nn.Module") == 0)
        return NULL;
    return q + 9;
}

/* The torch.nn layer a class of the script extends (`class NoisyLinear(nn.Linear)`),
 * into buf; false when none. */
static bool torch_layer_base(const ctx *c, TSNode cls, char *buf, size_t size)
{
    TSNode bases[16];
    size_t n = kids(c, field(cls, "superclasses"), bases, 16);
    for (size_t i = 0; i < n; i++) {
        oom_buf q;
        oom_buf_init(&q);
        const char *name = oom_pymodel_qualname(reader_of(c, bases[i])->m, bases[i], &q) ? torch_layer_name(q.data) : NULL;
        if (name)
            oom_est_copy(buf, size, name);
        oom_buf_free(&q);
        if (name)
            return true;
    }
    return false;
}

/* A class of the script that is an nn.Module: its bases name torch.nn.Module,
 * a LightningModule, or another such class of the script. */
static bool is_module_class(const ctx *c, TSNode cls, int depth)
{
    TSNode bases[16];
    size_t n = kids(c, field(cls, "superclasses"), bases, 16);
    for (size_t i = 0; i < n && depth < 8; i++) {
        oom_buf q;
        oom_buf_init(&q);
        bool yes = oom_pymodel_qualname(reader_of(c, bases[i])->m, bases[i], &q) &&
                   (oom_str_ends_with(q.data, "nn.Module") || oom_str_ends_with(q.data, "LightningModule") ||
                    torch_layer_name(q.data));
        oom_buf_free(&q);
        TSNode base = script_class(c, bases[i]);
        if (yes || (!ts_node_is_null(base) && !ts_node_eq(base, cls) && is_module_class(c, base, depth + 1)))
            return true;
    }
    return false;
}

/* The first base of a class that is a class of the script. */
static TSNode script_base(const ctx *c, TSNode cls)
{
    TSNode bases[16];
    size_t n = kids(c, field(cls, "superclasses"), bases, 16);
    for (size_t i = 0; i < n; i++) {
        TSNode base = script_class(c, bases[i]);
        if (!ts_node_is_null(base) && !ts_node_eq(base, cls))
            return base;
    }
    return OOM_EST_NULL_NODE;
}

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

static value from_config(ctx *c, const oom_est_config *k);

/* The value a `**config["model"]` of the call passes for parameter `nm`;
 * false when none does (a key the config lacks leaves the default; without
 * one, the key is what would settle the size). */
static bool splatted(ctx *c, frame *caller, const TSNode *args, size_t na, const char *nm, bool dflt, value *out)
{
    for (size_t k = 0; k < na; k++) {
        value d = is(args[k], "dictionary_splat") ? eval(c, caller, ts_node_named_child(args[k], 0)) : unknown();
        const oom_est_config *key = d.kind == V_CONFIG ? oom_est_config_key(c->configs, d.cfg, nm) : NULL;
        if (key && (oom_est_config_kind_of(key) != OOM_CFG_MISSING || !dflt)) {
            *out = from_config(c, key); /* an unreadable file: unknown, never the default */
            return true;
        }
    }
    return false;
}

/* Binds a function's parameters from a call: positional, keyword, then the
 * defaults; the first `skip` parameters (self) are not bound. */
static void bind_parameters(ctx *c, frame *caller, TSNode call, TSNode def, frame *callee, int skip)
{
    TSNode ps[64], args[64];
    size_t n = kids(c, field(def, "parameters"), ps, 64);
    size_t na = ts_node_is_null(call) ? 0 : kids(c, field(call, "arguments"), args, 64);
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
            v = eval(c, caller, given);
        else if (!splatted(c, caller, args, na, nm, !ts_node_is_null(field(p, "value")), &v) &&
                 !ts_node_is_null(field(p, "value")))
            v = eval(c, callee->parent, field(p, "value"));
        set_var(callee, nm, &v);
    }
}

/* The parameters a finished instance holds: every self.<name> that is a
 * module or a parameter (paths into a ModuleDict are only for tied weights). */
static value instance_total(frame *self)
{
    value v = module_value();
    for (size_t i = 0; i < self->nattrs; i++) {
        mod m;
        if (strchr(self->attrs[i].name, '.') || self->attrs[i].v.plain || !as_module(&self->attrs[i].v, &m))
            continue;
        mod_add(&v.m, &m);
    }
    return v;
}

/* Runs __init__ (or the first base's, when the class has none) on `self`. */
static void run_init(ctx *c, frame *caller, TSNode call, TSNode cls, frame *self)
{
    TSNode init = class_body_function(c, cls, "__init__");
    if (ts_node_is_null(init)) {
        TSNode base = script_base(c, cls);
        char layer[48];
        if (!ts_node_is_null(base) && c->depth < MAX_DEPTH) {
            c->depth++;
            run_init(c, caller, call, base, self);
            c->depth--;
        } else if (torch_layer_base(c, cls, layer, sizeof layer)) { /* the layer itself, as called */
            value v = nn_layer(c, caller, call, layer);
            set_attr(self, "__base__", &v);
        }
        return;
    }
    frame *body = frame_new(c, NULL);
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
        TSNode given = annotated ? arg(c, call, pos++, nm) : OOM_EST_NULL_NODE;
        TSNode dflt = field(a, "right");
        value v = !ts_node_is_null(given) ? eval(c, caller, given) : ts_node_is_null(dflt) ? unknown() : eval(c, NULL, dflt);
        set_attr(obj, nm, &v);
    }
}

static value instantiate(ctx *c, frame *caller, TSNode call, TSNode cls)
{
    if (c->depth >= MAX_DEPTH) {
        unresolved(c, call, "classes nested too deeply");
        return unknown();
    }
    frame *self = frame_new(c, NULL);
    c->depth++;
    bool module = is_module_class(c, cls, 0);
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
    return v;
}

/* A function of the script called while building: its body runs with the
 * arguments bound, and its first `return` is the value. */
static bool eval_forwarded(ctx *c, frame *caller, TSNode call, TSNode def, TSNode e, int depth, value *out);

static value call_function(ctx *c, frame *caller, TSNode call, TSNode def, frame *closure)
{
    if (c->depth >= MAX_DEPTH) {
        unresolved(c, call, "calls nested too deeply");
        return unknown();
    }
    value forwarded;
    if (eval_forwarded(c, caller, call, def, OOM_EST_NULL_NODE, 0, &forwarded))
        return forwarded;
    frame *body = frame_new(c, closure);
    bind_parameters(c, caller, call, def, body, 0);
    c->depth++;
    exec_block(c, body, field(def, "body"));
    c->depth--;
    return body->returned ? body->ret : unknown();
}

/* ---- expressions ---------------------------------------------------------- */

static bool name_of(const ctx *c, TSNode n, char *buf, size_t size)
{
    return is(n, "identifier") && text(c, n, buf, size);
}

static const value *lookup(frame *f, const char *name)
{
    for (; f; f = f->parent) {
        var *v = find_var(f->vars, f->nvars, name);
        if (v)
            return &v->v;
    }
    return NULL;
}

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

/* The frame that builds an instance (`self`), walking out through closures. */
static frame *builder(frame *f)
{
    for (; f; f = f->parent)
        if (f->inst)
            return f;
    return NULL;
}

static bool is_self(const ctx *c, frame *f, TSNode n)
{
    frame *b = builder(f);
    char nm[24];
    return b && name_of(c, n, nm, sizeof nm) && strcmp(nm, b->self_name) == 0;
}

static value eval_identifier(ctx *c, frame *f, TSNode e)
{
    char nm[48];
    if (!name_of(c, e, nm, sizeof nm))
        return unknown();
    const value *known = lookup(f, nm);
    if (known)
        return *known;
    view *here = view_of(c, e);
    const TSNode *def = lookup_named(here->classes, here->nclasses, nm);
    value v = unknown();
    if (def) {
        v.kind = V_CLASS;
        v.node = *def;
        return v;
    }
    def = lookup_named(here->functions, here->nfunctions, nm);
    if (def) {
        v.kind = V_FUNC;
        v.node = *def;
        return v;
    }
    TSNode imported = imported_definition(c, f, e);
    if (!ts_node_is_null(imported)) {
        v.kind = is(imported, "class_definition") ? V_CLASS : V_FUNC;
        v.node = imported;
        return v;
    }
    TSNode bound = oom_pymodel_value_of(here->r->m, e, 0);
    if (ts_node_is_null(bound)) /* a global the module binds after the function (configs.c) */
        bound = oom_est_global_value(c->configs, here->r, here->layout, e);
    if (!ts_node_is_null(bound) && !ts_node_eq(bound, e) && !is(bound, "identifier") && c->depth < MAX_DEPTH) {
        c->depth++;
        v = eval(c, NULL, bound);
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
    TSNode imported = is_self(c, f, object) ? OOM_EST_NULL_NODE : imported_definition(c, f, e);
    if (!ts_node_is_null(imported)) { /* `models.ResNet` after `import models` */
        value v = unknown();
        v.kind = is(imported, "class_definition") ? V_CLASS : V_FUNC;
        v.node = imported;
        return v;
    }
    if (is_self(c, f, object)) {
        holder = builder(f)->inst;
    } else if (is(object, "identifier") || is(object, "attribute")) {
        value o = eval(c, f, object);
        if (o.kind == V_OBJECT)
            holder = o.obj;
        TSNode in_class = o.kind == V_CLASS ? oom_est_class_attribute(reader_of(c, o.node), o.node, attr) : OOM_EST_NULL_NODE;
        if (!ts_node_is_null(in_class)) /* `block.expansion`: BasicBlock's `expansion = 1` */
            return eval(c, NULL, in_class);
        const oom_est_setting *s = o.kind == V_ARGS ? oom_est_setting_named(o.args, attr) : NULL;
        if (s && s->kind != OOM_SETTING_MODULE)
            return from_setting(o.args, s);
    }
    if (holder) {
        var *v = find_var(holder->attrs, holder->nattrs, attr);
        return v ? v->v : unknown();
    }
    const oom_est_setting *s = oom_est_setting_read_by(reader_of(c, e), e);
    return s ? from_setting(reader_of(c, e), s) : unknown();
}

static bool numeric(const value *v)
{
    return v->kind == V_INT || v->kind == V_BOOL || v->kind == V_FLOAT;
}

static double as_double(const value *v)
{
    return v->kind == V_FLOAT ? v->f : (double)v->i;
}

static value float_value(double d)
{
    value v = unknown();
    v.kind = V_FLOAT;
    v.f = d;
    return v;
}

static long long ipow(long long b, long long e)
{
    long long r = 1;
    for (long long i = 0; i < e && i < 64; i++)
        r *= b;
    return r;
}

/* Python's floor division on ints. */
static long long floor_div(long long a, long long b)
{
    long long q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static value arithmetic(const value *l, const value *r, const char *op)
{
    if (l->kind == V_MODULE && r->kind == V_MODULE && strcmp(op, "+") == 0) { /* list + list */
        value v = *l;
        mod_add(&v.m, &r->m);
        v.i = l->i + r->i;
        return v;
    }
    if (l->kind == V_INTS && r->kind == V_INTS && strcmp(op, "+") == 0 && l->nints + r->nints <= MAX_INTS) {
        value v = *l;
        memcpy(v.ints + v.nints, r->ints, sizeof(long long) * (size_t)r->nints);
        v.nints += r->nints;
        return v;
    }
    if ((l->kind == V_TENSOR && numeric(r)) || (r->kind == V_TENSOR && numeric(l)))
        return l->kind == V_TENSOR ? *l : *r; /* scaling keeps the shape */
    if (!numeric(l) || !numeric(r))
        return unknown();
    bool ints = l->kind != V_FLOAT && r->kind != V_FLOAT;
    long long a = l->i, b = r->i;
    double x = as_double(l), y = as_double(r);
    if (strcmp(op, "+") == 0)
        return ints ? int_value(a + b) : float_value(x + y);
    if (strcmp(op, "-") == 0)
        return ints ? int_value(a - b) : float_value(x - y);
    if (strcmp(op, "*") == 0)
        return ints ? int_value(a * b) : float_value(x * y);
    if (strcmp(op, "/") == 0)
        return y != 0 ? float_value(x / y) : unknown();
    if (strcmp(op, "//") == 0)
        return !ints ? (y != 0 ? float_value(floor(x / y)) : unknown()) : b != 0 ? int_value(floor_div(a, b)) : unknown();
    if (strcmp(op, "%") == 0)
        return ints && b != 0 ? int_value(a - floor_div(a, b) * b) : unknown();
    if (strcmp(op, "**") == 0)
        return ints && b >= 0 ? int_value(ipow(a, b)) : float_value(pow(x, y));
    if (strcmp(op, "<<") == 0)
        return ints && b >= 0 && b < 62 ? int_value(a << b) : unknown();
    if (strcmp(op, ">>") == 0)
        return ints && b >= 0 && b < 62 ? int_value(a >> b) : unknown();
    return unknown();
}

static value eval_binary(ctx *c, frame *f, TSNode e)
{
    char op[4];
    value l = eval(c, f, field(e, "left")), r = eval(c, f, field(e, "right"));
    if (!text(c, field(e, "operator"), op, sizeof op))
        return unknown();
    return arithmetic(&l, &r, op);
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
    value l = eval(c, f, ln), r = eval(c, f, rn);
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

static value empty_list(void)
{
    value v = module_value();
    v.i = 0; /* the number of items */
    return v;
}

/* Appends one element to a list being built: ints stay a tuple of ints,
 * modules add up; anything else makes the list unknown (a module in it
 * that cannot be read keeps `maybe_module`). */
static void list_add(value *list, const value *item)
{
    if (list->kind == V_UNKNOWN)
        return;
    if (item->kind == V_INT && (list->kind == V_INTS || (list->kind == V_MODULE && list->i == 0)) &&
        list->nints < MAX_INTS) {
        list->kind = V_INTS;
        list->ints[list->nints++] = item->i;
        return;
    }
    if (list->kind == V_MODULE && (item->kind == V_MODULE || item->kind == V_NONE)) {
        if (item->kind == V_MODULE)
            mod_add(&list->m, &item->m);
        list->i++;
        return;
    }
    bool maybe = item->maybe_module;
    TSNode at = item->node;
    *list = unknown();
    list->maybe_module = maybe;
    list->node = at;
}

static void list_extend(value *list, const value *items)
{
    if (items->kind == V_INTS) {
        for (int k = 0; k < items->nints; k++) {
            value one = int_value(items->ints[k]);
            list_add(list, &one);
        }
    } else if (items->kind == V_MODULE) {
        if (list->kind == V_MODULE) {
            mod_add(&list->m, &items->m);
            list->i += items->i;
        } else if (!(list->kind == V_INTS && items->i == 0)) {
            *list = unknown();
        }
    } else {
        list_add(list, items);
    }
}

static value eval_sequence(ctx *c, frame *f, TSNode e)
{
    TSNode items[256];
    size_t n = kids(c, e, items, 256);
    value list = empty_list();
    list.plain = true;
    for (size_t i = 0; i < n; i++) {
        if (is(items[i], "list_splat")) {
            value inner = eval(c, f, ts_node_named_child(items[i], 0));
            list_extend(&list, &inner);
        } else {
            value item = eval(c, f, items[i]);
            list_add(&list, &item);
        }
    }
    return list;
}

/* {"a": nn.Linear(...), ...} and dict(a=...): modules with their names. */
static void add_named(value *d, const char *name, const value *item)
{
    list_add(d, item);
    if (d->kind == V_MODULE && item->kind == V_MODULE && d->m.nkids < MAX_KIDS) {
        oom_est_copy(d->m.kids[d->m.nkids].name, sizeof d->m.kids[0].name, name);
        d->m.kids[d->m.nkids++].weight = item->m.weight;
    }
}

static value eval_dictionary(ctx *c, frame *f, TSNode e)
{
    TSNode pairs[128];
    size_t n = kids(c, e, pairs, 128);
    value d = empty_list();
    d.plain = true;
    for (size_t i = 0; i < n; i++) {
        if (!is(pairs[i], "pair"))
            return unknown();
        value key = eval(c, f, field(pairs[i], "key")), item = eval(c, f, field(pairs[i], "value"));
        add_named(&d, key.kind == V_STR ? key.s : "", &item);
    }
    return d;
}

static void bind_target(ctx *c, frame *f, TSNode target, const value *v);

#define MAX_ITER 4096

/* range(a), range(a, b), range(a, b, step) into out; -1 when it cannot be
 * told or is longer than max. */
static long long iterate_range(ctx *c, frame *f, const TSNode *a, size_t n, value *out, long long max)
{
    long long v[3] = {0, 0, 1};
    for (size_t i = 0; i < n; i++) {
        value x = eval(c, f, a[i]);
        if (x.kind != V_INT)
            return -1;
        v[n == 1 ? 1 : i] = x.i;
    }
    if (v[2] == 0)
        return -1;
    long long count = 0;
    for (long long i = v[0]; v[2] > 0 ? i < v[1] : i > v[1]; i += v[2]) {
        if (count >= max)
            return -1;
        out[count++] = int_value(i);
    }
    return count;
}

/* The values a `for` (or a comprehension) runs over: range(), a tuple of
 * ints, a literal list (or a module-level name bound to one), enumerate() of
 * those; -1 when it cannot be told. */
static long long iterate(ctx *c, frame *f, TSNode iter, value *out, long long max)
{
    if (is(iter, "call")) {
        char fn[16];
        TSNode a[4];
        size_t n = kids(c, field(iter, "arguments"), a, 4);
        if (!text(c, field(iter, "function"), fn, sizeof fn))
            return -1;
        if (strcmp(fn, "range") == 0 && n >= 1 && n <= 3)
            return iterate_range(c, f, a, n, out, max);
        if (strcmp(fn, "enumerate") == 0 && n == 1) {
            long long count = iterate(c, f, a[0], out, max);
            for (long long i = 0; i < count; i++) {
                if (out[i].kind != V_INT)
                    return -1;
                long long x = out[i].i;
                out[i] = unknown();
                out[i].kind = V_INTS;
                out[i].ints[0] = i, out[i].ints[1] = x, out[i].nints = 2;
            }
            return count;
        }
        return -1;
    }
    if (is(iter, "list") || is(iter, "tuple")) {
        TSNode items[256];
        size_t n = kids(c, iter, items, 256);
        if ((long long)n > max)
            return -1;
        for (size_t i = 0; i < n; i++)
            out[i] = eval(c, f, items[i]);
        return (long long)n;
    }
    char nm[48];
    if (name_of(c, iter, nm, sizeof nm) && !lookup(f, nm)) {
        TSNode bound = oom_pymodel_value_of(reader_of(c, iter)->m, iter, 0);
        if (is(bound, "list") || is(bound, "tuple"))
            return iterate(c, NULL, bound, out, max);
    }
    value v = eval(c, f, iter);
    if (v.kind != V_INTS)
        return -1;
    for (int i = 0; i < v.nints; i++)
        out[i] = int_value(v.ints[i]);
    return v.nints;
}

/* [Block(d) for _ in range(n)]: one for-clause, an optional if-clause. */
static value eval_comprehension(ctx *c, frame *f, TSNode e)
{
    TSNode parts[8];
    size_t n = kids(c, e, parts, 8);
    TSNode body = field(e, "body"), clause = OOM_EST_NULL_NODE, cond = OOM_EST_NULL_NODE;
    for (size_t i = 0; i < n; i++) {
        if (is(parts[i], "for_in_clause")) {
            if (!ts_node_is_null(clause))
                return unknown(); /* nested loops */
            clause = parts[i];
        } else if (is(parts[i], "if_clause")) {
            cond = ts_node_named_child(parts[i], 0);
        }
    }
    if (ts_node_is_null(clause))
        return unknown();
    value *items = oom_xcalloc(MAX_ITER, sizeof *items);
    long long count = iterate(c, f, field(clause, "right"), items, MAX_ITER);
    value list = empty_list();
    list.plain = true;
    frame *inner = frame_new(c, f);
    for (long long i = 0; i < count && list.kind != V_UNKNOWN; i++) {
        bind_target(c, inner, field(clause, "left"), &items[i]);
        int keep = 1;
        if (!ts_node_is_null(cond)) {
            value cv = eval(c, inner, cond);
            if (!truth(&cv, &keep)) {
                list = unknown();
                break;
            }
        }
        if (keep) {
            value item = eval(c, inner, body);
            list_add(&list, &item);
        }
    }
    free(items);
    if (count < 0) {
        unresolved(c, field(clause, "right"), "what a comprehension runs over");
        return unknown();
    }
    return list;
}

/* Calls whose result is not a module: builtins, math, numpy, torch's
 * functions (not its nn classes), logging. */
static bool not_a_module(const char *q)
{
    static const char *const names[] = {"print", "isinstance", "getattr", "hasattr", "str", "repr", "float",
                                        "list", "dict", "tuple", "set", "range", "enumerate", "zip", "super",
                                        "sorted", "type", "len", "int", "round", "sum", "min", "max", "abs",
                                        "bool", "any", "all", "format", "id", "iter", "next", "open", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(q, names[i]) == 0)
            return true;
    return oom_str_starts_with(q, "math.") || oom_str_starts_with(q, "numpy.") ||
           (oom_str_starts_with(q, "torch.") && !oom_str_starts_with(q, "torch.nn.")) ||
           oom_str_starts_with(q, "torch.nn.functional.") || oom_str_starts_with(q, "torch.nn.init.") ||
           oom_str_starts_with(q, "logging.") || oom_str_starts_with(q, "os.") || oom_str_starts_with(q, "warnings.") ||
           /* environments, data transforms, the standard library */
           oom_str_starts_with(q, "gym.") || oom_str_starts_with(q, "gymnasium.") || oom_str_starts_with(q, "envpool.") ||
           oom_str_starts_with(q, "torchvision.transforms.") || oom_str_starts_with(q, "transforms.") ||
           oom_str_starts_with(q, "random.") || oom_str_starts_with(q, "collections.") ||
           oom_str_starts_with(q, "functools.") || oom_str_starts_with(q, "itertools.") || oom_str_starts_with(q, "re.") ||
           oom_str_starts_with(q, "json.") || oom_str_starts_with(q, "time.") || oom_str_starts_with(q, "pathlib.");
}

static bool eval_min_max(ctx *c, frame *f, const TSNode *a, size_t n, const value *first, bool hi, value *out)
{
    value best = n == 1 && first->kind == V_INTS && first->nints > 0 ? int_value(first->ints[0]) : *first;
    if (n == 1 && first->kind == V_INTS)
        for (int i = 1; i < first->nints; i++)
            if (hi ? first->ints[i] > best.i : first->ints[i] < best.i)
                best.i = first->ints[i];
    for (size_t i = 1; i < n; i++) {
        value x = eval(c, f, a[i]);
        if (!numeric(&x) || !numeric(&best))
            return true;
        if (hi ? as_double(&x) > as_double(&best) : as_double(&x) < as_double(&best))
            best = x;
    }
    if (numeric(&best))
        *out = best;
    return true;
}

/* int(), max(), len(), math.prod() ...: the numeric builtins sizes use. */
static bool eval_builtin(ctx *c, frame *f, TSNode call, const char *q, value *out)
{
    TSNode a[8];
    size_t n = kids(c, field(call, "arguments"), a, 8);
    *out = unknown();
    if (n == 0)
        return false;
    value first = eval(c, f, a[0]);
    if (strcmp(q, "int") == 0 && n == 1) {
        if (first.kind == V_INT || first.kind == V_BOOL)
            *out = int_value(first.i);
        else if (first.kind == V_FLOAT && fabs(first.f) < 1e15)
            *out = int_value((long long)first.f);
        return true;
    }
    if (strcmp(q, "float") == 0 && n == 1) {
        if (numeric(&first))
            *out = float_value(as_double(&first));
        return true;
    }
    if ((strcmp(q, "math.ceil") == 0 || strcmp(q, "math.floor") == 0) && n == 1) {
        if (numeric(&first))
            *out = int_value((long long)(q[5] == 'c' ? ceil(as_double(&first)) : floor(as_double(&first))));
        return true;
    }
    if (strcmp(q, "round") == 0 && n == 1) {
        if (numeric(&first))
            *out = int_value((long long)nearbyint(as_double(&first)));
        return true;
    }
    if (strcmp(q, "max") == 0 || strcmp(q, "min") == 0)
        return eval_min_max(c, f, a, n, &first, q[1] == 'a', out);
    if (strcmp(q, "len") == 0 && n == 1) {
        if (first.kind == V_INTS)
            *out = int_value(first.nints);
        else if (first.kind == V_STR)
            *out = int_value((long long)strlen(first.s));
        else if (first.kind == V_CONFIG && oom_est_config_len(c->configs, first.cfg, &out->i)) /* len(json.load(f)) */
            *out = int_value(out->i);
        return true;
    }
    if (strcmp(q, "math.prod") == 0 || strcmp(q, "numpy.prod") == 0 || strcmp(q, "sum") == 0) {
        bool add = q[0] == 's';
        if (first.kind == V_INTS) {
            long long r = add ? 0 : 1;
            for (int i = 0; i < first.nints; i++)
                r = add ? r + first.ints[i] : r * first.ints[i];
            *out = int_value(r);
        } else if (first.kind == V_INT) {
            *out = first;
        }
        return true;
    }
    if ((strcmp(q, "tuple") == 0 || strcmp(q, "list") == 0) && n == 1) {
        *out = first;
        return true;
    }
    if (strcmp(q, "abs") == 0 && n == 1) {
        if (first.kind == V_INT)
            *out = int_value(first.i < 0 ? -first.i : first.i);
        return true;
    }
    return false;
}

/* OrderedDict([("fc", nn.Linear(...)), ...]): the modules it holds, named. */
static value ordered_dict(ctx *c, frame *f, TSNode call)
{
    TSNode items[256];
    TSNode list = arg(c, call, 0, NULL);
    value d = empty_list();
    d.plain = true;
    if (ts_node_is_null(list))
        return d;
    size_t n = kids(c, list, items, 256);
    for (size_t i = 0; i < n; i++) {
        if (!is(items[i], "tuple") || ts_node_named_child_count(items[i]) != 2)
            return unknown();
        value key = eval(c, f, ts_node_named_child(items[i], 0));
        value item = eval(c, f, ts_node_named_child(items[i], 1));
        add_named(&d, key.kind == V_STR ? key.s : "", &item);
    }
    return d;
}

static value dict_call(ctx *c, frame *f, TSNode call)
{
    TSNode a[128];
    size_t n = kids(c, field(call, "arguments"), a, 128);
    value d = empty_list();
    d.plain = true;
    for (size_t i = 0; i < n; i++) {
        char key[32];
        if (!is(a[i], "keyword_argument") || !text(c, field(a[i], "name"), key, sizeof key))
            return unknown();
        value item = eval(c, f, field(a[i], "value"));
        add_named(&d, key, &item);
    }
    return d;
}

/* Methods that keep a module or a tensor what it is (moved, cast,
 * initialised, viewed: the same number of elements). */
static bool keeps_value(const char *method)
{
    static const char *const names[] = {"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "train",
                                        "requires_grad_", "uniform_", "normal_", "zero_", "fill_", "mul",
                                        "mul_", "div", "div_", "add", "add_", "sub", "sub_", "clone", "detach",
                                        "contiguous", "view", "reshape", "t", "transpose", "permute", "squeeze",
                                        "unsqueeze", "type", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(method, names[i]) == 0)
            return true;
    return false;
}

/* self.method(...) while building: the class's (or a base's) method. */
static TSNode find_method(const ctx *c, TSNode cls, const char *name)
{
    for (int depth = 0; depth < 8 && !ts_node_is_null(cls); depth++) {
        TSNode def = class_body_function(c, cls, name);
        if (!ts_node_is_null(def))
            return def;
        cls = script_base(c, cls);
    }
    return OOM_EST_NULL_NODE;
}

/* Runs a method on the instance `f` builds (`self._make_layer(...)`). */
static value run_method(ctx *c, frame *f, TSNode call, TSNode def, TSNode cls)
{
    frame *b = builder(f);
    if (c->depth >= MAX_DEPTH) {
        unresolved(c, call, "calls nested too deeply");
        return unknown();
    }
    frame *body = frame_new(c, NULL);
    body->inst = b->inst;
    body->cls = cls;
    bind_parameters(c, f, call, def, body, 1);
    c->depth++;
    exec_block(c, body, field(def, "body"));
    c->depth--;
    return body->returned ? body->ret : unknown();
}

static bool is_weight_norm(const char *q)
{
    return strcmp(q, "torch.nn.utils.weight_norm") == 0 || strcmp(q, "torch.nn.utils.parametrizations.weight_norm") == 0;
}

/* The torch.nn layer a call builds ("Conv1d"), its function named in the
 * call's own file; NULL when it builds none. */
static const char *layer_called(const ctx *c, TSNode call, oom_buf *q)
{
    return is(call, "call") && oom_pymodel_qualname(reader_of(c, call)->m, field(call, "function"), q)
               ? torch_layer_name(q->data)
               : NULL;
}

/* weight_norm splits a layer's weight into a direction of the weight's
 * shape and a magnitude per row (dim 0, PyTorch's default): one parameter
 * more per row. The rows are read from `args_call` (the call whose
 * arguments the layer gets), the layer's kind from `layer_call`. */
static void add_weight_norm(ctx *c, frame *f, TSNode layer_call, TSNode args_call, value *v)
{
    oom_buf q;
    oom_buf_init(&q);
    const char *layer = v->kind == V_MODULE ? layer_called(c, layer_call, &q) : NULL;
    long long rows = -1;
    bool ok = layer && ((oom_str_starts_with(layer, "ConvTranspose") &&
                         opt_int(c, f, args_call, 0, "in_channels", -1, "in_channels of a convolution", &rows)) ||
                        (!oom_str_starts_with(layer, "ConvTranspose") && oom_str_starts_with(layer, "Conv") &&
                         opt_int(c, f, args_call, 1, "out_channels", -1, "out_channels of a convolution", &rows)) ||
                        (strcmp(layer, "Linear") == 0 &&
                         opt_int(c, f, args_call, 1, "out_features", -1, "out_features of nn.Linear", &rows)));
    oom_buf_free(&q);
    if (ok && rows > 0)
        v->m.params += rows;
    else if (v->kind == V_MODULE)
        unresolved(c, layer_call, "the rows of a weight-normed layer");
}

/* A config's value as the evaluator holds values; an object or a list
 * stays a config to subscript. A missing file or key is unknown, and says
 * which one would settle the size. */
static value from_config(ctx *c, const oom_est_config *k)
{
    value v = unknown();
    oom_est_config_kind kind = oom_est_config_kind_of(k);
    if (!oom_est_config_read(c->configs, k))
        return v;
    if (kind == OOM_CFG_INT || kind == OOM_CFG_FLOAT)
        v = kind == OOM_CFG_INT ? int_value((long long)oom_est_config_number(k))
                                : float_value(oom_est_config_number(k));
    else if (kind == OOM_CFG_BOOL || kind == OOM_CFG_NULL)
        v = kind == OOM_CFG_BOOL ? bool_value(oom_est_config_true(k)) : (value){.kind = V_NONE};
    else if (kind == OOM_CFG_STRING) /* one cut short would be another path or name: unknown */
        v.kind = strlen(oom_est_config_string(k)) < sizeof v.s ? V_STR : V_UNKNOWN,
        oom_est_copy(v.s, sizeof v.s, oom_est_config_string(k));
    else if ((v.nints = (int)oom_est_config_ints(k, v.ints, MAX_INTS)) > 0)
        v.kind = V_INTS;
    else
        v.kind = V_CONFIG, v.cfg = k;
    return v;
}

/* config["k"] and config.get("k", default) of a config read. */
static value config_key(ctx *c, frame *f, const value *of, TSNode key_node, TSNode dflt, bool get)
{
    value key = eval(c, f, key_node);
    if (key.kind == V_INT) /* a list's index, as the key text configs.c reads */
        snprintf(key.s, sizeof key.s, "%lld", key.i);
    else if (key.kind != V_STR)
        return unknown();
    const oom_est_config *at = oom_est_config_key(c->configs, of->cfg, key.s);
    if (get && oom_est_config_kind_of(at) == OOM_CFG_MISSING)
        return ts_node_is_null(dflt) ? (value){.kind = V_NONE} : eval(c, f, dflt);
    return from_config(c, at);
}

/* A torch (or builtin) callable by its qualified name. */
static value eval_named_call(ctx *c, frame *f, TSNode call, const char *name)
{
    int yaml = oom_est_config_loader(name); /* json.load(open(path)), yaml.safe_load(f) ... (configs.c) */
    if (yaml >= 0) {
        TSNode p = oom_est_config_path_of(reader_of(c, call), layout_of(c, call), call);
        value path = eval(c, f, p);
        if (path.kind == V_STR)
            return from_config(c, oom_est_config_open(c->configs, c->r, path.s, yaml));
        oom_est_config_path_unknown(c->configs, reader_of(c, call), ts_node_is_null(p) ? call : p, yaml);
        return unknown(); /* the reason only if a size needs it */
    }
    const char *last = strrchr(name, '.') ? strrchr(name, '.') + 1 : name;
    value v = unknown();
    if (strcmp(name, "torch.nn.Parameter") == 0 || strcmp(name, "torch.nn.parameter.Parameter") == 0)
        return parameter(c, f, call);
    if (oom_str_starts_with(name, "torch.nn.") && !strchr(name + 9, '.') && name[9] >= 'A' && name[9] <= 'Z')
        return nn_layer(c, f, call, last);
    if (is_weight_norm(name)) {
        TSNode inner = arg(c, call, 0, "module");
        value normed = eval(c, f, inner);
        TSNode made = is(inner, "identifier") ? oom_pymodel_value_of(reader_of(c, inner)->m, inner, 0) : inner;
        made = is(made, "call") ? made : inner; /* `start = nn.Conv1d(...)`, then weight_norm(start) */
        add_weight_norm(c, f, made, made, &normed);
        return normed;
    }
    if (strcmp(name, "torch.nn.utils.spectral_norm") == 0 ||
        strcmp(name, "torch.nn.utils.parametrizations.spectral_norm") == 0 || strcmp(name, "copy.deepcopy") == 0)
        return eval(c, f, arg(c, call, 0, NULL));
    if (strcmp(name, "torch.zeros") == 0 || strcmp(name, "torch.ones") == 0 || strcmp(name, "torch.randn") == 0 ||
        strcmp(name, "torch.rand") == 0 || strcmp(name, "torch.empty") == 0 || strcmp(name, "torch.Tensor") == 0 ||
        strcmp(name, "torch.FloatTensor") == 0)
        return tensor(c, f, call);
    if (strcmp(name, "collections.OrderedDict") == 0 || strcmp(name, "OrderedDict") == 0)
        return ordered_dict(c, f, call);
    if (strcmp(name, "dict") == 0)
        return dict_call(c, f, call);
    if (eval_builtin(c, f, call, name, &v))
        return v;
    if (!not_a_module(name)) {
        v.maybe_module = true;
        v.node = call;
    }
    return v;
}

/* Whether every argument of call `e` passes the wrapper's own *args or
 * **kwargs on as they came. */
static bool passes_through(const ctx *c, TSNode def, TSNode e)
{
    TSNode ps[4], as[4];
    size_t np = kids(c, field(def, "parameters"), ps, 4), na = kids(c, field(e, "arguments"), as, 4);
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
        size_t np = kids(c, field(def, "parameters"), ps, 4), nb = kids(c, field(def, "body"), body, 3);
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
        value callee = eval(c, NULL, fn);
        handled = true;
        if (callee.kind == V_CLASS)
            *out = instantiate(c, caller, call, callee.node);
        else if (callee.kind == V_FUNC)
            *out = call_function(c, caller, call, callee.node, callee.obj);
        else if (named)
            *out = eval_named_call(c, caller, call, q.data);
        else
            handled = false;
    } else if (named && (is_weight_norm(q.data) || strcmp(q.data, "torch.nn.utils.spectral_norm") == 0 ||
                         strcmp(q.data, "torch.nn.utils.parametrizations.spectral_norm") == 0)) {
        TSNode inner = arg(c, e, 0, "module");
        handled = eval_forwarded(c, caller, call, def, inner, depth + 1, out);
        if (handled && is_weight_norm(q.data))
            add_weight_norm(c, caller, inner, call, out);
    }
    oom_buf_free(&q);
    return handled;
}

static value eval_call(ctx *c, frame *f, TSNode call)
{
    TSNode fn = field(call, "function");
    if (is(fn, "attribute")) {
        char method[32];
        TSNode object = field(fn, "object");
        if (!text(c, field(fn, "attribute"), method, sizeof method))
            return unknown();
        frame *b = builder(f);
        if (b && is_self(c, f, object)) {
            TSNode def = find_method(c, b->cls, method);
            if (!ts_node_is_null(def))
                return run_method(c, f, call, def, b->cls);
        }
        value o = strcmp(method, "get") == 0 ? eval(c, f, object) : unknown();
        if (o.kind == V_CONFIG)
            return config_key(c, f, &o, arg(c, call, 0, NULL), arg(c, call, 1, "default"), true);
        if (keeps_value(method)) {
            o = eval(c, f, object);
            if (o.kind == V_MODULE || o.kind == V_TENSOR)
                return o;
        }
        o = eval(c, f, object); /* `args.arch.startswith("resnext")`, `block_name.lower()` */
        value a = ts_node_is_null(arg(c, call, 0, NULL)) ? unknown() : eval(c, f, arg(c, call, 0, NULL));
        int sm = o.kind == V_STR ? oom_est_string_method(method, o.s, a.kind == V_STR ? a.s : NULL, a.s, sizeof a.s) : -1;
        if (sm == 0 || sm == 1 || sm == 2)
            return sm == 2 ? (a.kind = V_STR, a) : bool_value(sm == 1);
    }
    oom_est_pick pk;
    TSNode def = picked(c, fn, &pk); /* getattr(models, args.arch)(...), MODELS[args.model](...) */
    value k = ts_node_is_null(def) && !pk.known && !ts_node_is_null(pk.key_node) ? eval(c, f, pk.key_node) : unknown();
    char kt[48] = "name"; /* a factory's parameter bound to the name: `def build(name): return MODELS[name]()` */
    if (k.kind == V_STR && text(c, pk.key_node, kt, sizeof kt) && oom_est_pick_key(reader_of(c, fn), &pk, k.s, kt))
        def = picked_known(c, fn, &pk);
    if (is(def, "class_definition"))
        return instantiate(c, f, call, def);
    if (is(def, "function_definition"))
        return call_function(c, f, call, def, NULL);
    value callee = (is(fn, "identifier") || is(fn, "attribute")) ? eval(c, f, fn) : unknown();
    if (callee.kind == V_CLASS)
        return instantiate(c, f, call, callee.node);
    if (callee.kind == V_FUNC)
        return call_function(c, f, call, callee.node, callee.obj);
    oom_buf q;
    oom_buf_init(&q);
    value v = unknown();
    if (oom_pymodel_qualname(reader_of(c, fn)->m, fn, &q)) {
        v = eval_named_call(c, f, call, q.data);
    } else {
        v.maybe_module = true;
        v.node = call;
    }
    oom_buf_free(&q);
    return v;
}

static value eval_node(ctx *c, frame *f, TSNode e);

/* Bounded: a deeply nested expression must not exhaust the stack. */
static value eval(ctx *c, frame *f, TSNode e)
{
    if (ts_node_is_null(e))
        return unknown();
    if (++c->steps > MAX_STEPS || c->nesting >= MAX_NESTING) {
        unresolved(c, e, c->nesting >= MAX_NESTING ? "an expression nested too deeply"
                                                   : "more work than oomlint does for one model");
        return unknown();
    }
    c->nesting++;
    value v = eval_node(c, f, e);
    c->nesting--;
    return v;
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
            v.kind = V_STR;
            oom_est_copy(v.s, sizeof v.s, s.data);
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
        value a = eval(c, f, field(e, "argument"));
        if (numeric(&a) && text(c, field(e, "operator"), op, sizeof op))
            v = op[0] == '-' ? (a.kind == V_FLOAT ? float_value(-a.f) : int_value(-a.i)) : a;
    } else if (strcmp(t, "not_operator") == 0) {
        value a = eval(c, f, field(e, "argument"));
        if (truth(&a, &on))
            v = bool_value(!on);
    } else if (strcmp(t, "boolean_operator") == 0) {
        value l = eval(c, f, field(e, "left"));
        if (truth(&l, &on) && text(c, field(e, "operator"), op, sizeof op))
            v = (strcmp(op, "and") == 0) == (on != 0) ? eval(c, f, field(e, "right")) : l;
    } else if (strcmp(t, "conditional_expression") == 0) {
        value cond = eval(c, f, ts_node_named_child(e, 1));
        if (truth(&cond, &on))
            v = eval(c, f, ts_node_named_child(e, on ? 0 : 2));
    }
    return v;
}

static value eval_node(ctx *c, frame *f, TSNode e)
{
    const char *t = ts_node_type(e);
    if (strcmp(t, "integer") == 0 || strcmp(t, "float") == 0 || strcmp(t, "true") == 0 ||
        strcmp(t, "false") == 0 || strcmp(t, "none") == 0 || strcmp(t, "string") == 0 ||
        strcmp(t, "concatenated_string") == 0)
        return eval_literal(c, e, t);
    if (strcmp(t, "parenthesized_expression") == 0)
        return eval(c, f, ts_node_named_child(e, 0));
    if (strcmp(t, "identifier") == 0)
        return eval_identifier(c, f, e);
    if (strcmp(t, "attribute") == 0)
        return eval_attribute(c, f, e);
    if (strstr(t, "operator") || strcmp(t, "conditional_expression") == 0)
        return eval_operator(c, f, e, t);
    if (strcmp(t, "tuple") == 0 || strcmp(t, "list") == 0 || strcmp(t, "expression_list") == 0)
        return eval_sequence(c, f, e);
    if (strcmp(t, "list_comprehension") == 0 || strcmp(t, "generator_expression") == 0)
        return eval_comprehension(c, f, e);
    if (strcmp(t, "dictionary") == 0)
        return eval_dictionary(c, f, e);
    if (strcmp(t, "call") == 0)
        return eval_call(c, f, e);
    if (strcmp(t, "subscript") == 0) {
        value base = eval(c, f, field(e, "value"));
        if (base.kind == V_CONFIG)
            return config_key(c, f, &base, field(e, "subscript"), OOM_EST_NULL_NODE, false);
        value idx = eval(c, f, field(e, "subscript"));
        TSNode entry = idx.kind == V_STR ? oom_est_subscript_entry(reader_of(c, e), e, idx.s) : OOM_EST_NULL_NODE;
        if (!ts_node_is_null(entry)) /* `freq_map[freq]`: a dict literal's entry */
            return eval(c, f, entry);
        if (base.kind == V_INTS && idx.kind == V_INT) {
            long long i = idx.i < 0 ? base.nints + idx.i : idx.i;
            if (i >= 0 && i < base.nints)
                return int_value(base.ints[i]);
        }
    }
    return unknown();
}

/* ---- statements ----------------------------------------------------------- */

static void bind_target(ctx *c, frame *f, TSNode target, const value *v)
{
    char nm[48];
    if (name_of(c, target, nm, sizeof nm)) {
        set_var(f, nm, v);
        return;
    }
    if (!is(target, "pattern_list") && !is(target, "tuple_pattern") && !is(target, "tuple"))
        return;
    TSNode parts[MAX_INTS];
    size_t n = kids(c, target, parts, MAX_INTS);
    for (size_t i = 0; i < n; i++) {
        value one = v->kind == V_INTS && (size_t)v->nints == n ? int_value(v->ints[i]) : unknown();
        bind_target(c, f, parts[i], &one);
    }
}

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
            if (is(left, "attribute") && is_self(c, f, field(left, "object")))
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
    var *tied = find_var(b->inst->attrs, b->inst->nattrs, path);
    if (!tied || tied->v.kind != V_MODULE || tied->v.m.weight <= 0) {
        unresolved(c, left, "a tied weight");
        return;
    }
    char top[96];
    oom_est_copy(top, sizeof top, path);
    char *dot = strchr(top, '.');
    if (dot)
        *dot = '\0';
    var *whole = dot ? find_var(b->inst->attrs, b->inst->nattrs, top) : tied;
    if (whole && whole->v.kind == V_MODULE) {
        whole->v.m.params -= tied->v.m.weight;
        tied->v.m.weight = 0;
    }
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
    frame *b = builder(f);
    if (!b)
        return;
    if (is_self(c, f, object)) {
        if (v->kind == V_UNKNOWN && v->maybe_module)
            unresolved(c, ts_node_is_null(v->node) ? right : v->node, "a module oomlint cannot size");
        set_attr(b->inst, name, v);
        for (int k = 0; v->kind == V_MODULE && k < v->m.nkids; k++) { /* self.transformer.wte */
            char path[96];
            value kid = module_value();
            kid.m.weight = v->m.kids[k].weight;
            snprintf(path, sizeof path, "%s.%s", name, v->m.kids[k].name);
            set_attr(b->inst, path, &kid);
        }
        return;
    }
    if (strcmp(name, "weight") == 0 && is(object, "attribute") && is(right, "attribute"))
        tie_weight(c, b, left, object);
}

static void assign(ctx *c, frame *f, TSNode left, TSNode right, const value *v)
{
    if (is(left, "attribute")) {
        assign_attribute(c, f, left, right, v);
    } else if (is(left, "identifier")) {
        bind_target(c, f, left, v);
    } else if (is(left, "pattern_list") || is(left, "tuple_pattern")) {
        TSNode ls[MAX_INTS], rs[MAX_INTS];
        size_t nl = kids(c, left, ls, MAX_INTS);
        size_t nr = is(right, "expression_list") || is(right, "tuple") ? kids(c, right, rs, MAX_INTS) : 0;
        for (size_t i = 0; i < nl; i++) {
            value one = nr == nl ? eval(c, f, rs[i]) : unknown();
            if (nr != nl && v->kind == V_INTS && (size_t)v->nints == nl)
                one = int_value(v->ints[i]);
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
        v = eval(c, f, field(right, "left"));
    } else {
        v = eval(c, f, right);
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
    value l = eval(c, f, left), r = eval(c, f, right);
    value v;
    if (strcmp(op, "+") == 0 && (l.kind == V_MODULE || l.kind == V_INTS)) {
        v = l;
        list_extend(&v, &r);
    } else {
        v = arithmetic(&l, &r, op);
    }
    assign(c, f, left, right, &v);
}

/* layers.append(m), layers.extend([...]), self.blocks.append(m). */
static void exec_list_method(ctx *c, frame *f, TSNode call, TSNode object, const char *method)
{
    value list = eval(c, f, object);
    TSNode item_node = arg(c, call, strcmp(method, "insert") == 0 ? 1 : 0, NULL);
    value item = eval(c, f, item_node);
    if (method[0] == 'e')
        list_extend(&list, &item);
    else
        list_add(&list, &item);
    assign(c, f, object, item_node, &list);
}

/* self.add_module("x", m), self.register_parameter("p", ...),
 * self.register_buffer("b", t), setattr(self, "x", m): a new attribute. */
static void exec_register(ctx *c, frame *f, TSNode value_node, bool buffer)
{
    frame *b = builder(f);
    value v = eval(c, f, value_node);
    if (buffer) { /* its bytes, fp32 */
        value buf = module_value();
        if (v.kind == V_TENSOR)
            buf.m.buffers = 4 * product(v.ints, v.nints);
        v = buf;
    } else if (v.kind == V_UNKNOWN && v.maybe_module) {
        unresolved(c, value_node, "a module oomlint cannot size");
    }
    char name[48];
    snprintf(name, sizeof name, "__added_%zu", b->inst->nattrs);
    set_attr(b->inst, name, &v);
}

/* super().__init__(...): the base class of the script builds its part. */
static void exec_super_init(ctx *c, frame *f, TSNode call)
{
    frame *b = builder(f);
    TSNode base = script_base(c, b->cls);
    char layer[48];
    if (ts_node_is_null(base) && torch_layer_base(c, b->cls, layer, sizeof layer)) {
        /* class Net(nn.Sequential): super().__init__(...) builds the layer */
        value v = nn_layer(c, f, call, layer);
        set_attr(b->inst, "__base__", &v);
        return;
    }
    TSNode init = ts_node_is_null(base) ? base : find_method(c, base, "__init__");
    if (ts_node_is_null(init) || c->depth >= MAX_DEPTH)
        return;
    frame *body = frame_new(c, NULL);
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
    frame *b = builder(f);
    if (is(fn, "attribute") && text(c, field(fn, "attribute"), method, sizeof method)) {
        TSNode object = field(fn, "object");
        if (strcmp(method, "append") == 0 || strcmp(method, "extend") == 0 || strcmp(method, "insert") == 0) {
            exec_list_method(c, f, call, object, method);
            return;
        }
        if (b && is_self(c, f, object) &&
            (strcmp(method, "add_module") == 0 || strcmp(method, "register_module") == 0 ||
             strcmp(method, "register_parameter") == 0 || strcmp(method, "register_buffer") == 0)) {
            exec_register(c, f, arg(c, call, 1, NULL), strcmp(method, "register_buffer") == 0);
            return;
        }
        if (b && strcmp(method, "__init__") == 0 && is(object, "call")) {
            exec_super_init(c, f, call);
            return;
        }
    }
    char fname[16];
    if (b && text(c, fn, fname, sizeof fname) && strcmp(fname, "setattr") == 0 &&
        is_self(c, f, arg(c, call, 0, NULL))) {
        exec_register(c, f, arg(c, call, 2, NULL), false);
        return;
    }
    eval(c, f, call);
}

static void exec_if(ctx *c, frame *f, TSNode s)
{
    value cond = eval(c, f, field(s, "condition"));
    int on;
    if (!truth(&cond, &on)) {
        if (builds_model(c, f, s))
            unresolved(c, field(s, "condition"), "a condition the layers depend on");
        return;
    }
    if (on) {
        exec_block(c, f, field(s, "consequence"));
        return;
    }
    TSNode parts[64];
    size_t n = kids(c, s, parts, 64);
    for (size_t i = 0; i < n; i++) {
        if (is(parts[i], "elif_clause")) {
            value ec = eval(c, f, field(parts[i], "condition"));
            int eon;
            if (!truth(&ec, &eon)) {
                if (builds_model(c, f, parts[i]))
                    unresolved(c, field(parts[i], "condition"), "a condition the layers depend on");
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
    long long n = iterate(c, f, field(s, "right"), items, MAX_ITER);
    if (n < 0 && builds_model(c, f, field(s, "body")))
        unresolved(c, field(s, "right"), "what a loop that builds layers runs over");
    for (long long i = 0; i < n && !f->returned && !c->why[0]; i++) {
        bind_target(c, f, field(s, "left"), &items[i]);
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
            unresolved(c, field(s, "condition"), "a while loop that builds layers");
    } else if (strcmp(t, "with_statement") == 0 || strcmp(t, "try_statement") == 0) {
        exec_block(c, f, field(s, "body"));
    } else if (strcmp(t, "return_statement") == 0) {
        TSNode e = ts_node_named_child(s, 0);
        f->ret = ts_node_is_null(e) ? unknown() : eval(c, f, e);
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
            set_var(f, nm, &v);
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
            unresolved(c, s, "more work than oomlint does for one model");
            return;
        }
        exec_statement(c, f, s);
    }
}

/* ---- which model the script builds ---------------------------------------- */

static void collect_definitions(const ctx *c, view *v)
{
    const oom_nodes *L = v->layout;
    for (uint32_t k = 0; L && k < L->len; k++) {
        TSNode n = L->items[k].node;
        bool cls = is(n, "class_definition"), fn = is(n, "function_definition");
        if (!cls && !fn)
            continue;
        named_node d;
        if (!text(c, field(n, "name"), d.name, sizeof d.name))
            continue;
        d.node = n;
        uint32_t up = L->items[k].parent;
        if (up != UINT32_MAX && is(L->items[up].node, "decorated_definition"))
            up = L->items[up].parent;
        bool module_level = up != UINT32_MAX && is(L->items[up].node, "module");
        if (cls) {
            OOM_PUSH(v->classes, v->nclasses, v->classes_cap, d);
        } else if (module_level) {
            OOM_PUSH(v->functions, v->nfunctions, v->functions_cap, d);
        }
    }
}

/* The class a call instantiates, when it is a model class of the script
 * or of the project file an import names. */
static TSNode model_class_called(const ctx *c, TSNode call)
{
    oom_est_pick pk;
    TSNode cls = is(call, "call") ? script_class(c, field(call, "function")) : OOM_EST_NULL_NODE;
    cls = ts_node_is_null(cls) && is(call, "call") ? picked(c, field(call, "function"), &pk) : cls;
    return is(cls, "class_definition") && is_module_class(c, cls, 0) ? cls : OOM_EST_NULL_NODE;
}

static bool returns_model(const ctx *c, TSNode def, int depth);
static bool picks_models(const ctx *c, const oom_est_pick *pk);

/* The function `fn` names in its own file (module level) or through an import. */
static TSNode function_named(const ctx *c, TSNode fn)
{
    char name[64];
    if (is(fn, "identifier") && text(c, fn, name, sizeof name)) {
        view *v = view_of(c, fn);
        const TSNode *found = lookup_named(v->functions, v->nfunctions, name);
        if (found)
            return *found;
    }
    TSNode d = imported_definition(c, NULL, fn);
    return is(d, "function_definition") ? d : OOM_EST_NULL_NODE;
}

/* Whether `v`, an expression in function `def`, is a model instance: a
 * model class called (`Net(...)`, moved or cast after: `.to(device)`), a
 * call of another function that returns one, or a name `def` binds to one. */
static bool is_model_instance(const ctx *c, TSNode def, TSNode v, int depth)
{
    char method[32];
    while (is(v, "call") && is(field(v, "function"), "attribute") &&
           text(c, field(field(v, "function"), "attribute"), method, sizeof method) && keeps_value(method) &&
           ts_node_is_null(model_class_called(c, v)))
        v = field(field(v, "function"), "object");
    oom_est_pick pk; /* `return MODELS[name]()`: a pick among models, by the name the factory is given */
    if (is(v, "call")) {
        if (!ts_node_is_null(model_class_called(c, v)) ||
            (oom_est_pick_of(reader_of(c, v), field(v, "function"), &pk) && !pk.known && picks_models(c, &pk)))
            return true;
        TSNode g = function_named(c, field(v, "function"));
        return !ts_node_is_null(g) && !ts_node_eq(g, def) && returns_model(c, g, depth + 1);
    }
    char name[48], left[48];
    if (!name_of(c, v, name, sizeof name) || depth > 4)
        return false;
    const oom_nodes *L = layout_of(c, def);
    uint32_t at = oom_nodes_find(L, def);
    for (uint32_t k = at + 1; at != UINT32_MAX && k < L->items[at].end; k++) {
        TSNode a = L->items[k].node;
        if (is(a, "assignment") && name_of(c, field(a, "left"), left, sizeof left) && strcmp(left, name) == 0 &&
            !is(field(a, "right"), "identifier") && is_model_instance(c, def, field(a, "right"), depth + 1))
            return true;
    }
    return false;
}

/* A factory: a function whose `return` hands back a model instance
 * (`def build_model(cfg): return Net(cfg.dim)`), decided by what it
 * returns, never by its name. */
static bool returns_model(const ctx *c, TSNode def, int depth)
{
    const oom_nodes *L = layout_of(c, def);
    uint32_t at = oom_nodes_find(L, def);
    if (at == UINT32_MAX || depth > 4)
        return false;
    for (uint32_t k = at + 1; k < L->items[at].end; k++) {
        TSNode x = L->items[k].node;
        if (is(x, "function_definition") || is(x, "class_definition") || is(x, "lambda")) {
            k = L->items[k].end - 1; /* a nested function's return is not this one's */
            continue;
        }
        if (is(x, "return_statement") && ts_node_named_child_count(x) > 0 &&
            is_model_instance(c, def, ts_node_named_child(x, 0), depth))
            return true;
    }
    return false;
}

/* A call of the script that builds a model in another file of the project:
 * an imported factory. A factory the script defines itself is not one:
 * the model class it calls is found where it is called. */
static TSNode factory_called(const ctx *c, TSNode call)
{
    if (!is(call, "call"))
        return OOM_EST_NULL_NODE;
    TSNode fn = field(call, "function");
    oom_est_pick pk;
    TSNode def = (is(fn, "identifier") || is(fn, "attribute")) ? imported_definition(c, NULL, fn) : OOM_EST_NULL_NODE;
    def = is(def, "function_definition") ? def : picked(c, fn, &pk);
    return is(def, "function_definition") && returns_model(c, def, 0) ? def : OOM_EST_NULL_NODE;
}

/* Whether a run without flags reaches `call` at module level or in a plain
 * function: not inside a model class (a submodule), not an argument of
 * another model's constructor, not in a branch a setting's default rules
 * out (`if args.model == "lstm":`). */
static bool builds_top_model(ctx *c, uint32_t k)
{
    const oom_nodes *L = c->layout;
    TSNode call = L->items[k].node;
    if (!oom_est_runs_without_flags(c->r, call))
        return false;
    uint32_t inner = k;
    for (uint32_t up = L->items[k].parent; up != UINT32_MAX; inner = up, up = L->items[up].parent) {
        TSNode u = L->items[up].node;
        if (is(u, "class_definition") && is_module_class(c, u, 0))
            return false;
        if (is(u, "call") && !ts_node_is_null(model_class_called(c, u)))
            return false;
        if (is(u, "if_statement") || is(u, "elif_clause")) {
            value cond = eval(c, NULL, field(u, "condition"));
            int on;
            bool in_consequence = ts_node_eq(L->items[inner].node, field(u, "consequence"));
            if (truth(&cond, &on) && ((in_consequence && !on) || (!in_consequence && on)))
                return false;
        }
    }
    return true;
}

/* The name a model is bound to (`model = Net().to(device)`), for telling two
 * builds of one model apart from two models; "" when it is not bound. */
static void bound_name(const ctx *c, uint32_t k, char *out, size_t size)
{
    const oom_nodes *L = c->layout;
    out[0] = '\0';
    for (uint32_t up = L->items[k].parent; up != UINT32_MAX; up = L->items[up].parent) {
        TSNode u = L->items[up].node;
        if (is(u, "assignment")) {
            text(c, field(u, "left"), out, size);
            return;
        }
        if (!is(u, "call") && !is(u, "attribute") && !is(u, "argument_list"))
            return;
    }
}

typedef struct {
    TSNode call;
    TSNode cls;     /* the model class called, or the factory function */
    TSNode made;    /* once built: the class the model was made from */
    char target[64];
    char said[224]; /* picked by a name: "arch=resnet via getattr(models, args.arch) at train.py:120" */
} build_site;

/* What a site builds, for people: its class once built, else what it calls. */
static TSNode site_class(const build_site *s)
{
    return ts_node_is_null(s->made) ? s->cls : s->made;
}

/* The function of the script a site's call is in (null at module level). */
static TSNode enclosing_function(const ctx *c, TSNode n)
{
    const oom_nodes *L = c->layout;
    uint32_t at = oom_nodes_find(L, n);
    for (uint32_t up = at == UINT32_MAX ? UINT32_MAX : L->items[at].parent; up != UINT32_MAX; up = L->items[up].parent)
        if (is(L->items[up].node, "function_definition"))
            return L->items[up].node;
    return OOM_EST_NULL_NODE;
}

/* Whether the code of `fn` (the whole script when null) calls `.backward()`. */
static bool runs_backward(const ctx *c, TSNode fn)
{
    const oom_nodes *L = c->layout;
    uint32_t at = ts_node_is_null(fn) ? 0 : oom_nodes_find(L, fn);
    for (uint32_t k = at; at != UINT32_MAX && k < L->items[at].end; k++) {
        TSNode x = L->items[k].node, f = field(x, "function");
        char m[16];
        if (is(x, "call") && is(f, "attribute") && text(c, field(f, "attribute"), m, sizeof m) &&
            strcmp(m, "backward") == 0 && (ts_node_is_null(fn) || ts_node_eq(enclosing_function(c, x), fn)))
            return true;
    }
    return false;
}

/* Models built in different functions are different runs, not one job
 * (neural_style.py builds its network in train() and again in stylize()):
 * when some are built where a backward runs, those are the ones trained.
 * Models built side by side in one function (a GAN's two) all stay. */
static size_t keep_trained(const ctx *c, build_site *sites, size_t n)
{
    bool split = false, any = false, trained[8];
    for (size_t i = 0; i < n; i++) {
        TSNode fn = enclosing_function(c, sites[i].call);
        split = split || !ts_node_eq(fn, enclosing_function(c, sites[0].call));
        trained[i] = runs_backward(c, fn); /* at module level: the script trains anywhere */
        any = any || trained[i];
    }
    if (!split || !any)
        return n;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (trained[i])
            sites[kept++] = sites[i];
    return kept;
}

/* Whether a lookup whose key the run does not know picks among models: an
 * attribute of one of the project's modules, or a dict with a model class
 * or factory among its entries (a dict of datasets picks no model). */
static bool picks_models(const ctx *c, const oom_est_pick *pk)
{
    char space[160];
    bool any = pk->kind == OOM_PICK_ATTRIBUTE && c->project && text(c, pk->space, space, sizeof space) &&
               oom_est_project_module(c->project, view_of(c, pk->space)->unit, space);
    for (size_t i = 0; i < pk->nentries && !any; i++) {
        TSNode cls = script_class(c, pk->entries[i]), fn = function_named(c, pk->entries[i]);
        any = (!ts_node_is_null(cls) && is_module_class(c, cls, 0)) || (!ts_node_is_null(fn) && returns_model(c, fn, 0));
    }
    return any;
}

static size_t find_builds(ctx *c, build_site *sites, size_t max)
{
    const oom_nodes *L = c->layout;
    size_t n = 0;
    for (uint32_t k = 0; k < L->len && n < max; k++) {
        if (!is(L->items[k].node, "call"))
            continue;
        TSNode cls = model_class_called(c, L->items[k].node);
        if (ts_node_is_null(cls))
            cls = factory_called(c, L->items[k].node);
        oom_est_pick pk;
        bool pick = oom_est_pick_of(c->r, field(L->items[k].node, "function"), &pk);
        TSNode in_fn = enclosing_function(c, L->items[k].node); /* a factory's pick: its name is the caller's */
        if (pick && !pk.known && picks_models(c, &pk) && builds_top_model(c, k) && n < max &&
            (ts_node_is_null(in_fn) || !returns_model(c, in_fn, 0))) {
            unresolved(c, pk.key_node, pk.why); /* the run names the model: the flag that would settle it */
            memset(&sites[n], 0, sizeof sites[n]);
            sites[n++].call = L->items[k].node;
            continue;
        }
        if (ts_node_is_null(cls) || !builds_top_model(c, k))
            continue;
        build_site s;
        memset(&s, 0, sizeof s);
        oom_est_copy(s.said, sizeof s.said, pick ? pk.said : "");
        s.call = L->items[k].node;
        s.cls = cls;
        bound_name(c, k, s.target, sizeof s.target);
        bool repeat = false;
        for (size_t i = 0; i < n; i++)
            if (s.target[0] && strcmp(sites[i].target, s.target) == 0) {
                repeat = true;
                if (!ts_node_eq(sites[i].cls, cls)) {
                    char a[64] = "", b[64] = "";
                    text(c, field(sites[i].cls, "name"), a, sizeof a);
                    text(c, field(cls, "name"), b, sizeof b);
                    char what[160];
                    snprintf(what, sizeof what, "`%s` is a %s (line %u) or a %s, as the run decides", s.target, a,
                             line_of(c, sites[i].call), b);
                    unresolved(c, s.call, what);
                }
            }
        if (!repeat)
            sites[n++] = s;
    }
    return keep_trained(c, sites, n);
}

/* ---- into the estimate ------------------------------------------------------ */

static long long image_side(ctx *c, oom_script_inputs *out)
{
    static const char *const names[] = {"img_size", "image_size", "resolution", "input_size", "img_res", NULL};
    for (int i = 0; names[i]; i++) {
        const oom_est_setting *s = oom_est_setting_named(c->r, names[i]);
        long long n;
        if (s && oom_est_setting_int(c->r, s, &n) && n > 0) {
            char what[96], setting[80];
            oom_est_setting_describe(s, setting, sizeof setting);
            snprintf(what, sizeof what, "%lldx%lld (%s)", n, n, setting);
            const oom_est_setting *saved = c->r->via;
            c->r->via = NULL;
            oom_est_note(c->r, OOM_IN_IMAGE, s->at, what);
            c->r->via = saved;
            return n;
        }
    }
    oom_est_assume(out, OOM_IN_IMAGE, "32x32 images (no image size found): convolution outputs counted at this side");
    return DEFAULT_IMAGE_SIDE;
}

static bool is_lm_head_size(const ctx *c, long long v)
{
    for (int i = 0; i < c->nlinear; i++)
        if (c->linear_outs[i] == v)
            return true;
    return false;
}

static void apply(ctx *c, const build_site *sites, size_t n, const mod *total)
{
    oom_script_inputs *out = c->r->out;
    oom_estimate_input *in = &out->in;
    in->params = in->trainable = total->params;
    in->buffer_bytes = (double)total->buffers;
    in->module_defined = true;
    in->module_ref = c->image_side;
    out->model_known = true;
    double dense = total->dense;
    if (total->tokens && c->vocab > 0 && is_lm_head_size(c, c->vocab)) {
        /* a Linear back onto the Embedding's vocabulary: a language-model
         * head, whose logits the loss term counts */
        dense -= 2.0 * (double)c->vocab;
        in->vocab = c->vocab;
        char why[160];
        snprintf(why, sizeof why, "a Linear onto the %lld-row Embedding: a language-model head", c->vocab);
        oom_script_inputs_set_task(out, OOM_TASK_CAUSAL_LM, why);
        out->from[OOM_IN_TASK].assumed = true;
    }
    if (total->act_unknown) {
        in->module_sample_elems = in->module_token_elems = in->module_spatial_elems = 0;
    } else if (total->tokens) {
        in->module_token_elems = dense + total->seq;
    } else {
        in->module_sample_elems = dense;
    }
    if (!total->act_unknown)
        in->module_spatial_elems = total->spatial;
    char names[128] = "", lines[48] = "", places[448] = "";
    bool elsewhere = false; /* a class in another file, or built by a factory */
    for (size_t i = 0; i < n; i++) {
        TSNode cls = site_class(&sites[i]);
        char nm[48] = "?", at[128], by[64] = "", by_at[128] = "";
        text(c, field(cls, "name"), nm, sizeof nm);
        place_of(c, cls, at, sizeof at);
        if (!ts_node_eq(cls, sites[i].cls)) {
            text(c, field(sites[i].cls, "name"), by, sizeof by);
            place_of(c, sites[i].cls, by_at, sizeof by_at);
        }
        elsewhere = elsewhere || view_of(c, cls) != c->views->items[0] || by[0];
        size_t used = strlen(names), lused = strlen(lines), pused = strlen(places);
        snprintf(names + used, sizeof names - used, "%s%s", i ? " + " : "", nm);
        snprintf(lines + lused, sizeof lines - lused, "%s%u", i ? ", " : "", line_of(c, cls));
        snprintf(places + pused, sizeof places - pused, "%sclass %s at %s%s%s%s%s%s%s", i ? "; " : "", nm, at,
                 by[0] ? ", built by " : "", by, by[0] ? "() at " : "", by_at, sites[i].said[0] ? "; " : "",
                 sites[i].said);
        elsewhere = elsewhere || sites[i].said[0];
    }
    oom_est_copy(out->model_id, sizeof out->model_id, names);
    char what[768], from[224]; /* "; sizes from config.json [\"model\"]": the file and keys they came from */
    oom_est_configs_describe(c->configs, from, sizeof from);
    const char *acts = total->act_unknown ? "; activations not counted (Conv1d/Conv3d)" : "; activations rough";
    if (elsewhere) /* where the model came from: the file and line of its class */
        oom_est_printf(what, sizeof what, "%s built here (%s%s): %lld parameters counted from %s layers%s", names,
                       places, from, total->params, n > 1 ? "their" : "its", acts);
    else
        oom_est_printf(what, sizeof what,
                       "%s built here (class%s at line%s %s%s): %lld parameters counted from %s layers%s", names,
                       n > 1 ? "es" : "", n > 1 ? "s" : "", lines, from, total->params, n > 1 ? "their" : "its", acts);
    oom_est_note(c->r, OOM_IN_MODEL, sites[0].call, what);
}

static void report_unresolved(ctx *c, const build_site *site)
{
    char nm[48] = "?", what[256], at[128];
    if (ts_node_is_null(site->cls)) /* a lookup whose name the run does not know */
        oom_est_printf(what, sizeof what, "the model not sized: %s", c->why);
    else {
        text(c, field(site->cls, "name"), nm, sizeof nm);
        place_of(c, site->cls, at, sizeof at);
        oom_est_printf(what, sizeof what, "%s (%s at %s) not sized: %s", nm,
                       is(site->cls, "class_definition") ? "class" : "function", at, c->why);
    }
    oom_est_note(c->r, OOM_IN_MODEL, site->call, what);
    c->r->out->from[OOM_IN_MODEL].assumed = true;
}

void oom_est_read_modules(oom_est_reader *r)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.configs = oom_est_configs_new();
    oom_nodes own;
    oom_nodes_init(&own);
    c.layout = oom_pymodel_layout(r->m);
    if (!c.layout || c.layout->len == 0 || !ts_node_eq(c.layout->items[0].node, r->root)) {
        oom_nodes_build(&own, r->root);
        c.layout = &own;
    }
    views vs;
    memset(&vs, 0, sizeof vs);
    c.views = &vs;
    view *script = oom_xcalloc(1, sizeof *script);
    c.project = oom_est_project_open(r, c.layout);
    script->unit = oom_est_project_script(c.project);
    script->r = r;
    script->layout = c.layout;
    script->tree = r->root.tree;
    OOM_PUSH(vs.items, vs.len, vs.cap, script);
    collect_definitions(&c, script);
    build_site sites[8];
    size_t n = find_builds(&c, sites, 8);
    if (n > 0 && !c.why[0]) {
        c.image_side = c.side = image_side(&c, r->out);
        mod total;
        memset(&total, 0, sizeof total);
        size_t kept = 0;
        for (size_t i = 0; i < n && !c.why[0]; i++) {
            frame *top = frame_new(&c, NULL);
            value v = eval(&c, top, sites[i].call);
            if (v.kind != V_MODULE)
                unresolved(&c, sites[i].call, "the model");
            else if (v.m.params > 0) { /* a loss or a wrapper holds none: not the model */
                mod_add(&total, &v.m);
                sites[kept] = sites[i];
                sites[kept++].made = v.made;
            }
        }
        char first[64] = "";
        text(&c, field(sites[0].cls, "name"), first, sizeof first);
        if (!c.why[0] && kept == 0 && !strstr(first, "Loss")) /* a loss alone is not a model */
            unresolved(&c, sites[0].call, "no parameters built in __init__");
        if (kept == 0)
            n = c.why[0] ? n : 0;
        if (!c.why[0] && kept > 0)
            apply(&c, sites, kept, &total);
    }
    if (n > 0 && c.why[0])
        report_unresolved(&c, &sites[0]);
    for (size_t i = 0; i < c.nframes; i++) {
        free(c.frames[i]->vars);
        free(c.frames[i]->attrs);
        free(c.frames[i]);
    }
    free(c.frames);
    for (size_t i = 0; i < vs.len; i++) {
        if (i > 0)
            oom_est_settings_free(&vs.items[i]->own.settings);
        free(vs.items[i]->classes);
        free(vs.items[i]->functions);
        free(vs.items[i]);
    }
    free(vs.items);
    oom_est_project_close(c.project);
    oom_est_configs_free(c.configs);
    oom_nodes_free(&own);
}

/* estimate/modules_layers: the torch.nn layer constructors, counted by
 * PyTorch's own parameter shapes (docs/estimation.md §11): Linear,
 * convolutions, embeddings, norms, recurrent and attention layers,
 * transformer layers and stacks, containers, parameter-free layers, plus
 * nn.Parameter and the tensor factories it is given. Each reads its
 * arguments as PyTorch binds them (position or keyword, with defaults). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "modules.h"

/* ---- reading numbers ---------------------------------------------------- */

static bool want_int(ctx *c, frame *f, TSNode e, const char *what, long long *out)
{
    value v = oom_mod_eval(c, f, e);
    if (v.kind == V_INT || v.kind == V_BOOL) {
        *out = v.i;
        return true;
    }
    if (v.kind == V_FLOAT && v.f == floor(v.f) && fabs(v.f) < 1e15) {
        *out = (long long)v.f;
        return true;
    }
    oom_mod_unresolved(c, e, what);
    return false;
}

/* An int or a tuple of ints (a kernel size, a normalized shape), as `n`
 * dimensions: an int is repeated n times (n = 0: one value). */
static bool want_dims(ctx *c, frame *f, TSNode e, int n, const char *what, long long *dims, int *count)
{
    value v = oom_mod_eval(c, f, e);
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
    oom_mod_unresolved(c, e, what);
    return false;
}

bool oom_mod_opt_int(ctx *c, frame *f, TSNode call, int pos, const char *name, long long dflt, const char *what,
                     long long *out)
{
    TSNode a = oom_mod_arg(c, call, pos, name);
    if (ts_node_is_null(a)) {
        *out = dflt;
        return true;
    }
    return want_int(c, f, a, what, out);
}

static bool opt_bool(ctx *c, frame *f, TSNode call, int pos, const char *name, bool dflt, const char *what,
                     bool *out)
{
    TSNode a = oom_mod_arg(c, call, pos, name);
    if (ts_node_is_null(a)) {
        *out = dflt;
        return true;
    }
    value v = oom_mod_eval(c, f, a);
    int t;
    if (!oom_mod_truth(&v, &t)) {
        oom_mod_unresolved(c, a, what);
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
    if (!want_int(c, f, oom_mod_arg(c, call, 0, "in_features"), "in_features of nn.Linear", &in) ||
        !want_int(c, f, oom_mod_arg(c, call, 1, "out_features"), "out_features of nn.Linear", &out) ||
        !opt_bool(c, f, call, 2, "bias", true, "bias of nn.Linear", &bias))
        return unknown();
    value v = module_value();
    v.m.params = in * out + (bias ? out : 0);
    v.m.weight = in * out;
    v.m.in_features = in;
    v.m.out_features = out;
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
    TSNode s = oom_mod_arg(c, call, 3, "stride"), p = oom_mod_arg(c, call, 4, "padding"),
           d = oom_mod_arg(c, call, transposed ? 8 : 5, "dilation");
    value sv = ts_node_is_null(s) ? int_value(1) : oom_mod_eval(c, f, s);
    value dv = ts_node_is_null(d) ? int_value(1) : oom_mod_eval(c, f, d);
    value pv = ts_node_is_null(p) ? int_value(0) : oom_mod_eval(c, f, p);
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
    if (!want_int(c, f, oom_mod_arg(c, call, 0, "in_channels"), "in_channels of a convolution", &in) ||
        !want_int(c, f, oom_mod_arg(c, call, 1, "out_channels"), "out_channels of a convolution", &out) ||
        !want_dims(c, f, oom_mod_arg(c, call, 2, "kernel_size"), dims, "kernel_size of a convolution", k, &nk) ||
        !oom_mod_opt_int(c, f, call, 6, "groups", 1, "groups of a convolution", &groups) ||
        !opt_bool(c, f, call, 7, "bias", true, "bias of a convolution", &bias))
        return unknown();
    if (groups <= 0 || in % groups != 0 || out % groups != 0) {
        oom_mod_unresolved(c, call, "groups that do not divide the channels");
        return unknown();
    }
    value v = module_value();
    long long weight = (transposed ? in * (out / groups) : out * (in / groups)) * oom_mod_product(k, nk);
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
    value kv = oom_mod_eval(c, f, oom_mod_arg(c, call, 0, adaptive ? "output_size" : "kernel_size"));
    if (kv.kind != V_INT || kv.i <= 0)
        return v;
    if (adaptive) {
        c->side = kv.i;
        return v;
    }
    value sv = oom_mod_eval(c, f, oom_mod_arg(c, call, 1, "stride"));
    value pv = oom_mod_eval(c, f, oom_mod_arg(c, call, 2, "padding"));
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
    if (!want_int(c, f, oom_mod_arg(c, call, 0, "num_embeddings"), "num_embeddings of nn.Embedding", &n) ||
        !want_int(c, f, oom_mod_arg(c, call, 1, "embedding_dim"), "embedding_dim of nn.Embedding", &d))
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
    if (!want_dims(c, f, oom_mod_arg(c, call, 0, "normalized_shape"), 0, "normalized_shape", dims, &n) ||
        !opt_bool(c, f, call, 2, "elementwise_affine", true, "elementwise_affine", &affine) ||
        (!rms && !opt_bool(c, f, call, 3, "bias", true, "bias of nn.LayerNorm", &bias)))
        return unknown();
    value v = module_value();
    long long size = oom_mod_product(dims, n);
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
    if (!want_int(c, f, oom_mod_arg(c, call, 0, "num_features"), "num_features of a norm", &n) ||
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
    if (!want_int(c, f, oom_mod_arg(c, call, 0, "num_groups"), "num_groups of nn.GroupNorm", &g) ||
        !want_int(c, f, oom_mod_arg(c, call, 1, "num_channels"), "num_channels of nn.GroupNorm", &n) ||
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
    if (!want_int(c, f, oom_mod_arg(c, call, 0, "input_size"), "input_size of a recurrent layer", &in) ||
        !want_int(c, f, oom_mod_arg(c, call, 1, "hidden_size"), "hidden_size of a recurrent layer", &h) ||
        (!cell && !oom_mod_opt_int(c, f, call, 2, "num_layers", 1, "num_layers", &layers)) ||
        !opt_bool(c, f, call, cell ? 2 : rnn ? 4 : 3, "bias", true, "bias of a recurrent layer", &bias) ||
        (!cell && !opt_bool(c, f, call, rnn ? 7 : 6, "bidirectional", false, "bidirectional", &bidir)) ||
        (gates == 4 && !cell && !oom_mod_opt_int(c, f, call, 7, "proj_size", 0, "proj_size", &proj)))
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
    if (!want_int(c, f, oom_mod_arg(c, call, 0, "embed_dim"), "embed_dim of nn.MultiheadAttention", e) ||
        !opt_bool(c, f, call, 3, "bias", true, "bias of nn.MultiheadAttention", &bias) ||
        !opt_bool(c, f, call, 4, "add_bias_kv", false, "add_bias_kv", &bias_kv))
        return false;
    TSNode kn = oom_mod_arg(c, call, 6, "kdim"), vn = oom_mod_arg(c, call, 7, "vdim");
    kdim = *e, vdim = *e;
    if (!ts_node_is_null(kn) && oom_mod_eval(c, f, kn).kind != V_NONE && !want_int(c, f, kn, "kdim", &kdim))
        return false;
    if (!ts_node_is_null(vn) && oom_mod_eval(c, f, vn).kind != V_NONE && !want_int(c, f, vn, "vdim", &vdim))
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
    if (!want_int(c, f, oom_mod_arg(c, call, 0, "d_model"), "d_model of a transformer layer", &d) ||
        !oom_mod_opt_int(c, f, call, 2, "dim_feedforward", 2048, "dim_feedforward", &ff) ||
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
    TSNode layer_node = oom_mod_arg(c, call, 0, layer_name);
    value layer = oom_mod_eval(c, f, layer_node);
    long long n;
    if (layer.kind != V_MODULE) {
        oom_mod_unresolved(c, layer_node, "the layer a transformer stack repeats");
        return unknown();
    }
    if (!want_int(c, f, oom_mod_arg(c, call, 1, "num_layers"), "num_layers of a transformer stack", &n))
        return unknown();
    value v = module_value();
    for (long long i = 0; i < n && i < MAX_STEPS; i++)
        oom_mod_add(&v.m, &layer.m);
    TSNode norm = oom_mod_arg(c, call, 2, "norm");
    if (!ts_node_is_null(norm)) {
        value nv = oom_mod_eval(c, f, norm);
        if (nv.kind == V_MODULE) {
            oom_mod_add(&v.m, &nv.m);
        } else if (nv.kind != V_NONE) {
            oom_mod_unresolved(c, norm, "norm of a transformer stack");
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
    if (!oom_mod_opt_int(c, f, call, 0, "d_model", 512, "d_model", &d) ||
        !oom_mod_opt_int(c, f, call, 2, "num_encoder_layers", 6, "num_encoder_layers", &enc) ||
        !oom_mod_opt_int(c, f, call, 3, "num_decoder_layers", 6, "num_decoder_layers", &dec) ||
        !oom_mod_opt_int(c, f, call, 4, "dim_feedforward", 2048, "dim_feedforward", &ff) ||
        !opt_bool(c, f, call, 12, "bias", true, "bias", &bias))
        return unknown();
    if (!ts_node_is_null(oom_mod_arg(c, call, 7, "custom_encoder")) ||
        !ts_node_is_null(oom_mod_arg(c, call, 8, "custom_decoder"))) {
        oom_mod_unresolved(c, call, "nn.Transformer with a custom encoder or decoder");
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

/* Sequential(*layers) / Sequential(a, b) / Sequential(OrderedDict(...)),
 * ModuleList(list), ModuleDict(dict): the sum of what they hold. */
static value container(ctx *c, frame *f, TSNode call, const char *name)
{
    value v = module_value();
    TSNode a[256];
    size_t n = oom_mod_kids(c, field(call, "arguments"), a, 256);
    for (size_t i = 0; i < n; i++) {
        if (is(a[i], "keyword_argument"))
            continue;
        TSNode e = is(a[i], "list_splat") ? ts_node_named_child(a[i], 0) : a[i];
        value item = oom_mod_eval(c, f, e);
        mod m;
        if (!oom_mod_as_module(&item, &m)) {
            char what[64];
            snprintf(what, sizeof what, "what nn.%s holds", name);
            oom_mod_unresolved(c, e, what);
            return unknown();
        }
        oom_mod_add(&v.m, &m);
        v.i += item.kind == V_MODULE && item.i > 0 ? item.i : 1;
        for (int k = 0; k < item.m.nkids && v.m.nkids < MAX_KIDS; k++)
            v.m.kids[v.m.nkids++] = item.m.kids[k];
    }
    return v;
}

/* A torch.nn class by its last name. */
value oom_mod_nn_layer(ctx *c, frame *f, TSNode call, const char *name)
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
        if (!oom_mod_opt_int(c, f, call, 0, "num_parameters", 1, "num_parameters of nn.PReLU", &n))
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
    oom_mod_unresolved(c, call, what);
    value v = unknown();
    v.maybe_module = true;
    return v;
}

/* nn.Parameter(torch.zeros(a, b)): a parameter of a x b (a buffer-like
 * tensor with requires_grad=False). */
value oom_mod_parameter(ctx *c, frame *f, TSNode call)
{
    TSNode t = oom_mod_arg(c, call, 0, "data");
    value tv = oom_mod_eval(c, f, t);
    if (tv.kind != V_TENSOR) {
        oom_mod_unresolved(c, t, "the shape of an nn.Parameter");
        return unknown();
    }
    TSNode rg = oom_mod_arg(c, call, 1, "requires_grad");
    value g = ts_node_is_null(rg) ? bool_value(true) : oom_mod_eval(c, f, rg);
    int grad = 1;
    if (!oom_mod_truth(&g, &grad))
        grad = 1;
    value v = module_value();
    if (grad)
        v.m.params = v.m.weight = oom_mod_product(tv.ints, tv.nints);
    else
        v.m.buffers = 4 * oom_mod_product(tv.ints, tv.nints);
    return v;
}

/* A tensor of nested lists' data (np.array(rows), torch.FloatTensor(table)):
 * their shape, or a tensor's own; unknown when the rows differ. */
value oom_mod_data_tensor(const value *data)
{
    if (data->kind == V_TENSOR)
        return *data;
    if (data->kind != V_SEQ || !data->shaped || data->nints >= MAX_INTS)
        return unknown();
    value v = unknown();
    v.kind = V_TENSOR;
    v.ints[v.nints++] = data->i;
    for (int k = 0; k < data->nints; k++)
        v.ints[v.nints++] = data->ints[k];
    return v;
}

/* torch.zeros(a, b) / torch.randn((a, b)) / torch.ones(size=...): the shape. */
value oom_mod_tensor(ctx *c, frame *f, TSNode call)
{
    TSNode a[16];
    size_t n = oom_mod_kids(c, field(call, "arguments"), a, 16);
    value v = unknown();
    v.kind = V_TENSOR;
    value first = n == 1 && !is(a[0], "keyword_argument") ? oom_mod_eval(c, f, a[0]) : unknown();
    if (first.kind == V_SEQ || first.kind == V_TENSOR) /* torch.FloatTensor(table): the data's shape */
        return oom_mod_data_tensor(&first);
    for (size_t i = 0; i < n; i++) {
        TSNode e = is(a[i], "keyword_argument") ? OOM_EST_NULL_NODE : a[i];
        char key[16];
        if (is(a[i], "keyword_argument") && text(c, field(a[i], "name"), key, sizeof key) && strcmp(key, "size") == 0)
            e = field(a[i], "value");
        if (ts_node_is_null(e))
            continue;
        value d = oom_mod_eval(c, f, e);
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

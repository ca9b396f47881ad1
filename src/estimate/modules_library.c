/* estimate/modules_library: calls of library callables by their qualified
 * name: torch.nn layers (to modules_layers.c), nn.Parameter and tensor
 * factories, weight_norm and spectral_norm, json/yaml loads of a config
 * (configs.c) and its keys, the numeric builtins sizes are computed with,
 * and the calls whose result is never a module. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "modules.h"
#include "oomlint/library.h"

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
        value x = oom_mod_eval(c, f, a[i]);
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
    size_t n = oom_mod_kids(c, field(call, "arguments"), a, 8);
    *out = unknown();
    if (n == 0)
        return false;
    value first = oom_mod_eval(c, f, a[0]);
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
        long long items;
        if (oom_mod_seq_len(&first, &items))
            *out = int_value(items);
        else if (first.kind == V_STR)
            *out = int_value(oom_mod_str_len(&first));
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
        if (first.kind == V_STR) { /* list("abc"): its characters */
            *out = unknown();
            out->kind = V_SEQ;
            out->plain = true;
            out->i = oom_mod_str_len(&first);
        }
        return true;
    }
    if (strcmp(q, "abs") == 0 && n == 1) {
        if (first.kind == V_INT)
            *out = int_value(first.i < 0 ? -first.i : first.i);
        return true;
    }
    return false;
}

/* Methods that keep a module or a tensor what it is (moved, cast,
 * initialised, viewed: the same number of elements). */
bool oom_mod_keeps_value(const char *method)
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

bool oom_mod_is_weight_norm(const char *q)
{
    return strcmp(q, "torch.nn.utils.weight_norm") == 0 || strcmp(q, "torch.nn.utils.parametrizations.weight_norm") == 0;
}

/* The torch.nn layer a call builds ("Conv1d"), its function named in the
 * call's own file; NULL when it builds none. */
static const char *layer_called(const ctx *c, TSNode call, oom_buf *q)
{
    return is(call, "call") && oom_pymodel_qualname(reader_of(c, call)->m, field(call, "function"), q)
               ? oom_mod_torch_layer_name(q->data)
               : NULL;
}

/* weight_norm splits a layer's weight into a direction of the weight's
 * shape and a magnitude per row (dim 0, PyTorch's default): one parameter
 * more per row. The rows are read from `args_call` (the call whose
 * arguments the layer gets), the layer's kind from `layer_call`. */
void oom_mod_add_weight_norm(ctx *c, frame *f, TSNode layer_call, TSNode args_call, value *v)
{
    oom_buf q;
    oom_buf_init(&q);
    const char *layer = v->kind == V_MODULE ? layer_called(c, layer_call, &q) : NULL;
    long long rows = -1;
    bool ok =
        layer && ((oom_str_starts_with(layer, "ConvTranspose") &&
                   oom_mod_opt_int(c, f, args_call, 0, "in_channels", -1, "in_channels of a convolution", &rows)) ||
                  (!oom_str_starts_with(layer, "ConvTranspose") && oom_str_starts_with(layer, "Conv") &&
                   oom_mod_opt_int(c, f, args_call, 1, "out_channels", -1, "out_channels of a convolution", &rows)) ||
                  (strcmp(layer, "Linear") == 0 &&
                   oom_mod_opt_int(c, f, args_call, 1, "out_features", -1, "out_features of nn.Linear", &rows)));
    oom_buf_free(&q);
    if (ok && rows > 0)
        v->m.params += rows;
    else if (v->kind == V_MODULE)
        oom_mod_unresolved(c, layer_call, "the rows of a weight-normed layer");
}

/* A config's value as the evaluator holds values; an object or a list
 * stays a config to subscript. A missing file or key is unknown, and says
 * which one would settle the size. */
value oom_mod_from_config(ctx *c, const oom_est_config *k)
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
value oom_mod_config_key(ctx *c, frame *f, const value *of, TSNode key_node, TSNode dflt, bool get)
{
    value key = oom_mod_eval(c, f, key_node);
    if (key.kind == V_INT) /* a list's index, as the key text configs.c reads */
        snprintf(key.s, sizeof key.s, "%lld", key.i);
    else if (key.kind != V_STR)
        return unknown();
    const oom_est_config *at = oom_est_config_key(c->configs, of->cfg, key.s);
    if (get && oom_est_config_kind_of(at) == OOM_CFG_MISSING)
        return ts_node_is_null(dflt) ? (value){.kind = V_NONE} : oom_mod_eval(c, f, dflt);
    return oom_mod_from_config(c, at);
}

/* A torch (or builtin) callable by its qualified name. */
/* A config object (the knowledge base's record_constructors): its keyword
 * arguments, and the string keys of a dict literal it is given, as its
 * attributes; more come by assignment (modules_run.c). */
static value record_object(ctx *c, frame *f, TSNode call)
{
    value v = unknown();
    v.kind = V_OBJECT;
    v.obj = oom_mod_frame_new(c, NULL);
    TSNode args[64];
    size_t n = oom_mod_kids(c, field(call, "arguments"), args, 64);
    for (size_t i = 0; i < n; i++) {
        char key[48];
        if (is(args[i], "keyword_argument") && text(c, field(args[i], "name"), key, sizeof key)) {
            value item = oom_mod_eval(c, f, field(args[i], "value"));
            oom_mod_set_attr(v.obj, key, &item);
        } else if (i == 0 && is(args[i], "dictionary")) {
            TSNode pairs[128];
            size_t np = oom_mod_kids(c, args[i], pairs, 128);
            for (size_t k = 0; k < np; k++) {
                value name = is(pairs[k], "pair") ? oom_mod_eval(c, f, field(pairs[k], "key")) : unknown();
                if (name.kind != V_STR)
                    continue;
                value item = oom_mod_eval(c, f, field(pairs[k], "value"));
                oom_mod_set_attr(v.obj, name.s, &item);
            }
        }
    }
    return v;
}

/* torchvision.models.NAME(num_classes=...) of the knowledge base: its
 * parameters with the classifier sized for the classes asked, its buffers;
 * activations are the estimate's image tables' (vision.c), not counted
 * here. Unknown for a model the knowledge base does not profile. */
static value library_image_model(ctx *c, frame *f, TSNode call, const char *name)
{
    const char *last = strrchr(name, '.') + 1;
    const oom_model *m = c->r->kb ? oom_kb_find_model(c->r->kb, last) : NULL;
    if (!m || m->vision.resolution <= 0 || m->params <= 0 || m->vision.head_in_features <= 0 ||
        m->vision.classes <= 0)
        return unknown();
    long long classes = m->vision.classes;
    TSNode given = oom_mod_arg(c, call, -1, "num_classes");
    if (!ts_node_is_null(given)) {
        value n = oom_mod_eval(c, f, given);
        if (n.kind != V_INT || n.i <= 0) {
            oom_mod_unresolved(c, given, "num_classes of a torchvision model");
            return unknown();
        }
        classes = n.i;
    }
    value v = module_value();
    long long in = m->vision.head_in_features;
    v.m.head_in = in;
    v.m.head_out = classes;
    v.m.head_params = in * classes + classes;
    v.m.params = m->params - m->vision.head_params + v.m.head_params;
    v.m.buffers = m->vision.buffer_bytes;
    v.m.act_unknown = true;
    if (!strchr(m->vision.head, '.')) /* `fc`; a head inside a Sequential (`classifier.6`) is not named */
        oom_est_copy(v.m.head, sizeof v.m.head, m->vision.head);
    return v;
}

value oom_mod_library_head(const value *model)
{
    value v = module_value();
    v.m.params = model->m.head_params;
    v.m.weight = model->m.head_in * model->m.head_out;
    v.m.in_features = model->m.head_in;
    v.m.out_features = model->m.head_out;
    v.m.dense = 2.0 * (double)model->m.head_out;
    return v;
}

/* A space of the knowledge base's environments: `.shape` of a Box, `.n` of
 * a Discrete space. */
static value space_object(ctx *c, const oom_lib_space *s)
{
    value v = unknown(), item = unknown();
    v.kind = V_OBJECT;
    v.obj = oom_mod_frame_new(c, NULL);
    if (s->rank > 0) {
        item.kind = V_INTS;
        for (int i = 0; i < s->rank; i++)
            item.ints[item.nints++] = s->shape[i];
        oom_mod_set_attr(v.obj, "shape", &item);
    } else {
        item = int_value(s->n);
        oom_mod_set_attr(v.obj, "n", &item);
    }
    return v;
}

/* gym.make(id) of an id the knowledge base lists: an object with its
 * observation_space and action_space, which policies are sized by. */
static value environment_object(ctx *c, frame *f, TSNode call, const oom_library *lib)
{
    value id = oom_mod_eval(c, f, oom_mod_arg(c, call, 0, "id"));
    const oom_lib_environment *env = id.kind == V_STR ? oom_library_environment(lib, id.s) : NULL;
    if (!env) { /* the size that needs it says so, naming the id */
        if (id.kind == V_STR && !c->environment_unlisted[0])
            oom_est_copy(c->environment_unlisted, sizeof c->environment_unlisted, id.s);
        return unknown();
    }
    oom_est_copy(c->environment, sizeof c->environment, id.s);
    value v = unknown();
    v.kind = V_OBJECT;
    v.obj = oom_mod_frame_new(c, NULL);
    value obs = space_object(c, &env->observation), act = space_object(c, &env->action);
    oom_mod_set_attr(v.obj, "observation_space", &obs);
    oom_mod_set_attr(v.obj, "action_space", &act);
    return v;
}

/* Notes on the instance being built which of its self.<name> modules the
 * parameters in `e` come from (`self.actor.parameters()`, in a list, a sum
 * or a chain); self.parameters() trains them all. */
static void note_trained(ctx *c, const frame *f, frame *inst, TSNode e, const oom_library *lib, int depth)
{
    if (ts_node_is_null(e) || depth > 12)
        return;
    TSNode fn = is(e, "call") ? field(e, "function") : OOM_EST_NULL_NODE;
    char method[32], self_name[32], attr[32];
    if (is(fn, "attribute") && text(c, field(fn, "attribute"), method, sizeof method) &&
        oom_library_lists(&lib->parameter_methods, method, strlen(method))) {
        TSNode of = field(fn, "object");
        if (is(of, "identifier") && text(c, of, self_name, sizeof self_name) && strcmp(self_name, f->self_name) == 0)
            inst->trains_all = true;
        else if (is(of, "attribute") && is(field(of, "object"), "identifier") &&
                 text(c, field(of, "object"), self_name, sizeof self_name) && strcmp(self_name, f->self_name) == 0 &&
                 text(c, field(of, "attribute"), attr, sizeof attr) && inst->ntrained < 8)
            oom_est_copy(inst->trained[inst->ntrained++], sizeof inst->trained[0], attr);
        return;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(e); i++)
        note_trained(c, f, inst, ts_node_named_child(e, i), lib, depth + 1);
}

/* A path joiner of the knowledge base (`os.path.join("configs",
 * args.config)`) given strings, as Python joins them:
 * a "/" between parts, an absolute part starting over; unknown when a part
 * is not a string the run knows. */
static value path_join(ctx *c, frame *f, TSNode call)
{
    char joined[sizeof ((value *)0)->s] = "";
    TSNode args[16];
    size_t n = oom_mod_kids(c, field(call, "arguments"), args, 16);
    if (n == 0)
        return unknown();
    for (size_t i = 0; i < n; i++) {
        value part = is(args[i], "keyword_argument") || is(args[i], "list_splat") ? unknown() : oom_mod_eval(c, f, args[i]);
        if (part.kind != V_STR)
            return unknown();
        size_t used = strlen(joined);
        if (part.s[0] == '/')
            used = 0;
        else if (used > 0 && joined[used - 1] != '/')
            joined[used++] = '/';
        if (used + strlen(part.s) >= sizeof joined)
            return unknown(); /* longer than a value holds: not this path */
        strcpy(joined + used, part.s);
    }
    return oom_mod_string(joined);
}

value oom_mod_eval_named_call(ctx *c, frame *f, TSNode call, const char *name)
{
    if (oom_str_starts_with(name, "torchvision.models.") && strchr(name + 19, '.') == NULL) {
        value image = library_image_model(c, f, call, name);
        if (image.kind == V_MODULE || c->why[0])
            return image;
    }
    const oom_library *lib = oom_library_get();
    if (lib && oom_library_lists(&lib->record_constructors, name, strlen(name)))
        return record_object(c, f, call);
    if (lib && f && f->inst && f->self_name[0] && oom_library_lists(&lib->optimizer_constructors, name, strlen(name))) {
        note_trained(c, f, f->inst, field(call, "arguments"), lib, 0);
        return unknown();
    }
    if (lib && oom_library_lists(&lib->environment_makers, name, strlen(name)))
        return environment_object(c, f, call, lib);
    if (lib && oom_library_lists(&lib->path_joiners, name, strlen(name)))
        return path_join(c, f, call);
    int yaml = oom_est_config_loader(name); /* json.load(open(path)), yaml.safe_load(f) ... (configs.c) */
    if (yaml >= 0) {
        TSNode p = oom_est_config_path_of(reader_of(c, call), layout_of(c, call), call);
        value path = oom_mod_eval(c, f, p);
        if (path.kind == V_STR)
            return oom_mod_from_config(c, oom_est_config_open(c->configs, c->r, path.s, yaml));
        oom_est_config_path_unknown(c->configs, reader_of(c, call), ts_node_is_null(p) ? call : p, yaml);
        return unknown(); /* the reason only if a size needs it */
    }
    const char *last = strrchr(name, '.') ? strrchr(name, '.') + 1 : name;
    value v = unknown();
    static const char *const repeats[] = {"_single", "_pair", "_triple", "_quadruple"};
    for (int n = 0; n < 4 && oom_str_starts_with(name, "torch.nn.modules.utils."); n++)
        if (strcmp(last, repeats[n]) == 0) { /* _pair(16) is (16, 16); a tuple stays as it is */
            value x = oom_mod_eval(c, f, oom_mod_arg(c, call, 0, NULL));
            if (x.kind != V_INT)
                return x.kind == V_INTS ? x : unknown();
            v.kind = V_INTS;
            v.nints = n + 1;
            for (int i = 0; i <= n; i++)
                v.ints[i] = x.i;
            return v;
        }
    if (strcmp(name, "torch.nn.Parameter") == 0 || strcmp(name, "torch.nn.parameter.Parameter") == 0)
        return oom_mod_parameter(c, f, call);
    if (oom_str_starts_with(name, "torch.nn.") && !strchr(name + 9, '.') && name[9] >= 'A' && name[9] <= 'Z')
        return oom_mod_nn_layer(c, f, call, last);
    if (oom_mod_is_weight_norm(name)) {
        TSNode inner = oom_mod_arg(c, call, 0, "module");
        value normed = oom_mod_eval(c, f, inner);
        TSNode made = is(inner, "identifier") ? oom_pymodel_value_of(reader_of(c, inner)->m, inner, 0) : inner;
        made = is(made, "call") ? made : inner; /* `start = nn.Conv1d(...)`, then weight_norm(start) */
        oom_mod_add_weight_norm(c, f, made, made, &normed);
        return normed;
    }
    if (strcmp(name, "torch.nn.utils.spectral_norm") == 0 ||
        strcmp(name, "torch.nn.utils.parametrizations.spectral_norm") == 0 || strcmp(name, "copy.deepcopy") == 0)
        return oom_mod_eval(c, f, oom_mod_arg(c, call, 0, NULL));
    if (strcmp(name, "torch.zeros") == 0 || strcmp(name, "torch.ones") == 0 || strcmp(name, "torch.randn") == 0 ||
        strcmp(name, "torch.rand") == 0 || strcmp(name, "torch.empty") == 0 || strcmp(name, "torch.Tensor") == 0 ||
        strcmp(name, "torch.FloatTensor") == 0)
        return oom_mod_tensor(c, f, call);
    if (strcmp(name, "torch.linspace") == 0 || strcmp(name, "torch.logspace") == 0) { /* (steps,), whatever the ends */
        value steps = oom_mod_eval(c, f, oom_mod_arg(c, call, 2, "steps"));
        value t = unknown();
        if (steps.kind == V_INT && steps.i >= 0) {
            t.kind = V_TENSOR;
            t.ints[t.nints++] = steps.i;
        }
        return t;
    }
    static const char *const elementwise[] = {"torch.exp", "torch.log", "torch.sin", "torch.cos", "torch.sqrt",
                                              "torch.tanh", "torch.sigmoid", "torch.abs", NULL};
    for (int k = 0; elementwise[k]; k++)
        if (strcmp(name, elementwise[k]) == 0) { /* the shape of what it is given */
            value t = oom_mod_eval(c, f, oom_mod_arg(c, call, 0, "input"));
            return t.kind == V_TENSOR ? t : unknown();
        }
    if (strcmp(name, "numpy.array") == 0 || strcmp(name, "numpy.asarray") == 0 || strcmp(name, "torch.tensor") == 0 ||
        strcmp(name, "torch.as_tensor") == 0 || strcmp(name, "torch.from_numpy") == 0) {
        value data = oom_mod_eval(c, f, oom_mod_arg(c, call, 0, "data"));
        return oom_mod_data_tensor(&data);
    }
    if (strcmp(name, "collections.OrderedDict") == 0 || strcmp(name, "OrderedDict") == 0)
        return oom_mod_ordered_dict(c, f, call);
    if (strcmp(name, "dict") == 0)
        return oom_mod_dict_call(c, f, call);
    if (eval_builtin(c, f, call, name, &v))
        return v;
    if (!not_a_module(name)) {
        v.maybe_module = true;
        v.node = call;
    }
    return v;
}

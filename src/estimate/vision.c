/* estimate/vision: image-classification training scripts. Finds the
 * torchvision (or timm) model a script builds, the image size its transforms
 * produce, autocast, the optimizer class, and frozen layers, each with where it
 * came from. Names are resolved through the semantic model's import aliases,
 * so `from torchvision import models as tvm; tvm.resnet50()` is found and a
 * local function named `resnet50` is not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "oomlint/lang.h"

/* What the scan has found so far. */
typedef struct {
    oom_est_reader *r;
    const oom_model *model; /* the image model the script builds, if any */
    char var[64];           /* the name it is bound to: "model", "self.net" */
    long long ctor_classes; /* num_classes= of the constructor, or 0 */
    int size_rank;          /* how much the image size found so far is trusted */
    /* freezing: where the whole model (or its `features`) was frozen */
    uint32_t freeze_pos;
    bool frozen_all, frozen_features, freeze_guarded;
    TSNode freeze_at, guarded_at;
    /* the head: unfrozen again, or replaced by a new module */
    bool head_unfrozen, head_replaced;
    bool head_taken; /* the parameters left trainable are only named: taken to be the head */
    long long new_head_params, old_head_params, new_classes; /* -1: unknown */
    TSNode head_at;
    char head_text[64];
    /* a ResNet stem without its stride: conv1 at stride 1, maxpool removed */
    bool conv1_stride1, maxpool_removed;
    char in_features_name[4][32]; /* names bound to `model.fc.in_features` */
    int in_features_names;
} scan;

static bool qualname(const scan *s, TSNode expr, oom_buf *out)
{
    return !ts_node_is_null(expr) && oom_pymodel_qualname(s->r->m, expr, out);
}

/* The value of keyword argument `name`, or a null node. */
static TSNode keyword(const scan *s, TSNode call, const char *name)
{
    TSNode args = oom_est_child(call, "arguments");
    for (uint32_t k = 0; !ts_node_is_null(args) && k < ts_node_named_child_count(args); k++) {
        TSNode a = ts_node_named_child(args, k);
        char key[48];
        if (oom_est_type_is(a, "keyword_argument") && oom_est_text_of(s->r, oom_est_child(a, "name"), key, sizeof key) &&
            strcmp(key, name) == 0)
            return oom_est_child(a, "value");
    }
    return OOM_EST_NULL_NODE;
}

static bool int_of(const scan *s, TSNode e, long long *out)
{
    return !ts_node_is_null(e) && oom_pymodel_int_value(s->r->m, e, out) && *out > 0;
}

static bool text_is(const scan *s, TSNode n, const char *want)
{
    char buf[96];
    return !ts_node_is_null(n) && oom_est_text_of(s->r, n, buf, sizeof buf) && strcmp(buf, want) == 0;
}

/* ---- the model --------------------------------------------------------- */

/* The model name an argument gives: a string (through names), or the
 * default of the setting it reads (`create_model(args.model)`), which
 * `*via` then names. */
static bool model_name_of(const scan *s, TSNode arg, oom_buf *out, const oom_est_setting **via)
{
    *via = NULL;
    if (ts_node_is_null(arg))
        return false;
    TSNode v = oom_pymodel_value_of(s->r->m, arg, 0);
    if (!ts_node_is_null(v) && oom_pymodel_string_value(s->r->m, v, out))
        return true;
    *via = oom_est_setting_read_by(s->r, arg);
    return *via && oom_est_setting_string(s->r, *via, out);
}

static const oom_model *image_model_named(const scan *s, const char *prefix, const char *name)
{
    char id[128];
    snprintf(id, sizeof id, "%s%s", prefix, name);
    const oom_model *m = oom_kb_find_model(s->r->kb, id);
    return m && m->vision.resolution > 0 ? m : NULL;
}

/* The knowledge-base image model a call builds: torchvision.models.NAME(...),
 * torchvision.models.get_model("NAME"), torch.hub.load("pytorch/vision",
 * "NAME"), timm.create_model("NAME"); the name may be a setting's default. */
static const oom_model *image_model_of_call(const scan *s, TSNode call, const char *q,
                                            const oom_est_setting **via)
{
    const oom_model *m = NULL;
    oom_buf str;
    oom_buf_init(&str);
    const char *last = strrchr(q, '.');
    *via = NULL;
    if (oom_str_starts_with(q, "torchvision.models.") && last) {
        if (strcmp(last + 1, "get_model") != 0)
            m = image_model_named(s, "", last + 1);
        else if (model_name_of(s, oom_est_positional(call, 0), &str, via))
            m = image_model_named(s, "", str.data);
    } else if (strcmp(q, "torch.hub.load") == 0 && oom_pymodel_string_value(s->r->m, oom_est_positional(call, 0), &str) &&
               strstr(str.data, "pytorch/vision") && model_name_of(s, oom_est_positional(call, 1), &str, via)) {
        m = image_model_named(s, "", str.data);
    } else if ((strcmp(q, "timm.create_model") == 0 || strcmp(q, "timm.models.create_model") == 0) &&
               model_name_of(s, oom_est_positional(call, 0), &str, via)) {
        /* timm's models are only the same as torchvision's where the
         * knowledge base says so (an alias "timm/NAME") */
        m = image_model_named(s, "timm/", str.data);
    }
    oom_buf_free(&str);
    return m;
}

/* A model picked by name from torchvision's namespace and called:
 * `models.__dict__[args.arch]()` (PyTorch's ImageNet example) or
 * `getattr(models, args.arch)()`. */
static const oom_model *image_model_by_lookup(const scan *s, TSNode call, const oom_est_setting **via)
{
    TSNode fn = oom_est_child(call, "function"), space = OOM_EST_NULL_NODE, key = OOM_EST_NULL_NODE;
    oom_buf q;
    oom_buf_init(&q);
    if (oom_est_type_is(fn, "subscript") && qualname(s, oom_est_child(fn, "value"), &q) &&
        strcmp(q.data, "torchvision.models.__dict__") == 0) {
        key = oom_est_child(fn, "subscript");
    } else if (oom_est_type_is(fn, "call") && text_is(s, oom_est_child(fn, "function"), "getattr")) {
        space = oom_est_positional(fn, 0);
        if (qualname(s, space, &q) && strcmp(q.data, "torchvision.models") == 0)
            key = oom_est_positional(fn, 1);
    }
    const oom_model *m = NULL;
    if (model_name_of(s, key, &q, via))
        m = image_model_named(s, "", q.data);
    oom_buf_free(&q);
    return m;
}

/* `model = resnet50(...)`, also through `.to(device)` / `.cuda()`: the name
 * (or attribute) the model is bound to. */
static void bind_model_var(scan *s, TSNode call)
{
    TSNode n = call;
    for (int i = 0; i < 6; i++) {
        TSNode up = ts_node_parent(n);
        if (oom_est_type_is(up, "attribute") || oom_est_type_is(up, "call")) {
            n = up;
            continue;
        }
        if (oom_est_type_is(up, "assignment") && ts_node_eq(oom_est_child(up, "right"), n))
            oom_est_text_of(s->r, oom_est_child(up, "left"), s->var, sizeof s->var);
        return;
    }
}

static void found_model(scan *s, TSNode call, const oom_model *m, const char *q, const oom_est_setting *via)
{
    oom_script_inputs *out = s->r->out;
    char what[160];
    snprintf(what, sizeof what, "%s()", q);
    if (!oom_script_inputs_use_model(out, s->r->kb, m->id, NULL))
        return;
    s->model = m;
    s->r->via = via;
    oom_est_note(s->r, OOM_IN_MODEL, call, what);
    s->r->via = NULL;
    bind_model_var(s, call);
    long long n;
    if (int_of(s, keyword(s, call, "num_classes"), &n))
        s->ctor_classes = n;
    if (m->vision.patch_size > 0 && int_of(s, keyword(s, call, "image_size"), &n) && s->size_rank < 5) {
        out->in.image_h = out->in.image_w = n;
        s->size_rank = 5;
        oom_est_note(s->r, OOM_IN_IMAGE, call, "image_size= of the ViT");
    }
}

/* ---- the image size ---------------------------------------------------- */

/* How much a transform decides the training input: the random crop of the
 * training pipeline most, a center crop next, a Resize (shorter side) least. */
static int transform_rank(const char *name)
{
    if (strcmp(name, "RandomResizedCrop") == 0)
        return 4;
    if (strcmp(name, "RandomCrop") == 0 || strcmp(name, "CenterCrop") == 0)
        return 3;
    if (strcmp(name, "Resize") == 0)
        return 1;
    return 0;
}

/* An int, or a (h, w) tuple or list of ints. */
static bool size_value(const scan *s, TSNode v, long long *h, long long *w)
{
    if (int_of(s, v, h)) {
        *w = *h;
        return true;
    }
    if (!oom_est_type_is(v, "tuple") && !oom_est_type_is(v, "list"))
        return false;
    return ts_node_named_child_count(v) == 2 && int_of(s, ts_node_named_child(v, 0), h) &&
           int_of(s, ts_node_named_child(v, 1), w);
}

static void set_image_size(scan *s, TSNode at, int rank, long long h, long long w, const char *what)
{
    oom_script_inputs *out = s->r->out;
    bool larger = (double)h * (double)w > (double)out->in.image_h * (double)out->in.image_w;
    if (rank < s->size_rank || (rank == s->size_rank && !larger))
        return;
    s->size_rank = rank;
    out->in.image_h = h, out->in.image_w = w;
    oom_est_note(s->r, OOM_IN_IMAGE, at, what);
}

static void read_transform(scan *s, TSNode call, const char *q)
{
    const char *last = strrchr(q, '.');
    int rank = oom_str_starts_with(q, "torchvision.transforms.") && last ? transform_rank(last + 1) : 0;
    if (!rank)
        return;
    TSNode v = keyword(s, call, "size");
    if (ts_node_is_null(v))
        v = oom_est_positional(call, 0);
    long long h, w;
    if (!size_value(s, v, &h, &w))
        return;
    char what[96];
    /* Resize(n) sets the shorter side; the other follows the photo's aspect */
    snprintf(what, sizeof what, "%s(%lld%s%s", last + 1, h, h == w ? "" : ", ...",
             rank == 1 && oom_est_type_is(v, "integer") ? "): shorter side, assumed square" : ")");
    set_image_size(s, call, rank, h, w, what);
}

/* The size settings declare (`--image-size 384`, `img_size = 32`), below
 * any transform the script writes out. */
static void read_size_settings(scan *s)
{
    static const char *const names[] = {"image_size", "img_size", "input_size", "resolution", "crop_size", NULL};
    for (int i = 0; names[i]; i++) {
        const oom_est_setting *setting = oom_est_setting_named(s->r, names[i]);
        long long n;
        if (!setting || !oom_est_setting_int(s->r, setting, &n) || n <= 0)
            continue;
        char what[128];
        oom_est_setting_describe(setting, what, sizeof what);
        set_image_size(s, setting->at, 2, n, n, what);
    }
}

/* ---- autocast and the optimizer ---------------------------------------- */

static void read_autocast(scan *s, TSNode call, const char *q)
{
    oom_script_inputs *out = s->r->out;
    bool autocast = strcmp(q, "torch.autocast") == 0 || strcmp(q, "torch.cuda.amp.autocast") == 0 ||
                    strcmp(q, "torch.amp.autocast") == 0;
    TSNode enabled = keyword(s, call, "enabled");
    if (!autocast || text_is(s, enabled, "False") || !out->from[OOM_IN_PRECISION].assumed ||
        oom_est_setting_switch(s->r, oom_est_setting_read_by(s->r, enabled)) == 0 ||
        !oom_est_runs_without_flags(s->r, call))
        return; /* autocast(enabled=args.amp) with --amp off by default */
    TSNode device = keyword(s, call, "device_type");
    if (ts_node_is_null(device))
        device = oom_est_positional(call, 0);
    char dev[32] = "";
    if (!ts_node_is_null(device) && oom_est_text_of(s->r, device, dev, sizeof dev) && strstr(dev, "cpu"))
        return; /* CPU autocast does not touch the GPU */
    char dtype[64] = "";
    TSNode dt = keyword(s, call, "dtype");
    if (!ts_node_is_null(dt))
        oom_est_text_of(s->r, dt, dtype, sizeof dtype);
    bool bf16 = strstr(dtype, "bfloat16") != NULL;
    out->in.precision = bf16 ? OOM_PREC_AMP_BF16 : OOM_PREC_AMP_FP16;
    oom_est_note(s->r, OOM_IN_PRECISION, call, bf16 ? "autocast(dtype=torch.bfloat16)" : "autocast (float16)");
}

/* torch.optim.SGD/Adam/AdamW, bitsandbytes' 8-bit Adam, HF Adafactor. */
static void read_optimizer_class(scan *s, TSNode call, const char *q)
{
    oom_script_inputs *out = s->r->out;
    const char *last = strrchr(q, '.');
    if (!last || !out->from[OOM_IN_OPTIMIZER].assumed)
        return;
    last++;
    oom_optimizer o;
    if (oom_str_starts_with(q, "torch.optim.") && strcmp(last, "SGD") == 0) {
        /* momentum=0 is SGD's default; a name we cannot read is taken as momentum */
        TSNode mv = keyword(s, call, "momentum");
        if (ts_node_is_null(mv))
            mv = oom_est_positional(call, 2);
        char m[32] = "";
        if (!ts_node_is_null(mv))
            oom_est_text_of(s->r, mv, m, sizeof m);
        bool zero = !m[0] || (strtod(m, NULL) == 0 && (m[0] == '0' || m[0] == '.'));
        o = zero ? OOM_OPT_SGD : OOM_OPT_SGD_MOMENTUM;
    } else if (oom_str_starts_with(q, "torch.optim.") && (strcmp(last, "Adam") == 0 || strcmp(last, "AdamW") == 0)) {
        o = OOM_OPT_ADAMW;
    } else if (oom_str_starts_with(q, "bitsandbytes.optim.") && strstr(last, "8bit")) {
        o = OOM_OPT_ADAM_8BIT;
    } else if (oom_str_starts_with(q, "transformers.") && strcmp(last, "Adafactor") == 0) {
        o = OOM_OPT_ADAFACTOR;
    } else {
        return;
    }
    out->in.optimizer = o;
    char what[96];
    snprintf(what, sizeof what, "%s()", q);
    oom_est_note(s->r, OOM_IN_OPTIMIZER, call, what);
}

static void visit_call(void *ctx, TSNode n)
{
    scan *s = ctx;
    if (!oom_est_type_is(n, "call"))
        return;
    TSNode fn = oom_est_child(n, "function");
    const oom_est_setting *via = NULL;
    const oom_model *m;
    oom_buf q;
    oom_buf_init(&q);
    if (qualname(s, fn, &q)) {
        m = s->r->out->model_known ? NULL : image_model_of_call(s, n, q.data, &via);
        if (m)
            found_model(s, n, m, q.data, via);
        read_transform(s, n, q.data);
        read_autocast(s, n, q.data);
        read_optimizer_class(s, n, q.data);
    } else if (!s->r->out->model_known && (m = image_model_by_lookup(s, n, &via)) != NULL) {
        char what[64];
        snprintf(what, sizeof what, "torchvision.models.%s", m->id);
        found_model(s, n, m, what, via);
    }
    oom_buf_free(&q);
}

/* ---- frozen layers ----------------------------------------------------- */

/* The attribute path of `expr` below the model, with subscripts as parts:
 * model.classifier[6] -> "classifier.6"; "" for the model itself. False when
 * `expr` is not the model or below it. */
static bool path_below_model(const scan *s, TSNode expr, char *path, size_t size)
{
    char t[96];
    if (!s->var[0] || !oom_est_text_of(s->r, expr, t, sizeof t))
        return false;
    size_t n = strlen(s->var);
    if (strncmp(t, s->var, n) != 0 || (t[n] != '\0' && t[n] != '.'))
        return false;
    size_t k = 0;
    for (const char *p = t[n] ? t + n + 1 : t + n; *p && k + 1 < size; p++)
        if (*p != ']' && *p != ' ')
            path[k++] = *p == '[' ? '.' : *p;
    path[k] = '\0';
    return true;
}

/* Whether `path` is the head's path or a container of it ("classifier" for
 * "classifier.6"). */
static bool is_head_path(const oom_vision_profile *v, const char *path)
{
    size_t n = strlen(path);
    return n > 0 && strncmp(v->head, path, n) == 0 && (v->head[n] == '\0' || v->head[n] == '.');
}

enum { PART_OTHER = -1, PART_MODEL, PART_BACKBONE, PART_HEAD };

/* What `expr` names: the whole model, its backbone (`features`), its head
 * (or the container of the head), or something else. */
static int part_of_model(const scan *s, TSNode expr)
{
    char path[64];
    if (!path_below_model(s, expr, path, sizeof path))
        return PART_OTHER;
    const oom_vision_profile *v = &s->model->vision;
    if (!path[0])
        return PART_MODEL;
    if (v->backbone[0] && strcmp(path, v->backbone) == 0)
        return PART_BACKBONE;
    return is_head_path(v, path) ? PART_HEAD : PART_OTHER;
}

/* requires_grad = False / requires_grad_(False): -1 not such a statement, 0
 * freezes, 1 unfreezes. `target` must be the loop variable (or NULL for a
 * module: model.requires_grad_(False)). */
static int requires_grad_statement(const scan *s, TSNode stmt, const char *target, TSNode *object)
{
    TSNode e = oom_est_type_is(stmt, "expression_statement") ? ts_node_named_child(stmt, 0) : stmt;
    if (oom_est_type_is(e, "assignment")) {
        TSNode left = oom_est_child(e, "left");
        if (!oom_est_type_is(left, "attribute") || !text_is(s, oom_est_child(left, "attribute"), "requires_grad"))
            return -1;
        *object = oom_est_child(left, "object");
        if (target && !text_is(s, *object, target))
            return -1;
        return oom_est_type_is(oom_est_child(e, "right"), "true") ? 1 : oom_est_type_is(oom_est_child(e, "right"), "false") ? 0 : -1;
    }
    if (!oom_est_type_is(e, "call") || !oom_est_type_is(oom_est_child(e, "function"), "attribute"))
        return -1;
    TSNode fn = oom_est_child(e, "function");
    if (!text_is(s, oom_est_child(fn, "attribute"), "requires_grad_"))
        return -1;
    *object = oom_est_child(fn, "object");
    if (target && !text_is(s, *object, target))
        return -1;
    TSNode arg = oom_est_positional(e, 0);
    if (ts_node_is_null(arg))
        arg = keyword(s, e, "requires_grad");
    return ts_node_is_null(arg) || oom_est_type_is(arg, "true") ? 1 : oom_est_type_is(arg, "false") ? 0 : -1;
}

/* A freeze (or unfreeze) of `part` at `at`. */
static void record_grad_switch(scan *s, TSNode at, int part, int on)
{
    if (part == PART_OTHER)
        return;
    if (on == 0 && part != PART_HEAD) {
        if (oom_pymodel_in_guard(s->r->m, at)) {
            s->freeze_guarded = true;
            s->guarded_at = at;
            return;
        }
        if (part == PART_MODEL)
            s->frozen_all = true;
        else
            s->frozen_features = true;
        s->freeze_pos = ts_node_start_byte(at);
        s->freeze_at = at;
    } else if (on == 1 && part == PART_HEAD && !oom_pymodel_in_guard(s->r->m, at)) {
        s->head_unfrozen = true;
    }
}

/* An `if` whose own block sets requires_grad = False on the loop variable. */
static bool freezes_in_block(const scan *s, TSNode if_stmt, const char *var)
{
    TSNode block = oom_est_child(if_stmt, "consequence");
    for (uint32_t i = 0; !ts_node_is_null(block) && i < ts_node_named_child_count(block); i++) {
        TSNode object;
        if (requires_grad_statement(s, ts_node_named_child(block, i), var, &object) == 0)
            return true;
    }
    return false;
}

/* `if name not in ["fc.weight", "fc.bias"]:` freezing in its block: every
 * parameter but a short list, which a linear probe keeps for its head
 * (MoCo's main_lincls.py). */
static bool freezes_all_but_listed(const scan *s, TSNode if_stmt, TSNode name_var, const char *var)
{
    TSNode cond = oom_est_child(if_stmt, "condition");
    char text[256];
    if (!oom_est_type_is(cond, "comparison_operator") || ts_node_named_child_count(cond) != 2 ||
        !oom_est_text_of(s->r, cond, text, sizeof text) || !strstr(text, " not in "))
        return false;
    TSNode name = ts_node_named_child(cond, 0), list = ts_node_named_child(cond, 1);
    char a[48], b[48];
    return oom_est_text_of(s->r, name, a, sizeof a) && oom_est_text_of(s->r, name_var, b, sizeof b) &&
           strcmp(a, b) == 0 && (oom_est_type_is(list, "list") || oom_est_type_is(list, "tuple")) &&
           ts_node_named_child_count(list) <= 4 && freezes_in_block(s, if_stmt, var);
}

/* for p in model.parameters(): p.requires_grad = False (any loop variable,
 * named_parameters too); only statements directly in the loop body count: one
 * under an `if name ...` freezes an unknown part, but for `if name not in
 * [a short list]`. */
static void visit_for(scan *s, TSNode n)
{
    oom_est_param_loop loop;
    if (!oom_est_parameters_loop(s->r, n, &loop))
        return;
    TSNode name_var = loop.name_var, body = loop.body;
    const char *var = loop.var;
    int part = part_of_model(s, loop.owner);
    for (uint32_t i = 0; i < ts_node_named_child_count(body); i++) {
        TSNode stmt = ts_node_named_child(body, i), object;
        int on = requires_grad_statement(s, stmt, var, &object);
        if (on >= 0) {
            record_grad_switch(s, n, part, on);
        } else if (oom_est_type_is(stmt, "if_statement") && part == PART_MODEL &&
                   freezes_all_but_listed(s, stmt, name_var, var)) {
            record_grad_switch(s, n, part, 0);
            s->head_unfrozen = s->head_taken = !s->freeze_guarded;
        } else if (oom_est_type_is(stmt, "if_statement") && part != PART_OTHER && freezes_in_block(s, stmt, var)) {
            s->freeze_guarded = true; /* `if "fc" not in name:` freezes a part we cannot name */
            s->guarded_at = stmt;
        }
    }
}

/* The callee of `value` ends with `name` ("nn.Conv2d", "Identity"). */
static bool calls(const scan *s, TSNode value, const char *name)
{
    oom_buf q;
    oom_buf_init(&q);
    bool yes = oom_est_type_is(value, "call") && qualname(s, oom_est_child(value, "function"), &q) && oom_str_ends_with(q.data, name);
    oom_buf_free(&q);
    return yes;
}

/* `num_ftrs = model.fc.in_features`: a name for the head's input width. */
static void remember_in_features(scan *s, TSNode assignment)
{
    char right[96];
    TSNode left = oom_est_child(assignment, "left");
    if (s->in_features_names >= 4 || !oom_est_type_is(left, "identifier") ||
        !oom_est_text_of(s->r, oom_est_child(assignment, "right"), right, sizeof right) ||
        !oom_str_ends_with(right, ".in_features"))
        return;
    oom_est_text_of(s->r, left, s->in_features_name[s->in_features_names], sizeof s->in_features_name[0]);
    s->in_features_names++;
}

/* `model.fc.in_features`, or a name bound to it. */
static bool is_in_features(const scan *s, const char *text)
{
    if (oom_str_ends_with(text, ".in_features"))
        return true;
    for (int i = 0; i < s->in_features_names; i++)
        if (strcmp(text, s->in_features_name[i]) == 0)
            return true;
    return false;
}

/* nn.Linear(in, out[, bias=False]): its parameters, or -1. `in` may be
 * `model.fc.in_features`: the knowledge base knows it. */
static long long linear_params(scan *s, TSNode call, long long *out_features)
{
    if (!calls(s, call, "nn.Linear"))
        return -1;
    TSNode in_node = keyword(s, call, "in_features"), out_node = keyword(s, call, "out_features");
    if (ts_node_is_null(in_node))
        in_node = oom_est_positional(call, 0);
    if (ts_node_is_null(out_node))
        out_node = oom_est_positional(call, 1);
    long long in, out;
    char t[96] = "";
    if (!ts_node_is_null(in_node))
        oom_est_text_of(s->r, in_node, t, sizeof t);
    if (!int_of(s, in_node, &in)) {
        if (!is_in_features(s, t))
            return -1;
        in = s->model->vision.head_in_features;
    }
    if (!int_of(s, out_node, &out))
        return -1;
    *out_features = out;
    bool bias = !text_is(s, keyword(s, call, "bias"), "False");
    return in * out + (bias ? out : 0);
}

/* The parameters of a new head: a Linear, or the Linears of an nn.Sequential. */
static long long head_params_of(scan *s, TSNode value, long long *classes)
{
    long long n = linear_params(s, value, classes);
    if (n >= 0 || !oom_est_type_is(value, "call"))
        return n;
    oom_buf q;
    oom_buf_init(&q);
    bool seq = qualname(s, oom_est_child(value, "function"), &q) && oom_str_ends_with(q.data, "nn.Sequential");
    oom_buf_free(&q);
    if (!seq)
        return -1;
    long long total = 0;
    for (uint32_t i = 0;; i++) {
        TSNode a = oom_est_positional(value, i);
        if (ts_node_is_null(a))
            break;
        long long p = linear_params(s, a, classes);
        if (p < 0 && calls(s, a, "nn.Linear"))
            return -1; /* a layer of unknown size */
        total += p > 0 ? p : 0;
    }
    return total > 0 ? total : -1;
}

/* model.conv1 = nn.Conv2d(3, 64, 3, 1, 1) (stride 1, Conv2d's default) and
 * model.maxpool = nn.Identity(): the stem of ResNets trained on 32 px images,
 * which keeps every feature map 4x4 times larger. */
static void read_stem(scan *s, const char *path, TSNode n)
{
    TSNode value = oom_est_child(n, "right");
    if (strcmp(path, "maxpool") == 0 && calls(s, value, "Identity")) {
        s->maxpool_removed = true;
    } else if (strcmp(path, "conv1") == 0 && calls(s, value, "Conv2d")) {
        TSNode stride = keyword(s, value, "stride");
        if (ts_node_is_null(stride))
            stride = oom_est_positional(value, 3);
        long long k = 1;
        if (!ts_node_is_null(stride) && !int_of(s, stride, &k))
            return; /* a stride we cannot read: the stock stem's figures */
        s->conv1_stride1 = k == 1;
    }
}

/* model.fc = nn.Linear(...), model.classifier[6] = ..., model.heads = ...;
 * and a ResNet's stem. */
static void visit_assignment(scan *s, TSNode n)
{
    if (!oom_est_type_is(n, "assignment"))
        return;
    TSNode left = oom_est_child(n, "left");
    char path[64];
    const oom_vision_profile *v = s->model ? &s->model->vision : NULL;
    remember_in_features(s, n);
    if (!v || !path_below_model(s, left, path, sizeof path))
        return;
    if (v->stem_resolution > 0)
        read_stem(s, path, n);
    if (!is_head_path(v, path))
        return;
    s->head_replaced = true;
    s->head_at = n;
    oom_est_text_of(s->r, left, s->head_text, sizeof s->head_text);
    /* a whole `classifier` replaced: everything outside `features` goes */
    bool container = strcmp(path, v->head) != 0;
    s->old_head_params = container && v->classifier_params > 0 ? v->classifier_params : v->head_params;
    s->new_classes = -1;
    s->new_head_params = head_params_of(s, oom_est_child(n, "right"), &s->new_classes);
}

static void visit_freezing(void *ctx, TSNode n)
{
    scan *s = ctx;
    if (oom_est_type_is(n, "for_statement")) {
        visit_for(s, n);
    } else if (oom_est_type_is(n, "call") && oom_est_type_is(ts_node_parent(n), "expression_statement")) {
        TSNode object;
        int on = requires_grad_statement(s, n, NULL, &object);
        if (on >= 0)
            record_grad_switch(s, n, part_of_model(s, object), on);
    } else {
        visit_assignment(s, n);
    }
}

/* ---- putting it together ----------------------------------------------- */

static void apply_classes(scan *s)
{
    oom_script_inputs *out = s->r->out;
    const oom_vision_profile *v = &s->model->vision;
    long long classes = s->ctor_classes;
    if (s->head_replaced && s->new_classes > 0)
        classes = s->new_classes;
    if (classes > 0 && classes != v->classes)
        out->in.classes = classes;
    if (s->ctor_classes > 0) /* a new head of that many classes from the start */
        out->in.params += (v->head_in_features + 1) * (s->ctor_classes - v->classes);
    if (s->head_replaced) {
        long long fresh = s->new_head_params >= 0 ? s->new_head_params : s->old_head_params;
        out->in.params += fresh - s->old_head_params;
        out->in.trainable = out->in.params;
    } else {
        out->in.trainable = out->in.params;
    }
}

static void describe_trainable(scan *s, long long trainable, const char *how)
{
    oom_script_inputs *out = s->r->out;
    char what[160];
    snprintf(what, sizeof what, "%s frozen, %s: %lld trainable params", s->frozen_all ? "backbone" : "`features`",
             how, trainable);
    oom_est_note(s->r, OOM_IN_LORA, s->head_replaced ? s->head_at : s->freeze_at, what);
    /* no head found, or one whose size we cannot read (the original's is used) */
    out->from[OOM_IN_LORA].assumed = (!s->head_replaced && !s->head_unfrozen && s->frozen_all) ||
                                     (s->head_replaced && s->new_head_params < 0) || s->head_taken;
}

/* Trainable parameters and the frozen-backbone activations. */
static void apply_freezing(scan *s)
{
    oom_script_inputs *out = s->r->out;
    const oom_vision_profile *v = &s->model->vision;
    if (s->freeze_guarded && !s->frozen_all && !s->frozen_features) {
        oom_est_note(s->r, OOM_IN_LORA, s->guarded_at, "all parameters trained (the freeze here is conditional)");
        out->from[OOM_IN_LORA].assumed = true;
        return;
    }
    if (!s->frozen_all && !s->frozen_features)
        return;
    long long head = s->head_replaced && s->new_head_params >= 0 ? s->new_head_params : v->head_params;
    bool head_after = s->head_replaced && ts_node_start_byte(s->head_at) > s->freeze_pos;
    char how[96];
    long long trainable;
    if (s->frozen_features && !s->frozen_all) {
        /* everything outside `features`: the (possibly new) classifier */
        trainable = out->in.params - (s->model->params - (v->classifier_params > 0 ? v->classifier_params : 0));
        snprintf(how, sizeof how, "the rest trained");
    } else if (s->head_taken) {
        trainable = head;
        snprintf(how, sizeof how, "all but a few named parameters: taken to be the head (`%s`)", v->head);
    } else if (head_after || s->head_unfrozen) {
        trainable = head;
        snprintf(how, sizeof how, "only `%s` trained", s->head_replaced ? s->head_text : v->head);
    } else {
        trainable = v->head_params; /* something must train: assume the head */
        snprintf(how, sizeof how, "assumed only the head (`%s`) trains", v->head);
    }
    out->in.trainable = trainable;
    out->in.frozen_backbone = true;
    describe_trainable(s, trainable, how);
}

/* A ResNet with a stride-1 stem: the figures measured that way (both
 * changes), or the stock ones for 4 times the pixels per removed stride-2
 * step (one change: not measured, an approximation). */
static void apply_stem(scan *s)
{
    const oom_vision_profile *v = &s->model->vision;
    oom_estimate_input *in = &s->r->out->in;
    if (!s->conv1_stride1 && !s->maxpool_removed)
        return;
    oom_provenance *p = &s->r->out->from[OOM_IN_MODEL];
    size_t used = strlen(p->text);
    if (s->conv1_stride1 && s->maxpool_removed) {
        in->image_bytes = v->stem_saved_fp32;
        in->image_bytes_amp = v->stem_saved_autocast;
        in->image_bytes_frozen = v->stem_forward_peak > v->saved_frozen ? v->stem_forward_peak : v->saved_frozen;
        in->image_ref = v->stem_resolution;
        snprintf(p->text + used, sizeof p->text - used, " with a stride-1 stem (conv1 3x3, no maxpool)");
    } else {
        in->image_bytes *= 4, in->image_bytes_amp *= 4, in->image_bytes_frozen *= 4;
        snprintf(p->text + used, sizeof p->text - used, ", %s: about 4x the activations",
                 s->conv1_stride1 ? "conv1 at stride 1" : "no maxpool");
    }
}

void oom_est_read_vision(oom_est_reader *r)
{
    scan s;
    memset(&s, 0, sizeof s);
    s.r = r;
    oom_est_walk(r, visit_call, &s);
    if (!s.model)
        return;
    read_size_settings(&s);
    oom_est_walk(r, visit_freezing, &s);
    apply_classes(&s);
    apply_freezing(&s);
    apply_stem(&s);
}

/* estimate/placement: where an inference script puts the model it loads,
 * and the casts it applies after loading. A training job runs where its
 * Trainer or launcher puts it; a script that only generates or evaluates
 * runs on the CPU unless it moves the model (`.cuda()`, `.to(device)`),
 * loads it onto a device (`device_map={"": 0}`, a bitsandbytes load), or
 * hands it to something that does (`accelerator.prepare`, `pipeline(...,
 * device=0)`). `device_map="auto"` and `max_memory=` let accelerate split
 * the model over the GPUs and offload the rest: no one GPU has to hold it.
 * The capacity check (project/capacity.c) judges an inference script only
 * where the whole model visibly goes to one GPU. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "oomlint/lang.h"

/* Calls that hand the model back, moved or cast: what a chain of them ends
 * in is still the model (`model.half().cuda().eval()`). */
static bool passes_model_through(const char *method)
{
    static const char *const names[] = {"cuda", "to", "half", "bfloat16", "float", "eval", "requires_grad_",
                                        "cpu", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(method, names[i]) == 0)
            return true;
    return false;
}

/* `<obj>.<method>(...)`: the method's name into buf; false for other nodes. */
static bool method_call(const oom_est_reader *r, TSNode call, TSNode *obj, char *buf, size_t size)
{
    TSNode fn = oom_est_child(call, "function");
    if (!oom_est_type_is(call, "call") || !oom_est_type_is(fn, "attribute") || !oom_est_text_of(r, oom_est_child(fn, "attribute"), buf, size))
        return false;
    *obj = oom_est_child(fn, "object");
    return true;
}

typedef struct {
    oom_est_reader *r;
    char var[96];      /* the name (or self.attribute) the loaded model is bound to; "" when none */
    oom_placement where;
    TSNode where_at;   /* what said so */
    bool spread;       /* device_map="auto" / max_memory: accelerate places it */
    TSNode cast_at;    /* .half(), .bfloat16(), .to(torch.float16) */
} placement_scan;

/* Whether `obj` is the loaded model: the loading call itself or the name it
 * is bound to, through calls that pass it on. */
static bool is_the_model(const placement_scan *ps, TSNode obj)
{
    char method[32];
    TSNode inner;
    /* a few links, as code chains them: a hostile chain of thousands is not followed */
    for (int links = 0; links < 16 && method_call(ps->r, obj, &inner, method, sizeof method) &&
                        passes_model_through(method);
         links++)
        obj = inner;
    if (ts_node_eq(obj, ps->r->model_call))
        return true;
    char text[96];
    return ps->var[0] && oom_est_text_of(ps->r, obj, text, sizeof text) && strcmp(text, ps->var) == 0;
}

/* The name the loading call's result is bound to (`model = AutoModel...
 * .from_pretrained(...).cuda()`), as written. */
static void model_variable(placement_scan *ps)
{
    TSNode n = ps->r->model_call;
    char method[32];
    TSNode obj;
    const oom_pymodel *m = ps->r->m;
    for (TSNode up = oom_pymodel_parent(m, n); !ts_node_is_null(up); up = oom_pymodel_parent(m, n)) {
        TSNode call = oom_est_type_is(up, "attribute") ? oom_pymodel_parent(m, up) : up;
        if (oom_est_type_is(up, "attribute") && oom_est_type_is(call, "call") &&
            method_call(ps->r, call, &obj, method, sizeof method) && passes_model_through(method)) {
            n = call;
            continue;
        }
        if (oom_est_type_is(up, "assignment") && ts_node_eq(oom_est_child(up, "right"), n) &&
            !oom_est_text_of(ps->r, oom_est_child(up, "left"), ps->var, sizeof ps->var))
            ps->var[0] = '\0';
        break;
    }
}

/* What a device expression names, names and settings' defaults followed:
 * a GPU ("cuda", "cuda:0", 0, torch.device("cuda"), "cuda" if
 * torch.cuda.is_available() else "cpu", accelerator.device, local_rank),
 * the CPU, accelerate's own placement ("auto" ...), or unknown. */
static oom_placement device_kind(const oom_est_reader *r, TSNode expr, int depth)
{
    if (ts_node_is_null(expr) || depth > 4)
        return OOM_PLACE_UNKNOWN;
    const oom_est_setting *via = oom_est_setting_read_by(r, expr);
    if (via && !ts_node_is_null(via->value))
        expr = via->value;
    TSNode v = oom_pymodel_value_of(r->m, expr, 0);
    if (!ts_node_is_null(v))
        expr = v;
    const char *type = ts_node_type(expr);
    oom_buf s;
    oom_buf_init(&s);
    oom_placement k = OOM_PLACE_UNKNOWN;
    if (strcmp(type, "integer") == 0) {
        k = OOM_PLACE_ONE_GPU; /* a CUDA device index */
    } else if (strcmp(type, "string") == 0 && oom_pymodel_string_value(r->m, expr, &s)) {
        if (strncmp(s.data, "cuda", 4) == 0)
            k = OOM_PLACE_ONE_GPU;
        else if (strcmp(s.data, "cpu") == 0 || strcmp(s.data, "mps") == 0 || strcmp(s.data, "meta") == 0)
            k = OOM_PLACE_CPU;
        else if (strcmp(s.data, "auto") == 0 || strncmp(s.data, "balanced", 8) == 0 ||
                 strcmp(s.data, "sequential") == 0)
            k = OOM_PLACE_SPREAD;
    } else if (strcmp(type, "string") == 0) {
        char text[32]; /* f"cuda:{rank}" */
        if (oom_est_text_of(r, expr, text, sizeof text) && strncmp(text + 1, "\"cuda", 5) == 0)
            k = OOM_PLACE_ONE_GPU;
    } else if (strcmp(type, "conditional_expression") == 0) {
        /* `"cuda" if args.cuda else "cpu"`: the branch a run without flags
         * takes; `"cuda" if torch.cuda.is_available() else "cpu"`: the job
         * has a GPU */
        int on = oom_est_setting_switch(r, oom_est_setting_read_by(r, ts_node_named_child(expr, 1)));
        if (on >= 0) {
            oom_buf_free(&s);
            return device_kind(r, ts_node_named_child(expr, on ? 0 : 2), depth + 1);
        }
        oom_placement a = device_kind(r, ts_node_named_child(expr, 0), depth + 1);
        oom_placement b = device_kind(r, ts_node_named_child(expr, 2), depth + 1);
        k = a == OOM_PLACE_ONE_GPU || b == OOM_PLACE_ONE_GPU ? OOM_PLACE_ONE_GPU : a == b ? a : OOM_PLACE_UNKNOWN;
    } else if (strcmp(type, "call") == 0) {
        oom_buf q;
        oom_buf_init(&q);
        TSNode args = oom_est_child(expr, "arguments");
        if (oom_pymodel_qualname(r->m, oom_est_child(expr, "function"), &q) && strcmp(q.data, "torch.device") == 0 &&
            ts_node_named_child_count(args) > 0)
            k = device_kind(r, ts_node_named_child(args, 0), depth + 1);
        else if (q.len > 0 && strstr(q.data, "cuda.current_device"))
            k = OOM_PLACE_ONE_GPU;
        oom_buf_free(&q);
    } else if (strcmp(type, "identifier") == 0 || strcmp(type, "attribute") == 0) {
        /* a device no binding in the file gives (a parameter, an object's
         * field): `local_rank`, `accelerator.device`, `args.device` of a
         * script that speaks of CUDA */
        char text[96];
        static const char *const gpu_words[] = {"cuda", "gpu", "rank", "index", NULL}; /* accelerator.process_index */
        static const char *const device_words[] = {"device", NULL};
        const char *last = text;
        if (oom_est_text_of(r, expr, text, sizeof text)) {
            if (strrchr(text, '.'))
                last = strrchr(text, '.') + 1;
            if (oom_name_has_word(last, strlen(last), gpu_words) ||
                (oom_name_has_word(last, strlen(last), device_words) && strstr(r->src->text, "cuda")))
                k = OOM_PLACE_ONE_GPU;
        }
    }
    oom_buf_free(&s);
    return k;
}

/* device_map= of the loading call: one device, a map of one entry
 * (`{"": 0}`), or accelerate's placement (a name of a strategy, a map of
 * several modules: split over devices). */
static oom_placement device_map_kind(const oom_est_reader *r, TSNode value)
{
    const oom_est_setting *via = oom_est_setting_read_by(r, value);
    TSNode v = via && !ts_node_is_null(via->value) ? via->value : oom_pymodel_value_of(r->m, value, 0);
    if (ts_node_is_null(v))
        v = value;
    if (oom_est_type_is(v, "dictionary")) {
        if (ts_node_named_child_count(v) != 1 || !oom_est_type_is(ts_node_named_child(v, 0), "pair"))
            return OOM_PLACE_SPREAD;
        return device_kind(r, oom_est_child(ts_node_named_child(v, 0), "value"), 0);
    }
    return device_kind(r, v, 0);
}

static void place(placement_scan *ps, oom_placement k, TSNode at)
{
    /* a move to a GPU anywhere wins over a CPU one: the run uses the GPU */
    if (k == OOM_PLACE_UNKNOWN || (ps->where == OOM_PLACE_ONE_GPU && k == OOM_PLACE_CPU))
        return;
    if (k == OOM_PLACE_SPREAD) {
        ps->spread = true;
        ps->where_at = at;
        return;
    }
    if (ps->where != OOM_PLACE_ONE_GPU) {
        ps->where = k;
        ps->where_at = at;
    }
}

/* What the loading call itself says: device_map=, max_memory=, and a
 * bitsandbytes load (transformers puts it on the current GPU when no
 * device_map is given). */
static void read_loading_call(placement_scan *ps)
{
    const oom_est_reader *r = ps->r;
    TSNode call = r->model_call;
    TSNode map = oom_pymodel_keyword_value(r->m, call, "device_map");
    TSNode max_memory = oom_pymodel_keyword_value(r->m, call, "max_memory");
    if (!ts_node_is_null(max_memory))
        place(ps, OOM_PLACE_SPREAD, max_memory);
    if (oom_est_is_pipeline(r, call)) /* pipeline(..., device=0) */
        place(ps, device_kind(r, oom_pymodel_keyword_value(r->m, call, "device"), 0), call);
    if (!ts_node_is_null(map))
        place(ps, device_map_kind(r, map), map);
    else if (r->out->in.precision == OOM_PREC_NF4 || r->out->in.precision == OOM_PREC_INT8)
        place(ps, OOM_PLACE_ONE_GPU, call);
}

/* The first positional argument of a call, or its `name=` keyword. */
static TSNode argument(const oom_est_reader *r, TSNode call, const char *name)
{
    TSNode args = oom_est_child(call, "arguments");
    TSNode first = ts_node_named_child_count(args) > 0 ? ts_node_named_child(args, 0) : OOM_EST_NULL_NODE;
    if (!ts_node_is_null(first) && !oom_est_type_is(first, "keyword_argument") && !oom_est_type_is(first, "list_splat") &&
        !oom_est_type_is(first, "dictionary_splat"))
        return first;
    return oom_pymodel_keyword_value(r->m, call, name);
}

/* A dtype that makes the weights 16-bit: torch.float16, torch.half,
 * torch.bfloat16 (names followed). */
static bool is_16bit_dtype(const oom_est_reader *r, TSNode expr)
{
    static const char *const dtypes[] = {"torch.float16", "torch.half", "torch.bfloat16"};
    oom_buf scratch;
    oom_buf_init(&scratch);
    bool yes = !ts_node_is_null(expr) && oom_pymodel_holds(r->m, expr, dtypes, 3, &scratch);
    oom_buf_free(&scratch);
    return yes;
}

/* Whether a run without flags reaches the call (not `if args.cuda:` off by
 * default). Asked only of a call that would change what is known: the
 * question walks up the tree. */
static bool runs(const placement_scan *ps, TSNode call)
{
    return oom_est_runs_without_flags(ps->r, call);
}

/* `<model>.cuda()`, `.to(device)`, `.to(torch.float16)`, `.half()`. */
static void read_model_method(placement_scan *ps, TSNode call, const char *method)
{
    const oom_est_reader *r = ps->r;
    bool decided = ps->where == OOM_PLACE_ONE_GPU; /* a later move changes nothing */
    if (strcmp(method, "cuda") == 0) {
        if (!decided && runs(ps, call))
            place(ps, OOM_PLACE_ONE_GPU, call);
    } else if (strcmp(method, "cpu") == 0) {
        if (ps->where == OOM_PLACE_UNKNOWN && runs(ps, call))
            place(ps, OOM_PLACE_CPU, call);
    } else if (strcmp(method, "half") == 0 || strcmp(method, "bfloat16") == 0) {
        if (ts_node_is_null(ps->cast_at) && runs(ps, call))
            ps->cast_at = call;
    } else if (strcmp(method, "to") == 0 && (!decided || ts_node_is_null(ps->cast_at)) && runs(ps, call)) {
        /* .to(device), .to(dtype), .to(device, dtype), .to(device=, dtype=) */
        TSNode args = oom_est_child(call, "arguments");
        TSNode first = argument(r, call, "device");
        bool cast = is_16bit_dtype(r, oom_pymodel_keyword_value(r->m, call, "dtype"));
        for (uint32_t i = 0; i < ts_node_named_child_count(args); i++)
            cast = cast || is_16bit_dtype(r, ts_node_named_child(args, i));
        if (cast)
            ps->cast_at = call;
        if (!is_16bit_dtype(r, first))
            place(ps, device_kind(r, first, 0), call);
    }
}

/* `accelerator.prepare(model, ...)` and `pipeline(..., model=model,
 * device=0)`: the model handed to what puts it on a device;
 * `deepspeed.init_inference(model, mp_size=...)`: to what splits it. */
static void read_handover(placement_scan *ps, TSNode call, const char *method)
{
    const oom_est_reader *r = ps->r;
    TSNode args = oom_est_child(call, "arguments");
    if (strcmp(method, "prepare") != 0 && strcmp(method, "prepare_model") != 0 &&
        strcmp(method, "init_inference") != 0 && strcmp(method, "pipeline") != 0)
        return;
    if (!runs(ps, call))
        return;
    if (strcmp(method, "prepare") == 0 || strcmp(method, "prepare_model") == 0) {
        for (uint32_t i = 0; i < ts_node_named_child_count(args); i++)
            if (is_the_model(ps, ts_node_named_child(args, i)))
                place(ps, OOM_PLACE_ONE_GPU, call);
        return;
    }
    if (strcmp(method, "init_inference") == 0) { /* DeepSpeed's tensor parallelism over mp_size GPUs */
        TSNode first = ts_node_named_child_count(args) > 0 ? ts_node_named_child(args, 0) : OOM_EST_NULL_NODE;
        if (!ts_node_is_null(first) && is_the_model(ps, first))
            place(ps, OOM_PLACE_SPREAD, call);
        return;
    }
    TSNode model = oom_pymodel_keyword_value(r->m, call, "model");
    if (strcmp(method, "pipeline") == 0 && !ts_node_is_null(model) && is_the_model(ps, model)) {
        TSNode map = oom_pymodel_keyword_value(r->m, call, "device_map");
        if (!ts_node_is_null(map))
            place(ps, device_map_kind(r, map), map);
        place(ps, device_kind(r, oom_pymodel_keyword_value(r->m, call, "device"), 0), call);
    }
}

static void visit(void *ctx, TSNode n)
{
    placement_scan *ps = ctx;
    char method[32];
    TSNode obj;
    if (!oom_est_type_is(n, "call"))
        return;
    if (method_call(ps->r, n, &obj, method, sizeof method)) {
        if (is_the_model(ps, obj) && !ts_node_eq(n, ps->r->model_call))
            read_model_method(ps, n, method);
        else
            read_handover(ps, n, method);
        return;
    }
    TSNode fn = oom_est_child(n, "function");
    if (oom_est_type_is(fn, "identifier") && oom_est_text_of(ps->r, fn, method, sizeof method))
        read_handover(ps, n, method);
}

/* A cast after loading: the weights in 16 bits, where nothing else has
 * said more (a quantised load, torch_dtype=). */
static void note_cast(placement_scan *ps)
{
    oom_est_reader *r = ps->r;
    if (ts_node_is_null(ps->cast_at) || !r->out->from[OOM_IN_PRECISION].assumed)
        return;
    r->out->in.precision = OOM_PREC_PURE_BF16;
    oom_est_note(r, OOM_IN_PRECISION, ps->cast_at, "16-bit weights (cast after loading)");
}

void oom_est_read_placement(oom_est_reader *r)
{
    oom_script_inputs *out = r->out;
    out->placement = OOM_PLACE_UNKNOWN;
    if (out->in.training || ts_node_is_null(r->model_call))
        return;
    placement_scan ps = {r, "", OOM_PLACE_UNKNOWN, OOM_EST_NULL_NODE, false, OOM_EST_NULL_NODE};
    model_variable(&ps);
    read_loading_call(&ps);
    oom_est_walk(r, visit, &ps);
    note_cast(&ps);
    out->placement = ps.spread ? OOM_PLACE_SPREAD : ps.where;
    if (out->placement == OOM_PLACE_UNKNOWN) {
        oom_est_printf(out->placed.text, sizeof out->placed.text,
                       "nothing moves the model to a GPU (not judged by OOM601/602)");
        out->placed.assumed = true;
        return;
    }
    uint32_t row = 0, col = 0;
    oom_source_position(r->src, ts_node_start_byte(ps.where_at), &row, &col);
    char line[200];
    oom_source_describe_line(r->src, r->path, row, line, sizeof line);
    static const char *const said[] = {"", "the model on one GPU", "device_map / max_memory: accelerate places the model",
                                       "the model on the CPU"};
    oom_est_printf(out->placed.text, sizeof out->placed.text, "%s %s", line, said[out->placement]);
    out->placed.assumed = false;
    out->placed.line = row;
    out->placed.col = col;
}

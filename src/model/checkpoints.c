/* model/checkpoints: what a `torch.load` reads, as far as the file itself
 * says. Whether loading without `map_location` costs GPU memory depends on
 * what the file holds (CUDA tensors come back to the GPU they were saved
 * from; host data stays on the host) and on which process loads it. Two
 * things the file can tell: the `torch.save` in the same file that wrote
 * the file and what it saved, and a branch beside the load that gives the
 * per-process case its own `map_location`. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/lang.h"
#include "internal.h"

#define MAX_FILE_NAMES 8
#define FILE_NAME_CAP 96
#define PATH_BUDGET 256
/* bindings followed from a path; far above real code */
#define MAX_FOLLOW 6
/* bindings, calls and the file's own functions followed from a saved
 * value: a dataset built by a helper of a helper is three */
#define MAX_HOST_DEPTH 12

static bool is_type(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* The call's function, aliases applied, is one of `names`. */
static bool calls_one_of(const oom_pymodel *m, TSNode call, const char *const *names)
{
    if (ts_node_is_null(call) || ts_node_symbol(call) != m->sym.call)
        return false;
    oom_buf q;
    oom_buf_init(&q);
    bool found = false;
    if (oom_pymodel_qualname(m, oom_model_child(m, call, "function", 8), &q))
        for (size_t i = 0; names[i] && !found; i++)
            found = strcmp(q.data, names[i]) == 0;
    oom_buf_free(&q);
    return found;
}

static const char *const torch_loads[] = {"torch.load", "torch.serialization.load", NULL};
static const char *const torch_saves[] = {"torch.save", "torch.serialization.save", NULL};

/* The argument at `position` (counting positional arguments only), or the
 * one passed as `keyword=`; a null node when neither is there. */
static TSNode argument(const oom_pymodel *m, TSNode call, int position, const char *keyword)
{
    TSNode args = oom_model_child(m, call, "arguments", 9);
    oom_model_kids kids = oom_model_kids_of(m, args);
    int at = 0;
    for (TSNode a; oom_model_next_kid(m, &kids, &a);) {
        if (ts_node_symbol(a) == m->sym.keyword_argument) {
            if (oom_node_text_is(m, oom_model_child(m, a, "name", 4), keyword))
                return oom_model_child(m, a, "value", 5);
            continue;
        }
        if (is_type(a, "comment") || is_type(a, "list_splat") || is_type(a, "dictionary_splat"))
            continue;
        if (at++ == position)
            return a;
    }
    return (TSNode){0};
}

static bool same_text(const oom_pymodel *m, TSNode a, TSNode b)
{
    uint32_t la, lb;
    const char *ta = oom_node_text(m, a, &la), *tb = oom_node_text(m, b, &lb);
    return la == lb && memcmp(ta, tb, la) == 0;
}

/* ---- which file a path names ------------------------------------------------------------------ */

typedef struct {
    char names[MAX_FILE_NAMES][FILE_NAME_CAP];
    size_t count;
    int budget; /* expressions still to look at: a path is a few; a hostile one is not */
} file_names;

/* A string naming a file: the last component of its path has an
 * extension and no substitution (`"trainfeat.pth"`, `f"{out_dir}/last.pt"`);
 * a folder's name (`"checkpoints"`) is shared by every file in it. */
static void add_file_name(const oom_pymodel *m, TSNode str, file_names *out)
{
    TSNode first = oom_model_named_child(m, str, 0);
    uint32_t count = ts_node_named_child_count(str);
    TSNode last = count ? oom_model_named_child(m, str, count - 1) : first;
    if (!is_type(first, "string_start") || !is_type(last, "string_end"))
        return;
    const char *text = m->src + ts_node_end_byte(first);
    size_t len = ts_node_start_byte(last) - ts_node_end_byte(first);
    const char *base = text;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '/' || text[i] == '\\')
            base = text + i + 1;
    size_t base_len = len - (size_t)(base - text);
    const char *dot = base_len ? memrchr(base, '.', base_len) : NULL;
    if (!dot || dot == base || dot == base + base_len - 1 || memchr(base, '{', base_len) ||
        base_len >= FILE_NAME_CAP || out->count >= MAX_FILE_NAMES)
        return;
    memcpy(out->names[out->count], base, base_len);
    out->names[out->count++][base_len] = '\0';
}

/* The file names the path expression `e` spells: its strings, the
 * arguments of the calls that build it (`os.path.join(d, "last.pt")`,
 * `"ckpt_{}.pt".format(step)`), both sides of `/` and `+`, and what the
 * names it reads were bound to (`WEIGHTS_NAME`, `ckpt_path`). Attributes
 * (`args.resume`) say nothing. */
static void collect_file_names(const oom_pymodel *m, TSNode e, file_names *out, int depth)
{
    if (ts_node_is_null(e) || depth > MAX_FOLLOW || out->budget-- <= 0)
        return;
    TSSymbol s = ts_node_symbol(e);
    if (s == m->sym.string) {
        add_file_name(m, e, out);
    } else if (s == m->sym.identifier) {
        collect_file_names(m, oom_model_bound_value(m, e), out, depth + 1);
    } else if (s == m->sym.call) {
        TSNode fn = oom_model_child(m, e, "function", 8);
        if (ts_node_symbol(fn) == m->sym.attribute)
            collect_file_names(m, oom_model_child(m, fn, "object", 6), out, depth + 1);
        oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, e, "arguments", 9));
        for (TSNode a; oom_model_next_kid(m, &kids, &a);)
            collect_file_names(m, ts_node_symbol(a) == m->sym.keyword_argument ? oom_model_child(m, a, "value", 5) : a,
                               out, depth + 1);
    } else if (is_type(e, "binary_operator") || is_type(e, "parenthesized_expression") ||
               is_type(e, "concatenated_string")) {
        oom_model_kids kids = oom_model_kids_of(m, e);
        for (TSNode k; oom_model_next_kid(m, &kids, &k);)
            collect_file_names(m, k, out, depth + 1);
    }
}

static bool share_a_file_name(const file_names *a, const file_names *b)
{
    for (size_t i = 0; i < a->count; i++)
        for (size_t j = 0; j < b->count; j++)
            if (strcmp(a->names[i], b->names[j]) == 0)
                return true;
    return false;
}

/* Whether the save's path and the load's path name the same file: the same
 * expression in the same function (`torch.save(ds, train_fname)` ...
 * `torch.load(train_fname)`), or the same file name anywhere in the file
 * (`os.path.join(args.dump_features, "trainfeat.pth")` beside
 * `os.path.join(args.load_features, "trainfeat.pth")`). */
static bool same_file(const oom_pymodel *m, TSNode load_path, const file_names *load_names, TSNode save_path)
{
    if (oom_model_scope_at(m, ts_node_start_byte(load_path)) == oom_model_scope_at(m, ts_node_start_byte(save_path)) &&
        same_text(m, load_path, save_path))
        return true;
    file_names saved = {.budget = PATH_BUDGET};
    collect_file_names(m, save_path, &saved, 0);
    return share_a_file_name(load_names, &saved);
}

/* ---- what a save writes: host data -------------------------------------------------------------- */

static bool host_value(const oom_pymodel *m, TSNode e, int depth);

/* Methods that bring a tensor to the host (or out of torch); and methods
 * that keep it where it is, so that the receiver decides. */
static const char *const to_host_methods[] = {"cpu", "numpy", "tolist", "item", NULL};
static const char *const same_place_methods[] = {
    "clone", "detach", "contiguous", "float", "half", "double", "bfloat16", "long", "int", "bool", "byte",
    "view", "reshape", "squeeze", "unsqueeze", "flatten", "permute", "transpose", "t", "flip", "copy",
    "state_dict", NULL};

static bool to_host(const oom_pymodel *m, TSNode call)
{
    TSNode where = argument(m, call, 0, "device");
    uint32_t len;
    const char *t = ts_node_is_null(where) ? NULL : oom_node_text(m, where, &len);
    return t && memmem(t, len, "cpu", 3) != NULL;
}

/* A class the file defines, at module level, named `name`. */
static TSNode own_class(const oom_pymodel *m, const char *name, uint32_t len)
{
    oom_model_kids kids = oom_model_kids_of(m, m->root);
    for (TSNode def; oom_model_next_kid(m, &kids, &def);) {
        if (ts_node_symbol(def) == m->sym.decorated_definition)
            def = oom_model_child(m, def, "definition", 10);
        if (ts_node_is_null(def) || ts_node_symbol(def) != m->sym.class_definition)
            continue;
        uint32_t n;
        const char *t = oom_node_text(m, oom_model_child(m, def, "name", 4), &n);
        if (n == len && memcmp(t, name, len) == 0)
            return def;
    }
    return (TSNode){0};
}

/* `class PromptDataset(Dataset)`: a base named for a dataset
 * (torch.utils.data.Dataset, IterableDataset, a project's BaseDataset). */
static bool derives_dataset(const oom_pymodel *m, TSNode cls)
{
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, cls, "superclasses", 12));
    for (TSNode base; oom_model_next_kid(m, &kids, &base);) {
        uint32_t len;
        const char *name = oom_node_last_name(m, base, &len);
        if (name && len >= 7 && memcmp(name + len - 7, "Dataset", 7) == 0)
            return true;
    }
    return false;
}

/* The scope of a module-level function the file defines, named `name`; -1 when none. */
static int own_function(const oom_pymodel *m, const char *name, uint32_t len)
{
    for (size_t s = 1; s < m->scope_count; s++) {
        const oom_scope *sc = &m->scopes[s];
        if (!sc->name || sc->name_len != len || memcmp(sc->name, name, len) != 0 || ts_node_is_null(sc->def))
            continue;
        TSNode up = oom_model_parent(m, sc->def);
        if (ts_node_symbol(up) == m->sym.decorated_definition)
            up = oom_model_parent(m, up);
        if (ts_node_eq(up, m->root))
            return (int)s;
    }
    return -1;
}

/* True the first time a question follows the function at `scope`. Every
 * "not host" ends the question at once, so a function met again either is
 * being followed (a recursion adds nothing) or returned host data: it is
 * answered once, however many calls lead to it. */
static bool first_visit_of_function(const oom_pymodel *m, int scope)
{
    oom_visit *v = &((oom_pymodel *)m)->host_function_visit;
    if (!v->seen)
        v->seen = oom_xcalloc(m->scope_count ? m->scope_count : 1, sizeof(uint32_t));
    if (v->seen[scope] == v->stamp)
        return false;
    v->seen[scope] = v->stamp;
    return true;
}

/* Every value the function returns is host data (each element of a
 * returned tuple: `return train_dataset, eval_dataset`). */
static bool returns_host_data(const oom_pymodel *m, int scope, int depth)
{
    if (!first_visit_of_function(m, scope))
        return true;
    size_t found = 0;
    for (size_t i = 0; i < m->return_count; i++) {
        const oom_return *r = &m->returns[i];
        if (r->scope != scope)
            continue;
        if (ts_node_is_null(r->value) || !host_value(m, r->value, depth + 1))
            return false;
        found++;
    }
    return found > 0;
}

/* A call that makes host data: a tensor moved to the host (`x.cpu()`,
 * `x.detach().cpu().numpy()`, `x.to("cpu")`), NumPy, the run's parsed
 * arguments (`parser.parse_args()`, `argparse.Namespace(...)`), a dataset
 * (torch.utils.data, Hugging Face `datasets`, a class of the file deriving
 * a Dataset: data pipelines build their samples on the host), or a
 * function of the file that returns only such values. */
static bool host_call(const oom_pymodel *m, TSNode call, int depth)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_symbol(fn) == m->sym.attribute) {
        uint32_t len;
        const char *method = oom_node_text(m, oom_model_child(m, fn, "attribute", 9), &len);
        if (oom_model_text_in(method, len, to_host_methods))
            return true;
        if (len == 2 && memcmp(method, "to", 2) == 0)
            return to_host(m, call);
        static const char *const parsers[] = {"parse_args", "parse_known_args", "parse_args_into_dataclasses", NULL};
        if (oom_model_text_in(method, len, parsers))
            return true;
        if (oom_model_text_in(method, len, same_place_methods))
            return host_value(m, oom_model_child(m, fn, "object", 6), depth + 1);
    }
    oom_buf q;
    oom_buf_init(&q);
    bool host = false;
    if (oom_pymodel_qualname(m, fn, &q))
        host = oom_str_starts_with(q.data, "numpy.") || oom_str_starts_with(q.data, "torch.utils.data.") ||
               oom_str_starts_with(q.data, "datasets.") || strcmp(q.data, "argparse.Namespace") == 0;
    oom_buf_free(&q);
    if (host || ts_node_symbol(fn) != m->sym.identifier)
        return host;
    uint32_t len;
    const char *name = oom_node_text(m, fn, &len);
    TSNode cls = own_class(m, name, len);
    if (!ts_node_is_null(cls))
        return derives_dataset(m, cls);
    int scope = own_function(m, name, len);
    return scope >= 0 && returns_host_data(m, scope, depth);
}

static bool binding_host(const oom_pymodel *m, const oom_binding *b, int depth)
{
    if (!b || b->kind == OOM_BIND_OPAQUE || b->kind == OOM_BIND_AUGMENTED || b->kind == OOM_BIND_ITER)
        return false;
    if (!oom_model_visit_first(m, &((oom_pymodel *)m)->host_visit, b))
        return true; /* answered already in this question: adds nothing */
    return host_value(m, b->value, depth + 1);
}

/* Every binding that may reach the name holds host data. */
static bool identifier_host(const oom_pymodel *m, TSNode id, int depth)
{
    oom_flow_reach r;
    if (oom_model_reaching_bindings(m, id, &r)) {
        if (r.may_be_unbound)
            return false;
        for (uint32_t i = 0; i < r.count; i++)
            if (!binding_host(m, oom_model_def_binding(m, r.defs[i]), depth))
                return false;
        return true;
    }
    uint32_t len;
    const char *name = oom_node_text(m, id, &len);
    uint32_t pos = ts_node_start_byte(id);
    return binding_host(m, oom_model_visible_binding(m, oom_model_scope_at(m, pos), name, len, pos, false), depth);
}

/* Host data: what `host_call` makes, constants, and dicts, lists and
 * tuples of them. Unknown is not host: the file may hold CUDA tensors. */
static bool host_value(const oom_pymodel *m, TSNode e, int depth)
{
    if (ts_node_is_null(e) || depth > MAX_HOST_DEPTH)
        return false;
    TSSymbol s = ts_node_symbol(e);
    if (s == m->sym.identifier)
        return identifier_host(m, e, depth);
    if (s == m->sym.call)
        return host_call(m, e, depth);
    if (s == m->sym.string)
        return true;
    const char *type = ts_node_type(e);
    if (strcmp(type, "integer") == 0 || strcmp(type, "float") == 0 || strcmp(type, "true") == 0 ||
        strcmp(type, "false") == 0 || strcmp(type, "none") == 0)
        return true;
    if (strcmp(type, "subscript") == 0) /* a row of host data */
        return host_value(m, oom_model_child(m, e, "value", 5), depth + 1);
    if (strcmp(type, "pair") == 0)
        return host_value(m, oom_model_child(m, e, "value", 5), depth + 1);
    /* {k: v.cpu() for k, v in sd.items()}, [t.numpy() for t in outs] */
    if (strcmp(type, "dictionary_comprehension") == 0 || strcmp(type, "list_comprehension") == 0)
        return host_value(m, oom_model_child(m, e, "body", 4), depth + 1);
    if (strcmp(type, "parenthesized_expression") == 0 || strcmp(type, "list") == 0 || strcmp(type, "tuple") == 0 ||
        strcmp(type, "dictionary") == 0 || strcmp(type, "expression_list") == 0) {
        oom_model_kids kids = oom_model_kids_of(m, e);
        for (TSNode k; oom_model_next_kid(m, &kids, &k);)
            if (!is_type(k, "comment") && !host_value(m, k, depth + 1))
                return false;
        return true;
    }
    return false;
}

/* The file `call` reads is written by this file's torch.save, every time
 * with host data. */
static bool saved_with_host_data(const oom_pymodel *m, TSNode call)
{
    TSNode path = argument(m, call, 0, "f");
    if (ts_node_is_null(path))
        return false;
    file_names names = {.budget = PATH_BUDGET};
    collect_file_names(m, path, &names, 0);
    size_t saves = 0;
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (c->name_len != 4 || memcmp(c->name, "save", 4) != 0 || !calls_one_of(m, c->node, torch_saves))
            continue;
        TSNode saved_path = argument(m, c->node, 1, "f");
        if (ts_node_is_null(saved_path) || !same_file(m, path, &names, saved_path))
            continue;
        oom_model_visit_begin(&((oom_pymodel *)m)->host_visit);
        oom_model_visit_begin(&((oom_pymodel *)m)->host_function_visit);
        if (!host_value(m, argument(m, c->node, 0, "obj"), 0))
            return false;
        saves++;
    }
    return saves > 0;
}

/* ---- what the loaded value feeds: state that holds no CUDA tensors -------------------------------- */

/* Whose state `X.load_state_dict(...)` restores, as far as the file says. */
typedef enum {
    OWNER_UNKNOWN,   /* anything else: its tensors are copied, as a model's are */
    OWNER_MODULE,    /* a module (torch.nn.*, AveragedModel), whatever its name */
    OWNER_OPTIMIZER, /* adopts the loaded tensors (cast to each parameter's device, a no-op there) */
    OWNER_NUMBERS,   /* an LR scheduler or a GradScaler: its state is Python numbers */
} state_owner;

/* `t` is `word`, or ends with `_word` (`lr_scheduler`, `grad_scaler`), or
 * with `prefix_ok` starts with `word_` (`optimizer_G`). */
static bool names_a(const char *t, uint32_t len, const char *word, bool prefix_ok)
{
    size_t w = strlen(word);
    if (len == w)
        return memcmp(t, word, w) == 0;
    if (len <= w)
        return false;
    return (t[len - w - 1] == '_' && memcmp(t + len - w, word, w) == 0) ||
           (prefix_ok && t[w] == '_' && memcmp(t, word, w) == 0);
}

/* The owner a constructor's dotted name makes. Numbers: torch.optim.lr_scheduler.*,
 * SWALR, transformers' get_*schedule* (get_linear_schedule_with_warmup,
 * get_scheduler), torch's GradScaler (torch.amp, torch.cuda.amp, FSDP's
 * ShardedGradScaler). A module: torch.nn.*, AveragedModel. An optimizer:
 * the rest of torch.optim, any *Optimizer (hvd.DistributedOptimizer,
 * ZeroRedundancyOptimizer), an optimizers module's class (bitsandbytes.optim,
 * apex.optimizers), transformers' AdamW and Adafactor. */
static state_owner owner_of_constructor(const char *q)
{
    const char *last = strrchr(q, '.');
    last = last ? last + 1 : q;
    if (oom_str_starts_with(q, "torch.optim.lr_scheduler.") || strcmp(last, "GradScaler") == 0 ||
        strcmp(last, "ShardedGradScaler") == 0 || (oom_str_starts_with(last, "get_") && strstr(last, "schedule")))
        return OWNER_NUMBERS;
    if (oom_str_starts_with(q, "torch.optim.swa_utils.AveragedModel") || oom_str_starts_with(q, "torch.nn."))
        return OWNER_MODULE;
    if (oom_str_starts_with(q, "torch.optim.swa_utils."))
        return OWNER_NUMBERS; /* SWALR */
    if (oom_str_starts_with(q, "torch.optim.") || oom_str_ends_with(last, "Optimizer") || strstr(q, ".optim.") ||
        strstr(q, ".optimizers.") || strcmp(q, "transformers.AdamW") == 0 || strcmp(q, "transformers.Adafactor") == 0)
        return OWNER_OPTIMIZER;
    return OWNER_UNKNOWN;
}

/* The receiver of `.load_state_dict`: a name bound to a constructor above
 * says what it is; otherwise its name does (`optimizer`, `self.optim`,
 * `d_optimizer`, `optimizer_G`; `scheduler`, `self.lr_scheduler`,
 * `warmup_scheduler`, `scaler`, `self.grad_scaler`). */
static state_owner owner_of(const oom_pymodel *m, TSNode receiver)
{
    if (ts_node_is_null(receiver))
        return OWNER_UNKNOWN;
    if (ts_node_symbol(receiver) == m->sym.identifier) {
        TSNode value = oom_model_bound_value(m, receiver);
        oom_buf q;
        oom_buf_init(&q);
        state_owner made = OWNER_UNKNOWN;
        if (!ts_node_is_null(value) && ts_node_symbol(value) == m->sym.call &&
            oom_pymodel_qualname(m, oom_model_child(m, value, "function", 8), &q))
            made = owner_of_constructor(q.data);
        oom_buf_free(&q);
        if (made != OWNER_UNKNOWN)
            return made;
    }
    uint32_t len;
    const char *name = oom_node_last_name(m, receiver, &len);
    if (!name)
        return OWNER_UNKNOWN;
    if (names_a(name, len, "scheduler", false) || names_a(name, len, "scaler", false))
        return OWNER_NUMBERS;
    if (names_a(name, len, "optimizer", true) || names_a(name, len, "optim", false))
        return OWNER_OPTIMIZER;
    return OWNER_UNKNOWN;
}

/* `call` is `X.load_state_dict(...)`: whose state it restores. */
static state_owner load_state_dict_owner(const oom_pymodel *m, TSNode call)
{
    TSNode fn = oom_model_child(m, call, "function", 8);
    if (ts_node_is_null(fn) || ts_node_symbol(fn) != m->sym.attribute ||
        !oom_node_text_is(m, oom_model_child(m, fn, "attribute", 9), "load_state_dict"))
        return OWNER_UNKNOWN;
    return owner_of(m, oom_model_child(m, fn, "object", 6));
}

bool oom_model_load_keeps_no_copy(const oom_pymodel *m, TSNode load_state_dict_call)
{
    state_owner owner = load_state_dict_owner(m, load_state_dict_call);
    return owner == OWNER_OPTIMIZER || owner == OWNER_NUMBERS;
}

/* Setters of a random generator's state: the states (`random.getstate()`,
 * `np.random.get_state()`, `torch.get_rng_state()`, and
 * `torch.cuda.get_rng_state_all()`'s list) are host values, CUDA's
 * included. */
static bool rng_setter(const oom_pymodel *m, TSNode call)
{
    static const char *const setters[] = {"random.setstate", "numpy.random.set_state", NULL};
    static const char *const methods[] = {"set_rng_state", "set_rng_state_all", NULL};
    TSNode fn = oom_model_child(m, call, "function", 8);
    uint32_t len;
    const char *last = oom_node_last_name(m, fn, &len);
    return calls_one_of(m, call, setters) || (last && oom_model_text_in(last, len, methods));
}

/* The call whose argument list holds `e` (through parentheses); null when none. */
static TSNode call_taking(const oom_pymodel *m, TSNode e)
{
    TSNode p = oom_model_parent(m, e);
    while (is_type(p, "parenthesized_expression"))
        p = oom_model_parent(m, p);
    if (!is_type(p, "argument_list"))
        return (TSNode){0};
    return oom_model_parent(m, p);
}

/* The whole loaded value goes into a scheduler's or scaler's
 * load_state_dict, or a random generator's state setter. */
static bool whole_value_fed(const oom_pymodel *m, TSNode e)
{
    TSNode call = call_taking(m, e);
    return !ts_node_is_null(call) && (rng_setter(m, call) || load_state_dict_owner(m, call) == OWNER_NUMBERS);
}

typedef struct {
    const oom_pymodel *m;
    TSNode target; /* the name the load is bound to */
    const char *name;
    uint32_t len;
    size_t reads;
    bool ok;
} feed_walk;

static bool same_name(const oom_pymodel *m, TSNode id, const char *name, uint32_t len)
{
    uint32_t n;
    const char *t = oom_node_text(m, id, &n);
    return n == len && memcmp(t, name, len) == 0;
}

/* An occurrence of the name that is not a read of it: an attribute's
 * field (`x.state`), a keyword's name (`f(state=...)`). */
static bool not_a_read(const oom_pymodel *m, TSNode id)
{
    TSNode p = oom_model_parent(m, id);
    return (ts_node_symbol(p) == m->sym.attribute && ts_node_eq(oom_model_child(m, p, "attribute", 9), id)) ||
           (ts_node_symbol(p) == m->sym.keyword_argument && ts_node_eq(oom_model_child(m, p, "name", 4), id));
}

/* One read of the loaded name: a test (`"cuda" in state`), the whole value
 * fed as above, or one entry (`state["cuda"]`) given to a random
 * generator's setter. A file whose every use restores generators is a file
 * of their states; a scheduler's entry of a bigger checkpoint is not
 * enough, the rest of the file may be weights. */
static bool read_feeds_host_state(const oom_pymodel *m, TSNode read)
{
    TSNode p = oom_model_parent(m, read);
    if (is_type(p, "comparison_operator"))
        return true;
    if (whole_value_fed(m, read))
        return true;
    TSNode e = read;
    for (int depth = 0; depth < 3 && is_type(p, "subscript") && ts_node_eq(oom_model_child(m, p, "value", 5), e);
         depth++, e = p, p = oom_model_parent(m, p))
        ;
    TSNode call = ts_node_eq(e, read) ? (TSNode){0} : call_taking(m, e);
    return !ts_node_is_null(call) && rng_setter(m, call);
}

static bool visit_feed(void *ctx, TSNode n)
{
    feed_walk *w = ctx;
    const oom_pymodel *m = w->m;
    TSSymbol s = ts_node_symbol(n);
    if (s == m->sym.global_statement || s == m->sym.nonlocal_statement) {
        uint32_t len;
        const char *t = oom_node_text(m, n, &len);
        w->ok = memmem(t, len, w->name, w->len) == NULL;
    } else if (s == m->sym.identifier && !ts_node_eq(n, w->target) && same_name(m, n, w->name, w->len) &&
               !not_a_read(m, n)) {
        w->ok = read_feeds_host_state(m, n); /* a second binding of the name, too, ends it */
        w->reads++;
    }
    return w->ok;
}

/* `state = torch.load(p)`, and every read of `state` in its function
 * feeds host state as above (at least one). */
static bool name_feeds_host_state(const oom_pymodel *m, TSNode assignment)
{
    TSNode target = oom_model_child(m, assignment, "left", 4);
    if (ts_node_is_null(target) || ts_node_symbol(target) != m->sym.identifier)
        return false;
    int scope = oom_model_scope_at(m, ts_node_start_byte(assignment));
    TSNode home = scope > 0 ? m->scopes[scope].def : m->root;
    feed_walk w = {m, target, NULL, 0, 0, true};
    w.name = oom_node_text(m, target, &w.len);
    oom_pymodel_walk(m, home, visit_feed, &w);
    return w.ok && w.reads > 0;
}

/* What the loaded value feeds says the file holds no CUDA tensors: an LR
 * scheduler's or a GradScaler's state (Python numbers), random generators'
 * states (host byte tensors). */
static bool feeds_host_state(const oom_pymodel *m, TSNode call)
{
    if (whole_value_fed(m, call))
        return true;
    TSNode p = oom_model_parent(m, call);
    return !ts_node_is_null(p) && ts_node_symbol(p) == m->sym.assignment &&
           ts_node_eq(oom_model_child(m, p, "right", 5), call) && name_feeds_host_state(m, p);
}

/* ---- the two together ------------------------------------------------------------------------------ */

bool oom_pymodel_loads_host_data(const oom_pymodel *m, TSNode call)
{
    return feeds_host_state(m, call) || saved_with_host_data(m, call);
}

/* ---- the branch for the per-process case ----------------------------------------------------------- */

/* `map_location=` a device, not the host: `"cuda:{}".format(gpu)`, `loc`;
 * not `"cpu"`, a `lambda storage, loc: storage`, None or a dict of remappings. */
static bool maps_to_a_device(const oom_pymodel *m, TSNode load)
{
    TSNode where = argument(m, load, 1, "map_location");
    if (ts_node_is_null(where) || is_type(where, "lambda") || is_type(where, "none") || is_type(where, "dictionary"))
        return false;
    uint32_t len;
    const char *t = oom_node_text(m, where, &len);
    return memmem(t, len, "cpu", 3) == NULL;
}

typedef struct {
    const oom_pymodel *m;
    TSNode path;
    bool found;
} mapped_walk;

static bool visit_mapped_load(void *ctx, TSNode n)
{
    mapped_walk *w = ctx;
    if (w->found)
        return false;
    if (ts_node_symbol(n) == w->m->sym.call && calls_one_of(w->m, n, torch_loads) && maps_to_a_device(w->m, n)) {
        TSNode path = argument(w->m, n, 0, "f");
        w->found = !ts_node_is_null(path) && same_text(w->m, path, w->path);
    }
    return !w->found;
}

/* The arm `arm` loads `path` with map_location= a device. */
static bool arm_maps(const oom_pymodel *m, TSNode arm, TSNode path)
{
    mapped_walk w = {m, path, false};
    oom_pymodel_walk(m, arm, visit_mapped_load, &w);
    return w.found;
}

/* Another arm of the `if` statement (or conditional expression) `choice`
 * than `mine` loads the same path with map_location= a device. */
static bool other_arm_maps(const oom_pymodel *m, TSNode choice, TSNode mine, TSNode path)
{
    bool conditional = ts_node_symbol(choice) == m->sym.conditional_expression;
    oom_model_kids kids = oom_model_kids_of(m, choice);
    for (TSNode arm; oom_model_next_kid(m, &kids, &arm);) {
        if (ts_node_eq(arm, mine))
            continue;
        if (conditional ? ts_node_eq(arm, oom_model_named_child(m, choice, 1)) /* the condition */
                        : !(is_type(arm, "block") || is_type(arm, "elif_clause") || is_type(arm, "else_clause")))
            continue;
        if (arm_maps(m, arm, path))
            return true;
    }
    return false;
}

bool oom_pymodel_mapped_in_other_branch(const oom_pymodel *m, TSNode call)
{
    TSNode path = argument(m, call, 0, "f");
    if (ts_node_is_null(path))
        return false;
    TSNode child = call;
    for (TSNode up = oom_model_parent(m, call); !ts_node_is_null(up); child = up, up = oom_model_parent(m, up)) {
        TSSymbol s = ts_node_symbol(up);
        if (s == m->sym.function_definition || s == m->sym.class_definition || s == m->sym.lambda)
            return false;
        bool arm = (s == m->sym.conditional_expression && !ts_node_eq(child, oom_model_named_child(m, up, 1))) ||
                   (s == m->sym.if_statement && !ts_node_eq(child, oom_model_child(m, up, "condition", 9)));
        if (arm && other_arm_maps(m, up, child, path))
            return true;
    }
    return false;
}

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

bool oom_pymodel_loads_host_data(const oom_pymodel *m, TSNode call)
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

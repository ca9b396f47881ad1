/* estimate/modules_classes: the classes and functions a name reaches: the
 * definitions of each file read (the script first, then each project file
 * its imports reach, imports.c), a name-string lookup's pick (registry.c),
 * and what a class is: an nn.Module (through its bases), a torch.nn layer
 * extended, its methods. Only reads definitions; never evaluates. */
#include <string.h>

#include "modules.h"

TSNode oom_mod_class_body_function(const ctx *c, TSNode cls, const char *name)
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

/* A module-level `Name = other_name` (or `= pkg.Name`) into the view's
 * aliases; a name bound twice at module level is no alias (which binding
 * the run keeps is the run's to decide). */
static void collect_alias(const ctx *c, view *v, TSNode statement)
{
    TSNode a = ts_node_named_child(statement, 0), right = field(a, "right");
    named_node d;
    if (!is(a, "assignment") || !name_of(c, field(a, "left"), d.name, sizeof d.name) ||
        !(is(right, "identifier") || is(right, "attribute")))
        return;
    for (size_t i = 0; i < v->naliases; i++)
        if (strcmp(v->aliases[i].name, d.name) == 0) {
            v->aliases[i].node = OOM_EST_NULL_NODE;
            return;
        }
    d.node = right;
    OOM_PUSH(v->aliases, v->naliases, v->aliases_cap, d);
}

void oom_mod_collect_definitions(const ctx *c, view *v)
{
    const oom_nodes *L = v->layout;
    for (uint32_t k = 0; L && k < L->len; k++) {
        TSNode n = L->items[k].node;
        uint32_t parent = L->items[k].parent;
        if (is(n, "expression_statement") && parent != UINT32_MAX && is(L->items[parent].node, "module"))
            collect_alias(c, v, n);
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

/* The view of a project file, made the first time one of its definitions
 * is reached. */
static void view_for(const ctx *c, oom_est_unit *u)
{
    oom_mod_view_for(c, u);
}

view *oom_mod_view_for(const ctx *c, oom_est_unit *u)
{
    for (size_t i = 0; i < c->views->len; i++)
        if (c->views->items[i]->unit == u)
            return c->views->items[i];
    view *v = oom_xcalloc(1, sizeof *v);
    v->unit = u;
    /* the file's module-level names and any options it declares, read as
     * the script's are (a constant a layer's size comes from) */
    v->own = *oom_est_unit_reader(u);
    memset(&v->own.settings, 0, sizeof v->own.settings);
    oom_est_settings_collect(&v->own);
    v->own.out = c->r->out; /* what a note about a node of this file records into */
    v->own.launch = NULL;
    v->own.via = NULL;
    v->r = &v->own;
    v->layout = oom_est_unit_layout(u);
    v->tree = v->r->root.tree;
    OOM_PUSH(c->views->items, c->views->len, c->views->cap, v);
    oom_mod_collect_definitions(c, v);
    return v;
}

/* What `e` (a name or a dotted name) refers to in another file of the
 * project through the imports of e's own file: a class or function
 * (`values` false), or the expression a module-level assignment binds it
 * to (`values` true). A name the running frame binds is not the import.
 * Null when none (a library, a file not in the project). */
static TSNode imported(const ctx *c, frame *f, TSNode e, bool values)
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
    bool found = !(f && oom_mod_lookup(f, head)) && oom_est_unit_imports(v->unit, head) &&
                 (values ? oom_est_project_resolve_value(c->project, v->unit, dotted, &d)
                         : oom_est_project_resolve(c->project, v->unit, dotted, &d));
    if (!found)
        return OOM_EST_NULL_NODE;
    view_for(c, d.unit);
    return d.def;
}

/* `Net` after `from models.net import Net`, `models.ResNet` after `import
 * models`: the class or function defined there. */
TSNode oom_mod_imported_definition(const ctx *c, frame *f, TSNode e)
{
    return imported(c, f, e, false);
}

/* `CONFIGS` after `from models.modeling import CONFIGS`, where `CONFIGS =
 * {...}`: the expression; null when it names a definition or nothing. */
TSNode oom_mod_imported_value(const ctx *c, frame *f, TSNode e)
{
    return imported(c, f, e, true);
}

/* The class `name_node` names: one its own file defines, else one an
 * import brings from the project. */
static TSNode script_class_at(const ctx *c, TSNode name_node, int depth)
{
    char name[64];
    if (is(name_node, "identifier") && text(c, name_node, name, sizeof name)) {
        view *v = view_of(c, name_node);
        const TSNode *found = oom_mod_lookup_named(v->classes, v->nclasses, name);
        if (found)
            return *found;
    }
    TSNode d = oom_mod_imported_definition(c, NULL, name_node);
    if (is(d, "class_definition"))
        return d;
    const TSNode *alias = is(name_node, "identifier") && depth < 4
                              ? oom_mod_lookup_named(view_of(c, name_node)->aliases, view_of(c, name_node)->naliases, name)
                              : NULL;
    return alias && !ts_node_is_null(*alias) ? script_class_at(c, *alias, depth + 1) : OOM_EST_NULL_NODE;
}

TSNode oom_mod_script_class(const ctx *c, TSNode name_node)
{
    return script_class_at(c, name_node, 0);
}

/* The function `fn` names in its own file (module level) or through an import. */
TSNode oom_mod_function_named(const ctx *c, TSNode fn)
{
    char name[64];
    if (is(fn, "identifier") && text(c, fn, name, sizeof name)) {
        view *v = view_of(c, fn);
        const TSNode *found = oom_mod_lookup_named(v->functions, v->nfunctions, name);
        if (found)
            return *found;
    }
    TSNode d = oom_mod_imported_definition(c, NULL, fn);
    return is(d, "function_definition") ? d : OOM_EST_NULL_NODE;
}

/* The class or function a name-string lookup picks (registry.c): a dict's
 * entry read as any name of its file is, else the dotted name followed
 * through the imports of the lookup's file. */
TSNode oom_mod_picked_known(const ctx *c, TSNode fn, const oom_est_pick *pk)
{
    TSNode d = ts_node_is_null(pk->entry) ? OOM_EST_NULL_NODE : oom_mod_script_class(c, pk->entry);
    if (!ts_node_is_null(pk->entry))
        return ts_node_is_null(d) ? oom_mod_function_named(c, pk->entry) : d;
    oom_est_def def;
    if (!c->project || !oom_est_project_resolve(c->project, view_of(c, fn)->unit, pk->dotted, &def))
        return OOM_EST_NULL_NODE;
    view_for(c, def.unit);
    return def.def;
}

TSNode oom_mod_picked(const ctx *c, TSNode fn, oom_est_pick *pk)
{
    return ts_node_is_null(fn) || !oom_est_pick_of(reader_of(c, fn), fn, pk) || !pk->known
               ? OOM_EST_NULL_NODE
               : oom_mod_picked_known(c, fn, pk);
}

/* `torch.nn.Linear` ...: the last name of a torch.nn class (not Module);
 * NULL otherwise. */
const char *oom_mod_torch_layer_name(const char *q)
{
    if (!oom_str_starts_with(q, "torch.nn.") || strchr(q + 9, '.') || q[9] < 'A' || q[9] > 'Z' ||
        strcmp(q, "torch.nn.Module") == 0)
        return NULL;
    return q + 9;
}

/* The torch.nn layer a class of the script extends (`class NoisyLinear(nn.Linear)`),
 * into buf; false when none. */
bool oom_mod_torch_layer_base(const ctx *c, TSNode cls, char *buf, size_t size)
{
    TSNode bases[16];
    size_t n = oom_mod_kids(c, field(cls, "superclasses"), bases, 16);
    for (size_t i = 0; i < n; i++) {
        oom_buf q;
        oom_buf_init(&q);
        const char *name =
            oom_pymodel_qualname(reader_of(c, bases[i])->m, bases[i], &q) ? oom_mod_torch_layer_name(q.data) : NULL;
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
bool oom_mod_is_module_class(const ctx *c, TSNode cls, int depth)
{
    TSNode bases[16];
    size_t n = oom_mod_kids(c, field(cls, "superclasses"), bases, 16);
    for (size_t i = 0; i < n && depth < 8; i++) {
        oom_buf q;
        oom_buf_init(&q);
        bool yes = oom_pymodel_qualname(reader_of(c, bases[i])->m, bases[i], &q) &&
                   (oom_str_ends_with(q.data, "nn.Module") || oom_str_ends_with(q.data, "LightningModule") ||
                    oom_mod_torch_layer_name(q.data));
        oom_buf_free(&q);
        TSNode base = oom_mod_script_class(c, bases[i]);
        if (yes || (!ts_node_is_null(base) && !ts_node_eq(base, cls) && oom_mod_is_module_class(c, base, depth + 1)))
            return true;
    }
    return false;
}

/* The first base of a class that is a class of the script. */
TSNode oom_mod_script_base(const ctx *c, TSNode cls)
{
    TSNode bases[16];
    size_t n = oom_mod_kids(c, field(cls, "superclasses"), bases, 16);
    for (size_t i = 0; i < n; i++) {
        TSNode base = oom_mod_script_class(c, bases[i]);
        if (!ts_node_is_null(base) && !ts_node_eq(base, cls))
            return base;
    }
    return OOM_EST_NULL_NODE;
}

/* self.method(...) while building: the class's (or a base's) method, and
 * the class that defines it (what super() inside it starts from). */
TSNode oom_mod_find_method_in(const ctx *c, TSNode cls, const char *name, TSNode *owner)
{
    for (int depth = 0; depth < 8 && !ts_node_is_null(cls); depth++) {
        TSNode def = oom_mod_class_body_function(c, cls, name);
        if (!ts_node_is_null(def)) {
            if (owner)
                *owner = cls;
            return def;
        }
        cls = oom_mod_script_base(c, cls);
    }
    return OOM_EST_NULL_NODE;
}

TSNode oom_mod_find_method(const ctx *c, TSNode cls, const char *name)
{
    return oom_mod_find_method_in(c, cls, name, NULL);
}

/* estimate/imports: the project's own files, reached through the script's
 * imports. A training script usually builds a model whose class lives in
 * another file of its project (`from models.net import Net`, `import model;
 * model.NCF(...)`, `from .factory import build_model`, a package's
 * __init__ re-exporting a class). This file finds that definition the way
 * Python would: it reads the import statements (absolute, relative, star,
 * aliased), looks a module up under the folders Python would search for this
 * script (the script's folder, the folders above it up to the project root,
 * the folder the command runs in, a `src/` layout), and follows a name a
 * package re-exports until it reaches a class or function definition.
 *
 * It only parses and resolves: what a class builds is counted by modules.c,
 * which asks here and never the other way round. Every file is read once,
 * bounded in size and number; a cycle of imports ends at a depth bound. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "oomlint/nodes.h"
#include "oomlint/util.h"

/* A models file larger than this is not read for its definitions: real
 * ones are kilobytes, and a generated or vendored giant is not the model. */
#define MAX_UNIT_BYTES ((off_t)1024 * 1024)
/* files read for one estimate, beyond the script */
#define MAX_UNITS 64
/* hops through re-exports, aliases and star imports (and import cycles) */
#define MAX_HOPS 16
/* folders above the script searched when no .git marks the root */
#define MAX_PARENTS 4
#define MAX_MEMO 512

typedef struct {
    char bound[64];   /* the name the import binds in the file */
    char module[256]; /* as written: "models.net", ".model", ".." */
    char member[64];  /* `from M import member`; "" for `import M` */
    bool star;        /* `from M import *` */
    bool module_level; /* outside every function and class */
} import_entry;

struct oom_est_unit {
    char *path; /* as opened, relative to where the command runs: for provenance */
    char *real; /* the cache key */
    bool borrowed; /* the script: its source, model and reader are the caller's */
    oom_source src;
    TSParser *parser;
    TSTree *tree;
    oom_pymodel *m;
    oom_est_reader own_reader;
    oom_est_reader *reader;
    const oom_nodes *layout;
    import_entry *imports;
    size_t nimports, imports_cap;
};

/* A module as Python finds it: a file (`x.py`, `x/__init__.py`) or a folder
 * without __init__.py (a namespace package), which has submodules only. */
typedef struct {
    char path[PATH_MAX];
    bool folder;
} modref;

typedef struct {
    const oom_est_unit *from;
    char dotted[160];
    bool values; /* looked up with module-level values (oom_est_project_resolve_value) */
    bool ok;
    oom_est_def def;
} memo_entry;

struct oom_est_project {
    oom_est_unit **units;
    size_t nunits, units_cap;
    char **bases; /* where an absolute import is looked up, in order */
    size_t nbases, bases_cap;
    memo_entry *memo;
    size_t nmemo, memo_cap;
    const oom_kb *kb;
    int hops;
    bool values; /* a name bound to a value (`CONFIGS = {...}`) resolves to that value */
};

/* ---- paths ------------------------------------------------------------------ */

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The folder of `path` ("." for a bare name), into out. */
static void folder_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        oom_est_copy(out, size, ".");
    else if (slash == path)
        oom_est_copy(out, size, "/");
    else
        snprintf(out, size, "%.*s", (int)(slash - path), path);
}

/* "a/./b/../c" -> "a/c", lexically; a leading ".." that climbs above a
 * relative start is kept. Paths stay relative so that provenance reads as
 * the user would write it. */
static void normalize(char *path)
{
    bool absolute = path[0] == '/';
    char *parts[256];
    size_t n = 0;
    char copy[PATH_MAX];
    oom_est_copy(copy, sizeof copy, path);
    for (char *save = NULL, *t = strtok_r(copy, "/", &save); t && n < 256; t = strtok_r(NULL, "/", &save)) {
        if (strcmp(t, ".") == 0)
            continue;
        if (strcmp(t, "..") == 0 && n > 0 && strcmp(parts[n - 1], "..") != 0) {
            n--;
            continue;
        }
        if (strcmp(t, "..") == 0 && absolute)
            continue;
        parts[n++] = t;
    }
    size_t used = 0;
    char out[PATH_MAX];
    out[0] = '\0';
    if (absolute)
        out[used++] = '/', out[used] = '\0';
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(out + used, used < sizeof out ? sizeof out - used : 0, "%s%s", i ? "/" : "",
                                 parts[i]);
    if (used >= sizeof out)
        return; /* too long to rewrite: leave it as it was */
    if (out[0] == '\0')
        oom_est_copy(out, sizeof out, ".");
    memcpy(path, out, strlen(out) + 1);
}

/* dir/rest into out (which may be dir itself), normalized. */
static bool join(char *out, size_t size, const char *dir, const char *rest)
{
    char tmp[PATH_MAX];
    int n = strcmp(dir, ".") == 0 ? snprintf(tmp, sizeof tmp, "%s", rest) : snprintf(tmp, sizeof tmp, "%s/%s", dir, rest);
    if (n < 0 || (size_t)n >= sizeof tmp || (size_t)n >= size)
        return false;
    normalize(tmp);
    memcpy(out, tmp, strlen(tmp) + 1);
    return true;
}

static void add_base(oom_est_project *p, const char *dir)
{
    char real[PATH_MAX], other[PATH_MAX];
    if (!is_dir(dir) || !realpath(dir, real))
        return;
    for (size_t i = 0; i < p->nbases; i++)
        if (realpath(p->bases[i], other) && strcmp(other, real) == 0)
            return;
    char *copy = oom_xstrdup(dir);
    OOM_PUSH(p->bases, p->nbases, p->bases_cap, copy);
}

/* Whether `dir` declares the project: a git checkout's top, or the folder
 * of the setup.py / pyproject.toml that installs its packages (a project
 * run from a subfolder imports its package from there once installed). */
static bool marks_root(const char *dir, bool git_only)
{
    static const char *const declares[] = {"setup.py", "pyproject.toml", "setup.cfg", NULL};
    char p[PATH_MAX];
    if (join(p, sizeof p, dir, ".git") && (is_dir(p) || is_file(p)))
        return true;
    for (int i = 0; declares[i] && !git_only; i++)
        if (join(p, sizeof p, dir, declares[i]) && is_file(p))
            return true;
    return false;
}

/* The folders an absolute import is looked up in, as sys.path would hold
 * them for this run: the script's folder (sys.path[0]), the folder the
 * command runs in (`python -m`), then the folders above the script up to
 * the project root (the nearest with .git; without one, the nearest that
 * declares a package; else none above), and a `src/` layout's folder under
 * each. */
static void find_bases(oom_est_project *p, const char *script, const char *launch_dir)
{
    char dir[PATH_MAX], up[PATH_MAX], src[PATH_MAX];
    folder_of(script, dir, sizeof dir);
    add_base(p, dir);
    if (launch_dir)
        add_base(p, launch_dir);
    add_base(p, ".");
    /* the root: .git first, anywhere above; then a package declaration */
    int root_at = -1;
    oom_est_copy(up, sizeof up, dir);
    for (int level = 0; level <= MAX_PARENTS && root_at < 0; level++) {
        if (marks_root(up, true))
            root_at = level;
        if (!join(up, sizeof up, up, ".."))
            break;
    }
    oom_est_copy(up, sizeof up, dir);
    for (int level = 0; level <= MAX_PARENTS && root_at < 0; level++) {
        if (marks_root(up, false))
            root_at = level;
        if (!join(up, sizeof up, up, ".."))
            break;
    }
    oom_est_copy(up, sizeof up, dir);
    for (int level = 0; level <= (root_at >= 0 ? root_at : 0); level++) {
        add_base(p, up);
        if (join(src, sizeof src, up, "src"))
            add_base(p, src);
        if (!join(up, sizeof up, up, ".."))
            break;
    }
    if (join(src, sizeof src, ".", "src"))
        add_base(p, src);
}

/* ---- reading a file's imports --------------------------------------------- */

/* The source text of `n` into buf; false when it does not fit. Read here
 * rather than through the readers' helpers, so that this file calls
 * nothing of the estimate's own (modules.c calls it, never the reverse). */
static bool node_text(const oom_est_unit *u, TSNode n, char *buf, size_t size)
{
    if (ts_node_is_null(n))
        return false;
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    if (b < a || b > u->reader->src->len || (size_t)(b - a) >= size)
        return false;
    memcpy(buf, u->reader->src->text + a, b - a);
    buf[b - a] = '\0';
    return true;
}

static bool inside_definition(const oom_nodes *L, uint32_t k)
{
    for (uint32_t up = L->items[k].parent; up != UINT32_MAX; up = L->items[up].parent) {
        const char *t = ts_node_type(L->items[up].node);
        if (strcmp(t, "function_definition") == 0 || strcmp(t, "class_definition") == 0)
            return true;
    }
    return false;
}

static void add_import(oom_est_unit *u, const char *bound, const char *module, const char *member, bool star,
                       bool module_level)
{
    import_entry e;
    memset(&e, 0, sizeof e);
    oom_est_copy(e.bound, sizeof e.bound, bound);
    oom_est_copy(e.module, sizeof e.module, module);
    oom_est_copy(e.member, sizeof e.member, member);
    e.star = star;
    e.module_level = module_level;
    OOM_PUSH(u->imports, u->nimports, u->imports_cap, e);
}

/* `import a.b` binds a (to module a); `import a.b as c` binds c to a.b. */
static void read_import(oom_est_unit *u, TSNode s, bool top)
{
    uint32_t n = ts_node_named_child_count(s);
    for (uint32_t i = 0; i < n; i++) {
        TSNode k = ts_node_named_child(s, i);
        char name[256], alias[64];
        if (oom_est_type_is(k, "aliased_import")) {
            if (node_text(u, oom_est_child(k, "name"), name, sizeof name) &&
                node_text(u, oom_est_child(k, "alias"), alias, sizeof alias))
                add_import(u, alias, name, "", false, top);
        } else if (oom_est_type_is(k, "dotted_name") && node_text(u, k, name, sizeof name)) {
            char first[64];
            snprintf(first, sizeof first, "%.*s", (int)strcspn(name, "."), name);
            add_import(u, first, first, "", false, top);
        }
    }
}

/* `from M import x as y, z` and `from M import *`, M absolute or relative. */
static void read_import_from(oom_est_unit *u, TSNode s, bool top)
{
    TSNode module = oom_est_child(s, "module_name");
    char mod[256];
    if (!node_text(u, module, mod, sizeof mod))
        return;
    size_t w = 0; /* `from . models import x` may be spaced */
    for (size_t i = 0; mod[i]; i++)
        if (mod[i] != ' ' && mod[i] != '\t' && mod[i] != '\\' && mod[i] != '\n')
            mod[w++] = mod[i];
    mod[w] = '\0';
    uint32_t n = ts_node_named_child_count(s);
    for (uint32_t i = 0; i < n; i++) {
        TSNode k = ts_node_named_child(s, i);
        if (ts_node_eq(k, module))
            continue;
        char name[64], alias[64];
        if (oom_est_type_is(k, "wildcard_import")) {
            add_import(u, "*", mod, "", true, top);
        } else if (oom_est_type_is(k, "aliased_import")) {
            if (node_text(u, oom_est_child(k, "name"), name, sizeof name) &&
                node_text(u, oom_est_child(k, "alias"), alias, sizeof alias))
                add_import(u, alias, mod, name, false, top);
        } else if (oom_est_type_is(k, "dotted_name") && node_text(u, k, name, sizeof name)) {
            add_import(u, name, mod, name, false, top);
        }
    }
}

static void read_imports(oom_est_unit *u)
{
    const oom_nodes *L = u->layout;
    for (uint32_t k = 0; L && k < L->len; k++) {
        TSNode s = L->items[k].node;
        bool plain = oom_est_type_is(s, "import_statement"), from = oom_est_type_is(s, "import_from_statement");
        if (!plain && !from)
            continue;
        bool top = !inside_definition(L, k);
        if (plain)
            read_import(u, s, top);
        else
            read_import_from(u, s, top);
    }
}

/* ---- the files read ---------------------------------------------------------- */

static void unit_free(oom_est_unit *u)
{
    if (!u->borrowed) {
        oom_pymodel_free(u->m);
        if (u->tree)
            ts_tree_delete(u->tree);
        if (u->parser)
            ts_parser_delete(u->parser);
        oom_source_free(&u->src);
    }
    free(u->imports);
    free(u->path);
    free(u->real);
    free(u);
}

static oom_est_unit *unit_at(oom_est_project *p, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return NULL;
    for (size_t i = 0; i < p->nunits; i++)
        if (p->units[i]->real && strcmp(p->units[i]->real, real) == 0)
            return p->units[i];
    struct stat st;
    if (p->nunits >= MAX_UNITS + 1 || stat(real, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_UNIT_BYTES)
        return NULL;
    oom_est_unit *u = oom_xcalloc(1, sizeof *u);
    char why[128];
    if (oom_source_read(path, path, &u->src, why, sizeof why) != OOM_SOURCE_OK) {
        oom_source_free(&u->src);
        free(u);
        return NULL;
    }
    u->path = oom_xstrdup(path);
    u->real = oom_xstrdup(real);
    u->parser = ts_parser_new();
    u->tree = oom_parse_python(u->parser, u->src.text, u->src.len);
    if (!u->tree) {
        unit_free(u);
        return NULL;
    }
    u->m = oom_pymodel_build(u->tree, u->src.text, u->src.len);
    u->layout = oom_pymodel_layout(u->m);
    oom_est_reader *r = &u->own_reader;
    r->path = u->path, r->src = &u->src, r->m = u->m, r->kb = p->kb, r->root = ts_tree_root_node(u->tree);
    u->reader = r;
    read_imports(u);
    OOM_PUSH(p->units, p->nunits, p->units_cap, u);
    return u;
}

oom_est_project *oom_est_project_open(oom_est_reader *script, const oom_nodes *layout)
{
    oom_est_project *p = oom_xcalloc(1, sizeof *p);
    p->kb = script->kb;
    oom_est_unit *u = oom_xcalloc(1, sizeof *u);
    u->borrowed = true;
    u->path = oom_xstrdup(script->path ? script->path : "");
    char real[PATH_MAX];
    u->real = script->path && realpath(script->path, real) ? oom_xstrdup(real) : NULL;
    u->reader = script;
    u->m = script->m;
    u->layout = layout;
    read_imports(u);
    OOM_PUSH(p->units, p->nunits, p->units_cap, u);
    find_bases(p, u->path[0] ? u->path : "./script.py", script->launch ? script->launch->dir : NULL);
    return p;
}

void oom_est_project_close(oom_est_project *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nunits; i++)
        unit_free(p->units[i]);
    for (size_t i = 0; i < p->nbases; i++)
        free(p->bases[i]);
    free(p->units);
    free(p->bases);
    free(p->memo);
    free(p);
}

oom_est_unit *oom_est_project_file(oom_est_project *p, const char *path)
{
    return unit_at(p, path);
}

oom_est_unit *oom_est_project_script(oom_est_project *p)
{
    return p->units[0];
}

oom_est_reader *oom_est_unit_reader(oom_est_unit *u)
{
    return u->reader;
}

const oom_nodes *oom_est_unit_layout(const oom_est_unit *u)
{
    return u->layout;
}

const char *oom_est_unit_path(const oom_est_unit *u)
{
    return u->path;
}

bool oom_est_unit_imports(const oom_est_unit *u, const char *name)
{
    for (size_t i = 0; i < u->nimports; i++)
        if (!u->imports[i].star && strcmp(u->imports[i].bound, name) == 0)
            return true;
    /* a star import may bind any name: only the lookup can tell */
    for (size_t i = 0; i < u->nimports; i++)
        if (u->imports[i].star)
            return true;
    return false;
}

/* ---- finding modules ---------------------------------------------------------- */

/* `a.b` under `base`: a/b.py, a/b/__init__.py, or (folders) a/b/. */
static bool module_under(const char *base, const char *dotted, bool folders, modref *out)
{
    char rel[PATH_MAX], cand[PATH_MAX];
    size_t n = 0;
    for (const char *c = dotted; *c && n + 1 < sizeof rel; c++)
        rel[n++] = *c == '.' ? '/' : *c;
    rel[n] = '\0';
    if (!join(cand, sizeof cand, base, rel))
        return false;
    char file[PATH_MAX];
    if (!folders) { /* a package before a module of the same name, as Python's finder looks */
        if (join(file, sizeof file, cand, "__init__.py") && is_file(file)) {
            oom_est_copy(out->path, sizeof out->path, file);
            out->folder = false;
            return true;
        }
        snprintf(file, sizeof file, "%s.py", cand);
        if (is_file(file)) {
            oom_est_copy(out->path, sizeof out->path, file);
            out->folder = false;
            return true;
        }
        return false;
    }
    if (!is_dir(cand))
        return false;
    oom_est_copy(out->path, sizeof out->path, cand);
    out->folder = true;
    return true;
}

/* The folder holding a package's submodules; false for a plain module. */
static bool package_folder(const modref *m, char *out, size_t size)
{
    if (m->folder) {
        oom_est_copy(out, size, m->path);
        return true;
    }
    size_t n = strlen(m->path);
    if (n < 11 || strcmp(m->path + n - 11, "__init__.py") != 0 || (n > 11 && m->path[n - 12] != '/'))
        return false;
    folder_of(m->path, out, size);
    return true;
}

/* The module an import in `u` names: relative to u's package for leading
 * dots; otherwise under the project's search folders (then u's own, as
 * Python 2's implicit relative imports had it), regular modules before
 * namespace folders, as Python prefers them. */
static bool find_module(const oom_est_project *p, const oom_est_unit *u, const char *spec, modref *out)
{
    if (spec[0] == '.') {
        char dir[PATH_MAX];
        folder_of(u->path, dir, sizeof dir);
        size_t dots = strspn(spec, ".");
        for (size_t i = 1; i < dots; i++)
            if (!join(dir, sizeof dir, dir, ".."))
                return false;
        const char *rest = spec + dots;
        if (!*rest) { /* the package itself */
            char init[PATH_MAX];
            if (join(init, sizeof init, dir, "__init__.py") && is_file(init)) {
                oom_est_copy(out->path, sizeof out->path, init);
                out->folder = false;
            } else {
                oom_est_copy(out->path, sizeof out->path, dir);
                out->folder = true;
            }
            return true;
        }
        return module_under(dir, rest, false, out) || module_under(dir, rest, true, out);
    }
    char own[PATH_MAX];
    folder_of(u->path, own, sizeof own);
    for (int folders = 0; folders < 2; folders++) {
        for (size_t i = 0; i < p->nbases; i++)
            if (module_under(p->bases[i], spec, folders, out))
                return true;
        if (module_under(own, spec, folders, out))
            return true;
    }
    return false;
}

/* ---- following names ---------------------------------------------------------- */

typedef struct {
    bool is_module;
    modref module;
    oom_est_def def;
} target;

static bool walk(oom_est_project *p, const modref *m, char *const *parts, size_t n, target *out);

/* The module-level class or function `name` of u (the last one: a later
 * definition rebinds the name); with `values`, also the expression a
 * module-level assignment binds it to (`CONFIGS = {...}`). */
static bool defined_in(const oom_est_unit *u, const char *name, bool values, TSNode *out, TSNode *alias)
{
    const oom_nodes *L = u->layout;
    bool found = false;
    *alias = OOM_EST_NULL_NODE;
    if (!L || L->len == 0)
        return false;
    for (uint32_t k = 1; k < L->len; k = L->items[k].end) {
        TSNode s = L->items[k].node;
        TSNode d = oom_est_type_is(s, "decorated_definition") ? oom_est_child(s, "definition") : s;
        char nm[64];
        if ((oom_est_type_is(d, "class_definition") || oom_est_type_is(d, "function_definition")) &&
            node_text(u, oom_est_child(d, "name"), nm, sizeof nm) && strcmp(nm, name) == 0) {
            *out = d;
            *alias = OOM_EST_NULL_NODE;
            found = true;
        }
        /* `Net = ResNet` or `resnet = models.resnet`: another name for it */
        TSNode a = oom_est_type_is(s, "expression_statement") ? ts_node_named_child(s, 0) : OOM_EST_NULL_NODE;
        TSNode right = oom_est_child(a, "right");
        if (oom_est_type_is(a, "assignment") && node_text(u, oom_est_child(a, "left"), nm, sizeof nm) &&
            strcmp(nm, name) == 0 && (oom_est_type_is(right, "identifier") || oom_est_type_is(right, "attribute"))) {
            *alias = right;
            found = false;
        } else if (values && oom_est_type_is(a, "assignment") && !ts_node_is_null(right) &&
                   node_text(u, oom_est_child(a, "left"), nm, sizeof nm) && strcmp(nm, name) == 0) {
            *out = right;
            *alias = OOM_EST_NULL_NODE;
            found = true;
        }
    }
    return found;
}

/* Splits "a.b.c" in place; the number of parts. */
static size_t split(char *dotted, char **parts, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(dotted, ".", &save); t && n < max; t = strtok_r(NULL, ".", &save))
        parts[n++] = t;
    return n;
}

/* What `name` is in file u: its definition, an import (a module or a name
 * another file defines), another name it is assigned from, or a name a
 * star import brings. */
static bool name_in(oom_est_project *p, oom_est_unit *u, const char *name, bool own_defs, target *out)
{
    if (p->hops >= MAX_HOPS)
        return false;
    p->hops++;
    bool ok = false;
    TSNode def, alias;
    if (own_defs && defined_in(u, name, p->values, &def, &alias)) {
        out->is_module = false;
        out->def.unit = u;
        out->def.def = def;
        ok = true;
    } else if (own_defs && !ts_node_is_null(alias)) {
        char dotted[160], *parts[16];
        size_t n = node_text(u, alias, dotted, sizeof dotted) ? split(dotted, parts, 16) : 0;
        target head;
        if (n > 0 && strcmp(parts[0], name) != 0 && name_in(p, u, parts[0], true, &head))
            ok = n == 1 ? (*out = head, true) : head.is_module && walk(p, &head.module, parts + 1, n - 1, out);
    }
    /* module-level imports before those inside functions */
    for (int pass = 0; pass < 2 && !ok; pass++)
        for (size_t i = 0; i < u->nimports && !ok; i++) {
            const import_entry *e = &u->imports[i];
            if (e->star || e->module_level != (pass == 0) || strcmp(e->bound, name) != 0)
                continue;
            modref m;
            if (!find_module(p, u, e->module, &m))
                continue;
            if (!e->member[0]) {
                out->is_module = true;
                out->module = m;
                ok = true;
            } else {
                char member[64], *parts[1];
                oom_est_copy(member, sizeof member, e->member);
                parts[0] = member;
                ok = walk(p, &m, parts, 1, out);
            }
        }
    for (size_t i = 0; i < u->nimports && !ok; i++) {
        const import_entry *e = &u->imports[i];
        modref m;
        oom_est_unit *from = NULL;
        if (e->star && find_module(p, u, e->module, &m) && !m.folder && (from = unit_at(p, m.path)) && from != u)
            ok = name_in(p, from, name, true, out);
    }
    p->hops--;
    return ok;
}

/* parts[0..n) looked up from module m: a name its file binds (a
 * definition, a re-export), else a submodule of its package. */
static bool walk(oom_est_project *p, const modref *m, char *const *parts, size_t n, target *out)
{
    if (n == 0) {
        out->is_module = true;
        out->module = *m;
        return true;
    }
    if (p->hops >= MAX_HOPS)
        return false;
    p->hops++;
    bool ok = false;
    oom_est_unit *u = m->folder ? NULL : unit_at(p, m->path);
    target t;
    if (u && name_in(p, u, parts[0], true, &t)) {
        if (!t.is_module)
            ok = n == 1 && (*out = t, true); /* an attribute of a class is not followed */
        else
            ok = walk(p, &t.module, parts + 1, n - 1, out);
    }
    char pkg[PATH_MAX];
    modref sub;
    if (!ok && package_folder(m, pkg, sizeof pkg) &&
        (module_under(pkg, parts[0], false, &sub) || module_under(pkg, parts[0], true, &sub)))
        ok = walk(p, &sub, parts + 1, n - 1, out);
    p->hops--;
    return ok;
}

bool oom_est_project_resolve(oom_est_project *p, oom_est_unit *from, const char *dotted, oom_est_def *out)
{
    for (size_t i = 0; i < p->nmemo; i++)
        if (p->memo[i].from == from && p->memo[i].values == p->values && strcmp(p->memo[i].dotted, dotted) == 0) {
            *out = p->memo[i].def;
            return p->memo[i].ok;
        }
    char copy[160], *parts[16];
    oom_est_copy(copy, sizeof copy, dotted);
    size_t n = split(copy, parts, 16);
    target head, t;
    p->hops = 0;
    /* the file's own definitions are the caller's to look up (a local class
     * is read in place); only what an import brings is resolved here */
    bool ok = n > 0 && name_in(p, from, parts[0], false, &head) &&
              (n == 1 ? (t = head, true) : head.is_module && walk(p, &head.module, parts + 1, n - 1, &t)) &&
              !t.is_module;
    memset(out, 0, sizeof *out);
    if (ok)
        *out = t.def;
    if (p->nmemo < MAX_MEMO) {
        memo_entry e;
        memset(&e, 0, sizeof e);
        e.from = from;
        e.values = p->values;
        oom_est_copy(e.dotted, sizeof e.dotted, dotted);
        e.ok = ok;
        e.def = *out;
        OOM_PUSH(p->memo, p->nmemo, p->memo_cap, e);
    }
    return ok;
}

bool oom_est_project_resolve_value(oom_est_project *p, oom_est_unit *from, const char *dotted, oom_est_def *out)
{
    p->values = true;
    bool ok = oom_est_project_resolve(p, from, dotted, out);
    p->values = false;
    return ok && !oom_est_type_is(out->def, "class_definition") && !oom_est_type_is(out->def, "function_definition");
}

bool oom_est_project_module(oom_est_project *p, oom_est_unit *from, const char *dotted)
{
    char copy[160], *parts[16];
    oom_est_copy(copy, sizeof copy, dotted);
    size_t n = split(copy, parts, 16);
    target head, t;
    p->hops = 0;
    return n > 0 && name_in(p, from, parts[0], false, &head) && head.is_module &&
           (n == 1 || (walk(p, &head.module, parts + 1, n - 1, &t) && t.is_module));
}

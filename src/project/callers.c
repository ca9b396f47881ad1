/* project/callers: joins the files' call facts. A finding that holds only
 * while its function runs with autograd on (an evaluation forward, a graph
 * kept across steps) is dropped when every call of that function in the
 * project stands where autograd is off: `predict_values` defined in
 * policies.py and only called under `th.no_grad()` in on_policy_algorithm.py.
 * Likewise a finding that took an imported class's instance for a forward
 * with grad is dropped when the class's file runs that forward without
 * grad (DINOv2's ModelWithIntermediateLayers in eval/utils.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/facts.h"
#include "oomlint/project.h"

static size_t add_name(oom_file_facts *f, const char *name, size_t len);

void oom_file_facts_add_call(oom_file_facts *f, const char *name, size_t len, const oom_call_shape *shape)
{
    oom_call_fact c = {add_name(f, name, len), shape->grad_off, shape->false_positions, 0,
                       shape->module_positions, 0, (signed char)shape->callee, 0, 0, 0, 0, false};
    c.false_keywords = add_name(f, shape->false_keywords, strlen(shape->false_keywords));
    const char *mk = shape->module_keywords ? shape->module_keywords : "";
    c.module_keywords = add_name(f, mk, strlen(mk));
    c.callee_module = add_name(f, shape->callee_module, strlen(shape->callee_module));
    const char *caller = shape->caller ? shape->caller : "";
    c.caller = add_name(f, caller, strlen(caller));
    const char *keywords = shape->keywords ? shape->keywords : "";
    c.keywords = add_name(f, keywords, strlen(keywords));
    c.positional = shape->positional;
    c.splat = shape->splat;
    OOM_PUSH(f->calls, f->call_count, f->call_cap, c);
}

static size_t add_name(oom_file_facts *f, const char *name, size_t len)
{
    size_t at = f->names.len;
    oom_buf_append(&f->names, name, len);
    oom_buf_putc(&f->names, '\0');
    return at;
}

void oom_file_facts_take_calls(oom_file_facts *f, const oom_pymodel *m)
{
    oom_buf false_keywords, module, module_keywords, caller, passed;
    oom_buf_init(&caller);
    oom_buf_init(&passed);
    oom_buf_init(&false_keywords);
    oom_buf_init(&module);
    oom_buf_init(&module_keywords);
    for (size_t i = 0; i < oom_pymodel_call_count(m); i++) {
        uint32_t len;
        oom_call_shape shape = {false, 0, "", OOM_CALLEE_UNRESOLVED, "", 0, "", "", "", 0, false};
        const char *name = oom_pymodel_call_at(m, i, &len, &shape.grad_off);
        if (!shape.grad_off) {
            uint32_t clen;
            const char *in = oom_pymodel_call_caller(m, i, &clen);
            oom_buf_clear(&caller);
            oom_buf_append(&caller, in ? in : "", in ? clen : 0);
            shape.caller = caller.data ? caller.data : "";
        }
        oom_buf_clear(&false_keywords);
        if (!shape.grad_off) { /* only a call with autograd on can run a forward that keeps graphs */
            oom_pymodel_call_false_args(m, i, &shape.false_positions, &false_keywords);
            shape.false_keywords = false_keywords.data ? false_keywords.data : "";
        }
        /* a model given to another file's function binds its parameter there */
        oom_pymodel_call_module_args(m, i, &shape.module_positions, &module_keywords);
        shape.module_keywords = module_keywords.data ? module_keywords.data : "";
        oom_buf_clear(&passed);
        oom_pymodel_call_passed_args(m, i, &shape.positional, &shape.splat, &passed);
        shape.keywords = passed.data ? passed.data : "";
        /* the only calls the module is asked of: those the project pass
         * matches to another file's function (a keyword passed to a library's
         * function binds no parameter of the project's) */
        if (shape.false_positions || false_keywords.len || shape.module_positions || module_keywords.len ||
            passed.len) {
            shape.callee = oom_pymodel_call_callee(m, i, &module);
            shape.callee_module = module.data ? module.data : "";
        }
        oom_file_facts_add_call(f, name, len, &shape);
    }
    oom_buf_free(&passed);
    oom_buf_free(&caller);
    oom_buf_free(&false_keywords);
    oom_buf_free(&module);
    oom_buf_free(&module_keywords);
    oom_pymodel_no_grad_forward_classes(m, &f->no_grad_forward_classes);
    oom_pymodel_module_classes(m, &f->module_classes);
    oom_pymodel_differentiating_classes(m, &f->differentiating_classes);
    f->shows_gpu_use = oom_pymodel_shows_gpu_use(m);
    for (size_t i = 0; i < oom_pymodel_accumulator_count(m); i++) {
        const char *method, *param;
        uint32_t mlen, plen;
        int index;
        oom_pymodel_accumulator_at(m, i, &method, &mlen, &param, &plen, &index);
        oom_accumulator_fact a = {add_name(f, method, mlen), 0, index};
        a.param = add_name(f, param, plen);
        OOM_PUSH(f->accumulators, f->accumulator_count, f->accumulator_cap, a);
    }
}

void oom_file_facts_free(oom_file_facts *f)
{
    free(f->inputs);
    oom_project_deepspeed_links_free(f->deepspeed);
    oom_buf_free(&f->names);
    oom_buf_free(&f->no_grad_forward_classes);
    oom_buf_free(&f->module_classes);
    oom_buf_free(&f->differentiating_classes);
    free(f->calls);
    free(f->accumulators);
    oom_diag_list_free(&f->pending);
    oom_notebook_free(f->notebook);
    memset(f, 0, sizeof *f);
}

/* One call of the project, for the fixed point below. */
typedef struct {
    const char *name, *caller;
    bool grad_off;
} call_ref;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const call_ref *)a)->name, ((const call_ref *)b)->name);
}

static call_ref *all_calls(const oom_file_facts *facts, size_t nfiles, size_t *n_out)
{
    size_t total = 0;
    for (size_t i = 0; i < nfiles; i++)
        total += facts[i].call_count;
    call_ref *all = oom_xcalloc(total ? total : 1, sizeof *all);
    size_t n = 0;
    for (size_t i = 0; i < nfiles; i++)
        for (size_t k = 0; k < facts[i].call_count; k++) {
            const oom_call_fact *c = &facts[i].calls[k];
            all[n++] = (call_ref){facts[i].names.data + c->name, facts[i].names.data + c->caller, c->grad_off};
        }
    qsort(all, n, sizeof *all, by_name);
    *n_out = n;
    return all;
}

/* The functions of the project that run only without grad: every call of
 * one stands where autograd is off, or inside a function that runs only
 * without grad (diffusion_policy's conditional_sample, called only by
 * predict_action, which every env runner calls under torch.no_grad()). Names
 * are matched by last name, as the calls record them. A few rounds reach
 * helpers of helpers; a call at module level, or in a function called from
 * nowhere, keeps grad on. Returns a sorted, unique list of names. */
#define NO_GRAD_ROUNDS 4
static const char **no_grad_functions(const call_ref *calls, size_t n, size_t *count)
{
    const char **off = oom_xcalloc(n ? n : 1, sizeof *off);
    size_t noff = 0;
    for (int round = 0; round < NO_GRAD_ROUNDS; round++) {
        size_t before = noff;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            bool all_off = true;
            for (; j < n && strcmp(calls[j].name, calls[i].name) == 0; j++) {
                if (calls[j].grad_off)
                    continue;
                const char *in = calls[j].caller;
                bool in_off = false;
                for (size_t k = 0; k < before && !in_off && in[0]; k++)
                    in_off = strcmp(off[k], in) == 0 && strcmp(in, calls[i].name) != 0;
                all_off = all_off && in_off;
            }
            bool known = false;
            for (size_t k = 0; k < noff && !known; k++)
                known = strcmp(off[k], calls[i].name) == 0;
            if (all_off && !known)
                off[noff++] = calls[i].name;
            i = j;
        }
        if (noff == before)
            break;
    }
    *count = noff;
    return off;
}

void oom_project_drop_findings_of_no_grad_callees(const oom_file_facts *facts, size_t nfiles,
                                                  oom_diag_list *diags)
{
    size_t n, noff;
    call_ref *calls = all_calls(facts, nfiles, &n);
    const char **off = no_grad_functions(calls, n, &noff);
    unsigned char *drop = oom_xcalloc(diags->len ? diags->len : 1, 1);
    bool any = false;
    for (size_t i = 0; i < diags->len; i++) {
        const char *fn = diags->items[i].needs_grad_in;
        for (size_t k = 0; fn && k < noff && !drop[i]; k++)
            if (strcmp(off[k], fn) == 0)
                drop[i] = any = true;
    }
    if (any)
        oom_diag_list_remove_if_marked(diags, drop);
    free(drop);
    free(off);
    free(calls);
}

/* Whether a call's signature ("method<TAB>mask<TAB>keywords") passes a value
 * with history for the parameter this accumulating method adds up. */
static bool signature_feeds(const char *sig, const oom_file_facts *f, const oom_accumulator_fact *a)
{
    const char *method = f->names.data + a->method, *param = f->names.data + a->param;
    const char *tab = strchr(sig, '\t');
    if (!tab || (size_t)(tab - sig) != strlen(method) || memcmp(sig, method, strlen(method)) != 0)
        return false;
    char *end;
    unsigned long mask = strtoul(tab + 1, &end, 10);
    if (a->index >= 0 && a->index < 32 && (mask >> a->index) & 1ul)
        return true;
    const char *kw = *end == '\t' ? end + 1 : "";
    return oom_comma_list_has(kw, param, strlen(param));
}

static bool some_file_accumulates(const oom_file_facts *facts, size_t nfiles, const char *sig)
{
    for (size_t i = 0; i < nfiles; i++)
        for (size_t k = 0; k < facts[i].accumulator_count; k++)
            if (signature_feeds(sig, &facts[i], &facts[i].accumulators[k]))
                return true;
    return false;
}

/* The length of the folder part of a path ("a/b" of "a/b/c.py"; 0 for "c.py"). */
static size_t folder_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

/* Whether folder `dir` (a prefix of some path, dir_len bytes) is `of` or a
 * folder above it. */
static bool folder_at_or_above(const char *dir, size_t dir_len, const char *of, size_t of_len)
{
    if (dir_len == 0)
        return true; /* the folder the run started in */
    return dir_len <= of_len && memcmp(dir, of, dir_len) == 0 && (dir_len == of_len || of[dir_len] == '/');
}

/* Whether `import module` from the file `caller` reaches the file `callee`:
 * Python looks a module up from the script's folder and from the folders
 * above it that a package or sys.path starts at, so "pkg.engine" is
 * <folder>/pkg/engine.py or <folder>/pkg/engine/__init__.py for the caller's
 * folder or one above it. */
static bool module_is_file(const char *module, const char *caller, const char *callee)
{
    char rel[512];
    size_t n = strlen(module);
    if (n == 0 || n + 13 > sizeof rel)
        return false;
    for (size_t i = 0; i <= n; i++)
        rel[i] = module[i] == '.' ? '/' : module[i];
    size_t clen = strlen(callee), glen = folder_len(caller);
    static const char *const tails[] = {".py", "/__init__.py"};
    for (int t = 0; t < 2; t++) {
        char want[512];
        int w = snprintf(want, sizeof want, "%s%s", rel, tails[t]);
        size_t wl = (size_t)w;
        if (wl > clen || strcmp(callee + clen - wl, want) != 0)
            continue;
        size_t prefix = clen - wl; /* the folder the module is looked up from, with its '/' */
        if (prefix > 0 && callee[prefix - 1] != '/')
            continue;
        if (folder_at_or_above(callee, prefix ? prefix - 1 : 0, caller, glen))
            return true;
    }
    return false;
}

/* Whether call c in the file `caller` may call the function defined in
 * `callee`: through an import that reaches that file; as a method (whose
 * class no file says); or by a plain name from a relative or star import,
 * when the callee's folder is the caller's or one above it. A function the
 * caller defines itself is not the callee. */
static bool may_call_into(const oom_call_fact *c, const char *names, const char *caller, const char *callee)
{
    switch ((oom_callee_kind)c->callee) {
    case OOM_CALLEE_IMPORTED:
        return module_is_file(names + c->callee_module, caller, callee);
    case OOM_CALLEE_METHOD:
        return true;
    case OOM_CALLEE_UNRESOLVED:
        return folder_at_or_above(callee, folder_len(callee), caller, folder_len(caller));
    case OOM_CALLEE_LOCAL:
        return false;
    }
    return false;
}

/* "eval<TAB>function<TAB>parameter<TAB>position" of a finding in `callee`:
 * some other file calls the function, autograd on, with False for its mode
 * parameter. */
static bool some_file_calls_for_eval(const char *const *paths, const oom_file_facts *facts, size_t nfiles,
                                     const char *callee, const char *sig)
{
    const char *fn = sig + 5, *t1 = strchr(fn, '\t');
    const char *param = t1 ? t1 + 1 : NULL, *t2 = param ? strchr(param, '\t') : NULL;
    if (!t2)
        return false;
    size_t fn_len = (size_t)(t1 - fn), param_len = (size_t)(t2 - param);
    long position = strtol(t2 + 1, NULL, 10);
    for (size_t i = 0; i < nfiles; i++)
        for (size_t k = 0; k < facts[i].call_count; k++) {
            const oom_call_fact *c = &facts[i].calls[k];
            const char *name = facts[i].names.data + c->name;
            if (c->grad_off || strlen(name) != fn_len || memcmp(name, fn, fn_len) != 0 ||
                strcmp(paths[i], callee) == 0 || !may_call_into(c, facts[i].names.data, paths[i], callee))
                continue;
            if ((position >= 0 && position < 32 && (c->false_positions >> position) & 1u) ||
                oom_comma_list_has(facts[i].names.data + c->false_keywords, param, param_len))
                return true;
        }
    return false;
}

/* Whether the NUL-separated list names `name` (len bytes). */
static bool lists_name(const oom_buf *b, const char *name, size_t len)
{
    for (size_t at = 0; at < b->len;) {
        const char *n = b->data + at;
        size_t l = strlen(n);
        if (l == len && memcmp(n, name, len) == 0)
            return true;
        at += l + 1;
    }
    return false;
}

/* A condition "<tag><TAB>module<TAB>Class" (its tag `tag_len` bytes with the
 * tab) split: the module into `mod`, NUL-terminated, and where the class
 * starts and how long it is. False when it is not of that shape. */
static bool split_module_condition(const char *cond, size_t cond_len, size_t tag_len, char *mod, size_t mod_size,
                                   const char **cls, size_t *cls_len)
{
    const char *module = cond + tag_len, *end = cond + cond_len;
    const char *tab = memchr(module, '\t', (size_t)(end - module));
    size_t mlen = tab ? (size_t)(tab - module) : 0;
    if (!tab || mlen >= mod_size)
        return false;
    memcpy(mod, module, mlen);
    mod[mlen] = '\0';
    *cls = tab + 1;
    *cls_len = (size_t)(end - tab - 1);
    return true;
}

/* "fwdgrad<TAB>module<TAB>Class" of a finding in `caller` that took
 * `c = Class(...)` for a model whose forward keeps activations: overturned
 * when the file the import reaches runs Class.forward without grad (an
 * unknown module, one not linted, leaves it standing). */
static bool forward_runs_without_grad(const char *const *paths, const oom_file_facts *facts, size_t nfiles,
                                      const char *caller, const char *cond, size_t cond_len)
{
    char mod[512];
    const char *cls;
    size_t cls_len;
    if (!split_module_condition(cond, cond_len, 8, mod, sizeof mod, &cls, &cls_len) || !mod[0])
        return false;
    for (size_t i = 0; i < nfiles; i++)
        if (module_is_file(mod, caller, paths[i]) && lists_name(&facts[i].no_grad_forward_classes, cls, cls_len))
            return true;
    return false;
}

/* "diffwd<TAB>module<TAB>Class" of a finding whose function calls a module
 * of Class, imported from `module`: overturned when the file the import
 * reaches lists Class among its module classes that differentiate in their
 * own code (the help's no_grad would break that forward). An empty module
 * and class, a module whose class the caller's file does not show (a
 * parameter, a registry's lookup): overturned when any file of the project
 * has such a class. */
static bool forward_may_differentiate(const char *const *paths, const oom_file_facts *facts, size_t nfiles,
                                      const char *caller, const char *cond, size_t cond_len)
{
    char mod[512];
    const char *cls;
    size_t cls_len;
    if (!split_module_condition(cond, cond_len, 7, mod, sizeof mod, &cls, &cls_len))
        return false;
    for (size_t i = 0; i < nfiles; i++) {
        const oom_buf *b = &facts[i].differentiating_classes;
        if (b->len > 0 && (!mod[0] || (module_is_file(mod, caller, paths[i]) && lists_name(b, cls, cls_len))))
            return true;
    }
    return false;
}

/* A call imported from a module (`from transformers import BitsAndBytesConfig`)
 * that is none of the project's files: a library's function. */
static bool calls_library(const char *const *paths, const oom_file_facts *f, size_t nfiles, const char *file,
                          const oom_call_fact *c)
{
    const char *module = f->names.data + c->callee_module;
    if (c->callee != OOM_CALLEE_IMPORTED || !module[0] || module[0] == '.')
        return false;
    for (size_t j = 0; j < nfiles; j++)
        if (module_is_file(module, file, paths[j]))
            return false;
    return true;
}

/* "nopass<TAB>callee<TAB>param<TAB>position" of a finding under `if param:`,
 * param off by default: overturned when no call in the project passes it.
 * A keyword counts whatever the call's callee (a subclass's constructor, a
 * wrapper forwarding it, `partial(f, load_in_4bit=True)`) unless it is a
 * library's function; a splat counts for a call of `callee`; a position for
 * a call of `callee` or of `__init__` (`super().__init__(path, True)` in a
 * subclass; the `super().__init__(*args, **kwargs)` every subclass writes
 * forwards what its own callers pass, which they pass by name here). */
static bool no_call_passes(const char *const *paths, const oom_file_facts *facts, size_t nfiles, const char *cond,
                           size_t cond_len)
{
    char buf[512];
    if (cond_len >= sizeof buf)
        return false;
    memcpy(buf, cond, cond_len);
    buf[cond_len] = '\0';
    char *callee = buf + 7, *param = strchr(callee, '\t');
    char *position = param ? strchr(param + 1, '\t') : NULL;
    if (!param || !position)
        return false;
    *param++ = '\0';
    *position++ = '\0';
    long at = strtol(position, NULL, 10);
    for (size_t i = 0; i < nfiles; i++) {
        const oom_file_facts *f = &facts[i];
        for (size_t k = 0; k < f->call_count; k++) {
            const oom_call_fact *c = &f->calls[k];
            if (oom_comma_list_has(f->names.data + c->keywords, param, strlen(param)) &&
                !calls_library(paths, f, nfiles, paths[i], c))
                return false;
            const char *name = f->names.data + c->name;
            bool own = strcmp(name, callee) == 0;
            if ((own && c->splat) || ((own || strcmp(name, "__init__") == 0) && (long)c->positional > at))
                return false;
        }
    }
    return true;
}

/* Whether another file overturns one of a finding's assumptions (one a line). */
static bool overturned(const char *const *paths, const oom_file_facts *facts, size_t nfiles, const char *file,
                       const char *assumptions)
{
    for (const char *p = assumptions; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n > 8 && strncmp(p, "fwdgrad\t", 8) == 0 && forward_runs_without_grad(paths, facts, nfiles, file, p, n))
            return true;
        if (n > 7 && strncmp(p, "nopass\t", 7) == 0 && no_call_passes(paths, facts, nfiles, p, n))
            return true;
        if (n > 7 && strncmp(p, "diffwd\t", 7) == 0 && forward_may_differentiate(paths, facts, nfiles, file, p, n))
            return true;
        p += n + (nl != NULL);
    }
    return false;
}

void oom_project_drop_overturned_findings(const char *const *paths, const oom_file_facts *facts, size_t nfiles,
                                          oom_diag_list *diags)
{
    unsigned char *drop = oom_xcalloc(diags->len ? diags->len : 1, 1);
    bool any = false;
    for (size_t i = 0; i < diags->len; i++) {
        const oom_diag *d = &diags->items[i];
        if (d->unless_project && overturned(paths, facts, nfiles, d->path, d->unless_project))
            drop[i] = any = true;
    }
    if (any)
        oom_diag_list_remove_if_marked(diags, drop);
    free(drop);
}

/* `module` (dotted, or relative: `.utils`, `..models.net`) imported in the
 * file `caller` is the file `callee`. */
static bool module_reaches(const char *module, const char *caller, const char *callee)
{
    if (module[0] != '.')
        return module_is_file(module, caller, callee);
    size_t up = 0;
    while (module[up] == '.')
        up++;
    size_t folder = folder_len(caller);
    for (size_t i = 1; i < up; i++) { /* `..x`: one folder up from the caller's */
        while (folder > 0 && caller[folder - 1] != '/')
            folder--;
        if (folder > 0)
            folder--;
    }
    char want[512];
    const char *rest = module + up;
    int w = snprintf(want, sizeof want, "%.*s%s", (int)folder, caller, folder ? "/" : "");
    for (const char *p = rest; *p && w > 0 && (size_t)w < sizeof want - 16; p++)
        want[w++] = *p == '.' ? '/' : *p;
    if (w <= 0 || (size_t)w >= sizeof want - 16)
        return false;
    want[w] = '\0';
    size_t wl = (size_t)w;
    bool bare = *rest == '\0'; /* `from . import x`: the package itself */
    return (!bare && strlen(callee) == wl + 3 && strncmp(callee, want, wl) == 0 && strcmp(callee + wl, ".py") == 0) ||
           (strncmp(callee, want, wl) == 0 && strcmp(callee + wl, bare ? "__init__.py" : "/__init__.py") == 0);
}

/* "module<TAB>pkg.mod<TAB>Class" of a finding in `caller`: the file the
 * import reaches defines Class as a module. */
static bool imported_class_is_module(const char *const *paths, const oom_file_facts *facts, size_t nfiles,
                                     const char *caller, const char *cond)
{
    char mod[512];
    const char *cls;
    size_t cls_len;
    if (!split_module_condition(cond, strlen(cond), 7, mod, sizeof mod, &cls, &cls_len) || !mod[0])
        return false;
    for (size_t i = 0; i < nfiles; i++)
        if (module_reaches(mod, caller, paths[i]) && lists_name(&facts[i].module_classes, cls, cls_len))
            return true;
    return false;
}

/* "modarg<TAB>function<TAB>position<TAB>parameter" of a finding in `callee`:
 * some file calls the function with a module there (by position after
 * self, or by keyword). */
static bool some_file_passes_module(const char *const *paths, const oom_file_facts *facts, size_t nfiles,
                                    const char *callee, const char *cond)
{
    const char *fn = cond + 7, *t1 = strchr(fn, '\t');
    const char *pos = t1 ? t1 + 1 : NULL, *t2 = pos ? strchr(pos, '\t') : NULL;
    if (!t2)
        return false;
    size_t fn_len = (size_t)(t1 - fn);
    long position = strtol(pos, NULL, 10);
    const char *param = t2 + 1;
    for (size_t i = 0; i < nfiles; i++)
        for (size_t k = 0; k < facts[i].call_count; k++) {
            const oom_call_fact *c = &facts[i].calls[k];
            const char *name = facts[i].names.data + c->name;
            if (strlen(name) != fn_len || memcmp(name, fn, fn_len) != 0)
                continue;
            bool passes = (position >= 0 && position < 32 && (c->module_positions >> position) & 1u) ||
                          oom_comma_list_has(facts[i].names.data + c->module_keywords, param, strlen(param));
            if (passes && (strcmp(paths[i], callee) == 0 || may_call_into(c, facts[i].names.data, paths[i], callee) ||
                           (c->callee == OOM_CALLEE_IMPORTED &&
                            module_reaches(facts[i].names.data + c->callee_module, paths[i], callee))))
                return true;
        }
    return false;
}

/* Some Python file of the project shows a way onto a GPU. */
static bool some_file_shows_gpu_use(const oom_file_facts *facts, size_t nfiles)
{
    for (size_t i = 0; i < nfiles; i++)
        if (facts[i].shows_gpu_use)
            return true;
    return false;
}

static bool confirmed_one(const char *const *paths, const oom_file_facts *facts, size_t nfiles, const char *file,
                          const char *condition)
{
    if (strcmp(condition, OOM_GPU_USE_CONDITION) == 0)
        return some_file_shows_gpu_use(facts, nfiles);
    if (strncmp(condition, "eval\t", 5) == 0)
        return some_file_calls_for_eval(paths, facts, nfiles, file, condition);
    if (strncmp(condition, "module\t", 7) == 0)
        return imported_class_is_module(paths, facts, nfiles, file, condition);
    if (strncmp(condition, "modarg\t", 7) == 0)
        return some_file_passes_module(paths, facts, nfiles, file, condition);
    return some_file_accumulates(facts, nfiles, condition);
}

/* Every condition of a finding (one a line) holds in the project. */
static bool confirmed(const char *const *paths, const oom_file_facts *facts, size_t nfiles, const char *file,
                      const char *conditions)
{
    char line[1024];
    for (const char *p = conditions; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n >= sizeof line)
            return false;
        memcpy(line, p, n);
        line[n] = '\0';
        if (!confirmed_one(paths, facts, nfiles, file, line))
            return false;
        p += n + (nl != NULL);
    }
    return true;
}

void oom_project_confirm_pending(const char *const *paths, oom_file_facts *facts, size_t nfiles, oom_diag_list *out)
{
    for (size_t i = 0; i < nfiles; i++) {
        oom_diag_list *pending = &facts[i].pending;
        if (pending->len == 0)
            continue;
        unsigned char *drop = oom_xcalloc(pending->len, 1);
        for (size_t k = 0; k < pending->len; k++)
            drop[k] = !confirmed(paths, facts, nfiles, paths[i], pending->items[k].needs_project);
        oom_diag_list_remove_if_marked(pending, drop);
        free(drop);
        oom_diag_list_move(out, pending);
    }
}

/* model/gpuuse: whether a file's code can reach a GPU at all. A forward
 * costs GPU memory only where something puts the module or its inputs on
 * one; a project that never does (a CPU-only time-series or graph
 * benchmark) runs every forward on the host. Shown, not assumed: the file
 * names a device (a string with a device word, a device constructor, an
 * attribute `cuda`), places something where it names (a placing method or
 * keyword given a device that is not a string, a dtype or where another
 * value already is; a default-device call; a wrapper of the knowledge
 * base's: DDP, FSDP, accelerator.prepare), or imports a library that places
 * models itself; any of these is evidence of a GPU somewhere. `torch.zeros(
 * n, device=w.device)` and `.to(torch.float16)` bring no GPU in, nor does
 * `device="cpu"`. A file with none
 * leaves the question to the project pass: another file may place the
 * module and hand it over. */
#include <ctype.h>
#include <string.h>

#include "hostmix.h"
#include "internal.h"
#include "oomlint/library.h"
#include "roles.h"

/* `text` holds one of the words as a word of its own ("cuda:0", "use the
 * GPU"), case aside. */
static bool names_device_word(const char *text, uint32_t len, const oom_strlist *words)
{
    for (size_t w = 0; w < words->len; w++) {
        size_t wl = strlen(words->items[w]);
        for (uint32_t i = 0; wl && i + wl <= len; i++) {
            if (strncasecmp(text + i, words->items[w], wl) != 0)
                continue;
            bool starts = i == 0 || !isalpha((unsigned char)text[i - 1]);
            bool ends = i + wl == len || !isalpha((unsigned char)text[i + wl]);
            if (starts && ends)
                return true;
        }
    }
    return false;
}

static TSNode named_target(const oom_pymodel *m, TSNode call);

/* What a placement names can bring a GPU in unless it is a string (whose
 * words are judged as strings are), None or a bool, where another value
 * already is (`x.device`, `w.dtype`: the placement follows one made
 * elsewhere, which shows itself there), a dtype (`.to(torch.float16)`
 * casts), a device made of one of those (`torch.device("cpu")`), or a name
 * bound to one. `.to(device)` with `device` a parameter may be a GPU.
 * A read of the knowledge base's tensor metadata (`.device`) is taken as
 * following whatever it is read off: a stored setting (`args.device`,
 * `self.device`) shows its origin where it is set (a `--device` default
 * naming a GPU, `torch.device("cuda")`); one given only on the command line,
 * with no default and no help naming a device, is not seen. */
static bool may_name_gpu(const oom_pymodel *m, const oom_library *lib, TSNode target, int depth)
{
    if (ts_node_is_null(target))
        return false;
    if (depth > 4)
        return true;
    static const char *const plain[] = {"string", "concatenated_string", "none", "true", "false", NULL};
    for (size_t i = 0; plain[i]; i++)
        if (strcmp(ts_node_type(target), plain[i]) == 0)
            return false;
    if (ts_node_symbol(target) == m->sym.identifier) {
        TSNode bound = oom_model_bound_value(m, target);
        return ts_node_is_null(bound) || may_name_gpu(m, lib, bound, depth + 1);
    }
    if (ts_node_symbol(target) == m->sym.call) {
        TSNode fn = oom_model_child(m, target, "function", 8);
        return !oom_hostmix_qualname_in(m, fn, &lib->device_constructors) ||
               may_name_gpu(m, lib, named_target(m, target), depth + 1);
    }
    if (ts_node_symbol(target) != m->sym.attribute)
        return true;
    uint32_t len;
    const char *attr = oom_node_text(m, oom_model_child(m, target, "attribute", 9), &len);
    if (attr && oom_library_lists(&lib->tensor_metadata, attr, len))
        return false;
    return !oom_hostmix_qualname_in(m, target, &lib->dtypes);
}

/* The device a call names: its first positional argument, or `device=`. */
static TSNode named_target(const oom_pymodel *m, TSNode call)
{
    size_t count;
    TSNode first = oom_hostmix_first_positional(m, call, &count);
    if (count > 0)
        return first;
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);)
        if (ts_node_symbol(a) == m->sym.keyword_argument && oom_node_text_is(m, oom_model_child(m, a, "name", 4), "device"))
            return oom_model_child(m, a, "value", 5);
    return first;
}

static bool call_shows_gpu(const oom_pymodel *m, const oom_library *lib, const oom_call_site *c)
{
    if (oom_library_lists(&lib->gpu_methods, c->name, c->name_len) ||
        (oom_library_lists(&lib->placing_methods, c->name, c->name_len) &&
         names_device_word(c->name, c->name_len, &lib->gpu_device_words)))
        return true; /* `.cuda()`, `.xpu()`: the method names the device */
    if (oom_library_lists(&lib->placing_methods, c->name, c->name_len) ||
        oom_hostmix_qualname_in(m, c->fn, &lib->device_constructors))
        return may_name_gpu(m, lib, named_target(m, c->node), 0); /* `.to(device)`, `torch.device(args.device)` */
    return false;
}

static bool node_shows_gpu(const oom_pymodel *m, const oom_library *lib, const oom_node *n)
{
    uint32_t len;
    if (n->symbol == m->sym.string) {
        if (n->parent != UINT32_MAX && m->nodes->items[n->parent].symbol == m->sym.expression_statement)
            return false; /* a docstring, or a string left as a statement: prose, not code */
        const char *text = oom_node_text(m, n->node, &len);
        return names_device_word(text, len, &lib->gpu_device_words);
    }
    if (n->symbol == m->sym.identifier) {
        const char *text = oom_node_text(m, n->node, &len);
        return oom_library_lists(&lib->gpu_methods, text, len); /* torch.cuda, x.cuda */
    }
    if (n->symbol == m->sym.keyword_argument) { /* `device=device`, `device_map=args.device_map` */
        const char *key = oom_node_text(m, oom_model_child(m, n->node, "name", 4), &len);
        return key && oom_library_lists(&lib->placing_keywords, key, len) &&
               may_name_gpu(m, lib, oom_model_child(m, n->node, "value", 5), 0);
    }
    return false;
}

/* An import of a package that places models itself: `from lightning
 * import Trainer`, `import accelerate`. */
static bool imports_placing_library(const oom_pymodel *m, const oom_library *lib)
{
    for (size_t i = 0; i < m->alias_count; i++) {
        const char *q = m->aliases[i].qualified;
        size_t top = strcspn(q, ".");
        if (oom_library_lists(&lib->device_placing_libraries, q, top))
            return true;
    }
    return false;
}

static bool shows_gpu_use(const oom_pymodel *m, const oom_library *lib)
{
    if (!m->nodes || imports_placing_library(m, lib) || oom_model_may_set_default_device(m, lib))
        return true; /* unread, or placed by the library: maybe on a GPU */
    for (size_t i = 0; i < m->call_count; i++)
        if (call_shows_gpu(m, lib, &m->calls[i]) || oom_roles_call_wrappers(m, lib, i) != 0)
            return true; /* a wrapper (DataParallel, FSDP, accelerator.prepare) places or shards on GPUs */
    for (uint32_t i = 0; i < m->nodes->len; i++)
        if (node_shows_gpu(m, lib, &m->nodes->items[i]))
            return true;
    return false;
}

bool oom_pymodel_shows_gpu_use(const oom_pymodel *cm)
{
    oom_pymodel *m = (oom_pymodel *)cm; /* the answer, kept: one thread owns the model */
    const oom_library *lib = oom_library_get();
    if (!lib)
        return true;
    if (!m->gpu_use_read) {
        m->gpu_use = shows_gpu_use(m, lib);
        m->gpu_use_read = true;
    }
    return m->gpu_use;
}

bool oom_pymodel_may_use_gpu(const oom_pymodel *m)
{
    if (oom_pymodel_shows_gpu_use(m))
        return true;
    if (!m->pending_conditions) {
        ((oom_pymodel *)m)->would_wait = true; /* asked again, waiting on the project */
        return false;
    }
    if (m->pending_conditions->len)
        oom_buf_putc(m->pending_conditions, '\n');
    oom_buf_puts(m->pending_conditions, OOM_GPU_USE_CONDITION);
    return true;
}

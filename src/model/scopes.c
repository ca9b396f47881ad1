/* model/scopes: the generic semantic layer's look-ups: which scope a
 * position is in, the binding a name resolves to there (Python's rules:
 * the scope, then enclosing functions, then the module), qualified names
 * through import aliases, literals and the words of a name. The analyses
 * (grad.c, evaluation.c, storage.c, history.c) ask these. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/lang.h"
#include "internal.h"

int oom_model_scope_at(const oom_pymodel *m, uint32_t pos)
{
    /* Scopes are stored in pre-order, so sorted by start: find the last that
     * starts at or before pos, then climb to one that contains it. */
    size_t lo = 0, hi = m->scope_count;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (m->scopes[mid].start <= pos)
            lo = mid;
        else
            hi = mid;
    }
    int s = (int)lo;
    while (s > 0 && !(pos >= m->scopes[s].start && pos < m->scopes[s].end))
        s = m->scopes[s].parent;
    return s < 0 ? 0 : s;
}

const oom_binding *oom_model_last_binding(const oom_pymodel *m, int scope, const char *name,
                                          uint32_t name_len, uint32_t before,
                                          bool skip_augmented)
{
    const oom_binding *best = NULL;
    if (scope < 0 || (size_t)scope >= m->scope_count)
        return NULL;
    for (int i = m->scopes[scope].last_binding; i >= 0; i = m->bindings[i].prev) {
        const oom_binding *b = &m->bindings[i];
        if (b->pos > before || b->name_len != name_len || memcmp(b->name, name, name_len) != 0)
            continue;
        if (skip_augmented && b->kind == OOM_BIND_AUGMENTED)
            continue;
        if (!best || b->pos >= best->pos)
            best = b;
    }
    return best;
}

const oom_binding *oom_model_visible_binding(const oom_pymodel *m, int scope, const char *name,
                                            uint32_t name_len, uint32_t before, bool skip_augmented)
{
    for (int sc = scope, depth = 0; sc >= 0 && depth < 64; sc = m->scopes[sc].parent, depth++) {
        const oom_binding *b =
            oom_model_last_binding(m, sc, name, name_len, sc == scope ? before : UINT32_MAX, skip_augmented);
        if (b)
            return b;
        if (sc == 0)
            break;
    }
    return NULL;
}

/* ---- bindings one question has looked at ---------------------------------- */

void oom_model_visit_begin(oom_visit *v)
{
    if (++v->stamp == 0) { /* wrapped: forget every stamp */
        v->stamp = 1;
        free(v->seen);
        v->seen = NULL;
    }
}

/* True the first time a question meets `b`. The array is the model's
 * scratch (one file's model is used by one thread), made on first use. */
bool oom_model_visit_first(const oom_pymodel *m, oom_visit *v, const oom_binding *b)
{
    if (!v->seen)
        v->seen = oom_xcalloc(m->binding_count ? m->binding_count : 1, sizeof(uint32_t));
    size_t i = (size_t)(b - m->bindings);
    if (v->seen[i] == v->stamp)
        return false;
    v->seen[i] = v->stamp;
    return true;
}

/* ---- qualified names ------------------------------------------------------ */

static const oom_alias *find_alias(const oom_pymodel *m, const char *name, uint32_t len)
{
    for (size_t i = m->alias_count; i-- > 0;) {
        const oom_alias *a = &m->aliases[i];
        if (a->local_len == len && memcmp(a->local, name, len) == 0)
            return a;
    }
    return NULL;
}

static bool defines_function(const oom_pymodel *m, const char *name, uint32_t len)
{
    for (size_t i = 1; i < m->scope_count; i++)
        if (m->scopes[i].name && m->scopes[i].name_len == len && memcmp(m->scopes[i].name, name, len) == 0)
            return true;
    return false;
}

oom_callee_kind oom_pymodel_call_callee(const oom_pymodel *m, size_t i, oom_buf *module)
{
    oom_buf_clear(module);
    TSNode fn = m->calls[i].fn;
    TSNode base = fn;
    while (!ts_node_is_null(base) && ts_node_symbol(base) == m->sym.attribute)
        base = oom_model_child(m, base, "object", 6);
    if (ts_node_is_null(base) || ts_node_symbol(base) != m->sym.identifier)
        return OOM_CALLEE_METHOD; /* `make()(x)`, `models[k](x)`: some object's */
    uint32_t len;
    const char *text = oom_node_text(m, base, &len);
    if (find_alias(m, text, len)) {
        oom_pymodel_qualname(m, fn, module);
        char *dot = module->data ? strrchr(module->data, '.') : NULL;
        if (!dot) { /* `import engine` then `engine(x)`: no module part */
            oom_buf_clear(module);
            return OOM_CALLEE_UNRESOLVED;
        }
        module->len = (size_t)(dot - module->data);
        module->data[module->len] = '\0';
        return OOM_CALLEE_IMPORTED;
    }
    if (!ts_node_eq(base, fn))
        return OOM_CALLEE_METHOD; /* self.step(x), trainer.step(x) */
    return defines_function(m, text, len) ? OOM_CALLEE_LOCAL : OOM_CALLEE_UNRESOLVED;
}

bool oom_pymodel_is_import_alias(const oom_pymodel *m, const char *name, size_t len)
{
    return find_alias(m, name, (uint32_t)len) != NULL;
}

const char *oom_pymodel_module_alias(const oom_pymodel *m, const char *module, uint32_t *len)
{
    /* the plain name first: `import torch` beside `import torch as T` */
    const oom_alias *a = find_alias(m, module, (uint32_t)strlen(module));
    if (a && strcmp(a->qualified, module) == 0) {
        *len = (uint32_t)strlen(a->local);
        return a->local;
    }
    for (size_t i = 0; i < m->alias_count; i++)
        if (strcmp(m->aliases[i].qualified, module) == 0) {
            *len = (uint32_t)strlen(m->aliases[i].local);
            return m->aliases[i].local;
        }
    return NULL;
}

bool oom_pymodel_qualname(const oom_pymodel *m, TSNode expr, oom_buf *out)
{
    oom_buf_clear(out);
    /* Walk down the attribute chain to its base name, remembering the parts. */
    TSNode parts[32];
    size_t nparts = 0;
    TSNode n = expr;
    while (!ts_node_is_null(n) && ts_node_symbol(n) == m->sym.attribute) {
        if (nparts == 32)
            return false;
        parts[nparts++] = oom_model_child(m, n, "attribute", 9);
        n = oom_model_child(m, n, "object", 6);
    }
    if (ts_node_is_null(n) || ts_node_symbol(n) != m->sym.identifier)
        return false;
    uint32_t len;
    const char *base = oom_node_text(m, n, &len);
    const oom_alias *a = find_alias(m, base, len);
    if (a)
        oom_buf_puts(out, a->qualified);
    else
        oom_buf_append(out, base, len);
    for (size_t i = nparts; i-- > 0;) {
        if (ts_node_is_null(parts[i]))
            return false;
        const char *t = oom_node_text(m, parts[i], &len);
        oom_buf_putc(out, '.');
        oom_buf_append(out, t, len);
    }
    return true;
}

/* ---- literals ------------------------------------------------------------- */

static bool string_has_interpolation(TSNode str)
{
    uint32_t count = ts_node_named_child_count(str);
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(ts_node_type(ts_node_named_child(str, i)), "interpolation") == 0)
            return true;
    return false;
}

bool oom_pymodel_is_literal(const oom_pymodel *m, TSNode expr)
{
    const char *type = ts_node_type(expr);
    if (strcmp(type, "string") == 0)
        return !string_has_interpolation(expr);
    if (strcmp(type, "integer") == 0 || strcmp(type, "float") == 0)
        return true;
    if (strcmp(type, "concatenated_string") == 0 || strcmp(type, "parenthesized_expression") == 0 ||
        strcmp(type, "unary_operator") == 0) {
        uint32_t count = ts_node_named_child_count(expr);
        for (uint32_t i = 0; i < count; i++)
            if (!oom_pymodel_is_literal(m, oom_model_named_child(m, expr, i)))
                return false;
        return count > 0;
    }
    return false;
}

bool oom_pymodel_string_value(const oom_pymodel *m, TSNode str, oom_buf *out)
{
    oom_buf_clear(out);
    if (ts_node_is_null(str)) /* `add_argument()` has no first argument */
        return false;
    if (strcmp(ts_node_type(str), "string") != 0 || string_has_interpolation(str))
        return false;
    oom_model_kids kids = oom_model_kids_of(m, str);
    for (TSNode part; oom_model_next_kid(m, &kids, &part);) {
        if (strcmp(ts_node_type(part), "string_content") == 0) {
            uint32_t len;
            const char *t = oom_node_text(m, part, &len);
            oom_buf_append(out, t, len);
        }
    }
    oom_buf_append(out, "", 0);
    return true;
}

/* ---- names ---------------------------------------------------------------- */

bool oom_name_has_word(const char *name, size_t len, const char *const *words)
{
    char part[64];
    size_t i = 0;
    while (i < len) {
        while (i < len && (name[i] == '_' || isdigit((unsigned char)name[i])))
            i++;
        size_t n = 0;
        /* one part: an optional capital followed by lower-case letters, or a
         * run of capitals (an acronym) */
        if (i < len && isupper((unsigned char)name[i])) {
            while (i < len && isupper((unsigned char)name[i]) && n < sizeof part - 1)
                part[n++] = (char)tolower((unsigned char)name[i++]);
            if (n > 1 && i < len && islower((unsigned char)name[i])) {
                i--; /* "HTTPServer": the last capital starts the next word */
                n--;
            }
        }
        while (i < len && islower((unsigned char)name[i]) && n < sizeof part - 1)
            part[n++] = name[i++];
        if (n == 0) {
            i++;
            continue;
        }
        part[n] = '\0';
        for (size_t w = 0; words[w]; w++)
            if (strcmp(part, words[w]) == 0)
                return true;
    }
    return false;
}


const oom_nodes *oom_pymodel_layout(const oom_pymodel *m)
{
    return m->nodes;
}

TSNode oom_pymodel_parent(const oom_pymodel *m, TSNode n)
{
    return oom_model_parent(m, n);
}

void oom_pymodel_walk(const oom_pymodel *m, TSNode root, oom_node_visit visit, void *ctx)
{
    if (ts_node_is_null(root))
        return;
    uint32_t at = m->nodes ? oom_nodes_find_near(m->nodes, root, m->at) : UINT32_MAX;
    if (at != UINT32_MAX) {
        for (uint32_t i = at, end = m->nodes->items[at].end; i < end; i++)
            if (!visit(ctx, m->nodes->items[i].node))
                return;
        return;
    }
    /* no layout at hand (the model outlived the linter's): lay the subtree out */
    oom_nodes own;
    oom_nodes_init(&own);
    oom_nodes_build(&own, root);
    for (uint32_t i = 0; i < own.len && visit(ctx, own.items[i].node); i++)
        ;
    oom_nodes_free(&own);
}

bool oom_model_text_in(const char *s, size_t len, const char *const *set)
{
    for (size_t i = 0; set[i]; i++)
        if (strlen(set[i]) == len && memcmp(set[i], s, len) == 0)
            return true;
    return false;
}

/* The class a method scope belongs to: the class_definition around its
 * `def` (through a decorated_definition); null for a function. */
TSNode oom_model_class_of_scope(const oom_pymodel *m, const oom_scope *sc)
{
    if (ts_node_is_null(sc->def))
        return (TSNode){0};
    TSNode up = oom_model_parent(m, sc->def);
    if (!ts_node_is_null(up) && ts_node_symbol(up) == m->sym.decorated_definition)
        up = oom_model_parent(m, up);
    up = ts_node_is_null(up) ? up : oom_model_parent(m, up); /* block -> class_definition */
    return !ts_node_is_null(up) && ts_node_symbol(up) == m->sym.class_definition ? up : (TSNode){0};
}

/* ---- names ------------------------------------------------------------------ */

/* The word lists of oom_model_name_is_model_like, asked for every call a
 * rule looks at: with their lengths, and the first letters compared before
 * memcmp, a miss costs a few instructions per word. */
typedef struct {
    const char *text;
    size_t len;
} name_word;
#define NAME_WORD(s) {s, sizeof(s) - 1}
#define NAME_WORDS(a) (sizeof(a) / sizeof *(a))

static bool starts_with_word(const char *s, size_t len, const name_word *w)
{
    return len >= w->len && s[0] == w->text[0] && memcmp(s, w->text, w->len) == 0;
}

static bool ends_with_word(const char *s, size_t len, const name_word *w)
{
    return len >= w->len && s[len - w->len] == w->text[0] && memcmp(s + len - w->len, w->text, w->len) == 0;
}

bool oom_model_name_is_model_like(const char *name, size_t len)
{
    static const name_word exact[] = {
        NAME_WORD("model"), NAME_WORD("net"), NAME_WORD("network"), NAME_WORD("module"),
        NAME_WORD("encoder"), NAME_WORD("decoder"), NAME_WORD("backbone"), NAME_WORD("classifier"),
        NAME_WORD("generator"), NAME_WORD("discriminator"), NAME_WORD("critic"), NAME_WORD("actor"),
        NAME_WORD("policy"), NAME_WORD("teacher"), NAME_WORD("student"), NAME_WORD("transformer"),
        NAME_WORD("unet"), NAME_WORD("vae"), NAME_WORD("clf"), NAME_WORD("lm"), NAME_WORD("gen"),
        NAME_WORD("disc"), NAME_WORD("head"), NAME_WORD("mlp"), NAME_WORD("projector"),
        NAME_WORD("embedder")};
    static const name_word suffixes[] = {
        NAME_WORD("_model"), NAME_WORD("model"), NAME_WORD("_net"), NAME_WORD("net"),
        NAME_WORD("_encoder"), NAME_WORD("_decoder"), NAME_WORD("_head"), NAME_WORD("_mlp"),
        NAME_WORD("_proj"), NAME_WORD("_projection")};
    static const name_word factories[] = {
        NAME_WORD("get_"), NAME_WORD("build_"), NAME_WORD("create_"), NAME_WORD("load_"),
        NAME_WORD("make_"), NAME_WORD("init_"), NAME_WORD("setup_"), NAME_WORD("configure_"),
        NAME_WORD("wrap_"), NAME_WORD("unwrap_"), NAME_WORD("prepare_"), NAME_WORD("save_"),
        NAME_WORD("export_"), NAME_WORD("convert_"), NAME_WORD("merge_"), NAME_WORD("print_"),
        NAME_WORD("count_"), NAME_WORD("freeze_"), NAME_WORD("fuse_"), NAME_WORD("update_"),
        NAME_WORD("copy_"), NAME_WORD("reparameterize_")};
    static const name_word model_prefix = NAME_WORD("model_");
    while (len > 0 && name[0] == '_') { /* self._wrap_model(...): the same verbs */
        name++;
        len--;
    }
    if (len == 0 || isupper((unsigned char)name[0]))
        return false; /* Model(...) constructs; it does not run a forward */
    for (size_t i = 0; i < NAME_WORDS(factories); i++)
        if (starts_with_word(name, len, &factories[i]))
            return false;
    for (size_t i = 0; i < NAME_WORDS(exact); i++)
        if (len == exact[i].len && starts_with_word(name, len, &exact[i]))
            return true;
    if (starts_with_word(name, len, &model_prefix))
        return true;
    for (size_t i = 0; i < NAME_WORDS(suffixes); i++)
        if (ends_with_word(name, len, &suffixes[i]))
            return true;
    return false;
}

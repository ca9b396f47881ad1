/* estimate/modules_lists: sequences while a model is built: list, tuple
 * and dict literals, dict() and OrderedDict(), comprehensions, the values
 * a loop runs over (range(), enumerate(), a literal list) and unpacking
 * into loop targets. A list of modules adds up what it holds; a list of
 * ints stays a tuple of ints for a later size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules.h"

void oom_mod_bind_target(ctx *c, frame *f, TSNode target, const value *v)
{
    char nm[48];
    if (name_of(c, target, nm, sizeof nm)) {
        oom_mod_set_var(f, nm, v);
        return;
    }
    if (!is(target, "pattern_list") && !is(target, "tuple_pattern") && !is(target, "tuple"))
        return;
    TSNode parts[MAX_INTS];
    size_t n = oom_mod_kids(c, target, parts, MAX_INTS);
    for (size_t i = 0; i < n; i++) {
        value one = v->kind == V_INTS && (size_t)v->nints == n ? int_value(v->ints[i]) : unknown();
        oom_mod_bind_target(c, f, parts[i], &one);
    }
}

static value empty_list(void)
{
    value v = module_value();
    v.i = 0; /* the number of items */
    return v;
}

/* The shape of an item of a nested list (a number: none); false when it
 * has none numpy could tell. */
static bool item_shape(const value *item, long long *dims, int *n)
{
    *n = 0;
    if (item->kind == V_INTS) {
        dims[(*n)++] = item->nints;
        return true;
    }
    if (item->kind == V_SEQ && item->shaped && item->nints < MAX_INTS) {
        dims[(*n)++] = item->i;
        for (int k = 0; k < item->nints; k++)
            dims[(*n)++] = item->ints[k];
        return true;
    }
    return item->kind == V_INT || item->kind == V_FLOAT || item->kind == V_BOOL || item->kind == V_UNKNOWN;
}

/* One more item on a list kept as its length (V_SEQ), `n` items so far:
 * the items' common shape is kept while they agree. */
static void add_to_sequence(value *list, long long n, bool plain, const value *item)
{
    bool was_seq = list->kind == V_SEQ, was_numbers = list->kind == V_INTS;
    long long had[MAX_INTS];
    int nhad = was_seq ? list->nints : 0;
    bool shaped = was_seq ? list->shaped : (was_numbers || n == 0);
    memcpy(had, list->ints, sizeof had);
    long long dims[MAX_INTS];
    int nd;
    bool known = item_shape(item, dims, &nd);
    *list = unknown();
    list->kind = V_SEQ;
    list->plain = plain;
    list->i = n + 1;
    if (n == 0 && known) { /* the first item sets the shape */
        list->shaped = true;
        memcpy(list->ints, dims, sizeof dims);
        list->nints = nd;
        return;
    }
    list->shaped = shaped && known && nd == nhad && memcmp(dims, had, sizeof(long long) * (size_t)nd) == 0;
    if (list->shaped) {
        memcpy(list->ints, had, sizeof had);
        list->nints = nhad;
    }
}

/* Appends one element to a list being built: ints stay a tuple of ints,
 * modules add up; anything else makes the list unknown (a module in it
 * that cannot be read keeps `maybe_module`). */
void oom_mod_list_add(value *list, const value *item)
{
    if (list->kind == V_UNKNOWN)
        return;
    if (item->kind == V_INT && (list->kind == V_INTS || (list->kind == V_MODULE && list->i == 0)) &&
        list->nints < MAX_INTS) {
        list->kind = V_INTS;
        list->ints[list->nints++] = item->i;
        return;
    }
    if (list->kind == V_MODULE && (item->kind == V_MODULE || item->kind == V_NONE)) {
        if (item->kind == V_MODULE)
            oom_mod_add(&list->m, &item->m);
        list->i++;
        return;
    }
    long long n;
    bool plain = list->plain;
    if (item->kind != V_MODULE && !item->maybe_module && oom_mod_seq_len(list, &n)) {
        add_to_sequence(list, n, plain, item); /* strings, floats, tuples: how many, and their shape */
        return;
    }
    bool maybe = item->maybe_module;
    TSNode at = item->node;
    *list = unknown();
    list->maybe_module = maybe;
    list->node = at;
}

void oom_mod_list_extend(value *list, const value *items)
{
    value joined = oom_mod_arithmetic(list, items, "+");
    if (items->kind == V_SEQ || list->kind == V_SEQ) {
        *list = joined; /* unknown unless both are sequences */
        return;
    }
    if (items->kind == V_INTS) {
        for (int k = 0; k < items->nints; k++) {
            value one = int_value(items->ints[k]);
            oom_mod_list_add(list, &one);
        }
    } else if (items->kind == V_MODULE) {
        if (list->kind == V_MODULE) {
            oom_mod_add(&list->m, &items->m);
            list->i += items->i;
        } else if (!(list->kind == V_INTS && items->i == 0)) {
            *list = unknown();
        }
    } else {
        oom_mod_list_add(list, items);
    }
}

/* a literal this long or shorter keeps its items, for unpacking */
#define MAX_KEPT_ITEMS 8

value oom_mod_eval_sequence(ctx *c, frame *f, TSNode e)
{
    TSNode items[256];
    size_t n = oom_mod_kids(c, e, items, 256);
    value list = empty_list();
    list.plain = true;
    frame *kept = NULL;
    for (size_t i = 0; i < n; i++) {
        if (is(items[i], "list_splat")) {
            value inner = oom_mod_eval(c, f, ts_node_named_child(items[i], 0));
            oom_mod_list_extend(&list, &inner);
            kept = NULL;
            n = 0; /* positions after a splat are not known */
        } else {
            value item = oom_mod_eval(c, f, items[i]);
            oom_mod_list_add(&list, &item);
            if (n <= MAX_KEPT_ITEMS) {
                char pos[8];
                snprintf(pos, sizeof pos, "%zu", i);
                kept = kept ? kept : oom_mod_frame_new(c, NULL);
                oom_mod_set_attr(kept, pos, &item);
            }
        }
    }
    if (kept && !list.obj) {
        list.obj = kept;
        list.items = true;
    }
    return list;
}

value oom_mod_item(const value *seq, size_t i)
{
    char pos[8];
    snprintf(pos, sizeof pos, "%zu", i);
    var *v = seq->items && seq->obj ? oom_mod_find_var(seq->obj->attrs, seq->obj->nattrs, pos) : NULL;
    return v ? v->v : unknown();
}

/* {"a": nn.Linear(...), ...} and dict(a=...): modules with their names. */
static void add_named(value *d, const char *name, const value *item)
{
    oom_mod_list_add(d, item);
    if (d->kind == V_MODULE && item->kind == V_MODULE && d->m.nkids < MAX_KIDS) {
        oom_est_copy(d->m.kids[d->m.nkids].name, sizeof d->m.kids[0].name, name);
        d->m.kids[d->m.nkids++].weight = item->m.weight;
    }
}

value oom_mod_eval_dictionary(ctx *c, frame *f, TSNode e)
{
    TSNode pairs[128];
    size_t n = oom_mod_kids(c, e, pairs, 128);
    value d = empty_list();
    frame *entries = oom_mod_frame_new(c, NULL); /* each entry by its string key: `self.nets["resnet18"]` */
    for (size_t i = 0; i < n; i++) {
        if (!is(pairs[i], "pair"))
            return unknown();
        value key = oom_mod_eval(c, f, field(pairs[i], "key")), item = oom_mod_eval(c, f, field(pairs[i], "value"));
        add_named(&d, key.kind == V_STR ? key.s : "", &item);
        if (key.kind == V_STR)
            oom_mod_set_attr(entries, key.s, &item);
    }
    d.plain = true;
    d.obj = entries;
    return d;
}

/* range(a), range(a, b), range(a, b, step) into out; -1 when it cannot be
 * told or is longer than max. */
static long long iterate_range(ctx *c, frame *f, const TSNode *a, size_t n, value *out, long long max)
{
    long long v[3] = {0, 0, 1};
    for (size_t i = 0; i < n; i++) {
        value x = oom_mod_eval(c, f, a[i]);
        if (x.kind != V_INT)
            return -1;
        v[n == 1 ? 1 : i] = x.i;
    }
    if (v[2] == 0)
        return -1;
    long long count = 0;
    for (long long i = v[0]; v[2] > 0 ? i < v[1] : i > v[1]; i += v[2]) {
        if (count >= max)
            return -1;
        out[count++] = int_value(i);
    }
    return count;
}

long long oom_mod_iterate(ctx *c, frame *f, TSNode iter, value *out, long long max);

/* zip(a, b): tuples of the ints at each place, as long as the shortest;
 * -1 when an item is no int or a sequence cannot be told. */
static long long iterate_zip(ctx *c, frame *f, const TSNode *a, size_t n, value *out, long long max)
{
    long long count = -1;
    value *each = oom_xcalloc((size_t)max, sizeof *each);
    for (size_t k = 0; k < n; k++) {
        long long got = oom_mod_iterate(c, f, a[k], each, max);
        if (got < 0) {
            count = -1;
            break;
        }
        if (k == 0 || got < count)
            count = got;
        for (long long i = 0; i < got && i < max; i++) {
            if (each[i].kind != V_INT) {
                free(each);
                return -1;
            }
            if (k == 0) {
                out[i] = unknown();
                out[i].kind = V_INTS;
            }
            if (out[i].kind == V_INTS && out[i].nints == (int)k)
                out[i].ints[out[i].nints++] = each[i].i;
        }
    }
    free(each);
    return count;
}

/* The values a `for` (or a comprehension) runs over: range(), a tuple of
 * ints, a literal list (or a module-level name bound to one), enumerate() of
 * those; -1 when it cannot be told. */
long long oom_mod_iterate(ctx *c, frame *f, TSNode iter, value *out, long long max)
{
    if (is(iter, "call")) {
        char fn[16];
        TSNode a[4];
        size_t n = oom_mod_kids(c, field(iter, "arguments"), a, 4);
        if (!text(c, field(iter, "function"), fn, sizeof fn))
            return -1;
        if (strcmp(fn, "range") == 0 && n >= 1 && n <= 3)
            return iterate_range(c, f, a, n, out, max);
        if (strcmp(fn, "zip") == 0 && n >= 1 && n <= 4)
            return iterate_zip(c, f, a, n, out, max);
        if (strcmp(fn, "enumerate") == 0 && n == 1) {
            long long count = oom_mod_iterate(c, f, a[0], out, max);
            for (long long i = 0; i < count; i++) {
                if (out[i].kind != V_INT)
                    return -1;
                long long x = out[i].i;
                out[i] = unknown();
                out[i].kind = V_INTS;
                out[i].ints[0] = i, out[i].ints[1] = x, out[i].nints = 2;
            }
            return count;
        }
        return -1;
    }
    if (is(iter, "list") || is(iter, "tuple")) {
        TSNode items[256];
        size_t n = oom_mod_kids(c, iter, items, 256);
        if ((long long)n > max)
            return -1;
        for (size_t i = 0; i < n; i++)
            out[i] = oom_mod_eval(c, f, items[i]);
        return (long long)n;
    }
    char nm[48];
    if (name_of(c, iter, nm, sizeof nm) && !oom_mod_lookup(f, nm)) {
        TSNode bound = oom_pymodel_value_of(reader_of(c, iter)->m, iter, 0);
        if (is(bound, "list") || is(bound, "tuple"))
            return oom_mod_iterate(c, NULL, bound, out, max);
    }
    TSNode imported = is(iter, "identifier") || is(iter, "attribute") ? oom_mod_imported_value(c, f, iter)
                                                                      : OOM_EST_NULL_NODE;
    if (is(imported, "list") || is(imported, "tuple")) /* `cmudict.valid_symbols`, a project module's list */
        return oom_mod_iterate(c, NULL, imported, out, max);
    value v = oom_mod_eval(c, f, iter);
    if (v.kind != V_INTS)
        return -1;
    for (int i = 0; i < v.nints; i++)
        out[i] = int_value(v.ints[i]);
    return v.nints;
}

/* A long comprehension of numbers (a sinusoid table's rows: `[angle(p, j)
 * for j in range(d)]` for each of 1000 positions): its first and last
 * items, when both are numbers or rows of one shape, stand for all, so the
 * table's shape is had without running every item. False when the items
 * are anything else (modules are counted one by one). */
static bool numbers_alike(ctx *c, frame *inner, TSNode clause, TSNode body, const value *items, long long count,
                          value *out)
{
    value ends[2];
    long long dims[2][MAX_INTS];
    int nd[2];
    for (int k = 0; k < 2; k++) {
        oom_mod_bind_target(c, inner, field(clause, "left"), &items[k ? count - 1 : 0]);
        ends[k] = oom_mod_eval(c, inner, body);
        bool number = ends[k].kind == V_INT || ends[k].kind == V_FLOAT || ends[k].kind == V_BOOL ||
                      (ends[k].kind == V_UNKNOWN && !ends[k].maybe_module);
        if (number)
            nd[k] = 0;
        else if (!(ends[k].kind == V_SEQ || ends[k].kind == V_INTS) || !item_shape(&ends[k], dims[k], &nd[k]))
            return false;
    }
    if (nd[0] != nd[1] || memcmp(dims[0], dims[1], sizeof(long long) * (size_t)nd[0]) != 0)
        return false;
    *out = unknown();
    out->kind = V_SEQ;
    out->plain = true;
    out->shaped = true;
    out->i = count;
    memcpy(out->ints, dims[0], sizeof dims[0]);
    out->nints = nd[0];
    return true;
}

/* [Block(d) for _ in range(n)]: one for-clause, an optional if-clause. */
value oom_mod_eval_comprehension(ctx *c, frame *f, TSNode e)
{
    TSNode parts[8];
    size_t n = oom_mod_kids(c, e, parts, 8);
    TSNode body = field(e, "body"), clause = OOM_EST_NULL_NODE, cond = OOM_EST_NULL_NODE;
    for (size_t i = 0; i < n; i++) {
        if (is(parts[i], "for_in_clause")) {
            if (!ts_node_is_null(clause))
                return unknown(); /* nested loops */
            clause = parts[i];
        } else if (is(parts[i], "if_clause")) {
            cond = ts_node_named_child(parts[i], 0);
        }
    }
    if (ts_node_is_null(clause))
        return unknown();
    value *items = oom_xcalloc(MAX_ITER, sizeof *items);
    long long count = oom_mod_iterate(c, f, field(clause, "right"), items, MAX_ITER);
    value list = empty_list();
    list.plain = true;
    frame *inner = oom_mod_frame_new(c, f);
    if (count > 64 && ts_node_is_null(cond) && numbers_alike(c, inner, clause, body, items, count, &list)) {
        free(items);
        return list;
    }
    for (long long i = 0; i < count && list.kind != V_UNKNOWN; i++) {
        oom_mod_bind_target(c, inner, field(clause, "left"), &items[i]);
        int keep = 1;
        if (!ts_node_is_null(cond)) {
            value cv = oom_mod_eval(c, inner, cond);
            if (!oom_mod_truth(&cv, &keep)) {
                list = unknown();
                break;
            }
        }
        if (keep) {
            value item = oom_mod_eval(c, inner, body);
            oom_mod_list_add(&list, &item);
        }
    }
    free(items);
    if (count < 0 && ts_node_is_null(cond)) { /* ["@" + s for s in symbols]: as many as it runs over */
        value over = oom_mod_eval(c, f, field(clause, "right"));
        long long len;
        if (over.kind == V_SEQ && oom_mod_seq_len(&over, &len)) {
            list = unknown();
            list.kind = V_SEQ;
            list.plain = true;
            list.i = len;
            return list;
        }
    }
    if (count < 0) {
        oom_mod_unresolved(c, field(clause, "right"), "what a comprehension runs over");
        return unknown();
    }
    return list;
}

/* OrderedDict([("fc", nn.Linear(...)), ...]): the modules it holds, named. */
value oom_mod_ordered_dict(ctx *c, frame *f, TSNode call)
{
    TSNode items[256];
    TSNode list = oom_mod_arg(c, call, 0, NULL);
    value d = empty_list();
    d.plain = true;
    if (ts_node_is_null(list))
        return d;
    size_t n = oom_mod_kids(c, list, items, 256);
    for (size_t i = 0; i < n; i++) {
        if (!is(items[i], "tuple") || ts_node_named_child_count(items[i]) != 2)
            return unknown();
        value key = oom_mod_eval(c, f, ts_node_named_child(items[i], 0));
        value item = oom_mod_eval(c, f, ts_node_named_child(items[i], 1));
        add_named(&d, key.kind == V_STR ? key.s : "", &item);
    }
    return d;
}

value oom_mod_dict_call(ctx *c, frame *f, TSNode call)
{
    TSNode a[128];
    size_t n = oom_mod_kids(c, field(call, "arguments"), a, 128);
    value d = empty_list();
    d.plain = true;
    for (size_t i = 0; i < n; i++) {
        char key[32];
        if (!is(a[i], "keyword_argument") || !text(c, field(a[i], "name"), key, sizeof key))
            return unknown();
        value item = oom_mod_eval(c, f, field(a[i], "value"));
        add_named(&d, key, &item);
    }
    return d;
}

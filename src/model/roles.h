/* model/roles.h: what the files of the roles analysis share (roles.c asks;
 * rolememo.c keeps answers and conditions; roleclass.c knows the file's
 * classes; roleuse.c reads what code does with a value; rolefacts.c answers
 * the project pass). Not for other modules: they ask internal.h's
 * oom_model_module_role. */
#ifndef OOMLINT_MODEL_ROLES_H
#define OOMLINT_MODEL_ROLES_H

#include <string.h>

#include "oomlint/library.h"
#include "internal.h"

/* Work per top-level question: a parameter leads to call sites, each to an
 * argument's bindings, each maybe to another parameter; past this budget the
 * answer is unknown. */
#define ROLE_BUDGET 400
#define ROLE_MAX_DEPTH 24

typedef struct {
    const oom_pymodel *m;
    const oom_library *lib;
    int budget;
    /* what the answer waits on in other files of the project, one condition
     * a line ("module<TAB>pkg.mod<TAB>Class": that class is a module there;
     * "modarg<TAB>f<TAB>position<TAB>name": some file calls f with a module
     * there); an answer that waits is a module only once the project pass
     * confirms it */
    oom_buf cond;
    /* the search was cut short (its budget or depth ran out) somewhere
     * below: an answer reached so is no answer to keep in the memo, which
     * another question, with budget to spare, would read */
    bool cut;
    /* how many times the answer waited on another file, counting a
     * condition `cond` already held: an answer below that waited depends on
     * it even when `cond` did not grow, so it is no answer to keep either */
    unsigned waited;
} role_query;


/* Two answers about one value (two bindings reaching a read, two call
 * sites): a module on one path and nothing known against it on another is a
 * module; a module on one and a non-module on the other is unknown. */
static inline oom_role oom_roles_join(oom_role a, oom_role b)
{
    if (a == b)
        return a;
    if (a == OOM_ROLE_UNKNOWN)
        return b;
    if (b == OOM_ROLE_UNKNOWN)
        return a;
    return OOM_ROLE_UNKNOWN;
}

static inline bool oom_roles_spend(role_query *q, int depth)
{
    bool ok = depth <= ROLE_MAX_DEPTH && q->budget-- > 0;
    q->cut |= !ok;
    return ok;
}

/* Around a memoised sub-answer: whether it was reached without a cut (then
 * it may be kept), the caller's own cut carried on either way. */
static inline bool oom_roles_begin_memo(role_query *q)
{
    bool outer = q->cut;
    q->cut = false;
    return outer;
}

static inline bool oom_roles_end_memo(role_query *q, bool outer)
{
    bool whole = !q->cut;
    q->cut |= outer;
    return whole;
}

static inline bool oom_roles_is_type(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static inline bool oom_roles_is_self(const oom_pymodel *m, TSNode n)
{
    return !ts_node_is_null(n) && ts_node_symbol(n) == m->sym.identifier && oom_node_text_is(m, n, "self");
}


/* rolememo.c: answers kept per model, by kind of question, where and about what text */
enum { MEMO_ROLE = 1, MEMO_USED = 2, MEMO_CLASS = 3, MEMO_ATTR = 4, MEMO_ROLE_WAITING = 5, MEMO_BINDING = 6 };
/* an answer that waits on another file: worked out again each time it is asked */
#define MEMO_ASK_AGAIN 99

typedef struct {
    const char *text; /* NULL: empty slot */
    uint32_t len, at;
    unsigned char kind;
    signed char value;
    char *cond; /* MEMO_ROLE: what the answer waits on (role_query.cond); NULL for nothing */
} memo_slot;

memo_slot *oom_roles_memo_find(const oom_pymodel *m, int kind, uint32_t at, const char *text, uint32_t len);
void oom_roles_memo_put(const oom_pymodel *m, int kind, uint32_t at, const char *text, uint32_t len, int value);
/* The library wrappers (bit w: lib->wrappers[w], the first 64) whose
 * pattern the callee of the model's `call`-th call site matches. */
uint64_t oom_roles_call_wrappers(const oom_pymodel *m, const oom_library *lib, size_t call);
/* Keeps `cond` (owned from then on). */
void oom_roles_memo_put_cond(const oom_pymodel *m, int kind, uint32_t at, const char *text, uint32_t len, int value,
                             char *cond);
void oom_roles_cond_truncate(role_query *q, size_t len);
bool oom_roles_wait_on(role_query *q, const char *fmt, const char *a, size_t alen, const char *b, size_t blen, int n);

/* roles.c */
oom_role oom_roles_of(role_query *q, TSNode e, int depth);
TSNode oom_roles_argument_at(const oom_pymodel *m, TSNode call, int index, const char *keyword);

/* roleclass.c */
TSNode oom_roles_own_class(const oom_pymodel *m, const char *name, uint32_t len);
/* The file's class definitions listed (m->class_nodes), once. */
void oom_roles_list_classes(const oom_pymodel *m);
/* The value last assigned to `self.<attr>` in the class around `attr_expr`
 * (`from`: that class), or null (model/roles.c). */
TSNode oom_roles_self_attribute_value(const oom_pymodel *m, TSNode attr_expr, TSNode *from);
bool oom_roles_imported_class(const oom_pymodel *m, TSNode fn, const char *qual);
oom_role oom_roles_own_class_role(role_query *q, TSNode cls, int depth);

/* roleuse.c */
bool oom_roles_used_as_module(role_query *q, const char *text, uint32_t len, uint32_t start, uint32_t end);
bool oom_roles_takes_data(const oom_pymodel *m, TSNode call);

#endif

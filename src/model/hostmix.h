/* Private to model/hostmix.c and model/hostvalues.c: a host tensor's
 * question (where it goes, what it meets) and the helpers both halves use. */
#ifndef OOMLINT_MODEL_HOSTMIX_H
#define OOMLINT_MODEL_HOSTMIX_H

#include <string.h>

#include "internal.h"
#include "oomlint/library.h"

typedef struct {
    const oom_pymodel *m;
    const oom_library *lib;
    int budget;  /* nodes the question may still visit */
    TSNode sink; /* where it meets the device: the report's other place */
    /* followed into the file's own function (`ngram(x, pad)`): its scope and
     * the call that entered it, whose arguments say what its parameters are;
     * frame_scope -1 outside one */
    int frame_scope;
    TSNode frame_call;
    bool frame_method;
    /* the factory runs while the module is built (its constructor, a
     * method only the constructor calls): the module is on the host */
    bool constructing;
} mix_query;

typedef struct {
    mix_query *q;
    int depth;
} bind_ctx;

static inline bool spend(mix_query *q, int depth)
{
    return depth <= OOM_MODEL_MAX_DEPTH && q->budget-- > 0;
}

static inline bool is_type(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static inline bool same_node(TSNode a, TSNode b)
{
    return !ts_node_is_null(a) && !ts_node_is_null(b) && ts_node_start_byte(a) == ts_node_start_byte(b) &&
           ts_node_end_byte(a) == ts_node_end_byte(b) && ts_node_symbol(a) == ts_node_symbol(b);
}

static inline bool lists_text(const oom_strlist *list, const char *s, uint32_t len)
{
    return s && oom_library_lists(list, s, len);
}

/* model/hostvalues.c: what a call is, and which values are on the module's device */
bool oom_hostmix_qualname_in(const oom_pymodel *m, TSNode fn, const oom_strlist *list);
bool oom_hostmix_torch_function(const oom_pymodel *m, TSNode fn);
const char *oom_hostmix_method_of(const oom_pymodel *m, TSNode call, TSNode *recv, uint32_t *len);
TSNode oom_hostmix_first_positional(const oom_pymodel *m, TSNode call, size_t *count);
bool oom_hostmix_computes(const oom_pymodel *m, TSNode n);
bool oom_hostmix_query_computes(const mix_query *q, TSNode n);
TSNode oom_hostmix_scope_def(const oom_pymodel *m, int scope);
int oom_hostmix_scope_of(const oom_pymodel *m, TSNode n);
bool oom_hostmix_device_value(mix_query *q, TSNode e, int depth);
bool oom_hostmix_bound_on_device(const oom_pymodel *m, const oom_binding *b, void *ctx);
bool oom_hostmix_moves_to_device(mix_query *q, TSNode call, int depth);
/* The parameter identifier of `def` at `index` (self counted), or null. */
TSNode oom_hostmix_parameter_at(const oom_pymodel *m, TSNode def, uint32_t index);

#endif

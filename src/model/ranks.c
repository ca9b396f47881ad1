/* model/ranks: whether a value is the process's global rank, and whether
 * the file's ranks come from a launcher that may span nodes. A launcher
 * (torchrun, SLURM's srun, mpirun) numbers the processes of a job across
 * all its nodes: RANK runs from 0 to the world size, while each node has
 * only its own GPUs. The global rank used as a GPU index (`.cuda(rank)`,
 * `torch.cuda.set_device(dist.get_rank())`, `f"cuda:{rank}"`) names a GPU
 * that a node past the first does not have; the node-local index is
 * LOCAL_RANK, or the rank modulo the node's GPU count.
 *
 * Shown from the dataflow, never from a name: the value is a call the
 * knowledge base lists as giving the global rank, a read of a launcher's
 * global-rank variable from the environment, a cast of one (`int(...)`),
 * or a name every reaching binding of which is one. Arithmetic on it
 * (`rank % torch.cuda.device_count()`) is something else. */
#include <string.h>

#include "hostmix.h"
#include "internal.h"
#include "oomlint/library.h"

/* `os.environ["RANK"]`, `os.environ.get("RANK")`, `os.getenv("SLURM_PROCID", 0)`:
 * a read of one of `vars` from the environment. */
static bool reads_environment(const oom_pymodel *m, const oom_library *lib, TSNode e, const oom_strlist *vars)
{
    TSNode name = (TSNode){{0}, NULL, NULL};
    if (strcmp(ts_node_type(e), "subscript") == 0) {
        if (!oom_hostmix_qualname_in(m, oom_model_child(m, e, "value", 5), &lib->environment_mappings))
            return false;
        name = oom_model_child(m, e, "subscript", 9);
    } else if (ts_node_symbol(e) == m->sym.call &&
               oom_hostmix_qualname_in(m, oom_model_child(m, e, "function", 8), &lib->environment_readers)) {
        size_t count;
        name = oom_hostmix_first_positional(m, e, &count);
    } else {
        return false;
    }
    oom_buf text;
    oom_buf_init(&text);
    bool listed = oom_pymodel_string_value(m, name, &text) && oom_library_lists(vars, text.data, text.len);
    oom_buf_free(&text);
    return listed;
}

/* One question: the knowledge it reads, and the nodes it may still visit
 * (names bound on both sides of many branches would otherwise be walked
 * once per path); out of budget, the answer is no. */
typedef struct {
    const oom_library *lib;
    int budget;
} rank_query;

static bool global_rank(const oom_pymodel *m, rank_query *q, TSNode e, int depth);

typedef struct {
    rank_query *q;
    int depth;
    bool global; /* a binding that reaches holds the global rank */
} rank_walk;

/* A reaching binding that holds the global rank, or an integer literal (a
 * single-GPU fallback, `rank = 0`: index 0 exists on every node). */
static bool binding_is_global_rank(const oom_pymodel *m, const oom_binding *b, void *ctx)
{
    rank_walk *w = ctx;
    if (!b || b->kind != OOM_BIND_VALUE)
        return false;
    if (strcmp(ts_node_type(b->value), "integer") == 0)
        return true;
    bool g = global_rank(m, w->q, b->value, w->depth);
    w->global = w->global || g;
    return g;
}

/* A parameter every call of its function in the file binds to the global
 * rank (`train_and_evaluate(rank, ...)` from the function that read it). */
static bool argument_is_global_rank(const oom_pymodel *m, TSNode arg, TSNode call, void *ctx)
{
    (void)call;
    rank_walk *w = ctx;
    return global_rank(m, w->q, arg, w->depth);
}

static bool global_rank(const oom_pymodel *m, rank_query *q, TSNode e, int depth)
{
    if (ts_node_is_null(e) || depth > OOM_MODEL_MAX_DEPTH || q->budget-- <= 0)
        return false;
    if (strcmp(ts_node_type(e), "parenthesized_expression") == 0)
        return global_rank(m, q, ts_node_named_child(e, 0), depth + 1);
    if (ts_node_symbol(e) == m->sym.identifier) {
        rank_walk w = {q, depth + 1, false};
        if (oom_model_every_reaching_binding(m, e, binding_is_global_rank, &w) == 1 && w.global)
            return true;
        return oom_model_every_bound_argument(m, e, argument_is_global_rank, &w) == 1;
    }
    if (reads_environment(m, q->lib, e, &q->lib->global_rank_variables))
        return true;
    if (ts_node_symbol(e) != m->sym.call)
        return false;
    TSNode fn = oom_model_child(m, e, "function", 8);
    size_t count;
    TSNode first = oom_hostmix_first_positional(m, e, &count);
    if (oom_hostmix_qualname_in(m, fn, &q->lib->global_rank_calls))
        return ts_node_named_child_count(oom_model_child(m, e, "arguments", 9)) == 0; /* get_rank(group): the group's */
    return count == 1 && oom_hostmix_qualname_in(m, fn, &q->lib->value_keeping_builtins) &&
           global_rank(m, q, first, depth + 1); /* int(os.environ["RANK"]) */
}

bool oom_pymodel_is_global_rank(const oom_pymodel *m, TSNode e)
{
    rank_query q = {oom_library_get(), 256};
    return q.lib && m->nodes && global_rank(m, &q, e, 0);
}

/* Whether a call passes `rank=`: the script numbers the processes itself. */
static bool passes_rank(const oom_pymodel *m, TSNode call)
{
    oom_model_kids kids = oom_model_kids_of(m, oom_model_child(m, call, "arguments", 9));
    for (TSNode a; oom_model_next_kid(m, &kids, &a);)
        if (ts_node_symbol(a) == m->sym.keyword_argument && oom_node_text_is(m, oom_model_child(m, a, "name", 4), "rank"))
            return true;
    return false;
}

/* The file's processes are numbered by a launcher that may span nodes: it
 * reads a launcher's variable (RANK, LOCAL_RANK, WORLD_SIZE ...) or builds
 * its process group from the environment (no `rank=`), and starts no
 * processes itself (torch.multiprocessing.spawn numbers them on one node). */
bool oom_pymodel_ranks_from_launcher(const oom_pymodel *m)
{
    const oom_library *lib = oom_library_get();
    if (!lib || !m->nodes)
        return false;
    bool launcher = false;
    for (size_t i = 0; i < m->call_count; i++) {
        const oom_call_site *c = &m->calls[i];
        if (oom_hostmix_qualname_in(m, c->fn, &lib->process_spawners))
            return false;
        launcher = launcher || reads_environment(m, lib, c->node, &lib->launcher_variables) ||
                   (oom_hostmix_qualname_in(m, c->fn, &lib->process_group_initializers) && !passes_rank(m, c->node));
    }
    for (uint32_t i = 0; !launcher && i < m->nodes->len; i++)
        launcher = strcmp(ts_node_type(m->nodes->items[i].node), "subscript") == 0 &&
                   reads_environment(m, lib, m->nodes->items[i].node, &lib->launcher_variables);
    return launcher;
}

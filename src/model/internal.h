/* Private layout of the Python semantic model, shared by the files of src/model. */
#ifndef OOMLINT_MODEL_INTERNAL_H
#define OOMLINT_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "oomlint/lang.h"
#include "oomlint/library.h"
#include "oomlint/model.h"

/* Recursion through expressions and bindings stops here; a deeper chain is
 * treated as "unknown", which every rule reads as "stay quiet". */
#define OOM_MODEL_MAX_DEPTH 48

typedef struct {
    uint32_t start, end;
    int parent;        /* index of the enclosing scope; -1 for the module */
    const char *name;  /* points into the source; NULL for the module */
    uint32_t name_len;
    bool model_method; /* a method of an nn.Module or model class: the caller picks the grad mode */
    bool unit_test;    /* a unittest method, test_*: a test, not evaluation code */
    bool test_code;    /* any method of a class of tests (its helpers too) */
    int last_binding;  /* the scope's latest binding (index), -1 for none: the
                          head of its chain through oom_binding.prev */
    TSNode def;        /* the function_definition; null for the module */
    /* answered on the first question (-1 before): the function has a mode
     * parameter (`train=True`) the file passes False for where grad is on */
    signed char called_for_eval;
    const char *mode_param;
    uint32_t mode_param_len;
    /* answered on the first question (-1 before): its name, or the nearest
     * enclosing function's name that says either, has an evaluation word,
     * not a training one: where evaluation.c looks first, never what decides */
    signed char named_for_eval;
    /* answered on the first question (-1 before): a module-level function
     * the file calls only from a model's forward (a layer computation handed
     * to gradient checkpointing) */
    signed char forward_helper;
} oom_scope;

typedef struct {
    uint32_t start, end; /* the loop body */
    int scope;
    TSNode iterable; /* what a `for` loop iterates; null for `while` */
} oom_loop;


typedef struct {
    uint32_t start, end;
    oom_grad_state state;
} oom_grad_region;

typedef enum {
    OOM_BIND_VALUE,     /* name = value */
    OOM_BIND_UNPACK,    /* a, name = value */
    OOM_BIND_AUGMENTED, /* name += value: updates, does not create */
    OOM_BIND_OPAQUE,    /* parameter, import ...: value unknown */
    OOM_BIND_ITER,      /* for name in value: an element of value (`value` is the iterable) */
} oom_bind_kind;

typedef struct {
    int scope;
    const char *name;
    uint32_t name_len;
    uint32_t pos;      /* where the binding takes effect */
    oom_bind_kind kind;
    TSNode value;      /* valid unless kind is OOM_BIND_OPAQUE */
    int prev;          /* the scope's binding recorded before this one, -1 for none:
                          a look-up walks its scope's chain, not every binding */
} oom_binding;

typedef struct {
    char *local;
    char *qualified;
    uint32_t local_len; /* compared first: every qualified name looks its base up */
} oom_alias;

typedef struct {
    int scope;
    uint32_t pos;
    bool is_eval; /* x.eval() / x.train(False) vs x.train() */
    const char *receiver; /* the text of x */
    uint32_t receiver_len;
} oom_mode_marker;

typedef struct {
    int scope;
    const char *name;
    uint32_t name_len;
    bool direct; /* what backward is called on (`loss` in loss.backward()), not a
                    name read inside that expression (`ce` in (ce + kl).backward()) */
} oom_name_ref;

typedef struct {
    const char *name; /* callee's last name: f(...) or self.f(...) */
    uint32_t name_len;
    uint32_t pos;
    TSNode node; /* the call */
    TSNode fn;   /* its `function` child, kept: the roles read it for every call they scan */
} oom_call_site;

typedef struct {
    int scope;
    uint32_t start, end;
} oom_site;

typedef struct {
    uint32_t start, end; /* the handler's block */
    bool catches_oom;    /* OutOfMemoryError, or RuntimeError tested for "out of memory" */
    uint32_t try_start, try_end; /* the body of the try statement it belongs to */
} oom_handler;

typedef struct {
    const char *name;
    uint32_t name_len;
    TSNode value;
} oom_keyword;

typedef struct {
    int scope;
    TSNode value;
} oom_return;

/* A method that adds one of its parameters into its object's state
 * (`def update(self, val, n=1): self.sum += val * n`): calling it with a
 * tensor that has a graph accumulates the graph, as `total += loss` does. */
typedef struct {
    const char *method;
    uint32_t method_len;
    const char *param; /* the parameter's name */
    uint32_t param_len;
    int index; /* its position among the parameters after self */
} oom_accumulator;

/* Bindings one question has looked at: seen[i] == stamp for binding i.
 * A new question takes a new stamp instead of clearing the array. */
typedef struct {
    uint32_t *seen;
    uint32_t stamp;
} oom_visit;

/* ---- control flow and reaching definitions (model/flow.c) ---- */

/* One block of a body's control-flow graph: the evaluation of a simple
 * statement or of a compound statement's head (anchored at a range of the
 * laid-out node array), or a join of paths (no anchor). */
typedef struct {
    uint32_t anchor, anchor_end;   /* node-array range; UINT32_MAX for a join */
    uint32_t succ, succ_count;     /* its successors, in oom_flow_unit.succs */
    uint32_t first_def, def_count; /* its definitions, in oom_flow_unit.block_defs, in order of effect */
} oom_flow_block;

/* A place that binds a local name (or unbinds it: `del`). */
typedef struct {
    const char *name; /* into the source */
    uint32_t name_len;
    uint32_t effect;  /* the byte from which it holds (after `x = f(x)` reads x) */
    uint32_t block;
    uint32_t group;   /* its name's index among the unit's names */
    TSNode site;      /* the identifier it binds */
    int binding;      /* the same place among oom_pymodel.bindings, or -1 (with/except as, import, def, del) */
    bool deletes;
} oom_flow_def;

typedef struct {
    const char *text; /* into the source */
    uint32_t len;
} oom_flow_name;

/* The graph and reaching definitions of one function body (or the module's). */
typedef struct {
    signed char state; /* 0: not built yet; 1: built; -1: not analysed (no layout, too large) */
    oom_flow_block *blocks;
    uint32_t block_count;
    uint32_t *succs;
    uint32_t *block_defs;  /* indices into defs */
    oom_flow_def *defs;    /* sorted by name: a name's definitions are one run (a group) */
    uint32_t def_count;
    uint32_t *group_first; /* each group's first definition; group_count + 1 entries */
    uint32_t group_count;
    uint32_t *anchored;    /* blocks with an anchor, by anchor */
    uint32_t anchored_count;
    uint64_t *in;          /* per block, `words` words: the definitions reaching its start */
    uint32_t words;
    oom_flow_name *nonlocals; /* names declared global or nonlocal: not local */
    uint32_t nonlocal_count;
} oom_flow_unit;

#define OOM_FLOW_MAX_REACH 32

typedef struct {
    oom_flow_answer answer;
    int scope;                /* OOM_FLOW_LOCAL: the scope whose body it is read in */
    bool may_be_unbound;      /* a path from the body's entry (or a `del`) binds nothing */
    uint32_t count;           /* reaching definitions; only the first OOM_FLOW_MAX_REACH are in defs */
    const oom_flow_def *defs[OOM_FLOW_MAX_REACH];
} oom_flow_reach;

/* The definitions that may reach the identifier `use`, read where it
 * stands. Needs the laid-out tree (m->nodes); builds the graph of the body
 * on the first question about it. */
void oom_model_reaching(const oom_pymodel *m, TSNode use, oom_flow_reach *r);
void oom_model_flow_free(oom_pymodel *m);
bool oom_model_reaching_bindings(const oom_pymodel *m, TSNode use, oom_flow_reach *r);
/* Whether every binding that may reach `use` holds `holds` (a binding the
 * flow knows of but the model has no record of comes as NULL): 1 when all
 * do, 0 when one does not or a path leaves the name unbound, -1 when the
 * flow cannot say (oom_model_reaching_bindings false; the caller falls back
 * to the nearest binding above, or gives up). Shown for every path, not assumed. */
typedef bool (*oom_binding_test)(const oom_pymodel *m, const oom_binding *b, void *ctx);
int oom_model_every_reaching_binding(const oom_pymodel *m, TSNode use, oom_binding_test holds, void *ctx);

typedef struct {
    TSSymbol function_definition, class_definition, decorated_definition, decorator,
        for_statement, while_statement, with_statement, with_item, expression_statement,
        import_statement, import_from_statement, aliased_import, dotted_name, global_statement, nonlocal_statement,
        assignment, augmented_assignment, named_expression, call, attribute, identifier,
        pattern_list, tuple_pattern, list_pattern, parameters, lambda, keyword_argument,
        except_clause, if_statement, string, block, tuple, conditional_expression, return_statement;
    /* the fields the model asks for, by name (oom_model_field) */
    TSFieldId f_alias, f_arguments, f_attribute, f_body, f_condition, f_function, f_left, f_module_name,
        f_name, f_object, f_parameters, f_right, f_superclasses, f_value;
} oom_py_symbols;

struct oom_pymodel {
    const char *src;
    size_t len;
    TSNode root;
    /* the tree laid out, while the linter holds it (NULL otherwise): field
     * children are looked up there, not through tree-sitter */
    const oom_nodes *nodes;
    uint32_t at; /* the walk's node in `nodes`, tried first by look-ups */
    oom_py_symbols sym;
    oom_scope *scopes;
    size_t scope_count, scope_cap;
    oom_loop *loops;
    size_t loop_count, loop_cap;
    oom_grad_region *regions;
    size_t region_count, region_cap;
    oom_binding *bindings;
    size_t binding_count, binding_cap;
    oom_alias *aliases;
    size_t alias_count, alias_cap;
    oom_mode_marker *markers;
    size_t marker_count, marker_cap;
    oom_name_ref *backward_targets;
    size_t backward_count, backward_cap;
    oom_call_site *calls;
    size_t call_count, call_cap;
    /* the calls are in source order (the walk visits a call before its
     * arguments, siblings left to right): a range of them is found by
     * binary search (oom_model_first_call_from); checked once, after the walk */
    bool calls_in_order;
    oom_site *cuda_inits; /* calls that initialise CUDA */
    size_t cuda_init_count, cuda_init_cap;
    oom_site *backward_calls; /* .backward(), torch.autograd.backward/grad */
    size_t backward_call_count, backward_call_cap;
    oom_handler *handlers;
    size_t handler_count, handler_cap;
    oom_site *guards; /* if statements with a condition that is not a constant */
    size_t guard_count, guard_cap;
    oom_return *returns; /* `return value` statements */
    size_t return_count, return_cap;
    oom_site *declarations; /* `global` and `nonlocal` statements, in the scope they declare for */
    size_t declaration_count, declaration_cap;
    oom_accumulator *accumulators;
    size_t accumulator_count, accumulator_cap;
    oom_keyword *keywords;
    size_t keyword_count, keyword_cap;
    bool distributed; /* init_process_group, DDP, LOCAL_RANK / local_rank */
    bool loads_lm_head; /* calls a class with an LM head (or its from_pretrained), or SFTTrainer */
    bool loads_diffusion_model; /* calls a diffusers text-conditioned denoiser or pipeline (or its from_*) */
    signed char trains; /* oom_pymodel_file_trains, answered once when first asked; -1 before */
    signed char converts; /* oom_pymodel_only_converts_weights, the same way */
    signed char infers;   /* oom_pymodel_only_infers, the same way */
    bool main_guard; /* `if __name__ == "__main__":` at module level: a script */
    bool ml_imports;  /* imports a deep-learning package, or a module of its own project */
    oom_strlist pretrained_ids;
    int *pretrained_scopes; /* the scope each id was loaded in */
    size_t pretrained_scope_cap;
    oom_flow_unit *flows; /* per scope, each built on the first question (model/flow.c); NULL before */
    oom_nodes own_nodes;  /* the layout oom_pymodel_build made, kept for the flow questions */
    /* the bindings one top-level question of an analysis has looked at
     * already, so that loops and joins of bindings are followed once each,
     * not once per path: graph-carrying values (history.c), device
     * outputs (device.c) */
    oom_visit carry_visit;
    oom_visit device_visit;
    oom_visit host_visit;          /* what a torch.save writes (checkpoints.c): bindings */
    oom_visit host_function_visit; /* ... and the file's functions it returns through, by scope */
    /* a value made without history (history.c): the bindings one question
     * has entered, and those it proved; entered but not proved is "no" */
    oom_visit free_entered;
    oom_visit free_proved;
    /* build.c: the class of the methods being walked and what it is (model
     * code, tests). A class's methods follow each other in the walk, so its
     * bases and body are read once for all of them, not once per method;
     * again only if an import met in between could change what a base
     * names. */
    struct {
        const void *id; /* the class_definition's node id; NULL before the first */
        size_t alias_count; /* the imports known when it was read */
        bool model, test;
    } method_class;
    /* roles.c: answers already given (roles asked of the same expression,
     * uses of the same name in the same region), freed with the model */
    struct oom_role_memo *role_memo;
    /* per call site, the library wrappers whose pattern its callee's
     * qualified name matches (bit w: wrappers[w]); computed on first use,
     * since the roles ask it of every call for every name they follow */
    uint64_t *call_wrappers;
    /* per call site, the texts that would make a name used as a module there
     * (roleuse.c), read once: the roles ask every call of a region for every
     * name they follow */
    struct oom_use_site *use_sites;
    struct oom_source_span *use_site_args; /* the wrapped arguments' spans, all sites */
    size_t use_site_arg_count;
    /* the file's class definitions, in order (indices into nodes), listed on
     * first use: the roles look a class up by name for every call they follow */
    uint32_t *class_nodes;
    uint32_t class_count;
    bool classes_listed;
    /* needsgrad.c: per listed class, whether it differentiates in its own
     * code (listed on first use) */
    unsigned char *differentiating;
    bool differentiating_listed;
    /* where a module role that waits on another file says so, while a
     * predicate is asked (oom_pymodel_collect_pending); NULL otherwise */
    oom_buf *pending_conditions;
    /* whether the file shows a way onto a GPU (gpuuse.c), read on first use */
    bool gpu_use_read, gpu_use;
    /* set when a role question asked without waiting met a condition it
     * could have waited on: only then is a predicate asked again waiting
     * (oom_pymodel_take_would_wait) */
    bool would_wait;
    /* what the current answer assumes of another file of the project, one
     * condition a line (oom_pymodel_collect_conditions); NULL when no one
     * collects them */
    oom_buf *conditions;
};

/* A field's id from its name. The names are literals at every call, so once
 * this is inlined the comparisons fold away and a look-up is one load. */
static inline TSFieldId oom_model_field(const oom_pymodel *m, const char *f, uint32_t len)
{
    const oom_py_symbols *s = &m->sym;
#define OOM_MODEL_FIELD(name) \
    if (len == sizeof(#name) - 1 && memcmp(f, #name, len) == 0) \
        return s->f_##name;
    OOM_MODEL_FIELD(alias) OOM_MODEL_FIELD(arguments) OOM_MODEL_FIELD(attribute) OOM_MODEL_FIELD(body)
    OOM_MODEL_FIELD(condition) OOM_MODEL_FIELD(function) OOM_MODEL_FIELD(left) OOM_MODEL_FIELD(module_name)
    OOM_MODEL_FIELD(name) OOM_MODEL_FIELD(object) OOM_MODEL_FIELD(parameters) OOM_MODEL_FIELD(right)
    OOM_MODEL_FIELD(superclasses) OOM_MODEL_FIELD(value)
#undef OOM_MODEL_FIELD
    return oom_lang_field_id(oom_lang_grammar(OOM_LANG_PYTHON), f, len);
}

/* oom_child through the model's node array when it has one. */
static inline TSNode oom_model_child(const oom_pymodel *m, TSNode n, const char *field, uint32_t len)
{
    if (!m->nodes || ts_node_is_null(n))
        return oom_child(n, field, len);
    return oom_nodes_child(m->nodes, n, oom_model_field(m, field, len), m->at);
}

/* ts_node_named_child through the model's node array when it has one. */
static inline TSNode oom_model_named_child(const oom_pymodel *m, TSNode n, uint32_t index)
{
    if (!m->nodes || ts_node_is_null(n))
        return ts_node_named_child(n, index);
    return oom_nodes_named_child(m->nodes, n, index, m->at);
}

/* A node's named children, one after another:
 *     oom_model_kids k = oom_model_kids_of(m, node);
 *     for (TSNode child; oom_model_next_kid(m, &k, &child);) ...
 * Through the node array each step moves to the next sibling, where
 * oom_model_named_child(m, node, i) for i = 0, 1, ... starts from the first
 * child every time (quadratic in a class body or a long argument list).
 * Without the array (or for a node not in it) it asks tree-sitter by index. */
typedef struct {
    TSNode parent;
    uint32_t index;    /* named children returned so far */
    uint32_t kid, end; /* in the array: the next child to look at, and the parent's end;
                          UINT32_MAX when tree-sitter is asked instead */
} oom_model_kids;

static inline oom_model_kids oom_model_kids_of(const oom_pymodel *m, TSNode n)
{
    oom_model_kids k = {n, 0, UINT32_MAX, UINT32_MAX};
    uint32_t at = m->nodes && !ts_node_is_null(n) ? oom_nodes_find_near(m->nodes, n, m->at) : UINT32_MAX;
    if (at != UINT32_MAX) {
        k.kid = at + 1;
        k.end = m->nodes->items[at].end;
    }
    return k;
}

static inline bool oom_model_next_kid(const oom_pymodel *m, oom_model_kids *k, TSNode *out)
{
    if (k->end == UINT32_MAX) { /* no layout: by index */
        if (ts_node_is_null(k->parent) || k->index >= ts_node_named_child_count(k->parent))
            return false;
        *out = ts_node_named_child(k->parent, k->index++);
        return true;
    }
    k->kid = oom_nodes_next_named(m->nodes, k->kid, k->end);
    if (k->kid >= k->end)
        return false;
    *out = m->nodes->items[k->kid].node;
    k->kid = m->nodes->items[k->kid].end;
    k->index++;
    return true;
}

/* ts_node_parent through the model's node array when it has one. */
static inline TSNode oom_model_parent(const oom_pymodel *m, TSNode n)
{
    return m->nodes ? oom_nodes_parent(m->nodes, n, m->at) : ts_node_parent(n);
}

static inline const char *oom_node_text(const oom_pymodel *m, TSNode n, uint32_t *len)
{
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    *len = e - s;
    return m->src + s;
}

static inline bool oom_node_text_is(const oom_pymodel *m, TSNode n, const char *lit)
{
    uint32_t len;
    const char *t = oom_node_text(m, n, &len);
    return strlen(lit) == len && memcmp(t, lit, len) == 0;
}

/* The last name of a reference: `x` in `x` and in `a.b.x`; NULL (and *len 0)
 * for any other expression. */
static inline const char *oom_node_last_name(const oom_pymodel *m, TSNode n, uint32_t *len)
{
    *len = 0;
    if (!ts_node_is_null(n) && ts_node_symbol(n) == m->sym.attribute)
        n = oom_child(n, "attribute", 9);
    if (ts_node_is_null(n) || ts_node_symbol(n) != m->sym.identifier)
        return NULL;
    return oom_node_text(m, n, len);
}

int oom_model_scope_at(const oom_pymodel *m, uint32_t pos);
/* A class (or its from_pretrained) with a language-modelling head:
 * AutoModelForCausalLM, GPT2LMHeadModel, T5ForConditionalGeneration ... */
bool oom_model_is_lm_class_name(const char *qualname);
/* A name's value where it is read: the last plain binding before it in its
 * scope, else the module's last one; a null node when it has none. */
TSNode oom_model_bound_value(const oom_pymodel *m, TSNode name);
/* Whether the file trains (see oom_pymodel_file_trains), from the walk's facts. */
bool oom_model_compute_trains(const oom_pymodel *m);
const oom_binding *oom_model_last_binding(const oom_pymodel *m, int scope, const char *name,
                                          uint32_t name_len, uint32_t before,
                                          bool skip_augmented);
/* The binding of `name` visible at `before` in `scope`, as Python resolves
 * it: the scope's own last binding before that point, else the last binding
 * of each enclosing function in turn (a closure reads its outer function's
 * names), else the module's. Class bodies are not scopes here, so a method
 * does not see its class's names, as in Python. */
const oom_binding *oom_model_visible_binding(const oom_pymodel *m, int scope, const char *name,
                                            uint32_t name_len, uint32_t before, bool skip_augmented);
oom_grad_state oom_model_grad_state_at(const oom_pymodel *m, uint32_t pos);
/* "torch.no_grad"-like calls: the grad state a `with` or decorator of this
 * expression sets, or -1 when it is not a grad-mode switch. */
int oom_model_grad_switch(const oom_pymodel *m, TSNode expr);
const oom_binding *oom_model_def_binding(const oom_pymodel *m, const oom_flow_def *d);
void oom_model_visit_begin(oom_visit *v);
bool oom_model_visit_first(const oom_pymodel *m, oom_visit *v, const oom_binding *b);
bool oom_model_name_is_model_like(const char *name, size_t len);
/* roles.c: what a value is, from where it comes from and how it is used
 * (constructors, wrappers and module-only methods from the library
 * knowledge; assignments, `self.` attributes, containers, returns,
 * parameters bound at the file's call sites), never from its name. */
typedef enum {
    OOM_ROLE_UNKNOWN,    /* no evidence either way: the rules stay quiet */
    OOM_ROLE_MODULE,     /* a module with parameters: calling it runs a forward */
    OOM_ROLE_NOT_MODULE, /* a tokenizer, a config, a loss or activation, a literal ... */
} oom_role;
oom_role oom_model_module_role(const oom_pymodel *m, TSNode expr);
/* callsites.c: the position of `def`'s parameter `name` (self counted),
 * its node in *param (may be NULL); -1 when absent or after a splat. */
int oom_model_parameter_index(const oom_pymodel *m, TSNode def, const char *name, uint32_t len, TSNode *param);
/* For the identifier `id`, a parameter of a plain function of the file read
 * where it stands: whether every call of that function in the file binds to
 * it an argument that holds `holds` (given the argument and the call): 1
 * when all do, 0 when one does not or binds none (a default, a splat), -1
 * when `id` is no such parameter or the file never calls the function. */
typedef bool (*oom_argument_test)(const oom_pymodel *m, TSNode arg, TSNode call, void *ctx);
int oom_model_every_bound_argument(const oom_pymodel *m, TSNode id, oom_argument_test holds, void *ctx);
/* The file's own function or method a call runs (`f(...)`, `self.f(...)`,
 * the `function` child given): its scope, or -1. */
int oom_model_called_scope(const oom_pymodel *m, TSNode fn);
/* The index of the first call at or after byte `pos` (0 when the calls are
 * not in source order: the caller's own range test then does the work). */
size_t oom_model_first_call_from(const oom_pymodel *m, uint32_t pos);
/* `scope` runs a backward (or torch.autograd.grad) between the byte
 * positions `from` and `until`, itself or in a function of the file it calls
 * there (`self.cac_grad(loss, ...)` whose body differentiates `loss`). */
bool oom_model_differentiates_between(const oom_pymodel *m, int scope, uint32_t from, uint32_t until);
void oom_model_roles_free(oom_pymodel *m);
/* roleclass.c: the file's class `cls` is a module by this file's evidence
 * (a library module base, through the file's own bases, or a forward over a
 * base from elsewhere). */
bool oom_model_class_is_module(const oom_pymodel *m, TSNode cls);
/* history.c: the class_definition a method scope belongs to (through a
 * decorated_definition); null for a function. */
TSNode oom_model_class_of_scope(const oom_pymodel *m, const oom_scope *sc);
/* A module's methods that run its forward (`encode_image`, `forward_features`),
 * from the library knowledge. */
bool oom_model_is_module_forward_method(const char *name, size_t len);
/* history.c: `self.X(...)` where the file defines the method X (not a
 * property): its scope, else -1 */
int oom_model_own_method_called(const oom_pymodel *m, TSNode fn);
bool oom_model_text_in(const char *s, size_t len, const char *const *set);
/* history.c: attributes without autograd history (metadata, .data, .grad);
 * fields of a model's output that the forward produces */
extern const char *const oom_model_history_free_attributes[];
extern const char *const oom_model_output_fields[];
bool oom_model_name_is_loss_like(const char *name, size_t len);
/* checkpoints.c: `X.load_state_dict(...)` keeps no second copy of what it
 * is given: X is an optimizer (it adopts the loaded tensors, cast to each
 * parameter's device and dtype: a no-op for tensors already there), an LR
 * scheduler or a GradScaler (Python numbers). Known from the constructor a
 * name is bound to, else from the name (`optimizer`, `self.lr_scheduler`,
 * `scaler`). */
bool oom_model_load_keeps_no_copy(const oom_pymodel *m, TSNode load_state_dict_call);

/* The forward call's result leaves its function with its history: it is
 * returned, or stored into an attribute or item, as it is or through the
 * function's assignments (model/results.c). Whether it reaches a backward
 * is then the caller's to say. */
bool oom_model_forward_result_leaves(const oom_pymodel *m, int scope, TSNode call);
/* The function hands the forward's result back to its caller as it is, alone
 * or in a tuple, list or dict it returns (`return images, labels`), not made
 * into something else by a call (`return to_numpy(out)`). */
bool oom_model_forward_result_handed_back(const oom_pymodel *m, int scope, TSNode call);
/* The forward builds its graph for nothing: no backward in its function, its
 * result neither leaves nor is handed to a call that could keep it. */
bool oom_model_forward_graph_unused(const oom_pymodel *m, int scope, TSNode call);

/* The name a forward calls is bound, on every path, to a module frozen where
 * it is built (`....eval().requires_grad_(False)`): its outputs carry the
 * history of their inputs only (model/grad.c). */
bool oom_model_bound_frozen(const oom_pymodel *m, TSNode callee);
/* The file may set a default device (a call of values.default_device_functions,
 * `torch.set_default_device("cuda")`): a module or tensor made without a
 * device may then be on the GPU (model/placement.c). */
bool oom_model_may_set_default_device(const oom_pymodel *m, const oom_library *lib);

#endif

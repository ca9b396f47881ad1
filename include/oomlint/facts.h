/* facts: what the project pass needs to know of each file, taken while a
 * worker thread holds the file's model, so no file is read or parsed twice.
 * The project pass joins them (project/callers.c). */
#ifndef OOMLINT_FACTS_H
#define OOMLINT_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oomlint/diag.h"
#include "oomlint/estimate.h"
#include "oomlint/model.h"
#include "oomlint/notebook.h"
#include "oomlint/util.h"

typedef struct {
    size_t name; /* offset of the NUL-terminated name in oom_file_facts.names */
    bool grad_off;
    /* the arguments given as a literal False: positions (bits, below 32)
     * and keywords (offset of a comma-separated list in names) */
    uint32_t false_positions;
    size_t false_keywords;
    /* the arguments that are modules by the file's own evidence, likewise */
    uint32_t module_positions;
    size_t module_keywords;
    /* how the call names its callee (oom_callee_kind), and for an import
     * the module's dotted name (offset in names; "" otherwise) */
    signed char callee;
    size_t callee_module;
    /* the function the call stands in (its last name; "" at module level):
     * a call with autograd on inside a function that itself only runs
     * without grad runs without grad too */
    size_t caller;
    /* what it passes: every keyword's name (offset of a comma-separated
     * list in names), how many positional arguments, whether a splat that
     * may hold any: a parameter off by default is on only where a call
     * passes it (oom_pymodel_may_run) */
    size_t keywords;
    uint32_t positional;
    bool splat;
} oom_call_fact;

/* A method that adds one of its parameters into its object
 * (`def update(self, val, n=1): self.sum += val * n`). */
typedef struct {
    size_t method, param; /* offsets of NUL-terminated names in oom_file_facts.names */
    int index;            /* the parameter's position after self */
} oom_accumulator_fact;

typedef struct {
    /* every call of a function or method by its last name (`step` in
     * `step(x)`, `self.step(x)`, `trainer.step(x)`), and whether autograd
     * is off where the call stands (no_grad, inference_mode, a function
     * only called without grad); the names in one buffer, not one
     * allocation each */
    oom_buf names;
    oom_call_fact *calls;
    size_t call_count, call_cap;
    /* the file's accumulating methods, for callers in other files */
    oom_accumulator_fact *accumulators;
    size_t accumulator_count, accumulator_cap;
    /* the file's classes whose forward runs entirely without grad, each
     * name NUL-terminated, for the files that import them
     * (oom_pymodel_no_grad_forward_classes) */
    oom_buf no_grad_forward_classes;
    /* the file's classes that are modules (oom_pymodel_module_classes),
     * for the files that import them */
    oom_buf module_classes;
    /* the file's module classes whose own code differentiates
     * (oom_pymodel_differentiating_classes), for the files that call them */
    oom_buf differentiating_classes;
    /* the file's code shows a way onto a GPU (oom_pymodel_shows_gpu_use):
     * a finding waiting on OOM_GPU_USE_CONDITION needs one such file */
    bool shows_gpu_use;
    /* the file's findings that wait on another file's accumulating method
     * (oom_diag.needs_project) */
    oom_diag_list pending;
    /* the memory estimate's inputs (taken only when a target GPU is known);
     * NULL otherwise */
    oom_script_inputs *inputs;
    /* the DeepSpeed configs the script hands to TrainingArguments, with the
     * values the Trainer compares (project/deepspeed.c); NULL when none */
    struct oom_ds_links *deepspeed;
    /* a notebook's map from its module's lines to its cells, for the
     * project findings made in it (the project pass places them); NULL for
     * a file */
    oom_notebook *notebook;
} oom_file_facts;

/* One call: its callee's last name, whether autograd is off there, its
 * literal False arguments (positions as bits, keywords comma-separated),
 * and how it names the callee (module: the imported module, or ""). */
typedef struct {
    bool grad_off;
    uint32_t false_positions;
    const char *false_keywords;
    oom_callee_kind callee;
    const char *callee_module;
    uint32_t module_positions;
    const char *module_keywords;
    const char *caller; /* the enclosing function's name, "" at module level (NULL: "") */
    const char *keywords; /* every keyword passed, comma-separated (NULL: "") */
    uint32_t positional;
    bool splat;
} oom_call_shape;
void oom_file_facts_add_call(oom_file_facts *f, const char *name, size_t len, const oom_call_shape *shape);
/* Every call of the file's model, with its grad state, and its accumulating methods. */
void oom_file_facts_take_calls(oom_file_facts *f, const oom_pymodel *m);
void oom_file_facts_free(oom_file_facts *f);

#endif

/* model: what a Python file means, as far as the rules need to know, built in
 * one walk of its syntax tree: imports and aliases, function scopes, loops,
 * where autograd is switched off, simple bindings, train/eval switches. Rules
 * ask it questions ("is this call torch.no_grad?", "does this value carry an
 * autograd graph?") instead of matching spellings. */
#ifndef OOMLINT_MODEL_H
#define OOMLINT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

#include "oomlint/nodes.h"

#include "oomlint/util.h"

typedef struct oom_pymodel oom_pymodel;

typedef enum {
    OOM_GRAD_ENABLED = 0,
    OOM_GRAD_DISABLED,       /* no_grad, inference_mode, set_grad_enabled(False) */
    OOM_GRAD_MAYBE_DISABLED, /* set_grad_enabled(<expression>): unknown statically */
} oom_grad_state;

/* The tree and source must outlive the model. */
oom_pymodel *oom_pymodel_build(const TSTree *tree, const char *src, size_t len);
/* The same from the tree's nodes laid out already (the linter lays them out
 * once for the model and the rule matcher alike). */
oom_pymodel *oom_pymodel_build_from(const oom_nodes *nodes, const char *src, size_t len);
void oom_pymodel_free(oom_pymodel *m);

/* Dotted name an expression refers to once import aliases are applied:
 * with `import torch as T`, `T.nn.DataParallel` -> "torch.nn.DataParallel";
 * with `from torch import no_grad`, `no_grad` -> "torch.no_grad". Names that
 * are not imported resolve to themselves. Returns false (and leaves `out`
 * empty) for expressions that are not dotted names. */
bool oom_pymodel_qualname(const oom_pymodel *m, TSNode expr, oom_buf *out);

/* How a call names its callee, for joining calls with functions in other
 * files: through an import (`run_epoch` from `from engine import run_epoch`,
 * `engine.run_epoch`), as a method of some object (`self.step`,
 * `trainer.step`), a function the file defines, or a plain name from
 * nowhere the file says (a relative or star import, a builtin). */
typedef enum {
    OOM_CALLEE_UNRESOLVED = -1,
    OOM_CALLEE_METHOD = 0,
    OOM_CALLEE_IMPORTED = 1,
    OOM_CALLEE_LOCAL = 2,
} oom_callee_kind;
/* Call i's kind (oom_pymodel_call_at); for an import, `module` gets the
 * module it names ("engine", "pkg.engine"), otherwise it is left empty. */
oom_callee_kind oom_pymodel_call_callee(const oom_pymodel *m, size_t i, oom_buf *module);

bool oom_pymodel_in_loop(const oom_pymodel *m, TSNode node);
/* A name its function declares `global` or `nonlocal`: storage that outlives
 * the call, which each call of the function adds to. */
bool oom_pymodel_declared_outside(const oom_pymodel *m, TSNode name);
oom_grad_state oom_pymodel_grad_state(const oom_pymodel *m, TSNode node);
/* Evaluation code: a function named for evaluation (eval, validate, test,
 * predict, infer, score ... as a word part), or code after `x.eval()` and
 * before `x.train()` in the same function. */
bool oom_pymodel_is_eval_code(const oom_pymodel *m, TSNode node);
/* A forward call of a model: `model(x)`, `self.encoder(x)`, `net.forward(x)`,
 * or a call of a name bound to `AutoModel.from_pretrained(...)`, an nn.Module... */
bool oom_pymodel_is_model_call(const oom_pymodel *m, TSNode call);
/* The forward runs a module that stays on the host: bound, on every path,
 * to a module its function constructs without a device, and placed by
 * nothing there (model/placement.c). */
bool oom_pymodel_forward_on_host(const oom_pymodel *m, TSNode call);
/* The call is a tensor factory of the library knowledge that makes a
 * non-scalar tensor on the host (no device=, no default device), and its
 * value, followed forward, meets a tensor shown to be on the module's
 * device: in an operator, a combining function, a submodule's call
 * (model/hostmix.c). *line: where it meets it. */
bool oom_pymodel_host_tensor_meets_device(const oom_pymodel *m, TSNode call, uint32_t *line);
/* The forward is too small to matter: every tensor it takes is made right
 * there by a tensor factory from small literal sizes (model/transient.c). */
bool oom_pymodel_forward_transient(const oom_pymodel *m, TSNode call);
/* The name of the function the file's i-th call stands in (NULL at module
 * level), for the project's callers of callers. */
const char *oom_pymodel_call_caller(const oom_pymodel *m, size_t i, uint32_t *len);
/* The graph a backward or autograd.grad call differentiates is built in
 * each iteration of the loop around it (its tensor is bound inside the
 * loop's body), or the model cannot tell; false for one graph built before
 * the loop and differentiated once per loss, parameter or row
 * (model/iterations.c). */
bool oom_pymodel_graph_built_each_iteration(const oom_pymodel *m, TSNode call);
/* A run-time test decides `node`: it is an arm of `a if COND else b`, or in
 * the body or `else` of `if COND:`, where COND calls a function whose
 * dotted name ends in `name` (model/guards.c). */
bool oom_pymodel_decided_by_call(const oom_pymodel *m, TSNode node, const char *name);
/* `node` stands in one arm of an if statement (body, elif, else) another
 * arm of which calls a function whose dotted name ends in `name`: the two
 * never run together (model/guards.c). */
bool oom_pymodel_other_arm_calls(const oom_pymodel *m, TSNode node, const char *name);
/* Whether the value of `expr` carries autograd history (when grad is on):
 * model and loss outputs, names bound to them, arithmetic on them; not after
 * .item(), .detach(), .tolist(), .numpy(), float(...). */
bool oom_pymodel_carries_graph(const oom_pymodel *m, TSNode expr);
/* Whether the storage `target` (a name, attribute or subscript) lives longer
 * than one iteration of the innermost loop around `site`. */
bool oom_pymodel_outlives_iteration(const oom_pymodel *m, TSNode target, TSNode site);
/* Stricter: the storage was created outside every loop of its function (or
 * is an attribute), so it survives the whole loop nest around `site`. */
bool oom_pymodel_outlives_all_loops(const oom_pymodel *m, TSNode target, TSNode site);
/* Inside a function whose name matches the PCRE2 pattern. */
bool oom_pymodel_in_function_matching(const oom_pymodel *m, TSNode node, const void *pcre2_code);
/* Inside a method of a class of tests (class Test*, *Test*, a TestCase). */
bool oom_pymodel_in_test_code(const oom_pymodel *m, TSNode node);
/* A call in an out-of-memory handler to something the `try` body also called. */
bool oom_pymodel_is_retry_call(const oom_pymodel *m, TSNode call);
/* The retry runs on the host: the handler, before it or in its arguments,
 * moves to the CPU (`.cpu()`, `.to("cpu")`, `device = "cpu"`) (model/fallback.c). */
bool oom_pymodel_retries_on_host(const oom_pymodel *m, TSNode call);
/* Whether `.backward()` is called on the name `target` itself in its function
 * (`loss.backward()`, `accelerator.backward(loss)`, `scaler.scale(loss).backward()`). */
bool oom_pymodel_is_backward_receiver(const oom_pymodel *m, TSNode target);
/* Whether the name or `self.` attribute `target` flows into what `.backward()`
 * is called on in its function: the receiver itself, a name read by it
 * (`(ce + kl).backward()`, `torch.stack(losses).sum().backward()`), or read by
 * the value of such a name (`total = ce + style; total.backward()`). */
bool oom_pymodel_is_backpropagated(const oom_pymodel *m, TSNode target);
/* A constant: a string without substitutions, a number, or a concatenation of them. */
bool oom_pymodel_is_literal(const oom_pymodel *m, TSNode expr);
/* The value of a string literal without substitutions, into `out`. */
bool oom_pymodel_string_value(const oom_pymodel *m, TSNode str, oom_buf *out);

/* A call (or its argument list) passes argument `name` by keyword, or has
 * more than `position` positional arguments (position < 0: keyword only), or
 * has **kwargs / *args that could carry it. */
bool oom_pymodel_has_argument(const oom_pymodel *m, TSNode call, const char *name, int position);
/* CUDA was initialised (torch.cuda.*, .cuda(), .to("cuda"), device="cuda")
 * earlier in the same function or module body. */
bool oom_pymodel_cuda_initialized_before(const oom_pymodel *m, TSNode node);
/* The file sets up distributed training (init_process_group, DDP, LOCAL_RANK). */
bool oom_pymodel_is_distributed(const oom_pymodel *m);
/* No other backward or autograd.grad follows `call` in the same loop iteration. */
bool oom_pymodel_is_last_backward(const oom_pymodel *m, TSNode call);
/* A running total (`running_loss`, `running_metrics["k"]`) set afresh
 * later in the same loop (`running_loss = 0` each optimizer step of a
 * gradient-accumulation window) in a loop that calls backward: it holds the
 * steps of one window, whose saved tensors each backward freed, not every
 * step's graph. */
bool oom_pymodel_is_reset_each_window(const oom_pymodel *m, TSNode target, TSNode site);
/* A model output still on the device and not reduced: logits, hidden states,
 * embeddings ...; not after .cpu(), .numpy(), .tolist(), .item(), .sum() ...
 * A name is one when a binding that may reach it over the function's
 * control flow is (model/device.c). */
bool oom_pymodel_is_device_output(const oom_pymodel *m, TSNode expr);
/* Inside an `if` whose condition is not a constant (a flag guard). */
bool oom_pymodel_in_guard(const oom_pymodel *m, TSNode node);
/* Inside an `if` (or conditional expression) that is itself inside the
 * innermost loop around `node`: the code does not run on every iteration. */
bool oom_pymodel_in_loop_guard(const oom_pymodel *m, TSNode node);
/* Inside an `if` of that loop whose condition takes a modulo (`if i %
 * log_every == 0:`): the code runs every k-th iteration. */
bool oom_pymodel_in_periodic_guard(const oom_pymodel *m, TSNode node);
/* `if convert_to_numpy: x = x.cpu()` reaches `x`, where `convert_to_numpy` is a
 * parameter of the function defaulting to True: the default path moves the
 * value to the host; keeping it on the GPU is the caller's explicit request. */
bool oom_pymodel_host_on_default_path(const oom_pymodel *m, TSNode expr);
/* The list appended to at `site` is made empty for each item of an outer
 * loop whose item the inner loop goes through (one accumulation group). */
bool oom_pymodel_holds_one_outer_item(const oom_pymodel *m, TSNode target, TSNode site);
/* The list appended to at `site` is put together after the loop and the
 * result is read by an all-pairs product (`a @ b.t()`, torch.mm/matmul/
 * cdist/einsum) in the same function: retrieval needs the whole set on the
 * device at once. */
bool oom_pymodel_combined_for_all_pairs(const oom_pymodel *m, TSNode target, TSNode site);
/* `write_model(model, path, dtype="bfloat16")` where the file's own
 * `write_model` only reads its `dtype` (compares it, looks it up, passes it
 * to its own functions that do the same): nothing computes in that dtype. */
bool oom_pymodel_keyword_only_stored_by_own_function(const oom_pymodel *m, TSNode keyword_argument);
/* ---- what one iteration of the innermost loop around `node` does (model/loops.c) ---- */

/* Its body (not a function defined in it) calls one of these dotted names,
 * aliases applied: `torch.cuda.memory_reserved()` read on every iteration. */
bool oom_pymodel_loop_calls(const oom_pymodel *m, TSNode node, const char *const *names, size_t count,
                            oom_buf *scratch);
/* Every statement of its body is a call of one of these dotted names
 * (`for _ in range(3): gc.collect(); torch.cuda.empty_cache()`): the loop
 * does no work of its own. */
bool oom_pymodel_loop_only_calls(const oom_pymodel *m, TSNode node, const char *const *names, size_t count,
                                 oom_buf *scratch);
/* A `for` loop over a value made by one of these calls, names followed,
 * through `.items()`, `.keys()`, `.values()` and `tqdm(...)`: `for name in
 * sd` after `sd = torch.load(path)`, a checkpoint walked once at load time. */
bool oom_pymodel_loop_iterates_built_by(const oom_pymodel *m, TSNode node, const char *const *names, size_t count,
                                        oom_buf *scratch);
/* Its body runs a whole generation: a call of `generate` (`model.generate`,
 * vLLM's `llm.generate`, a library's `generate(model=...)`), directly or in
 * one of the file's own functions or methods it calls (two levels). */
bool oom_pymodel_loop_generates(const oom_pymodel *m, TSNode node);
/* `node` is in the body of a `try` (inside that loop) whose success leaves
 * the loop (its body or `else:` ends with return or break) and which has
 * handlers: the loop runs again only after an exception, a retry. */
bool oom_pymodel_in_retry_attempt(const oom_pymodel *m, TSNode node);

/* Inside an except handler; `oom_only`: one that catches out-of-memory errors. */
bool oom_pymodel_in_handler(const oom_pymodel *m, TSNode node, bool oom_only);
/* Inside a method of a model or loss class (nn.Module, *Model) that computes
 * its result: `forward`, `compute_loss`, `forward_value` ... but not a
 * Lightning hook (`training_step`, `on_train_epoch_end`): what it collects
 * or sums in a loop belongs to the one result it returns, which its caller
 * backpropagates or drops. */
bool oom_pymodel_in_forward_code(const oom_pymodel *m, TSNode node);
/* The same, the module's constructor aside: `__init__` runs when the
 * module is built (on the host, before anything places it), and so does a
 * module-level helper only it calls. */
bool oom_pymodel_in_computation(const oom_pymodel *m, TSNode node);
/* `meter.update(loss)`: the file's own `def update(self, val, n=1)` adds a
 * parameter into `self` (`self.sum += val * n`), and the argument passed for
 * it carries autograd history. */
bool oom_pymodel_accumulates_graph(const oom_pymodel *m, TSNode call);
/* The file defines such a method at all (a whole-file question, asked first). */
bool oom_pymodel_has_accumulators(const oom_pymodel *m);
/* `meter.update(loss)` where this file defines no `update` that accumulates:
 * whether the method may be another file's accumulator. True when some
 * argument carries autograd history; `out` gets the call's signature for the
 * project pass: "method<TAB>bitmask of positional arguments that carry<TAB>
 * comma-separated keyword names that carry". */
bool oom_pymodel_accumulation_candidate(const oom_pymodel *m, TSNode call, oom_buf *out);
/* A forward in a function with a mode switch (`train=True`) that no call in
 * this file runs for evaluation: may another file's call pass False? `out`
 * gets the condition the project pass confirms ("eval<TAB>function<TAB>
 * parameter<TAB>position"). */
bool oom_pymodel_eval_call_candidate(const oom_pymodel *m, TSNode node, oom_buf *out);
/* Answers another file of the project may overturn: while `into` is set,
 * an answer that assumes something of another file appends what it
 * assumed, one condition a line (NULL stops collecting); the project pass
 * drops a finding built on an assumption that file refutes.
 * "fwdgrad<TAB>module<TAB>Class": `c = Class(...)`, Class imported from
 * `module`, was taken for a model whose forward keeps activations; that
 * module's file may run Class.forward entirely without grad
 * (oom_pymodel_no_grad_forward_classes). */
void oom_pymodel_collect_conditions(const oom_pymodel *m, oom_buf *into);
/* While set, the conditions an answer is a module only under ("module",
 * "modarg": another file of the project must confirm them) are appended
 * to `into`, one a line; NULL stops. The finding then waits on the
 * project pass (oom_diag.needs_project). */
void oom_pymodel_collect_pending(const oom_pymodel *m, oom_buf *into);
/* Whether a role question since the last call would have waited on another
 * file (and so answered unknown); clears the flag. */
bool oom_pymodel_take_would_wait(const oom_pymodel *m);
/* The arguments of call i that are modules by the file's own evidence:
 * positions (bits, below 32) and keywords (comma-separated). */
void oom_pymodel_call_module_args(const oom_pymodel *m, size_t i, uint32_t *mask, oom_buf *keywords);
/* The file's classes that are modules by its own evidence (a library
 * module base, another such class, a forward), each NUL-terminated. */
void oom_pymodel_module_classes(const oom_pymodel *m, oom_buf *out);
/* The file's classes whose `forward` runs every call it makes with autograd
 * off (its body under `with torch.inference_mode():` or decorated
 * @torch.no_grad()): their names into `out`, each NUL-terminated. Calling an
 * instance keeps no activations (DINOv2's ModelWithIntermediateLayers). */
void oom_pymodel_no_grad_forward_classes(const oom_pymodel *m, oom_buf *out);
/* The file's module classes whose own code differentiates: a method calls
 * one of the library knowledge's differentiating_functions
 * (`torch.autograd.grad` for a signed-distance network's normals), or builds
 * such a class of the file. Their names into `out`, each NUL-terminated
 * (model/needsgrad.c). */
void oom_pymodel_differentiating_classes(const oom_pymodel *m, oom_buf *out);
/* No module called in the function around `node` is known to differentiate
 * in its own code, so `torch.no_grad()` there would break none of them.
 * Modules of a class imported from another file, or of a class the file does
 * not show (a parameter, a registry's lookup), are assumed not to; while
 * conditions are collected each such assumption is noted,
 * "diffwd<TAB>module<TAB>Class" ("diffwd<TAB><TAB>" for an unknown class),
 * for the project pass. */
bool oom_pymodel_forwards_need_no_grad(const oom_pymodel *m, TSNode node);
/* The literal False arguments of call i (oom_pymodel_call_at): positions as
 * bits of *mask, keywords appended to `keywords`, comma-separated. */
void oom_pymodel_call_false_args(const oom_pymodel *m, size_t i, uint32_t *mask, oom_buf *keywords);
/* What call i passes: how many positional arguments, whether a splat
 * (`*args`, `**kw`) that may hold any, and every keyword's name, appended to
 * `keywords`, comma-separated (model/callsites.c). */
void oom_pymodel_call_passed_args(const oom_pymodel *m, size_t i, uint32_t *positional, bool *splat,
                                  oom_buf *keywords);
/* The file's accumulating methods (see oom_pymodel_accumulates_graph): the
 * method, the parameter it adds into its object, and that parameter's
 * position among those after self. */
size_t oom_pymodel_accumulator_count(const oom_pymodel *m);
void oom_pymodel_accumulator_at(const oom_pymodel *m, size_t i, const char **method, uint32_t *method_len,
                                const char **param, uint32_t *param_len, int *index);
/* Whether the file's code shows any way onto a GPU: a device named, a
 * module or tensor placed, a library imported that places models itself
 * (model/gpuuse.c). */
bool oom_pymodel_shows_gpu_use(const oom_pymodel *m);
/* The same, for a predicate: when the file shows none, the answer waits on
 * the project pass (condition OOM_GPU_USE_CONDITION: some file of the
 * project shows one), or, asked without waiting, is false and says it
 * would wait. */
#define OOM_GPU_USE_CONDITION "gpu"
bool oom_pymodel_may_use_gpu(const oom_pymodel *m);
/* ranks.c: whether `expr` is the process's rank in the whole job (a call or
 * an environment variable the knowledge base lists, a cast of one, a name
 * every reaching binding of which is one), and whether the file's ranks come
 * from a launcher that may span nodes (it reads a launcher's variable or
 * builds its process group from the environment, and spawns no processes). */
bool oom_pymodel_is_global_rank(const oom_pymodel *m, TSNode expr);
bool oom_pymodel_ranks_from_launcher(const oom_pymodel *m);
/* The name of the innermost function (not lambda) around `pos`; NULL at
 * module level. */
const char *oom_pymodel_function_at(const oom_pymodel *m, uint32_t pos, uint32_t *len);
/* Calls `each` with the byte position of every call in the file, outside
 * it, of the innermost named function around `pos` (`evaluate(...)`, or
 * `self.evaluate(...)` for a method) that runs with autograd on: where that
 * function's grad state comes from. Returns how many. */
typedef void (*oom_call_position_fn)(void *ctx, uint32_t pos);
size_t oom_pymodel_each_grad_on_call_of_function_at(const oom_pymodel *m, uint32_t pos, oom_call_position_fn each,
                                                    void *ctx);
/* The calls of functions and methods in the file, by last name, and whether
 * autograd is off where each stands (for the project's call facts). */
size_t oom_pymodel_call_count(const oom_pymodel *m);
const char *oom_pymodel_call_at(const oom_pymodel *m, size_t i, uint32_t *len, bool *grad_off);
/* The file builds a model with a language-modelling head (a call of such a
 * class or its from_pretrained, by qualified name) or an SFTTrainer. */
bool oom_pymodel_loads_lm_head(const oom_pymodel *m);
/* The file builds a text-conditioned diffusion model: a diffusers denoiser
 * (UNet2DConditionModel, ControlNetModel, *Transformer2DModel) or pipeline,
 * by qualified name (kb/heads.c). Its prompts are the denoiser's conditioning,
 * padded to the fixed length its cross-attention was trained on. */
bool oom_pymodel_loads_diffusion_model(const oom_pymodel *m);
/* The file trains: it calls .backward(), a Trainer, or .train()/.fit(). */
bool oom_pymodel_file_trains(const oom_pymodel *m);
/* The file is a script (`if __name__ == "__main__":`) that saves weights
 * (save_pretrained, merge_and_unload, torch.save, ...) and runs no model: it
 * neither trains, nor generates, nor calls a model's forward. A merge or
 * conversion tool: a dtype there is how the weights are stored, not how a GPU
 * computes. A module of functions is not one: its callers may run what it
 * loads. */
bool oom_pymodel_only_converts_weights(const oom_pymodel *m);
/* The file runs a model (a forward, generate, a pipeline, predict) and
 * trains nothing: an evaluation or inference script. No activations are
 * kept there for a backward pass; each layer's are freed as the next runs. */
bool oom_pymodel_only_infers(const oom_pymodel *m);
/* A Trainer call whose model has a language-modelling head. */
bool oom_pymodel_is_lm_trainer(const oom_pymodel *m, TSNode call);
/* Some call in the file passes `name=value` (value compared as source text;
 * NULL: any value). */
bool oom_pymodel_file_has_keyword(const oom_pymodel *m, const char *name, const char *value);
/* Some call in the file calls a function or method named `name`. */
bool oom_pymodel_file_calls(const oom_pymodel *m, const char *name);

/* The checkpoints the file loads: string arguments of from_pretrained(...)
 * (directly or through a name bound to a string), in file order. */
const oom_strlist *oom_pymodel_pretrained_ids(const oom_pymodel *m);
/* Whether the i-th pretrained id was loaded where `node` can see it: in the
 * same function, a function around it, or at module level. */
bool oom_pymodel_pretrained_visible(const oom_pymodel *m, size_t i, TSNode node);
/* What the call returns becomes the batch's `labels` (model/targets.c):
 * stored under the key "labels", itself or its `input_ids`, directly or
 * through names bound to them in its function (`labels = tokenizer(targets,
 * ...)`, then `model_inputs["labels"] = labels["input_ids"]`). The targets a
 * loss is computed against, as `tokenizer(text_target=...)` makes them. */
bool oom_pymodel_becomes_labels(const oom_pymodel *m, TSNode call);
/* A length that is short on every path its value may come by (model/lengths.c):
 * an integer of at most `limit` (names, conditional expressions and `+ k`
 * followed), or the longest length measured from the batch a function was
 * handed (`max(len(e["input_ids"]) for e in examples)`, `len(x)`), which pads
 * to what the data holds, as dynamic padding does. */
bool oom_pymodel_is_short_or_measured_length(const oom_pymodel *m, TSNode expr, long long limit);
/* An integer literal, or a name bound (in the function or module) to one. */
bool oom_pymodel_int_value(const oom_pymodel *m, TSNode expr, long long *out);
/* An expression that denotes a model (not a call of it). */
bool oom_pymodel_is_model_expr(const oom_pymodel *m, TSNode expr);
/* A name the function around it returns, alone or as an element of a
 * returned tuple. */
bool oom_pymodel_is_returned(const oom_pymodel *m, TSNode name);
/* Storage filled in a loop without a backward and put together into the
 * function's return value (`return torch.cat(outs)`): a chunked forward. */
bool oom_pymodel_is_chunked_output(const oom_pymodel *m, TSNode target, TSNode site);
/* The laid-out tree the model was built from, while the linter holds it
 * (the project pass's facts are taken then); NULL otherwise. Later stages
 * walk this array instead of the tree (tree-sitter's public cursor costs
 * several times more per node, src/lang/layout.c). */
const oom_nodes *oom_pymodel_layout(const oom_pymodel *m);
/* Calls `visit` on every node of the subtree at `root`, root first, in
 * document order, from the laid-out node array (the linter's while it holds
 * the file, else one laid out for this walk): the one way the model's users
 * walk a tree, without tree-sitter's cursor. Stops when visit returns false. */
typedef bool (*oom_node_visit)(void *ctx, TSNode n);
/* A node's parent from the laid-out array while the linter holds it
 * (tree-sitter's ts_node_parent walks down from the root each time). */
TSNode oom_pymodel_parent(const oom_pymodel *m, TSNode n);
void oom_pymodel_walk(const oom_pymodel *m, TSNode root, oom_node_visit visit, void *ctx);
/* A call (torch.load) whose result is copied into a model: passed to
 * `.load_state_dict(...)`, or bound to a name that such a call later reads
 * in the same function, directly or through one more name. */
bool oom_pymodel_loads_into_model(const oom_pymodel *m, TSNode call);
/* ---- what a torch.load reads (model/checkpoints.c) ---- */

/* The file `call` (torch.load) reads is written by torch.save in this file
 * (the same path expression in the same function, or the same file name
 * anywhere), and every such save writes host data: a tensor after .cpu()
 * or .numpy(), NumPy, parsed arguments, a dataset, constants, or dicts,
 * lists and tuples of them. Nothing it loads lands on a GPU. */
bool oom_pymodel_loads_host_data(const oom_pymodel *m, TSNode call);
/* `call` (torch.load without map_location) is one arm of an `if` (or
 * conditional expression) whose other arm loads the same path with
 * map_location= a device (`if args.gpu is None: torch.load(p) else:
 * torch.load(p, map_location=f"cuda:{args.gpu}")`): the per-process case
 * maps its own device, and this arm is the one-process path. */
bool oom_pymodel_mapped_in_other_branch(const oom_pymodel *m, TSNode call);

/* ---- which processes run a statement (model/processes.c) ---- */

/* Only the main process of a distributed job runs `node`: it is in the arm
 * of an `if` (or conditional expression) that a test of the rank keeps to
 * it (`rank == 0`, `hvd.rank() == 0`, `dist.get_rank() == 0`, `local_rank
 * in (-1, 0)`, `local_rank <= 0`, `not rank`, `is_main_process`,
 * `accelerator.is_main_process`, `trainer.is_global_zero`; through `and`,
 * `or`, `not`), or after an `if` whose body leaves (`return`, `raise`,
 * `sys.exit()`) on every other process (`if rank != 0: return`), in the
 * same function. */
bool oom_pymodel_main_process_only(const oom_pymodel *m, TSNode node);

/* `module.validation_step(batch)` (test_step, predict_step) called by a
 * hand-written trainer: a LightningModule's evaluation hook, which runs the
 * forward. Lightning turns grad off around its own calls; this caller must. */
bool oom_pymodel_is_eval_hook_call(const oom_pymodel *m, TSNode call);
/* A slice or row of one tensor bound before every loop around `site`
 * (`out_seq.append(seq[i:i + 1])` for i in range(batch_size)): a view of
 * storage that exists once, so collecting it piles nothing up. */
bool oom_pymodel_is_view_of_one_tensor(const oom_pymodel *m, TSNode value, TSNode site);

/* The per-layer tuples a model's forward call returns (`hidden_states`,
 * `attentions`) may outlive the function that made the call: it is
 * module-level code, or its function runs a backward, or the output (or
 * its `hidden_states`, `out[-1]` ...) is returned, yielded, stored into an
 * object, passed to a call that may keep it (not a torch function making a
 * new tensor, nor len/isinstance), or bound to a name whose reads do so.
 * False when every use takes one tensor out of it (`out.logits`,
 * `out[0]`, `out.hidden_states[-2]`, `_, _, values = model(...)` with
 * `values` used as a tensor): then the layers die with the function,
 * before its caller's backward, and autograd held them anyway. */
bool oom_pymodel_output_layers_escape(const oom_pymodel *m, TSNode call);

/* The module `wrapped` (or a module it belongs to: `model` for
 * `model.features`) had its parameters frozen earlier in the same function
 * (model/grad.c): `for [name,] p in model.(named_)parameters(): p.requires_grad
 * = False` (perhaps under an `if`, all but the head) or
 * `model.requires_grad_(False)`, and no later statement there set it back. */
bool oom_pymodel_frozen_before(const oom_pymodel *m, TSNode wrapped, TSNode site);
/* `node` sits in a branch that the file's fixed integers rule out
 * (model/values.c): the body of `if num_gpus > 1:` where `num_gpus = 1` is
 * the name's only binding in its scope and no global statement names it;
 * `and`, `or`, `not` and comparisons of such integers are evaluated. */
bool oom_pymodel_never_runs(const oom_pymodel *m, TSNode node);
/* The node may run: not in a branch the file's fixed integers rule out,
 * and for each `if P:` around it where P is a parameter of the function
 * defaulting to False, None or 0, some call in the file passes P; where no
 * call here does, the answer assumes one elsewhere may, and the condition
 * "nopass<TAB>callee<TAB>P<TAB>position" lets the project pass drop the
 * finding when no file's call passes it (model/callsites.c). */
bool oom_pymodel_may_run(const oom_pymodel *m, TSNode node);

/* A module without parameters: a loss or metric (`criterion`, `nn.CrossEntropyLoss()`,
 * a name bound to one), an activation, dropout or pooling layer. */
bool oom_pymodel_is_parameter_free_module(const oom_pymodel *m, TSNode expr);

/* The keyword arguments of every call in the file, in order. */
size_t oom_pymodel_keyword_count(const oom_pymodel *m);
void oom_pymodel_keyword(const oom_pymodel *m, size_t i, const char **name, size_t *name_len,
                         TSNode *value);

/* What `expr` holds once names are followed to their last binding (and a
 * dict literal indexed by a known string to its entry), up to a bound; a
 * null node when unknown. `depth` starts at 0. */
TSNode oom_pymodel_value_of(const oom_pymodel *m, TSNode expr, int depth);
/* The expression a name's reaching binding assigns, one step (no names
 * followed further, no dict entry looked up); null when none. */
TSNode oom_pymodel_bound_value(const oom_pymodel *m, TSNode name);
/* Whether `node` is (in) the context of a `with` whose body only defines
 * (functions, classes): nothing runs under the context it enters
 * (`with autocast(dtype=torch.bfloat16): def score_fn(...)`). */
bool oom_pymodel_context_runs_nothing(const oom_pymodel *m, TSNode node);
/* The value passed as `name=...` to a call; a null node when not passed. */
TSNode oom_pymodel_keyword_value(const oom_pymodel *m, TSNode call, const char *name);
/* `fn` is `<module>.<method>` for one of `modules`, the module reached by its
 * dotted name (import aliases applied), through a name bound to it
 * (`accel = torch.cuda`), or as `getattr(torch, device_type)`: one call
 * however a script spells its accelerator (OOM701's empty_cache). */
bool oom_pymodel_is_method_of_module(const oom_pymodel *m, TSNode fn, const char *method,
                                     const char *const *modules, size_t count, oom_buf *scratch);
/* The value, names followed, is one of `names`: a dotted name (aliases
 * applied), a string literal's value, or "True" for the literal True. */
bool oom_pymodel_holds(const oom_pymodel *m, TSNode expr, const char *const *names, size_t count,
                       oom_buf *scratch);
/* A constant, directly or through names bound to one (`GPU = "0"`). */
bool oom_pymodel_is_constant(const oom_pymodel *m, TSNode expr);
/* `fn` is the function of a tensor factory's call (values'
 * host_tensor_factories: `torch.ones`, `torch.empty`, `torch.as_tensor`) given
 * no device and made into no module parameter (parameter_constructors): a
 * host tensor or a buffer, whose dtype is its own, not a precision the run
 * computes in. */
bool oom_pymodel_is_host_tensor_factory(const oom_pymodel *m, TSNode fn);
/* The value, names followed, is a CUDA_VISIBLE_DEVICES string that leaves
 * no GPU: empty, or a negative first entry ("-1"). */
bool oom_pymodel_hides_every_gpu(const oom_pymodel *m, TSNode expr);
/* The value, names followed, is made by a call of one of `names` (dotted,
 * aliases applied), possibly moved or cast after: `torch.zeros(n).to(dev)`. */
bool oom_pymodel_built_by(const oom_pymodel *m, TSNode expr, const char *const *names, size_t count,
                          oom_buf *scratch);
/* `node` runs only as a switch of this run decides: it is inside an if,
 * elif, while or conditional expression whose condition's text matches the
 * PCRE2 pattern, or inside a call given `enabled=<a variable>`. */
bool oom_pymodel_follows_switch(const oom_pymodel *m, TSNode node, const void *pcre2_code);
/* A name whose binding (or a binding it is read through) follows such a
 * switch: `if args.mixed_precision == "bf16": weight_dtype = torch.bfloat16`. */
bool oom_pymodel_value_follows_switch(const oom_pymodel *m, TSNode expr, const void *pcre2_code);

/* Whether `name` is a name an import statement bound (`T` in `import torch as T`). */
bool oom_pymodel_is_import_alias(const oom_pymodel *m, const char *name, size_t len);

/* ---- what fixes need to be safe (model/numbers.c) ---- */

/* A scalar tensor, so that `.item()` cannot raise: a name `.backward()` is
 * called on (which needs a scalar), a reduction called
 * without arguments (`x.mean()`), a Hugging Face output's `.loss`, a
 * torch.nn.functional loss or a call of a torch.nn *Loss module that
 * reduces, arithmetic of those with counts (`loss / accumulation_steps`),
 * names followed to their bindings. */
bool oom_pymodel_is_scalar(const oom_pymodel *m, TSNode expr);
/* Every read of the local name `store` in its function (or module) uses the
 * value as a number would be used: formatted, printed, logged, compared,
 * given to math/numpy/statistics or sum/min/max, or made into a name whose
 * reads do the same; so a Python float in its place changes nothing. False
 * for a name that is returned, yielded, a method's receiver (`total.item()`),
 * given to torch, or declared global. */
bool oom_pymodel_read_as_number(const oom_pymodel *m, TSNode store);
/* The name `store` never leaves its function (or, at module level, the
 * file): no read of it is returned, yielded, captured by a lambda or stored
 * into an object (nor through a name it is copied to), and no function
 * declares it global: nothing else can backpropagate through what it holds. */
bool oom_pymodel_stays_local(const oom_pymodel *m, TSNode store);
/* One tensor, so that `.detach()` exists on it: a scalar, a model output's
 * `.logits` or `.loss`, a tensor method or torch function of one, names
 * followed. Not a model's whole output (a tuple or a ModelOutput). */
bool oom_pymodel_is_tensor(const oom_pymodel *m, TSNode expr);
/* A container of tensors, not one: a dict, list or tuple (literal, or a
 * name bound to one or read as a mapping, `output["loss"]`), or a model
 * output's tuple field (`hidden_states`): `.detach()` does not exist on it. */
bool oom_pymodel_is_container(const oom_pymodel *m, TSNode expr);
/* The call's result goes straight into `load_state_dict` (`model.
 * load_state_dict(torch.load(p)["model"])`, without assign=True), which
 * copies each tensor into a parameter where it already is: nothing else
 * sees where the loaded tensors were put. */
bool oom_pymodel_copied_into_model(const oom_pymodel *m, TSNode call);
/* `node` is in a function that evaluates as a whole: named for evaluation
 * (as OOM301 reads names; or inside one), with no backward, not a method
 * of a model class, and no grad switch of its own around `node` (a
 * decorator would not reach under `enable_grad`): turning autograd off for
 * all of it changes nothing that it computes. */
bool oom_pymodel_in_evaluation_function(const oom_pymodel *m, TSNode node);
/* The call holding the argument `argument` also passes `name` (by keyword,
 * or through **kwargs). */
bool oom_pymodel_beside_keyword(const oom_pymodel *m, TSNode argument, const char *name);
/* The name the file binds to the module (`torch` after `import torch`, `T`
 * after `import torch as T`), so that generated code can write
 * `T.no_grad()`; NULL when no import binds it. Not NUL-terminated: *len. */
const char *oom_pymodel_module_alias(const oom_pymodel *m, const char *module, uint32_t *len);

/* ---- reaching definitions (model/flow.c) ---- */

typedef enum {
    OOM_FLOW_LOCAL,   /* a local name of the function (or module) it is read in */
    OOM_FLOW_OUTER,   /* bound nowhere in that body: an enclosing function's, the module's, a builtin */
    OOM_FLOW_INNER,   /* bound by the lambda or comprehension it is read in */
    OOM_FLOW_UNKNOWN, /* declared global or nonlocal, read in a class body, not an identifier,
                         or a body too large to analyse */
} oom_flow_answer;

/* Which bindings of the name `name` (an identifier being read) may reach
 * it over the real control flow of its function: both branches of an if,
 * a loop's back edge, break and continue, return and raise, try / except /
 * else / finally, with, match. Fills `sites` with up to `cap` of the
 * identifiers that bind it (in source order), sets `*count` to how many
 * there are and `*may_be_unbound` when some path binds nothing (or `del`s
 * it). Control flow is computed per function on the first question. */
oom_flow_answer oom_pymodel_reaching_definitions(const oom_pymodel *m, TSNode name, TSNode *sites, size_t cap,
                                                 size_t *count, bool *may_be_unbound);
/* Computes the flow of every body and asks about every identifier,
 * checking what must hold (each answer binds the same name, in the same
 * body); false when something does not. For the fuzz target. */
bool oom_pymodel_flow_check(const oom_pymodel *m);

/* Splits an identifier into lower-case word parts (snake_case and camelCase)
 * and reports whether any part is in the NULL-terminated list `words`. */
bool oom_name_has_word(const char *name, size_t len, const char *const *words);

#endif

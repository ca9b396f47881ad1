/* project: links between a script and the files it names (a local model
 * folder's config.json) and the knowledge base, for rules that need facts
 * from more than one file. A path that does not exist is not an error: it may
 * be created when the job runs. */
#ifndef OOMLINT_PROJECT_H
#define OOMLINT_PROJECT_H

#include <stdbool.h>

#include "oomlint/kb.h"
#include "oomlint/model.h"
#include "oomlint/source.h"
#include "oomlint/util.h"
#include "oomlint/yamlmodel.h"

/* "hard" (learned absolute positions: longer input breaks), "soft" (rotary,
 * relative, ALiBi: longer input runs, worse), "none"; for a model_type. */
const char *oom_project_family_position_limit(const char *model_type);

/* The hard position limit of the model a script loads, from a local folder's
 * config.json (relative to the script) or else the knowledge base. `where`
 * gets a description such as "the 1024 positions of gpt2 (knowledge base)".
 * Returns false when no model with a hard limit is known. */
bool oom_project_model_limit(const oom_pymodel *m, TSNode at, const char *script_path, const oom_kb *kb,
                             long long *limit, oom_buf *where);
/* The same for one model id (a JSON's "model_name_or_path"). */
bool oom_project_id_limit(const char *id, const char *beside, const oom_kb *kb, long long *limit,
                          oom_buf *where);

#include "oomlint/diag.h"
#include "oomlint/facts.h"
#include "oomlint/rules.h"
#include "oomlint/select.h"

/* What the project pass knows of the run. */
typedef struct {
    const oom_rule_list *rules;
    const oom_selection *selection; /* with the rules' defaults, which codes run */
    const oom_gpu *gpu;             /* may be NULL */
    int num_gpus;
    bool eager_module_loading;      /* PyTorch before 1.13: the eager CUDA context */
    const oom_overlay *overlay;     /* unsaved text in place of files on disk; may be NULL */
} oom_project_context;

/* The facts the worker threads must take of each Python file for the
 * checks that will run (OOM_FACTS_* bits). */
enum { OOM_FACTS_CALLS = 1, OOM_FACTS_ESTIMATE_INPUTS = 2, OOM_FACTS_DEEPSPEED_LINKS = 4 };
unsigned oom_project_facts_needed(const oom_project_context *c);
/* Every project-level check (project/checks.c), over the files' facts
 * (facts[i] for paths[i]): the callers' join, then each registered check
 * whose codes are selected. */
void oom_project_run_checks(const oom_project_context *c, const char *const *paths, oom_file_facts *facts,
                            size_t count, oom_diag_list *out);

/* Whether Python text may hand a DeepSpeed config to TrainingArguments: it
 * calls parse_json_file, or has `deepspeed` followed by a keyword's `=`.
 * Never false for a file that does; the project pass parses only these. */
bool oom_project_may_link_deepspeed(const char *text, size_t len);

/* The links of one Python file (NULL when it hands no DeepSpeed config to
 * TrainingArguments), taken from its text, model and tree by the worker
 * that linted it: the project pass never reads the file again. */
typedef struct oom_ds_links oom_ds_links;
oom_ds_links *oom_project_deepspeed_links_take(const char *script, oom_source *src, oom_pymodel *m,
                                                TSNode root);
/* The DeepSpeed config a YAML training config names (`deepspeed: ds.json` in
 * an axolotl, LLaMA-Factory or TrainingArguments recipe), with the values it
 * sets for the Trainer; NULL when it names none. */
oom_ds_links *oom_project_deepspeed_links_take_yaml(const char *path, const oom_yamlmodel *m);
void oom_project_deepspeed_links_free(oom_ds_links *l);
/* The links as bytes (util's codec) and back, for the on-disk cache: a
 * cached file hands the project pass the links it handed it when linted.
 * Decoding returns NULL for none, and on a malformed input (r->ok false). */
void oom_project_deepspeed_links_encode(const oom_ds_links *l, oom_buf *out);
oom_ds_links *oom_project_deepspeed_links_decode(oom_reader *r);

/* The project pass: for each Python file that hands a DeepSpeed config to
 * TrainingArguments (`deepspeed="ds.json"`, directly or through a
 * TrainingArguments JSON read with parse_json_file; facts[i].deepspeed),
 * compares the values the Trainer checks (precision, micro-batch size,
 * gradient accumulation) and reports OOM405 in the DeepSpeed file at the
 * key, naming the Python line. */
void oom_project_check_deepspeed(const oom_rule_list *rules, bool enabled, const oom_overlay *overlay,
                                 const oom_file_facts *facts, size_t count, oom_diag_list *out);

/* The join of the files' call facts: drops each finding that holds only
 * while its function runs with autograd on (oom_diag.needs_grad_in) when
 * every call of that function in the project stands where autograd is off. */
void oom_project_drop_findings_of_no_grad_callees(const oom_file_facts *facts, size_t nfiles,
                                                  oom_diag_list *diags);
/* Drops each finding whose assumption of another file (oom_diag.
 * unless_project) that file overturns: `feature_model(x)` taken for a forward
 * with grad, where the imported class's forward (`ModelWithIntermediateLayers`
 * in dinov2/eval/utils.py) runs under inference_mode. `paths[i]` is the
 * file of facts[i], as the findings name it. */
void oom_project_drop_overturned_findings(const char *const *paths, const oom_file_facts *facts, size_t nfiles,
                                          oom_diag_list *diags);
/* Of the findings that wait on the project (each file's facts.pending),
 * moves to `out` those another file confirms, and drops the rest: a call
 * (`meter.update(loss)` in train.py) whose method some file defines adding
 * the argument into its object (`AverageMeter.update` in utils.py); a forward
 * in a shared `iteration(..., train=True)` that some file calls with
 * `train=False` where autograd is on. */
void oom_project_confirm_pending(const char *const *paths, oom_file_facts *facts, size_t nfiles, oom_diag_list *out);

/* OOM601 / OOM602: the peak-memory estimate of each script that loads a
 * known model, against the target GPU; reported at the line that sets the
 * dominant input, with a fix plan as the help. Silent without a GPU. The
 * inputs are those the worker threads took while they held each file
 * (facts[i] for paths[i]; files whose inputs were not taken are skipped):
 * no file is read or parsed again. */
void oom_project_check_capacity(const oom_project_context *c, bool oom601, bool oom602, const char *const *paths,
                                const oom_file_facts *facts, size_t count, oom_diag_list *out);

#endif

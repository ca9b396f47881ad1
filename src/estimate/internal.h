/* estimate internals: what the readers of a script share (inputs.c reads the
 * Trainer / Hugging Face side, vision.c the torchvision side).
 *
 * The files call each other in one direction only, no circle among them:
 * the entries (request.c, estimate.c) call inputs.c, which runs the readers
 * (readings.c, defaults.c, loads.c, vision.c, frozen.c, amp.c, generate.c,
 * placement.c, splats.c, modules*.c, arguments.c) and the launch readers
 * (launch.c, which hands shell.c the way words become a launch); those call
 * down to what they all share: settings.c and flags.c (what the run lets
 * its user set), configs.c, registry.c, imports.c, knownmodel.c (a known
 * model into the inputs), record.c (where each input came from, what stays
 * assumed), launchrec.c (the launch record) and text.c (node text and
 * formatting), which call no reader. */
#ifndef OOMLINT_ESTIMATE_INTERNAL_H
#define OOMLINT_ESTIMATE_INTERNAL_H

#include <string.h>
#include <tree_sitter/api.h>

#include "oomlint/estimate.h"
#include "oomlint/lang.h"
#include "oomlint/launch.h"
#include "oomlint/model.h"
#include "oomlint/nodes.h"
#include "oomlint/source.h"

/* ---- the run's settings (settings.c) ------------------------------------
 * What a script lets its user set when it runs, with the default a run
 * without flags gets: argparse options, fields of the dataclasses an
 * HfArgumentParser fills, and plain module-level names (nanoGPT's
 * `batch_size = 12`). */

typedef enum {
    OOM_SETTING_ARGPARSE,  /* parser.add_argument("--batch-size", default=8) */
    OOM_SETTING_DATACLASS, /* max_seq_length: int = field(default=512) */
    OOM_SETTING_MODULE,    /* batch_size = 12 at module level */
    OOM_SETTING_CONFIG,    /* a config file's key splatted into one call: train(**config["train_config"]) (splats.c) */
} oom_setting_kind;

typedef struct {
    char name[64];     /* as the script reads it: args.<name>, model_args.<name>, <name> */
    char spelling[96]; /* as its user writes it: "--batch-size", "ModelArguments.model_name_or_path" */
    oom_setting_kind kind;
    TSNode value;      /* the default, names followed; null when none is written */
    TSNode at;         /* the declaration: add_argument(...), the field, the assignment */
    bool int_type;     /* argparse type=int: a string default is converted */
    bool bool_type;    /* click's type=bool: takes true / false as its value */
    char off_spelling[64]; /* the word that turns a switch off: click's "--no-x" of "--x/--no-x", absl's "--nox" */
    signed char flag;  /* action="store_true": 0, "store_false": 1 (the default without default=); -1 */
    /* the value a launch command gives it, over the default (arguments.c):
     * the text the readers read instead of `value`, and the option's word */
    const char *given;
    const oom_launch_word *given_word;
    char given_said[96]; /* "--per_device_train_batch_size 4", as the command has it */
    bool given_assumed;  /* the value came from a variable set inside a loop or conditional */
} oom_est_setting;

/* An argument of the launch command the script would refuse (`--batch_size
 * abc` to an int option): its input keeps the default, marked assumed. */
typedef struct {
    char name[64];
    char why[224];
} oom_est_rejected;

typedef struct {
    oom_est_setting *items;
    size_t len, cap;
    oom_strlist kept; /* texts the settings' `given` point into, owned here */
} oom_est_settings;

/* modules.c's symbolic run, as the readers may ask it of a value */
typedef struct oom_est_reader_run oom_est_reader_run;

typedef struct {
    const char *path;
    oom_source *src;
    oom_pymodel *m;
    oom_script_inputs *out;
    const oom_kb *kb;
    TSNode root;
    oom_est_settings settings;
    /* while a value read through a setting is recorded: the setting, whose
     * declaration becomes the input's line (oom_est_note) */
    const oom_est_setting *via;
    TSNode model_call; /* the from_pretrained call that loaded the model, if one did */
    /* the launch command the script is read under, or NULL (arguments.c) */
    const oom_launch *launch;
    oom_strlist *notes;
    oom_est_rejected *rejected;
    size_t rejected_len, rejected_cap;
    /* the symbolic run that sizes a model the script defines, asked of a
     * value the readers cannot tell from the file's settings alone
     * (`hparams.batch_size` of an HParams that hparams.py builds): set by
     * inputs.c to modules.c's, NULL where there is no such run. Through
     * these pointers, the readers below modules.c never name it. */
    int (*switch_by_run)(oom_est_reader_run *run, TSNode expr);
    bool (*int_by_run)(oom_est_reader_run *run, TSNode expr, long long *out);
    oom_est_reader_run *run;
} oom_est_reader;

/* Visits every node under `root` in order, without recursion (a deeply
 * nested expression must not exhaust the stack). */
void oom_est_walk(const oom_est_reader *r, void (*visit)(void *ctx, TSNode n), void *ctx);

void oom_est_settings_collect(oom_est_reader *r);
void oom_est_settings_free(oom_est_settings *s);
/* A copy of `text` that lives as long as the settings, for a `given`. */
const char *oom_est_settings_keep(oom_est_settings *s, const char *text);
/* The settings a config file gives a function through `f(**config[...])`:
 * one per parameter the splatted object has a scalar for, read after the
 * launch command is bound (splats.c). */
void oom_est_read_config_splats(oom_est_reader *r);
/* The setting the script declares under `name` (options and fields before
 * module-level names); NULL when none. */
const oom_est_setting *oom_est_setting_named(const oom_est_reader *r, const char *name);
/* The setting an expression reads: `args.batch_size`, `self.args.x`,
 * `model_args.model_name_or_path`, or a name bound to one; NULL otherwise. */
const oom_est_setting *oom_est_setting_read_by(const oom_est_reader *r, TSNode expr);
/* Whether `expr` (a name or `self.args`) holds the script's parsed options,
 * as oom_est_setting_read_by tells it, in a file that declares options:
 * what a model class in another file receives as `args` (modules_expr.c). */
bool oom_est_holds_arguments(const oom_est_reader *r, TSNode expr);
/* The parameter `name` of function `def`: its node, and its position when
 * it can be passed positionally (-1 after a bare `*`); null when none. */
TSNode oom_est_find_parameter(const oom_est_reader *r, TSNode def, const char *name, int *position);
/* The default as an integer (argparse's type=int converts a string); false
 * when there is none or it is not a whole number. */
bool oom_est_setting_int(const oom_est_reader *r, const oom_est_setting *s, long long *out);
/* The default as a string literal's value. */
bool oom_est_setting_string(const oom_est_reader *r, const oom_est_setting *s, oom_buf *out);
/* The default as a switch: 1 on, 0 off, -1 not a boolean. */
int oom_est_setting_switch(const oom_est_reader *r, const oom_est_setting *s);
/* Whether a run without flags reaches `node`: false inside `if args.x:`
 * (or `a if args.x else b`) when x is off by default, or in the `else` when
 * it is on; up to the function around it. */
bool oom_est_runs_without_flags(const oom_est_reader *r, TSNode node);
/* "--batch_size default", "TrainingArguments.model_max_length default",
 * "batch_size (module level)". */
void oom_est_setting_describe(const oom_est_setting *s, char *buf, size_t size);

/* A flag-defining call (absl's `flags.DEFINE_integer("batch_size", 128,
 * "...")`) as the option it declares, into `out`; false for any other call
 * (flags.c). */
bool oom_est_flag_definition(const oom_est_reader *r, TSNode call, oom_est_setting *out);

/* "--nproc-per-node=2" -> "nproc_per_node" (arguments.c). */
void oom_est_option_name(const char *word, char *out, size_t size);

/* The readers' tree helpers: the null node; a field's child by its name
 * (null for a null node); whether a node is of a type (false for a null
 * one). */
#define OOM_EST_NULL_NODE ((TSNode){{0}, NULL, NULL})

static inline TSNode oom_est_child(TSNode n, const char *field)
{
    return ts_node_is_null(n) ? OOM_EST_NULL_NODE : oom_child(n, field, (uint32_t)strlen(field));
}

static inline bool oom_est_type_is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* The i-th positional argument of a call (keywords and comments skipped),
 * or a null node. */
static inline TSNode oom_est_positional(TSNode call, uint32_t i)
{
    TSNode args = oom_est_child(call, "arguments");
    uint32_t seen = 0;
    for (uint32_t k = 0; !ts_node_is_null(args) && k < ts_node_named_child_count(args); k++) {
        TSNode a = ts_node_named_child(args, k);
        if (oom_est_type_is(a, "keyword_argument") || oom_est_type_is(a, "comment"))
            continue;
        if (seen++ == i)
            return a;
    }
    return OOM_EST_NULL_NODE;
}

/* `for p in X.parameters():` or `for name, p in X.named_parameters():`,
 * the loop both freeze readers (frozen.c, vision.c) look for: the module X,
 * the parameter's variable, the name's variable (null for parameters())
 * and the body (frozen.c). */
typedef struct {
    TSNode owner, name_var, body;
    char var[48];
} oom_est_param_loop;
bool oom_est_parameters_loop(const oom_est_reader *r, TSNode for_stmt, oom_est_param_loop *out);

/* Copies `src` into `dst` of `size` bytes, cut short when it does not fit
 * (texts in inputs are for people; a long name is cut, not refused). */
static inline void oom_est_copy(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (size == 0)
        return;
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Records that input `k` came from the script at `at`, described by `what`. */
void oom_est_note(oom_est_reader *r, oom_input_kind k, TSNode at, const char *what);
/* The text of a value the readers compare (`"bf16"`, `torch.bfloat16`):
 * what the launch command gives the setting being read (r->via), quoted,
 * else the source text of `n`. */
bool oom_est_value_text(const oom_est_reader *r, TSNode n, char *buf, size_t size);
/* Records that input `k` is an assumption. */
void oom_est_assume(oom_script_inputs *s, oom_input_kind k, const char *what);
/* The source text of `n` into buf; false when it does not fit. */
bool oom_est_text_of(const oom_est_reader *r, TSNode n, char *buf, size_t size);
/* Precision from a keyword (bf16=, fp16=, torch_dtype=, load_in_4bit=,
 * mixed_precision=, Lightning's precision=) and the optimizer from optim=;
 * with r->via set, the value is that setting's default. */
void oom_est_read_precision(oom_est_reader *r, const char *key, TSNode value);
void oom_est_read_optimizer(oom_est_reader *r, TSNode value);
/* Whether a keyword argument's value belongs to a torch.autocast call. */
bool oom_est_in_autocast_call(const oom_est_reader *r, TSNode keyword_value);
/* readings.c: a keyword value's call (value -> keyword -> arguments -> call),
 * a value as a whole number or a switch (1 on, 0 off, -1 unknown), a
 * LoraConfig's rank, targets and dropout. */
TSNode oom_est_keyword_call(TSNode keyword_value);
bool oom_est_value_int(const oom_est_reader *r, TSNode value, long long *n);
int oom_est_value_switch(const oom_est_reader *r, TSNode value);
void oom_est_read_lora(oom_est_reader *r, TSNode rank_value, TSNode targets, TSNode dropout);

/* The model a from_pretrained call loads (directly, through names or a
 * setting's default) and the head the script puts on it (loads.c). */
void oom_est_read_model(oom_est_reader *r);
/* `transformers.pipeline(...)` (aliases applied): it loads its model itself. */
bool oom_est_is_pipeline(const oom_est_reader *r, TSNode call);
void oom_est_read_task(oom_est_reader *r);

/* What a run without flags gets where no call the estimate reads says:
 * settings by their usual names (`--batch_size`, `max_seq_length`,
 * `--bf16`), and TrainingArguments' own defaults when an HfArgumentParser
 * fills them (defaults.c). */
void oom_est_read_defaults(oom_est_reader *r);

/* A Hugging Face model whose base is frozen: only its head trains (frozen.c). */
void oom_est_read_frozen_base(oom_est_reader *r);

/* A script that does not train: "inference" in the mode input, and what
 * its generate() calls keep (max_new_tokens) (generate.c). */
void oom_est_read_inference(oom_est_reader *r);

/* Where an inference script puts its model (one GPU, accelerate's
 * placement, the CPU) and a 16-bit cast after loading (placement.c). */
void oom_est_read_placement(oom_est_reader *r);

/* torchvision / timm image models, their input size, autocast, optimizer
 * classes and frozen layers (vision.c). */
void oom_est_read_vision(oom_est_reader *r);
/* Mixed precision set by an opt_level (apex's amp.initialize) (amp.c). */
void oom_est_read_amp(oom_est_reader *r);
/* ---- the project's own files (imports.c) ----------------------------------
 * The files a script's imports reach inside its project, each parsed once
 * for the definitions a model is built from (modules.c sizes them). */
typedef struct oom_est_project oom_est_project;
typedef struct oom_est_unit oom_est_unit;
/* A class or function definition and the file it is in. */
typedef struct {
    oom_est_unit *unit;
    TSNode def;
} oom_est_def;
/* The script as the first file (its reader and layout stay the caller's),
 * and the folders its absolute imports are looked up in. */
oom_est_project *oom_est_project_open(oom_est_reader *script, const oom_nodes *layout);
void oom_est_project_close(oom_est_project *p);
oom_est_unit *oom_est_project_script(oom_est_project *p);
/* Another file of the project by its path, read once (NULL: not readable). */
oom_est_unit *oom_est_project_file(oom_est_project *p, const char *path);
/* A file's reader (path, source, model, module-level settings) and layout. */
oom_est_reader *oom_est_unit_reader(oom_est_unit *u);
const oom_nodes *oom_est_unit_layout(const oom_est_unit *u);
const char *oom_est_unit_path(const oom_est_unit *u);
/* Whether an import in the file may bind `name` (a star import may bind any). */
bool oom_est_unit_imports(const oom_est_unit *u, const char *name);
/* The definition a dotted reference in file `from` names through its
 * imports (`Net`, `models.Net`, `pkg.factory.build`), in a project file;
 * false when it names none there (a library, a missing file, a cycle). */
bool oom_est_project_resolve(oom_est_project *p, oom_est_unit *from, const char *dotted, oom_est_def *out);
/* The expression a project file binds an imported name to at module level
 * (`from models.modeling import CONFIGS`, where `CONFIGS = {...}`), as
 * out->def; false for a class, a function or nothing found. */
bool oom_est_project_resolve_value(oom_est_project *p, oom_est_unit *from, const char *dotted, oom_est_def *out);

/* A model the script defines (an nn.Module subclass it instantiates),
 * sized exactly from its __init__ where every size can be read; otherwise
 * the model input says which size could not be (modules.c, with the
 * modules_*.c files modules.h lists). */
void oom_est_read_modules(oom_est_reader *r);
/* The symbolic run asked of one value where it stands: a truth value (1,
 * 0; -1 unknown) or a whole number. Each answer is kept (a reading is
 * opened once per question otherwise). */
oom_est_reader_run *oom_est_modules_run_new(oom_est_reader *r);
void oom_est_modules_run_free(oom_est_reader_run *run);
int oom_est_modules_switch(oom_est_reader_run *run, TSNode expr);
bool oom_est_modules_int(oom_est_reader_run *run, TSNode expr, long long *out);
/* Fills the image side of the inputs from a knowledge-base entry. */
void oom_est_use_image_model(oom_script_inputs *s, const oom_model *m);

/* Whether `dotted` names a module or package of the project through file
 * `from`'s imports (`models` after `import models.cifar as models`). */
bool oom_est_project_module(oom_est_project *p, oom_est_unit *from, const char *dotted);

/* ---- a model picked by a name string (registry.c) ---------------------------
 * `getattr(models, args.arch)`, `models.__dict__[args.arch]`, `MODELS[args.
 * model]` (MODELS a dict literal), each optionally followed by an attribute
 * (`model_dict[args.model].Model`): the function expression of a call that
 * picks what it calls by a name. */
#define OOM_EST_PICK_ENTRIES 32
typedef enum {
    OOM_PICK_ATTRIBUTE, /* an attribute of a module: getattr, __dict__ */
    OOM_PICK_DICT,      /* an entry of a dict literal */
} oom_est_pick_kind;
typedef struct {
    oom_est_pick_kind kind;
    TSNode space;     /* the module expression, or the dict literal */
    bool known;       /* the key's value is known and picks a name */
    char key[64];     /* "resnet" */
    char dotted[160]; /* what it picks, in the call's file: "models.resnet", "ResNet", "Autoformer.Model" */
    TSNode entry;     /* a dict's entry picked (without an attribute after it), else null */
    char said[224];   /* "arch=resnet via models.__dict__[args.arch] at cifar.py:163" */
    /* unknown: the key and what would settle it ("the name of the model
     * MODELS[args.model] picks, which --model would settle") */
    TSNode key_node;
    char why[224];
    TSNode entries[OOM_EST_PICK_ENTRIES]; /* a dict's values, for telling a registry of models */
    size_t nentries;
    char lookup[96], space_text[160], suffix[64]; /* "getattr(models, args.arch)", "models", ".Model" */
    uint32_t line;
} oom_est_pick;
/* Reads `fn` in the file of reader `r`; false when it is no such lookup.
 * The key is read from a literal or a setting; otherwise it stays unknown. */
bool oom_est_pick_of(const oom_est_reader *r, TSNode fn, oom_est_pick *out);
/* Picks by `key`, a value the caller knows (a factory's parameter bound to
 * the name: `def build_model(name): return MODELS[name]()`), said as
 * `name`=key; false, with the reason in why, when it picks nothing. */
bool oom_est_pick_key(const oom_est_reader *r, oom_est_pick *pk, const char *key, const char *name);
/* The value of dict literal `dict`'s entry under the string key `key`; null when none. */
TSNode oom_est_dict_entry(const oom_est_reader *r, TSNode dict, const char *key);
/* The same for `D[key]`, D a dict literal or a name bound to one. */
TSNode oom_est_subscript_entry(const oom_est_reader *r, TSNode subscript, const char *key);
/* A str method on a known string: startswith/endswith (arg given) 1 or 0;
 * lower/upper (arg NULL) 2 with the result in out; -1 for anything else. */
int oom_est_string_method(const char *method, const char *s, const char *arg, char *out, size_t size);
/* The value bound to `name` in class `cls`'s body (`expansion = 4`); null when none. */
TSNode oom_est_class_attribute(const oom_est_reader *r, TSNode cls, const char *name);

/* ---- config files the script reads (configs.c) -----------------------------
 * A JSON or YAML file a json.load() / yaml.safe_load() call reads, and the
 * values under its keys, for modules.c to bind a model's sizes from. Missing
 * files, files that do not parse and missing keys are configs too; the first
 * such problem a read meets is kept, to name the file and key that would
 * settle a size left unknown. */
typedef struct oom_est_configs oom_est_configs;
typedef struct oom_est_config oom_est_config;
typedef enum {
    OOM_CFG_UNREADABLE, /* the file is missing or does not parse */
    OOM_CFG_MISSING,    /* the key is not there */
    OOM_CFG_OBJECT, OOM_CFG_ARRAY, OOM_CFG_INT, OOM_CFG_FLOAT, OOM_CFG_STRING, OOM_CFG_BOOL, OOM_CFG_NULL,
} oom_est_config_kind;
oom_est_configs *oom_est_configs_new(void);
void oom_est_configs_free(oom_est_configs *cs);
/* What a call of `qualname` loads: 0 JSON (json.load, json.loads), 1 YAML
 * (yaml.safe_load, yaml.load ...), -1 neither. */
int oom_est_config_loader(const char *qualname);
/* The expression naming the file a load `call` (json.load, json.loads,
 * yaml.safe_load ...) reads: P of `json.load(open(P))`, `json.loads(open(P).
 * read())`, `with open(P) as f:` then `json.load(f)`, `json.loads(f.read())`
 * or `data = f.read(); json.loads(data)`, `Path(P).open()`,
 * `Path(P).read_text()`; null when it reads anything else. */
TSNode oom_est_config_path_of(const oom_est_reader *r, const oom_nodes *layout, TSNode call);
/* The file at `path` (relative to the launch command's directory, else the
 * script's folder, unless absolute), as JSON or as YAML by the loader that
 * reads it, parsed once per store; never NULL. */
const oom_est_config *oom_est_config_open(oom_est_configs *cs, const oom_est_reader *script, const char *path,
                                          bool yaml);
/* The load call's path `path` (an expression) is not known: kept as the
 * problem, naming the option that gives it when it is one. */
void oom_est_config_path_unknown(oom_est_configs *cs, const oom_est_reader *r, TSNode path, bool yaml);
/* The value under `key` (an object's key, a list's index); never NULL. */
const oom_est_config *oom_est_config_key(oom_est_configs *cs, const oom_est_config *of, const char *key);
oom_est_config_kind oom_est_config_kind_of(const oom_est_config *c);
double oom_est_config_number(const oom_est_config *c);
const char *oom_est_config_string(const oom_est_config *c);
bool oom_est_config_true(const oom_est_config *c);
/* len() of an object or a list (a vocabulary file's entries); false for anything else. */
bool oom_est_config_len(oom_est_configs *cs, const oom_est_config *c, long long *out);
/* A list of whole numbers into out; 0 when it is anything else. */
size_t oom_est_config_ints(const oom_est_config *c, long long *out, size_t max);
/* Reads a value for a size: false, keeping its problem, when it is not
 * there; a scalar read records its object for the provenance line. */
bool oom_est_config_read(oom_est_configs *cs, const oom_est_config *value);
/* The first problem met ("config.json has no key [\"model\"]", "x.json is
 * not valid JSON", "the JSON config `args.config` is not known: give
 * --config"); "" when none. */
const char *oom_est_configs_why(const oom_est_configs *cs);
/* "; sizes from config.json [\"model\"]", the objects whose values were
 * read, for the provenance line; "" when none. */
void oom_est_configs_describe(const oom_est_configs *cs, char *buf, size_t size);
/* What a global read in a function holds (`name` in the function, no local
 * of that name): the value of its one module-level binding, or of the one
 * assignment in a function that declares it `global`, wherever it is in the
 * file; null when there is none or more than one. Kept in the store, which
 * lives as long as one model's reading. */
TSNode oom_est_global_value(oom_est_configs *cs, const oom_est_reader *r, const oom_nodes *layout, TSNode name);

/* ---- launch commands (launch.c, shell.c, arguments.c) --------------------------- */

/* What runs the command after it (wrappers.c): `skip` words of prefix
 * (`CUDA_VISIBLE_DEVICES=0`, `env ...`, `poetry run`), and whether the
 * next word is a console script the project (pyproject.toml or setup.py
 * in `dir`) declares, with the module it runs. False when neither. */
typedef struct {
    size_t skip;
    bool console;
    char module[160];
} oom_est_unwrapped;
bool oom_est_launch_unwrap(const char *dir, const oom_launch_word *words, size_t n, oom_est_unwrapped *out);
/* The file `python -m MODULE` runs from `dir`: pkg/train.py or
 * pkg/train/__main__.py, under src/ in a src layout; the first of them
 * when none is there (for the note that says so). Owned by the caller. */
char *oom_est_module_file(const char *dir, const char *module);

/* Reads a launch command's words (shell.c hands over a script's launch line). */
bool oom_est_launch_from_words(oom_launch *l, oom_launch_word *words, size_t n, oom_buf *err);
/* Frees one launch word's strings and clears it (launchrec.c). */
void oom_est_launch_word_free(oom_launch_word *w);
/* How a launch line's words become a launch (launch.c's
 * oom_est_launch_from_words), handed to the shell reader so that it need
 * not call back into launch.c, which calls it for `bash train.sh`. */
typedef bool (*oom_est_words_reader)(oom_launch *l, oom_launch_word *words, size_t n, oom_buf *err);
/* A shell script's launch line, run as `bash path ARGS...`: $1... are the ARGS. */
bool oom_est_launch_from_shell_run(const char *path, int argc, const char *const *argv, oom_launch *out,
                                   oom_buf *err, oom_est_words_reader read_words);
void oom_est_launch_note(oom_launch *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* snprintf into a text for people, cut short when it does not fit. */
void oom_est_printf(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Why a word of a shell script stayed unresolved: "is not set in the shell
 * script" ($VAR), "is not known before the shell script runs" ($1, $(...)). */
const char *oom_est_unresolved_why(const char *unresolved);
/* A DeepSpeed JSON config's ZeRO stage and optimizer offload; false when it
 * cannot be read or names no stage. */
bool oom_est_read_zero_json(const char *path, int *stage, bool *offload);
/* The input a setting's usual name feeds (batch, sequence, precision ...);
 * -1 for a name the estimate does not read (defaults.c). */
int oom_est_input_for_name(const char *name);
/* Binds the script's arguments to its settings (r->launch, after the
 * settings are collected), as argparse and HfArgumentParser would: each
 * setting given a value carries it; what binds to nothing is a note. */
void oom_est_bind_arguments(oom_est_reader *r);
/* After the script is read: the launcher's processes, precision and
 * sharding, the ZeRO config and accumulation the arguments name, and
 * rejected values marked on their inputs. */
void oom_est_apply_launch(oom_est_reader *r);

#endif

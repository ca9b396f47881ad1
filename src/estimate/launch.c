/* estimate/launch: a launch command's words, read as its launcher reads them:
 * the launcher's own options (processes, precision, sharding), then the
 * script, then the script's arguments, which stay words here (the reader
 * binds them to the script's options, estimate/arguments.c). An accelerate
 * config named by --config_file is read for what the flags would say. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "internal.h"
#include "oomlint/lang.h"
#include "oomlint/launch.h"
#include "oomlint/yamlmodel.h"

/* ---- options ---------------------------------------------------------------- */

/* What an option of a launcher means for the estimate. */
typedef enum {
    OPT_OTHER,          /* read and not used */
    OPT_NPROC,          /* torchrun --nproc_per_node */
    OPT_NNODES,         /* torchrun --nnodes, deepspeed --num_nodes */
    OPT_NUM_PROCESSES,  /* accelerate --num_processes (all machines together) */
    OPT_NUM_GPUS,       /* deepspeed --num_gpus (per node) */
    OPT_INCLUDE,        /* deepspeed --include localhost:0,1 */
    OPT_PRECISION,      /* accelerate --mixed_precision */
    OPT_CONFIG_FILE,    /* accelerate --config_file */
    OPT_ZERO_STAGE,     /* accelerate --zero_stage */
    OPT_OFFLOAD,        /* accelerate --offload_optimizer_device */
    OPT_DS_CONFIG,      /* accelerate --deepspeed_config_file */
    OPT_FSDP,           /* accelerate --use_fsdp */
    OPT_FSDP_STRATEGY,  /* accelerate --fsdp_sharding_strategy */
    OPT_MODULE,         /* -m / --module: the script is a module name */
    OPT_NO_PYTHON,      /* --no_python: the "script" is a program */
} opt_role;

typedef struct {
    const char *name; /* dashes as underscores, no leading dashes */
    bool value;       /* takes a value */
    opt_role role;
} launcher_opt;

static const launcher_opt torchrun_opts[] = {
    {"nproc_per_node", true, OPT_NPROC}, {"nnodes", true, OPT_NNODES}, {"node_rank", true, OPT_OTHER},
    {"master_addr", true, OPT_OTHER}, {"master_port", true, OPT_OTHER}, {"rdzv_backend", true, OPT_OTHER},
    {"rdzv_endpoint", true, OPT_OTHER}, {"rdzv_id", true, OPT_OTHER}, {"rdzv_conf", true, OPT_OTHER},
    {"standalone", false, OPT_OTHER}, {"max_restarts", true, OPT_OTHER}, {"monitor_interval", true, OPT_OTHER},
    {"start_method", true, OPT_OTHER}, {"role", true, OPT_OTHER}, {"m", false, OPT_MODULE},
    {"module", false, OPT_MODULE}, {"no_python", false, OPT_NO_PYTHON}, {"run_path", false, OPT_OTHER},
    {"log_dir", true, OPT_OTHER}, {"redirects", true, OPT_OTHER}, {"r", true, OPT_OTHER},
    {"tee", true, OPT_OTHER}, {"t", true, OPT_OTHER}, {"local_addr", true, OPT_OTHER},
    {"logs_specs", true, OPT_OTHER}, {"local_ranks_filter", true, OPT_OTHER}, {"use_env", false, OPT_OTHER},
    {"max_nodes", true, OPT_OTHER}, {"node_unit", true, OPT_OTHER}, {NULL, false, OPT_OTHER}};

static const launcher_opt accelerate_opts[] = {
    {"num_processes", true, OPT_NUM_PROCESSES}, {"num_machines", true, OPT_OTHER},
    {"mixed_precision", true, OPT_PRECISION}, {"config_file", true, OPT_CONFIG_FILE},
    {"zero_stage", true, OPT_ZERO_STAGE}, {"offload_optimizer_device", true, OPT_OFFLOAD},
    {"deepspeed_config_file", true, OPT_DS_CONFIG}, {"use_fsdp", false, OPT_FSDP},
    {"fsdp_sharding_strategy", true, OPT_FSDP_STRATEGY}, {"use_deepspeed", false, OPT_OTHER},
    {"multi_gpu", false, OPT_OTHER}, {"cpu", false, OPT_OTHER}, {"tpu", false, OPT_OTHER},
    {"ipex", false, OPT_OTHER}, {"use_megatron_lm", false, OPT_OTHER}, {"use_xpu", false, OPT_OTHER},
    {"quiet", false, OPT_OTHER}, {"q", false, OPT_OTHER}, {"debug", false, OPT_OTHER},
    {"same_network", false, OPT_OTHER}, {"m", false, OPT_MODULE}, {"module", false, OPT_MODULE},
    {"no_python", false, OPT_NO_PYTHON}, {"machine_rank", true, OPT_OTHER}, {"main_process_ip", true, OPT_OTHER},
    {"main_process_port", true, OPT_OTHER}, {"gpu_ids", true, OPT_OTHER}, {"dynamo_backend", true, OPT_OTHER},
    {"rdzv_backend", true, OPT_OTHER}, {"gradient_accumulation_steps", true, OPT_OTHER},
    {"gradient_clipping", true, OPT_OTHER}, {"offload_param_device", true, OPT_OTHER},
    {"zero3_init_flag", true, OPT_OTHER}, {"zero3_save_16bit_model", true, OPT_OTHER},
    {"fsdp_offload_params", true, OPT_OTHER}, {"fsdp_auto_wrap_policy", true, OPT_OTHER},
    {"fsdp_transformer_layer_cls_to_wrap", true, OPT_OTHER}, {"fsdp_state_dict_type", true, OPT_OTHER},
    {"num_cpu_threads_per_process", true, OPT_OTHER}, {"deepspeed_multinode_launcher", true, OPT_OTHER},
    {"deepspeed_hostfile", true, OPT_OTHER}, {"max_restarts", true, OPT_OTHER},
    {"monitor_interval", true, OPT_OTHER}, {NULL, false, OPT_OTHER}};

static const launcher_opt deepspeed_opts[] = {
    {"num_gpus", true, OPT_NUM_GPUS}, {"num_nodes", true, OPT_NNODES}, {"include", true, OPT_INCLUDE},
    {"i", true, OPT_INCLUDE}, {"exclude", true, OPT_OTHER}, {"e", true, OPT_OTHER},
    {"hostfile", true, OPT_OTHER}, {"H", true, OPT_OTHER}, {"master_port", true, OPT_OTHER},
    {"master_addr", true, OPT_OTHER}, {"launcher", true, OPT_OTHER}, {"launcher_args", true, OPT_OTHER},
    {"module", false, OPT_MODULE}, {"no_python", false, OPT_NO_PYTHON}, {"no_local_rank", false, OPT_OTHER},
    {"no_ssh_check", false, OPT_OTHER}, {"force_multi", false, OPT_OTHER}, {"save_pid", false, OPT_OTHER},
    {"enable_each_rank_log", true, OPT_OTHER}, {"autotuning", true, OPT_OTHER},
    {"elastic_training", false, OPT_OTHER}, {"min_elastic_nodes", true, OPT_OTHER},
    {"max_elastic_nodes", true, OPT_OTHER}, {"bind_cores_to_rank", false, OPT_OTHER},
    {"bind_core_list", true, OPT_OTHER}, {"ssh_port", true, OPT_OTHER}, {"node_rank", true, OPT_OTHER},
    {"no_ssh", false, OPT_OTHER}, {NULL, false, OPT_OTHER}};

/* python's own options before the script: those that take a value. */
static bool python_option_takes_value(const char *w)
{
    return strcmp(w, "-W") == 0 || strcmp(w, "-X") == 0 || strcmp(w, "--check-hash-based-pycs") == 0;
}

static const launcher_opt *find_opt(const launcher_opt *table, const char *name)
{
    for (size_t i = 0; table && table[i].name; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

/* ---- reading the words ----------------------------------------------------------- */

typedef struct {
    oom_launch *l;
    oom_launch_word *words;
    size_t n, i;
    bool module;       /* the next word names a module, not a file */
    bool no_python;
    int nproc, nnodes; /* torchrun / deepspeed, per node and nodes; 0: not said */
    oom_launch_word nproc_word, nnodes_word;
    bool nproc_assumed;
    bool fsdp;
    char fsdp_strategy[32];
    oom_launch_word fsdp_word;
} cursor;

/* A whole number in a word ("4"), else false. */
static bool word_int(const char *s, long long *out)
{
    char *end = NULL;
    if (!s || !*s)
        return false;
    long long v = strtoll(s, &end, 10);
    if (*end)
        return false;
    *out = v;
    return true;
}

static void set_from(const cursor *c, const oom_launch_word *w, const char *opt, const char *value, char *buf,
                     size_t size)
{
    char where[160];
    oom_launch_where(c->l, w, where, sizeof where);
    oom_est_printf(buf, size, "%s %s %s (%s)", oom_launcher_name(c->l->launcher), opt, value, where);
}

/* A count a launcher option names: a whole number, or a word it resolves at
 * run time (`--nproc_per_node gpu`, `$NGPU`), which leaves it assumed. */
static int read_count(cursor *c, const oom_launch_word *w, const char *opt, const char *value, bool *assumed)
{
    long long v;
    if (!w->unresolved && word_int(value, &v) && v > 0 && v < 1000000)
        return (int)v;
    char where[160];
    oom_launch_where(c->l, w, where, sizeof where);
    if (w->unresolved)
        oom_est_launch_note(c->l, "%s: %s %s: %s %s; 1 assumed", where, opt, value, w->unresolved,
                            oom_est_unresolved_why(w->unresolved));
    else
        oom_est_launch_note(c->l, "%s: %s %s is decided when the job starts (all the node's GPUs); 1 assumed",
                            where, opt, value);
    *assumed = true;
    return 1;
}

/* deepspeed --include localhost:0,1,2 (one host): its devices. */
static int include_count(const char *v)
{
    const char *colon = strchr(v, ':');
    if (!colon || strchr(v, '@'))
        return 0;
    int n = 1;
    for (const char *p = colon + 1; *p; p++)
        n += *p == ',';
    return n;
}

static int fsdp_stage(const char *strategy)
{
    if (strcasecmp(strategy, "FULL_SHARD") == 0 || strcmp(strategy, "1") == 0 ||
        strcasecmp(strategy, "HYBRID_SHARD") == 0 || strcmp(strategy, "4") == 0)
        return 3;
    if (strcasecmp(strategy, "SHARD_GRAD_OP") == 0 || strcmp(strategy, "2") == 0 ||
        strcasecmp(strategy, "_HYBRID_SHARD_ZERO2") == 0 || strcmp(strategy, "5") == 0)
        return 2;
    if (strcasecmp(strategy, "NO_SHARD") == 0 || strcmp(strategy, "3") == 0)
        return 0;
    return -1;
}

static void set_precision(cursor *c, const oom_launch_word *w, const char *value)
{
    static const char *const known[] = {"no", "fp16", "bf16", "fp8", NULL};
    for (int i = 0; known[i]; i++)
        if (strcmp(value, known[i]) == 0) {
            oom_est_printf(c->l->precision, sizeof c->l->precision, "%s", value);
            set_from(c, w, "--mixed_precision", value, c->l->precision_from, sizeof c->l->precision_from);
            return;
        }
    char where[160];
    oom_launch_where(c->l, w, where, sizeof where);
    oom_est_launch_note(c->l, "%s: --mixed_precision %s is not one of no, fp16, bf16, fp8; not used", where, value);
}

static void set_zero(cursor *c, const oom_launch_word *w, const char *opt, const char *value)
{
    long long v;
    if (word_int(value, &v) && v >= 0 && v <= 3) {
        c->l->zero_stage = (int)v;
        set_from(c, w, opt, value, c->l->zero_from, sizeof c->l->zero_from);
    }
}

static void read_accelerate_config(oom_launch *l, const char *path, const char *where);
static void read_zero_json(oom_launch *l, const char *path, const char *where);

static char *in_dir(const oom_launch *l, const char *path);

/* One option of the launcher in word `w`, with its value (NULL for a
 * switch) from word `vw` (`w` itself for `--opt=value`). */
static void apply_opt(cursor *c, const launcher_opt *o, const oom_launch_word *w, const oom_launch_word *vw,
                      const char *opt, const char *value)
{
    char where[160];
    oom_launch_where(c->l, w, where, sizeof where);
    switch (o->role) {
    case OPT_NPROC:
    case OPT_NUM_GPUS:
        c->nproc = read_count(c, vw, opt, value, &c->nproc_assumed);
        c->nproc_word = *w;
        break;
    case OPT_NNODES: {
        /* elastic MIN:MAX: the fewest nodes, where each GPU holds the most */
        char first[32];
        oom_est_printf(first, sizeof first, "%s", value);
        char *colon = strchr(first, ':');
        if (colon)
            *colon = '\0';
        c->nnodes = read_count(c, vw, opt, first, &c->nproc_assumed);
        c->nnodes_word = *w;
        break;
    }
    case OPT_NUM_PROCESSES:
        c->l->processes = read_count(c, vw, opt, value, &c->l->processes_assumed);
        set_from(c, w, opt, value, c->l->processes_from, sizeof c->l->processes_from);
        break;
    case OPT_INCLUDE:
        if (include_count(value) > 0) {
            c->nproc = include_count(value);
            c->nproc_word = *w;
        }
        break;
    case OPT_PRECISION:
        set_precision(c, w, value);
        break;
    case OPT_CONFIG_FILE: {
        char *p = in_dir(c->l, value);
        read_accelerate_config(c->l, p, where);
        free(p);
        break;
    }
    case OPT_ZERO_STAGE:
        set_zero(c, w, opt, value);
        break;
    case OPT_OFFLOAD:
        c->l->offload_optimizer = strcmp(value, "none") != 0;
        break;
    case OPT_DS_CONFIG: {
        char *p = in_dir(c->l, value);
        read_zero_json(c->l, p, where);
        free(p);
        break;
    }
    case OPT_FSDP:
        c->fsdp = true;
        c->fsdp_word = *w;
        break;
    case OPT_FSDP_STRATEGY:
        oom_est_printf(c->fsdp_strategy, sizeof c->fsdp_strategy, "%s", value);
        c->fsdp_word = *w;
        break;
    case OPT_MODULE:
        c->module = true;
        break;
    case OPT_NO_PYTHON:
        c->no_python = true;
        break;
    case OPT_OTHER:
        break;
    }
}

/* The launcher's options, up to the script: `--opt value`, `--opt=value`,
 * switches. An option the launcher does not have is kept as a note. */
static void read_launcher_options(cursor *c, const launcher_opt *table)
{
    while (c->i < c->n) {
        oom_launch_word *w = &c->words[c->i];
        if (w->text[0] != '-' || strcmp(w->text, "-") == 0)
            return;
        c->i++;
        if (strcmp(w->text, "--") == 0)
            return;
        char name[64];
        oom_est_option_name(w->text, name, sizeof name);
        const char *eq = strchr(w->text, '=');
        const launcher_opt *o = find_opt(table, name);
        const char *value = NULL;
        const oom_launch_word *vw = w;
        if (eq) {
            value = eq + 1;
        } else if ((o ? o->value : (c->i < c->n && c->words[c->i].text[0] != '-' &&
                                    !oom_str_ends_with(c->words[c->i].text, ".py"))) &&
                   c->i < c->n) {
            vw = &c->words[c->i++];
            value = vw->text;
        }
        if (!o) {
            char where[160];
            oom_launch_where(c->l, w, where, sizeof where);
            oom_est_launch_note(c->l, "%s: %s is not an option of %s that oomlint knows; not used", where, w->text,
                                oom_launcher_name(c->l->launcher));
            continue;
        }
        if (o->value && !value) {
            char where[160];
            oom_launch_where(c->l, w, where, sizeof where);
            oom_est_launch_note(c->l, "%s: %s has no value", where, w->text);
            continue;
        }
        char opt[72];
        oom_est_printf(opt, sizeof opt, "--%s", name);
        apply_opt(c, o, w, vw, w->text[1] == '-' ? opt : w->text, value);
    }
}

/* python's options before the script; `-m torch.distributed.run` switches
 * to torchrun's, `-m accelerate.commands.launch` to accelerate's. Returns
 * the launcher options to read next, if any. */
static const launcher_opt *read_python_options(cursor *c)
{
    while (c->i < c->n) {
        const char *w = c->words[c->i].text;
        if (w[0] != '-' || strcmp(w, "-") == 0)
            return NULL;
        c->i++;
        if (strcmp(w, "-c") == 0) {
            char where[160];
            oom_launch_where(c->l, &c->words[c->i - 1], where, sizeof where);
            oom_est_launch_note(c->l, "%s: python -c runs code written on the command line, not a script", where);
            c->i = c->n;
            return NULL;
        }
        if (strcmp(w, "-m") == 0 && c->i < c->n) {
            const char *mod = c->words[c->i].text;
            if (strcmp(mod, "torch.distributed.run") == 0 || strcmp(mod, "torch.distributed.launch") == 0) {
                c->i++;
                c->l->launcher = OOM_LAUNCHER_TORCHRUN;
                return torchrun_opts;
            }
            if (strcmp(mod, "accelerate.commands.launch") == 0) {
                c->i++;
                c->l->launcher = OOM_LAUNCHER_ACCELERATE;
                return accelerate_opts;
            }
            c->module = true;
            return NULL;
        }
        if (python_option_takes_value(w) && c->i < c->n)
            c->i++;
    }
    return NULL;
}

/* The path a relative one names, from where the command runs. */
static char *in_dir(const oom_launch *l, const char *path)
{
    oom_buf b;
    oom_buf_init(&b);
    if (path[0] == '/' || !l->dir || !*l->dir || strcmp(l->dir, ".") == 0)
        oom_buf_puts(&b, path);
    else
        oom_buf_printf(&b, "%s/%s", l->dir, path);
    return oom_buf_take(&b);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static oom_launch_word word_dup(const oom_launch_word *w)
{
    oom_launch_word d = *w;
    d.text = oom_xstrdup(w->text);
    d.unresolved = w->unresolved ? oom_xstrdup(w->unresolved) : NULL;
    return d;
}

/* The script word, then everything after it is the script's. */
static void read_script(cursor *c)
{
    oom_launch *l = c->l;
    if (c->i >= c->n) {
        oom_est_launch_note(l, "%s runs no script: nothing to read the model and batch from",
                            oom_launcher_name(l->launcher));
        return;
    }
    oom_launch_word *w = &c->words[c->i++];
    l->script_word = word_dup(w);
    char where[160];
    oom_launch_where(l, w, where, sizeof where);
    if (!w->text[0]) {
        oom_est_launch_note(l, "%s: an empty word where the script's name should be", where);
    } else if (c->no_python) {
        oom_est_launch_note(l, "%s: --no_python runs the program %s, not a Python script", where, w->text);
    } else if (w->unresolved) {
        oom_est_launch_note(l, "%s: the script's name %s has %s, which %s", where, w->text, w->unresolved,
                            oom_est_unresolved_why(w->unresolved) + 3);
    } else {
        l->script = c->module ? oom_est_module_file(l->dir, w->text) : in_dir(l, w->text);
        l->script_exists = is_file(l->script);
    }
    for (; c->i < c->n; c->i++) {
        OOM_PUSH(l->args, l->arg_count, l->arg_cap, word_dup(&c->words[c->i]));
    }
}

/* torchrun / deepspeed: processes per node x nodes; torchrun's defaults are
 * one of each, deepspeed's every GPU of the node. */
static void settle_processes(cursor *c)
{
    oom_launch *l = c->l;
    if (l->launcher == OOM_LAUNCHER_TORCHRUN) {
        int per = c->nproc > 0 ? c->nproc : 1, nodes = c->nnodes > 0 ? c->nnodes : 1;
        l->processes = per * nodes;
        l->processes_assumed = c->nproc_assumed;
        char a[160] = "", b[160] = "";
        if (c->nproc > 0)
            oom_launch_where(l, &c->nproc_word, a, sizeof a);
        if (c->nnodes > 0)
            oom_launch_where(l, &c->nnodes_word, b, sizeof b);
        oom_est_printf(l->processes_from, sizeof l->processes_from, "torchrun: %d per node%s%s%s x %d node%s%s%s%s", per,
                 a[0] ? " (" : " (its default", a, ")", nodes, nodes == 1 ? "" : "s", b[0] ? " (" : "", b,
                 b[0] ? ")" : "");
    } else if (l->launcher == OOM_LAUNCHER_DEEPSPEED) {
        if (c->nproc <= 0) {
            oom_est_launch_note(l, "deepspeed without --num_gpus uses every GPU of the node: their number is not "
                                   "in the command; 1 assumed");
            l->processes = 1;
            l->processes_assumed = true;
            oom_est_printf(l->processes_from, sizeof l->processes_from, "deepspeed without --num_gpus: every GPU of the node");
            return;
        }
        int nodes = c->nnodes > 0 ? c->nnodes : 1;
        l->processes = c->nproc * nodes;
        l->processes_assumed = c->nproc_assumed;
        char a[160];
        oom_launch_where(l, &c->nproc_word, a, sizeof a);
        oom_est_printf(l->processes_from, sizeof l->processes_from, "deepspeed: %d GPUs per node (%s) x %d node%s",
                 c->nproc, a, nodes, nodes == 1 ? "" : "s");
    } else if (l->launcher == OOM_LAUNCHER_ACCELERATE && l->processes == 0) {
        oom_est_launch_note(l, "accelerate launch without --num_processes or a config file that names them: the "
                               "machine's own accelerate config decides (not read); 1 GPU assumed");
    }
}

static void settle_fsdp(cursor *c)
{
    if (!c->fsdp && !c->fsdp_strategy[0])
        return;
    const char *strategy = c->fsdp_strategy[0] ? c->fsdp_strategy : "FULL_SHARD";
    int stage = fsdp_stage(strategy);
    if (stage < 0)
        return;
    c->l->zero_stage = stage;
    char where[160];
    oom_launch_where(c->l, &c->fsdp_word, where, sizeof where);
    oom_est_printf(c->l->zero_from, sizeof c->l->zero_from, "accelerate FSDP %s, sharded as ZeRO stage %d (%s)",
             strategy, stage, where);
}

/* The launcher a command's first word names; the index of the words its
 * options start at. */
static oom_launcher launcher_of(cursor *c)
{
    const char *first = c->words[0].text;
    const char *base = strrchr(first, '/');
    base = base ? base + 1 : first;
    c->i = 1;
    if (strcmp(base, "torchrun") == 0)
        return OOM_LAUNCHER_TORCHRUN;
    if (strcmp(base, "deepspeed") == 0)
        return OOM_LAUNCHER_DEEPSPEED;
    if (strcmp(base, "accelerate-launch") == 0)
        return OOM_LAUNCHER_ACCELERATE;
    if (strcmp(base, "accelerate") == 0 && c->n > 1 && strcmp(c->words[1].text, "launch") == 0) {
        c->i = 2;
        return OOM_LAUNCHER_ACCELERATE;
    }
    if (strncmp(base, "python", 6) == 0)
        return OOM_LAUNCHER_PYTHON;
    c->i = 0; /* `-- train.py --bf16`: the script named alone */
    return OOM_LAUNCHER_NONE;
}

/* The command past what only sets its environment (`CUDA_VISIBLE_DEVICES=0`,
 * `poetry run`), and a console script as the `python -m MODULE` it runs: a
 * new array of words then, returned for the caller to free. */
static oom_launch_word *unwrapped(oom_launch *l, oom_launch_word **words, size_t *n)
{
    oom_est_unwrapped u;
    if (!oom_est_launch_unwrap(l->dir, *words, *n, &u))
        return NULL;
    char where[160];
    oom_launch_word *first = &(*words)[u.skip];
    oom_launch_where(l, first, where, sizeof where);
    if (u.skip > 0)
        oom_est_launch_note(l, "%s: the command runs after `%s%s`, which only sets its environment", where,
                            (*words)[0].text, u.skip > 1 ? " ..." : "");
    *words += u.skip, *n -= u.skip;
    if (!u.console)
        return NULL;
    oom_est_launch_note(l, "%s: %s is a console script of the project: it runs the module %s", where, first->text,
                        u.module);
    size_t rest = *n - 1; /* `yolo-train ARGS` runs `python -m pytorchyolo.train ARGS` */
    oom_launch_word *w = oom_xcalloc(rest + 3, sizeof *w);
    const char *lead[] = {"python", "-m", u.module};
    for (int i = 0; i < 3; i++) {
        w[i] = word_dup(first);
        free(w[i].text);
        w[i].text = oom_xstrdup(lead[i]);
    }
    for (size_t i = 0; i < rest; i++)
        w[3 + i] = word_dup(&first[1 + i]);
    *words = w, *n = rest + 3;
    return w;
}

bool oom_est_launch_from_words(oom_launch *l, oom_launch_word *words, size_t n, oom_buf *err)
{
    if (n == 0) {
        oom_buf_puts(err, "no command to read: give it after -- (oomlint estimate -- torchrun ... train.py ...)");
        return false;
    }
    oom_buf cmd;
    oom_buf_init(&cmd);
    for (size_t i = 0; i < n; i++)
        oom_buf_printf(&cmd, "%s%s", i ? " " : "", words[i].text);
    l->command = oom_buf_take(&cmd);
    l->line = words[0].line;
    oom_launch_word *console = unwrapped(l, &words, &n);
    cursor c;
    memset(&c, 0, sizeof c);
    c.l = l, c.words = words, c.n = n;
    l->launcher = launcher_of(&c);
    const launcher_opt *table = l->launcher == OOM_LAUNCHER_TORCHRUN     ? torchrun_opts
                                : l->launcher == OOM_LAUNCHER_DEEPSPEED  ? deepspeed_opts
                                : l->launcher == OOM_LAUNCHER_ACCELERATE ? accelerate_opts
                                                                         : NULL;
    if (l->launcher == OOM_LAUNCHER_PYTHON)
        table = read_python_options(&c);
    if (table)
        read_launcher_options(&c, table);
    read_script(&c);
    settle_processes(&c);
    settle_fsdp(&c);
    for (size_t i = 0; console && i < n; i++)
        oom_est_launch_word_free(&console[i]);
    free(console);
    return true;
}

/* `bash train.sh ARGS`, `sh -e train.sh`, `./train.sh`: the shell script's
 * index among argv, or -1. */
static int shell_script_word(int argc, const char *const *argv)
{
    if (argc < 1)
        return -1;
    if (oom_str_ends_with(argv[0], ".sh"))
        return 0;
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    if (strcmp(base, "bash") != 0 && strcmp(base, "sh") != 0 && strcmp(base, "zsh") != 0)
        return -1;
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-')
            return i;
    return -1;
}

bool oom_launch_from_argv(int argc, const char *const *argv, oom_launch *out, oom_buf *err)
{
    int sh = shell_script_word(argc, argv);
    if (sh >= 0)
        return oom_est_launch_from_shell_run(argv[sh], argc - sh - 1, argv + sh + 1, out, err,
                                             oom_est_launch_from_words);
    oom_launch_init(out);
    out->dir = oom_xstrdup(".");
    oom_launch_word *words = oom_xcalloc(argc > 0 ? (size_t)argc : 1, sizeof *words);
    for (int i = 0; i < argc; i++) {
        words[i].text = oom_xstrdup(argv[i]);
        words[i].index = (unsigned)i + 1;
    }
    bool ok = oom_est_launch_from_words(out, words, argc > 0 ? (size_t)argc : 0, err);
    for (int i = 0; i < argc; i++)
        oom_est_launch_word_free(&words[i]);
    free(words);
    return ok;
}

/* ---- the configs a launcher is given ------------------------------------------------ */

/* A DeepSpeed JSON config: its ZeRO stage and optimizer offload. */
static void read_zero_json(oom_launch *l, const char *path, const char *where)
{
    int stage;
    bool offload;
    if (!oom_est_read_zero_json(path, &stage, &offload)) {
        oom_est_launch_note(l, "%s: %s is not a readable DeepSpeed config with a ZeRO stage", where, path);
        return;
    }
    l->zero_stage = stage;
    l->offload_optimizer = offload;
    oom_est_printf(l->zero_from, sizeof l->zero_from, "ZeRO stage %d from %s (%s)%s", stage, path, where,
             offload ? ", optimizer offloaded" : "");
}

typedef struct {
    oom_yamlmodel *m;
    oom_source *src;
    const char *path;
    oom_buf value;
    char at[200]; /* "accelerate.yaml:3" of the last value found */
} accel_config;

static bool config_value(accel_config *a, const char *key)
{
    TSNode none = {{0}, NULL, NULL};
    TSNode pair = oom_yamlmodel_find(a->m, none, key);
    if (ts_node_is_null(pair))
        return false;
    oom_yaml_value_type t = oom_yamlmodel_pair_value(a->m, pair, &a->value);
    if (t == OOM_YAML_VALUE_NULL || t == OOM_YAML_VALUE_NONE)
        return false;
    oom_est_printf(a->at, sizeof a->at, "%s:%u %s", a->path, ts_node_start_point(pair).row + 1, key);
    return true;
}

/* What the flags would say, from the config; a flag given on the command
 * line wins (accelerate's own order), so a value already set stays. */
static void read_accelerate_values(oom_launch *l, accel_config *a)
{
    long long n;
    if (l->processes == 0 && config_value(a, "num_processes") && word_int(a->value.data, &n) && n > 0) {
        l->processes = (int)n;
        oom_est_printf(l->processes_from, sizeof l->processes_from, "accelerate config %s: %s", a->at, a->value.data);
    }
    if (!l->precision[0] && config_value(a, "mixed_precision") && strlen(a->value.data) < sizeof l->precision) {
        oom_est_printf(l->precision, sizeof l->precision, "%s", a->value.data);
        oom_est_printf(l->precision_from, sizeof l->precision_from, "accelerate config %s: %s", a->at, a->value.data);
    }
    if (l->zero_stage >= 0 || !config_value(a, "distributed_type"))
        return;
    if (strcmp(a->value.data, "DEEPSPEED") == 0) {
        if (config_value(a, "deepspeed_config.deepspeed_config_file")) {
            char *p = in_dir(l, a->value.data);
            read_zero_json(l, p, a->at);
            free(p);
        } else if (config_value(a, "deepspeed_config.zero_stage") && word_int(a->value.data, &n) && n >= 0 && n <= 3) {
            l->zero_stage = (int)n;
            oom_est_printf(l->zero_from, sizeof l->zero_from, "accelerate config %s: %lld", a->at, n);
            l->offload_optimizer = config_value(a, "deepspeed_config.offload_optimizer_device") &&
                                   strcmp(a->value.data, "none") != 0;
        }
    } else if (strcmp(a->value.data, "FSDP") == 0) {
        const char *strategy = config_value(a, "fsdp_config.fsdp_sharding_strategy") ? a->value.data : "FULL_SHARD";
        char s[32];
        oom_est_printf(s, sizeof s, "%s", strategy);
        int stage = fsdp_stage(s);
        if (stage >= 0) {
            l->zero_stage = stage;
            oom_est_printf(l->zero_from, sizeof l->zero_from, "accelerate config %s: FSDP %s, sharded as ZeRO stage %d",
                     a->path, s, stage);
        }
    }
}

static void read_accelerate_config(oom_launch *l, const char *path, const char *where)
{
    oom_yaml_file file;
    char why[256];
    if (!oom_yaml_file_read(path, &file, why, sizeof why)) {
        oom_est_launch_note(l, "%s: --config_file %s: %s; the flags alone are read", where, path, why);
        oom_yaml_file_free(&file);
        return;
    }
    accel_config a = {file.model, &file.src, path, {0}, ""};
    oom_buf_init(&a.value);
    if (a.m)
        read_accelerate_values(l, &a);
    else
        oom_est_launch_note(l, "%s: --config_file %s is not YAML oomlint can read", where, path);
    oom_buf_free(&a.value);
    oom_yaml_file_free(&file);
}

bool oom_launch_from_shell(const char *path, oom_launch *out, oom_buf *err)
{
    return oom_est_launch_from_shell_run(path, 0, NULL, out, err, oom_est_launch_from_words);
}

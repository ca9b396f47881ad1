/* cli/run: the commands (check, rule, rules, --help, --version). This is the
 * only layer that prints or decides the exit code. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oomlint/cli.h"
#include "oomlint/config.h"
#include "oomlint/diffbase.h"
#include "oomlint/discover.h"
#include "oomlint/engine.h"
#include "oomlint/estimate.h"
#include "oomlint/rules.h"
#include "oomlint/run.h"
#include "oomlint/server.h"
#include "oomlint/text.h"
#include "internal.h"


static void print_error(const char *msg)
{
    oom_buf out;
    oom_buf_init(&out);
    oom_buf_puts(&out, "oomlint: error: ");
    oom_text_append_display(&out, msg, strlen(msg), 0);
    fprintf(stderr, "%s\n", out.data);
    oom_buf_free(&out);
}

static bool use_color(oom_color_mode mode)
{
    if (mode != OOM_COLOR_AUTO)
        return mode == OOM_COLOR_ALWAYS;
    const char *no_color = getenv("NO_COLOR");
    if (no_color && *no_color)
        return false;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return isatty(STDOUT_FILENO);
}

static int load_rules(const oom_settings *s, oom_rule_list *rules)
{
    oom_buf err;
    oom_buf_init(&err);
    int rc = oom_rules_add_embedded(rules, &err);
    for (size_t i = 0; rc == 0 && i < s->rule_dirs.len; i++)
        rc = oom_rules_add_dir(rules, s->rule_dirs.items[i], &err);
    if (rc != 0)
        print_error(err.data);
    oom_buf_free(&err);
    return rc;
}

/* ---- oomlint rule / rules ---------------------------------------------------------------- */

static int cmd_rule(const oom_settings *s, const oom_rule_list *rules)
{
    char code[32];
    snprintf(code, sizeof code, "%s", s->rule_code);
    for (char *c = code; *c; c++)
        *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
    const oom_rule *r = oom_rules_find(rules, code);
    if (!r) {
        for (size_t i = 0; i < rules->len && !r; i++)
            if (strcmp(rules->items[i].name, s->rule_code) == 0)
                r = &rules->items[i];
    }
    if (!r) {
        oom_buf msg;
        oom_buf_init(&msg);
        oom_buf_printf(&msg, "unknown rule '%s' (see oomlint rules)", s->rule_code);
        print_error(msg.data);
        oom_buf_free(&msg);
        return OOM_EXIT_FAILURE;
    }
    oom_buf doc;
    oom_buf_init(&doc);
    oom_rule_describe(r, &doc);
    fputs(doc.data, stdout);
    oom_buf_free(&doc);
    return OOM_EXIT_CLEAN;
}

/* One line a rule; the fix column says how far its fixes can be trusted
 * (safe: --fix; unsafe: --unsafe-fixes; display-only: shown, never applied). */
static int cmd_rules(const oom_rule_list *rules)
{
    oom_buf fix;
    oom_buf_init(&fix);
    for (size_t i = 0; i < rules->len; i++) {
        const oom_rule *r = &rules->items[i];
        oom_buf_clear(&fix);
        oom_fix_spec_describe(r->fix, &fix);
        printf("%-8s %-36s %-8s %-7s %-12s %s\n", r->code, r->name, oom_severity_name(r->severity),
               r->opt_in ? "opt-in" : "default", fix.len ? fix.data : "-", r->summary);
    }
    oom_buf_free(&fix);
    return OOM_EXIT_CLEAN;
}

/* ---- oomlint check ------------------------------------------------------------------------- */

typedef struct {
    const oom_settings *s;
    const oom_compiled *compiled;
    oom_diag_list diags;
    bool failed;
} check_run;

static int default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

static void report_walk_errors(check_run *run, const oom_discovery *d)
{
    for (size_t i = 0; i < d->error_count; i++) {
        const oom_walk_error *e = &d->errors[i];
        if (e->named) {
            oom_buf msg;
            oom_buf_init(&msg);
            oom_buf_printf(&msg, "%s: %s", e->path, e->reason);
            print_error(msg.data);
            oom_buf_free(&msg);
            run->failed = true;
        } else {
            oom_report_unreadable(run->compiled, e->path, e->reason, &run->diags);
        }
    }
}

static int write_all(FILE *f, const oom_buf *b)
{
    if (b->len && fwrite(b->data, 1, b->len, f) != b->len)
        return -1;
    return fflush(f);
}

/* GitHub shows this file as the job summary. Appending is how the runner
 * expects it to be written. */
static void append_step_summary(const oom_diag_list *diags)
{
    const char *path = getenv("GITHUB_STEP_SUMMARY");
    if (!path || !*path)
        return;
    oom_buf md;
    oom_buf_init(&md);
    oom_report_github_summary(diags, &md);
    FILE *f = fopen(path, "ab");
    if (!f || write_all(f, &md) != 0) {
        oom_buf msg;
        oom_buf_init(&msg);
        oom_buf_printf(&msg, "%s: cannot append the job summary: %s", path, strerror(errno));
        print_error(msg.data);
        oom_buf_free(&msg);
    }
    if (f)
        fclose(f);
    oom_buf_free(&md);
}

static bool path_inside(const char *root, const char *path)
{
    char *real = realpath(path, NULL);
    if (!real)
        return true; /* a missing path is reported on its own */
    size_t n = strlen(root);
    bool inside = strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
    free(real);
    return inside;
}

static int filter_to_changed_lines(const oom_settings *s, oom_diag_list *diags)
{
    oom_changes changes;
    oom_buf err;
    oom_buf_init(&err);
    if (oom_changes_load(s->diff_base, &changes, &err) != 0) {
        print_error(err.data);
        oom_buf_free(&err);
        oom_changes_free(&changes);
        return -1;
    }
    for (size_t i = 0; i < s->paths.len; i++) {
        if (strcmp(s->paths.items[i], "-") == 0 || path_inside(changes.root, s->paths.items[i]))
            continue;
        oom_buf_printf(&err, "--diff-base %s: %s is outside the git work tree %s", s->diff_base,
                       s->paths.items[i], changes.root);
        print_error(err.data);
        oom_buf_free(&err);
        oom_changes_free(&changes);
        return -1;
    }
    unsigned char *drop = oom_xcalloc(diags->len ? diags->len : 1, 1);
    for (size_t i = 0; i < diags->len; i++) {
        const oom_diag *d = &diags->items[i];
        bool changed = false;
        /* git knows a notebook's lines as the .ipynb file's */
        uint32_t first = d->cell ? d->file_start_row : d->start_row;
        uint32_t last = d->cell ? d->file_end_row : d->end_row;
        for (uint32_t row = first; row <= last && !changed; row++)
            changed = oom_changes_covers(&changes, d->path, row);
        drop[i] = !changed;
    }
    oom_diag_list_remove_if_marked(diags, drop);
    free(drop);
    oom_changes_free(&changes);
    oom_buf_free(&err);
    return 0;
}

static int exit_code_for(const oom_settings *s, const oom_diag_list *diags)
{
    if (s->exit_zero)
        return OOM_EXIT_CLEAN;
    for (size_t i = 0; i < diags->len; i++)
        if (diags->items[i].severity >= s->fail_on)
            return OOM_EXIT_FOUND;
    return OOM_EXIT_CLEAN;
}

/* The report, to `to` (standard output, or standard error when standard
 * output carries stdin's fixed code) or to --output-file. A --fix run's
 * summary goes in the text formats, and to standard error beside the others. */
static int emit_report(const oom_settings *s, const oom_rule_list *rules, const oom_diag_list *diags,
                       size_t files, const oom_fix_summary *fixed, FILE *to)
{
    char cwd[4096];
    bool text = s->format == OOM_FORMAT_FULL || s->format == OOM_FORMAT_CONCISE;
    oom_report_options opts = {s->format, use_color(s->color) && !s->output_file && to == stdout, s->quiet,
                               s->statistics, files, rules, getcwd(cwd, sizeof cwd) ? cwd : NULL,
                               s->show_fixes, text && !s->statistics ? fixed : NULL};
    if (fixed && !opts.fixed && !s->quiet && fixed->total) {
        oom_buf note;
        oom_buf_init(&note);
        oom_report_fix_summary(fixed, s->show_fixes, &note);
        write_all(stderr, &note);
        oom_buf_free(&note);
    }
    oom_buf out, err;
    oom_buf_init(&out);
    oom_buf_init(&err);
    oom_report_render(diags, &opts, &out);
    int rc = 0;
    if (s->output_file) {
        rc = oom_write_file_atomically(s->output_file, out.data, out.len, &err);
    } else if (write_all(to, &out) != 0) {
        oom_buf_puts(&err, "cannot write the report");
        rc = -1;
    }
    if (rc != 0)
        print_error(err.data);
    if (s->format == OOM_FORMAT_GITHUB)
        append_step_summary(diags);
    oom_buf_free(&out);
    oom_buf_free(&err);
    return rc;
}

/* ---- project settings: CLI flags over [tool.oomlint] over defaults ---------------- */

typedef struct {
    oom_config config; /* empty when none was found or --isolated */
    bool have_config;
    oom_selection selection;
    oom_strlist exclude;
    oom_kb kb;
    bool have_kb;
    oom_run_context run;
} effective_settings;

static void copy_list(oom_strlist *to, const oom_strlist *from)
{
    for (size_t i = 0; i < from->len; i++)
        oom_strlist_push(to, from->items[i]);
}

static int resolve_gpu(effective_settings *e, const char *name, const char *origin)
{
    e->run.gpu = oom_kb_find_gpu(&e->kb, name);
    if (e->run.gpu)
        return 0;
    const char *close[3];
    size_t n = oom_kb_closest_gpus(&e->kb, name, close, 3);
    oom_buf msg;
    oom_buf_init(&msg);
    oom_buf_printf(&msg, "%sunknown GPU '%s'", origin, name);
    for (size_t i = 0; i < n; i++)
        oom_buf_printf(&msg, "%s%s", i == 0 ? " (closest: " : ", ", close[i]);
    oom_buf_puts(&msg, n ? "); see oomlint gpus" : "; see oomlint gpus");
    print_error(msg.data);
    oom_buf_free(&msg);
    return -1;
}

static int load_settings(const oom_settings *s, effective_settings *e)
{
    memset(e, 0, sizeof(*e));
    oom_buf err;
    oom_buf_init(&err);
    int rc = 0;
    if (!s->isolated) {
        char *path = s->config_file ? oom_xstrdup(s->config_file)
                                    : oom_config_find(s->paths.len ? s->paths.items[0] : ".");
        if (path) {
            rc = oom_config_load(path, &e->config, &err);
            e->have_config = rc == 0;
            if (rc != 0)
                print_error(err.data);
        }
        free(path);
    }
    if (rc == 0 && oom_kb_load_embedded(&e->kb, &err) != 0) {
        print_error(err.data);
        rc = -1;
    }
    e->have_kb = rc == 0;
    e->run.kb = &e->kb;
    copy_list(&e->selection.select, s->selection.select.len || !e->config.has_select ? &s->selection.select
                                                                                     : &e->config.select);
    copy_list(&e->selection.ignore, s->selection.ignore.len || !e->config.has_ignore ? &s->selection.ignore
                                                                                     : &e->config.ignore);
    /* extend-select adds up, as in Ruff: the file's, then the command line's */
    copy_list(&e->selection.extend, &e->config.extend_select);
    copy_list(&e->selection.extend, &s->selection.extend);
    copy_list(&e->exclude, &s->exclude);
    copy_list(&e->exclude, &e->config.exclude);
    e->run.num_gpus = s->num_gpus ? s->num_gpus : e->config.num_gpus;
    bool version_ok; /* both were checked when read */
    const char *torch = s->torch_version ? s->torch_version : e->config.torch;
    e->run.eager_module_loading = torch && oom_torch_loads_eagerly(torch, &version_ok);
    e->run.bf16_check_is_capability = torch && oom_torch_before(torch, 2, 4, &version_ok);
    if (rc == 0 && s->gpu) {
        rc = resolve_gpu(e, s->gpu, "--gpu: ");
    } else if (rc == 0 && e->config.gpu) {
        oom_buf where;
        oom_buf_init(&where);
        oom_buf_printf(&where, "%s:%u:%u: ", e->config.path, e->config.gpu_line, e->config.gpu_col);
        rc = resolve_gpu(e, e->config.gpu, where.data);
        oom_buf_free(&where);
    }
    oom_buf_free(&err);
    return rc;
}

static void free_settings(effective_settings *e)
{
    oom_config_free(&e->config);
    oom_selection_free(&e->selection);
    oom_strlist_free(&e->exclude);
    if (e->have_kb)
        oom_kb_free(&e->kb);
}

/* The semantic predicates a rule's query can ask, from the engine's table. */
static int cmd_predicates(void)
{
    for (size_t i = 0; i < oom_semantic_predicate_count(); i++) {
        int min_args, max_args;
        const char *only, *doc;
        const char *name = oom_semantic_predicate_at(i, &min_args, &max_args, &only, &doc);
        char args[48] = "";
        for (int k = 0; k < min_args && k < 3; k++)
            strcat(args, " \"ARG\"");
        if (max_args > min_args)
            strcat(args, min_args == 0 ? " [\"ARG\"...]" : " ...");
        printf("#%s? @x%s%s%s%s\n    %s\n", name, args, only ? " (" : "", only ? only : "", only ? ")" : "", doc);
    }
    return OOM_EXIT_CLEAN;
}

static int cmd_gpus(void)
{
    oom_kb kb;
    oom_buf err;
    oom_buf_init(&err);
    if (oom_kb_load_embedded(&kb, &err) != 0) {
        print_error(err.data);
        oom_buf_free(&err);
        return OOM_EXIT_FAILURE;
    }
    printf("%-22s %8s  %-7s %-4s %-4s %-4s %-4s %-4s  %s\n", "GPU", "memory", "cc", "fp16", "bf16", "tf32",
           "fp8", "FA2", "names you can use");
    for (size_t i = 0; i < kb.gpu_count; i++) {
        const oom_gpu *g = &kb.gpus[i];
        char mem[32];
        if (g->memory_gib >= 0)
            snprintf(mem, sizeof mem, "%g GiB", g->memory_gib);
        else
            snprintf(mem, sizeof mem, "host");
        printf("%-22s %8s  %-7s %-4s %-4s %-4s %-4s %-4s  ", g->id, mem, g->compute_capability,
               g->fp16_tensor_cores ? "yes" : "no", g->bf16 ? "yes" : "no", g->tf32 ? "yes" : "no", g->fp8 ? "yes" : "no",
               g->flash_attention_2 ? "yes" : "no");
        for (size_t a = 0; a < g->aliases.len; a++)
            printf("%s%s", a ? ", " : "", g->aliases.items[a]);
        putchar('\n');
        if (g->note)
            printf("%-22s %8s  note: %s\n", "", "", g->note);
    }
    puts("\nfp16: fp16 tensor cores; bf16: native bf16; tf32; fp8; FA2: FlashAttention-2 support.");
    oom_kb_free(&kb);
    oom_buf_free(&err);
    return OOM_EXIT_CLEAN;
}

/* --select NOPE is a typo, not a request for no rules. */
static int check_codes_exist(const oom_rule_list *rules, const oom_selection *sel)
{
    const oom_strlist *lists[3] = {&sel->select, &sel->ignore, &sel->extend};
    static const char *const what[3] = {"select", "ignore", "extend-select"};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < lists[l]->len; i++) {
            const char *p = lists[l]->items[i];
            bool known = strcmp(p, "ALL") == 0;
            for (size_t r = 0; r < rules->len && !known; r++)
                known = strncmp(rules->items[r].code, p, strlen(p)) == 0;
            if (!known) {
                oom_buf msg;
                oom_buf_init(&msg);
                oom_buf_printf(&msg, "%s: no rule has a code starting with '%s' (see oomlint rules)",
                               what[l], p);
                print_error(msg.data);
                oom_buf_free(&msg);
                return -1;
            }
        }
    return 0;
}

static int cmd_estimate(const oom_settings *s)
{
    effective_settings eff;
    if (load_settings(s, &eff) != 0) {
        free_settings(&eff);
        return OOM_EXIT_FAILURE;
    }
    int rc = oom_cli_estimate(s, &eff.kb, &eff.run);
    free_settings(&eff);
    return rc;
}

/* What linting the targets takes; run once, and again after --fix changed files. */
typedef struct {
    const oom_rule_list *rules;
    const effective_settings *eff;
    const oom_compiled *compiled;
    oom_job *jobs;
    size_t count;
    int threads;
    struct oom_cache *cache; /* NULL: none */
} lint_plan;

static void lint_targets(const lint_plan *p, oom_diag_list *out)
{
    oom_run_settings rs = {p->rules, &p->eff->selection, p->compiled, &p->eff->run,
                           p->eff->have_config ? &p->eff->config : NULL, p->threads, NULL, p->cache};
    oom_run(&rs, p->jobs, p->count, out);
}

/* Flags over [tool.oomlint]: fixable (ALL when neither says), unfixable,
 * unsafe-fixes. */
static void fix_settings_for(const oom_settings *s, const effective_settings *eff, oom_fix_settings *fs)
{
    memset(fs, 0, sizeof *fs);
    fs->apply = s->fix;
    fs->diff = s->diff;
    bool unsafe = s->unsafe_fixes >= 0 ? s->unsafe_fixes == 1 : eff->config.unsafe_fixes == 1;
    fs->max = unsafe ? OOM_FIX_UNSAFE : OOM_FIX_SAFE;
    const oom_strlist *fixable = s->fixable.len || !eff->config.has_fixable ? &s->fixable : &eff->config.fixable;
    const oom_strlist *unfixable =
        s->unfixable.len || !eff->config.has_unfixable ? &s->unfixable : &eff->config.unfixable;
    copy_list(&fs->fixable.select, fixable);
    if (fs->fixable.select.len == 0)
        oom_strlist_push(&fs->fixable.select, "ALL");
    copy_list(&fs->fixable.ignore, unfixable);
    fs->config = eff->have_config ? &eff->config : NULL;
}

/* --fix on stdin reads it once, here, so that the text can be fixed and
 * written back to standard output. */
static char *read_stdin_whole(size_t *len)
{
    oom_buf b;
    oom_buf_init(&b);
    char chunk[65536];
    for (;;) {
        size_t n = fread(chunk, 1, sizeof chunk, stdin);
        oom_buf_append(&b, chunk, n);
        if (n < sizeof chunk || b.len > OOM_MAX_FILE_BYTES)
            break;
    }
    *len = b.len;
    return oom_buf_take(&b);
}

/* --diff: what --fix would change, as a patch; exit 1 when there is some. */
static int show_diff(const oom_settings *s, const oom_buf *diff, const oom_fix_outcome_set *fixed)
{
    int rc = fixed->changed ? OOM_EXIT_FOUND : OOM_EXIT_CLEAN;
    if (write_all(stdout, diff) != 0) {
        print_error("cannot write the diff to standard output");
        rc = OOM_EXIT_FAILURE;
    }
    if (!s->quiet && fixed->summary.total)
        fprintf(stderr, "Would fix %zu problem%s in %zu file%s.\n", fixed->summary.total,
                fixed->summary.total == 1 ? "" : "s", fixed->summary.files, fixed->summary.files == 1 ? "" : "s");
    return rc;
}

/* --fix, --fix-only and --diff, once the targets are linted: the fixes are
 * made (or, with --diff, shown) and the targets linted again for what is
 * left. Stdin's fixed code goes to standard output, and then the report to
 * standard error (*report_to). Returns the exit code when the run ends here
 * (--diff, --fix-only), -1 when the report follows. */
static int fix_and_lint_again(const oom_settings *s, const lint_plan *plan, const oom_fix_settings *fs,
                              check_run *run, oom_fix_outcome_set *fixed, FILE **report_to)
{
    oom_buf diff;
    oom_buf_init(&diff);
    size_t n = plan->count;
    oom_cli_fix_files(fs, run->compiled, plan->jobs, n, &run->diags, &diff, fixed);
    int rc = -1;
    if (s->diff)
        rc = run->failed ? OOM_EXIT_FAILURE : show_diff(s, &diff, fixed);
    oom_buf_free(&diff);
    if (rc >= 0)
        return rc;
    if (fixed->stdin_text) {
        for (size_t i = 0; i < n; i++)
            if (plan->jobs[i].text) {
                plan->jobs[i].text = fixed->stdin_text;
                plan->jobs[i].text_len = fixed->stdin_len;
            }
        oom_buf code = {fixed->stdin_text, fixed->stdin_len, fixed->stdin_len + 1};
        if (write_all(stdout, &code) != 0) {
            print_error("cannot write the fixed code to standard output");
            run->failed = true;
        }
        *report_to = stderr;
    }
    if (fixed->changed) {
        /* what is left, from the files as they are now (the project pass too) */
        oom_diag_list_free(&run->diags);
        lint_targets(plan, &run->diags);
        oom_cli_mark_fixable(fs, &run->diags);
    }
    if (!s->fix_only)
        return -1;
    /* stdin's fixed code alone, as Ruff writes it */
    if (!s->quiet && fixed->summary.total && !fixed->stdin_text) {
        oom_buf note;
        oom_buf_init(&note);
        oom_report_fix_summary(&fixed->summary, s->show_fixes, &note);
        write_all(*report_to, &note);
        oom_buf_free(&note);
    }
    return run->failed || fixed->write_failed ? OOM_EXIT_FAILURE : OOM_EXIT_CLEAN;
}

static int cmd_check(const oom_settings *s, const oom_rule_list *rules)
{
    oom_buf err;
    oom_buf_init(&err);
    effective_settings eff;
    if (load_settings(s, &eff) != 0) {
        free_settings(&eff);
        oom_buf_free(&err);
        return OOM_EXIT_FAILURE;
    }
    if (check_codes_exist(rules, &eff.selection) != 0) {
        free_settings(&eff);
        oom_buf_free(&err);
        return OOM_EXIT_FAILURE;
    }
    oom_compiled *compiled = oom_compiled_new(rules, &eff.selection, &err);
    if (!compiled) {
        print_error(err.data);
        oom_buf_free(&err);
        free_settings(&eff);
        return OOM_EXIT_FAILURE;
    }
    oom_compiled_set_run(compiled, &eff.run);
    check_run run = {s, compiled, {NULL, 0, 0}, false};
    oom_discovery d;
    oom_discover((const char *const *)s->paths.items, s->paths.len, &eff.exclude,
                 eff.have_config ? eff.config.dir : ".", &d);
    report_walk_errors(&run, &d);
    bool fixing = s->fix || s->diff;
    oom_job *jobs = oom_xcalloc(d.target_count ? d.target_count : 1, sizeof(oom_job));
    char *stdin_text = NULL;
    for (size_t i = 0; i < d.target_count; i++) {
        jobs[i] = oom_run_job_for(&d.targets[i], s->stdin_filename);
        if (fixing && strcmp(d.targets[i].path, "-") == 0 && !stdin_text) {
            stdin_text = read_stdin_whole(&jobs[i].text_len);
            jobs[i].text = stdin_text;
        }
    }
    oom_cli_cache_request cache_for = {rules, &eff.selection, &eff.run, eff.have_config ? &eff.config : NULL};
    lint_plan plan = {rules, &eff, compiled, jobs, d.target_count, s->threads > 0 ? s->threads : default_threads(),
                      oom_cli_cache_open(s, &cache_for)};
    lint_targets(&plan, &run.diags);
    oom_fix_settings fs;
    fix_settings_for(s, &eff, &fs);
    oom_cli_mark_fixable(&fs, &run.diags);
    oom_fix_outcome_set fixed;
    memset(&fixed, 0, sizeof fixed);
    FILE *report_to = stdout;
    int rc = fixing ? fix_and_lint_again(s, &plan, &fs, &run, &fixed, &report_to) : -1;
    if (rc < 0) {
        /* Without the changed lines, an unfiltered report would mislead: none. */
        bool diff_failed = s->diff_base && filter_to_changed_lines(s, &run.diags) != 0;
        rc = run.failed || diff_failed || fixed.write_failed ? OOM_EXIT_FAILURE : exit_code_for(s, &run.diags);
        if (!diff_failed &&
            emit_report(s, rules, &run.diags, d.target_count, s->fix ? &fixed.summary : NULL, report_to) != 0)
            rc = OOM_EXIT_FAILURE;
    }
    oom_cli_cache_close(s, plan.cache);
    oom_fix_outcome_set_free(&fixed);
    oom_selection_free(&fs.fixable);
    free(stdin_text);
    free(jobs);
    oom_buf_free(&err);
    oom_discovery_free(&d);
    oom_diag_list_free(&run.diags);
    oom_compiled_free(compiled);
    free_settings(&eff);
    return rc;
}

int oom_cli_main(int argc, char **argv)
{
    oom_settings s;
    oom_buf err;
    oom_buf_init(&err);
    if (oom_cli_parse(argc, argv, &s, &err) != 0) {
        print_error(err.data);
        oom_buf_free(&err);
        oom_settings_free(&s);
        return OOM_EXIT_FAILURE;
    }
    oom_buf_free(&err);
    int rc = OOM_EXIT_CLEAN;
    if (s.command == OOM_CMD_HELP) {
        fputs(oom_cli_usage(), stdout);
    } else if (s.command == OOM_CMD_VERSION) {
        printf("oomlint %s\n", OOM_VERSION);
    } else if (s.command == OOM_CMD_GPUS) {
        rc = cmd_gpus();
    } else if (s.command == OOM_CMD_PREDICATES) {
        rc = cmd_predicates();
    } else if (s.command == OOM_CMD_ESTIMATE) {
        rc = cmd_estimate(&s);
    } else if (s.command == OOM_CMD_SERVER) {
        /* a client that goes away must end the session, not kill it mid-write */
        signal(SIGPIPE, SIG_IGN);
        rc = oom_server_serve(STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO);
    } else {
        oom_rule_list rules = {NULL, 0, 0};
        if (load_rules(&s, &rules) != 0)
            rc = OOM_EXIT_FAILURE;
        else if (s.command == OOM_CMD_RULE)
            rc = cmd_rule(&s, &rules);
        else if (s.command == OOM_CMD_RULES)
            rc = cmd_rules(&rules);
        else if (s.command == OOM_CMD_MANPAGE)
            rc = oom_cli_manpage(&rules, stdout) == 0 ? OOM_EXIT_CLEAN : OOM_EXIT_FAILURE;
        else
            rc = cmd_check(&s, &rules);
        oom_rules_free(&rules);
    }
    oom_settings_free(&s);
    return rc;
}

/* estimate/amp: mixed precision set by an opt_level (NVIDIA apex's
 * `model, optimizer = amp.initialize(model, optimizer, opt_level="O1")`),
 * the way waveglow and tacotron2 train in fp16. Which calls take an
 * opt_level is data (rules/kb/library.json "precision"); what the levels
 * mean is apex's: O1 and O2 keep fp32 master weights and compute in fp16,
 * both counted as fp16 mixed precision; O3 is pure fp16, which the cost
 * model has no figure for, so it is counted as mixed precision and marked
 * assumed; O0 is fp32. A call in a branch a run without flags skips (`if
 * fp16_run:` with fp16_run off) sets nothing. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "oomlint/library.h"

static bool is_initializer(const oom_est_reader *r, TSNode call)
{
    const oom_library *lib = oom_library_get();
    oom_buf q;
    oom_buf_init(&q);
    bool yes = lib && oom_pymodel_qualname(r->m, oom_est_child(call, "function"), &q) &&
               oom_library_lists(&lib->opt_level_initializers, q.data, q.len);
    oom_buf_free(&q);
    return yes;
}

/* The opt_level a run without flags gets: the keyword's string, or the
 * value of the setting it reads; r->via is left at that setting. */
static bool opt_level(oom_est_reader *r, TSNode call, char *out, size_t size)
{
    TSNode v = oom_pymodel_keyword_value(r->m, call, "opt_level");
    if (ts_node_is_null(v))
        return false;
    oom_buf s;
    oom_buf_init(&s);
    TSNode literal = oom_pymodel_value_of(r->m, v, 0);
    bool ok = !ts_node_is_null(literal) && oom_pymodel_string_value(r->m, literal, &s);
    if (!ok) {
        r->via = oom_est_setting_read_by(r, v);
        ok = r->via && oom_est_setting_string(r, r->via, &s);
    }
    if (ok)
        oom_est_copy(out, size, s.data);
    oom_buf_free(&s);
    return ok;
}

static void visit(void *ctx, TSNode n)
{
    oom_est_reader *r = ctx;
    if (!oom_est_type_is(n, "call") || !r->out->from[OOM_IN_PRECISION].assumed || !is_initializer(r, n) ||
        !oom_est_runs_without_flags(r, n))
        return;
    TSNode enabled = oom_pymodel_keyword_value(r->m, n, "enabled");
    if (oom_est_type_is(enabled, "false") || oom_est_setting_switch(r, oom_est_setting_read_by(r, enabled)) == 0)
        return;
    char level[16] = "", what[96];
    bool known = opt_level(r, n, level, sizeof level);
    if (known && strcmp(level, "O0") == 0) {
        r->via = NULL;
        return; /* fp32, as assumed */
    }
    r->out->in.precision = OOM_PREC_AMP_FP16;
    oom_est_printf(what, sizeof what, "amp.initialize(opt_level=\"%s\"): fp16 mixed precision%s",
                   known ? level : "?", known && strcmp(level, "O3") == 0 ? " (O3, pure fp16, counted as mixed)" : "");
    oom_est_note(r, OOM_IN_PRECISION, n, what);
    r->out->from[OOM_IN_PRECISION].assumed = !known || strcmp(level, "O3") == 0;
    r->via = NULL;
}

void oom_est_read_amp(oom_est_reader *r)
{
    oom_est_walk(r, visit, r);
}

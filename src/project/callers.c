/* project/callers: joins the files' call facts. A finding that holds only
 * while its function runs with autograd on (an evaluation forward, a graph
 * kept across steps) is dropped when every call of that function in the
 * project stands where autograd is off: `predict_values` defined in
 * policies.py and only called under `th.no_grad()` in on_policy_algorithm.py. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/facts.h"
#include "oomlint/project.h"

static size_t add_name(oom_file_facts *f, const char *name, size_t len);

void oom_file_facts_add_call(oom_file_facts *f, const char *name, size_t len, bool grad_off)
{
    oom_call_fact c = {add_name(f, name, len), grad_off};
    OOM_PUSH(f->calls, f->call_count, f->call_cap, c);
}

static size_t add_name(oom_file_facts *f, const char *name, size_t len)
{
    size_t at = f->names.len;
    oom_buf_append(&f->names, name, len);
    oom_buf_putc(&f->names, '\0');
    return at;
}

void oom_file_facts_take_calls(oom_file_facts *f, const oom_pymodel *m)
{
    for (size_t i = 0; i < oom_pymodel_call_count(m); i++) {
        uint32_t len;
        bool grad_off;
        const char *name = oom_pymodel_call_at(m, i, &len, &grad_off);
        oom_file_facts_add_call(f, name, len, grad_off);
    }
    for (size_t i = 0; i < oom_pymodel_accumulator_count(m); i++) {
        const char *method, *param;
        uint32_t mlen, plen;
        int index;
        oom_pymodel_accumulator_at(m, i, &method, &mlen, &param, &plen, &index);
        oom_accumulator_fact a = {add_name(f, method, mlen), 0, index};
        a.param = add_name(f, param, plen);
        OOM_PUSH(f->accumulators, f->accumulator_count, f->accumulator_cap, a);
    }
}

void oom_file_facts_free(oom_file_facts *f)
{
    free(f->inputs);
    oom_project_deepspeed_links_free(f->deepspeed);
    oom_buf_free(&f->names);
    free(f->calls);
    free(f->accumulators);
    oom_diag_list_free(&f->pending);
    oom_notebook_free(f->notebook);
    memset(f, 0, sizeof *f);
}

typedef struct {
    const char *name;
    size_t calls, calls_grad_off;
} callee_count;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const callee_count *)a)->name, ((const callee_count *)b)->name);
}

/* Every callee of the project, sorted by name, with its counts. */
static callee_count *count_callees(const oom_file_facts *facts, size_t nfiles, size_t *n_out)
{
    size_t total = 0;
    for (size_t i = 0; i < nfiles; i++)
        total += facts[i].call_count;
    callee_count *all = oom_xcalloc(total ? total : 1, sizeof *all);
    size_t n = 0;
    for (size_t i = 0; i < nfiles; i++)
        for (size_t k = 0; k < facts[i].call_count; k++)
            all[n++] = (callee_count){facts[i].names.data + facts[i].calls[k].name, 1,
                                      facts[i].calls[k].grad_off};
    qsort(all, n, sizeof *all, by_name);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out > 0 && strcmp(all[out - 1].name, all[i].name) == 0) {
            all[out - 1].calls++;
            all[out - 1].calls_grad_off += all[i].calls_grad_off;
        } else {
            all[out++] = all[i];
        }
    }
    *n_out = out;
    return all;
}

void oom_project_drop_findings_of_no_grad_callees(const oom_file_facts *facts, size_t nfiles,
                                                  oom_diag_list *diags)
{
    size_t n;
    callee_count *counts = count_callees(facts, nfiles, &n);
    unsigned char *drop = oom_xcalloc(diags->len ? diags->len : 1, 1);
    bool any = false;
    for (size_t i = 0; i < diags->len; i++) {
        const char *fn = diags->items[i].needs_grad_in;
        if (!fn)
            continue;
        callee_count key = {fn, 0, 0};
        const callee_count *c = n ? bsearch(&key, counts, n, sizeof *counts, by_name) : NULL;
        if (c && c->calls > 0 && c->calls_grad_off == c->calls)
            drop[i] = any = true;
    }
    if (any)
        oom_diag_list_remove_if_marked(diags, drop);
    free(drop);
    free(counts);
}

/* Whether a call's signature ("method<TAB>mask<TAB>keywords") passes a value
 * with history for the parameter this accumulating method adds up. */
static bool signature_feeds(const char *sig, const oom_file_facts *f, const oom_accumulator_fact *a)
{
    const char *method = f->names.data + a->method, *param = f->names.data + a->param;
    const char *tab = strchr(sig, '\t');
    if (!tab || (size_t)(tab - sig) != strlen(method) || memcmp(sig, method, strlen(method)) != 0)
        return false;
    char *end;
    unsigned long mask = strtoul(tab + 1, &end, 10);
    if (a->index >= 0 && a->index < 32 && (mask >> a->index) & 1ul)
        return true;
    const char *kw = *end == '\t' ? end + 1 : "";
    size_t plen = strlen(param);
    for (const char *p = kw; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == plen && memcmp(p, param, n) == 0)
            return true;
        p += n + (comma != NULL);
    }
    return false;
}

static bool some_file_accumulates(const oom_file_facts *facts, size_t nfiles, const char *sig)
{
    for (size_t i = 0; i < nfiles; i++)
        for (size_t k = 0; k < facts[i].accumulator_count; k++)
            if (signature_feeds(sig, &facts[i], &facts[i].accumulators[k]))
                return true;
    return false;
}

void oom_project_keep_cross_file_accumulations(oom_file_facts *facts, size_t nfiles, oom_diag_list *out)
{
    for (size_t i = 0; i < nfiles; i++) {
        oom_diag_list *pending = &facts[i].pending;
        if (pending->len == 0)
            continue;
        unsigned char *drop = oom_xcalloc(pending->len, 1);
        for (size_t k = 0; k < pending->len; k++)
            drop[k] = !some_file_accumulates(facts, nfiles, pending->items[k].needs_accumulator);
        oom_diag_list_remove_if_marked(pending, drop);
        free(drop);
        oom_diag_list_move(out, pending);
    }
}

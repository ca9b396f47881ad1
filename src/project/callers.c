/* project/callers: joins the files' call facts. A finding that holds only
 * while its function runs with autograd on (an evaluation forward, a graph
 * kept across steps) is dropped when every call of that function in the
 * project stands where autograd is off: `predict_values` defined in
 * policies.py and only called under `th.no_grad()` in on_policy_algorithm.py. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/facts.h"
#include "oomlint/project.h"

void oom_file_facts_add_call(oom_file_facts *f, const char *name, size_t len, bool grad_off)
{
    oom_call_fact c = {f->names.len, grad_off};
    oom_buf_append(&f->names, name, len);
    oom_buf_putc(&f->names, '\0');
    OOM_PUSH(f->calls, f->call_count, f->call_cap, c);
}

void oom_file_facts_take_calls(oom_file_facts *f, const oom_pymodel *m)
{
    for (size_t i = 0; i < oom_pymodel_call_count(m); i++) {
        uint32_t len;
        bool grad_off;
        const char *name = oom_pymodel_call_at(m, i, &len, &grad_off);
        oom_file_facts_add_call(f, name, len, grad_off);
    }
}

void oom_file_facts_free(oom_file_facts *f)
{
    free(f->inputs);
    oom_project_deepspeed_links_free(f->deepspeed);
    oom_buf_free(&f->names);
    free(f->calls);
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

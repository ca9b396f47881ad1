/* cache/entry: one file's result as bytes and back: the files it read, its
 * findings, and its facts for the project pass. The encoding is this
 * build's own (host byte order, the structs' own sizes): the key of every
 * entry names the build, so no other build ever reads it. The decoder still
 * trusts nothing: the bytes may be a torn write or another program's file
 * that happens to pass the checks before it. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/cache.h"
#include "oomlint/project.h"

/* The structs an entry holds, as this encoder knows them: a field added to
 * one of them (and so missing from its entries, which would then give a
 * cached run another report than a fresh one) stops the build here until
 * it is encoded below and added to its mirror. */
typedef struct {
    char *code, *name;
    oom_severity severity;
    char *path;
    uint32_t start_row, start_col, end_row, end_col, cell, file_start_row, file_end_row, cause_scope;
    size_t start_byte;
    char *message, *help, *url, *context, *needs_grad_in, *needs_project, *unless_project;
    oom_fix *fix;
    oom_fixable fixable;
    oom_related *related;
    size_t related_count;
} diag_as_kept;
typedef struct {
    char *path;
    uint32_t row;
    char *message;
} related_as_kept;
typedef struct {
    oom_applicability applicability;
    char *message;
    oom_edit *edits;
    size_t edit_count;
    uint32_t preview_row;
    char *preview_before, *preview_after;
} fix_as_kept;
typedef struct {
    uint32_t start_byte, end_byte, start_row, start_col, end_row, end_col;
    char *content;
} edit_as_kept;
typedef struct {
    size_t name;
    bool grad_off;
    uint32_t false_positions;
    size_t false_keywords;
    uint32_t module_positions;
    size_t module_keywords;
    signed char callee;
    size_t callee_module;
    size_t caller;
    size_t keywords;
    uint32_t positional;
    bool splat;
} call_as_kept;
typedef struct {
    size_t method, param;
    int index;
} accumulator_as_kept;
typedef struct {
    oom_buf names;
    oom_call_fact *calls;
    size_t call_count, call_cap;
    oom_accumulator_fact *accumulators;
    size_t accumulator_count, accumulator_cap;
    oom_buf no_grad_forward_classes;
    oom_buf module_classes;
    oom_buf differentiating_classes;
    bool shows_gpu_use;
    oom_diag_list pending;
    oom_script_inputs *inputs;
    struct oom_ds_links *deepspeed;
    oom_notebook *notebook;
} facts_as_kept;
_Static_assert(sizeof(oom_diag) == sizeof(diag_as_kept), "oom_diag changed: keep the new field in cache/entry.c");
_Static_assert(sizeof(oom_related) == sizeof(related_as_kept), "oom_related changed: keep it in cache/entry.c");
_Static_assert(sizeof(oom_fix) == sizeof(fix_as_kept), "oom_fix changed: keep the new field in cache/entry.c");
_Static_assert(sizeof(oom_edit) == sizeof(edit_as_kept), "oom_edit changed: keep the new field in cache/entry.c");
_Static_assert(sizeof(oom_call_fact) == sizeof(call_as_kept), "oom_call_fact changed: keep it in cache/entry.c");
_Static_assert(sizeof(oom_accumulator_fact) == sizeof(accumulator_as_kept),
               "oom_accumulator_fact changed: keep the new field in cache/entry.c");
_Static_assert(sizeof(oom_file_facts) == sizeof(facts_as_kept), "oom_file_facts changed: keep it in cache/entry.c");

/* ---- findings ------------------------------------------------------------------- */

static void put_fix(oom_buf *b, const oom_fix *f)
{
    oom_buf_put_u32(b, f ? 1 : 0);
    if (!f)
        return;
    oom_buf_put_u32(b, (uint32_t)f->applicability);
    oom_buf_put_str(b, f->message);
    oom_buf_put_u32(b, (uint32_t)f->edit_count);
    for (size_t i = 0; i < f->edit_count; i++) {
        const oom_edit *e = &f->edits[i];
        uint32_t v[6] = {e->start_byte, e->end_byte, e->start_row, e->start_col, e->end_row, e->end_col};
        oom_buf_put_bytes(b, v, sizeof v);
        oom_buf_put_str(b, e->content);
    }
    oom_buf_put_u32(b, f->preview_row);
    oom_buf_put_str(b, f->preview_before);
    oom_buf_put_str(b, f->preview_after);
}

static oom_fix *get_fix(oom_reader *r)
{
    if (oom_reader_u32(r) != 1)
        return NULL;
    oom_fix *f = oom_xcalloc(1, sizeof *f);
    uint32_t a = oom_reader_u32(r);
    f->applicability = a <= OOM_FIX_DISPLAY_ONLY ? (oom_applicability)a : OOM_FIX_DISPLAY_ONLY;
    r->ok &= a <= OOM_FIX_DISPLAY_ONLY;
    f->message = oom_reader_str(r);
    size_t n = oom_reader_count(r, 6 * 4 + 4);
    f->edits = oom_xcalloc(n ? n : 1, sizeof(oom_edit));
    for (size_t i = 0; i < n && r->ok; i++) {
        oom_edit *e = &f->edits[i];
        uint32_t v[6];
        oom_reader_bytes(r, v, sizeof v);
        e->start_byte = v[0], e->end_byte = v[1], e->start_row = v[2];
        e->start_col = v[3], e->end_row = v[4], e->end_col = v[5];
        e->content = oom_reader_str(r);
        f->edit_count = i + 1;
        r->ok &= e->content != NULL && e->start_byte <= e->end_byte;
    }
    f->preview_row = oom_reader_u32(r);
    f->preview_before = oom_reader_str(r);
    f->preview_after = oom_reader_str(r);
    r->ok &= f->message != NULL;
    return f;
}

static void put_diag(oom_buf *b, const oom_diag *d)
{
    const char *strs[] = {d->code, d->name, d->path, d->message, d->help, d->url,
                          d->context, d->needs_grad_in, d->needs_project, d->unless_project};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        oom_buf_put_str(b, strs[i]);
    uint32_t v[10] = {(uint32_t)d->severity, d->start_row, d->start_col, d->end_row, d->end_col,
                      d->cell, d->file_start_row, d->file_end_row, (uint32_t)d->fixable, d->cause_scope};
    oom_buf_put_bytes(b, v, sizeof v);
    oom_buf_put_u64(b, d->start_byte);
    put_fix(b, d->fix);
    oom_buf_put_u32(b, (uint32_t)d->related_count);
    for (size_t i = 0; i < d->related_count; i++) {
        oom_buf_put_str(b, d->related[i].path);
        oom_buf_put_u32(b, d->related[i].row);
        oom_buf_put_str(b, d->related[i].message);
    }
}

static void get_related(oom_reader *r, oom_diag *d)
{
    size_t n = oom_reader_count(r, 4 + 4 + 4);
    for (size_t i = 0; i < n && r->ok; i++) {
        char *path = oom_reader_str(r);
        uint32_t row = oom_reader_u32(r);
        char *message = oom_reader_str(r);
        r->ok &= path && message;
        if (r->ok)
            oom_diag_add_related(d, path, row, message);
        free(path);
        free(message);
    }
}

/* Reads one finding into a fresh slot of `l`; the slot is kept (and freed
 * with the list) even when the read fails. */
static void get_diag(oom_reader *r, oom_diag_list *l)
{
    oom_grow((void **)&l->items, &l->cap, l->len + 1, sizeof(oom_diag));
    oom_diag *d = &l->items[l->len++];
    memset(d, 0, sizeof *d);
    char **strs[] = {&d->code, &d->name, &d->path, &d->message, &d->help, &d->url,
                     &d->context, &d->needs_grad_in, &d->needs_project, &d->unless_project};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        *strs[i] = oom_reader_str(r);
    uint32_t v[10];
    oom_reader_bytes(r, v, sizeof v);
    r->ok &= v[0] <= OOM_SEV_ERROR && v[8] <= OOM_FIXABLE_WITH_UNSAFE;
    d->severity = r->ok ? (oom_severity)v[0] : OOM_SEV_INFO;
    d->start_row = v[1], d->start_col = v[2], d->end_row = v[3], d->end_col = v[4];
    d->cell = v[5], d->file_start_row = v[6], d->file_end_row = v[7];
    d->fixable = r->ok ? (oom_fixable)v[8] : OOM_FIXABLE_NO;
    d->cause_scope = v[9];
    d->start_byte = (size_t)oom_reader_u64(r);
    d->fix = get_fix(r);
    get_related(r, d);
    r->ok &= d->code && d->name && d->path && d->message;
}

static void put_diags(oom_buf *b, const oom_diag_list *l)
{
    oom_buf_put_u32(b, (uint32_t)l->len);
    for (size_t i = 0; i < l->len; i++)
        put_diag(b, &l->items[i]);
}

static void get_diags(oom_reader *r, oom_diag_list *l)
{
    size_t n = oom_reader_count(r, 10 * 4 + 10 * 4 + 8 + 4 + 4);
    for (size_t i = 0; i < n && r->ok; i++)
        get_diag(r, l);
}

/* ---- facts ---------------------------------------------------------------------- */

static void put_block(oom_buf *b, const oom_buf *block)
{
    oom_buf_put_u64(b, block->len);
    oom_buf_put_bytes(b, block->data, block->len);
}

/* A buffer of NUL-terminated names: empty, or ending in a NUL. */
static void get_names(oom_reader *r, oom_buf *out)
{
    uint64_t n = oom_reader_u64(r);
    if (!r->ok || n > (uint64_t)(r->end - r->at)) {
        r->ok = false;
        return;
    }
    if (n)
        oom_buf_append(out, (const char *)r->at, (size_t)n);
    r->at += n;
    r->ok &= n == 0 || out->data[n - 1] == '\0';
}

static void put_calls(oom_buf *b, const oom_file_facts *f)
{
    put_block(b, &f->names);
    oom_buf_put_u32(b, (uint32_t)f->call_count);
    for (size_t i = 0; i < f->call_count; i++) {
        const oom_call_fact *c = &f->calls[i];
        oom_buf_put_u64(b, c->name);
        oom_buf_put_u64(b, c->false_keywords);
        oom_buf_put_u64(b, c->callee_module);
        oom_buf_put_u64(b, c->module_keywords);
        oom_buf_put_u64(b, c->caller);
        oom_buf_put_u64(b, c->keywords);
        uint32_t v[6] = {c->grad_off, c->false_positions, (uint32_t)(int32_t)c->callee, c->module_positions,
                         c->positional, c->splat};
        oom_buf_put_bytes(b, v, sizeof v);
    }
    oom_buf_put_u32(b, (uint32_t)f->accumulator_count);
    for (size_t i = 0; i < f->accumulator_count; i++) {
        const oom_accumulator_fact *a = &f->accumulators[i];
        oom_buf_put_u64(b, a->method);
        oom_buf_put_u64(b, a->param);
        oom_buf_put_u32(b, (uint32_t)a->index);
    }
    put_block(b, &f->no_grad_forward_classes);
    put_block(b, &f->module_classes);
    put_block(b, &f->differentiating_classes);
    oom_buf_put_u32(b, f->shows_gpu_use);
}

static bool name_ok(const oom_file_facts *f, uint64_t at)
{
    return at < f->names.len;
}

static void get_calls(oom_reader *r, oom_file_facts *f)
{
    get_names(r, &f->names);
    size_t n = oom_reader_count(r, 6 * 8 + 6 * 4);
    if (n)
        f->calls = oom_xcalloc(n, sizeof *f->calls);
    for (size_t i = 0; i < n && r->ok; i++) {
        oom_call_fact *c = &f->calls[i];
        uint64_t name = oom_reader_u64(r), kw = oom_reader_u64(r), module = oom_reader_u64(r);
        uint64_t mkw = oom_reader_u64(r), caller = oom_reader_u64(r), passed = oom_reader_u64(r);
        uint32_t v[6];
        oom_reader_bytes(r, v, sizeof v);
        r->ok &= name_ok(f, name) && name_ok(f, kw) && name_ok(f, module) && name_ok(f, mkw) && name_ok(f, caller) &&
                 name_ok(f, passed) && v[0] <= 1 && v[5] <= 1;
        c->keywords = (size_t)passed;
        c->positional = v[4];
        c->splat = v[5] == 1;
        c->caller = (size_t)caller;
        c->name = (size_t)name, c->false_keywords = (size_t)kw, c->callee_module = (size_t)module;
        c->module_keywords = (size_t)mkw;
        c->grad_off = v[0] == 1;
        c->false_positions = v[1];
        c->callee = (signed char)(int32_t)v[2];
        c->module_positions = v[3];
        f->call_count = f->call_cap = i + 1;
    }
    size_t m = oom_reader_count(r, 2 * 8 + 4);
    if (m && r->ok)
        f->accumulators = oom_xcalloc(m, sizeof *f->accumulators);
    for (size_t i = 0; i < m && r->ok; i++) {
        oom_accumulator_fact *a = &f->accumulators[i];
        uint64_t method = oom_reader_u64(r), param = oom_reader_u64(r);
        r->ok &= name_ok(f, method) && name_ok(f, param);
        a->method = (size_t)method, a->param = (size_t)param;
        a->index = (int)(int32_t)oom_reader_u32(r);
        f->accumulator_count = f->accumulator_cap = i + 1;
    }
    get_names(r, &f->no_grad_forward_classes);
    get_names(r, &f->module_classes);
    get_names(r, &f->differentiating_classes);
    uint32_t gpu = oom_reader_u32(r);
    r->ok &= gpu <= 1;
    f->shows_gpu_use = gpu == 1;
}

/* The estimate's inputs are plain values (numbers, flags, fixed-size
 * strings), kept as the struct's bytes: this build wrote them. Their
 * strings are NUL-terminated again on the way in all the same. */
static void put_inputs(oom_buf *b, const oom_script_inputs *in)
{
    oom_buf_put_u32(b, in ? (uint32_t)sizeof *in : 0);
    if (in)
        oom_buf_put_bytes(b, in, sizeof *in);
}

static oom_script_inputs *get_inputs(oom_reader *r)
{
    uint32_t size = oom_reader_u32(r);
    if (size == 0 || !r->ok)
        return NULL;
    if (size != sizeof(oom_script_inputs)) {
        r->ok = false;
        return NULL;
    }
    oom_script_inputs *in = oom_xcalloc(1, sizeof *in);
    oom_reader_bytes(r, in, sizeof *in);
    in->model_id[sizeof in->model_id - 1] = '\0';
    in->batch_name[sizeof in->batch_name - 1] = '\0';
    in->seq_name[sizeof in->seq_name - 1] = '\0';
    for (int k = 0; k < OOM_IN_COUNT; k++)
        in->from[k].text[sizeof in->from[k].text - 1] = '\0';
    in->placed.text[sizeof in->placed.text - 1] = '\0';
    r->ok &= in->smaller_count <= OOM_SMALLER_MODELS;
    for (size_t k = 0; k < OOM_SMALLER_MODELS; k++)
        in->smaller[k].id[sizeof in->smaller[k].id - 1] = '\0';
    return in;
}

/* ---- the files it read -------------------------------------------------------------- */

static void put_reads(oom_buf *b, const oom_readlog *reads)
{
    oom_buf_put_u32(b, (uint32_t)reads->len);
    for (size_t i = 0; i < reads->len; i++) {
        oom_buf_put_str(b, reads->items[i].path);
        oom_buf_put_u32(b, reads->items[i].kind);
        oom_buf_put_u64(b, reads->items[i].value);
    }
}

static void get_reads(oom_reader *r, oom_readlog *reads)
{
    size_t n = oom_reader_count(r, 4 + 4 + 8);
    for (size_t i = 0; i < n && r->ok; i++) {
        char *path = oom_reader_str(r);
        uint32_t kind = oom_reader_u32(r);
        uint64_t value = oom_reader_u64(r);
        r->ok &= path && (kind == OOM_READ_TEXT || kind == OOM_READ_EXISTS) &&
                 oom_readlog_add(reads, path, kind, value);
        free(path);
    }
}

/* ---- the entry ---------------------------------------------------------------------- */

void oom_cache_entry_encode(const oom_diag_list *found, const oom_file_facts *facts, const oom_readlog *reads,
                            oom_buf *out)
{
    put_reads(out, reads);
    put_diags(out, found);
    put_calls(out, facts);
    put_diags(out, &facts->pending);
    put_inputs(out, facts->inputs);
    oom_project_deepspeed_links_encode(facts->deepspeed, out);
    oom_buf_put_u32(out, facts->notebook ? 1 : 0);
    if (facts->notebook)
        oom_notebook_encode(facts->notebook, out);
}

bool oom_cache_entry_decode(const void *data, size_t len, oom_diag_list *found, oom_file_facts *facts,
                            oom_readlog *reads)
{
    oom_reader r;
    oom_reader_init(&r, data, len);
    memset(reads, 0, sizeof *reads);
    get_reads(&r, reads);
    get_diags(&r, found);
    get_calls(&r, facts);
    get_diags(&r, &facts->pending);
    facts->inputs = get_inputs(&r);
    facts->deepspeed = r.ok ? oom_project_deepspeed_links_decode(&r) : NULL;
    uint32_t notebook = oom_reader_u32(&r);
    r.ok &= notebook <= 1;
    facts->notebook = r.ok && notebook ? oom_notebook_decode(&r) : NULL;
    if (r.ok && r.at == r.end)
        return true;
    oom_readlog_free(reads);
    oom_diag_list_free(found);
    oom_file_facts_free(facts);
    return false;
}

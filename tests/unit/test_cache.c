/* The cache's parts without the command line: the hash against xxHash's
 * published values, the codec's bounds, an entry's bytes there and back
 * (and refused, cut short or altered, without a crash or a leak), and
 * oom_run answering a project from the cache as it linted it. */
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

#include "oomlint/cache.h"
#include "oomlint/discover.h"
#include "oomlint/project.h"
#include "oomlint/run.h"

static void test_hash_vectors(void)
{
    const char *s = "Nobody inspects the spammish repetition";
    CHECK(oom_hash64("", 0, 0) == 0xEF46DB3751D8E999ULL);
    CHECK(oom_hash64("abc", 3, 0) == 0x44BC2CF5AD770999ULL);
    CHECK(oom_hash64(s, strlen(s), 0) == 0xFBCEA83C8A378BF1ULL);
    CHECK(oom_hash64("abc", 3, 1) != oom_hash64("abc", 3, 0));
}

static void test_reader_bounds(void)
{
    oom_buf b;
    oom_buf_init(&b);
    oom_buf_put_str(&b, "hello");
    oom_buf_put_str(&b, NULL);
    oom_buf_put_u32(&b, 7);
    oom_reader r;
    oom_reader_init(&r, b.data, b.len);
    char *h = oom_reader_str(&r);
    CHECK_STR(h, "hello");
    CHECK(oom_reader_str(&r) == NULL && r.ok);
    CHECK(oom_reader_u32(&r) == 7 && r.ok && r.at == r.end);
    CHECK(oom_reader_u32(&r) == 0 && !r.ok); /* past the end */
    free(h);
    oom_reader_init(&r, b.data, 6); /* the string cut short */
    CHECK(oom_reader_str(&r) == NULL && !r.ok);
    b.data[5] = '\0'; /* a NUL inside a string */
    oom_reader_init(&r, b.data, b.len);
    CHECK(oom_reader_str(&r) == NULL && !r.ok);
    oom_buf_clear(&b);
    oom_buf_put_u32(&b, 1000000); /* a count the bytes cannot hold */
    oom_reader_init(&r, b.data, b.len);
    CHECK(oom_reader_count(&r, 4) == 0 && !r.ok);
    oom_buf_free(&b);
}

/* One of everything an entry holds. */
static void sample(oom_diag_list *found, oom_file_facts *facts, oom_readlog *reads)
{
    memset(found, 0, sizeof *found);
    memset(facts, 0, sizeof *facts);
    memset(reads, 0, sizeof *reads);
    oom_diag *d = oom_diag_list_add(found, "OOM201", "tensor-with-graph-stored", OOM_SEV_ERROR, "train.py",
                                    "`loss` is stored", "use loss.item()", "https://example.org/OOM201");
    d->start_row = 6, d->start_col = 9, d->end_row = 6, d->end_col = 28, d->start_byte = 120;
    d->context = oom_xstrdup("        losses.append(loss)");
    d->needs_grad_in = oom_xstrdup("train");
    d->fix = oom_xcalloc(1, sizeof *d->fix);
    d->fix->applicability = OOM_FIX_UNSAFE;
    d->fix->message = oom_xstrdup("Replace with `loss.item()`");
    d->fix->edit_count = 1;
    d->fix->edits = oom_xcalloc(1, sizeof(oom_edit));
    d->fix->edits[0] = (oom_edit){133, 137, 6, 23, 6, 27, oom_xstrdup("loss.item()")};
    d->fix->preview_row = 6;
    d->fix->preview_before = oom_xstrdup("losses.append(loss)\n");
    oom_diag_add_related(d, "train.py", 2, "the list it is stored in");
    oom_diag_list_add(found, "OOM101", "cuda-visible-devices", OOM_SEV_WARNING, "train.py", "m", NULL, NULL);
    oom_call_shape shape = {true, 5u, "retain_graph", OOM_CALLEE_UNRESOLVED, "utils", 2u, "net", "train",
                            "load_in_4bit,bf16", 3u, true};
    oom_file_facts_add_call(facts, "step", 4, &shape);
    oom_buf_append(&facts->no_grad_forward_classes, "Frozen\0", 7);
    oom_buf_append(&facts->differentiating_classes, "Potential\0", 10);
    oom_diag_list_add(&facts->pending, "OOM202", "accumulated-graph", OOM_SEV_ERROR, "train.py", "m2", NULL, NULL)
        ->needs_project = oom_xstrdup("update\t1\t");
    facts->inputs = oom_xcalloc(1, sizeof *facts->inputs);
    oom_script_inputs_init(facts->inputs);
    snprintf(facts->inputs->model_id, sizeof facts->inputs->model_id, "gpt2");
    facts->inputs->model_known = true;
    oom_buf ds;
    oom_buf_init(&ds);
    oom_buf_put_u32(&ds, 1);
    oom_buf_put_str(&ds, "ds.json");
    for (int i = 0; i < 4; i++) {
        oom_buf_put_u64(&ds, (uint64_t)(i + 1));
        oom_buf_put_str(&ds, "train.py:3 sets it");
        oom_buf_put_str(&ds, "train.py:3");
    }
    oom_reader r;
    oom_reader_init(&r, ds.data, ds.len);
    facts->deepspeed = oom_project_deepspeed_links_decode(&r);
    oom_buf_free(&ds);
    static const char nb[] = "{\"cells\": [{\"cell_type\": \"code\", \"metadata\": {}, \"outputs\": [],"
                             " \"source\": [\"!pip install torch\\n\", \"x = 1\"]}],"
                             " \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}";
    oom_notebook_error nb_err;
    CHECK(oom_notebook_parse(nb, strlen(nb), &facts->notebook, &nb_err) == OOM_NOTEBOOK_OK);
    oom_readlog_add(reads, "my_model/config.json", OOM_READ_TEXT, 0x1234);
    oom_readlog_add(reads, "ds.json", OOM_READ_EXISTS, 1);
}

static void test_entry_round_trip(void)
{
    oom_diag_list found, found2 = {NULL, 0, 0};
    oom_file_facts facts, facts2;
    oom_readlog reads, reads2;
    sample(&found, &facts, &reads);
    CHECK(facts.deepspeed != NULL);
    oom_buf a, b;
    oom_buf_init(&a);
    oom_buf_init(&b);
    oom_cache_entry_encode(&found, &facts, &reads, &a);
    memset(&facts2, 0, sizeof facts2);
    CHECK(oom_cache_entry_decode(a.data, a.len, &found2, &facts2, &reads2));
    oom_cache_entry_encode(&found2, &facts2, &reads2, &b);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0); /* nothing lost on the way */
    CHECK(found2.len == 2 && facts2.call_count == 1 && facts2.pending.len == 1 && reads2.len == 2);
    if (facts2.call_count == 1)
        CHECK_STR(facts2.names.data + facts2.calls[0].caller, "train"); /* the caller travels too */
    if (found2.len == 2 && facts2.call_count == 1) {
        CHECK_STR(found2.items[0].fix->edits[0].content, "loss.item()");
        CHECK(found2.items[0].fix->preview_after == NULL);
        CHECK(found2.items[1].help == NULL && found2.items[1].fix == NULL);
        CHECK(found2.items[0].related_count == 1 && found2.items[0].related[0].row == 2);
        CHECK_STR(facts2.names.data + facts2.calls[0].false_keywords, "retain_graph");
        CHECK(facts2.calls[0].grad_off && facts2.calls[0].false_positions == 5u);
        /* what the call passes travels too (a parameter off by default is on where it is passed) */
        CHECK_STR(facts2.names.data + facts2.calls[0].keywords, "load_in_4bit,bf16");
        CHECK(facts2.calls[0].positional == 3u && facts2.calls[0].splat);
        CHECK(facts2.differentiating_classes.len == 10 && strcmp(facts2.differentiating_classes.data, "Potential") == 0);
        CHECK_STR(facts2.inputs->model_id, "gpt2");
        uint32_t cell = 0, row = 0, file_row = 0;
        CHECK(facts2.notebook && oom_notebook_line_count(facts2.notebook) == 2 &&
              oom_notebook_line_masked(facts2.notebook, 1) &&
              oom_notebook_locate(facts2.notebook, 2, &cell, &row, &file_row) && cell == 1 && row == 2);
    }
    oom_diag_list_free(&found2);
    oom_file_facts_free(&facts2);
    oom_readlog_free(&reads2);
    /* every prefix is refused, and every altered byte decodes or is refused
     * without reading outside the bytes (the sanitizer builds check) */
    size_t refused = 0;
    for (size_t n = 0; n < a.len; n++) {
        memset(&facts2, 0, sizeof facts2);
        found2 = (oom_diag_list){NULL, 0, 0};
        refused += !oom_cache_entry_decode(a.data, n, &found2, &facts2, &reads2);
        CHECK(found2.len == 0 && facts2.call_count == 0 && facts2.inputs == NULL);
    }
    CHECK(refused == a.len);
    for (size_t i = 0; i < a.len; i++) {
        char *copy = oom_xmalloc(a.len);
        memcpy(copy, a.data, a.len);
        copy[i] ^= (char)0xA5;
        memset(&facts2, 0, sizeof facts2);
        found2 = (oom_diag_list){NULL, 0, 0};
        if (oom_cache_entry_decode(copy, a.len, &found2, &facts2, &reads2)) {
            oom_diag_list_free(&found2);
            oom_file_facts_free(&facts2);
            oom_readlog_free(&reads2);
        }
        free(copy);
    }
    oom_buf_free(&a);
    oom_buf_free(&b);
    oom_diag_list_free(&found);
    oom_file_facts_free(&facts);
    oom_readlog_free(&reads);
}

/* ---- oom_run with a cache ---------------------------------------------------------- */

static void lint_project(const char *dir, oom_cache *cache, oom_diag_list *out)
{
    oom_rule_list rules = {NULL, 0, 0};
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    oom_strlist_push(&sel.select, "ALL");
    oom_kb kb;
    oom_buf err;
    oom_buf_init(&err);
    oom_compiled *compiled = NULL;
    if (oom_rules_add_embedded(&rules, &err) == 0 && oom_kb_load_embedded(&kb, &err) == 0) {
        compiled = oom_compiled_new(&rules, &sel, &err);
        oom_run_context ctx = {&kb, NULL, 0, false, false};
        oom_compiled_set_run(compiled, &ctx);
        const char *paths[] = {dir};
        oom_discovery d;
        oom_strlist none = {NULL, 0, 0};
        oom_discover(paths, 1, &none, NULL, &d);
        oom_job *jobs = oom_xcalloc(d.target_count ? d.target_count : 1, sizeof *jobs);
        for (size_t i = 0; i < d.target_count; i++)
            jobs[i] = oom_run_job_for(&d.targets[i], NULL);
        oom_run_settings s = {&rules, &sel, compiled, &ctx, NULL, 2, NULL, cache};
        oom_run(&s, jobs, d.target_count, out);
        for (size_t i = 0; i < d.target_count; i++)
            CHECK(jobs[i].recall == NULL && jobs[i].remember == NULL);
        free(jobs);
        oom_discovery_free(&d);
        oom_compiled_free(compiled);
        oom_kb_free(&kb);
    }
    CHECK(compiled != NULL);
    oom_buf_free(&err);
    oom_rules_free(&rules);
    oom_selection_free(&sel);
}

static bool same_findings(const oom_diag_list *a, const oom_diag_list *b)
{
    if (a->len != b->len)
        return false;
    for (size_t i = 0; i < a->len; i++)
        if (strcmp(a->items[i].code, b->items[i].code) != 0 || a->items[i].start_row != b->items[i].start_row ||
            strcmp(a->items[i].message, b->items[i].message) != 0)
            return false;
    return true;
}

static void test_run_from_cache(void)
{
    char dir[] = "/tmp/oomlint-cache-unit.XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    const char *project = "fixtures/projects/meters_in_another_module";
    oom_diag_list fresh = {NULL, 0, 0}, cold = {NULL, 0, 0}, warm = {NULL, 0, 0};
    lint_project(project, NULL, &fresh);
    oom_cache *c = oom_cache_open(dir, "unit", 4);
    lint_project(project, c, &cold);
    size_t hits, misses, written;
    oom_cache_counts(c, &hits, &misses, &written);
    CHECK(hits == 0 && misses == 2 && written == 2 && oom_cache_problem(c) == NULL);
    oom_cache_free(c);
    c = oom_cache_open(dir, "unit", 4);
    lint_project(project, c, &warm);
    oom_cache_counts(c, &hits, &misses, &written);
    CHECK(hits == 2 && misses == 0 && written == 0);
    oom_cache_free(c);
    c = oom_cache_open(dir, "other settings", 14); /* another key: nothing found */
    oom_diag_list other = {NULL, 0, 0};
    lint_project(project, c, &other);
    oom_cache_counts(c, &hits, &misses, &written);
    CHECK(hits == 0 && misses == 2);
    oom_cache_free(c);
    CHECK(fresh.len == 2); /* the two OOM202 the project pass confirms */
    CHECK(same_findings(&fresh, &cold) && same_findings(&fresh, &warm) && same_findings(&fresh, &other));
    oom_diag_list_free(&fresh);
    oom_diag_list_free(&cold);
    oom_diag_list_free(&warm);
    oom_diag_list_free(&other);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

void test_cache_suite(void)
{
    oom_test_run("cache: XXH64 matches xxHash's values", test_hash_vectors);
    oom_test_run("cache: the codec's reader refuses what is cut short or too long", test_reader_bounds);
    oom_test_run("cache: an entry's bytes there and back; cut or altered, refused safely", test_entry_round_trip);
    oom_test_run("cache: oom_run answers a project from the cache as it linted it", test_run_from_cache);
}

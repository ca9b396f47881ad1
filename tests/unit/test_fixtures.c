/* The fixture runner. Each fixture carries its expectations inline: a line
 * ending in `# expect: OOM201` (or `# expect: OOM201,OOM202`) must produce
 * exactly those codes, and every other line must produce nothing. JSON has
 * no comments, so `x.json` keeps them in `x.json.expect`, one `LINE: CODES`
 * a line; YAML configs (`x.yaml`, `x.yml`) do the same, so that a fixture is
 * the config exactly as a user writes it, hostile bytes included; a notebook, whose magic lines cannot carry a comment either, keeps
 * them in `x.ipynb.expect`, one `CELL:ROW: CODES` a line (the cell counted
 * as Jupyter shows it, markdown included; the row in the cell). A missing
 * finding and an unexpected one both fail the fixture. A fixture linted for
 * a target GPU says so: `# fixture: gpu=v100` in a Python file, `gpu: v100`
 * in a sidecar .expect file. Beside those, every fixture with findings has a
 * snapshot, `x.py.snap` (the same one format for Python, JSON and notebooks):
 * each finding's span, code and message, and the rows of its other places, which `make snapshots` writes and a
 * reviewer reads in the diff. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "harness.h"
#include "oomlint/engine.h"
#include "oomlint/kb.h"
#include "oomlint/rules.h"

#include "engine/internal.h" /* to take the word filter out of a second rule set */

typedef struct {
    uint32_t cell; /* a notebook's cell; 0 in a file */
    uint32_t line; /* in the cell, for a notebook */
    char code[16];
    bool seen;
} expectation;

typedef struct {
    expectation *items;
    size_t len, cap;
} expectation_list;

static bool is_code(const char *s)
{
    size_t i = 0;
    while (s[i] >= 'A' && s[i] <= 'Z')
        i++;
    if (i == 0 || !(s[i] >= '0' && s[i] <= '9'))
        return false;
    while (s[i] >= '0' && s[i] <= '9')
        i++;
    return s[i] == '\0';
}

static void add_codes(expectation_list *l, uint32_t cell, uint32_t line, const char *codes)
{
    const char *p = codes;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t n = 0;
        expectation e = {cell, line, "", false};
        while (p[n] && p[n] != ',' && p[n] != ' ' && p[n] != '\n' && p[n] != '\r' && n < 15) {
            e.code[n] = p[n];
            n++;
        }
        if (n == 0)
            break;
        e.code[n] = '\0';
        if (!is_code(e.code))
            break; /* prose that mentions "# expect:" is not an expectation */
        OOM_PUSH(l->items, l->len, l->cap, e);
        p += n;
        while (*p == ' ')
            p++;
        if (*p != ',')
            break;
    }
}

static void parse_inline(const char *text, expectation_list *l)
{
    uint32_t line = 1;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char *copy = oom_xstrndup(p, len);
        const char *mark = strstr(copy, "# expect:");
        if (mark)
            add_codes(l, 0, line, mark + strlen("# expect:"));
        free(copy);
        if (!eol)
            break;
        p = eol + 1;
        line++;
    }
}

static void parse_sidecar(const char *path, expectation_list *l)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char buf[512];
    while (fgets(buf, sizeof buf, f)) {
        unsigned cell, line;
        int used = 0;
        if (sscanf(buf, "%u:%u:%n", &cell, &line, &used) == 2 && used > 0)
            add_codes(l, cell, line, buf + used);
        else if (sscanf(buf, "%u:%n", &line, &used) == 1 && used > 0)
            add_codes(l, 0, line, buf + used);
    }
    fclose(f);
}

static oom_kb fixture_kb;
static oom_compiled *fixture_compiled;

static bool claim(expectation_list *l, uint32_t cell, uint32_t line, const char *code)
{
    for (size_t i = 0; i < l->len; i++)
        if (!l->items[i].seen && l->items[i].cell == cell && l->items[i].line == line &&
            strcmp(l->items[i].code, code) == 0) {
            l->items[i].seen = true;
            return true;
        }
    return false;
}

/* "gpu=NAME" after "fixture:" in the text, or "gpu: NAME" at a line start. */
static bool fixture_gpu(const char *text, char *out, size_t size)
{
    const char *p = strstr(text, "fixture: gpu=");
    size_t skip = strlen("fixture: gpu=");
    if (!p) {
        p = strstr(text, "gpu: ");
        skip = strlen("gpu: ");
        if (p && p != text && p[-1] != '\n')
            p = NULL;
    }
    if (!p)
        return false;
    p += skip;
    size_t n = strcspn(p, " \r\n");
    if (n == 0 || n >= size)
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
}

/* The same rules without the word filter (engine/words.c): every fixture
 * must get the same findings from both, or the filter dropped a pattern
 * that could match. */
static oom_compiled *unfiltered_compiled;

static void check_word_filter(oom_source *src, oom_lang lang, const oom_run_context *run,
                              const oom_diag_list *found, oom_buf *report)
{
    if (!unfiltered_compiled)
        return;
    oom_compiled_set_run(unfiltered_compiled, run);
    oom_diag_list all = {NULL, 0, 0};
    oom_linter *linter = oom_linter_new(unfiltered_compiled);
    oom_linter_run(linter, src, lang, &all);
    oom_linter_free(linter);
    bool same = all.len == found->len;
    for (size_t i = 0; same && i < all.len; i++)
        same = strcmp(all.items[i].code, found->items[i].code) == 0 &&
               all.items[i].start_row == found->items[i].start_row &&
               all.items[i].start_col == found->items[i].start_col &&
               strcmp(all.items[i].message, found->items[i].message) == 0;
    if (!same)
        oom_buf_printf(report, "  the word filter changed the findings (%zu with it, %zu without)\n", found->len,
                       all.len);
    oom_diag_list_free(&all);
}

/* A fixture's text; a notebook's, as the module of its code cells. */
static bool read_fixture(const char *path, oom_source *src)
{
    char why[256] = "";
    oom_notebook_error nb_err;
    memset(&nb_err, 0, sizeof nb_err);
    bool ok = oom_notebook_is_path(path)
                  ? oom_source_read_notebook(path, path, src, &nb_err) == OOM_SOURCE_OK
                  : oom_source_read(path, path, src, why, sizeof why) == OOM_SOURCE_OK;
    if (!ok)
        printf("FAIL fixture %s: cannot read: %s\n", path, oom_notebook_is_path(path) ? nb_err.message : why);
    return ok;
}

static void describe_line(oom_buf *out, uint32_t cell, uint32_t line)
{
    if (cell)
        oom_buf_printf(out, "  cell %u line %u", cell, line);
    else
        oom_buf_printf(out, "  line %u", line);
}

static void check_snapshot(const char *path, oom_diag_list *found, oom_buf *report);

static void run_fixture(oom_linter *unused, const char *path)
{
    (void)unused;
    oom_source src;
    char why[256];
    oom_diag_list found = {NULL, 0, 0};
    expectation_list want = {NULL, 0, 0};
    oom_lang lang = oom_lang_for_path(path);
    bool notebook = oom_notebook_is_path(path);
    if (notebook)
        lang = OOM_LANG_PYTHON;
    if (!read_fixture(path, &src)) {
        oom_source_free(&src);
        return;
    }
    char gpu_name[64] = "";
    if (lang == OOM_LANG_JSON || lang == OOM_LANG_YAML || notebook) {
        oom_buf side;
        oom_buf_init(&side);
        oom_buf_printf(&side, "%s.expect", path);
        parse_sidecar(side.data, &want);
        oom_source sidecar;
        if (oom_source_read(side.data, side.data, &sidecar, why, sizeof why) == OOM_SOURCE_OK)
            fixture_gpu(sidecar.text, gpu_name, sizeof gpu_name);
        oom_source_free(&sidecar);
        oom_buf_free(&side);
    } else {
        parse_inline(src.text, &want);
        fixture_gpu(src.text, gpu_name, sizeof gpu_name);
    }
    oom_run_context run = {&fixture_kb, NULL, 0, false, false};
    if (gpu_name[0]) {
        run.gpu = oom_kb_find_gpu(&fixture_kb, gpu_name);
        if (!run.gpu)
            printf("FAIL fixture %s: unknown gpu %s\n", path, gpu_name);
    }
    oom_compiled_set_run(fixture_compiled, &run);
    oom_linter *linter = oom_linter_new(fixture_compiled);
    oom_linter_run(linter, &src, lang, &found);
    oom_linter_free(linter);
    oom_buf report;
    oom_buf_init(&report);
    check_word_filter(&src, lang, &run, &found, &report);
    for (size_t i = 0; i < found.len; i++) {
        const oom_diag *d = &found.items[i];
        if (claim(&want, d->cell, d->start_row, d->code))
            continue;
        describe_line(&report, d->cell, d->start_row);
        oom_buf_printf(&report, ": unexpected %s %s\n", d->code, d->message);
    }
    for (size_t i = 0; i < want.len; i++) {
        if (want.items[i].seen)
            continue;
        describe_line(&report, want.items[i].cell, want.items[i].line);
        oom_buf_printf(&report, ": expected %s, not reported\n", want.items[i].code);
    }
    check_snapshot(path, &found, &report);
    if (report.len == 0)
        printf("PASS fixture %s (%zu finding%s)\n", path, found.len, found.len == 1 ? "" : "s");
    else
        printf("FAIL fixture %s:\n%s", path, report.data);
    oom_buf_free(&report);
    free(want.items);
    oom_diag_list_free(&found);
    oom_source_free(&src);
}

/* The snapshot of a fixture's findings, one line each in the order the
 * report gives them: `[cell N ]ROW:COL-ENDROW:ENDCOL CODE message`. The
 * annotations pin line and code (the intent, written by hand); the snapshot
 * pins the columns, the span and the message too, as Ruff's snapshots do. */
static void render_snapshot(oom_diag_list *found, oom_buf *out)
{
    oom_diag_list_sort(found);
    for (size_t i = 0; i < found->len; i++) {
        const oom_diag *d = &found->items[i];
        if (d->cell)
            oom_buf_printf(out, "cell %u ", d->cell);
        oom_buf_printf(out, "%u:%u-%u:%u %s %s\n", d->start_row, d->start_col, d->end_row, d->end_col, d->code,
                       d->message);
        for (size_t r = 0; r < d->related_count; r++) /* the other places of its cause, reviewed too */
            oom_buf_printf(out, "    also %u: %s\n", d->related[r].row, d->related[r].message);
    }
}

/* Compares the findings with `<fixture>.snap`, or writes it when
 * OOM_UPDATE_SNAPSHOTS=1 (`make snapshots`). A fixture with findings must
 * have one; a fixture without may leave it out. */
static void check_snapshot(const char *path, oom_diag_list *found, oom_buf *report)
{
    oom_buf want_path, got, err;
    oom_buf_init(&want_path);
    oom_buf_init(&got);
    oom_buf_init(&err);
    oom_buf_append(&got, "", 0);
    oom_buf_printf(&want_path, "%s.snap", path);
    render_snapshot(found, &got);
    const char *update = getenv("OOM_UPDATE_SNAPSHOTS");
    oom_source snap;
    char why[256];
    bool have = oom_source_read(want_path.data, want_path.data, &snap, why, sizeof why) == OOM_SOURCE_OK;
    if (update && strcmp(update, "1") == 0) {
        if ((got.len > 0 || have) && (!have || snap.len != got.len || memcmp(snap.text, got.data, got.len) != 0) &&
            oom_write_file_atomically(want_path.data, got.data, got.len, &err) != 0)
            oom_buf_printf(report, "  snapshot not written: %s\n", err.data);
    } else if (!have && got.len > 0) {
        oom_buf_printf(report, "  no snapshot %s: `make snapshots` writes it (review the diff)\n", want_path.data);
    } else if (have && (snap.len != got.len || memcmp(snap.text, got.data, got.len) != 0)) {
        /* the first line that differs */
        const char *w = snap.text, *g = got.data;
        for (;;) {
            size_t wl = strcspn(w, "\n"), gl = strcspn(g, "\n");
            if (wl != gl || memcmp(w, g, wl) != 0 || (!w[wl] && !g[gl])) {
                oom_buf_printf(report, "  snapshot %s differs:\n    want: %.*s\n    got:  %.*s\n", want_path.data,
                               (int)wl, w, (int)gl, g);
                break;
            }
            w += wl + (w[wl] != 0);
            g += gl + (g[gl] != 0);
        }
    }
    oom_source_free(&snap);
    oom_buf_free(&want_path);
    oom_buf_free(&got);
    oom_buf_free(&err);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(oom_linter *linter, const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t len = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            OOM_PUSH(names, len, cap, oom_xstrdup(e->d_name));
    closedir(d);
    if (len > 1)
        qsort(names, len, sizeof(char *), cmp_str);
    for (size_t i = 0; i < len; i++) {
        oom_buf path;
        oom_buf_init(&path);
        oom_buf_printf(&path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path.data, &st) == 0 && S_ISDIR(st.st_mode)) {
            walk(linter, path.data, count);
        } else if (oom_str_ends_with(names[i], ".py") || oom_str_ends_with(names[i], ".json") ||
                   oom_lang_for_path(names[i]) == OOM_LANG_YAML || oom_notebook_is_path(names[i])) {
            run_fixture(linter, path.data);
            (*count)++;
        }
        oom_buf_free(&path);
        free(names[i]);
    }
    free(names);
}

void test_fixtures_suite(const char *root)
{
    oom_rule_list rules = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    oom_strlist_push(&sel.select, "ALL"); /* opt-in rules have fixtures too */
    oom_compiled *c = NULL;
    if (oom_rules_add_embedded(&rules, &err) != 0 || !(c = oom_compiled_new(&rules, &sel, &err)) ||
        oom_kb_load_embedded(&fixture_kb, &err) != 0) {
        printf("FAIL fixtures: rules do not load: %s\n", err.data);
    } else {
        fixture_compiled = c;
        unfiltered_compiled = oom_compiled_new(&rules, &sel, &err);
        for (int l = 0; unfiltered_compiled && l < OOM_LANG_COUNT; l++)
            oom_words_free(&unfiltered_compiled->langs[l].words);
        oom_linter *linter = oom_linter_new(c);
        size_t count = 0;
        walk(linter, root, &count);
        if (count == 0)
            printf("FAIL fixtures: no fixture found under %s\n", root);
        oom_linter_free(linter);
        oom_kb_free(&fixture_kb);
        oom_compiled_free(unfiltered_compiled);
        unfiltered_compiled = NULL;
    }
    oom_compiled_free(c);
    oom_selection_free(&sel);
    oom_rules_free(&rules);
    oom_buf_free(&err);
}

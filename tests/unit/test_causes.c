/* One finding per cause (util/causes.c): the places of a rule's findings in
 * one function fold into the first, their fixes with them. */
#include <stdlib.h>

#include "harness.h"
#include "oomlint/diag.h"
#include "oomlint/util.h"

static oom_fix *edit_fix(oom_applicability a, uint32_t start, uint32_t end, const char *content)
{
    oom_fix *f = oom_xcalloc(1, sizeof *f);
    f->applicability = a;
    f->message = oom_xstrdup("m");
    f->edits = oom_xcalloc(1, sizeof(oom_edit));
    f->edit_count = 1;
    f->edits[0] = (oom_edit){start, end, 1, 1, 1, 1, oom_xstrdup(content)};
    f->preview_before = oom_xstrdup("before");
    f->preview_after = oom_xstrdup("after");
    return f;
}

static oom_diag *place(oom_diag_list *l, const char *code, uint32_t row, uint32_t scope, oom_fix *fix)
{
    oom_diag *d = oom_diag_list_add(l, code, "n", OOM_SEV_WARNING, "t.py", "`x` is fixed", NULL, NULL);
    d->start_row = d->end_row = row;
    d->cause_scope = scope;
    d->fix = fix;
    return d;
}

static void places_of_one_function_are_one_finding(void)
{
    oom_diag_list l = {NULL, 0, 0};
    place(&l, "OOM105", 6, 40, edit_fix(OOM_FIX_SAFE, 10, 12, "a"));
    place(&l, "OOM105", 7, 40, edit_fix(OOM_FIX_UNSAFE, 30, 32, "b"));
    place(&l, "OOM105", 9, 40, edit_fix(OOM_FIX_SAFE, 10, 12, "a")); /* the same edit: once */
    oom_diag_list_fold_causes(&l);
    CHECK(l.len == 1);
    CHECK(l.items[0].related_count == 2);
    CHECK(l.items[0].related_count == 2 && l.items[0].related[0].row == 7 && l.items[0].related[1].row == 9);
    CHECK_STR(l.items[0].message, "`x` is fixed (also at lines 7 and 9)");
    CHECK(l.items[0].fix && l.items[0].fix->edit_count == 2);
    CHECK(l.items[0].fix && l.items[0].fix->applicability == OOM_FIX_UNSAFE); /* the least safe */
    CHECK(l.items[0].fix && l.items[0].fix->preview_before == NULL); /* it showed one place only */
    oom_diag_list_free(&l);
}

static void other_functions_rules_and_files_stay_apart(void)
{
    oom_diag_list l = {NULL, 0, 0};
    place(&l, "OOM105", 6, 40, NULL);
    place(&l, "OOM105", 20, 90, NULL);  /* another function */
    place(&l, "OOM301", 21, 90, NULL);  /* another rule */
    place(&l, "OOM201", 22, 0, NULL);   /* a rule whose every finding is a cause */
    place(&l, "OOM201", 23, 0, NULL);
    oom_diag *nb = place(&l, "OOM105", 30, 90, NULL);
    nb->cell = 2; /* a related location names no cell */
    oom_diag *other = place(&l, "OOM105", 31, 40, NULL);
    free(other->path);
    other->path = oom_xstrdup("u.py");
    oom_diag_list_sort(&l);
    oom_diag_list_fold_causes(&l);
    CHECK(l.len == 7);
    for (size_t i = 0; i < l.len; i++)
        CHECK(l.items[i].related_count == 0);
    oom_diag_list_free(&l);
}

static void a_place_without_a_fix_leaves_the_cause_without_one(void)
{
    oom_diag_list l = {NULL, 0, 0};
    place(&l, "OOM401", 3, 1, edit_fix(OOM_FIX_UNSAFE, 10, 12, "fp16"));
    place(&l, "OOM401", 4, 1, NULL);
    oom_diag_list_fold_causes(&l);
    CHECK(l.len == 1 && l.items[0].fix == NULL);
    oom_diag_list_free(&l);

    oom_diag_list c = {NULL, 0, 0}; /* two edits of one place that cannot both apply */
    place(&c, "OOM401", 3, 1, edit_fix(OOM_FIX_UNSAFE, 10, 20, "fp16"));
    place(&c, "OOM401", 3, 1, edit_fix(OOM_FIX_UNSAFE, 15, 25, "float16"));
    oom_diag_list_fold_causes(&c);
    CHECK(c.len == 1 && c.items[0].fix == NULL);
    oom_diag_list_free(&c);
}

static void a_first_place_without_a_fix_takes_none(void)
{
    oom_diag_list l = {NULL, 0, 0};
    place(&l, "OOM401", 3, 1, NULL);
    place(&l, "OOM401", 4, 1, edit_fix(OOM_FIX_UNSAFE, 10, 12, "fp16"));
    oom_diag_list_fold_causes(&l);
    CHECK(l.len == 1 && l.items[0].fix == NULL && l.items[0].related_count == 1);
    oom_diag_list_free(&l);
}

static void related_places_already_there_are_kept(void)
{
    oom_diag_list l = {NULL, 0, 0};
    oom_diag *d = place(&l, "OOM105", 6, 40, NULL);
    oom_diag_add_related(d, "args.json", 3, "the TrainingArguments it disagrees with");
    place(&l, "OOM105", 8, 40, NULL);
    oom_diag_list_fold_causes(&l);
    CHECK(l.len == 1 && l.items[0].related_count == 2);
    CHECK_STR(l.items[0].message, "`x` is fixed (also at line 8)");
    oom_diag_list_free(&l);
}

void test_causes_suite(void)
{
    oom_test_run("causes: places of one function are one finding", places_of_one_function_are_one_finding);
    oom_test_run("causes: other functions, rules and files stay apart", other_functions_rules_and_files_stay_apart);
    oom_test_run("causes: a place without a fix leaves the cause without one",
                 a_place_without_a_fix_leaves_the_cause_without_one);
    oom_test_run("causes: a first place without a fix takes none", a_first_place_without_a_fix_takes_none);
    oom_test_run("causes: related places already there are kept", related_places_already_there_are_kept);
}

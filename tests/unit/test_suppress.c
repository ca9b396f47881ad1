/* Suppression comment parsing. */
#include "harness.h"
#include "oomlint/suppress.h"

static bool covers(const char *comment, bool own_line, const char *code, oom_suppress_scope *scope)
{
    oom_suppression s;
    oom_suppression_parse(comment, strlen(comment), own_line, &s);
    bool yes = oom_suppression_covers(&s, code);
    if (scope)
        *scope = s.scope;
    oom_suppression_free(&s);
    return yes;
}

static void noqa_forms(void)
{
    CHECK(covers("# noqa", false, "OOM201", NULL));
    CHECK(covers("#noqa", false, "OOM201", NULL));
    CHECK(covers("# NOQA", false, "OOM201", NULL));
    CHECK(covers("# noqa: OOM201", false, "OOM201", NULL));
    CHECK(!covers("# noqa: OOM201", false, "OOM202", NULL));
    CHECK(covers("# noqa: OOM201,OOM202", false, "OOM202", NULL));
    CHECK(covers("# noqa:OOM201, OOM202", false, "OOM202", NULL));
    CHECK(covers("# noqa: OOM2", false, "OOM202", NULL)); /* prefix */
    CHECK(covers("# type: ignore  # noqa: OOM101", false, "OOM101", NULL));
    CHECK(!covers("# noqanything", false, "OOM101", NULL));
    CHECK(!covers("# see the noqa docs", false, "OOM101", NULL));
}

static void oomlint_directives(void)
{
    oom_suppress_scope scope;
    CHECK(covers("# oomlint: disable=OOM201", false, "OOM201", &scope) && scope == OOM_SUPPRESS_LINE);
    CHECK(!covers("# oomlint: disable=OOM201", false, "OOM101", NULL));
    CHECK(!covers("# oomlint: disable", false, "OOM101", NULL)); /* must name codes */
    CHECK(covers("# oomlint: disable-file", true, "OOM101", &scope) && scope == OOM_SUPPRESS_FILE);
    CHECK(!covers("# oomlint: disable-file", false, "OOM101", NULL)); /* not on its own line */
    CHECK(covers("# oomlint: disable-file=OOM2", true, "OOM202", &scope) && scope == OOM_SUPPRESS_FILE);
    CHECK(!covers("# oomlint: disable-file=OOM2", true, "OOM101", NULL));
    CHECK(!covers("# oomlint: enable=OOM201", false, "OOM201", NULL));
}

static void suppression_sets(void)
{
    oom_suppression_set set;
    memset(&set, 0, sizeof set);
    oom_suppression s;
    oom_suppression_parse("# noqa: OOM201", 14, false, &s);
    oom_suppression_set_add(&set, 7, &s);
    CHECK(oom_suppression_set_covers(&set, 7, "OOM201"));
    CHECK(!oom_suppression_set_covers(&set, 8, "OOM201"));
    oom_suppression_parse("# oomlint: disable-file=OOM3", 28, true, &s);
    oom_suppression_set_add(&set, 1, &s);
    CHECK(oom_suppression_set_covers(&set, 99, "OOM301"));
    oom_suppression_set_free(&set);
}

void test_suppress_suite(void)
{
    oom_test_run("suppress: noqa forms", noqa_forms);
    oom_test_run("suppress: oomlint directives", oomlint_directives);
    oom_test_run("suppress: per-line and per-file sets", suppression_sets);
}

/* --select / --ignore semantics. */
#include "harness.h"
#include "oomlint/select.h"

static oom_selection make(const char *select, const char *ignore)
{
    oom_selection s;
    memset(&s, 0, sizeof s);
    oom_buf err;
    oom_buf_init(&err);
    if (select)
        CHECK(oom_selection_parse_list(&s.select, select, &err) == 0);
    if (ignore)
        CHECK(oom_selection_parse_list(&s.ignore, ignore, &err) == 0);
    oom_buf_free(&err);
    return s;
}

static void prefixes_and_precedence(void)
{
    oom_selection s = make(NULL, NULL);
    CHECK(oom_selection_enabled(&s, "OOM201", true));
    oom_selection_free(&s);
    s = make("OOM2", NULL);
    CHECK(oom_selection_enabled(&s, "OOM202", true) && !oom_selection_enabled(&s, "OOM101", true));
    oom_selection_free(&s);
    s = make("OOM2", "OOM201");
    CHECK(!oom_selection_enabled(&s, "OOM201", true) && oom_selection_enabled(&s, "OOM202", true));
    oom_selection_free(&s);
    s = make("OOM201", "OOM2");
    CHECK(oom_selection_enabled(&s, "OOM201", true) && !oom_selection_enabled(&s, "OOM202", true));
    oom_selection_free(&s);
    s = make("oom101, OOM3", "ALL");
    CHECK(oom_selection_enabled(&s, "OOM101", true) && oom_selection_enabled(&s, "OOM301", true));
    CHECK(!oom_selection_enabled(&s, "OOM201", true));
    oom_selection_free(&s);
    s = make(NULL, "OOM101");
    CHECK(!oom_selection_enabled(&s, "OOM101", true) && oom_selection_enabled(&s, "OOM201", true));
    oom_selection_free(&s);
}

/* An opt-in rule runs only when --select names it or a prefix of it. */
static void opt_in_rules(void)
{
    oom_selection s = make(NULL, NULL);
    CHECK(!oom_selection_enabled(&s, "OOM103", false) && oom_selection_enabled(&s, "OOM201", true));
    oom_selection_free(&s);
    s = make("OOM1", NULL);
    CHECK(oom_selection_enabled(&s, "OOM103", false));
    oom_selection_free(&s);
    s = make("ALL", "OOM103");
    CHECK(!oom_selection_enabled(&s, "OOM103", false) && oom_selection_enabled(&s, "OOM102", false));
    oom_selection_free(&s);
    s = make(NULL, "OOM2");
    CHECK(!oom_selection_enabled(&s, "OOM103", false) && !oom_selection_enabled(&s, "OOM201", true));
    oom_selection_free(&s);
}

/* --extend-select adds to --select or to the defaults, and meets --ignore in
 * the same longest-prefix contest. */
static void extend_select(void)
{
    oom_buf err;
    oom_buf_init(&err);
    oom_selection s = make(NULL, NULL);
    CHECK(oom_selection_parse_list(&s.extend, "OOM201", &err) == 0);
    CHECK(oom_selection_enabled(&s, "OOM201", false) && oom_selection_enabled(&s, "OOM301", true));
    CHECK(!oom_selection_enabled(&s, "OOM202", false));
    oom_selection_free(&s);
    s = make("OOM1", NULL);
    CHECK(oom_selection_parse_list(&s.extend, "OOM20", &err) == 0);
    CHECK(oom_selection_enabled(&s, "OOM101", true) && oom_selection_enabled(&s, "OOM202", false));
    CHECK(!oom_selection_enabled(&s, "OOM301", true));
    oom_selection_free(&s);
    s = make(NULL, "OOM2");
    CHECK(oom_selection_parse_list(&s.extend, "OOM201", &err) == 0);
    CHECK(oom_selection_enabled(&s, "OOM201", false) && !oom_selection_enabled(&s, "OOM202", false));
    oom_selection_free(&s);
    s = make(NULL, "OOM201");
    CHECK(oom_selection_parse_list(&s.extend, "OOM201", &err) == 0);
    CHECK(!oom_selection_enabled(&s, "OOM201", false)); /* a tie goes to --ignore */
    oom_selection_free(&s);
    oom_buf_free(&err);
}

static void rejects_bad_codes(void)
{
    oom_strlist l = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_selection_parse_list(&l, "OOM2,foo!", &err) != 0);
    CHECK(strstr(err.data, "FOO!") != NULL);
    CHECK(oom_selection_parse_list(&l, "12", &err) != 0);
    oom_strlist_free(&l);
    oom_buf_free(&err);
}

void test_select_suite(void)
{
    oom_test_run("select: prefixes and precedence", prefixes_and_precedence);
    oom_test_run("select: opt-in rules run only when selected", opt_in_rules);
    oom_test_run("select: extend-select adds on top", extend_select);
    oom_test_run("select: bad codes rejected", rejects_bad_codes);
}

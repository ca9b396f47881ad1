/* Parsing `git diff --unified=0` output into changed line ranges. */
#include <stdlib.h>

#include "harness.h"
#include "oomlint/diffbase.h"

static void parses_hunks_and_names(void)
{
    oom_changes c;
    memset(&c, 0, sizeof c);
    c.root = strdup("/repo");
    oom_changes_parse_diff(&c,
                           "diff --git a/a.py b/a.py\n"
                           "--- a/a.py\n+++ b/a.py\n"
                           "@@ -2 +2 @@ x\n-old\n+new\n"
                           "@@ -10,0 +11,3 @@\n+a\n+b\n+c\n"
                           "@@ -20,2 +22,0 @@\n-gone\n-gone\n"
                           "diff --git a/sp ace.py b/sp ace.py\n"
                           "--- a/sp ace.py\t\n+++ b/sp ace.py\t\n@@ -1 +1 @@\n-x\n+y\n"
                           "diff --git a/q b/q\n--- \"a/t\\303\\251\\tst.py\"\n+++ \"b/t\\303\\251\\tst.py\"\n@@ -0,0 +1 @@\n+z\n"
                           "--- a/deleted.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-w\n");
    CHECK(c.file_count == 3);
    CHECK(c.file_count > 0 && strcmp(c.files[0].path, "/repo/a.py") == 0);
    CHECK(c.file_count > 0 && c.files[0].range_count == 4); /* the pure deletion adds no range */
    CHECK(c.file_count > 0 && c.files[0].ranges[0] == 2 && c.files[0].ranges[1] == 2);
    CHECK(c.file_count > 0 && c.files[0].ranges[2] == 11 && c.files[0].ranges[3] == 13);
    CHECK(c.file_count > 1 && strcmp(c.files[1].path, "/repo/sp ace.py") == 0);
    CHECK(c.file_count > 2 && strcmp(c.files[2].path, "/repo/t\xc3\xa9\tst.py") == 0);
    oom_changes_free(&c);
}

void test_diffbase_suite(void)
{
    oom_test_run("diffbase: hunks, names with spaces and quoted names", parses_hunks_and_names);
}

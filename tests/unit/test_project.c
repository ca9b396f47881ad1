/* The project pass's cheap text tests. */
#include "harness.h"

#include "oomlint/project.h"

static bool may_link(const char *text)
{
    return oom_project_may_link_deepspeed(text, strlen(text));
}

/* The prefilter may let through a file without a link (it is only read
 * again), but must never drop one that has it. */
static void deepspeed_prefilter(void)
{
    CHECK(may_link("args = TrainingArguments(out, deepspeed=\"ds.json\")"));
    CHECK(may_link("TrainingArguments(\n    deepspeed = cfg,\n)"));
    CHECK(may_link("TrainingArguments(deepspeed\n    =\"ds.json\")"));
    CHECK(may_link("TrainingArguments(deepspeed  # the ZeRO config\n    = \"ds.json\")"));
    CHECK(may_link("TrainingArguments(deepspeed \\\n= \"ds.json\")"));
    CHECK(may_link("args, = HfArgumentParser(TrainingArguments).parse_json_file(\"args.json\")"));
    CHECK(may_link("deepspeed="));
    CHECK(!may_link("import deepspeed\nengine = deepspeed.initialize(model=m)"));
    CHECK(!may_link("TrainingArguments(use_deepspeed=True)"));
    CHECK(!may_link("TrainingArguments(deepspeed_config=\"ds.json\")"));
    CHECK(!may_link("if args.deepspeed == \"ds.json\": pass"));
    CHECK(!may_link("# deepspeed is not used here"));
    CHECK(!may_link(""));
    CHECK(!may_link("deepspeed"));
}

void test_project_suite(void)
{
    oom_test_run("project: the DeepSpeed prefilter keeps every file that may link a config", deepspeed_prefilter);
}

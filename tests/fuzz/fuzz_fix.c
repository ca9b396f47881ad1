/* libFuzzer target: `--unsafe-fixes` on fuzzed Python, with every rule
 * selected, and the properties the suite checks on the fixtures: a file that
 * parsed still parses after fixing (the fixer refuses anything else), the
 * fixed text is stable (fixing it again changes nothing once the fixer
 * converged), and fixing is deterministic (the same input, the same bytes). */
#include "fuzz_common.h"
#include "oomlint/fixer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static oom_compiled *fix_compiled;
static oom_linter *fix_linter;

/* Every rule, opt-in ones too: each fix gets its chance. */
static void fix_setup(void)
{
    if (fix_linter)
        return;
    fuzz_setup();
    oom_buf err;
    oom_buf_init(&err);
    oom_selection sel;
    memset(&sel, 0, sizeof sel);
    oom_strlist_push(&sel.select, "ALL");
    if (!(fix_compiled = oom_compiled_new(&fuzz_rules, &sel, &err)))
        abort();
    fix_linter = oom_linter_new(fix_compiled);
    oom_selection_free(&sel);
    oom_buf_free(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536 || memchr(data, 0, size))
        return 0;
    fix_setup();
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    oom_fix_policy all = {OOM_FIX_UNSAFE, NULL, NULL};
    oom_fix_result first, again, twice;
    oom_fix_text(fix_linter, "fuzz.py", text, size, OOM_LANG_PYTHON, &all, &first);
    if (first.outcome == OOM_FIX_CHANGED) {
        if (!oom_fix_text_parses(OOM_LANG_PYTHON, first.text, first.len, NULL, 0))
            abort(); /* the fixer wrote text that does not parse */
        oom_fix_text(fix_linter, "fuzz.py", text, size, OOM_LANG_PYTHON, &all, &twice);
        if (twice.outcome != first.outcome || twice.len != first.len || memcmp(twice.text, first.text, first.len))
            abort(); /* not deterministic */
        oom_fix_result_free(&twice);
        if (first.converged) {
            oom_fix_text(fix_linter, "fuzz.py", first.text, first.len, OOM_LANG_PYTHON, &all, &again);
            if (again.outcome == OOM_FIX_CHANGED)
                abort(); /* a second --fix changed the fixed text */
            oom_fix_result_free(&again);
        }
    }
    oom_fix_result_free(&first);
    free(text);
    return 0;
}

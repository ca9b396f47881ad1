/* engine/words: the file-level word filter on its own. */
#include "harness.h"

#include "engine/internal.h"

static void enable(const oom_word_filter *w, const char *text, uint8_t *on, uint32_t patterns)
{
    uint8_t present[16];
    oom_words_enable(w, text, strlen(text), present, on, patterns);
}

static void word_filter_needs_each_clause(void)
{
    oom_word_filter w;
    memset(&w, 0, sizeof w);
    const char *qual[] = {"set_detect_anomaly", "set_anomaly_enabled"};
    const char *kw[] = {"retain_graph"};
    const char *pair_a[] = {"bf16"}, *pair_b[] = {"fp16"};
    const char *not_words[] = {"self.x", "a b"};
    oom_words_add_clause(&w, 0, qual, 2);
    oom_words_add_clause(&w, 1, kw, 1);
    oom_words_add_clause(&w, 2, pair_a, 1);
    oom_words_add_clause(&w, 2, pair_b, 1);
    oom_words_add_clause(&w, 3, not_words, 2); /* ignored: not words */
    CHECK(oom_words_filters(&w));
    uint8_t on[5];
    enable(&w, "from torch.autograd import set_anomaly_enabled as sae\nsae(True)\n", on, 5);
    CHECK(on[0] && !on[1] && !on[2] && on[3] && on[4]);
    enable(&w, "loss.backward(retain_graph=True)  # bf16\n", on, 5);
    CHECK(!on[0] && on[1] && !on[2]);
    enable(&w, "TrainingArguments(bf16=True, fp16=True)", on, 5);
    CHECK(on[2] && !on[1]);
    /* a name touching a number still counts; a longer word does not */
    enable(&w, "x = 0xfretain_graph + 1set_detect_anomaly", on, 5);
    CHECK(on[0] && on[1]);
    enable(&w, "retain_graphs = set_detect_anomaly_x; _bf16 = 2; fp16_", on, 5);
    CHECK(!on[0] && !on[1] && !on[2]);
    /* non-ASCII bytes separate words: the filter lets more through, never less */
    enable(&w, "\xc3\xa9retain_graph\xc3\xa9", on, 5);
    CHECK(on[1]);
    enable(&w, "", on, 5);
    CHECK(!on[0] && !on[1] && !on[2] && on[3] && on[4]);
    oom_words_free(&w);
    CHECK(!oom_words_filters(&w));
    enable(&w, "anything", on, 5); /* no clauses: everything runs */
    CHECK(on[0] && on[1] && on[2] && on[3] && on[4]);
}

static void words_are_identifiers(void)
{
    CHECK(oom_words_is_word("retain_graph"));
    CHECK(oom_words_is_word("_x1"));
    CHECK(!oom_words_is_word("1x"));
    CHECK(!oom_words_is_word(""));
    CHECK(!oom_words_is_word("torch.load"));
    CHECK(!oom_words_is_word("caf\xc3\xa9"));
}

void test_words_suite(void)
{
    oom_test_run("words: a pattern runs only where each of its clauses has a word", word_filter_needs_each_clause);
    oom_test_run("words: only identifier-like strings make clauses", words_are_identifiers);
}

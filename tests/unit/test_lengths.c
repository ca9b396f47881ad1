/* What a padded length can be (model/lengths.c) and whether a tokenizer's
 * result becomes the batch's labels (model/targets.c): the premises OOM502
 * asks about a padding call. */
#include <string.h>

#include "harness.h"
#include "oomlint/model.h"

/* Whether the `max_length=` of the call `text` is short (up to `limit`) or measured. */
static bool short_or_measured(const parsed *p, const char *text, long long limit)
{
    TSNode length = oom_pymodel_keyword_value(p->model, oom_test_node_at(p, text), "max_length");
    return oom_pymodel_is_short_or_measured_length(p->model, length, limit);
}

/* A padded length is short on every path (an integer up to the limit) or the
 * longest row of the batch a function was handed; the longest of a whole
 * dataset, a parameter or a large outcome is neither. */
static void padded_lengths(void)
{
    parsed p = oom_test_parse(
        "LONGEST = max(len(t) for t in corpus)\n"
        "def collate(examples, tok, on_tpu, n=4096):\n"
        "    m = (128 if on_tpu else max([len(e['input_ids']) for e in examples]))\n"
        "    big = 128 if on_tpu else 2048\n"
        "    a = tok.pad(examples, max_length=m + 1)\n"
        "    b = tok.pad(examples, max_length=max(len(e['input_ids']) for e in examples))\n"
        "    c = tok.pad(examples, max_length=big)\n"
        "    d = tok.pad(examples, max_length=LONGEST)\n"
        "    e = tok.pad(examples, max_length=n)\n"
        "    f = tok.pad(examples, max_length=200 + 100)\n"
        "    g = tok.pad(examples, max_length=len(examples[0]))\n"
        "    h = tok.pad(examples, max_length=max(map(len, examples)))\n"
        "    return a, b, c, d, e, f, g, h\n");
    CHECK(short_or_measured(&p, "tok.pad(examples, max_length=m + 1)", 256));
    CHECK(short_or_measured(&p, "tok.pad(examples, max_length=max(len(e['input_ids']) for e in examples))", 256));
    CHECK(!short_or_measured(&p, "tok.pad(examples, max_length=big)", 256));
    CHECK(short_or_measured(&p, "tok.pad(examples, max_length=big)", 2048));
    CHECK(!short_or_measured(&p, "tok.pad(examples, max_length=LONGEST)", 256));
    CHECK(!short_or_measured(&p, "tok.pad(examples, max_length=n)", 256));
    CHECK(!short_or_measured(&p, "tok.pad(examples, max_length=200 + 100)", 256));
    CHECK(short_or_measured(&p, "tok.pad(examples, max_length=200 + 100)", 300));
    CHECK(short_or_measured(&p, "tok.pad(examples, max_length=len(examples[0]))", 256));
    CHECK(short_or_measured(&p, "tok.pad(examples, max_length=max(map(len, examples)))", 256));
    oom_test_parsed_free(&p);
}

/* Tokenized targets stored as the batch's labels, through names; ids copied
 * from the inputs (input_ids.clone()) or a name bound anew are not. */
static void tokenized_labels(void)
{
    parsed p = oom_test_parse(
        "def pre(examples, tok):\n"
        "    inputs = tok(examples['text'])\n"
        "    labels = tok(examples['label'], padding='max_length')\n"
        "    labels = labels['input_ids']\n"
        "    labels[labels == tok.pad_token_id] = -100\n"
        "    inputs['labels'] = labels\n"
        "    inputs['labels'] = tok(examples['y'])['input_ids']\n"
        "    ids = tok(examples['text'], padding='max_length').input_ids\n"
        "    targets = ids.clone()\n"
        "    other = tok(examples['z'], padding='max_length')\n"
        "    other = something_else()\n"
        "    inputs['labels'] = other\n"
        "    return dict(input_ids=ids, labels=targets)\n");
    CHECK(oom_pymodel_becomes_labels(p.model, oom_test_node_at(&p, "tok(examples['label'], padding='max_length')")));
    CHECK(oom_pymodel_becomes_labels(p.model, oom_test_node_at(&p, "tok(examples['y'])")));
    CHECK(!oom_pymodel_becomes_labels(p.model, oom_test_node_at(&p, "tok(examples['text'])")));
    CHECK(!oom_pymodel_becomes_labels(p.model, oom_test_node_at(&p, "tok(examples['text'], padding='max_length')")));
    CHECK(!oom_pymodel_becomes_labels(p.model, oom_test_node_at(&p, "tok(examples['z'], padding='max_length')")));
    oom_test_parsed_free(&p);
}

void test_lengths_suite(void)
{
    oom_test_run("lengths: padded lengths, short or measured from the batch", padded_lengths);
    oom_test_run("lengths: tokenized targets that become labels", tokenized_labels);
}

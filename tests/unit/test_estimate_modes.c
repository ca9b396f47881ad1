/* Scripts that train only a head on a frozen Hugging Face base (issue 16,
 * item 8): what they train, from the knowledge base's heads, and what that
 * costs. */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "oomlint/estimate.h"

static oom_kb kb;

#define TRAINS "for batch in loader:\n    model(**batch).loss.backward()\n"
#define SEQ_CLS "from transformers import AutoModelForSequenceClassification\n"

static bool trains_head(const oom_script_inputs *s, long long want, unsigned line, const char *words)
{
    const oom_provenance *p = &s->from[OOM_IN_LORA];
    bool ok = s->in.trainable == want && s->in.frozen_backbone && !p->assumed && p->line == line &&
              strstr(p->text, words) != NULL;
    if (!ok)
        printf("  trainable %lld (want %lld), frozen %d, line %u (want %u): %s\n", s->in.trainable, want,
               s->in.frozen_backbone, p->line, line, p->text);
    return ok;
}

static bool trains_all(const oom_script_inputs *s)
{
    bool ok = s->in.trainable == s->in.params && !s->in.frozen_backbone;
    if (!ok)
        printf("  trainable %lld of %lld: %s\n", s->in.trainable, s->in.params, s->from[OOM_IN_LORA].text);
    return ok;
}

static void frozen_bases(void)
{
    oom_script_inputs s;
    /* bert: the classifier is h x labels + labels (the pooler is in `bert`) */
    oom_test_read_script(&kb, SEQ_CLS "model = AutoModelForSequenceClassification.from_pretrained(\"bert-base-uncased\", num_labels=5)\n"
                              "for p in model.bert.parameters():\n    p.requires_grad = False\n" TRAINS, &s);
    CHECK(trains_head(&s, 768 * 5 + 5, 3, "model.bert frozen, only the head trains (`classifier`, 5 labels)"));
    /* model.base_model.requires_grad_(False) on a decoder: `score`, h x labels, no bias */
    oom_test_read_script(&kb, SEQ_CLS "model = AutoModelForSequenceClassification.from_pretrained(\"meta-llama/Llama-3.2-1B\", num_labels=3)\n"
                              "model.base_model.requires_grad_(False)\n" TRAINS, &s);
    CHECK(trains_head(&s, 2048 * 3, 3, "`score`, 3 labels"));
    /* model.<backbone>.requires_grad_(False), the backbone named as transformers names it */
    oom_test_read_script(&kb, SEQ_CLS "model = AutoModelForSequenceClassification.from_pretrained(\"Qwen/Qwen2.5-0.5B\")\n"
                              "model.model.requires_grad_(False)\n" TRAINS, &s);
    CHECK(trains_head(&s, 896 * 2, 3, "2 labels (the default num_labels)"));
    /* everything frozen, then the classifier unfrozen: RoBERTa's head has a dense layer */
    oom_test_read_script(&kb, SEQ_CLS "model = AutoModelForSequenceClassification.from_pretrained(\"roberta-base\")\n"
                              "for param in model.parameters():\n    param.requires_grad = False\n"
                              "for param in model.classifier.parameters():\n    param.requires_grad = True\n" TRAINS, &s);
    CHECK(trains_head(&s, 768 * 768 + 768 + 768 * 2 + 2, 3, "model frozen"));
    /* all but the head by name */
    oom_test_read_script(&kb, SEQ_CLS "model = AutoModelForSequenceClassification.from_pretrained(\"distilbert-base-uncased\", num_labels=4)\n"
                              "for name, param in model.named_parameters():\n    if \"classifier\" not in name:\n"
                              "        param.requires_grad = False\n" TRAINS, &s);
    CHECK(trains_head(&s, 768 * 768 + 768 + 768 * 4 + 4, 3, "`pre_classifier`, `classifier`, 4 labels"));
    /* a causal LM with its LM head unfrozen again (tied to the embedding in gpt2) */
    oom_test_read_script(&kb, "from transformers import AutoModelForCausalLM\n"
                              "model = AutoModelForCausalLM.from_pretrained(\"gpt2\")\nmodel.requires_grad_(False)\n"
                              "model.lm_head.weight.requires_grad = True\n" TRAINS, &s);
    CHECK(trains_head(&s, 50257LL * 768, 3, "`lm_head`, 50257 x 768"));
}

static void what_is_not_a_frozen_base(void)
{
    oom_script_inputs s;
    /* behind a switch that is off by default */
    oom_test_read_script(&kb, "import argparse\n" SEQ_CLS "p = argparse.ArgumentParser()\n"
                              "p.add_argument(\"--freeze\", action=\"store_true\")\nargs = p.parse_args()\n"
                              "model = AutoModelForSequenceClassification.from_pretrained(\"bert-base-uncased\")\n"
                              "if args.freeze:\n    model.bert.requires_grad_(False)\n" TRAINS, &s);
    CHECK(trains_all(&s));
    /* everything frozen and nothing unfrozen: what trains is not the head we know */
    oom_test_read_script(&kb, SEQ_CLS "model = AutoModelForSequenceClassification.from_pretrained(\"bert-base-uncased\")\n"
                              "for p in model.parameters():\n    p.requires_grad = False\n" TRAINS, &s);
    CHECK(trains_all(&s));
    /* a part of the base: not sized, all assumed trained */
    oom_test_read_script(&kb, SEQ_CLS "model = AutoModelForSequenceClassification.from_pretrained(\"bert-base-uncased\")\n"
                              "model.bert.embeddings.requires_grad_(False)\n" TRAINS, &s);
    CHECK(trains_all(&s));
    /* another object's parameters */
    oom_test_read_script(&kb, SEQ_CLS "model = AutoModelForSequenceClassification.from_pretrained(\"bert-base-uncased\")\n"
                              "teacher = AutoModelForSequenceClassification.from_pretrained(\"bert-large-uncased\")\n"
                              "teacher.bert.requires_grad_(False)\n" TRAINS, &s);
    CHECK(trains_all(&s));
}

/* The estimate of a frozen base: gradients and AdamW states of the head
 * alone, and one layer's activations at a time. */
static void frozen_base_estimate(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, SEQ_CLS "model = AutoModelForSequenceClassification.from_pretrained(\"bert-base-uncased\", num_labels=5)\n"
                              "model.bert.requires_grad_(False)\n" TRAINS, &s);
    oom_estimate e, full;
    oom_estimate_compute(&s.in, &e);
    CHECK(e.gradients == 4.0 * 3845 && e.optimizer == 8.0 * 3845);
    oom_estimate_input all = s.in;
    all.trainable = all.params, all.frozen_backbone = false;
    oom_estimate_compute(&all, &full);
    CHECK(fabs(e.activations - full.activations / 12) < 1.0); /* 12 layers -> one */
    CHECK(e.weights == full.weights);
}

void test_estimate_modes_suite(void)
{
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    oom_buf_free(&err);
    oom_test_run("estimate: frozen Hugging Face bases train their head (knowledge base heads)", frozen_bases);
    oom_test_run("estimate: freezes that leave the whole model trained", what_is_not_a_frozen_base);
    oom_test_run("estimate: a frozen base's gradients, optimizer states and activations", frozen_base_estimate);
    oom_kb_free(&kb);
}

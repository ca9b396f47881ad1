/* Scripts that train only a head on a frozen Hugging Face base (issue 16,
 * item 8): what they train, from the knowledge base's heads, and what that
 * costs; scripts that do not train (item 7): weights, one step's
 * activations and generate()'s KV cache. */
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

#define GENERATES(id, extra, gen_args)                                                                    \
    "import torch\nfrom transformers import AutoModelForCausalLM, AutoTokenizer\n"            /* 1-2 */ \
    "tok = AutoTokenizer.from_pretrained(\"" id "\")\n"                                        /* 3 */   \
    "model = AutoModelForCausalLM.from_pretrained(\"" id "\", torch_dtype=torch.bfloat16)\n"  /* 4 */   \
    "inputs = tok(prompts, return_tensors=\"pt\", max_length=1024, truncation=True)\n" extra  /* 5 */   \
    "with torch.no_grad():\n    out = model.generate(**inputs" gen_args ")\n"                /* 6-7 */

static bool mode_from(const oom_script_inputs *s, unsigned line, const char *words)
{
    const oom_provenance *p = &s->from[OOM_IN_MODE];
    bool ok = p->line == line && strstr(p->text, words) != NULL;
    if (!ok)
        printf("  mode: %s (line %u), want line %u with \"%s\"\n", p->text, p->line, line, words);
    return ok;
}

/* Llama-3.1-8B in bf16 generating 512 tokens after 1024-token prompts, batch
 * 4: every term by hand. */
static void inference_with_generate(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, GENERATES("meta-llama/Llama-3.1-8B", "", ", max_new_tokens=512"), &s);
    CHECK(!s.in.training && s.in.generates && s.in.new_tokens == 512 && s.in.seq_len == 1024);
    CHECK(!s.from[OOM_IN_MODE].assumed && mode_from(&s, 7, "generate(max_new_tokens=512): KV cache for 1024 + 512 positions"));
    CHECK(s.in.kv_heads == 8 && s.in.head_dim == 128);
    s.in.micro_batch = 4;
    oom_estimate e;
    oom_estimate_compute(&s.in, &e);
    /* b x (prompt + new) x L x 2 x kv heads x head_dim x 2 bytes */
    CHECK(e.kv_cache == 4.0 * (1024 + 512) * 32 * 2 * 8 * 128 * 2); /* 805,306,368 B = 0.75 GiB */
    CHECK(e.gradients == 0 && e.optimizer == 0);
    CHECK(e.weights == 2.0 * 8030261248LL);
    /* one layer of the prompt's step, 16-bit, SDPA, Llama's SwiGLU layer at
     * its real widths (kv = 8/32, m = 14336/4096 = 3.5): attention 10 + 4kv,
     * rotary 2 + 2kv, MLP 4 + 8m = 11 + 2.5 + 32 = 45.5 per token and hidden unit */
    CHECK(e.activations == 1024.0 * 4 * 4096 * 45.5);
    CHECK(e.logit_values == 4.0 * 128256 && e.logits == 6.0 * 4 * 128256); /* the last position only */
    double live = e.weights + e.activations + e.logits + e.kv_cache;
    /* the weights are allocated once at load: the slack is over what each step churns */
    CHECK(fabs(e.total - (e.context + live + 0.1 * (live - e.weights))) < 1.0);

    /* max_length counts the prompt */
    oom_test_read_script(&kb, GENERATES("meta-llama/Llama-3.1-8B", "", ", max_length=2048"), &s);
    CHECK(s.in.generates && s.in.new_tokens == 1024 && mode_from(&s, 7, "generate(max_length=2048): KV cache for 2048 positions"));
    /* a setting's default */
    oom_test_read_script(&kb, GENERATES("meta-llama/Llama-3.1-8B",
                                        "import argparse\np = argparse.ArgumentParser()\n"
                                        "p.add_argument(\"--max_new_tokens\", type=int, default=256)\nargs = p.parse_args()\n",
                                        ", max_new_tokens=args.max_new_tokens"), &s);
    CHECK(s.in.new_tokens == 256 && mode_from(&s, 8, "--max_new_tokens default"));
    /* no number: the prompt's cache, and the input marked assumed */
    oom_test_read_script(&kb, GENERATES("meta-llama/Llama-3.1-8B", "", ""), &s);
    CHECK(s.in.generates && s.in.new_tokens == 0 && s.from[OOM_IN_MODE].assumed);

    /* head_dim where it differs from h / heads: Qwen3-0.6B, 1024 / 16 = 64 but 128 */
    oom_test_read_script(&kb, GENERATES("Qwen/Qwen3-0.6B", "", ", max_new_tokens=1024"), &s);
    s.in.micro_batch = 1;
    oom_estimate_compute(&s.in, &e);
    CHECK(e.kv_cache == 1.0 * (1024 + 1024) * 28 * 2 * 8 * 128 * 2);
}

static void inference_without_generate(void)
{
    oom_script_inputs s;
    /* evaluation: a forward pass with labels, no KV cache, the loss's logits */
    oom_test_read_script(&kb, "import torch\nfrom transformers import AutoModelForCausalLM\n"
                              "model = AutoModelForCausalLM.from_pretrained(\"gpt2\")\nmodel.eval()\n"
                              "with torch.no_grad():\n    for batch in loader:\n        loss = model(**batch).loss\n", &s);
    CHECK(!s.in.training && !s.in.generates);
    CHECK(!s.from[OOM_IN_MODE].assumed && strstr(s.from[OOM_IN_MODE].text, "no backward()") != NULL);
    oom_estimate e;
    oom_estimate_compute(&s.in, &e);
    CHECK(e.kv_cache == 0 && e.gradients == 0 && e.optimizer == 0);
    CHECK(e.activations == 2.0 * s.in.seq_len * s.in.micro_batch * 768 * 34); /* one fp32 layer */
    CHECK(e.logit_values == 1.0 * s.in.seq_len * s.in.micro_batch * 50257);
    /* a training script keeps no KV cache even where it calls generate() */
    oom_test_read_script(&kb, GENERATES("gpt2", "", ", max_new_tokens=64") TRAINS, &s);
    CHECK(s.in.training && !s.in.generates && strstr(s.from[OOM_IN_MODE].text, "backward()") != NULL);
    oom_estimate_compute(&s.in, &e);
    CHECK(e.kv_cache == 0);
}

#define GEN_HEAD "import torch\nfrom transformers import AutoModelForCausalLM, AutoTokenizer\n" \
                 "tok = AutoTokenizer.from_pretrained(\"gpt2\")\n"
#define GEN_MODEL "model = AutoModelForCausalLM.from_pretrained(\"gpt2\")\n"
#define GEN_CALL "with torch.no_grad():\n    out = model.generate(**inputs, max_new_tokens=32)\n"

static bool batch_is(const oom_script_inputs *s, long long want, bool assumed, unsigned line, const char *words)
{
    const oom_provenance *p = &s->from[OOM_IN_BATCH];
    bool ok = s->in.micro_batch == want && p->assumed == assumed && p->line == line && strstr(p->text, words);
    if (!ok)
        printf("  batch %lld (want %lld), assumed %d, line %u (want %u): %s\n", s->in.micro_batch, want, p->assumed,
               p->line, line, p->text);
    return ok;
}

/* The batch of a generate() call, from the prompts its tokenizer call is
 * given (issue 16, item 7): followed through names, .to(), ["input_ids"]. */
static void inference_prompts(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, GEN_HEAD GEN_MODEL "inputs = tok([\"a\", \"b\", \"c\"], return_tensors=\"pt\", padding=True)\n" GEN_CALL, &s);
    CHECK(batch_is(&s, 3, false, 5, "3 prompts given to the tokenizer") && s.prompts_batch);
    oom_test_read_script(&kb, GEN_HEAD GEN_MODEL "prompts = [\"Summarise:\"] * 16\n"
                              "enc = tok(prompts, return_tensors=\"pt\").to(\"cuda\")\n"
                              "with torch.no_grad():\n    out = model.generate(enc[\"input_ids\"], max_new_tokens=8)\n", &s);
    CHECK(batch_is(&s, 16, false, 6, "16 prompts"));
    oom_test_read_script(&kb, GEN_HEAD GEN_MODEL "template = (\"Q: {q}\"\n  \" A:\")\n"
                              "ids = tok(template.format(q=\"why\"), return_tensors=\"pt\").input_ids\n"
                              "with torch.no_grad():\n    out = model.generate(input_ids=ids.cuda(), max_new_tokens=8)\n", &s);
    CHECK(batch_is(&s, 1, false, 7, "one prompt given to the tokenizer"));
    oom_test_read_script(&kb, GEN_HEAD GEN_MODEL "inputs = tok.encode(\"hello\", return_tensors=\"pt\")\n"
                              "with torch.no_grad():\n    out = model.generate(inputs, max_new_tokens=8)\n", &s);
    CHECK(batch_is(&s, 1, false, 5, "one prompt"));
    /* prompts read from a file: not visible, one assumed (not the Trainer's 8) */
    oom_test_read_script(&kb, GEN_HEAD GEN_MODEL "lines = open(\"p.txt\").read().splitlines()\n"
                              "inputs = tok(lines, return_tensors=\"pt\", padding=True)\n" GEN_CALL, &s);
    CHECK(batch_is(&s, 1, true, 0, "one prompt per generate() call") && !s.prompts_batch);
    CHECK(s.from[OOM_IN_SEQ].assumed && strstr(s.from[OOM_IN_SEQ].text, "prompts of 512 tokens"));
    /* a batch_size= the script sets is read as before */
    oom_test_read_script(&kb, GEN_HEAD GEN_MODEL "loader = DataLoader(data, batch_size=16)\n"
                              "for inputs in loader:\n    with torch.no_grad():\n"
                              "        out = model.generate(**inputs, max_new_tokens=8)\n", &s);
    CHECK(batch_is(&s, 16, false, 5, "batch_size") && !s.prompts_batch);
    /* a forward pass without generate(): DataLoader's default */
    oom_test_read_script(&kb, GEN_HEAD GEN_MODEL "with torch.no_grad():\n    loss = model(**batch).loss\n", &s);
    CHECK(batch_is(&s, 1, true, 0, "DataLoader's and pipeline's default"));
    /* a text-generation pipeline: the model it loads, its device, the prompts it is given */
    oom_test_read_script(&kb, "import torch\nfrom transformers import pipeline as make\n"
                              "gen = make(\"text-generation\", model=\"meta-llama/Llama-2-13b-hf\", device=\"cuda:0\")\n"
                              "out = gen([\"a\", \"b\", \"c\", \"d\"], max_new_tokens=64)\n", &s);
    CHECK(s.model_known && s.in.params == 13015864320LL && s.from[OOM_IN_MODEL].line == 3);
    CHECK(batch_is(&s, 4, false, 4, "4 prompts given to the pipeline") && s.in.generates && s.in.new_tokens == 64);
    CHECK(s.placement == OOM_PLACE_ONE_GPU && s.placed.line == 3);
    /* the model as the second positional argument; chat messages are one conversation */
    oom_test_read_script(&kb, "from transformers import pipeline\n"
                              "pipe = pipeline(\"text-generation\", \"gpt2\")\n"
                              "msgs = [{\"role\": \"user\", \"content\": \"hi\"}, {\"role\": \"assistant\", \"content\": \"yo\"}]\n"
                              "out = pipe(msgs, max_new_tokens=16)\n", &s);
    CHECK(s.model_known && batch_is(&s, 1, false, 4, "one prompt given to the pipeline"));
    CHECK(s.placement == OOM_PLACE_UNKNOWN); /* no device: the CPU */
    /* a diffusers pipeline is not transformers' */
    oom_test_read_script(&kb, "from diffusers import pipeline\npipe = pipeline(\"x\", model=\"gpt2\")\n", &s);
    CHECK(!s.model_known);
    /* generation_config=GenerationConfig(max_new_tokens=N) */
    oom_test_read_script(&kb, GEN_HEAD GEN_MODEL "from transformers import GenerationConfig\n"
                              "inputs = tok(\"hi\", return_tensors=\"pt\")\n"
                              "with torch.no_grad():\n    out = model.generate(**inputs, generation_config=GenerationConfig(max_new_tokens=96))\n", &s);
    CHECK(s.in.new_tokens == 96 && !s.from[OOM_IN_MODE].assumed);
}

static bool placed(const char *script, oom_placement want, unsigned line)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, script, &s);
    bool ok = s.placement == want && (want == OOM_PLACE_UNKNOWN || s.placed.line == line);
    if (!ok)
        printf("  placement %d (want %d), line %u (want %u): %s\n", s.placement, want, s.placed.line, line,
               s.placed.text);
    return ok;
}

#define LOAD13 "model = AutoModelForCausalLM.from_pretrained(\"meta-llama/Llama-2-13b-hf\""

/* Where an inference script puts its model: what the capacity check needs
 * before it judges one GPU. */
static void inference_placement(void)
{
    CHECK(placed(GEN_HEAD LOAD13 ").cuda()\n" GEN_CALL, OOM_PLACE_ONE_GPU, 4));
    CHECK(placed(GEN_HEAD "device = \"cuda\" if torch.cuda.is_available() else \"cpu\"\n" LOAD13 ")\n"
                 "model = model.half().to(device).eval()\n" GEN_CALL, OOM_PLACE_ONE_GPU, 6));
    CHECK(placed(GEN_HEAD LOAD13 ", device_map={\"\": 0})\n" GEN_CALL, OOM_PLACE_ONE_GPU, 4));
    CHECK(placed(GEN_HEAD LOAD13 ", device_map=\"cuda:0\")\n" GEN_CALL, OOM_PLACE_ONE_GPU, 4));
    CHECK(placed(GEN_HEAD LOAD13 ", load_in_4bit=True)\n" GEN_CALL, OOM_PLACE_ONE_GPU, 4));
    CHECK(placed(GEN_HEAD "from transformers import pipeline\n" LOAD13 ")\n"
                 "pipe = pipeline(\"text-generation\", model=model, tokenizer=tok, device=0)\n", OOM_PLACE_ONE_GPU, 6));
    CHECK(placed(GEN_HEAD "from accelerate import Accelerator\naccelerator = Accelerator()\n" LOAD13 ")\n"
                 "model = accelerator.prepare(model)\n" GEN_CALL, OOM_PLACE_ONE_GPU, 7));
    /* accelerate places it (and offloads what does not fit) */
    CHECK(placed(GEN_HEAD LOAD13 ", device_map=\"auto\")\n" GEN_CALL, OOM_PLACE_SPREAD, 4));
    CHECK(placed(GEN_HEAD LOAD13 ", device_map=\"auto\").cuda()\n" GEN_CALL, OOM_PLACE_SPREAD, 4));
    CHECK(placed(GEN_HEAD LOAD13 ", max_memory={0: \"10GiB\", \"cpu\": \"30GiB\"})\n" GEN_CALL, OOM_PLACE_SPREAD, 4));
    /* the CPU, or nothing said */
    CHECK(placed(GEN_HEAD LOAD13 ")\n" GEN_CALL, OOM_PLACE_UNKNOWN, 0));
    CHECK(placed(GEN_HEAD "import argparse\np = argparse.ArgumentParser()\np.add_argument(\"--device\", default=\"cpu\")\n"
                 "args = p.parse_args()\n" LOAD13 ").to(args.device)\n" GEN_CALL, OOM_PLACE_CPU, 8));
    CHECK(placed(GEN_HEAD "import argparse\np = argparse.ArgumentParser()\np.add_argument(\"--cuda\", action=\"store_true\")\n"
                 "args = p.parse_args()\n" LOAD13 ")\nif args.cuda:\n    model.cuda()\n" GEN_CALL, OOM_PLACE_UNKNOWN, 0));
    CHECK(placed(GEN_HEAD "import argparse\np = argparse.ArgumentParser()\np.add_argument(\"--cuda\", action=\"store_true\")\n"
                 "args = p.parse_args()\ndevice = \"cuda\" if args.cuda else \"cpu\"\n" LOAD13 ").to(device)\n" GEN_CALL,
                 OOM_PLACE_CPU, 9));
    CHECK(placed(GEN_HEAD "import deepspeed\n" LOAD13 ", torch_dtype=torch.float16)\n"
                 "model = deepspeed.init_inference(model, mp_size=2, dtype=torch.half)\n" GEN_CALL, OOM_PLACE_SPREAD, 6));
    /* another model's .cuda() says nothing of this one */
    CHECK(placed(GEN_HEAD LOAD13 ")\nreward = AutoModel.from_pretrained(\"gpt2\").cuda()\n" GEN_CALL, OOM_PLACE_UNKNOWN, 0));

    /* a cast after loading makes the weights 16-bit; a training script is not read for it here */
    oom_script_inputs s;
    oom_test_read_script(&kb, GEN_HEAD LOAD13 ")\nmodel.to(torch.bfloat16).cuda()\n" GEN_CALL, &s);
    CHECK(s.in.precision == OOM_PREC_PURE_BF16 && !s.from[OOM_IN_PRECISION].assumed &&
          s.from[OOM_IN_PRECISION].line == 5 && s.placement == OOM_PLACE_ONE_GPU);
    oom_test_read_script(&kb, GEN_HEAD LOAD13 ")\nmodel = model.to(\"cuda:0\", torch.float16)\n" GEN_CALL, &s);
    CHECK(s.in.precision == OOM_PREC_PURE_BF16 && s.placement == OOM_PLACE_ONE_GPU);
    oom_test_read_script(&kb, GEN_HEAD LOAD13 ", torch_dtype=\"auto\", device_map={\"\": accelerator.process_index})\n" GEN_CALL, &s);
    CHECK(s.in.precision == OOM_PREC_PURE_BF16 && strstr(s.from[OOM_IN_PRECISION].text, "torch_dtype=\"auto\"") &&
          s.placement == OOM_PLACE_ONE_GPU);
    oom_test_read_script(&kb, GEN_HEAD LOAD13 ", load_in_8bit=True)\nmodel.half()\n" GEN_CALL, &s);
    CHECK(s.in.precision == OOM_PREC_INT8); /* the quantised load says more */
}

/* What used to hide behind a newly known model (ecosystem: qlora.py loads
 * pythia-12b with `load_in_4bit=args.bits == 4`; accelerate's FSDP examples
 * load Hermes-3-Llama-3.1-8B): a switch compared with a setting's default,
 * and FSDP's sharding. */
/* An encoder-decoder's decoder runs over the target: t5-small (6 + 6
 * layers) with 1024 input tokens and 128 target tokens keeps its encoder's
 * tensors at 1024 positions, its decoder's at 128, and its logits are the
 * target's. */
static void encoder_decoder_target(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb,
                         "from transformers import AutoModelForSeq2SeqLM, AutoTokenizer, Trainer\n"
                         "tok = AutoTokenizer.from_pretrained('t5-small')\n"
                         "model = AutoModelForSeq2SeqLM.from_pretrained('t5-small')\n"
                         "def prep(ex):\n"
                         "    out = tok(ex['document'], max_length=1024, truncation=True)\n"
                         "    out['labels'] = tok(text_target=ex['summary'], max_length=128, truncation=True)['input_ids']\n"
                         "    return out\n"
                         "Trainer(model=model).train()\n",
                         &s);
    CHECK(s.in.seq_len == 1024 && s.in.target_len == 128 && s.in.decoder_layers == 6 && s.in.layers == 12);
    CHECK(!s.from[OOM_IN_TARGET].assumed);
    s.in.micro_batch = 16;
    oom_estimate e;
    oom_estimate_compute(&s.in, &e);
    CHECK(e.logit_values == 16.0 * 128 * s.in.vocab);
    oom_script_inputs same = s;
    same.in.target_len = 0; /* the target taken as long as the input */
    oom_estimate whole;
    oom_estimate_compute(&same.in, &whole);
    CHECK(whole.logit_values == 16.0 * 1024 * s.in.vocab);
    /* six layers at 128 positions instead of 1024: below the all-1024 count,
     * above the encoder's alone */
    CHECK(e.activations < whole.activations && e.activations > whole.activations / 2);
}

static void qlora_bits_and_fsdp(void)
{
    oom_script_inputs s;
    const char *qlora = "from dataclasses import dataclass, field\n"
                        "from transformers import AutoModelForCausalLM, HfArgumentParser\n"
                        "@dataclass\nclass Args:\n    bits: int = field(default=4)\n"
                        "args, = HfArgumentParser(Args).parse_args_into_dataclasses()\n"
                        "model = AutoModelForCausalLM.from_pretrained(\"EleutherAI/pythia-12b\", load_in_4bit=args.bits == 4,\n"
                        "    load_in_8bit=args.bits == 8)\n" TRAINS;
    oom_test_read_script(&kb, qlora, &s);
    CHECK(s.in.precision == OOM_PREC_NF4 && !s.from[OOM_IN_PRECISION].assumed);
    oom_test_read_script(&kb, "import torch\nfrom torch.distributed.fsdp import fully_shard\n"
                              "from transformers import AutoModelForCausalLM\n"
                              "model = AutoModelForCausalLM.from_pretrained(\"NousResearch/Hermes-3-Llama-3.1-8B\")\n"
                              "fully_shard(model)\n" TRAINS, &s);
    CHECK(s.in.zero_stage == 3 && !s.from[OOM_IN_ZERO].assumed && strstr(s.from[OOM_IN_ZERO].text, "fully_shard") &&
          s.from[OOM_IN_GPUS].assumed);
}

void test_estimate_modes_suite(void)
{
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    oom_buf_free(&err);
    oom_test_run("estimate: frozen Hugging Face bases train their head (knowledge base heads)", frozen_bases);
    oom_test_run("estimate: an encoder-decoder's decoder and logits run over the target", encoder_decoder_target);
    oom_test_run("estimate: freezes that leave the whole model trained", what_is_not_a_frozen_base);
    oom_test_run("estimate: a frozen base's gradients, optimizer states and activations", frozen_base_estimate);
    oom_test_run("estimate: inference with generate(): weights, one step, KV cache", inference_with_generate);
    oom_test_run("estimate: inference without generate(), and training scripts", inference_without_generate);
    oom_test_run("estimate inputs: load_in_4bit=args.bits == 4, and FSDP's sharding", qlora_bits_and_fsdp);
    oom_test_run("estimate inputs: the prompts of a generate() call, one assumed where none shows", inference_prompts);
    oom_test_run("estimate inputs: where an inference script puts its model, casts after loading", inference_placement);
    oom_kb_free(&kb);
}

/* The estimate's inputs from where training scripts keep them: argparse
 * defaults, HfArgumentParser dataclasses, module-level names; the head a
 * script puts on its model, and the logits it costs. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "oomlint/estimate.h"

static oom_kb kb;


/* The provenance says where, as "file:LINE what". */
static bool from_line(const oom_script_inputs *s, oom_input_kind k, unsigned line, const char *words)
{
    const oom_provenance *p = &s->from[k];
    bool ok = !p->assumed && p->line == line && strstr(p->text, words) != NULL;
    if (!ok)
        printf("  input %d: %s%s (line %u), want line %u with \"%s\"\n", (int)k, p->assumed ? "assumed: " : "",
               p->text, p->line, line, words);
    return ok;
}

#define TRAINS "for batch in loader:\n    model(**batch).loss.backward()\n"

/* parser.add_argument(... default=...) read as args.X where a call uses it. */
static void argparse_defaults_through_args(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, "import argparse\n"                                                          /* 1 */
                "from transformers import AutoModelForCausalLM, TrainingArguments\n"         /* 2 */
                "p = argparse.ArgumentParser()\n"                                            /* 3 */
                "p.add_argument(\"--model_name_or_path\", default=\"gpt2-medium\")\n"        /* 4 */
                "p.add_argument(\"--per_device_train_batch_size\", type=int, default=4)\n"   /* 5 */
                "p.add_argument(\"--max_seq_length\", type=int, default=256)\n"              /* 6 */
                "args = p.parse_args()\n"                                                    /* 7 */
                "model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)\n"    /* 8 */
                "ta = TrainingArguments(per_device_train_batch_size=args.per_device_train_batch_size)\n"
                "enc = tok(texts, max_length=args.max_seq_length)\n" TRAINS,
                &s);
    CHECK(s.model_known && strcmp(s.model_id, "gpt2-medium") == 0);
    CHECK(from_line(&s, OOM_IN_MODEL, 4, "from --model_name_or_path default"));
    CHECK(s.in.micro_batch == 4 && from_line(&s, OOM_IN_BATCH, 5, "per_device_train_batch_size"));
    CHECK(strcmp(s.batch_name, "--per_device_train_batch_size") == 0);
    CHECK(s.in.seq_len == 256 && from_line(&s, OOM_IN_SEQ, 6, "--max_seq_length default"));
    CHECK(s.task == OOM_TASK_CAUSAL_LM && s.in.lm_head && from_line(&s, OOM_IN_TASK, 8, "causal LM head"));

    /* a name bound to args.X, args from a function, self.args in a class */
    oom_test_read_script(&kb, "import argparse\nfrom transformers import AutoModelForSeq2SeqLM\n"
                "def get_args():\n    p = argparse.ArgumentParser()\n"
                "    p.add_argument(\"--model\", default=\"t5-small\")\n"
                "    p.add_argument(\"--bs\", type=int, default=3)\n    return p.parse_args()\n"
                "class Runner:\n    def __init__(self):\n        self.args = get_args()\n"
                "    def run(self):\n        name = self.args.model\n"
                "        model = AutoModelForSeq2SeqLM.from_pretrained(name)\n"
                "        loader = DataLoader(ds, batch_size=self.args.bs)\n" TRAINS,
                &s);
    CHECK(s.model_known && strcmp(s.model_id, "t5-small") == 0 && from_line(&s, OOM_IN_MODEL, 5, "--model"));
    CHECK(s.in.micro_batch == 3 && from_line(&s, OOM_IN_BATCH, 6, "batch_size, from --bs default"));
    CHECK(s.task == OOM_TASK_SEQ2SEQ && s.in.lm_head);
}

/* `--flag-name` and `--flag_name` are both read as args.flag_name; dest=
 * wins; a string default with type=int is converted, as argparse does. */
static void flag_spellings(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, "import argparse\np = argparse.ArgumentParser()\n"
                "p.add_argument(\"-b\", \"--train-batch-size\", type=int, default=6)\n"
                "p.add_argument(\"--block-size\", type=int, default=\"768\")\n"
                "p.add_argument(\"--m\", dest=\"model_id\", default=\"gpt2\")\n"
                "args = p.parse_args()\nfrom transformers import GPT2LMHeadModel\n"
                "model = GPT2LMHeadModel.from_pretrained(args.model_id)\n"
                "loader = DataLoader(ds, batch_size=args.train_batch_size)\n"
                "chunks = group(texts, block_size=args.block_size)\n" TRAINS,
                &s);
    CHECK(s.in.micro_batch == 6 && strcmp(s.batch_name, "--train-batch-size") == 0);
    CHECK(from_line(&s, OOM_IN_BATCH, 3, "--train-batch-size default"));
    CHECK(s.in.seq_len == 768 && from_line(&s, OOM_IN_SEQ, 4, "--block-size default"));
    CHECK(s.model_known && strcmp(s.model_id, "gpt2") == 0 && from_line(&s, OOM_IN_MODEL, 5, "--m default"));
    /* parser.set_defaults overrides add_argument's default */
    oom_test_read_script(&kb, "import argparse\np = argparse.ArgumentParser()\n"
                "p.add_argument(\"--batch_size\", type=int, default=64)\np.set_defaults(batch_size=2)\n"
                "args = p.parse_args()\nfrom transformers import AutoModel\n"
                "model = AutoModel.from_pretrained(\"bert-base-uncased\")\n" TRAINS,
                &s);
    CHECK(s.in.micro_batch == 2 && from_line(&s, OOM_IN_BATCH, 4, "--batch_size default"));
    CHECK(s.task == OOM_TASK_EMBEDDING && !s.in.lm_head);
}

/* HfArgumentParser's dataclasses: field(default=...), plain annotated
 * defaults, a TrainingArguments subclass's own fields; TrainingArguments'
 * defaults for what no field sets. */
static void hf_argument_parser_dataclasses(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, "from dataclasses import dataclass, field\nimport transformers\n"     /* 1-2 */
                "@dataclass\nclass ModelArguments:\n"                                 /* 3-4 */
                "    model_name_or_path: str = field(default=\"gpt2\", metadata={})\n" /* 5 */
                "@dataclass\nclass TrainingArguments(transformers.TrainingArguments):\n"
                "    model_max_length: int = 384\n"                                   /* 8 */
                "    cache_dir: str = None\n"
                "parser = transformers.HfArgumentParser((ModelArguments, TrainingArguments))\n" /* 10 */
                "model_args, training_args = parser.parse_args_into_dataclasses()\n"
                "model = transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)\n"
                "trainer = transformers.Trainer(model=model, args=training_args)\ntrainer.train()\n",
                &s);
    CHECK(s.model_known && strcmp(s.model_id, "gpt2") == 0);
    CHECK(from_line(&s, OOM_IN_MODEL, 5, "from ModelArguments.model_name_or_path default"));
    CHECK(s.in.seq_len == 384 && from_line(&s, OOM_IN_SEQ, 8, "TrainingArguments.model_max_length default"));
    /* TrainingArguments' own defaults, found through the parser, not assumed */
    CHECK(s.in.micro_batch == OOM_TRAINER_DEFAULT_BATCH && from_line(&s, OOM_IN_BATCH, 10, "TrainingArguments default"));
    CHECK(s.in.precision == OOM_PREC_FP32 && from_line(&s, OOM_IN_PRECISION, 10, "bf16 and fp16 off"));
    CHECK(s.in.training);

    /* a field of the subclass sets the batch; a switch field turns bf16 on */
    oom_test_read_script(&kb, "from dataclasses import dataclass, field\nfrom transformers import HfArgumentParser, TrainingArguments\n"
                "@dataclass\nclass Args:\n    model_name_or_path: str = \"facebook/opt-350m\"\n"
                "@dataclass\nclass TrainArgs(TrainingArguments):\n"
                "    per_device_train_batch_size: int = field(default=2)\n    bf16: bool = True\n"
                "args, targs = HfArgumentParser((Args, TrainArgs)).parse_args_into_dataclasses()\n"
                "from transformers import AutoModelForCausalLM\n"
                "model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)\n" TRAINS,
                &s);
    CHECK(s.model_known && strcmp(s.model_id, "facebook/opt-350m") == 0);
    CHECK(s.in.micro_batch == 2 && from_line(&s, OOM_IN_BATCH, 8, "TrainArgs.per_device_train_batch_size"));
    CHECK(strcmp(s.batch_name, "per_device_train_batch_size") == 0);
    CHECK(s.in.precision == OOM_PREC_AMP_BF16 && from_line(&s, OOM_IN_PRECISION, 9, "TrainArgs.bf16 default"));
}

/* nanoGPT's style: settings as module-level names, used by name. */
static void module_level_names(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, "import torch\n"
                "batch_size = 12\n"      /* 2 */
                "block_size = 1024\n"    /* 3 */
                "init_from = 'gpt2-xl'\n" /* 4 */
                "gradient_accumulation_steps = 5 * 8\n"
                "def get_batch(split):\n    ix = torch.randint(len(data) - block_size, (batch_size,))\n"
                "model = GPT.from_pretrained(init_from, dict(dropout=0.0))\n"
                "X, Y = get_batch('train')\nlogits, loss = model(X, Y)\nloss.backward()\n",
                &s);
    CHECK(s.model_known && strcmp(s.model_id, "gpt2-xl") == 0 && from_line(&s, OOM_IN_MODEL, 4, "GPT.from_pretrained"));
    CHECK(s.in.micro_batch == 12 && from_line(&s, OOM_IN_BATCH, 2, "batch_size (module level)"));
    CHECK(s.in.seq_len == 1024 && from_line(&s, OOM_IN_SEQ, 3, "block_size (module level)"));
    /* GPT is the script's own class: the knowledge base says gpt2-xl is a causal LM */
    CHECK(s.task == OOM_TASK_CAUSAL_LM && s.in.lm_head && !s.from[OOM_IN_TASK].assumed);
    CHECK(strstr(s.from[OOM_IN_TASK].text, "knowledge base") != NULL);
}

/* A value written in a call the estimate reads wins over every default; a
 * call that reads a setting wins over a setting found by its name alone. */
static void direct_values_first(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, "import argparse\nfrom transformers import AutoModelForCausalLM, TrainingArguments\n"
                "p = argparse.ArgumentParser()\np.add_argument(\"--model\", default=\"gpt2-xl\")\n"
                "p.add_argument(\"--batch_size\", type=int, default=4)\n"
                "p.add_argument(\"--micro_batch_size\", type=int, default=1)\nargs = p.parse_args()\n"
                "model = AutoModelForCausalLM.from_pretrained(\"gpt2\")\n"   /* 8 */
                "loader = DataLoader(ds, batch_size=args.batch_size)\n"
                "ta = TrainingArguments(per_device_train_batch_size=16)\n" /* 10 */
                TRAINS,
                &s);
    CHECK(strcmp(s.model_id, "gpt2") == 0 && from_line(&s, OOM_IN_MODEL, 8, "from_pretrained(\"gpt2\")"));
    CHECK(s.in.micro_batch == 16 && from_line(&s, OOM_IN_BATCH, 10, "per_device_train_batch_size"));
    oom_test_read_script(&kb, "import argparse\np = argparse.ArgumentParser()\n"
                "p.add_argument(\"--batch_size\", type=int, default=4)\n"
                "p.add_argument(\"--micro_batch_size\", type=int, default=1)\nargs = p.parse_args()\n"
                "from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained(\"gpt2\")\n"
                "loader = DataLoader(ds, batch_size=args.batch_size)\n"
                "val_loader = DataLoader(val_ds, batch_size=256)\n" TRAINS,
                &s);
    /* the training loader's setting, not the usual name's, nor the evaluation loader's literal */
    CHECK(s.in.micro_batch == 4 && from_line(&s, OOM_IN_BATCH, 3, "batch_size, from --batch_size default"));
}

/* Switches: store_true is off unless given; an `if args.x:` branch a run
 * without flags skips does not count; dtype conditionals follow the switch. */
static void switches_and_branches(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, "import argparse, torch\nfrom transformers import AutoModelForCausalLM, TrainingArguments\n"
                "p = argparse.ArgumentParser()\np.add_argument(\"--bf16\", action=\"store_true\")\n" /* 4 */
                "p.add_argument(\"--use_lora\", action=\"store_true\")\n"
                "p.add_argument(\"--gradient_checkpointing\", action=\"store_true\", default=True)\n" /* 6 */
                "args = p.parse_args()\n"
                "dtype = torch.bfloat16 if args.bf16 else torch.float32\n"
                "model = AutoModelForCausalLM.from_pretrained(\"gpt2\", torch_dtype=dtype)\n"
                "if args.use_lora:\n    model = get_peft_model(model, LoraConfig(r=64))\n"
                "ta = TrainingArguments(bf16=args.bf16, gradient_checkpointing=args.gradient_checkpointing)\n" TRAINS,
                &s);
    CHECK(s.in.precision == OOM_PREC_FP32 && from_line(&s, OOM_IN_PRECISION, 4, "mixed precision off"));
    CHECK(s.in.trainable == s.in.params && s.from[OOM_IN_LORA].assumed);
    CHECK(s.in.gradient_checkpointing && from_line(&s, OOM_IN_CHECKPOINTING, 6, "--gradient_checkpointing default"));
    /* a mixed_precision default handed to Accelerator; QLoRA's 4 bits beat bf16=True */
    oom_test_read_script(&kb, "import argparse\nfrom accelerate import Accelerator\np = argparse.ArgumentParser()\n"
                "p.add_argument(\"--mixed_precision\", default=\"fp16\")\nargs = p.parse_args()\n"
                "acc = Accelerator(mixed_precision=args.mixed_precision)\n"
                "from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained(\"gpt2\")\n"
                TRAINS,
                &s);
    CHECK(s.in.precision == OOM_PREC_AMP_FP16 && from_line(&s, OOM_IN_PRECISION, 4, "--mixed_precision default"));
    /* under a launcher, a switch that is off leaves precision to its config */
    oom_test_read_script(&kb, "import argparse\nfrom accelerate import Accelerator\np = argparse.ArgumentParser()\n"
                "p.add_argument(\"--fp16\", action=\"store_true\")\nargs = p.parse_args()\n"
                "acc = Accelerator(fp16=args.fp16)\n"
                "from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained(\"gpt2\")\n"
                TRAINS,
                &s);
    CHECK(s.launcher_decides && s.from[OOM_IN_PRECISION].assumed);
    oom_test_read_script(&kb, "from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments\n"
                "q = BitsAndBytesConfig(load_in_4bit=True)\n"
                "model = AutoModelForCausalLM.from_pretrained(\"gpt2\", quantization_config=q)\n"
                "ta = TrainingArguments(bf16=True)\n" TRAINS,
                &s);
    CHECK(s.in.precision == OOM_PREC_NF4 && from_line(&s, OOM_IN_PRECISION, 2, "load_in_4bit"));
}

/* Defaults of the wrong type leave the input assumed, saying why; shapes of
 * argparse and dataclasses the reader does not expect do not crash it. */
static void bad_defaults_are_assumed(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, "import argparse\np = argparse.ArgumentParser()\n"
                "p.add_argument(\"--batch_size\", type=int, default=\"eight\")\n"
                "p.add_argument(\"--max_length\", default=None)\np.add_argument()\np.add_argument(default=3)\n"
                "p.add_argument(\"--model\", default=[\"gpt2\"])\np.set_defaults(**overrides)\n"
                "args = p.parse_args()\n"
                "from dataclasses import dataclass\n@dataclass\nclass A:\n    block_size: int\n    x = 1\n"
                "from transformers import AutoModelForCausalLM\n"
                "model = AutoModelForCausalLM.from_pretrained(args.model)\n"
                "model2 = AutoModelForCausalLM.from_pretrained(\"gpt2\")\n"
                "loader = DataLoader(ds, batch_size=args.batch_size)\n" TRAINS,
                &s);
    CHECK(s.model_known && strcmp(s.model_id, "gpt2") == 0);
    CHECK(s.from[OOM_IN_BATCH].assumed && s.in.micro_batch == OOM_TRAINER_DEFAULT_BATCH);
    CHECK(strstr(s.from[OOM_IN_BATCH].text, "--batch_size has no number to read") != NULL);
    CHECK(s.from[OOM_IN_SEQ].assumed && s.in.seq_len == 512);
    oom_estimate e;
    oom_estimate_compute(&s.in, &e);
    CHECK(e.total > 0 && isfinite(e.total));
}

/* The head: from the class that loads the model, else the knowledge base;
 * a class that cannot load the checkpoint sizes nothing. */
static void heads(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, "from transformers import AutoModelForSequenceClassification\n"
                "model = AutoModelForSequenceClassification.from_pretrained(\"gpt2\", num_labels=2)\n" TRAINS,
                &s);
    CHECK(s.task == OOM_TASK_CLASSIFICATION && !s.in.lm_head);
    oom_test_read_script(&kb, "from transformers import BertForMaskedLM\nmodel = BertForMaskedLM.from_pretrained(\"bert-base-uncased\")\n" TRAINS,
                &s);
    CHECK(s.task == OOM_TASK_MASKED_LM && s.in.lm_head);
    oom_test_read_script(&kb, "from transformers import AutoModelForSeq2SeqLM\nmodel = AutoModelForSeq2SeqLM.from_pretrained(\"gpt2\")\n" TRAINS,
                &s);
    CHECK(!s.model_known && strstr(s.from[OOM_IN_MODEL].text, "cannot load") != NULL);
    /* a tokenizer's id is not the model's when a model class is loaded */
    oom_test_read_script(&kb, "from transformers import AutoModelForCausalLM, AutoTokenizer\n"
                "tok = AutoTokenizer.from_pretrained(\"bert-base-uncased\")\n"
                "model = AutoModelForCausalLM.from_pretrained(args.policy)\n" TRAINS,
                &s);
    CHECK(!s.model_known);
    /* with only --model: the knowledge base's task */
    oom_script_inputs_init(&s);
    CHECK(oom_script_inputs_use_model(&s, &kb, "t5-small", "--model t5-small"));
    CHECK(s.task == OOM_TASK_SEQ2SEQ && s.in.lm_head && !s.from[OOM_IN_TASK].assumed);
    CHECK(oom_script_inputs_use_model(&s, &kb, "bert-base-uncased", "--model bert-base-uncased"));
    CHECK(s.task == OOM_TASK_EMBEDDING && !s.in.lm_head);
    oom_task t;
    CHECK(oom_task_from_id("causal-lm", &t) && t == OOM_TASK_CAUSAL_LM);
    CHECK(!oom_task_from_id("causal", &t));
    CHECK(oom_task_of_class("transformers.LlamaForCausalLM.from_pretrained") == OOM_TASK_CAUSAL_LM);
    CHECK(oom_task_of_class("trl.SFTTrainer") == OOM_TASK_CAUSAL_LM);
    CHECK(oom_task_of_class("transformers.AutoModel") == OOM_TASK_EMBEDDING);
    CHECK(oom_task_of_class("GPT") == OOM_TASK_UNKNOWN);
}

/* Logits of a language-model head over N = batch x sequence x vocabulary:
 * the logits in the compute dtype, the loss's fp32 copy, and in training
 * the two fp32 gradients of the loss. */
static void language_model_logits(void)
{
    oom_script_inputs s;
    oom_script_inputs_init(&s);
    CHECK(oom_script_inputs_use_model(&s, &kb, "gpt2", "--model gpt2"));
    s.in.micro_batch = 8, s.in.seq_len = 1024;
    double n = 8.0 * 1024 * 50257;
    oom_estimate e;
    oom_estimate_compute(&s.in, &e);
    CHECK(e.logit_values == n);
    CHECK(fabs(4 * n / (1024.0 * 1024 * 1024) - 1.533) < 0.001); /* one fp32 copy, ~1.5 GiB */
    CHECK(e.logits == 16 * n);
    s.in.precision = OOM_PREC_AMP_BF16;
    oom_estimate_compute(&s.in, &e);
    CHECK(e.logits == 14 * n);
    s.in.training = false;
    oom_estimate_compute(&s.in, &e);
    CHECK(e.logits == 6 * n);
    oom_script_inputs_set_task(&s, OOM_TASK_EMBEDDING, "--task");
    oom_estimate_compute(&s.in, &e);
    CHECK(e.logits == 0 && e.logit_values == 0);
}

/* Image models named by a setting: PyTorch's ImageNet example and timm's
 * train.py; MoCo's linear probe freezes all but the head. */
static void image_models_from_settings(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb, "import argparse\nimport torchvision.models as models\np = argparse.ArgumentParser()\n"
                "p.add_argument('-a', '--arch', default='resnet18')\n"
                "p.add_argument('-b', '--batch-size', default=256, type=int)\n"
                "p.add_argument('--image-size', default=160, type=int)\nargs = p.parse_args()\n"
                "model = models.__dict__[args.arch]()\n" TRAINS,
                &s);
    CHECK(s.model_known && strcmp(s.model_id, "resnet18") == 0 && from_line(&s, OOM_IN_MODEL, 4, "--arch default"));
    CHECK(s.in.micro_batch == 256 && from_line(&s, OOM_IN_BATCH, 5, "--batch-size default"));
    CHECK(s.in.image_h == 160 && from_line(&s, OOM_IN_IMAGE, 6, "--image-size default"));
    oom_test_read_script(&kb, "import argparse\nfrom timm.models import create_model\np = argparse.ArgumentParser()\n"
                "p.add_argument('--model', default='resnet50', type=str)\nargs = p.parse_args()\n"
                "model = create_model(args.model, pretrained=False)\n" TRAINS,
                &s);
    CHECK(s.model_known && strcmp(s.model_id, "resnet50") == 0);
    oom_test_read_script(&kb, "import torchvision.models as tvm\nmodel = getattr(tvm, 'resnet50')()\n"
                "for name, param in model.named_parameters():\n"
                "    if name not in ['fc.weight', 'fc.bias']:\n        param.requires_grad = False\n" TRAINS,
                &s);
    CHECK(s.model_known && s.in.frozen_backbone && s.in.trainable == 2049000 && s.from[OOM_IN_LORA].assumed);

    /* Barlow Twins: --batch-size is the batch of all processes together,
     * divided by the world size; one GPU's share is not known */
    oom_test_read_script(&kb, "import argparse\nimport torchvision\np = argparse.ArgumentParser()\n"
                "p.add_argument('--batch-size', default=2048, type=int)\nargs = p.parse_args()\n"
                "args.world_size = args.ngpus_per_node\n"
                "per_device_batch_size = args.batch_size // args.world_size\n"
                "loader = DataLoader(ds, batch_size=per_device_batch_size)\n"
                "model = torchvision.models.resnet50()\n" TRAINS,
                &s);
    CHECK(s.from[OOM_IN_BATCH].assumed && s.in.micro_batch != 2048);
    CHECK(strstr(s.from[OOM_IN_BATCH].text, "--batch-size is split over the GPUs") != NULL);
}

void test_estimate_inputs_suite(void)
{
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    oom_buf_free(&err);
    oom_test_run("estimate inputs: argparse defaults read through args.X", argparse_defaults_through_args);
    oom_test_run("estimate inputs: --flag-name and --flag_name, dest=, set_defaults", flag_spellings);
    oom_test_run("estimate inputs: HfArgumentParser dataclass fields and TrainingArguments defaults",
                 hf_argument_parser_dataclasses);
    oom_test_run("estimate inputs: module-level names (nanoGPT)", module_level_names);
    oom_test_run("estimate inputs: a value in the call wins over defaults", direct_values_first);
    oom_test_run("estimate inputs: switches and the branches a run without flags skips", switches_and_branches);
    oom_test_run("estimate inputs: defaults of the wrong type are assumed, never a crash", bad_defaults_are_assumed);
    oom_test_run("estimate inputs: the head from the class or the knowledge base", heads);
    oom_test_run("estimate: logits of a language-model head", language_model_logits);
    oom_test_run("estimate inputs: image models named by settings", image_models_from_settings);
    oom_kb_free(&kb);
}

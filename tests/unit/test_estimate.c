/* The memory model against published figures (sources in each test). */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "oomlint/estimate.h"

/* ZeRO paper (Rajbhandari et al., SC20), Table I: per-device model-state
 * memory in GB (decimal) for 7.5B, 128B and 1T parameters. */
static void zero_table_one(void)
{
    static const double params[] = {7.5e9, 128e9, 1e12};
    static const int nd[] = {1, 4, 16, 64, 256, 1024};
    static const double table[6][9] = {
        {120, 120, 120, 2048, 2048, 2048, 16000, 16000, 16000},
        {52.5, 41.3, 30, 896, 704, 512, 7000, 5500, 4000},
        {35.6, 21.6, 7.5, 608, 368, 128, 4750, 2875, 1000},
        {31.4, 16.6, 1.88, 536, 284, 32, 4187, 2218, 250},
        {30.4, 15.4, 0.47, 518, 263, 8, 4046, 2054, 62.5},
        {30.1, 15.1, 0.12, 513, 257, 2, 4011, 2013, 15.6},
    };
    for (int r = 0; r < 6; r++)
        for (int m = 0; m < 3; m++)
            for (int stage = 1; stage <= 3; stage++) {
                double gb = oom_estimate_zero_model_states(params[m], stage, nd[r]) / 1e9;
                double want = table[r][m * 3 + stage - 1];
                /* the table rounds (or truncates) to its last digit: 257.75 is printed 257 */
                double tolerance = want >= 100 ? 1.0 : want >= 10 ? 0.1 : 0.01;
                if (fabs(gb - want) > tolerance)
                    printf("  %.4g params, Nd=%d, stage %d: %.4g GB, table %.4g\n", params[m], nd[r], stage,
                           gb, want);
                CHECK(fabs(gb - want) <= tolerance);
            }
}

/* accelerate estimate-memory, bert-base-cased (108,310,272 params): total
 * 413.18 MiB in fp32, Adam training 1.61 GiB (docs/usage_guides/model_size_estimator). */
static void accelerate_bert_base_cased(void)
{
    oom_estimate_input in = {.params = 108310272, .trainable = 108310272, .hidden = 768, .layers = 12,
                             .heads = 12, .vocab = 28996, .seq_len = 512, .micro_batch = 1, .training = true,
                             .precision = OOM_PREC_FP32, .optimizer = OOM_OPT_ADAMW, .num_gpus = 1};
    oom_estimate e;
    oom_estimate_compute(&in, &e);
    CHECK(fabs(e.weights / (1024.0 * 1024) - 413.18) < 0.01);
    double states = (e.weights + e.gradients + e.optimizer) / (1024.0 * 1024 * 1024);
    CHECK(fabs(states - 1.61) < 0.005);
}

/* Hugging Face "Efficient training on a single GPU" (v4.27): bert-large-uncased
 * for sequence classification, V100 16 GB, sequence 512, GPU memory occupied.
 * Each estimate must be within 15% of the measurement. */
static void hf_bert_large_table(void)
{
    struct {
        const char *name;
        int batch;
        bool checkpointing;
        oom_precision precision;
        oom_optimizer optimizer;
        double measured_mib;
    } rows[] = {
        {"bs4 fp32 AdamW", 4, false, OOM_PREC_FP32, OOM_OPT_ADAMW, 14949},
        {"bs1 (GA4) fp32 AdamW", 1, false, OOM_PREC_FP32, OOM_OPT_ADAMW, 8681},
        {"bs1 GC fp32 AdamW", 1, true, OOM_PREC_FP32, OOM_OPT_ADAMW, 6775},
        {"bs4 fp16 AdamW", 4, false, OOM_PREC_AMP_FP16, OOM_OPT_ADAMW, 13939},
        {"bs1 GC fp16 AdamW", 1, true, OOM_PREC_AMP_FP16, OOM_OPT_ADAMW, 7275},
        {"bs4 fp32 Adafactor", 4, false, OOM_PREC_FP32, OOM_OPT_ADAFACTOR, 12295},
        {"bs1 GC fp16 Adafactor", 1, true, OOM_PREC_AMP_FP16, OOM_OPT_ADAFACTOR, 4847},
        {"bs4 fp32 8-bit Adam", 4, false, OOM_PREC_FP32, OOM_OPT_ADAM_8BIT, 13085},
        {"bs1 GC fp16 8-bit Adam", 1, true, OOM_PREC_AMP_FP16, OOM_OPT_ADAM_8BIT, 5363},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        oom_estimate_input in = {.params = 335143938, .trainable = 335143938, .hidden = 1024, .layers = 24,
                                 .heads = 16, .vocab = 30522, .seq_len = 512, .micro_batch = rows[i].batch,
                                 .training = true, .precision = rows[i].precision,
                                 .optimizer = rows[i].optimizer, .num_gpus = 1,
                                 .gradient_checkpointing = rows[i].checkpointing,
                                 /* measured with CUDA 11.2 and PyTorch 1.x, whose zero_grad()
                                  * kept the gradients through the next forward pass */
                                 .eager_module_loading = true, .pre_torch2 = true};
        oom_estimate e;
        oom_estimate_compute(&in, &e);
        double mib = e.total / (1024.0 * 1024);
        double err = (mib - rows[i].measured_mib) / rows[i].measured_mib;
        printf("  %-24s estimate %7.0f MiB, measured %7.0f MiB, %+5.1f%%\n", rows[i].name, mib,
               rows[i].measured_mib, 100 * err);
        CHECK(fabs(err) <= 0.15);
    }
}

/* PyTorch before 1.13 loads every CUDA kernel at start-up; lazy loading
 * since costs a fraction of that (docs/estimation.md §10). */
static void context_follows_the_torch_version(void)
{
    bool ok;
    CHECK(oom_torch_loads_eagerly("1.12", &ok) && ok);
    CHECK(oom_torch_loads_eagerly("1.12.1+cu113", &ok) && ok);
    CHECK(oom_torch_loads_eagerly("0.4", &ok) && ok);
    CHECK(!oom_torch_loads_eagerly("1.13", &ok) && ok);
    CHECK(!oom_torch_loads_eagerly("2.4.1", &ok) && ok);
    CHECK(!oom_torch_loads_eagerly("2.6.0a0", &ok) && ok);
    CHECK(!oom_torch_loads_eagerly("banana", &ok) && !ok);
    CHECK(!oom_torch_loads_eagerly("2", &ok) && !ok);
    CHECK(!oom_torch_loads_eagerly("", &ok) && !ok);
    oom_estimate_input in = {.params = 124439808, .trainable = 124439808, .hidden = 768, .layers = 12,
                             .heads = 12, .vocab = 50257, .seq_len = 1024, .micro_batch = 1, .training = true,
                             .precision = OOM_PREC_FP32, .optimizer = OOM_OPT_ADAMW, .num_gpus = 1,
                             /* PyTorch 1.13: lazy loading, but still before 2.0's zero_grad(set_to_none) */
                             .pre_torch2 = true};
    oom_estimate lazy, eager;
    oom_estimate_compute(&in, &lazy);
    in.eager_module_loading = true;
    oom_estimate_compute(&in, &eager);
    CHECK(fabs(lazy.context - 287047680.0) < 1);
    CHECK(fabs(eager.context - 1343.0 * 1024 * 1024) < 1);
    CHECK(fabs((eager.total - lazy.total) - (eager.context - lazy.context)) < 1);
}

/* --max-batch: the answer fits and one more does not; the global batch is
 * kept exactly with a micro-batch no larger than the answer. */
static void max_batch_is_the_largest_that_fits(void)
{
    oom_script_inputs s;
    oom_script_inputs_init(&s);
    s.in = (oom_estimate_input){.params = 354823168, .trainable = 354823168, .hidden = 1024, .layers = 24,
                                .heads = 16, .vocab = 50257, .seq_len = 1024, .micro_batch = 6, .training = true,
                                .precision = OOM_PREC_FP32, .optimizer = OOM_OPT_ADAMW, .num_gpus = 1,
                                .memory_efficient_attention = true, .lm_head = true};
    s.grad_accum = 10; /* global batch 60 */
    double target = 14.0 * 1024 * 1024 * 1024;
    oom_max_batch mb;
    CHECK(oom_estimate_max_batch(&s, target, &mb));
    oom_estimate_input in = s.in;
    oom_estimate e;
    in.micro_batch = mb.micro_batch;
    oom_estimate_compute(&in, &e);
    CHECK(e.total <= target);
    in.micro_batch = mb.micro_batch + 1;
    oom_estimate_compute(&in, &e);
    CHECK(e.total > target);
    CHECK(mb.global_batch == 60);
    CHECK(mb.kept_micro_batch <= mb.micro_batch && mb.kept_micro_batch * mb.grad_accum == 60);
    long long seq;
    CHECK(oom_estimate_max_seq(&s, target, 1024, &seq, &e) && seq <= 1024 && e.total <= target);
    CHECK(!oom_estimate_max_batch(&s, 1.0, &mb) && mb.micro_batch == 0);
}

/* DeepSpeed docs (memory.rst), t5-3b "cold" (2851e6 params, 32e6 largest
 * layer, one node of 8 GPUs), in GiB as DeepSpeed prints them; t5-large on 4
 * GPUs in MiB (737.67M params, 32.90M largest layer). */
static void deepspeed_documented_estimates(void)
{
    const double gib = 1024.0 * 1024 * 1024, mib = 1024.0 * 1024;
    double p = 2851e6, l = 32e6;
    CHECK(fabs(oom_estimate_deepspeed_zero2_gpu(p, 8, true, false) / gib - 5.31) < 0.005);
    CHECK(fabs(oom_estimate_deepspeed_zero2_gpu(p, 8, false, true) / gib - 15.93) < 0.005);
    CHECK(fabs(oom_estimate_deepspeed_zero2_gpu(p, 8, false, false) / gib - 11.28) < 0.005);
    CHECK(fabs(oom_estimate_deepspeed_zero3_gpu(p, l, 8, true, true) / gib - 0.12) < 0.005);
    CHECK(fabs(oom_estimate_deepspeed_zero3_gpu(p, l, 8, true, false) / gib - 0.78) < 0.005);
    CHECK(fabs(oom_estimate_deepspeed_zero3_gpu(p, l, 8, false, false) / gib - 6.09) < 0.005);
    double t5l = 737668096, t5l_largest = 32899072;
    CHECK((long long)(oom_estimate_deepspeed_zero3_gpu(t5l, t5l_largest, 4, false, false) / mib) == 3291);
    CHECK((long long)(oom_estimate_deepspeed_zero3_gpu(t5l, t5l_largest, 4, true, true) / mib) == 125);
    CHECK((long long)(oom_estimate_deepspeed_zero3_gpu(t5l, t5l_largest, 4, true, false) / mib) == 477);
}

/* ---- image models ---------------------------------------------------------
 * Reference numbers measured with tests/gpu/cnn_profile.py on Debian 12's
 * python3-torch 1.13.1 and python3-torchvision 0.14.1, on the CPU, weights=None
 * (the raw record: tests/gpu/cnn_profile.json), and the ResNet-50 figures of
 * docs/estimation.md (§7, measured the same way). */

static oom_kb vision_kb;

static bool near(double got, double want, double tolerance)
{
    bool ok = fabs(got - want) <= tolerance * fabs(want);
    if (!ok)
        printf("  got %.6g, want %.6g (within %.1f%%)\n", got, want, 100 * tolerance);
    return ok;
}

/* The inputs for a knowledge-base model at a batch and a square side. */
static oom_estimate_input image_input(const char *id, long long batch, long long side)
{
    oom_script_inputs s;
    oom_script_inputs_init(&s);
    CHECK(oom_script_inputs_use_model(&s, &vision_kb, id, NULL));
    s.in.micro_batch = batch;
    s.in.image_h = s.in.image_w = side;
    return s.in;
}

static double activations(const char *id, long long batch, long long side)
{
    oom_estimate_input in = image_input(id, batch, side);
    oom_estimate e;
    oom_estimate_compute(&in, &e);
    return e.activations;
}

/* docs/estimation.md §7: 25,557,032 parameters; fp32 weights with the BatchNorm
 * buffers 102,441,032 B (accelerate's "97.7 MB" for timm/resnet50); Adam state
 * exactly 2x the fp32 parameters; 5.50 GB saved for backward at batch 64. */
static void resnet50_reference(void)
{
    oom_estimate_input in = image_input("resnet50", 64, 224);
    oom_estimate e;
    oom_estimate_compute(&in, &e);
    CHECK(in.params == 25557032LL);
    CHECK(e.weights == 102441032.0);
    CHECK(e.optimizer == 8.0 * 25557032);
    CHECK(near(e.activations, 5.50e9, 0.01));
    CHECK(e.logits == 4.0 * 64 * 1000 * 2);
}

/* Other batches and sizes than the one measured for the knowledge base
 * (cnn_profile.json "scaling"): the estimate scales the 224 px figure. */
static void image_scaling(void)
{
    CHECK(near(activations("resnet50", 4, 224), 4 * 85962624.0, 0.005));
    CHECK(near(activations("resnet50", 2, 160), 2 * 43941632.0, 0.005));
    CHECK(near(activations("resnet50", 2, 320), 2 * 175423232.0, 0.005));
    CHECK(near(activations("vgg16", 2, 160), 2 * 37523456.0, 0.005));
    /* EfficientNet's stride-2 layers round odd sides up: 2% above H x W */
    CHECK(near(activations("efficientnet_b0", 2, 300), 2 * 162008068.0, 0.03));
    /* ViT: 577 tokens at 384 px instead of 197 (measured with image_size=384) */
    CHECK(near(activations("vit_b_16", 1, 384), 537525608.0, 0.01));
}

/* Script text -> inputs, through a temporary file (shared with
 * test_estimate_inputs.c, declared in harness.h). */
void oom_test_read_script(const oom_kb *kb, const char *text, oom_script_inputs *s)
{
    char path[] = "/tmp/oomlint-script-XXXXXX.py";
    int fd = mkstemps(path, 3);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_script_inputs_read(path, kb, s, &err));
    oom_buf_free(&err);
    unlink(path);
}

static bool reads_model(const char *text, const char *want)
{
    oom_script_inputs s;
    oom_test_read_script(&vision_kb, text, &s);
    bool ok = want ? s.model_known && strcmp(s.model_id, want) == 0 : !s.model_known;
    if (!ok)
        printf("  %s: got %s\n", text, s.model_known ? s.model_id : "(none)");
    return ok;
}

/* The spellings that build a torchvision model, through import aliases; a
 * local function of the same name is not one. */
static void torchvision_spellings(void)
{
    CHECK(reads_model("import torchvision\nm = torchvision.models.resnet50()\n", "resnet50"));
    CHECK(reads_model("from torchvision import models\nm = models.vgg16(weights=None)\n", "vgg16"));
    CHECK(reads_model("from torchvision.models import efficientnet_b0 as net\nm = net()\n", "efficientnet_b0"));
    CHECK(reads_model("import torchvision.models as tvm\nm = tvm.get_model(\"vit_b_16\")\n", "vit_b_16"));
    CHECK(reads_model("import timm\nm = timm.create_model(\"resnet50\", pretrained=True)\n", "resnet50"));
    CHECK(reads_model("import torch\nm = torch.hub.load(\"pytorch/vision\", \"resnet152\")\n", "resnet152"));
    CHECK(reads_model("def resnet50():\n    pass\nm = resnet50()\n", NULL));
    CHECK(reads_model("from mylib import models\nm = models.resnet50()\n", NULL));
    /* timm's ViT is not known to equal torchvision's: no alias, no guess */
    CHECK(reads_model("import timm\nm = timm.create_model(\"vit_base_patch16_224\")\n", NULL));
}

#define TRAIN_LOOP "for x, y in loader:\n    loss = model(x).sum()\n    loss.backward()\n"

static void image_size_and_settings(void)
{
    oom_script_inputs s;
    oom_test_read_script(&vision_kb, "from torchvision import models, transforms as T\nIMG = 288\n"
                "val = T.Compose([T.Resize(320), T.CenterCrop(IMG)])\n"
                "train = T.Compose([T.RandomResizedCrop(IMG), T.ToTensor()])\n"
                "model = models.resnet50()\nloader = DataLoader(ds, batch_size=48)\n"
                "opt = torch.optim.SGD(model.parameters(), 0.1, 0.9)\n"
                "import torch\nwith torch.autocast(\"cuda\", dtype=torch.bfloat16):\n    pass\n" TRAIN_LOOP,
                &s);
    CHECK(s.in.image_h == 288 && s.in.image_w == 288 && !s.from[OOM_IN_IMAGE].assumed);
    CHECK(s.from[OOM_IN_IMAGE].line == 4);
    CHECK(s.in.micro_batch == 48 && s.in.optimizer == OOM_OPT_SGD_MOMENTUM);
    CHECK(s.in.precision == OOM_PREC_AMP_BF16); /* autocast's dtype is not a 16-bit model */
    CHECK(s.in.training);
    oom_test_read_script(&vision_kb, "import argparse\nfrom torchvision import models, transforms\np = argparse.ArgumentParser()\n"
                "p.add_argument(\"--image-size\", type=int, default=384)\n"
                "p.add_argument(\"--batch-size\", type=int, default=256)\n"
                "t = transforms.CenterCrop((256, 192))\nmodel = models.resnet18()\n"
                "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n" TRAIN_LOOP,
                &s);
    CHECK(s.in.image_h == 256 && s.in.image_w == 192); /* a crop beats the argparse default */
    CHECK(s.in.micro_batch == 256 && strcmp(s.batch_name, "--batch-size") == 0);
    CHECK(s.in.optimizer == OOM_OPT_SGD);
    oom_test_read_script(&vision_kb, "from torchvision import models\nmodel = models.resnet18()\n" TRAIN_LOOP, &s);
    CHECK(s.from[OOM_IN_IMAGE].assumed && s.in.image_h == 0 && s.in.image_ref == 224);
}

/* Frozen layers: trainable parameters and the activations that are left. */
static void frozen_layers(void)
{
    const oom_model *r50 = oom_kb_find_model(&vision_kb, "resnet50");
    const oom_model *vgg = oom_kb_find_model(&vision_kb, "vgg16");
    CHECK(r50 && vgg);
    if (!r50 || !vgg)
        return;
    oom_script_inputs s;
    oom_test_read_script(&vision_kb, "import torch.nn as nn\nfrom torchvision import models\nmodel = models.resnet50(weights=\"DEFAULT\")\n"
                "for param in model.parameters():\n    param.requires_grad = False\n"
                "model.fc = nn.Linear(model.fc.in_features, 10)\n" TRAIN_LOOP,
                &s);
    CHECK(s.in.frozen_backbone && s.in.trainable == 2048 * 10 + 10);
    CHECK(s.in.params == 25557032LL - 2049000 + 20490 && s.in.classes == 10);
    CHECK(!s.from[OOM_IN_LORA].assumed && s.from[OOM_IN_LORA].line == 6);
    s.in.micro_batch = 64;
    oom_estimate e;
    oom_estimate_compute(&s.in, &e);
    double per_image = r50->vision.forward_peak > r50->vision.saved_frozen ? r50->vision.forward_peak
                                                                             : r50->vision.saved_frozen;
    CHECK(e.activations == 64 * per_image);
    CHECK(e.gradients == 4.0 * 20490 && e.optimizer == 8.0 * 20490);
    /* the measured frozen figure is the fc input alone: 2048 fp32 features */
    CHECK(r50->vision.saved_frozen == 2048 * 4);

    /* the PyTorch fine-tuning tutorial's spelling: the width through a name */
    oom_test_read_script(&vision_kb, "import torch.nn as nn\nfrom torchvision import models\nmodel_ft = models.resnet18()\n"
                "for param in model_ft.parameters():\n    param.requires_grad = False\n"
                "num_ftrs = model_ft.fc.in_features\nmodel_ft.fc = nn.Linear(num_ftrs, 2)\n" TRAIN_LOOP, &s);
    CHECK(s.in.frozen_backbone && s.in.trainable == 512 * 2 + 2 && !s.from[OOM_IN_LORA].assumed);
    /* a head whose size cannot be read: the original's, marked assumed */
    oom_test_read_script(&vision_kb, "import torch.nn as nn\nfrom torchvision import models\nmodel = models.resnet50()\n"
                "model.requires_grad_(False)\nmodel.fc = nn.Linear(width, n_classes)\n" TRAIN_LOOP, &s);
    CHECK(s.in.frozen_backbone && s.in.trainable == 2049000 && s.from[OOM_IN_LORA].assumed);
    oom_test_read_script(&vision_kb, "import torch.nn as nn\nfrom torchvision import models\nmodel = models.vgg16()\n"
                "model.requires_grad_(False)\nmodel.classifier[6] = nn.Linear(4096, 2)\n" TRAIN_LOOP, &s);
    CHECK(s.in.frozen_backbone && s.in.trainable == 4096 * 2 + 2);
    oom_test_read_script(&vision_kb, "from torchvision import models\nmodel = models.vgg16()\n"
                "for p in model.features.parameters():\n    p.requires_grad_(False)\n" TRAIN_LOOP, &s);
    CHECK(s.in.frozen_backbone && s.in.trainable == vgg->vision.classifier_params);
    oom_test_read_script(&vision_kb, "from torchvision import models\nmodel = models.resnet50()\nmodel.requires_grad_(False)\n"
                "for p in model.fc.parameters():\n    p.requires_grad = True\n" TRAIN_LOOP, &s);
    CHECK(s.in.frozen_backbone && s.in.trainable == 2049000 && !s.from[OOM_IN_LORA].assumed);
    /* a freeze we cannot decide statically leaves everything trainable */
    oom_test_read_script(&vision_kb, "from torchvision import models\nmodel = models.resnet50()\n"
                "for name, p in model.named_parameters():\n    if \"fc\" not in name:\n        p.requires_grad = False\n"
                TRAIN_LOOP, &s);
    CHECK(!s.in.frozen_backbone && s.in.trainable == s.in.params && s.from[OOM_IN_LORA].assumed);
    CHECK(strstr(s.from[OOM_IN_LORA].text, "conditional") != NULL);
    oom_test_read_script(&vision_kb, "from torchvision import models\nmodel = models.resnet50()\nif args.freeze:\n"
                "    model.requires_grad_(False)\n" TRAIN_LOOP, &s);
    CHECK(!s.in.frozen_backbone && s.in.trainable == s.in.params);
    /* the CIFAR stem: the figures measured with it (cnn_profile.json
     * "cifar_stem": resnet18 4,719,360 B per 32 px image; 18,813,696 at 64 px) */
    oom_test_read_script(&vision_kb, "import torch.nn as nn\nfrom torchvision import models, transforms\n"
                "tf = transforms.RandomCrop(64, padding=4)\nmodel = models.resnet18(num_classes=10)\n"
                "model.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)\n"
                "model.maxpool = nn.Identity()\nloader = DataLoader(ds, batch_size=2)\n" TRAIN_LOOP, &s);
    CHECK(s.in.image_ref == 32 && s.in.image_bytes == 4719360.0);
    CHECK(strstr(s.from[OOM_IN_MODEL].text, "stride-1 stem") != NULL);
    oom_estimate_compute(&s.in, &e);
    CHECK(near(e.activations, 2 * 18813696.0, 0.01));
    /* a new head from the constructor: 10 classes instead of 1000 */
    oom_test_read_script(&vision_kb, "from torchvision import models\nmodel = models.resnet50(num_classes=10)\n" TRAIN_LOOP, &s);
    CHECK(s.in.params == 25557032LL - 2049000 + 20490 && s.in.trainable == s.in.params && s.in.classes == 10);
}

/* The knowledge base's image entries agree with themselves and with the
 * independent counts we have. */
static void image_kb_consistent(void)
{
    size_t images = 0;
    for (size_t i = 0; i < vision_kb.model_count; i++) {
        const oom_model *m = &vision_kb.models[i];
        const oom_vision_profile *v = &m->vision;
        if (v->resolution <= 0)
            continue;
        images++;
        CHECK(v->head_params == (v->head_in_features + 1) * v->classes);
        CHECK(v->saved_fp32 > 0 && v->saved_frozen > 0 && v->forward_peak > 0 && v->head[0]);
        CHECK(v->saved_autocast == 0 || v->saved_autocast < v->saved_fp32);
        CHECK(m->params > v->head_params && (v->classifier_params < 0 || v->classifier_params < m->params));
    }
    CHECK(images >= 20);
    /* torchvision's ViT-B/16 is HF ViTForImageClassification's size (kb, 86,567,656) */
    const oom_model *tv = oom_kb_find_model(&vision_kb, "vit_b_16");
    CHECK(tv && tv->params == 86567656LL);
}

void test_estimate_suite(void)
{
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&vision_kb, &err) == 0);
    oom_buf_free(&err);
    oom_test_run("estimate: ResNet-50 reference numbers (docs/estimation.md §7)", resnet50_reference);
    oom_test_run("estimate: image models at other batches and sizes (cnn_profile.py)", image_scaling);
    oom_test_run("estimate: torchvision and timm models found through import aliases", torchvision_spellings);
    oom_test_run("estimate: image size, batch, optimizer and autocast of a vision script", image_size_and_settings);
    oom_test_run("estimate: frozen backbones and new heads", frozen_layers);
    oom_test_run("estimate: the image entries of the knowledge base", image_kb_consistent);
    oom_kb_free(&vision_kb);
    oom_test_run("estimate: DeepSpeed's documented estimates (t5-3b, t5-large)", deepspeed_documented_estimates);
    oom_test_run("estimate: ZeRO paper Table I (18 cells)", zero_table_one);
    oom_test_run("estimate: accelerate estimate-memory, bert-base-cased", accelerate_bert_base_cased);
    oom_test_run("estimate: HF bert-large table on a V100, within 15%", hf_bert_large_table);
    oom_test_run("estimate: the CUDA context follows the PyTorch version", context_follows_the_torch_version);
    oom_test_run("estimate: --max-batch is the largest micro-batch that fits", max_batch_is_the_largest_that_fits);
}

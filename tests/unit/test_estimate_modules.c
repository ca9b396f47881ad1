/* Models a script defines (estimate/modules.c): exact parameter counts for
 * each torch.nn layer kind and for composed models, each checked against a
 * count derived by hand from PyTorch's documented parameter shapes (the
 * derivation is in the comment beside it); what cannot be sized says which
 * size; the rough activations. */
#include <stdlib.h>

#include "harness.h"
#include "oomlint/estimate.h"

static oom_kb kb;

#define HEAD "import torch\nimport torch.nn as nn\n"

/* The parameters of `model = M()` where M's __init__ is `body` (one
 * statement per line, indented by 8). -1 when the model is not sized. */
static long long params_of(const char *body)
{
    char text[4096];
    snprintf(text, sizeof text, HEAD "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n%s\n"
                                     "model = M()\n",
             body);
    oom_script_inputs s;
    oom_test_read_script(&kb, text, &s);
    return s.model_known && s.in.module_defined ? s.in.params : -1;
}

static bool counts(const char *body, long long want)
{
    long long got = params_of(body);
    if (got != want)
        printf("  %s\n  -> %lld, want %lld\n", body, got, want);
    return got == want;
}

static void linear_and_embedding(void)
{
    /* weight out x in + bias out: 10*5 + 5 */
    CHECK(counts("        self.fc = nn.Linear(10, 5)", 55));
    /* no bias, by keyword and positionally: 10*5 */
    CHECK(counts("        self.fc = nn.Linear(10, 5, bias=False)", 50));
    CHECK(counts("        self.fc = nn.Linear(in_features=10, out_features=5, bias=False)", 50));
    CHECK(counts("        self.fc = torch.nn.Linear(10, 5, False)", 50));
    /* weight num x dim: 1000*64 */
    CHECK(counts("        self.emb = nn.Embedding(1000, 64, padding_idx=0)", 64000));
    /* PReLU: one slope by default, or num_parameters */
    CHECK(counts("        self.a = nn.PReLU(8)", 8));
}

static void convolutions(void)
{
    /* Conv2d weight out x in/groups x kh x kw, bias out: 16*3*3*3 + 16 */
    CHECK(counts("        self.c = nn.Conv2d(3, 16, 3)", 448));
    /* a tuple kernel, no bias: 16*3*3*5 */
    CHECK(counts("        self.c = nn.Conv2d(3, 16, (3, 5), bias=False)", 720));
    /* groups: 32 * (16/4) * 3*3 + 32 */
    CHECK(counts("        self.c = nn.Conv2d(16, 32, 3, groups=4)", 1184));
    /* depthwise by keyword names: 8 * (8/8) * 9 + 8 */
    CHECK(counts("        self.c = nn.Conv2d(in_channels=8, out_channels=8, kernel_size=3, padding=1, groups=8)", 80));
    /* Conv1d: 4*8*5 + 4; Conv3d: 4*2*3*3*3 + 4 */
    CHECK(counts("        self.c = nn.Conv1d(8, 4, 5)", 164));
    CHECK(counts("        self.c = nn.Conv3d(2, 4, 3)", 220));
    /* ConvTranspose2d weight in x out/groups x k x k, bias out: 16*8*4*4 + 8 */
    CHECK(counts("        self.c = nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)", 2056));
    /* ConvTranspose1d with groups: 4 * (6/2) * 3 + 6 */
    CHECK(counts("        self.c = nn.ConvTranspose1d(4, 6, 3, groups=2)", 42));
}

static void norms(void)
{
    /* LayerNorm: weight and bias of the shape, 2*128; a tuple shape 2*(4*8) */
    CHECK(counts("        self.n = nn.LayerNorm(128)", 256));
    CHECK(counts("        self.n = nn.LayerNorm((4, 8))", 64));
    /* no affine: nothing (the Linear's 2*2+2 is what is left) */
    CHECK(counts("        self.fc = nn.Linear(2, 2)\n        self.n = nn.LayerNorm(128, elementwise_affine=False)", 6));
    /* LayerNorm(bias=False) and RMSNorm: weight only */
    CHECK(counts("        self.n = nn.LayerNorm(128, bias=False)", 128));
    CHECK(counts("        self.n = nn.RMSNorm(128)", 128));
    /* BatchNorm2d: weight and bias, 2*64; affine=False leaves only the Linear's 6 */
    CHECK(counts("        self.n = nn.BatchNorm2d(64)", 128));
    CHECK(counts("        self.fc = nn.Linear(2, 2)\n        self.n = nn.BatchNorm1d(10, affine=False)", 6));
    /* GroupNorm: weight and bias per channel, 2*32 */
    CHECK(counts("        self.n = nn.GroupNorm(4, 32)", 64));

    /* BatchNorm's running mean and variance (fp32) and step count (int64)
     * are buffers: 64*4*2 + 8 bytes */
    oom_script_inputs s;
    oom_test_read_script(&kb, HEAD "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.n = nn.BatchNorm2d(64)\nmodel = M()\n",
                         &s);
    CHECK(s.in.buffer_bytes == 64 * 4 * 2 + 8);
}

static void recurrent(void)
{
    /* LSTM per layer and direction: 4h*in + 4h*h + 2*4h;
     * LSTM(10, 20): 4*20*10 + 4*20*20 + 8*20 = 800 + 1600 + 160 */
    CHECK(counts("        self.r = nn.LSTM(10, 20)", 2560));
    /* two layers, both directions: layer 0 reads 10 (2560 per direction),
     * layer 1 reads 2*20 = 40: 4*20*40 + 4*20*20 + 160 = 4960 per direction;
     * 2*2560 + 2*4960 */
    CHECK(counts("        self.r = nn.LSTM(10, 20, num_layers=2, bidirectional=True, batch_first=True)", 15040));
    CHECK(counts("        self.r = nn.LSTM(10, 20, 2, True, True, 0.1, True)", 15040));
    /* GRU: 3 gates, 3*20*10 + 3*20*20 + 2*3*20 */
    CHECK(counts("        self.r = nn.GRU(10, 20)", 1920));
    /* RNN without biases: 20*10 + 20*20 */
    CHECK(counts("        self.r = nn.RNN(10, 20, bias=False)", 600));
    /* LSTM with proj_size 5: weight_ih 4*20 x 10, weight_hh 4*20 x 5, biases
     * 2*4*20, weight_hr 5 x 20: 800 + 400 + 160 + 100 */
    CHECK(counts("        self.r = nn.LSTM(10, 20, proj_size=5)", 1460));
    /* cells: one layer; LSTMCell(1, 51) 4*51*1 + 4*51*51 + 8*51 */
    CHECK(counts("        self.r = nn.LSTMCell(1, 51)", 11016));
}

static void attention_and_transformers(void)
{
    /* MultiheadAttention(E=64): in_proj 3E x E + 3E, out_proj E x E + E */
    CHECK(counts("        self.a = nn.MultiheadAttention(64, 8)", 16640));
    CHECK(counts("        self.a = nn.MultiheadAttention(64, 8, bias=False)", 16384));
    /* kdim 32, vdim 16: q 64*64, k 64*32, v 64*16, in bias 3*64, out 64*64 + 64 */
    CHECK(counts("        self.a = nn.MultiheadAttention(64, 8, kdim=32, vdim=16)", 11520));
    /* TransformerEncoderLayer(64, 4), dim_feedforward 2048 by default:
     * attention 16640, linear1 64*2048 + 2048, linear2 2048*64 + 64, two
     * LayerNorms 2*2*64: 16640 + 133120 + 131136 + 256 */
    CHECK(counts("        self.l = nn.TransformerEncoderLayer(64, 4)", 281152));
    /* three deep copies of it */
    CHECK(counts("        layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, batch_first=True)\n"
                 "        self.enc = nn.TransformerEncoder(layer, num_layers=3)",
                 3 * 281152));
    /* with a final norm: + 2*64 */
    CHECK(counts("        layer = nn.TransformerEncoderLayer(64, 4, 256)\n"
                 "        self.enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(64))",
                 2 * (16640 + 64 * 256 + 256 + 256 * 64 + 64 + 256) + 128));
    /* TransformerDecoderLayer(64, 4, 256): self and cross attention 2*16640,
     * linear1 64*256 + 256, linear2 256*64 + 64, three norms 3*128 */
    CHECK(counts("        self.l = nn.TransformerDecoderLayer(64, 4, 256)", 33280 + 16640 + 16448 + 384));
    /* nn.Transformer(d_model=64, nhead=4, 1 encoder layer, 1 decoder layer,
     * dim_feedforward=128): encoder layer 16640 + 64*128+128 + 128*64+64 +
     * 256 = 33472; decoder layer 2*16640 + 16576 + 384 = 50240; two final
     * norms 256 */
    CHECK(counts("        self.t = nn.Transformer(d_model=64, nhead=4, num_encoder_layers=1, num_decoder_layers=1, "
                 "dim_feedforward=128)",
                 33472 + 50240 + 256));
}

static void containers_and_parameters(void)
{
    /* Sequential of layers and activations: (4*8 + 8) + (8*2 + 2) */
    CHECK(counts("        self.net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 2))", 58));
    /* ModuleList from a comprehension: 3 * (4*4 + 4) */
    CHECK(counts("        self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])", 60));
    /* ModuleDict: (2*3 + 3) + (3*1 + 1) */
    CHECK(counts("        self.heads = nn.ModuleDict({'a': nn.Linear(2, 3), 'b': nn.Linear(3, 1)})", 13));
    /* Sequential(OrderedDict(...)): 2*2 + 2 + 2*2 */
    CHECK(counts("        from collections import OrderedDict\n"
                 "        self.net = nn.Sequential(OrderedDict([('fc', nn.Linear(2, 2)), ('bn', nn.BatchNorm1d(2))]))",
                 10));
    /* ModuleList() grown with append in a loop: 2 * (3*3 + 3) */
    CHECK(counts("        self.layers = nn.ModuleList()\n        for i in range(2):\n"
                 "            self.layers.append(nn.Linear(3, 3))",
                 24));
    /* a plain Python list is not registered by PyTorch: only the Linear(1, 1) */
    CHECK(counts("        self.fc = nn.Linear(1, 1)\n        self.extra = [nn.Linear(100, 100)]", 2));
    /* nn.Parameter of a tensor's shape: 3*4, then 1*5*8 scaled */
    CHECK(counts("        self.w = nn.Parameter(torch.zeros(3, 4))", 12));
    CHECK(counts("        self.pos = nn.Parameter(torch.randn(1, 5, 8) * 0.02)", 40));
    CHECK(counts("        self.cls = nn.Parameter(torch.zeros((1, 1, 16)))\n"
                 "        self.register_parameter('scale', nn.Parameter(torch.ones(16)))",
                 32));
}

/* Submodules of the script's own classes, constructor arguments and their
 * defaults, module-level constants, arithmetic, loops, helpers, tied
 * weights and super classes. */
static void composed_models(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb,
                         HEAD "D_MODEL = 64\n"                                                   /* 3 */
                              "class Block(nn.Module):\n"                                        /* 4 */
                              "    def __init__(self, d, heads=4, mult=4):\n"                    /* 5 */
                              "        super().__init__()\n"                                     /* 6 */
                              "        self.head_dim = d // heads\n"                             /* 7 */
                              "        self.qkv = nn.Linear(d, 3 * heads * self.head_dim, bias=False)\n"
                              "        self.proj = nn.Linear(d, d)\n"                            /* 9 */
                              "        self.mlp = nn.Sequential(nn.Linear(d, mult * d), nn.GELU(), nn.Linear(mult * d, d))\n"
                              "        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)\n" /* 11 */
                              "class GPT(nn.Module):\n"                                          /* 12 */
                              "    def __init__(self, vocab=1000, n_layer=2, d=D_MODEL, ctx=32):\n"
                              "        super().__init__()\n"                                     /* 14 */
                              "        self.tok = nn.Embedding(vocab, d)\n"                      /* 15 */
                              "        self.pos = nn.Parameter(torch.zeros(1, ctx, d))\n"        /* 16 */
                              "        self.blocks = nn.ModuleList([Block(d) for _ in range(n_layer)])\n"
                              "        self.ln_f = nn.LayerNorm(d)\n"                            /* 18 */
                              "        self.head = nn.Linear(d, vocab, bias=False)\n"            /* 19 */
                              "        self.head.weight = self.tok.weight\n"                     /* 20 */
                              "model = GPT(n_layer=3).cuda()\n",                                 /* 21 */
                         &s);
    /* Block(64): qkv 64*192 = 12288; proj 64*64 + 64 = 4160; mlp 64*256 +
     * 256 + 256*64 + 64 = 33088; two LayerNorms 256: 49792 per block.
     * GPT: tok 1000*64 = 64000; pos 32*64 = 2048; 3 blocks 149376; ln_f 128;
     * head 64*1000, tied to tok: counted once. 64000 + 2048 + 149376 + 128 */
    CHECK(s.model_known && s.in.params == 215552);
    CHECK(s.in.trainable == s.in.params);
    CHECK(s.from[OOM_IN_MODEL].line == 21 && strstr(s.from[OOM_IN_MODEL].text, "class at line 12") &&
          strstr(s.from[OOM_IN_MODEL].text, "215552 parameters"));
    CHECK_STR(s.model_id, "GPT");
    /* the head projects back onto the vocabulary: a language model's logits */
    CHECK(s.in.lm_head && s.in.vocab == 1000 && s.task == OOM_TASK_CAUSAL_LM);

    /* a helper that returns a list of layers (PyTorch-GAN's block()), an
     * argparse default, a loop over a tuple, a subclass that calls its base */
    oom_test_read_script(&kb,
                         HEAD "import argparse\nparser = argparse.ArgumentParser()\n"
                              "parser.add_argument('--latent_dim', type=int, default=100)\nopt = parser.parse_args()\n"
                              "class Base(nn.Module):\n"
                              "    def __init__(self, width):\n        super().__init__()\n"
                              "        self.inp = nn.Linear(opt.latent_dim, width)\n"
                              "class Generator(Base):\n"
                              "    def __init__(self, width=128):\n        super().__init__(width)\n"
                              "        def block(in_feat, out_feat, normalize=True):\n"
                              "            layers = [nn.Linear(in_feat, out_feat)]\n"
                              "            if normalize:\n                layers.append(nn.BatchNorm1d(out_feat, 0.8))\n"
                              "            layers.append(nn.LeakyReLU(0.2, inplace=True))\n            return layers\n"
                              "        dims = []\n        for w in (width, 256):\n            dims.append(w)\n"
                              "        self.model = nn.Sequential(*block(dims[0], dims[1], normalize=False), *block(256, 512))\n"
                              "generator = Generator()\n",
                         &s);
    /* inp 100*128 + 128 = 12928; block(128, 256) without norm 128*256 + 256 =
     * 33024; block(256, 512): 256*512 + 512 + BatchNorm 2*512 = 132608 */
    CHECK(s.model_known && s.in.params == 12928 + 33024 + 132608);

    /* two models trained together (a GAN): both counted, both named */
    oom_test_read_script(&kb,
                         HEAD "class G(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.fc = nn.Linear(10, 10)\n"
                              "class D(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.fc = nn.Linear(10, 1)\n"
                              "class GANLoss(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.bce = nn.BCELoss()\n"
                              "netG = G()\nnetD = D()\ncriterion = GANLoss()\n",
                         &s);
    CHECK(s.model_known && s.in.params == 110 + 11 && strcmp(s.model_id, "G + D") == 0);

    /* a class extending a torch.nn layer builds that layer through super() */
    CHECK(counts("        self.fc = Wide(4)\n"
                 "class Wide(nn.Linear):\n    def __init__(self, n):\n        super().__init__(n, 2 * n)",
                 4 * 8 + 8));
}

/* The branch a run without flags takes decides which class is built; the
 * branch it does not take is not counted. */
static void branches(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb,
                         HEAD "import argparse\np = argparse.ArgumentParser()\n"
                              "p.add_argument('--model', type=str, default='LSTM')\n"
                              "p.add_argument('--tied', action='store_true')\nargs = p.parse_args()\n"
                              "class RNNModel(nn.Module):\n"
                              "    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, tie_weights=False):\n"
                              "        super().__init__()\n        self.encoder = nn.Embedding(ntoken, ninp)\n"
                              "        if rnn_type in ['LSTM', 'GRU']:\n"
                              "            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers)\n"
                              "        elif rnn_type == 'X':\n            self.rnn = nn.RNN(ninp, nhid, nlayers)\n"
                              "        self.decoder = nn.Linear(nhid, ntoken)\n"
                              "        if tie_weights:\n            self.decoder.weight = self.encoder.weight\n"
                              "class Big(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.fc = nn.Linear(1000, 1000)\n"
                              "if args.model == 'Big':\n    model = Big()\n"
                              "else:\n    model = RNNModel(args.model, 100, 8, 8, 1, args.tied)\n",
                         &s);
    /* `rnn_type in [...]` and getattr(nn, ...) cannot be read: unsized, and
     * the input says which condition */
    CHECK(!s.model_known && strstr(s.from[OOM_IN_MODEL].text, "RNNModel") &&
          strstr(s.from[OOM_IN_MODEL].text, "rnn_type in"));

    oom_test_read_script(&kb,
                         HEAD "ARCH = 'small'\n"
                              "class Net(nn.Module):\n    def __init__(self, arch, tied=False):\n"
                              "        super().__init__()\n        self.emb = nn.Embedding(100, 8)\n"
                              "        if arch == 'small':\n            self.rnn = nn.GRU(8, 8)\n"
                              "        else:\n            self.rnn = nn.LSTM(8, 8, num_layers=4)\n"
                              "        self.out = nn.Linear(8, 100)\n"
                              "        if tied:\n            self.out.weight = self.emb.weight\n"
                              "model = Net(ARCH, tied=True)\n",
                         &s);
    /* emb 800; GRU(8, 8): 3*8*8 + 3*8*8 + 6*8 = 432; out 8*100 + 100, its
     * weight tied to emb: 100 */
    CHECK(s.model_known && s.in.params == 800 + 432 + 100);
}

/* A size the script does not fix statically leaves the model unsized, and
 * the model's input says which size, where. */
static void unresolved_sizes(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb,
                         HEAD "class Net(nn.Module):\n    def __init__(self, n_in):\n        super().__init__()\n"
                              "        self.fc = nn.Linear(n_in, 10)\n"
                              "data = load()\nmodel = Net(len(data))\n",
                         &s);
    CHECK(!s.model_known && strstr(s.from[OOM_IN_MODEL].text, "`n_in` (in_features of nn.Linear, line 6)"));

    oom_test_read_script(&kb,
                         HEAD "import timm\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.backbone = timm.create_model('convnext_tiny')\n"
                              "        self.head = nn.Linear(768, 10)\nmodel = Net()\n",
                         &s);
    CHECK(!s.model_known && strstr(s.from[OOM_IN_MODEL].text, "a module oomlint cannot size"));

    /* a layer oomlint does not know */
    CHECK(params_of("        self.b = nn.Bilinear(2, 3, 4)") == -1);
    /* a class defined but never built: nothing to size, nothing said */
    oom_test_read_script(&kb, HEAD "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                   "        self.fc = nn.Linear(2, 2)\n",
                         &s);
    CHECK(!s.model_known && s.from[OOM_IN_MODEL].assumed);
    /* self-reference and deep nesting end, unsized */
    CHECK(params_of("        self.me = M()") == -1);
}

/* Activations: each layer's output per sample (or per position, or per
 * pixel at the reference side), doubled for what follows it. */
static void rough_activations(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb,
                         HEAD "class MLP(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))\n"
                              "model = MLP()\n",
                         &s);
    CHECK(s.in.module_sample_elems == 2.0 * (256 + 10) && s.in.module_token_elems == 0);

    /* Conv2d(3, 8, 3, padding=1) keeps 32x32; MaxPool2d(2) halves it;
     * Conv2d(8, 16, 3) without padding: 16 - 2 = 14 */
    oom_test_read_script(&kb,
                         HEAD "class CNN(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.c1 = nn.Conv2d(3, 8, 3, padding=1)\n        self.pool = nn.MaxPool2d(2)\n"
                              "        self.c2 = nn.Conv2d(8, 16, 3)\n        self.fc = nn.Linear(16 * 7 * 7, 10)\n"
                              "model = CNN()\n",
                         &s);
    CHECK(s.in.module_ref == 32 && s.in.module_spatial_elems == 2.0 * (8 * 32 * 32 + 16 * 14 * 14));
    CHECK(s.from[OOM_IN_IMAGE].assumed);

    /* the side from an img_size setting (PyTorch-GAN's --img_size): a stride-2
     * Conv2d(1, 4, 3, 2, 1) on 28 gives (28 + 2 - 2 - 1) // 2 + 1 = 14 */
    oom_test_read_script(&kb,
                         HEAD "import argparse\np = argparse.ArgumentParser()\n"
                              "p.add_argument('--img_size', type=int, default=28)\nopt = p.parse_args()\n"
                              "class D(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.c = nn.Conv2d(1, 4, 3, 2, 1)\nmodel = D()\n",
                         &s);
    CHECK(s.in.module_ref == 28 && s.in.module_spatial_elems == 2.0 * 4 * 14 * 14);
    CHECK(!s.from[OOM_IN_IMAGE].assumed && s.from[OOM_IN_IMAGE].line == 5);

    /* an embedding and an LSTM: per position, emb 16 + LSTM (4 gates + cell +
     * output) 6*32; the head onto the vocabulary is the logits term's */
    oom_test_read_script(&kb,
                         HEAD "class LM(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.emb = nn.Embedding(500, 16)\n        self.rnn = nn.LSTM(16, 32)\n"
                              "        self.out = nn.Linear(32, 500)\nmodel = LM()\n",
                         &s);
    CHECK(s.in.module_token_elems == 16 + 6 * 32 && s.in.vocab == 500 && s.in.lm_head);
    oom_estimate e;
    s.in.micro_batch = 4, s.in.seq_len = 10, s.in.training = true;
    oom_estimate_compute(&s.in, &e);
    CHECK(e.activations == (16 + 6 * 32) * 10.0 * 4 * 4.0);
}

/* weight_norm: a magnitude per row of the weight (dim 0) on top of the
 * layer's own parameters; a wrapper that only forwards *args and **kwargs to a
 * layer builds it from the caller's arguments. */
static void weight_norm_and_forwarding(void)
{
    oom_script_inputs s;
    oom_test_read_script(&kb,
                         HEAD "from torch.nn.utils import weight_norm\n"
                              "def WNConv1d(*args, **kwargs):\n"
                              "    \"\"\"A weight-normed Conv1d.\"\"\"\n"
                              "    return weight_norm(nn.Conv1d(*args, **kwargs))\n"
                              "def Lin(*a):\n"
                              "    return nn.Linear(*a)\n"
                              "class M(nn.Module):\n"
                              "    def __init__(self, ch=4):\n"
                              "        super().__init__()\n"
                              "        self.c = WNConv1d(ch, 6, kernel_size=3)\n"
                              "        self.t = weight_norm(nn.ConvTranspose1d(6, 2, 4))\n"
                              "        self.l = weight_norm(nn.Linear(16, 8))\n"
                              "        self.p = Lin(3, 2)\n"
                              "model = M()\n",
                         &s);
    /* WNConv1d(4, 6, 3): 6*4*3 + 6 = 78, magnitudes 6: 84; ConvTranspose1d(6,
     * 2, 4): 6*2*4 + 2 = 50, magnitudes per input channel 6: 56; Linear(16,
     * 8): 136 + 8 = 144; Lin(3, 2): 3*2 + 2 = 8. Total 292. */
    CHECK(s.model_known && s.in.params == 292);
    if (s.in.params != 292)
        printf("  weight_norm: %lld, want 292\n", s.in.params);
}

void test_estimate_modules_suite(void)
{
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    oom_buf_free(&err);
    oom_test_run("estimate modules: Linear, Embedding, PReLU", linear_and_embedding);
    oom_test_run("estimate modules: Conv1d/2d/3d, ConvTranspose, groups, tuple kernels", convolutions);
    oom_test_run("estimate modules: LayerNorm, RMSNorm, BatchNorm (and buffers), GroupNorm", norms);
    oom_test_run("estimate modules: LSTM, GRU, RNN, layers, directions, proj_size, cells", recurrent);
    oom_test_run("estimate modules: MultiheadAttention, Transformer layers and stacks", attention_and_transformers);
    oom_test_run("estimate modules: Sequential, ModuleList, ModuleDict, nn.Parameter", containers_and_parameters);
    oom_test_run("estimate modules: composed models, helpers, ties, bases, two models", composed_models);
    oom_test_run("estimate modules: the branch a run without flags takes", branches);
    oom_test_run("estimate modules: unresolved sizes are named, never guessed", unresolved_sizes);
    oom_test_run("estimate modules: rough activations from the layers' outputs", rough_activations);
    oom_test_run("estimate modules: weight_norm, wrappers that forward *args/**kwargs", weight_norm_and_forwarding);
    oom_kb_free(&kb);
}

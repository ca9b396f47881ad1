/* model/device: which values are a model's outputs left on the GPU, the
 * names that hold them followed over the function's control flow. */
#include "harness.h"

/* The argument of `store.append(ARG)` where the call's text is `call`. */
static TSNode appended(const parsed *p, const char *call)
{
    TSNode c = oom_test_node_at(p, call);
    TSNode args = ts_node_child_by_field_name(c, "arguments", 9);
    return ts_node_named_child(args, 0);
}

static bool on_device(const parsed *p, const char *call)
{
    return oom_pymodel_is_device_output(p->model, appended(p, call));
}

/* A forward's output and what torch builds from it stay on the device;
 * moved to the host or reduced, they do not. */
static void outputs_and_host_copies(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "def f(model, loader):\n    kept = []\n    for x in loader:\n"
                              "        out = model(x)\n        kept.append(out_1)\n"
                              "        kept.append(out.logits)\n        kept.append(torch.softmax(out.logits, -1))\n"
                              "        kept.append(out.logits.cpu())\n        kept.append(out.logits.argmax(-1))\n"
                              "        kept.append(out.logits.to('cpu'))\n        kept.append(out.loss)\n");
    CHECK(on_device(&p, "kept.append(out_1)") == false); /* out_1 is unbound: unknown, not on the device */
    CHECK(on_device(&p, "kept.append(out.logits)"));
    CHECK(on_device(&p, "kept.append(torch.softmax(out.logits, -1))"));
    CHECK(!on_device(&p, "kept.append(out.logits.cpu())"));
    CHECK(!on_device(&p, "kept.append(out.logits.argmax(-1))"));
    CHECK(!on_device(&p, "kept.append(out.logits.to('cpu'))"));
    CHECK(!on_device(&p, "kept.append(out.loss)"));
    oom_test_parsed_free(&p);
}

/* A name rebound to its host copy holds no device output after; one moved on
 * one path only still may hold one (the other path keeps the GPU copy). */
static void rebound_names(void)
{
    parsed p = oom_test_parse("def f(model, loader, keep):\n    a_all, b_all, c_all = [], [], []\n"
                              "    for x in loader:\n"
                              "        a = model(x).logits\n        a = a.cpu()\n        a_all.append(a)\n"
                              "        b = model(x).logits\n        if keep:\n            b = b.cpu()\n        b_all.append(b)\n"
                              "        c = model(x).logits\n        if isinstance(c, tuple):\n            c = c[0]\n"
                              "        c_all.append(c)\n");
    CHECK(!on_device(&p, "a_all.append(a)"));
    CHECK(on_device(&p, "b_all.append(b)"));
    CHECK(on_device(&p, "c_all.append(c)"));
    oom_test_parsed_free(&p);
}

/* Rows of a device output are views of its storage; a loop that rebinds a
 * name from itself is answered once per binding, and ends. */
static void rows_and_loops(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "def f(model, batch, n):\n    model.eval()\n    rows_kept = []\n    emb = model(batch)\n"
                              "    for row in emb:\n        rows_kept.append(row)\n"
                              "    h = model(batch)\n    grown = []\n    for _ in range(n):\n"
                              "        h = torch.cat([h, h])\n        grown.append(h)\n"
                              "    z = torch.zeros(3)\n    for _ in range(n):\n        z = torch.cat([z, z])\n"
                              "        grown.append(z)\n");
    CHECK(on_device(&p, "rows_kept.append(row)"));
    CHECK(on_device(&p, "grown.append(h)"));
    CHECK(!on_device(&p, "grown.append(z)"));
    oom_test_parsed_free(&p);
}

/* A name of the enclosing function, read in a nested one: the nearest
 * binding above decides. */
static void enclosing_function(void)
{
    parsed p = oom_test_parse("def f(model, batch):\n    model.eval()\n    out = model(batch)\n    kept = []\n"
                              "    def keep():\n        kept.append(out)\n    host = out.cpu()\n"
                              "    def keep_host():\n        kept.append(host)\n");
    CHECK(on_device(&p, "kept.append(out)"));
    CHECK(!on_device(&p, "kept.append(host)"));
    oom_test_parsed_free(&p);
}

/* model/placement: a module built in its function without a device and
 * placed by nothing there runs on the host (its class named directly or
 * through module-level aliases, `Net = AtariNet`); moved, handed to a
 * wrapper, or built elsewhere, it may be on the GPU. */
static void modules_on_the_host(void)
{
    parsed p = oom_test_parse("import torch\nimport torch.nn as nn\n"
                              "def make():\n    return nn.Linear(4, 4)\n"
                              "def a(x):\n    m = nn.Linear(4, 4)\n    m(x_a)\n"
                              "def b(x):\n    m = make()\n    m(x_b)\n"
                              "def c(x):\n    m = nn.Linear(4, 4).cuda()\n    m(x_c)\n"
                              "def d(x):\n    m = nn.Linear(4, 4)\n    m.to('cuda')\n    m(x_d)\n"
                              "def e(x, wrap):\n    m = nn.Linear(4, 4)\n    m = wrap(m)\n    m(x_e)\n"
                              "def f(m, x):\n    m(x_f)\n"
                              "def g(x):\n    m = nn.Linear(4, 4, device='cuda')\n    m(x_g)\n"
                              "def h(m, x, dev):\n    m = m.cpu()\n    m.eval()\n    m(x_h)\n    m = m.to(dev)\n"
                              "def i(m, x, dev):\n    m = m.cpu()\n    m.to(dev)\n    m(x_i)\n"
                              "def j(m, x, flag):\n    if flag:\n        m = m.cpu()\n    m(x_j)\n"
                              "class AtariNet(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.fc = nn.Linear(4, 4)\n"
                              "Net = AtariNet\nAgent = Net\n"
                              "def k(x):\n    m = Agent()\n    m(x_k)\n"
                              "def l(x):\n    m = Agent().cuda()\n    m(x_l)\n");
    CHECK(oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_a)")));
    CHECK(oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_b)")));
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_c)")));
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_d)")));
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_e)")));
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_f)")));
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_g)")));
    CHECK(oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_h)")));  /* moved to the host first */
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_i)"))); /* and placed again */
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_j)"))); /* on one path only */
    CHECK(oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_k)")));  /* a class through its aliases */
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_l)")));
    oom_test_parsed_free(&p);
}

/* A forward on inputs made right there from small literal sizes is too
 * small to matter; sizes that are variables, large ones, an input on one
 * path only, or data are not. */
static void synthetic_inputs(void)
{
    parsed p = oom_test_parse("import torch\nfrom torch import zeros\n"
                              "def a(m):\n    m(torch.randn(1, 200, 80))\n"
                              "def b(m, dev):\n    x = torch.zeros((1, 3, 64, 64)).to(dev)\n    m(x, mode='test')\n"
                              "def c(m, n):\n    m(torch.randn(n, 200, 80))\n"
                              "def d(m):\n    m(torch.randn(100, 4, 1024, 1024))\n"
                              "def e(m, batch, flag):\n    x = torch.ones(2, 2)\n    if flag:\n        x = batch\n    m(x)\n"
                              "def f(m, batch):\n    m(batch)\n"
                              "def g(m):\n    m(zeros(4, 4))\n"
                              "def h(m):\n    m()\n"
                              "def i(m):\n    x = torch.randn(1000, 1000) * 3.0\n    m((x))\n"
                              "def j(m, y):\n    m(torch.randn(4, 4) * y)\n"
                              "from transformers import AutoTokenizer\n"
                              "tok = AutoTokenizer.from_pretrained('gpt2')\n"
                              "def k(m):\n    inputs = tok('Hello, my dog is', return_tensors='pt')\n    m(**inputs)\n"
                              "def l(m, texts):\n    m(**tok(texts, return_tensors='pt'))\n");
    CHECK(oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(torch.randn(1, 200, 80))")));
    CHECK(oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(x, mode='test')")));
    CHECK(!oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(torch.randn(n, 200, 80))")));
    CHECK(!oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(torch.randn(100, 4, 1024, 1024))")));
    CHECK(!oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(x)")));
    CHECK(!oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(batch)")));
    CHECK(oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(zeros(4, 4))")));
    CHECK(!oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m()")));
    CHECK(oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m((x))")));
    CHECK(!oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(torch.randn(4, 4) * y)")));
    CHECK(oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(**inputs)")));
    CHECK(!oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(**tok(texts, return_tensors='pt'))")));
    oom_test_parsed_free(&p);
}

/* Code a run-time test of a named call decides: an arm of `a if c else b`,
 * an if's body or else; not the test itself, nor code beside it. */
static void decided_by_a_call(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "a = dict(dtype=torch.bfloat16 if torch.cuda.get_device_capability()[0] >= 8 else None)\n"
                              "if torch.cuda.get_device_capability()[0] >= 8:\n    b = torch.float16\nelse:\n    c = torch.int8\n"
                              "d = torch.uint8\n"
                              "e = torch.int16 if flag else torch.int32\n");
    CHECK(oom_pymodel_decided_by_call(p.model, oom_test_node_at(&p, "dtype=torch.bfloat16"), "get_device_capability"));
    CHECK(oom_pymodel_decided_by_call(p.model, oom_test_node_at(&p, "torch.float16"), "get_device_capability"));
    CHECK(oom_pymodel_decided_by_call(p.model, oom_test_node_at(&p, "torch.int8"), "get_device_capability"));
    CHECK(!oom_pymodel_decided_by_call(p.model, oom_test_node_at(&p, "torch.uint8"), "get_device_capability"));
    CHECK(!oom_pymodel_decided_by_call(p.model, oom_test_node_at(&p, "torch.int16"), "get_device_capability"));
    oom_test_parsed_free(&p);
    parsed q = oom_test_parse("if ck:\n    m.gradient_checkpointing_enable()\n    a = 1\nelif x:\n    b = 2\nelse:\n    c = 3\nd = 4\n");
    CHECK(!oom_pymodel_other_arm_calls(q.model, oom_test_node_at(&q, "a = 1"), "gradient_checkpointing_enable"));
    CHECK(oom_pymodel_other_arm_calls(q.model, oom_test_node_at(&q, "b = 2"), "gradient_checkpointing_enable"));
    CHECK(oom_pymodel_other_arm_calls(q.model, oom_test_node_at(&q, "c = 3"), "gradient_checkpointing_enable"));
    CHECK(!oom_pymodel_other_arm_calls(q.model, oom_test_node_at(&q, "d = 4"), "gradient_checkpointing_enable"));
    oom_test_parsed_free(&q);
}

void test_device_suite(void)
{
    oom_test_run("device: model outputs and their host copies", outputs_and_host_copies);
    oom_test_run("device: names rebound on some paths", rebound_names);
    oom_test_run("device: rows of an output, loops that rebind", rows_and_loops);
    oom_test_run("device: a name of the enclosing function", enclosing_function);
    oom_test_run("device: modules that stay on the host", modules_on_the_host);
    oom_test_run("device: forwards on small synthetic inputs", synthetic_inputs);
    oom_test_run("device: code a run-time test decides", decided_by_a_call);
}

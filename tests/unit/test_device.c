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
 * placed by nothing there runs on the host; moved, handed to a wrapper, or
 * built elsewhere, it may be on the GPU. */
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
                              "def g(x):\n    m = nn.Linear(4, 4, device='cuda')\n    m(x_g)\n");
    CHECK(oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_a)")));
    CHECK(oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_b)")));
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_c)")));
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_d)")));
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_e)")));
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_f)")));
    CHECK(!oom_pymodel_forward_on_host(p.model, oom_test_node_at(&p, "m(x_g)")));
    oom_test_parsed_free(&p);
}

void test_device_suite(void)
{
    oom_test_run("device: model outputs and their host copies", outputs_and_host_copies);
    oom_test_run("device: names rebound on some paths", rebound_names);
    oom_test_run("device: rows of an output, loops that rebind", rows_and_loops);
    oom_test_run("device: a name of the enclosing function", enclosing_function);
    oom_test_run("device: modules that stay on the host", modules_on_the_host);
}

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

void test_device_suite(void)
{
    oom_test_run("device: model outputs and their host copies", outputs_and_host_copies);
    oom_test_run("device: names rebound on some paths", rebound_names);
    oom_test_run("device: rows of an output, loops that rebind", rows_and_loops);
    oom_test_run("device: a name of the enclosing function", enclosing_function);
}

/* model/grad: where autograd is on, off, or switched by a variable. */
#include "harness.h"

static void grad_mode(void)
{
    parsed p = oom_test_parse("import torch\n"
                     "def a(m, x):\n    with torch.no_grad():\n        y1 = m(x)\n    y2 = m(x)\n"
                     "@torch.inference_mode\ndef b(m, x):\n    y3 = m(x)\n"
                     "def c(m, x, train):\n    with torch.set_grad_enabled(train):\n        y4 = m(x)\n"
                     "def d(m, x):\n    torch.set_grad_enabled(False)\n    y5 = m(x)\n"
                     "def e(m, x):\n    with torch.no_grad():\n        with torch.enable_grad():\n"
                     "            y6 = m(x)\n"
                     "def f(m, x):\n    y7 = m(x)\n    torch.no_grad().__enter__()\n    y8 = m(x)\n"
                     "def g(m, x):\n    y9 = m(x)\n");
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "y1")) == OOM_GRAD_DISABLED);
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "y2")) == OOM_GRAD_ENABLED);
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "y3")) == OOM_GRAD_DISABLED);
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "y4")) == OOM_GRAD_MAYBE_DISABLED);
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "y5")) == OOM_GRAD_DISABLED);
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "y6")) == OOM_GRAD_ENABLED);
    /* a context entered by hand and never left: off to the end of the function */
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "y7")) == OOM_GRAD_ENABLED);
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "y8")) == OOM_GRAD_DISABLED);
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "y9")) == OOM_GRAD_ENABLED);
    oom_test_parsed_free(&p);
}

/* A function only ever called under no_grad runs with grad off; one called
 * from both kinds of place does not. */
static void callees_of_no_grad_code(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "def score(model, x):\n    out_a = model(x)\n    return out_a\n"
                              "def step(model, x):\n    out_b = model(x)\n    return out_b\n"
                              "def run(model, x):\n    with torch.no_grad():\n        score(model, x)\n        step(model, x)\n"
                              "    step(model, x).sum().backward()\n");
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "out_a")) == OOM_GRAD_DISABLED);
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "out_b")) == OOM_GRAD_ENABLED);
    oom_test_parsed_free(&p);
    /* four levels down, the third reached through functools.partial */
    p = oom_test_parse("import torch\nfrom functools import partial\n"
                       "def rollout(policy, env):\n    out_c = policy(env)\n    return out_c\n"
                       "def eval_one(policy, env):\n    return rollout(policy, env)\n"
                       "def run_one(env, policy):\n    return eval_one(policy, env)\n"
                       "def eval_all(envs, policy):\n    runner = partial(run_one, policy=policy)\n"
                       "    for env in envs:\n        runner(env)\n"
                       "def main(envs, policy):\n    with torch.no_grad():\n        eval_all(envs, policy)\n");
    CHECK(oom_pymodel_grad_state(p.model, oom_test_node_at(&p, "out_c")) == OOM_GRAD_DISABLED);
    oom_test_parsed_free(&p);
}

/* A value computed under no_grad and read after the block carries no graph;
 * one rebound with grad on in a branch that reaches the read does. */
static void values_from_no_grad_blocks(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "def f(model, x, flag, losses):\n"
                              "    with torch.no_grad():\n        out = model(x)\n"
                              "    first = out.loss\n"
                              "    if flag:\n        out = model(x)\n"
                              "    second = out.loss\n"
                              "    losses.append(first)\n    losses.append(second)\n");
    CHECK(!oom_pymodel_carries_graph(p.model, ts_node_child_by_field_name(oom_test_node_at(&p, "first = out.loss"), "right", 5)));
    CHECK(oom_pymodel_carries_graph(p.model, ts_node_child_by_field_name(oom_test_node_at(&p, "second = out.loss"), "right", 5)));
    oom_test_parsed_free(&p);
}

/* A loss of predictions made under no_grad has no graph; the same loss of
 * a live forward, or of a helper's parameter the model cannot see into,
 * is taken to have one. */
static void losses_of_no_grad_values(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "import torch.nn.functional as F\n"
                              "def f(model, criterion, x, y):\n"
                              "    with torch.no_grad():\n        logits = model(x)\n"
                              "    a = criterion(logits, y)\n    b = F.cross_entropy(logits.float(), y)\n"
                              "    c = criterion(model(x), y)\n"
                              "def g(criterion, pred, y):\n    d = criterion(pred, y)\n");
    CHECK(!oom_pymodel_carries_graph(p.model, ts_node_child_by_field_name(oom_test_node_at(&p, "a = criterion(logits, y)"), "right", 5)));
    CHECK(!oom_pymodel_carries_graph(p.model, ts_node_child_by_field_name(oom_test_node_at(&p, "b = F.cross_entropy(logits.float(), y)"), "right", 5)));
    CHECK(oom_pymodel_carries_graph(p.model, ts_node_child_by_field_name(oom_test_node_at(&p, "c = criterion(model(x), y)"), "right", 5)));
    CHECK(oom_pymodel_carries_graph(p.model, ts_node_child_by_field_name(oom_test_node_at(&p, "d = criterion(pred, y)"), "right", 5)));
    oom_test_parsed_free(&p);
}

/* A module frozen where it is built (`copy.deepcopy(G).eval().requires_grad_(False)`)
 * makes no graph of its own; one thawed later in the file is not frozen. */
static void frozen_where_built(void)
{
    parsed p = oom_test_parse("import copy\n"
                              "def a(G, z):\n    g = copy.deepcopy(G).eval().requires_grad_(False).cuda()\n    g(z_a)\n"
                              "def b(G, z):\n    g = G.requires_grad_(True)\n    g(z_b)\n"
                              "def c(D, x):\n    d = D.requires_grad_(False)\n    d.requires_grad_(True)\n    d(x_c)\n"
                              "def e(G, z):\n    g = copy.deepcopy(G).eval()\n    g(z_e)\n");
    CHECK(!oom_pymodel_carries_graph(p.model, oom_test_node_at(&p, "g(z_a)")));
    CHECK(oom_pymodel_carries_graph(p.model, oom_test_node_at(&p, "g(z_b)")));
    CHECK(oom_pymodel_carries_graph(p.model, oom_test_node_at(&p, "d(x_c)")));
    CHECK(oom_pymodel_carries_graph(p.model, oom_test_node_at(&p, "g(z_e)")));
    oom_test_parsed_free(&p);
}

/* retain_graph in a loop costs memory only when each iteration builds the
 * graph it differentiates. */
static void graph_built_each_iteration(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "def a(model, loader, opt):\n    for x in loader:\n        loss = model(x)\n"
                              "        loss.backward(retain_graph=True)\n"
                              "def b(losses, out):\n    for name, l in losses.items():\n"
                              "        torch.autograd.grad(l, out, retain_graph=True)\n"
                              "def c(y, x):\n    for j in range(3):\n        torch.autograd.grad(y[:, j], x, retain_graph=True)\n"
                              "def d(acc, model, loader):\n    for x in loader:\n        l2 = model(x)\n"
                              "        acc.backward(l2, retain_graph=True)\n"
                              "def e(model, loader, f):\n    for x in loader:\n        f().backward(retain_graph=True)\n"
                              "def g(model, loader):\n    kept = []\n    while True:\n        kept.append(model(loader))\n"
                              "        kept[-1].backward(retain_graph=True)\n");
    CHECK(oom_pymodel_graph_built_each_iteration(p.model, oom_test_node_at(&p, "loss.backward(retain_graph=True)")));
    CHECK(!oom_pymodel_graph_built_each_iteration(p.model, oom_test_node_at(&p, "torch.autograd.grad(l, out, retain_graph=True)")));
    CHECK(!oom_pymodel_graph_built_each_iteration(p.model, oom_test_node_at(&p, "torch.autograd.grad(y[:, j], x, retain_graph=True)")));
    CHECK(oom_pymodel_graph_built_each_iteration(p.model, oom_test_node_at(&p, "acc.backward(l2, retain_graph=True)")));
    CHECK(oom_pymodel_graph_built_each_iteration(p.model, oom_test_node_at(&p, "f().backward(retain_graph=True)")));
    CHECK(oom_pymodel_graph_built_each_iteration(p.model, oom_test_node_at(&p, "kept[-1].backward(retain_graph=True)")));
    oom_test_parsed_free(&p);
}

void test_grad_suite(void)
{
    oom_test_run("grad: a graph built in each iteration of a loop", graph_built_each_iteration);
    oom_test_run("grad: grad mode regions", grad_mode);
    oom_test_run("grad: callees of no-grad code only, through levels and partial()", callees_of_no_grad_code);
    oom_test_run("grad: values from no-grad blocks, and a branch that rebinds them", values_from_no_grad_blocks);
    oom_test_run("grad: losses of values computed under no_grad", losses_of_no_grad_values);
    oom_test_run("grad: a module frozen where it is built", frozen_where_built);
}

/* model/loops, and the model's other answers about whether a call runs on
 * every step: what one iteration of the innermost loop does (a generation,
 * a retry, a release only, a measurement of the cache, a checkpoint walk),
 * branches the file's constants rule out (values.c), modules frozen before
 * (grad.c), and a model output's per-layer tuples leaving their function
 * (storage.c). */
#include "harness.h"

static const char *const releases[] = {"gc.collect", "torch.cuda.empty_cache"};
static const char *const cache_size[] = {"torch.cuda.memory_reserved", "torch.cuda.mem_get_info"};
static const char *const loads[] = {"torch.load", "safetensors.torch.load_file"};

/* generate() in the body, in a method the body calls, in a module function
 * two calls deep; not a forward per batch, not generate() before the loop. */
static void loop_generates(void)
{
    parsed p = oom_test_parse("import torch\nfrom lib import generate\n"
                              "def gen(model, ids):\n    return inner(model, ids)\n"
                              "def inner(model, ids):\n    return generate(model=model, prompt=ids)\n"
                              "class R:\n    def traj(self, ids):\n        return self.model.generate(ids)\n"
                              "    def run(self, batches):\n        for b in batches:\n            self.traj(b)\n"
                              "            torch.cuda.empty_cache()  # a\n"
                              "def f(model, batches):\n    for b in batches:\n        gen(model, b)\n"
                              "        torch.cuda.empty_cache()  # b\n"
                              "    for b in batches:\n        model(b).logits.argmax(-1)\n"
                              "        torch.cuda.empty_cache()  # c\n"
                              "    out = model.generate(batches[0])\n    for b in batches:\n"
                              "        torch.cuda.empty_cache()  # d\n");
    CHECK(oom_pymodel_loop_generates(p.model, oom_test_node_at(&p, "torch.cuda.empty_cache()  # a")));
    CHECK(oom_pymodel_loop_generates(p.model, oom_test_node_at(&p, "torch.cuda.empty_cache()  # b")));
    CHECK(!oom_pymodel_loop_generates(p.model, oom_test_node_at(&p, "torch.cuda.empty_cache()  # c")));
    CHECK(!oom_pymodel_loop_generates(p.model, oom_test_node_at(&p, "torch.cuda.empty_cache()  # d")));
    oom_test_parsed_free(&p);
}

/* The loop repeats only after an exception: the try body returns or its
 * else breaks. Not a try whose body falls through to the next batch, not a
 * try without handlers, not the handler itself (that is in-except). */
static void retry_attempt(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "def a(run, n):\n    while n:\n        try:\n            torch.cuda.empty_cache()  # a\n"
                              "            return run(n)\n        except RuntimeError:\n            n //= 2\n"
                              "def b(run, n):\n    while True:\n        try:\n            torch.cuda.empty_cache()  # b\n"
                              "            run(n)\n        except RuntimeError:\n            n //= 2\n        else:\n            break\n"
                              "def c(step, loader):\n    for x in loader:\n        try:\n            torch.cuda.empty_cache()  # c\n"
                              "            step(x)\n        except RuntimeError:\n            pass\n"
                              "def d(step, loader):\n    for x in loader:\n        try:\n            torch.cuda.empty_cache()  # d\n"
                              "            return step(x)\n        finally:\n            pass\n");
    CHECK(oom_pymodel_in_retry_attempt(p.model, oom_test_node_at(&p, "torch.cuda.empty_cache()  # a")));
    CHECK(oom_pymodel_in_retry_attempt(p.model, oom_test_node_at(&p, "torch.cuda.empty_cache()  # b")));
    CHECK(!oom_pymodel_in_retry_attempt(p.model, oom_test_node_at(&p, "torch.cuda.empty_cache()  # c")));
    CHECK(!oom_pymodel_in_retry_attempt(p.model, oom_test_node_at(&p, "torch.cuda.empty_cache()  # d")));
    oom_test_parsed_free(&p);
}

/* Only releases; reads the cache's size; walks a loaded checkpoint. */
static void loop_bodies(void)
{
    parsed p = oom_test_parse("import gc\nimport torch\nfrom safetensors.torch import load_file\n"
                              "def a(model):\n    for _ in range(3):\n        gc.collect()\n"
                              "        torch.cuda.empty_cache()  # a\n"
                              "    for _ in range(3):\n        model.step()\n        torch.cuda.empty_cache()  # b\n"
                              "def c(ops, x):\n    for op in ops:\n        op(x)\n        r = torch.cuda.memory_reserved()\n"
                              "        torch.cuda.empty_cache()  # c\n"
                              "    for op in ops:\n        op(x)\n        r = torch.cuda.memory_allocated()\n"
                              "        torch.cuda.empty_cache()  # d\n"
                              "def e(path, model):\n    sd = load_file(path)\n    for k, v in sd.items():\n"
                              "        torch.cuda.empty_cache()  # e\n"
                              "    for k, v in model.state_dict().items():\n        torch.cuda.empty_cache()  # f\n");
    oom_buf b;
    oom_buf_init(&b);
    TSNode at_a = oom_test_node_at(&p, "torch.cuda.empty_cache()  # a"), at_b = oom_test_node_at(&p, "torch.cuda.empty_cache()  # b");
    TSNode at_c = oom_test_node_at(&p, "torch.cuda.empty_cache()  # c"), at_d = oom_test_node_at(&p, "torch.cuda.empty_cache()  # d");
    TSNode at_e = oom_test_node_at(&p, "torch.cuda.empty_cache()  # e"), at_f = oom_test_node_at(&p, "torch.cuda.empty_cache()  # f");
    CHECK(oom_pymodel_loop_only_calls(p.model, at_a, releases, 2, &b));
    CHECK(!oom_pymodel_loop_only_calls(p.model, at_b, releases, 2, &b));
    CHECK(oom_pymodel_loop_calls(p.model, at_c, cache_size, 2, &b));
    CHECK(!oom_pymodel_loop_calls(p.model, at_d, cache_size, 2, &b));
    CHECK(oom_pymodel_loop_iterates_built_by(p.model, at_e, loads, 2, &b));
    CHECK(!oom_pymodel_loop_iterates_built_by(p.model, at_f, loads, 2, &b));
    oom_buf_free(&b);
    oom_test_parsed_free(&p);
}

/* `num_gpus = 1` bound once rules out `if num_gpus > 1:`; a second binding,
 * a global statement, or a true condition does not. */
static void never_runs(void)
{
    parsed p = oom_test_parse("num_gpus = 1\nn = 2\nn = 3\n"
                              "def f(dev, m):\n    if dev == 'cuda' and num_gpus > 1:\n        m = wrap(m)  # a\n"
                              "    if not (num_gpus == 1):\n        m = wrap(m)  # b\n"
                              "    if num_gpus > 0:\n        m = wrap(m)  # c\n    else:\n        m = wrap(m)  # d\n"
                              "    if n > 1:\n        m = wrap(m)  # e\n"
                              "    if dev or num_gpus > 1:\n        m = wrap(m)  # g\n"
                              "def g():\n    global num_gpus\n    num_gpus = 4\n");
    parsed q = oom_test_parse("num_gpus = 1\n"
                              "def f(dev, m):\n    if dev == 'cuda' and num_gpus > 1:\n        m = wrap(m)  # a\n"
                              "    if not (num_gpus == 1):\n        m = wrap(m)  # b\n"
                              "    if num_gpus > 0:\n        m = wrap(m)  # c\n    else:\n        m = wrap(m)  # d\n"
                              "    if dev or num_gpus > 1:\n        m = wrap(m)  # g\n");
    CHECK(!oom_pymodel_never_runs(p.model, oom_test_node_at(&p, "m = wrap(m)  # a"))); /* global num_gpus */
    CHECK(!oom_pymodel_never_runs(p.model, oom_test_node_at(&p, "m = wrap(m)  # e")));
    CHECK(oom_pymodel_never_runs(q.model, oom_test_node_at(&q, "m = wrap(m)  # a")));
    CHECK(oom_pymodel_never_runs(q.model, oom_test_node_at(&q, "m = wrap(m)  # b")));
    CHECK(!oom_pymodel_never_runs(q.model, oom_test_node_at(&q, "m = wrap(m)  # c")));
    CHECK(oom_pymodel_never_runs(q.model, oom_test_node_at(&q, "m = wrap(m)  # d")));
    CHECK(!oom_pymodel_never_runs(q.model, oom_test_node_at(&q, "m = wrap(m)  # g")));
    oom_test_parsed_free(&p);
    oom_test_parsed_free(&q);
}

/* The conditions a may-run answer leaves for the project pass, read after
 * asking about the line marked `mark`. */
static bool may_run(const parsed *p, const char *mark, oom_buf *conditions)
{
    oom_buf_clear(conditions);
    oom_pymodel_collect_conditions(p->model, conditions);
    bool runs = oom_pymodel_may_run(p->model, oom_test_node_at(p, mark));
    oom_pymodel_collect_conditions(p->model, NULL);
    return runs;
}

/* `if P:` with P a parameter off by default: the answer is "may run", on
 * the condition that a call elsewhere passes P (no call here does: the
 * callee as calls spell it, the constructor's class, P's position after
 * self); no condition where a call here passes P by keyword, by position or
 * through a splat, or where the default is on. */
static void branches_off_by_default(void)
{
    parsed p = oom_test_parse("class Actor:\n    def __init__(self, path, q4=False):\n        if q4:\n            a = 1\n"
                              "def f(x, q4=None):\n    if q4:\n        b = 1\n"
                              "def g(x, q4=False):\n    if q4:\n        c = 1\n"
                              "def h(x, q4=False):\n    if q4:\n        d = 1\n"
                              "def k(x, q4=True):\n    if q4:\n        e = 1\n"
                              "def l(x, *rest, q4=0):\n    if q4:\n        w = 1\n"
                              "f(1)\ng(1, q4=True)\nh(1, True)\nl(**opts)\n");
    oom_buf c;
    oom_buf_init(&c);
    CHECK(may_run(&p, "a = 1", &c));
    CHECK(c.data && strcmp(c.data, "nopass\tActor\tq4\t1") == 0);
    CHECK(may_run(&p, "b = 1", &c));
    CHECK(c.data && strcmp(c.data, "nopass\tf\tq4\t1") == 0);
    CHECK(may_run(&p, "c = 1", &c) && c.len == 0);
    CHECK(may_run(&p, "d = 1", &c) && c.len == 0);
    CHECK(may_run(&p, "e = 1", &c) && c.len == 0);
    CHECK(may_run(&p, "w = 1", &c) && c.len == 0);
    oom_buf_free(&c);
    oom_test_parsed_free(&p);
}

static TSNode call_in(const parsed *p, const char *text)
{
    TSNode n = oom_test_node_at(p, text);
    while (!ts_node_is_null(n) && strcmp(ts_node_type(n), "call") != 0)
        n = ts_node_parent(n);
    return n;
}

/* Whether the module wrapped by the call on the line marked `mark` is frozen. */
static bool wrapped_frozen(const parsed *p, const char *mark)
{
    TSNode call = call_in(p, mark);
    TSNode arg = ts_node_named_child(ts_node_child_by_field_name(call, "arguments", 9), 0);
    return oom_pymodel_frozen_before(p->model, arg, call);
}

/* Frozen by a parameters loop (under an `if`), by requires_grad_(False),
 * for a submodule of the frozen module; not when the loop also turns grad
 * on, not for the whole model after only its backbone was frozen, not
 * when a later statement turns it back on. */
static void frozen_before(void)
{
    parsed p = oom_test_parse("def a(model, DP):\n    for name, p in model.named_parameters():\n"
                              "        if name not in ['fc.weight', 'fc.bias']:\n            p.requires_grad = False\n"
                              "    x = DP(model, 1)\n    y = DP(model.features, 2)\n"
                              "def b(model, DP, freeze):\n    for k, v in model.named_parameters():\n        v.requires_grad = True\n"
                              "        if k in freeze:\n            v.requires_grad = False\n    z = DP(model, 3)\n"
                              "def c(model, DP):\n    for p in model.backbone.parameters():\n        p.requires_grad = False\n"
                              "    w = DP(model, 4)\n    v = DP(model.backbone, 5)\n"
                              "def d(enc, DP):\n    enc.requires_grad_(False)\n    u = DP(enc, 6)\n    enc.requires_grad_(True)\n"
                              "    t = DP(enc, 7)\n");
    CHECK(wrapped_frozen(&p, "1)"));
    CHECK(wrapped_frozen(&p, "2)"));
    CHECK(!wrapped_frozen(&p, "3)"));
    CHECK(!wrapped_frozen(&p, "4)"));
    CHECK(wrapped_frozen(&p, "5)"));
    CHECK(wrapped_frozen(&p, "6)"));
    CHECK(!wrapped_frozen(&p, "7)"));
    oom_test_parsed_free(&p);
    /* a parameter frozen by every call of its function in the file (two
     * levels up); not when one call hands it a trainable module, not when
     * the file never calls the function, not for a method's parameter */
    parsed q = oom_test_parse("def inner(net, DP):\n    a = DP(net, 11)\n"
                              "def outer(model, DP):\n    inner(model, DP)\n"
                              "def mixed(net, DP):\n    b = DP(net, 12)\n"
                              "def never(net, DP):\n    c = DP(net, 13)\n"
                              "class K:\n    def m(self, net, DP):\n        d = DP(net, 14)\n"
                              "def main(DP, Net):\n    frozen = Net()\n    frozen.requires_grad_(False)\n"
                              "    outer(frozen, DP)\n    mixed(frozen, DP)\n    live = Net()\n    mixed(live, DP)\n"
                              "    K().m(frozen, DP)\n");
    CHECK(wrapped_frozen(&q, "11)"));
    CHECK(!wrapped_frozen(&q, "12)"));
    CHECK(!wrapped_frozen(&q, "13)"));
    CHECK(!wrapped_frozen(&q, "14)"));
    oom_test_parsed_free(&q);
}

/* One tensor taken out and the rest dropped, in a function without a
 * backward: the layers die with it. Returned, stored, passed on, stacked,
 * or in the function that runs backward: they may outlive it. */
static void output_layers_escape(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "def a(enc, xa):\n    e = enc(xa, output_hidden_states=True, return_dict=False)\n"
                              "    pooled = e[0]\n    e = e[-1][-2]\n    return e, pooled\n"
                              "def b(model, xb):\n    _, _, values = model(xb, output_hidden_states=True)\n"
                              "    c, r = torch.split(values, 2)\n    return c - r\n"
                              "def c(model, xc):\n    return model(xc, output_hidden_states=True).logits\n"
                              "def d(model, xd):\n    out = model(xd, output_hidden_states=True)\n    return out\n"
                              "def e(self, xe):\n    out = self.model(xe, output_hidden_states=True)\n    self.last = out\n"
                              "def f(model, xf):\n    out = model(xf, output_hidden_states=True)\n"
                              "    return torch.stack(out.hidden_states).mean(0)\n"
                              "def g(model, xg):\n    out = model(xg, output_hidden_states=True)\n"
                              "    out.loss.backward()\n"
                              "def h(model, xh, log):\n    out = model(xh, output_hidden_states=True)\n    log(out)\n"
                              "    return out.hidden_states[-1].mean()\n"
                              "out = model(xi, output_hidden_states=True)\n");
    CHECK(!oom_pymodel_output_layers_escape(p.model, call_in(&p, "xa, output_hidden_states")));
    CHECK(!oom_pymodel_output_layers_escape(p.model, call_in(&p, "xb, output_hidden_states")));
    CHECK(!oom_pymodel_output_layers_escape(p.model, call_in(&p, "xc, output_hidden_states")));
    CHECK(oom_pymodel_output_layers_escape(p.model, call_in(&p, "xd, output_hidden_states")));
    CHECK(oom_pymodel_output_layers_escape(p.model, call_in(&p, "xe, output_hidden_states")));
    CHECK(oom_pymodel_output_layers_escape(p.model, call_in(&p, "xf, output_hidden_states")));
    CHECK(oom_pymodel_output_layers_escape(p.model, call_in(&p, "xg, output_hidden_states")));
    CHECK(oom_pymodel_output_layers_escape(p.model, call_in(&p, "xh, output_hidden_states")));
    CHECK(oom_pymodel_output_layers_escape(p.model, call_in(&p, "xi, output_hidden_states")));
    oom_test_parsed_free(&p);
}

void test_loops_suite(void)
{
    oom_test_run("loops: an iteration that runs a whole generation", loop_generates);
    oom_test_run("loops: an attempt repeated only after an exception", retry_attempt);
    oom_test_run("loops: bodies that only release, read the cache's size, walk a checkpoint", loop_bodies);
    oom_test_run("values: branches the file's fixed integers rule out", never_runs);
    oom_test_run("values: branches behind a parameter off by default", branches_off_by_default);
    oom_test_run("grad: modules frozen before a call", frozen_before);
    oom_test_run("storage: a model output's per-layer tuples leaving their function", output_layers_escape);
}

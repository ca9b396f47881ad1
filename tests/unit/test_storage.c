/* model/storage: loops and the storage that outlives them, what flows into a
 * backward or a function's result, names declared outside the function. */
#include "harness.h"

static TSNode store_of(const parsed *p, const char *call)
{
    TSNode c = oom_test_node_at(p, call);
    TSNode fn = ts_node_child_by_field_name(c, "function", 8);
    return ts_node_child_by_field_name(fn, "object", 6);
}

/* A list bound before the loop outlives each iteration; one bound inside
 * it is made afresh each time; self.history always outlives it. */
static void outlives_iteration(void)
{
    parsed p = oom_test_parse("def f(model, loader):\n    kept = []\n"
                              "    for x in loader:\n        fresh = []\n        kept.append(x_1)\n"
                              "        fresh.append(x_2)\n        self.history.append(x_3)\n");
    TSNode kept = oom_test_node_at(&p, "kept.append(x_1)"), fresh = oom_test_node_at(&p, "fresh.append(x_2)");
    TSNode hist = oom_test_node_at(&p, "self.history.append(x_3)");
    CHECK(oom_pymodel_in_loop(p.model, kept));
    CHECK(oom_pymodel_outlives_iteration(p.model, store_of(&p, "kept.append(x_1)"), kept));
    CHECK(!oom_pymodel_outlives_iteration(p.model, store_of(&p, "fresh.append(x_2)"), fresh));
    CHECK(oom_pymodel_outlives_iteration(p.model, store_of(&p, "self.history.append(x_3)"), hist));
    oom_test_parsed_free(&p);
}

/* Stacked into what backward is called on, in the same function. */
static void backpropagated(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "def f(policy, states, opt):\n    log_probs = []\n    other = []\n"
                              "    for s in states:\n        log_probs.append(policy(s))\n        other.append(policy(s))\n"
                              "    loss = -torch.stack(log_probs).sum()\n    loss.backward()\n");
    CHECK(oom_pymodel_is_backpropagated(p.model, store_of(&p, "log_probs.append(policy(s))")));
    CHECK(!oom_pymodel_is_backpropagated(p.model, store_of(&p, "other.append(policy(s))")));
    oom_test_parsed_free(&p);
}

/* A batch run in chunks and put back together for the caller; not when the
 * loop goes through a loader, calls backward, or collects logits. */
static void chunked_output(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "def a(model, x, n):\n    outs = []\n    for i in range(n):\n        outs.append(model(x_a))\n"
                              "    return torch.cat(outs)\n"
                              "def b(model, loader):\n    outs = []\n    for x in loader:\n        outs.append(model(x_b))\n"
                              "    return torch.cat(outs)\n"
                              "def c(model, x):\n    all_logits = []\n    for part in x.split(4):\n"
                              "        logits = model(part).logits\n        all_logits.append(logits)\n"
                              "    return torch.cat(all_logits)\n");
    TSNode a = oom_test_node_at(&p, "outs.append(model(x_a))"), b = oom_test_node_at(&p, "outs.append(model(x_b))");
    TSNode c = oom_test_node_at(&p, "all_logits.append(logits)");
    CHECK(oom_pymodel_is_chunked_output(p.model, store_of(&p, "outs.append(model(x_a))"), a));
    CHECK(!oom_pymodel_is_chunked_output(p.model, store_of(&p, "outs.append(model(x_b))"), b));
    CHECK(!oom_pymodel_is_chunked_output(p.model, store_of(&p, "all_logits.append(logits)"), c));
    oom_test_parsed_free(&p);
    /* one output per part of a model, combined into the name returned */
    p = oom_test_parse("import torch\n"
                       "def d(text_encoders, tokenizers, ids):\n    embs = []\n"
                       "    for tok, enc in zip(tokenizers, text_encoders):\n        embs.append(enc(ids_d))\n"
                       "    e = torch.concat(embs, dim=-1)\n    return {'e': e.cpu()}\n"
                       "def e(text_encoders, ids):\n    embs = []\n"
                       "    for enc in text_encoders:\n        embs.append(enc(ids_e))\n    return embs\n");
    TSNode d = oom_test_node_at(&p, "embs.append(enc(ids_d))"), e = oom_test_node_at(&p, "embs.append(enc(ids_e))");
    CHECK(oom_pymodel_is_chunked_output(p.model, store_of(&p, "embs.append(enc(ids_d))"), d));
    CHECK(!oom_pymodel_is_chunked_output(p.model, store_of(&p, "embs.append(enc(ids_e))"), e));
    oom_test_parsed_free(&p);
    /* one tensor cut along a dimension and put together after the loop;
     * a range over a dataset's length is not */
    p = oom_test_parse("import torch\n"
                       "def f(model, ids, n):\n    parts = []\n    for i in range(0, ids.size(1), n):\n"
                       "        parts.append(model(ids_f))\n    total = torch.stack(parts).sum(0)\n    print(total)\n"
                       "def g(model, data, n):\n    parts = []\n    for i in range(0, len(data), n):\n"
                       "        parts.append(model(ids_g))\n    total = torch.stack(parts).sum(0)\n    print(total)\n");
    TSNode f = oom_test_node_at(&p, "parts.append(model(ids_f))"), g = oom_test_node_at(&p, "parts.append(model(ids_g))");
    CHECK(oom_pymodel_is_chunked_output(p.model, store_of(&p, "parts.append(model(ids_f))"), f));
    CHECK(!oom_pymodel_is_chunked_output(p.model, store_of(&p, "parts.append(model(ids_g))"), g));
    oom_test_parsed_free(&p);
}

/* `global` / `nonlocal` in the function itself, not in a nested one. */
static void declared_outside(void)
{
    parsed p = oom_test_parse("total = 0\nseen = 0\n"
                              "def step(loss):\n    global total, seen\n    total += loss\n"
                              "def outer():\n    acc = 0\n    def inner(loss):\n        nonlocal acc\n        acc += loss\n"
                              "    acc_outer = acc\n"
                              "def other(loss):\n    totally = 0\n    totally += loss\n");
    CHECK(oom_pymodel_declared_outside(p.model, ts_node_child_by_field_name(oom_test_node_at(&p, "total += loss"), "left", 4)));
    CHECK(oom_pymodel_declared_outside(p.model, ts_node_child_by_field_name(oom_test_node_at(&p, "acc += loss"), "left", 4)));
    CHECK(!oom_pymodel_declared_outside(p.model, ts_node_child_by_field_name(oom_test_node_at(&p, "totally += loss"), "left", 4)));
    oom_test_parsed_free(&p);
}

/* A total set afresh later in the loop that adds to it, a loop that calls
 * backward: one window of steps. Not when only an outer loop resets it, not
 * in a loop without backward, not for the accumulation written out. */
static void reset_each_window(void)
{
    parsed p = oom_test_parse("def f(model, loader, opt, n):\n    run = 0\n    metrics = {'a': 0}\n    ep = 0\n"
                              "    for i, b in enumerate(loader):\n        loss = model(b)\n"
                              "        run += loss\n        metrics['a'] += loss\n        ep = ep + loss\n        loss.backward()\n"
                              "        if (i + 1) % n == 0:\n            opt.step()\n            run = 0\n"
                              "            metrics = {k: 0 for k in metrics}\n            ep = ep + 0\n"
                              "def g(model, loader, n):\n    w = 0\n    for i, b in enumerate(loader):\n"
                              "        w += model(b)\n        if i % n == 0:\n            w = 0\n");
    TSNode run = oom_test_node_at(&p, "run += loss"), metric = oom_test_node_at(&p, "metrics['a'] += loss");
    TSNode ep = oom_test_node_at(&p, "ep = ep + loss"), w = oom_test_node_at(&p, "w += model(b)");
    CHECK(oom_pymodel_is_reset_each_window(p.model, ts_node_child_by_field_name(run, "left", 4), run));
    CHECK(oom_pymodel_is_reset_each_window(p.model, ts_node_child_by_field_name(metric, "left", 4), metric));
    CHECK(!oom_pymodel_is_reset_each_window(p.model, ts_node_child_by_field_name(ep, "left", 4), ep));
    CHECK(!oom_pymodel_is_reset_each_window(p.model, ts_node_child_by_field_name(w, "left", 4), w));
    oom_test_parsed_free(&p);
}

void test_storage_suite(void)
{
    oom_test_run("storage: what outlives a loop iteration", outlives_iteration);
    oom_test_run("storage: stacked into the backpropagated loss", backpropagated);
    oom_test_run("storage: a batch run in chunks, or a model's parts, and returned combined", chunked_output);
    oom_test_run("storage: names declared global or nonlocal", declared_outside);
    oom_test_run("storage: a total set afresh each accumulation window", reset_each_window);
}

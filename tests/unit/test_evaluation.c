/* model/evaluation: which forwards are evaluation code, by what the code
 * does, never by a name. */
#include "harness.h"

static bool eval_at(const parsed *p, const char *call)
{
    return oom_pymodel_is_eval_code(p->model, oom_test_node_at(p, call));
}

/* A name orders the search, the dataflow settles it: a function called
 * evaluate whose forward's result goes nowhere shows no evaluation, one that
 * turns it into numbers does; a helper doing the same outside a training
 * function is not looked at; a backward makes either training; a test
 * function is a test. */
static void names_order_the_search(void)
{
    parsed p = oom_test_parse("import pytest\n"
                              "def evaluate(model, loader):\n    for x in loader:\n        model(x_a)\n"
                              "def evaluate_acc(model, loader):\n    for x in loader:\n        print(model(x_n).argmax(-1).tolist())\n"
                              "def helper(model, loader):\n    for x in loader:\n        print(model(x_h).argmax(-1).tolist())\n"
                              "def validate_and_tune(model, x):\n    model(x_b).sum().backward()\n"
                              "def test_forward(model):\n    print(model(x_c).item())\n");
    CHECK(!eval_at(&p, "model(x_a)"));
    CHECK(eval_at(&p, "model(x_n)"));
    CHECK(!eval_at(&p, "model(x_h)"));
    CHECK(!eval_at(&p, "model(x_b)"));
    CHECK(!eval_at(&p, "model(x_c)"));
    oom_test_parsed_free(&p);
}

/* The dataflow settles it: one forward handed back (returned as it is,
 * through assignments, in a list, or stored on self) is the caller's to
 * judge; turned into numbers on the way out, it is evaluation code
 * (detached, it may be a target the caller trains on); handed to a callee (`self.buffer.append(out)`, `helper(loss)`) it is
 * not known; a backward that reads it, or an own method that runs one, is
 * training. */
static void by_where_the_result_goes(void)
{
    parsed p = oom_test_parse("def evaluate_actions(net, obs, a):\n    logits, v = net(obs_r)\n"
                              "    d = dist(logits)\n    return v, d.log_prob(a)\n"
                              "def predict(net, x):\n    return net(x_r).softmax(-1)\n"
                              "def infer(self, x):\n    self.out = self.net(x_s)\n"
                              "def evaluate(net, x, y):\n    out = net(x_n)\n    return (out.argmax(-1) == y).float().mean().item()\n"
                              "def score(net, x):\n    out = net(x_i)\n    return out.detach().cpu().numpy()\n"
                              "def predict_targets(net, x):\n    return net(x_t).detach()\n"
                              "def evaluate_all(net, loader):\n    return [net(x_l) for x_l in loader]\n"
                              "def predict_batch(net, x, flag):\n    scores, _ = net(x_c)\n"
                              "    if flag:\n        scores = [s.cpu().detach().numpy() for s in scores]\n"
                              "    else:\n        scores = scores.cpu().detach().numpy()\n    return scores\n"
                              "def eval_keep(self, net, x):\n    out = net(x_k)\n    self.buffer.append(out)\n    print(out.shape)\n"
                              "def eval_hand(net, x):\n    loss = net(x_h).sum()\n    step(loss)\n    print(loss.item())\n"
                              "def eval_collect(net, loader):\n    outs = []\n    for x in loader:\n        outs.append(net(x_o))\n"
                              "    total = torch.cat(outs)\n    total.mean().backward()\n    print(total.sum().item())\n"
                              "class Loop:\n    def _run_batch(self, x):\n        self.model(x).sum().backward()\n"
                              "    def evaluate(self, loader):\n        for x in loader:\n            print(self._run_batch(x_b))\n");
    CHECK(!eval_at(&p, "net(obs_r)"));
    CHECK(!eval_at(&p, "net(x_r)"));
    CHECK(!eval_at(&p, "self.net(x_s)"));
    CHECK(eval_at(&p, "net(x_n)"));
    CHECK(eval_at(&p, "net(x_i)"));
    CHECK(!eval_at(&p, "net(x_t)"));
    CHECK(!eval_at(&p, "net(x_l)"));
    CHECK(eval_at(&p, "net(x_c)"));
    CHECK(!eval_at(&p, "net(x_k)"));
    CHECK(!eval_at(&p, "net(x_h)"));
    CHECK(!eval_at(&p, "net(x_o)"));
    CHECK(!eval_at(&p, "self._run_batch(x_b)"));
    oom_test_parsed_free(&p);
}

/* A loop without a backward beside the training loop of the same function
 * (after it, or in each epoch), whose results turn into numbers; the
 * training loop next to it is not evaluation, nor a forward beside a
 * backward, and a loader's name says nothing. */
static void by_behaviour(void)
{
    parsed p = oom_test_parse("def fit(model, train_loader, other, opt, epochs):\n"
                              "    for x, y in train_loader:\n        model(x_t).sum().backward()\n        opt.step()\n"
                              "    for x, y in other:\n        print(model(x_v).argmax(-1).tolist())\n"
                              "    for e in range(epochs):\n        for x in other:\n            print(model(x_e).item())\n"
                              "        model(x_u).sum().backward()\n"
                              "        print(model(x_w).item())\n"
                              "def loop(model, dataloaders):\n    for x in dataloaders[\"val\"]:\n        model(x_d)\n");
    CHECK(!eval_at(&p, "model(x_t)"));
    CHECK(eval_at(&p, "model(x_v)"));
    CHECK(eval_at(&p, "model(x_e)"));
    CHECK(!eval_at(&p, "model(x_w)"));
    CHECK(!eval_at(&p, "model(x_d)"));
    oom_test_parsed_free(&p);
}

/* `model.eval()` makes the next forwards of that model evaluation code, not
 * those of another model; and a backward after it means the eval mode is
 * there to train (a linear probe freezing its backbone's batch-norm
 * statistics), not to evaluate. */
static void by_mode(void)
{
    parsed p = oom_test_parse("def run(model, other, x):\n    model.eval()\n    model(x_e)\n    other(x_o)\n"
                              "def probe(backbone, head, x, opt):\n    backbone.eval()\n"
                              "    head(backbone(x_probe)).sum().backward()\n    opt.step()\n");
    CHECK(eval_at(&p, "model(x_e)"));
    CHECK(!eval_at(&p, "other(x_o)"));
    CHECK(!eval_at(&p, "backbone(x_probe)"));
    oom_test_parsed_free(&p);
    /* the backward after .eval() is in a helper of the file the result goes
     * to (a method through self., a function, two calls down): not evaluation;
     * a helper that only turns it into numbers is no backward */
    parsed q = oom_test_parse("import torch\n"
                              "class Prior:\n    def jac(self, loss):\n        return torch.autograd.grad(loss, self.ps)\n"
                              "    def fisher(self, x):\n        self.model.eval()\n        out = self.model(x_m)\n"
                              "        g = self.jac(out.sum())\n        self.model.train()\n        return g\n"
                              "def inner(loss):\n    loss.backward()\n"
                              "def outer(loss):\n    inner(loss)\n"
                              "def numbers(t):\n    return t.tolist()\n"
                              "def f(net, x):\n    net.eval()\n    outer(net(x_f).sum())\n"
                              "def g(net, x):\n    net.eval()\n    numbers(net(x_g))\n");
    CHECK(!eval_at(&q, "self.model(x_m)"));
    CHECK(!eval_at(&q, "net(x_f)"));
    CHECK(eval_at(&q, "net(x_g)"));
    oom_test_parsed_free(&q);
}

/* A shared loop the file calls with train=False where grad is on: its
 * unguarded forward is evaluation code; the one under `if train:` is not;
 * nor is a shared sampler's forward whose images it hands back (alone or in
 * the tuple it returns), which the caller may backpropagate. One whose result
 * a call turns into something else on the way out (`to_numpy(out)`) stays
 * evaluation code. */
static void by_mode_switch(void)
{
    parsed p = oom_test_parse("def iteration(model, loader, train=True):\n"
                              "    for x in loader:\n        out = model(x_s)\n"
                              "        if train:\n            model(x_g).sum().backward()\n"
                              "def sample(model, z, is_train=True):\n    model.train(is_train)\n"
                              "    images = model(z_t)\n    return images, z\n"
                              "def outputs(model, x, training):\n    model.train(training)\n"
                              "    out = model(x_n)\n    return to_numpy(out)\n"
                              "def evaluate(model, loader, z):\n    iteration(model, loader, train=False)\n"
                              "    print(sample(model, z, is_train=False)[0].mean().item())\n"
                              "    print(outputs(model, z, False))\n");
    CHECK(eval_at(&p, "model(x_s)"));
    CHECK(!eval_at(&p, "model(x_g)"));
    CHECK(!eval_at(&p, "model(z_t)"));
    CHECK(eval_at(&p, "model(x_n)"));
    oom_test_parsed_free(&p);
}

/* A model's forward, not a Lightning hook; a module-level helper every
 * call of which stands in a forward is part of it; one also called from a
 * training loop is not. */
static void forward_code(void)
{
    parsed p = oom_test_parse("import torch\nfrom torch import nn\n"
                              "def layer_body(x):\n    a = x + 1\n    return a\n"
                              "def shared(x):\n    b = x * 2\n    return b\n"
                              "class Net(nn.Module):\n    def forward(self, x):\n        return layer_body(shared(x))\n"
                              "    def training_step(self, batch, i):\n        c = self(batch)\n        return c\n"
                              "def train(net, x):\n    return shared(x)\n");
    CHECK(oom_pymodel_in_forward_code(p.model, oom_test_node_at(&p, "a = x + 1")));
    CHECK(!oom_pymodel_in_forward_code(p.model, oom_test_node_at(&p, "b = x * 2")));
    CHECK(!oom_pymodel_in_forward_code(p.model, oom_test_node_at(&p, "c = self(batch)")));
    oom_test_parsed_free(&p);
}

/* model/needsgrad: a module class whose own methods call
 * torch.autograd.grad differentiates, and so does one that builds it; a
 * function calling such a module needs autograd, one calling a plain module
 * does not, and a module of a class the file does not show is assumed not to,
 * with the assumption noted for the project pass. */
static void modules_that_differentiate(void)
{
    parsed p = oom_test_parse("import torch\nfrom torch import nn\n"
                              "class SDF(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.net = nn.Linear(3, 1)\n"
                              "    def normals(self, x):\n        d = self.net(x)\n"
                              "        return torch.autograd.grad(d, x, create_graph=True)[0]\n"
                              "class Renderer(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.sdf = SDF()\n"
                              "    def forward(self, x):\n        return self.sdf.normals(x)\n"
                              "class Head(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.fc = nn.Linear(3, 1)\n"
                              "def render(x):\n    r = Renderer().cuda()\n    r.eval()\n    print(r(x_r).sum().item())\n"
                              "def score(x):\n    h = Head().cuda()\n    h.eval()\n    print(h(x_h).sum().item())\n"
                              "def evaluate(model, x):\n    model.eval()\n    print(model(x_u).sum().item())\n");
    oom_buf names, conds;
    oom_buf_init(&names);
    oom_buf_init(&conds);
    oom_pymodel_differentiating_classes(p.model, &names);
    CHECK(names.len == strlen("SDF") + 1 + strlen("Renderer") + 1 && strcmp(names.data, "SDF") == 0 &&
          strcmp(names.data + 4, "Renderer") == 0);
    CHECK(!oom_pymodel_forwards_need_no_grad(p.model, oom_test_node_at(&p, "r(x_r)")));
    CHECK(oom_pymodel_forwards_need_no_grad(p.model, oom_test_node_at(&p, "h(x_h)")));
    oom_pymodel_collect_conditions(p.model, &conds);
    CHECK(oom_pymodel_forwards_need_no_grad(p.model, oom_test_node_at(&p, "model(x_u)")));
    oom_pymodel_collect_conditions(p.model, NULL);
    CHECK(conds.len > 0 && strcmp(conds.data, "diffwd\t\t") == 0);
    oom_buf_free(&names);
    oom_buf_free(&conds);
    oom_test_parsed_free(&p);
}

void test_evaluation_suite(void)
{
    oom_test_run("needsgrad: modules that differentiate in their own code", modules_that_differentiate);
    oom_test_run("evaluation: a name orders the search, the dataflow settles it", names_order_the_search);
    oom_test_run("evaluation: a loop without backward after the training loop", by_behaviour);
    oom_test_run("evaluation: after .eval(), for that model, unless a backward follows", by_mode);
    oom_test_run("evaluation: a shared loop called with train=False", by_mode_switch);
    oom_test_run("evaluation: a forward's graph unused, by where its result goes", by_where_the_result_goes);
    oom_test_run("evaluation: a model's forward and the helpers only it calls", forward_code);
}

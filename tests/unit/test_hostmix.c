/* model/hostmix: a tensor made on the host, followed forward to where it
 * meets a tensor shown to be on the module's device. */
#include "harness.h"

static bool meets(const parsed *p, const char *factory, uint32_t *line)
{
    return oom_pymodel_host_tensor_meets_device(p->model, oom_test_node_at(p, factory), line);
}

#define MODULE_HEAD "import torch\nfrom torch import nn\nclass M(nn.Module):\n" \
                    "    def __init__(self):\n        super().__init__()\n        self.lin = nn.Linear(4, 4)\n"

/* Operators, combining functions and submodule calls meet the device; the
 * line of the meeting is given back. */
static void meeting_places(void)
{
    parsed p = oom_test_parse(MODULE_HEAD
                              "    def forward(self, x):\n"
                              "        y = self.lin(x)\n"
                              "        a = y - torch.arange(4)\n"
                              "        b = torch.cat([y, torch.zeros(2, 4)])\n"
                              "        h = torch.ones(2, 4)\n"
                              "        c = self.lin(h)\n"
                              "        d = y.masked_fill(torch.ones(4, dtype=torch.bool), 0)\n"
                              "        return a, b, c, d\n");
    uint32_t line = 0;
    CHECK(meets(&p, "torch.arange(4)", &line));
    CHECK(line == 9);
    CHECK(meets(&p, "torch.zeros(2, 4)", &line));
    CHECK(meets(&p, "torch.ones(2, 4)", &line));
    CHECK(line == 12); /* through the name h to the submodule's call */
    CHECK(meets(&p, "torch.ones(4, dtype=torch.bool)", &line));
    oom_test_parsed_free(&p);
}

/* Given a device, 0-dimensional, moved, read for metadata or as an index,
 * combined with numbers only: nothing meets the device. */
static void quiet_shapes(void)
{
    parsed p = oom_test_parse(MODULE_HEAD
                              "    def forward(self, x, n=None, scale=2.0):\n"
                              "        y = self.lin(x)\n"
                              "        a = y + torch.zeros(4, device=y.device)\n"
                              "        b = y * torch.tensor(0.5)\n"
                              "        c = y[torch.arange(3)]\n"
                              "        d = y - torch.ones(4).to(y.device)\n"
                              "        e = torch.randn(4).type_as(y) + y\n"
                              "        f = torch.eye(4).shape[0] + y\n"
                              "        g = torch.linspace(0, 1, 5) * scale\n"
                              "        k = torch.as_tensor(y) + y\n"
                              "        return a, b, c, d, e, f, g, k\n");
    CHECK(!meets(&p, "torch.zeros(4, device=y.device)", NULL));
    CHECK(!meets(&p, "torch.tensor(0.5)", NULL));
    CHECK(!meets(&p, "torch.arange(3)", NULL));
    CHECK(!meets(&p, "torch.ones(4)", NULL));
    CHECK(!meets(&p, "torch.randn(4)", NULL));
    CHECK(!meets(&p, "torch.eye(4)", NULL));
    CHECK(!meets(&p, "torch.linspace(0, 1, 5)", NULL));
    CHECK(!meets(&p, "torch.as_tensor(y)", NULL));
    oom_test_parsed_free(&p);
}

/* A plain attribute made once in __init__ and read in the forward meets
 * the device; a buffer, an attribute assigned again, or a class that is
 * not a module does not. */
static void module_attributes(void)
{
    parsed p = oom_test_parse(MODULE_HEAD
                              "        self.bins = torch.arange(2, 22)\n"
                              "        self.grid = torch.zeros(3, 3)\n"
                              "        self.grid = self.grid * 2\n"
                              "        self.register_buffer('kept', torch.ones(3))\n"
                              "    def forward(self, x):\n"
                              "        y = self.lin(x)\n"
                              "        return y - self.bins, y + self.grid, y + self.kept\n"
                              "class Plain:\n"
                              "    def __init__(self):\n        self.w = torch.ones(4)\n"
                              "    def forward(self, x):\n        return x.float() * self.w\n");
    CHECK(meets(&p, "torch.arange(2, 22)", NULL));
    CHECK(!meets(&p, "torch.zeros(3, 3)", NULL));
    CHECK(!meets(&p, "torch.ones(3)", NULL));
    CHECK(!meets(&p, "torch.ones(4)", NULL));
    oom_test_parsed_free(&p);
}

/* A forward's parameter is on the device when the function uses it as a
 * tensor; one it only does arithmetic with is not shown to be. */
static void parameters_as_tensors(void)
{
    parsed p = oom_test_parse(MODULE_HEAD
                              "    def forward(self, x, t):\n"
                              "        a = x.unsqueeze(-1) - torch.arange(4)\n"
                              "        b = t * torch.ones(4)\n"
                              "        return a, b\n");
    CHECK(meets(&p, "torch.arange(4)", NULL));
    CHECK(!meets(&p, "torch.ones(4)", NULL));
    oom_test_parsed_free(&p);
}

/* In a script, a module moved to the GPU takes its inputs there; one never
 * moved, or moved to the host, says nothing. A default device changes all. */
static void scripts_and_default_device(void)
{
    parsed p = oom_test_parse("import torch\nfrom torch import nn\n"
                              "def run(setting):\n"
                              "    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                              "    model = nn.Linear(4, 4).to(device)\n"
                              "    model(torch.ones(2, 4))\n"
                              "    other = nn.Linear(4, 4).to(setting)\n"
                              "    other(torch.full((2, 4), 1.0))\n"
                              "    host = nn.Linear(4, 4).to('cpu')\n"
                              "    host(torch.zeros(2, 4))\n"
                              "    half = nn.Linear(4, 4).to(torch.float16)\n"
                              "    half(torch.rand(2, 4))\n");
    CHECK(meets(&p, "torch.ones(2, 4)", NULL));
    CHECK(!meets(&p, "torch.full((2, 4), 1.0)", NULL)); /* nothing shows the setting is a GPU */
    CHECK(!meets(&p, "torch.zeros(2, 4)", NULL));
    CHECK(!meets(&p, "torch.rand(2, 4)", NULL));
    oom_test_parsed_free(&p);
    parsed q = oom_test_parse("import torch\nfrom torch import nn\ntorch.set_default_device('cuda')\n"
                              "def run(device):\n"
                              "    model = nn.Linear(4, 4).to(device)\n"
                              "    model(torch.ones(2, 4))\n");
    CHECK(!meets(&q, "torch.ones(2, 4)", NULL));
    oom_test_parsed_free(&q);
}

/* A constructor's probe runs on the host; a tensor written into another
 * (out=) is where that one is; DDP moves its inputs; a name another binding
 * may reach too (a move on one path) is not shown on the host. */
static void constructors_targets_wrappers(void)
{
    parsed p = oom_test_parse("import torch\nfrom torch import nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
                              "class M(nn.Module):\n"
                              "    def __init__(self, shape):\n        super().__init__()\n        self.conv = nn.Conv2d(3, 8, 3)\n"
                              "        n = self.conv(torch.zeros(1, *shape)).shape[1]\n"
                              "        self.w = nn.Parameter(torch.randn(8, n) / n ** 0.5)\n"
                              "    def forward(self, x, pos):\n"
                              "        p = torch.arange(x.size(1), out=pos)\n"
                              "        z = torch.zeros(x.size())\n"
                              "        if x.is_cuda:\n            z = z.cuda()\n"
                              "        return self.conv(x) + p, x + z\n"
                              "    def _conv_out(self, shape):\n"
                              "        out = self.conv(torch.zeros((1, *shape)))\n"
                              "        return int(out.size(1))\n"
                              "def run(model, rank):\n"
                              "    ddp = DDP(model.to(rank), device_ids=[rank])\n"
                              "    ddp(torch.randn(20, 10))\n");
    CHECK(!meets(&p, "torch.zeros(1, *shape)", NULL));
    CHECK(!meets(&p, "torch.randn(8, n)", NULL));
    CHECK(!meets(&p, "torch.arange(x.size(1), out=pos)", NULL));
    CHECK(!meets(&p, "torch.zeros(x.size())", NULL));
    CHECK(!meets(&p, "torch.randn(20, 10)", NULL));
    CHECK(!meets(&p, "torch.zeros((1, *shape))", NULL)); /* a probe: its result read for its size */
    oom_test_parsed_free(&p);
}

/* A method only the constructor calls builds the module; a tensor put on
 * the host on purpose (.cpu()) is meant there; the .device of a host
 * tensor is the host. */
static void construction_and_host_intent(void)
{
    parsed p = oom_test_parse(MODULE_HEAD
                              "        self.check()\n"
                              "    def check(self):\n"
                              "        g = self.lin(torch.zeros((1, 4)))\n"
                              "        return g.sum().item()\n"
                              "    def export(self, x):\n"
                              "        cond = torch.randn([1, 4]).cpu()\n"
                              "        return self.lin(cond)\n"
                              "    def forward(self, x):\n"
                              "        avg = torch.from_numpy(x)\n"
                              "        w = torch.ones(4).to(device=avg.device)\n"
                              "        return self.lin(x), avg * w\n");
    CHECK(!meets(&p, "torch.zeros((1, 4))", NULL));
    CHECK(!meets(&p, "torch.randn([1, 4])", NULL));
    CHECK(!meets(&p, "torch.ones(4)", NULL));
    oom_test_parsed_free(&p);
}

/* A host tensor handed to the file's own function is followed through the
 * parameter that receives it; the function's other parameters are what the
 * entering call hands them. A static method has no module's tensors, and a
 * module's attribute is no evidence of a tensor. */
static void own_functions_and_frames(void)
{
    parsed p = oom_test_parse("import torch\nfrom torch import nn\n"
                              "def ngram(inp, size, pad):\n"
                              "    n = inp.shape[1]\n"
                              "    return torch.cat((pad.tile((size, n, 1)), inp.narrow(0, 0, 2)), dim=0)\n"
                              "def flops(model, x):\n"
                              "    model.total_ops += torch.DoubleTensor([4.0])\n"
                              "class M(nn.Module):\n"
                              "    def __init__(self):\n        super().__init__()\n        self.lin = nn.Linear(4, 4)\n"
                              "        self.pad = torch.zeros(1, 1, 4)\n"
                              "    def forward(self, state, action):\n"
                              "        x = torch.cat((state, action), dim=-1)\n"
                              "        y = ngram(x, 2, self.pad)\n"
                              "        g = self.prob(torch.ones(3, 4), torch.randn(3, 4))\n"
                              "        return self.lin(y), g\n"
                              "    def prob(self, a, b):\n"
                              "        return (a - b).sum(dim=0)\n"
                              "    @staticmethod\n"
                              "    def count(model, x):\n"
                              "        return flops(model, x)\n");
    CHECK(meets(&p, "torch.zeros(1, 1, 4)", NULL));
    CHECK(!meets(&p, "torch.ones(3, 4)", NULL));          /* both arguments on the host */
    CHECK(!meets(&p, "torch.DoubleTensor([4.0])", NULL)); /* a counting hook's module attribute */
    oom_test_parsed_free(&p);
}

static bool host_factory_fn(const parsed *p, const char *call)
{
    TSNode n = oom_test_node_at(p, call);
    return oom_pymodel_is_host_tensor_factory(p->model, ts_node_child_by_field_name(n, "function", 8));
}

/* A factory given no device makes a host tensor or a buffer whose dtype is
 * its own; given a device it makes data on the GPU, and inside nn.Parameter
 * (through arithmetic too) a module's weight. A call of something else is
 * no factory. */
static void host_tensor_factories(void)
{
    parsed p = oom_test_parse("import torch\nfrom torch import nn\n"
                              "a = torch.ones(4, dtype=torch.bfloat16)\n"
                              "b = torch.as_tensor(xs, dtype=torch.bfloat16)\n"
                              "c = torch.randn(4, device=dev, dtype=torch.bfloat16)\n"
                              "d = nn.Parameter(torch.empty(4, 4, dtype=torch.bfloat16))\n"
                              "e = nn.Parameter(0.01 * torch.randn(8, 4, dtype=torch.bfloat16))\n"
                              "f = make_tensor(4, dtype=torch.bfloat16)\n");
    CHECK(host_factory_fn(&p, "torch.ones(4, dtype=torch.bfloat16)"));
    CHECK(host_factory_fn(&p, "torch.as_tensor(xs, dtype=torch.bfloat16)"));
    CHECK(!host_factory_fn(&p, "torch.randn(4, device=dev, dtype=torch.bfloat16)"));
    CHECK(!host_factory_fn(&p, "torch.empty(4, 4, dtype=torch.bfloat16)"));
    CHECK(!host_factory_fn(&p, "torch.randn(8, 4, dtype=torch.bfloat16)"));
    CHECK(!host_factory_fn(&p, "make_tensor(4, dtype=torch.bfloat16)"));
    oom_test_parsed_free(&p);
}

/* A function that places tensors by a tensor's device is written for any
 * device: its tensor parameters are on one, a host tensor meeting them
 * fails; so does one indexed by a device mask, or unpacked from a tuple.
 * A parameter it rebinds, a factory's size arguments, a probe its module's
 * constructor runs through the forward, are no device values. */
static void device_generic_and_construction(void)
{
    parsed p = oom_test_parse("import math\nimport torch\nfrom torch import nn\n"
                              "def starts(points, counts):\n"
                              "    where = points.device\n"
                              "    first = torch.zeros(points.shape[0], device=where)\n"
                              "    return first + counts * torch.rand(counts.size())\n"
                              "def table(width, length):\n"
                              "    t = torch.zeros(width, length)\n"
                              "    width = int(width / 2)\n"
                              "    f = torch.exp(torch.arange(0.0, width, 2) * -(math.log(1e4) / width))\n"
                              "    return t, f\n"
                              "class K(nn.Module):\n"
                              "    def __init__(self):\n        super().__init__()\n        self.lin = nn.Linear(4, 4)\n"
                              "        self.check()\n"
                              "    def check(self):\n        return self.forward(torch.randn(2, 4))\n"
                              "    def forward(self, x):\n"
                              "        keep = self.lin(x).sum(-1) > 0\n"
                              "        order = torch.arange(x.shape[0])\n"
                              "        a, b = (torch.zeros(2, 4), 1)\n"
                              "        return self.lin(x) + self.lin(a), order[keep]\n");
    uint32_t line = 0;
    CHECK(meets(&p, "torch.rand(counts.size())", &line));
    CHECK(line == 7);
    CHECK(!meets(&p, "torch.zeros(width, length)", NULL));
    CHECK(!meets(&p, "torch.arange(0.0, width, 2)", NULL));
    CHECK(!meets(&p, "torch.randn(2, 4)", NULL));
    CHECK(meets(&p, "torch.arange(x.shape[0])", &line));
    CHECK(line == 24);
    CHECK(meets(&p, "torch.zeros(2, 4)", &line));
    CHECK(line == 24);
    oom_test_parsed_free(&p);
}

void test_hostmix_suite(void)
{
    oom_test_run("hostmix: host tensors and buffers a factory makes, not parameters", host_tensor_factories);
    oom_test_run("hostmix: own functions, their parameters from the call", own_functions_and_frames);
    oom_test_run("hostmix: construction, host on purpose, a host tensor's device", construction_and_host_intent);
    oom_test_run("hostmix: constructors, out=, input-placing wrappers, moves on one path", constructors_targets_wrappers);
    oom_test_run("hostmix: where a host tensor meets the device", meeting_places);
    oom_test_run("hostmix: placed, scalar, moved, metadata, index", quiet_shapes);
    oom_test_run("hostmix: a module's plain attributes", module_attributes);
    oom_test_run("hostmix: parameters used as tensors", parameters_as_tensors);
    oom_test_run("hostmix: scripts and a default device", scripts_and_default_device);
    oom_test_run("hostmix: device-generic functions, device masks, tuples, constructor probes", device_generic_and_construction);
}

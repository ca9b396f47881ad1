/* model/gpuuse: whether a file shows a way onto a GPU, and model/transient's
 * smoke-test inputs reshaped or indexed on their way in. */
#include "harness.h"

static bool shows_gpu(const char *src)
{
    parsed p = oom_test_parse(src);
    bool shows = oom_pymodel_shows_gpu_use(p.model);
    oom_test_parsed_free(&p);
    return shows;
}

/* Each of these brings a GPU in: a device named, a placement onto a device
 * handed in from outside, a wrapper or library that places, NCCL. */
static void evidence_of_a_gpu(void)
{
    CHECK(shows_gpu("def f(x):\n    return x.cuda()\n"));
    CHECK(shows_gpu("def f(model, device):\n    return model.to(device)\n"));
    CHECK(shows_gpu("import torch\ndev = torch.device(local_rank)\n"));
    CHECK(shows_gpu("import torch\np.add_argument('--device', default='cuda')\ndev = torch.device(args.device)\n"));
    CHECK(shows_gpu("import torch\nd = 'cuda:0' if ok else 'cpu'\n"));
    CHECK(shows_gpu("import torch\ndef f(n, dev):\n    return torch.zeros(n, device=dev)\n"));
    CHECK(shows_gpu("import torch.distributed as dist\ndist.init_process_group('nccl')\n"));
    CHECK(shows_gpu("import accelerate\n"));
    CHECK(shows_gpu("import torch\nm = torch.nn.DataParallel(net)\n"));
    CHECK(shows_gpu("def f(x):\n    return x.to(0)\n"));
}

/* None of these does: a cast, a placement that follows a tensor, the host
 * named, a name bound to the host, prose in a docstring. */
static void placements_that_bring_no_gpu(void)
{
    CHECK(!shows_gpu("import torch\ndef f(x):\n    return x.to(torch.float16)\n"));
    CHECK(!shows_gpu("import torch\ndef f(x, y):\n    return torch.zeros(3, device=y.device) + x.to(y.device)\n"));
    CHECK(!shows_gpu("import torch\ndef f(x):\n    return torch.tensor(x, device='cpu')\n"));
    CHECK(!shows_gpu("import torch\ndef f(x):\n    host = torch.device('cpu')\n    return x.to(host)\n"));
    CHECK(!shows_gpu("def f(x):\n    \"\"\"Runs on cuda when asked.\"\"\"\n    return x + 1\n"));
    /* a stored setting read as `.device` shows its origin where it is set (a
     * `--device` default naming a GPU, above); read alone it follows */
    CHECK(!shows_gpu("import torch\ndev = torch.device(args.device)\n"));
    CHECK(!shows_gpu("import torch\ndef f(model, x):\n    model.eval()\n    return model(x).detach().numpy()\n"));
}

/* A smoke test's input reshaped or indexed without growing is still the
 * smoke test's; an index tensor may repeat rows, and is data. */
static void smoke_inputs_reshaped_or_indexed(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "def a(m, sr, dev):\n    x = torch.randn(1, int(sr * 4)).to(dev)\n    m(x[None])\n"
                              "def b(m):\n    m(torch.randn(3, 224, 224).unsqueeze(0))\n"
                              "def c(m):\n    y = torch.randn(2, 64)\n    m(y[:, :8])\n"
                              "def d(m, idx):\n    z = torch.randn(1, 3, 8, 8)\n    m(z[idx])\n");
    CHECK(oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(x[None])")));
    CHECK(oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(torch.randn(3, 224, 224).unsqueeze(0))")));
    CHECK(oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(y[:, :8])")));
    CHECK(!oom_pymodel_forward_transient(p.model, oom_test_node_at(&p, "m(z[idx])")));
    oom_test_parsed_free(&p);
}

void test_gpuuse_suite(void)
{
    oom_test_run("gpuuse: what shows a way onto a GPU", evidence_of_a_gpu);
    oom_test_run("gpuuse: placements that bring no GPU in", placements_that_bring_no_gpu);
    oom_test_run("transient: smoke-test inputs reshaped or indexed", smoke_inputs_reshaped_or_indexed);
}

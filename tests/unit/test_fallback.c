/* model/fallback: a retry in an out-of-memory handler that the handler
 * moves to the host first is a CPU fallback, not a GPU retry. */
#include "harness.h"

static bool on_host(const parsed *p, const char *call)
{
    return oom_pymodel_retries_on_host(p->model, oom_test_node_at(p, call));
}

static void moves_before_the_retry(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "def f(self, m, x, q):\n"
                              "    try:\n        run(x)\n"
                              "    except torch.cuda.OutOfMemoryError:\n"
                              "        self.device = 'cpu'\n        run(x + 1)\n"
                              "    try:\n        q(m.weight)\n"
                              "    except torch.cuda.OutOfMemoryError:\n        q(m.weight.to('cpu'))\n"
                              "    try:\n        m(x)\n"
                              "    except torch.cuda.OutOfMemoryError:\n"
                              "        out = m(x[:1]).argmax(-1).cpu()\n        m(x[1:])\n"
                              "    try:\n        m(x)\n"
                              "    except torch.cuda.OutOfMemoryError:\n        m(x.to(torch.device('cpu')))\n"
                              "    try:\n        m(x)\n"
                              "    except torch.cuda.OutOfMemoryError:\n        m(x.to('cuda:1'))\n");
    CHECK(on_host(&p, "run(x + 1)"));
    CHECK(on_host(&p, "q(m.weight.to('cpu'))"));
    CHECK(!on_host(&p, "m(x[1:])"));       /* a result copied out moves no work */
    CHECK(on_host(&p, "m(x.to(torch.device('cpu')))"));
    CHECK(!on_host(&p, "m(x.to('cuda:1'))"));
    CHECK(!on_host(&p, "q(m.weight)"));     /* the try body: no handler */
    oom_test_parsed_free(&p);
}

void test_fallback_suite(void)
{
    oom_test_run("fallback: moves to the host before a retry", moves_before_the_retry);
}

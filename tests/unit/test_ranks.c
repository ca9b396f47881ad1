/* model/ranks: what the global rank is, from the dataflow and the library
 * knowledge, and whether a launcher that may span nodes numbers the file's
 * processes. */
#include "harness.h"

/* Whether the first argument of the call `use` (its text in `src`) is the
 * global rank: the use, not a binding of the same name above it. */
static bool is_global(const char *src, const char *use)
{
    parsed p = oom_test_parse(src);
    TSNode call = oom_test_node_at(&p, use);
    TSNode args = ts_node_child_by_field_name(call, "arguments", 9);
    bool global = !ts_node_is_null(args) && ts_node_named_child_count(args) > 0 &&
                  oom_pymodel_is_global_rank(p.model, ts_node_named_child(args, 0));
    oom_test_parsed_free(&p);
    return global;
}

static bool from_launcher(const char *src)
{
    parsed p = oom_test_parse(src);
    bool launcher = oom_pymodel_ranks_from_launcher(p.model);
    oom_test_parsed_free(&p);
    return launcher;
}

/* The calls and variables that give it, casts of them, names bound to
 * them on every path (an integer fallback beside), parameters every call
 * binds to one. */
static void what_the_global_rank_is(void)
{
    CHECK(is_global("import torch.distributed as dist\nf(dist.get_rank())\n", "f(dist.get_rank())"));
    CHECK(is_global("import os\nf(int(os.environ['RANK']))\n", "f(int(os.environ['RANK']))"));
    CHECK(is_global("import os\nf(os.getenv('SLURM_PROCID'))\n", "f(os.getenv('SLURM_PROCID'))"));
    CHECK(is_global("from torch import distributed as d\ndef g():\n    r = d.get_rank()\n    h(r)\n", "h(r)"));
    CHECK(is_global("import torch.distributed as dist\ndef g():\n    try:\n        rk = dist.get_rank()\n"
                    "    except Exception:\n        rk = 0\n    h(rk)\n",
                    "h(rk)"));
    CHECK(is_global("import os\ndef run(rq):\n    use(rq)\ndef main():\n    run(int(os.environ['RANK']))\n", "use(rq)"));
}

/* The node's own index, a group's rank, arithmetic on it, a rank of
 * unknown origin, a name that is the global rank on one path only. */
static void what_it_is_not(void)
{
    CHECK(!is_global("import os\nf(int(os.environ['LOCAL_RANK']))\n", "f(int(os.environ['LOCAL_RANK']))"));
    CHECK(!is_global("import torch.distributed as dist\nf(dist.get_rank(group))\n", "f(dist.get_rank(group))"));
    CHECK(!is_global("import torch, torch.distributed as dist\nf(dist.get_rank() % torch.cuda.device_count())\n",
                     "f(dist.get_rank() % torch.cuda.device_count())"));
    CHECK(!is_global("def g(rz):\n    h(rz)\n", "h(rz)"));
    CHECK(!is_global("def g(args):\n    h(args.rank)\n", "h(args.rank)"));
    CHECK(!is_global("import os, torch.distributed as dist\ndef g(flag):\n    ry = dist.get_rank()\n    if flag:\n"
                     "        ry = int(os.environ['LOCAL_RANK'])\n    h(ry)\n",
                     "h(ry)"));
    CHECK(!is_global("rw = 0\nh(rw)\n", "h(rw)"));
}

/* Names bound on both sides of many branches: each path would be walked on
 * its own; the question's budget ends it, and the answer is no. */
static void many_paths_end(void)
{
    oom_buf src;
    oom_buf_init(&src);
    oom_buf_printf(&src, "import torch.distributed as dist\ndef f(c):\n    r0 = dist.get_rank()\n");
    for (int i = 1; i < 40; i++)
        oom_buf_printf(&src, "    if c:\n        r%d = r%d\n    else:\n        r%d = int(r%d)\n", i, i - 1, i, i - 1);
    oom_buf_printf(&src, "    h(r39)\n");
    CHECK(!is_global(src.data, "h(r39)"));
    CHECK(is_global("import torch.distributed as dist\ndef f(c):\n    a = dist.get_rank()\n    if c:\n"
                    "        b = a\n    else:\n        b = int(a)\n    h(b)\n",
                    "h(b)"));
    oom_buf_free(&src);
}

/* A launcher's variable read, or the process group from the environment,
 * and no processes spawned by the script. */
static void launched_processes(void)
{
    CHECK(from_launcher("import torch.distributed as dist\ndist.init_process_group('nccl')\n"));
    CHECK(from_launcher("import os\nlr = int(os.environ['LOCAL_RANK'])\n"));
    CHECK(from_launcher("import os\nws = os.getenv('WORLD_SIZE')\n"));
    CHECK(!from_launcher("import torch.distributed as dist\ndist.init_process_group('nccl', rank=i, world_size=n)\n"));
    CHECK(!from_launcher("import torch.distributed as dist, torch.multiprocessing as mp\n"
                         "dist.init_process_group('nccl')\nmp.spawn(work, nprocs=2)\n"));
    CHECK(!from_launcher("import torch\nx = torch.zeros(3).cuda()\n"));
}

void test_ranks_suite(void)
{
    oom_test_run("ranks: the global rank, from calls, variables, casts, bindings, parameters", what_the_global_rank_is);
    oom_test_run("ranks: the local rank, a group's, arithmetic, unknown origins are not", what_it_is_not);
    oom_test_run("ranks: many paths end within the question's budget", many_paths_end);
    oom_test_run("ranks: processes numbered by a launcher, not spawned by the script", launched_processes);
}

/* model/checkpoints: what a torch.load reads. The torch.save of the same
 * file that wrote it (joined by the path in one function, or by the file's
 * name), whether that save wrote host data, what the loaded value feeds
 * (schedulers', scalers' and random generators' state hold no CUDA
 * tensors; an optimizer adopts what it is given), and the branch beside a
 * load that maps the per-process case to its own device. model/processes:
 * a load only the main process runs. */
#include "harness.h"

static bool host(const parsed *p, const char *load)
{
    return oom_pymodel_loads_host_data(p->model, oom_test_node_at(p, load));
}

static bool other_branch(const parsed *p, const char *load)
{
    return oom_pymodel_mapped_in_other_branch(p->model, oom_test_node_at(p, load));
}

/* A tensor after .cpu() / .numpy() and dicts of such, joined by the file
 * name; a GPU tensor, a model's state_dict and a name that one path leaves
 * on the GPU are not host data; a load nothing here saved is unknown. */
static void saved_values(void)
{
    parsed p = oom_test_parse(
        "import os\nimport numpy as np\nimport torch\n"
        "def dump(feats, model, out, keep):\n"
        "    torch.save(feats.cpu(), os.path.join(out, 'a.pth'))\n"
        "    torch.save(feats, os.path.join(out, 'b.pth'))\n"
        "    torch.save({'x': feats.detach().cpu().float(), 'n': 3}, os.path.join(out, 'c.pth'))\n"
        "    torch.save(model.state_dict(), os.path.join(out, 'd.pth'))\n"
        "    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, os.path.join(out, 'e.pth'))\n"
        "    torch.save(np.zeros(3), f'{out}/f.pth')\n"
        "    g = feats\n    if keep:\n        g = g.cpu()\n    torch.save(g, os.path.join(out, 'g.pth'))\n"
        "    h = feats.to('cpu')\n    torch.save(h, os.path.join(out, 'h.pth'))\n"
        "    torch.save(feats.cpu(), os.path.join(out, 'i.pth'))\n"
        "    torch.save(feats.cuda(), 'other/i.pth')\n"
        "def load(d):\n"
        "    torch.load(os.path.join(d, 'a.pth'))\n    torch.load(os.path.join(d, 'b.pth'))\n"
        "    torch.load(os.path.join(d, 'c.pth'))\n    torch.load(os.path.join(d, 'd.pth'))\n"
        "    torch.load(os.path.join(d, 'e.pth'))\n    torch.load(os.path.join(d, 'f.pth'))\n"
        "    torch.load(os.path.join(d, 'g.pth'))\n    torch.load(os.path.join(d, 'h.pth'))\n"
        "    torch.load(os.path.join(d, 'i.pth'))\n    torch.load(os.path.join(d, 'z.pth'))\n"
        "    torch.load(d)\n");
    CHECK(host(&p, "torch.load(os.path.join(d, 'a.pth'))"));
    CHECK(!host(&p, "torch.load(os.path.join(d, 'b.pth'))"));
    CHECK(host(&p, "torch.load(os.path.join(d, 'c.pth'))"));
    CHECK(!host(&p, "torch.load(os.path.join(d, 'd.pth'))"));
    CHECK(host(&p, "torch.load(os.path.join(d, 'e.pth'))"));
    CHECK(host(&p, "torch.load(os.path.join(d, 'f.pth'))")); /* the f-string's last component */
    CHECK(!host(&p, "torch.load(os.path.join(d, 'g.pth'))"));
    CHECK(host(&p, "torch.load(os.path.join(d, 'h.pth'))"));
    CHECK(!host(&p, "torch.load(os.path.join(d, 'i.pth'))")); /* one of its two saves is on the GPU */
    CHECK(!host(&p, "torch.load(os.path.join(d, 'z.pth'))"));
    CHECK(!host(&p, "torch.load(d)"));
    oom_test_parsed_free(&p);
}

/* The same path expression joins a save and a load in one function, not
 * across functions; a constant's name is followed to the file it names. */
static void joined_paths(void)
{
    parsed p = oom_test_parse(
        "import argparse\nimport torch\nNAME = 'args.bin'\n"
        "def cache(x, path):\n    torch.save(x.cpu(), path)\n    return torch.load(path)\n"
        "def other(path):\n    return torch.load(path, weights_only=True)\n"
        "def main(out):\n    parser = argparse.ArgumentParser()\n    args = parser.parse_args()\n"
        "    torch.save(args, out + '/' + NAME)\n    torch.save(vars(args), out + '/vars.bin')\n"
        "    torch.load(out + '/args.bin')\n    torch.load(out + '/vars.bin')\n");
    CHECK(host(&p, "torch.load(path)"));
    CHECK(!host(&p, "torch.load(path, weights_only=True)"));
    CHECK(host(&p, "torch.load(out + '/args.bin')"));
    CHECK(!host(&p, "torch.load(out + '/vars.bin')")); /* vars(...) is not known to be host data */
    oom_test_parsed_free(&p);
}

/* A dataset: torch.utils.data's, a class of the file deriving one, and
 * what a function of the file returns, through helpers and tuples. */
static void datasets(void)
{
    parsed p = oom_test_parse(
        "import torch\nfrom torch.utils.data import Dataset, Subset\n"
        "class Prompts(Dataset):\n    pass\n"
        "class Net(torch.nn.Module):\n    pass\n"
        "def split(raw):\n    return Prompts(raw)\n"
        "def make(raw):\n    train = split(raw)\n    test = split(raw)\n    return train, test\n"
        "def cache(raw, fname, idx, n):\n"
        "    if n == 1:\n        train, test = make(raw)\n    else:\n        train = Subset(raw, idx)\n"
        "    torch.save(train, fname)\n    ds = torch.load(fname)\n"
        "    net = Net()\n    torch.save(net, fname + '.net.pt')\n    torch.load(fname + '.net.pt')\n");
    CHECK(host(&p, "torch.load(fname)"));
    CHECK(!host(&p, "torch.load(fname + '.net.pt')"));
    oom_test_parsed_free(&p);
}

/* The one-process arm of `if args.gpu is None`, whose other arm maps the
 * same path to the process's device; not when the other arm maps to the
 * host (a machine without a GPU) or loads another path. */
static void per_process_branch(void)
{
    parsed p = oom_test_parse(
        "import torch\n"
        "def resume(args, loc):\n"
        "    if args.gpu is None:\n        a = torch.load(args.resume)\n"
        "    else:\n        a = torch.load(args.resume, map_location=loc)\n"
        "    if torch.cuda.is_available():\n        b = torch.load(args.b)\n"
        "    else:\n        b = torch.load(args.b, map_location='cpu')\n"
        "    if args.gpu is None:\n        c = torch.load(args.c)\n"
        "    else:\n        c = torch.load(args.other, map_location=loc)\n"
        "    d = torch.load(args.d) if args.gpu is None else torch.load(args.d, map_location=f'cuda:{args.gpu}')\n"
        "    if args.mode == 'one':\n        with open(args.e) as fh:\n            e = torch.load(fh)\n"
        "    elif args.mode == 'ddp':\n        e = torch.load(fh, map_location=loc)\n"
        "    f = torch.load(args.f)\n");
    CHECK(other_branch(&p, "torch.load(args.resume)"));
    CHECK(!other_branch(&p, "torch.load(args.resume, map_location=loc)"));
    CHECK(!other_branch(&p, "torch.load(args.b)"));
    CHECK(!other_branch(&p, "torch.load(args.c)"));
    CHECK(other_branch(&p, "torch.load(args.d)"));
    CHECK(other_branch(&p, "torch.load(fh)"));
    CHECK(!other_branch(&p, "torch.load(args.f)"));
    oom_test_parsed_free(&p);
}

/* What the loaded value feeds: the whole value into a scheduler's or a
 * scaler's load_state_dict (known from the name, or from the constructor a
 * name is bound to), entries of it into random generators' setters; not
 * one entry of a checkpoint into a scheduler, a value also read otherwise
 * or returned, a name never read, nor a scheduler-named module. */
static void fed_state(void)
{
    parsed p = oom_test_parse(
        "import os\nimport random\nimport numpy as np\nimport torch\n"
        "from torch.cuda.amp import GradScaler\nfrom torch.optim.swa_utils import AveragedModel\n"
        "from transformers import get_cosine_schedule_with_warmup as cosine\n"
        "class T:\n"
        "    def resume(self, d, opt, model):\n"
        "        self.lr_scheduler.load_state_dict(torch.load(os.path.join(d, 'a.pt')))\n"
        "        self.scaler.load_state_dict((torch.load(os.path.join(d, 'b.pt'))))\n"
        "        sched = cosine(opt, 10, 100)\n        s = torch.load(os.path.join(d, 'c.pt'))\n"
        "        sched.load_state_dict(s)\n"
        "        amp = GradScaler()\n        amp.load_state_dict(torch.load(os.path.join(d, 'd.pt')))\n"
        "        rng = torch.load(os.path.join(d, 'e.pt'))\n"
        "        if 'cuda' in rng:\n            torch.cuda.set_rng_state_all(rng['cuda'])\n"
        "        random.setstate(rng['python'])\n        np.random.set_state(rng['numpy'])\n"
        "        self.lr_scheduler.load_state_dict(torch.load(os.path.join(d, 'f.pt'))['sched'])\n"
        "        mixed = torch.load(os.path.join(d, 'g.pt'))\n"
        "        torch.set_rng_state(mixed['cpu'])\n        model.load_state_dict(mixed['model'])\n"
        "        unread = torch.load(os.path.join(d, 'h.pt'))\n"
        "        kept = torch.load(os.path.join(d, 'i.pt'))\n        torch.set_rng_state(kept['cpu'])\n"
        "        self.kept = kept\n"
        "        lr_scheduler = AveragedModel(model)\n"
        "        lr_scheduler.load_state_dict(torch.load(os.path.join(d, 'j.pt')))\n"
        "        torch.set_rng_state(torch.load(os.path.join(d, 'k.pt')))\n"
        "        opt.load_state_dict(torch.load(os.path.join(d, 'l.pt')))\n");
    CHECK(host(&p, "torch.load(os.path.join(d, 'a.pt'))"));
    CHECK(host(&p, "torch.load(os.path.join(d, 'b.pt'))")); /* through parentheses */
    CHECK(host(&p, "torch.load(os.path.join(d, 'c.pt'))")); /* through a name, to a name bound to a schedule */
    CHECK(host(&p, "torch.load(os.path.join(d, 'd.pt'))"));
    CHECK(host(&p, "torch.load(os.path.join(d, 'e.pt'))")); /* a test of it, and its entries into setters */
    CHECK(!host(&p, "torch.load(os.path.join(d, 'f.pt'))"));
    CHECK(!host(&p, "torch.load(os.path.join(d, 'g.pt'))"));
    CHECK(!host(&p, "torch.load(os.path.join(d, 'h.pt'))"));
    CHECK(!host(&p, "torch.load(os.path.join(d, 'i.pt'))"));
    CHECK(!host(&p, "torch.load(os.path.join(d, 'j.pt'))")); /* the binding beats the name */
    CHECK(host(&p, "torch.load(os.path.join(d, 'k.pt'))"));
    CHECK(!host(&p, "torch.load(os.path.join(d, 'l.pt'))")); /* an optimizer's tensors may be CUDA's */
    oom_test_parsed_free(&p);
}

static bool into_model(const parsed *p, const char *load)
{
    return oom_pymodel_loads_into_model(p->model, oom_test_node_at(p, load));
}

/* An optimizer given the whole loaded value adopts its tensors, and a
 * scheduler's state holds none: not copied into a model. A checkpoint
 * whose weights go to the model, or whose optimizer entry alone is read
 * (its other entries are on the device too), still is. */
static void adopted_state(void)
{
    parsed p = oom_test_parse(
        "import torch\nfrom torch.optim import AdamW\n"
        "def resume(self, model, d, dev, optim):\n"
        "    self.optimizer.load_state_dict(torch.load(d + '/a.pt', map_location=dev))\n"
        "    adam = AdamW(model.parameters())\n    sd = torch.load(d + '/b.pt', map_location=dev)\n"
        "    adam.load_state_dict(sd)\n"
        "    self.lr_scheduler.load_state_dict(torch.load(d + '/c.pt', map_location=dev))\n"
        "    ck = torch.load(d + '/d.pt', map_location=dev)\n"
        "    optim.load_state_dict(ck['optimizer'])\n    model.load_state_dict(ck['model'])\n"
        "    optim.load_state_dict(torch.load(d + '/e.pt', map_location=dev)['optimizer'])\n"
        "    both = torch.load(d + '/f.pt', map_location=dev)\n    optim.load_state_dict(both['optimizer'])\n"
        "    model.load_state_dict(torch.load(d + '/g.pt', map_location=dev))\n");
    CHECK(!into_model(&p, "torch.load(d + '/a.pt', map_location=dev)"));
    CHECK(!into_model(&p, "torch.load(d + '/b.pt', map_location=dev)"));
    CHECK(!into_model(&p, "torch.load(d + '/c.pt', map_location=dev)"));
    CHECK(into_model(&p, "torch.load(d + '/d.pt', map_location=dev)"));
    CHECK(into_model(&p, "torch.load(d + '/e.pt', map_location=dev)"));
    CHECK(into_model(&p, "torch.load(d + '/f.pt', map_location=dev)"));
    CHECK(into_model(&p, "torch.load(d + '/g.pt', map_location=dev)"));
    oom_test_parsed_free(&p);
}

static bool main_only(const parsed *p, const char *text)
{
    return oom_pymodel_main_process_only(p->model, oom_test_node_at(p, text));
}

/* The arms that a test of the rank keeps to the main process, through
 * `and`, `or` and `not`; an early exit of every other rank; and what lets
 * more than one process through: another rank, a LoRA or node rank, `or`
 * with another test, a guard after the load or one that does not leave. */
static void main_process(void)
{
    parsed p = oom_test_parse(
        "import sys\nimport torch.distributed as dist\n"
        "def f(args, hvd, acc, trainer, rank, node_rank):\n"
        "    if args.resume and hvd.rank() == 0:\n        a1()\n"
        "    if dist.get_rank() != 0:\n        b1()\n    else:\n        b2()\n"
        "    if args.local_rank in (-1, 0):\n        c1()\n"
        "    if args.local_rank not in [-1, 0]:\n        c2()\n    elif args.resume:\n        c3()\n"
        "    if not acc.is_main_process:\n        d1()\n"
        "    if 0 == rank or args.debug:\n        e1()\n"
        "    if args.lora_rank == 0 or node_rank == 0:\n        e2()\n"
        "    if not (rank > 0 or args.skip):\n        e3()\n"
        "    x = g1() if trainer.is_global_zero else g2()\n"
        "    if args.local_rank <= 0:\n        h1()\n"
        "    if rank == 1:\n        h2()\n"
        "    i1()\n"
        "    if rank != 0:\n        print('waiting')\n"
        "    i2()\n"
        "    if not dist.get_rank() == 0 or not args.resume:\n        sys.exit(0)\n"
        "    i3()\n"
        "def g(rank):\n    j1()\n");
    CHECK(main_only(&p, "a1()"));
    CHECK(!main_only(&p, "b1()"));
    CHECK(main_only(&p, "b2()"));
    CHECK(main_only(&p, "c1()"));
    CHECK(!main_only(&p, "c2()"));
    CHECK(main_only(&p, "c3()")); /* an elif after every other rank's arm */
    CHECK(!main_only(&p, "d1()"));
    CHECK(!main_only(&p, "e1()"));
    CHECK(!main_only(&p, "e2()"));
    CHECK(main_only(&p, "e3()"));
    CHECK(main_only(&p, "g1()"));
    CHECK(!main_only(&p, "g2()"));
    CHECK(main_only(&p, "h1()"));
    CHECK(!main_only(&p, "h2()"));
    CHECK(!main_only(&p, "i1()"));
    CHECK(!main_only(&p, "i2()")); /* the guard does not leave */
    CHECK(main_only(&p, "i3()"));  /* every other rank exits before it */
    CHECK(!main_only(&p, "j1()")); /* another function */
    oom_test_parsed_free(&p);
}

/* Guards across calls: a function the file calls only where the main
 * process alone goes runs there alone; one also called elsewhere, handed
 * to another call, or never called in the file is not known to. */
static void main_process_callers(void)
{
    parsed p = oom_test_parse(
        "import torch.multiprocessing as mp\n"
        "def evaluate(net):\n    k1()\n"
        "def log(x):\n    k2()\n"
        "def spawned(rank):\n    k3()\n"
        "def lonely():\n    k4()\n"
        "def inner():\n    k5()\n"
        "def outer():\n    inner()\n"
        "def step(rank, net):\n    log(net)\n    if rank == 0:\n        evaluate(net)\n        log(net)\n        outer()\n"
        "def main():\n    mp.spawn(spawned, nprocs=8)\n");
    CHECK(main_only(&p, "k1()"));
    CHECK(!main_only(&p, "k2()"));
    CHECK(!main_only(&p, "k3()"));
    CHECK(!main_only(&p, "k4()"));
    CHECK(main_only(&p, "k5()")); /* two calls down */
    oom_test_parsed_free(&p);
}

void test_checkpoints_suite(void)
{
    oom_test_run("checkpoints: what a save in the file wrote", saved_values);
    oom_test_run("checkpoints: save and load of the same path", joined_paths);
    oom_test_run("checkpoints: a cached dataset", datasets);
    oom_test_run("checkpoints: the arm for one process beside the per-process one", per_process_branch);
    oom_test_run("checkpoints: a scheduler's, a scaler's, random generators' state", fed_state);
    oom_test_run("checkpoints: an optimizer adopts its state, a model copies", adopted_state);
    oom_test_run("processes: a load only the main process runs", main_process);
    oom_test_run("processes: a function only the main process calls", main_process_callers);
}

/* model/checkpoints: what a torch.load reads. The torch.save of the same
 * file that wrote it (joined by the path in one function, or by the file's
 * name), whether that save wrote host data, and the branch beside a load
 * that maps the per-process case to its own device. */
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

void test_checkpoints_suite(void)
{
    oom_test_run("checkpoints: what a save in the file wrote", saved_values);
    oom_test_run("checkpoints: save and load of the same path", joined_paths);
    oom_test_run("checkpoints: a cached dataset", datasets);
    oom_test_run("checkpoints: the arm for one process beside the per-process one", per_process_branch);
}

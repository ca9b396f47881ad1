/* The Python semantic model: aliases, autograd history, names; the shared
 * helpers the analyses' own test files (test_grad, test_evaluation,
 * test_storage, test_flow) parse their snippets with. */
#include <stdlib.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "harness.h"
#include "oomlint/lang.h"
#include "oomlint/model.h"

parsed oom_test_parse(const char *src)
{
    parsed p;
    p.src = src;
    p.parser = ts_parser_new();
    ts_parser_set_language(p.parser, oom_lang_grammar(OOM_LANG_PYTHON));
    p.tree = ts_parser_parse_string(p.parser, NULL, src, (uint32_t)strlen(src));
    p.model = oom_pymodel_build(p.tree, src, strlen(src));
    return p;
}

void oom_test_parsed_free(parsed *p)
{
    oom_pymodel_free(p->model);
    ts_tree_delete(p->tree);
    ts_parser_delete(p->parser);
}

/* The smallest named node that spans the first occurrence of `text`; a
 * leading newline in `text` only anchors the match to a line start. */
TSNode oom_test_node_at(const parsed *p, const char *text)
{
    const char *at = strstr(p->src, text);
    uint32_t start = (uint32_t)(at - p->src), end = start + (uint32_t)strlen(text);
    if (text[0] == '\n')
        start++;
    while (end > start && p->src[end - 1] == '\n')
        end--;
    return ts_node_named_descendant_for_byte_range(ts_tree_root_node(p->tree), start, end);
}

static void qualified_names(void)
{
    parsed p = oom_test_parse("import torch as T\nimport torch.nn as nn\nfrom torch import no_grad as ng\n"
                     "import os\nfrom os import environ\n"
                     "T.nn.DataParallel\nnn.Linear\nng\nos.environ\nenviron\nmodel.eval\n");
    oom_buf b;
    oom_buf_init(&b);
    CHECK(oom_pymodel_qualname(p.model, oom_test_node_at(&p, "T.nn.DataParallel"), &b));
    CHECK_STR(b.data, "torch.nn.DataParallel");
    CHECK(oom_pymodel_qualname(p.model, oom_test_node_at(&p, "nn.Linear"), &b));
    CHECK_STR(b.data, "torch.nn.Linear");
    CHECK(oom_pymodel_qualname(p.model, oom_test_node_at(&p, "\nng\n"), &b));
    CHECK_STR(b.data, "torch.no_grad");
    CHECK(oom_pymodel_qualname(p.model, oom_test_node_at(&p, "\nenviron\n"), &b));
    CHECK_STR(b.data, "os.environ");
    CHECK(oom_pymodel_qualname(p.model, oom_test_node_at(&p, "model.eval"), &b));
    CHECK_STR(b.data, "model.eval");
    oom_buf_free(&b);
    oom_test_parsed_free(&p);
}

static void history(void)
{
    parsed p = oom_test_parse("def f(model, crit, loader):\n    for x, y in loader:\n"
                     "        out = model(x)\n        loss = crit(out, y)\n"
                     "        a = loss\n        b = loss.item()\n        c = loss.detach().cpu()\n"
                     "        d = loss.cpu()\n        e = out.logits.argmax(-1)\n        f = float(loss)\n"
                     "        g = loss * 2 + 1\n        h = (out.logits == y).sum()\n");
    CHECK(oom_pymodel_carries_graph(p.model, ts_node_child_by_field_name(oom_test_node_at(&p, "a = loss"), "right", 5)));
    CHECK(!oom_pymodel_carries_graph(p.model, oom_test_node_at(&p, "loss.item()")));
    CHECK(!oom_pymodel_carries_graph(p.model, oom_test_node_at(&p, "loss.detach().cpu()")));
    CHECK(oom_pymodel_carries_graph(p.model, oom_test_node_at(&p, "loss.cpu()")));
    CHECK(!oom_pymodel_carries_graph(p.model, oom_test_node_at(&p, "out.logits.argmax(-1)")));
    CHECK(!oom_pymodel_carries_graph(p.model, oom_test_node_at(&p, "float(loss)")));
    CHECK(oom_pymodel_carries_graph(p.model, oom_test_node_at(&p, "loss * 2 + 1")));
    CHECK(!oom_pymodel_carries_graph(p.model, oom_test_node_at(&p, "(out.logits == y).sum()")));
    CHECK(oom_pymodel_in_loop(p.model, oom_test_node_at(&p, "loss * 2")));
    oom_test_parsed_free(&p);
}

/* A call of an instance of the file's own module class, directly or through
 * a wrapper (deepspeed.initialize, accelerator.prepare, DDP, torch.compile,
 * .to), answers "has history" for each unpacked element by what the class's
 * forward returns there; what the model cannot see into stays "has". */
static void own_instances_through_wrappers(void)
{
    parsed p = oom_test_parse(
        "import deepspeed, math, torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
        "class RF(torch.nn.Module):\n"
        "    def forward(self, x, cond):\n"
        "        t = torch.sigmoid(torch.randn((x.size(0),)).to(x.device)) * math.sqrt(2)\n"
        "        mse = ((x - self.model(x, t, cond)) ** 2).mean(dim=1)\n"
        "        tlist = mse.detach().cpu().tolist()\n"
        "        pairs = [(tv, tl) for tv, tl in zip(t, tlist)]\n"
        "        return mse.mean(), {\"batchwise_loss\": pairs}\n"
        "class Plain(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        for blk in self.blocks:\n"
        "            x = blk(x)\n"
        "        return x, [v for v in x]\n"
        "def train(model, loader, acc):\n"
        "    rf_model = RF(model)\n"
        "    model_engine, opt, _, _ = deepspeed.initialize(model=rf_model, config={})\n"
        "    ddp_model = DDP(RF(model).to(0), device_ids=[0])\n"
        "    net, opt2 = acc.prepare(torch.compile(RF(model)), opt)\n"
        "    backbone = Plain()\n"
        "    for x, c in loader:\n"
        "        l1, i1 = model_engine(x, c)\n"
        "        l2, i2 = ddp_model(x, c)\n"
        "        l3, i3 = net(x, c)\n"
        "        l4, i4 = rf_model(x, c)\n"
        "        l5, i5 = backbone(x)\n"
        "        s1 = i1\n        s2 = i2\n        s3 = i3\n        s4 = i4\n        s5 = i5\n"
        "        s6 = l1\n        s7 = l4\n        s8 = l5\n");
    static const char *const without[] = {"s1 = i1", "s2 = i2", "s3 = i3", "s4 = i4"};
    static const char *const with[] = {"s5 = i5", "s6 = l1", "s7 = l4", "s8 = l5"};
    for (size_t i = 0; i < 4; i++) {
        TSNode right = ts_node_child_by_field_name(oom_test_node_at(&p, without[i]), "right", 5);
        CHECK(!oom_pymodel_carries_graph(p.model, right));
        right = ts_node_child_by_field_name(oom_test_node_at(&p, with[i]), "right", 5);
        CHECK(oom_pymodel_carries_graph(p.model, right));
    }
    oom_test_parsed_free(&p);
}

/* The classes whose forward runs without grad, exported for the files that
 * import them; `c = Imported(...)` then `c(x)` is a forward whose answer
 * waits on the defining file twice over: that the class is a module there
 * ("module<TAB>module<TAB>Class", which must be confirmed) and that its
 * forward keeps activations ("fwdgrad<TAB>module<TAB>Class", which may be
 * overturned). Asked without waiting on other files, it is no known forward. */
static void forwards_without_grad_across_files(void)
{
    parsed p = oom_test_parse(
        "import torch\nfrom torch import nn\n"
        "class Wrapped(nn.Module):\n    def forward(self, x):\n"
        "        with torch.inference_mode():\n            return self.m(x)\n"
        "class Decorated(nn.Module):\n    @torch.no_grad()\n    def forward(self, x):\n        return self.m(x)\n"
        "class Plain(nn.Module):\n    def forward(self, x):\n        return self.m(x)\n");
    oom_buf names;
    oom_buf_init(&names);
    oom_pymodel_no_grad_forward_classes(p.model, &names);
    CHECK(names.len == strlen("Wrapped") + 1 + strlen("Decorated") + 1);
    CHECK(names.data && strcmp(names.data, "Wrapped") == 0 && strcmp(names.data + 8, "Decorated") == 0);
    oom_buf_clear(&names);
    oom_pymodel_module_classes(p.model, &names);
    CHECK(names.len == strlen("Wrapped") + strlen("Decorated") + strlen("Plain") + 3);
    oom_buf_free(&names);
    oom_test_parsed_free(&p);

    p = oom_test_parse("from pkg.utils import Wrapper as W, Other\nclass Local:\n    pass\n"
                       "def run_eval(model, x):\n    feature_model = W(model)\n    out = feature_model(x)\n"
                       "    other_model = Other(model)\n    y = other_model(x)\n"
                       "    local_model = Local()\n    z = local_model(x)\n");
    CHECK(!oom_pymodel_is_model_call(p.model, oom_test_node_at(&p, "feature_model(x)")));
    oom_buf cond, pending;
    oom_buf_init(&cond);
    oom_buf_init(&pending);
    oom_pymodel_collect_conditions(p.model, &cond);
    oom_pymodel_collect_pending(p.model, &pending);
    CHECK(oom_pymodel_is_model_call(p.model, oom_test_node_at(&p, "feature_model(x)")));
    CHECK_STR(cond.data ? cond.data : "", "fwdgrad\tpkg.utils\tWrapper");
    CHECK_STR(pending.data ? pending.data : "", "module\tpkg.utils\tWrapper");
    CHECK(oom_pymodel_is_model_call(p.model, oom_test_node_at(&p, "other_model(x)")));
    CHECK_STR(cond.data ? cond.data : "", "fwdgrad\tpkg.utils\tWrapper\nfwdgrad\tpkg.utils\tOther");
    CHECK_STR(pending.data ? pending.data : "", "module\tpkg.utils\tWrapper\nmodule\tpkg.utils\tOther");
    oom_buf_clear(&cond);
    oom_buf_clear(&pending);
    /* a class of the file with no module base and no forward is no module */
    CHECK(!oom_pymodel_is_model_call(p.model, oom_test_node_at(&p, "local_model(x)")));
    CHECK(cond.len == 0 && pending.len == 0);
    oom_pymodel_collect_conditions(p.model, NULL);
    oom_pymodel_collect_pending(p.model, NULL);
    CHECK(!oom_pymodel_is_model_call(p.model, oom_test_node_at(&p, "feature_model(x)")));
    CHECK(cond.len == 0 && pending.len == 0);
    oom_buf_free(&cond);
    oom_buf_free(&pending);
    oom_test_parsed_free(&p);
}

static void word_parts(void)
{
    static const char *const words[] = {"eval", "validation", NULL};
    CHECK(oom_name_has_word("run_validation", 14, words));
    CHECK(oom_name_has_word("evalEpoch", 9, words));
    CHECK(oom_name_has_word("EvalLoop", 8, words));
    CHECK(!oom_name_has_word("medieval", 8, words));
    CHECK(!oom_name_has_word("evaluate", 8, words));
}

/* A value through names, a dtype table and either branch of a choice; and
 * whether the choice is the run's own switch. */
static void values_through_choices(void)
{
    parsed p = oom_test_parse("import torch\n"
                              "a = 'bfloat16' if torch.cuda.is_bf16_supported() else 'float16'\n"
                              "ta = {'float16': torch.float16, 'bfloat16': torch.bfloat16}[a]\n"
                              "b = 'bfloat16' if args.bf16 else 'float16'\n"
                              "tb = {'float16': torch.float16, 'bfloat16': torch.bfloat16}[b]\n"
                              "c = 'float32' if x else 'float16'\n"
                              "tc = {'float16': torch.float16, 'bfloat16': torch.bfloat16}[c]\n"
                              "use(ta, tb, tc)\n");
    const char *bf16[] = {"torch.bfloat16"};
    oom_buf scratch;
    oom_buf_init(&scratch);
    TSNode use = oom_test_node_at(&p, "use(ta, tb, tc)");
    TSNode args = ts_node_child_by_field_name(use, "arguments", 9);
    TSNode ta = ts_node_named_child(args, 0), tb = ts_node_named_child(args, 1), tc = ts_node_named_child(args, 2);
    CHECK(oom_pymodel_holds(p.model, ta, bf16, 1, &scratch));
    CHECK(oom_pymodel_holds(p.model, tb, bf16, 1, &scratch));
    CHECK(!oom_pymodel_holds(p.model, tc, bf16, 1, &scratch));
    int err;
    PCRE2_SIZE off;
    const char *re = "(?i)(?<!is_)bf16(?!_supported)|bfloat|dtype|precision|fp16|half|amp";
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
    CHECK(code != NULL);
    CHECK(!oom_pymodel_value_follows_switch(p.model, ta, code));
    CHECK(oom_pymodel_value_follows_switch(p.model, tb, code));
    /* a lambda made under the switch's branch runs only when it was chosen;
     * one made outside any branch follows nothing */
    parsed q = oom_test_parse("import torch\n"
                              "def get(precision):\n    if precision == 'amp_bf16':\n"
                              "        return lambda: torch.autocast('cuda', dtype=torch.bfloat16)\n"
                              "def always():\n    return lambda: torch.autocast('cuda', dtype=torch.float16)\n");
    CHECK(oom_pymodel_follows_switch(q.model, oom_test_node_at(&q, "dtype=torch.bfloat16"), code));
    CHECK(!oom_pymodel_follows_switch(q.model, oom_test_node_at(&q, "dtype=torch.float16"), code));
    oom_test_parsed_free(&q);
    pcre2_code_free(code);
    oom_buf_free(&scratch);
    oom_test_parsed_free(&p);
}

/* CUDA_VISIBLE_DEVICES values that leave no GPU: empty, a negative first
 * entry, through a name; a list that starts with a device is GPUs. */
static void values_that_hide_every_gpu(void)
{
    parsed p = oom_test_parse("NONE = ''\nuse('', '-1', ' -1,0', NONE, '0', '0,-1', 'GPU-5d1', x)\n");
    TSNode use = oom_test_node_at(&p, "use(");
    while (!ts_node_is_null(use) && strcmp(ts_node_type(use), "call") != 0)
        use = ts_node_parent(use);
    TSNode args = ts_node_child_by_field_name(use, "arguments", 9);
    for (uint32_t i = 0; i < 4; i++)
        CHECK(oom_pymodel_hides_every_gpu(p.model, ts_node_named_child(args, i)));
    for (uint32_t i = 4; i < 8; i++)
        CHECK(!oom_pymodel_hides_every_gpu(p.model, ts_node_named_child(args, i)));
    oom_test_parsed_free(&p);
}

/* Whole-file kinds: a script that builds a diffusers denoiser; one that runs a
 * model and trains nothing; a module that runs no model is neither. */
static void file_kinds(void)
{
    parsed sd = oom_test_parse("from diffusers import UNet2DConditionModel as U\n"
                               "unet = U.from_pretrained(path, subfolder='unet')\n");
    CHECK(oom_pymodel_loads_diffusion_model(sd.model));
    oom_test_parsed_free(&sd);
    parsed util = oom_test_parse("from diffusers.optimization import get_scheduler\n"
                                 "sched = get_scheduler('linear', optimizer)\n");
    CHECK(!oom_pymodel_loads_diffusion_model(util.model));
    oom_test_parsed_free(&util);
    parsed eval = oom_test_parse("import torch\n"
                                 "from transformers import AutoModelForSequenceClassification\n"
                                 "model = AutoModelForSequenceClassification.from_pretrained('x')\n"
                                 "model.eval()\n"
                                 "with torch.no_grad():\n"
                                 "    out = model(**batch)\n");
    CHECK(oom_pymodel_only_infers(eval.model));
    oom_test_parsed_free(&eval);
    parsed train = oom_test_parse("from transformers import AutoModelForSequenceClassification\n"
                                  "model = AutoModelForSequenceClassification.from_pretrained('x')\n"
                                  "out = model(**batch)\n"
                                  "out.loss.backward()\n");
    CHECK(!oom_pymodel_only_infers(train.model));
    oom_test_parsed_free(&train);
    parsed data = oom_test_parse("def build(tok, texts):\n"
                                 "    return [tok(t, padding='max_length') for t in texts]\n");
    CHECK(!oom_pymodel_only_infers(data.model));
    oom_test_parsed_free(&data);
}

void test_model_suite(void)
{
    oom_test_run("model: qualified names through aliases", qualified_names);
    oom_test_run("model: autograd history", history);
    oom_test_run("values: CUDA_VISIBLE_DEVICES strings that leave no GPU", values_that_hide_every_gpu);
    oom_test_run("model: an own module's instance, wrapped or not, answers by its forward's returns",
                 own_instances_through_wrappers);
    oom_test_run("model: forwards without grad exported, and imported instances' calls wait on them",
                 forwards_without_grad_across_files);
    oom_test_run("model: name word parts", word_parts);
    oom_test_run("model: values through names, tables and choices", values_through_choices);
    oom_test_run("model: diffusion and inference-only files", file_kinds);
}

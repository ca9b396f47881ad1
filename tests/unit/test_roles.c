/* model/roles and kb/library: what a value is from where it comes from and
 * how it is used, the library knowledge as data, never the value's name. */
#include <string.h>

#include "harness.h"
#include "oomlint/library.h"
#include "oomlint/rules.h"

static bool forward(const parsed *p, const char *call)
{
    return oom_pymodel_is_model_call(p->model, oom_test_node_at(p, call));
}

/* The patterns of the library knowledge: one name a segment, `**` any
 * number of segments. */
static void patterns(void)
{
    const oom_library *lib = oom_library_get();
    CHECK(lib != NULL);
    if (!lib)
        return;
    int tok = oom_qpattern_find(lib->not_modules, lib->not_module_count, "transformers.AutoTokenizer.from_pretrained");
    CHECK(tok >= 0);
    CHECK(oom_qpattern_find(lib->not_modules, lib->not_module_count, "torch.nn.CrossEntropyLoss") >= 0);
    CHECK(oom_qpattern_find(lib->not_modules, lib->not_module_count, "torch.nn.Dropout") >= 0);
    CHECK(oom_qpattern_find(lib->not_modules, lib->not_module_count, "torch.nn.Linear") < 0);
    CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, "torch.nn.Linear") >= 0);
    CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, "torchvision.models.resnet50") >= 0);
    CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, "torchvision.models.detection.fasterrcnn_resnet50_fpn") >= 0);
    CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, "torch.nn.functional.relu") < 0);
    CHECK(oom_qpattern_find(lib->bases, lib->base_count, "lightning.pytorch.LightningModule") >= 0);
    /* literal segments are compared whole, wildcard ones globbed, `**` any
     * number: `torch.nn.modules.**.[A-Z]*` and the literal `timm.create_model` */
    CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, "torch.nn.modules.conv.Conv2d") >= 0);
    CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, "torch.nn.modules.conv.conv2d") < 0);
    CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, "torch.nnx.Linear") < 0);
    CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, "timm.create_model") >= 0);
    CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, "timm.create_mode") < 0);
    CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, "timm.create_models") < 0);
    CHECK(oom_qpattern_match(&lib->constructors[oom_qpattern_find(lib->constructors, lib->constructor_count,
                                                                  "timm.create_model")],
                             "timm.create_model"));
    {
        char deep[200] = "torchvision.models";
        for (int i = 0; i < 70; i++) /* more segments than a name may have: no match, no overflow */
            strcat(deep, ".a");
        CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, deep) < 0);
        char wide[700];
        memset(wide, 'x', sizeof wide - 1);
        wide[sizeof wide - 1] = '\0';
        memcpy(wide, "torchvision.models.", 19);
        CHECK(oom_qpattern_find(lib->constructors, lib->constructor_count, wide) < 0); /* longer than a name may be */
    }
    CHECK(oom_library_lists(&lib->use_evidence, "named_parameters", 16));
    CHECK(!oom_library_lists(&lib->use_evidence, "state_dict", 10)); /* optimizers have one too */
    /* what values are, as data: placing a module, leaving the graph, text */
    CHECK(oom_library_lists(&lib->placing_methods, "to_empty", 8) && !oom_library_lists(&lib->placing_methods, "eval", 4));
    CHECK(oom_library_lists(&lib->placing_keywords, "device_map", 10));
    CHECK(oom_library_lists(&lib->default_device_functions, "set_default_device", 18));
    CHECK(oom_library_lists(&lib->graph_leaving_methods, "tolist", 6) && !oom_library_lists(&lib->graph_leaving_methods, "mean", 4));
    CHECK(oom_library_lists(&lib->number_builtins, "len", 3));
    CHECK(oom_library_lists(&lib->text_methods, "batch_decode", 12));
    /* command-line options declared by decorators, by qualified name */
    CHECK(oom_library_lists(&lib->option_decorators, "click.option", 12));
    CHECK(!oom_library_lists(&lib->option_decorators, "click.command", 13));
    CHECK(oom_library_lists(&lib->flag_definers, "absl.flags.DEFINE_integer", 25));
    CHECK(oom_library_lists(&lib->int_flag_definers, "absl.flags.DEFINE_integer", 25));
    CHECK(!oom_library_lists(&lib->int_flag_definers, "absl.flags.DEFINE_float", 23));
    CHECK(oom_library_lists(&lib->bool_flag_definers, "absl.flags.DEFINE_bool", 22));
    /* mixed precision set by an opt_level */
    CHECK(oom_library_lists(&lib->opt_level_initializers, "apex.amp.initialize", 19));
}

/* Environments by id, and what says which parameters an optimizer
 * trains, as data. */
static void environments_and_training(void)
{
    const oom_library *lib = oom_library_get();
    CHECK(lib != NULL);
    if (!lib)
        return;
    CHECK(oom_library_lists(&lib->environment_makers, "gym.make", 8));
    CHECK(oom_library_lists(&lib->environment_makers, "gymnasium.make", 14));
    const oom_lib_environment *hopper = oom_library_environment(lib, "Hopper-v3");
    CHECK(hopper && hopper->observation.rank == 1 && hopper->observation.shape[0] == 11);
    CHECK(hopper && hopper->action.rank == 1 && hopper->action.shape[0] == 3);
    const oom_lib_environment *cart = oom_library_environment(lib, "CartPole-v1");
    CHECK(cart && cart->action.rank == 0 && cart->action.n == 2 && cart->observation.shape[0] == 4);
    /* versions differ where the environments do: Humanoid-v5 drops 28 values */
    const oom_lib_environment *h4 = oom_library_environment(lib, "Humanoid-v4");
    const oom_lib_environment *h5 = oom_library_environment(lib, "Humanoid-v5");
    CHECK(h4 && h5 && h4->observation.shape[0] == 376 && h5->observation.shape[0] == 348);
    CHECK(oom_library_environment(lib, "Hopper") == NULL);
    CHECK(oom_library_environment(lib, "MyCustomEnv-v0") == NULL);
    CHECK(oom_library_lists(&lib->optimizer_constructors, "torch.optim.AdamW", 17));
    CHECK(!oom_library_lists(&lib->optimizer_constructors, "torch.optim.lr_scheduler.StepLR", 31));
    CHECK(oom_library_lists(&lib->parameter_methods, "parameters", 10));
}

/* The embedded library file with one piece of text replaced: a section
 * made malformed, the rest whole. */
static oom_library *parse_with(const char *from, const char *to, oom_buf *err)
{
    const char *text = NULL;
    for (size_t i = 0; i < oom_embedded_rule_file_count; i++)
        if (strcmp(oom_embedded_rule_files[i].path, "kb/library.json") == 0)
            text = oom_embedded_rule_files[i].data;
    const char *at = text ? strstr(text, from) : NULL;
    if (!at)
        return NULL;
    oom_buf b;
    oom_buf_init(&b);
    oom_buf_printf(&b, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    oom_library *lib = oom_library_parse(b.data, b.len, err);
    oom_buf_free(&b);
    return lib;
}

/* A malformed environment is refused with the reason: a width of 0, no
 * ids, a Discrete space without n. */
static void malformed_environments(void)
{
    static const char *const bad[][2] = {
        {"\"observation\": [17]", "\"observation\": [0]"},
        {"\"ids\": [\"CartPole-v0\", \"CartPole-v1\"]", "\"ids\": []"},
        {"\"action\": {\"n\": 2}", "\"action\": {\"count\": 2}"},
        {"\"makers\": [\"gym.make\", \"gymnasium.make\"]", "\"makers\": \"gym.make\""},
    };
    oom_buf err;
    oom_buf_init(&err);
    oom_library *whole = parse_with("\"observation\": [17]", "\"observation\": [17]", &err);
    CHECK(whole != NULL); /* the replacement itself breaks nothing */
    oom_library_free(whole);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        oom_buf_free(&err);
        oom_buf_init(&err);
        oom_library *lib = parse_with(bad[i][0], bad[i][1], &err);
        CHECK(lib == NULL);
        CHECK(err.len > 0 && (strstr(err.data, "environments") || strstr(err.data, "makers")));
        oom_library_free(lib);
    }
    oom_buf_free(&err);
}

/* A malformed library file is refused with the reason, never half read. */
static void malformed_library(void)
{
    static const char *const bad[] = {
        "", "[]", "{\"modules\": 1}", "{\"modules\": {\"not_modules\": [{}]}}",
        "{\"modules\": {\"not_modules\": [], \"constructors\": [], \"bases\": [], \"wrappers\": [{\"call\": \"x\"}]}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        oom_buf err;
        oom_buf_init(&err);
        oom_library *lib = oom_library_parse(bad[i], strlen(bad[i]), &err);
        CHECK(lib == NULL);
        CHECK(err.len > 0);
        oom_buf_free(&err);
    }
}

/* Constructors and factories by qualified name, the file's own classes,
 * wrappers, and what is not a module whatever it is called. */
static void constructed(void)
{
    parsed p = oom_test_parse(
        "import timm, torch\nfrom torch import nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
        "from transformers import AutoModel, AutoTokenizer\n"
        "class Net(nn.Module):\n    pass\n"
        "class Helper:\n    pass\n"
        "def f(x):\n"
        "    net_g = timm.create_model('resnet50')\n    net_g(x)\n"
        "    enc = AutoModel.from_pretrained('bert-base-uncased')\n    enc(x)\n"
        "    model = AutoTokenizer.from_pretrained('bert-base-uncased')\n    model(x)\n"
        "    ddp = DDP(Net())\n    ddp(x)\n"
        "    compiled = torch.compile(nn.Linear(2, 2))\n    compiled(x)\n"
        "    helper = Helper()\n    helper(x)\n"
        "    criterion = nn.CrossEntropyLoss()\n    criterion(x, x)\n");
    CHECK(forward(&p, "net_g(x)"));
    CHECK(forward(&p, "enc(x)"));
    CHECK(!forward(&p, "model(x)")); /* a tokenizer, called `model` */
    CHECK(forward(&p, "ddp(x)"));
    CHECK(forward(&p, "compiled(x)"));
    CHECK(!forward(&p, "helper(x)"));
    CHECK(!forward(&p, "criterion(x, x)"));
    oom_test_parsed_free(&p);
}

/* What the code does with a value: module-only methods, a wrapper given it,
 * a model output's fields read off its result. */
static void used(void)
{
    parsed p = oom_test_parse("def f(mnetwork, thing, other, batch):\n"
                              "    mnetwork.eval()\n    mnetwork(batch)\n"
                              "    out = thing(batch)\n    print(out.logits)\n"
                              "    other(batch)\n");
    CHECK(forward(&p, "mnetwork(batch)"));
    CHECK(forward(&p, "thing(batch)"));
    CHECK(!forward(&p, "other(batch)")); /* nothing shows a module: unknown, quiet */
    oom_test_parsed_free(&p);
}

/* Through parameters bound at the file's call sites (functions, methods,
 * constructors), self attributes set anywhere in the class, containers with
 * fixed keys, and a framework hook's parameter. */
static void dataflow(void)
{
    parsed p = oom_test_parse(
        "from torch import nn\nfrom fairseq.criterions import FairseqCriterion\n"
        "def run(generator, z):\n    return generator(z)\n"
        "class Holder:\n    def __init__(self, model):\n        self.model = model\n"
        "    def step(self, x):\n        return self.model(x)\n"
        "class Gan:\n    def __init__(self):\n        self.models = {'g': nn.Linear(2, 2), 'd': nn.Linear(2, 1)}\n"
        "    def sample(self, z):\n        return self.models['g'](z)\n"
        "class Loss(FairseqCriterion):\n    def forward(self, model, sample):\n        return model(**sample)\n"
        "def main(z):\n    g = nn.Linear(2, 2)\n    run(g, z)\n    Holder(g).step(z)\n");
    CHECK(forward(&p, "generator(z)"));
    CHECK(forward(&p, "self.model(x)"));
    CHECK(forward(&p, "self.models['g'](z)"));
    CHECK(forward(&p, "model(**sample)"));
    oom_test_parsed_free(&p);
}

/* A parameter no call in the file binds is a module only if another file
 * says so: the answer waits ("modarg<TAB>function<TAB>position<TAB>name"),
 * and only when waiting is asked for. */
static void waits_on_callers(void)
{
    parsed p = oom_test_parse("def evaluate(net, loader):\n    return [net(x) for x in loader]\n");
    CHECK(!forward(&p, "net(x)"));
    oom_buf pending;
    oom_buf_init(&pending);
    oom_pymodel_collect_pending(p.model, &pending);
    CHECK(forward(&p, "net(x)"));
    CHECK_STR(pending.data ? pending.data : "", "modarg\tevaluate\t0\tnet");
    oom_pymodel_collect_pending(p.model, NULL);
    oom_buf_free(&pending);
    oom_test_parsed_free(&p);
}

/* The calls' module arguments and the file's module classes, for the
 * project pass. */
static void facts_for_the_project(void)
{
    parsed p = oom_test_parse("from torch import nn\nclass A(nn.Module):\n    pass\nclass B(A):\n    pass\n"
                              "class C:\n    pass\n"
                              "def main(x):\n    m = nn.Linear(2, 2)\n    evaluate(x, m, net=m, data=x)\n");
    oom_buf names;
    oom_buf_init(&names);
    oom_pymodel_module_classes(p.model, &names);
    CHECK(names.len == 4 && strcmp(names.data, "A") == 0 && strcmp(names.data + 2, "B") == 0);
    oom_buf_clear(&names);
    size_t call = oom_pymodel_call_count(p.model);
    uint32_t mask = 0;
    for (size_t i = 0; i < call; i++) {
        uint32_t len;
        bool off;
        const char *name = oom_pymodel_call_at(p.model, i, &len, &off);
        if (len == 8 && memcmp(name, "evaluate", 8) == 0)
            oom_pymodel_call_module_args(p.model, i, &mask, &names);
    }
    CHECK(mask == 2u);
    CHECK_STR(names.data ? names.data : "", "net");
    oom_buf_free(&names);
    oom_test_parsed_free(&p);
}

/* A loader open to any receiver (`**.from_pretrained`) makes a module of a
 * class the file names (an import, a name bound to one, its own class), not
 * of an object whose class it does not show; that one is a module only by
 * how it is used. */
static void loaders_of_unknown_objects(void)
{
    parsed p = oom_test_parse("from transformers import AutoModel\n"
                              "family = AutoModel\n"
                              "def run(registry, name, x):\n"
                              "    a = AutoModel.from_pretrained(name)\n    a(x_a)\n"
                              "    b = family.from_pretrained(name)\n    b(x_b)\n"
                              "    c = registry.tokenizer.from_pretrained(name)\n    c(x_c)\n"
                              "    d = registry.model.from_pretrained(name)\n    d.eval()\n    d(x_d)\n");
    CHECK(forward(&p, "a(x_a)"));
    CHECK(forward(&p, "b(x_b)"));
    CHECK(!forward(&p, "c(x_c)"));
    CHECK(forward(&p, "d(x_d)"));
    oom_test_parsed_free(&p);
}

void test_roles_suite(void)
{
    oom_test_run("roles: the library knowledge's patterns", patterns);
    oom_test_run("roles: a loader on an object of unknown class", loaders_of_unknown_objects);
    oom_test_run("roles: a malformed library file is refused", malformed_library);
    oom_test_run("roles: environments by id, optimizers' parameters, as data", environments_and_training);
    oom_test_run("roles: a malformed environment is refused with the reason", malformed_environments);
    oom_test_run("roles: constructors, own classes, wrappers; a tokenizer is no module", constructed);
    oom_test_run("roles: module-only methods and model-output fields", used);
    oom_test_run("roles: parameters, self attributes, keyed containers, framework hooks", dataflow);
    oom_test_run("roles: a parameter no call binds waits on the project", waits_on_callers);
    oom_test_run("roles: module arguments and module classes for the project pass", facts_for_the_project);
}

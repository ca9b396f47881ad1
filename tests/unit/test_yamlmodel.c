/* The YAML config model: kinds by keys, scalars as PyYAML reads them, dotted
 * paths, aliases and merge keys looked up without expansion. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "oomlint/lang.h"
#include "oomlint/yamlmodel.h"

typedef struct {
    TSParser *parser;
    TSTree *tree;
    oom_yamlmodel *m;
    oom_buf value;
} yaml_case;

static void open_case(yaml_case *c, const char *text)
{
    c->parser = ts_parser_new();
    ts_parser_set_language(c->parser, oom_lang_grammar(OOM_LANG_YAML));
    c->tree = ts_parser_parse_string(c->parser, NULL, text, (uint32_t)strlen(text));
    c->m = oom_yamlmodel_build(c->tree, text, strlen(text));
    oom_buf_init(&c->value);
}

static void close_case(yaml_case *c)
{
    oom_buf_free(&c->value);
    oom_yamlmodel_free(c->m);
    ts_tree_delete(c->tree);
    ts_parser_delete(c->parser);
}

static const char *value_at(yaml_case *c, const char *path, oom_yaml_value_type *type)
{
    TSNode first = {{0}, NULL, NULL};
    *type = oom_yamlmodel_lookup(c->m, first, path, &c->value);
    return *type == OOM_YAML_VALUE_NONE ? "(none)" : c->value.data;
}

static void kinds_by_keys(void)
{
    static const struct {
        const char *text;
        unsigned kinds;
    } cases[] = {
        {"compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nmixed_precision: bf16\n",
         OOM_YAML_ACCELERATE},
        {"mixed_precision: fp16\nnum_processes: 8\n", OOM_YAML_ACCELERATE},
        {"base_model: x\nsequence_len: 2048\nnum_epochs: 1\nlearning_rate: 0.0002\n", OOM_YAML_AXOLOTL},
        /* axolotl spells no Trainer argument: eval_strategy there does not make a recipe */
        {"base_model: x\nmicro_batch_size: 1\neval_strategy: steps\n", OOM_YAML_AXOLOTL},
        {"model_name_or_path: x\nstage: sft\nfinetuning_type: lora\n",
         OOM_YAML_LLAMA_FACTORY | OOM_YAML_TRAINING_ARGS},
        {"model_name_or_path: x\nper_device_train_batch_size: 4\nbf16: true\n", OOM_YAML_TRAINING_ARGS},
        {"trainer:\n  precision: 16-mixed\nmodel:\n  class_path: M\n", OOM_YAML_LIGHTNING},
        {"checkpoint_dir: checkpoints/x\nout_dir: out/x\nprecision: bf16-true\ntrain:\n  micro_batch_size: 2\n",
         OOM_YAML_LITGPT},
        /* a checkpoint_dir alone says nothing */
        {"checkpoint_dir: x\n", 0},
        {"name: ci\non: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n", 0},
        {"services:\n  web:\n    image: nginx\n", 0},
        {"apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n", 0},
        /* a trainer key that is not Lightning's section */
        {"trainer: hf\n", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        yaml_case c;
        open_case(&c, cases[i].text);
        if (oom_yamlmodel_kinds(c.m) != cases[i].kinds)
            printf("  case %zu: kinds %u, want %u\n", i, oom_yamlmodel_kinds(c.m), cases[i].kinds);
        CHECK(oom_yamlmodel_kinds(c.m) == cases[i].kinds);
        close_case(&c);
    }
}

static void scalars_as_pyyaml_reads_them(void)
{
    yaml_case c;
    open_case(&c, "a: yes\nb: Off\nc: TRUE\nd: 500_000\ne:\nf: ~\ng: 1e-5\nh: 1.0e-5\ni: \"true\"\n"
                  "j: 'x y'\nk: !!str 12\nl: !!python/name:torch.bfloat16\nm: +3\nn: -1_0\no: 0.5\np: y\n");
    oom_yaml_value_type t;
    CHECK_STR(value_at(&c, "a", &t), "true");
    CHECK(t == OOM_YAML_VALUE_BOOL);
    CHECK_STR(value_at(&c, "b", &t), "false");
    CHECK_STR(value_at(&c, "c", &t), "true");
    CHECK_STR(value_at(&c, "d", &t), "500000");
    CHECK(t == OOM_YAML_VALUE_INT);
    CHECK_STR(value_at(&c, "e", &t), "null");
    CHECK(t == OOM_YAML_VALUE_NULL);
    CHECK_STR(value_at(&c, "f", &t), "null");
    /* YAML 1.1 floats need a dot: PyYAML loads 1e-5 as a string */
    CHECK_STR(value_at(&c, "g", &t), "1e-5");
    CHECK(t == OOM_YAML_VALUE_STRING);
    CHECK_STR(value_at(&c, "h", &t), "1.0e-5");
    CHECK(t == OOM_YAML_VALUE_STRING);
    CHECK_STR(value_at(&c, "i", &t), "true");
    CHECK(t == OOM_YAML_VALUE_STRING);
    CHECK_STR(value_at(&c, "j", &t), "x y");
    CHECK_STR(value_at(&c, "k", &t), "12");
    CHECK(t == OOM_YAML_VALUE_STRING);
    value_at(&c, "l", &t);
    CHECK(t == OOM_YAML_VALUE_NULL); /* a tag alone is read, never resolved */
    CHECK_STR(value_at(&c, "m", &t), "3");
    CHECK_STR(value_at(&c, "n", &t), "-10");
    CHECK_STR(value_at(&c, "o", &t), "0.5");
    CHECK(t == OOM_YAML_VALUE_FLOAT);
    CHECK_STR(value_at(&c, "p", &t), "y"); /* PyYAML does not read y as true */
    CHECK(!ts_node_has_error(ts_tree_root_node(c.tree)));
    close_case(&c);
}

static void paths_aliases_and_merges(void)
{
    yaml_case c;
    open_case(&c, "base: &base\n  micro_batch_size: 2\n  bf16: &on true\n<<: *base\nbase_model: m\n"
                  "fp16: *on\ntrainer:\n  precision: bf16-mixed\n  inner: {precision: x}\n---\nbf16: false\n");
    oom_yaml_value_type t;
    CHECK_STR(value_at(&c, "micro_batch_size", &t), "2"); /* merged into the root */
    CHECK_STR(value_at(&c, "fp16", &t), "true");          /* through an alias */
    CHECK_STR(value_at(&c, "trainer.precision", &t), "bf16-mixed");
    CHECK_STR(value_at(&c, "trainer.inner.precision", &t), "x");
    CHECK_STR(value_at(&c, "trainer.missing", &t), "(none)");
    CHECK_STR(value_at(&c, "bf16", &t), "true"); /* the first document's, merged */
    CHECK_STR(oom_yamlmodel_model_id(c.m), "m");
    CHECK(oom_yamlmodel_kinds(c.m) & OOM_YAML_AXOLOTL);
    /* the merged pair counts as top level; the pair under trainer does not */
    TSNode first = {{0}, NULL, NULL};
    TSNode bf16 = oom_yamlmodel_find(c.m, first, "bf16");
    CHECK(oom_yamlmodel_pair_at(c.m, bf16, "bf16"));
    TSNode precision = oom_yamlmodel_find(c.m, first, "trainer.precision");
    CHECK(oom_yamlmodel_pair_at(c.m, precision, "trainer.precision"));
    CHECK(!oom_yamlmodel_pair_at(c.m, precision, "precision"));
    TSNode inner = oom_yamlmodel_find(c.m, first, "trainer.inner.precision");
    CHECK(!oom_yamlmodel_pair_at(c.m, inner, "trainer.precision"));
    /* the second document is its own */
    const char *text = "a: 1\n---\nbf16: false\n";
    yaml_case d;
    open_case(&d, text);
    TSNode root = ts_tree_root_node(d.tree);
    TSNode second = ts_node_named_child(root, 1);
    CHECK(oom_yamlmodel_lookup_bool(d.m, second, "bf16") == 0);
    CHECK(oom_yamlmodel_lookup_bool(d.m, first, "bf16") == -1);
    close_case(&d);
    close_case(&c);
}

static void aliases_are_not_expanded(void)
{
    /* 20 levels of 10 aliases: 10^20 copies if expanded; a few lookups here */
    oom_buf text;
    oom_buf_init(&text);
    oom_buf_puts(&text, "a0: &a0 [lol, lol]\n");
    for (int i = 1; i < 20; i++) {
        oom_buf_printf(&text, "a%d: &a%d [", i, i);
        for (int j = 0; j < 10; j++)
            oom_buf_printf(&text, "%s*a%d", j ? ", " : "", i - 1);
        oom_buf_puts(&text, "]\n");
    }
    oom_buf_puts(&text, "<<: [*a19, *self, *a3]\nself: &self {x: *self}\nbf16: *a19\n");
    yaml_case c;
    open_case(&c, text.data);
    oom_yaml_value_type t;
    value_at(&c, "bf16", &t);
    CHECK(t == OOM_YAML_VALUE_NONE); /* a sequence, not a scalar */
    CHECK_STR(value_at(&c, "self.x", &t), "(none)");
    close_case(&c);
    oom_buf_free(&text);
}

void test_yamlmodel_suite(void)
{
    oom_test_run("yamlmodel: kinds by keys", kinds_by_keys);
    oom_test_run("yamlmodel: scalars as PyYAML reads them", scalars_as_pyyaml_reads_them);
    oom_test_run("yamlmodel: paths, aliases, merge keys", paths_aliases_and_merges);
    oom_test_run("yamlmodel: aliases looked up, not expanded", aliases_are_not_expanded);
}

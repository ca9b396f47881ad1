/* Notebooks: IPython masking (source/ipython.c), reading nbformat 4 into one
 * module with its map (source/notebook.c), and placing findings in cells. */
#include <stdlib.h>

#include "harness.h"
#include "oomlint/ipython.h"
#include "oomlint/notebook.h"
#include "oomlint/source.h"

/* ---- masking ------------------------------------------------------------------------ */

static char *masked(const char *cell)
{
    oom_buf out;
    oom_buf_init(&out);
    oom_buf_append(&out, "", 0);
    oom_ipython_mask_cell(cell, strlen(cell), &out);
    return oom_buf_take(&out);
}

#define CHECK_MASK(cell, want)                                                                     \
    do {                                                                                           \
        char *got_ = masked(cell);                                                                 \
        CHECK_STR(got_, want);                                                                     \
        free(got_);                                                                                \
    } while (0)

static void line_magics_and_shell_become_pass(void)
{
    CHECK_MASK("%matplotlib inline\nimport torch\n", "pass              \nimport torch\n");
    CHECK_MASK("!nvidia-smi\nx = 1", "pass       \nx = 1\n");
    CHECK_MASK("!ls", "pass\n"); /* shorter than the placeholder: the line grows, no other moves */
    /* in a block, at the block's indentation, so the block stays valid */
    CHECK_MASK("for e in range(3):\n    !echo hi\n    x = e\n", "for e in range(3):\n    pass    \n    x = e\n");
    CHECK_MASK("/print a\n,f a b\n;f a b\n", "pass    \npass  \npass  \n");
}

static void help_lines_become_pass(void)
{
    CHECK_MASK("?torch.cuda\n", "pass       \n");
    CHECK_MASK("model.forward??\n", "pass           \n");
    CHECK_MASK("  np.*load*?\n", "  pass      \n");
    CHECK_MASK("x = a if b else c?\n", "x = a if b else c?\n"); /* not a name: Python's error to report */
    CHECK_MASK("# why?\n", "# why?\n");
}

static void automagic_lines_that_cannot_be_python(void)
{
    CHECK_MASK("pip install torch\n", "pass             \n");
    CHECK_MASK("  conda install -y x\n", "  pass              \n");
    CHECK_MASK("cd ../data\ncd ~/x\ncd \"a b\"\n", "pass      \npass  \npass    \n");
    CHECK_MASK("matplotlib inline\n", "pass             \n");
    /* what Python reads as Python stays Python */
    CHECK_MASK("time - start\n", "time - start\n");
    CHECK_MASK("pip = 3\n", "pip = 3\n");
    CHECK_MASK("run(x)\n", "run(x)\n");
    CHECK_MASK("history .append\n", "history .append\n");
    CHECK_MASK("pip in installers\n", "pip in installers\n");
    CHECK_MASK("cd /tmp\n", "cd /tmp\n");
    CHECK_MASK("install torch\n", "install torch\n"); /* not a magic: Python's error */
}

static void assignments_from_ipython_keep_their_target(void)
{
    CHECK_MASK("files = !ls -la\n", "files = get_ipython()\n");
    CHECK_MASK("a, b = %who_ls\n", "a, b = get_ipython()\n");
    CHECK_MASK("x != y\n", "x != y\n");
    CHECK_MASK("x = y % z\n", "x = y % z\n");
    CHECK_MASK("x %= 3\n", "x %= 3\n");
}

static void env_magic_becomes_the_assignment(void)
{
    CHECK_MASK("%env CUDA_VISIBLE_DEVICES=0\n", "os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0\"\n");
    CHECK_MASK("%env CUDA_VISIBLE_DEVICES = 0,1\n", "os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0,1\"\n");
    CHECK_MASK("%set_env CUDA_VISIBLE_DEVICES 2\n", "os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"2\"\n");
    CHECK_MASK("if x:\n    %env A=\"q\\\\\"  # noqa\n", "if x:\n    os.environ[\"A\"] = \"\\\"q\\\\\\\\\\\"\"  # noqa\n");
    /* reads, listings and values IPython expands are masked like any magic */
    CHECK_MASK("%env CUDA_VISIBLE_DEVICES\n", "pass                     \n");
    CHECK_MASK("%env\n", "pass\n");
    CHECK_MASK("%env A=$gpu\n", "pass       \n");
    CHECK_MASK("%env A={i}\n", "pass      \n");
    CHECK_MASK("%env 1A=0\n", "pass     \n");
    CHECK_MASK("%envx A=0\n", "pass     \n");
}

static void cell_magics(void)
{
    /* a foreign cell is empty lines, as many as it had */
    CHECK_MASK("%%bash\nfor x in 1 2; do\n  echo $x\ndone\n", "\n\n\n\n");
    CHECK_MASK("# write it\n%%writefile a.py\nimport os", "\n\n\n");
    /* the Python bodied ones lose only their own line */
    CHECK_MASK("%%time\nfor x in y:\n    !echo\n", "\nfor x in y:\n    pass \n");
    CHECK_MASK("\n%%capture out\nx = 1\n", "\n\nx = 1\n");
    /* only the first line that is not blank or a comment can be one */
    CHECK_MASK("x = 1\n%%bash\n", "x = 1\npass  \n");
}

static void python_text_is_never_taken_for_ipython(void)
{
    const char *strings = "doc = \"\"\"\n!ls\n%env A=1\nwhat?\n\"\"\"\ns = '''\n%x\n'''\n";
    CHECK_MASK(strings, strings);
    const char *brackets = "f(a,\n  !b)\nd = {\n ?x\n}\n";
    CHECK_MASK(brackets, brackets);
    const char *continued = "x = 1 + \\\n%2\n";
    CHECK_MASK(continued, continued);
    /* a string escape does not end the string; a one-line string ends with its line */
    CHECK_MASK("s = \"\\\"\"\n!ls\n", "s = \"\\\"\"\npass\n");
    CHECK_MASK("s = 'open\n!ls\n", "s = 'open\npass\n");
    CHECK_MASK("x = '#'; y = (\n!a)\n", "x = '#'; y = (\n!a)\n");
}

static void continued_ipython_lines_are_masked_whole(void)
{
    CHECK_MASK("!for f in *; do \\\n  echo $f; \\\ndone\nx = 1\n", "pass             \n\n\nx = 1\n");
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void masking_keeps_the_line_count(void)
{
    const char *cells[] = {"", "x", "x\n", "\n\n", "%%bash\n\n", "!a \\\n", "!a \\", "s = '''\n", "%%time"};
    size_t want[] = {0, 1, 1, 2, 2, 1, 1, 1, 1};
    for (size_t i = 0; i < sizeof cells / sizeof *cells; i++) {
        char *m = masked(cells[i]);
        CHECK(count_lines(m) == want[i]);
        free(m);
    }
}

/* ---- reading notebooks ---------------------------------------------------------------- */

static oom_notebook *parse_ok(const char *json)
{
    oom_notebook *nb = NULL;
    oom_notebook_error err;
    oom_notebook_status st = oom_notebook_parse(json, strlen(json), &nb, &err);
    if (st != OOM_NOTEBOOK_OK)
        printf("  notebook did not parse: %s\n", err.message);
    CHECK(st == OOM_NOTEBOOK_OK && nb);
    return nb;
}

static const char *module_of(const oom_notebook *nb)
{
    size_t len;
    return nb ? oom_notebook_code(nb, &len) : "";
}

static const char cells_json[] =
    "{\n"
    " \"cells\": [\n"
    "  {\"cell_type\": \"markdown\", \"source\": [\"# Title\\n\", \"text\"]},\n"
    "  {\"cell_type\": \"code\", \"source\": [\n"
    "    \"import os\\n\",\n"
    "    \"%env A=1\\n\",\n"
    "    \"x = 1\"\n"
    "  ]},\n"
    "  {\"cell_type\": \"raw\", \"source\": \"raw text\"},\n"
    "  {\"cell_type\": \"code\", \"source\": \"y = \\\"\\u00e9\\\"\\r\\nz = 2\\r\"},\n"
    "  {\"cell_type\": \"code\", \"source\": []},\n"
    "  {\"cell_type\": \"code\", \"source\": [\"a = \", \"(1,\\n\", \"2)\\n\"]}\n"
    " ],\n"
    " \"metadata\": {\"kernelspec\": {\"language\": \"python\"}},\n"
    " \"nbformat\": 4, \"nbformat_minor\": 5\n"
    "}\n";

static void code_cells_make_one_module(void)
{
    oom_notebook *nb = parse_ok(cells_json);
    CHECK_STR(module_of(nb), "import os\nos.environ[\"A\"] = \"1\"\nx = 1\n"
                             "y = \"\xC3\xA9\"\nz = 2\n"
                             "a = (1,\n2)\n");
    oom_notebook_free(nb);
}

static void module_lines_map_to_cells_and_file_lines(void)
{
    oom_notebook *nb = parse_ok(cells_json);
    uint32_t cell, row, file_row;
    CHECK(nb && oom_notebook_locate(nb, 1, &cell, &row, &file_row) && cell == 2 && row == 1 && file_row == 5);
    CHECK(nb && oom_notebook_locate(nb, 3, &cell, &row, &file_row) && cell == 2 && row == 3 && file_row == 7);
    /* one string, two lines: both on the string's line of the file */
    CHECK(nb && oom_notebook_locate(nb, 4, &cell, &row, &file_row) && cell == 4 && row == 1 && file_row == 10);
    CHECK(nb && oom_notebook_locate(nb, 5, &cell, &row, &file_row) && cell == 4 && row == 2 && file_row == 10);
    /* a line split over two strings belongs to the string it starts in */
    CHECK(nb && oom_notebook_locate(nb, 6, &cell, &row, &file_row) && cell == 6 && row == 1 && file_row == 12);
    CHECK(nb && !oom_notebook_locate(nb, 8, &cell, &row, &file_row));
    CHECK(nb && !oom_notebook_locate(nb, 0, &cell, &row, &file_row));
    oom_notebook_free(nb);
}

static oom_notebook_status parse_error(const char *json, oom_notebook_error *err)
{
    oom_notebook *nb = NULL;
    oom_notebook_status st = oom_notebook_parse(json, strlen(json), &nb, err);
    CHECK(st == OOM_NOTEBOOK_OK || nb == NULL);
    oom_notebook_free(nb);
    return st;
}

static void broken_notebooks_say_what_and_where(void)
{
    oom_notebook_error e;
    CHECK(parse_error("{\"cells\": [}", &e) == OOM_NOTEBOOK_NOT_JSON && e.row == 1);
    CHECK(strstr(e.message, "not valid JSON") != NULL);
    CHECK(parse_error("", &e) == OOM_NOTEBOOK_NOT_JSON && strstr(e.message, "holds no value"));
    CHECK(parse_error("{} {}", &e) == OOM_NOTEBOOK_NOT_JSON && e.col == 4);
    CHECK(parse_error("[]", &e) == OOM_NOTEBOOK_INVALID && strstr(e.message, "holds an array"));
    CHECK(parse_error("{\"nbformat\": 4}", &e) == OOM_NOTEBOOK_INVALID && strstr(e.message, "no `cells` array"));
    CHECK(parse_error("{\"cells\": {}}", &e) == OOM_NOTEBOOK_INVALID && strstr(e.message, "`cells` is an object"));
    CHECK(parse_error("{\"nbformat\": 3, \"worksheets\": []}", &e) == OOM_NOTEBOOK_INVALID &&
          strstr(e.message, "nbformat 3") && e.row == 1 && e.col == 14);
    CHECK(parse_error("{\"cells\": [\n \"x\"]}", &e) == OOM_NOTEBOOK_INVALID && strstr(e.message, "cell 1 is a string") &&
          e.row == 2 && e.col == 2);
    CHECK(parse_error("{\"cells\": [{\"cell_type\": \"markdown\"},\n{\"cell_type\": \"code\", \"source\": null}]}", &e) ==
              OOM_NOTEBOOK_INVALID &&
          strstr(e.message, "cell 2: `source` is null") && e.row == 2);
    CHECK(parse_error("{\"cells\": [{\"cell_type\": \"code\", \"source\": [\"a\", true]}]}", &e) ==
              OOM_NOTEBOOK_INVALID &&
          strstr(e.message, "holds a boolean"));
    CHECK(parse_error("{\"cells\": [{\"cell_type\": \"code\"}]}", &e) == OOM_NOTEBOOK_INVALID &&
          strstr(e.message, "without `source`"));
    CHECK(parse_error("{\"cells\": [{\"cell_type\": \"code\", \"source\": \"\\u0000\"}]}", &e) ==
              OOM_NOTEBOOK_INVALID &&
          strstr(e.message, "NUL"));
    CHECK(parse_error("{\"cells\": [{\"cell_type\": \"code\", \"source\": \"\\ud800\"}]}", &e) ==
              OOM_NOTEBOOK_INVALID &&
          strstr(e.message, "surrogate"));
    /* a literal backslash before u0000 is text, not a NUL */
    CHECK(parse_error("{\"cells\": [{\"cell_type\": \"code\", \"source\": \"s = '\\\\u0000'\"}]}", &e) == OOM_NOTEBOOK_OK);
}

static void other_languages_and_versions(void)
{
    oom_notebook_error e;
    CHECK(parse_error("{\"metadata\": {\"kernelspec\": {\"language\": \"R\"}}, \"cells\": []}", &e) ==
          OOM_NOTEBOOK_NOT_PYTHON);
    CHECK(parse_error("{\"metadata\": {\"language_info\": {\"name\": \"julia\"}}, \"cells\": []}", &e) ==
          OOM_NOTEBOOK_NOT_PYTHON);
    CHECK(parse_error("{\"metadata\": {\"language_info\": {\"name\": \"Python\"}}, \"cells\": []}", &e) ==
          OOM_NOTEBOOK_OK);
    /* a notebook that does not give its version or language is read */
    CHECK(parse_error("{\"cells\": [{\"cell_type\": \"code\", \"source\": \"x = 1\"}]}", &e) == OOM_NOTEBOOK_OK);
    CHECK(parse_error("{\"nbformat\": 5, \"cells\": []}", &e) == OOM_NOTEBOOK_OK);
}

/* ---- placing findings -------------------------------------------------------------------- */

static oom_diag finding(uint32_t row, uint32_t col, uint32_t end_row, uint32_t end_col)
{
    oom_diag d;
    memset(&d, 0, sizeof d);
    d.start_row = row, d.start_col = col, d.end_row = end_row, d.end_col = end_col;
    d.context = oom_xstrdup("masked text");
    return d;
}

static void findings_move_into_their_cells(void)
{
    oom_notebook *nb = parse_ok(cells_json);
    if (!nb)
        return;
    /* the %env line: the span of the rewritten assignment is held to the line as written */
    oom_diag d = finding(2, 1, 2, 30);
    oom_notebook_place(nb, &d);
    CHECK(d.cell == 2 && d.start_row == 2 && d.start_col == 1 && d.end_row == 2 && d.end_col == 9);
    CHECK(d.file_start_row == 6 && d.file_end_row == 6);
    CHECK_STR(d.context, "%env A=1");
    /* placing twice changes nothing */
    oom_notebook_place(nb, &d);
    CHECK(d.cell == 2 && d.start_row == 2);
    free(d.context);
    /* a span that runs into the next code cell ends with its own */
    d = finding(3, 1, 4, 3);
    oom_notebook_place(nb, &d);
    CHECK(d.cell == 2 && d.start_row == 3 && d.end_row == 3 && d.end_col == 6);
    free(d.context);
    /* the end of the module is the end of the last line */
    d = finding(8, 1, 8, 1);
    oom_notebook_place(nb, &d);
    CHECK(d.cell == 6 && d.start_row == 2 && d.start_col == 3 && d.end_col == 3);
    CHECK_STR(d.context, "2)");
    free(d.context);
    /* columns count characters of the line as written */
    d = finding(4, 5, 4, 8);
    oom_notebook_place(nb, &d);
    CHECK(d.cell == 4 && d.start_col == 5 && d.end_col == 8);
    CHECK_STR(d.context, "y = \"\xC3\xA9\"");
    free(d.context);
    oom_notebook_free(nb);
}

static void sources_from_notebooks(void)
{
    oom_source src;
    oom_notebook_error err;
    CHECK(oom_source_notebook_from_memory("a.ipynb", cells_json, strlen(cells_json), &src, &err) == OOM_SOURCE_OK);
    CHECK(src.notebook != NULL);
    char where[64];
    oom_source_describe_line(&src, "a.ipynb", 5, where, sizeof where);
    CHECK_STR(where, "a.ipynb:cell 4:2");
    oom_notebook *taken = oom_source_take_notebook(&src);
    CHECK(taken && !src.notebook);
    oom_source_describe_line(&src, "a.ipynb", 5, where, sizeof where);
    CHECK_STR(where, "a.ipynb:5");
    oom_notebook_free(taken);
    oom_source_free(&src);
    const char bad[] = "{\"cells\": 1}";
    CHECK(oom_source_notebook_from_memory("b.ipynb", bad, strlen(bad), &src, &err) == OOM_SOURCE_NOTEBOOK_INVALID);
    CHECK(src.text == NULL && src.notebook == NULL);
    oom_source_free(&src);
    CHECK(oom_notebook_is_path("dir/a.ipynb") && !oom_notebook_is_path("a.ipynb.py"));
}

void test_notebook_suite(void)
{
    oom_test_run("ipython: line magics and shell lines become pass", line_magics_and_shell_become_pass);
    oom_test_run("ipython: help lines become pass", help_lines_become_pass);
    oom_test_run("ipython: automagic lines that cannot be Python become pass", automagic_lines_that_cannot_be_python);
    oom_test_run("ipython: x = !cmd keeps its target", assignments_from_ipython_keep_their_target);
    oom_test_run("ipython: %env NAME=VALUE is the os.environ assignment", env_magic_becomes_the_assignment);
    oom_test_run("ipython: cell magics", cell_magics);
    oom_test_run("ipython: text in strings and brackets stays Python", python_text_is_never_taken_for_ipython);
    oom_test_run("ipython: continued IPython lines are masked whole", continued_ipython_lines_are_masked_whole);
    oom_test_run("ipython: masking keeps the line count", masking_keeps_the_line_count);
    oom_test_run("notebook: code cells make one module", code_cells_make_one_module);
    oom_test_run("notebook: module lines map to cells and file lines", module_lines_map_to_cells_and_file_lines);
    oom_test_run("notebook: broken notebooks say what and where", broken_notebooks_say_what_and_where);
    oom_test_run("notebook: other languages and versions", other_languages_and_versions);
    oom_test_run("notebook: findings move into their cells", findings_move_into_their_cells);
    oom_test_run("notebook: sources made from notebooks", sources_from_notebooks);
}

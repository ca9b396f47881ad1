/* Sizes read from config files (estimate/configs.c): a JSON or YAML file a
 * script loads, its keys, lists and defaults bound as literals would be,
 * each count derived by hand beside it; and the globals a config travels
 * through. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "oomlint/estimate.h"

static oom_kb kb;

/* Writes `text` to a fresh file ending in `suffix`; its path into path. */
static bool write_temp(char *path, size_t size, const char *suffix, const char *text)
{
    snprintf(path, size, "/tmp/oomlint-config-XXXXXX%s", suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    if (fd < 0)
        return false;
    bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    close(fd);
    return ok;
}

/* The parameters the script (with %s for the config's path) sizes; -1
 * unsized, the model input's text into why. */
static long long sized(const char *script, const char *path, char *why, size_t why_size)
{
    char text[4096];
    snprintf(text, sizeof text, script, path);
    oom_script_inputs s;
    oom_test_read_script(&kb, text, &s);
    snprintf(why, why_size, "%s", s.from[OOM_IN_MODEL].text);
    return s.model_known && s.in.module_defined ? s.in.params : -1;
}

#define MODEL                                                                                                  \
    "import json, yaml\nimport torch.nn as nn\n"                                                               \
    "class M(nn.Module):\n"                                                                                    \
    "    def __init__(self, m, n):\n"                                                                          \
    "        super().__init__()\n"                                                                             \
    "        self.fc = nn.Linear(m[\"dims\"][0], m[\"dims\"][1], bias=m[\"bias\"])\n"                          \
    "        self.conv = nn.Conv1d(2, 2, m[\"k\"])\n"                                                          \
    "        self.x = nn.Linear(int(n), m.get(\"out\", 5))\n"

/* Linear(4, 3, bias=False) 12 + Conv1d(2, 2, 3) 2*2*3+2 = 14 + Linear(2,
 * 5 (the .get default)) 2*5+5 = 15: 41. */
static void json_and_yaml_values(void)
{
    char path[64], why[256];
    CHECK(write_temp(path, sizeof path, ".json", "{\"m\": {\"dims\": [4, 3], \"k\": 3, \"bias\": false}, \"n\": 2.0}\n"));
    long long got = sized(MODEL "cfg = json.load(open(\"%s\"))\nmodel = M(cfg[\"m\"], cfg[\"n\"])\n", path, why, sizeof why);
    CHECK(got == 41);
    if (got != 41)
        printf("  json: %lld (%s)\n", got, why);
    CHECK(strstr(why, "sizes from ") && strstr(why, ".json [\"m\"]"));
    unlink(path);
    /* YAML as PyYAML reads it: `no` is false, a block list of whole numbers */
    CHECK(write_temp(path, sizeof path, ".yaml", "m:\n  dims:\n    - 4\n    - 3\n  k: 3\n  bias: no\nn: 2.0\n"));
    got = sized(MODEL "with open(\"%s\") as f:\n    cfg = yaml.safe_load(f)\nmodel = M(cfg[\"m\"], cfg[\"n\"])\n", path, why,
                sizeof why);
    CHECK(got == 41);
    if (got != 41)
        printf("  yaml: %lld (%s)\n", got, why);
    unlink(path);
}

/* `**cfg` into the constructor: keys by parameter name, defaults for the
 * rest; a required key missing is named. Net(a=6, h=4, b=2 by default):
 * Linear(6, 4) 28 + Linear(4, 2) 10 = 38. */
static void unpacked_and_missing(void)
{
    char path[64], why[256];
    static const char *const script =
        "import json\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self, a, h, b=2):\n"
        "        super().__init__()\n"
        "        self.l1 = nn.Linear(a, h)\n"
        "        self.l2 = nn.Linear(h, b)\n"
        "def train():\n"
        "    model = Net(**net_config)\n"
        "    model(x).sum().backward()\n"
        "if __name__ == \"__main__\":\n"
        "    with open(\"%s\") as f:\n"
        "        data = f.read()\n"
        "    net_config = json.loads(data)[\"net\"]\n"
        "    train()\n";
    CHECK(write_temp(path, sizeof path, ".json", "{\"net\": {\"a\": 6, \"h\": 4}}"));
    long long got = sized(script, path, why, sizeof why);
    CHECK(got == 38);
    if (got != 38)
        printf("  unpacked: %lld (%s)\n", got, why);
    unlink(path);
    CHECK(write_temp(path, sizeof path, ".json", "{\"net\": {\"a\": 6}}"));
    CHECK(sized(script, path, why, sizeof why) == -1);
    CHECK(strstr(why, "has no key [\"h\"], which would settle `h`") != NULL);
    unlink(path);
    /* a broken file, and one that is not there */
    CHECK(write_temp(path, sizeof path, ".json", "{\"net\": {\"a\": 6,"));
    CHECK(sized(script, path, why, sizeof why) == -1);
    CHECK(strstr(why, "is not valid JSON, which would settle `a`") != NULL);
    unlink(path);
    CHECK(sized(script, "/tmp/oomlint-no-such-config.json", why, sizeof why) == -1);
    CHECK(strstr(why, "/tmp/oomlint-no-such-config.json not found") != NULL);
}

/* A config nobody reads for a size is never a reason: a missing file of
 * training options leaves the model sized (Linear(3, 2): 8). */
static void unread_config_is_no_reason(void)
{
    char why[256];
    long long got = sized("import json\nimport torch.nn as nn\n"
                          "class M(nn.Module):\n"
                          "    def __init__(self):\n"
                          "        super().__init__()\n"
                          "        self.fc = nn.Linear(3, 2)\n"
                          "opts = json.load(open(\"%s\"))\n"
                          "model = M()\nlr = opts[\"lr\"]\n",
                          "/tmp/oomlint-no-such-options.json", why, sizeof why);
    CHECK(got == 8);
    if (got != 8)
        printf("  unread: %lld (%s)\n", got, why);
}

/* The call decides, not the name: `json.load` of something not opened
 * from a path (a variable named config) is no config. */
static void decided_by_the_call(void)
{
    char why[256];
    CHECK(sized("import json, sys\nimport torch.nn as nn\n"
                "class M(nn.Module):\n"
                "    def __init__(self, d):\n"
                "        super().__init__()\n"
                "        self.fc = nn.Linear(d, 2)\n"
                "config = json.load(sys.stdin)%s\n"
                "model = M(config[\"d\"])\n",
                "", why, sizeof why) == -1);
    /* pathlib reads the file as open() does (Linear(4, 2): 10); an `open`
     * imported from gzip does not open JSON text */
    char path[64];
    CHECK(write_temp(path, sizeof path, ".json", "{\"d\": 4}"));
    static const char *const model = "class M(nn.Module):\n"
                                     "    def __init__(self, d):\n"
                                     "        super().__init__()\n"
                                     "        self.fc = nn.Linear(d, 2)\n";
    char script[1024];
    snprintf(script, sizeof script, "import json\nfrom pathlib import Path\nimport torch.nn as nn\n%s"
                                    "model = M(json.loads(Path(\"%%s\").read_text())[\"d\"])\n", model);
    long long got = sized(script, path, why, sizeof why);
    CHECK(got == 10);
    if (got != 10)
        printf("  pathlib: %lld (%s)\n", got, why);
    snprintf(script, sizeof script, "import json\nfrom gzip import open\nimport torch.nn as nn\n%s"
                                    "model = M(json.load(open(\"%%s\"))[\"d\"])\n", model);
    CHECK(sized(script, path, why, sizeof why) == -1);
    unlink(path);
}

void test_estimate_configs_suite(void)
{
    oom_buf err;
    oom_buf_init(&err);
    CHECK(oom_kb_load_embedded(&kb, &err) == 0);
    oom_buf_free(&err);
    oom_test_run("estimate configs: JSON and YAML keys, lists, .get defaults, PyYAML booleans", json_and_yaml_values);
    oom_test_run("estimate configs: **config unpacked through a global; missing key, broken, missing file named",
                 unpacked_and_missing);
    oom_test_run("estimate configs: a config no size reads is no reason", unread_config_is_no_reason);
    oom_test_run("estimate configs: decided by the load call, never by names", decided_by_the_call);
    oom_kb_free(&kb);
}

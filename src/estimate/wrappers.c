/* estimate/wrappers: the words in front of a launcher that only run what
 * follows them, and the project's own console scripts. Real launch lines
 * start `CUDA_VISIBLE_DEVICES=0 python train.py`, `env PYTHONPATH=. torchrun
 * ...`, `poetry run yolo-train --data coco.data`; the job is the command
 * after the prefix. A console script (`yolo-train`) is a name the project
 * declares in pyproject.toml ([project.scripts], [tool.poetry.scripts]) or
 * setup.py (entry_points console_scripts) as `module:function`: it runs as
 * `python -m module`, the module read as the script.
 *
 * This file tells how many words are prefix, which module a console
 * script runs, and which file `python -m MODULE` runs (a src/ layout
 * included); launch.c reads the command after them and notes both. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "oomlint/util.h"

/* the largest pyproject.toml / setup.py read for console scripts */
#define MAX_PROJECT_FILE (256 * 1024)

/* `NAME=value`: an assignment the shell (or env) makes for the command. */
static bool is_assignment(const char *w)
{
    if (!(isalpha((unsigned char)w[0]) || w[0] == '_'))
        return false;
    for (const char *p = w; *p; p++) {
        if (*p == '=')
            return true;
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return false;
    }
    return false;
}

static const char *base_name(const char *w)
{
    const char *slash = strrchr(w, '/');
    return slash ? slash + 1 : w;
}

/* The number of prefix words from `at` that only run the command after
 * them: env and its options and assignments, plain assignments, and the
 * `run` of an environment manager (poetry, uv, pipenv, pdm, hatch). */
static size_t prefix_words(const oom_launch_word *words, size_t n)
{
    static const char *const managers[] = {"poetry", "uv", "pipenv", "pdm", "hatch", NULL};
    size_t i = 0;
    for (bool more = true; more && i < n;) {
        const char *w = words[i].text, *b = base_name(w);
        more = false;
        if (is_assignment(w)) {
            i++, more = true;
        } else if (strcmp(b, "env") == 0) {
            i++, more = true;
            while (i < n && (words[i].text[0] == '-' || is_assignment(words[i].text))) {
                bool takes = strcmp(words[i].text, "-u") == 0 || strcmp(words[i].text, "-C") == 0;
                i += takes && i + 1 < n ? 2 : 1;
            }
        } else {
            for (int k = 0; managers[k] && !more; k++)
                if (strcmp(b, managers[k]) == 0 && i + 1 < n && strcmp(words[i + 1].text, "run") == 0)
                    i += 2, more = true;
        }
    }
    return i;
}

/* A file's text, at most MAX_PROJECT_FILE bytes; NULL when unreadable. */
static char *read_small(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_PROJECT_FILE)
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = oom_xcalloc((size_t)st.st_size + 1, 1);
    size_t got = fread(text, 1, (size_t)st.st_size, f);
    text[got] = '\0';
    fclose(f);
    return text;
}

/* `module:function` of an entry point's value into `module`; false when
 * the text is not one (a module is dotted names). */
static bool entry_module(const char *v, size_t len, char *module, size_t size)
{
    size_t m = 0;
    while (m < len && (isalnum((unsigned char)v[m]) || v[m] == '_' || v[m] == '.'))
        m++;
    if (m == 0 || m >= len || v[m] != ':' || m >= size)
        return false;
    memcpy(module, v, m);
    module[m] = '\0';
    return true;
}

/* pyproject.toml: `name = "module:function"` under [project.scripts] or
 * [tool.poetry.scripts]. Read by lines: these tables hold nothing else. */
static bool pyproject_script(const char *text, const char *name, char *module, size_t size)
{
    bool in_table = false;
    size_t nlen = strlen(name);
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *p = line + strspn(line, " \t");
        if (*p == '[') {
            in_table = strncmp(p, "[project.scripts]", 17) == 0 || strncmp(p, "[tool.poetry.scripts]", 21) == 0;
            continue;
        }
        const char *key = p + (*p == '"' || *p == '\'');
        if (!in_table || strncmp(key, name, nlen) != 0)
            continue;
        const char *q = key + nlen;
        q += (*q == '"' || *q == '\'');
        q += strspn(q, " \t");
        if (*q != '=')
            continue;
        q++;
        q += strspn(q, " \t");
        if (*q != '"' && *q != '\'')
            continue;
        const char *end = strchr(q + 1, *q);
        if (end && entry_module(q + 1, (size_t)(end - q - 1), module, size))
            return true;
    }
    return false;
}

/* setup.py: a string `name = module:function` (spaces optional), as
 * entry_points={"console_scripts": [...]} lists them. */
static bool setup_script(const char *text, const char *name, char *module, size_t size)
{
    size_t nlen = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        if (p == text || (p[-1] != '"' && p[-1] != '\'' && p[-1] != ' '))
            continue;
        const char *q = p + nlen;
        q += strspn(q, " ");
        if (*q != '=')
            continue;
        q++;
        q += strspn(q, " ");
        const char *end = q + strcspn(q, "\"'\n");
        if (entry_module(q, (size_t)(end - q), module, size))
            return true;
    }
    return false;
}

/* The module the project's console script `name` runs; false when the
 * project (pyproject.toml or setup.py where the command runs) declares none. */
static bool console_script(const char *dir, const char *name, char *module, size_t size)
{
    static const char *const files[] = {"pyproject.toml", "setup.py"};
    bool found = false;
    for (int i = 0; i < 2 && !found; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : ".", files[i]);
        char *text = read_small(path);
        if (text)
            found = i == 0 ? pyproject_script(text, name, module, size) : setup_script(text, name, module, size);
        free(text);
    }
    return found;
}

/* `python -m pkg.train` from `dir`: the folders Python searches first are
 * the one the command runs in and, in a src layout (the project installed
 * in development mode), its src/; a module is a file or a package's
 * __main__.py. */
char *oom_est_module_file(const char *dir, const char *module)
{
    static const char *const roots[] = {"", "src/"};
    static const char *const tails[] = {".py", "/__main__.py"};
    oom_buf rel;
    oom_buf_init(&rel);
    for (const char *p = module; *p; p++)
        oom_buf_putc(&rel, *p == '.' ? '/' : *p);
    bool here = !dir || !*dir || strcmp(dir, ".") == 0;
    char *first = NULL;
    for (int r = 0; r < 2; r++)
        for (int t = 0; t < 2; t++) {
            oom_buf path;
            oom_buf_init(&path);
            oom_buf_printf(&path, "%s%s%s%s%s", here ? "" : dir, here ? "" : "/", roots[r], rel.data, tails[t]);
            struct stat st;
            if (stat(path.data, &st) == 0 && S_ISREG(st.st_mode)) {
                free(first);
                oom_buf_free(&rel);
                return oom_buf_take(&path);
            }
            if (!first)
                first = oom_buf_take(&path);
            else
                oom_buf_free(&path);
        }
    oom_buf_free(&rel);
    return first;
}

bool oom_est_launch_unwrap(const char *dir, const oom_launch_word *words, size_t n, oom_est_unwrapped *out)
{
    memset(out, 0, sizeof *out);
    out->skip = prefix_words(words, n);
    if (out->skip >= n) { /* `env` alone runs nothing: read as written */
        out->skip = 0;
        return false;
    }
    const char *first = words[out->skip].text, *b = base_name(first);
    bool launcher_word = strncmp(b, "python", 6) == 0 || strcmp(b, "torchrun") == 0 || strcmp(b, "deepspeed") == 0 ||
                         strncmp(b, "accelerate", 10) == 0;
    out->console = !launcher_word && !strchr(first, '/') && !oom_str_ends_with(first, ".py") &&
                   !words[out->skip].unresolved && console_script(dir, first, out->module, sizeof out->module);
    return out->skip > 0 || out->console;
}

/* cli/caching: which on-disk cache a check uses (oomlint/cache.h), what
 * its key says of the run's settings, and what the command line says about
 * it afterwards. The cache itself never prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/cache.h"
#include "oomlint/text.h"
#include "internal.h"

static bool env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0 && strcmp(v, "false") != 0;
}

/* --cache-dir, then OOMLINT_CACHE_DIR, then cache-dir in [tool.oomlint]
 * (relative to its pyproject.toml), then .oomlint_cache beside that
 * pyproject.toml, or in the working folder without one: Ruff's order and
 * Ruff's place. */
static char *cache_dir_for(const oom_settings *s, const oom_config *config)
{
    const char *env = getenv("OOMLINT_CACHE_DIR");
    if (s->cache_dir)
        return oom_xstrdup(s->cache_dir);
    if (env && *env)
        return oom_xstrdup(env);
    oom_buf dir;
    oom_buf_init(&dir);
    if (config && config->cache_dir && config->cache_dir[0] == '/')
        oom_buf_puts(&dir, config->cache_dir);
    else if (config && config->cache_dir)
        oom_buf_printf(&dir, "%s/%s", config->dir, config->cache_dir);
    else if (config)
        oom_buf_printf(&dir, "%s/%s", config->dir, OOM_CACHE_DEFAULT_DIR);
    else
        oom_buf_puts(&dir, OOM_CACHE_DEFAULT_DIR);
    return oom_buf_take(&dir);
}

static void describe_list(oom_buf *out, const char *name, const oom_strlist *l)
{
    oom_buf_put_str(out, name);
    oom_buf_put_u32(out, (uint32_t)l->len);
    for (size_t i = 0; i < l->len; i++)
        oom_buf_put_str(out, l->items[i]);
}

/* Every setting a file's findings and facts depend on. What is applied to
 * the findings afterwards (per-file-ignores, --fixable, --diff-base, the
 * format, the exit code) is left out: it needs no new lint. */
static void describe_settings(const oom_cli_cache_request *r, oom_buf *out)
{
    describe_list(out, "select", &r->selection->select);
    describe_list(out, "ignore", &r->selection->ignore);
    describe_list(out, "extend-select", &r->selection->extend);
    oom_buf_put_str(out, "gpu");
    oom_buf_put_str(out, r->run->gpu ? r->run->gpu->id : "");
    uint32_t flags[3] = {(uint32_t)r->run->num_gpus, r->run->eager_module_loading, r->run->bf16_check_is_capability};
    oom_buf_put_bytes(out, flags, sizeof flags);
    oom_buf_put_str(out, "rules");
    oom_cache_describe_rules(r->rules, out);
}

oom_cache *oom_cli_cache_open(const oom_settings *s, const oom_cli_cache_request *r)
{
    if (s->no_cache || env_set("OOMLINT_NO_CACHE"))
        return NULL;
    char *dir = cache_dir_for(s, r->config);
    oom_buf settings;
    oom_buf_init(&settings);
    describe_settings(r, &settings);
    oom_cache *c = oom_cache_open(dir, settings.data ? settings.data : "", settings.len);
    oom_buf_free(&settings);
    free(dir);
    return c;
}

void oom_cli_cache_close(const oom_settings *s, oom_cache *c)
{
    if (!c)
        return;
    const char *problem = oom_cache_problem(c);
    if (problem) {
        oom_buf msg;
        oom_buf_init(&msg);
        oom_buf_puts(&msg, "oomlint: warning: ");
        oom_text_append_display(&msg, problem, strlen(problem), 0);
        oom_buf_puts(&msg, "; results are not cached (--no-cache, or --cache-dir DIR elsewhere)");
        fprintf(stderr, "%s\n", msg.data);
        oom_buf_free(&msg);
    }
    if (s->cache_stats) {
        size_t hits, misses, written;
        oom_cache_counts(c, &hits, &misses, &written);
        fprintf(stderr, "oomlint: cache: %zu from the cache, %zu linted, %zu written\n", hits, misses, written);
    }
    oom_cache_free(c);
}

/* estimate/launchrec: the launch record's life (made, freed, noted on),
 * where one of its words came from, the launchers' names, and the ZeRO
 * stage a DeepSpeed JSON names: what launch.c, shell.c and arguments.c all
 * use, kept apart so that none of them calls back into another. */
#include <cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "oomlint/jsonfile.h"
#include "oomlint/launch.h"

void oom_launch_init(oom_launch *l)
{
    memset(l, 0, sizeof *l);
    l->zero_stage = -1;
}

void oom_est_launch_word_free(oom_launch_word *w)
{
    free(w->text);
    free(w->unresolved);
    memset(w, 0, sizeof *w);
}

void oom_launch_free(oom_launch *l)
{
    for (size_t i = 0; i < l->arg_count; i++)
        oom_est_launch_word_free(&l->args[i]);
    free(l->args);
    oom_est_launch_word_free(&l->script_word);
    free(l->file);
    free(l->dir);
    free(l->script);
    free(l->command);
    oom_strlist_free(&l->notes);
    oom_launch_init(l);
}

void oom_launch_where(const oom_launch *l, const oom_launch_word *w, char *buf, size_t size)
{
    if (l->file && w->line)
        oom_est_printf(buf, size, "%s:%u", l->file, w->line);
    else
        oom_est_printf(buf, size, "command word %u", w->index);
}

void oom_est_launch_note(oom_launch *l, const char *fmt, ...)
{
    oom_buf b;
    oom_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    oom_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    oom_strlist_push(&l->notes, b.data);
    oom_buf_free(&b);
}

const char *oom_launcher_name(oom_launcher k)
{
    static const char *const names[] = {"the script itself", "python", "torchrun", "accelerate launch",
                                        "deepspeed"};
    return names[k];
}

bool oom_est_read_zero_json(const char *path, int *stage, bool *offload)
{
    cJSON *root = oom_json_read_file(path);
    cJSON *zero = cJSON_GetObjectItemCaseSensitive(root, "zero_optimization");
    cJSON *st = cJSON_GetObjectItemCaseSensitive(zero, "stage");
    bool ok = cJSON_IsNumber(st);
    if (ok) {
        *stage = (int)st->valuedouble;
        cJSON *off = cJSON_GetObjectItemCaseSensitive(zero, "offload_optimizer");
        cJSON *dev = cJSON_GetObjectItemCaseSensitive(off, "device");
        *offload = cJSON_IsString(dev) && strcmp(dev->valuestring, "none") != 0;
    }
    cJSON_Delete(root);
    return ok;
}

/* Fuzzes `oomlint estimate`'s launch readers: the bytes as a shell script
 * (its launch line found, variables substituted, quotes undone) and, split
 * at NUL bytes, as the words of a command after `--`; each read launch then
 * bound to its script's arguments over the script's defaults, as the
 * estimate does. Nothing may crash, leak or loop. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oomlint/estimate.h"
#include "oomlint/kb.h"
#include "oomlint/launch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static oom_kb *fuzz_kb(void)
{
    static oom_kb kb;
    static int loaded = -1;
    if (loaded < 0) {
        oom_buf err;
        oom_buf_init(&err);
        loaded = oom_kb_load_embedded(&kb, &err) == 0;
        oom_buf_free(&err);
    }
    return loaded ? &kb : NULL;
}

/* A launch read is bound to the script it runs (mostly absent here: its
 * arguments are then read by their usual names). */
static void bind(const oom_launch *l)
{
    oom_script_inputs in;
    oom_strlist notes = {NULL, 0, 0};
    oom_buf err;
    oom_buf_init(&err);
    if (fuzz_kb())
        (void)oom_script_inputs_read_launch(l, fuzz_kb(), &in, &notes, &err);
    oom_strlist_free(&notes);
    oom_buf_free(&err);
}

static void as_shell_script(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/oomlint-fuzz-launch-XXXXXX.sh";
    int fd = mkstemps(path, 3);
    if (fd < 0)
        return;
    ssize_t wrote = write(fd, data, size);
    close(fd);
    if (wrote == (ssize_t)size) {
        oom_launch l;
        oom_launch_init(&l);
        oom_buf err;
        oom_buf_init(&err);
        if (oom_launch_from_shell(path, &l, &err))
            bind(&l);
        oom_launch_free(&l);
        oom_buf_free(&err);
    }
    unlink(path);
}

static void as_words(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    const char **argv = malloc((size + 1) * sizeof *argv);
    if (!text || !argv) {
        free(text);
        free(argv);
        return;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    int argc = 0;
    for (size_t i = 0; i <= size && argc < 256;) {
        argv[argc++] = text + i;
        i += strlen(text + i) + 1;
    }
    oom_launch l;
    oom_launch_init(&l);
    oom_buf err;
    oom_buf_init(&err);
    if (oom_launch_from_argv(argc, argv, &l, &err))
        bind(&l);
    oom_launch_free(&l);
    oom_buf_free(&err);
    free(text);
    free(argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    as_shell_script(data, size);
    as_words(data, size);
    return 0;
}

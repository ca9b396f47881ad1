/* Replays inputs through a fuzz target without libFuzzer: each file named on
 * the command line is passed to LLVMFuzzerTestOneInput once. The test suite
 * runs every kept regression input (fixtures/fuzz/<target>/) this way, in the
 * plain and the sanitizer builds, so a fixed crash stays fixed. Prints
 * "PASS replay <target> <file>" per input; a crash ends the program. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *grown = realloc(buf, cap *= 2);
            if (!grown) {
                free(buf);
                buf = NULL;
            }
            buf = grown;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    const char *target = argc > 1 ? argv[1] : "?";
    int failures = 0;
    for (int i = 2; i < argc; i++) {
        size_t len = 0;
        unsigned char *data = read_all(argv[i], &len);
        if (!data) {
            printf("FAIL replay %s %s: cannot read it\n", target, argv[i]);
            failures++;
            continue;
        }
        LLVMFuzzerTestOneInput(data, len);
        free(data);
        printf("PASS replay %s %s\n", target, argv[i]);
    }
    return failures ? 1 : 0;
}

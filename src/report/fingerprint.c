/* report/fingerprint: identities of findings that survive reruns and edits
 * elsewhere in the file (no line numbers in them), and URI paths. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/report.h"

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t base_hash(const oom_diag *d)
{
    uint64_t h = 1469598103934665603ULL;
    h = fnv1a(h, d->code, strlen(d->code) + 1);
    h = fnv1a(h, d->path, strlen(d->path) + 1);
    const char *line = d->context ? d->context : "";
    size_t len = strcspn(line, "\n");
    while (len > 0 && isspace((unsigned char)line[len - 1]))
        len--;
    while (len > 0 && isspace((unsigned char)*line)) {
        line++;
        len--;
    }
    return fnv1a(h, line, len);
}

typedef struct {
    uint64_t base;
    size_t index;
} keyed;

static int cmp_keyed(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->base != b->base)
        return a->base < b->base ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

void oom_report_fingerprints(const oom_diag_list *diags, char (*out)[17])
{
    /* Sorting by (hash, position) numbers the identical ones in report order. */
    keyed *keys = oom_xcalloc(diags->len ? diags->len : 1, sizeof(keyed));
    for (size_t i = 0; i < diags->len; i++) {
        keys[i].base = base_hash(&diags->items[i]);
        keys[i].index = i;
    }
    qsort(keys, diags->len, sizeof(keyed), cmp_keyed);
    unsigned long long occurrence = 0;
    for (size_t k = 0; k < diags->len; k++) {
        occurrence = k > 0 && keys[k - 1].base == keys[k].base ? occurrence + 1 : 0;
        char occ[24];
        int n = snprintf(occ, sizeof occ, ":%llu", occurrence);
        uint64_t h = fnv1a(keys[k].base, occ, (size_t)n);
        snprintf(out[keys[k].index], 17, "%016llx", (unsigned long long)h);
    }
    free(keys);
}

void oom_report_uri_path(oom_buf *out, const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (isalnum(*p) || strchr("-._~/!$&'()*+,;=@", *p)) {
            oom_buf_putc(out, (char)*p);
        } else {
            oom_buf_putc(out, '%');
            oom_buf_putc(out, hex[*p >> 4]);
            oom_buf_putc(out, hex[*p & 15]);
        }
    }
}

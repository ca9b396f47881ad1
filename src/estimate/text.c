/* estimate/text: the text helpers every file of the estimate shares: a
 * node's source text (or the launch value standing for it), bounded
 * formatting, an option's dest name, why a shell value is unknown. A leaf. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

typedef oom_est_reader reader;

bool oom_est_value_text(const reader *r, TSNode n, char *buf, size_t size)
{
    if (r->via && r->via->given) {
        int len = snprintf(buf, size, "\"%s\"", r->via->given);
        return len > 0 && (size_t)len < size;
    }
    return oom_est_text_of(r, n, buf, size);
}

bool oom_est_text_of(const reader *r, TSNode n, char *buf, size_t size)
{
    if (ts_node_is_null(n)) /* `x: int` has no right-hand side */
        return false;
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    if (b - a + 1 > size)
        return false;
    memcpy(buf, r->src->text + a, b - a);
    buf[b - a] = '\0';
    return true;
}

void oom_est_printf(char *dst, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, size, fmt, ap);
    va_end(ap);
}

const char *oom_est_unresolved_why(const char *unresolved)
{
    char after = unresolved[0] == '$' ? unresolved[1] : '\0';
    bool variable = after == '{' || after == '_' || isalpha((unsigned char)after);
    bool runs = unresolved[0] == '`' || (unresolved[0] == '$' && !variable); /* $(...), $1, $@ */
    return runs ? "is not known before the shell script runs" : "is not set in the shell script";
}

/* "--per-device-train-batch-size=4" -> "per_device_train_batch_size": the
 * leading dashes and the `=value` part cut off, dashes made underscores (as
 * argparse names an option's dest; the launchers' options read alike). */
void oom_est_option_name(const char *word, char *out, size_t size)
{
    const char *p = word;
    while (*p == '-')
        p++;
    size_t n = 0;
    for (; *p && *p != '=' && n + 1 < size; p++)
        out[n++] = *p == '-' ? '_' : *p;
    out[n] = '\0';
}

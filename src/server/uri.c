/* server/uri: file: URIs and paths, as RFC 8089 and VS Code write them
 * (percent-encoded, an authority that is empty or "localhost"). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *srv_uri_to_path(const char *uri)
{
    if (!uri || strncmp(uri, "file://", 7) != 0)
        return NULL;
    const char *p = uri + 7;
    if (strncmp(p, "localhost/", 10) == 0)
        p += 9;
    if (*p != '/')
        return NULL; /* a remote host's file is not ours to read */
    oom_buf out;
    oom_buf_init(&out);
    for (; *p && *p != '?' && *p != '#'; p++) {
        int hi, lo;
        if (*p == '%' && (hi = hex(p[1])) >= 0 && (lo = hex(p[2])) >= 0) {
            char c = (char)(hi * 16 + lo);
            if (c == '\0')
                break; /* a NUL cannot be in a path */
            oom_buf_putc(&out, c);
            p += 2;
        } else {
            oom_buf_putc(&out, *p);
        }
    }
    return oom_buf_take(&out);
}

char *srv_path_to_uri(const char *path)
{
    static const char digits[] = "0123456789ABCDEF";
    oom_buf out;
    oom_buf_init(&out);
    oom_buf_puts(&out, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        unsigned char c = *p;
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     strchr("/-._~", c) != NULL;
        if (plain) {
            oom_buf_putc(&out, (char)c);
        } else {
            oom_buf_putc(&out, '%');
            oom_buf_putc(&out, digits[c >> 4]);
            oom_buf_putc(&out, digits[c & 15]);
        }
    }
    return oom_buf_take(&out);
}

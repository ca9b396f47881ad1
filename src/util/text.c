/* text: UTF-8 handling shared by every stage that shows or measures source. */
#include "oomlint/text.h"

#include <string.h>

static bool is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

size_t oom_utf8_decode(const char *str, size_t n, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    *cp = 0xFFFD;
    if (n == 0)
        return 0;
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    uint32_t v, min;
    if ((c & 0xE0) == 0xC0) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 1;
    }
    if (len > n)
        return 1;
    for (size_t i = 1; i < len; i++) {
        if (!is_cont(s[i]))
            return 1;
        v = (v << 6) | (s[i] & 0x3F);
    }
    /* Overlong forms, surrogates and values past U+10FFFF are invalid. */
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 1;
    *cp = v;
    return len;
}

bool oom_utf8_valid(const char *s, size_t n, size_t *bad_offset)
{
    size_t i = 0;
    while (i < n) {
        uint64_t word; /* ASCII, most source text, eight bytes at a time */
        if (n - i >= 8 && (memcpy(&word, s + i, 8), (word & 0x8080808080808080ull) == 0)) {
            i += 8;
            continue;
        }
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t cp;
        size_t len = oom_utf8_decode(s + i, n - i, &cp);
        if (cp == 0xFFFD && len == 1) {
            if (bad_offset)
                *bad_offset = i;
            return false;
        }
        i += len;
    }
    return true;
}

size_t oom_utf8_count(const char *s, size_t n)
{
    size_t count = 0, i = 0;
    while (i < n) {
        uint32_t cp;
        i += oom_utf8_decode(s + i, n - i, &cp);
        count++;
    }
    return count;
}

static void append_cp(oom_buf *out, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    oom_buf_append(out, b, n);
}

/* Code points that a terminal might act on rather than show. */
static bool is_dangerous(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
           cp == 0x200E || cp == 0x200F || cp == 0x061C;
}

static uint32_t placeholder(uint32_t cp)
{
    if (cp < 0x20)
        return 0x2400 + cp; /* Unicode "control pictures": one cell wide */
    if (cp == 0x7F)
        return 0x2421;
    return 0xFFFD;
}

/* East Asian wide and fullwidth ranges: two terminal cells. */
static int cp_width(uint32_t cp)
{
    if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
        (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
        (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
        (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
        (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
        return 2;
    if ((cp >= 0x0300 && cp <= 0x036F) || cp == 0x200B || cp == 0xFEFF)
        return 0;
    return 1;
}

void oom_text_append_display(oom_buf *out, const char *s, size_t n, int tab_width)
{
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = oom_utf8_decode(s + i, n - i, &cp);
        i += len;
        if (cp == '\t' && tab_width > 0) {
            for (int k = 0; k < tab_width; k++)
                oom_buf_putc(out, ' ');
        } else if (cp == '\t') {
            oom_buf_putc(out, '\t');
        } else if (is_dangerous(cp)) {
            append_cp(out, placeholder(cp));
        } else {
            append_cp(out, cp);
        }
    }
}

size_t oom_text_display_width(const char *s, size_t n, int tab_width)
{
    size_t width = 0, i = 0;
    while (i < n) {
        uint32_t cp;
        i += oom_utf8_decode(s + i, n - i, &cp);
        if (cp == '\t')
            width += tab_width > 0 ? (size_t)tab_width : 1;
        else if (is_dangerous(cp))
            width += 1;
        else
            width += (size_t)cp_width(cp);
    }
    return width;
}

void oom_text_append_utf8_lossy(oom_buf *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = oom_utf8_decode(s + i, n - i, &cp);
        if (cp == 0xFFFD && len == 1)
            append_cp(out, 0xFFFD);
        else
            oom_buf_append(out, s + i, len);
        i += len;
    }
}

/* ---- snippets ------------------------------------------------------------------- */

/* Scanner state over quoted code: the quote that opened the string we are
 * in (0 outside) and whether it was tripled. */
typedef struct {
    char quote;
    bool triple;
} quote_state;

static bool is_blank(uint32_t cp)
{
    return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r';
}

/* Advances over a quote character at s[i]; returns the bytes it takes. */
static size_t step_quote(quote_state *q, const char *s, size_t n, size_t i)
{
    bool triple = i + 2 < n && s[i + 1] == s[i] && s[i + 2] == s[i];
    if (!q->quote) {
        q->quote = s[i];
        q->triple = triple;
        return triple ? 3 : 1;
    }
    if (s[i] != q->quote)
        return 1; /* the other kind of quote, inside a string */
    if (q->triple && !triple)
        return 1; /* a lone quote inside a triple-quoted string */
    q->quote = 0;
    return q->triple ? 3 : 1;
}

void oom_text_append_snippet(oom_buf *out, const char *s, size_t n, size_t max_chars)
{
    quote_state q = {0, false};
    size_t chars = 0, i = 0;
    bool space = false;
    while (i < n) {
        if (!q.quote && s[i] == '#') { /* a comment: to the end of its line */
            while (i < n && s[i] != '\n' && s[i] != '\r')
                i++;
            space = true;
            continue;
        }
        uint32_t cp;
        size_t len = oom_utf8_decode(s + i, n - i, &cp);
        if (!q.quote && is_blank(cp)) {
            space = true;
            i += len;
            continue;
        }
        if (chars >= max_chars) {
            oom_buf_puts(out, "\xE2\x80\xA6"); /* … */
            return;
        }
        if (space && chars > 0) {
            oom_buf_putc(out, ' ');
            chars++;
        }
        space = false;
        size_t cells = 1;
        if (q.quote && s[i] == '\\' && i + 1 < n) {
            len = 1 + oom_utf8_decode(s + i + 1, n - i - 1, &cp); /* an escape and what it escapes */
            cells = 2;
        } else if (s[i] == '"' || s[i] == '\'') {
            len = cells = step_quote(&q, s, n, i);
        }
        oom_buf_append(out, s + i, len);
        chars += cells;
        i += len;
    }
}

void oom_text_line_col(const char *text, size_t offset, size_t *line, size_t *col)
{
    size_t l = 1, start = 0;
    for (size_t i = 0; i < offset && text[i]; i++)
        if (text[i] == '\n') {
            l++;
            start = i + 1;
        }
    *line = l;
    *col = oom_utf8_count(text + start, offset - start) + 1;
}

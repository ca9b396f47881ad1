/* text: UTF-8 validation, character columns and safe display of source text. */
#ifndef OOMLINT_TEXT_H
#define OOMLINT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oomlint/util.h"

/* Returns true when `s[0..n)` is valid UTF-8; otherwise stores the offset of
 * the first invalid byte in *bad_offset. */
bool oom_utf8_valid(const char *s, size_t n, size_t *bad_offset);

/* Decode one code point at s (n bytes available); returns its length in bytes
 * (1 for an invalid byte, which decodes to U+FFFD). */
size_t oom_utf8_decode(const char *s, size_t n, uint32_t *cp);

/* Number of code points in s[0..n). Invalid bytes count one each. */
size_t oom_utf8_count(const char *s, size_t n);

/* Line and column (1-based, characters) of byte `offset` in text. */
void oom_text_line_col(const char *text, size_t offset, size_t *line, size_t *col);

/* Append `s[0..n)` to out so that a terminal shows it and never interprets it:
 * C0/C1 control characters and bidirectional overrides become visible
 * placeholders of the same width; tabs become `tab_width` spaces when
 * tab_width > 0 (kept when 0). Invalid UTF-8 becomes U+FFFD. */
void oom_text_append_display(oom_buf *out, const char *s, size_t n, int tab_width);

/* Terminal cells that oom_text_append_display would use for s[0..n). */
size_t oom_text_display_width(const char *s, size_t n, int tab_width);

/* Append s as valid UTF-8 text (invalid bytes become U+FFFD). */
void oom_text_append_utf8_lossy(oom_buf *out, const char *s, size_t n);

/* Append code quoted in a message: one line, runs of whitespace collapsed to
 * one space, `#` comments left out (quotes are respected, so a `#` inside a
 * string stays), cut after max_chars characters with an ellipsis. */
void oom_text_append_snippet(oom_buf *out, const char *s, size_t n, size_t max_chars);

#endif

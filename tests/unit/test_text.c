/* UTF-8 validation, character columns, and safe display of source text. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "oomlint/source.h"
#include "oomlint/text.h"

static void utf8_validation(void)
{
    size_t bad = 99;
    CHECK(oom_utf8_valid("plain ascii", 11, NULL));
    CHECK(oom_utf8_valid("caf\xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80", 14, NULL));
    CHECK(!oom_utf8_valid("ab\xFF", 3, &bad) && bad == 2);
    CHECK(!oom_utf8_valid("\xC0\xAF", 2, &bad) && bad == 0);         /* overlong '/' */
    CHECK(!oom_utf8_valid("x\xED\xA0\x80", 4, &bad) && bad == 1);     /* surrogate */
    CHECK(!oom_utf8_valid("\xE4\xB8", 2, &bad) && bad == 0);          /* truncated */
    CHECK(!oom_utf8_valid("\xF4\x90\x80\x80", 4, &bad));              /* > U+10FFFF */
    /* past the eight-bytes-at-a-time ASCII path: each offset of a bad byte,
     * and a character that straddles an eight-byte block */
    for (size_t at = 0; at < 20; at++) {
        char text[24];
        memset(text, 'a', sizeof text);
        text[at] = (char)0xFF;
        CHECK(!oom_utf8_valid(text, sizeof text, &bad) && bad == at);
    }
    CHECK(oom_utf8_valid("abcdefg\xC3\xA9hijklmnop", 18, NULL));
    CHECK(!oom_utf8_valid("abcdefg\xC3hijklmnop", 17, &bad) && bad == 7);
}

static oom_source make(const char *text)
{
    oom_source s;
    char why[128];
    oom_source_from_memory("t.py", text, strlen(text), &s, why, sizeof why);
    return s;
}

static void columns_count_characters(void)
{
    oom_source s = make("x = 1\n\xC3\xA9\xC3\xA9 = model(x)\n\xE4\xB8\xAD\xE6\x96\x87 = y\n");
    uint32_t row, col;
    oom_source_position(&s, 6 + 4, &row, &col); /* after "éé" (4 bytes) */
    CHECK(row == 2 && col == 3);
    const char *third = strstr(s.text, "= y");
    oom_source_position(&s, (size_t)(third - s.text), &row, &col);
    CHECK(row == 3 && col == 4); /* two CJK characters and a space */
    oom_source_free(&s);
}

static void bom_and_line_endings(void)
{
    oom_source s = make("\xEF\xBB\xBFimport os\r\nx = 1\ry = 2\n");
    CHECK(s.len == strlen("import os\r\nx = 1\ry = 2\n"));
    uint32_t row, col;
    oom_source_position(&s, 0, &row, &col);
    CHECK(row == 1 && col == 1);
    const char *y = strchr(s.text, 'y');
    oom_source_position(&s, (size_t)(y - s.text), &row, &col);
    CHECK(row == 3 && col == 1); /* lone CR ends a line too */
    const char *line;
    size_t len;
    CHECK(oom_source_line(&s, 1, &line, &len) && len == 9);
    oom_source_free(&s);
}

static void rejects_binary_and_non_utf8(void)
{
    oom_source s;
    char why[256];
    CHECK(oom_source_from_memory("b.py", "ab\0cd", 5, &s, why, sizeof why) == OOM_SOURCE_BINARY);
    CHECK(strstr(why, "NUL") != NULL);
    oom_source_free(&s);
    CHECK(oom_source_from_memory("l.py", "x = '\xE9'\n", 8, &s, why, sizeof why) ==
          OOM_SOURCE_NOT_UTF8);
    CHECK(strstr(why, "line 1") != NULL);
    oom_source_free(&s);
}

static void display_neutralises_terminal_controls(void)
{
    oom_buf b;
    oom_buf_init(&b);
    oom_text_append_display(&b, "a\x1b[31mb\x9b", 8, 4);
    CHECK(strchr(b.data, 0x1b) == NULL);
    CHECK(strstr(b.data, "\xE2\x90\x9B") != NULL); /* U+241B SYMBOL FOR ESCAPE */
    oom_buf_clear(&b);
    oom_text_append_display(&b, "\xC2\x9B" "x\xE2\x80\xAE" "y", 7, 4);  /* C1 CSI and RLO */
    CHECK(strstr(b.data, "\xC2\x9B") == NULL && strstr(b.data, "\xE2\x80\xAE") == NULL);
    oom_buf_clear(&b);
    oom_text_append_display(&b, "\tx", 2, 4);
    CHECK_STR(b.data, "    x");
    CHECK(oom_text_display_width("\xE4\xB8\xAD" "a", 4, 4) == 3);
    oom_buf_free(&b);
}

static void snippet(const char *code, size_t max, const char *want)
{
    oom_buf b;
    oom_buf_init(&b);
    oom_text_append_snippet(&b, code, strlen(code), max);
    CHECK_STR(b.data, want);
    oom_buf_free(&b);
}

static void snippets_drop_comments_and_collapse_space(void)
{
    snippet("TrainingArguments(\n    bf16=True,  # A100 only\n    fp16=True)", 80,
            "TrainingArguments( bf16=True, fp16=True)");
    snippet("f(\"#not a comment\", x)  # but this is", 80, "f(\"#not a comment\", x)");
    snippet("g('''a ' # b''', c)", 80, "g('''a ' # b''', c)");
    snippet("h(\"a \\\" # b\", c)", 80, "h(\"a \\\" # b\", c)");
    snippet("x  =   1", 80, "x = 1");
    snippet("abcdef", 3, "abc\xE2\x80\xA6");
    snippet("s = \"two  spaces\"", 80, "s = \"two  spaces\"");
}

void test_text_suite(void)
{
    oom_test_run("text: utf-8 validation", utf8_validation);
    oom_test_run("text: columns count characters", columns_count_characters);
    oom_test_run("text: BOM and CR/CRLF line endings", bom_and_line_endings);
    oom_test_run("text: binary and non-UTF-8 rejected", rejects_binary_and_non_utf8);
    oom_test_run("text: terminal controls neutralised", display_neutralises_terminal_controls);
    oom_test_run("text: message snippets", snippets_drop_comments_and_collapse_space);
}

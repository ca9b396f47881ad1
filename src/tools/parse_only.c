/* parse-only: the benchmark's baseline. Reads file paths from stdin, parses
 * each Python file with tree-sitter exactly as oomlint does (same reading
 * checks, same grammar), and does nothing else; prints files and lines. */
#include <stdio.h>
#include <string.h>

#include "oomlint/lang.h"
#include "oomlint/source.h"

int main(void)
{
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_PYTHON));
    char path[4096];
    size_t files = 0, lines = 0;
    while (fgets(path, sizeof path, stdin)) {
        path[strcspn(path, "\n")] = '\0';
        oom_source src;
        char why[256];
        if (oom_source_read(path, path, &src, why, sizeof why) == OOM_SOURCE_OK) {
            TSTree *tree = ts_parser_parse_string(parser, NULL, src.text, (uint32_t)src.len);
            ts_tree_delete(tree);
            for (size_t i = 0; i < src.len; i++)
                lines += src.text[i] == '\n';
            files++;
        }
        oom_source_free(&src);
    }
    ts_parser_delete(parser);
    printf("%zu files, %zu lines\n", files, lines);
    return 0;
}

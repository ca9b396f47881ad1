/* lang/pyparse: parse Python source, working around one known gap of the
 * tree-sitter-python grammar (0.25.0): a starred operand that begins with a
 * bracket or a quote inside an unparenthesized tuple (`x = e, *[1]`,
 * `return a, *(b,)`, `for q in a, *"xy":`) is an ERROR, though CPython accepts
 * it (upstream tree-sitter/tree-sitter-python#132 covered `*name` only). Left
 * alone, valid files in the wild (torch/distributed/elastic/rendezvous/utils.py)
 * get a false OOM001. When, and only when, the first parse has an error and
 * such a star lies inside an ERROR node, the file is parsed again with those
 * stars blanked out (same length, so every byte offset stays the same), and
 * the new tree is kept only if it has no error at all. */
#include "oomlint/lang.h"

#include <stdlib.h>
#include <string.h>

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* A `*` after a comma (spaces between), not part of `**`, whose operand
 * starts with an opening bracket or a quote; *operand is where it starts. */
static bool is_gap_star(const char *text, size_t len, size_t i, size_t *operand)
{
    if (text[i] != '*' || (i + 1 < len && text[i + 1] == '*') || (i > 0 && text[i - 1] == '*'))
        return false;
    size_t b = i;
    while (b > 0 && is_space(text[b - 1]))
        b--;
    if (b == 0 || text[b - 1] != ',')
        return false;
    size_t a = i + 1;
    while (a < len && is_space(text[a]))
        a++;
    *operand = a;
    return a < len && strchr("[({\"'", text[a]) != NULL;
}

/* Whether the node at pos has an ancestor of the given type (or, with type
 * NULL, an ERROR ancestor). */
static bool has_ancestor(TSNode root, uint32_t pos, const char *type)
{
    TSNode n = ts_node_descendant_for_byte_range(root, pos, pos + 1);
    for (int depth = 0; !ts_node_is_null(n) && depth < 4096; depth++) {
        if (type ? strcmp(ts_node_type(n), type) == 0 : ts_node_is_error(n))
            return true;
        n = ts_node_parent(n);
    }
    return false;
}

static bool inside_error(TSNode root, uint32_t pos)
{
    return has_ancestor(root, pos, NULL);
}

/* A star in a parameter list is never this gap: `def f(a, *(b))` is an
 * error, and without its star the grammar would take `(b)` as a parameter. */
static bool in_parameters(TSNode root, uint32_t pos)
{
    return has_ancestor(root, pos, "parameters") || has_ancestor(root, pos, "lambda_parameters");
}

/* Blanks, in buf (a copy of the text), the stars of that kind that lie, or
 * whose operand starts, inside an ERROR node of tree; returns how many. */
static size_t blank_gap_stars(TSNode root, char *buf, size_t len)
{
    size_t blanked = 0;
    for (char *p = memchr(buf, '*', len); p; p = memchr(p + 1, '*', len - (size_t)(p + 1 - buf))) {
        size_t i = (size_t)(p - buf);
        size_t operand;
        if (is_gap_star(buf, len, i, &operand) &&
            (inside_error(root, (uint32_t)i) || inside_error(root, (uint32_t)operand)) &&
            !in_parameters(root, (uint32_t)i)) {
            buf[i] = ' ';
            blanked++;
        }
        if (i + 1 >= len)
            break;
    }
    return blanked;
}

/* Error recovery does not always wrap every such star in the first tree, so
 * a few rounds: blank the stars inside the errors, parse again, repeat. */
#define GAP_ROUNDS 4

TSTree *oom_parse_python(TSParser *parser, const char *text, size_t len)
{
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_PYTHON));
    TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)len);
    if (!tree || !ts_node_has_error(ts_tree_root_node(tree)) || !memchr(text, '*', len))
        return tree;
    char *buf = malloc(len + 1);
    if (!buf)
        return tree;
    memcpy(buf, text, len);
    buf[len] = '\0';
    TSTree *current = tree;
    for (int round = 0; round < GAP_ROUNDS; round++) {
        if (blank_gap_stars(ts_tree_root_node(current), buf, len) == 0)
            break;
        TSTree *again = ts_parser_parse_string(parser, NULL, buf, (uint32_t)len);
        if (!again)
            break;
        if (current != tree)
            ts_tree_delete(current);
        current = again;
        if (!ts_node_has_error(ts_tree_root_node(current))) {
            free(buf);
            ts_tree_delete(tree);
            return current;
        }
    }
    free(buf);
    if (current != tree)
        ts_tree_delete(current);
    return tree;
}

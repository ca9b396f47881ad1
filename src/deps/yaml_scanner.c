/* tree-sitter-yaml's external scanner (fetched into build/deps, never
 * copied here), compiled through this file for one fix.
 *
 * Its serialize() writes the indentation stack, 4 bytes an entry, into
 * tree-sitter's 1024-byte buffer while `size < 1024`: at about 254 levels of
 * nesting the last entry runs 2 bytes past the buffer (tree-sitter's
 * assertion aborts the process; without assertions, memory is overwritten).
 * A config nested that deep is hostile input, not a training recipe. The loop
 * is bounded by the buffer size it sees, so it sees 4 bytes less: the last
 * entry fits, the deepest levels are dropped from the saved state, and the
 * parse of such a file is at worst wrong (a syntax error), never a crash.
 * tree_sitter/parser.h is included first so that its include guard keeps the
 * lowered size when scanner.c includes it again. */
#include "tree_sitter/parser.h"

#undef TREE_SITTER_SERIALIZATION_BUFFER_SIZE
#define TREE_SITTER_SERIALIZATION_BUFFER_SIZE (1024 - 4)

#include "scanner.c"

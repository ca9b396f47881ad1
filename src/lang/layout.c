/* lang/layout: oom_nodes_build, reading tree-sitter's subtrees directly.
 *
 * This is the one file of oomlint that includes tree-sitter's private
 * headers (lib/src of the pinned sources, see src/deps/deps.lock). The
 * public tree cursor costs about 400 instructions per visible node: every
 * step re-derives the child iterator of the node it climbs back to, and
 * every field look-up climbs the cursor's stack again. Laying out a tree is
 * a plain preorder walk, so it keeps, per open subtree, the iterator state
 * the cursor recomputes, and the field its hidden nodes pass on.
 *
 * It must produce exactly what the public cursor produces: the same node
 * handles (id, position, alias), the same fields, the same order. The
 * cursor-based walk is kept as the reference (oom_nodes_build_cursor in
 * nodes.c); the unit tests, `match-diff` (fixtures and both benchmark
 * corpora) and the match fuzz target compare the two node by node. A
 * tree-sitter upgrade that changes these structures shows up there first. */
#include <stdbool.h>
#include <stdlib.h>

#include "oomlint/nodes.h"
#include "oomlint/util.h"

#include "language.h" /* tree-sitter private: alias sequences, field maps */
#include "length.h"
#include "subtree.h"
#include "tree.h" /* tree-sitter private: struct TSTree */

/* One subtree whose children are being visited. */
struct oom_layout_frame {
    const Subtree *children;
    uint32_t count;      /* its children */
    uint32_t next;       /* the next child to visit */
    uint32_t structural; /* structural index (extras not counted) of that child */
    Length position;     /* where that child starts */
    const TSSymbol *aliases;                  /* its production's alias sequence, or NULL */
    const TSFieldMapEntry *fields, *fields_end; /* its production's field map */
    uint32_t owner;      /* the array index of its nearest visible node (itself when visible) */
    TSFieldId inherited; /* a hidden subtree: the field it fills, passed on to its children */
    bool hidden;
};

static void push_frame(oom_nodes *n, size_t *depth, const TSLanguage *lang, const Subtree *tree,
                       Length position, uint32_t owner, TSFieldId inherited, bool hidden)
{
    if (*depth + 1 > n->frames_cap)
        oom_grow((void **)&n->frames, &n->frames_cap, *depth + 1, sizeof(*n->frames));
    struct oom_layout_frame *f = &n->frames[(*depth)++];
    uint16_t production = tree->ptr->production_id;
    f->children = ts_subtree_children(*tree);
    f->count = tree->ptr->child_count;
    f->next = 0;
    f->structural = 0;
    f->position = position;
    f->aliases = ts_language_alias_sequence(lang, production);
    ts_language_field_map(lang, production, &f->fields, &f->fields_end);
    f->owner = owner;
    f->inherited = inherited;
    f->hidden = hidden;
}

/* Appends a visible node; its handle is the one ts_node_new would make. */
static uint32_t append(oom_nodes *n, const TSTree *tree, const Subtree *subtree, Length position,
                       TSSymbol alias, TSSymbol symbol, uint32_t parent, TSFieldId field)
{
    if (n->len + 1 > n->cap)
        oom_grow((void **)&n->items, &n->cap, n->len + 1, sizeof(oom_node));
    oom_node *e = &n->items[n->len];
    e->node.context[0] = position.bytes;
    e->node.context[1] = position.extent.row;
    e->node.context[2] = position.extent.column;
    e->node.context[3] = alias;
    e->node.id = subtree;
    e->node.tree = tree;
    e->start = position.bytes;
    e->end = n->len + 1;
    e->parent = parent;
    e->symbol = symbol;
    e->field = field;
    return n->len++;
}

/* ts_language_public_symbol, inline: the symbol a node reports, the same
 * for every symbol that a grammar's aliases merge. */
static TSSymbol public_symbol(const TSLanguage *lang, TSSymbol symbol)
{
    return symbol == ts_builtin_sym_error ? symbol : lang->public_symbol_map[symbol];
}

/* The field a child fills in the production of the subtree it sits in, as
 * ts_tree_cursor_current_field_id finds it: a non-inherited entry at its
 * structural index; failing that, the field of the hidden subtree itself. */
static TSFieldId field_of(const struct oom_layout_frame *f, uint32_t structural)
{
    for (const TSFieldMapEntry *m = f->fields; m < f->fields_end; m++)
        if (!m->inherited && m->child_index == structural)
            return m->field_id;
    return f->hidden ? f->inherited : 0;
}

/* Visits the next child of the top frame: appends it if it is visible,
 * opens a frame for it if it has visible nodes below it. */
static void visit_next_child(oom_nodes *n, size_t *depth, const TSTree *tree)
{
    struct oom_layout_frame *f = &n->frames[*depth - 1];
    const Subtree *child = &f->children[f->next++];
    Length position = f->position;
    bool extra = ts_subtree_extra(*child);
    TSSymbol alias = 0;
    TSFieldId field = 0;
    if (!extra) {
        if (f->aliases)
            alias = f->aliases[f->structural];
        field = field_of(f, f->structural);
        f->structural++;
    }
    f->position = length_add(position, ts_subtree_size(*child));
    if (f->next < f->count)
        f->position = length_add(f->position, ts_subtree_padding(f->children[f->next]));

    uint32_t owner = f->owner;
    if (ts_subtree_visible(*child) || alias) {
        TSSymbol symbol = public_symbol(tree->language, alias ? alias : ts_subtree_symbol(*child));
        uint32_t at = append(n, tree, child, position, alias, symbol, owner, field);
        if (ts_subtree_child_count(*child))
            push_frame(n, depth, tree->language, child, position, at, 0, false);
    } else if (ts_subtree_visible_child_count(*child)) {
        push_frame(n, depth, tree->language, child, position, owner, field, true);
    }
}

static void lay_out(oom_nodes *n, TSNode root)
{
    n->len = 0;
    if (ts_node_is_null(root))
        return;
    const TSTree *tree = root.tree;
    const Subtree *top = (const Subtree *)root.id;
    Length position = {root.context[0], {root.context[1], root.context[2]}};
    append(n, tree, top, position, (TSSymbol)root.context[3], ts_node_symbol(root), UINT32_MAX, 0);
    if (!ts_subtree_child_count(*top))
        return;
    size_t depth = 0;
    push_frame(n, &depth, tree->language, top, position, 0, 0, false);
    while (depth) {
        struct oom_layout_frame *f = &n->frames[depth - 1];
        if (f->next < f->count) {
            visit_next_child(n, &depth, tree);
            continue;
        }
        if (!f->hidden)
            n->items[f->owner].end = n->len;
        depth--;
    }
}

void oom_nodes_build(oom_nodes *n, TSNode root)
{
    lay_out(n, root);
    oom_nodes_index_blocks(n);
}

/* nodes: a parsed tree's visible nodes in document order, in one array.
 *
 * tree-sitter's tree cursor spends several hundred instructions per step
 * (it climbs through the grammar's hidden nodes and recomputes positions),
 * and oomlint needs each node more than once: the semantic model visits them
 * all, and the rule matcher visits them all and then the children of every
 * node that roots a pattern. So the tree is walked with a cursor once and
 * its nodes laid out here: preorder, each with the index just past its
 * subtree, so a node's first child is the next entry and its next sibling
 * is the entry at its `end`. */
#ifndef OOMLINT_NODES_H
#define OOMLINT_NODES_H

#include <stdint.h>
#include <tree_sitter/api.h>

typedef struct {
    TSNode node;
    uint32_t start;   /* ts_node_start_byte, kept here for binary searches */
    uint32_t end;     /* index past the last node of its subtree */
    uint32_t parent;  /* index of its parent; UINT32_MAX for the root */
    TSSymbol symbol;  /* ts_node_symbol */
    TSFieldId field;  /* the field it fills in its parent; 0 for none */
} oom_node;

/* Source bytes per entry of oom_nodes.blocks. */
#define OOM_NODES_BLOCK 32u

typedef struct {
    oom_node *items;
    uint32_t len;
    size_t cap;
    struct oom_layout_frame *frames; /* open subtrees while building */
    size_t frames_cap;
    /* where to start looking for a node by its start byte: blocks[b] is the
     * first entry starting at or after byte b * OOM_NODES_BLOCK, for b up to
     * block_count (whose entry is len), so a search covers one block's
     * few dozen entries, not the whole array */
    uint32_t *blocks;
    uint32_t block_count;
    size_t blocks_cap;
} oom_nodes;

void oom_nodes_init(oom_nodes *n);
/* Lays out the tree under root, reusing the array's memory. Reads
 * tree-sitter's subtrees directly (src/lang/layout.c). */
void oom_nodes_build(oom_nodes *n, TSNode root);
/* The same through tree-sitter's public tree cursor: the reference the
 * fast layout is tested against; several times slower. */
void oom_nodes_build_cursor(oom_nodes *n, TSNode root);
/* The first index at which two layouts differ in any field (node handle,
 * position, subtree end, parent, symbol, field), or UINT32_MAX when they
 * are the same. */
uint32_t oom_nodes_first_difference(const oom_nodes *a, const oom_nodes *b);
/* Gives back memory held for a large file (the array is reused per thread). */
void oom_nodes_trim(oom_nodes *n);
void oom_nodes_free(oom_nodes *n);

/* Fills in `blocks` from the laid-out entries; both builds end with it. */
void oom_nodes_index_blocks(oom_nodes *n);

/* The index of `node` in the array (a binary search by start byte within
 * its block: preorder keeps start bytes in order), or UINT32_MAX when it is
 * not there. */
uint32_t oom_nodes_find(const oom_nodes *n, TSNode node);
/* The same, trying index `hint` first (the node a walk is at). */
uint32_t oom_nodes_find_near(const oom_nodes *n, TSNode node, uint32_t hint);
/* ts_node_child_by_field_id through the array: the first child of `node`
 * in that field, or a null node. Several times cheaper than tree-sitter's,
 * which walks the grammar's hidden nodes and field maps on each call. */
TSNode oom_nodes_child(const oom_nodes *n, TSNode node, TSFieldId field, uint32_t hint);
/* ts_node_named_child through the array (tree-sitter's walks the grammar's
 * hidden nodes from the first child on each call). */
TSNode oom_nodes_named_child(const oom_nodes *n, TSNode node, uint32_t index, uint32_t hint);
/* The first named node at or after child index `kid` among the children of
 * a node whose subtree ends at `end` (its `end` field), stepping from
 * sibling to sibling; `end` when there is none. Walking a node's named
 * children with it costs one step per child, where oom_nodes_named_child
 * in a loop starts again from the first child for each index. */
uint32_t oom_nodes_next_named(const oom_nodes *n, uint32_t kid, uint32_t end);
/* ts_node_parent through the array (tree-sitter's climbs from the root). */
TSNode oom_nodes_parent(const oom_nodes *n, TSNode node, uint32_t hint);

#endif

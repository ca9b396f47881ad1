/* lang/nodes: a tree's nodes in an array: look-ups, memory, and the
 * reference layout through tree-sitter's public cursor (the fast layout is
 * in layout.c). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/nodes.h"
#include "oomlint/util.h"

/* Above this many nodes the array is freed after the file (a 1,000,000-line
 * file has about five million), so a thread does not keep a huge file's
 * memory for the rest of the run. */
#define OOM_NODES_KEEP 262144u

void oom_nodes_init(oom_nodes *n)
{
    memset(n, 0, sizeof(*n));
}

static void open_node(oom_nodes *n, uint32_t **stack, size_t *depth, size_t *stack_cap, TSTreeCursor *c)
{
    if (n->len + 1 > n->cap)
        oom_grow((void **)&n->items, &n->cap, n->len + 1, sizeof(oom_node));
    oom_node *e = &n->items[n->len];
    e->node = ts_tree_cursor_current_node(c);
    e->start = ts_node_start_byte(e->node);
    e->end = 0;
    e->parent = *depth ? (*stack)[*depth - 1] : UINT32_MAX;
    e->symbol = ts_node_symbol(e->node);
    e->field = ts_tree_cursor_current_field_id(c);
    OOM_PUSH(*stack, *depth, *stack_cap, n->len);
    n->len++;
}

static void lay_out_with_cursor(oom_nodes *n, TSNode root)
{
    n->len = 0;
    if (ts_node_is_null(root))
        return;
    uint32_t *stack = NULL; /* the open nodes */
    size_t depth = 0, stack_cap = 0;
    TSTreeCursor c = ts_tree_cursor_new(root);
    open_node(n, &stack, &depth, &stack_cap, &c);
    for (;;) {
        if (ts_tree_cursor_goto_first_child(&c)) {
            open_node(n, &stack, &depth, &stack_cap, &c);
            continue;
        }
        for (;;) { /* close the current node, then go to the next one */
            n->items[stack[--depth]].end = n->len;
            if (ts_tree_cursor_goto_next_sibling(&c)) {
                open_node(n, &stack, &depth, &stack_cap, &c);
                break;
            }
            if (!ts_tree_cursor_goto_parent(&c)) {
                ts_tree_cursor_delete(&c);
                free(stack);
                return;
            }
        }
    }
}

void oom_nodes_build_cursor(oom_nodes *n, TSNode root)
{
    lay_out_with_cursor(n, root);
    oom_nodes_index_blocks(n);
}

void oom_nodes_index_blocks(oom_nodes *n)
{
    n->block_count = n->len ? n->items[n->len - 1].start / OOM_NODES_BLOCK + 1 : 0;
    if (n->block_count + 1u > n->blocks_cap)
        oom_grow((void **)&n->blocks, &n->blocks_cap, n->block_count + 1u, sizeof(uint32_t));
    uint32_t b = 0;
    for (uint32_t i = 0; i < n->len; i++)
        while (b <= n->items[i].start / OOM_NODES_BLOCK)
            n->blocks[b++] = i;
    while (b <= n->block_count)
        n->blocks[b++] = n->len;
}

static bool same_node(const oom_node *a, const oom_node *b)
{
    return a->node.id == b->node.id && a->node.tree == b->node.tree &&
           memcmp(a->node.context, b->node.context, sizeof(a->node.context)) == 0 &&
           a->start == b->start && a->end == b->end && a->parent == b->parent &&
           a->symbol == b->symbol && a->field == b->field;
}

uint32_t oom_nodes_first_difference(const oom_nodes *a, const oom_nodes *b)
{
    uint32_t len = a->len < b->len ? a->len : b->len;
    for (uint32_t i = 0; i < len; i++)
        if (!same_node(&a->items[i], &b->items[i]))
            return i;
    return a->len == b->len ? UINT32_MAX : len;
}

void oom_nodes_trim(oom_nodes *n)
{
    if (n->cap <= OOM_NODES_KEEP && n->blocks_cap <= OOM_NODES_KEEP)
        return;
    oom_nodes_free(n);
}

void oom_nodes_free(oom_nodes *n)
{
    free(n->items);
    free(n->frames);
    free(n->blocks);
    oom_nodes_init(n);
}

uint32_t oom_nodes_find(const oom_nodes *n, TSNode node)
{
    uint32_t start = ts_node_start_byte(node), block = start / OOM_NODES_BLOCK;
    if (block >= n->block_count)
        return UINT32_MAX; /* past the last node's start */
    uint32_t lo = n->blocks[block], hi = n->blocks[block + 1];
    while (lo < hi) { /* the first node starting at or after `start` */
        uint32_t mid = lo + (hi - lo) / 2;
        if (n->items[mid].start < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* nodes that start together are an ancestor chain: `node` is among them */
    for (uint32_t i = lo; i < n->len && n->items[i].start == start; i++)
        if (n->items[i].node.id == node.id)
            return i;
    return UINT32_MAX;
}

uint32_t oom_nodes_find_near(const oom_nodes *n, TSNode node, uint32_t hint)
{
    if (hint < n->len && n->items[hint].node.id == node.id)
        return hint;
    return oom_nodes_find(n, node);
}

TSNode oom_nodes_parent(const oom_nodes *n, TSNode node, uint32_t hint)
{
    uint32_t at = oom_nodes_find_near(n, node, hint);
    if (at == UINT32_MAX)
        return ts_node_parent(node);
    if (n->items[at].parent == UINT32_MAX)
        return (TSNode){{0}, NULL, NULL};
    return n->items[n->items[at].parent].node;
}

TSNode oom_nodes_child(const oom_nodes *n, TSNode node, TSFieldId field, uint32_t hint)
{
    uint32_t at = oom_nodes_find_near(n, node, hint);
    if (at == UINT32_MAX)
        return field ? ts_node_child_by_field_id(node, field) : (TSNode){{0}, NULL, NULL};
    for (uint32_t kid = at + 1; kid < n->items[at].end; kid = n->items[kid].end)
        if (field && n->items[kid].field == field)
            return n->items[kid].node;
    return (TSNode){{0}, NULL, NULL};
}

uint32_t oom_nodes_next_named(const oom_nodes *n, uint32_t kid, uint32_t end)
{
    while (kid < end && !ts_node_is_named(n->items[kid].node))
        kid = n->items[kid].end;
    return kid;
}

TSNode oom_nodes_named_child(const oom_nodes *n, TSNode node, uint32_t index, uint32_t hint)
{
    uint32_t at = oom_nodes_find_near(n, node, hint);
    if (at == UINT32_MAX)
        return ts_node_named_child(node, index);
    uint32_t end = n->items[at].end;
    for (uint32_t kid = oom_nodes_next_named(n, at + 1, end); kid < end;
         kid = oom_nodes_next_named(n, n->items[kid].end, end))
        if (index-- == 0)
            return n->items[kid].node;
    return (TSNode){{0}, NULL, NULL};
}

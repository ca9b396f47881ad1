/* model/flow: the control flow of each function body (and of the module
 * body) at statement granularity, and the definitions of its local names
 * that may reach each point: "what may this name hold here" has a set of
 * answers, not only the nearest binding above it.
 *
 * Built over the laid-out node array (no tree-sitter cursors), per function
 * when first asked (most functions never are), with explicit stacks: a file
 * of 2000 nested loops neither exhausts the C stack nor takes quadratic
 * time. One block of the graph stands for one thing the code evaluates: a
 * simple statement, or the head of a compound one (an `if` condition, a
 * loop's iterable or its targets, a `with` clause, an except clause, a
 * match subject or case); blocks without an anchor join paths. Reaching
 * definitions are the classic bit-vector problem, solved with a worklist;
 * the definitions are numbered name by name, so that a definition kills the
 * others of its name by clearing one range of bits.
 *
 * What is a definition: assignment, augmented-assignment and walrus
 * targets, loop targets, `with ... as`, `except ... as`, imports, `def` and
 * `class` names, parameters, match captures (best effort), and `del` (which
 * makes the name unbound). Nested functions, classes, lambdas and
 * comprehensions are scopes of their own: their bindings do not flow into
 * the enclosing body. A name declared global or nonlocal is not local. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define NONE UINT32_MAX
/* A body whose bit vectors would need more words than this is left
 * unanalysed (its questions answer OOM_FLOW_UNKNOWN): 16 MB. */
#define FLOW_MAX_WORDS (2u << 20)

/* ---- the grammar's symbols and fields ---------------------------------------- */

typedef struct {
    TSSymbol module, block, comment, if_statement, elif_clause, else_clause, for_statement, while_statement,
        try_statement, except_clause, finally_clause, with_statement, with_clause, with_item, as_pattern,
        match_statement, case_clause, dotted_name, class_pattern, splat_pattern, function_definition,
        class_definition, decorated_definition, lambda, lambda_parameters, list_comprehension,
        set_comprehension, dictionary_comprehension, generator_expression, for_in_clause, return_statement,
        raise_statement, break_statement, continue_statement, global_statement, nonlocal_statement,
        delete_statement, assignment, augmented_assignment, named_expression, identifier, attribute, subscript,
        import_statement, import_from_statement, aliased_import, keyword_pattern, dict_pattern,
        future_import_statement;
    TSFieldId f_guard, f_body, f_condition, f_consequence, f_alternative, f_left, f_right, f_name, f_value, f_alias,
        f_subject, f_parameters, f_definition, f_module_name, f_key;
} flow_symbols;

static flow_symbols fsym;
static pthread_once_t fsym_once = PTHREAD_ONCE_INIT;

static TSSymbol named_symbol(const TSLanguage *l, const char *name)
{
    return ts_language_symbol_for_name(l, name, (uint32_t)strlen(name), true);
}

static TSFieldId field(const TSLanguage *l, const char *name)
{
    return oom_lang_field_id(l, name, (uint32_t)strlen(name));
}

static void init_flow_symbols(void)
{
    const TSLanguage *l = oom_lang_grammar(OOM_LANG_PYTHON);
    flow_symbols *s = &fsym;
#define SYM(x) s->x = named_symbol(l, #x)
    SYM(module); SYM(block); SYM(comment); SYM(if_statement); SYM(elif_clause); SYM(else_clause);
    SYM(for_statement); SYM(while_statement); SYM(try_statement); SYM(except_clause); SYM(finally_clause);
    SYM(with_statement); SYM(with_clause); SYM(with_item); SYM(as_pattern); SYM(match_statement);
    SYM(case_clause); SYM(dotted_name); SYM(class_pattern); SYM(splat_pattern); SYM(function_definition);
    SYM(class_definition); SYM(decorated_definition); SYM(lambda); SYM(lambda_parameters);
    SYM(list_comprehension); SYM(set_comprehension); SYM(dictionary_comprehension); SYM(generator_expression);
    SYM(for_in_clause); SYM(return_statement); SYM(raise_statement); SYM(break_statement);
    SYM(continue_statement); SYM(global_statement); SYM(nonlocal_statement); SYM(delete_statement);
    SYM(assignment); SYM(augmented_assignment); SYM(named_expression); SYM(identifier); SYM(attribute);
    SYM(subscript); SYM(import_statement); SYM(import_from_statement); SYM(aliased_import);
    SYM(keyword_pattern); SYM(dict_pattern); SYM(future_import_statement);
#undef SYM
#define FLD(x) s->f_##x = field(l, #x)
    FLD(guard);
    FLD(body); FLD(condition); FLD(consequence); FLD(alternative); FLD(left); FLD(right); FLD(name);
    FLD(value); FLD(alias); FLD(subject); FLD(parameters); FLD(definition); FLD(module_name); FLD(key);
#undef FLD
}

static const flow_symbols *symbols(void)
{
    pthread_once(&fsym_once, init_flow_symbols);
    return &fsym;
}

/* ---- the node array ---------------------------------------------------------- */

static inline uint32_t node_end(const oom_nodes *n, uint32_t i)
{
    return n->items[i].end;
}

static inline uint32_t end_byte(const oom_nodes *n, uint32_t i)
{
    return ts_node_end_byte(n->items[i].node);
}

/* The first child of `i` in `field`, or NONE. */
static uint32_t child_in(const oom_nodes *n, uint32_t i, TSFieldId f)
{
    for (uint32_t c = i + 1; c < node_end(n, i); c = node_end(n, c))
        if (n->items[c].field == f)
            return c;
    return NONE;
}

/* The first child of `i` of symbol `s`, or NONE. */
static uint32_t child_of_symbol(const oom_nodes *n, uint32_t i, TSSymbol s)
{
    for (uint32_t c = i + 1; c < node_end(n, i); c = node_end(n, c))
        if (n->items[c].symbol == s)
            return c;
    return NONE;
}

static bool is_scope_node(const flow_symbols *s, TSSymbol sym)
{
    return sym == s->lambda || sym == s->list_comprehension || sym == s->set_comprehension ||
           sym == s->dictionary_comprehension || sym == s->generator_expression ||
           sym == s->function_definition || sym == s->class_definition;
}

/* ---- building one body's graph ------------------------------------------------ */

typedef struct {
    const char *name; /* into the source */
    uint32_t name_len;
    uint32_t block;
    uint32_t effect; /* from this byte on the definition holds */
    uint32_t seq;    /* creation order: ties of `effect` keep it */
    TSNode site;
    bool deletes;
} raw_def;

typedef struct {
    uint32_t from, to;
} edge;

typedef enum { FR_BLOCK, FR_IF, FR_LOOP, FR_TRY, FR_MATCH } frame_kind;

typedef struct {
    frame_kind kind;
    int stage;
    uint32_t stmt; /* the statement (FR_BLOCK: the next statement to visit) */
    uint32_t end;  /* FR_BLOCK: past the last statement */
    uint32_t a, b, c, d; /* per kind: joins, tests, the next clause */
    uint32_t saved_exc;   /* FR_TRY: where exceptions went before it */
    size_t pending_from;  /* FR_TRY: the pending exits recorded since its finally opened */
} frame;

typedef struct {
    uint32_t cont, brk;
    size_t finally_depth; /* finally frames open when the loop started */
} loop_ctx;

typedef struct {
    uint32_t entry; /* the finally clause's entry join */
} finally_ctx;

typedef struct {
    uint32_t fin; /* a finally clause's entry */
    uint32_t to;  /* where its end must also lead */
} pending_exit;

typedef struct {
    const oom_pymodel *m;
    const oom_nodes *n;
    const flow_symbols *s;
    oom_flow_block *blocks;
    size_t block_count, block_cap;
    edge *edges;
    size_t edge_count, edge_cap;
    raw_def *defs;
    size_t def_count, def_cap;
    frame *frames;
    size_t frame_count, frame_cap;
    loop_ctx *loops;
    size_t loop_count, loop_cap;
    finally_ctx *finals;
    size_t final_count, final_cap;
    pending_exit *pending;
    size_t pending_count, pending_cap;
    oom_flow_name *nonlocals; /* names declared global or nonlocal */
    size_t nonlocal_count, nonlocal_cap;
    uint32_t cur;  /* the block control is in; NONE after a jump */
    uint32_t exc;  /* where an exception raised here goes; NONE: out of the body */
    uint32_t exit; /* the body's exit */
} builder;

static void add_edge(builder *b, uint32_t from, uint32_t to)
{
    if (from == NONE || to == NONE)
        return;
    edge e = {from, to};
    OOM_PUSH(b->edges, b->edge_count, b->edge_cap, e);
}

static uint32_t new_join(builder *b)
{
    oom_flow_block blk = {NONE, NONE, 0, 0, 0, 0};
    OOM_PUSH(b->blocks, b->block_count, b->block_cap, blk);
    return (uint32_t)b->block_count - 1;
}

static void add_def(builder *b, uint32_t block, uint32_t id, uint32_t effect, bool deletes)
{
    raw_def d;
    d.name = oom_node_text(b->m, b->n->items[id].node, &d.name_len);
    d.block = block;
    d.effect = effect;
    d.seq = (uint32_t)b->def_count;
    d.site = b->n->items[id].node;
    d.deletes = deletes;
    OOM_PUSH(b->defs, b->def_count, b->def_cap, d);
}

/* Every name a target binds (`a`, `a, (b, *c)`, `[d, e]`), not the names
 * read inside an attribute or subscript target (`self.x`, `d[k]`). */
static void bind_targets(builder *b, uint32_t block, uint32_t target, uint32_t effect, bool deletes)
{
    if (target == NONE)
        return;
    for (uint32_t i = target; i < node_end(b->n, target);) {
        TSSymbol sym = b->n->items[i].symbol;
        if (sym == b->s->attribute || sym == b->s->subscript || is_scope_node(b->s, sym)) {
            i = node_end(b->n, i);
            continue;
        }
        if (sym == b->s->identifier)
            add_def(b, block, i, effect, deletes);
        i++;
    }
}

/* The first identifier under `i` (a parameter's name comes first in each
 * of its forms: `x`, `x: T`, `x=1`, `*args`, `**kw`). */
static uint32_t first_identifier(const builder *b, uint32_t i)
{
    for (uint32_t j = i; j < node_end(b->n, i); j++)
        if (b->n->items[j].symbol == b->s->identifier)
            return j;
    return NONE;
}

static void bind_parameters(builder *b, uint32_t block, uint32_t params)
{
    if (params == NONE)
        return;
    for (uint32_t c = params + 1; c < node_end(b->n, params); c = node_end(b->n, c)) {
        uint32_t id = first_identifier(b, c);
        if (id != NONE)
            add_def(b, block, id, 0, false);
    }
}

static void note_nonlocal(builder *b, uint32_t stmt)
{
    for (uint32_t c = stmt + 1; c < node_end(b->n, stmt); c = node_end(b->n, c)) {
        if (b->n->items[c].symbol != b->s->identifier)
            continue;
        oom_flow_name name;
        name.text = oom_node_text(b->m, b->n->items[c].node, &name.len);
        OOM_PUSH(b->nonlocals, b->nonlocal_count, b->nonlocal_cap, name);
    }
}

/* `import a.b` binds a; `import a.b as c`, c; `from m import x, y as z`, x and z. */
static void bind_imports(builder *b, uint32_t block, uint32_t stmt)
{
    uint32_t module = child_in(b->n, stmt, b->s->f_module_name);
    uint32_t effect = end_byte(b->n, stmt);
    for (uint32_t c = stmt + 1; c < node_end(b->n, stmt); c = node_end(b->n, c)) {
        TSSymbol sym = b->n->items[c].symbol;
        if (c == module)
            continue;
        if (sym == b->s->aliased_import) {
            uint32_t alias = child_in(b->n, c, b->s->f_alias);
            if (alias != NONE)
                add_def(b, block, alias, effect, false);
        } else if (sym == b->s->dotted_name) {
            uint32_t first = child_of_symbol(b->n, c, b->s->identifier);
            if (first != NONE)
                add_def(b, block, first, effect, false);
        }
    }
}

/* `case Point(x=px, y=_) as p`, `case [first, *rest]`: a dotted name of one
 * part is a capture, unless it names the class of a class pattern or a
 * key of a mapping; `_` captures nothing. */
static void bind_captures(builder *b, uint32_t block, uint32_t from, uint32_t to, uint32_t effect)
{
    for (uint32_t i = from; i < to; i++) {
        const oom_node *it = &b->n->items[i];
        uint32_t id = NONE;
        if (it->symbol == b->s->dotted_name && node_end(b->n, i) == i + 2 && it->field != b->s->f_key &&
            b->n->items[i + 1].symbol == b->s->identifier && it->parent != NONE &&
            b->n->items[it->parent].symbol != b->s->class_pattern)
            id = i + 1;
        else if (it->symbol == b->s->identifier && it->parent != NONE &&
                 (b->n->items[it->parent].symbol == b->s->splat_pattern ||
                  (b->n->items[it->parent].symbol == b->s->as_pattern && it->field == b->s->f_alias)))
            id = i;
        if (id == NONE)
            continue;
        uint32_t len;
        const char *name = oom_node_text(b->m, b->n->items[id].node, &len);
        if (!(len == 1 && name[0] == '_'))
            add_def(b, block, id, effect, false);
        i = node_end(b->n, i) - 1;
    }
}

/* Definitions made while evaluating the range: assignment and walrus
 * targets, `with ... as` targets, imports, `del`; not inside a lambda or
 * comprehension (their own scopes). */
static void scan_definitions(builder *b, uint32_t block, uint32_t from, uint32_t to)
{
    const flow_symbols *s = b->s;
    for (uint32_t i = from; i < to;) {
        const oom_node *it = &b->n->items[i];
        TSSymbol sym = it->symbol;
        if (is_scope_node(s, sym)) {
            i = node_end(b->n, i);
            continue;
        }
        if (sym == s->assignment) {
            /* `x: int` annotates without binding */
            if (child_in(b->n, i, s->f_right) != NONE)
                bind_targets(b, block, child_in(b->n, i, s->f_left), end_byte(b->n, i), false);
        } else if (sym == s->augmented_assignment) {
            bind_targets(b, block, child_in(b->n, i, s->f_left), end_byte(b->n, i), false);
        } else if (sym == s->named_expression) {
            uint32_t name = child_in(b->n, i, s->f_name);
            if (name != NONE)
                add_def(b, block, name, end_byte(b->n, i), false);
        } else if (sym == s->as_pattern && it->parent != NONE && b->n->items[it->parent].symbol == s->with_item) {
            bind_targets(b, block, child_in(b->n, i, s->f_alias), end_byte(b->n, it->parent), false);
        } else if (sym == s->import_statement || sym == s->import_from_statement) {
            bind_imports(b, block, i);
            i = node_end(b->n, i);
            continue;
        } else if (sym == s->delete_statement) {
            for (uint32_t c = i + 1; c < node_end(b->n, i); c = node_end(b->n, c))
                bind_targets(b, block, c, end_byte(b->n, i), true);
            i = node_end(b->n, i);
            continue;
        } else if (sym == s->global_statement || sym == s->nonlocal_statement) {
            note_nonlocal(b, i);
        }
        i++;
    }
}

/* A block for the evaluation of nodes [from, to): control comes from the
 * current block, and an exception raised there leaves for the handler. */
static uint32_t new_block(builder *b, uint32_t from, uint32_t to)
{
    oom_flow_block blk = {from, to, 0, 0, 0, 0};
    OOM_PUSH(b->blocks, b->block_count, b->block_cap, blk);
    uint32_t id = (uint32_t)b->block_count - 1;
    add_edge(b, b->cur, id);
    add_edge(b, id, b->exc);
    b->cur = id;
    return id;
}

/* A block evaluating the expression `node` (a condition, an iterable, a
 * subject, a with clause): a walrus or `as` target there binds. */
static uint32_t eval_block(builder *b, uint32_t node, uint32_t stmt)
{
    if (node == NONE)
        return new_block(b, stmt, stmt + 1);
    uint32_t blk = new_block(b, node, node_end(b->n, node));
    scan_definitions(b, blk, node, node_end(b->n, node));
    return blk;
}

/* The next child of `parent` after `after` with the same symbol. */
static uint32_t child_of_symbol_after(const builder *b, uint32_t parent, uint32_t after)
{
    if (after == NONE)
        return NONE;
    for (uint32_t c = node_end(b->n, after); c < node_end(b->n, parent); c = node_end(b->n, c))
        if (b->n->items[c].symbol == b->n->items[after].symbol)
            return c;
    return NONE;
}

static void push_frame(builder *b, frame_kind kind, uint32_t stmt, uint32_t end)
{
    frame f = {kind, 0, stmt, end, NONE, NONE, NONE, NONE, NONE, 0};
    OOM_PUSH(b->frames, b->frame_count, b->frame_cap, f);
}

static void push_block(builder *b, uint32_t block)
{
    if (block != NONE)
        push_frame(b, FR_BLOCK, block + 1, node_end(b->n, block));
}

/* A jump to `target` leaves every finally clause opened since `depth`:
 * control runs each of them first, then goes on. */
static void jump(builder *b, uint32_t target, size_t depth)
{
    for (size_t k = depth; k < b->final_count; k++) {
        /* innermost first: cur -> F(top) -> ... -> F(depth) -> target */
        size_t f = b->final_count - 1 - (k - depth);
        if (k == depth) {
            add_edge(b, b->cur, b->finals[f].entry);
        }
        uint32_t next = f == depth ? target : b->finals[f - 1].entry;
        pending_exit p = {b->finals[f].entry, next};
        OOM_PUSH(b->pending, b->pending_count, b->pending_cap, p);
    }
    if (depth == b->final_count)
        add_edge(b, b->cur, target);
    b->cur = NONE;
}

static void simple_statement(builder *b, uint32_t stmt)
{
    const flow_symbols *s = b->s;
    TSSymbol sym = b->n->items[stmt].symbol;
    uint32_t blk = new_block(b, stmt, node_end(b->n, stmt));
    if (sym == s->function_definition || sym == s->class_definition || sym == s->decorated_definition) {
        uint32_t def = sym == s->decorated_definition ? child_in(b->n, stmt, s->f_definition) : stmt;
        uint32_t name = def == NONE ? NONE : child_in(b->n, def, s->f_name);
        if (name != NONE)
            add_def(b, blk, name, end_byte(b->n, stmt), false);
        return;
    }
    scan_definitions(b, blk, stmt, node_end(b->n, stmt));
    if (sym == s->return_statement) {
        jump(b, b->exit, 0);
    } else if (sym == s->raise_statement) {
        b->cur = NONE; /* its edge to the handler is the block's own */
    } else if ((sym == s->break_statement || sym == s->continue_statement) && b->loop_count) {
        const loop_ctx *l = &b->loops[b->loop_count - 1];
        jump(b, sym == s->break_statement ? l->brk : l->cont, l->finally_depth);
    }
}

/* ---- compound statements, one stage at a time ---------------------------------- */

static uint32_t next_alternative(const builder *b, uint32_t stmt, uint32_t after)
{
    uint32_t c = after == NONE ? stmt + 1 : node_end(b->n, after);
    for (; c < node_end(b->n, stmt); c = node_end(b->n, c))
        if (b->n->items[c].field == b->s->f_alternative)
            return c;
    return NONE;
}

/* if / elif / else. a: the join after it; b: the last test; c: the
 * alternative being visited. */
static void step_if(builder *b, frame *f)
{
    const flow_symbols *s = b->s;
    if (f->stage == 0) {
        f->b = eval_block(b, child_in(b->n, f->stmt, s->f_condition), f->stmt);
        f->a = new_join(b);
        f->c = NONE;
        f->stage = 1;
        push_block(b, child_in(b->n, f->stmt, s->f_consequence));
        return;
    }
    add_edge(b, b->cur, f->a);
    uint32_t alt = f->stage == 1 ? next_alternative(b, f->stmt, f->c) : NONE;
    f->c = alt;
    if (alt == NONE) {
        if (f->stage == 1)
            add_edge(b, f->b, f->a); /* no else: the last test may fail */
        b->cur = f->a;
        b->frame_count--;
        return;
    }
    b->cur = f->b;
    if (b->n->items[alt].symbol == s->elif_clause) {
        f->b = eval_block(b, child_in(b->n, alt, s->f_condition), alt);
        push_block(b, child_in(b->n, alt, s->f_consequence));
    } else {
        f->stage = 2;
        push_block(b, child_in(b->n, alt, s->f_body));
    }
}

/* for / while, with their else. a: the test (each iteration); b: the join
 * after the loop. */
static void step_loop(builder *b, frame *f)
{
    const flow_symbols *s = b->s;
    bool is_for = b->n->items[f->stmt].symbol == s->for_statement;
    if (f->stage == 0) {
        if (is_for) {
            uint32_t right = child_in(b->n, f->stmt, s->f_right), left = child_in(b->n, f->stmt, s->f_left);
            if (right != NONE)
                eval_block(b, right, f->stmt); /* the iterable, once */
            f->a = new_join(b);
            add_edge(b, b->cur, f->a);
            b->cur = f->a;
            if (left != NONE) {
                uint32_t targets = new_block(b, left, node_end(b->n, left));
                bind_targets(b, targets, left, end_byte(b->n, left), false);
            }
        } else {
            f->a = eval_block(b, child_in(b->n, f->stmt, s->f_condition), f->stmt);
        }
        f->b = new_join(b);
        loop_ctx l = {f->a, f->b, b->final_count};
        OOM_PUSH(b->loops, b->loop_count, b->loop_cap, l);
        f->stage = 1;
        push_block(b, child_in(b->n, f->stmt, s->f_body));
        return;
    }
    if (f->stage == 1) {
        add_edge(b, b->cur, f->a); /* the back edge */
        b->loop_count--;
        uint32_t orelse = child_in(b->n, f->stmt, s->f_alternative);
        b->cur = f->a;
        if (orelse != NONE) {
            f->stage = 2;
            push_block(b, child_in(b->n, orelse, s->f_body));
            return;
        }
    }
    add_edge(b, b->cur, f->b);
    b->cur = f->b;
    b->frame_count--;
}

/* `except E as err`: the name (the grammar puts it in an as_pattern). */
static uint32_t except_alias(const builder *b, uint32_t clause)
{
    uint32_t alias = child_in(b->n, clause, b->s->f_alias);
    uint32_t value = child_in(b->n, clause, b->s->f_value);
    if (alias == NONE && value != NONE && b->n->items[value].symbol == b->s->as_pattern)
        alias = child_in(b->n, value, b->s->f_alias);
    return alias;
}

/* try / except / else / finally. a: the join after it; b: the dispatch of
 * exceptions to the handlers; c: the finally clause's entry; d: the next
 * except clause. */
static void try_open(builder *b, frame *f)
{
    const flow_symbols *s = b->s;
    f->saved_exc = b->exc;
    f->a = new_join(b);
    f->c = child_of_symbol(b->n, f->stmt, s->finally_clause) == NONE ? NONE : new_join(b);
    f->d = child_of_symbol(b->n, f->stmt, s->except_clause);
    f->b = f->d == NONE ? NONE : new_join(b);
    f->pending_from = b->pending_count;
    if (f->c != NONE) {
        finally_ctx fc = {f->c};
        OOM_PUSH(b->finals, b->final_count, b->final_cap, fc);
        if (b->exc != NONE) { /* an exception the handlers miss leaves after the finally */
            pending_exit p = {f->c, b->exc};
            OOM_PUSH(b->pending, b->pending_count, b->pending_cap, p);
        }
    }
    uint32_t handler_exc = f->c != NONE ? f->c : b->exc;
    add_edge(b, f->b, handler_exc); /* not caught by any handler */
    b->exc = f->b != NONE ? f->b : handler_exc;
    uint32_t entry = new_join(b); /* an exception before the first statement */
    add_edge(b, b->cur, entry);
    add_edge(b, entry, b->exc);
    b->cur = entry;
    f->stage = 1;
    push_block(b, child_in(b->n, f->stmt, s->f_body));
}

/* After the body and its else (stage 2) or a handler (stage 3): the next
 * handler, from the dispatch; then the finally clause. */
static void try_next_clause(builder *b, frame *f)
{
    const flow_symbols *s = b->s;
    add_edge(b, b->cur, f->c != NONE ? f->c : f->a);
    if (f->stage == 3)
        f->d = child_of_symbol_after(b, f->stmt, f->d);
    if (f->d != NONE) {
        uint32_t clause = f->d;
        uint32_t body = child_of_symbol(b->n, clause, s->block);
        b->cur = f->b;
        uint32_t head = new_block(b, clause, body == NONE ? node_end(b->n, clause) : body);
        bind_targets(b, head, except_alias(b, clause),
                     body == NONE ? end_byte(b->n, clause) : b->n->items[body].start, false);
        f->stage = 3;
        push_block(b, body);
        return;
    }
    b->exc = f->saved_exc;
    if (f->c == NONE) {
        b->cur = f->a;
        b->frame_count--;
        return;
    }
    b->final_count--;
    b->cur = f->c;
    f->stage = 4;
    push_block(b, child_of_symbol(b->n, child_of_symbol(b->n, f->stmt, s->finally_clause), s->block));
}

/* The finally clause's end goes on to where each jump through it was
 * going; the exits recorded for outer clauses stay. */
static void try_close(builder *b, frame *f)
{
    add_edge(b, b->cur, f->a);
    size_t kept = f->pending_from;
    for (size_t i = f->pending_from; i < b->pending_count; i++) {
        if (b->pending[i].fin == f->c)
            add_edge(b, b->cur, b->pending[i].to);
        else
            b->pending[kept++] = b->pending[i];
    }
    b->pending_count = kept;
    b->cur = f->a;
    b->frame_count--;
}

static void step_try(builder *b, frame *f)
{
    if (f->stage == 0) {
        try_open(b, f);
        return;
    }
    if (f->stage == 1) { /* the body is done: handlers and else raise to the finally */
        b->exc = f->c != NONE ? f->c : f->saved_exc;
        uint32_t orelse = child_of_symbol(b->n, f->stmt, b->s->else_clause);
        f->stage = 2;
        if (orelse != NONE) {
            push_block(b, child_in(b->n, orelse, b->s->f_body));
            return;
        }
    }
    if (f->stage <= 3)
        try_next_clause(b, f);
    else
        try_close(b, f);
}

/* match: a: the join after it; b: where the next case is tried from;
 * c: the case clause being visited. A case that does not match binds
 * nothing; one whose guard fails has bound its captures. */
static void step_match(builder *b, frame *f)
{
    const flow_symbols *s = b->s;
    if (f->stage == 0) {
        f->b = eval_block(b, child_in(b->n, f->stmt, s->f_subject), f->stmt);
        f->a = new_join(b);
        uint32_t body = child_in(b->n, f->stmt, s->f_body);
        f->c = body == NONE ? NONE : child_of_symbol(b->n, body, s->case_clause);
        f->d = body;
        f->stage = 1;
    } else {
        add_edge(b, b->cur, f->a);
        f->c = child_of_symbol_after(b, f->d, f->c);
    }
    if (f->c == NONE) {
        add_edge(b, f->b, f->a); /* no case matched */
        b->cur = f->a;
        b->frame_count--;
        return;
    }
    uint32_t consequence = child_in(b->n, f->c, s->f_consequence);
    uint32_t guard = child_in(b->n, f->c, s->f_guard);
    uint32_t head_end = consequence == NONE ? node_end(b->n, f->c) : consequence;
    uint32_t tried = new_join(b);
    add_edge(b, f->b, tried);
    b->cur = tried;
    uint32_t head = new_block(b, f->c, head_end);
    /* captures hold from the guard on */
    uint32_t captured = guard != NONE ? b->n->items[guard].start
                        : consequence != NONE ? b->n->items[consequence].start : end_byte(b->n, f->c);
    bind_captures(b, head, f->c + 1, guard != NONE ? guard : head_end, captured);
    scan_definitions(b, head, f->c + 1, head_end); /* a walrus in the guard */
    if (guard != NONE) {
        uint32_t failed = new_join(b); /* the guard failed: on to the next case, captures bound */
        add_edge(b, tried, failed);
        add_edge(b, head, failed);
        f->b = failed;
    } else {
        f->b = tried;
    }
    push_block(b, consequence);
}

/* The statements of a block, in order; a compound one opens its frame. */
static void step_block(builder *b, frame *f)
{
    const flow_symbols *s = b->s;
    while (f->stmt < f->end) {
        uint32_t stmt = f->stmt;
        f->stmt = node_end(b->n, stmt);
        TSSymbol sym = b->n->items[stmt].symbol;
        if (sym == s->comment || !ts_node_is_named(b->n->items[stmt].node))
            continue;
        if (sym == s->if_statement) {
            push_frame(b, FR_IF, stmt, 0);
        } else if (sym == s->for_statement || sym == s->while_statement) {
            push_frame(b, FR_LOOP, stmt, 0);
        } else if (sym == s->try_statement) {
            push_frame(b, FR_TRY, stmt, 0);
        } else if (sym == s->match_statement) {
            push_frame(b, FR_MATCH, stmt, 0);
        } else if (sym == s->with_statement) {
            eval_block(b, child_of_symbol(b->n, stmt, s->with_clause), stmt);
            push_block(b, child_in(b->n, stmt, s->f_body));
        } else {
            simple_statement(b, stmt);
            continue;
        }
        return; /* the frame pushed runs next; this one resumes after it */
    }
    b->frame_count--;
}

/* The graph of the body of `root` (a function_definition, or the module). */
static void build_graph(builder *b, uint32_t root, bool module)
{
    uint32_t entry = new_join(b); /* block 0: where every name starts unbound */
    b->cur = entry;
    b->exc = NONE;
    b->exit = new_join(b);
    if (module) {
        push_frame(b, FR_BLOCK, root + 1, node_end(b->n, root));
    } else {
        uint32_t params = new_join(b);
        add_edge(b, entry, params);
        b->cur = params;
        bind_parameters(b, params, child_in(b->n, root, b->s->f_parameters));
        push_block(b, child_in(b->n, root, b->s->f_body));
    }
    while (b->frame_count) {
        frame *f = &b->frames[b->frame_count - 1];
        switch (f->kind) {
        case FR_BLOCK: step_block(b, f); break;
        case FR_IF: step_if(b, f); break;
        case FR_LOOP: step_loop(b, f); break;
        case FR_TRY: step_try(b, f); break;
        case FR_MATCH: step_match(b, f); break;
        }
    }
    add_edge(b, b->cur, b->exit);
}

/* ---- from the builder to a unit ------------------------------------------------- */

static int compare_names(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
    if (alen != blen)
        return alen < blen ? -1 : 1;
    return memcmp(a, b, alen);
}

static int raw_by_name(const void *x, const void *y)
{
    const raw_def *a = x, *b = y;
    int c = compare_names(a->name, a->name_len, b->name, b->name_len);
    return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

typedef struct {
    uint32_t block, effect, seq, def;
} block_def;

static int by_block_then_effect(const void *x, const void *y)
{
    const block_def *a = x, *b = y;
    if (a->block != b->block)
        return a->block < b->block ? -1 : 1;
    if (a->effect != b->effect)
        return a->effect < b->effect ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Definitions sorted by name (each name's run is one group of bits: its
 * "unbound" bit, then its definitions), and each block's definitions in
 * the order they take effect. */
static void take_definitions(oom_flow_unit *u, builder *b)
{
    u->def_count = (uint32_t)b->def_count;
    if (b->def_count > 1)
        qsort(b->defs, b->def_count, sizeof(*b->defs), raw_by_name);
    u->defs = oom_xcalloc(b->def_count ? b->def_count : 1, sizeof(*u->defs));
    u->group_first = oom_xcalloc(b->def_count + 1, sizeof(uint32_t));
    block_def *order = oom_xcalloc(b->def_count ? b->def_count : 1, sizeof(*order));
    uint32_t groups = 0;
    for (uint32_t i = 0; i < u->def_count; i++) {
        const raw_def *r = &b->defs[i];
        if (i == 0 || compare_names(r->name, r->name_len, b->defs[i - 1].name, b->defs[i - 1].name_len) != 0)
            u->group_first[groups++] = i;
        oom_flow_def *d = &u->defs[i];
        d->name = r->name;
        d->name_len = r->name_len;
        d->effect = r->effect;
        d->block = r->block;
        d->site = r->site;
        d->deletes = r->deletes;
        d->group = groups - 1;
        d->binding = -1;
        block_def o = {r->block, r->effect, r->seq, i};
        order[i] = o;
    }
    u->group_count = groups;
    u->group_first[groups] = u->def_count;
    if (u->def_count > 1)
        qsort(order, u->def_count, sizeof(*order), by_block_then_effect);
    u->block_defs = oom_xcalloc(u->def_count ? u->def_count : 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < u->def_count; i++) {
        u->block_defs[i] = order[i].def;
        oom_flow_block *blk = &u->blocks[order[i].block];
        if (blk->def_count++ == 0)
            blk->first_def = i;
    }
    free(order);
}

static void take_edges(oom_flow_unit *u, const builder *b)
{
    u->succs = oom_xcalloc(b->edge_count ? b->edge_count : 1, sizeof(uint32_t));
    for (size_t i = 0; i < b->edge_count; i++)
        u->blocks[b->edges[i].from].succ_count++;
    uint32_t at = 0;
    for (uint32_t i = 0; i < u->block_count; i++) {
        u->blocks[i].succ = at;
        at += u->blocks[i].succ_count;
        u->blocks[i].succ_count = 0;
    }
    for (size_t i = 0; i < b->edge_count; i++) {
        oom_flow_block *from = &u->blocks[b->edges[i].from];
        u->succs[from->succ + from->succ_count++] = b->edges[i].to;
    }
}

static void index_anchors(oom_flow_unit *u)
{
    u->anchored = oom_xcalloc(u->block_count, sizeof(uint32_t));
    for (uint32_t i = 0; i < u->block_count; i++)
        if (u->blocks[i].anchor != NONE)
            u->anchored[u->anchored_count++] = i;
    /* blocks are made in statement order, nearly sorted by anchor already;
     * (a `for` makes its iterable's block before its targets'), so an
     * insertion sort costs next to nothing */
    for (uint32_t i = 1; i < u->anchored_count; i++) {
        uint32_t v = u->anchored[i], j = i;
        while (j > 0 && u->blocks[u->anchored[j - 1]].anchor > u->blocks[v].anchor) {
            u->anchored[j] = u->anchored[j - 1];
            j--;
        }
        u->anchored[j] = v;
    }
}

static inline uint32_t group_start(const oom_flow_unit *u, uint32_t g)
{
    return u->group_first[g] + g;
}

static inline uint32_t def_bit(const oom_flow_unit *u, uint32_t d)
{
    return d + u->defs[d].group + 1;
}

static void clear_bits(uint64_t *w, uint32_t lo, uint32_t hi)
{
    for (uint32_t i = lo; i < hi;) {
        if ((i & 63) == 0 && hi - i >= 64) {
            w[i >> 6] = 0;
            i += 64;
        } else {
            w[i >> 6] &= ~(1ull << (i & 63));
            i++;
        }
    }
}

/* OUT of a block from its IN: each definition kills its name's others. */
static void transfer(const oom_flow_unit *u, const oom_flow_block *blk, uint64_t *bits)
{
    for (uint32_t k = 0; k < blk->def_count; k++) {
        uint32_t d = u->block_defs[blk->first_def + k];
        uint32_t g = u->defs[d].group;
        clear_bits(bits, group_start(u, g), group_start(u, g + 1));
        bits[def_bit(u, d) >> 6] |= 1ull << (def_bit(u, d) & 63);
    }
}

/* The worklist: IN of every block, to the fixpoint. False when the work
 * bound is reached first (pathological input): the unit is not analysed. */
static bool solve(oom_flow_unit *u)
{
    uint32_t words = u->words, n = u->block_count;
    u->in = oom_xcalloc((size_t)n * words, sizeof(uint64_t));
    for (uint32_t g = 0; g < u->group_count; g++)
        u->in[group_start(u, g) >> 6] |= 1ull << (group_start(u, g) & 63);
    uint32_t *queue = oom_xmalloc((size_t)(n + 1) * sizeof(uint32_t));
    bool *queued = oom_xcalloc(n, sizeof(bool));
    uint64_t *out = oom_xmalloc((size_t)words * sizeof(uint64_t));
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < n; i++) {
        queue[tail++] = i;
        queued[i] = true;
    }
    tail %= n + 1;
    uint64_t budget = (uint64_t)n * 64 + (1u << 22);
    bool done = true;
    while (head != tail) {
        if (budget-- == 0) {
            done = false;
            break;
        }
        uint32_t b = queue[head];
        head = (head + 1) % (n + 1);
        queued[b] = false;
        const oom_flow_block *blk = &u->blocks[b];
        memcpy(out, u->in + (size_t)b * words, words * sizeof(uint64_t));
        transfer(u, blk, out);
        for (uint32_t k = 0; k < blk->succ_count; k++) {
            uint32_t s = u->succs[blk->succ + k];
            uint64_t *in = u->in + (size_t)s * words;
            bool changed = false;
            for (uint32_t w = 0; w < words; w++) {
                uint64_t v = in[w] | out[w];
                changed |= v != in[w];
                in[w] = v;
            }
            if (changed && !queued[s]) {
                queue[tail] = s;
                tail = (tail + 1) % (n + 1);
                queued[s] = true;
            }
        }
    }
    free(queue);
    free(queued);
    free(out);
    return done;
}

static int by_site_start(const void *x, const void *y)
{
    uint32_t a = ((const uint32_t *)x)[0], b = ((const uint32_t *)y)[0];
    return (a > b) - (a < b);
}

/* Each definition's record among the model's bindings (the same
 * identifier), so that the analyses can read what it was bound to. */
static void link_bindings(oom_flow_unit *u, const oom_pymodel *m, int scope)
{
    if (!u->def_count)
        return;
    uint32_t (*starts)[2] = oom_xcalloc(u->def_count, sizeof(*starts));
    for (uint32_t i = 0; i < u->def_count; i++) {
        starts[i][0] = ts_node_start_byte(u->defs[i].site);
        starts[i][1] = i;
    }
    qsort(starts, u->def_count, sizeof(*starts), by_site_start);
    for (int bi = m->scopes[scope].last_binding; bi >= 0; bi = m->bindings[bi].prev) {
        uint32_t at = (uint32_t)(m->bindings[bi].name - m->src);
        uint32_t lo = 0, hi = u->def_count;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (starts[mid][0] < at)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < u->def_count && starts[lo][0] == at && !u->defs[starts[lo][1]].deletes)
            u->defs[starts[lo][1]].binding = bi;
    }
    free(starts);
}

static void builder_free(builder *b)
{
    free(b->blocks);
    free(b->edges);
    free(b->defs);
    free(b->frames);
    free(b->loops);
    free(b->finals);
    free(b->pending);
}

static void build_unit(oom_flow_unit *u, const oom_pymodel *m, int scope)
{
    u->state = -1;
    uint32_t root = scope == 0 ? 0 : oom_nodes_find(m->nodes, m->scopes[scope].def);
    if (root == NONE)
        return;
    builder b;
    memset(&b, 0, sizeof b);
    b.m = m;
    b.n = m->nodes;
    b.s = symbols();
    build_graph(&b, root, scope == 0);
    u->blocks = b.blocks;
    u->block_count = (uint32_t)b.block_count;
    b.blocks = NULL;
    u->nonlocals = b.nonlocals;
    u->nonlocal_count = (uint32_t)b.nonlocal_count;
    take_edges(u, &b);
    take_definitions(u, &b);
    builder_free(&b);
    u->words = (u->def_count + u->group_count + 63) / 64;
    if (u->words == 0)
        u->words = 1;
    index_anchors(u);
    if ((uint64_t)u->words * u->block_count > FLOW_MAX_WORDS || !solve(u))
        return;
    link_bindings(u, m, scope);
    u->state = 1;
}

static void unit_free(oom_flow_unit *u)
{
    free(u->blocks);
    free(u->succs);
    free(u->block_defs);
    free(u->defs);
    free(u->group_first);
    free(u->anchored);
    free(u->in);
    free(u->nonlocals);
}

void oom_model_flow_free(oom_pymodel *m)
{
    for (size_t i = 0; m->flows && i < m->scope_count; i++)
        unit_free(&m->flows[i]);
    free(m->flows);
    m->flows = NULL;
}

/* The unit of a scope, built on the first question (the model is one
 * file's, asked by one thread). */
static const oom_flow_unit *unit_of(const oom_pymodel *m, int scope)
{
    oom_pymodel *mm = (oom_pymodel *)m;
    if (!mm->flows)
        mm->flows = oom_xcalloc(m->scope_count, sizeof(*mm->flows));
    oom_flow_unit *u = &mm->flows[scope];
    if (u->state == 0)
        build_unit(u, m, scope);
    return u;
}

/* ---- questions -------------------------------------------------------------------- */

static bool text_is(const oom_pymodel *m, TSNode n, const char *name, uint32_t len)
{
    uint32_t l;
    const char *t = oom_node_text(m, n, &l);
    return l == len && memcmp(t, name, len) == 0;
}

/* Whether a target (or parameter list) binds `name`. */
static bool binds_name(const oom_pymodel *m, const flow_symbols *s, uint32_t target, const char *name, uint32_t len)
{
    const oom_nodes *n = m->nodes;
    for (uint32_t i = target; target != NONE && i < node_end(n, target);) {
        TSSymbol sym = n->items[i].symbol;
        if (sym == s->attribute || sym == s->subscript || (i != target && is_scope_node(s, sym))) {
            i = node_end(n, i);
            continue;
        }
        if (sym == s->identifier && n->items[i].field != s->f_value && text_is(m, n->items[i].node, name, len))
            return true;
        i++;
    }
    return false;
}

/* The function (scope) whose body the name at `u` is read in; -1 when it
 * is bound by a lambda or comprehension around it (*inner), or read in a
 * class body (-2). Parameter defaults and decorators belong to the body
 * around their function, as Python evaluates them. */
static int reading_scope(const oom_pymodel *m, const flow_symbols *s, uint32_t u, const char *name, uint32_t len)
{
    const oom_nodes *n = m->nodes;
    for (uint32_t c = u, p = n->items[u].parent; p != NONE; c = p, p = n->items[p].parent) {
        TSSymbol sym = n->items[p].symbol;
        if (sym == s->function_definition) {
            if (n->items[c].field == s->f_body)
                return oom_model_scope_at(m, n->items[p].start);
        } else if (sym == s->class_definition) {
            if (n->items[c].field == s->f_body)
                return -2;
        } else if (sym == s->lambda) {
            uint32_t params = child_in(n, p, s->f_parameters);
            if (c != params && binds_name(m, s, params, name, len))
                return -1;
        } else if (is_scope_node(s, sym)) { /* a comprehension */
            bool first = true;
            for (uint32_t k = p + 1; k < node_end(n, p); k = node_end(n, k)) {
                if (n->items[k].symbol != s->for_in_clause)
                    continue;
                /* the first iterable is evaluated outside: `[x for x in x]` */
                uint32_t right = child_in(n, k, s->f_right);
                bool in_first_iterable = first && right != NONE && u >= right && u < node_end(n, right);
                first = false;
                if (!in_first_iterable && binds_name(m, s, child_in(n, k, s->f_left), name, len))
                    return -1;
            }
        }
    }
    return 0;
}

static uint32_t find_group(const oom_flow_unit *u, const char *name, uint32_t len)
{
    uint32_t lo = 0, hi = u->group_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const oom_flow_def *d = &u->defs[u->group_first[mid]];
        int c = compare_names(d->name, d->name_len, name, len);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NONE;
}

static uint32_t block_at(const oom_flow_unit *u, uint32_t node)
{
    uint32_t lo = 0, hi = u->anchored_count;
    while (lo < hi) { /* the first anchored block after node */
        uint32_t mid = lo + (hi - lo) / 2;
        if (u->blocks[u->anchored[mid]].anchor <= node)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NONE;
    const oom_flow_block *blk = &u->blocks[u->anchored[lo - 1]];
    return node < blk->anchor_end ? u->anchored[lo - 1] : NONE;
}

static bool declared_nonlocal(const oom_flow_unit *u, const char *name, uint32_t len)
{
    for (uint32_t i = 0; i < u->nonlocal_count; i++)
        if (u->nonlocals[i].len == len && memcmp(u->nonlocals[i].text, name, len) == 0)
            return true;
    return false;
}

void oom_model_reaching(const oom_pymodel *m, TSNode use, oom_flow_reach *r)
{
    memset(r, 0, sizeof(*r));
    r->answer = OOM_FLOW_UNKNOWN;
    const flow_symbols *s = symbols();
    if (!m->nodes || ts_node_is_null(use) || ts_node_symbol(use) != s->identifier)
        return;
    uint32_t at = oom_nodes_find(m->nodes, use);
    if (at == NONE)
        return;
    uint32_t len;
    const char *name = oom_node_text(m, use, &len);
    int scope = reading_scope(m, s, at, name, len);
    if (scope == -1)
        r->answer = OOM_FLOW_INNER;
    if (scope < 0)
        return;
    const oom_flow_unit *u = unit_of(m, scope);
    if (u->state != 1 || declared_nonlocal(u, name, len))
        return;
    r->scope = scope;
    uint32_t g = find_group(u, name, len);
    if (g == NONE) {
        r->answer = OOM_FLOW_OUTER;
        return;
    }
    uint32_t b = block_at(u, at);
    if (b == NONE)
        return;
    /* IN of the block, then its own definitions that take effect before the use */
    uint32_t lo = group_start(u, g), hi = group_start(u, g + 1);
    uint32_t pos = m->nodes->items[at].start;
    const uint64_t *in = u->in + (size_t)b * u->words;
    const oom_flow_block *blk = &u->blocks[b];
    uint32_t last_here = NONE;
    for (uint32_t k = 0; k < blk->def_count; k++) {
        uint32_t d = u->block_defs[blk->first_def + k];
        if (u->defs[d].group == g && u->defs[d].effect <= pos)
            last_here = d;
    }
    r->answer = OOM_FLOW_LOCAL;
    for (uint32_t bit = lo; bit < hi; bit++) {
        bool set = last_here != NONE ? bit == def_bit(u, last_here) : (in[bit >> 6] >> (bit & 63)) & 1;
        if (!set)
            continue;
        if (bit == lo || u->defs[bit - g - 1].deletes) {
            r->may_be_unbound = true;
            continue;
        }
        if (r->count < OOM_FLOW_MAX_REACH)
            r->defs[r->count] = &u->defs[bit - g - 1];
        r->count++;
    }
}

oom_flow_answer oom_pymodel_reaching_definitions(const oom_pymodel *m, TSNode name, TSNode *sites, size_t cap,
                                                 size_t *count, bool *may_be_unbound)
{
    oom_flow_reach r;
    oom_model_reaching(m, name, &r);
    size_t n = 0;
    for (uint32_t i = 0; i < r.count && i < OOM_FLOW_MAX_REACH && n < cap; i++) {
        /* in source order */
        size_t j = n++;
        for (; j > 0 && ts_node_start_byte(sites[j - 1]) > ts_node_start_byte(r.defs[i]->site); j--)
            sites[j] = sites[j - 1];
        sites[j] = r.defs[i]->site;
    }
    *count = r.count;
    *may_be_unbound = r.may_be_unbound;
    return r.answer;
}

bool oom_pymodel_flow_check(const oom_pymodel *m)
{
    if (!m->nodes)
        return true;
    const flow_symbols *s = symbols();
    for (size_t sc = 0; sc < m->scope_count; sc++)
        unit_of(m, (int)sc);
    for (uint32_t i = 0; i < m->nodes->len; i++) {
        if (m->nodes->items[i].symbol != s->identifier)
            continue;
        oom_flow_reach r;
        oom_model_reaching(m, m->nodes->items[i].node, &r);
        uint32_t len;
        const char *name = oom_node_text(m, m->nodes->items[i].node, &len);
        if (r.answer != OOM_FLOW_LOCAL)
            continue;
        const oom_scope *scope = &m->scopes[r.scope];
        for (uint32_t k = 0; k < r.count && k < OOM_FLOW_MAX_REACH; k++) {
            const oom_flow_def *d = r.defs[k];
            uint32_t at = ts_node_start_byte(d->site);
            if (!text_is(m, d->site, name, len) || at < scope->start || at >= scope->end)
                return false;
            if (d->binding >= 0 && m->bindings[d->binding].scope != r.scope)
                return false;
        }
    }
    return true;
}

/* The bindings that may reach the name `use` where it is read, as the
 * model's binding records (oom_model_def_binding); false when the flow
 * cannot say (a name of an enclosing function or the module, a class body,
 * no reaching binding at all, too many), and the caller's fallback (the
 * nearest binding above) decides then. */
bool oom_model_reaching_bindings(const oom_pymodel *m, TSNode use, oom_flow_reach *r)
{
    oom_model_reaching(m, use, r);
    return r->answer == OOM_FLOW_LOCAL && r->count > 0 && r->count <= OOM_FLOW_MAX_REACH;
}

int oom_model_every_reaching_binding(const oom_pymodel *m, TSNode use, oom_binding_test holds, void *ctx)
{
    oom_flow_reach r;
    if (!oom_model_reaching_bindings(m, use, &r))
        return -1;
    if (r.may_be_unbound)
        return 0;
    for (uint32_t i = 0; i < r.count; i++)
        if (!holds(m, oom_model_def_binding(m, r.defs[i]), ctx))
            return 0;
    return 1;
}

const oom_binding *oom_model_def_binding(const oom_pymodel *m, const oom_flow_def *d)
{
    return d->binding >= 0 ? &m->bindings[d->binding] : NULL;
}

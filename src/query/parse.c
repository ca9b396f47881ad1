/* query/parse: reading tree-sitter's query syntax into patterns. A recursive
 * descent with a nesting limit, since user rules are input like any other. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Deeper nesting is refused: the reader and the matcher recurse per level. */
#define QUERY_MAX_DEPTH 128
/* A pattern with more nodes than this is left to tree-sitter's cursor, whose
 * matching does not recurse. */
#define QUERY_MAX_NATIVE_NODES 256

typedef struct {
    oom_query *q;
    const char *src;
    uint32_t len, pos;
    uint32_t err_offset;
    const char *err;
    bool native;            /* the pattern being read can be matched here */
    int quantifier;         /* '?', '*', '+' or 0: the last read after a pattern */
    uint32_t *bound;        /* captures of the pattern being read, so far */
    size_t bound_len, bound_cap;
    uint32_t pattern_nodes; /* nodes of the pattern being read */
    uint32_t pattern_steps; /* first predicate step of the pattern being read */
} reader;

static bool fail(reader *r, uint32_t at, const char *why)
{
    if (!r->err) {
        r->err = why;
        r->err_offset = at;
    }
    return false;
}

static int peek(const reader *r)
{
    return r->pos < r->len ? (unsigned char)r->src[r->pos] : -1;
}

static void skip_space(reader *r)
{
    while (r->pos < r->len) {
        char c = r->src[r->pos];
        if (c == ';') {
            while (r->pos < r->len && r->src[r->pos] != '\n')
                r->pos++;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            r->pos++;
        } else {
            break;
        }
    }
}

/* tree-sitter's identifiers: node types, fields, captures, predicate names */
static bool ident_start(int c)
{
    return c >= 0 && (isalnum(c) || c == '_' || c == '-' || c >= 0x80);
}

static bool ident_char(int c)
{
    return ident_start(c) || c == '.' || c == '?' || c == '!';
}

static uint32_t read_ident(reader *r)
{
    uint32_t start = r->pos;
    if (!ident_start(peek(r)))
        return 0;
    while (ident_char(peek(r)))
        r->pos++;
    return r->pos - start;
}

/* A "string" with tree-sitter's escapes, into out (the caller frees). */
static bool read_string(reader *r, oom_buf *out)
{
    uint32_t open = r->pos++;
    while (r->pos < r->len && r->src[r->pos] != '"') {
        char c = r->src[r->pos++];
        if (c == '\\' && r->pos < r->len) {
            char e = r->src[r->pos++];
            c = e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e == '0' ? '\0' : e;
        } else if (c == '\n') {
            return fail(r, open, "unterminated string");
        }
        oom_buf_putc(out, c);
    }
    if (r->pos >= r->len)
        return fail(r, open, "unterminated string");
    r->pos++;
    /* tree-sitter 0.25.1 hands strncmp or memcpy a NULL pointer for "" (found
     * by fuzz_rule), and the patterns it matches are read by it too */
    if (r->pos == open + 2)
        return fail(r, open, "an empty string \"\" is not supported in queries (tree-sitter 0.25.1 mishandles it); "
                             "for an empty capture use (#match? @x \"^$\")");
    return true;
}

static uint32_t intern(qstring **arr, size_t *count, size_t *cap, const char *s, uint32_t len)
{
    for (size_t i = 0; i < *count; i++)
        if ((*arr)[i].len == len && memcmp((*arr)[i].text, s, len) == 0)
            return (uint32_t)i;
    qstring str = {oom_xstrndup(s, len), len};
    OOM_PUSH(*arr, *count, *cap, str);
    return (uint32_t)(*count - 1);
}

static uint32_t new_node(reader *r, qn_kind kind)
{
    oom_query *q = r->q;
    qnode n;
    memset(&n, 0, sizeof n);
    n.kind = (uint8_t)kind;
    OOM_PUSH(q->nodes, q->node_count, q->node_cap, n);
    if (++r->pattern_nodes > QUERY_MAX_NATIVE_NODES)
        r->native = false;
    return (uint32_t)(q->node_count - 1);
}

/* Stores a list of node indices and returns where it starts in q->links. */
static uint32_t store_links(oom_query *q, const uint32_t *items, size_t count)
{
    uint32_t start = (uint32_t)q->link_count;
    for (size_t i = 0; i < count; i++)
        OOM_PUSH(q->links, q->link_count, q->link_cap, items[i]);
    return start;
}

/* ---- predicates ------------------------------------------------------------ */

static void push_step(oom_query *q, TSQueryPredicateStepType type, uint32_t value)
{
    TSQueryPredicateStep s = {type, value};
    OOM_PUSH(q->steps, q->step_count, q->step_cap, s);
}

/* (#name? @capture "string" word ...), the '(' already read */
static bool read_predicate(reader *r)
{
    oom_query *q = r->q;
    r->pos++; /* '#' */
    uint32_t start = r->pos;
    uint32_t n = read_ident(r);
    if (n == 0)
        return fail(r, start, "a predicate needs a name");
    push_step(q, TSQueryPredicateStepTypeString,
              intern(&q->strings, &q->string_count, &q->string_cap, r->src + start, n));
    for (;;) {
        skip_space(r);
        int c = peek(r);
        uint32_t at = r->pos;
        if (c == ')') {
            r->pos++;
            push_step(q, TSQueryPredicateStepTypeDone, 0);
            return true;
        }
        if (c == '@') {
            r->pos++;
            uint32_t cs = r->pos, cn = read_ident(r);
            uint32_t id = cn ? oom_query_capture_id(q, r->src + cs, cn) : UINT32_MAX;
            bool in_pattern = false;
            for (size_t i = 0; i < r->bound_len && !in_pattern; i++)
                in_pattern = r->bound[i] == id;
            /* a capture of another pattern would never be there to test */
            if (id == UINT32_MAX || !in_pattern)
                return fail(r, at, cn ? "unknown capture (not bound earlier in this pattern)"
                                      : "a capture needs a name");
            push_step(q, TSQueryPredicateStepTypeCapture, id);
        } else if (c == '"') {
            oom_buf s;
            oom_buf_init(&s);
            bool ok = read_string(r, &s);
            if (ok)
                push_step(q, TSQueryPredicateStepTypeString,
                          intern(&q->strings, &q->string_count, &q->string_cap,
                                 s.data ? s.data : "", (uint32_t)s.len));
            oom_buf_free(&s);
            if (!ok)
                return false;
        } else if (ident_start(c)) {
            uint32_t ws = r->pos, wn = read_ident(r);
            push_step(q, TSQueryPredicateStepTypeString,
                      intern(&q->strings, &q->string_count, &q->string_cap, r->src + ws, wn));
        } else {
            return fail(r, at, c < 0 ? "unclosed predicate" : "syntax error in a predicate");
        }
    }
}

/* ---- patterns ---------------------------------------------------------------- */

static bool read_pattern(reader *r, int depth, uint32_t *out, bool *was_predicate);

/* `?`, `*`, `+` and @captures after a pattern. */
static bool read_suffixes(reader *r, uint32_t node)
{
    oom_query *q = r->q;
    uint32_t caps[64];
    size_t cap_count = 0;
    r->quantifier = 0;
    for (;;) {
        skip_space(r);
        int c = peek(r);
        if (c == '?') {
            r->pos++;
            q->nodes[node].optional = true;
            r->quantifier = c;
        } else if (c == '*' || c == '+') {
            r->pos++;
            r->native = false; /* repetition: tree-sitter's cursor */
            r->quantifier = c;
        } else if (c == '@') {
            uint32_t at = r->pos++;
            uint32_t cs = r->pos, cn = read_ident(r);
            if (cn == 0)
                return fail(r, at, "a capture needs a name");
            uint32_t id = intern(&q->captures, &q->capture_count, &q->capture_cap, r->src + cs, cn);
            OOM_PUSH(r->bound, r->bound_len, r->bound_cap, id);
            if (cap_count == sizeof caps / sizeof caps[0])
                return fail(r, at, "too many captures on one node");
            caps[cap_count++] = id;
        } else {
            break;
        }
    }
    if (cap_count) {
        /* a group's captures join those of the node inside it */
        const qnode *n = &q->nodes[node];
        uint32_t start = (uint32_t)q->cap_id_count;
        if (n->cap_count + cap_count > 64)
            return fail(r, r->pos, "too many captures on one node");
        for (uint32_t i = 0; i < n->cap_count; i++)
            OOM_PUSH(q->cap_ids, q->cap_id_count, q->cap_id_cap, q->cap_ids[n->caps + i]);
        for (size_t i = 0; i < cap_count; i++)
            OOM_PUSH(q->cap_ids, q->cap_id_count, q->cap_id_cap, caps[i]);
        q->nodes[node].cap_count += (uint32_t)cap_count;
        q->nodes[node].caps = start;
    }
    return true;
}

/* [ pattern ... ] */
static bool read_alternation(reader *r, int depth, uint32_t *out)
{
    uint32_t open = r->pos++;
    uint32_t items[256];
    size_t count = 0;
    for (;;) {
        skip_space(r);
        int c = peek(r);
        if (c == ']') {
            r->pos++;
            break;
        }
        if (c < 0)
            return fail(r, open, "unclosed [");
        uint32_t item;
        bool pred = false;
        uint32_t at = r->pos;
        if (!read_pattern(r, depth + 1, &item, &pred))
            return false;
        if (pred)
            return fail(r, at, "a predicate cannot be an alternative");
        if (count == sizeof items / sizeof items[0])
            return fail(r, at, "too many alternatives");
        items[count++] = item;
    }
    if (count == 0)
        return fail(r, open, "an empty alternation [] matches nothing");
    uint32_t alt = new_node(r, QN_ALT);
    r->q->nodes[alt].links = store_links(r->q, items, count);
    r->q->nodes[alt].link_count = (uint32_t)count;
    *out = alt;
    return true;
}

static bool resolve_field(reader *r, uint32_t at, uint32_t len, TSFieldId *out)
{
    *out = ts_language_field_id_for_name(r->q->lang, r->src + at, len);
    return *out != 0 || fail(r, at, "unknown field");
}

/* The children of a (name ...) node, after its name. */
static bool read_children(reader *r, int depth, uint32_t open, uint32_t node)
{
    oom_query *q = r->q;
    uint32_t kids[256];
    TSFieldId negated[32];
    size_t kid_count = 0, negated_count = 0;
    bool anchor = false;
    for (;;) {
        skip_space(r);
        int c = peek(r);
        uint32_t at = r->pos;
        if (c < 0)
            return fail(r, open, "unclosed (");
        if (c == ')') {
            r->pos++;
            if (anchor && kid_count)
                q->nodes[kids[kid_count - 1]].last_child = true;
            break;
        }
        if (c == '.') {
            r->pos++;
            anchor = true;
            continue;
        }
        if (c == '!') {
            r->pos++;
            uint32_t fs = r->pos, fn = read_ident(r);
            TSFieldId f;
            if (fn == 0)
                return fail(r, at, "a negated field needs a name");
            if (!resolve_field(r, fs, fn, &f))
                return false;
            if (negated_count == sizeof negated / sizeof negated[0])
                return fail(r, at, "too many negated fields");
            negated[negated_count++] = f;
            continue;
        }
        TSFieldId field = 0;
        if (ident_start(c)) {
            uint32_t save = r->pos, fn = read_ident(r);
            skip_space(r);
            if (peek(r) == ':' && !(fn == 1 && r->src[save] == '_')) {
                r->pos++;
                if (!resolve_field(r, save, fn, &field))
                    return false;
            } else {
                r->pos = save;
            }
        }
        skip_space(r);
        uint32_t pattern_at = r->pos;
        uint32_t kid;
        bool pred = false;
        if (!read_pattern(r, depth + 1, &kid, &pred))
            return false;
        if (pred) {
            if (field)
                return fail(r, pattern_at, "a field needs a node pattern, not a predicate");
            continue;
        }
        if (kid_count == sizeof kids / sizeof kids[0])
            return fail(r, at, "too many children in one pattern");
        q->nodes[kid].field = field;
        q->nodes[kid].immediate = anchor;
        anchor = false;
        kids[kid_count++] = kid;
    }
    qnode *n = &q->nodes[node];
    n->links = store_links(q, kids, kid_count);
    n->link_count = (uint32_t)kid_count;
    n->negated = (uint32_t)q->negated_count;
    n->negated_count = (uint32_t)negated_count;
    for (size_t i = 0; i < negated_count; i++)
        OOM_PUSH(q->negated, q->negated_count, q->negated_cap, negated[i]);
    return true;
}

/* ( (a) (b) ... ): a group. One node pattern with predicates is that pattern;
 * a sequence of siblings is left to tree-sitter. */
static bool read_group(reader *r, int depth, uint32_t open, uint32_t *out)
{
    uint32_t first = QNONE;
    for (;;) {
        skip_space(r);
        int c = peek(r);
        if (c < 0)
            return fail(r, open, "unclosed (");
        if (c == ')') {
            r->pos++;
            break;
        }
        if (c == '.') { /* anchors between siblings: a sequence */
            r->pos++;
            r->native = false;
            continue;
        }
        uint32_t item;
        bool pred = false;
        if (!read_pattern(r, depth + 1, &item, &pred))
            return false;
        if (pred)
            continue;
        if (first == QNONE)
            first = item;
        else
            r->native = false;
    }
    if (first == QNONE)
        return fail(r, open, "a parenthesised group needs a node pattern, not only predicates");
    *out = first;
    return true;
}

/* (name children...), (_ ...), (ERROR), (MISSING ...), (super/sub), a group
 * or a predicate; the '(' is at r->pos. */
static bool read_parenthesised(reader *r, int depth, uint32_t *out, bool *was_predicate)
{
    uint32_t open = r->pos++;
    skip_space(r);
    int c = peek(r);
    if (c == '#') {
        *was_predicate = true;
        return read_predicate(r);
    }
    if (c == '(' || c == '[' || c == '"')
        return read_group(r, depth, open, out);
    uint32_t ns = r->pos, nn = read_ident(r);
    if (nn == 0)
        return fail(r, c < 0 ? open : r->pos, c < 0 ? "unclosed (" : "syntax error: a node type expected");
    uint32_t node = new_node(r, QN_NODE);
    qnode *n = &r->q->nodes[node];
    n->named = true;
    if (nn == 1 && r->src[ns] == '_') {
        n->wildcard = true;
    } else if (nn == 7 && memcmp(r->src + ns, "MISSING", 7) == 0) {
        r->native = false; /* (MISSING), (MISSING identifier), (MISSING ";") */
        n->wildcard = true;
        skip_space(r);
        if (peek(r) == '"') {
            oom_buf s;
            oom_buf_init(&s);
            bool ok = read_string(r, &s);
            oom_buf_free(&s);
            if (!ok)
                return false;
        } else {
            read_ident(r);
        }
    } else if (nn == 5 && memcmp(r->src + ns, "ERROR", 5) == 0) {
        n->symbol = QSYM_ERROR;
    } else {
        TSSymbol s = ts_language_symbol_for_name(r->q->lang, r->src + ns, nn, true);
        if (s == 0 || s == QSYM_ERROR)
            return fail(r, ns, "unknown node type");
        n->symbol = s;
        if (ts_language_symbol_type(r->q->lang, s) == TSSymbolTypeSupertype)
            r->native = false;
        if (peek(r) == '/') { /* (expression/identifier): a subtype */
            r->pos++;
            uint32_t ss = r->pos, sn = read_ident(r);
            if (sn == 0 || ts_language_symbol_for_name(r->q->lang, r->src + ss, sn, true) == 0)
                return fail(r, ss, "unknown node type");
            r->native = false;
        }
    }
    *out = node;
    return read_children(r, depth, open, node);
}

/* One pattern and its suffixes. `*was_predicate` is set (and *out left
 * alone) when what was read is a predicate. */
static bool read_pattern(reader *r, int depth, uint32_t *out, bool *was_predicate)
{
    skip_space(r);
    if (depth > QUERY_MAX_DEPTH)
        return fail(r, r->pos, "the query is nested too deeply");
    int c = peek(r);
    uint32_t at = r->pos;
    uint32_t node;
    *was_predicate = false;
    if (c == '[') {
        if (!read_alternation(r, depth, &node))
            return false;
    } else if (c == '(') {
        if (!read_parenthesised(r, depth, &node, was_predicate))
            return false;
        if (*was_predicate) {
            skip_space(r);
            c = peek(r);
            if (c == '@' || c == '*' || c == '+' || c == '?')
                return fail(r, r->pos, "a capture or quantifier needs a node pattern before it, not a predicate");
            return true;
        }
    } else if (c == '"') {
        oom_buf s;
        oom_buf_init(&s);
        if (!read_string(r, &s)) {
            oom_buf_free(&s);
            return false;
        }
        TSSymbol sym = s.len ? ts_language_symbol_for_name(r->q->lang, s.data, (uint32_t)s.len, false) : 0;
        oom_buf_free(&s);
        if (sym == 0)
            return fail(r, at, "unknown node type");
        node = new_node(r, QN_NODE);
        r->q->nodes[node].symbol = sym;
    } else if (c == '_' && !ident_start(r->pos + 1 < r->len ? (unsigned char)r->src[r->pos + 1] : -1)) {
        r->pos++;
        node = new_node(r, QN_NODE);
        r->q->nodes[node].wildcard = true;
    } else if (c < 0) {
        return fail(r, at, "a pattern expected");
    } else {
        return fail(r, at, ident_start(c) ? "syntax error: a node type belongs in parentheses"
                                          : "syntax error");
    }
    *out = node;
    return read_suffixes(r, node);
}

static bool read_top_pattern(reader *r)
{
    oom_query *q = r->q;
    r->native = true;
    r->pattern_nodes = 0;
    r->bound_len = 0;
    r->pattern_steps = (uint32_t)q->step_count;
    uint32_t start = r->pos;
    int c = peek(r);
    if (ident_start(c) && !(c == '_')) {
        /* `field: (x)` at the top level: tree-sitter 0.25.1 fails an
         * assertion on some (found by fuzz_match), and a field belongs to a
         * parent pattern anyway */
        read_ident(r);
        skip_space(r);
        return fail(r, start, peek(r) == ':' ? "a field needs a parent pattern around it"
                                             : "syntax error: a node type belongs in parentheses");
    } else if (c == '.') {
        return fail(r, start, "an anchor `.` belongs between the children of a pattern");
    } else if (c == '(') {
        uint32_t n = start + 1;
        while (n < r->len && strchr(" \t\r\n", r->src[n]))
            n++;
        if (n < r->len && r->src[n] == '#')
            return fail(r, start, "a predicate needs a node pattern around it");
    }
    uint32_t root;
    bool pred = false;
    if (!read_pattern(r, 0, &root, &pred))
        return false;
    if (pred)
        return fail(r, start, "a predicate needs a node pattern around it");
    /* `_?` or `(x)*` alone matches nothing at all; tree-sitter 0.25.1 fails
     * an assertion on some of these (found by fuzz_match) */
    if (r->quantifier == '?' || r->quantifier == '*')
        return fail(r, start, "a whole pattern cannot be optional (`?` or `*`): it would match nothing");
    qpattern p;
    memset(&p, 0, sizeof p);
    p.root = root;
    p.start_byte = start;
    p.native = r->native;
    p.steps = r->pattern_steps;
    p.step_count = (uint32_t)q->step_count - r->pattern_steps;
    OOM_PUSH(q->patterns, q->pattern_count, q->pattern_cap, p);
    return true;
}

oom_query *oom_query_new(const TSLanguage *lang, const char *src, uint32_t len,
                         uint32_t *err_offset, const char **err_reason)
{
    oom_query *q = oom_xcalloc(1, sizeof(*q));
    q->lang = lang;
    reader r;
    memset(&r, 0, sizeof r);
    r.q = q;
    r.src = src;
    r.len = len;
    for (;;) {
        skip_space(&r);
        if (r.pos >= r.len)
            break;
        if (!read_top_pattern(&r))
            break;
    }
    free(r.bound);
    if (r.err) {
        *err_offset = r.err_offset;
        *err_reason = r.err;
        oom_query_free(q);
        return NULL;
    }
    oom_query_index_roots(q);
    return q;
}

static void free_strings(qstring *strings, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(strings[i].text);
    free(strings);
}

void oom_query_free(oom_query *q)
{
    if (!q)
        return;
    free_strings(q->captures, q->capture_count);
    free_strings(q->strings, q->string_count);
    free(q->nodes);
    free(q->links);
    free(q->cap_ids);
    free(q->negated);
    free(q->patterns);
    free(q->steps);
    free(q->named_symbol);
    free(q->text_ids);
    free(q->root_start);
    free(q->root_patterns);
    free(q->wildcard_roots);
    free(q->error_roots);
    free(q);
}

/* ---- accessors ------------------------------------------------------------- */

uint32_t oom_query_pattern_count(const oom_query *q)
{
    return (uint32_t)q->pattern_count;
}

uint32_t oom_query_start_byte_for_pattern(const oom_query *q, uint32_t pattern)
{
    return pattern < q->pattern_count ? q->patterns[pattern].start_byte : 0;
}

bool oom_query_pattern_is_native(const oom_query *q, uint32_t pattern)
{
    return pattern < q->pattern_count && q->patterns[pattern].native;
}

bool oom_query_all_native(const oom_query *q)
{
    return q->all_native;
}

uint32_t oom_query_capture_count(const oom_query *q)
{
    return (uint32_t)q->capture_count;
}

const char *oom_query_capture_name_for_id(const oom_query *q, uint32_t id, uint32_t *len)
{
    if (id >= q->capture_count) {
        *len = 0;
        return "";
    }
    *len = q->captures[id].len;
    return q->captures[id].text;
}

uint32_t oom_query_capture_id(const oom_query *q, const char *name, uint32_t len)
{
    for (size_t i = 0; i < q->capture_count; i++)
        if (q->captures[i].len == len && memcmp(q->captures[i].text, name, len) == 0)
            return (uint32_t)i;
    return UINT32_MAX;
}

const TSQueryPredicateStep *oom_query_predicates_for_pattern(const oom_query *q, uint32_t pattern,
                                                             uint32_t *count)
{
    if (pattern >= q->pattern_count || q->patterns[pattern].step_count == 0) {
        *count = 0;
        return NULL;
    }
    *count = q->patterns[pattern].step_count;
    return q->steps + q->patterns[pattern].steps;
}

const char *oom_query_string_value_for_id(const oom_query *q, uint32_t id, uint32_t *len)
{
    if (id >= q->string_count) {
        *len = 0;
        return "";
    }
    *len = q->strings[id].len;
    return q->strings[id].text;
}

/* fix/edits: the edits a rule's fix declares, made on a file's tree: a
 * capture replaced, a keyword argument added to a call or removed from it, a
 * decorator added to the function around a node, a statement inserted after
 * the one holding a node or that statement deleted. Each keeps the code
 * valid and indented as its neighbours are, or declines (returns false):
 * a fix that cannot be made cleanly is not offered. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/fix.h"

/* ---- text around a position ----------------------------------------------------------- */

static uint32_t line_start(const char *src, uint32_t pos)
{
    while (pos > 0 && src[pos - 1] != '\n' && src[pos - 1] != '\r')
        pos--;
    return pos;
}

/* The end of pos's line, before its line break. */
static uint32_t line_end(const char *src, size_t len, uint32_t pos)
{
    while (pos < len && src[pos] != '\n' && src[pos] != '\r')
        pos++;
    return pos;
}

/* The start of the line after pos's, or len on the last line. */
static uint32_t next_line_start(const char *src, size_t len, uint32_t pos)
{
    pos = line_end(src, len, pos);
    if (pos < len && src[pos] == '\r' && pos + 1 < len && src[pos + 1] == '\n')
        return pos + 2;
    return pos < len ? pos + 1 : pos;
}

static bool blank(const char *src, uint32_t a, uint32_t b)
{
    for (uint32_t i = a; i < b; i++)
        if (src[i] != ' ' && src[i] != '\t')
            return false;
    return true;
}

/* Only spaces, then maybe a comment, from pos to the end of its line: the
 * node before pos ends its line. */
static bool ends_line(const char *src, size_t len, uint32_t pos)
{
    uint32_t end = line_end(src, len, pos);
    while (pos < end && (src[pos] == ' ' || src[pos] == '\t'))
        pos++;
    return pos == end || src[pos] == '#';
}

/* A file keeps its own line breaks. */
static const char *newline_of(const char *src, size_t len)
{
    const char *nl = memchr(src, '\n', len);
    return nl && nl > src && nl[-1] == '\r' ? "\r\n" : "\n";
}

static uint32_t row_of(const char *src, uint32_t pos)
{
    uint32_t row = 0;
    for (uint32_t i = 0; i < pos; i++)
        row += src[i] == '\n' || (src[i] == '\r' && src[i + 1] != '\n');
    return row;
}

static bool type_is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static void set_edit(oom_raw_edit *out, uint32_t start, uint32_t end, const char *content)
{
    out->start = start;
    out->end = end;
    out->content = oom_xstrdup(content);
}

/* ---- templates ------------------------------------------------------------------------ */

/* Expressions that `.attr`, `[i]` or `(...)` can follow without changing
 * what they bind to. An integer is not one (`1.item` is a float then a name). */
static bool is_primary(TSNode n, const char *src)
{
    static const char *const types[] = {"identifier", "attribute", "call", "subscript", "parenthesized_expression",
                                        "list", "dictionary", "set", "string", "float", "true", "false", "none",
                                        "list_comprehension", "dictionary_comprehension", "set_comprehension",
                                        "generator_expression", "ellipsis", NULL};
    const char *type = ts_node_type(n);
    for (size_t i = 0; types[i]; i++)
        if (strcmp(type, types[i]) == 0)
            return true;
    /* a tuple written in parentheses is one too */
    return strcmp(type, "tuple") == 0 && src[ts_node_start_byte(n)] == '(';
}

int oom_fix_parens_needed(TSNode node, const char *src, char next)
{
    if (next != '.' && next != '[' && next != '(')
        return 0;
    if (is_primary(node, src))
        return 0;
    /* `val=loss` or `*args` followed by `.x` is no expression at all */
    const char *type = ts_node_type(node);
    if (strcmp(type, "keyword_argument") == 0 || strcmp(type, "list_splat") == 0 ||
        strcmp(type, "dictionary_splat") == 0 || strcmp(type, "pair") == 0)
        return -1;
    return 1;
}

bool oom_fix_fill_template(const char *tmpl, const char *src, oom_capture_lookup lookup, void *ctx,
                           oom_buf *out)
{
    const char *p = tmpl;
    while (*p) {
        const char *open = strstr(p, "{{");
        const char *close = open ? strstr(open + 2, "}}") : NULL;
        if (!open || !close) {
            oom_buf_puts(out, p);
            return true;
        }
        oom_buf_append(out, p, (size_t)(open - p));
        oom_placeholder_value value;
        memset(&value, 0, sizeof value);
        if (!lookup(ctx, open + 2, (size_t)(close - open - 2), &value))
            return false;
        p = close + 2;
        if (value.text) {
            oom_buf_append(out, value.text, value.text_len);
            continue;
        }
        TSNode node = value.node;
        uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
        int wrap = oom_fix_parens_needed(node, src, close[2]);
        if (wrap < 0)
            return false;
        if (wrap)
            oom_buf_putc(out, '(');
        oom_buf_append(out, src + a, b - a);
        if (wrap)
            oom_buf_putc(out, ')');
    }
    return true;
}

/* ---- replace ---------------------------------------------------------------------------- */

static bool make_replace(const oom_edit_spec *spec, const char *src, TSNode node, const char *content,
                         oom_raw_edit *out)
{
    uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
    if (spec->map_from.len == 0) {
        set_edit(out, a, b, content);
        return true;
    }
    for (size_t i = 0; i < spec->map_from.len; i++) {
        const char *from = spec->map_from.items[i];
        if (strlen(from) == b - a && memcmp(src + a, from, b - a) == 0) {
            set_edit(out, a, b, spec->map_to.items[i]);
            return true;
        }
    }
    return false; /* a text the map does not know: no fix here */
}

/* ---- arguments -------------------------------------------------------------------------- */

/* The arguments proper (not comments) of an argument_list. */
static uint32_t argument_count(TSNode args)
{
    uint32_t n = 0, count = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < count; i++)
        n += !type_is(ts_node_named_child(args, i), "comment");
    return n;
}

static TSNode argument_at(TSNode args, uint32_t index)
{
    uint32_t n = 0, count = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < count; i++) {
        TSNode c = ts_node_named_child(args, i);
        if (type_is(c, "comment"))
            continue;
        if (n++ == index)
            return c;
    }
    return (TSNode){{0}, NULL, NULL};
}

static bool keyword_named(const char *src, TSNode arg, const char *name)
{
    if (!type_is(arg, "keyword_argument"))
        return false;
    TSNode key = ts_node_child_by_field_name(arg, "name", 4);
    uint32_t a = ts_node_start_byte(key), b = ts_node_end_byte(key);
    return strlen(name) == b - a && memcmp(src + a, name, b - a) == 0;
}

/* The comma right after `arg` (comments and spaces between), or 0. */
static uint32_t comma_after(const char *src, size_t len, TSNode args, TSNode arg)
{
    TSNode next = ts_node_next_sibling(arg);
    while (type_is(next, "comment"))
        next = ts_node_next_sibling(next);
    (void)len;
    if (!ts_node_is_null(next) && ts_node_end_byte(next) <= ts_node_end_byte(args) &&
        src[ts_node_start_byte(next)] == ',' && ts_node_end_byte(next) == ts_node_start_byte(next) + 1)
        return ts_node_start_byte(next) + 1;
    return 0;
}

/* `call(..., name=value)` in the call's own layout: one argument a line
 * (then with a trailing comma if the others have one), or inline. */
static bool make_add_argument(const oom_edit_spec *spec, const char *src, size_t len, TSNode node,
                              const char *value, oom_raw_edit *out)
{
    TSNode args = type_is(node, "call") ? ts_node_child_by_field_name(node, "arguments", 9) : node;
    if (!type_is(args, "argument_list"))
        return false; /* f(x for x in y), or not a call */
    uint32_t count = argument_count(args);
    for (uint32_t i = 0; i < count; i++) {
        TSNode arg = argument_at(args, i);
        /* `**options` may hold the keyword already: a second one is a TypeError */
        if (keyword_named(src, arg, spec->name) || type_is(arg, "dictionary_splat"))
            return false;
    }
    oom_buf text;
    oom_buf_init(&text);
    uint32_t open = ts_node_start_byte(args), close = ts_node_end_byte(args) - 1;
    bool ok = src[open] == '(' && src[close] == ')';
    if (ok && count == 0) {
        oom_buf_printf(&text, "%s=%s", spec->name, value);
        set_edit(out, open + 1, open + 1, text.data);
    } else if (ok) {
        TSNode last = argument_at(args, count - 1);
        uint32_t last_end = ts_node_end_byte(last), comma = comma_after(src, len, args, last);
        bool multiline = row_of(src, ts_node_start_byte(last)) > row_of(src, open) &&
                         row_of(src, close) > row_of(src, last_end);
        uint32_t ls = line_start(src, ts_node_start_byte(last));
        bool owns_line = blank(src, ls, ts_node_start_byte(last));
        const char *nl = newline_of(src, len);
        if (multiline && owns_line && comma && ends_line(src, len, comma)) {
            /* after the trailing comma's line, as one more line of the list */
            uint32_t at = line_end(src, len, comma);
            oom_buf_printf(&text, "%s%.*s%s=%s,", nl, (int)(ts_node_start_byte(last) - ls), src + ls, spec->name,
                           value);
            set_edit(out, at, at, text.data);
        } else if (multiline && owns_line && !comma && ends_line(src, len, last_end)) {
            /* a comma after the last argument (its comment stays), then the new line */
            uint32_t at = line_end(src, len, last_end);
            oom_buf_printf(&text, ",%.*s%s%.*s%s=%s", (int)(at - last_end), src + last_end, nl,
                           (int)(ts_node_start_byte(last) - ls), src + ls, spec->name, value);
            set_edit(out, last_end, at, text.data);
        } else if (comma) {
            oom_buf_printf(&text, " %s=%s", spec->name, value);
            set_edit(out, comma, comma, text.data);
        } else {
            oom_buf_printf(&text, ", %s=%s", spec->name, value);
            set_edit(out, last_end, last_end, text.data);
        }
    }
    oom_buf_free(&text);
    return ok;
}

/* Removes an argument with its comma; a line that held only it goes too. */
static bool make_remove_argument(const char *src, size_t len, TSNode arg, oom_raw_edit *out)
{
    TSNode args = ts_node_parent(arg);
    if (!type_is(args, "argument_list"))
        return false;
    uint32_t count = argument_count(args), index = count;
    for (uint32_t i = 0; i < count; i++)
        if (ts_node_eq(argument_at(args, i), arg))
            index = i;
    if (index == count)
        return false;
    uint32_t a = ts_node_start_byte(arg), b = ts_node_end_byte(arg);
    uint32_t close = ts_node_end_byte(args) - 1;
    if (count == 1) {
        /* everything between the parentheses: `backward(retain_graph=True,)` -> `backward()` */
        set_edit(out, ts_node_start_byte(args) + 1, close, "");
        return src[close] == ')';
    }
    if (index + 1 < count) {
        TSNode next = argument_at(args, index + 1);
        uint32_t ls = line_start(src, a);
        uint32_t comma = comma_after(src, len, args, arg);
        if (comma && blank(src, ls, a) && ends_line(src, len, comma) &&
            line_start(src, ts_node_start_byte(next)) != line_start(src, a)) {
            /* one argument a line: the whole line goes */
            set_edit(out, ls, next_line_start(src, len, comma), "");
            return true;
        }
        set_edit(out, a, ts_node_start_byte(next), "");
        return true;
    }
    /* the last of several: from the end of the one before (its comma goes,
     * a trailing comma after this one stays) */
    TSNode prev = argument_at(args, index - 1);
    uint32_t ls = line_start(src, a);
    uint32_t comma = comma_after(src, len, args, arg);
    if (blank(src, ls, a) && comma && ends_line(src, len, comma) &&
        line_start(src, ts_node_start_byte(prev)) != ls) {
        set_edit(out, ls, next_line_start(src, len, comma), "");
        return true;
    }
    set_edit(out, ts_node_end_byte(prev), b, "");
    return true;
}

/* ---- statements and functions ----------------------------------------------------------- */

/* The statement that holds `node`: its ancestor whose parent is a block or
 * the module. A null node when there is none. */
static TSNode statement_of(TSNode node)
{
    TSNode n = node;
    while (!ts_node_is_null(n)) {
        TSNode parent = ts_node_parent(n);
        if (ts_node_is_null(parent))
            return (TSNode){{0}, NULL, NULL};
        if (type_is(parent, "block") || type_is(parent, "module"))
            return n;
        n = parent;
    }
    return n;
}

/* The statement starts its line and nothing but a comment follows it there
 * (not `if x: y` nor `a; b`): lines can be added or taken away around it. */
static bool statement_owns_lines(const char *src, size_t len, TSNode stmt)
{
    uint32_t a = ts_node_start_byte(stmt), b = ts_node_end_byte(stmt);
    return blank(src, line_start(src, a), a) && ends_line(src, len, b);
}

static bool make_insert_after(const char *src, size_t len, TSNode node, const char *statement,
                              oom_raw_edit *out)
{
    TSNode stmt = statement_of(node);
    if (ts_node_is_null(stmt) || !statement_owns_lines(src, len, stmt))
        return false;
    uint32_t a = ts_node_start_byte(stmt), ls = line_start(src, a);
    uint32_t at = line_end(src, len, ts_node_end_byte(stmt));
    oom_buf text;
    oom_buf_init(&text);
    oom_buf_printf(&text, "%s%.*s%s", newline_of(src, len), (int)(a - ls), src + ls, statement);
    set_edit(out, at, at, text.data);
    oom_buf_free(&text);
    return true;
}

static uint32_t statement_count(TSNode block)
{
    uint32_t n = 0, count = ts_node_named_child_count(block);
    for (uint32_t i = 0; i < count; i++)
        n += !type_is(ts_node_named_child(block, i), "comment");
    return n;
}

static bool make_delete_statement(const char *src, size_t len, TSNode node, oom_raw_edit *out)
{
    TSNode stmt = statement_of(node);
    if (ts_node_is_null(stmt) || !statement_owns_lines(src, len, stmt))
        return false;
    uint32_t a = ts_node_start_byte(stmt), b = ts_node_end_byte(stmt);
    TSNode block = ts_node_parent(stmt);
    if (type_is(block, "block") && statement_count(block) == 1) {
        set_edit(out, a, b, "pass"); /* a block cannot be empty */
        return true;
    }
    set_edit(out, line_start(src, a), next_line_start(src, len, b), "");
    return true;
}

static bool already_decorated(const char *src, TSNode fn, const char *decorator)
{
    TSNode parent = ts_node_parent(fn);
    if (!type_is(parent, "decorated_definition"))
        return false;
    uint32_t count = ts_node_named_child_count(parent);
    for (uint32_t i = 0; i < count; i++) {
        TSNode d = ts_node_named_child(parent, i);
        if (!type_is(d, "decorator"))
            continue;
        uint32_t a = ts_node_start_byte(d) + 1, b = ts_node_end_byte(d);
        while (a < b && (src[a] == ' ' || src[a] == '\t'))
            a++;
        if (strlen(decorator) == b - a && memcmp(src + a, decorator, b - a) == 0)
            return true;
    }
    return false;
}

/* `@decorator` on the innermost function around `node`, on its own line
 * right above `def` (below any decorators it has). Not for code at module
 * or class level, in a lambda (it runs later, elsewhere) or in an `async
 * def` (a decorator's context would close at its first await). */
static bool make_add_decorator(const char *src, size_t len, TSNode node, const char *decorator, oom_raw_edit *out)
{
    TSNode fn = node;
    while (!ts_node_is_null(fn) && !type_is(fn, "function_definition")) {
        if (type_is(fn, "lambda") || type_is(fn, "class_definition"))
            return false;
        fn = ts_node_parent(fn);
    }
    if (ts_node_is_null(fn))
        return false;
    uint32_t a = ts_node_start_byte(fn), ls = line_start(src, a);
    if (strncmp(src + a, "async", 5) == 0 || !blank(src, ls, a) || already_decorated(src, fn, decorator))
        return false;
    oom_buf text;
    oom_buf_init(&text);
    oom_buf_printf(&text, "%.*s@%s%s", (int)(a - ls), src + ls, decorator, newline_of(src, len));
    set_edit(out, ls, ls, text.data);
    oom_buf_free(&text);
    return true;
}

bool oom_fix_make_edit(const oom_edit_spec *spec, oom_lang lang, const char *src, size_t len, TSNode node,
                       const char *content, oom_raw_edit *out)
{
    memset(out, 0, sizeof *out);
    if (spec->kind == OOM_EDIT_REPLACE)
        return make_replace(spec, src, node, content, out);
    if (lang != OOM_LANG_PYTHON)
        return false; /* the other edits know Python's syntax only */
    switch (spec->kind) {
    case OOM_EDIT_ADD_ARGUMENT:
        return make_add_argument(spec, src, len, node, content, out);
    case OOM_EDIT_REMOVE_ARGUMENT:
        return make_remove_argument(src, len, node, out);
    case OOM_EDIT_ADD_DECORATOR:
        return make_add_decorator(src, len, node, content, out);
    case OOM_EDIT_INSERT_AFTER:
        return make_insert_after(src, len, node, content, out);
    case OOM_EDIT_DELETE_STATEMENT:
        return make_delete_statement(src, len, node, out);
    default:
        return false;
    }
}

/* ---- the fix ------------------------------------------------------------------------------ */

static int by_position(const void *pa, const void *pb)
{
    const oom_raw_edit *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->end < b->end ? -1 : a->end > b->end;
}

/* Lines a preview may show: a fix of more is described by its message alone. */
#define PREVIEW_MAX_LINES 8

/* The lines from the first edit's to the last edit's, as they are and as the
 * edits make them. */
static void make_preview(oom_fix *f, oom_source *src)
{
    uint32_t a = line_start(src->text, f->edits[0].start_byte);
    uint32_t b = line_end(src->text, src->len, f->edits[f->edit_count - 1].end_byte);
    uint32_t lines = 0;
    for (uint32_t i = a; i < b; i++)
        lines += src->text[i] == '\n';
    if (lines >= PREVIEW_MAX_LINES)
        return;
    oom_buf after;
    oom_buf_init(&after);
    uint32_t at = a;
    for (size_t i = 0; i < f->edit_count; i++) {
        oom_buf_append(&after, src->text + at, f->edits[i].start_byte - at);
        oom_buf_puts(&after, f->edits[i].content);
        at = f->edits[i].end_byte;
    }
    oom_buf_append(&after, src->text + at, b - at);
    uint32_t col;
    oom_source_position(src, a, &f->preview_row, &col);
    f->preview_before = oom_xstrndup(src->text + a, b - a);
    f->preview_after = oom_buf_take(&after);
}

oom_fix *oom_fix_from_edits(oom_applicability applicability, const char *message, oom_raw_edit *edits,
                            size_t count, oom_source *src)
{
    qsort(edits, count, sizeof *edits, by_position);
    bool overlap = count == 0;
    for (size_t i = 1; i < count && !overlap; i++)
        overlap = edits[i].start < edits[i - 1].end ||
                  (edits[i].start == edits[i - 1].start && edits[i].end == edits[i].start &&
                   edits[i - 1].end == edits[i - 1].start);
    if (overlap) {
        for (size_t i = 0; i < count; i++)
            free(edits[i].content);
        return NULL;
    }
    oom_fix *f = oom_xcalloc(1, sizeof *f);
    f->applicability = applicability;
    f->message = oom_xstrdup(message);
    f->edits = oom_xcalloc(count, sizeof(oom_edit));
    f->edit_count = count;
    for (size_t i = 0; i < count; i++) {
        oom_edit *e = &f->edits[i];
        e->start_byte = edits[i].start;
        e->end_byte = edits[i].end;
        e->content = edits[i].content;
        oom_source_position(src, edits[i].start, &e->start_row, &e->start_col);
        oom_source_position(src, edits[i].end, &e->end_row, &e->end_col);
    }
    make_preview(f, src);
    return f;
}

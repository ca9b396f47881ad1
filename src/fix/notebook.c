/* fix/notebook: --fix on a Jupyter notebook. The fixes are made on the one
 * module the code cells make (as the linter sees it), with each cell's start
 * moving with the edits; each changed cell is then carried back to its lines
 * as written (an IPython line the linter saw masked is kept as it was, and a
 * fix that would change one is refused) and written into that cell's
 * `source` alone, in the layout it has. Every other byte of the file stays
 * as it was; the new file must read back as the fixed module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oomlint/fixer.h"
#include "oomlint/linediff.h"
#include "oomlint/notebook.h"

/* One code cell of the module: its rows, where it starts, its `source`. */
typedef struct {
    uint32_t cell;          /* 1-based, counting every cell */
    uint32_t first_row;     /* its first row in the module */
    uint32_t row_count;
    uint32_t start;         /* where it starts in the module */
    uint32_t source_start, source_end; /* its `source` value in the JSON */
    bool source_is_array;
    bool ends_with_break; /* its text ends in a line break (Jupyter leaves the last line without) */
    uint32_t sep_start, sep_end; /* a list's text between its first two strings (", " or ",\n    "); empty: none */
} nb_cell;

typedef struct {
    nb_cell *items;
    size_t len, cap;
} nb_cells;

static bool is_a(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* ---- the cells ------------------------------------------------------------------------- */

/* The module's rows grouped by cell, with each group's start in the module. */
static void group_rows(const oom_notebook *nb, const char *code, size_t len, nb_cells *out)
{
    uint32_t rows = oom_notebook_line_count(nb);
    size_t at = 0;
    for (uint32_t row = 1; row <= rows && at <= len; row++) {
        uint32_t cell, cell_row, file_row;
        oom_notebook_locate(nb, row, &cell, &cell_row, &file_row);
        if (out->len == 0 || out->items[out->len - 1].cell != cell) {
            nb_cell c = {cell, row, 0, (uint32_t)at, 0, 0, false, false, 0, 0};
            OOM_PUSH(out->items, out->len, out->cap, c);
        }
        out->items[out->len - 1].row_count++;
        const char *nl = memchr(code + at, '\n', len - at);
        at = nl ? (size_t)(nl - code) + 1 : len + 1;
    }
}

/* The value of `key` in a JSON object, or a null node. */
static TSNode member(const char *json, TSNode object, const char *key)
{
    TSNode found = {{0}, NULL, NULL};
    size_t n = strlen(key);
    uint32_t count = ts_node_named_child_count(object);
    for (uint32_t i = 0; i < count; i++) {
        TSNode pair = ts_node_named_child(object, i);
        if (!is_a(pair, "pair"))
            continue;
        TSNode k = ts_node_child_by_field_name(pair, "key", 3);
        uint32_t a = ts_node_start_byte(k), b = ts_node_end_byte(k);
        if (b - a == n + 2 && memcmp(json + a + 1, key, n) == 0)
            found = ts_node_child_by_field_name(pair, "value", 5);
    }
    return found;
}

/* A JSON string whose value ends in \n: its text ends in an unescaped `\n`. */
static bool ends_with_escaped_break(const char *json, TSNode s)
{
    uint32_t a = ts_node_start_byte(s), b = ts_node_end_byte(s);
    if (b - a < 4 || json[b - 2] != 'n')
        return false;
    uint32_t backslashes = 0;
    for (uint32_t i = b - 3; i > a && json[i] == '\\'; i--)
        backslashes++;
    return backslashes % 2 == 1;
}

/* Where each cell's `source` is in the file (the notebook reader read it
 * the same way, so the cells are there). */
static bool find_sources(const char *json, TSNode root, nb_cells *cells)
{
    TSNode top = ts_node_named_child(root, 0);
    TSNode list = is_a(top, "object") ? member(json, top, "cells") : (TSNode){{0}, NULL, NULL};
    if (!is_a(list, "array"))
        return false;
    uint32_t number = 0, count = ts_node_named_child_count(list);
    size_t next = 0;
    for (uint32_t i = 0; i < count && next < cells->len; i++) {
        TSNode cell = ts_node_named_child(list, i);
        if (is_a(cell, "comment"))
            continue;
        number++;
        if (number != cells->items[next].cell)
            continue;
        TSNode source = member(json, cell, "source");
        if (!is_a(source, "string") && !is_a(source, "array"))
            return false;
        nb_cell *c = &cells->items[next++];
        c->source_start = ts_node_start_byte(source);
        c->source_end = ts_node_end_byte(source);
        c->source_is_array = is_a(source, "array");
        uint32_t elements = c->source_is_array ? ts_node_named_child_count(source) : 1;
        TSNode last = c->source_is_array ? ts_node_named_child(source, elements - 1) : source;
        if (elements >= 2) {
            c->sep_start = ts_node_end_byte(ts_node_named_child(source, 0));
            c->sep_end = ts_node_start_byte(ts_node_named_child(source, 1));
        }
        c->ends_with_break = is_a(last, "string") && ends_with_escaped_break(json, last);
    }
    return next == cells->len;
}

/* ---- a cell's lines as written ------------------------------------------------------- */

/* The cell's new text, its lines as written where the fixes kept them (a
 * masked IPython line stays as the cell has it), the fixed module's lines
 * elsewhere. False when a fix changed a masked line. */
static bool written_text(const oom_notebook *nb, const nb_cell *c, const char *before, size_t before_len,
                         const char *after, size_t after_len, oom_buf *out)
{
    oom_line_list a = {NULL, 0, 0}, b = {NULL, 0, 0};
    oom_line_split(before, before_len, &a);
    oom_line_split(after, after_len, &b);
    oom_line_ops ops = {NULL, 0, 0};
    oom_line_diff(&a, &b, &ops);
    bool ok = true;
    size_t ai = 0, bi = 0;
    for (size_t k = 0; k < ops.len && ok; k++) {
        uint32_t row = c->first_row + (uint32_t)ai;
        if (ops.items[k] == OOM_LINE_SAME) {
            size_t len;
            const char *line = oom_notebook_written_line(nb, row, &len);
            ok = line != NULL;
            if (ok) {
                oom_buf_append(out, line, len);
                oom_buf_putc(out, '\n');
            }
            ai++, bi++;
        } else if (ops.items[k] == OOM_LINE_DELETE) {
            ok = !oom_notebook_line_masked(nb, row);
            ai++;
        } else {
            oom_buf_append(out, b.items[bi].text, b.items[bi].len);
            bi++;
        }
    }
    free(a.items);
    free(b.items);
    free(ops.items);
    return ok;
}

/* ---- writing a cell's source ------------------------------------------------------------ */

/* A JSON string as Jupyter writes it: UTF-8 kept, the rest escaped. */
static void json_string(oom_buf *out, const char *s, size_t n)
{
    oom_buf_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            oom_buf_printf(out, "\\%c", c);
        else if (c == '\n')
            oom_buf_puts(out, "\\n");
        else if (c == '\t')
            oom_buf_puts(out, "\\t");
        else if (c == '\r')
            oom_buf_puts(out, "\\r");
        else if (c < 0x20)
            oom_buf_printf(out, "\\u%04x", c);
        else
            oom_buf_putc(out, (char)c);
    }
    oom_buf_putc(out, '"');
}

/* The new `source` value in the layout of the old one: a string stays a
 * string; a list keeps its brackets, indentation and separators, one line
 * an element (the last without its \n, as Jupyter writes it). */
static void source_value(const char *json, const nb_cell *c, const char *text, size_t len, oom_buf *out)
{
    if (!c->source_is_array) {
        json_string(out, text, len);
        return;
    }
    /* the layout: "[" then what comes before the first element, the text
     * between two elements, and what follows the last before "]" */
    const char *v = json + c->source_start, *end = json + c->source_end;
    const char *first = v + 1;
    while (first < end && (*first == ' ' || *first == '\t' || *first == '\n' || *first == '\r'))
        first++;
    const char *close = end - 1;
    while (close > first && (close[-1] == ' ' || close[-1] == '\t' || close[-1] == '\n' || close[-1] == '\r'))
        close--;
    oom_buf_append(out, v, (size_t)(first - v)); /* "[\n    " */
    oom_line_list lines = {NULL, 0, 0};
    oom_line_split(text, len, &lines);
    for (size_t i = 0; i < lines.len; i++) {
        if (i && c->sep_end > c->sep_start) {
            oom_buf_append(out, json + c->sep_start, c->sep_end - c->sep_start); /* as between the first two */
        } else if (i) {
            oom_buf_putc(out, ',');
            oom_buf_append(out, v + 1, (size_t)(first - v - 1)); /* the break and indentation after "[" */
        }
        json_string(out, lines.items[i].text, lines.items[i].len);
    }
    oom_buf_append(out, close, (size_t)(end - close)); /* "\n   ]" */
    free(lines.items);
}

/* ---- the whole notebook --------------------------------------------------------------------- */

static void refuse(oom_fix_result *r, const char *why)
{
    free(r->text);
    r->text = NULL;
    r->len = 0;
    r->outcome = OOM_FIX_NOT_WRITTEN_BACK;
    snprintf(r->detail, sizeof r->detail, "%s", why);
}

/* What carrying the fixed module back into the file needs. */
typedef struct {
    const char *json; /* the file as read */
    size_t len;
    const oom_notebook *nb;
    const nb_cells *cells;
    const char *code; /* the module as read */
    size_t code_len;
    const char *fixed; /* the module fixed */
    size_t fixed_len;
    const uint32_t *moved; /* where the second cell on starts in `fixed` */
} write_back;

/* The file with each changed cell's `source` replaced; false (and `why`)
 * when a cell cannot be carried back. */
static bool rebuild(const write_back *w, oom_buf *out, const char **why)
{
    const char *json = w->json, *code = w->code, *fixed = w->fixed;
    const nb_cells *cells = w->cells;
    const uint32_t *moved = w->moved;
    oom_buf text, value;
    oom_buf_init(&text);
    oom_buf_init(&value);
    bool ok = true;
    size_t at = 0;
    for (size_t i = 0; i < cells->len && ok; i++) {
        const nb_cell *c = &cells->items[i];
        uint32_t a = c->start, b = i + 1 < cells->len ? cells->items[i + 1].start : (uint32_t)w->code_len;
        uint32_t fa = i ? moved[i - 1] : 0, fb = i + 1 < cells->len ? moved[i] : (uint32_t)w->fixed_len;
        if (b - a == fb - fa && memcmp(code + a, fixed + fa, b - a) == 0)
            continue; /* untouched */
        if (memmem(json + c->source_start, c->source_end - c->source_start, "\\r", 2)) {
            *why = "a changed cell has \\r line ends, which the notebook reader turned into \\n";
            ok = false;
            break;
        }
        oom_buf_clear(&text);
        oom_buf_append(&text, "", 0);
        if (!written_text(w->nb, c, code + a, b - a, fixed + fa, fb - fa, &text)) {
            *why = "a fix would change an IPython line (a magic or a shell command)";
            ok = false;
            break;
        }
        /* the cell's last line keeps having, or not having, its line break */
        if (!c->ends_with_break && text.len && text.data[text.len - 1] == '\n')
            text.data[--text.len] = '\0';
        oom_buf_clear(&value);
        source_value(json, c, text.data, text.len, &value);
        oom_buf_append(out, json + at, c->source_start - at);
        oom_buf_append(out, value.data, value.len);
        at = c->source_end;
    }
    if (ok)
        oom_buf_append(out, json + at, w->len - at);
    oom_buf_free(&text);
    oom_buf_free(&value);
    return ok;
}

/* The new file reads back as the fixed module: nothing was lost on the way. */
static bool reads_back(const char *json, size_t len, const char *fixed, size_t fixed_len)
{
    oom_notebook *nb = NULL;
    oom_notebook_error err;
    bool same = false;
    if (oom_notebook_parse(json, len, &nb, &err) == OOM_NOTEBOOK_OK) {
        size_t code_len;
        const char *code = oom_notebook_code(nb, &code_len);
        same = code_len == fixed_len && memcmp(code, fixed, fixed_len) == 0;
    }
    oom_notebook_free(nb);
    return same;
}

/* Why the fixed module cannot go back into the file, or NULL with the new
 * file in `file`. */
static const char *carry_back(const write_back *w, bool crossed, nb_cells *cells, oom_buf *file)
{
    if (crossed)
        return "a fix reaches from one cell into the next";
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_JSON));
    TSTree *tree = ts_parser_parse_string(parser, NULL, w->json, (uint32_t)w->len);
    const char *why = NULL;
    if (!tree || !find_sources(w->json, ts_tree_root_node(tree), cells))
        why = "its cells could not be found again in the file";
    else if (rebuild(w, file, &why) && !reads_back(file->data, file->len, w->fixed, w->fixed_len))
        why = "the rewritten file does not read back as the fixed code (please report this as an oomlint bug)";
    if (tree)
        ts_tree_delete(tree);
    ts_parser_delete(parser);
    return why;
}

/* The caller's policy, and no fix of a masked IPython line or across cells
 * (it could not go back, and the whole notebook would be refused). The map
 * is the notebook's as read: after a round that added or removed lines it
 * may be off, and the carrying back still refuses what cannot go. */
typedef struct {
    const oom_fix_policy *outer;
    const oom_notebook *nb;
} cell_policy;

static bool allow_in_cells(void *ctx, const oom_diag *d)
{
    const cell_policy *p = ctx;
    if (d->fix && !oom_notebook_fix_fits(p->nb, d->fix))
        return false;
    return !p->outer->allow || p->outer->allow(p->outer->allow_ctx, d);
}

void oom_fix_notebook(oom_linter *linter, const char *display, const char *json, size_t len,
                      const oom_fix_policy *policy, oom_fix_result *out)
{
    memset(out, 0, sizeof *out);
    oom_notebook *nb = NULL;
    oom_notebook_error err;
    if (oom_notebook_parse(json, len, &nb, &err) != OOM_NOTEBOOK_OK) {
        out->outcome = OOM_FIX_UNCHANGED; /* a notebook the linter could not read has no fixes */
        out->converged = true;
        return;
    }
    size_t code_len;
    const char *code = oom_notebook_code(nb, &code_len);
    nb_cells cells = {NULL, 0, 0};
    group_rows(nb, code, code_len, &cells);
    uint32_t *marks = oom_xcalloc(cells.len ? cells.len : 1, sizeof(uint32_t));
    for (size_t i = 1; i < cells.len; i++)
        marks[i - 1] = cells.items[i].start;
    oom_fix_marks moved = {marks, cells.len ? cells.len - 1 : 0, false};
    cell_policy cp = {policy, nb};
    oom_fix_policy in_cells = {policy->max, allow_in_cells, &cp};
    oom_fix_text_marked(linter, display, code, code_len, OOM_LANG_PYTHON, &in_cells, out, &moved);
    if (out->outcome == OOM_FIX_CHANGED) {
        write_back w = {json, len, nb, &cells, code, code_len, out->text, out->len, marks};
        oom_buf file;
        oom_buf_init(&file);
        const char *why = carry_back(&w, moved.crossed, &cells, &file);
        if (why) {
            refuse(out, why);
        } else {
            free(out->text);
            out->len = file.len;
            out->text = oom_buf_take(&file);
        }
        oom_buf_free(&file);
    }
    free(marks);
    free(cells.items);
    oom_notebook_free(nb);
}

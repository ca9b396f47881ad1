/* source/notebook: a notebook's code cells as one Python module. The JSON is
 * parsed by tree-sitter's JSON grammar, which keeps every value's place in
 * the file (so a finding can name the .ipynb line that holds its code, and
 * a broken notebook where it breaks); a `source` string that has escapes is
 * decoded by cJSON. Nothing but the code cells' `source` is read. */
#include "oomlint/notebook.h"

#include <cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oomlint/ipython.h"
#include "oomlint/lang.h"
#include "oomlint/text.h"

/* One line of the module. */
typedef struct {
    uint32_t cell;     /* 1-based, counting every cell */
    uint32_t row;      /* 1-based, in the cell */
    uint32_t file_row; /* the .ipynb line of the string that holds the line's start */
    size_t start, len; /* the line as written: offset in `written`, bytes without the \n */
    size_t code_start, code_len; /* the same line in the module, masked */
} nb_line;

struct oom_notebook {
    oom_buf code;    /* the module, masked */
    oom_buf written; /* the same lines as the cells have them */
    nb_line *lines;
    size_t line_count, line_cap;
};

/* Where each decoded `source` string starts in its cell's text. */
typedef struct {
    size_t offset;
    uint32_t file_row;
} piece;

typedef struct {
    const char *json;
    oom_notebook_error *err;
    oom_buf cell;   /* the cell being read, decoded, line ends made \n */
    bool after_cr;  /* the cell's text so far ends in a \r made \n */
    piece *pieces;
    size_t piece_count, piece_cap;
} reader;

bool oom_notebook_is_path(const char *path)
{
    return oom_str_ends_with(path, ".ipynb");
}

/* ---- positions and messages ------------------------------------------------- */

static void set_position(const reader *r, TSNode at, uint32_t *row, uint32_t *col)
{
    TSPoint p = ts_node_start_point(at);
    uint32_t byte = ts_node_start_byte(at);
    *row = p.row + 1;
    *col = (uint32_t)oom_utf8_count(r->json + byte - p.column, p.column) + 1;
}

static void fail_at(reader *r, TSNode at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail_at(reader *r, TSNode at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err->message, sizeof r->err->message, fmt, ap);
    va_end(ap);
    if (!ts_node_is_null(at))
        set_position(r, at, &r->err->row, &r->err->col);
}

/* "a number", "an array": a JSON value's kind, for messages. */
static const char *kind_of(TSNode value)
{
    const char *t = ts_node_type(value);
    if (strcmp(t, "object") == 0)
        return "an object";
    if (strcmp(t, "array") == 0)
        return "an array";
    if (strcmp(t, "string") == 0)
        return "a string";
    if (strcmp(t, "number") == 0)
        return "a number";
    if (strcmp(t, "true") == 0 || strcmp(t, "false") == 0)
        return "a boolean";
    return "null";
}

static bool is_a(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* ---- JSON that does not parse --------------------------------------------------- */

static void fail_not_json(reader *r, TSNode root)
{
    TSNode err = oom_first_error(root);
    uint32_t a = ts_node_start_byte(err), b = ts_node_end_byte(err);
    oom_buf what;
    oom_buf_init(&what);
    if (ts_node_is_missing(err)) {
        oom_buf_printf(&what, "expected `%s`", ts_node_type(err));
    } else if (b > a) {
        oom_buf_puts(&what, "unexpected `");
        oom_text_append_snippet(&what, r->json + a, b - a > 200 ? 200 : b - a, 32);
        oom_buf_puts(&what, "`");
    } else {
        oom_buf_puts(&what, "unexpected end of file");
    }
    fail_at(r, err, "the notebook is not valid JSON: %s", what.data);
    oom_buf_free(&what);
}

/* ---- reading values ------------------------------------------------------------ */

/* The values of an array (or the pairs of an object, or the document's
 * values) in order, comments (which the grammar allows) left out. A cursor
 * walks them: ts_node_named_child(n, i) costs i steps, and a cell's source
 * may be a list of a hundred thousand lines. */
typedef struct {
    TSTreeCursor cursor;
    bool more;
} value_walk;

static void walk_begin(value_walk *w, TSNode parent)
{
    w->cursor = ts_tree_cursor_new(parent);
    w->more = ts_tree_cursor_goto_first_child(&w->cursor);
}

static bool walk_next(value_walk *w, TSNode *out)
{
    while (w->more) {
        TSNode n = ts_tree_cursor_current_node(&w->cursor);
        w->more = ts_tree_cursor_goto_next_sibling(&w->cursor);
        if (ts_node_is_named(n) && !is_a(n, "comment")) {
            *out = n;
            return true;
        }
    }
    return false;
}

static void walk_end(value_walk *w)
{
    ts_tree_cursor_delete(&w->cursor);
}

/* The value of `key` in an object (the last one, as Python's json keeps),
 * or a null node. Keys are compared as written: notebooks spell theirs plainly. */
static TSNode member(const reader *r, TSNode object, const char *key)
{
    TSNode found = {{0}, NULL, NULL};
    if (!is_a(object, "object"))
        return found;
    size_t n = strlen(key);
    value_walk w;
    TSNode pair;
    for (walk_begin(&w, object); walk_next(&w, &pair);) {
        if (!is_a(pair, "pair"))
            continue;
        TSNode k = oom_child(pair, "key", 3);
        uint32_t a = ts_node_start_byte(k), b = ts_node_end_byte(k);
        if (b - a == n + 2 && memcmp(r->json + a + 1, key, n) == 0)
            found = oom_child(pair, "value", 5);
    }
    walk_end(&w);
    return found;
}

/* A string's raw text between its quotes. */
static const char *raw_string(const reader *r, TSNode s, size_t *len)
{
    uint32_t a = ts_node_start_byte(s), b = ts_node_end_byte(s);
    *len = b - a >= 2 ? b - a - 2 : 0;
    return r->json + a + 1;
}

/* `\u0000` decodes to a NUL, which a C string cannot carry and Python
 * source may not contain. */
static bool has_nul_escape(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '\\')
            continue;
        if (s[i + 1] == 'u' && i + 5 < n && memcmp(s + i + 2, "0000", 4) == 0)
            return true;
        i++;
    }
    return false;
}

/* Appends text with its line ends made \n (\r\n and a lone \r, as Python
 * reads them), so that the module and the map agree on what a line is. */
static void append_text(reader *r, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n' && r->after_cr) {
            r->after_cr = false;
            continue;
        }
        r->after_cr = s[i] == '\r';
        oom_buf_putc(&r->cell, s[i] == '\r' ? '\n' : s[i]);
    }
}

/* Appends one string of a cell's `source`, decoded. */
static bool append_source_string(reader *r, TSNode s, uint32_t cell_no)
{
    piece p = {r->cell.len, ts_node_start_point(s).row + 1};
    OOM_PUSH(r->pieces, r->piece_count, r->piece_cap, p);
    size_t len;
    const char *raw = raw_string(r, s, &len);
    if (!memchr(raw, '\\', len)) {
        append_text(r, raw, len);
        return true;
    }
    if (has_nul_escape(raw, len)) {
        fail_at(r, s, "cell %u: `source` holds a NUL character (\\u0000), which Python source cannot", cell_no);
        return false;
    }
    uint32_t a = ts_node_start_byte(s), b = ts_node_end_byte(s);
    cJSON *v = cJSON_ParseWithLength(r->json + a, b - a);
    bool ok = cJSON_IsString(v);
    if (ok)
        append_text(r, v->valuestring, strlen(v->valuestring));
    else
        fail_at(r, s, "cell %u: `source` holds an escape that is not text (a lone UTF-16 surrogate or a malformed `\\u`)",
                cell_no);
    cJSON_Delete(v);
    return ok;
}

/* A code cell's `source`: a string, or a list of strings (Jupyter writes one
 * per line). */
static bool read_source(reader *r, TSNode cell, uint32_t cell_no)
{
    oom_buf_clear(&r->cell);
    oom_buf_append(&r->cell, "", 0);
    r->after_cr = false;
    r->piece_count = 0;
    TSNode source = member(r, cell, "source");
    if (ts_node_is_null(source)) {
        fail_at(r, cell, "cell %u is a code cell without `source`", cell_no);
        return false;
    }
    if (is_a(source, "string"))
        return append_source_string(r, source, cell_no);
    if (!is_a(source, "array")) {
        fail_at(r, source, "cell %u: `source` is %s, not a string or a list of strings", cell_no, kind_of(source));
        return false;
    }
    value_walk w;
    TSNode s;
    bool ok = true;
    for (walk_begin(&w, source); ok && walk_next(&w, &s);) {
        if (!is_a(s, "string")) {
            fail_at(r, s, "cell %u: `source` holds %s, not only strings", cell_no, kind_of(s));
            ok = false;
        } else {
            ok = append_source_string(r, s, cell_no);
        }
    }
    walk_end(&w);
    return ok;
}

/* ---- the module and its map -------------------------------------------------------- */

/* Adds the cell read into r->cell: its masked text to the module, its
 * written text and one map entry per line. */
static void add_cell(oom_notebook *nb, reader *r, uint32_t cell_no)
{
    const char *text = r->cell.data;
    size_t len = r->cell.len, base = nb->written.len, code_base = nb->code.len;
    oom_ipython_mask_cell(text, len, &nb->code);
    size_t code_at = code_base; /* masking keeps the lines: one masked line per line */
    oom_buf_append(&nb->written, text, len);
    if (len > 0 && text[len - 1] != '\n')
        oom_buf_putc(&nb->written, '\n');
    size_t p = 0;
    uint32_t row = 0;
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        while (p + 1 < r->piece_count && r->pieces[p + 1].offset <= start)
            p++;
        const char *code_nl = memchr(nb->code.data + code_at, '\n', nb->code.len - code_at);
        size_t code_end = code_nl ? (size_t)(code_nl - nb->code.data) : nb->code.len;
        nb_line l = {cell_no, ++row, r->piece_count ? r->pieces[p].file_row : 0, base + start, end - start, code_at,
                     code_end - code_at};
        OOM_PUSH(nb->lines, nb->line_count, nb->line_cap, l);
        code_at = code_nl ? code_end + 1 : code_end;
        start = end + 1;
    }
}

/* nbformat 4 or later; a notebook that does not say is read as one. */
static bool check_nbformat(reader *r, TSNode top)
{
    TSNode v = member(r, top, "nbformat");
    if (ts_node_is_null(v))
        return true;
    if (!is_a(v, "number")) {
        fail_at(r, v, "`nbformat` is %s, not a number", kind_of(v));
        return false;
    }
    long major = strtol(r->json + ts_node_start_byte(v), NULL, 10);
    if (major >= 4)
        return true;
    fail_at(r, v, "nbformat %ld notebook; oomlint reads nbformat 4 (convert it with `jupyter nbconvert --to notebook --nbformat 4`)",
            major);
    return false;
}

/* "python", "Python", "python3", "ipython": a Python kernel's language. */
static bool names_python(const reader *r, TSNode s)
{
    size_t len;
    const char *raw = raw_string(r, s, &len);
    for (size_t i = 0; i + 6 <= len; i++)
        if (strncasecmp(raw + i, "python", 6) == 0)
            return true;
    return false;
}

/* A notebook whose kernel runs another language (R, Julia, ...) has no
 * Python to lint. Without a word on the language, it is Python's. */
static bool kernel_is_python(const reader *r, TSNode top)
{
    TSNode meta = member(r, top, "metadata");
    TSNode lang = member(r, member(r, meta, "kernelspec"), "language");
    if (is_a(lang, "string") && !names_python(r, lang))
        return false;
    TSNode info = member(r, member(r, meta, "language_info"), "name");
    return !is_a(info, "string") || names_python(r, info);
}

static oom_notebook_status read_cells(reader *r, TSNode cells, oom_notebook *nb)
{
    value_walk w;
    TSNode cell;
    oom_notebook_status st = OOM_NOTEBOOK_OK;
    uint32_t cell_no = 0;
    for (walk_begin(&w, cells); st == OOM_NOTEBOOK_OK && walk_next(&w, &cell);) {
        cell_no++;
        if (!is_a(cell, "object")) {
            fail_at(r, cell, "cell %u is %s, not an object", cell_no, kind_of(cell));
            st = OOM_NOTEBOOK_INVALID;
            continue;
        }
        TSNode type = member(r, cell, "cell_type");
        size_t len;
        const char *raw = is_a(type, "string") ? raw_string(r, type, &len) : NULL;
        if (!raw || len != 4 || memcmp(raw, "code", 4) != 0)
            continue; /* markdown and raw cells are prose */
        if (read_source(r, cell, cell_no))
            add_cell(nb, r, cell_no);
        else
            st = OOM_NOTEBOOK_INVALID;
    }
    walk_end(&w);
    return st;
}

static oom_notebook_status read_document(reader *r, TSNode root, oom_notebook *nb)
{
    if (ts_node_has_error(root)) {
        fail_not_json(r, root);
        return OOM_NOTEBOOK_NOT_JSON;
    }
    value_walk w;
    TSNode top, second;
    walk_begin(&w, root);
    bool has_top = walk_next(&w, &top), has_second = has_top && walk_next(&w, &second);
    walk_end(&w);
    if (!has_top || has_second) {
        fail_at(r, has_second ? second : root, "the notebook is not valid JSON: %s",
                has_second ? "more than one value at the top level" : "the file holds no value");
        return OOM_NOTEBOOK_NOT_JSON;
    }
    if (!is_a(top, "object")) {
        fail_at(r, top, "not a Jupyter notebook: the file holds %s, not an object with `cells`", kind_of(top));
        return OOM_NOTEBOOK_INVALID;
    }
    if (!check_nbformat(r, top))
        return OOM_NOTEBOOK_INVALID;
    TSNode cells = member(r, top, "cells");
    if (!is_a(cells, "array")) {
        if (ts_node_is_null(cells))
            fail_at(r, top, "not a Jupyter notebook: it has no `cells` array");
        else
            fail_at(r, cells, "not a Jupyter notebook: `cells` is %s, not an array", kind_of(cells));
        return OOM_NOTEBOOK_INVALID;
    }
    if (!kernel_is_python(r, top))
        return OOM_NOTEBOOK_NOT_PYTHON;
    return read_cells(r, cells, nb);
}

oom_notebook_status oom_notebook_parse(const char *json, size_t len, oom_notebook **out, oom_notebook_error *err)
{
    *out = NULL;
    memset(err, 0, sizeof *err);
    if (len > OOM_MAX_NOTEBOOK_BYTES) {
        snprintf(err->message, sizeof err->message, "notebook is larger than the %zu MiB limit; not linted",
                 OOM_MAX_NOTEBOOK_BYTES / (1024 * 1024));
        return OOM_NOTEBOOK_INVALID;
    }
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, oom_lang_grammar(OOM_LANG_JSON));
    TSTree *tree = ts_parser_parse_string(parser, NULL, json, (uint32_t)len);
    oom_notebook *nb = oom_xcalloc(1, sizeof *nb);
    oom_buf_init(&nb->code);
    oom_buf_init(&nb->written);
    oom_buf_append(&nb->code, "", 0);
    oom_buf_append(&nb->written, "", 0);
    reader r = {json, err, {NULL, 0, 0}, false, NULL, 0, 0};
    oom_buf_init(&r.cell);
    oom_notebook_status st = OOM_NOTEBOOK_NOT_JSON;
    if (tree)
        st = read_document(&r, ts_tree_root_node(tree), nb);
    else
        snprintf(err->message, sizeof err->message, "the notebook could not be parsed as JSON");
    oom_buf_free(&r.cell);
    free(r.pieces);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    if (st != OOM_NOTEBOOK_OK) {
        oom_notebook_free(nb);
        return st;
    }
    *out = nb;
    return OOM_NOTEBOOK_OK;
}

void oom_notebook_free(oom_notebook *nb)
{
    if (!nb)
        return;
    oom_buf_free(&nb->code);
    oom_buf_free(&nb->written);
    free(nb->lines);
    free(nb);
}

void oom_notebook_encode(const oom_notebook *nb, oom_buf *out)
{
    oom_buf_put_u64(out, nb->code.len);
    oom_buf_put_bytes(out, nb->code.data, nb->code.len);
    oom_buf_put_u64(out, nb->written.len);
    oom_buf_put_bytes(out, nb->written.data, nb->written.len);
    oom_buf_put_u32(out, (uint32_t)nb->line_count);
    for (size_t i = 0; i < nb->line_count; i++) {
        const nb_line *l = &nb->lines[i];
        uint32_t v[3] = {l->cell, l->row, l->file_row};
        oom_buf_put_bytes(out, v, sizeof v);
        uint64_t w[4] = {l->start, l->len, l->code_start, l->code_len};
        oom_buf_put_bytes(out, w, sizeof w);
    }
}

static bool decode_text(oom_reader *r, oom_buf *into)
{
    uint64_t n = oom_reader_u64(r);
    if (!r->ok || n > (uint64_t)(r->end - r->at))
        return r->ok = false;
    if (n)
        oom_buf_append(into, (const char *)r->at, (size_t)n);
    r->at += n;
    return true;
}

oom_notebook *oom_notebook_decode(oom_reader *r)
{
    oom_notebook *nb = oom_xcalloc(1, sizeof *nb);
    decode_text(r, &nb->code);
    decode_text(r, &nb->written);
    size_t n = oom_reader_count(r, 3 * 4 + 4 * 8);
    nb->lines = oom_xcalloc(n ? n : 1, sizeof *nb->lines);
    nb->line_cap = n ? n : 1;
    for (size_t i = 0; i < n && r->ok; i++) {
        uint32_t v[3];
        uint64_t w[4];
        oom_reader_bytes(r, v, sizeof v);
        oom_reader_bytes(r, w, sizeof w);
        /* every line inside the texts it points into */
        r->ok &= w[0] <= nb->written.len && w[1] <= nb->written.len - w[0] && w[2] <= nb->code.len &&
                 w[3] <= nb->code.len - w[2];
        nb->lines[i] = (nb_line){v[0], v[1], v[2], (size_t)w[0], (size_t)w[1], (size_t)w[2], (size_t)w[3]};
        nb->line_count = i + 1;
    }
    if (!r->ok) {
        oom_notebook_free(nb);
        return NULL;
    }
    return nb;
}

const char *oom_notebook_code(const oom_notebook *nb, size_t *len)
{
    *len = nb->code.len;
    return nb->code.data;
}

bool oom_notebook_locate(const oom_notebook *nb, uint32_t row, uint32_t *cell, uint32_t *cell_row,
                         uint32_t *file_row)
{
    if (row == 0 || row > nb->line_count)
        return false;
    const nb_line *l = &nb->lines[row - 1];
    *cell = l->cell;
    *cell_row = l->row;
    *file_row = l->file_row;
    return true;
}

uint32_t oom_notebook_line_count(const oom_notebook *nb)
{
    return (uint32_t)nb->line_count;
}

const char *oom_notebook_written_line(const oom_notebook *nb, uint32_t row, size_t *len)
{
    if (row == 0 || row > nb->line_count)
        return NULL;
    *len = nb->lines[row - 1].len;
    return nb->written.data + nb->lines[row - 1].start;
}

bool oom_notebook_line_masked(const oom_notebook *nb, uint32_t row)
{
    if (row == 0 || row > nb->line_count)
        return true;
    const nb_line *l = &nb->lines[row - 1];
    return l->len != l->code_len || memcmp(nb->written.data + l->start, nb->code.data + l->code_start, l->len) != 0;
}

/* ---- placing findings ---------------------------------------------------------------- */

/* Rows first..last of the module lie in one cell and hold the code as
 * written (no IPython line masked into Python). */
static bool plain_lines_of_one_cell(const oom_notebook *nb, uint32_t first, uint32_t last)
{
    if (first == 0 || last < first || last > nb->line_count)
        return false;
    for (uint32_t row = first; row <= last; row++)
        if (nb->lines[row - 1].cell != nb->lines[first - 1].cell || oom_notebook_line_masked(nb, row))
            return false;
    return true;
}

bool oom_notebook_fix_fits(const oom_notebook *nb, const oom_fix *f)
{
    bool ok = f->edit_count > 0;
    for (size_t i = 0; i < f->edit_count && ok; i++)
        ok = plain_lines_of_one_cell(nb, f->edits[i].start_row, f->edits[i].end_row) &&
             nb->lines[f->edits[i].start_row - 1].cell == nb->lines[f->edits[0].start_row - 1].cell;
    return ok;
}

/* A fix's edits move into the cell with the finding: rows of the cell,
 * columns unchanged (the lines are as written). An edit that reaches another
 * cell or a masked IPython line could not be written back: no fix. */
static void place_fix(const oom_notebook *nb, oom_diag *d)
{
    oom_fix *f = d->fix;
    if (!oom_notebook_fix_fits(nb, f)) {
        oom_fix_free(f);
        d->fix = NULL;
        return;
    }
    for (size_t i = 0; i < f->edit_count; i++) {
        f->edits[i].start_row = nb->lines[f->edits[i].start_row - 1].row;
        f->edits[i].end_row = nb->lines[f->edits[i].end_row - 1].row;
    }
    uint32_t last = f->preview_row;
    for (const char *c = f->preview_before ? f->preview_before : ""; *c; c++)
        last += *c == '\n';
    if (f->preview_before && plain_lines_of_one_cell(nb, f->preview_row, last)) {
        f->preview_row = nb->lines[f->preview_row - 1].row;
    } else {
        free(f->preview_before);
        free(f->preview_after);
        f->preview_before = f->preview_after = NULL;
    }
}

/* The column just past the end of a line as written. */
static uint32_t end_column(const oom_notebook *nb, const nb_line *l)
{
    return (uint32_t)oom_utf8_count(nb->written.data + l->start, l->len) + 1;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

static char *written_context(const oom_notebook *nb, size_t first, size_t last)
{
    oom_buf ctx;
    oom_buf_init(&ctx);
    oom_buf_append(&ctx, "", 0);
    for (size_t i = first; i <= last && i < first + OOM_DIAG_CONTEXT_LINES; i++) {
        if (i > first)
            oom_buf_putc(&ctx, '\n');
        oom_buf_append(&ctx, nb->written.data + nb->lines[i].start, nb->lines[i].len);
    }
    return oom_buf_take(&ctx);
}

void oom_notebook_place(const oom_notebook *nb, oom_diag *d)
{
    if (d->cell || nb->line_count == 0)
        return;
    if (d->fix)
        place_fix(nb, d);
    size_t count = nb->line_count;
    /* a position past the last line (the end of the module) is the end of the last line */
    size_t first = d->start_row == 0 ? 0 : min_u32(d->start_row, (uint32_t)count) - 1;
    const nb_line *s = &nb->lines[first];
    uint32_t start_col = d->start_row > count ? end_column(nb, s) : min_u32(d->start_col, end_column(nb, s));
    size_t last = d->end_row == 0 ? 0 : min_u32(d->end_row, (uint32_t)count) - 1;
    uint32_t end_col = d->end_row > count ? UINT32_MAX : d->end_col;
    if (last < first || nb->lines[last].cell != s->cell) {
        /* a span that runs into the next cell (an unclosed bracket) ends with its own cell */
        for (last = first; last + 1 < count && nb->lines[last + 1].cell == s->cell;)
            last++;
        end_col = UINT32_MAX;
    }
    const nb_line *e = &nb->lines[last];
    end_col = min_u32(end_col, end_column(nb, e));
    if (last == first && end_col < start_col)
        end_col = start_col;
    d->cell = s->cell;
    d->start_row = s->row;
    d->start_col = start_col;
    d->end_row = e->row;
    d->end_col = end_col;
    d->file_start_row = s->file_row;
    d->file_end_row = e->file_row;
    free(d->context);
    d->context = written_context(nb, first, last);
}

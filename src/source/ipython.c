/* source/ipython: masking IPython syntax in one notebook cell. IPython
 * rewrites these constructs line by line before Python sees the cell; so
 * does this, keeping each line where it was so that a finding in the cell
 * maps back to its row and column without a table of shifts. */
#include "oomlint/ipython.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *text;
    size_t len; /* without the \n */
} cell_line;

/* Just enough of Python's tokenizer to know whether a line starts a new
 * statement: IPython only transforms a line that does, so a `!` or `%` at
 * the start of a line inside a triple-quoted string or an open bracket is
 * Python, not IPython. */
typedef struct {
    char quote;     /* the quote character of the open string; 0 outside strings */
    bool triple;    /* the open string is triple-quoted */
    int depth;      /* open brackets */
    bool continued; /* the last line ended in a backslash outside a string */
} py_lexer;

typedef struct {
    py_lexer lex;
    bool escape_continues; /* the last masked IPython line ended in a backslash */
} masker;

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\f';
}

static bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (unsigned char)c >= 0x80;
}

static size_t indent_of(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && is_blank(s[i]))
        i++;
    return i;
}

static bool ends_in_backslash(const char *s, size_t len)
{
    return len > 0 && s[len - 1] == '\\';
}

static bool starts_statement(const py_lexer *lex)
{
    return !lex->quote && lex->depth == 0 && !lex->continued;
}

static bool closes_string(const py_lexer *lex, const char *s, size_t len, size_t i)
{
    if (s[i] != lex->quote)
        return false;
    return !lex->triple || (i + 2 < len && s[i + 1] == s[i] && s[i + 2] == s[i]);
}

/* Carries the lexer over one line of Python. */
static void lex_line(py_lexer *lex, const char *s, size_t len)
{
    bool newline_escaped = false;
    lex->continued = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (lex->quote) {
            if (c == '\\') {
                newline_escaped = i + 1 == len;
                i++;
            } else if (closes_string(lex, s, len, i)) {
                i += lex->triple ? 2 : 0;
                lex->quote = 0;
            }
            continue;
        }
        if (c == '#')
            break;
        if (c == '\\' && i + 1 == len) {
            lex->continued = true;
        } else if (c == '"' || c == '\'') {
            lex->triple = i + 2 < len && s[i + 1] == c && s[i + 2] == c;
            lex->quote = c;
            i += lex->triple ? 2 : 0;
        } else if (c == '(' || c == '[' || c == '{') {
            lex->depth++;
        } else if ((c == ')' || c == ']' || c == '}') && lex->depth > 0) {
            lex->depth--;
        }
    }
    /* an unterminated one-line string ends with its line (the parser reports it) */
    if (lex->quote && !lex->triple && !newline_escaped)
        lex->quote = 0;
}

/* ---- the cell magic -------------------------------------------------------- */

typedef enum {
    NO_CELL_MAGIC,
    PYTHON_CELL_MAGIC,  /* %%time and the like: the body is Python */
    FOREIGN_CELL_MAGIC, /* %%bash, %%writefile, %%html ...: the body is not */
} cell_magic;

/* Cell magics whose body runs as Python in the kernel, as Ruff lints them. */
static const char *const python_cell_magics[] = {"time", "timeit", "capture", "prun", "debug", "python", "python3"};

static bool is_python_cell_magic(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof python_cell_magics / sizeof *python_cell_magics; i++)
        if (strlen(python_cell_magics[i]) == len && memcmp(python_cell_magics[i], name, len) == 0)
            return true;
    return false;
}

/* The cell magic on the cell's first line that is neither blank nor a
 * comment (Ruff's reading; IPython itself wants it first), and that line. */
static cell_magic find_cell_magic(const cell_line *lines, size_t n, size_t *at)
{
    for (size_t i = 0; i < n; i++) {
        size_t ind = indent_of(lines[i].text, lines[i].len);
        const char *t = lines[i].text + ind;
        size_t len = lines[i].len - ind;
        if (len == 0 || t[0] == '#')
            continue;
        if (len < 2 || t[0] != '%' || t[1] != '%')
            return NO_CELL_MAGIC;
        size_t end = 2;
        while (end < len && !is_blank(t[end]))
            end++;
        *at = i;
        return is_python_cell_magic(t + 2, end - 2) ? PYTHON_CELL_MAGIC : FOREIGN_CELL_MAGIC;
    }
    return NO_CELL_MAGIC;
}

/* ---- line-level IPython syntax ---------------------------------------------- */

/* The characters that make a line IPython's when they start it: magic,
 * shell, help, and the autocall escapes. None can start a Python statement. */
static bool is_escape_char(char c)
{
    return c == '%' || c == '!' || c == '?' || c == '/' || c == ',' || c == ';';
}

/* `pass` where the IPython text began; the line keeps its length where the
 * text is longer than the placeholder. */
static void put_placeholder(oom_buf *out, const char *s, size_t len, size_t at, const char *placeholder)
{
    oom_buf_append(out, s, at);
    oom_buf_puts(out, placeholder);
    for (size_t k = at + strlen(placeholder); k < len; k++)
        oom_buf_putc(out, ' ');
}

/* `obj?`, `obj.attr??`, `np.*load*?`: a help request, the whole line. */
static bool is_help_request(const char *s, size_t len, size_t ind)
{
    size_t end = len;
    while (end > ind && is_blank(s[end - 1]))
        end--;
    size_t name_end = end;
    while (name_end > ind && s[name_end - 1] == '?')
        name_end--;
    if (name_end == end || end - name_end > 2 || name_end == ind)
        return false;
    for (size_t i = ind; i < name_end; i++)
        if (!is_word_char(s[i]) && s[i] != '.' && s[i] != '*' && s[i] != '[' && s[i] != ']')
            return false;
    return true;
}

static bool is_target_char(char c)
{
    return is_word_char(c) || is_blank(c) || c == '.' || c == ',' || c == '[' || c == ']' || c == '(' ||
           c == ')' || c == '*';
}

/* IPython's line magics and shell aliases, which automagic (on in Jupyter)
 * runs without their `%`: `pip install torch` is `%pip install torch`. */
static const char *const automagic_names[] = {
    "aimport", "alias", "alias_magic", "autoawait", "autocall", "automagic", "autoreload", "autosave",
    "bookmark", "cat", "cd", "clear", "colors", "conda", "config", "connect_info", "cp", "debug", "dhist",
    "dirs", "doctest_mode", "ed", "edit", "env", "gui", "hist", "history", "killbgscripts", "ldir", "less",
    "lf", "lk", "ll", "load", "load_ext", "loadpy", "logoff", "logon", "logstart", "logstate", "logstop", "ls",
    "lsmagic", "lx", "macro", "magic", "mamba", "man", "matplotlib", "micromamba", "mkdir", "more", "mv",
    "notebook", "page", "pastebin", "pdb", "pdef", "pdoc", "pfile", "pinfo", "pinfo2", "pip", "popd",
    "pprint", "precision", "prun", "psearch", "psource", "pushd", "pwd", "pycat", "pylab", "qtconsole",
    "quickref", "recall", "rehashx", "reload_ext", "rep", "rerun", "reset", "reset_selective", "rm", "rmdir",
    "run", "save", "sc", "set_env", "store", "sx", "system", "tb", "time", "timeit", "unalias", "unload_ext",
    "uv", "who", "who_ls", "whos", "xdel", "xmode"};

/* Words that may follow a name in a Python expression statement. */
static const char *const python_infix_words[] = {"and", "or", "not", "in", "is", "if", "else"};

static bool word_in(const char *w, size_t len, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == len && memcmp(list[i], w, len) == 0)
            return true;
    return false;
}

/* `pip install torch`, `cd ../data`, `matplotlib inline`: a magic's name, a
 * blank, then what cannot follow a name in Python (a word that is not an
 * operator, a string, `~`, `$`, `{`, `..`). A line that could be Python
 * (`time - start`, `cd (x)`) is left to Python: IPython also runs it as
 * Python when the name is one of the notebook's variables, which only the
 * kernel knows. */
static bool is_automagic(const char *s, size_t len, size_t ind)
{
    size_t end = ind;
    while (end < len && is_word_char(s[end]))
        end++;
    if (end == ind || end >= len || !is_blank(s[end]) ||
        !word_in(s + ind, end - ind, automagic_names, sizeof automagic_names / sizeof *automagic_names))
        return false;
    size_t rest = end;
    while (rest < len && is_blank(s[rest]))
        rest++;
    if (rest >= len)
        return false;
    char c = s[rest];
    if (c == '\'' || c == '"' || c == '~' || c == '$' || c == '{' ||
        (c == '.' && rest + 1 < len && s[rest + 1] == '.'))
        return true;
    if (!is_word_char(c))
        return false;
    size_t word_end = rest;
    while (word_end < len && is_word_char(s[word_end]))
        word_end++;
    return !word_in(s + rest, word_end - rest, python_infix_words,
                    sizeof python_infix_words / sizeof *python_infix_words);
}

/* `files = !ls`, `names = %who_ls`: where the IPython right side starts. */
static bool magic_assignment(const char *s, size_t len, size_t ind, size_t *rhs)
{
    size_t i = ind;
    while (i < len && is_target_char(s[i]))
        i++;
    if (i == ind || i >= len || s[i] != '=' || (i + 1 < len && s[i + 1] == '='))
        return false;
    i++;
    while (i < len && is_blank(s[i]))
        i++;
    if (i >= len || (s[i] != '!' && s[i] != '%') || (i + 1 < len && s[i + 1] == '='))
        return false;
    *rhs = i;
    return true;
}

static bool is_identifier(const char *s, size_t len)
{
    if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < len; i++)
        if (!is_word_char(s[i]) || (unsigned char)s[i] >= 0x80)
            return false;
    return true;
}

typedef struct {
    size_t name, name_end;   /* the variable */
    size_t value, value_end; /* its new value */
    size_t comment;          /* a trailing `# comment`, or the line's length */
} env_assignment;

/* IPython's reading of `%env` and `%set_env` arguments: `NAME=VALUE` (split
 * at the first `=`) or `NAME VALUE`; one word alone reads the variable. */
static bool parse_env_arguments(const char *s, size_t len, size_t from, env_assignment *a)
{
    a->comment = len;
    for (size_t j = from; j < len; j++)
        if (s[j] == '#' && is_blank(s[j - 1])) {
            a->comment = j;
            break;
        }
    size_t b = from, e = a->comment;
    while (b < e && is_blank(s[b]))
        b++;
    while (e > b && is_blank(s[e - 1]))
        e--;
    const char *eq = memchr(s + b, '=', e - b);
    a->name = b;
    if (eq) {
        a->name_end = (size_t)(eq - s);
        a->value = a->name_end + 1;
    } else {
        a->name_end = b;
        while (a->name_end < e && !is_blank(s[a->name_end]))
            a->name_end++;
        if (a->name_end == e)
            return false;
        a->value = a->name_end;
    }
    a->value_end = e;
    while (a->name_end > a->name && is_blank(s[a->name_end - 1]))
        a->name_end--;
    while (a->value < a->value_end && is_blank(s[a->value]))
        a->value++;
    return is_identifier(s + a->name, a->name_end - a->name);
}

/* `%env CUDA_VISIBLE_DEVICES=0` as the Python it amounts to. A value with
 * `$name` or `{expr}` is expanded by IPython at run time: not a constant,
 * so it is masked like any magic. */
static bool rewrite_env_magic(const char *s, size_t len, size_t ind, oom_buf *out)
{
    size_t i = ind + 1, word = i;
    while (word < len && is_word_char(s[word]))
        word++;
    bool env = (word - i == 3 && memcmp(s + i, "env", 3) == 0) ||
               (word - i == 7 && memcmp(s + i, "set_env", 7) == 0);
    if (!env || word >= len || !is_blank(s[word]))
        return false;
    env_assignment a;
    if (!parse_env_arguments(s, len, word, &a))
        return false;
    size_t value_len = a.value_end - a.value;
    if (memchr(s + a.value, '$', value_len) || memchr(s + a.value, '{', value_len))
        return false;
    oom_buf_append(out, s, ind);
    oom_buf_puts(out, "os.environ[\"");
    oom_buf_append(out, s + a.name, a.name_end - a.name);
    oom_buf_puts(out, "\"] = \"");
    for (size_t k = a.value; k < a.value_end; k++) {
        if (s[k] == '\\' || s[k] == '"')
            oom_buf_putc(out, '\\');
        oom_buf_putc(out, s[k]);
    }
    oom_buf_putc(out, '"');
    if (a.comment < len) {
        oom_buf_puts(out, "  ");
        oom_buf_append(out, s + a.comment, len - a.comment);
    }
    return true;
}

/* Writes the masked form of a line that starts a statement, without its
 * newline, when the line is IPython's; false when it is Python. */
static bool mask_ipython_line(const char *s, size_t len, oom_buf *out)
{
    size_t ind = indent_of(s, len);
    if (ind == len)
        return false;
    if (s[ind] == '%' && rewrite_env_magic(s, len, ind, out))
        return true;
    if (is_escape_char(s[ind]) || is_help_request(s, len, ind) || is_automagic(s, len, ind)) {
        put_placeholder(out, s, len, ind, "pass");
        return true;
    }
    size_t rhs;
    if (magic_assignment(s, len, ind, &rhs)) {
        put_placeholder(out, s, len, rhs, "get_ipython()");
        return true;
    }
    return false;
}

static void mask_line(masker *m, const char *s, size_t len, oom_buf *out)
{
    if (m->escape_continues) {
        /* IPython joins backslash-continued lines into the magic or command */
        m->escape_continues = ends_in_backslash(s, len);
    } else if (starts_statement(&m->lex) && mask_ipython_line(s, len, out)) {
        m->escape_continues = ends_in_backslash(s, len);
    } else {
        oom_buf_append(out, s, len);
        lex_line(&m->lex, s, len);
    }
    oom_buf_putc(out, '\n');
}

static size_t split_lines(const char *cell, size_t len, cell_line **out)
{
    size_t n = 0, cap = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && cell[i] != '\n')
            continue;
        if (i == len && start == len)
            break; /* no text after the last newline: no further line */
        cell_line l = {cell + start, i - start};
        OOM_PUSH(*out, n, cap, l);
        start = i + 1;
    }
    return n;
}

void oom_ipython_mask_cell(const char *cell, size_t len, oom_buf *out)
{
    cell_line *lines = NULL;
    size_t n = split_lines(cell, len, &lines);
    size_t magic_at = 0;
    cell_magic magic = find_cell_magic(lines, n, &magic_at);
    masker m;
    memset(&m, 0, sizeof m);
    for (size_t i = 0; i < n; i++) {
        if (magic == FOREIGN_CELL_MAGIC || (magic == PYTHON_CELL_MAGIC && i == magic_at))
            oom_buf_putc(out, '\n');
        else
            mask_line(&m, lines[i].text, lines[i].len, out);
    }
    free(lines);
}

/* estimate/shell: the launch line of a shell script (`oomlint estimate
 * scripts/train.sh`), read as text: lines joined at `\`, comments and here-
 * documents skipped, words split and unquoted as sh does, and the variables
 * the script sets itself (`MODEL=gpt2`, `export BS=8`, `${BS:-8}`)
 * substituted in order. Nothing is run: `$(nproc)`, `$1` and variables the
 * script does not set stay unresolved, and say so. Loops and conditionals
 * are read through once (a `for` takes its first value), with a note. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "oomlint/launch.h"
#include "oomlint/source.h"

typedef struct {
    char *name, *value;
    unsigned line;
    const char *block; /* "if", "for", "while", "case" it was set in; NULL at top level */
    bool loop_var;     /* set by `for NAME in ...` */
} shell_var;

typedef enum { TOK_WORD, TOK_SEP } tok_kind;

typedef struct {
    tok_kind kind;
    oom_launch_word w;
    bool assignment; /* NAME=value, unquoted name */
} token;

typedef struct {
    const char *path;
    shell_var *vars;
    size_t var_count, var_cap;
    const char *blocks[64]; /* the open if / for / while / case, innermost last */
    unsigned block_lines[64];
    int depth;
    char *cd; /* the last top-level `cd DIR` before the launch line */
    /* the launch line chosen so far */
    oom_launch_word *best;
    size_t best_n;
    int best_rank;
    unsigned best_line;
    int launch_lines;
    oom_strlist best_notes, notes; /* notes of the chosen line; of the line being read */
    char *best_cd;
    oom_est_words_reader read_words; /* the chosen line's words into the launch */
} shell;

static bool name_char(char c, bool first)
{
    return c == '_' || isalpha((unsigned char)c) || (!first && isdigit((unsigned char)c));
}

static const shell_var *lookup(const shell *sh, const char *name, size_t len)
{
    for (size_t i = sh->var_count; i-- > 0;)
        if (strlen(sh->vars[i].name) == len && memcmp(sh->vars[i].name, name, len) == 0)
            return &sh->vars[i];
    return NULL;
}

#define MAX_BLOCKS ((int)(sizeof ((shell *)0)->blocks / sizeof *((shell *)0)->blocks))

/* The blocks recorded: the innermost MAX_BLOCKS of a deeper nesting are not. */
static int recorded_blocks(const shell *sh)
{
    return sh->depth < MAX_BLOCKS ? sh->depth : MAX_BLOCKS;
}

static void set_var(shell *sh, const char *name, size_t len, const char *value, unsigned line)
{
    int blocks = recorded_blocks(sh);
    shell_var v = {oom_xstrndup(name, len), oom_xstrdup(value), line,
                   sh->depth > 0 ? (blocks > 0 ? sh->blocks[blocks - 1] : "nested") : NULL, false};
    OOM_PUSH(sh->vars, sh->var_count, sh->var_cap, v);
}

/* ---- words ---------------------------------------------------------------------- */

typedef struct {
    shell *sh;
    const char *s;     /* the logical line */
    const unsigned *line_of; /* the file's line of each byte */
    size_t i, n;
    oom_buf text;
    char *unresolved;
    bool conditional; /* a variable set in a block went into the word */
    bool unterminated; /* a quote or $( the line does not close */
} lexer;

static void unresolved(lexer *lx, const char *what, size_t len)
{
    if (!lx->unresolved)
        lx->unresolved = oom_xstrndup(what, len);
}

/* A variable's value where the script sets it; a note when it was set inside
 * a block, since a run may not pass there. */
static void substitute(lexer *lx, const char *name, size_t len, const char *fallback, size_t fallback_len,
                       const char *written, size_t written_len)
{
    const shell_var *v = lookup(lx->sh, name, len);
    if (v && v->value[0]) {
        oom_buf_puts(&lx->text, v->value);
        lx->conditional |= v->block != NULL;
        if (v->block) {
            oom_buf note;
            oom_buf_init(&note);
            if (v->loop_var)
                oom_buf_printf(&note, "%s:%u: %.*s takes the values of a for loop; the first (%s) is used",
                               lx->sh->path, v->line, (int)len, name, v->value);
            else
                oom_buf_printf(&note, "%s:%u: %.*s is set inside a%s %s block; that value (%s) is used",
                               lx->sh->path, v->line, (int)len, name, v->block[0] == 'i' ? "n" : "", v->block,
                               v->value);
            if (!oom_strlist_contains(&lx->sh->notes, note.data))
                oom_strlist_push(&lx->sh->notes, note.data);
            oom_buf_free(&note);
        }
        return;
    }
    if (fallback) {
        oom_buf_append(&lx->text, fallback, fallback_len);
        return;
    }
    oom_buf_append(&lx->text, written, written_len);
    unresolved(lx, written, written_len);
}

/* `$(...)`, `$((...))`, `` `...` ``: skipped to their end, left unresolved. */
static void skip_command_substitution(lexer *lx, char open, char close)
{
    size_t start = lx->i;
    int depth = 0;
    for (; lx->i < lx->n; lx->i++) {
        char c = lx->s[lx->i];
        if (c == open && (open != close || lx->i == start))
            depth++;
        else if (c == close && --depth <= 0 && (open != close || lx->i > start)) {
            lx->i++;
            break;
        }
    }
    if (depth > 0 || (open == close && lx->i == lx->n && lx->s[lx->n - 1] != close))
        lx->unterminated = true;
    size_t from = open == '`' ? start : start - 1; /* keep the $ */
    oom_buf_append(&lx->text, lx->s + from, lx->i - from);
    unresolved(lx, lx->s + from, lx->i - from);
}

/* After a `$`: a variable, a positional parameter, `${...}`, or `$(...)`. */
static void expand(lexer *lx)
{
    size_t dollar = lx->i++;
    const char *s = lx->s;
    if (lx->i < lx->n && s[lx->i] == '(') {
        skip_command_substitution(lx, '(', ')');
        return;
    }
    if (lx->i < lx->n && s[lx->i] == '{') {
        size_t close = lx->i;
        while (close < lx->n && s[close] != '}')
            close++;
        size_t name = lx->i + 1, end = name;
        while (end < close && (name_char(s[end], end == name) || isdigit((unsigned char)s[end])))
            end++;
        const char *fallback = NULL;
        size_t fallback_len = 0;
        /* ${V:-default}, ${V-default}, ${V:=default}: the default where the script sets no V */
        if (end + 1 < close && (s[end] == ':' || s[end] == '-')) {
            size_t op = s[end] == ':' ? end + 1 : end;
            if (s[op] == '-' || s[op] == '=') {
                fallback = s + op + 1;
                fallback_len = close - op - 1;
            }
        }
        size_t written_end = close < lx->n ? close + 1 : close;
        substitute(lx, s + name, end - name, fallback, fallback_len, s + dollar, written_end - dollar);
        lx->i = written_end;
        return;
    }
    size_t name = lx->i;
    if (lx->i < lx->n && isdigit((unsigned char)s[lx->i])) {
        lx->i++; /* $1: the script's argument, when `bash train.sh ARGS` gives it */
        substitute(lx, s + name, 1, NULL, 0, s + dollar, lx->i - dollar);
        return;
    }
    if (lx->i < lx->n && strchr("@*#?$!-", s[lx->i])) {
        lx->i++; /* $@, $#: unknown here */
        oom_buf_append(&lx->text, s + dollar, lx->i - dollar);
        unresolved(lx, s + dollar, lx->i - dollar);
        return;
    }
    while (lx->i < lx->n && name_char(s[lx->i], lx->i == name))
        lx->i++;
    if (lx->i == name) {
        oom_buf_putc(&lx->text, '$');
        return;
    }
    substitute(lx, s + name, lx->i - name, NULL, 0, s + dollar, lx->i - dollar);
}

/* `$NAME` or `${...}`, a command substitution, or one plain character:
 * what unquoted and double-quoted text alike do with them. */
static void expand_or_copy(lexer *lx, char c)
{
    if (c == '$') {
        expand(lx);
    } else if (c == '`') {
        skip_command_substitution(lx, '`', '`');
    } else {
        oom_buf_putc(&lx->text, c);
        lx->i++;
    }
}

static void double_quoted(lexer *lx)
{
    lx->i++;
    while (lx->i < lx->n && lx->s[lx->i] != '"') {
        char c = lx->s[lx->i];
        if (c == '\\' && lx->i + 1 < lx->n && strchr("\"\\$`", lx->s[lx->i + 1])) {
            oom_buf_putc(&lx->text, lx->s[lx->i + 1]);
            lx->i += 2;
        } else {
            expand_or_copy(lx, c);
        }
    }
    if (lx->i < lx->n)
        lx->i++;
    else
        lx->unterminated = true;
}

static bool is_separator(char c)
{
    return c == ';' || c == '&' || c == '|' || c == '(' || c == ')';
}

/* Whether a word is NAME=..., with the name unquoted. */
static bool looks_like_assignment(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && name_char(s[i], i == 0))
        i++;
    return i > 0 && i < n && s[i] == '=';
}

/* One word from lx->i, quotes removed and variables substituted. */
static token next_word(lexer *lx)
{
    token t;
    memset(&t, 0, sizeof t);
    t.kind = TOK_WORD;
    t.w.line = lx->line_of[lx->i];
    t.assignment = looks_like_assignment(lx->s + lx->i, lx->n - lx->i);
    oom_buf_clear(&lx->text);
    lx->unresolved = NULL;
    lx->conditional = false;
    while (lx->i < lx->n) {
        char c = lx->s[lx->i];
        if (isspace((unsigned char)c) || is_separator(c) || c == '<' || c == '>')
            break;
        if (c == '\'') {
            size_t end = lx->i + 1;
            while (end < lx->n && lx->s[end] != '\'')
                end++;
            oom_buf_append(&lx->text, lx->s + lx->i + 1, end - lx->i - 1);
            lx->unterminated |= end >= lx->n;
            lx->i = end < lx->n ? end + 1 : end;
        } else if (c == '"') {
            double_quoted(lx);
        } else if (c == '\\' && lx->i + 1 < lx->n) {
            oom_buf_putc(&lx->text, lx->s[lx->i + 1]);
            lx->i += 2;
        } else {
            expand_or_copy(lx, c);
        }
    }
    t.w.text = oom_xstrdup(lx->text.data ? lx->text.data : "");
    t.w.unresolved = lx->unresolved;
    t.w.conditional = lx->conditional;
    return t;
}

/* `>file`, `2>&1`, `>> log`: dropped with their target. */
static void skip_redirection(lexer *lx)
{
    while (lx->i < lx->n && (lx->s[lx->i] == '<' || lx->s[lx->i] == '>' || lx->s[lx->i] == '&'))
        lx->i++;
    while (lx->i < lx->n && isspace((unsigned char)lx->s[lx->i]))
        lx->i++;
    token target = next_word(lx);
    free(target.w.text);
    free(target.w.unresolved);
}

/* The tokens of a logical line: words and separators (; && || | & ( )). */
static token *tokenize(shell *sh, const char *s, size_t n, const unsigned *line_of, size_t *count)
{
    lexer lx = {sh, s, line_of, 0, n, {0}, NULL, false, false};
    oom_buf_init(&lx.text);
    token *toks = NULL;
    size_t len = 0, cap = 0;
    while (lx.i < lx.n) {
        char c = s[lx.i];
        if (isspace((unsigned char)c)) {
            lx.i++;
        } else if (c == '#') {
            break; /* a comment, to the end of the line */
        } else if (c == '<' || c == '>' || (isdigit((unsigned char)c) && lx.i + 1 < n && s[lx.i + 1] == '>') ||
                   (c == '&' && lx.i + 1 < n && s[lx.i + 1] == '>')) {
            if (isdigit((unsigned char)c))
                lx.i++;
            skip_redirection(&lx);
        } else if (is_separator(c)) {
            token t;
            memset(&t, 0, sizeof t);
            t.kind = TOK_SEP;
            if (c == '(' || c == ')')
                lx.i++;
            else
                while (lx.i < lx.n && (s[lx.i] == ';' || s[lx.i] == '&' || s[lx.i] == '|'))
                    lx.i++;
            OOM_PUSH(toks, len, cap, t);
        } else {
            OOM_PUSH(toks, len, cap, next_word(&lx));
        }
    }
    if (lx.unterminated) {
        char note[256];
        oom_est_printf(note, sizeof note, "%s:%u: a quote or $( is not closed on its line; read to the line's end",
                       sh->path, n ? line_of[0] : 0);
        oom_strlist_push(&sh->notes, note);
    }
    oom_buf_free(&lx.text);
    *count = len;
    return toks;
}

static void free_tokens(token *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(t[i].w.text);
        free(t[i].w.unresolved);
    }
    free(t);
}

/* ---- commands ----------------------------------------------------------------------- */

static bool word_is(const token *t, const char *s)
{
    return t->kind == TOK_WORD && strcmp(t->w.text, s) == 0;
}

/* How much a command looks like the training job: a distributed launcher
 * most, then python running a .py file; 0 for anything else (pip, a
 * `python -c`, a data-preparation module). */
static int launch_rank(const token *t, size_t n)
{
    if (n == 0)
        return 0;
    const char *first = t[0].w.text;
    const char *base = strrchr(first, '/');
    base = base ? base + 1 : first;
    if (strcmp(base, "torchrun") == 0 || strcmp(base, "deepspeed") == 0 || strcmp(base, "accelerate-launch") == 0 ||
        (strcmp(base, "accelerate") == 0 && n > 1 && word_is(&t[1], "launch")))
        return 3;
    if (strncmp(base, "python", 6) != 0)
        return oom_str_ends_with(base, ".py") ? 1 : 0;
    for (size_t i = 1; i < n; i++) {
        const char *w = t[i].w.text;
        if (strcmp(w, "-m") == 0 && i + 1 < n)
            return strncmp(t[i + 1].w.text, "torch.distributed.", 18) == 0 ? 3 : 1;
        if (strcmp(w, "-c") == 0)
            return 0;
        if (w[0] != '-')
            return oom_str_ends_with(w, ".py") ? 2 : 0;
    }
    return 0;
}

static void keep_if_best(shell *sh, token *t, size_t n)
{
    int rank = launch_rank(t, n);
    if (rank == 0)
        return;
    sh->launch_lines++;
    char where[64] = "";
    if (sh->depth > 0)
        oom_est_printf(where, sizeof where, "%s:%u", sh->path, t[0].w.line);
    if (rank <= sh->best_rank)
        return;
    for (size_t i = 0; i < sh->best_n; i++) {
        free(sh->best[i].text);
        free(sh->best[i].unresolved);
    }
    free(sh->best);
    sh->best = oom_xcalloc(n, sizeof *sh->best);
    for (size_t i = 0; i < n; i++) {
        sh->best[i] = t[i].w;
        sh->best[i].index = (unsigned)i + 1;
        t[i].w.text = NULL, t[i].w.unresolved = NULL; /* moved */
    }
    sh->best_n = n;
    sh->best_rank = rank;
    sh->best_line = sh->best[0].line;
    oom_strlist_free(&sh->best_notes);
    for (size_t i = 0; i < sh->notes.len; i++)
        oom_strlist_push(&sh->best_notes, sh->notes.items[i]);
    for (int d = 0; d < recorded_blocks(sh); d++) {
        oom_buf note;
        oom_buf_init(&note);
        oom_buf_printf(&note, "%s: the launch line is inside the %s block of line %u; read as if it ran once",
                       where, sh->blocks[d], sh->block_lines[d]);
        oom_strlist_push(&sh->best_notes, note.data);
        oom_buf_free(&note);
    }
    free(sh->best_cd);
    sh->best_cd = sh->cd ? oom_xstrdup(sh->cd) : NULL;
}

static void open_block(shell *sh, const char *kind, unsigned line)
{
    if (sh->depth < MAX_BLOCKS) {
        sh->blocks[sh->depth] = kind;
        sh->block_lines[sh->depth] = line;
    }
    sh->depth++;
}

/* `for VAR in a b c; do`: VAR takes its first value. */
static void read_for(shell *sh, token *t, size_t n)
{
    open_block(sh, "for", t[0].w.line);
    if (n >= 4 && word_is(&t[2], "in") && t[3].kind == TOK_WORD && !t[3].w.unresolved) {
        const char *name = t[1].w.text;
        set_var(sh, name, strlen(name), t[3].w.text, t[0].w.line);
        sh->vars[sh->var_count - 1].loop_var = true;
    }
}

/* One simple command: block keywords, assignments, `cd`, or a command
 * that may be the launch line. */
static void read_command(shell *sh, token *t, size_t n)
{
    while (n > 0 && (word_is(&t[0], "then") || word_is(&t[0], "do") || word_is(&t[0], "else") ||
                     word_is(&t[0], "{") || word_is(&t[0], "}") || word_is(&t[0], "!")))
        t++, n--;
    if (n == 0)
        return;
    if (word_is(&t[0], "if") || word_is(&t[0], "while") || word_is(&t[0], "until") || word_is(&t[0], "case")) {
        open_block(sh, t[0].w.text[0] == 'i' ? "if" : t[0].w.text[0] == 'c' ? "case" : "while", t[0].w.line);
        return;
    }
    if (word_is(&t[0], "elif"))
        return;
    if (word_is(&t[0], "for")) {
        read_for(sh, t, n);
        return;
    }
    if (word_is(&t[0], "fi") || word_is(&t[0], "done") || word_is(&t[0], "esac")) {
        if (sh->depth > 0)
            sh->depth--;
        return;
    }
    size_t first = 0;
    bool declares = word_is(&t[0], "export") || word_is(&t[0], "readonly") || word_is(&t[0], "declare") ||
                    word_is(&t[0], "local");
    if (declares)
        first = 1;
    while (first < n && t[first].kind == TOK_WORD && t[first].w.text[0] == '-' && declares)
        first++; /* declare -x */
    size_t k = first;
    for (; k < n && t[k].assignment; k++) {
        const char *eq = strchr(t[k].w.text, '=');
        if (eq && !t[k].w.unresolved)
            set_var(sh, t[k].w.text, (size_t)(eq - t[k].w.text), eq + 1, t[k].w.line);
    }
    if (k == n || declares)
        return; /* only assignments */
    /* `CUDA_VISIBLE_DEVICES=0 exec nohup torchrun ...`: the command after its prefixes */
    while (k < n && (word_is(&t[k], "exec") || word_is(&t[k], "nohup") || word_is(&t[k], "time") ||
                     word_is(&t[k], "command") || word_is(&t[k], "env") || t[k].assignment))
        k++;
    if (k < n && word_is(&t[k], "cd") && sh->depth == 0) {
        free(sh->cd);
        sh->cd = k + 1 < n && !t[k + 1].w.unresolved ? oom_xstrdup(t[k + 1].w.text) : NULL;
        return;
    }
    keep_if_best(sh, t + k, n - k);
}

/* The commands of a logical line, split at its separators. */
static void read_line(shell *sh, const char *s, size_t n, const unsigned *line_of)
{
    size_t count;
    token *toks = tokenize(sh, s, n, line_of, &count);
    size_t start = 0;
    for (size_t i = 0; i <= count; i++) {
        if (i < count && toks[i].kind != TOK_SEP)
            continue;
        if (i > start)
            read_command(sh, toks + start, i - start);
        start = i + 1;
    }
    free_tokens(toks, count);
}

/* `<<EOF` (or <<-'EOF'): the here-document's terminator, into `out`. */
static bool heredoc_terminator(const char *s, size_t n, char *out, size_t size)
{
    const char *p = NULL;
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '<' && s[i + 1] == '<' && (i + 2 >= n || s[i + 2] != '<')) {
            p = s + i + 2;
            break;
        }
    if (!p)
        return false;
    const char *end = s + n;
    while (p < end && (*p == '-' || *p == ' ' || *p == '\'' || *p == '"'))
        p++;
    size_t len = 0;
    while (p + len < end && name_char(p[len], false) && len + 1 < size)
        len++;
    memcpy(out, p, len);
    out[len] = '\0';
    return len > 0;
}

/* Walks the file: logical lines (a trailing `\` joins the next), here-
 * documents skipped. */
static void read_script_text(shell *sh, const char *text, size_t len)
{
    oom_buf logical;
    oom_buf_init(&logical);
    unsigned *line_of = NULL; /* the file's line of each byte of the logical line */
    size_t line_cap = 0;
    unsigned line = 1;
    char terminator[64] = "";
    size_t at = 0;
    while (at < len) {
        const char *eol = memchr(text + at, '\n', len - at);
        size_t n = eol ? (size_t)(eol - (text + at)) : len - at;
        const char *s = text + at;
        at += n + (eol ? 1 : 0);
        if (n > 0 && s[n - 1] == '\r')
            n--;
        if (terminator[0]) {
            size_t skip = 0;
            while (skip < n && s[skip] == '\t')
                skip++;
            if (n - skip == strlen(terminator) && memcmp(s + skip, terminator, n - skip) == 0)
                terminator[0] = '\0';
            line++;
            continue;
        }
        bool continues = n > 0 && s[n - 1] == '\\';
        size_t keep = n - (continues ? 1 : 0);
        oom_grow((void **)&line_of, &line_cap, logical.len + keep + 1, sizeof *line_of);
        for (size_t i = 0; i < keep; i++) {
            line_of[logical.len] = line;
            oom_buf_putc(&logical, s[i]);
        }
        line_of[logical.len] = line;
        line++;
        if (continues)
            continue;
        heredoc_terminator(logical.data ? logical.data : "", logical.len, terminator, sizeof terminator);
        read_line(sh, logical.data ? logical.data : "", logical.len, line_of);
        oom_strlist_free(&sh->notes);
        oom_buf_clear(&logical);
    }
    if (logical.len)
        read_line(sh, logical.data, logical.len, line_of);
    free(line_of);
    oom_buf_free(&logical);
}

static void shell_free(shell *sh)
{
    for (size_t i = 0; i < sh->var_count; i++) {
        free(sh->vars[i].name);
        free(sh->vars[i].value);
    }
    free(sh->vars);
    for (size_t i = 0; i < sh->best_n; i++) {
        free(sh->best[i].text);
        free(sh->best[i].unresolved);
    }
    free(sh->best);
    free(sh->cd);
    free(sh->best_cd);
    oom_strlist_free(&sh->best_notes);
    oom_strlist_free(&sh->notes);
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? oom_xstrndup(path, (size_t)(slash - path)) : oom_xstrdup(".");
}

/* The folders the launch line may run from, most likely first: where the
 * script `cd`s to, the current folder (`bash scripts/train.sh` from the
 * repository), the shell script's own folder. */
static void candidate_dirs(const shell *sh, const char *path, oom_strlist *dirs)
{
    if (sh->best_cd) {
        oom_strlist_push(dirs, sh->best_cd);
        char *own = dir_of(path);
        oom_buf b;
        oom_buf_init(&b);
        oom_buf_printf(&b, "%s/%s", own, sh->best_cd);
        if (sh->best_cd[0] != '/')
            oom_strlist_push(dirs, b.data);
        oom_buf_free(&b);
        free(own);
    }
    oom_strlist_push(dirs, ".");
    char *own = dir_of(path);
    if (!oom_strlist_contains(dirs, own))
        oom_strlist_push(dirs, own);
    free(own);
}

/* Reads the launch line from each candidate folder until its script is found
 * there; from the first when it is found nowhere. */
static bool read_launch(shell *sh, const char *path, oom_launch *out, oom_buf *err)
{
    oom_strlist dirs = {NULL, 0, 0};
    candidate_dirs(sh, path, &dirs);
    bool ok = false;
    for (size_t d = 0; d < dirs.len; d++) {
        oom_launch_free(out);
        out->file = oom_xstrdup(path);
        out->dir = oom_xstrdup(dirs.items[d]);
        ok = sh->read_words(out, sh->best, sh->best_n, err);
        if (!ok || out->script_exists || !out->script)
            break;
    }
    if (ok && out->script && !out->script_exists && dirs.len > 1) {
        oom_launch_free(out);
        out->file = oom_xstrdup(path);
        out->dir = oom_xstrdup(dirs.items[0]);
        ok = sh->read_words(out, sh->best, sh->best_n, err);
    }
    oom_strlist_free(&dirs);
    return ok;
}


bool oom_est_launch_from_shell_run(const char *path, int argc, const char *const *argv, oom_launch *out,
                                   oom_buf *err, oom_est_words_reader read_words)
{
    oom_launch_init(out);
    oom_source src;
    char why[256];
    if (oom_source_read(path, path, &src, why, sizeof why) != OOM_SOURCE_OK) {
        oom_buf_printf(err, "%s: %s", path, why);
        oom_source_free(&src);
        return false;
    }
    shell sh;
    memset(&sh, 0, sizeof sh);
    sh.read_words = read_words;
    sh.path = path;
    for (int i = 0; i < argc && i < 9; i++) { /* `bash train.sh gpt2 8`: $1, $2 */
        char name[2] = {(char)('1' + i), '\0'};
        set_var(&sh, name, 1, argv[i], 0);
    }
    read_script_text(&sh, src.text, src.len);
    oom_source_free(&src);
    if (sh.best_n == 0) {
        oom_buf_printf(err, "%s: no line runs python, torchrun, accelerate launch or deepspeed with a script", path);
        shell_free(&sh);
        return false;
    }
    bool ok = read_launch(&sh, path, out, err);
    if (ok) {
        oom_strlist notes = out->notes;
        memset(&out->notes, 0, sizeof out->notes);
        if (sh.launch_lines > 1)
            oom_est_launch_note(out, "%s: %d lines launch a job; line %u is read", path, sh.launch_lines,
                                sh.best_line);
        for (size_t i = 0; i < sh.best_notes.len; i++)
            oom_strlist_push(&out->notes, sh.best_notes.items[i]);
        for (size_t i = 0; i < notes.len; i++)
            oom_strlist_push(&out->notes, notes.items[i]);
        oom_strlist_free(&notes);
    }
    shell_free(&sh);
    return ok;
}

/* diffbase: changed lines from git. git runs with an argument vector (no
 * shell), so a ref or a path cannot inject a command. */
#include "oomlint/diffbase.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs git with `args`; its stdout goes to `out`. Returns git's exit status
 * (or -1 when it could not run). */
static int run_git(const char *const *args, oom_buf *out)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        FILE *devnull = freopen("/dev/null", "w", stderr);
        (void)devnull;
        execvp("git", (char *const *)args);
        _exit(127);
    }
    close(fds[1]);
    char chunk[8192];
    ssize_t n;
    while ((n = read(fds[0], chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            oom_buf_append(out, chunk, (size_t)n);
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    oom_buf_append(out, "", 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void chomp(oom_buf *b)
{
    while (b->len && (b->data[b->len - 1] == '\n' || b->data[b->len - 1] == '\r'))
        b->data[--b->len] = '\0';
}

static oom_changed_file *file_for(oom_changes *c, const char *rel)
{
    oom_buf p;
    oom_buf_init(&p);
    oom_buf_printf(&p, "%s/%s", c->root ? c->root : "", rel);
    for (size_t i = 0; i < c->file_count; i++)
        if (strcmp(c->files[i].path, p.data) == 0) {
            oom_buf_free(&p);
            return &c->files[i];
        }
    oom_changed_file f;
    memset(&f, 0, sizeof f);
    f.path = oom_buf_take(&p);
    OOM_PUSH(c->files, c->file_count, c->file_cap, f);
    return &c->files[c->file_count - 1];
}

/* git quotes unusual file names C-style: "a\tb\303\251". */
static char *unquote(const char *s, size_t len)
{
    if (len < 2 || s[0] != '"')
        return oom_xstrndup(s, len);
    oom_buf b;
    oom_buf_init(&b);
    for (size_t i = 1; i < len - 1; i++) {
        if (s[i] != '\\' || i + 1 >= len - 1) {
            oom_buf_putc(&b, s[i]);
            continue;
        }
        char e = s[++i];
        if (e >= '0' && e <= '7' && i + 2 < len - 1) {
            int v = (e - '0') * 64 + (s[i + 1] - '0') * 8 + (s[i + 2] - '0');
            oom_buf_putc(&b, (char)v);
            i += 2;
        } else {
            oom_buf_putc(&b, e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e);
        }
    }
    return oom_buf_take(&b);
}

static void add_range(oom_changed_file *f, uint32_t first, uint32_t last)
{
    OOM_PUSH(f->ranges, f->range_count, f->range_cap, first);
    OOM_PUSH(f->ranges, f->range_count, f->range_cap, last);
}

void oom_changes_parse_diff(oom_changes *c, const char *diff)
{
    oom_changed_file *current = NULL;
    const char *line = diff;
    while (line && *line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len > 6 && strncmp(line, "+++ ", 4) == 0) {
            current = NULL;
            if (strncmp(line + 4, "/dev/null", 9) != 0) {
                size_t name_len = len - 4;
                /* git ends the name with a tab when it contains a space */
                while (name_len > 0 && (line[4 + name_len - 1] == '\t' || line[4 + name_len - 1] == '\r'))
                    name_len--;
                char *name = unquote(line + 4, name_len);
                const char *rel = strncmp(name, "b/", 2) == 0 ? name + 2 : name;
                current = file_for(c, rel);
                free(name);
            }
        } else if (len > 2 && strncmp(line, "@@", 2) == 0 && current) {
            const char *plus = memchr(line, '+', len);
            if (plus) {
                unsigned long start = strtoul(plus + 1, NULL, 10), count = 1;
                const char *comma = plus + 1 + strspn(plus + 1, "0123456789");
                if (*comma == ',')
                    count = strtoul(comma + 1, NULL, 10);
                if (count > 0)
                    add_range(current, (uint32_t)start, (uint32_t)(start + count - 1));
            }
        }
        line = eol ? eol + 1 : NULL;
    }
}

static int fail(oom_buf *err, const char *why, const char *ref)
{
    oom_buf_clear(err);
    oom_buf_printf(err, why, ref);
    return -1;
}

int oom_changes_load(const char *ref, oom_changes *out, oom_buf *err)
{
    memset(out, 0, sizeof(*out));
    if (!ref[0] || ref[0] == '-')
        return fail(err, "--diff-base: '%s' is not a git ref", ref);
    oom_buf o;
    oom_buf_init(&o);
    const char *top[] = {"git", "rev-parse", "--show-toplevel", NULL};
    if (run_git(top, &o) != 0) {
        oom_buf_free(&o);
        return fail(err, "--diff-base %s: the current directory is not inside a git work tree", ref);
    }
    chomp(&o);
    out->root = oom_buf_take(&o);
    oom_buf_init(&o);
    oom_buf spec;
    oom_buf_init(&spec);
    oom_buf_printf(&spec, "%s^{commit}", ref);
    const char *verify[] = {"git", "rev-parse", "--verify", "--quiet", spec.data, NULL};
    int rc = run_git(verify, &o);
    oom_buf_free(&spec);
    if (rc != 0) {
        oom_buf_free(&o);
        return fail(err, "--diff-base: unknown git ref '%s'", ref);
    }
    oom_buf_clear(&o);
    const char *mb[] = {"git", "merge-base", ref, "HEAD", NULL};
    if (run_git(mb, &o) == 0)
        chomp(&o);
    else {
        oom_buf_clear(&o);
        oom_buf_puts(&o, ref);
    }
    char *base = oom_buf_take(&o);
    oom_buf_init(&o);
    /* Explicit prefixes and options: the user's git config (mnemonicPrefix,
     * noprefix, colour, external diff) must not change what we parse. */
    const char *diff[] = {"git", "-c", "core.quotepath=off", "diff", "--no-color", "--no-ext-diff",
                          "--no-relative", "--src-prefix=a/", "--dst-prefix=b/", "--unified=0", "-M",
                          base, "--", NULL};
    rc = run_git(diff, &o);
    free(base);
    if (rc != 0) {
        oom_buf_free(&o);
        return fail(err, "--diff-base %s: git diff failed", ref);
    }
    oom_changes_parse_diff(out, o.data);
    oom_buf_clear(&o);
    const char *untracked[] = {"git", "ls-files", "--others", "--exclude-standard", "-z", "--full-name", NULL};
    if (run_git(untracked, &o) == 0) {
        for (size_t i = 0; i < o.len;) {
            const char *name = o.data + i;
            size_t n = strlen(name);
            if (n)
                file_for(out, name)->whole = true;
            i += n + 1;
        }
    }
    oom_buf_free(&o);
    return 0;
}

bool oom_changes_covers(const oom_changes *c, const char *path, uint32_t line)
{
    char resolved[PATH_MAX];
    if (!realpath(path, resolved))
        return false;
    for (size_t i = 0; i < c->file_count; i++) {
        const oom_changed_file *f = &c->files[i];
        char fres[PATH_MAX];
        const char *fp = realpath(f->path, fres) ? fres : f->path;
        if (strcmp(fp, resolved) != 0)
            continue;
        if (f->whole)
            return true;
        for (size_t r = 0; r + 1 < f->range_count; r += 2)
            if (line >= f->ranges[r] && line <= f->ranges[r + 1])
                return true;
    }
    return false;
}

void oom_changes_free(oom_changes *c)
{
    for (size_t i = 0; i < c->file_count; i++) {
        free(c->files[i].path);
        free(c->files[i].ranges);
    }
    free(c->files);
    free(c->root);
    memset(c, 0, sizeof(*c));
}

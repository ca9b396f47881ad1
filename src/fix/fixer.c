/* fix/fixer: the rounds of fixing one file, and reading and writing it so
 * that nothing is lost: a file that would stop parsing is left as it is,
 * and one that changed on disk since it was read is not overwritten. */
#include "oomlint/fixer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oomlint/fix.h"
#include "oomlint/source.h"

/* ---- parsing ------------------------------------------------------------------------------- */

bool oom_fix_text_parses(oom_lang lang, const char *text, size_t len, char *where, size_t where_size)
{
    TSParser *parser = ts_parser_new();
    TSTree *tree;
    if (lang == OOM_LANG_PYTHON) {
        tree = oom_parse_python(parser, text, len);
    } else {
        ts_parser_set_language(parser, oom_lang_grammar(lang));
        tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)len);
    }
    bool ok = tree && !ts_node_has_error(ts_tree_root_node(tree));
    if (!ok && tree && where)
        snprintf(where, where_size, "line %u", ts_node_start_point(oom_first_error(ts_tree_root_node(tree))).row + 1);
    if (tree)
        ts_tree_delete(tree);
    ts_parser_delete(parser);
    return ok;
}

/* ---- rounds ----------------------------------------------------------------------------------- */

static void note_applied(oom_fix_result *out, const oom_diag *d)
{
    oom_applied_fix a = {oom_xstrdup(d->code), oom_xstrdup(d->name)};
    OOM_PUSH(out->applied, out->applied_count, out->applied_cap, a);
}

/* One round: lint `text`, apply what applies into `next`. Returns the
 * number of fixes applied, or -1 when the text cannot be linted. */
static long one_round(oom_linter *linter, const char *display, const oom_buf *text, oom_lang lang,
                      const oom_fix_policy *policy, oom_buf *next, oom_fix_result *out, bool dry, oom_fix_marks *marks)
{
    oom_source src;
    char why[256];
    if (oom_source_from_memory(display, text->data, text->len, &src, why, sizeof why) != OOM_SOURCE_OK) {
        oom_source_free(&src);
        return -1;
    }
    oom_diag_list diags = {NULL, 0, 0};
    oom_linter_run(linter, &src, lang, &diags);
    /* one fix per cause, as the check reports it: a cause one of whose
     * places has no fix is left whole */
    oom_diag_list_fold_causes(&diags);
    unsigned char *allow = oom_xcalloc(diags.len ? diags.len : 1, 1);
    unsigned char *applied = oom_xcalloc(diags.len ? diags.len : 1, 1);
    for (size_t i = 0; i < diags.len; i++)
        allow[i] = !policy->allow || policy->allow(policy->allow_ctx, &diags.items[i]);
    /* a dry round only asks: the marks stay where they are */
    size_t n = oom_fix_apply_marked(text->data, text->len, &diags, policy->max, allow, next, applied,
                                    dry ? NULL : marks);
    /* a fix that leaves the text as it was (a replacement by the same text)
     * would be made again every round: it is no fix */
    if (n > 0 && next->len == text->len && memcmp(next->data, text->data, text->len) == 0)
        n = 0;
    for (size_t i = 0; n > 0 && !dry && i < diags.len; i++)
        if (applied[i])
            note_applied(out, &diags.items[i]);
    free(allow);
    free(applied);
    oom_diag_list_free(&diags);
    oom_source_free(&src);
    return (long)n;
}

void oom_fix_text(oom_linter *linter, const char *display, const char *text, size_t len, oom_lang lang,
                  const oom_fix_policy *policy, oom_fix_result *out)
{
    oom_fix_text_marked(linter, display, text, len, lang, policy, out, NULL);
}

void oom_fix_text_marked(oom_linter *linter, const char *display, const char *text, size_t len, oom_lang lang,
                         const oom_fix_policy *policy, oom_fix_result *out, oom_fix_marks *marks)
{
    memset(out, 0, sizeof *out);
    out->converged = true;
    out->outcome = OOM_FIX_UNCHANGED;
    if (!oom_fix_text_parses(lang, text, len, NULL, 0)) {
        out->outcome = OOM_FIX_HAS_SYNTAX_ERROR;
        return;
    }
    oom_buf cur, next;
    oom_buf_init(&cur);
    oom_buf_init(&next);
    oom_buf_append(&cur, text, len);
    for (int round = 1; round <= OOM_FIX_MAX_ROUNDS + 1; round++) {
        /* the round after the last only asks whether anything would still apply */
        bool dry = round > OOM_FIX_MAX_ROUNDS;
        long n = one_round(linter, display, &cur, lang, policy, &next, out, dry, marks);
        if (n <= 0)
            break;
        if (dry) {
            out->converged = false;
            break;
        }
        out->rounds = round;
        oom_buf tmp = cur;
        cur = next;
        next = tmp;
    }
    if (out->rounds > 0) {
        if (oom_fix_text_parses(lang, cur.data, cur.len, out->detail, sizeof out->detail)) {
            out->outcome = OOM_FIX_CHANGED;
            out->len = cur.len;
            out->text = oom_buf_take(&cur);
        } else {
            out->outcome = OOM_FIX_BREAKS_SYNTAX;
        }
    }
    oom_buf_free(&cur);
    oom_buf_free(&next);
}

void oom_fix_result_free(oom_fix_result *r)
{
    free(r->text);
    for (size_t i = 0; i < r->applied_count; i++) {
        free(r->applied[i].code);
        free(r->applied[i].name);
    }
    free(r->applied);
    memset(r, 0, sizeof *r);
}

/* ---- the file on disk ---------------------------------------------------------------------------- */

/* The whole of a regular file, within the size limit. */
static int read_bytes(const char *path, size_t limit, oom_buf *out, unsigned *mode, oom_buf *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        oom_buf_printf(err, "%s: cannot read: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (size_t)st.st_size > limit) {
        oom_buf_printf(err, "%s: not a regular file within the size limit", path);
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    char chunk[65536];
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            oom_buf_printf(err, "%s: cannot read: %s", path, strerror(errno));
            rc = -1;
        }
        if (n <= 0)
            break;
        oom_buf_append(out, chunk, (size_t)n);
        if (out->len > limit) {
            oom_buf_printf(err, "%s: over the size limit", path);
            rc = -1;
            break;
        }
    }
    oom_buf_append(out, "", 0);
    *mode = (unsigned)st.st_mode;
    close(fd);
    return rc;
}

int oom_fix_file_read(const char *path, bool notebook, oom_fix_file *out, oom_buf *err)
{
    memset(out, 0, sizeof *out);
    oom_buf bytes;
    oom_buf_init(&bytes);
    if (read_bytes(path, notebook ? OOM_MAX_NOTEBOOK_BYTES : OOM_MAX_FILE_BYTES, &bytes, &out->mode, err) != 0) {
        oom_buf_free(&bytes);
        return -1;
    }
    /* the checks the linter made when it read the file (binary, not UTF-8) */
    oom_source src;
    char why[256];
    int rc = 0;
    if (!notebook && oom_source_from_memory(path, bytes.data, bytes.len, &src, why, sizeof why) != OOM_SOURCE_OK) {
        oom_buf_printf(err, "%s: %s", path, why);
        rc = -1;
    }
    if (!notebook)
        oom_source_free(&src);
    out->path = oom_xstrdup(path);
    out->len = bytes.len;
    out->bom = bytes.len >= 3 && memcmp(bytes.data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    out->bytes = oom_buf_take(&bytes);
    if (rc != 0)
        oom_fix_file_free(out);
    return rc;
}

void oom_fix_file_free(oom_fix_file *f)
{
    free(f->path);
    free(f->bytes);
    memset(f, 0, sizeof *f);
}

oom_fix_write_status oom_fix_file_write(const oom_fix_file *f, const char *text, size_t len, oom_buf *err)
{
    /* through a symbolic link, the file it names is replaced, not the link */
    char *target = realpath(f->path, NULL);
    if (!target) {
        oom_buf_printf(err, "%s: cannot write the file: %s", f->path, strerror(errno));
        return OOM_FIX_WRITE_FAILED;
    }
    oom_buf now;
    oom_buf_init(&now);
    unsigned mode = 0;
    oom_buf ignored;
    oom_buf_init(&ignored);
    bool same = read_bytes(target, OOM_MAX_NOTEBOOK_BYTES, &now, &mode, &ignored) == 0 && now.len == f->len &&
                memcmp(now.data, f->bytes, f->len) == 0;
    oom_buf_free(&ignored);
    oom_buf_free(&now);
    oom_fix_write_status status = OOM_FIX_CHANGED_ON_DISK;
    if (same) {
        oom_buf data;
        oom_buf_init(&data);
        oom_buf_append(&data, f->bytes, f->bom); /* the BOM the linter's text left out */
        oom_buf_append(&data, text, len);
        status = oom_replace_file_atomically(target, data.data, data.len, mode, err) == 0 ? OOM_FIX_WRITTEN
                                                                                          : OOM_FIX_WRITE_FAILED;
        oom_buf_free(&data);
    } else {
        oom_buf_printf(err, "%s: changed on disk while oomlint was fixing it; not written", f->path);
    }
    free(target);
    return status;
}

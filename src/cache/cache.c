/* cache/cache: the on-disk store of per-file results (oomlint/cache.h).
 *
 * One file per entry, named by its key, under a folder per oomlint version
 * (`.oomlint_cache/0.1.0/<32 hex digits>`), as Ruff splits its cache by
 * version: removing an old version's folder removes all it wrote. An entry
 * file is a header (magic, format, the key again, the payload's length and
 * hash) and the payload (cache/entry.c). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "oomlint/cache.h"
#include "oomlint/report.h"

#define MAGIC "oomlint-cache\0\0\0"
#define FORMAT 6u /* 2: the calls keep their module arguments, the facts the file's module classes; 3: a finding keeps its cause_scope; 4: a call keeps its caller; 5: a call keeps what it passes (keywords, positional count, splat); 6: the facts keep the file's differentiating classes */
#define HEADER_BYTES (16 + 4 + 4 + 16 + 8 + 8)

struct oom_cache {
    char *dir;            /* the version's folder, where entries go */
    oom_cache_key run;    /* the build and the run's settings */
    char cwd[4096];       /* relative paths, and the files they read, are relative to it */
    atomic_size_t hits, misses, written;
    atomic_bool writable; /* false after the first failed write: no point retrying each file */
    pthread_mutex_t lock; /* guards problem */
    char *problem;
};

static void note_problem(oom_cache *c, const char *fmt, const char *what, int err)
{
    pthread_mutex_lock(&c->lock);
    if (!c->problem) {
        oom_buf msg;
        oom_buf_init(&msg);
        oom_buf_printf(&msg, fmt, what, strerror(err));
        c->problem = oom_buf_take(&msg);
    }
    pthread_mutex_unlock(&c->lock);
    atomic_store(&c->writable, false);
}

/* mkdir -p; 0 when the folder is there at the end, whatever made it. */
static int make_dirs(const char *path)
{
    char *p = oom_xstrdup(path);
    int rc = 0;
    for (char *s = p + 1; rc == 0; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char keep = *s;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            rc = -1;
        *s = keep;
        if (!keep)
            break;
    }
    free(p);
    struct stat st;
    return rc == 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* Written once, when the cache folder is new: a CACHEDIR.TAG (backup tools
 * skip the folder) and a .gitignore of `*` (git never shows it). */
static void mark_cache_folder(const char *root)
{
    static const char tag[] = "Signature: 8a477f597d28d172789f06886806bc55\n"
                              "# This file is a cache directory tag created by oomlint.\n"
                              "# For information about cache directory tags see https://bford.info/cachedir/\n";
    const char *names[2] = {"CACHEDIR.TAG", ".gitignore"};
    const char *texts[2] = {tag, "# Automatically created by oomlint.\n*\n"};
    for (int i = 0; i < 2; i++) {
        oom_buf p;
        oom_buf_init(&p);
        oom_buf_printf(&p, "%s/%s", root, names[i]);
        int fd = open(p.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ssize_t n = write(fd, texts[i], strlen(texts[i]));
            (void)n; /* a missing tag costs nothing but tidiness */
            close(fd);
        }
        oom_buf_free(&p);
    }
}

oom_cache *oom_cache_open(const char *dir, const char *settings, size_t len)
{
    oom_cache *c = oom_xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    atomic_init(&c->writable, true);
    oom_buf d;
    oom_buf_init(&d);
    oom_buf_printf(&d, "%s/%s", dir, OOM_VERSION);
    c->dir = oom_buf_take(&d);
    if (!getcwd(c->cwd, sizeof c->cwd))
        c->cwd[0] = '\0';
    oom_buf material;
    oom_buf_init(&material);
    oom_cache_build_identity(&material);
    oom_buf_put_str(&material, c->cwd);
    oom_buf_put_u64(&material, len);
    oom_buf_append(&material, settings, len);
    c->run = oom_cache_key_of(material.data, material.len);
    oom_buf_free(&material);
    if (make_dirs(c->dir) != 0)
        note_problem(c, "cannot create the cache folder %s: %s", c->dir, errno);
    else
        mark_cache_folder(dir);
    return c;
}

void oom_cache_free(oom_cache *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->lock);
    free(c->problem);
    free(c->dir);
    free(c);
}

void oom_cache_describe_rules(const oom_rule_list *rules, oom_buf *out)
{
    for (size_t i = 0; i < rules->len; i++) {
        oom_buf_put_str(out, rules->items[i].code);
        oom_buf_put_u64(out, rules->items[i].source_hash);
    }
}

void oom_cache_counts(const oom_cache *c, size_t *hits, size_t *misses, size_t *written)
{
    *hits = atomic_load(&c->hits);
    *misses = atomic_load(&c->misses);
    *written = atomic_load(&c->written);
}

const char *oom_cache_problem(const oom_cache *c)
{
    return c->problem;
}

/* ---- one file ------------------------------------------------------------------- */

static oom_cache_key file_key(const oom_cache *c, const oom_cache_file *f, const oom_source *src)
{
    oom_buf m;
    oom_buf_init(&m);
    oom_buf_put_u64(&m, c->run.lo);
    oom_buf_put_u64(&m, c->run.hi);
    oom_buf_put_str(&m, f->path);
    oom_buf_put_str(&m, f->display);
    uint32_t v[3] = {(uint32_t)f->lang, f->report_syntax, f->facts};
    oom_buf_put_bytes(&m, v, sizeof v);
    oom_cache_key text = oom_cache_key_of(src->text, src->len);
    oom_buf_put_u64(&m, text.lo);
    oom_buf_put_u64(&m, text.hi);
    oom_buf_put_u64(&m, src->len);
    /* a notebook's findings are placed through its map of cells and lines */
    oom_buf_put_u32(&m, src->notebook ? 1 : 0);
    if (src->notebook)
        oom_notebook_encode(src->notebook, &m);
    oom_cache_key k = oom_cache_key_of(m.data, m.len);
    oom_buf_free(&m);
    return k;
}

static char *entry_path(const oom_cache *c, oom_cache_key k)
{
    oom_buf p;
    oom_buf_init(&p);
    oom_buf_printf(&p, "%s/%016llx%016llx", c->dir, (unsigned long long)k.hi, (unsigned long long)k.lo);
    return oom_buf_take(&p);
}

/* The payload of the entry at `path` when its header is whole and names
 * `k`; NULL (a miss) for anything else. */
static char *read_entry(const char *path, oom_cache_key k, size_t *len)
{
    oom_buf bytes;
    oom_buf_init(&bytes);
    if (oom_cache_read_file(path, HEADER_BYTES + OOM_CACHE_MAX_ENTRY, &bytes) != 0 || bytes.len < HEADER_BYTES) {
        oom_buf_free(&bytes);
        return NULL;
    }
    oom_reader r;
    oom_reader_init(&r, bytes.data, bytes.len);
    char magic[16];
    oom_reader_bytes(&r, magic, sizeof magic);
    uint32_t format = oom_reader_u32(&r), order = oom_reader_u32(&r);
    uint64_t lo = oom_reader_u64(&r), hi = oom_reader_u64(&r);
    uint64_t n = oom_reader_u64(&r), sum = oom_reader_u64(&r);
    const char *payload = (const char *)r.at;
    bool ok = memcmp(magic, MAGIC, sizeof magic) == 0 && format == FORMAT && order == 0x01020304u &&
              lo == k.lo && hi == k.hi && n == bytes.len - HEADER_BYTES &&
              oom_hash64(payload, (size_t)n, FORMAT) == sum;
    char *out = NULL;
    if (ok) {
        out = oom_xmalloc(n ? (size_t)n : 1);
        memcpy(out, payload, (size_t)n);
        *len = (size_t)n;
    }
    oom_buf_free(&bytes);
    return out;
}

bool oom_cache_recall(oom_cache *c, oom_cache_file *f, const oom_source *src, oom_diag_list *out,
                      oom_file_facts *facts)
{
    oom_cache_key k = file_key(c, f, src);
    f->key[0] = k.lo, f->key[1] = k.hi, f->keyed = true;
    char *path = entry_path(c, k);
    size_t len = 0;
    char *payload = read_entry(path, k, &len);
    free(path);
    oom_diag_list found = {NULL, 0, 0};
    oom_file_facts got;
    memset(&got, 0, sizeof got);
    oom_readlog reads;
    bool hit = payload && oom_cache_entry_decode(payload, len, &found, &got, &reads);
    free(payload);
    if (hit) {
        hit = oom_readlog_still_holds(&reads);
        oom_readlog_free(&reads);
    }
    if (!hit) {
        oom_diag_list_free(&found);
        oom_file_facts_free(&got);
        atomic_fetch_add(&c->misses, 1);
        return false;
    }
    oom_diag_list_move(out, &found);
    *facts = got;
    atomic_fetch_add(&c->hits, 1);
    return true;
}

void oom_cache_remember(oom_cache *c, const oom_cache_file *f, const oom_source *src, const oom_diag_list *found,
                        const oom_file_facts *facts, const oom_readlog *reads)
{
    if (reads->full || !atomic_load(&c->writable))
        return;
    oom_cache_key k = f->keyed ? (oom_cache_key){f->key[0], f->key[1]} : file_key(c, f, src);
    oom_buf entry;
    oom_buf_init(&entry);
    oom_buf_append(&entry, MAGIC, 16);
    uint32_t head[2] = {FORMAT, 0x01020304u};
    oom_buf_put_bytes(&entry, head, sizeof head);
    oom_buf_put_u64(&entry, k.lo);
    oom_buf_put_u64(&entry, k.hi);
    size_t at = entry.len;
    oom_buf_put_u64(&entry, 0); /* the payload's length and hash, once it is written */
    oom_buf_put_u64(&entry, 0);
    oom_cache_entry_encode(found, facts, reads, &entry);
    uint64_t n = entry.len - HEADER_BYTES, sum = oom_hash64(entry.data + HEADER_BYTES, (size_t)n, FORMAT);
    memcpy(entry.data + at, &n, 8);
    memcpy(entry.data + at + 8, &sum, 8);
    if (n <= OOM_CACHE_MAX_ENTRY) {
        char *path = entry_path(c, k);
        int err = 0;
        if (oom_cache_write_file(path, entry.data, entry.len, &err) == 0)
            atomic_fetch_add(&c->written, 1);
        else
            note_problem(c, "cannot write to the cache folder %s: %s", c->dir, err);
        free(path);
    }
    oom_buf_free(&entry);
}

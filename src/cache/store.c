/* cache/store: keys, this build's identity, and entry files read and
 * written whole. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "oomlint/report.h"
#include "oomlint/rules.h"

#if defined(__has_include)
#if __has_include(<link.h>) && __has_include(<elf.h>)
#include <elf.h>
#include <link.h>
#define HAVE_BUILD_ID 1
#endif
#endif

oom_cache_key oom_cache_key_of(const void *data, size_t len)
{
    oom_cache_key k = {oom_hash64(data, len, 0), oom_hash64(data, len, 0x9E3779B97F4A7C15ULL)};
    return k;
}

/* ---- the build ------------------------------------------------------------------ */

typedef struct {
    oom_buf *out;
    bool found;
} build_id_search;

#ifdef HAVE_BUILD_ID

/* The main program is the first object dl_iterate_phdr reports. Its
 * NT_GNU_BUILD_ID note (the linker's hash of the output) changes with any
 * change to the code, which the version alone would not. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    build_id_search *s = data;
    for (int i = 0; i < info->dlpi_phnum && !s->found; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            size_t name = (n->n_namesz + 3u) & ~3u, desc = (n->n_descsz + 3u) & ~3u;
            const unsigned char *d = p + sizeof *n + name;
            if (d + n->n_descsz > end)
                break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(p + sizeof *n, "GNU", 4) == 0) {
                oom_buf_put_u32(s->out, n->n_descsz);
                oom_buf_put_bytes(s->out, d, n->n_descsz);
                s->found = true;
                break;
            }
            p = d + desc;
        }
    }
    return 1; /* the first object only */
}

#endif

static void executable_identity(oom_buf *out)
{
    build_id_search s = {out, false};
#ifdef HAVE_BUILD_ID
    dl_iterate_phdr(find_build_id, &s);
#endif
    if (s.found)
        return;
    /* linked without a build id: the executable's own bytes */
    oom_buf exe;
    oom_buf_init(&exe);
    if (oom_cache_read_file("/proc/self/exe", (size_t)512 * 1024 * 1024, &exe) == 0)
        oom_buf_put_u64(out, oom_hash64(exe.data, exe.len, 0));
    oom_buf_free(&exe);
}

void oom_cache_build_identity(oom_buf *out)
{
    oom_buf_put_str(out, "oomlint-cache-format-1");
    oom_buf_put_str(out, OOM_VERSION);
    executable_identity(out);
    uint64_t h = 0;
    for (size_t i = 0; i < oom_embedded_rule_file_count; i++) {
        const oom_rule_file *f = &oom_embedded_rule_files[i];
        h = oom_hash64(f->path, strlen(f->path), h);
        h = oom_hash64(f->data, f->len, h);
    }
    oom_buf_put_u64(out, h);
}

/* ---- files ---------------------------------------------------------------------- */

int oom_cache_read_file(const char *path, size_t max, oom_buf *out)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int rc = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= max ? 0 : -1;
    char chunk[65536];
    while (rc == 0) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || out->len + (size_t)n > max)
            rc = -1;
        if (n <= 0)
            break;
        oom_buf_append(out, chunk, (size_t)n);
    }
    close(fd);
    return rc;
}

/* Not synced to disk before the rename, unlike a user's file
 * (util/atomic.c): an entry lost to a crash is only a miss, and the header's
 * hash refuses one the crash cut short. Syncing thousands of entries would
 * cost the first run more than the cache saves. */
int oom_cache_write_file(const char *path, const char *data, size_t len, int *err)
{
    oom_buf tmp;
    oom_buf_init(&tmp);
    oom_buf_printf(&tmp, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp.data);
    if (fd < 0) {
        *err = errno;
        oom_buf_free(&tmp);
        return -1;
    }
    int rc = 0;
    for (size_t done = 0; done < len && rc == 0;) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            rc = -1;
        else
            done += (size_t)n;
    }
    if (rc != 0)
        *err = errno ? errno : EIO;
    if (close(fd) != 0 && rc == 0) {
        *err = errno;
        rc = -1;
    }
    if (rc == 0 && rename(tmp.data, path) != 0) {
        *err = errno;
        rc = -1;
    }
    if (rc != 0)
        unlink(tmp.data);
    oom_buf_free(&tmp);
    return rc;
}

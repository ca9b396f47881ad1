/* util/atomic: files written whole or not at all. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oomlint/util.h"

/* mode < 0: as readable as any new file (0666 less the umask). */
static int write_atomically(const char *path, const char *data, size_t len, int mode, oom_buf *err)
{
    /* a temporary file beside the target, renamed over it once complete */
    oom_buf tmp;
    oom_buf_init(&tmp);
    oom_buf_printf(&tmp, "%s.oomlint-XXXXXX", path);
    int fd = mkstemp(tmp.data);
    if (fd < 0) {
        oom_buf_printf(err, "%s: cannot create the file: %s", path, strerror(errno));
        oom_buf_free(&tmp);
        return -1;
    }
    if (mode >= 0) {
        fchmod(fd, (mode_t)mode);
    } else {
        mode_t mask = umask(0); /* mkstemp makes 0600; an output is as readable as any file */
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    int rc = 0;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = -1;
            break;
        }
        done += (size_t)n;
    }
    /* on disk before the rename, so a crash leaves the old file or the new one */
    if (rc == 0 && fsync(fd) != 0)
        rc = -1;
    if (close(fd) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp.data, path) != 0)
        rc = -1;
    if (rc != 0) {
        oom_buf_printf(err, "%s: cannot write the file: %s", path, strerror(errno));
        unlink(tmp.data);
    }
    oom_buf_free(&tmp);
    return rc;
}

int oom_write_file_atomically(const char *path, const char *data, size_t len, oom_buf *err)
{
    return write_atomically(path, data, len, -1, err);
}

int oom_replace_file_atomically(const char *path, const char *data, size_t len, unsigned mode, oom_buf *err)
{
    return write_atomically(path, data, len, (int)(mode & 07777), err);
}

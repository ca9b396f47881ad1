/* source/recheck: whether what a lint read besides its file (the read log)
 * still holds: each file noted exists or not as it did, and reads to the
 * same text. Above both the log and the reader: it reads files again,
 * without noting those reads anywhere. */
#include <sys/stat.h>

#include "oomlint/source.h"

bool oom_readlog_still_holds(const oom_readlog *log)
{
    if (log->full)
        return false;
    oom_readlog *saved = oom_readlog_swap(NULL); /* checking reads files too: not notes of anything */
    bool holds = true;
    for (size_t i = 0; i < log->len && holds; i++) {
        const oom_read_note *n = &log->items[i];
        if (n->kind == OOM_READ_EXISTS) {
            struct stat sb;
            holds = (uint64_t)(stat(n->path, &sb) == 0) == n->value;
        } else {
            oom_source src;
            char why[64];
            oom_source_status st = oom_source_read(n->path, n->path, &src, why, sizeof why);
            holds = oom_readlog_text_value(st, &src) == n->value;
            oom_source_free(&src);
        }
    }
    oom_readlog_swap(saved);
    return holds;
}

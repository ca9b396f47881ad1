/* cache: each file's results kept on disk between runs, as Ruff keeps them
 * in .ruff_cache, so that a second `oomlint .` over an unchanged project
 * parses nothing. An entry holds what linting the file produced: its
 * findings (with their fixes), the facts the project pass needs of it
 * (oomlint/facts.h) and the other files it read (oomlint/source.h's read
 * log). It is found by a 128-bit key over everything the result depends
 * on: the file's text, its path and how it is linted, this build of oomlint
 * (version, ELF build id or the executable's hash, the embedded rules and
 * knowledge base), and the run's settings as the front end describes them;
 * and used only while the files it read still read the same. So a changed
 * file, rule, GPU or setting misses; nothing is ever invalidated in place.
 *
 * Entries are written to a temporary file and renamed, so two runs at once
 * each see a whole entry or none; an entry that is truncated, corrupt,
 * foreign or of another format is a miss, and is written again. Failures
 * to write are kept (oom_cache_problem) for the front end to report: the
 * library never prints, and a cache that cannot be written only makes the
 * run slower. */
#ifndef OOMLINT_CACHE_H
#define OOMLINT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oomlint/diag.h"
#include "oomlint/facts.h"
#include "oomlint/rules.h"
#include "oomlint/source.h"
#include "oomlint/util.h"

/* The folder a project's cache goes in when none is named, beside its
 * pyproject.toml (or in the working folder), as Ruff's .ruff_cache. */
#define OOM_CACHE_DEFAULT_DIR ".oomlint_cache"
/* An entry larger than this is not written, and a file larger is not read. */
#define OOM_CACHE_MAX_ENTRY ((size_t)16 * 1024 * 1024)

typedef struct oom_cache oom_cache;

/* Opens (creating it when missing, with a CACHEDIR.TAG and a .gitignore of
 * `*`) the cache in `dir` for a run whose settings are described by
 * settings[0..len) (any bytes: the front end lists every setting that
 * changes a file's results). Never NULL: a folder that cannot be created
 * leaves a cache that misses and keeps the reason (oom_cache_problem). */
oom_cache *oom_cache_open(const char *dir, const char *settings, size_t len);
void oom_cache_free(oom_cache *c);

/* Appends each rule's code and source hash to a settings description: a
 * rule changed in a --rules folder changes the key. */
void oom_cache_describe_rules(const oom_rule_list *rules, oom_buf *out);

/* How one file is linted, besides its text. */
typedef struct {
    const char *path;    /* as read */
    const char *display; /* as reported */
    int lang;            /* oom_lang */
    bool report_syntax;
    unsigned facts;      /* the OOM_FACTS_* taken of it */
    /* set by oom_cache_recall, for oom_cache_remember: the entry's key, made
     * once from the text (and a notebook's map, gone once it is linted) */
    uint64_t key[2];
    bool keyed;
} oom_cache_file;

/* The file's kept result for text src: its findings appended to `out`, its
 * facts into `facts` (empty before). False (nothing changed) on a miss. */
bool oom_cache_recall(oom_cache *c, oom_cache_file *f, const oom_source *src, oom_diag_list *out,
                      oom_file_facts *facts);
/* Keeps the result of linting text src: `found` (the findings), `facts`, and
 * `reads` (what else it read; a full log is not kept). Thread-safe. */
void oom_cache_remember(oom_cache *c, const oom_cache_file *f, const oom_source *src, const oom_diag_list *found,
                        const oom_file_facts *facts, const oom_readlog *reads);

/* Counts for the front end: answered from the cache, linted, entries written. */
void oom_cache_counts(const oom_cache *c, size_t *hits, size_t *misses, size_t *written);
/* The first reason the cache could not be created or written; NULL: none. */
const char *oom_cache_problem(const oom_cache *c);

/* ---- an entry's bytes (cache/entry.c) ------------------------------------------- */

/* The result of one file as bytes, and back. Decoding checks every length
 * and offset and returns false (out and facts left empty) for anything this
 * encoder did not write. */
void oom_cache_entry_encode(const oom_diag_list *found, const oom_file_facts *facts, const oom_readlog *reads,
                            oom_buf *out);
bool oom_cache_entry_decode(const void *data, size_t len, oom_diag_list *found, oom_file_facts *facts,
                            oom_readlog *reads);

#endif

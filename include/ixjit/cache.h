/* ixjit — the on-disk kernel cache directory.
 *
 * One self-checking file per compiled kernel (`<hash>.ixk`): a header with a
 * magic, the format version, the key echoed (format and generator versions,
 * backend, toolchain, the full signature with its target), the payload length
 * and an XXH3 checksum; then the payload (object code). Files are written to a
 * temporary name in the same directory, fsynced and renamed, so readers never
 * see a partial entry; anything odd on read is a miss. These calls inspect and
 * maintain a directory; contexts use it through their options.
 *
 * Entries are machine code that gets run, so a context uses a directory only
 * when the effective user owns it and neither group nor others can write it
 * (it creates it 0700, entries 0600), and loads an entry only when it is a
 * regular file owned by that user and writable by nobody else. */
#ifndef IXJIT_CACHE_H
#define IXJIT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ixjit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IXJ_CACHE_DEFAULT_MAX_BYTES ((uint64_t)1 << 30)

/* The directory a context uses by default: $IXJIT_CACHE_DIR, else
 * $XDG_CACHE_HOME/ixjit, else ~/.cache/ixjit. False when none can be named. */
IXJ_API bool ixj_cache_default_dir(char *buf, size_t size);

/* What ixj_cache_scan shows of one entry. Its strings live only during the
 * visit call (copy them to keep them); never free them. */
typedef struct ixj_cache_entry {
  const char *file;      /* name inside the directory */
  uint64_t size;         /* bytes on disk */
  int64_t mtime;         /* last use (seconds since the epoch) */
  bool valid;            /* header, key and checksum all right */
  const char *problem;   /* why not, when invalid */
  const char *key;       /* the echoed key (valid entries) */
} ixj_cache_entry;

typedef void (*ixj_cache_visit)(void *user, const ixj_cache_entry *entry);
/* Visits every entry (every *.ixk file, whatever its type), checking each
 * fully, on the calling thread, never blocking on a FIFO. A damaged entry, or
 * one a context would not trust (a symbolic link, not a regular file, owned
 * by another user, writable by others, in a directory it would not use), is
 * visited as invalid with the reason, not an error. IXJ_ERR_IO when dir
 * cannot be read. */
IXJ_API ixj_status ixj_cache_scan(const char *dir, ixj_cache_visit visit, void *user, ixj_error *err);
/* Removes invalid and untrusted entries and stale temporary files, then the
 * least recently used entries until the total is at most max_bytes (0: the
 * default); *removed (optional) counts the files removed. IXJ_ERR_IO when dir
 * cannot be read or is not one a context would use. Safe while other
 * processes use the directory. */
IXJ_API ixj_status ixj_cache_prune(const char *dir, uint64_t max_bytes, int *removed, ixj_error *err);
/* Removes every entry and temporary file; *removed (optional) counts them.
 * IXJ_ERR_IO when dir cannot be read or is not one a context would use. */
IXJ_API ixj_status ixj_cache_clear(const char *dir, int *removed, ixj_error *err);

/* Lookup counters kept in a cache directory across every process that used
 * it (what `ixjit cache stats` shows, as `ccache -s` does): contexts add
 * their counts now and then and when destroyed. */
typedef struct ixj_cache_counter_values {
  uint64_t memory_hits;   /* kernels a context already had in memory */
  uint64_t disk_hits;     /* kernels loaded from the directory */
  uint64_t disk_misses;   /* lookups the directory could not answer */
  uint64_t remote_hits;   /* kernels from the remote store (docs/remote-cache.md) */
  uint64_t remote_misses; /* lookups the remote store could not answer */
  uint64_t refused;       /* entries not trusted or not authenticated (misses too) */
} ixj_cache_counter_values;
/* The counters of dir: zeros when it was never used or does not exist.
 * IXJ_ERR_IO when it cannot be read. */
IXJ_API ixj_status ixj_cache_counters(const char *dir, ixj_cache_counter_values *out, ixj_error *err);

/* What a remote store (docs/remote-cache.md) holds under a key prefix. */
typedef struct ixj_remote_stats {
  uint64_t entries; /* kernels */
  uint64_t bytes;   /* their values' bytes */
  uint64_t hits;    /* lookups it answered, from every process */
  uint64_t misses;  /* lookups it could not answer */
} ixj_remote_stats;
/* Reads them from the store at url ("redis://HOST:PORT[/DB]", "unix:///PATH")
 * under prefix (NULL: "ixjit:"), with a patient timeout (1 s to connect, 5 s
 * a reply): a maintenance call. IXJ_ERR_IO when the store cannot be read,
 * IXJ_ERR_UNAVAILABLE in a build without hiredis. */
IXJ_API ixj_status ixj_remote_cache_stats(const char *url, const char *prefix, ixj_remote_stats *out, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif

/* Internal: the disk tier of the kernel cache. */
#ifndef IXJIT_RUNTIME_DISK_CACHE_H
#define IXJIT_RUNTIME_DISK_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ixjit/cache.h"
#include "ixjit/context.h"

/* 2: the header holds flags and an HMAC (cache_auth.h) */
#define DISK_FORMAT_VERSION 2u

typedef struct disk_cache disk_cache;
typedef struct cache_auth cache_auth;

/* How a context uses its directory. */
typedef struct disk_cache_config {
  uint64_t max_bytes;     /* 0: IXJ_CACHE_DEFAULT_MAX_BYTES */
  const cache_auth *auth; /* borrowed, must outlive the cache; NULL: entries are not authenticated */
  bool shared;            /* a directory another user owns or others may write: needs auth; entries
                             then load by their HMAC whoever owns them, and are written 0644 */
} disk_cache_config;

/* The key of a compiled kernel: it covers every input of the compile (format
 * and generator versions, the backend and its target, the toolchain's
 * version, the signature), never its output. malloc'ed (NULL: out of memory). */
char *ixj__disk_cache_key(const char *backend, const char *toolchain, const char *signature);
/* Opens (creating it 0700 when missing) the directory: IXJ_ERR_IO when it
 * cannot be used, or is not owned by the effective user, or is writable by
 * group or others. */
ixj_status ixj__disk_cache_open(const char *dir, uint64_t max_bytes, disk_cache **out, ixj_error *err);
/* The same with a key and the shared opt-in: with cfg->auth every entry
 * written is authenticated and only authenticated entries load; cfg->shared
 * without auth is IXJ_ERR_INVALID_ARGUMENT. */
ixj_status ixj__disk_cache_open_with(const char *dir, const disk_cache_config *cfg, disk_cache **out, ixj_error *err);
/* The key entries are authenticated with (NULL: none). */
const cache_auth *ixj__disk_cache_auth(const disk_cache *dc);
/* IXJIT_CACHE_SHARED=1 (anything else: not shared). */
bool ixj__cache_shared_from_env(void);
/* Where entries that are not trusted are reported (one warning each time one
 * is met); NULL: nowhere. */
void ixj__disk_cache_set_log(disk_cache *dc, ixj_log_fn log, void *user);
void ixj__disk_cache_close(disk_cache *dc);
const char *ixj__disk_cache_dir(const disk_cache *dc);
/* The entry of `key`: *payload malloc'ed. Any mismatch, truncation or read
 * error is a miss, and a bad file is removed. An entry that is not a regular
 * file owned by the effective user and writable by nobody else (a symbolic
 * link, a FIFO, another user's file) is a miss with a warning, never read. A
 * hit refreshes the entry's last-use time (for LRU eviction). */
bool ixj__disk_cache_load(disk_cache *dc, const char *key, void **payload, size_t *size);
/* Writes the entry (temporary file 0600, fsync, rename), then evicts least recently
 * used entries above the size limit. Concurrent writers of one key are
 * harmless: the last rename wins, and every version is valid. IXJ_ERR_IO when
 * the directory cannot be written. */
ixj_status ixj__disk_cache_store(disk_cache *dc, const char *key, const void *payload, size_t size, ixj_error *err);
/* Whether the entry of `key` is on disk and trusted (not checked further). */
bool ixj__disk_cache_has(const disk_cache *dc, const char *key);
/* Counters kept across processes in the directory (ixj_cache_counters). */
typedef enum disk_stat {
  DISK_STAT_MEMORY_HITS,   /* lookups a context's memory answered (added when it closes) */
  DISK_STAT_DISK_HITS,     /* entries loaded */
  DISK_STAT_DISK_MISSES,   /* lookups the disk could not answer (absent or damaged) */
  DISK_STAT_REMOTE_HITS,   /* entries the remote store gave */
  DISK_STAT_REMOTE_MISSES, /* lookups it could not answer */
  DISK_STAT_REFUSED,       /* entries not trusted (owner, type, authentication): misses too */
  DISK_STAT_COUNT
} disk_stat;
/* Counts n events of a kind: in memory, added to the directory's file now
 * and then and at close. Loads count their own hits, misses and refusals. */
void ixj__disk_cache_count(disk_cache *dc, disk_stat counter, uint64_t n);
/* Adds what is counted to the file now. */
void ixj__disk_cache_flush_counts(disk_cache *dc);

/* The file name of a key: "<xxh3-128 hex>.ixk". */
void ixj__disk_cache_file_name(const char *key, char name[48]);

/* The entry format in memory, as the disk holds it (and the remote store,
 * runtime/remote_cache.h): the whole entry of key and payload, authenticated
 * when auth is set; *out malloc'ed. IXJ_ERR_LIMIT for an oversized one. */
ixj_status ixj__disk_entry_encode(const cache_auth *auth, const char *key, const void *payload, size_t size, void **out,
                                  size_t *out_size, ixj_error *err);
/* Checks an entry of len bytes: NULL when it is whole, its key is
 * expect_key (NULL: any key) and, with auth, its HMAC verifies; then
 * *key_out and *payload (each optional) are malloc'ed. Else the problem, a
 * static string. */
const char *ixj__disk_entry_decode(const cache_auth *auth, const void *entry, size_t len, const char *expect_key,
                                   char **key_out, void **payload, size_t *plen);

#endif

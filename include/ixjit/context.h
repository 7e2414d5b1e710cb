/* ixjit — the context: options, the JIT, the kernel cache, the thread pool.
 *
 * One context serves many threads at once: every call on it is thread-safe.
 * Kernels are compiled once per signature (other threads asking for the same
 * one wait for that compile) and kept for the context's lifetime. */
#ifndef IXJIT_CONTEXT_H
#define IXJIT_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "ixjit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ixj_context ixj_context;

typedef enum ixj_log_level { IXJ_LOG_DEBUG, IXJ_LOG_INFO, IXJ_LOG_WARNING } ixj_log_level;
/* Called from whichever thread logs, possibly several at once; message lives
 * only during the call (copy it to keep it). */
typedef void (*ixj_log_fn)(void *user, ixj_log_level level, const char *message);

/* Read by ixj_context_create only: its strings may be freed when it returns;
 * log and log_user must stay valid for the context's lifetime. */
typedef struct ixj_context_options {
  int num_threads;            /* 0: IXJIT_NUM_THREADS, else the CPUs of the affinity mask; the caller counts as one */
  size_t last_level_cache;    /* bytes; 0: detect. Outputs larger than this get streaming stores, as do those
                                 beyond the size measured for the CPU and the kind of kernel (4 MiB; on a Zen 4
                                 8 MiB for transposes of 2 bytes and more, 12 for other copies, 16 for fills:
                                 docs/cpu-path.md) */
  ixj_log_fn log;             /* NULL: no logging */
  void *log_user;
  /* The disk cache (see ixjit/cache.h). */
  int disk_cache;             /* 0: on unless IXJIT_CACHE=off; 1: on; -1: off */
  const char *cache_dir;      /* NULL: IXJIT_CACHE_DIR, else $XDG_CACHE_HOME/ixjit, else ~/.cache/ixjit */
  uint64_t cache_max_bytes;   /* 0: IXJIT_CACHE_MAX_BYTES, else 1 GiB; least recently used entries go */
  const char *record_path;    /* NULL: IXJIT_RECORD; one line per compiled signature (ixjit warm reads it) */
  /* Tiered execution (docs/hot-path.md): what a CPU call does when its
   * kernel is not in memory. IXJ_COMPILE_DEFAULT: IXJIT_COMPILE ("sync",
   * "async" or "cache-only"), else sync. */
  int compile_mode;           /* ixj_compile_mode */
  /* Authenticated entries (docs/cache.md, "Trust"). */
  const char *cache_key_file; /* NULL: IXJIT_CACHE_KEY_FILE; a secret (>= 32 bytes, the user's, mode 0600):
                                 entries then carry an HMAC and only authenticated ones load */
  int cache_shared;           /* 0: IXJIT_CACHE_SHARED=1; 1: a directory others own or may write is
                                 allowed (it needs the key); -1: never */
  /* The remote tier behind the disk (docs/remote-cache.md); it needs the key. */
  const char *remote_cache;   /* NULL: IXJIT_REMOTE_CACHE; "redis://HOST:PORT[/DB]" or "unix:///PATH"; "" or "off": none */
  const char *remote_prefix;  /* NULL: IXJIT_REMOTE_PREFIX, else "ixjit:" */
  uint64_t remote_ttl_s;      /* 0: IXJIT_REMOTE_TTL, else entries never expire (Redis evicts) */
  uint64_t remote_max_entry_bytes; /* 0: IXJIT_REMOTE_MAX_ENTRY, else 4 MiB; larger entries are not pushed */
  int remote_timeout_ms;      /* 0: IXJIT_REMOTE_TIMEOUT_MS, else 10: the read/write timeout of every call */
  int remote_connect_timeout_ms; /* 0: IXJIT_REMOTE_CONNECT_TIMEOUT_MS, else 5 */
  int remote_publish;         /* 1: warming also pushes kernels already on disk (ixjit warm --remote) */
  /* The memory cache's limit on JIT'd CPU code, bytes (each kernel counts its
   * object code rounded up to pages, plus a page); 0: IXJIT_MEMORY_CACHE_MAX_BYTES,
   * else 128 MiB. Least recently used kernels go first, never one that a
   * prepared kernel holds or a call is running (docs/hot-path.md). */
  uint64_t memory_cache_max_bytes;
} ixj_context_options;

typedef enum ixj_compile_mode {
  IXJ_COMPILE_DEFAULT = 0,
  IXJ_COMPILE_SYNC,      /* compile (or load from disk) on the calling thread, then run */
  IXJ_COMPILE_ASYNC,     /* run the generic kernel now; compile on the context's background thread; later calls
                            run the compiled kernel */
  IXJ_COMPILE_CACHE_ONLY /* never compile: load from the disk cache, then the remote store when configured,
                            else run the generic kernel and record the signature (IXJIT_RECORD) for
                            `ixjit warm` */
} ixj_compile_mode;

typedef struct ixj_cache_stats {
  uint64_t hits;        /* lookups that found the kernel in memory */
  uint64_t misses;      /* lookups that loaded, compiled, or waited for another thread doing so */
  uint64_t disk_hits;   /* kernels loaded from the disk cache */
  uint64_t compiles;    /* kernels compiled */
  uint64_t failures;    /* compiles that failed */
  double compile_ms;    /* total time spent compiling (or loading from disk) */
  uint64_t entries;     /* kernels in the cache */
  uint64_t generic_calls;   /* calls the generic kernel ran because theirs was not ready (async, cache-only) */
  uint64_t compiles_queued; /* background compiles queued or running now (async) */
  uint64_t remote_hits;     /* kernels from the remote store (counted in disk_hits too) */
  uint64_t evictions;       /* kernels removed from memory to keep within memory_cache_max_bytes */
  uint64_t memory_bytes;    /* what the CPU kernels in memory count against that limit now */
} ixj_cache_stats;

/* A new context in *out (NULL on error), freed with ixj_context_destroy.
 * opts may be NULL for the defaults. A disk cache or record file that cannot
 * be used is not an error: the context logs one warning and goes on without.
 *   IXJ_ERR_INVALID_ARGUMENT  num_threads outside 0..1024;
 *   IXJ_ERR_LIMIT             the worker threads cannot be started;
 *   IXJ_ERR_BACKEND           LLVM cannot set up its JIT for this CPU. */
IXJ_API ixj_status ixj_context_create(const ixj_context_options *opts, ixj_context **out, ixj_error *err);
/* Frees the context, its kernels and threads; no call on it may be running.
 * NULL is fine. */
IXJ_API void ixj_context_destroy(ixj_context *ctx);
/* A snapshot of the cache counters. */
IXJ_API void ixj_context_cache_stats(ixj_context *ctx, ixj_cache_stats *out);
/* Returns once the background compiler's queue is empty: every kernel a call
 * queued before (IXJ_COMPILE_ASYNC) is compiled or has failed. Returns at
 * once in the other modes. For tests, benchmarks and an orderly shutdown;
 * ixj_context_destroy does not need it (compiles not started are dropped,
 * the running one is waited for). */
IXJ_API void ixj_wait_compiles(ixj_context *ctx);
/* Threads an operation runs on, the caller included. */
IXJ_API int ixj_context_num_threads(const ixj_context *ctx);
/* The CPU the kernels are compiled for: "cpu:NAME:FEATURES-HASH". The string
 * is the context's: valid until ixj_context_destroy, never free it. */
IXJ_API const char *ixj_context_target(const ixj_context *ctx);
/* The disk cache directory in use, or NULL when the disk cache is off. The
 * string is the context's: valid until ixj_context_destroy, never free it. */
IXJ_API const char *ixj_context_cache_dir(const ixj_context *ctx);
/* The remote store in use (its URL), or NULL when there is none (not asked
 * for, or refused: the log said why). The string is the context's. */
IXJ_API const char *ixj_context_remote_cache(const ixj_context *ctx);

#ifdef __cplusplus
}
#endif
#endif

/* Internal: the in-memory kernel cache, plan key -> loaded kernel. */
#ifndef IXJIT_RUNTIME_CACHE_H
#define IXJIT_RUNTIME_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "ixjit/context.h"

typedef struct kernel_cache kernel_cache;

/* A loaded kernel, opaque to the cache: the backend that loaded it says which
 * member it uses and what it points to (runtime/backend.h). The cache only
 * copies it; the kernel lives as long as the context. */
typedef union kernel_ref {
  void *handle;    /* e.g. a CUDA kernel */
  void (*fn)(void); /* e.g. a JIT-compiled function, cast back to its own type */
} kernel_ref;

/* Loads or compiles the kernel of a key (called at most once per key);
 * *loaded tells a disk hit from a compile. */
typedef ixj_status (*cache_compile_fn)(void *arg, kernel_ref *kernel, bool *loaded, ixj_error *err);

ixj_status ixj__cache_create(kernel_cache **out, ixj_error *err);
/* No lookup may be running. */
void ixj__cache_destroy(kernel_cache *c);
/* The kernel of the binary key key[0..key_len) (runtime/plan_key.h): found,
 * or compiled by `compile` exactly once even when many threads ask at the
 * same moment (the others wait for it, and get *hit = true: they compiled
 * nothing). A hit takes no lock, allocates nothing and formats nothing. A
 * failed compile is reported to the callers of the next second (the retry
 * interval), then compiled again by the first caller after it. */
ixj_status ixj__cache_get(kernel_cache *c, const void *key, size_t key_len, cache_compile_fn compile, void *arg,
                          kernel_ref *kernel, bool *hit, bool *loaded, double *compile_ms, ixj_error *err);
/* The retry interval of failed compiles in ms (default 1000; 0: every later
 * lookup retries). For tests. */
void ixj__cache_set_retry_ms(kernel_cache *c, double ms);
/* Counts a hit served without a lookup (the fast path found the kernel in
 * its own table, call_cache.h). */
void ixj__cache_count_hit(kernel_cache *c);
void ixj__cache_stats(kernel_cache *c, ixj_cache_stats *out);

#endif

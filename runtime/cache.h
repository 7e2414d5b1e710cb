/* Internal: the in-memory kernel cache, plan key -> loaded kernel. */
#ifndef IXJIT_RUNTIME_CACHE_H
#define IXJIT_RUNTIME_CACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ixjit/context.h"

typedef struct kernel_cache kernel_cache;

/* A loaded kernel, opaque to the cache: the backend that loaded it says which
 * member it uses and what it points to (runtime/backend.h). The cache only
 * copies it; the kernel lives as long as the context. */
typedef union kernel_ref {
  void *handle;    /* e.g. a CUDA kernel */
  void (*fn)(void); /* e.g. a JIT-compiled function, cast back to its own type */
} kernel_ref;

/* A key's kernel as readers see it: its state, read with an acquire load,
 * says whether kernel holds it. An entry's slot lives as long as the cache;
 * its kernel, once READY, never changes. Callers keep slot pointers (the
 * fast path's table, prepared kernels) and read them without a lock, so a
 * kernel compiled in the background (tiered execution) reaches them with one
 * release store, the swap from the generic kernel. */
enum {
  KERNEL_PENDING,  /* being made */
  KERNEL_READY,
  KERNEL_FAILED,   /* until a retry */
  KERNEL_EVICTING, /* chosen for eviction, its code still mapped: wait (sync) or run without it */
  KERNEL_EVICTED   /* its code is gone: the next lookup makes it again, into the same slot */
};
typedef struct kernel_slot {
  atomic_int state;        /* KERNEL_*: PENDING while compiling, FAILED until a retry */
  atomic_uintptr_t kernel; /* READY: a kernel_ref's bits, written before the state (ixj__slot_set) */
} kernel_slot;
_Static_assert(sizeof(kernel_ref) == sizeof(uintptr_t), "a kernel_ref is one pointer's bits");

/* The slot's kernel, atomically: a reader outside a reader's section (a
 * lookup's hit, a prepare) may read it while an evicted entry is made again
 * into the same slot; the value it gets is then stale, and the use, inside
 * a section, looks again (ixj__cache_use). Relaxed: the state's release
 * store and acquire load order it. */
static inline kernel_ref ixj__slot_get(const kernel_slot *s) {
  uintptr_t bits = atomic_load_explicit(&s->kernel, memory_order_relaxed);
  kernel_ref k;
  memcpy(&k, &bits, sizeof k);
  return k;
}
static inline void ixj__slot_set(kernel_slot *s, const kernel_ref *k) {
  uintptr_t bits;
  memcpy(&bits, k, sizeof bits);
  atomic_store_explicit(&s->kernel, bits, memory_order_relaxed);
}

/* The slot's kernel into *k when it is ready; false otherwise. A kernel
 * that may be evicted is used only between ixj__cache_enter and
 * ixj__cache_leave (ixj__cache_use), or pinned (ixj__cache_pin). */
static inline bool ixj__slot_kernel(const kernel_slot *s, kernel_ref *k) {
  if (atomic_load_explicit(&s->state, memory_order_acquire) != KERNEL_READY) return false;
  *k = ixj__slot_get(s);
  return true;
}

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
/* The same, with the key's slot (NULL only on out of memory). */
ixj_status ixj__cache_get_slot(kernel_cache *c, const void *key, size_t key_len, cache_compile_fn compile, void *arg,
                               kernel_ref *kernel, bool *hit, bool *loaded, double *compile_ms, kernel_slot **slot,
                               ixj_error *err);

/* The lookup of tiered execution, which never waits. READY: the kernel is in
 * the slot (a hit: lock-free, as for ixj__cache_get). MAKE: this caller must
 * make the kernel (the key was new, or its compile failed more than the retry
 * interval ago; *fresh says new) and report it with ixj__cache_finish, from
 * any thread; until then the slot is PENDING. PENDING: another caller makes
 * it, or it failed within the retry interval: run without it. *slot is the
 * key's slot in every case; errors are out of memory only. */
typedef enum cache_begin { CACHE_READY, CACHE_MAKE, CACHE_PENDING } cache_begin;
ixj_status ixj__cache_begin(kernel_cache *c, const void *key, size_t key_len, kernel_slot **slot, cache_begin *what,
                            bool *fresh, ixj_error *err);
/* The outcome of a MAKE: st IXJ_OK with *kernel (loaded: from the disk tier,
 * not compiled), else the error, which callers of the next retry interval
 * see; absent: no compile was tried (cache-only found no kernel on disk), so
 * it is not counted as a failure. Wakes ixj__cache_get's waiters. */
void ixj__cache_finish(kernel_cache *c, kernel_slot *slot, ixj_status st, const kernel_ref *kernel, bool loaded,
                       bool absent, double ms, const ixj_error *err);
/* ---- bounded memory: least-recently-used eviction ------------------------ *
 * Kernels whose loader says how to remove them (ixj__cache_account) count
 * against the cache's limit; ixj__cache_trim evicts the least recently used
 * of them, never one pinned by a prepared kernel, and frees its code only
 * after every reader that may have seen it has left (runtime/reclaim.h: the
 * evictor marks its victims EVICTING, waits for the sections begun before,
 * then removes the code). Entries themselves stay: an evicted slot is made
 * again in place, so every slot pointer stays valid. */
typedef void (*cache_evict_fn)(void *arg, const kernel_ref *kernel);
/* A reader's section around the use of a slot's kernel: no wait, no lock,
 * no atomic read-modify-write (reclaim.h). Sections do not nest; never wait
 * for the cache (ixj__cache_get, trim) inside one. The token is the
 * thread's index (ixj__cache_count_hit's stripe). */
unsigned ixj__cache_enter(kernel_cache *c);
void ixj__cache_leave(kernel_cache *c, unsigned token);
/* Inside a reader's section: the slot's kernel if ready (also marks it
 * recently used), else false. */
bool ixj__cache_use(kernel_cache *c, kernel_slot *slot, kernel_ref *k);
/* A READY kernel's cost in bytes and how to remove it; kernels never
 * accounted are never evicted. */
void ixj__cache_account(kernel_cache *c, kernel_slot *slot, size_t bytes, cache_evict_fn evict, void *arg);
/* The limit in bytes (0: none); before the cache is shared. */
void ixj__cache_set_limit(kernel_cache *c, uint64_t bytes);
/* Evicts least recently used kernels until the accounted bytes fit the
 * limit, sparing `keep` (the kernel just made: a limit below one kernel
 * still runs it). Waits for the readers of its victims; call it outside any
 * reader's section. Cheap (one load) when under the limit. */
void ixj__cache_trim(kernel_cache *c, const kernel_slot *keep);
/* Pins a slot against eviction (a prepared kernel holds it): false when it is
 * being or has been evicted, then nothing is pinned. */
bool ixj__cache_pin(kernel_cache *c, kernel_slot *slot);
void ixj__cache_unpin(kernel_cache *c, kernel_slot *slot);
/* Whether a FAILED slot's retry interval has passed (the fast path then
 * takes the long way, which retries). */
bool ixj__cache_retry_due(kernel_cache *c, const kernel_slot *slot);

/* Counts a call that ran the generic kernel (runtime/generic.h) because its
 * kernel was not ready. */
void ixj__cache_count_generic(kernel_cache *c);
/* The retry interval of failed compiles in ms (default 1000; 0: every later
 * lookup retries), for the failures already recorded too. For tests. */
void ixj__cache_set_retry_ms(kernel_cache *c, double ms);
/* Counts a hit served without a lookup (the fast path found the kernel in
 * its own table, call_cache.h), inside the reader's section whose token
 * ixj__cache_enter returned: one plain store to this thread's own line. */
void ixj__cache_count_hit(kernel_cache *c, unsigned token);
void ixj__cache_stats(kernel_cache *c, ixj_cache_stats *out);

#endif

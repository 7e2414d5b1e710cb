/* The in-memory kernel cache: a fixed array of buckets of entries keyed by
 * the binary plan key (XXH3-64 of it picks the bucket; the whole key is
 * compared). Entries are only ever added, never changed in place except
 * their state, and never removed before the cache is destroyed, so a lookup
 * reads the table without a lock, RCU style: a new entry is filled in, then
 * published at its bucket's head with a release store; its kernel (or error)
 * is written before its state becomes READY (FAILED) with a release store.
 * Readers pair them with acquire loads. Only a miss takes the lock: it
 * inserts the entry as COMPILING and compiles outside the lock; threads
 * asking for an entry still COMPILING wait on a condition variable (single
 * flight). Hits are counted on per-thread stripes, so threads hitting one
 * kernel share no written cache line. A FAILED entry is read under the lock
 * only: the first caller after RETRY_MS turns it back to COMPILING and tries
 * again, so its error is rewritten while nobody reads it.
 *
 * Tiered execution splits the miss in two (ixj__cache_begin, then
 * ixj__cache_finish from the compiler thread): nobody waits on a COMPILING
 * entry there, its callers run the generic kernel; ixj__cache_get's waiters
 * (warming, sync contexts) are woken by either. */
#include "cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "clock.h"
#include "error.h"

#define NUM_BUCKETS 4096
#define HIT_STRIPES 16

typedef struct entry {
  kernel_slot slot;  /* first: a slot pointer is its entry's; state and kernel as cache.h says */
  uint64_t hash;
  size_t key_len;
  uint8_t *key;
  ixj_error error;   /* FAILED: under the lock, which is the only place it is read */
  double failed_at;  /* FAILED: when (ixj__now_ms), under the lock */
  struct entry *next; /* fixed before the entry is published */
} entry;

#define COMPILING KERNEL_PENDING
#define READY KERNEL_READY
#define FAILED KERNEL_FAILED

typedef struct hit_stripe {
  atomic_uint_fast64_t n;
  char pad[64 - sizeof(atomic_uint_fast64_t)];
} hit_stripe;

/* A failed compile is reported to the callers of the next second, then
 * tried again by the first caller after it (an out-of-memory or a transient
 * toolchain failure is not remembered forever, and a persistent one costs one
 * compile per second at most). */
#define RETRY_MS 1000.0

struct kernel_cache {
  _Atomic(entry *) bucket[NUM_BUCKETS];
  double retry_ms;
  pthread_mutex_t lock;    /* inserting, leaving COMPILING, stats */
  pthread_cond_t compiled; /* broadcast whenever an entry leaves COMPILING */
  ixj_cache_stats stats;   /* under the lock, but for the striped hits */
  hit_stripe hits[HIT_STRIPES];
  atomic_uint_fast64_t generic_calls; /* calls the generic kernel ran (tiered execution) */
};

ixj_status ixj__cache_create(kernel_cache **out, ixj_error *err) {
  kernel_cache *c = calloc(1, sizeof *c);
  if (!c) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  for (int b = 0; b < NUM_BUCKETS; b++) atomic_init(&c->bucket[b], NULL);
  for (int s = 0; s < HIT_STRIPES; s++) atomic_init(&c->hits[s].n, 0);
  atomic_init(&c->generic_calls, 0);
  c->retry_ms = RETRY_MS;
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->compiled, NULL);
  *out = c;
  return IXJ_OK;
}

void ixj__cache_destroy(kernel_cache *c) {
  if (!c) return;
  for (int b = 0; b < NUM_BUCKETS; b++)
    for (entry *e = atomic_load_explicit(&c->bucket[b], memory_order_relaxed), *next; e; e = next) {
      next = e->next;
      free(e->key);
      free(e);
    }
  pthread_cond_destroy(&c->compiled);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

static entry *find(kernel_cache *c, uint64_t h, const void *key, size_t len) {
  for (entry *e = atomic_load_explicit(&c->bucket[h % NUM_BUCKETS], memory_order_acquire); e; e = e->next)
    if (e->hash == h && e->key_len == len && !memcmp(e->key, key, len)) return e;
  return NULL;
}

void ixj__cache_set_retry_ms(kernel_cache *c, double ms) {
  pthread_mutex_lock(&c->lock);
  c->retry_ms = ms;
  pthread_mutex_unlock(&c->lock);
}

/* The entry's outcome once it has left COMPILING (state read with acquire;
 * a FAILED entry's error under the lock). */
static ixj_status outcome(const entry *e, int state, kernel_ref *kernel, ixj_error *err) {
  if (state == READY) {
    *kernel = e->slot.kernel;
    return IXJ_OK;
  }
  if (err) *err = e->error;
  return e->error.status;
}

/* This thread's hit stripe, chosen once per thread, round robin. The
 * initial-exec TLS model spares a __tls_get_addr call per hit in the shared
 * library (one int of static TLS). */
#if defined(__GNUC__)
#define TLS_FAST __attribute__((tls_model("initial-exec")))
#else
#define TLS_FAST
#endif
static unsigned my_stripe(void) {
  static atomic_uint next_stripe;
  static _Thread_local unsigned stripe TLS_FAST = HIT_STRIPES;
  if (stripe == HIT_STRIPES) stripe = atomic_fetch_add_explicit(&next_stripe, 1, memory_order_relaxed) % HIT_STRIPES;
  return stripe;
}

/* A new COMPILING entry for a key, published at its bucket's head (under the
 * lock); NULL when out of memory. */
static entry *insert(kernel_cache *c, uint64_t h, const void *key, size_t key_len) {
  entry *e = calloc(1, sizeof *e);
  uint8_t *copy = e ? malloc(key_len ? key_len : 1) : NULL;
  if (!copy) {
    free(e);
    return NULL;
  }
  memcpy(copy, key, key_len);
  e->hash = h;
  e->key_len = key_len;
  e->key = copy;
  atomic_init(&e->slot.state, COMPILING);
  e->next = atomic_load_explicit(&c->bucket[h % NUM_BUCKETS], memory_order_relaxed);
  atomic_store_explicit(&c->bucket[h % NUM_BUCKETS], e, memory_order_release);
  c->stats.entries++;
  return e;
}

ixj_status ixj__cache_get(kernel_cache *c, const void *key, size_t key_len, cache_compile_fn compile, void *arg,
                          kernel_ref *kernel, bool *hit, bool *loaded, double *compile_ms, ixj_error *err) {
  kernel_slot *slot;
  return ixj__cache_get_slot(c, key, key_len, compile, arg, kernel, hit, loaded, compile_ms, &slot, err);
}

ixj_status ixj__cache_get_slot(kernel_cache *c, const void *key, size_t key_len, cache_compile_fn compile, void *arg,
                               kernel_ref *kernel, bool *hit, bool *loaded, double *compile_ms, kernel_slot **slot,
                               ixj_error *err) {
  uint64_t h = XXH3_64bits(key, key_len);
  *slot = NULL;
  *hit = false;
  *loaded = false;
  *compile_ms = 0;
  entry *e = find(c, h, key, key_len);
  int state = e ? atomic_load_explicit(&e->slot.state, memory_order_acquire) : COMPILING;
  if (state == READY) { /* the hit path: no lock */
    atomic_fetch_add_explicit(&c->hits[my_stripe()].n, 1, memory_order_relaxed);
    *hit = true;
    *slot = &e->slot;
    return outcome(e, state, kernel, err);
  }
  pthread_mutex_lock(&c->lock);
  if (!e) e = find(c, h, key, key_len); /* another miss may have inserted it meanwhile */
  if (e) {
    state = atomic_load_explicit(&e->slot.state, memory_order_acquire);
    if (state == COMPILING) { /* another thread compiles it: wait; for this caller, a hit */
      c->stats.misses++;
      while ((state = atomic_load_explicit(&e->slot.state, memory_order_acquire)) == COMPILING)
        pthread_cond_wait(&c->compiled, &c->lock);
    } else if (state == FAILED && ixj__now_ms() - e->failed_at >= c->retry_ms) { /* this caller tries again */
      c->stats.misses++;
      atomic_store_explicit(&e->slot.state, COMPILING, memory_order_relaxed);
      pthread_mutex_unlock(&c->lock);
      goto compile;
    } else {
      c->stats.hits++;
    }
    ixj_status st = outcome(e, state, kernel, err);
    pthread_mutex_unlock(&c->lock);
    *hit = true;
    *slot = &e->slot;
    return st;
  }
  c->stats.misses++;
  if (!(e = insert(c, h, key, key_len))) {
    pthread_mutex_unlock(&c->lock);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  pthread_mutex_unlock(&c->lock);

compile:;
  double t0 = ixj__now_ms();
  kernel_ref compiled = {.handle = NULL};
  ixj_error cerr = {IXJ_OK, 0, ""};
  ixj_status st = compile(arg, &compiled, loaded, &cerr);
  double dt = ixj__now_ms() - t0;
  ixj__cache_finish(c, &e->slot, st, &compiled, *loaded, false, dt, &cerr);
  if (st == IXJ_OK) *kernel = compiled;
  else if (err) *err = cerr;
  *compile_ms = dt;
  *slot = &e->slot;
  return st;
}

void ixj__cache_finish(kernel_cache *c, kernel_slot *slot, ixj_status st, const kernel_ref *kernel, bool loaded,
                       bool absent, double ms, const ixj_error *err) {
  entry *e = (entry *)slot;
  pthread_mutex_lock(&c->lock);
  if (loaded) c->stats.disk_hits++;
  else if (!absent) c->stats.compiles++;
  c->stats.compile_ms += ms;
  if (st == IXJ_OK) {
    e->slot.kernel = *kernel;
    atomic_store_explicit(&e->slot.state, READY, memory_order_release);
  } else {
    if (!absent) c->stats.failures++;
    e->error = *err;
    e->error.status = st;
    e->failed_at = ixj__now_ms();
    atomic_store_explicit(&e->slot.state, FAILED, memory_order_release);
  }
  pthread_cond_broadcast(&c->compiled);
  pthread_mutex_unlock(&c->lock);
}

ixj_status ixj__cache_begin(kernel_cache *c, const void *key, size_t key_len, kernel_slot **slot, cache_begin *what,
                            bool *fresh, ixj_error *err) {
  uint64_t h = XXH3_64bits(key, key_len);
  *fresh = false;
  entry *e = find(c, h, key, key_len);
  int state = e ? atomic_load_explicit(&e->slot.state, memory_order_acquire) : FAILED;
  if (e && state != FAILED) { /* ready or being made: no lock either way */
    if (state == READY) atomic_fetch_add_explicit(&c->hits[my_stripe()].n, 1, memory_order_relaxed);
    *what = state == READY ? CACHE_READY : CACHE_PENDING;
    *slot = &e->slot;
    return IXJ_OK;
  }
  pthread_mutex_lock(&c->lock);
  if (!e) e = find(c, h, key, key_len);
  if (!e) {
    if (!(e = insert(c, h, key, key_len))) {
      pthread_mutex_unlock(&c->lock);
      return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    }
    c->stats.misses++;
    *fresh = true;
    *what = CACHE_MAKE;
  } else {
    state = atomic_load_explicit(&e->slot.state, memory_order_acquire);
    if (state == FAILED && ixj__now_ms() - e->failed_at >= c->retry_ms) {
      c->stats.misses++;
      atomic_store_explicit(&e->slot.state, COMPILING, memory_order_relaxed);
      *what = CACHE_MAKE;
    } else {
      if (state == READY) c->stats.hits++;
      *what = state == READY ? CACHE_READY : CACHE_PENDING;
    }
  }
  pthread_mutex_unlock(&c->lock);
  *slot = &e->slot;
  return IXJ_OK;
}

void ixj__cache_count_generic(kernel_cache *c) { atomic_fetch_add_explicit(&c->generic_calls, 1, memory_order_relaxed); }

void ixj__cache_count_hit(kernel_cache *c) { atomic_fetch_add_explicit(&c->hits[my_stripe()].n, 1, memory_order_relaxed); }

void ixj__cache_stats(kernel_cache *c, ixj_cache_stats *out) {
  pthread_mutex_lock(&c->lock);
  *out = c->stats;
  pthread_mutex_unlock(&c->lock);
  for (int s = 0; s < HIT_STRIPES; s++) out->hits += atomic_load_explicit(&c->hits[s].n, memory_order_relaxed);
  out->generic_calls = atomic_load_explicit(&c->generic_calls, memory_order_relaxed);
}

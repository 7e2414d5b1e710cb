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
 * flight). Hits are counted per thread: a stripe (a cache line) per thread
 * index of reclaim.h, which one live thread owns at a time, so a hit adds
 * with a plain load and store (no locked instruction) to a line no other
 * thread writes; threads beyond HIT_STRIPES share one more stripe, added to
 * atomically. A FAILED entry is read under the lock
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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "clock.h"
#include "error.h"
#include "reclaim.h"

#define NUM_BUCKETS 4096
#define HIT_STRIPES 256 /* threads with a stripe of their own (16 KiB a cache) */

typedef struct entry {
  kernel_slot slot;  /* first: a slot pointer is its entry's; state and kernel as cache.h says */
  uint64_t hash;
  size_t key_len;
  uint8_t *key;
  ixj_error error;   /* FAILED: under the lock, which is the only place it is read */
  double failed_at;  /* FAILED: when (ixj__now_ms), under the lock */
  atomic_int_fast64_t retry_at_us; /* FAILED: when a retry is due (µs of ixj__now_ms), read by the fast path */
  struct entry *next; /* fixed before the entry is published */
  /* eviction */
  size_t bytes;                  /* accounted (under the lock); 0: never evicted */
  cache_evict_fn evict;          /* how the loader removes it */
  void *evict_arg;
  atomic_uint pins;              /* prepared kernels holding it */
  atomic_uint_fast64_t used;     /* the cache's tick when last used: least recently used goes first */
  uint64_t tried;                /* the trim pass that last found it pinned (under the evict lock) */
  struct entry *victim_next;     /* a trim's victims (under the evict lock) */
} entry;

#define COMPILING KERNEL_PENDING
#define READY KERNEL_READY
#define FAILED KERNEL_FAILED
#define EVICTING KERNEL_EVICTING
#define EVICTED KERNEL_EVICTED

/* One thread's counters (cache.h's hits and generic_calls), one cache line. */
typedef struct hit_stripe {
  _Alignas(64) atomic_uint_fast64_t n; /* hits */
  atomic_uint_fast64_t generic;        /* calls the generic kernel ran (tiered execution) */
} hit_stripe;
_Static_assert(sizeof(hit_stripe) == 64, "a stripe is one cache line");

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
  hit_stripe hits[HIT_STRIPES]; /* hits[i]: written only by the thread of index i (reclaim.h) */
  hit_stripe shared_hits;       /* threads without a stripe: atomic adds */
  /* eviction (cache.h) */
  uint64_t limit;                  /* bytes, 0: none (under the lock) */
  size_t bytes;                    /* accounted, under the lock ... */
  atomic_uint_fast64_t bytes_now;  /* ... and its copy for trim's lock-free check */
  atomic_uint_fast64_t tick;       /* advanced by every miss: the clock of `used` */
  pthread_mutex_t evict_lock;      /* one trim at a time */
  uint64_t trims;
};

ixj_status ixj__cache_create(kernel_cache **out, ixj_error *err) {
  /* aligned: each stripe on its own cache line */
  kernel_cache *c = aligned_alloc(_Alignof(kernel_cache), sizeof *c);
  if (!c) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  memset(c, 0, sizeof *c);
  for (int b = 0; b < NUM_BUCKETS; b++) atomic_init(&c->bucket[b], NULL);
  for (int s = 0; s < HIT_STRIPES; s++) atomic_init(&c->hits[s].n, 0);
  for (int s = 0; s < HIT_STRIPES; s++) atomic_init(&c->hits[s].generic, 0);
  atomic_init(&c->shared_hits.n, 0);
  atomic_init(&c->shared_hits.generic, 0);
  atomic_init(&c->bytes_now, 0);
  atomic_init(&c->tick, 1);
  c->retry_ms = RETRY_MS;
  pthread_mutex_init(&c->evict_lock, NULL);
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
  pthread_mutex_destroy(&c->evict_lock);
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
  for (int b = 0; b < NUM_BUCKETS; b++) /* failures already recorded: due by the new interval */
    for (entry *e = atomic_load_explicit(&c->bucket[b], memory_order_relaxed); e; e = e->next)
      if (atomic_load_explicit(&e->slot.state, memory_order_relaxed) == FAILED)
        atomic_store_explicit(&e->retry_at_us, (int_fast64_t)((e->failed_at + ms) * 1000), memory_order_relaxed);
  pthread_mutex_unlock(&c->lock);
}

/* The entry's outcome once it has left COMPILING (state read with acquire;
 * a FAILED entry's error under the lock). */
static ixj_status outcome(const entry *e, int state, kernel_ref *kernel, ixj_error *err) {
  if (state == READY) {
    *kernel = ixj__slot_get(&e->slot);
    return IXJ_OK;
  }
  if (err) *err = e->error;
  return e->error.status;
}

/* Adds one to a counter of the thread of index `thread` (reclaim.h): in its
 * own stripe, which no other thread writes, a relaxed load and store are
 * exact; in the shared stripe, an atomic add. `field` is the counter's
 * offset in a stripe. */
static void count(kernel_cache *c, unsigned thread, size_t field) {
  if (thread < HIT_STRIPES) {
    atomic_uint_fast64_t *n = (atomic_uint_fast64_t *)((char *)&c->hits[thread] + field);
    atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1, memory_order_relaxed);
  } else {
    atomic_fetch_add_explicit((atomic_uint_fast64_t *)((char *)&c->shared_hits + field), 1, memory_order_relaxed);
  }
}
#define count_hit(c, thread) count(c, thread, offsetof(hit_stripe, n))

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
  atomic_init(&e->slot.kernel, 0);
  atomic_init(&e->retry_at_us, 0);
  atomic_init(&e->pins, 0);
  atomic_init(&e->used, atomic_fetch_add_explicit(&c->tick, 1, memory_order_relaxed));
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
    count_hit(c, ixj__thread_index());
    *hit = true;
    *slot = &e->slot;
    return outcome(e, state, kernel, err);
  }
  pthread_mutex_lock(&c->lock);
  if (!e) e = find(c, h, key, key_len); /* another miss may have inserted it meanwhile */
  if (e) {
    /* another thread compiles it (for this caller, a hit after the wait), or
     * its code is on its way out (then it is made again): wait */
    bool waited = false;
    while ((state = atomic_load_explicit(&e->slot.state, memory_order_acquire)) == COMPILING || state == EVICTING) {
      if (state == COMPILING && !waited) c->stats.misses++;
      waited |= state == COMPILING;
      pthread_cond_wait(&c->compiled, &c->lock);
    }
    if (state == EVICTED || (!waited && state == FAILED && ixj__now_ms() - e->failed_at >= c->retry_ms)) {
      c->stats.misses += !waited; /* this caller makes it */
      atomic_store_explicit(&e->slot.state, COMPILING, memory_order_relaxed);
      atomic_fetch_add_explicit(&c->tick, 1, memory_order_relaxed);
      pthread_mutex_unlock(&c->lock);
      goto compile;
    }
    if (!waited) c->stats.hits++;
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
    ixj__slot_set(&e->slot, kernel);
    atomic_store_explicit(&e->slot.state, READY, memory_order_release);
  } else {
    if (!absent) c->stats.failures++;
    e->error = *err;
    e->error.status = st;
    e->failed_at = ixj__now_ms();
    atomic_store_explicit(&e->retry_at_us, (int_fast64_t)((e->failed_at + c->retry_ms) * 1000), memory_order_relaxed);
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
  if (e && state != FAILED && state != EVICTED) { /* ready, being made or being evicted: no lock */
    if (state == READY) count_hit(c, ixj__thread_index());
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
    if (state == EVICTED || (state == FAILED && ixj__now_ms() - e->failed_at >= c->retry_ms)) {
      c->stats.misses++;
      atomic_store_explicit(&e->slot.state, COMPILING, memory_order_relaxed);
      atomic_fetch_add_explicit(&c->tick, 1, memory_order_relaxed);
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

/* ---- eviction (cache.h) ---------------------------------------------------- */

unsigned ixj__cache_enter(kernel_cache *c) {
  (void)c;
  return ixj__reader_enter(); /* the thread's index: count_hit's stripe */
}

void ixj__cache_leave(kernel_cache *c, unsigned token) {
  (void)c;
  (void)token;
  ixj__reader_leave();
}

bool ixj__cache_use(kernel_cache *c, kernel_slot *slot, kernel_ref *k) {
  entry *e = (entry *)slot;
  if (atomic_load_explicit(&slot->state, memory_order_seq_cst) != READY) return false;
  *k = ixj__slot_get(slot);
  uint64_t now = atomic_load_explicit(&c->tick, memory_order_relaxed);
  if (atomic_load_explicit(&e->used, memory_order_relaxed) != now) /* a write per tick, not per hit */
    atomic_store_explicit(&e->used, now, memory_order_relaxed);
  return true;
}

void ixj__cache_account(kernel_cache *c, kernel_slot *slot, size_t bytes, cache_evict_fn evict, void *arg) {
  entry *e = (entry *)slot;
  pthread_mutex_lock(&c->lock);
  if (atomic_load_explicit(&slot->state, memory_order_relaxed) == READY && !e->bytes && bytes) {
    e->bytes = bytes;
    e->evict = evict;
    e->evict_arg = arg;
    c->bytes += bytes;
    c->stats.memory_bytes = c->bytes;
    atomic_store_explicit(&c->bytes_now, c->bytes, memory_order_relaxed);
  }
  pthread_mutex_unlock(&c->lock);
}

void ixj__cache_set_limit(kernel_cache *c, uint64_t bytes) {
  pthread_mutex_lock(&c->lock);
  c->limit = bytes;
  pthread_mutex_unlock(&c->lock);
}

bool ixj__cache_pin(kernel_cache *c, kernel_slot *slot) {
  (void)c;
  entry *e = (entry *)slot;
  atomic_fetch_add_explicit(&e->pins, 1, memory_order_seq_cst);
  int state = atomic_load_explicit(&slot->state, memory_order_seq_cst); /* pairs with trim's store, then load */
  if (state == EVICTING || state == EVICTED) {
    atomic_fetch_sub_explicit(&e->pins, 1, memory_order_seq_cst);
    return false;
  }
  return true;
}

void ixj__cache_unpin(kernel_cache *c, kernel_slot *slot) {
  (void)c;
  atomic_fetch_sub_explicit(&((entry *)slot)->pins, 1, memory_order_seq_cst);
}

bool ixj__cache_retry_due(kernel_cache *c, const kernel_slot *slot) {
  (void)c;
  const entry *e = (const entry *)slot;
  return ixj__now_ms() * 1000 >= (double)atomic_load_explicit(&e->retry_at_us, memory_order_relaxed);
}

/* The least recently used evictable entry but keep, not found pinned in this
 * pass (under the lock). */
static entry *lru_victim(kernel_cache *c, const kernel_slot *keep) {
  entry *best = NULL;
  uint64_t best_used = UINT64_MAX;
  for (int b = 0; b < NUM_BUCKETS; b++)
    for (entry *e = atomic_load_explicit(&c->bucket[b], memory_order_relaxed); e; e = e->next) {
      uint64_t used = atomic_load_explicit(&e->used, memory_order_relaxed);
      if (e->bytes && e->evict && &e->slot != keep && e->tried != c->trims && used < best_used &&
          atomic_load_explicit(&e->slot.state, memory_order_relaxed) == READY) {
        best = e;
        best_used = used;
      }
    }
  return best;
}

void ixj__cache_trim(kernel_cache *c, const kernel_slot *keep) {
  /* the limit is set before the cache is shared (ixj__cache_set_limit at the context's creation) */
  if (!c->limit || atomic_load_explicit(&c->bytes_now, memory_order_relaxed) <= c->limit) return;
  pthread_mutex_lock(&c->evict_lock);
  entry *victims = NULL;
  pthread_mutex_lock(&c->lock);
  c->trims++;
  while (c->limit && c->bytes > c->limit) {
    entry *e = lru_victim(c, keep);
    if (!e) break;
    /* Dekker with ixj__cache_pin: state first, then the pins */
    atomic_store_explicit(&e->slot.state, EVICTING, memory_order_seq_cst);
    if (atomic_load_explicit(&e->pins, memory_order_seq_cst)) {
      atomic_store_explicit(&e->slot.state, READY, memory_order_release);
      e->tried = c->trims;
      continue;
    }
    c->bytes -= e->bytes;
    c->stats.evictions++;
    e->victim_next = victims;
    victims = e;
  }
  c->stats.memory_bytes = c->bytes;
  atomic_store_explicit(&c->bytes_now, c->bytes, memory_order_relaxed);
  pthread_mutex_unlock(&c->lock);
  if (victims) {
    ixj__reader_synchronize(); /* nobody runs a victim's code now, and nobody new will: it is EVICTING */
    for (entry *e = victims; e; e = e->victim_next) {
      kernel_ref k = ixj__slot_get(&e->slot);
      e->evict(e->evict_arg, &k);
    }
    pthread_mutex_lock(&c->lock);
    for (entry *e = victims; e; e = e->victim_next) {
      e->bytes = 0;
      e->evict = NULL;
      atomic_store_explicit(&e->slot.state, EVICTED, memory_order_release);
    }
    pthread_cond_broadcast(&c->compiled);
    pthread_mutex_unlock(&c->lock);
  }
  pthread_mutex_unlock(&c->evict_lock);
}

void ixj__cache_count_generic(kernel_cache *c) { count(c, ixj__thread_index(), offsetof(hit_stripe, generic)); }

void ixj__cache_count_hit(kernel_cache *c, unsigned token) { count_hit(c, token); }

void ixj__cache_stats(kernel_cache *c, ixj_cache_stats *out) {
  pthread_mutex_lock(&c->lock);
  *out = c->stats;
  pthread_mutex_unlock(&c->lock);
  out->generic_calls = 0;
  for (int s = 0; s <= HIT_STRIPES; s++) {
    const hit_stripe *h = s < HIT_STRIPES ? &c->hits[s] : &c->shared_hits;
    out->hits += atomic_load_explicit(&h->n, memory_order_relaxed);
    out->generic_calls += atomic_load_explicit(&h->generic, memory_order_relaxed);
  }
}

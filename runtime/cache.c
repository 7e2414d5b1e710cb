/* The in-memory kernel cache: a hash table keyed by XXH3-128 of the full
 * signature, verified against the signature text itself. An entry is COMPILING
 * while one thread compiles it (outside the table lock); other threads asking
 * for it wait on a condition variable: single flight. */
#include "cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "clock.h"
#include "error.h"

#define NUM_BUCKETS 4096

typedef enum entry_state { COMPILING, READY, FAILED } entry_state;

typedef struct entry {
  XXH128_hash_t hash;
  char *signature;
  entry_state state;
  kernel_ref kernel;
  ixj_error error; /* FAILED */
  struct entry *next;
} entry;

struct kernel_cache {
  pthread_mutex_t lock;
  pthread_cond_t compiled; /* broadcast whenever an entry leaves COMPILING */
  entry *bucket[NUM_BUCKETS];
  ixj_cache_stats stats;
};

ixj_status ixj__cache_create(kernel_cache **out, ixj_error *err) {
  kernel_cache *c = calloc(1, sizeof *c);
  if (!c) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->compiled, NULL);
  *out = c;
  return IXJ_OK;
}

void ixj__cache_destroy(kernel_cache *c) {
  if (!c) return;
  for (int b = 0; b < NUM_BUCKETS; b++)
    for (entry *e = c->bucket[b], *next; e; e = next) {
      next = e->next;
      free(e->signature);
      free(e);
    }
  pthread_cond_destroy(&c->compiled);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

static entry *find(kernel_cache *c, XXH128_hash_t h, const char *signature) {
  for (entry *e = c->bucket[h.low64 % NUM_BUCKETS]; e; e = e->next)
    if (XXH128_isEqual(e->hash, h) && !strcmp(e->signature, signature)) return e;
  return NULL;
}

static ixj_status ready_or_failed(const entry *e, kernel_ref *kernel, ixj_error *err) {
  if (e->state == READY) {
    *kernel = e->kernel;
    return IXJ_OK;
  }
  if (err) *err = e->error;
  return e->error.status;
}

ixj_status ixj__cache_get(kernel_cache *c, const char *signature, cache_compile_fn compile, void *arg,
                     kernel_ref *kernel, bool *hit, bool *loaded, double *compile_ms, ixj_error *err) {
  XXH128_hash_t h = XXH3_128bits(signature, strlen(signature));
  *hit = false;
  *loaded = false;
  *compile_ms = 0;
  pthread_mutex_lock(&c->lock);
  entry *e = find(c, h, signature);
  if (e && e->state != COMPILING) {
    c->stats.hits++;
    *hit = true;
    ixj_status st = ready_or_failed(e, kernel, err);
    pthread_mutex_unlock(&c->lock);
    return st;
  }
  c->stats.misses++;
  if (e) { /* another thread compiles it: wait; for this caller, a hit */
    while (e->state == COMPILING) pthread_cond_wait(&c->compiled, &c->lock);
    *hit = true;
    ixj_status st = ready_or_failed(e, kernel, err);
    pthread_mutex_unlock(&c->lock);
    return st;
  }
  e = calloc(1, sizeof *e);
  char *sig = e ? strdup(signature) : NULL;
  if (!sig) {
    free(e);
    pthread_mutex_unlock(&c->lock);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  e->hash = h;
  e->signature = sig;
  e->state = COMPILING;
  e->next = c->bucket[h.low64 % NUM_BUCKETS];
  c->bucket[h.low64 % NUM_BUCKETS] = e;
  c->stats.entries++;
  pthread_mutex_unlock(&c->lock);

  double t0 = ixj__now_ms();
  kernel_ref compiled = {.handle = NULL};
  ixj_error cerr = {IXJ_OK, 0, ""};
  ixj_status st = compile(arg, &compiled, loaded, &cerr);
  double dt = ixj__now_ms() - t0;

  pthread_mutex_lock(&c->lock);
  if (*loaded) c->stats.disk_hits++;
  else c->stats.compiles++;
  c->stats.compile_ms += dt;
  if (st == IXJ_OK) {
    e->state = READY;
    e->kernel = compiled;
    *kernel = compiled;
  } else {
    c->stats.failures++;
    e->state = FAILED;
    e->error = cerr;
    if (err) *err = cerr;
  }
  pthread_cond_broadcast(&c->compiled);
  pthread_mutex_unlock(&c->lock);
  *compile_ms = dt;
  return st;
}

void ixj__cache_stats(kernel_cache *c, ixj_cache_stats *out) {
  pthread_mutex_lock(&c->lock);
  *out = c->stats;
  pthread_mutex_unlock(&c->lock);
}

/* The per-call fast path's table (call_cache.h): insert-only buckets read
 * without a lock, like the kernel cache's (cache.c): an entry is filled in,
 * then published at its bucket's head with a release store that readers
 * pair with an acquire load; additions are serialized by a mutex. */
#include "call_cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "error.h"

#define NUM_BUCKETS 4096

typedef struct call_entry {
  uint64_t hash;
  size_t len;
  call_value value;
  struct call_entry *next;
  uint8_t key[]; /* len bytes */
} call_entry;

struct call_cache {
  _Atomic(call_entry *) bucket[NUM_BUCKETS];
  pthread_mutex_t add_lock;
};

ixj_status ixj__call_cache_create(call_cache **out, ixj_error *err) {
  call_cache *c = calloc(1, sizeof *c);
  if (!c) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  for (int b = 0; b < NUM_BUCKETS; b++) atomic_init(&c->bucket[b], NULL);
  pthread_mutex_init(&c->add_lock, NULL);
  *out = c;
  return IXJ_OK;
}

void ixj__call_cache_destroy(call_cache *c) {
  if (!c) return;
  for (int b = 0; b < NUM_BUCKETS; b++)
    for (call_entry *e = atomic_load_explicit(&c->bucket[b], memory_order_relaxed), *next; e; e = next) {
      next = e->next;
      free(e);
    }
  pthread_mutex_destroy(&c->add_lock);
  free(c);
}

/* One operand into w[*n..]: its LMAD but the offset, and its first
 * element's place in 64 bytes; false when it is not one the table takes or
 * would not fit. The key is built in 64-bit words with a local count, which
 * the compiler keeps in a register (bytes would alias it). */
static bool put_operand(const ixj_operand *o, size_t elem, int64_t *w, size_t *count) {
  if (!o || !o->ixfun || !o->data || o->ixfun->num_lmads != 1) return false;
  const ixj_lmad *l = &o->ixfun->lmads[0];
  size_t n = *count;
  if (l->rank < 0 || n + 2 + 4 * (size_t)l->rank > CALL_KEY_WORDS) return false;
  w[n++] = l->rank;
  w[n++] = (int64_t)(((uint64_t)(uintptr_t)o->data + (uint64_t)l->offset * elem) % 64);
  for (int k = 0; k < l->rank; k++) {
    if (l->shape[k] == 0) return false; /* empty: the long way says so */
    w[n++] = l->shape[k];
    w[n++] = l->stride[k];
    w[n++] = l->rotate[k];
    w[n++] = l->perm[k];
  }
  *count = n;
  return true;
}

size_t ixj__call_key(const op_call *c, int64_t *w) {
  size_t n = 0;
  int srcs = c->op == IXJ_OP_COPY ? 1 : c->op == IXJ_OP_CAT ? c->num_srcs : 0;
  if (c->shapes_only || (c->op != IXJ_OP_COPY && c->op != IXJ_OP_FILL && c->op != IXJ_OP_CAT)) return 0;
  if (c->op == IXJ_OP_COPY && c->num_srcs != 1) return 0;
  if (srcs > CALL_MAX_SRCS || (c->op == IXJ_OP_CAT && srcs < 1) || (srcs && !c->srcs)) return 0;
  w[n++] = c->op;
  w[n++] = (int64_t)c->elem_size;
  if (c->op == IXJ_OP_CAT) {
    w[n++] = c->axis;
    w[n++] = srcs;
  }
  if (!put_operand(c->dst, c->elem_size, w, &n)) return 0;
  for (int k = 0; k < srcs; k++)
    if (!put_operand(&c->srcs[k], c->elem_size, w, &n)) return 0;
  return n * sizeof *w;
}

static call_entry *find(call_cache *c, uint64_t h, const uint8_t *key, size_t len) {
  for (call_entry *e = atomic_load_explicit(&c->bucket[h % NUM_BUCKETS], memory_order_acquire); e; e = e->next)
    if (e->hash == h && e->len == len && !memcmp(e->key, key, len)) return e;
  return NULL;
}

const call_value *ixj__call_cache_find(call_cache *c, const uint8_t *key, size_t len) {
  call_entry *e = find(c, XXH3_64bits(key, len), key, len);
  return e ? &e->value : NULL;
}

bool ixj__call_cache_add(call_cache *c, const uint8_t *key, size_t len, const call_value *value) {
  uint64_t h = XXH3_64bits(key, len);
  bool ok = true;
  pthread_mutex_lock(&c->add_lock);
  if (!find(c, h, key, len)) {
    call_entry *e = malloc(sizeof *e + len);
    if (e) {
      e->hash = h;
      e->len = len;
      e->value = *value;
      memcpy(e->key, key, len);
      e->next = atomic_load_explicit(&c->bucket[h % NUM_BUCKETS], memory_order_relaxed);
      atomic_store_explicit(&c->bucket[h % NUM_BUCKETS], e, memory_order_release);
    }
    ok = e != NULL;
  }
  pthread_mutex_unlock(&c->add_lock);
  return ok;
}

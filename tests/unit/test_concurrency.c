/* Concurrency: 8 threads x thousands of dispatches over hundreds of
 * signatures on one context. Every result must be right and every signature
 * compiled exactly once (the cache's counters prove it). Then contexts made,
 * used and destroyed on several threads at once: the host's target machines
 * are the process's (runtime/jit_llvm.c), taken and given back by every
 * context. Run under ThreadSanitizer by the tsan preset. */
#include <pthread.h>

#include "test_util.h"

#define THREADS 8
#define SIGNATURES 200
#define DISPATCHES 2000 /* per thread */

typedef struct sig_case {
  ixj_ixfun *dst, *src;
  int64_t n, m;
} sig_case;

static ixj_context *ctx;
static sig_case cases[SIGNATURES];

/* Signature k: copy a transposed n x m int32 view (n, m from k) into a
 * row-major array; the four strategies come up as k varies. */
static void make_case(int k, sig_case *c) {
  char dst[128], src[128];
  c->n = 2 + k % 20;
  c->m = 3 + k / 20;
  snprintf(dst, sizeof dst, "iota %lld %lld", (long long)c->n, (long long)c->m);
  if (k % 3 == 0)
    snprintf(src, sizeof src, "iota %lld %lld | permute 1 0", (long long)c->m, (long long)c->n);
  else if (k % 3 == 1)
    snprintf(src, sizeof src, "iota %lld %lld | slice ::-1 | rotate 1 2", (long long)c->n, (long long)c->m);
  else
    snprintf(src, sizeof src, "iota %lld %lld | permute 1 0 | reshape %lld %lld", (long long)c->m, (long long)c->n,
             (long long)c->n, (long long)c->m);
  c->dst = parse_ok(dst);
  c->src = parse_ok(src);
}

static void *worker(void *arg) {
  uint64_t seed = 0x9E3779B97F4A7C15u * (uint64_t)((intptr_t)arg + 1);
  int32_t src[1024], dst[1024], want[1024];
  for (int k = 0; k < 1024; k++) src[k] = k * 7 + (int)(intptr_t)arg;
  intptr_t bad = 0;
  for (int d = 0; d < DISPATCHES; d++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    sig_case *c = &cases[(seed >> 33) % SIGNATURES];
    size_t bytes = (size_t)(c->n * c->m) * sizeof(int32_t);
    ixj_operand od = {dst, bytes, c->dst}, os = {src, sizeof src, c->src}, ow = {want, bytes, c->dst};
    ixj_error err;
    memset(dst, 0, bytes);
    if (ixj_copy(ctx, &od, &os, 4, NULL, &err) != IXJ_OK || ixj_reference_copy(&ow, &os, 4, &err) != IXJ_OK ||
        memcmp(dst, want, bytes))
      bad++;
  }
  return (void *)bad;
}

static void test_many_threads(void **state) {
  (void)state;
  ixj_error err;
  assert_int_equal(ixj_context_create(&(ixj_context_options){.num_threads = 2, .disk_cache = -1}, &ctx, &err), IXJ_OK);
  for (int k = 0; k < SIGNATURES; k++) make_case(k, &cases[k]);
  pthread_t th[THREADS];
  for (intptr_t t = 0; t < THREADS; t++) assert_int_equal(pthread_create(&th[t], NULL, worker, (void *)t), 0);
  for (int t = 0; t < THREADS; t++) {
    void *bad;
    pthread_join(th[t], &bad);
    assert_int_equal((intptr_t)bad, 0);
  }
  ixj_cache_stats stats;
  ixj_context_cache_stats(ctx, &stats);
  /* each signature that needs a kernel was compiled exactly once */
  assert_int_equal(stats.failures, 0);
  assert_int_equal(stats.compiles, stats.entries);
  assert_int_equal(stats.compiles, SIGNATURES); /* all 200 are drawn: 16,000 draws */
  assert_int_equal(stats.hits + stats.misses, (uint64_t)THREADS * DISPATCHES);
  assert_true(stats.misses >= stats.compiles);
  printf("%llu compiles, %llu hits, %llu misses (incl. waits for another thread's compile)\n",
         (unsigned long long)stats.compiles, (unsigned long long)stats.hits, (unsigned long long)stats.misses);
  for (int k = 0; k < SIGNATURES; k++) {
    ixj_ixfun_free(cases[k].dst);
    ixj_ixfun_free(cases[k].src);
  }
  ixj_context_destroy(ctx);
}

/* One thread's contexts, one after another: each compiles its share of the
 * signatures (different on every thread and round) and checks every result. */
#define CONTEXT_THREADS 4
#define CONTEXT_ROUNDS 3
#define CONTEXT_SIGNATURES 8
static void *context_worker(void *arg) {
  intptr_t t = (intptr_t)arg, bad = 0;
  int32_t src[1024], dst[1024], want[1024];
  for (int k = 0; k < 1024; k++) src[k] = k * 5 + (int)t;
  for (int r = 0; r < CONTEXT_ROUNDS; r++) {
    ixj_context *own = NULL;
    ixj_error err;
    if (ixj_context_create(&(ixj_context_options){.num_threads = 1, .disk_cache = -1}, &own, &err) != IXJ_OK) return (void *)1;
    for (int k = 0; k < CONTEXT_SIGNATURES; k++) {
      sig_case *c = &cases[(t * CONTEXT_ROUNDS * CONTEXT_SIGNATURES + r * CONTEXT_SIGNATURES + k) % SIGNATURES];
      size_t bytes = (size_t)(c->n * c->m) * sizeof(int32_t);
      ixj_operand od = {dst, bytes, c->dst}, os = {src, sizeof src, c->src}, ow = {want, bytes, c->dst};
      ixj_call_info info;
      memset(dst, 0, bytes);
      if (ixj_copy(own, &od, &os, 4, &info, &err) != IXJ_OK || ixj_reference_copy(&ow, &os, 4, &err) != IXJ_OK ||
          memcmp(dst, want, bytes))
        bad++;
    }
    ixj_cache_stats stats;
    ixj_context_cache_stats(own, &stats);
    if (stats.failures) bad++;
    ixj_context_destroy(own);
  }
  return (void *)bad;
}

static void test_contexts_on_threads(void **state) {
  (void)state;
  for (int k = 0; k < SIGNATURES; k++) make_case(k, &cases[k]);
  pthread_t th[CONTEXT_THREADS];
  for (intptr_t t = 0; t < CONTEXT_THREADS; t++)
    assert_int_equal(pthread_create(&th[t], NULL, context_worker, (void *)t), 0);
  for (int t = 0; t < CONTEXT_THREADS; t++) {
    void *bad;
    pthread_join(th[t], &bad);
    assert_int_equal((intptr_t)bad, 0);
  }
  for (int k = 0; k < SIGNATURES; k++) {
    ixj_ixfun_free(cases[k].dst);
    ixj_ixfun_free(cases[k].src);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_many_threads), cmocka_unit_test(test_contexts_on_threads)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Bounded memory (IXJIT_MEMORY_CACHE_MAX_BYTES, docs/hot-path.md): the memory
 * cache's least-recently-used eviction of whole kernels, every result
 * checked against the reference interpreter:
 *   - a limit below one kernel: every miss evicts the kernel before it, the
 *     evicted ones are compiled (and linked under their old symbol) again,
 *     the plain calls and the fast path stay right;
 *   - prepared kernels alive under that limit are never evicted: they never
 *     fall back to the generic kernel, and they count against the limit
 *     until released, after which a miss evicts them;
 *   - the variable parsed (a bad value is one warning and the default);
 *   - 8 threads hitting, missing, preparing and evicting at once with async
 *     compiles in flight (ThreadSanitizer in the tsan preset). */
#define _GNU_SOURCE /* setenv */
#include <pthread.h>

#include "test_tiered_cases.h"

static ixj_context *limited(int mode, uint64_t limit) {
  ixj_context *ctx;
  ixj_error err;
  ixj_context_options o = {.num_threads = 2, .disk_cache = -1, .compile_mode = mode, .memory_cache_max_bytes = limit};
  if (ixj_context_create(&o, &ctx, &err) != IXJ_OK) fail_msg("context: %s", err.message);
  return ctx;
}

static void test_tiny_limit(void **state) {
  (void)state;
  ixj_context *ctx = limited(IXJ_COMPILE_SYNC, 1);
  uint64_t kernels = 0;
  for (int round = 0; round < 3; round++)
    for (int k = 0; k < NUM_CASES; k++)
      for (int rep = 0; rep < 2; rep++) { /* the second call: the fast path where the call has one */
        ixj_call_info info;
        if (!run_case(ctx, k, false, (unsigned)(round * 100 + k * 2 + rep), &info))
          fail_msg("round %d case %d: wrong result", round, k);
        assert_false(info.generic);
        kernels += round == 0 && rep == 0 && needs_kernel(&info);
      }
  ixj_cache_stats st;
  ixj_context_cache_stats(ctx, &st);
  printf("%llu compiles, %llu evictions, %llu bytes in memory\n", (unsigned long long)st.compiles,
         (unsigned long long)st.evictions, (unsigned long long)st.memory_bytes);
  assert_int_equal(st.failures, 0);
  /* each round compiles every kernel again (at least: a call on buffers
   * aligned otherwise than its predecessor's may need a kernel of its own) */
  assert_true(st.compiles >= 3 * kernels);
  assert_true(st.evictions >= st.compiles - 1);
  assert_true(st.memory_bytes > 0 && st.memory_bytes < 256 << 10); /* the last kernel only */
  ixj_context_destroy(ctx);
}

static void test_prepared_never_evicted(void **state) {
  (void)state;
  ixj_context *ctx = limited(IXJ_COMPILE_SYNC, 1);
  ixj_kernel *kern[4];
  ixj_error err;
  for (int k = 0; k < 4; k++) /* cases 0..3: copies with kernels */
    assert_int_equal(ixj_prepare_copy(ctx, P[k].dst, P[k].src[0], cases[k].elem, 0, &kern[k], &err), IXJ_OK);
  ixj_cache_stats st, before;
  ixj_context_cache_stats(ctx, &before);
  for (int k = 4; k < NUM_CASES; k++) { /* misses over the limit: the pinned kernels stay */
    ixj_call_info info;
    assert_true(run_case(ctx, k, false, (unsigned)k, &info));
  }
  ixj_context_cache_stats(ctx, &st);
  assert_true(st.evictions > before.evictions);
  assert_true(st.memory_bytes >= before.memory_bytes); /* the four pinned ones still count */
  for (int k = 0; k < 4; k++) {
    const parsed *p = &P[k];
    unsigned char *a = malloc(p->src_bytes[0]), *b = malloc(p->dst_bytes), *want = malloc(p->dst_bytes);
    pattern(a, p->src_bytes[0], 5);
    pattern(b, p->dst_bytes, 6);
    memcpy(want, b, p->dst_bytes);
    ixj_operand w = {want, p->dst_bytes, p->dst}, s = {a, p->src_bytes[0], p->src[0]};
    assert_int_equal(ixj_reference_copy(&w, &s, cases[k].elem, &err), IXJ_OK);
    ixj_buffer bd = {b, p->dst_bytes}, bs = {a, p->src_bytes[0]};
    assert_int_equal(ixj_kernel_run(kern[k], bd, 1, &bs, NULL, &err), IXJ_OK);
    assert_memory_equal(b, want, p->dst_bytes);
    free(a);
    free(b);
    free(want);
  }
  ixj_context_cache_stats(ctx, &before);
  assert_int_equal(before.generic_calls, 0); /* the prepared runs ran their own kernels */
  uint64_t pinned = before.memory_bytes;
  for (int k = 0; k < 4; k++) ixj_kernel_release(kern[k]);
  for (int k = 4; k < NUM_CASES; k++) { /* now they may go */
    ixj_call_info info;
    assert_true(run_case(ctx, k, false, (unsigned)k + 50, &info));
  }
  ixj_context_cache_stats(ctx, &st);
  assert_true(st.memory_bytes < pinned);
  ixj_context_destroy(ctx);
}

static int warnings;
static void count_warning(void *user, ixj_log_level level, const char *message) {
  (void)user;
  if (level == IXJ_LOG_WARNING && strstr(message, "IXJIT_MEMORY_CACHE_MAX_BYTES")) warnings++;
}

static void test_env(void **state) {
  (void)state;
  ixj_context *ctx;
  ixj_error err;
  ixj_call_info info;
  ixj_context_options o = {.num_threads = 1, .disk_cache = -1, .log = count_warning};
  setenv("IXJIT_MEMORY_CACHE_MAX_BYTES", "12 MiB", 1);
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  assert_int_equal(warnings, 1);
  ixj_context_destroy(ctx);
  setenv("IXJIT_MEMORY_CACHE_MAX_BYTES", "1", 1);
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  for (int k = 0; k < 3; k++) assert_true(run_case(ctx, k, false, 1, &info));
  ixj_cache_stats st;
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.evictions, 2);
  ixj_context_destroy(ctx);
  unsetenv("IXJIT_MEMORY_CACHE_MAX_BYTES");
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK); /* the default: room for all */
  for (int k = 0; k < 3; k++) assert_true(run_case(ctx, k, false, 1, &info));
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.evictions, 0);
  ixj_context_destroy(ctx);
}

/* ---- 8 threads ------------------------------------------------------------ */

#define THREADS 8
#define ROUNDS 100

static ixj_context *shared;

static void *worker(void *arg) {
  uint64_t seed = 0x9E3779B97F4A7C15u * (uint64_t)((intptr_t)arg + 3);
  intptr_t bad = 0;
  for (int r = 0; r < ROUNDS; r++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    int k = (int)((seed >> 33) % NUM_CASES);
    ixj_call_info info;
    if (!run_case(shared, k, (seed >> 20) % 3 == 0, (unsigned)r, &info)) bad++;
  }
  return (void *)bad;
}

static void test_threads_evicting(void **state) {
  (void)state;
  for (int mode = IXJ_COMPILE_SYNC; mode <= IXJ_COMPILE_ASYNC; mode++) {
    shared = limited(mode, 24 << 10); /* two or three kernels */
    pthread_t th[THREADS];
    for (intptr_t t = 0; t < THREADS; t++) assert_int_equal(pthread_create(&th[t], NULL, worker, (void *)t), 0);
    for (int t = 0; t < THREADS; t++) {
      void *bad;
      pthread_join(th[t], &bad);
      assert_int_equal((intptr_t)bad, 0);
    }
    ixj_wait_compiles(shared);
    ixj_cache_stats st;
    ixj_context_cache_stats(shared, &st);
    printf("%s: %llu compiles, %llu evictions, %llu hits, %llu generic calls\n", mode == IXJ_COMPILE_SYNC ? "sync" : "async",
           (unsigned long long)st.compiles, (unsigned long long)st.evictions, (unsigned long long)st.hits,
           (unsigned long long)st.generic_calls);
    assert_int_equal(st.failures, 0);
    assert_true(st.evictions > 0);
    ixj_context_destroy(shared);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tiny_limit),
      cmocka_unit_test(test_prepared_never_evicted),
      cmocka_unit_test(test_env),
      cmocka_unit_test(test_threads_evicting),
  };
  return cmocka_run_group_tests(tests, parse_all, free_all);
}

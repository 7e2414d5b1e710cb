/* Tiered execution (IXJIT_COMPILE=sync|async|cache-only, docs/hot-path.md)
 * through the public API. Every call's whole destination buffer is checked
 * against the reference interpreter's:
 *   - the generic kernel alone (cache-only, no disk: nothing ever compiles)
 *     on copies, fills and cats of every element size: transposes, reversed,
 *     rotated and strided views, chains, rank 0, a cat into a rotated
 *     destination and along either axis;
 *   - async: a miss runs the generic kernel, and after ixj_wait_compiles the
 *     same call runs the compiled one (the counters and ixj_call_info say
 *     which ran), also on the per-call fast path and for prepared kernels;
 *   - cache-only with a disk cache: a miss records its signature and never
 *     compiles; once another context has compiled it, the kernel is loaded;
 *     a prepared kernel the disk lacked at prepare picks it up on its first
 *     run after the retry interval (set by the cache's test hook: forever,
 *     then 0), not before, also with 8 threads running it meanwhile;
 *   - IXJIT_COMPILE parsed (a bad value is one warning and sync), a bad
 *     compile_mode refused;
 *   - a context destroyed with compiles queued and running;
 *   - 8 threads hitting, missing and preparing at once with compiles in
 *     flight (ThreadSanitizer in the tsan preset). */
#define _GNU_SOURCE /* mkdtemp, setenv, usleep */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "test_tiered_cases.h"

#include "context_internal.h" /* the retry interval's test hook */

static void set_retry_ms(ixj_context *ctx, double ms) { ixj__cache_set_retry_ms(ctx->cache, ms); }

static ixj_context *make_ctx(int mode, int disk, const char *dir, const char *record) {
  ixj_context *ctx;
  ixj_error err;
  ixj_context_options o = {.num_threads = 2, .disk_cache = disk, .cache_dir = dir, .record_path = record,
                           .compile_mode = mode};
  if (ixj_context_create(&o, &ctx, &err) != IXJ_OK) fail_msg("context: %s", err.message);
  return ctx;
}

static void test_generic_every_case(void **state) {
  (void)state;
  ixj_context *ctx = make_ctx(IXJ_COMPILE_CACHE_ONLY, -1, NULL, NULL);
  uint64_t generic = 0;
  for (int k = 0; k < NUM_CASES; k++)
    for (int rep = 0; rep < 2; rep++) {
      ixj_call_info info;
      if (!run_case(ctx, k, false, (unsigned)(k * 2 + rep), &info)) fail_msg("case %d (%s): wrong result", k, cases[k].dst);
      assert_int_equal(info.generic, needs_kernel(&info)); /* no disk, no compile: always generic */
      generic += info.generic;
      if (!run_case(ctx, k, true, (unsigned)(k * 2 + rep + 50), &info)) fail_msg("case %d prepared: wrong result", k);
    }
  ixj_cache_stats st;
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.compiles, 0);
  assert_int_equal(st.failures, 0);
  assert_true(st.generic_calls >= generic);
  assert_true(generic >= 2 * (NUM_CASES - 1)); /* all but the memcpy copy */
  ixj_context_destroy(ctx);
}

static void test_async_swaps(void **state) {
  (void)state;
  ixj_context *ctx = make_ctx(IXJ_COMPILE_ASYNC, -1, NULL, NULL);
  uint64_t kernels = 0;
  for (int k = 0; k < NUM_CASES; k++) {
    ixj_call_info info;
    if (!run_case(ctx, k, false, (unsigned)k, &info)) fail_msg("case %d: wrong result (first call)", k);
    assert_int_equal(info.generic, needs_kernel(&info)); /* a miss never waits */
    kernels += info.generic;
  }
  ixj_wait_compiles(ctx);
  ixj_cache_stats st;
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.compiles_queued, 0);
  assert_int_equal(st.compiles, kernels);
  assert_int_equal(st.failures, 0);
  assert_int_equal(st.generic_calls, kernels);
  for (int k = 0; k < NUM_CASES; k++)
    for (int rep = 0; rep < 3; rep++) { /* the long way, then the fast path where the call has one */
      ixj_call_info info;
      if (!run_case(ctx, k, false, (unsigned)(k + 7 * rep), &info)) fail_msg("case %d: wrong result (compiled)", k);
      assert_false(info.generic);
      assert_true(info.cache_hit);
      if (!run_case(ctx, k, true, (unsigned)(k + 100 + rep), &info)) fail_msg("case %d prepared: wrong result", k);
    }
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.generic_calls, kernels); /* nothing ran generic once compiled */
  assert_int_equal(st.compiles, kernels);
  ixj_context_destroy(ctx);
}

/* A prepared kernel under async: its runs are right before the compile lands
 * and after, when they no longer run generic (the handle upgraded itself). */
static void test_prepared_upgrades(void **state) {
  (void)state;
  ixj_context *ctx = make_ctx(IXJ_COMPILE_ASYNC, -1, NULL, NULL);
  const parsed *p = &P[1];
  ixj_kernel *kern;
  ixj_error err;
  assert_int_equal(ixj_prepare_copy(ctx, p->dst, p->src[0], 4, 0, &kern, &err), IXJ_OK);
  float *a = malloc(p->src_bytes[0]), *b = malloc(p->dst_bytes), *want = malloc(p->dst_bytes);
  for (size_t k = 0; k < p->src_bytes[0] / 4; k++) a[k] = (float)k;
  ixj_operand w = {want, p->dst_bytes, p->dst}, s = {a, p->src_bytes[0], p->src[0]};
  assert_int_equal(ixj_reference_copy(&w, &s, 4, &err), IXJ_OK);
  ixj_buffer bd = {b, p->dst_bytes}, bs = {a, p->src_bytes[0]};
  memset(b, 0, p->dst_bytes);
  assert_int_equal(ixj_kernel_run(kern, bd, 1, &bs, NULL, &err), IXJ_OK); /* generic or compiled: right either way */
  assert_memory_equal(b, want, p->dst_bytes);
  ixj_wait_compiles(ctx);
  ixj_cache_stats before, after;
  ixj_context_cache_stats(ctx, &before);
  memset(b, 0, p->dst_bytes);
  assert_int_equal(ixj_kernel_run(kern, bd, 1, &bs, NULL, &err), IXJ_OK);
  assert_memory_equal(b, want, p->dst_bytes);
  ixj_context_cache_stats(ctx, &after);
  assert_int_equal(after.generic_calls, before.generic_calls);
  assert_int_equal(after.compiles, 1);
  ixj_kernel_release(kern);
  free(a);
  free(b);
  free(want);
  ixj_context_destroy(ctx);
}

static size_t count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  size_t n = 0;
  int ch;
  if (!f) return 0;
  while ((ch = fgetc(f)) != EOF) n += ch == '\n';
  fclose(f);
  return n;
}

static void test_cache_only_disk(void **state) {
  (void)state;
  char dir[] = "/tmp/ixjit-tiered-XXXXXX", record[64];
  assert_non_null(mkdtemp(dir));
  snprintf(record, sizeof record, "%s/record.txt", dir);
  ixj_call_info info;
  ixj_cache_stats st;
  ixj_context *ctx = make_ctx(IXJ_COMPILE_CACHE_ONLY, 1, dir, record);
  for (int rep = 0; rep < 3; rep++) {
    assert_true(run_case(ctx, 0, false, (unsigned)rep, &info));
    assert_true(info.generic);
  }
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.compiles, 0);
  assert_int_equal(st.failures, 0);
  ixj_context_destroy(ctx);
  assert_int_equal(count_lines(record), 1); /* once per kernel, not per call */
  ctx = make_ctx(IXJ_COMPILE_SYNC, 1, dir, NULL); /* what `ixjit warm` does: compile it into the disk cache */
  assert_true(run_case(ctx, 0, false, 1, &info));
  assert_false(info.generic);
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.compiles, 1);
  ixj_context_destroy(ctx);
  ctx = make_ctx(IXJ_COMPILE_CACHE_ONLY, 1, dir, NULL);
  assert_true(run_case(ctx, 0, false, 2, &info));
  assert_false(info.generic);
  assert_true(info.disk_hit);
  assert_true(run_case(ctx, 0, true, 3, &info)); /* prepared: the loaded kernel */
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.compiles, 0);
  assert_int_equal(st.disk_hits, 1);
  assert_int_equal(st.generic_calls, 0);
  ixj_context_destroy(ctx);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}


/* A prepared copy of case 1 (a float transpose) on ctx, its buffers and the
 * reference's result. */
typedef struct prepared_copy {
  ixj_kernel *kern;
  float *src, *dst, *want;
  size_t src_bytes, dst_bytes;
} prepared_copy;

static void prepared_copy_make(ixj_context *ctx, prepared_copy *pc) {
  const parsed *p = &P[1];
  ixj_error err;
  pc->src_bytes = p->src_bytes[0];
  pc->dst_bytes = p->dst_bytes;
  assert_int_equal(ixj_prepare_copy(ctx, p->dst, p->src[0], 4, 0, &pc->kern, &err), IXJ_OK);
  pc->src = aligned_alloc(64, round64(pc->src_bytes));
  pc->dst = aligned_alloc(64, round64(pc->dst_bytes));
  pc->want = malloc(pc->dst_bytes);
  assert_true(pc->src && pc->dst && pc->want);
  for (size_t k = 0; k < pc->src_bytes / 4; k++) pc->src[k] = (float)k;
  memset(pc->want, 0, pc->dst_bytes);
  ixj_operand w = {pc->want, pc->dst_bytes, p->dst}, s = {pc->src, pc->src_bytes, p->src[0]};
  assert_int_equal(ixj_reference_copy(&w, &s, 4, &err), IXJ_OK);
}

/* One run into dst (cleared first): whether it succeeded and agrees with the reference. */
static bool prepared_copy_run(const prepared_copy *pc, float *dst) {
  memset(dst, 0, pc->dst_bytes);
  ixj_buffer bd = {dst, pc->dst_bytes}, bs = {pc->src, pc->src_bytes};
  return ixj_kernel_run(pc->kern, bd, 1, &bs, NULL, NULL) == IXJ_OK && !memcmp(dst, pc->want, pc->dst_bytes);
}

static void prepared_copy_free(prepared_copy *pc) {
  ixj_kernel_release(pc->kern);
  free(pc->src);
  free(pc->dst);
  free(pc->want);
}

static void rm_rf(const char *dir) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* cache-only: the disk lacks the kernel at prepare; a sync context with the
 * same directory compiles it (what `ixjit warm` or another process does).
 * Within the retry interval the prepared kernel stays generic; on its first
 * run after it, it loads the kernel (one disk hit) and from then on runs it. */
static void test_cache_only_prepared_picks_up(void **state) {
  (void)state;
  char dir[] = "/tmp/ixjit-tiered-XXXXXX";
  assert_non_null(mkdtemp(dir));
  ixj_context *ctx = make_ctx(IXJ_COMPILE_CACHE_ONLY, 1, dir, NULL);
  set_retry_ms(ctx, 1e12); /* no retry yet */
  prepared_copy pc;
  prepared_copy_make(ctx, &pc);
  ixj_cache_stats st;
  assert_true(prepared_copy_run(&pc, pc.dst));
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.generic_calls, 1);
  assert_int_equal(st.disk_hits, 0);
  ixj_context *sync = make_ctx(IXJ_COMPILE_SYNC, 1, dir, NULL);
  ixj_call_info info;
  assert_true(run_case(sync, 1, false, 5, &info)); /* compiled, written to the disk */
  assert_false(info.generic);
  ixj_context_destroy(sync);
  assert_true(prepared_copy_run(&pc, pc.dst)); /* within the interval: generic, no disk lookup */
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.generic_calls, 2);
  assert_int_equal(st.disk_hits, 0);
  set_retry_ms(ctx, 0); /* the interval has passed */
  for (int k = 0; k < 4; k++) assert_true(prepared_copy_run(&pc, pc.dst));
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.generic_calls, 2); /* the first run after the interval ran the loaded kernel */
  assert_int_equal(st.disk_hits, 1);
  assert_int_equal(st.compiles, 0);
  prepared_copy_free(&pc);
  ixj_context_destroy(ctx);
  rm_rf(dir);
}

/* The same with 8 threads running one prepared kernel, each result checked,
 * while the kernel is compiled into the disk, with a retry due on every
 * run: the kernel is loaded once, and every run after the threads have seen
 * it is compiled. */
#define PICKUP_THREADS 8
typedef struct pickup_arg {
  const prepared_copy *pc;
  atomic_bool *compiled;
  int bad;
} pickup_arg;

static void *pickup_worker(void *p) {
  pickup_arg *a = p;
  float *dst = aligned_alloc(64, round64(a->pc->dst_bytes));
  if (!dst) return NULL;
  int after = 0;
  while (after < 20) { /* until 20 runs after the compile landed on disk */
    after += atomic_load(a->compiled);
    a->bad += !prepared_copy_run(a->pc, dst);
  }
  free(dst);
  return NULL;
}

static void test_cache_only_prepared_threads(void **state) {
  (void)state;
  char dir[] = "/tmp/ixjit-tiered-XXXXXX";
  assert_non_null(mkdtemp(dir));
  ixj_context *ctx = make_ctx(IXJ_COMPILE_CACHE_ONLY, 1, dir, NULL);
  set_retry_ms(ctx, 0);
  prepared_copy pc;
  prepared_copy_make(ctx, &pc);
  atomic_bool compiled;
  atomic_init(&compiled, false);
  pthread_t th[PICKUP_THREADS];
  pickup_arg args[PICKUP_THREADS];
  for (int t = 0; t < PICKUP_THREADS; t++) {
    args[t] = (pickup_arg){&pc, &compiled, 0};
    assert_int_equal(pthread_create(&th[t], NULL, pickup_worker, &args[t]), 0);
  }
  ixj_context *sync = make_ctx(IXJ_COMPILE_SYNC, 1, dir, NULL);
  ixj_call_info info;
  assert_true(run_case(sync, 1, false, 6, &info));
  ixj_context_destroy(sync);
  atomic_store(&compiled, true);
  for (int t = 0; t < PICKUP_THREADS; t++) {
    pthread_join(th[t], NULL);
    assert_int_equal(args[t].bad, 0);
  }
  ixj_cache_stats before, after;
  ixj_context_cache_stats(ctx, &before);
  assert_int_equal(before.disk_hits, 1); /* loaded once, however many threads found the retry due */
  assert_int_equal(before.compiles, 0);
  for (int k = 0; k < 4; k++) assert_true(prepared_copy_run(&pc, pc.dst));
  ixj_context_cache_stats(ctx, &after);
  assert_int_equal(after.generic_calls, before.generic_calls);
  prepared_copy_free(&pc);
  ixj_context_destroy(ctx);
  rm_rf(dir);
}

static int warnings;
static void count_warning(void *user, ixj_log_level level, const char *message) {
  (void)user;
  if (level == IXJ_LOG_WARNING && strstr(message, "IXJIT_COMPILE")) warnings++;
}

static void test_env(void **state) {
  (void)state;
  ixj_context *ctx;
  ixj_error err;
  ixj_call_info info;
  ixj_context_options o = {.num_threads = 1, .disk_cache = -1, .log = count_warning};
  const char *bad[] = {"bogus", "Async", "async ", ""};
  for (int b = 0; b < 4; b++) {
    setenv("IXJIT_COMPILE", bad[b], 1);
    warnings = 0;
    assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
    assert_int_equal(warnings, *bad[b] ? 1 : 0); /* empty is unset */
    assert_true(run_case(ctx, 0, false, 0, &info));
    assert_false(info.generic); /* sync */
    ixj_context_destroy(ctx);
  }
  setenv("IXJIT_COMPILE", "async", 1);
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  assert_true(run_case(ctx, 0, false, 0, &info));
  assert_true(info.generic);
  ixj_context_destroy(ctx);
  setenv("IXJIT_COMPILE", "cache-only", 1);
  o.compile_mode = IXJ_COMPILE_SYNC; /* the option wins */
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  assert_true(run_case(ctx, 0, false, 0, &info));
  assert_false(info.generic);
  ixj_context_destroy(ctx);
  unsetenv("IXJIT_COMPILE");
  o.compile_mode = 4;
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_null(ctx);
  o.compile_mode = -1;
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_ERR_INVALID_ARGUMENT);
}

/* Destroyed with compiles queued and one running: no crash, no leak, no race
 * (ASan, TSan). */
static void test_destroy_mid_compile(void **state) {
  (void)state;
  for (int round = 0; round < 3; round++) {
    ixj_context *ctx = make_ctx(IXJ_COMPILE_ASYNC, -1, NULL, NULL);
    for (int k = 0; k < NUM_CASES; k++) {
      ixj_call_info info;
      assert_true(run_case(ctx, (k + round) % NUM_CASES, round == 2, (unsigned)k, &info));
    }
    if (round == 1) usleep(2000); /* let one compile be under way */
    ixj_context_destroy(ctx);
  }
}

/* ---- 8 threads ------------------------------------------------------------ */

#define THREADS 8
#define ROUNDS 120

static ixj_context *shared;

static void *worker(void *arg) {
  uint64_t seed = 0x9E3779B97F4A7C15u * (uint64_t)((intptr_t)arg + 1);
  intptr_t bad = 0;
  for (int r = 0; r < ROUNDS; r++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    int k = (int)((seed >> 33) % NUM_CASES);
    ixj_call_info info;
    if (!run_case(shared, k, (seed >> 20) % 4 == 0, (unsigned)r, &info)) bad++;
    if ((seed >> 40) % 64 == 0) ixj_wait_compiles(shared);
  }
  return (void *)bad;
}

static void test_threads(void **state) {
  (void)state;
  shared = make_ctx(IXJ_COMPILE_ASYNC, -1, NULL, NULL);
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
  assert_int_equal(st.failures, 0);
  assert_int_equal(st.compiles, st.entries); /* each kernel compiled once, generic calls or not */
  printf("%llu compiles, %llu hits, %llu generic calls\n", (unsigned long long)st.compiles,
         (unsigned long long)st.hits, (unsigned long long)st.generic_calls);
  ixj_context_destroy(shared);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_generic_every_case), cmocka_unit_test(test_async_swaps),
      cmocka_unit_test(test_prepared_upgrades),  cmocka_unit_test(test_cache_only_disk),
      cmocka_unit_test(test_cache_only_prepared_picks_up), cmocka_unit_test(test_cache_only_prepared_threads),
      cmocka_unit_test(test_env),                cmocka_unit_test(test_destroy_mid_compile),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, parse_all, free_all);
}

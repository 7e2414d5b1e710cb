/* The memory cache's binary plan key, the fast path's alignment assumption
 * and the lock-free cache (internal API):
 *   - over a corpus of copies, fills and cats (transposes, slices, rotations,
 *     chains, broadcasts, cat parts), aligned and misaligned pointers, and
 *     views at several offsets: two plans have equal keys exactly when their
 *     text signatures are equal, and a key never depends on the runtime
 *     offset; every key is reproducible byte for byte and its length is
 *     reported exactly when the buffer is too small;
 *   - the cache from 8 threads over 40 keys, some of whose compiles fail:
 *     each key compiled exactly once, every caller gets its key's kernel or
 *     its error, the counters add up (ThreadSanitizer in the tsan preset);
 *   - a failed compile reported until the retry interval has passed, then
 *     compiled again. */
#include <pthread.h>
#include <stdatomic.h>

#include "cache.h"
#include "error.h"
#include "plan.h"
#include "plan_key.h"
#include "test_util.h"

#define MAX_PLANS 256

typedef struct keyed {
  uint8_t key[PLAN_KEY_STACK_BYTES];
  size_t key_len;
  char sig[8192];
} keyed;

static keyed plans[MAX_PLANS];
static int num_plans;

static void add_plan(ixj_op_kind op, size_t elem, int axis, const char *dst_text, int num_srcs,
                     const char *const *src_text, uintptr_t misalign) {
  ixj_ixfun *dst = parse_ok(dst_text), *srcs[4];
  const void *ptrs[5];
  for (int k = 0; k < num_srcs; k++) srcs[k] = parse_ok(src_text[k]);
  for (int k = 0; k < 5; k++) ptrs[k] = (const void *)(uintptr_t)(4096 * (k + 1) + misalign);
  plan_request r = {.op = op, .elem_size = elem, .dst = dst, .num_srcs = num_srcs, .srcs = (const ixj_ixfun *const *)srcs,
                    .cat_axis = axis, .pointers = ptrs, .last_level_cache = 1 << 20, .cpu_vector_bytes = 64};
  ixj_plan *p = malloc(sizeof *p);
  assert_non_null(p);
  ixj_error err;
  assert_int_equal(ixj__plan_build(&r, p, &err), IXJ_OK);
  assert_true(num_plans < MAX_PLANS);
  keyed *k = &plans[num_plans++];
  k->key_len = ixj__plan_key(p, "cpu:test:0", k->key, sizeof k->key);
  assert_true(k->key_len <= sizeof k->key);
  assert_true(ixj__plan_signature(p, "cpu:test:0", k->sig, sizeof k->sig) < sizeof k->sig);
  /* reproducible, and snprintf-style when the buffer is short */
  uint8_t again[PLAN_KEY_STACK_BYTES], small[8];
  assert_int_equal(ixj__plan_key(p, "cpu:test:0", again, sizeof again), k->key_len);
  assert_memory_equal(again, k->key, k->key_len);
  assert_int_equal(ixj__plan_key(p, "cpu:test:0", small, sizeof small), k->key_len);
  assert_memory_equal(small, k->key, sizeof small);
  /* another target, another key */
  assert_true(ixj__plan_key(p, "cpu:test:1", again, sizeof again) == k->key_len &&
              memcmp(again, k->key, k->key_len) != 0);
  free(p);
  ixj_ixfun_free(dst);
  for (int s = 0; s < num_srcs; s++) ixj_ixfun_free(srcs[s]);
}

static void copy(size_t elem, const char *dst, const char *src, uintptr_t misalign) {
  add_plan(IXJ_OP_COPY, elem, 0, dst, 1, (const char *[]){src}, misalign);
}

static void test_key_iff_signature(void **state) {
  (void)state;
  static const char *const views[][2] = {
      {"iota 8 8", "iota 8 8 | permute 1 0"},
      {"iota 64 48", "iota 48 64 | permute 1 0"},
      {"iota 16 16", "iota 16 16"},
      {"iota 10 7", "iota 7 10 | permute 1 0 | slice ::-1"},
      {"iota 6 5", "iota 6 5 | rotate 2 1"},
      {"iota 12", "iota 24 | slice ::2"},
      {"iota 4 6", "iota 6 4 | permute 1 0 | reshape 4 6"},
      {"iota 3 4 5", "iota 5 4 3 | permute 2 1 0"},
      {"iota 9 9", "iota 9 9 | slice 1:8 1:8 | reshape 7 7 | pad 0"},
  };
  num_plans = 0;
  for (size_t v = 0; v < sizeof views / sizeof *views; v++) {
    ixj_ixfun *probe = NULL;
    ixj_error err;
    if (ixj_ixfun_parse(views[v][1], &probe, &err) != IXJ_OK) continue; /* a syntax this build lacks */
    ixj_ixfun_free(probe);
    for (size_t elem = 1; elem <= 8; elem *= 2)
      for (uintptr_t mis = 0; mis <= 4; mis += 4) copy(elem, views[v][0], views[v][1], mis);
  }
  /* views at other offsets: the same kernel */
  copy(4, "iota 8 8", "iota 9 8 | slice 1: | permute 1 0", 0);
  copy(4, "iota 20 | slice 4:12", "iota 8", 0);
  copy(4, "iota 20 | slice 8:16", "iota 8", 0);
  add_plan(IXJ_OP_FILL, 4, 0, "iota 8 8 | permute 1 0", 0, NULL, 0);
  add_plan(IXJ_OP_FILL, 2, 0, "iota 100 | slice ::3", 0, NULL, 0);
  add_plan(IXJ_OP_FILL, 2, 0, "iota 100 | slice ::-3", 0, NULL, 0);
  add_plan(IXJ_OP_CAT, 4, 1, "iota 4 10", 2, (const char *[]){"iota 4 3", "iota 7 4 | permute 1 0"}, 0);
  add_plan(IXJ_OP_CAT, 4, 0, "iota 10 4", 2, (const char *[]){"iota 3 4", "iota 4 7 | permute 1 0"}, 0);
  add_plan(IXJ_OP_CAT, 8, 1, "iota 4 10", 3, (const char *[]){"iota 4 3", "iota 4 3", "iota 4 4"}, 0);
  add_plan(IXJ_OP_CAT, 8, 1, "iota 4 10", 3, (const char *[]){"iota 4 3", "iota 4 4", "iota 4 3"}, 0);
  int equal_pairs = 0;
  for (int a = 0; a < num_plans; a++)
    for (int b = 0; b < num_plans; b++) {
      bool same_sig = !strcmp(plans[a].sig, plans[b].sig);
      bool same_key = plans[a].key_len == plans[b].key_len && !memcmp(plans[a].key, plans[b].key, plans[a].key_len);
      if (same_sig != same_key) fail_msg("keys %s but signatures %s:\n%s\n%s", same_key ? "equal" : "differ",
                                         same_sig ? "equal" : "differ", plans[a].sig, plans[b].sig);
      equal_pairs += a != b && same_sig;
    }
  assert_true(equal_pairs > 0); /* the corpus has repeats (offsets, alignment that does not matter) */
}

/* The fast path (runtime/call_cache.h) keys a call on where each operand's
 * first element falls within 64 bytes: planning must not look further. For
 * copies and fills of single LMADs at every place in 64 bytes, the plan is the
 * same 64 bytes, a page and 64 KiB + 64 bytes further on. */
static void plan_key_at(ixj_op_kind op, size_t elem, const ixj_ixfun *dst, const ixj_ixfun *src, uintptr_t base,
                        uint8_t *key, size_t *len) {
  const void *ptrs[2] = {(const void *)base, (const void *)(base + 3 * 4096 + 128)};
  const ixj_ixfun *srcs[1] = {src};
  plan_request r = {.op = op, .elem_size = elem, .dst = dst, .num_srcs = op == IXJ_OP_COPY, .srcs = srcs,
                    .pointers = ptrs, .last_level_cache = 1 << 20, .cpu_vector_bytes = 64};
  ixj_plan *p = malloc(sizeof *p);
  assert_non_null(p);
  ixj_error err;
  assert_int_equal(ixj__plan_build(&r, p, &err), IXJ_OK);
  *len = ixj__plan_key(p, "cpu:test:0", key, PLAN_KEY_STACK_BYTES);
  assert_true(*len <= PLAN_KEY_STACK_BYTES);
  free(p);
}

static void test_alignment_within_64_bytes(void **state) {
  (void)state;
  static const char *const views[][2] = {
      {"iota 8 8", "iota 8 8 | permute 1 0"},         {"iota 64 64", "iota 64 64 | permute 1 0"},
      {"iota 32 16", "iota 32 16"},                   {"iota 16 64 | slice 1:", "iota 15 64"},
      {"iota 128", "iota 256 | slice ::2"},           {"iota 24 8 | permute 1 0", "iota 8 24"},
  };
  uint8_t a[PLAN_KEY_STACK_BYTES], b[PLAN_KEY_STACK_BYTES];
  size_t la, lb;
  int differ = 0;
  for (size_t v = 0; v < sizeof views / sizeof *views; v++) {
    ixj_ixfun *d = parse_ok(views[v][0]), *s = parse_ok(views[v][1]);
    for (size_t elem = 1; elem <= 16; elem *= 2)
      for (uintptr_t at = 0; at < 64; at += elem) {
        for (int op = 0; op < 2; op++) {
          ixj_op_kind kind = op ? IXJ_OP_FILL : IXJ_OP_COPY;
          plan_key_at(kind, elem, d, s, 1 << 20 | at, a, &la);
          static const uintptr_t further[] = {64, 4096, 65536 + 64};
          for (int f = 0; f < 3; f++) {
            plan_key_at(kind, elem, d, s, (1 << 20 | at) + further[f], b, &lb);
            assert_true(la == lb && !memcmp(a, b, la));
          }
          plan_key_at(kind, elem, d, s, 1 << 20, b, &lb);
          differ += la != lb || memcmp(a, b, la);
        }
      }
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
  assert_true(differ > 0); /* alignment does choose plans here */
}

/* ---- the cache from many threads ---------------------------------------- */

#define KEYS 40
#define THREADS 8
#define ROUNDS 200

static atomic_int compiles[KEYS];

typedef struct compile_arg {
  int key;
} compile_arg;

static ixj_status fake_compile(void *arg, kernel_ref *kernel, bool *loaded, ixj_error *err) {
  int k = ((compile_arg *)arg)->key;
  atomic_fetch_add(&compiles[k], 1);
  *loaded = k % 5 == 1;
  if (k % 7 == 3) return ixj__fail(err, IXJ_ERR_BACKEND, "key %d does not compile", k);
  kernel->handle = (void *)(uintptr_t)(0x1000 + k);
  return IXJ_OK;
}

typedef struct worker_arg {
  kernel_cache *cache;
  int seed;
  int bad;
} worker_arg;

static void *worker(void *p) {
  worker_arg *w = p;
  unsigned x = (unsigned)w->seed * 2654435761u + 1;
  for (int r = 0; r < ROUNDS; r++) {
    x = x * 1103515245u + 12345u;
    int k = (int)(x >> 8) % KEYS;
    uint8_t key[64];
    memset(key, 0xab, sizeof key);
    memcpy(key, &k, sizeof k);
    size_t len = 16 + (size_t)(k % 3) * 16; /* keys of several lengths */
    compile_arg a = {k};
    kernel_ref kernel = {NULL};
    bool hit, loaded;
    double ms;
    ixj_error err = {IXJ_OK, 0, ""};
    ixj_status st = ixj__cache_get(w->cache, key, len, fake_compile, &a, &kernel, &hit, &loaded, &ms, &err);
    if (k % 7 == 3) w->bad += st != IXJ_ERR_BACKEND || !strstr(err.message, "does not compile");
    else w->bad += st != IXJ_OK || kernel.handle != (void *)(uintptr_t)(0x1000 + k);
  }
  return NULL;
}

static void test_cache_threads(void **state) {
  (void)state;
  kernel_cache *c;
  ixj_error err;
  assert_int_equal(ixj__cache_create(&c, &err), IXJ_OK);
  ixj__cache_set_retry_ms(c, 1e12); /* failures stay failed here, however slow the run */
  pthread_t t[THREADS];
  worker_arg w[THREADS];
  for (int k = 0; k < KEYS; k++) atomic_init(&compiles[k], 0);
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker_arg){c, i, 0};
    assert_int_equal(pthread_create(&t[i], NULL, worker, &w[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    assert_int_equal(w[i].bad, 0);
  }
  ixj_cache_stats s;
  ixj__cache_stats(c, &s);
  uint64_t compiled = 0, failed = 0, loaded = 0;
  for (int k = 0; k < KEYS; k++) {
    int n = atomic_load(&compiles[k]);
    assert_true(n <= 1);
    compiled += n;
    failed += n && k % 7 == 3;
    loaded += n && k % 5 == 1;
  }
  assert_int_equal(s.hits + s.misses, THREADS * ROUNDS);
  assert_int_equal(s.entries, compiled);
  assert_int_equal(s.compiles + s.disk_hits, compiled);
  assert_int_equal(s.disk_hits, loaded);
  assert_int_equal(s.failures, failed);
  assert_true(s.misses >= compiled);
  ixj__cache_destroy(c);
}

/* A failed compile is retried after the retry interval, not remembered forever. */
static int flaky_calls;

static ixj_status flaky_compile(void *arg, kernel_ref *kernel, bool *loaded, ixj_error *err) {
  (void)arg;
  *loaded = false;
  if (flaky_calls++ == 0) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory (the first time)");
  kernel->handle = (void *)(uintptr_t)0x4242;
  return IXJ_OK;
}

static void test_failed_compile_retried(void **state) {
  (void)state;
  kernel_cache *c;
  ixj_error err;
  kernel_ref k = {NULL};
  bool hit, loaded;
  double ms;
  const char key[] = "a key";
  for (int forever = 0; forever < 2; forever++) {
    assert_int_equal(ixj__cache_create(&c, &err), IXJ_OK);
    ixj__cache_set_retry_ms(c, forever ? 1e12 : 0);
    flaky_calls = 0;
    assert_int_equal(ixj__cache_get(c, key, sizeof key, flaky_compile, NULL, &k, &hit, &loaded, &ms, &err),
                     IXJ_ERR_NO_MEMORY);
    assert_false(hit);
    ixj_status st = ixj__cache_get(c, key, sizeof key, flaky_compile, NULL, &k, &hit, &loaded, &ms, &err);
    if (forever) { /* within the interval: the same error, no compile */
      assert_int_equal(st, IXJ_ERR_NO_MEMORY);
      assert_true(hit);
      assert_non_null(strstr(err.message, "the first time"));
      assert_int_equal(flaky_calls, 1);
    } else { /* after it: compiled again, then a plain hit */
      assert_int_equal(st, IXJ_OK);
      assert_false(hit);
      assert_true(k.handle == (void *)(uintptr_t)0x4242);
      assert_int_equal(ixj__cache_get(c, key, sizeof key, flaky_compile, NULL, &k, &hit, &loaded, &ms, &err), IXJ_OK);
      assert_true(hit);
      assert_int_equal(flaky_calls, 2);
    }
    ixj_cache_stats s;
    ixj__cache_stats(c, &s);
    assert_int_equal(s.entries, 1);
    assert_int_equal(s.failures, 1);
    assert_int_equal(s.compiles, (uint64_t)flaky_calls);
    ixj__cache_destroy(c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_key_iff_signature),
                                     cmocka_unit_test(test_alignment_within_64_bytes),
                                     cmocka_unit_test(test_cache_threads), cmocka_unit_test(test_failed_compile_retried)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

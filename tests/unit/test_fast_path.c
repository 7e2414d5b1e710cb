/* The per-call fast path (runtime/call_cache.h) through the public API: once
 * a copy, fill or cat of single-LMAD operands has run, later calls of the
 * same shapes skip planning (ixj_call_info.fast_path says so). Every call here
 * is checked against the reference interpreter (whole buffer, guard bytes
 * included) whichever path served it:
 *   - the same views over other buffers, at other offsets and alignments
 *     (other kernels where alignment changes the plan), fills, memcpy plans;
 *   - cats of 2, 3 and 8 inputs along either axis, inputs transposed,
 *     reversed and at offsets, and one of 9 inputs (the long way every time);
 *   - every check after the fast path has the key: a buffer too small, a
 *     source overlapping the destination, a fill value NULL or inside the
 *     destination: the same status and message as the first call's;
 *   - 8 threads calling at once on one context, hits and first calls mixed
 *     (ThreadSanitizer in the tsan preset);
 *   - the hit and generic-call counters exact with more threads alive at once
 *     than there are per-thread counter stripes, twice (the second wave
 *     reuses the first one's thread indices). */
#define _GNU_SOURCE /* pthread_barrier_t */
#include <pthread.h>

#include "test_util.h"

#define BUF 8192

static ixj_context *ctx;

static int setup(void **state) {
  (void)state;
  ixj_context_options o = {.num_threads = 2, .disk_cache = -1};
  ixj_error err;
  return ixj_context_create(&o, &ctx, &err) == IXJ_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  ixj_context_destroy(ctx);
  return 0;
}

static void pattern(unsigned char *b, size_t n, unsigned seed) {
  for (size_t k = 0; k < n; k++) b[k] = (unsigned char)(seed * 131 + k * 7 + k / 253);
}

/* One copy of src_text into dst_text through ixj_copy and the reference,
 * the operands `shift` bytes into their buffers; 0 on success, else the status
 * (whose message goes to msg). */
static ixj_status copy_checked(const char *dst_text, const char *src_text, size_t elem, size_t shift, unsigned seed,
                               bool *hit, bool *fast, char *msg) {
  ixj_ixfun *fd = parse_ok(dst_text), *fs = parse_ok(src_text);
  unsigned char *src = aligned_alloc(64, BUF), *got = aligned_alloc(64, BUF), *want = aligned_alloc(64, BUF);
  assert_true(src && got && want);
  pattern(src, BUF, seed);
  pattern(got, BUF, seed + 1);
  memcpy(want, got, BUF);
  ixj_operand d = {got + shift, BUF - shift - 64, fd}, s = {src + shift, BUF - shift - 64, fs};
  ixj_operand wd = {want + shift, BUF - shift - 64, fd};
  ixj_call_info info;
  ixj_error err = {IXJ_OK, 0, ""};
  ixj_status st = ixj_copy(ctx, &d, &s, elem, &info, &err);
  if (st == IXJ_OK) {
    assert_int_equal(ixj_reference_copy(&wd, &s, elem, &err), IXJ_OK);
    assert_memory_equal(got, want, BUF);
    if (hit) *hit = info.cache_hit;
    if (fast) *fast = info.fast_path;
  } else if (msg) {
    snprintf(msg, 256, "%s", err.message);
  }
  free(src);
  free(got);
  free(want);
  ixj_ixfun_free(fd);
  ixj_ixfun_free(fs);
  return st;
}

static const char *const cases[][2] = {
    {"iota 8 8", "iota 8 8 | permute 1 0"},
    {"iota 16 24", "iota 24 16 | permute 1 0"},
    {"iota 40 | slice 3:35", "iota 32"},             /* memcpy, at an offset */
    {"iota 12 10 | slice ::-1", "iota 12 10"},       /* a reversed destination */
    {"iota 6 5", "iota 6 5 | rotate 2 1"},
    {"iota 32 8 | slice 1:31", "iota 30 8"},         /* vectors only when aligned */
    {"iota 10 7", "iota 7 10 | permute 1 0 | slice ::-1"},
};
#define NUM_CASES (int)(sizeof cases / sizeof *cases)

static void test_hits_match_reference(void **state) {
  (void)state;
  ixj_cache_stats before, after;
  for (int c = 0; c < NUM_CASES; c++)
    for (size_t elem = 1; elem <= 16; elem *= 2)
      for (size_t shift = 0; shift < 64 * 2; shift += 4 * elem) {
        bool hit = false, fast = false;
        ixj_context_cache_stats(ctx, &before);
        assert_int_equal(copy_checked(cases[c][0], cases[c][1], elem, shift, (unsigned)(c + shift), &hit, &fast, NULL),
                         IXJ_OK);
        ixj_context_cache_stats(ctx, &after);
        if (shift >= 64) assert_true(hit && fast); /* the same place within 64 bytes as an earlier call */
        assert_true(after.hits + after.misses >= before.hits + before.misses);
      }
}

static void test_fills(void **state) {
  (void)state;
  static const char *const views[] = {"iota 100 | slice ::3", "iota 8 8 | permute 1 0", "iota 64", "iota 9 7 | slice ::-1 1:"};
  for (size_t v = 0; v < sizeof views / sizeof *views; v++)
    for (int round = 0; round < 3; round++) {
      ixj_ixfun *f = parse_ok(views[v]);
      _Alignas(64) unsigned char got[1280];
      _Alignas(64) unsigned char want[1280], value[8] = {1, 2, 3, 4, 5, 6, 7, (unsigned char)round};
      pattern(got, sizeof got, (unsigned)v);
      memcpy(want, got, sizeof got);
      size_t at = 64 * (size_t)round + (v % 2) * 4; /* the same place within 64 bytes each round */
      ixj_operand d = {got + at, sizeof got - at, f}, w = {want + at, sizeof want - at, f};
      ixj_call_info info;
      ixj_error err;
      assert_int_equal(ixj_fill(ctx, &d, value, 4, &info, &err), IXJ_OK);
      assert_int_equal(ixj_reference_fill(&w, value, 4, &err), IXJ_OK);
      assert_memory_equal(got, want, sizeof got);
      if (round) assert_true(info.cache_hit && info.fast_path);
      ixj_ixfun_free(f);
    }
}

/* One cat of the index functions in texts (dst first) through ixj_cat and
 * the reference, each operand in its own buffer `shift` bytes in; returns
 * whether the fast path served it. */
#define CAT_BUF 4096
static bool cat_checked(const char *const *texts, int num_srcs, int axis, size_t elem, size_t shift, unsigned seed) {
  ixj_ixfun *f[10] = {NULL};
  unsigned char *buf[10] = {NULL}, *want = aligned_alloc(64, CAT_BUF);
  ixj_operand op[10], wd;
  assert_true(num_srcs + 1 <= 10 && want);
  for (int k = 0; k <= num_srcs; k++) {
    f[k] = parse_ok(texts[k]);
    buf[k] = aligned_alloc(64, CAT_BUF);
    assert_non_null(buf[k]);
    pattern(buf[k], CAT_BUF, seed + (unsigned)k);
    op[k] = (ixj_operand){buf[k] + shift, CAT_BUF - shift - 64, f[k]};
  }
  memcpy(want, buf[0], CAT_BUF);
  wd = (ixj_operand){want + shift, CAT_BUF - shift - 64, f[0]};
  ixj_call_info info;
  ixj_error err;
  assert_int_equal(ixj_cat(ctx, &op[0], axis, num_srcs, &op[1], elem, &info, &err), IXJ_OK);
  assert_int_equal(ixj_reference_cat(&wd, axis, num_srcs, &op[1], elem, &err), IXJ_OK);
  assert_memory_equal(buf[0], want, CAT_BUF);
  for (int k = 0; k <= num_srcs; k++) {
    free(buf[k]);
    ixj_ixfun_free(f[k]);
  }
  free(want);
  return info.fast_path;
}

static void test_cats(void **state) {
  (void)state;
  static const char *const two_inner[] = {"iota 8 12", "iota 8 5", "iota 8 7"};
  static const char *const two_outer_t[] = {"iota 12 8", "iota 8 5 | permute 1 0", "iota 7 8"};
  static const char *const three[] = {"iota 9 6 | slice ::-1", "iota 3 6", "iota 4 6 | slice 1:", "iota 6 6 | slice ::2"};
  static const char *const eight[] = {"iota 4 16", "iota 4 2", "iota 4 2", "iota 2 4 | permute 1 0", "iota 4 2",
                                      "iota 4 2", "iota 4 3 | slice : 1:", "iota 4 2", "iota 4 2 | slice ::-1"};
  static const char *const nine[] = {"iota 9 3", "iota 1 3", "iota 1 3", "iota 1 3", "iota 1 3", "iota 1 3",
                                     "iota 1 3", "iota 1 3", "iota 1 3", "iota 1 3"};
  struct {
    const char *const *texts;
    int num_srcs, axis;
  } cats[] = {{two_inner, 2, 1}, {two_outer_t, 2, 0}, {three, 3, 0}, {eight, 8, 1}, {nine, 9, 0}};
  for (size_t c = 0; c < sizeof cats / sizeof *cats; c++)
    for (size_t elem = 1; elem <= 16; elem *= 4)
      for (size_t shift = 0; shift < 64 * 3; shift += 32) {
        bool fast = cat_checked(cats[c].texts, cats[c].num_srcs, cats[c].axis, elem, shift, (unsigned)(c * 7 + shift));
        /* the same places within 64 bytes as two calls before */
        if (shift >= 64) assert_true(fast == (cats[c].num_srcs <= 8));
        if (cats[c].num_srcs > 8) assert_false(fast);
      }
}

/* The first call of a cat and later ones (fast path) fail alike. */
static void test_cat_errors_after_hits(void **state) {
  (void)state;
  ixj_ixfun *fd = parse_ok("iota 4 8"), *fa = parse_ok("iota 4 3"), *fb = parse_ok("iota 5 4 | permute 1 0");
  float d[32] = {0}, a[12] = {0}, b[20] = {0};
  ixj_operand od = {d, sizeof d, fd}, srcs[2] = {{a, sizeof a, fa}, {b, sizeof b, fb}};
  ixj_call_info info;
  ixj_error err;
  assert_int_equal(ixj_cat(ctx, &od, 1, 2, srcs, 4, &info, &err), IXJ_OK);
  for (int round = 0; round < 2; round++) {
    assert_int_equal(ixj_cat(ctx, &od, 1, 2, srcs, 4, &info, &err), IXJ_OK);
    assert_true(info.fast_path);
    ixj_operand small[2] = {srcs[0], {b, 19 * 4, fb}};
    assert_int_equal(ixj_cat(ctx, &od, 1, 2, small, 4, &info, &err), IXJ_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(err.message, "buffer too small"));
    ixj_operand small_dst = {d, 31 * 4, fd};
    assert_int_equal(ixj_cat(ctx, &small_dst, 1, 2, srcs, 4, &info, &err), IXJ_ERR_OUT_OF_RANGE);
    ixj_operand overlap[2] = {srcs[0], {d + 8, sizeof d - 8 * 4, fb}};
    assert_int_equal(ixj_cat(ctx, &od, 1, 2, overlap, 4, &info, &err), IXJ_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "overlaps the destination"));
    ixj_operand null_src[2] = {{NULL, sizeof a, fa}, srcs[1]};
    assert_int_equal(ixj_cat(ctx, &od, 1, 2, null_src, 4, &info, &err), IXJ_ERR_INVALID_ARGUMENT);
    assert_int_equal(ixj_cat(ctx, &od, 0, 2, srcs, 4, &info, &err), IXJ_ERR_MISMATCH); /* another axis */
  }
  for (int k = 0; k < 32; k++) assert_true(d[k] == 0.0f);
  ixj_ixfun_free(fd);
  ixj_ixfun_free(fa);
  ixj_ixfun_free(fb);
}

/* The first call of a shape and a later one (fast path) fail alike. */
static void test_errors_after_hits(void **state) {
  (void)state;
  ixj_ixfun *fd = parse_ok("iota 8 8"), *fs = parse_ok("iota 8 8 | permute 1 0"), *big = parse_ok("iota 16 16");
  float a[256], b[256];
  memset(a, 0, sizeof a);
  memset(b, 0, sizeof b);
  ixj_operand d = {a, sizeof a, fd}, s = {b, sizeof b, fs};
  ixj_error err;
  assert_int_equal(ixj_copy(ctx, &d, &s, 4, NULL, &err), IXJ_OK); /* the key is in the table now */
  for (int round = 0; round < 2; round++) {
    ixj_operand small = {a, 63 * 4, fd};
    assert_int_equal(ixj_copy(ctx, &small, &s, 4, NULL, &err), IXJ_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(err.message, "destination: buffer too small"));
    ixj_operand small_src = {b, 4, fs};
    assert_int_equal(ixj_copy(ctx, &d, &small_src, 4, NULL, &err), IXJ_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(err.message, "source: buffer too small"));
    ixj_operand overlap = {a + 32, sizeof a - 32 * 4, fs};
    assert_int_equal(ixj_copy(ctx, &d, &overlap, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "overlaps the destination"));
    ixj_operand null_src = {NULL, sizeof b, fs};
    assert_int_equal(ixj_copy(ctx, &d, &null_src, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
    ixj_operand shape_mismatch = {b, sizeof b, big};
    assert_int_equal(ixj_copy(ctx, &d, &shape_mismatch, 4, NULL, &err), IXJ_ERR_MISMATCH);
    assert_int_equal(ixj_copy(ctx, &d, &s, 3, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
    assert_int_equal(ixj_fill(ctx, &d, b, 4, NULL, &err), IXJ_OK);
    assert_int_equal(ixj_fill(ctx, &d, NULL, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "NULL value"));
    assert_int_equal(ixj_fill(ctx, &d, a + 5, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "value overlaps"));
  }
  /* nothing was written by the failed calls: a is the fill of b's zeros */
  for (int k = 0; k < 64; k++) assert_true(a[k] == 0.0f);
  ixj_ixfun_free(fd);
  ixj_ixfun_free(fs);
  ixj_ixfun_free(big);
}

#define THREADS 8
#define ROUNDS 60

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg, bad = 0;
  for (int r = 0; r < ROUNDS; r++) {
    int c = (id * 7 + r) % NUM_CASES;
    size_t elem = (size_t)1 << ((id + r) % 4), shift = (size_t)((r * 3 + id) % 8) * 8 * elem % 128;
    char msg[256];
    bad += copy_checked(cases[c][0], cases[c][1], elem, shift, (unsigned)(id * 1000 + r), NULL, NULL, msg) != IXJ_OK;
  }
  return (void *)(intptr_t)bad;
}

static void test_threads(void **state) {
  (void)state;
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i), 0);
  for (int i = 0; i < THREADS; i++) {
    void *bad;
    pthread_join(t[i], &bad);
    assert_int_equal((intptr_t)bad, 0);
  }
}


/* More threads alive at once than the cache has per-thread stripes (256):
 * the last ones count on the shared stripe; a second wave reuses the first's
 * thread indices. Hits (a sync context) and generic calls (cache-only, no
 * disk: every call generic) must add up exactly; each thread's results are
 * checked against the reference interpreter. */
#define MANY 280
#define MANY_CALLS 25

typedef struct many_arg {
  ixj_context *ctx;
  const ixj_ixfun *fd, *fs;
  pthread_barrier_t *all_alive;
  int id, bad;
} many_arg;

static void *many_worker(void *p) {
  many_arg *a = p;
  float src[64], got[64], want[64];
  for (int k = 0; k < 64; k++) src[k] = (float)(a->id * 64 + k);
  memset(got, 0, sizeof got);
  memset(want, 0, sizeof want);
  ixj_operand d = {got, sizeof got, a->fd}, s = {src, sizeof src, a->fs}, wd = {want, sizeof want, a->fd};
  pthread_barrier_wait(a->all_alive);
  for (int k = 0; k < MANY_CALLS; k++) a->bad += ixj_copy(a->ctx, &d, &s, 4, NULL, NULL) != IXJ_OK;
  a->bad += ixj_reference_copy(&wd, &s, 4, NULL) != IXJ_OK || memcmp(got, want, sizeof got) != 0;
  return NULL;
}

static void many_wave(ixj_context *c, const ixj_ixfun *fd, const ixj_ixfun *fs) {
  static pthread_t t[MANY];
  static many_arg args[MANY];
  pthread_barrier_t all_alive;
  assert_int_equal(pthread_barrier_init(&all_alive, NULL, MANY), 0);
  for (int i = 0; i < MANY; i++) {
    args[i] = (many_arg){c, fd, fs, &all_alive, i, 0};
    assert_int_equal(pthread_create(&t[i], NULL, many_worker, &args[i]), 0);
  }
  for (int i = 0; i < MANY; i++) {
    pthread_join(t[i], NULL);
    assert_int_equal(args[i].bad, 0);
  }
  pthread_barrier_destroy(&all_alive);
}

static void test_counts_exact_many_threads(void **state) {
  (void)state;
  ixj_ixfun *fd = parse_ok("iota 8 8"), *fs = parse_ok("iota 8 8 | permute 1 0");
  float x[64] = {0}, y[64];
  ixj_operand d = {y, sizeof y, fd}, s = {x, sizeof x, fs};
  ixj_context_options o = {.num_threads = 1, .disk_cache = -1, .compile_mode = IXJ_COMPILE_CACHE_ONLY};
  ixj_context *generic = NULL;
  ixj_error err;
  assert_int_equal(ixj_context_create(&o, &generic, &err), IXJ_OK);
  assert_int_equal(ixj_copy(ctx, &d, &s, 4, NULL, &err), IXJ_OK); /* compiled (or a hit from an earlier test) */
  assert_int_equal(ixj_copy(generic, &d, &s, 4, NULL, &err), IXJ_OK);
  for (int wave = 0; wave < 2; wave++) {
    ixj_cache_stats b0, b1, g0, g1;
    ixj_context_cache_stats(ctx, &b0);
    ixj_context_cache_stats(generic, &g0);
    many_wave(ctx, fd, fs);
    many_wave(generic, fd, fs);
    ixj_context_cache_stats(ctx, &b1);
    ixj_context_cache_stats(generic, &g1);
    assert_int_equal(b1.hits - b0.hits, (uint64_t)MANY * MANY_CALLS);
    assert_int_equal(b1.misses, b0.misses);
    assert_int_equal(b1.generic_calls, b0.generic_calls);
    assert_int_equal(g1.generic_calls - g0.generic_calls, (uint64_t)MANY * MANY_CALLS);
    assert_int_equal(g1.hits, g0.hits);
  }
  ixj_context_destroy(generic);
  ixj_ixfun_free(fd);
  ixj_ixfun_free(fs);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_hits_match_reference), cmocka_unit_test(test_fills),
                                     cmocka_unit_test(test_errors_after_hits), cmocka_unit_test(test_cats),
                                     cmocka_unit_test(test_cat_errors_after_hits), cmocka_unit_test(test_threads),
                                     cmocka_unit_test(test_counts_exact_many_threads)};
  return cmocka_run_group_tests(tests, setup, teardown);
}

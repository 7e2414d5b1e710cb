/* Prepared kernels (include/ixjit/kernel.h) through the public API. Every run
 * is checked against the reference interpreter, whole buffers with guard
 * bytes:
 *   - copies (memcpy-class, transposes, reversed and rotated views, chains),
 *     fills and cats, each prepared once and run on buffers at every place in
 *     64 bytes (plan variants made at run) and twice at each;
 *   - the index functions freed right after prepare;
 *   - every error of prepare and run, with nothing written by a failed run;
 *   - 8 threads running one prepared kernel at once, each on its own buffers
 *     at its own alignment (ThreadSanitizer in the tsan preset). */
#include <pthread.h>

#include "test_util.h"

#define GUARD 64

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

typedef struct buf {
  unsigned char *mem; /* GUARD, bytes, GUARD; mem 64-byte aligned */
  size_t bytes, shift;
} buf;

/* No cmocka assertions here: the threads' workers call it too. */
static bool buf_make(buf *b, const ixj_ixfun *f, size_t elem, size_t shift, unsigned seed) {
  if (ixj_ixfun_required_bytes(f, elem, &b->bytes, NULL) != IXJ_OK) return false;
  b->shift = shift;
  size_t n = (GUARD + shift + b->bytes + GUARD + 63) / 64 * 64;
  b->mem = aligned_alloc(64, n);
  if (!b->mem) return false;
  for (size_t k = 0; k < n; k++) b->mem[k] = (unsigned char)(seed * 97 + k * 13 + k / 241);
  return true;
}

static void *buf_data(const buf *b) { return b->mem + GUARD + b->shift; }
static size_t buf_total(const buf *b) { return (GUARD + b->shift + b->bytes + GUARD + 63) / 64 * 64; }

/* Runs k (prepared from dst and srcs) on fresh buffers `shift` bytes into
 * their allocations, twice, and compares with the reference: true when equal
 * (else the reason in msg). */
static bool run_checked(const ixj_kernel *k, ixj_op_kind op, int axis, const ixj_ixfun *dst, int n,
                        const ixj_ixfun *const *srcs, size_t elem, size_t shift, unsigned seed, char msg[320]) {
  buf d, w, s[4];
  ixj_buffer sb[4];
  ixj_operand so[4];
  bool ok = buf_make(&d, dst, elem, shift, seed) && buf_make(&w, dst, elem, shift, seed);
  for (int i = 0; i < n && ok; i++) {
    ok = buf_make(&s[i], srcs[i], elem, (shift * (size_t)(i + 2)) % 64, seed + 10 + (unsigned)i);
    sb[i] = (ixj_buffer){buf_data(&s[i]), s[i].bytes};
    so[i] = (ixj_operand){buf_data(&s[i]), s[i].bytes, srcs[i]};
  }
  if (!ok) {
    snprintf(msg, 320, "out of memory");
    return false;
  }
  unsigned char value[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 11, 12, 13, 14, 15, (unsigned char)seed};
  ixj_operand wo = {buf_data(&w), w.bytes, dst};
  ixj_error err;
  for (int round = 0; round < 2 && ok; round++)
    if (ixj_kernel_run(k, (ixj_buffer){buf_data(&d), d.bytes}, n, n ? sb : NULL, op == IXJ_OP_FILL ? value : NULL,
                       &err) != IXJ_OK) {
      snprintf(msg, 320, "run: %s", err.message);
      ok = false;
    }
  ixj_status st = op == IXJ_OP_COPY   ? ixj_reference_copy(&wo, &so[0], elem, &err)
                  : op == IXJ_OP_FILL ? ixj_reference_fill(&wo, value, elem, &err)
                                      : ixj_reference_cat(&wo, axis, n, so, elem, &err);
  if (ok && st != IXJ_OK) {
    snprintf(msg, 320, "reference: %s", err.message);
    ok = false;
  }
  if (ok && memcmp(d.mem, w.mem, buf_total(&d))) {
    snprintf(msg, 320, "the result differs from the reference's (shift %zu)", shift);
    ok = false;
  }
  free(d.mem);
  free(w.mem);
  for (int i = 0; i < n; i++) free(s[i].mem);
  return ok;
}

static void check_case(ixj_op_kind op, int axis, const char *dst_text, int n, const char *const *src_text, size_t elem) {
  ixj_ixfun *dst = parse_ok(dst_text), *srcs[4];
  for (int i = 0; i < n; i++) srcs[i] = parse_ok(src_text[i]);
  ixj_kernel *k = NULL;
  ixj_error err;
  ixj_status st = op == IXJ_OP_COPY ? ixj_prepare_copy(ctx, dst, srcs[0], elem, 0, &k, &err)
                  : op == IXJ_OP_FILL ? ixj_prepare_fill(ctx, dst, elem, 0, &k, &err)
                                      : ixj_prepare_cat(ctx, dst, axis, n, (const ixj_ixfun *const *)srcs, elem, 0, &k, &err);
  if (st != IXJ_OK) fail_msg("prepare %s: %s", dst_text, err.message);
  /* the kernel keeps its own index functions: run with copies of ours */
  ixj_ixfun *dst2, *srcs2[4];
  assert_int_equal(ixj_ixfun_clone(dst, &dst2, &err), IXJ_OK);
  for (int i = 0; i < n; i++) assert_int_equal(ixj_ixfun_clone(srcs[i], &srcs2[i], &err), IXJ_OK);
  ixj_ixfun_free(dst);
  for (int i = 0; i < n; i++) ixj_ixfun_free(srcs[i]);
  char msg[320];
  for (size_t shift = 0; shift < 64; shift += elem)
    if (!run_checked(k, op, axis, dst2, n, (const ixj_ixfun *const *)srcs2, elem, shift, (unsigned)shift, msg))
      fail_msg("%s: %s", dst_text, msg);
  ixj_kernel_release(k);
  ixj_ixfun_free(dst2);
  for (int i = 0; i < n; i++) ixj_ixfun_free(srcs2[i]);
}

static void test_results(void **state) {
  (void)state;
  static const char *const copies[][2] = {
      {"iota 256", "iota 256"},                                 /* 1 KiB of floats: memcpy */
      {"iota 8 8", "iota 8 8 | permute 1 0"},
      {"iota 40 24", "iota 24 40 | permute 1 0"},
      {"iota 12 10 | slice ::-1", "iota 12 10"},
      {"iota 6 5", "iota 6 5 | rotate 2 1"},
      {"iota 32 8 | slice 1:31", "iota 30 8"},
      {"iota 4 6", "iota 6 4 | permute 1 0 | reshape 4 6"},    /* a chain */
  };
  for (size_t c = 0; c < sizeof copies / sizeof *copies; c++)
    for (size_t elem = 1; elem <= 16; elem *= 4) check_case(IXJ_OP_COPY, 0, copies[c][0], 1, &copies[c][1], elem);
  check_case(IXJ_OP_FILL, 0, "iota 100 | slice ::3", 0, NULL, 4);
  check_case(IXJ_OP_FILL, 0, "iota 16 16 | permute 1 0", 0, NULL, 8);
  check_case(IXJ_OP_CAT, 1, "iota 4 10", 2, (const char *[]){"iota 4 3", "iota 7 4 | permute 1 0"}, 4);
  check_case(IXJ_OP_CAT, 0, "iota 10 4", 3, (const char *[]){"iota 3 4", "iota 4 4", "iota 4 3 | permute 1 0"}, 2);
  check_case(IXJ_OP_COPY, 0, "iota 0 5", 1, (const char *[]){"iota 5 0 | permute 1 0"}, 4); /* empty */
}

static void expect(ixj_status got, ixj_status want, const ixj_error *err, const char *needle) {
  if (got != want) fail_msg("status %s, expected %s (%s)", ixj_status_name(got), ixj_status_name(want), err->message);
  if (!strstr(err->message, needle)) fail_msg("message '%s' lacks '%s'", err->message, needle);
}

/* The call first, then its error (err is the caller's local). */
#define EXPECT(call, want, needle)            \
  do {                                        \
    ixj_status st_ = (call);                  \
    expect(st_, want, &err, needle);          \
  } while (0)

static void test_errors(void **state) {
  (void)state;
  ixj_ixfun *d = parse_ok("iota 8 8"), *s = parse_ok("iota 8 8 | permute 1 0"), *big = parse_ok("iota 9 8");
  ixj_ixfun *bcast = parse_ok("strided shape=8,8 strides=0,1");
  ixj_kernel *k = (ixj_kernel *)1, *fk = NULL, *ck = NULL;
  ixj_error err;
  /* prepare */
  EXPECT(ixj_prepare_copy(NULL, d, s, 4, 0, &k, &err), IXJ_ERR_INVALID_ARGUMENT, "");
  assert_null(k);
  EXPECT(ixj_prepare_copy(ctx, d, NULL, 4, 0, &k, &err), IXJ_ERR_INVALID_ARGUMENT, "");
  EXPECT(ixj_prepare_copy(ctx, d, s, 4, 0, NULL, &err), IXJ_ERR_INVALID_ARGUMENT, "");
  EXPECT(ixj_prepare_copy(ctx, d, s, 3, 0, &k, &err), IXJ_ERR_INVALID_ARGUMENT, "element size 3");
  EXPECT(ixj_prepare_copy(ctx, d, s, 4, 7, &k, &err), IXJ_ERR_INVALID_ARGUMENT, "unknown flags");
  EXPECT(ixj_prepare_copy(ctx, d, big, 4, 0, &k, &err), IXJ_ERR_MISMATCH, "shape differs");
  EXPECT(ixj_prepare_copy(ctx, bcast, s, 4, 0, &k, &err), IXJ_ERR_INVALID_ARGUMENT, "two points to one offset");
  /* a broadcast destination before a source of another shape, as ixj_copy and the reference report it */
  EXPECT(ixj_prepare_copy(ctx, bcast, big, 4, 0, &k, &err), IXJ_ERR_INVALID_ARGUMENT, "two points to one offset");
  EXPECT(ixj_prepare_fill(ctx, bcast, 4, 0, &k, &err), IXJ_ERR_INVALID_ARGUMENT, "two points to one offset");
  EXPECT(ixj_prepare_cat(ctx, d, 2, 1, (const ixj_ixfun *[]){s}, 4, 0, &k, &err), IXJ_ERR_INVALID_ARGUMENT, "axis 2");
  EXPECT(ixj_prepare_cat(ctx, d, 0, 0, NULL, 4, 0, &k, &err), IXJ_ERR_INVALID_ARGUMENT, "inputs");
  EXPECT(ixj_prepare_cat(ctx, d, 0, 1, (const ixj_ixfun *[]){big}, 4, 0, &k, &err), IXJ_ERR_MISMATCH, "add up");
  EXPECT(ixj_prepare_cat(ctx, d, 0, 2, (const ixj_ixfun *[]){s, NULL}, 4, 0, &k, &err), IXJ_ERR_INVALID_ARGUMENT,
         "input 1");
  assert_null(k);
  /* run */
  assert_int_equal(ixj_prepare_copy(ctx, d, s, 4, 0, &k, &err), IXJ_OK);
  assert_int_equal(ixj_prepare_fill(ctx, d, 4, 0, &fk, &err), IXJ_OK);
  ixj_ixfun *row = parse_ok("iota 1 8");
  assert_int_equal(ixj_prepare_cat(ctx, big, 0, 2, (const ixj_ixfun *[]){d, row}, 4, 0, &ck, &err), IXJ_OK);
  ixj_ixfun_free(row); /* the kernel has its own copy */
  float a[128] = {0}, b[128], v = 1.5f;
  for (int i = 0; i < 128; i++) b[i] = (float)i;
  ixj_buffer da = {a, 64 * 4}, sb = {b, 64 * 4};
  EXPECT(ixj_kernel_run(NULL, da, 1, &sb, NULL, &err), IXJ_ERR_INVALID_ARGUMENT, "");
  EXPECT(ixj_kernel_run(k, da, 0, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT, "takes 1 sources");
  EXPECT(ixj_kernel_run(k, da, 1, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT, "takes 1");
  EXPECT(ixj_kernel_run(k, da, 1, &sb, &v, &err), IXJ_ERR_INVALID_ARGUMENT, "a value for a copy");
  EXPECT(ixj_kernel_run(k, (ixj_buffer){a, 63 * 4}, 1, &sb, NULL, &err), IXJ_ERR_OUT_OF_RANGE,
         "destination: buffer too small");
  EXPECT(ixj_kernel_run(k, da, 1, &(ixj_buffer){b, 10}, NULL, &err), IXJ_ERR_OUT_OF_RANGE, "input 0: buffer too small");
  EXPECT(ixj_kernel_run(k, (ixj_buffer){NULL, 256}, 1, &sb, NULL, &err), IXJ_ERR_INVALID_ARGUMENT, "destination: NULL");
  EXPECT(ixj_kernel_run(k, da, 1, &(ixj_buffer){NULL, 256}, NULL, &err), IXJ_ERR_INVALID_ARGUMENT, "input 0: NULL");
  EXPECT(ixj_kernel_run(k, da, 1, &(ixj_buffer){a + 32, 256}, NULL, &err), IXJ_ERR_INVALID_ARGUMENT, "overlaps");
  /* a buffer whose range wraps the address space: refused, never touched */
  EXPECT(ixj_kernel_run(k, (ixj_buffer){(void *)(UINTPTR_MAX - 63), 256}, 1, &sb, NULL, &err), IXJ_ERR_OUT_OF_RANGE,
         "wraps the address space");
  EXPECT(ixj_kernel_run(fk, da, 0, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT, "NULL value");
  EXPECT(ixj_kernel_run(fk, da, 1, &sb, &v, &err), IXJ_ERR_INVALID_ARGUMENT, "takes 0 sources");
  EXPECT(ixj_kernel_run(fk, da, 0, NULL, a + 3, &err), IXJ_ERR_INVALID_ARGUMENT, "value overlaps");
  EXPECT(ixj_kernel_run(ck, (ixj_buffer){a, sizeof a}, 1, &sb, NULL, &err), IXJ_ERR_INVALID_ARGUMENT, "takes 2");
  for (int i = 0; i < 128; i++) assert_true(a[i] == 0.0f); /* nothing written by a failed run */
  assert_int_equal(ixj_kernel_run(k, da, 1, &sb, NULL, &err), IXJ_OK);
  for (int i = 0; i < 64; i++) assert_true(a[i] == b[(i % 8) * 8 + i / 8]);
  assert_int_equal(ixj_kernel_run(fk, da, 0, NULL, &v, &err), IXJ_OK);
  for (int i = 0; i < 64; i++) assert_true(a[i] == 1.5f);
  ixj_kernel_release(k);
  ixj_kernel_release(fk);
  ixj_kernel_release(ck);
  ixj_kernel_release(NULL);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
  ixj_ixfun_free(big);
  ixj_ixfun_free(bcast);
}

#define THREADS 8
#define RUNS 40

typedef struct shared {
  const ixj_kernel *k;
  const ixj_ixfun *dst, *src;
} shared;

typedef struct worker_arg {
  const shared *sh;
  int id;
} worker_arg;

static void *worker(void *p) {
  worker_arg *w = p;
  size_t shift = (size_t)(w->id % 4) * 16; /* four alignments: variants made while others run */
  char msg[320];
  intptr_t bad = 0;
  for (int r = 0; r < RUNS; r++)
    bad += !run_checked(w->sh->k, IXJ_OP_COPY, 0, w->sh->dst, 1, &w->sh->src, 4, shift, (unsigned)(w->id * 100 + r), msg);
  return (void *)bad;
}

static void test_threads(void **state) {
  (void)state;
  ixj_ixfun *d = parse_ok("iota 48 40"), *s = parse_ok("iota 40 48 | permute 1 0");
  ixj_kernel *k;
  ixj_error err;
  assert_int_equal(ixj_prepare_copy(ctx, d, s, 4, 0, &k, &err), IXJ_OK);
  shared sh = {k, d, s};
  pthread_t t[THREADS];
  worker_arg w[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker_arg){&sh, i};
    assert_int_equal(pthread_create(&t[i], NULL, worker, &w[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) {
    void *bad;
    pthread_join(t[i], &bad);
    assert_int_equal((intptr_t)bad, 0);
  }
  ixj_kernel_release(k);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_results), cmocka_unit_test(test_errors),
                                     cmocka_unit_test(test_threads)};
  return cmocka_run_group_tests(tests, setup, teardown);
}

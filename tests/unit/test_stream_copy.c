/* Streaming copies (runtime/stream_copy.c): every alignment of source and
 * destination and every length around a line, with guard bytes, then large
 * contiguous copies through ixj_copy, whose plans stream (from 4 MiB of
 * output) in chunks that start anywhere in a line. */
#include <stdint.h>

#include "stream_copy.h"
#include "test_util.h"

#define GUARD 128

static void fill_pattern(unsigned char *p, size_t n, unsigned seed) {
  for (size_t k = 0; k < n; k++) p[k] = (unsigned char)(seed * 131 + k * 7 + k / 253);
}

static void every_alignment(void **state) {
  (void)state;
  enum { MAX = 700, SRC = (MAX + 128 + 63) / 64 * 64, DST = (GUARD + MAX + 64 + GUARD + 63) / 64 * 64 };
  unsigned char *src = aligned_alloc(64, SRC), *dst = aligned_alloc(64, DST), *want = aligned_alloc(64, DST);
  assert_true(src && dst && want);
  fill_pattern(src, SRC, 3);
  for (size_t dmis = 0; dmis < 64; dmis += 7)
    for (size_t smis = 0; smis < 64; smis += 13)
      for (size_t n = 0; n <= MAX; n += n < 140 ? 1 : 37) {
        fill_pattern(dst, DST, 5);
        memcpy(want, dst, DST);
        memcpy(want + GUARD + dmis, src + smis, n);
        ixj__stream_copy(dst + GUARD + dmis, src + smis, n);
        if (memcmp(dst, want, DST))
          fail_msg("n %zu, destination off a line by %zu, source by %zu: wrong bytes", n, dmis, smis);
      }
  free(src);
  free(dst);
  free(want);
}

/* A contiguous copy large enough to stream, its destination misaligned. */
static void large_copies(void **state) {
  (void)state;
  ixj_context *ctx;
  ixj_context_options opts = {.num_threads = 2, .disk_cache = -1};
  assert_int_equal(ixj_context_create(&opts, &ctx, NULL), IXJ_OK);
  static const int64_t counts[] = {(5 << 20) + 3, (9 << 20) + 61};
  for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
    for (size_t mis = 1; mis < 64; mis += 31) {
      int64_t n = counts[c];
      unsigned char *src = malloc((size_t)n), *dst = malloc((size_t)n + mis + 2 * GUARD), *want = malloc((size_t)n + mis + 2 * GUARD);
      assert_true(src && dst && want);
      fill_pattern(src, (size_t)n, 9);
      fill_pattern(dst, (size_t)n + mis + 2 * GUARD, 11);
      memcpy(want, dst, (size_t)n + mis + 2 * GUARD);
      memcpy(want + GUARD + mis, src, (size_t)n);
      ixj_ixfun *f;
      assert_int_equal(ixj_ixfun_iota(1, &n, 0, &f, NULL), IXJ_OK);
      ixj_operand d = {dst + GUARD + mis, (size_t)n, f}, s = {src, (size_t)n, f};
      ixj_call_info info;
      ixj_error err;
      if (ixj_copy(ctx, &d, &s, 1, &info, &err) != IXJ_OK) fail_msg("copy: %s", err.message);
      assert_string_equal(info.strategy, "memcpy");
      if (memcmp(dst, want, (size_t)n + mis + 2 * GUARD)) fail_msg("%lld bytes, misaligned by %zu: wrong bytes", (long long)n, mis);
      ixj_ixfun_free(f);
      free(src);
      free(dst);
      free(want);
    }
  ixj_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(every_alignment), cmocka_unit_test(large_copies)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

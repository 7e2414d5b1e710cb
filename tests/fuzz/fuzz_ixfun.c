/* libFuzzer target over the IXFUN parser, the algebra and the division.
 *
 * Text input: parse it; when it parses, the printed form must parse back to an
 * equal function, every point must lie inside the reported offset range, and
 * the queries and anti-unification must run cleanly, and a copy out of it
 * must plan and emit IR without division. Input starting with 0xFF:
 * 17 bytes of (divisor, bound, width) for the division sequences, checked
 * against hardware division at the witness values. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ixjit/ixjit.h"

#define CHECK(c) \
  do {           \
    if (!(c)) abort(); \
  } while (0)

static void fuzz_divmod(const uint8_t *data, size_t size) {
  uint64_t d, b;
  if (size < 18) return;
  memcpy(&d, data + 1, 8);
  memcpy(&b, data + 9, 8);
  unsigned w = data[17] & 1 ? 64 : 32;
  if (w == 32) d &= UINT32_MAX, b &= UINT32_MAX;
  ixj_divider dv;
  ixj_remainder rm;
  ixj_digit dg;
  if (ixj_divider_make(d, b, w, &dv, NULL) != IXJ_OK) return;
  CHECK(w != 32 || b >= (UINT64_C(1) << 31) || dv.form != IXJ_DIV_FIXUP);
  CHECK(ixj_remainder_make(d, b, w, &rm, NULL) == IXJ_OK);
  uint64_t nc = b - ((b % d + 1) % d), n0 = d * (b / d);
  uint64_t cand[] = {0, b, d - 1, d, nc, n0, n0 - 1, b / 2};
  for (size_t k = 0; k < sizeof cand / sizeof *cand; k++) {
    if (cand[k] > b) continue;
    CHECK(ixj_divider_apply(&dv, cand[k]) == cand[k] / d);
    CHECK(ixj_remainder_apply(&rm, cand[k]) == cand[k] % d);
  }
  uint64_t extent = 1 + (data[17] >> 1);
  if (ixj_digit_make(d, extent, b, w, &dg, NULL) == IXJ_OK)
    for (size_t k = 0; k < sizeof cand / sizeof *cand; k++)
      if (cand[k] <= b) CHECK(ixj_digit_apply(&dg, cand[k]) == (cand[k] / d) % extent);
}

/* Plans and emits a copy from f into a row-major array of its shape (no
 * JIT): the IR must never contain a hardware division. */
static ixj_context *ctx;
static void fuzz_emit(const ixj_ixfun *f, int rank, const int64_t *shape) {
  ixj_ixfun *dst = NULL;
  char *ir = NULL;
  if (!ctx && ixj_context_create(&(ixj_context_options){.num_threads = 1, .disk_cache = -1}, &ctx, NULL) != IXJ_OK) abort();
  if (ixj_ixfun_iota(rank, shape, 0, &dst, NULL) != IXJ_OK) return;
  if (ixj_emit_llvm(ctx, IXJ_OP_COPY, dst, 1, &f, 0, 4, &ir, NULL, NULL) == IXJ_OK)
    CHECK(!strstr(ir, " udiv ") && !strstr(ir, " urem ") && !strstr(ir, " sdiv ") && !strstr(ir, " srem "));
  free(ir);
  ixj_ixfun_free(dst);
}

static void fuzz_text(const char *text) {
  ixj_ixfun *f = NULL, *g = NULL;
  ixj_error err;
  if (ixj_ixfun_parse(text, &f, &err) != IXJ_OK) {
    CHECK(f == NULL && err.status != IXJ_OK && err.message[0]);
    return;
  }
  char *s = ixj_ixfun_to_string(f);
  CHECK(s != NULL);
  CHECK(ixj_ixfun_parse(s, &g, &err) == IXJ_OK);
  CHECK(ixj_ixfun_equal(f, g));
  free(s);

  int rank = ixj_ixfun_rank(f);
  int64_t shape[IXJ_MAX_RANK], idx[IXJ_MAX_RANK] = {0}, n = ixj_ixfun_num_points(f);
  ixj_ixfun_shape(f, shape);
  ixj_offset_range r = ixj_ixfun_offset_range(f);
  CHECK(r.empty == (n == 0));
  for (int64_t k = 0; k < n && k < 4096; k++) {
    int64_t off, off2;
    CHECK(ixj_ixfun_index(f, rank, idx, &off, NULL) == IXJ_OK);
    CHECK(ixj_ixfun_index(g, rank, idx, &off2, NULL) == IXJ_OK);
    CHECK(off == off2 && r.min <= off && off <= r.max);
    for (int d = rank - 1; d >= 0 && ++idx[d] == shape[d]; d--) idx[d] = 0;
  }
  int64_t byte_offset;
  int perm[IXJ_MAX_RANK];
  (void)ixj_ixfun_linear_with_offset(f, 16, &byte_offset);
  (void)ixj_ixfun_rearrange_with_offset(f, 16, &byte_offset, perm, shape);
  (void)ixj_ixfun_is_direct(f);
  (void)ixj_ixfun_is_contiguous(f);
  (void)ixj_ixfun_monotonicity(f);
  CHECK(ixj_ixfun_close_enough(f, g));
  ixj_ixfun_general *gen = NULL;
  if (ixj_ixfun_generalize(f, g, &gen, NULL) == IXJ_OK) {
    CHECK(ixj_general_num_holes(gen) == 0);
    ixj_general_free(gen);
  }
  fuzz_emit(f, rank, shape);
  ixj_ixfun_free(f);
  ixj_ixfun_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 0 && data[0] == 0xFF) {
    fuzz_divmod(data, size);
    return 0;
  }
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  fuzz_text(text);
  free(text);
  return 0;
}

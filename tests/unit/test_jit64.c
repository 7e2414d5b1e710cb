#define _GNU_SOURCE
/* 64-bit index arithmetic, without 64-bit sized buffers: kernels planned for
 * iteration spaces of more than 2^32 points run over small windows of units
 * (near the start, the middle and the end), with pointers biased so that only
 * the touched elements need memory. Each source element holds its own offset,
 * so the destination shows exactly which source point every unit read.
 * Streamed with Zen's rules, copies of rows far apart take row groups, whose
 * group test and odometer step run in 64-bit arithmetic too. */
#include <stdint.h>
#include <sys/mman.h>

#include "emit_llvm.h"
#include "jit_llvm.h"
#include "plan.h"
#include "test_util.h"

#define WINDOW 4096

static jit_llvm *jit;

/* grouped: planned streamed, with Zen's rules and 64-byte vectors, and then
 * taking row groups; the windows start on whole groups */
static void check_windows_as(const char *dst_text, const char *src_text, bool grouped) {
  ixj_ixfun *dst = parse_ok(dst_text), *src = parse_ok(src_text);
  const ixj_ixfun *srcs[1] = {src};
  plan_request req = {.op = IXJ_OP_COPY, .elem_size = 8, .dst = dst, .num_srcs = 1, .srcs = srcs};
  if (grouped) {
    req.last_level_cache = 1;
    req.cpu_vector_bytes = 64;
    req.cpu_zen = 1;
  }
  ixj_plan *p = malloc(sizeof *p);
  ixj_error err;
  assert_int_equal(ixj__plan_build(&req, p, &err), IXJ_OK);
  assert_int_equal(p->index_bits, 64);
  assert_int_not_equal(p->strategy, PLAN_TILED); /* units are points here */
  assert_int_equal(p->row_group, grouped ? 4 : 0);
  char sig[4096], *ir = NULL;
  ixj__plan_signature(p, "test", sig, sizeof sig);
  assert_int_equal(ixj__emit_llvm(p, "k64", sig, &ir, &err), IXJ_OK);
  assert_null(strstr(ir, "udiv"));
  assert_null(strstr(ir, "urem"));
  void *obj;
  size_t size;
  ixj_kernel_fn fn;
  if (ixj__jit_llvm_object(jit, ir, &obj, &size, &err) != IXJ_OK) fail_msg("%s", err.message);
  assert_int_equal(ixj__jit_llvm_link(jit, obj, size, "k64", &fn, &err), IXJ_OK); /* one JIT per test */

  int rank = ixj_ixfun_rank(dst);
  int64_t shape[IXJ_MAX_RANK], count = ixj_ixfun_num_points(dst);
  ixj_ixfun_shape(dst, shape);
  assert_true(count > (INT64_C(1) << 32));
  int64_t starts[3] = {0, count / 2 - WINDOW / 3, count - WINDOW};
  if (grouped) /* the dispatcher's chunks start on whole vectors; these on whole groups */
    for (int w = 0; w < 3; w++) starts[w] -= starts[w] % (p->row_group * shape[rank - 1]);
  static int64_t want[WINDOW];
  for (int w = 0; w < 3; w++) {
    int64_t b = starts[w], lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t n = 0; n < WINDOW; n++) { /* row-major logical index b+n */
      int64_t idx[IXJ_MAX_RANK], x = b + n;
      for (int k = rank - 1; k >= 0; k--) {
        idx[k] = x % shape[k];
        x /= shape[k];
      }
      assert_int_equal(ixj_ixfun_index(src, rank, idx, &want[n], NULL), IXJ_OK);
      lo = want[n] < lo ? want[n] : lo;
      hi = want[n] > hi ? want[n] : hi;
    }
    /* the source range can span gigabytes: reserve it, touch only what is read */
    size_t bytes = (size_t)(hi - lo + 1) * 8;
    uint64_t *sbuf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    uint64_t *dbuf = aligned_alloc(64, WINDOW * 8); /* the vectors' stores are aligned */
    if (dbuf) memset(dbuf, 0, WINDOW * 8);
    assert_true(sbuf != MAP_FAILED && dbuf);
    for (int64_t n = 0; n < WINDOW; n++) sbuf[want[n] - lo] = (uint64_t)want[n];
    /* biased bases: element `off` of the operand lives at base + off */
    const void *ptrs[2] = {(const void *)((uintptr_t)dbuf - (uintptr_t)b * 8), (const void *)((uintptr_t)sbuf - (uintptr_t)lo * 8)};
    int64_t offs[2] = {p->operand[0].runtime_offset, p->operand[1].runtime_offset};
    fn(ptrs, offs, b, b + WINDOW);
    for (int64_t n = 0; n < WINDOW; n++)
      if (dbuf[n] != (uint64_t)want[n])
        fail_msg("%s <- %s: unit %lld read offset %llu, want %lld", dst_text, src_text, (long long)(b + n),
                 (unsigned long long)dbuf[n], (long long)want[n]);
    munmap(sbuf, bytes);
    free(dbuf);
  }
  free(obj);
  free(ir);
  free(p);
  ixj_ixfun_free(dst);
  ixj_ixfun_free(src);
}

static void check_windows(const char *dst_text, const char *src_text) { check_windows_as(dst_text, src_text, false); }

static void test_huge_row_groups(void **state) {
  (void)state;
  assert_int_equal(ixj__jit_llvm_create(&jit, NULL), IXJ_OK);
  /* rows of 64 elements 2^20 elements apart, not back to back in the source (a pitch of 80):
   * inner-contiguous (back to back, the rows would be walked in the source's order, which the
   * windows here, runs of destination offsets, do not follow); read every other element: general */
  check_windows_as("iota 16400 4096 64", "iota 4096 16400 80 | slice : : :64 | permute 1 0 2", true);
  ixj__jit_llvm_destroy(jit);
  assert_int_equal(ixj__jit_llvm_create(&jit, NULL), IXJ_OK);
  check_windows_as("iota 16400 4096 64", "iota 4096 16400 128 | slice : : ::2 | permute 1 0 2", true);
  ixj__jit_llvm_destroy(jit);
}

static void test_huge_general(void **state) {
  (void)state;
  assert_int_equal(ixj__jit_llvm_create(&jit, NULL), IXJ_OK);
  /* every other column: no transpose without its rotations either, so the element loop (a
   * transpose rotated along both dims splits into boxes of tiles: split_boxes in gen/plan.c) */
  check_windows("iota 70001 70003", "iota 70003 140002 | slice : ::2 | permute 1 0 | rotate 123 -4567");
  ixj__jit_llvm_destroy(jit);
}

static void test_huge_chain(void **state) {
  (void)state;
  assert_int_equal(ixj__jit_llvm_create(&jit, NULL), IXJ_OK);
  /* a reshape of a transposed, reversed view: re-linearised with 64-bit magic */
  check_windows("iota 4900280003", "iota 70001 70003 | permute 1 0 | slice ::-1 | reshape 4900280003");
  ixj__jit_llvm_destroy(jit);
}

static void test_huge_rank6(void **state) {
  (void)state;
  assert_int_equal(ixj__jit_llvm_create(&jit, NULL), IXJ_OK);
  check_windows("iota 37 41 43 47 53 59", "iota 59 53 47 43 41 37 | permute 5 4 3 2 1 0 | rotate 1 2 3 4 5 6");
  ixj__jit_llvm_destroy(jit);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_huge_general),
      cmocka_unit_test(test_huge_chain),
      cmocka_unit_test(test_huge_rank6),
      cmocka_unit_test(test_huge_row_groups),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

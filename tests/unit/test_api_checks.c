#define _GNU_SOURCE
/* C-API inputs that once crashed or slipped through (issue 15): an operation
 * outside ixj_op_kind (it read coord[-1] and cached a bogus kernel), a hole
 * index outside the generalization, a rank-0 iota or chain with a NULL
 * shape (memcpy from NULL: UBSan stops it), a buffer whose byte range wraps
 * around the address space (it passed validation, and the kernel wrote at
 * the top of memory). */
#include <dirent.h>
#include <unistd.h>

#include "test_util.h"

static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  if (!d) return 0;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

static void test_operation_outside_the_enum(void **state) {
  (void)state;
  char dir[128], cmd[160];
  snprintf(dir, sizeof dir, "/tmp/ixjit-test-api-%d", (int)getpid());
  ixj_context *ctx;
  ixj_error err;
  ixj_context_options o = {.num_threads = 1, .disk_cache = 1, .cache_dir = dir};
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  ixj_ixfun *d = parse_ok("iota 8 6"), *s = parse_ok("iota 6 8 | permute 1 0");
  const ixj_ixfun *srcs[1] = {s};
  int bad[] = {-1, 3, 7, 1000};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    char *ir = (char *)1, *sig = (char *)1;
    assert_int_equal(ixj_emit_llvm(ctx, (ixj_op_kind)bad[k], d, 1, srcs, 0, 4, &ir, &sig, &err),
                     IXJ_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "is not copy, fill or cat"));
    assert_null(ir);
    assert_null(sig);
    ixj_warm_outcome out;
    assert_int_equal(ixj_warm(ctx, (ixj_op_kind)bad[k], d, 1, srcs, 0, 4, true, &out, &err), IXJ_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "is not copy, fill or cat"));
  }
  assert_int_equal(count_files(dir), 0); /* nothing was cached */
  ixj_warm_outcome out;
  assert_int_equal(ixj_warm(ctx, IXJ_OP_COPY, d, 1, srcs, 0, 4, true, &out, &err), IXJ_OK); /* the real one still warms */
  assert_int_equal(out, IXJ_WARM_COMPILED);
  ixj_context_destroy(ctx);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

static void test_hole_outside_the_generalization(void **state) {
  (void)state;
  ixj_ixfun *a = parse_ok("iota 4 6"), *b = parse_ok("iota 4 7");
  ixj_ixfun_general *g = NULL;
  ixj_error err;
  assert_int_equal(ixj_ixfun_generalize(a, b, &g, &err), IXJ_OK);
  int holes = ixj_general_num_holes(g);
  assert_true(holes >= 1);
  int64_t x = -5, y = -6;
  ixj_general_hole(g, 0, &x, &y);
  assert_int_not_equal(x, y);
  int ks[] = {-1, holes, holes + 1, 1 << 30};
  for (size_t k = 0; k < sizeof ks / sizeof *ks; k++) {
    x = -5, y = -6;
    ixj_general_hole(g, ks[k], &x, &y);
    assert_int_equal(x, -5);
    assert_int_equal(y, -6);
  }
  ixj_general_hole(NULL, 0, &x, &y);
  assert_int_equal(x, -5);
  ixj_general_hole(g, 0, NULL, NULL); /* outputs are optional */
  ixj_general_free(g);
  ixj_ixfun_free(a);
  ixj_ixfun_free(b);
}

static void test_rank_zero_without_a_shape(void **state) {
  (void)state;
  ixj_ixfun *f = NULL;
  ixj_error err;
  assert_int_equal(ixj_ixfun_iota(0, NULL, 5, &f, &err), IXJ_OK);
  assert_int_equal(ixj_ixfun_rank(f), 0);
  assert_int_equal(ixj_ixfun_num_points(f), 1);
  int64_t off = -1;
  assert_int_equal(ixj_ixfun_index(f, 0, NULL, &off, &err), IXJ_OK);
  assert_int_equal(off, 5);
  ixj_ixfun_free(f);
  ixj_lmad l;
  memset(&l, 0, sizeof l);
  l.offset = 3;
  assert_int_equal(ixj_ixfun_from_lmads(1, &l, 0, NULL, &f, &err), IXJ_OK);
  assert_int_equal(ixj_ixfun_num_points(f), 1);
  ixj_ixfun *g = NULL;
  assert_int_equal(ixj_ixfun_clone(f, &g, &err), IXJ_OK);
  assert_int_equal(ixj_ixfun_index(g, 0, NULL, &off, &err), IXJ_OK);
  assert_int_equal(off, 3);
  ixj_ixfun_free(g);
  ixj_ixfun_free(f);
}

static void test_buffer_wrapping_the_address_space(void **state) {
  (void)state;
  ixj_context *ctx;
  ixj_error err;
  ixj_context_options o = {.num_threads = 1, .disk_cache = -1};
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  ixj_ixfun *f = parse_ok("iota 4");
  int32_t a[4] = {1, 2, 3, 4}, b[4];
  void *top = (void *)(UINTPTR_MAX - 15); /* 16 bytes below the end: 64 bytes wrap */
  ixj_operand good_dst = {b, sizeof b, f}, good_src = {a, sizeof a, f};
  ixj_operand wrap = {top, 64, f};
  assert_int_equal(ixj_copy(ctx, &wrap, &good_src, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "destination: the buffer of 64 bytes"));
  assert_non_null(strstr(err.message, "wraps around the address space"));
  assert_int_equal(ixj_copy(ctx, &good_dst, &wrap, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "source: the buffer"));
  assert_int_equal(ixj_fill(ctx, &wrap, a, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  ixj_operand huge = {b, SIZE_MAX, f}; /* any size that wraps from a real pointer */
  assert_int_equal(ixj_copy(ctx, &huge, &good_src, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_copy(ctx, &good_dst, &good_src, 4, NULL, &err), IXJ_OK);
  assert_int_equal(b[3], 4);
  ixj_context_destroy(ctx);
  ixj_ixfun_free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_operation_outside_the_enum),
      cmocka_unit_test(test_hole_outside_the_generalization),
      cmocka_unit_test(test_rank_zero_without_a_shape),
      cmocka_unit_test(test_buffer_wrapping_the_address_space),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

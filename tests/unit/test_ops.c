/* The operations' API: results, call info, DLPack, emission, and every
 * error path (overlap, buffer too small, shapes, element size, destinations
 * that map two points to one offset). */
#include <dlpack/dlpack.h>

#include "ixjit/dlpack.h"
#include "test_util.h"

static ixj_context *ctx;

static int setup(void **state) {
  (void)state;
  return ixj_context_create(&(ixj_context_options){.num_threads = 2, .disk_cache = -1}, &ctx, NULL) == IXJ_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  ixj_context_destroy(ctx);
  return 0;
}

static void test_copy_transpose_and_info(void **state) {
  (void)state;
  ixj_ixfun *d = parse_ok("iota 3 4"), *s = parse_ok("iota 4 3 | permute 1 0");
  int32_t src[12], dst[12];
  for (int k = 0; k < 12; k++) src[k] = k;
  ixj_operand od = {dst, sizeof dst, d}, os = {src, sizeof src, s};
  ixj_call_info info;
  ixj_error err;
  assert_int_equal(ixj_copy(ctx, &od, &os, 4, &info, &err), IXJ_OK);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) assert_int_equal(dst[i * 4 + j], j * 3 + i);
  assert_false(info.cache_hit);
  assert_true(info.compile_ms > 0);
  assert_string_equal(info.strategy, "general");
  assert_int_equal(ixj_copy(ctx, &od, &os, 4, &info, &err), IXJ_OK);
  assert_true(info.cache_hit);
  assert_true(info.compile_ms == 0);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
}

static void test_strategies(void **state) {
  (void)state;
  static int32_t a[256 * 256], b[256 * 256];
  struct {
    const char *dst, *src, *strategy;
  } cases[] = {
      {"iota 256 256", "iota 256 256", "memcpy"},
      {"iota 256 256 | slice 1:255 1:255", "iota 256 256 | slice 0:254 2:256", "inner_contiguous"},
      {"iota 256 256", "iota 256 256 | permute 1 0", "tiled"},
      {"iota 256 256", "iota 256 256 | slice ::-1 | rotate 1 1", "general"},
      {"iota 256 0", "iota 0 256 | permute 1 0", "empty"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    ixj_ixfun *d = parse_ok(cases[k].dst), *s = parse_ok(cases[k].src);
    ixj_operand od = {a, sizeof a, d}, os = {b, sizeof b, s};
    ixj_call_info info;
    assert_int_equal(ixj_copy(ctx, &od, &os, 4, &info, NULL), IXJ_OK);
    assert_string_equal(info.strategy, cases[k].strategy);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
}

static void expect_copy_error(const char *dt, size_t dsize, const char *st, size_t ssize, size_t elem, ixj_status want,
                              const char *needle) {
  static char buf[4096];
  ixj_ixfun *d = parse_ok(dt), *s = parse_ok(st);
  ixj_operand od = {buf, dsize, d}, os = {buf + 2048, ssize, s};
  ixj_error err;
  memset(buf, 0x5a, sizeof buf);
  ixj_status got = ixj_copy(ctx, &od, &os, elem, NULL, &err);
  if (got != want || !strstr(err.message, needle))
    fail_msg("copy %s <- %s: %s (%s), want %s with '%s'", dt, st, ixj_status_name(got), err.message,
             ixj_status_name(want), needle);
  for (size_t k = 0; k < 2048; k++) assert_int_equal(buf[k], 0x5a); /* nothing written */
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
}

static void test_errors(void **state) {
  (void)state;
  expect_copy_error("iota 3 4", 47, "iota 3 4", 48, 4, IXJ_ERR_OUT_OF_RANGE, "destination: buffer too small");
  expect_copy_error("iota 3 4", 48, "iota 3 4 | permute 1 0 | permute 1 0", 47, 4, IXJ_ERR_OUT_OF_RANGE, "source: buffer too small");
  expect_copy_error("iota 3 4", 48, "iota 4 3", 48, 4, IXJ_ERR_MISMATCH, "shape differs");
  expect_copy_error("iota 3 4", 48, "iota 3 4", 48, 3, IXJ_ERR_INVALID_ARGUMENT, "element size 3");
  expect_copy_error("iota 3 | expand 4 3", 48, "iota 4 3", 48, 4, IXJ_ERR_INVALID_ARGUMENT, "two points to one offset");
  expect_copy_error("strided shape=3,3 strides=1,1", 48, "iota 3 3", 48, 4, IXJ_ERR_INVALID_ARGUMENT, "two points");
  expect_copy_error("strided shape=4 strides=-1", 48, "iota 4", 48, 4, IXJ_ERR_OUT_OF_RANGE, "before the buffer");

  /* overlap: the source and the destination in one buffer */
  static int32_t buf[64];
  ixj_ixfun *d = parse_ok("iota 8 | slice 0:8"), *s = parse_ok("iota 16 | slice 4:12"), *s2 = parse_ok("iota 16 | slice 8:16");
  ixj_operand od = {buf, sizeof buf, d}, os = {buf, sizeof buf, s}, os2 = {buf, sizeof buf, s2};
  ixj_error err;
  assert_int_equal(ixj_copy(ctx, &od, &os, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "overlaps the destination"));
  assert_int_equal(ixj_copy(ctx, &od, &os2, 4, NULL, &err), IXJ_OK); /* adjacent is fine */
  assert_int_equal(ixj_fill(ctx, &od, &buf[3], 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "value overlaps"));
  assert_int_equal(ixj_fill(ctx, &od, NULL, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_copy(NULL, &od, &os2, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  ixj_operand nodata = {NULL, 64, d};
  assert_int_equal(ixj_copy(ctx, &nodata, &os2, 4, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
  ixj_ixfun_free(s2);
}

static void test_fill_and_cat(void **state) {
  (void)state;
  int16_t dst[4 * 7];
  int16_t a[4 * 3], b[4 * 4];
  for (int k = 0; k < 12; k++) a[k] = (int16_t)(100 + k);
  for (int k = 0; k < 16; k++) b[k] = (int16_t)(200 + k);
  ixj_ixfun *d = parse_ok("iota 4 7"), *fa = parse_ok("iota 4 3"), *fb = parse_ok("iota 4 4 | permute 1 0");
  ixj_operand od = {dst, sizeof dst, d}, in[2] = {{a, sizeof a, fa}, {b, sizeof b, fb}};
  ixj_error err;
  assert_int_equal(ixj_cat(ctx, &od, 1, 2, in, 2, NULL, &err), IXJ_OK);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 7; j++) assert_int_equal(dst[i * 7 + j], j < 3 ? 100 + i * 3 + j : 200 + (j - 3) * 4 + i);
  assert_int_equal(ixj_cat(ctx, &od, 2, 2, in, 2, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "axis 2"));
  assert_int_equal(ixj_cat(ctx, &od, 0, 2, in, 2, NULL, &err), IXJ_ERR_MISMATCH);
  assert_int_equal(ixj_cat(ctx, &od, 1, 1, in, 2, NULL, &err), IXJ_ERR_MISMATCH);
  assert_non_null(strstr(err.message, "add up to 3, not 7"));
  assert_int_equal(ixj_cat(ctx, &od, 1, 0, in, 2, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);

  ixj_ixfun *every_other = parse_ok("iota 4 7 | slice : ::2");
  ixj_operand oe = {dst, sizeof dst, every_other};
  int16_t v = -1;
  assert_int_equal(ixj_fill(ctx, &oe, &v, 2, NULL, &err), IXJ_OK);
  for (int k = 0; k < 28; k++) assert_true((k % 7) % 2 == 0 ? dst[k] == -1 : dst[k] != -1);
  ixj_ixfun_free(every_other);
  ixj_ixfun_free(d);
  ixj_ixfun_free(fa);
  ixj_ixfun_free(fb);
}

static void test_dlpack(void **state) {
  (void)state;
  float src[6] = {0, 1, 2, 3, 4, 5}, dst[6] = {0};
  int64_t sshape[2] = {3, 2}, sstrides[2] = {1, 3}, dshape[2] = {3, 2};
  DLTensor s = {src, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sshape, sstrides, 0};
  DLTensor d = {dst, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, dshape, NULL, 0};
  ixj_error err;
  assert_int_equal(ixj_copy_dlpack(ctx, &d, &s, NULL, &err), IXJ_OK); /* dst = src viewed transposed */
  float want[6] = {0, 3, 1, 4, 2, 5};
  for (int k = 0; k < 6; k++) assert_true(dst[k] == want[k]);
  /* a reversed view: NumPy's negative strides, data at the last element */
  int64_t rshape[1] = {6}, rstrides[1] = {-1};
  DLTensor r = {src, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, rshape, rstrides, 5 * sizeof(float)};
  DLTensor d1 = {dst, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, rshape, NULL, 0};
  assert_int_equal(ixj_copy_dlpack(ctx, &d1, &r, NULL, &err), IXJ_OK);
  for (int k = 0; k < 6; k++) assert_true(dst[k] == (float)(5 - k));
  float seven = 7;
  assert_int_equal(ixj_fill_dlpack(ctx, &d1, &seven, NULL, &err), IXJ_OK);
  for (int k = 0; k < 6; k++) assert_true(dst[k] == 7);
  const DLTensor *parts[2] = {&s, &s};
  int64_t cshape[2] = {6, 2};
  float cat[12];
  DLTensor c = {cat, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, cshape, NULL, 0};
  assert_int_equal(ixj_cat_dlpack(ctx, &c, 0, 2, parts, NULL, &err), IXJ_OK);
  assert_true(cat[2] == 1 && cat[8] == 1);

  DLTensor gpu = d;
  gpu.device.device_type = kDLCUDA;
  assert_int_equal(ixj_copy_dlpack(ctx, &gpu, &s, NULL, &err), IXJ_ERR_MISMATCH);
  assert_non_null(strstr(err.message, "different devices"));
  DLTensor metal = d;
  metal.device.device_type = kDLMetal;
  assert_int_equal(ixj_copy_dlpack(ctx, &metal, &s, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "CPU and CUDA tensors only"));
  DLTensor odd = s;
  odd.dtype.bits = 24;
  assert_int_equal(ixj_copy_dlpack(ctx, &d, &odd, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  DLTensor wide = s;
  wide.dtype.bits = 64;
  assert_int_equal(ixj_copy_dlpack(ctx, &d, &wide, NULL, &err), IXJ_ERR_MISMATCH);
  assert_int_equal(ixj_copy_dlpack(ctx, &d, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
}

static void test_emit(void **state) {
  (void)state;
  {
    ixj_context *small;
    ixj_ixfun *big = parse_ok("iota 1024 1024"), *rev = parse_ok("iota 1024 1024 | slice ::-1 | rotate 0 3");
    const ixj_ixfun *one[1] = {rev};
    char *text = NULL;
    assert_int_equal(ixj_context_create(&(ixj_context_options){.num_threads = 1, .last_level_cache = 1 << 20, .disk_cache = -1}, &small, NULL), IXJ_OK);
    assert_int_equal(ixj_emit_llvm(small, IXJ_OP_COPY, big, 1, one, 0, 4, &text, NULL, NULL), IXJ_OK);
    assert_non_null(strstr(text, "!nontemporal")); /* 4 MiB > 1 MiB: streaming stores, then a fence */
    assert_non_null(strstr(text, "fence seq_cst"));
    free(text);
    ixj_ixfun_free(big);
    ixj_ixfun_free(rev);
    ixj_context_destroy(small);
  }
  ixj_ixfun *d = parse_ok("iota 6 5"), *s = parse_ok("iota 5 6 | permute 1 0 | reshape 30 | rotate 7 | reshape 6 5");
  char *ir = NULL, *sig = NULL;
  ixj_error err;
  const ixj_ixfun *srcs[1] = {s};
  assert_int_equal(ixj_emit_llvm(ctx, IXJ_OP_COPY, d, 1, srcs, 0, 8, &ir, &sig, &err), IXJ_OK);
  assert_non_null(strstr(ir, "define void @ixj_"));
  assert_null(strstr(ir, "udiv"));
  assert_null(strstr(ir, "urem"));
  assert_non_null(strstr(sig, "op=copy elem=8"));
  free(ir);
  free(sig);
  assert_int_equal(ixj_emit_llvm(ctx, IXJ_OP_COPY, d, 1, srcs, 0, 5, &ir, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_null(ir);
  srcs[0] = d;
  assert_int_equal(ixj_emit_llvm(ctx, IXJ_OP_COPY, d, 1, srcs, 0, 4, &ir, NULL, &err), IXJ_OK);
  assert_non_null(strstr(ir, "strategy memcpy needs no kernel"));
  free(ir);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_copy_transpose_and_info), cmocka_unit_test(test_strategies),
      cmocka_unit_test(test_errors),                  cmocka_unit_test(test_fill_and_cat),
      cmocka_unit_test(test_dlpack),                  cmocka_unit_test(test_emit),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

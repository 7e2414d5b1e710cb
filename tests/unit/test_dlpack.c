/* DLPack tensors on the CPU path: versioned managed tensors (DLPack 1.x),
 * the READ_ONLY flag on destinations, and every malformed field refused
 * before anything is read or written (issue 15, item 6): each case here
 * crashed, wrapped or wrote before. */
#include <dlpack/dlpack.h>

#include "ixjit/dlpack.h"
#include "test_util.h"

static ixj_context *ctx;

static int setup(void **state) {
  (void)state;
  return ixj_context_create(&(ixj_context_options){.num_threads = 1, .disk_cache = -1}, &ctx, NULL) == IXJ_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  ixj_context_destroy(ctx);
  return 0;
}

#define F32 ((DLDataType){kDLFloat, 32, 1})
#define CPU ((DLDevice){kDLCPU, 0})

static DLTensor tensor(void *data, int ndim, int64_t *shape, int64_t *strides, DLDataType dt, uint64_t byte_offset) {
  return (DLTensor){data, CPU, ndim, dt, shape, strides, byte_offset};
}

static struct DLManagedTensorVersioned managed(DLTensor t, uint64_t flags) {
  struct DLManagedTensorVersioned m = {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, NULL, NULL, flags, t};
  return m;
}

/* Copies src into a fresh dst of 8 floats expecting `status` and a message
 * holding `needle`; dst must be untouched when it fails. */
static void copy_fails(DLTensor src, ixj_status status, const char *needle) {
  float dst[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  int64_t dshape[1] = {8};
  DLTensor d = tensor(dst, 1, dshape, NULL, F32, 0);
  ixj_error err;
  ixj_status st = ixj_copy_dlpack(ctx, &d, &src, NULL, &err);
  if (st != status) fail_msg("status %s (%s), expected %s", ixj_status_name(st), err.message, ixj_status_name(status));
  if (!strstr(err.message, needle)) fail_msg("message '%s' lacks '%s'", err.message, needle);
  for (int k = 0; k < 8; k++) assert_true(dst[k] == -1);
}

/* Negative and zero strides and a byte_offset: the pointer moves to the
 * lowest element the tensor reaches, as NumPy's views do. */
static void test_strides_and_offset(void **state) {
  (void)state;
  float src[8] = {0, 1, 2, 3, 4, 5, 6, 7}, dst[8] = {0};
  int64_t shape[1] = {8}, rev[1] = {-1}, zero[1] = {0};
  DLTensor d = tensor(dst, 1, shape, NULL, F32, 0);
  DLTensor s = tensor(src, 1, shape, rev, F32, 7 * sizeof(float)); /* src[::-1] */
  ixj_error err;
  assert_int_equal(ixj_copy_dlpack(ctx, &d, &s, NULL, &err), IXJ_OK);
  for (int k = 0; k < 8; k++) assert_true(dst[k] == 7 - k);
  DLTensor b = tensor(src, 1, shape, zero, F32, 3 * sizeof(float)); /* broadcast src[3] */
  assert_int_equal(ixj_copy_dlpack(ctx, &d, &b, NULL, &err), IXJ_OK);
  for (int k = 0; k < 8; k++) assert_true(dst[k] == 3);
  /* 0-d and empty tensors: an empty one may have NULL data */
  float one = 5, out = 0;
  DLTensor s0 = tensor(&one, 0, NULL, NULL, F32, 0), d0 = tensor(&out, 0, NULL, NULL, F32, 0);
  assert_int_equal(ixj_copy_dlpack(ctx, &d0, &s0, NULL, &err), IXJ_OK);
  assert_true(out == 5);
  int64_t none[2] = {3, 0};
  DLTensor e1 = tensor(NULL, 2, none, NULL, F32, 0), e2 = tensor(NULL, 2, none, NULL, F32, 0);
  assert_int_equal(ixj_copy_dlpack(ctx, &e1, &e2, NULL, &err), IXJ_OK);
}

/* Versioned tensors: copy, fill and cat; READ_ONLY refused on a destination
 * (nothing written), fine on a source; another major version refused. */
static void test_versioned(void **state) {
  (void)state;
  float src[6] = {0, 1, 2, 3, 4, 5}, dst[6] = {0}, cat[12] = {0}, seven = 7;
  int64_t sshape[2] = {3, 2}, sstrides[2] = {1, 3}, dshape[2] = {3, 2}, cshape[2] = {6, 2};
  struct DLManagedTensorVersioned s = managed(tensor(src, 2, sshape, sstrides, F32, 0), DLPACK_FLAG_BITMASK_READ_ONLY);
  struct DLManagedTensorVersioned d = managed(tensor(dst, 2, dshape, NULL, F32, 0), 0);
  struct DLManagedTensorVersioned c = managed(tensor(cat, 2, cshape, NULL, F32, 0), DLPACK_FLAG_BITMASK_IS_COPIED);
  ixj_error err;
  assert_int_equal(ixj_copy_dlpack_versioned(ctx, &d, &s, NULL, NULL, &err), IXJ_OK);
  const float want[6] = {0, 3, 1, 4, 2, 5};
  for (int k = 0; k < 6; k++) assert_true(dst[k] == want[k]);
  const struct DLManagedTensorVersioned *parts[2] = {&d, &s};
  assert_int_equal(ixj_cat_dlpack_versioned(ctx, &c, 0, 2, parts, NULL, NULL, &err), IXJ_OK);
  for (int k = 0; k < 6; k++) assert_true(cat[k] == want[k] && cat[6 + k] == want[k]);
  assert_int_equal(ixj_fill_dlpack_versioned(ctx, &d, &seven, NULL, NULL, &err), IXJ_OK);
  for (int k = 0; k < 6; k++) assert_true(dst[k] == 7);

  struct DLManagedTensorVersioned ro = managed(tensor(dst, 2, dshape, NULL, F32, 0), DLPACK_FLAG_BITMASK_READ_ONLY);
  assert_int_equal(ixj_copy_dlpack_versioned(ctx, &ro, &s, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "read-only"));
  assert_int_equal(ixj_fill_dlpack_versioned(ctx, &ro, &seven, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  const struct DLManagedTensorVersioned *one[1] = {&s};
  assert_int_equal(ixj_cat_dlpack_versioned(ctx, &ro, 0, 1, one, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  for (int k = 0; k < 6; k++) assert_true(dst[k] == 7);

  /* A major version ixjit does not know: nothing else may be read (the
   * tensor's other fields are garbage here). */
  struct DLManagedTensorVersioned future = managed(tensor((void *)(uintptr_t)8, 99, NULL, NULL, F32, 3), 0);
  future.version.major = DLPACK_MAJOR_VERSION + 1;
  assert_int_equal(ixj_copy_dlpack_versioned(ctx, &d, &future, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "version"));
  future.version.major = 0;
  assert_int_equal(ixj_copy_dlpack_versioned(ctx, &future, &s, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_copy_dlpack_versioned(ctx, NULL, &s, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_cat_dlpack_versioned(ctx, &c, 0, 0, parts, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
}

/* Shapes: NULL with ndim > 0 (copy, fill and cat), negative extents, ranks. */
static void test_bad_shapes(void **state) {
  (void)state;
  float src[8] = {0};
  int64_t neg[1] = {-3};
  copy_fails(tensor(src, 1, NULL, NULL, F32, 0), IXJ_ERR_INVALID_ARGUMENT, "NULL shape");
  copy_fails(tensor(src, 1, neg, NULL, F32, 0), IXJ_ERR_INVALID_ARGUMENT, "negative");
  int64_t big[17] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 8};
  copy_fails(tensor(src, 17, big, NULL, F32, 0), IXJ_ERR_LIMIT, "rank");
  copy_fails(tensor(src, -1, big, NULL, F32, 0), IXJ_ERR_LIMIT, "rank");
  int64_t huge[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
  copy_fails(tensor(src, 2, huge, NULL, F32, 0), IXJ_ERR_OVERFLOW, "overflow");
  float seven = 7;
  DLTensor noshape = tensor(src, 1, NULL, NULL, F32, 0);
  ixj_error err;
  assert_int_equal(ixj_fill_dlpack(ctx, &noshape, &seven, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  int64_t eight[1] = {8};
  DLTensor ok = tensor(src, 1, eight, NULL, F32, 0);
  const DLTensor *parts[2] = {&ok, &noshape};
  float cat[16];
  int64_t sixteen[1] = {16};
  DLTensor c = tensor(cat, 1, sixteen, NULL, F32, 0);
  assert_int_equal(ixj_cat_dlpack(ctx, &c, 0, 2, parts, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "NULL shape"));
}

/* Strides whose element or byte offsets overflow: -2^62 (its span negates
 * INT64_MIN), INT64_MIN itself, and 16-byte elements with stride 2^61. */
static void test_bad_strides(void **state) {
  (void)state;
  float src[8] = {0};
  int64_t two[1] = {2}, eight[1] = {8};
  int64_t s62[1] = {-(INT64_C(1) << 62)}, smin[1] = {INT64_MIN}, smax[1] = {INT64_MAX};
  copy_fails(tensor(src, 1, two, s62, F32, 0), IXJ_ERR_OVERFLOW, "overflow");
  copy_fails(tensor(src, 1, two, smin, F32, 0), IXJ_ERR_OVERFLOW, "overflow");
  copy_fails(tensor(src, 1, two, smax, F32, 0), IXJ_ERR_OVERFLOW, "overflow");
  /* 2^61 * 16 bytes overflows even where the element offsets do not */
  int64_t s61[1] = {INT64_C(1) << 61};
  uint8_t wide[8 * 16] = {0};
  int64_t one[1] = {1};
  DLTensor d16 = tensor(wide, 1, two, NULL, (DLDataType){kDLComplex, 128, 1}, 0);
  DLTensor s16 = tensor(wide + 64, 1, two, s61, (DLDataType){kDLComplex, 128, 1}, 0);
  ixj_error err;
  assert_int_equal(ixj_copy_dlpack(ctx, &d16, &s16, NULL, &err), IXJ_ERR_OVERFLOW);
  /* the same stride on a dim of extent 1 is never stepped: fine */
  DLTensor d1 = tensor(wide, 1, one, NULL, (DLDataType){kDLComplex, 128, 1}, 0);
  DLTensor s1 = tensor(wide + 64, 1, one, (int64_t[]){INT64_C(1) << 58}, (DLDataType){kDLComplex, 128, 1}, 0);
  assert_int_equal(ixj_copy_dlpack(ctx, &d1, &s1, NULL, &err), IXJ_OK);
  /* two dims that each fit but together overflow */
  int64_t sh2[2] = {3, 3}, st2[2] = {INT64_C(1) << 61, INT64_C(1) << 61};
  copy_fails(tensor(src, 2, sh2, st2, (DLDataType){kDLInt, 8, 1}, 0), IXJ_ERR_OVERFLOW, "overflow");
  (void)eight;
}

/* dtypes: no lanes, sub-byte bits, sizes the kernels do not move. */
static void test_bad_dtypes(void **state) {
  (void)state;
  float src[8] = {0};
  int64_t eight[1] = {8};
  copy_fails(tensor(src, 1, eight, NULL, (DLDataType){kDLFloat, 32, 0}, 0), IXJ_ERR_INVALID_ARGUMENT, "lanes");
  copy_fails(tensor(src, 1, eight, NULL, (DLDataType){kDLFloat, 0, 1}, 0), IXJ_ERR_INVALID_ARGUMENT, "bits");
  copy_fails(tensor(src, 1, eight, NULL, (DLDataType){kDLFloat4_e2m1fn, 4, 8}, 0), IXJ_ERR_INVALID_ARGUMENT, "bits");
  copy_fails(tensor(src, 1, eight, NULL, (DLDataType){kDLInt, 12, 1}, 0), IXJ_ERR_INVALID_ARGUMENT, "bits");
  copy_fails(tensor(src, 1, eight, NULL, (DLDataType){kDLInt, 8, 3}, 0), IXJ_ERR_INVALID_ARGUMENT, "3-byte");
  copy_fails(tensor(src, 1, eight, NULL, (DLDataType){kDLInt, 64, 4}, 0), IXJ_ERR_INVALID_ARGUMENT, "32-byte");
  copy_fails(tensor(src, 1, eight, NULL, (DLDataType){kDLFloat, 64, 1}, 0), IXJ_ERR_MISMATCH, "element sizes");
  /* lanes make the element: two 16-bit lanes are one 4-byte element */
  float dst[8] = {0};
  DLTensor d = tensor(dst, 1, eight, NULL, F32, 0), s = tensor(src, 1, eight, NULL, (DLDataType){kDLInt, 16, 2}, 0);
  ixj_error err;
  assert_int_equal(ixj_copy_dlpack(ctx, &d, &s, NULL, &err), IXJ_OK);
}

/* byte_offset and pointers: misaligned, beyond 63 bits, wrapping the address
 * space (data + byte_offset, the reached bytes, below address 0). */
static void test_bad_pointers(void **state) {
  (void)state;
  float src[8] = {0};
  int64_t eight[1] = {8}, rev[1] = {-1};
  copy_fails(tensor(src, 1, eight, NULL, F32, 2), IXJ_ERR_INVALID_ARGUMENT, "multiple");
  copy_fails(tensor(src, 1, eight, NULL, F32, UINT64_MAX - 3), IXJ_ERR_OVERFLOW, "byte_offset");
  copy_fails(tensor((void *)(UINTPTR_MAX - 15), 1, eight, NULL, F32, 32), IXJ_ERR_INVALID_ARGUMENT, "wraps");
  copy_fails(tensor((void *)(UINTPTR_MAX - 15), 1, eight, NULL, F32, 0), IXJ_ERR_INVALID_ARGUMENT, "wrap");
  copy_fails(tensor((void *)(uintptr_t)16, 1, eight, rev, F32, 0), IXJ_ERR_INVALID_ARGUMENT, "wrap");
  copy_fails(tensor(NULL, 1, eight, NULL, F32, 0), IXJ_ERR_INVALID_ARGUMENT, "NULL");
  /* a destination whose range wraps is refused too, and nothing is read */
  DLTensor d = tensor((void *)(UINTPTR_MAX - 15), 1, eight, NULL, F32, 0), s = tensor(src, 1, eight, NULL, F32, 0);
  ixj_error err;
  assert_int_equal(ixj_copy_dlpack(ctx, &d, &s, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  /* devices other than CPU and CUDA */
  DLTensor metal = s;
  metal.device = (DLDevice){kDLMetal, 0};
  assert_int_equal(ixj_copy_dlpack(ctx, &metal, &s, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_strides_and_offset), cmocka_unit_test(test_versioned), cmocka_unit_test(test_bad_shapes),
      cmocka_unit_test(test_bad_strides),        cmocka_unit_test(test_bad_dtypes), cmocka_unit_test(test_bad_pointers),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

/* DLPack tensors and the CUDA path: the caller's stream reaches CUDA work and
 * is ignored for CPU tensors; a CUDA tensor's device index is the device the
 * work runs on (docs/cuda-path.md): tensors on two devices are a mismatch, an
 * index the process lacks is refused by the driver layer. Without a GPU the
 * CUDA calls must fail as unavailable, never run on the CPU. (Which context a
 * device index selects is unit_cuda_device's, with a fake driver.) */
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

/* CPU tensors: the stream is not used (a bogus one must not matter). */
static void test_cpu_ignores_stream(void **state) {
  (void)state;
  float src[6] = {0, 1, 2, 3, 4, 5}, dst[6] = {0}, cat[12] = {0}, seven = 7;
  int64_t sshape[2] = {3, 2}, sstrides[2] = {1, 3}, dshape[2] = {3, 2}, cshape[2] = {6, 2};
  DLTensor s = {src, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sshape, sstrides, 0};
  DLTensor d = {dst, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, dshape, NULL, 0};
  DLTensor c = {cat, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, cshape, NULL, 0};
  void *bogus = (void *)(uintptr_t)0x5eed;
  ixj_error err;
  assert_int_equal(ixj_copy_dlpack_stream(ctx, &d, &s, bogus, NULL, &err), IXJ_OK);
  const float want[6] = {0, 3, 1, 4, 2, 5};
  for (int k = 0; k < 6; k++) assert_true(dst[k] == want[k]);
  const DLTensor *parts[2] = {&d, &s};
  assert_int_equal(ixj_cat_dlpack_stream(ctx, &c, 0, 2, parts, bogus, NULL, &err), IXJ_OK);
  for (int k = 0; k < 6; k++) assert_true(cat[k] == want[k] && cat[6 + k] == want[k]);
  assert_int_equal(ixj_fill_dlpack_stream(ctx, &d, &seven, bogus, NULL, &err), IXJ_OK);
  for (int k = 0; k < 6; k++) assert_true(dst[k] == 7);
}

/* CUDA tensors: on the GPU when there is one, else "unavailable"; device 1
 * runs there when the process has it, is refused by name when it has not, and
 * is unavailable without a GPU; tensors on devices 0 and 1 never mix. */
static void test_cuda_device_and_stream(void **state) {
  (void)state;
  int64_t shape[1] = {64};
  ixj_error why, err;
  int gpu = ixj_cuda_available(NULL, &why) == IXJ_OK;
  void *dbuf = NULL, *sbuf = NULL;
  if (gpu) {
    assert_int_equal(ixj_cuda_alloc(&dbuf, 64 * 4, &err), IXJ_OK);
    assert_int_equal(ixj_cuda_alloc(&sbuf, 64 * 4, &err), IXJ_OK);
  } else {
    dbuf = (void *)(uintptr_t)0x100000; /* never dereferenced: the call must fail first */
    sbuf = (void *)(uintptr_t)0x200000;
  }
  DLTensor d = {dbuf, {kDLCUDA, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor s = {sbuf, {kDLCUDA, 0}, 1, {kDLFloat, 32, 1}, shape, (int64_t[]){1}, 0};
  ixj_status st = ixj_copy_dlpack_stream(ctx, &d, &s, NULL, NULL, &err);
  if (gpu) {
    assert_int_equal(st, IXJ_OK);
    assert_int_equal(ixj_cuda_synchronize(NULL, &err), IXJ_OK);
  } else {
    assert_int_equal(st, IXJ_ERR_UNAVAILABLE);
  }
  int devices = 0;
  ixj_cuda_device_count(&devices, &err);
  DLTensor other = d, other_src = s;
  other.device.device_id = other_src.device.device_id = 1;
  void *obuf = NULL, *osbuf = NULL;
  if (devices >= 2) {
    assert_int_equal(ixj_cuda_alloc_device(1, &obuf, 64 * 4, &err), IXJ_OK);
    assert_int_equal(ixj_cuda_alloc_device(1, &osbuf, 64 * 4, &err), IXJ_OK);
    other.data = obuf;
    other_src.data = osbuf;
  }
  st = ixj_copy_dlpack_stream(ctx, &other, &other_src, NULL, NULL, &err);
  if (devices >= 2) {
    assert_int_equal(st, IXJ_OK);
    assert_int_equal(ixj_cuda_synchronize_device(1, NULL, &err), IXJ_OK);
  } else if (gpu) {
    assert_int_equal(st, IXJ_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "no CUDA device 1"));
  } else {
    assert_int_equal(st, IXJ_ERR_UNAVAILABLE);
  }
  assert_int_equal(ixj_copy_dlpack_stream(ctx, &other, &s, NULL, NULL, &err), IXJ_ERR_MISMATCH);
  assert_non_null(strstr(err.message, "different CUDA devices (1 and 0)"));
  ixj_cuda_free(obuf);
  ixj_cuda_free(osbuf);
  DLTensor host = s;
  host.device.device_type = kDLCPU;
  assert_int_equal(ixj_copy_dlpack_stream(ctx, &d, &host, NULL, NULL, &err), IXJ_ERR_MISMATCH);
  if (gpu) {
    ixj_cuda_free(dbuf);
    ixj_cuda_free(sbuf);
  }
}

/* Prepared CUDA kernels without a GPU: a clean "unavailable", no handle. */
static void test_prepared_unavailable(void **state) {
  (void)state;
  ixj_error err;
  if (ixj_cuda_available(NULL, &err) == IXJ_OK) skip(); /* cuda_devices runs them on the GPU */
  ixj_ixfun *d = NULL, *s = NULL;
  assert_int_equal(ixj_ixfun_parse("iota 8 6", &d, &err), IXJ_OK);
  assert_int_equal(ixj_ixfun_parse("iota 6 8 | permute 1 0", &s, &err), IXJ_OK);
  const ixj_ixfun *parts[1] = {s};
  ixj_cuda_kernel *k = (ixj_cuda_kernel *)1;
  assert_int_equal(ixj_cuda_prepare_copy(ctx, 0, d, s, 4, 0, &k, &err), IXJ_ERR_UNAVAILABLE);
  assert_null(k);
  assert_non_null(strstr(err.message, "CUDA unavailable"));
  assert_int_equal(ixj_cuda_prepare_fill(ctx, 1, d, 4, 0, &k, &err), IXJ_ERR_UNAVAILABLE);
  assert_int_equal(ixj_cuda_prepare_cat(ctx, 0, d, 0, 1, parts, 4, 0, &k, &err), IXJ_ERR_UNAVAILABLE);
  assert_null(k);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cpu_ignores_stream),
      cmocka_unit_test(test_cuda_device_and_stream),
      cmocka_unit_test(test_prepared_unavailable),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

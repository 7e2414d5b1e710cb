/* The CUDA path's device plumbing, without a GPU: a fake Driver API table
 * (runtime/cuda_driver.h's test hook) with two devices of different
 * architectures (sm_90 and sm_80) whose "device memory" is host memory. It
 * checks that each call works in the named device's primary context (and
 * only while it runs: the caller's current context is back afterwards), that
 * primary contexts are retained once, lazily, that the caller's stream
 * reaches every launch and copy, that kernels are loaded per architecture,
 * that DLPack's device_id picks the device, and that prepared CUDA kernels
 * (cuda.h) launch exactly what the per-call path launches (the same argument
 * block, grid and chunks: the per-call path's packing is the one
 * cuda_emu_corpus runs against the reference interpreter). Kernel cases need
 * NVRTC (the kernels are compiled for real) and are skipped without it; the
 * memcpy cases need nothing. */
#include <dlpack/dlpack.h>
#include <pthread.h>

#include "cuda_driver.h"
#include "emit_cuda.h"
#include "ixjit/dlpack.h"
#include "test_util.h"

/* ---- the fake driver ------------------------------------------------------ */

enum { FAKE_DEVICES = 2, MAX_LAUNCHES = 64 };

static int fake_ctx[FAKE_DEVICES]; /* their addresses are the contexts */
static int caller_ctx;             /* what the test thread has current */
static _Thread_local void *ctx_stack[8];
static _Thread_local int ctx_depth;

typedef struct launch_record {
  void *ctx, *kernel, *stream;
  unsigned grid, bx, by;
  long long begin, end;
  unsigned char args[CUDA_ARGS_MAX_BYTES];
} launch_record;

static struct {
  pthread_mutex_t lock;
  int retains[FAKE_DEVICES];
  int loads;
  int launches;
  launch_record launch[MAX_LAUNCHES];
  int copies;
  void *copy_ctx, *copy_stream;
} fake = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void *current(void) { return ctx_depth ? ctx_stack[ctx_depth - 1] : NULL; }

static int f_init(unsigned flags) { return flags ? 1 : 0; }
static int f_version(int *v) { return *v = 13000, 0; }
static int f_error_string(int r, const char **s) { return *s = r ? "fake failure" : "no error", 0; }
static int f_count(int *n) { return *n = FAKE_DEVICES, 0; }
static int f_get(int *d, int ordinal) { return ordinal < 0 || ordinal >= FAKE_DEVICES ? 101 : (*d = ordinal, 0); }
static int f_attribute(int *v, int attribute, int device) {
  if (attribute == 75) *v = device == 0 ? 9 : 8; /* compute capability major */
  else if (attribute == 76) *v = 0;              /* minor */
  else return 1;
  return 0;
}
static int f_retain(void **ctx, int device) {
  pthread_mutex_lock(&fake.lock);
  fake.retains[device]++;
  pthread_mutex_unlock(&fake.lock);
  *ctx = &fake_ctx[device];
  return 0;
}
static int f_push(void *ctx) {
  if (ctx_depth == 8) return 1;
  ctx_stack[ctx_depth++] = ctx;
  return 0;
}
static int f_pop(void **ctx) {
  if (!ctx_depth) return 1;
  *ctx = ctx_stack[--ctx_depth];
  return 0;
}
static int f_load(void **lib, const void *image, void *a, void *b, unsigned c, void *d, void *e, unsigned f) {
  (void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
  if (!image) return 1;
  pthread_mutex_lock(&fake.lock);
  fake.loads++;
  pthread_mutex_unlock(&fake.lock);
  *lib = (void *)(uintptr_t)0x1000;
  return 0;
}
static char kernel_names[64][48];
static int num_kernel_names;
static int f_get_kernel(void **kernel, void *lib, const char *name) {
  (void)lib;
  pthread_mutex_lock(&fake.lock);
  int k = num_kernel_names < 64 ? num_kernel_names++ : 63;
  snprintf(kernel_names[k], sizeof kernel_names[k], "%s", name);
  pthread_mutex_unlock(&fake.lock);
  *kernel = kernel_names[k];
  return 0;
}
static int f_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shm,
                    void *stream, void **params, void **extra) {
  if (gy != 1 || gz != 1 || bz != 1 || shm || extra || !current()) return 1;
  pthread_mutex_lock(&fake.lock);
  if (fake.launches < MAX_LAUNCHES) {
    launch_record *l = &fake.launch[fake.launches];
    *l = (launch_record){current(), f, stream, gx, bx, by, *(long long *)params[1], *(long long *)params[2], {0}};
    memcpy(l->args, params[0], sizeof l->args);
  }
  fake.launches++;
  pthread_mutex_unlock(&fake.lock);
  return 0;
}
/* 256-byte aligned, as cuMemAlloc's */
static int f_alloc(uint64_t *p, size_t bytes) {
  size_t n = (bytes + 255) / 256 * 256;
  void *m = aligned_alloc(256, n);
  if (m) memset(m, 0, n);
  *p = (uint64_t)(uintptr_t)m;
  return m ? 0 : 2;
}
static int f_free(uint64_t p) { return free((void *)(uintptr_t)p), 0; }
static int f_htod(uint64_t dst, const void *src, size_t n) { return memcpy((void *)(uintptr_t)dst, src, n), 0; }
static int f_dtoh(void *dst, uint64_t src, size_t n) { return memcpy(dst, (const void *)(uintptr_t)src, n), 0; }
static int f_dtod(uint64_t dst, uint64_t src, size_t n, void *stream) {
  fake.copies++;
  fake.copy_ctx = current();
  fake.copy_stream = stream;
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return current() ? 0 : 1;
}
static int f_sync(void *stream) { return (void)stream, current() ? 0 : 1; }
/* Every fake allocation is on device 1 except the memory of the `host0` arrays. */
static unsigned char host0[4096];
static int f_pointer(void *data, int attribute, uint64_t ptr) {
  if (attribute != 9) return 1;
  uintptr_t p = (uintptr_t)ptr;
  *(int *)data = p >= (uintptr_t)host0 && p < (uintptr_t)host0 + sizeof host0 ? 0 : 1;
  return 0;
}

static const ixj__cuda_table table = {
    f_init, f_version, f_error_string, f_count, f_get, f_attribute, f_retain, f_push, f_pop, f_load, f_get_kernel,
    f_launch, f_alloc, f_free, f_htod, f_dtoh, f_dtod, f_sync, f_pointer,
};

/* ---- fixtures --------------------------------------------------------------- */

static ixj_context *ctx;
static bool nvrtc; /* NVRTC can compile here: kernel cases run */
static void *const stream_a = (void *)(uintptr_t)0xA11, *const stream_b = (void *)(uintptr_t)0xB22;

static int setup(void **state) {
  (void)state;
  ixj_error err;
  if (ixj__cuda_use_table(&table, &err) != IXJ_OK) return -1;
  if (f_push(&caller_ctx)) return -1; /* the caller's own current context, which must survive every call */
  void *bin = NULL;
  size_t size;
  nvrtc = ixj_compile_cuda("extern \"C\" __global__ void k() {}", "sm_80", &bin, &size, &err) == IXJ_OK;
  free(bin);
  if (!nvrtc) fprintf(stderr, "unit_cuda_device: kernel cases skipped: %s\n", err.message);
  return ixj_context_create(&(ixj_context_options){.num_threads = 1, .disk_cache = -1}, &ctx, NULL) == IXJ_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  ixj_context_destroy(ctx);
  return 0;
}

static void assert_caller_context(void) {
  assert_int_equal(ctx_depth, 1);
  assert_ptr_equal(current(), &caller_ctx);
}

/* ---- the tests ---------------------------------------------------------------- */

static void test_devices(void **state) {
  (void)state;
  ixj_error err;
  int n = 0, cc = 0;
  assert_int_equal(ixj_cuda_device_count(&n, &err), IXJ_OK);
  assert_int_equal(n, 2);
  assert_int_equal(ixj_cuda_device_available(1, &cc, &err), IXJ_OK);
  assert_int_equal(cc, 80);
  assert_int_equal(ixj_cuda_available(&cc, &err), IXJ_OK);
  assert_int_equal(cc, 90);
  assert_int_equal(ixj_cuda_device_available(2, &cc, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "no CUDA device 2 (this process sees 2)"));
  assert_int_equal(cc, 0);
  assert_int_equal(ixj_cuda_device_available(-1, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(fake.retains[0], 1);
  assert_int_equal(fake.retains[1], 1);
  assert_int_equal(ixj_cuda_device_available(1, &cc, &err), IXJ_OK);
  assert_int_equal(fake.retains[1], 1); /* once per device */
  assert_caller_context();
}

/* A contiguous copy is a cuMemcpyDtoDAsync in device 1's context on the caller's stream. */
static void test_memcpy_on_device(void **state) {
  (void)state;
  ixj_error err;
  int64_t shape[1] = {256};
  ixj_ixfun *f = NULL;
  assert_int_equal(ixj_ixfun_iota(1, shape, 0, &f, &err), IXJ_OK);
  void *src, *dst;
  assert_int_equal(ixj_cuda_alloc_device(1, &src, 1024, &err), IXJ_OK);
  assert_int_equal(ixj_cuda_alloc_device(1, &dst, 1024, &err), IXJ_OK);
  unsigned char bytes[1024];
  for (int k = 0; k < 1024; k++) bytes[k] = (unsigned char)(k * 7);
  assert_int_equal(ixj_cuda_upload(src, bytes, sizeof bytes, &err), IXJ_OK);
  ixj_operand d = {dst, 1024, f}, s = {src, 1024, f};
  int copies = fake.copies;
  ixj_call_info info;
  assert_int_equal(ixj_copy_cuda_device(ctx, 1, &d, &s, 4, stream_a, &info, &err), IXJ_OK);
  assert_string_equal(info.strategy, "memcpy");
  assert_int_equal(fake.copies, copies + 1);
  assert_ptr_equal(fake.copy_ctx, &fake_ctx[1]);
  assert_ptr_equal(fake.copy_stream, stream_a);
  assert_caller_context();
  unsigned char back[1024];
  assert_int_equal(ixj_cuda_download(back, dst, sizeof back, &err), IXJ_OK);
  assert_memory_equal(back, bytes, sizeof back);
  assert_int_equal(ixj_cuda_synchronize_device(1, stream_a, &err), IXJ_OK);
  /* the same on device 0 (memory the fake says is device 0's) */
  ixj_operand d0 = {host0, 1024, f}, s0 = {host0 + 2048, 1024, f};
  assert_int_equal(ixj_copy_cuda(ctx, &d0, &s0, 4, stream_b, NULL, &err), IXJ_OK);
  assert_ptr_equal(fake.copy_ctx, &fake_ctx[0]);
  assert_ptr_equal(fake.copy_stream, stream_b);
  /* a device the process lacks: refused before anything runs */
  copies = fake.copies;
  assert_int_equal(ixj_copy_cuda_device(ctx, 5, &d, &s, 4, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "no CUDA device 5"));
  assert_int_equal(fake.copies, copies);
  assert_caller_context();
  ixj_cuda_free(src);
  ixj_cuda_free(dst);
  ixj_ixfun_free(f);
}

/* DLPack's device_id is the device; tensors on two devices never mix. */
static void test_dlpack_device(void **state) {
  (void)state;
  ixj_error err;
  void *a, *b;
  assert_int_equal(ixj_cuda_alloc_device(1, &a, 256, &err), IXJ_OK);
  assert_int_equal(ixj_cuda_alloc_device(1, &b, 256, &err), IXJ_OK);
  int64_t shape[1] = {64};
  DLTensor d = {a, {kDLCUDA, 1}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor s = {b, {kDLCUDA, 1}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  assert_int_equal(ixj_copy_dlpack_stream(ctx, &d, &s, stream_b, NULL, &err), IXJ_OK);
  assert_ptr_equal(fake.copy_ctx, &fake_ctx[1]);
  assert_ptr_equal(fake.copy_stream, stream_b);
  s.device.device_id = 0;
  assert_int_equal(ixj_copy_dlpack_stream(ctx, &d, &s, stream_b, NULL, &err), IXJ_ERR_MISMATCH);
  assert_non_null(strstr(err.message, "different CUDA devices (1 and 0)"));
  assert_caller_context();
  ixj_cuda_free(a);
  ixj_cuda_free(b);
}

/* A kernel copy (a transpose): launched in the device's context on the
 * caller's stream; one load per architecture, shared by later calls. */
static void test_kernel_on_device(void **state) {
  (void)state;
  if (!nvrtc) skip();
  ixj_error err;
  ixj_ixfun *src = parse_ok("iota 32 48 | permute 1 0"), *dst = parse_ok("iota 48 32");
  void *a, *b;
  assert_int_equal(ixj_cuda_alloc_device(1, &a, 48 * 32 * 4, &err), IXJ_OK);
  assert_int_equal(ixj_cuda_alloc_device(1, &b, 48 * 32 * 4, &err), IXJ_OK);
  ixj_operand d = {a, 48 * 32 * 4, dst}, s = {b, 48 * 32 * 4, src};
  int loads = fake.loads, launches = fake.launches;
  ixj_call_info info;
  assert_int_equal(ixj_copy_cuda_device(ctx, 1, &d, &s, 4, stream_a, &info, &err), IXJ_OK);
  assert_false(info.cache_hit);
  assert_int_equal(fake.loads, loads + 1);
  assert_true(fake.launches > launches);
  for (int k = launches; k < fake.launches; k++) {
    assert_ptr_equal(fake.launch[k].ctx, &fake_ctx[1]);
    assert_ptr_equal(fake.launch[k].stream, stream_a);
  }
  /* again: a memory hit, no load */
  assert_int_equal(ixj_copy_cuda_device(ctx, 1, &d, &s, 4, stream_b, &info, &err), IXJ_OK);
  assert_true(info.cache_hit);
  assert_int_equal(fake.loads, loads + 1);
  assert_ptr_equal(fake.launch[fake.launches - 1].stream, stream_b);
  /* device 0 is sm_90: a kernel of its own, run in its own context */
  ixj_operand d0 = {host0, sizeof host0, parse_ok("iota 16 16")}, s0 = {host0 + 0, 0, NULL};
  ixj_ixfun *t0 = parse_ok("iota 16 16 | permute 1 0");
  static unsigned char src0[1024];
  s0 = (ixj_operand){src0, sizeof src0, t0};
  d0.size_bytes = 1024;
  /* src0 is not device 0's memory to the fake, but the kernel path never asks */
  assert_int_equal(ixj_copy_cuda_device(ctx, 0, &d0, &s0, 4, NULL, &info, &err), IXJ_OK);
  assert_int_equal(fake.loads, loads + 2);
  assert_ptr_equal(fake.launch[fake.launches - 1].ctx, &fake_ctx[0]);
  assert_caller_context();
  ixj_ixfun_free((ixj_ixfun *)d0.ixfun);
  ixj_ixfun_free(t0);
  ixj_cuda_free(a);
  ixj_cuda_free(b);
  ixj_ixfun_free(src);
  ixj_ixfun_free(dst);
}

/* The launches of the last `n` records equal those starting at `first`. */
static void assert_same_launches(int first, int second, int n) {
  for (int k = 0; k < n; k++) {
    const launch_record *x = &fake.launch[first + k], *y = &fake.launch[second + k];
    assert_ptr_equal(x->kernel, y->kernel);
    assert_ptr_equal(x->ctx, y->ctx);
    assert_int_equal(x->grid, y->grid);
    assert_int_equal(x->bx, y->bx);
    assert_int_equal(x->by, y->by);
    assert_int_equal(x->begin, y->begin);
    assert_int_equal(x->end, y->end);
    assert_memory_equal(x->args, y->args, sizeof x->args);
  }
}

/* Prepared CUDA kernels launch what the per-call path launches: copy, fill
 * (the value in the argument block) and cat, on device 1, on the run's stream. */
static void test_prepared(void **state) {
  (void)state;
  if (!nvrtc) skip();
  ixj_error err;
  ixj_ixfun *src = parse_ok("iota 24 40 | permute 1 0 | slice ::-1"), *dst = parse_ok("iota 40 24");
  ixj_ixfun *fdst = parse_ok("iota 40 24 | slice 1:39:2"), *c0 = parse_ok("iota 10 24"), *c1 = parse_ok("iota 24 30 | permute 1 0");
  size_t bytes = 40 * 24 * 8;
  void *a, *b, *c;
  assert_int_equal(ixj_cuda_alloc_device(1, &a, bytes + 64, &err), IXJ_OK);
  assert_int_equal(ixj_cuda_alloc_device(1, &b, bytes, &err), IXJ_OK);
  assert_int_equal(ixj_cuda_alloc_device(1, &c, bytes, &err), IXJ_OK);
  ixj_cuda_kernel *k;
  /* copy */
  assert_int_equal(ixj_cuda_prepare_copy(ctx, 1, dst, src, 8, 0, &k, &err), IXJ_OK);
  int first = fake.launches;
  assert_int_equal(ixj_cuda_kernel_run(k, (ixj_buffer){a, bytes}, 1, &(ixj_buffer){b, bytes}, NULL, stream_a, &err), IXJ_OK);
  int n = fake.launches - first;
  assert_true(n >= 1);
  assert_ptr_equal(fake.launch[first].ctx, &fake_ctx[1]);
  assert_ptr_equal(fake.launch[first].stream, stream_a);
  ixj_operand od = {a, bytes, dst}, os = {b, bytes, src};
  assert_int_equal(ixj_copy_cuda_device(ctx, 1, &od, &os, 8, stream_a, NULL, &err), IXJ_OK);
  assert_int_equal(fake.launches - first, 2 * n);
  assert_same_launches(first, first + n, n);
  /* errors: a small buffer, the wrong number of sources */
  assert_int_equal(ixj_cuda_kernel_run(k, (ixj_buffer){a, bytes - 1}, 1, &(ixj_buffer){b, bytes}, NULL, NULL, &err),
                   IXJ_ERR_OUT_OF_RANGE);
  assert_int_equal(ixj_cuda_kernel_run(k, (ixj_buffer){a, bytes}, 0, NULL, NULL, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  /* buffers not aligned as prepared: the per-call path, still device 1 */
  first = fake.launches;
  assert_int_equal(ixj_cuda_kernel_run(k, (ixj_buffer){(char *)a + 8, bytes}, 1, &(ixj_buffer){b, bytes}, NULL,
                                       stream_b, &err),
                   IXJ_OK);
  assert_true(fake.launches > first);
  assert_ptr_equal(fake.launch[first].ctx, &fake_ctx[1]);
  assert_ptr_equal(fake.launch[first].stream, stream_b);
  ixj_cuda_kernel_release(k);
  /* fill */
  double value = 2.5;
  assert_int_equal(ixj_cuda_prepare_fill(ctx, 1, fdst, 8, 0, &k, &err), IXJ_OK);
  first = fake.launches;
  assert_int_equal(ixj_cuda_kernel_run(k, (ixj_buffer){a, bytes}, 0, NULL, &value, stream_b, &err), IXJ_OK);
  n = fake.launches - first;
  ixj_operand fd = {a, bytes, fdst};
  assert_int_equal(ixj_fill_cuda_device(ctx, 1, &fd, &value, 8, stream_b, NULL, &err), IXJ_OK);
  assert_same_launches(first, first + n, n);
  assert_ptr_equal(fake.launch[first].stream, stream_b);
  ixj_cuda_kernel_release(k);
  /* cat along 0 */
  const ixj_ixfun *parts[2] = {c0, c1};
  assert_int_equal(ixj_cuda_prepare_cat(ctx, 1, dst, 0, 2, parts, 8, 0, &k, &err), IXJ_OK);
  first = fake.launches;
  ixj_buffer in[2] = {{b, bytes}, {c, bytes}};
  assert_int_equal(ixj_cuda_kernel_run(k, (ixj_buffer){a, bytes}, 2, in, NULL, stream_a, &err), IXJ_OK);
  n = fake.launches - first;
  ixj_operand cs[2] = {{b, bytes, c0}, {c, bytes, c1}};
  assert_int_equal(ixj_cat_cuda_device(ctx, 1, &od, 0, 2, cs, 8, stream_a, NULL, &err), IXJ_OK);
  assert_same_launches(first, first + n, n);
  ixj_cuda_kernel_release(k);
  /* a memcpy plan: the bytes move, on the run's stream */
  ixj_ixfun *flat = parse_ok("iota 960");
  assert_int_equal(ixj_cuda_prepare_copy(ctx, 1, flat, flat, 8, 0, &k, &err), IXJ_OK);
  unsigned char pattern[40 * 24 * 8];
  for (size_t i = 0; i < sizeof pattern; i++) pattern[i] = (unsigned char)(i * 13 + 1);
  assert_int_equal(ixj_cuda_upload(b, pattern, sizeof pattern, &err), IXJ_OK);
  assert_int_equal(ixj_cuda_kernel_run(k, (ixj_buffer){a, bytes}, 1, &(ixj_buffer){b, bytes}, NULL, stream_b, &err), IXJ_OK);
  assert_ptr_equal(fake.copy_ctx, &fake_ctx[1]);
  assert_ptr_equal(fake.copy_stream, stream_b);
  assert_memory_equal(a, pattern, sizeof pattern);
  ixj_cuda_kernel_release(k);
  /* prepare's own errors */
  assert_int_equal(ixj_cuda_prepare_copy(ctx, 7, dst, src, 8, 0, &k, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_null(k);
  assert_int_equal(ixj_cuda_prepare_copy(ctx, 1, dst, c0, 8, 0, &k, &err), IXJ_ERR_MISMATCH);
  assert_int_equal(ixj_cuda_prepare_copy(ctx, 1, dst, src, 8, 3, &k, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_caller_context();
  ixj_ixfun_free(flat);
  ixj_cuda_free(a);
  ixj_cuda_free(b);
  ixj_cuda_free(c);
  ixj_ixfun_free(src);
  ixj_ixfun_free(dst);
  ixj_ixfun_free(fdst);
  ixj_ixfun_free(c0);
  ixj_ixfun_free(c1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_devices),        cmocka_unit_test(test_memcpy_on_device),
      cmocka_unit_test(test_dlpack_device),  cmocka_unit_test(test_kernel_on_device),
      cmocka_unit_test(test_prepared),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

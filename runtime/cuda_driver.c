/* The CUDA Driver API by dlopen + cuGetProcAddress (see cuda_driver.h). The
 * table is filled once per process (or given by a test); each device's
 * primary context is retained on first use, published with a release store
 * and read with an acquire load, so only the first call per device locks. */
#include "cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
  CUDA_ERROR_NO_DEVICE = 100,
  ATTR_CC_MAJOR = 75,
  ATTR_CC_MINOR = 76,
  POINTER_DEVICE_ORDINAL = 9,
  NEEDED_DRIVER = 12000 /* the library API */
};

typedef struct device_state {
  _Atomic(void *) ctx; /* the retained primary context; NULL until then */
  int cc;              /* written before ctx is published */
} device_state;

static struct {
  char problem[200]; /* non-empty: the driver cannot be used, and why */
  ixj__cuda_table t;
  bool fake;         /* t came from ixj__cuda_use_table */
  int count;
  device_state *dev; /* count entries */
  pthread_mutex_t retain_lock;
} cu = {.retain_lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static atomic_bool loaded; /* set by load(): the hook comes too late after it */

#define UNAVAILABLE(...) snprintf(cu.problem, sizeof cu.problem, "CUDA unavailable: " __VA_ARGS__)

/* The entry points from libcuda.so.1; false (with cu.problem) when it is
 * missing or lacks one. */
static bool load_library(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL); /* never libcuda.so: it may be the toolkit's stub */
  if (!h) {
    UNAVAILABLE("cannot load libcuda.so.1 (no NVIDIA driver)");
    return false;
  }
  int (*get)(const char *, void **, int, uint64_t, int *) = NULL;
  *(void **)&get = dlsym(h, "cuGetProcAddress_v2");
  if (!get) {
    UNAVAILABLE("the driver has no cuGetProcAddress_v2 (older than CUDA 12)");
    return false;
  }
  /* cuGetProcAddress first (it picks the _v2 entry points by version); plain
   * dlsym where it fails (the toolkit's stub answers only to the latter, and
   * its cuInit then says what it is) */
#define ENTRY(field, name)                                                          \
  do {                                                                              \
    int status = 0;                                                                 \
    if (get(name, (void **)&cu.t.field, NEEDED_DRIVER, 0, &status) != 0 || !cu.t.field) \
      *(void **)&cu.t.field = dlsym(h, name);                                       \
    if (!cu.t.field) {                                                              \
      UNAVAILABLE("the driver lacks %s", name);                                     \
      return false;                                                                 \
    }                                                                               \
  } while (0)
  ENTRY(Init, "cuInit");
  ENTRY(DriverGetVersion, "cuDriverGetVersion");
  ENTRY(GetErrorString, "cuGetErrorString");
  ENTRY(DeviceGetCount, "cuDeviceGetCount");
  ENTRY(DeviceGet, "cuDeviceGet");
  ENTRY(DeviceGetAttribute, "cuDeviceGetAttribute");
  ENTRY(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  ENTRY(CtxPushCurrent, "cuCtxPushCurrent");
  ENTRY(CtxPopCurrent, "cuCtxPopCurrent");
  ENTRY(LibraryLoadData, "cuLibraryLoadData");
  ENTRY(LibraryGetKernel, "cuLibraryGetKernel");
  ENTRY(LaunchKernel, "cuLaunchKernel");
  ENTRY(MemAlloc, "cuMemAlloc");
  ENTRY(MemFree, "cuMemFree");
  ENTRY(MemcpyHtoD, "cuMemcpyHtoD");
  ENTRY(MemcpyDtoH, "cuMemcpyDtoH");
  ENTRY(MemcpyDtoDAsync, "cuMemcpyDtoDAsync");
  ENTRY(StreamSynchronize, "cuStreamSynchronize");
  ENTRY(PointerGetAttribute, "cuPointerGetAttribute");
#undef ENTRY
  return true;
}

static void load(void) {
  atomic_store(&loaded, true);
  if (!cu.fake && !load_library()) return;
  int r = cu.t.Init(0);
  if (r == CUDA_ERROR_STUB_LIBRARY) {
    UNAVAILABLE("libcuda.so.1 is the toolkit's stub, not a driver");
    return;
  }
  if (r == CUDA_ERROR_NO_DEVICE) {
    UNAVAILABLE("no CUDA device");
    return;
  }
  int version = 0;
  if (r == CUDA_ERROR_INSUFFICIENT_DRIVER || cu.t.DriverGetVersion(&version) != 0 || version < NEEDED_DRIVER) {
    UNAVAILABLE("the driver is too old (CUDA %d.%d; 12.0 or newer is needed)", version / 1000, version % 1000 / 10);
    return;
  }
  if (r != CUDA_SUCCESS) {
    const char *s = NULL;
    cu.t.GetErrorString(r, &s);
    UNAVAILABLE("cuInit failed: %s", s ? s : "unknown error");
    return;
  }
  int count = 0;
  if (cu.t.DeviceGetCount(&count) != 0 || count < 1) {
    UNAVAILABLE("no CUDA device");
    return;
  }
  if (!(cu.dev = calloc((size_t)count, sizeof *cu.dev))) {
    UNAVAILABLE("out of memory");
    return;
  }
  cu.count = count;
}

ixj_status ixj__cuda_use_table(const ixj__cuda_table *t, ixj_error *err) {
  if (!t || atomic_load(&loaded))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "a CUDA driver table must be installed before any CUDA call");
  cu.t = *t;
  cu.fake = true;
  pthread_once(&load_once, load);
  return IXJ_OK;
}

static ixj_status fail_cu(ixj_error *err, int r, const char *what) {
  const char *s = NULL;
  if (cu.t.GetErrorString) cu.t.GetErrorString(r, &s);
  return ixj__fail(err, IXJ_ERR_BACKEND, "CUDA: %s failed: %s (%d)", what, s ? s : "unknown error", r);
}

static ixj_status driver(ixj_error *err) {
  pthread_once(&load_once, load);
  return cu.problem[0] ? ixj__fail(err, IXJ_ERR_UNAVAILABLE, "%s", cu.problem) : IXJ_OK;
}

/* The device's retained primary context (retained now on first use). */
static ixj_status device_ctx(int device, void **ctx, int *cc, ixj_error *err) {
  ixj_status st = driver(err);
  if (st != IXJ_OK) return st;
  if (device < 0 || device >= cu.count)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "there is no CUDA device %d (this process sees %d)", device,
                     cu.count);
  device_state *d = &cu.dev[device];
  void *c = atomic_load_explicit(&d->ctx, memory_order_acquire);
  if (!c) {
    pthread_mutex_lock(&cu.retain_lock);
    c = atomic_load_explicit(&d->ctx, memory_order_relaxed);
    int handle = 0, major = 0, minor = 0, r = 0;
    if (!c && !(r = cu.t.DeviceGet(&handle, device))) {
      cu.t.DeviceGetAttribute(&major, ATTR_CC_MAJOR, handle);
      cu.t.DeviceGetAttribute(&minor, ATTR_CC_MINOR, handle);
      d->cc = 10 * major + minor;
      if (!(r = cu.t.DevicePrimaryCtxRetain(&c, handle)) && c)
        atomic_store_explicit(&d->ctx, c, memory_order_release);
    }
    pthread_mutex_unlock(&cu.retain_lock);
    if (r) return fail_cu(err, r, "retaining the device's primary context");
    if (!c) return ixj__fail(err, IXJ_ERR_BACKEND, "CUDA: device %d has no primary context", device);
  }
  *ctx = c;
  if (cc) *cc = d->cc;
  return IXJ_OK;
}

/* Pushes the device's context onto the calling thread's stack. */
static ixj_status enter(int device, ixj_error *err) {
  void *ctx;
  ixj_status st = device_ctx(device, &ctx, NULL, err);
  if (st != IXJ_OK) return st;
  int r = cu.t.CtxPushCurrent(ctx);
  return r ? fail_cu(err, r, "cuCtxPushCurrent") : IXJ_OK;
}

/* Pops it again: the caller's own current context is back. */
static ixj_status leave(int r, const char *what, ixj_error *err) {
  void *popped;
  cu.t.CtxPopCurrent(&popped);
  return r ? fail_cu(err, r, what) : IXJ_OK;
}

/* The device a pointer was allocated on. */
static ixj_status pointer_device(const void *ptr, int *device, ixj_error *err) {
  ixj_status st = driver(err);
  if (st != IXJ_OK) return st;
  int r = cu.t.PointerGetAttribute(device, POINTER_DEVICE_ORDINAL, (uint64_t)(uintptr_t)ptr);
  return r ? fail_cu(err, r, "cuPointerGetAttribute") : IXJ_OK;
}

ixj_status ixj__cuda_device_count(int *count, ixj_error *err) {
  ixj_status st = driver(err);
  *count = st == IXJ_OK ? cu.count : 0;
  return st;
}

ixj_status ixj__cuda_device(int device, int *cc, ixj_error *err) {
  void *ctx;
  return device_ctx(device, &ctx, cc, err);
}

ixj_status ixj__cuda_load_kernel(const void *image, const char *name, void **kernel, ixj_error *err) {
  ixj_status st = driver(err);
  if (st != IXJ_OK) return st;
  void *lib;
  int r = cu.t.LibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);
  if (r) return fail_cu(err, r, "cuLibraryLoadData");
  r = cu.t.LibraryGetKernel(kernel, lib, name); /* resolved now, never at launch */
  return r ? fail_cu(err, r, "cuLibraryGetKernel") : IXJ_OK;
}

ixj_status ixj__cuda_launch(int device, void *kernel, unsigned blocks, unsigned block_x, unsigned block_y, void *args,
                            long long begin, long long end, void *stream, ixj_error *err) {
  ixj_status st = enter(device, err);
  if (st != IXJ_OK) return st;
  void *params[3] = {args, &begin, &end};
  return leave(cu.t.LaunchKernel(kernel, blocks, 1, 1, block_x, block_y, 1, 0, stream, params, NULL), "cuLaunchKernel",
               err);
}

ixj_status ixj__cuda_memcpy_dtod(int device, void *dst, const void *src, size_t bytes, void *stream, ixj_error *err) {
  ixj_status st = enter(device, err);
  if (st != IXJ_OK) return st;
  return leave(cu.t.MemcpyDtoDAsync((uint64_t)(uintptr_t)dst, (uint64_t)(uintptr_t)src, bytes, stream),
               "cuMemcpyDtoDAsync", err);
}

ixj_status ixj__cuda_alloc(int device, void **ptr, size_t bytes, ixj_error *err) {
  *ptr = NULL;
  ixj_status st = enter(device, err);
  if (st != IXJ_OK) return st;
  uint64_t p = 0;
  int r = cu.t.MemAlloc(&p, bytes ? bytes : 1);
  if (!r) *ptr = (void *)(uintptr_t)p;
  return leave(r, "cuMemAlloc", err);
}

void ixj__cuda_free(void *ptr) {
  int device;
  if (ptr && pointer_device(ptr, &device, NULL) == IXJ_OK && enter(device, NULL) == IXJ_OK)
    leave(cu.t.MemFree((uint64_t)(uintptr_t)ptr), "cuMemFree", NULL);
}

ixj_status ixj__cuda_copy_to_device(void *dst, const void *src, size_t bytes, ixj_error *err) {
  int device;
  ixj_status st = driver(err);
  if (st != IXJ_OK || !bytes) return st;
  if ((st = pointer_device(dst, &device, err)) != IXJ_OK || (st = enter(device, err)) != IXJ_OK) return st;
  return leave(cu.t.MemcpyHtoD((uint64_t)(uintptr_t)dst, src, bytes), "cuMemcpyHtoD", err);
}

ixj_status ixj__cuda_copy_to_host(void *dst, const void *src, size_t bytes, ixj_error *err) {
  int device;
  ixj_status st = driver(err);
  if (st != IXJ_OK || !bytes) return st;
  if ((st = pointer_device(src, &device, err)) != IXJ_OK || (st = enter(device, err)) != IXJ_OK) return st;
  return leave(cu.t.MemcpyDtoH(dst, (uint64_t)(uintptr_t)src, bytes), "cuMemcpyDtoH", err);
}

ixj_status ixj__cuda_synchronize(int device, void *stream, ixj_error *err) {
  ixj_status st = enter(device, err);
  if (st != IXJ_OK) return st;
  return leave(cu.t.StreamSynchronize(stream), "cuStreamSynchronize", err);
}

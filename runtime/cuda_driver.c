/* The CUDA Driver API by dlopen + cuGetProcAddress. Declarations are our own
 * (no cuda.h needed at build time): handles are pointers, CUresult an int. */
#include "cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;
typedef void *CUcontext, *CUlibrary, *CUkernel, *CUstream;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
  CUDA_ERROR_NO_DEVICE = 100,
  ATTR_CC_MAJOR = 75,
  ATTR_CC_MINOR = 76,
  NEEDED_DRIVER = 12000 /* the library API */
};

static struct {
  char problem[200];
  int cc;
  CUcontext ctx;
  CUresult (*Init)(unsigned);
  CUresult (*DriverGetVersion)(int *);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*GetErrorString)(CUresult, const char **);
  CUresult (*LibraryLoadData)(CUlibrary *, const void *, void *, void *, unsigned, void *, void *, unsigned);
  CUresult (*LibraryGetKernel)(CUkernel *, CUlibrary, const char *);
  CUresult (*LaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                           void **, void **);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*StreamSynchronize)(CUstream);
} cu;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

#define UNAVAILABLE(...) snprintf(cu.problem, sizeof cu.problem, "CUDA unavailable: " __VA_ARGS__)

static void load(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL); /* never libcuda.so: it may be the toolkit's stub */
  if (!h) {
    UNAVAILABLE("cannot load libcuda.so.1 (no NVIDIA driver)");
    return;
  }
  CUresult (*get)(const char *, void **, int, uint64_t, int *) = NULL;
  *(void **)&get = dlsym(h, "cuGetProcAddress_v2");
  if (!get) {
    UNAVAILABLE("the driver has no cuGetProcAddress_v2 (older than CUDA 12)");
    return;
  }
  /* cuGetProcAddress first; plain dlsym where it fails (the toolkit's stub
   * answers only to the latter, and its cuInit then says what it is) */
#define ENTRY(field, name)                                                                 \
  do {                                                                                     \
    int status = 0;                                                                        \
    if (get(name, (void **)&cu.field, NEEDED_DRIVER, 0, &status) != 0 || !cu.field)        \
      *(void **)&cu.field = dlsym(h, name);                                                \
    if (!cu.field) {                                                                       \
      UNAVAILABLE("the driver lacks %s", name);                                            \
      return;                                                                              \
    }                                                                                      \
  } while (0)
  ENTRY(Init, "cuInit");
  ENTRY(DriverGetVersion, "cuDriverGetVersion");
  ENTRY(GetErrorString, "cuGetErrorString");
  CUresult r = cu.Init(0);
  if (r == CUDA_ERROR_STUB_LIBRARY) {
    UNAVAILABLE("libcuda.so.1 is the toolkit's stub, not a driver");
    return;
  }
  if (r == CUDA_ERROR_NO_DEVICE) {
    UNAVAILABLE("no CUDA device");
    return;
  }
  int version = 0;
  if (r == CUDA_ERROR_INSUFFICIENT_DRIVER || cu.DriverGetVersion(&version) != 0 || version < NEEDED_DRIVER) {
    UNAVAILABLE("the driver is too old (CUDA %d.%d; 12.0 or newer is needed)", version / 1000, version % 1000 / 10);
    return;
  }
  if (r != CUDA_SUCCESS) {
    const char *s = NULL;
    cu.GetErrorString(r, &s);
    UNAVAILABLE("cuInit failed: %s", s ? s : "unknown error");
    return;
  }
  ENTRY(DeviceGetCount, "cuDeviceGetCount");
  ENTRY(DeviceGet, "cuDeviceGet");
  ENTRY(DeviceGetAttribute, "cuDeviceGetAttribute");
  ENTRY(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  ENTRY(CtxSetCurrent, "cuCtxSetCurrent");
  ENTRY(LibraryLoadData, "cuLibraryLoadData");
  ENTRY(LibraryGetKernel, "cuLibraryGetKernel");
  ENTRY(LaunchKernel, "cuLaunchKernel");
  ENTRY(MemAlloc, "cuMemAlloc");
  ENTRY(MemFree, "cuMemFree");
  ENTRY(MemcpyHtoD, "cuMemcpyHtoD");
  ENTRY(MemcpyDtoH, "cuMemcpyDtoH");
  ENTRY(MemcpyDtoDAsync, "cuMemcpyDtoDAsync");
  ENTRY(StreamSynchronize, "cuStreamSynchronize");
  int count = 0, major = 0, minor = 0;
  CUdevice dev;
  if (cu.DeviceGetCount(&count) != 0 || count < 1 || cu.DeviceGet(&dev, 0) != 0) {
    UNAVAILABLE("no CUDA device");
    return;
  }
  cu.DeviceGetAttribute(&major, ATTR_CC_MAJOR, dev);
  cu.DeviceGetAttribute(&minor, ATTR_CC_MINOR, dev);
  cu.cc = 10 * major + minor;
  if (cu.DevicePrimaryCtxRetain(&cu.ctx, dev) != 0) UNAVAILABLE("cannot retain the device's primary context");
}

static ixj_status fail_cu(ixj_error *err, CUresult r, const char *what) {
  const char *s = NULL;
  if (cu.GetErrorString) cu.GetErrorString(r, &s);
  return ixj__fail(err, IXJ_ERR_BACKEND, "CUDA: %s failed: %s (%d)", what, s ? s : "unknown error", r);
}

/* The primary context current on the calling thread. */
static ixj_status ready(ixj_error *err) {
  pthread_once(&load_once, load);
  if (cu.problem[0]) return ixj__fail(err, IXJ_ERR_UNAVAILABLE, "%s", cu.problem);
  CUresult r = cu.CtxSetCurrent(cu.ctx);
  return r ? fail_cu(err, r, "cuCtxSetCurrent") : IXJ_OK;
}

ixj_status ixj__cuda_device(int *cc, ixj_error *err) {
  ixj_status st = ready(err);
  if (st == IXJ_OK) *cc = cu.cc;
  return st;
}

ixj_status ixj__cuda_load_kernel(const void *image, const char *name, void **kernel, ixj_error *err) {
  ixj_status st = ready(err);
  if (st != IXJ_OK) return st;
  CUlibrary lib;
  CUresult r = cu.LibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);
  if (r) return fail_cu(err, r, "cuLibraryLoadData");
  r = cu.LibraryGetKernel((CUkernel *)kernel, lib, name); /* resolved now, never at launch */
  return r ? fail_cu(err, r, "cuLibraryGetKernel") : IXJ_OK;
}

ixj_status ixj__cuda_launch(void *kernel, unsigned blocks, unsigned block_x, unsigned block_y, void *args, long long begin,
                       long long end, void *stream, ixj_error *err) {
  ixj_status st = ready(err);
  if (st != IXJ_OK) return st;
  void *params[3] = {args, &begin, &end};
  CUresult r = cu.LaunchKernel(kernel, blocks, 1, 1, block_x, block_y, 1, 0, stream, params, NULL);
  return r ? fail_cu(err, r, "cuLaunchKernel") : IXJ_OK;
}

ixj_status ixj__cuda_memcpy_dtod(void *dst, const void *src, size_t bytes, void *stream, ixj_error *err) {
  ixj_status st = ready(err);
  if (st != IXJ_OK) return st;
  CUresult r = cu.MemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, bytes, stream);
  return r ? fail_cu(err, r, "cuMemcpyDtoDAsync") : IXJ_OK;
}

ixj_status ixj__cuda_alloc(void **ptr, size_t bytes, ixj_error *err) {
  ixj_status st = ready(err);
  if (st != IXJ_OK) return st;
  CUdeviceptr p = 0;
  CUresult r = cu.MemAlloc(&p, bytes ? bytes : 1);
  *ptr = (void *)(uintptr_t)p;
  return r ? fail_cu(err, r, "cuMemAlloc") : IXJ_OK;
}

void ixj__cuda_free(void *ptr) {
  if (ptr && ready(NULL) == IXJ_OK) cu.MemFree((CUdeviceptr)(uintptr_t)ptr);
}

ixj_status ixj__cuda_copy_to_device(void *dst, const void *src, size_t bytes, ixj_error *err) {
  ixj_status st = ready(err);
  if (st != IXJ_OK || !bytes) return st;
  CUresult r = cu.MemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, bytes);
  return r ? fail_cu(err, r, "cuMemcpyHtoD") : IXJ_OK;
}

ixj_status ixj__cuda_copy_to_host(void *dst, const void *src, size_t bytes, ixj_error *err) {
  ixj_status st = ready(err);
  if (st != IXJ_OK || !bytes) return st;
  CUresult r = cu.MemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes);
  return r ? fail_cu(err, r, "cuMemcpyDtoH") : IXJ_OK;
}

ixj_status ixj__cuda_synchronize(void *stream, ixj_error *err) {
  ixj_status st = ready(err);
  if (st != IXJ_OK) return st;
  CUresult r = cu.StreamSynchronize(stream);
  return r ? fail_cu(err, r, "cuStreamSynchronize") : IXJ_OK;
}

/* Internal: the CUDA Driver API, loaded with dlopen("libcuda.so.1") and
 * cuGetProcAddress (never linked), through the context-independent library
 * API (cuLibraryLoadData, cuLibraryGetKernel). Every failure to reach a GPU
 * is reported as "CUDA unavailable: ...".
 *
 * Devices: each call that touches a device names it by its index (as CUDA
 * and DLPack count them in this process). A device's primary context is
 * retained on the first call that needs it (once, under a lock; later calls
 * read it without one) and kept for the process's lifetime. Every call runs
 * with that context pushed onto the calling thread's stack and pops it
 * before returning: the caller's current context is never changed. Kernels
 * are loaded once, context-independently: one CUkernel serves every device
 * whose architecture its image fits (the driver loads it into a context on
 * its first launch there), so the kernel cache is keyed by architecture
 * ("cuda:sm_90"), not by device. */
#ifndef IXJIT_RUNTIME_CUDA_DRIVER_H
#define IXJIT_RUNTIME_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "ixjit/status.h"

/* The Driver API entry points ixjit uses, with our own declarations (no
 * cuda.h at build time): handles are pointers, CUresult and CUdevice ints,
 * CUdeviceptr a uint64_t. */
typedef struct ixj__cuda_table {
  int (*Init)(unsigned flags);
  int (*DriverGetVersion)(int *version);
  int (*GetErrorString)(int result, const char **text);
  int (*DeviceGetCount)(int *count);
  int (*DeviceGet)(int *device, int ordinal);
  int (*DeviceGetAttribute)(int *value, int attribute, int device);
  int (*DevicePrimaryCtxRetain)(void **ctx, int device);
  int (*CtxPushCurrent)(void *ctx);
  int (*CtxPopCurrent)(void **ctx);
  int (*LibraryLoadData)(void **library, const void *image, void *jit_options, void *jit_values, unsigned njit,
                         void *lib_options, void *lib_values, unsigned nlib);
  int (*LibraryGetKernel)(void **kernel, void *library, const char *name);
  int (*LaunchKernel)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                      unsigned shared_bytes, void *stream, void **params, void **extra);
  int (*MemAlloc)(uint64_t *ptr, size_t bytes);
  int (*MemFree)(uint64_t ptr);
  int (*MemcpyHtoD)(uint64_t dst, const void *src, size_t bytes);
  int (*MemcpyDtoH)(void *dst, uint64_t src, size_t bytes);
  int (*MemcpyDtoDAsync)(uint64_t dst, uint64_t src, size_t bytes, void *stream);
  int (*StreamSynchronize)(void *stream);
  int (*PointerGetAttribute)(void *data, int attribute, uint64_t ptr);
} ixj__cuda_table;

/* Test hook: use `t` (copied) instead of libcuda.so.1 for the rest of the
 * process. Only before any other call here; IXJ_ERR_INVALID_ARGUMENT after
 * (the driver has been loaded, or found missing, already). */
ixj_status ixj__cuda_use_table(const ixj__cuda_table *t, ixj_error *err);

/* The devices this process sees (0 with IXJ_ERR_UNAVAILABLE without a driver). */
ixj_status ixj__cuda_device_count(int *count, ixj_error *err);
/* Loads the driver (once per process) and retains `device`'s primary context
 * (once per device); *cc gets its compute capability (10 * major + minor).
 * IXJ_ERR_INVALID_ARGUMENT for an index outside 0..count-1. */
ixj_status ixj__cuda_device(int device, int *cc, ixj_error *err);
/* Loads a CUBIN or PTX image and resolves `name`: the kernel handle, valid
 * on every device the image fits. */
ixj_status ixj__cuda_load_kernel(const void *image, const char *name, void **kernel, ixj_error *err);
/* Launches kernel(args, begin, end) on `device`'s `stream` (NULL: its default stream). */
ixj_status ixj__cuda_launch(int device, void *kernel, unsigned blocks, unsigned block_x, unsigned block_y, void *args,
                            long long begin, long long end, void *stream, ixj_error *err);
ixj_status ixj__cuda_memcpy_dtod(int device, void *dst, const void *src, size_t bytes, void *stream, ixj_error *err);
ixj_status ixj__cuda_alloc(int device, void **ptr, size_t bytes, ixj_error *err);
/* The memory calls below find the device from the pointer (unified addressing). */
void ixj__cuda_free(void *ptr);
ixj_status ixj__cuda_copy_to_device(void *dst, const void *src, size_t bytes, ixj_error *err);
ixj_status ixj__cuda_copy_to_host(void *dst, const void *src, size_t bytes, ixj_error *err);
ixj_status ixj__cuda_synchronize(int device, void *stream, ixj_error *err);

#endif

/* Internal: the CUDA Driver API, loaded with dlopen("libcuda.so.1") and
 * cuGetProcAddress (never linked), through the context-independent library
 * API (cuLibraryLoadData, cuLibraryGetKernel). Every failure to reach a GPU
 * is reported as "CUDA unavailable: ...". */
#ifndef IXJIT_RUNTIME_CUDA_DRIVER_H
#define IXJIT_RUNTIME_CUDA_DRIVER_H

#include <stddef.h>

#include "ixjit/status.h"

/* Loads the driver and selects device 0 (once per process); *cc gets its
 * compute capability (10 * major + minor). */
ixj_status ixj__cuda_device(int *cc, ixj_error *err);
/* Loads a CUBIN or PTX image and resolves `name`: the kernel handle. */
ixj_status ixj__cuda_load_kernel(const void *image, const char *name, void **kernel, ixj_error *err);
/* Launches kernel(args, begin, end) on `stream` (NULL: the default stream). */
ixj_status ixj__cuda_launch(void *kernel, unsigned blocks, unsigned block_x, unsigned block_y, void *args, long long begin,
                       long long end, void *stream, ixj_error *err);
ixj_status ixj__cuda_memcpy_dtod(void *dst, const void *src, size_t bytes, void *stream, ixj_error *err);
ixj_status ixj__cuda_alloc(void **ptr, size_t bytes, ixj_error *err);
void ixj__cuda_free(void *ptr);
ixj_status ixj__cuda_copy_to_device(void *dst, const void *src, size_t bytes, ixj_error *err);
ixj_status ixj__cuda_copy_to_host(void *dst, const void *src, size_t bytes, ixj_error *err);
ixj_status ixj__cuda_synchronize(void *stream, ixj_error *err);

#endif

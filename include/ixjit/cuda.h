/* ixjit — the operations on CUDA device memory, and device memory helpers.
 *
 * Device 0 of this process, through the CUDA Driver API, which is loaded at
 * run time (libcuda.so.1): the library links no CUDA, and without a driver or
 * a GPU these calls return IXJ_ERR_UNAVAILABLE ("CUDA unavailable: ...")
 * while everything else keeps working. Emitting and compiling CUDA C, which
 * needs no GPU, is in emit.h. */
#ifndef IXJIT_CUDA_H
#define IXJIT_CUDA_H

#include <stddef.h>

#include "ixjit/context.h"
#include "ixjit/ops.h"
#include "ixjit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operations of ops.h on device memory: operands are device pointers
 * with their allocation sizes; the same checks as on the CPU run first, with
 * the same errors. Kernels are compiled with NVRTC for the device's exact
 * sm_XY (PTX when the device is newer than NVRTC knows), loaded once per
 * signature into the context's cache (and the disk cache), and launched on
 * `stream` (a CUstream; NULL: the default stream) without waiting:
 * info->run_ms is 0, and the destination is ready after ixj_cuda_synchronize
 * on that stream. info->strategy is static, as in ops.h.
 *   IXJ_ERR_UNAVAILABLE  no driver, no device, or no NVRTC;
 *   IXJ_ERR_BACKEND      NVRTC or the driver failed (compile, load, launch). */
IXJ_API ixj_status ixj_copy_cuda(ixj_context *ctx, const ixj_operand *dst, const ixj_operand *src, size_t elem_size,
                         void *stream, ixj_call_info *info, ixj_error *err);
IXJ_API ixj_status ixj_fill_cuda(ixj_context *ctx, const ixj_operand *dst, const void *value, size_t elem_size, void *stream,
                         ixj_call_info *info, ixj_error *err);
IXJ_API ixj_status ixj_cat_cuda(ixj_context *ctx, const ixj_operand *dst, int axis, int num_srcs, const ixj_operand *srcs,
                        size_t elem_size, void *stream, ixj_call_info *info, ixj_error *err);

/* Device memory helpers for tools and tests (device 0). Each returns
 * IXJ_ERR_UNAVAILABLE without a usable device and IXJ_ERR_BACKEND when the
 * driver call fails (out of device memory included). */
/* *ptr is device memory of `bytes` bytes (at least 1): the caller's, freed
 * with ixj_cuda_free (not ixj_free). */
IXJ_API ixj_status ixj_cuda_alloc(void **ptr, size_t bytes, ixj_error *err);
/* Frees memory from ixj_cuda_alloc; NULL is fine. */
IXJ_API void ixj_cuda_free(void *ptr);
/* Synchronous copies between host and device memory. */
IXJ_API ixj_status ixj_cuda_upload(void *device_dst, const void *host_src, size_t bytes, ixj_error *err);
IXJ_API ixj_status ixj_cuda_download(void *host_dst, const void *device_src, size_t bytes, ixj_error *err);
/* Waits for everything launched on `stream` (NULL: the default stream). */
IXJ_API ixj_status ixj_cuda_synchronize(void *stream, ixj_error *err);
/* Whether a CUDA device can be used: IXJ_OK with its compute capability
 * (e.g. 90; optional, 0 on error), or IXJ_ERR_UNAVAILABLE and err says why. */
IXJ_API ixj_status ixj_cuda_available(int *compute_capability, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif

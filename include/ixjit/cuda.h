/* ixjit — CUDA C emission and NVRTC compilation (no GPU needed).
 *
 * NVRTC is loaded at run time (libnvrtc.so.13, then .12); without it these
 * calls return an error and everything else keeps working. */
#ifndef IXJIT_CUDA_H
#define IXJIT_CUDA_H

#include <stddef.h>

#include "ixjit/context.h"
#include "ixjit/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CUDA C ixjit would compile for an operation on GPUs of compute
 * capability `arch` ("sm_90"): *source and *kernel_name are malloc'ed. The
 * operands are assumed 16-byte aligned (which selects vector accesses). */
IXJ_API ixj_status ixj_emit_cuda(ixj_context *ctx, const char *arch, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, char **source, char **kernel_name,
                         ixj_error *err);
/* Compiles CUDA C with NVRTC: arch "sm_XY" gives a CUBIN for exactly that
 * architecture, "compute_XY" gives PTX (NUL-terminated). *binary is malloc'ed. */
IXJ_API ixj_status ixj_compile_cuda(const char *source, const char *arch, void **binary, size_t *size, ixj_error *err);

/* The operations on CUDA device memory (device 0 of this process): operands
 * are device pointers with their allocation sizes; the same checks as on the
 * CPU run first. Kernels are compiled with NVRTC for the device's exact sm_XY
 * (PTX when the device is newer than NVRTC knows), loaded once per signature
 * into the context's cache, and launched on `stream` (a CUstream; NULL: the
 * default stream) without waiting: info->run_ms is 0. Without a usable driver
 * or device: IXJ_ERR_INVALID_ARGUMENT, "CUDA unavailable: ...". */
IXJ_API ixj_status ixj_copy_cuda(ixj_context *ctx, const ixj_operand *dst, const ixj_operand *src, size_t elem_size,
                         void *stream, ixj_call_info *info, ixj_error *err);
IXJ_API ixj_status ixj_fill_cuda(ixj_context *ctx, const ixj_operand *dst, const void *value, size_t elem_size, void *stream,
                         ixj_call_info *info, ixj_error *err);
IXJ_API ixj_status ixj_cat_cuda(ixj_context *ctx, const ixj_operand *dst, int axis, int num_srcs, const ixj_operand *srcs,
                        size_t elem_size, void *stream, ixj_call_info *info, ixj_error *err);
/* Device memory helpers for tools and tests (device 0). */
IXJ_API ixj_status ixj_cuda_alloc(void **ptr, size_t bytes, ixj_error *err);
IXJ_API void ixj_cuda_free(void *ptr);
IXJ_API ixj_status ixj_cuda_upload(void *device_dst, const void *host_src, size_t bytes, ixj_error *err);
IXJ_API ixj_status ixj_cuda_download(void *host_dst, const void *device_src, size_t bytes, ixj_error *err);
IXJ_API ixj_status ixj_cuda_synchronize(void *stream, ixj_error *err);
/* Compiles an operation's kernel for GPUs of `arch` ("sm_90") into the disk
 * cache without a GPU (what `ixjit warm --target cuda:sm_90` does). */
IXJ_API ixj_status ixj_warm_cuda(ixj_context *ctx, const char *arch, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, bool aligned,
                         ixj_warm_outcome *outcome, ixj_error *err);
/* Whether a CUDA device can be used; when not, err says why. */
IXJ_API ixj_status ixj_cuda_available(int *compute_capability, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif

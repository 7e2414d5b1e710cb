/* ixjit — the operations on CUDA device memory, prepared CUDA kernels, and
 * device memory helpers.
 *
 * Through the CUDA Driver API, which is loaded at run time (libcuda.so.1):
 * the library links no CUDA, and without a driver or a GPU these calls
 * return IXJ_ERR_UNAVAILABLE ("CUDA unavailable: ...") while everything else
 * keeps working. Emitting and compiling CUDA C, which needs no GPU, is in
 * emit.h.
 *
 * Devices are named by their index as the driver counts them in this process
 * (after CUDA_VISIBLE_DEVICES; DLPack's device_id). The calls without a
 * device argument use device 0; the _device calls take one. Each call works
 * in the device's primary context (retained on first use, kept for the
 * process's lifetime), pushed for the call and popped before it returns: the
 * calling thread's current context is never changed. Streams must belong to
 * that context (a stream made on the device's primary context, e.g. by
 * PyTorch or the CUDA runtime on that device); NULL is its default stream.
 * Kernels are compiled per architecture and loaded context-independently
 * (cuLibraryLoadData): two devices of one architecture share a cached
 * kernel, which the driver loads into each device's context on first use. */
#ifndef IXJIT_CUDA_H
#define IXJIT_CUDA_H

#include <stddef.h>

#include "ixjit/context.h"
#include "ixjit/kernel.h"
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

/* The same on device `device`: IXJ_ERR_INVALID_ARGUMENT (before anything
 * else is checked but the driver) when the process has no such device. */
IXJ_API ixj_status ixj_copy_cuda_device(ixj_context *ctx, int device, const ixj_operand *dst, const ixj_operand *src,
                                        size_t elem_size, void *stream, ixj_call_info *info, ixj_error *err);
IXJ_API ixj_status ixj_fill_cuda_device(ixj_context *ctx, int device, const ixj_operand *dst, const void *value,
                                        size_t elem_size, void *stream, ixj_call_info *info, ixj_error *err);
IXJ_API ixj_status ixj_cat_cuda_device(ixj_context *ctx, int device, const ixj_operand *dst, int axis, int num_srcs,
                                       const ixj_operand *srcs, size_t elem_size, void *stream, ixj_call_info *info,
                                       ixj_error *err);

/* Prepared CUDA kernels: kernel.h's prepared kernels for device memory.
 * Prepare plans for buffers aligned to 16 bytes and compiles (or finds in
 * the caches) the kernel for `device`'s architecture now, so a run only
 * checks the buffers and launches on the given stream without waiting (the
 * destination is ready after ixj_cuda_synchronize_device on that stream).
 * A run whose buffers are not aligned as prepared goes the per-call way
 * (ixj_copy_cuda_device etc.: planned, and compiled when the caches lack
 * it, for that call). Ownership and threads as for ixj_kernel: the handle
 * keeps copies of the index functions, borrows the context (release every
 * handle before ixj_context_destroy) and may be run from many threads at
 * once. Errors: prepare's are ixj_prepare_copy's, IXJ_ERR_UNAVAILABLE and
 * those of the _device calls; a run's are ixj_kernel_run's and the driver's
 * (IXJ_ERR_BACKEND). flags: IXJ_PREPARE_DEFAULT (0). */
typedef struct ixj_cuda_kernel ixj_cuda_kernel;
IXJ_API ixj_status ixj_cuda_prepare_copy(ixj_context *ctx, int device, const ixj_ixfun *dst, const ixj_ixfun *src,
                                         size_t elem_size, unsigned flags, ixj_cuda_kernel **out, ixj_error *err);
IXJ_API ixj_status ixj_cuda_prepare_fill(ixj_context *ctx, int device, const ixj_ixfun *dst, size_t elem_size,
                                         unsigned flags, ixj_cuda_kernel **out, ixj_error *err);
IXJ_API ixj_status ixj_cuda_prepare_cat(ixj_context *ctx, int device, const ixj_ixfun *dst, int axis, int num_srcs,
                                        const ixj_ixfun *const *srcs, size_t elem_size, unsigned flags,
                                        ixj_cuda_kernel **out, ixj_error *err);
/* dst, then num_srcs sources (copy: 1, cat: the prepared count, fill: 0 with
 * srcs NULL) as device pointers with their sizes; value: a fill's element in
 * host memory (copied into the launch's arguments), else NULL. */
IXJ_API ixj_status ixj_cuda_kernel_run(const ixj_cuda_kernel *kernel, ixj_buffer dst, int num_srcs,
                                       const ixj_buffer *srcs, const void *value, void *stream, ixj_error *err);
/* Frees the handle (NULL is fine); no run of it may be in progress. */
IXJ_API void ixj_cuda_kernel_release(ixj_cuda_kernel *kernel);

/* Device memory helpers for tools and tests (device 0). Each returns
 * IXJ_ERR_UNAVAILABLE without a usable device and IXJ_ERR_BACKEND when the
 * driver call fails (out of device memory included). */
/* *ptr is device memory of `bytes` bytes (at least 1): the caller's, freed
 * with ixj_cuda_free (not ixj_free). */
IXJ_API ixj_status ixj_cuda_alloc(void **ptr, size_t bytes, ixj_error *err);
/* The same on device `device`. */
IXJ_API ixj_status ixj_cuda_alloc_device(int device, void **ptr, size_t bytes, ixj_error *err);
/* Frees memory from ixj_cuda_alloc or ixj_cuda_alloc_device; NULL is fine. */
IXJ_API void ixj_cuda_free(void *ptr);
/* Synchronous copies between host and device memory (on the device the
 * memory was allocated on). */
IXJ_API ixj_status ixj_cuda_upload(void *device_dst, const void *host_src, size_t bytes, ixj_error *err);
IXJ_API ixj_status ixj_cuda_download(void *host_dst, const void *device_src, size_t bytes, ixj_error *err);
/* Waits for everything launched on `stream` (NULL: the default stream). */
IXJ_API ixj_status ixj_cuda_synchronize(void *stream, ixj_error *err);
/* The same for a stream of device `device` (NULL: that device's default stream). */
IXJ_API ixj_status ixj_cuda_synchronize_device(int device, void *stream, ixj_error *err);
/* Whether a CUDA device can be used: IXJ_OK with its compute capability
 * (e.g. 90; optional, 0 on error), or IXJ_ERR_UNAVAILABLE and err says why. */
IXJ_API ixj_status ixj_cuda_available(int *compute_capability, ixj_error *err);
/* The same for device `device` (IXJ_ERR_INVALID_ARGUMENT: no such device). */
IXJ_API ixj_status ixj_cuda_device_available(int device, int *compute_capability, ixj_error *err);
/* How many CUDA devices this process sees (0 on error). */
IXJ_API ixj_status ixj_cuda_device_count(int *count, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif

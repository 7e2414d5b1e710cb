/* ixjit — the operations on DLPack tensors (Debian libdlpack-dev).
 *
 * A DLTensor's shape, strides (in elements; NULL means row-major) and
 * byte_offset become an index function; the element size is dtype.bits *
 * dtype.lanes / 8 and must be 1, 2, 4, 8 or 16; both tensors must have the
 * same element size. The buffer is taken to be exactly the bytes the tensor
 * reaches. kDLCPU and kDLCUDAHost tensors take the CPU path; kDLCUDA and
 * kDLCUDAManaged tensors the CUDA path, on the caller's stream (the _stream
 * calls) or the default stream, without waiting (as in cuda.h). The CUDA path
 * drives device 0 of the process, so a CUDA tensor's device_id must be 0: a
 * tensor on another device is refused, never read or written from device 0.
 * All tensors of one call must be on the same side. The tensors are only
 * read; info and the errors are those of the ops.h or cuda.h operation, and:
 *   IXJ_ERR_INVALID_ARGUMENT  a NULL tensor, an unsupported device type or a
 *                             CUDA device other than 0, an element size not
 *                             1, 2, 4, 8 or 16 bytes, a byte_offset that is
 *                             not a multiple of it;
 *   IXJ_ERR_MISMATCH          element sizes differ, or CPU and CUDA tensors mixed;
 *   IXJ_ERR_LIMIT             ndim above IXJ_MAX_RANK;
 *   IXJ_ERR_OVERFLOW          a shape or strides beyond 64-bit arithmetic. */
#ifndef IXJIT_DLPACK_H
#define IXJIT_DLPACK_H

#include <dlpack/dlpack.h>

#include "ixjit/context.h"
#include "ixjit/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

IXJ_API ixj_status ixj_copy_dlpack(ixj_context *ctx, const DLTensor *dst, const DLTensor *src, ixj_call_info *info,
                           ixj_error *err);
IXJ_API ixj_status ixj_fill_dlpack(ixj_context *ctx, const DLTensor *dst, const void *value, ixj_call_info *info,
                           ixj_error *err);
IXJ_API ixj_status ixj_cat_dlpack(ixj_context *ctx, const DLTensor *dst, int axis, int num_srcs, const DLTensor *const *srcs,
                          ixj_call_info *info, ixj_error *err);

/* The same on `stream`, a CUstream of device 0 (NULL: the default stream),
 * when the tensors are CUDA tensors: the work is queued after what the stream
 * holds, and the destination is ready once the stream is synchronized (the
 * consumer's stream of DLPack's exchange protocol). CPU tensors ignore it. */
IXJ_API ixj_status ixj_copy_dlpack_stream(ixj_context *ctx, const DLTensor *dst, const DLTensor *src, void *stream,
                                  ixj_call_info *info, ixj_error *err);
IXJ_API ixj_status ixj_fill_dlpack_stream(ixj_context *ctx, const DLTensor *dst, const void *value, void *stream,
                                  ixj_call_info *info, ixj_error *err);
IXJ_API ixj_status ixj_cat_dlpack_stream(ixj_context *ctx, const DLTensor *dst, int axis, int num_srcs,
                                 const DLTensor *const *srcs, void *stream, ixj_call_info *info, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif

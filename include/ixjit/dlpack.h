/* ixjit — the operations on DLPack tensors (DLPack 1.x: the header vendored
 * in third_party/dlpack, installed beside this one).
 *
 * A DLTensor's shape, strides (in elements; NULL means row-major) and
 * byte_offset become an index function; the element size is dtype.bits / 8 *
 * dtype.lanes (bits a multiple of 8, lanes at least 1) and must be 1, 2, 4, 8
 * or 16; all tensors of one call must have the same element size. The buffer
 * is taken to be exactly the bytes the tensor reaches. kDLCPU and kDLCUDAHost
 * tensors take the CPU path; kDLCUDA and kDLCUDAManaged tensors the CUDA path,
 * on the caller's stream (the _stream and _versioned calls) or the default
 * stream, without waiting (as in cuda.h), on the tensor's own device
 * (device_id, in that device's primary context; a device the process lacks
 * is IXJ_ERR_INVALID_ARGUMENT). All tensors of one call must be on the same
 * device.
 *
 * Every field is checked before anything runs, with checked arithmetic: the
 * tensors come from other libraries and are not trusted. The calls never
 * call a managed tensor's deleter (the caller owns the tensors) and only read
 * them; the sources are never written. The errors are those of the ops.h or
 * cuda.h operation, and:
 *   IXJ_ERR_INVALID_ARGUMENT  a NULL tensor; a NULL shape with ndim > 0
 *                             (NULL strides are fine: row-major); a negative
 *                             extent; an unsupported device type or a
 *                             CUDA device other than 0; a dtype with 0 lanes,
 *                             bits not a multiple of 8, or an element size not
 *                             1, 2, 4, 8 or 16 bytes; a byte_offset that is not
 *                             a multiple of it; data + byte_offset, or the
 *                             reached byte range, wrapping the address space;
 *                             (versioned) a major version other than
 *                             DLPACK_MAJOR_VERSION, or a destination flagged
 *                             DLPACK_FLAG_BITMASK_READ_ONLY;
 *   IXJ_ERR_MISMATCH          element sizes differ, or CPU and CUDA tensors mixed;
 *   IXJ_ERR_LIMIT             ndim outside 0..IXJ_MAX_RANK;
 *   IXJ_ERR_OVERFLOW          a shape, stride (times the element size) or
 *                             byte_offset beyond 64-bit arithmetic. */
#ifndef IXJIT_DLPACK_H
#define IXJIT_DLPACK_H

#include <dlpack/dlpack.h>

#include "ixjit/context.h"
#include "ixjit/ops.h"

#if !defined(DLPACK_MAJOR_VERSION) || DLPACK_MAJOR_VERSION < 1
#error "ixjit/dlpack.h needs DLPack 1.x (third_party/dlpack/include, installed with ixjit), not an older <dlpack/dlpack.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Unversioned DLTensors (a legacy DLManagedTensor's dl_tensor, or a tensor
 * made by hand): there are no flags, so a read-only destination cannot be
 * told apart; prefer the _versioned calls for tensors from other libraries. */
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

/* Versioned managed tensors (DLPack >= 1.0, what a "dltensor_versioned"
 * capsule holds), on `stream` as above. The version is checked first (a
 * major version other than DLPACK_MAJOR_VERSION is refused without reading
 * any other field, as DLPack requires); a destination whose flags carry
 * DLPACK_FLAG_BITMASK_READ_ONLY is refused and never written. */
IXJ_API ixj_status ixj_copy_dlpack_versioned(ixj_context *ctx, const struct DLManagedTensorVersioned *dst,
                                             const struct DLManagedTensorVersioned *src, void *stream,
                                             ixj_call_info *info, ixj_error *err);
IXJ_API ixj_status ixj_fill_dlpack_versioned(ixj_context *ctx, const struct DLManagedTensorVersioned *dst,
                                             const void *value, void *stream, ixj_call_info *info, ixj_error *err);
IXJ_API ixj_status ixj_cat_dlpack_versioned(ixj_context *ctx, const struct DLManagedTensorVersioned *dst, int axis,
                                            int num_srcs, const struct DLManagedTensorVersioned *const *srcs,
                                            void *stream, ixj_call_info *info, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif

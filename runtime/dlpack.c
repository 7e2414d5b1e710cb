/* DLPack tensors -> operands. The tensors come from other libraries: every
 * field is checked, with checked arithmetic, before an index function is
 * made or a pointer formed (issue 15: a NULL shape, strides of -2^62 and
 * stride * element size overflowing used to crash here). */
#include "ixjit/dlpack.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "checked.h"
#include "error.h"
#include "ixfun_internal.h"
#include "ixjit/cuda.h"

typedef struct dl_operand {
  ixj_operand op;
  ixj_ixfun *ixfun;
  size_t elem_size;
  bool gpu;
  int device; /* a CUDA tensor's device_id */
} dl_operand;

/* Device memory (the CUDA path) or host memory (the CPU path). */
static bool on_gpu(const DLTensor *t) {
  return t && (t->device.device_type == kDLCUDA || t->device.device_type == kDLCUDAManaged);
}

static ixj_status same_device(const dl_operand *d, const dl_operand *s, ixj_error *err) {
  if (d->gpu != s->gpu) return ixj__fail(err, IXJ_ERR_MISMATCH, "the tensors live on different devices (CPU and CUDA)");
  return !d->gpu || d->device == s->device
             ? IXJ_OK
             : ixj__fail(err, IXJ_ERR_MISMATCH, "the tensors live on different CUDA devices (%d and %d)", d->device,
                         s->device);
}

static ixj_status check_device(const DLTensor *t, const char *what, ixj_error *err) {
  if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost && t->device.device_type != kDLCUDA &&
      t->device.device_type != kDLCUDAManaged)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: device type %d is not supported (CPU and CUDA tensors only)",
                    what, (int)t->device.device_type);
  return IXJ_OK;
}

/* Whole bytes per lane (sub-byte types, packed or padded, are refused), at
 * least one lane, and a size the kernels move. */
static ixj_status check_dtype(const DLTensor *t, const char *what, size_t *elem, ixj_error *err) {
  DLDataType dt = t->dtype;
  size_t e = (size_t)(dt.bits / 8) * dt.lanes;
  if (dt.lanes == 0 || dt.bits == 0 || dt.bits % 8)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: dtype with %u bits and %u lanes is not whole bytes", what,
                    (unsigned)dt.bits, (unsigned)dt.lanes);
  if (!(e == 1 || e == 2 || e == 4 || e == 8 || e == 16))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: a %zu-byte element is not 1, 2, 4, 8 or 16 bytes", what, e);
  *elem = e;
  return IXJ_OK;
}

/* The element strides (row-major when t->strides is NULL) and the smallest
 * and largest element offset the tensor reaches, all in checked arithmetic;
 * *empty when a dim has extent 0. */
static ixj_status reach(const DLTensor *t, const char *what, size_t elem, int64_t *strides, int64_t *lo,
                        int64_t *lo_bytes, int64_t *span_bytes, bool *empty, ixj_error *err) {
  int64_t row = 1, a = 0, b = 0;
  *empty = false;
  for (int k = t->ndim - 1; k >= 0; k--) {
    int64_t n = t->shape[k];
    if (n < 0) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: extent %lld of dim %d is negative", what, (long long)n, k);
    if (n == 0) *empty = true;
    strides[k] = t->strides ? t->strides[k] : row;
    if (n > 1 && ixj_mul_ovf(row, n, &row))
      return ixj__fail(err, IXJ_ERR_OVERFLOW, "%s: the shape overflows 64-bit arithmetic", what);
  }
  if (*empty) return IXJ_OK;
  for (int k = 0; k < t->ndim; k++) {
    int64_t n = t->shape[k], s = strides[k], step, bytes;
    /* every element offset times the element size must fit too: pointers are formed from them */
    if (ixj_mul_ovf(s, (int64_t)elem, &bytes) || s == INT64_MIN)
      return ixj__fail(err, IXJ_ERR_OVERFLOW, "%s: stride %lld of dim %d times the %zu-byte element overflows", what,
                      (long long)s, k, elem);
    if (n == 1) continue;
    if (ixj_mul_ovf(n - 1, s, &step) || (step < 0 ? ixj_add_ovf(a, step, &a) : ixj_add_ovf(b, step, &b)))
      return ixj__fail(err, IXJ_ERR_OVERFLOW, "%s: the offsets of dim %d overflow 64-bit arithmetic", what, k);
  }
  int64_t hi_bytes, span, neg;
  if (ixj_mul_ovf(a, (int64_t)elem, lo_bytes) || ixj_sub_ovf(0, *lo_bytes, &neg) ||
      ixj_mul_ovf(b, (int64_t)elem, &hi_bytes) || ixj_sub_ovf(b, a, &span) || ixj_add_ovf(span, 1, &span) ||
      ixj_mul_ovf(span, (int64_t)elem, span_bytes))
    return ixj__fail(err, IXJ_ERR_OVERFLOW, "%s: the tensor's byte extent overflows 64-bit arithmetic", what);
  *lo = a;
  return IXJ_OK;
}

static ixj_status from_tensor(const DLTensor *t, const char *what, dl_operand *out, ixj_error *err) {
  out->ixfun = NULL;
  out->op = (ixj_operand){0};
  if (!t) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: NULL tensor", what);
  ixj_status st = check_device(t, what, err);
  if (st != IXJ_OK) return st;
  if (t->ndim < 0 || t->ndim > IXJ_MAX_RANK)
    return ixj__fail(err, IXJ_ERR_LIMIT, "%s: rank %d is outside 0..%d", what, (int)t->ndim, IXJ_MAX_RANK);
  if (t->ndim > 0 && !t->shape) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: NULL shape with ndim %d", what, (int)t->ndim);
  if ((st = check_dtype(t, what, &out->elem_size, err)) != IXJ_OK) return st;
  if (t->byte_offset % out->elem_size)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: byte_offset %llu is not a multiple of the element size", what,
                    (unsigned long long)t->byte_offset);
  if (t->byte_offset > (uint64_t)INT64_MAX)
    return ixj__fail(err, IXJ_ERR_OVERFLOW, "%s: byte_offset %llu overflows 64-bit arithmetic", what,
                    (unsigned long long)t->byte_offset);
  uintptr_t base;
  if (__builtin_add_overflow((uintptr_t)t->data, (uintptr_t)t->byte_offset, &base))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: data + byte_offset wraps around the address space", what);
  int64_t strides[IXJ_MAX_RANK], lo = 0, lo_bytes = 0, span = 0;
  bool empty;
  if ((st = reach(t, what, out->elem_size, strides, &lo, &lo_bytes, &span, &empty, err)) != IXJ_OK) return st;
  out->gpu = on_gpu(t);
  out->device = t->device.device_id; /* the CUDA path runs on it (an index it lacks is its error) */
  /* The buffer is the reached range: the pointer moves to its first element
   * (lo <= 0, -lo * elem_size bytes below data + byte_offset), and the index
   * function is shifted by -lo, which fits since lo * elem_size did. An empty
   * tensor reaches nothing: its data may be NULL. */
  uintptr_t first = base, below = (uintptr_t)(-lo_bytes), end;
  if (!empty) {
    if (base < below || __builtin_add_overflow(base - below, (uintptr_t)span, &end))
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: the tensor's %lld bytes wrap around the address space", what,
                      (long long)span);
    first = base - below;
  }
  ixj_ixfun *f;
  if ((st = ixj_ixfun_strided(t->ndim, t->shape, strides, empty ? 0 : -lo, &f, err)) != IXJ_OK) return st;
  out->ixfun = f; /* freed by the caller */
  out->op.ixfun = f;
  out->op.data = (void *)first;
  out->op.size_bytes = empty ? 0 : (size_t)span;
  return IXJ_OK;
}

/* A versioned tensor's DLTensor, once its version is one this header
 * describes (nothing else is read before) and, for a destination, it is
 * writable. */
static ixj_status unversion(const struct DLManagedTensorVersioned *m, const char *what, bool writes,
                            const DLTensor **out, ixj_error *err) {
  *out = NULL;
  if (!m) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: NULL tensor", what);
  if (m->version.major != DLPACK_MAJOR_VERSION)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: DLPack version %u.%u; ixjit reads %d.x", what,
                    (unsigned)m->version.major, (unsigned)m->version.minor, DLPACK_MAJOR_VERSION);
  if (writes && (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: the tensor is read-only (DLPACK_FLAG_BITMASK_READ_ONLY)", what);
  *out = &m->dl_tensor;
  return IXJ_OK;
}

ixj_status ixj_copy_dlpack_stream(ixj_context *ctx, const DLTensor *dst, const DLTensor *src, void *stream,
                                  ixj_call_info *info, ixj_error *err) {
  dl_operand d = {{0}, NULL, 0, false, 0}, s = {{0}, NULL, 0, false, 0};
  ixj_status st = from_tensor(dst, "destination", &d, err);
  if (st == IXJ_OK) st = from_tensor(src, "source", &s, err);
  if (st == IXJ_OK && d.elem_size != s.elem_size)
    st = ixj__fail(err, IXJ_ERR_MISMATCH, "element sizes differ (%zu and %zu bytes)", d.elem_size, s.elem_size);
  if (st == IXJ_OK) st = same_device(&d, &s, err);
  if (st == IXJ_OK)
    st = d.gpu ? ixj_copy_cuda_device(ctx, d.device, &d.op, &s.op, d.elem_size, stream, info, err)
               : ixj_copy(ctx, &d.op, &s.op, d.elem_size, info, err);
  ixj_ixfun_free(d.ixfun);
  ixj_ixfun_free(s.ixfun);
  return st;
}

ixj_status ixj_fill_dlpack_stream(ixj_context *ctx, const DLTensor *dst, const void *value, void *stream,
                                  ixj_call_info *info, ixj_error *err) {
  dl_operand d = {{0}, NULL, 0, false, 0};
  ixj_status st = from_tensor(dst, "destination", &d, err);
  if (st == IXJ_OK)
    st = d.gpu ? ixj_fill_cuda_device(ctx, d.device, &d.op, value, d.elem_size, stream, info, err)
               : ixj_fill(ctx, &d.op, value, d.elem_size, info, err);
  ixj_ixfun_free(d.ixfun);
  return st;
}

ixj_status ixj_cat_dlpack_stream(ixj_context *ctx, const DLTensor *dst, int axis, int num_srcs,
                                 const DLTensor *const *srcs, void *stream, ixj_call_info *info, ixj_error *err) {
  if (num_srcs < 1 || num_srcs > IXJ_MAX_CAT_INPUTS || !srcs)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cat takes 1..%d inputs, not %d", IXJ_MAX_CAT_INPUTS, num_srcs);
  dl_operand d = {{0}, NULL, 0, false, 0}, s[IXJ_MAX_CAT_INPUTS];
  ixj_operand ops[IXJ_MAX_CAT_INPUTS];
  for (int k = 0; k < num_srcs; k++) s[k].ixfun = NULL;
  ixj_status st = from_tensor(dst, "destination", &d, err);
  for (int k = 0; st == IXJ_OK && k < num_srcs; k++) {
    st = from_tensor(srcs[k], "input", &s[k], err);
    if (st == IXJ_OK && s[k].elem_size != d.elem_size)
      st = ixj__fail(err, IXJ_ERR_MISMATCH, "input %d: element size %zu differs from the destination's %zu", k,
                    s[k].elem_size, d.elem_size);
    if (st == IXJ_OK) st = same_device(&d, &s[k], err);
    ops[k] = s[k].op;
  }
  if (st == IXJ_OK)
    st = d.gpu ? ixj_cat_cuda_device(ctx, d.device, &d.op, axis, num_srcs, ops, d.elem_size, stream, info, err)
               : ixj_cat(ctx, &d.op, axis, num_srcs, ops, d.elem_size, info, err);
  ixj_ixfun_free(d.ixfun);
  for (int k = 0; k < num_srcs; k++) ixj_ixfun_free(s[k].ixfun);
  return st;
}

/* Without a stream: the default one. */
ixj_status ixj_copy_dlpack(ixj_context *ctx, const DLTensor *dst, const DLTensor *src, ixj_call_info *info,
                           ixj_error *err) {
  return ixj_copy_dlpack_stream(ctx, dst, src, NULL, info, err);
}

ixj_status ixj_fill_dlpack(ixj_context *ctx, const DLTensor *dst, const void *value, ixj_call_info *info,
                           ixj_error *err) {
  return ixj_fill_dlpack_stream(ctx, dst, value, NULL, info, err);
}

ixj_status ixj_cat_dlpack(ixj_context *ctx, const DLTensor *dst, int axis, int num_srcs, const DLTensor *const *srcs,
                          ixj_call_info *info, ixj_error *err) {
  return ixj_cat_dlpack_stream(ctx, dst, axis, num_srcs, srcs, NULL, info, err);
}

/* Versioned: the checks of unversion, then the same calls. */
ixj_status ixj_copy_dlpack_versioned(ixj_context *ctx, const struct DLManagedTensorVersioned *dst,
                                     const struct DLManagedTensorVersioned *src, void *stream, ixj_call_info *info,
                                     ixj_error *err) {
  const DLTensor *d, *s;
  ixj_status st = unversion(dst, "destination", true, &d, err);
  if (st == IXJ_OK) st = unversion(src, "source", false, &s, err);
  return st == IXJ_OK ? ixj_copy_dlpack_stream(ctx, d, s, stream, info, err) : st;
}

ixj_status ixj_fill_dlpack_versioned(ixj_context *ctx, const struct DLManagedTensorVersioned *dst, const void *value,
                                     void *stream, ixj_call_info *info, ixj_error *err) {
  const DLTensor *d;
  ixj_status st = unversion(dst, "destination", true, &d, err);
  return st == IXJ_OK ? ixj_fill_dlpack_stream(ctx, d, value, stream, info, err) : st;
}

ixj_status ixj_cat_dlpack_versioned(ixj_context *ctx, const struct DLManagedTensorVersioned *dst, int axis,
                                    int num_srcs, const struct DLManagedTensorVersioned *const *srcs, void *stream,
                                    ixj_call_info *info, ixj_error *err) {
  if (num_srcs < 1 || num_srcs > IXJ_MAX_CAT_INPUTS || !srcs)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cat takes 1..%d inputs, not %d", IXJ_MAX_CAT_INPUTS, num_srcs);
  const DLTensor *d, *s[IXJ_MAX_CAT_INPUTS];
  ixj_status st = unversion(dst, "destination", true, &d, err);
  for (int k = 0; st == IXJ_OK && k < num_srcs; k++) st = unversion(srcs[k], "input", false, &s[k], err);
  return st == IXJ_OK ? ixj_cat_dlpack_stream(ctx, d, axis, num_srcs, s, stream, info, err) : st;
}

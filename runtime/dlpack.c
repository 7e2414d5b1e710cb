/* DLPack tensors -> operands. */
#include "ixjit/dlpack.h"

#include <stdbool.h>

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
} dl_operand;

/* Device memory (the CUDA path) or host memory (the CPU path). */
static bool on_gpu(const DLTensor *t) {
  return t && (t->device.device_type == kDLCUDA || t->device.device_type == kDLCUDAManaged);
}

static ixj_status same_device(const dl_operand *d, const dl_operand *s, ixj_error *err) {
  return d->gpu == s->gpu ? IXJ_OK
                          : ixj__fail(err, IXJ_ERR_MISMATCH, "the tensors live on different devices (CPU and CUDA)");
}

static ixj_status from_tensor(const DLTensor *t, const char *what, dl_operand *out, ixj_error *err) {
  out->ixfun = NULL;
  if (!t) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: NULL tensor", what);
  if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost && t->device.device_type != kDLCUDA &&
      t->device.device_type != kDLCUDAManaged)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: device type %d is not supported (CPU and CUDA tensors only)",
                    what, (int)t->device.device_type);
  /* the CUDA path drives device 0 (runtime/cuda_driver.c): a tensor elsewhere must not be touched from it */
  if ((t->device.device_type == kDLCUDA || t->device.device_type == kDLCUDAManaged) && t->device.device_id != 0)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: the tensor is on CUDA device %d; the CUDA path drives device 0 only",
                    what, (int)t->device.device_id);
  if (t->ndim < 0 || t->ndim > IXJ_MAX_RANK)
    return ixj__fail(err, IXJ_ERR_LIMIT, "%s: rank %d is outside 0..%d", what, t->ndim, IXJ_MAX_RANK);
  size_t bits = (size_t)t->dtype.bits * t->dtype.lanes;
  out->elem_size = bits / 8;
  if (bits % 8 || !(out->elem_size == 1 || out->elem_size == 2 || out->elem_size == 4 || out->elem_size == 8 ||
                    out->elem_size == 16))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: a %zu-bit element is not 1, 2, 4, 8 or 16 bytes", what, bits);
  if (t->byte_offset % out->elem_size)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: byte_offset %llu is not a multiple of the element size", what,
                    (unsigned long long)t->byte_offset);
  int64_t strides[IXJ_MAX_RANK], s = 1;
  for (int k = t->ndim - 1; k >= 0; k--) {
    strides[k] = t->strides ? t->strides[k] : s;
    if (t->shape[k] > 1 && ixj_mul_ovf(s, t->shape[k], &s))
      return ixj__fail(err, IXJ_ERR_OVERFLOW, "%s: the shape overflows 64-bit arithmetic", what);
  }
  ixj_ixfun *f;
  ixj_status st = ixj_ixfun_strided(t->ndim, t->shape, strides, 0, &f, err);
  if (st != IXJ_OK) return st;
  /* The buffer is the reached range: shift the pointer to its first element. */
  ixj_offset_range r = ixj_ixfun_offset_range(f);
  char *base = (char *)t->data + t->byte_offset;
  out->op.data = base;
  out->op.size_bytes = 0;
  if (!r.empty) {
    ixj_ixfun_free(f);
    st = ixj_ixfun_strided(t->ndim, t->shape, strides, -r.min, &f, err);
    if (st != IXJ_OK) return st;
    out->op.data = base + r.min * (int64_t)out->elem_size;
    out->ixfun = f; /* freed by the caller, also on the error below */
    st = ixj_ixfun_required_bytes(f, out->elem_size, &out->op.size_bytes, err);
    if (st != IXJ_OK) return st;
  }
  out->ixfun = f;
  out->op.ixfun = f;
  out->gpu = on_gpu(t);
  return IXJ_OK;
}

ixj_status ixj_copy_dlpack_stream(ixj_context *ctx, const DLTensor *dst, const DLTensor *src, void *stream,
                                  ixj_call_info *info, ixj_error *err) {
  dl_operand d = {{0}, NULL, 0, false}, s = {{0}, NULL, 0, false};
  ixj_status st = from_tensor(dst, "destination", &d, err);
  if (st == IXJ_OK) st = from_tensor(src, "source", &s, err);
  if (st == IXJ_OK && d.elem_size != s.elem_size)
    st = ixj__fail(err, IXJ_ERR_MISMATCH, "element sizes differ (%zu and %zu bytes)", d.elem_size, s.elem_size);
  if (st == IXJ_OK) st = same_device(&d, &s, err);
  if (st == IXJ_OK)
    st = d.gpu ? ixj_copy_cuda(ctx, &d.op, &s.op, d.elem_size, stream, info, err)
               : ixj_copy(ctx, &d.op, &s.op, d.elem_size, info, err);
  ixj_ixfun_free(d.ixfun);
  ixj_ixfun_free(s.ixfun);
  return st;
}

ixj_status ixj_fill_dlpack_stream(ixj_context *ctx, const DLTensor *dst, const void *value, void *stream,
                                  ixj_call_info *info, ixj_error *err) {
  dl_operand d = {{0}, NULL, 0, false};
  ixj_status st = from_tensor(dst, "destination", &d, err);
  if (st == IXJ_OK)
    st = d.gpu ? ixj_fill_cuda(ctx, &d.op, value, d.elem_size, stream, info, err)
               : ixj_fill(ctx, &d.op, value, d.elem_size, info, err);
  ixj_ixfun_free(d.ixfun);
  return st;
}

ixj_status ixj_cat_dlpack_stream(ixj_context *ctx, const DLTensor *dst, int axis, int num_srcs,
                                 const DLTensor *const *srcs, void *stream, ixj_call_info *info, ixj_error *err) {
  if (num_srcs < 1 || num_srcs > IXJ_MAX_CAT_INPUTS || !srcs)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cat takes 1..%d inputs, not %d", IXJ_MAX_CAT_INPUTS, num_srcs);
  dl_operand d = {{0}, NULL, 0, false}, s[IXJ_MAX_CAT_INPUTS];
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
    st = d.gpu ? ixj_cat_cuda(ctx, &d.op, axis, num_srcs, ops, d.elem_size, stream, info, err)
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

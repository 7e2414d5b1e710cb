/* Prepared CUDA kernels (include/ixjit/cuda.h): the plan for buffers aligned
 * to 64 bytes and its kernel's slot in the context's memory cache, found or
 * compiled at prepare through the dispatcher (DISPATCH_PREPARE on the CUDA
 * backend and the handle's device). A run checks the buffers by arithmetic
 * (each operand's reachable byte range, kept from prepare) and, when every
 * buffer is aligned as prepared, packs the plan's argument block and
 * launches on the caller's stream (backend_cuda.c's ixj__cuda_run_plan, the
 * per-call path's own launch); otherwise it hands the call to the per-call
 * path, which plans for those addresses. The CPU's prepared kernels
 * (kernel.c) keep one plan per alignment instead; a GPU view that is not
 * 64-byte aligned is rare enough (an offset into an allocation) that the
 * per-call path's memory hit is the better trade than a variant list. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "dispatch.h"
#include "error.h"
#include "ixfun_internal.h"
#include "ixjit/cuda.h"

enum { PREPARED_ALIGN = 64 };

struct ixj_cuda_kernel {
  ixj_context *ctx;
  int device;
  ixj_op_kind op;
  size_t elem_size;
  int axis, num_srcs, num_operands;
  bool empty;
  ixj_ixfun *f[PLAN_MAX_OPERANDS];
  operand_range range[PLAN_MAX_OPERANDS];
  ixj_plan *plan;    /* for aligned buffers; NULL when empty */
  kernel_slot *slot; /* its kernel's; NULL for a plan without one (MEMCPY) */
};

void ixj_cuda_kernel_release(ixj_cuda_kernel *k) {
  if (!k) return;
  for (int o = 0; o < k->num_operands; o++) ixj_ixfun_free(k->f[o]);
  free(k->plan);
  free(k);
}

static ixj_status prepare(ixj_context *ctx, int device, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                          const ixj_ixfun *const *srcs, int axis, size_t elem_size, unsigned flags,
                          ixj_cuda_kernel **out, ixj_error *err) {
  if (out) *out = NULL;
  IXJ_REQUIRE_ARGS(err, ctx && dst && out && (srcs || num_srcs == 0));
  ixj_status st = ixj__prepare_validate(op, dst, num_srcs, srcs, axis, elem_size, flags, err);
  if (st != IXJ_OK) return st;
  ixj_cuda_kernel *k = calloc(1, sizeof *k);
  if (!k) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  *k = (ixj_cuda_kernel){.ctx = ctx, .device = device, .op = op, .elem_size = elem_size, .axis = axis,
                         .num_srcs = num_srcs};
  for (int o = 0; o < 1 + num_srcs; o++) {
    if ((st = ixj_ixfun_clone(o ? srcs[o - 1] : dst, &k->f[o], err)) != IXJ_OK) goto fail;
    k->num_operands++;
    if ((st = ixj__operand_range(k->f[o], elem_size, o, &k->range[o], err)) != IXJ_OK) goto fail;
  }
  k->empty = k->range[0].empty;
  if (!k->empty) {
    if (!(k->plan = malloc(sizeof *k->plan))) {
      st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
      goto fail;
    }
    ixj_operand ops[PLAN_MAX_OPERANDS];
    for (int o = 0; o < k->num_operands; o++) ops[o] = (ixj_operand){NULL, 0, k->f[o]};
    static const unsigned char some_value[16];
    op_call c = {op, elem_size, &ops[0], num_srcs, &ops[1], some_value, axis, true};
    dispatch_request req = {.mode = DISPATCH_PREPARE,
                            .backend = &ixj__backend_cuda,
                            .call = c,
                            .aligned = true,
                            .plan_out = k->plan,
                            .device = device};
    dispatch_result res;
    if ((st = ixj__dispatch(ctx, &req, &res, err)) != IXJ_OK) goto fail;
    k->slot = res.slot;
  } else {
    /* nothing will run, but the device must exist as for any other call */
    ixj__target t;
    if ((st = ixj__backend_cuda.device_target(ctx, device, &t, err)) != IXJ_OK) goto fail;
  }
  *out = k;
  return IXJ_OK;
fail:
  ixj_cuda_kernel_release(k);
  return st;
}

ixj_status ixj_cuda_prepare_copy(ixj_context *ctx, int device, const ixj_ixfun *dst, const ixj_ixfun *src,
                                 size_t elem_size, unsigned flags, ixj_cuda_kernel **out, ixj_error *err) {
  return prepare(ctx, device, IXJ_OP_COPY, dst, src ? 1 : -1, &src, 0, elem_size, flags, out, err);
}

ixj_status ixj_cuda_prepare_fill(ixj_context *ctx, int device, const ixj_ixfun *dst, size_t elem_size, unsigned flags,
                                 ixj_cuda_kernel **out, ixj_error *err) {
  return prepare(ctx, device, IXJ_OP_FILL, dst, 0, NULL, 0, elem_size, flags, out, err);
}

ixj_status ixj_cuda_prepare_cat(ixj_context *ctx, int device, const ixj_ixfun *dst, int axis, int num_srcs,
                                const ixj_ixfun *const *srcs, size_t elem_size, unsigned flags, ixj_cuda_kernel **out,
                                ixj_error *err) {
  if (num_srcs < 1) {
    if (out) *out = NULL;
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cat takes 1..%d inputs, not %d", IXJ_MAX_CAT_INPUTS, num_srcs);
  }
  return prepare(ctx, device, IXJ_OP_CAT, dst, num_srcs, srcs, axis, elem_size, flags, out, err);
}

/* Operand o's byte range in buffer b; an error when it does not fit. */
/* The per-call path, for buffers not aligned as prepared. */
static ixj_status run_per_call(const ixj_cuda_kernel *k, const ixj_buffer *bufs, const void *value, void *stream,
                               ixj_error *err) {
  ixj_operand ops[PLAN_MAX_OPERANDS];
  for (int o = 0; o < k->num_operands; o++) ops[o] = (ixj_operand){bufs[o].data, bufs[o].size_bytes, k->f[o]};
  if (k->op == IXJ_OP_COPY) return ixj_copy_cuda_device(k->ctx, k->device, &ops[0], &ops[1], k->elem_size, stream, NULL, err);
  if (k->op == IXJ_OP_FILL) return ixj_fill_cuda_device(k->ctx, k->device, &ops[0], value, k->elem_size, stream, NULL, err);
  return ixj_cat_cuda_device(k->ctx, k->device, &ops[0], k->axis, k->num_srcs, &ops[1], k->elem_size, stream, NULL, err);
}

ixj_status ixj_cuda_kernel_run(const ixj_cuda_kernel *k, ixj_buffer dst, int num_srcs, const ixj_buffer *srcs,
                               const void *value, void *stream, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, k);
  ixj_buffer bufs[PLAN_MAX_OPERANDS];
  uintptr_t dlo, dhi;
  ixj_status st = ixj__prepared_run_check(k->op, k->num_srcs, k->range, dst, num_srcs, srcs, value, bufs, &dlo, &dhi, err);
  if (st != IXJ_OK || k->empty) return st;
  bool aligned = true;
  for (int o = 0; o < k->num_operands; o++) aligned = aligned && (uintptr_t)bufs[o].data % PREPARED_ALIGN == 0;
  kernel_ref kernel = {NULL};
  if (!aligned || (k->slot && !ixj__slot_kernel(k->slot, &kernel))) return run_per_call(k, bufs, value, stream, err);
  const void *ptrs[PLAN_MAX_OPERANDS];
  for (int o = 0; o < k->num_operands; o++) ptrs[o] = bufs[o].data;
  return ixj__cuda_run_plan(k->device, k->plan, k->slot ? &kernel : NULL, ptrs, value, stream, err);
}

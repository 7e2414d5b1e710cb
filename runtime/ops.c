/* The public operations, warming and emission calls: each one names its mode
 * and backend and hands the call to the one dispatch pipeline (dispatch.c). */
#include <string.h>

#include "dispatch.h"
#include "error.h"
#include "ixjit/ixjit.h"

/* The request is built where the call's fields are, in one initializer: a
 * copy of an op_call just stored field by field was read back in 16-byte
 * pieces, a store-forwarding stall of ~7 ns on every call. */
#define RUN_REQUEST(backend, stream, info, ...) \
  ((dispatch_request){DISPATCH_RUN, (backend), NULL, (op_call){__VA_ARGS__}, false, (stream), (info) != NULL, NULL, 0})

static ixj_status run_op(ixj_context *ctx, const dispatch_request *req, ixj_call_info *info, ixj_error *err) {
  dispatch_result out;
  ixj_status st = ixj__dispatch(ctx, req, &out, err);
  if (info) *info = out.info;
  return st;
}

ixj_status ixj_copy(ixj_context *ctx, const ixj_operand *dst, const ixj_operand *src, size_t elem_size,
                    ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && src);
  dispatch_request req =
      RUN_REQUEST(&ixj__backend_cpu, NULL, info, IXJ_OP_COPY, elem_size, dst, 1, src, NULL, 0, false);
  return run_op(ctx, &req, info, err);
}

ixj_status ixj_fill(ixj_context *ctx, const ixj_operand *dst, const void *value, size_t elem_size,
                    ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst);
  dispatch_request req =
      RUN_REQUEST(&ixj__backend_cpu, NULL, info, IXJ_OP_FILL, elem_size, dst, 0, NULL, value, 0, false);
  return run_op(ctx, &req, info, err);
}

ixj_status ixj_cat(ixj_context *ctx, const ixj_operand *dst, int axis, int num_srcs, const ixj_operand *srcs,
                   size_t elem_size, ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && (srcs || num_srcs == 0));
  dispatch_request req =
      RUN_REQUEST(&ixj__backend_cpu, NULL, info, IXJ_OP_CAT, elem_size, dst, num_srcs, srcs, NULL, axis, false);
  return run_op(ctx, &req, info, err);
}

ixj_status ixj_copy_cuda(ixj_context *ctx, const ixj_operand *dst, const ixj_operand *src, size_t elem_size,
                         void *stream, ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && src);
  dispatch_request req =
      RUN_REQUEST(&ixj__backend_cuda, stream, info, IXJ_OP_COPY, elem_size, dst, 1, src, NULL, 0, false);
  return run_op(ctx, &req, info, err);
}

ixj_status ixj_fill_cuda(ixj_context *ctx, const ixj_operand *dst, const void *value, size_t elem_size, void *stream,
                         ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && value);
  dispatch_request req =
      RUN_REQUEST(&ixj__backend_cuda, stream, info, IXJ_OP_FILL, elem_size, dst, 0, NULL, value, 0, false);
  return run_op(ctx, &req, info, err);
}

ixj_status ixj_cat_cuda(ixj_context *ctx, const ixj_operand *dst, int axis, int num_srcs, const ixj_operand *srcs,
                        size_t elem_size, void *stream, ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && (srcs || num_srcs == 0));
  dispatch_request req =
      RUN_REQUEST(&ixj__backend_cuda, stream, info, IXJ_OP_CAT, elem_size, dst, num_srcs, srcs, NULL, axis, false);
  return run_op(ctx, &req, info, err);
}

static ixj_status warm(ixj_context *ctx, const ixj__backend *backend, const char *arch, ixj_op_kind op,
                       const ixj_ixfun *dst, int num_srcs, const ixj_ixfun *const *srcs, int axis, size_t elem_size,
                       bool aligned, ixj_warm_outcome *outcome, ixj_error *err) {
  dispatch_result out;
  ixj_status st = ixj__dispatch_shapes(ctx, DISPATCH_WARM, backend, arch, op, dst, num_srcs, srcs, axis, elem_size,
                                       aligned, &out, err);
  if (st == IXJ_OK) *outcome = out.outcome;
  return st;
}

ixj_status ixj_warm(ixj_context *ctx, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                    const ixj_ixfun *const *srcs, int axis, size_t elem_size, bool aligned,
                    ixj_warm_outcome *outcome, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && outcome && (srcs || num_srcs == 0));
  return warm(ctx, &ixj__backend_cpu, NULL, op, dst, num_srcs, srcs, axis, elem_size, aligned, outcome, err);
}

ixj_status ixj_warm_cpu(ixj_context *ctx, const char *cpu, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                        const ixj_ixfun *const *srcs, int axis, size_t elem_size, bool aligned,
                        ixj_warm_outcome *outcome, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && cpu && dst && outcome && (srcs || num_srcs == 0));
  return warm(ctx, &ixj__backend_cpu, cpu, op, dst, num_srcs, srcs, axis, elem_size, aligned, outcome, err);
}

ixj_status ixj_warm_cuda(ixj_context *ctx, const char *arch, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, bool aligned,
                         ixj_warm_outcome *outcome, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && arch && dst && outcome && (srcs || num_srcs == 0));
  return warm(ctx, &ixj__backend_cuda, arch, op, dst, num_srcs, srcs, axis, elem_size, aligned, outcome, err);
}

/* Emission plans as if the memory were aligned. *text, *signature and
 * *kernel_name (each optional but text) are the caller's; NULL on error. */
static ixj_status emit(ixj_context *ctx, const ixj__backend *backend, const char *arch, ixj_op_kind op,
                       const ixj_ixfun *dst, int num_srcs, const ixj_ixfun *const *srcs, int axis, size_t elem_size,
                       char **text, char **signature, char **kernel_name, ixj_error *err) {
  dispatch_result out;
  *text = NULL;
  if (signature) *signature = NULL;
  if (kernel_name) *kernel_name = NULL;
  ixj_status st = ixj__dispatch_shapes(ctx, DISPATCH_EMIT, backend, arch, op, dst, num_srcs, srcs, axis, elem_size,
                                       true, &out, err);
  if (st != IXJ_OK) return st;
  char *name = kernel_name ? strdup(out.kernel_name) : NULL;
  if (kernel_name && !name) {
    ixj_free(out.text);
    ixj_free(out.signature);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  *text = out.text;
  if (signature) *signature = out.signature;
  else ixj_free(out.signature);
  if (kernel_name) *kernel_name = name;
  return IXJ_OK;
}

ixj_status ixj_emit_llvm(ixj_context *ctx, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, char **ir, char **signature,
                         ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && ir && (srcs || num_srcs == 0));
  return emit(ctx, &ixj__backend_cpu, NULL, op, dst, num_srcs, srcs, axis, elem_size, ir, signature, NULL, err);
}

ixj_status ixj_emit_cuda(ixj_context *ctx, const char *arch, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, char **source, char **kernel_name,
                         ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && arch && dst && source && (srcs || num_srcs == 0));
  return emit(ctx, &ixj__backend_cuda, arch, op, dst, num_srcs, srcs, axis, elem_size, source, NULL, kernel_name, err);
}

/* The public CUDA calls that are not the device-0 operations of ops.c: the
 * operations on a named device, NVRTC compilation of given CUDA C, device
 * availability and device memory. Thin: the work is in dispatch.c, nvrtc.c
 * and cuda_driver.c. */
#include "backend.h"
#include "cuda_driver.h"
#include "dispatch.h"
#include "error.h"
#include "ixjit/ixjit.h"
#include "nvrtc.h"

static ixj_status run_on(ixj_context *ctx, int device, const op_call *c, void *stream, ixj_call_info *info,
                         ixj_error *err) {
  dispatch_request req = {.mode = DISPATCH_RUN,
                          .backend = &ixj__backend_cuda,
                          .call = *c,
                          .stream = stream,
                          .timed = info != NULL,
                          .device = device};
  dispatch_result out;
  ixj_status st = ixj__dispatch(ctx, &req, &out, err);
  if (info) *info = out.info;
  return st;
}

ixj_status ixj_copy_cuda_device(ixj_context *ctx, int device, const ixj_operand *dst, const ixj_operand *src,
                                size_t elem_size, void *stream, ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && src);
  op_call c = {IXJ_OP_COPY, elem_size, dst, 1, src, NULL, 0, false};
  return run_on(ctx, device, &c, stream, info, err);
}

ixj_status ixj_fill_cuda_device(ixj_context *ctx, int device, const ixj_operand *dst, const void *value,
                                size_t elem_size, void *stream, ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && value);
  op_call c = {IXJ_OP_FILL, elem_size, dst, 0, NULL, value, 0, false};
  return run_on(ctx, device, &c, stream, info, err);
}

ixj_status ixj_cat_cuda_device(ixj_context *ctx, int device, const ixj_operand *dst, int axis, int num_srcs,
                               const ixj_operand *srcs, size_t elem_size, void *stream, ixj_call_info *info,
                               ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && (srcs || num_srcs == 0));
  op_call c = {IXJ_OP_CAT, elem_size, dst, num_srcs, srcs, NULL, axis, false};
  return run_on(ctx, device, &c, stream, info, err);
}

ixj_status ixj_compile_cuda(const char *source, const char *arch, void **binary, size_t *size, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, source && arch && binary && size);
  *binary = NULL;
  ixj_status st = ixj__cuda_parse_arch(arch, true, NULL, NULL, err);
  return st == IXJ_OK ? ixj__nvrtc_compile(source, arch, binary, size, err) : st;
}

ixj_status ixj_cuda_device_available(int device, int *compute_capability, ixj_error *err) {
  int cc = 0;
  ixj_status st = ixj__cuda_device(device, &cc, err);
  if (compute_capability) *compute_capability = st == IXJ_OK ? cc : 0;
  return st;
}

ixj_status ixj_cuda_available(int *compute_capability, ixj_error *err) {
  return ixj_cuda_device_available(0, compute_capability, err);
}

ixj_status ixj_cuda_device_count(int *count, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, count);
  return ixj__cuda_device_count(count, err);
}

ixj_status ixj_cuda_alloc_device(int device, void **ptr, size_t bytes, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ptr);
  return ixj__cuda_alloc(device, ptr, bytes, err);
}

ixj_status ixj_cuda_alloc(void **ptr, size_t bytes, ixj_error *err) { return ixj_cuda_alloc_device(0, ptr, bytes, err); }

void ixj_cuda_free(void *ptr) { ixj__cuda_free(ptr); }

ixj_status ixj_cuda_upload(void *device_dst, const void *host_src, size_t bytes, ixj_error *err) {
  return ixj__cuda_copy_to_device(device_dst, host_src, bytes, err);
}

ixj_status ixj_cuda_download(void *host_dst, const void *device_src, size_t bytes, ixj_error *err) {
  return ixj__cuda_copy_to_host(host_dst, device_src, bytes, err);
}

ixj_status ixj_cuda_synchronize_device(int device, void *stream, ixj_error *err) {
  return ixj__cuda_synchronize(device, stream, err);
}

ixj_status ixj_cuda_synchronize(void *stream, ixj_error *err) { return ixj__cuda_synchronize(0, stream, err); }

/* The public CUDA calls that are not operations: NVRTC compilation of given
 * CUDA C, device availability and device memory. Thin: the work is in
 * nvrtc.c and cuda_driver.c. */
#include "backend.h"
#include "cuda_driver.h"
#include "error.h"
#include "ixjit/ixjit.h"
#include "nvrtc.h"

ixj_status ixj_compile_cuda(const char *source, const char *arch, void **binary, size_t *size, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, source && arch && binary && size);
  *binary = NULL;
  ixj_status st = ixj__cuda_parse_arch(arch, true, NULL, NULL, err);
  return st == IXJ_OK ? ixj__nvrtc_compile(source, arch, binary, size, err) : st;
}

ixj_status ixj_cuda_available(int *compute_capability, ixj_error *err) {
  int cc = 0;
  ixj_status st = ixj__cuda_device(&cc, err);
  if (compute_capability) *compute_capability = st == IXJ_OK ? cc : 0;
  return st;
}

ixj_status ixj_cuda_alloc(void **ptr, size_t bytes, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ptr);
  return ixj__cuda_alloc(ptr, bytes, err);
}

void ixj_cuda_free(void *ptr) { ixj__cuda_free(ptr); }

ixj_status ixj_cuda_upload(void *device_dst, const void *host_src, size_t bytes, ixj_error *err) {
  return ixj__cuda_copy_to_device(device_dst, host_src, bytes, err);
}

ixj_status ixj_cuda_download(void *host_dst, const void *device_src, size_t bytes, ixj_error *err) {
  return ixj__cuda_copy_to_host(host_dst, device_src, bytes, err);
}

ixj_status ixj_cuda_synchronize(void *stream, ixj_error *err) { return ixj__cuda_synchronize(stream, err); }

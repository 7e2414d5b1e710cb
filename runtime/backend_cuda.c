/* The CUDA backend: CUDA C (gen/emit_cuda) compiled by NVRTC (nvrtc.c) to a
 * CUBIN for the exact sm_XY, or to PTX when the GPU is newer than NVRTC
 * knows; loaded and launched through the Driver API (cuda_driver.c) on the
 * device a call names (0 when it names none). Targets named by an
 * architecture compile without a GPU (warming, emission). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "cuda_driver.h"
#include "emit_cuda.h"
#include "error.h"
#include "nvrtc.h"

ixj_status ixj__cuda_parse_arch(const char *arch, bool allow_ptx, int *cc, bool *ptx, ixj_error *err) {
  const char *digits = NULL;
  bool is_ptx = false;
  if (arch && !strncmp(arch, "sm_", 3)) digits = arch + 3;
  else if (arch && allow_ptx && !strncmp(arch, "compute_", 8)) digits = arch + 8, is_ptx = true;
  int v = 0, n = 0;
  for (; digits && digits[n] >= '0' && digits[n] <= '9' && n < 4; n++) v = 10 * v + (digits[n] - '0');
  if (!digits || n == 0 || digits[n] || v < 50 || v > 999)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, allow_ptx ? "CUDA architecture '%s' is not sm_XY or compute_XY"
                                                               : "CUDA architecture '%s' is not of the form sm_XY",
                     arch ? arch : "(null)");
  if (cc) *cc = v;
  if (ptx) *ptx = is_ptx;
  return IXJ_OK;
}

/* Device `device`'s target: its architecture, loadable here. */
static ixj_status cuda_device_target(ixj_context *ctx, int device, ixj__target *out, ixj_error *err) {
  (void)ctx;
  int cc = 0;
  ixj_status st = ixj__cuda_device(device, &cc, err);
  if (st != IXJ_OK) return st;
  *out = (ixj__target){&ixj__backend_cuda, cc, true, "", 0, 0, 0};
  snprintf(out->name, sizeof out->name, "cuda:sm_%d", cc);
  return IXJ_OK;
}

/* A named architecture (built for, never run), else device 0's. */
static ixj_status cuda_target(ixj_context *ctx, const char *arch, ixj__target *out, ixj_error *err) {
  int cc = 0;
  if (!arch) return cuda_device_target(ctx, 0, out, err);
  ixj_status st = ixj__cuda_parse_arch(arch, false, &cc, NULL, err);
  if (st != IXJ_OK) return st;
  *out = (ixj__target){&ixj__backend_cuda, cc, false, "", 0, 0, 0};
  snprintf(out->name, sizeof out->name, "cuda:sm_%d", cc);
  return IXJ_OK;
}

/* What NVRTC compiles for: a CUBIN for exactly this architecture; PTX of the
 * newest one NVRTC knows when the architecture is newer (the driver JITs it). */
static void compile_arch(int cc, char arch[24]) {
  if (ixj__nvrtc_supports(cc)) snprintf(arch, 24, "sm_%d", cc);
  else snprintf(arch, 24, "compute_%d", ixj__nvrtc_newest());
}

static ixj_status cuda_key_inputs(ixj_context *ctx, const ixj__target *t, char *id, size_t id_size, char *toolchain,
                                  size_t toolchain_size, ixj_error *err) {
  (void)ctx;
  char arch[24];
  ixj_status st = ixj__nvrtc_version(toolchain, toolchain_size, err);
  if (st != IXJ_OK) return st;
  compile_arch(t->cc, arch);
  snprintf(id, id_size, "nvrtc-%s", arch);
  return IXJ_OK;
}

static ixj_status cuda_emit(const ixj_plan *p, const char *name, const char *signature, char **text, ixj_error *err) {
  return ixj__emit_cuda(p, name, signature, CUDA_DIV_MAGIC, text, err);
}

static ixj_status cuda_compile(ixj_context *ctx, const ixj__target *t, const char *text, void **image, size_t *size,
                               ixj_error *err) {
  (void)ctx;
  char arch[24];
  compile_arch(t->cc, arch);
  return ixj__nvrtc_compile(text, arch, image, size, err);
}

static ixj_status cuda_load(ixj_context *ctx, const void *image, size_t size, const char *name, kernel_ref *kernel,
                            ixj_error *err) {
  (void)ctx;
  (void)size; /* CUBIN and PTX carry their own length */
  return ixj__cuda_load_kernel(image, name, &kernel->handle, err);
}

ixj_status ixj__cuda_run_plan(int device, const ixj_plan *p, const kernel_ref *kernel, const void *const *ptrs,
                              const void *fill_value, void *stream, ixj_error *err) {
  if (!kernel) {
    IXJ_ASSERT(err, p->strategy == PLAN_MEMCPY && p->op == IXJ_OP_COPY);
    size_t e = p->elem_size;
    return ixj__cuda_memcpy_dtod(device, (char *)ptrs[0] + p->operand[0].runtime_offset * (int64_t)e,
                                 (const char *)ptrs[1] + p->operand[1].runtime_offset * (int64_t)e,
                                 (size_t)p->count * e, stream, err);
  }
  /* zeroed: the bytes past `used` are never stack garbage, so a launch's
   * block depends on the plan and pointers alone (unit_cuda_device compares
   * a prepared kernel's with the per-call path's) */
  unsigned char args[CUDA_ARGS_MAX_BYTES] = {0};
  size_t used;
  ixj_status st = ixj__cuda_pack_args(p, ptrs, fill_value, NULL, args, sizeof args, &used, err);
  /* as many launches as the driver's limit on blocks needs */
  uint64_t per_launch = ixj__cuda_units_per_launch(p, 0);
  for (uint64_t b = 0; st == IXJ_OK && b < p->work_units; b += per_launch) {
    uint64_t e = b + per_launch < p->work_units ? b + per_launch : p->work_units;
    unsigned blocks, bx, by;
    ixj__cuda_launch_shape(p, e - b, &blocks, &bx, &by);
    st = ixj__cuda_launch(device, kernel->handle, blocks, bx, by, args, (long long)b, (long long)e, stream, err);
  }
  return st;
}

static ixj_status cuda_device_launch(ixj_context *ctx, int device, const ixj_plan *p, const kernel_ref *kernel,
                                     const void *const *ptrs, const void *fill_value, void *stream, double *run_ms,
                                     ixj_error *err) {
  (void)ctx;
  *run_ms = 0; /* asynchronous: the kernel time is the stream's */
  return ixj__cuda_run_plan(device, p, kernel, ptrs, fill_value, stream, err);
}

static ixj_status cuda_launch(ixj_context *ctx, const ixj_plan *p, const kernel_ref *kernel, const void *const *ptrs,
                              const void *fill_value, void *stream, double *run_ms, ixj_error *err) {
  return cuda_device_launch(ctx, 0, p, kernel, ptrs, fill_value, stream, run_ms, err);
}

const ixj__backend ixj__backend_cuda = {
    .name = "cuda",
    .gpu = true,
    .comment = "// ",
    .memcpy_by = " (cuMemcpy)",
    .target = cuda_target,
    .key_inputs = cuda_key_inputs,
    .emit = cuda_emit,
    .compile = cuda_compile,
    .load = cuda_load,
    .launch = cuda_launch,
    .device_target = cuda_device_target,
    .device_launch = cuda_device_launch,
};

/* Internal: one interface for every backend (a method table, SQLite-VFS
 * style). The dispatcher (dispatch.c) is written once against it; a backend
 * says how to name its target, key its disk entries, emit, compile, load and
 * launch, and nothing else. Two backends exist: the CPU (LLVM ORC JIT and the
 * thread pool, backend_cpu.c) and CUDA (NVRTC and the Driver API,
 * backend_cuda.c).
 *
 * Every method may be called from many threads at once. What a method returns
 * through a pointer is the caller's unless said otherwise; inputs are only
 * read. */
#ifndef IXJIT_RUNTIME_BACKEND_H
#define IXJIT_RUNTIME_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "cache.h"
#include "ixjit/context.h"
#include "plan.h"

typedef struct ixj__backend ixj__backend;

/* What kernels are built for: one backend and, for CUDA, one architecture. */
typedef struct ixj__target {
  const ixj__backend *backend;
  int cc;        /* CUDA: compute capability, 10 * major + minor; CPU: 0 */
  bool loadable; /* its kernels can be loaded and run in this process */
  char name[64]; /* the target string every signature ends with: "cpu:NAME:HASH", "cuda:sm_90" */
  int cpu_vector_bytes; /* CPU: the widest vector register (64 with AVX-512, else 32); CUDA: 0 */
  int cpu_asm_regs;     /* CPU: the vector registers inline-asm shuffles may use (0: none); CUDA: 0 */
  int cpu_zen; /* CPU: plan_request.cpu_zen; CUDA: 0 */
} ixj__target;

struct ixj__backend {
  const char *name;      /* "cpu", "cuda" */
  bool gpu;              /* plans for it use GPU vectors and shared-memory tiles */
  const char *comment;   /* starts a comment line of its kernel text: "; " (LLVM IR), "// " (CUDA C) */
  const char *memcpy_by; /* how a plan without a kernel runs, for emission's note ("" or " (cuMemcpy)") */

  /* The target. arch NULL: this process's own (the host CPU; CUDA device 0,
   * IXJ_ERR_UNAVAILABLE without one); else an architecture to build for
   * without running ("sm_90"; IXJ_ERR_INVALID_ARGUMENT when malformed or for
   * a backend that takes none). */
  ixj_status (*target)(ixj_context *ctx, const char *arch, ixj__target *out, ixj_error *err);
  /* The disk-cache key inputs besides the signature: the backend's id (it
   * names the kind of image, e.g. "llvm-object", "nvrtc-sm_90") and the
   * toolchain's version ("LLVM 19.1.7", "NVRTC 13.0"), NUL-terminated into
   * the caller's buffers. */
  ixj_status (*key_inputs)(ixj_context *ctx, const ixj__target *t, char *id, size_t id_size, char *toolchain,
                           size_t toolchain_size, ixj_error *err);
  /* The kernel's source text for a plan with a kernel: *text malloc'ed. */
  ixj_status (*emit)(const ixj_plan *p, const char *name, const char *signature, char **text, ixj_error *err);
  /* Source text -> image (object code, CUBIN or PTX): *image malloc'ed. */
  ixj_status (*compile)(ixj_context *ctx, const ixj__target *t, const char *text, void **image, size_t *size,
                        ixj_error *err);
  /* Image -> the loaded kernel `name`, valid as long as the context. */
  ixj_status (*load)(ixj_context *ctx, const void *image, size_t size, const char *name, kernel_ref *kernel,
                     ixj_error *err);
  /* Runs a plan: kernel NULL for a plan without one (MEMCPY). ptrs are the
   * operands' data pointers (dst, then the sources; fill: dst only), their
   * runtime offsets are the plan's, fill_value is the fill's element (else
   * NULL). stream: CUDA's (NULL: the default one); the CPU runs on the
   * context's pool and returns when done. *run_ms: the kernel time on the
   * CPU; 0 on CUDA (launches are asynchronous). */
  ixj_status (*launch)(ixj_context *ctx, const ixj_plan *p, const kernel_ref *kernel, const void *const *ptrs,
                       const void *fill_value, void *stream, double *run_ms, ixj_error *err);
  /* Backends with several devices (CUDA; NULL elsewhere): target and launch
   * as above on device `device` (an index as the driver counts them);
   * target(arch NULL) and launch are these for device 0. */
  ixj_status (*device_target)(ixj_context *ctx, int device, ixj__target *out, ixj_error *err);
  ixj_status (*device_launch)(ixj_context *ctx, int device, const ixj_plan *p, const kernel_ref *kernel,
                              const void *const *ptrs, const void *fill_value, void *stream, double *run_ms,
                              ixj_error *err);
};

extern const ixj__backend ixj__backend_cpu;

/* The CPU launch without a plan, for calls that skip planning (the fast
 * path, call_cache.h): what it needs of the plan in d, the runtime offsets in
 * offs (one per operand), run_ms NULL to skip the clock. The CPU backend's
 * launch is this with the plan's own. */
struct cpu_launch_desc;
ixj_status ixj__cpu_run(ixj_context *ctx, const struct cpu_launch_desc *d, const kernel_ref *kernel,
                        const void *const *ptrs, const int64_t *offs, const void *fill_value, double *run_ms,
                        ixj_error *err);
void ixj__cpu_launch_desc(const ixj_plan *p, struct cpu_launch_desc *d);
extern const ixj__backend ixj__backend_cuda;

/* The one parser of CUDA architecture names: "sm_XY" (and with allow_ptx
 * "compute_XY") for 50 <= XY <= 999, digits only. *cc gets XY, *ptx whether
 * it named PTX (either may be NULL). IXJ_ERR_INVALID_ARGUMENT otherwise. */
ixj_status ixj__cuda_parse_arch(const char *arch, bool allow_ptx, int *cc, bool *ptx, ixj_error *err);
/* Launches a CUDA plan on device `device`'s stream (kernel NULL: a MEMCPY
 * plan, cuMemcpyDtoDAsync): the CUDA backend's launch, and prepared CUDA
 * kernels' (kernel_cuda.c). */
ixj_status ixj__cuda_run_plan(int device, const ixj_plan *p, const kernel_ref *kernel, const void *const *ptrs,
                              const void *fill_value, void *stream, ixj_error *err);

#endif

/* ixjit — CUDA C emission and NVRTC compilation (no GPU needed).
 *
 * NVRTC is loaded at run time (libnvrtc.so.13, then .12); without it these
 * calls return an error and everything else keeps working. */
#ifndef IXJIT_CUDA_H
#define IXJIT_CUDA_H

#include <stddef.h>

#include "ixjit/context.h"
#include "ixjit/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CUDA C ixjit would compile for an operation on GPUs of compute
 * capability `arch` ("sm_90"): *source and *kernel_name are malloc'ed. The
 * operands are assumed 16-byte aligned (which selects vector accesses). */
ixj_status ixj_emit_cuda(ixj_context *ctx, const char *arch, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, char **source, char **kernel_name,
                         ixj_error *err);
/* Compiles CUDA C with NVRTC: arch "sm_XY" gives a CUBIN for exactly that
 * architecture, "compute_XY" gives PTX (NUL-terminated). *binary is malloc'ed. */
ixj_status ixj_compile_cuda(const char *source, const char *arch, void **binary, size_t *size, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif

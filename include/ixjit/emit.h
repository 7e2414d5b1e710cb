/* ixjit — emission and warming: the calls that need index functions but no
 * buffers.
 *
 * They validate and plan an operation as ops.h does (shapes, element size,
 * cat axis and inputs, a destination that maps distinct points to distinct
 * offsets) but, having no memory, check no buffer bounds or overlap. They
 * show the kernel ixjit would run (LLVM IR, CUDA C), compile CUDA C, or
 * compile a kernel into the disk cache ahead of time (what `ixjit warm`
 * does). NVRTC is loaded at run time (libnvrtc.so.13, then .12): the CUDA
 * calls need no GPU, and without NVRTC they fail cleanly while everything
 * else keeps working. All are safe to call from many threads on one context.
 *
 * srcs holds num_srcs index functions: 1 for copy, 0 for fill (srcs may be
 * NULL), 1..IXJ_MAX_CAT_INPUTS for cat; axis is read for cat only. Besides
 * NO_MEMORY and INVALID_ARGUMENT for NULL pointers, each call returns the
 * planning errors: IXJ_ERR_INVALID_ARGUMENT (element size, cat axis or
 * input count, a destination that may map two points to one offset),
 * IXJ_ERR_MISMATCH (shapes), IXJ_ERR_OVERFLOW (cat extents),
 * IXJ_ERR_INTERNAL (a bug in planning or emission); and those listed with
 * it. The checks run in the order ixj_copy, ixj_fill and ixj_cat run them,
 * so that a preparation and a call fail alike: a destination that may map
 * two points to one offset is reported before a source's shape. */
#ifndef IXJIT_EMIT_H
#define IXJIT_EMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "ixjit/context.h"
#include "ixjit/ixfun.h"
#include "ixjit/ops.h"
#include "ixjit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the CPU (LLVM) ----------------------------------------------------- */

/* The LLVM IR ixjit would compile for an operation on this context's CPU
 * (no JIT; alignment is assumed). For a plan that needs no kernel (memcpy,
 * empty) *ir is a short comment naming the strategy. *ir and, when signature
 * is not NULL, *signature (the text the kernel caches key on) are the
 * caller's: free them with ixj_free. On error both are NULL. */
IXJ_API ixj_status ixj_emit_llvm(ixj_context *ctx, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, char **ir, char **signature,
                         ixj_error *err);

/* What ixj_warm or ixj_warm_cuda did. */
typedef enum ixj_warm_outcome {
  IXJ_WARM_PRESENT,  /* already in memory or on disk */
  IXJ_WARM_COMPILED, /* compiled and written to disk */
  IXJ_WARM_NO_KERNEL /* the plan needs no kernel (memcpy, empty) */
} ixj_warm_outcome;

/* Compiles an operation's kernel into the context's cache (memory, then
 * disk) without running it: what `ixjit warm` does. `aligned` says whether
 * the operands' memory will be 32-byte aligned (it selects the vector width,
 * so it is part of the signature). *outcome is set on success.
 *   IXJ_ERR_INVALID_ARGUMENT  the context's disk cache is off;
 *   IXJ_ERR_IO                the kernel cannot be written to the cache directory;
 *   IXJ_ERR_LIMIT             it was written, but its entry is larger than the cache's size limit
 *                             (cache_max_bytes, IXJIT_CACHE_MAX_BYTES), so eviction removed it;
 *   IXJ_ERR_BACKEND           LLVM could not compile the kernel. */
IXJ_API ixj_status ixj_warm(ixj_context *ctx, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                    const ixj_ixfun *const *srcs, int axis, size_t elem_size, bool aligned,
                    ixj_warm_outcome *outcome, ixj_error *err);
/* As ixj_warm, for another x86-64 CPU (what `ixjit warm --target
 * cpu:NAME[+FEATURES]` does, so one machine fills a cache for a fleet of
 * another kind): cpu is "NAME" (an LLVM CPU name: znver3, skylake-avx512,
 * x86-64-v3, ...; LLVM's own features for it) or "NAME+F,F,..." (the whole
 * list of enabled features, each a name or +name, -name; every one left out
 * is off but the x86-64 baseline: 64bit, cmov, cx8, fxsr, mmx, sse, sse2). The kernel is compiled for that CPU and written to disk, never
 * loaded here; a context loads it only on a host whose CPU name and enabled
 * features are exactly these (ixj_version_get's host_cpu names a host that
 * way). NAME alone names no host: such entries are never loaded. A cpu that
 * is this host is the same as ixj_warm. Besides ixj_warm's errors:
 *   IXJ_ERR_INVALID_ARGUMENT  an unknown CPU name or feature, a host that is not x86-64;
 *   IXJ_ERR_LIMIT             more than 32 other CPUs in one context. */
IXJ_API ixj_status ixj_warm_cpu(ixj_context *ctx, const char *cpu, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                                const ixj_ixfun *const *srcs, int axis, size_t elem_size, bool aligned,
                                ixj_warm_outcome *outcome, ixj_error *err);

/* ---- CUDA (NVRTC; no GPU needed) ---------------------------------------- */

/* The CUDA C ixjit would compile for an operation on GPUs of compute
 * capability `arch` ("sm_90"). The operands are assumed 16-byte aligned
 * (which selects vector accesses). For a plan that needs no kernel *source is
 * a comment naming the strategy. *source and, when kernel_name is not NULL,
 * *kernel_name (the __global__ function's name) are the caller's: free them
 * with ixj_free. On error both are NULL.
 *   IXJ_ERR_INVALID_ARGUMENT  arch is not "sm_XY" (XY from 50). */
IXJ_API ixj_status ixj_emit_cuda(ixj_context *ctx, const char *arch, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, char **source, char **kernel_name,
                         ixj_error *err);
/* Compiles CUDA C with NVRTC: arch "sm_XY" gives a CUBIN for exactly that
 * architecture, "compute_XY" gives PTX (NUL-terminated; *size excludes the
 * NUL). *binary is the caller's: free it with ixj_free.
 *   IXJ_ERR_INVALID_ARGUMENT  arch is neither "sm_XY" nor "compute_XY";
 *   IXJ_ERR_UNAVAILABLE       no NVRTC library;
 *   IXJ_ERR_BACKEND           NVRTC rejected the source (its log in the message). */
IXJ_API ixj_status ixj_compile_cuda(const char *source, const char *arch, void **binary, size_t *size, ixj_error *err);
/* Compiles an operation's kernel for GPUs of `arch` ("sm_90") into the disk
 * cache without a GPU (what `ixjit warm --target cuda:sm_90` does): a CUBIN,
 * or PTX when NVRTC does not know arch. *outcome is set on success.
 *   IXJ_ERR_INVALID_ARGUMENT  arch is not "sm_XY", or the context's disk cache is off;
 *   IXJ_ERR_UNAVAILABLE       no NVRTC library;
 *   IXJ_ERR_BACKEND           NVRTC could not compile the kernel;
 *   IXJ_ERR_IO                the image cannot be written to the cache directory. */
IXJ_API ixj_status ixj_warm_cuda(ixj_context *ctx, const char *arch, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, bool aligned,
                         ixj_warm_outcome *outcome, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif

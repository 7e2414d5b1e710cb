/* ixjit — prepared kernels (CPU): plan and compile an operation once for its
 * index functions, then run it on many buffers with only the buffer checks
 * and the launch, in the plan/primitive style of cuTT, HPTT and oneDNN.
 *
 *   ixj_kernel *k;
 *   ixj_prepare_copy(ctx, dst_ixfun, src_ixfun, sizeof(float), 0, &k, &err);
 *   ixj_buffer d = {out, out_bytes}, s = {in, in_bytes};
 *   ixj_kernel_run(k, d, 1, &s, NULL, &err);   // any number of times, from any threads
 *   ixj_kernel_release(k);
 *
 * Ownership: a kernel keeps its own copies of the index functions (they may
 * be freed once prepare returns) and borrows its context, which must outlive
 * it: release every kernel before ixj_context_destroy. A kernel is immutable
 * to its users and safe to run from many threads at once, on distinct or the
 * same source buffers (the destinations must not be written by two runs at
 * once, as for any ixj_copy). */
#ifndef IXJIT_KERNEL_H
#define IXJIT_KERNEL_H

#include <stddef.h>

#include "ixjit/context.h"
#include "ixjit/ixfun.h"
#include "ixjit/ops.h"
#include "ixjit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ixj_kernel ixj_kernel;

/* One operand's memory at run time: element offset 0 and the buffer's size. */
typedef struct ixj_buffer {
  void *data;
  size_t size_bytes;
} ixj_buffer;

/* No flags are defined yet: pass 0 (anything else is IXJ_ERR_INVALID_ARGUMENT). */
#define IXJ_PREPARE_DEFAULT 0u

/* Prepare: the checks of ixj_copy, ixj_fill and ixj_cat that do not need
 * buffers (element size, shapes, cat's axis and extents, a destination that
 * maps distinct points to distinct offsets), the plan for buffers aligned to
 * 64 bytes and its kernel, compiled (or found in the caches) now. *out is
 * NULL on error. Errors: those operations' (ops.h) but the buffer ones;
 * IXJ_ERR_INVALID_ARGUMENT also for a NULL ctx, index function or out, and
 * unknown flags. */
IXJ_API ixj_status ixj_prepare_copy(ixj_context *ctx, const ixj_ixfun *dst, const ixj_ixfun *src, size_t elem_size,
                                    unsigned flags, ixj_kernel **out, ixj_error *err);
IXJ_API ixj_status ixj_prepare_fill(ixj_context *ctx, const ixj_ixfun *dst, size_t elem_size, unsigned flags,
                                    ixj_kernel **out, ixj_error *err);
IXJ_API ixj_status ixj_prepare_cat(ixj_context *ctx, const ixj_ixfun *dst, int axis, int num_srcs,
                                   const ixj_ixfun *const *srcs, size_t elem_size, unsigned flags, ixj_kernel **out,
                                   ixj_error *err);

/* Runs a prepared kernel: dst, then num_srcs sources (copy: 1, cat: the
 * prepared count, fill: 0 with srcs NULL) and, for a fill, the element at
 * value (else NULL). Checks only the buffers, as ixj_copy does (every
 * reachable offset inside its buffer, no source or fill value overlapping the
 * destination, no NULL data for a non-empty operand), then launches on the
 * context's pool and returns when done. Buffers not aligned as prepared get a
 * plan of their own, made (and compiled, when the caches lack it) on their
 * first run and kept with the kernel. Errors:
 *   IXJ_ERR_INVALID_ARGUMENT  NULL kernel; num_srcs, srcs or value not as
 *                             the operation needs; NULL data; overlap;
 *   IXJ_ERR_OUT_OF_RANGE      a buffer too small for its index function;
 *   IXJ_ERR_NO_MEMORY, IXJ_ERR_BACKEND   only when a plan of its own is made.
 * On any error nothing is written. */
IXJ_API ixj_status ixj_kernel_run(const ixj_kernel *kernel, ixj_buffer dst, int num_srcs, const ixj_buffer *srcs,
                                  const void *value, ixj_error *err);

/* Frees the kernel (NULL is fine); no run of it may be in progress. */
IXJ_API void ixj_kernel_release(ixj_kernel *kernel);

#ifdef __cplusplus
}
#endif
#endif

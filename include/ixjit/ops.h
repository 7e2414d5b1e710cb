/* ixjit — operations on strided memory: copy, fill, concatenate (CPU).
 *
 * Each operand is a buffer (pointer and size in bytes) viewed through an index
 * function in elements of elem_size bytes (1, 2, 4, 8 or 16; bytes are moved,
 * the type does not matter). Before anything runs: shapes agree, every
 * operand's reachable offsets lie inside its buffer, the destination maps
 * distinct points to distinct offsets, and no source overlaps the
 * destination. Nothing is ever written outside the destination, and on any
 * error nothing is written at all.
 *
 * The same operations elsewhere: the reference interpreter in reference.h,
 * CUDA device memory in cuda.h, DLPack tensors in dlpack.h; the kernel text
 * and offline compiling (no buffers needed) in emit.h. */
#ifndef IXJIT_OPS_H
#define IXJIT_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ixjit/ixfun.h"
#include "ixjit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IXJ_MAX_CAT_INPUTS 64

typedef enum ixj_op_kind { IXJ_OP_COPY, IXJ_OP_FILL, IXJ_OP_CAT } ixj_op_kind;

/* Only read by the call; data and ixfun must stay valid until it returns. */
typedef struct ixj_operand {
  void *data;          /* element offset 0 */
  size_t size_bytes;   /* the buffer: offsets must lie in [0, size_bytes / elem_size) */
  const ixj_ixfun *ixfun;
} ixj_operand;

/* What a call did (optional out-parameter, filled on success and failure). */
typedef struct ixj_call_info {
  bool cache_hit;      /* the kernel was in memory (or another thread had just made it) */
  bool disk_hit;       /* the kernel was loaded from the disk cache */
  double compile_ms;   /* time spent compiling or loading (0 on a memory hit) */
  double run_ms;       /* kernel time */
  /* "memcpy", "inner_contiguous", "tiled", "general", "empty": a static
   * string, valid forever; never free it. */
  const char *strategy;
  bool generic;        /* the generic kernel ran: the call's own was not ready (IXJ_COMPILE_ASYNC, CACHE_ONLY) */
  /* the call was served by the per-call fast path: no planning (a CPU copy,
   * fill or cat of up to 8 inputs, single-LMAD operands, whose shapes and
   * alignments an earlier call had; docs/hot-path.md) */
  bool fast_path;
} ixj_call_info;

typedef struct ixj_context ixj_context;

/* The errors of the three operations (besides NO_MEMORY and a NULL ctx, dst
 * or src, which give INVALID_ARGUMENT):
 *   IXJ_ERR_INVALID_ARGUMENT  elem_size not 1, 2, 4, 8 or 16; a non-empty
 *                             operand with NULL data; fill's NULL value;
 *                             cat's num_srcs outside 1..IXJ_MAX_CAT_INPUTS
 *                             or axis outside the rank; a destination that
 *                             may map two points to one offset; a source or
 *                             the fill value overlapping the destination;
 *   IXJ_ERR_OUT_OF_RANGE      an operand reaches an offset outside its buffer;
 *   IXJ_ERR_MISMATCH          shapes differ (cat: outside axis, or the
 *                             extents along axis do not add up to dst's);
 *   IXJ_ERR_OVERFLOW          cat's extents overflow;
 *   IXJ_ERR_BACKEND           LLVM could not compile or link the kernel;
 *   IXJ_ERR_INTERNAL          a bug in planning or emission.
 * The disk cache never makes them fail (see IXJ_ERR_IO in status.h). */

/* dst[dst(i)] = src[src(i)] for every logical point i; equal shapes. */
IXJ_API ixj_status ixj_copy(ixj_context *ctx, const ixj_operand *dst, const ixj_operand *src, size_t elem_size,
                    ixj_call_info *info, ixj_error *err);
/* Every point of dst gets the elem_size bytes at value. */
IXJ_API ixj_status ixj_fill(ixj_context *ctx, const ixj_operand *dst, const void *value, size_t elem_size,
                    ixj_call_info *info, ixj_error *err);
/* Concatenation along axis: the inputs' shapes equal dst's except along axis,
 * where their extents add up to dst's. One launch for all inputs. */
IXJ_API ixj_status ixj_cat(ixj_context *ctx, const ixj_operand *dst, int axis, int num_srcs, const ixj_operand *srcs,
                   size_t elem_size, ixj_call_info *info, ixj_error *err);

#ifdef __cplusplus
}
#endif

/* The reference interpreter was declared here before it got its own header;
 * code written then (runtime/reference.c among it) still finds it here. */
#include "ixjit/reference.h"

#endif

/* ixjit — operations on strided memory: copy, fill, concatenate.
 *
 * Each operand is a buffer (pointer and size in bytes) viewed through an index
 * function in elements of elem_size bytes (1, 2, 4, 8 or 16; bytes are moved,
 * the type does not matter). Before anything runs: shapes agree, every
 * operand's reachable offsets lie inside its buffer, the destination maps
 * distinct points to distinct offsets, and no source overlaps the
 * destination. Nothing is ever written outside the destination. */
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

typedef struct ixj_operand {
  void *data;          /* element offset 0 */
  size_t size_bytes;   /* the buffer: offsets must lie in [0, size_bytes / elem_size) */
  const ixj_ixfun *ixfun;
} ixj_operand;

/* What a call did (optional out-parameter). */
typedef struct ixj_call_info {
  bool cache_hit;      /* the kernel was in memory (or another thread had just made it) */
  bool disk_hit;       /* the kernel was loaded from the disk cache */
  double compile_ms;   /* time spent compiling or loading (0 on a memory hit) */
  double run_ms;       /* kernel time */
  const char *strategy; /* "memcpy", "inner_contiguous", "tiled", "general", "empty" */
} ixj_call_info;

typedef struct ixj_context ixj_context;

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

/* The same operations by the reference interpreter (one point at a time,
 * no JIT): the oracle of the tests and of `ixjit run --check`. Same checks. */
IXJ_API ixj_status ixj_reference_copy(const ixj_operand *dst, const ixj_operand *src, size_t elem_size, ixj_error *err);
IXJ_API ixj_status ixj_reference_fill(const ixj_operand *dst, const void *value, size_t elem_size, ixj_error *err);
IXJ_API ixj_status ixj_reference_cat(const ixj_operand *dst, int axis, int num_srcs, const ixj_operand *srcs,
                             size_t elem_size, ixj_error *err);

/* The LLVM IR ixjit would compile for an operation (no JIT, no pointers:
 * alignment is assumed). srcs: 1 for copy, 0 for fill, num_srcs for cat.
 * *ir is malloc'ed; *signature (optional) too. */
IXJ_API ixj_status ixj_emit_llvm(ixj_context *ctx, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, char **ir, char **signature,
                         ixj_error *err);

/* Compiles an operation's kernel into the cache (memory, then disk) without
 * running it: what `ixjit warm` does. `aligned` says whether the operands'
 * memory will be 32-byte aligned (it selects the vector width). */
typedef enum ixj_warm_outcome {
  IXJ_WARM_PRESENT,  /* already in memory or on disk */
  IXJ_WARM_COMPILED, /* compiled and written to disk */
  IXJ_WARM_NO_KERNEL /* the plan needs no kernel (memcpy, empty) */
} ixj_warm_outcome;
IXJ_API ixj_status ixj_warm(ixj_context *ctx, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                    const ixj_ixfun *const *srcs, int axis, size_t elem_size, bool aligned,
                    ixj_warm_outcome *outcome, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif

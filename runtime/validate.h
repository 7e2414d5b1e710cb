/* Internal: the checks every operation passes before anything runs. */
#ifndef IXJIT_RUNTIME_VALIDATE_H
#define IXJIT_RUNTIME_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "ixjit/kernel.h"
#include "ixjit/ops.h"

typedef struct op_call {
  ixj_op_kind op;
  size_t elem_size;
  const ixj_operand *dst;
  int num_srcs;
  const ixj_operand *srcs; /* copy: 1, cat: num_srcs */
  const void *value;       /* fill */
  int axis;                /* cat */
  bool shapes_only;        /* emission without buffers: skip the memory checks */
} op_call;

/* Element size, shapes, buffer bounds, a destination that maps distinct points
 * to distinct offsets, and no source (or fill value) overlapping it. */
ixj_status ixj__op_validate(const op_call *c, ixj_error *err);

/* The checks of a prepared kernel (CPU or CUDA), which has no buffers yet:
 * its arguments and flags, ixj__op_validate's shape checks, and a destination
 * that maps distinct points to distinct offsets. */
ixj_status ixj__prepare_validate(ixj_op_kind op, const ixj_ixfun *dst, int num_srcs, const ixj_ixfun *const *srcs,
                                 int axis, size_t elem_size, unsigned flags, ixj_error *err);

/* A prepared operand's reachable bytes [lo, end) from its buffer's start. */
typedef struct operand_range {
  bool empty;
  uint64_t lo, end;
} operand_range;

/* The range of operand o (0: the destination) of index function f, or
 * IXJ_ERR_OUT_OF_RANGE when no buffer can hold it. */
ixj_status ixj__operand_range(const ixj_ixfun *f, size_t elem_size, int o, operand_range *out, ixj_error *err);

/* The checks of a prepared kernel's run (CPU or CUDA): the sources and fill
 * value it takes, each buffer present, large enough and not wrapping the
 * address space, no source overlapping the destination. bufs[] gets dst then
 * the sources. */
ixj_status ixj__prepared_run_check(ixj_op_kind op, int num_srcs_expected, const operand_range *range, ixj_buffer dst,
                                   int num_srcs, const ixj_buffer *srcs, const void *value, ixj_buffer *bufs,
                                   uintptr_t *dlo, uintptr_t *dhi, ixj_error *err);

#endif

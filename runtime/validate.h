/* Internal: the checks every operation passes before anything runs. */
#ifndef IXJIT_RUNTIME_VALIDATE_H
#define IXJIT_RUNTIME_VALIDATE_H

#include <stdbool.h>

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

#endif

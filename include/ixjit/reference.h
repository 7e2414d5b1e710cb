/* ixjit — the reference interpreter: copy, fill and cat one point at a time.
 *
 * No JIT, no context, no threads: each point goes through ixj_ixfun_index.
 * Slow and obviously right; the oracle of the tests and of `ixjit run
 * --check`. The checks before anything runs, and so the errors, are those of
 * the operations in ops.h (without IXJ_ERR_BACKEND): an invalid call writes
 * nothing. Safe to call from many threads on distinct destinations. */
#ifndef IXJIT_REFERENCE_H
#define IXJIT_REFERENCE_H

#include <stddef.h>

#include "ixjit/ops.h"
#include "ixjit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst[dst(i)] = src[src(i)] for every logical point i, as ixj_copy. */
IXJ_API ixj_status ixj_reference_copy(const ixj_operand *dst, const ixj_operand *src, size_t elem_size, ixj_error *err);
/* Every point of dst gets the elem_size bytes at value, as ixj_fill. */
IXJ_API ixj_status ixj_reference_fill(const ixj_operand *dst, const void *value, size_t elem_size, ixj_error *err);
/* Concatenation along axis, as ixj_cat. */
IXJ_API ixj_status ixj_reference_cat(const ixj_operand *dst, int axis, int num_srcs, const ixj_operand *srcs,
                             size_t elem_size, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif

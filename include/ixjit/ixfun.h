/* ixjit — concrete index functions (Futhark-style chains of LMADs).
 *
 * An index function maps every point of a logical index space (its shape) to
 * a flat element offset. It is a chain of LMADs, head first: the head is the
 * one the user indexes, the last one is nearest memory. An LMAD is an offset
 * plus, per dimension, a stride, a rotation and an extent, stored in physical
 * order with a permutation: logical dim k is physical dim perm[k]. A point is
 *
 *     offset + sum_j ((i_j + rotate_j) mod shape_j) * stride_j   (physical j)
 *
 * and the flat value of one LMAD is unflattened (row-major) by the logical
 * shape of the next one. The base is the shape of the row-major array the
 * function was first built over.
 *
 * Semantics are the algebraic ones: every operation transforms the "array of
 * offsets" exactly as NumPy's transpose, roll, basic slicing, reshape (order C)
 * and broadcast_to would. Handles are immutable: every operation returns a new
 * index function, so a handle may be shared by many threads.
 *
 * Every call that makes an index function puts it in *out (NULL on error);
 * it is the caller's, freed with ixj_ixfun_free. Their errors: the inputs'
 * own faults, IXJ_ERR_INVALID_ARGUMENT (a permutation that is not one, a
 * negative extent, a reshape whose element counts differ), IXJ_ERR_OUT_OF_RANGE
 * (a slice, index or rebase outside its dim or base), IXJ_ERR_OVERFLOW (an
 * offset, extent or stride beyond 64 bits), IXJ_ERR_LIMIT (more than
 * IXJ_MAX_RANK dims or IXJ_MAX_LMADS LMADs), IXJ_ERR_MISMATCH where named
 * below, and IXJ_ERR_NO_MEMORY. */
#ifndef IXJIT_IXFUN_H
#define IXJIT_IXFUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ixjit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IXJ_MAX_RANK 16   /* dims per LMAD */
#define IXJ_MAX_LMADS 64  /* LMADs per index function */

typedef struct ixj_ixfun ixj_ixfun;

/* One LMAD, as stored (physical order). Rotations are kept reduced into
 * [0, shape) and are 0 on dims of stride 0 or extent <= 1. */
typedef struct ixj_lmad {
  int64_t offset;
  int rank;
  int64_t stride[IXJ_MAX_RANK];
  int64_t rotate[IXJ_MAX_RANK];
  int64_t shape[IXJ_MAX_RANK];
  int perm[IXJ_MAX_RANK];
} ixj_lmad;

typedef enum ixj_monotonicity {
  IXJ_MONO_UNKNOWN = 0,
  IXJ_MONO_INC,
  IXJ_MONO_DEC
} ixj_monotonicity;

/* ---- construction ---------------------------------------------------- */

/* Row-major array of `shape` whose first element is at `offset`. */
IXJ_API ixj_status ixj_ixfun_iota(int rank, const int64_t *shape, int64_t offset,
                          ixj_ixfun **out, ixj_error *err);
/* One LMAD given DLPack/NumPy style: strides in elements, negative and zero
 * allowed. Its base is `shape` when the strides are row-major, otherwise the
 * one-dimensional buffer [max offset + 1] that holds every point. */
IXJ_API ixj_status ixj_ixfun_strided(int rank, const int64_t *shape, const int64_t *strides,
                             int64_t offset, ixj_ixfun **out, ixj_error *err);
/* A chain given literally (head first), validated: permutations, extents,
 * overflow, and every LMAD's offsets inside the next one's index space. When
 * the ranges propagated link by link are too loose to show that, the points
 * are visited once (and the exact range they reach is kept on the handle):
 * at most 2^20 LMAD evaluations (points x LMADs), IXJ_ERR_LIMIT beyond, so
 * no chain takes more than some tens of milliseconds. */
IXJ_API ixj_status ixj_ixfun_from_lmads(int count, const ixj_lmad *lmads, int base_rank,
                                const int64_t *base, ixj_ixfun **out, ixj_error *err);
IXJ_API ixj_status ixj_ixfun_clone(const ixj_ixfun *f, ixj_ixfun **out, ixj_error *err);
/* Frees an index function; NULL is fine. */
IXJ_API void ixj_ixfun_free(ixj_ixfun *f);

/* ---- operations (each returns a new index function) -------------------- */

/* New dim k is old dim perm[k] (NumPy transpose). */
IXJ_API ixj_status ixj_ixfun_permute(const ixj_ixfun *f, int n, const int *perm,
                             ixj_ixfun **out, ixj_error *err);
/* new[i] = old[(i_k + amount_k) mod n_k] in every dim (floored modulo). */
IXJ_API ixj_status ixj_ixfun_rotate(const ixj_ixfun *f, int n, const int64_t *amounts,
                            ixj_ixfun **out, ixj_error *err);

typedef enum ixj_slice_kind { IXJ_SLICE_FIX, IXJ_SLICE_RANGE } ixj_slice_kind;
/* FIX: the dim is fixed at `start` and disappears. RANGE: element k is
 * start + k*step, k < count (step may be negative or 0; every element must be
 * inside the dim). */
typedef struct ixj_slice_item {
  ixj_slice_kind kind;
  int64_t start, count, step;
} ixj_slice_item;

/* One item per leading dim (n <= rank); missing trailing dims stay whole. */
IXJ_API ixj_status ixj_ixfun_slice(const ixj_ixfun *f, int n, const ixj_slice_item *items,
                           ixj_ixfun **out, ixj_error *err);
/* NumPy basic slicing of one dim of `extent`, with NumPy's defaults and
 * clipping, resolved to a RANGE item. step must not be 0. */
IXJ_API ixj_status ixj_slice_numpy(int64_t extent, bool has_start, int64_t start, bool has_stop,
                           int64_t stop, int64_t step, ixj_slice_item *out, ixj_error *err);
/* Row-major reshape of the logical index space; at most one -1. Stays one
 * LMAD whenever the result is representable, pushes a new LMAD otherwise. */
IXJ_API ixj_status ixj_ixfun_reshape(const ixj_ixfun *f, int rank, const int64_t *shape,
                             ixj_ixfun **out, ixj_error *err);
/* NumPy broadcast_to. */
IXJ_API ixj_status ixj_ixfun_expand(const ixj_ixfun *f, int rank, const int64_t *shape,
                            ixj_ixfun **out, ixj_error *err);
/* f was built over iota(base f); put it on top of new_base instead:
 * rebase(nb)(i) = nb(unflatten(shape nb, f(i))). The element counts of f's
 * base and nb's shape must match (else IXJ_ERR_MISMATCH), and every f(i)
 * must index into nb. */
IXJ_API ixj_status ixj_ixfun_rebase(const ixj_ixfun *f, const ixj_ixfun *new_base,
                            ixj_ixfun **out, ixj_error *err);

/* ---- queries ----------------------------------------------------------- */

/* Number of logical dims (0 for a single element). */
IXJ_API int ixj_ixfun_rank(const ixj_ixfun *f);
/* Writes rank() extents. */
IXJ_API void ixj_ixfun_shape(const ixj_ixfun *f, int64_t *shape);
/* Number of logical points (fits int64 by construction). */
IXJ_API int64_t ixj_ixfun_num_points(const ixj_ixfun *f);
/* The base, the row-major array f was first built over: its rank, then its
 * base_rank() extents written to base. */
IXJ_API int ixj_ixfun_base_rank(const ixj_ixfun *f);
IXJ_API void ixj_ixfun_base(const ixj_ixfun *f, int64_t *base);
/* LMADs in the chain (1 for a single LMAD). */
IXJ_API int ixj_ixfun_num_lmads(const ixj_ixfun *f);
/* LMAD k of the chain, 0 = head: f's own, valid until ixj_ixfun_free(f). */
IXJ_API const ixj_lmad *ixj_ixfun_lmad(const ixj_ixfun *f, int k);

/* Flat offset of a full logical index tuple: IXJ_ERR_INVALID_ARGUMENT when n
 * is not the rank, IXJ_ERR_OUT_OF_RANGE for an index outside its dim. */
IXJ_API ixj_status ixj_ixfun_index(const ixj_ixfun *f, int n, const int64_t *index,
                           int64_t *offset, ixj_error *err);

/* Smallest and largest reachable flat offset. `exact` is true when they are
 * reached (always for one LMAD); for a chain they are a tight enclosure
 * (every point lies inside it), which is what a buffer bounds check needs. */
typedef struct ixj_offset_range {
  bool empty; /* no points: min and max are meaningless */
  bool exact;
  int64_t min, max;
} ixj_offset_range;
IXJ_API ixj_offset_range ixj_ixfun_offset_range(const ixj_ixfun *f);
/* The bytes a buffer needs so that every offset f reaches, in elements of
 * elem_size bytes from the buffer's start, lies inside it: (max + 1) *
 * elem_size, 0 for no points. IXJ_ERR_OUT_OF_RANGE when f reaches a negative
 * offset, IXJ_ERR_OVERFLOW when the product does not fit in size_t. */
IXJ_API ixj_status ixj_ixfun_required_bytes(const ixj_ixfun *f, size_t elem_size, size_t *bytes, ixj_error *err);

/* f(i) == offset + rowmajor(i) for every i: writes offset * elem_size. */
IXJ_API bool ixj_ixfun_linear_with_offset(const ixj_ixfun *f, int64_t elem_size, int64_t *byte_offset);
/* f is a permutation of a linear function: writes offset * elem_size and, per
 * logical dim k, the physical dim perm[k] and its extent shape[k]. */
IXJ_API bool ixj_ixfun_rearrange_with_offset(const ixj_ixfun *f, int64_t elem_size,
                                     int64_t *byte_offset, int *perm, int64_t *shape);
/* f is exactly iota(base f). */
IXJ_API bool ixj_ixfun_is_direct(const ixj_ixfun *f);
/* f(i) == rowmajor(i). */
IXJ_API bool ixj_ixfun_is_linear(const ixj_ixfun *f);
/* The reachable offsets form one gap-free interval (exact for one LMAD,
 * conservative — false means "not proven" — for chains). */
IXJ_API bool ixj_ixfun_is_contiguous(const ixj_ixfun *f);
/* Futhark's monotonicity: INC if every LMAD has every dim of stride 0 or of
 * positive stride and no rotation, DEC likewise, UNKNOWN otherwise. */
IXJ_API ixj_monotonicity ixj_ixfun_monotonicity(const ixj_ixfun *f);
/* Per-dim monotonicity of an LMAD dim: the sign of its stride. */
IXJ_API ixj_monotonicity ixj_lmad_dim_monotonicity(const ixj_lmad *l, int physical_dim);
/* Structural equality: same base, same chain of LMADs. Equal index functions
 * have equal shapes and points. */
IXJ_API bool ixj_ixfun_equal(const ixj_ixfun *a, const ixj_ixfun *b);
/* Futhark's closeEnough: same base rank, same number of LMADs, and pairwise
 * the same rank and permutation (values ignored). */
IXJ_API bool ixj_ixfun_close_enough(const ixj_ixfun *a, const ixj_ixfun *b);

/* ---- anti-unification ------------------------------------------------- */

/* The least general generalization of two index functions: equal values stay,
 * differing pairs become holes ?0, ?1, ... (one hole per distinct pair, shared
 * across fields, found in the order physical shapes, base, strides, rotates,
 * offset). Defined, as in Futhark, only for single-LMAD functions with the same
 * base rank, contiguity, permutation and per-dim monotonicity; otherwise
 * IXJ_ERR_MISMATCH with the reason. *out is the caller's, freed with
 * ixj_general_free. */
typedef struct ixj_ixfun_general ixj_ixfun_general;
IXJ_API ixj_status ixj_ixfun_generalize(const ixj_ixfun *a, const ixj_ixfun *b,
                                ixj_ixfun_general **out, ixj_error *err);
IXJ_API int ixj_general_num_holes(const ixj_ixfun_general *g);
/* The values hole k stands for in the first and the second function; for k
 * outside 0..num_holes-1 (or g NULL) *in_a and *in_b are left untouched. */
IXJ_API void ixj_general_hole(const ixj_ixfun_general *g, int k, int64_t *in_a, int64_t *in_b);
/* Fill every hole (values[k] for hole k) and validate the result: the
 * errors of ixj_ixfun_from_lmads. */
IXJ_API ixj_status ixj_general_instantiate(const ixj_ixfun_general *g, const int64_t *values,
                                   ixj_ixfun **out, ixj_error *err);
/* Futhark's format with holes printed as ?K; snprintf-style. */
IXJ_API size_t ixj_general_format(const ixj_ixfun_general *g, char *buf, size_t size);
/* Frees a generalization from ixj_ixfun_generalize; NULL is fine. */
IXJ_API void ixj_general_free(ixj_ixfun_general *g);

/* ---- text ------------------------------------------------------------- */

/* Parse the IXFUN syntax (a pipeline of stages, or Futhark's format).
 * IXJ_ERR_PARSE for malformed text and IXJ_ERR_LIMIT for nesting deeper than
 * documented, with err->column at the problem; the errors of the stages'
 * operations otherwise. The visits of points that literal chains and
 * rebases may need share one budget of 2^20 LMAD evaluations per text
 * (IXJ_ERR_LIMIT beyond), so no text of 64 KB takes more than 100 ms. */
IXJ_API ixj_status ixj_ixfun_parse(const char *text, ixj_ixfun **out, ixj_error *err);
/* Futhark's printed format on one line; snprintf-style: returns the length
 * needed (excluding the NUL) and writes at most size bytes. */
IXJ_API size_t ixj_ixfun_format(const ixj_ixfun *f, char *buf, size_t size);
/* The same, in a new string that is the caller's: free it with ixj_free.
 * NULL when out of memory. */
IXJ_API char *ixj_ixfun_to_string(const ixj_ixfun *f);

#ifdef __cplusplus
}
#endif
#endif

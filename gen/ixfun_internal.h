/* Internal: the index-function representation and the LMAD helpers shared by
 * the algebra, the queries, the text layer and (later) the planner. */
#ifndef IXJIT_GEN_IXFUN_INTERNAL_H
#define IXJIT_GEN_IXFUN_INTERNAL_H

#include "ixjit/ixfun.h"

struct ixj_ixfun {
  int num_lmads;
  ixj_lmad *lmads; /* lmads[0] is the head */
  int base_rank;
  int64_t base[IXJ_MAX_RANK];
};

/* Logical view of one LMAD dim (logical order). */
typedef struct lmad_ldim {
  int64_t stride, rotate, extent;
  int physical;
} lmad_ldim;

void ixj__lmad_logical_dims(const ixj_lmad *l, lmad_ldim *dims);
void ixj__lmad_logical_shape(const ixj_lmad *l, int64_t *shape);
/* Product of extents; false on overflow. */
bool ixj__shape_count(int rank, const int64_t *shape, int64_t *count);
int64_t ixj__lmad_count(const ixj_lmad *l); /* valid LMADs only */
/* Checks rank, extents, permutation and 64-bit overflow of every reachable
 * offset; reduces rotations to canonical form. */
ixj_status ixj__lmad_validate(ixj_lmad *l, ixj_error *err);
/* Exact min and max of a validated, non-empty LMAD. */
void ixj__lmad_range(const ixj_lmad *l, int64_t *min, int64_t *max);
/* Exact min and max over the row-major flat positions [a, b] of its domain. */
void ixj__lmad_range_over(const ixj_lmad *l, int64_t a, int64_t b, int64_t *min, int64_t *max);
int64_t ixj__lmad_index(const ixj_lmad *l, const int64_t *logical_index);
/* The identity-permuted row-major LMAD of `shape` at `offset`. */
void ixj__lmad_iota(int rank, const int64_t *shape, int64_t offset, ixj_lmad *out);
/* x -> offset + scale * x over the row-major domain? (rotation-free, strides
 * row-major up to a common factor). Writes the scale. */
bool ixj__lmad_is_affine(const ixj_lmad *l, int64_t *scale);
/* Reshape without moving data (NumPy's no-copy rule; rotations kept where
 * they stay whole-row rotations). False when the result is not one LMAD. */
bool ixj__lmad_reshape_nocopy(const ixj_lmad *l, int rank, const int64_t *shape, ixj_lmad *out);
bool ixj__lmad_equal(const ixj_lmad *a, const ixj_lmad *b);
bool ixj__lmad_is_contiguous(const ixj_lmad *l);
/* The dims of extent > 1 and nonzero stride, sorted by |stride| (ascending):
 * their count, or -1 when the LMAD has no points. *broadcast counts the dims
 * of extent > 1 and stride 0. */
int ixj__lmad_dims_by_stride(const ixj_lmad *l, int64_t *abs_stride, int64_t *extent, int *broadcast);

ixj_ixfun *ixj__ixfun_alloc(int num_lmads);
/* Sufficient test that f maps distinct points to distinct offsets (false may
 * be a false alarm: then f may still be injective). */
bool ixj__ixfun_injective(const ixj_ixfun *f);
/* The value of LMAD `upto` of the chain at a (valid) logical index. */
int64_t ixj__ixfun_eval(const ixj_ixfun *f, int upto, const int64_t *index);
/* The exact reachable range: ixj_ixfun_offset_range when that is exact, else
 * by visiting every point when there are at most max_points (false if more). */
bool ixj__ixfun_exact_range(const ixj_ixfun *f, int64_t max_points, ixj_offset_range *out);
/* Validates every LMAD and the chain (each LMAD inside the next one's index
 * space); with simplify, merges adjacent LMADs whenever one LMAD can express
 * the pair. Frees f and returns an error on failure. */
ixj_status ixj__ixfun_finish(ixj_ixfun *f, bool simplify, ixj_ixfun **out, ixj_error *err);



/* Holes of a generalized single-LMAD index function: -1 where the value is
 * concrete, else the hole number. */
typedef struct ixfun_holes {
  int offset;
  int stride[IXJ_MAX_RANK], rotate[IXJ_MAX_RANK], shape[IXJ_MAX_RANK];
  int base[IXJ_MAX_RANK];
} ixfun_holes;

/* Futhark's format, with ?K for holes when `holes` is non-NULL; contiguity
 * printed as given. snprintf-style. */
size_t ixj__ixfun_format(const ixj_ixfun *f, const ixfun_holes *holes, bool contiguous, char *buf,
                    size_t size);
#endif

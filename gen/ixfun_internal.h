/* Internal: the index-function representation and the LMAD helpers shared by
 * the algebra, the queries, the text layer and (later) the planner. */
#ifndef IXJIT_GEN_IXFUN_INTERNAL_H
#define IXJIT_GEN_IXFUN_INTERNAL_H

#include "ixjit/ixfun.h"

#include <stdatomic.h>

struct ixj_ixfun {
  int num_lmads;
  ixj_lmad *lmads; /* lmads[0] is the head */
  int base_rank;
  int64_t base[IXJ_MAX_RANK];
  /* The exact reachable range of a chain whose enclosure is loose, derived
   * at most once and kept (IXJ__RANGE_*): the handle stays
   * immutable in meaning, and no call re-walks its points. */
  atomic_int range_state;
  atomic_llong range_min, range_max;
};

/* range_state: not yet known, kept in range_min/max, or beyond any budget. */
enum { IXJ__RANGE_UNKNOWN, IXJ__RANGE_EXACT, IXJ__RANGE_TOO_BIG };

/* The most LMAD evaluations (points x links) one exact walk of a chain may
 * take: about 20 ms on a 2-core VM, so that no text of 64 KB takes more than
 * 100 ms to parse or validate. */
#define IXJ__EXACT_BUDGET (INT64_C(1) << 20)

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
 * by one walk over every point, at most once per handle (two threads first
 * asking at once may both walk; they agree). The walk spends *budget (NULL:
 * a fresh IXJ__EXACT_BUDGET); false, and the enclosure in *out, when it would
 * overspend. */
bool ixj__ixfun_exact_range(const ixj_ixfun *f, int64_t *budget, ixj_offset_range *out);
/* One walk over the head's points evaluating the chain link by link: lo[k]
 * and hi[k] are the exact range of LMAD k's values. It stops at the first
 * value outside the next LMAD's points (*bad_link = k, *bad_value). It costs
 * points x links from *budget, and returns false (spending nothing) when
 * that is more than is left. */
bool ixj__ixfun_walk(const ixj_ixfun *f, int64_t *budget, int64_t *lo, int64_t *hi, int *bad_link,
                     int64_t *bad_value);
void ixj__ixfun_keep_range(ixj_ixfun *f, int64_t min, int64_t max);
/* Validates every LMAD and the chain (each LMAD inside the next one's index
 * space); with simplify, merges adjacent LMADs whenever one LMAD can express
 * the pair. Frees f and returns an error on failure. */
ixj_status ixj__ixfun_finish(ixj_ixfun *f, bool simplify, ixj_ixfun **out, ixj_error *err);
/* The same, a literal chain's walk spending *budget: one text's parse shares
 * one budget across its literals and rebases, so its cost stays bounded. */
ixj_status ixj__ixfun_finish_within(ixj_ixfun *f, bool simplify, int64_t *budget, ixj_ixfun **out, ixj_error *err);
ixj_status ixj__ixfun_from_lmads_within(int count, const ixj_lmad *lmads, int base_rank, const int64_t *base,
                                        int64_t *budget, ixj_ixfun **out, ixj_error *err);
ixj_status ixj__ixfun_rebase_within(const ixj_ixfun *f, const ixj_ixfun *nb, int64_t *budget, ixj_ixfun **out,
                                    ixj_error *err);



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

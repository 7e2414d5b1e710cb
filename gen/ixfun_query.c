/* Queries on index functions: shape, points, reachable range, and the
 * predicates a planner asks (linear, direct, contiguous, monotone). */
#include "ixfun_internal.h"

#include <string.h>

#include "checked.h"
#include "error.h"

int ixj_ixfun_rank(const ixj_ixfun *f) { return f->lmads[0].rank; }

void ixj_ixfun_shape(const ixj_ixfun *f, int64_t *shape) { ixj__lmad_logical_shape(&f->lmads[0], shape); }

int64_t ixj_ixfun_num_points(const ixj_ixfun *f) { return ixj__lmad_count(&f->lmads[0]); }

int ixj_ixfun_base_rank(const ixj_ixfun *f) { return f->base_rank; }

void ixj_ixfun_base(const ixj_ixfun *f, int64_t *base) {
  memcpy(base, f->base, (size_t)f->base_rank * sizeof *base);
}

int ixj_ixfun_num_lmads(const ixj_ixfun *f) { return f->num_lmads; }

const ixj_lmad *ixj_ixfun_lmad(const ixj_ixfun *f, int k) {
  return k >= 0 && k < f->num_lmads ? &f->lmads[k] : NULL;
}

ixj_status ixj_ixfun_index(const ixj_ixfun *f, int n, const int64_t *index, int64_t *offset,
                           ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, f && offset && (n <= 0 || index));
  const ixj_lmad *h = &f->lmads[0];
  int64_t shape[IXJ_MAX_RANK];
  if (n != h->rank)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "index needs %d coordinates, got %d", h->rank, n);
  ixj__lmad_logical_shape(h, shape);
  for (int k = 0; k < n; k++)
    if (index[k] < 0 || index[k] >= shape[k])
      return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "index %lld is out of range for dim %d of extent %lld",
                      (long long)index[k], k, (long long)shape[k]);
  int64_t x = ixj__ixfun_eval(f, f->num_lmads - 1, index);
  *offset = x;
  return IXJ_OK;
}

ixj_offset_range ixj_ixfun_offset_range(const ixj_ixfun *f) {
  ixj_offset_range r = {true, true, 0, 0};
  if (ixj__lmad_count(&f->lmads[0]) == 0) return r;
  r.empty = false;
  r.exact = f->num_lmads == 1;
  ixj__lmad_range(&f->lmads[0], &r.min, &r.max);
  for (int m = 1; m < f->num_lmads; m++) {
    /* Every value a link really reaches indexes the next LMAD (checked when
     * the chain was made), so a loose enclosure is clamped to its points:
     * range_over is defined only there, and beyond them it once returned a
     * range too small, which let a short buffer pass validation. */
    int64_t n = ixj__lmad_count(&f->lmads[m]);
    if (r.min < 0) r.min = 0;
    if (r.max > n - 1) r.max = n - 1;
    ixj__lmad_range_over(&f->lmads[m], r.min, r.max, &r.min, &r.max);
  }
  return r;
}

ixj_status ixj_ixfun_required_bytes(const ixj_ixfun *f, size_t elem_size, size_t *bytes, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, f && bytes);
  *bytes = 0;
  ixj_offset_range r = ixj_ixfun_offset_range(f);
  if (r.empty) return IXJ_OK;
  if (r.min < 0)
    return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "the index function reaches offset %lld, below the buffer's start",
                     (long long)r.min);
  size_t n;
  if (__builtin_add_overflow((uint64_t)r.max, (uint64_t)1, &n) || __builtin_mul_overflow(n, elem_size, &n))
    return ixj__fail(err, IXJ_ERR_OVERFLOW, "(%lld + 1) elements of %zu bytes overflow", (long long)r.max, elem_size);
  *bytes = n;
  return IXJ_OK;
}

bool ixj__ixfun_walk(const ixj_ixfun *f, int64_t *budget, int64_t *lo, int64_t *hi, int *bad_link,
                     int64_t *bad_value) {
  const ixj_lmad *h = &f->lmads[0];
  int links = f->num_lmads;
  int64_t count = ixj__lmad_count(h), shapes[IXJ_MAX_LMADS][IXJ_MAX_RANK], idx[IXJ_MAX_RANK] = {0};
  int64_t digits[IXJ_MAX_RANK], sizes[IXJ_MAX_LMADS];
  *bad_link = -1;
  if (count > *budget / links) return false;
  *budget -= count * links;
  for (int m = 0; m < links; m++) {
    ixj__lmad_logical_shape(&f->lmads[m], shapes[m]);
    sizes[m] = ixj__lmad_count(&f->lmads[m]);
    lo[m] = INT64_MAX;
    hi[m] = INT64_MIN;
  }
  for (int64_t n = 0; n < count; n++) {
    int64_t x = ixj__lmad_index(h, idx);
    for (int m = 0;; m++) {
      if (x < lo[m]) lo[m] = x;
      if (x > hi[m]) hi[m] = x;
      if (m + 1 == links) break;
      if (x < 0 || x >= sizes[m + 1]) { /* outside the next LMAD: nothing further is defined */
        *bad_link = m;
        *bad_value = x;
        return true;
      }
      const ixj_lmad *l = &f->lmads[m + 1];
      for (int k = l->rank - 1; k >= 0; k--) {
        digits[k] = x % shapes[m + 1][k];
        x /= shapes[m + 1][k];
      }
      x = ixj__lmad_index(l, digits);
    }
    for (int k = h->rank - 1; k >= 0 && ++idx[k] == shapes[0][k]; k--) idx[k] = 0;
  }
  return true;
}

void ixj__ixfun_keep_range(ixj_ixfun *f, int64_t min, int64_t max) {
  atomic_store_explicit(&f->range_min, min, memory_order_relaxed);
  atomic_store_explicit(&f->range_max, max, memory_order_relaxed);
  atomic_store_explicit(&f->range_state, IXJ__RANGE_EXACT, memory_order_release);
}

bool ixj__ixfun_exact_range(const ixj_ixfun *f, int64_t *budget, ixj_offset_range *out) {
  int64_t fresh = IXJ__EXACT_BUDGET;
  if (!budget) budget = &fresh;
  *out = ixj_ixfun_offset_range(f);
  if (out->empty || out->exact) return true;
  /* The cache is the only thing that changes on a shared handle, and only
   * from unknown to its one value: atomics, no lock. */
  ixj_ixfun *cache = (ixj_ixfun *)f;
  int state = atomic_load_explicit(&cache->range_state, memory_order_acquire);
  if (state == IXJ__RANGE_UNKNOWN) {
    int64_t lo[IXJ_MAX_LMADS], hi[IXJ_MAX_LMADS], bad_value;
    int bad_link;
    /* a finished chain keeps every value inside the next LMAD: bad_link stays -1 */
    if (ixj__ixfun_walk(f, budget, lo, hi, &bad_link, &bad_value) && bad_link < 0) {
      ixj__ixfun_keep_range(cache, lo[f->num_lmads - 1], hi[f->num_lmads - 1]);
      state = IXJ__RANGE_EXACT;
    } else if (ixj__lmad_count(&f->lmads[0]) > IXJ__EXACT_BUDGET / f->num_lmads) {
      /* beyond any budget: never walked, by any caller */
      atomic_store_explicit(&cache->range_state, IXJ__RANGE_TOO_BIG, memory_order_release);
      state = IXJ__RANGE_TOO_BIG;
    }
  }
  if (state != IXJ__RANGE_EXACT) return false;
  out->min = atomic_load_explicit(&cache->range_min, memory_order_relaxed);
  out->max = atomic_load_explicit(&cache->range_max, memory_order_relaxed);
  out->exact = true;
  return true;
}

/* l(i) == offset + rowmajor(i), ignoring l's permutation when `physical`. */
static bool lmad_linear(const ixj_lmad *l, bool physical) {
  ixj_lmad p = *l;
  int64_t scale;
  if (physical)
    for (int k = 0; k < p.rank; k++) p.perm[k] = k;
  if (ixj__lmad_count(&p) <= 1) return true;
  return ixj__lmad_is_affine(&p, &scale) && scale == 1;
}

static bool scaled_offset(int64_t offset, int64_t elem_size, int64_t *out) {
  int64_t r;
  if (ixj_mul_ovf(offset, elem_size, &r)) return false;
  if (out) *out = r;
  return true;
}

bool ixj_ixfun_linear_with_offset(const ixj_ixfun *f, int64_t elem_size, int64_t *byte_offset) {
  const ixj_lmad *h = &f->lmads[0];
  return f->num_lmads == 1 && lmad_linear(h, false) && scaled_offset(h->offset, elem_size, byte_offset);
}

bool ixj_ixfun_rearrange_with_offset(const ixj_ixfun *f, int64_t elem_size, int64_t *byte_offset,
                                     int *perm, int64_t *shape) {
  const ixj_lmad *h = &f->lmads[0];
  if (f->num_lmads != 1 || !lmad_linear(h, true) || !scaled_offset(h->offset, elem_size, byte_offset))
    return false;
  for (int k = 0; k < h->rank; k++) {
    if (perm) perm[k] = h->perm[k];
    if (shape) shape[k] = h->shape[h->perm[k]];
  }
  return true;
}

bool ixj_ixfun_is_linear(const ixj_ixfun *f) {
  int64_t off;
  return ixj_ixfun_linear_with_offset(f, 1, &off) && off == 0;
}

bool ixj_ixfun_is_direct(const ixj_ixfun *f) {
  const ixj_lmad *h = &f->lmads[0];
  ixj_lmad want;
  if (f->num_lmads != 1 || h->rank != f->base_rank) return false;
  ixj__lmad_iota(f->base_rank, f->base, 0, &want);
  return ixj__lmad_equal(h, &want);
}

bool ixj_ixfun_is_contiguous(const ixj_ixfun *f) {
  for (int m = 0; m < f->num_lmads; m++) {
    const ixj_lmad *l = &f->lmads[m];
    if (!ixj__lmad_is_contiguous(l)) return false;
    if (m + 1 < f->num_lmads && ixj__lmad_count(l) > 0) { /* must cover the next LMAD's whole space */
      int64_t lo, hi;
      ixj__lmad_range(l, &lo, &hi);
      if (lo != 0 || hi != ixj__lmad_count(&f->lmads[m + 1]) - 1) return false;
    }
  }
  return true;
}

ixj_monotonicity ixj_lmad_dim_monotonicity(const ixj_lmad *l, int j) {
  if (l->stride[j] > 0) return IXJ_MONO_INC;
  if (l->stride[j] < 0) return IXJ_MONO_DEC;
  return IXJ_MONO_UNKNOWN;
}

static ixj_monotonicity lmad_monotonicity(const ixj_lmad *l) {
  bool inc = true, dec = true;
  for (int j = 0; j < l->rank; j++) {
    if (l->stride[j] == 0) continue;
    if (l->rotate[j] != 0 || l->stride[j] < 0) inc = false;
    if (l->rotate[j] != 0 || l->stride[j] > 0) dec = false;
  }
  return inc ? IXJ_MONO_INC : dec ? IXJ_MONO_DEC : IXJ_MONO_UNKNOWN;
}

ixj_monotonicity ixj_ixfun_monotonicity(const ixj_ixfun *f) {
  ixj_monotonicity m = lmad_monotonicity(&f->lmads[0]);
  for (int k = 1; k < f->num_lmads; k++)
    if (lmad_monotonicity(&f->lmads[k]) != m) return IXJ_MONO_UNKNOWN;
  return m;
}

bool ixj_ixfun_equal(const ixj_ixfun *a, const ixj_ixfun *b) {
  if (a->num_lmads != b->num_lmads || a->base_rank != b->base_rank) return false;
  for (int k = 0; k < a->base_rank; k++)
    if (a->base[k] != b->base[k]) return false;
  for (int m = 0; m < a->num_lmads; m++)
    if (!ixj__lmad_equal(&a->lmads[m], &b->lmads[m])) return false;
  return true;
}

bool ixj_ixfun_close_enough(const ixj_ixfun *a, const ixj_ixfun *b) {
  if (a->num_lmads != b->num_lmads || a->base_rank != b->base_rank) return false;
  for (int m = 0; m < a->num_lmads; m++) {
    const ixj_lmad *x = &a->lmads[m], *y = &b->lmads[m];
    if (x->rank != y->rank) return false;
    for (int k = 0; k < x->rank; k++)
      if (x->perm[k] != y->perm[k]) return false;
  }
  return true;
}

static bool lmad_injective(const ixj_lmad *l) {
  int64_t st[IXJ_MAX_RANK], ext[IXJ_MAX_RANK];
  int broadcast, m = ixj__lmad_dims_by_stride(l, st, ext, &broadcast);
  if (m < 0) return true; /* no points */
  if (broadcast) return false;
  /* each stride must step over everything the smaller ones reach */
  int64_t reach = 0;
  for (int k = 0; k < m; k++) {
    if (st[k] <= reach) return false;
    int64_t t;
    if (ixj_mul_ovf(st[k], ext[k] - 1, &t) || ixj_add_ovf(reach, t, &reach)) return false;
  }
  return true;
}

bool ixj__ixfun_injective(const ixj_ixfun *f) {
  for (int k = 0; k < f->num_lmads; k++)
    if (!lmad_injective(&f->lmads[k])) return false;
  return true;
}

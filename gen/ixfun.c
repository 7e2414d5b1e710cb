/* The index-function representation: construction, validation, the LMAD
 * helpers (points, ranges, no-copy reshape) and chain simplification. */
#include "ixfun_internal.h"

#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "error.h"

/* ---- LMAD helpers --------------------------------------------------------- */

void ixj__lmad_logical_dims(const ixj_lmad *l, lmad_ldim *dims) {
  for (int k = 0; k < l->rank; k++) {
    int p = l->perm[k];
    dims[k].stride = l->stride[p];
    dims[k].rotate = l->rotate[p];
    dims[k].extent = l->shape[p];
    dims[k].physical = p;
  }
}

void ixj__lmad_logical_shape(const ixj_lmad *l, int64_t *shape) {
  for (int k = 0; k < l->rank; k++) shape[k] = l->shape[l->perm[k]];
}

bool ixj__shape_count(int rank, const int64_t *shape, int64_t *count) {
  int64_t c = 1;
  for (int k = 0; k < rank; k++)
    if (shape[k] < 0 || ixj_mul_ovf(c, shape[k], &c)) return false;
  *count = c;
  return true;
}

int64_t ixj__lmad_count(const ixj_lmad *l) {
  int64_t c = 1;
  for (int k = 0; k < l->rank; k++) c *= l->shape[k];
  return c;
}

ixj_status ixj__lmad_validate(ixj_lmad *l, ixj_error *err) {
  if (l->rank < 0 || l->rank > IXJ_MAX_RANK)
    return ixj__fail(err, IXJ_ERR_LIMIT, "rank %d is outside 0..%d", l->rank, IXJ_MAX_RANK);
  bool seen[IXJ_MAX_RANK] = {false};
  for (int k = 0; k < l->rank; k++) {
    int p = l->perm[k];
    if (p < 0 || p >= l->rank || seen[p])
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT,
                      "permutation is not a permutation of 0..%d", l->rank - 1);
    seen[p] = true;
  }
  int64_t count;
  for (int j = 0; j < l->rank; j++)
    if (l->shape[j] < 0)
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "negative extent %lld",
                      (long long)l->shape[j]);
  if (!ixj__shape_count(l->rank, l->shape, &count))
    return ixj__fail(err, IXJ_ERR_OVERFLOW, "the element count overflows 64-bit arithmetic");
  /* Every reachable offset must fit: offset + the sum of each dim's most
   * negative and most positive term. */
  int64_t lo = l->offset, hi = l->offset;
  for (int j = 0; j < l->rank; j++) {
    int64_t n = l->shape[j], s = l->stride[j], t;
    if (n <= 1 || s == 0) {
      l->rotate[j] = 0;
      continue;
    }
    l->rotate[j] = ixj_floor_mod(l->rotate[j], n);
    /* -2^63 has no magnitude in 64 bits: the dims sorted by |stride| (and
     * any |stride| elsewhere) would overflow on it */
    if (s == INT64_MIN)
      return ixj__fail(err, IXJ_ERR_OVERFLOW, "stride %lld over extent %lld: its magnitude overflows 64-bit arithmetic",
                       (long long)s, (long long)n);
    if (ixj_mul_ovf(s, n - 1, &t) || ixj_add_ovf(t < 0 ? lo : hi, t, t < 0 ? &lo : &hi))
      return ixj__fail(err, IXJ_ERR_OVERFLOW,
                      "offsets overflow 64-bit arithmetic (stride %lld over extent %lld)",
                      (long long)s, (long long)n);
  }
  return IXJ_OK;
}

/* Min and max of ((d + r) mod n) * s over digits d in [lo, hi]. */
static void dim_term_range(int64_t s, int64_t r, int64_t n, int64_t lo, int64_t hi,
                           int64_t *tmin, int64_t *tmax) {
  int64_t vlo, vhi;
  if (n <= 1) {
    vlo = vhi = 0;
  } else {
    vlo = ixj_floor_mod(lo + r, n);
    vhi = vlo + (hi - lo);
    if (vhi >= n) { /* wraps: covers 0 and n-1 */
      vlo = 0;
      vhi = n - 1;
    }
  }
  int64_t a = vlo * s, b = vhi * s;
  *tmin = a < b ? a : b;
  *tmax = a < b ? b : a;
}

void ixj__lmad_range(const ixj_lmad *l, int64_t *min, int64_t *max) {
  int64_t lo = l->offset, hi = l->offset;
  for (int j = 0; j < l->rank; j++) {
    int64_t tmin, tmax;
    dim_term_range(l->stride[j], l->rotate[j], l->shape[j], 0, l->shape[j] - 1, &tmin, &tmax);
    lo += tmin;
    hi += tmax;
  }
  *min = lo;
  *max = hi;
}

/* Digits of flat position x in the row-major radix of the logical dims. */
static void unflatten_dims(const lmad_ldim *d, int rank, int64_t x, int64_t *digits) {
  for (int k = rank - 1; k >= 0; k--) {
    digits[k] = x % d[k].extent;
    x /= d[k].extent;
  }
}

typedef struct range_acc {
  int64_t min, max;
  bool any;
} range_acc;

/* Offsets of the block: digits[0..q-1] fixed, digit q in [lo, hi], the rest
 * free (q == rank: the single point `digits`). */
static void block_range(const ixj_lmad *l, const lmad_ldim *d, const int64_t *digits, int q,
                        int64_t lo, int64_t hi, range_acc *acc) {
  int64_t bmin = l->offset, bmax = l->offset;
  for (int k = 0; k < l->rank; k++) {
    int64_t tmin, tmax;
    if (k < q)
      dim_term_range(d[k].stride, d[k].rotate, d[k].extent, digits[k], digits[k], &tmin, &tmax);
    else if (k == q)
      dim_term_range(d[k].stride, d[k].rotate, d[k].extent, lo, hi, &tmin, &tmax);
    else
      dim_term_range(d[k].stride, d[k].rotate, d[k].extent, 0, d[k].extent - 1, &tmin, &tmax);
    bmin += tmin;
    bmax += tmax;
  }
  if (!acc->any || bmin < acc->min) acc->min = bmin;
  if (!acc->any || bmax > acc->max) acc->max = bmax;
  acc->any = true;
}

void ixj__lmad_range_over(const ixj_lmad *l, int64_t a, int64_t b, int64_t *min, int64_t *max) {
  lmad_ldim d[IXJ_MAX_RANK];
  int64_t da[IXJ_MAX_RANK], db[IXJ_MAX_RANK];
  int rank = l->rank;
  range_acc acc = {0, 0, false};
  ixj__lmad_logical_dims(l, d);
  unflatten_dims(d, rank, a, da);
  unflatten_dims(d, rank, b, db);
  block_range(l, d, da, rank, 0, 0, &acc);
  if (a != b) {
    int p = 0;
    while (da[p] == db[p]) p++;
    block_range(l, d, db, rank, 0, 0, &acc);
    if (db[p] - da[p] >= 2) block_range(l, d, da, p, da[p] + 1, db[p] - 1, &acc);
    for (int q = p + 1; q < rank; q++) {
      if (da[q] + 1 <= d[q].extent - 1) block_range(l, d, da, q, da[q] + 1, d[q].extent - 1, &acc);
      if (db[q] >= 1) block_range(l, d, db, q, 0, db[q] - 1, &acc);
    }
  }
  *min = acc.min;
  *max = acc.max;
}

int64_t ixj__lmad_index(const ixj_lmad *l, const int64_t *logical_index) {
  int64_t x = l->offset;
  for (int k = 0; k < l->rank; k++) {
    int p = l->perm[k];
    int64_t i = logical_index[k];
    if (l->rotate[p] != 0) i = ixj_floor_mod(i + l->rotate[p], l->shape[p]);
    x += i * l->stride[p];
  }
  return x;
}

void ixj__lmad_iota(int rank, const int64_t *shape, int64_t offset, ixj_lmad *out) {
  memset(out, 0, sizeof *out);
  out->offset = offset;
  out->rank = rank;
  int64_t s = 1;
  for (int k = rank - 1; k >= 0; k--) {
    out->shape[k] = shape[k];
    out->stride[k] = s;
    out->perm[k] = k;
    /* Row-major strides fit whenever the count does; an empty shape may hold
     * huge extents, and its strides do not matter: 0 then. */
    if (ixj_mul_ovf(s, shape[k], &s)) s = 0;
  }
}

bool ixj__lmad_is_affine(const ixj_lmad *l, int64_t *scale) {
  lmad_ldim d[IXJ_MAX_RANK];
  ixj__lmad_logical_dims(l, d);
  int64_t inner_stride = 0, inner_extent = 0;
  bool have_inner = false;
  for (int k = l->rank - 1; k >= 0; k--) {
    if (d[k].extent == 1) continue;
    if (d[k].extent == 0) return false;
    if (d[k].rotate != 0) return false;
    if (have_inner) {
      int64_t want;
      if (ixj_mul_ovf(inner_stride, inner_extent, &want) || d[k].stride != want) return false;
    } else {
      *scale = d[k].stride;
      have_inner = true;
    }
    inner_stride = d[k].stride;
    inner_extent = d[k].extent;
  }
  if (!have_inner) *scale = 0;
  return true;
}

bool ixj__lmad_reshape_nocopy(const ixj_lmad *l, int rank, const int64_t *shape, ixj_lmad *out) {
  lmad_ldim od[IXJ_MAX_RANK], o[IXJ_MAX_RANK];
  int64_t nstride[IXJ_MAX_RANK], nrot[IXJ_MAX_RANK];
  int anchor[IXJ_MAX_RANK], nidx[IXJ_MAX_RANK];
  int on = 0, nn = 0;
  int64_t count = ixj__lmad_count(l);

  if (count == 0) { /* no points: any layout will do */
    ixj__lmad_iota(rank, shape, l->offset, out);
    return true;
  }
  ixj__lmad_logical_dims(l, od);
  for (int k = 0; k < l->rank; k++)
    if (od[k].extent != 1) o[on++] = od[k];
  for (int k = 0; k < rank; k++) {
    nstride[k] = 0;
    nrot[k] = 0;
    anchor[k] = -1;
    if (shape[k] != 1) nidx[nn++] = k;
  }
  /* Group old and new non-unit dims into runs of equal products (NumPy's
   * _attempt_nocopy_reshape); inside a group the old dims must nest. */
  int oi = 0, ni = 0;
  while (oi < on && ni < nn) {
    int oj = oi + 1, nj = ni + 1;
    int64_t op = o[oi].extent, np = shape[nidx[ni]];
    while (op != np) {
      if (np < op) np *= shape[nidx[nj++]];
      else op *= o[oj++].extent;
    }
    /* A rotation of the group's outermost old dim by r is a rotation of the
     * group's flat index by R = r * (inner old extents); it survives as a
     * rotation of the outermost new dim when R is a multiple of the inner new
     * extents (e.g. splitting rows off a rotation by whole rows). */
    for (int k = oi; k < oj; k++) {
      if (k > oi && o[k].rotate != 0) return false;
      if (k + 1 < oj) {
        int64_t want;
        if (ixj_mul_ovf(o[k + 1].stride, o[k + 1].extent, &want) || o[k].stride != want) return false;
      }
    }
    int64_t flat_rotate = o[oi].rotate * (op / o[oi].extent); /* < op: fits */
    int64_t inner_new = np / shape[nidx[ni]];
    if (flat_rotate % inner_new != 0) return false;
    nrot[nidx[ni]] = flat_rotate / inner_new;
    nstride[nidx[nj - 1]] = o[oj - 1].stride;
    for (int k = nj - 2; k >= ni; k--)
      nstride[nidx[k]] = nstride[nidx[k + 1]] * shape[nidx[k + 1]];
    for (int k = ni; k < nj; k++) anchor[nidx[k]] = o[oi].physical;
    oi = oj;
    ni = nj;
  }
  /* Unit dims: a row-major-looking stride, placed after their neighbour. */
  int64_t inner_stride = 1, inner_extent = 1;
  for (int k = rank - 1; k >= 0; k--) {
    if (shape[k] == 1) {
      int64_t s;
      nstride[k] = ixj_mul_ovf(inner_stride, inner_extent, &s) ? 0 : s;
    }
    inner_stride = nstride[k];
    inner_extent = shape[k];
  }
  for (int k = 0; k < rank; k++)
    if (anchor[k] < 0) anchor[k] = k > 0 ? anchor[k - 1] : -1;
  /* Physical order: by the old physical position of each group, then by
   * logical position (identity stays identity). */
  int order[IXJ_MAX_RANK];
  for (int k = 0; k < rank; k++) order[k] = k;
  for (int a = 1; a < rank; a++) {
    int v = order[a], b = a;
    while (b > 0 && anchor[order[b - 1]] > anchor[v]) {
      order[b] = order[b - 1];
      b--;
    }
    order[b] = v;
  }
  memset(out, 0, sizeof *out);
  out->offset = l->offset;
  out->rank = rank;
  for (int j = 0; j < rank; j++) {
    int k = order[j];
    out->shape[j] = shape[k];
    out->stride[j] = nstride[k];
    out->rotate[j] = nrot[k];
    out->perm[k] = j;
  }
  return true;
}

bool ixj__lmad_equal(const ixj_lmad *a, const ixj_lmad *b) {
  if (a->offset != b->offset || a->rank != b->rank) return false;
  for (int k = 0; k < a->rank; k++)
    if (a->stride[k] != b->stride[k] || a->rotate[k] != b->rotate[k] ||
        a->shape[k] != b->shape[k] || a->perm[k] != b->perm[k])
      return false;
  return true;
}

int ixj__lmad_dims_by_stride(const ixj_lmad *l, int64_t *abs_stride, int64_t *extent, int *broadcast) {
  int m = 0;
  *broadcast = 0;
  for (int j = 0; j < l->rank; j++) {
    if (l->shape[j] == 0) return -1; /* no points */
    if (l->shape[j] == 1) continue;
    if (l->stride[j] == 0) {
      ++*broadcast;
      continue;
    }
    int64_t s = l->stride[j] < 0 ? -l->stride[j] : l->stride[j];
    int b = m++;
    while (b > 0 && abs_stride[b - 1] > s) {
      abs_stride[b] = abs_stride[b - 1];
      extent[b] = extent[b - 1];
      b--;
    }
    abs_stride[b] = s;
    extent[b] = l->shape[j];
  }
  return m;
}

bool ixj__lmad_is_contiguous(const ixj_lmad *l) {
  int64_t abs_stride[IXJ_MAX_RANK], extent[IXJ_MAX_RANK];
  int broadcast, m = ixj__lmad_dims_by_stride(l, abs_stride, extent, &broadcast);
  int64_t want = 1;
  for (int k = 0; k < m; k++) { /* repeated points (broadcast dims) keep an interval an interval */
    if (abs_stride[k] != want) return false;
    if (ixj_mul_ovf(want, extent[k], &want)) return k == m - 1;
  }
  return true;
}

/* ---- index functions ------------------------------------------------------ */

ixj_ixfun *ixj__ixfun_alloc(int num_lmads) {
  ixj_ixfun *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  atomic_init(&f->range_state, 0);
  atomic_init(&f->range_min, 0);
  atomic_init(&f->range_max, 0);
  f->lmads = calloc((size_t)(num_lmads > 0 ? num_lmads : 1), sizeof *f->lmads);
  if (!f->lmads) {
    free(f);
    return NULL;
  }
  f->num_lmads = num_lmads;
  return f;
}

void ixj_ixfun_free(ixj_ixfun *f) {
  if (!f) return;
  free(f->lmads);
  free(f);
}

static void remove_lmad(ixj_ixfun *f, int k) {
  memmove(&f->lmads[k], &f->lmads[k + 1], (size_t)(f->num_lmads - k - 1) * sizeof *f->lmads);
  f->num_lmads--;
}

/* One pass over adjacent pairs (k, k+1); true when it merged one. */
static bool simplify_once(ixj_ixfun *f) {
  for (int k = 0; k + 1 < f->num_lmads; k++) {
    ixj_lmad *cur = &f->lmads[k], *next = &f->lmads[k + 1];
    if (ixj__lmad_count(cur) == 0 || ixj__lmad_count(next) == 0) continue;
    int64_t scale, off;
    /* next is x -> o + scale*x: fold it into cur. */
    if (ixj__lmad_is_affine(next, &scale)) {
      ixj_lmad merged = *cur;
      bool ovf = ixj_mul_ovf(cur->offset, scale, &off) || ixj_add_ovf(off, next->offset, &merged.offset);
      for (int j = 0; j < cur->rank && !ovf; j++) ovf = ixj_mul_ovf(cur->stride[j], scale, &merged.stride[j]);
      if (!ovf && ixj__lmad_validate(&merged, NULL) == IXJ_OK) {
        *cur = merged;
        remove_lmad(f, k + 1);
        return true;
      }
    }
    /* cur is the row-major enumeration of next's whole index space: the pair
     * is next reshaped to cur's shape. */
    if (ixj__lmad_is_affine(cur, &scale) && scale == 1 && cur->offset == 0 &&
        ixj__lmad_count(cur) == ixj__lmad_count(next)) {
      int64_t shape[IXJ_MAX_RANK];
      ixj_lmad merged;
      ixj__lmad_logical_shape(cur, shape);
      if (ixj__lmad_reshape_nocopy(next, cur->rank, shape, &merged) && ixj__lmad_validate(&merged, NULL) == IXJ_OK) {
        f->lmads[k + 1] = merged;
        remove_lmad(f, k);
        return true;
      }
    }
  }
  return false;
}

int64_t ixj__ixfun_eval(const ixj_ixfun *f, int upto, const int64_t *index) {
  int64_t shape[IXJ_MAX_RANK], digits[IXJ_MAX_RANK];
  int64_t x = ixj__lmad_index(&f->lmads[0], index);
  for (int m = 1; m <= upto; m++) {
    const ixj_lmad *l = &f->lmads[m];
    ixj__lmad_logical_shape(l, shape);
    for (int k = l->rank - 1; k >= 0; k--) { /* x lies in [0, count(l)) */
      digits[k] = x % shape[k];
      x /= shape[k];
    }
    x = ixj__lmad_index(l, digits);
  }
  return x;
}

/* The enclosure of each link's values may be loose (then a value seems to
 * leave the next LMAD although none does): one bounded walk over the points
 * decides, and its exact range is kept on the handle. */
static ixj_status check_chain_exactly(ixj_ixfun *f, int64_t *budget, ixj_error *err) {
  int64_t lo[IXJ_MAX_LMADS], hi[IXJ_MAX_LMADS], value;
  int bad;
  if (!ixj__ixfun_walk(f, budget, lo, hi, &bad, &value))
    return ixj__fail(err, IXJ_ERR_LIMIT,
                    "cannot verify that the chain's LMADs stay inside each other: %lld points x %d LMADs is more than "
                    "the %lld evaluations left",
                    (long long)ixj__lmad_count(&f->lmads[0]), f->num_lmads, (long long)*budget);
  if (bad >= 0)
    return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "LMAD %d reaches offset %lld outside the %lld points of LMAD %d", bad,
                    (long long)value, (long long)ixj__lmad_count(&f->lmads[bad + 1]), bad + 1);
  ixj__ixfun_keep_range(f, lo[f->num_lmads - 1], hi[f->num_lmads - 1]);
  return IXJ_OK;
}

static ixj_status check_chain(ixj_ixfun *f, int64_t *budget, ixj_error *err) {
  int64_t lo, hi;
  ixj__lmad_range(&f->lmads[0], &lo, &hi);
  for (int k = 0; k + 1 < f->num_lmads; k++) {
    int64_t n = ixj__lmad_count(&f->lmads[k + 1]);
    if ((lo < 0 || hi >= n) && k > 0) return check_chain_exactly(f, budget, err);
    if (lo < 0 || hi >= n) /* the head's range is exact */
      return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "LMAD %d reaches offsets %lld..%lld outside the %lld points of LMAD %d",
                      k, (long long)lo, (long long)hi, (long long)n, k + 1);
    ixj__lmad_range_over(&f->lmads[k + 1], lo, hi, &lo, &hi);
  }
  return IXJ_OK;
}

ixj_status ixj__ixfun_finish(ixj_ixfun *f, bool simplify, ixj_ixfun **out, ixj_error *err) {
  int64_t budget = IXJ__EXACT_BUDGET;
  return ixj__ixfun_finish_within(f, simplify, &budget, out, err);
}

ixj_status ixj__ixfun_finish_within(ixj_ixfun *f, bool simplify, int64_t *budget, ixj_ixfun **out, ixj_error *err) {
  ixj_status st = IXJ_OK;
  int64_t count;
  if (f->num_lmads < 1 || f->num_lmads > IXJ_MAX_LMADS) {
    st = ixj__fail(err, IXJ_ERR_LIMIT, "an index function has 1..%d LMADs, not %d", IXJ_MAX_LMADS,
                  f->num_lmads);
    goto fail;
  }
  if (f->base_rank < 0 || f->base_rank > IXJ_MAX_RANK) {
    st = ixj__fail(err, IXJ_ERR_LIMIT, "base rank %d is outside 0..%d", f->base_rank, IXJ_MAX_RANK);
    goto fail;
  }
  for (int k = 0; k < f->base_rank; k++)
    if (f->base[k] < 0) {
      st = ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "negative base extent %lld", (long long)f->base[k]);
      goto fail;
    }
  if (!ixj__shape_count(f->base_rank, f->base, &count)) {
    st = ixj__fail(err, IXJ_ERR_OVERFLOW, "the base's element count overflows 64-bit arithmetic");
    goto fail;
  }
  for (int k = 0; k < f->num_lmads; k++) {
    st = ixj__lmad_validate(&f->lmads[k], err);
    if (st != IXJ_OK) goto fail;
  }
  /* A literal chain (operations build valid ones): every value an LMAD can
   * reach must index the next one's row-major space. */
  bool empty = ixj__lmad_count(&f->lmads[0]) == 0;
  if (!simplify && !empty && (st = check_chain(f, budget, err)) != IXJ_OK) goto fail;
  if (simplify && empty) f->num_lmads = 1; /* no points: the rest of the chain is unreachable */
  if (simplify)
    while (f->num_lmads > 1 && simplify_once(f)) {
    }
  *out = f;
  return IXJ_OK;
fail:
  ixj_ixfun_free(f);
  *out = NULL;
  return st;
}

static ixj_status no_memory(ixj_error *err) {
  return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
}

static ixj_status check_rank(int rank, ixj_error *err) {
  if (rank < 0 || rank > IXJ_MAX_RANK)
    return ixj__fail(err, IXJ_ERR_LIMIT, "rank %d is outside 0..%d", rank, IXJ_MAX_RANK);
  return IXJ_OK;
}

ixj_status ixj_ixfun_iota(int rank, const int64_t *shape, int64_t offset, ixj_ixfun **out,
                          ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, out && (rank <= 0 || shape));
  int64_t count;
  *out = NULL;
  if (check_rank(rank, err) != IXJ_OK) return IXJ_ERR_LIMIT;
  for (int k = 0; k < rank; k++)
    if (shape[k] < 0)
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "negative extent %lld", (long long)shape[k]);
  if (!ixj__shape_count(rank, shape, &count))
    return ixj__fail(err, IXJ_ERR_OVERFLOW, "the element count overflows 64-bit arithmetic");
  ixj_ixfun *f = ixj__ixfun_alloc(1);
  if (!f) return no_memory(err);
  ixj__lmad_iota(rank, shape, offset, &f->lmads[0]);
  f->base_rank = rank;
  if (rank > 0) memcpy(f->base, shape, (size_t)rank * sizeof *shape); /* shape may be NULL for rank 0 */
  return ixj__ixfun_finish(f, false, out, err);
}

ixj_status ixj_ixfun_strided(int rank, const int64_t *shape, const int64_t *strides, int64_t offset,
                             ixj_ixfun **out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, out && (rank <= 0 || (shape && strides)));
  *out = NULL;
  if (check_rank(rank, err) != IXJ_OK) return IXJ_ERR_LIMIT;
  ixj_ixfun *f = ixj__ixfun_alloc(1);
  if (!f) return no_memory(err);
  ixj_lmad *l = &f->lmads[0];
  l->offset = offset;
  l->rank = rank;
  for (int k = 0; k < rank; k++) {
    l->shape[k] = shape[k];
    l->stride[k] = strides[k];
    l->perm[k] = k;
  }
  ixj_status st = ixj__lmad_validate(l, err);
  if (st != IXJ_OK) {
    ixj_ixfun_free(f);
    return st;
  }
  int64_t scale;
  if (ixj__lmad_is_affine(l, &scale) && scale == 1 && ixj__lmad_count(l) > 0) {
    f->base_rank = rank; /* an iota in disguise */
    memcpy(f->base, shape, (size_t)rank * sizeof *shape);
  } else {
    int64_t lo = 0, hi = -1;
    if (ixj__lmad_count(l) > 0) ixj__lmad_range(l, &lo, &hi);
    if (hi == INT64_MAX) {
      ixj_ixfun_free(f);
      return ixj__fail(err, IXJ_ERR_OVERFLOW, "the buffer extent overflows 64-bit arithmetic");
    }
    f->base_rank = 1;
    f->base[0] = hi >= 0 ? hi + 1 : 0;
  }
  return ixj__ixfun_finish(f, false, out, err);
}

ixj_status ixj_ixfun_from_lmads(int count, const ixj_lmad *lmads, int base_rank, const int64_t *base,
                                ixj_ixfun **out, ixj_error *err) {
  int64_t budget = IXJ__EXACT_BUDGET;
  return ixj__ixfun_from_lmads_within(count, lmads, base_rank, base, &budget, out, err);
}

ixj_status ixj__ixfun_from_lmads_within(int count, const ixj_lmad *lmads, int base_rank, const int64_t *base,
                                        int64_t *budget, ixj_ixfun **out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, out && lmads && (base_rank <= 0 || base));
  *out = NULL;
  if (count < 1 || count > IXJ_MAX_LMADS)
    return ixj__fail(err, IXJ_ERR_LIMIT, "an index function has 1..%d LMADs, not %d", IXJ_MAX_LMADS, count);
  if (check_rank(base_rank, err) != IXJ_OK) return IXJ_ERR_LIMIT;
  ixj_ixfun *f = ixj__ixfun_alloc(count);
  if (!f) return no_memory(err);
  memcpy(f->lmads, lmads, (size_t)count * sizeof *lmads);
  f->base_rank = base_rank;
  if (base_rank > 0) memcpy(f->base, base, (size_t)base_rank * sizeof *base); /* base may be NULL for rank 0 */
  return ixj__ixfun_finish_within(f, false, budget, out, err);
}

/* A copy of a valid function needs no second check (and no second walk of
 * its points: the kept range comes along). */
ixj_status ixj_ixfun_clone(const ixj_ixfun *f, ixj_ixfun **out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, f && out);
  ixj_ixfun *g = ixj__ixfun_alloc(f->num_lmads);
  *out = NULL;
  if (!g) return no_memory(err);
  memcpy(g->lmads, f->lmads, (size_t)f->num_lmads * sizeof *f->lmads);
  g->base_rank = f->base_rank;
  memcpy(g->base, f->base, sizeof g->base);
  ixj_offset_range r;
  if (atomic_load_explicit(&f->range_state, memory_order_acquire) == IXJ__RANGE_EXACT && ixj__ixfun_exact_range(f, NULL, &r))
    ixj__ixfun_keep_range(g, r.min, r.max);
  *out = g;
  return IXJ_OK;
}

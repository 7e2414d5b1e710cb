/* The operations of the index-function algebra. Each builds a new chain from
 * the old one: most touch only the head LMAD; a slice of a wrapped rotation
 * and a reshape that no single LMAD can express push a fresh row-major LMAD in
 * front instead (always correct: index re-linearises through it). */
#include "ixfun_internal.h"

#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "error.h"

/* A copy of f with `extra` free LMAD slots at the front. */
static ixj_status derive(const ixj_ixfun *f, int extra, ixj_ixfun **out, ixj_error *err) {
  if (f->num_lmads + extra > IXJ_MAX_LMADS)
    return ixj__fail(err, IXJ_ERR_LIMIT, "the index function would need more than %d LMADs",
                    IXJ_MAX_LMADS);
  ixj_ixfun *g = ixj__ixfun_alloc(f->num_lmads + extra);
  if (!g) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  memcpy(g->lmads + extra, f->lmads, (size_t)f->num_lmads * sizeof *f->lmads);
  g->base_rank = f->base_rank;
  memcpy(g->base, f->base, sizeof g->base);
  *out = g;
  return IXJ_OK;
}

ixj_status ixj_ixfun_permute(const ixj_ixfun *f, int n, const int *perm, ixj_ixfun **out,
                             ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, f && out && (n <= 0 || perm));
  const ixj_lmad *h = &f->lmads[0];
  bool seen[IXJ_MAX_RANK] = {false};
  *out = NULL;
  if (n != h->rank)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "permute needs %d items, got %d", h->rank, n);
  for (int k = 0; k < n; k++) {
    if (perm[k] < 0 || perm[k] >= n || seen[perm[k]])
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT,
                      "permute: item %d (%d) makes this not a permutation of 0..%d", k, perm[k], n - 1);
    seen[perm[k]] = true;
  }
  ixj_ixfun *g = NULL; /* set by derive on success (gcc -O3 cannot see it) */
  ixj_status st = derive(f, 0, &g, err);
  if (st != IXJ_OK) return st;
  for (int k = 0; k < n; k++) g->lmads[0].perm[k] = h->perm[perm[k]];
  return ixj__ixfun_finish(g, true, out, err);
}

ixj_status ixj_ixfun_rotate(const ixj_ixfun *f, int n, const int64_t *amounts, ixj_ixfun **out,
                            ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, f && out && (n <= 0 || amounts));
  const ixj_lmad *h = &f->lmads[0];
  *out = NULL;
  if (n != h->rank)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "rotate needs %d amounts (one per dim), got %d",
                    h->rank, n);
  ixj_ixfun *g = NULL; /* set by derive on success (gcc -O3 cannot see it) */
  ixj_status st = derive(f, 0, &g, err);
  if (st != IXJ_OK) return st;
  for (int k = 0; k < n; k++) {
    int p = h->perm[k];
    int64_t e = h->shape[p];
    if (e > 1) /* both terms are reduced below e, so the sum cannot overflow */
      g->lmads[0].rotate[p] = ixj_floor_mod(h->rotate[p] + ixj_floor_mod(amounts[k], e), e);
  }
  return ixj__ixfun_finish(g, true, out, err);
}

/* ---- slice ------------------------------------------------------------- */

/* ((i + r) mod n) * s: the offset term of index i in one physical dim. */
static int64_t dim_term(const ixj_lmad *l, int p, int64_t i) {
  if (l->rotate[p] != 0) i = ixj_floor_mod(i + l->rotate[p], l->shape[p]);
  return i * l->stride[p];
}

/* Slices one LMAD with one validated item per logical dim. False when a
 * partially sliced rotated dim wraps around (not one LMAD). */
static bool slice_lmad(const ixj_lmad *h, const ixj_slice_item *items, ixj_lmad *out) {
  ixj_lmad r;
  bool fixed[IXJ_MAX_RANK] = {false};
  int64_t off = h->offset;
  r = *h;
  for (int k = 0; k < h->rank; k++) {
    int p = h->perm[k];
    const ixj_slice_item *it = &items[k];
    int64_t s = h->stride[p], rot = h->rotate[p], n = h->shape[p];
    int64_t b = it->start, c = it->count, step = it->step;
    if (it->kind == IXJ_SLICE_FIX) {
      off += dim_term(h, p, b);
      fixed[p] = true;
      continue;
    }
    r.shape[p] = c;
    r.rotate[p] = 0;
    if (c == 0) {
      r.stride[p] = s;
    } else if (s == 0) {
      r.stride[p] = 0;
    } else if (step == 0 || c == 1) {
      off += dim_term(h, p, b);
      r.stride[p] = step == 0 ? 0 : s;
    } else if (rot == 0) {
      off += s * b;
      r.stride[p] = s * step;
    } else if (b == 0 && c == n && step == 1) {
      r.rotate[p] = rot;
    } else if (b == n - 1 && c == n && step == -1) { /* full reversal keeps the rotation */
      off += (n - 1) * s;
      r.stride[p] = -s;
      r.rotate[p] = n - rot;
    } else {
      int64_t first = ixj_floor_mod(b + rot, n), last = first + (c - 1) * step;
      if (last < 0 || last >= n) return false; /* the range wraps */
      off += s * first;
      r.stride[p] = s * step;
    }
  }
  /* Drop fixed physical dims and renumber the permutation. */
  int below[IXJ_MAX_RANK], m = 0;
  for (int j = 0; j < h->rank; j++) {
    below[j] = m;
    if (!fixed[j]) {
      r.stride[m] = r.stride[j];
      r.rotate[m] = r.rotate[j];
      r.shape[m] = r.shape[j];
      m++;
    }
  }
  int q = 0;
  for (int k = 0; k < h->rank; k++)
    if (!fixed[h->perm[k]]) r.perm[q++] = below[h->perm[k]];
  r.rank = m;
  r.offset = off;
  *out = r;
  return true;
}

ixj_status ixj_slice_numpy(int64_t extent, bool has_start, int64_t start, bool has_stop, int64_t stop,
                           int64_t step, ixj_slice_item *out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, out);
  if (step == 0) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "slice step cannot be zero");
  if (step == INT64_MIN) step = -INT64_MAX; /* same elements, avoids -step overflow */
  /* CPython's PySlice_AdjustIndices, with its defaults. */
  if (!has_start) start = step < 0 ? INT64_MAX : 0;
  if (!has_stop) stop = step < 0 ? INT64_MIN : INT64_MAX;
  if (start < 0) {
    start += extent;
    if (start < 0) start = step < 0 ? -1 : 0;
  } else if (start >= extent) {
    start = step < 0 ? extent - 1 : extent;
  }
  if (stop < 0) {
    stop += extent;
    if (stop < 0) stop = step < 0 ? -1 : 0;
  } else if (stop >= extent) {
    stop = step < 0 ? extent - 1 : extent;
  }
  int64_t count = 0;
  if (step < 0) {
    if (stop < start) count = (start - stop - 1) / (-step) + 1;
  } else if (start < stop) {
    count = (stop - start - 1) / step + 1;
  }
  out->kind = IXJ_SLICE_RANGE;
  out->start = count > 0 ? start : 0;
  out->count = count;
  out->step = count > 1 ? step : 1;
  return IXJ_OK;
}

ixj_status ixj_ixfun_slice(const ixj_ixfun *f, int n, const ixj_slice_item *items, ixj_ixfun **out,
                           ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, f && out && (n <= 0 || items));
  const ixj_lmad *h = &f->lmads[0];
  int64_t shape[IXJ_MAX_RANK];
  ixj_slice_item full[IXJ_MAX_RANK];
  bool identity = true;
  *out = NULL;
  if (n < 0 || n > h->rank)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "slice has %d items for %d dims", n, h->rank);
  ixj__lmad_logical_shape(h, shape);
  for (int k = 0; k < h->rank; k++) {
    ixj_slice_item it = {IXJ_SLICE_RANGE, 0, shape[k], 1};
    if (k < n) it = items[k];
    int64_t e = shape[k], last;
    if (it.kind == IXJ_SLICE_FIX) {
      if (it.start < 0 || it.start >= e)
        return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "slice: index %lld is out of range for dim %d of extent %lld",
                        (long long)it.start, k, (long long)e);
    } else if (it.kind == IXJ_SLICE_RANGE) {
      if (it.count < 0)
        return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "slice: negative count %lld in dim %d",
                        (long long)it.count, k);
      if (it.count > 0 &&
          (it.start < 0 || it.start >= e || ixj_mul_ovf(it.count - 1, it.step, &last) ||
           ixj_add_ovf(it.start, last, &last) || last < 0 || last >= e))
        return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE,
                        "slice: %lld:+%lld*%lld leaves dim %d of extent %lld", (long long)it.start,
                        (long long)it.count, (long long)it.step, k, (long long)e);
      if (it.count == 0) it.start = 0, it.step = 1;
      if (it.count == 1) it.step = 1;
    } else {
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "slice: bad item kind in dim %d", k);
    }
    full[k] = it;
    if (!(it.kind == IXJ_SLICE_RANGE && it.start == 0 && it.count == e && (it.step == 1 || e <= 1)))
      identity = false;
  }
  if (identity) return ixj_ixfun_clone(f, out, err);

  ixj_ixfun *g = NULL; /* set by derive on success (gcc -O3 cannot see it) */
  ixj_lmad sliced;
  ixj_status st;
  if (slice_lmad(h, full, &sliced)) {
    st = derive(f, 0, &g, err);
    if (st != IXJ_OK) return st;
    g->lmads[0] = sliced;
  } else { /* slice a fresh row-major LMAD over the head's shape instead */
    ixj_lmad fresh;
    ixj__lmad_iota(h->rank, shape, 0, &fresh);
    slice_lmad(&fresh, full, &sliced); /* cannot fail: no rotations */
    st = derive(f, 1, &g, err);
    if (st != IXJ_OK) return st;
    g->lmads[0] = sliced;
  }
  return ixj__ixfun_finish(g, true, out, err);
}

/* ---- reshape, expand, rebase -------------------------------------------- */

ixj_status ixj_ixfun_reshape(const ixj_ixfun *f, int rank, const int64_t *shape, ixj_ixfun **out,
                             ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, f && out && (rank <= 0 || shape));
  const ixj_lmad *h = &f->lmads[0];
  int64_t dims[IXJ_MAX_RANK], known = 1, count = ixj__lmad_count(h);
  int infer = -1;
  *out = NULL;
  if (rank < 0 || rank > IXJ_MAX_RANK)
    return ixj__fail(err, IXJ_ERR_LIMIT, "reshape: rank %d is outside 0..%d", rank, IXJ_MAX_RANK);
  for (int k = 0; k < rank; k++) {
    dims[k] = shape[k];
    if (shape[k] == -1) {
      if (infer >= 0) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "reshape: more than one -1");
      infer = k;
    } else if (shape[k] < 0) {
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "reshape: negative extent %lld", (long long)shape[k]);
    } else if (ixj_mul_ovf(known, shape[k], &known)) {
      return ixj__fail(err, IXJ_ERR_OVERFLOW, "reshape: the element count overflows 64-bit arithmetic");
    }
  }
  if (infer >= 0) {
    if (known == 0 || count % known != 0)
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT,
                      "reshape: cannot infer -1 for %lld elements", (long long)count);
    dims[infer] = count / known;
    known = count;
  }
  if (known != count)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT,
                    "reshape: %lld elements cannot take a shape of %lld elements", (long long)count,
                    (long long)known);

  ixj_ixfun *g = NULL; /* set by derive on success (gcc -O3 cannot see it) */
  ixj_lmad reshaped;
  ixj_status st;
  if (ixj__lmad_reshape_nocopy(h, rank, dims, &reshaped)) {
    st = derive(f, 0, &g, err);
    if (st != IXJ_OK) return st;
  } else {
    st = derive(f, 1, &g, err);
    if (st != IXJ_OK) return st;
    ixj__lmad_iota(rank, dims, 0, &reshaped);
  }
  g->lmads[0] = reshaped;
  return ixj__ixfun_finish(g, true, out, err);
}

ixj_status ixj_ixfun_expand(const ixj_ixfun *f, int rank, const int64_t *shape, ixj_ixfun **out,
                            ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, f && out && (rank <= 0 || shape));
  const ixj_lmad *h = &f->lmads[0];
  int r = h->rank, m = rank - r;
  *out = NULL;
  if (rank > IXJ_MAX_RANK)
    return ixj__fail(err, IXJ_ERR_LIMIT, "expand: rank %d is above %d", rank, IXJ_MAX_RANK);
  if (m < 0)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "expand: %d dims cannot broadcast to %d", r, rank);
  for (int k = 0; k < rank; k++)
    if (shape[k] < 0)
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "expand: negative extent %lld", (long long)shape[k]);
  ixj_lmad e;
  memset(&e, 0, sizeof e);
  e.offset = h->offset;
  e.rank = rank;
  for (int k = 0; k < m; k++) { /* new leading dims: stride 0, physically outermost */
    e.shape[k] = shape[k];
    e.perm[k] = k;
  }
  for (int j = 0; j < r; j++) {
    e.shape[m + j] = h->shape[j];
    e.stride[m + j] = h->stride[j];
    e.rotate[m + j] = h->rotate[j];
  }
  for (int k = 0; k < r; k++) {
    int p = h->perm[k] + m;
    int64_t want = shape[m + k], have = h->shape[h->perm[k]];
    e.perm[m + k] = p;
    if (want == have) continue;
    if (have != 1)
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT,
                      "expand: dim %d has extent %lld, which cannot broadcast to %lld", k,
                      (long long)have, (long long)want);
    e.shape[p] = want;
    e.stride[p] = 0;
    e.rotate[p] = 0;
  }
  ixj_ixfun *g = NULL; /* set by derive on success (gcc -O3 cannot see it) */
  ixj_status st = derive(f, 0, &g, err);
  if (st != IXJ_OK) return st;
  g->lmads[0] = e;
  return ixj__ixfun_finish(g, true, out, err);
}

ixj_status ixj_ixfun_rebase(const ixj_ixfun *f, const ixj_ixfun *nb, ixj_ixfun **out, ixj_error *err) {
  return ixj__ixfun_rebase_within(f, nb, NULL, out, err);
}

ixj_status ixj__ixfun_rebase_within(const ixj_ixfun *f, const ixj_ixfun *nb, int64_t *budget, ixj_ixfun **out,
                                    ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, f && nb && out);
  int64_t base_count, nb_count = ixj__lmad_count(&nb->lmads[0]);
  *out = NULL;
  ixj__shape_count(f->base_rank, f->base, &base_count);
  if (base_count != nb_count)
    return ixj__fail(err, IXJ_ERR_MISMATCH,
                    "rebase: the base has %lld elements but the new base has %lld",
                    (long long)base_count, (long long)nb_count);
  ixj_offset_range r = ixj_ixfun_offset_range(f);
  if (!r.empty && (r.min < 0 || r.max >= nb_count) && /* the enclosure may be loose for a chain */
      !ixj__ixfun_exact_range(f, budget, &r))
    return ixj__fail(err, IXJ_ERR_LIMIT,
                    "rebase: cannot verify that the function stays inside the new base's %lld elements (too many "
                    "points to visit)",
                    (long long)nb_count);
  if (!r.empty && (r.min < 0 || r.max >= nb_count))
    return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE,
                    "rebase: the function reaches offsets %lld..%lld outside the new base's %lld elements",
                    (long long)r.min, (long long)r.max, (long long)nb_count);
  if (f->num_lmads + nb->num_lmads > IXJ_MAX_LMADS)
    return ixj__fail(err, IXJ_ERR_LIMIT, "rebase: the chain would need more than %d LMADs", IXJ_MAX_LMADS);
  ixj_ixfun *g = ixj__ixfun_alloc(f->num_lmads + nb->num_lmads);
  if (!g) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  memcpy(g->lmads, f->lmads, (size_t)f->num_lmads * sizeof *f->lmads);
  memcpy(g->lmads + f->num_lmads, nb->lmads, (size_t)nb->num_lmads * sizeof *nb->lmads);
  g->base_rank = nb->base_rank;
  memcpy(g->base, nb->base, sizeof g->base);
  return ixj__ixfun_finish(g, true, out, err);
}

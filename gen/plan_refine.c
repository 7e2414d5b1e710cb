/* Chains as single LMADs over a refined iteration space.
 *
 * The commonest chain is the reshape of a permuted view, e.g.
 * a.T.reshape(2048, 8192) of a 4096 x 4096 array: its head LMAD maps a
 * point to a row-major position x of the transposed view, and the tail
 * unflattens x and maps it to memory. Per element that is a division and a
 * modulo, and no vector can form. But when the head's dims and the tail's
 * dims factor into each other (here 8192 = 2 x 4096), splitting the logical
 * dims into those factors makes every operand affine: result dim 1 becomes
 * (2, 4096), and in the refined space the copy is a plain permute of
 * (2048, 2, 4096), which the planner then coalesces into the 4096 x 4096
 * transpose it is. This is what no framework does: one pass, at the speed of
 * the equivalent permute.
 *
 * Each operand's logical dim k becomes a list of sub-dims (outer to inner)
 * with a memory stride and rotation each: one sub-dim for a single LMAD; for
 * a chain, the common refinement of its head's dims (taken in stride order,
 * which must tile [0, n) exactly) and its tail's dims. The iteration space is
 * then the common refinement of every operand's lists, dim by dim. A factor
 * that does not divide the other, a rotation on a dim that has to be split,
 * or too many dims: the plan keeps the chain (and the general strategy). */
#include "plan.h"

#include <string.h>

#define MAX_SUB (2 * IXJ_MAX_RANK)

typedef struct sub_dim {
  int64_t extent, stride, rotate;
} sub_dim;

/* Per operand and logical dim, its sub-dims from the outermost. */
typedef struct split {
  int count[IXJ_MAX_RANK];
  sub_dim dim[IXJ_MAX_RANK][MAX_SUB];
} split;

static int by_stride_desc(const int64_t *stride, int n, int *order) {
  int m = 0;
  for (int k = 0; k < n; k++) order[m++] = k;
  for (int a = 1; a < m; a++) /* insertion sort: ranks are small */
    for (int b = a; b > 0 && stride[order[b - 1]] < stride[order[b]]; b--) {
      int t = order[b];
      order[b] = order[b - 1];
      order[b - 1] = t;
    }
  return m;
}

/* A chain head's dims of extent > 1 (in the plan's order, or from the
 * largest stride when any_order) when they walk its tail's flat positions
 * row-major, unrotated, each stride the product of the extents inside it;
 * their count, or -1. */
static int row_major_head(const ixj_plan *p, const plan_operand *o, bool any_order, int *head) {
  int64_t hs[IXJ_MAX_RANK], want = 1;
  int order[IXJ_MAX_RANK], nh = 0;
  for (int k = 0; k < p->rank; k++) {
    if (p->shape[k] > 1 && (o->rotate[k] || o->stride[k] <= 0)) return -1;
    hs[k] = p->shape[k] == 1 ? -1 : o->stride[k];
    order[k] = k;
  }
  if (any_order) by_stride_desc(hs, p->rank, order);
  for (int k = 0; k < p->rank; k++)
    if (p->shape[order[k]] > 1) head[nh++] = order[k];
  for (int k = nh - 1; k >= 0; k--) {
    if (o->stride[head[k]] != want) return -1;
    want *= p->shape[head[k]];
  }
  return nh;
}

/* The sub-dims of one chain operand (head + one tail LMAD), or false. */
static bool split_chain(const ixj_plan *p, const plan_operand *o, split *s) {
  if (o->num_tail != 1 || o->head_offset != 0) return false;
  const ixj_lmad *tail = &o->tail[0];
  lmad_ldim td[IXJ_MAX_RANK];
  ixj__lmad_logical_dims(tail, td);
  /* the head's dims of extent > 1, from the largest stride: exactly row-major */
  int head[IXJ_MAX_RANK], nh = row_major_head(p, o, true, head), tdims[IXJ_MAX_RANK], nt = 0;
  if (nh < 0) return false;
  for (int m = 0; m < tail->rank; m++)
    if (td[m].extent > 1) tdims[nt++] = m;
  memset(s->count, 0, sizeof s->count);
  /* from the innermost: the head dim a and the tail dim b left to split */
  int ia = nh - 1, ib = nt - 1;
  int64_t left_a = ia >= 0 ? p->shape[head[ia]] : 1, left_b = ib >= 0 ? td[tdims[ib]].extent : 1, inner_b = 1;
  sub_dim rev[IXJ_MAX_RANK][MAX_SUB];
  int nrev[IXJ_MAX_RANK] = {0};
  while (ia >= 0 && ib >= 0) {
    int64_t f;
    if (left_a % left_b == 0) f = left_b;
    else if (left_b % left_a == 0) f = left_a;
    else return false;
    const lmad_ldim *t = &td[tdims[ib]];
    bool whole = f == t->extent; /* the tail dim is not split: its rotation stays */
    if (!whole && t->rotate) return false;
    int k = head[ia];
    if (nrev[k] == MAX_SUB) return false;
    int64_t stride;
    if (__builtin_mul_overflow(t->stride, inner_b, &stride)) return false;
    rev[k][nrev[k]++] = (sub_dim){f, stride, whole ? t->rotate : 0};
    left_a /= f;
    left_b /= f;
    inner_b *= f;
    if (left_a == 1 && --ia >= 0) left_a = p->shape[head[ia]];
    if (left_b == 1 && --ib >= 0) {
      left_b = td[tdims[ib]].extent;
      inner_b = 1;
    }
  }
  if (ia >= 0 || ib >= 0) return false; /* different point counts cannot happen in a valid chain */
  for (int k = 0; k < p->rank; k++) {
    if (p->shape[k] == 1) {
      s->count[k] = 1;
      s->dim[k][0] = (sub_dim){1, 0, 0};
      continue;
    }
    s->count[k] = nrev[k];
    for (int j = 0; j < nrev[k]; j++) s->dim[k][j] = rev[k][nrev[k] - 1 - j];
  }
  return true;
}

static void split_single(const ixj_plan *p, const plan_operand *o, split *s) {
  for (int k = 0; k < p->rank; k++) {
    s->count[k] = 1;
    s->dim[k][0] = (sub_dim){p->shape[k], o->stride[k], o->rotate[k]};
  }
}

bool ixj__plan_refine_chains(ixj_plan *p) {
  if (p->op == IXJ_OP_CAT || p->num_operands > 2) return false; /* copy and fill: at most two operands */
  bool chained = false;
  for (int o = 0; o < p->num_operands; o++) chained = chained || p->operand[o].num_tail > 0;
  if (!chained) return false;
  split ops[2];
  int dims_of[2];
  bool any_chain = false;
  for (int o = 0; o < p->num_operands; o++) {
    dims_of[o] = !(p->op == IXJ_OP_FILL && o == 1);
    if (!dims_of[o]) continue;
    if (p->operand[o].num_tail == 0) {
      split_single(p, &p->operand[o], &ops[o]);
    } else {
      if (!split_chain(p, &p->operand[o], &ops[o])) return false;
      any_chain = true;
    }
  }
  if (!any_chain) return false;
  /* the common refinement, dim by dim, from the innermost sub-dim */
  int64_t shape[IXJ_MAX_RANK], stride[2][IXJ_MAX_RANK], rotate[2][IXJ_MAX_RANK];
  int64_t rshape[MAX_SUB], rstride[2][MAX_SUB], rrot[2][MAX_SUB];
  int rank = 0;
  for (int k = 0; k < p->rank; k++) {
    int at[2] = {0, 0};
    int64_t left[2] = {0, 0}, inner[2] = {1, 1};
    for (int o = 0; o < p->num_operands; o++)
      if (dims_of[o]) {
        at[o] = ops[o].count[k] - 1;
        left[o] = ops[o].dim[k][at[o]].extent;
        inner[o] = 1;
      }
    int n = 0;
    for (;;) {
      int64_t f = INT64_MAX;
      bool done = false;
      for (int o = 0; o < p->num_operands; o++)
        if (dims_of[o]) {
          if (at[o] < 0) done = true;
          else if (left[o] < f) f = left[o];
        }
      if (done || f == INT64_MAX) break;
      if (n == MAX_SUB) return false;
      for (int o = 0; o < p->num_operands; o++) {
        if (!dims_of[o]) continue;
        const sub_dim *d = &ops[o].dim[k][at[o]];
        if (left[o] % f) return false;
        bool whole = f == d->extent;
        if (!whole && d->rotate) return false;
        if (__builtin_mul_overflow(d->stride, inner[o], &rstride[o][n])) return false;
        rrot[o][n] = whole ? d->rotate : 0;
        left[o] /= f;
        inner[o] *= f;
        if (left[o] == 1 && --at[o] >= 0) {
          left[o] = ops[o].dim[k][at[o]].extent;
          inner[o] = 1;
        }
      }
      rshape[n++] = f;
    }
    if (rank + n > IXJ_MAX_RANK) return false;
    for (int j = n - 1; j >= 0; j--, rank++) { /* back to outer-to-inner order */
      shape[rank] = rshape[j];
      for (int o = 0; o < p->num_operands; o++)
        if (dims_of[o]) {
          stride[o][rank] = rstride[o][j];
          rotate[o][rank] = rrot[o][j];
        }
    }
  }
  p->rank = rank;
  memcpy(p->shape, shape, sizeof shape);
  for (int o = 0; o < p->num_operands; o++) {
    if (!dims_of[o]) continue;
    plan_operand *x = &p->operand[o];
    memcpy(x->stride, stride[o], sizeof x->stride);
    memcpy(x->rotate, rotate[o], sizeof x->rotate);
    if (x->num_tail) { /* a chain's head offset is 0 (split_chain); its runtime offset, the tail's, stays */
      x->num_tail = 0;
      x->tail = NULL;
    }
  }
  return true;
}

/* ---- chains read in flat order ---------------------------------------------
 *
 * A copy pairs the operands' points in row-major order of the logical
 * shape, so it may iterate any shape with the same row-major order: every
 * shape whose flattening is the logical one. A chain whose head is the
 * row-major iota of its logical shape (a plain reshape, x.reshape(...)) is,
 * in flat order, just its tail LMAD; a single LMAD is, in flat order, its
 * dims merged where they are contiguous into groups (the mixed radix
 * x -> (x / P, x % P) with an affine offset per digit). Iterating the
 * common refinement of every operand's groups (the union of their
 * boundaries P, when each divides the next) makes every operand a single
 * LMAD again. a[:, 1:].T.reshape(4095, 4096) into a contiguous destination
 * is then the transpose of a 4096 x 4095 view into rows of 4095: the
 * destination takes the view's shape instead of the view taking the
 * destination's, which ixj__plan_refine_chains cannot do when the factors
 * (4095 and 4096) do not divide each other.
 *
 * A fill visits a set of offsets in any order, so its destination's head
 * may also be a permutation of row-major (a transposed reshape): the fill
 * is then one of the tail. */

/* Up to one group per logical dim of the head or the tail. */
typedef struct flat_form {
  int count;
  sub_dim group[IXJ_MAX_RANK]; /* innermost first */
  int64_t end[IXJ_MAX_RANK];   /* the flat position where each group's digit ends: products from the innermost */
} flat_form;

/* dims in row-major order (outermost first) -> groups, innermost first:
 * a dim joins the group inside it when its stride steps over the whole
 * group, neither rotated (a rotated digit is no part of a larger affine
 * one). */
static void group_dims(int n, const int64_t *extent, const int64_t *stride, const int64_t *rotate, flat_form *f) {
  f->count = 0;
  for (int k = n - 1; k >= 0; k--) {
    if (extent[k] == 1) continue;
    sub_dim *in = f->count ? &f->group[f->count - 1] : NULL;
    int64_t step;
    if (in && !rotate[k] && !in->rotate && !__builtin_mul_overflow(in->stride, in->extent, &step) && step == stride[k]) {
      in->extent *= extent[k]; /* at most the point count */
      f->end[f->count - 1] *= extent[k];
      continue;
    }
    f->group[f->count] = (sub_dim){extent[k], stride[k], rotate[k]};
    f->end[f->count] = (f->count ? f->end[f->count - 1] : 1) * extent[k];
    f->count++;
  }
}

/* Whether a chain's head (logical dims in the plan's order) walks all of
 * its tail's flat space row-major from 0 (not a slice of it): any order of
 * dims for a fill. */
static bool head_is_iota(const ixj_plan *p, const plan_operand *o, bool any_order) {
  int head[IXJ_MAX_RANK];
  return o->head_offset == 0 && o->num_tail == 1 && p->count == ixj__lmad_count(&o->tail[0]) &&
         row_major_head(p, o, any_order, head) >= 0;
}

static bool flat_form_of(const ixj_plan *p, const plan_operand *o, flat_form *f) {
  if (o->num_tail == 0) {
    group_dims(p->rank, p->shape, o->stride, o->rotate, f);
    return true;
  }
  if (!head_is_iota(p, o, p->op == IXJ_OP_FILL)) return false;
  lmad_ldim td[IXJ_MAX_RANK];
  int64_t extent[IXJ_MAX_RANK], stride[IXJ_MAX_RANK], rotate[IXJ_MAX_RANK];
  ixj__lmad_logical_dims(&o->tail[0], td);
  for (int m = 0; m < o->tail[0].rank; m++) {
    extent[m] = td[m].extent;
    stride[m] = td[m].stride;
    rotate[m] = td[m].rotate;
  }
  group_dims(o->tail[0].rank, extent, stride, rotate, f);
  return true;
}

bool ixj__plan_unchain_flat(ixj_plan *p) {
  if (p->op == IXJ_OP_CAT || p->num_operands > 2) return false;
  flat_form form[2];
  bool any_chain = false;
  for (int o = 0; o < p->num_operands; o++) {
    if (p->op == IXJ_OP_FILL && o == 1) continue;
    any_chain = any_chain || p->operand[o].num_tail > 0;
    if (!flat_form_of(p, &p->operand[o], &form[o])) return false;
  }
  if (!any_chain) return false;
  /* the union of the group boundaries, ascending: each must divide the next */
  int64_t bound[IXJ_MAX_RANK + 1];
  int nb = 0;
  int at[2] = {0, 0};
  int users = p->op == IXJ_OP_FILL ? 1 : 2;
  for (;;) {
    int64_t next = INT64_MAX;
    for (int o = 0; o < users; o++)
      if (at[o] < form[o].count && form[o].end[at[o]] < next) next = form[o].end[at[o]];
    if (next == INT64_MAX) break;
    for (int o = 0; o < users; o++)
      if (at[o] < form[o].count && form[o].end[at[o]] == next) at[o]++;
    if (nb == IXJ_MAX_RANK || (nb && next % bound[nb - 1])) return false;
    bound[nb++] = next;
  }
  /* every new dim [bound[j-1], bound[j]) lies in one group of each operand */
  int64_t stride[2][IXJ_MAX_RANK], rotate[2][IXJ_MAX_RANK];
  for (int o = 0; o < users; o++) {
    int g = 0;
    for (int j = 0; j < nb; j++) {
      int64_t lo = j ? bound[j - 1] : 1, start;
      while (form[o].end[g] < bound[j]) g++;
      const sub_dim *d = &form[o].group[g];
      start = g ? form[o].end[g - 1] : 1;
      bool whole = lo == start && bound[j] == form[o].end[g];
      if (d->rotate && !whole) return false;
      if (__builtin_mul_overflow(d->stride, lo / start, &stride[o][j])) return false;
      rotate[o][j] = d->rotate;
    }
  }
  /* outermost first */
  p->rank = nb ? nb : 1;
  for (int j = 0; j < p->rank; j++) {
    int from = nb - 1 - j;
    p->shape[j] = nb ? bound[from] / (from ? bound[from - 1] : 1) : 1;
    for (int o = 0; o < users; o++) {
      plan_operand *x = &p->operand[o];
      x->stride[j] = nb ? stride[o][from] : 0;
      x->rotate[j] = nb ? rotate[o][from] : 0;
    }
  }
  for (int o = 0; o < users; o++) {
    plan_operand *x = &p->operand[o];
    x->num_tail = 0; /* a chain's head offset is 0 (head_is_iota); its runtime offset, the tail's, stays */
    x->tail = NULL;
  }
  return true;
}

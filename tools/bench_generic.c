/* The generic kernel: what a framework without a JIT runs (PyTorch's CPU
 * TensorIterator style). Shapes, strides and rotations are run-time data; a
 * row loop per element size moves single-LMAD operands, and chains and cat
 * decompose every point by run-time division. Split over a thread team by
 * rows (or points), so it runs at the same thread count as ixjit. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct layout {
  int64_t offset, stride[IXJ_MAX_RANK], rotate[IXJ_MAX_RANK], extent[IXJ_MAX_RANK];
} layout;

struct bench_generic {
  ixj_op_kind op;
  int elem_size, axis, num_srcs, rank;
  int64_t shape[IXJ_MAX_RANK], points;
  bool simple; /* every operand one LMAD, not a cat: the row loop */
  char *dst;
  const char *src[BENCH_MAX_SRCS];
  const ixj_ixfun *dfun, *sfun[BENCH_MAX_SRCS];
  int64_t src_extent[BENCH_MAX_SRCS]; /* cat: each input's extent along axis */
  layout ld, ls;
  unsigned char value[16];
};

/* Offset of point idx through a whole chain, run-time division per level. */
static int64_t chain_offset(const ixj_ixfun *f, const int64_t *idx) {
  int64_t digits[IXJ_MAX_RANK], x = 0;
  const int64_t *coord = idx;
  for (int m = 0; m < ixj_ixfun_num_lmads(f); m++) {
    const ixj_lmad *l = ixj_ixfun_lmad(f, m);
    if (m > 0) { /* unflatten by the logical shape */
      for (int k = l->rank - 1; k >= 0; k--) {
        int64_t e = l->shape[l->perm[k]];
        digits[k] = x % e;
        x /= e;
      }
      coord = digits;
    }
    int64_t off = l->offset;
    for (int k = 0; k < l->rank; k++) {
      int p = l->perm[k];
      off += ((coord[k] + l->rotate[p]) % (l->shape[p] ? l->shape[p] : 1)) * l->stride[p];
    }
    x = off;
  }
  return x;
}

static void layout_of(const ixj_ixfun *f, layout *r) {
  const ixj_lmad *l = ixj_ixfun_lmad(f, 0);
  r->offset = l->offset;
  for (int k = 0; k < l->rank; k++) {
    r->stride[k] = l->stride[l->perm[k]];
    r->rotate[k] = l->rotate[l->perm[k]];
    r->extent[k] = l->shape[l->perm[k]];
  }
}

/* Offset of a row start (innermost coordinate excluded). */
static int64_t row_offset(const layout *r, const int64_t *idx, int rank) {
  int64_t off = r->offset;
  for (int k = 0; k < rank - 1; k++) {
    int64_t i = idx[k] + r->rotate[k];
    if (i >= r->extent[k]) i -= r->extent[k];
    off += i * r->stride[k];
  }
  return off;
}

typedef struct { uint64_t lo, hi; } u128;

/* One row: dst[od + ((i + rd) mod n) * sd] = src[os + ((i + rs) mod n) * ss]. */
#define ROW_LOOPS(T)                                                                                        \
  static void copy_row_##T(char *d, const char *s, int64_t od, int64_t os, int64_t sd, int64_t ss, int64_t rd, \
                           int64_t rs, int64_t n) {                                                         \
    T *dp = (T *)(void *)d;                                                                                 \
    const T *sp = (const T *)(const void *)s;                                                               \
    if (!rd && !rs) {                                                                                       \
      for (int64_t i = 0; i < n; i++) dp[od + i * sd] = sp[os + i * ss];                                    \
      return;                                                                                               \
    }                                                                                                       \
    for (int64_t i = 0; i < n; i++) {                                                                       \
      int64_t id = i + rd >= n ? i + rd - n : i + rd, is = i + rs >= n ? i + rs - n : i + rs;               \
      dp[od + id * sd] = sp[os + is * ss];                                                                  \
    }                                                                                                       \
  }                                                                                                         \
  static void fill_row_##T(char *d, const void *value, int64_t od, int64_t sd, int64_t n) {                 \
    T *dp = (T *)(void *)d, v;                                                                              \
    memcpy(&v, value, sizeof v);                                                                            \
    for (int64_t i = 0; i < n; i++) dp[od + i * sd] = v;                                                    \
  }
ROW_LOOPS(uint8_t)
ROW_LOOPS(uint16_t)
ROW_LOOPS(uint32_t)
ROW_LOOPS(uint64_t)
ROW_LOOPS(u128)

static void unflatten(const int64_t *shape, int rank, int64_t n, int64_t *idx) {
  for (int k = rank - 1; k >= 0; k--) {
    idx[k] = shape[k] ? n % shape[k] : 0;
    n = shape[k] ? n / shape[k] : 0;
  }
}

static void run_rows(bench_generic *g, int64_t first, int64_t last) {
  int rank = g->rank;
  int64_t inner = g->shape[rank - 1], idx[IXJ_MAX_RANK] = {0};
  unflatten(g->shape, rank - 1, first, idx);
  int64_t sd = g->ld.stride[rank - 1], rd = g->ld.rotate[rank - 1];
  int64_t ss = g->ls.stride[rank - 1], rs = g->ls.rotate[rank - 1];
  for (int64_t row = first; row < last; row++) {
    int64_t od = row_offset(&g->ld, idx, rank);
    if (g->op == IXJ_OP_FILL) {
      switch (g->elem_size) {
      case 1: fill_row_uint8_t(g->dst, g->value, od, sd, inner); break;
      case 2: fill_row_uint16_t(g->dst, g->value, od, sd, inner); break;
      case 4: fill_row_uint32_t(g->dst, g->value, od, sd, inner); break;
      case 8: fill_row_uint64_t(g->dst, g->value, od, sd, inner); break;
      default: fill_row_u128(g->dst, g->value, od, sd, inner); break;
      }
      /* a fill has no rotation to honour: every point gets the same value */
    } else {
      int64_t os = row_offset(&g->ls, idx, rank);
      switch (g->elem_size) {
      case 1: copy_row_uint8_t(g->dst, g->src[0], od, os, sd, ss, rd, rs, inner); break;
      case 2: copy_row_uint16_t(g->dst, g->src[0], od, os, sd, ss, rd, rs, inner); break;
      case 4: copy_row_uint32_t(g->dst, g->src[0], od, os, sd, ss, rd, rs, inner); break;
      case 8: copy_row_uint64_t(g->dst, g->src[0], od, os, sd, ss, rd, rs, inner); break;
      default: copy_row_u128(g->dst, g->src[0], od, os, sd, ss, rd, rs, inner); break;
      }
    }
    for (int q = rank - 2; q >= 0 && ++idx[q] == g->shape[q]; q--) idx[q] = 0;
  }
}

/* Point by point: chains through run-time division, cat picks its input. */
static void run_points(bench_generic *g, int64_t first, int64_t last) {
  int rank = g->rank;
  size_t e = (size_t)g->elem_size;
  int64_t idx[IXJ_MAX_RANK] = {0}, local[IXJ_MAX_RANK];
  unflatten(g->shape, rank, first, idx);
  for (int64_t k = first; k < last; k++) {
    const void *from = g->value;
    if (g->op == IXJ_OP_COPY) {
      from = g->src[0] + chain_offset(g->sfun[0], idx) * (int64_t)e;
    } else if (g->op == IXJ_OP_CAT) {
      memcpy(local, idx, sizeof local);
      for (int q = 0; q < g->num_srcs; q++) {
        if (local[g->axis] < g->src_extent[q]) {
          from = g->src[q] + chain_offset(g->sfun[q], local) * (int64_t)e;
          break;
        }
        local[g->axis] -= g->src_extent[q];
      }
    }
    memcpy(g->dst + chain_offset(g->dfun, idx) * (int64_t)e, from, e);
    for (int q = rank - 1; q >= 0 && ++idx[q] == g->shape[q]; q--) idx[q] = 0;
  }
}

static void share(void *arg, int tid, int nthreads) {
  bench_generic *g = arg;
  int64_t units = g->simple ? g->points / g->shape[g->rank - 1] : g->points;
  int64_t first = units * tid / nthreads, last = units * (tid + 1) / nthreads;
  if (g->simple) run_rows(g, first, last);
  else run_points(g, first, last);
}

bench_generic *bench_generic_create(ixj_op_kind op, int elem_size, int axis, const ixj_operand *dst, int num_srcs,
                                    const ixj_operand *srcs, const void *value) {
  bench_generic *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->op = op;
  g->elem_size = elem_size;
  g->axis = axis;
  g->num_srcs = num_srcs;
  g->dst = dst->data;
  g->dfun = dst->ixfun;
  g->rank = ixj_ixfun_rank(dst->ixfun);
  g->points = ixj_ixfun_num_points(dst->ixfun);
  ixj_ixfun_shape(dst->ixfun, g->shape);
  if (value) memcpy(g->value, value, (size_t)elem_size);
  for (int q = 0; q < num_srcs; q++) {
    int64_t shape[IXJ_MAX_RANK];
    g->src[q] = srcs[q].data;
    g->sfun[q] = srcs[q].ixfun;
    ixj_ixfun_shape(srcs[q].ixfun, shape);
    g->src_extent[q] = op == IXJ_OP_CAT ? shape[axis] : 0;
  }
  g->simple = op != IXJ_OP_CAT && g->rank > 0 && g->shape[g->rank - 1] > 0 && ixj_ixfun_num_lmads(dst->ixfun) == 1 &&
              (op == IXJ_OP_FILL || ixj_ixfun_num_lmads(srcs[0].ixfun) == 1);
  if (g->simple) {
    layout_of(dst->ixfun, &g->ld);
    if (op == IXJ_OP_COPY) layout_of(srcs[0].ixfun, &g->ls);
  }
  return g;
}

void bench_generic_run(bench_generic *g, bench_team *t) {
  if (g->points == 0) return;
  if (g->rank == 0) { /* one point */
    share(g, 0, 1);
    return;
  }
  /* at least 32K points a thread, as ixjit's pool splits its work */
  int64_t units = g->simple ? g->points / g->shape[g->rank - 1] : g->points;
  int64_t per_unit = g->simple ? g->shape[g->rank - 1] : 1;
  bench_team_run(t, share, g, bench_team_share(units, (32768 + per_unit - 1) / per_unit));
}

void bench_generic_destroy(bench_generic *g) { free(g); }

/* The generic kernel (generic.h): the call's index functions read at run
 * time. A task is one copy or fill over an iteration shape; a cat is one
 * task per input, each writing its slice of the destination. Each operand is
 * an accessor: a single LMAD becomes per-logical-dim (stride, rotation,
 * modulus) arrays, walked a row at a time (the innermost logical dim, one
 * conditional subtraction per point for a rotation, memcpy when both sides
 * are unit-stride and unrotated); a chain is evaluated point by point through
 * ixj__ixfun_eval (run-time division per level). Rows are split over the
 * pool, at least 32K points a chunk, as the specialized kernels' launches
 * are. */
#include "generic.h"

#include <stdbool.h>
#include <string.h>

#include "ixfun_internal.h"

typedef struct accessor {
  const ixj_ixfun *chain; /* non-NULL: evaluate point by point */
  int axis;               /* chain: index[axis] += shift first (a cat's slice of its destination) */
  int64_t shift;
  int64_t offset;                 /* one LMAD: its offset ... */
  int64_t stride[IXJ_MAX_RANK];   /* ... and per logical dim its stride, */
  int64_t rotate[IXJ_MAX_RANK];   /* rotation (in [0, mod)), */
  int64_t mod[IXJ_MAX_RANK];      /* and extent (the modulus of the rotation) */
} accessor;

typedef struct task {
  ixj_op_kind op; /* COPY or FILL */
  size_t elem;
  int rank;       /* >= 1: a rank-0 call is one row of one point */
  int64_t shape[IXJ_MAX_RANK];
  char *dst;
  const char *src;
  const void *value;
  accessor d, s;
} task;

static void accessor_of(const ixj_ixfun *f, int rank, accessor *a) {
  memset(a, 0, sizeof *a);
  if (f->num_lmads > 1) {
    a->chain = f;
    return;
  }
  const ixj_lmad *l = &f->lmads[0];
  a->offset = l->offset;
  for (int k = 0; k < l->rank; k++) {
    int p = l->perm[k];
    a->stride[k] = l->stride[p];
    a->rotate[k] = l->rotate[p];
    a->mod[k] = l->shape[p];
  }
  if (l->rank == 0 && rank == 1) a->mod[0] = 1; /* the one point of a rank-0 call */
}

/* The accessor restricted to [start, ...) along axis: a rotation by start
 * for one LMAD (reduced into [0, mod)), an index shift for a chain. */
static void slice_accessor(accessor *a, int axis, int64_t start) {
  if (a->chain) {
    a->axis = axis;
    a->shift = start;
  } else if (a->mod[axis]) {
    a->rotate[axis] = (a->rotate[axis] + start % a->mod[axis]) % a->mod[axis];
  }
}

static inline int64_t wrap(int64_t i, int64_t m) { return i >= m ? i - m : i; }

/* The offset of the row at idx (innermost coordinate 0, unrotated). */
static int64_t row_base(const accessor *a, const int64_t *idx, int rank) {
  int64_t off = a->offset;
  for (int k = 0; k < rank - 1; k++) off += wrap(idx[k] + a->rotate[k], a->mod[k]) * a->stride[k];
  return off;
}

static int64_t point_offset(const accessor *a, int64_t *idx, int rank) {
  if (a->chain) {
    idx[a->axis] += a->shift;
    int64_t off = ixj__ixfun_eval(a->chain, a->chain->num_lmads - 1, idx);
    idx[a->axis] -= a->shift;
    return off;
  }
  return row_base(a, idx, rank) + wrap(idx[rank - 1] + a->rotate[rank - 1], a->mod[rank - 1]) * a->stride[rank - 1];
}

typedef struct u128 {
  uint64_t lo, hi;
} u128;

/* One row of n points: dst[od + wrap(i + rd) * sd] = src[os + wrap(i + rs) * ss]. */
#define ROW_LOOPS(T)                                                                                              \
  static void copy_row_##T(char *d, const char *s, int64_t od, int64_t os, int64_t sd, int64_t ss, int64_t rd,    \
                           int64_t rs, int64_t n) {                                                               \
    T *dp = (T *)(void *)d + od;                                                                                  \
    const T *sp = (const T *)(const void *)s + os;                                                                \
    if (!rd && !rs) {                                                                                             \
      if (sd == 1 && ss == 1) memcpy(dp, sp, (size_t)n * sizeof(T));                                              \
      else                                                                                                        \
        for (int64_t i = 0; i < n; i++) dp[i * sd] = sp[i * ss];                                                  \
      return;                                                                                                     \
    }                                                                                                             \
    for (int64_t i = 0; i < n; i++) dp[wrap(i + rd, n) * sd] = sp[wrap(i + rs, n) * ss];                          \
  }                                                                                                               \
  static void fill_row_##T(char *d, const void *value, int64_t od, int64_t sd, int64_t n) {                       \
    T *dp = (T *)(void *)d + od, v;                                                                               \
    memcpy(&v, value, sizeof v);                                                                                  \
    for (int64_t i = 0; i < n; i++) dp[i * sd] = v;                                                               \
  }
ROW_LOOPS(uint8_t)
ROW_LOOPS(uint16_t)
ROW_LOOPS(uint32_t)
ROW_LOOPS(uint64_t)
ROW_LOOPS(u128)

/* Whether an accessor's rows are one LMAD's that the row loops can walk:
 * unrotated innermost, or rotated with the row's own length as modulus (it
 * differs only along a cat's axis, where a sliced row wraps at the
 * destination's extent: the pointwise loop takes that). */
static bool row_walkable(const accessor *a, int r, int64_t n) { return !a->chain && (!a->rotate[r] || a->mod[r] == n); }

static bool fast_row(const task *t, const int64_t *idx) {
  int r = t->rank - 1;
  int64_t n = t->shape[r];
  if (!row_walkable(&t->d, r, n) || (t->op == IXJ_OP_COPY && !row_walkable(&t->s, r, n))) return false;
  int64_t od = row_base(&t->d, idx, t->rank), sd = t->d.stride[r], rd = t->d.rotate[r];
  if (t->op == IXJ_OP_FILL) { /* every point gets the same value: the rotation only reorders them */
    switch (t->elem) {
    case 1: fill_row_uint8_t(t->dst, t->value, od, sd, n); break;
    case 2: fill_row_uint16_t(t->dst, t->value, od, sd, n); break;
    case 4: fill_row_uint32_t(t->dst, t->value, od, sd, n); break;
    case 8: fill_row_uint64_t(t->dst, t->value, od, sd, n); break;
    default: fill_row_u128(t->dst, t->value, od, sd, n); break;
    }
    return true;
  }
  int64_t os = row_base(&t->s, idx, t->rank), ss = t->s.stride[r], rs = t->s.rotate[r];
  switch (t->elem) {
  case 1: copy_row_uint8_t(t->dst, t->src, od, os, sd, ss, rd, rs, n); break;
  case 2: copy_row_uint16_t(t->dst, t->src, od, os, sd, ss, rd, rs, n); break;
  case 4: copy_row_uint32_t(t->dst, t->src, od, os, sd, ss, rd, rs, n); break;
  case 8: copy_row_uint64_t(t->dst, t->src, od, os, sd, ss, rd, rs, n); break;
  default: copy_row_u128(t->dst, t->src, od, os, sd, ss, rd, rs, n); break;
  }
  return true;
}

static void run_rows(void *arg, uint64_t begin, uint64_t end) {
  const task *t = arg;
  int r = t->rank - 1;
  int64_t idx[IXJ_MAX_RANK] = {0}, row = (int64_t)begin;
  for (int k = r - 1; k >= 0; k--) { /* unflatten the first row over the outer dims */
    idx[k] = row % t->shape[k];
    row /= t->shape[k];
  }
  for (uint64_t q = begin; q < end; q++) {
    if (!fast_row(t, idx)) {
      for (idx[r] = 0; idx[r] < t->shape[r]; idx[r]++) {
        const void *from = t->op == IXJ_OP_FILL ? t->value : t->src + point_offset(&t->s, idx, t->rank) * (int64_t)t->elem;
        memcpy(t->dst + point_offset(&t->d, idx, t->rank) * (int64_t)t->elem, from, t->elem);
      }
      idx[r] = 0;
    }
    for (int k = r - 1; k >= 0 && ++idx[k] == t->shape[k]; k--) idx[k] = 0;
  }
}

static void run_task(thread_pool *pool, task *t) {
  uint64_t rows = 1, inner = (uint64_t)t->shape[t->rank - 1];
  for (int k = 0; k < t->rank; k++)
    if (t->shape[k] == 0) return;
  for (int k = 0; k < t->rank - 1; k++) rows *= (uint64_t)t->shape[k]; /* fits: the points do */
  uint64_t grain = inner >= 32768 ? 1 : 32768 / inner;
  if (pool && rows > grain) ixj__pool_run(pool, rows, grain, 1, run_rows, t);
  else run_rows(t, 0, rows);
}

void ixj__generic_run(thread_pool *pool, const op_call *c) {
  task t;
  memset(&t, 0, sizeof t);
  t.op = c->op == IXJ_OP_FILL ? IXJ_OP_FILL : IXJ_OP_COPY;
  t.elem = c->elem_size;
  t.dst = c->dst->data;
  t.value = c->value;
  int rank = ixj_ixfun_rank(c->dst->ixfun);
  t.rank = rank ? rank : 1;
  ixj_ixfun_shape(c->dst->ixfun, t.shape);
  if (!rank) t.shape[0] = 1;
  accessor_of(c->dst->ixfun, t.rank, &t.d);
  if (c->op != IXJ_OP_CAT) {
    if (c->op == IXJ_OP_COPY) {
      t.src = c->srcs[0].data;
      accessor_of(c->srcs[0].ixfun, t.rank, &t.s);
    }
    run_task(pool, &t);
    return;
  }
  accessor whole = t.d;
  int64_t start = 0, extent[IXJ_MAX_RANK];
  for (int q = 0; q < c->num_srcs; q++) { /* input q into the destination's slice [start, start + its extent) */
    ixj_ixfun_shape(c->srcs[q].ixfun, extent);
    t.shape[c->axis] = extent[c->axis];
    t.d = whole;
    slice_accessor(&t.d, c->axis, start);
    t.src = c->srcs[q].data;
    accessor_of(c->srcs[q].ixfun, t.rank, &t.s);
    run_task(pool, &t);
    start += extent[c->axis];
  }
}

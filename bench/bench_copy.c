/* Copy benchmark: for each demo case at sizes well beyond the caches, the
 * bandwidth (bytes read + written, GB/s) of
 *   - ixjit's specialized kernel (1 thread, and the default thread count),
 *   - memcpy of the same bytes,
 *   - a generic kernel that takes shapes and strides at run time (the
 *     PyTorch-style approach: odometer loops with runtime strides and
 *     rotations; runtime division through an LMAD chain),
 * all measured in the same run, medians of REPS runs, and the ratios.
 *
 * usage: bench_copy [--scale S]   (S = 1: 64 MiB outputs; smaller S for a quick run) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ixjit/ixjit.h"
#include "timing.h"

#define REPS 5

typedef struct bench_case {
  const char *name;
  ixj_op_kind op;
  const char *dst, *src[2];
  int axis;
} bench_case;

/* ---- the generic kernel ---------------------------------------------------- */

/* Offset of point idx through a whole chain, runtime division per level. */
static int64_t generic_offset(const ixj_ixfun *f, const int64_t *idx) {
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

/* Runtime layout of a single-LMAD operand, in the destination's logical dim
 * order: what a generic kernel receives as arguments. */
typedef struct rt_layout {
  int64_t offset, stride[IXJ_MAX_RANK], rotate[IXJ_MAX_RANK], extent[IXJ_MAX_RANK];
} rt_layout;

static void layout_of(const ixj_ixfun *f, rt_layout *r) {
  const ixj_lmad *l = ixj_ixfun_lmad(f, 0);
  r->offset = l->offset;
  for (int k = 0; k < l->rank; k++) {
    r->stride[k] = l->stride[l->perm[k]];
    r->rotate[k] = l->rotate[l->perm[k]];
    r->extent[k] = l->shape[l->perm[k]];
  }
}

/* Offset of a row start (innermost coordinate 0 excluded). */
static int64_t row_offset(const rt_layout *r, const int64_t *idx, int rank) {
  int64_t off = r->offset;
  for (int k = 0; k < rank - 1; k++) {
    int64_t i = idx[k] + r->rotate[k];
    if (i >= r->extent[k]) i -= r->extent[k];
    off += i * r->stride[k];
  }
  return off;
}

/* dst = src: rows of the destination's shape, runtime strides and rotations
 * (PyTorch's CPU TensorIterator style); through a chain, runtime division per
 * element; cat picks the input per element. */
static void generic_run(const bench_case *c, const ixj_operand *d, const ixj_operand *s, int nsrc, float value) {
  int rank = ixj_ixfun_rank(d->ixfun);
  int64_t shape[IXJ_MAX_RANK], idx[IXJ_MAX_RANK] = {0}, n = ixj_ixfun_num_points(d->ixfun);
  ixj_ixfun_shape(d->ixfun, shape);
  float *dp = d->data;
  bool simple = c->op != IXJ_OP_CAT && ixj_ixfun_num_lmads(d->ixfun) == 1 &&
                (c->op == IXJ_OP_FILL || ixj_ixfun_num_lmads(s[0].ixfun) == 1);
  if (simple && rank > 0) {
    rt_layout ld, ls;
    layout_of(d->ixfun, &ld);
    if (c->op == IXJ_OP_COPY) layout_of(s[0].ixfun, &ls);
    const float *sp = c->op == IXJ_OP_COPY ? s[0].data : NULL;
    int64_t inner = shape[rank - 1];
    for (int64_t row = 0; row < n / (inner ? inner : 1); row++) {
      int64_t od = row_offset(&ld, idx, rank), os = sp ? row_offset(&ls, idx, rank) : 0;
      int64_t rd = ld.rotate[rank - 1], rs = sp ? ls.rotate[rank - 1] : 0;
      for (int64_t i = 0; i < inner; i++) {
        int64_t id = i + rd >= inner ? i + rd - inner : i + rd, is = i + rs >= inner ? i + rs - inner : i + rs;
        dp[od + id * ld.stride[rank - 1]] = sp ? sp[os + is * ls.stride[rank - 1]] : value;
      }
      for (int q = rank - 2; q >= 0 && ++idx[q] == shape[q]; q--) idx[q] = 0;
    }
    return;
  }
  for (int64_t k = 0; k < n; k++) {
    float v = value;
    if (c->op == IXJ_OP_COPY) {
      v = ((const float *)s[0].data)[generic_offset(s[0].ixfun, idx)];
    } else if (c->op == IXJ_OP_CAT) {
      int64_t local[IXJ_MAX_RANK], sshape[IXJ_MAX_RANK];
      memcpy(local, idx, sizeof local);
      for (int q = 0; q < nsrc; q++) {
        ixj_ixfun_shape(s[q].ixfun, sshape);
        if (local[c->axis] < sshape[c->axis]) {
          v = ((const float *)s[q].data)[generic_offset(s[q].ixfun, local)];
          break;
        }
        local[c->axis] -= sshape[c->axis];
      }
    }
    dp[generic_offset(d->ixfun, idx)] = v;
    for (int q = rank - 1; q >= 0 && ++idx[q] == shape[q]; q--) idx[q] = 0;
  }
}

static ixj_status run_ixjit(ixj_context *ctx, const bench_case *c, const ixj_operand *d, const ixj_operand *s, int nsrc,
                            const float *value, double *ms) {
  ixj_call_info info;
  ixj_error err;
  ixj_status st = c->op == IXJ_OP_COPY ? ixj_copy(ctx, d, &s[0], 4, &info, &err)
                  : c->op == IXJ_OP_FILL ? ixj_fill(ctx, d, value, 4, &info, &err)
                                         : ixj_cat(ctx, d, c->axis, nsrc, s, 4, &info, &err);
  if (st != IXJ_OK) fprintf(stderr, "%s: %s\n", c->name, err.message);
  *ms = info.run_ms;
  return st;
}

int main(int argc, char **argv) {
  int n = 4096; /* 64 MiB of float32 per output */
  if (argc == 3 && !strcmp(argv[1], "--scale")) n = (int)(4096 * atof(argv[2]));
  if (n < 64) n = 64;
  n -= n % 16;
  char dst[8][128], src[8][2][128];
  snprintf(dst[0], 128, "iota %d %d", n, n);
  snprintf(src[0][0], 128, "iota %d %d | permute 1 0", n, n);
  int c3 = 1;
  while ((c3 + 1) * (c3 + 1) * (c3 + 1) <= n * n) c3++;
  c3 -= c3 % 4;
  snprintf(dst[1], 128, "iota %d %d %d", c3, c3, c3);
  snprintf(src[1][0], 128, "iota %d %d %d | permute 2 0 1", c3, c3, c3);
  snprintf(dst[2], 128, "iota %d %d", n, n / 2);
  snprintf(src[2][0], 128, "iota %d %d | slice ::-1 ::2", n, n);
  snprintf(dst[3], 128, "iota %d %d", n, n);
  snprintf(src[3][0], 128, "iota %d %d | rotate 100 -37", n, n);
  snprintf(dst[4], 128, "iota %d %d", n / 2, 2 * n);
  snprintf(src[4][0], 128, "iota %d %d | permute 1 0 | reshape %d %d", n, n, n / 2, 2 * n);
  snprintf(dst[5], 128, "iota %d %d", n, n);
  snprintf(src[5][0], 128, "iota %d %d", n, n / 2);
  snprintf(src[5][1], 128, "iota %d %d | permute 1 0", n / 2, n);
  snprintf(dst[6], 128, "iota %d %d", n, n);
  bench_case cases[] = {
      {"2-D transpose", IXJ_OP_COPY, dst[0], {src[0][0]}, 0},
      {"3-D permute (2,0,1)", IXJ_OP_COPY, dst[1], {src[1][0]}, 0},
      {"reversed strided slice", IXJ_OP_COPY, dst[2], {src[2][0]}, 0},
      {"rotate", IXJ_OP_COPY, dst[3], {src[3][0]}, 0},
      {"reshape of a transposed view", IXJ_OP_COPY, dst[4], {src[4][0]}, 0},
      {"cat (2 inputs, axis 1)", IXJ_OP_CAT, dst[5], {src[5][0], src[5][1]}, 1},
      {"fill", IXJ_OP_FILL, dst[6], {NULL}, 0},
  };
  ixj_context *one, *many;
  ixj_error err;
  if (ixj_context_create(&(ixj_context_options){.num_threads = 1, .disk_cache = -1}, &one, &err) != IXJ_OK ||
      ixj_context_create(&(ixj_context_options){.disk_cache = -1}, &many, &err) != IXJ_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  printf("ixjit copy benchmark on %s; GB/s = bytes read + written; medians of %d runs\n", ixj_context_target(one), REPS);
  printf("%-30s %9s %9s %9s %9s %9s %11s %11s\n", "case", "MiB", "ixjit x1", "ixjit xN", "memcpy", "generic",
         "x1/memcpy", "x1/generic");
  float value = 3.0f;
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const bench_case *c = &cases[k];
    ixj_ixfun *d = NULL, *s[2] = {NULL, NULL};
    int nsrc = 0;
    if (ixj_ixfun_parse(c->dst, &d, &err) != IXJ_OK) return 1;
    for (; nsrc < 2 && c->src[nsrc]; nsrc++)
      if (ixj_ixfun_parse(c->src[nsrc], &s[nsrc], &err) != IXJ_OK) return 1;
    size_t out = (size_t)ixj_ixfun_num_points(d) * 4, dsize, ssize[2];
    if (ixj_ixfun_required_bytes(d, 4, &dsize, &err) != IXJ_OK) {
      fprintf(stderr, "%s: destination: %s\n", c->name, err.message);
      return 1;
    }
    for (int q = 0; q < nsrc; q++)
      if (ixj_ixfun_required_bytes(s[q], 4, &ssize[q], &err) != IXJ_OK) {
        fprintf(stderr, "%s: source %d: %s\n", c->name, q + 1, err.message);
        return 1;
      }
    ixj_operand od = {malloc(dsize), dsize, d}, os[2];
    char *a = malloc(out), *b = malloc(out);
    bool have = od.data && a && b;
    for (int q = 0; q < nsrc; q++) {
      os[q] = (ixj_operand){malloc(ssize[q]), ssize[q], s[q]};
      have = have && os[q].data;
    }
    if (!have) {
      fprintf(stderr, "%s: out of memory\n", c->name);
      return 1;
    }
    for (int q = 0; q < nsrc; q++) memset(os[q].data, 1, ssize[q]);
    memset(od.data, 0, dsize);
    memset(a, 1, out);
    memset(b, 2, out);
    double t1[REPS], tn[REPS], tm[REPS], tg[REPS];
    for (int r = 0; r < REPS; r++) {
      run_ixjit(one, c, &od, os, nsrc, &value, &t1[r]);
      run_ixjit(many, c, &od, os, nsrc, &value, &tn[r]);
      double t0 = now_ms();
      memcpy(b, a, out);
      tm[r] = now_ms() - t0;
      t0 = now_ms();
      generic_run(c, &od, os, nsrc, value);
      tg[r] = now_ms() - t0;
    }
    double moved = (double)out * (c->op == IXJ_OP_FILL ? 1 : 2);
    double g1 = moved / (median(t1, REPS) * 1e6), gn = moved / (median(tn, REPS) * 1e6);
    double gm = 2.0 * (double)out / (median(tm, REPS) * 1e6), gg = moved / (median(tg, REPS) * 1e6);
    printf("%-30s %9.0f %9.2f %9.2f %9.2f %9.2f %11.2f %11.2f\n", c->name, (double)out / (1 << 20), g1, gn, gm, gg,
           g1 / gm, g1 / gg);
    free(od.data);
    free(a);
    free(b);
    for (int q = 0; q < nsrc; q++) {
      free(os[q].data);
      ixj_ixfun_free(s[q]);
    }
    ixj_ixfun_free(d);
  }
  ixj_context_destroy(one);
  ixj_context_destroy(many);
  return 0;
}

/* Anti-unification (Futhark's leastGeneralGeneralization) and closeEnough's
 * companion: two concrete single-LMAD index functions become one with holes
 * where their values differ. */
#include "ixfun_internal.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

#define MAX_HOLES (4 * IXJ_MAX_RANK + 1)

struct ixj_ixfun_general {
  ixj_ixfun *shape_of; /* the first function: structure and concrete values */
  ixfun_holes holes;
  bool contiguous;
  int num_holes;
  int64_t in_a[MAX_HOLES], in_b[MAX_HOLES];
};

/* Futhark's generalization of one value: equal values stay, a differing pair
 * becomes a hole, reused when the same pair was seen before. */
static int generalize_value(ixj_ixfun_general *g, int64_t a, int64_t b) {
  if (a == b) return -1;
  for (int k = 0; k < g->num_holes; k++)
    if (g->in_a[k] == a && g->in_b[k] == b) return k;
  g->in_a[g->num_holes] = a;
  g->in_b[g->num_holes] = b;
  return g->num_holes++;
}

ixj_status ixj_ixfun_generalize(const ixj_ixfun *a, const ixj_ixfun *b, ixj_ixfun_general **out,
                                ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, a && b && out);
  *out = NULL;
  if (a->num_lmads != 1 || b->num_lmads != 1)
    return ixj__fail(err, IXJ_ERR_MISMATCH, "generalize: both functions must have one LMAD (have %d and %d)",
                    a->num_lmads, b->num_lmads);
  if (a->base_rank != b->base_rank)
    return ixj__fail(err, IXJ_ERR_MISMATCH, "generalize: base ranks differ (%d and %d)", a->base_rank, b->base_rank);
  if (ixj_ixfun_is_contiguous(a) != ixj_ixfun_is_contiguous(b))
    return ixj__fail(err, IXJ_ERR_MISMATCH, "generalize: one function is contiguous and the other is not");
  const ixj_lmad *la = &a->lmads[0], *lb = &b->lmads[0];
  if (la->rank != lb->rank)
    return ixj__fail(err, IXJ_ERR_MISMATCH, "generalize: ranks differ (%d and %d)", la->rank, lb->rank);
  for (int k = 0; k < la->rank; k++) {
    if (la->perm[k] != lb->perm[k])
      return ixj__fail(err, IXJ_ERR_MISMATCH, "generalize: permutations differ");
    if (ixj_lmad_dim_monotonicity(la, k) != ixj_lmad_dim_monotonicity(lb, k))
      return ixj__fail(err, IXJ_ERR_MISMATCH, "generalize: monotonicity of dim %d differs", k);
  }
  ixj_ixfun_general *g = calloc(1, sizeof *g);
  if (!g) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  ixj_status st = ixj_ixfun_clone(a, &g->shape_of, err);
  if (st != IXJ_OK) {
    free(g);
    return st;
  }
  g->contiguous = ixj_ixfun_is_contiguous(a);
  int r = la->rank;
  for (int k = 0; k < r; k++) g->holes.shape[k] = generalize_value(g, la->shape[k], lb->shape[k]);
  for (int k = 0; k < a->base_rank; k++) g->holes.base[k] = generalize_value(g, a->base[k], b->base[k]);
  for (int k = 0; k < r; k++) g->holes.stride[k] = generalize_value(g, la->stride[k], lb->stride[k]);
  for (int k = 0; k < r; k++) g->holes.rotate[k] = generalize_value(g, la->rotate[k], lb->rotate[k]);
  g->holes.offset = generalize_value(g, la->offset, lb->offset);
  *out = g;
  return IXJ_OK;
}

int ixj_general_num_holes(const ixj_ixfun_general *g) { return g->num_holes; }

void ixj_general_hole(const ixj_ixfun_general *g, int k, int64_t *in_a, int64_t *in_b) {
  if (!g || k < 0 || k >= g->num_holes) return; /* no such hole: the outputs stay as they were */
  if (in_a) *in_a = g->in_a[k];
  if (in_b) *in_b = g->in_b[k];
}

static int64_t fill(int hole, int64_t concrete, const int64_t *values) {
  return hole >= 0 ? values[hole] : concrete;
}

ixj_status ixj_general_instantiate(const ixj_ixfun_general *g, const int64_t *values, ixj_ixfun **out,
                                   ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, g && out && (values || g->num_holes == 0));
  const ixj_ixfun *f = g->shape_of;
  ixj_lmad l = f->lmads[0];
  int64_t base[IXJ_MAX_RANK];
  l.offset = fill(g->holes.offset, l.offset, values);
  for (int k = 0; k < l.rank; k++) {
    l.stride[k] = fill(g->holes.stride[k], l.stride[k], values);
    l.rotate[k] = fill(g->holes.rotate[k], l.rotate[k], values);
    l.shape[k] = fill(g->holes.shape[k], l.shape[k], values);
  }
  for (int k = 0; k < f->base_rank; k++) base[k] = fill(g->holes.base[k], f->base[k], values);
  return ixj_ixfun_from_lmads(1, &l, f->base_rank, base, out, err);
}

size_t ixj_general_format(const ixj_ixfun_general *g, char *buf, size_t size) {
  return ixj__ixfun_format(g->shape_of, &g->holes, g->contiguous, buf, size);
}

void ixj_general_free(ixj_ixfun_general *g) {
  if (!g) return;
  ixj_ixfun_free(g->shape_of);
  free(g);
}

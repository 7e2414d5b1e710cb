/* The reference interpreter: one point at a time through ixj_ixfun_index.
 * Slow and obviously right; the oracle of the tests and of --check. */
#include <string.h>

#include "ixfun_internal.h"
#include "validate.h"

/* Calls visit(point, arg) for every logical index of shape, row-major. */
static void for_each_point(int rank, const int64_t *shape, int64_t count, void (*visit)(const int64_t *, void *),
                           void *arg) {
  int64_t idx[IXJ_MAX_RANK] = {0};
  for (int64_t n = 0; n < count; n++) {
    visit(idx, arg);
    for (int k = rank - 1; k >= 0 && ++idx[k] == shape[k]; k--) idx[k] = 0;
  }
}

typedef struct ref_state {
  const op_call *c;
  int rank;
} ref_state;

static char *element(const ixj_operand *o, const int64_t *idx, int rank, size_t elem) {
  int64_t off;
  ixj_ixfun_index(o->ixfun, rank, idx, &off, NULL); /* in range: validated */
  return (char *)o->data + off * (int64_t)elem;
}

static void visit(const int64_t *idx, void *arg) {
  ref_state *s = arg;
  const op_call *c = s->c;
  char *d = element(c->dst, idx, s->rank, c->elem_size);
  if (c->op == IXJ_OP_FILL) {
    memcpy(d, c->value, c->elem_size);
  } else if (c->op == IXJ_OP_COPY) {
    memcpy(d, element(&c->srcs[0], idx, s->rank, c->elem_size), c->elem_size);
  } else {
    int64_t local[IXJ_MAX_RANK], shape[IXJ_MAX_RANK];
    memcpy(local, idx, sizeof(int64_t) * (size_t)s->rank);
    for (int k = 0; k < c->num_srcs; k++) {
      ixj_ixfun_shape(c->srcs[k].ixfun, shape);
      if (local[c->axis] < shape[c->axis]) {
        memcpy(d, element(&c->srcs[k], local, s->rank, c->elem_size), c->elem_size);
        return;
      }
      local[c->axis] -= shape[c->axis];
    }
  }
}

static ixj_status reference_run(const op_call *c, ixj_error *err) {
  ixj_status st = ixj__op_validate(c, err);
  if (st != IXJ_OK) return st;
  int64_t shape[IXJ_MAX_RANK];
  ref_state s = {c, ixj_ixfun_rank(c->dst->ixfun)};
  ixj_ixfun_shape(c->dst->ixfun, shape);
  for_each_point(s.rank, shape, ixj_ixfun_num_points(c->dst->ixfun), visit, &s);
  return IXJ_OK;
}

ixj_status ixj_reference_copy(const ixj_operand *dst, const ixj_operand *src, size_t elem_size, ixj_error *err) {
  op_call c = {IXJ_OP_COPY, elem_size, dst, 1, src, NULL, 0, false};
  return reference_run(&c, err);
}

ixj_status ixj_reference_fill(const ixj_operand *dst, const void *value, size_t elem_size, ixj_error *err) {
  op_call c = {IXJ_OP_FILL, elem_size, dst, 0, NULL, value, 0, false};
  return reference_run(&c, err);
}

ixj_status ixj_reference_cat(const ixj_operand *dst, int axis, int num_srcs, const ixj_operand *srcs,
                             size_t elem_size, ixj_error *err) {
  op_call c = {IXJ_OP_CAT, elem_size, dst, num_srcs, srcs, NULL, axis, false};
  return reference_run(&c, err);
}

/* The binary plan key (plan_key.h). The plan's scalar header (everything
 * before the operands) is keyed as its bytes, so a field the planner adds
 * there is keyed without an edit here; the planner zeroes the plan first, so
 * padding is zero, but select_dims leaves garbage in shape[] past the rank:
 * those are zeroed in the copy. Operands and tails are keyed field by field,
 * their dims only up to their rank, without what is passed at run time (the
 * memory-side offset) or borrowed (the tail pointer). Every list is preceded
 * by its length, so the encoding is unambiguous. */
#include "plan_key.h"

#include <stddef.h>
#include <string.h>

/* A field added to an operand, a part or an LMAD must be keyed below (or
 * shown to be derived from keyed ones): these fail to compile until then. */
_Static_assert(sizeof(plan_operand) == 2 * IXJ_MAX_RANK * 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8, "plan_operand changed: key it");
_Static_assert(sizeof(plan_part) == 12 * 4 + 3 * 8, "plan_part changed: key it");
_Static_assert(sizeof(ixj_lmad) == 8 + 8 + 3 * IXJ_MAX_RANK * 8 + IXJ_MAX_RANK * 4, "ixj_lmad changed: key it");

typedef struct key_buf {
  uint8_t *buf;
  size_t size, len;
} key_buf;

static void put(key_buf *k, const void *v, size_t n) {
  if (k->len < k->size) memcpy(k->buf + k->len, v, k->len + n <= k->size ? n : k->size - k->len);
  k->len += n;
}

static void put_i64(key_buf *k, int64_t v) { put(k, &v, sizeof v); }

static void put_list(key_buf *k, int n, const int64_t *v) {
  put_i64(k, n);
  put(k, v, (size_t)n * sizeof *v);
}

size_t ixj__plan_key(const ixj_plan *p, const char *target, uint8_t *buf, size_t size) {
  key_buf k = {buf, size, 0};
  size_t tlen = strlen(target);
  put_i64(&k, (int64_t)tlen);
  put(&k, target, tlen);
  unsigned char head[offsetof(ixj_plan, operand)]; /* the scalar header only, a few hundred bytes */
  memcpy(head, p, sizeof head);
  for (int j = p->rank < 0 ? 0 : p->rank; j < IXJ_MAX_RANK; j++)
    memset(head + offsetof(ixj_plan, shape) + (size_t)j * sizeof p->shape[0], 0, sizeof p->shape[0]);
  put(&k, head, sizeof head);
  put_i64(&k, (int64_t)p->work_units);
  put_i64(&k, p->num_parts);
  put_i64(&k, p->part_vector_bytes);
  put_i64(&k, p->part_zen);
  put(&k, p->part, (size_t)p->num_parts * sizeof p->part[0]);
  for (int o = 0; o < p->num_operands; o++) {
    const plan_operand *x = &p->operand[o];
    put_list(&k, p->rank, x->stride);
    put_list(&k, p->rank, x->rotate);
    put_i64(&k, x->head_offset);
    put_i64(&k, x->cat_start);
    put_i64(&k, x->cat_extent);
    put_i64(&k, x->cut_axis);
    put_i64(&k, x->cut_start);
    put_i64(&k, x->cut_extent);
    put_i64(&k, x->arg);
    put_i64(&k, x->num_tail);
    for (int m = 0; m < x->num_tail; m++) {
      const ixj_lmad *l = &x->tail[m];
      int64_t perm[IXJ_MAX_RANK];
      for (int d = 0; d < l->rank; d++) perm[d] = l->perm[d];
      put_i64(&k, plan_tail_offset(x, m));
      put_list(&k, l->rank, l->stride);
      put_list(&k, l->rank, l->rotate);
      put_list(&k, l->rank, l->shape);
      put_list(&k, l->rank, perm);
    }
  }
  return k.len;
}

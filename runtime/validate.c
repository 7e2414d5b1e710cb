/* Checks before any launch. Nothing runs unless every reachable offset of
 * every operand lies inside its buffer, so no kernel can write outside the
 * destination. */
#include "validate.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "checked.h"
#include "error.h"
#include "ixfun_internal.h"
#include "ixjit/kernel.h"

static bool valid_elem_size(size_t e) { return e == 1 || e == 2 || e == 4 || e == 8 || e == 16; }

/* Byte range [lo, hi) of an operand's reachable elements; false when empty. */
typedef struct byte_range {
  uintptr_t lo, hi;
} byte_range;

static ixj_status check_operand(const ixj_operand *o, size_t elem, const char *what, bool shapes_only, byte_range *r,
                                bool *empty, ixj_error *err) {
  if (!o || !o->ixfun) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: missing operand or index function", what);
  ixj_offset_range range = ixj_ixfun_offset_range(o->ixfun);
  *empty = range.empty || shapes_only;
  if (*empty) return IXJ_OK;
  if (!o->data) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: NULL data pointer", what);
  uintptr_t buffer_end; /* every byte range below is formed by adding to data: it must not wrap */
  if (__builtin_add_overflow((uintptr_t)o->data, (uintptr_t)o->size_bytes, &buffer_end))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: the buffer of %zu bytes at %p wraps around the address space",
                    what, o->size_bytes, o->data);
  size_t end;
  if (ixj_ixfun_required_bytes(o->ixfun, elem, &end, NULL) == IXJ_OK && end <= o->size_bytes) {
    r->lo = (uintptr_t)o->data + (uintptr_t)range.min * elem;
    r->hi = (uintptr_t)o->data + (uintptr_t)end;
    return IXJ_OK;
  }
  /* A chain's enclosure may be loose: look closer (only on this path), at
   * the offsets the points really reach, found once per index function and
   * kept on it. */
  uint64_t exact_end;
  ixj__ixfun_exact_range(o->ixfun, NULL, &range);
  if (range.min < 0)
    return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "%s: the index function reaches offset %lld, before the buffer", what,
                    (long long)range.min);
  if (__builtin_mul_overflow((uint64_t)range.max + 1, (uint64_t)elem, &exact_end) || exact_end > o->size_bytes)
    return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE,
                    "%s: buffer too small: the index function reaches element %lld (%zu-byte elements) but the "
                    "buffer has %zu bytes",
                    what, (long long)range.max, elem, o->size_bytes);
  r->lo = (uintptr_t)o->data + (uintptr_t)range.min * elem;
  r->hi = (uintptr_t)o->data + (uintptr_t)exact_end;
  return IXJ_OK;
}

/* "source" or "input N", for messages: written by hand, since every call
 * passes here and a hit formats nothing. */
static void input_name(ixj_op_kind op, int s, char what[32]) {
  if (op == IXJ_OP_COPY) {
    memcpy(what, "source", sizeof "source");
    return;
  }
  char digits[12];
  int n = 0;
  do digits[n++] = (char)('0' + s % 10);
  while ((s /= 10) > 0);
  memcpy(what, "input ", 6);
  for (int k = 0; k < n; k++) what[6 + k] = digits[n - 1 - k];
  what[6 + n] = '\0';
}

static bool same_shape_except(const ixj_ixfun *a, const ixj_ixfun *b, int axis) {
  int64_t sa[IXJ_MAX_RANK], sb[IXJ_MAX_RANK];
  if (ixj_ixfun_rank(a) != ixj_ixfun_rank(b)) return false;
  ixj_ixfun_shape(a, sa);
  ixj_ixfun_shape(b, sb);
  for (int k = 0; k < ixj_ixfun_rank(a); k++)
    if (k != axis && sa[k] != sb[k]) return false;
  return true;
}

ixj_status ixj__op_validate(const op_call *c, ixj_error *err) {
  byte_range dr = {0, 0}, sr;
  bool dst_empty, src_empty;
  char what[32];
  if ((int)c->op < (int)IXJ_OP_COPY || (int)c->op > (int)IXJ_OP_CAT) /* a cast from outside the enum */
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "operation %d is not copy, fill or cat", (int)c->op);
  if (!valid_elem_size(c->elem_size))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "element size %zu is not 1, 2, 4, 8 or 16", c->elem_size);
  ixj_status st = check_operand(c->dst, c->elem_size, "destination", c->shapes_only, &dr, &dst_empty, err);
  if (st != IXJ_OK) return st;
  const ixj_ixfun *d = c->dst->ixfun;
  int rank = ixj_ixfun_rank(d);
  int64_t dshape[IXJ_MAX_RANK];
  ixj_ixfun_shape(d, dshape);
  if (c->op == IXJ_OP_CAT) {
    if (c->num_srcs < 1 || c->num_srcs > IXJ_MAX_CAT_INPUTS)
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cat takes 1..%d inputs, not %d", IXJ_MAX_CAT_INPUTS, c->num_srcs);
    if (c->axis < 0 || c->axis >= rank)
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cat axis %d is outside 0..%d", c->axis, rank - 1);
  } else if (c->op == IXJ_OP_COPY && c->num_srcs != 1) {
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "copy takes one source");
  }
  if (c->op == IXJ_OP_FILL && !c->value && !c->shapes_only) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "fill: NULL value");
  /* before the sources' checks, with buffers (a call) or without (a prepared
   * kernel's shapes only, where dst_empty is always true): both report a
   * broadcast destination the same way, as the reference interpreter does */
  if (!ixj_ixfun_offset_range(d).empty && !ixj__ixfun_injective(d))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT,
                    "destination: the index function may map two points to one offset (a broadcast or overlapping "
                    "strides); copy into a materialized array instead");
  int64_t along = 0;
  for (int s = 0; s < (c->op == IXJ_OP_FILL ? 0 : c->num_srcs); s++) {
    const ixj_operand *src = c->srcs ? &c->srcs[s] : NULL;
    input_name(c->op, s, what);
    if ((st = check_operand(src, c->elem_size, what, c->shapes_only, &sr, &src_empty, err)) != IXJ_OK) return st;
    if (c->op == IXJ_OP_COPY) {
      if (!same_shape_except(d, src->ixfun, -1))
        return ixj__fail(err, IXJ_ERR_MISMATCH, "copy: the source's shape differs from the destination's");
    } else {
      int64_t sshape[IXJ_MAX_RANK];
      if (!same_shape_except(d, src->ixfun, c->axis))
        return ixj__fail(err, IXJ_ERR_MISMATCH, "cat: %s's shape differs from the destination's outside axis %d", what,
                        c->axis);
      ixj_ixfun_shape(src->ixfun, sshape);
      if (ixj_add_ovf(along, sshape[c->axis], &along))
        return ixj__fail(err, IXJ_ERR_OVERFLOW, "cat: extents overflow");
    }
    if (!dst_empty && !src_empty && sr.lo < dr.hi && dr.lo < sr.hi)
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s overlaps the destination's memory", what);
  }
  if (c->op == IXJ_OP_CAT && along != dshape[c->axis])
    return ixj__fail(err, IXJ_ERR_MISMATCH, "cat: the inputs' extents along axis %d add up to %lld, not %lld", c->axis,
                    (long long)along, (long long)dshape[c->axis]);
  if (c->op == IXJ_OP_FILL && !dst_empty) {
    uintptr_t v = (uintptr_t)c->value;
    if (v < dr.hi && dr.lo < v + c->elem_size)
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "fill: the value overlaps the destination's memory");
  }
  return IXJ_OK;
}

ixj_status ixj__prepare_validate(ixj_op_kind op, const ixj_ixfun *dst, int num_srcs, const ixj_ixfun *const *srcs,
                                 int axis, size_t elem_size, unsigned flags, ixj_error *err) {
  if (flags != IXJ_PREPARE_DEFAULT) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "unknown flags 0x%x", flags);
  if (op == IXJ_OP_COPY && num_srcs != 1) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "copy: missing source");
  if (num_srcs < 0 || num_srcs > IXJ_MAX_CAT_INPUTS)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cat takes 1..%d inputs, not %d", IXJ_MAX_CAT_INPUTS, num_srcs);
  for (int s = 0; s < num_srcs; s++)
    if (!srcs[s]) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "input %d: missing index function", s);
  ixj_operand ops[1 + IXJ_MAX_CAT_INPUTS];
  ops[0] = (ixj_operand){NULL, 0, dst};
  for (int s = 0; s < num_srcs; s++) ops[1 + s] = (ixj_operand){NULL, 0, srcs[s]};
  op_call c = {op, elem_size, &ops[0], num_srcs, &ops[1], NULL, axis, true};
  return ixj__op_validate(&c, err);
}

ixj_status ixj__operand_range(const ixj_ixfun *f, size_t elem_size, int o, operand_range *out, ixj_error *err) {
  /* the enclosure of the reachable offsets (exact for one LMAD) */
  ixj_offset_range r = ixj_ixfun_offset_range(f);
  size_t end = 0;
  *out = (operand_range){r.empty, 0, 0};
  if (!r.empty && (r.min < 0 || ixj_ixfun_required_bytes(f, elem_size, &end, NULL) != IXJ_OK))
    return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "%s reaches offsets no buffer can hold", o ? "a source" : "the destination");
  out->lo = r.empty ? 0 : (uint64_t)r.min * elem_size;
  out->end = end;
  return IXJ_OK;
}

static ixj_status check_buffer(const operand_range *r, int o, const ixj_buffer *b, uintptr_t *lo, uintptr_t *hi,
                               ixj_error *err) {
  *lo = *hi = 0;
  if (r->empty) return IXJ_OK;
  if (!b->data)
    return o ? ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "input %d: NULL data pointer", o - 1)
             : ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "destination: NULL data pointer");
  if (r->end > b->size_bytes) {
    if (o)
      return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "input %d: buffer too small: %llu bytes needed, %zu given", o - 1,
                       (unsigned long long)r->end, b->size_bytes);
    return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "destination: buffer too small: %llu bytes needed, %zu given",
                     (unsigned long long)r->end, b->size_bytes);
  }
  if ((uintptr_t)b->data > UINTPTR_MAX - r->end)
    return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "%s: the buffer wraps the address space", o ? "input" : "destination");
  *lo = (uintptr_t)b->data + (uintptr_t)r->lo;
  *hi = (uintptr_t)b->data + (uintptr_t)r->end;
  return IXJ_OK;
}

ixj_status ixj__prepared_run_check(ixj_op_kind op, int num_srcs_expected, const operand_range *range, ixj_buffer dst,
                                   int num_srcs, const ixj_buffer *srcs, const void *value, ixj_buffer *bufs,
                                   uintptr_t *dlo, uintptr_t *dhi, ixj_error *err) {
  if (num_srcs != num_srcs_expected || (num_srcs && !srcs))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "this kernel takes %d sources, not %d", num_srcs_expected, num_srcs);
  if (op == IXJ_OP_FILL ? !value : value != NULL)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, op == IXJ_OP_FILL ? "fill: NULL value" : "a value for a %s",
                     op == IXJ_OP_COPY ? "copy" : "cat");
  uintptr_t lo, hi;
  bufs[0] = dst;
  ixj_status st = check_buffer(&range[0], 0, &dst, dlo, dhi, err);
  for (int s = 0; s < num_srcs && st == IXJ_OK; s++) {
    bufs[1 + s] = srcs[s];
    st = check_buffer(&range[1 + s], 1 + s, &srcs[s], &lo, &hi, err);
    if (st == IXJ_OK && !range[0].empty && lo < hi && lo < *dhi && *dlo < hi)
      st = ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "input %d overlaps the destination's memory", s);
  }
  return st;
}

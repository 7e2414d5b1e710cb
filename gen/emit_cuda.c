/* CUDA C emission. The templates give the kernels' skeletons (elementwise
 * with several units per thread and odometer carries; a padded shared-memory
 * tile for transposes); this file writes the plan-dependent statements:
 * argument unpacking, the decomposition of the first unit, per-unit offsets
 * (chains re-linearised with the same sequences), the moves and the carries. */
#include "emit_cuda.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "ixjit/divmod.h"
#include "template.h"

extern const char ixj__template_cuda_elementwise[];
extern const char ixj__template_cuda_tiled[];
extern const char ixj__template_cuda_prelude[];

typedef struct cemit {
  const ixj_plan *p;
  cuda_division division;
  int w;
  const char *it;   /* ixj_index's C type */
  int tmp;
  int divisors;     /* CUDA_DIV_RUNTIME: runtime divisors used so far */
  uint32_t divisor[CUDA_MAX_RUNTIME_DIVISORS];
  const char *vec;  /* vector type name, or NULL */
} cemit;

typedef struct cval {
  char s[48];
} cval;

static cval fresh(cemit *e, text *t, const char *type, const char *fmt, ...) IXJ_PRINTF(4, 5);
/* `type tN = <expression>;` */
static cval fresh(cemit *e, text *t, const char *type, const char *fmt, ...) {
  char expr[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(expr, sizeof expr, fmt, ap);
  va_end(ap);
  cval v;
  snprintf(v.s, sizeof v.s, "t%d", e->tmp++);
  ixj__text_put(t, "  const %s %s = %s;\n", type, v.s, expr);
  return v;
}

static cval literal(const char *s) {
  cval v;
  snprintf(v.s, sizeof v.s, "%s", s);
  return v;
}

static const char *hi_fn(const cemit *e) { return e->w == 32 ? "__umulhi" : "__umul64hi"; }
static const char *suffix(const cemit *e) { return e->w == 32 ? "u" : "ull"; }

static cval magic_quotient(cemit *e, text *t, const ixj_divider *dv, cval n) {
  const unsigned w = (unsigned)e->w;
  unsigned long long m = (unsigned long long)dv->multiplier;
  switch (dv->form) {
  case IXJ_DIV_SHIFT:
    if (dv->shift >= w) return literal("(ixj_index)0");
    if (dv->shift == 0) return n;
    return fresh(e, t, "ixj_index", "%s >> %u", n.s, dv->shift);
  case IXJ_DIV_MUL:
    return fresh(e, t, "ixj_index", "%s(%s, %llu%s) >> %u", hi_fn(e), n.s, m, suffix(e), dv->shift - w);
  case IXJ_DIV_MUL_INC:
    return fresh(e, t, "ixj_index", "%s(%s + 1, %llu%s) >> %u", hi_fn(e), n.s, m, suffix(e), dv->shift - w);
  case IXJ_DIV_FIXUP: {
    cval hi = fresh(e, t, "ixj_index", "%s(%s, %llu%s)", hi_fn(e), n.s, m, suffix(e));
    return fresh(e, t, "ixj_index", "(%s + ((%s - %s) >> 1)) >> %u", hi.s, n.s, hi.s, dv->shift - w - 1);
  }
  }
  return literal("0");
}

static cval magic_remainder(cemit *e, text *t, const ixj_remainder *rm, cval n) {
  switch (rm->form) {
  case IXJ_REM_ZERO: return literal("(ixj_index)0");
  case IXJ_REM_IDENTITY: return n;
  case IXJ_REM_MASK: return fresh(e, t, "ixj_index", "%s & %llu%s", n.s, (unsigned long long)rm->divisor - 1, suffix(e));
  case IXJ_REM_MULSUB: {
    cval q = magic_quotient(e, t, &rm->quotient, n);
    return fresh(e, t, "ixj_index", "%s - %s * %llu%s", n.s, q.s, (unsigned long long)rm->divisor, suffix(e));
  }
  }
  return literal("0");
}

/* PyTorch's IntDivider: q = (umulhi(n, m1) + n) >> s, with m1, s and d read
 * from the arguments (32-bit index math; plain runtime division otherwise). */
static cval runtime_quotient(cemit *e, text *t, cval n, uint64_t d) {
  int k = e->divisors < CUDA_MAX_RUNTIME_DIVISORS ? e->divisors : CUDA_MAX_RUNTIME_DIVISORS - 1;
  e->divisor[k] = (uint32_t)d;
  e->divisors = k + 1;
  if (e->w == 64) return fresh(e, t, "ixj_index", "%s / a.div_value[%d]", n.s, k);
  return fresh(e, t, "ixj_index", "(__umulhi(%s, a.div_magic[%d]) + %s) >> a.div_shift[%d]", n.s, k, n.s, k);
}

/* floor(n / inner) mod extent, n <= bound. */
static cval digit(cemit *e, text *t, uint64_t inner, uint64_t extent, uint64_t bound, cval n) {
  bool outermost = (unsigned __int128)inner * extent > bound;
  if (e->division == CUDA_DIV_PLAIN) {
    cval q = inner == 1 ? n : fresh(e, t, "ixj_index", "%s / %llu%s", n.s, (unsigned long long)inner, suffix(e));
    return outermost ? q : fresh(e, t, "ixj_index", "%s %% %llu%s", q.s, (unsigned long long)extent, suffix(e));
  }
  if (e->division == CUDA_DIV_RUNTIME) {
    cval q = inner == 1 ? n : runtime_quotient(e, t, n, inner);
    if (outermost) return q;
    int k = e->divisors;
    cval q2 = runtime_quotient(e, t, q, extent);
    return fresh(e, t, "ixj_index", "%s - %s * a.div_value[%d]", q.s, q2.s, k);
  }
  ixj_digit dg;
  ixj_digit_make(inner, extent, bound, (unsigned)e->w, &dg, NULL); /* valid by plan */
  switch (dg.form) {
  case IXJ_DIGIT_QUOTIENT: return magic_quotient(e, t, &dg.quotient, n);
  case IXJ_DIGIT_DIVMOD: return magic_remainder(e, t, &dg.remainder, magic_quotient(e, t, &dg.quotient, n));
  case IXJ_DIGIT_DIRECT: {
    cval lo = fresh(e, t, "ixj_index", "%s * %llu%s", n.s, (unsigned long long)dg.c, suffix(e));
    return fresh(e, t, "ixj_index", "%s(%s, %llu%s)", hi_fn(e), lo.s, (unsigned long long)dg.extent, suffix(e));
  }
  }
  return literal("0");
}

static void unflatten(cemit *e, text *t, int rank, const int64_t *shape, uint64_t bound, cval n, cval *digits) {
  uint64_t inner = 1;
  for (int k = rank - 1; k >= 0; k--) {
    digits[k] = shape[k] == 1 ? literal("(ixj_index)0") : digit(e, t, inner, (uint64_t)shape[k], bound, n);
    inner *= (uint64_t)shape[k];
  }
}

/* (d + r) mod n for d < n, r < n, as an expression. */
static void rotated(char *buf, size_t size, const char *d, int64_t r, int64_t n) {
  if (r == 0) snprintf(buf, size, "(long long)%s", d);
  else snprintf(buf, size, "((long long)%s + %lld >= %lld ? (long long)%s + %lld : (long long)%s + %lld)", d,
                (long long)r, (long long)n, d, (long long)(r - n), d, (long long)r);
}

/* base + sum rot(coord_j) * stride_j, as a long long. */
static cval offset_of(cemit *e, text *t, int64_t base, int rank, const cval *coord, const int64_t *stride,
                      const int64_t *rotate, const int64_t *extent) {
  char expr[4096], term[256];
  int at = snprintf(expr, sizeof expr, "%lldLL", (long long)base);
  for (int j = 0; j < rank && at < (int)sizeof expr - 300; j++) {
    if (stride[j] == 0) continue;
    rotated(term, sizeof term, coord[j].s, rotate[j], extent[j]);
    at += snprintf(expr + at, sizeof expr - (size_t)at, " + %s * %lldLL", term, (long long)stride[j]);
  }
  cval v;
  snprintf(v.s, sizeof v.s, "t%d", e->tmp++);
  ixj__text_put(t, "    const long long %s = %s;\n", v.s, expr);
  return v;
}

/* A chain operand: re-linearise through the tail LMADs. */
static cval chain(cemit *e, text *t, const plan_operand *o, cval x) {
  for (int m = 0; m < o->num_tail; m++) {
    const ixj_lmad *l = &o->tail[m];
    lmad_ldim d[IXJ_MAX_RANK];
    int64_t shape[IXJ_MAX_RANK], stride[IXJ_MAX_RANK], rot[IXJ_MAX_RANK];
    cval digits[IXJ_MAX_RANK];
    ixj__lmad_logical_dims(l, d);
    for (int k = 0; k < l->rank; k++) shape[k] = d[k].extent, stride[k] = d[k].stride, rot[k] = d[k].rotate;
    cval xi = fresh(e, t, "ixj_index", "(ixj_index)%s", x.s);
    unflatten(e, t, l->rank, shape, (uint64_t)ixj__lmad_count(l) - 1, xi, digits);
    x = offset_of(e, t, plan_tail_offset(o, m), l->rank, digits, stride, rot, shape);
  }
  return x;
}

static void move(cemit *e, text *t, cval dst_off, int src, cval src_off) {
  if (src < 0) {
    ixj__text_put(t, "    p0[%s] = fill_value;\n", dst_off.s);
  } else if (e->vec) {
    ixj__text_put(t, "    *(%s *)(p0 + %s) = *(const %s *)(p%d + %s);\n", e->vec, dst_off.s, e->vec, src, src_off.s);
  } else {
    ixj__text_put(t, "    p0[%s] = p%d[%s];\n", dst_off.s, src, src_off.s);
  }
}

static void pointers(const ixj_plan *p, text *t) {
  for (int o = 0; o < p->num_operands; o++) {
    if (p->op == IXJ_OP_FILL && o == 1) continue;
    ixj__text_put(t, "  %sixj_elem *p%d = (%sixj_elem *)a.ptr[%d] + a.off[%d];\n", o ? "const " : "", o, o ? "const " : "",
             o, o);
  }
  if (p->op == IXJ_OP_FILL) ixj__text_put(t, "  const ixj_elem fill_value = *(const ixj_elem *)a.value;\n");
}

static ixj_status prelude(const cemit *e, char **out, ixj_error *err) {
  static const char *fields[] = {"", "unsigned char x;", "unsigned short x;", "", "unsigned x;", "", "", "",
                                 "unsigned long long x;"};
  size_t es = e->p->elem_size;
  char align[8], operands[8], divisors[8];
  snprintf(align, sizeof align, "%zu", es <= 8 ? es : 8);
  snprintf(operands, sizeof operands, "%d", e->p->num_operands);
  snprintf(divisors, sizeof divisors, "%d", e->divisors ? e->divisors : 1);
  const char *kv[] = {"INDEX_TYPE", e->it, "ELEM_ALIGN", align, "ELEM_FIELDS",
                      es == 16 ? "unsigned long long x, y;" : fields[es], "OPERANDS", operands, "DIVISORS", divisors};
  return ixj__template_fill(ixj__template_cuda_prelude, kv, (int)(sizeof kv / sizeof *kv / 2), out, err);
}

static ixj_status elementwise(cemit *e, const char *name, const char *signature, char **out, ixj_error *err) {
  const ixj_plan *p = e->p;
  int r = p->rank, last = r - 1;
  text setup = {0}, body = {0}, carry = {0};
  cval dig[IXJ_MAX_RANK];
  pointers(p, &setup);
  unflatten(e, &setup, r, p->shape, (uint64_t)p->count - 1, literal("n"), dig);
  for (int j = 0; j < r; j++) ixj__text_put(&setup, "  ixj_index d%d = %s;\n", j, dig[j].s);
  cval coord[IXJ_MAX_RANK];
  for (int j = 0; j < r; j++) snprintf(coord[j].s, sizeof coord[j].s, "d%d", j);

  int row_operands = p->op == IXJ_OP_COPY ? 2 : 1;
  cval off[2];
  for (int o = 0; o < row_operands; o++) {
    const plan_operand *x = &p->operand[o];
    off[o] = chain(e, &body, x, offset_of(e, &body, x->head_offset, r, coord, x->stride, x->rotate, p->shape));
  }
  if (p->op == IXJ_OP_COPY) {
    move(e, &body, off[0], 1, off[1]);
  } else if (p->op == IXJ_OP_FILL) {
    move(e, &body, off[0], -1, off[0]);
  } else {
    int axis = p->cat_axis;
    bool first_input = true;
    for (int k = 1; k < p->num_operands; k++) {
      const plan_operand *x = &p->operand[k];
      if (x->cat_extent == 0) continue;
      ixj__text_put(&body, "    %sif (d%d < %lld) {\n", first_input ? "" : "else ", axis, (long long)(x->cat_start + x->cat_extent));
      first_input = false;
      cval local[IXJ_MAX_RANK];
      int64_t extent[IXJ_MAX_RANK];
      memcpy(local, coord, sizeof local);
      memcpy(extent, p->shape, sizeof extent);
      extent[axis] = x->cat_extent;
      snprintf(local[axis].s, sizeof local[axis].s, "(d%d - %lld)", axis, (long long)x->cat_start);
      cval so = chain(e, &body, x, offset_of(e, &body, x->head_offset, r, local, x->stride, x->rotate, extent));
      move(e, &body, off[0], k, so);
      ixj__text_put(&body, "    }\n");
    }
  }
  ixj__text_put(&carry, "    d%d += %d;\n", last, p->vector_elems);
  for (int j = last; j > 0; j--)
    ixj__text_put(&carry, "    if (d%d == %lld) { d%d = 0; d%d++;\n", j, (long long)p->shape[j], j, j - 1);
  for (int j = last; j > 0; j--) ixj__text_put(&carry, "    }\n");

  char *pre = NULL;
  ixj_status st = prelude(e, &pre, err); /* after the body: it counts the runtime divisors */
  char per[8], step[8];
  snprintf(per, sizeof per, "%d", CUDA_UNITS_PER_THREAD);
  snprintf(step, sizeof step, "%d", p->vector_elems);
  if (st == IXJ_OK && (setup.oom || body.oom || carry.oom)) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  if (st == IXJ_OK) {
    const char *kv[] = {"STRATEGY", ixj__plan_strategy_name(p->strategy), "SIGNATURE", signature, "NAME", name,
                        "PRELUDE", pre, "PER_THREAD", per, "STEP", step, "SETUP", setup.buf ? setup.buf : "",
                        "BODY", body.buf ? body.buf : "", "CARRY", carry.buf ? carry.buf : ""};
    st = ixj__template_fill(ixj__template_cuda_elementwise, kv, (int)(sizeof kv / sizeof *kv / 2), out, err);
  }
  free(pre);
  free(setup.buf);
  free(body.buf);
  free(carry.buf);
  return st;
}

static ixj_status tiled(cemit *e, const char *name, const char *signature, char **out, ixj_error *err) {
  const ixj_plan *p = e->p;
  int r = p->rank, qb = r - 2, qa = r - 1, T = p->tile;
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  text setup = {0};
  int64_t tshape[IXJ_MAX_RANK];
  cval dig[IXJ_MAX_RANK];
  memcpy(tshape, p->shape, sizeof tshape);
  tshape[qb] = (p->shape[qb] + T - 1) / T;
  tshape[qa] = (p->shape[qa] + T - 1) / T;
  ixj__text_put(&setup, "  ixj_elem *dst = (ixj_elem *)a.ptr[0] + a.off[0];\n");
  ixj__text_put(&setup, "  const ixj_elem *src = (const ixj_elem *)a.ptr[1] + a.off[1];\n");
  unflatten(e, &setup, r, tshape, p->work_units - 1, literal("n"), dig);
  cval od = offset_of(e, &setup, 0, qb, dig, dst->stride, dst->rotate, p->shape);
  cval os = offset_of(e, &setup, 0, qb, dig, src->stride, src->rotate, p->shape);
  ixj__text_put(&setup, "  const long long od = %s, os = %s;\n", od.s, os.s);
  ixj__text_put(&setup, "  const long long b0 = (long long)%s * %d, a0 = (long long)%s * %d;\n", dig[qb].s, T, dig[qa].s, T);
  char *pre = NULL;
  ixj_status st = prelude(e, &pre, err);
  char tile_s[8], na[24], nb[24], ssb[24], ssa[24], sdb[24], sda[24];
  snprintf(tile_s, sizeof tile_s, "%d", T);
  snprintf(na, sizeof na, "%lldLL", (long long)p->shape[qa]);
  snprintf(nb, sizeof nb, "%lldLL", (long long)p->shape[qb]);
  snprintf(ssb, sizeof ssb, "%lldLL", (long long)src->stride[qb]);
  snprintf(ssa, sizeof ssa, "%lldLL", (long long)src->stride[qa]);
  snprintf(sdb, sizeof sdb, "%lldLL", (long long)dst->stride[qb]);
  snprintf(sda, sizeof sda, "%lldLL", (long long)dst->stride[qa]);
  if (st == IXJ_OK && setup.oom) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  if (st == IXJ_OK) {
    const char *kv[] = {"TILE", tile_s, "SIGNATURE", signature, "NAME", name, "PRELUDE", pre,
                        "SETUP", setup.buf ? setup.buf : "", "NA", na, "NB", nb, "SSB", ssb, "SSA", ssa,
                        "SDB", sdb, "SDA", sda};
    st = ixj__template_fill(ixj__template_cuda_tiled, kv, (int)(sizeof kv / sizeof *kv / 2), out, err);
  }
  free(pre);
  free(setup.buf);
  return st;
}

static ixj_status emit_any(const ixj_plan *p, const char *name, const char *signature, cuda_division division,
                           char **out, cuda_divisors *divisors, ixj_error *err);

ixj_status ixj__emit_cuda(const ixj_plan *p, const char *name, const char *signature, cuda_division division, char **out,
                     ixj_error *err) {
  return emit_any(p, name, signature, division, out, NULL, err);
}

ixj_status ixj__emit_cuda_runtime(const ixj_plan *p, const char *name, char **out, cuda_divisors *divisors, ixj_error *err) {
  return emit_any(p, name, "runtime-magic baseline", CUDA_DIV_RUNTIME, out, divisors, err);
}

static ixj_status emit_any(const ixj_plan *p, const char *name, const char *signature, cuda_division division,
                           char **out, cuda_divisors *divisors, ixj_error *err) {
  cemit e = {p, division, p->index_bits, p->index_bits == 32 ? "unsigned" : "unsigned long long", 0, 0, {0}, NULL};
  *out = NULL;
  if (p->strategy == PLAN_EMPTY || p->strategy == PLAN_MEMCPY)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "a %s plan has no kernel", ixj__plan_strategy_name(p->strategy));
  /* whole 16-byte vectors per access when the plan proved alignment */
  if (p->vector_elems > 1 && (size_t)p->vector_elems * p->elem_size == 16) e.vec = "uint4";
  ixj_status st = p->strategy == PLAN_TILED ? tiled(&e, name, signature, out, err)
                                            : elementwise(&e, name, signature, out, err);
  if (divisors) {
    divisors->count = e.divisors;
    memcpy(divisors->value, e.divisor, sizeof e.divisor);
  }
  return st;
}

void ixj__cuda_launch_shape(const ixj_plan *p, uint64_t units, unsigned *blocks, unsigned *block_x, unsigned *block_y) {
  if (p->strategy == PLAN_TILED) {
    *blocks = (unsigned)units;
    *block_x = (unsigned)p->tile;
    *block_y = 8;
    return;
  }
  uint64_t per_block = (uint64_t)CUDA_THREADS_PER_BLOCK * CUDA_UNITS_PER_THREAD * (uint64_t)p->vector_elems;
  *blocks = (unsigned)((units + per_block - 1) / per_block);
  *block_x = CUDA_THREADS_PER_BLOCK;
  *block_y = 1;
}

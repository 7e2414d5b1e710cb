/* LLVM IR emission. The templates give each kernel's loop skeleton; this file
 * writes the pieces that depend on the plan: loading the runtime arguments,
 * decomposing the first point with magic division, row offsets, the element
 * move, chain re-linearisation and the odometer carries. Locals live in
 * allocas that mem2reg turns into registers. */
#include "emit_llvm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "template.h"
#include "ixjit/divmod.h"

extern const char ixj__template_elementwise[];
extern const char ixj__template_tiled[];
extern const char ixj__template_metadata[];

typedef struct emitter {
  const ixj_plan *p;
  int w;          /* index width */
  const char *it; /* "i32" or "i64" */
  char elem[16];  /* the moved type: iN or <L x iN> */
  char scalar[8]; /* iN */
  int tmp;
  int label;
} emitter;

/* A fresh SSA name, "%tN". */
typedef struct val {
  char s[32];
} val;

static val fresh(emitter *e) {
  val v;
  snprintf(v.s, sizeof v.s, "%%t%d", e->tmp++);
  return v;
}

static val constant(long long c) {
  val v;
  snprintf(v.s, sizeof v.s, "%lld", c);
  return v;
}

static val ucon(uint64_t c) {
  val v;
  snprintf(v.s, sizeof v.s, "%llu", (unsigned long long)c);
  return v;
}

/* i64 -> index type (the value is known to fit). */
static val to_it(emitter *e, text *t, val x) {
  if (e->w == 64) return x;
  val r = fresh(e);
  ixj__text_put(t, "  %s = trunc i64 %s to i32\n", r.s, x.s);
  return r;
}

/* index type -> i64 (non-negative values). */
static val to_i64(emitter *e, text *t, val x) {
  if (e->w == 64) return x;
  val r = fresh(e);
  ixj__text_put(t, "  %s = zext i32 %s to i64\n", r.s, x.s);
  return r;
}

/* High word of n * m (both index type). */
static val mulhi(emitter *e, text *t, val n, val m) {
  const char *wide = e->w == 32 ? "i64" : "i128";
  val a = fresh(e), b = fresh(e), c = fresh(e), r = fresh(e);
  ixj__text_put(t, "  %s = zext %s %s to %s\n", a.s, e->it, n.s, wide);
  ixj__text_put(t, "  %s = mul nuw %s %s, %s\n", b.s, wide, a.s, m.s);
  ixj__text_put(t, "  %s = lshr %s %s, %d\n", c.s, wide, b.s, e->w);
  ixj__text_put(t, "  %s = trunc %s %s to %s\n", r.s, wide, c.s, e->it);
  return r;
}

static val shift_right(emitter *e, text *t, val x, unsigned k) {
  if (k == 0) return x;
  val r = fresh(e);
  ixj__text_put(t, "  %s = lshr %s %s, %u\n", r.s, e->it, x.s, k);
  return r;
}

/* floor(n / d) with the sequence of `dv` (n <= dv->bound). */
static val emit_quotient(emitter *e, text *t, const ixj_divider *dv, val n) {
  const unsigned w = (unsigned)e->w;
  switch (dv->form) {
  case IXJ_DIV_SHIFT:
    return dv->shift >= w ? constant(0) : shift_right(e, t, n, dv->shift);
  case IXJ_DIV_MUL:
    return shift_right(e, t, mulhi(e, t, n, ucon(dv->multiplier)), dv->shift - w);
  case IXJ_DIV_MUL_INC: {
    val n1 = fresh(e);
    ixj__text_put(t, "  %s = add nuw %s %s, 1\n", n1.s, e->it, n.s);
    return shift_right(e, t, mulhi(e, t, n1, ucon(dv->multiplier)), dv->shift - w);
  }
  case IXJ_DIV_FIXUP: {
    val hi = mulhi(e, t, n, ucon(dv->multiplier)), d = fresh(e), h = fresh(e), s = fresh(e);
    ixj__text_put(t, "  %s = sub %s %s, %s\n", d.s, e->it, n.s, hi.s);
    ixj__text_put(t, "  %s = lshr %s %s, 1\n", h.s, e->it, d.s);
    ixj__text_put(t, "  %s = add %s %s, %s\n", s.s, e->it, h.s, hi.s);
    return shift_right(e, t, s, dv->shift - w - 1);
  }
  }
  return constant(0);
}

static val emit_remainder(emitter *e, text *t, const ixj_remainder *rm, val n) {
  val r = fresh(e);
  switch (rm->form) {
  case IXJ_REM_ZERO: return constant(0);
  case IXJ_REM_IDENTITY: return n;
  case IXJ_REM_MASK:
    ixj__text_put(t, "  %s = and %s %s, %llu\n", r.s, e->it, n.s, (unsigned long long)(rm->divisor - 1));
    return r;
  case IXJ_REM_MULSUB: {
    val q = emit_quotient(e, t, &rm->quotient, n), m = fresh(e);
    ixj__text_put(t, "  %s = mul nuw %s %s, %llu\n", m.s, e->it, q.s, (unsigned long long)rm->divisor);
    ixj__text_put(t, "  %s = sub nuw %s %s, %s\n", r.s, e->it, n.s, m.s);
    return r;
  }
  }
  return constant(0);
}

/* Coordinate floor(n / inner) mod extent, for n <= bound. */
static val emit_digit(emitter *e, text *t, uint64_t inner, uint64_t extent, uint64_t bound, val n) {
  ixj_digit dg;
  ixj_digit_make(inner, extent, bound, (unsigned)e->w, &dg, NULL); /* arguments valid by plan */
  switch (dg.form) {
  case IXJ_DIGIT_QUOTIENT: return emit_quotient(e, t, &dg.quotient, n);
  case IXJ_DIGIT_DIVMOD: return emit_remainder(e, t, &dg.remainder, emit_quotient(e, t, &dg.quotient, n));
  case IXJ_DIGIT_DIRECT: {
    val lo = fresh(e);
    ixj__text_put(t, "  %s = mul %s %s, %llu\n", lo.s, e->it, n.s, (unsigned long long)dg.c);
    return mulhi(e, t, lo, ucon(dg.extent));
  }
  }
  return constant(0);
}

/* Every coordinate of n over `shape` (row-major), bound = count - 1. */
static void emit_unflatten(emitter *e, text *t, int rank, const int64_t *shape, uint64_t bound, val n, val *digits) {
  uint64_t inner = 1;
  for (int k = rank - 1; k >= 0; k--) {
    digits[k] = shape[k] == 1 ? constant(0) : emit_digit(e, t, inner, (uint64_t)shape[k], bound, n);
    inner *= (uint64_t)shape[k];
  }
}

/* (d + r) mod n for d < n, r < n: a compare and a select. */
static val emit_rotate(emitter *e, text *t, val d, int64_t r, int64_t n) {
  if (r == 0) return d;
  val s = fresh(e), c = fresh(e), w = fresh(e), out = fresh(e);
  ixj__text_put(t, "  %s = add nuw %s %s, %lld\n", s.s, e->it, d.s, (long long)r);
  ixj__text_put(t, "  %s = icmp uge %s %s, %lld\n", c.s, e->it, s.s, (long long)n);
  ixj__text_put(t, "  %s = sub %s %s, %lld\n", w.s, e->it, s.s, (long long)n);
  ixj__text_put(t, "  %s = select i1 %s, %s %s, %s %s\n", out.s, c.s, e->it, w.s, e->it, s.s);
  return out;
}

/* acc + coord * stride, in i64 (acc may be NULL for 0). */
static val emit_term(emitter *e, text *t, val acc, bool have_acc, val coord_it, int64_t stride) {
  if (stride == 0) return have_acc ? acc : constant(0);
  val c = to_i64(e, t, coord_it), m = c;
  if (stride != 1) {
    m = fresh(e);
    ixj__text_put(t, "  %s = mul nsw i64 %s, %lld\n", m.s, c.s, (long long)stride);
  }
  if (!have_acc) return m;
  val r = fresh(e);
  ixj__text_put(t, "  %s = add nsw i64 %s, %s\n", r.s, acc.s, m.s);
  return r;
}

/* The flat value of a head LMAD, re-linearised through the operand's chain:
 * each tail LMAD unflattens it by its logical shape and maps it again. */
static val emit_chain(emitter *e, text *t, const plan_operand *o, val x) {
  for (int m = 0; m < o->num_tail; m++) {
    const ixj_lmad *l = &o->tail[m];
    lmad_ldim d[IXJ_MAX_RANK];
    int64_t shape[IXJ_MAX_RANK];
    val digits[IXJ_MAX_RANK];
    ixj__lmad_logical_dims(l, d);
    for (int k = 0; k < l->rank; k++) shape[k] = d[k].extent;
    emit_unflatten(e, t, l->rank, shape, (uint64_t)ixj__lmad_count(l) - 1, to_it(e, t, x), digits);
    val acc = constant(plan_tail_offset(o, m));
    for (int k = 0; k < l->rank; k++)
      acc = emit_term(e, t, acc, true, emit_rotate(e, t, digits[k], d[k].rotate, d[k].extent), d[k].stride);
    x = acc;
  }
  return x;
}

static void emit_setup_pointers(emitter *e, text *t) {
  for (int o = 0; o < e->p->num_operands; o++) {
    ixj__text_put(t, "  %%pp.%d = getelementptr ptr, ptr %%ptrs, i64 %d\n", o, o);
    ixj__text_put(t, "  %%p.%d = load ptr, ptr %%pp.%d\n", o, o);
    ixj__text_put(t, "  %%po.%d = getelementptr i64, ptr %%offs, i64 %d\n", o, o);
    ixj__text_put(t, "  %%off.%d = load i64, ptr %%po.%d\n", o, o);
    ixj__text_put(t, "  %%bp.%d = getelementptr %s, ptr %%p.%d, i64 %%off.%d\n", o, e->scalar, o, o);
  }
  if (e->p->op != IXJ_OP_FILL) return;
  if (e->p->vector_elems == 1) {
    ixj__text_put(t, "  %%value = load %s, ptr %%p.1, align 1\n", e->scalar);
    return;
  }
  /* one element at the value pointer, splat across the vector */
  ixj__text_put(t, "  %%value.s = load %s, ptr %%p.1, align 1\n", e->scalar);
  ixj__text_put(t, "  %%value.v = insertelement %s poison, %s %%value.s, i32 0\n", e->elem, e->scalar);
  ixj__text_put(t, "  %%value = shufflevector %s %%value.v, %s poison, <%d x i32> zeroinitializer\n", e->elem, e->elem,
      e->p->vector_elems);
}

static const char *store_tail(const emitter *e) {
  return e->p->nontemporal ? ", !nontemporal !0, !alias.scope !4, !noalias !5" : ", !alias.scope !4, !noalias !5";
}

/* dst[dst_off] = src[src_off] (or the fill value). */
static void emit_move(emitter *e, text *t, val dst_off, int src, val src_off) {
  int align = e->p->vector_elems > 1 ? 32 : 1;
  val da = fresh(e), v = fresh(e);
  ixj__text_put(t, "  %s = getelementptr %s, ptr %%bp.0, i64 %s\n", da.s, e->scalar, dst_off.s);
  if (src < 0) {
    ixj__text_put(t, "  store %s %%value, ptr %s, align %d%s\n", e->elem, da.s, align, store_tail(e));
    return;
  }
  val sa = fresh(e);
  ixj__text_put(t, "  %s = getelementptr %s, ptr %%bp.%d, i64 %s\n", sa.s, e->scalar, src, src_off.s);
  ixj__text_put(t, "  %s = load %s, ptr %s, align %d, !alias.scope !5, !noalias !4\n", v.s, e->elem, sa.s, align);
  ixj__text_put(t, "  store %s %s, ptr %s, align %d%s\n", e->elem, v.s, da.s, align, store_tail(e));
}

/* Streaming stores are weakly ordered: fence them before the chunk is
 * reported done, so any thread that then reads the output sees them. */
static const char *exit_code(const ixj_plan *p) { return p->nontemporal ? "  fence seq_cst" : ""; }

/* ---- elementwise kernels -------------------------------------------------- */

/* Offset of operand o at the point whose coordinates are `coord` (index
 * type), head offset and chain included. */
static val emit_point_offset(emitter *e, text *t, const plan_operand *o, int rank, const val *coord,
                             const int64_t *extent) {
  val acc = constant(o->head_offset);
  for (int j = 0; j < rank; j++)
    acc = emit_term(e, t, acc, true, emit_rotate(e, t, coord[j], o->rotate[j], extent[j]), o->stride[j]);
  return emit_chain(e, t, o, acc);
}

static ixj_status emit_elementwise(emitter *e, const char *name, const char *signature, char **out, ixj_error *err) {
  const ixj_plan *p = e->p;
  int r = p->rank, last = r - 1;
  text allocas = {0}, setup = {0}, row = {0}, inner = {0}, carry = {0};
  val digits[IXJ_MAX_RANK], outer[IXJ_MAX_RANK];

  for (int j = 0; j < last; j++) ixj__text_put(&allocas, "  %%d.%d.addr = alloca %s\n", j, e->it);
  emit_setup_pointers(e, &setup);
  val begin = {"%begin"};
  emit_unflatten(e, &setup, r, p->shape, (uint64_t)p->count - 1, to_it(e, &setup, begin), digits);
  for (int j = 0; j < last; j++) ixj__text_put(&setup, "  store %s %s, ptr %%d.%d.addr\n", e->it, digits[j].s, j);
  ixj__text_put(&setup, "  store %s %s, ptr %%istart.addr\n", e->it, digits[last].s);

  /* row: load the outer digits; per operand, the offset of the row's start */
  for (int j = 0; j < last; j++) {
    outer[j] = fresh(e);
    ixj__text_put(&row, "  %s = load %s, ptr %%d.%d.addr\n", outer[j].s, e->it, j);
  }
  val row_off[PLAN_MAX_OPERANDS];
  int row_operands = p->op == IXJ_OP_CAT ? 1 : p->op == IXJ_OP_FILL ? 1 : 2;
  for (int o = 0; o < row_operands; o++) {
    const plan_operand *x = &p->operand[o];
    val acc = constant(x->head_offset);
    for (int j = 0; j < last; j++)
      acc = emit_term(e, &row, acc, true, emit_rotate(e, &row, outer[j], x->rotate[j], p->shape[j]), x->stride[j]);
    row_off[o] = acc;
  }

  /* inner: the element(s) at %i */
  val i_it = to_it(e, &inner, (val){"%i"});
  val off[2];
  for (int o = 0; o < row_operands; o++) {
    const plan_operand *x = &p->operand[o];
    val v = emit_term(e, &inner, row_off[o], true, emit_rotate(e, &inner, i_it, x->rotate[last], p->shape[last]),
                      x->stride[last]);
    off[o] = emit_chain(e, &inner, x, v);
  }
  if (p->op == IXJ_OP_COPY) {
    emit_move(e, &inner, off[0], 1, off[1]);
  } else if (p->op == IXJ_OP_FILL) {
    emit_move(e, &inner, off[0], -1, off[0]);
  } else { /* cat: find the input that holds the axis coordinate */
    int axis = p->cat_axis, k_last = p->num_operands - 1;
    val coord[IXJ_MAX_RANK];
    for (int j = 0; j < last; j++) coord[j] = outer[j];
    coord[last] = i_it;
    val c = coord[axis];
    for (int k = 1; k <= k_last; k++) {
      const plan_operand *x = &p->operand[k];
      if (x->cat_extent == 0) continue;
      int l = e->label++;
      if (x->cat_start + x->cat_extent < p->shape[axis]) {
        val lt = fresh(e);
        ixj__text_put(&inner, "  %s = icmp ult %s %s, %lld\n", lt.s, e->it, c.s, (long long)(x->cat_start + x->cat_extent));
        ixj__text_put(&inner, "  br i1 %s, label %%in.%d, label %%next.%d\n", lt.s, l, l);
      } else {
        ixj__text_put(&inner, "  br label %%in.%d\n", l);
      }
      ixj__text_put(&inner, "in.%d:\n", l);
      val local[IXJ_MAX_RANK];
      int64_t extent[IXJ_MAX_RANK];
      memcpy(local, coord, sizeof local);
      memcpy(extent, p->shape, sizeof extent);
      extent[axis] = x->cat_extent;
      if (x->cat_start) {
        local[axis] = fresh(e);
        ixj__text_put(&inner, "  %s = sub nuw %s %s, %lld\n", local[axis].s, e->it, c.s, (long long)x->cat_start);
      }
      val so = emit_point_offset(e, &inner, x, r, local, extent);
      emit_move(e, &inner, off[0], k, so);
      ixj__text_put(&inner, "  br label %%inner.latch\n");
      ixj__text_put(&inner, "next.%d:\n", l);
    }
    ixj__text_put(&inner, "  unreachable\n");
    ixj__text_put(&inner, "dead.%d:\n", e->label++); /* the template's fall-through branch */
  }

  /* odometer carries over the outer digits */
  for (int j = last - 1; j >= 0; j--) {
    val d = fresh(e), d1 = fresh(e), c = fresh(e), d2 = fresh(e);
    ixj__text_put(&carry, "  %s = load %s, ptr %%d.%d.addr\n", d.s, e->it, j);
    ixj__text_put(&carry, "  %s = add %s %s, 1\n", d1.s, e->it, d.s);
    ixj__text_put(&carry, "  %s = icmp eq %s %s, %lld\n", c.s, e->it, d1.s, (long long)p->shape[j]);
    ixj__text_put(&carry, "  %s = select i1 %s, %s 0, %s %s\n", d2.s, c.s, e->it, e->it, d1.s);
    ixj__text_put(&carry, "  store %s %s, ptr %%d.%d.addr\n", e->it, d2.s, j);
    if (j > 0) {
      ixj__text_put(&carry, "  br i1 %s, label %%carry.%d, label %%carry.done\n", c.s, j - 1);
      ixj__text_put(&carry, "carry.%d:\n", j - 1);
    }
  }
  if (last > 0) {
    ixj__text_put(&carry, "  br label %%carry.done\n");
    ixj__text_put(&carry, "carry.done:\n");
  }

  char extent[32], step[16];
  snprintf(extent, sizeof extent, "%lld", (long long)p->shape[last]);
  snprintf(step, sizeof step, "%d", p->vector_elems);
  ixj_status st = IXJ_ERR_NO_MEMORY;
  if (!(allocas.oom || setup.oom || row.oom || inner.oom || carry.oom)) {
    const char *kv[] = {"STRATEGY", ixj__plan_strategy_name(p->strategy), "SIGNATURE", signature, "NAME", name,
                        "IT", e->it, "ISTART64", e->w == 32 ? "zext i32 %istart to i64" : "add i64 %istart, 0",
                        "ALLOCAS", allocas.buf ? allocas.buf : "", "SETUP", setup.buf ? setup.buf : "",
                        "INNER_EXTENT", extent, "ROW_SETUP", row.buf ? row.buf : "", "INNER", inner.buf ? inner.buf : "",
                        "STEP", step, "CARRY", carry.buf ? carry.buf : "", "EXIT", exit_code(p),
                        "METADATA", ixj__template_metadata};
    st = ixj__template_fill(ixj__template_elementwise, kv, (int)(sizeof kv / sizeof *kv / 2), out, err);
  } else {
    ixj__fail(err, st, "out of memory while emitting IR");
  }
  free(allocas.buf);
  free(setup.buf);
  free(row.buf);
  free(inner.buf);
  free(carry.buf);
  return st;
}

/* ---- tiled kernel --------------------------------------------------------- */

static ixj_status emit_tiled(emitter *e, const char *name, const char *signature, char **out, ixj_error *err) {
  const ixj_plan *p = e->p;
  int r = p->rank, qb = r - 2, qa = r - 1, T = p->tile;
  text setup = {0}, tile = {0}, brow = {0}, acol = {0};
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  emit_setup_pointers(e, &setup);

  /* tile index -> (outer digits..., tb, ta) */
  int64_t tshape[IXJ_MAX_RANK];
  val digits[IXJ_MAX_RANK];
  memcpy(tshape, p->shape, sizeof tshape);
  tshape[qb] = (p->shape[qb] + T - 1) / T;
  tshape[qa] = (p->shape[qa] + T - 1) / T;
  emit_unflatten(e, &tile, r, tshape, p->work_units - 1, to_it(e, &tile, (val){"%tix"}), digits);
  val od = constant(0), os = constant(0);
  for (int j = 0; j < qb; j++) {
    od = emit_term(e, &tile, od, true, emit_rotate(e, &tile, digits[j], dst->rotate[j], p->shape[j]), dst->stride[j]);
    os = emit_term(e, &tile, os, true, emit_rotate(e, &tile, digits[j], src->rotate[j], p->shape[j]), src->stride[j]);
  }
  ixj__text_put(&tile, "  %%od = add i64 %s, 0\n  %%os = add i64 %s, 0\n", od.s, os.s);
  val tb = to_i64(e, &tile, digits[qb]), ta = to_i64(e, &tile, digits[qa]);
  ixj__text_put(&tile, "  %%b0 = mul nuw nsw i64 %s, %d\n  %%a0 = mul nuw nsw i64 %s, %d\n", tb.s, T, ta.s, T);
  ixj__text_put(&tile, "  %%b1 = add nuw nsw i64 %%b0, %d\n  %%a1 = add nuw nsw i64 %%a0, %d\n", T, T);
  ixj__text_put(&tile, "  %%bfull = icmp slt i64 %%b1, %lld\n  %%bend = select i1 %%bfull, i64 %%b1, i64 %lld\n",
      (long long)p->shape[qb], (long long)p->shape[qb]);
  ixj__text_put(&tile, "  %%afull = icmp slt i64 %%a1, %lld\n  %%aend = select i1 %%afull, i64 %%a1, i64 %lld\n",
      (long long)p->shape[qa], (long long)p->shape[qa]);

  ixj__text_put(&brow, "  %%db = mul nsw i64 %%b, %lld\n  %%odb = add nsw i64 %%od, %%db\n", (long long)dst->stride[qb]);
  ixj__text_put(&brow, "  %%sb = mul nsw i64 %%b, %lld\n  %%osb = add nsw i64 %%os, %%sb\n", (long long)src->stride[qb]);
  ixj__text_put(&acol, "  %%da = mul nsw i64 %%a, %lld\n  %%dsti = add nsw i64 %%odb, %%da\n", (long long)dst->stride[qa]);
  ixj__text_put(&acol, "  %%sa = mul nsw i64 %%a, %lld\n  %%srci = add nsw i64 %%osb, %%sa\n", (long long)src->stride[qa]);
  emit_move(e, &acol, (val){"%dsti"}, 1, (val){"%srci"});

  char tile_s[16];
  snprintf(tile_s, sizeof tile_s, "%d", T);
  ixj_status st = IXJ_ERR_NO_MEMORY;
  if (!(setup.oom || tile.oom || brow.oom || acol.oom)) {
    const char *kv[] = {"TILE", tile_s, "SIGNATURE", signature, "NAME", name, "SETUP", setup.buf ? setup.buf : "",
                        "TILE_SETUP", tile.buf ? tile.buf : "", "BROW", brow.buf ? brow.buf : "",
                        "ACOL", acol.buf ? acol.buf : "", "EXIT", exit_code(p), "METADATA", ixj__template_metadata};
    st = ixj__template_fill(ixj__template_tiled, kv, (int)(sizeof kv / sizeof *kv / 2), out, err);
  } else {
    ixj__fail(err, st, "out of memory while emitting IR");
  }
  free(setup.buf);
  free(tile.buf);
  free(brow.buf);
  free(acol.buf);
  return st;
}

ixj_status ixj__emit_llvm(const ixj_plan *p, const char *name, const char *signature, char **out, ixj_error *err) {
  emitter e = {p, p->index_bits, p->index_bits == 32 ? "i32" : "i64", "", "", 0, 0};
  *out = NULL;
  if (p->strategy == PLAN_EMPTY || p->strategy == PLAN_MEMCPY)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "a %s plan has no kernel", ixj__plan_strategy_name(p->strategy));
  snprintf(e.scalar, sizeof e.scalar, "i%zu", p->elem_size * 8);
  if (p->vector_elems > 1) snprintf(e.elem, sizeof e.elem, "<%d x %s>", p->vector_elems, e.scalar);
  else snprintf(e.elem, sizeof e.elem, "%s", e.scalar);
  return p->strategy == PLAN_TILED ? emit_tiled(&e, name, signature, out, err)
                                   : emit_elementwise(&e, name, signature, out, err);
}

/* The index program: building it (with the trivial folds that keep printed
 * kernels readable), evaluating it, and lowering the index math of a plan into
 * it. The division sequences come from gen/divmod, chosen for the bound the
 * plan proves for every dividend. */
#include "lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ixjit/divmod.h"

/* ---- building ------------------------------------------------------------- */

static uint64_t type_mask(iprog_type t) {
  return t == IPROG_I1 ? 1 : t == IPROG_U32 ? 0xffffffffu : ~(uint64_t)0;
}

static int append(iprog *p, iprog_inst in) {
  if (p->oom) return 0;
  if (p->count == p->cap) {
    int cap = p->cap ? 2 * p->cap : 256;
    iprog_inst *grown = realloc(p->inst, (size_t)cap * sizeof *grown);
    if (!grown) {
      p->oom = true;
      return 0;
    }
    p->inst = grown;
    p->cap = cap;
  }
  p->inst[p->count] = in;
  return p->count++;
}

int ixj__iprog_input(iprog *p, iprog_type type, int slot) {
  return append(p, (iprog_inst){IOP_INPUT, (uint8_t)type, 0, -1, -1, -1, slot, 0});
}

int ixj__iprog_const(iprog *p, iprog_type type, int64_t value) {
  return append(p, (iprog_inst){IOP_CONST, (uint8_t)type, 0, -1, -1, -1, (int64_t)((uint64_t)value & type_mask(type)), 0});
}

int ixj__iprog_const_s64(iprog *p, int64_t value) { return ixj__iprog_const(p, IPROG_S64, value); }

bool ixj__iprog_is_const(const iprog *p, int v, int64_t *value) {
  if (p->oom || v < 0 || v >= p->count || p->inst[v].op != IOP_CONST) return false;
  if (value) *value = p->inst[v].imm;
  return true;
}

/* One instruction's result from its operands' values: shared by the
 * evaluator and the constant folding, so both agree bit for bit. */
static uint64_t apply(const iprog_inst *in, uint64_t a, uint64_t b, uint64_t c) {
  iprog_type t = (iprog_type)in->type;
  uint64_t r = 0;
  switch ((iprog_op)in->op) {
  case IOP_INPUT:
  case IOP_CONST: r = (uint64_t)in->imm; break;
  case IOP_ADD: r = a + b; break;
  case IOP_SUB: r = a - b; break;
  case IOP_MUL: r = a * b; break;
  case IOP_MULHI:
    r = t == IPROG_U32 ? (a * b) >> 32 : (uint64_t)(((unsigned __int128)a * b) >> 64);
    break;
  case IOP_LSHR: r = in->imm >= 64 ? 0 : a >> in->imm; break;
  case IOP_AND: r = a & b; break;
  case IOP_EQ: r = a == b; break;
  case IOP_ULT: r = a < b; break;
  case IOP_SELECT: r = a ? b : c; break;
  case IOP_CAST: r = a; break;
  case IOP_UDIV: r = b ? a / b : 0; break;
  case IOP_UREM: r = b ? a % b : 0; break;
  case IOP_ARG_QUOTIENT: r = in->imm2 ? a / (uint64_t)in->imm2 : 0; break;
  case IOP_ARG_DIVISOR: r = (uint64_t)in->imm2; break;
  }
  return r & type_mask(t);
}

int ixj__iprog_emit(iprog *p, iprog_op op, iprog_type type, int flags, int a, int b, int c, int64_t imm) {
  if (p->oom) return 0;
  int64_t ka = 0, kb = 0;
  bool ca = ixj__iprog_is_const(p, a, &ka), cb = ixj__iprog_is_const(p, b, &kb);
  switch (op) {
  case IOP_ADD:
    if (cb && kb == 0) return a;
    if (ca && ka == 0) return b;
    break;
  case IOP_SUB:
    if (cb && kb == 0) return a;
    break;
  case IOP_MUL:
    if (cb && kb == 1) return a;
    if (ca && ka == 1) return b;
    if ((ca && ka == 0) || (cb && kb == 0)) return ixj__iprog_const(p, type, 0);
    break;
  case IOP_LSHR:
    if (imm == 0) return a;
    break;
  case IOP_CAST:
    if (p->inst[a].type == type) return a;
    break;
  case IOP_SELECT:
    if (ca) return ka ? b : c;
    break;
  default: break;
  }
  iprog_inst in = {(uint8_t)op, (uint8_t)type, (uint8_t)flags, a, b, c, imm, 0};
  /* operations on constants only are folded (division is never folded: the
   * measurement kernels must keep theirs) */
  bool foldable = op == IOP_ADD || op == IOP_SUB || op == IOP_MUL || op == IOP_LSHR || op == IOP_AND ||
                  op == IOP_EQ || op == IOP_ULT || op == IOP_CAST;
  bool unary = op == IOP_LSHR || op == IOP_CAST;
  if (foldable && ca && (unary || cb)) return ixj__iprog_const(p, type, (int64_t)apply(&in, (uint64_t)ka, (uint64_t)kb, 0));
  return append(p, in);
}

static int emit2(lower *lw, iprog_op op, int flags, int a, int b) {
  if (lw->prog.oom) return 0;
  return ixj__iprog_emit(&lw->prog, op, (iprog_type)lw->prog.inst[a].type, flags, a, b, -1, 0);
}

static int konst(lower *lw, uint64_t value) { return ixj__iprog_const(&lw->prog, lw->index, (int64_t)value); }

static int cast(lower *lw, iprog_type type, int a) { return ixj__iprog_emit(&lw->prog, IOP_CAST, type, 0, a, -1, -1, 0); }

static int shift_right(lower *lw, int a, unsigned k) {
  return ixj__iprog_emit(&lw->prog, IOP_LSHR, lw->index, 0, a, -1, -1, k);
}

static int mulhi(lower *lw, int a, uint64_t m) { return emit2(lw, IOP_MULHI, 0, a, konst(lw, m)); }

void ixj__lower_init(lower *lw, const ixj_plan *p, lower_division division) {
  memset(lw, 0, sizeof *lw);
  lw->plan = p;
  lw->index = p->index_bits == 32 ? IPROG_U32 : IPROG_U64;
  lw->division = division;
  lw->error.status = IXJ_OK;
}

void ixj__lower_dispose(lower *lw) {
  free(lw->prog.inst);
  lw->prog.inst = NULL;
  lw->prog.count = lw->prog.cap = 0;
}

ixj_status ixj__lower_status(const lower *lw, ixj_error *err) {
  if (lw->error.status != IXJ_OK) {
    if (err) *err = lw->error;
    return lw->error.status;
  }
  if (lw->prog.oom) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory while lowering the index math");
  return IXJ_OK;
}

int ixj__lower_input(lower *lw, iprog_type type, const char *fmt, int k) {
  if (lw->num_inputs == LOWER_MAX_INPUTS) {
    ixj__lower_fail(lw, IXJ_ERR_INTERNAL, "internal error: too many kernel inputs");
    return 0;
  }
  snprintf(lw->input[lw->num_inputs], sizeof lw->input[0], fmt, k);
  return ixj__iprog_input(&lw->prog, type, lw->num_inputs++);
}

void ixj__lower_fail(lower *lw, ixj_status status, const char *message) {
  if (lw->error.status == IXJ_OK) ixj__fail(&lw->error, status, "%s", message);
}

/* ---- evaluating ----------------------------------------------------------- */

ixj_status ixj__iprog_eval(const iprog *p, const uint64_t *in, int num_in, uint64_t *values, ixj_error *err) {
  if (p->oom) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "the program is incomplete (out of memory)");
  for (int k = 0; k < p->count; k++) {
    const iprog_inst *x = &p->inst[k];
    uint64_t a = 0, b = 0, c = 0;
    IXJ_ASSERT(err, x->a < k && x->b < k && x->c < k);
    if (x->a >= 0) a = values[x->a];
    if (x->b >= 0) b = values[x->b];
    if (x->c >= 0) c = values[x->c];
    if (x->op == IOP_INPUT) {
      IXJ_ASSERT(err, x->imm >= 0 && x->imm < num_in);
      values[k] = in[x->imm] & type_mask((iprog_type)x->type);
    } else {
      values[k] = apply(x, a, b, c);
    }
  }
  return IXJ_OK;
}

/* ---- division ------------------------------------------------------------- */

/* floor(n / d) by the sequence of dv (n <= dv->bound). */
static int magic_quotient(lower *lw, const ixj_divider *dv, int n) {
  const unsigned w = lw->index == IPROG_U32 ? 32 : 64;
  switch (dv->form) {
  case IXJ_DIV_SHIFT: return dv->shift >= w ? konst(lw, 0) : shift_right(lw, n, dv->shift);
  case IXJ_DIV_MUL: return shift_right(lw, mulhi(lw, n, dv->multiplier), dv->shift - w);
  case IXJ_DIV_MUL_INC: {
    int n1 = emit2(lw, IOP_ADD, IPROG_NUW, n, konst(lw, 1));
    return shift_right(lw, mulhi(lw, n1, dv->multiplier), dv->shift - w);
  }
  case IXJ_DIV_FIXUP: {
    int hi = mulhi(lw, n, dv->multiplier);
    int half = shift_right(lw, emit2(lw, IOP_SUB, 0, n, hi), 1);
    return shift_right(lw, emit2(lw, IOP_ADD, 0, half, hi), dv->shift - w - 1);
  }
  }
  return konst(lw, 0);
}

static int magic_remainder(lower *lw, const ixj_remainder *rm, int n) {
  switch (rm->form) {
  case IXJ_REM_ZERO: return konst(lw, 0);
  case IXJ_REM_IDENTITY: return n;
  case IXJ_REM_MASK: return emit2(lw, IOP_AND, 0, n, konst(lw, rm->divisor - 1));
  case IXJ_REM_MULSUB: {
    int q = magic_quotient(lw, &rm->quotient, n);
    return emit2(lw, IOP_SUB, IPROG_NUW, n, emit2(lw, IOP_MUL, IPROG_NUW, q, konst(lw, rm->divisor)));
  }
  }
  return konst(lw, 0);
}

/* PyTorch's IntDivider reads each divisor's magic from the kernel arguments. */
static int runtime_divisor(lower *lw, uint64_t d, iprog_op op, int n) {
  int k = lw->num_divisors < LOWER_MAX_RUNTIME_DIVISORS ? lw->num_divisors : LOWER_MAX_RUNTIME_DIVISORS - 1;
  lw->divisor[k] = (uint32_t)d;
  lw->num_divisors = k + 1;
  int v = ixj__iprog_emit(&lw->prog, op, lw->index, 0, n, -1, -1, k);
  if (!lw->prog.oom) lw->prog.inst[v].imm2 = (int64_t)d;
  return v;
}

/* floor(n / inner) mod extent, n <= bound, in the lowering's division style. */
static int digit(lower *lw, uint64_t inner, uint64_t extent, uint64_t bound, int n) {
  bool outermost = (unsigned __int128)inner * extent > bound;
  if (lw->division == LOWER_DIV_PLAIN) {
    int q = inner == 1 ? n : emit2(lw, IOP_UDIV, 0, n, konst(lw, inner));
    return outermost ? q : emit2(lw, IOP_UREM, 0, q, konst(lw, extent));
  }
  if (lw->division == LOWER_DIV_RUNTIME) {
    int q = inner == 1 ? n : runtime_divisor(lw, inner, IOP_ARG_QUOTIENT, n);
    if (outermost) return q;
    int q2 = runtime_divisor(lw, extent, IOP_ARG_QUOTIENT, q);
    int d = ixj__iprog_emit(&lw->prog, IOP_ARG_DIVISOR, lw->index, 0, -1, -1, -1, lw->num_divisors - 1);
    if (!lw->prog.oom) lw->prog.inst[d].imm2 = (int64_t)extent;
    return emit2(lw, IOP_SUB, 0, q, emit2(lw, IOP_MUL, 0, q2, d));
  }
  ixj_digit dg;
  ixj_error e;
  if (ixj_digit_make(inner, extent, bound, lw->index == IPROG_U32 ? 32 : 64, &dg, &e) != IXJ_OK) {
    ixj__lower_fail(lw, IXJ_ERR_INTERNAL, e.message);
    return konst(lw, 0);
  }
  switch (dg.form) {
  case IXJ_DIGIT_QUOTIENT: return magic_quotient(lw, &dg.quotient, n);
  case IXJ_DIGIT_DIVMOD: return magic_remainder(lw, &dg.remainder, magic_quotient(lw, &dg.quotient, n));
  case IXJ_DIGIT_DIRECT: return mulhi(lw, emit2(lw, IOP_MUL, 0, n, konst(lw, dg.c)), dg.extent);
  }
  return konst(lw, 0);
}

/* ---- the index math --------------------------------------------------------- */

void ixj__lower_unflatten(lower *lw, int n, int rank, const int64_t *shape, uint64_t bound, int *digits) {
  uint64_t inner = 1;
  for (int k = rank - 1; k >= 0; k--) {
    digits[k] = shape[k] == 1 ? konst(lw, 0) : digit(lw, inner, (uint64_t)shape[k], bound, n);
    inner *= (uint64_t)shape[k];
  }
}

int ixj__lower_rotate(lower *lw, int d, int64_t r, int64_t extent) {
  if (r == 0) return d;
  int s = emit2(lw, IOP_ADD, IPROG_NUW, d, konst(lw, (uint64_t)r));
  int below = ixj__iprog_emit(&lw->prog, IOP_ULT, IPROG_I1, 0, s, konst(lw, (uint64_t)extent), -1, 0);
  int wrapped = emit2(lw, IOP_SUB, 0, s, konst(lw, (uint64_t)extent));
  return ixj__iprog_emit(&lw->prog, IOP_SELECT, lw->index, 0, below, s, wrapped, 0);
}

int ixj__lower_offset(lower *lw, int base, int rank, const int *coord, const int64_t *stride,
                      const int64_t *rotate, const int64_t *extent) {
  int acc = base;
  for (int j = 0; j < rank; j++) {
    if (stride[j] == 0) continue;
    int c = cast(lw, IPROG_S64, ixj__lower_rotate(lw, coord[j], rotate[j], extent[j]));
    int term = emit2(lw, IOP_MUL, IPROG_NSW, c, ixj__iprog_const(&lw->prog, IPROG_S64, stride[j]));
    acc = emit2(lw, IOP_ADD, IPROG_NSW, acc, term);
  }
  return acc;
}

/* Tail LMAD m of o's chain applied to x: unflattened by its logical shape and
 * mapped; with left, also the points from x on in its run dim's run
 * (ixj__lower_chain_run). */
static int chain_level(lower *lw, const plan_operand *o, int m, int x, int *left) {
  const ixj_lmad *l = &o->tail[m];
  lmad_ldim d[IXJ_MAX_RANK];
  int64_t shape[IXJ_MAX_RANK], stride[IXJ_MAX_RANK], rot[IXJ_MAX_RANK];
  int digits[IXJ_MAX_RANK];
  ixj__lmad_logical_dims(l, d);
  for (int k = 0; k < l->rank; k++) shape[k] = d[k].extent, stride[k] = d[k].stride, rot[k] = d[k].rotate;
  ixj__lower_unflatten(lw, cast(lw, lw->index, x), l->rank, shape, (uint64_t)ixj__lmad_count(l) - 1, digits);
  if (left) { /* extent - digit >= 1: the points left in the run, this one included */
    int j = ixj__plan_run_dim(l);
    *left = cast(lw, IPROG_S64, emit2(lw, IOP_SUB, IPROG_NUW, konst(lw, (uint64_t)shape[j]), digits[j]));
  }
  return ixj__lower_offset(lw, ixj__iprog_const_s64(&lw->prog, plan_tail_offset(o, m)), l->rank, digits, stride, rot, shape);
}

int ixj__lower_chain(lower *lw, const plan_operand *o, int x) {
  for (int m = 0; m < o->num_tail; m++) x = chain_level(lw, o, m, x, NULL);
  return x;
}

int ixj__lower_chain_run(lower *lw, const plan_operand *o, int x, int *left) { return chain_level(lw, o, 0, x, left); }

int ixj__lower_point_offset(lower *lw, const plan_operand *o, int rank, const int *coord, const int64_t *extent) {
  return ixj__lower_chain(lw, o, ixj__lower_offset(lw, ixj__iprog_const_s64(&lw->prog, o->head_offset), rank, coord, o->stride, o->rotate, extent));
}

void ixj__lower_odometer(lower *lw, int rank, const int *digit, const int64_t *shape, int64_t step, int *next) {
  int carry = -1; /* the innermost digit always advances */
  for (int j = rank - 1; j >= 0; j--) {
    int inc = carry < 0 ? konst(lw, (uint64_t)step) : cast(lw, lw->index, carry);
    int d = emit2(lw, IOP_ADD, 0, digit[j], inc);
    if (j == 0) { /* no point lies past the last: the outermost digit never wraps */
      next[j] = d;
      break;
    }
    carry = ixj__iprog_emit(&lw->prog, IOP_EQ, IPROG_I1, 0, d, konst(lw, (uint64_t)shape[j]), -1, 0);
    next[j] = ixj__iprog_emit(&lw->prog, IOP_SELECT, lw->index, 0, carry, konst(lw, 0), d, 0);
  }
}

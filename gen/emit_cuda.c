/* CUDA C emission: a printer of the index program (gen/lower.h) and the fill
 * of the templates in templates/cuda/ (elementwise with several units per
 * thread and odometer carries; a padded shared-memory tile for transposes).
 * This file also owns what the runtime needs to launch the kernels it writes:
 * the block shape and the argument block's layout. */
#include "emit_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "lower.h"
#include "template.h"

extern const char ixj__template_cuda_elementwise[];
extern const char ixj__template_cuda_tiled[];
extern const char ixj__template_cuda_prelude[];

typedef struct cemit {
  const ixj_plan *p;
  lower lw;
  const char *vec; /* the 16-byte vector type of vectorized accesses, or NULL */
  bool int_offsets; /* element offsets (the program's S64 values) printed as int */
} cemit;

typedef struct name {
  char s[64];
} name;

static const char *ctype(iprog_type t) {
  switch (t) {
  case IPROG_I1: return "bool";
  case IPROG_U32: return "unsigned";
  case IPROG_U64: return "unsigned long long";
  case IPROG_S64: return "long long";
  }
  return "?";
}

/* A value's C type: S64 offsets are ints where the plan's bounds allow. */
static const char *vtype(const cemit *e, iprog_type t) { return t == IPROG_S64 && e->int_offsets ? "int" : ctype(t); }

/* How an operand reads: a literal, the skeleton's name of an input, or vN. */
static name ref(const cemit *e, int v) {
  const iprog_inst *x = &e->lw.prog.inst[v];
  name n;
  if (x->op == IOP_CONST) {
    switch ((iprog_type)x->type) {
    case IPROG_I1: snprintf(n.s, sizeof n.s, "%s", x->imm ? "true" : "false"); break;
    case IPROG_U32: snprintf(n.s, sizeof n.s, "%uu", (unsigned)x->imm); break;
    case IPROG_U64: snprintf(n.s, sizeof n.s, "%lluull", (unsigned long long)x->imm); break;
    case IPROG_S64:
      if (e->int_offsets) snprintf(n.s, sizeof n.s, x->imm < 0 ? "(%lld)" : "%lld", (long long)x->imm);
      else if (x->imm == INT64_MIN) snprintf(n.s, sizeof n.s, "(-9223372036854775807LL - 1)");
      else if (x->imm < 0) snprintf(n.s, sizeof n.s, "(%lldLL)", (long long)x->imm);
      else snprintf(n.s, sizeof n.s, "%lldLL", (long long)x->imm);
      break;
    }
  } else if (x->op == IOP_INPUT) {
    snprintf(n.s, sizeof n.s, "%s", e->lw.input[x->imm]);
  } else {
    snprintf(n.s, sizeof n.s, "v%d", v);
  }
  return n;
}

/* Prints every instruction lowered since the last flush, one `const T vN =
 * ...;` each, at the given indentation. */
static void flush(cemit *e, text *t, const char *indent) {
  const iprog *p = &e->lw.prog;
  for (; !p->oom && e->lw.printed < p->count; e->lw.printed++) {
    int v = e->lw.printed;
    const iprog_inst *x = &p->inst[v];
    if (x->op == IOP_INPUT || x->op == IOP_CONST) continue;
    name a = x->a >= 0 ? ref(e, x->a) : (name){""}, b = x->b >= 0 ? ref(e, x->b) : (name){""};
    name c = x->c >= 0 ? ref(e, x->c) : (name){""};
    const char *ty = vtype(e, (iprog_type)x->type), *hi = x->type == IPROG_U32 ? "__umulhi" : "__umul64hi";
    ixj__text_put(t, "%sconst %s v%d = ", indent, ty, v);
    switch ((iprog_op)x->op) {
    case IOP_INPUT:
    case IOP_CONST: break;
    case IOP_ADD: ixj__text_put(t, "%s + %s", a.s, b.s); break;
    case IOP_SUB: ixj__text_put(t, "%s - %s", a.s, b.s); break;
    case IOP_MUL: ixj__text_put(t, "%s * %s", a.s, b.s); break;
    case IOP_MULHI: ixj__text_put(t, "%s(%s, %s)", hi, a.s, b.s); break;
    case IOP_LSHR: ixj__text_put(t, "%s >> %lld", a.s, (long long)x->imm); break;
    case IOP_AND: ixj__text_put(t, "%s & %s", a.s, b.s); break;
    case IOP_EQ: ixj__text_put(t, "%s == %s", a.s, b.s); break;
    case IOP_ULT: ixj__text_put(t, "%s < %s", a.s, b.s); break;
    case IOP_SELECT: ixj__text_put(t, "%s ? %s : %s", a.s, b.s, c.s); break;
    case IOP_CAST: ixj__text_put(t, "(%s)%s", ty, a.s); break;
    case IOP_UDIV: ixj__text_put(t, "%s / %s", a.s, b.s); break;
    case IOP_UREM: ixj__text_put(t, "%s %% %s", a.s, b.s); break;
    case IOP_ARG_QUOTIENT: /* PyTorch's IntDivider: 32-bit magic, else a real division */
      if (x->type == IPROG_U32)
        ixj__text_put(t, "(__umulhi(%s, a.div_magic[%lld]) + %s) >> a.div_shift[%lld]", a.s, (long long)x->imm, a.s,
                      (long long)x->imm);
      else
        ixj__text_put(t, "%s / a.div_value[%lld]", a.s, (long long)x->imm);
      break;
    case IOP_ARG_DIVISOR: ixj__text_put(t, "(%s)a.div_value[%lld]", ty, (long long)x->imm); break;
    }
    ixj__text_put(t, ";\n");
  }
}

/* dst[dst_off] = src[src_off] (src < 0: the fill value), by 16-byte vectors
 * when the plan proved alignment. */
static void move(cemit *e, text *t, const char *indent, int dst_off, int src, int src_off) {
  name d = ref(e, dst_off);
  if (src < 0) {
    if (e->vec) ixj__text_put(t, "%s*(%s *)(p0 + %s) = fill_vector;\n", indent, e->vec, d.s);
    else if (e->p->vector_elems > 1)
      ixj__text_put(t, "%sfor (int q = 0; q < %d; q++) p0[%s + q] = fill_value;\n", indent, e->p->vector_elems, d.s);
    else ixj__text_put(t, "%sp0[%s] = fill_value;\n", indent, d.s);
    return;
  }
  name s = ref(e, src_off);
  if (e->vec) ixj__text_put(t, "%s*(%s *)(p0 + %s) = *(const %s *)(p%d + %s);\n", indent, e->vec, d.s, e->vec, src, s.s);
  else if (e->p->vector_elems > 1)
    ixj__text_put(t, "%sfor (int q = 0; q < %d; q++) p0[%s + q] = p%d[%s + q];\n", indent, e->p->vector_elems, d.s, src,
                  s.s);
  else ixj__text_put(t, "%sp0[%s] = p%d[%s];\n", indent, d.s, src, s.s);
}

static void pointers(const cemit *e, text *t) {
  const ixj_plan *p = e->p;
  for (int o = 0; o < p->num_operands; o++) {
    if (p->op == IXJ_OP_FILL && o == 1) continue;
    ixj__text_put(t, "  %sixj_elem *p%d = (%sixj_elem *)a.ptr[%d] + a.off[%d];\n", o ? "const " : "", o,
                  o ? "const " : "", o, o);
  }
  if (p->op != IXJ_OP_FILL) return;
  ixj__text_put(t, "  const ixj_elem fill_value = *(const ixj_elem *)a.value;\n");
  if (e->vec) /* the element repeated across one vector */
    ixj__text_put(t,
                  "  union { ixj_elem e[%d]; %s v; } fill_lanes;\n"
                  "  for (int q = 0; q < %d; q++) fill_lanes.e[q] = fill_value;\n"
                  "  const %s fill_vector = fill_lanes.v;\n",
                  p->vector_elems, e->vec, p->vector_elems, e->vec);
}

void ixj__cuda_args_layout(int operands, int divisors, cuda_args_layout *out) {
  size_t n = (size_t)operands, d = (size_t)(divisors > 0 ? divisors : 1);
  out->operands = operands;
  out->divisors = (int)d;
  out->ptr_at = 0;                          /* const void *ptr[n] */
  out->off_at = 8 * n;                      /* long long off[n] */
  out->value_at = 16 * n;                   /* unsigned long long value[2] */
  out->magic_at = out->value_at + 16;       /* unsigned div_magic[d] */
  out->shift_at = out->magic_at + 4 * d;    /* unsigned div_shift[d] */
  out->divisor_at = out->shift_at + 4 * d;  /* unsigned div_value[d] */
  out->size = (out->divisor_at + 4 * d + 7) / 8 * 8; /* the struct's 8-byte alignment */
}

/* PyTorch's IntDivider for d < 2^31: q = (umulhi(n, m) + n) >> s with
 * s = ceil(log2 d) and m = floor(2^32 (2^s - d) / d) + 1. */
static void int_divider(uint32_t d, uint32_t *magic, uint32_t *shift) {
  uint32_t s = 0;
  while (s < 32 && ((uint64_t)1 << s) < d) s++;
  *shift = s;
  *magic = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << s) - d)) / d + 1);
}

ixj_status ixj__cuda_pack_args(const ixj_plan *p, const void *const *ptrs, const void *fill_value,
                               const cuda_divisors *divisors, void *buf, size_t size, size_t *used, ixj_error *err) {
  cuda_args_layout l;
  int nd = divisors ? divisors->count : 0;
  IXJ_ASSERT(err, p->num_operands >= 1 && p->num_operands <= PLAN_MAX_OPERANDS);
  IXJ_ASSERT(err, nd >= 0 && nd <= CUDA_MAX_RUNTIME_DIVISORS && p->elem_size <= 16);
  IXJ_ASSERT(err, (p->op == IXJ_OP_FILL) == (fill_value != NULL));
  ixj__cuda_args_layout(p->num_operands, nd, &l);
  if (l.size > size) return ixj__fail(err, IXJ_ERR_LIMIT, "the kernel arguments need %zu bytes, not %zu", l.size, size);
  unsigned char *b = buf;
  memset(b, 0, l.size);
  for (int o = 0; o < p->num_operands; o++) {
    const void *ptr = p->op == IXJ_OP_FILL && o == 1 ? NULL : ptrs[o];
    int64_t off = p->operand[o].runtime_offset;
    memcpy(b + l.ptr_at + 8 * (size_t)o, &ptr, sizeof ptr);
    memcpy(b + l.off_at + 8 * (size_t)o, &off, sizeof off);
  }
  if (fill_value) memcpy(b + l.value_at, fill_value, p->elem_size);
  for (int k = 0; k < nd; k++) {
    uint32_t magic, shift, value = divisors->value[k];
    int_divider(value, &magic, &shift);
    memcpy(b + l.magic_at + 4 * (size_t)k, &magic, 4);
    memcpy(b + l.shift_at + 4 * (size_t)k, &shift, 4);
    memcpy(b + l.divisor_at + 4 * (size_t)k, &value, 4);
  }
  *used = l.size;
  return IXJ_OK;
}

static ixj_status prelude(const cemit *e, char **out, ixj_error *err) {
  static const char *fields[] = {"", "unsigned char x;", "unsigned short x;", "", "unsigned x;", "", "", "",
                                 "unsigned long long x;"};
  size_t es = e->p->elem_size;
  IXJ_ASSERT(err, es == 1 || es == 2 || es == 4 || es == 8 || es == 16);
  cuda_args_layout l;
  ixj__cuda_args_layout(e->p->num_operands, e->lw.num_divisors, &l);
  char align[8], operands[16], divisors[16], size[24];
  snprintf(align, sizeof align, "%zu", es <= 8 ? es : 8);
  snprintf(operands, sizeof operands, "%d", l.operands);
  snprintf(divisors, sizeof divisors, "%d", l.divisors);
  snprintf(size, sizeof size, "%zu", l.size);
  const char *kv[] = {"INDEX_TYPE", ctype(e->lw.index), "ELEM_ALIGN", align, "ELEM_FIELDS",
                      es == 16 ? "unsigned long long x, y;" : fields[es], "OPERANDS", operands, "DIVISORS", divisors,
                      "ARGS_SIZE", size};
  return ixj__template_fill(ixj__template_cuda_prelude, kv, (int)(sizeof kv / sizeof *kv / 2), out, err);
}

static const char *body(const text *t) { return t->buf ? t->buf : ""; }

/* |offset| + sum_j |stride_j| (extent_j - 1) <= 2^31 - 1: every partial sum
 * of an offset over these dims, in any order, is then an int. */
static bool lmad_fits_int32(int64_t offset, int rank, const int64_t *stride, const int64_t *extent) {
  unsigned __int128 m = (unsigned __int128)(offset < 0 ? -(__int128)offset : offset);
  for (int j = 0; j < rank; j++) {
    __int128 st = stride[j];
    m += (unsigned __int128)(st < 0 ? -st : st) * (unsigned __int128)(extent[j] - 1);
  }
  return m <= (unsigned __int128)INT32_MAX;
}

/* Whether an elementwise kernel's offsets may be ints: its index width is 32
 * bits (every coordinate, and so its cast, is an int) and every offset the
 * lowering forms is a partial sum of one LMAD's terms: the head's over the
 * space (a cat input's extent is at most the space's), or a chain tail's
 * over its logical dims (gen/lower.c, ixj__lower_chain). */
static bool elementwise_int_offsets(const ixj_plan *p) {
  if (p->index_bits != 32) return false;
  for (int o = 0; o < p->num_operands; o++) {
    const plan_operand *x = &p->operand[o];
    if (p->op == IXJ_OP_FILL && o == 1) continue;
    if (!lmad_fits_int32(x->head_offset, p->rank, x->stride, p->shape)) return false;
    for (int m = 0; m < x->num_tail; m++) {
      const ixj_lmad *l = &x->tail[m];
      lmad_ldim d[IXJ_MAX_RANK];
      int64_t stride[IXJ_MAX_RANK], extent[IXJ_MAX_RANK];
      ixj__lmad_logical_dims(l, d);
      for (int k = 0; k < l->rank; k++) stride[k] = d[k].stride, extent[k] = d[k].extent;
      if (!lmad_fits_int32(plan_tail_offset(x, m), l->rank, stride, extent)) return false;
    }
  }
  return true;
}

enum { EW_SETUP, EW_BODY, EW_CARRY, EW_PARTS };

static ixj_status elementwise(cemit *e, const char *kname, const char *signature, char **out, ixj_error *err) {
  const ixj_plan *p = e->p;
  lower *lw = &e->lw;
  int r = p->rank;
  text part[EW_PARTS] = {{0}};
  int digit[IXJ_MAX_RANK], coord[IXJ_MAX_RANK], next[IXJ_MAX_RANK];

  /* the thread's first unit */
  pointers(e, &part[EW_SETUP]);
  ixj__lower_unflatten(lw, ixj__lower_input(lw, lw->index, "n", 0), r, p->shape, (uint64_t)p->count - 1, digit);
  flush(e, &part[EW_SETUP], "  ");
  for (int j = 0; j < r; j++) {
    name d = ref(e, digit[j]);
    ixj__text_put(&part[EW_SETUP], "  ixj_index d%d = %s;\n", j, d.s);
  }

  /* each unit: the operands' offsets at (d0, ..., d[r-1]), the move */
  text *t = &part[EW_BODY];
  for (int j = 0; j < r; j++) coord[j] = ixj__lower_input(lw, lw->index, "d%d", j);
  int dst_off = ixj__lower_point_offset(lw, &p->operand[0], r, coord, p->shape);
  if (p->op == IXJ_OP_COPY) {
    int src_off = ixj__lower_point_offset(lw, &p->operand[1], r, coord, p->shape);
    flush(e, t, "    ");
    move(e, t, "    ", dst_off, 1, src_off);
  } else if (p->op == IXJ_OP_FILL) {
    flush(e, t, "    ");
    move(e, t, "    ", dst_off, -1, -1);
  } else { /* cat: the input that holds the axis coordinate */
    int axis = p->cat_axis;
    bool first = true;
    flush(e, t, "    ");
    for (int k = 1; k < p->num_operands; k++) {
      const plan_operand *x = &p->operand[k];
      if (x->cat_extent == 0) continue;
      bool final = x->cat_start + x->cat_extent == p->shape[axis];
      if (final) ixj__text_put(t, first ? "    {\n" : "    else {\n");
      else ixj__text_put(t, "    %sif (d%d < %lldu) {\n", first ? "" : "else ", axis, (long long)(x->cat_start + x->cat_extent));
      first = false;
      int local[IXJ_MAX_RANK];
      int64_t extent[IXJ_MAX_RANK];
      memcpy(local, coord, sizeof local);
      memcpy(extent, p->shape, sizeof extent);
      extent[axis] = x->cat_extent;
      local[axis] = ixj__iprog_emit(&lw->prog, IOP_SUB, lw->index, IPROG_NUW, coord[axis],
                                    ixj__iprog_const(&lw->prog, lw->index, x->cat_start), -1, 0);
      int so = ixj__lower_point_offset(lw, x, r, local, extent);
      flush(e, t, "      ");
      move(e, t, "      ", dst_off, k, so);
      ixj__text_put(t, "    }\n");
      if (final) break;
    }
  }

  /* the odometer to the next unit */
  ixj__lower_odometer(lw, r, coord, p->shape, p->vector_elems, next);
  flush(e, &part[EW_CARRY], "    ");
  for (int j = 0; j < r; j++) {
    name d = ref(e, next[j]);
    ixj__text_put(&part[EW_CARRY], "    d%d = %s;\n", j, d.s);
  }

  char *pre = NULL;
  ixj_status st = ixj__lower_status(lw, err);
  if (st == IXJ_OK) st = prelude(e, &pre, err); /* after the body: it counts the runtime divisors */
  for (int k = 0; k < EW_PARTS && st == IXJ_OK; k++)
    if (part[k].oom) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory while emitting CUDA C");
  if (st == IXJ_OK) {
    char per[8], step[8], threads[8];
    snprintf(per, sizeof per, "%d", CUDA_UNITS_PER_THREAD);
    snprintf(step, sizeof step, "%d", p->vector_elems);
    snprintf(threads, sizeof threads, "%d", CUDA_THREADS_PER_BLOCK);
    const char *kv[] = {"STRATEGY", ixj__plan_strategy_name(p->strategy), "SIGNATURE", signature, "NAME", kname,
                        "PRELUDE", pre, "THREADS", threads, "PER_THREAD", per, "STEP", step,
                        "SETUP", body(&part[EW_SETUP]), "BODY", body(&part[EW_BODY]), "CARRY", body(&part[EW_CARRY])};
    st = ixj__template_fill(ixj__template_cuda_elementwise, kv, (int)(sizeof kv / sizeof *kv / 2), out, err);
  }
  free(pre);
  for (int k = 0; k < EW_PARTS; k++) free(part[k].buf);
  return st;
}

enum { TL_SETUP, TL_LOAD_SETUP, TL_LOAD, TL_STORE_SETUP, TL_STORE, TL_PARTS };

/* Whether every offset of operand o relative to its runtime offset that a
 * tiled kernel forms, over the plan's whole space and up to a tile - 1 past
 * the edges of the tiled dims (a thread's first element in a partial tile),
 * lies in [-(2^31 - 1), 2^31 - 1]: |head offset| + sum_j |stride_j| (extent_j
 * - 1) + (tile - 1) (|stride_a| + |stride_b|) bounds every partial sum of
 * such an offset (rotations keep each coordinate below its extent). */
static bool tile_offsets_fit_int32(const ixj_plan *p, const plan_operand *o) {
  unsigned __int128 m = (unsigned __int128)(o->head_offset < 0 ? -(__int128)o->head_offset : o->head_offset);
  for (int j = 0; j < p->rank; j++) {
    __int128 s = o->stride[j];
    unsigned __int128 reach = (unsigned __int128)(p->shape[j] - 1) + (j >= p->rank - 2 ? (unsigned)(p->tile - 1) : 0u);
    m += (unsigned __int128)(s < 0 ? -s : s) * reach;
  }
  return m <= (unsigned __int128)INT32_MAX;
}

/* base + sum_j rot_j(coord_j) * stride_j in 32-bit unsigned arithmetic, which
 * wraps: when the true offset fits in an int, it is the result read as one
 * (two's complement), whatever the intermediate sums. */
static int offset32(lower *lw, int base, int rank, const int *coord, const int64_t *stride, const int64_t *rotate,
                    const int64_t *extent) {
  iprog *g = &lw->prog;
  int acc = base;
  for (int j = 0; j < rank; j++) {
    if (stride[j] == 0) continue;
    int c = ixj__lower_rotate(lw, coord[j], rotate[j], extent[j]);
    int term = ixj__iprog_emit(g, IOP_MUL, IPROG_U32, 0, c, ixj__iprog_const(g, IPROG_U32, stride[j]), -1, 0);
    acc = ixj__iprog_emit(g, IOP_ADD, IPROG_U32, 0, acc, term, -1, 0);
  }
  return acc;
}

/* A thread's first element of a phase as a pointer: base + b * sb + a * sa
 * in int arithmetic, which cannot overflow (tile_offsets_fit_int32). */
static void first_element(text *t, const char *type, const char *pointer, const char *from, const char *base,
                          const char *b, int64_t sb, const char *a, int64_t sa) {
  ixj__text_put(t, "  %s *const %s = %s + (%s", type, pointer, from, base);
  if (sb) ixj__text_put(t, " + (int)%s * (%lld)", b, (long long)sb);
  if (sa) ixj__text_put(t, " + (int)%s * (%lld)", a, (long long)sa);
  ixj__text_put(t, ");\n");
}

static ixj_status tiled(cemit *e, const char *kname, const char *signature, char **out, ixj_error *err) {
  const ixj_plan *p = e->p;
  lower *lw = &e->lw;
  iprog *g = &lw->prog;
  int r = p->rank, qb = r - 2, qa = r - 1, T = p->tile;
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  IXJ_ASSERT(err, dst->num_tail == 0 && src->num_tail == 0); /* tiles are planned for single LMADs only */
  /* 32-bit tile arithmetic when the plan's index width is 32 (every
   * coordinate, and a corner plus the tile, stays below 2^31 + 32) and both
   * operands' offsets fit in an int */
  bool narrow = lw->index == IPROG_U32 && tile_offsets_fit_int32(p, dst) && tile_offsets_fit_int32(p, src);
  text part[TL_PARTS] = {{0}};
  int64_t tshape[IXJ_MAX_RANK], zero[1] = {0};
  int digit[IXJ_MAX_RANK], corner[2], od, os;
  memcpy(tshape, p->shape, sizeof tshape);
  tshape[qb] = (p->shape[qb] + T - 1) / T;
  tshape[qa] = (p->shape[qa] + T - 1) / T;

  /* the block's tile: outer offsets and its corner, in the index type */
  ixj__text_put(&part[TL_SETUP], "  ixj_elem *dst = (ixj_elem *)a.ptr[0] + a.off[0];\n");
  ixj__text_put(&part[TL_SETUP], "  const ixj_elem *src = (const ixj_elem *)a.ptr[1] + a.off[1];\n");
  ixj__lower_unflatten(lw, ixj__lower_input(lw, lw->index, "n", 0), r, tshape, p->work_units - 1, digit);
  if (narrow) {
    od = offset32(lw, ixj__iprog_const(g, IPROG_U32, dst->head_offset), qb, digit, dst->stride, dst->rotate, p->shape);
    os = offset32(lw, ixj__iprog_const(g, IPROG_U32, src->head_offset), qb, digit, src->stride, src->rotate, p->shape);
  } else {
    od = ixj__lower_offset(lw, ixj__iprog_const_s64(g, dst->head_offset), qb, digit, dst->stride, dst->rotate, p->shape);
    os = ixj__lower_offset(lw, ixj__iprog_const_s64(g, src->head_offset), qb, digit, src->stride, src->rotate, p->shape);
  }
  for (int k = 0; k < 2; k++) /* digit * T <= extent - 1 + T - 1: no wrap */
    corner[k] = ixj__iprog_emit(g, IOP_MUL, lw->index, IPROG_NUW, digit[qb + k], ixj__iprog_const(g, lw->index, T), -1, 0);
  flush(e, &part[TL_SETUP], "  ");
  name nod = ref(e, od), nos = ref(e, os), nb0 = ref(e, corner[0]), na0 = ref(e, corner[1]);
  if (narrow) /* the outer offsets fit in an int: the wrapped sums read as one */
    ixj__text_put(&part[TL_SETUP], "  const int od = (int)%s, os = (int)%s;\n", nod.s, nos.s);
  else
    ixj__text_put(&part[TL_SETUP], "  const long long od = %s, os = %s;\n", nod.s, nos.s);
  ixj__text_put(&part[TL_SETUP], "  const ixj_index b0 = %s, a0 = %s;\n", nb0.s, na0.s);

  /* each phase's accesses: from one pointer per thread (narrow), or each
   * element's offset (ia, ib) computed in 64 bits */
  char load[96], store[96];
  if (narrow) {
    first_element(&part[TL_LOAD_SETUP], "const ixj_elem", "from", "src", "os", "load_b", src->stride[qb], "load_a",
                  src->stride[qa]);
    first_element(&part[TL_STORE_SETUP], "ixj_elem", "to", "dst", "od", "store_b", dst->stride[qb], "store_a",
                  dst->stride[qa]);
    snprintf(load, sizeof load, "from[k * %d * (%lld)]", CUDA_TILE_ROWS, (long long)src->stride[qa]);
    snprintf(store, sizeof store, "to[k * %d * (%lld)]", CUDA_TILE_ROWS, (long long)dst->stride[qb]);
  } else {
    int ia = ixj__lower_input(lw, lw->index, "ia", 0), ib = ixj__lower_input(lw, lw->index, "ib", 0);
    int base_s = ixj__lower_input(lw, IPROG_S64, "os", 0), base_d = ixj__lower_input(lw, IPROG_S64, "od", 0);
    int si = ixj__lower_offset(lw, ixj__lower_offset(lw, base_s, 1, &ib, &src->stride[qb], zero, &p->shape[qb]), 1, &ia,
                               &src->stride[qa], zero, &p->shape[qa]);
    ixj__text_put(&part[TL_LOAD], "      const ixj_index ia = load_a + k * %d, ib = load_b;\n", CUDA_TILE_ROWS);
    flush(e, &part[TL_LOAD], "      ");
    int di = ixj__lower_offset(lw, ixj__lower_offset(lw, base_d, 1, &ib, &dst->stride[qb], zero, &p->shape[qb]), 1, &ia,
                               &dst->stride[qa], zero, &p->shape[qa]);
    ixj__text_put(&part[TL_STORE], "      const ixj_index ia = store_a, ib = store_b + k * %d;\n", CUDA_TILE_ROWS);
    flush(e, &part[TL_STORE], "      ");
    name nsi = ref(e, si), ndi = ref(e, di);
    snprintf(load, sizeof load, "src[%s]", nsi.s);
    snprintf(store, sizeof store, "dst[%s]", ndi.s);
  }

  char *pre = NULL;
  ixj_status st = ixj__lower_status(lw, err);
  if (st == IXJ_OK) st = prelude(e, &pre, err);
  for (int k = 0; k < TL_PARTS && st == IXJ_OK; k++)
    if (part[k].oom) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory while emitting CUDA C");
  if (st == IXJ_OK) {
    char tile_s[8], rows[8];
    name na = ref(e, ixj__iprog_const(g, lw->index, p->shape[qa])), nb = ref(e, ixj__iprog_const(g, lw->index, p->shape[qb]));
    snprintf(tile_s, sizeof tile_s, "%d", T);
    snprintf(rows, sizeof rows, "%d", CUDA_TILE_ROWS);
    const char *kv[] = {"TILE", tile_s, "TILE_ROWS", rows, "SIGNATURE", signature, "NAME", kname, "PRELUDE", pre,
                        "SETUP", body(&part[TL_SETUP]), "NA", na.s, "NB", nb.s,
                        "LOAD_SETUP", body(&part[TL_LOAD_SETUP]), "LOAD_INDEX", body(&part[TL_LOAD]), "LOAD", load,
                        "STORE_SETUP", body(&part[TL_STORE_SETUP]), "STORE_INDEX", body(&part[TL_STORE]), "STORE", store};
    st = ixj__template_fill(ixj__template_cuda_tiled, kv, (int)(sizeof kv / sizeof *kv / 2), out, err);
  }
  free(pre);
  for (int k = 0; k < TL_PARTS; k++) free(part[k].buf);
  return st;
}

static ixj_status emit_any(const ixj_plan *p, const char *kname, const char *signature, cuda_division division,
                           char **out, cuda_divisors *divisors, ixj_error *err) {
  *out = NULL;
  if (p->strategy == PLAN_EMPTY || p->strategy == PLAN_MEMCPY)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "a %s plan has no kernel", ixj__plan_strategy_name(p->strategy));
  if (p->strategy == PLAN_CAT_PARTS) /* planned for CPUs only: a GPU cat is one elementwise kernel */
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "a cat_parts plan is not a CUDA plan");
  IXJ_ASSERT(err, p->rank >= 1 && p->rank <= IXJ_MAX_RANK && (p->strategy != PLAN_TILED || p->rank >= 2));
  cemit *e = calloc(1, sizeof *e);
  if (!e) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  e->p = p;
  ixj__lower_init(&e->lw, p,
                  division == CUDA_DIV_PLAIN ? LOWER_DIV_PLAIN : division == CUDA_DIV_RUNTIME ? LOWER_DIV_RUNTIME
                                                                                             : LOWER_DIV_MAGIC);
  /* whole 16-byte vectors per access when the plan proved alignment */
  if (p->vector_elems > 1 && (size_t)p->vector_elems * p->elem_size == 16) e->vec = "uint4";
  e->int_offsets = p->strategy != PLAN_TILED && elementwise_int_offsets(p); /* tiled: its own choice */
  ixj_status st = p->strategy == PLAN_TILED ? tiled(e, kname, signature, out, err)
                                            : elementwise(e, kname, signature, out, err);
  if (divisors) {
    divisors->count = e->lw.num_divisors;
    memcpy(divisors->value, e->lw.divisor, sizeof divisors->value);
  }
  ixj__lower_dispose(&e->lw);
  free(e);
  return st;
}

ixj_status ixj__emit_cuda(const ixj_plan *p, const char *kname, const char *signature, cuda_division division,
                          char **out, ixj_error *err) {
  return emit_any(p, kname, signature, division, out, NULL, err);
}

ixj_status ixj__emit_cuda_runtime(const ixj_plan *p, const char *kname, char **out, cuda_divisors *divisors,
                                  ixj_error *err) {
  return emit_any(p, kname, "runtime-magic baseline", CUDA_DIV_RUNTIME, out, divisors, err);
}

void ixj__cuda_launch_shape(const ixj_plan *p, uint64_t units, unsigned *blocks, unsigned *block_x, unsigned *block_y) {
  if (p->strategy == PLAN_TILED) {
    *blocks = (unsigned)units;
    *block_x = (unsigned)p->tile;
    *block_y = CUDA_TILE_ROWS;
    return;
  }
  uint64_t per_block = (uint64_t)CUDA_THREADS_PER_BLOCK * CUDA_UNITS_PER_THREAD * (uint64_t)p->vector_elems;
  *blocks = (unsigned)((units + per_block - 1) / per_block);
  *block_x = CUDA_THREADS_PER_BLOCK;
  *block_y = 1;
}

uint64_t ixj__cuda_units_per_launch(const ixj_plan *p, uint64_t max_blocks) {
  if (p->strategy == PLAN_TILED) return max_blocks ? max_blocks : (uint64_t)INT32_MAX;
  uint64_t per_block = (uint64_t)CUDA_THREADS_PER_BLOCK * CUDA_UNITS_PER_THREAD * (uint64_t)p->vector_elems;
  return (max_blocks ? max_blocks : (uint64_t)INT32_MAX / 2) * per_block;
}

/* LLVM IR emission: a printer of the index program (gen/lower.h) and the fill
 * of the templates in templates/llvm/. The templates give each kernel's loop
 * skeleton; this file loads the runtime arguments, lowers the plan's index
 * math piece by piece and prints each piece into its slot, and writes the
 * element moves. Digits that live across loop iterations are kept in allocas
 * (mem2reg turns them into registers). */
#include "emit_llvm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "lower.h"
#include "template.h"

extern const char ixj__template_elementwise[];
extern const char ixj__template_tiled[];
extern const char ixj__template_metadata[];
extern const char ixj__template_stream_copy[];

/* The metadata the kernels refer to (templates/llvm/metadata.ll is filled
 * with these numbers, so the ids are defined here only). */
enum {
  MD_NONTEMPORAL, /* !{i32 1}: streaming stores */
  MD_DOMAIN,      /* the alias domain */
  MD_DST_SCOPE,   /* the destination's scope */
  MD_SRC_SCOPE,   /* the sources' scope */
  MD_DST_LIST,    /* {dst scope}: alias.scope of stores, noalias of loads */
  MD_SRC_LIST,    /* {src scope}: alias.scope of loads, noalias of stores */
  MD_NO_UNROLL,   /* llvm.loop.unroll.disable */
  MD_SEGMENTS,    /* the loop id of an elementwise row's segments: not unrolled */
  MD_BLOCK_COLS,  /* the loop id of a tile's blocks along a: not unrolled */
  MD_COUNT
};

typedef struct emitter {
  const ixj_plan *p;
  lower lw;
  bool part;                        /* a part of a module: internal, its metadata and declarations left out */
  char declare[320];                /* the declarations the kernel needs, one a line (a part's: the module adds them) */
  const char *it;                   /* "i32" or "i64" */
  char elem[32];                    /* the moved type: iN or <L x iN> */
  char scalar[8];                   /* iN */
  int tmp, label;
} emitter;

typedef struct name {
  char s[48];
} name;

static const char *llvm_type(iprog_type t) {
  return t == IPROG_I1 ? "i1" : t == IPROG_U32 ? "i32" : "i64";
}

static int type_bits(iprog_type t) { return t == IPROG_I1 ? 1 : t == IPROG_U32 ? 32 : 64; }

/* How an operand reads: a literal, the skeleton's name of an input, or %vN
 * (a cast between equal widths is the same LLVM value). */
static name ref(const emitter *e, int v) {
  const iprog *p = &e->lw.prog;
  name n;
  while (p->inst[v].op == IOP_CAST && type_bits((iprog_type)p->inst[v].type) == type_bits((iprog_type)p->inst[p->inst[v].a].type))
    v = p->inst[v].a;
  const iprog_inst *x = &p->inst[v];
  if (x->op == IOP_CONST) {
    if (x->type == IPROG_I1) snprintf(n.s, sizeof n.s, "%s", x->imm ? "true" : "false");
    else if (x->type == IPROG_U32) snprintf(n.s, sizeof n.s, "%d", (int)(int32_t)(uint32_t)x->imm);
    else snprintf(n.s, sizeof n.s, "%lld", (long long)x->imm);
  } else if (x->op == IOP_INPUT) {
    snprintf(n.s, sizeof n.s, "%s", e->lw.input[x->imm]);
  } else {
    snprintf(n.s, sizeof n.s, "%%v%d", v);
  }
  return n;
}

static int input(emitter *e, iprog_type type, const char *fmt, int k) { return ixj__lower_input(&e->lw, type, fmt, k); }

static const char *flag_text(int flags) {
  static const char *spelling[] = {"", "nuw ", "nsw ", "nuw nsw "};
  return spelling[flags & 3];
}

/* Prints every instruction lowered since the last flush into t. */
static void flush(emitter *e, text *t) {
  const iprog *p = &e->lw.prog;
  for (; !p->oom && e->lw.printed < p->count; e->lw.printed++) {
    int v = e->lw.printed;
    const iprog_inst *x = &p->inst[v];
    const char *ty = llvm_type((iprog_type)x->type);
    iprog_type at = x->a >= 0 ? (iprog_type)p->inst[x->a].type : IPROG_I1;
    name a = x->a >= 0 ? ref(e, x->a) : (name){""}, b = x->b >= 0 ? ref(e, x->b) : (name){""};
    name c = x->c >= 0 ? ref(e, x->c) : (name){""};
    switch ((iprog_op)x->op) {
    case IOP_INPUT:
    case IOP_CONST: break;
    case IOP_ADD: ixj__text_put(t, "  %%v%d = add %s%s %s, %s\n", v, flag_text(x->flags), ty, a.s, b.s); break;
    case IOP_SUB: ixj__text_put(t, "  %%v%d = sub %s%s %s, %s\n", v, flag_text(x->flags), ty, a.s, b.s); break;
    case IOP_MUL: ixj__text_put(t, "  %%v%d = mul %s%s %s, %s\n", v, flag_text(x->flags), ty, a.s, b.s); break;
    case IOP_AND: ixj__text_put(t, "  %%v%d = and %s %s, %s\n", v, ty, a.s, b.s); break;
    case IOP_LSHR: ixj__text_put(t, "  %%v%d = lshr %s %s, %lld\n", v, ty, a.s, (long long)x->imm); break;
    case IOP_EQ: ixj__text_put(t, "  %%v%d = icmp eq %s %s, %s\n", v, llvm_type(at), a.s, b.s); break;
    case IOP_ULT: ixj__text_put(t, "  %%v%d = icmp ult %s %s, %s\n", v, llvm_type(at), a.s, b.s); break;
    case IOP_SELECT: ixj__text_put(t, "  %%v%d = select i1 %s, %s %s, %s %s\n", v, a.s, ty, b.s, ty, c.s); break;
    case IOP_CAST:
      if (type_bits((iprog_type)x->type) > type_bits(at))
        ixj__text_put(t, "  %%v%d = zext %s %s to %s\n", v, llvm_type(at), a.s, ty);
      else if (type_bits((iprog_type)x->type) < type_bits(at))
        ixj__text_put(t, "  %%v%d = trunc %s %s to %s\n", v, llvm_type(at), a.s, ty);
      break; /* equal widths: the same value (see ref) */
    case IOP_MULHI: {
      /* the high half of the double-width product; constants are unsigned there */
      const char *wide = x->type == IPROG_U32 ? "i64" : "i128";
      int64_t k;
      ixj__text_put(t, "  %%v%d.a = zext %s %s to %s\n", v, ty, a.s, wide);
      if (ixj__iprog_is_const(p, x->b, &k)) {
        ixj__text_put(t, "  %%v%d.p = mul nuw %s %%v%d.a, %llu\n", v, wide, v, (unsigned long long)k);
      } else {
        ixj__text_put(t, "  %%v%d.b = zext %s %s to %s\n", v, ty, b.s, wide);
        ixj__text_put(t, "  %%v%d.p = mul nuw %s %%v%d.a, %%v%d.b\n", v, wide, v, v);
      }
      ixj__text_put(t, "  %%v%d.h = lshr %s %%v%d.p, %d\n", v, wide, v, type_bits((iprog_type)x->type));
      ixj__text_put(t, "  %%v%d = trunc %s %%v%d.h to %s\n", v, wide, v, ty);
      break;
    }
    case IOP_UDIV:
    case IOP_UREM:
    case IOP_ARG_QUOTIENT:
    case IOP_ARG_DIVISOR:
      ixj__lower_fail(&e->lw, IXJ_ERR_INTERNAL, "internal error: a hardware division in LLVM IR");
      break;
    }
  }
}

/* Lanes of the vector a kernel moves: its vector elements, spread over
 * store_pitch times as many lanes for a strided destination. */
static int store_lanes(const ixj_plan *p) { return p->vector_elems * (p->store_pitch ? p->store_pitch : 1); }

static void emit_setup_pointers(emitter *e, text *t) {
  for (int o = 0; o < e->p->num_operands; o++) {
    int arg = e->p->operand[o].arg;
    ixj__text_put(t, "  %%pp.%d = getelementptr ptr, ptr %%ptrs, i64 %d\n", o, arg);
    ixj__text_put(t, "  %%p.%d = load ptr, ptr %%pp.%d\n", o, o);
    ixj__text_put(t, "  %%po.%d = getelementptr i64, ptr %%offs, i64 %d\n", o, arg);
    ixj__text_put(t, "  %%off.%d = load i64, ptr %%po.%d\n", o, o);
    ixj__text_put(t, "  %%bp.%d = getelementptr %s, ptr %%p.%d, i64 %%off.%d\n", o, e->scalar, o, o);
  }
  if (e->p->op != IXJ_OP_FILL) return;
  if (e->p->vector_elems == 1) {
    ixj__text_put(t, "  %%value = load %s, ptr %%p.1, align 1\n", e->scalar);
    if (e->p->chain_runs) { /* the value across a chain run's vector */
      int lanes = e->p->chain_runs / (int)e->p->elem_size;
      ixj__text_put(t, "  %%value.u1 = insertelement <%d x %s> poison, %s %%value, i32 0\n", lanes, e->scalar, e->scalar);
      ixj__text_put(t, "  %%value.run = shufflevector <%d x %s> %%value.u1, <%d x %s> poison, <%d x i32> zeroinitializer\n",
                    lanes, e->scalar, lanes, e->scalar, lanes);
    }
    if (!e->p->row_lanes) return;
    /* the value across a row vector (plan.row_lanes) */
    int lanes = e->p->row_lanes;
    ixj__text_put(t, "  %%value.r1 = insertelement <%d x %s> poison, %s %%value, i32 0\n", lanes, e->scalar, e->scalar);
    ixj__text_put(t, "  %%value.row = shufflevector <%d x %s> %%value.r1, <%d x %s> poison, <%d x i32> zeroinitializer\n",
                  lanes, e->scalar, lanes, e->scalar, lanes);
    return;
  }
  /* one element at the value pointer, splat across the vector */
  ixj__text_put(t, "  %%value.s = load %s, ptr %%p.1, align 1\n", e->scalar);
  ixj__text_put(t, "  %%value.v = insertelement %s poison, %s %%value.s, i32 0\n", e->elem, e->scalar);
  ixj__text_put(t, "  %%value = shufflevector %s %%value.v, %s poison, <%d x i32> zeroinitializer\n", e->elem, e->elem,
                store_lanes(e->p));
}

/* A store to part of a line (a masked fill, or an element of a strided
 * destination) has the line read for ownership and written back whole; out
 * of cache a general kernel's stores each ask for the line
 * WRITE_PREFETCH_BYTES ahead, for writing (`prefetchw`; plan.prefetch), so
 * that those reads overlap. Measured (every other float of a 4096 x 8192
 * array, builds or an environment switch alternated, ixjit / the ceiling,
 * 1 thread): a fill 0.16 without, 0.22 at 1 KiB and at 4 KiB ahead; a copy
 * from a contiguous source 0.35 -> 0.41 (4 KiB), 8-byte elements 0.34 ->
 * 0.41, every third float 0.25 -> 0.28 (2 threads: 0.35 -> 0.38, 0.32 ->
 * 0.38, 0.24 -> 0.29). Not for masked stores on Zen cores, where it cost
 * them (gen/plan.c, choose_prefetch). A prefetch never faults, so one past
 * the destination's end is harmless. */
#define WRITE_PREFETCH_BYTES 4096

/* A prefetch of the line `bytes` away from the address %<at> (the name
 * without its %), named %<at>.pf: for writing into L1 (`prefetchw`), or for
 * reading into L2 (`prefetcht1`). The address is a plain (not inbounds) GEP,
 * and a prefetch never faults: past a buffer's end it is harmless. */
static void emit_prefetch(text *t, const char *at, int bytes, bool write) {
  ixj__text_put(t, "  %%%s.pf = getelementptr i8, ptr %%%s, i64 %d\n  call void @llvm.prefetch.p0(ptr %%%s.pf, i32 %d, i32 %d, i32 1)\n",
                at, at, bytes, at, write ? 1 : 0, write ? 3 : 2);
}
static bool write_prefetch(const ixj_plan *p) { return p->prefetch && p->strategy == PLAN_GENERAL; }
/* ahead in the order the stores go: down where the destination's innermost
 * stride is negative (a reversed strided destination; a fill's dims run
 * forward) */
static void emit_write_prefetch(text *t, const ixj_plan *p, int k) {
  int ahead = p->operand[0].stride[p->rank - 1] < 0 ? -WRITE_PREFETCH_BYTES : WRITE_PREFETCH_BYTES;
  char at[24];
  snprintf(at, sizeof at, "m%d.d", k);
  emit_prefetch(t, at, ahead, true);
}

/* The source `bytes` further along a row than the address %<at> (negative:
 * back), into L2 (plan.source_prefetch) */
static void emit_source_prefetch(text *t, const char *at, int bytes) { emit_prefetch(t, at, bytes, false); }

/* The source's vector_elems elements at src_off, spread to every
 * store_pitch-th lane of a store vector (the other lanes poison: the masked
 * store leaves them). Its name is %m<k>.v. */
static void emit_spread_load(emitter *e, text *t, int k, int src, int src_off) {
  const ixj_plan *p = e->p;
  int lanes = store_lanes(p);
  name s = ref(e, src_off);
  ixj__text_put(t, "  %%m%d.s = getelementptr %s, ptr %%bp.%d, i64 %s\n", k, e->scalar, src, s.s);
  if (e->p->source_prefetch && e->p->vector_elems > 1) { /* rows on their vectors */
    char at[24];
    snprintf(at, sizeof at, "m%d.s", k);
    emit_source_prefetch(t, at, e->p->source_prefetch);
  }
  ixj__text_put(t, "  %%m%d.l = load <%d x %s>, ptr %%m%d.s, align %zu, !alias.scope !%d, !noalias !%d\n", k,
                p->vector_elems, e->scalar, k, p->elem_size, MD_SRC_LIST, MD_DST_LIST);
  ixj__text_put(t, "  %%m%d.v = shufflevector <%d x %s> %%m%d.l, <%d x %s> poison, <%d x i32> <", k, p->vector_elems,
                e->scalar, k, p->vector_elems, e->scalar, lanes);
  for (int l = 0; l < lanes; l++)
    if (l % p->store_pitch) ixj__text_put(t, "%si32 poison", l ? ", " : "");
    else ixj__text_put(t, "%si32 %d", l ? ", " : "", l / p->store_pitch);
  ixj__text_put(t, ">\n");
}

/* A destination store's metadata: streaming where the plan streams, and its alias scope. */
static void store_metadata(const ixj_plan *p, char *md, size_t size) {
  if (p->nontemporal)
    snprintf(md, size, ", !nontemporal !%d, !alias.scope !%d, !noalias !%d", MD_NONTEMPORAL, MD_DST_LIST, MD_SRC_LIST);
  else
    snprintf(md, size, ", !alias.scope !%d, !noalias !%d", MD_DST_LIST, MD_SRC_LIST);
}

/* dst[dst_off] = src[src_off] (src < 0: the fill value). */
static void emit_move(emitter *e, text *t, int dst_off, int src, int src_off);

/* A chain run (plan.chain_runs, gen/plan.c choose_chain_runs) from the point
 * %i.o: its first offsets off[o], and left[o] (>= 1) for each chain operand,
 * the points its run holds from there. %run.n points, the row's rest at most,
 * move a constant stride apart in each operand (a chain's run dim stride,
 * another operand's along the row); the inner loop then steps %run.n (the
 * template's STEP). Where the destination's run goes forward, whole vectors
 * of plan.chain_runs bytes move it from its first vector boundary on (aligned
 * stores, streaming where the plan streams; the source's vector loaded
 * whole, or backward and reversed by one shuffle), and an element loop its
 * head and tail; an element loop moves a run backward in the destination. (LLVM's loop vectorizer does not take a loop of streaming stores
 * whose alignment it cannot see.) */
static void emit_chain_run(emitter *e, text *t, const int *off, const int *left) {
  const ixj_plan *p = e->p;
  lower *lw = &e->lw;
  iprog *g = &lw->prog;
  int last = p->rank - 1, operands = p->op == IXJ_OP_COPY ? 2 : 1, E = (int)p->elem_size, lanes = p->chain_runs / E;
  int n = ixj__iprog_emit(g, IOP_SUB, IPROG_S64, IPROG_NUW, input(e, IPROG_S64, "%%seg.end", 0), input(e, IPROG_S64, "%%i.o", 0), -1, 0);
  for (int o = 0; o < operands; o++)
    if (left[o] >= 0)
      n = ixj__iprog_emit(g, IOP_SELECT, IPROG_S64, 0, ixj__iprog_emit(g, IOP_ULT, IPROG_I1, 0, left[o], n, -1, 0), left[o], n, 0);
  int64_t step[2] = {0, 0};
  bool vectors = true;
  for (int o = 0; o < operands; o++) {
    const plan_operand *x = &p->operand[o];
    step[o] = x->num_tail ? ixj__plan_run_stride(&x->tail[0]) : x->stride[last];
    vectors = vectors && (step[o] == 1 || (o == 1 && step[o] == -1));
  }
  flush(e, t);
  name nn = ref(e, n), d0 = ref(e, off[0]);
  ixj__text_put(t, "  %%run.n = add i64 %s, 0\n", nn.s);
  if (vectors) { /* [0, h) and [vend, n) by the element loop (run.seg), [h, vend) by vectors */
    int shift = 0, lshift = 0;
    while ((1 << shift) < E) shift++;
    while ((1 << lshift) < lanes) lshift++;
    ixj__text_put(t,
                  "  %%run.d = getelementptr %s, ptr %%bp.0, i64 %s\n  %%run.da = ptrtoint ptr %%run.d to i64\n"
                  "  %%run.neg = sub i64 0, %%run.da\n  %%run.mis = and i64 %%run.neg, %d\n"
                  "  %%run.mrem = and i64 %%run.mis, %d\n  %%run.ok = icmp eq i64 %%run.mrem, 0\n"
                  "  %%run.h0 = lshr i64 %%run.mis, %d\n  %%run.h1 = select i1 %%run.ok, i64 %%run.h0, i64 %%run.n\n"
                  "  %%run.hlt = icmp ult i64 %%run.h1, %%run.n\n  %%run.h = select i1 %%run.hlt, i64 %%run.h1, i64 %%run.n\n"
                  "  %%run.rest = sub nuw i64 %%run.n, %%run.h\n  %%run.nv = lshr i64 %%run.rest, %d\n"
                  "  %%run.vn = shl nuw i64 %%run.nv, %d\n  %%run.vend = add nuw i64 %%run.h, %%run.vn\n"
                  "  br label %%run.seg\n\nrun.seg:\n"
                  "  %%rs.k0 = phi i64 [ 0, %%inner ], [ %%run.vend, %%run.vdone ]\n"
                  "  %%rs.k1 = phi i64 [ %%run.h, %%inner ], [ %%run.n, %%run.vdone ]\n"
                  "  %%rs.tail = phi i1 [ false, %%inner ], [ true, %%run.vdone ]\n"
                  "  %%rs.any = icmp ult i64 %%rs.k0, %%rs.k1\n  br i1 %%rs.any, label %%run, label %%run.sdone\n\n"
                  "run:\n  %%rk = phi i64 [ %%rs.k0, %%run.seg ], [ %%rk.next, %%run ]\n",
                  e->scalar, d0.s, p->chain_runs - 1, E - 1, shift, lshift, lshift);
  } else { /* the element loop alone: a run backward in the destination */
    ixj__text_put(t, "  br label %%run\n\nrun:\n  %%rk = phi i64 [ 0, %%inner ], [ %%rk.next, %%run ]\n");
  }
  int k = input(e, IPROG_S64, "%%rk", 0), at[2] = {-1, -1};
  for (int o = 0; o < operands; o++)
    at[o] = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, off[o],
                            ixj__iprog_emit(g, IOP_MUL, IPROG_S64, IPROG_NSW, k, ixj__iprog_const_s64(g, step[o]), -1, 0), -1, 0);
  flush(e, t);
  emit_move(e, t, at[0], operands == 2 ? 1 : -1, operands == 2 ? at[1] : -1);
  ixj__text_put(t, "  %%rk.next = add nuw nsw i64 %%rk, 1\n  %%rk.more = icmp ult i64 %%rk.next, %s\n",
                vectors ? "%rs.k1" : "%run.n");
  if (!vectors) {
    ixj__text_put(t, "  br i1 %%rk.more, label %%run, label %%run.done\n\nrun.done:\n");
    return;
  }
  ixj__text_put(t, "  br i1 %%rk.more, label %%run, label %%run.sdone\n\n"
                   "run.sdone:\n  br i1 %%rs.tail, label %%run.done, label %%run.vpre\n\n"
                   "run.vpre:\n  %%rv.any = icmp ult i64 %%run.h, %%run.vend\n  br i1 %%rv.any, label %%run.v, label %%run.vdone\n\n"
                   "run.v:\n  %%rv = phi i64 [ %%run.h, %%run.vpre ], [ %%rv.next, %%run.v ]\n"
                   "  %%rv.d = getelementptr %s, ptr %%run.d, i64 %%rv\n",
                e->scalar);
  const char *value = "%value.run";
  if (operands == 2) { /* the source's vector at rv, or, backward, the one ending at rv, reversed */
    name s0 = ref(e, off[1]);
    value = "%rv.v";
    ixj__text_put(t, "  %%rv.s0 = getelementptr %s, ptr %%bp.1, i64 %s\n", e->scalar, s0.s);
    if (step[1] == 1) ixj__text_put(t, "  %%rv.at = add i64 %%rv, 0\n");
    else ixj__text_put(t, "  %%rv.b = add nuw nsw i64 %%rv, %d\n  %%rv.at = sub nsw i64 0, %%rv.b\n", lanes - 1);
    ixj__text_put(t, "  %%rv.s = getelementptr %s, ptr %%rv.s0, i64 %%rv.at\n", e->scalar);
    if (p->source_prefetch) emit_source_prefetch(t, "rv.s", step[1] < 0 ? -p->source_prefetch : p->source_prefetch);
    ixj__text_put(t, "  %%rv.%s = load <%d x %s>, ptr %%rv.s, align 1, !alias.scope !%d, !noalias !%d\n",
                  step[1] == 1 ? "v" : "l", lanes, e->scalar, MD_SRC_LIST, MD_DST_LIST);
    if (step[1] != 1) {
      ixj__text_put(t, "  %%rv.v = shufflevector <%d x %s> %%rv.l, <%d x %s> poison, <%d x i32> <", lanes, e->scalar, lanes,
                    e->scalar, lanes);
      for (int l = 0; l < lanes; l++) ixj__text_put(t, "%si32 %d", l ? ", " : "", lanes - 1 - l);
      ixj__text_put(t, ">\n");
    }
  }
  char store_md[96];
  store_metadata(p, store_md, sizeof store_md);
  ixj__text_put(t, "  store <%d x %s> %s, ptr %%rv.d, align %d%s\n", lanes, e->scalar, value, p->chain_runs, store_md);
  ixj__text_put(t, "  %%rv.next = add nuw nsw i64 %%rv, %d\n  %%rv.more = icmp ult i64 %%rv.next, %%run.vend\n"
                   "  br i1 %%rv.more, label %%run.v, label %%run.vdone\n\n"
                   "run.vdone:\n  br label %%run.seg\n\nrun.done:\n", lanes);
}

static void emit_move(emitter *e, text *t, int dst_off, int src, int src_off) {
  if (e->p->store_pitch) { /* every store_pitch-th lane of one vector window: a masked store */
    int k = e->tmp++, lanes = store_lanes(e->p);
    name d = ref(e, dst_off);
    char value[24] = "%value";
    if (src >= 0) {
      emit_spread_load(e, t, k, src, src_off);
      snprintf(value, sizeof value, "%%m%d.v", k);
    }
    ixj__text_put(t, "  %%m%d.d = getelementptr %s, ptr %%bp.0, i64 %s\n", k, e->scalar, d.s);
    ixj__text_put(t, "  call void @llvm.masked.store.v%d%s.p0(%s %s, ptr %%m%d.d, i32 %zu, <%d x i1> <", lanes, e->scalar,
                  e->elem, value, k, e->p->elem_size, lanes);
    for (int l = 0; l < lanes; l++) ixj__text_put(t, "%si1 %s", l ? ", " : "", l % e->p->store_pitch ? "false" : "true");
    ixj__text_put(t, ">), !alias.scope !%d, !noalias !%d\n", MD_DST_LIST, MD_SRC_LIST);
    if (write_prefetch(e->p)) emit_write_prefetch(t, e->p, k);
    return;
  }
  int align = e->p->vector_elems > 1 ? 32 : 1;
  int k = e->tmp++;
  name d = ref(e, dst_off);
  char store_md[96];
  store_metadata(e->p, store_md, sizeof store_md);
  ixj__text_put(t, "  %%m%d.d = getelementptr %s, ptr %%bp.0, i64 %s\n", k, e->scalar, d.s);
  if (write_prefetch(e->p)) emit_write_prefetch(t, e->p, k);
  if (src < 0) {
    ixj__text_put(t, "  store %s %%value, ptr %%m%d.d, align %d%s\n", e->elem, k, align, store_md);
    return;
  }
  name s = ref(e, src_off);
  ixj__text_put(t, "  %%m%d.s = getelementptr %s, ptr %%bp.%d, i64 %s\n", k, e->scalar, src, s.s);
  if (e->p->source_prefetch && e->p->vector_elems > 1) { /* rows on their vectors */
    char at[24];
    snprintf(at, sizeof at, "m%d.s", k);
    emit_source_prefetch(t, at, e->p->source_prefetch);
  }
  ixj__text_put(t, "  %%m%d.v = load %s, ptr %%m%d.s, align %d, !alias.scope !%d, !noalias !%d\n", k, e->elem, k, align,
                MD_SRC_LIST, MD_DST_LIST);
  ixj__text_put(t, "  store %s %%m%d.v, ptr %%m%d.d, align %d%s\n", e->elem, k, k, align, store_md);
}

/* %<mask>.bits, an i<lanes> value: its low `count` bits set (count an i64
 * value from 1 to lanes), all ones shifted right by lanes - count, which
 * never shifts by the width. */
static void emit_low_lanes(text *t, const char *mask, const char *count, int lanes) {
  ixj__text_put(t, "  %%%s.sh = sub i64 %d, %s\n", mask, lanes, count);
  if (lanes < 64) ixj__text_put(t, "  %%%s.st = trunc i64 %%%s.sh to i%d\n", mask, mask, lanes);
  else ixj__text_put(t, "  %%%s.st = add i64 %%%s.sh, 0\n", mask, mask);
  ixj__text_put(t, "  %%%s.bits = lshr i%d -1, %%%s.st\n", mask, lanes, mask);
}

/* value = the lanes of `mask` (a <lanes x i1>) loaded from ptr, the others
 * from `rest` (poison: none); a source load. */
static void emit_masked_load(text *t, const emitter *e, const char *value, const char *ptr, const char *mask, const char *rest) {
  int lanes = e->p->row_lanes;
  const char *sc = e->scalar;
  ixj__text_put(t, "  %s = call <%d x %s> @llvm.masked.load.v%d%s.p0(ptr %s, i32 1, <%d x i1> %s, <%d x %s> %s), "
                   "!alias.scope !%d, !noalias !%d\n", value, lanes, sc, lanes, sc, ptr, lanes, mask, lanes, sc, rest, MD_SRC_LIST,
                MD_DST_LIST);
}

/* The lanes of `mask` of value stored to ptr; a destination store. */
static void emit_masked_store(text *t, const emitter *e, const char *value, const char *ptr, const char *mask) {
  int lanes = e->p->row_lanes;
  const char *sc = e->scalar;
  ixj__text_put(t, "  call void @llvm.masked.store.v%d%s.p0(<%d x %s> %s, ptr %s, i32 1, <%d x i1> %s), !alias.scope !%d, "
                   "!noalias !%d\n", lanes, sc, lanes, sc, value, ptr, lanes, mask, MD_DST_LIST, MD_SRC_LIST);
}

/* Appends to e->declare the masked load (where `load`) and store of row
 * vectors that emit_masked_load and emit_masked_store call. */
static void declare_prefetch(emitter *e) {
  size_t used = strlen(e->declare);
  if (used < sizeof e->declare)
    snprintf(e->declare + used, sizeof e->declare - used, "%sdeclare void @llvm.prefetch.p0(ptr, i32, i32, i32)", used ? "\n" : "");
}

static void declare_masked(emitter *e, bool load) {
  int lanes = e->p->row_lanes;
  const char *sc = e->scalar;
  size_t used = strlen(e->declare);
  if (load && used < sizeof e->declare)
    used += (size_t)snprintf(e->declare + used, sizeof e->declare - used,
                             "%sdeclare <%d x %s> @llvm.masked.load.v%d%s.p0(ptr, i32, <%d x i1>, <%d x %s>)", used ? "\n" : "", lanes,
                             sc, lanes, sc, lanes, lanes, sc);
  if (used < sizeof e->declare)
    snprintf(e->declare + used, sizeof e->declare - used, "%sdeclare void @llvm.masked.store.v%d%s.p0(<%d x %s>, ptr, i32, <%d x i1>)",
             used ? "\n" : "", lanes, sc, lanes, sc, lanes);
}

/* The points [%i.o, min(%i.o + L, %seg.end)) of a row (plan.masked_ends, L =
 * plan.row_lanes): one masked vector load of the source's run and one masked
 * store, or the fill's value stored masked. The mask is the low c bits of an
 * L-bit integer, c = min(L, %seg.end - %i.o), 1 <= c <= L: all ones shifted
 * right by L - c (0 .. L-1), which never shifts by the width. Masked lanes
 * are neither read nor written, so a run's last vector reads nothing past the
 * source's row and writes nothing outside the destination's; masked stores
 * are plain (there are no masked streaming stores): they take the partial
 * lines at a row's ends, which its neighbours share. Alignment 1: a row
 * whose elements lie off their size moves all by this loop. */
static void emit_masked_move(emitter *e, text *t, int dst_off, int src_off) {
  int k = e->tmp++, lanes = e->p->row_lanes;
  char mk[16], at[24], mask[24], value[24] = "%value.row", from[24], count[24];
  snprintf(mk, sizeof mk, "mk%d", k);
  snprintf(count, sizeof count, "%%mk%d.c", k);
  ixj__text_put(t, "  %%mk%d.n = sub i64 %%seg.end, %%i.o\n  %%mk%d.few = icmp ult i64 %%mk%d.n, %d\n", k, k, k, lanes);
  ixj__text_put(t, "  %%mk%d.c = select i1 %%mk%d.few, i64 %%mk%d.n, i64 %d\n", k, k, k, lanes);
  emit_low_lanes(t, mk, count, lanes);
  ixj__text_put(t, "  %%mk%d.m = bitcast i%d %%mk%d.bits to <%d x i1>\n", k, lanes, k, lanes);
  snprintf(mask, sizeof mask, "%%mk%d.m", k);
  name d = ref(e, dst_off);
  ixj__text_put(t, "  %%mk%d.d = getelementptr %s, ptr %%bp.0, i64 %s\n", k, e->scalar, d.s);
  snprintf(at, sizeof at, "%%mk%d.d", k);
  if (src_off >= 0) {
    name s = ref(e, src_off);
    ixj__text_put(t, "  %%mk%d.s = getelementptr %s, ptr %%bp.1, i64 %s\n", k, e->scalar, s.s);
    snprintf(from, sizeof from, "%%mk%d.s", k);
    snprintf(value, sizeof value, "%%mk%d.v", k);
    emit_masked_load(t, e, value, from, mask, "poison");
  }
  emit_masked_store(t, e, value, at, mask);
}

/* Streaming stores are weakly ordered: fence them before the chunk is
 * reported done, so any thread that then reads the output sees them. */
static const char *exit_code(const ixj_plan *p) { return p->nontemporal ? "  fence seq_cst" : ""; }

static ixj_status fill_metadata(char **out, ixj_error *err) {
  char ids[MD_COUNT][8];
  for (int k = 0; k < MD_COUNT; k++) snprintf(ids[k], sizeof ids[k], "%d", k);
  const char *kv[] = {"MD_NONTEMPORAL", ids[MD_NONTEMPORAL], "MD_DOMAIN", ids[MD_DOMAIN], "MD_DST_SCOPE",
                      ids[MD_DST_SCOPE], "MD_SRC_SCOPE", ids[MD_SRC_SCOPE], "MD_DST_LIST", ids[MD_DST_LIST],
                      "MD_SRC_LIST", ids[MD_SRC_LIST], "MD_NO_UNROLL", ids[MD_NO_UNROLL], "MD_SEGMENTS",
                      ids[MD_SEGMENTS], "MD_BLOCK_COLS", ids[MD_BLOCK_COLS]};
  return ixj__template_fill(ixj__template_metadata, kv, (int)(sizeof kv / sizeof *kv / 2), out, err);
}

/* The streaming copy of a cat's memcpy parts (templates/llvm/stream_copy.ll). */
static ixj_status fill_stream_copy(char **out, ixj_error *err) {
  char id[8];
  snprintf(id, sizeof id, "%d", MD_NONTEMPORAL);
  const char *kv[] = {"MD_NONTEMPORAL", id};
  return ixj__template_fill(ixj__template_stream_copy, kv, 1, out, err);
}

static bool any_oom(const text *t, int n) {
  for (int k = 0; k < n; k++)
    if (t[k].oom) return true;
  return false;
}

static const char *body(const text *t) { return t->buf ? t->buf : ""; }

/* ---- elementwise kernels -------------------------------------------------- */

/* A copy of a loop counter that LLVM cannot see through: an empty asm, which
 * costs no instruction. The addresses the emitter derives from it are a base
 * plus constants, strength-reduced already; without it LLVM's loop strength
 * reduction searched formulae for each of them, 40% of a kernel's code
 * generation (docs/hot-path.md). The templates copy their block and vector
 * counters this way; the scalar counter %i only where the emitter's own
 * vectors move the row (row_lanes, vector moves), since LLVM's loop vectorizer,
 * which elsewhere may vectorize that loop, stops at the asm (there %i.o is %i
 * plus 0). The elementwise loops step from the copy, so the counter is one
 * register: stepping from %i cost a register copy per iteration, 0.93-0.96x
 * the bandwidth of rows of vector moves. */
#define OPAQUE_COPY(v) "  " v ".o = call i64 asm \"\", \"=r,0\"(i64 " v ") nounwind memory(none)"
static bool opaque_inner_iv(const ixj_plan *p) { return p->row_lanes > 0 || p->vector_elems > 1; }

enum { EW_ALLOCAS, EW_SETUP, EW_ROW, EW_VSETUP, EW_VECTOR, EW_INNER, EW_CARRY, EW_BRANCH, EW_GROUP, EW_GO, EW_PARTS };

static int log2_of(size_t n) {
  int k = 0;
  while (((size_t)1 << k) < n) k++;
  return k;
}

/* The outer digits (dims 0 .. rank-2, in %d.<j>.addr) advanced by step rows:
 * loaded as %<pre>.<j>, carried by the odometer, stored back. */
static void emit_odometer_step(emitter *e, text *t, const char *pre, int64_t step) {
  lower *lw = &e->lw;
  int last = e->p->rank - 1, cur[IXJ_MAX_RANK], next[IXJ_MAX_RANK];
  char digit[16]; /* "%%<pre>.%d": the input's name format, one int */
  snprintf(digit, sizeof digit, "%%%%%s.%%d", pre);
  for (int j = 0; j < last; j++) {
    ixj__text_put(t, "  %%%s.%d = load %s, ptr %%d.%d.addr\n", pre, j, e->it, j);
    cur[j] = input(e, lw->index, digit, j);
  }
  ixj__lower_odometer(lw, last, cur, e->p->shape, step, next);
  flush(e, t);
  for (int j = 0; j < last; j++) {
    name d = ref(e, next[j]);
    ixj__text_put(t, "  store %s %s, ptr %%d.%d.addr\n", e->it, d.s, j);
  }
}

/* %grp.abc: the row about to move starts a group of w rows: its group digit
 * (dim rank-2) a multiple of w, the row whole (from its first point), and the
 * chunk holding all w rows. */
static void emit_group_test(emitter *e, text *branch, int w) {
  int last = e->p->rank - 1;
  long long rows = (long long)w * e->p->shape[last];
  ixj__text_put(branch, "  %%grp.m = and %s %%dl.%d, %d\n  %%grp.a = icmp eq %s %%grp.m, 0\n", e->it, last - 1, w - 1, e->it);
  ixj__text_put(branch, "  %%grp.b = icmp eq i64 %%istart64, 0\n  %%grp.c = icmp uge i64 %%chunkleft, %lld\n", rows);
  ixj__text_put(branch, "  %%grp.ab = and i1 %%grp.a, %%grp.b\n  %%grp.abc = and i1 %%grp.ab, %%grp.c\n");
}

/* A group of plan.row_group rows (plan.c, choose_row_group): where the
 * chunk's next point starts a row whose group digit (dim rank-2) is a
 * multiple of the group and the chunk holds the group whole, the rows move
 * together, the 64 bytes at %g of each in turn (a whole line where the row
 * starts on one), and the odometer steps by the group; elsewhere the row
 * takes the plain path. branch ends row.body;
 * group gets the blocks `group` and `group.done`. */
static void emit_row_group(emitter *e, text *branch, text *group, const int *row_off) {
  const ixj_plan *p = e->p;
  lower *lw = &e->lw;
  int last = p->rank - 1, w = p->row_group, per_line = PLAN_ROW_GROUP_STEP_BYTES / (p->vector_elems * (int)p->elem_size);
  long long rows = (long long)w * p->shape[last];
  emit_group_test(e, branch, w);
  ixj__text_put(branch, "  br i1 %%grp.abc, label %%group, label %%row.go\n");

  ixj__text_put(group, "group:\n  %%g = phi i64 [ 0, %%row.body ], [ %%g.next, %%group ]\n%s\n", OPAQUE_COPY("%g"));
  int g = input(e, IPROG_S64, "%%g.o", 0);
  int64_t no_rotation = 0;
  for (int k = 0; k < w; k++) {
    int row = ixj__iprog_const(&lw->prog, lw->index, k), base[2];
    for (int o = 0; o < 2; o++)
      base[o] = ixj__lower_offset(lw, row_off[o], 1, &row, &p->operand[o].stride[last - 1], &no_rotation, &p->shape[last - 1]);
    for (int v = 0; v < per_line; v++) {
      int at = v ? ixj__iprog_emit(&lw->prog, IOP_ADD, IPROG_S64, IPROG_NUW | IPROG_NSW, g,
                                   ixj__iprog_const_s64(&lw->prog, (int64_t)v * p->vector_elems), -1, 0)
                 : g, off[2];
      for (int o = 0; o < 2; o++)
        off[o] = ixj__lower_offset(lw, base[o], 1, &at, &p->operand[o].stride[last], &p->operand[o].rotate[last], &p->shape[last]);
      flush(e, group);
      emit_move(e, group, off[0], 1, off[1]);
    }
  }
  ixj__text_put(group, "  %%g.next = add nuw nsw i64 %%g.o, %d\n  %%gcont = icmp ult i64 %%g.next, %lld\n",
                p->vector_elems * per_line, (long long)p->shape[last]);
  ixj__text_put(group, "  br i1 %%gcont, label %%group, label %%group.done\n\ngroup.done:\n");
  ixj__text_put(group, "  %%lin.g = add i64 %%lin, %lld\n  store i64 %%lin.g, ptr %%lin.addr\n", rows);
  emit_odometer_step(e, group, "gc", w);
  ixj__text_put(group, "  br label %%row\n");
}

/* The row's vector at the counter (an S64 value's name), its source
 * coordinate shifted by the range's shift: one vector load (or a broadcast)
 * and shuffle, one aligned vector store. */
static void emit_row_vector_move(emitter *e, text *vec, int row_dst, int row_src, const char *counter, const char *shift_name) {
  const ixj_plan *p = e->p;
  lower *lw = &e->lw;
  int last = p->rank - 1, lanes = p->row_lanes, k = e->tmp++;
  int64_t s = p->operand[1].stride[last], unit = 1, zero = 0;
  const char *t = e->scalar;
  int vi = input(e, IPROG_S64, counter, 0), shift = input(e, IPROG_S64, shift_name, 0);
  int od = ixj__lower_offset(lw, row_dst, 1, &vi, &unit, &zero, &p->shape[last]);
  if (p->op == IXJ_OP_FILL) { /* the value's vector, row_src unused */
    flush(e, vec);
    name d = ref(e, od);
    ixj__text_put(vec, "  %%vx%d.d = getelementptr %s, ptr %%bp.0, i64 %s\n", k, t, d.s);
    ixj__text_put(vec, "  store <%d x %s> %%value.row, ptr %%vx%d.d, align %zu", lanes, t, k, lanes * p->elem_size);
    if (p->nontemporal) ixj__text_put(vec, ", !nontemporal !%d", MD_NONTEMPORAL);
    ixj__text_put(vec, ", !alias.scope !%d, !noalias !%d\n", MD_DST_LIST, MD_SRC_LIST);
    return;
  }
  int sc = ixj__iprog_emit(&lw->prog, IOP_ADD, IPROG_S64, IPROG_NSW, vi, shift, -1, 0); /* the source coordinate */
  int os = ixj__lower_offset(lw, row_src, 1, &sc, &s, &zero, &p->shape[last]);
  if (s == -1) /* the vector's lowest source element */
    os = ixj__iprog_emit(&lw->prog, IOP_ADD, IPROG_S64, IPROG_NSW, os, ixj__iprog_const_s64(&lw->prog, 1 - lanes), -1, 0);
  flush(e, vec);
  name d = ref(e, od), src = ref(e, os);
  ixj__text_put(vec, "  %%vx%d.s = getelementptr %s, ptr %%bp.1, i64 %s\n", k, t, src.s);
  if (s == 0) {
    ixj__text_put(vec, "  %%vx%d.e = load %s, ptr %%vx%d.s, align 1, !alias.scope !%d, !noalias !%d\n", k, t, k, MD_SRC_LIST,
                  MD_DST_LIST);
    ixj__text_put(vec, "  %%vx%d.i = insertelement <%d x %s> poison, %s %%vx%d.e, i32 0\n", k, lanes, t, t, k);
    ixj__text_put(vec, "  %%vx%d.v = shufflevector <%d x %s> %%vx%d.i, <%d x %s> poison, <%d x i32> zeroinitializer\n", k, lanes,
                  t, k, lanes, t, lanes);
  } else {
    int span = s < 0 ? lanes : (int)s * lanes;
    ixj__text_put(vec, "  %%vx%d.l = load <%d x %s>, ptr %%vx%d.s, align 1, !alias.scope !%d, !noalias !%d\n", k, span, t, k,
                  MD_SRC_LIST, MD_DST_LIST);
    if (s == 1) {
      ixj__text_put(vec, "  %%vx%d.v = shufflevector <%d x %s> %%vx%d.l, <%d x %s> poison, <%d x i32> <", k, span, t, k, span, t,
                    lanes);
      for (int l = 0; l < lanes; l++) ixj__text_put(vec, "%si32 %d", l ? ", " : "", l);
    } else { /* reversed, or every s-th element */
      ixj__text_put(vec, "  %%vx%d.v = shufflevector <%d x %s> %%vx%d.l, <%d x %s> poison, <%d x i32> <", k, span, t, k, span, t,
                    lanes);
      for (int l = 0; l < lanes; l++) ixj__text_put(vec, "%si32 %d", l ? ", " : "", s < 0 ? lanes - 1 - l : (int)s * l);
    }
    ixj__text_put(vec, ">\n");
  }
  if (p->source_prefetch) { /* along the row in the order it is read */
    char at[24];
    snprintf(at, sizeof at, "vx%d.s", k);
    emit_source_prefetch(vec, at, s < 0 ? -p->source_prefetch : p->source_prefetch);
  }
  ixj__text_put(vec, "  %%vx%d.d = getelementptr %s, ptr %%bp.0, i64 %s\n", k, t, d.s);
  ixj__text_put(vec, "  store <%d x %s> %%vx%d.v, ptr %%vx%d.d, align %zu", lanes, t, k, k, lanes * p->elem_size);
  if (p->nontemporal) ixj__text_put(vec, ", !nontemporal !%d", MD_NONTEMPORAL);
  ixj__text_put(vec, ", !alias.scope !%d, !noalias !%d\n", MD_DST_LIST, MD_SRC_LIST);
}

/* A group of plan.row_group rows of a GENERAL copy with aligned vector loops
 * (plan.row_lanes): the rows' destination pitch is whole lines, so every row
 * of the group has row 0's vector range [%vbeg.0, %vend.0). Where a group
 * starts (as in emit_row_group), one loop moves the range of all its rows,
 * the vector at %gv of each in turn; then each of its rows takes the plain
 * path with its vector loops off (%vgo false: the group's rows still to come
 * are counted in %skip.addr), which moves the row's head and tail. branch
 * ends row.body; group gets the block `group`, go the code of `row.go`. */
static void emit_vector_group(emitter *e, text *branch, text *group, text *go, const int *row_off) {
  const ixj_plan *p = e->p;
  lower *lw = &e->lw;
  int last = p->rank - 1, w = p->row_group;
  ixj__text_put(branch, "  %%skip = load i32, ptr %%skip.addr\n  %%skipping = icmp ne i32 %%skip, 0\n");
  emit_group_test(e, branch, w);
  ixj__text_put(branch, "  %%grp.ok = select i1 %%skipping, i1 false, i1 %%grp.abc\n");
  ixj__text_put(branch, "  %%grp.any = icmp ult i64 %%vbeg.0, %%vend.0\n  %%grp.go = and i1 %%grp.ok, %%grp.any\n");
  ixj__text_put(branch, "  br i1 %%grp.go, label %%group, label %%row.go\n");

  ixj__text_put(group, "group:\n  %%gv = phi i64 [ %%vbeg.0, %%row.body ], [ %%gv.next, %%group ]\n%s\n", OPAQUE_COPY("%gv"));
  int64_t no_rotation = 0;
  for (int k = 0; k < w; k++) {
    int row = ixj__iprog_const(&lw->prog, lw->index, k), base[2];
    for (int o = 0; o < 2; o++)
      base[o] = ixj__lower_offset(lw, row_off[o], 1, &row, &p->operand[o].stride[last - 1], &no_rotation, &p->shape[last - 1]);
    emit_row_vector_move(e, group, base[0], base[1], "%%gv.o", "%%vshift.0");
  }
  ixj__text_put(group, "  %%gv.next = add nuw nsw i64 %%gv.o, %d\n  %%gv.more = icmp ult i64 %%gv.next, %%vend.0\n",
                p->row_lanes);
  ixj__text_put(group, "  br i1 %%gv.more, label %%group, label %%row.go\n\n");

  ixj__text_put(go, "  %%skip.now = phi i32 [ %%skip, %%row.body ], [ %d, %%group ]\n  %%vgo = icmp eq i32 %%skip.now, 0\n", w);
  ixj__text_put(go, "  %%skip.dec = sub i32 %%skip.now, 1\n  %%skip.next = select i1 %%vgo, i32 0, i32 %%skip.dec\n");
  ixj__text_put(go, "  store i32 %%skip.next, ptr %%skip.addr\n");
}

/* The aligned vector loops of a row (plan.row_lanes): a range [%vbeg.k,
 * %vend.k) starts at its first destination element on a 64-byte line and
 * holds whole vectors. A source row rotated by r wraps at w = n - r: range 0
 * lies before w (source coordinate c + r), range 1 after (c + r - n); an
 * unrotated row has one range. A destination whose elements are not aligned
 * to their size gets none (the scalar loop moves the row). A source read with
 * stride 2..4 loads a vector's span plus s - 1 elements, which lie before the
 * range's next point: a range stops one point short of its end. */
static void emit_row_vectors(emitter *e, text *setup, text *vec, int row_dst, int row_src) {
  const ixj_plan *p = e->p;
  lower *lw = &e->lw;
  int last = p->rank - 1, lanes = p->row_lanes;
  int64_t s = p->operand[1].stride[last], unit = 1, zero = 0;
  const char *t = e->scalar;
  /* setup: the destination's address at the row's first point */
  int first = ixj__lower_offset(lw, row_dst, 1, (int[]){input(e, IPROG_S64, "%%istart64", 0)}, &unit, &zero, &p->shape[last]);
  flush(e, setup);
  name f = ref(e, first);
  int64_t n = p->shape[last], r = p->operand[1].rotate[last], w = r ? n - r : n;
  ixj__text_put(setup, "  %%va.p = getelementptr %s, ptr %%bp.0, i64 %s\n  %%va.addr = ptrtoint ptr %%va.p to i64\n", t, f.s);
  ixj__text_put(setup, "  %%va.odd = and i64 %%va.addr, %zu\n  %%va.ok = icmp eq i64 %%va.odd, 0\n", p->elem_size - 1);
  ixj__text_put(setup, "  %%va.w.in = icmp ult i64 %lld, %%iend\n  %%va.w = select i1 %%va.w.in, i64 %lld, i64 %%iend\n",
                (long long)w, (long long)w);
  ixj__text_put(setup, "  %%va.w.past = icmp ugt i64 %%istart64, %%va.w\n");
  ixj__text_put(setup, "  %%va.s.1 = select i1 %%va.w.past, i64 %%istart64, i64 %%va.w\n");
  const char *from[2] = {"%istart64", "%va.s.1"}, *to[2] = {"%va.s.1", "%iend"};
  for (int g = 0; g < 2; g++) { /* range g: [from, to) of the row, its aligned vectors */
    ixj__text_put(setup, "  %%va%d.x = sub i64 %s, %%istart64\n  %%va%d.xb = shl i64 %%va%d.x, %d\n", g, from[g], g, g,
                  log2_of(p->elem_size));
    ixj__text_put(setup, "  %%va%d.a = add i64 %%va.addr, %%va%d.xb\n  %%va%d.neg = sub i64 0, %%va%d.a\n", g, g, g, g);
    ixj__text_put(setup, "  %%va%d.hb = and i64 %%va%d.neg, 63\n  %%va%d.h = lshr i64 %%va%d.hb, %d\n", g, g, g, g,
                  log2_of(p->elem_size));
    ixj__text_put(setup, "  %%va%d.b = add i64 %s, %%va%d.h\n  %%va%d.bin = icmp ult i64 %%va%d.b, %s\n", g, from[g], g, g, g,
                  to[g]);
    ixj__text_put(setup, "  %%va%d.bc = select i1 %%va%d.bin, i64 %%va%d.b, i64 %s\n", g, g, g, to[g]);
    ixj__text_put(setup, "  %%va%d.lim = sub i64 %s, %d\n", g, to[g], s >= 2 ? 1 : 0);
    ixj__text_put(setup, "  %%va%d.room = icmp sgt i64 %%va%d.lim, %%va%d.bc\n  %%va%d.span = sub i64 %%va%d.lim, %%va%d.bc\n", g,
                  g, g, g, g, g);
    ixj__text_put(setup, "  %%va%d.wd = and i64 %%va%d.span, %d\n  %%va%d.n = select i1 %%va%d.room, i64 %%va%d.wd, i64 0\n", g,
                  g, -lanes, g, g, g);
    ixj__text_put(setup, "  %%va%d.e = add i64 %%va%d.bc, %%va%d.n\n", g, g, g);
    ixj__text_put(setup, "  %%vbeg.%d = select i1 %%va.ok, i64 %%va%d.bc, i64 %s\n", g, g, to[g]);
    ixj__text_put(setup, "  %%vend.%d = select i1 %%va.ok, i64 %%va%d.e, i64 %s\n", g, g, to[g]);
    ixj__text_put(setup, "  %%vshift.%d = add i64 0, %lld\n", g, (long long)(g ? r - n : r));
  }

  emit_row_vector_move(e, vec, row_dst, row_src, "%%vi.o", "%%vk.shift");
}

/* ---- packed rows ------------------------------------------------------------ */

/* A copy into a destination whose rows lie back to back (plan.packed_rows:
 * rank 2, a[:, 1:101].copy(); which rows, choose_packed_rows in gen/plan.c):
 * the kernel walks the destination, not the rows. Each step fills one vector
 * of L = plan.row_lanes elements at point q: lanes [0, m) from source row r
 * at column c (m = min(k, n - c), k the step's lanes), lanes [m, k) from row
 * r + 1 at column 0, one masked load each into the same register (the second
 * addressed m elements before row r + 1's start, so that lane m reads its
 * column 0, and made only where k > m; masked lanes are not read, so neither
 * load reaches past a row it does not use). A row is at least L long, so a
 * step touches at most two rows, and after it c + k < 2n: one compare
 * carries the row. A step whose
 * destination vector is a whole line (k = L and q on a line) stores it by one
 * aligned, streamed or plain store; the steps before the chunk's first line
 * and after its last store masked (k up to the line's end), plainly. So each
 * line is one store however the rows fall on it, where a row at a time stored
 * the line two rows share in two pieces. */
/* The walk's destination at point q: %dp and its offset in its line,
 * %doff (in `step`'s successor: pcheck where the plan has a period, else
 * body, which pcheck precedes). */
static void emit_packed_destination(emitter *e, text *b) {
  ixj__text_put(b, "  %%dq = add i64 %%q, %lld\n  %%dp = getelementptr %s, ptr %%bp.0, i64 %%dq\n",
                (long long)e->p->operand[0].head_offset, e->scalar);
  ixj__text_put(b, "  %%da = ptrtoint ptr %%dp to i64\n  %%doff = and i64 %%da, 63\n");
}

/* The period of packed rows (plan.packed_period: `lines` destination lines,
 * which hold `rows` = lines * L / n whole rows; choose_packed_rows in
 * gen/plan.c). From a line start at column c of row r, line j of the next
 * `lines` starts at u = c + j L elements past row r's start: row r + u / n,
 * column u % n, and the lines after them repeat the same pieces `rows` rows
 * further on. So where the walk below reaches a line start with a whole
 * period left (block pcheck), a loop writes each line's two source offsets
 * (from row r's start) and its mask into a table on the stack, without a
 * division (the column steps L and wraps at most once: L <= n), and then every
 * period stores its lines from the table: for line j, the L elements at
 * offset o1 (row r' from column c') and the L elements at offset o2 (row r'
 * + 1, placed so that lane m = min(L, n - c') reads its column 0), the lanes
 * from m on taken from the second (mask: none where m = L), one whole-line
 * store; then the source moves `rows` rows on. The first load is whole: where
 * the line holds row r' + 1 too it reads past row r' into the pitch's gap or
 * row r' + 1 (no further with the pitch at least n), and where it does not,
 * it ends within row r'; the second is masked (nothing read where the line
 * ends in row r', which may be the source's last). The walk goes on from
 * where the periods stop. */
static void emit_packed_period(emitter *e, text *b, int lines) {
  const ixj_plan *p = e->p;
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  long long lanes = p->row_lanes, n = (long long)p->shape[1], pitch = (long long)src->stride[0];
  long long rows = lines * lanes / n, span = lines * lanes;
  const char *t = e->scalar;
  int L = (int)lanes;
  ixj__text_put(b, "pcheck:\n");
  emit_packed_destination(e, b); /* body's too */
  ixj__text_put(b, "  %%pc.line = icmp eq i64 %%doff, 0\n");
  ixj__text_put(b, "  %%pc.room = sub i64 %%end, %%q\n  %%pc.fits = icmp sge i64 %%pc.room, %lld\n", span);
  ixj__text_put(b, "  %%pc.go = and i1 %%pc.line, %%pc.fits\n  br i1 %%pc.go, label %%ptl, label %%body\n\nptl:\n");
  ixj__text_put(b, "  %%tj = phi i64 [ 0, %%pcheck ], [ %%tj.n, %%ptl ]\n  %%tc = phi i64 [ %%c, %%pcheck ], [ %%tc.n, %%ptl ]\n");
  ixj__text_put(b, "  %%tr = phi i64 [ 0, %%pcheck ], [ %%tr.n, %%ptl ]\n");
  ixj__text_put(b, "  %%t.left = sub i64 %lld, %%tc\n  %%t.few = icmp ult i64 %%t.left, %d\n  %%t.m = select i1 %%t.few, i64 %%t.left, i64 %d\n", n, L, L);
  ixj__text_put(b, "  %%t.o1 = add i64 %%tr, %%tc\n  %%t.o2a = add i64 %%tr, %lld\n  %%t.o2 = sub i64 %%t.o2a, %%t.m\n", pitch);
  emit_low_lanes(b, "t.low", "%t.m", L);
  ixj__text_put(b, "  %%t.mk = xor i%d %%t.low.bits, -1\n", L);
  ixj__text_put(b, "  %%t.p1 = getelementptr [%d x i64], ptr %%pt.o1, i64 0, i64 %%tj\n  store i64 %%t.o1, ptr %%t.p1\n", lines);
  ixj__text_put(b, "  %%t.p2 = getelementptr [%d x i64], ptr %%pt.o2, i64 0, i64 %%tj\n  store i64 %%t.o2, ptr %%t.p2\n", lines);
  ixj__text_put(b, "  %%t.p3 = getelementptr [%d x i%d], ptr %%pt.mk, i64 0, i64 %%tj\n  store i%d %%t.mk, ptr %%t.p3\n", lines, L, L);
  ixj__text_put(b, "  %%tc.k = add i64 %%tc, %d\n  %%t.wrap = icmp uge i64 %%tc.k, %lld\n  %%tc.w = sub i64 %%tc.k, %lld\n", L, n, n);
  ixj__text_put(b, "  %%tc.n = select i1 %%t.wrap, i64 %%tc.w, i64 %%tc.k\n  %%tr.p = add i64 %%tr, %lld\n", pitch);
  ixj__text_put(b, "  %%tr.n = select i1 %%t.wrap, i64 %%tr.p, i64 %%tr\n  %%tj.n = add i64 %%tj, 1\n");
  ixj__text_put(b, "  %%t.more = icmp ult i64 %%tj.n, %d\n  br i1 %%t.more, label %%ptl, label %%pper\n\npper:\n", lines);
  ixj__text_put(b, "  %%pq = phi i64 [ %%q, %%ptl ], [ %%pq.n, %%plast ]\n  %%ps = phi i64 [ %%srow, %%ptl ], [ %%ps.n, %%plast ]\n");
  ixj__text_put(b, "  %%pq.room = sub i64 %%end, %%pq\n  %%pq.fits = icmp sge i64 %%pq.room, %lld\n", span);
  ixj__text_put(b, "  br i1 %%pq.fits, label %%pbeg, label %%step\n\npbeg:\n");
  ixj__text_put(b, "  %%pdq = add i64 %%pq, %lld\n  %%pd0 = getelementptr %s, ptr %%bp.0, i64 %%pdq\n", (long long)dst->head_offset, t);
  ixj__text_put(b, "  %%psb = getelementptr %s, ptr %%bp.1, i64 %%ps\n  br label %%pline\n\npline:\n", t);
  ixj__text_put(b, "  %%pj = phi i64 [ 0, %%pbeg ], [ %%pj.n, %%pline ]\n");
  ixj__text_put(b, "  %%pj.p1 = getelementptr [%d x i64], ptr %%pt.o1, i64 0, i64 %%pj\n  %%pj.o1 = load i64, ptr %%pj.p1\n", lines);
  ixj__text_put(b, "  %%pj.p2 = getelementptr [%d x i64], ptr %%pt.o2, i64 0, i64 %%pj\n  %%pj.o2 = load i64, ptr %%pj.p2\n", lines);
  ixj__text_put(b, "  %%pj.p3 = getelementptr [%d x i%d], ptr %%pt.mk, i64 0, i64 %%pj\n  %%pj.mk = load i%d, ptr %%pj.p3\n", lines, L, L);
  ixj__text_put(b, "  %%pa1 = getelementptr %s, ptr %%psb, i64 %%pj.o1\n", t);
  if (p->source_prefetch) emit_source_prefetch(b, "pa1", p->source_prefetch);
  ixj__text_put(b, "  %%pl1 = load <%d x %s>, ptr %%pa1, align 1, !alias.scope !%d, !noalias !%d\n", L, t, MD_SRC_LIST, MD_DST_LIST);
  ixj__text_put(b, "  %%pa2 = getelementptr %s, ptr %%psb, i64 %%pj.o2\n  %%pm = bitcast i%d %%pj.mk to <%d x i1>\n", t, L, L);
  emit_masked_load(b, e, "%pv", "%pa2", "%pm", "%pl1");
  ixj__text_put(b, "  %%pdo = mul i64 %%pj, %d\n  %%pdp = getelementptr %s, ptr %%pd0, i64 %%pdo\n", L, t);
  ixj__text_put(b, "  store <%d x %s> %%pv, ptr %%pdp, align 64", L, t);
  if (p->nontemporal) ixj__text_put(b, ", !nontemporal !%d", MD_NONTEMPORAL);
  ixj__text_put(b, ", !alias.scope !%d, !noalias !%d\n", MD_DST_LIST, MD_SRC_LIST);
  ixj__text_put(b, "  %%pj.n = add i64 %%pj, 1\n  %%pl.more = icmp ult i64 %%pj.n, %d\n  br i1 %%pl.more, label %%pline, label %%plast\n\nplast:\n", lines);
  ixj__text_put(b, "  %%pq.n = add i64 %%pq, %lld\n  %%ps.n = add i64 %%ps, %lld\n  br label %%pper\n\nbody:\n", span, rows * pitch);
}

static ixj_status emit_packed_rows(emitter *e, const char *kname, const char *signature, char **out, ixj_error *err) {
  const ixj_plan *p = e->p;
  lower *lw = &e->lw;
  const plan_operand *src = &p->operand[1];
  int lanes = p->row_lanes, log_e = log2_of(p->elem_size);
  long long n = (long long)p->shape[1], pitch = (long long)src->stride[0];
  const char *t = e->scalar;
  text steps = {0}, setup = {0};
  emit_setup_pointers(e, &setup);
  int begin = ixj__iprog_emit(&lw->prog, IOP_CAST, lw->index, 0, input(e, IPROG_U64, "%%begin", 0), -1, -1, 0), digit[2];
  ixj__lower_unflatten(lw, begin, 2, p->shape, (uint64_t)p->count - 1, digit);
  flush(e, &setup);
  name r0 = ref(e, digit[0]), c0 = ref(e, digit[1]);
  const char *widen = e->lw.index == IPROG_U32 ? "zext i32" : "add i64"; /* the digits as i64 */
  const char *to = e->lw.index == IPROG_U32 ? " to i64" : ", 0";
  ixj__text_put(&setup, "  %%r0 = %s %s%s\n  %%c0 = %s %s%s\n", widen, r0.s, to, widen, c0.s, to);
  int period = p->packed_period;
  if (period)
    ixj__text_put(&setup, "  %%pt.o1 = alloca [%d x i64]\n  %%pt.o2 = alloca [%d x i64]\n  %%pt.mk = alloca [%d x i%d]\n", period, period,
                  period, lanes);
  ixj__text_put(&setup, "  %%srow.m = mul i64 %%r0, %lld\n  %%srow0 = add i64 %%srow.m, %lld\n  br label %%step\n", pitch,
                (long long)src->head_offset);

  text *b = &steps;
  const char *from_period = period ? ", [ %pq, %pper ]" : "";
  ixj__text_put(b, "step:\n  %%q = phi i64 [ %%begin, %%entry ], [ %%q.next, %%stored ]%s\n", from_period);
  ixj__text_put(b, "  %%c = phi i64 [ %%c0, %%entry ], [ %%c.next, %%stored ]%s\n", period ? ", [ %c, %pper ]" : "");
  ixj__text_put(b, "  %%srow = phi i64 [ %%srow0, %%entry ], [ %%srow.next, %%stored ]%s\n", period ? ", [ %ps, %pper ]" : "");
  ixj__text_put(b, "  %%more = icmp slt i64 %%q, %%end\n  br i1 %%more, label %%%s, label %%exit\n\n", period ? "pcheck" : "body");
  if (period) {
    emit_packed_period(e, b, period); /* computes the destination at q before body */
  } else {
    ixj__text_put(b, "body:\n");
    emit_packed_destination(e, b);
  }
  /* the destination vector at q: k lanes, to the line's end (a whole line where q is on one) */
  ixj__text_put(b, "  %%dbytes = sub i64 64, %%doff\n");
  /* elements off their size are never on a line: whole vectors, masked */
  ixj__text_put(b, "  %%dk = lshr i64 %%dbytes, %d\n  %%dk0 = icmp eq i64 %%dk, 0\n  %%kb = select i1 %%dk0, i64 %d, i64 %%dk\n",
                log_e, lanes);
  ixj__text_put(b, "  %%left = sub i64 %%end, %%q\n  %%kfew = icmp ult i64 %%left, %%kb\n");
  ixj__text_put(b, "  %%k = select i1 %%kfew, i64 %%left, i64 %%kb\n");
  ixj__text_put(b, "  %%kfull = icmp eq i64 %%k, %d\n  %%online = icmp eq i64 %%doff, 0\n  %%whole = and i1 %%kfull, %%online\n", lanes);
  /* masks: the low k lanes; of them, the low m from row r, the rest from row r + 1 */
  ixj__text_put(b, "  %%rowleft = sub i64 %lld, %%c\n  %%mfew = icmp ult i64 %%rowleft, %%k\n", n);
  ixj__text_put(b, "  %%m = select i1 %%mfew, i64 %%rowleft, i64 %%k\n");
  emit_low_lanes(b, "k", "%k", lanes);
  emit_low_lanes(b, "m", "%m", lanes);
  ixj__text_put(b, "  %%n.bits = xor i%d %%m.bits, -1\n  %%two.bits = and i%d %%k.bits, %%n.bits\n", lanes, lanes);
  ixj__text_put(b, "  %%k.mask = bitcast i%d %%k.bits to <%d x i1>\n  %%m.mask = bitcast i%d %%m.bits to <%d x i1>\n", lanes,
                lanes, lanes, lanes);
  ixj__text_put(b, "  %%two.mask = bitcast i%d %%two.bits to <%d x i1>\n", lanes, lanes);
  ixj__text_put(b, "  %%s1.o = add i64 %%srow, %%c\n  %%s1 = getelementptr %s, ptr %%bp.1, i64 %%s1.o\n", t);
  ixj__text_put(b, "  %%srow.n = add i64 %%srow, %lld\n  %%s2.o = sub i64 %%srow.n, %%m\n", pitch);
  ixj__text_put(b, "  %%s2 = getelementptr %s, ptr %%bp.1, i64 %%s2.o\n", t);
  if (p->source_prefetch) emit_source_prefetch(b, "s1", p->source_prefetch);
  emit_masked_load(b, e, "%ld1", "%s1", "%m.mask", "poison");
  /* the second row's load only where the vector reaches it: an empty masked load cost as much as a
   * full one (rows of 100 floats packed: 0.51-0.58 of the ceiling with it, 0.84-0.86 without) */
  ixj__text_put(b, "  %%two.any = icmp ne i%d %%two.bits, 0\n  br i1 %%two.any, label %%second, label %%loaded\n\nsecond:\n",
                lanes);
  emit_masked_load(b, e, "%ld2", "%s2", "%two.mask", "%ld1");
  ixj__text_put(b, "  br label %%loaded\n\nloaded:\n");
  ixj__text_put(b, "  %%ld = phi <%d x %s> [ %%ld1, %%body ], [ %%ld2, %%second ]\n", lanes, t);
  ixj__text_put(b, "  br i1 %%whole, label %%line, label %%piece\n\nline:\n");
  ixj__text_put(b, "  store <%d x %s> %%ld, ptr %%dp, align 64", lanes, t);
  if (p->nontemporal) ixj__text_put(b, ", !nontemporal !%d", MD_NONTEMPORAL);
  ixj__text_put(b, ", !alias.scope !%d, !noalias !%d\n  br label %%stored\n\npiece:\n", MD_DST_LIST, MD_SRC_LIST);
  emit_masked_store(b, e, "%ld", "%dp", "%k.mask");
  ixj__text_put(b, "  br label %%stored\n\nstored:\n");
  /* c + k < 2n: past the row's end is the next row */
  ixj__text_put(b, "  %%q.next = add nuw nsw i64 %%q, %%k\n  %%c.k = add nuw nsw i64 %%c, %%k\n");
  ixj__text_put(b, "  %%wrap = icmp uge i64 %%c.k, %lld\n  %%c.w = sub i64 %%c.k, %lld\n", n, n);
  ixj__text_put(b, "  %%c.next = select i1 %%wrap, i64 %%c.w, i64 %%c.k\n  %%srow.next = select i1 %%wrap, i64 %%srow.n, i64 %%srow\n");
  ixj__text_put(b, "  br label %%step, !llvm.loop !%d\n\nexit:\n%s\n  ret void\n}\n", MD_SEGMENTS, exit_code(p));

  declare_masked(e, true);
  if (p->source_prefetch) declare_prefetch(e);
  ixj_status st = ixj__lower_status(lw, err);
  char *md = NULL;
  if (st == IXJ_OK && !e->part) st = fill_metadata(&md, err);
  text mod = {0};
  if (st == IXJ_OK) {
    ixj__text_put(&mod, "; ixjit %s kernel (packed rows: the destination's lines in turn)\n; signature: %s\n",
                  ixj__plan_strategy_name(p->strategy), signature);
    ixj__text_put(&mod, "define %svoid @%s(ptr %%ptrs, ptr %%offs, i64 %%begin, i64 %%end) nounwind "
                        "\"min-legal-vector-width\"=\"512\" \"ixjit-no-vectorize\" {\nentry:\n%s\n%s",
                  e->part ? "internal " : "", kname, body(&setup), body(&steps));
    if (!e->part) ixj__text_put(&mod, "\n%s\n%s\n", md, e->declare);
  }
  if (st == IXJ_OK && (mod.oom || setup.oom || steps.oom)) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory while emitting IR");
  if (st == IXJ_OK) *out = mod.buf;
  else free(mod.buf);
  free(md);
  free(setup.buf);
  free(steps.buf);
  return st;
}

static ixj_status emit_elementwise(emitter *e, const char *kname, const char *signature, char **out, ixj_error *err) {
  const ixj_plan *p = e->p;
  if (p->packed_rows) return emit_packed_rows(e, kname, signature, out, err);
  lower *lw = &e->lw;
  int r = p->rank, last = r - 1;
  text part[EW_PARTS] = {{0}};
  int digit[IXJ_MAX_RANK], outer[IXJ_MAX_RANK + 1];

  /* entry: the first point's digits, by magic division */
  for (int j = 0; j < last; j++) ixj__text_put(&part[EW_ALLOCAS], "  %%d.%d.addr = alloca %s\n", j, e->it);
  emit_setup_pointers(e, &part[EW_SETUP]);
  int begin = ixj__iprog_emit(&lw->prog, IOP_CAST, lw->index, 0, input(e, IPROG_U64, "%%begin", 0), -1, -1, 0);
  ixj__lower_unflatten(lw, begin, r, p->shape, (uint64_t)p->count - 1, digit);
  flush(e, &part[EW_SETUP]);
  for (int j = 0; j <= last; j++) {
    name d = ref(e, digit[j]);
    if (j < last) ixj__text_put(&part[EW_SETUP], "  store %s %s, ptr %%d.%d.addr\n", e->it, d.s, j);
    else ixj__text_put(&part[EW_SETUP], "  store %s %s, ptr %%istart.addr\n", e->it, d.s);
  }

  /* row: the outer digits; per operand, the offset of the row's start */
  for (int j = 0; j < last; j++) {
    ixj__text_put(&part[EW_ROW], "  %%dl.%d = load %s, ptr %%d.%d.addr\n", j, e->it, j);
    outer[j] = input(e, lw->index, "%%dl.%d", j);
  }
  int row_operands = p->op == IXJ_OP_COPY ? 2 : 1, row_off[2] = {-1, -1}, off[2] = {-1, -1};
  for (int o = 0; o < row_operands; o++) {
    const plan_operand *x = &p->operand[o];
    row_off[o] = ixj__lower_offset(lw, ixj__iprog_const_s64(&lw->prog, x->head_offset), last, outer, x->stride,
                                   x->rotate, p->shape);
  }
  flush(e, &part[EW_ROW]);
  bool vector_group = p->row_group && p->row_lanes;
  if (vector_group) {
    ixj__text_put(&part[EW_ALLOCAS], "  %%skip.addr = alloca i32\n");
    ixj__text_put(&part[EW_SETUP], "  store i32 0, ptr %%skip.addr\n");
    emit_vector_group(e, &part[EW_BRANCH], &part[EW_GROUP], &part[EW_GO], row_off);
  } else if (p->row_group) {
    emit_row_group(e, &part[EW_BRANCH], &part[EW_GROUP], row_off);
  } else {
    ixj__text_put(&part[EW_BRANCH], "  br label %%row.go\n");
  }
  /* a row shorter than a vector holds no whole line: its masked loop moves it */
  bool row_vectors = p->row_lanes && p->shape[last] >= p->row_lanes;
  if (row_vectors) emit_row_vectors(e, &part[EW_VSETUP], &part[EW_VECTOR], row_off[0], row_off[1]);
  else
    for (int k = 0; k < 2; k++)
      ixj__text_put(&part[EW_VSETUP], "  %%vbeg.%d = add i64 %%iend, 0\n  %%vend.%d = add i64 %%iend, 0\n  %%vshift.%d = add i64 0, 0\n",
                    k, k, k);

  /* inner: the element(s) at %i */
  text *in = &part[EW_INNER];
  /* The loop counter itself as the inner coordinate where nothing compares it
   * in the narrow index type (a rotation of the inner dim, a cat along it):
   * the operands' addresses are then affine in the counter, which LLVM's loop
   * vectorizer needs (zext(trunc(i)) hides that). */
  bool wide_inner = !(p->op == IXJ_OP_CAT && p->cat_axis == last);
  for (int o = 0; o < p->num_operands; o++) wide_inner = wide_inner && p->operand[o].rotate[last] == 0;
  outer[last] = wide_inner ? input(e, IPROG_S64, "%%i.o", 0)
                           : ixj__iprog_emit(&lw->prog, IOP_CAST, lw->index, 0, input(e, IPROG_U64, "%%i.o", 0), -1, -1, 0);
  int left[2] = {-1, -1};
  for (int o = 0; o < row_operands; o++) {
    const plan_operand *x = &p->operand[o];
    int v = ixj__lower_offset(lw, row_off[o], 1, &outer[last], &x->stride[last], &x->rotate[last], &p->shape[last]);
    off[o] = p->chain_runs && x->num_tail ? ixj__lower_chain_run(lw, x, v, &left[o]) : ixj__lower_chain(lw, x, v);
  }
  if (p->chain_runs) emit_chain_run(e, in, off, left);
  flush(e, in);
  if (p->chain_runs) {
    /* emit_chain_run moved the run */
  } else if (p->masked_ends) {
    emit_masked_move(e, in, off[0], p->op == IXJ_OP_COPY ? off[1] : -1);
  } else if (p->op == IXJ_OP_COPY) {
    emit_move(e, in, off[0], 1, off[1]);
  } else if (p->op == IXJ_OP_FILL) {
    emit_move(e, in, off[0], -1, -1);
  } else { /* cat: find the input that holds the axis coordinate */
    int axis = p->cat_axis, c = outer[axis];
    for (int k = 1; k < p->num_operands; k++) {
      const plan_operand *x = &p->operand[k];
      if (x->cat_extent == 0) continue;
      /* the input that reaches the axis' end takes every point left */
      bool final = x->cat_start + x->cat_extent == p->shape[axis];
      int l = e->label++;
      if (!final) {
        int below = ixj__iprog_emit(&lw->prog, IOP_ULT, IPROG_I1, 0, c,
                                    ixj__iprog_const(&lw->prog, lw->index, x->cat_start + x->cat_extent), -1, 0);
        flush(e, in);
        name b = ref(e, below);
        ixj__text_put(in, "  br i1 %s, label %%in.%d, label %%next.%d\n", b.s, l, l);
        ixj__text_put(in, "in.%d:\n", l);
      }
      int local[IXJ_MAX_RANK];
      int64_t extent[IXJ_MAX_RANK];
      memcpy(local, outer, sizeof local);
      memcpy(extent, p->shape, sizeof extent);
      extent[axis] = x->cat_extent;
      local[axis] = ixj__iprog_emit(&lw->prog, IOP_SUB, lw->index, IPROG_NUW, c,
                                    ixj__iprog_const(&lw->prog, lw->index, x->cat_start), -1, 0);
      int so = ixj__lower_point_offset(lw, x, r, local, extent);
      flush(e, in);
      emit_move(e, in, off[0], k, so);
      if (final) break;
      ixj__text_put(in, "  br label %%inner.latch\n");
      ixj__text_put(in, "next.%d:\n", l);
    }
  }

  /* row.next: the odometer over the outer digits */
  if (last > 0) emit_odometer_step(e, &part[EW_CARRY], "dc", 1);

  if (p->store_pitch) {
    int lanes = store_lanes(p);
    snprintf(e->declare, sizeof e->declare, "declare void @llvm.masked.store.v%d%s.p0(<%d x %s>, ptr, i32, <%d x i1>)",
             lanes, e->scalar, lanes, e->scalar, lanes);
  }
  if (p->masked_ends) declare_masked(e, p->op == IXJ_OP_COPY);
  if (write_prefetch(p) || p->source_prefetch) declare_prefetch(e);
  ixj_status st = ixj__lower_status(&e->lw, err);
  char *md = NULL;
  if (st == IXJ_OK && !e->part) st = fill_metadata(&md, err);
  if (st == IXJ_OK && any_oom(part, EW_PARTS)) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory while emitting IR");
  if (st == IXJ_OK) {
    char extent[32], step[16], lanes[16], segments[8];
    snprintf(segments, sizeof segments, "%d", MD_SEGMENTS);
    snprintf(extent, sizeof extent, "%lld", (long long)p->shape[last]);
    if (p->chain_runs) snprintf(step, sizeof step, "%%run.n");
    else snprintf(step, sizeof step, "%d", p->masked_ends ? p->row_lanes : p->vector_elems);
    snprintf(lanes, sizeof lanes, "%d", p->row_lanes ? p->row_lanes : 1);
    /* 512-bit vectors stay whole even where LLVM's tuning prefers 256 bits */
    bool wide = p->row_lanes && (size_t)p->row_lanes * p->elem_size == 64;
    /* with the counters opaque, LLVM's loop vectorizer has nothing left to
     * take: the JIT leaves it out (the objects are the same bytes) */
    char attributes[96];
    snprintf(attributes, sizeof attributes, "%s%s", wide ? "\"min-legal-vector-width\"=\"512\" " : "",
             opaque_inner_iv(p) ? "\"ixjit-no-vectorize\" " : "");
    const char *kv[] = {"STRATEGY", ixj__plan_strategy_name(p->strategy), "SIGNATURE", signature, "NAME", kname,
                        "IT", e->it, "ISTART64", e->lw.index == IPROG_U32 ? "zext i32 %istart to i64" : "add i64 %istart, 0",
                        "ALLOCAS", body(&part[EW_ALLOCAS]), "SETUP", body(&part[EW_SETUP]),
                        "INNER_EXTENT", extent, "ROW_SETUP", body(&part[EW_ROW]), "INNER", body(&part[EW_INNER]),
                        "VECTOR_SETUP", body(&part[EW_VSETUP]), "VECTOR", body(&part[EW_VECTOR]), "LANES", lanes,
                        "ROW_BRANCH", body(&part[EW_BRANCH]), "GROUP", body(&part[EW_GROUP]),
                        "ROW_GO", body(&part[EW_GO]), "VECTORS_ON", vector_group ? "%vgo" : "true",
                        "NO_VECTORS", row_vectors ? "false" : "true",
                        "INNER_IV", opaque_inner_iv(p) ? OPAQUE_COPY("%i") : "  %i.o = add i64 %i, 0", "MD_SEGMENTS", segments,
                        "ATTRIBUTES", attributes,
                        "STEP", step, "CARRY", body(&part[EW_CARRY]), "EXIT", exit_code(p), "METADATA", md ? md : "",
                        "DECLARATIONS", e->part ? "" : e->declare,
                        "LINKAGE", e->part ? "internal " : ""};
    st = ixj__template_fill(ixj__template_elementwise, kv, (int)(sizeof kv / sizeof *kv / 2), out, err);
  }
  free(md);
  for (int k = 0; k < EW_PARTS; k++) free(part[k].buf);
  return st;
}

/* ---- tiled kernel --------------------------------------------------------- */

enum { TL_SETUP, TL_TILE, TL_GATHER, TL_MICRO, TL_FLUSH, TL_SPAN_SETUP, TL_ROW_FLUSH, TL_BROW, TL_ACOL, TL_PARTS };

/* Destinations whose row elements are up to this far apart take the micro
 * kernel with masked stores (one per `pitch` vectors of row), with AVX-512
 * only (`vectors` in emit_tiled: AVX2's masked stores are microcoded on AMD's
 * cores, so there the element loops move such tiles). */
#define MAX_MASKED_PITCH 4

/* V x V blocks through registers: V vector loads along the source's unit dim
 * (rows src_row[i]), log2(V) stages of two-input shuffles, V vector stores
 * along the destination's (rows dst_row[j]). Every shuffle is one x86 can do
 * with an immediate or none (no mask vector from the constant pool, whose
 * decoding, again at each DAG combine, was most of a tiled kernel's code
 * generation: docs/hot-path.md): stage k pairs vectors r and r + 2^k. While
 * 2^k elements are narrower than 16 bytes it is an unpack (punpckl/h of
 * 2^k-element pieces within each 16-byte chunk: lo interleaves the chunks'
 * lower halves, hi their upper ones); above, a chunk shuffle (vshufi64x2,
 * vperm2i128: lo takes the even chunks of the pair, hi the odd ones). In bits
 * of (vector, lane): an unpack moves the row bit k into lane bit k and the
 * chunk's top lane bit into vector bit k, shifting the lane bits between up
 * by one; a chunk shuffle moves row bit k into the top lane bit and the
 * lowest chunk bit into vector bit k, shifting the chunk bits between down.
 * After all stages lane i of vector r holds element i of destination row j,
 * j being r with its in-chunk bits reversed (block_row). Elements wider than
 * 8 bytes move as groups of 8-byte lanes. With vectors
 * narrower than a cache line, `group` blocks side by side along the
 * destination's rows are transposed first and each row's pieces stored back to
 * back, so that streaming stores fill whole lines. Stacked (plan.stack:
 * blocks of 16 bytes of row on a host with 64-byte vectors), up to four such
 * blocks share each register, one in each 16-byte chunk: vector i is the
 * blocks' row i side by side (four 16-byte loads), every stage is an unpack,
 * which acts on each chunk alike, and each output vector is a whole
 * destination row piece of the group, one store. A 1-byte transpose then
 * holds 16 vectors where a 64 x 64 block held 64 (spilled). */
/* Software prefetch of the source two tiles ahead: each block row asks for
 * the same source row two tiles further along b (where b is contiguous in the
 * source), for transposes that stream (out of cache) where the plan asks for
 * it (plan.prefetch: not where the tile's rows crowd one L1 set). Measured
 * (1 thread, 64 MiB, interleaved with no prefetch): 1.1x at 1, 2 and 8-byte
 * elements, 1.16x NHWC -> NCHW, the same at 4 bytes; one tile ahead gained
 * half as much, four or eight no more; in cache (1 MiB) it cost 4%. */
#define PREFETCH_TILES 2
static bool tile_prefetch(const ixj_plan *p) { return p->prefetch; }
/* how far ahead, in elements along b: PREFETCH_TILES tiles, or one (plan.prefetch) */
static int tile_prefetch_ahead(const ixj_plan *p) {
  return p->tile * (p->prefetch == PLAN_PREFETCH_NEAR || p->prefetch == PLAN_PREFETCH_NEAR_L2 ? 1 : PREFETCH_TILES);
}
/* llvm.prefetch's locality: 3 into L1 (prefetcht0), 2 into L2 (prefetcht1) */
static int tile_prefetch_locality(const ixj_plan *p) {
  return p->prefetch == PLAN_PREFETCH_NEAR_L2 || p->prefetch == PLAN_PREFETCH_SEQUENTIAL_L2 || p->prefetch == PLAN_PREFETCH_BLOCK_ROWS
             ? 2
             : 3;
}

/* PLAN_PREFETCH_SEQUENTIAL (gen/plan.c, sequential_source): the source rows
 * are back to back, so rows [a0, a0 + Ta) of a row of tiles are one run of
 * Ta x B elements (B: b's extent), which the row of tiles reads a block at a
 * time, a line of each of its rows: row r's piece at b_pos. Block row r of
 * the block at b_pos prefetches element b_pos x Ta + r x V of the run of the
 * rows of tiles `ahead` further on: as the blocks go (b_pos, then r), those
 * offsets climb by V each, so the prefetches walk that run line after line,
 * as the hardware prefetchers follow, and cover it by the time this row of
 * tiles is done. At least SEQUENTIAL_PREFETCH_BYTES ahead (one row of tiles
 * of 1 KiB rows, two of 256-byte rows: NHWC -> NCHW 0.74-0.79 of the ceiling
 * with two, 0.56-0.77 with one), at most four. A prefetch past the source's
 * end is harmless: it never faults. */
#define SEQUENTIAL_PREFETCH_BYTES 8192
static void emit_sequential_prefetch_rows(emitter *e, int os, int a0, int b_pos, int ai, int rows, int *pf_row) {
  const ixj_plan *p = e->p;
  iprog *g = &e->lw.prog;
  int64_t v = p->micro, ta = ixj__plan_tile_edge_a(p), b = ixj__plan_tile_b_extent(p);
  int64_t run = ta * b * (int64_t)p->elem_size, ahead = (SEQUENTIAL_PREFETCH_BYTES + run - 1) / run;
  if (ahead > 4) ahead = 4;
  int next = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, a0, ixj__iprog_const_s64(g, ahead * ta), -1, 0);
  int at = ixj__iprog_emit(g, IOP_MUL, IPROG_S64, IPROG_NSW, next, ixj__iprog_const_s64(g, p->operand[1].stride[p->rank - 1]), -1, 0);
  int along = ixj__iprog_emit(g, IOP_MUL, IPROG_S64, IPROG_NSW, b_pos, ixj__iprog_const_s64(g, ta), -1, 0);
  int across = ixj__iprog_emit(g, IOP_MUL, IPROG_S64, IPROG_NSW, ai, ixj__iprog_const_s64(g, v), -1, 0);
  int base = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, os, at, -1, 0);
  base = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, base, along, -1, 0);
  base = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, base, across, -1, 0);
  for (int r = 0; r < rows; r++)
    pf_row[r] = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, base, ixj__iprog_const_s64(g, r * v), -1, 0);
}

/* Stage k of a micro-kernel's transpose (above): the element of the pair
 * (vector r: 0..v-1, vector r + 2^k: v..2v-1) that lane j of output `half`
 * (0: lo, 1: hi) takes; in_bits lane bits lie inside a 16-byte chunk. */
static int stage_source(int k, int stages, int in_bits, int half, int j, int v) {
  int in = j & ((1 << in_bits) - 1), chunk = j >> in_bits;
  if (k < in_bits) { /* unpack: lane bit k picks the vector, the bits above it come from one lower */
    int sel = (in >> k) & 1, low = in & ((1 << k) - 1), high = in >> (k + 1);
    int from = low | high << k | half << (in_bits - 1);
    return sel * v + (chunk << in_bits | from);
  }
  int bits = stages - in_bits, sel = chunk >> (bits - 1); /* chunk shuffle: the top chunk bit picks the vector */
  int from = half | (chunk & ((1 << (bits - 1)) - 1)) << 1;
  return sel * v + (from << in_bits | in);
}

/* The vector that holds destination row j after every stage: j with its
 * in_bits in-chunk bits reversed (an involution). */
static int block_row(int j, int in_bits) {
  int r = j & ~((1 << in_bits) - 1);
  for (int b = 0; b < in_bits; b++) r |= ((j >> b) & 1) << (in_bits - 1 - b);
  return r;
}

/* One vector of `width` elements of `bits` bits from each source row rows[0..n)
 * (each prefetched two tiles further along b when asked), concatenated by a
 * tree of two-input shuffles (padded with poison to a power of two) into one
 * vector of width << levels lanes: %<pre>.c<levels>.0, or `last` where given
 * (then n > 1). The loads are %<pre>.c0.<a>. Returns levels. */
static int emit_row_concat(emitter *e, text *t, const char *pre, const int *rows, int n, int width, int bits, bool prefetch,
                           const char *last) {
  for (int a = 0; a < n; a++) {
    name s = ref(e, rows[a]);
    ixj__text_put(t, "  %%%s.p%d = getelementptr %s, ptr %s, i64 %s\n", pre, a, e->scalar, e->p->gather ? "%gbuf" : "%bp.1", s.s);
    if (e->p->gather) /* the gathered tile on the stack, not the source (a staged tile's last block, moved
                       * back to end at the tile's edge, starts anywhere: align 1) */
      ixj__text_put(t, "  %%%s.c0.%d = load <%d x i%d>, ptr %%%s.p%d, align 1\n", pre, a, width, bits, pre, a);
    else
      ixj__text_put(t, "  %%%s.c0.%d = load <%d x i%d>, ptr %%%s.p%d, align 1, !alias.scope !%d, !noalias !%d\n", pre, a,
                    width, bits, pre, a, MD_SRC_LIST, MD_DST_LIST);
    if (prefetch) { /* the same row two tiles (or one) further along b */
      ixj__text_put(t, "  %%%s.f%d = getelementptr %s, ptr %%%s.p%d, i64 %d\n", pre, a, e->scalar, pre, a, tile_prefetch_ahead(e->p));
      ixj__text_put(t, "  call void @llvm.prefetch.p0(ptr %%%s.f%d, i32 0, i32 %d, i32 1)\n", pre, a, tile_prefetch_locality(e->p));
    }
  }
  int level = 0;
  for (; n > 1; n = (n + 1) / 2, width *= 2, level++) /* pairs of level `level` (width lanes each) into level + 1 */
    for (int i = 0; i < (n + 1) / 2; i++) {
      if (last && n == 2) ixj__text_put(t, "  %s = shufflevector ", last);
      else ixj__text_put(t, "  %%%s.c%d.%d = shufflevector ", pre, level + 1, i);
      ixj__text_put(t, "<%d x i%d> %%%s.c%d.%d, <%d x i%d> ", width, bits, pre, level, 2 * i, width, bits);
      if (2 * i + 1 < n) ixj__text_put(t, "%%%s.c%d.%d", pre, level, 2 * i + 1);
      else ixj__text_put(t, "poison");
      ixj__text_put(t, ", <%d x i32> <", 2 * width);
      for (int l = 0; l < 2 * width; l++) ixj__text_put(t, "%si32 %d", l ? ", " : "", l);
      ixj__text_put(t, ">\n");
    }
  return level;
}

/* A staged tile (plan.staged): the buffer holds the tile's T rows of T
 * elements and a line of halo (emit_stage_flush), row after row, or only one
 * row of blocks of them (plan.row_flush, from a page's start as a span's),
 * or, spanning a (plan.span), one row of blocks (micro rows) of a's extent back to back as
 * in the destination (emit_span_flush); 64 bytes before the first (the first
 * row's head load) and after the last (its tail load). A staged plan's blocks
 * move a line of row at a time. */
static int stage_row_bytes(const ixj_plan *p) {
  int row = ixj__plan_tile_edge_a(p) * (int)p->elem_size;
  return p->span ? row : row + 64;
}
static int stage_bytes(const ixj_plan *p) { return 64 + p->tile * stage_row_bytes(p) + 64; }
/* A span's buffer starts (its 64 bytes before the rows) at a 4 KiB boundary of
 * the stack: the alloca has a page more, and the buffer begins where the
 * next page does. Measured on the Zen 4 (round 18, docs/cpu-path.md): the
 * same kernel ran NHWC with 20 channels (a 1408-byte buffer) at 0.27 of the
 * ceiling with the buffer's start at 3584 modulo 4096 and 0.78-0.85 at most
 * other places, 60 channels (3968 bytes) at 0.82-0.92 from 512 k and
 * 0.53-0.64 from 512 k + 256; where a thread's stack falls is the process's
 * draw, so unplaced the same bench ran one process in four at 0.27. */
static int span_stage_bytes(const ixj_plan *p) { return 64 + p->micro * stage_row_bytes(p) + 64; }
/* Whether a staged tile's blocks also cover its edges (emit_tiled: the last
 * block of each row and column moved back to end at the edge): not with a
 * fused dim, whose offsets are constant steps from multiples of the block. */
static bool staged_edges(const ixj_plan *p) { return p->staged && !p->a_inner && !p->b_inner; }

/* Stages of a network as one inline-asm statement %<call> over n rows (in[],
 * out[]: their values' names): stage s pairs row i with row i + bit[s] and
 * performs global stage kind[s] (an unpack below in_bits, else the chunk
 * shuffle). */
static void emit_asm_stages(text *t, const char *call, const char *const *in, const char *const *out, int n, int count,
                            const int *bit, const int *kind, int in_bits, int elem, int vector_bytes, bool evex, const char *vt) {
  static const char *unpack[9] = {[1] = "bw", [2] = "wd", [4] = "dq", [8] = "qdq"};
  int slot[64], scratch = n;
  for (int i = 0; i < n; i++) slot[i] = i;
  ixj__text_put(t, "  %s = call {", call);
  for (int i = 0; i <= n; i++) ixj__text_put(t, "%s%s", i ? ", " : "", vt);
  ixj__text_put(t, "} asm inteldialect \"");
  bool first = true;
  for (int s = 0; s < count; s++)
    for (int i = 0; i < n; i++) {
      int k = kind[s];
      if (i & bit[s]) continue;
      int a = slot[i], b = slot[i + bit[s]];
      const char *sep = first ? "" : "\\0A\\09";
      first = false;
      if (k < in_bits)
        ixj__text_put(t, "%svpunpckl%s $%d, $%d, $%d\\0A\\09vpunpckh%s $%d, $%d, $%d", sep, unpack[elem << k], scratch, a, b,
                      unpack[elem << k], b, a, b);
      else if (vector_bytes == 64)
        ixj__text_put(t, "%svshufi64x2 $%d, $%d, $%d, 0x88\\0A\\09vshufi64x2 $%d, $%d, $%d, 0xdd", sep, scratch, a, b, b, a, b);
      else if (evex) /* registers 16-31 have no VEX form: the EVEX chunk shuffle of 32-byte vectors */
        ixj__text_put(t, "%svshufi64x2 $%d, $%d, $%d, 0x0\\0A\\09vshufi64x2 $%d, $%d, $%d, 0x3", sep, scratch, a, b, b, a, b);
      else
        ixj__text_put(t, "%svperm2i128 $%d, $%d, $%d, 0x20\\0A\\09vperm2i128 $%d, $%d, $%d, 0x31", sep, scratch, a, b, b, a, b);
      slot[i] = scratch;
      scratch = a;
    }
  ixj__text_put(t, "\", \"");
  const char *reg = evex ? "v" : "x"; /* without AVX-512 the first 16 registers only */
  for (int i = 0; i < n; i++) ixj__text_put(t, "=%s,", reg);
  ixj__text_put(t, "=&%s", reg);
  for (int i = 0; i < n; i++) ixj__text_put(t, ",%d", i);
  ixj__text_put(t, "\"(");
  for (int i = 0; i < n; i++) ixj__text_put(t, "%s%s %s", i ? ", " : "", vt, in[i]);
  ixj__text_put(t, ") nounwind memory(none)\n");
  for (int i = 0; i < n; i++) {
    ixj__text_put(t, "  %s = extractvalue {", out[i]);
    for (int r = 0; r <= n; r++) ixj__text_put(t, "%s%s", r ? ", " : "", vt);
    ixj__text_put(t, "} %s, %d\n", call, slot[i]);
  }
}

/* A block's shuffle network (the stages above) as inline asm: LLVM's
 * instruction selection spent some 60 us on each shufflevector and its fences
 * (code generation 5.8 -> 4.8 ms and the passes 6.2 -> 4.9 ms on a 4-byte
 * transpose's IR, the same object: docs/hot-path.md). The v rows are tied
 * register operands $0..$(v-1) and $v a scratch register: each pair's lo goes
 * to the scratch and its hi over the second row, and the first row's
 * register becomes the scratch, so that no move is needed; the rows' final
 * operands are tracked in slot[]. Unpacks of elem x 2^k bytes (elem: 0 for
 * 16-byte elements, which have none) within 16-byte chunks, then chunk
 * shuffles (vshufi64x2 of 64-byte vectors: lo the even chunks of the pair,
 * hi the odd ones; of 32-byte ones vperm2i128 with AVX2, vshufi64x2 with
 * AVX-512VL, whose registers 16-31 have no VEX form), exactly the shuffles of
 * stage_source. One statement where the registers hold the rows and a
 * scratch one; 32 rows with 32 registers (32-byte vectors of bytes, 64-byte
 * ones of halves: crowded blocks on Zen cores) in four: the stages but the
 * last on rows 0-15 and on 16-31, then the last (rows i and i + 16, a chunk
 * stage) as two statements of 8 pairs. The last stage acts on an index bit
 * of its own, so it may come apart from the others; but not first: where
 * there are two chunk stages (halves), they move the chunks in turn and
 * must keep their order. Defines
 * %x<blk>.s<stages>.<i>. */
static void emit_asm_network(text *t, int blk, int v, int stages, int in_bits, int elem, int vector_bytes, bool evex,
                             const char *vt) {
  char names[3][32][24], call[24];
  const char *in[32], *out[32];
  int bit[8], kind[8];
  if (v < 32) { /* one statement: the rows and a scratch register fit */
    for (int i = 0; i < v; i++) {
      snprintf(names[0][i], sizeof names[0][i], "%%x%d.s0.%d", blk, i);
      snprintf(names[1][i], sizeof names[1][i], "%%x%d.s%d.%d", blk, stages, i);
      in[i] = names[0][i];
      out[i] = names[1][i];
    }
    for (int k = 0; k < stages; k++) bit[k] = 1 << k, kind[k] = k;
    snprintf(call, sizeof call, "%%x%d.n", blk);
    emit_asm_stages(t, call, in, out, v, stages, bit, kind, in_bits, elem, vector_bytes, evex, vt);
    return;
  }
  for (int i = 0; i < 32; i++) { /* the rows, after the stages within halves, after all */
    snprintf(names[0][i], sizeof names[0][i], "%%x%d.s0.%d", blk, i);
    snprintf(names[1][i], sizeof names[1][i], "%%x%d.c.%d", blk, i);
    snprintf(names[2][i], sizeof names[2][i], "%%x%d.s%d.%d", blk, stages, i);
  }
  for (int g = 0; g < 2; g++) {
    for (int j = 0; j < 16; j++) {
      in[j] = names[0][16 * g + j];
      out[j] = names[1][16 * g + j];
    }
    for (int k = 0; k < stages - 1; k++) bit[k] = 1 << k, kind[k] = k;
    snprintf(call, sizeof call, "%%x%d.nu%d", blk, g);
    emit_asm_stages(t, call, in, out, 16, stages - 1, bit, kind, in_bits, elem, vector_bytes, evex, vt);
  }
  for (int h = 0; h < 2; h++) { /* rows 8h..8h+7 and their pairs 16 on, as rows 0-7 and 8-15 */
    for (int j = 0; j < 16; j++) {
      int r = j < 8 ? 8 * h + j : 16 + 8 * h + j - 8;
      in[j] = names[1][r];
      out[j] = names[2][r];
    }
    bit[0] = 8, kind[0] = stages - 1;
    snprintf(call, sizeof call, "%%x%d.nc%d", blk, h);
    emit_asm_stages(t, call, in, out, 16, 1, bit, kind, in_bits, elem, vector_bytes, evex, vt);
  }
}

/* PLAN_FLUSH_BLOCKS: inside a row (a tile before and a halo after: %f.inner),
 * each block of a staged tile but the first sends the lines that start in
 * the block before it, now complete in the buffer: for destination row j
 * (the block's row piece at %bl.d<j>, whose previous piece is 64 bytes
 * before), the line from h - 64 bytes on, h = the bytes from the piece to
 * the next line (0 when it starts on one: the previous piece is that line).
 * The row's first and last tiles, whose head and tail lines are partial,
 * send their rows after each row of blocks (emit_stage_flush). Sending after
 * each block interleaves the streaming stores with the loads, as unstaged
 * tiles do (docs/cpu-path.md, round 20). Defines block bl.done, where the
 * block loop goes on. */
static void emit_block_lines(emitter *e, text *t, const int *dst_row) {
  const ixj_plan *p = e->p;
  ixj__text_put(t, "  %%bl.any = icmp ne i64 %%ai.o, 0\n  %%bl.go = and i1 %%bl.any, %%f.inner\n"
                   "  br i1 %%bl.go, label %%bl.send, label %%bl.done\n\nbl.send:\n");
  for (int j = 0; j < p->micro; j++) {
    name d = ref(e, dst_row[j]);
    ixj__text_put(t, "  %%bl.d%d = getelementptr %s, ptr %%bp.0, i64 %s\n  %%bl.a%d = ptrtoint ptr %%bl.d%d to i64\n"
                     "  %%bl.n%d = sub i64 0, %%bl.a%d\n  %%bl.h%d = and i64 %%bl.n%d, 63\n  %%bl.o%d = add nsw i64 %%bl.h%d, -64\n"
                     "  %%bl.l%d = getelementptr i8, ptr %%bl.d%d, i64 %%bl.o%d\n"
                     "  %%bl.r%d = getelementptr i8, ptr %%stg.p, i64 %d\n  %%bl.s%d = getelementptr i8, ptr %%bl.r%d, i64 %%bl.o%d\n"
                     "  %%bl.v%d = load <8 x i64>, ptr %%bl.s%d, align 1\n"
                     "  store <8 x i64> %%bl.v%d, ptr %%bl.l%d, align 64, !nontemporal !%d, !alias.scope !%d, !noalias !%d\n",
                  j, e->scalar, d.s, j, j, j, j, j, j, j, j, j, j, j, j, j * stage_row_bytes(p), j, j, j, j, j, j, j,
                  MD_NONTEMPORAL, MD_DST_LIST, MD_SRC_LIST);
  }
  ixj__text_put(t, "  br label %%bl.done\n\nbl.done:\n");
}

/* pf_row: where each block row prefetches (PLAN_PREFETCH_SEQUENTIAL), else NULL */
static void emit_micro_transpose(emitter *e, text *t, int group, const int *src_row, const int *dst_row, const int *pf_row) {
  const ixj_plan *p = e->p;
  int64_t pitch = p->operand[0].stride[p->rank - 1];
  /* stacked (plan.stack): the group's blocks share registers, one in each
   * 16-byte chunk; the unpack stages act on every chunk alike */
  int pieces = p->stack && group > 1 && pitch == 1 ? (group < p->stack ? group : p->stack) : 1;
  int v = p->micro, unit = p->elem_size > 8 ? 8 : (int)p->elem_size, per = (int)p->elem_size / unit;
  int lanes = v * per * pieces, stages = 0, in_bits = 0, floats = lanes * unit / 4;
  char vt[32], ft[32], fsuffix[16];
  snprintf(vt, sizeof vt, "<%d x i%d>", lanes, unit * 8);
  snprintf(ft, sizeof ft, "<%d x float>", floats);
  snprintf(fsuffix, sizeof fsuffix, "v%df32", floats);
  while ((1 << stages) < v) stages++;
  while (in_bits < stages && (1 << in_bits) * (int)p->elem_size < 16) in_bits++; /* lane bits inside a 16-byte chunk */
  /* the network as one inline-asm statement where the target's registers
   * hold the block and a scratch one (emit_asm_network); else IR shuffles */
  bool in_asm = p->asm_regs > v && lanes * unit >= 16 && (stages == in_bits || lanes * unit >= 32) &&
                (lanes * unit < 64 || p->vector_bytes == 64); /* (512-bit types legal only with the attribute below) */
  /* 32 rows of 32-byte vectors in 32 registers: in four statements */
  in_asm = in_asm || (p->asm_regs == 32 && v == 32 && lanes * unit == 32 && stages == in_bits + 1);
  /* and 32 rows of 64-byte vectors (crowded halves on Zen cores), two chunk stages */
  in_asm = in_asm || (p->asm_regs == 32 && v == 32 && lanes * unit == 64 && p->vector_bytes == 64);
  bool fences = !in_asm && stages > 1 && lanes * unit % 4 == 0; /* a vector of floats the same size */
  if (fences) { /* the fence's declaration, after the kernel's others */
    size_t used = strlen(e->declare);
    snprintf(e->declare + used, sizeof e->declare - used, "%sdeclare %s @llvm.arithmetic.fence.%s(%s)", used ? "\n" : "", ft,
             fsuffix, ft);
  }
  bool prefetch = tile_prefetch(p);
  int blk[32]; /* group <= 64 / vector_bytes: 8 blocks for 1-byte elements in 8-lane blocks (a b extent of 8-15) */
  for (int g = 0; g < group; g += pieces) {
    blk[g] = e->tmp++;
    for (int i = 0; i < v && pieces > 1; i++) { /* row i of each stacked block, chunk by chunk */
      char pre[24], last[32];
      int rows[8];
      for (int c = 0; c < pieces; c++) rows[c] = src_row[(g + c) * v + i];
      snprintf(pre, sizeof pre, "x%d.r%d", blk[g], i);
      snprintf(last, sizeof last, "%%x%d.s0.%d", blk[g], i);
      /* no software prefetch two tiles ahead (Intel): four blocks read each
       * source line a piece at a time, and without it the streamed 1- and
       * 2-byte transposes ran 1.06x to 1.34x as fast as with it; one tile
       * ahead (PLAN_PREFETCH_NEAR) on a Zen 3 1.15-1.35x as fast with it,
       * into L2 on a Zen 4 (PLAN_PREFETCH_NEAR_L2) (docs/cpu-path.md) */
      emit_row_concat(e, t, pre, rows, pieces, v * per, unit * 8,
                      !p->gather && (p->prefetch == PLAN_PREFETCH_NEAR || p->prefetch == PLAN_PREFETCH_NEAR_L2), last);
    }
    for (int i = 0; i < v && pieces == 1; i++) {
      name s = ref(e, src_row[g * v + i]);
      ixj__text_put(t, "  %%x%d.p%d = getelementptr %s, ptr %%bp.1, i64 %s\n", blk[g], i, e->scalar, s.s);
      ixj__text_put(t, "  %%x%d.s0.%d = load %s, ptr %%x%d.p%d, align 1, !alias.scope !%d, !noalias !%d\n", blk[g], i,
                    vt, blk[g], i, MD_SRC_LIST, MD_DST_LIST);
      if (prefetch && pf_row) { /* the next rows of tiles' run, in memory order */
        name f = ref(e, pf_row[g * v + i]);
        ixj__text_put(t, "  %%x%d.f%d = getelementptr %s, ptr %%bp.1, i64 %s\n", blk[g], i, e->scalar, f.s);
        ixj__text_put(t, "  call void @llvm.prefetch.p0(ptr %%x%d.f%d, i32 0, i32 %d, i32 1)\n", blk[g], i, tile_prefetch_locality(p));
      } else if (prefetch) { /* the same row's piece two tiles (or one) further along b */
        ixj__text_put(t, "  %%x%d.f%d = getelementptr %s, ptr %%x%d.p%d, i64 %d\n", blk[g], i, e->scalar, blk[g], i, tile_prefetch_ahead(p));
        ixj__text_put(t, "  call void @llvm.prefetch.p0(ptr %%x%d.f%d, i32 0, i32 %d, i32 1)\n", blk[g], i, tile_prefetch_locality(p));
      }
    }
    if (in_asm)
      emit_asm_network(t, blk[g], v, stages, in_bits, unit == (int)p->elem_size ? unit : 0, lanes * unit, p->asm_regs == 32, vt);
    for (int k = 0; k < stages && !in_asm; k++) {
      int bit = 1 << k;
      for (int i = 0; i < v; i++) {
        if (i & bit) continue;
        for (int half = 0; half < 2; half++) {
          int out = i + half * bit;
          bool fence = fences && k + 1 < stages; /* the last stage's outputs go to stores */
          ixj__text_put(t, "  %%x%d.%c%d.%d = shufflevector %s %%x%d.s%d.%d, %s %%x%d.s%d.%d, <%d x i32> <", blk[g],
                        fence ? 'u' : 's', k + 1, out, vt, blk[g], k, i, vt, blk[g], k, i + bit, lanes);
          for (int j = 0; j < v * pieces; j++) {
            int from = stage_source(k, stages, in_bits, half, j, v * pieces);
            for (int u = 0; u < per; u++) ixj__text_put(t, "%si32 %d", j || u ? ", " : "", from * per + u);
          }
          ixj__text_put(t, ">\n");
          if (fence) /* as floats through the fence, which no combine looks through, and back: no instruction */
            ixj__text_put(t,
                          "  %%x%d.f%d.%d = bitcast %s %%x%d.u%d.%d to %s\n"
                          "  %%x%d.g%d.%d = call %s @llvm.arithmetic.fence.%s(%s %%x%d.f%d.%d)\n"
                          "  %%x%d.s%d.%d = bitcast %s %%x%d.g%d.%d to %s\n",
                          blk[g], k + 1, out, vt, blk[g], k + 1, out, ft, blk[g], k + 1, out, ft, fsuffix, ft, blk[g], k + 1,
                          out, blk[g], k + 1, out, ft, blk[g], k + 1, out, vt);
        }
      }
    }
  }
  bool stream = p->nontemporal && p->dst_aligned;
  if (p->staged) /* the block's corner in the stage buffer: tile row bi (a span's: its row of blocks), column ai */
    ixj__text_put(t,
                  "  %%stg.r = mul nuw nsw i64 %%bi.o, %d\n  %%stg.c = mul nuw nsw i64 %%ai.o, %zu\n"
                  "  %%stg.o = add nuw nsw i64 %%stg.r, %%stg.c\n  %%stg.p = getelementptr i8, ptr %%stage, i64 %%stg.o\n",
                  p->span || p->row_flush ? 0 : stage_row_bytes(p), p->elem_size);
  for (int j = 0; j < v; j++)
    for (int g = 0; g < group; g += pieces) {
      name d = ref(e, dst_row[g * v + j]);
      if (p->staged) { /* row j of the block, its columns g v ...: whole vectors on their own alignment */
        ixj__text_put(t, "  %%x%d.q%d = getelementptr i8, ptr %%stg.p, i64 %lld\n", blk[g], j,
                      (long long)j * stage_row_bytes(p) + (long long)g * v * (long long)p->elem_size);
        ixj__text_put(t, "  store %s %%x%d.s%d.%d, ptr %%x%d.q%d, align %d\n", vt, blk[g], stages, block_row(j, in_bits), blk[g],
                      j, staged_edges(p) ? (int)p->elem_size : p->vector_bytes * pieces);
        continue;
      }
      if (pitch != 1) { /* gaps between the row's elements: spread them over `pitch` vectors, masked stores */
        for (int q = 0; q < pitch; q++) {
          ixj__text_put(t, "  %%x%d.q%d.%d = getelementptr %s, ptr %%bp.0, i64 %s\n", blk[g], j, q, e->scalar, d.s);
          ixj__text_put(t, "  %%x%d.w%d.%d = getelementptr %s, ptr %%x%d.q%d.%d, i64 %d\n", blk[g], j, q, e->scalar,
                        blk[g], j, q, q * v);
          ixj__text_put(t, "  %%x%d.m%d.%d = shufflevector %s %%x%d.s%d.%d, %s poison, <%d x i32> <", blk[g], j, q, vt,
                        blk[g], stages, block_row(j, in_bits), vt, lanes);
          for (int x = 0; x < v; x++)
            for (int u = 0; u < per; u++) {
              int at = q * v + x; /* the window's element at */
              if (at % pitch) ixj__text_put(t, "%si32 poison", x || u ? ", " : "");
              else ixj__text_put(t, "%si32 %d", x || u ? ", " : "", (int)(at / pitch) * per + u);
            }
          ixj__text_put(t, ">\n  call void @llvm.masked.store.v%di%d.p0(%s %%x%d.m%d.%d, ptr %%x%d.w%d.%d, i32 1, <%d x i1> <",
                        lanes, unit * 8, vt, blk[g], j, q, blk[g], j, q, lanes);
          for (int x = 0; x < v; x++)
            for (int u = 0; u < per; u++)
              ixj__text_put(t, "%si1 %s", x || u ? ", " : "", (q * v + x) % pitch ? "false" : "true");
          ixj__text_put(t, ">), !alias.scope !%d, !noalias !%d\n", MD_DST_LIST, MD_SRC_LIST);
        }
        continue;
      }
      ixj__text_put(t, "  %%x%d.q%d = getelementptr %s, ptr %%bp.0, i64 %s\n", blk[g], j, e->scalar, d.s);
      if (stream)
        ixj__text_put(t,
                      "  store %s %%x%d.s%d.%d, ptr %%x%d.q%d, align %d, !nontemporal !%d, !alias.scope !%d, !noalias !%d\n",
                      vt, blk[g], stages, block_row(j, in_bits), blk[g], j, p->vector_bytes * pieces, MD_NONTEMPORAL,
                      MD_DST_LIST, MD_SRC_LIST);
      else
        ixj__text_put(t, "  store %s %%x%d.s%d.%d, ptr %%x%d.q%d, align 1, !alias.scope !%d, !noalias !%d\n", vt, blk[g],
                      stages, block_row(j, in_bits), blk[g], j, MD_DST_LIST, MD_SRC_LIST);
    }
  if (p->row_flush == PLAN_FLUSH_BLOCKS) emit_block_lines(e, t, dst_row);
}

/* A zip block (plan.zip = k rows): one vector load of V elements along b
 * from each of the k source rows (rows src_row[a]), their concatenation
 * shuffled so that element (b, a) lands at b * k + a, and k vector stores of
 * V elements back to back from the destination's row dst_row (streamed when
 * the plan streams: each block then starts on a vector boundary). The
 * concatenation is a tree of two-input shuffles (padded with poison to a
 * power of two); LLVM lowers the final k-way interleave to a few two-source
 * permutes per stored vector. */
static void emit_micro_zip(emitter *e, text *t, const int *src_row, int dst_row) {
  const ixj_plan *p = e->p;
  int k = p->zip, v = p->micro, unit = (int)p->elem_size, id = e->tmp++;
  bool prefetch = tile_prefetch(p);
  char pre[24];
  snprintf(pre, sizeof pre, "z%d", id);
  int level = emit_row_concat(e, t, pre, src_row, k, v, unit * 8, prefetch, NULL), width = v << level;
  bool stream = p->nontemporal && p->dst_aligned;
  name d = ref(e, dst_row);
  for (int q = 0; q < k; q++) { /* stored vector q: destination elements q V .. q V + V - 1 */
    ixj__text_put(t, "  %%z%d.o%d = shufflevector <%d x i%d> %%z%d.c%d.0, <%d x i%d> poison, <%d x i32> <", id, q, width,
                  unit * 8, id, level, width, unit * 8, v);
    for (int l = 0; l < v; l++) {
      int j = q * v + l; /* element (j / k, j % k) of the block */
      ixj__text_put(t, "%si32 %d", l ? ", " : "", (j % k) * v + j / k);
    }
    ixj__text_put(t, ">\n  %%z%d.q%d = getelementptr %s, ptr %%bp.0, i64 %s\n", id, q, e->scalar, d.s);
    ixj__text_put(t, "  %%z%d.w%d = getelementptr <%d x i%d>, ptr %%z%d.q%d, i64 %d\n", id, q, v, unit * 8, id, q, q);
    if (stream)
      ixj__text_put(t, "  store <%d x i%d> %%z%d.o%d, ptr %%z%d.w%d, align %d, !nontemporal !%d, !alias.scope !%d, !noalias !%d\n",
                    v, unit * 8, id, q, id, q, p->vector_bytes, MD_NONTEMPORAL, MD_DST_LIST, MD_SRC_LIST);
    else
      ixj__text_put(t, "  store <%d x i%d> %%z%d.o%d, ptr %%z%d.w%d, align 1, !alias.scope !%d, !noalias !%d\n", v, unit * 8, id,
                    q, id, q, MD_DST_LIST, MD_SRC_LIST);
  }
}

/* An unzip block (plan.unzip = k rows): k * V contiguous source elements
 * (one load; LLVM splits it into k vector loads), element c + k l of them
 * to lane l of destination row c, each row one vector store at dst_row[c]
 * (streamed when the plan streams: the rows then start on lines). */
static void emit_micro_unzip(emitter *e, text *t, int src_at, const int *dst_row) {
  const ixj_plan *p = e->p;
  int k = p->unzip, v = p->micro, bits = (int)p->elem_size * 8, id = e->tmp++;
  name s = ref(e, src_at);
  ixj__text_put(t, "  %%u%d.p = getelementptr %s, ptr %%bp.1, i64 %s\n", id, e->scalar, s.s);
  ixj__text_put(t, "  %%u%d.l = load <%d x i%d>, ptr %%u%d.p, align 1, !alias.scope !%d, !noalias !%d\n", id, k * v, bits, id,
                MD_SRC_LIST, MD_DST_LIST);
  bool stream = p->nontemporal && p->dst_aligned;
  for (int c = 0; c < k; c++) {
    ixj__text_put(t, "  %%u%d.o%d = shufflevector <%d x i%d> %%u%d.l, <%d x i%d> poison, <%d x i32> <", id, c, k * v, bits, id,
                  k * v, bits, v);
    for (int l = 0; l < v; l++) ixj__text_put(t, "%si32 %d", l ? ", " : "", c + k * l);
    name d = ref(e, dst_row[c]);
    ixj__text_put(t, ">\n  %%u%d.q%d = getelementptr %s, ptr %%bp.0, i64 %s\n", id, c, e->scalar, d.s);
    if (stream)
      ixj__text_put(t, "  store <%d x i%d> %%u%d.o%d, ptr %%u%d.q%d, align %d, !nontemporal !%d, !alias.scope !%d, !noalias !%d\n",
                    v, bits, id, c, id, c, p->vector_bytes, MD_NONTEMPORAL, MD_DST_LIST, MD_SRC_LIST);
    else
      ixj__text_put(t, "  store <%d x i%d> %%u%d.o%d, ptr %%u%d.q%d, align 1, !alias.scope !%d, !noalias !%d\n", v, bits, id, c,
                    id, c, MD_DST_LIST, MD_SRC_LIST);
  }
}

/* A tile coordinate c runs over dim `lo`, or, fused (inner: lo's extent, a
 * power of two), over dims (hi, lo): b over (rank-3, rank-2) when b_inner is
 * set, a over (rank-3, rank-1) when a_inner is. */
typedef struct tile_dim {
  int inner, hi, lo;
} tile_dim;

static tile_dim tile_b(const ixj_plan *p) { return (tile_dim){p->b_inner, p->rank - 3, p->rank - 2}; }
static tile_dim tile_a(const ixj_plan *p) { return (tile_dim){p->a_inner, p->rank - 3, p->rank - 1}; }

/* base + the offset of tile coordinate c (S64) in operand o: c times the
 * stride of its dim, or, fused, (c >> log2 inner) * hi's stride + (c &
 * (inner - 1)) * lo's. */
static int tile_offset(emitter *e, int base, int c, const plan_operand *o, tile_dim t) {
  const ixj_plan *p = e->p;
  iprog *g = &e->lw.prog;
  if (!t.inner) return ixj__lower_offset(&e->lw, base, 1, &c, &o->stride[t.lo], (int64_t[]){0}, &p->shape[t.lo]);
  int coord[2] = {ixj__iprog_emit(g, IOP_LSHR, IPROG_S64, 0, c, -1, -1, log2_of((size_t)t.inner)),
                  ixj__iprog_emit(g, IOP_AND, IPROG_S64, 0, c, ixj__iprog_const_s64(g, t.inner - 1), -1, 0)};
  int64_t zero[2] = {0, 0}, stride[2] = {o->stride[t.hi], o->stride[t.lo]}, extent[2] = {p->shape[t.hi], p->shape[t.lo]};
  return ixj__lower_offset(&e->lw, base, 2, coord, stride, zero, extent);
}

/* The offset of c0 + i minus that of c0, for c0 a multiple of the micro
 * edge (so of inner): a constant. */
static int64_t tile_step(const plan_operand *o, int i, tile_dim t) { return ixj__plan_tile_step(o, i, t.inner, t.hi, t.lo); }

/* The staged tile's rows [0, %vb) (plan.staged), each %va elements from the
 * tile's column a0 on, out of the stage buffer, after its last block; with
 * plan.row_flush a row of blocks' V rows from bi after each row of blocks,
 * inline in mrow.next (on to f.done; inside a row none where the blocks sent
 * their lines, PLAN_FLUSH_BLOCKS). Row j goes to the element offset of
 * (b0 + j, a0), lowered in the loop's first block. Every line of
 * the destination is written by one aligned streaming store, read from the
 * buffer at the row's misalignment: a tile writes the lines that start in its
 * row pieces, the last of which reaches into the next tile's columns; those
 * come from the halo, the next tile's first block column, transposed into
 * the buffer too (%f.halo: the next tile along a has blocks). Where there is
 * no halo (a row's last tile) the piece's tail, and at a row's first tile
 * its head (the line it shares with the row before), are byte-masked stores
 * (a 64-byte vector's high h or low t bytes, h, t < 64), so that nothing
 * outside the row piece is written. */
/* The head of a flush loop over the tile's rows: block `label`, its row %<iv>
 * (from 0 on entry from block `from`, stepped in `latch`) and the opaque copy %<iv>.o, then the element
 * offset of destination (b0 + row, a0), lowered; returns its name. */
static name emit_flush_row(emitter *e, text *t, const char *label, const char *iv, const char *latch, const char *from, int od,
                           int b0, int a0) {
  const ixj_plan *p = e->p;
  const plan_operand *dst = &p->operand[0];
  char copy[16], copy_fmt[16]; /* the copy's name, and as the input's format ("%%" for its "%") */
  snprintf(copy, sizeof copy, "%%%s.o", iv);
  snprintf(copy_fmt, sizeof copy_fmt, "%%%%%s.o", iv);
  ixj__text_put(t, "%s:\n  %%%s = phi i64 [ 0, %%%s ], [ %%%s.next, %%%s ]\n"
                   "  %s = call i64 asm \"\", \"=r,0\"(i64 %%%s) nounwind memory(none)\n",
                label, iv, from, iv, latch, copy, iv);
  int b = ixj__iprog_emit(&e->lw.prog, IOP_ADD, IPROG_S64, IPROG_NSW, b0, input(e, IPROG_S64, copy_fmt, 0), -1, 0);
  int at = tile_offset(e, tile_offset(e, od, b, dst, tile_b(p)), a0, dst, tile_a(p));
  flush(e, t);
  return ref(e, at);
}

/* A staged flush's store metadata: md its alias scopes, nt the streaming
 * hint where the plan streams (staged in cache: plain stores). */
static void flush_metadata(const ixj_plan *p, char md[64], char nt[32]) {
  snprintf(md, 64, "!alias.scope !%d, !noalias !%d", MD_DST_LIST, MD_SRC_LIST);
  nt[0] = '\0';
  if (p->nontemporal) snprintf(nt, 32, ", !nontemporal !%d", MD_NONTEMPORAL);
}

static void emit_stage_flush(emitter *e, text *t, int od, int b0, int a0) {
  const ixj_plan *p = e->p;
  char md[64], nt[32], rows[24];
  flush_metadata(p, md, nt);
  /* row_flush: after each row of blocks (inline in mrow.next, on to f.done),
   * its V rows from bi; else after the tile's blocks, its rows [0, %vb) */
  const char *entry = p->row_flush ? "mrow.next" : "flush", *done = p->row_flush ? "f.done" : "edges";
  snprintf(rows, sizeof rows, p->row_flush ? "%d" : "%%vb", p->micro);
  if (p->row_flush) { /* lowered here, in mrow.next: both row loops use it */
    b0 = ixj__iprog_emit(&e->lw.prog, IOP_ADD, IPROG_S64, IPROG_NSW, b0, input(e, IPROG_S64, "%%bi.o", 0), -1, 0);
    flush(e, t);
  }
  ixj__text_put(t, "%s  %%f.va = add i64 %%va, 0\n", p->row_flush ? "" : "flush:\n");
  /* inside a row, a row of blocks has sent its lines block by block (emit_block_lines) */
  ixj__text_put(t, "  %%f.n = mul nuw nsw i64 %%f.va, %zu\n  br i1 %%f.inner, label %%%s, label %%frow\n\n", p->elem_size,
                p->row_flush == PLAN_FLUSH_BLOCKS ? "f.done" : "fin");
  if (p->row_flush != PLAN_FLUSH_BLOCKS) {
    /* Inside a row (neither its first tile nor its last) every row piece is
     * (tile width) x elem_size / 64 whole lines from its head h on (for 0 < h < 64 the
     * last one ends in the halo): no masks, no bounds, a constant count, about
     * a third of the instructions of the loop below, which was most of a staged
     * tile's work in cache. */
    name id = emit_flush_row(e, t, "fin", "fi", "fin", entry, od, b0, a0);
    ixj__text_put(t, "  %%i.d = getelementptr %s, ptr %%bp.0, i64 %s\n  %%i.a = ptrtoint ptr %%i.d to i64\n"
                     "  %%i.neg = sub i64 0, %%i.a\n  %%i.h = and i64 %%i.neg, 63\n"
                     "  %%i.so = mul nuw nsw i64 %%fi.o, %d\n  %%i.sh = add nuw nsw i64 %%i.so, %%i.h\n"
                     "  %%i.s = getelementptr i8, ptr %%stage, i64 %%i.sh\n  %%i.dh = getelementptr i8, ptr %%i.d, i64 %%i.h\n",
                  e->scalar, id.s, stage_row_bytes(p));
    for (int k = 0; k < ixj__plan_tile_edge_a(p) * (int)p->elem_size / 64; k++)
      ixj__text_put(t, "  %%i.s%d = getelementptr i8, ptr %%i.s, i64 %d\n  %%i.v%d = load <8 x i64>, ptr %%i.s%d, align 1\n"
                       "  %%i.d%d = getelementptr i8, ptr %%i.dh, i64 %d\n"
                       "  store <8 x i64> %%i.v%d, ptr %%i.d%d, align 64%s, %s\n",
                    k, 64 * k, k, k, k, 64 * k, k, k, nt, md);
    ixj__text_put(t, "  %%fi.next = add nuw nsw i64 %%fi.o, 1\n  %%fi.more = icmp slt i64 %%fi.next, %s\n"
                     "  br i1 %%fi.more, label %%fin, label %%%s\n\n", rows, done);
  }
  name d = emit_flush_row(e, t, "frow", "fj", "fline", entry, od, b0, a0);
  ixj__text_put(t, "  %%f.d = getelementptr %s, ptr %%bp.0, i64 %s\n", e->scalar, d.s);
  ixj__text_put(t, "  %%f.so = mul nuw nsw i64 %%fj.o, %d\n  %%f.s = getelementptr i8, ptr %%stage, i64 %%f.so\n",
                stage_row_bytes(p));
  /* h: the bytes up to the destination's next line (at most the piece); the
   * lines from there to e, rounded up into the halo where there is one */
  ixj__text_put(t, "  %%f.a = ptrtoint ptr %%f.d to i64\n  %%f.neg = sub i64 0, %%f.a\n  %%f.h0 = and i64 %%f.neg, 63\n"
                   "  %%f.hin = icmp ult i64 %%f.h0, %%f.n\n  %%f.h = select i1 %%f.hin, i64 %%f.h0, i64 %%f.n\n"
                   "  %%f.m = sub nuw nsw i64 %%f.n, %%f.h\n  %%f.mu = add nuw nsw i64 %%f.m, 63\n"
                   "  %%f.ms = select i1 %%f.halo, i64 %%f.mu, i64 %%f.m\n  %%f.w = and i64 %%f.ms, -64\n"
                   "  %%f.e = add nuw nsw i64 %%f.h, %%f.w\n  %%f.tn = sub nsw i64 %%f.n, %%f.e\n"
                   "  %%f.t = select i1 %%f.halo, i64 0, i64 %%f.tn\n");
  /* the head's high h bytes of the line before %f.d + h (from h - 64 on),
   * only at a row's first tile; the tail's low t bytes of the line at %f.e */
  ixj__text_put(t, "  %%f.hr = sub nuw nsw i64 64, %%f.h\n  %%f.hx = shl i64 -1, %%f.hr\n  %%f.hz = icmp eq i64 %%f.h, 0\n"
                   "  %%f.hn = or i1 %%f.hz, %%f.mid\n  %%f.hm = select i1 %%f.hn, i64 0, i64 %%f.hx\n"
                   "  %%f.hl = sub nsw i64 %%f.h, 64\n  %%f.hs = getelementptr i8, ptr %%f.s, i64 %%f.hl\n"
                   "  %%f.hd = getelementptr i8, ptr %%f.d, i64 %%f.hl\n"
                   "  %%f.tb = shl i64 1, %%f.t\n  %%f.tm = add i64 %%f.tb, -1\n"
                   "  %%f.ts = getelementptr i8, ptr %%f.s, i64 %%f.e\n  %%f.td = getelementptr i8, ptr %%f.d, i64 %%f.e\n");
  const char *lines_from = "frow";
  for (int side = 0; side < 2 && p->staged == PLAN_STAGED_MASKED; side++) {
    const char *k = side ? "t" : "h";
    ixj__text_put(t, "  %%f.%sk = bitcast i64 %%f.%sm to <64 x i1>\n  %%f.%sv = load <64 x i8>, ptr %%f.%ss, align 1\n", k, k, k, k);
    ixj__text_put(t, "  call void @llvm.masked.store.v64i8.p0(<64 x i8> %%f.%sv, ptr %%f.%sd, i32 1, <64 x i1> %%f.%sk), %s\n", k, k,
                  k, md);
  }
  if (p->staged == PLAN_STAGED_BYTES) { /* the same bytes one at a time: the head's h (none where its mask is), the tail's t */
    ixj__text_put(t, "  %%f.hc = select i1 %%f.hn, i64 0, i64 %%f.h\n  br label %%fhead\n\n");
    for (int side = 0; side < 2; side++) {
      const char *k = side ? "t" : "h", *blk = side ? "ftail" : "fhead", *from = side ? "fhead" : "frow";
      const char *n = side ? "%f.t" : "%f.hc", *src = side ? "%f.ts" : "%f.s", *dst = side ? "%f.td" : "%f.d";
      const char *next = side ? "fbytes" : "ftail";
      /* the index through an empty asm: no memcpy call recognized in the loop */
      ixj__text_put(t,
                    "%s:\n  %%fb%s = phi i64 [ 0, %%%s ], [ %%fb%s.next, %%%s.body ]\n  %%fb%s.more = icmp ult i64 %%fb%s, %s\n"
                    "  br i1 %%fb%s.more, label %%%s.body, label %%%s\n\n"
                    "%s.body:\n  %%fb%s.o = call i64 asm \"\", \"=r,0\"(i64 %%fb%s) nounwind memory(none)\n"
                    "  %%fb%s.s = getelementptr i8, ptr %s, i64 %%fb%s.o\n  %%fb%s.v = load i8, ptr %%fb%s.s, align 1\n"
                    "  %%fb%s.d = getelementptr i8, ptr %s, i64 %%fb%s.o\n  store i8 %%fb%s.v, ptr %%fb%s.d, align 1, %s\n"
                    "  %%fb%s.next = add nuw nsw i64 %%fb%s.o, 1\n  br label %%%s\n\n",
                    blk, k, from, k, blk, k, k, n, k, blk, next, blk, k, k, k, src, k, k, k, k, dst, k, k, k, md, k, k, blk);
    }
    ixj__text_put(t, "fbytes:\n");
    lines_from = "fbytes";
  }
  ixj__text_put(t, "  %%f.any = icmp ult i64 %%f.h, %%f.e\n  br i1 %%f.any, label %%fline.body, label %%fline\n\n");
  ixj__text_put(t, "fline.body:\n  %%fk = phi i64 [ %%f.h, %%%s ], [ %%fk.next, %%fline.body ]\n"
                   "  %%fk.o = call i64 asm \"\", \"=r,0\"(i64 %%fk) nounwind memory(none)\n"
                   "  %%fl.s = getelementptr i8, ptr %%f.s, i64 %%fk.o\n  %%fl.v = load <8 x i64>, ptr %%fl.s, align 1\n"
                   "  %%fl.d = getelementptr i8, ptr %%f.d, i64 %%fk.o\n"
                   "  store <8 x i64> %%fl.v, ptr %%fl.d, align 64%s, %s\n"
                   "  %%fk.next = add nuw nsw i64 %%fk.o, 64\n  %%fk.more = icmp ult i64 %%fk.next, %%f.e\n"
                   "  br i1 %%fk.more, label %%fline.body, label %%fline\n\n",
                lines_from, nt, md);
  ixj__text_put(t, "fline:\n  %%fj.next = add nuw nsw i64 %%fj.o, 1\n  %%fj.more = icmp slt i64 %%fj.next, %s\n"
                   "  br i1 %%fj.more, label %%frow, label %%%s\n\n", rows, done);
  if (p->row_flush) ixj__text_put(t, "f.done:\n");
}

/* A partial line of a spanning tile (emit_span_flush), `n` bytes (0 < n <
 * 64, the values' names) from byte `from` of the buffer to byte `at` of the
 * tile's run: the high n bytes of the line that ends there (head) or the low
 * n bytes of the line that starts there (tail), by one byte-masked store
 * (PLAN_STAGED_MASKED), else byte by byte. Block `label`, on to `next`. */
static void emit_span_partial(text *t, const ixj_plan *p, const char *label, const char *from, const char *at, const char *n,
                              bool head, const char *next, const char *md) {
  ixj__text_put(t, "%s:\n", label);
  if (p->staged == PLAN_STAGED_MASKED) {
    if (head) /* the line [at + n - 64, at + n): its high n bytes */
      ixj__text_put(t, "  %%%s.o = sub nsw i64 %s, 64\n  %%%s.so = add nsw i64 %s, %%%s.o\n  %%%s.do = add nsw i64 %s, %%%s.o\n"
                       "  %%%s.r = sub nuw nsw i64 64, %s\n  %%%s.bits = shl i64 -1, %%%s.r\n",
                    label, n, label, from, label, label, at, label, label, n, label, label);
    else
      ixj__text_put(t, "  %%%s.so = add nsw i64 %s, 0\n  %%%s.do = add nsw i64 %s, 0\n  %%%s.one = shl i64 1, %s\n"
                       "  %%%s.bits = add i64 %%%s.one, -1\n",
                    label, from, label, at, label, n, label, label);
    ixj__text_put(t, "  %%%s.s = getelementptr i8, ptr %%stage, i64 %%%s.so\n  %%%s.d = getelementptr i8, ptr %%sp.d, i64 %%%s.do\n"
                     "  %%%s.k = bitcast i64 %%%s.bits to <64 x i1>\n  %%%s.v = load <64 x i8>, ptr %%%s.s, align 1\n"
                     "  call void @llvm.masked.store.v64i8.p0(<64 x i8> %%%s.v, ptr %%%s.d, i32 1, <64 x i1> %%%s.k), %s\n"
                     "  br label %%%s\n\n",
                  label, label, label, label, label, label, label, label, label, label, label, md, next);
    return;
  }
  /* byte by byte; the index through an empty asm: no memcpy call recognized in the loop */
  ixj__text_put(t, "  br label %%%s.body\n\n%s.body:\n  %%%s.i = phi i64 [ 0, %%%s ], [ %%%s.next, %%%s.body ]\n"
                   "  %%%s.io = call i64 asm \"\", \"=r,0\"(i64 %%%s.i) nounwind memory(none)\n"
                   "  %%%s.so = add nsw i64 %s, %%%s.io\n  %%%s.do = add nsw i64 %s, %%%s.io\n"
                   "  %%%s.s = getelementptr i8, ptr %%stage, i64 %%%s.so\n  %%%s.v = load i8, ptr %%%s.s, align 1\n"
                   "  %%%s.d = getelementptr i8, ptr %%sp.d, i64 %%%s.do\n  store i8 %%%s.v, ptr %%%s.d, align 1, %s\n"
                   "  %%%s.next = add nuw nsw i64 %%%s.io, 1\n  %%%s.more = icmp ult i64 %%%s.next, %s\n"
                   "  br i1 %%%s.more, label %%%s.body, label %%%s\n\n",
                label, label, label, label, label, label, label, label, label, from, label, label, at, label, label, label, label,
                label, label, label, label, label, md, label, label, label, label, n, label, label, next);
}

/* A staged tile spanning a (plan.span) is one contiguous run of destination,
 * %sp.n bytes from %sp.d (set up with the block extents, emit_span_setup),
 * the buffer holding one row of blocks: rows [bi, bi + V) of R bytes at
 * (row - bi) R, and before it the 64 bytes of the run before row bi. After
 * each row of blocks (in mrow.next, after b's step) the lines of the run
 * that are now complete go out, whole lines from %sp.done (the end of those
 * sent so far; the run's first h bytes, %sp.h, up to its first line, are the
 * high bytes of a line shared with the tile before) up to the last line
 * boundary before (bi + V) R: the first row of blocks stores that head, the
 * last the tail after the last whole line (shared with the tile after).
 * Then the 64 bytes before the next row of blocks move to the buffer's front
 * (the last row of blocks, moved back to end at the tile's edge, overlaps
 * the one before: its own rows, staged again, and any bytes not yet sent
 * are all in those 64 bytes and after). Until round 18 the buffer held the
 * whole tile, sent after its last block (30 KiB for NHWC's 240-byte rows at
 * T = 128); a C harness of that kernel ran at 0.6 of a streamed copy, the
 * same sends after each row of blocks from that buffer no faster, and from a
 * buffer of one row of blocks at the copy's speed (docs/cpu-path.md). */
static void emit_span_flush(const ixj_plan *p, text *t) {
  int R = stage_row_bytes(p), V = p->micro;
  char md[64], nt[32];
  flush_metadata(p, md, nt);
  ixj__text_put(t, "  %%rf.bv = add nuw nsw i64 %%bi.o, %d\n  %%rf.c = mul nuw nsw i64 %%rf.bv, %d\n"
                   "  %%rf.base = mul nuw nsw i64 %%bi.o, %d\n  %%rf.ch = sub nsw i64 %%rf.c, %%sp.h\n"
                   "  %%rf.w = and i64 %%rf.ch, -64\n  %%rf.e = add nsw i64 %%sp.h, %%rf.w\n"
                   "  %%rf.first = icmp eq i64 %%bi.o, 0\n  %%rf.hz = icmp ne i64 %%sp.h, 0\n  %%rf.hd = and i1 %%rf.first, %%rf.hz\n"
                   "  br i1 %%rf.hd, label %%rf.head, label %%rf.lines\n\n",
                V, R, R);
  emit_span_partial(t, p, "rf.head", "0", "0", "%sp.h", true, "rf.lines", md);
  ixj__text_put(t, "rf.lines:\n  %%rf.any = icmp slt i64 %%sp.done, %%rf.e\n  br i1 %%rf.any, label %%rf.line, label %%rf.end\n\n"
                   "rf.line:\n  %%rf.x = phi i64 [ %%sp.done, %%rf.lines ], [ %%rf.x.next, %%rf.line ]\n"
                   "  %%rf.xo = call i64 asm \"\", \"=r,0\"(i64 %%rf.x) nounwind memory(none)\n"
                   "  %%rf.so = sub nsw i64 %%rf.xo, %%rf.base\n  %%rf.s = getelementptr i8, ptr %%stage, i64 %%rf.so\n"
                   "  %%rf.v = load <8 x i64>, ptr %%rf.s, align 1\n  %%rf.d = getelementptr i8, ptr %%sp.d, i64 %%rf.xo\n"
                   "  store <8 x i64> %%rf.v, ptr %%rf.d, align 64%s, %s\n"
                   "  %%rf.x.next = add nuw nsw i64 %%rf.xo, 64\n  %%rf.more = icmp slt i64 %%rf.x.next, %%rf.e\n"
                   "  br i1 %%rf.more, label %%rf.line, label %%rf.end\n\n",
                nt, md);
  /* the tail: after the last row of blocks, the bytes past the last whole line */
  ixj__text_put(t, "rf.end:\n  %%rf.t = sub nsw i64 %%sp.n, %%rf.e\n  %%rf.tz = icmp sgt i64 %%rf.t, 0\n"
                   "  %%rf.last = xor i1 %%bcont.v, true\n  %%rf.tl = and i1 %%rf.last, %%rf.tz\n"
                   "  %%rf.te = sub nsw i64 %%rf.e, %%rf.base\n"
                   "  br i1 %%rf.tl, label %%rf.tail, label %%rf.carry\n\n");
  emit_span_partial(t, p, "rf.tail", "%rf.te", "%rf.e", "%rf.t", false, "rf.carry", md);
  ixj__text_put(t, "rf.carry:\n  %%rf.step = sub nsw i64 %%bi.next, %%bi.o\n  %%rf.sb = mul nsw i64 %%rf.step, %d\n"
                   "  %%rf.cs = getelementptr i8, ptr %%stage, i64 %%rf.sb\n  %%rf.cf = getelementptr i8, ptr %%rf.cs, i64 -64\n"
                   "  %%rf.cv = load <8 x i64>, ptr %%rf.cf, align 1\n  %%rf.ct = getelementptr i8, ptr %%stage, i64 -64\n"
                   "  store <8 x i64> %%rf.cv, ptr %%rf.ct, align 64\n",
                R);
}

/* emit_span_flush's values, with the block extents: the run's first byte
 * %sp.d (`corner`: the tile's destination offset, lowered before), its
 * bytes %sp.n, the bytes up to its first line %sp.h (at most the run). */
static void emit_span_setup(const ixj_plan *p, text *t, const char *scalar, const char *corner) {
  ixj__text_put(t, "  %%sp.d = getelementptr %s, ptr %%bp.0, i64 %s\n  %%sp.n = mul nuw nsw i64 %%vb, %d\n"
                   "  %%sp.a = ptrtoint ptr %%sp.d to i64\n  %%sp.neg = sub i64 0, %%sp.a\n  %%sp.h0 = and i64 %%sp.neg, 63\n"
                   "  %%sp.hin = icmp ult i64 %%sp.h0, %%sp.n\n  %%sp.h = select i1 %%sp.hin, i64 %%sp.h0, i64 %%sp.n\n",
                scalar, corner, stage_row_bytes(p));
}

/* A gathered tile (plan.gather): before its blocks, the tile's source rows
 * [0, %va) (a at a0 + %gi; staged, [0, %va.x): the halo's too), T elements
 * each from b0 (one or two whole lines: T x elem_size is 64 or 128 bytes),
 * are copied to %gbuf row after row, T elements a row; the blocks then load
 * their 16-byte pieces from there (emit_row_concat). Where a
 * tile's source rows crowd one L1 set, a stacked block group's four 16-byte
 * loads of each line otherwise found it evicted by the other rows before the
 * last piece, and refetched it from L2 (the reason such tiles took whole
 * 32-byte blocks instead, whose five shuffle stages of 32-byte vectors cost
 * more per byte than the stacked four of 64-byte ones). A tile whose b is
 * cut short (the last along b) copies its block columns' bytes only, by a
 * masked load, so that nothing past the source's end is read. Each row is
 * prefetched a tile further along b, as the blocks did. */
/* PLAN_PREFETCH_BLOCK_ROWS (gen/plan.c, finish): the gathered tile at (a_in,
 * b_in) of its block of tiles (super_a x super_b tiles, b fastest) prefetches
 * the block's next row of tiles, Ta rows of L = super_b x T x elem_size / 64
 * lines each, line after line: its loads k = (b_in x Ta + row) x Lt + line
 * (Lt = T x elem_size / 64, its lines of each row) take that run's line k
 * (row k / L, line k % L), so that the block's super_b tiles together
 * prefetch all of it, each row's L lines in turn. The block's last row of
 * tiles prefetches the first of the next block along b (the walk's next).
 * Where that reaches past b's end, or past the source, is harmless: a
 * prefetch never faults. A staged tile gathers its halo's rows too (the next
 * tile's first, up to a line of them): their loads' k run on, the block's
 * last tile's past the run into the rows after it. Returns the source offset
 * of line k (k < (super_b x Ta + halo) x Lt, an s64 value). */
static int block_rows_line(emitter *e, int os, int b0, int a0, int k, int a_in, int b_in) {
  const ixj_plan *p = e->p;
  lower *lw = &e->lw;
  iprog *g = &lw->prog;
  const plan_operand *src = &p->operand[1];
  int64_t ta = ixj__plan_tile_edge_a(p), lines = (int64_t)p->super_b * p->tile * (int64_t)p->elem_size / 64;
  int64_t tile_lines = p->tile * (int64_t)p->elem_size / 64;
  int in_a = ixj__iprog_emit(g, IOP_CAST, IPROG_S64, 0, a_in, -1, -1, 0);
  int in_b = ixj__iprog_emit(g, IOP_CAST, IPROG_S64, 0, b_in, -1, -1, 0);
  /* the block's corner along b, and its next row of tiles' first row along a */
  int b_step = ixj__iprog_emit(g, IOP_MUL, IPROG_S64, IPROG_NSW, in_b, ixj__iprog_const_s64(g, p->tile), -1, 0);
  int b_block = ixj__iprog_emit(g, IOP_SUB, IPROG_S64, IPROG_NSW, b0, b_step, -1, 0);
  int last = ixj__iprog_emit(g, IOP_EQ, IPROG_I1, 0, in_a, ixj__iprog_const_s64(g, p->super_a - 1), -1, 0);
  int a_next = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, a0, ixj__iprog_const_s64(g, ta), -1, 0);
  int a_first = ixj__iprog_emit(g, IOP_SUB, IPROG_S64, IPROG_NSW, a0, ixj__iprog_const_s64(g, (p->super_a - 1) * ta), -1, 0);
  int b_next = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, b_block,
                               ixj__iprog_const_s64(g, (int64_t)p->super_b * p->tile), -1, 0);
  int row0 = ixj__iprog_emit(g, IOP_SELECT, IPROG_S64, 0, last, a_first, a_next, 0);
  int col0 = ixj__iprog_emit(g, IOP_SELECT, IPROG_S64, 0, last, b_next, b_block, 0);
  int kl[2];
  int64_t halo = p->staged ? 64 / (int64_t)p->elem_size : 0; /* a staged tile's halo rows: k runs on (below) */
  ixj__lower_unflatten(lw, ixj__iprog_emit(g, IOP_CAST, lw->index, 0, k, -1, -1, 0), 2, (const int64_t[]){ta, lines},
                       (uint64_t)((p->super_b * ta + halo) * tile_lines - 1), kl);
  int row = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, row0, ixj__iprog_emit(g, IOP_CAST, IPROG_S64, 0, kl[0], -1, -1, 0), -1, 0);
  int line = ixj__iprog_emit(g, IOP_MUL, IPROG_S64, IPROG_NSW, ixj__iprog_emit(g, IOP_CAST, IPROG_S64, 0, kl[1], -1, -1, 0),
                             ixj__iprog_const_s64(g, 64 / (int64_t)p->elem_size), -1, 0);
  int col = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, col0, line, -1, 0);
  return tile_offset(e, tile_offset(e, os, col, src, tile_b(p)), row, src, tile_a(p));
}

/* load k's number in the run of block_rows_line: (b_in x Ta + row) x Lt + line */
static int block_rows_index(emitter *e, int b_in, int row, int line) {
  iprog *g = &e->lw.prog;
  const ixj_plan *p = e->p;
  int64_t ta = ixj__plan_tile_edge_a(p), tile_lines = p->tile * (int64_t)p->elem_size / 64;
  int in_b = ixj__iprog_emit(g, IOP_CAST, IPROG_S64, 0, b_in, -1, -1, 0);
  int r = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW,
                          ixj__iprog_emit(g, IOP_MUL, IPROG_S64, IPROG_NSW, in_b, ixj__iprog_const_s64(g, ta), -1, 0), row, -1, 0);
  return ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW,
                         ixj__iprog_emit(g, IOP_MUL, IPROG_S64, IPROG_NSW, r, ixj__iprog_const_s64(g, tile_lines), -1, 0), line, -1, 0);
}

/* a_in, b_in: the tile's place in its block of tiles (PLAN_PREFETCH_BLOCK_ROWS), else -1 */
static void emit_gather(emitter *e, text *t, int os, int b0, int a0, bool partial, int a_in, int b_in) {
  const ixj_plan *p = e->p;
  iprog *g = &e->lw.prog;
  const plan_operand *src = &p->operand[1];
  int gi = input(e, IPROG_S64, "%%gi.o", 0);
  int a = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, a0, gi, -1, 0);
  int at = tile_offset(e, tile_offset(e, os, b0, src, tile_b(p)), a, src, tile_a(p));
  bool block_rows = p->prefetch == PLAN_PREFETCH_BLOCK_ROWS;
  int pf[2] = {-1, -1}; /* a row is one or two lines (the assertion before emit_gather) */
  for (int q = 0; block_rows && q < p->tile * (int)p->elem_size / 64; q++)
    pf[q] = block_rows_line(e, os, b0, a0, block_rows_index(e, b_in, gi, ixj__iprog_const_s64(g, q)), a_in, b_in);
  ixj__text_put(t, "; a gathered tile (plan.gather) first copies its source rows to a buffer on\n"
                   "; the stack (emit_gather in gen/emit_llvm.c), where its blocks then read\n"
                   "gather:\n  %%gi = phi i64 [ 0, %%tile.body ], [ %%gi.next, %%gather ]\n"
                   "  %%gi.o = call i64 asm \"\", \"=r,0\"(i64 %%gi) nounwind memory(none)\n");
  flush(e, t);
  name s = ref(e, at);
  int row = p->tile * (int)p->elem_size, locality = tile_prefetch_locality(p);
  for (int q = 0; block_rows && q < row / 64; q++) {
    name f = ref(e, pf[q]);
    ixj__text_put(t, "  %%g.pf%d = getelementptr %s, ptr %%bp.1, i64 %s\n  call void @llvm.prefetch.p0(ptr %%g.pf%d, i32 0, i32 %d, i32 1)\n",
                  q, e->scalar, f.s, q, locality);
  }
  ixj__text_put(t, "  %%g.src = getelementptr %s, ptr %%bp.1, i64 %s\n  %%g.row = mul nuw nsw i64 %%gi.o, %d\n"
                   "  %%g.dst = getelementptr i8, ptr %%gbuf, i64 %%g.row\n", e->scalar, s.s, row);
  if (partial) /* the bytes of the block columns, %vb elements */
    ixj__text_put(t, "  %%g.bytes = mul nuw nsw i64 %%vb, %zu\n", p->elem_size);
  for (int q = 0; q < row / 64; q++) {
    ixj__text_put(t, "  %%g.s%d = getelementptr i8, ptr %%g.src, i64 %d\n  %%g.d%d = getelementptr i8, ptr %%g.dst, i64 %d\n", q,
                  q * 64, q, q * 64);
    if (partial) { /* the bytes left from piece q's start, as a mask of up to 64 */
      ixj__text_put(t, "  %%g.n%d = sub nsw i64 %%g.bytes, %d\n  %%g.some%d = icmp sgt i64 %%g.n%d, 0\n", q, q * 64, q, q);
      ixj__text_put(t, "  %%g.all%d = icmp sge i64 %%g.n%d, 64\n  %%g.c%d = and i64 %%g.n%d, 63\n", q, q, q, q);
      ixj__text_put(t, "  %%g.one%d = shl i64 1, %%g.c%d\n  %%g.low%d = sub i64 %%g.one%d, 1\n", q, q, q, q);
      ixj__text_put(t, "  %%g.part%d = select i1 %%g.some%d, i64 %%g.low%d, i64 0\n", q, q, q);
      ixj__text_put(t, "  %%g.bits%d = select i1 %%g.all%d, i64 -1, i64 %%g.part%d\n", q, q, q);
      ixj__text_put(t, "  %%g.m%d = bitcast i64 %%g.bits%d to <64 x i1>\n", q, q);
      ixj__text_put(t,
                    "  %%g.v%d = call <64 x i8> @llvm.masked.load.v64i8.p0(ptr %%g.s%d, i32 1, <64 x i1> %%g.m%d, "
                    "<64 x i8> zeroinitializer), !alias.scope !%d, !noalias !%d\n",
                    q, q, q, MD_SRC_LIST, MD_DST_LIST);
    } else {
      ixj__text_put(t, "  %%g.v%d = load <64 x i8>, ptr %%g.s%d, align 1, !alias.scope !%d, !noalias !%d\n", q, q, MD_SRC_LIST,
                    MD_DST_LIST);
    }
    if (p->prefetch == PLAN_PREFETCH_NEAR || p->prefetch == PLAN_PREFETCH_NEAR_L2)
      ixj__text_put(t, "  %%g.f%d = getelementptr %s, ptr %%g.s%d, i64 %d\n  call void @llvm.prefetch.p0(ptr %%g.f%d, i32 0, i32 %d, i32 1)\n",
                    q, e->scalar, q, tile_prefetch_ahead(p), q, locality);
    ixj__text_put(t, "  store <64 x i8> %%g.v%d, ptr %%g.d%d, align 64\n", q, q);
  }
  ixj__text_put(t, "  %%gi.next = add nuw nsw i64 %%gi, 1\n  %%gcont = icmp slt i64 %%gi.next, %s\n"
                   "  br i1 %%gcont, label %%gather, label %%mrow, !llvm.loop !%d\n\n", p->staged ? "%va.x" : "%va", MD_BLOCK_COLS);
}

static ixj_status emit_tiled(emitter *e, const char *kname, const char *signature, char **out, ixj_error *err) {
  const ixj_plan *p = e->p;
  lower *lw = &e->lw;
  iprog *g = &lw->prog;
  int r = p->rank, qb = r - 2, qa = r - 1, T = p->tile, Ta = ixj__plan_tile_edge_a(p);
  text part[TL_PARTS] = {{0}};
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  IXJ_ASSERT(err, dst->num_tail == 0 && src->num_tail == 0); /* tiles are planned for single LMADs only */
  emit_setup_pointers(e, &part[TL_SETUP]);

  /* tile index -> (outer digits..., ta, tb); the tile's offsets and bounds */
  int outer = ixj__plan_tile_outer_dims(p);
  int64_t tshape[IXJ_MAX_RANK], extent[2] = {ixj__plan_tile_b_extent(p), ixj__plan_tile_a_extent(p)};
  int digit[IXJ_MAX_RANK];
  memcpy(tshape, p->shape, sizeof tshape);
  /* b tiles (along the source's unit-stride dim) vary fastest: consecutive
   * tiles read on along the same source rows, which the hardware prefetchers
   * follow, while the destination's streamed lines need no prefetch. Measured
   * (1 thread, 64 MiB, interleaved): 1.5x (2- and 4-byte elements) to 1.7x
   * (8-byte) faster than a tiles fastest, which read each source page in
   * 256-byte pieces a megabyte apart. */
  int kb = outer + 1, ka = outer;
  tshape[kb] = (extent[0] + T - 1) / T;
  tshape[ka] = (extent[1] + Ta - 1) / Ta;
  int tix = ixj__iprog_emit(g, IOP_CAST, lw->index, 0, input(e, IPROG_U64, "%%tix", 0), -1, -1, 0);
  /* blocks of tiles that end past the last tile (plan.c, super_width): the
   * tiles there are empty, their end clamped to their corner below */
  bool past = p->super_a && (tshape[ka] % p->super_a || tshape[kb] % p->super_b);
  int a_in = -1, b_in = -1; /* the tile's place in its block of tiles */
  if (p->super_a) { /* (outer..., block a, block b, a in block, b in block): tile = block * width + in block */
    IXJ_ASSERT(err, outer + 4 <= IXJ_MAX_RANK + 2 && !(past && p->staged));
    int64_t bshape[IXJ_MAX_RANK + 2];
    int bdigit[IXJ_MAX_RANK + 2], width[2] = {p->super_a, p->super_b};
    memcpy(bshape, tshape, (size_t)outer * sizeof *bshape);
    bshape[outer] = (tshape[ka] + p->super_a - 1) / p->super_a;
    bshape[outer + 1] = (tshape[kb] + p->super_b - 1) / p->super_b;
    bshape[outer + 2] = p->super_a;
    bshape[outer + 3] = p->super_b;
    ixj__lower_unflatten(lw, tix, outer + 4, bshape, p->work_units - 1, bdigit);
    memcpy(digit, bdigit, (size_t)outer * sizeof *digit);
    a_in = bdigit[outer + 2];
    b_in = bdigit[outer + 3];
    for (int k = 0; k < 2; k++) {
      int blk = ixj__iprog_emit(g, IOP_MUL, lw->index, IPROG_NUW, bdigit[outer + k], ixj__iprog_const(g, lw->index, width[k]), -1, 0);
      digit[k ? kb : ka] = ixj__iprog_emit(g, IOP_ADD, lw->index, IPROG_NUW, blk, bdigit[outer + 2 + k], -1, 0);
    }
  } else {
    ixj__lower_unflatten(lw, tix, outer + 2, tshape, p->work_units - 1, digit);
  }
  int od = ixj__lower_offset(lw, ixj__iprog_const_s64(g, dst->head_offset), outer, digit, dst->stride, dst->rotate, p->shape);
  int os = ixj__lower_offset(lw, ixj__iprog_const_s64(g, src->head_offset), outer, digit, src->stride, src->rotate, p->shape);
  int corner[2], end[2];
  for (int k = 0; k < 2; k++) {
    int t0 = ixj__iprog_emit(g, IOP_CAST, IPROG_S64, 0, digit[k ? ka : kb], -1, -1, 0);
    int64_t edge = k ? Ta : T;
    corner[k] = ixj__iprog_emit(g, IOP_MUL, IPROG_S64, IPROG_NUW | IPROG_NSW, t0, ixj__iprog_const_s64(g, edge), -1, 0);
    int t1 = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NUW | IPROG_NSW, corner[k], ixj__iprog_const_s64(g, edge), -1, 0);
    int full = ixj__iprog_emit(g, IOP_ULT, IPROG_I1, 0, t1, ixj__iprog_const_s64(g, extent[k]), -1, 0);
    end[k] = ixj__iprog_emit(g, IOP_SELECT, IPROG_S64, 0, full, t1, ixj__iprog_const_s64(g, extent[k]), 0);
    if (past) { /* a tile past the end: no rows, no columns (its end is its corner) */
      int in = ixj__iprog_emit(g, IOP_ULT, IPROG_I1, 0, corner[k], ixj__iprog_const_s64(g, extent[k]), -1, 0);
      end[k] = ixj__iprog_emit(g, IOP_SELECT, IPROG_S64, 0, in, end[k], corner[k], 0);
    }
  }
  name span_corner = {""}; /* a spanning tile's first destination element (emit_span_setup) */
  if (p->staged && p->span) span_corner = ref(e, tile_offset(e, tile_offset(e, od, corner[0], dst, tile_b(p)), corner[1], dst, tile_a(p)));
  flush(e, &part[TL_TILE]);
  IXJ_ASSERT(err, !p->gather || (p->stack && ixj__plan_block_group(p) > 1 && dst->stride[qa] == 1 && !p->zip && !p->unzip && !p->b_inner &&
                                 p->tile * (int)p->elem_size % 64 == 0 && p->tile * (int)p->elem_size <= 128));
  bool gather_masked = p->gather && extent[0] % T != 0; /* the last tile along b is cut short */
  IXJ_ASSERT(err, p->prefetch != PLAN_PREFETCH_BLOCK_ROWS || (p->gather && p->super_a));
  if (p->gather) emit_gather(e, &part[TL_GATHER], os, corner[0], corner[1], gather_masked, a_in, b_in);

  /* the block at (b0 + bi, a0 + ai): its V source rows and V destination rows */
  int bi = input(e, IPROG_S64, "%%bi.o", 0), ai = input(e, IPROG_S64, "%%ai.o", 0), v = p->micro;
  int bb = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, corner[0], bi, -1, 0);
  int ab = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, corner[1], ai, -1, 0);
  /* gathered: row ai of the buffer (T elements a row), element bi */
  int sbase = p->gather ? ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, bi,
                                          ixj__iprog_emit(g, IOP_MUL, IPROG_S64, IPROG_NSW, ai, ixj__iprog_const_s64(g, T), -1, 0), -1, 0)
                        : tile_offset(e, tile_offset(e, os, bb, src, tile_b(p)), ab, src, tile_a(p));
  int dbase = tile_offset(e, tile_offset(e, od, bb, dst, tile_b(p)), ab, dst, tile_a(p));
  int group = ixj__plan_block_group(p), src_row[128], dst_row[128];
  bool short_rows = ixj__plan_short_span(p);
  IXJ_ASSERT(err, v >= 2 && v <= 64 && (v & (v - 1)) == 0 && T % (v * group) == 0 && group <= 32);
  IXJ_ASSERT(err, src->stride[qb] == 1 && (!p->b_inner || (v % p->b_inner == 0 && src->stride[qb - 1] == p->b_inner)));
  IXJ_ASSERT(err, !p->a_inner || (!p->b_inner && !p->zip && v % p->a_inner == 0 && dst->stride[r - 3] == p->a_inner &&
                                  dst->stride[qa] == 1));
  IXJ_ASSERT(err, !p->zip || (!p->b_inner && p->zip == p->shape[qa] && p->zip < 8 && dst->stride[qb] == p->zip &&
                              dst->stride[qa] == 1 && T >= p->zip));
  IXJ_ASSERT(err, !p->unzip || (!p->b_inner && !p->a_inner && !p->zip && p->unzip == p->shape[qb] && p->unzip < 8 &&
                                src->stride[qa] == p->unzip && dst->stride[qa] == 1 && T >= p->unzip));
  for (int k = 0; k < p->unzip; k++) /* an unzip: destination row b = k */
    dst_row[k] = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, dbase,
                                 ixj__iprog_const_s64(g, (int64_t)k * dst->stride[qb]), -1, 0);
  for (int k = 0; k < (p->zip ? p->zip : 0); k++) /* a zip: source row a = k */
    src_row[k] = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, sbase,
                                 ixj__iprog_const_s64(g, (int64_t)k * src->stride[qa]), -1, 0);
  for (int k = 0; k < (p->zip || p->unzip ? 0 : group); k++)
    for (int i = 0; i < v; i++) { /* block k: columns a + k v ...; its row i, its destination row i */
      /* short rows: the columns past a read its last row again (their lanes
       * are staged past the row's end, where the next row's store lands) */
      int col = short_rows && k * v + i >= extent[1] ? (int)extent[1] - 1 : k * v + i;
      int64_t so = p->gather ? (int64_t)col * T : tile_step(src, col, tile_a(p));
      int64_t dso = tile_step(dst, i, tile_b(p)) + tile_step(dst, k * v, tile_a(p));
      src_row[k * v + i] = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, sbase, ixj__iprog_const_s64(g, so), -1, 0);
      dst_row[k * v + i] = ixj__iprog_emit(g, IOP_ADD, IPROG_S64, IPROG_NSW, dbase, ixj__iprog_const_s64(g, dso), -1, 0);
    }
  int pf_row[128];
  bool sequential = p->prefetch == PLAN_PREFETCH_SEQUENTIAL || p->prefetch == PLAN_PREFETCH_SEQUENTIAL_L2;
  IXJ_ASSERT(err, !sequential || (!p->zip && !p->unzip && !p->stack && !p->staged && !p->a_inner && !p->b_inner));
  if (sequential) emit_sequential_prefetch_rows(e, os, corner[1], bb, ai, group * v, pf_row);
  flush(e, &part[TL_MICRO]);
  /* a destination with small gaps between its row elements stores each row
   * by masked stores; wider gaps take the element loops only (the tiles still
   * read the source along its unit dim) */
  bool vectors = p->zip || p->unzip || dst->stride[qa] == 1 ||
                 (dst->stride[qa] > 1 && dst->stride[qa] <= MAX_MASKED_PITCH && p->vector_bytes == 64);
  bool shifted = vectors && staged_edges(p);
  char *declare = e->declare;
  if (vectors && dst->stride[qa] > 1) {
    int unit = p->elem_size > 8 ? 8 : (int)p->elem_size, lanes = v * ((int)p->elem_size / unit);
    snprintf(declare, sizeof e->declare, "declare void @llvm.masked.store.v%di%d.p0(<%d x i%d>, ptr, i32, <%d x i1>)", lanes,
             unit * 8, lanes, unit * 8, lanes);
  }
  if (vectors && tile_prefetch(p)) {
    size_t used = strlen(declare);
    snprintf(declare + used, sizeof e->declare - used, "%sdeclare void @llvm.prefetch.p0(ptr, i32, i32, i32)", used ? "\n" : "");
  }
  if (vectors && p->gather) {
    IXJ_ASSERT(err, v * group * (int)p->elem_size <= 64 && ixj__plan_gather_bytes(p) <= PLAN_GATHER_MAX_BYTES);
    /* a staged tile's blocks run on into the halo (v x group rows, at most a line's) */
    ixj__text_put(&part[TL_SETUP], "  %%gbuf = alloca [%lld x i8], align 64\n", (long long)ixj__plan_gather_bytes(p));
    size_t used = strlen(declare);
    if (gather_masked)
      snprintf(declare + used, sizeof e->declare - used,
               "%sdeclare <64 x i8> @llvm.masked.load.v64i8.p0(ptr, i32 immarg, <64 x i1>, <64 x i8>)", used ? "\n" : "");
  }
  if (vectors && p->unzip) emit_micro_unzip(e, &part[TL_MICRO], sbase, dst_row);
  else if (vectors && p->zip) emit_micro_zip(e, &part[TL_MICRO], src_row, dbase);
  else if (vectors) emit_micro_transpose(e, &part[TL_MICRO], group, src_row, dst_row, sequential ? pf_row : NULL);
  if (vectors && p->staged && (p->span || p->row_flush)) /* one row of blocks, 64 bytes before and after it, from a page's start */
    ixj__text_put(&part[TL_SETUP],
                  "  %%stage.a = alloca [%d x i8], align 64\n  %%stage.i = ptrtoint ptr %%stage.a to i64\n"
                  "  %%stage.t = sub i64 0, %%stage.i\n  %%stage.k = and i64 %%stage.t, 4095\n"
                  "  %%stage.o = add nuw nsw i64 %%stage.k, 64\n  %%stage = getelementptr i8, ptr %%stage.a, i64 %%stage.o\n",
                  span_stage_bytes(p) + 4096);
  else if (vectors && p->staged)
    ixj__text_put(&part[TL_SETUP], "  %%stage.a = alloca [%d x i8], align 64\n  %%stage = getelementptr i8, ptr %%stage.a, i64 64\n",
                  stage_bytes(p));
  if (vectors && p->staged) {
    size_t used = strlen(declare);
    if (p->staged == PLAN_STAGED_MASKED)
      snprintf(declare + used, sizeof e->declare - used,
               "%sdeclare void @llvm.masked.store.v64i8.p0(<64 x i8>, ptr, i32 immarg, <64 x i1>)", used ? "\n" : "");
    IXJ_ASSERT(err, v * group * (int)p->elem_size == 64);
    if (p->span) {
      emit_span_flush(p, &part[TL_ROW_FLUSH]);
      emit_span_setup(p, &part[TL_SPAN_SETUP], e->scalar, span_corner.s);
    } else {
      emit_stage_flush(e, &part[p->row_flush ? TL_ROW_FLUSH : TL_FLUSH], od, corner[0], corner[1]);
    }
  }
  /* a staged tile's blocks run on into the halo where the next tile has blocks */
  char halo[384];
  name a0n = ref(e, corner[1]);
  snprintf(halo, sizeof halo,
           "  %%f.rest = sub nsw i64 %lld, %s\n  %%f.halo = icmp sge i64 %%f.rest, %d\n"
           "  %%va.x = select i1 %%f.halo, i64 %d, i64 %%va\n  %%f.mid = icmp ne i64 %s, 0\n  %%f.inner = and i1 %%f.mid, %%f.halo\n",
           (long long)extent[1], a0n.s, Ta + v * group, Ta + v * group, a0n.s);

  /* the edges: a row b, then each element a of it */
  int b = input(e, IPROG_S64, "%%b.o", 0), a = input(e, IPROG_S64, "%%a.o", 0);
  int odb = tile_offset(e, od, b, dst, tile_b(p)), osb = tile_offset(e, os, b, src, tile_b(p));
  flush(e, &part[TL_BROW]);
  int dsti = tile_offset(e, odb, a, dst, tile_a(p));
  int srci = tile_offset(e, osb, a, src, tile_a(p));
  flush(e, &part[TL_ACOL]);
  emit_move(e, &part[TL_ACOL], dsti, 1, srci);

  ixj_status st = ixj__lower_status(&e->lw, err);
  char *md = NULL;
  if (st == IXJ_OK && !e->part) st = fill_metadata(&md, err);
  if (st == IXJ_OK && any_oom(part, TL_PARTS)) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory while emitting IR");
  if (st == IXJ_OK) {
    char tile_s[16], micro_s[16], step_s[16], block_cols[16];
    snprintf(tile_s, sizeof tile_s, "%d", T);
    snprintf(block_cols, sizeof block_cols, "%d", MD_BLOCK_COLS);
    snprintf(micro_s, sizeof micro_s, "%d", p->unzip ? p->unzip : v); /* b's step: an unzip's b is one block */
    snprintf(step_s, sizeof step_s, "%d", p->zip ? p->zip : v * group);
    name b0 = ref(e, corner[0]), a0 = ref(e, corner[1]), bend = ref(e, end[0]), aend = ref(e, end[1]);
    /* 512-bit vectors stay whole even where LLVM's tuning prefers 256 bits */
    const char *attributes = p->vector_bytes == 64 ? "\"min-legal-vector-width\"=\"512\"" : "";
    /* a zip's a is one block wide (the tile holds all k of it); else whole
     * groups of blocks (a power of two) */
    char va_s[48], vb_s[48], a_next[320], b_next[320];
    snprintf(va_s, sizeof va_s, p->zip ? "add i64 %%na, 0" : "and i64 %%na, -%s", step_s);
    snprintf(vb_s, sizeof vb_s, p->unzip ? "add i64 %%nb, 0" : "and i64 %%nb, -%s", micro_s);
    /* a staged tile without fused dims covers its edges with blocks too: the
     * last block of a row or column of blocks is moved back to end at the
     * tile's edge (it overlaps the one before, whose elements it stages
     * again), so that only tiles narrower than a block take the element loops */
    /* Blocks cover every tile whole when both extents and both tile edges
     * are whole blocks along b and whole groups along a (not a zip or unzip,
     * whose blocks are other shapes, nor staged, whose last blocks move
     * back): then no tile has edges, and the edge loops are left unreachable,
     * which spares LLVM's unroller and InstCombine the work of proving them
     * empty (a 4096 x 4096 float transpose's passes 3.7 -> 2.8 ms). */
    bool whole = vectors && !shifted && !p->staged && !p->zip && !p->unzip && extent[0] % v == 0 &&
                 extent[1] % ((int64_t)v * group) == 0 && T % v == 0 && Ta % (v * group) == 0;
    const char *no_blocks = whole ? "tile.next" : "edges";
    char extents[320];
    if (shifted && short_rows) /* one block along a wider than the row, where b has one; else a for the edges */
      snprintf(extents, sizeof extents,
               "  %%vb.ok = icmp sge i64 %%nb, %s\n  %%vb.all = select i1 %%vb.ok, i64 %%nb, i64 0\n"
               "  %%va.all = select i1 %%vb.ok, i64 %s, i64 %%na",
               micro_s, step_s);
    else if (shifted)
      snprintf(extents, sizeof extents,
               "  %%vb.ok = icmp sge i64 %%nb, %s\n  %%vb.all = select i1 %%vb.ok, i64 %%nb, i64 0\n"
               "  %%va.ok = icmp sge i64 %%na, %s\n  %%va.all = select i1 %%va.ok, i64 %%na, i64 0",
               micro_s, step_s);
    else
      snprintf(extents, sizeof extents, "  %%vb.all = %s\n  %%va.all = %s", vb_s, va_s);
    for (int k = 0; k < 2; k++) {
      const char *c = k ? "b" : "a", *last = k ? "%vb" : "%va.x", *step = k ? micro_s : step_s;
      char *out_s = k ? b_next : a_next;
      if (shifted)
        snprintf(out_s, 320,
                 "  %%%si.step = add nuw nsw i64 %%%si, %s\n  %%%si.last = sub nsw i64 %s, %s\n"
                 "  %%%si.in = icmp ult i64 %%%si.step, %%%si.last\n"
                 "  %%%si.next = select i1 %%%si.in, i64 %%%si.step, i64 %%%si.last\n  %%%scont.v = icmp ult i64 %%%si, %%%si.last",
                 c, c, step, c, last, step, c, c, c, c, c, c, c, c, c, c);
      else
        snprintf(out_s, 320, "  %%%si.next = add nuw nsw i64 %%%si, %s\n  %%%scont.v = icmp slt i64 %%%si.next, %s", c, c, step, c,
                 c, k ? "%vb" : p->staged && vectors ? "%va.x" : "%va");
    }
    bool span_flush = vectors && p->staged && p->span; /* emit_span_flush */
    /* a span's or a row_flush tile's rows go out after each row of blocks, in mrow.next */
    bool flush_per_row = span_flush || (vectors && p->staged && p->row_flush);
    char mrow_phis[128];
    snprintf(mrow_phis, sizeof mrow_phis, "  %%sp.done = phi i64 [ %%sp.h, %%%s ], [ %%rf.e, %%rf.carry ]\n",
             vectors && p->gather ? "gather" : "tile.body");
    const char *kv[] = {"TILE", tile_s, "MICRO", micro_s, "STEP_A", step_s, "VECTORS", vectors ? "true" : "false",
                        "DECLARATIONS", e->part ? "" : declare,
                        "ATTRIBUTES", attributes, "SIGNATURE", signature,
                        "NAME", kname, "SETUP", body(&part[TL_SETUP]), "MICRO_BLOCK", body(&part[TL_MICRO]),
                        "TILE_SETUP", body(&part[TL_TILE]), "B0", b0.s, "A0", a0.s, "BEND", bend.s, "AEND", aend.s,
                        "BROW", body(&part[TL_BROW]), "FLUSH", body(&part[TL_FLUSH]),
                        "BLOCKS_DONE", flush_per_row ? "edges" : vectors && p->staged ? "flush" : no_blocks, "NO_BLOCKS", no_blocks,
                        "HALO", vectors && p->staged ? halo : "", "A_NEXT", a_next, "B_NEXT", b_next,
                        "SPAN_SETUP", body(&part[TL_SPAN_SETUP]), "ROW_FLUSH", body(&part[TL_ROW_FLUSH]),
                        "MROW_LATCH", span_flush ? "rf.carry" : flush_per_row ? "f.done" : "mrow.next",
                        "MROW_PHIS", span_flush ? mrow_phis : "",
                        "BLOCK_EXTENTS", extents, "ACOL", body(&part[TL_ACOL]), "EXIT", exit_code(p),
                        "METADATA", md ? md : "", "LINKAGE", e->part ? "internal " : "",
                        "MD_BLOCK_COLS", block_cols, "MCOL_LATCH", vectors && p->row_flush == PLAN_FLUSH_BLOCKS ? "bl.done" : "mcol", "GATHER", body(&part[TL_GATHER]),
                        "BLOCKS_START", vectors && p->gather ? "gather" : "mrow", "MROW_FROM", vectors && p->gather ? "gather" : "tile.body"};
    st = ixj__template_fill(ixj__template_tiled, kv, (int)(sizeof kv / sizeof *kv / 2), out, err);
  }
  free(md);
  for (int k = 0; k < TL_PARTS; k++) free(part[k].buf);
  return st;
}

/* One kernel function; part: internal, without the module's metadata and
 * declarations (*declare gets the one it needs, or ""). */
static ixj_status emit_kernel(const ixj_plan *p, const char *kname, const char *signature, bool part, char *declare,
                              char **out, ixj_error *err) {
  *out = NULL;
  if (p->strategy == PLAN_EMPTY || p->strategy == PLAN_MEMCPY)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "a %s plan has no kernel", ixj__plan_strategy_name(p->strategy));
  IXJ_ASSERT(err, p->rank >= 1 && p->rank <= IXJ_MAX_RANK && (p->strategy != PLAN_TILED || p->rank >= 2));
  emitter *e = calloc(1, sizeof *e);
  if (!e) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  e->p = p;
  e->part = part;
  ixj__lower_init(&e->lw, p, LOWER_DIV_MAGIC);
  e->it = e->lw.index == IPROG_U32 ? "i32" : "i64";
  snprintf(e->scalar, sizeof e->scalar, "i%zu", p->elem_size * 8);
  if (p->vector_elems > 1) snprintf(e->elem, sizeof e->elem, "<%d x %s>", store_lanes(p), e->scalar);
  else snprintf(e->elem, sizeof e->elem, "%s", e->scalar);
  ixj_status st = p->strategy == PLAN_TILED ? emit_tiled(e, kname, signature, out, err)
                                            : emit_elementwise(e, kname, signature, out, err);
  if (declare) snprintf(declare, sizeof e->declare, "%s", e->declare);
  ixj__lower_dispose(&e->lw);
  free(e);
  return st;
}

/* ---- cat as parts ----------------------------------------------------------- */

/* Part k's share of [begin, end) (k: a part's number, or "r" for a table
 * row): %b.k and %e.k, clipped to its virtual units [lo, hi), and %any.k;
 * then (emit_part_span) %x.k and %y.k, its own first and last-plus-one work
 * unit: virtual units scaled back by `shift`, rounded up, clipped to `work`.
 * The bounds are IR operands: constants, or a table row's loaded fields. */
static void emit_part_units(text *t, const char *k, const char *lo, const char *hi) {
  ixj__text_put(t, "  %%lo.%s = icmp sgt i64 %%begin, %s\n  %%b.%s = select i1 %%lo.%s, i64 %%begin, i64 %s\n", k, lo, k, k, lo);
  ixj__text_put(t, "  %%hi.%s = icmp slt i64 %%end, %s\n  %%e.%s = select i1 %%hi.%s, i64 %%end, i64 %s\n", k, hi, k, k, hi);
  ixj__text_put(t, "  %%any.%s = icmp slt i64 %%b.%s, %%e.%s\n", k, k, k);
}

static void emit_part_span(text *t, const char *k, const char *lo, const char *round, const char *shift, const char *work) {
  for (int side = 0; side < 2; side++) { /* the part's own first and last-plus-one work unit */
    const char *v = side ? "e" : "b", *u = side ? "y" : "x";
    ixj__text_put(t, "  %%%s.%s.l = sub i64 %%%s.%s, %s\n", u, k, v, k, lo);
    ixj__text_put(t, "  %%%s.%s.r = add i64 %%%s.%s.l, %s\n  %%%s.%s.s = lshr i64 %%%s.%s.r, %s\n", u, k, u, k, round, u, k, u, k,
                  shift);
    ixj__text_put(t, "  %%%s.%s.in = icmp ult i64 %%%s.%s.s, %s\n  %%%s.%s = select i1 %%%s.%s.in, i64 %%%s.%s.s, i64 %s\n", u, k,
                  u, k, work, u, k, u, k, u, k, work);
  }
}

/* Adds the declaration `line` (one line, no newline; written to and
 * restored) to decls unless a function of its name is there: the parts'
 * emitters spell a declaration's parameters differently (`i32` or
 * `i32 immarg`), so each is keyed by "@name(". */
static void declare_once(text *decls, char *line) {
  char *at = strchr(line, '@');
  char *paren = at ? strchr(at, '(') : NULL, after = paren ? paren[1] : '\0';
  if (paren) paren[1] = '\0';
  bool seen = decls->buf && strstr(decls->buf, at ? at : line);
  if (paren) paren[1] = after;
  if (!seen) ixj__text_put(decls, "%s\n", line);
}

/* The module of a CAT_PARTS plan: each part's kernel (internal), then the
 * entry, which hands each part the units of [begin, end) that are its own
 * (virtual units scaled back to tiles, clipped to the part's work); the
 * memcpy parts (contiguous slices of contiguous inputs) are rows of one
 * constant table that a single loop moves: one block per part made the code
 * generation of a cat of eight such inputs 3.5 ms of instruction selection
 * alone (docs/hot-path.md). */
static ixj_status emit_parts(const ixj_plan *p, const char *kname, const char *signature, char **out, ixj_error *err) {
  text mod = {0}, entry = {0}, decls = {0}, runs = {0};
  ixj_plan *sub = malloc(sizeof *sub);
  ixj_status st = sub ? IXJ_OK : ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  int num_runs = 0, streamed = 0;
  ixj__text_put(&mod, "; ixjit cat kernel: %d parts, one copy plan per input\n; signature: %s\n", p->num_parts, signature);
  ixj__text_put(&entry, "define void @%s(ptr %%ptrs, ptr %%offs, i64 %%begin, i64 %%end) nounwind {\nentry:\n  br label %%part.0\n",
                kname);
  for (int k = 0; k < p->num_parts && st == IXJ_OK; k++) {
    const plan_part *x = &p->part[k];
    st = ixj__plan_part(p, k, sub, err);
    if (st != IXJ_OK) break;
    unsigned long long lo = x->start, hi = x->start + x->units, work = x->work_units, round = (1ull << x->shift) - 1;
    if (x->memcpy) { /* one contiguous range on both sides: a row of the table */
      ixj__text_put(&runs, "%s[9 x i64] [i64 %llu, i64 %llu, i64 %llu, i64 %d, i64 %llu, i64 %lld, i64 %d, i64 %d, i64 %lld]",
                    num_runs ? ", " : "", lo, hi, round, x->shift, work, (long long)sub->operand[0].head_offset,
                    sub->operand[1].arg, x->nontemporal != 0, (long long)sub->operand[1].head_offset);
      num_runs++;
      streamed += x->nontemporal != 0;
      ixj__text_put(&entry, "part.%d:\n  br label %%part.%d\n", k, k + 1);
      continue;
    }
    char pname[96], declare[320], ks[16], los[24], his[24], rounds[24], shifts[16], works[24];
    char *code = NULL;
    snprintf(pname, sizeof pname, "%s.p%d", kname, k);
    st = emit_kernel(sub, pname, signature, true, declare, &code, err);
    if (st == IXJ_OK) ixj__text_put(&mod, "\n%s", code);
    for (char *line = declare, *nl; st == IXJ_OK && *line; line = nl + (*nl != 0)) {
      nl = line + strcspn(line, "\n");
      char c = *nl;
      *nl = '\0';
      declare_once(&decls, line);
      *nl = c;
    }
    free(code);
    snprintf(ks, sizeof ks, "%d", k);
    snprintf(los, sizeof los, "%llu", lo);
    snprintf(his, sizeof his, "%llu", hi);
    snprintf(rounds, sizeof rounds, "%llu", round);
    snprintf(shifts, sizeof shifts, "%d", x->shift);
    snprintf(works, sizeof works, "%llu", work);
    text *t = &entry;
    ixj__text_put(t, "part.%d:\n", k);
    emit_part_units(t, ks, los, his);
    ixj__text_put(t, "  br i1 %%any.%d, label %%run.%d, label %%part.%d\nrun.%d:\n", k, k, k + 1, k);
    emit_part_span(t, ks, los, rounds, shifts, works);
    ixj__text_put(t, "  call void @%s.p%d(ptr %%ptrs, ptr %%offs, i64 %%x.%d, i64 %%y.%d)\n  br label %%part.%d\n", kname, k, k, k,
                  k + 1);
  }
  ixj__text_put(&entry, "part.%d:\n", p->num_parts);
  if (st == IXJ_OK && num_runs) { /* the table's rows: lo, hi, round, shift, work, destination head, input's argument,
                                   * streamed, input's head */
    size_t es = p->elem_size;
    text *t = &entry;
    ixj__text_put(t, "  br label %%row\nrow:\n  %%r = phi i64 [ 0, %%part.%d ], [ %%r.next, %%row.next ]\n", p->num_parts);
    for (int f = 0; f < 9; f++)
      ixj__text_put(t, "  %%f%d.p = getelementptr [9 x i64], ptr @%s.runs, i64 %%r, i64 %d\n  %%f%d = load i64, ptr %%f%d.p\n", f,
                    kname, f, f, f);
    emit_part_units(t, "r", "%f0", "%f1");
    ixj__text_put(t, "  br i1 %%any.r, label %%run, label %%row.next\nrun:\n");
    emit_part_span(t, "r", "%f0", "%f2", "%f3", "%f4");
    ixj__text_put(t, "  %%dp = load ptr, ptr %%ptrs\n  %%do = load i64, ptr %%offs\n");
    ixj__text_put(t, "  %%sq = getelementptr ptr, ptr %%ptrs, i64 %%f6\n  %%sp = load ptr, ptr %%sq\n");
    ixj__text_put(t, "  %%sr = getelementptr i64, ptr %%offs, i64 %%f6\n  %%so = load i64, ptr %%sr\n");
    ixj__text_put(t, "  %%dx = add i64 %%do, %%f5\n  %%da = add i64 %%dx, %%x.r\n  %%sx = add i64 %%so, %%f8\n  %%sa = add i64 %%sx, %%x.r\n");
    ixj__text_put(t, "  %%dg = getelementptr i%zu, ptr %%dp, i64 %%da\n  %%sg = getelementptr i%zu, ptr %%sp, i64 %%sa\n", es * 8,
                  es * 8);
    ixj__text_put(t, "  %%n = sub i64 %%y.r, %%x.r\n  %%nb = mul i64 %%n, %zu\n", es);
    /* each part streams by its own size: a branch only where they differ */
    if (streamed && streamed < num_runs)
      ixj__text_put(t, "  %%nt = icmp ne i64 %%f7, 0\n  br i1 %%nt, label %%run.nt, label %%run.plain\nrun.nt:\n");
    if (streamed) ixj__text_put(t, "  call void @ixjit.stream_copy(ptr %%dg, ptr %%sg, i64 %%nb)\n  br label %%row.next\n");
    if (streamed && streamed < num_runs) ixj__text_put(t, "run.plain:\n");
    if (streamed < num_runs)
      ixj__text_put(t, "  call void @llvm.memcpy.p0.p0.i64(ptr %%dg, ptr %%sg, i64 %%nb, i1 false)\n  br label %%row.next\n");
    ixj__text_put(t, "row.next:\n  %%r.next = add nuw nsw i64 %%r, 1\n");
    ixj__text_put(t, "  %%rows = icmp ult i64 %%r.next, %d\n  br i1 %%rows, label %%row, label %%done\ndone:\n", num_runs);
  }
  ixj__text_put(&entry, "  ret void\n}\n");
  char *md = NULL, *streamer = NULL;
  if (st == IXJ_OK) st = fill_metadata(&md, err);
  if (st == IXJ_OK && streamed) st = fill_stream_copy(&streamer, err);
  if (st == IXJ_OK && streamed) {
    char prefetch[] = "declare void @llvm.prefetch.p0(ptr, i32, i32, i32)"; /* the streamer's */
    declare_once(&decls, prefetch);
  }
  if (st == IXJ_OK) {
    if (num_runs) ixj__text_put(&mod, "\n@%s.runs = private unnamed_addr constant [%d x [9 x i64]] [%s]\n", kname, num_runs, runs.buf);
    ixj__text_put(&mod, "\n%s\n%s\n%s", entry.buf ? entry.buf : "", md, decls.buf ? decls.buf : "");
    if (streamer) ixj__text_put(&mod, "\n%s", streamer);
    if (streamed < num_runs) ixj__text_put(&mod, "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n");
  }
  if (st == IXJ_OK && (mod.oom || entry.oom || decls.oom || runs.oom))
    st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory while emitting IR");
  if (st == IXJ_OK) *out = mod.buf;
  else free(mod.buf);
  free(md);
  free(streamer);
  free(entry.buf);
  free(decls.buf);
  free(runs.buf);
  free(sub);
  return st;
}

ixj_status ixj__emit_llvm(const ixj_plan *p, const char *kname, const char *signature, char **out, ixj_error *err) {
  if (p->strategy == PLAN_CAT_PARTS) {
    *out = NULL;
    return emit_parts(p, kname, signature, out, err);
  }
  return emit_kernel(p, kname, signature, false, NULL, out, err);
}

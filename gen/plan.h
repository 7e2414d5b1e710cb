/* Internal: planning an operation (copy, fill, cat) over operands into a
 * normalized iteration space, a strategy, and the split between what is baked
 * into the kernel (the signature) and what is passed at run time. */
#ifndef IXJIT_GEN_PLAN_H
#define IXJIT_GEN_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "ixfun_internal.h"
#include "ixjit/ops.h"

#define PLAN_MAX_OPERANDS (1 + IXJ_MAX_CAT_INPUTS)

typedef enum plan_strategy {
  PLAN_EMPTY,            /* no points: nothing to launch */
  PLAN_MEMCPY,           /* one contiguous range on both sides: memcpy, no kernel */
  PLAN_INNER_CONTIGUOUS, /* unit stride innermost on every operand */
  PLAN_TILED,            /* transpose-like: the unit-stride dims differ, blocked loops */
  PLAN_GENERAL,          /* anything else (rotations, chains, odd strides) */
  PLAN_CAT_PARTS         /* CPU cat: each input its own copy plan into its slice, one launch */
} plan_strategy;

/* One operand over the iteration space. The head LMAD's dims are in
 * iteration order; for a chain the tail LMADs are those of the index function
 * (borrowed: the plan lives no longer than the call), except that the last
 * one's offset is the runtime offset, never baked in. */
typedef struct plan_operand {
  int64_t stride[IXJ_MAX_RANK]; /* head stride per iteration dim */
  int64_t rotate[IXJ_MAX_RANK]; /* head rotation per iteration dim */
  int64_t head_offset;          /* baked for chains; 0 (runtime) for one LMAD */
  int num_tail;                 /* LMADs after the head */
  const ixj_lmad *tail;
  int64_t runtime_offset;       /* the memory-side LMAD's offset, passed at run time */
  int arg;                      /* the kernel argument (pointer and offset) it reads: its place in the call */
  int cut_axis;                 /* a part's second dim of its box (split_boxes' pieces cut along two dims:
                                   rotated, or rows off lines): the part covers [cut_start, cut_start +
                                   cut_extent) of it; none where cut_extent is 0 */
  int64_t cat_start;            /* cat inputs: first index along the axis */
  int64_t cat_extent;           /* cat inputs: own extent along the axis */
  int64_t cut_start, cut_extent;
} plan_operand;

/* A part of a CAT_PARTS plan: the copy of one input into its slice of the
 * destination. Its plan is rebuilt from the cat plan (ixj__plan_part); what
 * depended on the pointers is kept here. Work is counted in virtual units
 * [start, start + units): points, or for a tiled part 2^shift per tile. */
typedef struct plan_part {
  int input;        /* the operand (1..) it copies */
  int vector_elems; /* as planned with the pointers */
  int dst_aligned;
  int nontemporal;
  int prefetch;     /* as planned with the request (plan.prefetch) */
  int row_lanes;    /* as planned with the pointers (plan.row_lanes, masked_ends, row_group, packed_rows) */
  int masked_ends;
  int row_group;
  int packed_rows;
  int source_major; /* its rows walked in the source's order (plan.source_major), as planned with the
                       pointers and the cache size */
  int memcpy;       /* a contiguous slice from a contiguous input: no kernel, a memcpy of points */
  int shift;        /* log2 of virtual units per work unit of the part */
  uint64_t start, units;
  uint64_t work_units; /* the part's own work units */
} plan_part;

/* plan.prefetch of a TILED plan: each source row two tiles ahead, or one (into L1, or into L2); or,
 * where the source rows are short and back to back, the next tiles along a in memory order
 * (gen/plan.c) */
enum {
  PLAN_PREFETCH_FAR = 1,
  PLAN_PREFETCH_NEAR = 2,
  PLAN_PREFETCH_SEQUENTIAL = 3,
  PLAN_PREFETCH_NEAR_L2 = 4,
  PLAN_PREFETCH_SEQUENTIAL_L2 = 5, /* the sequential prefetch into L2: runs longer than L1 holds */
  PLAN_PREFETCH_BLOCK_ROWS = 6     /* gathered tiles: the next row of tiles of their block of tiles, line after
                                      line in memory order, into L2 (finish in gen/plan.c) */
};

/* plan.staged: how a staged tile's partial lines are stored */
enum { PLAN_STAGED_MASKED = 1, PLAN_STAGED_BYTES = 2 };
/* plan.row_flush: when a staged tile that does not span its rows sends them */
enum { PLAN_FLUSH_ROWS = 1, PLAN_FLUSH_BLOCKS = 2 };
/* plan.row_group: each row of a group moves this many bytes in turn (a line) */
#define PLAN_ROW_GROUP_STEP_BYTES 64

typedef struct ixj_plan {
  ixj_op_kind op;
  size_t elem_size;
  plan_strategy strategy;
  int index_bits;   /* 32 or 64: width of the index arithmetic */
  int vector_elems; /* elements per vector access in the inner loop (1: scalar) */
  int store_pitch;  /* CPU fill, or copy from a source of unit inner stride, into a destination whose
                       innermost stride is 2..4: masked vector stores of vector_elems elements spread
                       over vector_elems * store_pitch lanes (0: none) */
  int nontemporal;  /* streaming stores for outputs larger than the last-level cache */
  int rank;         /* iteration dims (>= 1 unless EMPTY) */
  int64_t shape[IXJ_MAX_RANK];
  int64_t count;    /* points */
  int cat_axis;     /* iteration dim of the cat axis */
  int tile;         /* TILED: tile edge in elements; dims rank-2 (src unit) and rank-1 (dst unit) */
  int micro;        /* TILED on a CPU: the in-register transpose's edge (a vector's lanes), 0 on a GPU */
  int vector_bytes; /* TILED on a CPU: bytes per vector of the micro-kernel */
  int row_lanes;    /* GENERAL copy on a CPU whose rows are contiguous in the destination, or an
                       INNER_CONTIGUOUS copy or fill whose rows are not all on vector boundaries: lanes of the
                       aligned vector loop in the middle of each row (0: none) */
  int masked_ends;  /* row_lanes on an AVX-512 host, a fill or a copy whose source rows run forward one
                       element a step: what the aligned vector loops leave of a row (its head and tail, all
                       of a short row) moves by masked vector loads and stores, not element by element */
  int packed_rows;  /* INNER_CONTIGUOUS rank-2 copy on an AVX-512 host whose rows (one to a few lines, not
                       all on vectors) lie back to back in the destination: the kernel walks the
                       destination's vectors, each loaded from the one or two rows it holds (row_lanes
                       lanes, masked) */
  int packed_period; /* packed_rows whose source pitch is n or more (n the row's elements) and whose lines repeat
                       their rows' pieces every few lines (lcm(n, row_lanes) / row_lanes of them, 256 at most):
                       that many lines, which the kernel walks from a table of each line's two loads, whole
                       vectors (emit_packed_period in gen/emit_llvm.c); 0: none */
  int source_prefetch; /* CPU copy of rows on an Intel AVX-512 host, streamed, by vectors (vector_elems, row_lanes
                       or chain_runs) whose source rows (runs) are read forward or backward one element a
                       step: each vector load (a packed_rows step's first load) asks for the source this
                       many bytes further along its row (ahead in the order it is read) into L2
                       (intel_row_prefetch in gen/plan.c); 0: none */
  int chain_runs;   /* GENERAL copy or fill on a CPU of chains that do not refine (choose_chain_runs in
                       gen/plan.c): each row moves in runs, one decomposition a run, where every operand
                       steps a constant stride until a chain's tail dim wraps */
  int source_major; /* INNER_CONTIGUOUS copy on a Zen CPU, streamed: its outer dims were put in the source's
                       order (source_major_rows in gen/plan.c; the strides show it, a cat part records it) */
  int row_group;    /* INNER_CONTIGUOUS copy on a CPU, streamed, of short rows: this many rows (along dim
                       rank-2) move together, a vector of each in turn, wherever a chunk holds them whole
                       (0: a row at a time) */
  int dst_aligned;  /* TILED on a CPU: every destination row of a micro-block starts on a vector boundary */
  int b_inner;      /* TILED on a CPU: 0, or the b dim is dims (rank-3, rank-2) fused: contiguous in the
                       source, rank-2 of this extent (a power of two dividing micro) */
  int a_inner;      /* TILED on a CPU: 0, or the a dim is dims (rank-3, rank-1) fused: contiguous in the
                       destination, rank-1 of this extent (a power of two dividing micro); b is rank-2 */
  int super_a, super_b; /* TILED on a CPU, streamed: tiles are walked in blocks of super_a x super_b tiles
                       (b fastest inside; divisors of the tile counts), so that the pages a block touches
                       stay in the TLB; 0: one block of all tiles */
  int zip;          /* TILED on a CPU: 0, or the extent k (2..7) of a, whole in every block: a block loads k
                       source rows of `micro` elements and interleaves them into k * micro contiguous
                       destination elements (the destination's b stride is k: NCHW -> NHWC with 3 channels) */
  int unzip;        /* TILED on a CPU: 0, or the extent k (2..7) of b, whole in every block: the mirror of a
                       zip, a block loads k * micro contiguous source elements and deinterleaves them into
                       k destination rows (the source's a stride is k: NHWC -> NCHW with 3 channels) */
  int stack;        /* TILED on a CPU whose blocks are 16 bytes of row (micro x elem_size = 16): the
                       blocks side by side along a share registers, up to `stack` (4 with 64-byte
                       vectors, 2 with 32-byte ones), one in each 16-byte chunk, so that a register holds
                       a whole destination line, or half of one (1- and 2-byte elements, and short
                       dims); 0: one block per register */
  int staged;       /* TILED on a CPU, streamed, destination rows off lines (a row pitch that is not a whole
                       number of 64-byte lines, or a misaligned start): the blocks go to a tile-sized buffer
                       on the stack, and each tile row is moved out with its whole lines streamed and the
                       partial lines at its ends stored by byte-masked stores (PLAN_STAGED_MASKED, AVX-512BW)
                       or byte by byte (PLAN_STAGED_BYTES, without it) (emit_stage_flush); 0: stored in place */
  int gather;       /* TILED on a CPU, 1-byte stacked blocks whose tile's source rows crowd one L1 set (Zen
                       cores with AVX-512: gather_bytes in gen/plan.c): each tile's source rows are first
                       copied whole, a line each, into a buffer on the stack (emit_gather, at most
                       PLAN_GATHER_MAX_BYTES), and the blocks read their 16-byte pieces there, so that each
                       source line is loaded once instead of once per stacked block; 0: the blocks read
                       the source */
  int tile_a;       /* TILED on a CPU: the tile's extent along a where it is not `tile` (0). Staged: all of a
                       (span), or wider tiles for 1- and 2-byte elements, whose halo is then a smaller part;
                       on Zen cores, streamed: fewer source rows (16 at 4 and 8 bytes, 8 at 16; 32 at 4 bytes
                       where a tile's source or destination rows crowd one L1 set) */
  int span;         /* TILED on a CPU, staged: a tile spans the whole of a and the destination's rows are back
                       to back, so that a tile's rows are one contiguous run, staged a row of blocks at a time
                       and sent out as whole lines after each (emit_span_flush); rows shorter than a line too,
                       where blocks would not cover them (short_span in plan.c) */
  int row_flush;    /* TILED on a CPU, staged, not spanning: the buffer holds one row of blocks and its halo,
                       whose rows go out after each row of blocks (PLAN_FLUSH_ROWS, emit_stage_flush), or,
                       inside a row, each line as soon as a block completes it (PLAN_FLUSH_BLOCKS,
                       emit_block_lines); 0: the buffer holds the whole tile, sent after its last block */
  int prefetch;     /* CPU, streamed (and Zen's tiles in cache): the kernel prefetches (non-zero) or not (0). TILED: whole-register blocks
                       prefetch each source row into L1, two tiles ahead (PLAN_PREFETCH_FAR; not where the tile's
                       source rows crowd one L1 set), or one tile ahead, crowded or not (PLAN_PREFETCH_NEAR, where
                       the request's cpu_zen says so; into L2, PLAN_PREFETCH_NEAR_L2, where its vectors are
                       64 bytes too), or, on Zen cores where the source rows are back to back
                       and each tile row walks all of b, the source of the tiles a row or two of tiles further
                       along a, line after line in memory order (PLAN_PREFETCH_SEQUENTIAL; into L2,
                       PLAN_PREFETCH_SEQUENTIAL_L2, where a row of tiles is more than L1 holds); gathered
                       tiles in blocks of tiles, the next row of tiles of the block, its pieces of rows
                       line after line, into L2 (PLAN_PREFETCH_BLOCK_ROWS) (see
                       choose_prefetch); in cache, on Zen cores with 64-byte vectors, 4- and 8-byte tiles
                       of more than 1 MiB of output prefetch one tile ahead into L2 too
                       (zen_in_cache_prefetch); GENERAL, storing parts of
                       lines (a strided destination, by scalar stores, or by masked ones but on Zen cores):
                       each store's line ahead, for writing (1) */
  int asm_regs;     /* CPU: the vector registers a transpose block's shuffle network may use as one inline-asm
                       statement (the request's cpu_asm_regs); 0: IR shuffles */
  int num_operands; /* dst first; fill: dst + value */
  plan_operand operand[PLAN_MAX_OPERANDS];
  uint64_t work_units; /* what the dispatcher splits: points, or tiles when TILED */
  int num_parts;       /* CAT_PARTS */
  int part_vector_bytes; /* CAT_PARTS: the request's cpu_vector_bytes, for rebuilding the parts */
  int part_zen; /* CAT_PARTS: the request's cpu_zen, likewise */
  plan_part part[IXJ_MAX_CAT_INPUTS];
} ixj_plan;

typedef struct plan_request {
  ixj_op_kind op;
  size_t elem_size;
  const ixj_ixfun *dst;
  int num_srcs;
  const ixj_ixfun *const *srcs; /* copy: 1, cat: num_srcs, fill: 0 */
  int cat_axis;
  const void *const *pointers; /* dst, srcs (may be NULL: alignment unknown, assume aligned) */
  size_t last_level_cache;     /* bytes; 0: never stream */
  bool gpu;                    /* CUDA: 16-byte vectors, 32x32 (16x16 for wide elements) shared-memory tiles */
  int cpu_vector_bytes;        /* the host's widest vector register: 64 with AVX-512, else 32 (0: 32) */
  int cpu_asm_regs;            /* vector registers the target lets inline-asm shuffles use (0: none, IR shuffles) */
  int cpu_zen;                 /* AMD's Zen cores' rules (0: Intel's), each measured where they differ
                                  (gen/plan.c): a streamed transpose prefetches its source rows one tile
                                  ahead, even where they crowd one L1 set (Intel: two tiles ahead where they
                                  do not); masked stores take no write prefetch; streamed copies of rows far
                                  apart move in row groups; crowded 1- and 2-byte transposes take whole
                                  32-byte blocks; in cache only tiles that span their rows stage; streamed
                                  4- to 16-byte tiles read 16 or 8 source rows and spanning ones run 128 along
                                  b (zen_tile_shape); short back-to-back source rows prefetch in memory order
                                  (sequential_source), long ones into crowded destinations in tiles
                                  of 64 rows, into L2 (zen_long_sequential_rows); streamed contiguous
                                  rows and the dims outside streamed tiles are walked in the source's order (source_major_rows, _tiles); tiles
                                  in cache beyond L2 prefetch into L2 (zen_in_cache_prefetch); streamed
                                  2-byte tiles read two lines of each source row, staged 4-byte ones 64
                                  source rows; with AVX-512 (a Zen 4) outputs that fit the L3 are stored
                                  plainly (streams) */
  bool whole_lines_off;        /* plan a transpose whose rows start off lines whole, not in boxes on lines
                                  (split_boxes in gen/plan.c): the tests' way to keep the kernels for
                                  such rows (staged, unaligned loads) under test */
} plan_request;

/* The baked-in offset of tail LMAD m (0 for the last: a runtime argument). */
static inline int64_t plan_tail_offset(const plan_operand *o, int m) {
  return m == o->num_tail - 1 ? 0 : o->tail[m].offset;
}

/* Builds the plan (shapes must already be checked by the caller). */
ixj_status ixj__plan_build(const plan_request *req, ixj_plan *out, ixj_error *err);
/* TILED: the extents of b (the source's unit dim, fused with its partner when
 * b_inner is set) and of a (the destination's, fused with its partner when
 * a_inner is set), and the number of dims outside the tile. */
static inline int64_t ixj__plan_tile_b_extent(const ixj_plan *p) {
  return p->b_inner ? p->shape[p->rank - 3] * p->shape[p->rank - 2] : p->shape[p->rank - 2];
}
static inline int64_t ixj__plan_tile_a_extent(const ixj_plan *p) {
  return p->a_inner ? p->shape[p->rank - 3] * p->shape[p->rank - 1] : p->shape[p->rank - 1];
}
/* TILED: the offset of c0 + i minus that of c0 in operand o along a tile dim
 * (its dim lo; fused, hi the outer part of `inner` elements of lo), for c0 a
 * multiple of inner: a constant. */
static inline int64_t ixj__plan_tile_step(const plan_operand *o, int i, int inner, int hi, int lo) {
  if (!inner) return (int64_t)i * o->stride[lo];
  return (int64_t)(i / inner) * o->stride[hi] + (int64_t)(i % inner) * o->stride[lo];
}
/* TILED: the tile's edge along a (tile_a where set, else tile). */
static inline int ixj__plan_tile_edge_a(const ixj_plan *p) { return p->tile_a ? p->tile_a : p->tile; }
/* TILED: whether a's extent is `bytes` or more of row (compared without the
 * product, which a huge extent would overflow). */
static inline bool ixj__plan_a_bytes_at_least(const ixj_plan *p, int64_t bytes) {
  int64_t e = (int64_t)p->elem_size;
  return ixj__plan_tile_a_extent(p) >= (bytes + e - 1) / e;
}
/* TILED: whether a staged tile spans rows shorter than a line (plan.span,
 * short_span in plan.c): its one block along a is wider than the row. */
static inline bool ixj__plan_short_span(const ixj_plan *p) {
  return p->staged && p->span && !ixj__plan_a_bytes_at_least(p, 64);
}
/* TILED: the blocks side by side along a (each micro wide) until a
 * destination row piece is a line, fewer where rows are shorter than a line
 * (but a short span's, which writes its rows past their ends, keeps them). */
static inline int ixj__plan_block_group(const ixj_plan *p) {
  int group = p->vector_bytes < 64 ? 64 / p->vector_bytes : 1;
  if (p->zip || p->unzip) return 1; /* a (un)zip's block is a whole run of k rows */
  while (!ixj__plan_short_span(p) && group > 1 && (int64_t)p->micro * group > ixj__plan_tile_a_extent(p)) group /= 2;
  return group;
}
/* TILED, gathered (plan.gather): the bytes of the tile's source rows on the
 * kernel's stack (emit_gather): the tile's rows of T elements, and a staged
 * tile's halo of up to a line of rows more. */
static inline int64_t ixj__plan_gather_bytes(const ixj_plan *p) {
  int64_t rows = ixj__plan_tile_edge_a(p) + (p->staged ? 64 / (int64_t)p->elem_size : 0);
  return rows * p->tile * (int64_t)p->elem_size;
}
/* the most a gathered tile's buffer may take of the stack: 32 KiB (a staged
 * spanning tile's rows can reach 1 KiB; the kernel may run on a caller's
 * thread with a small stack) */
#define PLAN_GATHER_MAX_BYTES 32768
static inline int ixj__plan_tile_outer_dims(const ixj_plan *p) { return p->rank - (p->b_inner || p->a_inner ? 3 : 2); }

/* Part k of a CAT_PARTS plan as a copy plan of its own, the same at planning
 * and at emission. */
ixj_status ixj__plan_part(const ixj_plan *cat, int k, ixj_plan *out, ixj_error *err);
/* A chain run's dim of a tail LMAD (plan.chain_runs): its innermost logical
 * dim of extent > 1, whose digit moves first as the flat position climbs, or
 * -1 (a single point). */
int ixj__plan_run_dim(const ixj_lmad *tail);
/* The memory stride of that dim: how far apart a run's points lie; 0 where
 * the tail has no run dim or it is rotated (its runs break at the wrap). */
int64_t ixj__plan_run_stride(const ixj_lmad *tail);
/* Rewrites chain operands (a head and one tail LMAD) as single LMADs over a
 * refined iteration space when the factors line up (gen/plan_refine.c);
 * false, and the plan unchanged, when they do not. */
bool ixj__plan_refine_chains(ixj_plan *p);
/* Rewrites a copy or fill whose chain operands are plain reshapes (their
 * heads row-major iotas) as single LMADs over the common refinement of every
 * operand's flat order (gen/plan_refine.c), where the factors need not line
 * up; false, and the plan unchanged, when some operand has no such form. */
bool ixj__plan_unchain_flat(ixj_plan *p);
/* The canonical signature: everything the kernel bakes in, and the target.
 * snprintf-style. */
size_t ixj__plan_signature(const ixj_plan *p, const char *target, char *buf, size_t size);
const char *ixj__plan_strategy_name(plan_strategy s);

#endif

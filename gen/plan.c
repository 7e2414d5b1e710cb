/* Planning: from an operation over index functions to a normalized iteration
 * space (unit dims dropped, destination-major loop order, dims coalesced when
 * contiguous in every operand), a strategy, an index width, a vector width, and
 * the split between the signature (baked in) and the runtime arguments. */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "error.h"
#include "textbuf.h"

const char *ixj__plan_strategy_name(plan_strategy s) {
  switch (s) {
  case PLAN_EMPTY: return "empty";
  case PLAN_MEMCPY: return "memcpy";
  case PLAN_INNER_CONTIGUOUS: return "inner_contiguous";
  case PLAN_TILED: return "tiled";
  case PLAN_GENERAL: return "general";
  case PLAN_CAT_PARTS: return "cat_parts";
  }
  return "?";
}

static const char *op_name(ixj_op_kind op) {
  return op == IXJ_OP_COPY ? "copy" : op == IXJ_OP_FILL ? "fill" : "cat";
}

/* The operand's head dims over the logical dims, and its chain. */
static void load_operand(const ixj_ixfun *f, plan_operand *o) {
  const ixj_lmad *h = &f->lmads[0];
  for (int k = 0; k < h->rank; k++) {
    o->stride[k] = h->stride[h->perm[k]];
    o->rotate[k] = h->rotate[h->perm[k]];
  }
  o->num_tail = f->num_lmads - 1;
  o->tail = f->lmads + 1;
  if (o->num_tail == 0) {
    o->head_offset = 0;
    o->runtime_offset = h->offset;
  } else {
    o->head_offset = h->offset;
    o->runtime_offset = o->tail[o->num_tail - 1].offset;
  }
}

/* Keeps iteration dims `keep[0..n)` (indices into the current dims), in that order. */
static void select_dims(ixj_plan *p, const int *keep, int n) {
  int64_t shape[IXJ_MAX_RANK];
  for (int k = 0; k < n; k++) shape[k] = p->shape[keep[k]];
  memcpy(p->shape, shape, sizeof shape);
  for (int o = 0; o < p->num_operands; o++) {
    int64_t st[IXJ_MAX_RANK], rt[IXJ_MAX_RANK];
    for (int k = 0; k < n; k++) {
      st[k] = p->operand[o].stride[keep[k]];
      rt[k] = p->operand[o].rotate[keep[k]];
    }
    memcpy(p->operand[o].stride, st, sizeof st);
    memcpy(p->operand[o].rotate, rt, sizeof rt);
  }
  p->rank = n;
}

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

/* Operands that have dims (the fill value has none). */
static int has_dims(const ixj_plan *p, int o) { return !(p->op == IXJ_OP_FILL && o == 1); }

/* Dims j and j+1 merge when, in every operand, j steps over all of j+1. */
static bool can_coalesce(const ixj_plan *p, int j) {
  for (int o = 0; o < p->num_operands; o++) {
    const plan_operand *x = &p->operand[o];
    int64_t want;
    if (!has_dims(p, o)) continue;
    if (x->rotate[j] || x->rotate[j + 1]) return false;
    if (ixj_mul_ovf(x->stride[j + 1], p->shape[j + 1], &want) || x->stride[j] != want) return false;
  }
  return true;
}

/* Sorts the dims keep[0..n) by operand o's |stride|, larger outside (stable). */
static void sort_dims_by_stride(const ixj_plan *p, int o, int *keep, int n) {
  for (int a = 1; a < n; a++) {
    int v = keep[a], b = a;
    while (b > 0 && abs64(p->operand[o].stride[keep[b - 1]]) < abs64(p->operand[o].stride[v])) {
      keep[b] = keep[b - 1];
      b--;
    }
    keep[b] = v;
  }
}

static void normalize_copy(ixj_plan *p) {
  int keep[IXJ_MAX_RANK], n = 0;
  for (int k = 0; k < p->rank; k++)
    if (p->shape[k] != 1) keep[n++] = k;
  sort_dims_by_stride(p, 0, keep, n); /* destination-major */
  select_dims(p, keep, n);
  for (int j = p->rank - 2; j >= 0; j--) {
    if (!can_coalesce(p, j)) continue;
    p->shape[j] *= p->shape[j + 1];
    for (int o = 0; o < p->num_operands; o++) {
      p->operand[o].stride[j] = p->operand[o].stride[j + 1];
      p->operand[o].rotate[j] = 0;
    }
    int rest[IXJ_MAX_RANK], m = 0;
    for (int k = 0; k < p->rank; k++)
      if (k != j + 1) rest[m++] = k;
    select_dims(p, rest, m);
  }
}

/* A fill writes a set of offsets, whatever order its iteration visits them
 * in: a reversed dim runs forward from its other end (the head offset takes
 * the difference, the run-time offset stays the caller's) and a rotation goes.
 * A reversed or rolled view is then filled like the contiguous one it covers. */
static void normalize_fill(ixj_plan *p) {
  plan_operand *dst = &p->operand[0];
  for (int j = 0; j < p->rank; j++) {
    dst->rotate[j] = 0;
    if (dst->stride[j] >= 0) continue;
    dst->head_offset += dst->stride[j] * (p->shape[j] - 1); /* in range: the view's offsets are */
    dst->stride[j] = -dst->stride[j];
  }
}

static bool all_single_lmad(const ixj_plan *p) {
  for (int o = 0; o < p->num_operands; o++)
    if (has_dims(p, o) && p->operand[o].num_tail) return false;
  return true;
}

/* A fill or copy into every 2nd, 3rd or 4th element of the destination's
 * rows (a strided view) by masked stores: vector_elems elements (the fill
 * value, or a vector load of the source's contiguous row) spread over one
 * host vector write only the view's elements, a vector at a time, where a
 * loop of scalar stores writes one. 4- and 8-byte elements; rows a multiple
 * of the elements per store (the dispatcher's chunks then start on whole
 * stores); a copy's source runs with unit stride along the row. Only with
 * AVX-512, whose stores take a mask register: AVX2's masked stores
 * (vpmaskmovd/q) are microcoded on AMD's cores, and on a Zen 3 a fill of
 * every other float (4096 x 8192, 1 thread) wrote 1.5 GB/s by them against
 * 3.9-4.4 by scalar stores, and 3.9 against 4.6-5.2 with the write prefetch
 * of both (docs/cpu-path.md). On a Zen 4 (AVX-512) a C harness copied a
 * 4096^2 float array into every other column at 16.5-17.3 GB/s by masked
 * stores, 13.4-13.8 by scalar stores with the write prefetch. */
static void choose_store_pitch(ixj_plan *p, const plan_request *req) {
  const plan_operand *dst = &p->operand[0];
  int last = p->rank - 1, bytes = 64;
  int64_t s = dst->stride[last];
  if (req->gpu || req->cpu_vector_bytes != 64 || p->strategy != PLAN_GENERAL || p->vector_elems != 1) return;
  if (p->op != IXJ_OP_FILL && p->op != IXJ_OP_COPY) return;
  /* a chain's head strides count elements of its tail's space, not of memory */
  if ((p->elem_size != 4 && p->elem_size != 8) || s < 2 || s > 4 || dst->rotate[last] || dst->num_tail) return;
  if (p->op == IXJ_OP_COPY && (p->operand[1].num_tail || p->operand[1].stride[last] != 1 || p->operand[1].rotate[last]))
    return;
  int lanes = bytes / (int)p->elem_size, per_store = (int)(lanes / s);
  if (per_store < 2) return;
  while (per_store & (per_store - 1)) per_store--; /* a power of two, as the dispatcher's chunk alignment */
  if (p->shape[last] % per_store) return;
  for (int j = 0; j < last; j++)
    if (dst->rotate[j]) return;
  p->vector_elems = per_store;
  p->store_pitch = (int)s;
  p->vector_bytes = bytes;
}

/* A CPU host with AVX-512, Zen or not */
static bool avx512_host(const plan_request *req) { return !req->gpu && req->cpu_vector_bytes == 64; }
/* A CPU host with AVX-512 that is not a Zen core: the Intel rules (INTEL_AVX512_RULES and the INTEL_ ones after it) */
static bool intel_avx512(const plan_request *req) { return avx512_host(req) && !req->cpu_zen; }

static int cpu_micro(const plan_request *req, size_t elem_size) {
  int bytes = req->cpu_vector_bytes == 64 ? 64 : 32, e = (int)elem_size;
  return bytes / e < 2 ? 2 : bytes / e;
}

/* The transpose block's edge where blocks of 16 bytes of row stack to a
 * register (plan.stack: four to AVX-512's, two to AVX2's), or 0: 1- and
 * 2-byte elements, whose blocks of whole registers (64 x 64 and 32 x 32 with
 * AVX-512, 32 x 32 and 16 x 16 with AVX2) held as many live vectors and
 * spilled; stacked, the same or more bandwidth for a third to a half of the
 * code generation (docs/cpu-path.md; on a Zen 3: 8192^2 bytes 91 -> 35 ms,
 * 5760^2 halves 42 -> 17, in cache 1.3-1.9x the bandwidth). A fused dim's
 * extent must divide the edge. */
static int stacked_micro(size_t elem_size, int fused) {
  int v = 16 / (int)elem_size;
  return elem_size <= 2 && v % fused == 0 ? v : 0;
}

/* A source unit dim q too short to tile (a.T.reshape into a padded
 * destination leaves one of extent 2) still tiles when a dim h continues it
 * in the source (stride = its extent): b runs over h and q fused, contiguous
 * in the source, and the destination's offset of b is split by a shift and a
 * mask. q's extent must be a power of two dividing the micro-kernel's edge.
 * The partner h, or -1.
 * INTEL_FUSED_B: on an Intel host with AVX-512 (round 28) a unit dim of 8
 * elements or more fuses too where it can (so a line of source row or
 * less): unfused, a tile read one line of each of its rows, the rows far
 * apart, and the next tile the next line of each. An environment switch,
 * two alternations, ixjit / the ceiling, 1 / 2 threads: the (3, 1, 2, 0)
 * permute of 256 x 64 x 64 x 16 floats 0.68-0.86 / 0.38-0.48 -> 1.07 /
 * 0.88-0.92, (2, 1, 0) of 256 x 4096 x 16 floats 0.74-0.81 / 0.50-0.51 ->
 * 1.07-1.08 / 0.90, of 256 x 4096 x 32 halves 0.87-0.97 / 0.57-0.61 ->
 * 0.98-1.00 / 0.74-0.77.
 * ZEN_FUSED_B: on the Zen 4 (round 32) the same, but not bytes. An
 * environment switch, two alternations, ixjit / the ceiling, 1 / 2 threads:
 * the (3, 1, 2, 0) permute of floats (`p4d_3120`) 0.29-0.31 / 0.47-0.50 ->
 * 0.59-0.62 / 0.82-0.86, (2, 1, 0) of 256 x 4096 x 16 floats
 * (`p3d_210_b16`) 0.29-0.31 / 0.30-0.54 -> 0.59-0.60 / 0.81-0.84, of 8
 * floats 0.32 / 0.52-0.54 -> 0.60-0.61 / 0.60-0.86, of 8 doubles 0.30-0.31
 * / 0.48-0.51 -> 0.86 / 0.89-0.91, of 32 halves 0.26 / 0.42-0.43 ->
 * 0.48-0.51 / 0.62-0.73; of 64 bytes 0.23-0.24 / 0.38-0.40 -> 0.14-0.16 /
 * 0.23-0.24, so not those. A prefetch for the fused tiles (none, as on
 * Intel) changed nothing. */
static bool wide_fused_b(const ixj_plan *p, const plan_request *req) {
  return avx512_host(req) && (!req->cpu_zen || p->elem_size >= 2);
}
static int fusable_partner(const ixj_plan *p, const plan_request *req, int q) {
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  int64_t n = p->shape[q], last = p->rank - 1;
  if (n < 2 || (n & (n - 1)) || cpu_micro(req, p->elem_size) % n) return -1;
  for (int h = 0; h < last; h++)
    if (h != q && src->stride[h] == n && !src->rotate[h] && !dst->rotate[h] && p->shape[h] * n >= 8) return h;
  return -1;
}

/* The mirror for a destination unit dim `last` shorter than a host vector
 * (the inner dims of a 6-D permute): a dim h continues it in the destination
 * (stride = its extent), so a runs over h and last fused, contiguous in the
 * destination, and a block stores whole vectors (whole lines, streamed) where
 * it would store half ones; the source's offset of a is split by a shift and
 * a mask. last's extent must be a power of two dividing the micro-kernel's
 * edge, and last must run forward (stride 1: a reversed one, h's stride its
 * extent, is no contiguous run; the emitter refused such a plan). The
 * partner h, or -1. */
static int fusable_a_partner(const ixj_plan *p, const plan_request *req, int q) {
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  int last = p->rank - 1;
  int64_t n = p->shape[last];
  if (n < 2 || (n & (n - 1)) || cpu_micro(req, p->elem_size) % n || n >= cpu_micro(req, p->elem_size) ||
      dst->stride[last] != 1)
    return -1;
  for (int h = 0; h < last; h++)
    if (h != q && dst->stride[h] == n && !src->rotate[h] && !dst->rotate[h] && p->shape[h] * n >= 8) return h;
  return -1;
}

/* Whether the destination's first element and the stride of every dim
 * below `upto` but `skip` (-1: none) lie on 64-byte lines: the blocks of a
 * tiled plan then start their rows on lines, which aligned streaming stores
 * need (an aligned store to an address off its line faults). Unsigned: a
 * stride's product with the element size mod 64 is right even where it
 * wraps. */
/* Where element `at` (an offset from the head) of operand o falls within its
 * 64-byte line, from its pointer (NULL: aligned) and offsets. */
static uint64_t line_offset(const ixj_plan *p, const plan_request *req, int o, int64_t at) {
  const plan_operand *x = &p->operand[o];
  uintptr_t base = req->pointers && req->pointers[x->arg] ? (uintptr_t)req->pointers[x->arg] : 0;
  return ((uint64_t)base + (uint64_t)(x->runtime_offset + x->head_offset + at) * p->elem_size) % 64;
}

static bool dst_on_lines(const ixj_plan *p, const plan_request *req, int upto, int skip) {
  const plan_operand *dst = &p->operand[0];
  bool lines = line_offset(p, req, 0, 0) == 0;
  for (int j = 0; j < upto; j++)
    if (j != skip) lines = lines && (uint64_t)dst->stride[j] * (uint64_t)p->elem_size % 64 == 0;
  return lines;
}

/* The most of n rows of operand o, steps of a tile dim apart (fused: inner,
 * hi, lo as ixj__plan_tile_step takes them), that fall on one set of a 4
 * KiB-period L1: x86's L1 data caches have 64 sets of 8 or 12 ways, and a
 * row pitch that is a multiple of 4 KiB puts every row of a tile on one. */
#define L1_MAX_ROWS_PER_SET 8
static int lines_per_l1_set(const ixj_plan *p, const plan_operand *o, int64_t n, int inner, int hi, int lo) {
  int count[64] = {0}, most = 0;
  for (int i = 0; i < n; i++) {
    uint64_t at = (uint64_t)ixj__plan_tile_step(o, i, inner, hi, lo);
    int set = (int)(at * p->elem_size % 4096 / 64); /* unsigned: right mod 4096 even where it wraps */
    if (++count[set] > most) most = count[set];
  }
  return most;
}

/* ... of a tile's source rows (its a extent; a zip's few rows: all of a) */
static int rows_per_l1_set(const ixj_plan *p) {
  int64_t ta = ixj__plan_tile_a_extent(p) < ixj__plan_tile_edge_a(p) ? ixj__plan_tile_a_extent(p) : ixj__plan_tile_edge_a(p);
  return lines_per_l1_set(p, &p->operand[1], ta, p->a_inner, p->rank - 3, p->rank - 1);
}

/* TILED: whether the tile's source rows (one for each element along a) lie
 * back to back, each b elements after the one before. */
static bool source_rows_back_to_back(const ixj_plan *p) {
  const plan_operand *src = &p->operand[1];
  return src->stride[p->rank - 1] == ixj__plan_tile_b_extent(p) && src->stride[p->rank - 2] == 1;
}

/* ... of a tile's destination rows (its b extent), each of which a tile
 * writes a piece of */
static int dst_rows_per_l1_set(const ixj_plan *p) {
  int64_t tb = ixj__plan_tile_b_extent(p) < p->tile ? ixj__plan_tile_b_extent(p) : p->tile;
  return lines_per_l1_set(p, &p->operand[0], tb, p->b_inner, p->rank - 3, p->rank - 2);
}

/* The blocks' edge V (narrowed where a tile dim is shorter: the inner dims
 * of a 6-D permute, where a block that fits beats element loops, but not
 * below the fused dim's extent `fused`), whether they stack, and the tile's
 * edge T. */
static void size_blocks(ixj_plan *p, const plan_request *req, int v, int fused) {
  int e = (int)p->elem_size, t;
  int64_t extent_a = ixj__plan_tile_a_extent(p), extent_b = ixj__plan_tile_b_extent(p);
  while (v > 2 && v / 2 >= fused && (v > extent_a || v > extent_b)) v /= 2;
  /* Tiles span 32 source rows (or the fewest a block group needs: a
   * destination row piece is a whole line): the tiles go along the source's
   * rows (emit_tiled), and the hardware prefetchers follow a few dozen
   * streams, not the 64-128 rows of a 16 KiB square tile. Measured (1 thread,
   * 64 MiB, interleaved with the 16 KiB tiles): 1.4x faster at 2-byte
   * elements, 1.2x at 4, the same at 8 and 16; 16-row tiles were slower. */
  int need = v * e < 64 ? 64 / e : v;
  t = need > 32 ? need : 32;
  p->micro = v;
  p->vector_bytes = v * e;
  p->stack = v * e == 16 ? (req->cpu_vector_bytes == 64 ? 4 : 2) : 0;
  p->tile = t;
}

/* Crowded 1-byte tiles on AVX-512 hosts stay stacked and gather
 * (plan.gather: each tile's source rows copied whole to a buffer on the
 * stack first, where the stacked blocks read their 16-byte pieces): a
 * stacked block reads each line in four pieces, which crowded rows evicted
 * between pieces; gathered, each line is loaded once, and the stacked
 * network (4 unpack stages of 64-byte vectors, one store a destination
 * line) costs fewer instructions per byte than the whole 32-byte blocks'
 * (5 stages of 32-byte vectors, a chunk shuffle among them). An environment
 * switch, three alternations, 1 / 2 threads, GB/s: 8192^2 bytes 15.5-15.8 /
 * 24.6-28.0 -> 17.6-20.2 / 29.6-32.6, 4096^2 16.0-16.2 / 27.8-29.0 ->
 * 19.7-23.0 / 32.6-42.0, NCHW -> NHWC of 64 byte channels 20.5-22.0 /
 * 35.3-38.6 -> 26.5-28.5 / 35.8-39.4, 1024^2 in cache 37-39 / 49-60 ->
 * 35-47 / 58-63. Halves gathered (one or two lines a row, 64 or 128 rows)
 * were the same or slower (NCHW -> NHWC of 64 half channels 24.8-26.2 /
 * 39.3-40.8 -> 23.1-24.6 / 31.0-35.9), so they keep the 32-byte blocks
 * (all of this on a Zen 4; on the Intel VM of round 25 crowded bytes gathered
 * too: INTEL_NARROW_TILES). Only where a tile's source rows are a whole line (b at
 * least T), a is not fused, is two blocks or more and is contiguous in the
 * destination (only stacked blocks read the buffer, and only into rows
 * without gaps: NCHW -> NHWC of 16 to 31 byte channels over 64 x 64 planes,
 * one unstacked block along a, read its rows from the source at the buffer's
 * offsets and copied the wrong bytes; 9 to 15, narrowed blocks, and a
 * destination whose a has a stride of 2 or more, element loops, failed to
 * emit): the 6-D permute of bytes (a fused a, rows of
 * 16 bytes), gathered, ran at 12 GB/s against 20-22 in 32-byte blocks; and
 * where rows spread, gathering costs (8128^2 bytes 31-33 against 38). */
static bool gather_bytes(const ixj_plan *p, const plan_request *req) {
  return p->elem_size == 1 && req->cpu_vector_bytes == 64 && !p->b_inner && !p->a_inner &&
         ixj__plan_tile_b_extent(p) >= p->tile && ixj__plan_block_group(p) > 1 && p->operand[0].stride[p->rank - 1] == 1;
}

/* CPU transposes: square macro-tiles of T x T elements made of V x V
 * in-register transposes, V the lanes of one host vector (2 for 16-byte elements on AVX2,
 * 64 for bytes on AVX-512); the emitter moves 64 bytes of destination row at a
 * time, so T is a multiple of 64 / elem_size.
 *
 * With AVX2, 1- and 2-byte blocks stack (two 16-byte blocks to a register)
 * only where the tile's source rows spread over the L1 sets: where they
 * crowd one, the stacked blocks' four 16-byte reads of each line (the
 * unstacked ones' two) refetch it as the rows evict each other. On a Zen 3
 * (1 / 2 threads, three alternations, stacked -> whole-register blocks):
 * NCHW -> NHWC of 64 channels, halves 0.42-0.43 -> 0.64-0.69 / 0.52-0.58 ->
 * 0.67-0.71, bytes 0.33-0.37 -> 0.46-0.47 / 0.45-0.50 -> 0.58-0.69, 8192^2
 * bytes (8 KiB pitch) the same; spread rows gain from stacking (5760^2
 * halves 0.36-0.68 -> 0.62-0.75).
 *
 * A Zen 4 (AVX-512) likewise: crowded stacked blocks -> whole 32-byte ones
 * (32 x 32 bytes, 16 x 16 halves; the 64-byte ones would hold 64 and 32 live
 * registers), from an environment switch, two alternations, 1 / 2 threads:
 * 8192^2 bytes 0.26-0.27 -> 0.39-0.40 / 0.37 -> 0.49-0.55, NCHW -> NHWC
 * halves 0.37-0.43 -> 0.59-0.62 / 0.49-0.55 -> 0.63-0.64. They cost code
 * generation (8192^2 bytes 23-36 -> 50-71 ms in the bench's column). On the
 * Intel VM of round 8 stacked blocks beat the 32-byte ones on 8192^2 bytes
 * (0.56-0.59 against 0.50-0.53), so there they stay stacked. Since round 17
 * crowded bytes on a Zen with AVX-512 stay stacked and gather instead
 * (gather_bytes, above).
 *
 * Since round 20 crowded halves with AVX-512 take whole 64-byte blocks (32 x
 * 32 halves: their network fits the 32 registers as four inline-asm
 * statements, emit_asm_network): a 64-byte block loads each source line once,
 * whole, where the 32-byte ones loaded its two halves at different times and
 * the rows, crowding one L1 set (32 KiB apart, a few L2 sets too), evicted
 * it in between. An environment switch, two alternations, 1 / 2 threads,
 * GB/s: NCHW -> NHWC of 64 half channels (`nchw_to_nhwc_e2`) 26.3-26.6 /
 * 42.5-47.4 -> 41.3-43.1 / 48.9-73.4, the same in cache (1 MiB) 29.9-30.1 ->
 * 48.2-48.6 at 1 thread, 4096 x 8192 halves 22.2 / 40.5-43.7 -> 23.3-27.9 /
 * 41.0-43.1; compile 9.3 -> 10.4 ms (with LLVM's shuffles for the network
 * instead, 16-17 ms at the same speed). Bytes keep 32-byte blocks: 64 rows
 * of 64 bytes would need 64 registers. */
static void choose_cpu_tile(ixj_plan *p, const plan_request *req) {
  int e = (int)p->elem_size, fused = p->b_inner ? p->b_inner : p->a_inner ? p->a_inner : 1;
  int stacked = stacked_micro(p->elem_size, fused);
  size_blocks(p, req, stacked ? stacked : cpu_micro(req, p->elem_size), fused);
  bool unstack = req->cpu_vector_bytes != 64 || req->cpu_zen || e == 2; /* halves: INTEL_AVX512_RULES */
  bool crowded = stacked && rows_per_l1_set(p) > L1_MAX_ROWS_PER_SET;
  if (crowded && gather_bytes(p, req)) p->gather = 1;
  else if (crowded && unstack) size_blocks(p, req, (e == 2 && req->cpu_vector_bytes == 64 ? 64 : 32) / e, fused);
  int64_t extent_a = ixj__plan_tile_a_extent(p);
  /* aligned rows: the destination's start and the stride of every dim but a
   * (the row pitch, b_inner's outer part and the dims outside the tile; a
   * fused a's outer part is a's) on lines, blocks storing whole lines */
  p->dst_aligned = p->operand[0].stride[p->rank - 1] == 1 && dst_on_lines(p, req, p->rank - 1, p->a_inner ? p->rank - 3 : -1) &&
                   extent_a * e >= 64; /* a row shorter than a line would stream partial lines */
}

/* ZEN_CROWDED_DESTINATION: on a Zen 4 (round 33) streamed 1- and 2-byte
 * tiles whose destination rows crowd one L1 set take the crowded rows' plans
 * as crowded source rows do (halves 64-byte blocks, bytes gathered), where
 * their stacked blocks read each source line in four 16-byte pieces at four
 * times. Decided once the plan streams (finish; a cat's part as recorded:
 * ixj__plan_part), on rows on lines, which stay streamed. An environment
 * switch, two alternations, ixjit / the ceiling, 1 / 2 threads: the (0, 1,
 * 3, 2) permute of 8 x 16 x 1024 x 128 halves (rows of 2 KiB,
 * `bt_0132_e2`) 0.31-0.36 / 0.34-0.51 -> 0.63-0.64 / 0.76-0.77,
 * NHWC -> NCHW of 64 half channels (rows of 32 KiB, `nhwc_nchw_e2`) 0.33-0.34
 * / 0.52-0.54 -> 0.62-0.63 / 0.79-0.82; bytes gathered, 8 x 16 x 2048 x 256
 * 0.32-0.34 / 0.56-0.67 -> 0.60-0.62 / 0.71, 64 byte channels 0.36-0.37 /
 * 0.54 -> 0.50-0.51 / 0.70-0.73 (bytes in 32-byte blocks instead: 0.30 /
 * 0.52-0.55 and 0.54-0.56 / 0.58-0.75). Only streamed: in cache (256 KiB to
 * 2 MiB) gathered bytes lost (42.6 -> 39.4 GB/s at 1 thread) and halves were
 * mixed (2 threads 75 -> 64 GB/s and 65 -> 66); only where nothing is fused:
 * the 6-D permute of halves (a fused a, rows crowding) lost (0.75 -> 0.62);
 * halves whose destination rows spread lost too (5760^2 1.02 -> 0.89). Intel
 * not measured: its rules keep the source's test. */
static void zen_crowded_destination(ixj_plan *p, const plan_request *req) {
  if (!avx512_host(req) || !req->cpu_zen || p->strategy != PLAN_TILED || !p->nontemporal ||
      !p->dst_aligned || !p->stack || p->gather || p->a_inner || p->b_inner || p->elem_size > 2 ||
      dst_rows_per_l1_set(p) <= L1_MAX_ROWS_PER_SET)
    return;
  if (p->elem_size == 2) size_blocks(p, req, 64 / 2, 1);
  else if (gather_bytes(p, req)) p->gather = 1;
}

/* CPU zips and unzips: one of the two unit dims is short (k = 2..7) and
 * the other continues it (its stride k) on the same side, so each block
 * moves k rows of one vector each and one contiguous run of k vectors.
 *   zip: the destination's unit dim `last` is short and q (the source's
 *   unit dim) continues it in the destination: k source rows interleave
 *   into one destination run (NCHW -> NHWC with 3 channels);
 *   unzip: q is short and `last` continues it in the source: one source run
 *   deinterleaves into k destination rows (NHWC -> NCHW).
 * Nothing rotated; the long dim at least two vectors. */
static bool short_run(const ixj_plan *p, const plan_request *req, int q, bool zip) {
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  int last = p->rank - 1;
  int64_t k = zip ? p->shape[last] : p->shape[q], along = zip ? p->shape[q] : p->shape[last];
  int64_t continued = zip ? dst->stride[q] : src->stride[last];
  if (req->gpu || p->elem_size > 8 || k < 2 || k >= 8 || dst->stride[last] != 1 || continued != k) return false;
  for (int j = 0; j < p->rank; j++)
    if (dst->rotate[j] || src->rotate[j]) return false;
  return along >= 2 * cpu_micro(req, p->elem_size);
}

/* Blocks of V = one host vector of elements along the long dim; tiles of
 * about 4 KiB of output or more (a tile's decomposition is paid once per
 * tile). Aligned (and so streamed, when the plan streams) when every block
 * starts on a line: a zip's block is one run from (b, 0), so the strides
 * outside the tile count; an unzip's k rows start at (b, a), so b's too. */
static void choose_run_tile(ixj_plan *p, const plan_request *req, int k) {
  int e = (int)p->elem_size, v = cpu_micro(req, p->elem_size);
  int t = 4096 / (k * e) / v * v;
  p->micro = v;
  p->vector_bytes = v * e;
  p->tile = t > v ? t : v;
  p->dst_aligned = dst_on_lines(p, req, p->zip ? p->rank - 2 : p->rank - 1, -1);
}

static void choose_strategy(ixj_plan *p, const plan_request *req) {
  int r = p->rank, last = r - 1;
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  bool single = all_single_lmad(p);
  p->strategy = PLAN_GENERAL;
  if (p->op == IXJ_OP_CAT || !single) return;
  bool inner_unit = true;
  for (int o = 0; o < p->num_operands; o++)
    if (has_dims(p, o) && (p->operand[o].stride[last] != 1 || p->operand[o].rotate[last])) inner_unit = false;
  if (inner_unit && p->op == IXJ_OP_COPY && r == 1) {
    p->strategy = PLAN_MEMCPY;
    return;
  }
  if (inner_unit) {
    p->strategy = PLAN_INNER_CONTIGUOUS;
    /* explicit vectors when every row start is aligned to a whole vector */
    int vector_bytes = req->gpu ? 16 : 32;
    int lanes = (int)(vector_bytes / p->elem_size);
    bool ok = lanes > 1 && p->shape[last] % lanes == 0;
    for (int o = 0; o < p->num_operands && ok; o++) {
      if (!has_dims(p, o)) continue;
      uintptr_t base = req->pointers && req->pointers[o] ? (uintptr_t)req->pointers[o] : 0;
      uint64_t start = (uint64_t)base + (uint64_t)(p->operand[o].runtime_offset + p->operand[o].head_offset) * p->elem_size;
      ok = start % (uint64_t)vector_bytes == 0;
      for (int j = 0; j < last && ok; j++) ok = p->operand[o].stride[j] % lanes == 0;
    }
    if (ok) p->vector_elems = lanes;
    return;
  }
  /* a destination whose smallest stride is not 1 still gains from tiles: the
   * source is read along its unit dim instead of across it */
  if (p->op != IXJ_OP_COPY || r < 2 || dst->stride[last] == 0 || dst->rotate[last]) return;
  /* the source's unit-stride dim becomes dim r-2: tile (r-2, r-1) */
  for (int q = last - 1; q >= 0; q--) {
    if (src->stride[q] != 1 || src->rotate[q] || dst->rotate[q] || src->rotate[last]) continue;
    bool zip = p->shape[last] < 8 && short_run(p, req, q, true);
    if (zip || (p->shape[q] < 8 && short_run(p, req, q, false))) { /* tile (q, last) as one run per block */
      int order[IXJ_MAX_RANK], m = 0;
      for (int k = 0; k < r; k++)
        if (k != q && k != last) order[m++] = k;
      order[m++] = q;
      order[m++] = last;
      select_dims(p, order, m);
      p->strategy = PLAN_TILED;
      if (zip) p->zip = (int)p->shape[r - 1];
      else p->unzip = (int)p->shape[r - 2];
      choose_run_tile(p, req, zip ? p->zip : p->unzip);
      return;
    }
    int hi = (p->shape[q] < 8 || wide_fused_b(p, req)) && !req->gpu ? fusable_partner(p, req, q) : -1; /* INTEL_FUSED_B, ZEN_FUSED_B */
    if (p->shape[q] < 8 && hi < 0) return;
    int ahi = hi < 0 && !req->gpu ? fusable_a_partner(p, req, q) : -1;
    if (p->shape[last] < 8 && ahi < 0) return;
    int order[IXJ_MAX_RANK], m = 0;
    for (int k = 0; k < r; k++)
      if (k != q && k != last && k != hi && k != ahi) order[m++] = k;
    if (hi >= 0) order[m++] = hi;
    if (ahi >= 0) order[m++] = ahi;
    order[m++] = q;
    order[m++] = last;
    int64_t inner = p->shape[q], inner_a = p->shape[last];
    select_dims(p, order, m);
    p->strategy = PLAN_TILED;
    if (req->gpu) {
      p->tile = p->elem_size <= 4 ? 32 : 16;
      return;
    }
    if (hi >= 0) p->b_inner = (int)inner;
    if (ahi >= 0) p->a_inner = (int)inner_a;
    choose_cpu_tile(p, req);
    return;
  }
}

/* A GENERAL copy whose destination rows are contiguous and whose source
 * rows are read with a small constant stride (reversed, every 2nd to 4th
 * element, or one element broadcast; rotated: in two pieces, one on each
 * side of the wrap) moves the middle of each row by
 * vectors: one vector store per 64-byte line of destination (streamed when
 * the plan streams, which needs them aligned), the source by one or a few
 * vector loads and a shuffle. LLVM's loop vectorizer does not do this for
 * streaming stores (it needs the alignment ixjit finds at run time). Rows
 * shorter than two vectors keep the scalar loop.
 *
 * The same for INNER_CONTIGUOUS copies and fills whose rows do not all start
 * on a vector or are not whole vectors long (a[:, 37:], a[:, 1:], rows of
 * 100 elements), which choose_strategy leaves without vectors: they moved
 * element by element. On an AVX-512 host the rest of each row (its head and
 * tail, or all of a row shorter than a line) moves by masked loads and stores
 * (plan.masked_ends), a vector at a time. Measured on a Zen 4 (ixjit / the
 * ceiling, 1 / 2 threads; docs/cpu-path.md): 4096^2 floats from a[:, 37:]
 * 0.65-0.69 / 0.96, bytes 0.18 / 0.16, halves 0.36 / 0.54 element by
 * element, against 0.97-1.01 / 0.98-1.00, 0.96 / 0.93-0.98 and 1.02-1.04 /
 * 0.96 with the vector loops. A fill or a copy whose source is rotated along
 * the row (its pieces meet inside a segment) or strided keeps the scalar ends. */
static void choose_row_lanes(ixj_plan *p, const plan_request *req) {
  bool unaligned_rows = p->strategy == PLAN_INNER_CONTIGUOUS && p->vector_elems == 1;
  if (req->gpu || p->elem_size > 8) return;
  if (p->op == IXJ_OP_COPY ? p->strategy != PLAN_GENERAL && !unaligned_rows : p->op != IXJ_OP_FILL || !unaligned_rows) return;
  int last = p->rank - 1, lanes = (req->cpu_vector_bytes == 64 ? 64 : 32) / (int)p->elem_size;
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  bool fill = p->op == IXJ_OP_FILL;
  int64_t s = fill ? 1 : src->stride[last];
  if (dst->num_tail || (!fill && src->num_tail) || dst->stride[last] != 1 || dst->rotate[last]) return;
  bool masked = req->cpu_vector_bytes == 64 && s == 1 && (fill || !src->rotate[last]);
  if (s < -1 || s > 4 || (!masked && p->shape[last] < 2 * lanes)) return;
  p->row_lanes = lanes;
  p->masked_ends = masked;
}

/* Rows back to back in the destination (plan.packed_rows;
 * emit_packed_rows in gen/emit_llvm.c): a rank-2 copy whose rows take masked
 * ends (row_lanes with masked_ends) and are at least a vector long (a vector
 * then holds at most two rows) walks the destination's vectors, one load or
 * two each, instead of its rows: every line then goes out whole, by one
 * store. Where it pays (Zen 4, ixjit / the ceiling, 1 / 2 threads, an
 * environment switch alternated two to four times, row by row -> packed):
 * 1- and 2-byte rows (bytes, rows of 100 / 1000 / 4000: 0.56 / 0.55 ->
 * 0.69-0.73 / 0.71-0.72, 0.67-0.73 / 0.71-0.73 -> 1.00 / 0.96-1.04, 0.85 /
 * 0.92-0.94 -> 0.94 / 0.90-1.00; rows of 6000, 8191 and 16001 at 1 thread
 * 0.75-0.91, 0.80-0.90 and 0.79-0.95 -> 0.90-1.00, 0.86-1.03 and 0.88-1.11;
 * halves, rows of 500: 0.69-0.76 / 0.69-0.74 -> 0.90 / 0.95-0.97, of 4000
 * 0.95-1.02 -> 0.91-0.97 at 1 thread), whose rows otherwise store their ends
 * plainly or all of themselves; and 4- and 8-byte rows shorter than two
 * vectors, which otherwise move element by element (24 floats: 0.53-0.56 /
 * 0.78-0.80 -> 0.81-0.86 / 0.87-0.95). Longer 4- and 8-byte rows keep their
 * vector rows with streaming scalar ends, which ran as fast or faster, 1
 * thread (rows of 100 / 300 / 1000 floats: 0.84-0.96 / 0.83-0.88 / 1.02 row
 * by row, 0.84-0.86 / 0.83-0.85 / 0.86-0.92 packed; of 40 / 100 / 250
 * doubles: 1.03-1.04 / 0.63-0.81 / 0.98-1.00 against 0.83-0.84 / 0.84-0.90 /
 * 0.88-0.90). */
/* PACKED_PERIOD_MAX_LINES: packed rows whose lines repeat within this many
 * (the rows' length n and the vector's L lanes: lcm(n, L) / L lines, L /
 * gcd(n, L) rows) walk the destination's lines from a table (plan.
 * packed_period, emit_packed_period in gen/emit_llvm.c): each line two whole
 * loads, a blend and a store (11 instructions), where the masked walk takes
 * about 45 and two branches. Their source pitch must be n or more (a line's
 * whole first load reaches into the gap after its row), and a period's rows
 * must fit in the copy. The table is 24 bytes a line on the stack (6 KiB at most). On the
 * Intel VM (round 30, an environment switch alternated twice, ixjit / the
 * ceiling, 1 / 2 threads): rows of 100 bytes from a pitch of 128 (25 lines,
 * `rows_short_e1`) 0.78-0.79 / 0.69-0.73 -> 0.89-0.90 / 0.83-0.88, of 24
 * floats 0.75-0.77 / 0.59-0.71 -> 0.86-0.87 / 0.74-0.82, of 101 bytes (101
 * lines) 0.77-0.79 / 0.68-0.76 -> 0.81-0.87 / 0.73-0.83; rows of 1000 bytes
 * (125 lines) and 500 halves the same or a little faster (0.92-1.01 ->
 * 0.95-1.04). Longer 4- and 8-byte rows lost on the table (100 floats
 * 0.79-0.83 -> 0.67-0.74) and keep theirs (choose_packed_rows). Zen 4 not
 * measured. */
#define PACKED_PERIOD_MAX_LINES 256
static int64_t gcd_i64(int64_t a, int64_t b) {
  while (b) {
    int64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}
static int packed_period(const ixj_plan *p) {
  int64_t n = (int64_t)p->shape[1], lanes = p->row_lanes, pitch = p->operand[1].stride[0];
  if (!p->packed_rows || pitch < n) return 0;
  int64_t g = gcd_i64(n, lanes), lines = n / g, rows = lanes / g;
  return lines <= PACKED_PERIOD_MAX_LINES && (int64_t)p->shape[0] > rows ? (int)lines : 0;
}

static void choose_packed_rows(ixj_plan *p) {
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  if (p->strategy != PLAN_INNER_CONTIGUOUS || !p->masked_ends || p->op != IXJ_OP_COPY || p->rank != 2) return;
  if (dst->stride[0] != p->shape[1] || dst->rotate[0] || src->rotate[0] || p->shape[1] < p->row_lanes) return;
  if (p->elem_size <= 2 || p->shape[1] < 2 * p->row_lanes) p->packed_rows = 1;
  p->packed_period = packed_period(p);
}

/* Masked stores are plain stores: there are no masked streaming ones. Among
 * a streamed row's streaming stores they cost far more than their lines
 * (rows of 100 floats back to back, the ends masked: 0.35-0.38 of the
 * ceiling at 1 thread, element by element by streaming stores 0.87; a write
 * prefetch of the ends' lines, 2 or 8 KiB ahead, did not help). So once the
 * plan streams: rows shorter than a vector, which hold no whole line, are
 * stored plainly, masked (rows of 7 floats: 0.53-0.59 against 0.19-0.31 by
 * streaming stores, element by element); 4- and 8-byte rows keep their ends
 * element by element (`movnti`), and rows shorter than two vectors the scalar
 * loop (rows of 24 floats: 0.51-0.52 / 0.73-0.76 so, 0.50-0.62 / 0.59-0.61
 * plainly with masked ends); 1- and 2-byte
 * elements have no streaming scalar store, and their rows with partial lines
 * stream only from STREAM_ROW_MIN_BYTES: shorter, the whole copy stores
 * plainly (bytes, rows of 100 / 1000 / 4000 / 16001 back to back, 1 thread:
 * 0.43 / 0.53 / 0.84 / 0.91 streamed with masked ends, 0.53 / 0.75 / 0.70 /
 * 0.72 plainly; halves, rows of 500 / 2000: 0.52 / 0.84 against 0.76 /
 * 0.69). A fill of such rows stores plainly at every length: a[:, 1:] of
 * 8192^2 bytes ran at 0.85-0.86 / 0.86-0.88 streamed with masked ends,
 * 0.98-1.03 / 1.05-1.10 plainly, where NumPy's plain stores ran 0.93-0.99
 * (two alternations; the ceiling measured after it the same either way:
 * round 16 kept 64 MiB fills streamed for the dirty lines a plain fill leaves
 * to what runs next, which did not show here). That was a Zen 4: on the
 * Intel VM of round 25 the plain stores' reads for ownership halve it, so
 * elsewhere fills stream as copies do (an environment switch, two
 * alternations, 1 / 2 threads: the same fill 0.44-0.54 / 0.61-0.62 plainly,
 * 0.98-1.08 / 1.36-1.40 streamed; a[:, 1:] of 5760^2 halves 0.47-0.71 /
 * 0.65-0.66 -> 0.81-0.92 / 1.38-1.42). */
#define STREAM_ROW_MIN_BYTES 2048
static void streamed_row_ends(ixj_plan *p, const plan_request *req) {
  if (!p->masked_ends || !p->nontemporal || p->packed_rows) return;
  int last = p->rank - 1;
  uint64_t row_bytes = (uint64_t)p->shape[last] * p->elem_size;
  if (p->shape[last] < p->row_lanes) {
    p->nontemporal = 0;
  } else if (p->elem_size >= 4) {
    p->masked_ends = 0;
    if (p->shape[last] < 2 * p->row_lanes) p->row_lanes = 0;
  } else if ((p->op == IXJ_OP_FILL && req->cpu_zen) ||
             (row_bytes < STREAM_ROW_MIN_BYTES && !(row_bytes % 64 == 0 && dst_on_lines(p, req, last, -1)))) {
    p->nontemporal = 0;
  }
}

/* A streamed copy of contiguous rows whose source rows lie far apart
 * (`p3d_102`: 1 KiB rows 256 KiB apart) reads each row as a new stream,
 * which the hardware prefetchers pick up only after its first lines (and
 * never across a page); moving ROW_GROUP rows together, a line of each in
 * turn, keeps that many streams in flight. Measured on a Zen 4 (a C harness,
 * the 256^3 float permute (1,0,2), GB/s, five runs): a row at a time
 * 12.2-13.9, each row prefetched whole 8 rows ahead 14.4-17.9, 4 rows
 * interleaved 14.7-19.5, 8 rows 17.0-23.2, a streamed copy of the same bytes
 * 20.9-22.3. In ixjit (an environment switch, two alternations, 1 thread,
 * ixjit / the ceiling, a row at a time / groups of 4 / of 8): 1 KiB rows
 * 0.41-0.44 / 0.59 / 0.56-0.62, 512-byte rows 0.37-0.40 / 0.49-0.53 /
 * 0.53-0.56, 4 KiB rows 0.44-0.56 / 0.72-0.74 / 0.63-0.74, 16 KiB rows 256
 * KiB apart 0.51-0.60 / 0.82-0.89 / 0.59-0.62; but rows of 16 KiB next to
 * each other (a pitch of 16640 bytes) 0.98-1.18 / 0.87-0.89 and rows of 64
 * KiB 0.97-0.99 / 0.75-0.87. So groups of 4, rows of whole lines up to
 * ROW_GROUP_MAX_BYTES whose source rows are at least two rows apart. On Zen
 * cores (the request's cpu_zen) and, since round 31, on Intel's with AVX-512
 * (INTEL_ROW_GROUPS, below); on the Intel VM of round 8 `p3d_102` ran at 0.85
 * of the ceiling a row at a time. The group's dim must be a multiple of
 * ROW_GROUP and not rotated.
 *
 * GENERAL copies whose rows are read with a stride (`slice_step`:
 * a[::2, ::2], each source row 32 KiB long and 64 KiB from the next) group
 * their aligned vector ranges the same way (plan.row_lanes; heads and tails
 * row by row), where the destination's pitch is whole lines so that every
 * row of a group has the same range. A C harness (4096^2 floats from
 * a[::2, ::2], GB/s, six runs): a row at a time 11.0-11.4, 2 rows 13.7-14.2, 4
 * rows 16.0-16.7, 8 rows 14.8-16.4. In ixjit (the builds alternated three
 * times, GB/s at 1 thread): `slice_step` 10.5-15.9 -> 17.2-18.9, the same
 * with 8-byte elements and reversed rows 10.7-16.2 -> 18.3-22.2, every third
 * element 7.5-9.6 -> 9.9-13.2. Rows next to each other but read forward
 * one before the other restart a stream at every row too: a[::-1] of 4096^2
 * floats 18.0-19.1 -> 26.3-29.5 GB/s, a[::-1, ::2] 10.1-11.7 -> 14.5-14.9,
 * while a[::-1, ::-1], one stream backward, 29.0-34.6 either way (an
 * environment switch, three alternations). The group costs code generation: `slice_step`
 * 9.8-10.2 -> 12.6-13.4 ms, `p3d_102` 4.3-5.2 -> 8.2-8.6 (ixjit-compile-phases,
 * against the ungrouped kernels of the same shape).
 *
 * INTEL_ROW_GROUPS: the Intel AVX-512 VM (round 31) gains from the groups
 * too (an environment switch, two alternations, ixjit / the ceiling, 1 / 2
 * threads): `slice_step` 0.52-0.53 / 0.51 -> 0.62 / 0.59, `slice_rev_step`
 * 0.59-0.67 / 0.65-0.71 -> 0.75 / 0.72-0.73; rows walked in the source's
 * order group as well (the four rows of a quad, row_quads):
 * `rows_10324` (64-byte rows 2 KiB apart) 0.78-0.79 / 0.84 -> 0.91-0.93 /
 * 1.02-1.06, `rows_102_64b` 0.99-1.01 / 1.01 -> 1.08-1.10 / 1.07-1.09,
 * `p3d_102`, `rows_102_512b`, `rows_0213` and `cat2_rows_102` the same.
 * Groups of 8 rows against 4: `slice_step` 0.62-0.63 / 0.59-0.60 against
 * 0.59-0.60 / 0.55-0.57, `slice_rev_step` 0.69-0.74 / 0.59-0.71 against
 * 0.72-0.74 / 0.70-0.71, within the noise; groups of 2 slower. Not measured
 * on Intel's AVX2 hosts, which keep a row at a time. */
#define ROW_GROUP 4
#define ROW_GROUP_MAX_BYTES 16384
static void choose_row_group(ixj_plan *p, const plan_request *req) {
  int last = p->rank - 1;
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  if (req->gpu || !(req->cpu_zen || intel_avx512(req)) || p->op != IXJ_OP_COPY || !p->nontemporal || last < 1) return;
  if (p->shape[last - 1] % ROW_GROUP) return;
  uint64_t row_bytes = (uint64_t)p->shape[last] * p->elem_size;
  if (row_bytes > ROW_GROUP_MAX_BYTES) return;
  if (p->strategy == PLAN_INNER_CONTIGUOUS) {
    if (p->vector_elems < 2 || row_bytes % PLAN_ROW_GROUP_STEP_BYTES) return;
  } else if (p->strategy == PLAN_GENERAL && p->row_lanes) {
    /* every row of a group has the same vector range: a pitch of whole lines */
    if ((uint64_t)dst->stride[last - 1] * p->elem_size % 64 || dst->rotate[last] || src->rotate[last]) return;
  } else {
    return;
  }
  /* at least two rows apart (the span of a source row and as much again),
   * or rows read forward one before the other (a[::-1]) */
  int64_t apart = src->stride[last - 1], step = src->stride[last];
  bool backward = apart < 0 && step > 0;
  if (apart < 0) apart = -apart; /* no overflow: the strides of dims of 2 or more points lie within a buffer */
  if (step < 0) step = -step;
  if (apart < 2 * p->shape[last] * (step ? step : 1) && !backward) return;
  for (int o = 0; o < 2; o++)
    if (p->operand[o].rotate[last - 1] || p->operand[o].num_tail) return;
  p->row_group = ROW_GROUP;
}

/* The walk itself (source_major_rows decides where): the outer dims by
 * descending source stride, where that puts the rows back to back in the
 * source; whether it did. A cat part's rebuilt plan takes it as recorded
 * (ixj__plan_part): the decision depends on the pointers and the cache size,
 * which the rebuild does not have. */
static bool walk_rows_source_major(ixj_plan *p) {
  int rows = p->rank - 1, keep[IXJ_MAX_RANK];
  for (int k = 0; k < p->rank; k++) keep[k] = k;
  sort_dims_by_stride(p, 1, keep, rows); /* source-major */
  if (p->operand[1].stride[keep[rows - 1]] != p->shape[rows]) return false; /* rows not back to back in the source */
  select_dims(p, keep, p->rank);
  p->source_major = 1;
  return true;
}

/* The innermost of the outer dims [0, outer) that steps (extent > 1), or -1:
 * the dim that takes the walk from one row or tile to the next. */
static int innermost_stepping_dim(const ixj_plan *p, int outer) {
  for (int j = outer - 1; j >= 0; j--)
    if (p->shape[j] > 1) return j;
  return -1;
}

/* INTEL_SOURCE_MAJOR: on the Intel AVX-512 VM (round 28) streamed rows and
 * tiles walk in the source's order too (source_major_rows and _tiles,
 * below), where the destination's order steps the source by a page (4 KiB)
 * or more from one row or tile to the next (each then starts a stream the
 * hardware prefetcher has not seen), and, for tiles, where a tile writes
 * runs of two lines or more (INTEL_SOURCE_MAJOR_RUN; in the source's order
 * consecutive tiles write far apart, and single lines there lost). An
 * environment switch, two alternations, ixjit / the ceiling, 1 / 2
 * threads: rows (0, 1, 2)-permuted of 64 bytes 0.37 / 0.33-0.35 -> 0.86 /
 * 0.77-0.81, of 128 bytes 0.71-0.73 / 0.64-0.66 -> 1.00-1.07 / 0.96-1.00,
 * of 512 bytes 1.06-1.07 / 0.95-0.97 -> 1.17-1.20 / 1.10-1.11, of 4 KiB
 * 0.91-0.93 / 0.87-0.89 -> 1.09-1.11 / 1.01-1.02, the 4-D permute (0, 2, 1,
 * 3) of 64^4 floats 0.92-0.98 / 0.79 -> 1.05-1.07 / 1.00-1.03,
 * `cat2_rows_102` 1.00 / 0.89-0.94 -> 1.16-1.17 / 1.05-1.11, `p3d_102`
 * 1.10-1.11 / 1.00-1.02 -> 1.09-1.13 / 1.06-1.13; tiles: `p6d` 0.93-0.94 /
 * 0.89-0.91 -> 1.11-1.21 / 1.09-1.12, its halves 0.75-0.80 / 0.87-0.88 ->
 * 1.11-1.13 / 1.05-1.07, the 4-D permute (1, 0, 3, 2) of 64^4 floats
 * 0.84-0.85 / 0.80-0.82 -> 0.91 / 0.85-0.87, of 256 x 256 x 16 x 16
 * 0.96-1.01 / 0.92 -> 1.21-1.22 / 1.10-1.11. Not taken: 64-byte rows 2 KiB
 * apart in the source (a 5-D permute (1, 0, 3, 2, 4) of 16-float rows,
 * 0.82-0.83 / 0.89-0.90 -> 0.66-0.67 / 0.77-0.79; of 32 floats and of 16
 * doubles the same either way), `p6d` of doubles, whose tiles write a line
 * to each of 16 rows (0.92-0.98 / 0.97-0.99 -> 0.80-0.91 / 0.95). */
#define INTEL_SOURCE_MAJOR_RUN 128
static bool intel_source_jumps_pages(const ixj_plan *p, const plan_request *req, int outer) {
  int j = innermost_stepping_dim(p, outer);
  if (!intel_avx512(req) || j < 0) return false;
  int64_t step = p->operand[1].stride[j] < 0 ? -p->operand[1].stride[j] : p->operand[1].stride[j];
  return step >= 4096 / (int64_t)p->elem_size;
}

/* Bytes a tile writes back to back in the destination: a row along a (a
 * fused a where its outer part follows the inner one), the whole tile where
 * its rows follow one another. */
static int64_t tile_dst_run_bytes(const ixj_plan *p) {
  const plan_operand *dst = &p->operand[0];
  int r = p->rank;
  int64_t a = p->shape[r - 1];
  if (p->a_inner && dst->stride[r - 3] == p->shape[r - 1]) a *= p->shape[r - 3];
  int64_t run = a == ixj__plan_tile_a_extent(p) && !p->b_inner && dst->stride[r - 2] == a ? a * ixj__plan_tile_b_extent(p) : a;
  return run * (int64_t)p->elem_size;
}

/* INTEL_ROW_QUADS: on the Intel AVX-512 VM (round 30) rows walked in the
 * source's order (walk_rows_source_major) wrote each row where it lies in
 * the destination, one row a step: rows of a line or two each went to a
 * different page, where streaming stores of single lines run slowly
 * (docs/cpu-path.md, round 23's harness: 14 GB/s against 24-25 for two lines
 * back to back). Now, for rows of at most INTEL_ROW_QUAD_MAX_BYTES, the dim
 * that steps the destination by one row is split, and its inner 4 (or 2,
 * where 4 does not divide it) rows go innermost among the outer dims: each
 * step of the source's walk moves 4 rows from 4 source streams into one run
 * of the destination. An environment switch, two alternations, ixjit / the
 * ceiling, 1 / 2 threads: the (1, 0, 2) permute of 1024 x 1024 x 16 floats
 * (64-byte rows) 0.78-0.79 / 0.74-0.75 -> 0.98-1.00 / 0.87-0.98, of 8
 * doubles 0.77 -> 1.01-1.03 / 0.94-1.01, of 64 bytes 0.78 / 0.75-0.78 ->
 * 0.95-0.97 / 0.97-0.98, with 128-byte rows 0.98-0.99 / 0.91-0.97 ->
 * 1.07-1.08 / 1.06-1.09, 256-byte rows 1.02-1.05 / 0.96 -> 1.11-1.13 /
 * 1.04-1.06, the (0, 2, 1, 3) permute of 16 x 256 x 256 x 16 floats
 * 0.79-0.80 / 0.75-0.76 -> 0.91-0.93 / 0.83-0.91, 1022 x 1023 x 16 (pairs)
 * 0.73 / 0.70-0.71 -> 0.89-0.91 / 0.79-0.92; 2 KiB rows the same (0.96-1.03
 * -> 0.93-1.03, bytes and floats, (1, 0, 2) and (0, 2, 1, 3)), 4 KiB rows too
 * (0.99 / 0.93-0.97 -> 0.94-0.98 / 0.88-0.96), so not those; groups of 8: as
 * 4.
 * ZEN_ROW_QUADS: on the Zen 4 (round 32, its AVX-512; the rows there walk
 * source-major wherever they are whole lines, round 10) the same. An
 * environment switch, two alternations, ixjit / the ceiling, 1 / 2 threads:
 * `rows_102_64b` 0.51-0.54 / 0.66-0.79 -> 0.94 / 0.94-0.95, `rows_102_512b`
 * 0.95-0.96 / 0.96-1.00 -> 1.03-1.08 / 0.96-1.02, `p3d_102` (1 KiB rows)
 * 0.95-0.98 / 0.98-1.00 -> 1.07-1.09 / 1.00-1.02, `cat2_rows_102`'s parts
 * 0.90 / 0.95 -> 1.03-1.05 / 0.71-0.99 (one run slow); `rows_0213` and
 * `rows_10324` the same. Intel's prefetch of rows (INTEL_ROW_PREFETCH) on
 * top gained a little for 64-byte rows (1.02-1.05 / 0.96-0.97) but cost
 * rows of bytes (`slice_cols_e1` 0.99-1.00 -> 0.63-0.81): Intel's only. */
#define INTEL_ROW_QUAD_MAX_BYTES 1024
static void row_quads(ixj_plan *p, const plan_request *req) {
  int rows = p->rank - 1;
  if (!avx512_host(req) || !p->source_major || p->rank >= IXJ_MAX_RANK ||
      (uint64_t)p->shape[rows] * p->elem_size > INTEL_ROW_QUAD_MAX_BYTES)
    return;
  for (int d = 0; d < rows - 1; d++) {
    int64_t k = p->shape[d] % 4 == 0 ? 4 : p->shape[d] % 2 == 0 ? 2 : 1;
    if (p->operand[0].stride[d] != p->shape[rows] || k == 1) continue;
    /* dim d becomes d / k in place and d % k just before the row */
    for (int o = 0; o < p->num_operands; o++) {
      plan_operand *x = &p->operand[o];
      x->stride[rows + 1] = x->stride[rows];
      x->rotate[rows + 1] = x->rotate[rows];
      x->stride[rows] = x->stride[d];
      x->rotate[rows] = 0; /* the walk is source-major only without rotations */
      x->stride[d] *= k;
    }
    p->shape[rows + 1] = p->shape[rows];
    p->shape[rows] = k;
    p->shape[d] /= k;
    p->rank++;
    return;
  }
}

/* A streamed copy of contiguous rows walks them in the source's order, not
 * the destination's, where the destination's rows are whole lines on line
 * boundaries: the source is then read as one stream, and the destination
 * written a row at a time wherever its rows lie, which streaming stores of
 * whole lines do at full speed. Measured on a Zen 4 (C harnesses, 64 MiB,
 * GB/s, 1 thread): reading 1 KiB rows 256 KiB apart 8-12 (a row at a time or
 * four in turn, prefetched a few rows ahead or not) against 25-27 in order,
 * while streaming stores of whole 1 KiB rows 256 KiB apart, 256 rows in turn,
 * ran at 25-27, as fast as in order. In ixjit (an environment switch, three
 * alternations, ixjit / the ceiling, 1 / 2 threads): the 256^3 float permute
 * (1, 0, 2) 0.63-0.69 / 0.66-0.74 -> 0.95-0.99 / 0.93-1.02 (its row groups,
 * below, go: its source rows are now next to each other), with 512-byte rows
 * 0.49-0.56 / 0.65-0.66 -> 0.85-0.94 / 0.91-0.95, 4 KiB rows 0.72-0.81 /
 * 0.83-0.92 -> 0.97-1.06 / 0.94-0.97, a 4-D permute (0, 2, 1, 3) 0.65-0.68 /
 * 0.73-0.77 -> 0.95-1.04 / 1.00-1.09. Only where that order reads the source
 * forward, row after row (the rows next to each other in the source: no
 * reversed or rotated outer dims), and on Zen cores, where it was measured,
 * and Intel's AVX-512 hosts where the rows' sources are a page apart
 * (INTEL_SOURCE_MAJOR). */
static void source_major_rows(ixj_plan *p, const plan_request *req) {
  int rows = p->rank - 1; /* the outer dims; the last is the contiguous row */
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  if (req->gpu || p->op != IXJ_OP_COPY || p->strategy != PLAN_INNER_CONTIGUOUS || !p->nontemporal || rows < 2) return;
  if (!req->cpu_zen && !intel_source_jumps_pages(p, req, rows)) return;
  if (dst->num_tail || src->num_tail || (uint64_t)p->shape[rows] * p->elem_size % 64 || !dst_on_lines(p, req, rows, -1)) return;
  for (int j = 0; j < rows; j++)
    if (dst->rotate[j] || src->rotate[j] || src->stride[j] <= 0) return;
  walk_rows_source_major(p);
  row_quads(p, req);
}

/* The same for the dims outside a streamed transpose's tiles: tiles follow
 * one another in the source's order of those dims, not the destination's,
 * so that where tiles are small (a 6-D permute's tile is 2 KiB of source
 * read in pieces of 512 bytes) the next tile's source is the next run of
 * memory, not one a megabyte away; a tile still writes whole lines (streamed
 * tiles are aligned or staged) wherever they lie. Measured on a Zen 4 (an
 * environment switch, three alternations, ixjit / the ceiling, 1 / 2
 * threads): `p6d` 0.31-0.32 / 0.38-0.43 -> 0.54-0.72 / 0.68-0.69, the 4-D
 * permute (1, 0, 3, 2) of 64^4 floats 0.48-0.49 / 0.53-0.60 -> 0.61-0.64 /
 * 0.56-0.78, of 256 x 256 x 16 x 16 0.40-0.41 / 0.50-0.56 -> 0.68-0.84 /
 * 0.87-0.95. On Zen cores, where it was measured, and Intel's AVX-512 hosts
 * where the tiles' sources are a page apart and a tile writes two lines on
 * end (INTEL_SOURCE_MAJOR). */
static void source_major_tiles(ixj_plan *p, const plan_request *req) {
  if (req->gpu || p->strategy != PLAN_TILED || !p->nontemporal) return;
  int outer = ixj__plan_tile_outer_dims(p), keep[IXJ_MAX_RANK];
  if (!req->cpu_zen && !(intel_source_jumps_pages(p, req, outer) && tile_dst_run_bytes(p) >= INTEL_SOURCE_MAJOR_RUN))
    return;
  for (int k = 0; k < p->rank; k++) keep[k] = k;
  sort_dims_by_stride(p, 1, keep, outer); /* source-major */
  select_dims(p, keep, p->rank);
}


/* Rows shorter than a line, back to back in the destination (NHWC with a
 * few dozen byte or half channels, or 8 to 15 float ones), streamed: the
 * tiles' blocks need a line of row, so where the unstaged blocks (as wide
 * as the row allows, a power-of-two number of micro-wide blocks) do not
 * cover a, the elements past them went one by one (60 byte channels: 0.08-
 * 0.09 of the ceiling). Such a tile is staged and spans a (emit_span_flush)
 * with one block along a that is a line wide: the columns past a read a's
 * last row again, and each destination row's vector store reaches past its
 * end into the next row's, which the next store writes (emit_micro_transpose
 * stores a block's rows in order). Measured (1 / 2 threads, ixjit / the
 * ceiling, an environment switch and then the builds, alternated twice each,
 * NHWC copies of 10-40 MiB): bytes with 24, 48 and 60 channels 0.16-0.24 /
 * 0.21-0.35 -> 0.41-0.51 / 0.62-0.89, 0.12-0.15 / 0.16-0.22 -> 0.69-0.76 /
 * 0.72-0.98, 0.08-0.10 / 0.11-0.14 -> 0.81-0.91 / 0.84-1.00; halves with 24
 * 0.20-0.25 / 0.34-0.38 -> 0.64-0.81 / 0.85-0.99 (12: 0.23-0.33 ->
 * 0.29-0.37); floats with 12 0.32-0.39 / 0.40-0.55 -> 0.96-1.02 / 0.91-1.02.
 * Rows the unstaged blocks cover keep them: spanned, bytes with 32 channels
 * ran 0.35-0.45 -> 0.57-0.62 and floats with 8 0.54 -> 0.85 at 20 MiB but
 * the same either way at 80 MiB (0.65-0.81, 0.71-1.00), bytes with 16
 * 0.47-0.77 -> 0.32-0.34, halves with 16 0.41-0.94 at 10 MiB and 0.75-0.79
 * at 40 MiB either way. Rows under 24 bytes lost (bytes with 8 and 12
 * channels 0.35-0.42 -> 0.09, 0.14-0.18 -> 0.09-0.10: a line-wide block for
 * 8 bytes of row) and keep the element loops. */
#define SHORT_SPAN_MIN_BYTES 24
/* whether the destination's rows (a) are back to back (b's stride is a's
 * extent) and neither tile dim is fused: a tile's rows can be one run */
static bool dst_rows_back_to_back(const ixj_plan *p) {
  return !p->a_inner && !p->b_inner && p->operand[0].stride[p->rank - 2] == ixj__plan_tile_a_extent(p);
}
static bool short_span(const ixj_plan *p) {
  int64_t a = ixj__plan_tile_a_extent(p), cols = (int64_t)p->micro * ixj__plan_block_group(p);
  return p->nontemporal && dst_rows_back_to_back(p) && ixj__plan_a_bytes_at_least(p, SHORT_SPAN_MIN_BYTES) &&
         (a < p->micro || a % cols != 0);
}

/* A streamed transpose whose destination rows do not all start on lines
 * (4000 x 4030 floats: a row pitch of 16120 bytes) stages its tiles (plan.staged):
 * stored in place its blocks were unaligned vectors, which cannot stream and
 * each touched two lines, read for ownership and written back at different
 * times: 0.20 of the ceiling where a pitch of 4032 floats ran at 0.90 (1 thread,
 * 62 MiB). The buffer's rows go out with streaming stores of whole lines and
 * byte-masked stores (AVX-512BW) of the two partial lines at each row piece's
 * ends. The blocks must be whole vectors into contiguous rows (no gaps, no zip)
 * of at least a line.
 *
 * In cache (not streamed) a transpose of 4- or 8-byte elements whose rows are
 * off lines is staged too, its buffer flushed by plain stores: unstaged, each
 * of its blocks' vector stores straddles two lines. Measured (1 thread, L2-
 * resident, the same build staged and not, alternated twice, ixjit / the
 * ceiling): 724^2 floats 0.25-0.28 -> 0.47-0.51, 1000^2 0.33-0.35 -> 0.53-0.59,
 * 500^2 0.34 -> 0.51-0.56, 250^2 0.36-0.38 -> 0.46-0.47, 362^2 doubles
 * 0.33-0.35 -> 0.51-0.57, NHWC with 60 channels 0.45-0.48 -> 0.71-0.75;
 * 1030^2 floats and 100^2 doubles the same; 200^2 floats 0.82x. 1- and
 * 2-byte elements gained nothing in cache (their blocks are stacked and
 * shorter) and staging costs compile time, so they stay unstaged there.
 *
 * Without AVX-512 (no byte-masked stores) the partial lines go out byte by
 * byte (PLAN_STAGED_BYTES): at most 63 bytes at each end of a row piece. On a
 * Zen 3 (AVX2; 1 thread, the builds alternated twice, ixjit / the ceiling):
 * streamed, 4000 x 4030 floats 0.27-0.30 -> 0.46-0.55, NHWC with 60
 * channels 0.25-0.29 -> 0.46-0.51 (from 0.9 of NumPy to 1.7-1.8), 2800 x
 * 2830 doubles 0.29-0.38 -> 0.46-0.53, 5700 x 5701 halves the same; but in
 * cache 1000^2 floats ran at 0.4-0.6x and 362^2 doubles at 0.55x staged (the
 * flush's line loads span two of the blocks' 32-byte stores, which cannot
 * forward to them), so there only streamed tiles stage.
 *
 * A Zen 4 (AVX-512, whose 64-byte stores it executes as two halves) showed
 * the same in cache: staged T x T tiles ran slower than unstaged ones
 * (GB/s, 1 thread, two alternations: 500^2 floats 28-32 -> 47-49, 1000^2
 * 21-27 -> 39-60, 724^2 28-33 -> 46-49, 250^2 32 -> 40-47, 362^2 doubles 33
 * -> 67-73, 500^2 doubles 34 -> 54-70), while tiles spanning NHWC's 240-byte
 * rows gained (4 x 60 x 60 x 60 floats 26-28 -> 38) and 400-byte rows held
 * (100^2 floats, 45-50 both). So on Zen cores (the request's
 * cpu_zen) a tile stages in cache only where it spans its rows. */
static int staged_rows(const ixj_plan *p, int cpu_vector_bytes) {
  bool in_cache = !p->nontemporal && (p->elem_size == 4 || p->elem_size == 8) && cpu_vector_bytes == 64;
  bool staged = p->strategy == PLAN_TILED && p->micro && (p->nontemporal || in_cache) && !p->dst_aligned && !p->zip &&
                !p->unzip && p->operand[0].stride[p->rank - 1] == 1 && (ixj__plan_a_bytes_at_least(p, 64) || short_span(p));
  return !staged ? 0 : cpu_vector_bytes == 64 ? PLAN_STAGED_MASKED : PLAN_STAGED_BYTES;
}

/* INTEL_AVX512_RULES: four of the Zen rules (cpu_zen) that pay on an Intel
 * Xeon with AVX-512 too (round 24: `rocketlake` to LLVM under KVM, 2 cores, a
 * 48 KiB L1 and 2 MiB L2 a core), so they hold on every AVX-512 host:
 * crowded halves in whole 64-byte blocks (choose_cpu_tile), 4- and 8-byte
 * tiles that do not stage shaped as on a Zen 4 (zen_tile_shape: 16 rows and
 * 64 floats a tile, 64 rows where the source rows run back to back or the
 * rows crowd one L1 set), and byte tiles prefetching one tile ahead into L2
 * (choose_prefetch). Each an environment switch, two alternations, the
 * bench's transposes, ixjit / the ceiling, 1 / 2 threads: `nchw_to_nhwc_e2`
 * 0.49-0.52 / 0.51-0.57 -> 0.72-0.77 / 0.78; `t2d_e4` 0.83-0.87 /
 * 0.78-0.85 -> 1.00-1.02 / 0.97-1.00, `t2d_e8` 0.91-0.92 / 0.96-1.00 ->
 * 1.05-1.10 / 0.94-1.03, `t2d_e4_big` 0.71-0.74 / 0.75 -> 0.81-0.83 /
 * 0.86-0.90, `reshape_t` 0.83-0.84 / 0.80-0.83 -> 1.00-1.02 / 0.98-1.03,
 * `nhwc_to_nchw` 0.90-0.94 / 0.80-0.89 -> 1.00-1.09 / 0.89-0.99, the
 * others within the noise; `nchw_to_nhwc_u8_c60` 0.63-0.68 / 0.72-0.82 ->
 * 1.07 / 1.14-1.19, `t2d_e1` 0.42-0.44 / 0.44-0.46 -> 0.51-0.52 /
 * 0.50-0.52; these three together the same as each. The rest of the Zen
 * rules lost there (one run each): the two-line 1- and 2-byte tiles
 * (`t2d_e1` 0.43 -> 0.33, `t2d_e2` 0.72 -> 0.56, in zen_tile_shape), staged
 * 4-byte tiles of 64 rows (`t2d_e4_odd` 0.90 -> 0.60), unstacked bytes
 * (`t2d_e1` 0.43 -> 0.35), no prefetch for masked strided stores
 * (`dst_strided` 0.54 -> 0.42) and the prefetch into L2 of the other tiles
 * (`t2d_e4` 0.97 -> 0.82), but for the 64-row tiles of long back-to-back
 * source rows (zen_long_sequential_rows), which prefetch their next row of
 * tiles in memory order into L2 as on a Zen: `p3d_201` 0.84-0.86 /
 * 0.78-0.79 -> 1.06-1.07 / 1.02-1.03 (two alternations, with the rules
 * above); gathered bytes, the source-major walks (but see
 * INTEL_SOURCE_MAJOR: round 28, two alternations), the stream thresholds, staging and the in-cache prefetch were within the
 * noise. */
/* INTEL_NARROW_TILES: on the same Intel VM (round 25), the 1- and 2-byte
 * tiles prefetch one tile ahead into L1 (PLAN_PREFETCH_NEAR; bytes where
 * they do not stage), and staged 2-byte tiles are not WIDE_TILES wide (a
 * rule measured on a Zen 4). Environment switches, two alternations each, 1
 * thread, ixjit / the ceiling: 5760^2 halves (far: two tiles ahead into L1)
 * 0.71-0.72 -> 0.86-0.89; 8000^2 bytes (one tile ahead into L2) 0.86-0.87
 * -> 1.02-1.07, 8192^2 (rows crowding one L1 set) 0.49-0.52 -> 0.52-0.53;
 * staged 5700 x 5701 halves (four times as wide, far) 0.37-0.40 -> 0.88-0.90
 * (only as wide as tall: 0.57-0.59; only near: 0.57-0.59). Staged bytes
 * (8000 x 8010) keep both (0.67 -> 0.56-0.57 near, 0.66 as wide as tall),
 * and so do the tiles of 4 bytes and more (`t2d_e4` 1.04-1.08 -> 0.94-0.95
 * near, `t2d_e16` 1.32-1.33 -> 1.07-1.08, `p3d_201` 1.04-1.07 ->
 * 0.81-0.85). Crowded byte tiles gather (gather_bytes) as on a Zen 4, those
 * in blocks of tiles prefetching their block's next row of tiles
 * (PLAN_PREFETCH_BLOCK_ROWS), two alternations, 1 / 2 threads: 8192^2 bytes
 * 0.50-0.52 / 0.49-0.54 -> 0.65-0.67 / 0.65-0.70 (gathered, one tile ahead:
 * 0.44 / 0.43-0.49), from rows of 8192 into rows of 8256 0.48-0.49 /
 * 0.50-0.52 -> 0.75-0.77 / 0.76-0.80, NCHW -> NHWC of 64 byte channels (no
 * blocks of tiles: one tile ahead) 0.59 / 0.55-0.59 -> 0.73-0.78 /
 * 0.68-0.72 (into L2: 0.43-0.44), staged 8192 x 8191 0.20 / 0.19-0.20 ->
 * 0.33-0.34 / 0.36-0.37. */

/* Streaming (non-temporal) stores from STREAM_BYTES of output, or above the
 * last-level cache when that is smaller: measured on the Intel development
 * VM (round 1), streamed tiles were 1.2-2x faster from 4 MiB of output up (2
 * threads, 1024^2 to 4096^2 float32) and a streamed contiguous copy 1.4-1.9x
 * faster than glibc's memcpy from 2 to 64 MiB (docs/cpu-path.md), while the
 * VM reports a 105 MiB L3 that never streamed a 64 MiB copy.
 *
 * A Zen 4 (Zen cores with AVX-512; a 32 MiB L3) keeps more in its caches,
 * measured there (round 16: prepared kernels run again and again on the same
 * buffers, as the bench does, plain stores against streamed, 1 / 2 threads,
 * GB/s): tiles gain from plain stores up to 8 MiB of output (7.5 MiB of
 * floats 38-55 / 89-111 against 33 / 41-43, 7.6 MiB of halves 34-42 /
 * 58-108 against 16-29 / 32-47, 6 MiB staged floats 39-54 / 91-110 against
 * 22-28 / 37-45) and lose from 10 MiB (9.8 MiB of floats 16-26 / 33-38
 * against 51-53 / 54-55), but for bytes (7.5 MiB 15-32 / 36-63 against 17-24
 * / 32-43; in the bench 0.18-0.37 / 0.32-0.51 of the ceiling against
 * 0.31-0.40 / 0.37-0.38), which keep 4 MiB; other copies up to 12 MiB (7.6
 * MiB 72-82 / 162-182 against 51-56 / 54-55, 11 MiB 38-56 / 97-100 against
 * 52-53 / 54; 15 MiB 44-53 / 105-149 against 52-55 / 54-56, 30 MiB 37-38 /
 * 96-100 against 47-48 / 106-108), source and destination then within the
 * L3; fills up to 16 MiB (15 MiB 76-87 / 134-159 against 27 / 52-54). Fills
 * beyond the L3 still ran faster so (61 MiB 36-38 / 87-91 against 27-28 /
 * 55), but only by leaving dirty lines in the L3 for whatever runs next to
 * write back (the bench's ceiling, measured after them, ran about 5% slower),
 * so they stream from 16 MiB, where the output fits twice. There a cat's
 * parts go by the whole cat's output, each by its own kind's threshold (the
 * parts run in one launch: the L3 holds all of them or none); elsewhere each
 * part by its own output, as round 1 measured. */
#define STREAM_BYTES ((uint64_t)4 << 20)
#define ZEN4_TILE_STREAM_BYTES ((uint64_t)8 << 20)
#define ZEN4_COPY_STREAM_BYTES ((uint64_t)12 << 20)
#define ZEN4_FILL_STREAM_BYTES ((uint64_t)16 << 20)

/* INTEL_SHORT_B_STREAM_BYTES: on the Intel AVX-512 VM (round 28) tiles of
 * 4 bytes and more whose b is at most 256 bytes of source row, the rows back
 * to back (the batched transposes of a few dozen columns, as K^T of
 * attention heads of 64 floats), store plainly up to 16 MiB of output: they
 * ran at 0.7 of the ceiling streamed there, and at 0.9-1.0 from 32 MiB up.
 * An environment switch, two alternations, ixjit / the ceiling, 1 / 2
 * threads: the (0, 1, 3, 2) permute of 4 x 16 x 512 x 64 floats 0.72-0.73 /
 * 0.84-0.91 -> 1.00-1.01 / 1.06-1.12, of 8 x 16 x 512 x 64 0.69-0.70 /
 * 0.82-0.88 -> 1.04-1.09 / 0.84-0.98, of 8 x 16 x 512 x 32 doubles
 * 1.00-1.02 / 1.08-1.10 -> 1.13-1.25 / 1.20, (0, 2, 1) of 16 x 4096 x 64
 * floats 0.73-0.78 / 0.83-0.85 -> 1.08-1.12 / 0.92-0.97, NHWC -> NCHW of 8 x
 * 128 x 128 x 32 floats 0.87-0.88 / 0.95-0.98 -> 1.17-1.19 / 1.12-1.14, of
 * 64 channels the same (0.90-0.96). Halves and bytes lost so (8 x 16 x 1024
 * x 128 halves 0.90-0.91 / 1.01 -> 0.63-0.77 / 0.54-0.55; 256-byte rows
 * 0.75-0.76 -> 0.64-0.67) and stream from 4 MiB; 12 x 16 x 512 x 64 floats
 * (24 MiB) ran slower plainly at 2 threads (0.89 -> 0.75; at 32 MiB 0.86-0.89
 * -> 0.63-0.69). Tiles with longer b lost at 16 MiB (2048^2 floats 1.08 ->
 * 0.34, the (2, 0, 1) permute of 160^3 1.12 -> 0.78). */
#define INTEL_SHORT_B_STREAM_BYTES ((uint64_t)16 << 20)
static bool intel_short_b(const ixj_plan *p, const plan_request *req) {
  if (!intel_avx512(req) || p->strategy != PLAN_TILED || p->elem_size < 4 || p->b_inner || p->a_inner || p->zip || p->unzip)
    return false;
  return ixj__plan_tile_b_extent(p) * (int64_t)p->elem_size <= 256 && source_rows_back_to_back(p);
}

/* Whether the plan's stores stream. cat_bytes: 0, or the whole output of
 * the cat whose part the plan is. */
static bool streams(const ixj_plan *p, const plan_request *req, uint64_t cat_bytes) {
  uint64_t out = (uint64_t)p->count * p->elem_size, from = STREAM_BYTES;
  if (req->gpu || !req->last_level_cache) return false;
  if (req->cpu_zen && req->cpu_vector_bytes == 64) {
    from = p->op == IXJ_OP_FILL          ? ZEN4_FILL_STREAM_BYTES
           : p->strategy != PLAN_TILED   ? ZEN4_COPY_STREAM_BYTES
           : p->elem_size == 1           ? STREAM_BYTES
                                         : ZEN4_TILE_STREAM_BYTES;
    if (cat_bytes) out = cat_bytes;
  }
  if (intel_short_b(p, req)) from = INTEL_SHORT_B_STREAM_BYTES;
  if (req->last_level_cache < from) from = req->last_level_cache;
  return out > from;
}

/* The width of the blocks of tiles along a dim of n tiles: n itself up to
 * SUPER_TILES; else the largest divisor of n up to SUPER_TILES, or, where
 * the blocks may end past the last tile (`pad`), the width from
 * SUPER_TILES / 2 to SUPER_TILES that leaves the fewest tiles past it (the
 * wider on a tie), a divisor where there is one. A count with no divisor
 * from 8 to 16 took blocks 1 to 7 tiles wide: 3008^2 floats (188 x 47
 * tiles on Zen cores) blocks of 4 x 1, walking the tiles down a, and 6000^2
 * blocks of 15 x 2. Measured (ixjit / the ceiling, 1 / 2 threads, three
 * alternations of the builds, round 14): 3008^2 floats 0.50-0.52 /
 * 0.70-0.72 -> 0.91-0.98 / 0.92-0.98 (blocks of 9 x 16), 6000^2 0.60-0.63
 * / 0.57-0.67 -> 0.86-0.94 / 0.77-0.86, 3008^2 doubles 0.55-0.60 /
 * 0.72-0.80 -> 0.82-0.92 / 0.87-1.24; 2000^2 floats (5 x 16 -> 14 x 16) the
 * same. The emitter runs the tiles past the end as empty ones. */
#define SUPER_TILES 16
static uint64_t tiles_past(uint64_t n, int width) { return ((uint64_t)width - n % (uint64_t)width) % (uint64_t)width; }

static int super_width(uint64_t n, bool pad) {
  int d = SUPER_TILES;
  while (d > 1 && n % (uint64_t)d) d--;
  if (!pad || n <= SUPER_TILES || d >= SUPER_TILES / 2) return d;
  int best = SUPER_TILES;
  for (int w = SUPER_TILES - 1; w >= SUPER_TILES / 2; w--)
    if (tiles_past(n, w) < tiles_past(n, best)) best = w;
  return best;
}

/* INTEL_FULL_BLOCKS: on the Intel AVX-512 VM (round 31) blocks of tiles are
 * SUPER_TILES wide along b wherever b has more tiles and the blocks may end
 * past its last one, also where a divisor from 8 to 15 leaves none past: a
 * block's row of 64 x 4 bytes takes 4 KiB of each source row, where 9 tiles
 * took 2.25. An environment switch, ixjit / the ceiling, 1 / 2 threads:
 * 4032 of 4096 source columns (63 tiles: 9 -> 16, three alternations)
 * 0.82-0.84 / 0.70-0.82 -> 0.88-0.89 / 0.86-0.91, the same 63 columns from
 * column 64 on 0.83-0.84 / 0.76-0.84 -> 0.83-0.87 / 0.81-0.88, 3584 x 4608
 * floats (72 tiles: 12 -> 16, two) 0.73-0.74 / 0.79-0.80 -> 0.79-0.81 /
 * 0.78-0.79; 32 tiles instead of 16 the same (0.84-0.93 against 0.84-0.92).
 * Then the builds, alternated twice: the 4032 columns 0.80-0.82 / 0.77-0.79
 * -> 0.88-0.90 / 0.88-0.92, 2048 x 4032 doubles of a 4096 pitch (126 tiles
 * of 32: 14 -> 16) 0.94-0.96 / 0.92-0.94 -> 0.97-0.99 / 0.96-1.01. No case
 * of the suites changes: their counts are multiples of 16, or without a
 * divisor from 8 (padded already). Not measured on Zen cores. */
static int super_width_b(const ixj_plan *p, const plan_request *req, uint64_t tb, bool pad) {
  bool full = intel_avx512(req) && p->strategy == PLAN_TILED && pad && tb > SUPER_TILES;
  return full ? SUPER_TILES : super_width(tb, pad);
}

/* A staged tile spans the whole of a (plan.tile_a) where the destination's
 * rows are back to back (the b dim's stride is a's extent) and a is at most
 * SPAN_BYTES: the tile's rows are then one contiguous run of destination,
 * staged as such and flushed as one, with partial lines only where it meets
 * the tiles before and after it. Tiles of T x T had a partial line at both
 * ends of every row (a row's first and last tile): NHWC with 60 channels
 * (240-byte rows) ran at 0.44-0.55 of the ceiling, below oneDNN's reorder at
 * 1 thread. The blocks cover the edges (no fused dims). */
#define SPAN_BYTES 1024
/* In cache the span pays only for shorter rows: 400-byte rows (100^2 floats)
 * 1.22-1.29x and NHWC's 240-byte ones 1.55-1.64x the unstaged kernel, while
 * 1000-byte rows (250^2 floats) ran at 0.81x spanned and 1.26x in T x T
 * tiles, and 600-byte ones 1.04x spanned, 1.18x in tiles (1 thread,
 * alternated twice): a spanned tile's buffer is T rows of all of a, 32 KiB
 * of them at 1000 bytes, which with the source's lines overflows L1. */
#define SPAN_BYTES_IN_CACHE 512
/* Elsewhere a staged tile of 1- or 2-byte elements (64 bytes of row, one
 * block group) is WIDE_TILES times as wide along a, where a has room for two:
 * its halo, one more block group, is then a quarter of its blocks, not as
 * many as its own. Measured (1 thread, interleaved four times, ixjit / the
 * ceiling): 8000 x 8010 bytes 1.26-1.32x (0.39-0.49 -> 0.51-0.65), 5700 x 5701
 * halves 0.23-0.29 -> 0.31-0.37 (its runs are bimodal, both builds); twice as
 * wide 1.02-1.30x; twice as wide at 4 and 8 bytes (halo a half and a
 * quarter) 0.76-0.92x. */
#define WIDE_TILES 4
/* On Zen cores with AVX-512, streamed, a staged tile that does not span its
 * rows stages one row of blocks (and its halo) at a time, as a span does,
 * not the whole tile (plan.row_flush): its rows go out after each row of
 * blocks (PLAN_FLUSH_ROWS), so that the streaming stores come between the
 * loads and the buffer stays a few KiB (a 64 x 64 float tile's was 20 KiB).
 * Whole-register blocks (4 to 16 bytes, and crowded halves') inside a row (a
 * tile before, a halo after) send each line as soon as a block completes it (PLAN_FLUSH_BLOCKS),
 * as unstaged blocks store theirs. Environment switches, ixjit / the
 * ceiling, 1 / 2 threads (round 20): after each row of blocks (two
 * alternations) 4000 x 4030 floats 0.61-0.62 / 0.68 -> 0.66-0.72 /
 * 0.76-0.83, 2850 x 2830 doubles 0.61-0.62 / 0.78-0.83 -> 0.69-0.70 /
 * 0.85-0.92, 5700 x 5701 halves 0.51-0.52 / 0.50-0.74 -> 0.49-0.50 /
 * 0.75-0.80, 8000 x 8010 bytes 0.48-0.51 / 0.52-0.53 -> 0.47-0.48 /
 * 0.70-0.72; then line by line inside rows (three alternations) floats
 * 0.62-0.67 / 0.62-0.80 -> 0.69-0.76 / 0.84-0.87, doubles the same
 * (29.6-31.3 GB/s both at 1 thread), stacked halves and bytes 4-6% slower
 * (halves 25.2-25.8 against 26.5-27.1 GB/s, bytes 23.3-23.6 against
 * 24.4-24.7), so those keep PLAN_FLUSH_ROWS. Staged in cache the smaller
 * buffer did not help: 500^2 floats and 362^2 doubles still ran at
 * 0.41-0.59 staged against 0.67-0.90 in place, as in round 18. Not measured
 * elsewhere (Intel, AVX2): those keep the whole tile. */
static void stage_tiles(ixj_plan *p, const plan_request *req) {
  p->staged = staged_rows(p, req->cpu_vector_bytes);
  int64_t a = ixj__plan_tile_a_extent(p);
  p->span = p->staged && dst_rows_back_to_back(p) &&
            !ixj__plan_a_bytes_at_least(p, (p->nontemporal ? SPAN_BYTES : SPAN_BYTES_IN_CACHE) + 1);
  if (p->staged && !p->nontemporal && !p->span && req->cpu_zen) p->staged = 0; /* Zen, in cache: above */
  if (p->staged && !p->span && p->nontemporal && req->cpu_zen && req->cpu_vector_bytes == 64)
    p->row_flush = p->stack ? PLAN_FLUSH_ROWS : PLAN_FLUSH_BLOCKS;
  bool wide = p->staged && !p->span && p->tile * (int64_t)p->elem_size == 64 && a >= 2 * WIDE_TILES * p->tile &&
              !(intel_avx512(req) && p->elem_size == 2); /* INTEL_NARROW_TILES */
  p->tile_a = p->span ? (int)a : wide ? WIDE_TILES * p->tile : 0;
}

/* Zen cores, streamed, AVX-512: tiles read fewer source rows (tile_a), each
 * further along (4-byte tiles 64 along b). Round 9 found that a Zen 3's
 * hardware prefetchers follow a few streams, not a tile's 32 rows (8 rows
 * interleaved read at 17-20 GB/s, 32 at 5-6); on a Zen 4 a C harness of
 * 16 x 16 float blocks ran 4032^2 at 8-12 GB/s in tiles of 32 source rows
 * and 15-25 in tiles of 16. In ixjit (1 / 2 threads, ixjit / the ceiling,
 * three alternations, 32 x 32 tiles -> these): 4032^2 floats 0.35-0.39 /
 * 0.31-0.51 -> 0.77-0.91 / 0.76-0.93 (16 x 32 tiles: 0.63-0.80 /
 * 0.54-0.69; 16 x 128 about as 16 x 64), 4096^2 floats 0.54-0.71 /
 * 0.64-0.65 -> 0.54-0.65 / 0.72-0.75, 10240^2 0.48-0.55 / 0.57-0.64 ->
 * 0.60-0.64 / 0.69-0.81, NCHW -> NHWC 0.57-0.72 / 0.54-0.77 -> 0.76-0.81 /
 * 0.82-0.87, staged 4000 x 4030 floats 0.29 / 0.33-0.43 -> 0.42-0.54 /
 * 0.55-0.60, 2880^2 doubles 0.38-0.45 / 0.48-0.52 -> 0.84-0.91 / 0.82-0.91
 * (8 rows: 0.68-0.73), 2048^2 16-byte 0.52-0.59 / 0.59-0.63 -> 0.84-1.21 /
 * 0.80-0.86 (16 rows: 0.59-0.72); a chain's fused b (the 4096^2 transpose
 * reshaped into rows of 8192 on a pitch of 8256) 0.38-0.47 / 0.51-0.55 ->
 * 0.82-1.04 / 0.79-0.86. A fused a (the 6-D permute: no gain), zips and
 * spans keep their tiles; 1- and 2-byte tiles already read as few rows as a
 * destination line needs. The Intel VM measured 16-row tiles slower
 * (size_blocks). */
/* Spanning tiles (NHWC of 20 to 100 channels: all of a in each tile) read
 * every one of a's source rows for each tile, a line or two of each at T =
 * 32; on Zen cores they run ZEN_SPAN_TILE along b where the staged tile
 * then stays within ZEN_SPAN_STAGE_BYTES (its buffer is on the stack), so
 * that each source row gives several lines in turn. Measured (round 12, an
 * environment switch, two alternations, 1 / 2 threads, ixjit / the ceiling,
 * T = 32 -> 128): 60 channels 0.28-0.29 / 0.31-0.41 -> 0.42 / 0.47-0.48,
 * 100 channels 0.31-0.38 / 0.44-0.49 -> 0.42-0.45 / 0.40-0.63, 20 channels
 * 0.29-0.30 / 0.31-0.32 -> 0.57-0.60 / 0.65-0.67, 60 channels of 2 bytes
 * 0.25-0.29 / 0.33-0.34 -> 0.54-0.55 / 0.56-0.64; T = 64 gained about half
 * as much, 256 no more than 128; the builds alternated twice: 60 channels
 * 0.29-0.31 / 0.29-0.41 -> 0.42-0.43 / 0.49-0.53, 20 channels 0.27 /
 * 0.33-0.35 -> 0.47-0.56 / 0.61-0.67. Rows too long for 128 of them in the
 * budget keep T: 250 channels (1000-byte rows) at T = 64 ran 0.44-0.47 /
 * 0.40-0.60 against 0.44-0.50 / 0.44-0.56. Since round 18 a span stages one
 * row of blocks at a time (emit_span_flush), so the budget no longer bounds
 * a buffer; it stays as the line between what was measured: T = 64, 128,
 * 256 and 512 within the noise of each other for 20 to 100 channels, and
 * 200 or 250 channels at T = 32, 64 or 128 all 0.51-0.63 / 0.57-0.74. */
#define ZEN_SPAN_TILE 128
#define ZEN_SPAN_STAGE_BYTES 65536
/* But 4-byte tiles whose 16 source rows or 64 destination rows crowd one
 * L1 set (pitches that are multiples of 4 KiB: every power-of-two
 * transpose of 1024 floats or more) read 32 rows, each prefetched one tile
 * ahead into L2 (PLAN_PREFETCH_NEAR_L2), where the plan prefetches so (not
 * a fused b, whose plans do not prefetch, nor short source rows back to
 * back, which take the sequential prefetch: choose_prefetch). A C harness
 * (round 14: 4096^2 floats, 1 thread, huge pages, ixjit's blocks, tiles and
 * blocks of tiles; times against a streamed copy of the same bytes, the
 * medians of 15-21 interleaved repetitions) found the destination holding
 * them back: a tile writes one line into each of its 64 destination rows,
 * all those lines the same multiple of 4 KiB apart, and a 16-row tile's
 * writes alone took 1.27-1.35x the copy's time (with a 4032 pitch 0.59-
 * 0.72x), its reads alone 0.85-0.93x at either pitch. 32-row tiles write
 * two lines into each row in turn (0.78-0.83x) but read 32 streams, which
 * the hardware prefetchers do not follow (1.5-2.0x), unless each row is
 * prefetched a tile ahead into L2 (1.09-1.22x; into L1 the crowded lines
 * evict each other). Whole transposes, ixjit / the copy, three runs: 16
 * rows prefetched into L1 (the rule before) 0.54-0.57, into L2 0.58-0.61,
 * 32 rows into L2 0.66-0.71, 64 rows into L2 0.52; with a 4032 pitch 16
 * rows into L1 0.72, 32 into L2 0.77. In ixjit (ixjit / the ceiling, 1 / 2
 * threads, the builds alternated three times): `t2d_e4` 0.61-0.64 /
 * 0.71-0.74 -> 0.78-0.82 / 0.81-0.89, `t2d_e4_big` 0.63-0.65 / 0.69-0.73
 * -> 0.77-0.80 / 0.79-0.86, `reshape_t` 0.58-0.63 / 0.70-0.76 -> 0.76-0.80
 * / 0.80-0.89, `cat2_outer_t` 0.74-0.75 / 0.76-0.82 -> 0.83-0.89 /
 * 0.86-0.93; a source pitch of 4096 floats only (4032 x 4096) 0.71-0.77 /
 * 0.70-0.79 -> 0.83-0.88 / 0.80-0.94, a destination pitch only 0.67-0.70 /
 * 0.65-0.75 -> 0.78-0.85 / 0.84-0.86. Not taken: a fused b (`reshape_t_pitch`, no
 * prefetch: 0.82-0.86 -> 0.47-0.59 at 1 thread), the sequential prefetch's
 * short rows (`p3d_201` 0.51-0.58 -> 0.48-0.54), 8-byte elements (4096^2,
 * 2048^2 and 4096 x 2048 doubles: the same or slower) (docs/cpu-path.md,
 * round 14). */
#define ZEN_CROWDED_ROWS 32
/* ZEN_TALL_CROWDED_TILES: on the Zen 4 again (round 32; the rule above was
 * measured before the blocks of 16 x 16 tiles and the boxes of rounds 14 and
 * 26), those crowded float tiles read 64 source rows, 32 elements (two lines)
 * of each: the same 8 KiB a tile, but four lines of each destination row in
 * turn instead of two, where a spans at least the 64 rows. Environment
 * switches, three alternations, 1 thread (2 threads the same, 0.83-0.94),
 * ixjit / the ceiling: `t2d_e4` 0.74-0.77 -> 0.80-0.85, `t2d_e4_big`
 * 0.76-0.79 -> 0.83-0.86, `reshape_t` 0.73-0.76 -> 0.84-0.85, `slice_t`
 * 0.72-0.74 -> 0.84, `roll_t` 0.69-0.73 -> 0.77-0.79, `roll2_t` 0.68-0.70
 * -> 0.77-0.79, `roll_dst_t` 0.72-0.74 -> 0.83-0.85, `cat2_inner_t`
 * 0.83-0.84 -> 0.89-0.93, `cat2_outer_t` 0.82-0.84 -> 0.86-0.90; two
 * alternations: 8192 x 2048 (rows 32 KiB apart) 0.70 -> 0.83-0.84, 2048 x
 * 8192 0.76-0.79 -> 0.82, a source pitch of 4096 only (4032 x 4096) 0.90-0.91
 * -> 0.94-0.95, a destination pitch only 0.76-0.78 -> 0.81-0.89. 64 rows of
 * 64 elements ran as fast at 1 thread and slower at 2 (0.79-0.80 against
 * 0.90-0.92 for `t2d_e4`), 128 rows of 32 the same, 64 or 128 of 16 and 32
 * of 32 slower (0.71-0.83), a prefetch into L1 much slower (0.63). An a of
 * 32 (NCHW -> NHWC of 32 channels) keeps 32 x 64: 0.94 -> 0.86-0.87 so.
 * Intel keeps 32 x 64 (INTEL_AVX512_RULES; not measured there). */
#define ZEN_TALL_CROWDED_ROWS 64
#define ZEN_TALL_CROWDED_WIDTH 32
/* Staged 4-byte tiles (destination rows off lines, not spanning them) read
 * 64 source rows, four lines of each destination row, so that the halo
 * (the next tile's first block column, staged too) is a quarter of the
 * blocks instead of all of them. An environment switch, three
 * alternations, ixjit / the ceiling, 1 / 2 threads (round 16): 4000 x 4030
 * floats 0.50-0.57 / 0.59-0.64 -> 0.58-0.61 / 0.64-0.68 (32 rows 0.46-0.61
 * / 0.63-0.77), 4001 x 4003 0.48 / 0.60-0.69 -> 0.61-0.66 / 0.65-0.72; then
 * the builds, three alternations: 4000 x 4030 0.46-0.54 -> 0.52-0.59 at 1
 * thread (2 threads the same), 4001 x 4003 0.45-0.47 / 0.62-0.68 ->
 * 0.58-0.64 / 0.70-0.72. For doubles, 32 rows (four lines) 0.54-0.73 /
 * 0.63-0.66 against 0.60-0.63 / 0.68-0.76 (2800 x 2830): they keep 16. */
#define ZEN_STAGED_ROWS 64
/* Tiles of source rows back to back of 384 bytes to 4 KiB (the 256^3
 * (2, 0, 1) permute: 1 KiB rows) whose destination rows crowd one L1 set
 * (a power-of-two pitch there, or one with few sets: 240^3's 230400 bytes)
 * read 64 source rows, four lines of each destination row a tile, and
 * prefetch the next row of tiles in memory order into L2 (a run of 32 to
 * 256 KiB: PLAN_PREFETCH_SEQUENTIAL_L2), where 16 rows wrote one line of
 * each. An environment switch, two or three alternations, ixjit / the
 * ceiling, 1 / 2 threads (round 19): 256^3 (2, 0, 1) 0.54-0.57 / 0.61-0.80
 * -> 0.70-0.79 / 0.72-0.95, 240^3 0.55-0.65 / 0.69-0.79 -> 0.72-0.79 /
 * 0.86-0.94, 512 x 256 x 128 (512-byte rows) 0.57-0.66 / 0.64-0.80 ->
 * 0.71-0.73 / 0.80-0.89, 2 KiB rows 0.61-0.64 / 0.79-0.89 -> 0.78-0.79 /
 * 0.90-0.95, 4 KiB rows 0.66-0.73 / 0.87-0.89 -> 0.80-0.83 / 0.82-0.89,
 * NHWC -> NCHW of 128 channels 0.73-0.75 / 0.85-0.97 -> 0.78-0.86 /
 * 0.80-0.97, of 96 channels (384-byte rows) 0.69-0.71 / 0.75-0.88 ->
 * 0.90-0.93 / 0.91-0.92. Not taken: shorter rows (NHWC -> NCHW of 64
 * channels, 256-byte rows: 0.79-0.86 / 0.81-0.95 -> 0.73-0.78 / 0.74-0.95;
 * 48 and 32 channels the same), destinations that do not crowd (NHWC -> NCHW of
 * 64 channels of 100 x 100: 1.09-1.11 -> 0.73-0.76), prefetching 64 rows
 * into L1 (0.54-0.62 everywhere), 128 rows (no better than 64), doubles
 * (32 rows: the same). */
#define ZEN_SEQUENTIAL_ROWS 64
#define ZEN_SEQUENTIAL_MIN_ROW_BYTES 384
#define ZEN_SEQUENTIAL_MAX_RUN_BYTES (256 << 10)
static bool sequential_source(const ixj_plan *p);
static bool back_to_back_rows(const ixj_plan *p, int64_t ta);
static int dst_rows_per_l1_set(const ixj_plan *p);
static bool zen_long_sequential_rows(const ixj_plan *p, int64_t ta) {
  int64_t row = ixj__plan_tile_b_extent(p) * (int64_t)p->elem_size;
  return p->elem_size == 4 && ta == ZEN_SEQUENTIAL_ROWS && row >= ZEN_SEQUENTIAL_MIN_ROW_BYTES &&
         row <= ZEN_SEQUENTIAL_MAX_RUN_BYTES / ZEN_SEQUENTIAL_ROWS && back_to_back_rows(p, ta) &&
         dst_rows_per_l1_set(p) > L1_MAX_ROWS_PER_SET;
}
/* ZEN_SEQUENTIAL_MID_ROWS: on a Zen 4 (round 33) the same tiles from rows
 * of 256 to 383 bytes, too short for 64 rows (round 19, above), read 32
 * source rows, two lines of each destination row a tile, where they read 16.
 * An environment switch, two alternations, ixjit / the ceiling, 1 / 2
 * threads: NHWC -> NCHW of 64 float channels over 128 x 128 (`nhwc_to_nchw`)
 * 0.69-0.77 / 0.83-1.08 -> 0.83-0.86 / 0.88-0.98, of 80 channels 0.62-0.65
 * / 0.58-0.84 -> 0.83-0.86 / 0.91-0.93; then the builds, two
 * alternations: `nhwc_to_nchw` 0.78-0.81 / 0.84-0.94 -> 0.85-0.87 /
 * 0.92-0.94, the (0, 1, 3, 2) permute of 8 x 16 x 512 x 64 floats
 * (`bt_0132`) 0.74-0.80 / 0.97-1.00 -> 0.93-0.95 / 0.97-1.03, 64 channels
 * over 64 x 64 0.79-0.80 / 0.92-0.94 -> 0.86-0.87 / 0.93-0.97. Not taken:
 * shorter rows (48 channels 0.72-0.78 -> 0.61-0.64 at 1 thread, 32
 * channels 0.63-0.70 -> 0.53-0.70; 16 channels mixed), rows off lines (72
 * channels 0.42-0.43 -> 0.39-0.40), destinations that do not crowd (64
 * channels of 100 x 100: the same or slower). Intel not measured. */
#define ZEN_SEQUENTIAL_MID_ROWS 32
#define ZEN_SEQUENTIAL_MID_ROW_BYTES 256
static bool zen_mid_sequential_rows(const ixj_plan *p, const plan_request *req) {
  int64_t row = ixj__plan_tile_b_extent(p) * (int64_t)p->elem_size;
  return req->cpu_zen && p->elem_size == 4 && row >= ZEN_SEQUENTIAL_MID_ROW_BYTES && row < ZEN_SEQUENTIAL_MIN_ROW_BYTES &&
         row % 64 == 0 && back_to_back_rows(p, ZEN_SEQUENTIAL_MID_ROWS) && dst_rows_per_l1_set(p) > L1_MAX_ROWS_PER_SET;
}
/* The same for 1- and 2-byte tiles (T x T, T a line's elements), crowded or
 * not: T along b and 2T source rows, each prefetched a tile ahead into L2.
 * Measured (an environment switch, three alternations, 1 / 2 threads,
 * ixjit / the ceiling, round 14): 8128^2 bytes (stacked blocks) 0.39-0.45
 * / 0.51-0.56 -> 0.87-0.93 / 0.84-1.04 (into L2 alone 0.63-0.70 /
 * 0.77-0.85; 4T rows 0.86-0.90 / 0.87-1.23), 5760^2 halves 0.47-0.61 /
 * 0.55-0.68 -> 0.75-0.91 / 0.78-1.05 (4T rows 0.85-1.11 / 0.93-1.01, but
 * 4032^2 halves 0.74-0.92 at 2 threads against 0.93-1.03), 4032^2 halves
 * 0.48-0.59 / 0.55-0.67 -> 0.77-0.87 / 0.93-1.03; crowded (whole 32-byte
 * blocks): 8192^2 bytes 0.35-0.40 / 0.45-0.50 -> 0.38-0.43 / 0.52-0.55,
 * 4096^2 halves 0.48-0.51 / 0.52-0.74 -> 0.57-0.61 / 0.64-0.75, NCHW ->
 * NHWC of halves 0.54-0.62 / 0.66-0.70 -> 0.58-0.64 / 0.74-0.81. 2T rows
 * without the prefetch into L2 ran slower than T (5760^2 halves 0.37-0.40).
 * Not a fused dim (its plans do not prefetch) nor the sequential
 * prefetch's short rows.
 * Halves read two lines of each source row too
 * (2T along b, 2T rows: 8 KiB a tile). An environment switch, ixjit / the
 * ceiling, 1 / 2 threads (round 16): 5760^2 halves 0.82-0.86 / 0.86-1.03
 * -> 1.03-1.05 / 0.96-0.99 (three alternations), 4032^2 0.74-0.85 /
 * 0.92-0.95 -> 0.99-1.02 / 0.97-1.04, NCHW -> NHWC of halves with 64
 * channels (crowded) 0.56-0.59 / 0.59-0.85 -> 0.59-0.61 / 0.76-0.82, with
 * 32 channels 0.65-0.69 / 0.85-0.87 -> 0.60-0.72 / 0.77-0.86, 4096^2
 * (crowded) 0.49-0.54 / 0.45-0.80 -> 0.48-0.56 / 0.80-0.90. Bytes so
 * (256-byte tiles along b) were no better and less steady (8192^2 0.39 ->
 * 0.21-0.44, 8128^2 0.89-0.93 -> 0.93-0.95), so they keep T. */
static bool zen_two_line_rows(const ixj_plan *p) {
  return p->tile * (int64_t)p->elem_size == 64 && !p->tile_a && !p->staged && !p->a_inner && !p->b_inner && !p->zip &&
         !p->unzip && !sequential_source(p);
}

static bool zen_crowded_rows(const ixj_plan *p) {
  return p->elem_size == 4 && p->tile_a == 16 && !p->staged && !p->b_inner && !sequential_source(p) &&
         (rows_per_l1_set(p) > L1_MAX_ROWS_PER_SET || dst_rows_per_l1_set(p) > L1_MAX_ROWS_PER_SET);
}

/* INTEL_STAGED_TILES: on the Intel AVX-512 VM (round 27) streamed staged
 * tiles of 4- and 8-byte elements (destination rows off lines, not spanning
 * them) read 256 bytes of each source row (four lines) and 128 bytes' worth
 * of source rows (two lines of each destination row, and the halo's): 64 x
 * 32 floats, 32 x 16 doubles, where they were 32 x 32 (floats 128 bytes of
 * each of 32 rows, doubles 256 of 32); the
 * floats whose source rows spread over the L1 sets prefetch one tile ahead
 * into L2 (PLAN_PREFETCH_NEAR_L2) instead of two into L1. Environment
 * switches, two alternations, 1 thread, ixjit / the ceiling: doubles, the
 * chain a.T[:, 1:].reshape(2879, 2880) (a 2880 x 2879 transpose into rows
 * 23032 bytes apart, `chain_t_e8`) 0.83-0.84 -> 1.00-1.01, 2800 x 2830
 * 1.10-1.11 -> 1.09-1.11; floats, `chain_runs_t`'s 4096 x 4095 (source rows
 * crowding one L1 set) 0.73-0.76 -> 0.83, `t2d_e4_odd` (4000 x 4030)
 * 0.89-0.91 -> 0.87-0.88 (prefetched into L2: 0.91-0.93). Not taken: 64 x
 * 64 floats (0.54-0.63), 64 x 16 (the halo as many blocks as the tile's own:
 * 0.74-0.87), 32 x 64 and 32 x 48 (0.45-0.80), 64 x 16 doubles (0.97-1.04). */
/* streamed staged tiles that do not span their rows, on an Intel host with AVX-512 */
static bool intel_streamed_staged(const ixj_plan *p, const plan_request *req) {
  return intel_avx512(req) && p->strategy == PLAN_TILED && p->nontemporal && p->staged && !p->span;
}
static bool intel_staged_tiles(const ixj_plan *p, const plan_request *req) {
  return intel_streamed_staged(p, req) && (p->elem_size == 4 || p->elem_size == 8) && p->micro * (int)p->elem_size == 64 &&
         !p->a_inner && !p->b_inner && !p->zip && !p->unzip;
}
/* INTEL_GATHERED_STAGED_TILE: the same host's staged gathered bytes (crowded
 * source rows into destination rows off lines, in wide tiles) read two lines
 * of each source row and 128 rows (128 x 128 tiles, where staged bytes
 * elsewhere take 64 x 256: WIDE_TILES): an environment switch, two
 * alternations, 1 thread, ixjit / the ceiling: 8192 x 8191 (`chain_t_e1`'s
 * plan) 0.38 -> 0.48-0.49, 8192 x 8010 0.38 -> 0.49 (128 x 192 0.38-0.45,
 * 128 x 64 0.39-0.44); bytes that do not gather lost so (8000 x 8010
 * 0.68-0.69 -> 0.63-0.65). The stack holds 24 KiB of gathered rows and 24
 * KiB of staged tile. */
#define INTEL_GATHERED_STAGED_TILE 128
static bool intel_gathered_staged_bytes(const ixj_plan *p, const plan_request *req) {
  return intel_streamed_staged(p, req) && p->gather && p->elem_size == 1 && p->tile_a == WIDE_TILES * p->tile;
}

/* INTEL_SPREAD_ROWS: on the Intel AVX-512 VM (round 31) streamed float
 * tiles whose source rows spread over the L1 sets read 32 source rows, where
 * they read Zen's 16 (round 11); crowded ones read 32 already
 * (zen_crowded_rows). Only where the 32 rows still spread (at most
 * L1_MAX_ROWS_PER_SET a set, so that the prefetch two tiles ahead stays),
 * not a fused dim (INTEL_FUSED_B_ROWS), nor back-to-back rows (the
 * sequential prefetch's). An environment switch, ixjit / the ceiling, 1 / 2
 * threads, two alternations: 4000 x 4032 floats (`t2d_e4_spread`) 0.83-0.84
 * / 0.81-0.82 -> 0.98-1.00 / 0.95-1.00, 4000 x 4160 0.84-0.85 / 0.80 ->
 * 0.98-0.99 / 0.96-0.99, 2880 x 5760 0.81-0.82 / 0.79-0.80 -> 0.90-0.91 /
 * 0.91, the (1, 0, 3, 2) permute of 256 x 256 x 16 x 16 floats the same
 * (1.03-1.08 -> 1.07-1.08); 64 rows 0.89-0.91 / 0.78-0.90. Doubles were
 * mixed (`t2d_e8` 1.05-1.06 -> 1.08-1.09 at 1 thread, the 6-D permute of
 * doubles 0.84 -> 0.78-0.79) and keep 16. */
#define INTEL_SPREAD_ROWS 32
static bool intel_spread_rows(const ixj_plan *p, const plan_request *req) {
  if (!intel_avx512(req) || p->elem_size != 4 || p->tile_a != 16 || p->staged || p->b_inner || p->a_inner ||
      sequential_source(p))
    return false;
  int64_t rows = ixj__plan_tile_a_extent(p) < INTEL_SPREAD_ROWS ? ixj__plan_tile_a_extent(p) : INTEL_SPREAD_ROWS;
  return lines_per_l1_set(p, &p->operand[1], rows, 0, p->rank - 3, p->rank - 1) <= L1_MAX_ROWS_PER_SET; /* as rows_per_l1_set */
}

/* INTEL_FUSED_B_ROWS: on the Intel AVX-512 VM (round 29) streamed float
 * tiles whose b is fused (plan.b_inner: a transpose reshaped onto a pitch, a
 * permute whose source's unit dim is short) read 32 source rows, as crowded
 * ones that are not fused do there (zen_crowded_rows), where they read 16.
 * An environment switch, two alternations, ixjit / the ceiling, 1 / 2
 * threads: `reshape_t_pitch` 0.69-0.73 / 0.70-0.74 -> 0.78-0.85 /
 * 0.81-0.84, the same into rows of 16384 floats 0.75-0.77 / 0.73-0.75 ->
 * 0.86-0.88 / 0.85-0.86, with a 4032 pitch (rows spread) 0.74-0.77 /
 * 0.74-0.75 -> 0.79-0.80 / 0.76; the (3, 1, 2, 0) permute of 256 x 64 x 64
 * x 16 floats 0.92-0.93 / 0.77-0.80 -> 1.03 / 0.87-0.88, of 1024 x 64 x 64
 * x 4 0.81-0.86 / 0.77 -> 0.96-0.97 / 0.89; the (2, 1, 0) permute of 256 x
 * 4096 x 16 0.84-0.86 / 0.75-0.78 -> 1.15-1.21 / 0.87-0.90, of 512 x 4096
 * x 8 0.87-0.93 / 0.78-0.79 -> 1.00-1.06 / 0.92. On Zen a fused b lost with
 * 32 rows (ZEN_CROWDED_ROWS); doubles here were mixed (a 2880^2 transpose
 * reshaped onto a pitch 0.92-0.96 -> 0.83-0.85 at 1 thread, others the same
 * or a little faster): floats only. */
#define INTEL_FUSED_B_ROWS 32
static bool intel_fused_b_rows(const ixj_plan *p, const plan_request *req) {
  return intel_avx512(req) && p->strategy == PLAN_TILED && p->nontemporal && p->elem_size == 4 && p->b_inner && !p->staged &&
         p->tile_a == 16;
}

#define INTEL_HALF_ROWS 64 /* INTEL_HALF_ROWS: intel_half_rows, below (after SEQUENTIAL_RUN_BYTES) */
static bool intel_half_rows(const ixj_plan *p, const plan_request *req);

static void zen_tile_shape(ixj_plan *p, const plan_request *req) {
  if (intel_staged_tiles(p, req) && !p->tile_a) {
    p->tile = 256 / (int)p->elem_size;
    p->tile_a = 128 / (int)p->elem_size;
    return;
  }
  if (intel_gathered_staged_bytes(p, req)) {
    p->tile = p->tile_a = INTEL_GATHERED_STAGED_TILE;
    return;
  }
  if (!req->gpu && req->cpu_zen && req->cpu_vector_bytes == 64 && p->strategy == PLAN_TILED && p->nontemporal && p->span) {
    int64_t row = ixj__plan_tile_a_extent(p) * (int64_t)p->elem_size; /* <= SPAN_BYTES */
    if (ZEN_SPAN_TILE * row <= ZEN_SPAN_STAGE_BYTES && p->tile < ZEN_SPAN_TILE) p->tile = ZEN_SPAN_TILE;
    return;
  }
  if (intel_half_rows(p, req)) {
    p->tile_a = INTEL_HALF_ROWS;
    return;
  }
  int e = (int)p->elem_size, rows = e == 4 || e == 8 ? 16 : e == 16 ? 8 : 0;
  bool intel = (e == 4 || e == 8) && !p->staged; /* INTEL_AVX512_RULES */
  if (req->gpu || !(req->cpu_zen || intel) || req->cpu_vector_bytes != 64 || p->strategy != PLAN_TILED || !p->nontemporal)
    return;
  if (e <= 2) {
    /* staged wide halves read two lines of each source row too (64 x 128
     * tiles): 0.46-0.51 -> 0.58-0.60 at 1 thread for 5700 x 5701 (two
     * alternations; 64 x 64 and 128 x 64 the same as 32 x 128, 128 x 128
     * 0.55-0.57); bytes gained nothing from 128 along b (round 20) */
    if (e == 2 && p->row_flush && p->tile_a == WIDE_TILES * p->tile) p->tile *= 2;
    if (zen_two_line_rows(p)) {
      p->tile_a = 2 * p->tile;
      if (e == 2) p->tile *= 2; /* two lines of each source row too (above) */
    }
    return;
  }
  if (!rows || p->micro * e != 64 || rows % p->micro || p->tile_a || p->a_inner || p->zip || p->unzip) return;
  p->tile_a = rows;
  if (e == 4) p->tile = 64;
  if (zen_long_sequential_rows(p, ZEN_SEQUENTIAL_ROWS)) {
    p->tile_a = ZEN_SEQUENTIAL_ROWS;
    return;
  }
  if (zen_mid_sequential_rows(p, req)) {
    p->tile_a = ZEN_SEQUENTIAL_MID_ROWS;
    return;
  }
  if (zen_crowded_rows(p)) {
    bool tall = req->cpu_zen && ixj__plan_tile_a_extent(p) >= ZEN_TALL_CROWDED_ROWS;
    p->tile_a = tall ? ZEN_TALL_CROWDED_ROWS : ZEN_CROWDED_ROWS;
    if (tall) p->tile = ZEN_TALL_CROWDED_WIDTH;
  }
  if (e == 4 && p->staged) p->tile_a = ZEN_STAGED_ROWS;
  if (intel_spread_rows(p, req)) p->tile_a = INTEL_SPREAD_ROWS;
  if (intel_fused_b_rows(p, req)) p->tile_a = INTEL_FUSED_B_ROWS;
}

/* TILED: the work units (tiles) and, streamed on a CPU, the walk in blocks of
 * tiles (below). */
static void tile_counts(const ixj_plan *p, uint64_t *outer, uint64_t *ta, uint64_t *tb) {
  uint64_t b = (uint64_t)ixj__plan_tile_b_extent(p), a = (uint64_t)ixj__plan_tile_a_extent(p);
  uint64_t tile_a = (uint64_t)ixj__plan_tile_edge_a(p);
  *outer = (uint64_t)p->count / (a * b);
  *tb = (b + (uint64_t)p->tile - 1) / (uint64_t)p->tile;
  *ta = (a + tile_a - 1) / tile_a;
}

static void tile_work(ixj_plan *p, const plan_request *req) {
  uint64_t outer, ta, tb;
  tile_counts(p, &outer, &ta, &tb);
  p->work_units = outer * tb * ta;
  p->super_a = p->super_b = 0;
  /* Large transposes walk their tiles in blocks of up to 16 x 16 tiles: a
   * tile writes one piece of line into each of its 32 destination rows,
   * each on a page of its own, and walking a whole row of tiles before
   * coming back touched more pages than the TLB holds (a 10240^2 float
   * transpose ran at 11-12 GB/s on 4 KiB pages, 20 GB/s on huge pages,
   * 1 thread). A block of 16 x 16 tiles touches 32 x (16 + 16) pages. */
  if (!req->gpu && p->nontemporal && ta >= 2 && tb >= 2) {
    bool pad = !p->staged; /* a staged tile's halo looks at the next tile: only whole blocks there */
    p->super_a = super_width(ta, pad);
    p->super_b = super_width_b(p, req, tb, pad);
    uint64_t wa = (uint64_t)p->super_a, wb = (uint64_t)p->super_b;
    int64_t units;
    if (p->super_a * p->super_b <= 1 ||
        ixj_mul_ovf((int64_t)outer, (int64_t)((ta + wa - 1) / wa * wa), &units) ||
        ixj_mul_ovf(units, (int64_t)((tb + wb - 1) / wb * wb), &units))
      p->super_a = p->super_b = 0;
    else
      p->work_units = (uint64_t)units; /* with the tiles past the end of the last blocks */
  }
}

int ixj__plan_run_dim(const ixj_lmad *tail) {
  lmad_ldim d[IXJ_MAX_RANK];
  ixj__lmad_logical_dims(tail, d);
  for (int k = tail->rank - 1; k >= 0; k--)
    if (d[k].extent > 1) return k;
  return -1;
}

int64_t ixj__plan_run_stride(const ixj_lmad *tail) {
  lmad_ldim d[IXJ_MAX_RANK];
  int j = ixj__plan_run_dim(tail);
  ixj__lmad_logical_dims(tail, d);
  return j < 0 || d[j].rotate ? 0 : d[j].stride;
}

/* Whether the destination's innermost dim steps to the adjacent element
 * (stride 1 or -1): element loops then store whole lines, in either order. A
 * chain's head steps through its tail's positions: adjacent in memory where
 * it has one tail whose run dim (ixj__plan_run_dim) has stride 1 or -1 too
 * (between runs it jumps, as rows do). */
static bool dst_rows_adjacent(const ixj_plan *p) {
  const plan_operand *dst = &p->operand[0];
  int64_t inner = dst->stride[p->rank - 1];
  if (inner != 1 && inner != -1) return false;
  if (!dst->num_tail) return true;
  int64_t run = dst->num_tail == 1 ? ixj__plan_run_stride(&dst->tail[0]) : 0;
  return run == 1 || run == -1;
}

/* On a CPU, out of cache: whether the kernel prefetches. A general kernel
 * whose stores write parts of lines (a destination whose rows are not of
 * adjacent elements, by scalar or masked stores) does, each line ahead for
 * writing, but for masked stores on Zen cores (below). TILED: whether blocks prefetch their source rows two tiles ahead
 * (emit_llvm.c); not where more than 8 of a tile's source rows fall on one
 * set of a 4 KiB-period L1 (x86's L1 data caches: 64 sets of 8 or 12
 * ways), as a row pitch that is a multiple of 4 KiB puts every row
 * of a power-of-two transpose: the prefetched lines then evict each other
 * before their loads. Measured (1 thread, 64 MiB, three interleaved runs,
 * ixjit / the ceiling, prefetch into L1 / into L2 / none): 4096^2 floats
 * 0.89 / 0.92 / 0.94, 2048^2 16-byte 0.91 / 1.01 / 1.13, the 4096^2 chain
 * 0.73 / 0.87 / 0.93, NCHW -> NHWC 0.85 / 0.96 / 0.95, 10240^2 floats
 * (two runs) 0.44-0.71 / 0.74-0.77 / 0.92-0.93; where the rows spread over
 * the sets the L1 prefetch still pays: NHWC -> NCHW (256-byte rows)
 * 0.82 / 0.72 / 0.71, 4000 x 4030 floats 0.80 / 0.73 / 0.58. */
/* That was an Intel core's (Sapphire Rapids). On a Zen 3 (AVX2, 1 thread,
 * three interleaved runs, ixjit / the ceiling, none / into L1 / into L2 /
 * into L3, two tiles ahead) every prefetch paid, crowded rows too: 4096^2
 * floats 0.31 / 0.49 / 0.45 / 0.50, NCHW -> NHWC 0.37 / 0.50 / 0.57 / 0.53,
 * 2048^2 16-byte 0.37 / 0.43 / 0.44 / 0.43; spread rows: 4160^2 floats
 * 0.42 / 0.61 / 0.54 / 0.60, 2880^2 doubles 0.47 / 0.62 / 0.58 / 0.59. Its
 * hardware prefetchers follow fewer streams than a tile's 32 rows (a read of
 * 8 rows interleaved ran at 17-20 GB/s, of 32 rows at 5-6: docs/cpu-path.md).
 * One tile ahead into L1 paid more still (two sets of three runs, 1 / 2
 * threads, two tiles ahead -> one): 4096^2 floats 0.40-0.52 -> 0.59-0.63 /
 * 0.56 -> 0.76, NCHW -> NHWC 0.56-0.58 -> 0.66-0.67 / 0.55 -> 0.72, 2880^2
 * doubles 0.50-0.64 -> 0.65-0.72 / 0.59 -> 0.76, 2048^2 16-byte and 4160^2
 * floats the same. So on AMD's Zen cores (the request's cpu_zen,
 * from the CPU's name) every streamed transpose prefetches one tile ahead.
 * On a Zen 4 (AVX-512) the write prefetch cost the masked stores (every
 * other float of 4096 x 8192, three alternations, 1 / 2 threads, GB/s with
 * -> without): a copy from a contiguous source 8.4-13.0 -> 15.2-17.6 /
 * 16.0-17.0 -> 19.6-24.5, a fill 8.6-11.3 -> 9.9-12.4 / 11.5-13.1 ->
 * 12.9-13.4; scalar stores still gain from it there (a C harness, the copy
 * 9.0-9.5 -> 13.4-13.8 GB/s). So Zen's masked stores go without. */
/* Zen 4 again (AVX-512, round 12): where the source rows are short and back
 * to back (a 256^3 permute (2, 0, 1): 1 KiB rows; NHWC -> NCHW with 64
 * channels: 256 bytes), a row of tiles reads one contiguous run of source,
 * but a block reads it a line from each of 16 rows at a time, and the
 * hardware prefetchers do not follow that order: a C harness reading 64 MiB
 * so, 16 rows of 1 KiB at a time, ran at 10-12 GB/s against 25-27 read in
 * order (and 27 for rows of 16 KiB). Prefetching the next rows of tiles the
 * same way (each row Ta rows further) gained nothing (9-12), but prefetching
 * them line after line in memory order, one prefetch with each load, ran at
 * 16-18. So there each block row prefetches the line of the next rows of
 * tiles that keeps those prefetches in memory order (emit_llvm.c,
 * emit_sequential_prefetch_rows). It needs each row of tiles to walk all of
 * b before the next (no blocks of tiles, or blocks as wide as b),
 * whole-register blocks of plain rows (of 64-byte vectors, as measured) and
 * runs of at most SEQUENTIAL_RUN_BYTES (runs of 32 and 64 KiB showed no
 * clear gain: what is prefetched a row of tiles ahead must still be in L1,
 * 48 KiB here, when its blocks come). Measured (ixjit / the ceiling, 1 / 2
 * threads, environment switches in one build, three alternations): the
 * 256^3 permute 0.35-0.39 / 0.43-0.50 -> 0.48-0.54 / 0.50-0.65, NHWC ->
 * NCHW 0.38-0.40 / 0.48-0.51 -> 0.62-0.65 / 0.56-0.71 (docs/cpu-path.md). */
#define SEQUENTIAL_RUN_BYTES 16384
/* whether tiles of ta source rows read runs of back-to-back source rows, a
 * row of tiles walking all of b before the next (the shape; not the run) */
static bool back_to_back_rows(const ixj_plan *p, int64_t ta) {
  int64_t b = ixj__plan_tile_b_extent(p), a = ixj__plan_tile_a_extent(p);
  int64_t b_tiles = (b + p->tile - 1) / p->tile;
  return p->micro && p->vector_bytes == 64 && !p->a_inner && !p->zip && !p->stack && !p->staged && source_rows_back_to_back(p) &&
         a > ta && (!p->super_b || p->super_b == b_tiles);
}

/* INTEL_HALF_ROWS: on the Intel AVX-512 VM (round 28) streamed 2-byte
 * tiles that do not stage read 64 source rows, two lines of each destination
 * row (32 x 64 tiles, where they were 32 x 32), where they crowd one L1 set
 * (whole 64-byte blocks, choose_cpu_tile) or the source's rows are short
 * and back to back (stacked; a row of tiles reads one run of at most
 * SEQUENTIAL_RUN_BYTES). An environment switch, two alternations, ixjit / the
 * ceiling, 1 / 2 threads: crowded, 4096^2 0.73-0.75 / 0.79-0.82 ->
 * 0.86-0.88 / 0.82-0.87, 8192 x 4096 0.80-0.84 / 0.82 -> 0.88-0.92 /
 * 0.86, 16384 x 2048 0.84-0.87 / 0.83-0.85 -> 0.89-0.92 / 0.89-0.95, 2048
 * x 16384 0.84-0.85 / 0.76-0.83 -> 0.87-0.91 / 0.84, NCHW -> NHWC of 32 x
 * 64 x 128 x 128 (`nchw_to_nhwc_e2`) 0.90-0.95 / 0.89-0.94 -> 0.99-1.05 /
 * 0.95-1.06, 4000 x 8192 1.12-1.14 / 1.06-1.17 -> 1.06-1.11 / 1.02-1.12;
 * back to back, the batched (0, 1, 3, 2) permute of 8 x 16 x 1024 x 128
 * 0.70-0.73 / 0.75-0.76 -> 0.80-0.83 / 0.87-0.94, NHWC -> NCHW of 32 x 128
 * x 128 x 64 0.85-0.86 / 0.83-0.86 -> 1.10 / 1.03-1.08. Not the others
 * (stacked, source rows spread): 4000 x 4032 1.11-1.12 / 1.09-1.12 ->
 * 0.80-0.91 / 0.99-1.00, `t2d_e2` the same. Since round 30 staged tiles
 * in whole blocks (crowded rows into destination rows off lines) too, whose
 * halo is then a third of their blocks where it was half: 4096 x 4095 halves
 * from a 4096^2 transpose (`slice_t_e2_crowd`) 0.45-0.52 / 0.47-0.51 ->
 * 0.58-0.61 / 0.60-0.61 (128 or 256 rows, 64 along b, a prefetch into L2
 * or two tiles ahead: 0.39-0.57); staged short rows are not measured. */
static bool intel_half_rows(const ixj_plan *p, const plan_request *req) {
  if (!intel_avx512(req) || p->strategy != PLAN_TILED || !p->nontemporal || p->elem_size != 2 || p->tile_a || p->a_inner ||
      p->b_inner || p->zip || p->unzip)
    return false;
  bool whole_blocks = p->micro * (int)p->elem_size == 64 && !p->stack;
  bool short_rows = source_rows_back_to_back(p) && /* a row of tiles reads one run */
                    ixj__plan_tile_b_extent(p) <= SEQUENTIAL_RUN_BYTES / INTEL_HALF_ROWS / (int64_t)p->elem_size;
  return whole_blocks || (short_rows && !p->staged);
}

/* ... within SEQUENTIAL_RUN_BYTES a run, or a long one (zen_long_sequential_rows) */
static bool sequential_source(const ixj_plan *p) {
  int64_t b = ixj__plan_tile_b_extent(p), ta = ixj__plan_tile_edge_a(p);
  return (back_to_back_rows(p, ta) && b <= SEQUENTIAL_RUN_BYTES / ta / (int64_t)p->elem_size) ||
         zen_long_sequential_rows(p, ta);
}

/* On a Zen 4 (AVX-512) the tiles prefetch one tile ahead into L2 (prefetcht1,
 * PLAN_PREFETCH_NEAR_L2), not L1: first for the tiles that give each
 * destination row two lines (the crowded 4-byte ones, the 1- and 2-byte
 * ones: above), then for every tile. The builds alternated three times
 * (ixjit / the ceiling, 1 / 2 threads, round 14): 4096 x 2048 doubles
 * (crowded rows) 0.73-0.79 / 0.81-0.90 -> 0.88-0.95 / 0.85-0.97, `t2d_e16`
 * 0.85-0.94 / 0.88-0.90 -> 0.94-1.00 / 0.86-0.93, `t2d_e8` the same; and
 * then every tile: `nchw_to_nhwc_c60` 0.42-0.44 / 0.43-0.61 -> 0.56-1.07 /
 * 0.64-0.76, `p6d` 0.64-0.68 / 0.58-0.80 -> 0.70-0.79 / 0.81-0.87,
 * `nchw_to_nhwc_c3` (a zip) 0.86-1.03 / 0.96-1.00 -> 1.02-1.14 /
 * 0.98-1.08, `t2d_e4_odd` 0.44-0.48 / 0.55-0.71 -> 0.51-0.53 / 0.54-0.60;
 * an environment switch, three alternations: NHWC with 20 channels
 * 0.40-0.42 / 0.62-0.67 -> 0.43-0.50 / 0.56-0.73, 4032^2 and 2880^2 floats
 * the same. A Zen 3 (AVX2, round 9) measured L1 ahead of L2, and keeps
 * it. */
/* Tiles in cache (not streamed) on a Zen 4 prefetch the same way where the
 * output is more than IN_CACHE_PREFETCH_BYTES, so that the operands (twice
 * that) are beyond a core's L2 (1 MiB) and a tile's source rows come from L3:
 * with 16 to 32 rows a tile, a line of each, they arrive late, most where
 * they crowd one L1 set. Measured (an environment switch, a harness running
 * prepared kernels in cache, GB/s, 1 thread, three or four alternations,
 * round 15): 2048 x 512 floats (source rows 8 KiB apart) 21-27 -> 39-44,
 * 4096 x 256 30-37 -> 35-45, 1000^2 34-45 -> 45-46, 1024^2 32-34 -> 34-36,
 * 724^2 49 -> 52-53, 512^2 doubles 40-42 -> 48-52, 1024 x 512 doubles 36-38
 * -> 40-45, NCHW -> NHWC 4 x 64 x 64 x 64 31-34 -> 47-50 and back 35-40 ->
 * 41-44; 512^2 floats (1 MiB) the same, 256^2 (in L2) 82-84 -> 76-81 (so
 * not below the threshold). Not taken where it did not pay: 1- and 2-byte
 * tiles (2048^2 and 1440^2 bytes, 1024^2 halves: the same or up to 7%
 * slower), a fused a (a 6-D permute of 4 MiB, 58-59 -> 54-56), zips
 * (NCHW -> NHWC with 3 channels: the same). Staged tiles gain too (round
 * 16, five alternations, staged ones excluded against not): NCHW -> NHWC
 * with 60 channels, 4 x 60 x 50 x 50 48.6-49.3 -> 56.6-58.5 GB/s, 1 x 60 x
 * 100 x 100 54.5-56.2 -> 57.4-60.5, 6 x 60 x 40 x 40 53.0-55.6 ->
 * 57.8-59.1; 650 x 700 floats the same. */
#define IN_CACHE_PREFETCH_BYTES (1u << 20)
static bool zen_in_cache_prefetch(const ixj_plan *p, const plan_request *req) {
  return req->cpu_zen && req->cpu_vector_bytes == 64 && !p->nontemporal && (p->elem_size == 4 || p->elem_size == 8) &&
         !p->a_inner && !p->zip && (uint64_t)p->count * p->elem_size > IN_CACHE_PREFETCH_BYTES;
}

/* INTEL_CONTINUED_ROWS: on the Intel AVX-512 VM (round 28) streamed tiles
 * whose source rows crowd one L1 set (which do not prefetch), whose b is one
 * tile and whose next tile continues each of their source rows (the
 * innermost outer dim's source stride is b's extent: the source-major walk
 * of a 4-D reversal) prefetch one tile ahead along b into L2: past b's end,
 * that is the next tile's piece of each row. An environment switch, two
 * alternations, ixjit / the ceiling, 1 / 2 threads: the (3, 2, 1, 0)
 * permute of 64^4 floats 0.92 / 0.69-0.73 -> 0.99-1.10 / 1.06-1.07, of 64 x
 * 64 x 128 x 64 0.54-0.55 / 0.54-0.55 -> 0.96-0.97 / 1.05-1.09, of 64^3 x
 * 32 doubles 0.72-0.91 / 0.60-0.65 -> 1.18-1.20 / 1.19-1.21; the (2, 1, 0)
 * permute of 256 x 256 x 64 floats the same (0.91-1.00). Two tiles ahead
 * into L1 gained a little less (1.03-1.07 for 64^4). */
static bool intel_continued_rows(const ixj_plan *p, const plan_request *req) {
  if (!intel_avx512(req) || p->strategy != PLAN_TILED || p->prefetch || p->staged || p->gather || p->a_inner || p->b_inner ||
      p->zip)
    return false;
  int64_t b = ixj__plan_tile_b_extent(p);
  int j = innermost_stepping_dim(p, ixj__plan_tile_outer_dims(p));
  return b <= p->tile && j >= 0 && p->operand[1].stride[j] == b;
}

/* INTEL_ROW_PREFETCH: on the Intel AVX-512 VM (round 29) the streamed
 * vector loops of rows (plan.row_lanes: rows off their vectors, rotated or
 * reversed rows) ask for their source INTEL_ROW_PREFETCH_BYTES ahead, into
 * L2, with each vector load: a loop of loads and streaming stores issues its
 * loads faster than the hardware prefetchers fetch (a streaming copy in C
 * ran at 0.75-0.8 of the same loop with the prefetch; templates/llvm/
 * stream_copy.ll), and loads across two lines the more. An environment
 * switch, two alternations, ixjit / the ceiling, 1 / 2 threads: `slice_cols`
 * (a[:, 1:] of 4096^2 floats) 0.80-0.84 / 0.82-0.95 -> 0.93-1.04 /
 * 1.01-1.17, `roll` 0.79-0.84 / 0.79-0.81 -> 0.94-0.98 / 0.92-1.12,
 * `rows_short` 0.79 / 0.73-0.79 -> 0.85-0.87 / 0.77-0.89, `slice_rev`
 * 0.96-1.00 / 0.97-1.01 -> 1.00-1.04 / 1.00-1.11 (1 KiB ahead a little
 * less). Rows read every second element lost (`slice_step` 0.54 -> 0.48,
 * `slice_rev_step` 0.71 -> 0.62-0.69): only rows read one element a step.
 * Packed rows (plan.packed_rows: rows back to back in the destination, the
 * kernel walking its vectors) prefetch from each vector's first source
 * address: `slice_cols_e1` (a[:, 1:] of 8192^2 bytes) 0.73 / 0.69-0.73 ->
 * 0.90-0.92 / 0.87-0.90 (three alternations), `rows_short_e1` (rows of 100
 * bytes 128 apart) 0.75-0.89 / 0.70-0.77 -> 0.76-0.84 / 0.71-0.78, the
 * same. The runs of chains that do not refine (plan.chain_runs: a reshape
 * of a[:, 1:]) take it in their vector loops: `chain_runs` 0.88-0.89 /
 * 0.92 -> 1.02-1.05 / 1.07-1.10, `chain_short` 0.83-0.84 / 0.85-0.86 ->
 * 1.01-1.03 / 1.05-1.08, `chain_runs_e1` 0.81-0.83 / 0.87 -> 0.88-0.94 /
 * 0.97-1.05, `chain_runs_e8` 0.91 / 0.97-1.03 -> 1.06 / 1.16-1.17,
 * `chain_runs_dst` 0.90-0.94 / 1.00-1.03 -> 1.01-1.03 / 1.08-1.13 (two
 * alternations). Rows on their vectors (plan.vector_elems) gained less,
 * but in 17 of 20 comparisons (three alternations): `rows_pitched`
 * 0.96-0.98 / 0.96-0.98 -> 0.98-1.01 / 0.99-1.03, `p3d_102` 0.95-0.99 /
 * 0.96-0.98 -> 1.01-1.04 / 1.02-1.04, `roll_rows` 0.96-0.99 / 0.94-0.98 ->
 * 0.98-1.01 / 1.00-1.01, `cat2_inner` 0.96-1.00 / 0.93-0.97 -> 1.02-1.03 /
 * 0.99-1.02, `cat8_inner` 0.96-1.00 / 0.94-1.05 -> 1.00-1.04 / 0.94-1.00. */
#define INTEL_ROW_PREFETCH_BYTES 2048
static void intel_row_prefetch(ixj_plan *p, const plan_request *req) {
  int last = p->rank - 1;
  p->source_prefetch = 0;
  if (!intel_avx512(req) || p->op != IXJ_OP_COPY || !p->nontemporal) return;
  if (p->vector_elems > 1 && (p->strategy == PLAN_INNER_CONTIGUOUS || p->strategy == PLAN_GENERAL)) {
    p->source_prefetch = INTEL_ROW_PREFETCH_BYTES; /* rows on their vectors, read forward */
  } else if (p->row_lanes) {
    int64_t s = p->operand[1].stride[last];
    if (s == 1 || s == -1) p->source_prefetch = INTEL_ROW_PREFETCH_BYTES;
  } else if (p->chain_runs) { /* the runs' vectors (emit_chain_run): the destination's run forward, the source's either way */
    const plan_operand *d = &p->operand[0], *s = &p->operand[1];
    int64_t ds = d->num_tail ? ixj__plan_run_stride(&d->tail[0]) : d->stride[last];
    int64_t ss = s->num_tail ? ixj__plan_run_stride(&s->tail[0]) : s->stride[last];
    if (ds == 1 && (ss == 1 || ss == -1)) p->source_prefetch = INTEL_ROW_PREFETCH_BYTES;
  }
}

/* INTEL_CROWDED_PREFETCH: on the Intel AVX-512 VM (round 31) streamed
 * float tiles whose source rows crowd one L1 set (no prefetch: round 8) but
 * lie off lines (a pitch of 4 KiB multiples and a few elements), staged or
 * not, prefetch one tile ahead into L2, and so walk rows of tiles
 * (INTEL_ROWS_OF_TILES). Off lines each block load spans two lines, and the
 * line a block shares with the next one along b is evicted in between by
 * the other rows on its set. An environment switch, two alternations,
 * ixjit / the ceiling, 1 / 2 threads: 4000 x 4097 floats 0.64-0.67 / 0.64
 * -> 0.82-0.84 / 0.79-0.88, 2000 x 8193 0.71-0.73 / 0.71 -> 0.90-0.94 /
 * 0.90-0.93; staged, 4095^2 floats 0.43-0.47 / 0.44-0.47 -> 0.72-0.77 /
 * 0.71-0.73, 2047 x 8191 0.48-0.55 / 0.49-0.50 -> 0.75-0.78 / 0.73-0.75;
 * staged from rows on lines the same or slower (`slice_t_e4_crowd`
 * 0.70-0.74 / 0.71-0.77 -> 0.71-0.78 / 0.71-0.74, `chain_runs_t` 0.74-0.75
 * / 0.70-0.76 -> 0.74-0.79 / 0.68-0.70), and not those. For the first,
 * two tiles ahead into L1, or one: 0.82-0.85 / 0.80-0.85 and 0.78-0.84 /
 * 0.75-0.80; 4095^2 two tiles ahead 0.65-0.66 / 0.65-0.66. Unstaged
 * crowded rows on lines gained nothing from any of the three (4000 x 4096
 * floats 0.91-1.04 / 0.99-1.10 without,
 * 0.88-0.97 / 0.88-1.07 with; `t2d_e4` alike) and keep none. Floats only:
 * doubles off lines (1025 and 2049 of a row) spread over the sets with
 * their 16 rows and run above the ceiling as they are. */
static bool intel_crowded_prefetch(const ixj_plan *p, const plan_request *req) {
  const plan_operand *src = &p->operand[1];
  bool off_lines = (uint64_t)src->stride[p->rank - 1] * p->elem_size % 64 != 0;
  return intel_avx512(req) && !p->prefetch && p->elem_size == 4 && !p->gather && !p->a_inner && !p->zip && off_lines;
}

static void choose_prefetch(ixj_plan *p, const plan_request *req, bool out_of_cache) {
  bool gpu = req->gpu, zen = req->cpu_zen || (req->cpu_vector_bytes == 64 && p->elem_size == 1); /* INTEL_AVX512_RULES */
  p->prefetch = !gpu && out_of_cache && p->strategy == PLAN_GENERAL && !dst_rows_adjacent(p) && !(zen && p->store_pitch);
  if (gpu || p->strategy != PLAN_TILED || p->b_inner || p->unzip) return;
  if (!p->nontemporal) {
    if (zen_in_cache_prefetch(p, req)) p->prefetch = PLAN_PREFETCH_NEAR_L2;
    return;
  }
  p->prefetch = zen ? (req->cpu_vector_bytes == 64 ? PLAN_PREFETCH_NEAR_L2 : PLAN_PREFETCH_NEAR)
                    : rows_per_l1_set(p) <= L1_MAX_ROWS_PER_SET ? PLAN_PREFETCH_FAR : 0;
  if (intel_avx512(req) && (p->elem_size == 2 || (p->elem_size == 1 && !p->staged))) p->prefetch = PLAN_PREFETCH_NEAR; /* INTEL_NARROW_TILES */
  if (p->elem_size == 4 && p->prefetch == PLAN_PREFETCH_FAR && intel_staged_tiles(p, req)) p->prefetch = PLAN_PREFETCH_NEAR_L2;
  if (intel_continued_rows(p, req)) p->prefetch = PLAN_PREFETCH_NEAR_L2;
  if (intel_crowded_prefetch(p, req)) p->prefetch = PLAN_PREFETCH_NEAR_L2;
  /* the 64-row tiles of long back-to-back rows prefetch their next rows on Intel too (INTEL_AVX512_RULES) */
  if ((zen && sequential_source(p)) || zen_long_sequential_rows(p, ixj__plan_tile_edge_a(p))) {
    int64_t run = ixj__plan_tile_b_extent(p) * ixj__plan_tile_edge_a(p) * (int64_t)p->elem_size;
    p->prefetch = run > SEQUENTIAL_RUN_BYTES ? PLAN_PREFETCH_SEQUENTIAL_L2 : PLAN_PREFETCH_SEQUENTIAL;
  }
}

/* INTEL_ROWS_OF_TILES: on the Intel AVX-512 VM (rounds 27 and 28) tiles
 * that prefetch along b (one or two tiles ahead: PLAN_PREFETCH_FAR, _NEAR,
 * _NEAR_L2) walk no blocks of tiles (tile_work): each row of tiles along b
 * in turn, as that prefetch expects, where every few tiles a block's walk
 * left the row it was reading ahead in. Tiles that prefetch otherwise keep
 * their blocks: gathered bytes prefetch the block's next row of tiles
 * (0.48-0.50 -> 0.47-0.48 without), and tiles from source rows crowding
 * one L1 set, which do not prefetch, need the blocks for the TLB (10240^2
 * floats 0.89-0.99 -> 0.85-0.87 without; 4096 x 4095 staged floats from
 * rows 16 KiB apart 0.83-0.87 -> 0.81). Environment switches, two
 * alternations, 1 thread, ixjit / the ceiling, huge pages (the bench's
 * default) / 4 KiB pages. Round 27, staged tiles (a staged tile's blocks
 * cannot end past the last tile, so they were as narrow as a divisor of
 * the tile count: 4000 x 4030 halves walked blocks of 14 x 5 tiles): 4000 x
 * 4030 halves 0.50-0.55 -> 0.76-0.89 / 0.51-0.54 -> 0.65-0.68, `t2d_e4_odd`
 * (4000 x 4030 floats) 0.90-0.92 -> 0.97-0.99 / 0.82-0.83 -> 0.90-0.93,
 * 8000 x 8010 bytes 0.68-0.70 -> 0.74-0.79 / 0.62-0.65 -> 0.74-0.75, 2800 x
 * 2830 doubles 1.09-1.10 -> 1.13-1.15 / 1.14-1.16 -> 1.17-1.18. Round 28,
 * the same for tiles on lines: 4000 x 8192 halves 0.79-0.80 -> 1.09-1.14 /
 * 0.75-0.82 -> 0.87-1.07, `t2d_e2` (5760^2 halves) 0.87 -> 0.91-0.92 /
 * 0.76-0.77 -> 0.92-0.94, 8000 x 8064 bytes 0.98-1.00 -> 1.05-1.09 /
 * 0.78-0.79 -> 0.98-1.05, 2000 x 2016 of 16 bytes 1.03-1.05 -> 1.32-1.34 /
 * 1.00-1.03 -> 1.30-1.35, `t2d_e8` (2880^2 doubles) 1.14-1.16 -> 1.23 /
 * 1.06-1.08 -> 1.22-1.25, 4000 x 4032 floats 0.98-0.99 -> 1.02-1.03 /
 * 0.91-0.97 -> 0.84-0.95; at 2 threads (huge pages) the same gains. Not
 * measured on Zen cores. Once the prefetch is final, in a plan and in a
 * cat's part (ixj__plan_part). */
static void intel_rows_of_tiles(ixj_plan *p, const plan_request *req) {
  bool along_b = p->prefetch == PLAN_PREFETCH_FAR || p->prefetch == PLAN_PREFETCH_NEAR || p->prefetch == PLAN_PREFETCH_NEAR_L2;
  if (!intel_avx512(req) || p->strategy != PLAN_TILED || !p->super_a || !along_b) return;
  uint64_t outer, ta, tb;
  tile_counts(p, &outer, &ta, &tb);
  p->super_a = p->super_b = 0;
  p->work_units = outer * tb * ta;
}

/* Gathering as staging left it possible: a staged tile spanning wide rows
 * would gather more than the stack should hold, so its stacked blocks read
 * the source in place (correct, as on Intel); nor does a short span gather,
 * whose block reads rows past a (short_span). After stage_tiles, here and in
 * a cat part's rebuilt plan (ixj__plan_part), which stages again. */
static void settle_gather(ixj_plan *p) {
  if (p->gather && ixj__plan_gather_bytes(p) > PLAN_GATHER_MAX_BYTES) p->gather = 0;
  if (p->gather && ixj__plan_short_span(p)) p->gather = 0;
}

/* Chains whose factors do not line up (ixj__plan_refine_chains left them:
 * a[:, 1:].reshape(4095, 4096) of a 4096^2 array, whose rows of 4096 cross
 * the view's rows of 4095) kept the element loop, where every element's
 * offset unflattens its head position through the tail: a magic division per
 * tail dim, 0.18 of the ceiling there. But along a row, where the head steps
 * one position a point, the tail's digits stand still but its innermost one
 * (of extent > 1), which climbs by one until it wraps: so each row moves in
 * runs, each decomposed once, its points a constant stride apart in every
 * operand (gen/emit_llvm.c, emit_elementwise: a loop LLVM vectorizes where
 * the strides are 1). Where every chain operand has one tail LMAD whose
 * innermost dim is not rotated, its head steps +1 along the row, and every
 * operand's run steps to the adjacent element (stride 1 or -1, not rotated
 * along the row). Runs read across rows (a reshape of a transposed slice:
 * a stride of 4096) or every other element kept the element loop: in runs,
 * element by element, they ran at 0.02-0.03 and 0.59-0.61 of the ceiling
 * against 0.03-0.04 and 0.63 (round 23, 1 thread); a reversed run gained
 * (0.14 -> 0.34-0.36). Since round 24 the plain reshapes among these are
 * read in flat order instead (unchain, below) but where they move forward
 * in contiguous runs, so runs are left to those and to chains whose
 * destination cannot take the view's shape.
 *
 * chain_runs_fit: the dims runs need (normalized), forward only when
 * forward. */
static bool chain_runs_fit(const ixj_plan *p, bool forward) {
  int last = p->rank - 1;
  bool chained = false;
  if (p->rank < 1 || p->shape[last] < 2) return false; /* rank 0: one point, before finish gives it a dim */
  for (int o = 0; o < p->num_operands; o++) {
    const plan_operand *x = &p->operand[o];
    if (!has_dims(p, o)) continue;
    if (x->rotate[last]) return false;
    int64_t step = x->stride[last];
    if (x->num_tail) {
      if (x->num_tail != 1 || x->stride[last] != 1) return false;
      step = ixj__plan_run_stride(&x->tail[0]);
      chained = true;
    }
    if (step != 1 && (forward || step != -1)) return false;
  }
  return chained;
}

static void choose_chain_runs(ixj_plan *p, const plan_request *req) {
  if (req->gpu || p->strategy != PLAN_GENERAL || (p->op != IXJ_OP_COPY && p->op != IXJ_OP_FILL) || p->vector_elems != 1 ||
      p->row_lanes || !chain_runs_fit(p, false))
    return;
  p->chain_runs = req->cpu_vector_bytes == 64 ? 64 : 32;
}

/* Strategy, index width, streaming and work units of a plan whose dims are
 * final; cat_bytes as for streams(). */
static void finish(ixj_plan *p, const plan_request *req, uint64_t cat_bytes) {
  if (p->rank == 0) { /* one point: a loop of one */
    p->rank = 1;
    p->shape[0] = 1;
    for (int o = 0; o < p->num_operands; o++) p->operand[o].stride[0] = p->operand[o].rotate[0] = 0;
  }
  choose_strategy(p, req);
  choose_store_pitch(p, req);
  choose_row_lanes(p, req);
  /* 32-bit index arithmetic when every dividend fits comfortably */
  bool narrow = p->count <= INT32_MAX;
  for (int o = 0; o < p->num_operands; o++)
    for (int m = 0; m < p->operand[o].num_tail; m++) narrow = narrow && ixj__lmad_count(&p->operand[o].tail[m]) <= INT32_MAX;
  p->index_bits = narrow ? 32 : 64;
  bool out_of_cache = streams(p, req, cat_bytes);
  if (out_of_cache) p->nontemporal = 1;
  zen_crowded_destination(p, req);
  choose_packed_rows(p);
  choose_chain_runs(p, req);
  streamed_row_ends(p, req);
  /* tiles stream only whole lines: rows on line boundaries, or staged */
  stage_tiles(p, req);
  if (p->strategy == PLAN_TILED && !p->dst_aligned && !p->staged) p->nontemporal = 0;
  /* an element loop streams only into rows of adjacent elements: a streaming
   * store to every other element leaves each line's write-combining buffer
   * half full, and the core writes it out as partial writes (a copy into
   * every other column of 4096 x 8192 floats: 1.4 GB/s streamed, 0.07 of the
   * ceiling and 0.2 of NumPy; docs/cpu-path.md) */
  if (p->strategy == PLAN_GENERAL && !dst_rows_adjacent(p)) p->nontemporal = 0;
  source_major_rows(p, req);
  source_major_tiles(p, req);
  zen_tile_shape(p, req);
  p->work_units = (uint64_t)p->count;
  if (p->strategy == PLAN_TILED) tile_work(p, req);
  choose_prefetch(p, req, out_of_cache);
  choose_row_group(p, req);
  intel_row_prefetch(p, req);
  settle_gather(p);
  /* Gathered tiles walked in blocks of tiles prefetch, with each row they
   * gather, a line of the block's next row of tiles (after its last, the
   * first of the next block along b) in memory order, into L2
   * (PLAN_PREFETCH_BLOCK_ROWS, emit_gather): the block's pieces of each
   * source row are a run of 1 KiB, read line after line, where the
   * prefetch one tile ahead took a line from each of 128 rows 8 KiB apart.
   * An environment switch, three alternations each, ixjit / the ceiling,
   * 1 / 2 threads (round 19): 8192^2 bytes 0.47-0.49 / 0.62-0.65 ->
   * 0.58-0.61 / 0.63-0.80, 4096 x 16384 0.47-0.49 / 0.49-0.67 -> 0.55-0.57
   * / 0.55-0.77; without the step to the next block (no prefetch for a
   * block's first row of tiles) 0.56-0.60 and 0.55-0.57 at 1 thread. Not
   * staged tiles, whose halo rows the runs do not cover (but on Intel:
   * below). The same for the whole-register blocks of crowded floats and
   * doubles (4096^2 floats, 2880^2 and 4096 x 2048 doubles, a cat of
   * transposes; three alternations) was within the noise: they keep the
   * prefetch one tile ahead.
   * On the Intel AVX-512 VM (round 27) staged gathered tiles (crowded
   * source rows into destination rows off lines) take it too, the loads of
   * their halo rows (the next tile's first) running on along the block's
   * run (block_rows_line in gen/emit_llvm.c): an environment switch,
   * two alternations, 1 thread, ixjit / the ceiling: 8192 x 8191 bytes
   * (`chain_t_e1`'s plan) 0.32 -> 0.44-0.45, 8192 x 8010 0.32 -> 0.43
   * (wider or narrower tiles, smaller blocks of tiles: no better; then
   * INTEL_GATHERED_STAGED_TILE). Not measured on Zen cores, whose staged
   * bytes flush row by row. */
  bool near = p->prefetch == PLAN_PREFETCH_NEAR_L2 || p->prefetch == PLAN_PREFETCH_NEAR; /* Intel: INTEL_NARROW_TILES */
  if (p->gather && near && p->super_a && (!p->staged || intel_avx512(req))) p->prefetch = PLAN_PREFETCH_BLOCK_ROWS;
  intel_rows_of_tiles(p, req);
}

/* Chains as single LMADs where they can be (gen/plan_refine.c): one whose
 * factors line up plans like the permute it is; a plain reshape, like the
 * view it reshapes, in flat order. But a chain that moves forward in
 * contiguous runs keeps them (choose_chain_runs): they store whole aligned
 * vectors along the destination across the view's rows, where the flat form
 * stores packed rows, each with a masked head and tail. Measured on an Intel
 * Xeon (round 24, ixjit / the ceiling, 1 / 2 threads, two runs):
 * a[:, 1:].reshape(4095, 4096) of floats 1.01-1.02 / 0.93-0.96 in runs
 * against 0.96-0.97 / 0.89-0.93 flat, of bytes 0.95 / 0.90-0.91 against
 * 0.91-0.92 / 0.80-0.84, rows of 100 floats 0.95 / 0.86-0.88 against 0.81-0.82
 * / 0.74; backward runs, though, 0.94 / 0.88-0.89 against 1.00 / 0.91-0.93
 * flat, and runs across rows 0.06 against 0.84 / 0.78 flat (a transpose). */
static void unchain(ixj_plan *p, const plan_request *req) {
  if (all_single_lmad(p) || ixj__plan_refine_chains(p)) return;
  if (!req->gpu && (p->op == IXJ_OP_COPY || p->op == IXJ_OP_FILL)) {
    ixj_plan *trial = malloc(sizeof *trial);
    if (!trial) return; /* the chain plans as it is */
    memcpy(trial, p, sizeof *trial);
    normalize_copy(trial);
    bool runs = chain_runs_fit(trial, true);
    free(trial);
    if (runs) return;
  }
  if (ixj__plan_unchain_flat(p) && p->op == IXJ_OP_FILL) normalize_fill(p);
}

/* Part k's copy plan: the destination restricted to the input's slice along
 * the axis (its offset baked in), the input as the source, planned like any
 * copy. pointers: the part's two (NULL: as recorded in cat->part). */
/* Whether [start, start + extent) of dim j crosses the place where o's
 * rotation along j wraps (logical n - r): such a piece of o is no plain
 * view. */
static bool crosses_wrap(const plan_operand *o, int j, int64_t n, int64_t start, int64_t extent) {
  int64_t wrap = n - o->rotate[j];
  return o->rotate[j] && start < wrap && start + extent > wrap;
}

/* Restricts o to the positions from `start` on along dim j (of extent n),
 * which do not cross its wrap: they lie from memory position (start + r)
 * mod n on, one stride apart, so the head takes that offset and the dim
 * its rotation no more. */
static void restrict_dim(plan_operand *o, int j, int64_t n, int64_t start) {
  int64_t at = start + o->rotate[j]; /* < 2n: 0 <= r < n, ixj_ixfun normalizes rotations */
  if (at >= n) at -= n;
  o->head_offset += at * o->stride[j]; /* in range: a position of the view, whose offsets are */
  o->rotate[j] = 0;
}

/* Part k's copy plan: the destination restricted to the input's slice along
 * the axis (and along cut_axis where it has one; its offset baked in), the
 * input as the source, planned like any copy. pointers: the part's two
 * (NULL: as recorded in cat->part). */
static void build_part(const ixj_plan *cat, int k, const plan_request *req, const void *const *pointers, ixj_plan *p) {
  const plan_operand *src = &cat->operand[cat->part[k].input];
  memset(p, 0, sizeof *p);
  p->op = IXJ_OP_COPY;
  p->elem_size = cat->elem_size;
  p->asm_regs = cat->asm_regs;
  p->vector_elems = 1;
  p->cat_axis = -1;
  p->rank = cat->rank;
  memcpy(p->shape, cat->shape, sizeof p->shape);
  p->shape[cat->cat_axis] = src->cat_extent;
  p->num_operands = 2;
  p->operand[0] = cat->operand[0];
  restrict_dim(&p->operand[0], cat->cat_axis, cat->shape[cat->cat_axis], src->cat_start);
  if (src->cut_extent) {
    p->shape[src->cut_axis] = src->cut_extent;
    restrict_dim(&p->operand[0], src->cut_axis, cat->shape[src->cut_axis], src->cut_start);
  }
  p->count = 1;
  for (int j = 0; j < p->rank; j++) p->count *= p->shape[j];
  p->operand[1] = *src;
  p->operand[1].cat_start = p->operand[1].cat_extent = 0;
  p->operand[1].cut_axis = 0;
  p->operand[1].cut_start = p->operand[1].cut_extent = 0;
  plan_request r = *req;
  r.op = IXJ_OP_COPY;
  r.pointers = pointers;
  unchain(p, &r);
  normalize_copy(p);
  finish(p, &r, (uint64_t)cat->count * cat->elem_size);
}

/* A CPU cat as one copy plan per input (contiguous rows stay memcpy-class, a
 * transposed input takes the tiled path), all in one launch: its work units
 * are the parts' in order, each part padded to the largest vector width so
 * that every part's chunks start on whole vectors. False (and the plan stays
 * elementwise) when the destination cannot be sliced: a chain, or a part
 * across the place where its rotation along the axis (or the part's cut
 * axis) wraps. */
static bool plan_parts(ixj_plan *p, const plan_request *req) {
  const plan_operand *dst = &p->operand[0];
  if (dst->num_tail) return false;
  for (int o = 1; o < p->num_operands; o++) {
    const plan_operand *x = &p->operand[o];
    if (crosses_wrap(dst, p->cat_axis, p->shape[p->cat_axis], x->cat_start, x->cat_extent) ||
        (x->cut_extent && crosses_wrap(dst, x->cut_axis, p->shape[x->cut_axis], x->cut_start, x->cut_extent)))
      return false;
  }
  ixj_plan *sub = malloc(sizeof *sub);
  if (!sub) return false; /* the elementwise plan needs no memory */
  int n = 0, align = 1;
  for (int o = 1; o < p->num_operands; o++) {
    if (p->operand[o].cat_extent == 0) continue;
    const void *ptrs[2] = {req->pointers ? req->pointers[0] : NULL, req->pointers ? req->pointers[p->operand[o].arg] : NULL};
    p->part[n].input = o;
    build_part(p, n, req, req->pointers ? ptrs : NULL, sub);
    plan_part *part = &p->part[n++];
    part->vector_elems = sub->vector_elems;
    part->dst_aligned = sub->dst_aligned;
    part->nontemporal = sub->nontemporal;
    part->prefetch = sub->prefetch;
    part->row_lanes = sub->row_lanes;
    part->masked_ends = sub->masked_ends;
    part->row_group = sub->row_group;
    part->packed_rows = sub->packed_rows;
    part->source_major = sub->source_major;
    part->memcpy = sub->strategy == PLAN_MEMCPY;
    part->work_units = sub->work_units;
    part->shift = 0;
    if (sub->strategy == PLAN_TILED)
      while ((1 << part->shift) < sub->tile * ixj__plan_tile_edge_a(sub)) part->shift++;
    if (sub->vector_elems > align) align = sub->vector_elems;
  }
  free(sub);
  uint64_t at = 0;
  for (int k = 0; k < n; k++) {
    p->part[k].start = at;
    uint64_t virtual_units = p->part[k].work_units << p->part[k].shift;
    p->part[k].units = (virtual_units + (uint64_t)align - 1) / (uint64_t)align * (uint64_t)align;
    at += p->part[k].units;
  }
  p->num_parts = n;
  p->part_vector_bytes = req->cpu_vector_bytes;
  p->part_zen = req->cpu_zen;
  p->strategy = PLAN_CAT_PARTS;
  p->vector_elems = align; /* the dispatcher's chunk alignment */
  p->index_bits = 64;
  p->work_units = at;
  return true;
}

/* A copy rotated along a dim (torch.roll(a, 5, 1).T, or a reshape of it
 * that unchain read in flat order) took the element loop wherever the
 * rotation kept it off its path: a tile or a vector row cannot wrap (a
 * rolled 4096^2 transpose of floats: 0.05 of the ceiling). Along a dim of
 * extent n an operand rotated by r is two runs: positions [0, n - r) lie
 * from memory position r on, [n - r, n) from 0. So where the copy without
 * its rotations is a transpose (TILED), it is planned as the cat of the
 * boxes between those places (each operand's n - r along each rotated dim,
 * at most BOX_DIMS dims), each an unrotated view of the destination and of
 * the source (plan_parts: a plan each, one launch; every piece reads the
 * source's argument, operand.arg; the first cut dim is the cat axis, the
 * second the pieces' cut_axis, and build_part restricts the destination to
 * the box). Rotated rows keep the element loop's vector rows, in two pieces
 * where they wrap (`roll`: 0.94 of the ceiling).
 *
 * A transpose whose source rows start off 64-byte lines (a[:, 5:].T of a
 * 4096^2 float array: every row 20 bytes into a line) loads each of its
 * blocks' vectors across two lines; one whose destination rows do (its rows
 * on lines but its first element not) stages its tiles. Measured on the
 * Intel VM (round 26, two runs, ixjit / the ceiling, 1 / 2 threads),
 * streamed: source rows 20 bytes off 0.78-0.80 / 0.79-0.81, destination rows
 * 28 bytes off 0.77-0.78 / 0.73-0.79, against 1.00-1.04 / 0.99-1.01 on
 * lines. So where every row of an operand is off its line alike (its other
 * strides whole lines), the box splits once more where that operand's
 * unit-stride dim (b for the source, a for the destination) reaches its
 * first line: a thin box of fewer than 64 bytes of rows, and the rest on
 * lines (LINE_CUT_MIN elements at least). Streamed, the two cases above ran
 * at 0.96-1.02 / 0.92-1.02 so; in cache too (an environment switch, two
 * alternations): 512 x 505 floats into rows 28 bytes off 0.48-0.50 /
 * 1.71-2.14 -> 0.60-0.61 / 2.63-2.94, a[:, 5:].T of 1024^2 floats
 * 0.67-0.72 / 0.86-0.92 -> 0.74-0.77 / 1.06-1.11, of 512^2 doubles
 * (a[:, 3:]) 0.62-0.64 -> 0.66-0.71, of 1024^2 bytes 0.41-0.43 ->
 * 0.45-0.46, of 512^2 floats the same. The pointers decide, as they do
 * dst_aligned (the call cache keys where each operand starts within 64
 * bytes).
 *
 * Not where a chain is left, nor on a GPU (no parts there). True where p is
 * finished: split, or planned as it is (the trial's plan); false where the
 * caller finishes it. */
#define BOX_DIMS 2
#define BOX_CUTS 5 /* along a dim: 0, two operands' wraps, two operands' lines */
#define LINE_CUT_MIN 256

/* Inserts `at` into the ascending cuts (without repeats); returns their
 * count. */
static int add_cut(int64_t *cut, int n, int64_t at) {
  int k = n;
  while (k > 0 && cut[k - 1] > at) k--;
  if (k > 0 && cut[k - 1] == at) return n;
  memmove(&cut[k + 1], &cut[k], (size_t)(n - k) * sizeof cut[0]);
  cut[k] = at;
  return n + 1;
}

/* The places along dim j where the rotations wrap (each operand's n - r),
 * added to the cuts; returns their count. */
static int rotation_cuts(const ixj_plan *p, int j, int64_t *cut, int n) {
  for (int o = 0; o < 2; o++)
    if (p->operand[o].rotate[j]) n = add_cut(cut, n, p->shape[j] - p->operand[o].rotate[j]);
  return n;
}

/* Operand o's unit-stride dim (j): how many elements the piece from `start`
 * on has before its rows reach a 64-byte line, where every row of o is off
 * its line alike (each other stride whole lines; the first element's place
 * within 64 bytes from the pointer, as dst_on_lines reads it) and it meets
 * one at a whole element; else 0. */
static int64_t line_shift(const ixj_plan *p, const plan_request *req, int o, int j, int64_t start) {
  const plan_operand *x = &p->operand[o];
  uint64_t elem = p->elem_size;
  if (x->stride[j] != 1) return 0;
  for (int k = 0; k < p->rank; k++)
    if (k != j && p->shape[k] > 1 && (uint64_t)x->stride[k] * elem % 64) return 0;
  int64_t pos = start + x->rotate[j]; /* the piece's first memory position along j: < 2n */
  if (pos >= p->shape[j]) pos -= p->shape[j];
  uint64_t off = line_offset(p, req, o, pos);
  return off && off % elem == 0 ? (int64_t)((64 - off) / elem) : 0;
}

/* Adds to the cuts along dim j the line cut of each piece from each cut on
 * (operand o's rows, j its unit-stride dim) that leaves LINE_CUT_MIN
 * elements on lines; returns their count. */
static int line_cuts(const ixj_plan *p, const plan_request *req, int o, int j, int64_t *cut, int n) {
  int64_t from[BOX_CUTS];
  memcpy(from, cut, (size_t)n * sizeof cut[0]);
  for (int i = 0, m = n; i < m && n < BOX_CUTS; i++) {
    int64_t end = i + 1 < m ? from[i + 1] : p->shape[j], shift = line_shift(p, req, o, j, from[i]);
    if (shift && end - from[i] - shift >= LINE_CUT_MIN) n = add_cut(cut, n, from[i] + shift);
  }
  return n;
}

/* The unrotated plan's unit-stride dims: b the source's, a the
 * destination's (the innermost after normalize_copy); false where it is no
 * plain transpose of the two. */
static bool transpose_dims(const ixj_plan *p, int *b, int *a) {
  *a = p->rank - 1;
  *b = -1;
  for (int k = 0; k < p->rank - 1; k++)
    if (p->operand[1].stride[k] == 1 && p->shape[k] > 1) *b = k;
  return p->rank >= 2 && *b >= 0 && p->operand[0].stride[*a] == 1 && p->shape[*a] > 1;
}

/* Adds operand o's line cuts along dim j (its unit-stride dim): to the
 * cuts of j where j is a box dim already, else as a new box dim where there
 * is room and a cut to make. */
static void add_line_cuts(const ixj_plan *p, const plan_request *req, int o, int j, int *dims, int *nd,
                          int64_t (*cut)[BOX_CUTS], int *cuts) {
  int d = 0;
  while (d < *nd && dims[d] != j) d++;
  if (d == BOX_DIMS) return;
  cuts[d] = line_cuts(p, req, o, j, cut[d], cuts[d]); /* a new dim's: {0}, one cut */
  if (d == *nd && cuts[d] > 1) dims[(*nd)++] = j;
}

static bool split_boxes(ixj_plan *p, const plan_request *req) {
  const plan_operand *dst = &p->operand[0], *src = &p->operand[1];
  if (req->gpu || p->op != IXJ_OP_COPY || p->num_operands != 2 || dst->num_tail || src->num_tail) return false;
  int dims[BOX_DIMS], nd = 0, b, a;
  for (int k = 0; k < p->rank; k++) {
    if (!dst->rotate[k] && !src->rotate[k]) continue;
    if (nd == BOX_DIMS) return false; /* the element loop */
    dims[nd++] = k;
  }
  /* unrotated: only a transpose whose rows start off lines (the trial tells whether it is one) */
  if (nd == 0 && (req->whole_lines_off || !transpose_dims(p, &b, &a) ||
                  (!line_shift(p, req, 1, b, 0) && !line_shift(p, req, 0, a, 0))))
    return false;
  ixj_plan *trial = malloc((nd ? 2 : 1) * sizeof *trial); /* as it is, and without the rotations */
  if (!trial) return false;
  trial[0] = *p;
  finish(&trial[0], req, 0);
  if (nd) {
    trial[1] = *p;
    for (int d = 0; d < nd; d++) trial[1].operand[0].rotate[dims[d]] = trial[1].operand[1].rotate[dims[d]] = 0;
    finish(&trial[1], req, 0);
  }
  const ixj_plan *plain = nd ? &trial[1] : &trial[0];
  bool pays = plain->strategy == PLAN_TILED && (!nd || trial[0].strategy == PLAN_GENERAL);
  bool lines = plain->strategy == PLAN_TILED && !req->whole_lines_off && transpose_dims(p, &b, &a);
  int64_t cut[BOX_DIMS][BOX_CUTS];
  int cuts[BOX_DIMS] = {1, 1};
  for (int d = 0; d < BOX_DIMS; d++) cut[d][0] = 0;
  for (int d = 0; d < nd; d++) cuts[d] = rotation_cuts(p, dims[d], cut[d], 1);
  if (lines) {
    add_line_cuts(p, req, 1, b, dims, &nd, cut, cuts);
    add_line_cuts(p, req, 0, a, dims, &nd, cut, cuts);
  }
  bool split = pays && cuts[0] * cuts[1] > 1; /* not where a line cut would have left too little */
  if (!split) *p = trial[0];
  free(trial);
  if (!split) return true;
  plan_operand whole = *src;
  int64_t n0 = p->shape[dims[0]];
  int n = 0;
  for (int i = 0; i < cuts[0]; i++)
    for (int k = 0; k < cuts[1]; k++) { /* the box of piece (i, k): at most BOX_CUTS^2 < PLAN_MAX_OPERANDS */
      plan_operand *x = &p->operand[1 + n++];
      *x = whole;
      x->arg = 1;
      x->cat_start = cut[0][i];
      x->cat_extent = (i + 1 < cuts[0] ? cut[0][i + 1] : n0) - x->cat_start;
      restrict_dim(x, dims[0], n0, x->cat_start);
      if (nd == 2) {
        int64_t n1 = p->shape[dims[1]];
        x->cut_axis = dims[1];
        x->cut_start = cut[1][k];
        x->cut_extent = (k + 1 < cuts[1] ? cut[1][k + 1] : n1) - x->cut_start;
        restrict_dim(x, dims[1], n1, x->cut_start);
      }
    }
  p->num_operands = 1 + n;
  p->cat_axis = dims[0];
  if (plan_parts(p, req)) return true;
  p->operand[1] = whole; /* out of memory: planned whole */
  p->num_operands = 2;
  p->cat_axis = -1;
  return false;
}

ixj_status ixj__plan_part(const ixj_plan *cat, int k, ixj_plan *out, ixj_error *err) {
  IXJ_ASSERT(err, cat->strategy == PLAN_CAT_PARTS && k >= 0 && k < cat->num_parts);
  plan_request r = {.op = IXJ_OP_COPY, .elem_size = cat->elem_size, .cpu_vector_bytes = cat->part_vector_bytes,
                    .cpu_zen = cat->part_zen};
  build_part(cat, k, &r, NULL, out);
  /* what the pointers and the cache size decided, as recorded */
  out->vector_elems = cat->part[k].vector_elems;
  out->dst_aligned = cat->part[k].dst_aligned;
  out->nontemporal = cat->part[k].nontemporal;
  zen_crowded_destination(out, &r);
  if (cat->part[k].source_major) { /* streamed contiguous rows in the source's order */
    walk_rows_source_major(out);
    row_quads(out, &r);
  }
  if (out->strategy == PLAN_TILED) { /* staging, the tiles' order and the walk as planned with them */
    stage_tiles(out, &r);
    source_major_tiles(out, &r);
    zen_tile_shape(out, &r);
    tile_work(out, &r);
    settle_gather(out);
  }
  out->prefetch = cat->part[k].prefetch;
  intel_rows_of_tiles(out, &r);
  out->row_lanes = cat->part[k].row_lanes;
  out->masked_ends = cat->part[k].masked_ends;
  out->row_group = cat->part[k].row_group;
  out->packed_rows = cat->part[k].packed_rows;
  out->packed_period = packed_period(out);
  intel_row_prefetch(out, &r);
  IXJ_ASSERT(err, out->work_units == cat->part[k].work_units && (out->strategy == PLAN_MEMCPY) == (cat->part[k].memcpy != 0) &&
                      out->source_major == cat->part[k].source_major);
  return IXJ_OK;
}

ixj_status ixj__plan_build(const plan_request *req, ixj_plan *p, ixj_error *err) {
  const ixj_ixfun *dst = req->dst;
  memset(p, 0, sizeof *p);
  p->op = req->op;
  p->elem_size = req->elem_size;
  p->vector_elems = 1;
  p->cat_axis = -1;
  p->asm_regs = req->gpu ? 0 : req->cpu_asm_regs;
  p->rank = ixj_ixfun_rank(dst);
  ixj_ixfun_shape(dst, p->shape);
  p->count = ixj_ixfun_num_points(dst);
  p->num_operands = 1 + (req->op == IXJ_OP_FILL ? 1 : req->num_srcs);
  if (p->num_operands > PLAN_MAX_OPERANDS)
    return ixj__fail(err, IXJ_ERR_LIMIT, "at most %d inputs", IXJ_MAX_CAT_INPUTS);
  load_operand(dst, &p->operand[0]);
  if (req->op != IXJ_OP_FILL) {
    int64_t start = 0;
    for (int s = 0; s < req->num_srcs; s++) {
      load_operand(req->srcs[s], &p->operand[1 + s]);
      p->operand[1 + s].cat_start = start;
      if (req->op == IXJ_OP_CAT) {
        int64_t shape[IXJ_MAX_RANK];
        ixj_ixfun_shape(req->srcs[s], shape);
        p->operand[1 + s].cat_extent = shape[req->cat_axis];
        start += shape[req->cat_axis];
      }
    }
  }
  for (int o = 0; o < p->num_operands; o++) p->operand[o].arg = o;
  if (p->count == 0) {
    p->strategy = PLAN_EMPTY;
    return IXJ_OK;
  }
  if (req->op == IXJ_OP_CAT) {
    p->cat_axis = req->cat_axis;
    if (!req->gpu && plan_parts(p, req)) return IXJ_OK;
  } else {
    if (p->op == IXJ_OP_FILL) normalize_fill(p);
    unchain(p, req);
    normalize_copy(p);
    if (split_boxes(p, req)) return IXJ_OK;
  }
  finish(p, req, 0);
  return IXJ_OK;
}

/* ---- signature ------------------------------------------------------------ */

static void sig_list(textbuf *b, const char *name, int n, const int64_t *v) {
  ixj__textbuf_put(b, " %s=", name);
  for (int k = 0; k < n; k++) ixj__textbuf_put(b, k ? ",%lld" : "%lld", (long long)v[k]);
}

size_t ixj__plan_signature(const ixj_plan *p, const char *target, char *buf, size_t size) {
  textbuf b = {buf, size, 0};
  if (size) buf[0] = '\0';
  ixj__textbuf_put(&b, "ixjit-kernel/2 target=%s op=%s elem=%zu strategy=%s bits=%d vec=%d nt=%d tile=%d micro=%d",
          target, op_name(p->op), p->elem_size, ixj__plan_strategy_name(p->strategy), p->index_bits, p->vector_elems,
          p->nontemporal, p->tile, p->micro);
  ixj__textbuf_put(&b, " aligned=%d b_inner=%d a_inner=%d zip=%d unzip=%d stack=%d staged=%d gather=%d tile_a=%d span=%d row_flush=%d"
                   " super=%dx%d prefetch=%d store_pitch=%d row_lanes=%d masked_ends=%d packed=%d period=%d runs=%d row_group=%d source_prefetch=%d asm=%d axis=%d", p->dst_aligned, p->b_inner, p->a_inner,
                   p->zip, p->unzip, p->stack, p->staged, p->gather, p->tile_a, p->span, p->row_flush, p->super_a, p->super_b, p->prefetch, p->store_pitch,
                   p->row_lanes, p->masked_ends, p->packed_rows, p->packed_period, p->chain_runs, p->row_group, p->source_prefetch, p->asm_regs, p->cat_axis);
  sig_list(&b, "shape", p->rank, p->shape);
  if (p->strategy == PLAN_CAT_PARTS)
    ixj__textbuf_put(&b, " part_vector_bytes=%d part_zen=%d", p->part_vector_bytes, p->part_zen);
  for (int k = 0; k < p->num_parts; k++) {
    const plan_part *x = &p->part[k];
    ixj__textbuf_put(&b, " part{input=%d vec=%d aligned=%d nt=%d prefetch=%d row_lanes=%d masked_ends=%d row_group=%d packed=%d"
                     " source_major=%d memcpy=%d shift=%d units=%llu}",
                     x->input, x->vector_elems, x->dst_aligned, x->nontemporal, x->prefetch, x->row_lanes, x->masked_ends,
                     x->row_group, x->packed_rows, x->source_major, x->memcpy, x->shift,
                     (unsigned long long)x->units);
  }
  for (int o = 0; o < p->num_operands; o++) {
    const plan_operand *x = &p->operand[o];
    ixj__textbuf_put(&b, " | operand %d:", o);
    if (!has_dims(p, o)) continue;
    sig_list(&b, "strides", p->rank, x->stride);
    sig_list(&b, "rotates", p->rank, x->rotate);
    ixj__textbuf_put(&b, " head_offset=%lld", (long long)x->head_offset);
    if ((p->op == IXJ_OP_CAT || p->strategy == PLAN_CAT_PARTS) && o > 0)
      ixj__textbuf_put(&b, " cat_start=%lld cat_extent=%lld", (long long)x->cat_start, (long long)x->cat_extent);
    if (x->cut_extent) /* split_boxes' pieces cut along two dims */
      ixj__textbuf_put(&b, " cut_axis=%d cut_start=%lld cut_extent=%lld", x->cut_axis, (long long)x->cut_start,
                       (long long)x->cut_extent);
    if (x->arg != o && p->strategy == PLAN_CAT_PARTS) ixj__textbuf_put(&b, " arg=%d", x->arg); /* split_boxes' pieces */
    for (int m = 0; m < x->num_tail; m++) {
      const ixj_lmad *l = &x->tail[m];
      int64_t perm[IXJ_MAX_RANK];
      for (int k = 0; k < l->rank; k++) perm[k] = l->perm[k];
      ixj__textbuf_put(&b, " lmad{offset=%lld", (long long)plan_tail_offset(x, m));
      sig_list(&b, "strides", l->rank, l->stride);
      sig_list(&b, "rotates", l->rank, l->rotate);
      sig_list(&b, "shape", l->rank, l->shape);
      sig_list(&b, "perm", l->rank, perm);
      ixj__textbuf_put(&b, "}");
    }
  }
  return b.len;
}

/* The CPU kernel families whose shape depends on the host, run at every
 * vector width on any x86-64 host: in-register transposes of every element
 * size (32- and 64-byte vectors; on a host without AVX-512 LLVM splits the
 * 64-byte ones, which must stay right), streamed and not, aligned and not,
 * with edges, strided destinations (masked stores and element loops), fused
 * tile dims (a chain into a padded destination), staged tiles (rows off lines, streamed), cats as parts (memcpy,
 * elementwise and tiled parts) and fills of strided views (masked stores). Each kernel is planned, emitted and JIT'd
 * through the internal API, run in several chunks with non-zero starts, and
 * compared byte for byte with the reference interpreter, with guard bytes
 * around the destination and each source ending at an inaccessible page. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emit_llvm.h"
#include "jit_llvm.h"
#include "plan.h"
#include "test_util.h"

#define GUARD 256

static jit_llvm *jit;
static int kernels;

typedef struct buffer {
  unsigned char *mem; /* GUARD bytes, the operand's bytes, GUARD bytes; 64-byte aligned data */
  size_t bytes;
  ixj_operand op;
  unsigned char *map; /* a fenced buffer's mapping (else NULL) */
  size_t map_bytes;
} buffer;

/* Sources end where an inaccessible page begins: a kernel that reads past
 * its source's last element faults. */
static void make_fenced_buffer(buffer *b, ixj_ixfun *f, size_t elem, int pattern) {
  size_t need, page = (size_t)sysconf(_SC_PAGESIZE);
  assert_int_equal(ixj_ixfun_required_bytes(f, elem, &need, NULL), IXJ_OK);
  size_t pages = (need + page - 1) / page + 1;
  unsigned char *m = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(m != MAP_FAILED);
  assert_int_equal(mprotect(m + (pages - 1) * page, page, PROT_NONE), 0);
  b->map = m;
  b->map_bytes = pages * page;
  b->mem = m + (pages - 1) * page - need;
  b->bytes = need;
  for (size_t k = 0; k < need; k++) b->mem[k] = (unsigned char)(pattern * 31 + k * 7 + k / 251);
  b->op = (ixj_operand){b->mem, need, f};
}

static void free_buffer(buffer *b) {
  if (b->map) munmap(b->map, b->map_bytes);
  else free(b->mem);
}

static void make_buffer(buffer *b, ixj_ixfun *f, size_t elem, int pattern, size_t misalign) {
  b->map = NULL;
  size_t need;
  assert_int_equal(ixj_ixfun_required_bytes(f, elem, &need, NULL), IXJ_OK);
  b->bytes = need;
  b->mem = aligned_alloc(64, (GUARD + need + misalign + GUARD + 63) / 64 * 64);
  assert_non_null(b->mem);
  for (size_t k = 0; k < GUARD + need + misalign + GUARD; k++) b->mem[k] = (unsigned char)(pattern * 31 + k * 7 + k / 251);
  b->op = (ixj_operand){b->mem + GUARD + misalign, need, f};
}

/* Runs the kernel of `p` over its work units in chunks (multiples of the
 * plan's vector width, the first one starting at 0). */
static void run_chunks(const ixj_plan *p, ixj_kernel_fn fn, const void *const *ptrs) {
  int64_t offs[PLAN_MAX_OPERANDS];
  for (int o = 0; o < p->num_operands; o++) offs[o] = p->operand[o].runtime_offset;
  uint64_t align = (uint64_t)p->vector_elems, step = p->work_units / 3 / align * align;
  if (step == 0) step = align;
  for (uint64_t b = 0; b < p->work_units; b += step) {
    uint64_t e = b + step < p->work_units ? b + step : p->work_units;
    fn(ptrs, offs, (int64_t)b, (int64_t)e);
  }
}

/* The registers inline-asm shuffles may use on this host at a vector width
 * (as runtime/jit_llvm.c decides from the target's features): 64-byte
 * vectors need AVX-512BW and VL; 0 where the host lacks them (IR shuffles,
 * which LLVM lowers for any x86-64). Streamed cases take the asm, the others
 * the IR, so both networks run every shape. */
static int asm_regs(int vector_bytes, size_t stream_from) {
  if (!stream_from) return 0;
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) return 32;
  return vector_bytes == 32 && __builtin_cpu_supports("avx2") ? 16 : 0;
}

/* plan_request.cpu_zen of the cases check() runs */
static int zen_rules;

/* One case at one vector width and cache size: JIT, run, compare. whole:
 * plan_request.whole_lines_off. Returns whether the plan was a transpose
 * split at its lines where a tiled one was wanted (split_boxes). */
static bool check_plan(ixj_op_kind op, size_t elem, int axis, const char *dst_text, int num_srcs, const char *const *src_text,
                       int vector_bytes, size_t stream_from, size_t misalign, const char *want_strategy, bool whole) {
  ixj_ixfun *dst = parse_ok(dst_text), *srcs[8];
  buffer d, want, s[8];
  for (int k = 0; k < num_srcs; k++) {
    srcs[k] = parse_ok(src_text[k]);
    make_fenced_buffer(&s[k], srcs[k], elem, 10 + k);
  }
  make_buffer(&d, dst, elem, 1, misalign);
  make_buffer(&want, dst, elem, 1, misalign);
  ixj_error err;
  ixj_operand so[8];
  for (int k = 0; k < num_srcs; k++) so[k] = s[k].op;
  static const unsigned char value[16] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
                                          0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xf0, 0x0f};
  ixj_status st = op == IXJ_OP_COPY   ? ixj_reference_copy(&want.op, &so[0], elem, &err)
                  : op == IXJ_OP_FILL ? ixj_reference_fill(&want.op, value, elem, &err)
                                      : ixj_reference_cat(&want.op, axis, num_srcs, so, elem, &err);
  if (st != IXJ_OK) fail_msg("%s: reference: %s", dst_text, err.message);

  const void *ptrs[1 + 8];
  ptrs[0] = d.op.data;
  for (int k = 0; k < num_srcs; k++) ptrs[1 + k] = s[k].op.data;
  if (op == IXJ_OP_FILL) ptrs[1] = value;
  plan_request req = {.op = op, .elem_size = elem, .dst = dst, .num_srcs = num_srcs,
                      .srcs = (const ixj_ixfun *const *)srcs, .cat_axis = axis, .pointers = ptrs,
                      .last_level_cache = stream_from, .cpu_vector_bytes = vector_bytes,
                      .cpu_asm_regs = asm_regs(vector_bytes, stream_from), .cpu_zen = zen_rules,
                      .whole_lines_off = whole};
  ixj_plan *p = malloc(sizeof *p);
  if (ixj__plan_build(&req, p, &err) != IXJ_OK) fail_msg("%s: plan: %s", dst_text, err.message);
  /* a transpose whose rows start off lines: boxes, the largest (on lines) tiled */
  bool boxes = op == IXJ_OP_COPY && p->strategy == PLAN_CAT_PARTS && want_strategy && !strcmp(want_strategy, "tiled");
  if (boxes) {
    ixj_plan *part = malloc(sizeof *part);
    int64_t most = 0;
    int largest = PLAN_EMPTY;
    for (int k = 0; k < p->num_parts; k++) {
      assert_int_equal(ixj__plan_part(p, k, part, NULL), IXJ_OK);
      if (part->count > most) most = part->count, largest = part->strategy;
    }
    assert_int_equal(largest, PLAN_TILED);
    free(part);
  }
  if (want_strategy && !boxes && strcmp(ixj__plan_strategy_name(p->strategy), want_strategy))
    fail_msg("%s <- %s: strategy %s, expected %s", dst_text, num_srcs ? src_text[0] : "fill", ixj__plan_strategy_name(p->strategy),
             want_strategy);
  if (p->strategy == PLAN_TILED) { /* as many tiles as cover the space (the guard bytes catch a write outside) */
    int r = p->rank, fused_b = p->b_inner ? r - 3 : -1, fused_a = p->a_inner ? r - 3 : -1;
    int64_t eb = p->shape[r - 2] * (fused_b >= 0 ? p->shape[fused_b] : 1);
    int64_t ea = p->shape[r - 1] * (fused_a >= 0 ? p->shape[fused_a] : 1), tiles = 1;
    for (int j = 0; j < r - 2; j++)
      if (j != fused_a && j != fused_b) tiles *= p->shape[j];
    int64_t ta = ixj__plan_tile_edge_a(p), na = (ea + ta - 1) / ta, nb = (eb + p->tile - 1) / p->tile;
    if (p->super_a) { /* blocks of tiles may end past the last tile: those tiles are empty */
      na = (na + p->super_a - 1) / p->super_a * p->super_a;
      nb = (nb + p->super_b - 1) / p->super_b * p->super_b;
    }
    tiles *= na * nb;
    if ((int64_t)p->work_units != tiles)
      fail_msg("%s: %llu work units for %lld tiles", dst_text, (unsigned long long)p->work_units, (long long)tiles);
  }
  char name[32], sig[8192], *ir = NULL;
  snprintf(name, sizeof name, "k%d", kernels++);
  ixj__plan_signature(p, "test", sig, sizeof sig);
  if (ixj__emit_llvm(p, name, sig, &ir, &err) != IXJ_OK) fail_msg("%s: emit: %s", dst_text, err.message);
  void *obj;
  size_t size;
  ixj_kernel_fn fn;
  if (ixj__jit_llvm_object(jit, ir, &obj, &size, &err) != IXJ_OK) fail_msg("%s: %s\n%s", dst_text, err.message, ir);
  assert_int_equal(ixj__jit_llvm_link(jit, obj, size, name, &fn, &err), IXJ_OK);
  run_chunks(p, fn, ptrs);
  size_t total = GUARD + d.bytes + misalign + GUARD;
  for (size_t k = 0; k < total; k++)
    if (d.mem[k] != want.mem[k])
      fail_msg("%s <- %s (elem %zu, %d-byte vectors, streaming from %zu, misaligned by %zu): byte %lld of the "
               "destination differs%s",
               dst_text, num_srcs ? src_text[0] : "fill", elem, vector_bytes, stream_from, misalign,
               (long long)k - GUARD - (long long)misalign, k < GUARD + misalign || k >= GUARD + misalign + d.bytes ? " (a guard byte)" : "");
  free(obj);
  free(ir);
  free(p);
  free(d.mem);
  free(want.mem);
  ixj_ixfun_free(dst);
  for (int k = 0; k < num_srcs; k++) {
    free_buffer(&s[k]);
    ixj_ixfun_free(srcs[k]);
  }
  return boxes;
}

/* ... and where a wanted tiled plan split at its lines, the whole one too */
static void check(ixj_op_kind op, size_t elem, int axis, const char *dst_text, int num_srcs, const char *const *src_text,
                  int vector_bytes, size_t stream_from, size_t misalign, const char *want_strategy) {
  if (check_plan(op, elem, axis, dst_text, num_srcs, src_text, vector_bytes, stream_from, misalign, want_strategy, false))
    check_plan(op, elem, axis, dst_text, num_srcs, src_text, vector_bytes, stream_from, misalign, want_strategy, true);
}

static void copy_all_ways(size_t elem, const char *dst, const char *src, const char *strategy) {
  const char *srcs[1] = {src};
  for (int vb = 32; vb <= 64; vb += 32)
    for (int stream = 0; stream < 2; stream++)
      for (size_t mis = 0; mis <= elem; mis += elem) /* aligned rows, and rows off by one element */
        check(IXJ_OP_COPY, elem, 0, dst, 1, srcs, vb, stream ? 1 : 0, mis, strategy);
}

/* Each case (destination, source) as a tiled copy, every way, at element
 * sizes 1 to max_elem, under Zen's rules and not. */
static void tiled_all_ways(const char *(*cases)[2], size_t n, size_t max_elem) {
  for (zen_rules = 0; zen_rules <= 1; zen_rules++)
    for (size_t c = 0; c < n; c++)
      for (size_t e = 1; e <= max_elem; e *= 2) copy_all_ways(e, cases[c][0], cases[c][1], "tiled");
  zen_rules = 0;
}

static void transposes(void **state) {
  (void)state;
  for (size_t e = 1; e <= 16; e *= 2) {
    copy_all_ways(e, "iota 256 384", "iota 384 256 | permute 1 0", "tiled");  /* whole tiles */
    copy_all_ways(e, "iota 300 270", "iota 270 300 | permute 1 0", "tiled");  /* edges */
    copy_all_ways(e, "iota 544 100", "iota 100 544 | permute 1 0", "tiled");  /* 17 tiles along b: blocks 1 wide */
    copy_all_ways(e, "iota 130 32", "iota 32 130 | permute 1 0", "tiled");    /* half-line rows: 2 blocks stacked (1 byte) */
    copy_all_ways(e, "iota 3 70 130", "iota 3 130 70 | permute 0 2 1", "tiled"); /* batched */
    copy_all_ways(e, "iota 6 16 4 8", "iota 6 8 16 4 | permute 0 2 3 1", "tiled"); /* short dims */
    copy_all_ways(e, "iota 4 4 16 3 8 8", "iota 3 4 8 4 8 16 | permute 1 3 5 0 2 4", "tiled"); /* a 6-D permute */
  }
}

/* 1- and 2-byte blocks are 16 bytes of row, stacked into each host vector
 * (4 to AVX-512's, 2 to AVX2's): the block groups' registers, never blocks of
 * a whole vector's lanes (32 x 32 bytes on AVX2 spilled: docs/cpu-path.md);
 * with AVX2 only where the tile's source rows spread over the L1 sets. On Zen
 * cores crowded rows take whole blocks: 32-byte ones, but 64-byte ones for
 * halves with AVX-512 (32 x 32, the network in four asm statements over the
 * 32 registers where the kernel streams, LLVM's shuffles where not: the
 * kernels below run both); crowded bytes with AVX-512 stay stacked and
 * gather, on any host */
static void stacked_blocks(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int crowded;
  } cases[] = {{"iota 256 384", "iota 384 256 | permute 1 0", 0},     /* a 256-element pitch */
               {"iota 4096 256", "iota 256 4096 | permute 1 0", 1}}; /* 4096: one L1 set */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    ixj_ixfun *d = parse_ok(cases[c].dst), *s = parse_ok(cases[c].src);
    const ixj_ixfun *srcs[1] = {s};
    for (size_t e = 1; e <= 4; e *= 2)
      for (int vb = 32; vb <= 64; vb += 32)
        for (int zen = 0; zen <= 1; zen++) { /* Zen cores: crowded halves take whole blocks with AVX-512 too, */
          plan_request req = {.op = IXJ_OP_COPY, .elem_size = e, .dst = d, .num_srcs = 1, .srcs = srcs, .cpu_vector_bytes = vb,
                              .cpu_zen = zen, .cpu_asm_regs = vb == 64 ? 32 : 16};
          ixj_plan *p = malloc(sizeof *p);
          bool gather = e == 1 && vb == 64 && cases[c].crowded; /* crowded bytes stay stacked and gather */
          bool stacked = e <= 2 && ((vb == 64 && !zen && e == 1) || !cases[c].crowded || gather);
          /* crowded bytes: 32-byte blocks (stacked on Intel with AVX-512); halves 64-byte ones with AVX-512 */
          int whole = e == 1 || (e == 2 && vb == 32) ? 32 / (int)e : vb / (int)e;
          assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
          assert_int_equal(p->strategy, PLAN_TILED);
          assert_int_equal(p->stack, stacked ? vb / 16 : 0);
          assert_int_equal(p->micro, stacked ? 16 / (int)e : whole);
          assert_int_equal(p->vector_bytes, stacked ? 16 : whole * (int)e);
          assert_int_equal(p->gather, gather);
          if (!stacked && p->micro == 32 && vb == 64) { /* 32 rows in 32 registers: four asm statements, the last stage last */
            char *ir = NULL;
            assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
            const char *within = strstr(ir, "%x0.nu1 = call"), *last = strstr(ir, "%x0.nc1 = call");
            assert_true(within && last && within < last);
            free(ir);
          }
          free(p);
        }
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
  copy_all_ways(2, "iota 256 96", "iota 96 256 | permute 1 0", "tiled"); /* 512-byte pitch: stacked with AVX2 */
  copy_all_ways(2, "iota 2048 40", "iota 40 2048 | permute 1 0", "tiled"); /* 4 KiB: not */
  zen_rules = 1; /* crowded: 32-byte blocks (bytes: gathered) with AVX-512 too, streamed and staged or not */
  for (size_t e = 1; e <= 2; e *= 2) {
    copy_all_ways(e, "iota 4096 96", "iota 96 4096 | permute 1 0", "tiled");
    copy_all_ways(e, "iota 4096 100", "iota 100 4096 | permute 1 0", "tiled");
  }
  zen_rules = 0;
}

static ixj_plan *copy_plan(const char *dst, const char *src, size_t elem, int vector_bytes, int zen, int stream,
                           const void *const *pointers);
static void cat2_parts(const char *dst, const char *const *inputs, size_t elem, int axis, int asm_regs, ixj_plan *part[2]);

/* Streamed 1- and 2-byte tiles whose destination rows crowd one L1 set take
 * the crowded plans on Zen cores with AVX-512 (ZEN_CROWDED_DESTINATION):
 * halves 64-byte blocks, bytes gathered; in cache, on Intel's rules, with
 * AVX2 or with a fused dim they stay stacked. Then the kernels against the
 * reference under both rules (rows of 2 KiB; a and b cut short, a batch). */
static void crowded_destinations(void **state) {
  (void)state;
  static const char *cases[][2] = {{"iota 2 64 1024", "iota 2 1024 64 | permute 0 2 1"},    /* halves: rows of 2 KiB */
                                   {"iota 2 128 2048", "iota 2 2048 128 | permute 0 2 1"}}; /* bytes */
  for (int c = 0; c < 2; c++) {
    size_t e = c ? 1 : 2;
    for (int vb = 32; vb <= 64; vb += 32)
      for (int zen = 0; zen <= 1; zen++)
        for (int stream = 0; stream <= 1; stream++) {
          ixj_plan *p = copy_plan(cases[c][0], cases[c][1], e, vb, zen, stream, NULL);
          bool rule = vb == 64 && zen && stream;
          assert_int_equal(p->strategy, PLAN_TILED);
          if (p->stack != (rule && e == 2 ? 0 : vb / 16) || p->micro != (rule && e == 2 ? 32 : 16 / (int)e) ||
              p->gather != (rule && e == 1))
            fail_msg("%s <- %s, %zu bytes, %d-byte vectors, %s rules, %s: stack %d micro %d gather %d", cases[c][0], cases[c][1], e,
                     vb, zen ? "Zen" : "Intel", stream ? "streamed" : "in cache", p->stack, p->micro, p->gather);
          free(p);
        }
  }
  /* a fused a (a 6-D permute of halves whose destination rows crowd) stays stacked */
  ixj_plan *p = copy_plan("iota 16 16 16 8 8 8", "iota 8 16 8 16 8 16 | permute 1 3 5 0 2 4", 2, 64, 1, 1, NULL);
  assert_int_equal(p->strategy, PLAN_TILED);
  assert_true(p->a_inner > 0);
  assert_int_equal(p->stack, 4);
  free(p);
  const char *kernels_for[][2] = {{"iota 2 64 1024", "iota 2 1024 64 | permute 0 2 1"},
                                  {"iota 2 70 1024 | slice : : :1000", "iota 2 1000 70 | permute 0 2 1"},
                                  {"iota 2 128 2048", "iota 2 2048 128 | permute 0 2 1"},
                                  {"iota 3 130 2048 | slice : : :2000", "iota 3 2000 130 | permute 0 2 1"}};
  for (zen_rules = 0; zen_rules <= 1; zen_rules++)
    for (int c = 0; c < 4; c++) copy_all_ways(c < 2 ? 2 : 1, kernels_for[c][0], kernels_for[c][1], "tiled");
  /* a cat's parts, rebuilt from the cat's record (ixj__plan_part), take the rule as their copies do */
  static const char *halves[2] = {"iota 2 1024 64 | permute 0 2 1", "iota 2 1024 64 | permute 0 2 1"};
  static const char *bytes[2] = {"iota 2 2048 128 | permute 0 2 1", "iota 1 2048 128 | permute 0 2 1"};
  for (zen_rules = 0; zen_rules <= 1; zen_rules++) {
    ixj_plan *part[2];
    cat2_parts("iota 4 64 1024", halves, 2, 0, 32, part);
    for (int k = 0; k < 2; k++) {
      assert_int_equal(part[k]->micro, zen_rules ? 32 : 8);
      free(part[k]);
    }
    cat2_parts("iota 3 128 2048", bytes, 1, 0, 32, part);
    for (int k = 0; k < 2; k++) {
      assert_int_equal(part[k]->gather, zen_rules);
      free(part[k]);
    }
    for (int stream = 0; stream <= 1; stream++) {
      check(IXJ_OP_CAT, 2, 0, "iota 4 64 1024", 2, halves, 64, stream, 0, "cat_parts");
      check(IXJ_OP_CAT, 1, 0, "iota 3 128 2048", 2, bytes, 64, stream, 0, "cat_parts");
    }
  }
  zen_rules = 0;
}

static void strided_destinations(void **state) {
  (void)state;
  for (size_t e = 1; e <= 16; e *= 2) {
    copy_all_ways(e, "iota 200 400 | slice : ::2", "iota 200 200 | permute 1 0", "tiled"); /* masked stores */
    copy_all_ways(e, "iota 130 390 | slice : ::3", "iota 130 130 | permute 1 0", "tiled");
    copy_all_ways(e, "iota 100 500 | slice : ::5", "iota 100 100 | permute 1 0", "tiled"); /* element loops */
    /* rows on lines, the batch stride not: never an aligned store off a line */
    copy_all_ways(e, "strided shape=3,128,64 strides=8196,64,1", "iota 3 64 128 | permute 0 2 1", "tiled");
  }
  /* masked stores with AVX-512 only: AVX2's are microcoded on AMD's cores,
   * and its tiles store such rows by the element loops */
  ixj_ixfun *d = parse_ok("iota 200 400 | slice : ::2"), *s = parse_ok("iota 200 200 | permute 1 0");
  const ixj_ixfun *srcs[1] = {s};
  for (int vb = 32; vb <= 64; vb += 32) {
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = 4, .dst = d, .num_srcs = 1, .srcs = srcs, .cpu_vector_bytes = vb};
    ixj_plan *p = malloc(sizeof *p);
    char *ir = NULL;
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_int_equal(p->strategy, PLAN_TILED);
    assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
    assert_int_equal(strstr(ir, "@llvm.masked.store") != NULL, vb == 64);
    free(ir);
    free(p);
  }
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
}

static void fused_tiles(void **state) {
  (void)state;
  for (size_t e = 1; e <= 16; e *= 2) {
    copy_all_ways(e, "iota 64 264 | slice : :256", "iota 128 128 | permute 1 0 | reshape 64 256", "tiled");
    copy_all_ways(e, "iota 50 210 | slice : :200", "iota 100 100 | permute 1 0 | reshape 50 200", "tiled");
  }
  /* With AVX-512 a source unit dim of 8 elements or more fuses too where it
   * divides the micro-kernel's edge (INTEL_FUSED_B: a line of source row or
   * less): a (2, 1, 0) permute whose b is a whole line, then half of one; on
   * Zen cores (ZEN_FUSED_B) not bytes; not with AVX2. Then the kernels
   * against the reference (b cut short: 40 rows of the partner, and a). */
  char dst[64], src[64];
  for (size_t e = 1; e <= 8; e *= 2)
    for (int half = 0; half <= 1; half++) {
      int n = (int)(64 / e) >> half;
      snprintf(dst, sizeof dst, "iota %d 40 100", n);
      snprintf(src, sizeof src, "iota 100 40 %d | permute 2 1 0", n);
      for (int vb = 32; vb <= 64; vb += 32)
        for (int zen = 0; zen <= vb / 64; zen++) {
          ixj_plan *p = copy_plan(dst, src, e, vb, zen, 1, NULL);
          assert_int_equal(p->strategy, PLAN_TILED);
          assert_int_equal(p->b_inner, n < 8 ? p->b_inner : vb == 64 && (!zen || e >= 2) ? n : 0);
          free(p);
        }
      for (zen_rules = 0; zen_rules <= 1; zen_rules++) copy_all_ways(e, dst, src, "tiled");
      zen_rules = 0;
    }
  /* streamed fused-b floats whose destination rows lie on lines read 32 source rows on Intel's rules
   * (INTEL_FUSED_B_ROWS), 16 on Zen's and as doubles; then the kernels against the reference */
  const char *fused[][2] = {{"iota 64 272 | slice : :256", "iota 128 128 | permute 1 0 | reshape 64 256"},
                            {"iota 32 528 | slice : :512", "iota 128 128 | permute 1 0 | reshape 32 512"}};
  for (size_t c = 0; c < 2; c++)
    for (size_t e = 4; e <= 8; e *= 2)
      for (int zen = 0; zen <= 1; zen++) {
        ixj_plan *p = copy_plan(fused[c][0], fused[c][1], e, 64, zen, 1, NULL);
        assert_int_equal(p->strategy, PLAN_TILED);
        assert_true(p->b_inner > 0);
        if (p->tile_a != (e == 4 && !zen ? 32 : 16))
          fail_msg("%s <- %s, %zu bytes, %s rules: tile_a %d", fused[c][0], fused[c][1], e, zen ? "Zen" : "Intel", p->tile_a);
        free(p);
      }
  for (size_t c = 0; c < 2; c++)
    for (size_t e = 4; e <= 8; e *= 2)
      for (zen_rules = 0; zen_rules <= 1; zen_rules++) copy_all_ways(e, fused[c][0], fused[c][1], "tiled");
  zen_rules = 0;
}

/* Zips (plan.zip): k = 2..7 source rows interleaved into one destination
 * run, and unzips (plan.unzip), the mirror, every element size up to 8 bytes; b extents with a partial last
 * vector and a partial last tile, a batch dim, a padded batch stride (off a
 * line: no streaming), a cat part that zips, and the 16-byte elements and a
 * destination whose b stride is not k, which stay general. */
static void zips(void **state) {
  (void)state;
  char dst[96], src[96];
  for (size_t e = 1; e <= 8; e *= 2)
    for (int k = 2; k < 8; k++) {
      snprintf(dst, sizeof dst, "iota 2 300 %d", k);
      snprintf(src, sizeof src, "iota 2 %d 300 | permute 0 2 1", k);
      copy_all_ways(e, dst, src, "tiled");
      snprintf(dst, sizeof dst, "iota 2 17 100 %d", k); /* NCHW -> NHWC: (h, w) fused into b */
      snprintf(src, sizeof src, "iota 2 %d 17 100 | permute 0 2 3 1", k);
      copy_all_ways(e, dst, src, "tiled");
      snprintf(dst, sizeof dst, "iota 2 %d 300", k); /* unzips */
      snprintf(src, sizeof src, "iota 2 300 %d | permute 0 2 1", k);
      copy_all_ways(e, dst, src, "tiled");
      snprintf(dst, sizeof dst, "iota 2 %d 17 100", k); /* NHWC -> NCHW */
      snprintf(src, sizeof src, "iota 2 17 100 %d | permute 0 3 1 2", k);
      copy_all_ways(e, dst, src, "tiled");
    }
  copy_all_ways(4, "iota 3 1500", "iota 1500 3 | permute 1 0", "tiled"); /* unzip: several tiles, the last partial */
  copy_all_ways(4, "strided shape=3,3,200 strides=601,200,1", "iota 3 200 3 | permute 0 2 1", "tiled");
  copy_all_ways(4, "strided shape=3,3,200 strides=640,210,1", "iota 3 200 3 | permute 0 2 1", "tiled"); /* rows off lines */
  copy_all_ways(16, "iota 2 3 300", "iota 2 300 3 | permute 0 2 1", "general");
  copy_all_ways(4, "iota 1500 3", "iota 3 1500 | permute 1 0", "tiled"); /* several tiles, the last partial */
  copy_all_ways(4, "strided shape=3,200,3 strides=601,3,1", "iota 3 3 200 | permute 0 2 1", "tiled");
  copy_all_ways(16, "iota 2 300 3", "iota 2 3 300 | permute 0 2 1", "general");
  copy_all_ways(4, "iota 300 4 | slice : :3", "iota 3 300 | permute 1 0", "general");
  const char *two[] = {"iota 1 3 400 | permute 0 2 1", "iota 2 400 3"}; /* part 0 zips */
  for (int vb = 32; vb <= 64; vb += 32)
    for (int stream = 0; stream < 2; stream++) check(IXJ_OP_CAT, 4, 0, "iota 3 400 3", 2, two, vb, stream, 0, "cat_parts");
}

/* a fused along the destination (plan.a_inner): a destination unit dim
 * shorter than a vector continued by another (stride = its extent); edges
 * along the fused a and along b. */
static void fused_a_tiles(void **state) {
  (void)state;
  for (size_t e = 1; e <= 16; e *= 2) {
    copy_all_ways(e, "iota 3 40 5 8", "iota 5 3 8 40 | permute 1 3 0 2", "tiled");
    if (e <= 4) copy_all_ways(e, "iota 2 70 9 4", "iota 9 2 4 70 | permute 1 3 0 2", "tiled");
    if (e <= 8) copy_all_ways(e, "iota 2 70 20 2", "iota 20 2 2 70 | permute 1 3 0 2", "tiled");
    /* a reversed destination unit dim is no contiguous run with its partner:
     * not fused (the emitter refused the fused plan) */
    copy_all_ways(e, "iota 3 40 5 8 | slice : : : ::-1", "iota 5 3 8 40 | permute 1 3 0 2", "tiled");
    copy_all_ways(e, "iota 40 25 8 | slice ::-1 1: ::-1", "iota 24 8 40 | permute 2 0 1", "tiled");
    ixj_plan *p = copy_plan("iota 40 25 8 | slice ::-1 1: ::-1", "iota 24 8 40 | permute 2 0 1", e, 64, 1, 1, NULL);
    assert_int_equal(p->a_inner, 0);
    free(p);
  }
}

static void cat_parts(void **state) {
  (void)state;
  const char *rows[] = {"iota 100 64", "iota 100 36"};
  const char *mixed[] = {"iota 300 100", "iota 200 300 | permute 1 0", "iota 300 40 | slice ::-1"};
  const char *outer[] = {"iota 60 128", "iota 68 128", "iota 128 72 | permute 1 0"};
  const char *two_t[] = {"iota 200 300 | permute 1 0", "iota 100 300 | permute 1 0"}; /* declarations shared by parts */
  const char *contig[] = {"iota 10 128", "iota 20 128", "iota 30 128", "iota 4 128"}; /* memcpy parts only: the table */
  for (int vb = 32; vb <= 64; vb += 32)
    for (int stream = 0; stream < 2; stream++) {
      check(IXJ_OP_CAT, 4, 1, "iota 100 100", 2, rows, vb, stream, 0, "cat_parts");
      for (size_t e = 1; e <= 16; e *= 2) check(IXJ_OP_CAT, e, 1, "iota 300 340", 3, mixed, vb, stream, 0, "cat_parts");
      check(IXJ_OP_CAT, 8, 0, "iota 200 128", 3, outer, vb, stream, 8, "cat_parts"); /* memcpy parts */
      check(IXJ_OP_CAT, 4, 1, "iota 300 300", 2, two_t, vb, stream, 0, "cat_parts");
      check(IXJ_OP_CAT, 4, 0, "iota 64 128", 4, contig, vb, stream, 4, "cat_parts");
    }
  /* Zen's rules (no in-cache staging of T x T tiles, 32-byte blocks for
   * crowded bytes) reach the parts as rebuilt for emission */
  const char *crowded[] = {"iota 96 4096 | permute 1 0", "iota 104 4096 | permute 1 0"};
  zen_rules = 1;
  for (int stream = 0; stream < 2; stream++) {
    check(IXJ_OP_CAT, 4, 1, "iota 300 340", 3, mixed, 64, stream, 0, "cat_parts");
    check(IXJ_OP_CAT, 4, 1, "iota 300 300", 2, two_t, 64, stream, 4, "cat_parts");
    check(IXJ_OP_CAT, 1, 1, "iota 4096 200", 2, crowded, 64, stream, 0, "cat_parts");
  }
  zen_rules = 0;
  /* parts on both sides of the streaming threshold (61440 and 69632 bytes): the table's rows choose */
  for (size_t mis = 0; mis <= 8; mis += 8) check(IXJ_OP_CAT, 8, 0, "iota 200 128", 3, outer, 64, 65536, mis, "cat_parts");

  /* streamed memcpy parts prefetch their source a KiB ahead (templates/llvm/stream_copy.ll), and the
   * module declares llvm.prefetch once where a tiled part prefetches too; plain ones do not */
  for (int stream = 0; stream < 2; stream++) {
    ixj_ixfun *d = parse_ok("iota 200 128"), *s[3];
    for (int k = 0; k < 3; k++) s[k] = parse_ok(outer[k]);
    plan_request req = {.op = IXJ_OP_CAT, .elem_size = 8, .dst = d, .num_srcs = 3, .srcs = (const ixj_ixfun *const *)s,
                        .last_level_cache = (size_t)stream, .cpu_vector_bytes = 64, .cpu_asm_regs = 32};
    ixj_plan *p = malloc(sizeof *p), *part = malloc(sizeof *part);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_int_equal(p->strategy, PLAN_CAT_PARTS);
    assert_true(p->part[0].memcpy && p->part[1].memcpy && !p->part[2].memcpy);
    assert_int_equal(ixj__plan_part(p, 2, part, NULL), IXJ_OK);
    assert_int_equal(part->prefetch != 0, stream); /* the transposed part prefetches where streamed */
    char *ir = NULL;
    assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
    int declared = 0;
    for (const char *at = ir; (at = strstr(at, "declare void @llvm.prefetch.p0(")); at++) declared++;
    assert_int_equal(declared, stream);
    const char *streamer = strstr(ir, "define internal void @ixjit.stream_copy(");
    assert_true(stream ? streamer && strstr(streamer, "%ahead.i = add i64 %sp.i, 1024") : !streamer);
    free(ir);
    free(part);
    free(p);
    ixj_ixfun_free(d);
    for (int k = 0; k < 3; k++) ixj_ixfun_free(s[k]);
  }
}

/* Fills of strided views, and copies from a source of unit inner stride
 * into them: masked stores for pitches 2..4 (4- and 8-byte elements,
 * AVX-512), scalar stores otherwise (other sizes and pitches, rows that are
 * no whole number of stores, a source read across its rows). */
static void strided_stores(void **state) {
  (void)state;
  static const char *views[] = {"iota 64 256 | slice : ::2", "iota 30 96 | slice ::-1 1::3", "iota 3 20 128 | slice : : ::4",
                                "iota 20 100 | slice : ::5", "iota 17 34 | slice : ::2",
                                /* chains read with a step after their reshape (round 23: their head's
                                 * strides count the tail's positions, which the masked stores took for
                                 * memory, writing past the buffer too) */
                                "iota 4 500 | permute 1 0 | reshape 2000 | slice ::2",
                                "iota 32 128 | permute 1 0 | reshape 64 64 | slice : ::4"};
  static const char *copies[][2] = {{"iota 64 256 | slice : ::2", "iota 64 128"},
                                    {"iota 30 96 | slice ::-1 1::3", "iota 30 32"},
                                    {"iota 3 20 128 | slice : : ::4", "iota 3 20 32"},
                                    {"iota 3 20 128 | slice : : ::4", "iota 20 3 64 | permute 1 0 2 | slice : : 1::2"},
                                    {"iota 17 34 | slice : ::2", "iota 17 17"},
                                    {"iota 24 80 | slice : ::-2", "iota 24 40"},
                                    {"iota 20 100 | slice : ::5", "iota 20 20"},
                                    {"iota 8 96 | permute 1 0 | reshape 3 256 | slice : ::2", "iota 3 128"},
                                    {"iota 24 32 | permute 1 0 | reshape 4 192 | slice ::-1 1::3", "iota 4 64"}};
  for (int zen = 0; zen <= 1; zen++)
    for (int vb = 32; vb <= 64; vb += 32)
      for (size_t e = 1; e <= 16; e *= 2)
        for (size_t stream = 0; stream < 2; stream++) /* streamed: the stores prefetch for writing */
          for (size_t mis = 0; mis <= e; mis += e) {
            if (zen && !(vb == 64 && stream)) continue; /* Zen's rule: masked stores, streamed */
            zen_rules = zen;
            for (size_t v = 0; v < sizeof views / sizeof *views; v++)
              check(IXJ_OP_FILL, e, 0, views[v], 0, NULL, vb, stream, mis, "general");
            for (size_t v = 0; v < sizeof copies / sizeof *copies; v++)
              check(IXJ_OP_COPY, e, 0, copies[v][0], 1, &copies[v][1], vb, stream, mis, "general");
          }
  zen_rules = 0;
  /* the masked path is the one taken where it can be (AVX-512: AVX2's masked
   * stores are microcoded on AMD's cores, so there scalar stores); streamed,
   * each store prefetches a line ahead for writing, but for masked ones on
   * Zen cores */
  ixj_ixfun *f = parse_ok(views[0]), *s = parse_ok(copies[0][1]);
  for (int op = 0; op < 2; op++)
    for (int zen = 0; zen <= 1; zen++)
      for (int vb = 32; vb <= 64; vb += 32)
        for (size_t stream = 0; stream < 2; stream++) {
          plan_request req = {.op = op ? IXJ_OP_COPY : IXJ_OP_FILL, .elem_size = 4, .dst = f, .num_srcs = op,
                              .srcs = (const ixj_ixfun *const *)&s, .cpu_vector_bytes = vb, .last_level_cache = stream,
                              .cpu_zen = zen};
          ixj_plan *p = malloc(sizeof *p);
          char *ir = NULL;
          bool masked = vb == 64, prefetch = stream && !(zen && masked);
          assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
          assert_int_equal(p->store_pitch, masked ? 2 : 0);
          assert_int_equal(p->vector_elems, masked ? 8 : 1);
          assert_int_equal(p->nontemporal, 0); /* parts of lines, plain: never streaming stores (strided_destination_streams) */
          assert_int_equal(p->prefetch, (int)prefetch);
          assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
          assert_int_equal(strstr(ir, "@llvm.masked.store") != NULL, masked);
          assert_int_equal(strstr(ir, "load <8 x i32>") != NULL, masked && op); /* the source's row, spread */
          assert_int_equal(strstr(ir, "call void @llvm.prefetch.p0(ptr %") != NULL, prefetch); /* rw = 1: for writing */
          assert_int_equal(strstr(ir, "i32 1, i32 3, i32 1)") != NULL, prefetch);
          free(ir);
          free(p);
        }
  ixj_ixfun_free(f);
  ixj_ixfun_free(s);
  /* a chain destination never: its head's steps are not memory's */
  for (size_t v = 5; v < sizeof views / sizeof *views; v++) {
    f = parse_ok(views[v]);
    plan_request req = {.op = IXJ_OP_FILL, .elem_size = 8, .dst = f, .cpu_vector_bytes = 64, .last_level_cache = 1};
    ixj_plan *p = malloc(sizeof *p);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_int_equal(p->operand[0].num_tail, 1);
    assert_int_equal(p->store_pitch, 0);
    free(p);
    ixj_ixfun_free(f);
  }
}

/* Streamed copies of rows far apart in the source move groups of rows
 * together on Zen cores and Intel's with AVX-512 (plan.row_group): inner-contiguous rows of one to
 * sixteen lines, a group dim that is or is not a multiple of the group, an
 * odometer carry into outer dims, rows next to each other (no group) or
 * read forward one before the other (a group); and
 * GENERAL rows read with a stride (their vector ranges grouped, heads and
 * tails row by row; a destination pitch of whole lines or not, misaligned
 * rows). check()'s chunks start mid-row and mid-group, so both paths run. */
static void row_groups(void **state) {
  (void)state;
  static const char *copies[][2] = {{"iota 6 16 64", "iota 16 6 64 | permute 1 0 2"},
                                    {"iota 5 24 32", "iota 24 5 32 | permute 1 0 2"},
                                    {"iota 3 8 40", "iota 8 3 40 | permute 1 0 2"},
                                    {"iota 4 10 64", "iota 10 4 64 | permute 1 0 2"},
                                    {"iota 2 3 16 64", "iota 3 16 2 64 | permute 2 0 1 3"},
                                    {"iota 8 64", "iota 8 80 | slice : :64"},
                                    {"iota 8 64", "iota 8 64 | slice ::-1"}};
  static const char *general[][2] = {{"iota 8 256", "iota 16 512 | slice ::2 ::2"},
                                     {"iota 12 256", "iota 24 512 | slice ::-2 ::2"},
                                     {"iota 8 200", "iota 16 400 | slice ::2 ::2"},
                                     {"iota 6 256", "iota 12 512 | slice ::2 ::2"},
                                     {"iota 2 8 256", "iota 2 24 768 | slice : ::3 ::3"},
                                     {"iota 8 128", "iota 8 256 | slice ::-1 ::2"},
                                     {"iota 8 128", "iota 8 128 | slice ::-1 ::-1"}};
  /* the groups' kernels: Zen, streamed (elsewhere these copies take the
   * kernels the other tests run; the plan checks below say where) */
  for (zen_rules = 1; zen_rules >= 0; zen_rules--) /* Zen's rules, then Intel's (AVX-512 only: INTEL_ROW_GROUPS) */
    for (int vb = zen_rules ? 32 : 64; vb <= 64; vb += 32)
      for (size_t e = 1; e <= 16; e *= 2)
        for (size_t mis = 0; mis <= e; mis += e) {
          for (size_t v = 0; v < sizeof copies / sizeof *copies; v++)
            check(IXJ_OP_COPY, e, 0, copies[v][0], 1, &copies[v][1], vb, 1, mis, "inner_contiguous");
          for (size_t v = 0; v < sizeof general / sizeof *general; v++)
            check(IXJ_OP_COPY, e, 0, general[v][0], 1, &general[v][1], vb, 1, mis, "general");
        }
  zen_rules = 0;
  /* where the group is chosen: Zen or Intel with AVX-512, streamed, vectors, whole lines, a group dim of whole groups, and
   * (inner-contiguous copies) rows the source-major walk does not take: a destination off lines
   * (misaligned: its first element half a line past one, on 32-byte vectors, which keep their
   * aligned vector rows there) or source rows not back to back */
  static const struct {
    int copy, zen, stream;
    size_t elem;
    int misaligned, want, avx2;
  } cases[] = {{0, 1, 1, 4, 1, 4, 0}, {0, 1, 1, 4, 0, 4, 0} /* quads (row_quads) */, {0, 0, 1, 4, 1, 0, 0}, {0, 1, 0, 4, 1, 0, 0}, {1, 1, 1, 1, 1, 0, 0},
               {1, 1, 1, 2, 1, 4, 0}, {1, 1, 1, 2, 0, 4, 0} /* quads */, {2, 1, 1, 4, 1, 0, 0}, {2, 1, 1, 8, 1, 4, 0}, {3, 1, 1, 4, 1, 0, 0},
               {4, 1, 1, 4, 1, 4, 0}, {4, 1, 1, 4, 0, 4, 0} /* quads */, {5, 1, 1, 4, 0, 0, 0}, {6, 1, 1, 4, 0, 4, 0},
               /* Intel with AVX-512 (INTEL_ROW_GROUPS): rows in the source's order group too (Zen's
                * with AVX-512 where quads split their dim, above: row_quads) */
               {0, 0, 1, 4, 0, 4, 0}, {4, 0, 1, 4, 0, 4, 0}, {5, 0, 1, 4, 0, 0, 0},
               /* general (100 + k: general[k]) */
               {100, 1, 1, 4, 0, 4, 0}, {100, 1, 0, 4, 0, 0, 0}, {101, 1, 1, 8, 0, 4, 0}, {102, 1, 1, 4, 0, 0, 0},
               {102, 1, 1, 8, 0, 4, 0}, {103, 1, 1, 4, 0, 0, 0}, {104, 1, 1, 4, 0, 4, 0}, {105, 1, 1, 4, 0, 4, 0},
               {106, 1, 1, 4, 0, 0, 0},
               /* Intel: with AVX-512 as on Zen, with AVX2 none */
               {100, 0, 1, 4, 0, 4, 0}, {100, 0, 1, 4, 0, 0, 1}, {101, 0, 1, 8, 0, 4, 0}, {105, 0, 1, 4, 0, 4, 0},
               {106, 0, 1, 4, 0, 0, 0}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    const char *const *text = cases[c].copy >= 100 ? general[cases[c].copy - 100] : copies[cases[c].copy];
    ixj_ixfun *d = parse_ok(text[0]), *s = parse_ok(text[1]);
    const void *pointers[2] = {(const void *)(uintptr_t)(cases[c].misaligned ? 4096 + 32 : 4096), (const void *)(uintptr_t)8192};
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = cases[c].elem, .dst = d, .num_srcs = 1,
                        .srcs = (const ixj_ixfun *const *)&s, .pointers = pointers,
                        .cpu_vector_bytes = cases[c].misaligned || cases[c].avx2 ? 32 : 64,
                        .last_level_cache = (size_t)cases[c].stream, .cpu_zen = cases[c].zen};
    ixj_plan *p = malloc(sizeof *p);
    char *ir = NULL;
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    if (p->row_group != cases[c].want) fail_msg("case %zu: row_group %d, expected %d", c, p->row_group, cases[c].want);
    assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
    const char *mark = cases[c].copy >= 100 ? "%gv.more" : "group.done:"; /* the vector group's loop, or the rows' */
    assert_int_equal(strstr(ir, mark) != NULL, cases[c].want != 0);
    free(ir);
    free(p);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
}

/* The copy plan of dst <- src for a host of vector_bytes vectors, Zen's
 * rules or not, streamed or not; pointers as the request's (NULL: aligned).
 * The caller frees it. */
static ixj_plan *copy_plan(const char *dst, const char *src, size_t elem, int vector_bytes, int zen, int stream,
                           const void *const *pointers) {
  ixj_ixfun *d = parse_ok(dst), *s = parse_ok(src);
  const ixj_ixfun *srcs[1] = {s};
  plan_request req = {.op = IXJ_OP_COPY, .elem_size = elem, .dst = d, .num_srcs = 1, .srcs = srcs, .pointers = pointers,
                      .last_level_cache = (size_t)stream, .cpu_vector_bytes = vector_bytes, .cpu_zen = zen};
  ixj_plan *p = malloc(sizeof *p);
  assert_non_null(p);
  assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
  return p;
}

/* The two parts of the streamed cat of inputs[0] and inputs[1] into dst
 * along axis, planned for an AVX-512 host by Intel's rules (asm_regs as the
 * request's), as ixj__plan_part rebuilds them for emission. The caller
 * frees both. */
static void cat2_parts(const char *dst, const char *const *inputs, size_t elem, int axis, int asm_regs, ixj_plan *part[2]) {
  ixj_ixfun *d = parse_ok(dst), *s[2] = {parse_ok(inputs[0]), parse_ok(inputs[1])};
  plan_request req = {.op = IXJ_OP_CAT, .elem_size = elem, .dst = d, .num_srcs = 2, .srcs = (const ixj_ixfun *const *)s,
                      .cat_axis = axis, .last_level_cache = 1, .cpu_vector_bytes = 64, .cpu_asm_regs = asm_regs,
                      .cpu_zen = zen_rules};
  ixj_plan *cat = malloc(sizeof *cat);
  assert_non_null(cat);
  assert_int_equal(ixj__plan_build(&req, cat, NULL), IXJ_OK);
  assert_int_equal(cat->strategy, PLAN_CAT_PARTS);
  assert_int_equal(cat->num_parts, 2);
  for (int k = 0; k < 2; k++) {
    part[k] = malloc(sizeof *part[k]);
    assert_non_null(part[k]);
    assert_int_equal(ixj__plan_part(cat, k, part[k], NULL), IXJ_OK);
  }
  free(cat);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s[0]);
  ixj_ixfun_free(s[1]);
}

/* Streamed copies of contiguous rows on Zen cores walk the rows in the
 * source's order where the destination's rows are whole lines on lines
 * (source_major_rows in gen/plan.c): the plans' dim orders, and the kernels
 * against the reference. */
static bool strides_descend(const ixj_plan *p, int o) {
  for (int j = 0; j + 2 < p->rank; j++)
    if (llabs(p->operand[o].stride[j]) < llabs(p->operand[o].stride[j + 1])) return false;
  return true;
}

static void source_major(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int zen, stream, misaligned, source_major, avx2;
  } cases[] = {/* Zen: rows of 2 KiB (at most 1 KiB, AVX-512 splits a dim into quads: row_quads) */
               {"iota 8 16 512", "iota 16 8 512 | permute 1 0 2", 1, 1, 0, 1, 0},
               {"iota 2 4 8 512", "iota 2 8 4 512 | permute 0 2 1 3", 1, 1, 0, 1, 0},
               {"iota 4 3 5 512", "iota 5 4 3 512 | permute 1 2 0 3", 1, 1, 0, 1, 0},
               {"iota 4 16 512", "iota 16 4 512 | permute 1 0 2", 0, 1, 0, 1, 0},             /* Intel: the next row a page on */
               {"iota 4 16 512", "iota 16 4 512 | permute 1 0 2", 0, 1, 0, 0, 1},          /* Intel with AVX2 */
               {"iota 8 16 64", "iota 16 8 64 | permute 1 0 2", 0, 1, 0, 0, 0},               /* Intel: 2 KiB on */
               {"iota 8 16 64", "iota 16 8 64 | permute 1 0 2", 1, 0, 0, 0, 0},               /* in cache */
               {"iota 8 16 64", "iota 16 8 64 | permute 1 0 2", 1, 1, 1, 0, 0},               /* destination off lines */
               {"iota 8 16 60", "iota 16 8 60 | permute 1 0 2", 1, 1, 0, 0, 0},               /* rows not whole lines */
               {"iota 8 16 64", "iota 16 8 64 | slice ::-1 | permute 1 0 2", 1, 1, 0, 0, 0}, /* a reversed source dim */
               {"iota 8 16 64", "iota 16 8 80 | slice : : :64 | permute 1 0 2", 1, 1, 0, 0, 0}}; /* source rows apart */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    const void *pointers[2] = {(const void *)(uintptr_t)(cases[c].misaligned ? 4096 + 32 : 4096), (const void *)(uintptr_t)8192};
    ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, 4, cases[c].misaligned || cases[c].avx2 ? 32 : 64, cases[c].zen,
                            cases[c].stream, pointers);
    assert_int_equal(p->strategy, PLAN_INNER_CONTIGUOUS);
    if (strides_descend(p, 1) != cases[c].source_major || strides_descend(p, 0) == cases[c].source_major)
      fail_msg("%s <- %s: the rows walked in the %s's order", cases[c].dst, cases[c].src,
               strides_descend(p, 1) ? "source" : "destination");
    if (cases[c].source_major) assert_int_equal(p->row_group, 0); /* the source rows are next to each other now */
    free(p);
  }
  for (size_t e = 4; e <= 16; e *= 2) {
    zen_rules = 1;
    for (size_t c = 0; c < 3; c++) copy_all_ways(e, cases[c].dst, cases[c].src, "inner_contiguous");
    zen_rules = 0;
    copy_all_ways(e, cases[3].dst, cases[3].src, "inner_contiguous");
  }
}

/* A cat's parts, rebuilt by ixj__plan_part from the cat plan (without the
 * pointers or the cache size), are planned as the copy of each input into
 * its slice of the destination is with them: the same signature but for the
 * offsets. Zen's rules, AVX-512, streamed; the destination on lines and off
 * them. Two of these went astray: a part of contiguous rows lost the
 * source's order of its rows (source_major_rows: half the copy's speed), and
 * a part of crowded byte tiles spanning 250-byte rows gathered again (the
 * emitter refused it: a cat that failed with an internal error). Then the
 * kernels against the reference. */
static void sig_without_offsets(const ixj_plan *p, char *out, size_t size) {
  char sig[4096];
  ixj__plan_signature(p, "test", sig, sizeof sig);
  const char *s = strstr(sig, "strategy=");
  assert_non_null(s);
  size_t n = 0;
  while (*s && n + 1 < size) { /* everything but each operand's head_offset=... */
    if (!strncmp(s, " head_offset=", 13)) {
      s += 13;
      while (*s && *s != ' ') s++;
      continue;
    }
    out[n++] = *s++;
  }
  out[n] = 0;
}

static void cat_parts_as_copies(void **state) {
  (void)state;
  static const struct {
    size_t elem;
    int axis, rank;
    const char *dst, *src[2];
    int64_t extent[2]; /* along the axis */
    int source_major;  /* part 0's rows walked in the source's order */
  } cases[] = {
      {4, 0, 3, "iota 64 32 64", {"iota 32 32 64 | permute 1 0 2", "iota 32 32 64 | permute 1 0 2"}, {32, 32}, 1},
      {4, 2, 3, "iota 32 16 128", {"iota 16 32 64 | permute 1 0 2", "iota 32 16 64"}, {64, 64}, 1},
      {1, 0, 4, "iota 4 64 64 250", {"iota 2 250 64 64 | permute 0 2 3 1", "iota 2 250 64 64 | permute 0 2 3 1"}, {2, 2}, 0},
      {4, 1, 2, "iota 200 200", {"iota 200 70", "iota 130 200 | permute 1 0"}, {70, 130}, 0},
      {1, 1, 2, "iota 30 137", {"iota 30 37", "iota 30 164 | slice : 1:101"}, {37, 100}, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (int misaligned = 0; misaligned <= 1; misaligned++) {
      ixj_ixfun *d = parse_ok(cases[c].dst), *s[2] = {parse_ok(cases[c].src[0]), parse_ok(cases[c].src[1])};
      uintptr_t dst_at = 1 << 20, src_at[2] = {2 << 20, 3 << 20};
      if (misaligned) dst_at += cases[c].elem;
      const void *pointers[3] = {(const void *)dst_at, (const void *)src_at[0], (const void *)src_at[1]};
      plan_request req = {.op = IXJ_OP_CAT, .elem_size = cases[c].elem, .dst = d, .num_srcs = 2, .srcs = (const ixj_ixfun *const *)s,
                          .cat_axis = cases[c].axis, .pointers = pointers, .last_level_cache = 1, .cpu_vector_bytes = 64,
                          .cpu_asm_regs = 32, .cpu_zen = 1};
      ixj_plan *cat = malloc(sizeof *cat), *part = malloc(sizeof *part);
      assert_non_null(cat);
      assert_non_null(part);
      assert_int_equal(ixj__plan_build(&req, cat, NULL), IXJ_OK);
      assert_int_equal(cat->strategy, PLAN_CAT_PARTS);
      assert_int_equal(cat->num_parts, 2);
      if (!misaligned) assert_int_equal(cat->part[0].source_major, cases[c].source_major);
      for (int k = 0; k < 2; k++) {
        char slice[128] = "", dst_text[256], want[4096], got[4096];
        int64_t start = k ? cases[c].extent[0] : 0;
        for (int j = 0; j < cases[c].rank; j++)
          if (j == cases[c].axis)
            snprintf(slice + strlen(slice), sizeof slice - strlen(slice), " %lld:%lld", (long long)start,
                     (long long)(start + cases[c].extent[k]));
          else
            snprintf(slice + strlen(slice), sizeof slice - strlen(slice), " :");
        snprintf(dst_text, sizeof dst_text, "%s | slice%s", cases[c].dst, slice);
        const void *copy_pointers[2] = {(const void *)dst_at, (const void *)src_at[k]};
        ixj_ixfun *dk = parse_ok(dst_text);
        const ixj_ixfun *srcs[1] = {s[k]};
        plan_request creq = {.op = IXJ_OP_COPY, .elem_size = cases[c].elem, .dst = dk, .num_srcs = 1, .srcs = srcs,
                             .pointers = copy_pointers, .last_level_cache = 1, .cpu_vector_bytes = 64, .cpu_asm_regs = 32,
                             .cpu_zen = 1};
        ixj_plan *copy = malloc(sizeof *copy);
        assert_non_null(copy);
        assert_int_equal(ixj__plan_build(&creq, copy, NULL), IXJ_OK);
        assert_int_equal(ixj__plan_part(cat, k, part, NULL), IXJ_OK);
        sig_without_offsets(copy, want, sizeof want);
        sig_without_offsets(part, got, sizeof got);
        if (strcmp(want, got))
          fail_msg("%s, part %d%s:\n  as a copy: %s\n  rebuilt:   %s", cases[c].dst, k, misaligned ? " (off lines)" : "", want, got);
        char *ir = NULL;
        assert_int_equal(ixj__emit_llvm(part, "k", "test", &ir, NULL), IXJ_OK);
        free(ir);
        free(copy);
        ixj_ixfun_free(dk);
      }
      free(cat);
      free(part);
      ixj_ixfun_free(d);
      ixj_ixfun_free(s[0]);
      ixj_ixfun_free(s[1]);
    }
  zen_rules = 1;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (size_t mis = 0; mis <= cases[c].elem; mis += cases[c].elem)
      check(IXJ_OP_CAT, cases[c].elem, cases[c].axis, cases[c].dst, 2, cases[c].src, 64, 1, mis, "cat_parts");
  zen_rules = 0;
}

/* With AVX-512 (Intel's rules and, since round 32, Zen's), rows of at most
 * 1 KiB walked in the source's order move 4 at a time into one run of the
 * destination (row_quads in gen/plan.c: the dim that steps the destination
 * by a row split, its inner 4 rows, or 2 where 4 does not divide it,
 * innermost among the outer dims): the plans' dims and strides, none for an
 * odd extent, longer rows or AVX2; a cat whose part takes them, rebuilt as
 * its copy (both rules); the kernels against the reference (both rules). */
static void row_quads(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int zen, vb;
    int64_t shape[4]; /* the split plan's; {0}: not split */
  } cases[] = {{"iota 64 32 16", "iota 32 64 16 | permute 1 0 2", 0, 64, {8, 64, 4, 16}},    /* 64-byte rows */
               {"iota 64 30 16", "iota 30 64 16 | permute 1 0 2", 0, 64, {15, 64, 2, 16}},   /* pairs */
               {"iota 64 31 16", "iota 31 64 16 | permute 1 0 2", 0, 64, {0}},               /* an odd extent */
               {"iota 8 16 256", "iota 16 8 256 | permute 1 0 2", 0, 64, {4, 8, 4, 256}},    /* 1 KiB rows */
               {"iota 4 16 512", "iota 16 4 512 | permute 1 0 2", 0, 64, {0}},               /* 2 KiB rows */
               {"iota 64 32 16", "iota 32 64 16 | permute 1 0 2", 1, 64, {8, 64, 4, 16}},    /* Zen's rules (ZEN_ROW_QUADS) */
               {"iota 8 16 256", "iota 16 8 256 | permute 1 0 2", 1, 64, {4, 8, 4, 256}},    /* Zen, 1 KiB rows */
               {"iota 64 32 16", "iota 32 64 16 | permute 1 0 2", 1, 32, {0}},               /* Zen with AVX2 */
               {"iota 64 32 16", "iota 32 64 16 | permute 1 0 2", 0, 32, {0}}};              /* AVX2 */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, 4, cases[c].vb, cases[c].zen, 1, NULL);
    assert_int_equal(p->strategy, PLAN_INNER_CONTIGUOUS);
    if (!cases[c].shape[0]) {
      assert_int_equal(p->rank, 3);
    } else {
      int64_t k = cases[c].shape[2], row = cases[c].shape[3];
      assert_int_equal(p->rank, 4);
      for (int j = 0; j < 4; j++) assert_int_equal(p->shape[j], cases[c].shape[j]);
      /* the inner k rows: one run of the destination, k source rows apart; the outer part k times that */
      assert_int_equal(p->operand[0].stride[2], row);
      assert_int_equal(p->operand[0].stride[0], k * row);
      assert_int_equal(p->operand[1].stride[0], k * p->operand[1].stride[2]);
      assert_int_equal(p->operand[1].stride[1], row); /* the source's rows back to back: its walk */
    }
    free(p);
    zen_rules = cases[c].zen;
    if (cases[c].vb == 64)
      for (size_t e = 1; e <= 16; e *= 4) copy_all_ways(e, cases[c].dst, cases[c].src, "inner_contiguous");
    zen_rules = 0;
  }
  /* a cat along axis 1 of two such inputs: each part splits as its copy does */
  static const char *inputs[2] = {"iota 32 64 16 | permute 1 0 2", "iota 32 64 16 | permute 1 0 2"};
  for (zen_rules = 0; zen_rules <= 1; zen_rules++) {
    ixj_plan *part[2];
    cat2_parts("iota 64 64 16", inputs, 4, 1, 0, part); /* no asm registers: as copy_plan's */
    for (int k = 0; k < 2; k++) {
      char dst_text[64], want[4096], got[4096];
      snprintf(dst_text, sizeof dst_text, "iota 64 64 16 | slice : %d:%d", 32 * k, 32 * k + 32);
      ixj_plan *copy = copy_plan(dst_text, inputs[k], 4, 64, zen_rules, 1, NULL);
      assert_int_equal(part[k]->rank, 4);
      sig_without_offsets(copy, want, sizeof want);
      sig_without_offsets(part[k], got, sizeof got);
      if (strcmp(want, got)) fail_msg("part %d:\n  as a copy: %s\n  rebuilt:   %s", k, want, got);
      free(copy);
      free(part[k]);
    }
    for (size_t e = 1; e <= 16; e *= 4)
      for (size_t mis = 0; mis <= e; mis += e) check(IXJ_OP_CAT, e, 1, "iota 64 64 16", 2, inputs, 64, 1, mis, "cat_parts");
  }
  zen_rules = 0;
}

#ifndef RANDOM_TILED_CASES
#define RANDOM_TILED_CASES 40
#endif
#define RANDOM_TILED_MAX_BYTES (256 << 10)
/* Random permutes of extents the tiled kernels single out (powers of two,
 * half of them with source rows a multiple of 4 KiB: crowded; one block and
 * two: 9, 15-17, 31-33; odd ones; NHWC channel counts), ranks 2 to 4, every
 * element size, into contiguous and pitched destinations, some dims
 * reversed, every way (Zen's
 * rules and not, both vector widths, streamed and not, rows off by an
 * element), against the reference with fenced sources. Seeded: the same
 * cases every run. Round 22's sweep of this kind (6000 cases, the host's
 * rules) found two gathered-tile bugs that no listed case had. */
static uint64_t rand_state;
static unsigned rand_next(void) {
  rand_state = rand_state * 6364136223846793005u + 1442695040888963407u;
  return (unsigned)(rand_state >> 33);
}

/* Fisher-Yates over 0..n-1 */
static void random_permutation(int *perm, int n) {
  for (int j = 0; j < n; j++) perm[j] = j;
  for (int j = n - 1; j > 0; j--) {
    int k = (int)(rand_next() % (unsigned)(j + 1)), t = perm[j];
    perm[j] = perm[k];
    perm[k] = t;
  }
}

static void random_tiled_layouts(void **state) {
  (void)state;
  static const int64_t dims[] = {1, 2, 3, 5, 8, 9, 15, 16, 17, 20, 31, 32, 33, 60, 64, 65, 100, 128, 129, 250, 256, 512, 1024, 4096};
  const int ndims = (int)(sizeof dims / sizeof *dims);
  rand_state = 22;
  for (int c = 0; c < RANDOM_TILED_CASES; c++) {
    size_t e = (size_t)1 << (rand_next() % 5);
    int rank = 2 + (int)(rand_next() % 3), perm[4];
    bool crowded = rand_next() % 2;
    do /* a permutation that moves the source's unit dim: a transpose */
      random_permutation(perm, rank);
    while (perm[rank - 1] == rank - 1);
    int64_t shape[4], bytes;
    do { /* both unit dims longer than 1 */
      bytes = (int64_t)e;
      for (int j = 0; j < rank; j++) shape[j] = dims[rand_next() % (unsigned)ndims];
      if (crowded) shape[rank - 1] = 4096 / (int64_t)e;
      for (int j = 0; j < rank; j++) bytes *= shape[j];
    } while (bytes < 4096 || bytes > RANDOM_TILED_MAX_BYTES || shape[rank - 1] == 1 || shape[perm[rank - 1]] == 1);
    char src[128] = "iota", dst[160] = "iota", slice[64] = " | slice";
    int pad = rand_next() % 3 ? 0 : (int)(rand_next() % 17) + 1;
    for (int j = 0; j < rank; j++) snprintf(src + strlen(src), sizeof src - strlen(src), " %lld", (long long)shape[j]);
    snprintf(src + strlen(src), sizeof src - strlen(src), " | permute");
    for (int j = 0; j < rank; j++) {
      int64_t out = shape[perm[j]];
      snprintf(src + strlen(src), sizeof src - strlen(src), " %d", perm[j]);
      snprintf(dst + strlen(dst), sizeof dst - strlen(dst), " %lld", (long long)(out + (j == rank - 1 ? pad : 0)));
      if (j < rank - 1) snprintf(slice + strlen(slice), sizeof slice - strlen(slice), " :");
      else snprintf(slice + strlen(slice), sizeof slice - strlen(slice), " :%lld", (long long)out);
    }
    if (pad) snprintf(dst + strlen(dst), sizeof dst - strlen(dst), "%s", slice);
    if (rand_next() % 4 == 0) { /* some dims reversed */
      snprintf(dst + strlen(dst), sizeof dst - strlen(dst), " | slice");
      for (int j = 0; j < rank; j++) snprintf(dst + strlen(dst), sizeof dst - strlen(dst), rand_next() % 2 ? " ::-1" : " :");
    }
    const char *srcs[1] = {src};
    for (zen_rules = 0; zen_rules <= 1; zen_rules++)
      for (int vb = 32; vb <= 64; vb += 32)
        for (int stream = 0; stream < 2; stream++)
          for (size_t mis = 0; mis <= e; mis += e) check(IXJ_OP_COPY, e, 0, dst, 1, srcs, vb, (size_t)stream, mis, NULL);
  }
  zen_rules = 0;
}

#ifndef RANDOM_TILED_CATS
#define RANDOM_TILED_CATS 16
#endif
/* The same for cats: two or three parts along a random axis, each a random
 * permute of its own array (a part's plan is rebuilt from the cat's:
 * ixj__plan_part), every way. */
static void random_tiled_cats(void **state) {
  (void)state;
  static const int64_t dims[] = {1, 2, 3, 5, 8, 9, 16, 17, 31, 32, 33, 60, 64, 65, 100, 128, 256, 1024, 4096};
  static const int64_t along[] = {1, 3, 16, 17, 64};
  const int ndims = (int)(sizeof dims / sizeof *dims);
  rand_state = 2212;
  for (int c = 0; c < RANDOM_TILED_CATS; c++) {
    size_t e = (size_t)1 << (rand_next() % 5);
    int rank = 2 + (int)(rand_next() % 3), axis = (int)(rand_next() % (unsigned)rank), parts = 2 + (int)(rand_next() % 2);
    bool crowded = rand_next() % 2;
    int64_t shape[4], extent[3], bytes;
    do {
      for (int j = 0; j < rank; j++) shape[j] = dims[rand_next() % (unsigned)ndims];
      if (crowded) shape[rank - 1] = 4096 / (int64_t)e;
      shape[axis] = 0;
      for (int k = 0; k < parts; k++) shape[axis] += extent[k] = along[rand_next() % 5];
      bytes = (int64_t)e;
      for (int j = 0; j < rank; j++) bytes *= shape[j];
    } while (bytes < 4096 || bytes > RANDOM_TILED_MAX_BYTES);
    char dst[128] = "iota", src[3][160], *srcs[3];
    for (int j = 0; j < rank; j++) snprintf(dst + strlen(dst), sizeof dst - strlen(dst), " %lld", (long long)shape[j]);
    for (int k = 0; k < parts; k++) { /* stored in the order perm, viewed in the cat's */
      int perm[4], inverse[4];
      random_permutation(perm, rank);
      for (int j = 0; j < rank; j++) inverse[perm[j]] = j;
      snprintf(src[k], sizeof src[k], "iota");
      for (int j = 0; j < rank; j++)
        snprintf(src[k] + strlen(src[k]), sizeof src[k] - strlen(src[k]), " %lld",
                 (long long)(perm[j] == axis ? extent[k] : shape[perm[j]]));
      snprintf(src[k] + strlen(src[k]), sizeof src[k] - strlen(src[k]), " | permute");
      for (int j = 0; j < rank; j++) snprintf(src[k] + strlen(src[k]), sizeof src[k] - strlen(src[k]), " %d", inverse[j]);
      srcs[k] = src[k];
    }
    for (zen_rules = 0; zen_rules <= 1; zen_rules++)
      for (int vb = 32; vb <= 64; vb += 32)
        for (int stream = 0; stream < 2; stream++)
          for (size_t mis = 0; mis <= e; mis += e)
            check(IXJ_OP_CAT, e, axis, dst, parts, (const char *const *)srcs, vb, (size_t)stream, mis, "cat_parts");
  }
  zen_rules = 0;
}

/* Fills of reversed, rotated and chained views: the plan fills the set of
 * offsets the view covers in its own order (reversed dims forward, no
 * rotation), so a reversed or rolled contiguous view is a contiguous fill. */
static void fill_orders(void **state) {
  (void)state;
  static const char *views[][2] = {{"iota 20 30 | rotate 3 7 | slice ::-1 ::-1", "inner_contiguous"},
                                   {"iota 200 | slice ::-1", "inner_contiguous"},
                                   {"iota 8 6 | permute 1 0 | reshape 4 12 | slice ::-1", "inner_contiguous"},
                                   {"iota 64 70 | slice ::-1 ::-2", "general"}};
  for (int vb = 32; vb <= 64; vb += 32)
    for (size_t e = 1; e <= 16; e *= 2)
      for (size_t v = 0; v < sizeof views / sizeof *views; v++)
        for (int stream = 0; stream < 2; stream++)
          for (size_t mis = 0; mis <= e; mis += e) check(IXJ_OP_FILL, e, 0, views[v][0], 0, NULL, vb, stream, mis, views[v][1]);
}

/* Chains that do not refine move each row in runs (plan.chain_runs): one
 * decomposition a run, its points adjacent in every operand, by vectors where
 * all run forward. Runs shorter than the row and longer, backward runs and
 * runs of two points; a chain destination, chains on both sides, a rotated
 * outer tail dim, a trailing unit dim; and chains that keep the element loop
 * (a rotated run dim, a head stepping backward), each every way, with rows
 * off by an element and by a byte (no vectors then). Forward runs are kept
 * where the chain has a flat form (ixj__plan_unchain_flat); backward ones
 * only where it has none (a destination that cannot take the view's shape). */
static void chain_runs(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int runs;
  } copies[] = {
      {"iota 63 64", "iota 64 64 | slice : 1: | reshape 63 64", 1},
      {"iota 40 100 | slice : 3:", "iota 97 41 | slice : 1: | reshape 40 97", 1},
      {"iota 40 100 | slice : 3:", "iota 97 41 | slice : ::-1 | slice : 1: | reshape 40 97", 1},
      {"iota 64 64 | slice : 1: | reshape 63 64", "iota 63 64", 1},
      {"iota 64 64 | slice : ::-1 | slice : 1: | reshape 63 64", "iota 63 64 | slice ::-1", 1},
      {"iota 50 31 | slice : 1: | reshape 60 25", "iota 30 51 | slice : 1: | reshape 60 25", 1},
      {"iota 40 15", "iota 300 3 | slice : 1: | reshape 40 15", 1},
      {"iota 63 64", "iota 64 65 1 | slice : 2: : | reshape 63 64", 1},
      {"iota 63 64", "iota 64 64 | rotate 5 0 | slice : 1: | reshape 63 64", 1},
      {"iota 63 64 | slice : :60", "iota 64 64 | rotate 0 5 | slice : 1: | reshape 63 64 | slice : :60", 0},
      {"iota 63 64", "iota 64 64 | slice : 1: | reshape 63 64 | slice : ::-1", 0},
  };
  static const char *fills[] = {"iota 64 64 | slice : 1: | reshape 63 64", "iota 50 31 | slice : 1: | reshape 60 25",
                                "iota 300 3 | slice : 1: | reshape 40 15"};
  for (size_t c = 0; c < sizeof copies / sizeof *copies; c++)
    for (int vb = 32; vb <= 64; vb += 32) {
      ixj_plan *p = copy_plan(copies[c].dst, copies[c].src, 4, vb, 0, 0, NULL);
      assert_string_equal(ixj__plan_strategy_name(p->strategy), "general");
      if (p->chain_runs != (copies[c].runs ? vb : 0)) fail_msg("%s <- %s: chain_runs %d", copies[c].dst, copies[c].src, p->chain_runs);
      free(p);
    }
  for (int vb = 32; vb <= 64; vb += 32)
    for (size_t e = 1; e <= 16; e *= 2)
      for (int stream = 0; stream < 2; stream++)
        for (int m = 0; m < (e > 1 ? 3 : 2); m++) {
          size_t mis = m == 0 ? 0 : m == 1 ? 1 : e; /* aligned, off by a byte, off by an element */
          for (size_t c = 0; c < sizeof copies / sizeof *copies; c++)
            check(IXJ_OP_COPY, e, 0, copies[c].dst, 1, &copies[c].src, vb, stream, mis, "general");
          for (size_t f = 0; f < sizeof fills / sizeof *fills; f++) check(IXJ_OP_FILL, e, 0, fills[f], 0, NULL, vb, stream, mis, "general");
        }
}

/* Chains that are plain reshapes whose factors do not line up plan in flat
 * order (ixj__plan_unchain_flat): the operands take the view's shape, or a
 * common refinement of both, and the chain goes. A transposed slice
 * reshaped (a transpose into rows of 63), backward runs, a step of two, a
 * rotated tail dim kept whole, a chain on both sides, a fill of a transposed
 * reshape, a cat input; and chains that keep their tail: a head that slices
 * the tail's flat space, a rotation the common shape would split, and
 * forward contiguous runs (chain_runs). Each every way. */
static void flat_chains(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src, *strategy;
    int tail; /* the source keeps its tail */
  } copies[] = {
      {"iota 63 64", "iota 64 64 | permute 1 0 | slice : 1: | reshape 63 64", "tiled", 0},
      {"iota 64 64 | slice : 1: | reshape 63 64", "iota 64 64 | permute 1 0 | slice : 1: | reshape 63 64", "tiled", 0},
      {"iota 63 64", "iota 64 64 | slice : ::-1 | slice : 1: | reshape 63 64", "general", 0},
      {"iota 63 64", "iota 64 126 | slice : 1::2 | reshape 63 64", "general", 0},
      {"iota 6 20", "iota 10 12 | rotate 0 5 | permute 1 0 | reshape 6 20", "cat_parts", 0}, /* split_boxes */
      {"iota 60 51 | slice : 1: | reshape 50 60", "iota 50 61 | slice : 1: | permute 1 0 | reshape 50 60", "tiled", 0},
      {"iota 20 30", "iota 40 40 | permute 1 0 | slice :30 : | reshape 40 30 | slice :20 :", "general", 1},
      {"iota 6 20 | rotate 0 3", "iota 10 12 | permute 1 0 | reshape 6 20", "general", 1},
      {"iota 63 64", "iota 64 64 | slice : 1: | reshape 63 64", "general", 1},
  };
  static const struct {
    const char *dst, *strategy;
  } fills[] = {
      {"iota 64 64 | permute 1 0 | slice : 1: | reshape 63 64", "inner_contiguous"},
      {"iota 64 64 | permute 1 0 | slice : 1: | reshape 63 64 | permute 1 0", "inner_contiguous"},
      {"iota 60 70 | slice ::2 ::-1 | reshape 35 60", "inner_contiguous"},
  };
  for (size_t c = 0; c < sizeof copies / sizeof *copies; c++)
    for (int vb = 32; vb <= 64; vb += 32) {
      ixj_plan *p = copy_plan(copies[c].dst, copies[c].src, 4, vb, 0, 0, NULL);
      if (strcmp(ixj__plan_strategy_name(p->strategy), copies[c].strategy) || (p->operand[1].num_tail != 0) != copies[c].tail)
        fail_msg("%s <- %s: %s, %d tails", copies[c].dst, copies[c].src, ixj__plan_strategy_name(p->strategy), p->operand[1].num_tail);
      free(p);
    }
  const char *cat[] = {"iota 20 31 | permute 1 0 | slice 1: : | reshape 20 30", "iota 20 7"};
  for (int vb = 32; vb <= 64; vb += 32)
    for (size_t e = 1; e <= 16; e *= 2)
      for (int stream = 0; stream < 2; stream++)
        for (int m = 0; m < (e > 1 ? 3 : 2); m++) {
          size_t mis = m == 0 ? 0 : m == 1 ? 1 : e;
          for (size_t c = 0; c < sizeof copies / sizeof *copies; c++)
            check(IXJ_OP_COPY, e, 0, copies[c].dst, 1, &copies[c].src, vb, stream, mis, copies[c].strategy);
          for (size_t f = 0; f < sizeof fills / sizeof *fills; f++)
            check(IXJ_OP_FILL, e, 0, fills[f].dst, 0, NULL, vb, stream, mis, fills[f].strategy);
          check(IXJ_OP_CAT, e, 1, "iota 20 37", 2, cat, vb, stream, mis, "cat_parts");
        }
}

static void row_vectors(void **state) {
  (void)state;
  static const char *cases[][2] = {
      {"iota 37 300", "iota 37 300 | slice ::-1 ::-1"},      {"iota 37 300", "iota 37 300 | rotate 5 0 | slice : ::-1"},
      {"iota 20 150", "iota 40 300 | slice ::2 ::2"},        {"iota 20 301", "iota 20 903 | slice ::-1 ::3"},
      {"iota 9 277", "iota 9 1108 | slice : 3::4"},          {"iota 30 200", "iota 30 7 | slice : 3:4 | expand 30 200"},
      {"iota 6 5 140", "iota 5 6 280 | permute 1 0 2 | slice : : 1::2"},
      {"iota 37 300", "iota 37 300 | rotate 5 -37"},         {"iota 37 300", "iota 37 300 | slice : ::-1 | rotate 0 290"},
      {"iota 20 301", "iota 20 602 | slice : ::2 | rotate 3 150"}, {"iota 9 500", "iota 9 2000 | slice : 1::4 | rotate 0 1"}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (size_t e = 1; e <= 16; e *= 2) {
      const char *srcs[1] = {cases[c][1]};
      copy_all_ways(e, cases[c][0], cases[c][1], "general");
      if (e > 1) check(IXJ_OP_COPY, e, 0, cases[c][0], 1, srcs, 64, 1, 1, "general"); /* elements off their size */
    }
  /* the vector loop is the one taken where it can be */
  ixj_ixfun *d = parse_ok(cases[0][0]), *s = parse_ok(cases[0][1]);
  const ixj_ixfun *srcs[1] = {s};
  plan_request req = {.op = IXJ_OP_COPY, .elem_size = 4, .dst = d, .num_srcs = 1, .srcs = srcs, .cpu_vector_bytes = 64};
  ixj_plan *p = malloc(sizeof *p);
  assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
  assert_int_equal(p->row_lanes, 16);
  free(p);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
}

/* Streamed vector loops of rows read one element a step, forward or back
 * (rows on their vectors and off them, rotated, reversed; packed rows; a
 * chain's runs), prefetch their source 2 KiB along the row into L2 on Intel
 * AVX-512 hosts (plan.source_prefetch, intel_row_prefetch in gen/plan.c);
 * rows read with a step, AVX2, Zen's rules, copies in cache and a cat's
 * part as rebuilt for emission: as planned. Each kernel is run against the
 * reference. */
static void row_source_prefetch(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int vb, zen, stream, want; /* want: source_prefetch, signed as emitted */
  } cases[] = {
      {"iota 64 255", "iota 64 256 | slice : 1:", 64, 0, 1, 2048},       /* a[:, 1:] */
      {"iota 64 256", "iota 64 256 | slice : ::-1", 64, 0, 1, -2048},    /* reversed rows */
      {"iota 64 256", "iota 64 256 | rotate 0 5", 64, 0, 1, 2048},       /* rotated rows: two pieces */
      {"iota 64 256", "iota 64 512 | slice : ::2", 64, 0, 1, 0},         /* every other element */
      {"iota 64 255", "iota 64 256 | slice : 1:", 32, 0, 1, 0},          /* AVX2 */
      {"iota 64 255", "iota 64 256 | slice : 1:", 64, 1, 1, 0},          /* Zen's rules */
      {"iota 64 255", "iota 64 256 | slice : 1:", 64, 0, 0, 0},          /* in cache */
      {"iota 63 64", "iota 64 64 | slice : 1: | reshape 63 64", 64, 0, 1, 2048},       /* a chain's runs */
      {"iota 64 64 | slice : 1: | reshape 63 64", "iota 63 64", 64, 0, 1, 2048},       /* into a chain */
      {"iota 63 64", "iota 64 64 | slice : 1: | reshape 63 64", 64, 1, 1, 0},          /* Zen's rules */
      {"iota 64 256", "iota 64 320 | slice : 32:288", 64, 0, 1, 2048},                 /* rows on their vectors */
      {"iota 8 16 256", "iota 16 8 256 | permute 1 0 2", 64, 0, 1, 2048},              /* (1, 0, 2) */
      {"iota 64 256", "iota 64 320 | slice : 32:288", 32, 0, 1, 0},                    /* AVX2 */
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    ixj_ixfun *d = parse_ok(cases[c].dst), *s = parse_ok(cases[c].src);
    const ixj_ixfun *srcs[1] = {s};
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = 4, .dst = d, .num_srcs = 1, .srcs = srcs,
                        .last_level_cache = (size_t)cases[c].stream, .cpu_vector_bytes = cases[c].vb,
                        .cpu_asm_regs = asm_regs(cases[c].vb, (size_t)cases[c].stream), .cpu_zen = cases[c].zen};
    ixj_plan *p = malloc(sizeof *p);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_true(p->row_lanes > 0 || p->chain_runs > 0 || p->vector_elems > 1);
    int want = cases[c].want < 0 ? -cases[c].want : cases[c].want;
    if (p->source_prefetch != want) fail_msg("%s <- %s: source_prefetch %d, want %d", cases[c].dst, cases[c].src, p->source_prefetch, want);
    char *ir = NULL, expect[64];
    assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
    snprintf(expect, sizeof expect, ".s, i64 %d\n  call void @llvm.prefetch.p0(", cases[c].want);
    assert_true(cases[c].want ? strstr(ir, expect) != NULL : strstr(ir, "@llvm.prefetch.p0(") == NULL);
    free(ir);
    free(p);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
    zen_rules = cases[c].zen;
    const char *src[1] = {cases[c].src};
    for (size_t e = 1; e <= 8; e *= 2) check(IXJ_OP_COPY, e, 0, cases[c].dst, 1, src, cases[c].vb, (size_t)cases[c].stream, 0, NULL);
    zen_rules = 0;
  }
  /* packed rows (bytes back to back in the destination) prefetch from each step's first load */
  {
    ixj_ixfun *d = parse_ok("iota 64 255"), *s = parse_ok("iota 64 256 | slice : 1:");
    const ixj_ixfun *srcs[1] = {s};
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = 1, .dst = d, .num_srcs = 1, .srcs = srcs, .last_level_cache = 1,
                        .cpu_vector_bytes = 64, .cpu_asm_regs = 32};
    ixj_plan *p = malloc(sizeof *p);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_int_equal(p->packed_rows, 1);
    assert_int_equal(p->source_prefetch, 2048);
    char *ir = NULL;
    assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
    assert_non_null(strstr(ir, "%s1.pf = getelementptr i8, ptr %s1, i64 2048"));
    assert_non_null(strstr(ir, "declare void @llvm.prefetch.p0("));
    free(ir);
    free(p);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
  /* a cat's part rebuilt for emission prefetches as the copy it is */
  const char *cat[] = {"iota 64 100 | slice : 1:", "iota 64 128 | slice : ::-1"};
  ixj_plan *part[2];
  cat2_parts("iota 64 227", cat, 4, 1, 32, part);
  for (int k = 0; k < 2; k++) {
    assert_int_equal(part[k]->source_prefetch, 2048);
    free(part[k]);
  }
  for (size_t e = 1; e <= 8; e *= 2) check(IXJ_OP_CAT, e, 1, "iota 64 227", 2, cat, 64, 1, 0, "cat_parts");
}

/* Inner-contiguous copies and fills whose rows are not all on vectors
 * (plan.row_lanes with an INNER_CONTIGUOUS plan; plan.masked_ends): sources
 * sliced off their lines (a[:, 1:]), destinations whose pitch is no whole
 * number of vectors, rows shorter than a vector, than two, and long ones,
 * batches; every element size the vector rows take, both vector widths,
 * streamed and not, the destination off by one element and (64-byte vectors)
 * by one byte. The sources end at an unmapped page, so a masked load that
 * reached past a row's end would fault there only if its lanes were on; the
 * guard bytes catch a masked store's. check() cuts the rows into chunks that
 * start mid-row. Cats of parts of odd widths take the same kernels. */
static void unaligned_rows(void **state) {
  (void)state;
  static const char *copies[][2] = {{"iota 37 100", "iota 37 164 | slice : 1:101"},
                                    {"iota 50 7", "iota 50 9 | slice : 1:8"},
                                    {"iota 21 30", "iota 21 40 | slice : 3:33"},
                                    {"iota 9 1003", "iota 9 1100 | slice : 37:1040"},
                                    {"iota 3 5 70", "iota 3 5 80 | slice : : 3:73"},
                                    {"iota 30 200 | slice : 3:190", "iota 30 187"},
                                    {"iota 12 130 | slice ::-1 5:", "iota 12 125"},
                                    /* packed rows (rank 2, rows back to back in the destination): 20 and 12
                                       elements (floats, doubles), 700 (bytes, halves) */
                                    {"iota 40 20", "iota 40 27 | slice : 3:23"},
                                    {"iota 40 12", "iota 40 17 | slice : 2:14"},
                                    {"iota 33 700", "iota 33 777 | slice : 7:707"}};
  for (size_t c = 0; c < sizeof copies / sizeof *copies; c++)
    for (size_t e = 1; e <= 8; e *= 2) {
      const char *srcs[1] = {copies[c][1]};
      copy_all_ways(e, copies[c][0], copies[c][1], "inner_contiguous");
      if (e > 1) check(IXJ_OP_COPY, e, 0, copies[c][0], 1, srcs, 64, 0, 1, "inner_contiguous"); /* elements off their size */
    }
  static const char *fills[] = {"iota 37 164 | slice : 1:101", "iota 50 9 | slice : 1:8", "iota 9 1100 | slice : 37:1040",
                                "iota 30 200 | slice : 3:190"};
  for (size_t c = 0; c < sizeof fills / sizeof *fills; c++)
    for (size_t e = 1; e <= 8; e *= 2)
      for (int vb = 32; vb <= 64; vb += 32)
        for (int stream = 0; stream < 2; stream++)
          check(IXJ_OP_FILL, e, 0, fills[c], 0, NULL, vb, (size_t)stream, 0, "inner_contiguous");
  static const char *cat[] = {"iota 30 37", "iota 30 100 | slice : 1:"};
  for (size_t e = 1; e <= 8; e *= 2)
    for (int stream = 0; stream < 2; stream++) check(IXJ_OP_CAT, e, 1, "iota 30 136", 2, cat, 64, (size_t)stream, 0, "cat_parts");

  /* which rows take which ends (streamed: streamed_row_ends in gen/plan.c) and which walk the
   * destination (choose_packed_rows): {copy (20, 21, 22: `more`), elem, vector bytes, streamed,
   * row_lanes, masked_ends, nontemporal, packed_rows} */
  static const struct {
    int copy;
    size_t elem;
    int vb, stream, lanes, masked, nt, packed;
  } cases[] = {{0, 4, 64, 0, 16, 1, 0, 0},  {0, 4, 64, 1, 16, 0, 1, 0},  {0, 4, 32, 0, 8, 0, 0, 0},  {0, 1, 64, 0, 64, 1, 0, 1},
               {0, 1, 64, 1, 64, 1, 1, 1},  {0, 1, 32, 0, 32, 0, 0, 0},  {1, 4, 64, 1, 16, 1, 0, 0},  {1, 4, 32, 0, 0, 0, 0, 0},
               {2, 4, 64, 1, 16, 1, 1, 1},  {2, 4, 64, 0, 16, 1, 0, 1},  {2, 4, 32, 1, 8, 0, 1, 0},  {2, 8, 64, 1, 8, 0, 1, 0},
               {3, 1, 64, 1, 64, 1, 1, 1},  {3, 4, 64, 1, 16, 0, 1, 0},  {3, 8, 64, 0, 8, 1, 0, 0},  {4, 4, 64, 0, 16, 1, 0, 0},
               {7, 4, 64, 1, 16, 1, 1, 1},  {8, 8, 64, 1, 8, 1, 1, 1},   {9, 2, 64, 1, 32, 1, 1, 1},  {9, 4, 64, 1, 16, 0, 1, 0},
               {20, 1, 64, 1, 64, 1, 1, 1}, {20, 2, 64, 1, 32, 1, 1, 1}, {22, 1, 64, 1, 64, 1, 1, 0}, {22, 2, 64, 1, 32, 1, 1, 0}, {21, 1, 64, 1, 64, 1, 0, 0}, {5, 1, 64, 1, 64, 1, 0, 0}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    /* rows of 5000 back to back; 4 x 3 rows of 700, not back to back; rows of 5000, not back to back */
    static const char *more[3][2] = {{"iota 3 5000", "iota 3 5100 | slice : 1:5001"},
                                     {"iota 4 3 700", "iota 4 4 777 | slice : 1: 7:707"},
                                     {"iota 3 5100 | slice : 1:5001", "iota 3 5000"}};
    const char *const *text = cases[c].copy >= 20 ? more[cases[c].copy - 20] : copies[cases[c].copy];
    const char *dst = text[0], *src = text[1];
    ixj_plan *p = copy_plan(dst, src, cases[c].elem, cases[c].vb, 1, cases[c].stream, NULL);
    char *ir = NULL;
    assert_int_equal(p->strategy, PLAN_INNER_CONTIGUOUS);
    if (p->row_lanes != cases[c].lanes || p->masked_ends != cases[c].masked || p->nontemporal != cases[c].nt ||
        p->packed_rows != cases[c].packed)
      fail_msg("case %zu: row_lanes %d, masked_ends %d, nontemporal %d, packed_rows %d; expected %d, %d, %d, %d", c, p->row_lanes,
               p->masked_ends, p->nontemporal, p->packed_rows, cases[c].lanes, cases[c].masked, cases[c].nt, cases[c].packed);
    assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
    assert_int_equal(strstr(ir, "@llvm.masked.load") != NULL, cases[c].masked);
    assert_int_equal(strstr(ir, "(packed rows:") != NULL, cases[c].packed);
    /* a row holds a whole line: the row's vector loop (none where the kernel walks the destination) */
    bool vectors = cases[c].lanes && p->shape[p->rank - 1] >= cases[c].lanes && !cases[c].packed;
    assert_int_equal(strstr(ir, "%vx0.l = load") != NULL, vectors);
    free(ir);
    free(p);
  }
  /* fills of such rows, streamed: 4- and 8-byte rows stream with `movnti` ends, 1- and 2-byte ones
   * (masked ends) store plainly on Zen cores, elsewhere as copies do: streamed from
   * STREAM_ROW_MIN_BYTES of row (rows of 1003 and 5000 elements) */
  static const char *long_fill = "iota 3 5100 | slice : 1:5001";
  for (int zen = 0; zen <= 1; zen++)
    for (int longer = 0; longer <= 1; longer++)
      for (size_t e = 1; e <= 8; e *= 2) {
        ixj_ixfun *d = parse_ok(longer ? long_fill : fills[2]);
        plan_request req = {.op = IXJ_OP_FILL, .elem_size = e, .dst = d, .cpu_vector_bytes = 64, .last_level_cache = 1, .cpu_zen = zen};
        ixj_plan *p = malloc(sizeof *p);
        assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
        assert_int_equal(p->strategy, PLAN_INNER_CONTIGUOUS);
        assert_int_equal(p->row_lanes, 64 / (int)e);
        assert_int_equal(p->nontemporal, e >= 4 || (!zen && longer));
        assert_int_equal(p->masked_ends, e <= 2);
        free(p);
        ixj_ixfun_free(d);
      }
  for (size_t e = 1; e <= 2; e++) /* the streamed ones against the reference */
    for (int vb = 32; vb <= 64; vb += 32) check(IXJ_OP_FILL, e, 0, long_fill, 0, NULL, vb, 1, 0, "inner_contiguous");
}

/* Packed rows whose lines repeat every few lines walk them from a table
 * (plan.packed_period; packed_period in gen/plan.c, emit_packed_period in
 * gen/emit_llvm.c): the period's length for bytes, halves, floats and
 * doubles, none where it is longer than 256 lines, where the copy has no
 * more rows than it, where source rows overlap (pitch below the
 * row) or run backwards; then each against the reference, in chunks that
 * start mid-row, the destination on and off lines, streamed or not (the
 * sources end at an unmapped page, so a whole load past the last row would
 * fault), and a cat whose parts take periods. */
/* The copy of dst_text <- src_text (packed rows with a period) started at
 * every point of its last rows: [b, end) and then [0, b), so that the last
 * period the walk can take starts at every column and row there (the source
 * ends at an unmapped page: a load past its last row faults, and the guard
 * bytes catch a store past the destination's end). */
static void packed_period_every_start(const char *dst_text, const char *src_text, size_t elem, size_t misalign) {
  ixj_ixfun *dst = parse_ok(dst_text), *src = parse_ok(src_text);
  buffer s, d, want;
  make_fenced_buffer(&s, src, elem, 3);
  make_buffer(&d, dst, elem, 1, misalign);
  make_buffer(&want, dst, elem, 1, misalign);
  ixj_error err;
  assert_int_equal(ixj_reference_copy(&want.op, &s.op, elem, &err), IXJ_OK);
  const void *ptrs[2] = {d.op.data, s.op.data};
  const ixj_ixfun *srcs[1] = {src};
  plan_request req = {.op = IXJ_OP_COPY, .elem_size = elem, .dst = dst, .num_srcs = 1, .srcs = srcs, .pointers = ptrs,
                      .last_level_cache = 1, .cpu_vector_bytes = 64, .cpu_asm_regs = 32};
  ixj_plan *p = malloc(sizeof *p);
  assert_int_equal(ixj__plan_build(&req, p, &err), IXJ_OK);
  assert_true(p->packed_period > 0);
  char name[32], *ir = NULL;
  void *obj;
  size_t size;
  ixj_kernel_fn fn;
  snprintf(name, sizeof name, "k%d", kernels++);
  assert_int_equal(ixj__emit_llvm(p, name, "test", &ir, &err), IXJ_OK);
  assert_int_equal(ixj__jit_llvm_object(jit, ir, &obj, &size, &err), IXJ_OK);
  assert_int_equal(ixj__jit_llvm_link(jit, obj, size, name, &fn, &err), IXJ_OK);
  int64_t offs[2] = {p->operand[0].runtime_offset, p->operand[1].runtime_offset}, n = p->shape[1];
  int64_t rows = (int64_t)p->packed_period * p->row_lanes / n, end = (int64_t)p->work_units;
  int64_t from = end - (2 * rows + 2) * n > 0 ? end - (2 * rows + 2) * n : 0; /* two periods or more from b */
  size_t total = GUARD + d.bytes + misalign + GUARD;
  for (int64_t b = from; b < end; b++) {
    memset(d.op.data, 0, d.bytes);
    fn(ptrs, offs, b, end);
    fn(ptrs, offs, 0, b);
    if (memcmp(d.mem, want.mem, total))
      fail_msg("%s <- %s (elem %zu, misaligned by %zu): started at %lld, the destination differs", dst_text, src_text, elem, misalign,
               (long long)b);
  }
  free(obj);
  free(ir);
  free(p);
  free(d.mem);
  free(want.mem);
  free_buffer(&s);
  ixj_ixfun_free(dst);
  ixj_ixfun_free(src);
}

static void packed_period(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    size_t elem;
    int period; /* 64-byte vectors */
  } cases[] = {{"iota 40 100", "iota 40 128 | slice : 1:101", 1, 25},   /* 16 rows of 100 bytes in 25 lines */
               {"iota 17 100", "iota 17 128 | slice : 1:101", 1, 25},   /* the period's rows and one more */
               {"iota 16 100", "iota 16 128 | slice : 1:101", 1, 0},    /* one row fewer */
               {"iota 40 20", "iota 40 27 | slice : 3:23", 4, 5},       /* floats: 4 rows in 5 lines */
               {"iota 40 12", "iota 40 17 | slice : 2:14", 8, 3},       /* doubles: 2 rows in 3 lines */
               {"iota 33 700", "iota 33 777 | slice : 7:707", 1, 175},  /* bytes */
               {"iota 33 700", "iota 33 777 | slice : 7:707", 2, 175},  /* halves: 8 rows in 175 lines */
               {"iota 70 255", "iota 70 300 | slice : 1:256", 1, 255},  /* 64 rows in 255 lines */
               {"iota 70 257", "iota 70 300 | slice : 1:258", 1, 0},    /* 257 lines */
               {"iota 40 100", "strided shape=40,100 strides=50,1", 1, 0}, /* rows overlap */
               {"iota 40 100", "iota 40 128 | slice ::-1 1:101", 1, 0}};  /* rows backwards */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, cases[c].elem, 64, 0, 1, NULL);
    char *ir = NULL;
    assert_int_equal(p->strategy, PLAN_INNER_CONTIGUOUS);
    assert_int_equal(p->packed_rows, 1);
    if (p->packed_period != cases[c].period) fail_msg("case %zu: period %d, expected %d", c, p->packed_period, cases[c].period);
    assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
    assert_int_equal(strstr(ir, "\npline:\n") != NULL, cases[c].period != 0);
    free(ir);
    free(p);
    copy_all_ways(cases[c].elem, cases[c].dst, cases[c].src, "inner_contiguous");
    if (cases[c].period)
      for (size_t mis = 0; mis <= cases[c].elem; mis += cases[c].elem) packed_period_every_start(cases[c].dst, cases[c].src, cases[c].elem, mis);
  }
  /* a cat of two such inputs along axis 0: each part's rows back to back, each with its period */
  static const char *inputs[] = {"iota 30 128 | slice : 1:101", "iota 25 110 | slice : 5:105"};
  ixj_plan *part[2];
  cat2_parts("iota 55 100", inputs, 1, 0, 32, part);
  for (int k = 0; k < 2; k++) {
    assert_int_equal(part[k]->packed_period, 25);
    free(part[k]);
  }
  for (int stream = 0; stream < 2; stream++)
    for (size_t mis = 0; mis <= 1; mis++) check(IXJ_OP_CAT, 1, 0, "iota 55 100", 2, inputs, 64, (size_t)stream, mis, "cat_parts");
}

/* Rotated copies (split_boxes in gen/plan.c): planned as the cat of the
 * unrotated boxes between the places where the rotations wrap, wherever the
 * copy without its rotations leaves the element loop: transposes rotated
 * along b and along a, by one and by n - 1, a reversed dim, a batch, a chain
 * read in flat order, two rotated dims (2 x 2 boxes), a rotated destination,
 * both rotated alike (two pieces) and not (3 x 2 boxes), every piece reading
 * the one source argument, the boxes covering the space once, no part
 * rotated; not rotated rows (the element loop's vector rows), nor three
 * rotated dims. The kernels against the reference every way. */
static void rotated_copies(void **state) {
  (void)state;
  static const char *split[][2] = {{"iota 300 270", "iota 270 300 | rotate 0 7 | permute 1 0"},   /* along b */
                                   {"iota 300 270", "iota 270 300 | rotate 31 0 | permute 1 0"},  /* along a */
                                   {"iota 300 270", "iota 270 300 | rotate 0 1 | permute 1 0"},   /* by one */
                                   {"iota 300 270", "iota 270 300 | rotate 0 299 | permute 1 0"}, /* by n - 1 */
                                   {"iota 200 270", "iota 270 200 | slice ::-1 | rotate 0 5 | permute 1 0"}, /* reversed */
                                   {"iota 3 70 130", "iota 3 130 70 | rotate 0 0 9 | permute 0 2 1"},        /* a batch */
                                   {"iota 150 512", "iota 256 300 | rotate 0 5 | permute 1 0 | reshape 150 512"}, /* a chain */
                                   {"iota 300 270", "iota 270 300 | rotate 3 7 | permute 1 0"},                   /* two dims */
                                   {"iota 270 300 | rotate 0 7", "iota 300 270 | permute 1 0"},      /* the destination */
                                   {"iota 270 300 | rotate 0 7", "iota 300 270 | rotate 7 0 | permute 1 0"}, /* both, alike */
                                   {"iota 270 300 | rotate 5 7", "iota 300 270 | rotate 0 9 | permute 1 0"}, /* 3 x 2 boxes */
                                   {"iota 270 300 | rotate 0 7", "iota 300 270 | rotate 11 1 | permute 1 0"}, /* 3 x 2 */
                                   {"iota 6 70 130 | rotate 5 0 0", "iota 6 130 70 | rotate 0 0 9 | permute 0 2 1"}}; /* a batch */
  for (size_t c = 0; c < sizeof split / sizeof *split; c++)
    for (size_t e = 1; e <= 16; e *= 2) {
      ixj_plan *p = copy_plan(split[c][0], split[c][1], e, 64, 0, 1, NULL), *part = malloc(sizeof *part);
      assert_int_equal(p->strategy, PLAN_CAT_PARTS);
      assert_true(p->num_parts >= 2 && p->num_parts <= 9);
      assert_int_equal(p->num_operands, 1 + p->num_parts);
      /* the boxes cover the space once: their areas (over the cat and cut dims) add up to it */
      int cut = p->operand[1].cut_extent ? p->operand[1].cut_axis : -1;
      int64_t area = 0;
      for (int o = 1; o < p->num_operands; o++) {
        const plan_operand *x = &p->operand[o];
        assert_int_equal(x->arg, 1);
        for (int j = 0; j < p->rank; j++) assert_int_equal(x->rotate[j], 0);
        assert_int_equal(x->cut_extent ? x->cut_axis : -1, cut);
        area += x->cat_extent * (cut >= 0 ? x->cut_extent : 1);
      }
      assert_int_equal(area, p->shape[p->cat_axis] * (cut >= 0 ? p->shape[cut] : 1));
      for (int k = 0; k < p->num_parts; k++) {
        assert_int_equal(ixj__plan_part(p, k, part, NULL), IXJ_OK);
        for (int j = 0; j < part->rank; j++) assert_int_equal(part->operand[0].rotate[j], 0);
        const plan_operand *x = &p->operand[1 + k];
        if (x->cat_extent >= 64 && (cut < 0 || x->cut_extent >= 64))
          assert_int_equal(part->strategy, PLAN_TILED); /* a thin one: its own plan */
      }
      free(part);
      free(p);
      copy_all_ways(e, split[c][0], split[c][1], "cat_parts");
    }
  static const char *kept[][3] = {{"iota 300 270", "iota 300 270 | rotate 0 7", "general"}, /* vector rows in two pieces */
                                  {"iota 6 70 130", "iota 6 130 70 | rotate 2 3 9 | permute 0 2 1", "general"}}; /* 3 dims */
  for (size_t c = 0; c < sizeof kept / sizeof *kept; c++)
    for (size_t e = 1; e <= 16; e *= 2) copy_all_ways(e, kept[c][0], kept[c][1], kept[c][2]);
}

/* Transposes whose rows start off 64-byte lines, every row alike
 * (split_boxes in gen/plan.c): boxes cut where the source's rows (along b)
 * or the destination's (along a) reach their first line, the rest on lines
 * and tiled: source rows off by 5 elements (a cut 64 bytes on), destination
 * rows by 7, both (2 x 2 boxes), a rotated source whose first run is off
 * lines (three pieces), streamed and in cache; the pointers decide, as they
 * do dst_aligned. Not where a pointer is off a whole element, nor where rows
 * are not alike (an odd pitch), nor where too little would be left on lines
 * (LINE_CUT_MIN), nor with whole_lines_off. The kernels against the
 * reference every way. */
static void line_boxes(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int parts, axis, cut_axis; /* b is dim 0 of these, a dim 1 */
  } split[] = {{"iota 315 1024 | slice : :1000", "iota 1000 320 | slice : 5: | permute 1 0", 2, 0, -1},
               {"iota 300 1024 | slice : 7:", "iota 1017 300 | permute 1 0", 2, 1, -1},
               {"iota 315 1024 | slice : 7:", "iota 1017 320 | slice : 5: | permute 1 0", 4, 0, 1},
               {"iota 320 1024 | slice : :1000", "iota 1000 320 | rotate 0 5 | permute 1 0", 3, 0, -1}};
  for (size_t c = 0; c < sizeof split / sizeof *split; c++)
    for (size_t e = 1; e <= 16; e *= 2) {
      ixj_plan *p = copy_plan(split[c].dst, split[c].src, e, 64, 0, (int)(e & 1), NULL), *part = malloc(sizeof *part);
      assert_int_equal(p->strategy, PLAN_CAT_PARTS); /* streamed (1 byte) and in cache (the others) */
      assert_int_equal(p->num_parts, split[c].parts);
      assert_int_equal(p->operand[1].cut_extent ? 2 : 1, split[c].cut_axis >= 0 ? 2 : 1);
      assert_int_equal(p->cat_axis, split[c].axis);
      int64_t most = 0;
      int largest = 0;
      for (int k = 0; k < p->num_parts; k++) {
        const plan_operand *x = &p->operand[1 + k];
        assert_int_equal(x->cut_extent ? x->cut_axis : -1, split[c].cut_axis);
        int64_t count = x->cat_extent * (x->cut_extent ? x->cut_extent : p->shape[1 - split[c].axis]);
        if (count > most) most = count, largest = k;
      }
      /* the largest box: tiled, both operands' rows on lines */
      assert_int_equal(ixj__plan_part(p, largest, part, NULL), IXJ_OK);
      assert_int_equal(part->strategy, PLAN_TILED);
      assert_int_equal(part->dst_aligned, 1);
      assert_int_equal(part->staged, 0);
      if (c != 1) /* the source's rows cut: on lines from the pointer (NULL: aligned) */
        assert_int_equal((part->operand[1].runtime_offset + part->operand[1].head_offset) * (int64_t)e % 64, 0);
      free(part);
      free(p);
    }
  for (size_t c = 0; c < sizeof split / sizeof *split; c++)
    for (size_t e = 1; e <= 16; e *= 2) copy_all_ways(e, split[c].dst, split[c].src, c == 3 ? "cat_parts" : "tiled");
  /* whole: a pointer off a whole element, an odd pitch, too little left on lines, asked to */
  static const char *dst = "iota 315 1024 | slice : :1000", *src = "iota 1000 320 | slice : 5: | permute 1 0";
  const void *odd[2] = {(const void *)1, (const void *)1};
  ixj_plan *p = copy_plan(dst, src, 4, 64, 0, 1, odd);
  assert_int_equal(p->strategy, PLAN_TILED);
  free(p);
  p = copy_plan("iota 315 1000", "iota 1000 325 | slice : 5:320 | permute 1 0", 4, 64, 0, 1, NULL);
  assert_int_equal(p->strategy, PLAN_TILED); /* source pitch 1300 bytes: the rows are off lines by different amounts */
  free(p);
  p = copy_plan("iota 300 256 | slice : 7:", "iota 249 300 | permute 1 0", 4, 64, 0, 1, NULL);
  assert_int_equal(p->strategy, PLAN_TILED); /* a: 249 - 9 < LINE_CUT_MIN */
  free(p);
  ixj_ixfun *d = parse_ok(dst), *s = parse_ok(src);
  const ixj_ixfun *srcs[1] = {s};
  plan_request req = {.op = IXJ_OP_COPY, .elem_size = 4, .dst = d, .num_srcs = 1, .srcs = srcs, .last_level_cache = 1,
                      .cpu_vector_bytes = 64, .whole_lines_off = true};
  p = malloc(sizeof *p);
  assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
  assert_int_equal(p->strategy, PLAN_TILED);
  free(p);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
}

/* Staged tiles (plan.staged): streamed transposes into rows off lines, and
 * in-cache ones of 4- and 8-byte elements (copy_all_ways runs both).
 * Where the destination's rows are back to back and at most 1 KiB, a tile
 * spans them (plan.span: one run of destination); else a tile's last line
 * reaches into the next tile's columns (its halo: rows of 1100 elements,
 * where 1- and 2-byte tiles are four times as wide, padded rows, rows in
 * reverse order); rows whose
 * last tile leaves no room for a halo (104 = 3 tiles of 32 and 8 more: the last
 * tile has no blocks), exactly one block column (112), rows of one tile, rows
 * that meet in the middle of a line (batches back to back), and a fused a;
 * edges a block or more wide (84 x 116, NHWC with 60 channels: 32 + 28) take
 * the last block of each row and column moved back to end at the edge. */
static void staged_tiles(void **state) {
  (void)state;
  static const char *cases[][2] = {{"iota 70 104", "iota 104 70 | permute 1 0"},
                                   {"iota 70 112", "iota 112 70 | permute 1 0"},
                                   {"iota 90 40", "iota 40 90 | permute 1 0"},
                                   {"iota 3 40 100", "iota 3 100 40 | permute 0 2 1"},
                                   {"iota 200 259", "iota 259 200 | permute 1 0"},
                                   {"iota 84 116", "iota 116 84 | permute 1 0"},
                                   {"iota 40 1100", "iota 1100 40 | permute 1 0"},
                                   {"iota 70 104 | slice ::-1", "iota 104 70 | permute 1 0"},
                                   {"iota 70 112 | slice : :104", "iota 104 70 | permute 1 0"},
                                   {"iota 5 20 60", "iota 5 60 20 | permute 0 2 1"},
                                   {"iota 64 270 | slice : :256", "iota 128 128 | permute 1 0 | reshape 64 256"}};
  /* Zen: 4-byte ones 64 rows (ZEN_STAGED_ROWS); the moved blocks read no further than the edge */
  tiled_all_ways(cases, sizeof cases / sizeof *cases, 16);
  /* chosen where rows are off lines and the plan streams (partial lines by
   * byte-masked stores with 64-byte vectors, byte by byte without); in cache
   * for 4- and 8-byte elements with 64-byte vectors, spanning rows of at most
   * 512 bytes there; on Zen cores in cache only spanned */
  static const struct {
    const char *dst, *src;
    size_t elem;
    int vector_bytes, stream, staged, nontemporal, tile_a, zen, span;
  } want[] = {{"iota 300 270", "iota 270 300 | permute 1 0", 4, 64, 1, 1, 1, 32, 0, 0}, /* 1080-byte rows: not spanned,
                                                                                         64 x 32 (INTEL_STAGED_TILES) */
              {"iota 300 250", "iota 250 300 | permute 1 0", 4, 64, 1, 1, 1, 250, 0, 1}, /* 1000: spanned */
              {"iota 256 384", "iota 384 256 | permute 1 0", 4, 64, 1, 0, 1, 16, 0, 0}, /* rows on lines: 16 rows (INTEL_AVX512_RULES) */
              {"iota 300 270", "iota 270 300 | permute 1 0", 4, 64, 0, 1, 0, 0, 0, 0}, /* in cache */
              {"iota 300 250", "iota 250 300 | permute 1 0", 8, 64, 0, 1, 0, 0, 0, 0}, /* in cache, 2000 bytes */
              {"iota 300 250", "iota 250 300 | permute 1 0", 4, 64, 0, 1, 0, 0, 0, 0}, /* in cache, 1000: tiles */
              {"iota 300 100", "iota 100 300 | permute 1 0", 4, 64, 0, 1, 0, 100, 0, 1}, /* in cache, 400: spanned */
              {"iota 300 270", "iota 270 300 | permute 1 0", 2, 64, 0, 0, 0, 0, 0, 0}, /* in cache, 2 bytes */
              {"iota 300 270", "iota 270 300 | permute 1 0", 4, 32, 1, 2, 1, 0, 0, 0}, /* AVX2: partial lines by bytes */
              {"iota 300 250", "iota 250 300 | permute 1 0", 4, 32, 1, 2, 1, 250, 0, 1}, /* AVX2, spanned */
              {"iota 300 270", "iota 270 300 | permute 1 0", 4, 32, 0, 0, 0, 0, 0, 0}, /* AVX2, in cache: not staged */
              {"iota 300 270", "iota 270 300 | permute 1 0", 4, 64, 1, 1, 1, 64, 1, 0},  /* Zen, streamed: staged, 64 rows */
              {"iota 300 270", "iota 270 300 | permute 1 0", 4, 64, 0, 0, 0, 0, 1, 0},   /* Zen, in cache: tiles not */
              {"iota 300 100", "iota 100 300 | permute 1 0", 4, 64, 0, 1, 0, 100, 1, 1}}; /* Zen, in cache, spanned */
  /* on Intel with AVX-512 tiles that prefetch along b walk no blocks of tiles
   * (INTEL_ROWS_OF_TILES), staged (rows off lines) or not; with AVX2 they do, and
   * so do Zen's, gathered bytes and 4 bytes and more from source rows crowding one
   * L1 set (2048 elements apart), which do not prefetch along b. The unstaged ones
   * run against the reference too. */
  static const char *walks[2][2][2] = {{{"iota 1000 1030", "iota 1030 1000 | permute 1 0"},
                                        {"iota 1024 1023", "iota 1023 2048 | slice : :1024 | permute 1 0"}},
                                       {{"iota 200 320", "iota 320 200 | permute 1 0"},
                                        {"iota 200 320", "iota 320 2048 | slice : :200 | permute 1 0"}}};
  for (int lines = 0; lines <= 1; lines++)
    for (int crowded = 0; crowded <= 1; crowded++)
      for (size_t e = crowded && !lines ? 2 : 1; e <= 16; e *= 2) /* crowded staged bytes span (1023 bytes) */
        for (int vb = 32; vb <= 64; vb += 32)
          for (int zen = 0; zen <= lines; zen++) {
            ixj_ixfun *d = parse_ok(walks[lines][crowded][0]), *s = parse_ok(walks[lines][crowded][1]);
            const ixj_ixfun *srcs[1] = {s};
            plan_request req = {.op = IXJ_OP_COPY, .elem_size = e, .dst = d, .num_srcs = 1, .srcs = srcs,
                                .last_level_cache = 1, .cpu_vector_bytes = vb, .cpu_zen = zen};
            ixj_plan *p = malloc(sizeof *p);
            assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
            assert_true(p->strategy == PLAN_TILED && (p->staged != 0) == !lines && p->nontemporal && !p->span);
            bool unblocked = vb == 64 && !zen && !p->gather && (e <= 2 || !crowded);
            assert_int_equal(p->super_a == 0 && p->super_b == 0, unblocked);
            assert_int_equal(unblocked, p->prefetch == PLAN_PREFETCH_FAR || p->prefetch == PLAN_PREFETCH_NEAR ||
                                            p->prefetch == PLAN_PREFETCH_NEAR_L2 ? vb == 64 && !zen : 0);
            free(p);
            ixj_ixfun_free(d);
            ixj_ixfun_free(s);
            if (lines && vb == 64 && !zen) copy_all_ways(e, walks[lines][crowded][0], walks[lines][crowded][1], "tiled");
          }
  /* 1-byte tiles four times as wide where a has room for two */
  {
    ixj_ixfun *d = parse_ok("iota 40 1100"), *s = parse_ok("iota 1100 40 | permute 1 0");
    const ixj_ixfun *srcs[1] = {s};
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = 1, .dst = d, .num_srcs = 1, .srcs = srcs, .last_level_cache = 1,
                        .cpu_vector_bytes = 64};
    ixj_plan *p = malloc(sizeof *p);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_int_equal(p->staged, 1);
    assert_int_equal(p->tile_a, 4 * p->tile);
    assert_int_equal(p->span, 0);
    free(p);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
  for (size_t c = 0; c < sizeof want / sizeof *want; c++) {
    ixj_ixfun *d = parse_ok(want[c].dst), *s = parse_ok(want[c].src);
    const ixj_ixfun *srcs[1] = {s};
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = want[c].elem, .dst = d, .num_srcs = 1, .srcs = srcs,
                        .last_level_cache = (size_t)want[c].stream, .cpu_vector_bytes = want[c].vector_bytes,
                        .cpu_zen = want[c].zen};
    ixj_plan *p = malloc(sizeof *p);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_int_equal(p->staged, want[c].staged);
    assert_int_equal(p->nontemporal, want[c].nontemporal);
    assert_int_equal(p->tile_a, want[c].tile_a);
    assert_int_equal(p->span, want[c].span);
    if (p->staged) { /* the partial lines' stores */
      char *ir = NULL;
      assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
      assert_int_equal(strstr(ir, "@llvm.masked.store.v64i8") != NULL, p->staged == PLAN_STAGED_MASKED);
      assert_int_equal(strstr(ir, p->span ? "store i8 %rf.head.v" : "store i8 %fbh.v") != NULL, p->staged == PLAN_STAGED_BYTES);
      free(ir);
    }
    free(p);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
}

/* Staged tiles that do not span their rows, on Zen cores with AVX-512,
 * streamed (plan.row_flush): a buffer of one row of blocks and its halo,
 * placed from a page's start, sent after each row of blocks
 * (PLAN_FLUSH_ROWS: stacked 1- and 2-byte blocks, halves in 64 x 128 tiles)
 * or, inside a row, line by line as each block completes one
 * (PLAN_FLUSH_BLOCKS: 4- to 16-byte elements); not with AVX2, not on Intel's
 * rules, not spanned. Kernels against the reference: rows of several tiles
 * (inner tiles, a row's first and last), b cut short (the last row of blocks
 * moved back), a last tile without a halo, batches, rows off by one element. */
static void staged_row_flush(void **state) {
  (void)state;
  static const struct {
    size_t elem;
    int vector_bytes, zen, flush, tile, tile_a;
  } want[] = {{4, 64, 1, PLAN_FLUSH_BLOCKS, 64, 64}, {8, 64, 1, PLAN_FLUSH_BLOCKS, 32, 16},
              {16, 64, 1, PLAN_FLUSH_BLOCKS, 32, 8}, {2, 64, 1, PLAN_FLUSH_ROWS, 64, 128},
              {1, 64, 1, PLAN_FLUSH_ROWS, 64, 256},  {4, 32, 1, 0, 32, 0},
              {4, 64, 0, 0, 64, 32}, {8, 64, 0, 0, 32, 16}}; /* Intel: the whole tile (INTEL_STAGED_TILES) */
  ixj_ixfun *d = parse_ok("iota 300 1101"), *s = parse_ok("iota 1101 300 | permute 1 0"); /* rows off lines */
  const ixj_ixfun *srcs[1] = {s};
  for (size_t c = 0; c < sizeof want / sizeof *want; c++) {
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = want[c].elem, .dst = d, .num_srcs = 1, .srcs = srcs,
                        .last_level_cache = 1, .cpu_vector_bytes = want[c].vector_bytes, .cpu_zen = want[c].zen};
    ixj_plan *p = malloc(sizeof *p);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_true(p->staged && !p->span && p->nontemporal);
    assert_int_equal(p->row_flush, want[c].flush);
    assert_int_equal(p->tile, want[c].tile);
    assert_int_equal(p->tile_a, want[c].tile_a);
    char *ir = NULL, alloca_want[96];
    assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
    int row = ixj__plan_tile_edge_a(p) * (int)want[c].elem + 64, rows = want[c].flush ? p->micro : p->tile;
    snprintf(alloca_want, sizeof alloca_want, "%%stage.a = alloca [%d x i8]", 64 + rows * row + 64 + (want[c].flush ? 4096 : 0));
    assert_non_null(strstr(ir, alloca_want));
    assert_int_equal(strstr(ir, "f.done:") != NULL, want[c].flush != 0);
    assert_int_equal(strstr(ir, "bl.send:") != NULL, want[c].flush == PLAN_FLUSH_BLOCKS);
    assert_int_equal(strstr(ir, "fin:") != NULL, want[c].flush != PLAN_FLUSH_BLOCKS); /* the whole-line rows inside a row */
    free(ir);
    free(p);
  }
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
  static const char *cases[][2] = {{"iota 40 1100", "iota 1100 40 | permute 1 0"},
                                   {"iota 100 1030", "iota 1030 100 | permute 1 0"},
                                   {"iota 2 37 700", "iota 2 700 37 | permute 0 2 1"},
                                   {"iota 70 1100 | slice : 3:1093", "iota 1090 70 | permute 1 0"}};
  zen_rules = 1;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (size_t e = 1; e <= 16; e *= 2) copy_all_ways(e, cases[c][0], cases[c][1], "tiled");
  zen_rules = 0;
}

/* A spanning tile (plan.span) stages one row of blocks at a time and sends
 * the lines it completed out after each (emit_span_flush): a buffer of one
 * row of blocks (micro rows of a's bytes, 64 before and after), placed from a
 * page's start, no whole-tile flush; the head at the first row of blocks,
 * the tail at the last. Kernels against the reference: rows of 17 to 70
 * elements (row-of-blocks runs that end off a line, whose partial line the
 * next row of blocks finishes from the buffer's front), rows off by one
 * element (a head and a tail at every tile), b cut short (the last row of
 * blocks moved back over the one before), batches, every element size,
 * streamed and not, 64- and 32-byte vectors (partial lines byte by byte),
 * Zen's tile shapes (128 along b) and not. */
static void span_row_flush(void **state) {
  (void)state;
  for (int vb = 32; vb <= 64; vb += 32) {
    ixj_ixfun *d = parse_ok("iota 2 300 60"), *s = parse_ok("iota 2 60 300 | permute 0 2 1");
    const ixj_ixfun *srcs[1] = {s};
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = 4, .dst = d, .num_srcs = 1, .srcs = srcs, .last_level_cache = 1,
                        .cpu_vector_bytes = vb};
    ixj_plan *p = malloc(sizeof *p);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_true(p->staged && p->span && p->nontemporal && p->tile_a == 60);
    char *ir = NULL, want[96];
    assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
    snprintf(want, sizeof want, "%%stage.a = alloca [%d x i8]", 64 + p->micro * 240 + 64 + 4096);
    assert_non_null(strstr(ir, want));
    assert_non_null(strstr(ir, "%stage.k = and i64 %stage.t, 4095"));
    assert_non_null(strstr(ir, "rf.carry:"));
    assert_null(strstr(ir, "frow:"));
    assert_null(strstr(ir, "%stg.r = mul nuw nsw i64 %bi.o, 240")); /* the rows of blocks all at the buffer's start */
    assert_int_equal(strstr(ir, "@llvm.masked.store.v64i8") != NULL, vb == 64);
    assert_int_equal(strstr(ir, "store i8 %rf.tail.v") != NULL, vb == 32);
    free(ir);
    free(p);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
  static const char *cases[][2] = {{"iota 2 300 17", "iota 2 17 300 | permute 0 2 1"},
                                   {"iota 2 300 37", "iota 2 37 300 | permute 0 2 1"},
                                   {"iota 2 300 60", "iota 2 60 300 | permute 0 2 1"},
                                   {"iota 300 70", "iota 70 300 | permute 1 0"},
                                   {"iota 3 150 60", "iota 3 60 150 | permute 0 2 1"}};
  tiled_all_ways(cases, sizeof cases / sizeof *cases, 16);
}

/* Rows shorter than a line, back to back (NHWC with a few dozen byte or
 * half channels, 8 to 15 float ones), streamed: where the unstaged blocks do
 * not cover a and the rows have 24 bytes or more, a staged span with one
 * block along a a line wide (short_span in gen/plan.c), whose columns past a
 * read a's last row again and whose rows' stores run into the next row's;
 * rows the blocks cover, rows under 24 bytes and in-cache copies keep their
 * plans; crowded bytes (4 KiB apart) on Zen do not gather. Kernels against
 * the reference: every element size, b cut short (fewer rows than a block:
 * the element loops, over a only), batches, crowded rows, streamed and not,
 * rows off by one element, 64- and 32-byte vectors, Zen's rules and not. */
static void short_span_rows(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    size_t elem;
    int zen, stream, staged;
  } want[] = {{"iota 4 40 40 60", "iota 4 60 40 40 | permute 0 2 3 1", 1, 0, 1, 1},
              {"iota 4 40 40 24", "iota 4 24 40 40 | permute 0 2 3 1", 1, 0, 1, 1},
              {"iota 4 40 40 12", "iota 4 12 40 40 | permute 0 2 3 1", 1, 0, 1, 0}, /* 12 bytes */
              {"iota 4 40 40 16", "iota 4 16 40 40 | permute 0 2 3 1", 1, 0, 1, 0}, /* covered */
              {"iota 4 40 40 24", "iota 4 24 40 40 | permute 0 2 3 1", 2, 0, 1, 1},
              {"iota 4 40 40 16", "iota 4 16 40 40 | permute 0 2 3 1", 2, 0, 1, 0},
              {"iota 4 40 40 12", "iota 4 12 40 40 | permute 0 2 3 1", 4, 0, 1, 1},
              {"iota 4 40 40 60", "iota 4 60 40 40 | permute 0 2 3 1", 1, 0, 0, 0}, /* in cache */
              {"iota 2 64 64 60", "iota 2 60 64 64 | permute 0 2 3 1", 1, 1, 1, 1}}; /* crowded, Zen */
  for (size_t c = 0; c < sizeof want / sizeof *want; c++) {
    ixj_ixfun *d = parse_ok(want[c].dst), *s = parse_ok(want[c].src);
    const ixj_ixfun *srcs[1] = {s};
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = want[c].elem, .dst = d, .num_srcs = 1, .srcs = srcs,
                        .last_level_cache = want[c].stream ? 1 : (size_t)1 << 40, .cpu_vector_bytes = 64,
                        .cpu_zen = want[c].zen};
    ixj_plan *p = malloc(sizeof *p);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_int_equal(p->strategy, PLAN_TILED);
    assert_int_equal(p->staged != 0, want[c].staged);
    assert_int_equal(ixj__plan_short_span(p), want[c].staged);
    assert_int_equal(p->gather, 0);
    if (want[c].staged) { /* one block a line wide, where b has one */
      int step = p->micro * ixj__plan_block_group(p);
      char *ir = NULL, line[96];
      assert_int_equal(step * (int)want[c].elem, 64);
      assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
      snprintf(line, sizeof line, "%%va.all = select i1 %%vb.ok, i64 %d, i64 %%na", step);
      assert_non_null(strstr(ir, line));
      free(ir);
    }
    free(p);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
  static const char *cases[][2] = {{"iota 3 150 60", "iota 3 60 150 | permute 0 2 1"},
                                   {"iota 3 150 24", "iota 3 24 150 | permute 0 2 1"},
                                   {"iota 3 150 12", "iota 3 12 150 | permute 0 2 1"},
                                   {"iota 3 13 60", "iota 3 60 13 | permute 0 2 1"},
                                   {"iota 2 64 64 60", "iota 2 60 64 64 | permute 0 2 3 1"}};
  tiled_all_ways(cases, sizeof cases / sizeof *cases, 4);
}

/* Element loops stream only into rows of adjacent elements: a copy into
 * every other (or every third) column, or into reversed rows of every other
 * element, stores plainly even out of cache (a streaming store per element
 * left every line partial), each store prefetching its line ahead for
 * writing; reversed contiguous rows still stream. Each is run against the
 * reference, out of cache and not. */
static void strided_destination_streams(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int nontemporal, prefetch; /* plain stores ask for their lines ahead, for writing */
  } want[] = {{"iota 64 256 | slice : ::2", "iota 64 128", 0, 1},
              {"iota 64 384 | slice : ::3", "iota 64 128", 0, 1},
              {"iota 64 256 | slice : ::-2", "iota 64 128", 0, 1},
              {"iota 64 128 | slice : ::-1", "iota 64 129 | slice : 1::", 1, 0}};
  for (size_t c = 0; c < sizeof want / sizeof *want; c++) {
    ixj_ixfun *d = parse_ok(want[c].dst), *s = parse_ok(want[c].src);
    const ixj_ixfun *srcs[1] = {s};
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = 4, .dst = d, .num_srcs = 1, .srcs = srcs, .last_level_cache = 1,
                        .cpu_vector_bytes = 64};
    ixj_plan *p = malloc(sizeof *p);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_int_equal(p->strategy, PLAN_GENERAL);
    assert_int_equal(p->nontemporal, want[c].nontemporal);
    assert_int_equal(p->prefetch, want[c].prefetch);
    char *ir = NULL;
    assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
    assert_int_equal(strstr(ir, "i32 1, i32 3, i32 1)") != NULL, want[c].prefetch); /* rw = 1 */
    /* ahead in the stores' order: down the reversed strided destination */
    assert_int_equal(strstr(ir, "i64 -4096\n  call void @llvm.prefetch") != NULL, want[c].prefetch && strstr(want[c].dst, "::-"));
    free(ir);
    free(p);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
    for (size_t e = 1; e <= 16; e *= 2) copy_all_ways(e, want[c].dst, want[c].src, "general");
  }
}

/* Software prefetch of the source (plan.prefetch): streamed whole-register
 * transposes prefetch unless more than 8 of a tile's source rows fall on one
 * 4 KiB-period L1 set (a row pitch that is a multiple of 4 KiB, or of 2 KiB
 * with 32 rows; a zip counts its k rows); `transposes` runs kernels of both
 * kinds (256-element rows of 4 bytes prefetch, of 8 and 16 do not). */
static void source_prefetch(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    size_t elem;
    int stream, prefetch, sequential; /* sequential: on Zen cores, short rows back to back */
    int rows32; /* with AVX-512, streamed: 4 bytes whose source or destination rows crowd read 32 rows (Zen: 64) */
    int spread32; /* on Intel with AVX-512 also spread ones, not back to back (INTEL_SPREAD_ROWS) */
    int zen_mid; /* on Zen's, rows of 256 bytes back to back into crowded rows read 32 (ZEN_SEQUENTIAL_MID_ROWS) */
  } want[] = {{"iota 2048 1024", "iota 1024 2048 | permute 1 0", 4, 1, 0, 0, 1, 0, 0},       /* 4 and 8 KiB pitches: one set */
              {"iota 1040 1040", "iota 1040 1040 | permute 1 0", 4, 1, 1, 0, 0, 1, 0},       /* spread over the sets */
              {"iota 1024 1024", "iota 1024 1024 | permute 1 0", 4, 0, 0, 0, 0, 0, 0},       /* in cache: Zen only, into L2 */
              {"iota 256 384", "iota 384 256 | permute 1 0", 4, 1, 1, 1, 0, 0, 0},           /* 1 KiB: 8 rows a set */
              {"iota 256 384", "iota 384 256 | permute 1 0", 8, 1, 1, 0, 0, 0, 0},           /* 2 KiB: 16 rows a tile, 32 KiB runs */
              {"iota 2 64 16 16", "iota 2 16 16 64 | permute 0 3 1 2", 4, 1, 1, 1, 0, 0, 1}, /* NHWC -> NCHW: 256-byte rows */
              {"iota 2 16 16 64", "iota 2 64 16 16 | permute 0 2 3 1", 4, 1, 1, 1, 0, 0, 0}, /* NCHW -> NHWC, 1 KiB planes */
              {"iota 2 32 32 64", "iota 2 64 32 32 | permute 0 2 3 1", 4, 1, 0, 0, 1, 0, 0}, /* 4 KiB planes */
              {"iota 1024 1040", "iota 1040 1024 | permute 1 0", 4, 1, 0, 0, 1, 0, 0},       /* the source's rows crowd */
              {"iota 1056 1024", "iota 1024 1056 | permute 1 0", 4, 1, 1, 0, 1, 0, 0},       /* the destination's crowd */
              {"iota 1040 1040", "iota 1040 1040 | permute 1 0", 8, 1, 1, 0, 0, 0, 0},       /* 8 bytes: 16 rows */
              {"iota 1024 1024", "iota 1024 1024 | permute 1 0", 8, 1, 0, 0, 0, 0, 0},
              {"iota 2 32 32 3", "iota 2 3 32 32 | permute 0 2 3 1", 4, 1, 1, 0, 0, 0, 0}};  /* a zip: 3 rows, all of a */
  /* Zen cores (cpu_zen) with AVX-512: every streamed one, one tile ahead
   * into L2, or the next rows of tiles in memory order where the rows are
   * short and back to back; 4-byte tiles whose source or destination rows
   * crowd read 32 rows (64 of 32 elements on Zen) */
  for (int near = 0; near <= 1; near++)
    for (size_t c = 0; c < sizeof want / sizeof *want; c++) {
      ixj_ixfun *d = parse_ok(want[c].dst), *s = parse_ok(want[c].src);
      const ixj_ixfun *srcs[1] = {s};
      plan_request req = {.op = IXJ_OP_COPY, .elem_size = want[c].elem, .dst = d, .num_srcs = 1, .srcs = srcs,
                          .last_level_cache = (size_t)want[c].stream, .cpu_vector_bytes = 64, .cpu_zen = near};
      ixj_plan *p = malloc(sizeof *p);
      char *ir = NULL, ahead[64], along[64];
      assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
      assert_int_equal(p->strategy, PLAN_TILED);
      assert_int_equal(p->nontemporal, want[c].stream);
      int expect = !want[c].stream                   ? (near ? PLAN_PREFETCH_NEAR_L2 : 0) /* 4 MiB: zen_in_cache_prefetch */
                   : near && want[c].sequential      ? PLAN_PREFETCH_SEQUENTIAL
                   : near                            ? PLAN_PREFETCH_NEAR_L2
                   : want[c].prefetch                ? PLAN_PREFETCH_FAR
                                                     : 0;
      assert_int_equal(p->prefetch, expect);
      assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
      assert_int_equal(strstr(ir, "@llvm.prefetch.p0(ptr") != NULL, p->prefetch != 0);
      snprintf(ahead, sizeof ahead, ", i64 %d\n  call void @llvm.prefetch.p0", p->tile * (near ? 1 : 2)); /* elements along b */
      assert_int_equal(strstr(ir, ahead) != NULL, p->prefetch != 0 && expect != PLAN_PREFETCH_SEQUENTIAL);
      /* locality 2 (prefetcht1, into L2) for the crowded ones, else 3 (into L1) */
      assert_int_equal(strstr(ir, "i32 0, i32 2, i32 1)") != NULL, expect == PLAN_PREFETCH_NEAR_L2);
      assert_int_equal(strstr(ir, "i32 0, i32 3, i32 1)") != NULL, p->prefetch != 0 && expect != PLAN_PREFETCH_NEAR_L2);
      bool rows32 = want[c].stream && (want[c].rows32 || (want[c].spread32 && !near)) && want[c].elem == 4; /* Intel too */
      if (rows32 && near && want[c].rows32) /* Zen: 64 rows of 32 (ZEN_TALL_CROWDED_TILES; a spans 64 in each case) */
        assert_true(p->tile_a == 64 && p->tile == 32);
      else
        assert_int_equal(p->tile_a == 32, rows32 || (near && want[c].zen_mid)); /* INTEL_AVX512_RULES */
      /* the sequential prefetch's address is computed from the block's place, not a step from its load */
      snprintf(along, sizeof along, ".f0 = getelementptr i%d, ptr %%bp.1, i64 %%v", (int)want[c].elem * 8);
      assert_int_equal(strstr(ir, along) != NULL, expect == PLAN_PREFETCH_SEQUENTIAL);
      free(ir);
      free(p);
      ixj_ixfun_free(d);
      ixj_ixfun_free(s);
    }
  /* stacked 1- and 2-byte blocks prefetch one tile ahead only (Zen), never two */
  for (size_t e = 1; e <= 2; e++)
    for (int near = 0; near <= 1; near++) {
      ixj_ixfun *d = parse_ok("iota 1040 1040"), *s = parse_ok("iota 1040 1040 | permute 1 0");
      const ixj_ixfun *srcs[1] = {s};
      plan_request req = {.op = IXJ_OP_COPY, .elem_size = e, .dst = d, .num_srcs = 1, .srcs = srcs, .last_level_cache = 1,
                          .cpu_vector_bytes = 32, .cpu_zen = near};
      ixj_plan *p = malloc(sizeof *p);
      char *ir = NULL;
      assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
      assert_int_equal(p->stack, 2);
      assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
      assert_int_equal(strstr(ir, "call void @llvm.prefetch.p0(ptr") != NULL, near);
      free(ir);
      free(p);
      ixj_ixfun_free(d);
      ixj_ixfun_free(s);
    }
  /* a cat's transposed part as planned: rebuilt by ixj__plan_part with its prefetch */
  ixj_ixfun *d = parse_ok("iota 1024 2048"), *s0 = parse_ok("iota 1024 1024"), *s1 = parse_ok("iota 1024 1024 | permute 1 0");
  const ixj_ixfun *srcs[2] = {s0, s1};
  plan_request req = {.op = IXJ_OP_CAT, .elem_size = 4, .dst = d, .num_srcs = 2, .srcs = srcs, .cat_axis = 1,
                      .last_level_cache = 1, .cpu_vector_bytes = 32, .cpu_zen = 1};
  ixj_plan *cat = malloc(sizeof *cat), *part = malloc(sizeof *part);
  assert_int_equal(ixj__plan_build(&req, cat, NULL), IXJ_OK);
  assert_int_equal(cat->strategy, PLAN_CAT_PARTS);
  assert_int_equal(cat->part[1].prefetch, PLAN_PREFETCH_NEAR);
  assert_int_equal(ixj__plan_part(cat, 1, part, NULL), IXJ_OK);
  assert_int_equal(part->prefetch, PLAN_PREFETCH_NEAR);
  free(cat);
  free(part);
  ixj_ixfun_free(d);
  ixj_ixfun_free(s0);
  ixj_ixfun_free(s1);
  for (zen_rules = 0; zen_rules <= 1; zen_rules++) {
    copy_all_ways(4, "iota 1024 64", "iota 64 1024 | permute 1 0", "tiled"); /* 4 KiB pitch, streamed: none, or near */
    copy_all_ways(1, "iota 300 270", "iota 270 300 | permute 1 0", "tiled"); /* stacked, with edges */
  }
  zen_rules = 0;
}

/* Zen cores, streamed, AVX-512: tiles of 4-, 8- and 16-byte elements read
 * 16, 16 and 8 source rows (plan.tile_a), 4-byte ones 64 elements along b,
 * and 32 rows where the source's or the destination's rows crowd one
 * L1 set (4 KiB pitches), on Zen 64 rows of 32 elements where a spans 64
 * (ZEN_TALL_CROWDED_TILES), or, on Intel, where b is fused; whole tiles, edges on both sides, staged rows (a
 * pitch off lines), batches, a chain's fused b, and 32-byte vectors
 * (unchanged). */
static void zen_tile_shapes(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int span4;    /* staged at 4 bytes, spanning a (which keeps its tiles) */
    int crowded4; /* 4 bytes: source or destination rows on one L1 set: 32 rows */
    int tall4;    /* crowded, a spanning 64: Zen's 64 rows of 32 elements */
  } cases[] = {{"iota 256 384", "iota 384 256 | permute 1 0", 0, 0, 0},     /* whole tiles, rows on lines */
               {"iota 300 270", "iota 270 300 | permute 1 0", 0, 0, 0},     /* edges; staged */
               {"iota 200 1032", "iota 1032 200 | permute 1 0", 0, 0, 0},   /* edges, rows on lines */
               {"iota 3 70 160", "iota 3 160 70 | permute 0 2 1", 0, 0, 0}, /* batched */
               {"iota 64 272 | slice : :256", "iota 128 128 | permute 1 0 | reshape 64 256", 0, 0, 0}, /* b fused */
               {"iota 64 270 | slice : :256", "iota 128 128 | permute 1 0 | reshape 64 256", 0, 0, 0}, /* b fused, staged */
               {"iota 3 70 130", "iota 3 130 70 | permute 0 2 1", 1, 0, 0},  /* staged, spanning a at 4 bytes */
               {"iota 2 150 60", "iota 2 60 150 | permute 0 2 1", 1, 0, 0},  /* spanning, tiles of 128 along b on Zen */
               /* crowded (4 KiB pitches on both sides): whole tiles, edges along b, edges along a */
               {"iota 128 1024 | slice : :128", "iota 128 1024 | slice : :128 | permute 1 0", 0, 1, 1},
               {"iota 70 1024 | slice : :128", "iota 128 1024 | slice : :70 | permute 1 0", 0, 1, 1},
               {"iota 128 1024 | slice : :100", "iota 100 1024 | slice : :128 | permute 1 0", 0, 1, 1},
               /* crowded, a of 40 (and 63: edges along a of the tall tiles' rows) */
               {"iota 128 1024 | slice : :40", "iota 40 1024 | slice : :128 | permute 1 0", 0, 1, 0},
               {"iota 100 1024 | slice : :63", "iota 63 1024 | slice : :100 | permute 1 0", 0, 1, 0},
               {"iota 100 1024 | slice : :65", "iota 65 1024 | slice : :100 | permute 1 0", 0, 1, 1}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    ixj_ixfun *d = parse_ok(cases[c].dst), *s = parse_ok(cases[c].src);
    const ixj_ixfun *srcs[1] = {s};
    for (size_t e = 4; e <= 16; e *= 2)
      for (int vb = 32; vb <= 64; vb += 32)
        for (int zen = 0; zen <= 1; zen++) {
          plan_request req = {.op = IXJ_OP_COPY, .elem_size = e, .dst = d, .num_srcs = 1, .srcs = srcs, .last_level_cache = 1,
                              .cpu_vector_bytes = vb, .cpu_zen = zen};
          ixj_plan *p = malloc(sizeof *p);
          assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
          assert_int_equal(p->strategy, PLAN_TILED);
          assert_int_equal(p->nontemporal, 1);
          if (e == 4 && p->staged) assert_int_equal(p->span, cases[c].span4);
          /* Intel's 4- and 8-byte tiles that do not stage too (INTEL_AVX512_RULES); those that do
           * 256 bytes along b and 128 along a (INTEL_STAGED_TILES; not with a fused b) */
          bool shaped = (zen || ((e == 4 || e == 8) && !p->staged)) && vb == 64 && !p->span;
          bool intel_staged = !zen && vb == 64 && (e == 4 || e == 8) && p->staged && !p->span && !p->b_inner;
          bool tall = zen && e == 4 && cases[c].tall4; /* ZEN_TALL_CROWDED_TILES */
          int crowded_rows = tall ? 64 : 32;
          if (!p->span)
            assert_int_equal(p->tile_a, intel_staged ? 128 / (int)e
                                        : shaped     ? (e == 16 ? 8 : e == 4 && p->staged ? 64
                                                            : e == 4 && cases[c].crowded4 ? crowded_rows
                                                            : e == 4 && p->b_inner && !zen ? 32 : 16)
                                                     : 0);
          /* on Zen with AVX-512 into L2 (short source rows back to back take the sequential
           * prefetch: sequential_prefetch; a fused b none); Intel's staged floats too (their rows
           * spread over the L1 sets) */
          bool l2 = (zen && vb == 64 && !p->b_inner && p->prefetch != PLAN_PREFETCH_SEQUENTIAL) || (intel_staged && e == 4);
          if ((p->prefetch == PLAN_PREFETCH_NEAR_L2) != l2)
            fail_msg("%s (elem %zu, %d-byte vectors, zen %d): prefetch %d, tile_a %d", cases[c].dst, e, vb, zen, p->prefetch, p->tile_a);
          int64_t row = (int64_t)p->tile_a * (int64_t)e; /* a spanning tile's staged row */
          int want = (shaped && e == 4 && !(tall && vb == 64)) || (intel_staged && e == 4) ? 64 : 32;
          if (zen && vb == 64 && p->span && 128 * row <= 65536) want = 128;
          assert_int_equal(p->tile, want);
          free(p);
        }
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
  zen_rules = 1;
  for (size_t e = 4; e <= 16; e *= 2)
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) copy_all_ways(e, cases[c].dst, cases[c].src, "tiled");
  zen_rules = 0;
}

/* On Intel's rules (AVX-512, not Zen), streamed 2-byte tiles read 64
 * source rows (INTEL_HALF_ROWS) where their rows crowd one L1 set (whole
 * 64-byte blocks; staged too) or are short and back to back (not staged);
 * not where they spread, nor with AVX2. Then the kernels against the
 * reference (edges along a and b, batches, a staged destination). */
static void intel_half_tiles(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int rows; /* Intel's tile_a with AVX-512 */
    int staged;
  } cases[] = {{"iota 256 320", "iota 320 4096 | slice : :256 | permute 1 0", 64, 0}, /* source rows 8 KiB apart */
               {"iota 200 320", "iota 320 4096 | slice : :200 | permute 1 0", 64, 0}, /* the same, b cut short */
               {"iota 4 64 320", "iota 4 320 64 | permute 0 2 1", 64, 0},              /* 128-byte rows back to back */
               {"iota 256 384", "iota 384 256 | permute 1 0", 0, 0},                   /* 512-byte rows: 32 KiB a row of tiles */
               /* crowded rows into destination rows off lines (a 4096^2 transpose sliced: `slice_t_e2_crowd`) */
               {"iota 256 639", "iota 640 4096 | slice : :256 | permute 1 0 | slice : 1:", 64, 1}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    for (int vb = 32; vb <= 64; vb += 32) {
      ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, 2, vb, 0, 1, NULL);
      assert_int_equal(p->strategy, PLAN_TILED);
      assert_true(p->nontemporal);
      assert_int_equal(p->staged != 0, cases[c].staged);
      int want = vb == 64 ? cases[c].rows : cases[c].staged ? 4 * p->tile : 0; /* AVX2's staged halves: four tiles wide */
      if (p->tile_a != want) fail_msg("%s <- %s (%d-byte vectors): tile_a %d", cases[c].dst, cases[c].src, vb, p->tile_a);
      free(p);
    }
    copy_all_ways(2, cases[c].dst, cases[c].src, "tiled");
  }
}

/* Intel with AVX-512, streamed: float tiles whose source rows spread over
 * the L1 sets read 32 source rows (INTEL_SPREAD_ROWS) where Zen's read 16;
 * not where 32 rows would crowd a set (16 of them do not), not doubles, not
 * back-to-back rows; crowded ones read 32 on Intel, 64 on Zen
 * (ZEN_TALL_CROWDED_TILES). Then the kernels against
 * the reference. */
static void intel_spread_rows(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    size_t elem;
    int intel, zen; /* tile_a */
  } cases[] = {{"iota 1056 320", "iota 320 1056 | permute 1 0", 4, 32, 16},                  /* a pitch of 4 KiB + 128 bytes */
               {"iota 1000 320", "iota 320 1056 | slice : :1000 | permute 1 0", 4, 32, 16}, /* b cut short */
               {"iota 1024 320", "iota 320 1536 | slice : :1024 | permute 1 0", 4, 16, 16}, /* 6 KiB: 32 rows on 2 sets */
               {"iota 1024 320", "iota 320 1024 | permute 1 0", 4, 32, 64},                 /* 4 KiB: crowded (Zen: tall) */
               {"iota 1056 320", "iota 320 1056 | permute 1 0", 8, 16, 16}};                /* doubles */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    for (int zen = 0; zen <= 1; zen++) {
      ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, cases[c].elem, 64, zen, 1, NULL);
      assert_int_equal(p->strategy, PLAN_TILED);
      assert_true(p->nontemporal && !p->staged);
      int want = zen ? cases[c].zen : cases[c].intel;
      if (p->tile_a != want)
        fail_msg("%s <- %s (%s): tile_a %d, expected %d", cases[c].dst, cases[c].src, zen ? "Zen" : "Intel", p->tile_a, want);
      free(p);
    }
    copy_all_ways(cases[c].elem, cases[c].dst, cases[c].src, "tiled");
  }
}

/* Intel with AVX-512, streamed: float tiles whose source rows crowd one L1
 * set but lie off lines, staged or not, prefetch one tile ahead into L2 and
 * walk rows of tiles (INTEL_CROWDED_PREFETCH); rows on lines keep none and
 * their blocks of tiles, staged or not, as doubles do; not on AVX2 hosts.
 * Then the kernels against the reference. */
static void intel_crowded_prefetch(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    size_t elem;
    int off_lines, staged;
  } cases[] = {{"iota 1025 320", "iota 320 1025 | permute 1 0", 4, 1, 0},                  /* a pitch of 4 KiB + 4 bytes */
               {"iota 1000 320", "iota 320 2049 | slice : :1000 | permute 1 0", 4, 1, 0}, /* 8 KiB + 4, b cut short */
               {"iota 1023 1023", "iota 1023 1023 | permute 1 0", 4, 1, 1},               /* 4 KiB - 4, staged */
               {"iota 513 320", "iota 320 513 | permute 1 0", 8, 0, 0},                   /* doubles (4 KiB + 8): not */
               {"iota 1024 320", "iota 320 1024 | permute 1 0", 4, 0, 0},                 /* on lines */
               {"iota 1024 300", "iota 300 1024 | permute 1 0", 4, 0, 1}};                /* on lines, staged */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    for (int vb = 32; vb <= 64; vb += 32) {
      ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, cases[c].elem, vb, 0, 1, NULL);
      assert_int_equal(p->strategy, PLAN_TILED);
      assert_true(p->nontemporal);
      assert_int_equal(p->staged != 0, cases[c].staged);
      bool near_l2 = vb == 64 && cases[c].off_lines;
      bool floats_crowded = vb == 64 && cases[c].elem == 4; /* crowded without the rule: no prefetch, blocks of tiles */
      if ((p->prefetch == PLAN_PREFETCH_NEAR_L2) != near_l2 || (floats_crowded && !near_l2 && p->prefetch))
        fail_msg("%s <- %s (%d-byte vectors): prefetch %d", cases[c].dst, cases[c].src, vb, p->prefetch);
      if (floats_crowded) assert_int_equal(p->super_a == 0, near_l2);
      free(p);
    }
    copy_all_ways(cases[c].elem, cases[c].dst, cases[c].src, "tiled");
  }
}

/* Zen cores, streamed, AVX-512: 1- and 2-byte tiles read twice the source
 * rows a destination line needs (plan.tile_a = 2T; 2-byte ones two lines of
 * each source row too, plan.tile = 2T), each prefetched a tile
 * ahead into L2 (locality 2), stacked blocks or whole ones; not staged tiles
 * (their own widths), not AVX2 or other CPUs; other AVX-512 hosts one tile
 * ahead into L1, staged halves not wide; the kernels against the reference,
 * whole tiles, edges and batches. */
static void zen_narrow_tiles(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int two_lines;   /* on Zen with 64-byte vectors */
    int intel_rows2; /* Intel's halves, AVX-512: 64 rows where crowded or short and back to back (INTEL_HALF_ROWS) */
  } cases[] = {{"iota 1060 1088", "iota 1088 1088 | slice : :1060 | permute 1 0", 1, 0}, /* spread: stacked; edges along b */
               {"iota 1088 1152 | slice : :1100", "iota 1100 1088 | permute 1 0", 1, 0}, /* edges along a */
               {"iota 1024 1024", "iota 1024 1024 | permute 1 0", 1, 64},        /* whole tiles (crowded halves) */
               {"iota 3 128 192", "iota 3 192 128 | permute 0 2 1", 1, 64},      /* batched (256-byte rows back to back) */
               {"iota 300 270", "iota 270 300 | permute 1 0", 0, 0},            /* staged, spanning */
               {"iota 600 1090", "iota 1090 600 | permute 1 0", 0, 0}};         /* staged */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (size_t e = 1; e <= 2; e++)
      for (int vb = 32; vb <= 64; vb += 32)
        for (int zen = 0; zen <= 1; zen++) {
          ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, e, vb, zen, 1, NULL);
          assert_int_equal(p->strategy, PLAN_TILED);
          assert_int_equal(p->nontemporal, 1);
          bool two = zen && vb == 64 && cases[c].two_lines;
          assert_int_equal(p->staged != 0, !cases[c].two_lines);
          bool intel_rows2 = !zen && vb == 64 && e == 2;
          if (!p->staged) /* two lines of a destination row */
            assert_int_equal(p->tile_a, two ? 128 / (int)e : intel_rows2 ? cases[c].intel_rows2 : 0);
          if (two) assert_int_equal(p->tile * (int)e, e == 2 ? 128 : 64);       /* halves: two of a source row too */
          /* staged too; gathered bytes in blocks of tiles prefetch the block's next row of tiles (staged
           * ones on Intel only) */
          bool blocks = p->gather && p->super_a && (!p->staged || (!zen && vb == 64));
          int l2 = blocks ? PLAN_PREFETCH_BLOCK_ROWS : PLAN_PREFETCH_NEAR_L2;
          /* on Intel with AVX-512 staged bytes and those blocks only (INTEL_AVX512_RULES); its other 1- and
           * 2-byte tiles one tile ahead into L1, and its staged halves only as wide as tall (INTEL_NARROW_TILES) */
          bool intel = !zen && vb == 64;
          bool into_l2 = vb == 64 && (zen || (e == 1 && p->staged) || blocks);
          assert_int_equal(p->prefetch == l2, into_l2);
          if (intel && !into_l2) assert_int_equal(p->prefetch, PLAN_PREFETCH_NEAR);
          if (p->staged && !p->span && e == 2) assert_int_equal(p->tile_a == 0, intel);
          char *ir = NULL;
          assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
          assert_int_equal(strstr(ir, "i32 0, i32 2, i32 1)") != NULL, into_l2);
          free(ir);
          free(p);
        }
  zen_rules = 1;
  for (size_t e = 1; e <= 2; e++)
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) copy_all_ways(e, cases[c].dst, cases[c].src, "tiled");
  zen_rules = 0;
}

/* Crowded 1-byte tiles on AVX-512 hosts gather (plan.gather:
 * gather_bytes in gen/plan.c): each tile's source rows are copied to a buffer
 * on the stack, where the stacked blocks read. The plans (bytes only, crowded
 * rows of a line or more only, no fused a, 64-byte vectors only;
 * spread rows, a fused a and short rows do not), the gather loop and its masked
 * loads (a tile cut short along b) in the IR, and the kernels against the
 * reference: whole tiles, edges along b and along a, a staged destination, a
 * batch, NCHW -> NHWC, streamed and not, rows aligned and off by one; staged
 * ones in blocks of tiles under Intel's rules too (their prefetch of the
 * block's next row of tiles). */
static void gathered_tiles(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int gathers, partial_b; /* with 64-byte vectors */
    int block_rows;         /* gathering, in blocks of tiles on Zen: PLAN_PREFETCH_BLOCK_ROWS */
  } cases[] = {{"iota 4096 128", "iota 128 4096 | permute 1 0", 1, 0, 0},                   /* whole tiles */
               {"iota 4000 128", "iota 128 4096 | slice : :4000 | permute 1 0", 1, 1, 0},   /* b cut short */
               {"iota 4096 100", "iota 100 4096 | permute 1 0", 1, 0, 0},                   /* edges along a */
               {"iota 1000 70", "iota 70 1024 | slice : :1000 | permute 1 0", 1, 1, 0},     /* both, 1 KiB pitch */
               {"iota 3 2048 96", "iota 3 96 2048 | permute 0 2 1", 1, 0, 0},               /* a batch */
               {"iota 2 64 64 64", "iota 2 64 64 64 | permute 0 2 3 1", 1, 0, 0},           /* NCHW -> NHWC */
               {"iota 1024 512", "iota 512 1024 | permute 1 0", 1, 0, 1},                   /* blocks of 4 x 16 tiles */
               {"iota 1000 640 | slice : :600", "iota 600 1024 | slice : :1000 | permute 1 0", 1, 1, 1}, /* blocks past both ends */
               {"iota 2 1024 384", "iota 2 384 1024 | permute 0 2 1", 1, 0, 1},             /* blocks, batched */
               {"iota 1024 1100", "iota 1100 1024 | permute 1 0", 1, 0, 0},                 /* staged, in blocks */
               {"iota 1000 1101", "iota 1101 1024 | slice : :1000 | permute 1 0", 1, 1, 0}, /* the same, b cut short */
               {"iota 16 16 16 4 8 8", "iota 4 16 8 16 8 16 | permute 1 3 5 0 2 4", 0, 0, 0},  /* a fused a: not */
               {"iota 32 128", "iota 128 4096 | slice : :32 | permute 1 0", 0, 0, 0},      /* rows shorter than a line: not */
               {"iota 4160 128", "iota 128 4160 | permute 1 0", 0, 0, 0},                   /* spread rows: not */
               {"iota 4096 32", "iota 32 4096 | permute 1 0", 1, 0, 0},                     /* a two blocks: stacked */
               {"iota 2 64 64 20", "iota 2 20 64 64 | permute 0 2 3 1", 0, 0, 0},           /* a one block: not */
               {"iota 4096 31", "iota 31 4096 | permute 1 0", 0, 0, 0},                     /* the same */
               {"iota 2 64 64 12", "iota 2 12 64 64 | permute 0 2 3 1", 0, 0, 0},           /* a narrowed block: not */
               {"iota 4096 65 2 | slice : : :1", "iota 1 65 4096 | permute 2 1 0", 0, 0, 0}, /* a with gaps: not */
               {"iota 4096 65 17 | slice : : :1", "iota 1 65 4096 | permute 2 1 0", 0, 0, 0}}; /* the same */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (size_t e = 1; e <= 2; e++)
      for (int vb = 32; vb <= 64; vb += 32)
        for (int zen = 0; zen <= 1; zen++) {
          ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, e, vb, zen, 1, NULL);
          assert_int_equal(p->strategy, PLAN_TILED);
          bool gather = e == 1 && vb == 64 && cases[c].gathers;
          assert_int_equal(p->gather, gather);
          if (gather) assert_int_equal(p->stack, 4);
          char *ir = NULL;
          assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
          assert_int_equal(strstr(ir, "%gbuf = alloca") != NULL, gather);
          assert_int_equal(strstr(ir, "@llvm.masked.load.v64i8") != NULL, gather && cases[c].partial_b);
          /* the block's next row of tiles, into L2 (prefetcht1), with each gathered row (on Zen where
           * the table says; other hosts walk more of these tiles in blocks) */
          bool block_rows = gather && (zen ? cases[c].block_rows : p->super_a != 0); /* staged ones too */
          assert_int_equal(p->prefetch == PLAN_PREFETCH_BLOCK_ROWS, block_rows);
          assert_int_equal(p->super_a != 0, block_rows || (p->super_a && (!gather || p->staged)));
          if (gather && p->staged && p->super_a) assert_true(zen ? !block_rows : block_rows);
          if (gather && p->staged && !zen && p->super_a) /* 128 x 128 on Intel (INTEL_GATHERED_STAGED_TILE) */
            assert_true(p->tile == 128 && p->tile_a == 128);
          assert_int_equal(strstr(ir, "%g.pf0 = getelementptr") != NULL, block_rows);
          if (block_rows) assert_non_null(strstr(ir, "@llvm.prefetch.p0(ptr %g.pf0, i32 0, i32 2, i32 1)"));
          free(ir);
          free(p);
        }
  /* a staged destination (a 100-byte pitch) gathers too, halo rows included */
  ixj_plan *p = copy_plan("iota 4096 100", "iota 100 4096 | permute 1 0", 1, 64, 1, 1, NULL);
  assert_true(p->gather && p->staged);
  assert_true(ixj__plan_gather_bytes(p) <= PLAN_GATHER_MAX_BYTES);
  free(p);
  /* ... but not where a spanning staged tile's rows would take more than
   * PLAN_GATHER_MAX_BYTES of the stack (300-byte rows: 46 KiB) */
  p = copy_plan("iota 4096 300", "iota 300 4096 | permute 1 0", 1, 64, 1, 1, NULL);
  assert_true(p->staged && p->span && p->stack && !p->gather);
  free(p);
  zen_rules = 1;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) copy_all_ways(1, cases[c].dst, cases[c].src, "tiled");
  copy_all_ways(1, "iota 4000 100", "iota 100 4096 | slice : :4000 | permute 1 0", "tiled"); /* staged, b cut short */
  copy_all_ways(1, "iota 1000 300", "iota 300 4096 | slice : :1000 | permute 1 0", "tiled"); /* too wide to gather */
  zen_rules = 0;
  /* Intel's rules: staged gathered tiles in blocks prefetch the block's next row of tiles, halo rows too */
  copy_all_ways(1, "iota 1024 1100", "iota 1100 1024 | permute 1 0", "tiled");
  copy_all_ways(1, "iota 1000 1101", "iota 1101 1024 | slice : :1000 | permute 1 0", "tiled");
}

/* Tiles in cache (not streamed) on Zen cores with 64-byte vectors prefetch a
 * tile ahead into L2 where the output is more than 1 MiB, of 4- and 8-byte
 * elements, neither a fused a nor a zip (zen_in_cache_prefetch in
 * gen/plan.c): the plans, the prefetch's locality in the IR, and the kernels
 * against the reference, whole tiles, edges along either dim, batches. */
static void zen_in_cache_prefetch(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    size_t elem;
    int prefetch; /* on Zen with 64-byte vectors */
  } cases[] = {{"iota 1024 1024", "iota 1024 1024 | permute 1 0", 4, 1},          /* 4 MiB */
               {"iota 1000 1030", "iota 1030 1000 | permute 1 0", 4, 1},          /* edges along both */
               {"iota 3 300 400", "iota 3 400 300 | permute 0 2 1", 4, 1},        /* batched */
               {"iota 400 410", "iota 410 400 | permute 1 0", 8, 1},              /* doubles, 1.3 MB */
               {"iota 512 512", "iota 512 512 | permute 1 0", 4, 0},              /* 1 MiB: not above */
               {"iota 1024 1024", "iota 1024 1024 | permute 1 0", 2, 0},          /* halves */
               {"iota 16 16 16 4 8 8", "iota 4 16 8 16 8 16 | permute 1 3 5 0 2 4", 4, 0}, /* a fused a */
               {"iota 8 224 224 3", "iota 8 3 224 224 | permute 0 2 3 1", 4, 0}}; /* a zip */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (int vb = 32; vb <= 64; vb += 32)
      for (int zen = 0; zen <= 1; zen++) {
        ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, cases[c].elem, vb, zen, 0, NULL);
        assert_int_equal(p->strategy, PLAN_TILED);
        assert_int_equal(p->nontemporal, 0);
        bool want = zen && vb == 64 && cases[c].prefetch;
        assert_int_equal(p->prefetch, want ? PLAN_PREFETCH_NEAR_L2 : 0);
        char *ir = NULL;
        assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
        assert_int_equal(strstr(ir, "i32 0, i32 2, i32 1)") != NULL, want);
        free(ir);
        free(p);
      }
  zen_rules = 1;
  for (size_t c = 0; c < 4; c++) copy_all_ways(cases[c].elem, cases[c].dst, cases[c].src, "tiled");
  zen_rules = 0;
}

/* Streamed tiles are walked in blocks of up to 16 x 16 tiles; a tile count
 * above 16 with no divisor from 8 to 16 (17 and 19, primes; 34) takes blocks
 * of the width from 8 to 16 that leaves the fewest tiles past the end, which
 * run empty (super_width in gen/plan.c); staged tiles keep divisors. The
 * plans' widths and work units, and the kernels against the reference, whole
 * and with edges, tile counts past the end along a, b or both, in chunks. */
static int run_tiles_past_the_end(const char *dst_text, const char *src_text, size_t elem, int zen, int vector_bytes) {
  ixj_ixfun *dst = parse_ok(dst_text), *src = parse_ok(src_text);
  buffer d, s;
  make_fenced_buffer(&s, src, elem, 10);
  make_buffer(&d, dst, elem, 1, 0);
  size_t total = GUARD + d.bytes + GUARD;
  unsigned char *before = malloc(total);
  assert_non_null(before);
  memcpy(before, d.mem, total);
  ixj_plan *p = copy_plan(dst_text, src_text, elem, vector_bytes, zen, 1, NULL); /* as super_blocks_past_the_end plans */
  assert_true(p->strategy == PLAN_TILED && p->super_a && !p->a_inner && !p->b_inner && p->vector_elems == 1);
  char name[32], sig[8192], *ir = NULL;
  snprintf(name, sizeof name, "k%d", kernels++);
  ixj__plan_signature(p, "test", sig, sizeof sig);
  ixj_error err;
  void *obj = NULL;
  size_t size = 0;
  ixj_kernel_fn fn;
  if (ixj__emit_llvm(p, name, sig, &ir, &err) != IXJ_OK) fail_msg("%s: emit: %s", dst_text, err.message);
  if (ixj__jit_llvm_object(jit, ir, &obj, &size, &err) != IXJ_OK) fail_msg("%s: %s", dst_text, err.message);
  assert_int_equal(ixj__jit_llvm_link(jit, obj, size, name, &fn, &err), IXJ_OK);
  /* the units in the emitter's order: (outer..., block a, block b, a in block, b in block) */
  int r = p->rank;
  int64_t ta = ixj__plan_tile_edge_a(p), na = (p->shape[r - 1] + ta - 1) / ta, nb = (p->shape[r - 2] + p->tile - 1) / p->tile;
  int64_t sa = p->super_a, sb = p->super_b, blocks_b = (nb + sb - 1) / sb, past = 0;
  const void *ptrs[2] = {d.op.data, s.op.data};
  int64_t offs[2] = {p->operand[0].runtime_offset, p->operand[1].runtime_offset};
  for (uint64_t u = 0; u < p->work_units; u++) {
    int64_t x = (int64_t)u, ib = x % sb, ia = (x / sb) % sa, bb = (x / sb / sa) % blocks_b, ba = x / sb / sa / blocks_b;
    if (ba * sa + ia < na && bb * sb + ib < nb) continue; /* a tile of the space (outer dims: none here) */
    fn(ptrs, offs, (int64_t)u, (int64_t)u + 1);
    past++;
  }
  if (memcmp(d.mem, before, total)) fail_msg("%s <- %s: a tile past the end wrote into the destination", dst_text, src_text);
  free(obj);
  free(ir);
  free(p);
  free(before);
  free_buffer(&d);
  free_buffer(&s);
  ixj_ixfun_free(dst);
  ixj_ixfun_free(src);
  return (int)past;
}

static void super_blocks_past_the_end(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    int zen, super_a, super_b; /* 4-byte elements, streamed; 64-byte vectors on Zen, 32-byte ones else (Intel's
                                  4-byte tiles with AVX-512 take the Zen shapes: INTEL_AVX512_RULES) */
  } cases[] = {{"iota 1088 304", "iota 304 1088 | permute 1 0", 1, 10, 9},                 /* 19 x 17 tiles, whole */
               {"iota 1080 304 | slice : :300", "iota 300 1080 | permute 1 0", 1, 10, 9}, /* edges */
               {"iota 1080 304 | slice : :300", "iota 300 1080 | permute 1 0", 0, 10, 12}, /* 10 x 34: b only */
               {"iota 1024 304 | slice : :300", "iota 300 1024 | permute 1 0", 0, 10, 16}, /* divisors: none past */
               {"iota 1080 300", "iota 300 1080 | permute 1 0", 1, 0, 0}};               /* staged: whole blocks only */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, 4, cases[c].zen ? 64 : 32, cases[c].zen, 1, NULL);
    assert_int_equal(p->strategy, PLAN_TILED);
    assert_int_equal(p->nontemporal, 1);
    assert_int_equal(p->staged != 0, cases[c].super_a == 0);
    if (p->staged) { /* widths that divide the tile counts (1 x 1: none) */
      int64_t ta = (ixj__plan_tile_a_extent(p) + ixj__plan_tile_edge_a(p) - 1) / ixj__plan_tile_edge_a(p);
      int64_t tb = (ixj__plan_tile_b_extent(p) + p->tile - 1) / p->tile;
      assert_true(p->super_a == 0 || (ta % p->super_a == 0 && tb % p->super_b == 0));
    } else {
      assert_int_equal(p->super_a, cases[c].super_a);
      assert_int_equal(p->super_b, cases[c].super_b);
    }
    free(p);
  }
  /* the tiles past the end alone: they write nothing (19 x 17 tiles in blocks of 10 x 9: 360 - 323) */
  assert_int_equal(run_tiles_past_the_end(cases[1].dst, cases[1].src, 4, 1, 64), 20 * 18 - 19 * 17);
  assert_int_equal(run_tiles_past_the_end(cases[2].dst, cases[2].src, 4, 0, 32), 10 * 36 - 10 * 34);
  for (zen_rules = 0; zen_rules <= 1; zen_rules++)
    for (size_t e = 4; e <= 8; e *= 2)
      for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) copy_all_ways(e, cases[c].dst, cases[c].src, "tiled");
  zen_rules = 0;
  /* On Intel with AVX-512 (INTEL_FULL_BLOCKS) b's blocks are 16 tiles wide
   * past its end also where a divisor from 8 to 15 leaves none past: 63
   * tiles along b (Zen's rules: 9; its floats' 126 tiles of 32: 14), at 4 and 8 bytes (tiles of 64 and 32;
   * source rows that crowd an L1 set: else Intel walks rows of tiles) */
  static const char *full[][2] = {{"iota 4032 304 | slice : :300", "iota 300 4096 | slice : :4032 | permute 1 0"},
                                  {"iota 2016 320", "iota 320 2048 | slice : :2016 | permute 1 0"}};
  static const int tiles_a[2] = {10, 20};
  for (size_t e = 4; e <= 8; e *= 2) {
    const char *const *text = full[e / 8];
    for (int zen = 0; zen <= 1; zen++) {
      ixj_plan *p = copy_plan(text[0], text[1], e, 64, zen, 1, NULL);
      assert_true(p->strategy == PLAN_TILED && !p->staged);
      assert_int_equal(p->super_b, !zen ? 16 : e == 4 ? 14 : 9); /* Zen's floats: 126 tiles of 32 (ZEN_TALL_CROWDED_TILES) */
      free(p);
    }
    assert_int_equal(run_tiles_past_the_end(text[0], text[1], e, 0, 64), tiles_a[e / 8] * (64 - 63));
    copy_all_ways(e, text[0], text[1], "tiled");
  }
}

/* Zen cores, streamed: the dims outside the tiles in the source's order
 * (source_major_tiles in gen/plan.c); the plans, and the kernels against the
 * reference (a rotated outer dim too). */
static void source_major_tiles(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    size_t elem;
    int intel; /* on Intel's rules (AVX-512, not Zen) streamed in the source's order too (INTEL_SOURCE_MAJOR) */
  } cases[] = {{"iota 4 4 16 3 8 8", "iota 3 4 8 4 8 16 | permute 1 3 5 0 2 4", 4, 1}, /* a 6-D permute, a fused a */
               {"iota 6 5 32 48", "iota 5 6 48 32 | permute 1 0 3 2", 4, 1},           /* (1, 0, 3, 2) */
               {"iota 6 5 32 48", "iota 5 6 48 32 | rotate 2 0 0 0 | permute 1 0 3 2", 4, 1},
               {"iota 4 4 16 3 8 8", "iota 3 4 8 4 8 16 | permute 1 3 5 0 2 4", 8, 0}, /* tiles write a line a row */
               {"iota 3 4 5 16 32", "iota 4 3 5 32 16 | permute 1 0 2 4 3", 4, 0}};  /* the next tile's source 2 KiB on */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (int vb = 32; vb <= 64; vb += 32)
      for (int zen = 0; zen <= vb / 64; zen++) /* Zen cores with AVX-512 */
        for (int stream = 0; stream <= 1; stream++) {
          ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, cases[c].elem, vb, zen, stream, NULL);
          assert_int_equal(p->strategy, PLAN_TILED);
          /* the operand whose order the tiles follow */
          int outer = ixj__plan_tile_outer_dims(p), o = stream && (zen || (vb == 64 && cases[c].intel)) ? 1 : 0;
          assert_true(outer >= 2);
          for (int j = 0; j + 1 < outer; j++)
            if (llabs(p->operand[o].stride[j]) < llabs(p->operand[o].stride[j + 1]))
              fail_msg("%s <- %s (%zu bytes, %d-byte vectors, zen %d, streamed %d): outer dim %d before %d against the %s's order",
                       cases[c].dst, cases[c].src, cases[c].elem, vb, zen, stream, j, j + 1, o ? "source" : "destination");
          free(p);
        }
  for (zen_rules = 0; zen_rules <= 1; zen_rules++)
    for (size_t e = 4; e <= 8; e *= 2)
      for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) copy_all_ways(e, cases[c].dst, cases[c].src, "tiled");
  zen_rules = 0;
}

/* On Intel's rules (AVX-512, not Zen), streamed tiles from source rows
 * crowding one L1 set, whose b is one tile and whose next tile continues
 * their source rows (4-D reversals, walked in the source's order), prefetch
 * one tile ahead into L2 (INTEL_CONTINUED_ROWS); with AVX2 they do not
 * prefetch, nor where the next tile does not continue the rows (b two
 * tiles). Then the kernels against the reference. */
static void continued_rows_prefetch(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    size_t elem;
    int continued;
  } cases[] = {{"iota 64 16 4 32", "iota 32 4 16 64 | permute 3 2 1 0", 4, 1},   /* source rows 16 KiB apart */
               {"iota 32 32 4 16", "iota 16 4 32 32 | permute 3 2 1 0", 8, 1},   /* doubles */
               {"iota 48 32 4 32", "iota 32 4 32 48 | permute 3 2 1 0", 4, 1},   /* b short of a tile */
               {"iota 128 16 2 32", "iota 32 2 16 128 | permute 3 2 1 0", 4, 0}}; /* b two tiles */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    for (int vb = 32; vb <= 64; vb += 32) {
      ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, cases[c].elem, vb, 0, 1, NULL);
      assert_int_equal(p->strategy, PLAN_TILED);
      int want = vb == 64 && cases[c].continued ? PLAN_PREFETCH_NEAR_L2 : 0;
      if (p->prefetch != want)
        fail_msg("%s <- %s (%d-byte vectors): prefetch %d, not %d", cases[c].dst, cases[c].src, vb, p->prefetch, want);
      free(p);
    }
    copy_all_ways(cases[c].elem, cases[c].dst, cases[c].src, "tiled");
  }
}

/* Zen cores, streamed, source rows short and back to back: each block row
 * prefetches the next rows of tiles in memory order (PLAN_PREFETCH_SEQUENTIAL);
 * the kernels against the reference with whole tiles, edges along b and a,
 * batches, at 4, 8 and 16 bytes, both vector widths, streamed or not. */
static void sequential_prefetch(void **state) {
  (void)state;
  static const struct {
    const char *dst, *src;
    size_t elem;
  } cases[] = {{"iota 256 384", "iota 384 256 | permute 1 0", 4},           /* 1 KiB rows, whole tiles */
               {"iota 200 304", "iota 304 200 | permute 1 0", 4},           /* an edge along b */
               {"iota 3 64 16 16", "iota 3 16 16 64 | permute 0 3 1 2", 4}, /* NHWC -> NCHW, batched */
               {"iota 100 200", "iota 200 100 | permute 1 0", 8},           /* edges along b and a */
               {"iota 64 100", "iota 100 64 | permute 1 0", 16}};           /* 1 KiB rows, an edge along a */
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (int vb = 32; vb <= 64; vb += 32)
      for (int zen = 0; zen <= 1; zen++) {
        ixj_plan *p = copy_plan(cases[c].dst, cases[c].src, cases[c].elem, vb, zen, 1, NULL);
        assert_int_equal(p->strategy, PLAN_TILED);
        assert_int_equal(p->prefetch == PLAN_PREFETCH_SEQUENTIAL, zen && vb == 64);
        free(p);
      }
  /* 4-byte source rows of 384 bytes to 4 KiB whose destination rows crowd one
   * L1 set: 64 rows a tile, the next row of tiles prefetched into L2
   * (zen_long_sequential_rows); shorter rows, rows past 4 KiB and spread
   * destinations keep 16 (long: whether the rule applies), but on Zen's
   * rules rows of 256 to 383 bytes on lines read 32 (ZEN_SEQUENTIAL_MID_ROWS) */
  static const struct {
    const char *dst, *src;
    bool long_rows;
    bool zen_tall; /* not long: the destination's rows crowd, Zen's tiles 64 x 32 (ZEN_TALL_CROWDED_TILES) */
    bool zen_mid;  /* Zen's 32 rows */
  } longer[] = {{"iota 128 1024", "iota 1024 128 | permute 1 0", true, false, false},              /* 512-byte rows, 4 KiB pitch */
                {"iota 200 1024", "iota 1024 200 | permute 1 0", true, false, false},              /* an edge along b */
                {"iota 128 1024 | slice : :1000", "iota 1000 128 | permute 1 0", true, false, false}, /* an edge along a */
                {"iota 2 160 64 16", "iota 2 64 16 160 | permute 0 3 1 2", true, false, false},    /* batched, 640-byte rows */
                {"iota 128 1040", "iota 1040 128 | permute 1 0", false, false, false},             /* the destination spreads */
                {"iota 96 1024", "iota 1024 96 | permute 1 0", true, false, false},                /* 384-byte rows */
                {"iota 64 1024", "iota 1024 64 | permute 1 0", false, false, true},                /* 256-byte rows */
                {"iota 80 1024 | slice : :1000", "iota 1000 80 | permute 1 0", false, false, true}, /* 320, an edge along a */
                {"iota 3 64 32 32", "iota 3 32 32 64 | permute 0 3 1 2", false, false, true},      /* NHWC -> NCHW, batched */
                {"iota 72 1024", "iota 1024 72 | permute 1 0", false, false, false},               /* 288: off lines */
                {"iota 48 1024", "iota 1024 48 | permute 1 0", false, false, false},               /* 192 */
                {"iota 64 1040", "iota 1040 64 | permute 1 0", false, false, false},               /* spread, 256 */
                {"iota 1040 256", "iota 256 1040 | permute 1 0", false, true, false}};             /* rows past 4 KiB */
  for (size_t c = 0; c < sizeof longer / sizeof *longer; c++)
    for (int vb = 32; vb <= 64; vb += 32)
      for (int zen = 0; zen <= 1; zen++) {
        ixj_plan *p = copy_plan(longer[c].dst, longer[c].src, 4, vb, zen, 1, NULL);
        bool want = vb == 64 && longer[c].long_rows; /* Intel too: INTEL_AVX512_RULES */
        assert_int_equal(p->strategy, PLAN_TILED);
        assert_int_equal(p->prefetch == PLAN_PREFETCH_SEQUENTIAL_L2, want);
        bool tall = zen && vb == 64 && longer[c].zen_tall; /* crowded destination rows: ZEN_TALL_CROWDED_TILES */
        assert_int_equal(ixj__plan_tile_edge_a(p) == 64, want || tall);
        if (vb == 64) assert_int_equal(p->tile == 32, tall);
        if (vb == 64 && !longer[c].zen_tall && (ixj__plan_tile_edge_a(p) == 32) != (zen && longer[c].zen_mid))
          fail_msg("%s <- %s, %s rules: %d rows a tile", longer[c].dst, longer[c].src, zen ? "Zen" : "Intel", ixj__plan_tile_edge_a(p));
        if (want) {
          char *ir = NULL;
          assert_int_equal(ixj__emit_llvm(p, "k", "test", &ir, NULL), IXJ_OK);
          assert_non_null(strstr(ir, "i32 0, i32 2, i32 1)")); /* prefetcht1 */
          assert_null(strstr(ir, "i32 0, i32 3, i32 1)"));
          free(ir);
        }
        free(p);
      }
  zen_rules = 1;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) copy_all_ways(cases[c].elem, cases[c].dst, cases[c].src, "tiled");
  for (size_t c = 0; c < sizeof longer / sizeof *longer; c++) copy_all_ways(4, longer[c].dst, longer[c].src, "tiled");
  zen_rules = 0;
}

/* The CPU's name decides: one tile ahead on AMD's Zen cores. */
static void zen_by_cpu(void **state) {
  (void)state;
  static const struct {
    const char *cpu;
    int want;
  } cpus[] = {{"znver3", 1}, {"znver4+avx2", 1}, {"sapphirerapids", 0}, {"x86-64-v3", 0}};
  for (size_t c = 0; c < sizeof cpus / sizeof *cpus; c++) {
    const jit_cpu *other = NULL;
    assert_int_equal(ixj__jit_llvm_cpu(jit, cpus[c].cpu, &other, NULL), IXJ_OK);
    if (other) assert_int_equal(other->zen, cpus[c].want);
    else assert_int_equal(ixj__jit_llvm_zen(jit), cpus[c].want); /* the host itself */
  }
}

/* Where plans stream (gen/plan.c, streams): from 4 MiB of output,
 * or the last-level cache when smaller; on a Zen 4 from 8 MiB for tiles of 2
 * bytes and more, 12 for other copies and 16 for fills, a cat's parts by
 * the whole cat's output; elsewhere a cat's parts by their own. */
static void stream_thresholds(void **state) {
  (void)state;
  enum { INTEL, ZEN3, ZEN4, INTEL512 };
  static const struct {
    int cpu;
    size_t llc;
    ixj_op_kind op;
    size_t elem;
    const char *dst, *src;
    const char *strategy;
    int nontemporal;
  } want[] = {
      {ZEN4, 32 << 20, IXJ_OP_FILL, 4, "iota 4096 1024", NULL, "inner_contiguous", 0},  /* 16 MiB */
      {ZEN4, 32 << 20, IXJ_OP_FILL, 4, "iota 4104 1024", NULL, "inner_contiguous", 1},  /* just over */
      {ZEN4, 8 << 20, IXJ_OP_FILL, 4, "iota 3072 1024", NULL, "inner_contiguous", 1},   /* a smaller cache */
      {ZEN3, 32 << 20, IXJ_OP_FILL, 4, "iota 2048 1024", NULL, "inner_contiguous", 1},  /* 8 MiB */
      {INTEL, 32 << 20, IXJ_OP_FILL, 4, "iota 2048 1024", NULL, "inner_contiguous", 1},
      {INTEL, 32 << 20, IXJ_OP_FILL, 4, "iota 1024 1024", NULL, "inner_contiguous", 0}, /* 4 MiB */
      {ZEN4, 32 << 20, IXJ_OP_COPY, 4, "iota 3072 1024", "iota 3072 1024", "memcpy", 0}, /* 12 MiB */
      {ZEN4, 32 << 20, IXJ_OP_COPY, 4, "iota 3080 1024", "iota 3080 1024", "memcpy", 1},
      {INTEL, 32 << 20, IXJ_OP_COPY, 4, "iota 3072 1024", "iota 3072 1024", "memcpy", 1},
      {ZEN4, 32 << 20, IXJ_OP_COPY, 4, "iota 3000 1024", "iota 3000 1088 | slice : 32:1056", "inner_contiguous", 0},
      {ZEN4, 32 << 20, IXJ_OP_COPY, 4, "iota 3100 1024", "iota 3100 1088 | slice : 32:1056", "inner_contiguous", 1},
      {ZEN4, 32 << 20, IXJ_OP_COPY, 4, "iota 2048 1024", "iota 2048 1024 | slice ::-1 ::-1", "general", 0},
      {ZEN3, 32 << 20, IXJ_OP_COPY, 4, "iota 2048 1024", "iota 2048 1024 | slice ::-1 ::-1", "general", 1},
      {ZEN4, 32 << 20, IXJ_OP_COPY, 4, "iota 1024 2048", "iota 2048 1024 | permute 1 0", "tiled", 0}, /* 8 MiB */
      {ZEN4, 32 << 20, IXJ_OP_COPY, 4, "iota 1088 2048", "iota 2048 1088 | permute 1 0", "tiled", 1},
      {ZEN4, 6 << 20, IXJ_OP_COPY, 4, "iota 1024 2048", "iota 2048 1024 | permute 1 0", "tiled", 1},
      {INTEL, 32 << 20, IXJ_OP_COPY, 4, "iota 1024 2048", "iota 2048 1024 | permute 1 0", "tiled", 1},
      {ZEN3, 32 << 20, IXJ_OP_COPY, 4, "iota 1024 2048", "iota 2048 1024 | permute 1 0", "tiled", 1},
      {ZEN4, 32 << 20, IXJ_OP_COPY, 2, "iota 1536 2048", "iota 2048 1536 | permute 1 0", "tiled", 0}, /* 6 MiB */
      {ZEN4, 32 << 20, IXJ_OP_COPY, 1, "iota 2048 3072", "iota 3072 2048 | permute 1 0", "tiled", 1}, /* bytes */
      {ZEN4, 32 << 20, IXJ_OP_COPY, 1, "iota 2048 2048", "iota 2048 2048 | permute 1 0", "tiled", 0}, /* 4 MiB */
      /* Intel with AVX-512: tiles of 4 bytes and more whose b is 256 bytes or less of rows back to back
       * store plainly up to 16 MiB (INTEL_SHORT_B_STREAM_BYTES); not halves, longer b, AVX2 */
      {INTEL512, 32 << 20, IXJ_OP_COPY, 4, "iota 8 16 64 512", "iota 8 16 512 64 | permute 0 1 3 2", "tiled", 0},
      {INTEL512, 32 << 20, IXJ_OP_COPY, 4, "iota 9 16 64 512", "iota 9 16 512 64 | permute 0 1 3 2", "tiled", 1},
      {INTEL512, 8 << 20, IXJ_OP_COPY, 4, "iota 8 16 64 512", "iota 8 16 512 64 | permute 0 1 3 2", "tiled", 1},
      {INTEL512, 32 << 20, IXJ_OP_COPY, 8, "iota 8 16 32 512", "iota 8 16 512 32 | permute 0 1 3 2", "tiled", 0},
      {INTEL, 32 << 20, IXJ_OP_COPY, 4, "iota 8 16 64 512", "iota 8 16 512 64 | permute 0 1 3 2", "tiled", 1},
      {INTEL512, 32 << 20, IXJ_OP_COPY, 2, "iota 8 16 128 512", "iota 8 16 512 128 | permute 0 1 3 2", "tiled", 1},
      {INTEL512, 32 << 20, IXJ_OP_COPY, 4, "iota 2048 2048", "iota 2048 2048 | permute 1 0", "tiled", 1},
  };
  for (size_t c = 0; c < sizeof want / sizeof *want; c++) {
    ixj_ixfun *d = parse_ok(want[c].dst), *s = want[c].src ? parse_ok(want[c].src) : NULL;
    const ixj_ixfun *srcs[1] = {s};
    plan_request req = {.op = want[c].op, .elem_size = want[c].elem, .dst = d, .num_srcs = s ? 1 : 0,
                        .srcs = s ? srcs : NULL, .last_level_cache = want[c].llc,
                        .cpu_vector_bytes = want[c].cpu == ZEN4 || want[c].cpu == INTEL512 ? 64 : 32,
                        .cpu_zen = want[c].cpu == ZEN3 || want[c].cpu == ZEN4};
    ixj_plan *p = malloc(sizeof *p);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_string_equal(ixj__plan_strategy_name(p->strategy), want[c].strategy);
    if (p->nontemporal != want[c].nontemporal) fail_msg("case %zu: nontemporal %d", c, p->nontemporal);
    req.gpu = true; /* a GPU never streams */
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_int_equal(p->nontemporal, 0);
    free(p);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
  /* a cat's parts: on a Zen 4 by the whole cat's output (12 MiB of memcpy
   * parts stays plain, 16 MiB streams), elsewhere by their own (6 MiB parts
   * stream, 3 MiB ones do not) */
  static const struct {
    int zen4;
    const char *dst, *src;
    int nontemporal;
  } cats[] = {{1, "iota 3072 1024", "iota 1536 1024", 0},
              {1, "iota 4096 1024", "iota 2048 1024", 1},
              {0, "iota 3072 1024", "iota 1536 1024", 1},
              {0, "iota 1536 1024", "iota 768 1024", 0}};
  for (size_t c = 0; c < sizeof cats / sizeof *cats; c++) {
    ixj_ixfun *d = parse_ok(cats[c].dst), *s = parse_ok(cats[c].src);
    const ixj_ixfun *srcs[2] = {s, s};
    plan_request req = {.op = IXJ_OP_CAT, .elem_size = 4, .dst = d, .num_srcs = 2, .srcs = srcs, .cat_axis = 0,
                        .last_level_cache = 32 << 20, .cpu_vector_bytes = cats[c].zen4 ? 64 : 32, .cpu_zen = 1};
    ixj_plan *p = malloc(sizeof *p);
    assert_int_equal(ixj__plan_build(&req, p, NULL), IXJ_OK);
    assert_int_equal(p->strategy, PLAN_CAT_PARTS);
    assert_int_equal(p->num_parts, 2);
    for (int k = 0; k < 2; k++) assert_int_equal(p->part[k].nontemporal, cats[c].nontemporal);
    free(p);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
}

int main(void) {
  if (ixj__jit_llvm_create(&jit, NULL) != IXJ_OK) return 1;
  const struct CMUnitTest tests[] = {cmocka_unit_test(transposes), cmocka_unit_test(stacked_blocks), cmocka_unit_test(crowded_destinations), cmocka_unit_test(strided_destinations),
                                     cmocka_unit_test(fused_tiles), cmocka_unit_test(cat_parts), cmocka_unit_test(strided_stores), cmocka_unit_test(row_groups), cmocka_unit_test(source_major), cmocka_unit_test(cat_parts_as_copies), cmocka_unit_test(row_quads), cmocka_unit_test(random_tiled_layouts), cmocka_unit_test(random_tiled_cats),
                                     cmocka_unit_test(row_vectors), cmocka_unit_test(chain_runs), cmocka_unit_test(flat_chains), cmocka_unit_test(rotated_copies), cmocka_unit_test(line_boxes), cmocka_unit_test(unaligned_rows), cmocka_unit_test(packed_period), cmocka_unit_test(row_source_prefetch), cmocka_unit_test(fill_orders),
                                     cmocka_unit_test(zips), cmocka_unit_test(fused_a_tiles),
                                     cmocka_unit_test(staged_tiles), cmocka_unit_test(span_row_flush), cmocka_unit_test(staged_row_flush), cmocka_unit_test(short_span_rows), cmocka_unit_test(source_prefetch), cmocka_unit_test(zen_tile_shapes), cmocka_unit_test(intel_half_tiles), cmocka_unit_test(intel_spread_rows), cmocka_unit_test(intel_crowded_prefetch), cmocka_unit_test(super_blocks_past_the_end), cmocka_unit_test(zen_narrow_tiles), cmocka_unit_test(gathered_tiles), cmocka_unit_test(zen_in_cache_prefetch), cmocka_unit_test(sequential_prefetch), cmocka_unit_test(source_major_tiles), cmocka_unit_test(continued_rows_prefetch),
                                     cmocka_unit_test(zen_by_cpu),
                                     cmocka_unit_test(strided_destination_streams), cmocka_unit_test(stream_thresholds)};
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  ixj__jit_llvm_destroy(jit);
  return failed;
}

/* The cases of unit_tiered and unit_evict: copies, fills and cats whose
 * every result is checked against the reference interpreter, run through the
 * plain calls or prepared kernels (no cmocka assertions in run_case: worker
 * threads call it). */
#ifndef IXJIT_TEST_TIERED_CASES_H
#define IXJIT_TEST_TIERED_CASES_H

#include "test_util.h"

typedef struct tcase {
  ixj_op_kind op;
  size_t elem;
  const char *dst;
  const char *src[3]; /* copy: 1, cat: up to 3, fill: none */
  int axis;
} tcase;

static const tcase cases[] = {
    {IXJ_OP_COPY, 4, "iota 8 8", {"iota 8 8 | permute 1 0"}, 0},
    {IXJ_OP_COPY, 4, "iota 64 33", {"iota 33 64 | permute 1 0"}, 0},
    {IXJ_OP_COPY, 2, "iota 5 7", {"iota 5 7 | slice ::-1 | rotate 1 2"}, 0},
    {IXJ_OP_COPY, 8, "iota 6 4", {"iota 4 6 | permute 1 0 | reshape 6 4"}, 0},
    {IXJ_OP_COPY, 1, "iota 1000", {"iota 1000"}, 0},
    {IXJ_OP_COPY, 16, "iota 3 4 5", {"strided shape=3,4,5 strides=1,3,12"}, 0},
    {IXJ_OP_COPY, 4, "iota 9 10", {"iota 10 9 | permute 1 0 | rotate 3 4"}, 0},
    {IXJ_OP_COPY, 1, "iota 8 16 | slice : ::2", {"iota 8 8 | rotate 0 5"}, 0},
    {IXJ_OP_COPY, 8, "iota 5 | slice 2", {"iota 3 | slice 1"}, 0},
    {IXJ_OP_COPY, 4, "iota 2 3 4 | permute 2 0 1", {"iota 4 2 3 | slice ::-1 ::-1"}, 0},
    {IXJ_OP_FILL, 4, "iota 7 9", {NULL}, 0},
    {IXJ_OP_FILL, 2, "iota 8 16 | slice : ::2", {NULL}, 0},
    {IXJ_OP_FILL, 16, "iota 6 5 | rotate 2 1", {NULL}, 0},
    {IXJ_OP_FILL, 8, "iota 4 6 | permute 1 0 | reshape 6 4", {NULL}, 0},
    {IXJ_OP_CAT, 4, "iota 5 7", {"iota 5 3", "iota 5 4 | rotate 1 1"}, 1},
    {IXJ_OP_CAT, 1, "iota 6 4", {"iota 2 4", "iota 4 4 | permute 1 0"}, 0},
    {IXJ_OP_CAT, 8, "iota 6 4", {"iota 2 4", "iota 2 8 | permute 1 0 | reshape 4 4"}, 0},
    {IXJ_OP_CAT, 2, "iota 5 7 | rotate 0 3", {"iota 5 2", "iota 5 1", "iota 4 5 | permute 1 0"}, 1},
    {IXJ_OP_CAT, 16, "iota 6 4 | permute 1 0", {"iota 4 2", "iota 4 1 | slice ::-1", "iota 4 3"}, 1},
};
#define NUM_CASES (int)(sizeof cases / sizeof cases[0])

/* A case's index functions, parsed once (tests and threads share them). */
typedef struct parsed {
  ixj_ixfun *dst, *src[3];
  int num_srcs;
  size_t dst_bytes, src_bytes[3];
} parsed;
static parsed P[NUM_CASES];

static int parse_all(void **state) {
  (void)state;
  for (int k = 0; k < NUM_CASES; k++) {
    P[k].dst = parse_ok(cases[k].dst);
    assert_int_equal(ixj_ixfun_required_bytes(P[k].dst, cases[k].elem, &P[k].dst_bytes, NULL), IXJ_OK);
    for (int s = 0; s < 3 && cases[k].src[s]; s++) {
      P[k].src[s] = parse_ok(cases[k].src[s]);
      assert_int_equal(ixj_ixfun_required_bytes(P[k].src[s], cases[k].elem, &P[k].src_bytes[s], NULL), IXJ_OK);
      P[k].num_srcs++;
    }
  }
  return 0;
}

static int free_all(void **state) {
  (void)state;
  for (int k = 0; k < NUM_CASES; k++) {
    ixj_ixfun_free(P[k].dst);
    for (int s = 0; s < P[k].num_srcs; s++) ixj_ixfun_free(P[k].src[s]);
  }
  return 0;
}

static size_t round64(size_t n) { return (n + 63) / 64 * 64; }

static void pattern(unsigned char *p, size_t n, unsigned seed) {
  for (size_t k = 0; k < n; k++) p[k] = (unsigned char)(seed * 131 + k * 7 + k / 253);
}

/* Runs case k on ctx (prepared: through ixj_prepare_* and ixj_kernel_run,
 * else the plain call) and the reference on a copy of the destination: true
 * when the whole buffers agree. No cmocka assertions: threads call it. */
static bool run_case(ixj_context *ctx, int k, bool prepared, unsigned seed, ixj_call_info *info) {
  const tcase *c = &cases[k];
  const parsed *p = &P[k];
  size_t db = p->dst_bytes ? p->dst_bytes : 1;
  /* 64-byte aligned buffers: the same call gets the same plan (and kernel) every time */
  unsigned char *got = aligned_alloc(64, round64(db)), *want = malloc(db), *src[3] = {NULL, NULL, NULL}, value[16];
  bool ok = got && want;
  pattern(got, db, seed);
  memcpy(want, got, db);
  pattern(value, sizeof value, seed + 99);
  ixj_operand d = {got, p->dst_bytes, p->dst}, w = {want, p->dst_bytes, p->dst}, s[3];
  for (int q = 0; q < p->num_srcs && ok; q++) {
    size_t sb = p->src_bytes[q] ? p->src_bytes[q] : 1;
    if (!(ok = (src[q] = aligned_alloc(64, round64(sb))) != NULL)) break;
    pattern(src[q], sb, seed + 1 + (unsigned)q);
    s[q] = (ixj_operand){src[q], p->src_bytes[q], p->src[q]};
  }
  ixj_error err;
  memset(info, 0, sizeof *info);
  if (ok && prepared) {
    ixj_kernel *kern = NULL;
    ixj_buffer bd = {got, p->dst_bytes}, bs[3];
    for (int q = 0; q < p->num_srcs; q++) bs[q] = (ixj_buffer){src[q], p->src_bytes[q]};
    ixj_status st = c->op == IXJ_OP_COPY   ? ixj_prepare_copy(ctx, p->dst, p->src[0], c->elem, 0, &kern, &err)
                    : c->op == IXJ_OP_FILL ? ixj_prepare_fill(ctx, p->dst, c->elem, 0, &kern, &err)
                                           : ixj_prepare_cat(ctx, p->dst, c->axis, p->num_srcs,
                                                             (const ixj_ixfun *const *)p->src, c->elem, 0, &kern, &err);
    ok = st == IXJ_OK && ixj_kernel_run(kern, bd, p->num_srcs, p->num_srcs ? bs : NULL,
                                        c->op == IXJ_OP_FILL ? value : NULL, &err) == IXJ_OK;
    ixj_kernel_release(kern);
  } else if (ok) {
    ok = (c->op == IXJ_OP_COPY   ? ixj_copy(ctx, &d, &s[0], c->elem, info, &err)
          : c->op == IXJ_OP_FILL ? ixj_fill(ctx, &d, value, c->elem, info, &err)
                                 : ixj_cat(ctx, &d, c->axis, p->num_srcs, s, c->elem, info, &err)) == IXJ_OK;
  }
  if (ok)
    ok = (c->op == IXJ_OP_COPY   ? ixj_reference_copy(&w, &s[0], c->elem, &err)
          : c->op == IXJ_OP_FILL ? ixj_reference_fill(&w, value, c->elem, &err)
                                 : ixj_reference_cat(&w, c->axis, p->num_srcs, s, c->elem, &err)) == IXJ_OK;
  ok = ok && !memcmp(got, want, db);
  free(got);
  free(want);
  for (int q = 0; q < 3; q++) free(src[q]);
  return ok;
}

/* Whether a call of case k needs a kernel (memcpy-class copies need none). */
static bool needs_kernel(const ixj_call_info *info) { return strcmp(info->strategy, "memcpy") && strcmp(info->strategy, "empty"); }

#endif

/* The lowered index math (gen/lower.c), run by the program evaluator against
 * the index functions themselves: no LLVM, no NVRTC (this test links the
 * generator's objects only). For every case and every division style (ixjit's
 * magic, plain division, runtime magic) and both index widths, the program a
 * kernel is made of must send every point of the plan's iteration space to
 * exactly the offsets the index functions give that point, and the odometer
 * must step through the space exactly as unflattening each point does. */
#include "lower.h"
#include "plan.h"
#include "test_util.h"

#define MAX_POINTS 6000

typedef struct pair {
  int64_t dst, src; /* src: input * 2^40 + offset for a cat */
} pair;

static int by_dst(const void *a, const void *b) {
  const pair *x = a, *y = b;
  return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* The row-major logical points of f, as a multi-index into idx[n * rank]. */
static void unravel(int64_t n, int rank, const int64_t *shape, int64_t *idx) {
  for (int k = rank - 1; k >= 0; k--) {
    idx[k] = n % shape[k];
    n /= shape[k];
  }
}

/* What the index functions say: (dst offset, src offset) of every point. */
static int64_t reference_pairs(const ixj_ixfun *dst, int num_srcs, ixj_ixfun *const *srcs, int axis, pair *out) {
  int rank = ixj_ixfun_rank(dst);
  int64_t n = 0, shape[IXJ_MAX_RANK], idx[IXJ_MAX_RANK], start = 0;
  if (num_srcs == 0) { /* fill: the source is the point's order, unused */
    ixj_ixfun_shape(dst, shape);
    for (int64_t i = 0; i < ixj_ixfun_num_points(dst); i++, n++) {
      unravel(i, rank, shape, idx);
      assert_int_equal(ixj_ixfun_index(dst, rank, idx, &out[n].dst, NULL), IXJ_OK);
      out[n].src = 0;
    }
    return n;
  }
  for (int k = 0; k < num_srcs; k++) {
    ixj_ixfun_shape(srcs[k], shape);
    for (int64_t i = 0; i < ixj_ixfun_num_points(srcs[k]); i++, n++) {
      int64_t s;
      unravel(i, rank, shape, idx);
      assert_int_equal(ixj_ixfun_index(srcs[k], rank, idx, &s, NULL), IXJ_OK);
      idx[axis] += start;
      assert_int_equal(ixj_ixfun_index(dst, rank, idx, &out[n].dst, NULL), IXJ_OK);
      out[n].src = ((int64_t)k << 40) + s;
    }
    start += shape[axis];
  }
  return n;
}

/* The plan's iteration space through the lowered program: per point n, the
 * digits, the destination's offset and the source's (cat: the input that
 * holds the axis coordinate, as the kernels choose it). */
static int64_t lowered_pairs(const ixj_plan *p, lower_division division, pair *out) {
  lower lw;
  ixj__lower_init(&lw, p, division);
  int r = p->rank, digit[IXJ_MAX_RANK], src_off[PLAN_MAX_OPERANDS] = {0};
  int n = ixj__lower_input(&lw, lw.index, "n", 0);
  ixj__lower_unflatten(&lw, n, r, p->shape, (uint64_t)p->count - 1, digit);
  int dst_off = ixj__lower_point_offset(&lw, &p->operand[0], r, digit, p->shape);
  if (p->op == IXJ_OP_COPY) src_off[1] = ixj__lower_point_offset(&lw, &p->operand[1], r, digit, p->shape);
  if (p->op == IXJ_OP_CAT)
    for (int k = 1; k < p->num_operands; k++) {
      const plan_operand *x = &p->operand[k];
      int local[IXJ_MAX_RANK];
      int64_t extent[IXJ_MAX_RANK];
      memcpy(local, digit, sizeof local);
      memcpy(extent, p->shape, sizeof extent);
      extent[p->cat_axis] = x->cat_extent;
      local[p->cat_axis] = ixj__iprog_emit(&lw.prog, IOP_SUB, lw.index, IPROG_NUW, digit[p->cat_axis],
                                           ixj__iprog_const(&lw.prog, lw.index, x->cat_start), -1, 0);
      src_off[k] = ixj__lower_point_offset(&lw, x, r, local, extent);
    }
  ixj_error err;
  if (ixj__lower_status(&lw, &err) != IXJ_OK) fail_msg("lowering: %s", err.message);
  uint64_t *v = malloc((size_t)lw.prog.count * sizeof *v);
  for (int64_t i = 0; i < p->count; i++) {
    uint64_t in = (uint64_t)i;
    assert_int_equal(ixj__iprog_eval(&lw.prog, &in, 1, v, NULL), IXJ_OK);
    out[i].dst = (int64_t)v[dst_off] + p->operand[0].runtime_offset;
    out[i].src = 0;
    int k = 1;
    if (p->op == IXJ_OP_CAT) {
      uint64_t c = v[digit[p->cat_axis]];
      while (k < p->num_operands - 1 &&
             !(c >= (uint64_t)p->operand[k].cat_start && c < (uint64_t)(p->operand[k].cat_start + p->operand[k].cat_extent)))
        k++;
    }
    if (p->op != IXJ_OP_FILL)
      out[i].src = ((int64_t)(p->operand[k].arg - 1) << 40) + (int64_t)v[src_off[k]] + p->operand[k].runtime_offset;
  }
  free(v);
  ixj__lower_dispose(&lw);
  return p->count;
}

/* The odometer from every point reaches the next one's digits. */
static void check_odometer(const ixj_plan *p, int64_t step) {
  lower lw;
  ixj__lower_init(&lw, p, LOWER_DIV_MAGIC);
  int r = p->rank, first[IXJ_MAX_RANK], cur[IXJ_MAX_RANK], next[IXJ_MAX_RANK];
  ixj__lower_unflatten(&lw, ixj__lower_input(&lw, lw.index, "n", 0), r, p->shape, (uint64_t)p->count - 1, first);
  for (int j = 0; j < r; j++) cur[j] = ixj__lower_input(&lw, lw.index, "d%d", j);
  ixj__lower_odometer(&lw, r, cur, p->shape, step, next);
  assert_int_equal(ixj__lower_status(&lw, NULL), IXJ_OK);
  uint64_t *v = malloc((size_t)lw.prog.count * sizeof *v), *w = malloc((size_t)lw.prog.count * sizeof *w);
  uint64_t in[1 + IXJ_MAX_RANK] = {0};
  for (int64_t i = 0; i + step < p->count; i += step) {
    in[0] = (uint64_t)i;
    assert_int_equal(ixj__iprog_eval(&lw.prog, in, 1 + r, v, NULL), IXJ_OK);
    for (int j = 0; j < r; j++) in[1 + j] = v[first[j]]; /* the digits of i */
    assert_int_equal(ixj__iprog_eval(&lw.prog, in, 1 + r, v, NULL), IXJ_OK);
    uint64_t want[1 + IXJ_MAX_RANK];
    want[0] = (uint64_t)(i + step);
    assert_int_equal(ixj__iprog_eval(&lw.prog, want, 1 + r, w, NULL), IXJ_OK);
    for (int j = 0; j < r; j++)
      if (v[next[j]] != w[first[j]])
        fail_msg("odometer from point %lld: digit %d is %llu, unflatten says %llu", (long long)i, j,
                 (unsigned long long)v[next[j]], (unsigned long long)w[first[j]]);
  }
  free(v);
  free(w);
  ixj__lower_dispose(&lw);
}

static void check_case(ixj_op_kind op, const char *dst_text, int num_srcs, const char *const *src_text, int axis) {
  ixj_ixfun *dst = parse_ok(dst_text), *srcs[IXJ_MAX_CAT_INPUTS];
  for (int k = 0; k < num_srcs; k++) srcs[k] = parse_ok(src_text[k]);
  static pair want[MAX_POINTS], got[MAX_POINTS];
  int64_t n = reference_pairs(dst, num_srcs, srcs, axis, want);
  assert_true(n > 0 && n <= MAX_POINTS);
  qsort(want, (size_t)n, sizeof *want, by_dst);
  for (int gpu = 0; gpu < 2; gpu++)
    for (int bits = 32; bits <= 64; bits += 32) {
      plan_request req = {.op = op, .elem_size = 4, .dst = dst, .num_srcs = num_srcs,
                          .srcs = (const ixj_ixfun *const *)srcs, .cat_axis = axis, .gpu = gpu};
      ixj_plan *p = malloc(sizeof *p);
      ixj_error err;
      if (ixj__plan_build(&req, p, &err) != IXJ_OK) fail_msg("%s: %s", dst_text, err.message);
      if (p->strategy == PLAN_EMPTY || p->strategy == PLAN_MEMCPY) {
        free(p);
        continue;
      }
      p->index_bits = bits; /* a space that fits 32 bits is valid in 64 too: both sequences get checked */
      for (int d = LOWER_DIV_MAGIC; d <= LOWER_DIV_RUNTIME; d++) {
        if (p->strategy == PLAN_CAT_PARTS) { /* each input's own copy plan into its slice */
          int64_t at = 0;
          ixj_plan *sub = malloc(sizeof *sub);
          for (int k = 0; k < p->num_parts; k++) {
            assert_int_equal(ixj__plan_part(p, k, sub, NULL), IXJ_OK);
            sub->index_bits = bits;
            at += lowered_pairs(sub, (lower_division)d, got + at);
          }
          free(sub);
          assert_int_equal(at, n);
        } else {
          assert_int_equal(lowered_pairs(p, (lower_division)d, got), n);
        }
        qsort(got, (size_t)n, sizeof *got, by_dst);
        for (int64_t i = 0; i < n; i++)
          if (got[i].dst != want[i].dst || (op != IXJ_OP_FILL && got[i].src != want[i].src))
            fail_msg("%s <- %s (%s, %d-bit, division %d): point %lld goes to (%lld, %lld), the index functions say "
                     "(%lld, %lld)",
                     dst_text, num_srcs ? src_text[0] : "fill", ixj__plan_strategy_name(p->strategy), bits, d,
                     (long long)i, (long long)got[i].dst, (long long)got[i].src, (long long)want[i].dst,
                     (long long)want[i].src);
      }
      if (p->strategy != PLAN_CAT_PARTS) {
        check_odometer(p, 1);
        if (p->shape[p->rank - 1] % 4 == 0) check_odometer(p, 4);
      }
      free(p);
    }
  ixj_ixfun_free(dst);
  for (int k = 0; k < num_srcs; k++) ixj_ixfun_free(srcs[k]);
}

static void copies(void **state) {
  (void)state;
  static const char *cases[][2] = {
      {"iota 37 45", "iota 45 37 | permute 1 0"},
      {"iota 37 45", "iota 45 37 | permute 1 0 | slice ::-1"},
      {"iota 7 9 11", "iota 11 9 7 | permute 2 1 0 | rotate 1 2 3"},
      {"iota 5 6 7 9", "iota 9 7 6 5 | permute 3 2 1 0 | slice ::-1"},
      {"iota 3 5 6 7 9", "iota 9 7 6 5 3 | permute 4 3 2 1 0 | rotate 1 1 1 1 1"},
      {"iota 3 5 4 7 2 3", "iota 3 2 7 4 5 3 | permute 5 4 3 2 1 0 | slice ::-1"},
      {"iota 12 20", "iota 20 12 | permute 1 0 | reshape 12 20"},                 /* a chain */
      {"iota 4 15", "iota 6 10 | permute 1 0 | reshape 4 15"},                   /* a chain that stays one */
      {"iota 6 20", "iota 10 12 | permute 1 0 | reshape 6 20"},                 /* refined: both sides split */
      {"iota 6 20", "iota 10 12 | rotate 3 0 | permute 1 0 | reshape 6 20"},    /* refined, a whole rotated dim */
      {"iota 6 20", "iota 10 12 | rotate 0 5 | permute 1 0 | reshape 6 20"},    /* a rotated dim to split: a chain */
      {"iota 2 3 20 | permute 2 0 1", "iota 4 30 | permute 1 0 | reshape 20 2 3"}, /* refined into a 3-D permute */
      {"iota 3 20 | slice ::-1", "iota 5 12 | permute 1 0 | rotate 2 1 | reshape 3 20"},
      {"iota 10 12 | permute 1 0", "iota 12 10 | rotate 3 7"},
      {"iota 64 33", "iota 66 64 | slice ::2 | permute 1 0"},
      {"iota 16 16", "iota 16 | expand 16 16"},                                  /* a zero stride */
      {"iota 100", "iota 300 | slice ::-3"},
      {"iota 4 5 6", "iota 6 4 5 | permute 1 2 0"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const char *src[1] = {cases[k][1]};
    check_case(IXJ_OP_COPY, cases[k][0], 1, src, 0);
  }
}

static void fills(void **state) {
  (void)state;
  check_case(IXJ_OP_FILL, "iota 1000", 0, NULL, 0);
  check_case(IXJ_OP_FILL, "iota 30 40 | slice ::-1 ::3", 0, NULL, 0);
  check_case(IXJ_OP_FILL, "iota 6 7 8 | permute 2 0 1 | rotate 1 2 3", 0, NULL, 0);
  check_case(IXJ_OP_FILL, "iota 10 12 | permute 1 0 | reshape 6 20", 0, NULL, 0); /* a refined chain */
}

static void cats(void **state) {
  (void)state;
  const char *two[] = {"iota 4 3", "iota 7 4 | permute 1 0"};
  check_case(IXJ_OP_CAT, "iota 4 10", 2, two, 1);
  const char *three[] = {"iota 2 6 5", "iota 5 6 3 | permute 2 1 0", "iota 4 6 5 | slice ::-1"};
  check_case(IXJ_OP_CAT, "iota 9 6 5", 3, three, 0);
  const char *chain[] = {"iota 6 4 | permute 1 0 | reshape 3 8", "iota 3 5"};
  check_case(IXJ_OP_CAT, "iota 3 13", 2, chain, 1);
}

/* Chains whose factors line up plan as the permutes they are; plain
 * reshapes whose factors do not, in flat order (the last three: a rotated
 * tail dim kept whole, then a rotated transpose in two parts; a transposed
 * slice; a rotation the common shape would split, which keeps the chain). */
static void refined_chains(void **state) {
  (void)state;
  static const char *cases[][3] = {
      {"iota 64 128", "iota 128 64 | permute 1 0 | reshape 64 128", "tiled"},
      {"iota 32 256", "iota 128 64 | permute 1 0 | reshape 32 256", "tiled"},
      {"iota 32 512 | slice : ::2", "iota 128 64 | permute 1 0 | reshape 32 256", "tiled"},
      {"iota 6 20", "iota 10 12 | rotate 0 5 | permute 1 0 | reshape 6 20", "cat_parts"}, /* then split_boxes */
      {"iota 63 64", "iota 64 64 | permute 1 0 | slice : 1: | reshape 63 64", "tiled"},
      {"iota 6 20 | rotate 0 3", "iota 10 12 | permute 1 0 | reshape 6 20", "general chain"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    ixj_ixfun *d = parse_ok(cases[k][0]), *s = parse_ok(cases[k][1]);
    const ixj_ixfun *srcs[1] = {s};
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = 4, .dst = d, .num_srcs = 1, .srcs = srcs};
    ixj_plan p;
    assert_int_equal(ixj__plan_build(&req, &p, NULL), IXJ_OK);
    bool chain = strstr(cases[k][2], " chain") != NULL;
    assert_int_equal(strncmp(ixj__plan_strategy_name(p.strategy), cases[k][2], strcspn(cases[k][2], " ")), 0);
    assert_int_equal(p.operand[1].num_tail, chain ? 1 : 0);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
}

/* The evaluator refuses what it cannot run, and the builder's folds hold. */
static void program_rules(void **state) {
  (void)state;
  iprog g = {0};
  int a = ixj__iprog_input(&g, IPROG_U32, 0);
  int zero = ixj__iprog_const(&g, IPROG_U32, 0), one = ixj__iprog_const(&g, IPROG_U32, 1);
  assert_int_equal(ixj__iprog_emit(&g, IOP_ADD, IPROG_U32, 0, a, zero, -1, 0), a);
  assert_int_equal(ixj__iprog_emit(&g, IOP_MUL, IPROG_U32, 0, one, a, -1, 0), a);
  int64_t k;
  int sum = ixj__iprog_emit(&g, IOP_ADD, IPROG_U32, 0, ixj__iprog_const(&g, IPROG_U32, 0xffffffff), one, -1, 0);
  assert_true(ixj__iprog_is_const(&g, sum, &k));
  assert_int_equal(k, 0); /* wraps in 32 bits */
  int hi = ixj__iprog_emit(&g, IOP_MULHI, IPROG_U32, 0, a, ixj__iprog_const(&g, IPROG_U32, 0x80000000u), -1, 0);
  uint64_t v[16], in = 7;
  assert_int_equal(ixj__iprog_eval(&g, &in, 1, v, NULL), IXJ_OK);
  assert_int_equal(v[hi], 3);
  ixj_error err;
  assert_int_equal(ixj__iprog_eval(&g, &in, 0, v, &err), IXJ_ERR_INTERNAL); /* input 0 not given */
  free(g.inst);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(copies), cmocka_unit_test(fills), cmocka_unit_test(cats), cmocka_unit_test(refined_chains),
                                     cmocka_unit_test(program_rules)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

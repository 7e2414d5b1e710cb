/* Unit tests of the queries, equality and anti-unification. */
#include "test_util.h"

static void test_index(void **state) {
  (void)state;
  ixj_ixfun *f = parse_ok("iota 3 4 | permute 1 0");
  int64_t off;
  ixj_error err;
  assert_int_equal(ixj_ixfun_index(f, 2, ARR(3, 2), &off, &err), IXJ_OK);
  assert_int_equal(off, 11);
  assert_int_equal(ixj_ixfun_index(f, 1, ARR(3), &off, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_ixfun_index(f, 2, ARR(4, 0), &off, &err), IXJ_ERR_OUT_OF_RANGE);
  assert_int_equal(ixj_ixfun_index(f, 2, ARR(0, -1), &off, &err), IXJ_ERR_OUT_OF_RANGE);
  assert_non_null(strstr(err.message, "out of range for dim 1"));
  int64_t shape[2];
  ixj_ixfun_shape(f, shape);
  assert_int_equal(shape[0], 4);
  assert_int_equal(shape[1], 3);
  assert_int_equal(ixj_ixfun_rank(f), 2);
  assert_int_equal(ixj_ixfun_num_points(f), 12);
  assert_null(ixj_ixfun_lmad(f, 1));
  ixj_ixfun_free(f);
}

/* The range encloses every point and, for one LMAD, is reached. */
static void check_range(const char *text, int64_t lo, int64_t hi, bool exact) {
  static int64_t p[1 << 16];
  ixj_ixfun *f = parse_ok(text);
  ixj_offset_range r = ixj_ixfun_offset_range(f);
  int64_t n = points_of(f, p, 1 << 16), mn = INT64_MAX, mx = INT64_MIN;
  for (int64_t k = 0; k < n; k++) {
    mn = p[k] < mn ? p[k] : mn;
    mx = p[k] > mx ? p[k] : mx;
  }
  assert_false(r.empty);
  assert_true(r.min <= mn && mx <= r.max);
  assert_int_equal(r.min, lo);
  assert_int_equal(r.max, hi);
  assert_int_equal(r.exact, exact);
  if (exact) {
    assert_int_equal(r.min, mn);
    assert_int_equal(r.max, mx);
  }
  ixj_ixfun_free(f);
}

static void test_offset_range(void **state) {
  (void)state;
  check_range("iota 3 4 | slice 1:3 1:3", 5, 10, true);
  check_range("iota 3 4 | slice ::-1 ::-2 | rotate 1 1", 1, 11, true);
  check_range("strided shape=3,2 strides=-5,7 offset=10", 0, 17, true);
  check_range("iota 6 | rotate 2 | slice 3:6", 0, 5, false); /* chain: points 5 0 1 */
  check_range("iota 4 6 | permute 1 0 | reshape 24 | slice 5:9", 2, 19, false); /* points 7 13 19 2 */
}

static void test_linear_and_direct(void **state) {
  (void)state;
  int64_t off;
  int perm[3];
  int64_t shape[3];
  ixj_ixfun *f = parse_ok("iota 3 4 offset=5");
  assert_true(ixj_ixfun_linear_with_offset(f, 8, &off));
  assert_int_equal(off, 40);
  assert_false(ixj_ixfun_is_linear(f));
  assert_false(ixj_ixfun_is_direct(f));
  assert_false(ixj_ixfun_linear_with_offset(f, INT64_MAX, &off)); /* offset * elem size overflows */
  ixj_ixfun_free(f);
  f = parse_ok("iota 3 4 | slice 1:");
  assert_true(ixj_ixfun_linear_with_offset(f, 1, &off));
  assert_int_equal(off, 4);
  ixj_ixfun_free(f);
  f = parse_ok("iota 3 4");
  assert_true(ixj_ixfun_is_direct(f));
  assert_true(ixj_ixfun_is_linear(f));
  ixj_ixfun_free(f);
  f = parse_ok("iota 3 4 | reshape 12"); /* linear, but its rank is not the base's */
  assert_true(ixj_ixfun_is_linear(f));
  assert_false(ixj_ixfun_is_direct(f));
  ixj_ixfun_free(f);
  /* the points form an interval, but not in row-major order */
  f = parse_ok("strided shape=2,3 strides=1,2");
  assert_true(ixj_ixfun_is_contiguous(f));
  assert_false(ixj_ixfun_linear_with_offset(f, 1, &off));
  ixj_ixfun_free(f);
  /* Futhark's example: iota [3,4,5] permuted [2,0,1] */
  f = parse_ok("iota 3 4 5 | permute 2 0 1");
  assert_false(ixj_ixfun_is_linear(f));
  assert_true(ixj_ixfun_rearrange_with_offset(f, 4, &off, perm, shape));
  assert_int_equal(off, 0);
  assert_int_equal(perm[0], 2);
  assert_int_equal(perm[1], 0);
  assert_int_equal(perm[2], 1);
  assert_int_equal(shape[0], 5);
  assert_int_equal(shape[1], 3);
  assert_int_equal(shape[2], 4);
  ixj_ixfun_free(f);
  f = parse_ok("iota 3 4 | slice : 1:3 | permute 1 0");
  assert_false(ixj_ixfun_rearrange_with_offset(f, 4, &off, perm, shape));
  ixj_ixfun_free(f);
  f = parse_ok("iota 4 6 | permute 1 0 | reshape 24");
  assert_false(ixj_ixfun_linear_with_offset(f, 1, &off));
  assert_false(ixj_ixfun_rearrange_with_offset(f, 1, &off, NULL, NULL));
  ixj_ixfun_free(f);
}

static void check_contiguous(const char *text, bool want) {
  ixj_ixfun *f = parse_ok(text);
  if (ixj_ixfun_is_contiguous(f) != want) fail_msg("'%s': contiguous should be %d", text, want);
  ixj_ixfun_free(f);
}

static void test_contiguity(void **state) {
  (void)state;
  check_contiguous("iota 3 4", true);
  check_contiguous("iota 3 4 | slice 1:3", true);
  check_contiguous("iota 3 4 | slice : 1:3", false);
  check_contiguous("iota 3 4 | slice ::-1 | permute 1 0 | rotate 1 2", true);
  check_contiguous("iota 3 | expand 4 3", true);
  check_contiguous("iota 0 5 | slice : 1:2", true);
  check_contiguous("iota 4 6 | permute 1 0 | reshape 24", true);          /* covers the whole next LMAD */
  check_contiguous("iota 4 6 | permute 1 0 | reshape 24 | slice :10", false);
}

static void test_monotonicity(void **state) {
  (void)state;
  static const struct {
    const char *text;
    ixj_monotonicity want;
  } cases[] = {
      {"iota 3 4", IXJ_MONO_INC},
      {"iota 3 4 | slice ::-1 ::-1", IXJ_MONO_DEC},
      {"iota 3 4 | slice ::-1", IXJ_MONO_UNKNOWN},
      {"iota 3 4 | rotate 1 0", IXJ_MONO_UNKNOWN},
      {"iota 3 | expand 2 3", IXJ_MONO_INC},
      {"iota 3 4 | permute 1 0", IXJ_MONO_INC},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    ixj_ixfun *f = parse_ok(cases[k].text);
    assert_int_equal(ixj_ixfun_monotonicity(f), cases[k].want);
    ixj_ixfun_free(f);
  }
  ixj_ixfun *f = parse_ok("iota 3 | slice ::-1 | expand 2 3");
  assert_int_equal(ixj_lmad_dim_monotonicity(ixj_ixfun_lmad(f, 0), 0), IXJ_MONO_UNKNOWN);
  assert_int_equal(ixj_lmad_dim_monotonicity(ixj_ixfun_lmad(f, 0), 1), IXJ_MONO_DEC);
  ixj_ixfun_free(f);
}

static void test_equality(void **state) {
  (void)state;
  ixj_ixfun *a = parse_ok("iota 3 4 | permute 1 0"), *b = parse_ok("strided shape=4,3 strides=1,4");
  ixj_ixfun *c = parse_ok("iota 3 4 | permute 1 0 | slice : ::1"), *d = parse_ok("iota 5 6 | permute 1 0");
  assert_true(ixj_ixfun_equal(a, c));
  assert_false(ixj_ixfun_equal(a, b)); /* same points, different structure and base */
  assert_same_points(a, b);
  assert_true(ixj_ixfun_close_enough(a, d));
  assert_false(ixj_ixfun_close_enough(a, b));
  ixj_ixfun *e = NULL;
  assert_int_equal(ixj_ixfun_clone(a, &e, NULL), IXJ_OK);
  assert_true(ixj_ixfun_equal(a, e));
  ixj_ixfun_free(a);
  ixj_ixfun_free(b);
  ixj_ixfun_free(c);
  ixj_ixfun_free(d);
  ixj_ixfun_free(e);
}

static void check_generalize(const char *ta, const char *tb, const char *want, int holes) {
  ixj_ixfun *a = parse_ok(ta), *b = parse_ok(tb), *ia = NULL, *ib = NULL;
  ixj_ixfun_general *g = NULL;
  ixj_error err;
  char buf[1024];
  int64_t va[64], vb[64];
  if (ixj_ixfun_generalize(a, b, &g, &err) != IXJ_OK) fail_msg("generalize: %s", err.message);
  ixj_general_format(g, buf, sizeof buf);
  assert_string_equal(buf, want);
  assert_int_equal(ixj_general_num_holes(g), holes);
  for (int k = 0; k < holes; k++) ixj_general_hole(g, k, &va[k], &vb[k]);
  assert_int_equal(ixj_general_instantiate(g, va, &ia, &err), IXJ_OK);
  assert_int_equal(ixj_general_instantiate(g, vb, &ib, &err), IXJ_OK);
  assert_true(ixj_ixfun_equal(ia, a));
  assert_true(ixj_ixfun_equal(ib, b));
  ixj_general_free(g);
  ixj_ixfun_free(a);
  ixj_ixfun_free(b);
  ixj_ixfun_free(ia);
  ixj_ixfun_free(ib);
}

static void test_generalize(void **state) {
  (void)state;
  check_generalize("iota 4 6", "iota 5 7",
                   "{base: [?0, ?1]; contiguous: true; LMADs: [{offset: 0; strides: [?1, 1]; rotates: [0, 0]; "
                   "shape: [?0, ?1]; permutation: [0, 1]; monotonicity: [Inc, Inc]}]}",
                   2);
  check_generalize("iota 10 10 | slice 2:5", "iota 10 10 | slice 5:8",
                   "{base: [10, 10]; contiguous: true; LMADs: [{offset: ?0; strides: [10, 1]; rotates: [0, 0]; "
                   "shape: [3, 10]; permutation: [0, 1]; monotonicity: [Inc, Inc]}]}",
                   1);
  check_generalize("iota 6 6", "iota 7 7",
                   "{base: [?0, ?0]; contiguous: true; LMADs: [{offset: 0; strides: [?0, 1]; rotates: [0, 0]; "
                   "shape: [?0, ?0]; permutation: [0, 1]; monotonicity: [Inc, Inc]}]}",
                   1);
  ixj_ixfun *a = parse_ok("iota 4 6"), *b = parse_ok("iota 4 6 | permute 1 0"), *c = parse_ok("iota 4 6 | reshape 24");
  ixj_ixfun *d = parse_ok("iota 4 6 | permute 1 0 | reshape 24"), *e = parse_ok("iota 4 6 | slice ::-1");
  ixj_ixfun *h = parse_ok("iota 4 6 | slice : 1:3");
  ixj_ixfun_general *g = NULL;
  ixj_error err;
  assert_int_equal(ixj_ixfun_generalize(a, b, &g, &err), IXJ_ERR_MISMATCH);
  assert_non_null(strstr(err.message, "permutations differ"));
  assert_int_equal(ixj_ixfun_generalize(a, c, &g, &err), IXJ_ERR_MISMATCH);
  assert_int_equal(ixj_ixfun_generalize(a, d, &g, &err), IXJ_ERR_MISMATCH);
  assert_non_null(strstr(err.message, "one LMAD"));
  assert_int_equal(ixj_ixfun_generalize(a, e, &g, &err), IXJ_ERR_MISMATCH);
  assert_non_null(strstr(err.message, "monotonicity"));
  assert_int_equal(ixj_ixfun_generalize(a, h, &g, &err), IXJ_ERR_MISMATCH);
  assert_non_null(strstr(err.message, "contiguous"));
  assert_null(g);
  ixj_ixfun_free(a);
  ixj_ixfun_free(b);
  ixj_ixfun_free(c);
  ixj_ixfun_free(d);
  ixj_ixfun_free(e);
  ixj_ixfun_free(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_index),      cmocka_unit_test(test_offset_range), cmocka_unit_test(test_linear_and_direct),
      cmocka_unit_test(test_contiguity), cmocka_unit_test(test_monotonicity), cmocka_unit_test(test_equality),
      cmocka_unit_test(test_generalize),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Bounded analysis: a generator of worst cases for the exact range check of
 * LMAD chains whose range enclosures are loose (issue 15: a 7.5 KB chain of
 * 64 LMADs took 150 s to parse, the walk ran once per link and again on every
 * copy). Now one walk per index function, within a budget shared by one text,
 * kept on the handle. The time bound is the harness's: ctest's TIMEOUT for
 * this test, never a timed assertion.
 *
 * The chain: the head reaches {r * 2C + c : r < R, c < C}, half of every
 * 2C-block; each further LMAD has shape [R, 2, C] and strides [2C, 2^40, 1],
 * so the positions the chain really reaches (middle digit 0) map to that same
 * set, while the enclosure of the interval [0, 2RC) takes in the middle digit
 * 1 and its offsets of 2^40. */
#include "ixfun_internal.h"
#include "test_util.h"

#define FAR (INT64_C(1) << 40)

static void loose_chain(int links, int64_t rows, int64_t cols, ixj_lmad *l) {
  memset(l, 0, (size_t)links * sizeof *l);
  l[0].rank = 2;
  l[0].shape[0] = rows, l[0].shape[1] = cols;
  l[0].stride[0] = 2 * cols, l[0].stride[1] = 1;
  l[0].perm[0] = 0, l[0].perm[1] = 1;
  for (int k = 1; k < links; k++) {
    l[k].rank = 3;
    l[k].shape[0] = rows, l[k].shape[1] = 2, l[k].shape[2] = cols;
    l[k].stride[0] = 2 * cols, l[k].stride[1] = FAR, l[k].stride[2] = 1;
    for (int j = 0; j < 3; j++) l[k].perm[j] = j;
  }
}

/* The chain in Futhark's format (what a text entry point reads). */
static char *loose_chain_text(int links, int64_t rows, int64_t cols) {
  size_t cap = 400 + (size_t)links * 200, n = 0;
  char *s = malloc(cap);
  assert_non_null(s);
  n += (size_t)snprintf(s + n, cap - n, "{base: [%lld]; contiguous: false; LMADs: [", (long long)(2 * rows * cols));
  n += (size_t)snprintf(s + n, cap - n,
                        "{offset: 0; strides: [%lld, 1]; rotates: [0, 0]; shape: [%lld, %lld]; permutation: [0, 1]; "
                        "monotonicity: [Inc, Inc]}",
                        (long long)(2 * cols), (long long)rows, (long long)cols);
  for (int k = 1; k < links; k++)
    n += (size_t)snprintf(s + n, cap - n,
                          ", {offset: 0; strides: [%lld, %lld, 1]; rotates: [0, 0, 0]; shape: [%lld, 2, %lld]; "
                          "permutation: [0, 1, 2]; monotonicity: [Inc, Inc, Inc]}",
                          (long long)(2 * cols), (long long)FAR, (long long)rows, (long long)cols);
  snprintf(s + n, cap - n, "]}");
  assert_true(n < cap);
  return s;
}

static int range_state(const ixj_ixfun *f) { return atomic_load(&f->range_state); }

/* The probe's chain: 2^24 points, 64 LMADs. Refused at once (LIMIT), never
 * walked: from the C API and from text. */
static void test_probe_chain_is_refused(void **state) {
  (void)state;
  ixj_lmad l[64];
  ixj_ixfun *f = NULL;
  ixj_error err;
  int64_t base = INT64_C(2) << 24;
  loose_chain(64, 4096, 4096, l);
  assert_int_equal(ixj_ixfun_from_lmads(64, l, 1, &base, &f, &err), IXJ_ERR_LIMIT);
  assert_non_null(strstr(err.message, "cannot verify"));
  assert_null(f);
  char *text = loose_chain_text(64, 4096, 4096);
  assert_true(strlen(text) < 65536);
  parse_fails(text, IXJ_ERR_LIMIT, "cannot verify");
  free(text);
}

/* Every size of the generated family (points x links from far below to far
 * above the budget): each accepted or refused, the accepted ones exact. */
static void test_generated_family(void **state) {
  (void)state;
  int links[] = {2, 3, 8, 16, 33, 64};
  int64_t sides[] = {1, 2, 16, 64, 181, 256, 1024, 4096};
  for (size_t a = 0; a < sizeof links / sizeof *links; a++)
    for (size_t b = 0; b < sizeof sides / sizeof *sides; b++) {
      int64_t side = sides[b], points = side * side;
      char *text = loose_chain_text(links[a], side, side);
      ixj_ixfun *f = NULL;
      ixj_error err;
      ixj_status st = ixj_ixfun_parse(text, &f, &err);
      free(text);
      if (links[a] < 3 || points * links[a] <= IXJ__EXACT_BUDGET) { /* two LMADs: the head's range is exact */
        if (st != IXJ_OK) fail_msg("%d links, %lld points: %s", links[a], (long long)points, err.message);
        ixj_offset_range r;
        if (points * links[a] > IXJ__EXACT_BUDGET) { /* two LMADs beyond the budget: made, not walked */
          assert_false(ixj__ixfun_exact_range(f, NULL, &r));
          ixj_ixfun_free(f);
          continue;
        }
        assert_true(ixj__ixfun_exact_range(f, NULL, &r));
        assert_true(r.exact);
        assert_int_equal(r.min, 0);
        assert_int_equal(r.max, (side - 1) * 2 * side + side - 1);
        /* the enclosure is loose but never too small */
        ixj_offset_range e = ixj_ixfun_offset_range(f);
        assert_true(e.min <= r.min && e.max >= r.max);
        ixj_ixfun_free(f);
      } else {
        assert_int_equal(st, IXJ_ERR_LIMIT);
      }
    }
}

/* A value that really leaves the next LMAD is still found by the walk. */
static void test_walk_finds_a_value_outside(void **state) {
  (void)state;
  ixj_lmad l[8];
  ixj_ixfun *f = NULL;
  ixj_error err;
  int64_t base = 2 * 32 * 32;
  loose_chain(8, 32, 32, l);
  l[5].stride[2] = 2; /* LMAD 5 reaches positions with middle digit 1 of LMAD 6 */
  assert_int_equal(ixj_ixfun_from_lmads(8, l, 1, &base, &f, &err), IXJ_ERR_OUT_OF_RANGE);
  assert_non_null(strstr(err.message, "LMAD 6 reaches offset 1099511627776 outside the 2048 points of LMAD 7"));
}

/* The exact range is walked once and kept on the handle: a literal chain
 * has it from its check, a chain made by an operation from its first use;
 * every copy after that reads it (validation never walks per call). */
static void test_range_kept_on_the_handle(void **state) {
  (void)state;
  char *text = loose_chain_text(64, 32, 32);
  ixj_ixfun *f = parse_ok(text);
  free(text);
  assert_int_equal(range_state(f), 1); /* kept by the literal's check */
  ixj_ixfun *g = NULL;
  ixj_error err;
  assert_int_equal(ixj_ixfun_permute(f, 2, (int[]){1, 0}, &g, &err), IXJ_OK);
  assert_false(ixj_ixfun_offset_range(g).exact);
  assert_int_equal(range_state(g), 0); /* nothing walked yet */
  ixj_ixfun *d = parse_ok("iota 32 32");
  static int32_t src[2016], dst[1024]; /* exactly the 2016 elements the points reach */
  for (int k = 0; k < 2016; k++) src[k] = k;
  ixj_context *ctx;
  ixj_context_options o = {.num_threads = 1, .disk_cache = -1};
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  ixj_operand od = {dst, sizeof dst, d}, os = {src, sizeof src, g};
  for (int call = 0; call < 3; call++) {
    assert_int_equal(ixj_copy(ctx, &od, &os, 4, NULL, &err), IXJ_OK);
    assert_int_equal(range_state(g), 1); /* walked on the first call, kept */
  }
  assert_int_equal(dst[1 * 32 + 2], 2 * 64 + 1); /* dst[i][j] = src-chain at (j, i) */
  os.size_bytes = sizeof src - 1; /* one byte short: still refused */
  assert_int_equal(ixj_copy(ctx, &od, &os, 4, NULL, &err), IXJ_ERR_OUT_OF_RANGE);
  /* 32 elements: the enclosure of 64 links once came out as 0..31 (range_over
   * beyond the next LMAD's points) and this copy read 2016 elements of it */
  os.size_bytes = 32 * sizeof(int32_t);
  assert_int_equal(ixj_copy(ctx, &od, &os, 4, NULL, &err), IXJ_ERR_OUT_OF_RANGE);
  ixj_context_destroy(ctx);
  ixj_ixfun_free(d);
  ixj_ixfun_free(g);
  ixj_ixfun_free(f);
}

/* One text shares one budget: three literals that each fit it alone (and
 * that the C API, a budget per call, rebases fine), nested in rebases in one
 * text, cannot together walk more than it: LIMIT, at once. */
static void test_one_budget_per_text(void **state) {
  (void)state;
  int64_t r = 256, c = 256; /* walks of 3 x 2^16, 3 x 2^17, 3 x 2^18 evaluations */
  char *t[3];
  ixj_ixfun *f[3];
  for (int k = 0; k < 3; k++) {
    t[k] = loose_chain_text(3, r << k, c);
    f[k] = parse_ok(t[k]);
  }
  ixj_ixfun *inner = NULL, *outer = NULL;
  ixj_error err;
  assert_int_equal(ixj_ixfun_rebase(f[1], f[2], &inner, &err), IXJ_OK);
  assert_int_equal(ixj_ixfun_rebase(f[0], inner, &outer, &err), IXJ_OK);
  size_t n = strlen(t[0]) + strlen(t[1]) + strlen(t[2]) + 64;
  char *text = malloc(n);
  assert_non_null(text);
  snprintf(text, n, "%s | rebase (%s | rebase (%s))", t[0], t[1], t[2]);
  parse_fails(text, IXJ_ERR_LIMIT, "evaluations left");
  free(text);
  for (int k = 0; k < 3; k++) {
    free(t[k]);
    ixj_ixfun_free(f[k]);
  }
  ixj_ixfun_free(inner);
  ixj_ixfun_free(outer);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_probe_chain_is_refused),
      cmocka_unit_test(test_generated_family),
      cmocka_unit_test(test_walk_finds_a_value_outside),
      cmocka_unit_test(test_range_kept_on_the_handle),
      cmocka_unit_test(test_one_budget_per_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

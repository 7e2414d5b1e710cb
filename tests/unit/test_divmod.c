/* Unit tests of the bound-aware division: exhaustive over every n <= B for
 * many (d, B) with B <= 2^24, witness values and random samples for large B
 * and W = 64, minimality of the chosen shift, and the remainder and direct
 * coordinate forms. The reference is hardware division. */
#include "test_util.h"

typedef unsigned __int128 u128;

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Du;
}
static uint64_t random_below(uint64_t n) { return n ? next_random() % n : 0; }
/* log-uniform: small and huge values alike */
static uint64_t random_bits(unsigned max_bits) {
  unsigned b = 1 + (unsigned)random_below(max_bits);
  return b >= 64 ? next_random() : next_random() & (((uint64_t)1 << b) - 1);
}

static ixj_divider make(uint64_t d, uint64_t b, unsigned w) {
  ixj_divider dv;
  ixj_error err;
  if (ixj_divider_make(d, b, w, &dv, &err) != IXJ_OK) fail_msg("d=%llu B=%llu W=%u: %s", (unsigned long long)d, (unsigned long long)b, w, err.message);
  return dv;
}

/* Every n <= B, with the reference quotient kept incrementally. */
static void exhaustive(uint64_t d, uint64_t b, unsigned w) {
  ixj_divider dv = make(d, b, w);
  uint64_t q = 0, r = 0;
  for (uint64_t n = 0; n <= b; n++) {
    if (ixj_divider_apply(&dv, n) != q)
      fail_msg("d=%llu B=%llu W=%u form=%s: n=%llu gives %llu, want %llu", (unsigned long long)d, (unsigned long long)b,
               w, ixj_div_form_name(dv.form), (unsigned long long)n, (unsigned long long)ixj_divider_apply(&dv, n),
               (unsigned long long)q);
    if (++r == d) r = 0, q++;
  }
}

static void test_exhaustive(void **state) {
  (void)state;
  for (uint64_t d = 1; d <= 200; d++) exhaustive(d, d + random_below(1u << 20), 32);
  static const uint64_t big[] = {3, 7, 11, 25, 100, 641, 1000, 65535, 65537, 16777215};
  for (size_t k = 0; k < sizeof big / sizeof *big; k++) exhaustive(big[k], (1u << 24) - (k & 1), 32);
  for (uint64_t d = 1; d <= 60; d++) exhaustive(d, random_below(1u << 18), 64);
  exhaustive(7, 0, 32);
  exhaustive(5, 3, 32); /* B < d: q is always 0 */
}

/* The witnesses named by the design: n_c, n_0 and their neighbours, 0, d-1,
 * d, B, plus random samples. */
static void witnesses(uint64_t d, uint64_t b, unsigned w) {
  ixj_divider dv = make(d, b, w);
  uint64_t nc = b - ((b % d + 1) % d), n0 = d * (b / d);
  uint64_t cand[] = {0, 1, d - 1, d, d + 1, b, b - 1, nc, nc + 1, n0, n0 - 1, b - b % d};
  for (size_t k = 0; k < sizeof cand / sizeof *cand; k++)
    if (cand[k] <= b && ixj_divider_apply(&dv, cand[k]) != cand[k] / d)
      fail_msg("d=%llu B=%llu W=%u form=%s: witness n=%llu wrong", (unsigned long long)d, (unsigned long long)b, w,
               ixj_div_form_name(dv.form), (unsigned long long)cand[k]);
  for (int k = 0; k < 200; k++) {
    uint64_t n = b == UINT64_MAX ? next_random() : random_below(b + 1);
    if (ixj_divider_apply(&dv, n) != n / d)
      fail_msg("d=%llu B=%llu W=%u: n=%llu wrong", (unsigned long long)d, (unsigned long long)b, w, (unsigned long long)n);
  }
}

static void test_witnesses(void **state) {
  (void)state;
  int fixups = 0, incs = 0;
  for (int k = 0; k < 20000; k++) {
    unsigned w = k % 2 ? 64 : 32;
    uint64_t b = random_bits(w), d = 1 + random_bits(w);
    if (w == 32 && d > UINT32_MAX) d = UINT32_MAX;
    if (k % 7 == 0) b = w == 32 ? UINT32_MAX : UINT64_MAX;
    if (k % 7 == 1) b = w == 32 ? UINT32_MAX - 1 : UINT64_MAX - 1;
    witnesses(d, b, w);
    ixj_divider dv = make(d, b, w);
    fixups += dv.form == IXJ_DIV_FIXUP;
    incs += dv.form == IXJ_DIV_MUL_INC;
  }
  assert_true(fixups > 0); /* every form was exercised */
  assert_true(incs > 0);
  witnesses(7, UINT32_MAX, 32);
  witnesses(7, UINT64_MAX, 64);
  assert_int_equal(make(7, UINT32_MAX, 32).form, IXJ_DIV_FIXUP);
  assert_int_equal(make(7, UINT64_MAX, 64).form, IXJ_DIV_FIXUP);
  assert_int_equal(make((UINT64_C(1) << 63) + 1, UINT64_MAX, 64).form != IXJ_DIV_SHIFT, 1);
  witnesses((UINT64_C(1) << 63) + 1, UINT64_MAX, 64);
  witnesses(UINT64_MAX, UINT64_MAX, 64);
  witnesses(UINT32_MAX, UINT32_MAX, 32);
}

/* floor(n * M / 2^k) for the candidate of one form at shift k. */
static bool candidate_exact(ixj_div_form form, uint64_t d, uint64_t b, unsigned w, unsigned k) {
  u128 p = (u128)1 << k, m = form == IXJ_DIV_MUL ? (p + d - 1) / d : p / d;
  if (m >> w) return false; /* needs a W+1-bit multiplier */
  uint64_t nc = b - ((b % d + 1) % d), n0 = d * (b / d);
  uint64_t cand[] = {nc, n0, b, b - 1, n0 ? n0 - 1 : 0};
  for (size_t j = 0; j < sizeof cand / sizeof *cand; j++) {
    uint64_t n = cand[j];
    if (n > b) continue;
    u128 x = form == IXJ_DIV_MUL ? (u128)n : (u128)n + 1;
    if ((uint64_t)((x * m) >> k) != n / d) return false;
  }
  return true;
}

static void test_minimal_shift(void **state) {
  (void)state;
  int checked = 0;
  for (int k = 0; k < 20000; k++) {
    unsigned w = k % 2 ? 64 : 32;
    uint64_t b = random_bits(w), d = 2 + random_bits(w - 1);
    if (d > b) continue;
    ixj_divider dv = make(d, b, w);
    if (dv.form != IXJ_DIV_MUL && dv.form != IXJ_DIV_MUL_INC) continue;
    assert_true(dv.shift >= w);
    if (dv.shift > w && candidate_exact(dv.form, d, b, w, dv.shift - 1))
      fail_msg("d=%llu B=%llu W=%u: shift %u is not minimal", (unsigned long long)d, (unsigned long long)b, w, dv.shift);
    checked++;
  }
  assert_true(checked > 2000);
  /* the research note's example: d = 7, B = 10^8 is one multiply-high */
  ixj_divider dv = make(7, 100000000, 32);
  assert_int_equal(dv.form, IXJ_DIV_MUL);
  assert_int_equal(dv.multiplier, 613566757);
  assert_int_equal(dv.shift, 32);
  assert_int_equal(dv.cost, 1);
}

static void test_no_fixup_below_2_31(void **state) {
  (void)state;
  for (int k = 0; k < 200000; k++) {
    uint64_t b = random_bits(31), d = 1 + random_below(UINT32_MAX);
    if (k % 3 == 0) d = 1 + random_bits(31);
    ixj_divider dv = make(d, b, 32);
    if (dv.form == IXJ_DIV_FIXUP || dv.form == IXJ_DIV_MUL_INC)
      fail_msg("d=%llu B=%llu: form %s below 2^31", (unsigned long long)d, (unsigned long long)b, ixj_div_form_name(dv.form));
    /* and round-up plus round-down cover every divisor up to 2^32 - 2 */
    dv = make(d, b | 0x80000000u, 32);
    assert_true(dv.form != IXJ_DIV_FIXUP);
  }
}

static void test_errors(void **state) {
  (void)state;
  ixj_divider dv;
  ixj_remainder rm;
  ixj_digit dg;
  ixj_error err;
  assert_int_equal(ixj_divider_make(0, 10, 32, &dv, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "division by zero"));
  assert_int_equal(ixj_divider_make(3, 10, 16, &dv, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_divider_make(3, UINT64_C(1) << 32, 32, &dv, &err), IXJ_ERR_OUT_OF_RANGE);
  assert_int_equal(ixj_divider_make(UINT64_C(1) << 32, 5, 32, &dv, &err), IXJ_ERR_OUT_OF_RANGE);
  assert_int_equal(ixj_remainder_make(0, 10, 32, &rm, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_digit_make(3, 0, 10, 32, &dg, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_string_equal(ixj_div_form_name(IXJ_DIV_MUL_INC), "mul_inc");
  char m[48];
  dv = make(7, UINT64_MAX, 64);
  ixj_divider_multiplier_text(&dv, m);
  assert_string_equal(m, "21081993227096630419"); /* ceil(2^67 / 7) > 2^64 */
}

static void test_remainder(void **state) {
  (void)state;
  int seen[4] = {0};
  for (uint64_t d = 1; d <= 300; d++) {
    for (int rep = 0; rep < 2; rep++) {
      unsigned w = rep ? 64 : 32;
      uint64_t b = d < 5 ? d * 3 : random_below(1u << 16);
      ixj_remainder rm;
      assert_int_equal(ixj_remainder_make(d, b, w, &rm, NULL), IXJ_OK);
      seen[rm.form]++;
      for (uint64_t n = 0; n <= b; n++)
        if (ixj_remainder_apply(&rm, n) != n % d) fail_msg("d=%llu B=%llu W=%u n=%llu form %d", (unsigned long long)d, (unsigned long long)b, w, (unsigned long long)n, rm.form);
    }
  }
  for (int k = 0; k < 20000; k++) {
    unsigned w = k % 2 ? 64 : 32;
    uint64_t b = random_bits(w), d = 1 + random_bits(w - 1);
    ixj_remainder rm;
    assert_int_equal(ixj_remainder_make(d, b, w, &rm, NULL), IXJ_OK);
    seen[rm.form]++;
    uint64_t cand[] = {0, b, d - 1, d, b - b % d, b - b % d - 1};
    for (size_t j = 0; j < sizeof cand / sizeof *cand; j++)
      if (cand[j] <= b) assert_int_equal(ixj_remainder_apply(&rm, cand[j]), cand[j] % d);
    for (int j = 0; j < 50; j++) {
      uint64_t n = b == UINT64_MAX ? next_random() : random_below(b + 1);
      assert_int_equal(ixj_remainder_apply(&rm, n), n % d);
    }
  }
  for (int f = 0; f < 4; f++) assert_true(seen[f] > 0);
}

static void test_digit(void **state) {
  (void)state;
  int seen[3] = {0};
  for (uint64_t p = 1; p <= 40; p++)
    for (uint64_t dd = 1; dd <= 40; dd += 3) {
      uint64_t bounds[] = {p * dd - 1, p * dd * 5 + 3, random_below(1u << 14)};
      for (size_t j = 0; j < 3; j++) {
        ixj_digit dg;
        assert_int_equal(ixj_digit_make(p, dd, bounds[j], 32, &dg, NULL), IXJ_OK);
        seen[dg.form]++;
        for (uint64_t n = 0; n <= bounds[j]; n++)
          if (ixj_digit_apply(&dg, n) != (n / p) % dd)
            fail_msg("P=%llu D=%llu B=%llu n=%llu form %d", (unsigned long long)p, (unsigned long long)dd, (unsigned long long)bounds[j], (unsigned long long)n, dg.form);
      }
    }
  for (int k = 0; k < 20000; k++) {
    unsigned w = k % 2 ? 64 : 32;
    uint64_t p = 1 + random_bits(w / 2), dd = 1 + random_bits(w / 2), b = random_bits(w);
    ixj_digit dg;
    assert_int_equal(ixj_digit_make(p, dd, b, w, &dg, NULL), IXJ_OK);
    seen[dg.form]++;
    for (int j = 0; j < 50; j++) {
      uint64_t n = j == 0 ? b : b == UINT64_MAX ? next_random() : random_below(b + 1);
      assert_int_equal(ixj_digit_apply(&dg, n), (n / p) % dd);
    }
  }
  for (int f = 0; f < 3; f++) assert_true(seen[f] > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exhaustive),        cmocka_unit_test(test_witnesses),
      cmocka_unit_test(test_minimal_shift),     cmocka_unit_test(test_no_fixup_below_2_31),
      cmocka_unit_test(test_errors),            cmocka_unit_test(test_remainder),
      cmocka_unit_test(test_digit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

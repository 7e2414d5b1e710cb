/* Unit tests of the IXFUN text layer: printing, Futhark's format, round
 * trips, and every parse error with its column. */
#include "test_util.h"

static void check_show(const char *text, const char *want) {
  ixj_ixfun *f = parse_ok(text), *g;
  char *s = ixj_ixfun_to_string(f);
  assert_non_null(s);
  assert_string_equal(s, want);
  char small[8];
  assert_int_equal(ixj_ixfun_format(f, small, sizeof small), strlen(want)); /* snprintf-style */
  assert_int_equal(strlen(small), 7);
  g = parse_ok(s);
  assert_true(ixj_ixfun_equal(f, g));
  free(s);
  ixj_ixfun_free(f);
  ixj_ixfun_free(g);
}

static void test_print(void **state) {
  (void)state;
  check_show("iota 3 4", "{base: [3, 4]; contiguous: true; LMADs: [{offset: 0; strides: [4, 1]; rotates: [0, 0]; "
                         "shape: [3, 4]; permutation: [0, 1]; monotonicity: [Inc, Inc]}]}");
  check_show("iota offset=7", "{base: []; contiguous: true; LMADs: [{offset: 7; strides: []; rotates: []; shape: []; "
                              "permutation: []; monotonicity: []}]}");
  check_show("iota 2 3 4 | permute 1 2 0 | slice ::-1",
             "{base: [2, 3, 4]; contiguous: true; LMADs: [{offset: 8; strides: [12, -4, 1]; rotates: [0, 0, 0]; "
             "shape: [2, 3, 4]; permutation: [1, 2, 0]; monotonicity: [Inc, Dec, Inc]}]}");
  check_show("iota 5 | rotate 2 | slice 2:",
             "{base: [5]; contiguous: false; LMADs: [{offset: 2; strides: [1]; rotates: [0]; shape: [3]; "
             "permutation: [0]; monotonicity: [Inc]}, {offset: 0; strides: [1]; rotates: [2]; shape: [5]; "
             "permutation: [0]; monotonicity: [Inc]}]}");
}

static void test_futhark_format(void **state) {
  (void)state;
  /* Futhark's layout with line breaks, unreduced rotates, and a pipeline after it */
  ixj_ixfun *f = parse_ok("{base: [4, 6];\n contiguous: True;\n LMADs: [{offset: 0; strides: [6, 1]; rotates: [0, -1];"
                          " shape: [4, 6]; permutation: [1, 0]; monotonicity: [Inc, Unknown]}]} | slice 0");
  assert_points(f, 1, ARR(4), 4, ARR(5, 11, 17, 23));
  ixj_ixfun_free(f);
  f = parse_ok("{base:[12];contiguous:false;LMADs:[{offset:2;strides:[1];rotates:[0];shape:[3];permutation:[0];"
               "monotonicity:[Inc]},{offset:11;strides:[-1];rotates:[0];shape:[12];permutation:[0];monotonicity:[Dec]}]}");
  assert_int_equal(ixj_ixfun_num_lmads(f), 2); /* taken literally, not merged */
  assert_points(f, 1, ARR(3), 3, ARR(9, 8, 7));
  ixj_ixfun_free(f);

  parse_fails("{base: [4]; contiguous: true}", IXJ_ERR_PARSE, "expected ';'");
  parse_fails("{base: [4]; contiguous: maybe; LMADs: []}", IXJ_ERR_PARSE, "column 25: contiguous: expected true or false");
  parse_fails("{base: [4]; contiguous: true; LMADs: [{offset: 0; strides: [1]; rotates: [0]; shape: [4]; "
              "permutation: [0]; monotonicity: [Dec]}]}",
              IXJ_ERR_INVALID_ARGUMENT, "monotonicity Dec contradicts stride 1");
  parse_fails("{base: [4]; contiguous: true; LMADs: [{offset: 0; strides: [1, 1]; rotates: [0]; shape: [4]; "
              "permutation: [0]; monotonicity: [Inc]}]}",
              IXJ_ERR_INVALID_ARGUMENT, "rotates has 1 items but strides has 2");
  parse_fails("{base: [4]; contiguous: true; LMADs: [{offset: 0; strides: [1, 1]; rotates: [0, 0]; shape: [2, 2]; "
              "permutation: [1, 1]; monotonicity: [Inc, Inc]}]}",
              IXJ_ERR_INVALID_ARGUMENT, "not a permutation");
  parse_fails("{base: [4]; contiguous: true; LMADs: [{offset: 2; strides: [1]; rotates: [0]; shape: [4]; "
              "permutation: [0]; monotonicity: [Inc]}, {offset: 0; strides: [1]; rotates: [0]; shape: [4]; "
              "permutation: [0]; monotonicity: [Inc]}]}",
              IXJ_ERR_OUT_OF_RANGE, "outside the 4 points of LMAD 1");
  parse_fails("{base: [4]; contiguous: true; LMADs: [{offset: 0; strides: [1]; rotates: [0]; shape: [4]; "
              "permutation: [0]; monotonicity: [Sideways]}]}",
              IXJ_ERR_PARSE, "expected Inc, Dec or Unknown");
  parse_fails("{base: [4]; contiguous: true; LMADs: [{offset: 0; strides: [1]; rotates: [0]; shape: [4]; "
              "permutation: [0]; monotonicity: [Inc]}] @",
              IXJ_ERR_PARSE, "unexpected '@'");
  parse_fails("iota 3 | {base: []}", IXJ_ERR_PARSE, "must be the first stage");
}

static void test_parse_errors(void **state) {
  (void)state;
  parse_fails("", IXJ_ERR_PARSE, "column 1: expected an index function");
  parse_fails("permute 0", IXJ_ERR_PARSE, "the first stage must be iota");
  parse_fails("iota 3 | iota 3", IXJ_ERR_PARSE, "column 10: 'iota' must be the first stage");
  parse_fails("iota 3 | bogus 1", IXJ_ERR_PARSE, "column 10: unknown stage 'bogus'");
  parse_fails("iota 3 x", IXJ_ERR_PARSE, "column 8: iota: expected an integer, found 'x'");
  parse_fails("iota 99999999999999999999", IXJ_ERR_OVERFLOW, "overflows 64-bit integers");
  parse_fails("iota 3 |", IXJ_ERR_PARSE, "expected a stage after '|'");
  parse_fails("iota 3 | | permute 0", IXJ_ERR_PARSE, "expected a stage after '|'");
  parse_fails("iota 3 offset=1 4", IXJ_ERR_PARSE, "offset= must come last");
  parse_fails("iota 3 | rebase iota 3", IXJ_ERR_PARSE, "rebase: expected '('");
  parse_fails("iota 3 | rebase (iota 3", IXJ_ERR_PARSE, "rebase: expected ')'");
  parse_fails("iota 3 )", IXJ_ERR_PARSE, "unbalanced ')'");
  parse_fails("iota 3 (", IXJ_ERR_PARSE, "unexpected '('");
  parse_fails("iota 3 | permute 0 (", IXJ_ERR_PARSE, "unexpected '('");
  parse_fails("iota 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", IXJ_ERR_LIMIT, "more than 16 dims");
  parse_fails("iota 4 | reshape 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 4", IXJ_ERR_LIMIT, "more than 16 items");
  parse_fails("iota 3 | slice 9223372036854775808", IXJ_ERR_OVERFLOW, "overflows");

  /* nesting deeper than the limit is refused, not a stack overflow */
  char deep[4096] = "iota 1";
  for (int k = 0; k < 40; k++) strcat(deep, " | rebase (iota 1");
  for (int k = 0; k < 40; k++) strcat(deep, ")");
  parse_fails(deep, IXJ_ERR_LIMIT, "nested more than 32 deep");
  char ok[2048] = "iota 1";
  for (int k = 0; k < 10; k++) strcat(ok, " | rebase (iota 1");
  for (int k = 0; k < 10; k++) strcat(ok, ")");
  ixj_ixfun_free(parse_ok(ok));

  ixj_ixfun *f = NULL;
  ixj_error err;
  assert_int_equal(ixj_ixfun_parse(NULL, &f, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "NULL argument"));
  assert_int_equal(ixj_ixfun_parse("iota 3", NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_null(f);
  assert_int_equal(ixj_ixfun_parse("iota 3 | permute 1", &f, NULL), IXJ_ERR_INVALID_ARGUMENT); /* NULL err is fine */
  assert_int_equal(ixj_ixfun_parse("iota 3 | slice 7", &f, &err), IXJ_ERR_OUT_OF_RANGE);
  assert_int_equal(err.column, 16);
  assert_string_equal(ixj_status_name(IXJ_ERR_PARSE), "parse error");
}

static void test_whitespace(void **state) {
  (void)state;
  ixj_ixfun *a = parse_ok("iota 8 6|permute 1 0|slice 1:5 ::2|rotate 1 0|reshape 2 2 4");
  ixj_ixfun *b = parse_ok("  iota 8 6 |\tpermute 1 0 | slice 1:5 ::2 | rotate 1 0 | reshape 2 2 4  ");
  ixj_ixfun *c = parse_ok("iota 4 6|rebase(iota 24|slice ::-1)");
  assert_true(ixj_ixfun_equal(a, b));
  assert_int_equal(ixj_ixfun_num_points(c), 24);
  ixj_ixfun_free(a);
  ixj_ixfun_free(b);
  ixj_ixfun_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_print),
      cmocka_unit_test(test_futhark_format),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_whitespace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

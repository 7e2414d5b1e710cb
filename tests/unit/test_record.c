/* The record-file format (include/ixjit/record.h): what the writer produces
 * the reader gives back, and every malformed line is refused with a message
 * that names the field. */
#include "test_util.h"

/* Formats a call, parses the line back, and checks every field. */
static void round_trip(ixj_op_kind op, size_t elem, bool aligned, int axis, const char *dst, int n, const char **srcs) {
  ixj_ixfun *d = parse_ok(dst), *s[IXJ_MAX_CAT_INPUTS];
  for (int k = 0; k < n; k++) s[k] = parse_ok(srcs[k]);
  char *line = NULL;
  ixj_error err;
  assert_int_equal(ixj_record_format(op, elem, aligned, axis, d, n, (const ixj_ixfun *const *)s, &line, &err), IXJ_OK);
  size_t len = strlen(line);
  assert_true(len > 0 && line[len - 1] == '\n');
  assert_ptr_equal(strchr(line, '\n'), line + len - 1); /* one line */
  assert_false(ixj_record_is_blank(line));
  ixj_record r;
  assert_int_equal(ixj_record_parse(line, &r, &err), IXJ_OK);
  assert_int_equal(r.op, op);
  assert_int_equal(r.elem_size, elem);
  assert_int_equal(r.aligned, aligned);
  assert_int_equal(r.axis, op == IXJ_OP_CAT ? axis : 0);
  assert_int_equal(r.num_srcs, n);
  assert_true(ixj_ixfun_equal(r.dst, d));
  for (int k = 0; k < n; k++) assert_true(ixj_ixfun_equal(r.srcs[k], s[k]));
  /* formatting the parsed record gives the same line */
  char *again = NULL;
  assert_int_equal(ixj_record_format(r.op, r.elem_size, r.aligned, r.axis, r.dst, r.num_srcs,
                                     (const ixj_ixfun *const *)r.srcs, &again, &err),
                   IXJ_OK);
  assert_string_equal(again, line);
  ixj_record_clear(&r);
  assert_null(r.dst);
  assert_int_equal(r.num_srcs, 0);
  ixj_free(again);
  ixj_free(line);
  ixj_ixfun_free(d);
  for (int k = 0; k < n; k++) ixj_ixfun_free(s[k]);
}

static void test_round_trip(void **state) {
  (void)state;
  round_trip(IXJ_OP_COPY, 4, true, 0, "iota 3 4", 1, (const char *[]){"iota 4 3 | permute 1 0"});
  round_trip(IXJ_OP_COPY, 16, false, 0, "iota 6 5", 1,
             (const char *[]){"iota 5 6 | permute 1 0 | reshape 30 | rotate 7 | reshape 6 5"});
  round_trip(IXJ_OP_FILL, 2, false, 0, "iota 9 | slice ::2", 0, NULL);
  round_trip(IXJ_OP_CAT, 8, true, 1, "iota 4 10", 3,
             (const char *[]){"iota 4 3", "iota 7 4 | permute 1 0", "iota 4 3 | slice ::-1"});
  const char *many[IXJ_MAX_CAT_INPUTS];
  for (int k = 0; k < IXJ_MAX_CAT_INPUTS; k++) many[k] = "iota 1 2";
  round_trip(IXJ_OP_CAT, 1, false, 0, "iota 64 2", IXJ_MAX_CAT_INPUTS, many);
}

static void test_parse_hand_written(void **state) {
  (void)state;
  ixj_record r;
  ixj_error err;
  /* the IXFUN syntax, "\r\n" endings and doubled tabs are accepted */
  assert_int_equal(ixj_record_parse("cat\t2\t0\t0\tiota 5 3\t\tiota 2 3\tiota 3 3 | rotate 1 1\r\n", &r, &err), IXJ_OK);
  assert_int_equal(r.op, IXJ_OP_CAT);
  assert_int_equal(r.elem_size, 2);
  assert_false(r.aligned);
  assert_int_equal(r.num_srcs, 2);
  assert_int_equal(ixj_ixfun_rank(r.srcs[1]), 2);
  ixj_record_clear(&r);
  ixj_record_clear(&r); /* cleared twice: nothing left to free */
  ixj_record_clear(NULL);
  /* an element size the operation refuses is still a well-formed line */
  assert_int_equal(ixj_record_parse("copy\t3\t1\tiota 3\tiota 3", &r, &err), IXJ_OK);
  assert_int_equal(r.elem_size, 3);
  ixj_record_clear(&r);
}

static void parse_fails_with(const char *line, ixj_status status, const char *needle) {
  ixj_record r;
  ixj_error err;
  memset(&r, 0x5a, sizeof r);
  ixj_status st = ixj_record_parse(line, &r, &err);
  if (st != status) fail_msg("'%s': status %s, expected %s (%s)", line, ixj_status_name(st), ixj_status_name(status), err.message);
  if (!strstr(err.message, needle)) fail_msg("'%s': message '%s' lacks '%s'", line, err.message, needle);
  /* nothing is left to free, and clearing is still safe */
  assert_null(r.dst);
  assert_int_equal(r.num_srcs, 0);
  ixj_record_clear(&r);
}

static void test_parse_errors(void **state) {
  (void)state;
  parse_fails_with("bogus line", IXJ_ERR_PARSE, "expected tab-separated fields");
  parse_fails_with("", IXJ_ERR_PARSE, "expected tab-separated fields");
  parse_fails_with("copy\t4\t1", IXJ_ERR_PARSE, "expected tab-separated fields");
  parse_fails_with("move\t4\t1\tiota 3\tiota 3", IXJ_ERR_PARSE, "unknown operation 'move'");
  parse_fails_with("copy\tfour\t1\tiota 3\tiota 3", IXJ_ERR_PARSE, "bad element size 'four'");
  parse_fails_with("copy\t0\t1\tiota 3\tiota 3", IXJ_ERR_PARSE, "bad element size '0'");
  parse_fails_with("copy\t17\t1\tiota 3\tiota 3", IXJ_ERR_PARSE, "bad element size '17'");
  parse_fails_with("copy\t4x\t1\tiota 3\tiota 3", IXJ_ERR_PARSE, "bad element size '4x'");
  parse_fails_with("copy\t4\t2\tiota 3\tiota 3", IXJ_ERR_PARSE, "aligned must be 0 or 1");
  parse_fails_with("copy\t4\tyes\tiota 3\tiota 3", IXJ_ERR_PARSE, "aligned must be 0 or 1");
  parse_fails_with("cat\t4\t1\tx\tiota 3\tiota 3", IXJ_ERR_PARSE, "bad axis 'x'");
  parse_fails_with("cat\t4\t1\t-1\tiota 3\tiota 3", IXJ_ERR_PARSE, "bad axis '-1'");
  parse_fails_with("cat\t4\t1\t16\tiota 3\tiota 3", IXJ_ERR_PARSE, "bad axis '16'");
  parse_fails_with("cat\t4\t1\t0", IXJ_ERR_PARSE, "missing the destination");
  parse_fails_with("copy\t4\t1\tiota 3", IXJ_ERR_PARSE, "copy takes one source, found 0");
  parse_fails_with("copy\t4\t1\tiota 3\tiota 3\tiota 3", IXJ_ERR_PARSE, "copy takes one source, found 2");
  parse_fails_with("fill\t4\t1\tiota 3\tiota 3", IXJ_ERR_PARSE, "fill takes no source, found 1");
  parse_fails_with("cat\t4\t1\t0\tiota 3", IXJ_ERR_PARSE, "cat takes one or more sources, found 0");
  parse_fails_with("copy\t4\t1\tiota 3 |\tiota 3", IXJ_ERR_PARSE, "destination: ");
  parse_fails_with("copy\t4\t1\tiota 3\tiota 3 |", IXJ_ERR_PARSE, "source 1: ");
  /* a bad second source after a good first one: the first is freed */
  parse_fails_with("cat\t4\t1\t0\tiota 6\tiota 3\tiota 3 | permute 0 0", IXJ_ERR_PARSE, "source 2: ");
  char line[4096];
  int at = snprintf(line, sizeof line, "cat\t1\t0\t0\tiota 65");
  for (int k = 0; k < IXJ_MAX_CAT_INPUTS + 1; k++) at += snprintf(line + at, sizeof line - (size_t)at, "\tiota 1");
  parse_fails_with(line, IXJ_ERR_PARSE, "too many fields");
  ixj_record r;
  ixj_error err;
  assert_int_equal(ixj_record_parse(NULL, &r, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_record_parse("copy\t4\t1\tiota 3\tiota 3", NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
}

static void test_blank(void **state) {
  (void)state;
  assert_true(ixj_record_is_blank(""));
  assert_true(ixj_record_is_blank("\n"));
  assert_true(ixj_record_is_blank(" \t \r\n"));
  assert_true(ixj_record_is_blank("# a comment"));
  assert_true(ixj_record_is_blank("  # indented comment\tcopy\t4"));
  assert_false(ixj_record_is_blank("copy\t4\t1\tiota 3\tiota 3"));
  assert_false(ixj_record_is_blank(" x"));
}

static void test_format_errors(void **state) {
  (void)state;
  ixj_ixfun *f = parse_ok("iota 3");
  const ixj_ixfun *one[1] = {f}, *none[1] = {NULL};
  char *line = (char *)"untouched";
  ixj_error err;
  assert_int_equal(ixj_record_format(IXJ_OP_COPY, 4, true, 0, f, 0, one, &line, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_null(line);
  assert_non_null(strstr(err.message, "copy takes 1 sources, not 0"));
  assert_int_equal(ixj_record_format(IXJ_OP_COPY, 4, true, 0, f, 2, one, &line, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_record_format(IXJ_OP_FILL, 4, true, 0, f, 1, one, &line, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "fill takes 0 sources, not 1"));
  assert_int_equal(ixj_record_format(IXJ_OP_CAT, 4, true, 0, f, 0, one, &line, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_record_format(IXJ_OP_CAT, 4, true, 0, f, IXJ_MAX_CAT_INPUTS + 1, one, &line, &err),
                   IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_record_format(IXJ_OP_CAT, 4, true, -1, f, 1, one, &line, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "cat axis -1"));
  assert_int_equal(ixj_record_format(IXJ_OP_CAT, 4, true, IXJ_MAX_RANK, f, 1, one, &line, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_record_format((ixj_op_kind)7, 4, true, 0, f, 1, one, &line, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "unknown operation 7"));
  assert_int_equal(ixj_record_format(IXJ_OP_COPY, 4, true, 0, f, 1, none, &line, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "NULL index function"));
  assert_null(line);
  assert_int_equal(ixj_record_format(IXJ_OP_COPY, 4, true, 0, NULL, 1, one, &line, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_record_format(IXJ_OP_COPY, 4, true, 0, f, 1, NULL, &line, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_record_format(IXJ_OP_COPY, 4, true, 0, f, 1, one, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  /* fill takes no sources: srcs may be NULL */
  assert_int_equal(ixj_record_format(IXJ_OP_FILL, 2, false, 5, f, 0, NULL, &line, &err), IXJ_OK);
  assert_non_null(strstr(line, "fill\t2\t0\t{"));
  ixj_free(line);
  ixj_ixfun_free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),  cmocka_unit_test(test_parse_hand_written), cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_blank),       cmocka_unit_test(test_format_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

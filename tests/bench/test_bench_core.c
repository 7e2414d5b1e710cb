/* `ixjit bench`'s core without measuring anything: the suite parser (values,
 * variables, scaling, and every error with its SUITE:LINE), the JSON round
 * trip, and the baseline rule (a 2x slowdown is flagged; a rerun whose
 * repetitions overlap, one slow repetition included, is not). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench.h"

static char msg[1024];

static void expect_error(const char *text, const char *want) {
  bench_suite s;
  bool ok = bench_suite_parse(text, "t.suite", 1.0, &s, msg, sizeof msg);
  if (ok) bench_suite_free(&s);
  if (ok || !strstr(msg, want)) fail_msg("suite:\n%s\nwanted an error containing \"%s\", got %s\"%s\"", text, want,
                                         ok ? "success " : "", ok ? "" : msg);
}

static void test_parse_values(void **state) {
  (void)state;
  bench_suite s;
  const char *text = "# a comment\n"
                     "\n"
                     "let N = 4096 scale 1/2 multiple 64\n"
                     "let H = N / 2\n"
                     "copy t elem=4 threads=1,3 dst=iota $N $H src=iota $H $N | permute 1 0   # trailing comment\n"
                     "cat c elem=2 axis=1 dst=iota 4 $(2*3+1) src=iota 4 3 src=iota 4 4\n"
                     "fill f elem=16 dst=iota 10 | slice ::-1\n";
  assert_true(bench_suite_parse(text, "t.suite", 0.25, &s, msg, sizeof msg));
  assert_int_equal(s.count, 3);
  /* 4096 * 0.25^(1/2) = 2048 */
  assert_string_equal(s.cases[0].dst, "iota 2048 1024");
  assert_string_equal(s.cases[0].src[0], "iota 1024 2048 | permute 1 0");
  assert_int_equal(s.cases[0].op, IXJ_OP_COPY);
  assert_int_equal(s.cases[0].elem_size, 4);
  assert_int_equal(s.cases[0].num_threads, 2);
  assert_int_equal(s.cases[0].threads[1], 3);
  assert_int_equal(s.cases[0].line, 5);
  assert_int_equal(s.cases[1].op, IXJ_OP_CAT);
  assert_int_equal(s.cases[1].axis, 1);
  assert_int_equal(s.cases[1].num_srcs, 2);
  assert_string_equal(s.cases[1].dst, "iota 4 7");
  assert_int_equal(s.cases[2].op, IXJ_OP_FILL);
  assert_int_equal(s.cases[2].num_srcs, 0);
  assert_int_equal(s.cases[2].elem_size, 16);
  bench_suite_free(&s);
  /* scale rounds down to the multiple, and never below it */
  assert_true(bench_suite_parse("let N = 4096 scale 1/2 multiple 64\nfill f elem=1 dst=iota $N\n", "t", 0.0001, &s,
                                msg, sizeof msg));
  assert_string_equal(s.cases[0].dst, "iota 64");
  bench_suite_free(&s);
}

static void test_parse_errors(void **state) {
  (void)state;
  expect_error("copy a elem=4 dst=iota 4 src=iota 4\ncpy b elem=4 dst=iota 4 src=iota 4\n",
               "t.suite:2: unknown operation 'cpy'");
  expect_error("\n\ncopy a dst=iota 4 src=iota 4\n", "t.suite:3: missing elem=");
  expect_error("copy a elem=3 dst=iota 4 src=iota 4\n", "t.suite:1: elem=3: element size must be 1, 2, 4, 8 or 16");
  expect_error("copy a elem=4 src=iota 4\n", "t.suite:1: missing dst=");
  expect_error("copy a elem=4\n", "t.suite:1: missing dst=");
  expect_error("copy a elem=4 dst=iota $M src=iota 4\n", "t.suite:1: unknown variable 'M'");
  expect_error("let N = 4\n\ncopy a elem=4 dst=iota $(N/0) src=iota 4\n", "t.suite:3: expression: division by zero");
  expect_error("copy a elem=4 dst=iota 4 src=iota 4 | permute 0 0\n", "t.suite:1: src 1: column");
  expect_error("copy a elem=4 dst=iota 4 5 src=iota 5 4\n", "t.suite:1: src 1: extent 5 in dim 0, the destination's is 4");
  expect_error("copy a elem=4 dst=iota 4\n", "t.suite:1: copy takes exactly one src= (got 0)");
  expect_error("fill a elem=4 dst=iota 4 src=iota 4\n", "t.suite:1: fill takes no src=");
  expect_error("cat a elem=4 dst=iota 4 8 src=iota 4 4 src=iota 4 4\n", "t.suite:1: cat needs axis=");
  expect_error("cat a elem=4 axis=2 dst=iota 4 8 src=iota 4 4 src=iota 4 4\n", "t.suite:1: cat: axis=2 outside");
  expect_error("cat a elem=4 axis=1 dst=iota 4 8 src=iota 4 4 src=iota 4 3\n",
               "t.suite:1: cat: the inputs' extents along axis 1 add up to 7, the destination's is 8");
  expect_error("copy a elem=4 axis=1 dst=iota 4 src=iota 4\n", "t.suite:1: axis= is only for cat");
  expect_error("copy a elem=4 threads=0 dst=iota 4 src=iota 4\n", "t.suite:1: threads:");
  expect_error("copy a elem=4 colour=red dst=iota 4 src=iota 4\n", "t.suite:1: unknown key 'colour='");
  expect_error("copy a elem=4 dst=iota 4 src=iota 4\n# gap\ncopy a elem=4 dst=iota 4 src=iota 4\n",
               "t.suite:3: case 'a' defined twice (first at line 1)");
  expect_error("copy a/b elem=4 dst=iota 4 src=iota 4\n", "t.suite:1: case name 'a/b'");
  expect_error("let N = 4\nlet N = 5\n", "t.suite:2: let: variable 'N' defined twice");
  expect_error("let N 4\n", "t.suite:1: let: expected '=' after 'N'");
  expect_error("let N = 4 scale x\n", "t.suite:1: let: scale: expected P or P/Q");
  expect_error("let N = (4\n", "t.suite:1: expression: missing ')'");
  expect_error("# only a comment\n", "t.suite: no cases");
}

static void test_load_file(void **state) {
  (void)state;
  char path[] = "/tmp/test-bench-suite-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char *text = "let N = 8\ncopy a elem=4 dst=iota $N src=iota $N\nfill b elem=4 dst=iota $N $N | bogus\n";
  assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
  close(fd);
  bench_suite s;
  assert_false(bench_suite_load(path, 1.0, &s, msg, sizeof msg));
  char want[128];
  snprintf(want, sizeof want, "%s:3: dst: column", path);
  if (!strstr(msg, want)) fail_msg("got \"%s\", wanted \"%s\"", msg, want);
  unlink(path);
  assert_false(bench_suite_load("/nonexistent/x.suite", 1.0, &s, msg, sizeof msg));
  assert_non_null(strstr(msg, "/nonexistent/x.suite: "));
}

static void test_default_suite(void **state) {
  (void)state;
  double scales[] = {1.0, 0.01, 0.002};
  for (int k = 0; k < 3; k++) {
    bench_suite s;
    if (!bench_suite_parse(bench_default_suite_text(), "default", scales[k], &s, msg, sizeof msg)) fail_msg("%s", msg);
    int ops[3] = {0}, elems[17] = {0}, cat8 = 0;
    for (int c = 0; c < s.count; c++) {
      ops[s.cases[c].op]++;
      elems[s.cases[c].elem_size]++;
      cat8 += s.cases[c].op == IXJ_OP_CAT && s.cases[c].num_srcs == 8;
    }
    assert_true(ops[IXJ_OP_COPY] > 0 && ops[IXJ_OP_FILL] > 0 && ops[IXJ_OP_CAT] > 0);
    assert_true(elems[1] && elems[2] && elems[4] && elems[8] && elems[16]);
    assert_true(cat8 >= 4);
    bench_suite_free(&s);
  }
}

/* ---- results: JSON and the compare rule ----------------------------------- */

static bench_result *add(bench_run *run, const char *c, const char *method, int threads, const double *sec, int reps) {
  bench_result *r = bench_run_add(run);
  snprintf(r->case_name, sizeof r->case_name, "%s", c);
  snprintf(r->method, sizeof r->method, "%s", method);
  snprintf(r->unit, sizeof r->unit, "ms");
  r->threads = threads;
  r->bytes = 2.0 * (1 << 20);
  r->compile_ms = -1;
  r->iterations = 3;
  for (int k = 0; k < reps; k++) r->sec[k] = sec[k];
  r->reps = reps;
  bench_result_name(r);
  return r;
}

static void test_json_round_trip(void **state) {
  (void)state;
  bench_run run = {0};
  bench_meta_collect(&run.meta);
  snprintf(run.meta.command, sizeof run.meta.command, "ixjit bench --reps 3");
  snprintf(run.meta.threads, sizeof run.meta.threads, "1,2");
  run.meta.reps = 3;
  run.meta.size_scale = 0.5;
  run.meta.num_peers = 1;
  run.meta.peers[0] = (bench_peer_info){.name = "numpy", .version = "1.24.2", .threads = "1", .available = true};
  double a[] = {1.25e-3, 1.5e-3, 1.0e-3}, b[] = {3e-4, 2.9e-4, 3.1e-4};
  bench_result *r = add(&run, "t2d", "ixjit", 2, a, 3);
  r->compile_ms = 12.5;
  snprintf(r->strategy, sizeof r->strategy, "tiled");
  add(&run, "t2d", "memcpy", 2, b, 3);
  bench_result *s = add(&run, "t2d", "onednn", 1, NULL, 0);
  s->skipped = true;
  snprintf(s->note, sizeof s->note, "oneDNN strides must be positive");
  bench_result *u = add(&run, "cache", "memory_hit", 1, b, 2);
  snprintf(u->unit, sizeof u->unit, "us");
  u->bytes = 0;

  char path[] = "/tmp/test-bench-json-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  if (!bench_json_write(&run, path, msg, sizeof msg)) fail_msg("%s", msg);
  bench_run back;
  if (!bench_json_read(path, &back, msg, sizeof msg)) fail_msg("%s", msg);
  unlink(path);
  assert_int_equal(back.count, run.count);
  for (int k = 0; k < run.count; k++) {
    const bench_result *x = &run.results[k], *y = bench_run_find(&back, x->run_name);
    if (!y) fail_msg("%s did not come back", x->run_name);
    assert_string_equal(x->case_name, y->case_name);
    assert_string_equal(x->method, y->method);
    assert_string_equal(x->unit, y->unit);
    assert_string_equal(x->strategy, y->strategy);
    assert_int_equal(x->threads, y->threads);
    assert_int_equal(x->reps, y->reps);
    assert_int_equal(x->skipped, y->skipped);
    assert_string_equal(x->note, y->note);
    assert_true(x->bytes == y->bytes);
    assert_true(x->compile_ms == y->compile_ms);
    if (!x->skipped) assert_int_equal(x->iterations, y->iterations);
    for (int q = 0; q < x->reps; q++) {
      double d = x->sec[q] - y->sec[q];
      assert_true(d < 1e-15 * x->sec[q] + 1e-300 && -d < 1e-15 * x->sec[q] + 1e-300);
    }
  }
  assert_string_equal(back.meta.commit, run.meta.commit);
  assert_string_equal(back.meta.cpu_model, run.meta.cpu_model);
  assert_string_equal(back.meta.command, run.meta.command);
  assert_string_equal(back.meta.threads, "1,2");
  assert_int_equal(back.meta.reps, 3);
  assert_true(back.meta.size_scale == 0.5);
  assert_true(back.meta.llc_bytes == run.meta.llc_bytes);
  assert_true(back.meta.load_avg[0] == run.meta.load_avg[0]);
  assert_int_equal(back.meta.num_peers, 1);
  assert_string_equal(back.meta.peers[0].version, "1.24.2");
  assert_true(back.meta.peers[0].available);
  bench_run_free(&back);
  bench_run_free(&run);
}

static void test_json_errors(void **state) {
  (void)state;
  bench_run run;
  assert_false(bench_json_read("/nonexistent/r.json", &run, msg, sizeof msg));
  char path[] = "/tmp/test-bench-bad-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "{\"context\": {}}", 15), 15);
  close(fd);
  assert_false(bench_json_read(path, &run, msg, sizeof msg));
  assert_non_null(strstr(msg, "no \"benchmarks\" array"));
  fd = open(path, O_WRONLY | O_TRUNC);
  assert_int_equal(write(fd, "{\"benchmarks\": [", 16), 16);
  close(fd);
  assert_false(bench_json_read(path, &run, msg, sizeof msg));
  assert_non_null(strstr(msg, "not JSON"));
  unlink(path);
}

static void test_compare_rule(void **state) {
  (void)state;
  bench_run base = {0}, slow = {0}, rerun = {0}, one_slow = {0};
  double b[] = {10e-3, 10.4e-3, 9.8e-3, 10.1e-3, 10.9e-3};
  double twice[5], again[] = {10.8e-3, 9.9e-3, 11.2e-3, 10.0e-3, 10.6e-3}, spike[] = {10e-3, 10.2e-3, 9.9e-3, 31e-3, 10.1e-3};
  for (int k = 0; k < 5; k++) twice[k] = 2 * b[k];
  add(&base, "t2d", "ixjit", 1, b, 5);
  add(&base, "t2d", "memcpy", 1, b, 5);
  add(&slow, "t2d", "ixjit", 1, twice, 5);
  add(&slow, "t2d", "memcpy", 1, b, 5);
  add(&rerun, "t2d", "ixjit", 1, again, 5);
  add(&one_slow, "t2d", "ixjit", 1, spike, 5);
  assert_true(bench_regressed(&base.results[0], &slow.results[0], 10));
  assert_false(bench_regressed(&base.results[0], &rerun.results[0], 10));
  assert_false(bench_regressed(&base.results[0], &one_slow.results[0], 10));
  assert_false(bench_regressed(&base.results[0], &base.results[0], 0));
  /* slower beyond the spread but within the threshold: not a regression */
  double bit[5];
  for (int k = 0; k < 5; k++) bit[k] = b[k] * 1.12;
  bench_run slight = {0};
  add(&slight, "t2d", "ixjit", 1, bit, 5);
  assert_false(bench_regressed(&base.results[0], &slight.results[0], 20));
  assert_true(bench_regressed(&base.results[0], &slight.results[0], 10));
  /* median 14% slower, but a fast repetition inside the baseline's spread: noise, not a regression */
  double noisy_base[] = {10e-3, 10.1e-3, 10.2e-3, 10.3e-3, 15e-3}, noisy[] = {11.5e-3, 11.6e-3, 11.7e-3, 11.8e-3, 9e-3};
  bench_run nb = {0}, nc = {0};
  add(&nb, "t2d", "ixjit", 1, noisy_base, 5);
  add(&nc, "t2d", "ixjit", 1, noisy, 5);
  assert_false(bench_regressed(&nb.results[0], &nc.results[0], 10));
  bench_run_free(&nb);
  bench_run_free(&nc);
  FILE *devnull = fopen("/dev/null", "w");
  assert_int_equal(bench_compare(&base, &slow, 10, devnull), 1);
  assert_int_equal(bench_compare(&base, &rerun, 10, devnull), 0);
  assert_int_equal(bench_compare(&base, &one_slow, 10, devnull), 0);
  fclose(devnull);
  bench_run_free(&base);
  bench_run_free(&slow);
  bench_run_free(&rerun);
  bench_run_free(&one_slow);
  bench_run_free(&slight);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_values),   cmocka_unit_test(test_parse_errors), cmocka_unit_test(test_load_file),
      cmocka_unit_test(test_default_suite),  cmocka_unit_test(test_json_round_trip),
      cmocka_unit_test(test_json_errors),    cmocka_unit_test(test_compare_rule),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

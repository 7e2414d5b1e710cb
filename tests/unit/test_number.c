/* The one parser of sizes and counts (include/ixjit/number.h), and the
 * library's environment variables read through it: a bad value is one
 * warning and the documented default, never a number read from part of it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

#include "test_util.h"

static void size_is(const char *text, uint64_t want) {
  uint64_t v = 7;
  ixj_error err;
  if (ixj_parse_size(text, 0, UINT64_MAX, &v, &err) != IXJ_OK) fail_msg("'%s': %s", text, err.message);
  if (v != want) fail_msg("'%s' is %llu, expected %llu", text, (unsigned long long)v, (unsigned long long)want);
}

static void size_fails(const char *text, ixj_status want) {
  uint64_t v = 7;
  ixj_error err;
  ixj_status st = ixj_parse_size(text, 0, UINT64_MAX, &v, &err);
  if (st != want) fail_msg("'%s': %s, expected %s", text, ixj_status_name(st), ixj_status_name(want));
  assert_int_equal(v, 7); /* untouched */
}

static void test_sizes(void **state) {
  (void)state;
  size_is("0", 0);
  size_is("100", 100);
  size_is("10k", 10000);
  size_is("10K", 10000);
  size_is("500M", 500000000);
  size_is("2G", 2000000000);
  size_is("1Ki", 1024);
  size_is("500Mi", 524288000);
  size_is("3Gi", UINT64_C(3) << 30);
  size_is("007", 7);
  size_is("18446744073709551615", UINT64_MAX);
  size_is("17179869183Gi", UINT64_C(17179869183) << 30);
  size_fails("18446744073709551616", IXJ_ERR_OVERFLOW); /* 2^64: never wraps */
  size_fails("99999999999999999999999", IXJ_ERR_OVERFLOW);
  size_fails("17179869184Gi", IXJ_ERR_OVERFLOW); /* 2^64 by the suffix */
  size_fails("18446744073709551615K", IXJ_ERR_OVERFLOW);
  const char *bad[] = {"-1", " 100", "100 ", "", "+5", "0x10", "1e3", "10kB", "10KiB", "10m", "10Kb", "1.5G", "K", "5 K", "10\n"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) size_fails(bad[k], IXJ_ERR_PARSE);
}

static void test_counts_and_bounds(void **state) {
  (void)state;
  uint64_t v = 0;
  ixj_error err;
  assert_int_equal(ixj_parse_count("4", 1, 1024, &v, &err), IXJ_OK);
  assert_int_equal(v, 4);
  assert_int_equal(ixj_parse_count("4K", 1, UINT64_MAX, &v, &err), IXJ_ERR_PARSE); /* no suffix for a count */
  assert_int_equal(ixj_parse_count("0", 1, 1024, &v, &err), IXJ_ERR_OUT_OF_RANGE);
  assert_non_null(strstr(err.message, "outside 1..1024"));
  assert_int_equal(ixj_parse_count("1025", 1, 1024, &v, &err), IXJ_ERR_OUT_OF_RANGE);
  assert_int_equal(ixj_parse_size("2Ki", 1, 2000, &v, &err), IXJ_ERR_OUT_OF_RANGE);
  assert_int_equal(ixj_parse_size(NULL, 0, 1, &v, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(ixj_parse_size("1", 0, 1, NULL, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_int_equal(v, 4);
}

static int warnings;
static char last_warning[512];
static void count_warnings(void *user, ixj_log_level level, const char *message) {
  (void)user;
  if (level != IXJ_LOG_WARNING) return;
  warnings++;
  snprintf(last_warning, sizeof last_warning, "%s", message);
}

/* The threads a context starts with IXJIT_NUM_THREADS=value, and the warnings. */
static int threads_with(const char *value) {
  ixj_context *ctx;
  ixj_context_options o = {.disk_cache = -1, .log = count_warnings};
  setenv("IXJIT_NUM_THREADS", value, 1);
  warnings = 0;
  assert_int_equal(ixj_context_create(&o, &ctx, NULL), IXJ_OK);
  unsetenv("IXJIT_NUM_THREADS");
  int n = ixj_context_num_threads(ctx);
  ixj_context_destroy(ctx);
  return n;
}

static void test_num_threads(void **state) {
  (void)state;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  assert_int_equal(threads_with("3"), 3);
  assert_int_equal(warnings, 0);
  const char *bad[] = {"-1", " 3", "3 ", "3x", "0", "1025", "2K", "99999999999999999999"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    assert_int_equal(threads_with(bad[k]), cpus > 0 ? cpus : 1);
    if (warnings != 1) fail_msg("IXJIT_NUM_THREADS='%s': %d warnings", bad[k], warnings);
    assert_non_null(strstr(last_warning, "IXJIT_NUM_THREADS"));
  }
}

/* Whether a kernel's entry is still on disk after one compile under
 * IXJIT_CACHE_MAX_BYTES=value (a limit below the entry's size evicts it). */
static bool entry_kept_with(const char *value) {
  char dir[128], cmd[256];
  snprintf(dir, sizeof dir, "/tmp/ixjit-test-number-%d", (int)getpid());
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
  setenv("IXJIT_CACHE_MAX_BYTES", value, 1);
  warnings = 0;
  ixj_context *ctx;
  ixj_context_options o = {.num_threads = 1, .disk_cache = 1, .cache_dir = dir, .log = count_warnings};
  assert_int_equal(ixj_context_create(&o, &ctx, NULL), IXJ_OK);
  unsetenv("IXJIT_CACHE_MAX_BYTES");
  ixj_ixfun *f = parse_ok("iota 8 4 | permute 1 0"), *g = parse_ok("iota 4 8");
  int32_t a[32] = {0}, b[32];
  ixj_operand od = {b, sizeof b, g}, os = {a, sizeof a, f};
  assert_int_equal(ixj_copy(ctx, &od, &os, 4, NULL, NULL), IXJ_OK);
  ixj_context_destroy(ctx);
  ixj_ixfun_free(f);
  ixj_ixfun_free(g);
  int entries = -1;
  snprintf(cmd, sizeof cmd, "find '%s' -name '*.ixk' | wc -l", dir); /* entries live in shards */
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  assert_int_equal(fscanf(p, "%d", &entries), 1);
  pclose(p);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
  return entries > 0;
}

static void test_cache_max_bytes(void **state) {
  (void)state;
  assert_true(entry_kept_with("1Gi"));
  assert_int_equal(warnings, 0);
  assert_false(entry_kept_with("1k")); /* 1000 bytes: smaller than any object file */
  assert_int_equal(warnings, 0);
  const char *bad[] = {"-1", " 100", "100 ", "1kB", "abc", "0", "18446744073709551616"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    assert_true(entry_kept_with(bad[k])); /* the default, 1 GiB */
    if (warnings != 1) fail_msg("IXJIT_CACHE_MAX_BYTES='%s': %d warnings", bad[k], warnings);
    assert_non_null(strstr(last_warning, "IXJIT_CACHE_MAX_BYTES"));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_counts_and_bounds),
      cmocka_unit_test(test_num_threads),
      cmocka_unit_test(test_cache_max_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

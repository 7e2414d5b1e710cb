/* Helpers shared by the cmocka unit tests. */
#ifndef IXJIT_TEST_UTIL_H
#define IXJIT_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ixjit/ixjit.h"

/* Parses text, failing the test with the message when it does not parse. */
static inline ixj_ixfun *parse_ok(const char *text) {
  ixj_ixfun *f = NULL;
  ixj_error err;
  if (ixj_ixfun_parse(text, &f, &err) != IXJ_OK) fail_msg("'%s' did not parse: %s", text, err.message);
  return f;
}

/* Parses text expecting `status` and a message containing `needle`. */
static inline void parse_fails(const char *text, ixj_status status, const char *needle) {
  ixj_ixfun *f = NULL;
  ixj_error err;
  ixj_status st = ixj_ixfun_parse(text, &f, &err);
  if (st == IXJ_OK) fail_msg("'%s' parsed, expected an error", text);
  assert_null(f);
  if (st != status) fail_msg("'%s': status %s, expected %s (%s)", text, ixj_status_name(st), ixj_status_name(status), err.message);
  if (!strstr(err.message, needle)) fail_msg("'%s': message '%s' lacks '%s'", text, err.message, needle);
}

/* Every point of f in row-major order of the logical index. */
static inline int64_t points_of(const ixj_ixfun *f, int64_t *out, int64_t max) {
  int rank = ixj_ixfun_rank(f);
  int64_t shape[IXJ_MAX_RANK], idx[IXJ_MAX_RANK] = {0}, n = ixj_ixfun_num_points(f);
  ixj_ixfun_shape(f, shape);
  assert_true(n <= max);
  for (int64_t k = 0; k < n; k++) {
    assert_int_equal(ixj_ixfun_index(f, rank, idx, &out[k], NULL), IXJ_OK);
    for (int d = rank - 1; d >= 0 && ++idx[d] == shape[d]; d--) idx[d] = 0;
  }
  return n;
}

/* f's shape and points equal the expected ones. */
static inline void assert_points(const ixj_ixfun *f, int rank, const int64_t *shape, int64_t n, const int64_t *want) {
  int64_t got_shape[IXJ_MAX_RANK], got[4096];
  assert_int_equal(ixj_ixfun_rank(f), rank);
  ixj_ixfun_shape(f, got_shape);
  for (int k = 0; k < rank; k++) assert_int_equal(got_shape[k], shape[k]);
  assert_int_equal(points_of(f, got, 4096), n);
  for (int64_t k = 0; k < n; k++)
    if (got[k] != want[k]) fail_msg("point %lld: got %lld, want %lld", (long long)k, (long long)got[k], (long long)want[k]);
}

/* Two index functions have the same shape and points. */
static inline void assert_same_points(const ixj_ixfun *a, const ixj_ixfun *b) {
  static int64_t pa[1 << 16], pb[1 << 16];
  int64_t sa[IXJ_MAX_RANK], sb[IXJ_MAX_RANK];
  assert_int_equal(ixj_ixfun_rank(a), ixj_ixfun_rank(b));
  ixj_ixfun_shape(a, sa);
  ixj_ixfun_shape(b, sb);
  for (int k = 0; k < ixj_ixfun_rank(a); k++) assert_int_equal(sa[k], sb[k]);
  int64_t n = points_of(a, pa, 1 << 16);
  assert_int_equal(points_of(b, pb, 1 << 16), n);
  for (int64_t k = 0; k < n; k++) assert_int_equal(pa[k], pb[k]);
}

#define ARR(...) ((const int64_t[]){__VA_ARGS__})
#define LEN(...) ((int64_t)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))

#endif

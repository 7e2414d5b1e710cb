/* The one parser of sizes and counts (include/ixjit/number.h). */
#include "ixjit/number.h"

#include <stdbool.h>
#include <string.h>

#include "error.h"

static const struct {
  const char *suffix;
  uint64_t scale;
} SUFFIXES[] = {{"K", 1000}, {"k", 1000}, {"M", 1000000}, {"G", 1000000000},
                {"Ki", 1024}, {"Mi", 1024 * 1024}, {"Gi", 1024 * 1024 * 1024}};

static ixj_status parse(const char *text, bool sizes, uint64_t min, uint64_t max, uint64_t *out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, text && out);
  const char *what = sizes ? "a size" : "a count";
  const char *p = text;
  uint64_t v = 0;
  if (*p < '0' || *p > '9')
    return ixj__fail(err, IXJ_ERR_PARSE, "'%.40s' is not %s: it must start with a digit", text, what);
  for (; *p >= '0' && *p <= '9'; p++)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
      return ixj__fail(err, IXJ_ERR_OVERFLOW, "'%.40s' does not fit in 64 bits", text);
  if (*p && sizes) {
    size_t k = 0, n = sizeof SUFFIXES / sizeof SUFFIXES[0];
    while (k < n && strcmp(p, SUFFIXES[k].suffix)) k++;
    if (k == n)
      return ixj__fail(err, IXJ_ERR_PARSE, "'%.40s' is not a size: unknown suffix '%.8s' (K, M, G, Ki, Mi or Gi)", text, p);
    if (__builtin_mul_overflow(v, SUFFIXES[k].scale, &v))
      return ixj__fail(err, IXJ_ERR_OVERFLOW, "'%.40s' does not fit in 64 bits", text);
  } else if (*p) {
    return ixj__fail(err, IXJ_ERR_PARSE, "'%.40s' is not a count: only digits", text);
  }
  if (v < min || v > max)
    return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "%.40s is outside %llu..%llu", text, (unsigned long long)min,
                     (unsigned long long)max);
  *out = v;
  return IXJ_OK;
}

ixj_status ixj_parse_size(const char *text, uint64_t min, uint64_t max, uint64_t *out, ixj_error *err) {
  return parse(text, true, min, max, out, err);
}

ixj_status ixj_parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out, ixj_error *err) {
  return parse(text, false, min, max, out, err);
}

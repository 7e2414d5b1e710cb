/* Internal: checked 64-bit arithmetic on user-provided numbers. Each returns
 * true on overflow, like the __builtin_*_overflow family it wraps. */
#ifndef IXJIT_GEN_CHECKED_H
#define IXJIT_GEN_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

static inline bool ixj_add_ovf(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }
static inline bool ixj_sub_ovf(int64_t a, int64_t b, int64_t *r) { return __builtin_sub_overflow(a, b, r); }
static inline bool ixj_mul_ovf(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }

/* Floored modulo for n > 0: the result lies in [0, n). */
static inline int64_t ixj_floor_mod(int64_t a, int64_t n) {
  int64_t r = a % n;
  return r < 0 ? r + n : r;
}

#endif

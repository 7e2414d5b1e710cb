/* Bound-aware magic division (see docs/divmod.md and the sources it cites).
 *
 * Round-up: M = ceil(2^k / d) is exact for every n <= B iff
 *     (M*d - 2^k) * n_c < 2^k,  n_c = the largest n <= B with n mod d = d-1.
 * Round-down: M = floor(2^k / d) with q = floor((n+1) * M / 2^k) is exact iff
 *     (2^k - M*d) * (n_0 + 1) <= 2^k,  n_0 = d * floor(B / d).
 * Both conditions are monotone in k, so the first k that passes is minimal. */
#include "ixjit/divmod.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

typedef unsigned __int128 u128;

static uint64_t word_mask(unsigned w) { return w == 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1; }
static uint64_t mulhi(uint64_t a, uint64_t b, unsigned w) { return (uint64_t)(((u128)a * b) >> w); }
static bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
static unsigned log2_floor(uint64_t x) { return 63u - (unsigned)__builtin_clzll(x); }
static unsigned bit_length(uint64_t x) { return x ? log2_floor(x) + 1 : 0; }

/* floor(2^k / d) and 2^k mod d for k <= 128. */
static void pow2_divmod(unsigned k, uint64_t d, u128 *q, u128 *r) {
  if (k < 128) {
    u128 p = (u128)1 << k;
    *q = p / d;
    *r = p % d;
  } else { /* 2^128 = (2^128 - 1) + 1 */
    u128 t = ~(u128)0;
    *q = t / d;
    *r = t % d + 1;
    if (*r == d) {
      (*q)++;
      *r = 0;
    }
  }
}

const char *ixj_div_form_name(ixj_div_form form) {
  switch (form) {
  case IXJ_DIV_SHIFT: return "shift";
  case IXJ_DIV_MUL: return "mul";
  case IXJ_DIV_MUL_INC: return "mul_inc";
  case IXJ_DIV_FIXUP: return "fixup";
  }
  return "?";
}

static ixj_status check_args(uint64_t d, uint64_t bound, unsigned bits, ixj_error *err) {
  if (bits != 32 && bits != 64)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "word width must be 32 or 64, not %u", bits);
  if (d == 0) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "division by zero");
  if (d > word_mask(bits))
    return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "divisor %llu does not fit a %u-bit word",
                    (unsigned long long)d, bits);
  if (bound > word_mask(bits))
    return ixj__fail(err, IXJ_ERR_OUT_OF_RANGE, "bound %llu does not fit a %u-bit word",
                    (unsigned long long)bound, bits);
  return IXJ_OK;
}

static void set(ixj_divider *out, ixj_div_form form, uint64_t m, unsigned k, int cost) {
  out->form = form;
  out->multiplier = m;
  out->shift = k;
  out->cost = cost;
}

ixj_status ixj_divider_make(uint64_t d, uint64_t bound, unsigned bits, ixj_divider *out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, out);
  ixj_status st = check_args(d, bound, bits, err);
  const unsigned w = bits;
  if (st != IXJ_OK) return st;
  memset(out, 0, sizeof *out);
  out->divisor = d;
  out->bound = bound;
  out->bits = w;
  if (bound < d) { /* q is always 0: the smallest shift that clears every n <= B */
    unsigned k = bit_length(bound);
    set(out, IXJ_DIV_SHIFT, 1, k, k ? 1 : 0);
    return IXJ_OK;
  }
  if (is_pow2(d)) {
    unsigned k = log2_floor(d);
    set(out, IXJ_DIV_SHIFT, 1, k, k ? 1 : 0);
    return IXJ_OK;
  }
  /* Round-up multiply-high with the smallest shift. */
  uint64_t nc = bound - ((bound % d + 1) % d);
  for (unsigned s = 0; s < w; s++) {
    unsigned k = w + s;
    u128 q, r;
    pow2_divmod(k, d, &q, &r);
    u128 m = q + (r != 0);
    if (m > word_mask(w)) break;
    u128 e = r ? d - r : 0; /* m*d - 2^k */
    if (e * nc < ((u128)1 << k)) {
      set(out, IXJ_DIV_MUL, (uint64_t)m, k, s ? 2 : 1);
      return IXJ_OK;
    }
  }
  /* Round-down multiply-high of n+1 (n+1 must not wrap). */
  if (bound < word_mask(w)) {
    uint64_t n0 = d * (bound / d);
    for (unsigned s = 0; s < w; s++) {
      unsigned k = w + s;
      u128 q, r;
      pow2_divmod(k, d, &q, &r);
      if (q > word_mask(w)) break;
      if ((u128)r * ((u128)n0 + 1) <= ((u128)1 << k)) {
        set(out, IXJ_DIV_MUL_INC, (uint64_t)q, k, s ? 3 : 2);
        return IXJ_OK;
      }
    }
  }
  /* Granlund-Montgomery with a W+1-bit multiplier: exact for every n < 2^W. */
  unsigned l = bit_length(d - 1); /* ceil(log2 d) */
  u128 q, r;
  pow2_divmod(w + l, d, &q, &r);
  u128 m = q + (r != 0);
  set(out, IXJ_DIV_FIXUP, (uint64_t)(m - ((u128)1 << w)), w + l, 5);
  return IXJ_OK;
}

uint64_t ixj_divider_apply(const ixj_divider *dv, uint64_t n) {
  const unsigned w = dv->bits;
  const uint64_t mask = word_mask(w);
  switch (dv->form) {
  case IXJ_DIV_SHIFT:
    return dv->shift >= w ? 0 : n >> dv->shift;
  case IXJ_DIV_MUL:
    return mulhi(n, dv->multiplier, w) >> (dv->shift - w);
  case IXJ_DIV_MUL_INC:
    return mulhi((n + 1) & mask, dv->multiplier, w) >> (dv->shift - w);
  case IXJ_DIV_FIXUP: {
    uint64_t t = mulhi(n, dv->multiplier, w);
    return ((t + ((n - t) >> 1)) & mask) >> (dv->shift - w - 1);
  }
  }
  return 0;
}

void ixj_divider_multiplier_text(const ixj_divider *dv, char buf[48]) {
  u128 m = dv->multiplier;
  char tmp[48];
  int n = 0;
  if (dv->form == IXJ_DIV_FIXUP) m += (u128)1 << dv->bits;
  do {
    tmp[n++] = (char)('0' + (int)(m % 10));
    m /= 10;
  } while (m);
  for (int k = 0; k < n; k++) buf[k] = tmp[n - 1 - k];
  buf[n] = '\0';
}

/* ---- remainder ----------------------------------------------------------- */

ixj_status ixj_remainder_make(uint64_t d, uint64_t bound, unsigned bits, ixj_remainder *out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, out);
  ixj_status st = check_args(d, bound, bits, err);
  if (st != IXJ_OK) return st;
  memset(out, 0, sizeof *out);
  out->divisor = d;
  out->bound = bound;
  out->bits = bits;
  if (d == 1) {
    out->form = IXJ_REM_ZERO;
  } else if (bound < d) {
    out->form = IXJ_REM_IDENTITY;
  } else if (is_pow2(d)) {
    out->form = IXJ_REM_MASK;
    out->cost = 1;
  } else {
    ixj_divider_make(d, bound, bits, &out->quotient, NULL);
    out->form = IXJ_REM_MULSUB;
    out->cost = out->quotient.cost + 1;
  }
  return IXJ_OK;
}

uint64_t ixj_remainder_apply(const ixj_remainder *rm, uint64_t n) {
  const uint64_t mask = word_mask(rm->bits);
  switch (rm->form) {
  case IXJ_REM_ZERO: return 0;
  case IXJ_REM_IDENTITY: return n;
  case IXJ_REM_MASK: return n & (rm->divisor - 1);
  case IXJ_REM_MULSUB: return (n - ixj_divider_apply(&rm->quotient, n) * rm->divisor) & mask;
  }
  return 0;
}

/* ---- one mixed-radix coordinate ------------------------------------------ */

/* c = ceil(2^W / p) for the direct coordinate, when exact for every n <= B. */
static bool direct_constant(uint64_t p, uint64_t bound, unsigned w, uint64_t *c) {
  if (p < 2 || is_pow2(p)) return false;
  u128 q, r;
  pow2_divmod(w, p, &q, &r);
  u128 cc = q + (r != 0);
  if (cc > word_mask(w)) return false;
  u128 e = cc * p - ((u128)1 << w);
  if (e * bound >= ((u128)1 << w)) return false;
  *c = (uint64_t)cc;
  return true;
}

ixj_status ixj_digit_make(uint64_t inner, uint64_t extent, uint64_t bound, unsigned bits, ixj_digit *out,
                          ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, out);
  ixj_status st = check_args(inner, bound, bits, err);
  if (st != IXJ_OK) return st;
  if (extent == 0) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "a coordinate's extent must be >= 1");
  memset(out, 0, sizeof *out);
  out->inner = inner;
  out->extent = extent;
  out->bound = bound;
  out->bits = bits;
  u128 span = (u128)inner * extent;
  ixj_divider_make(inner, bound, bits, &out->quotient, NULL);
  if (span > bound) { /* n / P < D already: no modulo */
    out->form = IXJ_DIGIT_QUOTIENT;
    out->cost = out->quotient.cost;
    return IXJ_OK;
  }
  ixj_remainder_make(extent, bound / inner, bits, &out->remainder, NULL);
  out->form = IXJ_DIGIT_DIVMOD;
  out->cost = out->quotient.cost + out->remainder.cost;
  if (out->cost > 2 && span <= word_mask(bits) && direct_constant((uint64_t)span, bound, bits, &out->c)) {
    out->form = IXJ_DIGIT_DIRECT;
    out->cost = 2;
  }
  return IXJ_OK;
}

uint64_t ixj_digit_apply(const ixj_digit *dg, uint64_t n) {
  switch (dg->form) {
  case IXJ_DIGIT_QUOTIENT: return ixj_divider_apply(&dg->quotient, n);
  case IXJ_DIGIT_DIVMOD: return ixj_remainder_apply(&dg->remainder, ixj_divider_apply(&dg->quotient, n));
  case IXJ_DIGIT_DIRECT: return mulhi((dg->c * n) & word_mask(dg->bits), dg->extent, dg->bits);
  }
  return 0;
}

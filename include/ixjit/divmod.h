/* ixjit — bound-aware division by constants.
 *
 * For a divisor d >= 1 and an inclusive bound B on the dividend (0 <= n <= B),
 * choose the cheapest exact W-bit sequence (W = 32 or 64) for floor(n / d),
 * n mod d, and one mixed-radix coordinate floor(n / P) mod D. The emitters
 * print these sequences; ixj_*_apply evaluate them bit for bit as emitted code
 * would, so tests can check them against hardware division. */
#ifndef IXJIT_DIVMOD_H
#define IXJIT_DIVMOD_H

#include <stdint.h>

#include "ixjit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ixj_div_form {
  IXJ_DIV_SHIFT,   /* q = n >> K                    (K >= W means q = 0) */
  IXJ_DIV_MUL,     /* q = mulhi(n, M) >> (K - W)    round-up magic, M < 2^W */
  IXJ_DIV_MUL_INC, /* q = mulhi(n + 1, M) >> (K - W) round-down magic, M < 2^W */
  IXJ_DIV_FIXUP    /* M = 2^W + m: t = mulhi(n, m); q = (t + ((n - t) >> 1)) >> (K - W - 1) */
} ixj_div_form;

typedef struct ixj_divider {
  uint64_t divisor, bound;
  unsigned bits;       /* W */
  ixj_div_form form;
  uint64_t multiplier; /* M (MUL, MUL_INC), m = M - 2^W (FIXUP), 1 (SHIFT) */
  unsigned shift;      /* K: in every form q = floor(n' * M / 2^K) */
  int cost;            /* ALU operations in the sequence */
} ixj_divider;

/* The cheapest exact quotient sequence: a shift for powers of two (or when
 * B < d), else the round-up magic with the smallest shift, else the round-down
 * (n+1) form, else the fixup. For W = 32 and B < 2^31 no fixup is ever chosen.
 * Errors: IXJ_ERR_INVALID_ARGUMENT for d == 0 or W not 32/64,
 * IXJ_ERR_OUT_OF_RANGE for B (or d) not representable in W bits. */
IXJ_API ixj_status ixj_divider_make(uint64_t divisor, uint64_t bound, unsigned bits, ixj_divider *out,
                            ixj_error *err);
/* Evaluates the sequence in W-bit arithmetic (n must be <= bound). */
IXJ_API uint64_t ixj_divider_apply(const ixj_divider *dv, uint64_t n);
/* Short name of a form: "shift", "mul", "mul_inc", "fixup"; a static string,
 * never free it. */
IXJ_API const char *ixj_div_form_name(ixj_div_form form);
/* The full multiplier M as decimal text into the caller's buf (it has W+1
 * bits in the fixup form). */
IXJ_API void ixj_divider_multiplier_text(const ixj_divider *dv, char buf[48]);

typedef enum ixj_rem_form {
  IXJ_REM_ZERO,     /* d == 1: r = 0 */
  IXJ_REM_IDENTITY, /* B < d: r = n */
  IXJ_REM_MASK,     /* d = 2^k: r = n & (d - 1) */
  IXJ_REM_MULSUB    /* r = n - q * d with q from `quotient` */
} ixj_rem_form;
/* No "direct" remainder form: Lemire's r = mulhi((c*n) mod 2^W, d) with
 * c = ceil(2^W / d) is exact only when (c*d - 2^W) * B < 2^W, which implies that
 * the round-up quotient needs no shift, so n - q*d costs the same two ops. The
 * direct form pays off for a whole coordinate (IXJ_DIGIT_DIRECT below). */

typedef struct ixj_remainder {
  uint64_t divisor, bound;
  unsigned bits;
  ixj_rem_form form;
  ixj_divider quotient; /* MULSUB */
  int cost;
} ixj_remainder;

/* n mod d, cheapest form first; errors as ixj_divider_make. */
IXJ_API ixj_status ixj_remainder_make(uint64_t divisor, uint64_t bound, unsigned bits, ixj_remainder *out,
                              ixj_error *err);
IXJ_API uint64_t ixj_remainder_apply(const ixj_remainder *rm, uint64_t n);

/* One coordinate of a mixed-radix decomposition: floor(n / P) mod D, where P is
 * the product of the inner extents and D this dim's extent. */
typedef enum ixj_digit_form {
  IXJ_DIGIT_QUOTIENT, /* B < P*D: the outermost digit, floor(n / P) */
  IXJ_DIGIT_DIVMOD,   /* q = floor(n / P), then q mod D (bound B / P) */
  IXJ_DIGIT_DIRECT    /* mulhi((c * n) mod 2^W, D) with c = ceil(2^W / (P*D)) */
} ixj_digit_form;

typedef struct ixj_digit {
  uint64_t inner, extent, bound; /* P, D, B */
  unsigned bits;
  ixj_digit_form form;
  ixj_divider quotient;   /* QUOTIENT, DIVMOD */
  ixj_remainder remainder; /* DIVMOD */
  uint64_t c;             /* DIRECT */
  int cost;
} ixj_digit;

/* Errors as ixj_divider_make (with inner for d), and IXJ_ERR_INVALID_ARGUMENT
 * for extent 0. */
IXJ_API ixj_status ixj_digit_make(uint64_t inner, uint64_t extent, uint64_t bound, unsigned bits, ixj_digit *out,
                          ixj_error *err);
IXJ_API uint64_t ixj_digit_apply(const ixj_digit *dg, uint64_t n);

#ifdef __cplusplus
}
#endif
#endif

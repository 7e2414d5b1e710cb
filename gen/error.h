/* Internal: filling an ixj_error. */
#ifndef IXJIT_GEN_ERROR_H
#define IXJIT_GEN_ERROR_H

#include "ixjit/status.h"

#if defined(__GNUC__)
#define IXJ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define IXJ_PRINTF(a, b)
#endif

/* Fills *err (when non-NULL) and returns status, so callers can write
 * `return ixj__fail(err, IXJ_ERR_..., "...", ...);`. */
ixj_status ixj__fail(ixj_error *err, ixj_status status, const char *fmt, ...) IXJ_PRINTF(3, 4);
/* Refuses missing (NULL) pointer arguments of a public call with an error. */
#define IXJ_REQUIRE_ARGS(err, cond)                                                               \
  do {                                                                                           \
    if (!(cond)) return ixj__fail((err), IXJ_ERR_INVALID_ARGUMENT, "%s: NULL argument", __func__); \
  } while (0)

/* An internal invariant: in every build a broken one returns
 * IXJ_ERR_INTERNAL with the condition and place, never aborts. */
#define IXJ_ASSERT(err, cond)                                                                          \
  do {                                                                                                \
    if (!(cond))                                                                                      \
      return ixj__fail((err), IXJ_ERR_INTERNAL, "internal error: %s (%s:%d)", #cond, __FILE__, __LINE__); \
  } while (0)

#endif

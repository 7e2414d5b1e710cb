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
 * `return ixj_fail(err, IXJ_ERR_..., "...", ...);`. */
ixj_status ixj_fail(ixj_error *err, ixj_status status, const char *fmt, ...) IXJ_PRINTF(3, 4);
/* Refuses missing (NULL) pointer arguments of a public call with an error. */
#define IXJ_REQUIRE_ARGS(err, cond)                                                               \
  do {                                                                                           \
    if (!(cond)) return ixj_fail((err), IXJ_ERR_INVALID_ARGUMENT, "%s: NULL argument", __func__); \
  } while (0)

#endif

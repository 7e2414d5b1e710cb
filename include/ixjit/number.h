/* ixjit — sizes and counts as people write them, parsed one way everywhere:
 * the library's environment variables (IXJIT_CACHE_MAX_BYTES,
 * IXJIT_NUM_THREADS) and the CLI's options read them with these calls.
 *
 * The text is decimal digits and nothing else: no sign, no leading or
 * trailing space, no "0x", no empty string. A size may end in one suffix,
 * case as written: K or k (10^3), M (10^6), G (10^9), Ki (2^10), Mi (2^20),
 * Gi (2^30); so "10k" is 10000 and "500Mi" is 524288000. A value beyond
 * 2^64 - 1 is an error, never a wrapped or saturated number. */
#ifndef IXJIT_NUMBER_H
#define IXJIT_NUMBER_H

#include <stdint.h>

#include "ixjit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A size (suffixes allowed) in [min, max] into *out. IXJ_ERR_PARSE for
 * malformed text, IXJ_ERR_OVERFLOW beyond 64 bits, IXJ_ERR_OUT_OF_RANGE
 * outside [min, max]; *out is untouched on error. */
IXJ_API ixj_status ixj_parse_size(const char *text, uint64_t min, uint64_t max, uint64_t *out, ixj_error *err);
/* A count (digits only, no suffix) in [min, max]: the same errors. */
IXJ_API ixj_status ixj_parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif

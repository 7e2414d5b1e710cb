/* ixjit — status codes and error messages shared by every public call.
 *
 * Every fallible function returns an ixj_status and, when the caller passes a
 * non-NULL ixj_error, fills it with the status, a column (1-based, text input
 * only, 0 otherwise) and a message that names the problem. The library never
 * prints, aborts or exits. */
#ifndef IXJIT_STATUS_H
#define IXJIT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ixj_status {
  IXJ_OK = 0,
  IXJ_ERR_INVALID_ARGUMENT, /* a bad value: permutation, extent, index, ... */
  IXJ_ERR_PARSE,            /* malformed IXFUN text */
  IXJ_ERR_OUT_OF_RANGE,     /* an index or offset outside its dimension / base */
  IXJ_ERR_OVERFLOW,         /* a shape, stride or offset overflows 64-bit arithmetic */
  IXJ_ERR_NO_MEMORY,
  IXJ_ERR_MISMATCH,         /* two index functions that cannot be combined */
  IXJ_ERR_LIMIT             /* beyond a documented limit (rank, chain length, nesting) */
} ixj_status;

#define IXJ_ERROR_MESSAGE_SIZE 256

typedef struct ixj_error {
  ixj_status status;
  int column;
  char message[IXJ_ERROR_MESSAGE_SIZE];
} ixj_error;

/* A short constant name for a status ("ok", "parse error", ...). */
const char *ixj_status_name(ixj_status status);

#ifdef __cplusplus
}
#endif
#endif

/* ixjit — status codes and error messages shared by every public call.
 *
 * Every fallible function returns an ixj_status and, when the caller passes a
 * non-NULL ixj_error, fills it with the status, a column (1-based, text input
 * only, 0 otherwise) and a message that names the problem. The library never
 * prints, aborts or exits. */
#ifndef IXJIT_STATUS_H
#define IXJIT_STATUS_H

/* IXJ_API marks every public declaration: the library is built with
 * -fvisibility=hidden, so only these symbols are exported. */
#if defined(IXJIT_BUILDING_LIBRARY) && defined(__GNUC__)
#define IXJ_API __attribute__((visibility("default")))
#else
#define IXJ_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The result of every fallible call. Codes keep their numeric values across
 * releases; new ones are only ever appended. */
typedef enum ixj_status {
  IXJ_OK = 0,
  IXJ_ERR_INVALID_ARGUMENT, /* a bad value: permutation, extent, index, ... */
  IXJ_ERR_PARSE,            /* malformed IXFUN text */
  IXJ_ERR_OUT_OF_RANGE,     /* an index or offset outside its dimension / base */
  IXJ_ERR_OVERFLOW,         /* a shape, stride or offset overflows 64-bit arithmetic */
  IXJ_ERR_NO_MEMORY,
  IXJ_ERR_MISMATCH,         /* two index functions that cannot be combined */
  IXJ_ERR_LIMIT,            /* beyond a documented limit (rank, chain length, nesting) */
  IXJ_ERR_UNAVAILABLE,      /* a backend that is not there: no NVRTC, no CUDA driver, no GPU */
  IXJ_ERR_BACKEND,          /* LLVM, NVRTC or the CUDA driver failed on valid input */
  IXJ_ERR_IO,               /* a file or directory (the disk cache, a record file) cannot be used */
  IXJ_ERR_INTERNAL          /* a broken invariant inside ixjit: a bug, please report it */
} ixj_status;

#define IXJ_ERROR_MESSAGE_SIZE 256

typedef struct ixj_error {
  ixj_status status;
  int column;
  char message[IXJ_ERROR_MESSAGE_SIZE];
} ixj_error;

/* A short constant name for a status ("ok", "parse error", ...). */
IXJ_API const char *ixj_status_name(ixj_status status);

/* Frees a string or binary that an ixjit call returned to the caller
 * (IR, CUDA C, signatures, images, formatted index functions). NULL is fine. */
IXJ_API void ixj_free(void *ptr);

#ifdef __cplusplus
}
#endif
#endif

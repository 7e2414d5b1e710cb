/* ixjit — status codes and error messages shared by every public call.
 *
 * Every fallible function returns an ixj_status and, when the caller passes a
 * non-NULL ixj_error, fills it with the status, a column (1-based, text input
 * only, 0 otherwise) and a message that names the problem. The library never
 * prints, aborts or exits.
 *
 * Ownership, for every header: whatever an ixjit call hands back to the
 * caller in a char ** or void ** out-parameter (IR, CUDA C, kernel names,
 * signatures, images, record lines, formatted index functions) is the
 * caller's and is freed with ixj_free; handles have their own destroy or free
 * call, named beside the call that makes them. Inputs (strings, index
 * functions, options) are only read and may be freed when the call returns,
 * unless the header says otherwise. Each header says how long a returned
 * `const char *` lives. */
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
 * releases; new ones are only ever appended. Each function's comment lists
 * the codes it returns besides these two, which any call that allocates or
 * takes pointers may return:
 *   IXJ_ERR_NO_MEMORY         malloc failed;
 *   IXJ_ERR_INVALID_ARGUMENT  a required pointer argument is NULL. */
typedef enum ixj_status {
  IXJ_OK = 0,
  /* The caller's mistake in a value: a permutation, an extent, an element
   * size, a cat axis, an overlap of source and destination, an option out
   * of range, a malformed CUDA architecture name. Fix the input; retrying
   * the same call fails the same way. */
  IXJ_ERR_INVALID_ARGUMENT,
  /* Malformed text: IXFUN syntax (ixj_ixfun_parse, with err->column) or a
   * record line (ixj_record_parse). */
  IXJ_ERR_PARSE,
  /* An index or offset outside its dimension or base (ixfun operations,
   * ixj_ixfun_index), or an operand whose index function reaches outside its
   * buffer (every operation; "buffer too small"). */
  IXJ_ERR_OUT_OF_RANGE,
  /* A shape, stride or offset whose arithmetic overflows 64 bits (ixfun
   * construction and operations, DLPack shapes, cat extents), or a byte
   * count that overflows size_t (ixj_ixfun_required_bytes). */
  IXJ_ERR_OVERFLOW,
  /* Out of memory, anywhere. */
  IXJ_ERR_NO_MEMORY,
  /* Two things that cannot be combined: operand shapes of an operation,
   * element sizes or devices of DLPack tensors, index functions that
   * ixj_ixfun_rebase or ixj_ixfun_generalize cannot join. */
  IXJ_ERR_MISMATCH,
  /* Beyond a documented limit: IXJ_MAX_RANK dims, IXJ_MAX_LMADS LMADs,
   * IXJ_MAX_CAT_INPUTS inputs, text nesting, or worker threads the system
   * will not start (ixj_context_create). */
  IXJ_ERR_LIMIT,
  /* A backend that is not there: no NVRTC library, no CUDA driver, no GPU
   * (the CUDA calls of cuda.h and emit.h, CUDA DLPack tensors). The CPU path
   * never returns it. */
  IXJ_ERR_UNAVAILABLE,
  /* LLVM, NVRTC or the CUDA driver failed on input ixjit had accepted (a
   * kernel that does not compile, load or launch): the calls that compile or
   * run kernels. The message carries the backend's own words. */
  IXJ_ERR_BACKEND,
  /* A file or directory that cannot be used where the call's whole point is
   * that file: ixj_cache_scan/prune/clear on an unreadable directory, ixj_warm
   * and ixj_warm_cuda when the kernel cannot be written to the disk cache.
   * The operations themselves never fail for the disk cache: they warn once
   * through the context's log callback and go on without it. */
  IXJ_ERR_IO,
  /* A broken invariant inside ixjit: a bug, please report it with the
   * message. Any call that plans or emits a kernel may return it. */
  IXJ_ERR_INTERNAL
} ixj_status;

#define IXJ_ERROR_MESSAGE_SIZE 256

typedef struct ixj_error {
  ixj_status status;
  int column;
  char message[IXJ_ERROR_MESSAGE_SIZE];
} ixj_error;

/* A short name for a status ("ok", "parse error", ...). The string is static:
 * never free it. An unknown value gets a name too, never NULL. */
IXJ_API const char *ixj_status_name(ixj_status status);

/* Frees a string or binary that an ixjit call returned to the caller
 * (IR, CUDA C, kernel names, signatures, images, record lines, formatted
 * index functions). NULL is fine. Use it rather than free(): the library
 * and the caller may not share one C runtime. */
IXJ_API void ixj_free(void *ptr);

#ifdef __cplusplus
}
#endif
#endif

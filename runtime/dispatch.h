/* Internal: the one pipeline behind every public operation, warming and
 * emission call, for every backend:
 *
 *   target -> validate -> plan -> key -> cache -> launch
 *
 * (a CPU copy or fill of single-LMAD operands first tries the fast path of
 * call_cache.h: its checks, then the launch), where "cache" is the context's memory cache (single flight per signature),
 * then the disk cache, then a compile (emit + toolchain), written back to the
 * disk and recorded (IXJIT_RECORD). Warming stops before the launch (and,
 * for a target this process cannot load, before the memory cache); emission
 * stops after emitting. Safe to call from many threads on one context.
 *
 * Tiered execution (IXJIT_COMPILE=async|cache-only, CPU only): a RUN whose
 * kernel is not ready runs the generic kernel (generic.h) instead of
 * waiting; async queues the compile on the context's compiler thread
 * (compiler_thread.h), cache-only tries the disk tier alone. */
#ifndef IXJIT_RUNTIME_DISPATCH_H
#define IXJIT_RUNTIME_DISPATCH_H

#include <stdbool.h>

#include "backend.h"
#include "ixjit/ixjit.h" /* ops and warming outcomes */
#include "validate.h"

typedef enum dispatch_mode {
  DISPATCH_RUN,  /* run the operation on its buffers */
  DISPATCH_WARM, /* put its kernel into the disk cache (memory too when loadable) */
  DISPATCH_EMIT, /* return its kernel's source text */
  DISPATCH_PREPARE /* find or make its kernel and return it with the plan, launching nothing (kernel.c) */
} dispatch_mode;

typedef struct dispatch_request {
  dispatch_mode mode;
  const ixj__backend *backend;
  const char *arch; /* NULL: this process's target; WARM and EMIT may name one ("sm_90") */
  op_call call;     /* RUN: operands with buffers; WARM, EMIT: call.shapes_only, no buffers */
  bool aligned;     /* WARM, EMIT: whether the memory will be aligned (it selects the vector width) */
  void *stream;     /* RUN on CUDA: a CUstream, NULL for the default one */
  bool timed;       /* RUN: the caller reads info.run_ms (else the fast path skips the clock) */
  struct ixj_plan *plan_out; /* PREPARE: the caller's, gets the plan */
  int device;       /* RUN, PREPARE on a backend with devices (CUDA): the device index; else 0 */
} dispatch_request;

typedef struct dispatch_result {
  ixj_call_info info;       /* RUN */
  ixj_warm_outcome outcome; /* WARM */
  char *text;               /* EMIT: the kernel's source, or a note that the plan needs none */
  char *signature;          /* EMIT */
  char kernel_name[48];     /* EMIT */
  kernel_slot *slot;        /* PREPARE: the kernel's slot (ready, or for async and cache-only maybe not yet), NULL
                               for a plan without one; it lives as long as the context */
} dispatch_result;

/* Runs the pipeline. *out is always initialized; on IXJ_OK with EMIT, text
 * and signature are malloc'ed and the caller's (free them with free or
 * ixj_free), else they are NULL. The request's index functions and buffers
 * are only read (RUN writes the destination). */
ixj_status ixj__dispatch(ixj_context *ctx, const dispatch_request *req, dispatch_result *out, ixj_error *err);

/* The same for WARM and EMIT of an operation given by index functions only
 * (srcs: 1 for copy, 0 for fill, num_srcs for cat; borrowed). */
ixj_status ixj__dispatch_shapes(ixj_context *ctx, dispatch_mode mode, const ixj__backend *backend, const char *arch,
                                ixj_op_kind op, const ixj_ixfun *dst, int num_srcs, const ixj_ixfun *const *srcs,
                                int axis, size_t elem_size, bool aligned, dispatch_result *out, ixj_error *err);

#endif

/* Internal: CUDA C for a plan, from the templates in templates/cuda/. Every
 * div/mod of the index math is the explicit multiply-high sequence that
 * gen/divmod chose for the bound the plan proves (__umulhi, __umul64hi only
 * where the bound needs 64 bits). Two other division styles exist only to
 * measure against: NVRTC's own constant division, and PyTorch-style runtime
 * magic read from the kernel arguments. */
#ifndef IXJIT_GEN_EMIT_CUDA_H
#define IXJIT_GEN_EMIT_CUDA_H

#include "plan.h"

typedef enum cuda_division {
  CUDA_DIV_MAGIC,   /* bound-aware sequences with literal constants (ixjit) */
  CUDA_DIV_PLAIN,   /* n / D and n % D on literal constants (NVRTC reduces them) */
  CUDA_DIV_RUNTIME  /* IntDivider-style magic from the arguments (PyTorch) */
} cuda_division;

#define CUDA_THREADS_PER_BLOCK 256
#define CUDA_UNITS_PER_THREAD 4

#define CUDA_MAX_RUNTIME_DIVISORS 64

/* CUDA_DIV_RUNTIME: the divisors the kernel reads from a.div_value[k] (and
 * its IntDivider magic from a.div_magic[k], a.div_shift[k]), in order. */
typedef struct cuda_divisors {
  int count;
  uint32_t value[CUDA_MAX_RUNTIME_DIVISORS];
} cuda_divisors;

/* malloc'ed CUDA C defining extern "C" `name`; divisors may be NULL. */
ixj_status ixj__emit_cuda(const ixj_plan *p, const char *name, const char *signature, cuda_division division, char **out,
                     ixj_error *err);
ixj_status ixj__emit_cuda_runtime(const ixj_plan *p, const char *name, char **out, cuda_divisors *divisors, ixj_error *err);
/* Blocks and threads per block for the plan's work units. */
void ixj__cuda_launch_shape(const ixj_plan *p, uint64_t units, unsigned *blocks, unsigned *block_x, unsigned *block_y);

#endif

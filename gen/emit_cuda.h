/* Internal: CUDA C for a plan, from the templates in templates/cuda/. The
 * index math is the program of gen/lower.h, printed as CUDA C: every div/mod
 * is the multiply-high sequence gen/divmod chose for the bound the plan proves
 * (__umulhi, __umul64hi only where the bound needs 64 bits). Two other
 * division styles exist only to measure against: NVRTC's own constant
 * division, and PyTorch-style runtime magic read from the kernel arguments.
 * Everything the runtime needs to launch a kernel (block shape, argument
 * block) is defined here, next to the code that depends on it. */
#ifndef IXJIT_GEN_EMIT_CUDA_H
#define IXJIT_GEN_EMIT_CUDA_H

#include "plan.h"

typedef enum cuda_division {
  CUDA_DIV_MAGIC,   /* bound-aware sequences with literal constants (ixjit) */
  CUDA_DIV_PLAIN,   /* n / D and n % D on literal constants (NVRTC reduces them) */
  CUDA_DIV_RUNTIME  /* IntDivider-style magic from the arguments (PyTorch) */
} cuda_division;

#define CUDA_THREADS_PER_BLOCK 256 /* elementwise kernels: __launch_bounds__ and the launch */
#define CUDA_UNITS_PER_THREAD 4    /* elementwise kernels: consecutive units per thread */
#define CUDA_TILE_ROWS 8           /* tiled kernels: threads per block = tile x CUDA_TILE_ROWS */

#define CUDA_MAX_RUNTIME_DIVISORS 64

/* CUDA_DIV_RUNTIME: the divisors the kernel reads from a.div_value[k] (and
 * its IntDivider magic from a.div_magic[k], a.div_shift[k]), in order. */
typedef struct cuda_divisors {
  int count;
  uint32_t value[CUDA_MAX_RUNTIME_DIVISORS];
} cuda_divisors;

/* The kernel's argument block, struct ixj_args of templates/cuda/prelude.cu:
 * byte offsets of its fields and its size. The prelude is filled with these
 * numbers and static_asserts them, so NVRTC refuses a layout that drifted. */
typedef struct cuda_args_layout {
  int operands, divisors;
  size_t ptr_at, off_at, value_at, magic_at, shift_at, divisor_at, size;
} cuda_args_layout;

#define CUDA_ARGS_MAX_BYTES (16 * PLAN_MAX_OPERANDS + 16 + 12 * CUDA_MAX_RUNTIME_DIVISORS + 8)

/* The layout for `operands` operands and `divisors` runtime divisors (at least
 * one slot each array is laid out, as the struct declares). */
void ixj__cuda_args_layout(int operands, int divisors, cuda_args_layout *out);
/* Packs the argument block of a kernel of plan p into buf[size]: operand
 * pointers (ptrs[0] the destination, then the sources; a fill reads none),
 * their runtime offsets (from the plan), the fill value (elem_size bytes; NULL
 * unless a fill) and, for CUDA_DIV_RUNTIME kernels, the divisors with their
 * IntDivider magic (NULL otherwise). *used gets the block's size. */
ixj_status ixj__cuda_pack_args(const ixj_plan *p, const void *const *ptrs, const void *fill_value,
                               const cuda_divisors *divisors, void *buf, size_t size, size_t *used, ixj_error *err);

/* CUDA C defining extern "C" `name`: *out is malloc'ed. */
ixj_status ixj__emit_cuda(const ixj_plan *p, const char *name, const char *signature, cuda_division division,
                          char **out, ixj_error *err);
/* The CUDA_DIV_RUNTIME variant; *divisors gets the divisors it reads. */
ixj_status ixj__emit_cuda_runtime(const ixj_plan *p, const char *name, char **out, cuda_divisors *divisors,
                                  ixj_error *err);
/* Blocks and threads per block for `units` of the plan's work units. */
void ixj__cuda_launch_shape(const ixj_plan *p, uint64_t units, unsigned *blocks, unsigned *block_x, unsigned *block_y);
/* The work units of one launch when a launch may have at most max_blocks
 * blocks (0: the driver's limit, 2^31 - 1; elementwise kernels keep half of
 * it, so that a thread's first unit never nears 2^63). Every chunk but the
 * last is a whole number of blocks, so each begins on a whole vector. */
uint64_t ixj__cuda_units_per_launch(const ixj_plan *p, uint64_t max_blocks);

#endif

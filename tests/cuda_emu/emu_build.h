/* Emitted CUDA C compiled as host C++ and loaded: many kernels per
 * translation unit (each in a namespace of its own, behind an extern "C"
 * entry that unpacks the argument block), compiled by the host C++ compiler
 * against cuda_shim.h with alignment and overflow checks that trap, into a
 * cache directory keyed by the unit's text and the command (a rerun compiles
 * nothing; units no longer used are removed), at most `jobs` compilers at
 * once. */
#ifndef IXJIT_TESTS_CUDA_EMU_BUILD_H
#define IXJIT_TESTS_CUDA_EMU_BUILD_H

#include <stddef.h>

#include "emu_abi.h"

typedef struct emu_kernel {
  char *source;          /* the emitted CUDA C (owned); its kernel is extern "C" `name` */
  char name[32];
  ixj_emu_kernel_fn fn;  /* after the build */
  size_t args_size;      /* sizeof(ixj_args) as the host compiler laid it out */
  unsigned launch_bound; /* __launch_bounds__ (0: none) */
} emu_kernel;

typedef struct emu_builder {
  const char *cxx;       /* the host C++ compiler */
  const char *shim_dir;  /* where cuda_shim.h is */
  const char *cache_dir;
  int jobs;              /* compilers at once */
  int per_unit;          /* kernels per translation unit */
} emu_builder;

/* Builds and loads kernels[0..n). 0, or -1 with a message. */
int ixj__emu_build(const emu_builder *b, emu_kernel *kernels, int n, char *why, size_t why_size);

/* Frees the kernels' sources and the array (the loaded code stays). */
void ixj__emu_free_kernels(emu_kernel *kernels, int n);

/* The source with each `__shared__ T name[..]..;` turned into a reference to
 * the block's shared bytes (malloc'ed; NULL when out of memory); *bound gets
 * the __launch_bounds__ value. */
char *ixj__emu_rewrite(const char *source, unsigned *bound);

#endif

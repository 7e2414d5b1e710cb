/* The C interface between the emulator's runner (emu_runtime.c, C) and the
 * emulated kernels (CUDA C compiled as host C++ against cuda_shim.h, loaded
 * from a shared object). The runner owns the CUDA thread being run; a kernel
 * reads its coordinates from ixj_emu_current and calls back for barriers and
 * static shared memory. */
#ifndef IXJIT_TESTS_CUDA_EMU_ABI_H
#define IXJIT_TESTS_CUDA_EMU_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ixj_emu_uint3 {
  unsigned x, y, z;
} ixj_emu_uint3;

/* What one emulated CUDA thread sees. */
typedef struct ixj_emu_thread_view {
  ixj_emu_uint3 thread_idx, block_idx, block_dim, grid_dim;
} ixj_emu_thread_view;

/* The thread running now (fibers switch only inside ixj_emu_syncthreads, so
 * this never changes under a kernel between two barriers). */
extern const ixj_emu_thread_view *ixj_emu_current;

/* __syncthreads() at source line `site`: returns when every thread of the
 * block has reached it (a block whose threads reach different barriers, or
 * a barrier that some threads have exited past, is reported as a failure). */
void ixj_emu_syncthreads(int site);
/* The next static __shared__ variable of the running thread (in declaration
 * order): the same bytes for every thread of a block, garbage when a block
 * starts. */
void *ixj_emu_shared_alloc(size_t size, size_t align);

/* An emulated kernel: the argument block's bytes, then (begin, end). */
typedef void (*ixj_emu_kernel_fn)(const void *args, long long begin, long long end);

#ifdef __cplusplus
}
#endif
#endif

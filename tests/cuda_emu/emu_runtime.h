/* The emulator's runner: a CUDA grid run on the host, one block at a time, the
 * block's threads as fibers (ucontext) so that __syncthreads() is a real
 * barrier. Blocks run in a shuffled order, the threads of a block in a
 * shuffled order between barriers, and static shared memory starts as
 * garbage in every block. Single-threaded: one launch at a time per process. */
#ifndef IXJIT_TESTS_CUDA_EMU_RUNTIME_H
#define IXJIT_TESTS_CUDA_EMU_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "emu_abi.h"
#include "plan.h"

typedef struct emu_config {
  uint64_t seed;           /* block and thread order, shared-memory garbage */
  uint64_t chunk_blocks;   /* 0: launches as large as the runtime's; else at most this many blocks each */
  unsigned launch_bound;   /* the kernel's __launch_bounds__ (0: none declared) */
} emu_config;

/* One launch: blocks x (block_x, block_y) threads running fn(args, begin,
 * end). 0, or -1 with a message in why. */
int ixj__emu_launch(ixj_emu_kernel_fn fn, const void *args, unsigned blocks, unsigned block_x, unsigned block_y,
                    long long begin, long long end, const emu_config *cfg, char *why, size_t why_size);

/* Every work unit of plan p, as runtime/backend_cuda.c launches them: chunks
 * of ixj__cuda_units_per_launch units (or of cfg->chunk_blocks blocks), each
 * shaped by ixj__cuda_launch_shape, with (begin, end) of the chunk. */
int ixj__emu_run_plan(const ixj_plan *p, ixj_emu_kernel_fn fn, const void *args, const emu_config *cfg, char *why,
                      size_t why_size);

/* Units [from, to) the same way, as if the grid began at `from` (a multiple
 * of the units per block): windows of a space too large to run whole. */
int ixj__emu_run_units(const ixj_plan *p, ixj_emu_kernel_fn fn, const void *args, const emu_config *cfg, uint64_t from,
                       uint64_t to, char *why, size_t why_size);

/* The block and thread being run, for a crash report (NULL outside a launch). */
const ixj_emu_thread_view *ixj__emu_running(void);

#endif

/* Spaces of more than 2^32 points (64-bit index math), and views whose
 * offsets pass 2^31 (64-bit offsets with 32-bit indices), run as windows of
 * work units near the start, the middle and the end of the space, as
 * tests/unit/test_jit64.c does on the CPU. The buffers span the whole views
 * but only touched pages exist: each source page is filled on its first read
 * with a tag of every offset in it; afterwards every destination page the
 * window touched is read back (mincore), each written element's offset names
 * its point (the destinations are row-major), and its bytes must be the tag
 * of the source offset the index function gives for that point. The number
 * of written elements must be the window's. */
#ifndef IXJIT_TESTS_CUDA_EMU_HUGE_H
#define IXJIT_TESTS_CUDA_EMU_HUGE_H

#include "emu_case.h"

/* Appends the built-in huge cases. */
int ixj__emu_add_huge(emu_case **cases, int *n, char *why, size_t why_size);
/* Runs one (as ixj__emu_run_case; buf unused but cleared). */
int ixj__emu_run_huge(emu_case *c, const emu_kernel *kernels, emu_buffer *buf);

#endif

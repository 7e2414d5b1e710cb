/* Buffers for emulated kernels: the data between two inaccessible pages, its
 * end as close to the upper one as its alignment allows (an overrun faults),
 * its start at a chosen offset from a 16-byte boundary (so that the plan's
 * alignment proof sees the same address it will run on). */
#ifndef IXJIT_TESTS_CUDA_EMU_BUFFER_H
#define IXJIT_TESTS_CUDA_EMU_BUFFER_H

#include <stddef.h>
#include <stdint.h>

typedef struct emu_buffer {
  unsigned char *map;    /* the whole mapping: guard, region, guard */
  size_t map_size;
  unsigned char *region; /* the accessible pages */
  size_t region_size;
  unsigned char *data;   /* offset 0 of the view */
  size_t size;           /* bytes the view spans from data */
} emu_buffer;

/* Where data will start for a region starting at region_start (page-aligned). */
uintptr_t ixj__emu_buffer_place(uintptr_t region_start, size_t size, size_t misalign);
/* Maps a buffer of `size` bytes (0 allowed) whose start is misalign bytes past
 * a 16-byte boundary (misalign < 16); the region is filled from *seed. 0 or -1. */
int ixj__emu_buffer_alloc(emu_buffer *b, size_t size, size_t misalign, uint64_t *seed);
/* The whole region becomes read-only (sources: a store into them faults). */
int ixj__emu_buffer_readonly(emu_buffer *b);
void ixj__emu_buffer_free(emu_buffer *b);
/* -1 when addr is in the guard page below, 1 above, 0 otherwise. */
int ixj__emu_buffer_guard(const emu_buffer *b, uintptr_t addr);

#endif

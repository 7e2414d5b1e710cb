/* Guard-page buffers (emu_buffer.h). */
#define _GNU_SOURCE
#include "emu_buffer.h"

#include <string.h>
#include <sys/mman.h>

#define PAGE 4096u

static size_t region_bytes(size_t size) { return (size + 32 + PAGE - 1) / PAGE * PAGE; }

uintptr_t ixj__emu_buffer_place(uintptr_t region_start, size_t size, size_t misalign) {
  uintptr_t end = region_start + region_bytes(size);
  uintptr_t at = ((end - size) & ~(uintptr_t)15) + misalign;
  if (at + size > end) at -= 16;
  return at;
}

int ixj__emu_buffer_alloc(emu_buffer *b, size_t size, size_t misalign, uint64_t *seed) {
  memset(b, 0, sizeof *b);
  b->region_size = region_bytes(size);
  b->map_size = b->region_size + 2 * PAGE;
  b->map = mmap(NULL, b->map_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b->map == MAP_FAILED) {
    b->map = NULL;
    return -1;
  }
  b->region = b->map + PAGE;
  if (mprotect(b->region, b->region_size, PROT_READ | PROT_WRITE)) return -1;
  b->data = (unsigned char *)ixj__emu_buffer_place((uintptr_t)b->region, size, misalign);
  b->size = size;
  uint64_t s = *seed;
  for (size_t k = 0; k < b->region_size; k += 8) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    memcpy(b->region + k, &s, 8);
  }
  *seed = s;
  return 0;
}

int ixj__emu_buffer_readonly(emu_buffer *b) { return mprotect(b->region, b->region_size, PROT_READ); }

void ixj__emu_buffer_free(emu_buffer *b) {
  if (b->map) munmap(b->map, b->map_size);
  memset(b, 0, sizeof *b);
}

int ixj__emu_buffer_guard(const emu_buffer *b, uintptr_t addr) {
  uintptr_t lo = (uintptr_t)b->map, r = (uintptr_t)b->region, hi = r + b->region_size;
  if (!b->map) return 0;
  if (addr >= lo && addr < r) return -1;
  if (addr >= hi && addr < hi + PAGE) return 1;
  return 0;
}

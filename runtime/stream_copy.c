/* Streaming copies: the destination is written without being read first (a
 * normal store reads each line before writing it: a third of the traffic of a
 * large copy), and the output does not evict the caches' other contents.
 * glibc's memcpy switches to such stores only above a threshold derived from
 * the last-level cache size, which under a VM that reports a 105 MiB L3 is
 * never reached; the plan (gen/plan.c) chooses by measurement instead. */
#include "stream_copy.h"

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

/* Each line asks for the source PREFETCH_BYTES ahead, into L2: a loop of
 * only loads and streaming stores can issue its loads faster than the
 * hardware prefetchers fetch (templates/llvm/stream_copy.ll, the kernels'
 * copy of this loop, measured 0.92 -> 1.20 of the ceiling with it). This
 * loop, whose pointer updates pace it, gained less on the Intel Xeon of
 * round 29 (64 MiB, 1 / 2 threads: 26.4-26.8 -> 27.0-27.8 GB/s, 51.2 ->
 * 53.0). As glibc's large copies do, on every host. The address is formed as
 * an integer: it may lie past the source, where a prefetch is harmless. */
#define PREFETCH_BYTES 1024
static inline const char *ahead(const char *s) { return (const char *)((uintptr_t)s + PREFETCH_BYTES); }

/* Loads are unaligned (the source's alignment is the caller's); stores are on
 * line boundaries. */
__attribute__((target("avx512f"))) static void lines_avx512(char *d, const char *s, size_t lines) {
  for (size_t i = 0; i < lines; i++, d += 64, s += 64) {
    _mm_prefetch(ahead(s), _MM_HINT_T1);
    _mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
  }
}
__attribute__((target("avx2"))) static void lines_avx2(char *d, const char *s, size_t lines) {
  for (size_t i = 0; i < lines; i++, d += 64, s += 64) {
    _mm_prefetch(ahead(s), _MM_HINT_T1);
    __m256i a = _mm256_loadu_si256((const __m256i *)s), b = _mm256_loadu_si256((const __m256i *)(s + 32));
    _mm256_stream_si256((__m256i *)d, a);
    _mm256_stream_si256((__m256i *)(d + 32), b);
  }
}
static void lines_sse2(char *d, const char *s, size_t lines) {
  for (size_t i = 0; i < lines; i++, d += 64, s += 64) {
    _mm_prefetch(ahead(s), _MM_HINT_T1);
    for (int k = 0; k < 64; k += 16) _mm_stream_si128((__m128i *)(d + k), _mm_loadu_si128((const __m128i *)(s + k)));
  }
}

typedef void (*lines_fn)(char *, const char *, size_t);

/* The host's widest variant, chosen once; a race between two first callers
 * only stores the same pointer twice. */
static lines_fn choose(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return lines_avx512;
  if (__builtin_cpu_supports("avx2")) return lines_avx2;
  return lines_sse2;
}

void ixj__stream_copy(void *dst, const void *src, size_t n) {
  static lines_fn lines_of_host;
  lines_fn fn = __atomic_load_n(&lines_of_host, __ATOMIC_RELAXED);
  if (!fn) {
    fn = choose();
    __atomic_store_n(&lines_of_host, fn, __ATOMIC_RELAXED);
  }
  char *d = dst;
  const char *s = src;
  size_t head = (size_t)(-(uintptr_t)d & 63);
  if (head >= n) {
    memcpy(d, s, n);
    return;
  }
  memcpy(d, s, head);
  d += head, s += head, n -= head;
  fn(d, s, n / 64);
  memcpy(d + (n & ~(size_t)63), s + (n & ~(size_t)63), n & 63);
  _mm_sfence();
}

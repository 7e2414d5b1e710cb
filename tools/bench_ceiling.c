/* The ceiling a case is compared with: the same bytes moved by libc's memcpy
 * (memset for a fill) and by vector loads with non-temporal stores (which
 * skip the read-for-ownership of the destination), split over the same number
 * of threads as the ixjit run. The buffers come from bench_measure.c,
 * 64-byte aligned, and every thread's share starts on a 64-byte boundary. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"

/* The least bytes worth a thread of their own (below, the job runs inline). */
#define MIN_SHARE (128 << 10)

typedef enum isa { ISA_SSE2, ISA_AVX2, ISA_AVX512 } isa;

typedef struct job {
  isa isa;                   /* chosen by the calling thread */
  char *dst;
  const char *src;
  size_t n;
  unsigned char pattern[64]; /* fill: the value repeated */
  int kind;                  /* 0 memcpy, 1 nt copy, 2 memset, 3 nt fill */
} job;

static isa detect(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return ISA_AVX512;
  if (__builtin_cpu_supports("avx2")) return ISA_AVX2;
  return ISA_SSE2;
}

const char *bench_nt_isa(void) {
  isa i = detect();
  return i == ISA_AVX512 ? "avx512f" : i == ISA_AVX2 ? "avx2" : "sse2";
}

/* The non-temporal copy asks for its source NT_PREFETCH_BYTES ahead, into
 * L2: a loop of only loads and streaming stores issues its loads faster than
 * the hardware prefetchers fetch, and copied at 0.75-0.8 of what the same
 * loop copied with the prefetch on the Intel Xeon of round 29 (64 MiB, 1 / 2
 * threads: 20.4-24.2 against 27.0-27.8 GB/s, 38-40 against 50-53; 512 B to
 * 2 KiB ahead the same, a prefetch into L1 a little less, prefetchnta half).
 * Before round 29 the ceiling was the loop without it, which ixjit's own
 * memcpy path outran by 1.2-1.3x. A prefetch never faults, so those past the
 * source's end are harmless. */
#define NT_PREFETCH_BYTES 1024
/* the address NT_PREFETCH_BYTES past s + i, formed as an integer: it may lie
 * past the buffer, where pointer arithmetic is undefined */
static inline const char *ahead(const char *s, size_t i) {
  return (const char *)((uintptr_t)s + i + NT_PREFETCH_BYTES);
}

/* n is a multiple of 64 and both pointers are 64-byte aligned. */
__attribute__((target("avx512f"))) static void nt_copy_512(char *d, const char *s, size_t n) {
  for (size_t i = 0; i < n; i += 64) {
    _mm_prefetch(ahead(s, i), _MM_HINT_T1);
    _mm512_stream_si512((void *)(d + i), _mm512_load_si512((const void *)(s + i)));
  }
}
__attribute__((target("avx2"))) static void nt_copy_256(char *d, const char *s, size_t n) {
  for (size_t i = 0; i < n; i += 64) {
    _mm_prefetch(ahead(s, i), _MM_HINT_T1);
    __m256i a = _mm256_load_si256((const __m256i *)(s + i)), b = _mm256_load_si256((const __m256i *)(s + i + 32));
    _mm256_stream_si256((__m256i *)(d + i), a);
    _mm256_stream_si256((__m256i *)(d + i + 32), b);
  }
}
static void nt_copy_128(char *d, const char *s, size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    if (i % 64 == 0) _mm_prefetch(ahead(s, i), _MM_HINT_T1);
    _mm_stream_si128((__m128i *)(d + i), _mm_load_si128((const __m128i *)(s + i)));
  }
}
__attribute__((target("avx512f"))) static void nt_fill_512(char *d, const unsigned char *pattern, size_t n) {
  __m512i v = _mm512_loadu_si512((const void *)pattern);
  for (size_t i = 0; i < n; i += 64) _mm512_stream_si512((void *)(d + i), v);
}
__attribute__((target("avx2"))) static void nt_fill_256(char *d, const unsigned char *pattern, size_t n) {
  __m256i v = _mm256_loadu_si256((const __m256i *)pattern);
  for (size_t i = 0; i < n; i += 32) _mm256_stream_si256((__m256i *)(d + i), v);
}
static void nt_fill_128(char *d, const unsigned char *pattern, size_t n) {
  __m128i v = _mm_loadu_si128((const __m128i *)pattern);
  for (size_t i = 0; i < n; i += 16) _mm_stream_si128((__m128i *)(d + i), v);
}

static void run_share(void *arg, int tid, int nthreads) {
  const job *j = arg;
  size_t lines = j->n / 64, per = lines / (size_t)nthreads, extra = lines % (size_t)nthreads;
  size_t first = (size_t)tid * per + ((size_t)tid < extra ? (size_t)tid : extra);
  size_t count = per + ((size_t)tid < extra);
  size_t begin = first * 64, len = count * 64;
  if (tid == nthreads - 1) len = j->n - begin; /* the last share takes the tail */
  size_t body = len - len % 64;
  char *d = j->dst + begin;
  const char *s = j->src ? j->src + begin : NULL;
  isa i = j->isa;
  switch (j->kind) {
  case 0:
    memcpy(d, s, len);
    return;
  case 2:
    memset(d, j->pattern[0], len);
    return;
  case 1:
    if (i == ISA_AVX512) nt_copy_512(d, s, body);
    else if (i == ISA_AVX2) nt_copy_256(d, s, body);
    else nt_copy_128(d, s, body);
    memcpy(d + body, s + body, len - body);
    break;
  default:
    if (i == ISA_AVX512) nt_fill_512(d, j->pattern, body);
    else if (i == ISA_AVX2) nt_fill_256(d, j->pattern, body);
    else nt_fill_128(d, j->pattern, body);
    for (size_t k = body; k < len; k++) d[k] = (char)j->pattern[k % 64];
    break;
  }
  _mm_sfence(); /* the streamed lines are globally visible before the job ends */
}

static void pattern_of(job *j, const void *value, int elem_size) {
  for (int k = 0; k < 64; k++) j->pattern[k] = ((const unsigned char *)value)[k % elem_size];
}

void bench_memcpy(bench_team *t, void *dst, const void *src, size_t n) {
  job j = {.dst = dst, .src = src, .n = n, .kind = 0, .isa = detect()};
  bench_team_run(t, run_share, &j, bench_team_share((int64_t)n, MIN_SHARE));
}

void bench_nt_copy(bench_team *t, void *dst, const void *src, size_t n) {
  job j = {.dst = dst, .src = src, .n = n, .kind = 1, .isa = detect()};
  bench_team_run(t, run_share, &j, bench_team_share((int64_t)n, MIN_SHARE));
}

void bench_memset(bench_team *t, void *dst, const void *value, int elem_size, size_t n) {
  job j = {.dst = dst, .n = n, .kind = 2, .isa = detect()};
  pattern_of(&j, value, elem_size);
  bench_team_run(t, run_share, &j, bench_team_share((int64_t)n, MIN_SHARE));
}

void bench_nt_fill(bench_team *t, void *dst, const void *value, int elem_size, size_t n) {
  job j = {.dst = dst, .n = n, .kind = 3, .isa = detect()};
  pattern_of(&j, value, elem_size);
  bench_team_run(t, run_share, &j, bench_team_share((int64_t)n, MIN_SHARE));
}

/* Timing helpers shared by the demo and the benchmarks: a monotonic clock in
 * milliseconds and the median of a sample (which sorts it). */
#ifndef IXJIT_TOOLS_TIMING_H
#define IXJIT_TOOLS_TIMING_H

#include <stdlib.h>
#include <time.h>

static inline double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static inline int timing_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static inline double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, timing_cmp_double);
  return v[n / 2];
}

#endif

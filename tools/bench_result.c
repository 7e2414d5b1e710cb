/* The results of a bench run and their statistics: medians with min and max
 * over the repetitions (never means: one slow repetition must not move the
 * number much). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "timing.h"

bench_result *bench_run_add(bench_run *run) {
  if (run->count == run->cap) {
    /* Roomy from the start: code that holds a pointer across a few adds (the
     * micro-benchmarks) stays safe in any run smaller than this. */
    int cap = run->cap ? 2 * run->cap : 1024;
    bench_result *bigger = realloc(run->results, (size_t)cap * sizeof *bigger);
    if (!bigger) return NULL;
    run->results = bigger;
    run->cap = cap;
  }
  bench_result *r = &run->results[run->count++];
  memset(r, 0, sizeof *r);
  return r;
}

const bench_result *bench_run_find(const bench_run *run, const char *run_name) {
  for (int k = 0; k < run->count; k++)
    if (!strcmp(run->results[k].run_name, run_name)) return &run->results[k];
  return NULL;
}

void bench_run_free(bench_run *run) {
  free(run->results);
  run->results = NULL;
  run->count = run->cap = 0;
}

void bench_result_name(bench_result *r) {
  snprintf(r->run_name, sizeof r->run_name, "%s/%s/threads:%d", r->case_name, r->method, r->threads);
}

double bench_median_of(double *v, int n) {
  if (n <= 0) return 0;
  qsort(v, (size_t)n, sizeof *v, timing_cmp_double);
  /* the middle one, or the mean of the two middle ones */
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_median(const bench_result *r) {
  if (r->reps <= 0) return 0;
  double v[BENCH_MAX_REPS];
  memcpy(v, r->sec, (size_t)r->reps * sizeof *v);
  return bench_median_of(v, r->reps);
}

double bench_min(const bench_result *r) {
  double m = r->reps > 0 ? r->sec[0] : 0;
  for (int k = 1; k < r->reps; k++)
    if (r->sec[k] < m) m = r->sec[k];
  return m;
}

double bench_max(const bench_result *r) {
  double m = r->reps > 0 ? r->sec[0] : 0;
  for (int k = 1; k < r->reps; k++)
    if (r->sec[k] > m) m = r->sec[k];
  return m;
}

double bench_gbps(const bench_result *r) {
  double t = bench_median(r);
  return r->skipped || r->bytes <= 0 || t <= 0 ? 0 : r->bytes / t / 1e9;
}

/* Division benchmark: hardware u32/u64 division by a divisor the compiler
 * cannot see, against the sequence ixjit chooses for the exact bound, over the
 * same dividends. Reports medians of repeated runs and their ratio. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ixjit/divmod.h"
#include "timing.h"

#define N (1u << 20)
#define REPS 15

static uint64_t sink;

/* The chosen sequence as emitted code runs it (multiplier and shift in
 * registers, the form fixed outside the loop). */
static uint64_t magic_sum(const ixj_divider *dv, const uint32_t *n) {
  volatile uint64_t mv = dv->multiplier;
  volatile unsigned kv = dv->shift;
  const uint64_t m = mv;
  const unsigned k = kv, s = k - 32;
  uint64_t acc = 0;
  switch (dv->form) {
  case IXJ_DIV_SHIFT:
    for (uint32_t i = 0; i < N; i++) acc += k >= 32 ? 0 : n[i] >> k;
    break;
  case IXJ_DIV_MUL:
    for (uint32_t i = 0; i < N; i++) acc += ((uint64_t)n[i] * m) >> k;
    break;
  case IXJ_DIV_MUL_INC:
    for (uint32_t i = 0; i < N; i++) acc += ((uint64_t)(n[i] + 1u) * m) >> k;
    break;
  case IXJ_DIV_FIXUP:
    for (uint32_t i = 0; i < N; i++) {
      uint32_t t = (uint32_t)(((uint64_t)n[i] * m) >> 32);
      acc += (t + ((n[i] - t) >> 1)) >> (s - 1);
    }
    break;
  }
  return acc;
}

int main(void) {
  static const uint64_t cases[][2] = {{7, 100000000}, {7, 4294967295u}, {12, 1u << 20}, {641, 2147483647u}, {1000, 4294967294u}};
  uint32_t *n32 = malloc(N * sizeof *n32);
  if (!n32) return 1;
  printf("%-8s %-12s %-8s %14s %14s %8s\n", "divisor", "bound", "form", "hw ns/op", "magic ns/op", "speedup");
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    volatile uint64_t dvol = cases[c][0];
    uint32_t d = (uint32_t)dvol;
    ixj_divider dv;
    if (ixj_divider_make(cases[c][0], cases[c][1], 32, &dv, NULL) != IXJ_OK) return 1;
    srand(1);
    for (uint32_t k = 0; k < N; k++) n32[k] = (uint32_t)(((uint64_t)rand() << 16 ^ (uint64_t)rand()) % (cases[c][1] + 1));
    double hw[REPS], mg[REPS];
    for (int r = 0; r < REPS; r++) {
      uint64_t acc = 0;
      double t0 = now_ms();
      for (uint32_t k = 0; k < N; k++) acc += n32[k] / d;
      double t1 = now_ms();
      acc -= magic_sum(&dv, n32);
      double t2 = now_ms();
      sink += acc;
      hw[r] = (t1 - t0) * 1e6 / N;
      mg[r] = (t2 - t1) * 1e6 / N;
    }
    double h = median(hw, REPS), g = median(mg, REPS);
    printf("%-8llu %-12llu %-8s %14.3f %14.3f %7.2fx\n", (unsigned long long)cases[c][0],
           (unsigned long long)cases[c][1], ixj_div_form_name(dv.form), h, g, h / g);
  }
  free(n32);
  return sink == 12345 ? 2 : 0; /* keep the results alive */
}

/* The runtime's clock (see clock.h). */
#include "clock.h"

#include <time.h>

double ixj__now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The default thread count follows the process's CPU affinity (taskset, a
 * container's cpuset), not the online CPUs: pinned to one CPU, a context
 * runs on one thread, and IXJIT_NUM_THREADS still overrides it. */
#define _GNU_SOURCE
#include <sched.h>

#include "test_util.h"

static void one_cpu(void **state) {
  (void)state;
  cpu_set_t all, one;
  assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
  int first = 0;
  while (!CPU_ISSET(first, &all)) first++;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
  unsetenv("IXJIT_NUM_THREADS");
  ixj_context *ctx;
  ixj_context_options o = {.disk_cache = -1};
  assert_int_equal(ixj_context_create(&o, &ctx, NULL), IXJ_OK);
  assert_int_equal(ixj_context_num_threads(ctx), 1);
  ixj_context_destroy(ctx);
  setenv("IXJIT_NUM_THREADS", "3", 1);
  assert_int_equal(ixj_context_create(&o, &ctx, NULL), IXJ_OK);
  assert_int_equal(ixj_context_num_threads(ctx), 3);
  ixj_context_destroy(ctx);
  unsetenv("IXJIT_NUM_THREADS");
  /* back to every CPU: the mask's count */
  assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
  assert_int_equal(ixj_context_create(&o, &ctx, NULL), IXJ_OK);
  assert_int_equal(ixj_context_num_threads(ctx), CPU_COUNT(&all));
  ixj_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(one_cpu)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

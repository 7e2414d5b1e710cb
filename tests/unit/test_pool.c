/* The fork-join pool (runtime/pool.c) on its own: every unit of every job
 * runs exactly once, for jobs back to back (the workers still spinning from
 * the last one), after the workers have gone to sleep, from several callers
 * at once (a busy pool runs the second caller's job on its caller), and a
 * pool destroyed right after a job, while its workers spin; chunks start on
 * multiples of the alignment and end on one or at the last unit, with more
 * participants than the job has aligned pieces (empty shares) too. Run under
 * ThreadSanitizer by the tsan preset. Internal API. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "pool.h"
#include "test_util.h"

#define UNITS 4096

typedef struct counts {
  atomic_int hits[UNITS];
} counts;

static void count_units(void *arg, uint64_t begin, uint64_t end) {
  counts *c = arg;
  for (uint64_t u = begin; u < end; u++) atomic_fetch_add_explicit(&c->hits[u], 1, memory_order_relaxed);
}

/* Runs one job of `units` and checks that each ran once. */
static void one_job(thread_pool *p, uint64_t units, uint64_t grain, uint64_t align) {
  counts *c = calloc(1, sizeof *c);
  assert_non_null(c);
  ixj__pool_run(p, units, grain, align, count_units, c);
  for (uint64_t u = 0; u < UNITS; u++) assert_int_equal(atomic_load(&c->hits[u]), u < units ? 1 : 0);
  free(c);
}

static void test_back_to_back(void **state) {
  (void)state;
  thread_pool *p;
  assert_int_equal(ixj__pool_create(3, &p, NULL), IXJ_OK);
  uint64_t before = ixj__pool_jobs(p);
  for (int k = 0; k < 300; k++) one_job(p, 1 + (uint64_t)(k * 37) % UNITS, 1 + (uint64_t)k % 5, 1 + (uint64_t)k % 3);
  assert_true(ixj__pool_jobs(p) > before); /* most were large enough for the workers */
  ixj__pool_destroy(p);
}

static void test_after_sleep(void **state) {
  (void)state;
  thread_pool *p;
  assert_int_equal(ixj__pool_create(2, &p, NULL), IXJ_OK);
  for (int k = 0; k < 3; k++) {
    struct timespec pause = {0, 5 * 1000 * 1000}; /* 5 ms: well past the spin, the workers sleep */
    nanosleep(&pause, NULL);
    one_job(p, UNITS, 16, 1);
  }
  ixj__pool_destroy(p);
}

static thread_pool *shared;

static void *caller(void *arg) {
  (void)arg;
  for (int k = 0; k < 100; k++) one_job(shared, UNITS - (uint64_t)k, 8, 4);
  return NULL;
}

static void test_callers_at_once(void **state) {
  (void)state;
  assert_int_equal(ixj__pool_create(2, &shared, NULL), IXJ_OK);
  pthread_t t[4];
  for (int k = 0; k < 4; k++) assert_int_equal(pthread_create(&t[k], NULL, caller, NULL), 0);
  for (int k = 0; k < 4; k++) pthread_join(t[k], NULL);
  ixj__pool_destroy(shared);
}

typedef struct chunks {
  uint64_t align, units;
  atomic_int bad, hits[UNITS];
} chunks;

static void check_chunk(void *arg, uint64_t begin, uint64_t end) {
  chunks *c = arg;
  if (begin % c->align || (end % c->align && end != c->units) || begin >= end) atomic_fetch_add(&c->bad, 1);
  for (uint64_t u = begin; u < end; u++) atomic_fetch_add_explicit(&c->hits[u], 1, memory_order_relaxed);
}

static void test_chunks_aligned(void **state) {
  (void)state;
  thread_pool *p;
  assert_int_equal(ixj__pool_create(8, &p, NULL), IXJ_OK); /* 8 shares */
  static const uint64_t units[] = {2, 7, 9, 64, 100, 1000, UNITS}, aligns[] = {1, 4, 16, 64};
  for (size_t a = 0; a < sizeof aligns / sizeof *aligns; a++)
    for (size_t n = 0; n < sizeof units / sizeof *units; n++)
      for (int round = 0; round < 5; round++) {
        chunks *c = calloc(1, sizeof *c);
        assert_non_null(c);
        c->align = aligns[a];
        c->units = units[n];
        ixj__pool_run(p, c->units, 1, c->align, check_chunk, c);
        assert_int_equal(atomic_load(&c->bad), 0);
        for (uint64_t u = 0; u < UNITS; u++) assert_int_equal(atomic_load(&c->hits[u]), u < c->units ? 1 : 0);
        free(c);
      }
  ixj__pool_destroy(p);
}

static void test_destroy_while_spinning(void **state) {
  (void)state;
  for (int k = 0; k < 20; k++) {
    thread_pool *p;
    assert_int_equal(ixj__pool_create(3, &p, NULL), IXJ_OK);
    one_job(p, UNITS, 1, 1);
    ixj__pool_destroy(p); /* at once: the workers are still watching for the next job */
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_back_to_back), cmocka_unit_test(test_after_sleep),
                                     cmocka_unit_test(test_callers_at_once),
                                     cmocka_unit_test(test_chunks_aligned), cmocka_unit_test(test_destroy_while_spinning)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* runtime/reclaim.c: the per-thread records behind eviction's reader
 * sections and the memory cache's per-thread hit counters.
 *   - thread indices: distinct among live threads (more alive at once than
 *     the cache has counter stripes), stable within a thread, the one
 *     ixj__reader_enter returns; a second wave after the first has exited
 *     reuses its indices (dense: no index above the first wave's largest);
 *   - ixj__reader_synchronize returns at once with no reader inside, and
 *     not before a section begun earlier has ended (checked by order, not
 *     by time: the section ends only after the check).
 * ThreadSanitizer in the tsan preset. */
#define _GNU_SOURCE /* pthread_barrier_t */
#include <pthread.h>
#include <limits.h>
#include <stdatomic.h>
#include <unistd.h>

#include "test_util.h"

#include "reclaim.h"

#define WAVE 280

typedef struct wave_arg {
  pthread_barrier_t *all_alive, *all_read;
  unsigned index;
  int bad;
} wave_arg;

static void *wave_worker(void *p) {
  wave_arg *a = p;
  pthread_barrier_wait(a->all_alive); /* every thread of the wave is alive from here ... */
  a->index = ixj__thread_index();
  unsigned entered = ixj__reader_enter();
  ixj__reader_leave();
  a->bad = entered != a->index || ixj__thread_index() != a->index || a->index == UINT_MAX;
  pthread_barrier_wait(a->all_read); /* ... to here */
  return NULL;
}

/* One wave of WAVE threads alive at once; the largest index seen. */
static unsigned wave(void) {
  static pthread_t t[WAVE];
  static wave_arg args[WAVE];
  static unsigned char seen[1 << 16];
  pthread_barrier_t alive, read;
  assert_int_equal(pthread_barrier_init(&alive, NULL, WAVE), 0);
  assert_int_equal(pthread_barrier_init(&read, NULL, WAVE), 0);
  for (int i = 0; i < WAVE; i++) {
    args[i] = (wave_arg){&alive, &read, 0, 0};
    assert_int_equal(pthread_create(&t[i], NULL, wave_worker, &args[i]), 0);
  }
  unsigned max = 0;
  memset(seen, 0, sizeof seen);
  for (int i = 0; i < WAVE; i++) {
    pthread_join(t[i], NULL);
    assert_int_equal(args[i].bad, 0);
    assert_true(args[i].index < sizeof seen);
    if (seen[args[i].index]++) fail_msg("index %u held by two live threads", args[i].index);
    if (args[i].index > max) max = args[i].index;
  }
  pthread_barrier_destroy(&alive);
  pthread_barrier_destroy(&read);
  return max;
}

static void test_indices(void **state) {
  (void)state;
  unsigned mine = ixj__thread_index();
  assert_int_equal(ixj__reader_enter(), mine);
  ixj__reader_leave();
  unsigned first = wave();
  assert_true(first >= WAVE - 1); /* WAVE distinct indices */
  unsigned second = wave();
  assert_true(second <= first); /* the exited threads' records were reused */
  assert_int_equal(ixj__thread_index(), mine);
}

typedef struct sync_arg {
  atomic_int step; /* 1: the reader is inside; 2: the synchronizer returned */
  atomic_bool leave;
} sync_arg;

static void *reader(void *p) {
  sync_arg *a = p;
  ixj__reader_enter();
  atomic_store(&a->step, 1);
  while (!atomic_load(&a->leave)) usleep(1000);
  /* the synchronizer cannot have returned while this section is open */
  int step = atomic_load(&a->step);
  ixj__reader_leave();
  return (void *)(intptr_t)(step == 1);
}

static void *synchronizer(void *p) {
  sync_arg *a = p;
  ixj__reader_synchronize();
  atomic_store(&a->step, 2);
  return NULL;
}

static void test_synchronize(void **state) {
  (void)state;
  ixj__reader_synchronize(); /* no reader inside: returns */
  sync_arg a;
  atomic_init(&a.step, 0);
  atomic_init(&a.leave, false);
  pthread_t r, s;
  assert_int_equal(pthread_create(&r, NULL, reader, &a), 0);
  while (atomic_load(&a.step) != 1) usleep(100);
  assert_int_equal(pthread_create(&s, NULL, synchronizer, &a), 0);
  usleep(20000); /* room for a wrong synchronizer to return early */
  atomic_store(&a.leave, true);
  void *ok;
  pthread_join(r, &ok);
  pthread_join(s, NULL);
  assert_true((intptr_t)ok);
  assert_int_equal(atomic_load(&a.step), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_indices), cmocka_unit_test(test_synchronize)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

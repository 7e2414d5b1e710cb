/* Thread safety of the generator: many threads parse, evaluate and transform
 * index functions, sharing one read-only handle, and every result must match
 * the single-threaded one. Run under ThreadSanitizer by the tsan preset. */
#include <pthread.h>

#include "test_util.h"

#define THREADS 8
#define ROUNDS 300

static const char *const texts[] = {
    "iota 8 6 | permute 1 0 | slice 1:5 ::2 | rotate 1 0 | reshape 2 2 4",
    "iota 4 6 | permute 1 0 | reshape 24 | slice 5:20:3",
    "iota 12 | rotate 5 | reshape 3 4 | rebase (iota 12 | slice ::-1)",
};
#define NTEXTS (sizeof texts / sizeof *texts)

static ixj_ixfun *shared;
static int64_t want_points[NTEXTS][64], want_count[NTEXTS];
static int64_t shared_points[64], shared_count;

static void *worker(void *arg) {
  intptr_t bad = 0;
  int64_t pts[64];
  for (int r = 0; r < ROUNDS; r++) {
    size_t k = (size_t)(r + (intptr_t)arg) % NTEXTS;
    ixj_ixfun *f = NULL, *g = NULL;
    if (ixj_ixfun_parse(texts[k], &f, NULL) != IXJ_OK) {
      bad++;
      continue;
    }
    int64_t n = ixj_ixfun_num_points(f), idx[IXJ_MAX_RANK] = {0}, shape[IXJ_MAX_RANK];
    int rank = ixj_ixfun_rank(f);
    ixj_ixfun_shape(f, shape);
    for (int64_t p = 0; p < n; p++) {
      ixj_ixfun_index(f, rank, idx, &pts[p], NULL);
      for (int d = rank - 1; d >= 0 && ++idx[d] == shape[d]; d--) idx[d] = 0;
    }
    bad += n != want_count[k] || memcmp(pts, want_points[k], (size_t)n * sizeof *pts) != 0;
    /* read the shared handle and derive from it */
    int64_t s0 = 0;
    ixj_ixfun_index(shared, 1, &s0, &pts[0], NULL);
    bad += pts[0] != shared_points[0];
    bad += ixj_ixfun_reshape(shared, 1, (const int64_t[]){shared_count}, &g, NULL) != IXJ_OK;
    char *s = ixj_ixfun_to_string(shared);
    bad += s == NULL;
    free(s);
    ixj_ixfun_free(g);
    ixj_ixfun_free(f);
  }
  return (void *)bad;
}

static void test_concurrent_use(void **state) {
  (void)state;
  for (size_t k = 0; k < NTEXTS; k++) {
    ixj_ixfun *f = parse_ok(texts[k]);
    want_count[k] = points_of(f, want_points[k], 64);
    ixj_ixfun_free(f);
  }
  shared = parse_ok("iota 6 5 | permute 1 0 | reshape 30 | slice 3:27");
  shared_count = points_of(shared, shared_points, 64);
  pthread_t th[THREADS];
  for (intptr_t t = 0; t < THREADS; t++) assert_int_equal(pthread_create(&th[t], NULL, worker, (void *)t), 0);
  for (int t = 0; t < THREADS; t++) {
    void *bad;
    pthread_join(th[t], &bad);
    assert_int_equal((intptr_t)bad, 0);
  }
  ixj_ixfun_free(shared);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_concurrent_use)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* A fork-join thread team for the bench's own baselines (memcpy, the
 * non-temporal copy, the generic kernel), so they run at the same thread
 * count as ixjit. Workers sleep on a condition variable between jobs: an idle
 * team takes no CPU from whatever is being measured. */
#include <pthread.h>
#include <stdlib.h>

#include "bench.h"

struct bench_team {
  int nthreads;
  pthread_t *workers;
  pthread_mutex_t lock;
  pthread_cond_t start, done;
  unsigned long generation; /* bumped per job */
  int pending;              /* workers still running the current job */
  bool quit;
  bench_team_fn fn;
  void *arg;
  int active; /* threads taking part in the current job */
};

typedef struct worker_arg {
  bench_team *team;
  int tid;
} worker_arg;

static void *worker(void *p) {
  worker_arg *w = p;
  bench_team *t = w->team;
  int tid = w->tid;
  free(w);
  unsigned long seen = 0;
  pthread_mutex_lock(&t->lock);
  for (;;) {
    while (!t->quit && t->generation == seen) pthread_cond_wait(&t->start, &t->lock);
    if (t->quit) break;
    seen = t->generation;
    bench_team_fn fn = t->fn;
    void *arg = t->arg;
    int active = t->active;
    pthread_mutex_unlock(&t->lock);
    if (tid < active) fn(arg, tid, active);
    pthread_mutex_lock(&t->lock);
    if (--t->pending == 0) pthread_cond_signal(&t->done);
  }
  pthread_mutex_unlock(&t->lock);
  return NULL;
}

bench_team *bench_team_create(int nthreads) {
  bench_team *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->nthreads = nthreads < 1 ? 1 : nthreads;
  t->workers = calloc((size_t)t->nthreads, sizeof *t->workers);
  pthread_mutex_init(&t->lock, NULL);
  pthread_cond_init(&t->start, NULL);
  pthread_cond_init(&t->done, NULL);
  if (!t->workers) {
    bench_team_destroy(t);
    return NULL;
  }
  for (int k = 1; k < t->nthreads; k++) {
    worker_arg *w = malloc(sizeof *w);
    if (!w) {
      t->nthreads = k;
      bench_team_destroy(t);
      return NULL;
    }
    *w = (worker_arg){t, k};
    if (pthread_create(&t->workers[k], NULL, worker, w) != 0) {
      free(w);
      t->nthreads = k;
      bench_team_destroy(t);
      return NULL;
    }
  }
  return t;
}

void bench_team_run(bench_team *t, bench_team_fn fn, void *arg, int max_threads) {
  int active = max_threads < t->nthreads ? max_threads : t->nthreads;
  if (active <= 1) { /* a small job runs inline, as ixjit's pool runs small jobs */
    fn(arg, 0, 1);
    return;
  }
  pthread_mutex_lock(&t->lock);
  t->fn = fn;
  t->arg = arg;
  t->active = active;
  t->pending = t->nthreads - 1;
  t->generation++;
  pthread_cond_broadcast(&t->start);
  pthread_mutex_unlock(&t->lock);
  fn(arg, 0, active);
  pthread_mutex_lock(&t->lock);
  while (t->pending) pthread_cond_wait(&t->done, &t->lock);
  pthread_mutex_unlock(&t->lock);
}

void bench_team_destroy(bench_team *t) {
  if (!t) return;
  pthread_mutex_lock(&t->lock);
  t->quit = true;
  pthread_cond_broadcast(&t->start);
  pthread_mutex_unlock(&t->lock);
  for (int k = 1; k < t->nthreads; k++)
    if (t->workers) pthread_join(t->workers[k], NULL);
  pthread_mutex_destroy(&t->lock);
  pthread_cond_destroy(&t->start);
  pthread_cond_destroy(&t->done);
  free(t->workers);
  free(t);
}

int bench_team_share(int64_t units, int64_t min_units) {
  int64_t n = min_units > 0 ? units / min_units : units;
  return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

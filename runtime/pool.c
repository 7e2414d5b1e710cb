/* A small fork-join pool. A job lives on its caller's stack and is published
 * under the pool lock; workers take chunks with an atomic counter. The caller
 * waits until every unit is done and no worker still holds the job, so a late
 * worker can never touch a finished job. One job at a time: a second caller
 * that finds the pool busy runs its job on its own thread. */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "error.h"

typedef struct job {
  pool_task task;
  void *arg;
  uint64_t units, chunk;
  atomic_uint_fast64_t next;
  uint64_t done;  /* under the pool lock */
  int active;     /* workers inside the job, under the pool lock */
} job;

struct thread_pool {
  pthread_mutex_t lock;
  pthread_cond_t work, finished;
  pthread_mutex_t submit; /* one job at a time */
  job *current;
  uint64_t generation;
  bool stop;
  uint64_t jobs; /* handed to the workers, under the lock */
  int num_workers;
  pthread_t *workers;
};

/* Takes chunks until none is left; returns the units done. */
static uint64_t drain(job *j) {
  uint64_t done = 0;
  for (;;) {
    uint64_t b = atomic_fetch_add(&j->next, j->chunk);
    if (b >= j->units) return done;
    uint64_t e = b + j->chunk < j->units ? b + j->chunk : j->units;
    j->task(j->arg, b, e);
    done += e - b;
  }
}

static void *worker_main(void *arg) {
  thread_pool *p = arg;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->stop && (p->generation == seen || !p->current)) pthread_cond_wait(&p->work, &p->lock);
    if (p->stop) break;
    seen = p->generation;
    job *j = p->current;
    j->active++;
    pthread_mutex_unlock(&p->lock);
    uint64_t done = drain(j);
    pthread_mutex_lock(&p->lock);
    j->done += done;
    j->active--;
    pthread_cond_broadcast(&p->finished);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

ixj_status ixj__pool_create(int threads, thread_pool **out, ixj_error *err) {
  thread_pool *p = calloc(1, sizeof *p);
  if (!p) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  pthread_mutex_init(&p->lock, NULL);
  pthread_mutex_init(&p->submit, NULL);
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->finished, NULL);
  int n = threads > 1 ? threads - 1 : 0;
  p->workers = calloc((size_t)(n ? n : 1), sizeof *p->workers);
  if (!p->workers) {
    ixj__pool_destroy(p);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  for (int k = 0; k < n; k++) {
    if (pthread_create(&p->workers[k], NULL, worker_main, p) != 0) {
      ixj__pool_destroy(p);
      return ixj__fail(err, IXJ_ERR_LIMIT, "cannot start worker thread %d of %d", k + 1, n);
    }
    p->num_workers++;
  }
  *out = p;
  return IXJ_OK;
}

void ixj__pool_destroy(thread_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->stop = true;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->lock);
  for (int k = 0; k < p->num_workers; k++) pthread_join(p->workers[k], NULL);
  free(p->workers);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->finished);
  pthread_mutex_destroy(&p->lock);
  pthread_mutex_destroy(&p->submit);
  free(p);
}

void ixj__pool_run(thread_pool *p, uint64_t units, uint64_t grain, uint64_t align, pool_task task, void *arg) {
  if (units == 0) return;
  if (align == 0) align = 1;
  if (p->num_workers == 0 || units <= grain || pthread_mutex_trylock(&p->submit) != 0) {
    task(arg, 0, units);
    return;
  }
  uint64_t parts = (uint64_t)(p->num_workers + 1) * 4;
  uint64_t chunk = (units + parts - 1) / parts;
  if (chunk < grain) chunk = grain;
  chunk = (chunk + align - 1) / align * align;
  job j = {task, arg, units, chunk, 0, 0, 0};
  atomic_init(&j.next, 0);
  pthread_mutex_lock(&p->lock);
  p->current = &j;
  p->generation++;
  p->jobs++;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->lock);

  uint64_t done = drain(&j);
  pthread_mutex_lock(&p->lock);
  j.done += done;
  p->current = NULL; /* late workers no longer see it */
  while (j.done < units || j.active > 0) pthread_cond_wait(&p->finished, &p->lock);
  pthread_mutex_unlock(&p->lock);
  pthread_mutex_unlock(&p->submit);
}

uint64_t ixj__pool_jobs(thread_pool *p) {
  pthread_mutex_lock(&p->lock);
  uint64_t n = p->jobs;
  pthread_mutex_unlock(&p->lock);
  return n;
}

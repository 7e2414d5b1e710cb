/* A small fork-join pool. A job lives on its caller's stack and is published
 * under the pool lock. Its units are split into one share per participant
 * (the caller is participant 0, worker k is k + 1), each taken in chunks from
 * its front with an atomic counter, first by its owner, then, once theirs
 * are done, by the others: on time, every participant moves the same part of
 * a repeated job every time, so work that fits in the cores' own caches stays
 * in them (handing chunks out first come, first served moved each call's
 * lines between the cores); a late one's share is taken by the others. The
 * caller waits until every unit is done and no worker still holds the job,
 * so a late worker can never touch a finished job. One job at a time: a
 * second caller that finds the pool busy runs its job on its own thread.
 *
 * Both waits spin a little before they sleep: a worker that finished a job
 * watches for the next one for SPIN_MS, and a caller that finished its share
 * watches its workers finish theirs, so back-to-back jobs (a dispatcher's
 * calls, a bench loop) pay no futex wake-up, which costs 6-20 us on the
 * development VM, on either side. Past SPIN_MS they sleep on the condition
 * variables as before: an idle pool takes no CPU. */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "clock.h"
#include "error.h"

/* Measured on the development VM (docs/cpu-path.md, "Dispatch"). */
#define SPIN_MS 0.05

/* One participant's share of a job, [next, end) left; a line of its own,
 * since its owner takes its chunks while the others take theirs. */
typedef struct share {
  _Alignas(64) atomic_uint_fast64_t next;
  uint64_t end;
} share;

typedef struct job {
  pool_task task;
  void *arg;
  uint64_t units, chunk;
  share *shares;             /* the pool's, one per participant */
  int num_shares;
  atomic_uint_fast64_t done; /* units done; added before `active` drops */
  atomic_int active;         /* workers inside the job (raised under the pool lock) */
} job;

typedef struct worker {
  thread_pool *pool;
  int index; /* its share: 1.. (the caller's is 0) */
} worker;

struct thread_pool {
  pthread_mutex_t lock;
  pthread_cond_t work, finished;
  pthread_mutex_t submit; /* one job at a time */
  job *current;           /* under the lock */
  atomic_uint_fast64_t generation; /* bumped under the lock; read by spinning workers */
  atomic_bool stop;
  uint64_t jobs; /* handed to the workers, under the lock */
  int num_workers;
  pthread_t *workers;
  worker *worker_args;
  share *shares; /* num_workers + 1, reused by each job (one at a time) */
};

static void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* A spin's deadline is read off the clock every SPIN_CHECK rounds (a pause
 * is tens of cycles, a clock read about as much again). */
#define SPIN_CHECK 64

/* Spins until ready(arg) or SPIN_MS have passed. */
static void spin_until(bool (*ready)(const void *), const void *arg) {
  double until = ixj__now_ms() + SPIN_MS;
  for (int k = 1; !ready(arg); k++) {
    relax();
    if (k % SPIN_CHECK == 0 && ixj__now_ms() > until) return;
  }
}

typedef struct watch {
  thread_pool *p;
  uint64_t seen; /* the generation of the worker's last job */
} watch;

static bool new_job_or_stop(const void *arg) {
  const watch *w = arg;
  return atomic_load_explicit(&w->p->generation, memory_order_acquire) != w->seen ||
         atomic_load_explicit(&w->p->stop, memory_order_relaxed);
}

/* Every unit done and no worker inside: the job may go. A worker adds its
 * units before it leaves, so `active` is read first. */
static bool job_finished(const void *arg) {
  const job *j = arg;
  return atomic_load_explicit(&j->active, memory_order_acquire) == 0 &&
         atomic_load_explicit(&j->done, memory_order_acquire) >= j->units;
}

/* Takes chunks of its own share, then of the others' in turn, until none is
 * left; returns the units done. */
static uint64_t drain(job *j, int self) {
  uint64_t done = 0;
  for (int k = 0; k < j->num_shares; k++) {
    share *s = &j->shares[(self + k) % j->num_shares];
    for (;;) {
      uint64_t b = atomic_fetch_add(&s->next, j->chunk);
      if (b >= s->end) break;
      uint64_t e = b + j->chunk < s->end ? b + j->chunk : s->end;
      j->task(j->arg, b, e);
      done += e - b;
    }
  }
  return done;
}

static void *worker_main(void *arg) {
  const worker *me = arg;
  thread_pool *p = me->pool;
  uint64_t seen = 0;
  for (;;) {
    spin_until(new_job_or_stop, &(watch){p, seen});
    pthread_mutex_lock(&p->lock);
    while (!atomic_load(&p->stop) && (atomic_load(&p->generation) == seen || !p->current))
      pthread_cond_wait(&p->work, &p->lock);
    if (atomic_load(&p->stop)) break;
    seen = atomic_load(&p->generation);
    job *j = p->current;
    atomic_fetch_add_explicit(&j->active, 1, memory_order_relaxed); /* under the lock: the caller sees it */
    pthread_mutex_unlock(&p->lock);
    uint64_t done = drain(j, me->index);
    pthread_mutex_lock(&p->lock);
    atomic_fetch_add_explicit(&j->done, done, memory_order_release);
    atomic_fetch_sub_explicit(&j->active, 1, memory_order_release); /* j may be gone after this */
    pthread_cond_broadcast(&p->finished);
    pthread_mutex_unlock(&p->lock);
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
  p->worker_args = calloc((size_t)(n ? n : 1), sizeof *p->worker_args);
  p->shares = aligned_alloc(_Alignof(share), (size_t)(n + 1) * sizeof *p->shares);
  if (!p->workers || !p->worker_args || !p->shares) {
    ixj__pool_destroy(p);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  for (int k = 0; k < n; k++) {
    p->worker_args[k] = (worker){p, k + 1};
    if (pthread_create(&p->workers[k], NULL, worker_main, &p->worker_args[k]) != 0) {
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
  atomic_store(&p->stop, true);
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->lock);
  for (int k = 0; k < p->num_workers; k++) pthread_join(p->workers[k], NULL);
  free(p->workers);
  free(p->worker_args);
  free(p->shares);
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
  int n = p->num_workers + 1;
  uint64_t parts = (uint64_t)n * 4;
  uint64_t chunk = (units + parts - 1) / parts;
  if (chunk < grain) chunk = grain;
  chunk = (chunk + align - 1) / align * align;
  /* share k: [bound(k), bound(k + 1)), bounds multiples of align but the
   * last, so every chunk starts on one */
  uint64_t base = units / (uint64_t)n, begin = 0;
  for (int k = 0; k < n; k++) {
    uint64_t end = k + 1 == n ? units : ((base * (uint64_t)(k + 1) + align - 1) / align * align);
    if (end > units) end = units;
    atomic_init(&p->shares[k].next, begin);
    p->shares[k].end = end;
    begin = end;
  }
  job j = {.task = task, .arg = arg, .units = units, .chunk = chunk, .shares = p->shares, .num_shares = n};
  atomic_init(&j.done, 0);
  atomic_init(&j.active, 0);
  pthread_mutex_lock(&p->lock);
  p->current = &j;
  atomic_fetch_add(&p->generation, 1);
  p->jobs++;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->lock);

  uint64_t done = drain(&j, 0);
  atomic_fetch_add_explicit(&j.done, done, memory_order_relaxed);
  pthread_mutex_lock(&p->lock);
  p->current = NULL; /* late workers no longer see it; those inside raised `active` before this */
  pthread_mutex_unlock(&p->lock);
  spin_until(job_finished, &j);
  if (!job_finished(&j)) {
    pthread_mutex_lock(&p->lock);
    while (!job_finished(&j)) pthread_cond_wait(&p->finished, &p->lock);
    pthread_mutex_unlock(&p->lock);
  }
  pthread_mutex_unlock(&p->submit);
}

uint64_t ixj__pool_jobs(thread_pool *p) {
  pthread_mutex_lock(&p->lock);
  uint64_t n = p->jobs;
  pthread_mutex_unlock(&p->lock);
  return n;
}

/* The background compiler (compiler_thread.h): a FIFO of jobs under one
 * mutex, one worker thread waiting on a condition variable, and a second
 * condition variable for ixj__compiler_wait. Submission is a miss's cost (a
 * compile follows), so the lock is no concern of the hit path. */
#include "compiler_thread.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "error.h"

typedef struct job {
  compiler_job_fn run, drop;
  void *arg;
  struct job *next;
} job;

struct compiler_thread {
  pthread_mutex_t lock;
  pthread_cond_t work; /* a job was queued, or stop */
  pthread_cond_t idle; /* pending fell */
  job *head, *tail;
  uint64_t pending; /* queued + running */
  bool started, stop;
  pthread_t thread;
};

ixj_status ixj__compiler_create(compiler_thread **out, ixj_error *err) {
  compiler_thread *ct = calloc(1, sizeof *ct);
  if (!ct) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  pthread_mutex_init(&ct->lock, NULL);
  pthread_cond_init(&ct->work, NULL);
  pthread_cond_init(&ct->idle, NULL);
  *out = ct;
  return IXJ_OK;
}

static void *worker(void *arg) {
  compiler_thread *ct = arg;
  pthread_mutex_lock(&ct->lock);
  for (;;) {
    while (!ct->head && !ct->stop) pthread_cond_wait(&ct->work, &ct->lock);
    if (ct->stop) break;
    job *j = ct->head;
    if (!(ct->head = j->next)) ct->tail = NULL;
    pthread_mutex_unlock(&ct->lock);
    j->run(j->arg);
    free(j);
    pthread_mutex_lock(&ct->lock);
    ct->pending--;
    pthread_cond_broadcast(&ct->idle);
  }
  pthread_mutex_unlock(&ct->lock);
  return NULL;
}

void ixj__compiler_destroy(compiler_thread *ct) {
  if (!ct) return;
  pthread_mutex_lock(&ct->lock);
  ct->stop = true;
  job *left = ct->head;
  ct->head = ct->tail = NULL;
  pthread_cond_broadcast(&ct->work);
  pthread_mutex_unlock(&ct->lock);
  if (ct->started) pthread_join(ct->thread, NULL); /* after the running job, if any */
  for (job *j = left, *next; j; j = next) {
    next = j->next;
    j->drop(j->arg);
    free(j);
  }
  pthread_cond_destroy(&ct->idle);
  pthread_cond_destroy(&ct->work);
  pthread_mutex_destroy(&ct->lock);
  free(ct);
}

ixj_status ixj__compiler_submit(compiler_thread *ct, compiler_job_fn run, compiler_job_fn drop, void *arg,
                                ixj_error *err) {
  job *j = malloc(sizeof *j);
  if (!j) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  *j = (job){run, drop, arg, NULL};
  pthread_mutex_lock(&ct->lock);
  if (!ct->started) {
    if (pthread_create(&ct->thread, NULL, worker, ct)) {
      pthread_mutex_unlock(&ct->lock);
      free(j);
      return ixj__fail(err, IXJ_ERR_LIMIT, "the background compiler thread cannot be started");
    }
    ct->started = true;
  }
  if (ct->tail) ct->tail->next = j;
  else ct->head = j;
  ct->tail = j;
  ct->pending++;
  pthread_cond_signal(&ct->work);
  pthread_mutex_unlock(&ct->lock);
  return IXJ_OK;
}

void ixj__compiler_wait(compiler_thread *ct) {
  pthread_mutex_lock(&ct->lock);
  while (ct->pending) pthread_cond_wait(&ct->idle, &ct->lock);
  pthread_mutex_unlock(&ct->lock);
}

uint64_t ixj__compiler_pending(compiler_thread *ct) {
  pthread_mutex_lock(&ct->lock);
  uint64_t n = ct->pending;
  pthread_mutex_unlock(&ct->lock);
  return n;
}

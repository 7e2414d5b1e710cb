/* Internal: the thread pool that runs a kernel over chunks of work units. */
#ifndef IXJIT_RUNTIME_POOL_H
#define IXJIT_RUNTIME_POOL_H

#include <stdint.h>

#include "ixjit/status.h"

typedef struct thread_pool thread_pool;
typedef void (*pool_task)(void *arg, uint64_t begin, uint64_t end);

/* `threads` counts the caller: threads - 1 workers are started. */
ixj_status ixj__pool_create(int threads, thread_pool **out, ixj_error *err);
void ixj__pool_destroy(thread_pool *p);
/* Runs task over [0, units) in chunks of at least `grain` units, multiples
 * of `align` (except the last); the caller takes part. When the pool is busy
 * with another caller's job, or the job is small, the caller runs it alone. */
void ixj__pool_run(thread_pool *p, uint64_t units, uint64_t grain, uint64_t align, pool_task task, void *arg);
/* Jobs handed to the workers so far (the rest ran on their callers alone). */
uint64_t ixj__pool_jobs(thread_pool *p);

#endif

/* Internal: the context's background compiler, for tiered execution
 * (IXJIT_COMPILE=async): one thread, started on the first job, that runs
 * queued jobs in order. A job is a function and its argument, owned by the
 * queue once submitted: it is either run (and frees itself) or, when the
 * compiler is destroyed before it starts, dropped (its drop function frees
 * it). One thread, because every compile already has the machine's other
 * cores to compete with: the callers, running generic kernels meanwhile. */
#ifndef IXJIT_RUNTIME_COMPILER_THREAD_H
#define IXJIT_RUNTIME_COMPILER_THREAD_H

#include <stdint.h>

#include "ixjit/status.h"

typedef struct compiler_thread compiler_thread;
typedef void (*compiler_job_fn)(void *arg);

ixj_status ixj__compiler_create(compiler_thread **out, ixj_error *err);
/* Drops the jobs not started, waits for the one running (a compile cannot be
 * interrupted: at most one compile's time), joins the thread. NULL is fine. */
void ixj__compiler_destroy(compiler_thread *ct);
/* Queues run(arg); drop(arg) instead if the compiler goes first. On error
 * (the thread cannot be started, IXJ_ERR_LIMIT; out of memory) the job is
 * not queued and stays the caller's. */
ixj_status ixj__compiler_submit(compiler_thread *ct, compiler_job_fn run, compiler_job_fn drop, void *arg,
                                ixj_error *err);
/* Returns once every job submitted before the call has run. */
void ixj__compiler_wait(compiler_thread *ct);
/* Jobs queued or running now. */
uint64_t ixj__compiler_pending(compiler_thread *ct);

#endif

/* Internal: the generic kernel, compiled into the library ahead of time:
 * shapes, strides, rotations and chains are run-time data, so one function
 * runs every call the library accepts (copy, fill, cat; single LMADs and
 * chains) without a JIT. It serves the calls that tiered execution
 * (IXJIT_COMPILE=async|cache-only, docs/hot-path.md) runs while their
 * specialized kernel is not ready. */
#ifndef IXJIT_RUNTIME_GENERIC_H
#define IXJIT_RUNTIME_GENERIC_H

#include "pool.h"
#include "validate.h"

/* Runs a call that passed ixj__op_validate (buffers present, no overlap) on
 * the pool (NULL: on the calling thread alone). Writes what the call's
 * specialized kernel writes and nothing else. Never fails: every limit it
 * relies on (ranks, offsets in 64 bits) was checked by validation. */
void ixj__generic_run(thread_pool *pool, const op_call *c);

#endif

/* Copies with non-temporal (streaming) stores, for the plans without a kernel
 * (PLAN_MEMCPY) whose output is too large to stay in cache. */
#ifndef IXJIT_RUNTIME_STREAM_COPY_H
#define IXJIT_RUNTIME_STREAM_COPY_H

#include <stddef.h>

/* memcpy(dst, src, n) for non-overlapping buffers, the destination's whole
 * 64-byte lines written with streaming stores (the widest the host has:
 * AVX-512, AVX2, else SSE2), the partial lines at either end with memcpy.
 * Ends with a store fence, so the bytes are ordered before the caller's
 * completion is published. Safe from many threads at once. */
void ixj__stream_copy(void *dst, const void *src, size_t n);

#endif

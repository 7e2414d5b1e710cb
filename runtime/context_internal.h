/* Internal: the context's parts, shared by the runtime files. */
#ifndef IXJIT_RUNTIME_CONTEXT_INTERNAL_H
#define IXJIT_RUNTIME_CONTEXT_INTERNAL_H

#include <stdarg.h>

#include "cache.h"
#include "ixjit/context.h"
#include "jit_llvm.h"
#include "pool.h"

struct ixj_context {
  ixj_context_options opts;
  int threads;
  size_t last_level_cache;
  thread_pool *pool;
  kernel_cache *cache;
  jit_llvm *jit;
};

void ctx_log(const ixj_context *ctx, ixj_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif

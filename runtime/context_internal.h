/* Internal: the context's parts, shared by the runtime files. */
#ifndef IXJIT_RUNTIME_CONTEXT_INTERNAL_H
#define IXJIT_RUNTIME_CONTEXT_INTERNAL_H

#include <stdarg.h>

#include <stdatomic.h>

#include "cache.h"
#include "cache_auth.h"
#include "call_cache.h"
#include "compiler_thread.h"
#include "disk_cache.h"
#include "remote_cache.h"
#include "ixjit/context.h"
#include "jit_llvm.h"
#include "pool.h"

struct ixj_context {
  ixj_context_options opts;
  int threads;
  size_t last_level_cache;
  thread_pool *pool;
  kernel_cache *cache;
  call_cache *calls;         /* the per-call fast path (call_cache.h) */
  jit_llvm *jit;
  disk_cache *disk;          /* NULL: off or unusable */
  cache_auth *auth;          /* the cache key (cache_auth.h); NULL: none */
  remote_cache *remote;      /* the remote tier (remote_cache.h); NULL: none */
  atomic_bool disk_warned;   /* one warning for a cache we cannot write */
  int record_fd;             /* -1: not recording */
  ixj_compile_mode compile;  /* never DEFAULT: resolved at creation */
  compiler_thread *compiler; /* the background compiles (async) */
};

/* Logs `message` as a warning once per context. */
void ixj__ctx_warn_disk_once(ixj_context *ctx, const char *message);

void ixj__ctx_log(const ixj_context *ctx, ixj_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif

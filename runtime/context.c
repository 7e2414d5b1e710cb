/* The context: options, thread pool, kernel cache, JIT. */
#include "context_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "error.h"

static int default_threads(void) {
  const char *env = getenv("IXJIT_NUM_THREADS");
  if (env && *env) {
    char *end;
    long n = strtol(env, &end, 10);
    if (!*end && n > 0 && n <= 1024) return (int)n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static size_t detect_last_level_cache(void) {
#ifdef _SC_LEVEL3_CACHE_SIZE
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) return (size_t)l3;
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l2 > 0) return (size_t)l2;
#endif
  return (size_t)32 << 20;
}

ixj_status ixj_context_create(const ixj_context_options *opts, ixj_context **out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, out);
  *out = NULL;
  if (opts && (opts->num_threads < 0 || opts->num_threads > 1024))
    return ixj_fail(err, IXJ_ERR_INVALID_ARGUMENT, "num_threads %d is outside 0..1024", opts->num_threads);
  ixj_context *c = calloc(1, sizeof *c);
  if (!c) return ixj_fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  if (opts) c->opts = *opts;
  c->threads = c->opts.num_threads ? c->opts.num_threads : default_threads();
  c->last_level_cache = c->opts.last_level_cache ? c->opts.last_level_cache : detect_last_level_cache();
  ixj_status st;
  if ((st = pool_create(c->threads, &c->pool, err)) != IXJ_OK || (st = cache_create(&c->cache, err)) != IXJ_OK ||
      (st = jit_llvm_create(&c->jit, err)) != IXJ_OK) {
    ixj_context_destroy(c);
    return st;
  }
  *out = c;
  return IXJ_OK;
}

void ixj_context_destroy(ixj_context *c) {
  if (!c) return;
  pool_destroy(c->pool);
  cache_destroy(c->cache);
  jit_llvm_destroy(c->jit);
  free(c);
}

void ixj_context_cache_stats(ixj_context *c, ixj_cache_stats *out) { cache_stats(c->cache, out); }
int ixj_context_num_threads(const ixj_context *c) { return c->threads; }
const char *ixj_context_target(const ixj_context *c) { return jit_llvm_target(c->jit); }

void ctx_log(const ixj_context *ctx, ixj_log_level level, const char *fmt, ...) {
  if (!ctx->opts.log) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ctx->opts.log(ctx->opts.log_user, level, msg);
}

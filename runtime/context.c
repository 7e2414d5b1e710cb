/* The context: options, thread pool, kernel cache, JIT. */
#include "context_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "ixjit/number.h"

/* IXJIT_NUM_THREADS (1..1024), else the online CPUs: a bad value is one
 * warning, never a thread count read from part of it. */
static int default_threads(const ixj_context *c) {
  const char *env = getenv("IXJIT_NUM_THREADS");
  uint64_t v;
  ixj_error err;
  if (env && *env) {
    if (ixj_parse_count(env, 1, 1024, &v, &err) == IXJ_OK) return (int)v;
    ixj__ctx_log(c, IXJ_LOG_WARNING, "IXJIT_NUM_THREADS: %s: one thread per online CPU", err.message);
  }
  /* the CPUs this process may run on (taskset, a container's cpuset), not
   * every online one: more threads than those would only take turns */
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
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

/* A size from the environment (include/ixjit/number.h); 0 (the default) when
 * unset, and when bad, with one warning. */
static uint64_t env_size(const ixj_context *c, const char *name) {
  const char *v = getenv(name);
  uint64_t n;
  ixj_error err;
  if (!v || !*v) return 0;
  if (ixj_parse_size(v, 1, UINT64_MAX, &n, &err) == IXJ_OK) return n;
  ixj__ctx_log(c, IXJ_LOG_WARNING, "%s: %s: the default limit instead", name, err.message);
  return 0;
}

/* The tiering mode: the option, else IXJIT_COMPILE, else sync; a bad value
 * is one warning and the default, as for the other variables. */
static ixj_compile_mode compile_mode(const ixj_context *c) {
  static const char *const names[] = {"sync", "async", "cache-only"};
  if (c->opts.compile_mode != IXJ_COMPILE_DEFAULT) return (ixj_compile_mode)c->opts.compile_mode;
  const char *env = getenv("IXJIT_COMPILE");
  if (!env || !*env) return IXJ_COMPILE_SYNC;
  for (int k = 0; k < 3; k++)
    if (!strcmp(env, names[k])) return (ixj_compile_mode)(IXJ_COMPILE_SYNC + k);
  ixj__ctx_log(c, IXJ_LOG_WARNING, "IXJIT_COMPILE: '%.64s' is not sync, async or cache-only: sync", env);
  return IXJ_COMPILE_SYNC;
}

/* The memory cache's default limit on JIT'd code (docs/hot-path.md): some
 * 16,000 kernels of the usual size, against the 53 -> 73 MB of resident
 * memory that 300 kernels once cost without any limit. */
#define MEMORY_CACHE_DEFAULT_BYTES ((uint64_t)128 << 20)

/* The disk tier: on unless turned off; a directory that cannot be used turns
 * it off with one warning, never an error. */
static void open_disk_cache(ixj_context *c) {
  const char *env = getenv("IXJIT_CACHE");
  bool on = c->opts.disk_cache > 0 || (c->opts.disk_cache == 0 && !(env && !strcmp(env, "off")));
  char dir[4096];
  if (!on) return;
  if (c->opts.cache_dir) snprintf(dir, sizeof dir, "%s", c->opts.cache_dir);
  else if (!ixj_cache_default_dir(dir, sizeof dir)) {
    ixj__ctx_log(c, IXJ_LOG_WARNING, "no cache directory can be named (no HOME): the disk cache is off");
    return;
  }
  uint64_t max = c->opts.cache_max_bytes ? c->opts.cache_max_bytes : env_size(c, "IXJIT_CACHE_MAX_BYTES");
  ixj_error err;
  /* a key that is named but cannot be used turns the disk cache off: loading
   * unauthenticated entries instead would be what the key is there to stop */
  const char *key_file = c->opts.cache_key_file ? c->opts.cache_key_file : getenv("IXJIT_CACHE_KEY_FILE");
  if (key_file && *key_file && ixj__cache_auth_open(key_file, &c->auth, &err) != IXJ_OK) {
    ixj__ctx_log(c, IXJ_LOG_WARNING, "%s: the disk cache is off", err.message);
    return;
  }
  bool shared = c->opts.cache_shared > 0 || (c->opts.cache_shared == 0 && ixj__cache_shared_from_env());
  disk_cache_config cfg = {max, c->auth, shared};
  if (ixj__disk_cache_open_with(dir, &cfg, &c->disk, &err) != IXJ_OK)
    ixj__ctx_log(c, IXJ_LOG_WARNING, "%s: the disk cache is off", err.message);
  else
    ixj__disk_cache_set_log(c->disk, c->opts.log, c->opts.log_user);
  if (c->disk && ixj__remote_cache_open(&c->opts, c->auth, c->disk, &c->remote, &err) != IXJ_OK)
    ixj__ctx_log(c, IXJ_LOG_WARNING, "%s: the remote cache is off", err.message);
}

static void open_record(ixj_context *c) {
  const char *path = c->opts.record_path ? c->opts.record_path : getenv("IXJIT_RECORD");
  c->record_fd = -1;
  if (!path || !*path) return;
  c->record_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (c->record_fd < 0) ixj__ctx_log(c, IXJ_LOG_WARNING, "cannot record signatures to %s", path);
}

void ixj__ctx_warn_disk_once(ixj_context *ctx, const char *message) {
  if (!atomic_exchange(&ctx->disk_warned, true)) ixj__ctx_log(ctx, IXJ_LOG_WARNING, "%s", message);
}

ixj_status ixj_context_create(const ixj_context_options *opts, ixj_context **out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, out);
  *out = NULL;
  if (opts && (opts->num_threads < 0 || opts->num_threads > 1024))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "num_threads %d is outside 0..1024", opts->num_threads);
  if (opts && (opts->compile_mode < IXJ_COMPILE_DEFAULT || opts->compile_mode > IXJ_COMPILE_CACHE_ONLY))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "compile_mode %d is not an ixj_compile_mode", opts->compile_mode);
  ixj_context *c = calloc(1, sizeof *c);
  if (!c) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  c->record_fd = -1;
  if (opts) c->opts = *opts;
  c->threads = c->opts.num_threads ? c->opts.num_threads : default_threads(c);
  c->last_level_cache = c->opts.last_level_cache ? c->opts.last_level_cache : detect_last_level_cache();
  atomic_init(&c->disk_warned, false);
  c->compile = compile_mode(c);
  open_disk_cache(c);
  open_record(c);
  ixj_status st;
  if ((st = ixj__pool_create(c->threads, &c->pool, err)) != IXJ_OK || (st = ixj__cache_create(&c->cache, err)) != IXJ_OK ||
      (st = ixj__call_cache_create(&c->calls, err)) != IXJ_OK ||
      (st = ixj__compiler_create(&c->compiler, err)) != IXJ_OK ||
      (st = ixj__jit_llvm_create(&c->jit, err)) != IXJ_OK) {
    ixj_context_destroy(c);
    return st;
  }
  uint64_t limit = c->opts.memory_cache_max_bytes ? c->opts.memory_cache_max_bytes
                                                  : env_size(c, "IXJIT_MEMORY_CACHE_MAX_BYTES");
  ixj__cache_set_limit(c->cache, limit ? limit : MEMORY_CACHE_DEFAULT_BYTES);
  *out = c;
  return IXJ_OK;
}

void ixj_context_destroy(ixj_context *c) {
  if (!c) return;
  ixj__compiler_destroy(c->compiler); /* first: a running compile uses the JIT, the caches and the disk */
  if (c->disk && c->cache) { /* this process's memory hits, for `ixjit cache stats` */
    ixj_cache_stats stats;
    ixj__cache_stats(c->cache, &stats);
    ixj__disk_cache_count(c->disk, DISK_STAT_MEMORY_HITS, stats.hits);
  }
  ixj__pool_destroy(c->pool);
  ixj__cache_destroy(c->cache);
  ixj__call_cache_destroy(c->calls);
  ixj__jit_llvm_destroy(c->jit);
  ixj__remote_cache_close(c->remote); /* pushes what is queued; before the disk and the key it uses */
  ixj__disk_cache_close(c->disk);
  ixj__cache_auth_close(c->auth);
  if (c->record_fd >= 0) close(c->record_fd);
  free(c);
}

void ixj_context_cache_stats(ixj_context *c, ixj_cache_stats *out) {
  ixj__cache_stats(c->cache, out);
  out->compiles_queued = ixj__compiler_pending(c->compiler);
  out->remote_hits = c->remote ? ixj__remote_cache_hits(c->remote) : 0;
}

void ixj_wait_compiles(ixj_context *c) {
  if (c) ixj__compiler_wait(c->compiler);
}
int ixj_context_num_threads(const ixj_context *c) { return c->threads; }
const char *ixj_context_target(const ixj_context *c) { return ixj__jit_llvm_target(c->jit); }
const char *ixj_context_cache_dir(const ixj_context *c) { return c->disk ? ixj__disk_cache_dir(c->disk) : NULL; }
const char *ixj_context_remote_cache(const ixj_context *c) { return c->remote ? ixj__remote_cache_url(c->remote) : NULL; }

void ixj__ctx_log(const ixj_context *ctx, ixj_log_level level, const char *fmt, ...) {
  if (!ctx->opts.log) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ctx->opts.log(ctx->opts.log_user, level, msg);
}

/* Micro-benchmarks folded in from bench_cache and bench_divmod:
 *   the kernel cache: a compile (LLVM, O3), a load from the disk cache in a
 *   new context, and a whole one-element copy on a memory hit (what a
 *   dispatcher pays per call);
 *   the per-call path on a hit (1 and 8 threads), prepared kernels' runs (1
 *   and 8 threads) and a miss under IXJIT_COMPILE=async (1 and 8 threads:
 *   the call's cost with the generic kernel, the compile left to the
 *   background);
 *   small transposes (1 KiB, 64 KiB): the kernel against a plain C loop
 *   specialized for the shape;
 *   division: hardware 32-bit division by a divisor the compiler cannot see
 *   against the sequence ixjit chooses for the exact bound, same dividends.
 * The disk cache lives in a directory made here with mkdtemp; only that
 * directory and the entries in it are ever removed. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "ixjit/cache.h"
#include "timing.h"

#define KERNELS 15
#define HIT_CALLS 2000
#define HOT_CALLS 20000
#define HOT_THREADS 8
#define DIV_N (1u << 20)

static bench_result *micro_result(bench_run *run, const char *case_name, const char *method, const char *unit) {
  bench_result *r = bench_run_add(run);
  if (!r) return NULL;
  snprintf(r->case_name, sizeof r->case_name, "%s", case_name);
  snprintf(r->method, sizeof r->method, "%s", method);
  snprintf(r->unit, sizeof r->unit, "%s", unit);
  r->threads = 1;
  r->iterations = 1;
  r->compile_ms = -1;
  bench_result_name(r);
  return r;
}

/* Kernel k: a reversing transposed copy of a (k+8) x 9 int32 array. */
static ixj_status copy_k(ixj_context *ctx, int k, ixj_call_info *info, ixj_error *err) {
  static int32_t src[4096], dst[4096];
  char d[64], s[64];
  snprintf(d, sizeof d, "iota %d 9", k + 8);
  snprintf(s, sizeof s, "iota 9 %d | permute 1 0 | slice ::-1", k + 8);
  ixj_ixfun *fd = NULL, *fs = NULL;
  ixj_status st = ixj_ixfun_parse(d, &fd, err);
  if (st == IXJ_OK) st = ixj_ixfun_parse(s, &fs, err);
  if (st == IXJ_OK) {
    ixj_operand od = {dst, sizeof dst, fd}, os = {src, sizeof src, fs};
    st = ixj_copy(ctx, &od, &os, 4, info, err);
  }
  ixj_ixfun_free(fd);
  ixj_ixfun_free(fs);
  return st;
}

static bool cache_micro(int reps, bench_run *run, char *msg, size_t msg_size) {
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/ixjit-bench-cache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    snprintf(msg, msg_size, "mkdtemp %s: %s", dir, strerror(errno));
    return false;
  }
  bool ok = false;
  ixj_context *a = NULL, *b = NULL;
  ixj_call_info info;
  ixj_error err = {0};
  ixj_context_options o = {.num_threads = 1, .disk_cache = 1, .cache_dir = dir};
  bench_result *compile = micro_result(run, "cache", "compile", "ms");
  bench_result *load = micro_result(run, "cache", "disk_load", "ms");
  bench_result *hit = micro_result(run, "cache", "memory_hit", "us");
  if (!compile || !load || !hit) {
    snprintf(msg, msg_size, "out of memory");
    goto done;
  }
  if (ixj_context_create(&o, &a, &err) != IXJ_OK) goto fail;
  for (int k = 0; k < KERNELS; k++) {
    if (copy_k(a, k, &info, &err) != IXJ_OK) goto fail;
    if (info.cache_hit || info.disk_hit) {
      snprintf(msg, msg_size, "cache: kernel %d was not compiled (the fresh directory %s had it?)", k, dir);
      goto done;
    }
    compile->sec[compile->reps++] = info.compile_ms * 1e-3;
  }
  ixj_context_destroy(a);
  a = NULL;
  if (ixj_context_create(&o, &b, &err) != IXJ_OK) goto fail; /* memory empty, disk warm */
  for (int k = 0; k < KERNELS; k++) {
    if (copy_k(b, k, &info, &err) != IXJ_OK) goto fail;
    if (!info.disk_hit) {
      snprintf(msg, msg_size, "cache: kernel %d was not loaded from the disk cache in %s", k, dir);
      goto done;
    }
    load->sec[load->reps++] = info.compile_ms * 1e-3;
  }
  /* a remote hit (docs/remote-cache.md), when IXJIT_REMOTE_CACHE names a
   * store: memory and disk empty, the store filled by `a`'s pushes (its
   * writer thread was joined when it was destroyed) */
  const char *url = getenv("IXJIT_REMOTE_CACHE");
  if (url && *url && strcmp(url, "off")) {
    bench_result *remote = micro_result(run, "cache", "remote_load", "ms");
    char dir2[4200];
    snprintf(dir2, sizeof dir2, "%s/remote-only", dir);
    ixj_context_options o2 = o;
    o2.cache_dir = dir2;
    ixj_context *c = NULL;
    if (!remote || ixj_context_create(&o2, &c, &err) != IXJ_OK) goto fail;
    bool from_store = ixj_context_remote_cache(c) != NULL;
    for (int k = 0; k < KERNELS && from_store; k++) {
      ixj_cache_stats before, after;
      ixj_context_cache_stats(c, &before);
      from_store = copy_k(c, k, &info, &err) == IXJ_OK;
      ixj_context_cache_stats(c, &after);
      from_store = from_store && after.remote_hits == before.remote_hits + 1;
      if (from_store) remote->sec[remote->reps++] = info.compile_ms * 1e-3;
    }
    ixj_context_destroy(c);
    ixj_cache_clear(dir2, NULL, NULL);
    rmdir(dir2);
    if (!from_store) {
      snprintf(msg, msg_size, "cache: IXJIT_REMOTE_CACHE=%s gave not every kernel (see its warnings)", url);
      goto done;
    }
  }
  int32_t x = 1, y = 0;
  ixj_ixfun *f;
  if (ixj_ixfun_parse("iota 1 | rotate 0", &f, &err) != IXJ_OK) goto fail;
  ixj_operand od = {&y, sizeof y, f}, os = {&x, sizeof x, f};
  ixj_copy(b, &od, &os, 4, NULL, NULL);
  hit->iterations = HIT_CALLS;
  for (int r = 0; r < reps; r++) {
    double t0 = now_ms();
    for (int k = 0; k < HIT_CALLS; k++) ixj_copy(b, &od, &os, 4, NULL, NULL);
    hit->sec[hit->reps++] = (now_ms() - t0) * 1e-3 / HIT_CALLS;
  }
  ixj_ixfun_free(f);
  ok = true;
  goto done;
fail:
  snprintf(msg, msg_size, "cache: %s", err.message);
done:
  ixj_context_destroy(a);
  ixj_context_destroy(b);
  ixj_cache_clear(dir, NULL, NULL); /* the entries of our own directory */
  if (rmdir(dir) != 0 && ok) {
    snprintf(msg, msg_size, "cannot remove %s: %s", dir, strerror(errno));
    ok = false;
  }
  return ok;
}


/* The dispatcher's per-call path on a memory hit: an 8x8 float transpose
 * (a kernel, not a memcpy). Each thread has what a dispatcher's thread
 * would: its own 64-byte-aligned source and destination (threads sharing one
 * destination would measure its cache lines bouncing, not the library) and
 * its own index-function handles, built once. At 1 thread, ns per call; at
 * HOT_THREADS threads calling at once on one context, wall time x
 * min(threads, CPUs) / calls: the cost per call per core, equal to the
 * 1-thread number when the threads do not slow each other down. The
 * `_cpu` rows are the callers' thread CPU time per call
 * (CLOCK_THREAD_CPUTIME_ID), which other processes' load does not inflate. */
typedef struct hot_slot {
  _Alignas(64) float x[64], y[64]; /* 256 bytes each: own cache lines */
  ixj_ixfun *fd, *fs;
  ixj_operand od, os;
} hot_slot;

/* A thread's misses (HOT_MISS): MISS_CALLS copies of 64 points, each of its
 * own kernel (a source of another row pitch: another key), so every call
 * misses. */
#define MISS_CALLS 32
typedef struct miss_slot {
  float *x, *y;
  ixj_ixfun *fd, *fs[MISS_CALLS];
  ixj_operand od, os[MISS_CALLS];
} miss_slot;

typedef enum hot_kind { HOT_COPY, HOT_KERNEL_RUN, HOT_MISS } hot_kind;

typedef struct hot_arg {
  hot_kind kind;
  ixj_context *ctx;
  const ixj_kernel *kernel; /* HOT_KERNEL_RUN */
  hot_slot *slot;
  miss_slot *miss;          /* HOT_MISS */
  atomic_bool *go;
  int calls;
  bool ok;
  double cpu_sec;
} hot_arg;

static double thread_cpu_sec(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *hot_thread(void *p) {
  hot_arg *a = p;
  hot_slot *s = a->slot; /* NULL for HOT_MISS */
  ixj_buffer d = {s ? s->y : NULL, sizeof s->y}, b = {s ? s->x : NULL, sizeof s->x};
  while (!atomic_load(a->go)) sched_yield();
  a->ok = true;
  ixj_call_info info;
  double c0 = thread_cpu_sec();
  if (a->kind == HOT_COPY)
    for (int k = 0; k < a->calls; k++) a->ok &= ixj_copy(a->ctx, &s->od, &s->os, 4, NULL, NULL) == IXJ_OK;
  else if (a->kind == HOT_KERNEL_RUN)
    for (int k = 0; k < a->calls; k++) a->ok &= ixj_kernel_run(a->kernel, d, 1, &b, NULL, NULL) == IXJ_OK;
  else /* each a miss that runs the generic kernel: info says so */
    for (int k = 0; k < a->calls; k++)
      a->ok &= ixj_copy(a->ctx, &a->miss->od, &a->miss->os[k], 4, &info, NULL) == IXJ_OK && info.generic;
  a->cpu_sec = thread_cpu_sec() - c0;
  return NULL;
}

/* One repetition: `threads` threads, thread t on slots[t] making `calls`
 * calls, released at once; seconds of wall time, and the threads' CPU
 * seconds added up into *cpu. *ok false when a call failed or a thread did
 * not start. */
static double hot_rep(hot_kind kind, ixj_context *ctx, const ixj_kernel *kernel, hot_slot *slots, miss_slot *misses,
                      int threads, int calls, double *cpu, bool *ok) {
  pthread_t tid[HOT_THREADS];
  hot_arg args[HOT_THREADS];
  atomic_bool go;
  atomic_init(&go, false);
  int started = 0;
  for (int t = 0; t < threads; t++) {
    args[t] = (hot_arg){kind, ctx, kernel, slots ? &slots[t] : NULL, misses ? &misses[t] : NULL, &go, calls, false, 0};
    if (pthread_create(&tid[t], NULL, hot_thread, &args[t]) != 0) break;
    started++;
  }
  *ok &= started == threads;
  double t0 = now_ms();
  atomic_store(&go, true);
  *cpu = 0;
  for (int t = 0; t < started; t++) {
    pthread_join(tid[t], NULL);
    *ok &= args[t].ok;
    *cpu += args[t].cpu_sec;
  }
  return (now_ms() - t0) * 1e-3;
}

static hot_slot *hot_slots_make(const char *dst, const char *src, ixj_error *err) {
  hot_slot *s = aligned_alloc(64, sizeof(hot_slot) * HOT_THREADS);
  if (!s) {
    *err = (ixj_error){IXJ_ERR_NO_MEMORY, 0, "out of memory"};
    return NULL;
  }
  memset(s, 0, sizeof(hot_slot) * HOT_THREADS);
  for (int t = 0; t < HOT_THREADS; t++) {
    for (int k = 0; k < 64; k++) s[t].x[k] = (float)k;
    if (ixj_ixfun_parse(dst, &s[t].fd, err) != IXJ_OK || ixj_ixfun_parse(src, &s[t].fs, err) != IXJ_OK) return s;
    s[t].od = (ixj_operand){s[t].y, sizeof s[t].y, s[t].fd};
    s[t].os = (ixj_operand){s[t].x, sizeof s[t].x, s[t].fs};
  }
  return s;
}

static void hot_slots_free(hot_slot *s) {
  if (!s) return;
  for (int t = 0; t < HOT_THREADS; t++) {
    ixj_ixfun_free(s[t].fd);
    ixj_ixfun_free(s[t].fs);
  }
  free(s);
}

/* Four rows for a workload: wall per call per core and CPU per call, at 1
 * and HOT_THREADS threads, interleaved repetitions. HOT_MISS runs each
 * repetition on a fresh async context (made and destroyed outside the
 * timing: destroying drops the queued compiles and waits for the running
 * one), so that every call misses. */
static bool hot_measure(bench_run *run, const char *case_name, const char *method, hot_kind kind, ixj_context *ctx,
                        const ixj_kernel *kernel, hot_slot *slots, miss_slot *misses, int reps, char *msg,
                        size_t msg_size) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int cores = cpus < 1 ? 1 : cpus < HOT_THREADS ? (int)cpus : HOT_THREADS;
  int calls = kind == HOT_MISS ? MISS_CALLS : HOT_CALLS;
  char cpu_method[sizeof ((bench_result *)0)->method]; /* what a result holds */
  snprintf(cpu_method, sizeof cpu_method, "%s_cpu", method);
  bench_result *r[4] = {micro_result(run, case_name, method, "ns"), micro_result(run, case_name, method, "ns"),
                        micro_result(run, case_name, cpu_method, "ns"), micro_result(run, case_name, cpu_method, "ns")};
  if (!r[0] || !r[1] || !r[2] || !r[3]) {
    snprintf(msg, msg_size, "out of memory");
    return false;
  }
  for (int k = 0; k < 4; k++) {
    r[k]->threads = k % 2 ? HOT_THREADS : 1;
    r[k]->iterations = (int64_t)calls * r[k]->threads;
    bench_result_name(r[k]);
  }
  bool calls_ok = true;
  ixj_context_options async = {.num_threads = 1, .disk_cache = -1, .compile_mode = IXJ_COMPILE_ASYNC};
  ixj_error err = {0};
  for (int rep = 0; rep < reps && calls_ok; rep++) { /* interleaved */
    double cpu[2], wall[2];
    for (int k = 0; k < 2 && calls_ok; k++) {
      ixj_context *c = ctx;
      if (kind == HOT_MISS && ixj_context_create(&async, &c, &err) != IXJ_OK) {
        snprintf(msg, msg_size, "%s: %s", case_name, err.message);
        return false;
      }
      wall[k] = hot_rep(kind, c, kernel, slots, misses, k ? HOT_THREADS : 1, calls, &cpu[k], &calls_ok);
      if (kind == HOT_MISS) ixj_context_destroy(c);
    }
    r[0]->sec[r[0]->reps++] = wall[0] / calls;
    r[1]->sec[r[1]->reps++] = wall[1] * cores / r[1]->iterations;
    r[2]->sec[r[2]->reps++] = cpu[0] / calls;
    r[3]->sec[r[3]->reps++] = cpu[1] / r[3]->iterations;
  }
  if (!calls_ok) snprintf(msg, msg_size, "%s/%s: a call failed, ran no generic kernel, or a thread could not start",
                          case_name, method);
  return calls_ok;
}

/* Thread t's misses: sources 8 rows of a P-float-wide array, transposed, P
 * distinct for every call of every thread. */
static miss_slot *miss_slots_make(ixj_error *err) {
  miss_slot *m = calloc(HOT_THREADS, sizeof *m);
  if (!m) {
    *err = (ixj_error){IXJ_ERR_NO_MEMORY, 0, "out of memory"};
    return NULL;
  }
  int max_pitch = 16 + HOT_THREADS * MISS_CALLS; /* 8 x max_pitch floats: a multiple of 64 bytes (aligned_alloc) */
  for (int t = 0; t < HOT_THREADS; t++) {
    m[t].x = aligned_alloc(64, (size_t)max_pitch * 8 * sizeof(float));
    m[t].y = aligned_alloc(64, 64 * sizeof(float));
    if (!m[t].x || !m[t].y) {
      *err = (ixj_error){IXJ_ERR_NO_MEMORY, 0, "out of memory"};
      return m;
    }
    for (int k = 0; k < max_pitch * 8; k++) m[t].x[k] = (float)k;
    if (ixj_ixfun_parse("iota 8 8", &m[t].fd, err) != IXJ_OK) return m;
    m[t].od = (ixj_operand){m[t].y, 64 * sizeof(float), m[t].fd};
    for (int i = 0; i < MISS_CALLS; i++) {
      char text[64];
      snprintf(text, sizeof text, "iota 8 %d | slice : :8 | permute 1 0", 9 + t * MISS_CALLS + i);
      if (ixj_ixfun_parse(text, &m[t].fs[i], err) != IXJ_OK) return m;
      m[t].os[i] = (ixj_operand){m[t].x, (size_t)max_pitch * 8 * sizeof(float), m[t].fs[i]};
    }
  }
  return m;
}

static void miss_slots_free(miss_slot *m) {
  if (!m) return;
  for (int t = 0; t < HOT_THREADS; t++) {
    free(m[t].x);
    free(m[t].y);
    ixj_ixfun_free(m[t].fd);
    for (int i = 0; i < MISS_CALLS; i++) ixj_ixfun_free(m[t].fs[i]);
  }
  free(m);
}

static bool hot_micro(int reps, bench_run *run, char *msg, size_t msg_size) {
  ixj_context *ctx = NULL;
  ixj_error err = {0};
  bool ok = false;
  ixj_context_options o = {.num_threads = 1, .disk_cache = -1};
  hot_slot *slots = hot_slots_make("iota 8 8", "iota 8 8 | permute 1 0", &err);
  if (!slots || err.status != IXJ_OK || ixj_context_create(&o, &ctx, &err) != IXJ_OK ||
      ixj_copy(ctx, &slots[0].od, &slots[0].os, 4, NULL, &err) != IXJ_OK)
    goto fail;
  ok = hot_measure(run, "hit_8x8_transpose", "ixj_copy", HOT_COPY, ctx, NULL, slots, NULL, reps, msg, msg_size);
  goto done;
fail:
  snprintf(msg, msg_size, "hit_8x8_transpose: %s", err.message);
done:
  hot_slots_free(slots);
  ixj_context_destroy(ctx);
  return ok;
}

/* A prepared kernel run from 1 and HOT_THREADS threads at once (one handle,
 * each thread its own buffers): the 8x8 float transpose. */
static bool prepared_threads_micro(int reps, bench_run *run, char *msg, size_t msg_size) {
  ixj_context *ctx = NULL;
  ixj_kernel *k = NULL;
  ixj_error err = {0};
  bool ok = false;
  ixj_context_options o = {.num_threads = 1, .disk_cache = -1};
  hot_slot *slots = hot_slots_make("iota 8 8", "iota 8 8 | permute 1 0", &err);
  if (!slots || err.status != IXJ_OK || ixj_context_create(&o, &ctx, &err) != IXJ_OK ||
      ixj_prepare_copy(ctx, slots[0].fd, slots[0].fs, 4, 0, &k, &err) != IXJ_OK) {
    snprintf(msg, msg_size, "prepared_8x8_transpose: %s", err.message);
  } else {
    ok = hot_measure(run, "prepared_8x8_transpose", "ixj_kernel_run", HOT_KERNEL_RUN, ctx, k, slots, NULL, reps, msg,
                     msg_size);
  }
  ixj_kernel_release(k);
  hot_slots_free(slots);
  ixj_context_destroy(ctx);
  return ok;
}

/* A miss under IXJIT_COMPILE=async: what the call costs its caller (the
 * plan, the queued compile, the generic kernel's run of 64 points), at 1
 * and HOT_THREADS threads, every call a kernel of its own. */
static bool miss_async_micro(int reps, bench_run *run, char *msg, size_t msg_size) {
  ixj_error err = {0};
  miss_slot *misses = miss_slots_make(&err);
  bool ok = false;
  if (!misses || err.status != IXJ_OK)
    snprintf(msg, msg_size, "miss_async_8x8_transpose: %s", err.message);
  else
    ok = hot_measure(run, "miss_async_8x8_transpose", "ixj_copy", HOT_MISS, NULL, NULL, NULL, misses, reps, msg,
                     msg_size);
  miss_slots_free(misses);
  return ok;
}

/* A plain C loop specialized for the shape (constant bounds, compiled ahead
 * of time with the bench's flags: what a user would write by hand), for the
 * small transposes below. */
static void c_loop_16(float *restrict d, const float *restrict s) {
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) d[i * 16 + j] = s[j * 16 + i];
}

static void c_loop_128(float *restrict d, const float *restrict s) {
  for (int i = 0; i < 128; i++)
    for (int j = 0; j < 128; j++) d[i * 128 + j] = s[j * 128 + i];
}

/* A prepared kernel's run (include/ixjit/kernel.h) against the call on a
 * hit, buffers aligned, ns per call: a 1 KiB float copy (a memcpy plan: what
 * is left is the overhead) and the 8x8 float transpose; the default suite's
 * 1 KiB (16 x 16) and 64 KiB (128 x 128) float transposes against the C
 * loops above too (issue 10's small copies: the kernel itself must not be
 * the cost); and cats of two float inputs along axis 1 (8 x 8 each, and the
 * suite's tiny_64k_cat2: the fast path takes cats too). The loops are called
 * through a volatile pointer, so that they run every time. Each result is
 * compared with the reference interpreter's (and the C loop's) once. */
static bool prepared_micro(int reps, bench_run *run, char *msg, size_t msg_size) {
  static _Alignas(64) float x[128 * 128], y[128 * 128], z[128 * 128];
  typedef void (*loop_fn)(float *restrict, const float *restrict);
  static const struct {
    const char *name, *dst, *src;
    size_t floats; /* the destination's */
    int calls, num_srcs; /* 1: a copy of src; 2: a cat of two src side by side, from x's halves */
    loop_fn loop;
  } cases[] = {{"run_1k_copy", "iota 256", "iota 256", 256, HOT_CALLS, 1, NULL},
               {"run_8x8_transpose", "iota 8 8", "iota 8 8 | permute 1 0", 64, HOT_CALLS, 1, NULL},
               {"tiny_1k_t", "iota 16 16", "iota 16 16 | permute 1 0", 256, HOT_CALLS, 1, c_loop_16},
               {"tiny_64k_t", "iota 128 128", "iota 128 128 | permute 1 0", 128 * 128, HOT_CALLS / 20, 1, c_loop_128},
               {"run_cat2_8x16", "iota 8 16", "iota 8 8", 128, HOT_CALLS, 2, NULL},
               {"tiny_64k_cat2", "iota 128 128", "iota 128 64", 128 * 128, HOT_CALLS / 20, 2, NULL}};
  for (int i = 0; i < 128 * 128; i++) x[i] = (float)i;
  ixj_context *ctx = NULL;
  ixj_error err = {0};
  bool ok = true;
  ixj_context_options o = {.num_threads = 1, .disk_cache = -1};
  if (ixj_context_create(&o, &ctx, &err) != IXJ_OK) {
    snprintf(msg, msg_size, "prepared: %s", err.message);
    return false;
  }
  for (size_t c = 0; ok && c < sizeof cases / sizeof *cases; c++) {
    ixj_ixfun *fd = NULL, *fs = NULL;
    ixj_kernel *k = NULL;
    bool cat = cases[c].num_srcs == 2;
    size_t bytes = cases[c].floats * sizeof(float), src_bytes = bytes / (size_t)cases[c].num_srcs;
    const char *call_name = cat ? "ixj_cat" : "ixj_copy";
    bench_result *cl = cases[c].loop ? micro_result(run, cases[c].name, "c_loop", "ns") : NULL;
    bench_result *pr = micro_result(run, cases[c].name, "ixj_kernel_run", "ns");
    bench_result *cp = micro_result(run, cases[c].name, call_name, "ns");
    if ((cases[c].loop && !cl) || !pr || !cp || ixj_ixfun_parse(cases[c].dst, &fd, &err) != IXJ_OK ||
        ixj_ixfun_parse(cases[c].src, &fs, &err) != IXJ_OK ||
        (cat ? ixj_prepare_cat(ctx, fd, 1, 2, (const ixj_ixfun *const[]){fs, fs}, 4, 0, &k, &err)
             : ixj_prepare_copy(ctx, fd, fs, 4, 0, &k, &err)) != IXJ_OK) {
      snprintf(msg, msg_size, "prepared: %s", pr && cp ? err.message : "out of memory");
      ok = false;
    } else {
      loop_fn volatile loop = cases[c].loop;
      /* the sources: all of x for a copy, its two halves for a cat */
      ixj_buffer d = {y, bytes}, s[2] = {{x, src_bytes}, {x + 128 * 64, src_bytes}};
      ixj_operand od = {y, bytes, fd}, os[2] = {{x, src_bytes, fs}, {x + 128 * 64, src_bytes, fs}};
      ixj_operand oz = {z, bytes, fd};
      int calls = cases[c].calls, n = cases[c].num_srcs;
      bool calls_ok = (cat ? ixj_cat(ctx, &od, 1, 2, os, 4, NULL, NULL) : ixj_copy(ctx, &od, os, 4, NULL, NULL)) == IXJ_OK;
      calls_ok &= (cat ? ixj_reference_cat(&oz, 1, 2, os, 4, NULL) : ixj_reference_copy(&oz, os, 4, NULL)) == IXJ_OK;
      calls_ok &= memcmp(y, z, bytes) == 0;
      if (loop) {
        loop(z, x);
        calls_ok &= memcmp(y, z, bytes) == 0;
        cl->iterations = calls;
      }
      pr->iterations = cp->iterations = calls;
      for (int r = 0; r < reps; r++) { /* interleaved */
        double t0 = now_ms();
        for (int i = 0; loop && i < calls; i++) loop(z, x);
        double t1 = now_ms();
        for (int i = 0; i < calls; i++) calls_ok &= ixj_kernel_run(k, d, n, s, NULL, NULL) == IXJ_OK;
        double t2 = now_ms();
        if (cat)
          for (int i = 0; i < calls; i++) calls_ok &= ixj_cat(ctx, &od, 1, 2, os, 4, NULL, NULL) == IXJ_OK;
        else
          for (int i = 0; i < calls; i++) calls_ok &= ixj_copy(ctx, &od, os, 4, NULL, NULL) == IXJ_OK;
        double t3 = now_ms();
        if (loop) cl->sec[cl->reps++] = (t1 - t0) * 1e-3 / calls;
        pr->sec[pr->reps++] = (t2 - t1) * 1e-3 / calls;
        cp->sec[cp->reps++] = (t3 - t2) * 1e-3 / calls;
      }
      if (!calls_ok) {
        snprintf(msg, msg_size, "prepared: %s: a call failed or its result differs from the reference's or the C loop's",
                 cases[c].name);
        ok = false;
      }
    }
    ixj_kernel_release(k);
    ixj_ixfun_free(fd);
    ixj_ixfun_free(fs);
  }
  ixj_context_destroy(ctx);
  return ok;
}

static uint64_t sink;

/* The chosen sequence as emitted code runs it: multiplier and shift in
 * registers, the form fixed outside the loop. */
static uint64_t magic_sum(const ixj_divider *dv, const uint32_t *n) {
  volatile uint64_t mv = dv->multiplier;
  volatile unsigned kv = dv->shift;
  const uint64_t m = mv;
  const unsigned k = kv, s = k - 32;
  uint64_t acc = 0;
  switch (dv->form) {
  case IXJ_DIV_SHIFT:
    for (uint32_t i = 0; i < DIV_N; i++) acc += k >= 32 ? 0 : n[i] >> k;
    break;
  case IXJ_DIV_MUL:
    for (uint32_t i = 0; i < DIV_N; i++) acc += ((uint64_t)n[i] * m) >> k;
    break;
  case IXJ_DIV_MUL_INC:
    for (uint32_t i = 0; i < DIV_N; i++) acc += ((uint64_t)(n[i] + 1u) * m) >> k;
    break;
  case IXJ_DIV_FIXUP:
    for (uint32_t i = 0; i < DIV_N; i++) {
      uint32_t t = (uint32_t)(((uint64_t)n[i] * m) >> 32);
      acc += (t + ((n[i] - t) >> 1)) >> (s - 1);
    }
    break;
  }
  return acc;
}

static bool divmod_micro(int reps, bench_run *run, char *msg, size_t msg_size) {
  static const uint64_t cases[][2] = {{7, 100000000}, {7, 4294967295u}, {12, 1u << 20}, {641, 2147483647u}, {1000, 4294967294u}};
  uint32_t *n32 = malloc(DIV_N * sizeof *n32);
  if (!n32) {
    snprintf(msg, msg_size, "out of memory");
    return false;
  }
  bool ok = true;
  for (size_t c = 0; ok && c < sizeof cases / sizeof *cases; c++) {
    volatile uint64_t dvol = cases[c][0];
    uint32_t d = (uint32_t)dvol;
    ixj_divider dv;
    ixj_error err;
    if (ixj_divider_make(cases[c][0], cases[c][1], 32, &dv, &err) != IXJ_OK) {
      snprintf(msg, msg_size, "divmod: %s", err.message);
      ok = false;
      break;
    }
    char name[BENCH_NAME_SIZE];
    snprintf(name, sizeof name, "divmod_d%llu_n%llu_%s", (unsigned long long)cases[c][0],
             (unsigned long long)cases[c][1], ixj_div_form_name(dv.form));
    bench_result *hw = micro_result(run, name, "hw_div", "ns"), *mg = micro_result(run, name, "magic", "ns");
    if (!hw || !mg) {
      snprintf(msg, msg_size, "out of memory");
      ok = false;
      break;
    }
    hw->iterations = mg->iterations = DIV_N;
    srand(1);
    for (uint32_t k = 0; k < DIV_N; k++) n32[k] = (uint32_t)(((uint64_t)rand() << 16 ^ (uint64_t)rand()) % (cases[c][1] + 1));
    for (int r = 0; r < reps; r++) { /* interleaved: hardware, then the sequence, per repetition */
      uint64_t acc = 0;
      double t0 = now_ms();
      for (uint32_t k = 0; k < DIV_N; k++) acc += n32[k] / d;
      double t1 = now_ms();
      acc -= magic_sum(&dv, n32);
      double t2 = now_ms();
      sink += acc;
      hw->sec[hw->reps++] = (t1 - t0) * 1e-3 / DIV_N;
      mg->sec[mg->reps++] = (t2 - t1) * 1e-3 / DIV_N;
    }
  }
  free(n32);
  if (sink == 12345) fputc('\n', stderr); /* keeps the sums alive */
  return ok;
}

bool bench_micro(int reps, bench_run *run, char *msg, size_t msg_size) {
  if (reps > BENCH_MAX_REPS) reps = BENCH_MAX_REPS;
  return cache_micro(reps, run, msg, msg_size) && hot_micro(reps, run, msg, msg_size) &&
         prepared_micro(reps, run, msg, msg_size) &&
         prepared_threads_micro(reps, run, msg, msg_size) && miss_async_micro(reps, run, msg, msg_size) &&
         divmod_micro(reps, run, msg, msg_size);
}

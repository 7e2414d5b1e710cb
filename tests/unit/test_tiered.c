/* Tiered execution (IXJIT_COMPILE=sync|async|cache-only, docs/hot-path.md)
 * through the public API. Every call's whole destination buffer is checked
 * against the reference interpreter's:
 *   - the generic kernel alone (cache-only, no disk: nothing ever compiles)
 *     on copies, fills and cats of every element size: transposes, reversed,
 *     rotated and strided views, chains, rank 0, a cat into a rotated
 *     destination and along either axis;
 *   - async: a miss runs the generic kernel, and after ixj_wait_compiles the
 *     same call runs the compiled one (the counters and ixj_call_info say
 *     which ran), also on the per-call fast path and for prepared kernels;
 *   - cache-only with a disk cache: a miss records its signature and never
 *     compiles; once another context has compiled it, the kernel is loaded;
 *   - IXJIT_COMPILE parsed (a bad value is one warning and sync), a bad
 *     compile_mode refused;
 *   - a context destroyed with compiles queued and running;
 *   - 8 threads hitting, missing and preparing at once with compiles in
 *     flight (ThreadSanitizer in the tsan preset). */
#define _GNU_SOURCE /* mkdtemp, setenv, usleep */
#include <pthread.h>
#include <unistd.h>

#include "test_util.h"

typedef struct tcase {
  ixj_op_kind op;
  size_t elem;
  const char *dst;
  const char *src[3]; /* copy: 1, cat: up to 3, fill: none */
  int axis;
} tcase;

static const tcase cases[] = {
    {IXJ_OP_COPY, 4, "iota 8 8", {"iota 8 8 | permute 1 0"}, 0},
    {IXJ_OP_COPY, 4, "iota 64 33", {"iota 33 64 | permute 1 0"}, 0},
    {IXJ_OP_COPY, 2, "iota 5 7", {"iota 5 7 | slice ::-1 | rotate 1 2"}, 0},
    {IXJ_OP_COPY, 8, "iota 6 4", {"iota 4 6 | permute 1 0 | reshape 6 4"}, 0},
    {IXJ_OP_COPY, 1, "iota 1000", {"iota 1000"}, 0},
    {IXJ_OP_COPY, 16, "iota 3 4 5", {"strided shape=3,4,5 strides=1,3,12"}, 0},
    {IXJ_OP_COPY, 4, "iota 9 10", {"iota 10 9 | permute 1 0 | rotate 3 4"}, 0},
    {IXJ_OP_COPY, 1, "iota 8 16 | slice : ::2", {"iota 8 8 | rotate 0 5"}, 0},
    {IXJ_OP_COPY, 8, "iota 5 | slice 2", {"iota 3 | slice 1"}, 0},
    {IXJ_OP_COPY, 4, "iota 2 3 4 | permute 2 0 1", {"iota 4 2 3 | slice ::-1 ::-1"}, 0},
    {IXJ_OP_FILL, 4, "iota 7 9", {NULL}, 0},
    {IXJ_OP_FILL, 2, "iota 8 16 | slice : ::2", {NULL}, 0},
    {IXJ_OP_FILL, 16, "iota 6 5 | rotate 2 1", {NULL}, 0},
    {IXJ_OP_FILL, 8, "iota 4 6 | permute 1 0 | reshape 6 4", {NULL}, 0},
    {IXJ_OP_CAT, 4, "iota 5 7", {"iota 5 3", "iota 5 4 | rotate 1 1"}, 1},
    {IXJ_OP_CAT, 1, "iota 6 4", {"iota 2 4", "iota 4 4 | permute 1 0"}, 0},
    {IXJ_OP_CAT, 8, "iota 6 4", {"iota 2 4", "iota 2 8 | permute 1 0 | reshape 4 4"}, 0},
    {IXJ_OP_CAT, 2, "iota 5 7 | rotate 0 3", {"iota 5 2", "iota 5 1", "iota 4 5 | permute 1 0"}, 1},
    {IXJ_OP_CAT, 16, "iota 6 4 | permute 1 0", {"iota 4 2", "iota 4 1 | slice ::-1", "iota 4 3"}, 1},
};
#define NUM_CASES (int)(sizeof cases / sizeof cases[0])

/* A case's index functions, parsed once (tests and threads share them). */
typedef struct parsed {
  ixj_ixfun *dst, *src[3];
  int num_srcs;
  size_t dst_bytes, src_bytes[3];
} parsed;
static parsed P[NUM_CASES];

static int parse_all(void **state) {
  (void)state;
  for (int k = 0; k < NUM_CASES; k++) {
    P[k].dst = parse_ok(cases[k].dst);
    assert_int_equal(ixj_ixfun_required_bytes(P[k].dst, cases[k].elem, &P[k].dst_bytes, NULL), IXJ_OK);
    for (int s = 0; s < 3 && cases[k].src[s]; s++) {
      P[k].src[s] = parse_ok(cases[k].src[s]);
      assert_int_equal(ixj_ixfun_required_bytes(P[k].src[s], cases[k].elem, &P[k].src_bytes[s], NULL), IXJ_OK);
      P[k].num_srcs++;
    }
  }
  return 0;
}

static int free_all(void **state) {
  (void)state;
  for (int k = 0; k < NUM_CASES; k++) {
    ixj_ixfun_free(P[k].dst);
    for (int s = 0; s < P[k].num_srcs; s++) ixj_ixfun_free(P[k].src[s]);
  }
  return 0;
}

static void pattern(unsigned char *p, size_t n, unsigned seed) {
  for (size_t k = 0; k < n; k++) p[k] = (unsigned char)(seed * 131 + k * 7 + k / 253);
}

/* Runs case k on ctx (prepared: through ixj_prepare_* and ixj_kernel_run,
 * else the plain call) and the reference on a copy of the destination: true
 * when the whole buffers agree. No cmocka assertions: threads call it. */
static bool run_case(ixj_context *ctx, int k, bool prepared, unsigned seed, ixj_call_info *info) {
  const tcase *c = &cases[k];
  const parsed *p = &P[k];
  size_t db = p->dst_bytes ? p->dst_bytes : 1;
  unsigned char *got = malloc(db), *want = malloc(db), *src[3] = {NULL, NULL, NULL}, value[16];
  bool ok = got && want;
  pattern(got, db, seed);
  memcpy(want, got, db);
  pattern(value, sizeof value, seed + 99);
  ixj_operand d = {got, p->dst_bytes, p->dst}, w = {want, p->dst_bytes, p->dst}, s[3];
  for (int q = 0; q < p->num_srcs && ok; q++) {
    size_t sb = p->src_bytes[q] ? p->src_bytes[q] : 1;
    if (!(ok = (src[q] = malloc(sb)) != NULL)) break;
    pattern(src[q], sb, seed + 1 + (unsigned)q);
    s[q] = (ixj_operand){src[q], p->src_bytes[q], p->src[q]};
  }
  ixj_error err;
  memset(info, 0, sizeof *info);
  if (ok && prepared) {
    ixj_kernel *kern = NULL;
    ixj_buffer bd = {got, p->dst_bytes}, bs[3];
    for (int q = 0; q < p->num_srcs; q++) bs[q] = (ixj_buffer){src[q], p->src_bytes[q]};
    ixj_status st = c->op == IXJ_OP_COPY   ? ixj_prepare_copy(ctx, p->dst, p->src[0], c->elem, 0, &kern, &err)
                    : c->op == IXJ_OP_FILL ? ixj_prepare_fill(ctx, p->dst, c->elem, 0, &kern, &err)
                                           : ixj_prepare_cat(ctx, p->dst, c->axis, p->num_srcs,
                                                             (const ixj_ixfun *const *)p->src, c->elem, 0, &kern, &err);
    ok = st == IXJ_OK && ixj_kernel_run(kern, bd, p->num_srcs, p->num_srcs ? bs : NULL,
                                        c->op == IXJ_OP_FILL ? value : NULL, &err) == IXJ_OK;
    ixj_kernel_release(kern);
  } else if (ok) {
    ok = (c->op == IXJ_OP_COPY   ? ixj_copy(ctx, &d, &s[0], c->elem, info, &err)
          : c->op == IXJ_OP_FILL ? ixj_fill(ctx, &d, value, c->elem, info, &err)
                                 : ixj_cat(ctx, &d, c->axis, p->num_srcs, s, c->elem, info, &err)) == IXJ_OK;
  }
  if (ok)
    ok = (c->op == IXJ_OP_COPY   ? ixj_reference_copy(&w, &s[0], c->elem, &err)
          : c->op == IXJ_OP_FILL ? ixj_reference_fill(&w, value, c->elem, &err)
                                 : ixj_reference_cat(&w, c->axis, p->num_srcs, s, c->elem, &err)) == IXJ_OK;
  ok = ok && !memcmp(got, want, db);
  free(got);
  free(want);
  for (int q = 0; q < 3; q++) free(src[q]);
  return ok;
}

/* Whether a call of case k needs a kernel (memcpy-class copies need none). */
static bool needs_kernel(const ixj_call_info *info) { return strcmp(info->strategy, "memcpy") && strcmp(info->strategy, "empty"); }

static ixj_context *make_ctx(int mode, int disk, const char *dir, const char *record) {
  ixj_context *ctx;
  ixj_error err;
  ixj_context_options o = {.num_threads = 2, .disk_cache = disk, .cache_dir = dir, .record_path = record,
                           .compile_mode = mode};
  if (ixj_context_create(&o, &ctx, &err) != IXJ_OK) fail_msg("context: %s", err.message);
  return ctx;
}

static void test_generic_every_case(void **state) {
  (void)state;
  ixj_context *ctx = make_ctx(IXJ_COMPILE_CACHE_ONLY, -1, NULL, NULL);
  uint64_t generic = 0;
  for (int k = 0; k < NUM_CASES; k++)
    for (int rep = 0; rep < 2; rep++) {
      ixj_call_info info;
      if (!run_case(ctx, k, false, (unsigned)(k * 2 + rep), &info)) fail_msg("case %d (%s): wrong result", k, cases[k].dst);
      assert_int_equal(info.generic, needs_kernel(&info)); /* no disk, no compile: always generic */
      generic += info.generic;
      if (!run_case(ctx, k, true, (unsigned)(k * 2 + rep + 50), &info)) fail_msg("case %d prepared: wrong result", k);
    }
  ixj_cache_stats st;
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.compiles, 0);
  assert_int_equal(st.failures, 0);
  assert_true(st.generic_calls >= generic);
  assert_true(generic >= 2 * (NUM_CASES - 1)); /* all but the memcpy copy */
  ixj_context_destroy(ctx);
}

static void test_async_swaps(void **state) {
  (void)state;
  ixj_context *ctx = make_ctx(IXJ_COMPILE_ASYNC, -1, NULL, NULL);
  uint64_t kernels = 0;
  for (int k = 0; k < NUM_CASES; k++) {
    ixj_call_info info;
    if (!run_case(ctx, k, false, (unsigned)k, &info)) fail_msg("case %d: wrong result (first call)", k);
    assert_int_equal(info.generic, needs_kernel(&info)); /* a miss never waits */
    kernels += info.generic;
  }
  ixj_wait_compiles(ctx);
  ixj_cache_stats st;
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.compiles_queued, 0);
  assert_int_equal(st.compiles, kernels);
  assert_int_equal(st.failures, 0);
  assert_int_equal(st.generic_calls, kernels);
  for (int k = 0; k < NUM_CASES; k++)
    for (int rep = 0; rep < 3; rep++) { /* the long way, then the fast path where the call has one */
      ixj_call_info info;
      if (!run_case(ctx, k, false, (unsigned)(k + 7 * rep), &info)) fail_msg("case %d: wrong result (compiled)", k);
      assert_false(info.generic);
      assert_true(info.cache_hit);
      if (!run_case(ctx, k, true, (unsigned)(k + 100 + rep), &info)) fail_msg("case %d prepared: wrong result", k);
    }
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.generic_calls, kernels); /* nothing ran generic once compiled */
  assert_int_equal(st.compiles, kernels);
  ixj_context_destroy(ctx);
}

/* A prepared kernel under async: its runs are right before the compile lands
 * and after, when they no longer run generic (the handle upgraded itself). */
static void test_prepared_upgrades(void **state) {
  (void)state;
  ixj_context *ctx = make_ctx(IXJ_COMPILE_ASYNC, -1, NULL, NULL);
  const parsed *p = &P[1];
  ixj_kernel *kern;
  ixj_error err;
  assert_int_equal(ixj_prepare_copy(ctx, p->dst, p->src[0], 4, 0, &kern, &err), IXJ_OK);
  float *a = malloc(p->src_bytes[0]), *b = malloc(p->dst_bytes), *want = malloc(p->dst_bytes);
  for (size_t k = 0; k < p->src_bytes[0] / 4; k++) a[k] = (float)k;
  ixj_operand w = {want, p->dst_bytes, p->dst}, s = {a, p->src_bytes[0], p->src[0]};
  assert_int_equal(ixj_reference_copy(&w, &s, 4, &err), IXJ_OK);
  ixj_buffer bd = {b, p->dst_bytes}, bs = {a, p->src_bytes[0]};
  memset(b, 0, p->dst_bytes);
  assert_int_equal(ixj_kernel_run(kern, bd, 1, &bs, NULL, &err), IXJ_OK); /* generic or compiled: right either way */
  assert_memory_equal(b, want, p->dst_bytes);
  ixj_wait_compiles(ctx);
  ixj_cache_stats before, after;
  ixj_context_cache_stats(ctx, &before);
  memset(b, 0, p->dst_bytes);
  assert_int_equal(ixj_kernel_run(kern, bd, 1, &bs, NULL, &err), IXJ_OK);
  assert_memory_equal(b, want, p->dst_bytes);
  ixj_context_cache_stats(ctx, &after);
  assert_int_equal(after.generic_calls, before.generic_calls);
  assert_int_equal(after.compiles, 1);
  ixj_kernel_release(kern);
  free(a);
  free(b);
  free(want);
  ixj_context_destroy(ctx);
}

static size_t count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  size_t n = 0;
  int ch;
  if (!f) return 0;
  while ((ch = fgetc(f)) != EOF) n += ch == '\n';
  fclose(f);
  return n;
}

static void test_cache_only_disk(void **state) {
  (void)state;
  char dir[] = "/tmp/ixjit-tiered-XXXXXX", record[64];
  assert_non_null(mkdtemp(dir));
  snprintf(record, sizeof record, "%s/record.txt", dir);
  ixj_call_info info;
  ixj_cache_stats st;
  ixj_context *ctx = make_ctx(IXJ_COMPILE_CACHE_ONLY, 1, dir, record);
  for (int rep = 0; rep < 3; rep++) {
    assert_true(run_case(ctx, 0, false, (unsigned)rep, &info));
    assert_true(info.generic);
  }
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.compiles, 0);
  assert_int_equal(st.failures, 0);
  ixj_context_destroy(ctx);
  assert_int_equal(count_lines(record), 1); /* once per kernel, not per call */
  ctx = make_ctx(IXJ_COMPILE_SYNC, 1, dir, NULL); /* what `ixjit warm` does: compile it into the disk cache */
  assert_true(run_case(ctx, 0, false, 1, &info));
  assert_false(info.generic);
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.compiles, 1);
  ixj_context_destroy(ctx);
  ctx = make_ctx(IXJ_COMPILE_CACHE_ONLY, 1, dir, NULL);
  assert_true(run_case(ctx, 0, false, 2, &info));
  assert_false(info.generic);
  assert_true(info.disk_hit);
  assert_true(run_case(ctx, 0, true, 3, &info)); /* prepared: the loaded kernel */
  ixj_context_cache_stats(ctx, &st);
  assert_int_equal(st.compiles, 0);
  assert_int_equal(st.disk_hits, 1);
  assert_int_equal(st.generic_calls, 0);
  ixj_context_destroy(ctx);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

static int warnings;
static void count_warning(void *user, ixj_log_level level, const char *message) {
  (void)user;
  if (level == IXJ_LOG_WARNING && strstr(message, "IXJIT_COMPILE")) warnings++;
}

static void test_env(void **state) {
  (void)state;
  ixj_context *ctx;
  ixj_error err;
  ixj_call_info info;
  ixj_context_options o = {.num_threads = 1, .disk_cache = -1, .log = count_warning};
  const char *bad[] = {"bogus", "Async", "async ", ""};
  for (int b = 0; b < 4; b++) {
    setenv("IXJIT_COMPILE", bad[b], 1);
    warnings = 0;
    assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
    assert_int_equal(warnings, *bad[b] ? 1 : 0); /* empty is unset */
    assert_true(run_case(ctx, 0, false, 0, &info));
    assert_false(info.generic); /* sync */
    ixj_context_destroy(ctx);
  }
  setenv("IXJIT_COMPILE", "async", 1);
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  assert_true(run_case(ctx, 0, false, 0, &info));
  assert_true(info.generic);
  ixj_context_destroy(ctx);
  setenv("IXJIT_COMPILE", "cache-only", 1);
  o.compile_mode = IXJ_COMPILE_SYNC; /* the option wins */
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  assert_true(run_case(ctx, 0, false, 0, &info));
  assert_false(info.generic);
  ixj_context_destroy(ctx);
  unsetenv("IXJIT_COMPILE");
  o.compile_mode = 4;
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_null(ctx);
  o.compile_mode = -1;
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_ERR_INVALID_ARGUMENT);
}

/* Destroyed with compiles queued and one running: no crash, no leak, no race
 * (ASan, TSan). */
static void test_destroy_mid_compile(void **state) {
  (void)state;
  for (int round = 0; round < 3; round++) {
    ixj_context *ctx = make_ctx(IXJ_COMPILE_ASYNC, -1, NULL, NULL);
    for (int k = 0; k < NUM_CASES; k++) {
      ixj_call_info info;
      assert_true(run_case(ctx, (k + round) % NUM_CASES, round == 2, (unsigned)k, &info));
    }
    if (round == 1) usleep(2000); /* let one compile be under way */
    ixj_context_destroy(ctx);
  }
}

/* ---- 8 threads ------------------------------------------------------------ */

#define THREADS 8
#define ROUNDS 120

static ixj_context *shared;

static void *worker(void *arg) {
  uint64_t seed = 0x9E3779B97F4A7C15u * (uint64_t)((intptr_t)arg + 1);
  intptr_t bad = 0;
  for (int r = 0; r < ROUNDS; r++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    int k = (int)((seed >> 33) % NUM_CASES);
    ixj_call_info info;
    if (!run_case(shared, k, (seed >> 20) % 4 == 0, (unsigned)r, &info)) bad++;
    if ((seed >> 40) % 64 == 0) ixj_wait_compiles(shared);
  }
  return (void *)bad;
}

static void test_threads(void **state) {
  (void)state;
  shared = make_ctx(IXJ_COMPILE_ASYNC, -1, NULL, NULL);
  pthread_t th[THREADS];
  for (intptr_t t = 0; t < THREADS; t++) assert_int_equal(pthread_create(&th[t], NULL, worker, (void *)t), 0);
  for (int t = 0; t < THREADS; t++) {
    void *bad;
    pthread_join(th[t], &bad);
    assert_int_equal((intptr_t)bad, 0);
  }
  ixj_wait_compiles(shared);
  ixj_cache_stats st;
  ixj_context_cache_stats(shared, &st);
  assert_int_equal(st.failures, 0);
  assert_int_equal(st.compiles, st.entries); /* each kernel compiled once, generic calls or not */
  printf("%llu compiles, %llu hits, %llu generic calls\n", (unsigned long long)st.compiles,
         (unsigned long long)st.hits, (unsigned long long)st.generic_calls);
  ixj_context_destroy(shared);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_generic_every_case), cmocka_unit_test(test_async_swaps),
      cmocka_unit_test(test_prepared_upgrades),  cmocka_unit_test(test_cache_only_disk),
      cmocka_unit_test(test_env),                cmocka_unit_test(test_destroy_mid_compile),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, parse_all, free_all);
}

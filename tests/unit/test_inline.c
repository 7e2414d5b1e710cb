/* Small work runs on the caller's thread (runtime/backend_cpu.c): on a
 * 2-thread context, copies and fills below the measured thresholds (512 KiB
 * moved elementwise or by memcpy, 1.5 MiB for transposes, 1 MiB for staged
 * ones, which need 64-byte vectors and are not Zen's) hand no job to the
 * pool, larger ones do; every result is checked against the reference
 * interpreter either way. Internal API: the pool's job counter. */
#include "context_internal.h"
#include "jit_llvm.h"
#include "test_util.h"

static ixj_context *ctx;

static void one(ixj_op_kind op, const char *dst_text, const char *src_text, bool want_pool) {
  ixj_ixfun *fd = parse_ok(dst_text), *fs = src_text ? parse_ok(src_text) : NULL;
  size_t bytes;
  assert_int_equal(ixj_ixfun_required_bytes(fd, 4, &bytes, NULL), IXJ_OK);
  /* on lines: whether a transpose is staged depends on it, and so its threshold */
  size_t alloc = (bytes + 63) / 64 * 64;
  unsigned char *src = aligned_alloc(64, alloc), *got = aligned_alloc(64, alloc), *want = aligned_alloc(64, alloc);
  assert_true(src && got && want);
  memset(got, 0, bytes);
  memset(want, 0, bytes);
  for (size_t k = 0; k < bytes; k++) src[k] = (unsigned char)(k * 13 + k / 509);
  ixj_operand d = {got, bytes, fd}, w = {want, bytes, fd}, s = {src, bytes, fs};
  float value = 2.5f;
  ixj_error err;
  uint64_t before = ixj__pool_jobs(ctx->pool);
  for (int round = 0; round < 2; round++) { /* a compile, then a hit */
    if (op == IXJ_OP_COPY) assert_int_equal(ixj_copy(ctx, &d, &s, 4, NULL, &err), IXJ_OK);
    else assert_int_equal(ixj_fill(ctx, &d, &value, 4, NULL, &err), IXJ_OK);
  }
  uint64_t jobs = ixj__pool_jobs(ctx->pool) - before;
  if (want_pool) assert_int_equal(jobs, 2);
  else assert_int_equal(jobs, 0);
  if (op == IXJ_OP_COPY) assert_int_equal(ixj_reference_copy(&w, &s, 4, &err), IXJ_OK);
  else assert_int_equal(ixj_reference_fill(&w, &value, 4, &err), IXJ_OK);
  assert_memory_equal(got, want, bytes);
  free(src);
  free(got);
  free(want);
  ixj_ixfun_free(fd);
  ixj_ixfun_free(fs);
}

static void test_thresholds(void **state) {
  (void)state;
  ixj_context_options o = {.num_threads = 2, .disk_cache = -1};
  ixj_error err;
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  one(IXJ_OP_COPY, "iota 128 256", "iota 128 256", false);                   /* memcpy, 256 KiB moved */
  one(IXJ_OP_COPY, "iota 1024 512", "iota 1024 512", true);                  /* memcpy, 4 MiB */
  one(IXJ_OP_COPY, "iota 181 181", "iota 181 181 | slice ::-1 ::-1", false); /* elementwise, 256 KiB */
  one(IXJ_OP_COPY, "iota 256 256", "iota 256 256 | slice ::-1 ::-1", true);  /* elementwise, 512 KiB */
  one(IXJ_OP_COPY, "iota 362 362", "iota 362 362 | permute 1 0", false);     /* tiled, 1 MiB */
  one(IXJ_OP_COPY, "iota 400 400", "iota 400 400 | permute 1 0", false);     /* tiled, 1.22 MiB */
  one(IXJ_OP_COPY, "iota 448 448", "iota 448 448 | permute 1 0", true);      /* tiled, 1.53 MiB */
  one(IXJ_OP_COPY, "iota 512 512", "iota 512 512 | permute 1 0", true);      /* tiled, 2 MiB */
  /* rows off lines, in cache: staged with 64-byte vectors, but not on Zen cores (gen/plan.c, stage_tiles) */
  bool staged = ixj__jit_llvm_vector_bytes(ctx->jit) == 64 && !ixj__jit_llvm_zen(ctx->jit);
  one(IXJ_OP_COPY, "iota 360 360", "iota 360 360 | permute 1 0", false);     /* staged, just under 1 MiB */
  one(IXJ_OP_COPY, "iota 420 420", "iota 420 420 | permute 1 0", staged);    /* staged, 1.35 MiB */
  one(IXJ_OP_FILL, "iota 256 256 | slice ::-1", NULL, false);                /* fill, 256 KiB written */
  one(IXJ_OP_FILL, "iota 512 256 | slice ::-1", NULL, true);                 /* fill, 512 KiB */
  ixj_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_thresholds)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* JIT differential test: every case of a generated corpus runs through the
 * JIT and through the reference interpreter; the whole destination buffers
 * (untouched bytes and a guard zone after them included) must be identical,
 * and the emitted IR must contain no hardware division.
 *
 * With --cuda the cases run on CUDA device 0 instead (buffers uploaded and
 * downloaded around each call); without a usable GPU that mode exits 77
 * (skipped) and says why.
 *
 * usage: test_jit_diff [--cuda] CASES-FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ixjit/ixjit.h"

#define GUARD 64

static uint64_t rng = 0x243F6A8885A308D3u;
static unsigned char next_byte(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned char)rng;
}

static size_t span(const ixj_ixfun *f, size_t e) {
  ixj_offset_range r = ixj_ixfun_offset_range(f);
  return r.empty ? 0 : (size_t)(r.max + 1) * e;
}

static int use_cuda;

/* The operation on device 0: dst and srcs uploaded, run, dst downloaded. */
static ixj_status run_cuda(ixj_context *ctx, ixj_op_kind op, ixj_operand *d, const ixj_operand *s, int nsrc, int axis,
                           size_t e, const void *value, ixj_call_info *info, ixj_error *err) {
  ixj_operand dd = *d, ds[IXJ_MAX_CAT_INPUTS];
  ixj_status st = ixj_cuda_alloc(&dd.data, d->size_bytes + GUARD, err);
  if (st == IXJ_OK) st = ixj_cuda_upload(dd.data, d->data, d->size_bytes + GUARD, err);
  for (int k = 0; k < nsrc; k++) ds[k] = (ixj_operand){NULL, s[k].size_bytes, s[k].ixfun};
  for (int k = 0; st == IXJ_OK && k < nsrc; k++) {
    st = ixj_cuda_alloc(&ds[k].data, s[k].size_bytes, err);
    if (st == IXJ_OK) st = ixj_cuda_upload(ds[k].data, s[k].data, s[k].size_bytes, err);
  }
  if (st == IXJ_OK)
    st = op == IXJ_OP_COPY ? ixj_copy_cuda(ctx, &dd, &ds[0], e, NULL, info, err)
         : op == IXJ_OP_FILL ? ixj_fill_cuda(ctx, &dd, value, e, NULL, info, err)
                             : ixj_cat_cuda(ctx, &dd, axis, nsrc, ds, e, NULL, info, err);
  if (st == IXJ_OK) st = ixj_cuda_synchronize(NULL, err);
  if (st == IXJ_OK) st = ixj_cuda_download(d->data, dd.data, d->size_bytes + GUARD, err);
  ixj_cuda_free(dd.data);
  for (int k = 0; k < nsrc; k++) ixj_cuda_free(ds[k].data);
  return st;
}

static int has_division(const char *ir) {
  static const char *ops[] = {" udiv ", " urem ", " sdiv ", " srem "};
  for (size_t k = 0; k < 4; k++)
    if (strstr(ir, ops[k])) return 1;
  return 0;
}

/* One case; returns 0 when it passes, else prints why. */
static int run_case(ixj_context *ctx, char *line, int lineno, int *strategies) {
  char *field[2 + 2 + IXJ_MAX_CAT_INPUTS];
  int n = 0;
  for (char *tok = strtok(line, "\t\n"); tok && n < (int)(sizeof field / sizeof *field); tok = strtok(NULL, "\t\n"))
    field[n++] = tok;
  if (n < 3) return 0; /* blank line */
  ixj_op_kind op = !strcmp(field[0], "copy") ? IXJ_OP_COPY : !strcmp(field[0], "fill") ? IXJ_OP_FILL : IXJ_OP_CAT;
  size_t e = (size_t)atoi(field[1]);
  int axis = op == IXJ_OP_CAT ? atoi(field[2]) : 0, first = op == IXJ_OP_CAT ? 3 : 2;
  int nsrc = n - first - 1;
  ixj_ixfun *dst = NULL, *src[IXJ_MAX_CAT_INPUTS] = {0};
  ixj_error err;
  int failed = 0;
  if (ixj_ixfun_parse(field[first], &dst, &err) != IXJ_OK) {
    printf("FAIL line %d: dst: %s\n", lineno, err.message);
    return 1;
  }
  for (int k = 0; k < nsrc; k++)
    if (ixj_ixfun_parse(field[first + 1 + k], &src[k], &err) != IXJ_OK) {
      printf("FAIL line %d: src %d: %s\n", lineno, k, err.message);
      failed = 1;
    }
  size_t dsize = span(dst, e);
  unsigned char *dbuf = malloc(dsize + GUARD), *ref = malloc(dsize + GUARD), *sbuf[IXJ_MAX_CAT_INPUTS] = {0};
  ixj_operand d = {dbuf, dsize, dst}, r = {ref, dsize, dst}, s[IXJ_MAX_CAT_INPUTS];
  unsigned char value[16];
  for (size_t b = 0; b < dsize + GUARD; b++) dbuf[b] = ref[b] = next_byte();
  for (size_t b = 0; b < e; b++) value[b] = next_byte();
  for (int k = 0; k < nsrc && !failed; k++) {
    size_t sz = span(src[k], e);
    sbuf[k] = malloc(sz ? sz : 1);
    for (size_t b = 0; b < sz; b++) sbuf[k][b] = next_byte();
    s[k] = (ixj_operand){sbuf[k], sz, src[k]};
  }
  if (!failed) {
    ixj_call_info info;
    ixj_error e1, e2;
    ixj_status st1 = use_cuda ? run_cuda(ctx, op, &d, s, nsrc, axis, e, value, &info, &e1)
                     : op == IXJ_OP_COPY ? ixj_copy(ctx, &d, &s[0], e, &info, &e1)
                     : op == IXJ_OP_FILL ? ixj_fill(ctx, &d, value, e, &info, &e1)
                                         : ixj_cat(ctx, &d, axis, nsrc, s, e, &info, &e1);
    ixj_status st2 = op == IXJ_OP_COPY ? ixj_reference_copy(&r, &s[0], e, &e2)
                     : op == IXJ_OP_FILL ? ixj_reference_fill(&r, value, e, &e2)
                                         : ixj_reference_cat(&r, axis, nsrc, s, e, &e2);
    if (st1 != IXJ_OK || st2 != IXJ_OK) {
      printf("FAIL line %d: %s / %s\n", lineno, st1 ? e1.message : "ok", st2 ? e2.message : "ok");
      failed = 1;
    } else if (memcmp(dbuf, ref, dsize + GUARD)) {
      size_t b = 0;
      while (dbuf[b] == ref[b]) b++;
      printf("FAIL line %d (%s): byte %zu of %zu differs\n", lineno, info.strategy, b, dsize);
      failed = 1;
    } else {
      strategies[!strcmp(info.strategy, "memcpy")     ? 0
                 : !strcmp(info.strategy, "inner_contiguous") ? 1
                 : !strcmp(info.strategy, "tiled")      ? 2
                 : !strcmp(info.strategy, "general")    ? 3
                 : !strcmp(info.strategy, "cat_parts")  ? 4
                                                        : 5]++;
    }
    char *ir = NULL;
    if (!failed && !use_cuda && ixj_emit_llvm(ctx, op, dst, nsrc, (const ixj_ixfun *const *)src, axis, e, &ir, NULL, &err) == IXJ_OK &&
        has_division(ir)) {
      printf("FAIL line %d: the IR contains a hardware division\n", lineno);
      failed = 1;
    }
    free(ir);
  }
  if (failed) printf("  case: %s %s ...\n", field[0], field[first]);
  free(dbuf);
  free(ref);
  for (int k = 0; k < nsrc; k++) {
    free(sbuf[k]);
    ixj_ixfun_free(src[k]);
  }
  ixj_ixfun_free(dst);
  return failed;
}

int main(int argc, char **argv) {
  use_cuda = argc == 3 && !strcmp(argv[1], "--cuda");
  if (argc != 2 + use_cuda) {
    fprintf(stderr, "usage: test_jit_diff [--cuda] CASES-FILE\n");
    return 2;
  }
  const char *path = argv[1 + use_cuda];
  ixj_error why;
  if (use_cuda && ixj_cuda_available(NULL, &why) != IXJ_OK) {
    printf("skipped: %s\n", why.message);
    return 77;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    perror(path);
    return 2;
  }
  ixj_context *ctx;
  ixj_error err;
  /* a small "last-level cache", so the large cases take the streaming-store path */
  if (ixj_context_create(&(ixj_context_options){.last_level_cache = 256 << 10, .disk_cache = -1}, &ctx, &err) != IXJ_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 2;
  }
  static char line[1 << 16];
  int lineno = 0, passed = 0, failed = 0, strategies[6] = {0};
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (run_case(ctx, line, lineno, strategies)) failed++;
    else passed++;
  }
  fclose(f);
  ixj_cache_stats stats;
  ixj_context_cache_stats(ctx, &stats);
  printf("strategies: memcpy %d, inner_contiguous %d, tiled %d, general %d, cat_parts %d, empty %d; %llu kernels compiled in "
         "%.0f ms\n",
         strategies[0], strategies[1], strategies[2], strategies[3], strategies[4], strategies[5], (unsigned long long)stats.compiles,
         stats.compile_ms);
  ixj_context_destroy(ctx);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

/* Cache benchmark: the time to compile a kernel (LLVM, O3), to load it from
 * the disk cache in a new context, and to find it in memory (the whole call
 * of a one-element copy, which is what a dispatcher pays on a hit). Medians.
 *
 * usage: bench_cache [DIR]   (default: a fresh folder under /tmp) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ixjit/cache.h"
#include "ixjit/ixjit.h"
#include "timing.h"

#define KERNELS 21
#define HITS 20001

/* Kernel k: a transposing copy of a (k+8) x 9 array, int32. */
static ixj_status copy_k(ixj_context *ctx, int k, ixj_call_info *info) {
  static int32_t src[4096], dst[4096];
  char d[64], s[64];
  snprintf(d, sizeof d, "iota %d 9", k + 8);
  snprintf(s, sizeof s, "iota 9 %d | permute 1 0 | slice ::-1", k + 8);
  ixj_ixfun *fd, *fs;
  ixj_ixfun_parse(d, &fd, NULL);
  ixj_ixfun_parse(s, &fs, NULL);
  ixj_operand od = {dst, sizeof dst, fd}, os = {src, sizeof src, fs};
  ixj_error err;
  ixj_status st = ixj_copy(ctx, &od, &os, 4, info, &err);
  if (st != IXJ_OK) fprintf(stderr, "%s\n", err.message);
  ixj_ixfun_free(fd);
  ixj_ixfun_free(fs);
  return st;
}

int main(int argc, char **argv) {
  char dir[256];
  snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "/tmp/ixjit-bench-cache");
  ixj_cache_clear(dir, NULL, NULL);
  ixj_context_options o = {.num_threads = 1, .disk_cache = 1, .cache_dir = dir};
  double compile[KERNELS], load[KERNELS], hit[HITS];
  ixj_context *a, *b;
  ixj_call_info info;
  if (ixj_context_create(&o, &a, NULL) != IXJ_OK) return 1;
  for (int k = 0; k < KERNELS; k++) {
    if (copy_k(a, k, &info) != IXJ_OK || info.cache_hit || info.disk_hit) return 1;
    compile[k] = info.compile_ms;
  }
  ixj_context_destroy(a);
  if (ixj_context_create(&o, &b, NULL) != IXJ_OK) return 1; /* a new context: memory empty, disk warm */
  for (int k = 0; k < KERNELS; k++) {
    if (copy_k(b, k, &info) != IXJ_OK || !info.disk_hit) return 1;
    load[k] = info.compile_ms;
  }
  /* memory hits: a one-element copy, the whole call */
  int32_t x = 1, y = 0;
  ixj_ixfun *f;
  ixj_ixfun_parse("iota 1 | rotate 0", &f, NULL);
  ixj_operand od = {&y, sizeof y, f}, os = {&x, sizeof x, f};
  ixj_copy(b, &od, &os, 4, NULL, NULL);
  for (int k = 0; k < HITS; k++) {
    double t0 = now_ms();
    ixj_copy(b, &od, &os, 4, NULL, NULL);
    hit[k] = now_ms() - t0;
  }
  ixj_ixfun_free(f);
  ixj_context_destroy(b);
  printf("kernel cache on %s (medians): compile %.2f ms, load from disk %.3f ms, call on a memory hit %.2f us\n", dir,
         median(compile, KERNELS), median(load, KERNELS), median(hit, HITS) * 1e3);
  ixj_cache_clear(dir, NULL, NULL);
  rmdir(dir);
  return 0;
}

/* CUDA emission checked with NVRTC, no GPU needed:
 *  - every kernel of a corpus (copies, fills, cats; ranks 1-6, all element
 *    sizes, every strategy, chains, both index widths) compiles to CUBIN for
 *    sm_80 and sm_90, and its PTX has no integer div or rem;
 *  - the static cost of the index math, counted in the CUBIN's .text (non-NOP
 *    instructions): the specialized kernel against the same kernel with plain
 *    / and % on constants (NVRTC's own reduction) and with PyTorch-style
 *    runtime magic, for every kernel family (2-D to 6-D general copies, tiled
 *    transposes, fills, cats); the specialized one must be the smallest in
 *    every row.
 * Exits 77 (skipped) when NVRTC cannot be loaded.
 * usage: test_cuda_compile CASES-FILE | --costs (the cost table alone) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_cuda.h"
#include "ixjit/ixjit.h"
#include "nvrtc.h"
#include "plan.h"

typedef struct job {
  char *line;
  int failed;
  int strategy;
} job;

static ixj_context *ctx;
static job *jobs;
static int njobs;
static atomic_int next_job;

static int has_integer_division(const char *ptx) {
  static const char *ops[] = {"div.u16", "div.s16", "div.u32", "div.s32", "div.u64", "div.s64", "rem."};
  for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
    if (strstr(ptx, ops[k])) return 1;
  return 0;
}

static int compile_one(job *j) {
  char *field[3 + 2 + IXJ_MAX_CAT_INPUTS] = {NULL}, *save;
  int n = 0;
  char *line = strdup(j->line);
  for (char *t = strtok_r(line, "\t\n", &save); t && n < (int)(sizeof field / sizeof *field); t = strtok_r(NULL, "\t\n", &save))
    field[n++] = t;
  if (n < 3) {
    free(line);
    return 0;
  }
  ixj_op_kind op = !strcmp(field[0], "copy") ? IXJ_OP_COPY : !strcmp(field[0], "fill") ? IXJ_OP_FILL : IXJ_OP_CAT;
  int first = op == IXJ_OP_CAT ? 3 : 2, axis = op == IXJ_OP_CAT ? atoi(field[2]) : 0, nsrc = n - first - 1;
  ixj_ixfun *f[1 + IXJ_MAX_CAT_INPUTS] = {NULL};
  int bad = 0;
  for (int k = 0; k <= nsrc; k++) bad |= ixj_ixfun_parse(field[first + k], &f[k], NULL) != IXJ_OK;
  char *src = NULL;
  ixj_error err;
  if (!bad && ixj_emit_cuda(ctx, "sm_90", op, f[0], nsrc, (const ixj_ixfun *const *)(f + 1), axis, (size_t)atoi(field[1]),
                            &src, NULL, &err) != IXJ_OK) {
    printf("FAIL %s: %s\n", j->line, err.message);
    bad = 1;
  }
  if (!bad && !strstr(src, "needs no kernel")) {
    j->strategy = strstr(src, "tiled kernel") ? 2 : strstr(src, "inner_contiguous") ? 1 : 3;
    static const char *archs[] = {"sm_80", "sm_90"};
    for (int a = 0; a < 2 && !bad; a++) {
      void *cubin = NULL;
      size_t size;
      char *ptx = NULL;
      if (ixj__nvrtc_compile_with_ptx(src, archs[a], &cubin, &size, &ptx, &err) != IXJ_OK) {
        printf("FAIL %s for %s: %s\n", j->line, archs[a], err.message);
        bad = 1;
      } else if (has_integer_division(ptx)) {
        printf("FAIL %s for %s: integer div/rem in the PTX\n", j->line, archs[a]);
        bad = 1;
      }
      free(cubin);
      free(ptx);
    }
  }
  free(src);
  for (int k = 0; k <= nsrc; k++) ixj_ixfun_free(f[k]);
  free(line);
  return bad;
}

static void *worker(void *arg) {
  (void)arg;
  for (int k; (k = atomic_fetch_add(&next_job, 1)) < njobs;) jobs[k].failed = compile_one(&jobs[k]);
  return NULL;
}

/* Non-NOP instructions in the .text section of `name` in an sm_8x/9x CUBIN. */
static long count_instructions(const unsigned char *elf, size_t size, const char *name) {
  if (size < 64 || memcmp(elf, "\177ELF", 4) || elf[4] != 2) return -1;
  uint64_t shoff;
  uint16_t shentsize, shnum, shstrndx;
  memcpy(&shoff, elf + 0x28, 8);
  memcpy(&shentsize, elf + 0x3A, 2);
  memcpy(&shnum, elf + 0x3C, 2);
  memcpy(&shstrndx, elf + 0x3E, 2);
  if (shoff + (uint64_t)shnum * shentsize > size || shstrndx >= shnum) return -1;
  uint64_t stroff;
  memcpy(&stroff, elf + shoff + (uint64_t)shstrndx * shentsize + 0x18, 8);
  char want[128];
  snprintf(want, sizeof want, ".text.%s", name);
  for (unsigned k = 0; k < shnum; k++) {
    const unsigned char *h = elf + shoff + (uint64_t)k * shentsize;
    uint32_t nm;
    uint64_t off, sz;
    memcpy(&nm, h, 4);
    memcpy(&off, h + 0x18, 8);
    memcpy(&sz, h + 0x20, 8);
    if (stroff + nm >= size || strcmp((const char *)elf + stroff + nm, want) || off + sz > size) continue;
    long count = 0;
    for (uint64_t w = 0; w + 16 <= sz; w += 16) /* 16-byte words; NOP is opcode 0x918 */
      count += ((elf[off + w] | elf[off + w + 1] << 8) & 0xfff) != 0x918;
    return count;
  }
  return -1;
}

static long cost(const ixj_plan *p, cuda_division d) {
  char *src = NULL;
  void *cubin = NULL;
  size_t size = 0;
  ixj_error err;
  long n = -1;
  if (ixj__emit_cuda(p, "k", "cost", d, &src, &err) == IXJ_OK && ixj__nvrtc_compile(src, "sm_90", &cubin, &size, &err) == IXJ_OK)
    n = count_instructions(cubin, size, "k");
  else
    printf("cost: %s\n", err.message);
  free(src);
  free(cubin);
  return n;
}

/* One row of the cost table: a kernel family and a case line in the corpus
 * format (tests/diff/gen_jit_cases.py). Divisors that NVRTC's full-range
 * reduction needs a fixup for (7, 9, 11, ...) show what the bounds buy; a
 * power of two costs every style the same shift. */
static const char *const cost_cases[][2] = {
    {"copy", "copy\t4\tiota 37 45\tiota 45 37 | permute 1 0 | slice ::-1"},
    {"copy", "copy\t4\tiota 7 9 11\tiota 11 9 7 | permute 2 1 0 | rotate 1 2 3"},
    {"copy", "copy\t4\tiota 5 6 7 9\tiota 9 7 6 5 | permute 3 2 1 0 | slice ::-1"},
    {"copy", "copy\t4\tiota 3 5 6 7 9\tiota 9 7 6 5 3 | permute 4 3 2 1 0 | rotate 1 1 1 1 1"},
    {"copy", "copy\t4\tiota 3 5 6 7 9 11\tiota 11 9 7 6 5 3 | permute 5 4 3 2 1 0 | slice ::-1"},
    {"copy", "copy\t4\tiota 70001 70003\tiota 70003 70001 | permute 1 0 | rotate 5 9"},
    {"tiled", "copy\t4\tiota 200 300\tiota 300 200 | permute 1 0"},
    {"tiled", "copy\t4\tiota 7 200 300\tiota 7 300 200 | permute 0 2 1"},
    {"tiled", "copy\t8\tiota 5 9 100 150\tiota 9 5 150 100 | permute 1 0 3 2"},
    {"tiled", "copy\t2\tiota 70001 70003\tiota 70003 70001 | permute 1 0"},
    {"fill", "fill\t4\tiota 7 9 11 | slice ::-1 : ::2"},
    {"fill", "fill\t2\tiota 5 6 7 20 | slice : : : 2:11 | rotate 1 2 3 4"}, /* a fill drops its rotations; rows of 9 remain */
    {"fill", "fill\t4\tiota 63 90 | slice : 1:89"},
    {"cat", "cat\t4\t1\tiota 7 20\tiota 7 9\tiota 11 7 | permute 1 0"},
    {"cat", "cat\t2\t0\tiota 16 9 11\tiota 7 9 11 | slice ::-1\tiota 9 11 9 | permute 2 1 0"},
};

static int cost_table(void) {
  int bad = 0;
  printf("\nstatic cost per kernel family, sm_90, non-NOP SASS instructions:\n");
  printf("%-6s %-5s %-4s %12s %18s %16s  %s\n", "family", "rank", "bits", "specialized", "plain / and %", "runtime magic",
         "case");
  for (size_t k = 0; k < sizeof cost_cases / sizeof *cost_cases; k++) {
    char *field[4 + IXJ_MAX_CAT_INPUTS] = {NULL}, *save, *line = strdup(cost_cases[k][1]);
    int n = 0;
    for (char *t = strtok_r(line, "\t", &save); t; t = strtok_r(NULL, "\t", &save)) field[n++] = t;
    ixj_op_kind op = !strcmp(field[0], "copy") ? IXJ_OP_COPY : !strcmp(field[0], "fill") ? IXJ_OP_FILL : IXJ_OP_CAT;
    int first = op == IXJ_OP_CAT ? 3 : 2, nsrc = n - first - 1;
    ixj_ixfun *f[1 + IXJ_MAX_CAT_INPUTS];
    for (int j = 0; j <= nsrc; j++) ixj_ixfun_parse(field[first + j], &f[j], NULL);
    plan_request req = {.op = op, .elem_size = (size_t)atoi(field[1]), .dst = f[0], .num_srcs = nsrc,
                        .srcs = (const ixj_ixfun *const *)(f + 1), .cat_axis = op == IXJ_OP_CAT ? atoi(field[2]) : 0,
                        .gpu = true};
    ixj_plan *p = malloc(sizeof *p);
    ixj__plan_build(&req, p, NULL);
    int family_ok = !strcmp(cost_cases[k][0], "tiled") == (p->strategy == PLAN_TILED);
    long a = cost(p, CUDA_DIV_MAGIC), b = cost(p, CUDA_DIV_PLAIN), c = cost(p, CUDA_DIV_RUNTIME);
    int ok = family_ok && a > 0 && a < b && a < c;
    printf("%-6s %-5d %-4d %12ld %18ld %16ld  %s %s%s\n", cost_cases[k][0], ixj_ixfun_rank(f[0]), p->index_bits, a, b, c,
           field[first], nsrc ? "<- ..." : "", ok ? "" : family_ok ? "  FAIL" : "  FAIL (planned as another family)");
    bad += !ok;
    free(p);
    for (int j = 0; j <= nsrc; j++) ixj_ixfun_free(f[j]);
    free(line);
  }
  return bad;
}

/* sm_90a-style targets (architecture-specific features, which no kernel here
 * uses; such a CUBIN runs on that exact architecture only) are refused at
 * every entry: emission, compilation, and so warming. The runtime's targets
 * come from the device's compute capability and are always sm_XY. */
static int arch_suffixes_refused(void) {
  static const char *archs[] = {"sm_90a", "sm_100a", "compute_90a"};
  ixj_ixfun *d, *s;
  ixj_ixfun_parse("iota 64 48", &d, NULL);
  ixj_ixfun_parse("iota 48 64 | permute 1 0", &s, NULL);
  const ixj_ixfun *srcs[1] = {s};
  int bad = 0;
  for (size_t k = 0; k < sizeof archs / sizeof *archs; k++) {
    char *src = NULL;
    void *bin = NULL;
    size_t size;
    ixj_error err;
    if (ixj_emit_cuda(ctx, archs[k], IXJ_OP_COPY, d, 1, srcs, 0, 4, &src, NULL, &err) != IXJ_ERR_INVALID_ARGUMENT ||
        ixj_compile_cuda("extern \"C\" __global__ void k() {}", archs[k], &bin, &size, &err) != IXJ_ERR_INVALID_ARGUMENT) {
      printf("FAIL: target %s was not refused\n", archs[k]);
      bad++;
    }
    free(src);
    free(bin);
  }
  ixj_ixfun_free(d);
  ixj_ixfun_free(s);
  return bad;
}

int main(int argc, char **argv) {
  char version[32];
  if (ixj__nvrtc_version(version, sizeof version, NULL) != IXJ_OK) {
    printf("skipped: NVRTC cannot be loaded\n");
    return 77;
  }
  if (argc == 2 && !strcmp(argv[1], "--costs")) /* the cost table alone */
    return cost_table() ? 1 : 0;
  if (argc != 2 || ixj_context_create(&(ixj_context_options){.num_threads = 1, .disk_cache = -1}, &ctx, NULL) != IXJ_OK)
    return 2;
  FILE *f = fopen(argv[1], "r");
  if (!f) return 2;
  static char line[1 << 16];
  jobs = calloc(8192, sizeof *jobs);
  while (njobs < 8192 && fgets(line, sizeof line, f)) jobs[njobs++].line = strdup(line);
  fclose(f);
  /* both index widths: a few spaces of more than 2^32 points (emitted only) */
  static const char *huge[] = {
      "copy\t4\tiota 70001 70003\tiota 70003 70001 | permute 1 0 | rotate 5 9",
      "copy\t8\tiota 4900280003\tiota 70001 70003 | permute 1 0 | reshape 4900280003",
      "copy\t2\tiota 70001 70003\tiota 70003 70001 | permute 1 0",
      "fill\t16\tiota 37 41 43 47 53 59 | slice ::-1",
      "cat\t4\t1\tiota 70001 70003\tiota 70001 70000\tiota 3 70001 | permute 1 0",
  };
  for (size_t k = 0; k < sizeof huge / sizeof *huge; k++) jobs[njobs++].line = strdup(huge[k]);
  pthread_t th[2];
  for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, worker, NULL);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  int failed = 0, strategies[4] = {0};
  for (int k = 0; k < njobs; k++) {
    failed += jobs[k].failed;
    strategies[jobs[k].strategy]++;
    free(jobs[k].line);
  }
  printf("%s: %d signatures compiled for sm_80 and sm_90 (inner_contiguous %d, tiled %d, general %d, no kernel %d)\n",
         version, njobs, strategies[1], strategies[2], strategies[3], strategies[0]);
  if (!strategies[1] || !strategies[2] || !strategies[3]) {
    printf("FAIL: a strategy was never exercised\n");
    failed++;
  }
  failed += cost_table();
  failed += arch_suffixes_refused();
  ixj_context_destroy(ctx);
  free(jobs);
  printf("%d passed, %d failed\n", njobs + (int)(sizeof cost_cases / sizeof *cost_cases) - failed, failed);
  return failed ? 1 : 0;
}

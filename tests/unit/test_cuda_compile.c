/* CUDA emission checked with NVRTC, no GPU needed:
 *  - every kernel of a corpus (copies, fills, cats; ranks 1-6, all element
 *    sizes, every strategy, chains, both index widths) compiles to CUBIN for
 *    sm_80 and sm_90, and its PTX has no integer div or rem;
 *  - the static cost of the index math, counted in the CUBIN's .text (non-NOP
 *    instructions): the specialized kernel against the same kernel with plain
 *    / and % on constants (NVRTC's own reduction) and with PyTorch-style
 *    runtime magic, for 2-D to 6-D copies; the specialized one must be the
 *    smallest in every case.
 * Exits 77 (skipped) when NVRTC cannot be loaded.
 * usage: test_cuda_compile CASES-FILE */
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

static int cost_table(void) {
  static const char *cases[][2] = {
      {"iota 37 45", "iota 45 37 | permute 1 0 | slice ::-1"},
      {"iota 7 9 11", "iota 11 9 7 | permute 2 1 0 | rotate 1 2 3"},
      {"iota 5 6 7 9", "iota 9 7 6 5 | permute 3 2 1 0 | slice ::-1"},
      {"iota 3 5 6 7 9", "iota 9 7 6 5 3 | permute 4 3 2 1 0 | rotate 1 1 1 1 1"},
      {"iota 3 5 6 7 9 11", "iota 11 9 7 6 5 3 | permute 5 4 3 2 1 0 | slice ::-1"},
  };
  int bad = 0;
  printf("\nstatic cost of a copy kernel, sm_90, non-NOP SASS instructions:\n");
  printf("%-6s %12s %18s %16s\n", "rank", "specialized", "plain / and %", "runtime magic");
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    ixj_ixfun *d, *s;
    ixj_ixfun_parse(cases[k][0], &d, NULL);
    ixj_ixfun_parse(cases[k][1], &s, NULL);
    const ixj_ixfun *srcs[1] = {s};
    plan_request req = {.op = IXJ_OP_COPY, .elem_size = 4, .dst = d, .num_srcs = 1, .srcs = srcs, .gpu = true};
    ixj_plan *p = malloc(sizeof *p);
    ixj__plan_build(&req, p, NULL);
    long a = cost(p, CUDA_DIV_MAGIC), b = cost(p, CUDA_DIV_PLAIN), c = cost(p, CUDA_DIV_RUNTIME);
    printf("%-6d %12ld %18ld %16ld%s\n", ixj_ixfun_rank(d), a, b, c, a > 0 && a < b && a < c ? "" : "  FAIL");
    bad += !(a > 0 && a < b && a < c);
    free(p);
    ixj_ixfun_free(d);
    ixj_ixfun_free(s);
  }
  return bad;
}

int main(int argc, char **argv) {
  char version[32];
  if (ixj__nvrtc_version(version, sizeof version, NULL) != IXJ_OK) {
    printf("skipped: NVRTC cannot be loaded\n");
    return 77;
  }
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
  ixj_context_destroy(ctx);
  free(jobs);
  printf("%d passed, %d failed\n", njobs + 5 - failed, failed);
  return failed ? 1 : 0;
}

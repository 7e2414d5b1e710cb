/* `ixjit demo`: the main job, end to end. A handful of real cases are
 * JIT-compiled, run and verified against the reference interpreter, and a
 * table reports, per case: the bytes moved, the compile time, the bandwidth
 * (bytes read + written) and its ratio to memcpy of the same bytes measured in
 * the same run (medians of several runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "ixjit/ixjit.h"
#include "timing.h"

#define REPS 5

typedef struct demo_case {
  const char *name;
  ixj_op_kind op;
  const char *dst;
  const char *src[3];
  int axis;
} demo_case;

static const demo_case cases[] = {
    {"2-D transpose", IXJ_OP_COPY, "iota 2048 2048", {"iota 2048 2048 | permute 1 0"}, 0},
    {"3-D permute (2,0,1)", IXJ_OP_COPY, "iota 128 128 128", {"iota 128 128 128 | permute 2 0 1"}, 0},
    {"reversed strided slice", IXJ_OP_COPY, "iota 2048 1024", {"iota 2048 2048 | slice ::-1 ::2"}, 0},
    {"rotate", IXJ_OP_COPY, "iota 2048 2048", {"iota 2048 2048 | rotate 100 -37"}, 0},
    {"reshape of a transposed view", IXJ_OP_COPY, "iota 1024 4096", {"iota 2048 2048 | permute 1 0 | reshape 1024 4096"}, 0},
    {"cat (2 inputs, axis 1)", IXJ_OP_CAT, "iota 2048 2048", {"iota 2048 1000", "iota 1048 2048 | permute 1 0"}, 1},
    {"fill", IXJ_OP_FILL, "iota 2048 2048", {NULL}, 0},
};

/* Runs one case; returns 1 when it was verified. */
static int run_case(ixj_context *ctx, const demo_case *c) {
  ixj_ixfun *dst = NULL, *src[3] = {NULL};
  ixj_operand od = {0}, ref = {0}, os[3] = {{0}};
  char *scratch = NULL, *scratch2 = NULL;
  int nsrc = 0, ok = 0;
  ixj_error err = {IXJ_OK, 0, ""};
  ixj_status st = ixj_ixfun_parse(c->dst, &dst, &err);
  for (; st == IXJ_OK && nsrc < 3 && c->src[nsrc]; nsrc++) st = ixj_ixfun_parse(c->src[nsrc], &src[nsrc], &err);
  size_t dsize = 0, out_bytes = 0;
  if (st == IXJ_OK) st = ixj_ixfun_required_bytes(dst, sizeof(float), &dsize, &err);
  if (st == IXJ_OK) {
    out_bytes = (size_t)ixj_ixfun_num_points(dst) * sizeof(float);
    od = (ixj_operand){malloc(dsize), dsize, dst};
    ref = (ixj_operand){malloc(dsize), dsize, dst};
    scratch = malloc(out_bytes);
    scratch2 = malloc(out_bytes);
    bool have = od.data && ref.data && scratch && scratch2;
    for (int k = 0; st == IXJ_OK && k < nsrc; k++) {
      size_t sz = 0;
      st = ixj_ixfun_required_bytes(src[k], sizeof(float), &sz, &err);
      os[k] = (ixj_operand){st == IXJ_OK ? malloc(sz) : NULL, sz, src[k]};
      have = have && os[k].data;
      for (size_t b = 0; os[k].data && b < sz / sizeof(float); b++)
        ((float *)os[k].data)[b] = (float)(b % 100003) + 0.5f * (float)k;
    }
    if (st == IXJ_OK && !have) st = IXJ_ERR_NO_MEMORY, snprintf(err.message, sizeof err.message, "out of memory");
  }
  if (st == IXJ_OK) {
    memset(od.data, 0, dsize);
    memset(ref.data, 0, dsize);
    memset(scratch, 1, out_bytes);
    memset(scratch2, 2, out_bytes);
    float value = 42.0f;
    double t[REPS], m[REPS], compile_ms = 0;
    for (int r = 0; r < REPS && st == IXJ_OK; r++) {
      ixj_call_info info;
      st = c->op == IXJ_OP_COPY ? ixj_copy(ctx, &od, &os[0], sizeof(float), &info, &err)
           : c->op == IXJ_OP_FILL ? ixj_fill(ctx, &od, &value, sizeof(float), &info, &err)
                                  : ixj_cat(ctx, &od, c->axis, nsrc, os, sizeof(float), &info, &err);
      if (r == 0) compile_ms = info.compile_ms;
      t[r] = info.run_ms;
      double t0 = now_ms();
      memcpy(scratch2, scratch, out_bytes);
      m[r] = now_ms() - t0;
    }
    if (st == IXJ_OK)
      st = c->op == IXJ_OP_COPY ? ixj_reference_copy(&ref, &os[0], sizeof(float), &err)
           : c->op == IXJ_OP_FILL ? ixj_reference_fill(&ref, &value, sizeof(float), &err)
                                  : ixj_reference_cat(&ref, c->axis, nsrc, os, sizeof(float), &err);
    if (st == IXJ_OK) {
      ok = !memcmp(od.data, ref.data, dsize);
      double moved = (double)out_bytes * (c->op == IXJ_OP_FILL ? 1 : 2);
      double gbs = moved / (median(t, REPS) * 1e6), memcpy_gbs = 2.0 * (double)out_bytes / (median(m, REPS) * 1e6);
      printf("%-30s %10.1f MiB %11.1f %9.2f %9.2f  %s\n", c->name, (double)out_bytes / (1 << 20), compile_ms, gbs,
             gbs / memcpy_gbs, ok ? "verified" : "MISMATCH");
    }
  }
  if (st != IXJ_OK) printf("%-30s FAILED: %s\n", c->name, err.message);
  free(od.data);
  free(ref.data);
  free(scratch);
  free(scratch2);
  for (int k = 0; k < 3; k++) {
    free(os[k].data);
    ixj_ixfun_free(src[k]);
  }
  ixj_ixfun_free(dst);
  return ok;
}

static const char usage[] =
    "usage: ixjit demo\n"
    "JIT-compiles, runs and verifies seven real cases (transposes, permutes, slices, rotations, a\n"
    "reshape, a cat, a fill) against the reference interpreter and prints their bandwidth next to\n"
    "memcpy's; no disk cache, so the compile column shows real compiles.\n"
    "  -h, --help       this text\n"
    "Exit status: 0 every case verified, 1 a case failed, 2 bad arguments.\n";

int cmd_demo(int argc, char **argv) {
  cli_parser p;
  if (!cli_parser_init(&p, "ixjit demo", argc, argv, usage)) return CLI_FAILED;
  int rc = CLI_OK, npos;
  for (int opt; rc == CLI_OK && (opt = cli_next(&p, "", NULL)) != -1;)
    rc = opt == CLI_HELP ? cli_usage(usage, stdout, CLI_HELP) : CLI_USAGE;
  char **pos = cli_positional(&p, &npos);
  if (rc == CLI_OK && npos) rc = cli_error(CLI_USAGE, "demo takes no arguments, not '%s'", pos[0]);
  cli_parser_free(&p);
  if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
  ixj_context *ctx;
  ixj_error err;
  /* no disk cache: the compile column shows real compiles */
  if (ixj_context_create(&(ixj_context_options){.disk_cache = -1}, &ctx, &err) != IXJ_OK)
    return cli_error(CLI_FAILED, "%s", err.message);
  printf("ixjit %s demo: JIT-compiled strided copies on %s, %d thread%s, float32, medians of %d runs\n\n",
         IXJIT_VERSION_STRING, ixj_context_target(ctx), ixj_context_num_threads(ctx),
         ixj_context_num_threads(ctx) > 1 ? "s" : "", REPS);
  printf("%-30s %14s %11s %9s %9s\n", "case", "bytes", "compile ms", "GB/s", "/memcpy");
  int verified = 0, n = (int)(sizeof cases / sizeof *cases);
  for (int k = 0; k < n; k++) verified += run_case(ctx, &cases[k]);
  ixj_cache_stats stats;
  ixj_context_cache_stats(ctx, &stats);
  printf("\nGB/s counts bytes read + written; /memcpy is the ratio to memcpy of the output's bytes, same run.\n");
  printf("%d kernels compiled in %.0f ms; %d of %d cases verified against the reference interpreter\n",
         (int)stats.compiles, stats.compile_ms, verified, n);
  ixj_context_destroy(ctx);
  return verified == n ? CLI_OK : CLI_FAILED;
}

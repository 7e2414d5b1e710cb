/* The suite through the CUDA path on device 0: ixjit's kernel against a
 * device-to-device copy of the same output bytes (the ceiling; ixjit's memcpy
 * strategy is cuMemcpyDtoD), both timed from launch to synchronize. Without a
 * usable GPU: the reason goes into the run's metadata, and the table prints
 * it as one "gpu: skipped: ..." line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ixjit/cuda.h"
#include "timing.h"

static bench_result *gpu_result(bench_run *run, const bench_case *c, const char *method, double bytes) {
  bench_result *r = bench_run_add(run);
  if (!r) return NULL;
  snprintf(r->case_name, sizeof r->case_name, "%s", c->name);
  snprintf(r->method, sizeof r->method, "%s", method);
  snprintf(r->unit, sizeof r->unit, "ms");
  r->threads = 0; /* the device */
  r->bytes = bytes;
  r->compile_ms = -1;
  bench_result_name(r);
  return r;
}

typedef struct gpu_case {
  const bench_case *c;
  ixj_context *ctx;
  ixj_operand dst, src[BENCH_MAX_SRCS], ceil_dst, ceil_src;
  unsigned char value[16];
} gpu_case;

static ixj_status launch(gpu_case *g, bool ceiling, ixj_call_info *info, ixj_error *err) {
  const bench_case *c = g->c;
  size_t e = (size_t)c->elem_size;
  ixj_status st = ceiling                  ? ixj_copy_cuda(g->ctx, &g->ceil_dst, &g->ceil_src, e, NULL, info, err)
                  : c->op == IXJ_OP_COPY ? ixj_copy_cuda(g->ctx, &g->dst, &g->src[0], e, NULL, info, err)
                  : c->op == IXJ_OP_FILL ? ixj_fill_cuda(g->ctx, &g->dst, g->value, e, NULL, info, err)
                                         : ixj_cat_cuda(g->ctx, &g->dst, c->axis, c->num_srcs, g->src, e, NULL, info, err);
  return st == IXJ_OK ? ixj_cuda_synchronize(NULL, err) : st;
}

/* Seconds per call over `iterations` calls, or < 0. */
static double timed(gpu_case *g, bool ceiling, int64_t iterations, ixj_error *err) {
  double t0 = now_ms();
  for (int64_t k = 0; k < iterations; k++)
    if (launch(g, ceiling, NULL, err) != IXJ_OK) return -1;
  return (now_ms() - t0) * 1e-3 / (double)iterations;
}

static ixj_status device_operand(const char *text, size_t elem, ixj_operand *o, ixj_error *err) {
  ixj_ixfun *f;
  ixj_status st = ixj_ixfun_parse(text, &f, err);
  if (st != IXJ_OK) return st;
  o->ixfun = f;
  st = ixj_ixfun_required_bytes(f, elem, &o->size_bytes, err);
  if (st == IXJ_OK) st = ixj_cuda_alloc(&o->data, o->size_bytes ? o->size_bytes : 1, err);
  return st;
}

static void free_operand(ixj_operand *o) {
  ixj_cuda_free(o->data);
  ixj_ixfun_free((ixj_ixfun *)o->ixfun);
  o->data = NULL;
  o->ixfun = NULL;
}

static void one_case(ixj_context *ctx, const bench_case *c, const bench_options *o, bench_run *run) {
  gpu_case g = {.c = c, .ctx = ctx};
  ixj_error err = {0};
  size_t e = (size_t)c->elem_size;
  for (int b = 0; b < c->elem_size; b++) g.value[b] = (unsigned char)(0x11 * (b + 1));
  ixj_status st = device_operand(c->dst, e, &g.dst, &err);
  for (int q = 0; st == IXJ_OK && q < c->num_srcs; q++) st = device_operand(c->src[q], e, &g.src[q], &err);
  double bytes = 0;
  if (st == IXJ_OK) {
    bytes = bench_case_bytes(c, g.dst.ixfun);
    char flat[64];
    snprintf(flat, sizeof flat, "iota %lld", (long long)ixj_ixfun_num_points(g.dst.ixfun));
    st = device_operand(flat, e, &g.ceil_dst, &err);
    if (st == IXJ_OK) st = device_operand(flat, e, &g.ceil_src, &err);
  }
  /* both added before either is used: adding may move run->results */
  bench_result *rk = gpu_result(run, c, "ixjit_cuda", bytes);
  bench_result *rc = rk ? gpu_result(run, c, "cuda_d2d", 2.0 * (bytes / (c->op == IXJ_OP_FILL ? 1 : 2))) : NULL;
  if (rc) rk = rc - 1;
  ixj_call_info info;
  if (st == IXJ_OK && rk && rc) st = launch(&g, false, &info, &err); /* the compile */
  if (st == IXJ_OK && rk && rc) {
    rk->compile_ms = info.compile_ms;
    snprintf(rk->strategy, sizeof rk->strategy, "%s", info.strategy ? info.strategy : "");
    st = launch(&g, true, NULL, &err);
  }
  int64_t iters[2] = {1, 1};
  for (int m = 0; st == IXJ_OK && m < 2; m++) {
    double first = timed(&g, m == 1, 1, &err);
    if (first < 0) st = IXJ_ERR_BACKEND;
    else if (first < o->min_rep_ms * 1e-3) iters[m] = (int64_t)ceil(o->min_rep_ms * 1e-3 / (first > 1e-7 ? first : 1e-7));
  }
  for (int rep = 0; st == IXJ_OK && rep < o->reps; rep++)
    for (int m = 0; st == IXJ_OK && m < 2; m++) {
      double t = timed(&g, m == 1, iters[m], &err);
      if (t < 0) st = IXJ_ERR_BACKEND;
      else {
        bench_result *r = m ? rc : rk;
        r->sec[r->reps++] = t;
        r->iterations = iters[m];
      }
    }
  if (st != IXJ_OK && rk && rc) {
    rk->skipped = rc->skipped = true;
    snprintf(rk->note, sizeof rk->note, "%s", err.message);
    snprintf(rc->note, sizeof rc->note, "%s", err.message);
    fprintf(stderr, "gpu: %s: %s\n", c->name, err.message);
  }
  free_operand(&g.dst);
  for (int q = 0; q < c->num_srcs; q++) free_operand(&g.src[q]);
  free_operand(&g.ceil_dst);
  free_operand(&g.ceil_src);
}

void bench_cuda_suite(const bench_suite *s, const bench_options *o, bench_run *run) {
  int cc = 0;
  ixj_error err;
  if (ixj_cuda_available(&cc, &err) != IXJ_OK) {
    snprintf(run->meta.gpu, sizeof run->meta.gpu, "skipped: %s", err.message); /* the table prints it */
    return;
  }
  snprintf(run->meta.gpu, sizeof run->meta.gpu, "sm_%d", cc);
  ixj_context *ctx;
  ixj_context_options opts = {.num_threads = 1, .disk_cache = -1};
  if (ixj_context_create(&opts, &ctx, &err) != IXJ_OK) {
    snprintf(run->meta.gpu, sizeof run->meta.gpu, "skipped: %s", err.message);
    return;
  }
  for (int k = 0; k < s->count; k++) {
    bench_progress(k + 1, s->count, s->cases[k].name, 0);
    one_case(ctx, &s->cases[k], o, run);
  }
  bench_progress_done();
  ixj_context_destroy(ctx);
}

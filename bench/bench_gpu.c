/* GPU benchmark (needs a CUDA device; scripts/gpu-check.sh runs it): every
 * demo case with 1 GiB outputs (scale with --scale), GB/s (bytes read +
 * written) of ixjit's specialized kernel, of cuMemcpyDtoD of the same bytes,
 * and of the same kernel with PyTorch-style runtime magic (IntDivider:
 * divisors and magic numbers read from the arguments), medians of 5. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver.h"
#include "emit_cuda.h"
#include "ixjit/ixjit.h"
#include "nvrtc.h"
#include "plan.h"
#include "timing.h"

#define REPS 5

typedef struct bench_case {
  const char *name;
  ixj_op_kind op;
  char dst[96], src[2][96];
  int axis;
} bench_case;

/* PyTorch's IntDivider<unsigned> parameters. */
static void int_divider(uint32_t d, uint32_t *magic, uint32_t *shift) {
  uint32_t s = 0;
  while (((uint64_t)1 << s) < d) s++;
  *shift = s;
  *magic = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << s) - d)) / d + 1);
}

/* The runtime-magic kernel of the same plan, launched over all units. */
static double runtime_magic_ms(const ixj_plan *p, const ixj_operand *d, const ixj_operand *s, ixj_error *err) {
  char *src = NULL;
  void *image = NULL, *kernel = NULL;
  size_t size;
  cuda_divisors dv;
  int cc = 0;
  double ms = -1;
  if (p->index_bits != 32 || ixj__cuda_device(0, &cc, err) != IXJ_OK) return -1;
  char arch[16];
  snprintf(arch, sizeof arch, "sm_%d", cc);
  if (ixj__emit_cuda_runtime(p, "runtime_magic", &src, &dv, err) == IXJ_OK && ixj__nvrtc_compile(src, arch, &image, &size, err) == IXJ_OK &&
      ixj__cuda_load_kernel(image, "runtime_magic", &kernel, err) == IXJ_OK) {
    int n = p->num_operands, nd = dv.count ? dv.count : 1;
    unsigned char args[4096] = {0};
    for (int o = 0; o < n; o++) {
      const void *ptr = o == 0 ? d->data : p->op == IXJ_OP_FILL ? NULL : s[o - 1].data;
      int64_t off = p->operand[o].runtime_offset;
      memcpy(args + 8 * o, &ptr, 8);
      memcpy(args + 8 * n + 8 * o, &off, 8);
    }
    if (p->op == IXJ_OP_FILL) memset(args + 16 * n, 0x3f, 4);
    uint32_t *magic = (uint32_t *)(args + 16 * n + 16), *shift = magic + nd, *value = shift + nd;
    for (int k = 0; k < dv.count; k++) {
      int_divider(dv.value[k], &magic[k], &shift[k]);
      value[k] = dv.value[k];
    }
    double t[REPS];
    unsigned blocks, bx, by;
    ixj__cuda_launch_shape(p, p->work_units, &blocks, &bx, &by);
    for (int r = 0; r < REPS; r++) {
      double t0 = now_ms();
      ixj__cuda_launch(0, kernel, blocks, bx, by, args, 0, (long long)p->work_units, NULL, err);
      ixj__cuda_synchronize(0, NULL, err);
      t[r] = now_ms() - t0;
    }
    ms = median(t, REPS);
  }
  free(src);
  free(image);
  return ms;
}

int main(int argc, char **argv) {
  double scale = argc == 3 && !strcmp(argv[1], "--scale") ? atof(argv[2]) : 1.0;
  int n = (int)(16384 * scale);
  n -= n % 64;
  if (n < 256) n = 256;
  int c3 = 1;
  while ((double)(c3 + 1) * (c3 + 1) * (c3 + 1) <= (double)n * n) c3++;
  bench_case cases[7] = {{"2-D transpose", IXJ_OP_COPY, "", {"", ""}, 0}};
  snprintf(cases[0].dst, 96, "iota %d %d", n, n);
  snprintf(cases[0].src[0], 96, "iota %d %d | permute 1 0", n, n);
  cases[1] = (bench_case){"3-D permute (2,0,1)", IXJ_OP_COPY, "", {"", ""}, 0};
  snprintf(cases[1].dst, 96, "iota %d %d %d", c3, c3, c3);
  snprintf(cases[1].src[0], 96, "iota %d %d %d | permute 2 0 1", c3, c3, c3);
  cases[2] = (bench_case){"reversed strided slice", IXJ_OP_COPY, "", {"", ""}, 0};
  snprintf(cases[2].dst, 96, "iota %d %d", n, n / 2);
  snprintf(cases[2].src[0], 96, "iota %d %d | slice ::-1 ::2", n, n);
  cases[3] = (bench_case){"rotate", IXJ_OP_COPY, "", {"", ""}, 0};
  snprintf(cases[3].dst, 96, "iota %d %d", n, n);
  snprintf(cases[3].src[0], 96, "iota %d %d | rotate 100 -37", n, n);
  cases[4] = (bench_case){"reshape of a transposed view", IXJ_OP_COPY, "", {"", ""}, 0};
  snprintf(cases[4].dst, 96, "iota %d %d", n / 2, 2 * n);
  snprintf(cases[4].src[0], 96, "iota %d %d | permute 1 0 | reshape %d %d", n, n, n / 2, 2 * n);
  cases[5] = (bench_case){"cat (2 inputs, axis 1)", IXJ_OP_CAT, "", {"", ""}, 1};
  snprintf(cases[5].dst, 96, "iota %d %d", n, n);
  snprintf(cases[5].src[0], 96, "iota %d %d", n, n / 2);
  snprintf(cases[5].src[1], 96, "iota %d %d | permute 1 0", n / 2, n);
  cases[6] = (bench_case){"fill", IXJ_OP_FILL, "", {"", ""}, 0};
  snprintf(cases[6].dst, 96, "iota %d %d", n, n);

  ixj_error err;
  int cc;
  if (ixj_cuda_available(&cc, &err) != IXJ_OK) {
    printf("skipped: %s\n", err.message);
    return 0;
  }
  ixj_context *ctx;
  if (ixj_context_create(&(ixj_context_options){.num_threads = 1, .disk_cache = -1}, &ctx, &err) != IXJ_OK) return 1;
  printf("ixjit GPU benchmark, sm_%d, float32; GB/s = bytes read + written; medians of %d\n", cc, REPS);
  printf("%-30s %9s %12s %12s %14s %10s %12s\n", "case", "GiB", "specialized", "memcpyDtoD", "runtime magic",
         "/memcpy", "/runtime");
  for (int k = 0; k < 7; k++) {
    bench_case *c = &cases[k];
    ixj_ixfun *d = NULL, *s[2] = {NULL, NULL};
    int nsrc = 0;
    ixj_ixfun_parse(c->dst, &d, NULL);
    for (; nsrc < 2 && c->src[nsrc][0]; nsrc++) ixj_ixfun_parse(c->src[nsrc], &s[nsrc], NULL);
    size_t out = (size_t)ixj_ixfun_num_points(d) * 4;
    ixj_operand od = {NULL, 0, d}, os[2] = {{NULL, 0, NULL}, {NULL, 0, NULL}};
    void *scratch = NULL;
    ixj_status st = ixj_ixfun_required_bytes(d, 4, &od.size_bytes, &err);
    if (st == IXJ_OK) st = ixj_cuda_alloc(&od.data, od.size_bytes, &err);
    for (int q = 0; st == IXJ_OK && q < nsrc; q++) {
      os[q] = (ixj_operand){NULL, 0, s[q]};
      st = ixj_ixfun_required_bytes(s[q], 4, &os[q].size_bytes, &err);
      if (st == IXJ_OK) st = ixj_cuda_alloc(&os[q].data, os[q].size_bytes, &err);
    }
    if (st == IXJ_OK) st = ixj_cuda_alloc(&scratch, out, &err);
    double t[REPS], m[REPS], spec = -1, copy = -1, rt = -1;
    float value = 1.0f;
    for (int r = 0; st == IXJ_OK && r <= REPS; r++) { /* r == 0 compiles */
      double t0 = now_ms();
      st = c->op == IXJ_OP_COPY ? ixj_copy_cuda(ctx, &od, &os[0], 4, NULL, NULL, &err)
           : c->op == IXJ_OP_FILL ? ixj_fill_cuda(ctx, &od, &value, 4, NULL, NULL, &err)
                                  : ixj_cat_cuda(ctx, &od, c->axis, nsrc, os, 4, NULL, NULL, &err);
      if (st == IXJ_OK) st = ixj_cuda_synchronize(NULL, &err);
      if (r) t[r - 1] = now_ms() - t0;
      t0 = now_ms();
      if (st == IXJ_OK) st = ixj__cuda_memcpy_dtod(0, scratch, od.data, out, NULL, &err);
      if (st == IXJ_OK) st = ixj_cuda_synchronize(NULL, &err);
      if (r) m[r - 1] = now_ms() - t0;
    }
    if (st == IXJ_OK) {
      const ixj_ixfun *srcs[2] = {s[0], s[1]};
      plan_request req = {.op = c->op, .elem_size = 4, .dst = d, .num_srcs = nsrc, .srcs = srcs, .cat_axis = c->axis,
                          .gpu = true};
      ixj_plan *p = malloc(sizeof *p);
      if (p && ixj__plan_build(&req, p, &err) == IXJ_OK) rt = runtime_magic_ms(p, &od, os, &err);
      free(p);
      spec = median(t, REPS);
      copy = median(m, REPS);
    }
    double moved = (double)out * (c->op == IXJ_OP_FILL ? 1 : 2);
    if (st != IXJ_OK) {
      printf("%-30s FAILED: %s\n", c->name, err.message);
    } else {
      double g = moved / (spec * 1e6), gm = 2.0 * (double)out / (copy * 1e6), gr = rt > 0 ? moved / (rt * 1e6) : 0;
      printf("%-30s %9.2f %12.1f %12.1f %14.1f %10.2f %12.2f\n", c->name, (double)out / (1 << 30), g, gm, gr, g / gm,
             gr > 0 ? g / gr : 0);
    }
    ixj_cuda_free(od.data);
    ixj_cuda_free(scratch);
    for (int q = 0; q < nsrc; q++) {
      ixj_cuda_free(os[q].data);
      ixj_ixfun_free(s[q]);
    }
    ixj_ixfun_free(d);
  }
  ixj_context_destroy(ctx);
  return 0;
}

/* The terminal table: one row per case and thread count, ixjit's GB/s (the
 * median) with the ratios to the ceiling, the generic kernel and the best
 * peer at the same thread count; then what each peer could not express. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static const bench_result *find(const bench_run *run, const char *case_name, const char *method, int threads) {
  char name[200];
  snprintf(name, sizeof name, "%s/%s/threads:%d", case_name, method, threads);
  const bench_result *r = bench_run_find(run, name);
  return r && !r->skipped && r->reps > 0 ? r : NULL;
}

static double gbps(const bench_run *run, const char *case_name, const char *method, int threads) {
  const bench_result *r = find(run, case_name, method, threads);
  return r ? bench_gbps(r) : 0;
}

static void ratio(FILE *out, double a, double b) {
  if (a > 0 && b > 0) fprintf(out, " %6.2f", a / b);
  else fprintf(out, " %6s", "-");
}

static void gb(FILE *out, double v) {
  if (v > 0) fprintf(out, " %7.2f", v);
  else fprintf(out, " %7s", "-");
}

static bool is_peer(const char *method) {
  return !strcmp(method, "numpy") || !strcmp(method, "torch") || !strcmp(method, "onednn");
}

/* The compile column's medians by kind of kernel, as the compile-latency
 * goals are put (docs/hot-path.md): elementwise (inner_contiguous and
 * general plans), tiled, and cat. Every ixjit row that compiled counts: a
 * context per thread count compiles each kernel again; memcpy plans (no
 * kernel) and kernels another case had made (0 ms) do not. */
static void print_compile_medians(const bench_run *run, FILE *out) {
  static const char *const kinds[][3] = {
      {"elementwise", "inner_contiguous", "general"}, {"tiled", "tiled", NULL}, {"cat", "cat_parts", NULL}};
  double *v = malloc((size_t)(run->count ? run->count : 1) * sizeof *v);
  if (!v) return;
  bool any = false;
  for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; q++) {
    int n = 0;
    for (int k = 0; k < run->count; k++) {
      const bench_result *r = &run->results[k];
      if (strcmp(r->method, "ixjit") || r->skipped || r->compile_ms <= 0) continue;
      if (!strcmp(r->strategy, kinds[q][1]) || (kinds[q][2] && !strcmp(r->strategy, kinds[q][2])))
        v[n++] = r->compile_ms;
    }
    if (!n) continue;
    fprintf(out, "%s %s %.1f (%d)", any ? "," : "compile, the median ms of the first calls that compiled (kernels):",
            kinds[q][0], bench_median_of(v, n), n);
    any = true;
  }
  if (any) fputc('\n', out);
  free(v);
}

void bench_table_print(const bench_run *run, FILE *out) {
  bool any = false;
  for (int k = 0; k < run->count && !any; k++) any = !strcmp(run->results[k].method, "ixjit");
  if (any) {
    fprintf(out, "GB/s = (bytes read + written) / median time, 1 GB = 1e9 B; ceiling = the better of libc and "
                 "non-temporal stores\n");
    fprintf(out, "%-18s %-16s %8s %2s %7s %6s %8s %7s %6s %7s %6s %7s %-7s %6s\n", "case", "strategy", "MiB", "T",
            "ixjit", "spread", "compile", "ceiling", "/ceil", "generic", "/gen", "peer", "(best)", "/peer");
  }
  for (int k = 0; k < run->count; k++) {
    const bench_result *r = &run->results[k];
    if (strcmp(r->method, "ixjit")) continue;
    const char *c = r->case_name;
    int t = r->threads;
    double ix = bench_gbps(r);
    double ceil = gbps(run, c, "memcpy", t), nt = gbps(run, c, "nt_copy", t);
    if (ceil == 0 && nt == 0) {
      ceil = gbps(run, c, "memset", t);
      nt = gbps(run, c, "nt_fill", t);
    }
    if (nt > ceil) ceil = nt;
    double gen = gbps(run, c, "generic", t), peer = 0;
    const char *peer_name = "";
    for (int q = 0; q < run->count; q++) {
      const bench_result *p = &run->results[q];
      if (strcmp(p->case_name, c) || p->threads != t || !is_peer(p->method) || p->skipped) continue;
      if (bench_gbps(p) > peer) {
        peer = bench_gbps(p);
        peer_name = p->method;
      }
    }
    double med = bench_median(r);
    double out_mib = r->bytes / (1 << 20);
    bool fill = find(run, c, "memset", t) || find(run, c, "nt_fill", t);
    if (!fill) out_mib /= 2; /* the output's size: a copy moves it twice */
    fprintf(out, "%-18s %-16s %8.3f %2d", c, r->strategy, out_mib, t);
    gb(out, ix);
    fprintf(out, " %5.0f%%", med > 0 ? (bench_max(r) - bench_min(r)) / med * 100 : 0);
    if (r->compile_ms >= 0) fprintf(out, " %8.1f", r->compile_ms);
    else fprintf(out, " %8s", "-");
    gb(out, ceil);
    ratio(out, ix, ceil);
    gb(out, gen);
    ratio(out, ix, gen);
    gb(out, peer);
    fprintf(out, " %-7s", peer_name);
    ratio(out, ix, peer);
    fputc('\n', out);
  }
  print_compile_medians(run, out);
  /* The CUDA path, against a device-to-device copy of the same output bytes. */
  bool gpu = false;
  for (int k = 0; k < run->count; k++) {
    const bench_result *r = &run->results[k];
    if (strcmp(r->method, "ixjit_cuda")) continue;
    if (!gpu) {
      fprintf(out, "GPU (%s): GB/s of ixjit's kernel and of cuMemcpyDtoD of the output's bytes\n", run->meta.gpu);
      fprintf(out, "%-18s %-16s %8s %8s %8s %8s %7s\n", "case", "strategy", "MiB", "ixjit", "compile", "d2d", "/d2d");
      gpu = true;
    }
    if (r->skipped) {
      fprintf(out, "%-18s skipped: %s\n", r->case_name, r->note);
      continue;
    }
    double d2d = gbps(run, r->case_name, "cuda_d2d", 0), ix = bench_gbps(r);
    fprintf(out, "%-18s %-16s %8.3f", r->case_name, r->strategy, r->bytes / (1 << 20));
    gb(out, ix);
    fprintf(out, " %8.1f", r->compile_ms);
    gb(out, d2d);
    ratio(out, ix, d2d);
    fputc('\n', out);
  }
  if (!gpu && run->meta.gpu[0]) fprintf(out, "gpu: %s\n", run->meta.gpu);
  if (run->meta.pages[0]) fprintf(out, "pages: %s\n", run->meta.pages);
  if (run->meta.load_avg[0] >= 0)
    fprintf(out, "load average: %.2f at the start, %.2f at the end (%d CPUs)%s\n", run->meta.load_avg[0],
            run->meta.load_avg_end[0], run->meta.num_cpus,
            run->meta.load_avg_end[0] > 0.5 * run->meta.num_cpus ? ": the machine was busy, expect noise" : "");
  /* What the peers could not express, grouped by reason. */
  for (int p = 0; p < run->meta.num_peers; p++) {
    const bench_peer_info *info = &run->meta.peers[p];
    if (!info->available) {
      fprintf(out, "peer %s: skipped: %s\n", info->name, info->note);
      continue;
    }
    fprintf(out, "peer %s %s (threads %s)\n", info->name, info->version, info->threads[0] ? info->threads : "-");
    char done[64][320];
    int ndone = 0;
    for (int k = 0; k < run->count; k++) {
      const bench_result *r = &run->results[k];
      if (strcmp(r->method, info->name) || !r->skipped) continue;
      bool seen = false;
      for (int d = 0; d < ndone && !seen; d++) seen = !strcmp(done[d], r->note);
      if (seen || ndone == 64) continue;
      snprintf(done[ndone++], sizeof done[0], "%s", r->note);
      fprintf(out, "  %s:", r->note);
      for (int q = k; q < run->count; q++)
        if (!strcmp(run->results[q].method, info->name) && run->results[q].skipped && !strcmp(run->results[q].note, r->note))
          fprintf(out, " %s", run->results[q].case_name);
      fputc('\n', out);
    }
  }
  /* Micro-benchmarks: times, no bandwidth. */
  bool header = false;
  for (int k = 0; k < run->count; k++) {
    const bench_result *r = &run->results[k];
    if (r->bytes > 0 || !strcmp(r->method, "ixjit") || r->skipped) continue;
    if (!header) {
      fprintf(out, "%-44s %12s %12s %12s %5s\n", "micro", "median", "min", "max", "unit");
      header = true;
    }
    double s = !strcmp(r->unit, "ns") ? 1e9 : !strcmp(r->unit, "us") ? 1e6 : 1e3;
    fprintf(out, "%-44s %12.3f %12.3f %12.3f %5s\n", r->run_name, bench_median(r) * s, bench_min(r) * s,
            bench_max(r) * s, r->unit);
  }
}

static bool tty = false, tty_known = false;

void bench_progress(int k, int n, const char *name, double elapsed_s) {
  if (!tty_known) {
    tty = isatty(2);
    tty_known = true;
  }
  if (tty) fprintf(stderr, "\r\033[K[%d/%d] %s  (%.1f s)", k, n, name, elapsed_s);
  else fprintf(stderr, "[%d/%d] %s (%.1f s)\n", k, n, name, elapsed_s);
  fflush(stderr);
}

void bench_progress_done(void) {
  if (tty) fputs("\r\033[K", stderr);
  fflush(stderr);
}

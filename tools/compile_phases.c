/* ixjit-compile-phases: where a CPU kernel's compile time goes. For each
 * case of a bench suite (the built-in one by default), the kernel's IR as
 * ixj_emit_llvm writes it, compiled and linked --reps times through the
 * runtime's own path (jit_llvm.c, timed per phase: target machine, IR parse,
 * verify, passes, codegen, ORC add and lookup), then unlinked again. Prints
 * the median of each phase and of the whole (thread CPU time, so the load of
 * other processes counts little; the wall-clock median beside it) per case.
 * A measuring tool, not a test: docs/hot-path.md ("Compile latency") quotes
 * it. One warm-up compile first (LLVM's lazily built tables), not counted. */
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ixjit/ixjit.h"
#include "jit_llvm.h"
#include "timing.h"

#define MAX_REPS 101

static const char USAGE[] =
    "usage: ixjit-compile-phases [SUITE] [--filter REGEX] [--reps N]\n"
    "Compiles each case's CPU kernel N times (default 11) through the runtime's LLVM path and prints\n"
    "the median ms of each phase (thread CPU time): machine (target machine and context), parse,\n"
    "verify, passes, codegen (to object code), add and lookup (ORC: the lookup links and maps it),\n"
    "their total, and the wall-clock total. SUITE: a suite file (default: the built-in suite).\n";

/* The name of the module's exported kernel: its first non-internal define. */
static bool kernel_name(const char *ir, char *name, size_t size) {
  const char *d = strstr(ir, "\ndefine void @");
  if (!d) return false;
  d += strlen("\ndefine void @");
  size_t n = strcspn(d, "(");
  if (n == 0 || n >= size) return false;
  memcpy(name, d, n);
  name[n] = '\0';
  return true;
}

/* The case's IR (malloc'ed by the library: ixj_free) and its strategy. */
static bool case_ir(ixj_context *ctx, const bench_case *c, char **ir, char *strategy, size_t size) {
  ixj_ixfun *dst = NULL, *src[BENCH_MAX_SRCS] = {0};
  ixj_error err;
  char *sig = NULL;
  bool ok = ixj_ixfun_parse(c->dst, &dst, &err) == IXJ_OK;
  for (int q = 0; ok && q < c->num_srcs; q++) ok = ixj_ixfun_parse(c->src[q], &src[q], &err) == IXJ_OK;
  ok = ok && ixj_emit_llvm(ctx, c->op, dst, c->num_srcs, (const ixj_ixfun *const *)src, c->axis, (size_t)c->elem_size, ir,
                           &sig, &err) == IXJ_OK;
  if (!ok) fprintf(stderr, "%s: %s\n", c->name, err.message);
  const char *s = ok ? strstr(sig, " strategy=") : NULL;
  snprintf(strategy, size, "%.*s", s ? (int)strcspn(s + 10, " ") : 1, s ? s + 10 : "?");
  ixj_free(sig);
  ixj_ixfun_free(dst);
  for (int q = 0; q < c->num_srcs; q++) ixj_ixfun_free(src[q]);
  return ok;
}

/* One compile + link + unlink, its phases into *ph and its wall time. */
static bool compile_once(jit_llvm *jit, const char *ir, const char *name, jit_phases *ph, double *wall, size_t *obj_size) {
  void *obj = NULL;
  ixj_kernel_fn fn;
  ixj_error err;
  double t0 = now_ms();
  bool ok = ixj__jit_llvm_object_timed(jit, NULL, ir, &obj, obj_size, ph, &err) == IXJ_OK &&
            ixj__jit_llvm_link_timed(jit, obj, *obj_size, name, &fn, ph, &err) == IXJ_OK;
  *wall = now_ms() - t0;
  free(obj);
  if (!ok) fprintf(stderr, "%s: %s\n", name, err.message);
  else ixj__jit_llvm_unlink(jit, fn);
  return ok;
}

int main(int argc, char **argv) {
  const char *filter_text = NULL;
  int reps = 11;
  static const struct option longopts[] = {
      {"filter", required_argument, NULL, 'f'}, {"reps", required_argument, NULL, 'r'}, {"help", no_argument, NULL, 'h'}, {0}};
  for (int ch; (ch = getopt_long(argc, argv, "f:r:h", longopts, NULL)) != -1;) {
    if (ch == 'f') filter_text = optarg;
    else if (ch == 'r' && (reps = atoi(optarg)) >= 1 && reps <= MAX_REPS) continue;
    else {
      fputs(USAGE, ch == 'h' ? stdout : stderr);
      return ch == 'h' ? 0 : 2;
    }
  }
  if (optind + 1 < argc) {
    fputs(USAGE, stderr);
    return 2;
  }
  char msg[512];
  bench_suite suite;
  bool loaded = optind < argc ? bench_suite_load(argv[optind], 1, &suite, msg, sizeof msg)
                              : bench_suite_parse(bench_default_suite_text(), "default", 1, &suite, msg, sizeof msg);
  if (!loaded) {
    fprintf(stderr, "ixjit-compile-phases: %s\n", msg);
    return 2;
  }
  regex_t filter;
  if (filter_text && regcomp(&filter, filter_text, REG_EXTENDED | REG_NOSUB)) {
    fprintf(stderr, "ixjit-compile-phases: bad --filter\n");
    bench_suite_free(&suite);
    return 2;
  }
  ixj_context *ctx = NULL;
  jit_llvm *jit = NULL;
  ixj_error err;
  if (ixj_context_create(&(ixj_context_options){.num_threads = 1, .disk_cache = -1}, &ctx, &err) != IXJ_OK ||
      ixj__jit_llvm_create(&jit, &err) != IXJ_OK) {
    fprintf(stderr, "ixjit-compile-phases: %s\n", err.message);
    ixj_context_destroy(ctx);
    bench_suite_free(&suite);
    if (filter_text) regfree(&filter);
    return 1;
  }
  double load[3] = {0};
  FILE *la = fopen("/proc/loadavg", "r");
  if (la && fscanf(la, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
  if (la) fclose(la);
  printf("# %s, medians of %d, ms (thread CPU; wall: the monotonic clock), load average %.2f %.2f %.2f\n",
         ixj__jit_llvm_toolchain(jit), reps, load[0], load[1], load[2]);
  printf("%-16s %-16s %6s %6s %7s %6s %6s %7s %8s %6s %6s %8s %8s\n", "case", "strategy", "IR_KiB", "obj_B", "machine",
         "parse", "verify", "passes", "codegen", "add", "lookup", "total", "wall");
  int rc = 0;
  bool warmed = false;
  for (int k = 0; k < suite.count; k++) {
    const bench_case *c = &suite.cases[k];
    if (filter_text && regexec(&filter, c->name, 0, NULL, 0)) continue;
    char *ir = NULL, strategy[24], name[80];
    if (!case_ir(ctx, c, &ir, strategy, sizeof strategy) || !kernel_name(ir, name, sizeof name)) {
      if (ir) printf("%-16s %-16s (no kernel)\n", c->name, strategy);
      else rc = 1;
      ixj_free(ir);
      continue;
    }
    double v[9][MAX_REPS], wall;
    size_t obj_size = 0;
    jit_phases ph;
    bool ok = warmed || compile_once(jit, ir, name, &(jit_phases){0}, &wall, &obj_size);
    warmed = true;
    for (int r = 0; ok && r < reps; r++) {
      ph = (jit_phases){0};
      ok = compile_once(jit, ir, name, &ph, &wall, &obj_size);
      double *x[] = {&ph.machine, &ph.parse, &ph.verify, &ph.passes, &ph.codegen, &ph.add, &ph.lookup};
      v[7][r] = 0;
      for (int q = 0; q < 7; q++) v[q][r] = *x[q], v[7][r] += *x[q];
      v[8][r] = wall;
    }
    if (ok) {
      double m[9];
      for (int q = 0; q < 9; q++) m[q] = median(v[q], reps);
      printf("%-16s %-16s %6.1f %6zu %7.2f %6.2f %6.2f %7.2f %8.2f %6.2f %6.2f %8.2f %8.2f\n", c->name, strategy,
             (double)strlen(ir) / 1024, obj_size, m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
    } else {
      rc = 1;
    }
    fflush(stdout);
    ixj_free(ir);
  }
  ixj__jit_llvm_destroy(jit);
  ixj_context_destroy(ctx);
  bench_suite_free(&suite);
  if (filter_text) regfree(&filter);
  return rc;
}

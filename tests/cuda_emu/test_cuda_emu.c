/* Every CUDA kernel the project emits, run on the host: the JIT corpus
 * (tests/diff/gen_jit_cases.py) planned for the GPU with the addresses its
 * buffers will have, emitted by gen/emit_cuda.c, compiled as host C++
 * against cuda_shim.h (emu_build.c) and launched as runtime/backend_cuda.c
 * launches it (launch shape, argument bytes, chunks with their begin) by the
 * fiber runner (emu_runtime.c), on buffers between guard pages
 * (emu_buffer.c). Every byte of the destination's pages must equal the
 * reference interpreter's; a sample is also checked by NumPy
 * (numpy_oracle.py); spaces of more than 2^32 points run windows of units
 * (emu_huge.c); every eighth case runs again as the measurement baselines'
 * kernels (NVRTC's own division, runtime magic). Each case runs in a child
 * process, so that a fault or a trapped check fails that case and the run
 * goes on.
 *
 * usage: test_cuda_emu [options] CASES-FILE... (at most 4)
 *   --cxx PATH --shim DIR --cache DIR   the host compiler, cuda_shim.h, the build cache
 *   --jobs N                            compilers at once (2)
 *   --sample N                          N cases spread over each file (0: all)
 *   --chunk-blocks K                    every launch at most K blocks (default: a mix of 1-3 and the runtime's)
 *   --numpy PYTHON ORACLE N             N cases also checked by the NumPy oracle
 *   --huge                              the built-in huge cases too (emu_huge.c)
 * or:  test_cuda_emu --self-test [options]   mutated kernels that must fail */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emit_cuda.h"
#include "emu_buffer.h"
#include "emu_build.h"
#include "emu_case.h"
#include "emu_huge.h"
#include "emu_runtime.h"
#include "ixjit/ixjit.h"
#include "plan.h"

typedef struct options {
  emu_builder build;
  int sample, huge, self_test, numpy_cases;
  long chunk_blocks; /* -1: the mix */
  const char *python, *oracle, *cases[4];
  int num_files;
} options;

/* Outcomes, in the shared table the children fill. */
enum { PASSED, MISMATCH, BROKEN, CRASHED_BASE = 10 };

typedef struct shared {
  int next;
  int result[];
} shared;

static shared *sh;
static emu_case *current;    /* for the crash handler */
static emu_buffer *current_buf;

static void on_crash(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  char msg[512];
  const char *where = "";
  uintptr_t a = (uintptr_t)si->si_addr;
  for (int o = 0; current && current_buf && o < current->num_ops; o++) {
    int g = ixj__emu_buffer_guard(&current_buf[o], a);
    if (g) where = g < 0 ? (o ? " (the guard page below a source)" : " (the guard page below the destination)")
                         : (o ? " (the guard page above a source)" : " (the guard page above the destination)");
  }
  const ixj_emu_thread_view *v = ixj__emu_running();
  /* not async-signal-safe, but the process ends here and the kernel, not libc, was running */
  int n = snprintf(msg, sizeof msg, "FAIL line %d: %s at %p%s%s in block %u thread %u,%u\n  case: %s\n",
                   current ? current->line : 0, strsignal(sig), si->si_addr, where,
                   sig == SIGILL ? " (a trapped check: misaligned access, overflow or index out of bounds)" : "",
                   v ? v->block_idx.x : 0, v ? v->thread_idx.x : 0, v ? v->thread_idx.y : 0,
                   current ? current->text : "");
  if (n > 0) (void)!write(1, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
  sh->result[sh->next] = CRASHED_BASE + sig;
  _exit(CRASHED_BASE + sig);
}

static void child_signals(void) {
  static char alt[1 << 16];
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_crash;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
  for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++) sigaction(sigs[k], &sa, NULL);
}

/* Runs cases [sh->next, n) in children; a child that dies fails its case
 * and the next child goes on after it. */
static void run_all(emu_case *cases, int n, emu_kernel *kernels) {
  while (sh->next < n) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      child_signals();
      for (; sh->next < n; sh->next++) {
        emu_case *c = &cases[sh->next];
        emu_buffer buf[EMU_MAX_OPS];
        current = c;
        current_buf = buf;
        sh->result[sh->next] = c->huge ? ixj__emu_run_huge(c, kernels, buf) : ixj__emu_run_case(c, kernels, buf);
        fflush(stdout);
      }
      _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
      perror("fork");
      exit(2);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
    if (WIFSIGNALED(status)) {
      printf("FAIL line %d: the emulator died of %s\n", cases[sh->next].line, strsignal(WTERMSIG(status)));
      sh->result[sh->next] = CRASHED_BASE + WTERMSIG(status);
    } else if (sh->result[sh->next] < CRASHED_BASE) {
      sh->result[sh->next] = BROKEN;
    }
    sh->next++;
  }
}

static int parse_options(int argc, char **argv, options *o) {
  *o = (options){.build = {.cxx = "c++", .shim_dir = ".", .cache_dir = "emu-cache", .jobs = 2, .per_unit = 120},
                 .chunk_blocks = -1};
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k];
    int more = argc - k - 1;
    if (!strcmp(a, "--cxx") && more >= 1) o->build.cxx = argv[++k];
    else if (!strcmp(a, "--shim") && more >= 1) o->build.shim_dir = argv[++k];
    else if (!strcmp(a, "--cache") && more >= 1) o->build.cache_dir = argv[++k];
    else if (!strcmp(a, "--jobs") && more >= 1) o->build.jobs = atoi(argv[++k]);
    else if (!strcmp(a, "--sample") && more >= 1) o->sample = atoi(argv[++k]);
    else if (!strcmp(a, "--chunk-blocks") && more >= 1) o->chunk_blocks = atol(argv[++k]);
    else if (!strcmp(a, "--numpy") && more >= 3) {
      o->python = argv[++k];
      o->oracle = argv[++k];
      o->numpy_cases = atoi(argv[++k]);
    } else if (!strcmp(a, "--huge")) o->huge = 1;
    else if (!strcmp(a, "--self-test")) o->self_test = 1;
    else if (a[0] != '-' && o->num_files < 4) o->cases[o->num_files++] = a;
    else return -1;
  }
  return o->self_test || o->num_files ? 0 : -1;
}

/* The mix of launch sizes: most cases in launches of 1, 2 or 3 blocks (many
 * chunks, each with its own begin), every fourth as the runtime launches. */
static uint64_t chunk_for(const options *o, int k) {
  if (o->chunk_blocks >= 0) return (uint64_t)o->chunk_blocks;
  return k % 4 == 3 ? 0 : (uint64_t)(1 + k % 3);
}

/* Builds the kernels the cases need (one per distinct signature). */
static int build(emu_case *cases, int n, emu_kernel **kernels, int *nkernels, const options *o) {
  char why[8192];
  if (ixj__emu_prepare(cases, n, kernels, nkernels, why, sizeof why)) {
    printf("FAIL: %s\n", why);
    return -1;
  }
  if (ixj__emu_build(&o->build, *kernels, *nkernels, why, sizeof why)) {
    printf("FAIL: %s\n", why);
    return -1;
  }
  return 0;
}

static int corpus(const options *o) {
  emu_case *cases = NULL;
  int n = 0;
  char why[512];
  for (int f = 0; f < o->num_files; f++) { /* the files one after the other */
    emu_case *more = NULL, *all;
    int m = 0;
    if (ixj__emu_read_cases(o->cases[f], o->sample, &more, &m, why, sizeof why) ||
        !(all = realloc(cases, (size_t)(n + m) * sizeof *all))) {
      printf("FAIL: %s\n", why);
      return 2;
    }
    memcpy(all + n, more, (size_t)m * sizeof *all);
    free(more);
    cases = all;
    n += m;
  }
  /* the measurement baselines' kernels too (bench_gpu runs the runtime-magic
   * one): every eighth case again with NVRTC's division, and with runtime magic */
  int base = n;
  emu_case *all = realloc(cases, (size_t)(n + 2 * (base / 8 + 1)) * sizeof *all);
  if (!all) return 2;
  cases = all;
  for (int k = 5; k < base; k += 8)
    for (int d = 0; d < 2; d++) {
      if (ixj__emu_parse_case(cases[k].text, cases[k].line, &cases[n], why, sizeof why)) {
        printf("FAIL: %s\n", why);
        return 2;
      }
      memcpy(cases[n].misalign, cases[k].misalign, sizeof cases[n].misalign);
      cases[n++].division = d ? CUDA_DIV_RUNTIME : CUDA_DIV_PLAIN;
    }
  if (o->huge && ixj__emu_add_huge(&cases, &n, why, sizeof why)) {
    printf("FAIL: %s\n", why);
    return 2;
  }
  int numpy_every = o->numpy_cases > 0 ? (n + o->numpy_cases - 1) / o->numpy_cases : 0;
  char numpy_dir[4096] = "";
  if (numpy_every) snprintf(numpy_dir, sizeof numpy_dir, "%s/numpy-%d", o->build.cache_dir, (int)getpid());
  for (int k = 0; k < n; k++) {
    cases[k].id = k;
    cases[k].chunk_blocks = chunk_for(o, k);
    cases[k].seed = 0x51ED2701u + (uint64_t)k;
    cases[k].numpy = numpy_every && !cases[k].huge && k % numpy_every == 0;
  }
  emu_kernel *kernels = NULL;
  int nkernels = 0;
  if (build(cases, n, &kernels, &nkernels, o)) return 1;
  if (numpy_every) ixj__emu_numpy_dir(numpy_dir); /* in the cache directory the build made */
  sh = mmap(NULL, sizeof *sh + (size_t)n * sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) return 2;
  run_all(cases, n, kernels);
  int passed = 0, failed = 0, strategies[PLAN_CAT_PARTS + 1] = {0}, vectors = 0, chunked = 0, wide = 0, numpy = 0, styles[3] = {0};
  for (int k = 0; k < n; k++) {
    if (sh->result[k] == PASSED) passed++;
    else failed++;
    strategies[cases[k].strategy]++;
    vectors += cases[k].vector_elems > 1;
    wide += cases[k].index_bits == 64;
    chunked += cases[k].chunk_blocks != 0 && cases[k].kernel >= 0;
    numpy += cases[k].numpy;
    styles[cases[k].division] += cases[k].kernel >= 0;
  }
  printf("strategies: empty %d, memcpy %d, inner_contiguous %d, tiled %d, general %d; %d vectorized, %d with 64-bit "
         "indices, %d in small chunks; %d kernels\n",
         strategies[PLAN_EMPTY], strategies[PLAN_MEMCPY], strategies[PLAN_INNER_CONTIGUOUS], strategies[PLAN_TILED],
         strategies[PLAN_GENERAL], vectors, wide, chunked, nkernels);
  printf("kernels run: %d with ixjit's division, %d with NVRTC's / and %%, %d with runtime magic\n", styles[CUDA_DIV_MAGIC],
         styles[CUDA_DIV_PLAIN], styles[CUDA_DIV_RUNTIME]);
  if (numpy) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s'", o->python, o->oracle, numpy_dir);
    fflush(stdout);
    int st = system(cmd);
    if (st != 0) {
      printf("FAIL: the NumPy oracle disagrees (%s)\n", cmd);
      failed++;
    } else {
      printf("NumPy oracle: %d cases agree\n", numpy);
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", numpy_dir); /* kept only when it disagrees */
      if (system(cmd)) printf("note: %s failed\n", cmd);
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  for (int k = 0; k < n; k++) ixj__emu_case_dispose(&cases[k]);
  free(cases);
  ixj__emu_free_kernels(kernels, nkernels);
  munmap(sh, sizeof *sh + (size_t)n * sizeof(int));
  return failed ? 1 : 0;
}

/* ---- the self-test: mutated kernels the harness must catch ---------------- */

/* source with the first `from` replaced by `to` (malloc'ed; NULL when absent). */
static char *replace(const char *source, const char *from, const char *to) {
  const char *at = strstr(source, from);
  if (!at) return NULL;
  size_t n = strlen(source) - strlen(from) + strlen(to) + 1, head = (size_t)(at - source);
  char *out = malloc(n);
  if (out) snprintf(out, n, "%.*s%s%s", (int)head, source, to, at + strlen(from));
  return out;
}

/* The first store `p0[X] =` becomes `p0[X + 1] =`. */
static char *store_off_by_one(const char *source) {
  const char *at = strstr(source, "    p0[");
  const char *close = at ? strstr(at, "] = ") : NULL;
  if (!close) return NULL;
  char from[128], to[128];
  snprintf(from, sizeof from, "%.*s", (int)(close + 4 - at), at);
  snprintf(to, sizeof to, "%.*s + 1] = ", (int)(close - at), at);
  return replace(source, from, to);
}

/* The vector fill as it was before the fix: one element per vector. */
static char *fill_one_lane(const char *source) {
  const char *at = strstr(source, "*(uint4 *)(p0 + ");
  const char *close = at ? strstr(at, ") = fill_vector;") : NULL;
  if (!close) return NULL;
  const char *x = at + strlen("*(uint4 *)(p0 + ");
  char from[128], to[128];
  snprintf(from, sizeof from, "%.*s", (int)(close + strlen(") = fill_vector;") - at), at);
  snprintf(to, sizeof to, "p0[%.*s] = fill_value;", (int)(close - x), x);
  return replace(source, from, to);
}

typedef struct mutant {
  const char *what;
  int control;                         /* the case it mutates */
  char *(*mutate)(const char *source); /* NULL: the source as emitted */
  size_t shift_src;                    /* or: the source moved after planning */
  int want_mismatch, want_signal;      /* the outcomes that count as caught */
  int want_broken;                     /* or: the runner refuses the launch */
  uint64_t chunk_blocks;               /* launches of this many blocks (0: the runtime's) */
} mutant;

static char *drop_barrier(const char *source) { return replace(source, "__syncthreads();", ""); }
static char *ignore_begin(const char *source) { return replace(source, "first = begin + ", "first = 0 + "); }
static char *divergent_barrier(const char *source) {
  return replace(source, "__syncthreads();", "if (threadIdx.x < 16) __syncthreads();");
}

static int self_test(const emu_builder *b) {
  static const char *const lines[] = {
      "copy\t4\tiota 64 96\tiota 96 64 | permute 1 0",                          /* tiled */
      "copy\t4\tiota 30 50\tiota 50 30 | permute 1 0 | rotate 1 2",             /* general, scalar */
      "copy\t4\tiota 64 128\tiota 64 256 | slice : 0:128",                      /* uint4 copy */
      "fill\t4\tiota 1000",                                                      /* uint4 fill */
  };
  static const mutant mutants[] = {
      {.what = "a missing __syncthreads()", .control = 0, .mutate = drop_barrier, .want_mismatch = 1},
      {.what = "an off-by-one store", .control = 1, .mutate = store_off_by_one, .want_mismatch = 1, .want_signal = SIGSEGV},
      {.what = "a misaligned uint4 access", .control = 2, .shift_src = 4, .want_signal = SIGILL},
      {.what = "a vector fill storing one lane (the old bug)", .control = 3, .mutate = fill_one_lane, .want_mismatch = 1},
      {.what = "a __syncthreads() half the block skips", .control = 0, .mutate = divergent_barrier, .want_broken = 1},
      {.what = "a kernel that ignores its chunk's begin (launches of 1 block)", .control = 1, .mutate = ignore_begin,
       .want_mismatch = 1, .chunk_blocks = 1},
  };
  enum { NC = sizeof lines / sizeof *lines, NM = sizeof mutants / sizeof *mutants };
  emu_case cases[NC + NM];
  char why[8192];
  for (int k = 0; k < NC; k++) {
    if (ixj__emu_parse_case(lines[k], 0, &cases[k], why, sizeof why)) {
      printf("FAIL: %s\n", why);
      return 1;
    }
    cases[k].seed = 77 + (uint64_t)k;
  }
  emu_kernel *kernels = NULL, *all;
  int nk = 0, bad = 0;
  if (ixj__emu_prepare(cases, NC, &kernels, &nk, why, sizeof why) || !(all = realloc(kernels, (size_t)(nk + NM) * sizeof *all))) {
    printf("FAIL: %s\n", why);
    return 1;
  }
  static const plan_strategy want_strategy[NC] = {PLAN_TILED, PLAN_GENERAL, PLAN_INNER_CONTIGUOUS, PLAN_INNER_CONTIGUOUS};
  for (int k = 0; k < NC; k++)
    if (cases[k].strategy != want_strategy[k] || (k >= 2) != (cases[k].vector_elems == 4)) {
      printf("FAIL: self-test case '%s' is planned as %s with %d lanes\n", lines[k], ixj__plan_strategy_name(cases[k].strategy),
             cases[k].vector_elems);
      return 1;
    }
  for (int m = 0; m < NM; m++) {
    const mutant *mu = &mutants[m];
    emu_case *c = &cases[NC + m];
    *c = cases[mu->control];
    c->shift_src = mu->shift_src;
    c->chunk_blocks = mu->chunk_blocks;
    if (mu->mutate) { /* a kernel of its own, renamed */
      emu_kernel *k = &all[nk];
      memset(k, 0, sizeof *k);
      snprintf(k->name, sizeof k->name, "ixj_emu_m%d", m);
      char *mutated = mu->mutate(all[c->kernel].source);
      k->source = mutated ? replace(mutated, all[c->kernel].name, k->name) : NULL;
      free(mutated);
      if (!k->source) {
        printf("FAIL: the mutation '%s' found nothing to change\n", mu->what);
        return 1;
      }
      c->kernel = nk++;
    }
  }
  if (ixj__emu_build(b, all, nk, why, sizeof why)) {
    printf("FAIL: %s\n", why);
    return 1;
  }
  sh = mmap(NULL, sizeof *sh + (NC + NM) * sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) return 2;
  printf("self-test: the unmutated kernels, then each mutant (its FAIL lines are expected)\n");
  run_all(cases, NC + NM, all);
  for (int k = 0; k < NC; k++)
    if (sh->result[k] != PASSED) {
      printf("FAIL: the unmutated kernel of '%s' did not pass\n", lines[k]);
      bad++;
    }
  for (int m = 0; m < NM; m++) {
    int r = sh->result[NC + m];
    int caught = (mutants[m].want_mismatch && r == MISMATCH) || (mutants[m].want_broken && r == BROKEN) ||
                 (mutants[m].want_signal && r == CRASHED_BASE + mutants[m].want_signal);
    printf("self-test: %s: %s (%s)\n", mutants[m].what, caught ? "caught" : "NOT CAUGHT",
           r == MISMATCH ? "bytes differ" : r >= CRASHED_BASE ? strsignal(r - CRASHED_BASE) : r == PASSED ? "passed" : "launch failed");
    bad += !caught;
  }
  printf("%d passed, %d failed\n", NC + NM - bad, bad);
  for (int k = 0; k < NC; k++) ixj__emu_case_dispose(&cases[k]); /* the mutants share their controls' */
  ixj__emu_free_kernels(all, nk);
  munmap(sh, sizeof *sh + (NC + NM) * sizeof(int));
  return bad ? 1 : 0;
}

int main(int argc, char **argv) {
  options o;
  if (parse_options(argc, argv, &o)) {
    fprintf(stderr, "usage: test_cuda_emu [--cxx PATH] [--shim DIR] [--cache DIR] [--jobs N] [--sample N] "
                    "[--chunk-blocks K] [--numpy PYTHON ORACLE N] [--huge] (CASES-FILE... | --self-test)\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  return o.self_test ? self_test(&o.build) : corpus(&o);
}

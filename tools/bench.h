/* `ixjit bench`: the performance regression bench. Shared types of its parts,
 * each in its own file:
 *
 *   bench_cmd.c      the command line, the order of the work
 *   bench_suite.c    suite files (format in docs/benchmarks.md) and the built-in default suite
 *   bench_measure.c  one case: buffers, the interleaved repetitions, every method at every thread count
 *   bench_team.c     a fork-join thread team for the baselines
 *   bench_ceiling.c  memcpy/memset and non-temporal vector copies and fills (the ceiling)
 *   bench_generic.c  the generic runtime-strided kernel (the non-specialized baseline)
 *   bench_peers.c    runner processes for NumPy, PyTorch, oneDNN (bench/peers/)
 *   bench_cuda.c     the same suite through the CUDA path
 *   bench_micro.c    kernel cache latencies and division sequences
 *   bench_meta.c     machine and build metadata
 *   bench_json.c     Google Benchmark JSON out and in (cJSON)
 *   bench_compare.c  baseline comparison and its noise rule
 *   bench_table.c    the terminal table and the progress line
 *   bench_plot.c     the SVG bar chart
 */
#ifndef IXJIT_TOOLS_BENCH_H
#define IXJIT_TOOLS_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ixjit/ixjit.h"

#define BENCH_MAX_SRCS 64     /* IXJ_MAX_CAT_INPUTS */
#define BENCH_MAX_THREADS 16  /* thread counts in one list */
#define BENCH_MAX_REPS 101
#define BENCH_NAME_SIZE 64

/* ---- suites ------------------------------------------------------------ */

typedef struct bench_case {
  char name[BENCH_NAME_SIZE];
  ixj_op_kind op;
  int elem_size;
  int axis;                    /* cat only */
  char *dst;                   /* IXFUN text with the suite's variables substituted */
  int num_srcs;
  char *src[BENCH_MAX_SRCS];
  int num_threads;             /* 0: the command line's list */
  int threads[BENCH_MAX_THREADS];
  int line;                    /* where it was defined */
} bench_case;

typedef struct bench_suite {
  char *name;                  /* file path, or "default" */
  int count;
  bench_case *cases;
} bench_suite;

/* Parses suite text; `name` is used in messages ("NAME:LINE: ..."). On
 * failure returns false and writes the message into msg. Every IXFUN is
 * parsed and the operands' shapes checked here, so a bad case fails before
 * anything runs. */
bool bench_suite_parse(const char *text, const char *name, double size_scale, bench_suite *out, char *msg,
                       size_t msg_size);
bool bench_suite_load(const char *path, double size_scale, bench_suite *out, char *msg, size_t msg_size);
/* The built-in suite (bench/suites/default.suite, embedded at build time). */
const char *bench_default_suite_text(void);
void bench_suite_free(bench_suite *s);

/* ---- results ----------------------------------------------------------- */

/* One method at one thread count on one case: the time per call of each
 * repetition (seconds), or why it did not run. */
typedef struct bench_result {
  char run_name[160];          /* "CASE/METHOD/threads:T": the JSON name */
  char case_name[BENCH_NAME_SIZE];
  char method[24];             /* ixjit, memcpy, nt_copy, memset, nt_fill, generic, numpy, torch, onednn, ... */
  int threads;
  int reps;
  double sec[BENCH_MAX_REPS];  /* per call */
  int64_t iterations;          /* calls per repetition */
  double bytes;                /* read + written per call (0: not a bandwidth measurement) */
  double compile_ms;           /* ixjit only: the first call's compile time; -1 otherwise */
  char strategy[24];           /* ixjit only */
  char unit[4];                /* time unit in JSON: "ms", "us" or "ns" */
  bool skipped;
  char note[320];              /* why skipped */
} bench_result;

typedef struct bench_peer_info {
  char name[24];
  char version[64];
  char threads[32];            /* what thread counts it ran at, e.g. "1" or "1,2" */
  bool available;
  char note[320];
} bench_peer_info;

/* Everything a run knows, written to and read from JSON. */
typedef struct bench_meta {
  char date[40], host[64], commit[64], ixjit_version[24], llvm_version[24], nvrtc_version[24];
  char cpu_model[128], cpu_features[512], target[128], suite[256], command[1024], gpu[320];
  int num_cpus;
  double llc_bytes, load_avg[3], size_scale;
  double load_avg_end[3];      /* at the end of the measuring: how busy the machine became */
  int reps;
  char threads[96];           /* the thread counts, e.g. "1,2" */
  char pages[160];            /* the buffers' page policy and the kernel's THP mode (--pages) */
  int num_peers;
  bench_peer_info peers[4];
} bench_meta;

typedef struct bench_run {
  bench_meta meta;
  int count, cap;
  bench_result *results;
} bench_run;

/* A zeroed result, or NULL when out of memory. Adding may move run->results:
 * keep indices, not pointers, across adds (the first 1024 never move). */
bench_result *bench_run_add(bench_run *run);
const bench_result *bench_run_find(const bench_run *run, const char *run_name);
void bench_run_free(bench_run *run);
void bench_result_name(bench_result *r);      /* run_name from case_name, method, threads */

/* Statistics of the repetitions (sec[] is left unsorted). */
double bench_median(const bench_result *r);
double bench_median_of(double *v, int n); /* sorts v[0..n); 0 when n <= 0 */
double bench_min(const bench_result *r);
double bench_max(const bench_result *r);
/* GB/s of the median (1 GB = 1e9 B); 0 when not a bandwidth measurement. */
double bench_gbps(const bench_result *r);

/* ---- measuring ---------------------------------------------------------- */

typedef struct bench_peers bench_peers;  /* the runner processes (bench_peers.c) */

typedef struct bench_options {
  int num_threads;
  int threads[BENCH_MAX_THREADS];
  int reps;
  double min_rep_ms;           /* a repetition repeats the call until it takes this long */
  bool huge_pages;             /* buffers of 4 MiB and more advised onto huge pages (--pages) */
  bench_peers *peers;
} bench_options;

/* Runs one case: every method at every thread count, repetitions interleaved;
 * appends its results to run. False (message in msg) when the case cannot be
 * set up at all (out of memory, ixjit refuses it). */
bool bench_measure_case(const bench_case *c, const bench_options *o, bench_run *run, char *msg, size_t msg_size);
/* Frees the ixjit contexts bench_measure_case keeps between cases. */
void bench_measure_finish(void);

/* Read + written bytes of one call of a case (fill writes only). */
double bench_case_bytes(const bench_case *c, const ixj_ixfun *dst);

/* ---- thread team (bench_team.c) ------------------------------------------ */

typedef void (*bench_team_fn)(void *arg, int tid, int nthreads);
typedef struct bench_team bench_team;
bench_team *bench_team_create(int nthreads);
/* Runs fn on up to max_threads threads of the team (the caller is thread 0)
 * and waits; fn gets the number taking part. */
void bench_team_run(bench_team *t, bench_team_fn fn, void *arg, int max_threads);
/* How many threads a job of `units` deserves at `min_units` each (at least 1). */
int bench_team_share(int64_t units, int64_t min_units);
void bench_team_destroy(bench_team *t);

/* ---- baselines (bench_ceiling.c, bench_generic.c) ------------------------- */

/* dst = src over n bytes, split over the team: libc memcpy, or vector loads
 * and non-temporal stores. */
void bench_memcpy(bench_team *t, void *dst, const void *src, size_t n);
void bench_nt_copy(bench_team *t, void *dst, const void *src, size_t n);
/* n bytes of dst set to the elem_size-byte pattern at value. */
void bench_memset(bench_team *t, void *dst, const void *value, int elem_size, size_t n);
void bench_nt_fill(bench_team *t, void *dst, const void *value, int elem_size, size_t n);
/* Whether non-temporal vector stores are available ("avx512f", "avx2", or NULL: SSE2). */
const char *bench_nt_isa(void);

typedef struct bench_generic bench_generic;
/* The generic kernel for an operation: shapes, strides and rotations are
 * run-time data; chains and cat decompose every point by run-time division
 * (what a framework without a JIT does). */
bench_generic *bench_generic_create(ixj_op_kind op, int elem_size, int axis, const ixj_operand *dst, int num_srcs,
                                    const ixj_operand *srcs, const void *value);
void bench_generic_run(bench_generic *g, bench_team *t);
void bench_generic_destroy(bench_generic *g);

/* ---- peers (bench_peers.c) ------------------------------------------------ */

/* Starts the runners named in the comma-separated list (numpy, torch,
 * onednn; "all"; "none"); an absent one is recorded with its reason. */
bench_peers *bench_peers_start(const char *list, const char *self_exe);
int bench_peers_count(const bench_peers *p);
const bench_peer_info *bench_peers_info(const bench_peers *p, int k);
/* Sets up case c on peer k: true when the peer can express it; otherwise
 * why in msg. */
bool bench_peer_prepare(bench_peers *p, int k, const bench_case *c, const ixj_operand *dst, int num_srcs,
                        const ixj_operand *srcs, const void *value, char *msg, size_t msg_size);
/* Whether peer k runs at this thread count (NumPy is single-threaded). */
bool bench_peer_threads_ok(const bench_peers *p, int k, int threads);
/* Runs the prepared case `iterations` times on peer k; total seconds, or < 0
 * (message in msg). */
double bench_peer_run(bench_peers *p, int k, int threads, int64_t iterations, char *msg, size_t msg_size);
void bench_peer_release(bench_peers *p, int k);
/* The thread counts each peer ran at, into its info. */
void bench_peers_note_threads(bench_peers *p, int k, int threads);
void bench_peers_stop(bench_peers *p);

/* ---- buffers and their pages (bench_pages.c) ----------------------------- */

/* bytes rounded up to 64, 64-byte aligned, every byte set to byte (every page
 * touched); from 4 MiB on with huge_pages, 2 MiB aligned and advised onto
 * transparent huge pages. NULL when out of memory; free() it. */
void *bench_buffer(size_t bytes, int byte, bool huge_pages);
/* The policy in words, with what the kernel's THP setting makes of it. */
void bench_pages_describe(bool huge_pages, char *out, size_t size);
/* IXJIT_BENCH_PAGES=huge|small for the peer runners started after it. */
void bench_pages_export(bool huge_pages);

/* ---- the rest ------------------------------------------------------------ */

/* The machine and build (everything but suite, command, reps, threads). */
void bench_meta_collect(bench_meta *m);

/* Writes run as Google Benchmark JSON; false with errno-style message. */
bool bench_json_write(const bench_run *run, const char *path, char *msg, size_t msg_size);
bool bench_json_read(const char *path, bench_run *out, char *msg, size_t msg_size);

/* Compares run with baseline (ixjit's results only; see docs/benchmarks.md
 * for the rule) and prints the deltas to out; returns the number of
 * regressions. */
int bench_compare(const bench_run *baseline, const bench_run *run, double threshold_pct, FILE *out);
/* Whether one result regressed against its baseline by the rule. */
bool bench_regressed(const bench_result *base, const bench_result *cur, double threshold_pct);

void bench_table_print(const bench_run *run, FILE *out);
/* The progress line: on a terminal one line rewritten in place, otherwise a
 * plain line per case. */
void bench_progress(int k, int n, const char *name, double elapsed_s);
void bench_progress_done(void);

bool bench_plot_write(const bench_run *run, const char *path, char *msg, size_t msg_size);

/* Runs the suite through the CUDA path; prints one "skipped" line when no
 * GPU can be used (and records it in meta.gpu). */
void bench_cuda_suite(const bench_suite *s, const bench_options *o, bench_run *run);

/* Kernel-cache latencies (compile, disk load, memory-hit call) and division
 * sequences against hardware division. */
bool bench_micro(int reps, bench_run *run, char *msg, size_t msg_size);

#endif

/* `ixjit bench`: runs a suite (the built-in one or a file), prints the table,
 * writes JSON and an SVG plot, and compares with a baseline. See
 * docs/benchmarks.md; `ixjit bench --help` lists the options. */
#include <getopt.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "timing.h"

static const char usage_text[] =
    "usage: ixjit bench [SUITE] [options]\n"
    "Measures every case of SUITE (default: the built-in suite, bench/suites/default.suite): ixjit's\n"
    "kernel at each thread count (compile time apart), the ceiling (memcpy and non-temporal stores of\n"
    "the same bytes), a generic runtime-strided kernel, and the peers that are installed; medians of\n"
    "the repetitions, interleaved. GB/s count bytes read + written, 1 GB = 1e9 B.\n"
    "  --filter REGEX      only the cases whose name matches (POSIX extended)\n"
    "  --threads LIST      thread counts, e.g. 1,2 (default: 1 and the online CPUs)\n"
    "  --size-scale S      scale the suite's sizes (bytes about x S; default 1)\n"
    "  --reps N            repetitions per method (default 5)\n"
    "  --min-time MS       a repetition repeats the call for at least MS ms (default 10)\n"
    "  --peers LIST        numpy,torch,onednn, all (default) or none\n"
    "  --no-gpu            do not try the CUDA path\n"
    "  --pages huge|small  buffers of 4 MiB and more on transparent huge pages, as NumPy allocates them\n"
    "                      (default), or on 4 KiB pages; the same for the ceiling, the generic kernel\n"
    "                      and the peers\n"
    "  --micro             kernel-cache latencies and division sequences instead of a suite\n"
    "  --json FILE         write the results (Google Benchmark JSON layout)\n"
    "  --plot FILE.svg     write a bar chart of GB/s per case\n"
    "  --baseline FILE     compare with an earlier --json file; exit status 1 on a regression\n"
    "  --threshold PCT     how much slower counts as a regression (default 10), beyond the spread\n"
    "  --input FILE        read results from an earlier --json file instead of measuring\n"
    "  -h, --help          this text\n"
    "Exit status: 0 done, 1 a regression or a failed case, 2 bad arguments or suite.\n";

/* "1,2,4": each a count 1..1024 read by the library's one parser (ixj_parse_count). */
static bool parse_list(const char *text, int *count, int *threads) {
  *count = 0;
  for (const char *s = text;;) {
    const char *comma = strchr(s, ',');
    size_t n = comma ? (size_t)(comma - s) : strlen(s);
    char one[24];
    uint64_t v;
    if (n == 0 || n >= sizeof one || *count == BENCH_MAX_THREADS) return false;
    memcpy(one, s, n);
    one[n] = '\0';
    if (ixj_parse_count(one, 1, 1024, &v, NULL) != IXJ_OK) return false;
    threads[(*count)++] = (int)v;
    if (!comma) return true;
    s = comma + 1;
  }
}

/* The command line as a person would retype it, with the environment
 * variables that change what runs. */
static void join_args(int argc, char **argv, char *out, size_t size) {
  static const char *vars[] = {"IXJIT_BENCH_PYTHON", "IXJIT_BENCH_PYTHON_NUMPY", "IXJIT_BENCH_PYTHON_TORCH",
                               "IXJIT_BENCH_PEERS_DIR", "TMPDIR"};
  size_t n = 0;
  out[0] = '\0';
  for (size_t k = 0; k < sizeof vars / sizeof *vars && n < size; k++) {
    const char *v = getenv(vars[k]);
    if (v && *v) n += (size_t)snprintf(out + n, size - n, "%s=%s ", vars[k], v);
  }
  if (n < size) n += (size_t)snprintf(out + n, size - n, "ixjit bench");
  for (int k = 0; k < argc && n < size; k++) n += (size_t)snprintf(out + n, size - n, " %s", argv[k]);
}

/* Runs the suite's selected cases; false when any case failed. */
static bool measure(const bench_suite *suite, const regex_t *filter, const bench_options *o, bool gpu, bench_run *run) {
  int selected = 0, done = 0;
  for (int k = 0; k < suite->count; k++) selected += !filter || regexec(filter, suite->cases[k].name, 0, NULL, 0) == 0;
  double t0 = now_ms();
  bool ok = true;
  bench_suite chosen = {.name = suite->name, .count = 0, .cases = calloc((size_t)selected + 1, sizeof(bench_case))};
  for (int k = 0; k < suite->count; k++) {
    const bench_case *c = &suite->cases[k];
    if (filter && regexec(filter, c->name, 0, NULL, 0) != 0) continue;
    if (chosen.cases) chosen.cases[chosen.count++] = *c;
    bench_progress(++done, selected, c->name, (now_ms() - t0) * 1e-3);
    char msg[512];
    if (!bench_measure_case(c, o, run, msg, sizeof msg)) {
      bench_progress_done();
      fprintf(stderr, "ixjit: error: %s:%d: %s: %s\n", suite->name, c->line, c->name, msg);
      ok = false;
    }
  }
  bench_progress_done();
  bench_measure_finish();
  if (gpu && chosen.cases) bench_cuda_suite(&chosen, o, run);
  free(chosen.cases); /* the cases themselves belong to suite */
  if (!selected) fprintf(stderr, "ixjit: warning: no case matches the filter\n");
  return ok;
}

int cmd_bench(int argc, char **argv) {
  static const struct option longopts[] = {
      {"filter", required_argument, NULL, 'f'},   {"threads", required_argument, NULL, 't'},
      {"size-scale", required_argument, NULL, 's'}, {"reps", required_argument, NULL, 'r'},
      {"min-time", required_argument, NULL, 'm'}, {"peers", required_argument, NULL, 'p'},
      {"no-gpu", no_argument, NULL, 'G'},         {"micro", no_argument, NULL, 'M'},
      {"json", required_argument, NULL, 'j'},     {"plot", required_argument, NULL, 'P'},
      {"baseline", required_argument, NULL, 'b'}, {"threshold", required_argument, NULL, 'T'},
      {"input", required_argument, NULL, 'i'},    {"pages", required_argument, NULL, 'g'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  const char *filter_text = NULL, *json = NULL, *plot = NULL, *baseline = NULL, *input = NULL, *peers = "all";
  double scale = 1, threshold = 10, min_ms = 10;
  bench_options o = {.reps = 5, .huge_pages = true};
  bool gpu = true, micro = false;
  char *end;
  /* getopt_long wants argv[0] to be the program; ours starts at the first argument. */
  char **args = calloc((size_t)argc + 2, sizeof *args);
  if (!args) return cli_error(CLI_FAILED, "out of memory");
  args[0] = "ixjit bench";
  for (int k = 0; k < argc; k++) args[k + 1] = argv[k];
  optind = 1;
  opterr = 0;
  int opt, status = CLI_OK;
  while ((opt = getopt_long(argc + 1, args, ":h", longopts, NULL)) != -1) {
    switch (opt) {
    case 'f': filter_text = optarg; break;
    case 't':
      if (!parse_list(optarg, &o.num_threads, o.threads)) status = cli_error(CLI_USAGE, "--threads: expected counts 1..1024 separated by commas, got '%s'", optarg);
      break;
    case 's':
      scale = strtod(optarg, &end);
      if (*end || end == optarg || !(scale > 0 && scale <= 1000)) status = cli_error(CLI_USAGE, "--size-scale: expected a number in (0, 1000], got '%s'", optarg);
      break;
    case 'r': {
      uint64_t reps;
      if (!cli_count("--reps", optarg, 1, BENCH_MAX_REPS, &reps)) status = CLI_USAGE;
      else o.reps = (int)reps;
      break;
    }
    case 'm':
      min_ms = strtod(optarg, &end);
      if (*end || end == optarg || !(min_ms >= 0 && min_ms <= 60000)) status = cli_error(CLI_USAGE, "--min-time: expected milliseconds, got '%s'", optarg);
      break;
    case 'p': peers = optarg; break;
    case 'G': gpu = false; break;
    case 'g':
      if (!strcmp(optarg, "huge") || !strcmp(optarg, "small")) o.huge_pages = optarg[0] == 'h';
      else status = cli_error(CLI_USAGE, "--pages: expected huge or small, got '%s'", optarg);
      break;
    case 'M': micro = true; break;
    case 'j': json = optarg; break;
    case 'P': plot = optarg; break;
    case 'b': baseline = optarg; break;
    case 'T':
      threshold = strtod(optarg, &end);
      if (*end || end == optarg || !(threshold >= 0)) status = cli_error(CLI_USAGE, "--threshold: expected a percentage, got '%s'", optarg);
      break;
    case 'i': input = optarg; break;
    case 'h':
      fputs(usage_text, stdout);
      free(args);
      return CLI_OK;
    case ':': status = cli_error(CLI_USAGE, "%s needs a value", args[optind - 1]); break;
    default: status = cli_error(CLI_USAGE, "unknown option '%s'", args[optind - 1]); break;
    }
    if (status != CLI_OK) break;
  }
  const char *suite_path = optind < argc + 1 ? args[optind] : NULL;
  if (status == CLI_OK && optind + 1 < argc + 1) status = cli_error(CLI_USAGE, "more than one SUITE ('%s')", args[optind + 1]);
  if (status == CLI_OK && input && (suite_path || micro)) status = cli_error(CLI_USAGE, "--input reads results: no SUITE or --micro with it");
  if (status != CLI_OK) {
    fputs(usage_text, stderr);
    free(args);
    return status;
  }
  regex_t filter;
  bool have_filter = false;
  if (filter_text) {
    int rc = regcomp(&filter, filter_text, REG_EXTENDED | REG_NOSUB);
    if (rc) {
      char why[128];
      regerror(rc, &filter, why, sizeof why);
      free(args);
      return cli_error(CLI_USAGE, "--filter: %s", why);
    }
    have_filter = true;
  }
  if (!o.num_threads) {
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    o.threads[o.num_threads++] = 1;
    if (cpus > 1) o.threads[o.num_threads++] = cpus > 1024 ? 1024 : cpus;
  }
  o.min_rep_ms = min_ms;

  bench_run run = {0};
  char msg[1024];
  if (input) {
    if (!bench_json_read(input, &run, msg, sizeof msg)) status = cli_error(CLI_USAGE, "%s", msg);
  } else {
    bench_meta_collect(&run.meta);
    join_args(argc, argv, run.meta.command, sizeof run.meta.command);
    run.meta.reps = o.reps;
    run.meta.size_scale = scale;
    bench_pages_describe(o.huge_pages, run.meta.pages, sizeof run.meta.pages);
    bench_pages_export(o.huge_pages);
    size_t n = 0;
    for (int k = 0; k < o.num_threads && n < sizeof run.meta.threads; k++)
      n += (size_t)snprintf(run.meta.threads + n, sizeof run.meta.threads - n, k ? ",%d" : "%d", o.threads[k]);
    if (micro) {
      snprintf(run.meta.suite, sizeof run.meta.suite, "micro");
      snprintf(run.meta.gpu, sizeof run.meta.gpu, "not run (--micro)");
      if (!bench_micro(o.reps, &run, msg, sizeof msg)) status = cli_error(CLI_FAILED, "%s", msg);
    } else {
      bench_suite suite;
      bool loaded = suite_path ? bench_suite_load(suite_path, scale, &suite, msg, sizeof msg)
                               : bench_suite_parse(bench_default_suite_text(), "default", scale, &suite, msg, sizeof msg);
      if (!loaded) {
        status = cli_error(CLI_USAGE, "%s", msg);
      } else {
        snprintf(run.meta.suite, sizeof run.meta.suite, "%s", suite.name);
        if (!gpu) snprintf(run.meta.gpu, sizeof run.meta.gpu, "not run (--no-gpu)");
        char self[4096];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        self[len > 0 ? len : 0] = '\0';
        o.peers = bench_peers_start(peers, self);
        if (!measure(&suite, have_filter ? &filter : NULL, &o, gpu, &run)) status = CLI_FAILED;
        for (int k = 0; k < bench_peers_count(o.peers) && run.meta.num_peers < 4; k++)
          run.meta.peers[run.meta.num_peers++] = *bench_peers_info(o.peers, k);
        bench_peers_stop(o.peers);
        bench_suite_free(&suite);
      }
    }
  }
  if (!input && getloadavg(run.meta.load_avg_end, 3) != 3)
    run.meta.load_avg_end[0] = run.meta.load_avg_end[1] = run.meta.load_avg_end[2] = -1;
  if (have_filter) regfree(&filter);
  if (status == CLI_USAGE) {
    bench_run_free(&run);
    free(args);
    return status;
  }
  bench_table_print(&run, stdout);
  if (json && !bench_json_write(&run, json, msg, sizeof msg)) status = cli_error(CLI_FAILED, "%s", msg);
  if (plot && !bench_plot_write(&run, plot, msg, sizeof msg)) status = cli_error(CLI_FAILED, "%s", msg);
  if (baseline) {
    bench_run base;
    if (!bench_json_read(baseline, &base, msg, sizeof msg)) {
      status = cli_error(CLI_USAGE, "--baseline: %s", msg);
    } else {
      if (bench_compare(&base, &run, threshold, stdout) > 0) status = CLI_FAILED;
      bench_run_free(&base);
    }
  }
  bench_run_free(&run);
  free(args);
  return status;
}

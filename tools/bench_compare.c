/* Comparing a run with a baseline. Only ixjit's own results are judged (the
 * ceiling and the peers measure the machine and other libraries). The noise
 * rule: a result regressed when
 *
 *   its median time is more than threshold% above the baseline's median, AND
 *   even its fastest repetition is slower than the baseline's slowest one,
 *
 * that is, the two runs' min-max spreads do not overlap. One slow repetition
 * (a page-cache flush, another process) moves a run's max, never its min, so
 * it cannot fail a CI job; a real slowdown moves every repetition. */
#include <string.h>

#include "bench.h"

bool bench_regressed(const bench_result *base, const bench_result *cur, double threshold_pct) {
  if (base->skipped || cur->skipped || base->reps == 0 || cur->reps == 0) return false;
  double mb = bench_median(base), mc = bench_median(cur);
  return mc > mb * (1 + threshold_pct / 100) && bench_min(cur) > bench_max(base);
}

/* The better of the two ceilings of a case at a thread count, in GB/s. */
static double ceiling(const bench_run *run, const char *case_name, int threads) {
  const char *methods[] = {"memcpy", "nt_copy", "memset", "nt_fill"};
  double best = 0;
  for (int k = 0; k < 4; k++) {
    char name[200];
    snprintf(name, sizeof name, "%s/%s/threads:%d", case_name, methods[k], threads);
    const bench_result *r = bench_run_find(run, name);
    if (r && bench_gbps(r) > best) best = bench_gbps(r);
  }
  return best;
}

int bench_compare(const bench_run *baseline, const bench_run *run, double threshold_pct, FILE *out) {
  int regressions = 0, compared = 0, missing = 0;
  fprintf(out, "compared with the baseline (%s, commit %s): ixjit's time per call, median [min, max] of the reps\n",
          baseline->meta.date[0] ? baseline->meta.date : "undated", baseline->meta.commit[0] ? baseline->meta.commit : "?");
  fprintf(out, "rule: slower by more than %.1f%% AND the fastest rep slower than the baseline's slowest\n",
          threshold_pct);
  fprintf(out, "%-34s %3s %26s %26s %8s %8s  %s\n", "case", "T", "baseline ms", "now ms", "delta", "ceiling", "verdict");
  for (int k = 0; k < run->count; k++) {
    const bench_result *cur = &run->results[k];
    if (strcmp(cur->method, "ixjit") || cur->skipped) continue;
    const bench_result *base = bench_run_find(baseline, cur->run_name);
    if (!base || base->skipped || base->reps == 0) {
      fprintf(out, "%-34s %3d %26s %8.3f [%7.3f, %7.3f] %8s %8s  new\n", cur->case_name, cur->threads, "-",
              bench_median(cur) * 1e3, bench_min(cur) * 1e3, bench_max(cur) * 1e3, "", "");
      continue;
    }
    compared++;
    double mb = bench_median(base), mc = bench_median(cur);
    double delta = mb > 0 ? (mc / mb - 1) * 100 : 0;
    bool bad = bench_regressed(base, cur, threshold_pct);
    regressions += bad;
    /* How much the machine itself moved: the ceiling's change, for reading the delta. */
    double cb = ceiling(baseline, cur->case_name, cur->threads), cc = ceiling(run, cur->case_name, cur->threads);
    char ceil_text[16] = "";
    if (cb > 0 && cc > 0) snprintf(ceil_text, sizeof ceil_text, "%+.1f%%", (cb / cc - 1) * 100);
    const char *verdict = bad ? "REGRESSION"
                          : mc > mb * (1 + threshold_pct / 100) ? "slower, within the spread"
                          : mc < mb * (1 - threshold_pct / 100) ? "faster"
                                                               : "same";
    fprintf(out, "%-34s %3d %8.3f [%7.3f, %7.3f] %8.3f [%7.3f, %7.3f] %+7.1f%% %8s  %s\n", cur->case_name,
            cur->threads, mb * 1e3, bench_min(base) * 1e3, bench_max(base) * 1e3, mc * 1e3, bench_min(cur) * 1e3,
            bench_max(cur) * 1e3, delta, ceil_text, verdict);
  }
  for (int k = 0; k < baseline->count; k++) {
    const bench_result *b = &baseline->results[k];
    if (!strcmp(b->method, "ixjit") && !b->skipped && !bench_run_find(run, b->run_name)) missing++;
  }
  fprintf(out, "%d compared, %d regression%s", compared, regressions, regressions == 1 ? "" : "s");
  if (missing) fprintf(out, ", %d in the baseline only", missing);
  fputs(" (ceiling: the time change of the better of memcpy and the non-temporal copy, how much the machine moved)\n",
        out);
  return regressions;
}

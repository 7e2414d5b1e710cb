/* The SVG bar chart: one group of horizontal bars per case, GB/s on one
 * logarithmic axis, ixjit at each thread count, the generic kernel and the peers
 * beside it (each at its best thread count), and the ceiling (the better of
 * libc and non-temporal stores at the most threads) as a red mark across the
 * group. Values are printed at the bar ends, so small bars stay readable. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench.h"

#define LEFT 190
#define WIDTH 720
#define RIGHT 70
#define BAR 9
#define GAP 10
#define TOP 84

typedef struct bar {
  const char *label;
  double gbps;
  const char *color;
} bar;

static const char *ixjit_colors[] = {"#9ecae1", "#4292c6", "#08519c", "#08306b"};

static bool is_peer(const char *m) { return !strcmp(m, "numpy") || !strcmp(m, "torch") || !strcmp(m, "onednn"); }

static const char *peer_color(const char *m) {
  return !strcmp(m, "numpy") ? "#fd8d3c" : !strcmp(m, "torch") ? "#e7298a" : "#41ab5d";
}

/* The best GB/s of a case's method over its thread counts. */
static double best_of(const bench_run *run, const char *c, const char *method, int *threads) {
  double best = 0;
  for (int k = 0; k < run->count; k++) {
    const bench_result *r = &run->results[k];
    if (!strcmp(r->case_name, c) && !strcmp(r->method, method) && bench_gbps(r) > best) {
      best = bench_gbps(r);
      if (threads) *threads = r->threads;
    }
  }
  return best;
}

/* The x pixel of v GB/s on the log axis [lo, hi]. */
static int xpos(double v, double lo, double hi) {
  if (v <= lo) return LEFT;
  return LEFT + (int)(log(v / lo) / log(hi / lo) * WIDTH);
}

static void escape(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '<') fputs("&lt;", f);
    else if (*s == '>') fputs("&gt;", f);
    else if (*s == '&') fputs("&amp;", f);
    else fputc(*s, f);
  }
}

bool bench_plot_write(const bench_run *run, const char *path, char *msg, size_t msg_size) {
  /* Cases in order of first appearance, the thread counts, the peers seen. */
  const char *cases[512];
  int ncases = 0, threads[BENCH_MAX_THREADS], nthreads = 0;
  double xmax = 1, xmin = 1e9;
  for (int k = 0; k < run->count; k++) {
    const bench_result *r = &run->results[k];
    if (strcmp(r->method, "ixjit") || r->bytes <= 0) continue;
    bool seen = false;
    for (int c = 0; c < ncases && !seen; c++) seen = !strcmp(cases[c], r->case_name);
    if (!seen && ncases < 512) cases[ncases++] = r->case_name;
    seen = false;
    for (int t = 0; t < nthreads && !seen; t++) seen = threads[t] == r->threads;
    if (!seen && nthreads < BENCH_MAX_THREADS) threads[nthreads++] = r->threads;
  }
  for (int k = 0; k < run->count; k++) {
    double g = bench_gbps(&run->results[k]);
    if (g > xmax) xmax = g;
    if (g > 0 && g < xmin) xmin = g;
  }
  /* A log axis: tiny cases in cache reach ~80 GB/s, a slow chain 0.1, and both must be readable. */
  xmax = pow(10, ceil(log10(xmax)));
  xmin = xmin < xmax ? pow(10, floor(log10(xmin))) : xmax / 10;
  int available_peers = 0;
  for (int p = 0; p < run->meta.num_peers; p++) available_peers += run->meta.peers[p].available;
  int nbars = nthreads + 1 + available_peers;
  int group = nbars * BAR + GAP, height = TOP + ncases * group + 40;
  FILE *f = fopen(path, "w");
  if (!f) {
    snprintf(msg, msg_size, "%s: %s", path, strerror(errno));
    return false;
  }
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
             "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
          LEFT + WIDTH + RIGHT, height);
  fprintf(f, "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">ixjit bench: GB/s per case "
             "(bytes read + written, median; higher is better)</text>\n", LEFT);
  fprintf(f, "<text x=\"%d\" y=\"34\" fill=\"#555\">", LEFT);
  escape(f, run->meta.cpu_model);
  fprintf(f, ", %d CPUs, commit %s, %s</text>\n", run->meta.num_cpus, run->meta.commit, run->meta.date);
  /* legend */
  int lx = LEFT;
  for (int t = 0; t < nthreads; t++, lx += 90)
    fprintf(f, "<rect x=\"%d\" y=\"44\" width=\"12\" height=\"9\" fill=\"%s\"/><text x=\"%d\" y=\"53\">ixjit x%d</text>\n",
            lx, ixjit_colors[t < 4 ? t : 3], lx + 16, threads[t]);
  fprintf(f, "<rect x=\"%d\" y=\"44\" width=\"12\" height=\"9\" fill=\"#969696\"/><text x=\"%d\" y=\"53\">generic</text>\n",
          lx, lx + 16);
  lx += 80;
  for (int p = 0; p < run->meta.num_peers; p++) {
    const bench_peer_info *info = &run->meta.peers[p];
    fprintf(f, "<rect x=\"%d\" y=\"44\" width=\"12\" height=\"9\" fill=\"%s\"/><text x=\"%d\" y=\"53\">%s%s</text>\n", lx,
            peer_color(info->name), lx + 16, info->name, info->available ? "" : " (absent)");
    lx += info->available ? 80 : 120;
  }
  fprintf(f, "<line x1=\"%d\" y1=\"43\" x2=\"%d\" y2=\"55\" stroke=\"#d62728\" stroke-width=\"3\"/><text x=\"%d\" "
             "y=\"53\">ceiling</text>\n", lx + 6, lx + 6, lx + 14);
  /* grid */
  for (double decade = xmin; decade < xmax * 1.01; decade *= 10)
    for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) { /* 1, 2, 5 per decade */
    double x = decade * m;
    if (x > xmax * 1.01) break;
    int px = xpos(x, xmin, xmax);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#e0e0e0\"/>\n", px, TOP - 6, px,
            TOP + ncases * group);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%g</text>\n", px, TOP + ncases * group + 14,
            x);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%g</text>\n", px, TOP - 8, x);
    }
  fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">GB/s (log scale)</text>\n", LEFT + WIDTH / 2, TOP + ncases * group + 30);
  for (int c = 0; c < ncases; c++) {
    int y0 = TOP + c * group;
    bar bars[BENCH_MAX_THREADS + 8];
    int n = 0;
    for (int t = 0; t < nthreads; t++) {
      char name[200];
      snprintf(name, sizeof name, "%s/ixjit/threads:%d", cases[c], threads[t]);
      const bench_result *r = bench_run_find(run, name);
      bars[n++] = (bar){"ixjit", r ? bench_gbps(r) : 0, ixjit_colors[t < 4 ? t : 3]};
    }
    bars[n++] = (bar){"generic", best_of(run, cases[c], "generic", NULL), "#969696"};
    for (int p = 0; p < run->meta.num_peers; p++) /* an absent peer gets no bar, only its legend entry */
      if (run->meta.peers[p].available)
        bars[n++] = (bar){run->meta.peers[p].name, best_of(run, cases[c], run->meta.peers[p].name, NULL),
                          peer_color(run->meta.peers[p].name)};
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LEFT - 6, y0 + (nbars * BAR) / 2 + 4);
    escape(f, cases[c]);
    fputs("</text>\n", f);
    for (int b = 0; b < n; b++) {
      int y = y0 + b * BAR, w = xpos(bars[b].gbps, xmin, xmax) - LEFT;
      if (bars[b].gbps <= 0) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"8\" fill=\"#999\">%s%s</text>\n", LEFT + 3, y + 8,
                bars[b].label, is_peer(bars[b].label) ? ": cannot express this case" : ": did not run");
        continue;
      }
      fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s %.2f GB/s</title></rect>\n",
              LEFT, y, w > 0 ? w : 1, BAR - 1, bars[b].color, bars[b].label, bars[b].gbps);
      fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"8\" fill=\"#333\">%.2f</text>\n", LEFT + w + 3, y + 8,
              bars[b].gbps);
    }
    /* the ceiling at the most threads */
    double ceil_best = 0;
    const char *methods[] = {"memcpy", "nt_copy", "memset", "nt_fill"};
    for (int m = 0; m < 4; m++) {
      char name[200];
      snprintf(name, sizeof name, "%s/%s/threads:%d", cases[c], methods[m], threads[nthreads - 1]);
      const bench_result *r = bench_run_find(run, name);
      if (r && bench_gbps(r) > ceil_best) ceil_best = bench_gbps(r);
    }
    if (ceil_best > 0) {
      int px = xpos(ceil_best, xmin, xmax);
      fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d62728\" stroke-width=\"3\"><title>ceiling "
                 "%.2f GB/s</title></line>\n", px, y0 - 1, px, y0 + nbars * BAR, ceil_best);
    }
  }
  fputs("</svg>\n", f);
  if (fclose(f) != 0) {
    snprintf(msg, msg_size, "%s: %s", path, strerror(errno));
    return false;
  }
  return true;
}

/* `ixjit warm [--cache DIR] [--target cpu|cuda:sm_XY]... [-j N] FILE...`:
 * compile every signature of recorded or hand-written spec files into the
 * disk cache, for each target (CUDA targets need NVRTC, not a GPU).
 *
 * A spec line is what IXJIT_RECORD writes (tab-separated):
 *   copy TAB ELEM TAB ALIGNED TAB DST TAB SRC
 *   fill TAB ELEM TAB ALIGNED TAB DST
 *   cat  TAB ELEM TAB ALIGNED TAB AXIS TAB DST TAB SRC...
 * Blank lines and lines starting with '#' are skipped. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

typedef struct spec {
  char *where; /* "FILE:LINE" */
  char *line;  /* the text, for de-duplication */
  ixj_op_kind op;
  size_t elem_size;
  bool aligned;
  int axis, num_srcs;
  ixj_ixfun *dst, *src[IXJ_MAX_CAT_INPUTS];
} spec;

/* One spec for one target. */
typedef struct warm_item {
  const spec *spec;
  const char *target; /* "cpu" or "sm_XY" */
  ixj_warm_outcome outcome;
  ixj_status status;
  char message[IXJ_ERROR_MESSAGE_SIZE];
} warm_item;

typedef struct warm_run {
  ixj_context *ctx;
  warm_item *items;
  int count;
  atomic_int next, done;
  bool tty;
  pthread_mutex_t print_lock;
} warm_run;

static bool parse_int_field(const char *s, long lo, long hi, long *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

/* One line into a spec; false (with a message) when the line is bad. */
static bool parse_line(char *line, spec *s, char *msg, size_t size) {
  char *field[4 + 1 + IXJ_MAX_CAT_INPUTS];
  int n = 0;
  for (char *save, *t = strtok_r(line, "\t", &save); t && n < (int)(sizeof field / sizeof *field);
       t = strtok_r(NULL, "\t", &save))
    field[n++] = t;
  long v;
  memset(s, 0, sizeof *s);
  if (n < 4) return snprintf(msg, size, "expected tab-separated fields: op, elem size, aligned, ...") < 0;
  if (!strcmp(field[0], "copy")) s->op = IXJ_OP_COPY;
  else if (!strcmp(field[0], "fill")) s->op = IXJ_OP_FILL;
  else if (!strcmp(field[0], "cat")) s->op = IXJ_OP_CAT;
  else return snprintf(msg, size, "unknown operation '%s'", field[0]) < 0;
  if (!parse_int_field(field[1], 1, 16, &v)) return snprintf(msg, size, "bad element size '%s'", field[1]) < 0;
  s->elem_size = (size_t)v;
  if (!parse_int_field(field[2], 0, 1, &v)) return snprintf(msg, size, "aligned must be 0 or 1") < 0;
  s->aligned = v;
  int at = 3;
  if (s->op == IXJ_OP_CAT) {
    if (!parse_int_field(field[3], 0, IXJ_MAX_RANK - 1, &v)) return snprintf(msg, size, "bad axis '%s'", field[3]) < 0;
    s->axis = (int)v;
    at = 4;
  }
  if (at >= n) return snprintf(msg, size, "missing the destination") < 0;
  s->num_srcs = n - at - 1;
  int want = s->op == IXJ_OP_COPY ? 1 : s->op == IXJ_OP_FILL ? 0 : -1;
  if ((want >= 0 && s->num_srcs != want) || (want < 0 && s->num_srcs < 1))
    return snprintf(msg, size, "%s takes %s, found %d", field[0],
                    want == 1 ? "one source" : want == 0 ? "no source" : "one or more sources", s->num_srcs) < 0;
  ixj_error err;
  if (ixj_ixfun_parse(field[at], &s->dst, &err) != IXJ_OK) return snprintf(msg, size, "destination: %s", err.message) < 0;
  for (int k = 0; k < s->num_srcs; k++)
    if (ixj_ixfun_parse(field[at + 1 + k], &s->src[k], &err) != IXJ_OK)
      return snprintf(msg, size, "source %d: %s", k + 1, err.message) < 0;
  return true;
}

static void free_spec(spec *s) {
  free(s->where);
  free(s->line);
  ixj_ixfun_free(s->dst);
  for (int k = 0; k < s->num_srcs; k++) ixj_ixfun_free(s->src[k]);
}

static void progress(warm_run *w, int done) {
  pthread_mutex_lock(&w->print_lock);
  if (w->tty) {
    int width = 40, filled = w->count ? done * width / w->count : width;
    fprintf(stderr, "\rwarm: [%.*s%*s] %d/%d", filled, "########################################", width - filled, "",
            done, w->count);
    if (done == w->count) fputc('\n', stderr);
  } else if (w->count < 20 || done == w->count || done % (w->count / 10) == 0) {
    fprintf(stderr, "warm: %d/%d\n", done, w->count);
  }
  pthread_mutex_unlock(&w->print_lock);
}

static void *warm_worker(void *arg) {
  warm_run *w = arg;
  for (;;) {
    int k = atomic_fetch_add(&w->next, 1);
    if (k >= w->count) return NULL;
    warm_item *it = &w->items[k];
    const spec *s = it->spec;
    ixj_error err;
    const ixj_ixfun *const *srcs = (const ixj_ixfun *const *)s->src;
    it->status = !strcmp(it->target, "cpu")
                     ? ixj_warm(w->ctx, s->op, s->dst, s->num_srcs, srcs, s->axis, s->elem_size, s->aligned, &it->outcome, &err)
                     : ixj_warm_cuda(w->ctx, it->target, s->op, s->dst, s->num_srcs, srcs, s->axis, s->elem_size, s->aligned,
                                     &it->outcome, &err);
    if (it->status != IXJ_OK) snprintf(it->message, sizeof it->message, "%s", err.message);
    progress(w, atomic_fetch_add(&w->done, 1) + 1);
  }
}

int cmd_warm(int argc, char **argv) {
  const char *dir = NULL, *targets[16];
  long jobs = sysconf(_SC_NPROCESSORS_ONLN);
  int nfiles = 0, bad = 0, ntargets = 0;
  char **files = calloc((size_t)argc + 1, sizeof *files);
  if (!files) return cli_error(CLI_FAILED, "out of memory");
  for (int k = 0; k < argc; k++) {
    if (!strcmp(argv[k], "--cache") && k + 1 < argc) dir = argv[++k];
    else if (!strcmp(argv[k], "-j") && k + 1 < argc) {
      if (!parse_int_field(argv[++k], 1, 256, &jobs)) {
        free(files);
        return cli_error(CLI_USAGE, "-j takes 1..256");
      }
    } else if (!strcmp(argv[k], "--target") && k + 1 < argc) {
      const char *t = argv[++k];
      int cc;
      if (ntargets == 16 || (strcmp(t, "cpu") && (strncmp(t, "cuda:", 5) || sscanf(t + 5, "sm_%d", &cc) != 1))) {
        free(files);
        return cli_error(CLI_USAGE, "--target %s: use cpu or cuda:sm_XY (at most 16 targets)", t);
      }
      targets[ntargets++] = strcmp(t, "cpu") ? t + 5 : t;
    } else if (argv[k][0] == '-' && argv[k][1]) {
      free(files);
      return cli_error(CLI_USAGE, "unknown option '%s' (usage: ixjit warm [--cache DIR] [--target cpu|cuda:sm_XY]... [-j N] FILE...)", argv[k]);
    } else {
      files[nfiles++] = argv[k];
    }
  }
  if (!nfiles) {
    free(files);
    return cli_error(CLI_USAGE, "usage: ixjit warm [--cache DIR] [--target cpu|cuda:sm_XY]... [-j N] FILE...");
  }
  if (!ntargets) targets[ntargets++] = "cpu";
  /* read every spec; bad lines are reported and skipped */
  int count = 0, cap = 256;
  spec *specs = malloc((size_t)cap * sizeof *specs);
  for (int f = 0; f < nfiles && specs; f++) {
    FILE *in = strcmp(files[f], "-") ? fopen(files[f], "r") : stdin;
    if (!in) {
      fprintf(stderr, "ixjit: error: cannot open %s\n", files[f]);
      bad++;
      continue;
    }
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    for (int lineno = 1; (len = getline(&line, &lcap, in)) >= 0; lineno++) {
      while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
      if (!len || line[0] == '#') continue;
      if (count == cap) {
        spec *more = realloc(specs, (size_t)(cap *= 2) * sizeof *specs);
        if (!more) break;
        specs = more;
      }
      bool seen = false; /* identical lines warm once */
      for (int k = 0; k < count && !seen; k++) seen = specs[k].line && !strcmp(specs[k].line, line);
      if (seen) continue;
      char msg[512];
      spec *s = &specs[count];
      char *text = strdup(line);
      if (!parse_line(line, s, msg, sizeof msg)) {
        fprintf(stderr, "%s:%d: error: %s\n", files[f], lineno, msg);
        free_spec(s);
        free(text);
        bad++;
        continue;
      }
      s->line = text;
      char where[512];
      snprintf(where, sizeof where, "%s:%d", files[f], lineno);
      s->where = strdup(where);
      count++;
    }
    free(line);
    if (in != stdin) fclose(in);
  }
  free(files);
  if (!specs) return cli_error(CLI_FAILED, "out of memory");

  ixj_context_options opts = {.num_threads = 1, .disk_cache = 1, .cache_dir = dir, .log = cli_log};
  ixj_context *ctx;
  ixj_error err;
  int rc = CLI_OK;
  if (ixj_context_create(&opts, &ctx, &err) != IXJ_OK) {
    rc = cli_error(CLI_FAILED, "%s", err.message);
  } else if (!ixj_context_cache_dir(ctx)) {
    rc = cli_error(CLI_FAILED, "no usable cache directory");
  } else {
    int nitems = count * ntargets;
    warm_item *items = calloc((size_t)(nitems ? nitems : 1), sizeof *items);
    for (int k = 0; items && k < nitems; k++) items[k] = (warm_item){&specs[k / ntargets], targets[k % ntargets], 0, 0, ""};
    warm_run w = {ctx, items, items ? nitems : 0, 0, 0, isatty(2), PTHREAD_MUTEX_INITIALIZER};
    int nthreads = (int)(jobs < w.count ? jobs : w.count > 0 ? w.count : 1);
    pthread_t th[256];
    int started = 0;
    for (; started < nthreads - 1; started++)
      if (pthread_create(&th[started], NULL, warm_worker, &w) != 0) break;
    warm_worker(&w);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    int compiled = 0, present = 0, failed = items ? 0 : 1;
    for (int k = 0; k < w.count; k++) {
      if (items[k].status != IXJ_OK) {
        fprintf(stderr, "%s (%s): failed: %s\n", items[k].spec->where, items[k].target, items[k].message);
        failed++;
      } else if (items[k].outcome == IXJ_WARM_COMPILED) {
        compiled++;
      } else {
        present++;
      }
    }
    free(items);
    printf("warm: %d signatures x %d target%s into %s: %d compiled, %d already present (or need no kernel), %d failed; "
           "%d bad lines\n",
           count, ntargets, ntargets > 1 ? "s" : "", ixj_context_cache_dir(ctx), compiled, present, failed, bad);
    if (failed || bad) rc = CLI_FAILED;
    ixj_context_destroy(ctx);
  }
  for (int k = 0; k < count; k++) free_spec(&specs[k]);
  free(specs);
  return rc;
}

/* `ixjit warm [--cache DIR] [--target cpu|cuda:sm_XY]... [-j N] FILE...`:
 * compile every signature of recorded or hand-written spec files into the
 * disk cache, for each target (CUDA targets need NVRTC, not a GPU).
 *
 * The files are record files (the format is in include/ixjit/record.h and
 * read by ixj_record_parse); '-' is standard input. Identical lines are
 * warmed once; a bad line is reported with its file and line number and the
 * rest go on. The steps, in order: options, reading (with de-duplication),
 * the workers (one item per spec and target), the report. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "ixjit/ixjit.h"
#include "lineset.h"

#define MAX_TARGETS 16
#define MAX_JOBS 256
#define USAGE "ixjit warm [--cache DIR] [--target cpu|cuda:sm_XY]... [-j N] FILE..."

/* ---- options ----------------------------------------------------------------- */

typedef struct warm_options {
  const char *dir;                  /* NULL: the default cache directory */
  const char *targets[MAX_TARGETS]; /* "cpu" or "sm_XY" */
  int num_targets;
  long jobs;
  char **files; /* argv's, in order */
  int num_files;
} warm_options;

static bool parse_long(const char *s, long lo, long hi, long *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

/* CLI_OK with *o filled (o->files to free), or the exit status of a usage error. */
static int parse_options(int argc, char **argv, warm_options *o) {
  memset(o, 0, sizeof *o);
  o->jobs = sysconf(_SC_NPROCESSORS_ONLN);
  o->files = calloc((size_t)argc + 1, sizeof *o->files);
  if (!o->files) return cli_error(CLI_FAILED, "out of memory");
  int rc = CLI_OK;
  for (int k = 0; k < argc && rc == CLI_OK; k++) {
    if (!strcmp(argv[k], "--cache") && k + 1 < argc) {
      o->dir = argv[++k];
    } else if (!strcmp(argv[k], "-j") && k + 1 < argc) {
      if (!parse_long(argv[++k], 1, MAX_JOBS, &o->jobs)) rc = cli_error(CLI_USAGE, "-j takes 1..%d", MAX_JOBS);
    } else if (!strcmp(argv[k], "--target") && k + 1 < argc) {
      const char *t = argv[++k];
      int cc;
      if (o->num_targets == MAX_TARGETS ||
          (strcmp(t, "cpu") && (strncmp(t, "cuda:", 5) || sscanf(t + 5, "sm_%d", &cc) != 1)))
        rc = cli_error(CLI_USAGE, "--target %s: use cpu or cuda:sm_XY (at most %d targets)", t, MAX_TARGETS);
      else
        o->targets[o->num_targets++] = strcmp(t, "cpu") ? t + 5 : t;
    } else if (argv[k][0] == '-' && argv[k][1]) {
      rc = cli_error(CLI_USAGE, "unknown option '%s' (usage: " USAGE ")", argv[k]);
    } else {
      o->files[o->num_files++] = argv[k];
    }
  }
  if (rc == CLI_OK && !o->num_files) rc = cli_error(CLI_USAGE, "usage: " USAGE);
  if (rc != CLI_OK) {
    free(o->files);
    o->files = NULL;
  }
  if (!o->num_targets) o->targets[o->num_targets++] = "cpu";
  return rc;
}

/* ---- reading ------------------------------------------------------------------- */

typedef struct spec {
  char *where; /* "FILE:LINE" */
  ixj_record rec;
} spec;

typedef struct spec_list {
  spec *items;
  int count, cap;
  int bad; /* unreadable files and bad lines */
  line_set seen;
} spec_list;

static void spec_list_free(spec_list *l) {
  for (int k = 0; k < l->count; k++) {
    free(l->items[k].where);
    ixj_record_clear(&l->items[k].rec);
  }
  free(l->items);
  line_set_free(&l->seen);
}

/* One line of a file: skipped (blank, comment, seen before), reported (bad)
 * or appended. false only when out of memory. */
static bool read_line(spec_list *l, const char *file, int lineno, char *line) {
  size_t len = strlen(line);
  while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
  /* identical lines warm once (a bad line is reported every time) */
  if (ixj_record_is_blank(line) || line_set_contains(&l->seen, line)) return true;
  if (l->count == l->cap) {
    int cap = l->cap ? 2 * l->cap : 256;
    spec *more = realloc(l->items, (size_t)cap * sizeof *more);
    if (!more) return false;
    l->items = more;
    l->cap = cap;
  }
  spec *s = &l->items[l->count];
  ixj_error err;
  ixj_status st = ixj_record_parse(line, &s->rec, &err);
  if (st == IXJ_ERR_NO_MEMORY) return false;
  if (st != IXJ_OK) {
    fprintf(stderr, "%s:%d: error: %s\n", file, lineno, err.message);
    l->bad++;
    return true;
  }
  char where[512];
  snprintf(where, sizeof where, "%s:%d", file, lineno);
  if (line_set_add(&l->seen, line) == 1 && (s->where = strdup(where))) {
    l->count++;
    return true;
  }
  ixj_record_clear(&s->rec);
  return false;
}

/* Every spec of every file, in order; CLI_OK or CLI_FAILED when out of memory. */
static int read_specs(const warm_options *o, spec_list *l) {
  memset(l, 0, sizeof *l);
  line_set_init(&l->seen);
  bool ok = true;
  for (int f = 0; f < o->num_files && ok; f++) {
    const char *name = o->files[f];
    FILE *in = strcmp(name, "-") ? fopen(name, "r") : stdin;
    if (!in) {
      fprintf(stderr, "ixjit: error: cannot open %s\n", name);
      l->bad++;
      continue;
    }
    char *line = NULL;
    size_t cap = 0;
    for (int lineno = 1; ok && getline(&line, &cap, in) >= 0; lineno++) ok = read_line(l, name, lineno, line);
    free(line);
    if (in != stdin) fclose(in);
  }
  return ok ? CLI_OK : cli_error(CLI_FAILED, "out of memory");
}

/* ---- workers ------------------------------------------------------------------- */

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
    const ixj_record *r = &it->spec->rec;
    const ixj_ixfun *const *srcs = (const ixj_ixfun *const *)r->srcs;
    ixj_error err;
    it->status = !strcmp(it->target, "cpu")
                     ? ixj_warm(w->ctx, r->op, r->dst, r->num_srcs, srcs, r->axis, r->elem_size, r->aligned,
                                &it->outcome, &err)
                     : ixj_warm_cuda(w->ctx, it->target, r->op, r->dst, r->num_srcs, srcs, r->axis, r->elem_size,
                                     r->aligned, &it->outcome, &err);
    if (it->status != IXJ_OK) snprintf(it->message, sizeof it->message, "%s", err.message);
    progress(w, atomic_fetch_add(&w->done, 1) + 1);
  }
}

/* Runs every item on `jobs` threads, the caller's included. */
static void run_workers(ixj_context *ctx, warm_item *items, int count, long jobs) {
  warm_run w = {ctx, items, count, 0, 0, isatty(2), PTHREAD_MUTEX_INITIALIZER};
  int nthreads = (int)(jobs < count ? jobs : count > 0 ? count : 1);
  pthread_t th[MAX_JOBS];
  int started = 0;
  for (; started < nthreads - 1; started++)
    if (pthread_create(&th[started], NULL, warm_worker, &w) != 0) break;
  warm_worker(&w);
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
}

/* ---- report -------------------------------------------------------------------- */

/* Each failure on stderr, then the summary line; the exit status. */
static int report(const warm_item *items, int count, const spec_list *l, int num_targets, const char *dir) {
  int compiled = 0, present = 0, failed = 0;
  for (int k = 0; k < count; k++) {
    if (items[k].status != IXJ_OK) {
      fprintf(stderr, "%s (%s): failed: %s\n", items[k].spec->where, items[k].target, items[k].message);
      failed++;
    } else if (items[k].outcome == IXJ_WARM_COMPILED) {
      compiled++;
    } else {
      present++;
    }
  }
  printf("warm: %d signatures x %d target%s into %s: %d compiled, %d already present (or need no kernel), %d failed; "
         "%d bad lines\n",
         l->count, num_targets, num_targets > 1 ? "s" : "", dir, compiled, present, failed, l->bad);
  return failed || l->bad ? CLI_FAILED : CLI_OK;
}

int cmd_warm(int argc, char **argv) {
  warm_options o;
  spec_list specs;
  int rc = parse_options(argc, argv, &o);
  if (rc != CLI_OK) return rc;
  rc = read_specs(&o, &specs);
  free(o.files);
  ixj_context *ctx = NULL;
  ixj_error err;
  ixj_context_options opts = {.num_threads = 1, .disk_cache = 1, .cache_dir = o.dir, .log = cli_log};
  if (rc == CLI_OK && ixj_context_create(&opts, &ctx, &err) != IXJ_OK) rc = cli_error(CLI_FAILED, "%s", err.message);
  if (rc == CLI_OK && !ixj_context_cache_dir(ctx)) rc = cli_error(CLI_FAILED, "no usable cache directory");
  int count = specs.count * o.num_targets;
  warm_item *items = rc == CLI_OK ? calloc((size_t)(count ? count : 1), sizeof *items) : NULL;
  if (rc == CLI_OK && !items) rc = cli_error(CLI_FAILED, "out of memory");
  if (rc == CLI_OK) {
    for (int k = 0; k < count; k++)
      items[k] = (warm_item){&specs.items[k / o.num_targets], o.targets[k % o.num_targets], 0, IXJ_OK, ""};
    run_workers(ctx, items, count, o.jobs);
    rc = report(items, count, &specs, o.num_targets, ixj_context_cache_dir(ctx));
  }
  free(items);
  ixj_context_destroy(ctx);
  spec_list_free(&specs);
  return rc;
}

/* `ixjit warm [--cache DIR] [--target cpu|cpu:NAME[+F,...]|cuda:sm_XY]... [-j N] [--json] FILE...`:
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

static const char usage[] =
    "usage: ixjit warm [options] FILE...\n"
    "Compiles every signature of the record files (IXJIT_RECORD=FILE writes them; the format is in\n"
    "include/ixjit/record.h; '-' is standard input) into the disk cache, for each target, without running\n"
    "anything. Identical lines are warmed once; a bad line is reported with its file and line, the rest go on.\n"
    "  --cache DIR      the cache directory (default: IXJIT_CACHE_DIR, else ~/.cache/ixjit)\n"
    "  --target T       repeatable; default cpu:\n"
    "                     cpu                    this machine's CPU\n"
    "                     cpu:NAME[+F,F,...]     another x86-64 CPU (an LLVM CPU name: znver3, skylake-avx512,\n"
    "                                            x86-64-v3, ...) and its whole list of enabled features; the\n"
    "                                            kernels are loaded only on a host with exactly that name and\n"
    "                                            those features: `ixjit --version` prints a host's spec. NAME\n"
    "                                            alone uses LLVM's features for it, which no host reports.\n"
    "                     cuda:sm_XY             CUDA GPUs of compute capability X.Y (NVRTC; no GPU needed)\n"
    "  -j, --jobs N     compile N signatures at once (default: the online CPUs; at most 256)\n"
    "  --json           print the summary (and each failure) as one JSON object\n"
    "  --remote         fill the remote store of IXJIT_REMOTE_CACHE too, with every kernel warmed or already\n"
    "                   on disk (docs/remote-cache.md; needs IXJIT_CACHE_KEY_FILE); without the store, exit 1\n"
    "  -h, --help       this text\n"
    "Options take --opt=VALUE or --opt VALUE. Exit status: 0 done, 1 a failed signature, a bad line or an\n"
    "unreadable file, 2 bad arguments.\n";

/* ---- options ----------------------------------------------------------------- */

typedef struct warm_target {
  enum { WARM_HOST, WARM_CPU, WARM_CUDA } kind;
  const char *arg;  /* WARM_CPU: "NAME[+F,...]"; WARM_CUDA: "sm_XY" */
  const char *name; /* as given, for messages: "cpu", "cpu:znver3", "cuda:sm_90" */
} warm_target;

typedef struct warm_options {
  const char *dir; /* NULL: the default cache directory */
  warm_target targets[MAX_TARGETS];
  int num_targets;
  uint64_t jobs;
  bool json;
  bool remote;  /* --remote: fill the remote store too (IXJIT_REMOTE_CACHE) */
  char **files; /* argv's, in order */
  int num_files;
} warm_options;

/* --target T: CLI_OK, or the exit status of a usage error (reported). */
static int add_target(warm_options *o, const char *t) {
  if (o->num_targets == MAX_TARGETS) return cli_error(CLI_USAGE, "at most %d --target", MAX_TARGETS);
  warm_target *w = &o->targets[o->num_targets];
  int cc;
  char tail;
  if (!strcmp(t, "cpu")) *w = (warm_target){WARM_HOST, NULL, t};
  else if (!strncmp(t, "cpu:", 4) && t[4] && t[4] != '+') *w = (warm_target){WARM_CPU, t + 4, t};
  else if (!strncmp(t, "cuda:", 5) && sscanf(t + 5, "sm_%d%c", &cc, &tail) == 1 && cc > 0) *w = (warm_target){WARM_CUDA, t + 5, t};
  else return cli_error(CLI_USAGE, "--target %s: use cpu, cpu:NAME[+FEATURES] or cuda:sm_XY", t);
  if (w->kind == WARM_CPU && !strchr(w->arg, '+'))
    fprintf(stderr, "ixjit: warning: --target %s: without a feature list the kernels use LLVM's features for %s, "
                    "which no host reports, so no host will load them; warm with the spec a host prints in "
                    "`ixjit --version` (host CPU: ...)\n", t, w->arg);
  o->num_targets++;
  return CLI_OK;
}

/* CLI_OK with *o filled (o->files to free), CLI_HELP after printing the
 * usage, or the exit status of a usage error. */
static int parse_options(int argc, char **argv, warm_options *o) {
  static const struct option longopts[] = {{"cache", required_argument, NULL, 'c'},
                                           {"target", required_argument, NULL, 't'},
                                           {"jobs", required_argument, NULL, 'j'},
                                           {"json", no_argument, NULL, 'J'},
                                           {"remote", no_argument, NULL, 'R'},
                                           {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  o->jobs = cpus < 1 ? 1 : cpus > MAX_JOBS ? MAX_JOBS : (uint64_t)cpus;
  cli_parser p;
  if (!cli_parser_init(&p, "ixjit warm", argc, argv, usage)) return CLI_FAILED;
  int rc = CLI_OK;
  bool help = false;
  for (int opt; rc == CLI_OK && (opt = cli_next(&p, "j:", longopts)) != -1;) {
    switch (opt) {
    case 'c': o->dir = p.optarg; break;
    case 't': rc = add_target(o, p.optarg); break;
    case 'j': rc = cli_count("-j", p.optarg, 1, MAX_JOBS, &o->jobs) ? CLI_OK : CLI_USAGE; break;
    case 'J': o->json = true; break;
    case 'R': o->remote = true; break;
    case CLI_HELP: help = true; break;
    default: rc = CLI_USAGE; break; /* reported */
    }
  }
  int n;
  char **files = cli_positional(&p, &n);
  /* `ixjit warm help` asks for the usage, unless a file of that name is there */
  if (rc == CLI_OK && n == 1 && !strcmp(files[0], "help") && access(files[0], F_OK) != 0) help = true;
  if (rc == CLI_OK && help) {
    fputs(usage, stdout);
    rc = CLI_HELP;
  } else if (rc == CLI_OK && !n) {
    rc = cli_error(CLI_USAGE, "no FILE to warm (ixjit warm --help)");
  } else if (rc == CLI_OK && !(o->files = calloc((size_t)n, sizeof *o->files))) {
    rc = cli_error(CLI_FAILED, "out of memory");
  }
  if (rc == CLI_OK) {
    for (int k = 0; k < n; k++) o->files[o->num_files++] = files[k];
  }
  cli_parser_free(&p);
  if (rc == CLI_OK && !o->num_targets) o->targets[o->num_targets++] = (warm_target){WARM_HOST, NULL, "cpu"};
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
  const warm_target *target;
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
    const warm_target *t = it->target;
    it->status = t->kind == WARM_HOST ? ixj_warm(w->ctx, r->op, r->dst, r->num_srcs, srcs, r->axis, r->elem_size,
                                                 r->aligned, &it->outcome, &err)
                 : t->kind == WARM_CPU ? ixj_warm_cpu(w->ctx, t->arg, r->op, r->dst, r->num_srcs, srcs, r->axis,
                                                      r->elem_size, r->aligned, &it->outcome, &err)
                                       : ixj_warm_cuda(w->ctx, t->arg, r->op, r->dst, r->num_srcs, srcs, r->axis,
                                                       r->elem_size, r->aligned, &it->outcome, &err);
    if (it->status != IXJ_OK) snprintf(it->message, sizeof it->message, "%s", err.message);
    progress(w, atomic_fetch_add(&w->done, 1) + 1);
  }
}

/* Runs every item on `jobs` threads, the caller's included. */
static void run_workers(ixj_context *ctx, warm_item *items, int count, uint64_t jobs) {
  warm_run w = {ctx, items, count, 0, 0, isatty(2), PTHREAD_MUTEX_INITIALIZER};
  int nthreads = (int)(jobs < (uint64_t)count ? jobs : count > 0 ? (uint64_t)count : 1);
  pthread_t th[MAX_JOBS];
  int started = 0;
  for (; started < nthreads - 1; started++)
    if (pthread_create(&th[started], NULL, warm_worker, &w) != 0) break;
  warm_worker(&w);
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
}

/* ---- report -------------------------------------------------------------------- */

/* The counts of a run. */
typedef struct warm_tally {
  int compiled, present, failed;
} warm_tally;

static warm_tally tally_items(const warm_item *items, int count) {
  warm_tally t = {0, 0, 0};
  for (int k = 0; k < count; k++) {
    if (items[k].status != IXJ_OK) t.failed++;
    else if (items[k].outcome == IXJ_WARM_COMPILED) t.compiled++;
    else t.present++;
  }
  return t;
}

/* Each failure on stderr, then the summary line. */
static void report_text(const warm_item *items, int count, const spec_list *l, const warm_options *o, const char *dir) {
  warm_tally t = tally_items(items, count);
  for (int k = 0; k < count; k++)
    if (items[k].status != IXJ_OK)
      fprintf(stderr, "%s (%s): failed: %s\n", items[k].spec->where, items[k].target->name, items[k].message);
  printf("warm: %d signatures x %d target%s into %s: %d compiled, %d already present (or need no kernel), %d failed; "
         "%d bad lines\n",
         l->count, o->num_targets, o->num_targets > 1 ? "s" : "", dir, t.compiled, t.present, t.failed, l->bad);
}

/* The same as one JSON object on stdout (bad lines are still reported on
 * stderr as they are read). */
static int report_json(const warm_item *items, int count, const spec_list *l, const warm_options *o, const char *dir) {
  warm_tally t = tally_items(items, count);
  cJSON *doc = cJSON_CreateObject(), *targets = cJSON_CreateArray(), *failures = cJSON_CreateArray();
  bool ok = doc && targets && failures;
  if (ok) {
    cJSON_AddItemToObject(doc, "targets", targets);
    cJSON_AddItemToObject(doc, "failures", failures);
  } else {
    cJSON_Delete(targets);
    cJSON_Delete(failures);
  }
  ok = ok && cJSON_AddStringToObject(doc, "cache_dir", dir) && cJSON_AddNumberToObject(doc, "signatures", l->count) &&
       cJSON_AddNumberToObject(doc, "compiled", t.compiled) && cJSON_AddNumberToObject(doc, "present", t.present) &&
       cJSON_AddNumberToObject(doc, "failed", t.failed) && cJSON_AddNumberToObject(doc, "bad_lines", l->bad);
  for (int k = 0; ok && k < o->num_targets; k++) ok = cJSON_AddItemToArray(targets, cJSON_CreateString(o->targets[k].name));
  for (int k = 0; ok && k < count; k++) {
    if (items[k].status == IXJ_OK) continue;
    cJSON *f = cJSON_CreateObject();
    ok = f && cJSON_AddItemToArray(failures, f) && cJSON_AddStringToObject(f, "where", items[k].spec->where) &&
         cJSON_AddStringToObject(f, "target", items[k].target->name) &&
         cJSON_AddStringToObject(f, "status", ixj_status_name(items[k].status)) &&
         cJSON_AddStringToObject(f, "message", items[k].message);
  }
  if (!ok) {
    cJSON_Delete(doc);
    doc = NULL;
  }
  return cli_json_print(doc, stdout);
}

int cmd_warm(int argc, char **argv) {
  warm_options o;
  spec_list specs;
  int rc = parse_options(argc, argv, &o);
  if (rc == CLI_HELP) return CLI_OK;
  if (rc != CLI_OK) return rc;
  rc = read_specs(&o, &specs);
  free(o.files);
  ixj_context *ctx = NULL;
  ixj_error err;
  ixj_context_options opts = {.num_threads = 1, .disk_cache = 1, .cache_dir = o.dir, .log = cli_log,
                              .remote_publish = o.remote};
  if (rc == CLI_OK && ixj_context_create(&opts, &ctx, &err) != IXJ_OK) rc = cli_error(CLI_FAILED, "%s", err.message);
  if (rc == CLI_OK && o.remote && !ixj_context_remote_cache(ctx))
    rc = cli_error(CLI_FAILED, "--remote: no remote store in use (set IXJIT_REMOTE_CACHE; a warning above says why)");
  if (rc == CLI_OK && !ixj_context_cache_dir(ctx)) rc = cli_error(CLI_FAILED, "no usable cache directory");
  int count = specs.count * o.num_targets;
  warm_item *items = rc == CLI_OK ? calloc((size_t)(count ? count : 1), sizeof *items) : NULL;
  if (rc == CLI_OK && !items) rc = cli_error(CLI_FAILED, "out of memory");
  if (rc == CLI_OK) {
    for (int k = 0; k < count; k++)
      items[k] = (warm_item){&specs.items[k / o.num_targets], &o.targets[k % o.num_targets], 0, IXJ_OK, ""};
    run_workers(ctx, items, count, o.jobs);
    const char *dir = ixj_context_cache_dir(ctx);
    if (o.json) rc = report_json(items, count, &specs, &o, dir);
    else report_text(items, count, &specs, &o, dir);
    if (rc == CLI_OK) rc = tally_items(items, count).failed || specs.bad ? CLI_FAILED : CLI_OK;
  }
  free(items);
  ixj_context_destroy(ctx);
  spec_list_free(&specs);
  return rc;
}

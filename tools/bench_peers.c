/* Peers: other libraries doing the same case on the same shapes and bytes,
 * each in its own runner process (bench/peers/) that speaks a line protocol
 * on its standard input and output:
 *
 *   runner: ready VERSION THREADS          THREADS "any", or "1" for a single-threaded library
 *        or unavailable REASON            (then it exits)
 *   bench:  case OP ELEM AXIS NSRC
 *           operand BYTES OFFSET RANK SHAPE... STRIDES...   destination, then each source,
 *                                                           in elements, logical order
 *           value HEX                     fill only
 *           go
 *   runner: ok | cannot REASON
 *   bench:  run THREADS ITERATIONS  ->  runner: time SECONDS | error REASON
 *   bench:  end  ->  runner: ok
 *
 * A process keeps the peer's thread pools away from ixjit's address space,
 * and OMP_WAIT_POLICY=passive keeps its idle threads from spinning on the
 * cores while ixjit is being measured. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#ifndef IXJIT_SOURCE_DIR
#define IXJIT_SOURCE_DIR "."
#endif

typedef struct peer {
  bench_peer_info info;
  pid_t pid;
  FILE *to, *from;
  bool single_threaded;
  bool prepared;
  int threads_seen[BENCH_MAX_THREADS], num_threads_seen;
} peer;

struct bench_peers {
  int count;
  peer p[4];
};

static void mark_gone(peer *q, const char *why) {
  q->info.available = false;
  snprintf(q->info.note, sizeof q->info.note, "%.*s", (int)sizeof q->info.note - 1, why); /* a note: cut to fit */
  if (q->to) fclose(q->to);
  if (q->from) fclose(q->from);
  q->to = q->from = NULL;
  if (q->pid > 0) {
    kill(q->pid, SIGTERM);
    waitpid(q->pid, NULL, 0);
  }
  q->pid = 0;
}

static bool read_line(peer *q, char *buf, size_t size) {
  if (!q->from || !fgets(buf, (int)size, q->from)) {
    mark_gone(q, "the runner exited");
    return false;
  }
  buf[strcspn(buf, "\r\n")] = '\0';
  return true;
}

static bool spawn(peer *q, char *const argv[]) {
  int in[2], out[2];
  if (pipe(in) || pipe(out)) {
    snprintf(q->info.note, sizeof q->info.note, "pipe: %s", strerror(errno));
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(q->info.note, sizeof q->info.note, "fork: %s", strerror(errno));
    return false;
  }
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    setenv("OMP_WAIT_POLICY", "passive", 1);
    setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
    execvp(argv[0], argv);
    printf("unavailable cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  fcntl(in[1], F_SETFD, FD_CLOEXEC);
  fcntl(out[0], F_SETFD, FD_CLOEXEC);
  q->pid = pid;
  q->to = fdopen(in[1], "w");
  q->from = fdopen(out[0], "r");
  char line[512];
  if (!read_line(q, line, sizeof line)) return false;
  if (!strncmp(line, "ready ", 6)) {
    char version[64] = "", threads[16] = "";
    sscanf(line + 6, "%63s %15s", version, threads);
    snprintf(q->info.version, sizeof q->info.version, "%s", version);
    q->single_threaded = !strcmp(threads, "1");
    q->info.available = true;
    return true;
  }
  mark_gone(q, !strncmp(line, "unavailable ", 12) ? line + 12 : line);
  return false;
}

/* The interpreter for a Python peer: IXJIT_BENCH_PYTHON_NUMPY (or _TORCH),
 * else IXJIT_BENCH_PYTHON, else Debian's /usr/bin/python3 (where
 * python3-numpy is), else python3 on the PATH. */
static const char *python(const char *peer_name) {
  const char *p = getenv(!strcmp(peer_name, "torch") ? "IXJIT_BENCH_PYTHON_TORCH" : "IXJIT_BENCH_PYTHON_NUMPY");
  if (p && *p) return p;
  p = getenv("IXJIT_BENCH_PYTHON");
  if (p && *p) return p;
  return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

static void start_one(bench_peers *ps, const char *name, const char *self_exe) {
  peer *q = &ps->p[ps->count++];
  memset(q, 0, sizeof *q);
  snprintf(q->info.name, sizeof q->info.name, "%s", name);
  char path[4096];
  if (!strcmp(name, "onednn")) {
    /* built beside the ixjit binary when libdnnl-dev was found at configure time */
    const char *slash = strrchr(self_exe, '/');
    int dir = slash ? (int)(slash - self_exe) : 1;
    snprintf(path, sizeof path, "%.*s/ixjit-bench-onednn", dir, slash ? self_exe : ".");
    if (access(path, X_OK) != 0) {
      snprintf(q->info.note, sizeof q->info.note, "not built: libdnnl-dev was not found when ixjit was configured");
      return;
    }
    char *argv[] = {path, NULL};
    spawn(q, argv);
    return;
  }
  const char *dir = getenv("IXJIT_BENCH_PEERS_DIR");
  snprintf(path, sizeof path, "%s/py_runner.py", dir && *dir ? dir : IXJIT_SOURCE_DIR "/bench/peers");
  char *argv[] = {(char *)python(name), path, (char *)name, NULL};
  spawn(q, argv);
}

bench_peers *bench_peers_start(const char *list, const char *self_exe) {
  bench_peers *ps = calloc(1, sizeof *ps);
  if (!ps) return NULL;
  signal(SIGPIPE, SIG_IGN); /* a runner that dies shows as EOF, not as our death */
  if (!strcmp(list, "none")) return ps;
  const char *names[] = {"numpy", "torch", "onednn"};
  for (int k = 0; k < 3; k++) {
    bool wanted = !strcmp(list, "all");
    for (const char *s = list; !wanted && (s = strstr(s, names[k])); s++) {
      size_t n = strlen(names[k]);
      wanted = (s == list || s[-1] == ',') && (s[n] == ',' || s[n] == '\0');
    }
    if (wanted) start_one(ps, names[k], self_exe);
  }
  return ps;
}

int bench_peers_count(const bench_peers *p) { return p ? p->count : 0; }
const bench_peer_info *bench_peers_info(const bench_peers *p, int k) { return &p->p[k].info; }

bool bench_peer_threads_ok(const bench_peers *p, int k, int threads) {
  return p->p[k].info.available && (!p->p[k].single_threaded || threads == 1);
}

/* A single LMAD without rotation is a strided view, which every peer has. */
static bool plain_view(const ixj_ixfun *f, const char *what, char *msg, size_t msg_size) {
  if (ixj_ixfun_num_lmads(f) != 1) {
    snprintf(msg, msg_size, "cannot express %s: a chain (a reshape of a non-contiguous view) is not a strided view", what);
    return false;
  }
  const ixj_lmad *l = ixj_ixfun_lmad(f, 0);
  for (int k = 0; k < l->rank; k++)
    if (l->rotate[k]) {
      snprintf(msg, msg_size, "cannot express %s: a rotation (roll) is not a strided view", what);
      return false;
    }
  return true;
}

static void send_operand(FILE *to, const ixj_operand *o) {
  const ixj_lmad *l = ixj_ixfun_lmad(o->ixfun, 0);
  fprintf(to, "operand %zu %lld %d", o->size_bytes, (long long)l->offset, l->rank);
  for (int k = 0; k < l->rank; k++) fprintf(to, " %lld", (long long)l->shape[l->perm[k]]);
  for (int k = 0; k < l->rank; k++) fprintf(to, " %lld", (long long)l->stride[l->perm[k]]);
  fputc('\n', to);
}

bool bench_peer_prepare(bench_peers *p, int k, const bench_case *c, const ixj_operand *dst, int num_srcs,
                        const ixj_operand *srcs, const void *value, char *msg, size_t msg_size) {
  peer *q = &p->p[k];
  q->prepared = false;
  if (!q->info.available) {
    snprintf(msg, msg_size, "%s", q->info.note);
    return false;
  }
  if (!plain_view(dst->ixfun, "the destination", msg, msg_size)) return false;
  for (int s = 0; s < num_srcs; s++) {
    char what[32];
    snprintf(what, sizeof what, num_srcs > 1 ? "source %d" : "the source", s + 1);
    if (!plain_view(srcs[s].ixfun, what, msg, msg_size)) return false;
  }
  const char *op = c->op == IXJ_OP_COPY ? "copy" : c->op == IXJ_OP_FILL ? "fill" : "cat";
  fprintf(q->to, "case %s %d %d %d\n", op, c->elem_size, c->axis, num_srcs);
  send_operand(q->to, dst);
  for (int s = 0; s < num_srcs; s++) send_operand(q->to, &srcs[s]);
  if (c->op == IXJ_OP_FILL) {
    fputs("value ", q->to);
    for (int b = 0; b < c->elem_size; b++) fprintf(q->to, "%02x", ((const unsigned char *)value)[b]);
    fputc('\n', q->to);
  }
  fputs("go\n", q->to);
  fflush(q->to);
  char line[512];
  if (!read_line(q, line, sizeof line)) {
    snprintf(msg, msg_size, "%s", q->info.note);
    return false;
  }
  if (!strcmp(line, "ok")) {
    q->prepared = true;
    return true;
  }
  snprintf(msg, msg_size, "%s", !strncmp(line, "cannot ", 7) ? line + 7 : line);
  return false;
}

double bench_peer_run(bench_peers *p, int k, int threads, int64_t iterations, char *msg, size_t msg_size) {
  peer *q = &p->p[k];
  if (!q->prepared || !q->to) {
    snprintf(msg, msg_size, "%s", q->info.available ? "not prepared" : q->info.note);
    return -1;
  }
  fprintf(q->to, "run %d %lld\n", threads, (long long)iterations);
  fflush(q->to);
  char line[512];
  if (!read_line(q, line, sizeof line)) {
    snprintf(msg, msg_size, "%s", q->info.note);
    return -1;
  }
  double s;
  if (sscanf(line, "time %lf", &s) == 1 && s >= 0) return s;
  snprintf(msg, msg_size, "%s", !strncmp(line, "error ", 6) ? line + 6 : line);
  return -1;
}

void bench_peer_release(bench_peers *p, int k) {
  peer *q = &p->p[k];
  if (!q->prepared || !q->to) return;
  q->prepared = false;
  fputs("end\n", q->to);
  fflush(q->to);
  char line[64];
  read_line(q, line, sizeof line);
}

void bench_peers_note_threads(bench_peers *p, int k, int threads) {
  peer *q = &p->p[k];
  for (int s = 0; s < q->num_threads_seen; s++)
    if (q->threads_seen[s] == threads) return;
  if (q->num_threads_seen == BENCH_MAX_THREADS) return;
  q->threads_seen[q->num_threads_seen++] = threads;
  size_t n = 0;
  for (int s = 0; s < q->num_threads_seen && n < sizeof q->info.threads; s++)
    n += (size_t)snprintf(q->info.threads + n, sizeof q->info.threads - n, s ? ",%d" : "%d", q->threads_seen[s]);
}

void bench_peers_stop(bench_peers *p) {
  if (!p) return;
  for (int k = 0; k < p->count; k++) {
    peer *q = &p->p[k];
    if (q->to) {
      fputs("quit\n", q->to);
      fflush(q->to);
      fclose(q->to);
      q->to = NULL;
    }
    if (q->from) fclose(q->from);
    q->from = NULL;
    if (q->pid > 0) waitpid(q->pid, NULL, 0);
    q->pid = 0;
  }
  free(p);
}

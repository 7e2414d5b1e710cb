/* One case of the bench: its buffers, then every method at every thread
 * count, repetitions interleaved (rep 1 of every method, then rep 2, ...), so
 * a change in the machine's state during the run touches them all alike.
 *
 * A method's first call is a warm-up (for ixjit: the compile, whose time is
 * recorded and never enters a repetition). Each repetition repeats the call
 * until it has run for at least min_rep_ms, so tiny cases are timed over
 * many calls; the time per call is what is recorded. ixjit is timed around
 * the whole public call (checks, plan, cache lookup, dispatch): what a
 * caller pays. Peers time themselves inside their runner process. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "timing.h"

typedef struct per_threads {
  int threads;
  ixj_context *ctx;
  bench_team *team;
} per_threads;

static per_threads pool[BENCH_MAX_THREADS * 2];
static int pool_size;

static per_threads *for_threads(int threads, char *msg, size_t msg_size) {
  for (int k = 0; k < pool_size; k++)
    if (pool[k].threads == threads) return &pool[k];
  if (pool_size == (int)(sizeof pool / sizeof *pool)) {
    snprintf(msg, msg_size, "too many distinct thread counts");
    return NULL;
  }
  per_threads *p = &pool[pool_size];
  ixj_error err;
  /* No disk cache: every compile is a real compile, and the user's cache is left alone. */
  ixj_context_options o = {.num_threads = threads, .disk_cache = -1, .log = cli_log};
  if (ixj_context_create(&o, &p->ctx, &err) != IXJ_OK) {
    snprintf(msg, msg_size, "ixjit context with %d threads: %s", threads, err.message);
    return NULL;
  }
  p->team = bench_team_create(threads);
  if (!p->team) {
    ixj_context_destroy(p->ctx);
    snprintf(msg, msg_size, "cannot start %d threads", threads);
    return NULL;
  }
  p->threads = threads;
  pool_size++;
  return p;
}

void bench_measure_finish(void) {
  for (int k = 0; k < pool_size; k++) {
    ixj_context_destroy(pool[k].ctx);
    bench_team_destroy(pool[k].team);
  }
  pool_size = 0;
}

double bench_case_bytes(const bench_case *c, const ixj_ixfun *dst) {
  double out = (double)ixj_ixfun_num_points(dst) * c->elem_size;
  return c->op == IXJ_OP_FILL ? out : 2 * out;
}

typedef enum kind { M_IXJIT, M_LIBC, M_NT, M_GENERIC, M_PEER } kind;

typedef struct slot {
  kind kind;
  int peer;
  per_threads *pt;
  int result;          /* index into run->results (which may move as it grows) */
  int64_t iterations;
} slot;

typedef struct state {
  const bench_case *c;
  ixj_operand dst, src[BENCH_MAX_SRCS];
  void *ceil_src, *ceil_dst;
  size_t out_bytes;
  unsigned char value[16];
  bench_generic *generic;
  bench_peers *peers;
} state;

static bool call_ixjit(state *s, per_threads *pt, ixj_call_info *info, char *msg, size_t msg_size) {
  ixj_error err;
  const bench_case *c = s->c;
  size_t e = (size_t)c->elem_size;
  ixj_status st = c->op == IXJ_OP_COPY ? ixj_copy(pt->ctx, &s->dst, &s->src[0], e, info, &err)
                  : c->op == IXJ_OP_FILL ? ixj_fill(pt->ctx, &s->dst, s->value, e, info, &err)
                                         : ixj_cat(pt->ctx, &s->dst, c->axis, c->num_srcs, s->src, e, info, &err);
  if (st != IXJ_OK) snprintf(msg, msg_size, "ixjit: %s", err.message);
  return st == IXJ_OK;
}

/* Seconds for `iterations` calls, or < 0 (message in msg). */
static double run_slot(state *s, slot *sl, int64_t iterations, char *msg, size_t msg_size) {
  const bench_case *c = s->c;
  if (sl->kind == M_PEER) return bench_peer_run(s->peers, sl->peer, sl->pt->threads, iterations, msg, msg_size);
  double t0 = now_ms();
  for (int64_t k = 0; k < iterations; k++) {
    switch (sl->kind) {
    case M_IXJIT:
      if (!call_ixjit(s, sl->pt, NULL, msg, msg_size)) return -1;
      break;
    case M_LIBC:
      if (c->op == IXJ_OP_FILL) bench_memset(sl->pt->team, s->ceil_dst, s->value, c->elem_size, s->out_bytes);
      else bench_memcpy(sl->pt->team, s->ceil_dst, s->ceil_src, s->out_bytes);
      break;
    case M_NT:
      if (c->op == IXJ_OP_FILL) bench_nt_fill(sl->pt->team, s->ceil_dst, s->value, c->elem_size, s->out_bytes);
      else bench_nt_copy(sl->pt->team, s->ceil_dst, s->ceil_src, s->out_bytes);
      break;
    case M_GENERIC:
      bench_generic_run(s->generic, sl->pt->team);
      break;
    case M_PEER:
      break;
    }
  }
  return (now_ms() - t0) * 1e-3;
}

static const char *method_name(const state *s, const slot *sl) {
  bool fill = s->c->op == IXJ_OP_FILL;
  switch (sl->kind) {
  case M_IXJIT: return "ixjit";
  case M_LIBC: return fill ? "memset" : "memcpy";
  case M_NT: return fill ? "nt_fill" : "nt_copy";
  case M_GENERIC: return "generic";
  case M_PEER: return bench_peers_info(s->peers, sl->peer)->name;
  }
  return "?";
}

static bench_result *new_result(bench_run *run, const state *s, const slot *sl, double bytes) {
  bench_result *r = bench_run_add(run);
  if (!r) return NULL;
  snprintf(r->case_name, sizeof r->case_name, "%s", s->c->name);
  snprintf(r->method, sizeof r->method, "%s", method_name(s, sl));
  r->threads = sl->pt->threads;
  r->bytes = bytes;
  r->compile_ms = -1;
  snprintf(r->unit, sizeof r->unit, "ms");
  bench_result_name(r);
  return r;
}

static void free_state(state *s) {
  free(s->dst.data);
  for (int q = 0; q < s->c->num_srcs; q++) {
    free(s->src[q].data);
    ixj_ixfun_free((ixj_ixfun *)s->src[q].ixfun);
  }
  ixj_ixfun_free((ixj_ixfun *)s->dst.ixfun);
  free(s->ceil_src);
  free(s->ceil_dst);
  bench_generic_destroy(s->generic);
}

static bool setup(state *s, const bench_options *o, char *msg, size_t msg_size) {
  const bench_case *c = s->c;
  ixj_error err;
  ixj_ixfun *f;
  size_t bytes;
  if (ixj_ixfun_parse(c->dst, &f, &err) != IXJ_OK) {
    snprintf(msg, msg_size, "dst: %s", err.message);
    return false;
  }
  s->dst.ixfun = f;
  if (ixj_ixfun_required_bytes(f, (size_t)c->elem_size, &bytes, &err) != IXJ_OK) {
    snprintf(msg, msg_size, "dst: %s", err.message);
    return false;
  }
  s->dst.size_bytes = bytes;
  if (!(s->dst.data = bench_buffer(bytes, 0, o->huge_pages))) goto oom;
  for (int q = 0; q < c->num_srcs; q++) {
    if (ixj_ixfun_parse(c->src[q], &f, &err) != IXJ_OK) {
      snprintf(msg, msg_size, "src %d: %s", q + 1, err.message);
      return false;
    }
    s->src[q].ixfun = f;
    if (ixj_ixfun_required_bytes(f, (size_t)c->elem_size, &bytes, &err) != IXJ_OK) {
      snprintf(msg, msg_size, "src %d: %s", q + 1, err.message);
      return false;
    }
    s->src[q].size_bytes = bytes;
    if (!(s->src[q].data = bench_buffer(bytes, 1 + q, o->huge_pages))) goto oom;
  }
  for (int b = 0; b < c->elem_size; b++) s->value[b] = (unsigned char)(0x11 * (b + 1));
  s->out_bytes = (size_t)ixj_ixfun_num_points(s->dst.ixfun) * (size_t)c->elem_size;
  if (!(s->ceil_dst = bench_buffer(s->out_bytes, 0, o->huge_pages))) goto oom;
  if (c->op != IXJ_OP_FILL && !(s->ceil_src = bench_buffer(s->out_bytes, 1, o->huge_pages))) goto oom;
  s->generic = bench_generic_create(c->op, c->elem_size, c->axis, &s->dst, c->num_srcs, s->src, s->value);
  if (!s->generic) goto oom;
  return true;
oom:
  snprintf(msg, msg_size, "out of memory");
  return false;
}

/* ixjit's destination against the generic kernel's, once per case: a bench
 * that times wrong results would mislead. */
static bool verify(state *s, per_threads *pt, char *msg, size_t msg_size) {
  size_t n = s->dst.size_bytes;
  unsigned char *want = malloc(n ? n : 1);
  if (!want) {
    snprintf(msg, msg_size, "out of memory");
    return false;
  }
  memset(s->dst.data, 0, n);
  bench_generic_run(s->generic, pt->team);
  memcpy(want, s->dst.data, n);
  memset(s->dst.data, 0, n);
  ixj_call_info info;
  bool ok = call_ixjit(s, pt, &info, msg, msg_size);
  if (ok) {
    size_t k = 0;
    while (k < n && ((unsigned char *)s->dst.data)[k] == want[k]) k++;
    if (k < n) {
      snprintf(msg, msg_size, "ixjit's result differs from the generic kernel's at destination byte %zu", k);
      ok = false;
    }
  }
  free(want);
  return ok;
}

bool bench_measure_case(const bench_case *c, const bench_options *o, bench_run *run, char *msg, size_t msg_size) {
  state s = {.c = c, .peers = o->peers};
  bool ok = false;
  int nthreads = c->num_threads ? c->num_threads : o->num_threads;
  const int *threads = c->num_threads ? c->threads : o->threads;
  int npeers = bench_peers_count(o->peers);
  slot *slots = calloc((size_t)nthreads * (size_t)(4 + npeers), sizeof *slots);
  bool *prepared = calloc((size_t)npeers + 1, sizeof *prepared);
  int n = 0;
  if (!slots || !prepared) {
    snprintf(msg, msg_size, "out of memory");
    goto done;
  }
  if (!setup(&s, o, msg, msg_size)) goto done;
  double bytes = bench_case_bytes(c, s.dst.ixfun);
  /* Peers are set up once per case; one that cannot express it is recorded once, with why. */
  for (int k = 0; k < npeers; k++) {
    char why[200];
    prepared[k] = bench_peer_prepare(o->peers, k, c, &s.dst, c->num_srcs, s.src, s.value, why, sizeof why);
    if (!prepared[k]) {
      per_threads *pt = for_threads(threads[0], msg, msg_size);
      if (!pt) goto done;
      slot tmp = {.kind = M_PEER, .peer = k, .pt = pt};
      bench_result *r = new_result(run, &s, &tmp, bytes);
      if (!r) goto oom;
      r->threads = bench_peers_info(o->peers, k)->available ? r->threads : 1;
      bench_result_name(r);
      r->skipped = true;
      snprintf(r->note, sizeof r->note, "%s", why);
    }
  }
  for (int t = 0; t < nthreads; t++) {
    per_threads *pt = for_threads(threads[t], msg, msg_size);
    if (!pt) goto done;
    for (int k = M_IXJIT; k <= M_GENERIC; k++) slots[n++] = (slot){.kind = (kind)k, .pt = pt};
    for (int k = 0; k < npeers; k++)
      if (prepared[k] && bench_peer_threads_ok(o->peers, k, threads[t])) {
        slots[n++] = (slot){.kind = M_PEER, .peer = k, .pt = pt};
        bench_peers_note_threads(o->peers, k, threads[t]);
      }
  }
  for (int k = 0; k < n; k++) {
    if (!new_result(run, &s, &slots[k], bytes)) goto oom;
    slots[k].result = run->count - 1;
  }
  /* Warm-up and calibration. */
  for (int k = 0; k < n; k++) {
    slot *sl = &slots[k];
    bench_result *r = &run->results[sl->result];
    double first;
    if (sl->kind == M_IXJIT) {
      ixj_call_info info;
      if (!call_ixjit(&s, sl->pt, &info, msg, msg_size)) goto done;
      r->compile_ms = info.compile_ms;
      snprintf(r->strategy, sizeof r->strategy, "%s", info.strategy ? info.strategy : "");
      first = run_slot(&s, sl, 1, msg, msg_size);
    } else {
      first = run_slot(&s, sl, 1, r->note, sizeof r->note);
    }
    if (first < 0) {
      if (sl->kind == M_IXJIT) goto done;
      r->skipped = true;
      continue;
    }
    double want = o->min_rep_ms * 1e-3;
    sl->iterations = first >= want ? 1 : (int64_t)ceil(want / (first > 1e-7 ? first : 1e-7));
    if (sl->iterations > 10000000) sl->iterations = 10000000;
    r->iterations = sl->iterations;
  }
  if (!verify(&s, slots[0].pt, msg, msg_size)) goto done; /* after the warm-up: no compile in it */
  /* The repetitions, interleaved. */
  for (int rep = 0; rep < o->reps; rep++)
    for (int k = 0; k < n; k++) {
      slot *sl = &slots[k];
      bench_result *r = &run->results[sl->result];
      if (r->skipped) continue;
      char *note = sl->kind == M_IXJIT ? msg : r->note;
      size_t note_size = sl->kind == M_IXJIT ? msg_size : sizeof r->note;
      double t = run_slot(&s, sl, sl->iterations, note, note_size);
      if (t < 0) {
        if (sl->kind == M_IXJIT) goto done;
        r->skipped = true;
        continue;
      }
      r->sec[r->reps++] = t / (double)sl->iterations;
    }
  ok = true;
  goto done;
oom:
  snprintf(msg, msg_size, "out of memory");
done:
  for (int k = 0; k < npeers; k++)
    if (prepared && prepared[k]) bench_peer_release(o->peers, k);
  free(slots);
  free(prepared);
  free_state(&s);
  return ok;
}

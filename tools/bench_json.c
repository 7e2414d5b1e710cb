/* Bench results as JSON in Google Benchmark's layout, so its tools (e.g.
 * compare.py) read them: "context" holds the machine and build, "benchmarks"
 * one entry per repetition (run_type "iteration", real_time per call in
 * time_unit) plus the median, min and max aggregates of each run. Methods
 * that did not run are listed in context.skipped with why (error_message).
 * ixjit's own fields (case, method, bytes, compile_ms, strategy, the peers)
 * are extra keys, which those tools ignore. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench.h"

static double unit_scale(const char *unit) {
  return !strcmp(unit, "ns") ? 1e9 : !strcmp(unit, "us") ? 1e6 : !strcmp(unit, "s") ? 1 : 1e3;
}

static cJSON *context_json(const bench_meta *m) {
  cJSON *c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "date", m->date);
  cJSON_AddStringToObject(c, "host_name", m->host);
  cJSON_AddStringToObject(c, "executable", "ixjit bench");
  cJSON_AddNumberToObject(c, "num_cpus", m->num_cpus);
  cJSON_AddBoolToObject(c, "cpu_scaling_enabled", false);
  cJSON *caches = cJSON_AddArrayToObject(c, "caches");
  cJSON *llc = cJSON_CreateObject();
  cJSON_AddStringToObject(llc, "type", "Unified");
  cJSON_AddNumberToObject(llc, "level", 3);
  cJSON_AddNumberToObject(llc, "size", m->llc_bytes);
  cJSON_AddNumberToObject(llc, "num_sharing", m->num_cpus);
  cJSON_AddItemToArray(caches, llc);
  cJSON_AddItemToObject(c, "load_avg", cJSON_CreateDoubleArray(m->load_avg, 3));
  cJSON_AddItemToObject(c, "load_avg_end", cJSON_CreateDoubleArray(m->load_avg_end, 3));
  cJSON_AddStringToObject(c, "library_build_type", "release");
  cJSON_AddStringToObject(c, "ixjit_version", m->ixjit_version);
  cJSON_AddStringToObject(c, "commit", m->commit);
  cJSON_AddStringToObject(c, "llvm_version", m->llvm_version);
  cJSON_AddStringToObject(c, "nvrtc_version", m->nvrtc_version);
  cJSON_AddStringToObject(c, "cpu_model", m->cpu_model);
  cJSON_AddStringToObject(c, "cpu_features", m->cpu_features);
  cJSON_AddStringToObject(c, "target", m->target);
  cJSON_AddNumberToObject(c, "llc_bytes", m->llc_bytes);
  cJSON_AddStringToObject(c, "threads", m->threads);
  cJSON_AddStringToObject(c, "pages", m->pages);
  cJSON_AddNumberToObject(c, "reps", m->reps);
  cJSON_AddNumberToObject(c, "size_scale", m->size_scale);
  cJSON_AddStringToObject(c, "suite", m->suite);
  cJSON_AddStringToObject(c, "command", m->command);
  cJSON_AddStringToObject(c, "gpu", m->gpu);
  cJSON *peers = cJSON_AddArrayToObject(c, "peers");
  for (int k = 0; k < m->num_peers; k++) {
    const bench_peer_info *p = &m->peers[k];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", p->name);
    cJSON_AddBoolToObject(o, "available", p->available);
    cJSON_AddStringToObject(o, "version", p->version);
    cJSON_AddStringToObject(o, "threads", p->threads);
    cJSON_AddStringToObject(o, "note", p->note);
    cJSON_AddItemToArray(peers, o);
  }
  return c;
}

static cJSON *entry(const bench_result *r, int family) {
  cJSON *b = cJSON_CreateObject();
  cJSON_AddStringToObject(b, "name", r->run_name);
  cJSON_AddNumberToObject(b, "family_index", family);
  cJSON_AddNumberToObject(b, "per_family_instance_index", 0);
  cJSON_AddStringToObject(b, "run_name", r->run_name);
  cJSON_AddStringToObject(b, "run_type", "iteration");
  cJSON_AddNumberToObject(b, "repetitions", r->reps);
  cJSON_AddNumberToObject(b, "threads", r->threads);
  cJSON_AddStringToObject(b, "case", r->case_name);
  cJSON_AddStringToObject(b, "method", r->method);
  cJSON_AddNumberToObject(b, "bytes", r->bytes);
  if (r->compile_ms >= 0) cJSON_AddNumberToObject(b, "compile_ms", r->compile_ms);
  if (r->strategy[0]) cJSON_AddStringToObject(b, "strategy", r->strategy);
  return b;
}

static void add_time(cJSON *b, const bench_result *r, double sec) {
  double s = unit_scale(r->unit);
  cJSON_AddNumberToObject(b, "real_time", sec * s);
  cJSON_AddNumberToObject(b, "cpu_time", sec * s); /* wall time: the bench measures no CPU time */
  cJSON_AddStringToObject(b, "time_unit", r->unit);
  if (r->bytes > 0 && sec > 0) cJSON_AddNumberToObject(b, "bytes_per_second", r->bytes / sec);
}

bool bench_json_write(const bench_run *run, const char *path, char *msg, size_t msg_size) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddItemToObject(root, "context", context_json(&run->meta));
  cJSON *list = cJSON_AddArrayToObject(root, "benchmarks");
  cJSON *skipped = cJSON_AddArrayToObject(cJSON_GetObjectItemCaseSensitive(root, "context"), "skipped");
  for (int k = 0; k < run->count; k++) {
    const bench_result *r = &run->results[k];
    if (r->skipped || r->reps == 0) {
      /* Not a measurement: kept in the context, where Google Benchmark's tools
       * (which want a real_time in every entry) do not look. */
      cJSON *b = entry(r, k);
      cJSON_AddStringToObject(b, "error_message", r->note[0] ? r->note : "did not run");
      cJSON_AddStringToObject(b, "time_unit", r->unit);
      cJSON_AddItemToArray(skipped, b);
      continue;
    }
    for (int rep = 0; rep < r->reps; rep++) {
      cJSON *b = entry(r, k);
      cJSON_AddNumberToObject(b, "repetition_index", rep);
      cJSON_AddNumberToObject(b, "iterations", (double)r->iterations);
      add_time(b, r, r->sec[rep]);
      cJSON_AddItemToArray(list, b);
    }
    const char *names[] = {"median", "min", "max"};
    double values[] = {bench_median(r), bench_min(r), bench_max(r)};
    for (int a = 0; a < 3; a++) {
      cJSON *b = entry(r, k);
      char name[200];
      snprintf(name, sizeof name, "%s_%s", r->run_name, names[a]);
      cJSON_ReplaceItemInObject(b, "name", cJSON_CreateString(name));
      cJSON_ReplaceItemInObject(b, "run_type", cJSON_CreateString("aggregate"));
      cJSON_AddStringToObject(b, "aggregate_name", names[a]);
      cJSON_AddStringToObject(b, "aggregate_unit", "time");
      cJSON_AddNumberToObject(b, "iterations", r->reps);
      add_time(b, r, values[a]);
      cJSON_AddItemToArray(list, b);
    }
  }
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) {
    snprintf(msg, msg_size, "%s: out of memory", path);
    return false;
  }
  FILE *f = fopen(path, "w");
  bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
  if (f && fclose(f) != 0) ok = false;
  if (!ok) snprintf(msg, msg_size, "%s: %s", path, strerror(errno));
  free(text);
  return ok;
}

/* ---- reading ------------------------------------------------------------ */

static const char *str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *key, double fallback) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

#define COPY_STR(dst, o, key) snprintf((dst), sizeof(dst), "%s", str((o), (key)))

static void read_context(const cJSON *c, bench_meta *m) {
  COPY_STR(m->date, c, "date");
  COPY_STR(m->host, c, "host_name");
  COPY_STR(m->commit, c, "commit");
  COPY_STR(m->ixjit_version, c, "ixjit_version");
  COPY_STR(m->llvm_version, c, "llvm_version");
  COPY_STR(m->nvrtc_version, c, "nvrtc_version");
  COPY_STR(m->cpu_model, c, "cpu_model");
  COPY_STR(m->cpu_features, c, "cpu_features");
  COPY_STR(m->target, c, "target");
  COPY_STR(m->suite, c, "suite");
  COPY_STR(m->command, c, "command");
  COPY_STR(m->gpu, c, "gpu");
  COPY_STR(m->threads, c, "threads");
  COPY_STR(m->pages, c, "pages");
  m->num_cpus = (int)num(c, "num_cpus", 0);
  m->llc_bytes = num(c, "llc_bytes", 0);
  m->reps = (int)num(c, "reps", 0);
  m->size_scale = num(c, "size_scale", 0);
  const cJSON *load = cJSON_GetObjectItemCaseSensitive(c, "load_avg");
  const cJSON *load_end = cJSON_GetObjectItemCaseSensitive(c, "load_avg_end");
  for (int k = 0; k < 3; k++) {
    const cJSON *v = cJSON_GetArrayItem(load, k), *w = cJSON_GetArrayItem(load_end, k);
    m->load_avg[k] = cJSON_IsNumber(v) ? v->valuedouble : -1;
    m->load_avg_end[k] = cJSON_IsNumber(w) ? w->valuedouble : -1;
  }
  const cJSON *peers = cJSON_GetObjectItemCaseSensitive(c, "peers"), *p;
  m->num_peers = 0;
  cJSON_ArrayForEach(p, peers) {
    if (m->num_peers == (int)(sizeof m->peers / sizeof *m->peers)) break;
    bench_peer_info *q = &m->peers[m->num_peers++];
    COPY_STR(q->name, p, "name");
    COPY_STR(q->version, p, "version");
    COPY_STR(q->threads, p, "threads");
    COPY_STR(q->note, p, "note");
    q->available = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "available"));
  }
}

/* A result from an entry's own fields; run_name is the key. */
static bench_result *result_for(bench_run *run, const cJSON *b) {
  const char *name = str(b, "run_name");
  if (!name[0]) name = str(b, "name");
  for (int k = run->count - 1; k >= 0; k--)
    if (!strcmp(run->results[k].run_name, name)) return &run->results[k];
  bench_result *r = bench_run_add(run);
  if (!r) return NULL;
  COPY_STR(r->run_name, b, "run_name");
  if (!r->run_name[0]) COPY_STR(r->run_name, b, "name");
  COPY_STR(r->case_name, b, "case");
  COPY_STR(r->method, b, "method");
  COPY_STR(r->strategy, b, "strategy");
  COPY_STR(r->unit, b, "time_unit");
  if (!r->unit[0]) snprintf(r->unit, sizeof r->unit, "ns"); /* Google Benchmark's default */
  r->threads = (int)num(b, "threads", 1);
  r->bytes = num(b, "bytes", 0);
  r->compile_ms = num(b, "compile_ms", -1);
  r->iterations = (int64_t)num(b, "iterations", 1);
  return r;
}

bool bench_json_read(const char *path, bench_run *out, char *msg, size_t msg_size) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(msg, msg_size, "%s: %s", path, strerror(errno));
    return false;
  }
  size_t cap = 1 << 16, n = 0;
  char *text = malloc(cap);
  for (size_t got; text && (got = fread(text + n, 1, cap - n - 1, f)) > 0;) {
    n += got;
    if (n + 1 == cap) {
      char *bigger = realloc(text, cap *= 2);
      if (!bigger) free(text);
      text = bigger;
    }
  }
  fclose(f);
  if (!text) {
    snprintf(msg, msg_size, "%s: out of memory", path);
    return false;
  }
  text[n] = '\0';
  cJSON *root = cJSON_Parse(text);
  if (!root) {
    const char *at = cJSON_GetErrorPtr();
    snprintf(msg, msg_size, "%s: not JSON (near byte %ld)", path, at ? (long)(at - text) : 0L);
    free(text);
    return false;
  }
  free(text);
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
  if (!cJSON_IsArray(list)) {
    snprintf(msg, msg_size, "%s: no \"benchmarks\" array (not a Google Benchmark JSON file)", path);
    cJSON_Delete(root);
    return false;
  }
  const cJSON *context = cJSON_GetObjectItemCaseSensitive(root, "context");
  if (cJSON_IsObject(context)) read_context(context, &out->meta);
  const cJSON *b;
  bool ok = true;
  cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(context, "skipped")) {
    bench_result *r = result_for(out, b);
    if (!r) {
      snprintf(msg, msg_size, "%s: out of memory", path);
      ok = false;
      break;
    }
    r->skipped = true;
    COPY_STR(r->note, b, "error_message");
  }
  cJSON_ArrayForEach(b, list) {
    if (!ok) break;
    const char *type = str(b, "run_type");
    if (type[0] && strcmp(type, "iteration")) continue; /* aggregates are recomputed from the repetitions */
    bench_result *r = result_for(out, b);
    if (!r) {
      snprintf(msg, msg_size, "%s: out of memory", path);
      ok = false;
      break;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "error_occurred"))) {
      r->skipped = true;
      COPY_STR(r->note, b, "error_message");
      continue;
    }
    if (r->reps == BENCH_MAX_REPS) continue;
    double t = num(b, "real_time", -1);
    if (t < 0) {
      snprintf(msg, msg_size, "%s: %s: no real_time", path, r->run_name);
      ok = false;
      break;
    }
    r->sec[r->reps++] = t / unit_scale(r->unit);
  }
  cJSON_Delete(root);
  if (!ok) bench_run_free(out);
  return ok;
}

/* `ixjit cache stats|ls|verify|prune|clear [--cache DIR] [--json]`: the disk
 * cache (and, for stats --remote, the remote store). JSON through cJSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "commands.h"
#include "ixjit/ixjit.h"

#define MAX_TARGETS 32

typedef struct tally {
  const char *action;
  bool json;
  int entries, bad;
  uint64_t bytes;
  struct {
    char name[96];
    int entries;
    uint64_t bytes;
  } targets[MAX_TARGETS];
  int num_targets;
  cJSON *list; /* ls, verify --json: the entries */
} tally;

static const char USAGE[] =
    "usage: ixjit cache stats|ls|verify|prune|clear [--cache DIR] [--json] [--remote]\n"
    "  stats   entries, bytes, hits and misses across processes, entries per target\n"
    "          (--remote: the store of IXJIT_REMOTE_CACHE: entries, bytes, hits and misses of every process)\n"
    "  ls      one line per entry: file, size, last use, signature\n"
    "  verify  checks every entry (and its HMAC with IXJIT_CACHE_KEY_FILE); exit 1 if any is bad\n"
    "  prune   removes bad entries and stale temporary files, then evicts to IXJIT_CACHE_MAX_BYTES\n"
    "  clear   removes every entry\n"
    "  --cache DIR  the directory (default: IXJIT_CACHE_DIR, else $XDG_CACHE_HOME/ixjit, else ~/.cache/ixjit)\n"
    "  --json       machine-readable output (stats, ls, verify)\n";

/* A token of the key's signature line ("target=", ...), shortened. */
static void key_field(const char *key, const char *field, char *out, size_t size) {
  const char *s = key ? strstr(key, field) : NULL;
  snprintf(out, size, "%s", s ? s + strlen(field) : "");
  out[strcspn(out, field[0] == 's' ? "\n" : " \n")] = '\0';
}

static void human(uint64_t bytes, char *out, size_t size) {
  const char *unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, u++;
  if (u == 0) snprintf(out, size, "%llu bytes", (unsigned long long)bytes);
  else snprintf(out, size, "%.1f %s", v, unit[u]);
}

static void count_target(tally *t, const ixj_cache_entry *e) {
  char target[96];
  key_field(e->key, "target=", target, sizeof target);
  for (int k = 0; k < t->num_targets; k++)
    if (!strcmp(t->targets[k].name, target)) {
      t->targets[k].entries++;
      t->targets[k].bytes += e->size;
      return;
    }
  if (t->num_targets == MAX_TARGETS) return;
  snprintf(t->targets[t->num_targets].name, sizeof t->targets[0].name, "%s", target);
  t->targets[t->num_targets].entries = 1;
  t->targets[t->num_targets++].bytes = e->size;
}

static void visit(void *user, const ixj_cache_entry *e) {
  tally *t = user;
  bool ls = !strcmp(t->action, "ls");
  t->entries++;
  t->bytes += e->size;
  t->bad += !e->valid;
  if (e->valid) count_target(t, e);
  char when[32], sig[160];
  time_t m = (time_t)e->mtime;
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&m));
  key_field(e->key, "signature=", sig, sizeof sig);
  if (t->json && t->list && (ls || !e->valid)) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", e->file);
    cJSON_AddNumberToObject(o, "bytes", (double)e->size);
    cJSON_AddNumberToObject(o, "last_use", (double)e->mtime);
    cJSON_AddBoolToObject(o, "valid", e->valid);
    if (e->valid) cJSON_AddStringToObject(o, "signature", sig);
    else cJSON_AddStringToObject(o, "problem", e->problem);
    cJSON_AddItemToArray(t->list, o);
  } else if (!t->json && ls) {
    printf("%s %8llu %s %s\n", e->file, (unsigned long long)e->size, when, e->valid ? sig : e->problem);
  } else if (!t->json && !e->valid) {
    printf("bad: %s: %s\n", e->file, e->problem);
  }
}

static int print_json(cJSON *o) {
  char *s = cJSON_Print(o);
  cJSON_Delete(o);
  if (!s) return cli_error(CLI_FAILED, "out of memory");
  puts(s);
  free(s);
  return CLI_OK;
}

static void percent(uint64_t part, uint64_t whole, char *out, size_t size) {
  if (whole) snprintf(out, size, " (%.1f %%)", 100.0 * (double)part / (double)whole);
  else out[0] = '\0';
}

/* stats: the summary line, then hits and misses (ccache -s style), entries
 * per target, sizes. */
static int print_stats(const char *dir, const tally *t, uint64_t max, bool missing) {
  ixj_cache_counter_values c;
  ixj_error err;
  if (ixj_cache_counters(dir, &c, &err) != IXJ_OK) return cli_error(CLI_FAILED, "%s", err.message);
  uint64_t lookups = c.disk_hits + c.disk_misses;
  uint64_t compiled = c.disk_misses >= c.remote_hits ? c.disk_misses - c.remote_hits : 0;
  if (t->json) {
    cJSON *o = cJSON_CreateObject(), *targets = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "directory", dir);
    cJSON_AddBoolToObject(o, "exists", !missing);
    cJSON_AddNumberToObject(o, "entries", t->entries);
    cJSON_AddNumberToObject(o, "bytes", (double)t->bytes);
    cJSON_AddNumberToObject(o, "limit", (double)max);
    cJSON_AddNumberToObject(o, "bad", t->bad);
    cJSON_AddNumberToObject(o, "memory_hits", (double)c.memory_hits);
    cJSON_AddNumberToObject(o, "disk_hits", (double)c.disk_hits);
    cJSON_AddNumberToObject(o, "disk_misses", (double)c.disk_misses);
    cJSON_AddNumberToObject(o, "remote_hits", (double)c.remote_hits);
    cJSON_AddNumberToObject(o, "remote_misses", (double)c.remote_misses);
    cJSON_AddNumberToObject(o, "compiled", (double)compiled);
    cJSON_AddNumberToObject(o, "refused", (double)c.refused);
    for (int k = 0; k < t->num_targets; k++) {
      cJSON *g = cJSON_CreateObject();
      cJSON_AddNumberToObject(g, "entries", t->targets[k].entries);
      cJSON_AddNumberToObject(g, "bytes", (double)t->targets[k].bytes);
      cJSON_AddItemToObject(targets, t->targets[k].name, g);
    }
    cJSON_AddItemToObject(o, "targets", targets);
    return print_json(o);
  }
  char size[32], limit[32], pct[32];
  human(t->bytes, size, sizeof size);
  human(max, limit, sizeof limit);
  printf("%s: %d entries, %llu bytes (limit %llu), %d bad%s\n", dir, t->entries, (unsigned long long)t->bytes,
         (unsigned long long)max, t->bad, missing ? " (empty: no such directory yet)" : "");
  percent(c.disk_hits, lookups, pct, sizeof pct);
  printf("  disk lookups     %llu\n", (unsigned long long)lookups);
  printf("    hits           %llu%s\n", (unsigned long long)c.disk_hits, pct);
  percent(c.disk_misses, lookups, pct, sizeof pct);
  printf("    misses         %llu%s\n", (unsigned long long)c.disk_misses, pct);
  printf("  remote hits      %llu (misses %llu)\n", (unsigned long long)c.remote_hits, (unsigned long long)c.remote_misses);
  printf("  compiled         %llu\n", (unsigned long long)compiled);
  printf("  memory hits      %llu\n", (unsigned long long)c.memory_hits);
  printf("  refused entries  %llu (not trusted or not authenticated)\n", (unsigned long long)c.refused);
  percent(t->bytes, max, pct, sizeof pct);
  printf("  size             %s of %s%s\n", size, limit, pct);
  for (int k = 0; k < t->num_targets; k++) {
    human(t->targets[k].bytes, size, sizeof size);
    printf("  target %-40s %6d entries, %s\n", t->targets[k].name, t->targets[k].entries, size);
  }
  return CLI_OK;
}

/* stats --remote: what the store holds under the prefix, and its counters. */
static int remote_stats(bool json) {
  const char *url = getenv("IXJIT_REMOTE_CACHE"), *prefix = getenv("IXJIT_REMOTE_PREFIX");
  ixj_remote_stats r;
  ixj_error err;
  if (!url || !*url) return cli_error(CLI_USAGE, "--remote: set IXJIT_REMOTE_CACHE=redis://HOST:PORT[/DB] or unix:///PATH");
  if (ixj_remote_cache_stats(url, prefix, &r, &err) != IXJ_OK) return cli_error(CLI_FAILED, "%s", err.message);
  if (json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "remote", url);
    cJSON_AddStringToObject(o, "prefix", prefix ? prefix : "ixjit:");
    cJSON_AddNumberToObject(o, "entries", (double)r.entries);
    cJSON_AddNumberToObject(o, "bytes", (double)r.bytes);
    cJSON_AddNumberToObject(o, "hits", (double)r.hits);
    cJSON_AddNumberToObject(o, "misses", (double)r.misses);
    return print_json(o);
  }
  char size[32], pct[32];
  human(r.bytes, size, sizeof size);
  percent(r.hits, r.hits + r.misses, pct, sizeof pct);
  printf("%s (prefix %s): %llu entries, %s\n", url, prefix ? prefix : "ixjit:", (unsigned long long)r.entries, size);
  printf("  lookups          %llu\n", (unsigned long long)(r.hits + r.misses));
  printf("    hits           %llu%s\n", (unsigned long long)r.hits, pct);
  percent(r.misses, r.hits + r.misses, pct, sizeof pct);
  printf("    misses         %llu%s\n", (unsigned long long)r.misses, pct);
  return CLI_OK;
}

int cmd_cache(int argc, char **argv) {
  const char *action = argc > 0 ? argv[0] : NULL;
  char dir[4096] = "";
  bool json = false, remote = false;
  if (action && (!strcmp(action, "--help") || !strcmp(action, "-h"))) {
    fputs(USAGE, stdout);
    return CLI_OK;
  }
  for (int k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--cache") && k + 1 < argc) snprintf(dir, sizeof dir, "%s", argv[++k]);
    else if (!strncmp(argv[k], "--cache=", 8)) snprintf(dir, sizeof dir, "%s", argv[k] + 8);
    else if (!strcmp(argv[k], "--json")) json = true;
    else if (!strcmp(argv[k], "--remote")) remote = true;
    else if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
      fputs(USAGE, stdout);
      return CLI_OK;
    } else
      return cli_error(CLI_USAGE, "unknown argument '%s'\n%s", argv[k], USAGE);
  }
  if (!action) return cli_error(CLI_USAGE, "%s", USAGE);
  if (!*dir && !ixj_cache_default_dir(dir, sizeof dir)) return cli_error(CLI_USAGE, "no cache directory: use --cache DIR");
  const char *env = getenv("IXJIT_CACHE_MAX_BYTES");
  uint64_t max = 0;
  ixj_error err;
  if (env && *env && ixj_parse_size(env, 1, UINT64_MAX, &max, &err) != IXJ_OK) /* never a tiny limit read from part of it */
    return cli_error(CLI_USAGE, "IXJIT_CACHE_MAX_BYTES: %s", err.message);
  if (!max) max = IXJ_CACHE_DEFAULT_MAX_BYTES;
  if (remote && strcmp(action, "stats")) return cli_error(CLI_USAGE, "--remote goes with stats only");
  if (remote) return remote_stats(json);
  tally t;
  memset(&t, 0, sizeof t);
  t.action = action;
  t.json = json;
  if (!strcmp(action, "stats") || !strcmp(action, "ls") || !strcmp(action, "verify")) {
    FILE *probe = fopen(dir, "r"); /* a directory that does not exist yet is an empty cache, not an error */
    bool missing = !probe;
    if (probe) fclose(probe);
    if (json && strcmp(action, "stats")) t.list = cJSON_CreateArray();
    if (!missing && ixj_cache_scan(dir, visit, &t, &err) != IXJ_OK) {
      cJSON_Delete(t.list);
      return cli_error(CLI_FAILED, "%s", err.message);
    }
    if (!strcmp(action, "stats")) return print_stats(dir, &t, max, missing);
    int status = !strcmp(action, "verify") && t.bad ? CLI_FAILED : CLI_OK;
    if (json) {
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "directory", dir);
      cJSON_AddNumberToObject(o, "entries", t.entries);
      cJSON_AddNumberToObject(o, "bytes", (double)t.bytes);
      cJSON_AddNumberToObject(o, "bad", t.bad);
      cJSON_AddItemToObject(o, !strcmp(action, "ls") ? "list" : "bad_entries", t.list);
      print_json(o);
      return status;
    }
    printf("%s: %d entries, %llu bytes (limit %llu), %d bad\n", dir, t.entries, (unsigned long long)t.bytes,
           (unsigned long long)max, t.bad);
    return status;
  }
  int removed = 0;
  if (!strcmp(action, "prune")) {
    if (ixj_cache_prune(dir, max, &removed, &err) != IXJ_OK) return cli_error(CLI_FAILED, "%s", err.message);
  } else if (!strcmp(action, "clear")) {
    if (ixj_cache_clear(dir, &removed, &err) != IXJ_OK) return cli_error(CLI_FAILED, "%s", err.message);
  } else {
    return cli_error(CLI_USAGE, "unknown cache action '%s' (stats, ls, verify, prune, clear)", action);
  }
  printf("%s: removed %d files\n", dir, removed);
  return CLI_OK;
}

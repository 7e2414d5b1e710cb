/* `ixjit cache stats|ls|verify|prune|clear [--cache DIR]`: the disk cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "ixjit/ixjit.h"

typedef struct tally {
  bool list;
  int entries, bad;
  uint64_t bytes;
} tally;

/* The signature line of a key, shortened for listing. */
static void signature_of_key(const char *key, char *out, size_t size) {
  const char *s = key ? strstr(key, "signature=") : NULL;
  snprintf(out, size, "%s", s ? s + 10 : "");
  char *nl = strchr(out, '\n');
  if (nl) *nl = '\0';
}

static void visit(void *user, const ixj_cache_entry *e) {
  tally *t = user;
  t->entries++;
  t->bytes += e->size;
  t->bad += !e->valid;
  if (t->list) {
    char when[32], sig[160];
    time_t m = (time_t)e->mtime;
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&m));
    signature_of_key(e->key, sig, sizeof sig);
    printf("%s %8llu %s %s\n", e->file, (unsigned long long)e->size, when, e->valid ? sig : e->problem);
  } else if (!e->valid) {
    printf("bad: %s: %s\n", e->file, e->problem);
  }
}

int cmd_cache(int argc, char **argv) {
  const char *action = argc > 0 ? argv[0] : NULL;
  char dir[4096] = "";
  for (int k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--cache") && k + 1 < argc) snprintf(dir, sizeof dir, "%s", argv[++k]);
    else return cli_error(CLI_USAGE, "unknown argument '%s'", argv[k]);
  }
  if (!action) return cli_error(CLI_USAGE, "usage: ixjit cache stats|ls|verify|prune|clear [--cache DIR]");
  if (!*dir && !ixj_cache_default_dir(dir, sizeof dir)) return cli_error(CLI_USAGE, "no cache directory: use --cache DIR");
  const char *env = getenv("IXJIT_CACHE_MAX_BYTES");
  uint64_t max = 0;
  ixj_error err;
  if (env && *env && ixj_parse_size(env, 1, UINT64_MAX, &max, &err) != IXJ_OK) /* never a tiny limit read from part of it */
    return cli_error(CLI_USAGE, "IXJIT_CACHE_MAX_BYTES: %s", err.message);
  tally t = {false, 0, 0, 0};
  if (!strcmp(action, "stats") || !strcmp(action, "ls") || !strcmp(action, "verify")) {
    t.list = !strcmp(action, "ls");
    if (ixj_cache_scan(dir, visit, &t, &err) != IXJ_OK) return cli_error(CLI_FAILED, "%s", err.message);
    printf("%s: %d entries, %llu bytes (limit %llu), %d bad\n", dir, t.entries, (unsigned long long)t.bytes,
           (unsigned long long)(max ? max : IXJ_CACHE_DEFAULT_MAX_BYTES), t.bad);
    return !strcmp(action, "verify") && t.bad ? CLI_FAILED : CLI_OK;
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

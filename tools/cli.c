/* The CLI's shared helpers (cli.h). */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ixjit/number.h"

int cli_error(int status, const char *fmt, ...) {
  va_list ap;
  fputs("ixjit: error: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return status;
}

void cli_log(void *user, ixj_log_level level, const char *message) {
  (void)user;
  if (level >= IXJ_LOG_WARNING) fprintf(stderr, "ixjit: warning: %s\n", message);
}

/* ---- options ------------------------------------------------------------------ */

bool cli_parser_init(cli_parser *p, const char *name, int argc, char **argv, const char *usage) {
  memset(p, 0, sizeof *p);
  p->name = name;
  p->usage = usage;
  /* getopt_long wants argv[0] to be the program; ours starts at the first argument */
  p->argv = calloc((size_t)argc + 2, sizeof *p->argv);
  if (!p->argv) {
    cli_error(CLI_FAILED, "out of memory");
    return false;
  }
  p->argv[0] = (char *)name;
  for (int k = 0; k < argc; k++) p->argv[k + 1] = argv[k];
  p->argc = argc + 1;
  optind = 0; /* glibc: 0 starts a new scan (and rereads the '+' of shortopts) */
  opterr = 0;
  return true;
}

/* The first line of the usage text: what an error message points to. */
static void usage_hint(const cli_parser *p) {
  const char *nl = p->usage ? strchr(p->usage, '\n') : NULL;
  if (p->usage) fprintf(stderr, "%.*s\n", nl ? (int)(nl - p->usage) : (int)strlen(p->usage), p->usage);
  fprintf(stderr, "(%s --help lists every option)\n", p->name);
}

int cli_next(cli_parser *p, const char *shortopts, const struct option *longopts) {
  if (!p->longopts) { /* the caller's options plus --help */
    int n = 0;
    while (longopts && longopts[n].name) n++;
    p->longopts = calloc((size_t)n + 2, sizeof *p->longopts);
    if (!p->longopts) {
      cli_error(CLI_FAILED, "out of memory");
      return CLI_BAD;
    }
    for (int k = 0; k < n; k++) p->longopts[k] = longopts[k];
    p->longopts[n] = (struct option){"help", no_argument, NULL, CLI_HELP};
  }
  /* ':' first (after a '+'): a missing value is ':', not '?' */
  char shorts[64];
  bool stop = shortopts[0] == '+';
  snprintf(shorts, sizeof shorts, "%s:h%s", stop ? "+" : "", shortopts + stop);
  int opt = getopt_long(p->argc, p->argv, shorts, p->longopts, NULL);
  p->optarg = optarg;
  if (opt == 'h') return CLI_HELP;
  if (opt == ':' || opt == '?') {
    const char *arg = p->argv[optind - 1];
    if (opt == ':') cli_error(CLI_USAGE, "%s: option '%s' needs a value", p->name, arg);
    else if (optopt && !(arg[0] == '-' && arg[1] == '-')) cli_error(CLI_USAGE, "%s: unknown option '-%c'", p->name, optopt);
    else cli_error(CLI_USAGE, "%s: unknown option '%s'", p->name, arg);
    usage_hint(p);
    return CLI_BAD;
  }
  return opt;
}

char **cli_positional(cli_parser *p, int *count) {
  *count = p->argc - optind;
  return p->argv + optind;
}

void cli_parser_free(cli_parser *p) {
  free(p->argv);
  free(p->longopts);
  p->argv = NULL;
  p->longopts = NULL;
}

int cli_usage(const char *usage, FILE *to, int status) {
  fputs(usage, to);
  return status;
}

static bool parsed(ixj_status st, const char *what, const char *text, const ixj_error *err) {
  if (st == IXJ_OK) return true;
  cli_error(CLI_USAGE, "%s '%s': %s", what, text, err->message);
  return false;
}

bool cli_count(const char *what, const char *text, uint64_t min, uint64_t max, uint64_t *out) {
  ixj_error err;
  return parsed(ixj_parse_count(text, min, max, out, &err), what, text, &err);
}

bool cli_size(const char *what, const char *text, uint64_t min, uint64_t max, uint64_t *out) {
  ixj_error err;
  return parsed(ixj_parse_size(text, min, max, out, &err), what, text, &err);
}

/* ---- JSON ---------------------------------------------------------------------- */

int cli_json_print(cJSON *doc, FILE *to) {
  char *text = doc ? cJSON_Print(doc) : NULL;
  cJSON_Delete(doc);
  if (!text) return cli_error(CLI_FAILED, "out of memory writing JSON");
  bool ok = fputs(text, to) >= 0 && fputc('\n', to) != EOF && fflush(to) == 0;
  cJSON_free(text);
  return ok ? CLI_OK : cli_error(CLI_FAILED, "cannot write the JSON output");
}

cJSON *cli_json_add_u64(cJSON *obj, const char *name, uint64_t value) {
  return cJSON_AddNumberToObject(obj, name, (double)value);
}

/* ---- human output ---------------------------------------------------------------- */

void cli_format_ms(double ms, char *out, size_t size) {
  double v = ms;
  const char *unit = "ms";
  if (ms >= 1000) v = ms / 1000, unit = "s";
  else if (ms < 1e-3) v = ms * 1e6, unit = "ns";
  else if (ms < 1) v = ms * 1e3, unit = "µs";
  snprintf(out, size, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, unit);
}

void cli_format_bytes(uint64_t bytes, char *out, size_t size) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, u++;
  if (u == 0) snprintf(out, size, "%llu B", (unsigned long long)bytes);
  else snprintf(out, size, v >= 100 ? "%.0f %s" : "%.1f %s", v, units[u]);
}

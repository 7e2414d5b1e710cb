/* The ixjit command-line tool: a thin layer over the C API.
 *
 *   ixjit eval IXFUN            shape, then every point's flat offset
 *   ixjit show IXFUN            the canonical (Futhark) form on one line
 *   ixjit magic D B [--bits W]  the division sequence chosen for d = D, n <= B
 *   ixjit demo                  the algebra and the division, verified
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

static int usage(FILE *to, int status) {
  fputs("usage: ixjit eval IXFUN\n"
        "       ixjit show IXFUN\n"
        "       ixjit magic D B [--bits 32|64]\n"
        "       ixjit emit copy|fill|cat --target llvm --dst IXFUN [--src IXFUN]... [--axis K] --elem-size E\n"
        "       ixjit run copy|fill|cat --dst IXFUN [--src IXFUN]... [--src-file F]... [--dst-file F]\n"
        "                 [--out F] [--value HEX] [--axis K] --elem-size E [--check]\n"
        "       ixjit warm [--cache DIR] [--target cpu] [-j N] FILE...\n"
        "       ixjit cache stats|ls|verify|prune|clear [--cache DIR]\n"
        "       ixjit demo\n"
        "IXFUN is a pipeline such as 'iota 8 6 | permute 1 0 | slice 1:5 ::2' (see docs/syntax.md);\n"
        "several arguments are joined with spaces; '-' reads one IXFUN per line from standard input.\n",
        to);
  return status;
}

/* The arguments joined by spaces, parsed. */
static int parse_args(int argc, char **argv, ixj_ixfun **f) {
  size_t len = 1;
  if (argc < 1) return cli_error(CLI_USAGE, "missing IXFUN");
  for (int k = 0; k < argc; k++) len += strlen(argv[k]) + 1;
  char *text = malloc(len);
  if (!text) return cli_error(CLI_FAILED, "out of memory");
  text[0] = '\0';
  for (int k = 0; k < argc; k++) {
    if (k) strcat(text, " ");
    strcat(text, argv[k]);
  }
  ixj_error err;
  ixj_status st = ixj_ixfun_parse(text, f, &err);
  free(text);
  if (st != IXJ_OK) return cli_error(st == IXJ_ERR_NO_MEMORY ? CLI_FAILED : CLI_USAGE, "%s", err.message);
  return CLI_OK;
}

/* "shape: ..." and the offsets line. */
static void print_points(const ixj_ixfun *f) {
  int rank = ixj_ixfun_rank(f);
  int64_t shape[IXJ_MAX_RANK], idx[IXJ_MAX_RANK] = {0}, count = ixj_ixfun_num_points(f);
  ixj_ixfun_shape(f, shape);
  printf("shape:");
  for (int k = 0; k < rank; k++) printf(" %lld", (long long)shape[k]);
  putchar('\n');
  for (int64_t n = 0; n < count; n++) {
    int64_t off;
    ixj_ixfun_index(f, rank, idx, &off, NULL); /* idx is always in range */
    printf(n ? " %lld" : "%lld", (long long)off);
    for (int k = rank - 1; k >= 0; k--) { /* row-major odometer */
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  putchar('\n');
}

static int print_canonical(const ixj_ixfun *f) {
  char *s = ixj_ixfun_to_string(f);
  if (!s) return cli_error(CLI_FAILED, "out of memory");
  puts(s);
  ixj_free(s);
  return CLI_OK;
}

/* `eval -` / `show -`: one IXFUN per line of standard input; a bad line prints
 * "error: MESSAGE" in place of its result, and the rest go on. */
static int batch(int (*each)(const ixj_ixfun *)) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, stdin)) >= 0) {
    if (n > 0 && line[n - 1] == '\n') line[n - 1] = '\0';
    ixj_ixfun *f;
    ixj_error err;
    if (ixj_ixfun_parse(line, &f, &err) != IXJ_OK) {
      printf("error: %s\n", err.message);
      continue;
    }
    each(f);
    ixj_ixfun_free(f);
  }
  free(line);
  return ferror(stdout) ? cli_error(CLI_FAILED, "cannot write the output") : CLI_OK;
}

static int eval_one(const ixj_ixfun *f) {
  print_points(f);
  return CLI_OK;
}

static int cmd_eval(int argc, char **argv) {
  if (argc == 1 && !strcmp(argv[0], "-")) return batch(eval_one);
  ixj_ixfun *f;
  int rc = parse_args(argc, argv, &f);
  if (rc != CLI_OK) return rc;
  print_points(f);
  ixj_ixfun_free(f);
  return ferror(stdout) ? cli_error(CLI_FAILED, "cannot write the output") : CLI_OK;
}

static int cmd_show(int argc, char **argv) {
  if (argc == 1 && !strcmp(argv[0], "-")) return batch(print_canonical);
  ixj_ixfun *f;
  int rc = parse_args(argc, argv, &f);
  if (rc != CLI_OK) return rc;
  rc = print_canonical(f);
  ixj_ixfun_free(f);
  return rc;
}

static int parse_u64(const char *s, uint64_t *out) {
  char *end;
  if (!*s || *s == '-' || *s == '+') return 0;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end) return 0;
  *out = v;
  return 1;
}

static int cmd_magic(int argc, char **argv) {
  uint64_t d = 0, bound = 0, bits = 32;
  int positional = 0;
  for (int k = 0; k < argc; k++) {
    if (!strcmp(argv[k], "--bits")) {
      if (k + 1 >= argc || !parse_u64(argv[k + 1], &bits) || (bits != 32 && bits != 64))
        return cli_error(CLI_USAGE, "--bits takes 32 or 64");
      k++;
    } else if (positional == 0 && parse_u64(argv[k], &d)) {
      positional++;
    } else if (positional == 1 && parse_u64(argv[k], &bound)) {
      positional++;
    } else {
      return cli_error(CLI_USAGE, "unexpected argument '%s' (usage: ixjit magic D B [--bits 32|64])", argv[k]);
    }
  }
  if (positional != 2) return cli_error(CLI_USAGE, "usage: ixjit magic D B [--bits 32|64]");
  ixj_divider dv;
  ixj_error err;
  if (ixj_divider_make(d, bound, (unsigned)bits, &dv, &err) != IXJ_OK) return cli_error(CLI_USAGE, "%s", err.message);
  char m[48];
  ixj_divider_multiplier_text(&dv, m);
  printf("d=%llu bound=%llu bits=%u form=%s multiplier=%s shift=%u\n", (unsigned long long)d,
         (unsigned long long)bound, dv.bits, ixj_div_form_name(dv.form), m, dv.shift);
  return CLI_OK;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_error(CLI_USAGE, "missing command");
    return usage(stderr, CLI_USAGE);
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "eval")) return cmd_eval(argc - 2, argv + 2);
  if (!strcmp(cmd, "show")) return cmd_show(argc - 2, argv + 2);
  if (!strcmp(cmd, "magic")) return cmd_magic(argc - 2, argv + 2);
  if (!strcmp(cmd, "demo")) return cmd_demo(argc - 2, argv + 2);
  if (!strcmp(cmd, "emit")) return cmd_emit(argc - 2, argv + 2);
  if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2);
  if (!strcmp(cmd, "warm")) return cmd_warm(argc - 2, argv + 2);
  if (!strcmp(cmd, "cache")) return cmd_cache(argc - 2, argv + 2);
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) return usage(stdout, CLI_OK);
  if (!strcmp(cmd, "--version")) {
    puts("ixjit " IXJIT_VERSION_STRING);
    return CLI_OK;
  }
  cli_error(CLI_USAGE, "unknown command '%s'", cmd);
  return usage(stderr, CLI_USAGE);
}

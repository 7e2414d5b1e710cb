/* `ixjit eval IXFUN` (the shape, then every point's flat offset) and `ixjit
 * show IXFUN` (the canonical Futhark form on one line). Several arguments are
 * joined with spaces; `-` reads one IXFUN per line from standard input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cli.h"
#include "commands.h"
#include "ixjit/ixjit.h"

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

int cmd_eval(int argc, char **argv) {
  if (argc == 1 && !strcmp(argv[0], "-")) return batch(eval_one);
  ixj_ixfun *f;
  int rc = parse_args(argc, argv, &f);
  if (rc != CLI_OK) return rc;
  print_points(f);
  ixj_ixfun_free(f);
  return ferror(stdout) ? cli_error(CLI_FAILED, "cannot write the output") : CLI_OK;
}

int cmd_show(int argc, char **argv) {
  if (argc == 1 && !strcmp(argv[0], "-")) return batch(print_canonical);
  ixj_ixfun *f;
  int rc = parse_args(argc, argv, &f);
  if (rc != CLI_OK) return rc;
  rc = print_canonical(f);
  ixj_ixfun_free(f);
  return rc;
}

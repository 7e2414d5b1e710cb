/* `ixjit eval IXFUN` (the shape, then every point's flat offset) and `ixjit
 * show IXFUN` (the canonical Futhark form on one line). Several arguments are
 * joined with spaces; `-` reads one IXFUN per line from standard input: a bad
 * line is an error on stderr (exit status 2 at the end), or with
 * --inline-errors an "error: MESSAGE" line in its place on stdout, for a
 * script that pairs each input line with its output. Options come first:
 * what follows them is IXFUN text, which may hold negative numbers. */
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

/* `eval -` / `show -`: one IXFUN per line of standard input; the rest go on
 * after a bad line, which is reported on stderr ("line N: ...", exit status
 * 2) or, inline, as "error: MESSAGE" in place of its result (exit status 0). */
static int batch(int (*each)(const ixj_ixfun *), bool inline_errors) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int rc = CLI_OK;
  for (long lineno = 1; (n = getline(&line, &cap, stdin)) >= 0; lineno++) {
    if (n > 0 && line[n - 1] == '\n') line[n - 1] = '\0';
    ixj_ixfun *f;
    ixj_error err;
    ixj_status st = ixj_ixfun_parse(line, &f, &err);
    if (st == IXJ_ERR_NO_MEMORY) {
      rc = cli_error(CLI_FAILED, "out of memory");
      break;
    }
    if (st != IXJ_OK) {
      if (inline_errors) printf("error: %s\n", err.message);
      else rc = cli_error(CLI_USAGE, "line %ld: %s", lineno, err.message);
      continue;
    }
    each(f);
    ixj_ixfun_free(f);
  }
  free(line);
  if (ferror(stdin)) rc = cli_error(CLI_FAILED, "cannot read standard input");
  return ferror(stdout) || fflush(stdout) ? cli_error(CLI_FAILED, "cannot write the output") : rc;
}

static const char eval_usage[] =
    "usage: ixjit eval [--inline-errors] IXFUN...\n"
    "       ixjit eval [--inline-errors] -\n"
    "Prints the shape of the index function IXFUN, then the flat offset of every point in row-major\n"
    "order. Several arguments are joined with spaces (only |, ( and ) need quotes); '-' reads one\n"
    "IXFUN per line of standard input (docs/syntax.md has the syntax).\n"
    "  --inline-errors  with '-': a bad line prints \"error: MESSAGE\" in its place on stdout (exit 0),\n"
    "                   instead of \"ixjit: error: line N: MESSAGE\" on stderr (exit 2)\n"
    "  -h, --help       this text\n"
    "Options come before the IXFUN. Exit status: 0 done, 2 bad IXFUN text or arguments.\n";

static const char show_usage[] =
    "usage: ixjit show [--inline-errors] IXFUN...\n"
    "       ixjit show [--inline-errors] -\n"
    "Prints the index function IXFUN in its canonical (Futhark) form, on one line. Several arguments\n"
    "are joined with spaces; '-' reads one IXFUN per line of standard input.\n"
    "  --inline-errors  with '-': a bad line prints \"error: MESSAGE\" in its place on stdout (exit 0),\n"
    "                   instead of \"ixjit: error: line N: MESSAGE\" on stderr (exit 2)\n"
    "  -h, --help       this text\n"
    "Options come before the IXFUN. Exit status: 0 done, 2 bad IXFUN text or arguments.\n";

/* The options, then the IXFUN arguments: CLI_OK with *args and *nargs set,
 * CLI_HELP after the usage, or a usage error. */
static int options(const char *name, const char *usage, int argc, char **argv, bool *inline_errors, cli_parser *p,
                   char ***args, int *nargs) {
  static const struct option longopts[] = {{"inline-errors", no_argument, NULL, 'i'}, {NULL, 0, NULL, 0}};
  *inline_errors = false;
  if (!cli_parser_init(p, name, argc, argv, usage)) return CLI_FAILED;
  int rc = CLI_OK;
  for (int opt; rc == CLI_OK && (opt = cli_next(p, "+", longopts)) != -1;) {
    if (opt == 'i') *inline_errors = true;
    else if (opt == CLI_HELP) rc = CLI_HELP;
    else rc = CLI_USAGE; /* reported */
  }
  *args = cli_positional(p, nargs);
  if (rc == CLI_HELP) fputs(usage, stdout);
  else if (rc == CLI_OK && *inline_errors && !(*nargs == 1 && !strcmp((*args)[0], "-")))
    rc = cli_error(CLI_USAGE, "--inline-errors is for '-' (standard input)");
  return rc;
}

static int eval_one(const ixj_ixfun *f) {
  print_points(f);
  return CLI_OK;
}

static int command(const char *name, const char *usage, int (*each)(const ixj_ixfun *), int argc, char **argv) {
  cli_parser p;
  bool inline_errors;
  char **args;
  int nargs;
  int rc = options(name, usage, argc, argv, &inline_errors, &p, &args, &nargs);
  if (rc == CLI_OK && nargs == 1 && !strcmp(args[0], "-")) {
    rc = batch(each, inline_errors);
  } else if (rc == CLI_OK) {
    ixj_ixfun *f;
    rc = parse_args(nargs, args, &f);
    if (rc == CLI_OK) {
      rc = each(f);
      ixj_ixfun_free(f);
      if (rc == CLI_OK && (ferror(stdout) || fflush(stdout))) rc = cli_error(CLI_FAILED, "cannot write the output");
    }
  }
  cli_parser_free(&p);
  return rc == CLI_HELP ? CLI_OK : rc;
}

int cmd_eval(int argc, char **argv) { return command("ixjit eval", eval_usage, eval_one, argc, argv); }

int cmd_show(int argc, char **argv) { return command("ixjit show", show_usage, print_canonical, argc, argv); }

/* Helpers every subcommand of the CLI shares: exit statuses, error messages,
 * the library's log callback, getopt_long over a subcommand's arguments,
 * numbers through the library's one parser, JSON output, human times. */
#ifndef IXJIT_TOOLS_CLI_H
#define IXJIT_TOOLS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "ixjit/context.h"

/* Exit statuses: 0 success, 1 failure of the job itself, 2 bad arguments or text. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* "ixjit: error: MESSAGE" on stderr; returns status, so a caller can write
 * `return cli_error(CLI_USAGE, ...)`. */
int cli_error(int status, const char *fmt, ...) CLI_PRINTF(2, 3);
/* The contexts' log callback: library warnings on stderr, as
 * "ixjit: warning: ...". */
void cli_log(void *user, ixj_log_level level, const char *message);

/* ---- options: getopt_long over a subcommand's arguments ------------------
 * Every option takes both spellings, `--elem-size=4` and `--elem-size 4`;
 * `--help` (and -h) is every command's. Usage:
 *
 *   cli_parser p;
 *   if (!cli_parser_init(&p, "ixjit run", argc, argv, usage)) return CLI_FAILED;
 *   for (int opt; (opt = cli_next(&p, "+j:", longopts)) != -1;)
 *     switch (opt) { case 'j': ... p.optarg ...; case CLI_HELP: ...; default: (an error was printed) }
 *   ... cli_positional(&p) ...
 *   cli_parser_free(&p);
 *
 * shortopts as getopt_long's (a leading '+' stops at the first argument that
 * is not an option, for commands whose operands may begin with '-'); the
 * longopts need no "help" entry. */
#define CLI_HELP 0x10000 /* --help or -h: the caller prints its usage to stdout, exits 0 */
#define CLI_BAD 0x10001  /* an unknown option or a missing value: already reported; exit 2 */

typedef struct cli_parser {
  const char *name;  /* "ixjit run" */
  const char *usage; /* the command's usage text, its first line shown after an error */
  int argc;
  char **argv; /* argv[0] is name, then the command's arguments (permuted by getopt) */
  const char *optarg;
  struct option *longopts; /* the caller's plus "help" */
} cli_parser;

bool cli_parser_init(cli_parser *p, const char *name, int argc, char **argv, const char *usage);
int cli_next(cli_parser *p, const char *shortopts, const struct option *longopts);
/* The arguments left after the options: *count of them. */
char **cli_positional(cli_parser *p, int *count);
void cli_parser_free(cli_parser *p);
/* Prints the usage text to `to` and returns status. */
int cli_usage(const char *usage, FILE *to, int status);

/* A count (digits only) in [min, max] for option `what`, through
 * ixj_parse_count; a bad value is reported (exit status 2), never a default. */
bool cli_count(const char *what, const char *text, uint64_t min, uint64_t max, uint64_t *out);
/* The same for a size with a suffix (ixj_parse_size: 10k, 500Mi, ...). */
bool cli_size(const char *what, const char *text, uint64_t min, uint64_t max, uint64_t *out);

/* ---- JSON (cJSON) ----------------------------------------------------------
 * Machine-readable output (`--json`) is built with cJSON, never by hand. */

/* Prints doc, formatted, and a newline to `to`, then frees doc (NULL: out of
 * memory while building it). CLI_OK, or CLI_FAILED (reported). */
int cli_json_print(cJSON *doc, FILE *to);
/* cJSON_AddNumberToObject for 64-bit counts: exact up to 2^53, which every
 * count and size the CLI prints stays below. NULL when out of memory. */
cJSON *cli_json_add_u64(cJSON *obj, const char *name, uint64_t value);

/* ---- human output ---------------------------------------------------------- */

/* A duration in milliseconds as people read it: "12.3 ms", "45.6 us",
 * "780 ns" (3 significant digits), into out. */
void cli_format_ms(double ms, char *out, size_t size);
/* Bytes as "1.5 MiB", "512 B", into out. */
void cli_format_bytes(uint64_t bytes, char *out, size_t size);

/* `ixjit bench` (bench_cmd.c): the performance regression bench. */
int cmd_bench(int argc, char **argv);

#endif

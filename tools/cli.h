/* Helpers every subcommand of the CLI shares: exit statuses, error messages,
 * the library's log callback. */
#ifndef IXJIT_TOOLS_CLI_H
#define IXJIT_TOOLS_CLI_H

#include "ixjit/context.h"

/* Exit statuses: 0 success, 1 failure of the job itself, 2 bad arguments or text. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* "ixjit: error: MESSAGE" on stderr; returns status, so a caller can write
 * `return cli_error(CLI_USAGE, ...)`. */
int cli_error(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The contexts' log callback: library warnings on stderr, as
 * "ixjit: warning: ...". */
void cli_log(void *user, ixj_log_level level, const char *message);
/* `ixjit bench` (bench_cmd.c): the performance regression bench. */
int cmd_bench(int argc, char **argv);

#endif

/* Shared by the CLI's subcommands. */
#ifndef IXJIT_TOOLS_CLI_H
#define IXJIT_TOOLS_CLI_H

#include <stdbool.h>

#include "ixjit/ixjit.h"

/* Exit statuses: 0 success, 1 failure of the job itself, 2 bad arguments or text. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

int cli_error(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Library warnings on stderr, as "ixjit: warning: ...". */
void cli_log(void *user, ixj_log_level level, const char *message);
int cmd_demo(int argc, char **argv);
int cmd_emit(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_warm(int argc, char **argv);
int cmd_cache(int argc, char **argv);

#endif

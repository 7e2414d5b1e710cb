/* The CLI's shared helpers (cli.h). */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

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

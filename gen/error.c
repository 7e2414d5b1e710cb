/* Status names and the one helper every stage uses to report an error. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const char *ixj_status_name(ixj_status status) {
  switch (status) {
  case IXJ_OK: return "ok";
  case IXJ_ERR_INVALID_ARGUMENT: return "invalid argument";
  case IXJ_ERR_PARSE: return "parse error";
  case IXJ_ERR_OUT_OF_RANGE: return "out of range";
  case IXJ_ERR_OVERFLOW: return "overflow";
  case IXJ_ERR_NO_MEMORY: return "out of memory";
  case IXJ_ERR_MISMATCH: return "mismatch";
  case IXJ_ERR_LIMIT: return "limit exceeded";
  case IXJ_ERR_UNAVAILABLE: return "unavailable";
  case IXJ_ERR_BACKEND: return "backend failure";
  case IXJ_ERR_IO: return "I/O error";
  case IXJ_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

ixj_status ixj__fail(ixj_error *err, ixj_status status, const char *fmt, ...) {
  if (err) {
    va_list ap;
    err->status = status;
    err->column = 0;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return status;
}

void ixj_free(void *ptr) { free(ptr); }

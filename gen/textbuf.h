/* Internal: snprintf-style text building. Writes what fits in buf[size]
 * (NUL-terminated) and counts the whole length, so a caller can size a second
 * pass exactly. */
#ifndef IXJIT_GEN_TEXTBUF_H
#define IXJIT_GEN_TEXTBUF_H

#include <stddef.h>

#include "error.h"

typedef struct textbuf {
  char *buf;
  size_t size, len;
} textbuf;

void ixj__textbuf_put(textbuf *b, const char *fmt, ...) IXJ_PRINTF(2, 3);

#endif

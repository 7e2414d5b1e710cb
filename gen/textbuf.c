/* snprintf-style text building (see textbuf.h). */
#include "textbuf.h"

#include <stdarg.h>
#include <stdio.h>

void ixj__textbuf_put(textbuf *b, const char *fmt, ...) {
  va_list ap;
  char *dst = b->len < b->size ? b->buf + b->len : NULL;
  size_t room = b->len < b->size ? b->size - b->len : 0;
  va_start(ap, fmt);
  int n = vsnprintf(dst, room, fmt, ap);
  va_end(ap);
  if (n > 0) b->len += (size_t)n;
}

/* Internal: growable text and template filling for the emitters. */
#ifndef IXJIT_GEN_TEMPLATE_H
#define IXJIT_GEN_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* A growable text buffer; `oom` sticks once an allocation fails. */
typedef struct text {
  char *buf;
  size_t len, cap;
  bool oom;
} text;

void ixj__text_put(text *t, const char *fmt, ...) IXJ_PRINTF(2, 3);

/* Replaces every @@KEY@@ of tmpl (kv: n key/value pairs) by its value;
 * "@@@KEY@@" keeps one '@' (an LLVM global). *out is malloc'ed. */
ixj_status ixj__template_fill(const char *tmpl, const char *const *kv, int n, char **out, ixj_error *err);

#endif

/* Growable text and @@SLOT@@ templates, shared by the emitters. */
#include "template.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable text buffer; `oom` sticks once an allocation fails. */
void ixj__text_put(text *t, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    if (t->oom) return;
    size_t room = t->cap - t->len;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? room : 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (t->buf && (size_t)n < room) {
      t->len += (size_t)n;
      return;
    }
    size_t cap = t->cap ? t->cap * 2 : 4096;
    while (cap < t->len + (size_t)n + 1) cap *= 2;
    char *b = realloc(t->buf, cap);
    if (!b) {
      t->oom = true;
      return;
    }
    t->buf = b;
    t->cap = cap;
  }
}

/* Replaces every @@KEY@@ of tmpl by its value. */
ixj_status ixj__template_fill(const char *tmpl, const char *const *kv, int n, char **out, ixj_error *err) {
  text t = {0};
  const char *s = tmpl;
  while (*s) {
    const char *at = strstr(s, "@@");
    if (!at) {
      ixj__text_put(&t, "%s", s);
      break;
    }
    while (at[2] == '@') at++; /* "@@@NAME@@": an IR global '@' before a slot */
    ixj__text_put(&t, "%.*s", (int)(at - s), s);
    const char *end = strstr(at + 2, "@@");
    if (!end) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "template: unterminated @@");
    size_t klen = (size_t)(end - at - 2);
    int k = 0;
    while (k < n && !(strlen(kv[2 * k]) == klen && !memcmp(kv[2 * k], at + 2, klen))) k++;
    if (k == n) {
      free(t.buf);
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "template: unknown slot @@%.*s@@", (int)klen, at + 2);
    }
    ixj__text_put(&t, "%s", kv[2 * k + 1]);
    s = end + 2;
  }
  if (t.oom || !t.buf) {
    free(t.buf);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory while emitting IR");
  }
  *out = t.buf;
  return IXJ_OK;
}


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

/* Replaces every @@KEY@@ of tmpl by its value. The keys and the template's
 * slots must match exactly: a slot without a key or a key without a slot is
 * an internal error (a template and its emitter that drifted apart). */
ixj_status ixj__template_fill(const char *tmpl, const char *const *kv, int n, char **out, ixj_error *err) {
  enum { MAX_KEYS = 64 };
  bool used[MAX_KEYS] = {false};
  text t = {0};
  ixj_status st = IXJ_OK;
  const char *s = tmpl;
  *out = NULL;
  if (n < 0 || n > MAX_KEYS) return ixj__fail(err, IXJ_ERR_INTERNAL, "internal error: template with %d keys", n);
  while (*s && st == IXJ_OK) {
    const char *at = strstr(s, "@@");
    if (!at) {
      ixj__text_put(&t, "%s", s);
      break;
    }
    while (at[2] == '@') at++; /* "@@@NAME@@": an IR global '@' before a slot */
    ixj__text_put(&t, "%.*s", (int)(at - s), s);
    const char *end = strstr(at + 2, "@@");
    if (!end) {
      st = ixj__fail(err, IXJ_ERR_INTERNAL, "internal error: template: unterminated @@");
      break;
    }
    size_t klen = (size_t)(end - at - 2);
    int k = 0;
    while (k < n && !(strlen(kv[2 * k]) == klen && !memcmp(kv[2 * k], at + 2, klen))) k++;
    if (k == n) {
      st = ixj__fail(err, IXJ_ERR_INTERNAL, "internal error: template: unknown slot @@%.*s@@", (int)klen, at + 2);
      break;
    }
    used[k] = true;
    ixj__text_put(&t, "%s", kv[2 * k + 1]);
    s = end + 2;
  }
  for (int k = 0; k < n && st == IXJ_OK; k++)
    if (!used[k]) st = ixj__fail(err, IXJ_ERR_INTERNAL, "internal error: template: key %s has no slot", kv[2 * k]);
  if (st == IXJ_OK && (t.oom || !t.buf)) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory while emitting a kernel");
  if (st != IXJ_OK) {
    free(t.buf);
    return st;
  }
  *out = t.buf;
  return IXJ_OK;
}

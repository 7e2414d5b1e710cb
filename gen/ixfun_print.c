/* Printing index functions in Futhark's one-line format:
 *   {base: [..]; contiguous: b; LMADs: [{offset: o; strides: [..]; rotates: [..];
 *    shape: [..]; permutation: [..]; monotonicity: [..]}, ...]}
 * Lists are in physical order; the output parses back to the same chain. */
#include "ixfun_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct sbuf {
  char *buf;
  size_t size, len;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) {
  va_list ap;
  char *dst = b->len < b->size ? b->buf + b->len : NULL;
  size_t room = b->len < b->size ? b->size - b->len : 0;
  va_start(ap, fmt);
  int n = vsnprintf(dst, room, fmt, ap);
  va_end(ap);
  if (n > 0) b->len += (size_t)n;
}

static void put_value(sbuf *b, int64_t v, int hole) {
  if (hole >= 0) put(b, "?%d", hole);
  else put(b, "%lld", (long long)v);
}

static void put_list(sbuf *b, const char *name, int n, const int64_t *v, const int *holes) {
  put(b, "%s: [", name);
  for (int k = 0; k < n; k++) {
    if (k) put(b, ", ");
    put_value(b, v[k], holes ? holes[k] : -1);
  }
  put(b, "]");
}

static const char *mono_name(ixj_monotonicity m) {
  return m == IXJ_MONO_INC ? "Inc" : m == IXJ_MONO_DEC ? "Dec" : "Unknown";
}

size_t ixfun_format(const ixj_ixfun *f, const ixfun_holes *holes, bool contiguous, char *buf,
                    size_t size) {
  sbuf b = {buf, size, 0};
  if (size) buf[0] = '\0';
  put(&b, "{");
  put_list(&b, "base", f->base_rank, f->base, holes ? holes->base : NULL);
  put(&b, "; contiguous: %s; LMADs: [", contiguous ? "true" : "false");
  for (int m = 0; m < f->num_lmads; m++) {
    const ixj_lmad *l = &f->lmads[m];
    int64_t perm[IXJ_MAX_RANK];
    if (m) put(&b, ", ");
    put(&b, "{offset: ");
    put_value(&b, l->offset, holes ? holes->offset : -1);
    put(&b, "; ");
    put_list(&b, "strides", l->rank, l->stride, holes ? holes->stride : NULL);
    put(&b, "; ");
    put_list(&b, "rotates", l->rank, l->rotate, holes ? holes->rotate : NULL);
    put(&b, "; ");
    put_list(&b, "shape", l->rank, l->shape, holes ? holes->shape : NULL);
    put(&b, "; ");
    for (int k = 0; k < l->rank; k++) perm[k] = l->perm[k];
    put_list(&b, "permutation", l->rank, perm, NULL);
    put(&b, "; monotonicity: [");
    for (int j = 0; j < l->rank; j++) put(&b, "%s%s", j ? ", " : "", mono_name(ixj_lmad_dim_monotonicity(l, j)));
    put(&b, "]}");
  }
  put(&b, "]}");
  return b.len;
}

size_t ixj_ixfun_format(const ixj_ixfun *f, char *buf, size_t size) {
  return ixfun_format(f, NULL, ixj_ixfun_is_contiguous(f), buf, size);
}

char *ixj_ixfun_to_string(const ixj_ixfun *f) {
  size_t n = ixj_ixfun_format(f, NULL, 0);
  char *s = malloc(n + 1);
  if (s) ixj_ixfun_format(f, s, n + 1);
  return s;
}

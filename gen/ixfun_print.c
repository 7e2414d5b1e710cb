/* Printing index functions in Futhark's one-line format:
 *   {base: [..]; contiguous: b; LMADs: [{offset: o; strides: [..]; rotates: [..];
 *    shape: [..]; permutation: [..]; monotonicity: [..]}, ...]}
 * Lists are in physical order; the output parses back to the same chain. */
#include "ixfun_internal.h"
#include "textbuf.h"

#include <stdio.h>
#include <stdlib.h>

static void put_value(textbuf *b, int64_t v, int hole) {
  if (hole >= 0) ixj__textbuf_put(b, "?%d", hole);
  else ixj__textbuf_put(b, "%lld", (long long)v);
}

static void put_list(textbuf *b, const char *name, int n, const int64_t *v, const int *holes) {
  ixj__textbuf_put(b, "%s: [", name);
  for (int k = 0; k < n; k++) {
    if (k) ixj__textbuf_put(b, ", ");
    put_value(b, v[k], holes ? holes[k] : -1);
  }
  ixj__textbuf_put(b, "]");
}

static const char *mono_name(ixj_monotonicity m) {
  return m == IXJ_MONO_INC ? "Inc" : m == IXJ_MONO_DEC ? "Dec" : "Unknown";
}

size_t ixj__ixfun_format(const ixj_ixfun *f, const ixfun_holes *holes, bool contiguous, char *buf,
                    size_t size) {
  textbuf b = {buf, size, 0};
  if (size) buf[0] = '\0';
  ixj__textbuf_put(&b, "{");
  put_list(&b, "base", f->base_rank, f->base, holes ? holes->base : NULL);
  ixj__textbuf_put(&b, "; contiguous: %s; LMADs: [", contiguous ? "true" : "false");
  for (int m = 0; m < f->num_lmads; m++) {
    const ixj_lmad *l = &f->lmads[m];
    int64_t perm[IXJ_MAX_RANK];
    if (m) ixj__textbuf_put(&b, ", ");
    ixj__textbuf_put(&b, "{offset: ");
    put_value(&b, l->offset, holes ? holes->offset : -1);
    ixj__textbuf_put(&b, "; ");
    put_list(&b, "strides", l->rank, l->stride, holes ? holes->stride : NULL);
    ixj__textbuf_put(&b, "; ");
    put_list(&b, "rotates", l->rank, l->rotate, holes ? holes->rotate : NULL);
    ixj__textbuf_put(&b, "; ");
    put_list(&b, "shape", l->rank, l->shape, holes ? holes->shape : NULL);
    ixj__textbuf_put(&b, "; ");
    for (int k = 0; k < l->rank; k++) perm[k] = l->perm[k];
    put_list(&b, "permutation", l->rank, perm, NULL);
    ixj__textbuf_put(&b, "; monotonicity: [");
    for (int j = 0; j < l->rank; j++) ixj__textbuf_put(&b, "%s%s", j ? ", " : "", mono_name(ixj_lmad_dim_monotonicity(l, j)));
    ixj__textbuf_put(&b, "]}");
  }
  ixj__textbuf_put(&b, "]}");
  return b.len;
}

size_t ixj_ixfun_format(const ixj_ixfun *f, char *buf, size_t size) {
  return ixj__ixfun_format(f, NULL, ixj_ixfun_is_contiguous(f), buf, size);
}

char *ixj_ixfun_to_string(const ixj_ixfun *f) {
  size_t n = ixj_ixfun_format(f, NULL, 0);
  char *s = malloc(n + 1);
  if (s) ixj_ixfun_format(f, s, n + 1);
  return s;
}

/* An external program against an installed ixjit: the version it was
 * compiled against is the library's, and a transposing copy through the JIT
 * matches the reference interpreter. Prints "consumer ok VERSION" and exits 0. */
#include <stdio.h>
#include <string.h>

#include <ixjit/dlpack.h>
#include <ixjit/ixjit.h>

int main(void) {
  if (strcmp(ixj_version(), IXJIT_VERSION_STRING)) {
    fprintf(stderr, "header %s, library %s\n", IXJIT_VERSION_STRING, ixj_version());
    return 1;
  }
  ixj_error err;
  ixj_ixfun *dst, *src;
  if (ixj_ixfun_parse("iota 6 4", &dst, &err) != IXJ_OK || ixj_ixfun_parse("iota 4 6 | permute 1 0", &src, &err) != IXJ_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  float in[24], out[24], ref[24];
  for (int k = 0; k < 24; k++) in[k] = (float)k;
  memset(out, 0, sizeof out);
  memset(ref, 0, sizeof ref);
  ixj_context *ctx;
  if (ixj_context_create(&(ixj_context_options){.num_threads = 1, .disk_cache = -1}, &ctx, &err) != IXJ_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  ixj_operand d = {out, sizeof out, dst}, s = {in, sizeof in, src}, r = {ref, sizeof ref, dst};
  int rc = ixj_copy(ctx, &d, &s, sizeof(float), NULL, &err) == IXJ_OK &&
                   ixj_reference_copy(&r, &s, sizeof(float), &err) == IXJ_OK
               ? 0
               : 1;
  if (rc) fprintf(stderr, "%s\n", err.message);
  if (!rc && memcmp(out, ref, sizeof out)) {
    fprintf(stderr, "the JIT's copy differs from the reference\n");
    rc = 1;
  }
  ixj_context_destroy(ctx);
  ixj_ixfun_free(dst);
  ixj_ixfun_free(src);
  if (!rc) printf("consumer ok %s\n", ixj_version());
  return rc;
}

/* Every CUDA device this process sees, on the real driver: on each one a
 * transpose copy, a strided fill and a cat, per call and prepared, checked
 * byte for byte against the reference interpreter, and the index one past
 * the last refused. Exits 77 (ctest's skip) without a usable GPU, saying
 * why; scripts/gpu-check.sh runs it with a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ixjit/ixjit.h"

static int failures;

#define EXPECT(c, ...)                             \
  do {                                             \
    if (!(c)) {                                    \
      fprintf(stderr, "FAIL line %d: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                \
      fputc('\n', stderr);                         \
      failures++;                                  \
    }                                              \
  } while (0)

enum { ROWS = 48, COLS = 80, ELEM = 4, BYTES = ROWS * COLS * ELEM };

static ixj_ixfun *parse(const char *text) {
  ixj_ixfun *f = NULL;
  ixj_error err;
  if (ixj_ixfun_parse(text, &f, &err) != IXJ_OK) {
    fprintf(stderr, "'%s': %s\n", text, err.message);
    exit(1);
  }
  return f;
}

/* dst's bytes after the operation on device `device` against the reference
 * on the host copies; prepared: through ixj_cuda_prepare_* instead. */
static void check_device(ixj_context *ctx, int device, bool prepared) {
  ixj_error err;
  static unsigned char host_src[BYTES], host_src2[BYTES], want[BYTES], got[BYTES];
  for (int k = 0; k < BYTES; k++) {
    host_src[k] = (unsigned char)(k * 31 + device);
    host_src2[k] = (unsigned char)(k * 17 + 5);
  }
  void *dst = NULL, *src = NULL, *src2 = NULL;
  ixj_status st = ixj_cuda_alloc_device(device, &dst, BYTES, &err);
  if (st == IXJ_OK) st = ixj_cuda_alloc_device(device, &src, BYTES, &err);
  if (st == IXJ_OK) st = ixj_cuda_alloc_device(device, &src2, BYTES, &err);
  if (st == IXJ_OK) st = ixj_cuda_upload(src, host_src, BYTES, &err);
  if (st == IXJ_OK) st = ixj_cuda_upload(src2, host_src2, BYTES, &err);
  EXPECT(st == IXJ_OK, "device %d: memory: %s", device, err.message);
  ixj_ixfun *d = parse("iota 48 80"), *t = parse("iota 80 48 | permute 1 0 | slice ::-1");
  ixj_ixfun *fd = parse("iota 48 80 | slice 1:47:3 ::-2"), *c0 = parse("iota 20 80"), *c1 = parse("iota 80 28 | permute 1 0");
  struct {
    const char *what;
    ixj_op_kind op;
    ixj_ixfun *dst;
    int n;
    const ixj_ixfun *srcs[2];
  } cases[] = {
      {"transpose copy", IXJ_OP_COPY, d, 1, {t}},
      {"strided fill", IXJ_OP_FILL, fd, 0, {NULL}},
      {"cat", IXJ_OP_CAT, d, 2, {c0, c1}},
  };
  const unsigned char value[ELEM] = {1, 2, 3, 4};
  for (size_t c = 0; c < sizeof cases / sizeof *cases && st == IXJ_OK; c++) {
    memset(want, 0xEE, BYTES);
    EXPECT(ixj_cuda_upload(dst, want, BYTES, &err) == IXJ_OK, "upload: %s", err.message);
    ixj_operand hd = {want, BYTES, cases[c].dst}, hs[2] = {{host_src, BYTES, cases[c].srcs[0]}, {host_src2, BYTES, cases[c].srcs[1]}};
    ixj_operand dd = {dst, BYTES, cases[c].dst}, ds[2] = {{src, BYTES, cases[c].srcs[0]}, {src2, BYTES, cases[c].srcs[1]}};
    if (cases[c].op == IXJ_OP_COPY) ixj_reference_copy(&hd, hs, ELEM, &err);
    else if (cases[c].op == IXJ_OP_FILL) ixj_reference_fill(&hd, value, ELEM, &err);
    else ixj_reference_cat(&hd, 0, 2, hs, ELEM, &err);
    if (prepared) {
      ixj_cuda_kernel *k = NULL;
      st = cases[c].op == IXJ_OP_COPY   ? ixj_cuda_prepare_copy(ctx, device, cases[c].dst, cases[c].srcs[0], ELEM, 0, &k, &err)
           : cases[c].op == IXJ_OP_FILL ? ixj_cuda_prepare_fill(ctx, device, cases[c].dst, ELEM, 0, &k, &err)
                                        : ixj_cuda_prepare_cat(ctx, device, cases[c].dst, 0, 2, cases[c].srcs, ELEM, 0, &k, &err);
      ixj_buffer bs[2] = {{src, BYTES}, {src2, BYTES}};
      if (st == IXJ_OK)
        st = ixj_cuda_kernel_run(k, (ixj_buffer){dst, BYTES}, cases[c].n, cases[c].n ? bs : NULL,
                                 cases[c].op == IXJ_OP_FILL ? value : NULL, NULL, &err);
      ixj_cuda_kernel_release(k);
    } else {
      st = cases[c].op == IXJ_OP_COPY   ? ixj_copy_cuda_device(ctx, device, &dd, ds, ELEM, NULL, NULL, &err)
           : cases[c].op == IXJ_OP_FILL ? ixj_fill_cuda_device(ctx, device, &dd, value, ELEM, NULL, NULL, &err)
                                        : ixj_cat_cuda_device(ctx, device, &dd, 0, 2, ds, ELEM, NULL, NULL, &err);
    }
    if (st == IXJ_OK) st = ixj_cuda_synchronize_device(device, NULL, &err);
    if (st == IXJ_OK) st = ixj_cuda_download(got, dst, BYTES, &err);
    EXPECT(st == IXJ_OK, "device %d, %s%s: %s", device, cases[c].what, prepared ? " (prepared)" : "", err.message);
    EXPECT(st != IXJ_OK || !memcmp(got, want, BYTES), "device %d, %s%s: bytes differ from the reference", device,
           cases[c].what, prepared ? " (prepared)" : "");
  }
  ixj_cuda_free(dst);
  ixj_cuda_free(src);
  ixj_cuda_free(src2);
  ixj_ixfun_free(d);
  ixj_ixfun_free(t);
  ixj_ixfun_free(fd);
  ixj_ixfun_free(c0);
  ixj_ixfun_free(c1);
}

int main(void) {
  ixj_error err;
  int count = 0;
  if (ixj_cuda_device_count(&count, &err) != IXJ_OK) {
    printf("skipped: %s\n", err.message);
    return 77;
  }
  ixj_context *ctx;
  if (ixj_context_create(&(ixj_context_options){.num_threads = 1, .disk_cache = -1}, &ctx, &err) != IXJ_OK) {
    fprintf(stderr, "context: %s\n", err.message);
    return 1;
  }
  for (int dev = 0; dev < count; dev++) {
    int cc = 0;
    EXPECT(ixj_cuda_device_available(dev, &cc, &err) == IXJ_OK, "device %d: %s", dev, err.message);
    printf("device %d: sm_%d\n", dev, cc);
    check_device(ctx, dev, false);
    check_device(ctx, dev, true);
  }
  EXPECT(ixj_cuda_device_available(count, NULL, &err) == IXJ_ERR_INVALID_ARGUMENT, "device %d was not refused", count);
  ixj_context_destroy(ctx);
  printf("%d device(s), %d failure(s)\n", count, failures);
  return failures ? 1 : 0;
}

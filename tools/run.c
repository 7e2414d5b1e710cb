/* `ixjit emit` and `ixjit run`: an operation from the command line.
 *
 *   ixjit emit copy|fill|cat --target llvm|cuda[:sm_XY]|ptx[:sm_XY]|cubin:sm_XY --dst IXFUN [--src IXFUN]...
 *              [--axis K] --elem-size E [--out FILE]
 *   ixjit run  copy|fill|cat [--target cpu|cuda] --dst IXFUN [--src IXFUN]... [--src-file F]... [--dst-file F]
 *              [--out F] [--value HEX] [--axis K] --elem-size E [--check]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "ixjit/ixjit.h"
#include "timing.h"

typedef struct op_args {
  ixj_op_kind op;
  const char *dst_text, *dst_file, *out_file, *value_hex, *target;
  const char *src_text[IXJ_MAX_CAT_INPUTS], *src_file[IXJ_MAX_CAT_INPUTS];
  int num_src_text, num_src_file, axis;
  size_t elem_size;
  int check;
} op_args;

static int parse_op_args(int argc, char **argv, bool run, op_args *a) {
  memset(a, 0, sizeof *a);
  a->target = "llvm";
  if (argc < 1) return cli_error(CLI_USAGE, "missing operation (copy, fill or cat)");
  if (!strcmp(argv[0], "copy")) a->op = IXJ_OP_COPY;
  else if (!strcmp(argv[0], "fill")) a->op = IXJ_OP_FILL;
  else if (!strcmp(argv[0], "cat")) a->op = IXJ_OP_CAT;
  else return cli_error(CLI_USAGE, "unknown operation '%s' (copy, fill or cat)", argv[0]);
  for (int k = 1; k < argc; k++) {
    const char *o = argv[k];
    bool has_value = k + 1 < argc;
    if (!strcmp(o, "--check") && run) {
      a->check = 1;
      continue;
    }
    if (!has_value) return cli_error(CLI_USAGE, "%s needs a value", o);
    const char *v = argv[++k];
    if (!strcmp(o, "--dst")) a->dst_text = v;
    else if (!strcmp(o, "--src") || !strcmp(o, "--src-file")) {
      bool file = !strcmp(o, "--src-file");
      int *n = file ? &a->num_src_file : &a->num_src_text;
      if (*n == IXJ_MAX_CAT_INPUTS) return cli_error(CLI_USAGE, "at most %d sources", IXJ_MAX_CAT_INPUTS);
      (file ? a->src_file : a->src_text)[(*n)++] = v;
    } else if (!strcmp(o, "--elem-size")) {
      uint64_t e;
      if (ixj_parse_count(v, 1, 16, &e, NULL) != IXJ_OK || (e != 1 && e != 2 && e != 4 && e != 8 && e != 16))
        return cli_error(CLI_USAGE, "--elem-size takes 1, 2, 4, 8 or 16");
      a->elem_size = (size_t)e;
    } else if (!strcmp(o, "--axis")) {
      uint64_t x;
      if (ixj_parse_count(v, 0, IXJ_MAX_RANK - 1, &x, NULL) != IXJ_OK) return cli_error(CLI_USAGE, "--axis takes a dim number");
      a->axis = (int)x;
    } else if (!strcmp(o, "--target")) a->target = v;
    else if (!strcmp(o, "--dst-file") && run) a->dst_file = v;
    else if (!strcmp(o, "--out")) a->out_file = v;
    else if (!strcmp(o, "--value") && run) a->value_hex = v;
    else return cli_error(CLI_USAGE, "unknown option '%s'", o);
  }
  if (!a->dst_text) return cli_error(CLI_USAGE, "--dst IXFUN is required");
  if (!a->elem_size) return cli_error(CLI_USAGE, "--elem-size is required");
  int want = a->op == IXJ_OP_COPY ? 1 : a->op == IXJ_OP_FILL ? 0 : -1;
  if (want >= 0 && a->num_src_text != want)
    return cli_error(CLI_USAGE, "%s takes %d --src", argv[0], want);
  if (want < 0 && a->num_src_text < 1) return cli_error(CLI_USAGE, "cat takes one or more --src");
  if (a->num_src_file && a->num_src_file != a->num_src_text)
    return cli_error(CLI_USAGE, "give a --src-file for every --src, in order, or none");
  if (a->op == IXJ_OP_FILL && run && !a->value_hex) return cli_error(CLI_USAGE, "fill needs --value HEX");
  return CLI_OK;
}

/* Parses every IXFUN argument. */
static int parse_ixfuns(const op_args *a, ixj_ixfun **dst, ixj_ixfun **srcs) {
  ixj_error err;
  if (ixj_ixfun_parse(a->dst_text, dst, &err) != IXJ_OK) return cli_error(CLI_USAGE, "--dst: %s", err.message);
  for (int k = 0; k < a->num_src_text; k++)
    if (ixj_ixfun_parse(a->src_text[k], &srcs[k], &err) != IXJ_OK)
      return cli_error(CLI_USAGE, "--src %d: %s", k + 1, err.message);
  return CLI_OK;
}

static void free_ixfuns(ixj_ixfun *dst, ixj_ixfun **srcs, int n) {
  ixj_ixfun_free(dst);
  for (int k = 0; k < n; k++) ixj_ixfun_free(srcs[k]);
}

/* --target: llvm | cuda[:sm_XY] | ptx[:sm_XY] | cubin:sm_XY. */
typedef struct target_spec {
  enum { TARGET_LLVM, TARGET_CUDA, TARGET_PTX, TARGET_CUBIN } kind;
  char arch[16]; /* sm_XY */
} target_spec;

static int parse_target(const char *t, target_spec *out) {
  const char *colon = strchr(t, ':');
  size_t n = colon ? (size_t)(colon - t) : strlen(t);
  snprintf(out->arch, sizeof out->arch, "%s", colon ? colon + 1 : "sm_80");
  int cc;
  if (sscanf(out->arch, "sm_%d", &cc) != 1) return cli_error(CLI_USAGE, "--target %s: the architecture must be sm_XY", t);
  if (n == 4 && !strncmp(t, "llvm", 4) && !colon) out->kind = TARGET_LLVM;
  else if (n == 4 && !strncmp(t, "cuda", 4)) out->kind = TARGET_CUDA;
  else if (n == 3 && !strncmp(t, "ptx", 3)) out->kind = TARGET_PTX;
  else if (n == 5 && !strncmp(t, "cubin", 5) && colon) out->kind = TARGET_CUBIN;
  else return cli_error(CLI_USAGE, "--target %s: use llvm, cuda[:sm_XY], ptx[:sm_XY] or cubin:sm_XY", t);
  return CLI_OK;
}

static int write_output(const char *path, const void *data, size_t size) {
  FILE *f = path ? fopen(path, "wb") : stdout;
  bool ok = f && fwrite(data, 1, size, f) == size;
  if (path && f) ok = fclose(f) == 0 && ok;
  return ok ? CLI_OK : cli_error(CLI_FAILED, "cannot write %s", path ? path : "the output");
}

int cmd_emit(int argc, char **argv) {
  op_args a;
  ixj_ixfun *dst = NULL, *srcs[IXJ_MAX_CAT_INPUTS] = {0};
  ixj_context *ctx = NULL;
  ixj_error err;
  char *text = NULL;
  target_spec target;
  int rc = parse_op_args(argc, argv, false, &a);
  if (rc == CLI_OK) rc = parse_target(a.target, &target);
  if (rc == CLI_OK && target.kind == TARGET_CUBIN && !a.out_file) rc = cli_error(CLI_USAGE, "a CUBIN needs --out FILE");
  if (rc == CLI_OK) rc = parse_ixfuns(&a, &dst, srcs);
  if (rc == CLI_OK && ixj_context_create(&(ixj_context_options){.num_threads = 1, .disk_cache = -1}, &ctx, &err) != IXJ_OK)
    rc = cli_error(CLI_FAILED, "%s", err.message);
  if (rc == CLI_OK) {
    const ixj_ixfun *const *s = (const ixj_ixfun *const *)srcs;
    ixj_status st = target.kind == TARGET_LLVM
                        ? ixj_emit_llvm(ctx, a.op, dst, a.num_src_text, s, a.axis, a.elem_size, &text, NULL, &err)
                        : ixj_emit_cuda(ctx, target.arch, a.op, dst, a.num_src_text, s, a.axis, a.elem_size, &text, NULL, &err);
    if (st != IXJ_OK) {
      rc = cli_error(st == IXJ_ERR_NO_MEMORY ? CLI_FAILED : CLI_USAGE, "%s", err.message);
    } else if (target.kind == TARGET_LLVM || target.kind == TARGET_CUDA) {
      rc = write_output(a.out_file, text, strlen(text));
    } else if (strstr(text, "needs no kernel")) {
      rc = cli_error(CLI_USAGE, "this operation needs no kernel (a plain memory copy)");
    } else {
      char arch[24];
      void *bin = NULL;
      size_t size = 0;
      snprintf(arch, sizeof arch, "%s_%s", target.kind == TARGET_PTX ? "compute" : "sm", target.arch + 3);
      if (ixj_compile_cuda(text, arch, &bin, &size, &err) != IXJ_OK) rc = cli_error(CLI_FAILED, "%s", err.message);
      else rc = write_output(a.out_file, bin, size);
      ixj_free(bin);
    }
  }
  ixj_free(text);
  ixj_context_destroy(ctx);
  free_ixfuns(dst, srcs, a.num_src_text);
  return rc;
}

/* ---- run ------------------------------------------------------------------ */

static int read_file(const char *path, char **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return cli_error(CLI_FAILED, "cannot open %s: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) {
      fclose(f);
      return cli_error(CLI_FAILED, "out of memory reading %s", path);
    }
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    char *bigger = realloc(buf, cap * 2);
    if (!bigger) free(buf);
    buf = bigger;
    cap *= 2;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return cli_error(CLI_FAILED, "cannot read %s", path);
  }
  *data = buf;
  *size = n;
  return CLI_OK;
}

/* Bytes just long enough for every offset f reaches (what names f in a
 * message). */
static int view_bytes(const ixj_ixfun *f, size_t elem, const char *what, size_t *bytes) {
  ixj_error err;
  if (ixj_ixfun_required_bytes(f, elem, bytes, &err) != IXJ_OK) return cli_error(CLI_FAILED, "%s: %s", what, err.message);
  return CLI_OK;
}

static int parse_hex_value(const char *hex, size_t elem, unsigned char *out) {
  size_t n = strlen(hex);
  if (n >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex += 2, n -= 2;
  if (n != 2 * elem) return cli_error(CLI_USAGE, "--value needs %zu hex digits for %zu-byte elements", 2 * elem, elem);
  for (size_t k = 0; k < elem; k++) {
    unsigned v;
    if (sscanf(hex + 2 * k, "%2x", &v) != 1) return cli_error(CLI_USAGE, "--value: bad hex digits");
    out[k] = (unsigned char)v; /* the bytes in memory order, as written */
  }
  return CLI_OK;
}

/* The same operation on device 0: buffers uploaded, the kernel run and
 * waited for (timed), the destination downloaded into d's host buffer. */
static ixj_status run_on_gpu(ixj_context *ctx, const op_args *a, ixj_operand *d, const ixj_operand *s,
                             const unsigned char *value, ixj_call_info *info, ixj_error *err) {
  ixj_operand dd = *d, ds[IXJ_MAX_CAT_INPUTS];
  int n = a->num_src_text;
  ixj_status st = ixj_cuda_alloc(&dd.data, d->size_bytes, err);
  if (st == IXJ_OK) st = ixj_cuda_upload(dd.data, d->data, d->size_bytes, err);
  for (int k = 0; k < n; k++) ds[k] = (ixj_operand){NULL, s[k].size_bytes, s[k].ixfun};
  for (int k = 0; st == IXJ_OK && k < n; k++) {
    st = ixj_cuda_alloc(&ds[k].data, s[k].size_bytes, err);
    if (st == IXJ_OK) st = ixj_cuda_upload(ds[k].data, s[k].data, s[k].size_bytes, err);
  }
  if (st == IXJ_OK) { /* a first call compiles and loads; the second is timed */
    for (int rep = 0; rep < 2 && st == IXJ_OK; rep++) {
      ixj_call_info one;
      double t0 = now_ms();
      st = a->op == IXJ_OP_COPY ? ixj_copy_cuda(ctx, &dd, &ds[0], a->elem_size, NULL, &one, err)
           : a->op == IXJ_OP_FILL ? ixj_fill_cuda(ctx, &dd, value, a->elem_size, NULL, &one, err)
                                  : ixj_cat_cuda(ctx, &dd, a->axis, n, ds, a->elem_size, NULL, &one, err);
      if (st == IXJ_OK) st = ixj_cuda_synchronize(NULL, err);
      if (rep == 0) *info = one;
      else info->run_ms = now_ms() - t0;
    }
  }
  if (st == IXJ_OK) st = ixj_cuda_download(d->data, dd.data, d->size_bytes, err);
  ixj_cuda_free(dd.data);
  for (int k = 0; k < n; k++) ixj_cuda_free(ds[k].data);
  return st;
}

int cmd_run(int argc, char **argv) {
  op_args a;
  ixj_ixfun *dst = NULL, *srcs[IXJ_MAX_CAT_INPUTS] = {0};
  char *dbuf = NULL, *ref = NULL, *sbuf[IXJ_MAX_CAT_INPUTS] = {0};
  size_t dsize = 0, ssize[IXJ_MAX_CAT_INPUTS] = {0};
  unsigned char value[16];
  ixj_context *ctx = NULL;
  ixj_error err;
  int rc = parse_op_args(argc, argv, true, &a);
  bool gpu = !strcmp(a.target, "cuda");
  if (rc == CLI_OK && !gpu && strcmp(a.target, "llvm") && strcmp(a.target, "cpu"))
    rc = cli_error(CLI_USAGE, "--target %s: run takes cpu (llvm) or cuda", a.target);
  if (rc == CLI_OK) rc = parse_ixfuns(&a, &dst, srcs);
  if (rc == CLI_OK && a.op == IXJ_OP_FILL) rc = parse_hex_value(a.value_hex, a.elem_size, value);
  for (int k = 0; rc == CLI_OK && k < a.num_src_text; k++) {
    if (a.num_src_file) {
      rc = read_file(a.src_file[k], &sbuf[k], &ssize[k]);
    } else { /* a deterministic pattern just long enough */
      char what[32];
      snprintf(what, sizeof what, "--src %d", k + 1);
      rc = view_bytes(srcs[k], a.elem_size, what, &ssize[k]);
      sbuf[k] = rc == CLI_OK ? malloc(ssize[k] ? ssize[k] : 1) : NULL;
      if (rc == CLI_OK && !sbuf[k]) rc = cli_error(CLI_FAILED, "out of memory");
      for (size_t b = 0; rc == CLI_OK && b < ssize[k]; b++) sbuf[k][b] = (char)(b * 131 + (size_t)k * 17 + 7);
    }
  }
  if (rc == CLI_OK) {
    if (a.dst_file) {
      rc = read_file(a.dst_file, &dbuf, &dsize);
    } else {
      rc = view_bytes(dst, a.elem_size, "--dst", &dsize);
      dbuf = rc == CLI_OK ? calloc(dsize ? dsize : 1, 1) : NULL;
      if (rc == CLI_OK && !dbuf) rc = cli_error(CLI_FAILED, "out of memory");
    }
  }
  if (rc == CLI_OK && a.check) {
    ref = malloc(dsize ? dsize : 1);
    if (!ref) rc = cli_error(CLI_FAILED, "out of memory");
    else memcpy(ref, dbuf, dsize);
  }
  if (rc == CLI_OK && ixj_context_create(&(ixj_context_options){.log = cli_log}, &ctx, &err) != IXJ_OK)
    rc = cli_error(CLI_FAILED, "%s", err.message);
  if (rc == CLI_OK) {
    ixj_operand d = {dbuf, dsize, dst}, s[IXJ_MAX_CAT_INPUTS], rd = {ref, dsize, dst};
    for (int k = 0; k < a.num_src_text; k++) s[k] = (ixj_operand){sbuf[k], ssize[k], srcs[k]};
    ixj_call_info info;
    ixj_status st = gpu ? run_on_gpu(ctx, &a, &d, s, value, &info, &err)
                    : a.op == IXJ_OP_COPY ? ixj_copy(ctx, &d, &s[0], a.elem_size, &info, &err)
                    : a.op == IXJ_OP_FILL ? ixj_fill(ctx, &d, value, a.elem_size, &info, &err)
                                          : ixj_cat(ctx, &d, a.axis, a.num_src_text, s, a.elem_size, &info, &err);
    if (st != IXJ_OK) {
      rc = cli_error(CLI_FAILED, "%s", err.message);
    } else {
      double bytes = (double)ixj_ixfun_num_points(dst) * (double)a.elem_size * (a.op == IXJ_OP_FILL ? 1 : 2);
      printf("strategy: %s\n", info.strategy);
      if (info.cache_hit) printf("cache: hit (memory)\n");
      else if (info.disk_hit) printf("cache: hit (disk, loaded in %.2f ms)\n", info.compile_ms);
      else printf("cache: miss (compiled in %.2f ms)\n", info.compile_ms);
      printf("kernel: %.3f ms, %.2f GB/s (bytes read + written)\n", info.run_ms,
             info.run_ms > 0 ? bytes / (info.run_ms * 1e6) : 0.0);
      if (a.check) {
        st = a.op == IXJ_OP_COPY ? ixj_reference_copy(&rd, &(ixj_operand){sbuf[0], ssize[0], srcs[0]}, a.elem_size, &err)
             : a.op == IXJ_OP_FILL ? ixj_reference_fill(&rd, value, a.elem_size, &err)
                                   : ixj_reference_cat(&rd, a.axis, a.num_src_text, s, a.elem_size, &err);
        bool same = st == IXJ_OK && !memcmp(ref, dbuf, dsize);
        printf("check: %s\n", same ? "ok (identical to the reference interpreter)" : "MISMATCH");
        if (!same) rc = CLI_FAILED;
      }
      if (rc == CLI_OK && a.out_file) {
        FILE *f = fopen(a.out_file, "wb");
        if (!f || fwrite(dbuf, 1, dsize, f) != dsize || fclose(f) != 0)
          rc = cli_error(CLI_FAILED, "cannot write %s", a.out_file);
      }
    }
  }
  ixj_context_destroy(ctx);
  free(dbuf);
  free(ref);
  for (int k = 0; k < a.num_src_text; k++) free(sbuf[k]);
  free_ixfuns(dst, srcs, a.num_src_text);
  return rc;
}

/* `ixjit emit` and `ixjit run`: an operation from the command line.
 *
 *   ixjit emit copy|fill|cat --target llvm|cuda[:sm_XY]|ptx[:sm_XY]|cubin:sm_XY --dst IXFUN [--src IXFUN]...
 *              [--axis K] --elem-size E [--out FILE]
 *   ixjit run  copy|fill|cat [--target cpu|cuda] --dst IXFUN [--src IXFUN]... [--src-file F]... [--dst-file F]
 *              [--out F] [--value HEX] [--axis K] --elem-size E [--check]
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "ixjit/ixjit.h"
#include "timing.h"

static const char emit_usage[] =
    "usage: ixjit emit copy|fill|cat --dst IXFUN [--src IXFUN]... --elem-size E [options]\n"
    "Prints the kernel ixjit would compile for an operation (nothing is run).\n"
    "  --target T       llvm (the default: LLVM IR for this CPU), cuda[:sm_XY] (CUDA C; sm_80 by default),\n"
    "                   ptx[:sm_XY] (PTX by NVRTC), cubin:sm_XY (a CUBIN by NVRTC; needs --out)\n"
    "  --dst IXFUN      the destination's index function (required)\n"
    "  --src IXFUN      a source: copy takes one, fill none, cat one or more (in order)\n"
    "  --axis K         cat: the dimension the sources are joined along (default 0)\n"
    "  --elem-size E    bytes per element: 1, 2, 4, 8 or 16 (required)\n"
    "  --out FILE       write to FILE instead of standard output\n"
    "  -h, --help       this text\n"
    "Options take --opt=VALUE or --opt VALUE. Exit status: 0 done, 1 a failed compile, 2 bad arguments.\n";

static const char run_usage[] =
    "usage: ixjit run copy|fill|cat --dst IXFUN [--src IXFUN]... --elem-size E [options]\n"
    "JIT-compiles (or finds in the cache) and runs one operation on buffers just large enough, and\n"
    "prints the strategy, where the kernel came from, the kernel time and GB/s (bytes read + written).\n"
    "  --target T       cpu (the default; also llvm) or cuda (CUDA device 0; needs a GPU)\n"
    "  --dst IXFUN      the destination's index function (required)\n"
    "  --src IXFUN      a source: copy takes one, fill none, cat one or more (in order)\n"
    "  --src-file F     a source's bytes, one per --src in order (default: a deterministic pattern)\n"
    "  --dst-file F     the destination's initial bytes (default: zeros)\n"
    "  --out F          write the whole destination buffer to F\n"
    "  --value HEX      fill: the element, 2 * E hex digits in memory order (required for fill)\n"
    "  --axis K         cat: the dimension the sources are joined along (default 0)\n"
    "  --elem-size E    bytes per element: 1, 2, 4, 8 or 16 (required)\n"
    "  --check          compare the result with the reference interpreter (exit 1 on a mismatch)\n"
    "  --json           print the result as one JSON object instead of lines\n"
    "  -h, --help       this text\n"
    "Options take --opt=VALUE or --opt VALUE. Exit status: 0 done, 1 a failure (a buffer too small,\n"
    "a mismatch, no GPU), 2 bad arguments.\n";

typedef struct op_args {
  ixj_op_kind op;
  const char *op_name;
  const char *dst_text, *dst_file, *out_file, *value_hex, *target;
  const char *src_text[IXJ_MAX_CAT_INPUTS], *src_file[IXJ_MAX_CAT_INPUTS];
  int num_src_text, num_src_file, axis;
  size_t elem_size;
  int check, json;
  bool help; /* --help was given: the usage is printed, nothing else is done */
} op_args;

enum { OPT_DST = 'd', OPT_SRC = 's', OPT_SRC_FILE = 'S', OPT_DST_FILE = 'D', OPT_OUT = 'o', OPT_VALUE = 'v',
       OPT_AXIS = 'a', OPT_ELEM = 'e', OPT_TARGET = 't', OPT_CHECK = 'c', OPT_JSON = 'J' };

static int parse_op_args(int argc, char **argv, bool run, op_args *a) {
  static const struct option emit_opts[] = {
      {"target", required_argument, NULL, OPT_TARGET}, {"dst", required_argument, NULL, OPT_DST},
      {"src", required_argument, NULL, OPT_SRC},       {"axis", required_argument, NULL, OPT_AXIS},
      {"elem-size", required_argument, NULL, OPT_ELEM}, {"out", required_argument, NULL, OPT_OUT},
      {NULL, 0, NULL, 0}};
  static const struct option run_opts[] = {
      {"target", required_argument, NULL, OPT_TARGET},     {"dst", required_argument, NULL, OPT_DST},
      {"src", required_argument, NULL, OPT_SRC},           {"src-file", required_argument, NULL, OPT_SRC_FILE},
      {"dst-file", required_argument, NULL, OPT_DST_FILE}, {"out", required_argument, NULL, OPT_OUT},
      {"value", required_argument, NULL, OPT_VALUE},       {"axis", required_argument, NULL, OPT_AXIS},
      {"elem-size", required_argument, NULL, OPT_ELEM},    {"check", no_argument, NULL, OPT_CHECK},
      {"json", no_argument, NULL, OPT_JSON},               {NULL, 0, NULL, 0}};
  const char *usage = run ? run_usage : emit_usage;
  memset(a, 0, sizeof *a);
  a->target = run ? "cpu" : "llvm";
  cli_parser p;
  if (!cli_parser_init(&p, run ? "ixjit run" : "ixjit emit", argc, argv, usage)) return CLI_FAILED;
  int rc = CLI_OK;
  for (int opt; rc == CLI_OK && (opt = cli_next(&p, "", run ? run_opts : emit_opts)) != -1;) {
    const char *v = p.optarg;
    uint64_t x;
    switch (opt) {
    case CLI_HELP: a->help = true; break;
    case OPT_DST: a->dst_text = v; break;
    case OPT_SRC:
    case OPT_SRC_FILE: {
      bool file = opt == OPT_SRC_FILE;
      int *n = file ? &a->num_src_file : &a->num_src_text;
      if (*n == IXJ_MAX_CAT_INPUTS) rc = cli_error(CLI_USAGE, "at most %d sources", IXJ_MAX_CAT_INPUTS);
      else (file ? a->src_file : a->src_text)[(*n)++] = v;
      break;
    }
    case OPT_ELEM:
      if (!cli_count("--elem-size", v, 1, 16, &x)) rc = CLI_USAGE;
      else if (x != 1 && x != 2 && x != 4 && x != 8 && x != 16)
        rc = cli_error(CLI_USAGE, "--elem-size takes 1, 2, 4, 8 or 16, not %s", v);
      else a->elem_size = (size_t)x;
      break;
    case OPT_AXIS:
      if (!cli_count("--axis", v, 0, IXJ_MAX_RANK - 1, &x)) rc = CLI_USAGE;
      else a->axis = (int)x;
      break;
    case OPT_TARGET: a->target = v; break;
    case OPT_DST_FILE: a->dst_file = v; break;
    case OPT_OUT: a->out_file = v; break;
    case OPT_VALUE: a->value_hex = v; break;
    case OPT_CHECK: a->check = 1; break;
    case OPT_JSON: a->json = 1; break;
    default: rc = CLI_USAGE; break; /* reported */
    }
  }
  int npos;
  char **pos = cli_positional(&p, &npos);
  if (rc == CLI_OK && a->help) {
    fputs(usage, stdout);
  } else if (rc == CLI_OK) {
    if (npos < 1) rc = cli_error(CLI_USAGE, "missing operation (copy, fill or cat)");
    else if (npos > 1) rc = cli_error(CLI_USAGE, "unexpected argument '%s'", pos[1]);
    else if (!strcmp(pos[0], "copy")) a->op = IXJ_OP_COPY;
    else if (!strcmp(pos[0], "fill")) a->op = IXJ_OP_FILL;
    else if (!strcmp(pos[0], "cat")) a->op = IXJ_OP_CAT;
    else rc = cli_error(CLI_USAGE, "unknown operation '%s' (copy, fill or cat)", pos[0]);
    if (rc == CLI_OK) a->op_name = pos[0];
  }
  cli_parser_free(&p);
  if (rc != CLI_OK || a->help) return rc;
  if (!a->dst_text) return cli_error(CLI_USAGE, "--dst IXFUN is required");
  if (!a->elem_size) return cli_error(CLI_USAGE, "--elem-size is required");
  int want = a->op == IXJ_OP_COPY ? 1 : a->op == IXJ_OP_FILL ? 0 : -1;
  if (want >= 0 && a->num_src_text != want)
    return cli_error(CLI_USAGE, "%s takes %d --src", a->op_name, want);
  if (want < 0 && a->num_src_text < 1) return cli_error(CLI_USAGE, "cat takes one or more --src");
  if (a->num_src_file && a->num_src_file != a->num_src_text)
    return cli_error(CLI_USAGE, "give a --src-file for every --src, in order, or none");
  if (a->op == IXJ_OP_FILL && run && !a->value_hex) return cli_error(CLI_USAGE, "fill needs --value HEX");
  if (a->op != IXJ_OP_FILL && a->value_hex) return cli_error(CLI_USAGE, "--value is for fill only");
  if (a->op != IXJ_OP_CAT && a->axis) return cli_error(CLI_USAGE, "--axis is for cat only");
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
  char tail;
  if (sscanf(out->arch, "sm_%d%c", &cc, &tail) != 1 || cc <= 0)
    return cli_error(CLI_USAGE, "--target %s: the architecture must be sm_XY", t);
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
  if (rc != CLI_OK || a.help) return rc;
  rc = parse_target(a.target, &target);
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
  for (size_t k = 0; k < 2 * elem; k++)
    if (!isxdigit((unsigned char)hex[k])) return cli_error(CLI_USAGE, "--value: '%c' is not a hex digit", hex[k]);
  for (size_t k = 0; k < elem; k++) { /* the bytes in memory order, as written */
    char two[3] = {hex[2 * k], hex[2 * k + 1], '\0'};
    out[k] = (unsigned char)strtoul(two, NULL, 16);
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

/* What `ixjit run` reports: the same facts as lines or as JSON. */
typedef struct run_report {
  const char *op, *target;
  const ixj_call_info *info;
  double bytes; /* read + written */
  int check;    /* -1 not asked, 0 mismatch, 1 identical */
  bool remote;  /* the kernel came from the remote store (docs/remote-cache.md) */
} run_report;

/* Where the kernel came from, truthfully: a plan without a kernel (a plain
 * memory copy, an empty operation) has no cache entry at all. */
static const char *kernel_source(const ixj_call_info *info) {
  if (!strcmp(info->strategy, "memcpy")) return "none";
  if (!strcmp(info->strategy, "empty")) return "none";
  if (info->generic) return "generic"; /* async or cache-only: the library's generic kernel ran */
  return info->cache_hit ? "memory" : info->disk_hit ? "disk" : "compiled";
}

static void print_run(const run_report *r) {
  const ixj_call_info *info = r->info;
  const char *from = kernel_source(info);
  char t[32];
  printf("strategy: %s\n", info->strategy);
  if (!strcmp(info->strategy, "empty")) {
    printf("cache: none (nothing to move: the destination has no elements)\n");
    printf("kernel: none (0 bytes)\n");
  } else {
    if (!strcmp(from, "none")) {
      printf("cache: none (a plain memory copy needs no kernel)\n");
    } else if (!strcmp(from, "memory")) {
      printf("cache: hit (memory)\n");
    } else if (!strcmp(from, "generic")) {
      printf("cache: miss (the generic kernel ran: IXJIT_COMPILE is async or cache-only)\n");
    } else {
      cli_format_ms(info->compile_ms, t, sizeof t);
      printf(r->remote ? "cache: hit (remote, %s)\n"
             : !strcmp(from, "disk") ? "cache: hit (disk, loaded in %s)\n" : "cache: miss (compiled in %s)\n", t);
    }
    cli_format_ms(info->run_ms, t, sizeof t);
    if (info->run_ms > 0)
      printf("%s: %s, %.2f GB/s (bytes read + written)\n", strcmp(from, "none") ? "kernel" : "memcpy", t,
             r->bytes / (info->run_ms * 1e6));
    else
      printf("%s: below the clock's resolution\n", strcmp(from, "none") ? "kernel" : "memcpy");
  }
  if (r->check >= 0) printf("check: %s\n", r->check ? "ok (identical to the reference interpreter)" : "MISMATCH");
}

/* The same as one JSON object (NULL when out of memory). */
static cJSON *run_json(const run_report *r) {
  const ixj_call_info *info = r->info;
  const char *from = kernel_source(info);
  cJSON *o = cJSON_CreateObject();
  bool ok = o && cJSON_AddStringToObject(o, "operation", r->op) && cJSON_AddStringToObject(o, "target", r->target) &&
            cJSON_AddStringToObject(o, "strategy", info->strategy) && cJSON_AddStringToObject(o, "kernel", from) &&
            cJSON_AddNumberToObject(o, "bytes", r->bytes) && cJSON_AddNumberToObject(o, "run_ms", info->run_ms);
  if (ok && r->remote) ok = cJSON_AddStringToObject(o, "kernel_tier", "remote") != NULL;
  if (ok && (!strcmp(from, "disk") || !strcmp(from, "compiled")))
    ok = cJSON_AddNumberToObject(o, !strcmp(from, "disk") ? "load_ms" : "compile_ms", info->compile_ms) != NULL;
  if (ok)
    ok = info->run_ms > 0 ? cJSON_AddNumberToObject(o, "gb_per_s", r->bytes / (info->run_ms * 1e6)) != NULL
                          : cJSON_AddNullToObject(o, "gb_per_s") != NULL;
  if (ok && r->check >= 0) ok = cJSON_AddBoolToObject(o, "check", r->check) != NULL;
  if (!ok) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
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
  if (rc != CLI_OK || a.help) return rc;
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
      int check = -1; /* -1 not asked, 0 mismatch, 1 identical */
      if (a.check) {
        st = a.op == IXJ_OP_COPY ? ixj_reference_copy(&rd, &(ixj_operand){sbuf[0], ssize[0], srcs[0]}, a.elem_size, &err)
             : a.op == IXJ_OP_FILL ? ixj_reference_fill(&rd, value, a.elem_size, &err)
                                   : ixj_reference_cat(&rd, a.axis, a.num_src_text, s, a.elem_size, &err);
        check = st == IXJ_OK && !memcmp(ref, dbuf, dsize);
        if (!check) rc = CLI_FAILED;
      }
      ixj_cache_stats cs; /* this process's one kernel: from the store when it counted a remote hit */
      ixj_context_cache_stats(ctx, &cs);
      run_report r = {a.op_name, gpu ? "cuda" : ixj_context_target(ctx), &info, bytes, check, cs.remote_hits > 0};
      if (a.json) {
        if (cli_json_print(run_json(&r), stdout) != CLI_OK) rc = CLI_FAILED;
      } else {
        print_run(&r);
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

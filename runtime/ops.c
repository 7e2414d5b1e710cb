/* The operations: validate, plan, find or compile the kernel, run it on the
 * thread pool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "context_internal.h"
#include "ixjit/ixjit.h"
#include "error.h"
#include "cuda_driver.h"
#include "emit_cuda.h"
#include "ixjit/cuda.h"
#include "nvrtc.h"
#include "plan.h"
#include "record.h"
#include "validate.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The kernel's symbol: derived from the signature's hash, so distinct
 * signatures never clash in the JIT. */
static void kernel_name_of(const char *signature, char name[48]) {
  XXH128_hash_t h = XXH3_128bits(signature, strlen(signature));
  snprintf(name, 48, "ixj_%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}

/* Planning needs the pointers only for their alignment: without buffers
 * (emission, warming) NULL means aligned and 1 means not. */
static ixj_status make_plan(ixj_context *ctx, const op_call *c, const void *unaligned, bool gpu, ixj_plan *plan,
                            ixj_error *err) {
  const ixj_ixfun *srcs[IXJ_MAX_CAT_INPUTS];
  const void *ptrs[1 + IXJ_MAX_CAT_INPUTS];
  int n = c->op == IXJ_OP_FILL ? 0 : c->num_srcs;
  ptrs[0] = c->shapes_only ? unaligned : c->dst->data;
  for (int s = 0; s < n; s++) {
    srcs[s] = c->srcs[s].ixfun;
    ptrs[1 + s] = c->shapes_only ? unaligned : c->srcs[s].data;
  }
  if (c->op == IXJ_OP_FILL) ptrs[1] = c->shapes_only ? unaligned : c->value;
  plan_request req = {c->op, c->elem_size, c->dst->ixfun, n, srcs, c->axis, ptrs, ctx->last_level_cache, gpu};
  return ixj__plan_build(&req, plan, err);
}

/* The signature in a malloc'ed string; target NULL: this CPU. */
static char *signature_of(ixj_context *ctx, const ixj_plan *plan, const char *target) {
  if (!target) target = ixj__jit_llvm_target(ctx->jit);
  size_t n = ixj__plan_signature(plan, target, NULL, 0);
  char *s = malloc(n + 1);
  if (s) ixj__plan_signature(plan, target, s, n + 1);
  return s;
}

typedef struct compile_job {
  ixj_context *ctx;
  const op_call *call;
  const ixj_plan *plan;
  const char *name, *signature;
  bool record; /* append the call to the record file */
} compile_job;

#define GENERATOR_VERSION "ixjit " IXJIT_VERSION_STRING " (kernel format 1)"

/* The disk key covers every input of the compile, never its output. */
static char *make_key(const char *backend, const char *toolchain, const char *signature) {
  const char *fmt = "ixjit-cache-key\nformat=%u\ngenerator=%s\nbackend=%s\ntoolchain=%s\nsignature=%s\n";
  int n = snprintf(NULL, 0, fmt, DISK_FORMAT_VERSION, GENERATOR_VERSION, backend, toolchain, signature);
  char *key = n > 0 ? malloc((size_t)n + 1) : NULL;
  if (key) snprintf(key, (size_t)n + 1, fmt, DISK_FORMAT_VERSION, GENERATOR_VERSION, backend, toolchain, signature);
  return key;
}

static char *disk_key(const compile_job *j) {
  return make_key("llvm-object", ixj__jit_llvm_toolchain(j->ctx->jit), j->signature);
}

/* A CUDA image (CUBIN for sm_XY, else PTX) of a signature: the disk cache,
 * else NVRTC (then written to the disk cache). *key is malloc'ed when the
 * disk cache is on. Needs no GPU. */
static ixj_status cuda_image(ixj_context *ctx, const ixj_plan *plan, const char *name, const char *signature,
                             const char *arch, void **image, size_t *size, bool *loaded, ixj_error *err) {
  char toolchain[32], *src = NULL, *key = NULL, backend[48];
  ixj_status st = ixj__nvrtc_version(toolchain, sizeof toolchain, err);
  if (st != IXJ_OK) return st;
  snprintf(backend, sizeof backend, "nvrtc-%s", arch);
  key = ctx->disk ? make_key(backend, toolchain, signature) : NULL;
  *loaded = key && ixj__disk_cache_load(ctx->disk, key, image, size);
  if (!*loaded) {
    st = ixj__emit_cuda(plan, name, signature, CUDA_DIV_MAGIC, &src, err);
    if (st == IXJ_OK) st = ixj__nvrtc_compile(src, arch, image, size, err);
    if (st == IXJ_OK && key) {
      ixj_error werr;
      if (ixj__disk_cache_store(ctx->disk, key, *image, *size, &werr) != IXJ_OK) ixj__ctx_warn_disk_once(ctx, werr.message);
    }
  }
  free(src);
  free(key);
  return st;
}

/* One line per newly compiled signature, in the format `ixjit warm` reads
 * (runtime/record.c); a failed write is a warning, never an error. */
static void record_call(const compile_job *j) {
  const op_call *c = j->call;
  const ixj_ixfun *srcs[IXJ_MAX_CAT_INPUTS];
  int n = c->op == IXJ_OP_FILL ? 0 : c->num_srcs;
  for (int k = 0; k < n; k++) srcs[k] = c->srcs[k].ixfun;
  ixj_error err;
  if (ixj__record_append(j->ctx->record_fd, c->op, c->elem_size, j->plan->vector_elems > 1, c->axis, c->dst->ixfun, n,
                         srcs, &err) != IXJ_OK)
    ixj__ctx_log(j->ctx, IXJ_LOG_WARNING, "%s", err.message);
}

/* Memory missed: the disk, then a compile (written back to the disk). */
static ixj_status compile_kernel(void *arg, kernel_ref *kernel, bool *loaded, ixj_error *err) {
  compile_job *j = arg;
  ixj_context *ctx = j->ctx;
  char *key = ctx->disk ? disk_key(j) : NULL, *ir = NULL;
  void *object = NULL;
  size_t size = 0;
  ixj_status st = IXJ_ERR_NO_MEMORY;
  if (key && ixj__disk_cache_load(ctx->disk, key, &object, &size)) {
    st = ixj__jit_llvm_link(ctx->jit, object, size, j->name, &kernel->cpu, err);
    *loaded = st == IXJ_OK;
    free(object);
    object = NULL;
  }
  if (!*loaded) {
    st = ixj__emit_llvm(j->plan, j->name, j->signature, &ir, err);
    if (st == IXJ_OK) st = ixj__jit_llvm_object(ctx->jit, ir, &object, &size, err);
    if (st == IXJ_OK && key) {
      ixj_error werr;
      if (ixj__disk_cache_store(ctx->disk, key, object, size, &werr) != IXJ_OK)
        ixj__ctx_warn_disk_once(ctx, werr.message); /* compiling without writing */
    }
    if (st == IXJ_OK) st = ixj__jit_llvm_link(ctx->jit, object, size, j->name, &kernel->cpu, err);
  }
  /* record what the disk cache lacked: what an offline job should warm */
  if (st == IXJ_OK && !*loaded && j->record && ctx->record_fd >= 0) record_call(j);
  free(object);
  free(ir);
  free(key);
  return st;
}

typedef struct launch {
  ixj_kernel_fn fn;
  const void *ptrs[PLAN_MAX_OPERANDS];
  int64_t offs[PLAN_MAX_OPERANDS];
  size_t elem_size;
} launch;

static void run_kernel_chunk(void *arg, uint64_t begin, uint64_t end) {
  launch *l = arg;
  l->fn(l->ptrs, l->offs, (int64_t)begin, (int64_t)end);
}

static void run_memcpy_chunk(void *arg, uint64_t begin, uint64_t end) {
  launch *l = arg;
  char *d = (char *)l->ptrs[0] + (l->offs[0] + (int64_t)begin) * (int64_t)l->elem_size;
  const char *s = (const char *)l->ptrs[1] + (l->offs[1] + (int64_t)begin) * (int64_t)l->elem_size;
  memcpy(d, s, (end - begin) * l->elem_size);
}

static ixj_status run_op(ixj_context *ctx, const op_call *c, ixj_call_info *info, ixj_error *err) {
  ixj_plan *plan = malloc(sizeof *plan);
  ixj_call_info local = {false, false, 0, 0, "empty"};
  if (!plan) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  ixj_status st = ixj__op_validate(c, err);
  if (st == IXJ_OK) st = make_plan(ctx, c, NULL, false, plan, err);
  if (st != IXJ_OK || plan->strategy == PLAN_EMPTY) goto done;
  local.strategy = ixj__plan_strategy_name(plan->strategy);

  launch l;
  memset(&l, 0, sizeof l);
  l.elem_size = c->elem_size;
  l.ptrs[0] = c->dst->data;
  for (int s = 0; s < (c->op == IXJ_OP_FILL ? 0 : c->num_srcs); s++) l.ptrs[1 + s] = c->srcs[s].data;
  if (c->op == IXJ_OP_FILL) l.ptrs[1] = c->value;
  for (int o = 0; o < plan->num_operands; o++) l.offs[o] = plan->operand[o].runtime_offset;

  if (plan->strategy == PLAN_MEMCPY) {
    local.cache_hit = true; /* nothing to compile */
    double t0 = now_ms();
    ixj__pool_run(ctx->pool, (uint64_t)plan->count, 1u << 16, 64, run_memcpy_chunk, &l);
    local.run_ms = now_ms() - t0;
    goto done;
  }
  char *signature = signature_of(ctx, plan, NULL);
  if (!signature) {
    st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    goto done;
  }
  char name[48];
  kernel_name_of(signature, name);
  compile_job job = {ctx, c, plan, name, signature, true};
  kernel_ref kernel;
  st = ixj__cache_get(ctx->cache, signature, compile_kernel, &job, &kernel, &local.cache_hit, &local.disk_hit,
                 &local.compile_ms, err);
  l.fn = kernel.cpu;
  if (st == IXJ_OK && !local.cache_hit)
    ixj__ctx_log(ctx, IXJ_LOG_DEBUG, "%s %s (%s) in %.2f ms", local.disk_hit ? "loaded" : "compiled", name, local.strategy,
            local.compile_ms);
  free(signature);
  if (st != IXJ_OK) goto done;
  double t0 = now_ms();
  uint64_t grain = plan->strategy == PLAN_TILED ? 16 : 1u << 15;
  ixj__pool_run(ctx->pool, plan->work_units, grain, (uint64_t)plan->vector_elems, run_kernel_chunk, &l);
  local.run_ms = now_ms() - t0;
done:
  free(plan);
  if (info) *info = local;
  return st;
}

ixj_status ixj_copy(ixj_context *ctx, const ixj_operand *dst, const ixj_operand *src, size_t elem_size,
                    ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && src);
  op_call c = {IXJ_OP_COPY, elem_size, dst, 1, src, NULL, 0, false};
  return run_op(ctx, &c, info, err);
}

ixj_status ixj_fill(ixj_context *ctx, const ixj_operand *dst, const void *value, size_t elem_size,
                    ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst);
  op_call c = {IXJ_OP_FILL, elem_size, dst, 0, NULL, value, 0, false};
  return run_op(ctx, &c, info, err);
}

ixj_status ixj_cat(ixj_context *ctx, const ixj_operand *dst, int axis, int num_srcs, const ixj_operand *srcs,
                   size_t elem_size, ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && (srcs || num_srcs == 0));
  op_call c = {IXJ_OP_CAT, elem_size, dst, num_srcs, srcs, NULL, axis, false};
  return run_op(ctx, &c, info, err);
}

/* Validates and plans an operation given only its index functions (emission,
 * warming): *plan is malloc'ed. */
typedef struct bufferless_call {
  ixj_operand dst, srcs[IXJ_MAX_CAT_INPUTS];
  op_call call;
} bufferless_call;

static ixj_status plan_bufferless(ixj_context *ctx, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                                  const ixj_ixfun *const *srcs, int axis, size_t elem_size, bool aligned, bool gpu,
                                  bufferless_call *b, ixj_plan **plan, ixj_error *err) {
  *plan = NULL;
  if (num_srcs < 0 || num_srcs > IXJ_MAX_CAT_INPUTS)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "1..%d inputs, not %d", IXJ_MAX_CAT_INPUTS, num_srcs);
  b->dst = (ixj_operand){NULL, 0, dst};
  for (int k = 0; k < num_srcs; k++) b->srcs[k] = (ixj_operand){NULL, 0, srcs[k]};
  b->call = (op_call){op, elem_size, &b->dst, num_srcs, b->srcs, NULL, axis, true};
  ixj_status st = ixj__op_validate(&b->call, err);
  if (st != IXJ_OK) return st;
  if (!(*plan = malloc(sizeof **plan))) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  st = make_plan(ctx, &b->call, aligned ? NULL : (const void *)1, gpu, *plan, err);
  if (st != IXJ_OK) {
    free(*plan);
    *plan = NULL;
  }
  return st;
}

ixj_status ixj_emit_llvm(ixj_context *ctx, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, char **ir, char **signature,
                         ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && ir && (srcs || num_srcs == 0));
  bufferless_call b;
  ixj_plan *plan;
  *ir = NULL;
  if (signature) *signature = NULL;
  ixj_status st = plan_bufferless(ctx, op, dst, num_srcs, srcs, axis, elem_size, true, false, &b, &plan, err);
  if (st != IXJ_OK) return st;
  char *sig = st == IXJ_OK ? signature_of(ctx, plan, NULL) : NULL;
  if (st == IXJ_OK && !sig) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  if (st == IXJ_OK) {
    char name[48];
    kernel_name_of(sig, name);
    if (plan->strategy == PLAN_EMPTY || plan->strategy == PLAN_MEMCPY) {
      size_t n = strlen(sig) + 128;
      *ir = malloc(n);
      if (*ir)
        snprintf(*ir, n, "; ixjit: strategy %s needs no kernel\n; signature: %s\n", ixj__plan_strategy_name(plan->strategy),
                 sig);
      else
        st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    } else {
      st = ixj__emit_llvm(plan, name, sig, ir, err);
    }
  }
  if (st == IXJ_OK && signature) *signature = sig;
  else free(sig);
  free(plan);
  return st;
}

ixj_status ixj_warm(ixj_context *ctx, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                    const ixj_ixfun *const *srcs, int axis, size_t elem_size, bool aligned,
                    ixj_warm_outcome *outcome, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && outcome && (srcs || num_srcs == 0));
  if (!ctx->disk) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "the disk cache is off: nothing to warm");
  bufferless_call b;
  ixj_plan *plan;
  ixj_status st = plan_bufferless(ctx, op, dst, num_srcs, srcs, axis, elem_size, aligned, false, &b, &plan, err);
  if (st != IXJ_OK) return st;
  *outcome = IXJ_WARM_NO_KERNEL;
  if (st == IXJ_OK && plan->strategy != PLAN_EMPTY && plan->strategy != PLAN_MEMCPY) {
    char *sig = signature_of(ctx, plan, NULL);
    if (!sig) {
      st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    } else {
      char name[48], file[48];
      kernel_name_of(sig, name);
      compile_job job = {ctx, &b.call, plan, name, sig, false};
      kernel_ref kernel;
      bool hit, loaded;
      double ms;
      st = ixj__cache_get(ctx->cache, sig, compile_kernel, &job, &kernel, &hit, &loaded, &ms, err);
      char *key = st == IXJ_OK ? disk_key(&job) : NULL;
      if (st == IXJ_OK && !key) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
      if (st == IXJ_OK) {
        /* warm means "on disk afterwards" */
        char path[4200];
        ixj__disk_cache_file_name(key, file);
        snprintf(path, sizeof path, "%s/%s", ixj__disk_cache_dir(ctx->disk), file);
        if (access(path, R_OK) != 0)
          st = ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "compiled, but the cache directory %s cannot be written",
                        ixj__disk_cache_dir(ctx->disk));
        else
          *outcome = hit || loaded ? IXJ_WARM_PRESENT : IXJ_WARM_COMPILED;
      }
      free(key);
      free(sig);
    }
  }
  free(plan);
  return st;
}

ixj_status ixj_emit_cuda(ixj_context *ctx, const char *arch, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, char **source, char **kernel_name,
                         ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && arch && dst && source && (srcs || num_srcs == 0));
  int cc;
  char target[32];
  *source = NULL;
  if (kernel_name) *kernel_name = NULL;
  if (sscanf(arch, "sm_%d", &cc) != 1 || cc < 50 || cc > 999)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "CUDA architecture '%s' is not of the form sm_XY", arch);
  snprintf(target, sizeof target, "cuda:%s", arch);
  bufferless_call b;
  ixj_plan *plan;
  ixj_status st = plan_bufferless(ctx, op, dst, num_srcs, srcs, axis, elem_size, true, true, &b, &plan, err);
  if (st != IXJ_OK) return st;
  char *sig = signature_of(ctx, plan, target), name[48];
  if (!sig) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  if (st == IXJ_OK) {
    kernel_name_of(sig, name);
    if (plan->strategy == PLAN_EMPTY || plan->strategy == PLAN_MEMCPY) {
      size_t n = strlen(sig) + 128;
      *source = malloc(n);
      if (*source)
        snprintf(*source, n, "// ixjit: strategy %s needs no kernel (cuMemcpy)\n// signature: %s\n",
                 ixj__plan_strategy_name(plan->strategy), sig);
      else
        st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    } else {
      st = ixj__emit_cuda(plan, name, sig, CUDA_DIV_MAGIC, source, err);
    }
    if (st == IXJ_OK && kernel_name && !(*kernel_name = strdup(name))) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  free(sig);
  free(plan);
  return st;
}

ixj_status ixj_compile_cuda(const char *source, const char *arch, void **binary, size_t *size, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, source && arch && binary && size);
  int cc;
  if ((sscanf(arch, "sm_%d", &cc) != 1 && sscanf(arch, "compute_%d", &cc) != 1) || cc < 50 || cc > 999)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "CUDA architecture '%s' is not sm_XY or compute_XY", arch);
  return ixj__nvrtc_compile(source, arch, binary, size, err);
}

/* ---- CUDA device memory ---------------------------------------------------- */

typedef struct cuda_job {
  ixj_context *ctx;
  const ixj_plan *plan;
  const char *name, *signature;
  int cc;
} cuda_job;

/* a CUBIN for exactly this GPU; PTX when it is newer than NVRTC knows */
static void cuda_arch(int cc, char arch[24]) {
  if (ixj__nvrtc_supports(cc)) snprintf(arch, 24, "sm_%d", cc);
  else snprintf(arch, 24, "compute_%d", ixj__nvrtc_newest());
}

static ixj_status compile_cuda_kernel(void *arg, kernel_ref *kernel, bool *loaded, ixj_error *err) {
  cuda_job *j = arg;
  char arch[24];
  void *image = NULL;
  size_t size;
  cuda_arch(j->cc, arch);
  ixj_status st = cuda_image(j->ctx, j->plan, j->name, j->signature, arch, &image, &size, loaded, err);
  if (st == IXJ_OK) st = ixj__cuda_load_kernel(image, j->name, &kernel->cuda, err);
  free(image);
  return st;
}

/* The kernels' argument struct (templates/cuda/prelude.cu) for MAGIC kernels:
 * ptr[N], off[N], value[2], and three one-element divisor arrays. */
static size_t cuda_args(const op_call *c, const ixj_plan *plan, unsigned char *buf, size_t size) {
  int n = plan->num_operands;
  size_t need = (size_t)16 * n + 16 + 16;
  if (need > size) return 0;
  memset(buf, 0, need);
  for (int o = 0; o < n; o++) {
    const void *p = o == 0 ? c->dst->data : c->op == IXJ_OP_FILL ? NULL : c->srcs[o - 1].data;
    int64_t off = plan->operand[o].runtime_offset;
    memcpy(buf + 8 * o, &p, 8);
    memcpy(buf + 8 * (size_t)n + 8 * o, &off, 8);
  }
  if (c->op == IXJ_OP_FILL) memcpy(buf + 16 * (size_t)n, c->value, c->elem_size);
  return need;
}

static ixj_status run_cuda(ixj_context *ctx, const op_call *c, void *stream, ixj_call_info *info, ixj_error *err) {
  ixj_call_info local = {false, false, 0, 0, "empty"};
  int cc = 0;
  ixj_status st = ixj__cuda_device(&cc, err);
  if (st == IXJ_OK) st = ixj__op_validate(c, err);
  ixj_plan *plan = st == IXJ_OK ? malloc(sizeof *plan) : NULL;
  if (st == IXJ_OK && !plan) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  if (st == IXJ_OK) st = make_plan(ctx, c, NULL, true, plan, err);
  if (st != IXJ_OK || plan->strategy == PLAN_EMPTY) goto done;
  local.strategy = ixj__plan_strategy_name(plan->strategy);
  if (plan->strategy == PLAN_MEMCPY) {
    local.cache_hit = true;
    size_t e = c->elem_size;
    st = ixj__cuda_memcpy_dtod((char *)c->dst->data + plan->operand[0].runtime_offset * (int64_t)e,
                          (const char *)c->srcs[0].data + plan->operand[1].runtime_offset * (int64_t)e,
                          (size_t)plan->count * e, stream, err);
    goto done;
  }
  char target[32], name[48];
  snprintf(target, sizeof target, "cuda:sm_%d", cc);
  char *sig = signature_of(ctx, plan, target);
  if (!sig) {
    st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    goto done;
  }
  kernel_name_of(sig, name);
  cuda_job job = {ctx, plan, name, sig, cc};
  kernel_ref kernel;
  st = ixj__cache_get(ctx->cache, sig, compile_cuda_kernel, &job, &kernel, &local.cache_hit, &local.disk_hit,
                 &local.compile_ms, err);
  free(sig);
  unsigned char args[16 * PLAN_MAX_OPERANDS + 64];
  if (st == IXJ_OK && !cuda_args(c, plan, args, sizeof args)) st = ixj__fail(err, IXJ_ERR_LIMIT, "too many operands");
  /* at most 2^31 - 1 blocks per launch */
  uint64_t per_launch = plan->strategy == PLAN_TILED ? (uint64_t)INT32_MAX
                        : (uint64_t)INT32_MAX / 2 * CUDA_THREADS_PER_BLOCK * CUDA_UNITS_PER_THREAD * (uint64_t)plan->vector_elems;
  for (uint64_t b = 0; st == IXJ_OK && b < plan->work_units; b += per_launch) {
    uint64_t e = b + per_launch < plan->work_units ? b + per_launch : plan->work_units;
    unsigned blocks, bx, by;
    ixj__cuda_launch_shape(plan, e - b, &blocks, &bx, &by);
    st = ixj__cuda_launch(kernel.cuda, blocks, bx, by, args, (long long)b, (long long)e, stream, err);
  }
done:
  free(plan);
  if (info) *info = local;
  return st;
}

ixj_status ixj_copy_cuda(ixj_context *ctx, const ixj_operand *dst, const ixj_operand *src, size_t elem_size,
                         void *stream, ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && src);
  op_call c = {IXJ_OP_COPY, elem_size, dst, 1, src, NULL, 0, false};
  return run_cuda(ctx, &c, stream, info, err);
}

ixj_status ixj_fill_cuda(ixj_context *ctx, const ixj_operand *dst, const void *value, size_t elem_size, void *stream,
                         ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && value);
  op_call c = {IXJ_OP_FILL, elem_size, dst, 0, NULL, value, 0, false};
  return run_cuda(ctx, &c, stream, info, err);
}

ixj_status ixj_cat_cuda(ixj_context *ctx, const ixj_operand *dst, int axis, int num_srcs, const ixj_operand *srcs,
                        size_t elem_size, void *stream, ixj_call_info *info, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && dst && (srcs || num_srcs == 0));
  op_call c = {IXJ_OP_CAT, elem_size, dst, num_srcs, srcs, NULL, axis, false};
  return run_cuda(ctx, &c, stream, info, err);
}

ixj_status ixj_cuda_available(int *compute_capability, ixj_error *err) {
  int cc = 0;
  ixj_status st = ixj__cuda_device(&cc, err);
  if (compute_capability) *compute_capability = st == IXJ_OK ? cc : 0;
  return st;
}

ixj_status ixj_cuda_alloc(void **ptr, size_t bytes, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ptr);
  return ixj__cuda_alloc(ptr, bytes, err);
}
void ixj_cuda_free(void *ptr) { ixj__cuda_free(ptr); }
ixj_status ixj_cuda_upload(void *device_dst, const void *host_src, size_t bytes, ixj_error *err) {
  return ixj__cuda_copy_to_device(device_dst, host_src, bytes, err);
}
ixj_status ixj_cuda_download(void *host_dst, const void *device_src, size_t bytes, ixj_error *err) {
  return ixj__cuda_copy_to_host(host_dst, device_src, bytes, err);
}
ixj_status ixj_cuda_synchronize(void *stream, ixj_error *err) { return ixj__cuda_synchronize(stream, err); }

ixj_status ixj_warm_cuda(ixj_context *ctx, const char *arch, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                         const ixj_ixfun *const *srcs, int axis, size_t elem_size, bool aligned,
                         ixj_warm_outcome *outcome, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, ctx && arch && dst && outcome && (srcs || num_srcs == 0));
  int cc;
  if (sscanf(arch, "sm_%d", &cc) != 1 || cc < 50 || cc > 999)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "CUDA architecture '%s' is not of the form sm_XY", arch);
  if (!ctx->disk) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "the disk cache is off: nothing to warm");
  bufferless_call b;
  ixj_plan *plan;
  ixj_status st = plan_bufferless(ctx, op, dst, num_srcs, srcs, axis, elem_size, aligned, true, &b, &plan, err);
  if (st != IXJ_OK) return st;
  *outcome = IXJ_WARM_NO_KERNEL;
  if (plan->strategy != PLAN_EMPTY && plan->strategy != PLAN_MEMCPY) {
    char target[32], name[48], carch[24];
    snprintf(target, sizeof target, "cuda:%s", arch);
    char *sig = signature_of(ctx, plan, target);
    void *image = NULL;
    size_t size;
    bool loaded = false;
    cuda_arch(cc, carch);
    if (!sig) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    if (st == IXJ_OK) {
      kernel_name_of(sig, name);
      st = cuda_image(ctx, plan, name, sig, carch, &image, &size, &loaded, err);
    }
    if (st == IXJ_OK) *outcome = loaded ? IXJ_WARM_PRESENT : IXJ_WARM_COMPILED;
    free(image);
    free(sig);
  }
  free(plan);
  return st;
}

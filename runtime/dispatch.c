/* The dispatch pipeline (see dispatch.h), written once for every backend
 * against runtime/backend.h. Nothing here is global: the context's caches,
 * JIT and pool lock what they share, and a request's state lives on the
 * calling thread. */
#include "dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "context_internal.h"
#include "error.h"
#include "plan.h"
#include "record.h"

/* The kernel's symbol: derived from the signature's hash, so distinct
 * signatures never clash in a JIT or a CUDA library. */
static void kernel_name_of(const char *signature, char name[48]) {
  XXH128_hash_t h = XXH3_128bits(signature, strlen(signature));
  snprintf(name, 48, "ixj_%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}

/* The signature of a plan for a target: malloc'ed, NULL when out of memory. */
static char *signature_of(const ixj_plan *plan, const char *target) {
  size_t n = ixj__plan_signature(plan, target, NULL, 0);
  char *s = malloc(n + 1);
  if (s) ixj__plan_signature(plan, target, s, n + 1);
  return s;
}

/* Planning needs the pointers only for their alignment: without buffers
 * (warming, emission) NULL stands for aligned and 1 for not. */
static ixj_status make_plan(ixj_context *ctx, const dispatch_request *req, const ixj__target *target, ixj_plan *plan,
                            ixj_error *err) {
  const op_call *c = &req->call;
  const ixj_ixfun *srcs[IXJ_MAX_CAT_INPUTS];
  const void *ptrs[1 + IXJ_MAX_CAT_INPUTS];
  const void *shapes_ptr = req->aligned ? NULL : (const void *)1;
  int n = c->op == IXJ_OP_FILL ? 0 : c->num_srcs;
  ptrs[0] = c->shapes_only ? shapes_ptr : c->dst->data;
  for (int s = 0; s < n; s++) {
    srcs[s] = c->srcs[s].ixfun;
    ptrs[1 + s] = c->shapes_only ? shapes_ptr : c->srcs[s].data;
  }
  if (c->op == IXJ_OP_FILL) ptrs[1] = c->shapes_only ? shapes_ptr : c->value;
  plan_request pr = {.op = c->op,
                     .elem_size = c->elem_size,
                     .dst = c->dst->ixfun,
                     .num_srcs = n,
                     .srcs = srcs,
                     .cat_axis = c->axis,
                     .pointers = ptrs,
                     .last_level_cache = ctx->last_level_cache,
                     .gpu = req->backend->gpu,
                     .cpu_vector_bytes = target->cpu_vector_bytes};
  return ixj__plan_build(&pr, plan, err);
}

/* One kernel being found or made; lives on the calling thread. */
typedef struct kernel_job {
  ixj_context *ctx;
  const dispatch_request *req;
  const ixj__target *target;
  const ixj_plan *plan;
  const char *name, *signature;
  char *key; /* the disk-cache key, made on first need; NULL while the disk cache is off */
} kernel_job;

static ixj_status job_key(kernel_job *j, ixj_error *err) {
  char id[64], toolchain[64];
  if (!j->ctx->disk || j->key) return IXJ_OK;
  const ixj__backend *b = j->target->backend;
  ixj_status st = b->key_inputs(j->ctx, j->target, id, sizeof id, toolchain, sizeof toolchain, err);
  if (st != IXJ_OK) return st;
  j->key = ixj__disk_cache_key(id, toolchain, j->signature);
  return j->key ? IXJ_OK : ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
}

/* The kernel's image: from the disk cache (unless skip_disk), else compiled
 * and written back (a cache that cannot be written costs one warning, never
 * the call). *image malloc'ed. */
static ixj_status job_image(kernel_job *j, bool skip_disk, void **image, size_t *size, bool *from_disk,
                            ixj_error *err) {
  ixj_context *ctx = j->ctx;
  const ixj__backend *b = j->target->backend;
  *image = NULL;
  *from_disk = false;
  ixj_status st = job_key(j, err);
  if (st != IXJ_OK) return st;
  if (j->key && !skip_disk && ixj__disk_cache_load(ctx->disk, j->key, image, size)) {
    *from_disk = true;
    return IXJ_OK;
  }
  char *text = NULL;
  st = b->emit(j->plan, j->name, j->signature, &text, err);
  if (st == IXJ_OK) st = b->compile(ctx, j->target, text, image, size, err);
  free(text);
  if (st == IXJ_OK && j->key) {
    ixj_error werr;
    if (ixj__disk_cache_store(ctx->disk, j->key, *image, *size, &werr) != IXJ_OK)
      ixj__ctx_warn_disk_once(ctx, werr.message);
  }
  return st;
}

/* One line in the record file for a kernel the disk cache lacked: what an
 * offline job should warm. A failed write is a warning. */
static void job_record(const kernel_job *j) {
  const op_call *c = &j->req->call;
  const ixj_ixfun *srcs[IXJ_MAX_CAT_INPUTS];
  int n = c->op == IXJ_OP_FILL ? 0 : c->num_srcs;
  for (int k = 0; k < n; k++) srcs[k] = c->srcs[k].ixfun;
  ixj_error err;
  if (ixj__record_append(j->ctx->record_fd, c->op, c->elem_size, j->plan->vector_elems > 1, c->axis, c->dst->ixfun, n,
                         srcs, &err) != IXJ_OK)
    ixj__ctx_log(j->ctx, IXJ_LOG_WARNING, "%s", err.message);
}

/* The memory cache missed (cache_compile_fn): the disk or a compile, then the
 * load. A disk image that does not load is replaced by a fresh compile. */
static ixj_status job_kernel(void *arg, kernel_ref *kernel, bool *loaded, ixj_error *err) {
  kernel_job *j = arg;
  const ixj__backend *b = j->target->backend;
  void *image;
  size_t size = 0;
  bool from_disk;
  ixj_status st = job_image(j, false, &image, &size, &from_disk, err);
  if (st == IXJ_OK) st = b->load(j->ctx, image, size, j->name, kernel, err);
  if (st != IXJ_OK && from_disk) {
    free(image);
    st = job_image(j, true, &image, &size, &from_disk, err);
    if (st == IXJ_OK) st = b->load(j->ctx, image, size, j->name, kernel, err);
  }
  free(image);
  *loaded = st == IXJ_OK && from_disk;
  if (st == IXJ_OK && !from_disk && j->req->mode == DISPATCH_RUN && j->ctx->record_fd >= 0) job_record(j);
  return st;
}

/* WARM: the kernel on disk afterwards (and in memory when loadable here). */
static ixj_status warm(kernel_job *j, dispatch_result *out, ixj_error *err) {
  ixj_context *ctx = j->ctx;
  bool present;
  ixj_status st;
  if (j->target->loadable) {
    kernel_ref kernel;
    bool hit, loaded;
    double ms;
    st = ixj__cache_get(ctx->cache, j->signature, job_kernel, j, &kernel, &hit, &loaded, &ms, err);
    present = hit || loaded;
  } else {
    void *image;
    size_t size;
    st = job_image(j, false, &image, &size, &present, err);
    free(image);
  }
  if (st == IXJ_OK) st = job_key(j, err);
  if (st == IXJ_OK && !ixj__disk_cache_has(ctx->disk, j->key))
    st = ixj__fail(err, IXJ_ERR_IO, "compiled, but the cache directory %s cannot be written", ixj__disk_cache_dir(ctx->disk));
  if (st == IXJ_OK) out->outcome = present ? IXJ_WARM_PRESENT : IXJ_WARM_COMPILED;
  return st;
}

/* The operands' data pointers as a backend's launch takes them. */
static void operand_pointers(const op_call *c, const void **ptrs) {
  ptrs[0] = c->dst->data;
  for (int s = 0; s < (c->op == IXJ_OP_FILL ? 0 : c->num_srcs); s++) ptrs[1 + s] = c->srcs[s].data;
}

/* RUN with a kernel: the memory cache (or the rest of the pipeline), then the launch. */
static ixj_status run(kernel_job *j, dispatch_result *out, ixj_error *err) {
  ixj_context *ctx = j->ctx;
  const op_call *c = &j->req->call;
  ixj_call_info *info = &out->info;
  kernel_ref kernel;
  ixj_status st = ixj__cache_get(ctx->cache, j->signature, job_kernel, j, &kernel, &info->cache_hit, &info->disk_hit,
                                 &info->compile_ms, err);
  if (st != IXJ_OK) return st;
  if (!info->cache_hit)
    ixj__ctx_log(ctx, IXJ_LOG_DEBUG, "%s %s (%s, %s) in %.2f ms", info->disk_hit ? "loaded" : "compiled", j->name,
                 info->strategy, j->target->name, info->compile_ms);
  const void *ptrs[PLAN_MAX_OPERANDS];
  operand_pointers(c, ptrs);
  return j->target->backend->launch(ctx, j->plan, &kernel, ptrs, c->op == IXJ_OP_FILL ? c->value : NULL,
                                    j->req->stream, &info->run_ms, err);
}

/* A plan without a kernel (EMPTY, MEMCPY). */
static ixj_status no_kernel(ixj_context *ctx, const dispatch_request *req, const ixj_plan *plan, const char *signature,
                            dispatch_result *out, ixj_error *err) {
  const ixj__backend *b = req->backend;
  if (req->mode == DISPATCH_WARM) {
    out->outcome = IXJ_WARM_NO_KERNEL;
  } else if (req->mode == DISPATCH_EMIT) {
#define NOTE "%sixjit: strategy %s needs no kernel%s\n%ssignature: %s\n"
    const char *strategy = ixj__plan_strategy_name(plan->strategy);
    int n = snprintf(NULL, 0, NOTE, b->comment, strategy, b->memcpy_by, b->comment, signature);
    if (n < 0 || !(out->text = malloc((size_t)n + 1))) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    snprintf(out->text, (size_t)n + 1, NOTE, b->comment, strategy, b->memcpy_by, b->comment, signature);
#undef NOTE
  } else if (plan->strategy == PLAN_MEMCPY) {
    const void *ptrs[PLAN_MAX_OPERANDS];
    operand_pointers(&req->call, ptrs);
    out->info.cache_hit = true; /* nothing to compile */
    return b->launch(ctx, plan, NULL, ptrs, NULL, req->stream, &out->info.run_ms, err);
  }
  return IXJ_OK;
}

ixj_status ixj__dispatch(ixj_context *ctx, const dispatch_request *req, dispatch_result *out, ixj_error *err) {
  memset(out, 0, sizeof *out);
  out->info.strategy = "empty";
  out->outcome = IXJ_WARM_NO_KERNEL;
  const ixj__backend *b = req->backend;
  ixj__target target;
  ixj_plan *plan = NULL;
  char *signature = NULL;
  ixj_status st = b->target(ctx, req->arch, &target, err);
  if (st == IXJ_OK && req->mode == DISPATCH_WARM && !ctx->disk)
    st = ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "the disk cache is off: nothing to warm");
  if (st == IXJ_OK) st = ixj__op_validate(&req->call, err);
  if (st == IXJ_OK && !(plan = malloc(sizeof *plan))) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  if (st == IXJ_OK) st = make_plan(ctx, req, &target, plan, err);
  if (st != IXJ_OK) goto done;
  out->info.strategy = ixj__plan_strategy_name(plan->strategy);
  bool kernel = plan->strategy != PLAN_EMPTY && plan->strategy != PLAN_MEMCPY;
  if (kernel || req->mode == DISPATCH_EMIT) { /* a run without a kernel formats nothing */
    if (!(signature = signature_of(plan, target.name))) {
      st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
      goto done;
    }
    kernel_name_of(signature, out->kernel_name);
  }
  if (!kernel) {
    st = no_kernel(ctx, req, plan, signature, out, err);
  } else if (req->mode == DISPATCH_EMIT) {
    st = b->emit(plan, out->kernel_name, signature, &out->text, err);
  } else {
    kernel_job job = {ctx, req, &target, plan, out->kernel_name, signature, NULL};
    st = req->mode == DISPATCH_WARM ? warm(&job, out, err) : run(&job, out, err);
    free(job.key);
  }
  if (st == IXJ_OK && req->mode == DISPATCH_EMIT) {
    out->signature = signature;
    signature = NULL;
  }
done:
  if (st != IXJ_OK) {
    free(out->text);
    out->text = NULL;
  }
  free(signature);
  free(plan);
  return st;
}

ixj_status ixj__dispatch_shapes(ixj_context *ctx, dispatch_mode mode, const ixj__backend *backend, const char *arch,
                                ixj_op_kind op, const ixj_ixfun *dst, int num_srcs, const ixj_ixfun *const *srcs,
                                int axis, size_t elem_size, bool aligned, dispatch_result *out, ixj_error *err) {
  ixj_operand d = {NULL, 0, dst}, s[IXJ_MAX_CAT_INPUTS];
  memset(out, 0, sizeof *out);
  out->info.strategy = "empty";
  out->outcome = IXJ_WARM_NO_KERNEL;
  if (num_srcs < 0 || num_srcs > IXJ_MAX_CAT_INPUTS)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "1..%d inputs, not %d", IXJ_MAX_CAT_INPUTS, num_srcs);
  for (int k = 0; k < num_srcs; k++) s[k] = (ixj_operand){NULL, 0, srcs[k]};
  dispatch_request req = {mode, backend, arch, {op, elem_size, &d, num_srcs, s, NULL, axis, true}, aligned, NULL};
  return ixj__dispatch(ctx, &req, out, err);
}
